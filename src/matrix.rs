//! One scenario under several transports and seeds, run in parallel: what `compare` and
//! `advise` print.
//!
//! Every transport carries the same messages for a seed (sizes, destinations, arrival
//! times) over the same fabric; per transport, each statistic is the median over the seeds
//! of that seed's value.

use anyhow::{Context, Result};
use homa_sim::baseline::pfabric::PfabricConfig;
use homa_sim::baseline::tcp::TcpConfig;
use homa_sim::baseline::{BaselineCluster, BaselineConfig, Transport, fabric_for};
use homa_sim::cluster::{
    BucketRow, Cluster, ClusterConfig, Engine, Pattern, Report, Watchdog, mean_arrival_gap_ps,
};
use homa_sim::collective::CollectiveSpec;
use homa_sim::fabric::{FabricConfig, Topology};
use homa_sim::preset::{Preset, for_engine};
use homa_sim::time::Ps;
use homa_sim::workload::Workload;
use std::sync::Mutex;

use crate::cmd_sim::{TransportArg, progress_bar};

/// What every run of a matrix shares.
#[derive(Debug, Clone)]
pub(crate) struct Scenario {
    pub topology: Topology,
    /// Homa's parameters (and the fabric's delays) start from it.
    pub preset: Preset,
    /// The Poisson messages' sizes.
    pub workload: Workload,
    /// A training job beside them.
    pub collective: Option<CollectiveSpec>,
    /// The Poisson messages' load on each host link (0: none, only with a job).
    pub load: f64,
    pub pattern: Pattern,
    /// Poisson messages measured per run.
    pub messages: u64,
    /// Per-port switch buffer (`None`: unlimited).
    pub buffer_bytes: Option<u64>,
    /// Injected loss on the last hop.
    pub loss: f64,
    /// DCTCP's marking threshold (`None`: its default for the link).
    pub ecn_threshold_bytes: Option<u64>,
    /// TCP connections per ordered host pair.
    pub tcp_connections: u16,
    pub time_limit_ps: Ps,
    pub watchdog: Watchdog,
}

/// One run's result.
pub(crate) struct Run {
    pub seed: u64,
    pub report: Report,
}

/// One transport's runs and their medians.
pub(crate) struct Column {
    pub name: &'static str,
    pub runs: Vec<Run>,
    /// Per bucket, the medians over the runs (counts summed).
    pub buckets: Vec<BucketRow>,
    /// Per size range, the same.
    pub ranges: Vec<BucketRow>,
}

/// A transport's name.
pub(crate) fn name(t: TransportArg) -> &'static str {
    t.baseline().map_or("homa", Transport::name)
}

/// Runs at once: `jobs`, or one per core, and never more than there are runs.
pub(crate) fn threads(jobs: Option<usize>, runs: u64) -> usize {
    jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, runs.max(1) as usize)
}

/// One run of `transport` with `seed`.
fn run_one(s: &Scenario, transport: TransportArg, seed: u64) -> Result<Report> {
    let (base, homa) = for_engine(s.preset, &s.workload, false, seed);
    let fabric = FabricConfig {
        loss_rate: s.loss,
        port_buffer_bytes: s.buffer_bytes,
        ..base
    };
    match transport.baseline() {
        None => {
            let config = ClusterConfig {
                topology: s.topology,
                fabric,
                homa,
                workload: s.workload.clone(),
                load: s.load,
                messages: s.messages,
                seed,
                time_limit_ps: s.time_limit_ps,
                pattern: s.pattern,
                engine: Engine::Model,
                watchdog: s.watchdog,
                collective: s.collective,
            };
            Ok(Cluster::new(config)?.run(&mut |_| {}))
        }
        Some(transport) => {
            // Without Poisson messages the gap is unused.
            let gap = if s.load > 0.0 {
                mean_arrival_gap_ps(&homa, &s.workload, s.load, fabric.host_link_bps)
            } else {
                f64::INFINITY
            };
            let config = BaselineConfig {
                transport,
                tcp: TcpConfig::default(),
                pfabric: PfabricConfig::default(),
                connections: s.tcp_connections,
                topology: s.topology,
                mean_gap_ps: gap,
                fabric: fabric_for(transport, fabric, s.ecn_threshold_bytes),
                workload: s.workload.clone(),
                load: s.load,
                messages: s.messages,
                seed,
                time_limit_ps: s.time_limit_ps,
                pattern: s.pattern,
                watchdog: s.watchdog,
                collective: s.collective,
            };
            Ok(BaselineCluster::new(config)?.run(&mut |_| {}).0)
        }
    }
}

