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

use crate::parser_model::Rng;
use homa_proto::core::segment_len;
use homa_proto::policy::{TxCandidate, srpt_pick, unsched_priority};
use homa_proto::wire::NUM_PRIORITIES;
use std::collections::HashMap;

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

/// The scheduler's state as the reference keeps it.
#[derive(Debug, Clone)]
pub struct Mirror {
    slots: Vec<Option<Slot>>,
    inserted: u64,
    /// The SRPT pick of the cycle before, unless a job was taken at the edge since.
    pick: Option<usize>,
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
    /// inserted into the slot free before it.
    pub fn edge(
        &mut self,
        cfg: &TxSchedConfig,
        take: bool,
        grant: Option<TxGrant>,
        insert: Option<TxEntry>,
    ) {
        let free = self.free();
        let job = if take { self.job(cfg) } else { None };
        self.pick = if job.is_some() {
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
                granted: if e.retransmit { end } else { unsch },
                unsch,
                uprio: unsched_priority(&cfg.cutoffs, e.length),
                sprio: 0,
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
}

/// A transmit scheduler under test.
pub trait TxSchedPorts {
    /// Two cycles of reset.
    fn reset(&mut self);
    /// Sets the inputs and settles: the outputs of this cycle.
    fn drive(&mut self, offer: &TxSchedOffer) -> TxSchedAnswer;
    /// The rising edge.
    fn edge(&mut self);
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
    let mut m = Mirror::new(crate::tx_sched::TX_SLOTS);
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
    let limit = 20_000_000u64;
    loop {
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
        let offer = TxSchedOffer {
            cfg,
            desc: pending,
            grant,
            job_ready: rng.chance(job_ready_pct),
        };
        let a = dut.drive(&offer);
        let cycle = st.cycles;
        let ctx = || format!("seed {seed:#x}, cycle {cycle}, cfg {cfg:?}");
        let cancel = pending.is_some_and(|e| e.cancel);
        let want = TxSchedAnswer {
            desc_ready: m.free().is_some() || cancel,
            // No job in a CANCEL's cycle.
            job: m.job(&cfg).filter(|_| !cancel),
            occupancy: m.occupancy() as u32,
            packets: m.packets,
            grants_unmatched: m.grants_unmatched,
        };
        if a != want {
            return Err(format!("{}:\n  block {a:?}\n  model {want:?}", ctx()));
        }
        let take = offer.job_ready && a.job.is_some();
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
                for (i, (next, end)) in expect.iter_mut() {
                    if rpc_of.get(i) == Some(&(c.peer, c.id)) {
                        *end = *next + 1;
                        st.cancelled += 1;
                    }
                }
            }
            Some(e) => {
                expect.insert(e.index, (e.offset, e.offset + e.bytes));
                rpc_of.insert(e.index, (e.peer, e.id));
            }
            None => {}
        }
        m.edge(&cfg, take, grant, insert);
        dut.edge();
        st.max_occupancy = st.max_occupancy.max(m.occupancy());
        st.cycles += 1;
        if posted == messages && pending.is_none() && m.occupancy() == 0 {
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
    for i in 0..runs {
        let s = seed.wrapping_add(i);
        eprintln!("{what}: seed {s:#x} (HOMA_HW_SEED to replay), {messages} messages");
        let st = run(&mut make(), s, messages)?;
        eprintln!("  {st:?}");
        total.retransmits += st.retransmits;
        total.unmatched += st.unmatched;
        total.cancelled += st.cancelled;
        total.max_occupancy = total.max_occupancy.max(st.max_occupancy);
    }
    if total.retransmits == 0
        || total.unmatched == 0
        || total.cancelled == 0
        || total.max_occupancy < 8
    {
        return Err(format!("seeds {seed:#x}+{runs} did too little: {total:?}"));
    }
    Ok(())
}
