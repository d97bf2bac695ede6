//! [`TxBuffers`]: where a host puts the payloads of the messages it sends through the NIC's
//! TX ring.
//!
//! One DMA region is the NIC's TX window (`TxLimits::window`: the NIC reads no payload
//! outside it). Each message handed over ([`Offload`], from `proto::core` with `tx_offload`)
//! is copied into a free range of it ([`Arena`], first fit, in cache lines) and becomes a TX
//! descriptor with a fresh cookie; the range is freed when that cookie's `TX_DONE` (or
//! `ERROR`) comes back, in any order. A RETRANSMIT carries the whole message again (its range
//! is an offset into it), so every descriptor owns its payload and none outlives another's.
//! A CANCEL copies nothing: it borrows the place of one of its RPC's descriptors still out
//! (the NIC checks it as a SEND and reads nothing), and has no completion (cookie 0).
//!
//! A NIC with on-chip TX memory ([`TxBuffers::with_onchip`]) takes the payloads of small
//! SEND_MESSAGEs there instead ([`Placement::Inline`]): the host pushes them through BAR0
//! with the descriptor (`Nic::send_inline`), and the NIC sends them without a DMA read. Only
//! SEND_MESSAGEs of one packet that ask for a `TX_DONE` go there (the completion frees the
//! place); a RETRANSMIT carries its message again and goes to host memory, and so does any
//! message while the on-chip area is full.
//!
//! At most `max_in_flight` descriptors are out at once (the NIC's `Nic::tx_capacity`): the
//! ring is in order, and a descriptor waiting there for a slot of the transmit engine would
//! hold up every one behind it, a CANCEL that would free a slot too.

use crate::arena::Arena;
use crate::dma::DmaRegion;
use crate::error::{DriverError, Result};
use homa_proto::core::Offload;
use homa_proto::hostif::{DmaWindow, TxDescriptor, TxOp, onchip};
use std::collections::HashMap;
use std::net::IpAddr;

/// What [`TxBuffers::place`] made of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Post this descriptor (or, if it cannot be posted, [`TxBuffers::release`] its cookie).
    Post(TxDescriptor),
    /// Push the message into the NIC's on-chip payload area and post this descriptor, which
    /// reads it there (`Nic::send_inline`); or release its cookie, as for `Post`.
    Inline(TxDescriptor),
    /// No room in the area now: try again after a release.
    Wait,
    /// Nothing to post: a CANCEL for an RPC with no descriptor out.
    Nothing,
}

/// A descriptor whose payload [`TxBuffers::release`] freed: whose it was and what it asked
/// for (the engine hears of a SEND's end through `Endpoint::offload_sent`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Released {
    /// The RPC's peer.
    pub peer: IpAddr,
    /// The RPC's id on this host.
    pub id: u64,
    /// What the descriptor asked for.
    pub op: TxOp,
}

/// Where a descriptor's payload is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// At this offset of the host region.
    Host(u64),
    /// At this offset of the NIC's on-chip payload area.
    Chip(u64),
}

/// A descriptor out.
#[derive(Debug, Clone, Copy)]
struct Out {
    place: Place,
    /// Its RPC (peer, id).
    rpc: (IpAddr, u64),
    op: TxOp,
}

/// The NIC's on-chip payload area, as this host lays it out.
#[derive(Debug)]
struct OnChip {
    arena: Arena,
    /// The longest message placed there (one packet that fits the area).
    max_len: usize,
}

/// The payload area of a host's TX descriptors (see the module doc).
#[derive(Debug)]
pub struct TxBuffers {
    region: DmaRegion,
    arena: Arena,
    onchip: Option<OnChip>,
    /// Descriptors out, by cookie.
    placed: HashMap<u64, Out>,
    next_cookie: u64,
    max_in_flight: usize,
}

impl TxBuffers {
    /// An empty payload area over `region`, for at most `max_in_flight` descriptors out at
    /// once (at least 1).
    pub fn new(region: DmaRegion, max_in_flight: usize) -> Self {
        TxBuffers {
            arena: Arena::new(region.len() as u64),
            region,
            onchip: None,
            placed: HashMap::new(),
            next_cookie: 1,
            max_in_flight: max_in_flight.max(1),
        }
    }

