//! The transmit scheduler's reference and bench, shared by the rust-hdl test of
//! [`crate::tx_sched::TxSched16`] and its Verilator co-simulation in `homa-sim`.
//!
//! [`Mirror`] keeps the slots as the block must: the pick is `proto::policy::srpt_pick` over
//! the slots with granted bytes still to send, in age order, one cycle old (the block
//! registers it, and offers nothing the cycle after a pick is taken); a message's packet is
//! cut by `proto::core::segment_len` from the slot as it is now, and its unscheduled priority
//! is `proto::policy::unsched_priority`.
//! [`run`] drives a block through [`TxSchedPorts`] with seeded random descriptors (SEND_MESSAGE
//! of 1 B to 1 MB, some RETRANSMIT ranges, some CANCELs of an RPC), GRANTs (for live messages,
//! stale, lowering, past the end, for nobody) and back-pressure on the jobs, compares every
//! cycle's outputs with the mirror, and checks on its own that each message's bytes leave
//! once, in order, and that a cancelled range ends after at most one more byte.

use crate::bench::Rng;
use homa_proto::core::segment_len;
use homa_proto::policy::{TxCandidate, srpt_pick, unsched_priority};
use homa_proto::wire::NUM_PRIORITIES;
use std::collections::{HashMap, VecDeque};

/// The block's configuration inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxSchedConfig {
    /// Unscheduled bytes per message.
    pub unsched_bytes: u32,
    /// Most payload bytes per packet (> 0).
    pub max_payload: u32,
    /// The unscheduled cutoffs.
    pub cutoffs: [u32; NUM_PRIORITIES],
}

/// An accepted TX descriptor as `s_desc_*` carry it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TxEntry {
    /// RETRANSMIT.
    pub retransmit: bool,
    /// CANCEL (of every slot of `peer` and `id`; the other fields are not used).
    pub cancel: bool,
    /// NO_COMPLETION.
    pub no_completion: bool,
    /// Local port.
    pub sport: u16,
    /// Peer's port.
    pub dport: u16,
    /// Local RPC id.
    pub id: u64,
    /// Peer IPv4 address.
    pub peer: u32,
    /// Message length (> 0).
    pub length: u32,
    /// IOVA of the message.
    pub iova: u64,
    /// First byte to send.
    pub offset: u32,
    /// Bytes to send (> 0, inside the message).
    pub bytes: u32,
    /// Cookie.
    pub cookie: u64,
    /// Ring index.
    pub index: u32,
    /// A parked message comes back (`offset` is what it has sent, `bytes` the rest).
    pub resume: bool,
    /// A resumed message's granted bytes.
    pub granted: u32,
    /// A resumed message's scheduled priority.
    pub sprio: u8,
}

/// A GRANT as `s_grant_*` carry it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TxGrant {
    /// Its source (the peer).
    pub peer: u32,
    /// Its `sender_id` as on the wire (the local id ^ 1).
    pub id: u64,
    /// Granted offset.
    pub offset: u32,
    /// Scheduled priority.
    pub priority: u8,
}

/// One decided DATA packet (`m_job_*`); the DATA framer takes the same fields but the
/// address and the slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TxJob {
    /// Payload host address.
    pub addr: u64,
    /// Offset in the message.
    pub offset: u32,
    /// Payload bytes.
    pub len: u32,
    /// Priority.
    pub priority: u8,
    /// Retransmit flag.
    pub retransmit: bool,
    /// DATA's `incoming`.
    pub incoming: u32,
    /// The range's last packet.
    pub last: bool,
    /// No TX_DONE wanted.
    pub no_completion: bool,
    /// Peer.
    pub peer: u32,
    /// Local port.
    pub sport: u16,
    /// Peer's port.
    pub dport: u16,
    /// RPC id.
    pub id: u64,
    /// Message length.
    pub length: u32,
    /// Cookie.
    pub cookie: u64,
    /// Ring index.
    pub index: u32,
    /// Slot.
    pub slot: usize,
}

