//! Simulated time: picoseconds in a `u64` (about 213 days of simulated time).

/// A point in, or a span of, simulated time, in picoseconds.
pub type Ps = u64;

/// One nanosecond in picoseconds.
pub const NS: Ps = 1_000;

/// One microsecond in picoseconds.
pub const US: Ps = 1_000_000;

/// One millisecond in picoseconds.
pub const MS: Ps = 1_000_000_000;

/// One second in picoseconds.
pub const SEC: Ps = 1_000_000_000_000;

/// Time to put `bytes` on a link of `bits_per_sec`, rounded up to a whole picosecond.
///
/// A rate of 0 is treated as 1 bit/s (callers validate rates; this never panics); results
/// that do not fit saturate at `Ps::MAX`.
pub fn serialization_ps(bytes: u64, bits_per_sec: u64) -> Ps {
    let rate = u128::from(bits_per_sec.max(1));
    let num = u128::from(bytes) * 8 * u128::from(SEC);
    let ps = num.div_ceil(rate);
    Ps::try_from(ps).unwrap_or(Ps::MAX)
}

/// Whole nanoseconds to picoseconds (saturating).
pub fn ns_to_ps(ns: u64) -> Ps {
    ns.saturating_mul(NS)
}

/// Whole microseconds to picoseconds (saturating).
pub fn us_to_ps(us: u64) -> Ps {
    us.saturating_mul(US)
}

/// Fractional nanoseconds to picoseconds, rounded to nearest; negative or NaN gives 0,
/// too large saturates.
pub fn ns_f64_to_ps(ns: f64) -> Ps {
    // `as` from f64 to u64 saturates and maps NaN to 0.
    (ns * NS as f64).round() as Ps
}

/// Picoseconds to (fractional) nanoseconds.
pub fn ps_to_ns(ps: Ps) -> f64 {
    ps as f64 / NS as f64
}

/// Picoseconds to (fractional) microseconds.
pub fn ps_to_us(ps: Ps) -> f64 {
    ps as f64 / US as f64
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn serialization_ps__exact_at_10_and_40_gbps() {
        assert_eq!(serialization_ps(1538, 10_000_000_000), 1_230_400);
        assert_eq!(serialization_ps(1538, 40_000_000_000), 307_600);
        assert_eq!(serialization_ps(0, 10_000_000_000), 0);
    }

    #[test]
    fn serialization_ps__rounds_up() {
        // 1 byte at 3 bit/s = 8/3 s.
        assert_eq!(serialization_ps(1, 3), 2_666_666_666_667);
    }

    #[test]
    fn serialization_ps__zero_rate_and_huge_sizes_do_not_panic() {
        assert_eq!(serialization_ps(1, 0), 8 * SEC);
        assert_eq!(serialization_ps(u64::MAX, 1), Ps::MAX);
    }

    #[test]
    fn conversions__round_trip() {
        assert_eq!(ns_to_ps(3), 3_000);
        assert_eq!(us_to_ps(2), 2 * US);
        assert_eq!(ns_f64_to_ps(1.5), 1_500);
        assert_eq!(ns_f64_to_ps(-4.0), 0);
        assert_eq!(ps_to_ns(2_500), 2.5);
        assert_eq!(ps_to_us(1_500_000), 1.5);
        assert_eq!(ns_to_ps(u64::MAX), u64::MAX);
    }
}

/// The simulated time that hosts read, shared by a simulator and the host software it runs
/// (a `homa_host::Clock`): the simulator sets it before each host step. Clones share it.
#[derive(Debug, Clone, Default)]
pub struct SimClock(std::sync::Arc<std::sync::atomic::AtomicU64>);

impl SimClock {
    /// A clock at time 0.
    pub fn new() -> Self {
        Self::default()
    }

    /// Moves the clock to `t` (never back).
    pub fn set(&self, t: Ps) {
        self.0.fetch_max(t, std::sync::atomic::Ordering::Relaxed);
    }

    /// The time in picoseconds.
    pub fn now_ps(&self) -> Ps {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl homa_host::Clock for SimClock {
    fn now(&self) -> homa_proto::core::Instant {
        homa_proto::core::Instant::from_nanos(self.now_ps() / 1_000)
    }
}
