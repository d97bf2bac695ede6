//! The bucketed grant generator's reference and bench, shared by the rust-hdl tests and the
//! Verilator co-simulation in `homa-sim`.
//!
//! [`QueueReference`] is the receive-side grant policy at packet granularity, over message
//! table entries: the state per entry (length, received, granted), the bytes granted and not
//! received over all of them, a [`BucketQueue`] of the messages that still need grants keyed
//! by [`packets_left`], and the decision [`QueueReference::decide`] takes with
//! [`homa_proto::policy`]: [`choose_active_queued`] over the first [`LOOKAHEAD`] messages in
//! queue order, then `window`, `grant_target` and `sched_priority` rank by rank, exactly as
//! `core::grant::update_grants` does with its candidates.
//!
//! FIFO grants ([`FifoConfig`], `grant_fifo_fraction`): [`QueueReference::fifo_grant`] gives
//! the oldest message that still needs grants and answers them `increment` more bytes, as
//! `core::grant`'s `fifo_grant` does. "Oldest" is the order of entry into the grant queue (a
//! second [`BucketQueue`] under one key), which is the order of the messages' first packets.
//!
//! The block decides after a batch of events, not after each: [`run`] applies events as the
//! block takes them and calls `decide` when the block shows `m_dec_start` (`fifo_grant` at
//! `m_fifo_start`), so every GRANT is checked against the decision over exactly the state the
//! block decided on.

use crate::bench::Rng;
use crate::grant_model::{Event, Grant, GrantConfig, Traffic};
use homa_proto::policy::{
    self,
    bucket::{BucketQueue, choose_active_queued, packets_left},
};

/// Messages a decision looks at, in queue order (`policy::bucket::DEFAULT_LOOKAHEAD`).
pub const LOOKAHEAD: usize = policy::bucket::DEFAULT_LOOKAHEAD;

/// The largest overcommitment the block decides on (active messages per decision), as the
/// 16-slot generator's.
pub use crate::grant::MAX_OVERCOMMIT;

/// The grant configuration of the bucketed block: [`GrantConfig`], the payload bytes of a
/// full packet (the unit of the SRPT key) and the FIFO grants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueConfig {
    /// Overcommitment, priorities, budget and window.
    pub grant: GrantConfig,
    /// Payload bytes of a full DATA packet (0 is taken as 1).
    pub max_payload: u32,
    /// FIFO grants (off by default).
    pub fifo: FifoConfig,
}

/// FIFO grants, HomaModule's anti-starvation share (`grant_fifo_fraction`): every `interval`
/// cycles, the oldest message that still needs grants gets `increment` more bytes at
/// `priority`, unless `window + 2 * increment` of its bytes are granted and not received
/// (its sender is not answering): then the next oldest does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FifoConfig {
    /// Cycles between FIFO grants (`fifo_grant_increment * 8 / (link rate *
    /// grant_fifo_fraction)` at the core's clock); 0 turns FIFO grants off.
    pub interval: u32,
    /// Bytes each FIFO grant adds; 0 turns FIFO grants off.
    pub increment: u32,
    /// The level the sender must use (`num_priorities - 2`).
    pub priority: u8,
}

impl FifoConfig {
    /// Whether FIFO grants are made.
    pub fn enabled(&self) -> bool {
        self.interval > 0 && self.increment > 0
    }
}

#[derive(Debug, Clone, Copy)]
struct Msg {
    peer: u32,
    id: u64,
    sport: u16,
    dport: u16,
    mac: u64,
    length: u32,
    received: u32,
    granted: u32,
}

impl Msg {
    fn in_flight(&self) -> u64 {
        u64::from(self.granted.saturating_sub(self.received))
    }

    fn needs_grants(&self) -> bool {
        self.granted < self.length
    }

    /// The GRANT of `offset` at `priority` for this message (the ports swapped: it answers
    /// the DATA).
    fn grant(&self, offset: u32, priority: u8) -> Grant {
        Grant {
            peer: self.peer,
            mac: self.mac,
            id: self.id,
            sport: self.dport,
            dport: self.sport,
            offset,
            priority,
        }
    }
}

