//! A deterministic discrete-event queue ordered by (time, insertion sequence).
//!
//! Events that share a time pop in the order they were pushed. General events go to a binary
//! min-heap of small keys whose payloads sit in a slab of reusable slots. A caller that knows a
//! stream of its events is pushed in non-decreasing time order (typically "now + a fixed
//! delay") can push it into a FIFO lane with [`EventQueue::push_fifo`], which costs O(1) instead
//! of O(log n); the ordering is the same either way.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

use crate::time::Ps;

/// Largest number of FIFO lanes; pushes to higher lane numbers go to the heap.
pub const MAX_LANES: usize = 16;

/// Heap key; ordered so that `BinaryHeap` (a max-heap) yields the earliest (time, seq) first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Key {
    time: Ps,
    seq: u64,
    slot: usize,
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Deterministic min-queue of events of type `E` keyed by time, ties broken by push order.
#[derive(Debug, Clone)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Key>,
    slots: Vec<Option<E>>,
    free: Vec<usize>,
    /// FIFO lanes of (time, seq, event), each in non-decreasing (time, seq) order.
    lanes: Vec<VecDeque<(Ps, u64, E)>>,
    next_seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

/// Where the earliest event is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    Heap,
    Lane(usize),
}

impl<E> EventQueue<E> {
    /// An empty queue.
    pub fn new() -> Self {
        Self {
            heap: BinaryHeap::new(),
            slots: Vec::new(),
            free: Vec::new(),
            lanes: Vec::new(),
            next_seq: 0,
        }
    }

