//! `mcp ui` on a real terminal (tmux, on a private socket), driven as a
//! person would against the built-in demo server: open a tool, fill its
//! form, call it, see the result; watch a call's progress and cancel it;
//! answer a server's question (elicitation); read a resource; get a prompt
//! with completion as you type; look at the wire; resize the window; quit.
//! Every screen is read with `tmux capture-pane`, and after each way out
//! (`q`, Ctrl-C, SIGTERM, a panic) the terminal is checked to be given back: the
//! main screen, the cursor shown, mouse reporting off, canonical mode and
//! echo on. (tmux cannot send a mouse click to a pane: what a click and the
//! wheel do is unit-tested on crossterm's mouse events, `app/mouse.rs`.) A server that
//! dies is shown as closed while the explorer goes on, and `R` starts it
//! again. Against
//! server-everything, its sampling, roots and elicitation requests are
//! answered in the explorer's dialogs; against the Python SDK server (the
//! 2026-07-28 revision), a tool is called and a server request that
//! revision cannot carry is explained with the option that helps. Against
//! server-everything again, tasks are followed, answered and cancelled in
//! the Tasks pane.
//!
//! Skipped, saying so, when tmux (or server-everything, for its test) is
//! not installed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use mcp_tests::peers::{everything_stdio_command, python_stdio_command, require_command};
use support::tmux::{Pane, Tmux};

/// How long a screen may take to show what is awaited: 30 s (a debug
/// build on a loaded 2-core machine).
const WAIT: Duration = Duration::from_secs(30);

/// The pane's main-screen, cursor and mouse-reporting flags.
const FLAGS: [&str; 4] = [
    "alternate_on",
    "cursor_flag",
    "mouse_any_flag",
    "mouse_sgr_flag",
];

/// The mouse-reporting flags that are off once the terminal is given back.
const MOUSE: [&str; 2] = ["mouse_any_flag", "mouse_sgr_flag"];

/// Starts `mcp ui ARGS` with `vars` (`NAME='value' ...`) in its
/// environment, its home and cache in `dir`; the pane's shell writes its
/// pid to `shell.pid` first, and after mcp prints the exit code and the
/// terminal's modes ([`Tmux::start_ui`]).
fn start<'t>(tmux: &'t Tmux, dir: &Path, vars: &str, args: &str) -> Pane<'t> {
    let command = format!(
        "echo $$ > shell.pid; HOME='{dir}' XDG_CACHE_HOME='{dir}/.cache' {vars} '{mcp}' ui {args}",
        dir = dir.display(),
        mcp = env!("CARGO_BIN_EXE_mcp"),
    );
    tmux.start_ui(dir, &command)
}

/// `mcp ui --stdio` on the peer `command` (`what`, for the message when it
/// is not installed: then `None`), in a fresh directory named `dir_name`.
fn explore_peer<'t>(
    tmux: &'t Tmux,
    what: &str,
    command: Option<(String, Vec<String>)>,
    dir_name: &str,
) -> Option<(Pane<'t>, PathBuf)> {
    let (program, args) = require_command(what, command)?;
    let line = std::iter::once(program)
        .chain(args)
        .map(|w| format!("'{w}'"))
        .collect::<Vec<_>>()
        .join(" ");
    let dir = support::temp_dir(dir_name);
    let ui = start(tmux, &dir, "", &format!("--stdio \"{line}\""));
    Some((ui, dir))
}

/// [`explore_peer`] on server-everything, connected: the screen where the
/// server, once initialized, asks for the roots (Enter accepts them).
fn explore_everything<'t>(tmux: &'t Tmux, dir_name: &str) -> Option<(Pane<'t>, PathBuf, String)> {
    let (ui, dir) = explore_peer(
        tmux,
        "server-everything (stdio)",
        everything_stdio_command(),
        dir_name,
    )?;
    ui.wait_for("server-everything connected");
    let roots = ui.wait_for("asks for the roots (roots/list)");
    Some((ui, dir, roots))
}

