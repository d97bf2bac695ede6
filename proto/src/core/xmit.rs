//! Packet production (HomaModule `homa_outgoing.c` and the pacer): control packets first, in
//! the order they were queued, then DATA from the message that the sender's SRPT picks among
//! those with granted bytes to send, within the pacer's budget; `pacer_fifo_fraction` of the
//! picks among several go to the oldest message instead (`policy::FifoTurns`).

use super::pacer::ETHERNET_OVERHEAD;
use super::rpc::{RpcKey, RpcState};
use super::{Endpoint, Instant, Packet, Transmit};
use crate::policy::{self, TxCandidate};
use crate::wire::{Body, Data, Repr};

/// A message the sender's SRPT picks among, with what the pick needs of it (a copy of its
/// [`MessageOut`](super::outgoing::MessageOut)'s state, refreshed whenever that changes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Sender {
    pub(super) key: RpcKey,
    /// Bytes never sent yet (the SRPT key).
    remaining: u32,
    /// Creation order (SRPT ties).
    age: u64,
    /// A packet may go now (granted bytes unsent, or a range to send again).
    sendable: bool,
}

impl Endpoint {
    /// Brings `key`'s entry among the senders up to date with its message: added if the
    /// message has bytes to send, dropped if it has none. Call it after anything that
    /// changes what a message may send (a new message, a GRANT, a RESEND, a restart, a
    /// packet sent); it also ends `tx_quiet_until`.
    pub(super) fn refresh_sender(&mut self, key: RpcKey) {
        self.tx_quiet_until = None;
        let at = self.sending.iter().position(|s| s.key == key);
        let state = self
            .rpcs
            .get(&key)
            .and_then(|r| r.msgout.as_ref())
            .filter(|m| !m.fully_sent())
            .map(|m| Sender {
                key,
                remaining: m.bytes_remaining(),
                age: m.age,
                sendable: m.sendable(),
            });
        match (at, state) {
            (Some(i), Some(s)) => self.sending[i] = s,
            (None, Some(s)) => self.sending.push(s),
            // Order does not matter: ties are broken by age.
            (Some(i), None) => {
                self.sending.swap_remove(i);
            }
            (None, None) => {}
        }
    }

    /// Counts in the pacer's backlog a packet of `homa_bytes` (Homa header and payload) that
    /// went to the NIC at `now`, with its IP header and Ethernet overhead.
    pub(crate) fn charge_pacer(&mut self, now: Instant, homa_bytes: u32) {
        self.pacer
            .on_send(now, homa_bytes + self.ip_header_len + ETHERNET_OVERHEAD);
    }

    /// The next packet to send, if any may go at `now`.
    pub fn poll_transmit(&mut self, now: Instant) -> Option<Transmit> {
        if let Some(t) = self.control.pop_front() {
            // Control packets are never held back, but they occupy the NIC like data: the
            // pacer must count them, or a busy sender's NIC queue grows without bound.
            self.charge_pacer(now, t.packet.len() as u32);
            return Some(t);
        }
        self.next_data(now)
    }

    fn next_data(&mut self, now: Instant) -> Option<Transmit> {
        if self.tx_quiet_until.is_some_and(|until| now < until) {
            #[cfg(debug_assertions)]
            self.check_tx_quiet(now);
            return None;
        }
        #[cfg(debug_assertions)]
        self.check_senders();
        // One pass over the senders: note held ones, and collect the candidates (into
        // reused buffers) for the reference SRPT policy.
        let mut keys = std::mem::take(&mut self.scratch_keys);
        let mut cands = std::mem::take(&mut self.scratch_tx);
        keys.clear();
        cands.clear();
        let mut held = false;
        for s in self.sending.iter().filter(|s| s.sendable) {
            if self.pacer.may_send(now, s.remaining) {
                keys.push(s.key);
                cands.push(TxCandidate {
                    bytes_remaining: s.remaining,
                    age: s.age,
                });
            } else {
                held = true;
            }
        }
        self.paced = held;
        self.tx_quiet_until = cands.is_empty().then(|| match held {
            true => self.pacer.wake_time(),
            false => Instant::from_nanos(u64::MAX),
        });
        // Among several, a FIFO turn goes to the oldest (the pacer's anti-starvation share).
        let fifo = cands.len() > 1 && self.fifo_turns.take();
        let picked = match fifo {
            true => policy::oldest_pick(cands.iter().copied()),
            false => policy::srpt_pick(cands.iter().copied()),
        };
        let picked = picked.map(|i| keys[i]);
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
        self.refresh_sender(key);
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
        self.charge_pacer(now, header.header_len() as u32 + payload_len);
        Some(Transmit {
            dst: peer,
            priority: seg.priority,
            packet: Packet {
                header,
                payload: seg.payload,
            },
        })
    }

    /// Debug builds (every test): `tx_quiet_until` hides no message that may be sent now.
    #[cfg(debug_assertions)]
    fn check_tx_quiet(&self, now: Instant) {
        self.check_senders();
        self.check_no_sender_missing();
        for s in &self.sending {
            assert!(
                !s.sendable || !self.pacer.may_send(now, s.remaining),
                "tx_quiet_until hides {s:?}, which may send at {now:?}"
            );
        }
    }

    /// Debug builds (every test): every sender's entry is its message's state.
    #[cfg(debug_assertions)]
    fn check_senders(&self) {
        for s in &self.sending {
            let m = self.rpcs.get(&s.key).and_then(|r| r.msgout.as_ref());
            let m = m.unwrap_or_else(|| panic!("sender {s:?} has no message"));
            let now = (m.bytes_remaining(), m.age, m.sendable(), m.fully_sent());
            assert_eq!(
                now,
                (s.remaining, s.age, s.sendable, false),
                "sender {s:?} is stale"
            );
        }
    }

    /// Debug builds, where the engine looks no further (`tx_quiet_until`): every message
    /// with bytes to send that the engine sends itself has an entry.
    #[cfg(debug_assertions)]
    fn check_no_sender_missing(&self) {
        if !self.config.tx_offload {
            for (key, rpc) in &self.rpcs {
                if rpc.msgout.as_ref().is_some_and(|m| !m.fully_sent()) {
                    assert!(
                        self.sending.iter().any(|s| s.key == *key),
                        "{key:?} has bytes to send and no sender entry"
                    );
                }
            }
        }
    }
}
