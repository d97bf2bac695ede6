//! Test bench for [`HomaParser`]: drives frames through the rust-hdl model with the direct
//! `simulate()` loop (no testbench threads), with seeded random idle cycles on the input and
//! random back-pressure on both outputs, and records everything the block says; plus the
//! oracle that turns `homa_proto::wire::FrameRepr::parse` into the expected observations.

use super::HomaParser;
use crate::hdl::*;
use homa_proto::wire::field::{ethernet as eth, homa, ipv4, ipv6};
use homa_proto::wire::{
    Body, ChecksumCapabilities, Error, EtherType, FrameRepr, IpRepr, Layer, LinkType, Reason,
};

/// A small, seeded PRNG (xorshift64*), so that every run is reproducible from its seed.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed` (any value).
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    /// A random byte.
    pub fn byte(&mut self) -> u8 {
        self.next_u64() as u8
    }
}

/// How a frame ended, as the counters and `error_*` pulses tell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Accepted: `frames_ok`.
    Ok,
    /// `dropped_runt`.
    Runt,
    /// `dropped_bad_checksum`.
    BadChecksum,
    /// `dropped_not_homa`.
    NotHoma,
    /// `dropped_bad_type`.
    BadType,
    /// `dropped_bad_length`.
    BadLength,
}

/// One header transaction, normalised: fields that do not belong to the packet type are 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Hdr {
    pub ip_version: u8,
    pub src_ip: u128,
    pub dst_ip: u128,
    pub priority: u8,
    pub sport: u16,
    pub dport: u16,
    pub ptype: u8,
    pub sender_id: u64,
    pub message_length: u32,
    pub incoming: u32,
    pub offset: u32,
    pub cutoff_version: u16,
    pub retransmit: bool,
    pub ack_client_id: u64,
    pub ack_server_port: u16,
    pub payload_len: u16,
    pub grant_offset: u32,
    pub grant_priority: u8,
    pub resend_offset: u32,
    pub resend_length: u32,
    pub resend_priority: u8,
}

const DATA: u8 = 0x10;
const GRANT: u8 = 0x11;
const RESEND: u8 = 0x12;

impl Hdr {
    /// Zeroes the fields that mean nothing for this packet type.
    pub fn normalised(mut self) -> Self {
        if self.ptype != DATA {
            self.message_length = 0;
            self.incoming = 0;
            self.offset = 0;
            self.cutoff_version = 0;
            self.retransmit = false;
            self.ack_client_id = 0;
            self.ack_server_port = 0;
            self.payload_len = 0;
        } else if self.ack_client_id == 0 {
            // No piggybacked ACK: the software parser drops the port too.
            self.ack_server_port = 0;
        }
        if self.ptype != GRANT {
            self.grant_offset = 0;
            self.grant_priority = 0;
        }
        if self.ptype != RESEND {
            self.resend_offset = 0;
            self.resend_length = 0;
            self.resend_priority = 0;
        }
        self
    }

    /// The header the parser must output for `repr`.
    pub fn from_repr(repr: &FrameRepr<'_>) -> Self {
        let (ip_version, src_ip, dst_ip) = match repr.ip {
            IpRepr::V4(r) => (
                4,
                u128::from(u32::from(r.src_addr)),
                u128::from(u32::from(r.dst_addr)),
            ),
            IpRepr::V6(r) => (6, u128::from(r.src_addr), u128::from(r.dst_addr)),
        };
        let mut h = Hdr {
            ip_version,
            src_ip,
            dst_ip,
            priority: repr.priority(),
            sport: repr.homa.sport,
            dport: repr.homa.dport,
            ptype: u8::from(repr.homa.packet_type()),
            sender_id: repr.homa.sender_id,
            ..Hdr::default()
        };
        match repr.homa.body {
            Body::Data(d) => {
                h.message_length = d.message_length;
                h.incoming = d.incoming;
                h.offset = d.offset;
                h.cutoff_version = d.cutoff_version;
                h.retransmit = d.retransmit;
                h.ack_client_id = d.ack.map_or(0, |a| a.client_id);
                h.ack_server_port = d.ack.map_or(0, |a| a.server_port);
                h.payload_len = d.payload.len() as u16;
            }
            Body::Grant(g) => {
                h.grant_offset = g.offset;
                h.grant_priority = g.priority;
            }
            Body::Resend(r) => {
                h.resend_offset = r.offset;
                h.resend_length = r.length;
                h.resend_priority = r.priority;
            }
            _ => {}
        }
        h.normalised()
    }
}

