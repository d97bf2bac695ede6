//! IPv6 fixed header (RFC 8200), as far as Homa needs it.
//!
//! ```text
//!  0                   4            6        7        8                24               40
//!  +-------------------+------------+--------+--------+----------------+----------------+
//!  |ver|TC|flow label  |payload len |next hdr|hop lim | source address | dest address   |
//! ```
//!
//! The Homa priority rides in the top three bits of the Traffic Class (SPEC §1.1). Extension
//! headers are not followed: HomaModule sends none.

use super::{Error, Layer, Reason, Result, be16, be32};
use core::net::Ipv6Addr;

/// Byte ranges of the IPv6 header.
pub mod field {
    use crate::wire::Field;
    /// Version (4 bits), traffic class (8 bits), flow label (20 bits).
    pub const VER_TC_FLOW: Field = 0..4;
    /// Payload length (after this 40-byte header).
    pub const PAYLOAD_LEN: Field = 4..6;
    /// Next header: 146 for Homa.
    pub const NEXT_HEADER: usize = 6;
    /// Hop limit.
    pub const HOP_LIMIT: usize = 7;
    /// Source address.
    pub const SRC_ADDR: Field = 8..24;
    /// Destination address.
    pub const DST_ADDR: Field = 24..40;
    /// Header length.
    pub const HEADER_LEN: usize = 40;
}

fn err(reason: Reason) -> Error {
    Error::new(Layer::Ipv6, reason)
}

/// A zero-copy view of an IPv6 packet.
#[derive(Debug, Clone)]
pub struct Ipv6Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Ipv6Packet<T> {
    /// Wraps `buffer` without checks; see the module's panic contract.
    pub const fn new_unchecked(buffer: T) -> Self {
        Ipv6Packet { buffer }
    }

    /// Wraps `buffer` after [`check_len`](Self::check_len).
    pub fn new_checked(buffer: T) -> Result<Self> {
        let p = Self::new_unchecked(buffer);
        p.check_len()?;
        Ok(p)
    }

    /// Checks the version and that the header and the announced payload fit in the buffer.
    pub fn check_len(&self) -> Result<()> {
        let len = self.buffer.as_ref().len();
        if len < field::HEADER_LEN {
            return Err(err(Reason::Truncated));
        }
        if self.version() != 6 {
            return Err(err(Reason::BadVersion));
        }
        if len < field::HEADER_LEN + usize::from(self.payload_len()) {
            return Err(err(Reason::Truncated));
        }
        Ok(())
    }

    /// Returns the underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    fn word0(&self) -> u32 {
        be32(self.buffer.as_ref(), field::VER_TC_FLOW)
    }

    /// The version nibble (6).
    pub fn version(&self) -> u8 {
        (self.word0() >> 28) as u8
    }

    /// The traffic class byte.
    pub fn traffic_class(&self) -> u8 {
        (self.word0() >> 20) as u8
    }

    /// The 20-bit flow label.
    pub fn flow_label(&self) -> u32 {
        self.word0() & 0x000f_ffff
    }

    /// The payload length.
    pub fn payload_len(&self) -> u16 {
        be16(self.buffer.as_ref(), field::PAYLOAD_LEN)
    }

    /// The next header.
    pub fn next_header(&self) -> u8 {
        self.buffer.as_ref()[field::NEXT_HEADER]
    }

    /// The hop limit.
    pub fn hop_limit(&self) -> u8 {
        self.buffer.as_ref()[field::HOP_LIMIT]
    }

    /// The source address.
    pub fn src_addr(&self) -> Ipv6Addr {
        let mut a = [0u8; 16];
        a.copy_from_slice(&self.buffer.as_ref()[field::SRC_ADDR]);
        Ipv6Addr::from(a)
    }

    /// The destination address.
    pub fn dst_addr(&self) -> Ipv6Addr {
        let mut a = [0u8; 16];
        a.copy_from_slice(&self.buffer.as_ref()[field::DST_ADDR]);
        Ipv6Addr::from(a)
    }

    /// The payload, as long as the header says.
    pub fn payload(&self) -> &[u8] {
        let end = field::HEADER_LEN + usize::from(self.payload_len());
        &self.buffer.as_ref()[field::HEADER_LEN..end]
    }
}

