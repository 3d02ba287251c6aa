//! A byte order mark `mcp` forgives (at the start of a config file, or of
//! a stdio server's stdout) is reported by default, once, as the CLI's
//! other warnings are (`mcp: warning: …`), and still once with
//! `--verbose` or `MCP_LOG` set.
#![allow(
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]
mod support;

/// The stderr lines about a byte order mark.
fn bom_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.contains("byte order mark"))
        .collect()
}

#[test]
fn a_forgiven_byte_order_mark_is_one_warning() {
    let dir = support::temp_dir("bom-warning");
    let exe = env!("CARGO_BIN_EXE_mcp");
    let config = serde_json::json!({"mcpServers": {
        "demo": {"command": exe, "args": ["serve-demo"]}
    }});
    let mut text = b"\xEF\xBB\xBF".to_vec();
    text.extend_from_slice(config.to_string().as_bytes());
    std::fs::write(dir.join("bom.json"), text).expect("write config");
    // A server whose stdout starts with the mark, in a config without one.
    let config = serde_json::json!({"mcpServers": {
        "demo": {"command": "sh", "args": ["-c", format!("printf '\\357\\273\\277'; exec '{exe}' serve-demo")]}
    }});
    std::fs::write(dir.join("server.json"), config.to_string()).expect("write config");

    for (file, names) in [("bom.json", "bom.json"), ("server.json", "demo")] {
        for (extra, vars) in [
            (&[][..], &[][..]),
            (&["--verbose"][..], &[][..]),
            (&[][..], &[("MCP_LOG", "warn")][..]),
        ] {
            let mut args = vec!["--config", file];
            args.extend_from_slice(extra);
            args.push("ping");
            let run = support::mcp_in_env(&dir, &args, vars);
            assert_eq!(run.code, Some(0), "{file} {extra:?} {vars:?}: {run:?}");
            let lines = bom_lines(&run.stderr);
            assert_eq!(lines.len(), 1, "{file} {extra:?} {vars:?}: {run:?}");
            assert!(
                lines[0].starts_with("mcp: warning: ") && lines[0].contains(names),
                "{file} {extra:?} {vars:?}: {run:?}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
