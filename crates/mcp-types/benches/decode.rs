//! Message decode (`JsonRpcMessage::decode`) of the responses the benchmarks
//! exchange: a `tools/call` echo of 100 B and 100 KiB, a `tools/list` of
//! 1000 tools, and a progress notification. `cargo bench -p mcp-types`.
#![allow(missing_docs)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcp_types::JsonRpcMessage;
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
}

criterion_group!(benches, decode);
criterion_main!(benches);
