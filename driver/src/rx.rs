//! The receive datapath over a [`Nic`]: completions back into the packets they stand for.
//!
//! The NIC reports every packet it accepts in one completion (QUEUE version 3): a DATA
//! packet as `RX_DATA` (its payload in one RX buffer, the rest of its header in the
//! completion), any other as `CONTROL`. [`Nic::receive`] polls a batch, rebuilds each packet
//! (`hostif::Completion::header`), copies DATA payloads out of their buffers and gives every
//! buffer back to the NIC with one doorbell, so a caller sees packets, not rings.

use crate::device::Device;
use crate::error::Result;
use crate::nic::Nic;
use homa_proto::hostif::{Completion, ErrorRing, Event, PacketHeader, Status};
use homa_proto::wire::Repr;
use std::net::IpAddr;

/// What one completion stands for, as [`Nic::receive`] gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Received {
    /// A packet from `peer`.
    Packet {
        /// The sender.
        peer: IpAddr,
        /// Its Homa header (a DATA's payload is apart, in `payload`).
        header: Repr<'static>,
        /// A DATA's payload, copied out of its buffer (empty for other types).
        payload: Vec<u8>,
        /// ACK entries the completion could not carry (see `hostif::control_window`).
        acks_not_carried: u16,
        /// A DATA whose message the NIC does not grant (`RX_DATA` flags bit 1): with grant
        /// offload, the host grants it. False for other types.
        host_grants: bool,
    },
    /// An RX buffer came back in an `ERROR`: too small for a payload (given back to the
    /// NIC), or a descriptor the NIC refused (out of bounds, bad: not given back).
    BufferError {
        /// The buffer's id (the `ERROR`'s cookie).
        buffer_id: u32,
        /// Why.
        status: Status,
    },
    /// A message of the TX ring has left (`TX_DONE`): its payload buffer may be reused.
    TxDone {
        /// The RPC id.
        rpc_id: u64,
        /// The message's length.
        length: u32,
        /// The descriptor's cookie.
        cookie: u64,
    },
    /// The NIC refused a TX descriptor (an `ERROR` of the TX ring, `TxLimits::refusal`):
    /// nothing of it was sent.
    TxRefused {
        /// The descriptor's free-running ring index.
        index: u32,
        /// Its RPC id.
        rpc_id: u64,
        /// Its cookie.
        cookie: u64,
        /// Why: bad descriptor, message too long, out of bounds.
        status: Status,
    },
    /// The NIC's grant generator sent a GRANT (`GRANT_SENT`): with grant offload, the host
    /// learns from it what the peer may send.
    GrantSent {
        /// The peer it went to.
        peer: IpAddr,
        /// The GRANT, as it went on the wire.
        grant: Repr<'static>,
    },
    /// A completion of no ring (an `ERROR` that names none).
    Other(Completion),
    /// A receive completion that makes no sense: a buffer id outside the pool, or a
    /// `CONTROL` body that is not a valid header of its type. Nothing was reposted.
    Bad {
        /// The completion.
        completion: Completion,
        /// What is wrong with it.
        reason: &'static str,
    },
}

impl<D: Device> Nic<D> {
    /// Up to `max` completions turned into what they stand for and appended to `out`, with
    /// one `cq_consumer` write and one `rx_producer` doorbell for the batch; how many.
    ///
    /// A completion that fails to decode ends the batch with an error, after the ones before
    /// it are handled (it and they are consumed: call again for the rest). A buffer that
    /// cannot be given back (the RX ring full) is an error after the whole batch is handled.
    pub fn receive(&mut self, out: &mut Vec<Received>, max: usize) -> Result<usize> {
        let mut batch = Vec::new();
        let polled = self.poll_completions(&mut batch, max);
        let mut repost = Vec::with_capacity(batch.len());
        for c in &batch {
            self.note_progress(c);
            out.push(self.received(c, &mut repost));
        }
        let reposted = if repost.is_empty() {
            Ok(())
        } else {
            self.repost_rx_buffers(&repost).map(|_| ())
        };
        polled?;
        reposted?;
        Ok(batch.len())
    }

    /// What a completion proves of the NIC's progress through the RX buffer and TX rings:
    /// the descriptor it reports on was read, and every one before it (no register read
    /// needed when a ring looks full).
    fn note_progress(&mut self, c: &Completion) {
        match c.event {
            Event::RxData { buffer_id, .. } => {
                if let Some(i) = self.rx_in_flight.completed(u64::from(buffer_id)) {
                    self.rx.note_read(i);
                }
            }
            Event::Error {
                ring: ErrorRing::RxBuf,
                index,
                cookie,
            } => {
                self.rx_in_flight.completed_at(cookie, index);
                self.rx.note_read(index);
            }
            Event::Error {
                ring: ErrorRing::Tx,
                index,
                cookie,
            } => {
                self.tx_in_flight.completed_at(cookie, index);
                self.tx.note_read(index);
            }
            Event::TxDone { cookie, .. } => {
                if let Some(i) = self.tx_in_flight.completed(cookie) {
                    self.tx.note_read(i);
                }
            }
            Event::Control { .. } | Event::Error { .. } | Event::GrantSent { .. } => {}
        }
    }