/// The reference: one optional message per table entry, the queue of those that need
/// grants, and the bytes granted and not received.
#[derive(Debug, Clone)]
pub struct QueueReference {
    cfg: QueueConfig,
    msgs: Vec<Option<Msg>>,
    queue: BucketQueue,
    /// The messages of `queue`, oldest first.
    ages: BucketQueue,
    /// The window of the last decision (for the FIFO grants' test of an unanswering sender).
    window: u32,
    outstanding: u64,
    tracked: usize,
    /// Messages that took an entry another message still held.
    pub evictions: u64,
}

impl QueueReference {
    /// An empty reference over `entries` table entries.
    pub fn new(cfg: QueueConfig, entries: usize) -> Self {
        QueueReference {
            cfg,
            msgs: vec![None; entries],
            queue: BucketQueue::new(entries),
            ages: BucketQueue::new(entries),
            window: policy::window(cfg.grant.window, cfg.grant.max_incoming, 0),
            outstanding: 0,
            tracked: 0,
            evictions: 0,
        }
    }

    /// Messages tracked now.
    pub fn tracked(&self) -> usize {
        self.tracked
    }

    /// Messages queued for grants now.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// The tracked messages, as (peer, id, length), in table order.
    pub fn tracked_messages(&self) -> impl Iterator<Item = (u32, u64, u32)> + '_ {
        self.msgs.iter().flatten().map(|m| (m.peer, m.id, m.length))
    }

    /// Bytes granted and not received, over the tracked messages.
    pub fn outstanding(&self) -> u64 {
        self.outstanding
    }

    /// Takes one DATA event of table entry `index`; returns whether it calls for a decision
    /// (it touched a tracked message, or it is news of a message that needs grants).
    ///
    /// Panics if `index` is outside the table: a bench bug.
    pub fn event(&mut self, index: u32, ev: &Event) -> bool {
        let i = index as usize;
        let old = self.msgs[i];
        let hit = old.is_some_and(|m| m.peer == ev.peer && m.id == ev.id);
        let needs = ev.incoming < ev.length;
        let new = if hit {
            let mut m = old.expect("hit");
            m.received = m.received.saturating_add(ev.new);
            m.granted = m.granted.max(ev.end);
            (m.received < m.length).then_some(m)
        } else if needs && ev.new > 0 && ev.new < ev.length {
            if old.is_some() {
                self.evictions += 1;
            }
            Some(Msg {
                peer: ev.peer,
                id: ev.id,
                sport: ev.sport,
                dport: ev.dport,
                mac: ev.mac,
                length: ev.length,
                received: ev.new,
                granted: ev.incoming.max(ev.end).min(ev.length),
            })
        } else {
            return needs && ev.new > 0;
        };
        self.outstanding -= old.map_or(0, |m| m.in_flight());
        self.outstanding += new.map_or(0, |m| m.in_flight());
        match new {
            Some(m) if m.needs_grants() => {
                self.queue.set(
                    index,
                    packets_left(m.length - m.received, self.cfg.max_payload),
                );
                if !hit {
                    // A new message is the youngest, whatever the entry held.
                    self.ages.remove(index);
                }
                self.ages.set(index, 0);
            }
            _ => self.dequeue(index),
        }
        self.tracked = self.tracked + usize::from(new.is_some()) - usize::from(old.is_some());
        self.msgs[i] = new;
        true
    }

    /// One decision over the state now: the GRANTs, in the order they leave.
    pub fn decide(&mut self) -> Vec<Grant> {
        let cfg = self.cfg.grant;
        let k = usize::from(cfg.max_overcommit).min(MAX_OVERCOMMIT);
        let walked: Vec<u32> = self.queue.iter().take(LOOKAHEAD).map(|(e, _)| e).collect();
        let peers: Vec<u32> = (walked.iter())
            .map(|&e| self.msgs[e as usize].expect("queued").peer)
            .collect();
        let active = choose_active_queued(&peers, k, LOOKAHEAD);
        let n = active.len();
        let window = policy::window(cfg.window, cfg.max_incoming, n);
        self.window = window;
        let mut headroom = u64::from(cfg.max_incoming).saturating_sub(self.outstanding);
        let mut out = Vec::new();
        for (rank, &pos) in active.iter().enumerate() {
            let m = self.msgs[walked[pos] as usize].as_mut().expect("queued");
            let priority = policy::sched_priority(rank, n, cfg.max_sched_prio);
            let target = policy::grant_target(m.length, m.received, m.granted, window, headroom);
            if target <= m.granted {
                continue;
            }
            let more = u64::from(target - m.granted);
            headroom -= more;
            self.outstanding += more;
            m.granted = target;
            let full = !m.needs_grants();
            out.push(m.grant(target, priority));
            if full {
                self.dequeue(walked[pos]);
            }
        }
        out
    }

    /// One FIFO grant: `increment` more bytes (at most the rest of the message) for the oldest
    /// message that needs grants and has less than `window + 2 * increment` granted and not
    /// received (the sum saturating at 32 bits, as in the block), at the FIFO priority.
    /// Outside the `max_incoming` budget, as HomaModule's. `None` when FIFO grants are off
    /// or no message qualifies.
    pub fn fifo_grant(&mut self) -> Option<Grant> {
        let fifo = self.cfg.fifo;
        if !fifo.enabled() {
            return None;
        }
        let limit =
            (u64::from(self.window) + 2 * u64::from(fifo.increment)).min(u64::from(u32::MAX));
        let (entry, _) = self.ages.iter().find(|&(e, _)| {
            let m = self.msgs[e as usize].expect("queued");
            m.needs_grants() && m.in_flight() < limit
        })?;
        let m = self.msgs[entry as usize].as_mut().expect("queued");
        let more = fifo.increment.min(m.length - m.granted);
        m.granted += more;
        self.outstanding += u64::from(more);
        let g = m.grant(m.granted, fifo.priority);
        if !m.needs_grants() {
            self.dequeue(entry);
        }
        Some(g)
    }

    /// Takes `entry` out of the grant queue and the age order.
    fn dequeue(&mut self, entry: u32) {
        self.queue.remove(entry);
        self.ages.remove(entry);
    }
}

