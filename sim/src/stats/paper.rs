//! The SIGCOMM'18 simulation results per message-size bucket (`sim/data/`, see its README),
//! for side-by-side comparison with a run.

use std::sync::OnceLock;

const TSV: &str = include_str!("../../data/sigcomm2018_sim_slowdown_by_size.tsv");

/// Workload names of the data file and their short names.
const NAMES: [(&str, &str); 6] = [
    ("w1", "FACEBOOK_KEY_VALUE"),
    ("w2", "GOOGLE_SEARCH_RPC"),
    ("w3", "GOOGLE_ALL_RPC"),
    ("w4", "FACEBOOK_HADOOP_ALL"),
    ("w5", "DCTCP"),
    ("w6", "FABRICATED_HEAVY_MIDDLE"),
];

/// One bucket of one published run.
#[derive(Debug, Clone, PartialEq)]
pub struct PaperRow {
    /// Protocol (`Homa`, `pFabric`, `pHost`, `PIAS`, `NDP`, `SRPT-Oracle`).
    pub protocol: String,
    /// Network load (0.5 or 0.8).
    pub load: f64,
    /// Workload name as in the data (e.g. `FACEBOOK_KEY_VALUE`).
    pub workload: String,
    /// Upper bound of the bucket, bytes.
    pub max_bytes: u32,
    /// Percentage of messages in the bucket.
    pub count_pct: f64,
    /// Percentage of bytes in the bucket.
    pub bytes_pct: f64,
    /// Unscheduled bytes configured for the run.
    pub unsched_bytes: u32,
    /// Mean slowdown (`None` where the data says `NA`).
    pub mean: Option<f64>,
    /// Median slowdown.
    pub p50: f64,
    /// 99th-percentile slowdown.
    pub p99: f64,
}

fn rows() -> &'static [PaperRow] {
    static ROWS: OnceLock<Vec<PaperRow>> = OnceLock::new();
    ROWS.get_or_init(|| TSV.lines().skip(1).filter_map(parse_row).collect())
}

fn parse_row(line: &str) -> Option<PaperRow> {
    let c: Vec<&str> = line.split('\t').collect();
    if c.len() != 10 {
        return None;
    }
    Some(PaperRow {
        protocol: c[0].to_string(),
        load: c[1].parse().ok()?,
        workload: c[2].to_string(),
        max_bytes: c[3].parse().ok()?,
        count_pct: c[4].parse().ok()?,
        bytes_pct: c[5].parse().ok()?,
        unsched_bytes: c[6].parse().ok()?,
        mean: match c[7] {
            "NA" => None,
            m => Some(m.parse().ok()?),
        },
        p50: c[8].parse().ok()?,
        p99: c[9].parse().ok()?,
    })
}

/// The network loads the published runs were made at.
pub const PAPER_LOADS: [f64; 2] = [0.5, 0.8];

/// The published load equal to `load` (within 0.005), to look rows up with, if any.
pub fn paper_load_key(load: f64) -> Option<f64> {
    PAPER_LOADS.into_iter().find(|l| (l - load).abs() < 0.005)
}

/// The data's workload name for `w1`..`w6` or a data name itself (any case), if known.
pub fn paper_workload_name(workload: &str) -> Option<&'static str> {
    NAMES
        .iter()
        .find(|(short, long)| {
            workload.eq_ignore_ascii_case(short) || workload.eq_ignore_ascii_case(long)
        })
        .map(|&(_, long)| long)
}

/// The buckets of `protocol`'s run of `workload` at `load`, ascending (empty if none).
pub fn paper_rows(protocol: &str, workload: &str, load: f64) -> Vec<PaperRow> {
    let Some(name) = paper_workload_name(workload) else {
        return Vec::new();
    };
    rows()
        .iter()
        .filter(|r| r.protocol == protocol && r.workload == name && (r.load - load).abs() < 1e-9)
        .cloned()
        .collect()
}

/// The bucket bounds of Homa's published runs of `workload` (`w1`..`w5` or the data's name),
/// as used at load 0.8.
pub fn paper_buckets(workload: &str) -> Option<Vec<u32>> {
    let sizes: Vec<u32> = paper_rows("Homa", workload, 0.8)
        .iter()
        .map(|r| r.max_bytes)
        .collect();
    (!sizes.is_empty()).then_some(sizes)
}

/// The published bucket of `protocol` for `workload` at `load` whose bound is `max_bytes`.
pub fn paper_row(protocol: &str, workload: &str, load: f64, max_bytes: u32) -> Option<PaperRow> {
    paper_rows(protocol, workload, load)
        .into_iter()
        .find(|r| r.max_bytes == max_bytes)
}

/// The published Homa bucket for `workload` at `load` whose bound is `max_bytes`.
pub fn paper_homa_row(workload: &str, load: f64, max_bytes: u32) -> Option<PaperRow> {
    paper_row("Homa", workload, load, max_bytes)
}

