//! The elicitation form on a pseudo-terminal: Ctrl-C ends the command
//! wherever it is pressed (exit 130, the terminal's mode given back), a
//! terminal left in raw mode (no canonical input, no echo) does not trap the
//! form, a full form shows its choices and checks the date format, and the
//! time spent answering does not count against the call's timeout.
//!
//! Each run is `sh -c 'stty …; mcp …; echo EXIT=$?; stty -a'` on a pty, so the
//! test sees the exit code and the terminal's mode after `mcp` ended.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use rexpect::reader::Options;
use rexpect::session::{PtySession, spawn_with_options};

/// How long one expected text may take to appear (a server starting
/// included); a hang fails the test instead of stalling it.
const EXPECT_MS: u64 = 30_000;

/// Enter as a terminal sends it.
const ENTER: &str = "\r";
const DOWN: &str = "\x1b[B";
const BACKSPACE: &str = "\x7f";

/// Types `text` (the session buffers until flushed).
fn keys(p: &mut PtySession, text: &str) {
    p.send(text).expect("write to the pty");
    p.flush().expect("flush the pty");
}

/// `mcp args` on a fresh pty whose mode is first set by `stty stty_args`.
fn spawn(dir: &Path, stty_args: &str, args: &[&str]) -> PtySession {
    let script = format!(
        "stty rows 40 cols 100 {stty_args}; \"$0\" \"$@\"; echo \"EXIT=$?\"; stty -a; sleep 0.2"
    );
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_mcp"))
        .args(args)
        .current_dir(dir)
        .env_remove("MCP_LOG")
        .env("XDG_CACHE_HOME", dir.join(".cache"))
        .env("TERM", "xterm");
    spawn_with_options(
        cmd,
        Options::new()
            .timeout_ms(Some(EXPECT_MS))
            .strip_ansi_escape_codes(true),
    )
    .expect("spawn on a pty")
}

fn temp_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "mcp-cli-pty-{tag}-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Waits for `EXIT=n` and returns n with what `stty -a` printed after.
fn exit_and_mode(p: &mut PtySession) -> (i32, String) {
    let start = Instant::now();
    p.exp_string("EXIT=")
        .unwrap_or_else(|e| panic!("mcp did not end within {EXPECT_MS} ms: {e}"));
    let (_, code) = p.exp_regex(r"\d+").expect("exit code");
    let mode = p.exp_eof().unwrap_or_default();
    assert!(start.elapsed() < Duration::from_millis(EXPECT_MS));
    (code.parse().expect("number"), mode)
}

/// The `stty -a` flags that matter to the next program on the terminal.
fn canonical(mode: &str) -> bool {
    mode.split_whitespace().any(|w| w == "icanon")
}