/// What the oracle expects of one frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expect {
    pub verdict: Verdict,
    /// The header transaction, for accepted frames.
    pub hdr: Option<Hdr>,
    /// A payload packet on `m_axis`: its bytes and its `tuser` (truncated frame).
    pub payload: Option<(Vec<u8>, bool)>,
    /// The software parser's error, for messages.
    pub error: Option<Error>,
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

/// Where the IP header starts and which EtherType it has, as the parsers see it (`None` when
/// the Ethernet header is incomplete).
fn ip_start(frame: &[u8]) -> Option<(usize, u16)> {
    if frame.len() < eth::HEADER_LEN {
        return None;
    }
    let outer = be16(frame, eth::ETHERTYPE.start);
    if outer == EtherType::VLAN.0 {
        if frame.len() < eth::TAGGED_HEADER_LEN {
            return None;
        }
        return Some((
            eth::TAGGED_HEADER_LEN,
            be16(frame, eth::VLAN_ETHERTYPE.start),
        ));
    }
    Some((eth::HEADER_LEN, outer))
}

/// The software parser's answer for the hardware's one documented difference: IPv4 options
/// (IHL > 5) are rejected where IHL < 5 is, so the oracle parses a copy with IHL = 4.
fn parse_as_hardware(frame: &[u8]) -> Result<FrameRepr<'_>, Error> {
    FrameRepr::parse(frame, LinkType::Ethernet, &ChecksumCapabilities::default())
}

fn hardware_view(frame: &[u8]) -> Vec<u8> {
    let mut f = frame.to_vec();
    if let Some((e, et)) = ip_start(frame)
        && et == EtherType::IPV4.0
        && f.len() > e + ipv4::VER_IHL
        && f[e] >> 4 == 4
        && f[e] & 0x0f > 5
    {
        f[e] = 0x44;
    }
    f
}

/// Maps a software-parser error to the counter the hardware must move.
pub fn verdict_of(frame: &[u8], e: Error) -> Verdict {
    let ip_len = ip_start(frame).map_or(0, |(s, _)| frame.len().saturating_sub(s));
    match (e.layer, e.reason) {
        (_, Reason::BadChecksum) => Verdict::BadChecksum,
        (_, Reason::NotHoma | Reason::BadVersion) | (Layer::Ethernet, Reason::Unsupported) => {
            Verdict::NotHoma
        }
        (_, Reason::BadType) => Verdict::BadType,
        (_, Reason::BadLength | Reason::BadValue | Reason::Unsupported) => Verdict::BadLength,
        (Layer::Ethernet, Reason::Truncated) => Verdict::Runt,
        (Layer::Ipv4, Reason::Truncated) if ip_len < ipv4::HEADER_LEN => Verdict::Runt,
        (Layer::Ipv6, Reason::Truncated) if ip_len < ipv6::HEADER_LEN => Verdict::Runt,
        (_, Reason::Truncated) => Verdict::BadLength,
    }
}

/// The frame position of the DATA payload, for a frame whose IP header starts at `e`.
fn payload_start(frame: &[u8], e: usize) -> usize {
    let v6 = frame[e] >> 4 == 6;
    e + if v6 {
        ipv6::HEADER_LEN
    } else {
        ipv4::HEADER_LEN
    } + homa::DATA_HEADER_LEN
}

/// The oracle: what the parser must do with `frame`.
pub fn expect(frame: &[u8]) -> Expect {
    let view = hardware_view(frame);
    match parse_as_hardware(&view) {
        Ok(repr) => {
            let payload = match repr.homa.body {
                Body::Data(d) if !d.payload.is_empty() => Some((d.payload.to_vec(), false)),
                _ => None,
            };
            Expect {
                verdict: Verdict::Ok,
                hdr: Some(Hdr::from_repr(&repr)),
                payload,
                error: None,
            }
        }
        Err(e) => {
            let verdict = verdict_of(&view, e);
            let mut payload = None;
            // A frame cut short of its IP length: if everything else holds, its payload is
            // already under way when the frame ends, and ends flagged on `tuser`.
            if verdict == Verdict::BadLength
                && e.reason == Reason::Truncated
                && matches!(e.layer, Layer::Ipv4 | Layer::Ipv6)
                && let Some((s, _)) = ip_start(&view)
            {
                let v6 = view[s] >> 4 == 6;
                let ip_end = if v6 {
                    s + ipv6::HEADER_LEN + usize::from(be16(&view, s + ipv6::PAYLOAD_LEN.start))
                } else {
                    s + usize::from(be16(&view, s + ipv4::LENGTH.start))
                };
                let mut padded = view.clone();
                padded.resize(ip_end.max(view.len()), 0);
                if let Ok(repr) = parse_as_hardware(&padded)
                    && matches!(repr.homa.body, Body::Data(_))
                {
                    let ps = payload_start(&view, s);
                    if view.len() > ps {
                        payload = Some((view[ps..].to_vec(), true));
                    }
                }
            }
            Expect {
                verdict,
                hdr: None,
                payload,
                error: Some(e),
            }
        }
    }
}

