//! The RX parser's reference model and stimulus, shared by every level that tests the block:
//! the rust-hdl simulation in this crate and the Verilator co-simulation in `homa-sim` feed
//! the same frames and check against the same oracle, which turns
//! `homa_proto::wire::FrameRepr::parse` into the observations the hardware must make.
//! Nothing here depends on rust-hdl.
#![allow(missing_docs)] // Field-for-port records: each field is the port of the same name.

use homa_proto::hostif::{CONTROL_BODY_LEN, Completion, Event, control_window};
use homa_proto::wire::field::{ethernet as eth, homa, ipv4, ipv6};
use homa_proto::wire::{
    AckEntry, Acks, Cutoffs, Data, EthernetAddress, EthernetRepr, Grant, Ipv4Repr, Ipv6Repr,
    MAX_MESSAGE_LENGTH, PROTOCOL_HOMA, PROTOCOL_TCP, PacketType, Repr, Resend, VlanTag,
};
use std::net::IpAddr;

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

// --- stimulus ---

pub fn addr4(rng: &mut Rng) -> core::net::Ipv4Addr {
    core::net::Ipv4Addr::from(rng.next_u64() as u32)
}

pub fn addr6(rng: &mut Rng) -> core::net::Ipv6Addr {
    core::net::Ipv6Addr::from((u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64()))
}

/// A valid frame of type `t` with random fields (`payload` for DATA).
pub fn frame_of(rng: &mut Rng, t: PacketType, v6: bool, vlan: bool, payload: &[u8]) -> Vec<u8> {
    let body = match t {
        PacketType::Data => {
            let len = payload.len() as u32;
            let offset = rng.below(u64::from(MAX_MESSAGE_LENGTH - len) + 1) as u32;
            let message_length =
                offset + len + rng.below(u64::from(MAX_MESSAGE_LENGTH - offset - len) + 1) as u32;
            Body::Data(Data {
                message_length,
                incoming: rng.next_u64() as u32,
                ack: rng.chance(50).then(|| AckEntry {
                    client_id: rng.next_u64() | 1,
                    server_port: rng.next_u64() as u16,
                }),
                cutoff_version: rng.next_u64() as u16,
                retransmit: rng.chance(20),
                offset,
                payload,
            })
        }
        PacketType::Grant => Body::Grant(Grant {
            offset: rng.next_u64() as u32,
            priority: rng.below(8) as u8,
        }),
        PacketType::Resend => Body::Resend(Resend {
            offset: rng.next_u64() as u32,
            length: if rng.chance(20) {
                Resend::ALL
            } else {
                rng.next_u64() as u32
            },
            priority: rng.below(8) as u8,
        }),
        PacketType::RpcUnknown => Body::RpcUnknown,
        PacketType::Busy => Body::Busy,
        PacketType::Cutoffs => Body::Cutoffs(Cutoffs {
            unsched_cutoffs: core::array::from_fn(|_| rng.next_u64() as u32),
            cutoff_version: rng.next_u64() as u16,
        }),
        PacketType::Freeze => Body::Freeze,
        PacketType::NeedAck => Body::NeedAck,
        PacketType::Ack | PacketType::Unknown(_) => {
            let n = rng.below(6) as usize;
            let entries: Vec<AckEntry> = (0..n)
                .map(|_| AckEntry {
                    client_id: rng.next_u64(),
                    server_port: rng.next_u64() as u16,
                })
                .collect();
            Body::Ack(Acks::new(&entries).unwrap_or_default())
        }
    };
    let ip = if v6 {
        IpRepr::V6(Ipv6Repr {
            src_addr: addr6(rng),
            dst_addr: addr6(rng),
            traffic_class: rng.byte(),
            flow_label: rng.next_u64() as u32 & 0xf_ffff,
            hop_limit: rng.byte(),
            next_header: PROTOCOL_HOMA,
            payload_len: 0,
        })
    } else {
        IpRepr::V4(Ipv4Repr {
            src_addr: addr4(rng),
            dst_addr: addr4(rng),
            tos: rng.byte(),
            ident: rng.next_u64() as u16,
            dont_frag: rng.chance(50),
            ttl: rng.byte(),
            protocol: PROTOCOL_HOMA,
            payload_len: 0,
        })
    };
    let repr = FrameRepr {
        ethernet: Some(EthernetRepr {
            src_addr: EthernetAddress([2, 0, 0, 0, 0, rng.byte()]),
            dst_addr: EthernetAddress([2, 0, 0, 0, 0, rng.byte()]),
            vlan: vlan.then(|| VlanTag::from_tci(rng.next_u64() as u16)),
            ethertype: EtherType::IPV4,
        }),
        ip,
        homa: Repr {
            sport: rng.next_u64() as u16,
            dport: rng.next_u64() as u16,
            sender_id: rng.next_u64(),
            body,
        },
    };
    repr.to_bytes(&ChecksumCapabilities::default())
}

