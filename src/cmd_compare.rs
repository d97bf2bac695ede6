//! `homa-nic compare`: one workload under several transports and seeds, side by side.
//!
//! Every transport carries the same messages for a seed (sizes, destinations, arrival
//! times) over the same fabric; each statistic is the median over the seeds of that seed's
//! percentile, and each ratio divides a transport's by the reference's (the first transport
//! listed, Homa by default).

use anyhow::{Context, Result};
use homa_nic::plot::{Series, slowdown_chart_log};
use homa_sim::cluster::{BucketRow, Pattern};
use homa_sim::collective::CollectiveReport;
use homa_sim::fabric::Topology;
use homa_sim::preset::Preset;
use homa_sim::time::MS;
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;

use crate::cmd_sim::{PresetArg, TopologyArg, TransportArg, make_parent, watchdog};
use crate::matrix::{self, Column, Scenario, median};
use crate::sim_report::rows_json;
use crate::traffic::{self, Traffic};

#[derive(Debug, clap::Args)]
pub(crate) struct CompareArgs {
    /// Transports, comma-separated; the first is the reference of every ratio.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "homa,tcp,dctcp"
    )]
    transports: Vec<TransportArg>,
    /// Message sizes: w1..w5 (the Homa paper's workloads) or fixed:BYTES; or a training
    /// job's collectives: allreduce:hosts=N,bucket=SIZE,buckets=B,compute=TIME[,steps=S]
    /// [,algo=ring|tree] or alltoall:... (docs/baselines.md).
    #[arg(long, default_value = "w3")]
    workload: String,
    /// With a training job: RPCs of these sizes (w1..w5, fixed:BYTES) beside it, at --load.
    #[arg(long)]
    background: Option<String>,
    /// Offered load on every host link, strictly between 0 and 1 (Homa's wire bytes: every
    /// transport gets the same messages).
    #[arg(long, default_value_t = 0.5)]
    load: f64,
    /// Hosts on one switch (ignored with --topology paper) [default: 16, or the training
    /// job's].
    #[arg(long)]
    hosts: Option<usize>,
    /// `paper`: the SIGCOMM'18 topology (144 hosts); `single`: --hosts on one switch.
    #[arg(long, value_enum, default_value_t = TopologyArg::Single)]
    topology: TopologyArg,
    /// Messages measured per run (a tenth more warm the network up).
    #[arg(long, default_value_t = 5_000)]
    messages: u64,
    /// Runs per transport, with seeds 1 to N.
    #[arg(long, default_value_t = 3)]
    seeds: u64,
    /// Homa parameters (and the fabric's delays) to start from.
    #[arg(long, value_enum, default_value_t = PresetArg::Paper)]
    preset: PresetArg,
    /// Per-port switch buffer in bytes, for every transport (default: unlimited, as in the
    /// paper).
    #[arg(long)]
    buffer_bytes: Option<u64>,
    /// DCTCP's switch marking threshold K in bytes [default: 65 full-size packets per
    /// 10 Gb/s of host link].
    #[arg(long)]
    ecn_threshold_bytes: Option<u64>,
    /// TCP connections per ordered host pair (--transport tcp|dctcp): each message goes to
    /// the one with the fewest bytes outstanding, as a connection pool would send it.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    tcp_connections: u16,
    /// Drop this fraction of packets on the last hop (0 to <1).
    #[arg(long, default_value_t = 0.0)]
    loss: f64,
    /// Incast: every other host sends to host 0; --load is host 0's link load.
    #[arg(long)]
    incast: bool,
    /// Stop a run after this much simulated time (milliseconds).
    #[arg(long, default_value_t = 60_000)]
    time_limit_ms: u64,
    /// Stop a run when no message completes for this much simulated time (milliseconds).
    #[arg(long, default_value_t = 1_000.0)]
    stall_ms: f64,
    /// Runs at once [default: the machine's cores].
    #[arg(long)]
    jobs: Option<usize>,
    /// Also write every run and the medians as JSON to FILE.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Also draw p99 (solid) and p50 (dashed) slowdown by size per transport as SVG.
    #[arg(long)]
    plot: Option<PathBuf>,
}

