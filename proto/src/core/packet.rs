//! Packets as the engine consumes and produces them: a parsed Homa header plus a payload
//! that is shared, not copied (`Bytes`), so a simulator can move millions of them cheaply.

use crate::wire::{
    Body, ChecksumCapabilities, Data, EtherType, EthernetRepr, FrameRepr, IpRepr, LinkType, Repr,
};
use bytes::Bytes;
use core::net::IpAddr;

/// A Homa packet: the header and, for DATA, the payload.
///
/// For DATA, `header`'s own payload slice is empty and the bytes live in `payload`;
/// [`Packet::repr`] puts them back together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet {
    /// The header (for DATA, with an empty payload slice).
    pub header: Repr<'static>,
    /// The DATA payload; empty for other types.
    pub payload: Bytes,
}

impl Packet {
    /// A control packet (any type but DATA).
    pub fn control(header: Repr<'static>) -> Self {
        Packet {
            header,
            payload: Bytes::new(),
        }
    }

    /// Copies a parsed packet (and its payload) out of a receive buffer.
    pub fn from_repr(repr: &Repr<'_>) -> Self {
        let (header, payload) = match repr.body {
            Body::Data(d) => (
                Repr {
                    body: Body::Data(Data { payload: &[], ..d }),
                    sport: repr.sport,
                    dport: repr.dport,
                    sender_id: repr.sender_id,
                },
                Bytes::copy_from_slice(d.payload),
            ),
            Body::Grant(g) => (with_body(repr, Body::Grant(g)), Bytes::new()),
            Body::Resend(r) => (with_body(repr, Body::Resend(r)), Bytes::new()),
            Body::Cutoffs(c) => (with_body(repr, Body::Cutoffs(c)), Bytes::new()),
            Body::Ack(a) => (with_body(repr, Body::Ack(a)), Bytes::new()),
            Body::RpcUnknown => (with_body(repr, Body::RpcUnknown), Bytes::new()),
            Body::Busy => (with_body(repr, Body::Busy), Bytes::new()),
            Body::Freeze => (with_body(repr, Body::Freeze), Bytes::new()),
            Body::NeedAck => (with_body(repr, Body::NeedAck), Bytes::new()),
        };
        Packet { header, payload }
    }

    /// The whole packet as a `Repr`, payload included.
    pub fn repr(&self) -> Repr<'_> {
        match self.header.body {
            Body::Data(d) => Repr {
                body: Body::Data(Data {
                    payload: &self.payload,
                    ..d
                }),
                ..self.header
            },
            _ => self.header,
        }
    }

    /// Bytes of the Homa packet (header and payload), without IP and link headers.
    pub fn len(&self) -> usize {
        self.header.header_len() + self.payload.len()
    }

    /// Whether the packet is empty (never: every Homa packet has a header).
    pub fn is_empty(&self) -> bool {
        false
    }
}

fn with_body(repr: &Repr<'_>, body: Body<'static>) -> Repr<'static> {
    Repr {
        sport: repr.sport,
        dport: repr.dport,
        sender_id: repr.sender_id,
        body,
    }
}

/// A packet the engine wants sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transmit {
    /// Destination host.
    pub dst: IpAddr,
    /// Network priority 0-7 (7 highest) to put in TOS / Traffic Class.
    pub priority: u8,
    /// The packet.
    pub packet: Packet,
}

impl Transmit {
    /// The frame bytes of this packet from `src`, starting at the IP header (no Ethernet),
    /// with a computed IPv4 checksum. Panics if `src` and `dst` are of different families.
    pub fn to_ip_bytes(&self, src: IpAddr) -> Vec<u8> {
        self.to_frame_bytes(src, None)
    }

    /// The frame bytes of this packet from `src`, behind `ethernet` when given (its
    /// EtherType is set from the IP version), with a computed IPv4 checksum. Panics if `src`
    /// and `dst` are of different families.
    pub fn to_frame_bytes(&self, src: IpAddr, ethernet: Option<EthernetRepr>) -> Vec<u8> {
        let homa = self.packet.repr();
        let tos = self.priority << 5;
        let (ip, ethertype) = match (src, self.dst) {
            (IpAddr::V4(s), IpAddr::V4(d)) => (
                IpRepr::V4(crate::wire::Ipv4Repr {
                    src_addr: s,
                    dst_addr: d,
                    tos,
                    ident: 0,
                    dont_frag: true,
                    ttl: 64,
                    protocol: crate::wire::PROTOCOL_HOMA,
                    payload_len: homa.buffer_len(),
                }),
                EtherType::IPV4,
            ),
            (IpAddr::V6(s), IpAddr::V6(d)) => (
                IpRepr::V6(crate::wire::Ipv6Repr {
                    src_addr: s,
                    dst_addr: d,
                    traffic_class: tos,
                    flow_label: 0,
                    hop_limit: 64,
                    next_header: crate::wire::PROTOCOL_HOMA,
                    payload_len: homa.buffer_len(),
                }),
                EtherType::IPV6,
            ),
            _ => panic!("source {src} and destination {} differ in family", self.dst),
        };
        FrameRepr {
            ethernet: ethernet.map(|e| EthernetRepr { ethertype, ..e }),
            ip,
            homa,
        }
        .to_bytes(&ChecksumCapabilities::default())
    }
}

/// Parses IP-level bytes into the source address, priority and packet, ready for
/// `Endpoint::handle_packet`.
pub fn parse_ip_bytes(
    bytes: &[u8],
    caps: &ChecksumCapabilities,
) -> crate::wire::Result<(IpAddr, u8, Packet)> {
    let frame = FrameRepr::parse(bytes, LinkType::Ip, caps)?;
    Ok((
        frame.ip.src_addr(),
        frame.priority(),
        Packet::from_repr(&frame.homa),
    ))
}
