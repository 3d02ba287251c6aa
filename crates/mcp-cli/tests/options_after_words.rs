//! Options may follow the positional words (`call add a=2 b=3 --json`,
//! `complete … --context k=v`), and `--` ends the options: a tool argument
//! that starts with `-` goes after it. Usage lines name the words.
mod support;

use support::mcp;

#[test]
fn global_flags_after_call_arguments() {
    let run = mcp(&["call", "add", "a=2", "b=3", "--json"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let value: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON output");
    assert_eq!(value["structuredContent"]["sum"], 5);

    let run = mcp(&["call", "add", "a=2", "--timeout", "30", "b=3"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout.trim(), "5");
}

#[test]
fn double_dash_separates_words_that_start_with_a_dash() {
    let run = mcp(&["call", "echo", "--", "message=-x"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout.trim(), "-x");
    // Without `--` a dash word is an (unknown) option: a usage error with a tip.
    let run = mcp(&["call", "echo", "-m=1"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("'--"), "{run:?}");
}

#[test]
fn complete_context_after_the_words() {
    for context in [&["--context", "name=Ada"][..], &["--context=name=Ada"][..]] {
        let mut args = vec!["complete", "prompt", "greet", "name", "A"];
        args.extend_from_slice(context);
        let run = mcp(&args);
        assert_eq!(run.code, Some(0), "{args:?}: {run:?}");
        assert!(run.stdout.contains("Ada"), "{args:?}: {run:?}");
    }
}

#[test]
fn usage_lines_name_the_words() {
    let run = mcp(&["complete", "--help"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stdout
            .contains("[SERVER] <prompt|resource> <REF> <ARG> <VALUE>"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("<ARGS> <ARGS>"), "{}", run.stdout);
    // `--context` belongs to `complete`: the top-level help says so wherever
    // it names it.
    let run = mcp(&["--help"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    for line in run.stdout.lines().filter(|l| l.contains("--context")) {
        assert!(
            line.contains("complete"),
            "--context without `complete`: {line:?}"
        );
    }
    assert!(run.stdout.contains("--context"), "{}", run.stdout);
    let run = mcp(&["call", "--help"]);
    assert!(
        run.stdout
            .contains("[SERVER] <TOOL> [JSON | key=value ...]"),
        "{}",
        run.stdout
    );
}
