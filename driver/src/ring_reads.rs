//! What completions prove about the NIC's progress through a producer ring: a completion for
//! a descriptor means the NIC read it, and it reads its rings in order, so every entry up to
//! that one is free again. The driver learns its rings' consumer indices this way instead of
//! reading the `_consumer` registers (a PCIe round trip the host waits for) whenever a ring
//! looks full.
//!
//! Completions name their descriptor by a key (an RX buffer's id, a TX descriptor's cookie),
//! which the host may reuse while an earlier descriptor with it is in flight: the indices
//! posted under one key are kept in order, and a completion under that key proves the
//! earliest of them read (the one it stands for is that one or a later one). An `ERROR`
//! completion carries its descriptor's exact index.

use std::collections::{HashMap, VecDeque};

/// The ring indices of the descriptors in flight, by key (see the module notes).
#[derive(Debug, Default)]
pub(crate) struct InFlight {
    by_key: HashMap<u64, VecDeque<u32>>,
}

impl InFlight {
    /// A descriptor with `key` was posted at free-running index `index`.
    pub(crate) fn posted(&mut self, key: u64, index: u32) {
        self.by_key.entry(key).or_default().push_back(index);
    }

    /// A completion for a descriptor with `key` came: an index the NIC has read, if one
    /// with that key was in flight.
    pub(crate) fn completed(&mut self, key: u64) -> Option<u32> {
        let q = self.by_key.get_mut(&key)?;
        let index = q.pop_front();
        if q.is_empty() {
            self.by_key.remove(&key);
        }
        index
    }

    /// A completion for the descriptor at exactly `index` (an `ERROR`) came.
    pub(crate) fn completed_at(&mut self, key: u64, index: u32) {
        if let Some(q) = self.by_key.get_mut(&key) {
            q.retain(|&i| i != index);
            if q.is_empty() {
                self.by_key.remove(&key);
            }
        }
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn in_flight__a_reused_key_proves_its_earliest_index() {
        let mut f = InFlight::default();
        f.posted(7, 3);
        f.posted(7, 10);
        f.posted(8, 4);
        assert_eq!(f.completed(7), Some(3));
        f.completed_at(8, 4);
        assert_eq!(f.completed(8), None);
        assert_eq!(f.completed(7), Some(10));
        assert_eq!(f.completed(7), None);
    }
}
