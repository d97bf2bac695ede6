//! Poisson arrivals: exponentially distributed gaps from a seeded generator.

use rand::{RngExt, SeedableRng};

use crate::rng::SimRng;
use crate::time::Ps;

/// A mean inter-arrival time that is not finite and positive.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid mean inter-arrival gap {0} ps: allowed a finite value > 0")]
pub struct ArrivalsError(pub f64);

/// A seeded Poisson process: successive gaps are exponential with a fixed mean.
#[derive(Debug, Clone)]
pub struct PoissonArrivals {
    mean_gap_ps: f64,
    rng: SimRng,
}

impl PoissonArrivals {
    /// Gaps with mean `mean_gap_ps` picoseconds, drawn from a generator seeded with `seed`.
    pub fn new(mean_gap_ps: f64, seed: u64) -> Result<Self, ArrivalsError> {
        if !(mean_gap_ps.is_finite() && mean_gap_ps > 0.0) {
            return Err(ArrivalsError(mean_gap_ps));
        }
        Ok(Self {
            mean_gap_ps,
            rng: SimRng::seed_from_u64(seed),
        })
    }

    /// The configured mean gap in picoseconds.
    pub fn mean_gap_ps(&self) -> f64 {
        self.mean_gap_ps
    }

    /// The next gap, rounded to a whole picosecond (saturating).
    pub fn next_gap(&mut self) -> Ps {
        let u: f64 = self.rng.random(); // [0, 1)
        let gap = -(1.0 - u).ln() * self.mean_gap_ps;
        gap.round() as Ps
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn next_gap__mean_and_spread_converge() {
        let mut a = match PoissonArrivals::new(1_234_567.0, 3) {
            Ok(a) => a,
            Err(e) => panic!("{e}"),
        };
        let n = 200_000;
        let gaps: Vec<f64> = (0..n).map(|_| a.next_gap() as f64).collect();
        let mean = gaps.iter().sum::<f64>() / n as f64;
        let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / n as f64;
        assert!((mean / 1_234_567.0 - 1.0).abs() < 0.01, "{mean}");
        // Exponential: standard deviation equals the mean.
        assert!((var.sqrt() / mean - 1.0).abs() < 0.02, "{}", var.sqrt());
    }

    #[test]
    fn next_gap__same_seed_same_gaps() {
        let gaps = |seed| -> Vec<Ps> {
            match PoissonArrivals::new(1000.0, seed) {
                Ok(mut a) => (0..10).map(|_| a.next_gap()).collect(),
                Err(e) => panic!("{e}"),
            }
        };
        assert_eq!(gaps(1), gaps(1));
        assert_ne!(gaps(1), gaps(2));
    }

    #[test]
    fn new__rejects_non_positive_means() {
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let err = PoissonArrivals::new(bad, 0)
                .map(|_| ())
                .unwrap_err()
                .to_string();
            assert!(err.contains("allowed a finite value > 0"), "{err}");
        }
        assert_eq!(
            PoissonArrivals::new(5.0, 0).map(|a| a.mean_gap_ps()),
            Ok(5.0)
        );
    }
}
