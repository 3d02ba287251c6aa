//! SSE parsing throughput: our `mcp_transport_http::sse::SseParser` against
//! the `sse-stream` and `eventsource-stream` crates, on the same in-memory
//! stream (default 100 MiB of MCP-like `message` events with ids, split in
//! 16 KiB chunks as a socket would deliver them). Each parser runs several
//! times; the median MB/s (10^6 bytes per second) is reported.
//!
//! Linearity (ours alone): time per byte and the peak memory of parsing
//! events of 1 KiB to 16 MiB (16 KiB chunks), and of one 16 MiB event split
//! across 1 to 10 000 chunks. Time per byte should stay flat, and the memory
//! the parser takes should be bounded by the largest event.

use std::convert::Infallible;
use std::time::Instant;

use bytes::Bytes;
use futures::StreamExt;
use mcp_transport_http::sse::SseParser;
use serde::Serialize;

use crate::Args;

#[derive(Debug, Default, Serialize, serde::Deserialize, Clone)]
pub struct SseResult {
    pub mib: usize,
    pub events: usize,
    pub ours_mbps: f64,
    pub sse_stream_mbps: f64,
    pub eventsource_stream_mbps: f64,
    /// (max − min) / median over the runs of each parser, percent.
    pub ours_spread_pct: f64,
    pub sse_stream_spread_pct: f64,
    pub eventsource_stream_spread_pct: f64,
    /// Events of growing size, 16 KiB chunks.
    #[serde(default)]
    pub by_event_size: Vec<LinearRow>,
    /// One event split across a growing number of chunks.
    #[serde(default)]
    pub by_chunks: Vec<LinearRow>,
}

/// One linearity measurement of our parser.
#[derive(Debug, Default, Serialize, serde::Deserialize, Clone)]
pub struct LinearRow {
    /// Bytes of one event on the wire (its `data:` line and the blank line).
    pub event_bytes: usize,
    /// Events in the stream.
    pub events: usize,
    /// Chunks the stream is split into.
    pub chunks: usize,
    /// Median nanoseconds per byte of the stream.
    pub ns_per_byte: f64,
    /// (max − min) / median of the runs, percent.
    pub spread_pct: f64,
    /// The process's peak RSS while parsing the stream once, above its RSS
    /// before (the stream itself is built before), KiB.
    pub peak_extra_kib: f64,
}

/// The stream, as chunks; and how many events it holds.
pub fn make_stream(bytes: usize, chunk: usize) -> (Vec<Bytes>, usize) {
    let mut body = Vec::with_capacity(bytes + 1024);
    let payload = "x".repeat(300);
    let mut events = 0usize;
    while body.len() < bytes {
        let ev = format!(
            "id: {events}\nevent: message\ndata: {{\"jsonrpc\":\"2.0\",\"id\":{events},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"{payload}\"}}]}}}}\n\n"
        );
        body.extend_from_slice(ev.as_bytes());
        events += 1;
    }
    let body = Bytes::from(body);
    let chunks = (0..body.len())
        .step_by(chunk)
        .map(|i| body.slice(i..(i + chunk).min(body.len())))
        .collect();
    (chunks, events)
}

/// Ours through its zero-copy entry (`feed_bytes`: each event's data is a
/// slice of the chunk), as the HTTP transport feeds it hyper's body chunks.
/// The other two get the same `Bytes` chunks.
fn ours(chunks: &[Bytes]) -> usize {
    let mut parser = SseParser::default();
    let mut out = Vec::new();
    let mut n = 0;
    for c in chunks {
        parser.feed_bytes(c, &mut out);
        for e in out.drain(..).flatten() {
            n += usize::from(!e.data.is_empty());
        }
    }
    let _ = parser.finish();
    n
}

fn sse_stream(chunks: &[Bytes]) -> usize {
    let stream = futures::stream::iter(chunks.iter().cloned().map(Ok::<_, std::io::Error>));
    let events = sse_stream::SseByteStream::new(stream);
    futures::executor::block_on(events.fold(0usize, |n, e| async move {
        n + usize::from(e.ok().and_then(|e| e.data).is_some_and(|d| !d.is_empty()))
    }))
}