/// The pid of `mcp` (the child of the pane's shell) and of its child, the
/// demo server.
fn children(of: u32) -> Vec<u32> {
    let out = Command::new("pgrep")
        .args(["-P", &of.to_string()])
        .output()
        .expect("pgrep");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

fn shell_pid(dir: &Path) -> u32 {
    let start = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(dir.join("shell.pid"))
            && let Ok(pid) = text.trim().parse()
        {
            return pid;
        }
        assert!(start.elapsed() < WAIT, "the pane's shell wrote no pid");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_person_explores_the_demo_server() {
    let Some(tmux) = Tmux::new("mcp-ui-explore", WAIT) else {
        return;
    };
    let dir = support::temp_dir("ui-tmux");
    let ui = start(&tmux, &dir, "", "");
    let s = ui.wait_for("demo connected 2025-11-25");
    for want in ["1 Servers", "server: mcp-demo", "capabilities:", "q quit"] {
        assert!(s.contains(want), "{want:?} missing:\n{s}");
    }
    // The mouse is reported while the explorer runs (alternate screen,
    // cursor hidden, any-event mouse, SGR coordinates).
    assert_eq!(ui.flags(&FLAGS), "1 0 1 1");

    // A tool: its form in the schema's order, filled and called.
    ui.keys(&["2"]);
    ui.wait_for("countdown");
    ui.keys(&["Down", "Enter"]);
    let s = ui.wait_for("call add");
    assert!(s.contains("› a* number"), "{s}");
    ui.keys(&["2", "Tab", "3", "Enter"]);
    let s = ui.wait_for("add → result");
    assert!(
        s.contains("structuredContent (matches the outputSchema)"),
        "{s}"
    );
    assert!(s.contains("\"sum\": 5"), "{s}");

    // Progress, live, then cancelled.
    ui.keys(&["Down", "Enter"]);
    ui.wait_for("call countdown");
    ui.keys(&["3", "0", "0", "Tab", "5", "0", "Enter"]);
    ui.wait_for("calling countdown on demo… progress:");
    ui.keys(&["c"]);
    ui.wait_for("countdown → cancelled");

    // A tool whose result is an error, and one that asks a question.
    ui.keys(&["Down", "Enter"]);
    ui.wait_for("call fail");
    ui.keys(&["Enter"]);
    ui.wait_for("isError: true");
    ui.keys(&["Down", "Enter"]);
    ui.wait_for("call ask_name");
    ui.keys(&["Enter"]);
    ui.wait_for("What is your name?");
    ui.keys(&["A", "d", "a", "Enter"]);
    ui.wait_for("Hello, Ada!");

    // A resource, read.
    ui.keys(&["3"]);
    ui.wait_for("demo://readme");
    ui.keys(&["Enter"]);
    ui.wait_for("# mcp demo server");

    // A prompt, its argument completed as typed.
    ui.keys(&["4", "Enter", "G", "r"]);
    ui.wait_for("completions: Grace");
    ui.keys(&["Tab", "Enter"]);
    ui.wait_for("Please greet Grace warmly");

    // The wire: the calls, their answers timed; the log: the server's messages.
    ui.keys(&["5"]);
    let s = ui.wait_for("request prompts/get");
    assert!(s.contains("← demo result of"), "{s}");
    assert!(s.contains(" ms)"), "{s}");
    ui.keys(&["6"]);
    ui.wait_for("[demo] info:");

    // A smaller window: drawn again at its size, nothing left of the old one.
    assert!(ui.run("resize-window", &["-x", "80", "-y", "20"]));
    ui.keys(&["3"]);
    let s = ui.wait_for("┌Resources");
    let lines: Vec<&str> = s.lines().collect();
    assert!(lines[0].starts_with(" mcp ui "), "{s}");
    assert!(lines.iter().all(|l| l.chars().count() <= 80), "{s}");
    assert_eq!(
        lines.iter().filter(|l| l.contains("┌Resources")).count(),
        1,
        "{s}"
    );

    ui.keys(&["q"]);
    ui.assert_given_back(0, &MOUSE);
    drop(tmux);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ctrl_c_sigterm_and_a_dying_server_give_the_terminal_back() {
    let Some(tmux) = Tmux::new("mcp-ui-exits", WAIT) else {
        return;
    };
    let dir = support::temp_dir("ui-tmux-exits");

    // Ctrl-C is a key in raw mode: it quits.
    let ui = start(&tmux, &dir, "", "");
    ui.wait_for("demo connected");
    ui.keys(&["C-c"]);
    ui.assert_given_back(0, &MOUSE);
    assert!(ui.run("kill-session", &[]));

    // The server dies: shown as closed, the explorer goes on; then SIGTERM
    // ends it (143), the terminal given back.
    let _ = std::fs::remove_file(dir.join("shell.pid"));
    let ui = start(&tmux, &dir, "", "");
    ui.wait_for("demo connected");
    let shell = shell_pid(&dir);
    let mcp = children(shell);
    assert_eq!(mcp.len(), 1, "one mcp under the shell: {mcp:?}");
    let server = children(mcp[0]);
    assert_eq!(server.len(), 1, "one demo server under mcp: {server:?}");
    let killed = Command::new("kill")
        .args(["-KILL", &server[0].to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let s = ui.wait_for("demo closed");
    assert!(s.contains("q quit"), "{s}");
    ui.keys(&["6"]);
    ui.wait_for("connection closed");
    // R starts the servers again: a new demo server, connected.
    ui.keys(&["1", "R"]);
    ui.wait_for("demo connected");
    let again = children(mcp[0]);
    assert_eq!(again.len(), 1, "one demo server again: {again:?}");
    assert_ne!(again, server, "a new process");
    let term = Command::new("kill")
        .args(["-TERM", &mcp[0].to_string()])
        .status()
        .expect("kill");
    assert!(term.success());
    ui.assert_given_back(143, &MOUSE);
    drop(tmux);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A panic inside the running explorer (the debug build's test-only F12,
/// armed by `MCP_UI_TEST_PANIC`): the hook gives the terminal back first,
/// so the panic message is printed on the main screen and stays readable.
#[test]
fn a_panic_gives_the_terminal_back_then_shows_its_message() {
    let Some(tmux) = Tmux::new("mcp-ui-panic", WAIT) else {
        return;
    };
    let dir = support::temp_dir("ui-tmux-panic");
    let marker = format!("marker-{}", std::process::id());
    let ui = start(
        &tmux,
        &dir,
        &format!("RUST_BACKTRACE=0 MCP_UI_TEST_PANIC='{marker}'"),
        "",
    );
    ui.wait_for("demo connected");
    ui.keys(&["F12"]);
    // 101: Rust's exit code for a panic that ended the program.
    ui.assert_given_back(101, &MOUSE);
    let s = ui.screen();
    let message = format!("test panic requested by MCP_UI_TEST_PANIC: {marker}");
    assert!(
        s.contains(&message),
        "the panic message is on the main screen:\n{s}"
    );
    let lines: Vec<&str> = s.lines().collect();
    let at = |needle: &str| lines.iter().position(|l| l.contains(needle));
    assert!(
        at(&message) < at("EXIT=101"),
        "the message comes before the shell's next lines:\n{s}"
    );
    drop(tmux);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn server_everything_asks_and_the_dialogs_answer() {
    let Some(tmux) = Tmux::new("mcp-ui-everything", WAIT) else {
        return;
    };
    let Some((ui, dir, s)) = explore_everything(&tmux, "ui-tmux-everything") else {
        return;
    };
    // Once initialized, the server asks for the roots: the working
    // directory is offered, and accepted.
    assert!(
        s.contains(&format!("default: file://{}", dir.display())),
        "{s}"
    );
    ui.keys(&["Enter"]);
    ui.keys(&["2"]);
    ui.wait_for("trigger-sampling-request");

    // Sampling: the request shown, the reply typed by hand.
    ui.keys(&["/", "s", "a", "m", "p", "Enter", "Enter"]);
    ui.wait_for("call trigger-sampling-request");
    ui.keys(&["h", "i", "Enter"]);
    let s = ui.wait_for("asks for a model's reply (sampling)");
    assert!(
        s.contains("user: Resource trigger-sampling-request context: hi"),
        "{s}"
    );
    ui.keys(&["H", "e", "l", "l", "o", "Enter"]);
    let s = ui.wait_for("trigger-sampling-request → result");
    assert!(s.contains("\"model\": \"human (mcp ui)\""), "{s}");
    assert!(s.contains("\"text\": \"Hello\""), "{s}");

    // The roots accepted at the start are what the server holds.
    ui.keys(&[
        "/", "BSpace", "BSpace", "BSpace", "BSpace", "r", "o", "o", "t", "s", "Enter",
    ]);
    ui.wait_for("get-roots-list");
    ui.keys(&["Enter", "Enter"]);
    let s = ui.wait_for("get-roots-list → result");
    assert!(s.contains(&format!("URI: file://{}", dir.display())), "{s}");

    // An image saved with `w`; a resource link opened with `o`.
    ui.keys(&[
        "/", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "t", "i", "n", "y", "Enter",
    ]);
    ui.wait_for("get-tiny-image");
    ui.keys(&["Enter", "Enter"]);
    ui.wait_for("w saves it");
    ui.keys(&["w"]);
    ui.wait_for("saved get-tiny-image-1.png");
    let png = std::fs::read(dir.join("get-tiny-image-1.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    ui.keys(&[
        "/", "BSpace", "BSpace", "BSpace", "BSpace", "l", "i", "n", "k", "s", "Enter",
    ]);
    ui.wait_for("get-resource-links");
    ui.keys(&["Enter", "Enter"]);
    ui.wait_for("o opens it");
    ui.keys(&["o"]);
    ui.wait_for("┌read demo://resource/");

    // A prompt whose second argument's completions depend on the first.
    ui.keys(&["4"]);
    ui.select("completable-prompt");
    ui.keys(&["Enter", "E"]);
    ui.wait_for("completions: Engineering");
    ui.keys(&["Tab", "Tab", "A"]);
    ui.wait_for("completions: Alice");
    ui.keys(&["Tab", "Enter"]);
    let s = ui.wait_for("completable-prompt → messages");
    assert!(s.contains("Engineering") && s.contains("Alice"), "{s}");

    // A resource template: its variable completed, then read.
    ui.keys(&["3"]);
    ui.select("demo://resource/dynamic/text/{resourceId}");
    ui.keys(&["Enter", "7"]);
    ui.wait_for("completions: 7");
    ui.keys(&["Enter"]);
    ui.wait_for("┌read demo://resource/dynamic/text/{resourceId}");

    // An elicitation declined with Esc.
    ui.keys(&["2"]);
    ui.keys(&[
        "/", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "e", "l", "i", "c", "Enter",
    ]);
    ui.wait_for("trigger-elicitation-request");
    ui.keys(&["Enter"]);
    ui.wait_for("call trigger-elicitation-request");
    ui.keys(&["Enter"]);
    ui.wait_for("Esc decline");
    ui.keys(&["Escape"]);
    ui.wait_for("trigger-elicitation-request → result");

    ui.keys(&["q"]);
    ui.assert_given_back(0, &MOUSE);
    drop(tmux);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The Tasks pane against server-everything (2025-11-25 tasks): a tool
/// whose `execution.taskSupport` is `required` runs as a task, followed
/// live (`tasks/get` at its `pollInterval`) until it completes and its
/// result shows; an ambiguous one stops at `input_required`, where `c`
/// cancels it (`tasks/cancel`); another is answered: Enter asks for its
/// result, its question opens as a dialog, and the answer shapes the result.
#[test]
fn tasks_are_followed_answered_and_cancelled_in_the_tasks_pane() {
    let Some(tmux) = Tmux::new("mcp-ui-tasks", WAIT) else {
        return;
    };
    let Some((ui, dir, _)) = explore_everything(&tmux, "ui-tmux-tasks") else {
        return;
    };
    ui.keys(&["Enter"]);
    ui.keys(&["7"]);
    ui.wait_for("no task yet");

    // Called as a task, followed until it completes; its result shown.
    ui.keys(&["2", "/", "r", "e", "s", "e", "a", "r", "c", "h", "Enter"]);
    ui.wait_for("› simulate-research-query");
    ui.keys(&["Enter"]);
    ui.wait_for("call simulate-research-query as a task");
    ui.keys(&["r", "u", "s", "t", "Enter"]);
    ui.wait_for("7 Tasks follows it");
    ui.keys(&["7"]);
    ui.wait_for("status: working (");
    let s = ui.wait_for("› completed");
    assert!(
        s.contains("tool: simulate-research-query (tools/call)"),
        "{s}"
    );
    ui.wait_for("# Research Report: rust");

    // Ambiguous: it waits for an answer; cancelled there.
    ui.keys(&["2", "Enter"]);
    ui.wait_for("call simulate-research-query as a task");
    ui.keys(&["r", "u", "s", "t", "Tab", "y", "e", "s", "Enter"]);
    ui.wait_for("7 Tasks follows it");
    ui.keys(&["7"]);
    ui.select("input_required");
    ui.wait_for("Enter fetches its question");
    ui.keys(&["c"]);
    ui.wait_for("cancelled (tasks/cancel)");
    ui.wait_for("› cancelled");

    // Ambiguous again: Enter brings its question; the answer is used.
    ui.keys(&["2", "Enter"]);
    ui.wait_for("call simulate-research-query as a task");
    ui.keys(&["p", "y", "t", "h", "o", "n", "Tab", "y", "e", "s", "Enter"]);
    ui.wait_for("7 Tasks follows it");
    ui.keys(&["7"]);
    ui.select("input_required");
    ui.keys(&["Enter"]);
    ui.wait_for("could have multiple interpretations");
    ui.keys(&["s", "n", "a", "k", "e", "Enter"]);
    ui.wait_for("# Research Report: python (snake)");
    ui.wait_for("› completed");

    ui.keys(&["q"]);
    ui.assert_given_back(0, &MOUSE);
    drop(tmux);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_2026_07_28_server_is_explored_and_a_request_it_cannot_send_explained() {
    let Some(tmux) = Tmux::new("mcp-ui-python", WAIT) else {
        return;
    };
    let Some((ui, dir)) = explore_peer(
        &tmux,
        "py_server.py (stdio)",
        python_stdio_command(),
        "ui-tmux-python",
    ) else {
        return;
    };
    ui.wait_for("py_server connected 2026-07-28");
    ui.keys(&["2"]);
    ui.wait_for("elicit_name");
    ui.keys(&["Enter"]);
    ui.wait_for("call echo");
    ui.keys(&["h", "i", "Enter"]);
    ui.wait_for("echo → result");
    ui.keys(&["/", "e", "l", "i", "c", "Enter", "Enter", "Enter"]);
    ui.wait_for("elicit_name → error");
    ui.wait_for("hint: start mcp ui with --protocol-version handshake");
    ui.keys(&["q"]);
    ui.assert_given_back(0, &MOUSE);
    drop(tmux);
    let _ = std::fs::remove_dir_all(&dir);
}
