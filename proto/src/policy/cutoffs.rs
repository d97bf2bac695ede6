//! Unscheduled priority cutoffs from a message-size distribution (SPEC §2.5).
//!
//! The method is HomaModule's `util/homa_prio.cc`: the share of unscheduled bytes decides how
//! many of the levels are unscheduled (at least one), and within those levels the cutoffs
//! split the unscheduled bytes evenly, shorter messages higher. The SIGCOMM'18 simulator's
//! `STATIC_CBF_GRADUATED` splits the same cumulative-bytes function the same way; callers that
//! want the paper's per-workload split pass `unsched_levels` explicitly.

use crate::wire::NUM_PRIORITIES;

/// Cutoffs for a distribution given as `(size_bytes, probability)` pairs in ascending size.
///
/// - `unsched_bytes`: how many bytes of each message go unscheduled.
/// - `unsched_levels`: how many of the eight levels carry unscheduled packets, or `None` to
///   derive it as round(8 × unscheduled share of bytes), at least 1.
/// - `max_message_length`: the value written into the catch-all levels (the lowest
///   unscheduled one and every scheduled one below it).
///
/// The result is non-increasing; its level `8 - levels` and all below hold
/// `max_message_length`.
pub fn from_distribution(
    dist: &[(u32, f64)],
    unsched_bytes: u32,
    unsched_levels: Option<u8>,
    max_message_length: u32,
) -> [u32; NUM_PRIORITIES] {
    let unsched = |s: u32| f64::from(s.min(unsched_bytes));
    let total: f64 = dist.iter().map(|&(s, p)| p * f64::from(s)).sum();
    let total_unsched: f64 = dist.iter().map(|&(s, p)| p * unsched(s)).sum();
    let levels = match unsched_levels {
        Some(n) => usize::from(n).clamp(1, NUM_PRIORITIES),
        None if total > 0.0 => ((NUM_PRIORITIES as f64 * total_unsched / total).round() as usize)
            .clamp(1, NUM_PRIORITIES),
        None => 1,
    };
    let mut cutoffs = [max_message_length; NUM_PRIORITIES];
    // Walk sizes ascending; close level 7, 6, ... each time the cumulative unscheduled bytes
    // pass the next multiple of the per-level share. The last (lowest) unscheduled level is
    // the catch-all and keeps max_message_length.
    let per_level = total_unsched / levels as f64;
    let mut cumulative = 0.0;
    let mut level = NUM_PRIORITIES - 1;
    let lowest = NUM_PRIORITIES - levels;
    for &(size, p) in dist {
        if level <= lowest {
            break;
        }
        cumulative += p * unsched(size);
        // A size that carries more than one share closes several levels (leaving the upper
        // ones unused), as homa_prio does.
        while level > lowest {
            let closed = NUM_PRIORITIES - 1 - level;
            if cumulative < per_level * (closed + 1) as f64 * (1.0 - 1e-12) {
                break;
            }
            cutoffs[level] = size;
            level -= 1;
        }
    }
    cutoffs
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use crate::policy::{max_sched_priority, unsched_priority};

    #[test]
    fn from_distribution__even_split_over_levels() {
        // Four equally likely sizes, all below unsched_bytes: each carries 100 bytes x p.
        let dist = [(100, 0.25), (200, 0.25), (300, 0.25), (400, 0.25)];
        // Bytes: 25, 50, 75, 100 of 250; four levels of 62.5 each.
        let c = from_distribution(&dist, 10_000, Some(4), 1_000_000);
        assert_eq!(
            c,
            [
                1_000_000, 1_000_000, 1_000_000, 1_000_000, 1_000_000, 400, 300, 200
            ]
        );
        assert_eq!(max_sched_priority(&c, 1_000_000), 3);
        assert_eq!(unsched_priority(&c, 150), 7);
        assert_eq!(unsched_priority(&c, 250), 6);
    }

    #[test]
    fn from_distribution__derives_level_count_from_unscheduled_share() {
        // Half the bytes are unscheduled: 4 of 8 levels.
        let dist = [(1_000, 0.5), (3_000, 0.5)];
        let c = from_distribution(&dist, 1_000, None, 1_000_000);
        // The 1000-byte messages carry two shares: levels 7 and 6 close at the same size.
        assert_eq!(
            c,
            [
                1_000_000, 1_000_000, 1_000_000, 1_000_000, 1_000_000, 3_000, 1_000, 1_000
            ]
        );
        assert_eq!(max_sched_priority(&c, 1_000_000), 3, "{c:?}");
        // All unscheduled bytes: all levels unscheduled, non-increasing.
        let c = from_distribution(&[(10, 0.5), (20, 0.5)], 1_000, None, 1_000_000);
        assert!(c.windows(2).all(|w| w[0] >= w[1]), "{c:?}");
        assert_eq!(c[0], 1_000_000);
    }

    #[test]
    fn from_distribution__single_level_is_all_catch_all() {
        let c = from_distribution(&[(5, 1.0)], 10, Some(1), 2_000_000);
        assert_eq!(c, [2_000_000; 8]);
        assert_eq!(max_sched_priority(&c, 2_000_000), 6);
    }
}