/// Everything the parser said during a run.
#[derive(Debug, Default, Clone)]
pub struct Observed {
    pub verdicts: Vec<Verdict>,
    pub headers: Vec<Hdr>,
    pub payloads: Vec<(Vec<u8>, bool)>,
    /// frames_ok, dropped_runt, _bad_checksum, _not_homa, _bad_type, _bad_length.
    pub counters: [u32; 6],
    /// Cycles simulated (reset included).
    pub cycles: u64,
    /// For each frame: the cycle its last beat was accepted.
    pub last_beat_cycle: Vec<u64>,
    /// For each header: the cycle it first showed valid.
    pub hdr_valid_cycle: Vec<u64>,
    /// Cycles in which the input was offered a beat and refused it.
    pub input_stalls: u64,
}

/// Stimulus shape.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// Percent of cycles the input idles between beats.
    pub idle: u64,
    /// Percent of cycles `m_hdr_ready` is low.
    pub hdr_stall: u64,
    /// Percent of cycles `m_axis_tready` is low.
    pub pay_stall: u64,
}

impl Shape {
    /// No idles, no back-pressure.
    pub const FULL_SPEED: Shape = Shape {
        idle: 0,
        hdr_stall: 0,
        pay_stall: 0,
    };
}

/// A parser under test with the direct simulation loop.
pub struct Bench<const W: usize, const K: usize> {
    pub uut: HomaParser<W, K>,
    cycle: u64,
}

fn word<const W: usize>(bytes: &[u8]) -> Bits<W> {
    let mut v: Bits<W> = Bits::default();
    for chunk in (0..W / 64).rev() {
        let mut b = [0u8; 8];
        for (i, x) in b.iter_mut().enumerate() {
            *x = bytes.get(chunk * 8 + i).copied().unwrap_or(0);
        }
        let lane: Bits<W> = u64::from_le_bytes(b).into();
        v = if W > 64 { (v << 64) | lane } else { lane };
    }
    v
}

fn keep<const K: usize>(n: usize) -> Bits<K> {
    let mut v: Bits<K> = Bits::default();
    for i in 0..n {
        v = v.replace_bit(i, true);
    }
    v
}

impl<const W: usize, const K: usize> Bench<W, K> {
    /// A reset parser.
    pub fn new() -> Self {
        let mut uut = HomaParser::<W, K>::new();
        uut.clock.connect();
        uut.reset.connect();
        uut.s_axis_tdata.connect();
        uut.s_axis_tkeep.connect();
        uut.s_axis_tvalid.connect();
        uut.s_axis_tlast.connect();
        uut.m_hdr_ready.connect();
        uut.m_axis_tready.connect();
        uut.connect_all();
        let mut b = Bench { uut, cycle: 0 };
        b.uut.reset.next = true;
        b.step();
        b.step();
        b.uut.reset.next = false;
        b
    }

    fn settle(&mut self) {
        assert!(simulate(&mut self.uut, 1000), "the model did not settle");
    }

    /// Low half of a cycle: inputs already set; outputs valid after this.
    fn low(&mut self) {
        self.uut.clock.next = Clock { clk: false };
        self.settle();
    }

    /// Rising edge.
    fn high(&mut self) {
        self.uut.clock.next = Clock { clk: true };
        self.settle();
        self.cycle += 1;
    }

    fn step(&mut self) {
        self.low();
        self.high();
    }

