//! Ring arithmetic shared by the driver (host side) and the NIC model (device side).
//!
//! A ring has `2^log2_size` slots. The producer and consumer indices are free-running `u32`
//! counters that wrap at 2^32 (a multiple of every ring size, so slots and phases stay
//! consistent across that wrap). Occupancy is `producer - consumer` (wrapping); the ring is
//! empty when they are equal and full when they are `size` apart. The slot of an index is
//! `index & (size - 1)`; its phase is 1 on the first pass over the ring, 0 on the second, and
//! so on, so zeroed ring memory never looks like a valid first-pass entry.
//!
//! `RingState` holds no memory and does no I/O: each side keeps one per ring, moves its own
//! index with [`push`](RingState::push)/[`pop`](RingState::pop), and learns the other side's
//! index from a register (or, for completions, from phase bits) through the checked
//! [`advance_producer_to`](RingState::advance_producer_to)/
//! [`advance_consumer_to`](RingState::advance_consumer_to).

use super::HostifError;

/// Smallest ring: 2 entries.
pub const MIN_LOG2_SIZE: u8 = 1;
/// Largest ring: 65536 entries.
pub const MAX_LOG2_SIZE: u8 = 16;

/// One side's view of a ring's indices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RingState {
    log2_size: u8,
    producer: u32,
    consumer: u32,
}

impl RingState {
    /// An empty ring of `2^log2_size` entries, both indices at 0.
    pub const fn new(log2_size: u8) -> Result<RingState, HostifError> {
        if log2_size < MIN_LOG2_SIZE || log2_size > MAX_LOG2_SIZE {
            return Err(HostifError::RingSize(log2_size));
        }
        Ok(RingState {
            log2_size,
            producer: 0,
            consumer: 0,
        })
    }

    /// log2 of the number of entries.
    pub const fn log2_size(&self) -> u8 {
        self.log2_size
    }

    /// Number of entries.
    pub const fn size(&self) -> u32 {
        1 << self.log2_size
    }

    /// The slot of a free-running index.
    pub const fn wrap(&self, index: u32) -> u32 {
        index & (self.size() - 1)
    }

    /// The phase bit of the entry written at `index`: true on the first pass over the ring,
    /// flipping on every wrap.
    pub const fn phase(&self, index: u32) -> bool {
        (index >> self.log2_size) & 1 == 0
    }

    /// The next index the producer writes.
    pub const fn producer(&self) -> u32 {
        self.producer
    }

    /// The next index the consumer reads.
    pub const fn consumer(&self) -> u32 {
        self.consumer
    }

    /// Entries produced and not yet consumed.
    pub const fn len(&self) -> u32 {
        self.producer.wrapping_sub(self.consumer)
    }

    /// Free slots.
    pub const fn free(&self) -> u32 {
        self.size() - self.len()
    }

    /// No entry to consume.
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// No free slot.
    pub const fn is_full(&self) -> bool {
        self.len() == self.size()
    }

    /// Claims the producer's next index (write the entry at `wrap(index)`, with
    /// `phase(index)`), or fails when the ring is full.
    pub fn push(&mut self) -> Result<u32, HostifError> {
        if self.is_full() {
            return Err(HostifError::RingFull(self.size()));
        }
        let index = self.producer;
        self.producer = self.producer.wrapping_add(1);
        Ok(index)
    }

    /// Takes the consumer's next index, or fails when the ring is empty.
    pub fn pop(&mut self) -> Result<u32, HostifError> {
        if self.is_empty() {
            return Err(HostifError::RingEmpty);
        }
        let index = self.consumer;
        self.consumer = self.consumer.wrapping_add(1);
        Ok(index)
    }

    /// Takes the producer index the other side reports. It may only move forward, and by no
    /// more than the free slots.
    pub fn advance_producer_to(&mut self, index: u32) -> Result<(), HostifError> {
        let ahead = index.wrapping_sub(self.consumer);
        if ahead < self.len() || ahead > self.size() {
            return Err(HostifError::IndexOutOfRange {
                which: "producer",
                index,
                low: self.producer,
                high: self.consumer.wrapping_add(self.size()),
            });
        }
        self.producer = index;
        Ok(())
    }