/// The IPv6 header as plain values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ipv6Repr {
    /// Source address.
    pub src_addr: Ipv6Addr,
    /// Destination address.
    pub dst_addr: Ipv6Addr,
    /// Traffic class; `priority << 5` for Homa.
    pub traffic_class: u8,
    /// Flow label (20 bits).
    pub flow_label: u32,
    /// Hop limit.
    pub hop_limit: u8,
    /// Next header.
    pub next_header: u8,
    /// Payload length in bytes.
    pub payload_len: usize,
}

impl Ipv6Repr {
    /// Reads and validates a header.
    pub fn parse<T: AsRef<[u8]>>(packet: &Ipv6Packet<T>) -> Result<Self> {
        packet.check_len()?;
        Ok(Ipv6Repr {
            src_addr: packet.src_addr(),
            dst_addr: packet.dst_addr(),
            traffic_class: packet.traffic_class(),
            flow_label: packet.flow_label(),
            hop_limit: packet.hop_limit(),
            next_header: packet.next_header(),
            payload_len: usize::from(packet.payload_len()),
        })
    }

    /// The header's length on the wire.
    pub const fn buffer_len(&self) -> usize {
        field::HEADER_LEN
    }

    /// Writes the header at the start of `buf`.
    ///
    /// Panics if `buf` is shorter than the header or `payload_len` exceeds 16 bits.
    pub fn emit(&self, buf: &mut [u8]) {
        let len = u16::try_from(self.payload_len).expect("IPv6 payload_len exceeds 16 bits");
        let word0 =
            (6u32 << 28) | (u32::from(self.traffic_class) << 20) | (self.flow_label & 0x000f_ffff);
        buf[field::VER_TC_FLOW].copy_from_slice(&word0.to_be_bytes());
        buf[field::PAYLOAD_LEN].copy_from_slice(&len.to_be_bytes());
        buf[field::NEXT_HEADER] = self.next_header;
        buf[field::HOP_LIMIT] = self.hop_limit;
        buf[field::SRC_ADDR].copy_from_slice(&self.src_addr.octets());
        buf[field::DST_ADDR].copy_from_slice(&self.dst_addr.octets());
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn parse__emit_roundtrip() {
        let repr = Ipv6Repr {
            src_addr: "fd00::1".parse().unwrap(),
            dst_addr: "fd00::2".parse().unwrap(),
            traffic_class: 0xe0,
            flow_label: 0x12345,
            hop_limit: 64,
            next_header: 146,
            payload_len: 4,
        };
        let mut buf = [0xa5u8; 44];
        repr.emit(&mut buf);
        assert_eq!(&buf[..8], &[0x6e, 0x01, 0x23, 0x45, 0, 4, 146, 64]);
        let p = Ipv6Packet::new_checked(&buf[..]).unwrap();
        assert_eq!(Ipv6Repr::parse(&p).unwrap(), repr);
        assert_eq!(p.payload(), &[0xa5; 4]);
    }

    #[test]
    fn check_len__reasons() {
        let mut buf = [0u8; 40];
        buf[0] = 0x60;
        buf[5] = 1; // one payload byte announced, none present
        assert_eq!(
            Ipv6Packet::new_checked(&buf[..]).unwrap_err(),
            err(Reason::Truncated)
        );
        buf[0] = 0x40;
        assert_eq!(
            Ipv6Packet::new_checked(&buf[..]).unwrap_err(),
            err(Reason::BadVersion)
        );
        assert_eq!(
            Ipv6Packet::new_checked(&buf[..39]).unwrap_err(),
            err(Reason::Truncated)
        );
    }
}
