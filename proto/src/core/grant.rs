//! The receiver's grant scheduler (HomaModule `homa_grant.c`, SPEC §2.4): after every change
//! to the inbound messages that need grants, choose the active set by SRPT with
//! overcommitment, grant each active message up to `received + window` within the
//! `max_incoming` budget, and give it the scheduled priority of its rank. The decisions are
//! [`crate::policy`]'s; this file only gathers the state they need and sends the GRANTs.
//!
//! FIFO grants: every `fifo_grant_increment * 8 / (link rate * grant_fifo_fraction)` the
//! oldest message that still needs grants gets `fifo_grant_increment` more bytes, at
//! priority `num_priorities - 2`, so long messages cannot starve. A message that already has
//! `window + 2 * increment` outstanding is passed over for the next oldest: its sender is not
//! answering (HomaModule `homa_grant_find_oldest`).

use super::incoming::MessageIn;
use super::rpc::RpcKey;
use super::{Endpoint, Instant};
use crate::policy::{self, GrantCandidate};
use crate::wire::{Body, Grant};
use core::time::Duration;

impl Endpoint {
    /// Whether the bytes granted and not yet received, over the messages this host grants,
    /// use up `max_incoming`: no message can be granted more.
    pub(crate) fn grants_starved(&self) -> bool {
        let outstanding: u64 = (self.grantable.iter())
            .filter_map(|k| self.rpcs.get(k)?.msgin.as_ref())
            .map(MessageIn::in_flight)
            .sum();
        outstanding >= u64::from(self.config.max_incoming)
    }

    /// Gathers into `keys` and `cands` the inbound messages that still need grants and that
    /// the engine grants (`by_engine`: without grant offload, every one; with it, those it
    /// took over) or the NIC grants (`!by_engine`). Returns the bytes granted and not yet
    /// received over every message in the grant list.
    fn grant_candidates(
        &self,
        by_engine: bool,
        keys: &mut Vec<RpcKey>,
        cands: &mut Vec<GrantCandidate>,
    ) -> u64 {
        let mut outstanding: u64 = 0;
        for key in &self.grantable {
            let Some(rpc) = self.rpcs.get(key) else {
                continue;
            };
            let Some(m) = rpc.msgin.as_ref() else {
                continue;
            };
            outstanding += m.in_flight();
            let engine_grants = !self.config.grant_offload || m.soft_granted;
            if m.granted < m.length && engine_grants == by_engine {
                keys.push(*key);
                cands.push(GrantCandidate {
                    peer: self.peers.get(&rpc.peer).map_or(u32::MAX, |p| p.index),
                    bytes_remaining: m.bytes_remaining(),
                    age: m.age,
                });
            }
        }
        outstanding
    }

    /// With `grant_offload`: the messages the NIC grants that the policy would grant now,
    /// by what this host knows of them (its active set among them, unless `max_incoming` is
    /// spent). One of these the NIC leaves ungranted for long has been lost by the NIC; any
    /// other may just be held back by SRPT.
    ///
    /// The NIC ranks by packets left (`policy::bucket`), and a tie by when each message
    /// entered its bucket, which the host does not see: so the set is taken at packet
    /// granularity, and a message that ties with one left out of it is not counted in
    /// (the NIC may rightly grant the other).
    pub(crate) fn nic_should_grant(&self) -> Vec<RpcKey> {
        if self.grants_starved() {
            return Vec::new();
        }
        let (mut keys, mut cands) = (Vec::new(), Vec::new());
        self.grant_candidates(false, &mut keys, &mut cands);
        let max_payload = self.config.max_payload(20);
        for c in &mut cands {
            c.bytes_remaining =
                u32::from(policy::bucket::packets_left(c.bytes_remaining, max_payload));
        }
        let chosen = policy::choose_active(&cands, usize::from(self.config.max_overcommit));
        let left_out: Vec<u32> = (0..cands.len())
            .filter(|i| !chosen.contains(i))
            .map(|i| cands[i].bytes_remaining)
            .collect();
        chosen
            .into_iter()
            .filter(|&i| !left_out.contains(&cands[i].bytes_remaining))
            .map(|i| keys[i])
            .collect()
    }

    /// Recomputes grants for every inbound message that needs them.
    pub(crate) fn update_grants(&mut self, now: Instant) {
        self.grantable.retain(|k| self.rpcs.contains_key(k));
        let mut keys = std::mem::take(&mut self.scratch_keys);
        let mut cands = std::mem::take(&mut self.scratch_cands);
        keys.clear();
        cands.clear();
        // With the NIC granting, the engine decides only for the messages it took over.
        let outstanding = self.grant_candidates(true, &mut keys, &mut cands);
        let active = policy::choose_active(&cands, usize::from(self.config.max_overcommit));
        let n = active.len();
        let window = policy::window(self.config.window, self.config.max_incoming, n);
        self.grant_window = window;
        let mut headroom = u64::from(self.config.max_incoming).saturating_sub(outstanding);
        for (rank, &i) in active.iter().enumerate() {
            let key = keys[i];
            let priority = policy::sched_priority(rank, n, self.max_sched_prio);
            let rpc = self.rpcs.get_mut(&key).expect("gathered above");
            let m = rpc.msgin.as_mut().expect("gathered above");
            let target = policy::grant_target(m.length, m.received, m.granted, window, headroom);
            if target <= m.granted {
                continue;
            }
            headroom -= u64::from(target - m.granted);
            m.granted = target;
            let (peer, sport, dport, id) = (rpc.peer, rpc.local_port, rpc.peer_port, rpc.id);
            self.queue_control(
                peer,
                sport,
                dport,
                id,
                Body::Grant(Grant {
                    offset: target,
                    priority,
                }),
            );
        }
        self.scratch_keys = keys;
        self.scratch_cands = cands;
        if !active.is_empty() {
            self.arm_fifo(now);
        }
    }

