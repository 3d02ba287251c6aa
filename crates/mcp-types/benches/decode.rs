//! Message decode (`JsonRpcMessage::decode`) of the responses the benchmarks
//! exchange: a `tools/call` echo of 100 B and 100 KiB, a `tools/list` of
//! 1000 tools, and a progress notification; then the client's own path for
//! the same responses (`decode_frame` and a typed `RawResult::parse`, also
//! for the 100 B echo), and
//! the writing of a 100 KiB `tools/call` request (`RequestBody::to_vec`).
//! `cargo bench -p mcpio-types`.
#![allow(missing_docs)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcp_types::RequestBody;
use mcp_types::tools::{CallToolResult, ListToolsResult};
use mcp_types::{DecodeOptions, Decoded, JsonRpcMessage, RequestId, decode_frame};
use std::hint::black_box;

fn call_response(text_len: usize) -> Vec<u8> {
    let text: String = (0..text_len)
        .map(|i| (b'a' + (i % 26) as u8) as char)
        .collect();
    serde_json::to_vec(&serde_json::json!({
        "jsonrpc": "2.0", "id": 42,
        "result": {"content": [{"type": "text", "text": text}], "isError": false}
    }))
    .unwrap()
}

fn list_response(tools: usize) -> Vec<u8> {
    let tools: Vec<_> = (0..tools)
        .map(|i| {
            serde_json::json!({
                "name": format!("tool_{i:04}"),
                "description": format!("Benchmark tool number {i}; it takes a query and a limit."),
                "inputSchema": {"type": "object", "properties": {
                    "query": {"type": "string", "description": "What to look for."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 100}},
                    "required": ["query"]}
            })
        })
        .collect();
    serde_json::to_vec(&serde_json::json!({"jsonrpc": "2.0", "id": 7, "result": {"tools": tools}}))
        .unwrap()
}

fn decode(c: &mut Criterion) {
    let mut g = c.benchmark_group("decode");
    let inputs = [
        ("call_response_100B", call_response(100)),
        ("call_response_100KiB", call_response(100 * 1024)),
        ("tools_list_1000", list_response(1000)),
        (
            "progress_notification",
            br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":3,"progress":0.5,"total":1}}"#
                .to_vec(),
        ),
    ];
    for (name, bytes) in &inputs {
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function(*name, |b| {
            b.iter(|| JsonRpcMessage::decode(black_box(bytes)).unwrap())
        });
    }
    g.finish();

    // The client's path: the response scan, then one typed parse.
    let mut g = c.benchmark_group("client_decode");
    for (name, bytes, list) in [
        ("call_response_100B", call_response(100), false),
        ("call_response_100KiB", call_response(100 * 1024), false),
        ("tools_list_1000", list_response(1000), true),
    ] {
        let frame = Bytes::from(bytes);
        g.throughput(Throughput::Bytes(frame.len() as u64));
        g.bench_function(name, |b| {
            b.iter(|| {
                let Ok(Decoded::Response {
                    outcome: Ok(raw), ..
                }) = decode_frame(black_box(&frame), DecodeOptions::default())
                else {
                    panic!("not a plain response")
                };
                if list {
                    black_box(raw.parse::<ListToolsResult>().unwrap());
                } else {
                    black_box(raw.parse::<CallToolResult>().unwrap());
                }
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("write");
    let text: String = (0..100 * 1024)
        .map(|i| (b'a' + (i % 26) as u8) as char)
        .collect();
    let params = serde_json::json!({"name": "echo", "arguments": {"text": text}});
    let id = RequestId::from(42);
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("tools_call_request_100KiB", |b| {
        b.iter(|| {
            RequestBody {
                id: &id,
                method: "tools/call",
                params: Some(black_box(&params)),
                meta_defaults: None,
                meta_overrides: &[],
            }
            .to_vec()
        })
    });
    g.finish();
}

criterion_group!(benches, decode);
criterion_main!(benches);
