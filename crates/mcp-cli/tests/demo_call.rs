//! `mcp call` on the demo server: echo, add, key=value typing, --json.
mod support;

#[test]
fn echo_prints_the_message() {
    let run = support::mcp(&["call", "echo", "message=hi"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout, "hi\n");
}

#[test]
fn add_prints_the_sum() {
    let run = support::mcp(&["call", "add", "a=2", "b=3"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout, "5\n");
}

#[test]
fn json_arguments_and_json_output() {
    let run = support::mcp(&["--json", "call", "add", r#"{"a": 0.5, "b": 2}"#]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let v: serde_json::Value = serde_json::from_str(&run.stdout).expect("stdout is JSON");
    assert_eq!(v["structuredContent"]["sum"], 2.5);
    assert_eq!(v["content"][0]["text"], "2.5");
}

#[test]
fn string_typed_argument_stays_a_string() {
    // echo's `message` is a string in its inputSchema: "2" must not become 2
    // (the demo server rejects a non-string message with -32602).
    let run = support::mcp(&["call", "echo", "message=2"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout, "2\n");
}

#[test]
fn resource_prompt_and_completion() {
    let run = support::mcp(&["read", "demo://readme"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("# mcp demo server"));
    let run = support::mcp(&["prompt", "greet", "name=Ada"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stdout.contains("[user] Please greet Ada"),
        "{}",
        run.stdout
    );
    let run = support::mcp(&["complete", "prompt", "greet", "name", "Gr"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout, "Grace\n");
    // Nothing matches: stdout stays empty, stderr says so.
    let run = support::mcp(&["complete", "prompt", "greet", "name", "Zz"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains("mcp: no completions"), "{run:?}");
    let run = support::mcp(&["ping"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.starts_with("demo: ok"));
}
