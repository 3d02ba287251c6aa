//! One request through the public [`Dispatcher`], with no I/O: an
//! [`Outbound`] that answers each request at once, from inside `send`,
//! through `handle_frame`. Measures what the engine adds per request (id
//! allocation, the pending table, serialization, decoding the response,
//! correlation): alone, with 256 requests outstanding, and from two
//! threads at once (a reader completing while callers register).
//! `cargo bench -p mcpio-transport`.
#![allow(missing_docs)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use criterion::{Criterion, criterion_group, criterion_main};
use mcp_transport::{Dispatcher, Outbound, Outgoing, OutgoingKind, RequestOptions, TransportError};

/// Answers every request with `"result": null`, except `slow`, which it
/// never answers (the outstanding requests).
struct Echo;

#[async_trait]
impl Outbound for Echo {
    async fn send(
        &self,
        message: Outgoing,
        dispatcher: &Arc<Dispatcher>,
    ) -> Result<(), TransportError> {
        if message.kind == OutgoingKind::Request
            && message.method.as_deref() != Some("slow")
            && let Some(id) = message.id
        {
            let frame = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":null}}"#);
            dispatcher.handle_frame(Bytes::from(frame)).await;
        }
        Ok(())
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

async fn one(d: &Arc<Dispatcher>) {
    d.request("tools/call", None, RequestOptions::default())
        .await
        .unwrap();
}

fn round_trip(c: &mut Criterion) {
    let mut g = c.benchmark_group("dispatcher");
    g.bench_function("request_round_trip", |b| {
        let rt = runtime();
        let d = Dispatcher::new(Arc::new(Echo), "bench");
        b.iter(|| rt.block_on(one(&d)))
    });
    g.bench_function("request_round_trip_256_outstanding", |b| {
        let rt = runtime();
        let d = Dispatcher::new(Arc::new(Echo), "bench");
        let outstanding: Vec<_> = (0..256)
            .map(|_| {
                let d = d.clone();
                rt.spawn(async move {
                    let _ = d.request("slow", None, RequestOptions::default()).await;
                })
            })
            .collect();
        rt.block_on(async {
            while d.pending_len() < 256 {
                tokio::task::yield_now().await;
            }
        });
        b.iter(|| rt.block_on(one(&d)));
        for task in outstanding {
            task.abort();
        }
    });
    g.bench_function("request_round_trip_2_threads", |b| {
        b.iter_custom(|iters| {
            let d = Dispatcher::new(Arc::new(Echo), "bench");
            let start = std::time::Instant::now();
            let worker = |d: Arc<Dispatcher>| {
                move || {
                    let rt = runtime();
                    for _ in 0..iters {
                        rt.block_on(one(&d));
                    }
                }
            };
            let a = std::thread::spawn(worker(d.clone()));
            worker(d)();
            a.join().unwrap();
            start.elapsed() / 2
        })
    });
    g.finish();
}

criterion_group!(benches, round_trip);
criterion_main!(benches);
