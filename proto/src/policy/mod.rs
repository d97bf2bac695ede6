//! Homa's decisions as pure functions over small state: the **reference model** that the
//! hardware grant generator and SRPT scheduler must match decision for decision.
//!
//! `proto::core` calls exactly these functions, so a disagreement between the RTL and the
//! software engine is a disagreement with one of them. Each takes plain values (no engine
//! state, no time source) and is deterministic: ties are broken by the `age` sequence number
//! (smaller = older = wins), never by hash order.
//!
//! - [`choose_active`]: which inbound messages receive grants (SRPT with overcommitment and
//!   per-peer fairness, SPEC §2.4).
//! - [`sched_priority`]: the scheduled priority of the message at a rank.
//! - [`grant_target`]: how far to grant one active message.
//! - [`srpt_pick`]: which outbound message sends next; [`oldest_pick`] and [`FifoTurns`]:
//!   the share of sends that go to the oldest instead, so that SRPT starves no message.
//! - [`unsched_priority`] and [`max_sched_priority`]: reading the unscheduled cutoffs.
//! - [`cutoffs`]: computing cutoffs from a message-size distribution.
//! - [`bucket`]: SRPT at packet granularity, the bucketed queue the hardware keeps in block
//!   RAM.

pub mod bucket;
pub mod cutoffs;

use crate::wire::NUM_PRIORITIES;

/// An inbound message that still needs grants, as the grant policy sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GrantCandidate {
    /// Identifies the sending peer (for fairness); any stable value.
    pub peer: u32,
    /// Bytes of the message not yet received (the SRPT key).
    pub bytes_remaining: u32,
    /// Arrival order of the message's first packet (smaller = older).
    pub age: u64,
}

/// Whether `a` outranks `b`: fewer unreceived bytes, then older (HomaModule
/// `homa_grant_outranks`).
pub fn outranks(a: &GrantCandidate, b: &GrantCandidate) -> bool {
    (a.bytes_remaining, a.age) < (b.bytes_remaining, b.age)
}

/// Chooses the active set: at most `max_overcommit` candidates, best first.
///
/// Each peer's best message is considered first, so that one sender cannot take every slot
/// (HomaModule prefers peers with fewer active RPCs; in effect one per sender unless slots
/// are free); slots still free after that go to the remaining candidates by rank. Returns
/// indices into `candidates`, in rank order (rank 0 = best).
pub fn choose_active(candidates: &[GrantCandidate], max_overcommit: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..candidates.len()).collect();
    order.sort_by_key(|&i| (candidates[i].bytes_remaining, candidates[i].age));
    let mut chosen = Vec::with_capacity(max_overcommit.min(candidates.len()));
    let mut seen_peers: Vec<u32> = Vec::with_capacity(max_overcommit);
    let mut second_round = Vec::new();
    for &i in &order {
        if chosen.len() == max_overcommit {
            break;
        }
        let peer = candidates[i].peer;
        if seen_peers.contains(&peer) {
            second_round.push(i);
        } else {
            seen_peers.push(peer);
            chosen.push(i);
        }
    }
    for i in second_round {
        if chosen.len() == max_overcommit {
            break;
        }
        chosen.push(i);
    }
    chosen.sort_by_key(|&i| (candidates[i].bytes_remaining, candidates[i].age));
    chosen
}

/// The scheduled priority for the active message of `rank` (0 = best) among `active`
/// messages, with scheduled levels `0..=max_sched_prio` (HomaModule `homa_grant_priority`).
///
/// Higher ranks get lower levels; when there are fewer active messages than levels, they use
/// the lowest levels, keeping the upper ones free for a shorter message that arrives later.
pub fn sched_priority(rank: usize, active: usize, max_sched_prio: u8) -> u8 {
    let levels = usize::from(max_sched_prio) + 1;
    let mut prio = usize::from(max_sched_prio).saturating_sub(rank);
    if active <= levels {
        prio = prio.saturating_sub(levels - active);
    }
    prio as u8
}

