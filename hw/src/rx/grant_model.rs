//! The grant generator's reference and stimulus, shared by the rust-hdl tests and the
//! Verilator co-simulation in `homa-sim`.
//!
//! [`Reference`] is `homa_proto::core`'s receive-side grant logic restated over the block's
//! inputs: the same state per message (length, received, granted, age), the same moments
//! of decision (every DATA of a message that needs grants), and the same decisions, taken by
//! calling [`homa_proto::policy`] (`choose_active`, `window`, `grant_target`,
//! `sched_priority`) exactly as `core::grant::update_grants` does. [`Traffic`] makes
//! closed-loop DATA traffic: many interleaved messages of 1 B to 1 MB from a few peers,
//! each sent only up to what it has been granted, with losses repaired later, duplicates,
//! repairs cut across packet boundaries and reordering; it turns each packet into the
//! block's event (`new` counted by a range set, as `core` counts it).

use crate::bench::Rng;
use crate::grant::DECISION_CYCLES;
use homa_proto::policy::{self, GrantCandidate};

/// One DATA packet as the grant generator takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Event {
    /// The sending peer (IPv4 address).
    pub peer: u32,
    /// The RPC id.
    pub id: u64,
    /// The packet's source port.
    pub sport: u16,
    /// The packet's destination port.
    pub dport: u16,
    /// The packet's source MAC address (48 bits).
    pub mac: u64,
    /// The message length.
    pub length: u32,
    /// The DATA header's `incoming`.
    pub incoming: u32,
    /// Bytes of the packet not received before.
    pub new: u32,
    /// The packet's end offset.
    pub end: u32,
}

/// One GRANT the block must send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grant {
    /// The peer (IPv4 address).
    pub peer: u32,
    /// The peer's MAC address.
    pub mac: u64,
    /// The RPC id as it arrived.
    pub id: u64,
    /// The GRANT's source port.
    pub sport: u16,
    /// The GRANT's destination port.
    pub dport: u16,
    /// The granted offset.
    pub offset: u32,
    /// The priority.
    pub priority: u8,
}

/// The grant configuration: what the register file drives into the block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GrantConfig {
    /// Overcommitment degree (1-8).
    pub max_overcommit: u8,
    /// The highest scheduled level (0-7).
    pub max_sched_prio: u8,
    /// Limit on granted-but-unreceived bytes.
    pub max_incoming: u32,
    /// The fixed window, or 0 for `max_incoming / (active + 1)`.
    pub window: u32,
}

impl GrantConfig {
    /// The window for each number of active messages 0..=8: the table the driver writes.
    pub fn window_table(&self) -> [u32; 9] {
        std::array::from_fn(|n| policy::window(self.window, self.max_incoming, n))
    }
}

#[derive(Debug, Clone)]
struct Msg {
    ev: Event,
    received: u32,
    granted: u32,
    age: u64,
}

/// The reference: messages that need grants, and the grants `core` would send.
#[derive(Debug, Clone)]
pub struct Reference {
    cfg: GrantConfig,
    msgs: Vec<Msg>,
    ages: u64,
}

impl Reference {
    /// An empty reference under `cfg`.
    pub fn new(cfg: GrantConfig) -> Self {
        Reference {
            cfg,
            msgs: Vec::new(),
            ages: 0,
        }
    }

    /// Messages tracked now.
    pub fn tracked(&self) -> usize {
        self.msgs.len()
    }

    /// The first event of each message tracked now, oldest first (for a host that releases
    /// messages it gave up on or holds whole).
    pub fn tracked_messages(&self) -> impl Iterator<Item = &Event> {
        self.msgs.iter().map(|m| &m.ev)
    }

