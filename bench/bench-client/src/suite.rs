//! The client-side workloads, run the same way for every Rust client.
//! (The Node and Python clients in `bench/clients/` implement the same
//! suite and print the same JSON.)

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

/// One benchmarked client connection.
pub trait BenchClient: Send + Sync + 'static {
    /// `tools/call` `echo` with `{"text": text}`; checks the echo's length.
    fn call(&self, text: Arc<str>) -> impl Future<Output = anyhow::Result<()>> + Send;
    /// `tools/list`; returns how many tools came back.
    fn list(&self) -> impl Future<Output = anyhow::Result<usize>> + Send;
    /// The floor only: the bytes of one tools/list response, to time
    /// parsing them (`None` for the clients, which parse as they list).
    fn list_bytes(&self) -> impl Future<Output = anyhow::Result<Option<bytes::Bytes>>> + Send {
        async { Ok(None) }
    }
}

/// Opens connections (stdio: spawns a server; HTTP: a new client).
pub trait Connector {
    /// The client type.
    type Client: BenchClient;
    /// Connects and completes the handshake.
    fn connect(&self) -> impl Future<Output = anyhow::Result<Self::Client>>;
}

/// How long each workload may run.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub latency: Duration,
    pub throughput: Duration,
    pub list: Duration,
    pub idle_connections: usize,
}

impl Budget {
    pub fn new(quick: bool) -> Self {
        let f = if quick { 0.4 } else { 1.0 };
        Budget {
            latency: Duration::from_secs_f64(1.0 * f),
            throughput: Duration::from_secs_f64(0.8 * f),
            list: Duration::from_secs_f64(1.0 * f),
            idle_connections: if quick { 4 } else { 40 },
        }
    }
}

/// What one client process measured (the same JSON for every language;
/// a member a client does not measure is absent and reads as 0).
#[derive(Debug, Default, Serialize, serde::Deserialize, Clone)]
#[serde(default)]
pub struct SuiteResult {
    pub client: String,
    pub transport: String,
    /// Connect + handshake of the first connection, ms.
    pub connect_ms: f64,
    /// Sequential tools/call latency, 100 B argument: p50, p99 in µs.
    pub lat_small_p50_us: f64,
    pub lat_small_p99_us: f64,
    /// Sequential tools/call latency, 100 KiB argument: p50, p99 in µs.
    pub lat_large_p50_us: f64,
    pub lat_large_p99_us: f64,
    /// tools/call (100 B) per second with 1, 16, 256 in flight.
    pub tput_1: f64,
    pub tput_16: f64,
    pub tput_256: f64,
    /// tools/call with the 100 KiB argument per second, 256 in flight.
    pub tput_256_large: f64,
    /// Client peak RSS (VmHWM) while the 100 KiB × 256 workload ran (the
    /// VmHWM reset to the RSS just before it), KiB.
    pub peak_rss_large_256_kib: f64,
    /// tools/list of 1000 tools: median ms.
    pub list_ms: f64,
    /// The floor only: its tools/list plus `serde_json::from_slice::<Value>`
    /// of the same response bytes and the drop of that value (the least any
    /// client that reads the list and frees it must spend; each client's
    /// timed listing frees its result too), median ms.
    pub list_parse_floor_ms: f64,
    /// Client RSS growth per idle, initialized connection, KiB.
    pub idle_kib_per_conn: f64,
    /// Client peak RSS (VmHWM) over the whole suite, KiB.
    pub peak_rss_kib: f64,
}

/// The 100-byte and 100 KiB `text` arguments.
/// Made once per process and shared, so that N callers hold one copy of
/// each (what the client copies is then what a heap profile shows).
pub fn payloads() -> (Arc<str>, Arc<str>) {
    static PAYLOADS: std::sync::OnceLock<(Arc<str>, Arc<str>)> = std::sync::OnceLock::new();
    PAYLOADS
        .get_or_init(|| (Arc::from(make_text(100)), Arc::from(make_text(100 * 1024))))
        .clone()
}

fn make_text(n: usize) -> String {
    (0..n).map(|i| (b'a' + (i % 26) as u8) as char).collect()
}

/// `VmRSS` / `VmHWM` of this process, KiB.
pub fn proc_status(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0)
}

/// Resets this process's VmHWM to its current RSS (Linux
/// `/proc/self/clear_refs` "5"), so a later VmHWM is the peak of what ran
/// since. Where that is refused the VmHWM keeps counting from the start.
pub fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

async fn latency<C: BenchClient>(
    c: &C,
    text: &Arc<str>,
    budget: Duration,
    max: usize,
) -> anyhow::Result<(f64, f64)> {
    let mut samples = Vec::with_capacity(max);
    let start = Instant::now();
    while samples.len() < max && (samples.len() < 20 || start.elapsed() < budget) {
        let t = Instant::now();
        c.call(text.clone()).await?;
        samples.push(t.elapsed().as_secs_f64() * 1e6);
    }
    samples.sort_by(f64::total_cmp);
    Ok((percentile(&samples, 0.5), percentile(&samples, 0.99)))
}

