//! `homa-nic advise`: what Homa would do for a user's traffic, against TCP and DCTCP.
//!
//! The traffic is a message-size distribution (a workload name, a CDF file, or one inferred
//! from a capture) at a load. Homa, TCP and DCTCP each carry the same messages for each
//! seed; per size range the report gives each transport's p50 and p99 slowdown (median and
//! spread over the seeds) and, against the better baseline in that range, the change Homa
//! makes in every seed. The recommendation is built from those numbers: a range counts for
//! or against Homa only when every seed agrees.

use anyhow::{Context, Result};
use homa_nic::capture::read_capture;
use homa_nic::infer::Inferred;
use homa_sim::cluster::{BucketRow, Pattern};
use homa_sim::fabric::Topology;
use homa_sim::preset::Preset;
use homa_sim::stats::SIZE_RANGES;
use homa_sim::time::MS;
use homa_sim::workload::Workload;
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;

use crate::cmd_sim::{TransportArg, make_parent, watchdog};
use crate::matrix::{self, Column, Scenario, median};

#[derive(Debug, clap::Args)]
#[command(group(
    clap::ArgGroup::new("traffic").required(true).args(["workload", "cdf", "pcap"])
))]
pub(crate) struct AdviseArgs {
    /// Message sizes by name: w1..w5 or fixed:BYTES.
    #[arg(long)]
    workload: Option<String>,
    /// Message sizes as a CDF file: lines of `size_bytes cumulative_fraction`, ascending,
    /// the last fraction 1 (the format of sim/workloads/).
    #[arg(long)]
    cdf: Option<PathBuf>,
    /// Message sizes inferred from a capture (pcap or pcapng) of the application's TCP or
    /// UDP traffic: each UDP datagram is a message; each TCP direction's new payload up to a
    /// PSH or FIN is one.
    #[arg(long)]
    pcap: Option<PathBuf>,
    /// Offered load on every host link, strictly between 0 and 1.
    #[arg(long)]
    load: f64,
    /// Runs per transport, with seeds 1 to N: the spread the advice is checked against.
    #[arg(long, default_value_t = 5)]
    seeds: u64,
    /// Hosts on one switch (10 Gb/s links, the SIGCOMM'18 delays).
    #[arg(long, default_value_t = 16)]
    hosts: usize,
    /// Messages measured per run (a tenth more warm the network up).
    #[arg(long, default_value_t = 3_000)]
    messages: u64,
    /// TCP connections per ordered host pair (1: every message to a peer in one stream).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    tcp_connections: u16,
    /// Per-port switch buffer in bytes, for every transport (default: unlimited).
    #[arg(long)]
    buffer_bytes: Option<u64>,
    /// Runs at once [default: the machine's cores].
    #[arg(long)]
    jobs: Option<usize>,
    /// Also write the numbers and the advice as JSON to FILE.
    #[arg(long)]
    json: Option<PathBuf>,
}

const TRANSPORTS: [TransportArg; 3] = [TransportArg::Homa, TransportArg::Tcp, TransportArg::Dctcp];

/// One size range's verdict against the better baseline there.
struct Verdict {
    /// Upper bound of the range (`u32::MAX` for the last).
    max_bytes: u32,
    /// Its share of the measured messages (over every seed).
    share: f64,
    /// The better baseline's name in this range (lower median p99).
    baseline: &'static str,
    /// Per seed, the baseline's p99 over Homa's: above 1, Homa is better.
    ratios: Vec<f64>,
}

impl Verdict {
    fn lo(&self) -> f64 {
        self.ratios.iter().copied().fold(f64::INFINITY, f64::min)
    }
    fn hi(&self) -> f64 {
        self.ratios.iter().copied().fold(0.0, f64::max)
    }
    /// +1: Homa better in every seed; -1: worse in every seed; 0: the seeds disagree, or
    /// fewer than two seeds measured the range.
    fn sign(&self) -> i32 {
        if self.ratios.len() < 2 {
            0
        } else if self.lo() > 1.0 {
            1
        } else if self.hi() < 1.0 {
            -1
        } else {
            0
        }
    }
}

