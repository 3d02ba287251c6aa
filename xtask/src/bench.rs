//! `cargo xtask bench [--quick] [--repeats N] [--only c1,c2]
//! [--servers bench-server,rmcp-server] [--no-counts] [--criterion]`:
//! the side-by-side benchmarks.
//!
//! Builds the separate `bench/` workspace in release (our client, rmcp, the
//! raw floor, the two servers; never built by `cargo xtask test`), installs
//! the TypeScript and Python SDK peers (tests/peers/setup.sh; a missing one
//! is skipped and noted), runs every client against both servers (ours,
//! `bench-server`, and rmcp's, `rmcp-bench-server`; `--servers` picks),
//! counts instructions and allocations per call under valgrind where it is
//! installed (`--no-counts` skips that) and writes `docs/benchmarks.md` and
//! its chart, `docs/benchmarks.svg`. The
//! release `mcp` binary (`cargo build --release -p mcpio-cli`) is built too,
//! for the cold-start rows. `--criterion` also runs the in-process
//! criterion micro-benchmarks (`cargo bench` of mcp-types, mcp-transport,
//! mcp-transport-stdio, mcp-transport-http; reports under the target dir's
//! `criterion/`). The bench build uses `$CARGO_TARGET_DIR` when set, else
//! `bench/target`.

use std::path::PathBuf;

use crate::util;

/// Runs the benchmarks; see the module docs.
pub(crate) fn bench(args: &[String]) -> Result<(), String> {
    let root = util::workspace_root()?;
    let flag = |name: &str| args.iter().any(|a| a == name);
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    if flag("--help") || flag("-h") {
        println!(
            "usage: cargo xtask bench [--quick] [--repeats N] [--only floor,ours,rmcp,typescript,python]\n\
             \x20                        [--servers bench-server,rmcp-server] [--no-counts] [--criterion]\n\
             Runs every client against both servers and writes docs/benchmarks.md (see bench/)."
        );
        return Ok(());
    }
    if flag("--criterion") {
        util::run(
            util::cargo(&root).args([
                "bench",
                "-p",
                "mcpio-types",
                "-p",
                "mcpio-transport",
                "-p",
                "mcpio-transport-stdio",
                "-p",
                "mcpio-transport-http",
            ]),
            "criterion micro-benchmarks",
        )?;
    }
    if let Err(e) = util::run(
        util::cmd("bash", &root)
            .arg(root.join("tests/peers/setup.sh"))
            .arg("--quiet"),
        "install the test peers",
    ) {
        eprintln!("xtask: {e}; the TypeScript/Python clients may be skipped");
    }
    let manifest = root.join("bench/Cargo.toml");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("bench/target"));
    util::run(
        util::cargo(&root)
            .args(["build", "--release", "--locked", "--manifest-path"])
            .arg(&manifest)
            .env("CARGO_TARGET_DIR", &target),
        "build the bench workspace (release)",
    )?;
    // The `mcp` binary for the cold-start rows, as a user builds it.
    let cli_target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    util::run(
        util::cargo(&root).args(["build", "--release", "--locked", "-p", "mcpio-cli"]),
        "build the mcp binary (release)",
    )?;
    let bin = target.join("release");
    let mut run = util::cmd(bin.join("mcp-bench").to_str().unwrap_or("mcp-bench"), &root);
    run.arg("run")
        .arg("--root")
        .arg(&root)
        .arg("--server")
        .arg(bin.join("bench-server"))
        .arg("--rmcp-server")
        .arg(bin.join("rmcp-bench-server"))
        .arg("--out")
        .arg(root.join("docs/benchmarks.md"))
        .arg("--mcp")
        .arg(cli_target.join("release/mcp"));
    if flag("--quick") {
        run.args(["--quick", "--repeats", "2"]);
    }
    if let Some(n) = value("--repeats") {
        run.args(["--repeats", &n]);
    }
    if let Some(only) = value("--only") {
        run.args(["--only", &only]);
    }
    if let Some(servers) = value("--servers") {
        run.args(["--servers", &servers]);
    }
    if flag("--no-counts") {
        run.arg("--no-counts");
    }
    util::run(&mut run, "run the benchmarks (writes docs/benchmarks.md)")
}
