//! The RX parser's reference model, shared by every level that tests the block: the rust-hdl
//! simulation in this crate and the Verilator co-simulation in `homa-sim` feed the same frames
//! ([`crate::bench`]) and check against the same oracle, which turns
//! `homa_proto::wire::FrameRepr::parse` into the observations the hardware must make.
//! Nothing here depends on rust-hdl.
#![allow(missing_docs)] // Field-for-port records: each field is the port of the same name.

use homa_proto::hostif::{CONTROL_BODY_LEN, Completion, Event, control_window};
use homa_proto::wire::PacketType;
use homa_proto::wire::field::{ethernet as eth, homa, ipv4, ipv6};
use std::net::IpAddr;

use homa_proto::wire::{
    Body, ChecksumCapabilities, Error, EtherType, FrameRepr, IpRepr, Layer, LinkType, Reason,
};

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
    /// Control packets: the `CONTROL` completion's body window (`hostif::control_window`).
    pub body: [u8; CONTROL_BODY_LEN],
}

const DATA: u8 = 0x10;
const GRANT: u8 = 0x11;
const RESEND: u8 = 0x12;

impl Hdr {
    /// Zeroes the fields that mean nothing for this packet type.
    pub fn normalised(mut self) -> Self {
        if self.ptype == DATA {
            self.body = [0; CONTROL_BODY_LEN];
        }
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
        let src = match repr.ip {
            IpRepr::V4(r) => IpAddr::V4(r.src_addr),
            IpRepr::V6(r) => IpAddr::V6(r.src_addr),
        };
        if let Some(Completion {
            event: Event::Control { body, .. },
            ..
        }) = Completion::control(src, &repr.homa)
        {
            h.body = body;
        }
        h.normalised()
    }

    /// The same, with the body window taken from the frame's own bytes (as the parser takes
    /// them: bytes a header's fields do not use, such as an ACK's unused entries, included).
    pub fn from_frame(repr: &FrameRepr<'_>, frame: &[u8]) -> Self {
        let mut h = Self::from_repr(repr);
        let t = repr.homa.packet_type();
        if t != PacketType::Data
            && let Some((s, _)) = ip_start(frame)
        {
            let l4 = s + if h.ip_version == 6 {
                ipv6::HEADER_LEN
            } else {
                ipv4::HEADER_LEN
            };
            let (start, len) = control_window(t);
            h.body = [0; CONTROL_BODY_LEN];
            h.body[..len].copy_from_slice(&frame[l4 + start..l4 + start + len]);
        }
        h
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

/// The software parser, on a frame as the hardware views it ([`hardware_view`]).
fn parse_as_hardware(frame: &[u8]) -> Result<FrameRepr<'_>, Error> {
    FrameRepr::parse(frame, LinkType::Ethernet, &ChecksumCapabilities::default())
}

/// The hardware's one documented difference: IPv4 options (IHL > 5) are rejected where IHL < 5
/// is, so the oracle parses a copy with IHL = 4.
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
                hdr: Some(Hdr::from_frame(&repr, &view)),
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

impl Observed {
    /// Records the verdicts that one cycle of counters tells: each counter (frames_ok,
    /// dropped_runt, _bad_checksum, _not_homa, _bad_type, _bad_length) moves by at most one
    /// per cycle, each `error_*` pulse (runt .. bad_length) fires exactly when its counter
    /// moves. Panics (a test failure) otherwise; returns whether any verdict was recorded.
    pub fn record_counters(&mut self, prev: &[u32; 6], now: &[u32; 6], pulses: &[bool; 5]) -> bool {
        const ORDER: [Verdict; 6] = [
            Verdict::Ok,
            Verdict::Runt,
            Verdict::BadChecksum,
            Verdict::NotHoma,
            Verdict::BadType,
            Verdict::BadLength,
        ];
        let mut any = false;
        for i in 0..6 {
            let moved = now[i].wrapping_sub(prev[i]);
            assert!(moved <= 1, "counter {i} moved by {moved} in one cycle");
            if i > 0 {
                assert_eq!(pulses[i - 1], moved == 1, "error pulse {i} vs counter");
            }
            if moved == 1 {
                self.verdicts.push(ORDER[i]);
                any = true;
            }
        }
        any
    }
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
