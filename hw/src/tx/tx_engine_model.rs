//! The transmit engine's end-to-end bench, shared by the rust-hdl test of
//! [`crate::tx_engine::TxEngine512`] and its Verilator co-simulation in `homa-sim`.
//!
//! A host posts SEND_MESSAGE descriptors (1 B to 200 kB) and RETRANSMIT ranges of them, a
//! receiver GRANTs the unfinished messages bit by bit (and sends GRANTs for nobody), a DMA
//! read server answers each payload read after 5-65 cycles from a host memory whose byte at
//! `a` is a hash of `a`, with gaps; the MAC and the completion ring push back. Every frame is
//! parsed by `proto::wire` (checksums verified) and must be exactly the frame
//! [`reference_frame`] builds for it; per message, first-time packets must be cut as
//! `proto::core::segment_len` cuts them, contiguous from 0, at the unscheduled priority below
//! `rtt_bytes` and at a granted priority above it, never past what was granted; each
//! RETRANSMIT range must go out whole, in order, flagged; every payload byte must be the
//! host's; one `TX_DONE` per descriptor that asked for it, after its last frame, in order.
//! The SRPT order itself is checked cycle by cycle in the scheduler's own bench.

use crate::bench::Rng;
use crate::data_framer::{DataHeader, PAYLOAD_LANE, reference_frame};
use crate::data_framer_model::{Done, FramerConfig};
use crate::tx_sched_model::{TxEntry, TxGrant, TxSchedConfig};
use homa_proto::core::segment_len;
use homa_proto::policy::unsched_priority;
use homa_proto::wire::{self, FrameRepr, IpRepr, LinkType};
use std::collections::{HashMap, VecDeque};

/// One cycle's inputs.
#[derive(Debug, Clone, Copy)]
pub struct EngineOffer {
    /// The scheduler's configuration.
    pub sched: TxSchedConfig,
    /// The framer's configuration.
    pub framer: FramerConfig,
    /// A descriptor.
    pub desc: Option<TxEntry>,
    /// A GRANT.
    pub grant: Option<TxGrant>,
    /// `m_rd_ready`.
    pub rd_ready: bool,
    /// A payload beat.
    pub pay: Option<[u8; 64]>,
    /// `m_axis_tready`.
    pub tready: bool,
    /// `m_done_ready`.
    pub done_ready: bool,
}

/// One cycle's outputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineAnswer {
    /// `s_desc_ready`.
    pub desc_ready: bool,
    /// A payload read request: (address, length).
    pub rd: Option<(u64, u32)>,
    /// `s_pay_ready`.
    pub pay_ready: bool,
    /// A frame beat: (data, keep, last).
    pub beat: Option<([u8; 64], u64, bool)>,
    /// A `TX_DONE`.
    pub done: Option<Done>,
    /// Packets whose read is out, not yet framed.
    pub queued: u32,
}

/// A transmit engine under test.
pub trait EnginePorts {
    /// Two cycles of reset.
    fn reset(&mut self);
    /// Sets the inputs and settles: the outputs of this cycle.
    fn drive(&mut self, offer: &EngineOffer) -> EngineAnswer;
    /// The rising edge.
    fn edge(&mut self);
}

/// What a run did.
#[derive(Debug, Clone, Copy, Default)]
pub struct EngineStats {
    /// Cycles run.
    pub cycles: u64,
    /// Messages whose every byte left.
    pub messages: u64,
    /// RETRANSMIT ranges sent whole.
    pub retransmits: u64,
    /// Frames checked.
    pub frames: u64,
    /// Payload bytes checked.
    pub payload: u64,
    /// `TX_DONE`s checked.
    pub dones: u64,
    /// Most payload reads out at once.
    pub max_queued: u32,
    /// Most messages held at once with first-time bytes to send (above 16, some were
    /// parked).
    pub max_held: usize,
}

