//! What a host knows about each peer: the unscheduled cutoffs it asked for, acks waiting to
//! be piggybacked to it, and when we last sent it our cutoffs.

use super::time::Instant;
use crate::wire::{AckEntry, MAX_ACKS_PER_PACKET, NUM_PRIORITIES};

/// Per-peer state.
#[derive(Debug, Clone)]
pub(crate) struct Peer {
    /// A small stable number for the grant policy's per-peer fairness.
    pub(crate) index: u32,
    /// The peer's cutoffs for packets we send it (valid when `cutoff_version != 0`).
    pub(crate) cutoffs: [u32; NUM_PRIORITIES],
    /// Version of `cutoffs`; 0 until the peer sends CUTOFFS.
    pub(crate) cutoff_version: u16,
    /// Acks for RPCs whose responses we received from this peer, not yet sent.
    pub(crate) acks: Vec<AckEntry>,
    /// When we last sent this peer a CUTOFFS packet.
    pub(crate) cutoffs_sent: Option<Instant>,
}

impl Peer {
    pub(crate) fn new(index: u32) -> Self {
        Peer {
            index,
            cutoffs: [u32::MAX; NUM_PRIORITIES],
            cutoff_version: 0,
            acks: Vec::with_capacity(MAX_ACKS_PER_PACKET),
            cutoffs_sent: None,
        }
    }
}
