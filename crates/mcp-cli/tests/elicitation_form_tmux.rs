//! The interactive elicitation form on a real terminal (tmux): `call
//! ask_name` shows the demo's question, the user answers, the tool greets.
//! Skipped (printing why) when tmux is not installed.
mod support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

struct Tmux {
    socket: String,
}

impl Tmux {
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

    fn screen(&self) -> String {
        Command::new("tmux")
            .args(["-L", &self.socket, "capture-pane", "-p", "-t", "form"])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    }

    fn wait_for(&self, text: &str) -> bool {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(30) {
            if self.screen().contains(text) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.run(&["kill-server"]);
    }
}

#[test]
fn form_answers_the_elicitation() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let dir = support::temp_dir("tmux");
    let out = dir.join("stdout.txt");
    let tmux = Tmux {
        socket: format!("mcp-cli-test-{}", std::process::id()),
    };
    // stdin and stderr on the pane's terminal, stdout to a file; the era
    // memory in the test's own directory, not the user's cache.
    let command = format!(
        "XDG_CACHE_HOME='{}' '{}' call ask_name > '{}'; echo EXIT=$?; sleep 30",
        dir.join(".cache").display(),
        env!("CARGO_BIN_EXE_mcp"),
        out.display()
    );
    assert!(tmux.run(&[
        "new-session",
        "-d",
        "-s",
        "form",
        "-x",
        "160",
        "-y",
        "40",
        "-c",
        dir.to_str().expect("utf-8 path"),
        &command
    ]));
    assert!(
        tmux.wait_for("[demo] asks: What is your name?"),
        "no question:\n{}",
        tmux.screen()
    );
    assert!(tmux.wait_for("Answer?"), "{}", tmux.screen());
    assert!(tmux.run(&["send-keys", "-t", "form", "Enter"]));
    assert!(
        tmux.wait_for("Name *"),
        "no field prompt:\n{}",
        tmux.screen()
    );
    assert!(tmux.run(&["send-keys", "-t", "form", "Ada", "Enter"]));
    assert!(
        tmux.wait_for("EXIT=0"),
        "did not finish:\n{}",
        tmux.screen()
    );
    let printed = std::fs::read_to_string(&out).expect("stdout file");
    assert_eq!(printed, "Hello, Ada!\n");
    drop(tmux);
    let _ = std::fs::remove_dir_all(&dir);
}
