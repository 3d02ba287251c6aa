//! The Rust snippets of README.md are complete programs, kept here as files
//! (`tests/readme/*.rs`) that compile against the real APIs; a test checks
//! that every `rust` block of the README is one of these files, word for
//! word. The network ones are compiled, not run; the mcp-types one runs.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

// Each snippet is a program: its `main` is not called here.
#[allow(dead_code)]
#[path = "readme/handler.rs"]
mod handler;
#[allow(dead_code)]
#[path = "readme/http_client.rs"]
mod http_client;
#[allow(dead_code)]
#[path = "readme/raw_transport.rs"]
mod raw_transport;
#[allow(dead_code)]
#[path = "readme/stdio_client.rs"]
mod stdio_client;
/// The mcp-types snippet runs: its `main` is private to its file, so the
/// file is included beside the test that calls it.
mod types {
    include!("readme/types.rs");

    #[test]
    fn types_snippet_runs() {
        main().unwrap();
    }
}

/// The `mcpio` snippet (the README's first library example, and the front
/// page of the `mcpio` crate) runs against the demo server of the `mcp`
/// binary built beside this test.
mod mcpio_stdio {
    #![allow(dead_code, reason = "the snippet's `main` is not called here")]
    include!("readme/mcpio_stdio.rs");

    #[tokio::test]
    async fn mcpio_snippet_calls_the_demo_server() {
        let server = StdioConfig::new(env!("CARGO_BIN_EXE_mcp")).with_args(["serve-demo"]);
        assert_eq!(add(server, 2, 3).await.unwrap(), "5");
    }
}

/// The snippet files, by name, as compiled above.
const SNIPPETS: [(&str, &str); 6] = [
    ("mcpio_stdio.rs", include_str!("readme/mcpio_stdio.rs")),
    ("handler.rs", include_str!("readme/handler.rs")),
    ("http_client.rs", include_str!("readme/http_client.rs")),
    ("raw_transport.rs", include_str!("readme/raw_transport.rs")),
    ("stdio_client.rs", include_str!("readme/stdio_client.rs")),
    ("types.rs", include_str!("readme/types.rs")),
];

/// The body of every fenced block of `markdown` whose info string starts
/// with `rust`.
fn rust_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match &mut current {
            None if line.starts_with("```rust") => current = Some(String::new()),
            None => {}
            Some(_) if line.starts_with("```") => blocks.extend(current.take()),
            Some(body) => {
                body.push_str(line);
                body.push('\n');
            }
        }
    }
    blocks
}

#[test]
fn every_rust_block_of_the_readme_is_a_compiled_snippet() {
    let readme = include_str!("../../../README.md");
    let blocks = rust_blocks(readme);
    assert_eq!(
        blocks.len(),
        SNIPPETS.len(),
        "README.md has {} rust blocks; tests/readme has {} snippets",
        blocks.len(),
        SNIPPETS.len()
    );
    for block in &blocks {
        assert!(
            SNIPPETS.iter().any(|(_, text)| text == block),
            "a rust block of README.md is not one of tests/readme/*.rs word for word \
             (edit the file, then copy it into the README):\n{block}"
        );
    }
    for (name, text) in SNIPPETS {
        assert!(
            blocks.iter().any(|b| b == text),
            "tests/readme/{name} is not in README.md"
        );
        assert!(
            !text.lines().any(|l| l.starts_with("# ")),
            "{name}: no hidden rustdoc lines; a snippet is a whole program"
        );
    }
}

/// The facade's front page (crates/mcpio/README.md, compiled as its
/// doctest) shows the same program as the workspace README's first library
/// example, which the test above runs.
#[test]
fn the_mcpio_front_page_and_the_readme_open_with_the_same_program() {
    let snippet = include_str!("readme/mcpio_stdio.rs");
    let front_page = rust_blocks(include_str!("../../mcpio/README.md"));
    assert_eq!(front_page.first().map(String::as_str), Some(snippet));
    let readme = rust_blocks(include_str!("../../../README.md"));
    assert_eq!(
        readme.first().map(String::as_str),
        Some(snippet),
        "the README's first library example is the mcpio one"
    );
}

#[test]
fn the_block_finder_reads_fences() {
    let md = "text\n```rust\nfn a() {}\n```\n```sh\nls\n```\n```rust,no_run\nfn b() {}\n```\n";
    assert_eq!(rust_blocks(md), vec!["fn a() {}\n", "fn b() {}\n"]);
}
