//! Each command sends what it needs and nothing more, each list once:
//! `ping` and `read` list nothing (nor does `skills`, whose server here does
//! not declare the extension), nor does `prompt` on the one server; `call`
//! lists the tools (to find and type the tool) and nothing else, `prompts`
//! and `resources` their list, `servers` everything it counts. Seen with
//! `--verbose` against the built-in demo server (one page per list).
mod support;

/// Each list method the command sent, once per request sent.
fn listings_sent(args: &[&str]) -> Vec<&'static str> {
    let mut all = vec!["--verbose"];
    all.extend_from_slice(args);
    let run = support::mcp(&all);
    assert_eq!(run.code, Some(0), "mcp {}: {run:?}", args.join(" "));
    let mut sent = Vec::new();
    for m in ["tools/list", "prompts/list", "resources/list"] {
        let times = run.stderr.matches(&format!("--> request {m}")).count();
        sent.extend(std::iter::repeat_n(m, times));
    }
    sent
}

#[test]
fn each_command_lists_only_what_it_needs() {
    let table: [(&[&str], &[&str]); 9] = [
        (&["ping"], &[]),
        (&["skills"], &[]),
        (&["read", "demo://readme"], &[]),
        (&["call", "add", "a=1", "b=2"], &["tools/list"]),
        (&["tools"], &["tools/list"]),
        (&["prompt", "greet", "name=Ada"], &[]),
        (&["prompts"], &["prompts/list"]),
        (&["resources"], &["resources/list"]),
        (
            &["servers"],
            &["tools/list", "prompts/list", "resources/list"],
        ),
    ];
    for (args, want) in table {
        assert_eq!(listings_sent(args), want, "mcp {}", args.join(" "));
    }
}
