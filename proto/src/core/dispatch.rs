//! Incoming packets, by type (HomaModule `homa_dispatch_pkts` and the `homa_*_pkt` handlers).
//!
//! Demultiplexing (SPEC §1.11): a packet's `sender_id` is the sender's id; ours is it XOR 1.
//! An even local id is a client RPC of ours, found by id; an odd one is a server RPC, found by
//! (peer, id). A server creates an RPC on the first DATA of an unknown id sent to a bound
//! port, unless it served that id moments ago (a late copy: see `served`); any other packet
//! for an unknown RPC is dropped, except RESEND (answered with RPC_UNKNOWN), CUTOFFS,
//! NEED_ACK and ACK, which are still processed.

use super::incoming::MessageIn;
use super::rpc::{Rpc, RpcKey, RpcState};
use super::{Endpoint, Event, Instant, Packet, Request, RpcError};
use crate::wire::{AckEntry, Acks, Body, Data, Grant, MAX_ACKS_PER_PACKET, Repr, Resend};
use core::net::{IpAddr, SocketAddr};

impl Endpoint {
    /// Processes one packet from host `src`.
    pub fn handle_packet(&mut self, now: Instant, src: IpAddr, packet: Packet) {
        let h = packet.header;
        self.metrics.received(h.packet_type());
        let key = RpcKey::local(src, h.sender_id ^ 1);
        match h.body {
            Body::Data(d) => self.data(now, src, key, &h, d, packet.payload),
            Body::Grant(g) => self.grant_pkt(key, g),
            Body::Resend(r) => self.resend_pkt(src, key, &h, r),
            Body::RpcUnknown => self.rpc_unknown_pkt(key),
            Body::Busy => {
                if let Some(rpc) = self.rpcs.get_mut(&key) {
                    rpc.silent_ticks = 0;
                } else {
                    self.metrics.dropped_no_rpc += 1;
                }
            }
            Body::Cutoffs(c) => {
                let peer = self.peer(src);
                peer.cutoffs = c.unsched_cutoffs;
                peer.cutoffs[0] = u32::MAX;
                peer.cutoff_version = c.cutoff_version;
            }
            Body::Freeze => {}
            Body::NeedAck => self.need_ack_pkt(src, key, &h),
            Body::Ack(acks) => {
                self.acked(src, h.sender_id);
                for a in acks.as_slice() {
                    self.acked(src, a.client_id);
                }
            }
        }
    }

    fn data(
        &mut self,
        now: Instant,
        src: IpAddr,
        key: RpcKey,
        h: &Repr<'static>,
        d: Data<'static>,
        payload: bytes::Bytes,
    ) {
        if d.message_length == 0 || d.message_length > self.config.max_message_length {
            self.metrics.dropped_invalid += 1;
            return;
        }
        if u64::from(d.offset) + payload.len() as u64 > u64::from(d.message_length) {
            self.metrics.dropped_invalid += 1;
            return;
        }
        if let (RpcKey::Server(..), Some(ack)) = (key, d.ack) {
            self.acked(src, ack.client_id);
        }
        if d.cutoff_version != self.config.cutoff_version {
            self.send_cutoffs(now, src, h);
        }
        if !self.rpcs.contains_key(&key) {
            if let RpcKey::Server(peer, id) = key
                && self.served.contains(peer, id)
            {
                // A late copy of a request already delivered.
                self.metrics.duplicate_bytes += payload.len() as u64;
                return;
            }
            match key {
                RpcKey::Server(..) if self.bound.contains(&h.dport) => {
                    let rpc = Rpc {
                        id: h.sender_id ^ 1,
                        peer: src,
                        peer_port: h.sport,
                        local_port: h.dport,
                        state: RpcState::Incoming,
                        msgout: None,
                        msgin: None,
                        silent_ticks: 0,
                        done_ticks: 0,
                    };
                    self.rpcs.insert(key, rpc);
                    self.arm_tick(now);
                }
                _ => {
                    self.metrics.dropped_no_rpc += 1;
                    return;
                }
            }
        }
        let age = self.age();
        let rpc = self.rpcs.get_mut(&key).expect("present or created above");
        let expecting = match (rpc.is_client(), rpc.state) {
            (true, RpcState::Outgoing) => {
                // The first packet of the response: the request is done.
                rpc.state = RpcState::Incoming;
                rpc.msgout = None;
                self.sending.retain(|s| s.key != key);
                true
            }
            (_, RpcState::Incoming) => true,
            _ => false,
        };
        if !expecting {
            // A retransmitted request packet after the whole request arrived.
            self.metrics.duplicate_bytes += payload.len() as u64;
            return;
        }
        rpc.silent_ticks = 0;
        let msgin = rpc
            .msgin
            .get_or_insert_with(|| MessageIn::new(d.message_length, d.incoming, age));
        if msgin.length != d.message_length {
            self.metrics.dropped_invalid += 1;
            return;
        }
        let started = msgin.received == 0 && msgin.needs_grants;
        let len = payload.len() as u64;
        let new = msgin.add(d.offset, payload);
        self.metrics.duplicate_bytes += len - u64::from(new);
        let complete = msgin.is_complete();
        let needs_grants = msgin.needs_grants;
        if started && new > 0 && !self.grantable.contains(&key) {
            self.grantable.push(key);
        }
        if complete {
            self.complete(key);
        }
        if needs_grants {
            self.update_grants(now);
        }
    }

