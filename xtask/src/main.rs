//! Project automation, run as `cargo xtask <command>`:
//!
//! - `test`: installs the test peers (tests/peers/setup.sh), then runs
//!   `cargo fmt --check`, `cargo clippy --workspace --all-targets -D warnings`,
//!   `cargo doc --workspace --no-deps` with `RUSTDOCFLAGS="-D warnings -D
//!   rustdoc::broken-intra-doc-links"`, `cargo xtask release-check --quick`,
//!   `cargo test --workspace` (the kept fuzz corpora replayed), the short soak
//!   and chaos runs and the conformance suites. This is what CI runs. It leaves the tree as it found it, and
//!   its last line says what did not run (no `../shared`: the schema tests and the
//!   fault catalogue) rather than calling that a pass.
//! - `conformance`: the official MCP conformance suite and our fault catalogue.
//! - `bench`: the side-by-side benchmarks.
//! - `release-check [--quick] [--write-api]`: whether the crates can be
//!   released (docs/releasing.md); `test` runs the `--quick` part.
//! - `house`: the shape rules of the sources (file length, `impl` blocks at
//!   home, no import circles); `test` runs it.
//! - `fuzz`, `soak`, `chaos`: the hardening runs; with `--report` each writes
//!   its section of `docs/reliability.md`.

mod bench;
mod chaos;
mod conformance;
mod fuzz;
mod house;
mod release;
mod reliability;
mod soak;
mod testing;
mod util;

use std::process::ExitCode;

fn main() -> ExitCode {
    if let Some(real) = release::as_rustdoc() {
        return release::run_as_rustdoc(real);
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") => testing::test(&args[1..]),
        Some("conformance") => conformance::conformance(&args[1..]),
        Some("bench") => bench::bench(&args[1..]),
        Some("release-check") => release::release_check(&args[1..]),
        Some("fuzz") => fuzz::fuzz(&args[1..]),
        Some("soak") => soak::soak(&args[1..]),
        Some("chaos") => chaos::chaos(&args[1..]),
        Some("house") => house::house(&args[1..]),
        Some("help") | Some("--help") | Some("-h") | None => {
            println!(
                "usage: cargo xtask <test|conformance|bench|release-check|fuzz|soak|chaos|house>"
            );
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
