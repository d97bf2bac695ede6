//! Message-size distributions: the Homa paper's W1-W5 (embedded CDF files, see
//! `sim/workloads/README.md`) or a fixed size, and Poisson message arrivals.

mod poisson;

pub use poisson::{ArrivalsError, PoissonArrivals};

use rand::{Rng, RngExt};

/// The embedded CDF files, by workload name.
const CDF_FILES: [(&str, &str); 5] = [
    ("w1", include_str!("../workloads/w1.txt")),
    ("w2", include_str!("../workloads/w2.txt")),
    ("w3", include_str!("../workloads/w3.txt")),
    ("w4", include_str!("../workloads/w4.txt")),
    ("w5", include_str!("../workloads/w5.txt")),
];

/// The forms [`Workload::parse`] accepts, for error messages.
pub const ACCEPTED_FORMS: &str = "w1, w2, w3, w4, w5 or fixed:BYTES (BYTES in 1..=4294967295)";

/// A workload specification or CDF that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WorkloadError {
    /// The name is none of the accepted forms.
    #[error("unknown workload `{0}`: expected one of {ACCEPTED_FORMS}")]
    Unknown(String),
    /// A CDF table is malformed.
    #[error("bad CDF for workload `{name}`: {reason}")]
    BadCdf {
        /// Workload name.
        name: String,
        /// What is wrong (line number or property).
        reason: String,
    },
}

/// A distribution of message sizes in bytes.
#[derive(Debug, Clone, PartialEq)]
pub enum Workload {
    /// An empirical distribution: `(size_bytes, cumulative_fraction)` points, sizes and
    /// fractions non-decreasing (W1 repeats some sizes), the last fraction equal to 1.
    Cdf {
        /// Workload name (e.g. `w3`).
        name: String,
        /// The CDF points.
        points: Vec<(u32, f64)>,
    },
    /// Every message has this many bytes.
    Fixed(u32),
}

impl Workload {
    /// `"w1"`..`"w5"` (any case) or `"fixed:BYTES"`; anything else is an error that lists the
    /// accepted forms.
    pub fn parse(spec: &str) -> Result<Self, WorkloadError> {
        let s = spec.trim().to_ascii_lowercase();
        if let Some(bytes) = s.strip_prefix("fixed:") {
            return match bytes.trim().parse::<u32>() {
                Ok(n) if n > 0 => Ok(Self::Fixed(n)),
                _ => Err(WorkloadError::Unknown(spec.to_string())),
            };
        }
        let text = CDF_FILES
            .iter()
            .find(|(name, _)| *name == s)
            .map(|(_, text)| *text)
            .ok_or_else(|| WorkloadError::Unknown(spec.to_string()))?;
        Self::from_cdf_text(&s, text)
    }

