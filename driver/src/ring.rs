//! Ring logic shared by every backend: the two host-produced rings (TX descriptors, RX
//! buffers) and the NIC-produced completion ring, each over a [`DmaRegion`] and the QUEUE
//! registers.
//!
//! Design notes: the index arithmetic is [`RingState`] from `proto::hostif`, the same code
//! the NIC model uses. A producer ring writes entries into DMA memory and then rings the
//! doorbell (its `_producer` register) with the free-running index; it learns which slots
//! the NIC has finished reading from the `_consumer` register, read only when the ring looks
//! full. The completion ring has no producer register read on the fast path: an entry is new
//! when its phase bit (read first, then an acquire fence, then the rest) matches the pass
//! the host expects; the host returns entries by writing `cq_consumer`.

use crate::{Device, DmaRegion, DriverError, Result};
use homa_proto::hostif::onchip;
use homa_proto::hostif::{
    COMPLETION_LEN, Completion, HostifError, RX_BUF_DESC_LEN, RingState, RxBufDescriptor,
    TX_DESC_LEN, TxDescriptor,
};
use homa_proto::regs::{Block, ring};
use std::marker::PhantomData;
use std::sync::atomic::{Ordering, fence};

/// The absolute BAR0 offsets of one ring's registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RingRegs {
    /// IOVA bits 31-0.
    pub base_lo: u32,
    /// IOVA bits 63-32.
    pub base_hi: u32,
    /// log2 of the entry count; writing it resets the indices.
    pub log2_size: u32,
    /// Producer index.
    pub producer: u32,
    /// Consumer index.
    pub consumer: u32,
}

impl RingRegs {
    /// The registers of ring `prefix` ([`homa_proto::regs::ring`]) of a QUEUE block found at
    /// BAR0 offset `base`.
    pub fn resolve(queue: &'static Block, base: u32, prefix: &str) -> Result<RingRegs> {
        let at = |suffix: &str| {
            let name = format!("{prefix}_{suffix}");
            queue
                .register(&name)
                .map(|r| base + r.offset)
                .ok_or(DriverError::LookupRegister {
                    block: queue.name,
                    register: name,
                })
        };
        let [lo, hi, log2, producer, consumer] = ring::SUFFIXES;
        Ok(RingRegs {
            base_lo: at(lo)?,
            base_hi: at(hi)?,
            log2_size: at(log2)?,
            producer: at(producer)?,
            consumer: at(consumer)?,
        })
    }
}

/// Allocates a ring's memory and points the NIC at it (see [`point`]).
fn set_up(
    dev: &impl Device,
    regs: &RingRegs,
    name: &'static str,
    log2_size: u8,
    entry_len: usize,
) -> Result<(RingState, DmaRegion)> {
    let state = RingState::new(log2_size)
        .map_err(|source| DriverError::SetUpRing { ring: name, source })?;
    let mem = dev.alloc_dma(state.size() as usize * entry_len)?;
    point(dev, regs, mem.iova(), log2_size)?;
    Ok((state, mem))
}

/// Points the NIC at a ring: base, then size (which resets the NIC's indices of that ring).
fn point(dev: &impl Device, regs: &RingRegs, iova: u64, log2_size: u8) -> Result<()> {
    dev.write32(regs.base_lo, iova as u32)?;
    dev.write32(regs.base_hi, (iova >> 32) as u32)?;
    dev.write32(regs.log2_size, u32::from(log2_size))
}

/// Where a producer ring's entries live.
#[derive(Debug)]
enum Slots {
    /// Host memory the NIC reads by DMA.
    Host(DmaRegion),
    /// The NIC's on-chip memory from this BAR0 offset ([`onchip`]), written with pushes.
    OnChip(u32),
}

/// An entry of a host-produced ring.
pub trait Entry {
    /// Bytes per entry.
    const LEN: usize;
    /// The ring's name in messages.
    const RING: &'static str;
    /// The encoded form.
    type Bytes: AsRef<[u8]>;
    /// Checks and encodes the entry.
    fn encoded(&self) -> Result<Self::Bytes, HostifError>;
}