pub fn random_payload(rng: &mut Rng) -> Vec<u8> {
    let len = match rng.below(10) {
        0..=5 => rng.below(80),
        6..=8 => rng.below(1500),
        _ => 1400 + rng.below(100),
    };
    (0..len).map(|_| rng.byte()).collect()
}

pub fn random_valid(rng: &mut Rng) -> Vec<u8> {
    // DATA carries the payload path: give it 40 % of the frames.
    let t = if rng.chance(40) {
        PacketType::Data
    } else {
        PacketType::ALL[rng.below(PacketType::ALL.len() as u64) as usize]
    };
    let payload = random_payload(rng);
    let (v6, vlan) = (rng.chance(50), rng.chance(30));
    let mut f = frame_of(rng, t, v6, vlan, &payload);
    if rng.chance(10) {
        // Ethernet padding (or trailing junk), which the parsers ignore.
        for _ in 0..rng.below(40) {
            f.push(rng.byte());
        }
    }
    f
}

/// Where the IP header starts (the frames built here are at least that long).
fn ip_at(f: &[u8]) -> usize {
    if f.len() >= eth::HEADER_LEN
        && u16::from_be_bytes([f[eth::ETHERTYPE.start], f[eth::ETHERTYPE.start + 1]])
            == EtherType::VLAN.0
    {
        eth::TAGGED_HEADER_LEN
    } else {
        eth::HEADER_LEN
    }
}

fn is_v6(f: &[u8]) -> bool {
    f.get(ip_at(f)).is_some_and(|b| b >> 4 == 6)
}

fn l4_at(f: &[u8]) -> usize {
    ip_at(f)
        + if is_v6(f) {
            ipv6::HEADER_LEN
        } else {
            ipv4::HEADER_LEN
        }
}

/// Rewrites the IPv4 header checksum (if the header is in the frame).
fn fix_checksum(f: &mut [u8]) {
    let s = ip_at(f);
    if is_v6(f) || f.len() < s + ipv4::HEADER_LEN {
        return;
    }
    let hl = usize::from(f[s] & 0x0f) * 4;
    if hl < ipv4::HEADER_LEN || f.len() < s + hl {
        return;
    }
    f[s + ipv4::CHECKSUM.start] = 0;
    f[s + ipv4::CHECKSUM.start + 1] = 0;
    let mut acc: u32 = 0;
    for c in f[s..s + hl].chunks(2) {
        acc += u32::from(u16::from_be_bytes([c[0], c[1]]));
    }
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    let c = !(acc as u16);
    f[s + ipv4::CHECKSUM.start..s + ipv4::CHECKSUM.end].copy_from_slice(&c.to_be_bytes());
}

fn set8(f: &mut [u8], at: usize, v: u8) {
    if let Some(b) = f.get_mut(at) {
        *b = v;
    }
}

fn get8(f: &[u8], at: usize) -> u8 {
    f.get(at).copied().unwrap_or(0)
}

fn set32(f: &mut [u8], at: usize, v: u32) {
    if f.len() >= at + 4 {
        f[at..at + 4].copy_from_slice(&v.to_be_bytes());
    }
}

fn set16(f: &mut [u8], at: usize, v: u16) {
    if f.len() >= at + 2 {
        f[at..at + 2].copy_from_slice(&v.to_be_bytes());
    }
}