    /// Takes one event; returns the GRANTs it causes, in the order they must leave.
    pub fn event(&mut self, ev: &Event) -> Vec<Grant> {
        let hit = self
            .msgs
            .iter()
            .position(|m| m.ev.peer == ev.peer && m.ev.id == ev.id);
        let decide = match hit {
            Some(i) => {
                let m = &mut self.msgs[i];
                m.received += ev.new;
                m.granted = m.granted.max(ev.end);
                if m.received >= m.ev.length {
                    self.msgs.remove(i);
                }
                true
            }
            None => {
                let needs = ev.incoming < ev.length;
                if needs && ev.new > 0 && ev.new < ev.length {
                    self.msgs.push(Msg {
                        ev: *ev,
                        received: ev.new,
                        granted: ev.incoming.max(ev.end).min(ev.length),
                        age: self.ages,
                    });
                    self.ages += 1;
                }
                needs && ev.new > 0
            }
        };
        if decide {
            self.update_grants()
        } else {
            Vec::new()
        }
    }

    /// `core::grant::update_grants`, over this state.
    fn update_grants(&mut self) -> Vec<Grant> {
        let mut idx = Vec::new();
        let mut cands = Vec::new();
        let mut outstanding: u64 = 0;
        for (i, m) in self.msgs.iter().enumerate() {
            outstanding += u64::from(m.granted.saturating_sub(m.received));
            if m.granted < m.ev.length {
                idx.push(i);
                cands.push(GrantCandidate {
                    peer: m.ev.peer,
                    bytes_remaining: m.ev.length - m.received,
                    age: m.age,
                });
            }
        }
        let active = policy::choose_active(&cands, usize::from(self.cfg.max_overcommit));
        let n = active.len();
        let window = policy::window(self.cfg.window, self.cfg.max_incoming, n);
        let mut headroom = u64::from(self.cfg.max_incoming).saturating_sub(outstanding);
        let mut out = Vec::new();
        for (rank, &c) in active.iter().enumerate() {
            let m = &mut self.msgs[idx[c]];
            let priority = policy::sched_priority(rank, n, self.cfg.max_sched_prio);
            let target = policy::grant_target(m.ev.length, m.received, m.granted, window, headroom);
            if target <= m.granted {
                continue;
            }
            headroom -= u64::from(target - m.granted);
            m.granted = target;
            out.push(Grant {
                peer: m.ev.peer,
                mac: m.ev.mac,
                id: m.ev.id,
                sport: m.ev.dport,
                dport: m.ev.sport,
                offset: target,
                priority,
            });
        }
        out
    }
}

/// One DATA packet on the wire: its header fields (`ev.new` unused) and payload offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Packet {
    /// Header fields; `ev.end` is the payload's end offset.
    pub ev: Event,
    /// The payload's offset in the message.
    pub offset: u32,
}

/// Disjoint sorted byte ranges: counts how many bytes of a packet are new.
#[derive(Debug, Clone, Default)]
pub(crate) struct Ranges(pub(crate) Vec<(u32, u32)>);

impl Ranges {
    /// Inserts `[start, end)`, merging touching ranges (as `core::incoming` does); returns
    /// the bytes not covered before.
    pub(crate) fn insert(&mut self, start: u32, end: u32) -> u32 {
        let i = self.0.partition_point(|r| r.1 < start);
        let (mut s, mut e, mut covered, mut j) = (start, end, 0, i);
        while j < self.0.len() && self.0[j].0 <= end {
            let (a, b) = self.0[j];
            covered += b.min(end).saturating_sub(a.max(start));
            s = s.min(a);
            e = e.max(b);
            j += 1;
        }
        self.0.splice(i..j, [(s, e)]);
        (end - start) - covered
    }
}

#[derive(Debug, Clone)]
struct Sender {
    ev: Event,
    /// The message's entry in the receiver's message table.
    index: u32,
    /// Offsets of segments not yet sent (or lost), in order.
    next: u32,
    lost: Vec<u32>,
    sent: Vec<u32>,
    granted: u32,
    ranges: Ranges,
}

/// Closed-loop DATA traffic toward one receiver.
#[derive(Debug)]
pub struct Traffic {
    rng: Rng,
    senders: Vec<Sender>,
    next_id: u64,
    seg: u32,
    unsched: u32,
    peers: u64,
    /// Message-table entries not held by a live message.
    free: Vec<u32>,
    /// Percent of packets before which a new message starts (while entries are free).
    start_percent: u64,
    /// Messages started so far.
    pub started: u64,
}