impl Entry for TxDescriptor {
    const LEN: usize = TX_DESC_LEN;
    const RING: &'static str = "TX";
    type Bytes = [u8; TX_DESC_LEN];

    fn encoded(&self) -> Result<Self::Bytes, HostifError> {
        self.check()?;
        let mut b = [0u8; TX_DESC_LEN];
        self.encode(&mut b);
        Ok(b)
    }
}

impl Entry for RxBufDescriptor {
    const LEN: usize = RX_BUF_DESC_LEN;
    const RING: &'static str = "RX buffer";
    type Bytes = [u8; RX_BUF_DESC_LEN];

    fn encoded(&self) -> Result<Self::Bytes, HostifError> {
        let mut b = [0u8; RX_BUF_DESC_LEN];
        self.encode(&mut b);
        // One rule for both sides: what the NIC would refuse is refused here.
        RxBufDescriptor::decode(&b)?;
        Ok(b)
    }
}

/// A ring the host fills and the NIC drains.
#[derive(Debug)]
pub struct ProducerRing<E: Entry> {
    state: RingState,
    slots: Slots,
    regs: RingRegs,
    _entry: PhantomData<fn(E)>,
}

/// The TX descriptor ring.
pub type TxRing = ProducerRing<TxDescriptor>;
/// The RX buffer ring.
pub type RxBufRing = ProducerRing<RxBufDescriptor>;

impl<E: Entry> ProducerRing<E> {
    /// Allocates a ring of `2^log2_size` entries and programs its registers.
    pub fn new(dev: &impl Device, regs: RingRegs, log2_size: u8) -> Result<Self> {
        let (state, mem) = set_up(dev, &regs, E::RING, log2_size, E::LEN)?;
        Ok(ProducerRing {
            state,
            slots: Slots::Host(mem),
            regs,
            _entry: PhantomData,
        })
    }

    /// A ring of `2^log2_size` entries in the NIC's on-chip memory ([`onchip`]: the ring area,
    /// at most [`onchip::RING_ENTRIES`] entries of whole 64-byte words), its entries written
    /// with [`Device::push`], and its registers programmed.
    pub fn on_chip(dev: &impl Device, regs: RingRegs, log2_size: u8) -> Result<Self> {
        let state = RingState::new(log2_size).map_err(|source| DriverError::SetUpRing {
            ring: E::RING,
            source,
        })?;
        if !Self::fits_on_chip(log2_size) {
            return Err(DriverError::ConfigureNic {
                field: "tx_log2",
                value: u64::from(log2_size),
                reason: "an on-chip ring holds at most 64 entries of whole 64-byte words",
            });
        }
        point(dev, &regs, onchip::iova_of(onchip::RING_OFFSET), log2_size)?;
        Ok(ProducerRing {
            state,
            slots: Slots::OnChip(onchip::RING_OFFSET),
            regs,
            _entry: PhantomData,
        })
    }

    /// Whether a ring of `2^log2_size` entries fits the on-chip ring area: whole 64-byte
    /// words, [`onchip::RING_ENTRIES`] of them at most.
    pub fn fits_on_chip(log2_size: u8) -> bool {
        let words = E::LEN / onchip::WORD;
        E::LEN.is_multiple_of(onchip::WORD)
            && 1usize
                .checked_shl(u32::from(log2_size))
                .and_then(|n| n.checked_mul(words))
                .is_some_and(|w| w <= onchip::RING_ENTRIES as usize)
    }

    /// The host's view of the indices.
    pub fn state(&self) -> &RingState {
        &self.state
    }

    /// The ring's host memory; `None` for a ring on chip.
    pub fn region(&self) -> Option<&DmaRegion> {
        match &self.slots {
            Slots::Host(mem) => Some(mem),
            Slots::OnChip(_) => None,
        }
    }

    /// The IOVA the NIC reads the ring at (host memory, or [`onchip::IOVA`] and up).
    pub fn base_iova(&self) -> u64 {
        match &self.slots {
            Slots::Host(mem) => mem.iova(),
            Slots::OnChip(offset) => onchip::iova_of(*offset),
        }
    }

    /// Whether the ring is in the NIC's on-chip memory.
    pub fn is_on_chip(&self) -> bool {
        matches!(self.slots, Slots::OnChip(_))
    }

