//! The pending-request table: register + complete + receive of one request,
//! on one thread and with two threads at once (the stdio reader completing
//! while callers register). `cargo bench -p mcp-transport`.
#![allow(missing_docs)]

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_transport::PendingTable;
use mcp_transport::RawResult;

fn pending(c: &mut Criterion) {
    let mut g = c.benchmark_group("pending");
    g.bench_function("register_complete", |b| {
        let table = PendingTable::new();
        b.iter(|| {
            let mut w = table.register("tools/call", false);
            assert!(table.complete(
                &w.id,
                Ok(RawResult::new(bytes::Bytes::from_static(b"null")))
            ));
            w.done.try_recv().unwrap().unwrap()
        })
    });
    g.bench_function("register_complete_256_outstanding", |b| {
        let table = PendingTable::new();
        let _outstanding: Vec<_> = (0..256)
            .map(|_| table.register("tools/call", false))
            .collect();
        b.iter(|| {
            let mut w = table.register("tools/call", false);
            assert!(table.complete(
                &w.id,
                Ok(RawResult::new(bytes::Bytes::from_static(b"null")))
            ));
            w.done.try_recv().unwrap().unwrap()
        })
    });
    g.bench_function("register_complete_2_threads", |b| {
        b.iter_custom(|iters| {
            let table = Arc::new(PendingTable::new());
            let start = std::time::Instant::now();
            let worker = |table: Arc<PendingTable>| {
                move || {
                    for _ in 0..iters {
                        let mut w = table.register("tools/call", false);
                        table.complete(
                            &w.id,
                            Ok(RawResult::new(bytes::Bytes::from_static(b"null"))),
                        );
                        let _ = w.done.try_recv();
                    }
                }
            };
            let a = std::thread::spawn(worker(table.clone()));
            worker(table)();
            a.join().unwrap();
            start.elapsed() / 2
        })
    });
    g.finish();
}

criterion_group!(benches, pending);
criterion_main!(benches);