impl Traffic {
    /// Traffic from `seed` with at most `max_live` messages in flight at once, from 2 to 5
    /// peers.
    pub fn new(seed: u64, max_live: usize) -> Self {
        Self::build(seed, max_live, None)
    }

    /// Traffic from `seed` with at most `max_live` messages in flight at once, from `peers`
    /// peers (at least one). Each live message holds one message-table entry of
    /// `0..max_live` ([`next_indexed_event`](Self::next_indexed_event)).
    pub fn with_peers(seed: u64, max_live: usize, peers: u64) -> Self {
        Self::build(seed, max_live, Some(peers.max(1)))
    }

    /// Starts a new message before `percent` of the packets (20 by default) while fewer
    /// than `max_live` are live: above 20, the live messages pile up.
    pub fn with_start_percent(mut self, percent: u64) -> Self {
        self.start_percent = percent.min(100);
        self
    }

    fn build(seed: u64, max_live: usize, peers: Option<u64>) -> Self {
        let mut rng = Rng::new(seed);
        let seg = [1400, 1442, 8900][rng.below(3) as usize];
        let unsched = [5000, 10_000, 60_000][rng.below(3) as usize];
        let drawn = 2 + rng.below(4);
        let peers = peers.unwrap_or(drawn);
        Traffic {
            rng,
            senders: Vec::new(),
            next_id: 2,
            seg,
            unsched,
            peers,
            free: (0..max_live as u32).rev().collect(),
            start_percent: 20,
            started: 0,
        }
    }

    fn length(&mut self) -> u32 {
        // Log-uniform 1 B .. 1 MB, with ties on purpose, and often above the unscheduled
        // bytes so that several messages compete for grants.
        match self.rng.below(8) {
            0 => 1 + self.rng.below(100) as u32,
            1 => 20_000,
            2 | 3 => self.unsched + 1 + self.rng.below(200_000) as u32,
            _ => {
                let bits = 1 + self.rng.below(20) as u32;
                let mask = (1u32 << bits) - 1;
                // At most the wire format's 1,000,000 (the parser drops longer messages).
                (1 + (self.rng.next_u64() as u32 & mask)).min(homa_proto::wire::MAX_MESSAGE_LENGTH)
            }
        }
    }

    /// The next DATA packet's event, or `None` when nothing may be sent now (every live
    /// message waits for grants and no new one started). `new` is counted by the receiver's
    /// range set, as `core` counts it.
    pub fn next_event(&mut self) -> Option<Event> {
        self.next_indexed_event().map(|(_, ev)| ev)
    }