/// Count-weighted mean of the per-bucket mean slowdowns of a published run (buckets without a
/// mean left out).
pub fn paper_mean_slowdown(protocol: &str, workload: &str, load: f64) -> Option<f64> {
    let rows = paper_rows(protocol, workload, load);
    let with_mean = || rows.iter().filter_map(|r| r.mean.map(|m| (r.count_pct, m)));
    let total: f64 = with_mean().map(|(c, _)| c).sum();
    (total > 0.0).then(|| with_mean().map(|(c, m)| c * m).sum::<f64>() / total)
}

/// Buckets holding the smallest size, the P10/P50/P90/P99 message by count, and the largest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PercentileBuckets {
    /// The smallest bucket.
    pub smallest: u32,
    /// The bucket holding the 10th-percentile message.
    pub p10: u32,
    /// The bucket holding the median message.
    pub p50: u32,
    /// The bucket holding the 90th-percentile message.
    pub p90: u32,
    /// The bucket holding the 99th-percentile message.
    pub p99: u32,
    /// The largest bucket.
    pub largest: u32,
}

impl PercentileBuckets {
    /// From `(max_bytes, count)` per bucket in ascending size (counts in any unit, e.g. percent):
    /// the percentile-`p` bucket is the first whose cumulative share of the count is >= p
    /// (SPEC §5.3). `None` when there is no count.
    pub fn from_counts(buckets: &[(u32, f64)]) -> Option<Self> {
        let total: f64 = buckets.iter().map(|&(_, c)| c).sum();
        let (&(smallest, _), &(largest, _)) = (buckets.first()?, buckets.last()?);
        if total <= 0.0 {
            return None;
        }
        let at = |p: f64| {
            let mut cum = 0.0;
            for &(size, c) in buckets {
                cum += c;
                if cum / total * 100.0 >= p - 1e-9 {
                    return size;
                }
            }
            largest
        };
        Some(Self {
            smallest,
            p10: at(10.0),
            p50: at(50.0),
            p90: at(90.0),
            p99: at(99.0),
            largest,
        })
    }
}

/// The percentile buckets of Homa's published run of `workload` at `load`.
pub fn paper_percentile_buckets(workload: &str, load: f64) -> Option<PercentileBuckets> {
    paper_percentile_buckets_for("Homa", workload, load)
}