pub(crate) fn run(args: CompareArgs) -> Result<()> {
    if args.transports.is_empty() {
        anyhow::bail!(
            "--transports lists no transport: name at least one of homa, tcp, dctcp, pfabric, pias"
        );
    }
    if args.seeds == 0 {
        anyhow::bail!("invalid --seeds 0: allowed at least 1 run per transport");
    }
    let mut seen = Vec::new();
    for t in &args.transports {
        if seen.contains(t) {
            anyhow::bail!("--transports names {t:?} twice");
        }
        seen.push(*t);
    }
    let traffic = Traffic::parse(&args.workload, args.background.as_deref(), args.load)?;
    let (workload, collective) = (traffic.workload.clone(), traffic.collective);
    let hosts = args.hosts.unwrap_or(collective.map_or(16, |c| c.hosts));
    let topology = match args.topology {
        TopologyArg::Paper => Topology::paper(),
        TopologyArg::Single => Topology::SingleSwitch { hosts },
    };
    let watchdog = watchdog(args.stall_ms, None)?;
    let (pattern, load) = if args.incast {
        let senders = topology.num_hosts().saturating_sub(1);
        if senders == 0 {
            anyhow::bail!("--incast needs at least 2 hosts (--hosts)");
        }
        (Pattern::Incast { target: 0 }, traffic.load / senders as f64)
    } else {
        (Pattern::Uniform, traffic.load)
    };
    for path in [&args.json, &args.plot].into_iter().flatten() {
        make_parent(path)?;
    }
    let scenario = Scenario {
        topology,
        preset: Preset::from(args.preset),
        workload: workload.clone(),
        collective,
        load,
        pattern,
        messages: args.messages,
        buffer_bytes: args.buffer_bytes,
        loss: args.loss,
        ecn_threshold_bytes: args.ecn_threshold_bytes,
        tcp_connections: args.tcp_connections,
        time_limit_ps: args.time_limit_ms.saturating_mul(MS),
        watchdog,
    };
    let threads = matrix::threads(args.jobs, args.transports.len() as u64 * args.seeds);
    eprintln!(
        "homa-nic compare: {} on {} hosts, {}, {} seeds, {} runs at once",
        args.transports
            .iter()
            .map(|t| matrix::name(*t))
            .collect::<Vec<_>>()
            .join(", "),
        topology.num_hosts(),
        traffic.summary(&args.workload, args.messages),
        args.seeds,
        threads
    );
    let columns = matrix::run_all(&scenario, &args.transports, args.seeds, threads)?;
    let title = format!(
        "{}{}, {} hosts, median of {} seeds",
        collective.map_or(workload.name(), |c| c.name()),
        match (collective, load > 0.0) {
            (Some(_), true) => format!(" with {} RPCs at load {}", workload.name(), args.load),
            (Some(_), false) => String::new(),
            (None, _) => format!(", load {}", args.load),
        },
        topology.num_hosts(),
        args.seeds
    );
    match print(&mut std::io::stdout().lock(), &title, &columns) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other.context("failed to write to standard output")?,
    }
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&to_json(&args, &columns))? + "\n";
        std::fs::write(path, text)
            .with_context(|| format!("failed to write {}", path.display()))?;
    }
    if let Some(path) = &args.plot {
        std::fs::write(path, chart(&title, &columns))
            .with_context(|| format!("failed to write {}", path.display()))?;
    }
    let stopped: Vec<String> = columns
        .iter()
        .flat_map(|c| {
            c.runs.iter().filter_map(move |r| {
                let s = r.report.stopped.as_ref()?;
                Some(format!("{} seed {}: {s}", c.name, r.seed))
            })
        })
        .collect();
    if !stopped.is_empty() {
        anyhow::bail!(
            "{} runs stopped early (their rows hold what they measured):\n{}\n(--stall-ms and \
             --time-limit-ms set the limits)",
            stopped.len(),
            stopped.join("\n")
        );
    }
    Ok(())
}