    /// The next DATA packet as it leaves its sender (`ev.new` is 0: the receiver counts),
    /// or `None` when nothing may be sent now. Report what became of it with [`deliver`].
    ///
    /// [`deliver`]: Self::deliver
    pub fn next_packet(&mut self) -> Option<Packet> {
        if !self.free.is_empty() && self.rng.chance(self.start_percent) {
            let length = self.length();
            let peer = 0x0A00_0001 + self.rng.below(self.peers) as u32;
            let ev = Event {
                peer,
                id: self.next_id,
                sport: 40_000 + self.rng.below(4) as u16,
                dport: 500,
                mac: 0x0200_0000_0000 | u64::from(peer),
                length,
                incoming: self.unsched.min(length),
                new: 0,
                end: 0,
            };
            self.next_id += 2;
            self.started += 1;
            let index = self.free.pop().expect("checked above");
            self.senders.push(Sender {
                ev,
                index,
                next: 0,
                lost: Vec::new(),
                sent: Vec::new(),
                granted: ev.incoming,
                ranges: Ranges::default(),
            });
        }
        loop {
            let ready: Vec<usize> = (0..self.senders.len())
                .filter(|&i| {
                    let s = &self.senders[i];
                    s.next < s.granted || !s.lost.is_empty()
                })
                .collect();
            if ready.is_empty() {
                return None;
            }
            let i = ready[self.rng.below(ready.len() as u64) as usize];
            let seg = self.seg;
            let dup = self.rng.chance(3);
            let retransmit = self.rng.chance(30);
            let lose = self.rng.chance(4);
            let straddle = self.rng.chance(5);
            let (r_off, r_len) = (self.rng.next_u64(), 1 + self.rng.below(3 * u64::from(seg)));
            let s = &mut self.senders[i];
            let top = s.granted.min(s.ev.length);
            if straddle && top > 0 {
                // A packet cut elsewhere (a RESEND's exact byte range, re-cut by the sender):
                // any range of the bytes the sender may send, across packet boundaries, the
                // receiver's ranges and its holes.
                let offset = (r_off % u64::from(top)) as u32;
                let end = (u64::from(offset) + r_len).min(u64::from(top)) as u32;
                return Some(Packet {
                    ev: Event { end, ..s.ev },
                    offset,
                });
            }
            let offset = if dup && !s.sent.is_empty() {
                s.sent[self.rng.below(s.sent.len() as u64) as usize]
            } else if retransmit && !s.lost.is_empty() || s.next >= s.granted {
                s.lost.remove(0)
            } else {
                let o = s.next;
                s.next = (o + seg).min(s.ev.length);
                if lose {
                    // Lost on the way: the receiver never sees it; resent later.
                    s.lost.push(o);
                    continue;
                }
                o
            };
            s.sent.push(offset);
            let end = (offset + seg).min(s.ev.length);
            return Some(Packet {
                ev: Event { end, ..s.ev },
                offset,
            });
        }
    }

    /// What became of a packet from [`next_packet`](Self::next_packet): taken by the
    /// receiver (returns the bytes that were new to it), or dropped (the sender resends it
    /// later, as after a RESEND; returns 0).
    pub fn deliver(&mut self, p: &Packet, taken: bool) -> u32 {
        let Some(i) = self
            .senders
            .iter()
            .position(|s| s.ev.peer == p.ev.peer && s.ev.id == p.ev.id)
        else {
            return 0;
        };
        let s = &mut self.senders[i];
        if !taken {
            s.lost.push(p.offset);
            return 0;
        }
        let new = s.ranges.insert(p.offset, p.ev.end);
        if s.ranges.0 == [(0, s.ev.length)] && s.lost.is_empty() && s.next >= s.ev.length {
            let s = self.senders.remove(i);
            self.free.push(s.index);
        }
        new
    }

    /// The next DATA packet's event and its message's table entry, as
    /// [`next_event`](Self::next_event). An entry is reused only after the event that
    /// completes its message.
    pub fn next_indexed_event(&mut self) -> Option<(u32, Event)> {
        let p = self.next_packet()?;
        let index = self.index_of(p.ev.peer, p.ev.id)?;
        let new = self.deliver(&p, true);
        Some((index, Event { new, ..p.ev }))
    }

    /// The table entry of the live message (peer, id).
    pub fn index_of(&self, peer: u32, id: u64) -> Option<u32> {
        (self.senders.iter())
            .find(|s| s.ev.peer == peer && s.ev.id == id)
            .map(|s| s.index)
    }

    /// Ends a random message in flight (its receiver released it); returns its header
    /// event, or `None` when nothing is in flight.
    pub fn abort(&mut self) -> Option<Event> {
        if self.senders.is_empty() {
            return None;
        }
        let i = self.rng.below(self.senders.len() as u64) as usize;
        let s = self.senders.remove(i);
        self.free.push(s.index);
        Some(s.ev)
    }

    /// Delivers a GRANT to its sender.
    pub fn grant(&mut self, g: &Grant) {
        if let Some(s) = self
            .senders
            .iter_mut()
            .find(|s| s.ev.peer == g.peer && s.ev.id == g.id)
        {
            s.granted = s.granted.max(g.offset);
        }
    }

    /// Messages in flight.
    pub fn live(&self) -> usize {
        self.senders.len()
    }

    /// Whether the message (peer, id) is still being sent: a message leaves when its sender
    /// knows the receiver holds every byte.
    pub fn is_live(&self, peer: u32, id: u64) -> bool {
        self.senders
            .iter()
            .any(|s| s.ev.peer == peer && s.ev.id == id)
    }
}