/// The host memory: the byte at IOVA `a`.
pub fn mem(a: u64) -> u8 {
    (a.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as u8
}

struct Msg {
    e: TxEntry,
    unsch: u32,
    uprio: u8,
    next: u32,
    /// The end of the furthest payload read of it (a RETRANSMIT's too).
    decided: u32,
    granted: u32,
    prios: Vec<u8>,
    rtx: VecDeque<(u32, u32, TxEntry)>,
}

/// Drives `dut` with `n` messages of at most `max_len` bytes (and up to `n / 2` RETRANSMIT
/// ranges) from `seed` until every byte and `TX_DONE` is out.
pub fn run<D: EnginePorts>(
    dut: &mut D,
    seed: u64,
    n: u32,
    max_len: u32,
) -> Result<EngineStats, String> {
    let mut rng = Rng::new(seed);
    // Odd seeds: a stingy receiver, that grants only the four messages posted last and
    // nothing unscheduled, so that more messages wait for GRANTs than the scheduler has
    // slots and the park must take them.
    let stingy = seed % 2 == 1;
    let sched = TxSchedConfig {
        unsched_bytes: [1424, 10_000, 0, 5000][rng.below(4) as usize] * u32::from(!stingy),
        max_payload: [1424, 1424, 8948, 100][rng.below(4) as usize],
        cutoffs: [u32::MAX, 100_000, 20_000, 5000, 1000, 300, 100, 10],
    };
    let framer = FramerConfig {
        mac: rng.next_u64() >> 16,
        next_hop_mac: rng.next_u64() >> 16,
        ip: 0x0a00_0001,
        cutoff_version: rng.next_u64() as u16,
    };
    let (busy, lat) = (rng.below(3), 5 + rng.below(60));
    dut.reset();
    let mut st = EngineStats::default();
    let mut msgs: HashMap<(u32, u64), Msg> = HashMap::new();
    let mut open: Vec<(u32, u64)> = Vec::new();
    let mut pending: Option<TxEntry> = None;
    let (mut posted, mut index, mut iova, mut rtx_posted) = (0u32, 0u32, 0x1_0000u64, 0u32);
    let mut reads: VecDeque<(u64, Vec<[u8; 64]>)> = VecDeque::new();
    let mut frame: Vec<u8> = Vec::new();
    let mut dones: VecDeque<Done> = VecDeque::new();
    let limit = 400_000 + 2_000 * u64::from(n);
    loop {
        let now = st.cycles;
        if pending.is_none() && rng.chance(30) {
            if posted < n && (open.is_empty() || rng.chance(85)) {
                let length = match rng.below(4) {
                    0 => 1 + rng.below(300) as u32,
                    1 => 1 + rng.below(5000) as u32,
                    2 => 1 + rng.below(30_000) as u32,
                    _ => 1 + rng.below(200_000) as u32,
                }
                .min(sched.max_payload * 200)
                .min(max_len);
                let peer = [0x0a00_0002u32, 0x0a00_0003][rng.below(2) as usize];
                let e = TxEntry {
                    retransmit: false,
                    cancel: false,
                    no_completion: rng.chance(15),
                    sport: rng.next_u64() as u16,
                    dport: rng.next_u64() as u16,
                    id: 2 * u64::from(posted) + 1000,
                    peer,
                    length,
                    iova,
                    offset: 0,
                    bytes: length,
                    cookie: rng.next_u64(),
                    index,
                    ..TxEntry::default()
                };
                iova += u64::from(length) + rng.below(4096);
                posted += 1;
                let unsch = sched.unsched_bytes.min(length);
                msgs.insert(
                    (peer, e.id),
                    Msg {
                        e,
                        unsch,
                        uprio: unsched_priority(&sched.cutoffs, length),
                        next: 0,
                        decided: 0,
                        granted: unsch,
                        prios: Vec::new(),
                        rtx: VecDeque::new(),
                    },
                );
                open.push((peer, e.id));
                pending = Some(e);
                index += 1;
            } else if let Some(m) = open
                .get(rng.below(open.len().max(1) as u64) as usize)
                .filter(|_| rtx_posted < n / 2)
                .and_then(|k| msgs.get_mut(k))
                .filter(|m| m.rtx.is_empty())
            {
                // One range at a time per message: two would interleave by SRPT.
                let offset = rng.below(u64::from(m.e.length)) as u32;
                let bytes = 1 + rng.below(u64::from(m.e.length - offset).min(20_000)) as u32;
                let e = TxEntry {
                    retransmit: true,
                    cancel: false,
                    no_completion: rng.chance(15),
                    offset,
                    bytes,
                    cookie: rng.next_u64(),
                    index,
                    ..m.e
                };
                m.rtx.push_back((offset, offset + bytes, e));
                rtx_posted += 1;
                pending = Some(e);
                index += 1;
            }
        }
        let grant = if rng.chance(25) {
            if !open.is_empty() && rng.chance(90) {
                let from = if stingy {
                    open.len().saturating_sub(4)
                } else {
                    0
                };
                let key = open[from + rng.below((open.len() - from) as u64) as usize];
                let m = msgs.get_mut(&key).expect("open messages are known");
                let offset = m.granted + rng.below(3 * u64::from(sched.max_payload)) as u32;
                let priority = rng.below(8) as u8;
                m.granted = m.granted.max(offset.min(m.e.length));
                m.prios.push(priority);
                Some(TxGrant {
                    peer: key.0,
                    id: key.1 ^ 1,
                    offset,
                    priority,
                })
            } else {
                Some(TxGrant {
                    peer: 0x0a00_0009,
                    id: rng.next_u64(),
                    offset: rng.next_u64() as u32,
                    priority: 0,
                })
            }
        } else {
            None
        };
        let pay = reads
            .front()
            .filter(|(at, _)| *at <= now)
            .and_then(|(_, b)| b.first().copied())
            .filter(|_| rng.chance([100, 80, 50][busy as usize]));
        let offer = EngineOffer {
            sched,
            framer,
            desc: pending,
            grant,
            rd_ready: rng.chance([100, 70, 40][busy as usize]),
            pay,
            tready: rng.chance([100, 80, 40][busy as usize]),
            done_ready: rng.chance([100, 60, 20][busy as usize]),
        };
        let a = dut.drive(&offer);
        let ctx = format!("seed {seed:#x}, cycle {now}");
        st.max_queued = st.max_queued.max(a.queued);
        if a.desc_ready {
            pending = None;
        }
        // Messages the engine holds with bytes it has not decided yet (each has a slot, or
        // is parked; a RETRANSMIT read past the first-time bytes only makes this count less).
        if let (true, Some((addr, len))) = (offer.rd_ready, a.rd) {
            for m in msgs.values_mut() {
                if (m.e.iova..m.e.iova + u64::from(m.e.length)).contains(&addr) {
                    m.decided = m.decided.max((addr - m.e.iova) as u32 + len);
                }
            }
        }
        let held = open
            .iter()
            .filter(|k| msgs.get(k).is_some_and(|m| m.decided < m.e.length))
            .filter(|k| !pending.is_some_and(|e| !e.retransmit && (e.peer, e.id) == **k))
            .count();
        st.max_held = st.max_held.max(held);
        if let (true, Some((addr, len))) = (offer.rd_ready, a.rd) {
            let n = (PAYLOAD_LANE + len as usize).div_ceil(64);
            let beats = (0..n)
                .map(|b| {
                    std::array::from_fn(|l| match (64 * b + l).checked_sub(PAYLOAD_LANE) {
                        Some(i) if i < len as usize => mem(addr + i as u64),
                        _ => rng.byte(),
                    })
                })
                .collect();
            reads.push_back((now + lat, beats));
        }
        if a.pay_ready && pay.is_some() {
            let (_, beats) = reads.front_mut().expect("a beat was offered");
            beats.remove(0);
            if beats.is_empty() {
                reads.pop_front();
            }
        }
        if let Some((data, keep, last)) = a.beat.filter(|_| offer.tready) {
            let k = keep.trailing_ones() as usize;
            frame.extend_from_slice(&data[..k]);
            if last {
                check_frame(&frame, &sched, &framer, &mut msgs, &mut dones, &mut st)
                    .map_err(|e| format!("{ctx}: {e}"))?;
                open.retain(|k| {
                    msgs.get(k)
                        .is_some_and(|m| m.next < m.e.length || !m.rtx.is_empty())
                });
                frame.clear();
            }
        }
        if let Some(d) = a.done.filter(|_| offer.done_ready) {
            match dones.pop_front() {
                Some(w) if w == d => st.dones += 1,
                w => return Err(format!("{ctx}: TX_DONE {d:?}, expected {w:?}")),
            }
        }
        dut.edge();
        st.cycles += 1;
        if posted == n && open.is_empty() && dones.is_empty() && pending.is_none() {
            break;
        }
        if st.cycles > limit {
            return Err(format!(
                "{ctx}: not done after {limit} cycles ({} open)",
                open.len()
            ));
        }
    }
    if !reads.is_empty() || !frame.is_empty() {
        return Err(format!("seed {seed:#x}: reads or a frame left over"));
    }
    Ok(st)
}

/// Checks one whole frame against the host's messages and records what it completes.
fn check_frame(
    frame: &[u8],
    sched: &TxSchedConfig,
    framer: &FramerConfig,
    msgs: &mut HashMap<(u32, u64), Msg>,
    dones: &mut VecDeque<Done>,
    st: &mut EngineStats,
) -> Result<(), String> {
    let f = FrameRepr::parse(frame, LinkType::Ethernet, &Default::default())
        .map_err(|e| format!("frame of {} bytes does not parse: {e:?}", frame.len()))?;
    let (IpRepr::V4(ip), wire::Body::Data(d)) = (f.ip, &f.homa.body) else {
        return Err(format!("not an IPv4 DATA: {f:?}"));
    };
    let peer = u32::from(ip.dst_addr);
    let m = msgs
        .get_mut(&(peer, f.homa.sender_id))
        .ok_or_else(|| format!("DATA for no message: {f:?}"))?;
    let (offset, len) = (d.offset, d.payload.len() as u32);
    let (priority, incoming, done) = if d.retransmit {
        let (start, end, e) = m
            .rtx
            .front_mut()
            .ok_or("a retransmission nobody asked for")?;
        if offset != *start || offset + len > *end || len != (*end - *start).min(sched.max_payload)
        {
            return Err(format!(
                "retransmit [{offset}, +{len}) against range [{start}, {end})"
            ));
        }
        *start += len;
        let (end, e) = (*end, *e);
        let done = (*start == end).then_some(e);
        if done.is_some() {
            m.rtx.pop_front();
            st.retransmits += 1;
        }
        (m.uprio, end, done)
    } else {
        let want = segment_len(m.next, m.unsch, m.e.length, sched.max_payload);
        if offset != m.next || len != want {
            return Err(format!(
                "packet [{offset}, +{len}) of {:?}; expected [{}, +{want})",
                m.e, m.next
            ));
        }
        if offset >= m.unsch && offset >= m.granted {
            return Err(format!(
                "offset {offset} sent past the grants ({})",
                m.granted
            ));
        }
        let prio = if offset < m.unsch {
            m.uprio
        } else {
            let p = ip.tos >> 5;
            if !m.prios.contains(&p) {
                return Err(format!(
                    "scheduled priority {p} never granted ({:?})",
                    m.prios
                ));
            }
            p
        };
        m.next += len;
        let done = (m.next == m.e.length).then_some(m.e);
        if done.is_some() {
            st.messages += 1;
        }
        (prio, m.unsch, done)
    };
    let payload: Vec<u8> = (0..u64::from(len))
        .map(|i| mem(m.e.iova + u64::from(offset) + i))
        .collect();
    let want = reference_frame(
        &DataHeader {
            next_hop_mac: framer.next_hop_mac,
            local_mac: framer.mac,
            local_ip: framer.ip,
            peer,
            priority,
            sport: m.e.sport,
            dport: m.e.dport,
            id: m.e.id,
            message_length: m.e.length,
            incoming,
            cutoff_version: framer.cutoff_version,
            retransmit: d.retransmit,
            offset,
        },
        &payload,
    );
    if frame != want.as_slice() {
        let at = frame.iter().zip(&want).position(|(a, b)| a != b);
        return Err(format!(
            "frame differs from the reference at byte {at:?}: {f:?}"
        ));
    }
    if let Some(e) = done.filter(|e| !e.no_completion) {
        dones.push_back((e.id, e.length, e.cookie, e.index));
    }
    st.frames += 1;
    st.payload += u64::from(len);
    Ok(())
}

/// Runs of `n` messages of at most `max_len` bytes from seeds `seed..seed + runs` on fresh
/// engines from `make`.
pub fn run_seeds<D: EnginePorts>(
    what: &str,
    mut make: impl FnMut() -> D,
    seed: u64,
    runs: u64,
    n: u32,
    max_len: u32,
) -> Result<(), String> {
    let mut most_held = 0;
    for i in 0..runs {
        let s = seed.wrapping_add(i);
        eprintln!("{what}: seed {s:#x} (HOMA_HW_SEED to replay), {n} messages");
        let st = run(&mut make(), s, n, max_len)?;
        eprintln!("  {st:?}");
        most_held = most_held.max(st.max_held);
    }
    // With enough messages, a stingy receiver's run must have had more than the slots.
    if n >= 30 && runs >= 2 && most_held <= crate::tx_engine::ENGINE_SLOTS {
        return Err(format!(
            "seeds {seed:#x}+{runs}: never more than {most_held} messages held: the park \
             was not exercised"
        ));
    }
    Ok(())
}
