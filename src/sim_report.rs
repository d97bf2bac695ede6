//! What `homa-nic sim` prints and writes after a run: the slowdown table, the counters of
//! the engines, NICs or baseline, the comparison with the SIGCOMM'18 data, the JSON and the
//! chart.

use crate::traffic;
use homa_nic::plot::{Series, slowdown_chart};
use homa_sim::baseline::TransportReport;
use homa_sim::cluster::{BucketRow, NicReport, Report};
use homa_sim::fabric::Topology;
use homa_sim::stats;
use serde_json::json;
use std::io::Write;

/// What the run adds to the cluster's report.
pub(crate) struct RunInfo {
    /// The Homa engine, or the baseline transport's name.
    pub(crate) engine: &'static str,
    /// A baseline's transport counters (`None`: Homa ran).
    pub(crate) baseline: Option<TransportReport>,
    /// The protocol of the SIGCOMM'18 data this run compares with, if the data has it.
    pub(crate) paper_protocol: Option<&'static str>,
    /// Median round trip of a small RPC on the idle cluster.
    pub(crate) small_rpc_rtt_ps: Option<u64>,
    /// Its request and response size (100 B, or the workload's largest if smaller).
    pub(crate) small_rpc_bytes: u32,
}

/// The rows the paper's tables quote (smallest bucket and the buckets holding the P50, P90
/// and P99 message): bucket, max_bytes, our p99, the paper's p99.
fn paper_comparison(r: &Report, run: &RunInfo) -> Vec<(&'static str, u32, Option<f64>, f64)> {
    // Only a protocol the data has, on the paper's own topology, is comparable.
    let Some(protocol) = run.paper_protocol else {
        return Vec::new();
    };
    if r.hosts != Topology::paper().num_hosts() {
        return Vec::new();
    }
    let Some(load) = stats::paper_load_key(r.load) else {
        return Vec::new();
    };
    let Some(keys) = stats::paper_percentile_buckets(&r.workload, load) else {
        return Vec::new();
    };
    [
        ("smallest", keys.smallest),
        ("P50", keys.p50),
        ("P90", keys.p90),
        ("P99", keys.p99),
    ]
    .into_iter()
    .filter_map(|(name, max_bytes)| {
        let paper = stats::paper_row(protocol, &r.workload, load, max_bytes)?;
        let ours = r.buckets.iter().find(|b| b.max_bytes == max_bytes);
        Some((name, max_bytes, ours.map(|b| b.p99_slowdown), paper.p99))
    })
    .collect()
}