    /// Runs `frames` through the parser and returns what it did. Panics (a test failure)
    /// if the parser stops making progress for 10 000 cycles.
    pub fn run(&mut self, frames: &[Vec<u8>], shape: Shape, rng: &mut Rng) -> Observed {
        // Beats: (data, keep, last, frame index).
        let mut beats = Vec::new();
        for (f, frame) in frames.iter().enumerate() {
            if frame.is_empty() {
                beats.push((word::<W>(&[]), keep::<K>(0), true, f));
            }
            // Sometimes end a frame of whole beats with an empty (tkeep = 0) last beat.
            let empty_last = !frame.is_empty() && frame.len() % K == 0 && rng.chance(30);
            for (i, chunk) in frame.chunks(K).enumerate() {
                let last = (i + 1) * K >= frame.len() && !empty_last;
                beats.push((word::<W>(chunk), keep::<K>(chunk.len()), last, f));
            }
            if empty_last {
                beats.push((word::<W>(&[]), keep::<K>(0), true, f));
            }
        }
        let mut obs = Observed::default();
        let mut next = 0;
        let mut offered = false;
        let mut payload = Vec::new();
        let mut prev = [0u32; 6];
        let mut hdr_was_valid = false;
        let mut quiet = 0;
        let mut last_progress = self.cycle;
        loop {
            if !offered && next < beats.len() && !rng.chance(shape.idle) {
                offered = true;
            }
            if offered {
                let (d, k, l, _) = &beats[next];
                self.uut.s_axis_tdata.next = *d;
                self.uut.s_axis_tkeep.next = *k;
                self.uut.s_axis_tlast.next = *l;
            }
            self.uut.s_axis_tvalid.next = offered;
            self.uut.m_hdr_ready.next = !rng.chance(shape.hdr_stall);
            self.uut.m_axis_tready.next = !rng.chance(shape.pay_stall);
            self.low();
            let u = &self.uut;
            let mut progress = false;
            if offered {
                if u.s_axis_tready.val() {
                    if beats[next].2 {
                        obs.last_beat_cycle.push(self.cycle);
                    }
                    next += 1;
                    offered = false;
                    progress = true;
                } else {
                    obs.input_stalls += 1;
                }
            }
            if u.m_hdr_valid.val() && !hdr_was_valid {
                obs.hdr_valid_cycle.push(self.cycle);
            }
            hdr_was_valid = u.m_hdr_valid.val() && !u.m_hdr_ready.val();
            if u.m_hdr_valid.val() && u.m_hdr_ready.val() {
                obs.headers.push(read_hdr(u));
                progress = true;
            }
            if u.m_axis_tvalid.val() && u.m_axis_tready.val() {
                let data = u.m_axis_tdata.val();
                let kp = u.m_axis_tkeep.val();
                for lane in 0..K {
                    if kp.get_bit(lane) {
                        payload.push(data.get_bits::<8>(lane * 8).to_u8());
                    }
                }
                if u.m_axis_tlast.val() {
                    obs.payloads
                        .push((std::mem::take(&mut payload), u.m_axis_tuser.val()));
                }
                progress = true;
            }
            let now = [
                u.frames_ok.val().to_u32(),
                u.dropped_runt.val().to_u32(),
                u.dropped_bad_checksum.val().to_u32(),
                u.dropped_not_homa.val().to_u32(),
                u.dropped_bad_type.val().to_u32(),
                u.dropped_bad_length.val().to_u32(),
            ];
            let pulses = [
                u.error_runt.val(),
                u.error_bad_checksum.val(),
                u.error_not_homa.val(),
                u.error_bad_type.val(),
                u.error_bad_length.val(),
            ];
            const ORDER: [Verdict; 6] = [
                Verdict::Ok,
                Verdict::Runt,
                Verdict::BadChecksum,
                Verdict::NotHoma,
                Verdict::BadType,
                Verdict::BadLength,
            ];
            for i in 0..6 {
                let moved = now[i].wrapping_sub(prev[i]);
                assert!(moved <= 1, "counter {i} moved by {moved} in one cycle");
                if i > 0 {
                    assert_eq!(pulses[i - 1], moved == 1, "error pulse {i} vs counter");
                }
                if moved == 1 {
                    obs.verdicts.push(ORDER[i]);
                    progress = true;
                }
            }
            prev = now;
            let idle = next == beats.len() && !u.busy.val();
            self.high();
            if progress {
                last_progress = self.cycle;
                quiet = 0;
            } else if idle {
                // Counters and pulses lag the last verdict by a cycle: drain a little more.
                quiet += 1;
                if quiet > 4 {
                    break;
                }
            }
            assert!(
                self.cycle - last_progress < 10_000,
                "no progress for 10000 cycles: at beat {next} of {}",
                beats.len()
            );
        }
        obs.counters = prev;
        obs.cycles = self.cycle;
        assert!(payload.is_empty(), "payload without tlast at the end");
        obs
    }
}

