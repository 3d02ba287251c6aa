//! Exit codes: 1 for a tool error (isError), 2 for failures.
mod support;

#[test]
fn tool_error_exits_1() {
    let run = support::mcp(&["call", "fail"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(run.stdout.contains("always fails"));
    assert!(run.stderr.contains("reported an error"));
}

#[test]
fn unknown_tool_exits_2() {
    let run = support::mcp(&["call", "no_such_tool"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr.contains("no tool named \"no_such_tool\""),
        "{}",
        run.stderr
    );
}

#[test]
fn bad_arguments_exit_2() {
    // Not key=value.
    let run = support::mcp(&["call", "echo", "oops"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    // A non-number is refused before the call is sent: it does not match
    // the tool's inputSchema, and the message says where.
    let run = support::mcp(&["call", "add", "a=x", "b=1"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr
            .contains(r#"do not match its inputSchema: /a: value is not of type "number""#),
        "{}",
        run.stderr
    );
}

#[test]
fn usage_error_and_unreachable_server_exit_2() {
    let run = support::mcp(&["frobnicate"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    let run = support::mcp(&["--stdio", "/nonexistent/server --flag", "tools"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(!run.stderr.is_empty());
}

#[test]
fn help_documents_exit_codes() {
    let run = support::mcp(&["--help"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("Exit codes:"));
    assert!(run.stdout.contains("130"));
}

/// Huge durations on the command line are taken as the longest one, never
/// a panic (deadlines add them to the clock).
#[test]
fn huge_timeouts_are_clamped_not_a_panic() {
    for args in [
        &["--discover-timeout", "1e300", "ping"][..],
        &["--discover-timeout", "18446744073709551616", "ping"],
        &["--timeout", "18446744073709551615", "ping"],
    ] {
        let run = support::mcp(args);
        assert_eq!(run.code, Some(0), "mcp {}: {run:?}", args.join(" "));
        assert!(!run.stderr.contains("panicked"), "{run:?}");
    }
}

/// A token in the URL's query (`?token=…`, as some servers take API keys)
/// never reaches an error or a log line, `--verbose` included.
#[test]
fn a_token_in_the_url_query_stays_hidden() {
    let run = support::mcp(&[
        "--url",
        "http://127.0.0.1:1/mcp?token=QSECRET&mode=x",
        "--verbose",
        "ping",
    ]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("token=***"), "{run:?}");
    assert!(
        !run.stderr.contains("QSECRET") && !run.stdout.contains("QSECRET"),
        "{run:?}"
    );
}
