//! The `rtl` engine's transmit side: each host's engine hands its messages to its NIC
//! (`Config::tx_offload`); here they become TX descriptors the host's driver posts, their
//! payload copied into a DMA arena of host memory, freed when the NIC's `TX_DONE` for the
//! descriptor comes back. The NIC then sends the DATA itself: its transmit engine cuts the
//! packets, sends the unscheduled bytes, takes the receiver's GRANTs off the wire, and picks
//! among its messages by SRPT.
//!
//! A message waits here (in order) while the driver's TX ring is full or the arena has no room
//! for it; each TX completion frees room and the queue is tried again.

use super::nics::Nics;
use crate::fabric::HostId;
use crate::nic::{Arena, NicError};
use crate::time::Ps;
use homa_driver::{Device, DmaRegion, DriverError};
use homa_proto::core::Offload;
use homa_proto::hostif::{
    DmaWindow, Event, HostifError, TxDescriptor, TxFlags, TxLimits, TxOp, peer_address,
};
use std::collections::{HashMap, VecDeque};

/// Bytes of host memory each host sets aside for the payloads of its TX descriptors.
const ARENA_BYTES: usize = 64 << 20;

/// One host's TX descriptors in flight and waiting.
#[derive(Debug)]
pub(crate) struct TxSide {
    region: DmaRegion,
    arena: Arena,
    waiting: VecDeque<Offload>,
    /// Descriptors posted: cookie → arena offset of their payload.
    posted: HashMap<u64, u64>,
    next_cookie: u64,
    /// What the NIC refused or could not take (must stay 0).
    pub(crate) errors: u64,
    /// Descriptors posted and completed.
    pub(crate) descriptors: u64,
    pub(crate) completed: u64,
}

impl TxSide {
    /// The arena in `nic`'s host memory, and the TX window set to it (the NIC reads no
    /// payload outside it).
    pub(crate) fn new(nic: &mut crate::nic::RtlNic) -> Result<Self, NicError> {
        let region = nic.memory().alloc_dma(ARENA_BYTES)?;
        let window = DmaWindow {
            base: region.iova(),
            len: region.len() as u64,
        };
        nic.set_tx_limits(
            0,
            &TxLimits {
                window,
                ..TxLimits::default()
            },
        )?;
        Ok(TxSide {
            arena: Arena::new(region.len() as u64),
            region,
            waiting: VecDeque::new(),
            posted: HashMap::new(),
            next_cookie: 1,
            errors: 0,
            descriptors: 0,
            completed: 0,
        })
    }
}

impl Nics {
    /// Host `h`'s engine handed `o` to its NIC at `at`: posted as soon as there is room.
    pub(crate) fn offload(&mut self, h: HostId, at: Ps, o: Offload) {
        self.tx[h].waiting.push_back(o);
        self.post_waiting(h, at);
    }

    /// Frees what host `h`'s NIC completed, then posts what waits, at `at`.
    pub(crate) fn tx_progress(&mut self, h: HostId, at: Ps) {
        let (done, refused) = self.nics[h].take_tx_completions();
        let tx = &mut self.tx[h];
        for c in done.iter().chain(&refused) {
            let cookie = match c.event {
                Event::TxDone { cookie, .. } | Event::Error { cookie, .. } => cookie,
                _ => continue,
            };
            if let Some(off) = tx.posted.remove(&cookie) {
                tx.arena.free(off);
                tx.completed += 1;
            }
        }
        tx.errors += refused.len() as u64;
        if !tx.waiting.is_empty() {
            self.post_waiting(h, at);
        }
    }

    fn post_waiting(&mut self, h: HostId, at: Ps) {
        let (nic, tx) = (&mut self.nics[h], &mut self.tx[h]);
        while let Some(o) = tx.waiting.front() {
            let len = o.message.len();
            if len > tx.region.len() {
                // Never fits: refused here rather than blocking every message behind it.
                tx.errors += 1;
                tx.waiting.pop_front();
                continue;
            }
            let Some(off) = tx.arena.alloc(len as u64) else {
                return;
            };
            if tx.region.write(off as usize, &o.message).is_err() {
                tx.arena.free(off);
                tx.errors += 1;
                tx.waiting.pop_front();
                continue;
            }
            let op = match o.range {
                None => TxOp::SendMessage,
                Some((offset, length)) => TxOp::Retransmit { offset, length },
            };
            let cookie = tx.next_cookie;
            let desc = TxDescriptor {
                op,
                flags: TxFlags::default(),
                rpc_id: o.id,
                peer: peer_address(o.dst),
                src_port: o.sport,
                dst_port: o.dport,
                message_length: len as u32,
                payload_iova: tx.region.iova() + off,
                cookie,
            };
            match nic.post_tx_descriptor(at, &desc) {
                Ok(_) => {
                    tx.next_cookie += 1;
                    tx.posted.insert(cookie, off);
                    tx.descriptors += 1;
                    tx.waiting.pop_front();
                }
                Err(NicError::Driver(DriverError::PostDescriptor {
                    source: HostifError::RingFull(_),
                    ..
                })) => {
                    // The ring is full: try again when the NIC has taken some.
                    tx.arena.free(off);
                    return;
                }
                Err(_) => {
                    tx.arena.free(off);
                    tx.errors += 1;
                    tx.waiting.pop_front();
                }
            }
        }
    }
}
