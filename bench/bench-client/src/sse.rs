//! SSE parsing throughput: our `mcp_transport_http::sse::SseParser` against
//! the `sse-stream` and `eventsource-stream` crates, on the same in-memory
//! stream (default 100 MiB of MCP-like `message` events with ids, split in
//! 16 KiB chunks as a socket would deliver them). Each parser runs several
//! times; the median MB/s (10^6 bytes per second) is reported.

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

pub fn run(mib: usize, runs: usize) -> anyhow::Result<SseResult> {
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
    Ok(SseResult {
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
    let r = run(mib, runs)?;
    println!("RESULT {}", serde_json::to_string(&r)?);
    Ok(())
}
