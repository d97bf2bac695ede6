//! [`SoftNic`]: the NIC's side of the host rings in software, over a [`MemDevice`], for
//! tests of the layers above the driver (the RPC library) on machines with no NIC and no
//! simulator in the loop.
//!
//! It does what the RX host queues of the hardware do (`hw::host_rx`, checked against the
//! same `proto::hostif` reference): a DATA packet takes the next posted RX buffer (none
//! posted: the packet is dropped, as the NIC drops it), its payload is written from the
//! buffer's first byte and an `RX_DATA` completion follows (or an `ERROR`, buffer too small,
//! when it does not fit); any other packet becomes a `CONTROL` completion. It keeps the
//! QUEUE consumer and producer registers as the hardware does, and refuses to write a full
//! completion ring (the hardware back-pressures; here the packet is dropped and counted).
//!
//! Transmit: [`SoftNic::take_tx`] takes the TX descriptors the host posted (advancing
//! `tx_consumer`) with their payloads read from host memory; the caller sends them as it
//! likes (it cuts no packets and checks no limits: the hardware's `TxLimits` and framing are
//! tested against the Verilated core) and reports each with [`SoftNic::tx_done`].

use crate::error::{DriverError, Result};
use crate::mem::MemDevice;
use crate::nic::Nic;
use homa_proto::hostif::{
    COMPLETION_LEN, Completion, ErrorRing, Event, RX_BUF_DESC_LEN, RingState, RxBufDescriptor,
    Status, TX_DESC_LEN, TxDescriptor, TxFlags, TxOp,
};
use homa_proto::wire::{Body, Repr};
use std::net::IpAddr;
use std::sync::Arc;

/// The device side of a [`Nic`]'s receive rings over a [`MemDevice`].
#[derive(Debug)]
pub struct SoftNic {
    dev: Arc<MemDevice>,
    rx_ring: u64,
    rx: RingState,
    cq_ring: u64,
    cq: RingState,
    rx_producer: u32,
    rx_consumer: u32,
    cq_consumer: u32,
    tx_ring: u64,
    tx: RingState,
    tx_producer: u32,
    tx_consumer: u32,
    /// Packets dropped: no RX buffer posted, or the completion ring full.
    pub dropped: u64,
}

impl SoftNic {
    /// The device side of `nic`'s rings, as they are now (call it right after `Nic::init`).
    pub fn new(nic: &Nic<Arc<MemDevice>>) -> Result<SoftNic> {
        let probe = nic.probe();
        Ok(SoftNic {
            dev: Arc::clone(nic.device()),
            rx_ring: nic.rx().base_iova(),
            rx: *nic.rx().state(),
            cq_ring: nic.cq().region().iova(),
            cq: *nic.cq().state(),
            rx_producer: probe.address("QUEUE", "rx_producer")?,
            rx_consumer: probe.address("QUEUE", "rx_consumer")?,
            cq_consumer: probe.address("QUEUE", "cq_consumer")?,
            tx_ring: nic.tx().base_iova(),
            tx: *nic.tx().state(),
            tx_producer: probe.address("QUEUE", "tx_producer")?,
            tx_consumer: probe.address("QUEUE", "tx_consumer")?,
            dropped: 0,
        })
    }

    /// A packet from `peer` reaches the NIC: its buffer and completion are written, or it is
    /// dropped (counted); whether it reached the completion ring.
    pub fn deliver(&mut self, peer: IpAddr, header: &Repr<'_>) -> Result<bool> {
        // What the host has made room for and posted since.
        self.refresh_cq()?;
        let posted = self.dev.register(self.rx_producer)?;
        self.rx
            .advance_producer_to(posted)
            .map_err(|source| DriverError::ReadRingIndex {
                ring: "RX buffer",
                source,
            })?;
        if self.cq.is_full() {
            self.dropped += 1;
            return Ok(false);
        }
        let completion = match header.body {
            Body::Data(d) => {
                let Ok(index) = self.rx.pop() else {
                    self.dropped += 1;
                    return Ok(false);
                };
                self.dev
                    .set_register(self.rx_consumer, self.rx.consumer())?;
                let mut raw = [0u8; RX_BUF_DESC_LEN];
                let at = self.rx_ring + u64::from(self.rx.wrap(index)) * RX_BUF_DESC_LEN as u64;
                self.dev.dma_read(at, &mut raw)?;
                let buf = RxBufDescriptor::decode(&raw)
                    .map_err(|source| DriverError::ReadDescriptor { index, source })?;
                if d.payload.len() > buf.length as usize {
                    Completion {
                        rpc_id: header.sender_id ^ 1,
                        status: Status::BufferTooSmall,
                        event: Event::Error {
                            ring: ErrorRing::RxBuf,
                            index,
                            cookie: u64::from(buf.buffer_id),
                        },
                        phase: false,
                    }
                } else {
                    self.dev.dma_write(buf.iova, d.payload)?;
                    match Completion::rx_data(peer, header, buf.buffer_id) {
                        Some(c) => c,
                        // A payload over 65535 bytes: no IP datagram carries one.
                        None => {
                            self.dropped += 1;
                            return Ok(false);
                        }
                    }
                }
            }
            _ => match Completion::control(peer, header) {
                Some(c) => c,
                None => return Ok(false),
            },
        };
        self.complete(completion)
    }

