//! Slowdown statistics per message-size bucket, and the SIGCOMM'18 published results
//! ([`paper`]) to compare them with.

pub mod paper;

pub use paper::{
    PAPER_LOADS, PaperRow, PercentileBuckets, paper_buckets, paper_homa_row, paper_load_key,
    paper_mean_slowdown, paper_percentile_buckets, paper_percentile_buckets_for, paper_row,
    paper_rows, paper_workload_name,
};

/// Bucket bounds that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StatsError {
    /// No bound was given.
    #[error("bucket bounds: at least one bound is required")]
    NoBuckets,
    /// Bounds are not strictly ascending.
    #[error("bucket bounds must be strictly ascending: {0} is followed by {1}")]
    Unsorted(u32, u32),
}

/// Summary of one size bucket.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BucketSummary {
    /// Upper bound of the bucket (inclusive), bytes.
    pub max_bytes: u32,
    /// Messages recorded in it.
    pub count: u64,
    /// Median slowdown (nearest rank).
    pub p50_slowdown: f64,
    /// 99th-percentile slowdown (nearest rank).
    pub p99_slowdown: f64,
    /// Mean slowdown.
    pub mean_slowdown: f64,
}

/// Slowdowns recorded per message-size bucket.
#[derive(Debug, Clone, PartialEq)]
pub struct SlowdownStats {
    bounds: Vec<u32>,
    samples: Vec<Vec<f64>>,
}

impl SlowdownStats {
    /// Buckets with these inclusive upper bounds (strictly ascending). A message goes to the first
    /// bucket whose bound is >= its size; larger messages go to the last bucket.
    pub fn with_buckets(bounds: Vec<u32>) -> Result<Self, StatsError> {
        if bounds.is_empty() {
            return Err(StatsError::NoBuckets);
        }
        if let Some(w) = bounds.windows(2).find(|w| w[0] >= w[1]) {
            return Err(StatsError::Unsorted(w[0], w[1]));
        }
        let samples = vec![Vec::new(); bounds.len()];
        Ok(Self { bounds, samples })
    }

    /// The bucket bounds.
    pub fn bounds(&self) -> &[u32] {
        &self.bounds
    }

    /// Records one message of `size_bytes` that took `slowdown` times its ideal time.
    pub fn record(&mut self, size_bytes: u32, slowdown: f64) {
        let i = self
            .bounds
            .partition_point(|&b| b < size_bytes)
            .min(self.bounds.len() - 1);
        self.samples[i].push(slowdown);
    }

    /// Messages recorded.
    pub fn count(&self) -> u64 {
        self.samples.iter().map(|s| s.len() as u64).sum()
    }

    /// Mean slowdown over all messages, if any.
    pub fn mean_slowdown(&self) -> Option<f64> {
        let n = self.count();
        (n > 0).then(|| self.samples.iter().flatten().sum::<f64>() / n as f64)
    }

    /// Non-empty buckets in ascending size.
    pub fn buckets(&self) -> Vec<BucketSummary> {
        self.bounds
            .iter()
            .zip(&self.samples)
            .filter(|(_, s)| !s.is_empty())
            .map(|(&max_bytes, s)| summary(max_bytes, s.clone()))
            .collect()
    }

    /// Summaries over consecutive groups of buckets, one per entry of `upper` and one more
    /// (bound `u32::MAX`) for the rest: a bucket belongs to the first range whose bound is at
    /// least its own. Empty ranges are left out.
    pub fn ranges(&self, upper: &[u32]) -> Vec<BucketSummary> {
        let mut groups: Vec<(u32, Vec<f64>)> = upper
            .iter()
            .copied()
            .chain([u32::MAX])
            .map(|b| (b, Vec::new()))
            .collect();
        for (&bound, s) in self.bounds.iter().zip(&self.samples) {
            let g = groups
                .iter_mut()
                .find(|(b, _)| *b >= bound)
                .expect("the last range takes every bucket");
            g.1.extend_from_slice(s);
        }
        groups
            .into_iter()
            .filter(|(_, s)| !s.is_empty())
            .map(|(max_bytes, samples)| summary(max_bytes, samples))
            .collect()
    }

    /// The percentile buckets (SPEC §5.3) of the recorded messages, by their own counts.
    pub fn percentile_buckets(&self) -> Option<PercentileBuckets> {
        let counts: Vec<(u32, f64)> = self
            .buckets()
            .iter()
            .map(|b| (b.max_bytes, b.count as f64))
            .collect();
        PercentileBuckets::from_counts(&counts)
    }
}

/// The summary of non-empty `samples` under the bound `max_bytes`.
fn summary(max_bytes: u32, mut samples: Vec<f64>) -> BucketSummary {
    samples.sort_by(f64::total_cmp);
    BucketSummary {
        max_bytes,
        count: samples.len() as u64,
        p50_slowdown: nearest_rank(&samples, 50.0),
        p99_slowdown: nearest_rank(&samples, 99.0),
        mean_slowdown: samples.iter().sum::<f64>() / samples.len() as f64,
    }
}