fn range_name(max_bytes: u32, previous: Option<u32>) -> String {
    let kb = |b: u32| {
        if b >= 1_000_000 {
            format!("{} MB", b / 1_000_000)
        } else {
            format!("{} KB", b / 1_000)
        }
    };
    match (previous, max_bytes) {
        (None, b) => format!("<= {}", kb(b)),
        (Some(p), u32::MAX) => format!("> {}", kb(p)),
        (Some(p), b) => format!("{} - {}", kb(p), kb(b)),
    }
}

/// The ratio of `v` to the reference column's value in the same row, formatted.
fn ratio(v: f64, reference: Option<f64>) -> String {
    match reference {
        Some(r) if r > 0.0 => format!("({:.1}x)", v / r),
        _ => String::new(),
    }
}

fn print(out: &mut impl Write, title: &str, columns: &[Column]) -> std::io::Result<()> {
    let reference = &columns[0];
    writeln!(out, "{title}; ratios to {}", reference.name)?;
    if reference.runs.iter().any(|r| r.report.collective.is_some()) {
        steps(out, columns)?;
    }
    if reference.ranges.is_empty() {
        return totals(out, columns);
    }
    type Pick = fn(&BucketRow) -> f64;
    let stats: [(&str, Pick); 2] = [("p50", |r| r.p50_slowdown), ("p99", |r| r.p99_slowdown)];
    // Size ranges first: the summary most readers want.
    writeln!(out, "\nslowdown by size range")?;
    write!(out, "{:>16} {:>8}", "range", "stat")?;
    for c in columns {
        write!(out, " {:>20}", c.name)?;
    }
    writeln!(out)?;
    let mut previous = None;
    for r in &reference.ranges {
        for (stat, pick) in stats {
            write!(out, "{:>16} {stat:>8}", range_name(r.max_bytes, previous))?;
            let base = Some(pick(r));
            for c in columns {
                match c.ranges.iter().find(|x| x.max_bytes == r.max_bytes) {
                    Some(x) => {
                        let cell = format!("{:.2} {}", pick(x), ratio(pick(x), base));
                        write!(out, " {:>20}", cell.trim_end())?
                    }
                    None => write!(out, " {:>20}", "-")?,
                }
            }
            writeln!(out)?;
        }
        previous = Some(r.max_bytes);
    }
    for (stat, pick) in stats {
        writeln!(out, "\n{stat} slowdown by message size")?;
        write!(out, "{:>10}", "max_bytes")?;
        for c in columns {
            write!(out, " {:>20}", c.name)?;
        }
        writeln!(out)?;
        for r in &reference.buckets {
            write!(out, "{:>10}", r.max_bytes)?;
            let base = Some(pick(r));
            for c in columns {
                match c.buckets.iter().find(|x| x.max_bytes == r.max_bytes) {
                    Some(x) => {
                        let cell = format!("{:.2} {}", pick(x), ratio(pick(x), base));
                        write!(out, " {:>20}", cell.trim_end())?
                    }
                    None => write!(out, " {:>20}", "-")?,
                }
            }
            writeln!(out)?;
        }
    }
    totals(out, columns)
}

/// The training job's step times per transport: the median over seeds of each seed's p50
/// and p99 step, and of its share waiting on the network.
fn steps(out: &mut impl Write, columns: &[Column]) -> std::io::Result<()> {
    let stat = |c: &Column, f: fn(&CollectiveReport) -> f64| -> Option<f64> {
        let v: Vec<f64> = c
            .runs
            .iter()
            .filter_map(|r| r.report.collective.as_ref().map(f))
            .collect();
        median(v)
    };
    type Pick = fn(&CollectiveReport) -> f64;
    let rows: [(&str, Pick); 3] = [
        ("p50 step (ms)", |c| traffic::ms(c.p50_ps)),
        ("p99 step (ms)", |c| traffic::ms(c.p99_ps)),
        ("network wait (%)", |c| 100.0 * c.network_share),
    ];
    if let Some(c) = columns[0]
        .runs
        .iter()
        .find_map(|r| r.report.collective.as_ref())
    {
        writeln!(out, "\ntraining job {} ({} steps per run)", c.name, c.steps)?;
    }
    write!(out, "{:>18}", "")?;
    for c in columns {
        write!(out, " {:>20}", c.name)?;
    }
    writeln!(out)?;
    for (name, pick) in rows {
        write!(out, "{name:>18}")?;
        let base = stat(&columns[0], pick);
        for c in columns {
            match stat(c, pick) {
                Some(v) => {
                    let cell = format!("{v:.3} {}", ratio(v, base));
                    write!(out, " {:>20}", cell.trim_end())?
                }
                None => write!(out, " {:>20}", "-")?,
            }
        }
        writeln!(out)?;
    }
    Ok(())
}