fn eventsource_stream(chunks: &[Bytes]) -> usize {
    let stream = futures::stream::iter(chunks.iter().cloned().map(Ok::<_, Infallible>));
    let events = eventsource_stream::EventStream::new(stream);
    futures::executor::block_on(events.fold(0usize, |n, e| async move {
        n + usize::from(e.is_ok_and(|e| !e.data.is_empty()))
    }))
}

fn measure(
    name: &str,
    f: fn(&[Bytes]) -> usize,
    chunks: &[Bytes],
    events: usize,
    runs: usize,
) -> anyhow::Result<(f64, f64)> {
    let total: usize = chunks.iter().map(Bytes::len).sum();
    let mut rates = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        let n = f(chunks);
        let secs = t.elapsed().as_secs_f64();
        anyhow::ensure!(n == events, "{name} parsed {n} events, expected {events}");
        rates.push(total as f64 / secs / 1e6);
    }
    rates.sort_by(f64::total_cmp);
    let median = rates[rates.len() / 2];
    let spread = (rates[rates.len() - 1] - rates[0]) / median * 100.0;
    Ok((median, spread))
}

/// A stream of `count` events of `event_bytes` bytes each (an MCP response
/// whose text fills the event), as one buffer.
fn linear_stream(event_bytes: usize, count: usize) -> Bytes {
    let head = "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"";
    let tail = "\"}]}}\n\n";
    let fill = event_bytes.saturating_sub(head.len() + tail.len()).max(1);
    let mut body = Vec::with_capacity((head.len() + fill + tail.len()) * count);
    for _ in 0..count {
        body.extend_from_slice(head.as_bytes());
        body.resize(body.len() + fill, b'x');
        body.extend_from_slice(tail.as_bytes());
    }
    Bytes::from(body)
}

/// `body` in `chunks` pieces of (nearly) equal size.
fn split(body: &Bytes, chunks: usize) -> Vec<Bytes> {
    let n = chunks.clamp(1, body.len().max(1));
    (0..n)
        .map(|i| body.slice(i * body.len() / n..(i + 1) * body.len() / n))
        .collect()
}

/// Times our parser on `chunks` (`runs` samples, each parsing the stream
/// until at least `per_sample` bytes went through) and takes its peak
/// memory over one more pass.
fn linear_row(
    event_bytes: usize,
    events: usize,
    chunks: Vec<Bytes>,
    runs: usize,
    per_sample: usize,
) -> anyhow::Result<LinearRow> {
    let total: usize = chunks.iter().map(Bytes::len).sum();
    let passes = per_sample.div_ceil(total.max(1)).max(1);
    let mut per_byte = Vec::new();
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        for _ in 0..passes {
            let n = ours(&chunks);
            anyhow::ensure!(n == events, "ours parsed {n} events, expected {events}");
        }
        per_byte.push(t.elapsed().as_nanos() as f64 / (total * passes) as f64);
    }
    per_byte.sort_by(f64::total_cmp);
    let median = per_byte[per_byte.len() / 2];
    let spread_pct = (per_byte[per_byte.len() - 1] - per_byte[0]) / median * 100.0;
    let peak_extra_kib = peak_in_child(event_bytes, events, chunks.len())?;
    Ok(LinearRow {
        event_bytes,
        events,
        chunks: chunks.len(),
        ns_per_byte: median,
        spread_pct,
        peak_extra_kib,
    })
}

/// The peak memory of one parse, measured in a fresh process (`mcp-bench
/// sse-memory`): in this one, memory freed by earlier runs is reused
/// without growing the RSS, so the parse would show nothing.
fn peak_in_child(event_bytes: usize, events: usize, chunks: usize) -> anyhow::Result<f64> {
    let out = std::process::Command::new(std::env::current_exe()?)
        .arg("sse-memory")
        .args(["--event-bytes", &event_bytes.to_string()])
        .args(["--events", &events.to_string()])
        .args(["--chunks", &chunks.to_string()])
        .output()?;
    anyhow::ensure!(
        out.status.success(),
        "sse-memory failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    text.trim()
        .strip_prefix("PEAK_EXTRA_KIB ")
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| anyhow::anyhow!("sse-memory printed {text:?}"))
}