    /// Places the SEND_MESSAGEs of at most `max_payload` bytes (one DATA packet: TX
    /// `max_payload`) in the NIC's on-chip payload area of `onchip_bytes` (QUEUE
    /// `tx_onchip_bytes`, `Nic::onchip_bytes`; 0 places none there) while it has room.
    pub fn with_onchip(mut self, onchip_bytes: u32, max_payload: u32) -> Self {
        let bytes = onchip_bytes.min(onchip::PAYLOAD_BYTES) as usize;
        let room = bytes.saturating_sub(onchip::PAYLOAD_LANE as usize);
        self.onchip = (bytes >= onchip::WORD).then(|| OnChip {
            arena: Arena::new(bytes as u64),
            max_len: room.min(max_payload as usize),
        });
        self
    }

    /// Bytes of the on-chip payload area held by descriptors in flight (whole words).
    pub fn onchip_in_use(&self) -> u64 {
        self.onchip.as_ref().map_or(0, |c| c.arena.in_use())
    }

    /// The NIC's TX window for this area: set it with `Nic::set_tx_limits`.
    pub fn window(&self) -> DmaWindow {
        DmaWindow {
            base: self.region.iova(),
            len: self.region.len() as u64,
        }
    }

    /// The area's size in bytes: the longest message it can ever hold.
    pub fn capacity(&self) -> usize {
        self.region.len()
    }

    /// Descriptors placed and not yet released.
    pub fn in_flight(&self) -> usize {
        self.placed.len()
    }

    /// Bytes of the area held by descriptors in flight (whole cache lines).
    pub fn bytes_in_use(&self) -> u64 {
        self.arena.in_use()
    }

    /// Copies `o`'s message into the area and returns the descriptor that sends it (a fresh
    /// cookie, `TX_DONE` asked for), or [`Placement::Wait`] when the area has no room for it
    /// now or `max_in_flight` descriptors are out. A CANCEL becomes a descriptor at the place of one of its RPC's descriptors still
    /// out, or [`Placement::Nothing`] if none is. Fails when the message is longer than the
    /// whole area, or the copy fails.
    pub fn place(&mut self, o: &Offload) -> Result<Placement> {
        let rpc = (o.dst, o.id);
        if o.op == TxOp::Cancel {
            let out = self.placed.values().find(|out| out.rpc == rpc);
            return Ok(match out {
                Some(out) => Placement::Post(o.descriptor(self.iova(out.place), 0)),
                None => Placement::Nothing,
            });
        }
        let len = o.message.len();
        if self.placed.len() >= self.max_in_flight {
            return Ok(Placement::Wait);
        }
        if o.op == TxOp::SendMessage
            && let Some(chip) = &mut self.onchip
            && len <= chip.max_len
            && let Some(at) = chip.arena.alloc(onchip::payload_footprint(len) as u64)
        {
            return Ok(Placement::Inline(self.out(o, Place::Chip(at))));
        }
        if len > self.capacity() {
            return Err(DriverError::PlaceTxPayload {
                length: len,
                capacity: self.capacity(),
            });
        }
        let Some(offset) = self.arena.alloc(len as u64) else {
            return Ok(Placement::Wait);
        };
        if let Err(e) = self.region.write(offset as usize, &o.message) {
            self.arena.free(offset);
            return Err(e);
        }
        Ok(Placement::Post(self.out(o, Place::Host(offset))))
    }

    /// The IOVA the NIC reads a payload at `place` from.
    fn iova(&self, place: Place) -> u64 {
        match place {
            Place::Host(offset) => self.region.iova() + offset,
            // Below the area's 16 KiB: fits a u32.
            Place::Chip(at) => onchip::payload_iova(at as u32),
        }
    }

    /// Records `o`'s descriptor as out, its payload at `place`, under a fresh cookie; the
    /// descriptor.
    fn out(&mut self, o: &Offload, place: Place) -> TxDescriptor {
        let cookie = self.next_cookie;
        self.next_cookie += 1;
        let out = Out {
            place,
            rpc: (o.dst, o.id),
            op: o.op,
        };
        self.placed.insert(cookie, out);
        o.descriptor(self.iova(place), cookie)
    }

    /// Whether a descriptor out for RPC `rpc` (peer, id) asks for `op` or more: see
    /// [`TxOp::covers`].
    pub fn out_covers(&self, rpc: (IpAddr, u64), op: TxOp) -> bool {
        self.placed
            .values()
            .any(|out| out.rpc == rpc && out.op.covers(op))
    }

