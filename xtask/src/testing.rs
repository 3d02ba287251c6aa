//! `cargo xtask test`: everything CI runs, in one command.
//!
//! Tests that need `../shared` (the spec's schemas and examples) are `#[ignore]`d with
//! that reason, so a plain `cargo test` reports them as ignored, not passed. This command
//! runs them when `../shared` is there, and otherwise lists them as skipped in its last
//! lines. `#[ignore]` in this workspace means exactly that: needs `../shared`.

use std::path::Path;
use std::process::Stdio;

use crate::{conformance, release, util};

/// `cargo xtask test [--no-lint]`: peers, fmt, the shape rules (`house`), clippy, rustdoc, `release-check --quick`,
/// workspace tests (the kept fuzz corpora replayed among them), the OS keychain tests under a
/// private Secret Service (`.ci/with-secret-service`), mcp-client's tests without its default
/// `schema-validation` feature, the short soak and chaos
/// runs, the `../shared` tests, then `cargo xtask conformance` (suites + catalogue; checks, never
/// writes, docs/conformance.md).
pub(crate) fn test(args: &[String]) -> Result<(), String> {
    let root = util::workspace_root()?;
    let lint = !args.iter().any(|a| a == "--no-lint");
    let mut skipped = Vec::new();
    util::run(
        util::cmd("bash", &root)
            .arg(root.join("tests/peers/setup.sh"))
            .arg("--quiet"),
        "install the test peers",
    )?;
    if lint {
        util::run(
            util::cargo(&root).args(["fmt", "--all", "--", "--check"]),
            "cargo fmt --check",
        )?;
        crate::house::house(&[])?;
        util::run(
            util::cargo(&root).args([
                "clippy",
                "--workspace",
                "--all-targets",
                "--locked",
                "--",
                "-D",
                "warnings",
            ]),
            "cargo clippy",
        )?;
        util::run(
            util::cargo(&root)
                .args(["doc", "--workspace", "--no-deps", "--locked"])
                .env(
                    "RUSTDOCFLAGS",
                    "-D warnings -D rustdoc::broken-intra-doc-links",
                ),
            "cargo doc (rustdoc -D warnings, broken intra-doc links)",
        )?;
        // The bench workspace builds with --locked; its lock file goes stale
        // whenever a workspace crate gains a dependency, and nothing else
        // builds it, so check it here rather than at the next `xtask bench`.
        let mut lock = util::cargo(&root);
        lock.args([
            "metadata",
            "--locked",
            "--format-version",
            "1",
            "--manifest-path",
        ])
        .arg(root.join("bench/Cargo.toml"))
        .stdout(std::process::Stdio::null());
        util::run(
            &mut lock,
            "bench/Cargo.lock is up to date (else: cargo update --workspace --manifest-path bench/Cargo.toml)",
        )?;
        // After `cargo doc`: the API files' rustdoc JSON reuses what it compiled.
        skipped.extend(release::quick_for_tests(&root)?);
    }
    util::run(
        util::cargo(&root).args(["test", "--workspace", "--locked"]),
        "cargo test --workspace",
    )?;
    skipped.extend(keychain_tests(&root)?);
    without_schema_validation(&root)?;
    crate::chaos::short_runs(&root)?;
    let shared = root.join("../shared");
    if shared.is_dir() {
        util::run(
            util::cargo(&root).args(IGNORED_TESTS).arg("--ignored"),
            "the tests that need ../shared (cargo test -- --ignored)",
        )?;
    } else {
        let names = list_ignored(&root)?;
        if !names.is_empty() {
            skipped.push(format!(
                "{} test(s) that need ../shared ({})",
                names.len(),
                names.join(", ")
            ));
        }
    }
    let summary = conformance::check_all()?;
    println!("{}", verdict(&skipped, &summary.not_run));
    Ok(())
}

