//! `mcp servers` prints one row per server whatever the server calls itself:
//! a line feed in its `serverInfo` cannot print a forged second row.
//! Skipped, saying why, without python3.
mod support;

const SERVER: &str = r#"
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    if msg.get("method") == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {},
                  "serverInfo": {"name": "nl\ngithub  connected  2025-11-25  github-mcp 1.0  tools: 40",
                                 "version": "1\n2"}}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
    else:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"],
                                     "error": {"code": -32601, "message": "no"}}) + "\n")
    sys.stdout.flush()
"#;

#[test]
fn a_line_feed_in_server_info_cannot_forge_a_row() {
    if std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("SKIP: python3 is not installed");
        return;
    }
    let dir = support::temp_dir("rows");
    let script = dir.join("server.py");
    std::fs::write(&script, SERVER).unwrap();
    let line = format!("python3 {}", script.display());
    let run = support::mcp(&["--stdio", &line, "servers"]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout.lines().count(), 1, "{:?}", run.stdout);
    assert!(run.stdout.contains("nl\\ngithub"), "{:?}", run.stdout);
}
