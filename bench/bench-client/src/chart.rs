//! The report's chart: every client's figures as ratios to the floor's, per
//! transport and workload, drawn with `plotters` as an SVG written next to
//! the report.
//!
//! A bar above 1 is better than the floor (the floor's time / the client's,
//! or the client's rate / the floor's; memory: the floor's peak / the
//! client's). tools/list is set against the parse floor (the floor's
//! listing plus `serde_json::from_slice::<Value>` and its drop), since the bare floor
//! does not parse. The y axis is logarithmic: the clients span 0.01× to 2×.

use std::path::Path;

use plotters::prelude::*;

use crate::report::{CLIENTS, METRICS, Results, TRANSPORTS, advantage, cell_of, row};

/// The workloads drawn, with a short label each.
const DRAWN: [(usize, &str); 9] = [
    (row::LAT_SMALL_P50, "latency 100 B"),
    (row::LAT_LARGE_P50, "latency 100 KiB"),
    (row::TPUT_1, "1 in flight"),
    (row::TPUT_16, "16 in flight"),
    (row::TPUT_256, "256 in flight"),
    (row::TPUT_256_LARGE, "256 × 100 KiB"),
    (row::LIST, "tools/list"),
    (row::PEAK_LARGE_256, "RSS 256 × 100 KiB"),
    (row::PEAK, "RSS, suite"),
];

/// One colour per client, the floor excluded (it is the line at 1).
const COLOURS: [RGBColor; 4] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0x94, 0x67, 0xbd),
];

/// Writes the chart of the runs against `server` to `path` (SVG).
///
/// Errors: nothing to draw (no client beside the floor measured), or the
/// file could not be written.
pub fn draw(path: &Path, results: &Results<'_>, server: &str) -> anyhow::Result<()> {
    let clients: Vec<&str> = CLIENTS.iter().copied().filter(|c| *c != "floor").collect();
    // ratios[transport][workload][client]
    let mut ratios = Vec::new();
    let (mut lo, mut hi) = (f64::MAX, f64::MIN);
    for transport in TRANSPORTS {
        let mut per_workload = Vec::new();
        for &(i, _) in &DRAWN {
            let m = &METRICS[i];
            let reference = if i == row::LIST {
                cell_of(
                    results,
                    server,
                    transport,
                    "floor",
                    &METRICS[row::LIST_PARSE_FLOOR],
                )
            } else {
                cell_of(results, server, transport, "floor", m)
            };
            let per_client: Vec<Option<f64>> = clients
                .iter()
                .map(|c| {
                    let (v, f) = (cell_of(results, server, transport, c, m)?, reference?);
                    let ratio = advantage(m, v.median, f.median);
                    (ratio.is_finite() && ratio > 0.0).then_some(ratio)
                })
                .collect();
            for r in per_client.iter().flatten() {
                lo = lo.min(*r);
                hi = hi.max(*r);
            }
            per_workload.push(per_client);
        }
        ratios.push(per_workload);
    }
    anyhow::ensure!(lo <= hi, "no client was measured against the floor");
    // Whole decades around the data, 1 always inside.
    let lo = 10f64.powf(lo.min(0.5).log10().floor());
    let hi = 10f64.powf(hi.max(2.0).log10().ceil());

    let width = 1100u32;
    let panel = 330u32;
    let root = SVGBackend::new(path, (width, panel * TRANSPORTS.len() as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    let n = DRAWN.len() as f64;
    let bar = 0.8 / clients.len() as f64;
    for (area, (transport, per_workload)) in root
        .split_evenly((TRANSPORTS.len(), 1))
        .iter()
        .zip(TRANSPORTS.iter().zip(&ratios))
    {
        let mut chart = ChartBuilder::on(area)
            .caption(
                format!(
                    "{transport}, against {server}: × the floor (above 1: better than the floor)"
                ),
                ("sans-serif", 18),
            )
            .margin(8)
            .x_label_area_size(28)
            .y_label_area_size(56)
            .build_cartesian_2d(-0.5f64..(n - 0.5), (lo..hi).log_scale())?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(DRAWN.len())
            .x_label_formatter(&|x| {
                let i = x.round();
                if (x - i).abs() > 1e-6 || i < 0.0 {
                    return String::new();
                }
                DRAWN
                    .get(i as usize)
                    .map_or(String::new(), |d| d.1.to_string())
            })
            .y_label_formatter(&|y| format!("{y}×"))
            .label_style(("sans-serif", 12))
            .draw()?;
        for (ci, client) in clients.iter().enumerate() {
            let colour = COLOURS[ci % COLOURS.len()];
            let bars: Vec<Rectangle<(f64, f64)>> = per_workload
                .iter()
                .enumerate()
                .filter_map(|(wi, per_client)| {
                    let r = per_client[ci]?;
                    let x0 = wi as f64 - 0.4 + ci as f64 * bar;
                    Some(Rectangle::new(
                        [(x0, lo), (x0 + bar * 0.9, r)],
                        colour.filled(),
                    ))
                })
                .collect();
            if bars.is_empty() {
                continue;
            }
            chart
                .draw_series(bars)?
                .label(*client)
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour.filled())
                });
        }
        // The floor.
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(-0.5, 1.0), (n - 0.5, 1.0)],
                BLACK.stroke_width(1),
            )))?
            .label("floor")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 12, y)], BLACK.stroke_width(1)));
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 12))
            .draw()?;
    }
    root.present()?;
    Ok(())
}