/// How far an active message should be granted: `received + window`, at most its length,
/// never below what is already granted, and within the receiver's remaining budget
/// `headroom` (bytes that may still be outstanding across all messages).
///
/// Returns the new granted offset (equal to `granted` when nothing more is granted).
pub fn grant_target(length: u32, received: u32, granted: u32, window: u32, headroom: u64) -> u32 {
    let want = received.saturating_add(window).min(length);
    if want <= granted {
        return granted;
    }
    let more = u64::from(want - granted).min(headroom);
    granted + more as u32
}

/// The per-message window: the fixed `window`, or when it is 0 the dynamic
/// `max_incoming / (active + 1)` (HomaModule `homa_grant_update_sysctl_deps`).
pub fn window(window: u32, max_incoming: u32, active: usize) -> u32 {
    if window != 0 {
        window
    } else {
        max_incoming / (active as u32 + 1)
    }
}

/// The time between FIFO grants (HomaModule's `grant_fifo_fraction`, SPEC §2.4), in
/// nanoseconds: `increment` bytes at `per_mille` of a `link_mbps` link. `None` when FIFO
/// grants are off (any of the three is 0).
pub fn fifo_interval_ns(increment: u32, link_mbps: u32, per_mille: u32) -> Option<u64> {
    let rate = u64::from(link_mbps) * u64::from(per_mille);
    let bits = u64::from(increment) * 8;
    (rate > 0 && bits > 0).then(|| bits * 1_000_000 / rate)
}

/// The level FIFO grants give: one below the control packets' (`num_priorities - 2`,
/// HomaModule's), 0 with one or two levels.
pub fn fifo_grant_priority(num_priorities: u8) -> u8 {
    num_priorities.saturating_sub(2)
}

/// [`fifo_interval_ns`] in cycles of a `clock_mhz` clock (the NIC's `fifo_grant_interval`):
/// at least 1, at most `u32::MAX`; 0 when FIFO grants are off.
pub fn fifo_interval_cycles(increment: u32, link_mbps: u32, per_mille: u32, clock_mhz: u32) -> u32 {
    let Some(ns) = fifo_interval_ns(increment, link_mbps, per_mille) else {
        return 0;
    };
    (u128::from(ns) * u128::from(clock_mhz) / 1000).clamp(1, u128::from(u32::MAX)) as u32
}

/// An outbound message that has bytes it may send now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxCandidate {
    /// Bytes of the message not yet transmitted (the SRPT key).
    pub bytes_remaining: u32,
    /// Creation order (smaller = older).
    pub age: u64,
}

/// The sender's SRPT: the position of the candidate with the fewest bytes left to send,
/// older first on ties.
pub fn srpt_pick(candidates: impl IntoIterator<Item = TxCandidate>) -> Option<usize> {
    candidates
        .into_iter()
        .enumerate()
        .min_by_key(|(_, c)| (c.bytes_remaining, c.age))
        .map(|(i, _)| i)
}

/// A FIFO turn of the sender: the position of the oldest candidate.
pub fn oldest_pick(candidates: impl IntoIterator<Item = TxCandidate>) -> Option<usize> {
    candidates
        .into_iter()
        .enumerate()
        .min_by_key(|(_, c)| c.age)
        .map(|(i, _)| i)
}

/// Which sender picks are FIFO turns (HomaModule's `pacer_fifo_fraction`, SPEC §2.2): of
/// every thousand picks among messages that compete, `per_mille` go to the oldest message
/// ([`oldest_pick`]) and the rest by SRPT ([`srpt_pick`]). SRPT alone lets a long message
/// wait for ever while shorter ones keep coming; the turns bound its wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FifoTurns {
    per_mille: u32,
    /// Per mille of a turn earned by the picks so far; at 1000 the next pick is a turn.
    credit: u32,
}