/// The reference beside a running block: events applied as the block takes them, a decision
/// taken where the block starts one, and the GRANTs that decision owes, in order.
struct Checker {
    reference: QueueReference,
    expected: std::collections::VecDeque<Grant>,
    /// An event taken since the last decision calls for one.
    dirty: bool,
}

impl Checker {
    fn new(cfg: QueueConfig, entries: usize) -> Self {
        Checker {
            reference: QueueReference::new(cfg, entries),
            expected: std::collections::VecDeque::new(),
            dirty: false,
        }
    }

    /// The block starts a decision: the reference decides over the same state.
    fn decision(&mut self) -> Result<(), String> {
        if !self.dirty {
            return Err("a decision no event called for".into());
        }
        self.expected.extend(self.reference.decide());
        self.dirty = false;
        Ok(())
    }

    /// The block starts a FIFO grant: the reference makes it over the same state. Returns
    /// whether it owes a GRANT.
    fn fifo(&mut self) -> bool {
        let g = self.reference.fifo_grant();
        let owed = g.is_some();
        self.expected.extend(g);
        owed
    }

    /// The block sent `g`: the next GRANT owed must be it.
    fn grant(&mut self, g: &Grant) -> Result<(), String> {
        let want = (self.expected.pop_front()).ok_or_else(|| format!("unexpected GRANT {g:?}"))?;
        if *g != want {
            return Err(format!("GRANT {g:?}, reference {want:?}"));
        }
        Ok(())
    }

    /// The block took an event.
    fn event(&mut self, index: u32, ev: &Event) {
        self.dirty |= self.reference.event(index, ev);
    }

    /// No GRANT and no decision is owed.
    fn settled(&self) -> bool {
        self.expected.is_empty() && !self.dirty
    }
}

/// The block's ports as a bench drives them: implemented by the rust-hdl bench and by the
/// Verilated model, so both run [`run`].
pub trait QueuePorts {
    /// Holds reset for two cycles, then drives the configuration.
    fn reset(&mut self, cfg: &QueueConfig);
    /// Drives the inputs for this cycle (clock low) and lets the outputs settle.
    fn drive(&mut self, ev: Option<(u32, &Event)>, grant_ready: bool);
    /// Whether the offered event is taken this cycle.
    fn evt_ready(&self) -> bool;
    /// Whether a decision starts this cycle (`m_dec_start`).
    fn dec_start(&self) -> bool;
    /// Whether a FIFO grant starts this cycle (`m_fifo_start`).
    fn fifo_start(&self) -> bool;
    /// The GRANT offered this cycle.
    fn grant(&self) -> Option<Grant>;
    /// (messages_tracked, messages_queued, grants_sent, decisions).
    fn counters(&self) -> (u32, u32, u32, u32);
    /// The rising edge.
    fn edge(&mut self);
}