fn read_hdr<const W: usize, const K: usize>(u: &HomaParser<W, K>) -> Hdr {
    Hdr {
        ip_version: u.m_hdr_ip_version.val().to_u8(),
        src_ip: u.m_hdr_src_ip.val().to_u128(),
        dst_ip: u.m_hdr_dst_ip.val().to_u128(),
        priority: u.m_hdr_priority.val().to_u8(),
        sport: u.m_hdr_sport.val().to_u16(),
        dport: u.m_hdr_dport.val().to_u16(),
        ptype: u.m_hdr_type.val().to_u8(),
        sender_id: u.m_hdr_sender_id.val().to_u64(),
        message_length: u.m_hdr_data_message_length.val().to_u32(),
        incoming: u.m_hdr_data_incoming.val().to_u32(),
        offset: u.m_hdr_data_offset.val().to_u32(),
        cutoff_version: u.m_hdr_data_cutoff_version.val().to_u16(),
        retransmit: u.m_hdr_data_retransmit.val(),
        ack_client_id: u.m_hdr_data_ack_client_id.val().to_u64(),
        ack_server_port: u.m_hdr_data_ack_server_port.val().to_u16(),
        payload_len: u.m_hdr_data_payload_len.val().to_u16(),
        grant_offset: u.m_hdr_grant_offset.val().to_u32(),
        grant_priority: u.m_hdr_grant_priority.val().to_u8(),
        resend_offset: u.m_hdr_resend_offset.val().to_u32(),
        resend_length: u.m_hdr_resend_length.val().to_u32(),
        resend_priority: u.m_hdr_resend_priority.val().to_u8(),
    }
    .normalised()
}

/// Checks a run against the oracle, frame by frame; the message names the first difference.
pub fn check(frames: &[Vec<u8>], obs: &Observed) -> Result<(), String> {
    let exp: Vec<Expect> = frames.iter().map(|f| expect(f)).collect();
    if obs.verdicts.len() != frames.len() {
        return Err(format!(
            "{} verdicts for {} frames",
            obs.verdicts.len(),
            frames.len()
        ));
    }
    for (i, (e, got)) in exp.iter().zip(&obs.verdicts).enumerate() {
        if e.verdict != *got {
            return Err(format!(
                "frame {i}: verdict {got:?}, expected {:?} ({:?}); bytes {:02x?}",
                e.verdict,
                e.error,
                &frames[i][..frames[i].len().min(120)]
            ));
        }
    }
    let want_hdrs: Vec<(usize, Hdr)> = exp
        .iter()
        .enumerate()
        .filter_map(|(i, e)| e.hdr.map(|h| (i, h)))
        .collect();
    if want_hdrs.len() != obs.headers.len() {
        return Err(format!(
            "{} headers, expected {}",
            obs.headers.len(),
            want_hdrs.len()
        ));
    }
    for ((i, want), got) in want_hdrs.iter().zip(&obs.headers) {
        if want != got {
            return Err(format!(
                "frame {i}: header\n  got  {got:?}\n  want {want:?}"
            ));
        }
    }
    let want_pay: Vec<(usize, &(Vec<u8>, bool))> = exp
        .iter()
        .enumerate()
        .filter_map(|(i, e)| e.payload.as_ref().map(|p| (i, p)))
        .collect();
    for (k, got) in obs.payloads.iter().enumerate() {
        let Some((i, want)) = want_pay.get(k) else {
            return Err(format!(
                "payload {k} ({} bytes, tuser {}) unexpected",
                got.0.len(),
                got.1
            ));
        };
        if *want != got {
            return Err(format!(
                "payload {k}, frame {i}: {} bytes (tuser {}), expected {} bytes (tuser {}); \
                 verdict {:?} ({:?}); frame {} bytes {:02x?}",
                got.0.len(),
                got.1,
                want.0.len(),
                want.1,
                exp[*i].verdict,
                exp[*i].error,
                frames[*i].len(),
                &frames[*i][..frames[*i].len().min(120)]
            ));
        }
    }
    if want_pay.len() != obs.payloads.len() {
        return Err(format!(
            "{} payloads, expected {}",
            obs.payloads.len(),
            want_pay.len()
        ));
    }
    let mut counts = [0u32; 6];
    for e in &exp {
        counts[e.verdict as usize] += 1;
    }
    if counts != obs.counters {
        return Err(format!("counters {:?}, expected {counts:?}", obs.counters));
    }
    Ok(())
}