    /// Builds a CDF workload from `size cumulative_fraction` lines (blank lines and `#` comments
    /// skipped), checking the table's shape.
    pub fn from_cdf_text(name: &str, text: &str) -> Result<Self, WorkloadError> {
        let bad = |reason: String| WorkloadError::BadCdf {
            name: name.to_string(),
            reason,
        };
        let mut points = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut cols = line.split_whitespace();
            let parsed = match (cols.next(), cols.next(), cols.next()) {
                (Some(size), Some(frac), None) => size.parse::<u32>().ok().zip(frac.parse().ok()),
                _ => None,
            };
            let Some(point) = parsed else {
                return Err(bad(format!(
                    "line {}: expected `size_bytes fraction`",
                    i + 1
                )));
            };
            points.push(point);
        }
        Self::from_points(name, points)
    }

    /// Builds a CDF workload from points, checking their shape.
    pub fn from_points(name: &str, points: Vec<(u32, f64)>) -> Result<Self, WorkloadError> {
        let bad = |reason: &str| WorkloadError::BadCdf {
            name: name.to_string(),
            reason: reason.to_string(),
        };
        let Some(&(_, last)) = points.last() else {
            return Err(bad("no points"));
        };
        if points.iter().any(|&(_, f)| !(0.0..=1.0).contains(&f)) {
            return Err(bad("fractions must be in [0, 1]"));
        }
        if points
            .windows(2)
            .any(|w| w[0].0 > w[1].0 || w[0].1 > w[1].1)
        {
            return Err(bad("sizes and fractions must not decrease"));
        }
        if (last - 1.0).abs() > 1e-9 {
            return Err(bad("the last fraction must be 1"));
        }
        Ok(Self::Cdf {
            name: name.to_string(),
            points,
        })
    }

    /// The workload's name (`w1`.. or `fixed:BYTES`).
    pub fn name(&self) -> String {
        match self {
            Self::Cdf { name, .. } => name.clone(),
            Self::Fixed(n) => format!("fixed:{n}"),
        }
    }

    /// Draws u uniform in [0, 1) and returns the smallest size whose cumulative fraction is
    /// >= u (no interpolation, as the HomaSimulation sampler does).
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u32 {
        match self {
            Self::Fixed(n) => *n,
            Self::Cdf { points, .. } => {
                let u: f64 = rng.random();
                let i = points.partition_point(|&(_, f)| f < u);
                points.get(i).or(points.last()).map_or(0, |&(s, _)| s)
            }
        }
    }

    /// Each distinct size with its probability (zero-probability sizes left out), ascending.
    pub fn probabilities(&self) -> Vec<(u32, f64)> {
        match self {
            Self::Fixed(n) => vec![(*n, 1.0)],
            Self::Cdf { points, .. } => {
                let mut prev = 0.0;
                let mut out: Vec<(u32, f64)> = Vec::with_capacity(points.len());
                for &(size, f) in points {
                    if f > prev {
                        match out.last_mut() {
                            Some(last) if last.0 == size => last.1 += f - prev,
                            _ => out.push((size, f - prev)),
                        }
                    }
                    prev = prev.max(f);
                }
                out
            }
        }
    }

    /// Exact expectation of `f(size)` over the distribution.
    pub fn expectation(&self, f: impl Fn(u32) -> f64) -> f64 {
        self.probabilities()
            .into_iter()
            .map(|(s, p)| p * f(s))
            .sum()
    }

    /// Mean message size in bytes.
    pub fn mean_bytes(&self) -> f64 {
        self.expectation(f64::from)
    }

    /// The support: every size with non-zero probability, ascending.
    pub fn sizes(&self) -> Vec<u32> {
        self.probabilities().into_iter().map(|(s, _)| s).collect()
    }

    /// Largest size in the support.
    pub fn max_bytes(&self) -> u32 {
        self.sizes().last().copied().unwrap_or(0)
    }

    /// The same workload with every size above `max` cut to `max`, and the probability of a
    /// message being cut. The name stays (the caller says that it capped).
    pub fn capped(&self, max: u32) -> (Workload, f64) {
        match self {
            Self::Fixed(n) if *n > max => (Self::Fixed(max), 1.0),
            Self::Fixed(_) => (self.clone(), 0.0),
            Self::Cdf { name, points } => {
                let cut = self
                    .probabilities()
                    .into_iter()
                    .filter(|&(s, _)| s > max)
                    .map(|(_, p)| p)
                    .sum();
                let points = points.iter().map(|&(s, f)| (s.min(max), f)).collect();
                (
                    Self::Cdf {
                        name: name.clone(),
                        points,
                    },
                    cut,
                )
            }
        }
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use crate::rng::seeded_rng;

    #[test]
    fn capped__cuts_sizes_and_reports_the_share() {
        let w = Workload::from_points("t", vec![(10, 0.5), (100, 0.75), (1000, 1.0)]).unwrap();
        let (c, cut) = w.capped(100);
        assert_eq!(c.max_bytes(), 100);
        assert!((cut - 0.25).abs() < 1e-12);
        assert_eq!(c.probabilities(), [(10, 0.5), (100, 0.5)]);
        assert_eq!(Workload::Fixed(5).capped(4), (Workload::Fixed(4), 1.0));
        assert_eq!(Workload::Fixed(5).capped(5), (Workload::Fixed(5), 0.0));
    }

    fn load(name: &str) -> Workload {
        match Workload::parse(name) {
            Ok(w) => w,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn mean_bytes__w1_to_w5_match_spec_table() {
        // SPEC §4.1 means; the files give W1 187.5 (the sampled table).
        for (name, mean) in [
            ("w1", 187.5),
            ("w2", 440.8),
            ("w3", 2927.4),
            ("w4", 127796.6),
            ("w5", 2515863.0),
        ] {
            let got = load(name).mean_bytes();
            assert!((got - mean).abs() / mean < 0.01, "{name}: {got} vs {mean}");
            assert!(
                (got - mean).abs() / mean < 0.0005,
                "{name}: {got} vs {mean}"
            );
        }
    }

    #[test]
    fn max_bytes__and_sizes_follow_the_files() {
        let w4 = load("w4");
        assert_eq!(w4.max_bytes(), 10_000_000);
        // W4's first point `50 0` has no mass.
        assert_eq!(w4.sizes().first(), Some(&53));
        assert_eq!(load("w5").max_bytes(), 28_840_000);
        let w1 = load("w1");
        assert_eq!(w1.sizes().first(), Some(&1));
        // W1 lists some sizes more than once; the support has each once.
        assert!(w1.sizes().windows(2).all(|p| p[0] < p[1]));
        let total: f64 = w1.probabilities().iter().map(|&(_, p)| p).sum();
        assert!((total - 1.0).abs() < 1e-12);
        assert_eq!(Workload::Fixed(7).sizes(), [7]);
        assert_eq!(Workload::Fixed(7).max_bytes(), 7);
    }

    #[test]
    fn sample__empirical_mean_and_cdf_converge() {
        let mut rng = seeded_rng(11);
        for name in ["w1", "w2", "w3", "w4", "w5"] {
            let w = load(name);
            let n = 200_000;
            let mut draws: Vec<u32> = (0..n).map(|_| w.sample(&mut rng)).collect();
            // Heavy tails make the plain mean slow to converge: compare a capped mean exactly.
            let cap = |s: u32| f64::from(s.min(20_000));
            let mean = draws.iter().map(|&s| cap(s)).sum::<f64>() / n as f64;
            let want = w.expectation(cap);
            assert!(
                (mean - want).abs() / want < 0.01,
                "{name}: {mean} vs {want}"
            );
            // Kolmogorov-Smirnov distance to the CDF.
            draws.sort_unstable();
            let mut cum = 0.0;
            for (size, p) in w.probabilities() {
                cum += p;
                let below = draws.partition_point(|&d| d <= size) as f64 / n as f64;
                assert!(
                    (below - cum).abs() < 0.005,
                    "{name} at {size}: {below} vs {cum}"
                );
            }
        }
        let w1 = load("w1");
        let mean = (0..200_000)
            .map(|_| f64::from(w1.sample(&mut rng)))
            .sum::<f64>()
            / 2e5;
        assert!((mean / w1.mean_bytes() - 1.0).abs() < 0.05, "{mean}");
    }

    #[test]
    fn sample__returns_smallest_size_with_fraction_at_least_u() {
        let w = match Workload::from_points("t", vec![(10, 0.25), (20, 0.25), (30, 1.0)]) {
            Ok(w) => w,
            Err(e) => panic!("{e}"),
        };
        let mut rng = seeded_rng(1);
        let mut counts = [0u32; 3];
        for _ in 0..40_000 {
            match w.sample(&mut rng) {
                10 => counts[0] += 1,
                30 => counts[2] += 1,
                other => counts[1] += other,
            }
        }
        assert_eq!(counts[1], 0);
        assert!(
            (counts[0] as f64 / 40_000.0 - 0.25).abs() < 0.01,
            "{counts:?}"
        );
        assert_eq!(Workload::Fixed(99).sample(&mut rng), 99);
    }

    #[test]
    fn expectation__is_exact() {
        let w = match Workload::from_points("t", vec![(1, 0.5), (3, 1.0)]) {
            Ok(w) => w,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(w.expectation(|s| f64::from(s * s)), 5.0);
        assert_eq!(w.mean_bytes(), 2.0);
        assert_eq!(Workload::Fixed(4).expectation(|s| f64::from(s) / 2.0), 2.0);
    }

    #[test]
    fn parse__accepts_the_documented_forms() {
        assert_eq!(Workload::parse("fixed:1442"), Ok(Workload::Fixed(1442)));
        assert_eq!(load("W3").name(), "w3");
        assert_eq!(Workload::Fixed(5).name(), "fixed:5");
    }

    #[test]
    fn parse__errors_list_the_accepted_forms() {
        for bad in [
            "w6",
            "",
            "fixed:",
            "fixed:0",
            "fixed:-3",
            "fixed:99999999999",
            "dctcp",
        ] {
            let msg = match Workload::parse(bad) {
                Err(e) => e.to_string(),
                Ok(w) => panic!("{bad} parsed as {w:?}"),
            };
            assert!(msg.contains("w1, w2, w3, w4, w5 or fixed:BYTES"), "{msg}");
            assert!(msg.contains(&format!("`{bad}`")), "{msg}");
        }
    }

    #[test]
    fn from_cdf_text__rejects_malformed_tables() {
        for (text, why) in [
            ("", "no points"),
            ("1 0.5\n2 0.4\n3 1", "must not decrease"),
            ("2 0.5\n1 1", "must not decrease"),
            ("1 0.5\n2 0.9", "last fraction"),
            ("1 0.5 7\n2 1", "line 1"),
            ("1 x\n2 1", "line 1"),
            ("1 1.5", "[0, 1]"),
        ] {
            match Workload::from_cdf_text("t", text) {
                Err(e) => assert!(e.to_string().contains(why), "{e} lacks {why}"),
                Ok(w) => panic!("{text:?} gave {w:?}"),
            }
        }
    }
}
