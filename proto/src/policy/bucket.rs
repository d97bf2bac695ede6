//! SRPT at packet granularity: the **bucketed queue** that the hardware's grant generator
//! and transmit scheduler keep in block RAM, and its key.
//!
//! A message's key is the number of full packets its remaining bytes make
//! ([`packets_left`]): 10 bits cover a 1 MB message at 1,442 bytes a packet (730), and every
//! longer message shares the last bucket. Each key is one **bucket**, a first-in first-out
//! list of messages. The queue's order is the buckets' order, fewest packets first, and
//! within a bucket the order the messages entered it: a message that reaches a packet count
//! goes after those that reached it before. That replaces the byte-exact order (fewer bytes,
//! then older) by one that hardware keeps in constant time per operation, whatever the
//! number of messages: an insert appends to its bucket's list, a move unlinks and appends,
//! and the first message is the head of the first bucket whose bit is set in a bitmap.
//!
//! Two messages can only trade places here when their remaining bytes differ by less than a
//! packet, so the order is SRPT to within one packet.

use std::collections::VecDeque;

use super::{GrantCandidate, choose_active};

/// The messages a grant decision over the queue looks at: the first this many in queue order.
/// The hardware walks the queue from its head and stops once it has `max_overcommit` peers or
/// this many messages; 32 walked entries take 32 to 130 cycles.
pub const DEFAULT_LOOKAHEAD: usize = 32;

/// The active set over a queue: [`choose_active`] over the first `lookahead` messages of
/// `peers` (each message's peer, in queue order, as [`BucketQueue::iter`] gives them), with
/// the queue's order as the rank. Returns positions in `peers`, best first.
///
/// Equal to [`choose_active`] over the whole queue whenever `max_overcommit` distinct peers
/// appear among the first `lookahead` messages (the walk then has every message the decision
/// can take). Otherwise one peer's many short messages can hide another peer's message
/// further down: that message waits until the queue ahead of it shortens, as a message
/// beyond the overcommitment does.
pub fn choose_active_queued(peers: &[u32], max_overcommit: usize, lookahead: usize) -> Vec<usize> {
    let seen: Vec<GrantCandidate> = peers
        .iter()
        .take(lookahead)
        .enumerate()
        .map(|(i, &peer)| GrantCandidate {
            peer,
            bytes_remaining: i as u32,
            age: i as u64,
        })
        .collect();
    choose_active(&seen, max_overcommit)
}

/// The number of keys, and of buckets: 10 bits of packets.
pub const BUCKETS: usize = 1024;

/// The largest key (every message of more packets shares it).
pub const MAX_KEY: u16 = (BUCKETS - 1) as u16;

/// A message's key: the packets of `max_payload` bytes its `bytes_remaining` make, rounded
/// up, at most [`MAX_KEY`]. A `max_payload` of 0 is taken as 1.
pub fn packets_left(bytes_remaining: u32, max_payload: u32) -> u16 {
    let packets = bytes_remaining.div_ceil(max_payload.max(1));
    packets.min(u32::from(MAX_KEY)) as u16
}

/// The reference bucketed queue over entries `0..entries`: each entry is in at most one
/// bucket.
#[derive(Debug, Clone)]
pub struct BucketQueue {
    buckets: Vec<VecDeque<u32>>,
    key: Vec<Option<u16>>,
    len: usize,
}

impl BucketQueue {
    /// An empty queue for `entries` entries.
    pub fn new(entries: usize) -> Self {
        BucketQueue {
            buckets: vec![VecDeque::new(); BUCKETS],
            key: vec![None; entries],
            len: 0,
        }
    }

    /// Queues `entry` under `key` (at most [`MAX_KEY`]; larger keys are clamped): appended to
    /// the bucket's list, after taking it out of the bucket it was in. An entry already under
    /// `key` keeps its place.
    ///
    /// # Panics
    /// If `entry` is not below the queue's number of entries (a caller's bug).
    pub fn set(&mut self, entry: u32, key: u16) {
        let key = key.min(MAX_KEY);
        if self.key[entry as usize] == Some(key) {
            return;
        }
        self.remove(entry);
        self.buckets[usize::from(key)].push_back(entry);
        self.key[entry as usize] = Some(key);
        self.len += 1;
    }

    /// Takes `entry` out of the queue, if it is queued.
    pub fn remove(&mut self, entry: u32) {
        if let Some(old) = self.key[entry as usize].take() {
            let list = &mut self.buckets[usize::from(old)];
            let at = list.iter().position(|&e| e == entry);
            if let Some(at) = at {
                list.remove(at);
            }
            self.len -= 1;
        }
    }

    /// The key `entry` is queued under, if it is queued.
    pub fn key(&self, entry: u32) -> Option<u16> {
        self.key.get(entry as usize).copied().flatten()
    }