pub(crate) fn chart(r: &Report, run: &RunInfo) -> String {
    let engine = match run.baseline {
        None => format!("homa-nic {}", run.engine),
        Some(_) => run.engine.to_string(),
    };
    let ours = |label: &str, color, dashed, f: fn(&homa_sim::cluster::BucketRow) -> f64| Series {
        label: label.into(),
        color,
        dashed,
        points: r
            .buckets
            .iter()
            .map(|b| (f64::from(b.max_bytes), f(b)))
            .collect(),
    };
    let mut series = vec![
        ours(&format!("p99 ({engine})"), "#c0392b", false, |b| {
            b.p99_slowdown
        }),
        ours(&format!("p50 ({engine})"), "#2471a3", false, |b| {
            b.p50_slowdown
        }),
    ];
    let paper_rows = stats::paper_load_key(r.load)
        .filter(|_| r.hosts == Topology::paper().num_hosts())
        .map(|load| {
            r.buckets
                .iter()
                .filter_map(|b| {
                    stats::paper_row(run.paper_protocol?, &r.workload, load, b.max_bytes)
                })
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    if !paper_rows.is_empty() {
        let paper = |label: &str, color, f: fn(&stats::PaperRow) -> f64| Series {
            label: label.into(),
            color,
            dashed: true,
            points: paper_rows
                .iter()
                .map(|p| (f64::from(p.max_bytes), f(p)))
                .collect(),
        };
        series.push(paper("p99 (SIGCOMM'18)", "#c0392b", |p| p.p99));
        series.push(paper("p50 (SIGCOMM'18)", "#2471a3", |p| p.p50));
    }
    let title = format!(
        "{} slowdown, {} at {:.0}% load, {} hosts",
        if run.baseline.is_some() {
            run.engine
        } else {
            "Homa"
        },
        r.workload,
        r.load * 100.0,
        r.hosts
    );
    slowdown_chart(&title, &series)
}

pub(crate) fn print_report(out: &mut impl Write, r: &Report, run: &RunInfo) -> std::io::Result<()> {
    // The paper's columns are Homa's: only a Homa run on its topology compares with them.
    let paper = stats::paper_load_key(r.load)
        .filter(|_| r.hosts == Topology::paper().num_hosts() && run.paper_protocol.is_some());
    let head = if paper.is_some() {
        "  paper_p50 paper_p99"
    } else {
        ""
    };
    writeln!(
        out,
        "{:>10} {:>8} {:>9} {:>9}{head}",
        "max_bytes", "count", "p50", "p99"
    )?;
    for b in &r.buckets {
        let row =
            paper.and_then(|l| stats::paper_row(run.paper_protocol?, &r.workload, l, b.max_bytes));
        let tail = row.map_or(String::new(), |p| {
            format!("  {:>9.2} {:>9.2}", p.p50, p.p99)
        });
        writeln!(
            out,
            "{:>10} {:>8} {:>9.2} {:>9.2}{tail}",
            b.max_bytes, b.count, b.p50_slowdown, b.p99_slowdown
        )?;
    }
    let ranges: Vec<String> = r
        .ranges
        .iter()
        .map(|b| {
            let bound = match b.max_bytes {
                u32::MAX => "larger".to_string(),
                m => format!("<= {m} B"),
            };
            format!(
                "{bound}: {} messages, p50 {:.2}, p99 {:.2}",
                b.count, b.p50_slowdown, b.p99_slowdown
            )
        })
        .collect();
    if !ranges.is_empty() {
        writeln!(out, "\nby size range: {}", ranges.join("; "))?;
    }
    if let Some(c) = &r.collective {
        writeln!(out, "{}", traffic::describe(c))?;
    }
    writeln!(
        out,
        "{} messages measured ({} generated) on {} hosts, workload {}, load {}",
        r.messages, r.generated, r.hosts, r.workload, r.load
    )?;
    writeln!(
        out,
        "simulated {:.3} ms in {:.1} s wall: {:.0} packets/s, {} packet-hops",
        r.simulated_seconds * 1e3,
        r.wall_seconds,
        r.packets_per_wall_second(),
        r.fabric.packet_hops
    )?;
    let sent: Vec<String> = r
        .packets_by_type
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(t, n)| format!("{t} {n}"))
        .collect();
    writeln!(out, "packets sent: {}", sent.join(", "))?;
    writeln!(
        out,
        "switch drops {}, injected losses {}, max switch queue {} B, timeouts {}",
        r.fabric.buffer_drops,
        r.fabric.injected_losses,
        r.fabric.max_switch_queue_bytes,
        r.timeouts
    )?;
    writeln!(
        out,
        "achieved load {:.3} (offered {})",
        r.achieved_load, r.load
    )?;
    match &run.baseline {
        None => writeln!(
            out,
            "engine {}: RPCs completed {}, failed {}, payload errors {}",
            run.engine, r.completed, r.rpcs_failed, r.payload_errors
        )?,
        Some(t) => writeln!(
            out,
            "transport {}: messages completed {} {}; segments {} ({} sent again: {} fast \
             retransmits, {} timeouts); ACKs {}; ECN marks {}, window cuts for them {}",
            run.engine,
            r.completed,
            match t.connections {
                0 => "as one flow each".to_string(),
                n => format!("over {n} connections"),
            },
            t.segments,
            t.retransmits,
            t.fast_retransmits,
            t.timeouts,
            t.acks,
            r.fabric.ecn_marks,
            t.ecn_reductions
        )?,
    }
    if let Some(rtt) = run.small_rpc_rtt_ps {
        let cycles = r
            .nic
            .as_ref()
            .map(|n| format!(" = {} cycles at {} MHz", rtt_cycles(rtt, n), n.clock_mhz))
            .unwrap_or_default();
        writeln!(
            out,
            "small RPC round trip ({} B request and response, idle network, median): {} ns{cycles}",
            run.small_rpc_bytes,
            rtt / 1_000
        )?;
    }
    if let Some(g) = &r.grant_nic {
        writeln!(
            out,
            "model NICs (the hardware's message table and grant queue references): GRANTs \
             decided {} ({} FIFO); table collisions {}, holes forgotten {}; releases {}; messages \
             granted by host software {} ({} of them after the NIC's silence; {} GRANTs)",
            g.grants_sent,
            g.fifo_grants,
            g.collisions,
            g.holes_forgotten,
            g.releases,
            g.grant_fallbacks,
            g.grant_fallbacks_silent,
            g.software_grants
        )?;
    }
    if let Some(n) = &r.nic {
        writeln!(
            out,
            "NICs (Verilated {} per host, {} MHz, PCIe {} ns each way): {} cycles \
             clocked; frames in {} (dropped by the MAC, FIFO full: {}), parser ok {} / dropped {}; GRANTs built in hardware {} \
             ({} FIFO); grant slots full {}, table collisions {}, holes forgotten {}; releases {}; messages \
             granted by host software {} ({} of them after the NIC's silence; {} GRANTs); \
             payloads DMAed into host buffers {}, \
             dropped for want of a buffer {}; DMA faults {}; ACK entries a completion could not \
             carry {}; packets rebuilt from completions that differ from the wire {}; DATA frames \
             built in hardware {} from {} TX descriptors (refused or not posted: {}; RETRANSMITs \
             another already held: {}), GRANTs \
             matching no outbound message {}, dropped by a full park queue {}; most messages \
             parked at once on one NIC {} (parks refused, no free way for the key: {}); \
             the hosts' drivers wrote {} registers and read {} (each read a PCIe round trip) \
             and pushed {} 64-byte words into on-chip TX memory",
            n.core,
            n.clock_mhz,
            n.pcie_ns,
            n.cycles,
            n.frames_in,
            n.mac_drops,
            n.frames_ok,
            n.frames_dropped,
            n.grants_sent,
            n.fifo_grants,
            n.table_full,
            n.collisions,
            n.holes_forgotten,
            n.releases,
            n.grant_fallbacks,
            n.grant_fallbacks_silent,
            n.software_grants,
            n.rx_dma,
            n.rx_no_buffer,
            n.dma_faults,
            n.acks_not_carried,
            n.parse_mismatches,
            n.data_frames,
            n.tx_descriptors,
            n.tx_errors,
            n.retransmits_covered,
            n.grants_unmatched,
            n.grants_dropped,
            n.parked_most,
            n.park_collisions,
            n.bus_writes,
            n.bus_reads,
            n.pushes
        )?;
    }
    let rows = paper_comparison(r, run);
    if !rows.is_empty() {
        writeln!(
            out,
            "\np99 slowdown against SIGCOMM'18 ({}, same workload and load):",
            run.paper_protocol.unwrap_or("-")
        )?;
        writeln!(
            out,
            "{:>9} {:>10} {:>8} {:>8} {:>7}",
            "bucket", "max_bytes", "ours", "paper", "ratio"
        )?;
        for (name, max_bytes, ours, paper) in rows {
            match ours {
                Some(o) => writeln!(
                    out,
                    "{name:>9} {max_bytes:>10} {o:>8.2} {paper:>8.2} {:>7.2}",
                    o / paper
                )?,
                None => writeln!(
                    out,
                    "{name:>9} {max_bytes:>10} {:>8} {paper:>8.2} {:>7}",
                    "-", "-"
                )?,
            }
        }
    }
    Ok(())
}

/// A round trip in NIC clock cycles.
fn rtt_cycles(rtt_ps: u64, n: &NicReport) -> u64 {
    rtt_ps * u64::from(n.clock_mhz) / 1_000_000
}

/// Size buckets or ranges as JSON rows.
pub(crate) fn rows_json(rows: &[BucketRow]) -> Vec<serde_json::Value> {
    rows.iter()
        .map(|b| {
            json!({
                "max_bytes": b.max_bytes,
                "count": b.count,
                "p50_slowdown": b.p50_slowdown,
                "p99_slowdown": b.p99_slowdown,
                "mean_slowdown": b.mean_slowdown,
            })
        })
        .collect()
}

pub(crate) fn report_json(r: &Report, run: &RunInfo) -> serde_json::Value {
    let buckets = rows_json(&r.buckets);
    let comparison: Vec<_> = paper_comparison(r, run)
        .into_iter()
        .map(|(name, max_bytes, ours, paper)| {
            json!({
                "bucket": name,
                "max_bytes": max_bytes,
                "p99_slowdown": ours,
                "paper_p99_slowdown": paper,
            })
        })
        .collect();
    json!({
        "workload": r.workload,
        "load": r.load,
        "hosts": r.hosts,
        "messages": r.messages,
        "wall_seconds": r.wall_seconds,
        "simulated_seconds": r.simulated_seconds,
        "packets_per_wall_second": r.packets_per_wall_second(),
        "achieved_load": r.achieved_load,
        "switch_drops": r.fabric.buffer_drops,
        "timeouts": r.timeouts,
        "payload_errors": r.payload_errors,
        "engine": run.engine,
        "transport": if run.baseline.is_some() { run.engine } else { "homa" },
        "ecn_marks": r.fabric.ecn_marks,
        "baseline": run.baseline.as_ref().map(|t| json!({
            "connections": t.connections,
            "segments": t.segments,
            "retransmits": t.retransmits,
            "fast_retransmits": t.fast_retransmits,
            "timeouts": t.timeouts,
            "acks": t.acks,
            "ecn_reductions": t.ecn_reductions,
        })),
        "rpcs": r.completed,
        "rpcs_failed": r.rpcs_failed,
        "packets": packets_json(r),
        "stopped": r.stopped.as_ref().map(|s| s.to_string()),
        "small_rpc_rtt_ns": run.small_rpc_rtt_ps.map(|p| p as f64 / 1_000.0),
        "small_rpc_rtt_cycles": run
            .small_rpc_rtt_ps
            .zip(r.nic.as_ref())
            .map(|(p, n)| rtt_cycles(p, n)),
        "nic": r.nic.as_ref().map(nic_json),
        "grant_nic": r.grant_nic.as_ref().map(|g| json!({
            "grants_sent": g.grants_sent,
            "fifo_grants": g.fifo_grants,
            "collisions": g.collisions,
            "holes_forgotten": g.holes_forgotten,
            "releases": g.releases,
            "grant_fallbacks": g.grant_fallbacks,
            "grant_fallbacks_silent": g.grant_fallbacks_silent,
            "software_grants": g.software_grants,
        })),
        "buckets": buckets,
        "ranges": rows_json(&r.ranges),
        "paper_comparison": comparison,
        "collective": r.collective.as_ref().map(traffic::to_json),
    })
}

/// Packets the hosts and NICs sent, by type: every type named, zeros included.
fn packets_json(r: &Report) -> serde_json::Value {
    let map: serde_json::Map<String, serde_json::Value> = r
        .packets_by_type
        .iter()
        .map(|(t, n)| ((*t).to_string(), json!(n)))
        .collect();
    serde_json::Value::Object(map)
}

/// The NICs' counters as JSON: the receive side and the transmit side (two objects merged,
/// one `json!` would pass the macro's recursion limit).
fn nic_json(n: &NicReport) -> serde_json::Value {
    let mut v = json!({
        "core": n.core,
        "clock_mhz": n.clock_mhz,
        "pcie_ns": n.pcie_ns,
        "cycles": n.cycles,
        "frames_in": n.frames_in,
        "frames_ok": n.frames_ok,
        "frames_dropped": n.frames_dropped,
        "grants_sent": n.grants_sent,
        "fifo_grants": n.fifo_grants,
        "table_full": n.table_full,
        "collisions": n.collisions,
        "holes_forgotten": n.holes_forgotten,
        "releases": n.releases,
        "grant_fallbacks": n.grant_fallbacks,
        "grant_fallbacks_silent": n.grant_fallbacks_silent,
        "software_grants": n.software_grants,
        "parse_mismatches": n.parse_mismatches,
        "rx_dma": n.rx_dma,
        "rx_no_buffer": n.rx_no_buffer,
        "dma_faults": n.dma_faults,
        "mac_drops": n.mac_drops,
        "acks_not_carried": n.acks_not_carried,
    });
    let tx = json!({
        "data_frames": n.data_frames,
        "tx_descriptors": n.tx_descriptors,
        "tx_errors": n.tx_errors,
        "retransmits_covered": n.retransmits_covered,
        "grants_unmatched": n.grants_unmatched,
        "grants_dropped": n.grants_dropped,
        "parked_most": n.parked_most,
        "park_collisions": n.park_collisions,
        "bus_writes": n.bus_writes,
        "bus_reads": n.bus_reads,
        "pushes": n.pushes,
    });
    if let (Some(v), serde_json::Value::Object(tx)) = (v.as_object_mut(), tx) {
        v.extend(tx);
    }
    v
}