/// The grant generator's ports as a co-simulation drives them: implemented by the rust-hdl
/// bench and by the Verilated model, so that both run the same checking loop, [`run`].
pub trait GrantPorts {
    /// Holds reset for two cycles, then drives the configuration.
    fn reset(&mut self, cfg: &GrantConfig);
    /// Drives the inputs for this cycle (clock low) and lets the outputs settle.
    fn drive(&mut self, ev: Option<&Event>, grant_ready: bool);
    /// Whether the offered event is taken this cycle.
    fn evt_ready(&self) -> bool;
    /// The GRANT offered this cycle.
    fn grant(&self) -> Option<Grant>;
    /// (messages_tracked, grants_sent, table_full).
    fn counters(&self) -> (u32, u32, u32);
    /// The rising edge.
    fn edge(&mut self);
}

/// What a [`run`] saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Events taken.
    pub events: u64,
    /// GRANTs checked.
    pub grants: u64,
    /// Messages started.
    pub messages: u64,
    /// Cycles simulated.
    pub cycles: u64,
    /// Cycles with an event offered but not taken.
    pub stalls: u64,
}

/// Drives `events` closed-loop DATA events from `seed` into `dut` with random gaps and
/// back-pressure on `m_grant_ready`, checks every GRANT (content and order) against
/// [`Reference`], then drains and checks the counters. `Err` says what differed, with the
/// seed and cycle.
pub fn run<D: GrantPorts>(
    dut: &mut D,
    seed: u64,
    events: u64,
    cfg: GrantConfig,
    max_live: usize,
) -> Result<RunStats, String> {
    let mut traffic = Traffic::new(seed, max_live);
    let mut rng = Rng::new(seed ^ 0x5EED_6A47);
    let mut reference = Reference::new(cfg);
    let mut expected = std::collections::VecDeque::new();
    let mut st = RunStats::default();
    let mut offered: Option<Event> = None;
    let mut quiet = 0u64;
    dut.reset(&cfg);
    loop {
        let draining = st.events >= events;
        // Quiet for longer than a decision takes: no GRANT can still be coming.
        if draining && expected.is_empty() && quiet > 2 * DECISION_CYCLES as u64 {
            break;
        }
        if st.cycles > 200 * events + 10_000 {
            return Err(format!(
                "seed {seed:#x}: no progress after {} cycles ({} events, {} grants expected and not seen)",
                st.cycles,
                st.events,
                expected.len()
            ));
        }
        if offered.is_none() && !draining && rng.chance(80) {
            offered = traffic.next_event();
        }
        let valid = offered.is_some() && rng.chance(85);
        let ready = rng.chance(70);
        dut.drive(offered.as_ref().filter(|_| valid), ready);
        let ctx = || format!("seed {seed:#x}, cycle {}", st.cycles);
        match (dut.grant(), ready) {
            (Some(g), true) => {
                let want = expected
                    .pop_front()
                    .ok_or_else(|| format!("{}: unexpected GRANT {g:?}", ctx()))?;
                if g != want {
                    return Err(format!("{}: GRANT {g:?}, reference {want:?}", ctx()));
                }
                traffic.grant(&g);
                st.grants += 1;
                quiet = 0;
            }
            (Some(_), false) => quiet = 0,
            (None, _) => quiet += 1,
        }
        if valid {
            if dut.evt_ready() {
                let ev = offered.take().expect("valid implies offered");
                expected.extend(reference.event(&ev));
                st.events += 1;
                quiet = 0;
            } else {
                st.stalls += 1;
            }
        }
        dut.edge();
        st.cycles += 1;
    }
    let (tracked, sent, full) = dut.counters();
    let want = (reference.tracked() as u32, st.grants as u32, 0);
    if (tracked, sent, full) != want {
        return Err(format!(
            "seed {seed:#x}: counters (tracked, grants_sent, table_full) = {:?}, reference {want:?}",
            (tracked, sent, full)
        ));
    }
    st.messages = traffic.started;
    Ok(st)
}
