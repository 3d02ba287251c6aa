//! Each command sends what it needs and nothing more: `ping` and `read`
//! list nothing (nor does `skills`, whose server here does not declare the
//! extension), `call` lists the tools (to find and type the tool) and
//! nothing else, `servers` lists everything it counts. Seen with `--verbose`
//! against the built-in demo server.
mod support;

fn listings_sent(args: &[&str]) -> Vec<&'static str> {
    let mut all = vec!["--verbose"];
    all.extend_from_slice(args);
    let run = support::mcp(&all);
    assert_eq!(run.code, Some(0), "mcp {}: {run:?}", args.join(" "));
    ["tools/list", "prompts/list", "resources/list"]
        .into_iter()
        .filter(|m| run.stderr.contains(&format!("--> request {m}")))
        .collect()
}

#[test]
fn each_command_lists_only_what_it_needs() {
    let table: [(&[&str], &[&str]); 8] = [
        (&["ping"], &[]),
        (&["skills"], &[]),
        (&["read", "demo://readme"], &[]),
        (&["call", "add", "a=1", "b=2"], &["tools/list"]),
        (&["tools"], &["tools/list"]),
        (&["prompt", "greet", "name=Ada"], &["prompts/list"]),
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