    /// Frees the payload of the descriptor with `cookie`: its `TX_DONE` or `ERROR` came back,
    /// or it was never posted. `None` for a cookie that holds nothing (not ours, or twice).
    pub fn release(&mut self, cookie: u64) -> Option<Released> {
        let Out {
            place,
            rpc: (peer, id),
            op,
            ..
        } = self.placed.remove(&cookie)?;
        let freed = match place {
            Place::Host(offset) => self.arena.free(offset),
            Place::Chip(at) => self.onchip.as_mut().is_some_and(|c| c.arena.free(at)),
        };
        freed.then_some(Released { peer, id, op })
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use crate::{Device, MemDevice};
    use bytes::Bytes;
    use homa_proto::hostif::{TX_DESC_LEN, TxLimits, TxOp, peer_address};
    use std::net::{IpAddr, Ipv4Addr};

    fn offload(len: usize, op: TxOp) -> Offload {
        Offload {
            dst: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 9)),
            sport: 40_000,
            dport: 500,
            id: 42,
            message: (0..len).map(|i| (i * 13) as u8).collect::<Bytes>(),
            op,
            age: 0,
        }
    }

    #[test]
    fn tx_buffers__place_copy_describe_and_release() {
        let dev = MemDevice::new();
        let mut b = TxBuffers::new(dev.alloc_dma(8192).unwrap(), 16);
        let window = b.window();
        assert_eq!((window.len, b.capacity()), (8192, 8192));

        let post = |p: Placement| match p {
            Placement::Post(d) => d,
            other => panic!("expected a descriptor, got {other:?}"),
        };
        let first = offload(5000, TxOp::SendMessage);
        let d = post(b.place(&first).unwrap());
        assert_eq!(d.op, TxOp::SendMessage);
        assert_eq!((d.rpc_id, d.message_length, d.cookie), (42, 5000, 1));
        assert_eq!(d.peer, peer_address(first.dst));
        let limits = TxLimits {
            window,
            ..TxLimits::default()
        };
        let mut raw = [0; TX_DESC_LEN];
        d.encode(&mut raw);
        assert_eq!(limits.refusal(&raw), None, "the NIC takes it");
        let mut copy = vec![0; 5000];
        dev.dma_read(d.payload_iova, &mut copy).unwrap();
        assert_eq!(copy, first.message);

        // 5000 B take 5056 (cache lines): 3136 left, not enough for 4000 now.
        let again = offload(
            4000,
            TxOp::Retransmit {
                offset: 1000,
                length: 500,
            },
        );
        assert_eq!(b.place(&again).unwrap(), Placement::Wait);
        // A CANCEL of the RPC borrows the first one's place; nothing copied, cookie 0.
        let c = post(b.place(&offload(5000, TxOp::Cancel)).unwrap());
        assert_eq!((c.op, c.cookie), (TxOp::Cancel, 0));
        assert_eq!((c.payload_iova, c.message_length), (d.payload_iova, 5000));
        assert_eq!(b.in_flight(), 1);
        assert_eq!((b.in_flight(), b.bytes_in_use()), (1, 5056));
        assert!(b.release(1).is_some());
        assert!(b.release(1).is_none(), "twice");
        assert_eq!(
            b.place(&offload(5000, TxOp::Cancel)).unwrap(),
            Placement::Nothing,
            "nothing out to cancel"
        );
        let d = post(b.place(&again).unwrap());
        assert_eq!(
            (d.op, d.cookie, d.payload_iova),
            (
                TxOp::Retransmit {
                    offset: 1000,
                    length: 500
                },
                2,
                window.base
            )
        );

        assert!(matches!(
            b.place(&offload(8193, TxOp::SendMessage)),
            Err(DriverError::PlaceTxPayload {
                length: 8193,
                capacity: 8192
            })
        ));
        assert!(b.release(99).is_none(), "not ours");
    }

    #[test]
    fn tx_buffers__at_most_max_in_flight_descriptors_out() {
        let dev = MemDevice::new();
        let mut b = TxBuffers::new(dev.alloc_dma(8192).unwrap(), 2);
        let one = offload(10, TxOp::SendMessage);
        assert!(matches!(b.place(&one).unwrap(), Placement::Post(_)));
        assert!(matches!(b.place(&one).unwrap(), Placement::Post(_)));
        assert_eq!(b.place(&one).unwrap(), Placement::Wait, "two out");
        // A CANCEL takes no place.
        assert!(matches!(
            b.place(&offload(10, TxOp::Cancel)).unwrap(),
            Placement::Post(_)
        ));
        assert!(b.release(1).is_some());
        assert!(matches!(b.place(&one).unwrap(), Placement::Post(_)));
    }
}