#[derive(Debug, Clone, Copy)]
struct Slot {
    e: TxEntry,
    end: u32,
    sent: u32,
    granted: u32,
    unsch: u32,
    uprio: u8,
    sprio: u8,
    age: u64,
    /// The remaining bytes the SRPT scheduler keys the slot by (refreshed by picks only).
    key: u32,
}

impl Slot {
    /// A SEND_MESSAGE that no CANCEL cut short: what may leave for the park.
    fn parkable(&self) -> bool {
        !self.e.retransmit && self.end == self.e.offset + self.e.bytes
    }
}

/// The scheduler's state as the reference keeps it.
#[derive(Debug, Clone)]
pub struct Mirror {
    slots: Vec<Option<Slot>>,
    inserted: u64,
    /// The SRPT pick of the cycle before, unless a job was taken at the edge since.
    pick: Option<usize>,
    /// The SEND_MESSAGE with the most bytes left in the cycle before: (slot, bytes).
    most: Option<(usize, u32)>,
    /// Jobs taken.
    pub packets: u32,
    /// GRANTs that matched no slot.
    pub grants_unmatched: u32,
}

impl Mirror {
    /// An empty table of `n` slots.
    pub fn new(n: usize) -> Self {
        Mirror {
            slots: vec![None; n],
            inserted: 0,
            pick: None,
            most: None,
            packets: 0,
            grants_unmatched: 0,
        }
    }

    /// The slot an insert takes (the lowest free one).
    pub fn free(&self) -> Option<usize> {
        self.slots.iter().position(Option::is_none)
    }

    /// Occupied slots.
    pub fn occupancy(&self) -> usize {
        self.slots.iter().flatten().count()
    }

    /// The live SEND_MESSAGE slots: (peer, local id, granted, sent, length).
    pub fn messages(&self) -> Vec<(u32, u64, u32, u32, u32)> {
        self.slots
            .iter()
            .flatten()
            .filter(|s| !s.e.retransmit)
            .map(|s| (s.e.peer, s.e.id, s.granted, s.sent, s.e.length))
            .collect()
    }

    /// The slots that wait for a GRANT (bit `j` for slot `j`): live SEND_MESSAGEs whose
    /// granted bytes are all sent.
    pub fn waiting(&self) -> u16 {
        let mut w = 0u16;
        for (j, s) in self.slots.iter().enumerate() {
            if s.is_some_and(|s| !s.e.retransmit && s.sent == s.granted) {
                w |= 1 << j;
            }
        }
        w
    }

    /// Whether `grant` matches the live SEND_MESSAGE in slot `j`.
    fn grant_matches(&self, j: usize, grant: Option<TxGrant>) -> bool {
        match (grant, &self.slots[j]) {
            (Some(g), Some(s)) => !s.e.retransmit && s.e.peer == g.peer && s.e.id == g.id ^ 1,
            _ => false,
        }
    }

    /// Whether `grant` matches any live SEND_MESSAGE (`m_grant_hit`).
    pub fn grant_hit(&self, grant: Option<TxGrant>) -> bool {
        (0..self.slots.len()).any(|j| self.grant_matches(j, grant))
    }

    /// What `park_*` offer for slot `j` when it may leave this cycle (`park_ok`): it holds a
    /// SEND_MESSAGE, and the cycle has no GRANT, no CANCEL and no registered pick. The record
    /// is the descriptor that brings it back.
    pub fn park(&self, j: usize, grant: Option<TxGrant>, cancel: bool) -> Option<TxEntry> {
        if grant.is_some() || cancel || self.pick.is_some() {
            return None;
        }
        let s = self.slots.get(j)?.as_ref().filter(|s| s.parkable())?;
        Some(TxEntry {
            resume: true,
            offset: s.sent,
            bytes: s.end - s.sent,
            granted: s.granted,
            sprio: s.sprio,
            ..s.e
        })
    }

    /// `most_*`: the registered (slot, bytes left) of the SEND_MESSAGE with the most bytes
    /// left, the lowest slot on ties.
    pub fn most(&self) -> Option<(usize, u32)> {
        self.most
    }