/// The traffic of a [`run`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Load {
    /// Events to offer.
    pub events: u64,
    /// Table entries (messages live at once, at most).
    pub entries: usize,
    /// Sending peers.
    pub peers: u64,
    /// Percent of cycles with an event offered, when one is ready.
    pub offer: u64,
    /// Percent of packets before which a new message starts (20 keeps a few hundred live;
    /// more fills the table).
    pub starts: u64,
}

/// What a [`run`] saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Events taken.
    pub events: u64,
    /// Decisions taken.
    pub decisions: u64,
    /// FIFO grants started (each gives a GRANT when a message qualifies).
    pub fifo_starts: u64,
    /// GRANTs of those (checked with the others).
    pub fifo_grants: u64,
    /// GRANTs checked.
    pub grants: u64,
    /// Messages started.
    pub messages: u64,
    /// The most messages tracked at once.
    pub most_tracked: usize,
    /// The most messages queued for grants at once.
    pub most_queued: usize,
    /// Cycles simulated.
    pub cycles: u64,
    /// Cycles with an event offered and not taken.
    pub stalls: u64,
}

/// Drives closed-loop DATA events from `seed` into `dut` with random gaps and back-pressure
/// on `m_grant_ready`; applies each taken event to [`QueueReference`], decides where the
/// block decides, and checks every GRANT (content and order); then drains and checks the
/// counters. `Err` says what differed, with the seed and cycle.
pub fn run<D: QueuePorts>(
    dut: &mut D,
    seed: u64,
    load: Load,
    cfg: QueueConfig,
) -> Result<RunStats, String> {
    let mut traffic =
        Traffic::with_peers(seed, load.entries, load.peers).with_start_percent(load.starts);
    let mut rng = Rng::new(seed ^ 0x5EED_9B0C);
    let mut check = Checker::new(cfg, load.entries);
    let mut st = RunStats::default();
    let mut offered: Option<(u32, Event)> = None;
    let mut quiet = 0u64;
    dut.reset(&cfg);
    loop {
        let draining = st.events >= load.events;
        if draining && check.settled() && quiet > 400 {
            break;
        }
        let ctx = |st: &RunStats| format!("seed {seed:#x}, cycle {}", st.cycles);
        if st.cycles > 400 * load.events + 20_000 {
            return Err(format!(
                "{}: no progress ({} events, {} GRANTs expected and not seen, decision owed: {})",
                ctx(&st),
                st.events,
                check.expected.len(),
                check.dirty
            ));
        }
        if offered.is_none() && !draining && rng.chance(load.offer) {
            offered = traffic.next_indexed_event();
        }
        let valid = offered.is_some() && rng.chance(90);
        let ready = rng.chance(70);
        dut.drive(
            offered.as_ref().filter(|_| valid).map(|(i, e)| (*i, e)),
            ready,
        );
        if dut.dec_start() {
            check.decision().map_err(|e| format!("{}: {e}", ctx(&st)))?;
            st.decisions += 1;
            quiet = 0;
        }
        if dut.fifo_start() {
            st.fifo_starts += 1;
            st.fifo_grants += u64::from(check.fifo());
        }
        match (dut.grant(), ready) {
            (Some(g), true) => {
                check.grant(&g).map_err(|e| format!("{}: {e}", ctx(&st)))?;
                traffic.grant(&g);
                st.grants += 1;
                quiet = 0;
            }
            (Some(_), false) => quiet = 0,
            (None, _) => quiet += 1,
        }
        if valid {
            if dut.evt_ready() {
                let (index, ev) = offered.take().expect("valid implies offered");
                check.event(index, &ev);
                st.events += 1;
                quiet = 0;
            } else {
                st.stalls += 1;
            }
        }
        st.most_tracked = st.most_tracked.max(check.reference.tracked());
        st.most_queued = st.most_queued.max(check.reference.queued());
        dut.edge();
        st.cycles += 1;
    }
    let got = dut.counters();
    let want = (
        check.reference.tracked() as u32,
        check.reference.queued() as u32,
        st.grants as u32,
        st.decisions as u32,
    );
    if got != want {
        return Err(format!(
            "seed {seed:#x}: counters (tracked, queued, grants_sent, decisions) = {got:?}, \
             reference {want:?}"
        ));
    }
    st.messages = traffic.started;
    Ok(st)
}

