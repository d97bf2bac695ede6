//! The timer tick (HomaModule `homa_timer.c`, SPEC §2.6-2.7): silence counting, RESENDs,
//! timeouts and NEED_ACK.
//!
//! Each tick, every RPC that expects something from its peer counts one more silent tick
//! (DATA, GRANT and BUSY reset the count). An RPC expects nothing while it has granted bytes
//! of its own to send (with transmit offload: while the NIC has not reported sending a
//! message it may send whole, see [`super::Endpoint::offload_sent`]), while all granted
//! bytes of its inbound message are here (it waits for its own grants, or with grant offload
//! the NIC's, which it learns of from `GRANT_SENT` completions), and while a server holds a
//! whole request in service. At `resend_ticks`, and every `resend_interval` after,
//! the receiving side asks for the missing ranges (or, a client with no response yet, for
//! everything); at `timeout_ticks` the RPC is aborted.
//!
//! With grant offload, a message waiting for the NIC's grants is not silent: SRPT may hold
//! it back for as long as shorter messages keep coming, as HomaModule's grant scheduler
//! does. Only a message the policy ranks among the active ones (by what the host knows,
//! with `max_incoming` not spent) that the NIC leaves ungranted for `timeout_ticks` in a row
//! makes the engine take its grants over (`grant_fallbacks`): the NIC lost track of it (a
//! hole its table forgot, a completion dropped while the ring was off).

use super::rpc::{RpcKey, RpcState};
use super::{Endpoint, Event, Instant, RpcError};
use crate::wire::{Body, Resend};

impl Endpoint {
    /// Runs due timers: the tick, FIFO grants, paced data (by making `poll_transmit` try).
    pub fn handle_timeout(&mut self, now: Instant) {
        if self.next_fifo_grant.is_some_and(|t| t <= now) {
            self.fifo_grant(now);
        }
        if let Some(t) = self.next_tick
            && t <= now
        {
            self.run_tick(now);
            let tick = self.tick();
            let mut next = t + tick;
            while next <= now {
                next = next + tick;
            }
            // Served ids age on the tick too, so it runs until they are forgotten.
            let pending = !self.rpcs.is_empty() || !self.served.is_empty();
            self.next_tick = pending.then_some(next);
        }
        self.paced = false;
    }

