//! The `rtl` engine's transmit side: each host's engine hands its messages to its NIC
//! (`Config::tx_offload`); here they become TX descriptors the host's driver posts, their
//! payload copied into a DMA arena of host memory, freed when the NIC's `TX_DONE` for the
//! descriptor comes back. The NIC then sends the DATA itself: its transmit engine cuts the
//! packets, sends the unscheduled bytes, takes the receiver's GRANTs off the wire, and picks
//! among its messages by SRPT.
//!
//! A message waits here (the driver's `TxQueue`: posted fewest bytes first) while the arena has no room for it, or the NIC's transmit
//! engine holds as many messages as it can (TX `capacity`: a descriptor waiting in the ring
//! for a slot would hold up a CANCEL behind it), or the ring is full; each TX completion frees
//! room and the queue is tried again. A CANCEL (the engine gave up on an RPC) drops what of
//! its RPC waits here and stops what the NIC holds.

use super::nics::Nics;
use crate::fabric::HostId;
use crate::nic::NicError;
use crate::time::Ps;
use homa_driver::{Device, Post, Released, TxBuffers, TxQueue};
use homa_proto::core::Offload;
use homa_proto::hostif::{Event, TxLimits};

/// Bytes of host memory each host sets aside for the payloads of its TX descriptors.
const ARENA_BYTES: usize = 64 << 20;

/// One host's TX descriptors in flight and waiting.
#[derive(Debug)]
pub(crate) struct TxSide {
    queue: TxQueue,
    /// What the NIC refused or could not take (must stay 0).
    pub(crate) errors: u64,
    /// Descriptors posted and completed.
    pub(crate) descriptors: u64,
    /// RETRANSMITs not posted: one waiting or out already held their range.
    pub(crate) covered: u64,
    pub(crate) completed: u64,
}

impl TxSide {
    /// The payload area in `nic`'s host memory, and the TX window set to it (the NIC reads no
    /// payload outside it).
    pub(crate) fn new(nic: &mut crate::nic::RtlNic) -> Result<Self, NicError> {
        let capacity = nic.read_register("TX", "capacity")? as usize;
        let buffers = TxBuffers::new(nic.memory().alloc_dma(ARENA_BYTES)?, capacity);
        let limits = TxLimits {
            window: buffers.window(),
            ..TxLimits::default()
        };
        nic.set_tx_limits(0, &limits)?;
        Ok(TxSide {
            queue: TxQueue::new(buffers),
            errors: 0,
            descriptors: 0,
            covered: 0,
            completed: 0,
        })
    }
}

impl Nics {
    /// Host `h`'s engine handed `o` to its NIC at `at`: posted as soon as there is room.
    pub(crate) fn offload(&mut self, h: HostId, at: Ps, o: Offload) {
        if !self.tx[h].queue.push(o) {
            self.tx[h].covered += 1;
        }
        self.post_waiting(h, at);
    }

    /// Frees what host `h`'s NIC completed, then posts what waits, at `at`. What each
    /// completion finished goes to `sent`, for the host's engine.
    pub(crate) fn tx_progress(&mut self, h: HostId, at: Ps, sent: &mut Vec<Released>) {
        let (done, refused) = self.nics[h].take_tx_completions();
        let tx = &mut self.tx[h];
        for c in done.iter().chain(&refused) {
            let cookie = match c.event {
                Event::TxDone { cookie, .. } | Event::Error { cookie, .. } => cookie,
                _ => continue,
            };
            if let Some(r) = tx.queue.complete(cookie) {
                tx.completed += 1;
                sent.push(r);
            }
        }
        tx.errors += refused.len() as u64;
        if tx.queue.waiting() > 0 {
            self.post_waiting(h, at);
        }
    }

    fn post_waiting(&mut self, h: HostId, at: Ps) {
        let (nic, tx) = (&mut self.nics[h], &mut self.tx[h]);
        let mut errors = 0;
        let post = |d: &homa_proto::hostif::TxDescriptor| match nic.post_tx_descriptor(at, d) {
            Ok(_) => Post::Posted,
            Err(NicError::Driver(e)) if e.is_ring_full() => Post::RingFull,
            Err(e) => Post::Failed(e),
        };
        tx.descriptors += tx.queue.pump(post, |_| errors += 1);
        tx.errors += errors;
    }
}
