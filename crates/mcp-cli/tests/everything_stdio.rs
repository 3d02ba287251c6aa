//! The reference server-everything over stdio (installed by
//! tests/peers/setup.sh; skipped with a printed reason when missing).
mod support;

use mcp_tests::peers::{everything_stdio_command, require_command};

fn stdio_line() -> Option<String> {
    let (program, args) = require_command("server-everything (stdio)", everything_stdio_command())?;
    let mut words = vec![program];
    words.extend(args);
    Some(shell_words_join(&words))
}

fn shell_words_join(words: &[String]) -> String {
    words
        .iter()
        .map(|w| format!("'{}'", w.replace('\'', r"'\''")))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn lists_and_calls_tools_with_progress() {
    let Some(line) = stdio_line() else { return };
    let run = support::mcp(&["--stdio", &line, "tools"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stdout.contains("echo(message: string)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("get-sum(a: number, b: number)"),
        "{}",
        run.stdout
    );

    let run = support::mcp(&["--stdio", &line, "call", "echo", "message=hi"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout.trim(), "Echo: hi");

    let run = support::mcp(&[
        "--stdio",
        &line,
        "call",
        "trigger-long-running-operation",
        "duration=1",
        "steps=3",
    ]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let progress = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("progress: "))
        .count();
    assert_eq!(progress, 3, "{}", run.stderr);
}

#[test]
fn json_output_parses_back() {
    let Some(line) = stdio_line() else { return };
    let run = support::mcp(&["--stdio", &line, "--json", "call", "get-sum", "a=2", "b=3"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let v: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert!(
        v["content"][0]["text"].as_str().unwrap_or("").contains('5'),
        "{v}"
    );
}

#[test]
fn sampling_is_declined_with_a_message() {
    let Some(line) = stdio_line() else { return };
    let run = support::mcp(&[
        "--stdio",
        &line,
        "call",
        "trigger-sampling-request",
        "prompt=hi",
    ]);
    // server-everything turns the refusal into a tool error.
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(
        run.stderr.contains("declined a sampling request"),
        "{}",
        run.stderr
    );
}

/// A tool whose `execution.taskSupport` is `"required"` runs as a task
/// (2025-11-25 tasks): `tools/call` creates it and `tasks/result` brings
/// its outcome. It failed with "requires task augmentation" before.
#[test]
fn task_only_tool_runs_as_a_task() {
    let Some(line) = stdio_line() else { return };
    let run = support::mcp(&[
        "--stdio",
        &line,
        "call",
        "simulate-research-query",
        "topic=rust",
    ]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stderr.contains("runs as task"), "{}", run.stderr);
    assert!(run.stdout.contains("rust"), "{}", run.stdout);
}

/// Ctrl-C while a task runs asks the server to end it: `tasks/cancel` for
/// that task goes out (Ctrl-C drops the wait for its result, so the
/// command cannot ask itself), and `mcp` exits 130.
#[test]
fn ctrl_c_cancels_a_running_task() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};

    let Some(line) = stdio_line() else { return };
    let dir = support::temp_dir("task-ctrl-c");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp"))
        .args([
            "--verbose",
            "--stdio",
            &line,
            "call",
            "simulate-research-query",
            "topic=rust",
        ])
        .current_dir(&dir)
        .env_remove("MCP_LOG")
        .env("XDG_CACHE_HOME", dir.join(".cache"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mcp");
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    let mut seen = Vec::new();
    let mut task_id = None;
    for line in lines.by_ref() {
        let line = line.expect("read stderr");
        if let Some(rest) = line.strip_prefix("mcp: simulate-research-query runs as task ") {
            task_id = Some(rest.trim().to_owned());
        }
        seen.push(line);
        if task_id.is_some() {
            break;
        }
    }
    let task_id = task_id.unwrap_or_else(|| panic!("no task started: {seen:?}"));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());
    seen.extend(lines.map_while(Result::ok));
    let run = support::finish(child);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(run.code, Some(130), "{run:?} {seen:?}");
    let cancel = seen
        .iter()
        .find(|l| l.contains(r#""method":"tasks/cancel""#))
        .unwrap_or_else(|| panic!("no tasks/cancel sent: {seen:#?}"));
    assert!(cancel.contains(&task_id), "{cancel}");
}
