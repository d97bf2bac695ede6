//! The bench kit every level of testing shares (the rust-hdl simulations in this crate and
//! the Verilator co-simulations in `homa-sim`): a seeded PRNG, the `HOMA_HW_SEED` and
//! `HOMA_HW_FRAMES` knobs, and the frames the benches feed (valid ones of every packet type,
//! over IPv4 and IPv6, with and without VLAN, and malformed ones). Nothing here depends on
//! rust-hdl.
#![allow(missing_docs)] // The stimulus functions say what they build by their names.

use homa_proto::wire::field::{ethernet as eth, homa, ipv4, ipv6};
use homa_proto::wire::{
    AckEntry, Acks, Cutoffs, Data, EthernetAddress, EthernetRepr, Grant, Ipv4Repr, Ipv6Repr,
    MAX_MESSAGE_LENGTH, PROTOCOL_HOMA, PROTOCOL_TCP, PacketType, Repr, Resend, VlanTag,
};

use homa_proto::wire::{Body, ChecksumCapabilities, EtherType, FrameRepr, IpRepr};

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
