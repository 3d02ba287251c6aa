//! `mcp` on a real terminal: a tmux server on a private socket, its panes
//! read with `capture-pane` and typed into with `send-keys`, as a person
//! would. The server is killed when the [`Tmux`] is dropped.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A tmux server of one test, on its own socket.
pub(crate) struct Tmux {
    socket: String,
    /// How long a pane may take to show what is awaited, and a new
    /// session to start.
    wait: Duration,
    /// Screens are captured with wrapped lines joined (`capture-pane -J`).
    joined: bool,
}

impl Tmux {
    /// A server on the socket `{name}-{pid}` (one per test of a process),
    /// whose panes are waited on for `wait`; `None`, saying so, when tmux is
    /// not installed.
    pub(crate) fn new(name: &str, wait: Duration) -> Option<Tmux> {
        if Command::new("tmux").arg("-V").output().is_err() {
            eprintln!("skipped: tmux is not installed");
            return None;
        }
        Some(Tmux {
            socket: format!("{name}-{}", std::process::id()),
            wait,
            joined: false,
        })
    }

    /// Screens captured with wrapped lines joined, so that a long line (a
    /// URL) is read whole.
    pub(crate) fn joined(mut self) -> Tmux {
        self.joined = true;
        self
    }

    /// Runs the tmux command `args` on this server: whether it succeeded.
    pub(crate) fn run(&self, args: &[&str]) -> bool {
        Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    /// What the tmux command `args` printed (empty if it could not run).
    pub(crate) fn output(&self, args: &[&str]) -> String {
        Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    }

    /// Starts the shell command `command` in `dir`, in a new detached
    /// session `session` of `columns`×`rows`. A server whose last session
    /// was just killed may still be exiting: a new session is tried again
    /// until it takes (at most the wait).
    pub(crate) fn start(
        &self,
        session: &str,
        (columns, rows): (u16, u16),
        dir: &Path,
        command: &str,
    ) -> Pane<'_> {
        let (columns, rows) = (columns.to_string(), rows.to_string());
        let args = [
            "new-session",
            "-d",
            "-s",
            session,
            "-x",
            &columns,
            "-y",
            &rows,
            "-c",
            dir.to_str().expect("utf-8 path"),
            command,
        ];
        let start = Instant::now();
        while !self.run(&args) {
            assert!(start.elapsed() < self.wait, "tmux new-session failed");
            std::thread::sleep(Duration::from_millis(100));
        }
        Pane {
            tmux: self,
            session: session.to_owned(),
        }
    }

    /// Starts `command` (an `mcp ui`, with its environment) in `dir`, in
    /// the session `ui`, 120×35; once it ends, the shell prints its exit
    /// code (`EXIT=N`) and the terminal's modes (`MODES: icanon echo END`
    /// when cooked, with echo), and waits: see [`Pane::assert_given_back`].
    pub(crate) fn start_ui(&self, dir: &Path, command: &str) -> Pane<'_> {
        let command = format!(
            "cd '{dir}'; {command}; echo EXIT=$?; echo \"MODES: $(stty -a | tr ' ' '\\n' | grep -x -e '-*icanon' -e '-*echo' | tr '\\n' ' ')END\"; sleep 60",
            dir = dir.display(),
        );
        self.start("ui", (120, 35), dir, &command)
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.run(&["kill-server"]);
    }
}

/// A session of a [`Tmux`] server.
pub(crate) struct Pane<'t> {
    tmux: &'t Tmux,
    session: String,
}

impl Pane<'_> {
    /// Runs the tmux command `command` on this session (`-t SESSION`), with
    /// `args` after it: whether it succeeded.
    pub(crate) fn run(&self, command: &str, args: &[&str]) -> bool {
        let mut all = vec![command, "-t", &self.session];
        all.extend_from_slice(args);
        self.tmux.run(&all)
    }

    /// `keys` sent in one `send-keys`: whether tmux took them.
    pub(crate) fn send(&self, keys: &[&str]) -> bool {
        self.run("send-keys", keys)
    }

    /// `keys` one at a time, as typed: each is one input event.
    pub(crate) fn keys(&self, keys: &[&str]) {
        for k in keys {
            assert!(self.send(&[k]), "send-keys {k}");
            std::thread::sleep(Duration::from_millis(60));
        }
    }

    /// The pane's text.
    pub(crate) fn screen(&self) -> String {
        let mut args = vec!["capture-pane", "-p"];
        if self.tmux.joined {
            args.push("-J");
        }
        args.extend(["-t", &self.session]);
        self.tmux.output(&args)
    }

    /// The screen once it shows `text`; `Err` with the last screen when it
    /// did not within the wait.
    fn showing(&self, text: &str) -> Result<String, String> {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return Ok(screen);
            }
            if start.elapsed() >= self.tmux.wait {
                return Err(screen);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Whether the screen shows `text` within the wait.
    pub(crate) fn shows(&self, text: &str) -> bool {
        self.showing(text).is_ok()
    }

    /// The screen once it shows `text`; the test fails, showing the
    /// screen, when it does not within the wait.
    pub(crate) fn wait_for(&self, text: &str) -> String {
        self.showing(text)
            .unwrap_or_else(|screen| panic!("{text:?} never showed; the screen:\n{screen}"))
    }

    /// Presses Down until the selected row shows `row` (at most 20 times).
    pub(crate) fn select(&self, row: &str) {
        let marked = format!("› {row}");
        for _ in 0..20 {
            if self.screen().contains(&marked) {
                return;
            }
            self.keys(&["Down"]);
        }
        self.wait_for(&marked);
    }

    /// The pane's flags `names` (tmux format variables such as
    /// `alternate_on`), their values separated by spaces.
    pub(crate) fn flags(&self, names: &[&str]) -> String {
        let format = names
            .iter()
            .map(|n| format!("#{{{n}}}"))
            .collect::<Vec<_>>()
            .join(" ");
        self.tmux
            .output(&["display", "-p", "-t", &self.session, &format])
            .trim()
            .to_owned()
    }

    /// After the command of [`Tmux::start_ui`] ended: its exit code was
    /// `code`, and the terminal is as it was: cooked mode with echo, the
    /// main screen, the cursor shown, and each mouse-reporting flag of
    /// `mouse` (such as `mouse_any_flag`) off.
    pub(crate) fn assert_given_back(&self, code: u8, mouse: &[&str]) {
        self.wait_for(&format!("EXIT={code}"));
        let screen = self.wait_for("END");
        assert!(
            screen.contains("MODES: icanon echo END"),
            "the terminal was left in raw mode:\n{screen}"
        );
        let mut names = vec!["alternate_on", "cursor_flag"];
        names.extend_from_slice(mouse);
        let expected = ["0", "1"]
            .into_iter()
            .chain(mouse.iter().map(|_| "0"))
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(
            self.flags(&names),
            expected,
            "alternate screen still on, cursor hidden or mouse still reported"
        );
    }
}