    /// The TX descriptors posted since the last call, in order, each with its whole message
    /// read from host memory (a RETRANSMIT's range is an offset into it); `tx_consumer`
    /// moves past them.
    pub fn take_tx(&mut self) -> Result<Vec<(TxDescriptor, Vec<u8>)>> {
        let posted = self.dev.register(self.tx_producer)?;
        self.tx
            .advance_producer_to(posted)
            .map_err(|source| DriverError::ReadRingIndex { ring: "TX", source })?;
        let mut out = Vec::new();
        while let Ok(index) = self.tx.pop() {
            let mut raw = [0u8; TX_DESC_LEN];
            let at = self.tx_ring + u64::from(self.tx.wrap(index)) * TX_DESC_LEN as u64;
            self.dev.dma_read(at, &mut raw)?;
            let d = TxDescriptor::decode(&raw)
                .map_err(|source| DriverError::ReadDescriptor { index, source })?;
            let mut payload = vec![0; d.message_length as usize];
            self.dev.dma_read(d.payload_iova, &mut payload)?;
            out.push((d, payload));
        }
        self.dev
            .set_register(self.tx_consumer, self.tx.consumer())?;
        Ok(out)
    }

    /// Descriptor `d` has been sent: its `TX_DONE` completion (none with NO_COMPLETION, none
    /// for a CANCEL); whether one reached the completion ring (false: none is due, or the ring
    /// is full, counted in `dropped`).
    pub fn tx_done(&mut self, d: &TxDescriptor) -> Result<bool> {
        if d.flags.contains(TxFlags::NO_COMPLETION) || d.op == TxOp::Cancel {
            return Ok(false);
        }
        self.refresh_cq()?;
        self.complete(Completion::tx_done(d))
    }

    /// Takes the completion ring's consumer index from the host's register.
    fn refresh_cq(&mut self) -> Result<()> {
        let consumed = self.dev.register(self.cq_consumer)?;
        self.cq
            .advance_consumer_to(consumed)
            .map_err(|source| DriverError::ReadRingIndex {
                ring: "completion",
                source,
            })
    }

    /// Writes `completion` at the completion ring's producer, with its phase bit; false (and
    /// counted in `dropped`) when the ring is full.
    fn complete(&mut self, completion: Completion) -> Result<bool> {
        let Ok(i) = self.cq.push() else {
            self.dropped += 1;
            return Ok(false);
        };
        let mut entry = [0u8; COMPLETION_LEN];
        Completion {
            phase: self.cq.phase(i),
            ..completion
        }
        .encode(&mut entry);
        let at = self.cq_ring + u64::from(self.cq.wrap(i)) * COMPLETION_LEN as u64;
        self.dev.dma_write(at, &entry)?;
        Ok(true)
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use crate::{NicConfig, Received, RingSizes};
    use homa_proto::wire::{Data, Grant};

    fn data(payload: &[u8]) -> Repr<'_> {
        Repr {
            sport: 40_000,
            dport: 99,
            sender_id: 6,
            body: Body::Data(Data {
                message_length: 10_000,
                incoming: 10_000,
                ack: None,
                cutoff_version: 1,
                retransmit: false,
                offset: 0,
                payload,
            }),
        }
    }