/// A malformed (or occasionally still valid) frame.
pub fn random_malformed(rng: &mut Rng) -> Vec<u8> {
    let mut f = random_valid(rng);
    let s = ip_at(&f);
    let l4 = l4_at(&f);
    let len = f.len();
    match rng.below(17) {
        0 => f.truncate(rng.below(len as u64 + 1) as usize),
        16 => {
            // A corrupt IPv4 header: the checksum no longer verifies.
            let at = s + rng.below(ipv4::HEADER_LEN as u64) as usize;
            let bit = 1 << rng.below(8);
            let v = get8(&f, at) ^ bit;
            set8(&mut f, at, v);
        }
        1 => f.truncate(rng.below(l4 as u64 + 40) as usize),
        2 => {
            let at = rng.below(len.min(120) as u64) as usize;
            f[at] ^= 1 << rng.below(8);
        }
        3 => {
            let at = rng.below(len.min(120) as u64) as usize;
            f[at] = rng.byte();
            fix_checksum(&mut f);
        }
        4 => {
            let p = if rng.chance(30) {
                PROTOCOL_TCP
            } else {
                rng.byte()
            };
            if is_v6(&f) {
                f[s + ipv6::NEXT_HEADER] = p;
            } else {
                f[s + ipv4::PROTOCOL] = p;
            }
            if p == PROTOCOL_TCP && rng.chance(50) {
                let flags = get8(&f, l4 + homa::FLAGS) ^ 1; // no hijack marker
                set8(&mut f, l4 + homa::FLAGS, flags);
            }
            fix_checksum(&mut f);
        }
        5 => set8(&mut f, l4 + homa::TYPE, rng.byte()),
        6 => {
            let delta = rng.below(200) as u16;
            if is_v6(&f) {
                let v = u16::from_be_bytes([f[s + 4], f[s + 5]]);
                let v = if rng.chance(50) {
                    v.wrapping_add(delta)
                } else {
                    v.wrapping_sub(delta)
                };
                set16(&mut f, s + ipv6::PAYLOAD_LEN.start, v);
            } else {
                let v = u16::from_be_bytes([f[s + 2], f[s + 3]]);
                let v = if rng.chance(50) {
                    v.wrapping_add(delta)
                } else {
                    v.wrapping_sub(delta)
                };
                set16(&mut f, s + ipv4::LENGTH.start, v);
                fix_checksum(&mut f);
            }
        }
        7 => {
            if !is_v6(&f) {
                f[s] = (f[s] & 0xf0) | rng.below(16) as u8;
                fix_checksum(&mut f);
            }
        }
        8 => {
            if !is_v6(&f) {
                f[s + ipv4::FLG_OFF.start] |= 0x20 >> rng.below(2);
                f[s + ipv4::FLG_OFF.start + 1] |= rng.byte() & 1;
                fix_checksum(&mut f);
            }
        }
        9 => {
            let et = match rng.below(4) {
                0 => EtherType::QINQ.0,
                1 => EtherType::VLAN.0,
                2 => rng.next_u64() as u16,
                _ => EtherType::IPV6.0 ^ EtherType::IPV4.0 ^ u16::from_be_bytes([f[12], f[13]]),
            };
            let at = if rng.chance(50) {
                eth::ETHERTYPE.start
            } else {
                eth::VLAN_ETHERTYPE.start
            };
            set16(&mut f, at, et);
        }
        10 => {
            let n = rng.below(160) as usize;
            f = (0..n).map(|_| rng.byte()).collect();
            if rng.chance(50) && f.len() >= 14 {
                set16(&mut f, eth::ETHERTYPE.start, EtherType::IPV4.0);
            }
        }
        11 => {
            // DATA: message shorter than offset + payload, or beyond the maximum.
            if get8(&f, l4 + homa::TYPE) == u8::from(PacketType::Data) {
                let v = rng.next_u64() as u32 % (MAX_MESSAGE_LENGTH + 100);
                set32(&mut f, l4 + homa::MESSAGE_LENGTH.start, v);
            }
        }
        12 => {
            // Priorities above 7, too many ACK entries.
            set8(&mut f, l4 + homa::GRANT_PRIORITY, rng.byte() & 0x0f);
            set8(&mut f, l4 + homa::RESEND_PRIORITY, rng.byte() & 0x0f);
            set16(&mut f, l4 + homa::NUM_ACKS.start, rng.below(8) as u16);
        }
        13 => {
            // seg.offset: the sequence rule, and out-of-range offsets.
            if get8(&f, l4 + homa::TYPE) == u8::from(PacketType::Data) {
                let v = if rng.chance(50) {
                    u32::MAX
                } else {
                    rng.next_u64() as u32
                };
                set32(&mut f, l4 + homa::SEG_OFFSET.start, v);
                let q = rng.next_u64() as u32 % (MAX_MESSAGE_LENGTH + 10);
                set32(&mut f, l4 + homa::SEQUENCE.start, q);
            }
        }
        14 => {
            // A hijacked (TCP) Homa frame, marker intact: valid.
            if is_v6(&f) {
                f[s + ipv6::NEXT_HEADER] = PROTOCOL_TCP;
            } else {
                f[s + ipv4::PROTOCOL] = PROTOCOL_TCP;
                fix_checksum(&mut f);
            }
        }
        _ => f.truncate(rng.below(40) as usize),
    }
    f
}

pub fn seed_from_env(default: u64) -> u64 {
    std::env::var("HOMA_HW_SEED")
        .ok()
        .and_then(|s| u64::from_str_radix(s.trim_start_matches("0x"), 16).ok())
        .unwrap_or(default)
}

pub fn frames_from_env(debug: usize, release: usize) -> usize {
    std::env::var("HOMA_HW_FRAMES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) {
            debug
        } else {
            release
        })
}

pub fn golden_frames(rng: &mut Rng) -> Vec<Vec<u8>> {
    let mut frames = Vec::new();
    for v6 in [false, true] {
        for vlan in [false, true] {
            for &t in PacketType::ALL {
                let payload: Vec<u8> = (0..37u8).collect();
                frames.push(frame_of(rng, t, v6, vlan, &payload));
            }
        }
    }
    frames
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