    /// Reads the NIC's consumer index, freeing the slots it has read.
    pub fn refresh(&mut self, dev: &impl Device) -> Result<()> {
        let consumer = dev.read32(self.regs.consumer)?;
        self.state
            .advance_consumer_to(consumer)
            .map_err(|source| DriverError::ReadRingIndex {
                ring: E::RING,
                source,
            })
    }

    /// Writes one entry without ringing the doorbell; its free-running index.
    fn push(&mut self, dev: &impl Device, entry: &E) -> Result<u32> {
        let post_err = |source| DriverError::PostDescriptor {
            ring: E::RING,
            source,
        };
        let bytes = entry.encoded().map_err(post_err)?;
        if self.state.is_full() {
            self.refresh(dev)?;
        }
        let index = self.state.push().map_err(post_err)?;
        let offset = self.state.wrap(index) as usize * E::LEN;
        match &self.slots {
            Slots::Host(mem) => mem.write(offset, bytes.as_ref())?,
            // Within the ring area, checked by `on_chip`.
            Slots::OnChip(base) => dev.push(base + offset as u32, bytes.as_ref())?,
        }
        Ok(index)
    }

    fn ring_doorbell(&self, dev: &impl Device) -> Result<()> {
        dev.doorbell(self.regs.producer, self.state.producer())
    }

    /// The NIC has read the entry at free-running index `index` (a completion proves it),
    /// and every one before it: their slots are free. An index outside the entries in flight
    /// (already known read, or never posted) changes nothing.
    pub fn note_read(&mut self, index: u32) {
        // Only forward, and no further than the producer: anything else is refused.
        let _ = self.state.advance_consumer_to(index.wrapping_add(1));
    }

    /// Posts one entry and rings the doorbell; returns its free-running index. Fails when
    /// the entry is invalid or the ring is full (after re-reading the NIC's consumer index).
    pub fn post(&mut self, dev: &impl Device, entry: &E) -> Result<u32> {
        let index = self.push(dev, entry)?;
        self.ring_doorbell(dev)?;
        Ok(index)
    }

    /// Posts as many of `entries` as fit, in order, with one doorbell; returns how many.
    /// An invalid entry stops the batch with an error after the ones before it are rung.
    pub fn post_batch(&mut self, dev: &impl Device, entries: &[E]) -> Result<usize> {
        let mut posted = 0;
        let mut failure = None;
        for e in entries {
            match self.push(dev, e) {
                Ok(_) => posted += 1,
                Err(DriverError::PostDescriptor {
                    source: HostifError::RingFull(_),
                    ..
                }) => break,
                Err(err) => {
                    failure = Some(err);
                    break;
                }
            }
        }
        if posted > 0 {
            self.ring_doorbell(dev)?;
        }
        match failure {
            Some(err) => Err(err),
            None => Ok(posted),
        }
    }
}

/// The completion ring: the NIC writes, the host reads.
#[derive(Debug)]
pub struct CompletionRing {
    state: RingState,
    mem: DmaRegion,
    regs: RingRegs,
}

impl CompletionRing {
    /// Allocates a ring of `2^log2_size` entries and programs its registers.
    pub fn new(dev: &impl Device, regs: RingRegs, log2_size: u8) -> Result<Self> {
        let (state, mem) = set_up(dev, &regs, "completion", log2_size, COMPLETION_LEN)?;
        Ok(CompletionRing { state, mem, regs })
    }

    /// The host's view of the indices.
    pub fn state(&self) -> &RingState {
        &self.state
    }

    /// The ring's memory.
    pub fn region(&self) -> &DmaRegion {
        &self.mem
    }

