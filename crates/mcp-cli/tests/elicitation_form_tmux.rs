//! The interactive elicitation form on a real terminal (tmux): `call
//! ask_name` shows the demo's question, the user answers, the tool greets.
//! Skipped (printing why) when tmux is not installed.
mod support;

use std::time::Duration;

use support::tmux::Tmux;

#[test]
fn form_answers_the_elicitation() {
    let Some(tmux) = Tmux::new("mcp-cli-test", Duration::from_secs(30)) else {
        return;
    };
    let dir = support::temp_dir("tmux");
    let out = dir.join("stdout.txt");
    // stdin and stderr on the pane's terminal, stdout to a file; the era
    // memory in the test's own directory, not the user's cache.
    let command = format!(
        "XDG_CACHE_HOME='{}' '{}' call ask_name > '{}'; echo EXIT=$?; sleep 30",
        dir.join(".cache").display(),
        env!("CARGO_BIN_EXE_mcp"),
        out.display()
    );
    let form = tmux.start("form", (160, 40), &dir, &command);
    assert!(
        form.shows("[demo] asks: What is your name?"),
        "no question:\n{}",
        form.screen()
    );
    assert!(form.shows("Answer?"), "{}", form.screen());
    assert!(form.send(&["Enter"]));
    assert!(form.shows("Name *"), "no field prompt:\n{}", form.screen());
    assert!(form.send(&["Ada", "Enter"]));
    assert!(form.shows("EXIT=0"), "did not finish:\n{}", form.screen());
    let printed = std::fs::read_to_string(&out).expect("stdout file");
    assert_eq!(printed, "Hello, Ada!\n");
    drop(tmux);
    let _ = std::fs::remove_dir_all(&dir);
}