    fn most_now(&self) -> Option<(usize, u32)> {
        let mut best: Option<(usize, u32)> = None;
        for (j, s) in self.slots.iter().enumerate() {
            if let Some(s) = s.filter(Slot::parkable)
                && best.is_none_or(|(_, l)| s.end - s.sent > l)
            {
                best = Some((j, s.end - s.sent));
            }
        }
        best
    }

    /// The SRPT scheduler's pick over the slots as they are now: among those with granted bytes
    /// still to send, the fewest remaining bytes (as the SRPT scheduler keys them), older first.
    fn srpt_choice(&self) -> Option<usize> {
        let mut cands: Vec<(usize, &Slot)> = self
            .slots
            .iter()
            .enumerate()
            .filter_map(|(j, s)| s.as_ref().map(|s| (j, s)))
            .filter(|(_, s)| s.sent < s.granted)
            .collect();
        cands.sort_by_key(|(_, s)| s.age);
        let pick = srpt_pick(cands.iter().map(|(_, s)| TxCandidate {
            bytes_remaining: s.key,
            age: s.age,
        }))?;
        Some(cands[pick].0)
    }

    /// The packet the block must offer now: the SRPT pick of the cycle before (the pick is
    /// registered), cut from its slot as the slot is now. None in the cycle after a job was
    /// taken (the registered pick predates that job's update).
    pub fn job(&self, cfg: &TxSchedConfig) -> Option<TxJob> {
        let slot = self.pick?;
        let s = self.slots[slot]
            .as_ref()
            .expect("a registered pick stays live until it is taken");
        let len = if s.e.retransmit {
            (s.end - s.sent).min(cfg.max_payload)
        } else {
            // A cancelled message ends before its length.
            segment_len(s.sent, s.unsch, s.e.length, cfg.max_payload).min(s.end - s.sent)
        };
        let in_unsched = !s.e.retransmit && s.sent < s.unsch;
        Some(TxJob {
            addr: s.e.iova.wrapping_add(u64::from(s.sent)),
            offset: s.sent,
            len,
            priority: if s.e.retransmit || in_unsched {
                s.uprio
            } else {
                s.sprio
            },
            retransmit: s.e.retransmit,
            incoming: if s.e.retransmit { s.end } else { s.unsch },
            last: s.sent + len == s.end,
            no_completion: s.e.no_completion,
            peer: s.e.peer,
            sport: s.e.sport,
            dport: s.e.dport,
            id: s.e.id,
            length: s.e.length,
            cookie: s.e.cookie,
            index: s.e.index,
            slot,
        })
    }

    /// The clock edge: the job taken (if `take`; never in a CANCEL's cycle), the GRANT
    /// applied to the slots live before the edge, a CANCEL applied to them, or the descriptor
    /// inserted into the slot free before it; slot `park` leaves if it may (see
    /// [`Mirror::park`]).
    pub fn edge(
        &mut self,
        cfg: &TxSchedConfig,
        take: bool,
        grant: Option<TxGrant>,
        insert: Option<TxEntry>,
        park: Option<usize>,
    ) {
        let free = self.free();
        let cancel = insert.is_some_and(|e| e.cancel);
        let parked = park.filter(|&j| self.park(j, grant, cancel).is_some());
        let job = if take { self.job(cfg) } else { None };
        self.most = self.most_now();
        self.pick = if job.is_some() || parked.is_some() {
            None
        } else {
            self.srpt_choice()
        };
        if let Some(g) = grant {
            let mut hit = false;
            for s in self.slots.iter_mut().flatten() {
                if !s.e.retransmit && s.e.peer == g.peer && s.e.id == g.id ^ 1 {
                    hit = true;
                    s.granted = s.granted.max(g.offset.min(s.e.length));
                    s.sprio = g.priority;
                }
            }
            if !hit {
                self.grants_unmatched = self.grants_unmatched.wrapping_add(1);
            }
        }
        if let Some(j) = parked {
            self.slots[j] = None;
        }
        if let Some(j) = job {
            self.packets = self.packets.wrapping_add(1);
            let s = self.slots[j.slot].as_mut().expect("picked a live slot");
            s.sent += j.len;
            s.key = s.end - s.sent;
            if j.last {
                self.slots[j.slot] = None;
            }
        }
        if let Some(c) = insert.filter(|e| e.cancel) {
            for s in self.slots.iter_mut().flatten() {
                if s.e.peer == c.peer && s.e.id == c.id {
                    s.end = s.sent + 1;
                    s.granted = s.end;
                    s.unsch = s.unsch.min(s.end);
                }
            }
            return;
        }
        if let (Some(e), Some(f)) = (insert, free) {
            let unsch = cfg.unsched_bytes.min(e.length);
            let end = e.offset + e.bytes;
            self.slots[f] = Some(Slot {
                e,
                end,
                sent: e.offset,
                granted: if e.resume {
                    e.granted
                } else if e.retransmit {
                    end
                } else {
                    unsch
                },
                unsch,
                uprio: unsched_priority(&cfg.cutoffs, e.length),
                sprio: if e.resume { e.sprio } else { 0 },
                age: self.inserted,
                key: e.bytes,
            });
            self.inserted += 1;
        }
    }
}

