//! The event-stream parser (`sse::SseParser::feed_bytes`, and `feed` for
//! comparison): 4 MiB of MCP `message` events with ids (~400 B each), in
//! 16 KiB chunks; and events of 100 KiB.
//! `cargo bench -p mcpio-transport-http`. The comparison with other crates
//! is in `cargo xtask bench`.
#![allow(missing_docs)]

use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcp_transport_http::sse::SseParser;

fn events(payload: usize, total: usize) -> Vec<u8> {
    let text = "x".repeat(payload);
    let mut body = Vec::with_capacity(total + 1024);
    let mut id = 0;
    while body.len() < total {
        body.extend_from_slice(
            format!("id: {id}\nevent: message\ndata: {{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"{text}\"}}]}}}}\n\n")
                .as_bytes(),
        );
        id += 1;
    }
    body
}

fn sse(c: &mut Criterion) {
    let mut g = c.benchmark_group("sse_parser");
    for (name, payload, total) in [
        ("events_400B", 300, 4 << 20),
        ("events_100KiB", 100 * 1024, 4 << 20),
    ] {
        let input = Bytes::from(events(payload, total));
        let chunks: Vec<Bytes> = (0..input.len())
            .step_by(16 * 1024)
            .map(|i| input.slice(i..(i + 16 * 1024).min(input.len())))
            .collect();
        g.throughput(Throughput::Bytes(input.len() as u64));
        // The transport's path: `Bytes` chunks, data sliced from them.
        g.bench_function(name, |b| {
            let mut out = Vec::new();
            b.iter(|| {
                let mut p = SseParser::default();
                let mut n = 0;
                for chunk in &chunks {
                    p.feed_bytes(chunk, &mut out);
                    n += out.len();
                    out.clear();
                }
                n
            })
        });
        // `&[u8]` chunks: what an event keeps is copied.
        g.bench_function(format!("{name}_copying"), |b| {
            let mut out = Vec::new();
            b.iter(|| {
                let mut p = SseParser::default();
                let mut n = 0;
                for chunk in input.chunks(16 * 1024) {
                    p.feed(chunk, &mut out);
                    n += out.len();
                    out.clear();
                }
                n
            })
        });
    }
    g.finish();
}

criterion_group!(benches, sse);
criterion_main!(benches);