/// Every transport with seeds 1 to `seeds`, `threads` runs at once, with a progress bar.
/// A run that cannot start is an error naming its transport and seed.
pub(crate) fn run_all(
    s: &Scenario,
    transports: &[TransportArg],
    seeds: u64,
    threads: usize,
) -> Result<Vec<Column>> {
    let jobs: Vec<(usize, u64)> = (0..transports.len())
        .flat_map(|t| (1..=seeds).map(move |seed| (t, seed)))
        .collect();
    let bar = progress_bar(jobs.len() as u64);
    let queue = Mutex::new(jobs.iter().copied());
    let results: Mutex<Vec<(usize, u64, Result<Report>)>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let Some((t, seed)) = queue.lock().expect("queue").next() else {
                        break;
                    };
                    let r = run_one(s, transports[t], seed);
                    results.lock().expect("results").push((t, seed, r));
                    bar.inc(1);
                }
            });
        }
    });
    bar.finish_and_clear();
    let mut results = results.into_inner().expect("results");
    results.sort_by_key(|(t, seed, _)| (*t, *seed));
    let mut columns: Vec<Column> = transports
        .iter()
        .map(|t| Column {
            name: name(*t),
            runs: Vec::new(),
            buckets: Vec::new(),
            ranges: Vec::new(),
        })
        .collect();
    for (t, seed, r) in results {
        let report = r.with_context(|| format!("{} run, seed {seed}", columns[t].name))?;
        columns[t].runs.push(Run { seed, report });
    }
    for c in &mut columns {
        c.buckets = medians(c.runs.iter().map(|r| &r.report.buckets));
        c.ranges = medians(c.runs.iter().map(|r| &r.report.ranges));
    }
    Ok(columns)
}

/// The median of `v` (the mean of the middle two for an even count); `None` when empty.
pub(crate) fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// Per row (by `max_bytes`), the median over runs of each statistic; counts are summed.
fn medians<'a>(runs: impl Iterator<Item = &'a Vec<BucketRow>>) -> Vec<BucketRow> {
    let mut by_size: std::collections::BTreeMap<u32, Vec<&BucketRow>> = Default::default();
    for rows in runs {
        for r in rows {
            by_size.entry(r.max_bytes).or_default().push(r);
        }
    }
    by_size
        .into_iter()
        .map(|(max_bytes, rows)| {
            let med = |f: fn(&BucketRow) -> f64| {
                median(rows.iter().map(|r| f(r)).collect()).unwrap_or(f64::NAN)
            };
            BucketRow {
                max_bytes,
                count: rows.iter().map(|r| r.count).sum(),
                p50_slowdown: med(|r| r.p50_slowdown),
                p99_slowdown: med(|r| r.p99_slowdown),
                mean_slowdown: med(|r| r.mean_slowdown),
            }
        })
        .collect()
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn median__odd_even_and_empty() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(Vec::new()), None);
    }

    #[test]
    fn medians__per_bucket_over_runs_with_counts_summed() {
        let row = |max_bytes, count, p99| BucketRow {
            max_bytes,
            count,
            p50_slowdown: 1.0,
            p99_slowdown: p99,
            mean_slowdown: 1.0,
        };
        let a = vec![row(10, 5, 2.0), row(100, 1, 9.0)];
        let b = vec![row(10, 7, 4.0)];
        let c = vec![row(10, 1, 3.0)];
        let m = medians([&a, &b, &c].into_iter());
        assert_eq!(m.len(), 2);
        assert_eq!((m[0].count, m[0].p99_slowdown), (13, 3.0));
        assert_eq!((m[1].count, m[1].p99_slowdown), (1, 9.0));
    }

    #[test]
    fn threads__at_least_one_and_no_more_than_runs() {
        assert_eq!(threads(Some(8), 3), 3);
        assert_eq!(threads(Some(0), 3), 1);
        assert!(threads(None, 100) >= 1);
    }
}