/// One cycle's inputs.
#[derive(Debug, Clone, Copy)]
pub struct TxSchedOffer {
    /// Configuration.
    pub cfg: TxSchedConfig,
    /// A descriptor offered.
    pub desc: Option<TxEntry>,
    /// A GRANT.
    pub grant: Option<TxGrant>,
    /// `m_job_ready`.
    pub job_ready: bool,
    /// `park_valid` with `park_slot`.
    pub park: Option<usize>,
}

/// One cycle's outputs (before the edge).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxSchedAnswer {
    /// `s_desc_ready`.
    pub desc_ready: bool,
    /// The job offered.
    pub job: Option<TxJob>,
    /// Occupied slots.
    pub occupancy: u32,
    /// Jobs taken so far.
    pub packets: u32,
    /// Unmatched GRANTs so far.
    pub grants_unmatched: u32,
    /// `m_grant_hit`.
    pub grant_hit: bool,
    /// `waiting`.
    pub waiting: u16,
    /// `park_*` for `park_slot` when `park_ok` (the descriptor that brings it back).
    pub park: Option<TxEntry>,
    /// `most_*` when `most_valid`.
    pub most: Option<(usize, u32)>,
    /// `full`.
    pub full: bool,
}

/// A transmit scheduler under test.
pub trait TxSchedPorts {
    /// Two cycles of reset.
    fn reset(&mut self);
    /// Sets the inputs and settles: the outputs of this cycle.
    fn drive(&mut self, offer: &TxSchedOffer) -> TxSchedAnswer;
    /// The rising edge.
    fn edge(&mut self);
    /// The block's slots.
    fn slots(&self) -> usize {
        crate::tx_sched::TX_SLOTS
    }
}

/// What a run did.
#[derive(Debug, Clone, Copy, Default)]
pub struct TxSchedStats {
    /// Cycles run.
    pub cycles: u64,
    /// Messages sent whole.
    pub messages: u64,
    /// Retransmitted ranges sent whole.
    pub retransmits: u64,
    /// DATA packets decided.
    pub packets: u64,
    /// Payload bytes decided.
    pub bytes: u64,
    /// GRANTs applied.
    pub grants: u64,
    /// GRANTs for nobody.
    pub unmatched: u64,
    /// Live ranges cut short by a CANCEL.
    pub cancelled: u64,
    /// Most slots occupied at once.
    pub max_occupancy: usize,
    /// Slots parked (left the table waiting for a GRANT).
    pub parked: u64,
    /// Parked messages brought back.
    pub resumed: u64,
}

fn random_config(rng: &mut Rng) -> TxSchedConfig {
    let unsched_bytes = [0, 1424, 10_000, 40_000, 9_000, 1][rng.below(6) as usize];
    let max_payload = [1424, 1424, 8948, 64, 1][rng.below(5) as usize];
    // Descending, level 0 covering every length (as `proto::core::Config` requires).
    let mut cutoffs = [u32::MAX; NUM_PRIORITIES];
    for x in cutoffs.iter_mut().skip(1) {
        *x = rng.below(300_000) as u32;
    }
    cutoffs.sort_unstable_by(|a, b| b.cmp(a));
    TxSchedConfig {
        unsched_bytes,
        max_payload,
        cutoffs,
    }
}