    /// The queued entries with their keys, first first.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u16)> + '_ {
        self.buckets
            .iter()
            .enumerate()
            .flat_map(|(k, list)| list.iter().map(move |&e| (e, k as u16)))
    }

    /// The first entry and its key.
    pub fn first(&self) -> Option<(u32, u16)> {
        self.iter().next()
    }

    /// The number of queued entries.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no entry is queued.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of entries the queue was made for.
    pub fn entries(&self) -> usize {
        self.key.len()
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn packets_left__rounds_up_and_clamps() {
        assert_eq!(packets_left(0, 1442), 0);
        assert_eq!(packets_left(1, 1442), 1);
        assert_eq!(packets_left(1442, 1442), 1);
        assert_eq!(packets_left(1443, 1442), 2);
        assert_eq!(packets_left(1_000_000, 1442), 694);
        assert_eq!(packets_left(u32::MAX, 1442), MAX_KEY);
        assert_eq!(packets_left(5, 0), 5);
    }

    #[test]
    fn bucket_queue__fewest_packets_first_then_arrival_in_the_bucket() {
        let mut q = BucketQueue::new(8);
        q.set(3, 7);
        q.set(1, 2);
        q.set(5, 7);
        q.set(2, 2);
        assert_eq!(
            q.iter().collect::<Vec<_>>(),
            [(1, 2), (2, 2), (3, 7), (5, 7)]
        );
        // A move goes to the back of its new bucket; setting the same key keeps the place.
        q.set(3, 2);
        q.set(1, 2);
        assert_eq!(
            q.iter().collect::<Vec<_>>(),
            [(1, 2), (2, 2), (3, 2), (5, 7)]
        );
        q.remove(2);
        q.remove(2);
        assert_eq!(q.first(), Some((1, 2)));
        assert_eq!(q.len(), 3);
        assert_eq!(q.key(5), Some(7));
        assert_eq!(q.key(2), None);
        q.set(4, u16::MAX);
        assert_eq!(q.key(4), Some(MAX_KEY));
    }

    #[test]
    fn choose_active_queued__a_bounded_walk_in_queue_order() {
        // Peers in queue order: 1 holds the first three places.
        let peers = [1, 1, 1, 2, 3, 2];
        assert_eq!(choose_active_queued(&peers, 2, 32), [0, 3]);
        assert_eq!(choose_active_queued(&peers, 4, 32), [0, 1, 3, 4]);
        // Looking at three messages only, peer 1's hide peer 2's.
        assert_eq!(choose_active_queued(&peers, 2, 3), [0, 1]);
        assert_eq!(choose_active_queued(&[], 8, 32), Vec::<usize>::new());
    }

    proptest! {
        /// With enough distinct peers in the window, the bound changes nothing.
        #[test]
        fn choose_active_queued__equals_the_unbounded_choice_when_peers_suffice(
            peers in proptest::collection::vec(0u32..6, 0..60),
            k in 1usize..8,
            lookahead in 1usize..40,
        ) {
            let window: std::collections::BTreeSet<u32> =
                peers.iter().take(lookahead).copied().collect();
            let got = choose_active_queued(&peers, k, lookahead);
            let all = choose_active_queued(&peers, k, usize::MAX);
            if window.len() >= k || lookahead >= peers.len() {
                prop_assert_eq!(got, all);
            } else {
                prop_assert!(got.iter().all(|&i| i < lookahead));
            }
        }

        /// The queue equals a list sorted by (key, time of the last key change).
        #[test]
        fn bucket_queue__equals_a_sort_by_key_then_entry_time(
            ops in proptest::collection::vec((0u32..16, proptest::option::of(0u16..6)), 0..200)
        ) {
            let mut q = BucketQueue::new(16);
            let mut naive: Vec<Option<(u16, usize)>> = vec![None; 16];
            for (t, (entry, key)) in ops.into_iter().enumerate() {
                match key {
                    Some(k) => {
                        q.set(entry, k);
                        if naive[entry as usize].map(|(old, _)| old) != Some(k) {
                            naive[entry as usize] = Some((k, t));
                        }
                    }
                    None => {
                        q.remove(entry);
                        naive[entry as usize] = None;
                    }
                }
                let mut want: Vec<(u16, usize, u32)> = naive
                    .iter()
                    .enumerate()
                    .filter_map(|(e, x)| x.map(|(k, t)| (k, t, e as u32)))
                    .collect();
                want.sort();
                let want: Vec<(u32, u16)> = want.into_iter().map(|(k, _, e)| (e, k)).collect();
                prop_assert_eq!(q.iter().collect::<Vec<_>>(), want.clone());
                prop_assert_eq!(q.len(), want.len());
            }
        }
    }
}