    /// One completion: what it stands for; the buffer to give back, if any, into `repost`.
    fn received(&self, c: &Completion, repost: &mut Vec<u32>) -> Received {
        match c.event {
            Event::RxData {
                length,
                buffer_id,
                host_grants,
                ..
            } => {
                let mut payload = vec![0u8; usize::from(length)];
                if self.read_rx_buffer(buffer_id, 0, &mut payload).is_err() {
                    return Received::Bad {
                        completion: *c,
                        reason: "RX_DATA names a buffer outside the pool or longer than it",
                    };
                }
                repost.push(buffer_id);
                match c.header() {
                    Some(Ok(h)) => packet(h, payload, host_grants),
                    // An RX_DATA always rebuilds; kept total rather than trusted.
                    _ => Received::Bad {
                        completion: *c,
                        reason: "RX_DATA does not rebuild into a DATA header",
                    },
                }
            }
            Event::Control { .. } => match c.header() {
                Some(Ok(h)) => packet(h, Vec::new(), false),
                _ => Received::Bad {
                    completion: *c,
                    reason: "CONTROL body is not a valid header of its type",
                },
            },
            Event::Error {
                ring: ErrorRing::RxBuf,
                cookie,
                ..
            } => {
                let buffer_id = cookie as u32;
                if c.status == Status::BufferTooSmall && self.rx_offset(buffer_id).is_ok() {
                    // Nothing the host may read was written: the buffer goes back.
                    repost.push(buffer_id);
                }
                Received::BufferError {
                    buffer_id,
                    status: c.status,
                }
            }
            Event::Error {
                ring: ErrorRing::Tx,
                index,
                cookie,
            } => Received::TxRefused {
                index,
                rpc_id: c.rpc_id,
                cookie,
                status: c.status,
            },
            Event::TxDone { length, cookie } => Received::TxDone {
                rpc_id: c.rpc_id,
                length,
                cookie,
            },
            Event::GrantSent { .. } => match c.sent_grant() {
                Some((peer, grant)) => Received::GrantSent { peer, grant },
                None => Received::Other(*c),
            },
            Event::Error { .. } => Received::Other(*c),
        }
    }
}

