//! [`TxBuffers`]: where a host puts the payloads of the messages it sends through the NIC's
//! TX ring.
//!
//! One DMA region is the NIC's TX window (`TxLimits::window`: the NIC reads no payload
//! outside it). Each message handed over ([`Offload`], from `proto::core` with `tx_offload`)
//! is copied into a free range of it ([`Arena`], first fit, in cache lines) and becomes a TX
//! descriptor with a fresh cookie; the range is freed when that cookie's `TX_DONE` (or
//! `ERROR`) comes back, in any order. A RETRANSMIT carries the whole message again (its range
//! is an offset into it), so every descriptor owns its payload and none outlives another's.

use crate::arena::Arena;
use crate::dma::DmaRegion;
use crate::error::{DriverError, Result};
use homa_proto::core::Offload;
use homa_proto::hostif::{DmaWindow, TxDescriptor};
use std::collections::HashMap;

/// The payload area of a host's TX descriptors (see the module doc).
#[derive(Debug)]
pub struct TxBuffers {
    region: DmaRegion,
    arena: Arena,
    /// Descriptors out: cookie → offset of their payload in the region.
    placed: HashMap<u64, u64>,
    next_cookie: u64,
}

impl TxBuffers {
    /// An empty payload area over `region`.
    pub fn new(region: DmaRegion) -> Self {
        TxBuffers {
            arena: Arena::new(region.len() as u64),
            region,
            placed: HashMap::new(),
            next_cookie: 1,
        }
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
    /// cookie, `TX_DONE` asked for); `Ok(None)` when the area has no room for it now (try again
    /// after a release). Fails when the message is longer than the whole area, or the copy
    /// fails. A descriptor that is then not posted must be [`release`](Self::release)d.
    pub fn place(&mut self, o: &Offload) -> Result<Option<TxDescriptor>> {
        let len = o.message.len();
        if len > self.capacity() {
            return Err(DriverError::PlaceTxPayload {
                length: len,
                capacity: self.capacity(),
            });
        }
        let Some(offset) = self.arena.alloc(len as u64) else {
            return Ok(None);
        };
        if let Err(e) = self.region.write(offset as usize, &o.message) {
            self.arena.free(offset);
            return Err(e);
        }
        let cookie = self.next_cookie;
        self.next_cookie += 1;
        self.placed.insert(cookie, offset);
        Ok(Some(o.descriptor(self.region.iova() + offset, cookie)))
    }

    /// Frees the payload of the descriptor with `cookie`: its `TX_DONE` or `ERROR` came back,
    /// or it was never posted. False for a cookie that holds nothing (not ours, or twice).
    pub fn release(&mut self, cookie: u64) -> bool {
        match self.placed.remove(&cookie) {
            Some(offset) => self.arena.free(offset),
            None => false,
        }
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

    fn offload(len: usize, range: Option<(u32, u32)>) -> Offload {
        Offload {
            dst: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 9)),
            sport: 40_000,
            dport: 500,
            id: 42,
            message: (0..len).map(|i| (i * 13) as u8).collect::<Bytes>(),
            range,
        }
    }

    #[test]
    fn tx_buffers__place_copy_describe_and_release() {
        let dev = MemDevice::new();
        let mut b = TxBuffers::new(dev.alloc_dma(8192).unwrap());
        let window = b.window();
        assert_eq!((window.len, b.capacity()), (8192, 8192));

        let first = offload(5000, None);
        let d = b.place(&first).unwrap().expect("room");
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
        let again = offload(4000, Some((1000, 500)));
        assert!(b.place(&again).unwrap().is_none());
        assert_eq!((b.in_flight(), b.bytes_in_use()), (1, 5056));
        assert!(b.release(1));
        assert!(!b.release(1), "twice");
        let d = b.place(&again).unwrap().expect("room after the release");
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
            b.place(&offload(8193, None)),
            Err(DriverError::PlaceTxPayload {
                length: 8193,
                capacity: 8192
            })
        ));
        assert!(!b.release(99), "not ours");
    }
}
