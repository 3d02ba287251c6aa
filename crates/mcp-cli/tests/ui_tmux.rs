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

use std::path::Path;

use mcp_tests::peers::{everything_stdio_command, python_stdio_command, require_command};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long a screen may take to show what is awaited: 30 s (a debug
/// build on a loaded 2-core machine).
const WAIT: Duration = Duration::from_secs(30);

struct Tmux {
    socket: String,
}

impl Tmux {
    fn new(name: &str) -> Option<Tmux> {
        if Command::new("tmux").arg("-V").output().is_err() {
            eprintln!("skipped: tmux is not installed");
            return None;
        }
        Some(Tmux {
            socket: format!("mcp-ui-{name}-{}", std::process::id()),
        })
    }

    fn run(&self, args: &[&str]) -> bool {
        Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    fn output(&self, args: &[&str]) -> String {
        Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    }

    fn screen(&self) -> String {
        self.output(&["capture-pane", "-p", "-t", "ui"])
    }

    fn keys(&self, keys: &[&str]) {
        for k in keys {
            assert!(self.run(&["send-keys", "-t", "ui", k]), "send-keys {k}");
            // One key at a time, as typed: each is one input event.
            std::thread::sleep(Duration::from_millis(60));
        }
    }

    fn wait_for(&self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            assert!(
                start.elapsed() < WAIT,
                "{text:?} never showed; the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Presses Down until the selected row shows `row` (at most 20 times).
    fn select(&self, row: &str) {
        let marked = format!("› {row}");
        for _ in 0..20 {
            if self.screen().contains(&marked) {
                return;
            }
            self.keys(&["Down"]);
        }
        self.wait_for(&marked);
    }

    /// Starts `mcp ui ARGS` in a 120×35 window; the shell then prints the
    /// exit code and the terminal's modes (`stty -a`), and waits.
    fn start(&self, dir: &Path, args: &str) {
        self.start_with(dir, "", args);
    }

    /// [`Tmux::start`] with `vars` (`NAME='value' ...`) in mcp's environment.
    fn start_with(&self, dir: &Path, vars: &str, args: &str) {
        let command = format!(
            "cd '{dir}'; echo $$ > shell.pid; HOME='{dir}' XDG_CACHE_HOME='{dir}/.cache' {vars} '{mcp}' ui {args}; \
             echo EXIT=$?; echo \"MODES: $(stty -a | tr ' ' '\\n' | grep -x -e '-*icanon' -e '-*echo' | tr '\\n' ' ')END\"; sleep 60",
            dir = dir.display(),
            mcp = env!("CARGO_BIN_EXE_mcp"),
        );
        // A server whose last session was just killed may still be
        // exiting: a new session is tried again until it takes.
        let args = [
            "new-session",
            "-d",
            "-s",
            "ui",
            "-x",
            "120",
            "-y",
            "35",
            command.as_str(),
        ];
        let start = Instant::now();
        while !self.run(&args) {
            assert!(start.elapsed() < WAIT, "tmux new-session failed");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The pane's main-screen, cursor and mouse-reporting flags.
    fn flags(&self) -> String {
        self.output(&[
            "display",
            "-p",
            "-t",
            "ui",
            "#{alternate_on} #{cursor_flag} #{mouse_any_flag} #{mouse_sgr_flag}",
        ])
        .trim()
        .to_owned()
    }

    /// After the explorer ended: its exit code was `code`, and the
    /// terminal is as it was (main screen, cursor shown, no mouse
    /// reporting, cooked mode, echo).
    fn assert_given_back(&self, code: u8) {
        self.wait_for(&format!("EXIT={code}"));
        let screen = self.wait_for("END");
        assert!(
            screen.contains("MODES: icanon echo END"),
            "the terminal was left in raw mode:\n{screen}"
        );
        assert_eq!(
            self.flags(),
            "0 1 0 0",
            "alternate screen still on, cursor hidden or mouse still reported"
        );
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.run(&["kill-server"]);
    }
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
    let Some(tmux) = Tmux::new("explore") else {
        return;
    };
    let dir = support::temp_dir("ui-tmux");
    tmux.start(&dir, "");
    let s = tmux.wait_for("demo connected 2025-11-25");
    for want in ["1 Servers", "server: mcp-demo", "capabilities:", "q quit"] {
        assert!(s.contains(want), "{want:?} missing:\n{s}");
    }
    // The mouse is reported while the explorer runs (alternate screen,
    // cursor hidden, any-event mouse, SGR coordinates).
    assert_eq!(tmux.flags(), "1 0 1 1");

    // A tool: its form in the schema's order, filled and called.
    tmux.keys(&["2"]);
    tmux.wait_for("countdown");
    tmux.keys(&["Down", "Enter"]);
    let s = tmux.wait_for("call add");
    assert!(s.contains("› a* number"), "{s}");
    tmux.keys(&["2", "Tab", "3", "Enter"]);
    let s = tmux.wait_for("add → result");
    assert!(
        s.contains("structuredContent (matches the outputSchema)"),
        "{s}"
    );
    assert!(s.contains("\"sum\": 5"), "{s}");

    // Progress, live, then cancelled.
    tmux.keys(&["Down", "Enter"]);
    tmux.wait_for("call countdown");
    tmux.keys(&["3", "0", "0", "Tab", "5", "0", "Enter"]);
    tmux.wait_for("calling countdown on demo… progress:");
    tmux.keys(&["c"]);
    tmux.wait_for("countdown → cancelled");

    // A tool whose result is an error, and one that asks a question.
    tmux.keys(&["Down", "Enter"]);
    tmux.wait_for("call fail");
    tmux.keys(&["Enter"]);
    tmux.wait_for("isError: true");
    tmux.keys(&["Down", "Enter"]);
    tmux.wait_for("call ask_name");
    tmux.keys(&["Enter"]);
    tmux.wait_for("What is your name?");
    tmux.keys(&["A", "d", "a", "Enter"]);
    tmux.wait_for("Hello, Ada!");

    // A resource, read.
    tmux.keys(&["3"]);
    tmux.wait_for("demo://readme");
    tmux.keys(&["Enter"]);
    tmux.wait_for("# mcp demo server");

    // A prompt, its argument completed as typed.
    tmux.keys(&["4", "Enter", "G", "r"]);
    tmux.wait_for("completions: Grace");
    tmux.keys(&["Tab", "Enter"]);
    tmux.wait_for("Please greet Grace warmly");

    // The wire: the calls, their answers timed; the log: the server's messages.
    tmux.keys(&["5"]);
    let s = tmux.wait_for("request prompts/get");
    assert!(s.contains("← demo result of"), "{s}");
    assert!(s.contains(" ms)"), "{s}");
    tmux.keys(&["6"]);
    tmux.wait_for("[demo] info:");

    // A smaller window: drawn again at its size, nothing left of the old one.
    assert!(tmux.run(&["resize-window", "-t", "ui", "-x", "80", "-y", "20"]));
    tmux.keys(&["3"]);
    let s = tmux.wait_for("┌Resources");
    let lines: Vec<&str> = s.lines().collect();
    assert!(lines[0].starts_with(" mcp ui "), "{s}");
    assert!(lines.iter().all(|l| l.chars().count() <= 80), "{s}");
    assert_eq!(
        lines.iter().filter(|l| l.contains("┌Resources")).count(),
        1,
        "{s}"
    );

    tmux.keys(&["q"]);
    tmux.assert_given_back(0);
    drop(tmux);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ctrl_c_sigterm_and_a_dying_server_give_the_terminal_back() {
    let Some(tmux) = Tmux::new("exits") else {
        return;
    };
    let dir = support::temp_dir("ui-tmux-exits");

    // Ctrl-C is a key in raw mode: it quits.
    tmux.start(&dir, "");
    tmux.wait_for("demo connected");
    tmux.keys(&["C-c"]);
    tmux.assert_given_back(0);
    assert!(tmux.run(&["kill-session", "-t", "ui"]));

    // The server dies: shown as closed, the explorer goes on; then SIGTERM
    // ends it (143), the terminal given back.
    let _ = std::fs::remove_file(dir.join("shell.pid"));
    tmux.start(&dir, "");
    tmux.wait_for("demo connected");
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
    let s = tmux.wait_for("demo closed");
    assert!(s.contains("q quit"), "{s}");
    tmux.keys(&["6"]);
    tmux.wait_for("connection closed");
    // R starts the servers again: a new demo server, connected.
    tmux.keys(&["1", "R"]);
    tmux.wait_for("demo connected");
    let again = children(mcp[0]);
    assert_eq!(again.len(), 1, "one demo server again: {again:?}");
    assert_ne!(again, server, "a new process");
    let term = Command::new("kill")
        .args(["-TERM", &mcp[0].to_string()])
        .status()
        .expect("kill");
    assert!(term.success());
    tmux.assert_given_back(143);
    drop(tmux);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A panic inside the running explorer (the debug build's test-only F12,
/// armed by `MCP_UI_TEST_PANIC`): the hook gives the terminal back first,
/// so the panic message is printed on the main screen and stays readable.
#[test]
fn a_panic_gives_the_terminal_back_then_shows_its_message() {
    let Some(tmux) = Tmux::new("panic") else {
        return;
    };
    let dir = support::temp_dir("ui-tmux-panic");
    let marker = format!("marker-{}", std::process::id());
    tmux.start_with(
        &dir,
        &format!("RUST_BACKTRACE=0 MCP_UI_TEST_PANIC='{marker}'"),
        "",
    );
    tmux.wait_for("demo connected");
    tmux.keys(&["F12"]);
    // 101: Rust's exit code for a panic that ended the program.
    tmux.assert_given_back(101);
    let s = tmux.screen();
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
    let Some(tmux) = Tmux::new("everything") else {
        return;
    };
    let Some((program, args)) =
        require_command("server-everything (stdio)", everything_stdio_command())
    else {
        return;
    };
    let line = std::iter::once(program)
        .chain(args)
        .map(|w| format!("'{w}'"))
        .collect::<Vec<_>>()
        .join(" ");
    let dir = support::temp_dir("ui-tmux-everything");
    tmux.start(&dir, &format!("--stdio \"{line}\""));
    tmux.wait_for("server-everything connected");
    // Once initialized, the server asks for the roots: the working
    // directory is offered, and accepted.
    let s = tmux.wait_for("asks for the roots (roots/list)");
    assert!(
        s.contains(&format!("default: file://{}", dir.display())),
        "{s}"
    );
    tmux.keys(&["Enter"]);
    tmux.keys(&["2"]);
    tmux.wait_for("trigger-sampling-request");

    // Sampling: the request shown, the reply typed by hand.
    tmux.keys(&["/", "s", "a", "m", "p", "Enter", "Enter"]);
    tmux.wait_for("call trigger-sampling-request");
    tmux.keys(&["h", "i", "Enter"]);
    let s = tmux.wait_for("asks for a model's reply (sampling)");
    assert!(
        s.contains("user: Resource trigger-sampling-request context: hi"),
        "{s}"
    );
    tmux.keys(&["H", "e", "l", "l", "o", "Enter"]);
    let s = tmux.wait_for("trigger-sampling-request → result");
    assert!(s.contains("\"model\": \"human (mcp ui)\""), "{s}");
    assert!(s.contains("\"text\": \"Hello\""), "{s}");

    // The roots accepted at the start are what the server holds.
    tmux.keys(&[
        "/", "BSpace", "BSpace", "BSpace", "BSpace", "r", "o", "o", "t", "s", "Enter",
    ]);
    tmux.wait_for("get-roots-list");
    tmux.keys(&["Enter", "Enter"]);
    let s = tmux.wait_for("get-roots-list → result");
    assert!(s.contains(&format!("URI: file://{}", dir.display())), "{s}");

    // An image saved with `w`; a resource link opened with `o`.
    tmux.keys(&[
        "/", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "t", "i", "n", "y", "Enter",
    ]);
    tmux.wait_for("get-tiny-image");
    tmux.keys(&["Enter", "Enter"]);
    tmux.wait_for("w saves it");
    tmux.keys(&["w"]);
    tmux.wait_for("saved get-tiny-image-1.png");
    let png = std::fs::read(dir.join("get-tiny-image-1.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    tmux.keys(&[
        "/", "BSpace", "BSpace", "BSpace", "BSpace", "l", "i", "n", "k", "s", "Enter",
    ]);
    tmux.wait_for("get-resource-links");
    tmux.keys(&["Enter", "Enter"]);
    tmux.wait_for("o opens it");
    tmux.keys(&["o"]);
    tmux.wait_for("┌read demo://resource/");

    // A prompt whose second argument's completions depend on the first.
    tmux.keys(&["4"]);
    tmux.select("completable-prompt");
    tmux.keys(&["Enter", "E"]);
    tmux.wait_for("completions: Engineering");
    tmux.keys(&["Tab", "Tab", "A"]);
    tmux.wait_for("completions: Alice");
    tmux.keys(&["Tab", "Enter"]);
    let s = tmux.wait_for("completable-prompt → messages");
    assert!(s.contains("Engineering") && s.contains("Alice"), "{s}");

    // A resource template: its variable completed, then read.
    tmux.keys(&["3"]);
    tmux.select("demo://resource/dynamic/text/{resourceId}");
    tmux.keys(&["Enter", "7"]);
    tmux.wait_for("completions: 7");
    tmux.keys(&["Enter"]);
    tmux.wait_for("┌read demo://resource/dynamic/text/{resourceId}");

    // An elicitation declined with Esc.
    tmux.keys(&["2"]);
    tmux.keys(&[
        "/", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "e", "l", "i", "c", "Enter",
    ]);
    tmux.wait_for("trigger-elicitation-request");
    tmux.keys(&["Enter"]);
    tmux.wait_for("call trigger-elicitation-request");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Esc decline");
    tmux.keys(&["Escape"]);
    tmux.wait_for("trigger-elicitation-request → result");

    tmux.keys(&["q"]);
    tmux.assert_given_back(0);
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
    let Some(tmux) = Tmux::new("tasks") else {
        return;
    };
    let Some((program, args)) =
        require_command("server-everything (stdio)", everything_stdio_command())
    else {
        return;
    };
    let line = std::iter::once(program)
        .chain(args)
        .map(|w| format!("'{w}'"))
        .collect::<Vec<_>>()
        .join(" ");
    let dir = support::temp_dir("ui-tmux-tasks");
    tmux.start(&dir, &format!("--stdio \"{line}\""));
    tmux.wait_for("server-everything connected");
    tmux.wait_for("asks for the roots (roots/list)");
    tmux.keys(&["Enter"]);
    tmux.keys(&["7"]);
    tmux.wait_for("no task yet");

    // Called as a task, followed until it completes; its result shown.
    tmux.keys(&["2", "/", "r", "e", "s", "e", "a", "r", "c", "h", "Enter"]);
    tmux.wait_for("› simulate-research-query");
    tmux.keys(&["Enter"]);
    tmux.wait_for("call simulate-research-query as a task");
    tmux.keys(&["r", "u", "s", "t", "Enter"]);
    tmux.wait_for("7 Tasks follows it");
    tmux.keys(&["7"]);
    tmux.wait_for("status: working (");
    let s = tmux.wait_for("› completed");
    assert!(
        s.contains("tool: simulate-research-query (tools/call)"),
        "{s}"
    );
    tmux.wait_for("# Research Report: rust");

    // Ambiguous: it waits for an answer; cancelled there.
    tmux.keys(&["2", "Enter"]);
    tmux.wait_for("call simulate-research-query as a task");
    tmux.keys(&["r", "u", "s", "t", "Tab", "y", "e", "s", "Enter"]);
    tmux.wait_for("7 Tasks follows it");
    tmux.keys(&["7"]);
    tmux.select("input_required");
    tmux.wait_for("Enter fetches its question");
    tmux.keys(&["c"]);
    tmux.wait_for("cancelled (tasks/cancel)");
    tmux.wait_for("› cancelled");

    // Ambiguous again: Enter brings its question; the answer is used.
    tmux.keys(&["2", "Enter"]);
    tmux.wait_for("call simulate-research-query as a task");
    tmux.keys(&["p", "y", "t", "h", "o", "n", "Tab", "y", "e", "s", "Enter"]);
    tmux.wait_for("7 Tasks follows it");
    tmux.keys(&["7"]);
    tmux.select("input_required");
    tmux.keys(&["Enter"]);
    tmux.wait_for("could have multiple interpretations");
    tmux.keys(&["s", "n", "a", "k", "e", "Enter"]);
    tmux.wait_for("# Research Report: python (snake)");
    tmux.wait_for("› completed");

    tmux.keys(&["q"]);
    tmux.assert_given_back(0);
    drop(tmux);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_2026_07_28_server_is_explored_and_a_request_it_cannot_send_explained() {
    let Some(tmux) = Tmux::new("python") else {
        return;
    };
    let Some((python, args)) = require_command("py_server.py (stdio)", python_stdio_command())
    else {
        return;
    };
    let line = std::iter::once(python)
        .chain(args)
        .map(|w| format!("'{w}'"))
        .collect::<Vec<_>>()
        .join(" ");
    let dir = support::temp_dir("ui-tmux-python");
    tmux.start(&dir, &format!("--stdio \"{line}\""));
    tmux.wait_for("py_server connected 2026-07-28");
    tmux.keys(&["2"]);
    tmux.wait_for("elicit_name");
    tmux.keys(&["Enter"]);
    tmux.wait_for("call echo");
    tmux.keys(&["h", "i", "Enter"]);
    tmux.wait_for("echo → result");
    tmux.keys(&["/", "e", "l", "i", "c", "Enter", "Enter", "Enter"]);
    tmux.wait_for("elicit_name → error");
    tmux.wait_for("hint: start mcp ui with --protocol-version handshake");
    tmux.keys(&["q"]);
    tmux.assert_given_back(0);
    drop(tmux);
    let _ = std::fs::remove_dir_all(&dir);
}
