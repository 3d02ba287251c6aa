//! Project automation, run as `cargo xtask <command>`:
//!
//! - `test`: installs the test peers (tests/peers/setup.sh), then runs
//!   `cargo fmt --check`, `cargo clippy --workspace --all-targets -D warnings`,
//!   `cargo doc --workspace --no-deps` with `RUSTDOCFLAGS="-D warnings -D
//!   rustdoc::broken-intra-doc-links"`, `cargo test --workspace` and the
//!   conformance suites. This is what CI runs.
//! - `conformance`: the official MCP conformance suite and our fault catalogue.
//! - `bench`: the side-by-side benchmarks.

mod bench;
mod conformance;
mod util;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") => test(&args[1..]),
        Some("conformance") => conformance::conformance(&args[1..]),
        Some("bench") => bench::bench(&args[1..]),
        Some("help") | Some("--help") | Some("-h") | None => {
            println!("usage: cargo xtask <test|conformance|bench>");
            Ok(())
        }
        Some(other) => Err(format!(
            "unknown xtask command {other:?}; try `cargo xtask help`"
        )),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `cargo xtask test [--no-lint]`: peers, fmt, clippy, rustdoc, workspace tests, then
/// `cargo xtask conformance` (suites + catalogue; writes docs/conformance.md).
fn test(args: &[String]) -> Result<(), String> {
    let root = util::workspace_root()?;
    let lint = !args.iter().any(|a| a == "--no-lint");
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
    }
    util::run(
        util::cargo(&root).args(["test", "--workspace", "--locked"]),
        "cargo test --workspace",
    )?;
    conformance::conformance(&[])
}