    /// With `grant_offload`: the NIC sent `grant` (a GRANT this host sends, as it went on the
    /// wire, to `peer`: its `GRANT_SENT` completion), reported at `now`. Records the granted
    /// offset, so that RESENDs cover it and the message waits for the NIC only once those
    /// bytes are in; any GRANT, news or not, shows the NIC tracks the message. Ignored when
    /// the RPC is gone. The GRANT took the link like one of this host's own packets, so the
    /// pacer counts it either way: without that, the NIC's GRANTs (about one per scheduled
    /// DATA packet received, some 6 % of the link) would make the NIC's queue grow behind the
    /// pacer's back, and every packet after them, the shortest messages' included, wait.
    pub fn note_offloaded_grant(
        &mut self,
        now: Instant,
        peer: core::net::IpAddr,
        grant: &crate::wire::Repr<'_>,
    ) {
        self.charge_pacer(now, grant.header_len() as u32);
        let Body::Grant(g) = grant.body else {
            return;
        };
        let key = RpcKey::local(peer, grant.sender_id);
        let Some(m) = self.rpcs.get_mut(&key).and_then(|r| r.msgin.as_mut()) else {
            return;
        };
        self.metrics.offloaded_grants += 1;
        m.granted = m.granted.max(g.offset.min(m.length));
        m.nic_wait_ticks = 0;
    }

    /// With `grant_offload`: the NIC reports (a DATA's `RX_DATA` completion, flags bit 1)
    /// that it does not grant the inbound message of RPC `sender_id` from `peer` (as the
    /// DATA carried it): its message table could not hold it. The engine grants it from now
    /// on. Ignored when the RPC is gone, and for a message the engine grants already.
    pub fn nic_not_granting(&mut self, now: Instant, peer: core::net::IpAddr, sender_id: u64) {
        self.take_over_grants(now, RpcKey::local(peer, sender_id ^ 1), false);
    }

    /// With `grant_offload`: the NIC does not grant RPC `key`'s inbound message (it said so,
    /// or it has not granted it for `timeout_ticks` while the policy ranks it among the
    /// active ones and every granted byte is in: `silent`); the engine grants it from now on.
    pub(crate) fn take_over_grants(&mut self, now: Instant, key: RpcKey, silent: bool) {
        let Some(m) = self.rpcs.get_mut(&key).and_then(|r| r.msgin.as_mut()) else {
            return;
        };
        if m.soft_granted || m.granted >= m.length {
            return;
        }
        m.soft_granted = true;
        self.metrics.grant_fallbacks += 1;
        self.metrics.grant_fallbacks_silent += u64::from(silent);
        self.update_grants(now);
    }

    /// Starts the FIFO-grant timer when it is enabled and not running.
    fn arm_fifo(&mut self, now: Instant) {
        let c = &self.config;
        // With grant offload the NIC makes the FIFO grants too.
        if c.grant_offload || self.next_fifo_grant.is_some() {
            return;
        }
        let interval =
            policy::fifo_interval_ns(c.fifo_grant_increment, c.link_mbps, c.grant_fifo_fraction);
        if let Some(ns) = interval {
            self.next_fifo_grant = Some(now + Duration::from_nanos(ns));
        }
    }

    /// One FIFO grant to the oldest message that needs grants.
    pub(crate) fn fifo_grant(&mut self, now: Instant) {
        self.next_fifo_grant = None;
        let inc = self.config.fifo_grant_increment;
        // A message with this much granted and not received is not answering its grants (its
        // sender is busy or gone): the grant goes to the next oldest instead.
        let unanswered = u64::from(self.grant_window) + 2 * u64::from(inc);
        let oldest: Option<RpcKey> = self
            .grantable
            .iter()
            .filter_map(|k| Some((*k, self.rpcs.get(k)?.msgin.as_ref()?)))
            .filter(|(_, m)| m.granted < m.length && m.in_flight() < unanswered)
            .min_by_key(|(_, m)| m.age)
            .map(|(k, _)| k);
        let Some(key) = oldest else {
            return;
        };
        let priority = policy::fifo_grant_priority(self.config.num_priorities);
        let rpc = self.rpcs.get_mut(&key).expect("found above");
        let m = rpc.msgin.as_mut().expect("found above");
        m.granted = m.granted.saturating_add(inc).min(m.length);
        let (peer, sport, dport, id, offset) =
            (rpc.peer, rpc.local_port, rpc.peer_port, rpc.id, m.granted);
        self.queue_control(
            peer,
            sport,
            dport,
            id,
            Body::Grant(Grant { offset, priority }),
        );
        self.arm_fifo(now);
    }
}