    fn run_tick(&mut self, now: Instant) {
        self.served.tick(self.config.resend_ticks);
        let c = &self.config;
        let offload = c.grant_offload;
        let (resend_ticks, interval, timeout, ack_ticks) = (
            c.resend_ticks,
            c.resend_interval,
            c.timeout_ticks,
            c.request_ack_ticks,
        );
        let mut resend = Vec::new();
        let mut need_ack = Vec::new();
        let mut dead = Vec::new();
        let mut take_over = Vec::new();
        let mut repair = Vec::new();
        let starved = self.grants_starved();
        let nic_should_grant = if offload {
            self.nic_should_grant()
        } else {
            Vec::new()
        };
        for (key, rpc) in self.rpcs.iter_mut() {
            // A hole that stays while the message keeps arriving holds the message's window
            // and the receiver's `max_incoming` as bytes in flight. When that budget is
            // spent the receiver grants nothing, so such holes are asked for at once, not
            // when the message goes quiet. (Not before: a packet held in a low-priority
            // queue also leaves a hole, and asking for it again duplicates it.)
            if rpc.state == RpcState::Incoming
                && rpc.silent_ticks < resend_ticks
                && let Some(m) = rpc.msgin.as_mut()
            {
                let held = m.hole_tick();
                if starved && held >= resend_ticks && (held - resend_ticks) % interval == 0 {
                    repair.push(*key);
                }
            }
            let sending = (rpc.msgout.as_ref()).is_some_and(|m| m.sendable() || m.nic_sending());
            let quiet = match rpc.state {
                RpcState::InService => true,
                RpcState::Outgoing if sending => true,
                RpcState::Outgoing if !rpc.is_client() => {
                    // Server: the response is out when every byte has been sent (with transmit
                    // offload: handed over and granted, the NIC sends granted bytes at once;
                    // NEED_ACK earlier would have the client ask again for bytes on their way).
                    if rpc.msgout.as_ref().is_some_and(|m| m.all_out()) {
                        rpc.done_ticks += 1;
                        if rpc.done_ticks >= ack_ticks {
                            need_ack.push(*key);
                        }
                        if rpc.done_ticks >= timeout {
                            dead.push(*key);
                        }
                        true
                    } else {
                        false
                    }
                }
                RpcState::Outgoing => false,
                // Waiting for its own grants (or the NIC's).
                RpcState::Incoming => rpc.msgin.as_mut().is_some_and(|m| {
                    let waits = m.has_all_granted();
                    // Ticks count while the policy would grant the message all along:
                    // one that SRPT held back until just now gets the NIC's GRANT first.
                    if waits
                        && offload
                        && !m.soft_granted
                        && m.granted < m.length
                        && nic_should_grant.contains(key)
                    {
                        m.nic_wait_ticks += 1;
                        if m.nic_wait_ticks >= timeout {
                            take_over.push(*key);
                        }
                    } else {
                        m.nic_wait_ticks = 0;
                    }
                    waits
                }),
            };
            if quiet {
                rpc.silent_ticks = 0;
                continue;
            }
            rpc.silent_ticks += 1;
            if rpc.silent_ticks >= timeout {
                dead.push(*key);
            } else if rpc.silent_ticks >= resend_ticks
                && (rpc.silent_ticks - resend_ticks) % interval == 0
            {
                resend.push(*key);
            }
        }
        for key in take_over {
            self.take_over_grants(now, key, true);
        }
        for key in resend {
            self.request_retransmission(key);
        }
        for key in repair {
            self.request_holes(key);
        }
        for key in need_ack {
            if let Some(rpc) = self.rpcs.get(&key) {
                let (peer, sport, dport, id) = (rpc.peer, rpc.local_port, rpc.peer_port, rpc.id);
                self.queue_control(peer, sport, dport, id, Body::NeedAck);
            }
        }
        for key in dead {
            if let Some(rpc) = self.abort_rpc(key) {
                self.metrics.timeouts += 1;
                if let RpcKey::Client(id) = key {
                    self.events.push_back(Event::Failed {
                        id,
                        error: RpcError::Timeout,
                    });
                }
                log::debug!("rpc {} with {} timed out", rpc.id, rpc.peer);
            }
        }
    }

    /// Sends RESENDs for RPC `key`'s holes (missing ranges below the last byte received).
    fn request_holes(&mut self, key: RpcKey) {
        let Some(rpc) = self.rpcs.get(&key) else {
            return;
        };
        let Some(m) = rpc.msgin.as_ref() else {
            return;
        };
        let holes = m.holes();
        self.metrics.hole_repairs += 1;
        self.queue_resends(key, &holes);
    }

    /// Sends RESENDs for what RPC `key` is missing: each gap and the tail up to `granted`,
    /// or, with nothing received yet, everything (length 0xFFFFFFFF).
    pub(crate) fn request_retransmission(&mut self, key: RpcKey) {
        let Some(rpc) = self.rpcs.get(&key) else {
            return;
        };
        let ranges: Vec<(u32, u32)> = match rpc.msgin.as_ref() {
            Some(m) if m.received > 0 => m.missing(),
            _ => vec![(0, 0)],
        };
        self.queue_resends(key, &ranges);
    }

    /// Queues a RESEND to RPC `key`'s peer for each range `(start, end)`; `(0, 0)` asks for
    /// everything.
    fn queue_resends(&mut self, key: RpcKey, ranges: &[(u32, u32)]) {
        let Some(rpc) = self.rpcs.get(&key) else {
            return;
        };
        let (peer, sport, dport, id) = (rpc.peer, rpc.local_port, rpc.peer_port, rpc.id);
        let priority = self.config.control_priority();
        for &(start, end) in ranges {
            let length = if end == 0 { Resend::ALL } else { end - start };
            let body = Body::Resend(Resend {
                offset: start,
                length,
                priority,
            });
            self.queue_control(peer, sport, dport, id, body);
        }
    }
}
