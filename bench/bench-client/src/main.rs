//! `mcp-bench`: the benchmark drivers and the orchestrator behind
//! `cargo xtask bench`.
//!
//! ```text
//! mcp-bench client --impl floor|ours|rmcp --transport stdio|http-json|http-sse
//!                  --server PATH [--url URL] [--quick]     # one suite, prints RESULT <json>
//! mcp-bench sse [--mib 100] [--runs 3] [--quick]           # SSE parsers and our linearity, prints RESULT <json>
//! mcp-bench sse-memory --event-bytes B --events N --chunks C  # peak memory of one parse (run by `sse`)
//! mcp-bench manager --server PATH [--count 50]              # N stdio servers via mcp-manager
//! mcp-bench coldstart --mcp PATH --server PATH --root DIR [--runs 10]  # exec → exit of one call
//! mcp-bench profile --impl I --transport T [--workload small|large|list] [--n N] [--in-flight K]
//! mcp-bench counts --server PATH [--quick]                 # the per-call counts alone, under valgrind
//! mcp-bench run --root DIR --server PATH [--rmcp-server PATH] [--servers bench-server,rmcp-server]
//!               [--repeats 3] [--quick] [--out FILE] [--mcp PATH] [--no-counts]
//! ```

mod chart;
mod coldstart;
mod counts;
mod floor;
mod ours;
mod report;
mod rmcp_client;
mod sse;
mod suite;

use std::process::ExitCode;

pub struct Args(Vec<String>);

impl Args {
    pub fn flag(&self, name: &str) -> bool {
        self.0.iter().any(|a| a == name)
    }
    pub fn value(&self, name: &str) -> Option<String> {
        self.0
            .iter()
            .position(|a| a == name)
            .and_then(|i| self.0.get(i + 1))
            .cloned()
    }
    pub fn required(&self, name: &str) -> anyhow::Result<String> {
        self.value(name)
            .ok_or_else(|| anyhow::anyhow!("missing {name}"))
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime")
}

fn client(args: &Args) -> anyhow::Result<()> {
    let imp = args.required("--impl")?;
    let transport = args.required("--transport")?;
    let server = args.value("--server").unwrap_or_default();
    let url = args.value("--url").unwrap_or_default();
    let budget = suite::Budget::new(args.flag("--quick"));
    let stdio = transport == "stdio";
    let rt = runtime();
    let result = rt.block_on(async {
        match (imp.as_str(), stdio) {
            ("floor", true) => {
                suite::run(
                    &floor::StdioFloorConnector { server },
                    &imp,
                    &transport,
                    budget,
                )
                .await
            }
            ("floor", false) => {
                suite::run(&floor::HttpFloorConnector { url }, &imp, &transport, budget).await
            }
            ("rmcp", true) => {
                let c = rmcp_client::RmcpConnector::Stdio { server };
                suite::run(&c, &imp, &transport, budget).await
            }
            ("rmcp", false) => {
                let c = rmcp_client::RmcpConnector::Http { url };
                suite::run(&c, &imp, &transport, budget).await
            }
            ("ours", true) => {
                let c = ours::OursConnector::Stdio { server };
                suite::run(&c, &imp, &transport, budget).await
            }
            ("ours", false) => {
                let c = ours::OursConnector::Http { url };
                suite::run(&c, &imp, &transport, budget).await
            }
            (other, _) => Err(anyhow::anyhow!("unknown client {other}")),
        }
    })?;
    println!("RESULT {}", serde_json::to_string(&result)?);
    // Do not wait for connection tasks to wind down.
    rt.shutdown_background();
    Ok(())
}

/// `mcp-bench profile`: a fixed number of calls with no timing, for
/// `valgrind --tool=callgrind` (instructions per call) and heap profilers.
/// `--in-flight N` runs the calls from N tasks at once (as the throughput
/// rows do); the client's VmHWM is reset after connecting and printed at
/// the end (`PROFILE {json}`), so it is the peak of the calls alone plus
/// what the connection already held.
fn profile(args: &Args) -> anyhow::Result<()> {
    let imp = args.required("--impl")?;
    let transport = args.required("--transport")?;
    let server = args.value("--server").unwrap_or_default();
    let url = args.value("--url").unwrap_or_default();
    let workload = args.value("--workload").unwrap_or_else(|| "small".into());
    let n: usize = args
        .value("--n")
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let in_flight: usize = args
        .value("--in-flight")
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
        .max(1);
    let spawned = args.flag("--spawned") || in_flight > 1;
    let rt = runtime();
    let (rss_connected, hwm) = rt.block_on(async {
        macro_rules! go {
            ($conn:expr) => {{
                let c = std::sync::Arc::new(suite::Connector::connect(&$conn).await?);
                // Warm-up: buffers grown, first-use allocations made.
                suite::profile_loop(&*c, &workload, 10).await?;
                let rss = suite::proc_status("VmRSS:");
                suite::reset_peak_rss();
                if spawned {
                    // As the throughput workload runs its callers: on
                    // runtime workers, not on the thread that blocks on it.
                    let mut tasks = Vec::with_capacity(in_flight);
                    for i in 0..in_flight {
                        let c = c.clone();
                        let workload = workload.clone();
                        let share = n / in_flight + usize::from(i < n % in_flight);
                        tasks.push(tokio::spawn(async move {
                            suite::profile_loop(&*c, &workload, share).await
                        }));
                    }
                    for t in tasks {
                        t.await??;
                    }
                } else {
                    suite::profile_loop(&*c, &workload, n).await?;
                }
                anyhow::Ok((rss, suite::proc_status("VmHWM:")))
            }};
        }
        match (imp.as_str(), transport == "stdio") {
            ("floor", true) => go!(floor::StdioFloorConnector { server }),
            ("floor", false) => go!(floor::HttpFloorConnector { url }),
            ("rmcp", true) => go!(rmcp_client::RmcpConnector::Stdio { server }),
            ("rmcp", false) => go!(rmcp_client::RmcpConnector::Http { url }),
            ("ours", true) => go!(ours::OursConnector::Stdio { server }),
            ("ours", false) => go!(ours::OursConnector::Http { url }),
            (other, _) => Err(anyhow::anyhow!("unknown client {other}")),
        }
    })?;
    println!(
        "PROFILE {}",
        serde_json::json!({"calls": n, "in_flight": in_flight, "workload": workload,
            "rss_connected_kib": rss_connected, "vmhwm_kib": hwm})
    );
    rt.shutdown_background();
    Ok(())
}

fn main() -> ExitCode {
    let all: Vec<String> = std::env::args().skip(1).collect();
    let cmd = all.first().cloned().unwrap_or_default();
    let args = Args(all.into_iter().skip(1).collect());
    let outcome = match cmd.as_str() {
        "client" => client(&args),
        "sse" => sse::main(&args),
        "sse-memory" => sse::memory_main(&args),
        "manager" => ours::manager_main(&args),
        "coldstart" => coldstart::main(&args),
        "run" => report::main(&args),
        "profile" => profile(&args),
        "counts" => counts::main(&args),
        _ => Err(anyhow::anyhow!(
            "usage: mcp-bench client|sse|manager|coldstart|profile|counts|run ... (see the crate docs)"
        )),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp-bench: {e:#}");
            ExitCode::FAILURE
        }
    }
}
