//! `--verbose` observes the traffic without changing it: against a real
//! 2026-07-28 Streamable HTTP server (the Python SDK's py_server.py, in its
//! three HTTP modes) every request that needs the request-metadata headers
//! (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`) succeeds with `--verbose` as it
//! does without. Skipped, saying why, when the Python peer is not installed.
mod support;

use mcp_tests::peers::{self, PyOptions, PyTransport};

fn modes() -> [(&'static str, PyOptions); 3] {
    [
        ("sse replies", PyOptions::default()),
        (
            "json replies",
            PyOptions {
                json_response: true,
                ..PyOptions::default()
            },
        ),
        (
            "stateless",
            PyOptions {
                stateless: true,
                ..PyOptions::default()
            },
        ),
    ]
}

#[test]
fn verbose_sends_the_same_headers() {
    for (mode, opts) in modes() {
        let Some(peer) = peers::skip_if_missing(peers::spawn_python_server(
            PyTransport::StreamableHttp,
            opts,
        )) else {
            return;
        };
        let url = peer.url().to_owned();
        let commands: [&[&str]; 4] = [
            &["call", "echo", "text=hi"],
            &["call", "route", "region=eu", "text=hi"],
            &["read", "peer://static/greeting"],
            &["prompt", "greet", "name=Ada"],
        ];
        for words in commands {
            for verbose in [false, true] {
                let mut args = vec!["--url", url.as_str()];
                if verbose {
                    args.push("--verbose");
                }
                args.extend_from_slice(words);
                let run = support::mcp(&args);
                assert_eq!(
                    run.code,
                    Some(0),
                    "{mode}: mcp {} failed:\n{run:?}\nserver log:\n{}",
                    args.join(" "),
                    peer.log_tail()
                );
                if verbose {
                    assert!(
                        run.stderr.contains("--> request"),
                        "{mode}: --verbose shows the traffic: {run:?}"
                    );
                }
            }
        }
        let run = support::mcp(&["--url", &url, "servers"]);
        assert!(
            run.stdout.contains("2026-07-28"),
            "{mode}: the server speaks the stateless revision, so the headers matter: {run:?}"
        );
    }
}
