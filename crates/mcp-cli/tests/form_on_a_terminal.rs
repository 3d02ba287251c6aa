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
const CTRL_U: &str = "\x15";
const CTRL_W: &str = "\x17";

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
        // inquire's look with colours: an answered prompt starts with `>`.
        .env_remove("NO_COLOR")
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
/// text (keys sorted). The schema is `SCHEMA`, sent as it is written
/// (`{schema}` is replaced by a test's own).
const FORM_SERVER: &str = r#"
import json, sys
SCHEMA = {schema}
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

/// The schema of the full form: every kind of field.
const FULL_SCHEMA: &str = r#"{"type": "object", "properties": {
    "agree": {"type": "boolean", "title": "Agree", "default": True},
    "born": {"type": "string", "title": "Born", "format": "date"},
    "colors": {"type": "array", "title": "Colors",
               "items": {"type": "string", "enum": ["red", "green", "blue"]}},
    "name": {"type": "string", "title": "Name"},
    "size": {"type": "string", "title": "Size",
             "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]}},
    "required": ["name", "born"]}"#;

/// Writes the form server asking `schema` into `dir` and runs `mcp call
/// form` against it on a pty; `None` (saying why) without python3.
fn spawn_form(dir: &Path, schema: &str) -> Option<PtySession> {
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("SKIP: python3 is not installed; the form server needs it");
        return None;
    }
    std::fs::write(
        dir.join("form_server.py"),
        FORM_SERVER.replace("{schema}", schema),
    )
    .unwrap();
    Some(spawn(
        dir,
        "",
        &[
            "--protocol-version",
            "handshake",
            "--stdio",
            "python3 form_server.py",
            "call",
            "form",
        ],
    ))
}

#[test]
fn a_full_form_shows_its_choices_and_checks_formats() {
    let dir = temp_dir("full");
    let Some(mut p) = spawn_form(&dir, FULL_SCHEMA) else {
        return;
    };
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
    // The line-editing keys edit, and no control key types its letter:
    // Ctrl-U clears the line, Ctrl-W deletes a word, Ctrl-T is ignored.
    keys(&mut p, "abc");
    keys(&mut p, CTRL_U);
    keys(&mut p, "xy z");
    keys(&mut p, CTRL_W);
    keys(&mut p, CTRL_W);
    keys(&mut p, "\x14");
    keys(&mut p, "Ada");
    keys(&mut p, ENTER);
    p.exp_string("Size").expect("size");
    p.exp_string("Small (s)").expect("a titled choice");
    p.exp_string("Large (l)").expect("a titled choice");
    // Past "(no answer)" and Small.
    keys(&mut p, DOWN);
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

/// A form written in the author's order (not alphabetical), with a field of
/// every kind and no default. Enter alone answers none of them: an optional
/// field is left out of the content, a required one is asked again ("a
/// value is required") until answered; a field with a default takes it and
/// the answered line shows it.
const UNANSWERED_SCHEMA: &str = r#"{"type": "object", "properties": {
    "zeta": {"type": "string", "title": "Zeta",
             "oneOf": [{"const": "a", "title": "Apple"}, {"const": "b", "title": "Banana"}]},
    "consent": {"type": "boolean", "title": "Consent"},
    "count": {"type": "integer", "title": "Count"},
    "ratio": {"type": "number", "title": "Ratio"},
    "size": {"type": "string", "title": "Size", "enum": ["s", "m"]},
    "tags": {"type": "array", "title": "Tags", "items": {"type": "string", "enum": ["x", "y"]}},
    "must": {"type": "boolean", "title": "Must"},
    "note": {"type": "string", "title": "Note"},
    "qty": {"type": "integer", "title": "Qty"},
    "mood": {"type": "string", "title": "Mood", "default": "calm"},
    "pick": {"type": "array", "title": "Pick", "items": {"type": "string", "enum": ["p", "q"]}}},
    "required": ["zeta", "must", "note", "qty", "pick"]}"#;

