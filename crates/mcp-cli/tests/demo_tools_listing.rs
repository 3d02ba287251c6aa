//! With no target, `mcp tools` lists the built-in demo server's tools.
mod support;

#[test]
fn lists_the_demo_tools() {
    let run = support::mcp(&["tools"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    for tool in [
        "echo(message: string)",
        "add(a: number, b: number)",
        "countdown(",
        "fail(",
        "ask_name(",
    ] {
        assert!(
            run.stdout.contains(tool),
            "missing {tool} in {}",
            run.stdout
        );
    }
}

#[test]
fn json_listing_parses_back() {
    let run = support::mcp(&["--json", "tools"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let v: serde_json::Value = serde_json::from_str(&run.stdout).expect("stdout is JSON");
    let names: Vec<&str> = v["demo"]
        .as_array()
        .expect("tools of server demo")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["echo", "add", "countdown", "fail", "ask_name"]);
}

#[test]
fn servers_shows_status_revision_and_counts() {
    let run = support::mcp(&["servers"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stdout.contains("demo  connected  2025-11-25"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("tools: 5  resources: 1  prompts: 1"),
        "{}",
        run.stdout
    );
}