    /// A whole inbound message: deliver it.
    fn complete(&mut self, key: RpcKey) {
        self.grantable.retain(|k| *k != key);
        let Some(rpc) = self.rpcs.get_mut(&key) else {
            return;
        };
        let message = rpc
            .msgin
            .take()
            .expect("complete implies a message")
            .into_message();
        if rpc.is_client() {
            let (id, peer, peer_port) = (rpc.id, rpc.peer, rpc.peer_port);
            self.remove_rpc(key);
            self.metrics.client_rpcs_completed += 1;
            self.events.push_back(Event::Response { id, message });
            self.queue_ack(peer, peer_port, id);
        } else {
            rpc.state = RpcState::InService;
            rpc.silent_ticks = 0;
            self.metrics.requests_delivered += 1;
            self.events.push_back(Event::Request(Request {
                peer: SocketAddr::new(rpc.peer, rpc.peer_port),
                local_port: rpc.local_port,
                id: rpc.id,
                message,
            }));
        }
    }

    /// Remembers an ack for the server; when the buffer is full, sends an ACK packet with it
    /// all (HomaModule `homa_peer_add_ack`).
    fn queue_ack(&mut self, peer: IpAddr, server_port: u16, client_id: u64) {
        let entry = AckEntry {
            client_id,
            server_port,
        };
        let p = self.peer(peer);
        if p.acks.len() < MAX_ACKS_PER_PACKET {
            p.acks.push(entry);
            return;
        }
        let acks = Acks::new(&p.acks).expect("at most five buffered");
        p.acks.clear();
        // The port we send from does not matter to the server (it looks RPCs up by id).
        self.queue_control(peer, 0, server_port, client_id, Body::Ack(acks));
    }

    fn send_cutoffs(&mut self, now: Instant, peer: IpAddr, h: &Repr<'static>) {
        let tick = self.tick();
        let p = self.peer(peer);
        if p.cutoffs_sent.is_some_and(|t| now - t < tick) {
            return;
        }
        p.cutoffs_sent = Some(now);
        let body = Body::Cutoffs(crate::wire::Cutoffs {
            unsched_cutoffs: self.config.unsched_cutoffs,
            cutoff_version: self.config.cutoff_version,
        });
        self.queue_control(peer, h.dport, h.sport, h.sender_id ^ 1, body);
    }

    fn grant_pkt(&mut self, key: RpcKey, g: Grant) {
        let Some(rpc) = self.rpcs.get_mut(&key) else {
            self.metrics.dropped_no_rpc += 1;
            return;
        };
        rpc.silent_ticks = 0;
        if let Some(m) = rpc.msgout.as_mut() {
            m.grant(g.offset, g.priority);
            self.refresh_sender(key);
        }
    }

    fn resend_pkt(&mut self, src: IpAddr, key: RpcKey, h: &Repr<'static>, r: Resend) {
        let Some(rpc) = self.rpcs.get_mut(&key) else {
            // A client still asking for an RPC this server served and forgot (it dropped the
            // request unanswered) will send the request again: that is a new request.
            if let RpcKey::Server(peer, id) = key {
                self.served.remove(peer, id);
            }
            self.queue_control(src, h.dport, h.sport, h.sender_id ^ 1, Body::RpcUnknown);
            return;
        };
        let (sport, dport, id) = (rpc.local_port, rpc.peer_port, rpc.id);
        if self.config.tx_offload {
            // The engine cannot tell whether the NIC still has granted bytes of the message to
            // send (while it does, a sender counts no silence): a peer asking for them is
            // alive, and the RPC must not time out under it.
            rpc.silent_ticks = 0;
        }
        let length = (r.length != Resend::ALL).then_some(r.length);
        let resent = match (rpc.state, rpc.msgout.as_mut()) {
            (RpcState::Outgoing, Some(m)) => m.resend(r.offset, length, r.priority).is_some(),
            _ => false,
        };
        if resent {
            if !self.offload_retransmits(key) {
                self.refresh_sender(key);
            }
        } else {
            // A range past what was granted raised `granted` even so.
            self.refresh_sender(key);
            self.queue_control(src, sport, dport, id, Body::Busy);
        }
    }

    fn rpc_unknown_pkt(&mut self, key: RpcKey) {
        let Some(rpc) = self.rpcs.get_mut(&key) else {
            self.metrics.dropped_no_rpc += 1;
            return;
        };
        if !rpc.is_client() {
            // The client forgot the RPC: nothing more to do for it.
            self.abort_rpc(key);
            return;
        }
        match (rpc.state, rpc.msgout.as_mut()) {
            (RpcState::Outgoing, Some(m)) => {
                // The server never got (or lost) the request: send it all again. This is not
                // progress: `silent_ticks` keeps counting, so a server that answers every
                // restart with RPC_UNKNOWN (nobody bound to the port) ends in a timeout.
                m.restart();
                self.metrics.restarts += 1;
                if !self.offload_restart(key) {
                    self.refresh_sender(key);
                }
            }
            _ => {
                let id = rpc.id;
                self.abort_rpc(key);
                self.events.push_back(Event::Failed {
                    id,
                    error: RpcError::ServerLostRpc,
                });
            }
        }
    }

    fn need_ack_pkt(&mut self, src: IpAddr, key: RpcKey, h: &Repr<'static>) {
        if self.rpcs.get(&key).is_some_and(|rpc| rpc.is_client()) {
            // Still receiving the response: ask for what is missing instead.
            self.request_retransmission(key);
            return;
        }
        let p = self.peer(src);
        let acks = Acks::new(&p.acks).expect("at most five buffered");
        p.acks.clear();
        self.queue_control(src, h.dport, h.sport, h.sender_id ^ 1, Body::Ack(acks));
    }

    /// The client confirmed RPC `client_id`: the server may forget it.
    fn acked(&mut self, src: IpAddr, client_id: u64) {
        let key = RpcKey::Server(src, client_id | 1);
        if matches!(self.rpcs.get(&key), Some(r) if r.state == RpcState::Outgoing) {
            self.remove_rpc(key);
            self.served.insert(src, client_id | 1);
        }
    }
}