fn packet(h: PacketHeader, payload: Vec<u8>, host_grants: bool) -> Received {
    Received::Packet {
        peer: h.peer,
        header: h.header,
        payload,
        acks_not_carried: h.acks_not_carried,
        host_grants,
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use crate::testing::{complete, complete_with};
    use crate::{MemDevice, NicConfig, RingSizes};
    use homa_proto::hostif::{ErrorRing, RingState};
    use homa_proto::wire::{Body, Data, Grant};

    const SIZES: RingSizes = RingSizes {
        tx_log2: 2,
        rx_log2: 2,
        cq_log2: 4,
        rx_buffer_len: 256,
        tx_onchip: true,
    };

    fn addr(b: &str, r: &str) -> u32 {
        homa_proto::regs::block(b).unwrap().address(r).unwrap()
    }

    #[test]
    fn receive__rebuilds_packets_and_gives_buffers_back_in_one_doorbell() {
        let mut nic = Nic::init(MemDevice::new(), &NicConfig::default(), &SIZES).unwrap();
        nic.device().take_writes();
        let peer: IpAddr = "10.0.0.2".parse().unwrap();
        let payload = b"hello, homa".to_vec();
        let data = Repr {
            sport: 40_000,
            dport: 99,
            sender_id: 6,
            body: Body::Data(Data {
                message_length: 100,
                incoming: 100,
                ack: None,
                cutoff_version: 2,
                retransmit: false,
                offset: 20,
                payload: &payload,
            }),
        };
        let grant = Repr {
            sport: 99,
            dport: 40_000,
            sender_id: 9,
            body: Body::Grant(Grant {
                offset: 5_000,
                priority: 3,
            }),
        };
        // The device side: the payload into buffer 1, then RX_DATA, CONTROL, a buffer too
        // small (buffer 2), a refused descriptor (id 77), a TX_DONE, an RX_DATA naming a
        // buffer that does not exist.
        let buf = nic.rx_pool().iova() + 256;
        nic.device().dma_write(buf, &payload).unwrap();
        let mut cq = RingState::new(SIZES.cq_log2).unwrap();
        let rx = Completion::rx_data(peer, &data, 1).unwrap();
        complete(&nic, &mut cq, rx.rpc_id, rx.event);
        let ctl = Completion::control(peer, &grant).unwrap();
        complete(&nic, &mut cq, ctl.rpc_id, ctl.event);
        let rx_error = |cookie| Event::Error {
            ring: ErrorRing::RxBuf,
            index: 0,
            cookie,
        };
        complete_with(&nic, &mut cq, 7, Status::BufferTooSmall, rx_error(2));
        complete_with(&nic, &mut cq, 0, Status::OutOfBounds, rx_error(77));
        let done = Event::TxDone {
            length: 1,
            cookie: 3,
        };
        complete(&nic, &mut cq, 8, done);
        let refused = Event::Error {
            ring: ErrorRing::Tx,
            index: 4,
            cookie: 5,
        };
        complete_with(&nic, &mut cq, 10, Status::MessageTooLong, refused);
        let bogus = Completion::rx_data(peer, &data, 9).unwrap();
        complete(&nic, &mut cq, bogus.rpc_id, bogus.event);
        // The NIC has taken buffers 0-2 of the 4 posted at init.
        nic.device()
            .set_register(addr("QUEUE", "rx_consumer"), 3)
            .unwrap();

        let mut out = Vec::new();
        assert_eq!(nic.receive(&mut out, 64).unwrap(), 7);
        assert_eq!(
            out[0],
            Received::Packet {
                peer,
                header: Repr {
                    body: Body::Data(Data {
                        payload: &[],
                        ..match data.body {
                            Body::Data(d) => d,
                            _ => unreachable!(),
                        }
                    }),
                    ..data
                },
                payload: payload.clone(),
                acks_not_carried: 0,
                host_grants: false,
            }
        );
        assert_eq!(
            out[1],
            Received::Packet {
                peer,
                header: grant,
                payload: Vec::new(),
                acks_not_carried: 0,
                host_grants: false,
            }
        );
        assert_eq!(
            out[2],
            Received::BufferError {
                buffer_id: 2,
                status: Status::BufferTooSmall
            }
        );
        assert_eq!(
            out[3],
            Received::BufferError {
                buffer_id: 77,
                status: Status::OutOfBounds
            }
        );
        assert_eq!(
            out[4],
            Received::TxDone {
                rpc_id: 8,
                length: 1,
                cookie: 3
            }
        );
        assert_eq!(
            out[5],
            Received::TxRefused {
                index: 4,
                rpc_id: 10,
                cookie: 5,
                status: Status::MessageTooLong
            }
        );
        assert!(matches!(out[6], Received::Bad { .. }), "{:?}", out[6]);
        // Buffers 1 and 2 went back with one doorbell (4 posted at init, now 6); the refused
        // descriptor and the bogus id did not.
        let w = nic.device().take_writes();
        let producer = addr("QUEUE", "rx_producer");
        let doorbells: Vec<u32> = w.iter().filter(|x| x.0 == producer).map(|x| x.1).collect();
        assert_eq!(doorbells, [6]);
        assert_eq!(nic.receive(&mut out, 64).unwrap(), 0, "nothing more");
    }

    #[test]
    fn receive__completions_free_ring_slots_without_register_reads() {
        let mut nic = Nic::init(MemDevice::new(), &NicConfig::default(), &SIZES).unwrap();
        // The consumer registers stay 0: a driver that read them would find both rings full.
        let peer: IpAddr = "10.0.0.2".parse().unwrap();
        let data = Repr {
            sport: 40_000,
            dport: 99,
            sender_id: 6,
            body: Body::Data(Data {
                message_length: 100,
                incoming: 100,
                ack: None,
                cutoff_version: 2,
                retransmit: false,
                offset: 0,
                payload: &[],
            }),
        };
        let mut cq = RingState::new(SIZES.cq_log2).unwrap();
        let send = |cookie| homa_proto::hostif::TxDescriptor {
            op: homa_proto::hostif::TxOp::SendMessage,
            flags: homa_proto::hostif::TxFlags::default(),
            rpc_id: 2,
            peer: homa_proto::hostif::peer_address(peer),
            src_port: 1,
            dst_port: 2,
            message_length: 10,
            payload_iova: 0x1000,
            cookie,
        };
        for cookie in 0..4 {
            nic.send(&send(cookie)).unwrap();
        }
        assert!(nic.send(&send(9)).is_err(), "TX ring full");
        for round in 0..2u64 {
            // Buffers 0 and 1 come back with their data; TX descriptors 1 and 3 finish
            // (in that order: the NIC read 0-3).
            for b in 0..2 {
                let rx = Completion::rx_data(peer, &data, b as u32).unwrap();
                complete(&nic, &mut cq, rx.rpc_id, rx.event);
            }
            for cookie in [4 * round + 1, 4 * round + 3] {
                complete(&nic, &mut cq, 2, Event::TxDone { length: 10, cookie });
            }
            let mut out = Vec::new();
            assert_eq!(nic.receive(&mut out, 64).unwrap(), 4, "round {round}");
            // Both buffers went back: the ring knew their slots were read.
            assert_eq!(
                u64::from(nic.rx().state().producer()),
                4 + 2 * (round + 1),
                "round {round}"
            );
            // The TX ring freed slots 0-3: four more descriptors fit.
            for k in 0..4 {
                nic.send(&send(4 * (round + 1) + k)).unwrap();
            }
            assert!(
                nic.send(&send(99)).is_err(),
                "round {round}: TX ring full again"
            );
            // The TX_DONEs for the others of this round come late; they prove nothing new.
            for cookie in [4 * round, 4 * round + 2] {
                complete(&nic, &mut cq, 2, Event::TxDone { length: 10, cookie });
            }
            assert_eq!(nic.receive(&mut out, 64).unwrap(), 2);
        }
    }
}