fn random_length(rng: &mut Rng, max_payload: u32) -> u32 {
    // At most 300 packets a message, so that tiny payloads keep a run short.
    let cap = max_payload.saturating_mul(300);
    let len = match rng.below(10) {
        0..=3 => 1 + rng.below(200) as u32,
        4..=6 => 1 + rng.below(20_000) as u32,
        7 | 8 => 1 + rng.below(200_000) as u32,
        _ => 1 + rng.below(1_000_000) as u32,
    };
    len.min(cap)
}

/// Drives `dut` for `messages` SEND_MESSAGE descriptors from `seed` (plus RETRANSMIT ranges of
/// some of them) until all have left, comparing every cycle with the [`Mirror`].
pub fn run<D: TxSchedPorts>(dut: &mut D, seed: u64, messages: u32) -> Result<TxSchedStats, String> {
    let mut rng = Rng::new(seed);
    let cfg = random_config(&mut rng);
    let peers = [0x0a00_0001u32, 0x0a00_0002, 0xc0a8_0102];
    let job_ready_pct = [100, 70, 30][rng.below(3) as usize];
    let slots = dut.slots();
    let mut m = Mirror::new(slots);
    let mut st = TxSchedStats::default();
    dut.reset();
    let mut posted = 0u32;
    let mut index = 0u32;
    let mut pending: Option<TxEntry> = None;
    // Per ring index: the next offset expected and the range's end (the independent check).
    let mut expect: HashMap<u32, (u32, u32)> = HashMap::new();
    // Messages already posted (for RETRANSMIT ranges and CANCELs): (entry).
    let mut known: Vec<TxEntry> = Vec::new();
    // Per ring index: its RPC (peer, id).
    let mut rpc_of: HashMap<u32, (u32, u64)> = HashMap::new();
    // The bench plays the park: the messages it took out, and the descriptors it must offer
    // before new ones (resumes, and the CANCELs it passes on to resumed messages).
    let mut parked: Vec<TxEntry> = Vec::new();
    let mut queue: VecDeque<TxEntry> = VecDeque::new();
    let park_pct = [5, 15, 30][rng.below(3) as usize];
    let limit = 20_000_000u64;
    loop {
        if pending.is_none() {
            pending = queue.pop_front();
        }
        if pending.is_none() && !parked.is_empty() && rng.chance(10) {
            // A GRANT reaches a parked message (or none does, now and then): it comes back.
            let mut e = parked.swap_remove(rng.below(parked.len() as u64) as usize);
            if rng.chance(85) {
                let offset =
                    e.offset + 1 + rng.below(3 * u64::from(cfg.max_payload.max(1000))) as u32;
                e.granted = e.granted.max(offset.min(e.length));
                e.sprio = rng.below(8) as u8;
            }
            st.resumed += 1;
            pending = Some(e);
        }
        if pending.is_none() && posted < messages && rng.chance(40) {
            let rtx = !known.is_empty() && rng.chance(15);
            let cancel = !rtx && !known.is_empty() && rng.chance(15);
            let e = if cancel {
                // Mostly a recent message (likely still live), now and then any.
                let from = known
                    .len()
                    .saturating_sub(if rng.chance(80) { 8 } else { known.len() });
                let k = known[from + rng.below((known.len() - from) as u64) as usize];
                TxEntry {
                    cancel: true,
                    retransmit: false,
                    cookie: rng.next_u64(),
                    index,
                    ..k
                }
            } else if rtx {
                let k = known[rng.below(known.len() as u64) as usize];
                let offset = rng.below(u64::from(k.length)) as u32;
                let bytes = 1 + rng.below(u64::from(k.length - offset).min(30_000)) as u32;
                TxEntry {
                    retransmit: true,
                    offset,
                    bytes,
                    cookie: rng.next_u64(),
                    index,
                    no_completion: rng.chance(20),
                    ..k
                }
            } else {
                posted += 1;
                let length = random_length(&mut rng, cfg.max_payload);
                // Ids even (client) or odd (server); a few repeat across peers.
                let e = TxEntry {
                    retransmit: false,
                    cancel: false,
                    no_completion: rng.chance(20),
                    sport: rng.next_u64() as u16,
                    dport: rng.next_u64() as u16,
                    id: rng.below(64) * 2 + rng.below(2),
                    peer: peers[rng.below(3) as usize],
                    length,
                    iova: rng.next_u64() >> 8,
                    offset: 0,
                    bytes: length,
                    cookie: rng.next_u64(),
                    index,
                    ..TxEntry::default()
                };
                known.push(e);
                e
            };
            index = index.wrapping_add(1);
            pending = Some(e);
        }
        let msgs = m.messages();
        let grant = if rng.chance(30) {
            if !msgs.is_empty() && rng.chance(85) {
                let (peer, id, granted, sent, length) = msgs[rng.below(msgs.len() as u64) as usize];
                let offset = match rng.below(6) {
                    0 => rng.below(u64::from(granted) + 1) as u32,
                    1 => length.saturating_add(rng.below(5000) as u32),
                    _ => {
                        sent.max(granted)
                            + rng.below(3 * u64::from(cfg.max_payload.max(1000))) as u32
                    }
                };
                Some(TxGrant {
                    peer,
                    id: id ^ 1,
                    offset,
                    priority: rng.below(8) as u8,
                })
            } else {
                Some(TxGrant {
                    peer: peers[rng.below(3) as usize],
                    id: rng.next_u64(),
                    offset: rng.next_u64() as u32,
                    priority: rng.below(8) as u8,
                })
            }
        } else {
            None
        };
        // Park a waiting slot now and then (mostly when a descriptor waits for a slot), and
        // now and then name one that may not leave.
        let blocked = pending.is_some_and(|e| !e.cancel) && m.free().is_none();
        let park = if rng.chance(if blocked { 90 } else { park_pct }) {
            let w = m.waiting();
            if w != 0 && rng.chance(80) {
                let ws: Vec<usize> = (0..slots).filter(|j| w & (1 << j) != 0).collect();
                Some(ws[rng.below(ws.len() as u64) as usize])
            } else {
                Some(rng.below(16) as usize)
            }
        } else {
            None
        };
        let offer = TxSchedOffer {
            cfg,
            desc: pending,
            grant,
            job_ready: rng.chance(job_ready_pct),
            park,
        };
        let a = dut.drive(&offer);
        let cycle = st.cycles;
        let ctx = || format!("seed {seed:#x}, cycle {cycle}, cfg {cfg:?}");
        let cancel = pending.is_some_and(|e| e.cancel);
        let job = m.job(&cfg).filter(|_| !cancel);
        let take = offer.job_ready && job.is_some();
        let want = TxSchedAnswer {
            desc_ready: m.free().is_some() || cancel,
            // No job in a CANCEL's cycle.
            job,
            occupancy: m.occupancy() as u32,
            packets: m.packets,
            grants_unmatched: m.grants_unmatched,
            grant_hit: m.grant_hit(grant),
            waiting: m.waiting(),
            park: park.and_then(|j| m.park(j, grant, cancel)),
            most: m.most(),
            full: m.free().is_none(),
        };
        if a != want {
            return Err(format!("{}:\n  block {a:?}\n  model {want:?}", ctx()));
        }
        if let Some(e) = want.park {
            // It leaves at this edge with what it has sent so far.
            if expect.get(&e.index).map(|x| x.0) != Some(e.offset) {
                return Err(format!("{}: parked at the wrong offset: {e:?}", ctx()));
            }
            parked.push(e);
            st.parked += 1;
        }
        if let (true, Some(j)) = (take, a.job) {
            let Some((next, end)) = expect.get_mut(&j.index) else {
                return Err(format!("{}: a packet of no live range: {j:?}", ctx()));
            };
            if j.offset != *next || j.len == 0 || j.offset + j.len > *end {
                return Err(format!(
                    "{}: packet [{}, +{}) of index {} out of order (next {next}, end {end})",
                    ctx(),
                    j.offset,
                    j.len,
                    j.index
                ));
            }
            *next += j.len;
            if j.last != (*next == *end) {
                return Err(format!("{}: last flag wrong on {j:?}", ctx()));
            }
            st.packets += 1;
            st.bytes += u64::from(j.len);
            if j.last {
                expect.remove(&j.index);
                if j.retransmit {
                    st.retransmits += 1;
                } else {
                    st.messages += 1;
                }
            }
        }
        if let Some(g) = grant {
            if msgs
                .iter()
                .any(|&(p, id, ..)| p == g.peer && id == g.id ^ 1)
            {
                st.grants += 1;
            } else {
                st.unmatched += 1;
            }
        }
        let insert = if a.desc_ready { pending.take() } else { None };
        match insert {
            // Every live range of the RPC ends one byte past what is sent (no pick this cycle).
            Some(c) if c.cancel => {
                let of_rpc = |e: &TxEntry| e.peer == c.peer && e.id == c.id;
                for (i, (next, end)) in expect.iter_mut() {
                    let rpc = rpc_of.get(i) == Some(&(c.peer, c.id));
                    if rpc && !parked.iter().any(|p| p.index == *i) {
                        *end = *next + 1;
                        st.cancelled += 1;
                    }
                }
                // A parked message of the RPC comes back, and the CANCEL follows it.
                for e in parked.iter().filter(|e| of_rpc(e)) {
                    queue.push_back(*e);
                    queue.push_back(c);
                    st.resumed += 1;
                }
                parked.retain(|e| !of_rpc(e));
            }
            Some(e) if e.resume => {}
            Some(e) => {
                expect.insert(e.index, (e.offset, e.offset + e.bytes));
                rpc_of.insert(e.index, (e.peer, e.id));
            }
            None => {}
        }
        m.edge(&cfg, take, grant, insert, park);
        dut.edge();
        st.max_occupancy = st.max_occupancy.max(m.occupancy());
        st.cycles += 1;
        let idle = pending.is_none() && queue.is_empty() && parked.is_empty();
        if posted == messages && idle && m.occupancy() == 0 {
            break;
        }
        if st.cycles > limit {
            return Err(format!("{}: no end after {limit} cycles", ctx()));
        }
    }
    if !expect.is_empty() {
        return Err(format!("seed {seed:#x}: ranges never finished: {expect:?}"));
    }
    Ok(st)
}