pub(crate) fn run(args: AdviseArgs) -> Result<()> {
    if !(args.load > 0.0 && args.load < 1.0) {
        anyhow::bail!(
            "invalid --load {}: allowed a fraction strictly between 0 and 1",
            args.load
        );
    }
    if args.seeds < 2 {
        anyhow::bail!(
            "invalid --seeds {}: advice needs at least 2 runs per transport to tell a \
             difference from chance",
            args.seeds
        );
    }
    let (workload, source) = traffic(&args)?;
    if let Some(path) = &args.json {
        make_parent(path)?;
    }
    let scenario = Scenario {
        topology: Topology::SingleSwitch { hosts: args.hosts },
        preset: Preset::Paper,
        workload,
        collective: None,
        load: args.load,
        pattern: Pattern::Uniform,
        messages: args.messages,
        buffer_bytes: args.buffer_bytes,
        loss: 0.0,
        ecn_threshold_bytes: None,
        tcp_connections: args.tcp_connections,
        time_limit_ps: 60_000 * MS,
        watchdog: watchdog(1_000.0, None)?,
    };
    let threads = matrix::threads(args.jobs, TRANSPORTS.len() as u64 * args.seeds);
    eprintln!(
        "homa-nic advise: {source}; simulating Homa, TCP and DCTCP on {} hosts at load {}, {} \
         messages x {} seeds, {threads} runs at once",
        args.hosts, args.load, args.messages, args.seeds
    );
    let columns = matrix::run_all(&scenario, &TRANSPORTS, args.seeds, threads)?;
    let verdicts = verdicts(&columns);
    let advice = advice(&verdicts);
    match print(
        &mut std::io::stdout().lock(),
        &source,
        &columns,
        &verdicts,
        &advice,
    ) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other.context("failed to write to standard output")?,
    }
    if let Some(path) = &args.json {
        let v = to_json(&args, &source, &columns, &verdicts, &advice);
        std::fs::write(path, serde_json::to_string_pretty(&v)? + "\n")
            .with_context(|| format!("failed to write {}", path.display()))?;
    }
    for c in &columns {
        if let Some(r) = c.runs.iter().find(|r| r.report.stopped.is_some()) {
            anyhow::bail!(
                "the {} run with seed {} stopped early, so the advice above rests on part of \
                 its messages: {}",
                c.name,
                r.seed,
                r.report.stopped.as_ref().expect("found")
            );
        }
    }
    Ok(())
}

/// The message sizes asked for, and a sentence on where they come from.
fn traffic(args: &AdviseArgs) -> Result<(Workload, String)> {
    if let Some(w) = &args.workload {
        return Ok((Workload::parse(w)?, format!("workload {w}")));
    }
    if let Some(path) = &args.cdf {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("failed to read the CDF file {}", path.display()))?;
        let name = path.display().to_string();
        let w = Workload::from_cdf_text(&name, &text)?;
        return Ok((w, format!("sizes from {name}")));
    }
    let path = args.pcap.as_ref().expect("clap requires one of the three");
    let capture = read_capture(path)?;
    if let Some(why) = &capture.truncated {
        eprintln!(
            "homa-nic advise: note: {} is cut short ({why}); its whole frames are used",
            path.display()
        );
    }
    let inferred = Inferred::from_frames(&capture.frames);
    if inferred.sizes.is_empty() {
        anyhow::bail!(
            "{}: no TCP or UDP payload in {} frames, so no message sizes to advise on ({inferred})",
            path.display(),
            capture.frames.len()
        );
    }
    let name = format!("capture:{}", path.display());
    let w = Workload::from_points(&name, inferred.cdf())?;
    Ok((w, format!("{} from {}", inferred, path.display())))
}

fn verdicts(columns: &[Column]) -> Vec<Verdict> {
    let homa = &columns[0];
    let total: u64 = homa.ranges.iter().map(|r| r.count).sum();
    homa.ranges
        .iter()
        .map(|r| {
            // The better baseline here: the lower median p99.
            let baseline = columns[1..]
                .iter()
                .filter_map(|c| range_of(&c.ranges, r.max_bytes).map(|x| (c, x.p99_slowdown)))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(c, _)| c);
            let ratios = baseline.map_or_else(Vec::new, |b| {
                homa.runs
                    .iter()
                    .zip(&b.runs)
                    .filter_map(|(h, t)| {
                        let hp = range_of(&h.report.ranges, r.max_bytes)?.p99_slowdown;
                        let tp = range_of(&t.report.ranges, r.max_bytes)?.p99_slowdown;
                        (hp > 0.0).then_some(tp / hp)
                    })
                    .collect()
            });
            Verdict {
                max_bytes: r.max_bytes,
                share: r.count as f64 / total.max(1) as f64,
                baseline: baseline.map_or("-", |b| b.name),
                ratios,
            }
        })
        .collect()
}

/// A share as a percentage, small ones not rounded to nothing.
fn percent(share: f64) -> String {
    if share > 0.0 && share < 0.001 {
        "< 0.1 %".to_string()
    } else {
        format!("{:.1} %", 100.0 * share)
    }
}

fn range_of(rows: &[BucketRow], max_bytes: u32) -> Option<&BucketRow> {
    rows.iter().find(|r| r.max_bytes == max_bytes)
}

fn range_name(max_bytes: u32) -> String {
    let previous = SIZE_RANGES.iter().rev().find(|&&b| b < max_bytes).copied();
    let unit = |b: u32| {
        if b >= 1_000_000 {
            format!("{} MB", b / 1_000_000)
        } else {
            format!("{} KB", b / 1_000)
        }
    };
    match (previous, max_bytes) {
        (None, b) => format!("<= {}", unit(b)),
        (Some(p), u32::MAX) => format!("> {}", unit(p)),
        (Some(p), b) => format!("{}-{}", unit(p), unit(b)),
    }
}

