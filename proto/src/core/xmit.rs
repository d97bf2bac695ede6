//! Packet production (HomaModule `homa_outgoing.c` and the pacer): control packets first, in
//! the order they were queued, then DATA from the message that the sender's SRPT picks among
//! those with granted bytes to send, within the pacer's budget.

use super::pacer::ETHERNET_OVERHEAD;
use super::rpc::{RpcKey, RpcState};
use super::{Endpoint, Instant, Packet, Transmit};
use crate::policy::{self, TxCandidate};
use crate::wire::{Body, Data, Repr};

impl Endpoint {
    /// The next packet to send, if any may go at `now`.
    pub fn poll_transmit(&mut self, now: Instant) -> Option<Transmit> {
        if let Some(t) = self.control.pop_front() {
            // Control packets are never held back, but they occupy the NIC like data: the
            // pacer must count them, or a busy sender's NIC queue grows without bound.
            let wire = t.packet.len() as u32 + self.ip_header_len + ETHERNET_OVERHEAD;
            self.pacer.on_send(now, wire);
            return Some(t);
        }
        self.next_data(now)
    }

    fn next_data(&mut self, now: Instant) -> Option<Transmit> {
        // One pass over the senders: drop finished ones, note held ones, and collect the
        // candidates (into reused buffers) for the reference SRPT policy.
        let mut keys = std::mem::take(&mut self.scratch_keys);
        let mut cands = std::mem::take(&mut self.scratch_tx);
        keys.clear();
        cands.clear();
        let mut held = false;
        let mut i = 0;
        while i < self.sending.len() {
            let key = self.sending[i];
            match self.rpcs.get(&key).and_then(|r| r.msgout.as_ref()) {
                Some(m) if !m.fully_sent() => {
                    if m.sendable() {
                        if self.pacer.may_send(now, m.bytes_remaining()) {
                            keys.push(key);
                            cands.push(TxCandidate {
                                bytes_remaining: m.bytes_remaining(),
                                age: m.age,
                            });
                        } else {
                            held = true;
                        }
                    }
                    i += 1;
                }
                // Order does not matter: ties are broken by age.
                _ => {
                    self.sending.swap_remove(i);
                }
            }
        }
        self.paced = held;
        let picked = policy::srpt_pick(cands.iter().copied()).map(|i| keys[i]);
        self.scratch_keys = keys;
        self.scratch_tx = cands;
        let key: RpcKey = picked?;
        let max_payload = self.max_payload;
        let rpc = self.rpcs.get_mut(&key).expect("picked from live RPCs");
        let m = rpc.msgout.as_mut().expect("picked from senders");
        let seg = m.next_packet(max_payload).expect("sendable");
        let (length, cutoff_version, fully_sent) = (m.length, 0, m.fully_sent());
        let (peer, sport, dport, id) = (rpc.peer, rpc.local_port, rpc.peer_port, rpc.id);
        if fully_sent && !rpc.is_client() && rpc.state == RpcState::Outgoing {
            // NEED_ACK counts from the last byte of the response.
            rpc.done_ticks = 0;
        }
        let p = self.peer(peer);
        let cutoff_version = if p.cutoff_version != 0 {
            p.cutoff_version
        } else {
            cutoff_version
        };
        let ack = p.acks.pop();
        let header = Repr {
            sport,
            dport,
            sender_id: id,
            body: Body::Data(Data {
                message_length: length,
                incoming: seg.incoming,
                ack,
                cutoff_version,
                retransmit: seg.retransmit,
                offset: seg.offset,
                payload: &[],
            }),
        };
        let payload_len = seg.payload.len() as u32;
        if seg.retransmit {
            self.metrics.retransmitted_bytes += u64::from(payload_len);
        } else {
            self.metrics.data_bytes_sent += u64::from(payload_len);
        }
        self.metrics.sent(header.packet_type());
        let wire =
            header.header_len() as u32 + payload_len + self.ip_header_len + ETHERNET_OVERHEAD;
        self.pacer.on_send(now, wire);
        Some(Transmit {
            dst: peer,
            priority: seg.priority,
            packet: Packet {
                header,
                payload: seg.payload,
            },
        })
    }
}
