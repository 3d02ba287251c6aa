//! Without a terminal on stdin, elicitation requests are declined (and said so).
mod support;

#[test]
fn ask_name_is_declined() {
    let run = support::mcp(&["call", "ask_name"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout, "No name given (declined)\n");
    assert!(
        run.stderr.contains("declined an elicitation request"),
        "{}",
        run.stderr
    );
}
