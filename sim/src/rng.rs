//! The simulator's seeded random generator: portable and reproducible across platforms.

use rand::SeedableRng;

/// The generator used everywhere in the simulator (xoshiro256++).
pub type SimRng = rand_xoshiro::Xoshiro256PlusPlus;

/// A generator seeded from `seed` (the same seed gives the same stream on every platform).
pub fn seeded_rng(seed: u64) -> SimRng {
    SimRng::seed_from_u64(seed)
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn seeded_rng__same_seed_same_stream() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = seeded_rng(7);
                move |_| r.random()
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map({
                let mut r = seeded_rng(7);
                move |_| r.random()
            })
            .collect();
        let c: u64 = seeded_rng(8).random();
        assert_eq!(a, b);
        assert_ne!(a[0], c);
    }
}