/// The size ranges that reports summarize, by bucket: short (buckets up to 10 KB), medium
/// (up to 1 MB) and long (the rest).
pub const SIZE_RANGES: [u32; 2] = [10_000, 1_000_000];

/// Nearest-rank percentile of ascending `sorted` (NaN when empty).
pub fn nearest_rank(sorted: &[f64], percentile: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let n = sorted.len();
    let rank = (percentile / 100.0 * n as f64).ceil() as usize;
    sorted[rank.clamp(1, n) - 1]
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    fn stats(bounds: Vec<u32>) -> SlowdownStats {
        match SlowdownStats::with_buckets(bounds) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn record__first_bucket_at_least_size_and_overflow_to_last() {
        let mut s = stats(vec![10, 100, 1000]);
        for (size, sd) in [(1, 1.0), (10, 2.0), (11, 3.0), (1000, 4.0), (5000, 5.0)] {
            s.record(size, sd);
        }
        let b = s.buckets();
        assert_eq!(b.len(), 3);
        assert_eq!(
            (b[0].max_bytes, b[0].count, b[0].mean_slowdown),
            (10, 2, 1.5)
        );
        assert_eq!((b[1].max_bytes, b[1].count), (100, 1));
        assert_eq!(
            (b[2].max_bytes, b[2].count, b[2].mean_slowdown),
            (1000, 2, 4.5)
        );
        assert_eq!(s.count(), 5);
        assert_eq!(s.mean_slowdown(), Some(3.0));
    }

    #[test]
    fn ranges__group_whole_buckets_and_leave_out_empty_ones() {
        let mut s = stats(vec![10, 100, 1000, 10_000]);
        for (size, sd) in [(5, 1.0), (50, 3.0), (500, 5.0), (20_000, 9.0)] {
            s.record(size, sd);
        }
        let r = s.ranges(&[100, 200]);
        // Buckets 10 and 100 in the first range; none has a bound in (100, 200]; 1000 and
        // 10,000 in the last.
        assert_eq!(r.len(), 2);
        assert_eq!(
            (r[0].max_bytes, r[0].count, r[0].mean_slowdown),
            (100, 2, 2.0)
        );
        assert_eq!((r[0].p50_slowdown, r[0].p99_slowdown), (1.0, 3.0));
        assert_eq!(
            (r[1].max_bytes, r[1].count, r[1].mean_slowdown),
            (u32::MAX, 2, 7.0)
        );
        assert_eq!(stats(vec![10]).ranges(&SIZE_RANGES), []);
    }

    #[test]
    fn buckets__skip_empty_and_use_nearest_rank() {
        let mut s = stats(vec![10, 100, 1000]);
        for i in 1..=200 {
            s.record(500, f64::from(i));
        }
        let b = s.buckets();
        assert_eq!(b.len(), 1);
        assert_eq!((b[0].p50_slowdown, b[0].p99_slowdown), (100.0, 198.0));
        assert_eq!(stats(vec![1]).buckets(), []);
        assert_eq!(stats(vec![1]).mean_slowdown(), None);
    }

    #[test]
    fn nearest_rank__edges() {
        assert_eq!(nearest_rank(&[3.0], 99.0), 3.0);
        assert_eq!(nearest_rank(&[1.0, 2.0], 0.0), 1.0);
        assert_eq!(nearest_rank(&[1.0, 2.0], 50.0), 1.0);
        assert_eq!(nearest_rank(&[1.0, 2.0], 51.0), 2.0);
        assert!(nearest_rank(&[], 50.0).is_nan());
    }

    #[test]
    fn with_buckets__rejects_empty_and_unsorted() {
        assert_eq!(
            SlowdownStats::with_buckets(vec![]),
            Err(StatsError::NoBuckets)
        );
        assert_eq!(
            SlowdownStats::with_buckets(vec![5, 5]),
            Err(StatsError::Unsorted(5, 5))
        );
        let msg = StatsError::Unsorted(9, 3).to_string();
        assert!(msg.contains("strictly ascending"), "{msg}");
    }

    #[test]
    fn percentile_buckets__from_recorded_counts() {
        let mut s = stats(vec![1, 2, 3, 4]);
        for (size, n) in [(1, 5), (2, 45), (3, 49), (4, 1)] {
            for _ in 0..n {
                s.record(size, 1.0);
            }
        }
        let p = s.percentile_buckets();
        assert_eq!(
            p,
            Some(PercentileBuckets {
                smallest: 1,
                p10: 2,
                p50: 2,
                p90: 3,
                p99: 3,
                largest: 4
            })
        );
    }
}