    /// Takes the consumer index the other side reports. It may only move forward, and no
    /// further than the producer.
    pub fn advance_consumer_to(&mut self, index: u32) -> Result<(), HostifError> {
        if index.wrapping_sub(self.consumer) > self.len() {
            return Err(HostifError::IndexOutOfRange {
                which: "consumer",
                index,
                low: self.consumer,
                high: self.producer,
            });
        }
        self.consumer = index;
        Ok(())
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    #[test]
    fn ring_state__basics() {
        let mut r = RingState::new(2).unwrap();
        assert_eq!((r.size(), r.len(), r.free()), (4, 0, 4));
        assert!(r.is_empty());
        for i in 0..4 {
            assert_eq!(r.push(), Ok(i));
        }
        assert!(r.is_full());
        assert_eq!(r.push(), Err(HostifError::RingFull(4)));
        assert_eq!(r.pop(), Ok(0));
        assert_eq!(r.push(), Ok(4));
        assert_eq!(r.wrap(4), 0);
        while r.pop().is_ok() {}
        assert_eq!(r.pop(), Err(HostifError::RingEmpty));
        assert_eq!((r.producer(), r.consumer()), (5, 5));
    }

    #[test]
    fn new__refuses_sizes_outside_limits() {
        assert_eq!(RingState::new(0), Err(HostifError::RingSize(0)));
        assert_eq!(RingState::new(17), Err(HostifError::RingSize(17)));
        assert!(RingState::new(MAX_LOG2_SIZE).is_ok());
    }

    #[test]
    fn phase__flips_on_each_wrap() {
        let r = RingState::new(3).unwrap();
        let phases: Vec<bool> = (0..32).step_by(4).map(|i| r.phase(i)).collect();
        assert_eq!(phases, [true, true, false, false, true, true, false, false]);
        // 2^32 is a multiple of every ring size: the phase sequence carries on.
        assert!(!r.phase(u32::MAX));
        assert!(r.phase(0));
    }

    #[test]
    fn indices__wrap_at_u32_max() {
        let near_end = u32::MAX - 3;
        let mut r = RingState {
            log2_size: 1,
            producer: near_end,
            consumer: near_end,
        };
        let start = r.producer();
        for _ in 0..10 {
            let i = r.push().unwrap();
            assert_eq!(r.wrap(i), i & 1);
            assert_eq!(r.pop(), Ok(i));
        }
        assert_eq!(r.producer(), start.wrapping_add(10));
    }

    #[test]
    fn advance_producer_to__checks_range() {
        let mut r = RingState::new(2).unwrap();
        r.advance_producer_to(3).unwrap();
        assert_eq!(r.len(), 3);
        assert!(matches!(
            r.advance_producer_to(2),
            Err(HostifError::IndexOutOfRange {
                which: "producer",
                ..
            })
        ));
        assert_eq!(
            r.advance_producer_to(5),
            Err(HostifError::IndexOutOfRange {
                which: "producer",
                index: 5,
                low: 3,
                high: 4
            })
        );
        r.advance_producer_to(4).unwrap();
        assert!(r.is_full());
    }

    #[test]
    fn advance_consumer_to__checks_range() {
        let mut r = RingState::new(2).unwrap();
        r.push().unwrap();
        r.push().unwrap();
        assert_eq!(
            r.advance_consumer_to(3),
            Err(HostifError::IndexOutOfRange {
                which: "consumer",
                index: 3,
                low: 0,
                high: 2
            })
        );
        r.advance_consumer_to(2).unwrap();
        assert!(r.is_empty());
        assert!(r.advance_consumer_to(1).is_err(), "never backwards");
    }

    proptest! {
        /// The ring agrees with a bounded queue model on any push/pop sequence, starting
        /// anywhere in the index space.
        #[test]
        fn push_pop__match_queue_model(
            log2 in 1u8..=4,
            start in any::<u32>(),
            ops in proptest::collection::vec(any::<bool>(), 0..200),
        ) {
            let mut r = RingState { log2_size: log2, producer: start, consumer: start };
            let mut model = VecDeque::new();
            let size = 1usize << log2;
            for push in ops {
                if push {
                    let got = r.push();
                    if model.len() == size {
                        prop_assert_eq!(got, Err(HostifError::RingFull(size as u32)));
                    } else {
                        let i = got.unwrap();
                        model.push_back(i);
                    }
                } else {
                    prop_assert_eq!(r.pop().ok(), model.pop_front());
                }
                prop_assert_eq!(r.len() as usize, model.len());
            }
        }
    }
}