    /// Takes the next entry if the NIC has written it, without returning it to the NIC.
    fn take(&mut self) -> Result<Option<Completion>> {
        let index = self.state.consumer();
        let offset = self.state.wrap(index) as usize * COMPLETION_LEN;
        let last = self.mem.read_u8(offset + COMPLETION_LEN - 1)?;
        if (last & 1 != 0) != self.state.phase(index) {
            return Ok(None);
        }
        // The phase byte is written last: read the rest only after seeing it.
        fence(Ordering::Acquire);
        let mut buf = [0u8; COMPLETION_LEN];
        self.mem.read(offset, &mut buf)?;
        let consume = |state: &mut RingState| -> Result<()> {
            state
                .advance_producer_to(index.wrapping_add(1))
                .and_then(|()| state.pop().map(|_| ()))
                .map_err(|source| DriverError::ReadRingIndex {
                    ring: "completion",
                    source,
                })
        };
        match Completion::decode(&buf) {
            Ok(c) => {
                consume(&mut self.state)?;
                Ok(Some(c))
            }
            Err(source) => {
                // Skip the bad entry so the ring keeps moving.
                consume(&mut self.state)?;
                Err(DriverError::DecodeCompletion { index, source })
            }
        }
    }

    fn return_entries(&self, dev: &impl Device) -> Result<()> {
        dev.doorbell(self.regs.consumer, self.state.consumer())
    }

    /// The next completion, if any, returning its slot to the NIC.
    pub fn poll(&mut self, dev: &impl Device) -> Result<Option<Completion>> {
        let got = self.take();
        if !matches!(got, Ok(None)) {
            self.return_entries(dev)?;
        }
        got
    }