impl FifoTurns {
    /// Turns for `per_mille` of the picks (at most 1000; 0 = SRPT alone).
    pub const fn new(per_mille: u32) -> Self {
        let per_mille = if per_mille > 1000 { 1000 } else { per_mille };
        FifoTurns {
            per_mille,
            credit: 0,
        }
    }

    /// Whether the next pick goes to the oldest message.
    pub fn oldest_next(&self) -> bool {
        self.credit >= 1000
    }

    /// The next pick was made (the kind [`oldest_next`](Self::oldest_next) named).
    pub fn picked(&mut self) {
        if self.credit >= 1000 {
            self.credit -= 1000;
        }
        self.credit += self.per_mille;
    }

    /// Makes the next pick: whether it goes to the oldest message.
    pub fn take(&mut self) -> bool {
        let turn = self.oldest_next();
        self.picked();
        turn
    }
}

/// HomaModule's default share of FIFO turns (`pacer_fifo_fraction`, per mille).
pub const DEFAULT_PACER_FIFO_FRACTION: u32 = 50;

/// The unscheduled priority of a message of `length` bytes: the largest level whose cutoff
/// is at least the length (SPEC §1.9); 0 if none is.
pub fn unsched_priority(cutoffs: &[u32; NUM_PRIORITIES], length: u32) -> u8 {
    (0..NUM_PRIORITIES)
        .rev()
        .find(|&i| cutoffs[i] >= length)
        .unwrap_or(0) as u8
}