/// Offers `events` to `dut` one after another, each as soon as the one before is taken
/// (so that they batch), takes every GRANT at once, decides where the block decides and
/// checks each GRANT against [`QueueReference`]. Returns the GRANTs in order, or what
/// differed.
pub fn replay<D: QueuePorts>(
    dut: &mut D,
    cfg: QueueConfig,
    entries: usize,
    events: &[(u32, Event)],
) -> Result<Vec<Grant>, String> {
    let mut check = Checker::new(cfg, entries);
    let mut got = Vec::new();
    let (mut next, mut quiet) = (0, 0u64);
    dut.reset(&cfg);
    let limit = 4 * entries as u64 + 400 * events.len() as u64 + 1_000;
    for cycle in 0..limit {
        if next == events.len() && check.settled() && quiet > 400 {
            return Ok(got);
        }
        let offer = events.get(next).map(|(i, e)| (*i, e));
        dut.drive(offer, true);
        if dut.dec_start() {
            check
                .decision()
                .map_err(|e| format!("cycle {cycle}: {e}"))?;
            quiet = 0;
        }
        if dut.fifo_start() {
            check.fifo();
        }
        if let Some(g) = dut.grant() {
            check.grant(&g).map_err(|e| format!("cycle {cycle}: {e}"))?;
            got.push(g);
            quiet = 0;
        } else {
            quiet += 1;
        }
        if offer.is_some() && dut.evt_ready() {
            let (index, ev) = &events[next];
            check.event(*index, ev);
            next += 1;
            quiet = 0;
        }
        dut.edge();
    }
    Err(format!(
        "no end after {limit} cycles: {next} of {} events taken, {} GRANTs owed",
        events.len(),
        check.expected.len()
    ))
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    fn cfg() -> QueueConfig {
        QueueConfig {
            grant: GrantConfig {
                max_overcommit: 2,
                max_sched_prio: 3,
                max_incoming: 100_000,
                window: 10_000,
            },
            max_payload: 1_000,
            fifo: FifoConfig::default(),
        }
    }

    fn ev(peer: u32, id: u64, length: u32, new: u32, end: u32) -> Event {
        Event {
            peer,
            id,
            sport: 7,
            dport: 9,
            mac: 0x0200_0000_0000 | u64::from(peer),
            length,
            incoming: 5_000,
            new,
            end,
        }
    }

    #[test]
    fn reference__grants_by_packets_left_then_entry_into_the_bucket() {
        let mut r = QueueReference::new(cfg(), 8);
        // Two messages of one peer, 40 and 20 packets left: only the shorter is granted
        // beyond its unscheduled bytes... and a second peer's message is active too.
        assert!(r.event(0, &ev(1, 2, 41_000, 1_000, 1_000)));
        assert!(r.event(1, &ev(1, 4, 21_000, 1_000, 1_000)));
        assert!(r.event(2, &ev(2, 6, 30_500, 500, 500)));
        assert_eq!(r.queued(), 3);
        let g = r.decide();
        // Ranks: entry 1 (20 packets), entry 2 (30 packets): one per peer, K = 2.
        assert_eq!(
            g.iter()
                .map(|g| (g.id, g.offset, g.priority))
                .collect::<Vec<_>>(),
            [(4, 11_000, 1), (6, 10_500, 0)]
        );
        // Entry 0 at 40 packets was not active; the outstanding bytes count all three.
        assert_eq!(r.outstanding(), 4_000 + 10_000 + 10_000);
    }

    #[test]
    fn reference__a_message_leaves_the_queue_once_fully_granted_and_the_table_once_received() {
        let mut r = QueueReference::new(cfg(), 4);
        assert!(r.event(3, &ev(1, 2, 8_000, 1_000, 1_000)));
        let g = r.decide();
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].offset, 8_000);
        assert_eq!((r.tracked(), r.queued()), (1, 0));
        assert!(r.event(3, &ev(1, 2, 8_000, 7_000, 8_000)));
        assert_eq!((r.tracked(), r.queued(), r.outstanding()), (0, 0, 0));
        // A message that needs no grants is not tracked, and asks for no decision.
        assert!(!r.event(0, &ev(1, 8, 3_000, 1_000, 1_000)));
        assert_eq!(r.tracked(), 0);
    }

    fn fifo_cfg() -> QueueConfig {
        QueueConfig {
            fifo: FifoConfig {
                interval: 100,
                increment: 3_000,
                priority: 6,
            },
            ..cfg()
        }
    }

    #[test]
    fn reference__fifo_grants_go_to_the_oldest_that_answers_then_the_next() {
        let mut r = QueueReference::new(fifo_cfg(), 8);
        assert!(r.event(5, &ev(1, 2, 100_000, 1_000, 1_000))); // oldest
        assert!(r.event(0, &ev(2, 4, 60_000, 1_000, 1_000)));
        assert!(r.event(3, &ev(3, 6, 9_000, 1_000, 1_000))); // shortest
        // SRPT grants the two shortest; the window is 10,000 with K = 2.
        let ids: Vec<u64> = r.decide().iter().map(|g| g.id).collect();
        assert_eq!(ids, [6, 4]);
        // FIFO: the oldest has 4,000 in flight, under 10,000 + 2 x 3,000.
        let g = r.fifo_grant().unwrap();
        assert_eq!((g.id, g.offset, g.priority), (2, 8_000, 6));
        let g = r.fifo_grant().unwrap();
        assert_eq!((g.id, g.offset), (2, 11_000));
        let g = r.fifo_grant().unwrap();
        assert_eq!((g.id, g.offset), (2, 14_000));
        let g = r.fifo_grant().unwrap();
        assert_eq!((g.id, g.offset), (2, 17_000));
        // 16,000 in flight: not answering; the next oldest (10,000 in flight) gets it.
        let g = r.fifo_grant().unwrap();
        assert_eq!((g.id, g.offset), (4, 14_000));
        assert_eq!(r.outstanding(), 16_000 + 13_000 + 8_000);
    }

    #[test]
    fn reference__a_fifo_grant_of_the_rest_takes_the_message_out_of_both_queues() {
        let mut r = QueueReference::new(fifo_cfg(), 4);
        assert!(r.event(1, &ev(1, 2, 7_000, 1_000, 1_000)));
        let g = r.fifo_grant().unwrap();
        assert_eq!(g.offset, 7_000, "2,000 left, less than the increment");
        assert_eq!(r.queued(), 0);
        assert_eq!(r.fifo_grant(), None);
        // Off: no grant.
        let mut off = QueueReference::new(cfg(), 4);
        assert!(off.event(1, &ev(1, 2, 70_000, 1_000, 1_000)));
        assert_eq!(off.fifo_grant(), None);
    }

    #[test]
    fn reference__a_message_that_takes_a_held_entry_is_the_youngest() {
        let mut r = QueueReference::new(fifo_cfg(), 4);
        assert!(r.event(1, &ev(1, 2, 50_000, 1_000, 1_000)));
        assert!(r.event(2, &ev(2, 4, 50_000, 1_000, 1_000)));
        assert!(r.event(1, &ev(3, 6, 50_000, 1_000, 1_000)));
        assert_eq!(r.fifo_grant().unwrap().id, 4);
    }

    #[test]
    fn reference__a_new_message_takes_an_entry_still_held() {
        let mut r = QueueReference::new(cfg(), 4);
        assert!(r.event(1, &ev(1, 2, 50_000, 1_000, 1_000)));
        assert!(r.event(1, &ev(2, 4, 60_000, 1_000, 1_000)));
        assert_eq!((r.tracked(), r.queued(), r.evictions), (1, 1, 1));
        assert_eq!(r.outstanding(), 4_000);
    }
}
