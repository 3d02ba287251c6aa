//! The stdout line framer (`LineFramer::push`): 4 MiB of response lines of
//! 200 B and 100 KiB, fed in 64 KiB reads. `cargo bench -p mcpio-transport-stdio`.
#![allow(missing_docs)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcp_transport_stdio::framing::{Frame, LineFramer};

fn stream(line_len: usize, total: usize) -> Vec<u8> {
    let mut line = vec![b'x'; line_len];
    line.push(b'\n');
    line.iter()
        .copied()
        .cycle()
        .take(total / (line_len + 1) * (line_len + 1))
        .collect()
}

fn framer(c: &mut Criterion) {
    let mut g = c.benchmark_group("line_framer");
    for (name, line_len) in [("lines_200B", 200), ("lines_100KiB", 100 * 1024)] {
        let input = stream(line_len, 4 << 20);
        g.throughput(Throughput::Bytes(input.len() as u64));
        g.bench_function(name, |b| {
            let mut out: Vec<Frame> = Vec::new();
            b.iter(|| {
                let mut f = LineFramer::new(16 << 20);
                let mut n = 0;
                for chunk in input.chunks(64 * 1024) {
                    f.push(chunk, &mut out);
                    n += out.len();
                    out.clear();
                }
                n
            })
        });
    }
    g.finish();
}

criterion_group!(benches, framer);
criterion_main!(benches);