/// The highest scheduled level implied by a set of cutoffs: one below the highest level whose
/// cutoff is at least `max_message_length` (that level is the lowest unscheduled one);
/// 0 when it is level 0 (HomaModule `homa_prios_changed`).
pub fn max_sched_priority(cutoffs: &[u32; NUM_PRIORITIES], max_message_length: u32) -> u8 {
    let lowest_unsched = (0..NUM_PRIORITIES)
        .rev()
        .find(|&i| cutoffs[i] >= max_message_length)
        .unwrap_or(0);
    lowest_unsched.saturating_sub(1) as u8
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    fn c(peer: u32, bytes_remaining: u32, age: u64) -> GrantCandidate {
        GrantCandidate {
            peer,
            bytes_remaining,
            age,
        }
    }

    #[test]
    fn choose_active__srpt_order_with_ties_to_older() {
        let cands = [c(1, 500, 3), c(2, 100, 5), c(3, 500, 1), c(4, 900, 0)];
        assert_eq!(choose_active(&cands, 8), vec![1, 2, 0, 3]);
        assert_eq!(choose_active(&cands, 2), vec![1, 2]);
        assert_eq!(choose_active(&cands, 0), Vec::<usize>::new());
    }

    #[test]
    fn choose_active__one_per_peer_before_second_messages() {
        // Peer 1 has the two best messages; with two slots, peer 2 still gets one.
        let cands = [c(1, 10, 0), c(1, 20, 1), c(2, 30, 2)];
        assert_eq!(choose_active(&cands, 2), vec![0, 2]);
        // With free slots, the second message of peer 1 is admitted, in rank order.
        assert_eq!(choose_active(&cands, 3), vec![0, 1, 2]);
    }

    #[test]
    fn sched_priority__uses_lowest_levels_when_few_active() {
        // Four scheduled levels (0..=3).
        assert_eq!(sched_priority(0, 1, 3), 0);
        assert_eq!(
            (0..2).map(|r| sched_priority(r, 2, 3)).collect::<Vec<_>>(),
            [1, 0]
        );
        assert_eq!(
            (0..4).map(|r| sched_priority(r, 4, 3)).collect::<Vec<_>>(),
            [3, 2, 1, 0]
        );
        // More active than levels: the surplus shares level 0.
        assert_eq!(
            (0..6).map(|r| sched_priority(r, 6, 3)).collect::<Vec<_>>(),
            [3, 2, 1, 0, 0, 0]
        );
        // A single scheduled level.
        assert_eq!(sched_priority(2, 3, 0), 0);
    }

    #[test]
    fn grant_target__window_length_and_headroom() {
        assert_eq!(
            grant_target(100_000, 20_000, 10_000, 10_000, u64::MAX),
            30_000
        );
        assert_eq!(
            grant_target(25_000, 20_000, 10_000, 10_000, u64::MAX),
            25_000
        );
        assert_eq!(grant_target(100_000, 20_000, 10_000, 10_000, 4_000), 14_000);
        assert_eq!(grant_target(100_000, 0, 10_000, 10_000, u64::MAX), 10_000);
        assert_eq!(grant_target(100_000, 20_000, 10_000, 10_000, 0), 10_000);
    }

    #[test]
    fn window__fixed_or_dynamic() {
        assert_eq!(window(10_000, 400_000, 8), 10_000);
        assert_eq!(window(0, 400_000, 8), 44_444);
        assert_eq!(window(0, 400_000, 0), 400_000);
    }

    #[test]
    fn srpt_pick__fewest_remaining_then_oldest() {
        let t = |bytes_remaining, age| TxCandidate {
            bytes_remaining,
            age,
        };
        assert_eq!(srpt_pick([]), None);
        assert_eq!(srpt_pick([t(5, 2), t(3, 9), t(3, 4)]), Some(2));
        assert_eq!(oldest_pick([]), None);
        assert_eq!(oldest_pick([t(5, 2), t(3, 9), t(3, 4)]), Some(0));
    }

    #[test]
    fn fifo_interval__80_us_for_50_kb_at_5_percent_of_100_gbps() {
        assert_eq!(fifo_interval_ns(50_000, 100_000, 50), Some(80_000));
        assert_eq!(fifo_interval_cycles(50_000, 100_000, 50, 250), 20_000);
        assert_eq!(fifo_interval_ns(50_000, 100_000, 0), None);
        assert_eq!(fifo_interval_cycles(0, 100_000, 50, 250), 0);
        assert_eq!(fifo_interval_cycles(1, 100_000, 500, 1), 1);
        assert_eq!(fifo_interval_cycles(u32::MAX, 1, 1, 1000), u32::MAX);
    }

    #[test]
    fn fifo_turns__one_pick_in_twenty_at_50_per_mille() {
        let turns = |per_mille, picks| {
            let mut f = FifoTurns::new(per_mille);
            (0..picks)
                .filter(|_| {
                    let turn = f.oldest_next();
                    f.picked();
                    turn
                })
                .count()
        };
        assert_eq!(turns(50, 20), 0, "the first turn is the 21st pick");
        assert_eq!(turns(50, 21), 1);
        assert_eq!(turns(50, 2_001), 100);
        assert_eq!(turns(0, 10_000), 0, "0 is SRPT alone");
        assert_eq!(turns(1000, 10), 9, "every pick after the first");
    }

    #[test]
    fn unsched_priority__homamodule_defaults() {
        let cutoffs = [
            1_000_000, 1_000_000, 1_000_000, 1_000_000, 1_000_000, 15_000, 2_800, 200,
        ];
        assert_eq!(unsched_priority(&cutoffs, 1), 7);
        assert_eq!(unsched_priority(&cutoffs, 200), 7);
        assert_eq!(unsched_priority(&cutoffs, 201), 6);
        assert_eq!(unsched_priority(&cutoffs, 15_000), 5);
        assert_eq!(unsched_priority(&cutoffs, 999_999), 4);
        assert_eq!(max_sched_priority(&cutoffs, 1_000_000), 3);
        let w1 = [1_000_000, 12288, 2112, 1280, 832, 576, 384, 192];
        assert_eq!(max_sched_priority(&w1, 1_000_000), 0);
        assert_eq!(unsched_priority(&w1, 13_000), 0);
    }
}
