//! A whole frame: Ethernet (optional) → IPv4 or IPv6 → Homa.

use super::checksum::ChecksumCapabilities;
use super::ethernet::{EtherType, EthernetFrame, EthernetRepr};
use super::homa::HomaPacket;
use super::ip::{IpRepr, PROTOCOL_HOMA, PROTOCOL_TCP};
use super::ipv4::{Ipv4Packet, Ipv4Repr};
use super::ipv6::{Ipv6Packet, Ipv6Repr};
use super::repr::Repr;
use super::{Error, Layer, Reason, Result};
use core::fmt;

/// Where a frame's bytes start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum LinkType {
    /// At the Ethernet header.
    #[default]
    Ethernet,
    /// At the IP header (the version nibble tells IPv4 from IPv6).
    Ip,
}

/// A parsed Homa frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameRepr<'a> {
    /// The Ethernet header; `None` for frames that start at IP.
    pub ethernet: Option<EthernetRepr>,
    /// The IP header. On emit its payload length is taken from `homa`.
    pub ip: IpRepr,
    /// The Homa packet.
    pub homa: Repr<'a>,
}

impl<'a> FrameRepr<'a> {
    /// Parses a frame that starts at `link`.
    ///
    /// IP protocol / next header 146 is Homa; so is protocol 6 (TCP) when the Homa header
    /// carries both halves of the hijack marker (SPEC §1.2). Anything else is
    /// [`Reason::NotHoma`] at the IP layer.
    pub fn parse(bytes: &'a [u8], link: LinkType, caps: &ChecksumCapabilities) -> Result<Self> {
        Self::parse_with_view(bytes, link, caps).map(|(repr, _)| repr)
    }

    /// Like [`parse`](Self::parse), and also returns a view of the Homa bytes, for callers
    /// that want raw fields the `Repr` normalises away (`sequence`, `seg.offset`, `doff`,
    /// the hijack marker).
    pub fn parse_with_view(
        bytes: &'a [u8],
        link: LinkType,
        caps: &ChecksumCapabilities,
    ) -> Result<(Self, HomaPacket<&'a [u8]>)> {
        let (ethernet, ip_bytes) = match link {
            LinkType::Ethernet => {
                let frame = EthernetFrame::new_checked(bytes)?;
                let repr = EthernetRepr::parse(&frame)?;
                if repr.ethertype != EtherType::IPV4 && repr.ethertype != EtherType::IPV6 {
                    return Err(Error::new(Layer::Ethernet, Reason::NotHoma));
                }
                (Some(repr), &bytes[frame.header_len()..])
            }
            LinkType::Ip => (None, bytes),
        };
        let version = ip_bytes.first().map(|b| b >> 4);
        let expect_v6 = match ethernet {
            Some(e) => e.ethertype == EtherType::IPV6,
            None => version == Some(6),
        };
        let (ip, layer, homa_bytes) = if expect_v6 {
            let packet = Ipv6Packet::new_checked(ip_bytes)?;
            let repr = Ipv6Repr::parse(&packet)?;
            let end = packet.payload().len();
            let payload = &ip_bytes[super::ipv6::field::HEADER_LEN..][..end];
            (IpRepr::V6(repr), Layer::Ipv6, payload)
        } else {
            let packet = Ipv4Packet::new_checked(ip_bytes)?;
            let repr = Ipv4Repr::parse(&packet, caps)?;
            let start = packet.header_len();
            let payload = &ip_bytes[start..start + repr.payload_len];
            (IpRepr::V4(repr), Layer::Ipv4, payload)
        };
        match ip.protocol() {
            PROTOCOL_HOMA => {}
            PROTOCOL_TCP if is_hijacked(homa_bytes) => {}
            _ => return Err(Error::new(layer, Reason::NotHoma)),
        }
        let view = HomaPacket::new_checked(homa_bytes)?;
        let homa = Repr::parse(&view)?;
        Ok((FrameRepr { ethernet, ip, homa }, view))
    }

    /// The Homa priority of the frame (top three bits of TOS / Traffic Class).
    pub fn priority(&self) -> u8 {
        self.ip.priority()
    }

    /// Bytes on the wire (without Ethernet padding or FCS).
    pub fn buffer_len(&self) -> usize {
        self.ethernet.map_or(0, |e| e.buffer_len()) + self.ip.buffer_len() + self.homa.buffer_len()
    }

    /// Writes the frame into `buf` (at least [`buffer_len`](Self::buffer_len) bytes; panics
    /// otherwise). The EtherType and the IP payload length are derived from `ip` and
    /// `homa`, so the frame is always consistent.
    pub fn emit(&self, buf: &mut [u8], caps: &ChecksumCapabilities) {
        let mut at = 0;
        if let Some(eth) = self.ethernet {
            let ethertype = match self.ip {
                IpRepr::V4(_) => EtherType::IPV4,
                IpRepr::V6(_) => EtherType::IPV6,
            };
            EthernetRepr { ethertype, ..eth }.emit(buf);
            at = eth.buffer_len();
        }
        let ip = self.ip.with_payload_len(self.homa.buffer_len());
        ip.emit(&mut buf[at..], caps);
        at += ip.buffer_len();
        let end = at + self.homa.buffer_len();
        self.homa
            .emit(&mut HomaPacket::new_unchecked(&mut buf[at..end]));
    }

    /// Emits into a new vector.
    pub fn to_bytes(&self, caps: &ChecksumCapabilities) -> Vec<u8> {
        let mut buf = vec![0u8; self.buffer_len()];
        self.emit(&mut buf, caps);
        buf
    }
}

fn is_hijacked(homa_bytes: &[u8]) -> bool {
    homa_bytes.len() >= super::homa::field::COMMON_LEN
        && HomaPacket::new_unchecked(homa_bytes).has_hijack_marker()
}

impl fmt::Display for FrameRepr<'_> {
    /// `10.0.0.1:4000 > 10.0.0.2:500 prio=7 GRANT id=7 offset=1200 prio=2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (src, dst) = (self.ip.src_addr(), self.ip.dst_addr());
        let (sp, dp) = (self.homa.sport, self.homa.dport);
        match (src, dst) {
            (core::net::IpAddr::V6(_), _) => write!(f, "[{src}]:{sp} > [{dst}]:{dp}")?,
            _ => write!(f, "{src}:{sp} > {dst}:{dp}")?,
        }
        write!(f, " prio={} {}", self.priority(), self.homa)
    }
}