    #[test]
    fn soft_nic__takes_posted_tx_descriptors_and_reports_them_done() {
        use crate::{Device, Placement, TxBuffers};
        use bytes::Bytes;
        use homa_proto::core::Offload;
        use homa_proto::hostif::TxOp;
        let sizes = RingSizes {
            tx_log2: 1,
            ..RingSizes::default()
        };
        let dev = Arc::new(MemDevice::new());
        let mut nic = Nic::init(Arc::clone(&dev), &NicConfig::default(), &sizes).unwrap();
        let mut soft = SoftNic::new(&nic).unwrap();
        let mut bufs = TxBuffers::new(dev.alloc_dma(4096).unwrap(), 16);
        let offload = |len: usize, op| Offload {
            dst: "10.0.0.2".parse().unwrap(),
            sport: 40_000,
            dport: 99,
            id: 8,
            message: Bytes::from(vec![len as u8; len]),
            op,
            age: 0,
        };
        let post = |p| match p {
            Ok(Placement::Post(d)) => d,
            other => panic!("expected a descriptor, got {other:?}"),
        };
        let mut sent = Vec::new();
        let retransmit = TxOp::Retransmit {
            offset: 10,
            length: 20,
        };
        for (len, op) in [(100, TxOp::SendMessage), (300, retransmit)] {
            let d = post(bufs.place(&offload(len, op)));
            nic.send(&d).unwrap();
            sent.push(d);
        }
        // A two-entry ring: full until the NIC takes them.
        let third = post(bufs.place(&offload(5, TxOp::SendMessage)));
        assert!(nic.send(&third).is_err(), "ring full");
        let taken = soft.take_tx().unwrap();
        assert_eq!(
            taken.iter().map(|(d, _)| *d).collect::<Vec<_>>(),
            sent,
            "in order, as posted"
        );
        assert_eq!((taken[0].1.len(), taken[1].1[0]), (100, 44));
        nic.send(&third).expect("room after the NIC took two");
        assert!(soft.tx_done(&sent[1]).unwrap());
        let mut out = Vec::new();
        nic.receive(&mut out, 8).unwrap();
        assert_eq!(
            out,
            [Received::TxDone {
                rpc_id: 8,
                length: 300,
                cookie: sent[1].cookie
            }]
        );
    }

    #[test]
    fn soft_nic__reads_descriptors_and_small_payloads_pushed_on_chip() {
        use crate::{Device, DriverError, Placement, TxBuffers};
        use bytes::Bytes;
        use homa_proto::core::Offload;
        use homa_proto::hostif::{TX_DESC_LEN, TxLimits, TxOp, onchip};
        let sizes = RingSizes {
            tx_log2: 4,
            ..RingSizes::default()
        };
        // Without on-chip memory, or not asked for, the ring stays in host memory.
        let plain = Nic::init(MemDevice::new(), &NicConfig::default(), &sizes).unwrap();
        assert!(!plain.tx().is_on_chip() && plain.onchip_bytes() == 0);
        let dev = Arc::new(MemDevice::new());
        dev.enable_onchip().unwrap();
        let host_ring = RingSizes {
            tx_onchip: false,
            ..sizes
        };
        let nic = Nic::init(Arc::clone(&dev), &NicConfig::default(), &host_ring).unwrap();
        assert!(!nic.tx().is_on_chip());

        let mut nic = Nic::init(Arc::clone(&dev), &NicConfig::default(), &sizes).unwrap();
        assert!(nic.tx().is_on_chip() && nic.tx().region().is_none());
        assert_eq!(nic.tx().base_iova(), onchip::iova_of(onchip::RING_OFFSET));
        assert_eq!(nic.onchip_bytes(), onchip::PAYLOAD_BYTES);
        let mut soft = SoftNic::new(&nic).unwrap();
        let max_payload = nic.max_payload();
        let mut bufs = TxBuffers::new(dev.alloc_dma(1 << 16).unwrap(), 1024)
            .with_onchip(nic.onchip_bytes(), max_payload);
        let limits = TxLimits {
            window: bufs.window(),
            max_payload,
            ..TxLimits::default()
        };
        let offload = |id: u64, len: usize, op| Offload {
            dst: "10.0.0.2".parse().unwrap(),
            sport: 40_000,
            dport: 99,
            id,
            message: (0..len)
                .map(|i| (i as u64 * 7 + id) as u8)
                .collect::<Bytes>(),
            op,
            age: id,
        };
        // One packet goes on chip; a longer message, and a RETRANSMIT, to host memory.
        let small = offload(2, 100, TxOp::SendMessage);
        let long = offload(4, max_payload as usize + 1, TxOp::SendMessage);
        let again = offload(
            6,
            100,
            TxOp::Retransmit {
                offset: 0,
                length: 100,
            },
        );
        let mut sent = Vec::new();
        for o in [&small, &long, &again] {
            match bufs.place(o).unwrap() {
                Placement::Inline(d) => {
                    assert!(onchip::is_onchip(d.payload_iova));
                    // The payload must be the descriptor's own.
                    let short = nic.send_inline(&d, &o.message[1..]).unwrap_err();
                    assert!(matches!(short, DriverError::Push { .. }), "{short}");
                    nic.send_inline(&d, &o.message).unwrap();
                    sent.push((d, o.message.clone(), true));
                }
                Placement::Post(d) => {
                    nic.send(&d).unwrap();
                    sent.push((d, o.message.clone(), false));
                }
                other => panic!("{other:?}"),
            }
        }
        let inline: Vec<bool> = sent.iter().map(|s| s.2).collect();
        assert_eq!(inline, [true, false, false]);
        let taken = soft.take_tx().unwrap();
        assert_eq!(taken.len(), 3);
        for ((d, payload), (want, message, _)) in taken.iter().zip(&sent) {
            assert_eq!(d, want);
            assert_eq!(payload[..], message[..], "the NIC reads what was placed");
            let mut raw = [0; TX_DESC_LEN];
            d.encode(&mut raw);
            assert_eq!(limits.refusal(&raw), None, "the NIC takes {d:?}");
        }
        // The area fills (16 KiB: 128 B per 100 B payload), then messages go to host memory;
        // a TX_DONE frees its place on chip.
        let words = onchip::payload_footprint(100) as u64;
        assert_eq!(bufs.onchip_in_use(), words);
        let mut cookies = Vec::new();
        let fit = u64::from(onchip::PAYLOAD_BYTES) / words;
        for id in 0..fit {
            match bufs.place(&offload(10 + 2 * id, 100, TxOp::SendMessage)) {
                Ok(Placement::Inline(d)) => cookies.push(d.cookie),
                other => {
                    assert!(matches!(other, Ok(Placement::Post(_))), "{other:?}");
                    break;
                }
            }
        }
        assert_eq!(cookies.len() as u64, fit - 1, "one place held by the first");
        assert_eq!(bufs.onchip_in_use(), u64::from(onchip::PAYLOAD_BYTES));
        assert!(bufs.release(cookies[5]).is_some());
        assert_eq!(
            bufs.onchip_in_use(),
            u64::from(onchip::PAYLOAD_BYTES) - words
        );
        assert!(matches!(
            bufs.place(&offload(1000, 60, TxOp::SendMessage)),
            Ok(Placement::Inline(_))
        ));
        // A CANCEL borrows the on-chip place of its RPC's SEND.
        let cancel = offload(2, 100, TxOp::Cancel);
        assert_eq!(
            bufs.place(&cancel).unwrap(),
            Placement::Post(cancel.descriptor(sent[0].0.payload_iova, 0))
        );
    }