/// The advice: a verdict line and the reasons, from the ranges every seed agrees on.
fn advice(verdicts: &[Verdict]) -> (String, Vec<String>) {
    let reason = |v: &Verdict| {
        let (lo, hi) = (v.lo(), v.hi());
        let what = format!(
            "messages {} ({} of them)",
            range_name(v.max_bytes),
            percent(v.share)
        );
        if v.ratios.len() < 2 {
            return format!(
                "{what}: too few to tell (measured in {} of the seeds)",
                v.ratios.len()
            );
        }
        match v.sign() {
            1 => format!(
                "Homa cuts the p99 slowdown of {what} by {lo:.1}x to {hi:.1}x against {} in \
                 every seed",
                v.baseline
            ),
            -1 => format!(
                "Homa raises the p99 slowdown of {what} by {:.1}x to {:.1}x against {} in every \
                 seed",
                1.0 / hi,
                1.0 / lo,
                v.baseline
            ),
            _ => format!(
                "for {what} the seeds disagree: {} over Homa's p99 ranges from {lo:.2}x to \
                 {hi:.2}x",
                v.baseline
            ),
        }
    };
    let reasons: Vec<String> = verdicts.iter().map(reason).collect();
    let better: f64 = verdicts
        .iter()
        .filter(|v| v.sign() > 0)
        .map(|v| v.share)
        .sum();
    let worse: f64 = verdicts
        .iter()
        .filter(|v| v.sign() < 0)
        .map(|v| v.share)
        .sum();
    let line = match (better > 0.0, worse > 0.0) {
        (true, false) => format!(
            "Homa: its tail latency is lower for {} of the messages and higher for none.",
            percent(better)
        ),
        (true, true) => format!(
            "Homa if the tail latency of the messages it speeds up matters more: lower for \
             {} of the messages, higher for {}.",
            percent(better),
            percent(worse)
        ),
        (false, true) => format!(
            "Stay with TCP or DCTCP: Homa's tail latency is higher for {} of the messages \
             and lower for none.",
            percent(worse)
        ),
        (false, false) => "No case for a change: no size range differs in every seed; run more \
             seeds or messages to tell."
            .to_string(),
    };
    (line, reasons)
}

fn print(
    out: &mut impl Write,
    source: &str,
    columns: &[Column],
    verdicts: &[Verdict],
    advice: &(String, Vec<String>),
) -> std::io::Result<()> {
    writeln!(out, "traffic: {source}\n")?;
    writeln!(
        out,
        "slowdown by size range: median over seeds [lowest-highest seed]"
    )?;
    write!(out, "{:>22} {:>5}", "sizes (messages)", "stat")?;
    for c in columns {
        write!(out, " {:>24}", c.name)?;
    }
    writeln!(out)?;
    type Pick = fn(&BucketRow) -> f64;
    let stats: [(&str, Pick); 2] = [("p50", |r| r.p50_slowdown), ("p99", |r| r.p99_slowdown)];
    for v in verdicts {
        for (stat, pick) in stats {
            write!(
                out,
                "{:>22} {stat:>5}",
                format!("{} ({})", range_name(v.max_bytes), percent(v.share))
            )?;
            for c in columns {
                let per_seed: Vec<f64> = c
                    .runs
                    .iter()
                    .filter_map(|r| range_of(&r.report.ranges, v.max_bytes).map(pick))
                    .collect();
                let lo = per_seed.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = per_seed.iter().copied().fold(0.0, f64::max);
                let cell = match median(per_seed) {
                    Some(m) => format!("{m:.2} [{lo:.2}-{hi:.2}]"),
                    None => "-".into(),
                };
                write!(out, " {cell:>24}")?;
            }
            writeln!(out)?;
        }
    }
    writeln!(out, "\nadvice: {}", advice.0)?;
    for r in &advice.1 {
        writeln!(out, "- {r}")?;
    }
    Ok(())
}

fn to_json(
    args: &AdviseArgs,
    source: &str,
    columns: &[Column],
    verdicts: &[Verdict],
    advice: &(String, Vec<String>),
) -> serde_json::Value {
    let ranges: Vec<_> = verdicts
        .iter()
        .map(|v| {
            let per: serde_json::Map<String, serde_json::Value> = columns
                .iter()
                .map(|c| {
                    let seeds: Vec<_> = c
                        .runs
                        .iter()
                        .filter_map(|r| range_of(&r.report.ranges, v.max_bytes))
                        .map(|x| json!({"p50_slowdown": x.p50_slowdown, "p99_slowdown": x.p99_slowdown}))
                        .collect();
                    (c.name.to_string(), json!(seeds))
                })
                .collect();
            json!({
                "max_bytes": v.max_bytes,
                "share": v.share,
                "baseline": v.baseline,
                "baseline_over_homa_p99": v.ratios,
                "verdict": match v.sign() { 1 => "homa_better", -1 => "homa_worse", _ => "undecided" },
                "per_seed": per,
            })
        })
        .collect();
    json!({
        "traffic": source,
        "load": args.load,
        "hosts": args.hosts,
        "messages": args.messages,
        "seeds": args.seeds,
        "tcp_connections": args.tcp_connections,
        "ranges": ranges,
        "advice": advice.0,
        "reasons": advice.1,
    })
}