/// Runs of `messages` messages from seeds `seed..seed + runs`, each on a fresh block from
/// `make`, printing what they did; together they must have filled the table, sent
/// retransmissions and dropped unmatched GRANTs.
pub fn run_seeds<D: TxSchedPorts>(
    what: &str,
    mut make: impl FnMut() -> D,
    seed: u64,
    runs: u64,
    messages: u32,
) -> Result<(), String> {
    let mut total = TxSchedStats::default();
    // Some run took at least 8 slots at once (every slot of a smaller table).
    let mut full = 8;
    for i in 0..runs {
        let s = seed.wrapping_add(i);
        eprintln!("{what}: seed {s:#x} (HOMA_HW_SEED to replay), {messages} messages");
        let mut dut = make();
        full = full.min(dut.slots());
        let st = run(&mut dut, s, messages)?;
        eprintln!("  {st:?}");
        total.retransmits += st.retransmits;
        total.unmatched += st.unmatched;
        total.cancelled += st.cancelled;
        total.max_occupancy = total.max_occupancy.max(st.max_occupancy);
        total.parked += st.parked;
        total.resumed += st.resumed;
    }
    if total.retransmits == 0
        || total.unmatched == 0
        || total.cancelled == 0
        || total.max_occupancy < full
        || total.parked == 0
        || total.resumed == 0
    {
        return Err(format!("seeds {seed:#x}+{runs} did too little: {total:?}"));
    }
    Ok(())
}