    #[test]
    fn soft_nic__what_it_delivers_the_driver_receives_and_full_rings_drop() {
        let sizes = RingSizes {
            tx_log2: 1,
            rx_log2: 1,
            cq_log2: 2,
            rx_buffer_len: 64,
            tx_onchip: true,
        };
        let mut nic = Nic::init(Arc::new(MemDevice::new()), &NicConfig::default(), &sizes).unwrap();
        let mut soft = SoftNic::new(&nic).unwrap();
        let peer: IpAddr = "10.0.0.2".parse().unwrap();
        let grant = Repr {
            body: Body::Grant(Grant {
                offset: 3_000,
                priority: 1,
            }),
            ..data(&[])
        };
        // Two buffers of 64 bytes: one payload fits, one is too long, a third finds none.
        assert!(soft.deliver(peer, &data(&[7; 40])).unwrap());
        assert!(soft.deliver(peer, &data(&[8; 100])).unwrap());
        assert!(soft.deliver(peer, &grant).unwrap());
        assert!(!soft.deliver(peer, &data(&[9; 10])).unwrap(), "no buffer");
        let mut out = Vec::new();
        assert_eq!(nic.receive(&mut out, 16).unwrap(), 3);
        assert!(
            matches!(&out[0], Received::Packet { payload, .. } if payload[..] == [7; 40]),
            "{:?}",
            out[0]
        );
        assert!(matches!(
            out[1],
            Received::BufferError {
                status: Status::BufferTooSmall,
                ..
            }
        ));
        assert!(matches!(&out[2], Received::Packet { header, .. } if *header == grant));
        // The buffers came back: the next payload has one. Four completions fill the ring
        // until the host takes them: a fifth is dropped.
        assert!(soft.deliver(peer, &data(&[1; 10])).unwrap());
        for _ in 0..3 {
            assert!(soft.deliver(peer, &grant).unwrap());
        }
        assert!(!soft.deliver(peer, &grant).unwrap(), "the ring is full");
        assert_eq!(soft.dropped, 2, "no buffer once, the ring full once");
        assert_eq!(nic.receive(&mut out, 16).unwrap(), 4);
    }
}