/// Per transport: achieved load, queues, drops and wall time over its runs.
fn totals(out: &mut impl Write, columns: &[Column]) -> std::io::Result<()> {
    writeln!(out)?;
    for c in columns {
        let achieved: Vec<String> = c
            .runs
            .iter()
            .map(|r| format!("{:.3}", r.report.achieved_load))
            .collect();
        let wall: f64 = c.runs.iter().map(|r| r.report.wall_seconds).sum();
        let drops: u64 = c.runs.iter().map(|r| r.report.fabric.buffer_drops).sum();
        let queue = c
            .runs
            .iter()
            .map(|r| r.report.fabric.max_switch_queue_bytes)
            .max()
            .unwrap_or(0);
        writeln!(
            out,
            "{}: achieved load {} (per seed), max switch queue {queue} B, switch drops {drops}, \
             {wall:.1} s wall",
            c.name,
            achieved.join(" ")
        )?;
    }
    Ok(())
}

fn to_json(args: &CompareArgs, columns: &[Column]) -> serde_json::Value {
    let transports: Vec<_> = columns
        .iter()
        .map(|c| {
            let runs: Vec<_> = c
                .runs
                .iter()
                .map(|r| {
                    json!({
                        "seed": r.seed,
                        "messages": r.report.messages,
                        "achieved_load": r.report.achieved_load,
                        "simulated_seconds": r.report.simulated_seconds,
                        "wall_seconds": r.report.wall_seconds,
                        "switch_drops": r.report.fabric.buffer_drops,
                        "ecn_marks": r.report.fabric.ecn_marks,
                        "max_switch_queue_bytes": r.report.fabric.max_switch_queue_bytes,
                        "stopped": r.report.stopped.as_ref().map(|s| s.to_string()),
                        "collective": r.report.collective.as_ref().map(traffic::to_json),
                        "buckets": rows_json(&r.report.buckets),
                        "ranges": rows_json(&r.report.ranges),
                    })
                })
                .collect();
            json!({
                "transport": c.name,
                "buckets": rows_json(&c.buckets),
                "ranges": rows_json(&c.ranges),
                "runs": runs,
            })
        })
        .collect();
    json!({
        "workload": args.workload,
        "load": args.load,
        "messages": args.messages,
        "seeds": args.seeds,
        "reference": columns[0].name,
        "transports": transports,
    })
}

fn chart(title: &str, columns: &[Column]) -> String {
    const COLORS: [&str; 6] = [
        "#c0392b", "#2471a3", "#27ae60", "#8e44ad", "#d35400", "#7f8c8d",
    ];
    let mut series = Vec::new();
    for (i, c) in columns.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        for (stat, dashed, pick) in [
            (
                "p99",
                false,
                (|r: &BucketRow| r.p99_slowdown) as fn(&BucketRow) -> f64,
            ),
            ("p50", true, |r: &BucketRow| r.p50_slowdown),
        ] {
            series.push(Series {
                label: format!("{stat} {}", c.name),
                color,
                dashed,
                points: c
                    .buckets
                    .iter()
                    .map(|b| (f64::from(b.max_bytes), pick(b)))
                    .collect(),
            });
        }
    }
    slowdown_chart_log(title, &series)
}
