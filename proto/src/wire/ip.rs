//! The IP layer under Homa, version-independent.

use super::checksum::ChecksumCapabilities;
use super::ipv4::Ipv4Repr;
use super::ipv6::Ipv6Repr;
use core::net::IpAddr;

/// IANA's protocol number for Homa (HomaModule since 2024-10; SPEC §1.1).
pub const PROTOCOL_HOMA: u8 = 146;
/// TCP: Homa rides on it only when hijacked, with the marker in its header (SPEC §1.2).
pub const PROTOCOL_TCP: u8 = 6;

/// An IPv4 or IPv6 header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IpRepr {
    /// IPv4.
    V4(Ipv4Repr),
    /// IPv6.
    V6(Ipv6Repr),
}

impl IpRepr {
    /// The source address.
    pub fn src_addr(&self) -> IpAddr {
        match self {
            IpRepr::V4(r) => r.src_addr.into(),
            IpRepr::V6(r) => r.src_addr.into(),
        }
    }

    /// The destination address.
    pub fn dst_addr(&self) -> IpAddr {
        match self {
            IpRepr::V4(r) => r.dst_addr.into(),
            IpRepr::V6(r) => r.dst_addr.into(),
        }
    }

    /// The TOS (IPv4) or Traffic Class (IPv6) byte.
    pub fn traffic_class(&self) -> u8 {
        match self {
            IpRepr::V4(r) => r.tos,
            IpRepr::V6(r) => r.traffic_class,
        }
    }

    /// The Homa priority: the top three bits of TOS / Traffic Class.
    pub fn priority(&self) -> u8 {
        self.traffic_class() >> 5
    }

    /// The protocol (IPv4) or next header (IPv6).
    pub fn protocol(&self) -> u8 {
        match self {
            IpRepr::V4(r) => r.protocol,
            IpRepr::V6(r) => r.next_header,
        }
    }

    /// The payload length.
    pub fn payload_len(&self) -> usize {
        match self {
            IpRepr::V4(r) => r.payload_len,
            IpRepr::V6(r) => r.payload_len,
        }
    }

    /// The header length on the wire.
    pub fn buffer_len(&self) -> usize {
        match self {
            IpRepr::V4(r) => r.buffer_len(),
            IpRepr::V6(r) => r.buffer_len(),
        }
    }

    /// This header with another payload length.
    pub fn with_payload_len(self, payload_len: usize) -> Self {
        match self {
            IpRepr::V4(r) => IpRepr::V4(Ipv4Repr { payload_len, ..r }),
            IpRepr::V6(r) => IpRepr::V6(Ipv6Repr { payload_len, ..r }),
        }
    }

    /// Writes the header at the start of `buf`.
    pub fn emit(&self, buf: &mut [u8], caps: &ChecksumCapabilities) {
        match self {
            IpRepr::V4(r) => r.emit(buf, caps),
            IpRepr::V6(r) => r.emit(buf),
        }
    }
}