    /// Up to `max` completions appended to `out`, with one consumer-index write; returns
    /// how many. A completion that fails to decode ends the batch with an error (it and
    /// the ones before it are consumed).
    pub fn poll_batch(
        &mut self,
        dev: &impl Device,
        out: &mut Vec<Completion>,
        max: usize,
    ) -> Result<usize> {
        let start = self.state.consumer();
        let mut n = 0;
        let mut failure = None;
        while n < max {
            match self.take() {
                Ok(Some(c)) => {
                    out.push(c);
                    n += 1;
                }
                Ok(None) => break,
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        if self.state.consumer() != start {
            self.return_entries(dev)?;
        }
        match failure {
            Some(e) => Err(e),
            None => Ok(n),
        }
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use crate::MemDevice;
    use homa_proto::hostif::{CompletionKind, Event, Status, TxFlags, TxOp, peer_address};
    use homa_proto::regs::block;

    fn regs(prefix: &str) -> RingRegs {
        let q = block("QUEUE").unwrap();
        RingRegs::resolve(q, q.base, prefix).unwrap()
    }

    fn desc(rpc_id: u64) -> TxDescriptor {
        TxDescriptor {
            op: TxOp::SendMessage,
            flags: TxFlags::default(),
            rpc_id,
            peer: peer_address("10.0.0.2".parse().unwrap()),
            src_port: 1000,
            dst_port: 99,
            message_length: 1500,
            payload_iova: 0x1_0000_0000,
            cookie: rpc_id * 10,
        }
    }

    /// Device side: the TX descriptor in slot `slot`.
    fn nic_read_tx(dev: &MemDevice, ring: &TxRing, slot: u32) -> TxDescriptor {
        let mut b = [0u8; TX_DESC_LEN];
        dev.dma_read(
            ring.base_iova() + u64::from(slot) * TX_DESC_LEN as u64,
            &mut b,
        )
        .unwrap();
        TxDescriptor::decode(&b).unwrap()
    }

    /// Device side: posts a completion the way the NIC must, phase byte last.
    fn nic_complete(dev: &MemDevice, cq: &CompletionRing, nic: &mut RingState, rpc_id: u64) {
        let r = regs(ring::CQ);
        nic.advance_consumer_to(dev.register(r.consumer).unwrap())
            .unwrap();
        let index = nic.push().expect("host keeps up");
        let c = Completion {
            rpc_id,
            status: Status::Ok,
            event: Event::TxDone {
                length: 1500,
                cookie: rpc_id,
            },
            phase: nic.phase(index),
        };
        let mut b = [0u8; COMPLETION_LEN];
        c.encode(&mut b);
        let at = cq.region().iova() + u64::from(nic.wrap(index)) * COMPLETION_LEN as u64;
        dev.dma_write(at, &b[..COMPLETION_LEN - 1]).unwrap();
        dev.dma_write(at + COMPLETION_LEN as u64 - 1, &b[COMPLETION_LEN - 1..])
            .unwrap();
        dev.set_register(r.producer, nic.producer()).unwrap();
    }

    #[test]
    fn tx_ring__basics() {
        let dev = MemDevice::new();
        let r = regs(ring::TX);
        let mut tx = TxRing::new(&dev, r, 2).unwrap();
        let iova = tx.base_iova();
        assert_eq!(
            dev.take_writes(),
            [
                (r.base_lo, iova as u32),
                (r.base_hi, (iova >> 32) as u32),
                (r.log2_size, 2)
            ]
        );
        assert_eq!(tx.post(&dev, &desc(7)).unwrap(), 0);
        assert_eq!(nic_read_tx(&dev, &tx, 0), desc(7));
        assert_eq!(
            dev.take_writes(),
            [(r.producer, 1)],
            "one doorbell, index 1"
        );
        assert_eq!(tx.state().len(), 1);
    }

    #[test]
    fn post__ring_full_until_the_nic_consumes() {
        let dev = MemDevice::new();
        let r = regs(ring::TX);
        let mut tx = TxRing::new(&dev, r, 1).unwrap();
        tx.post(&dev, &desc(1)).unwrap();
        tx.post(&dev, &desc(2)).unwrap();
        let e = tx.post(&dev, &desc(3)).unwrap_err();
        assert!(
            matches!(
                e,
                DriverError::PostDescriptor {
                    ring: "TX",
                    source: HostifError::RingFull(2)
                }
            ),
            "{e}"
        );
        assert_eq!(
            e.to_string(),
            "failed to post a TX descriptor: ring full: all 2 slots are in use"
        );
        // The NIC reads one descriptor: the next post wraps into slot 0.
        dev.set_register(r.consumer, 1).unwrap();
        dev.take_writes();
        assert_eq!(tx.post(&dev, &desc(3)).unwrap(), 2);
        assert_eq!(nic_read_tx(&dev, &tx, 0), desc(3));
        assert_eq!(nic_read_tx(&dev, &tx, 1), desc(2));
        assert_eq!(dev.take_writes(), [(r.producer, 3)]);
    }

    #[test]
    fn post__refuses_a_consumer_index_beyond_the_producer() {
        let dev = MemDevice::new();
        let r = regs(ring::TX);
        let mut tx = TxRing::new(&dev, r, 1).unwrap();
        tx.post(&dev, &desc(1)).unwrap();
        tx.post(&dev, &desc(2)).unwrap();
        dev.set_register(r.consumer, 5).unwrap();
        let e = tx.post(&dev, &desc(3)).unwrap_err();
        assert!(
            matches!(e, DriverError::ReadRingIndex { ring: "TX", .. }),
            "{e}"
        );
    }

    #[test]
    fn post__refuses_an_invalid_descriptor_without_writing() {
        let dev = MemDevice::new();
        let mut tx = TxRing::new(&dev, regs(ring::TX), 2).unwrap();
        dev.take_writes();
        let bad = TxDescriptor {
            message_length: 0,
            ..desc(1)
        };
        let e = tx.post(&dev, &bad).unwrap_err();
        assert!(matches!(
            e,
            DriverError::PostDescriptor {
                source: HostifError::ZeroLength { .. },
                ..
            }
        ));
        assert!(dev.take_writes().is_empty());
        assert!(tx.state().is_empty());
    }

    #[test]
    fn post_batch__fills_the_ring_with_one_doorbell() {
        let dev = MemDevice::new();
        let r = regs(ring::RX);
        let mut rx = RxBufRing::new(&dev, r, 2).unwrap();
        dev.take_writes();
        let bufs: Vec<RxBufDescriptor> = (0..6)
            .map(|i| RxBufDescriptor {
                iova: 0x2_0000_0000 + u64::from(i) * 4096,
                length: 4096,
                buffer_id: i,
            })
            .collect();
        assert_eq!(rx.post_batch(&dev, &bufs).unwrap(), 4);
        assert_eq!(dev.take_writes(), [(r.producer, 4)]);
        let mut b = [0u8; RX_BUF_DESC_LEN];
        dev.dma_read(rx.base_iova() + 3 * RX_BUF_DESC_LEN as u64, &mut b)
            .unwrap();
        assert_eq!(RxBufDescriptor::decode(&b).unwrap(), bufs[3]);
        assert_eq!(rx.post_batch(&dev, &bufs[4..]).unwrap(), 0);
        assert!(dev.take_writes().is_empty(), "no doorbell for nothing");
    }

    #[test]
    fn poll__consumes_completions_across_several_wraps() {
        let dev = MemDevice::new();
        let r = regs(ring::CQ);
        let mut cq = CompletionRing::new(&dev, r, 2).unwrap();
        dev.take_writes();
        let mut nic = RingState::new(2).unwrap();
        assert_eq!(
            cq.poll(&dev).unwrap(),
            None,
            "zeroed memory is not a completion"
        );
        let mut next = 0u64;
        // 6 rounds of 3 entries on a 4-entry ring: 18 entries, the phase flips 4 times.
        for round in 0..6 {
            for _ in 0..3 {
                nic_complete(&dev, &cq, &mut nic, next);
                next += 1;
            }
            for k in 0..3 {
                let c = cq.poll(&dev).unwrap().expect("a new completion");
                assert_eq!(c.rpc_id, round * 3 + k);
                assert_eq!(c.event.kind(), CompletionKind::TxDone);
                assert_eq!(c.phase, cq.state().phase(cq.state().consumer() - 1));
            }
            // The stale entry of the previous pass has the other phase.
            assert_eq!(cq.poll(&dev).unwrap(), None, "round {round}");
        }
        let writes = dev.take_writes();
        assert_eq!(writes.len(), 18, "one consumer doorbell per completion");
        assert_eq!(writes.last(), Some(&(r.consumer, 18)));
        assert!(writes.iter().all(|&(off, _)| off == r.consumer));
    }

    #[test]
    fn poll_batch__returns_entries_with_one_doorbell() {
        let dev = MemDevice::new();
        let r = regs(ring::CQ);
        let mut cq = CompletionRing::new(&dev, r, 3).unwrap();
        dev.take_writes();
        let mut nic = RingState::new(3).unwrap();
        for id in 0..5 {
            nic_complete(&dev, &cq, &mut nic, id);
        }
        let mut out = Vec::new();
        assert_eq!(cq.poll_batch(&dev, &mut out, 3).unwrap(), 3);
        assert_eq!(cq.poll_batch(&dev, &mut out, 10).unwrap(), 2);
        assert_eq!(cq.poll_batch(&dev, &mut out, 10).unwrap(), 0);
        let ids: Vec<u64> = out.iter().map(|c| c.rpc_id).collect();
        assert_eq!(ids, [0, 1, 2, 3, 4]);
        assert_eq!(dev.take_writes(), [(r.consumer, 3), (r.consumer, 5)]);
    }

    #[test]
    fn poll__skips_an_entry_that_fails_to_decode() {
        let dev = MemDevice::new();
        let mut cq = CompletionRing::new(&dev, regs(ring::CQ), 2).unwrap();
        let mut nic = RingState::new(2).unwrap();
        // A first-pass entry with a valid phase and an unknown kind.
        let index = nic.push().unwrap();
        let mut b = [0u8; COMPLETION_LEN];
        b[8] = 0x7f;
        b[COMPLETION_LEN - 1] = 1;
        dev.dma_write(cq.region().iova(), &b).unwrap();
        nic_complete(&dev, &cq, &mut nic, 42);
        let e = cq.poll(&dev).unwrap_err();
        assert!(
            matches!(
                e,
                DriverError::DecodeCompletion {
                    index: 0,
                    source: HostifError::UnknownKind(0x7f)
                }
            ),
            "{e}"
        );
        assert_eq!(index, 0);
        assert_eq!(cq.poll(&dev).unwrap().map(|c| c.rpc_id), Some(42));
    }

    #[test]
    fn new__refuses_a_ring_size_outside_limits() {
        let dev = MemDevice::new();
        let e = TxRing::new(&dev, regs(ring::TX), 17).unwrap_err();
        assert!(matches!(
            e,
            DriverError::SetUpRing {
                ring: "TX",
                source: HostifError::RingSize(17)
            }
        ));
    }
}