#[test]
fn a_field_without_a_default_is_unanswered_until_answered() {
    let dir = temp_dir("unanswered");
    let Some(mut p) = spawn_form(&dir, UNANSWERED_SCHEMA) else {
        return;
    };
    p.exp_string("Answer?").unwrap();
    keys(&mut p, ENTER);
    let required = |p: &mut PtySession, label: &str| {
        p.exp_string(label)
            .unwrap_or_else(|e| panic!("{label} (in the written order): {e}"));
        keys(p, ENTER);
        p.exp_string("a value is required")
            .unwrap_or_else(|e| panic!("{label} is required: asked again: {e}"));
    };
    let skipped = |p: &mut PtySession, label: &str| {
        p.exp_string(label)
            .unwrap_or_else(|e| panic!("{label} (in the written order): {e}"));
        keys(p, ENTER);
        p.exp_string(&format!("> {label} (no answer)"))
            .unwrap_or_else(|e| panic!("{label} left unanswered: {e}"));
    };
    // A required choice opens on "(choose one)"; the first option is below.
    required(&mut p, "Zeta *");
    p.exp_string("Zeta *").expect("asked again");
    keys(&mut p, DOWN);
    keys(&mut p, ENTER);
    for label in ["Consent", "Count", "Ratio", "Size", "Tags"] {
        skipped(&mut p, label);
    }
    required(&mut p, "Must *");
    keys(&mut p, "y");
    keys(&mut p, ENTER);
    required(&mut p, "Note *");
    keys(&mut p, "hi");
    keys(&mut p, ENTER);
    required(&mut p, "Qty *");
    keys(&mut p, "3");
    keys(&mut p, ENTER);
    p.exp_string("Mood").unwrap();
    keys(&mut p, ENTER);
    p.exp_string("> Mood calm")
        .expect("the default taken is shown");
    required(&mut p, "Pick *");
    keys(&mut p, " ");
    keys(&mut p, ENTER);
    p.exp_string(
        r#"{"action": "accept", "content": {"mood": "calm", "must": true, "note": "hi", "pick": ["p"], "qty": 3, "zeta": "a"}}"#,
    )
    .expect("only the answers given, and the default taken");
    let (code, _) = exit_and_mode(&mut p);
    assert_eq!(code, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// server-everything's elicitation form, Enter pressed through it: its
/// fields come in its own order (the one required field, `name`, first),
/// the optional boolean without a default is not answered (no "Agreed to
/// terms"), and a default taken is shown on the answered line. Skipped,
/// saying why, when server-everything is not installed.
#[test]
fn enter_through_server_everything_gives_no_consent() {
    let Some((program, args)) = mcp_tests::peers::require_command(
        "server-everything (stdio)",
        mcp_tests::peers::everything_stdio_command(),
    ) else {
        return;
    };
    let line = std::iter::once(program)
        .chain(args)
        .map(|w| format!("'{}'", w.replace('\'', r"'\''")))
        .collect::<Vec<_>>()
        .join(" ");
    let dir = temp_dir("everything");
    let mut p = spawn(
        &dir,
        "",
        &["--stdio", &line, "call", "trigger-elicitation-request"],
    );
    p.exp_string("Answer?").expect("the first prompt");
    keys(&mut p, ENTER);
    let (_, first) = p.exp_regex(r"String \*|Boolean").expect("the first field");
    assert_eq!(first, "String *", "the author's first field comes first");
    keys(&mut p, ENTER);
    p.exp_string("a value is required")
        .expect("name is required");
    keys(&mut p, "Ada");
    keys(&mut p, ENTER);
    p.exp_string("Boolean").expect("check");
    keys(&mut p, ENTER);
    p.exp_string("> Boolean (no answer)")
        .expect("no consent given");
    p.exp_string("String with default").unwrap();
    keys(&mut p, ENTER);
    p.exp_string("> String with default It was a dark and stormy night.")
        .expect("the default taken is shown");
    for label in [
        "String with email format",
        "String with uri format",
        "String with date format",
        "Integer",
        "Number in range 1-1000",
        "Untitled Single Select Enum",
        "Untitled Multiple Select Enum",
        "Titled Single Select Enum",
        "Titled Multiple Select Enum",
        "Legacy Titled Single Select Enum",
    ] {
        p.exp_string(label)
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        keys(&mut p, ENTER);
    }
    let shown = p.exp_string("EXIT=").expect("the command ends");
    assert!(shown.contains("- Name: Ada"), "{shown}");
    assert!(shown.contains("- Favorite Integer: 42"), "{shown}");
    assert!(
        !shown.contains("Agreed to terms"),
        "consent by default: {shown}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