    #[inline]
    fn take_seq(&mut self) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        seq
    }

    /// Schedules `event` at time `at`.
    pub fn push(&mut self, at: Ps, event: E) {
        let seq = self.take_seq();
        self.push_heap(at, seq, event);
    }

    fn push_heap(&mut self, at: Ps, seq: u64, event: E) {
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot] = Some(event);
                slot
            }
            None => {
                self.slots.push(Some(event));
                self.slots.len() - 1
            }
        };
        self.heap.push(Key {
            time: at,
            seq,
            slot,
        });
    }

    /// Schedules `event` at time `at` through FIFO lane `lane` (< [`MAX_LANES`]): O(1) when `at`
    /// is not before the lane's last event; otherwise, or for a lane out of range, it goes to
    /// the heap. Pop order is exactly that of [`Self::push`].
    pub fn push_fifo(&mut self, lane: usize, at: Ps, event: E) {
        let seq = self.take_seq();
        if lane >= MAX_LANES {
            return self.push_heap(at, seq, event);
        }
        if self.lanes.len() <= lane {
            self.lanes.resize_with(lane + 1, VecDeque::new);
        }
        let fits = self.lanes[lane].back().is_none_or(|&(t, _, _)| t <= at);
        if fits {
            self.lanes[lane].push_back((at, seq, event));
        } else {
            self.push_heap(at, seq, event);
        }
    }

    /// Where the earliest (time, seq) event is, if any.
    #[inline]
    fn earliest(&self) -> Option<(Ps, Source)> {
        let mut best = self.heap.peek().map(|k| ((k.time, k.seq), Source::Heap));
        for (i, lane) in self.lanes.iter().enumerate() {
            if let Some(&(t, seq, _)) = lane.front()
                && best.is_none_or(|(key, _)| (t, seq) < key)
            {
                best = Some(((t, seq), Source::Lane(i)));
            }
        }
        best.map(|((t, _), source)| (t, source))
    }

    /// Removes and returns the earliest event (the first pushed among equal times).
    pub fn pop(&mut self) -> Option<(Ps, E)> {
        self.pop_until(Ps::MAX)
    }

    /// Like [`Self::pop`], but only if the earliest event's time is <= `until`.
    pub fn pop_until(&mut self, until: Ps) -> Option<(Ps, E)> {
        let (time, source) = self.earliest()?;
        if time > until {
            return None;
        }
        match source {
            Source::Heap => {
                let key = self.heap.pop()?;
                let event = self.slots.get_mut(key.slot).and_then(Option::take)?;
                self.free.push(key.slot);
                Some((key.time, event))
            }
            Source::Lane(i) => self.lanes[i].pop_front().map(|(t, _, e)| (t, e)),
        }
    }

    /// Time of the earliest event, if any.
    pub fn peek_time(&self) -> Option<Ps> {
        self.earliest().map(|(t, _)| t)
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len() + self.lanes.iter().map(VecDeque::len).sum::<usize>()
    }

    /// True when no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty() && self.lanes.iter().all(VecDeque::is_empty)
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use crate::rng::seeded_rng;
    use rand::RngExt;

    #[test]
    fn pop__returns_events_in_time_order() {
        let mut q = EventQueue::new();
        q.push(30, "c");
        q.push(10, "a");
        q.push(20, "b");
        assert_eq!(q.peek_time(), Some(10));
        assert_eq!(q.len(), 3);
        assert_eq!(q.pop_until(9), None);
        assert_eq!(q.pop_until(10), Some((10, "a")));
        assert_eq!(q.pop(), Some((20, "b")));
        assert_eq!(q.pop(), Some((30, "c")));
        assert_eq!(q.pop(), None);
        assert!(q.is_empty());
        assert_eq!(q.peek_time(), None);
    }

    #[test]
    fn pop__ties_in_insertion_order() {
        let mut q = EventQueue::new();
        for i in 0..100 {
            q.push(5, i);
        }
        q.push(4, -1);
        let got: Vec<i32> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        let mut want = vec![-1];
        want.extend(0..100);
        assert_eq!(got, want);
    }

    #[test]
    fn push_fifo__out_of_order_and_out_of_range_fall_back_to_the_heap() {
        let mut q = EventQueue::new();
        q.push_fifo(0, 100, 'a');
        q.push_fifo(0, 50, 'b'); // before the lane's back: heap
        q.push_fifo(MAX_LANES, 75, 'c');
        q.push(100, 'd');
        q.push_fifo(1, 100, 'e');
        assert_eq!(q.len(), 5);
        let got: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            got,
            [(50, 'b'), (75, 'c'), (100, 'a'), (100, 'd'), (100, 'e')]
        );
    }

    #[test]
    fn push__into_the_past_still_pops_in_order() {
        let mut q = EventQueue::new();
        q.push(100, 'a');
        q.push(200, 'b');
        assert_eq!(q.pop(), Some((100, 'a')));
        q.push(50, 'c');
        q.push(50, 'd');
        q.push(150, 'e');
        assert_eq!(q.peek_time(), Some(50));
        let got: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(got, [(50, 'c'), (50, 'd'), (150, 'e'), (200, 'b')]);
        q.push(0, 'z');
        assert_eq!(q.pop(), Some((0, 'z')));
        assert_eq!(q.len(), 0);
    }

    #[test]
    fn pop__matches_a_reference_heap_on_random_operations() {
        let mut rng = seeded_rng(3);
        let mut q = EventQueue::new();
        let mut reference = BinaryHeap::new();
        let mut seq = 0u64;
        let mut now = 0u64;
        for _ in 0..50_000 {
            if rng.random_bool(0.55) {
                // Mostly future events, a few into the past, many ties.
                let at = match rng.random_range(0..10) {
                    0 => now.saturating_sub(rng.random_range(0..1_000)),
                    1 => now,
                    2 => now + 1_000,
                    _ => {
                        let bits = rng.random_range(1..40);
                        now + rng.random_range(0..1u64 << bits)
                    }
                };
                match rng.random_range(0..4) {
                    0 => q.push(at, seq),
                    lane => q.push_fifo(lane, at, seq),
                }
                reference.push(std::cmp::Reverse((at, seq)));
                seq += 1;
            } else {
                assert_eq!(q.peek_time(), reference.peek().map(|r| r.0.0));
                let want = reference.pop().map(|r| r.0);
                let got = q.pop();
                assert_eq!(got, want);
                if let Some((t, _)) = got {
                    now = now.max(t);
                }
            }
            assert_eq!(q.len(), reference.len());
        }
        while let Some(std::cmp::Reverse(want)) = reference.pop() {
            assert_eq!(q.pop(), Some(want));
        }
        assert!(q.is_empty());
    }
}