/// Ctrl-C at each place of the demo's form, on a normal terminal and on one
/// left raw: the command ends with 130, and a terminal that was canonical
/// before is canonical after.
#[test]
fn ctrl_c_ends_the_command_anywhere_in_the_form() {
    for (terminal, stty_args) in [("normal", ""), ("raw", "raw -echo")] {
        for at_field in [false, true] {
            let dir = temp_dir("ctrl-c");
            let mut p = spawn(&dir, stty_args, &["call", "ask_name"]);
            p.exp_string("[demo] asks: What is your name?")
                .expect("the question");
            p.exp_string("Answer?").expect("the first prompt");
            if at_field {
                keys(&mut p, ENTER);
                p.exp_string("Name *").expect("the field prompt");
            }
            keys(&mut p, "\x03");
            let (code, mode) = exit_and_mode(&mut p);
            let place = if at_field {
                "at a field"
            } else {
                "at the first prompt"
            };
            assert_eq!(code, 130, "{terminal} terminal, Ctrl-C {place}");
            assert_eq!(
                canonical(&mode),
                stty_args.is_empty(),
                "{terminal} terminal, Ctrl-C {place}: the mode after is not the mode before: {mode}"
            );
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

/// A terminal without canonical mode and echo (what `npx … &` then `kill %1`
/// leaves behind): Enter arrives as `\r` and is taken.
#[test]
fn a_raw_terminal_does_not_trap_the_form() {
    let dir = temp_dir("raw");
    let mut p = spawn(&dir, "raw -echo", &["call", "ask_name"]);
    p.exp_string("Answer?").expect("the first prompt");
    keys(&mut p, ENTER);
    p.exp_string("Name *").expect("the field prompt");
    keys(&mut p, "Ada");
    keys(&mut p, ENTER);
    p.exp_string("Hello, Ada!").expect("the greeting");
    let (code, mode) = exit_and_mode(&mut p);
    assert_eq!(code, 0);
    assert!(!canonical(&mode), "raw before, raw after: {mode}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The time a person takes over a form does not count against the call's
/// timeout: `--timeout 2`, answered after 4 s, still gets the tool's result.
#[test]
fn a_slow_answer_does_not_time_the_call_out() {
    let dir = temp_dir("slow");
    let mut p = spawn(&dir, "", &["--timeout", "2", "call", "ask_name"]);
    p.exp_string("Answer?").expect("the first prompt");
    std::thread::sleep(Duration::from_secs(4));
    keys(&mut p, ENTER);
    p.exp_string("Name *").expect("the field prompt");
    keys(&mut p, "Ada");
    keys(&mut p, ENTER);
    p.exp_string("Hello, Ada!").expect("the greeting");
    let (code, _) = exit_and_mode(&mut p);
    assert_eq!(code, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The first prompt's three answers and Esc anywhere: the server is told
/// `decline` or `cancel`, and the command goes on (exit 0).
#[test]
fn decline_cancel_and_escape_answer_the_server() {
    const ESC: &str = "\x1b";
    let table: [(&str, &[&str], &str); 4] = [
        ("no", &[DOWN, ENTER], "No name given (declined)"),
        ("cancel", &[DOWN, DOWN, ENTER], "No name given (cancelled)"),
        (
            "Esc at the first prompt",
            &[ESC],
            "No name given (cancelled)",
        ),
        (
            "Esc at a field",
            &[ENTER, "Ad", ESC],
            "No name given (cancelled)",
        ),
    ];
    for (what, sequence, outcome) in table {
        let dir = temp_dir("answers");
        let mut p = spawn(&dir, "", &["call", "ask_name"]);
        p.exp_string("Answer?").expect("the first prompt");
        for k in sequence {
            keys(&mut p, k);
            // Let each key be read on its own: an Esc directly followed by
            // more bytes would read as an escape sequence.
            std::thread::sleep(Duration::from_millis(100));
        }
        p.exp_string(outcome)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let (code, _) = exit_and_mode(&mut p);
        assert_eq!(code, 0, "{what}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A stdio server (python3, standard library only) whose tool `form` asks
/// for a form of every kind of field and returns the answers it got as JSON
/// text (keys sorted). The properties are written in alphabetical order, the
/// order the form asks them in while serde_json runs without `preserve_order`.
const FORM_SERVER: &str = r#"
import json, sys
SCHEMA = {"type": "object", "properties": {
    "agree": {"type": "boolean", "title": "Agree", "default": True},
    "born": {"type": "string", "title": "Born", "format": "date"},
    "colors": {"type": "array", "title": "Colors",
               "items": {"type": "string", "enum": ["red", "green", "blue"]}},
    "name": {"type": "string", "title": "Name"},
    "size": {"type": "string", "title": "Size",
             "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]}},
    "required": ["name", "born"]}
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
call = None
for line in sys.stdin:
    m = json.loads(line)
    method, mid = m.get("method"), m.get("id")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "protocolVersion": m["params"]["protocolVersion"],
            "capabilities": {"tools": {}}, "serverInfo": {"name": "form", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": [
            {"name": "form", "inputSchema": {"type": "object"}}]}})
    elif method == "tools/call":
        call = mid
        send({"jsonrpc": "2.0", "id": "ask", "method": "elicitation/create",
              "params": {"message": "Tell me about you", "requestedSchema": SCHEMA}})
    elif method is None and mid == "ask":
        text = json.dumps(m.get("result"), sort_keys=True)
        send({"jsonrpc": "2.0", "id": call, "result": {"content": [{"type": "text", "text": text}]}})
    elif method is not None and mid is not None:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no"}})
"#;

#[test]
fn a_full_form_shows_its_choices_and_checks_formats() {
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("SKIP: python3 is not installed; the form server needs it");
        return;
    }
    let dir = temp_dir("full");
    std::fs::write(dir.join("form_server.py"), FORM_SERVER).unwrap();
    let mut p = spawn(
        &dir,
        "",
        &[
            "--protocol-version",
            "handshake",
            "--stdio",
            "python3 form_server.py",
            "call",
            "form",
        ],
    );
    p.exp_string("asks: Tell me about you")
        .expect("the question");
    p.exp_string("Answer?").unwrap();
    keys(&mut p, ENTER);
    p.exp_string("Agree").expect("agree");
    keys(&mut p, ENTER);
    p.exp_string("Born *").expect("born");
    keys(&mut p, "2026-02-30");
    keys(&mut p, ENTER);
    p.exp_string("enter a date as YYYY-MM-DD")
        .expect("the date format is checked");
    keys(&mut p, &BACKSPACE.repeat(10));
    keys(&mut p, "1815-12-10");
    keys(&mut p, ENTER);
    p.exp_string("Colors").expect("colors");
    for c in ["red", "green", "blue"] {
        p.exp_string(c).expect("a multi-select choice");
    }
    // red, then blue.
    keys(&mut p, " ");
    keys(&mut p, DOWN);
    keys(&mut p, DOWN);
    keys(&mut p, " ");
    keys(&mut p, ENTER);
    p.exp_string("Name *").expect("name");
    keys(&mut p, "Ada");
    keys(&mut p, ENTER);
    p.exp_string("Size").expect("size");
    p.exp_string("Small (s)").expect("a titled choice");
    p.exp_string("Large (l)").expect("a titled choice");
    keys(&mut p, DOWN);
    keys(&mut p, ENTER);
    p.exp_string(
        r#"{"action": "accept", "content": {"agree": true, "born": "1815-12-10", "colors": ["red", "blue"], "name": "Ada", "size": "l"}}"#,
    )
    .expect("the answers, typed");
    let (code, _) = exit_and_mode(&mut p);
    assert_eq!(code, 0);
    let _ = std::fs::remove_dir_all(&dir);
}