pub async fn throughput<C: BenchClient>(
    c: &Arc<C>,
    text: &Arc<str>,
    in_flight: usize,
    budget: Duration,
) -> anyhow::Result<f64> {
    let done = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let start = Instant::now();
    let mut workers = Vec::with_capacity(in_flight);
    for _ in 0..in_flight {
        let (c, text, done, stop) = (c.clone(), text.clone(), done.clone(), stop.clone());
        workers.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                c.call(text.clone()).await?;
                done.fetch_add(1, Ordering::Relaxed);
            }
            anyhow::Ok(())
        }));
    }
    tokio::time::sleep(budget).await;
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.await??;
    }
    Ok(done.load(Ordering::Relaxed) as f64 / start.elapsed().as_secs_f64())
}

/// Runs every workload on connections from `connector`.
pub async fn run<K: Connector>(
    connector: &K,
    client: &str,
    transport: &str,
    budget: Budget,
) -> anyhow::Result<SuiteResult> {
    let (small, large) = payloads();
    let mut r = SuiteResult {
        client: client.into(),
        transport: transport.into(),
        ..Default::default()
    };
    let t = Instant::now();
    let c = Arc::new(connector.connect().await?);
    r.connect_ms = t.elapsed().as_secs_f64() * 1e3;
    // Idle connections: RSS growth per connected, initialized client.
    {
        let before = proc_status("VmRSS:");
        let mut idle = Vec::new();
        for _ in 0..budget.idle_connections {
            let extra = connector.connect().await?;
            extra.call(small.clone()).await?;
            idle.push(extra);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        let after = proc_status("VmRSS:");
        r.idle_kib_per_conn = (after - before) / budget.idle_connections as f64;
        drop(idle);
    }
    // Warm-up.
    for _ in 0..50 {
        c.call(small.clone()).await?;
    }
    (r.lat_small_p50_us, r.lat_small_p99_us) = latency(&*c, &small, budget.latency, 20_000).await?;
    (r.lat_large_p50_us, r.lat_large_p99_us) = latency(&*c, &large, budget.latency, 2_000).await?;
    r.tput_1 = throughput(&c, &small, 1, budget.throughput).await?;
    r.tput_16 = throughput(&c, &small, 16, budget.throughput).await?;
    r.tput_256 = throughput(&c, &small, 256, budget.throughput).await?;
    // The peak of this workload alone: VmHWM from the RSS just before it.
    let peak_before = proc_status("VmHWM:");
    reset_peak_rss();
    r.tput_256_large = throughput(&c, &large, 256, budget.throughput).await?;
    r.peak_rss_large_256_kib = proc_status("VmHWM:");
    let mut lists = Vec::new();
    let start = Instant::now();
    while lists.len() < 3 || (start.elapsed() < budget.list && lists.len() < 200) {
        let t = Instant::now();
        let n = c.list().await?;
        anyhow::ensure!(n == 1000, "tools/list returned {n} tools, expected 1000");
        lists.push(t.elapsed().as_secs_f64() * 1e3);
    }
    lists.sort_by(f64::total_cmp);
    r.list_ms = percentile(&lists, 0.5);
    if let Some(bytes) = c.list_bytes().await? {
        let mut parses = Vec::new();
        let start = Instant::now();
        while parses.len() < 3 || (start.elapsed() < budget.list && parses.len() < 200) {
            // Read and freed, as each client's listing is timed: its
            // result is dropped inside the timed call.
            let t = Instant::now();
            let value: serde_json::Value = serde_json::from_slice(&bytes)?;
            let n = value["result"]["tools"].as_array().map_or(0, Vec::len);
            drop(value);
            parses.push(t.elapsed().as_secs_f64() * 1e3);
            anyhow::ensure!(n == 1000, "the tools/list response holds {n} tools");
        }
        parses.sort_by(f64::total_cmp);
        r.list_parse_floor_ms = r.list_ms + percentile(&parses, 0.5);
    }
    r.peak_rss_kib = peak_before
        .max(r.peak_rss_large_256_kib)
        .max(proc_status("VmHWM:"));
    Ok(r)
}

/// `n` sequential calls of one workload (`small`, `large`, `list`), untimed.
pub async fn profile_loop<C: BenchClient>(c: &C, workload: &str, n: usize) -> anyhow::Result<()> {
    let (small, large) = payloads();
    if workload == "listed-small" {
        // As an agent works: the tools listed first, then calls.
        c.list().await?;
    }
    for _ in 0..n {
        match workload {
            "small" | "listed-small" => c.call(small.clone()).await?,
            "large" => c.call(large.clone()).await?,
            "list" => {
                c.list().await?;
            }
            other => anyhow::bail!("unknown workload {other}"),
        }
    }
    Ok(())
}