/// The percentile buckets of `protocol`'s published run of `workload` at `load`, by that run's
/// own message counts (as the SPEC §5.3 tables are made).
pub fn paper_percentile_buckets_for(
    protocol: &str,
    workload: &str,
    load: f64,
) -> Option<PercentileBuckets> {
    let counts: Vec<(u32, f64)> = paper_rows(protocol, workload, load)
        .iter()
        .map(|r| (r.max_bytes, r.count_pct))
        .collect();
    PercentileBuckets::from_counts(&counts)
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn rows__every_data_line_parses() {
        assert_eq!(rows().len(), TSV.lines().count() - 1);
        assert_eq!(rows().len(), 5628);
    }

    #[test]
    fn paper_workload_name__maps_both_ways() {
        assert_eq!(paper_workload_name("w1"), Some("FACEBOOK_KEY_VALUE"));
        assert_eq!(paper_workload_name("W5"), Some("DCTCP"));
        assert_eq!(
            paper_workload_name("google_all_rpc"),
            Some("GOOGLE_ALL_RPC")
        );
        assert_eq!(paper_workload_name("w9"), None);
        assert_eq!(paper_buckets("nope"), None);
    }

    #[test]
    fn paper_buckets__are_ascending_and_the_same_at_both_loads() {
        for w in ["w1", "w2", "w3", "w4", "w5"] {
            let b = paper_buckets(w).unwrap_or_default();
            assert!(b.len() > 50, "{w}");
            assert!(b.windows(2).all(|p| p[0] < p[1]), "{w}");
            let at_half: Vec<u32> = paper_rows("Homa", w, 0.5)
                .iter()
                .map(|r| r.max_bytes)
                .collect();
            assert_eq!(b, at_half, "{w}");
        }
    }

    /// SPEC §5.3: bucket sizes for Homa at 80 % load.
    const SPEC_BUCKETS: [(&str, [u32; 6]); 5] = [
        ("w1", [1, 2, 28, 508, 1937, 1_000_000]),
        ("w2", [2, 3, 269, 512, 3151, 3_529_904]),
        ("w3", [3, 36, 268, 1755, 40018, 20_000_000]),
        ("w4", [130, 315, 662, 120373, 3_430_822, 10_000_000]),
        (
            "w5",
            [1442, 7210, 70658, 11_537_442, 26_917_814, 28_840_000],
        ),
    ];

    #[test]
    fn paper_percentile_buckets__match_spec_bucket_table() {
        for (w, want) in SPEC_BUCKETS {
            let p = paper_percentile_buckets(w, 0.8);
            let got = p.map(|p| [p.smallest, p.p10, p.p50, p.p90, p.p99, p.largest]);
            assert_eq!(got, Some(want), "{w}");
        }
    }

    /// SPEC §5.3 rows: smallest, P10, P50, P90, P99 message, count-weighted mean slowdown.
    const SPEC_ROWS: [(&str, f64, &str, [f64; 6]); 20] = [
        ("Homa", 0.8, "w1", [1.83, 1.84, 2.01, 2.86, 8.42, 1.38]),
        ("Homa", 0.8, "w2", [1.98, 1.99, 1.90, 2.60, 5.03, 1.43]),
        ("Homa", 0.8, "w3", [2.22, 2.21, 2.02, 1.68, 4.29, 1.46]),
        ("Homa", 0.8, "w4", [2.29, 2.04, 1.85, 2.89, 7.59, 1.49]),
        ("Homa", 0.8, "w5", [1.48, 1.31, 1.56, 4.09, 16.06, 1.73]),
        ("Homa", 0.5, "w1", [1.71, 1.72, 1.80, 1.93, 2.48, 1.19]),
        ("Homa", 0.5, "w2", [1.85, 1.86, 1.74, 1.93, 2.43, 1.22]),
        ("Homa", 0.5, "w3", [2.03, 2.03, 1.86, 1.53, 2.77, 1.29]),
        ("Homa", 0.5, "w4", [2.07, 1.89, 1.70, 2.30, 4.22, 1.27]),
        ("Homa", 0.5, "w5", [1.42, 1.28, 1.34, 2.25, 5.57, 1.30]),
        ("pFabric", 0.8, "w1", [1.90, 1.97, 2.06, 2.68, 10.51, 1.45]),
        ("pFabric", 0.8, "w2", [2.00, 2.00, 1.93, 2.62, 4.15, 1.43]),
        ("pFabric", 0.8, "w3", [2.11, 2.08, 1.92, 1.63, 5.15, 1.45]),
        ("pFabric", 0.8, "w4", [2.06, 1.89, 1.72, 3.28, 10.43, 1.55]),
        ("pFabric", 0.8, "w5", [1.49, 1.27, 2.11, 6.50, 56.49, 1.79]),
        ("NDP", 0.8, "w5", [18.10, 12.65, 15.89, 16.38, 14.89, 4.75]),
        ("PIAS", 0.8, "w4", [4.12, 3.69, 3.22, 104.87, 241.36, 3.48]),
        ("pHost", 0.8, "w1", [3.41, 3.41, 3.43, 3.09, 77.47, 1.76]),
        (
            "SRPT-Oracle",
            0.8,
            "w5",
            [1.00, 1.00, 1.67, 3.80, 24.64, 1.39],
        ),
        (
            "SRPT-Oracle",
            0.5,
            "w2",
            [1.00, 1.01, 1.14, 1.69, 3.26, 0.99],
        ),
    ];

    #[test]
    fn paper_row__p99_at_percentile_buckets_and_mean_match_spec_tables() {
        for (protocol, load, w, want) in SPEC_ROWS {
            let Some(b) = paper_percentile_buckets_for(protocol, w, load) else {
                panic!("{protocol} {w} {load}: no data");
            };
            for (i, size) in [b.smallest, b.p10, b.p50, b.p90, b.p99]
                .into_iter()
                .enumerate()
            {
                let p99 = paper_row(protocol, w, load, size).map_or(f64::NAN, |r| r.p99);
                assert!(
                    (p99 - want[i]).abs() < 0.006,
                    "{protocol} {w} {load} {size}: {p99}"
                );
            }
            let mean = paper_mean_slowdown(protocol, w, load).unwrap_or(f64::NAN);
            assert!(
                (mean - want[5]).abs() < 0.006,
                "{protocol} {w} {load} mean {mean}"
            );
        }
    }

    #[test]
    fn paper_homa_row__w1_smallest_bucket_at_80_percent() {
        let row = paper_homa_row("w1", 0.8, 1);
        assert!(
            row.as_ref().is_some_and(|r| (r.p99 - 1.83).abs() < 0.006),
            "{row:?}"
        );
        let row = row.map(|r| (r.unsched_bytes, r.workload, r.count_pct > 0.0));
        assert_eq!(row, Some((9328, "FACEBOOK_KEY_VALUE".to_string(), true)));
    }

    #[test]
    fn paper_load_key__finds_published_loads_only() {
        assert_eq!(paper_load_key(0.8), Some(0.8));
        assert_eq!(paper_load_key(0.501), Some(0.5));
        assert_eq!(paper_load_key(0.7), None);
        assert_eq!(paper_load_key(f64::NAN), None);
    }

    #[test]
    fn paper_row__other_protocols_and_misses() {
        let na = paper_row("pFabric", "w2", 0.8, 2).map(|r| r.mean);
        assert_eq!(na, Some(None));
        assert_eq!(paper_homa_row("w1", 0.8, 12345), None);
        assert_eq!(paper_homa_row("w1", 0.7, 1), None);
        assert_eq!(paper_rows("Homa", "w9", 0.8), []);
    }
}