/// `mcp-bench sse-memory --event-bytes B --events N --chunks C`: builds the
/// stream, then parses it once and prints the peak RSS above the RSS
/// before the parse (`PEAK_EXTRA_KIB <kib>`).
pub fn memory_main(args: &Args) -> anyhow::Result<()> {
    let num = |name: &str| -> anyhow::Result<usize> { Ok(args.required(name)?.parse()?) };
    let (event_bytes, events, chunks) = (num("--event-bytes")?, num("--events")?, num("--chunks")?);
    let body = linear_stream(event_bytes, events);
    let chunks = split(&body, chunks);
    crate::suite::reset_peak_rss();
    let before = crate::suite::proc_status("VmRSS:");
    let n = ours(&chunks);
    let peak = crate::suite::proc_status("VmHWM:");
    anyhow::ensure!(n == events, "ours parsed {n} events, expected {events}");
    println!("PEAK_EXTRA_KIB {}", (peak - before).max(0.0));
    Ok(())
}

/// The event sizes of the linearity rows, bytes.
pub const EVENT_SIZES: [usize; 5] = [1 << 10, 16 << 10, 256 << 10, 1 << 20, 16 << 20];
/// How many chunks the one large event is split into.
pub const CHUNK_COUNTS: [usize; 5] = [1, 10, 100, 1_000, 10_000];

/// The linearity rows: `(by event size, by chunk count)`.
pub fn linearity(runs: usize, quick: bool) -> anyhow::Result<(Vec<LinearRow>, Vec<LinearRow>)> {
    let stream_bytes: usize = if quick { 16 << 20 } else { 64 << 20 };
    let per_sample: usize = if quick { 64 << 20 } else { 256 << 20 };
    let mut by_size = Vec::new();
    for size in EVENT_SIZES {
        let count = (stream_bytes / size).max(1);
        let body = linear_stream(size, count);
        by_size.push(linear_row(
            size,
            count,
            split(&body, body.len().div_ceil(16 << 10)),
            runs,
            per_sample,
        )?);
    }
    let big = 16 << 20;
    let body = linear_stream(big, 1);
    let mut by_chunks = Vec::new();
    for n in CHUNK_COUNTS {
        by_chunks.push(linear_row(big, 1, split(&body, n), runs, per_sample)?);
    }
    Ok((by_size, by_chunks))
}

pub fn run(mib: usize, runs: usize, quick: bool) -> anyhow::Result<SseResult> {
    let (chunks, events) = make_stream(mib << 20, 16 * 1024);
    let (ours_mbps, ours_spread_pct) = measure("ours", ours, &chunks, events, runs)?;
    let (sse_stream_mbps, sse_stream_spread_pct) =
        measure("sse-stream", sse_stream, &chunks, events, runs)?;
    let (eventsource_stream_mbps, eventsource_stream_spread_pct) = measure(
        "eventsource-stream",
        eventsource_stream,
        &chunks,
        events,
        runs,
    )?;
    let (by_event_size, by_chunks) = linearity(runs, quick)?;
    Ok(SseResult {
        by_event_size,
        by_chunks,
        mib,
        events,
        ours_mbps,
        sse_stream_mbps,
        eventsource_stream_mbps,
        ours_spread_pct,
        sse_stream_spread_pct,
        eventsource_stream_spread_pct,
    })
}

pub fn main(args: &Args) -> anyhow::Result<()> {
    let mib = args
        .value("--mib")
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let runs = args
        .value("--runs")
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let r = run(mib, runs, args.flag("--quick"))?;
    println!("RESULT {}", serde_json::to_string(&r)?);
    Ok(())
}