/// The OS keychain tests (`mcp-auth`'s `keychain` feature) against a Secret Service of their
/// own: `.ci/with-secret-service` starts gnome-keyring on a private D-Bus session, unlocked,
/// in a scratch directory, and stops both after; `MCP_KEYCHAIN_REQUIRED=1` makes a test that
/// finds no keychain fail rather than skip. Where the script's tools are not installed, the
/// tests are listed as skipped (its exit code 3), with the packages to install.
fn keychain_tests(root: &Path) -> Result<Option<String>, String> {
    let what = "the OS keychain tests (under .ci/with-secret-service)";
    eprintln!("==> {what}");
    let mut script = util::cmd("bash", root);
    util::without_xtask_env(&mut script);
    let status = script
        .arg(root.join(".ci/with-secret-service"))
        .arg(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args([
            "test",
            "--locked",
            "-p",
            "mcpio-auth",
            "--features",
            "keychain",
            "--test",
            "keychain",
        ])
        .env("MCP_KEYCHAIN_REQUIRED", "1")
        .status()
        .map_err(|e| format!("{what}: cannot run bash: {e}"))?;
    match status.code() {
        Some(0) => Ok(None),
        Some(3) => Ok(Some(
            "the OS keychain tests (no Secret Service to run them: install dbus, \
             libglib2.0-bin and gnome-keyring)"
                .to_owned(),
        )),
        _ => Err(format!("{what} failed ({status})")),
    }
}

/// mcp-client without its default `schema-validation` feature, at run time:
/// the one test target that only such a build compiles. The workspace's
/// tests cannot cover it (feature unification turns the feature on), so it
/// is a build of its own; one that runs no test means the feature came back
/// on, and fails.
fn without_schema_validation(root: &Path) -> Result<(), String> {
    let what = "mcp-client without default features (cargo test -p mcpio-client \
                --no-default-features --features test-util --test without_schema_validation)";
    eprintln!("==> {what}");
    let out = util::cargo(root)
        .args([
            "test",
            "-p",
            "mcpio-client",
            "--locked",
            "--no-default-features",
            "--features",
            "test-util",
            "--test",
            "without_schema_validation",
        ])
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("{what}: cannot run cargo: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    print!("{text}");
    if !out.status.success() {
        return Err(format!("{what} failed ({})", out.status));
    }
    if passed(&text) == 0 {
        return Err(format!(
            "{what} ran no test: the build had `schema-validation` on (does a dependency of \
             mcp-client's tests enable its default features?)"
        ));
    }
    Ok(())
}

/// The tests libtest reports as passed (`test result: ok. N passed; …`).
fn passed(output: &str) -> usize {
    output
        .lines()
        .filter_map(|l| l.trim().strip_prefix("test result: ok. "))
        .filter_map(|rest| rest.split_whitespace().next()?.parse::<usize>().ok())
        .sum()
}

/// `cargo test` over every test target (not the doctests: none is ignored), up to `--`.
const IGNORED_TESTS: [&str; 7] = [
    "test",
    "--workspace",
    "--locked",
    "--lib",
    "--bins",
    "--tests",
    "--",
];

/// The names of the ignored tests (`cargo test -- --ignored --list`).
fn list_ignored(root: &Path) -> Result<Vec<String>, String> {
    let out = util::cargo(root)
        .args(IGNORED_TESTS)
        .args(["--ignored", "--list", "--format", "terse"])
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot list the ignored tests: {e}"))?;
    if !out.status.success() {
        return Err(format!("listing the ignored tests failed ({})", out.status));
    }
    Ok(parse_test_list(&String::from_utf8_lossy(&out.stdout)))
}

/// Test names from libtest's `--list --format terse` output (`path::name: test`).
fn parse_test_list(output: &str) -> Vec<String> {
    output
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .map(str::to_string)
        .collect()
}

/// The last line of `cargo xtask test`: `PASSED` only when nothing was skipped.
fn verdict(skipped_tests: &[String], conformance_not_run: &[String]) -> String {
    let not_run: Vec<&str> = skipped_tests
        .iter()
        .chain(conformance_not_run)
        .map(String::as_str)
        .collect();
    if not_run.is_empty() {
        "xtask test: PASSED (everything ran)".to_string()
    } else {
        format!(
            "xtask test: INCOMPLETE: nothing failed, but skipped: {}",
            not_run.join("; ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_terse_test_list() {
        let out = "schema_validation::legacy: test\nmodern_client_messages_validate_2026_07_28: test\n\
                   not a test line\nsrc/lib.rs - x (line 3): test\n";
        assert_eq!(
            parse_test_list(out),
            [
                "schema_validation::legacy",
                "modern_client_messages_validate_2026_07_28",
                "src/lib.rs - x (line 3)"
            ]
        );
        assert!(parse_test_list("\n0 tests, 0 benchmarks\n").is_empty());
    }

    #[test]
    fn counts_the_passed_tests() {
        let out = "running 2 tests\ntest a ... ok\ntest b ... ok\n\n\
                   test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n";
        assert_eq!(passed(out), 2);
        assert_eq!(
            passed("running 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored\n"),
            0
        );
        assert_eq!(passed(""), 0);
    }

    #[test]
    fn a_skip_is_never_reported_as_a_pass() {
        assert_eq!(verdict(&[], &[]), "xtask test: PASSED (everything ran)");
        for (tests, conf) in [
            (
                vec!["6 test(s) that need ../shared (a, b)".to_string()],
                vec![],
            ),
            (vec![], vec!["the fault catalogue (absent)".to_string()]),
        ] {
            let v = verdict(&tests, &conf);
            assert!(v.starts_with("xtask test: INCOMPLETE"), "{v}");
            assert!(!v.contains("PASSED"), "{v}");
            for part in tests.iter().chain(&conf) {
                assert!(v.contains(part.as_str()), "{v}");
            }
        }
    }
}
