//! IPv4 header (RFC 791), as far as Homa needs it.
//!
//! ```text
//!  0        1        2                 4                 6                 8
//!  +--------+--------+-----------------+-----------------+-----------------+
//!  |ver|ihl |  TOS   |  total length   | identification  |flags|frag offset|
//!  +--------+--------+-----------------+-----------------+-----------------+
//!  |  TTL   | proto  | header checksum |    source address (12..16)        |
//!  +--------+--------+-----------------+-----------------------------------+
//!  |  destination address (16..20)     | options (ihl > 5) ...
//! ```
//!
//! The Homa priority rides in the top three bits of TOS (SPEC §1.1). Options are skipped on
//! parse and never emitted; fragments are rejected (Homa never fragments: it sizes packets to
//! the MTU).

use super::checksum::{self, ChecksumCapabilities};
use super::{Error, Layer, Reason, Result, be16};
use core::net::Ipv4Addr;

/// Byte ranges of the IPv4 header.
pub mod field {
    use crate::wire::Field;
    /// Version (high nibble) and header length in words (low nibble).
    pub const VER_IHL: usize = 0;
    /// Type of service (DSCP + ECN); the Homa priority is in its top 3 bits.
    pub const TOS: usize = 1;
    /// Total length of header and payload.
    pub const LENGTH: Field = 2..4;
    /// Identification.
    pub const IDENT: Field = 4..6;
    /// Flags (3 bits) and fragment offset (13 bits).
    pub const FLG_OFF: Field = 6..8;
    /// Time to live.
    pub const TTL: usize = 8;
    /// Protocol: 146 for Homa.
    pub const PROTOCOL: usize = 9;
    /// Header checksum.
    pub const CHECKSUM: Field = 10..12;
    /// Source address.
    pub const SRC_ADDR: Field = 12..16;
    /// Destination address.
    pub const DST_ADDR: Field = 16..20;
    /// Header length without options.
    pub const HEADER_LEN: usize = 20;
}

const FLAG_DONT_FRAG: u16 = 0x4000;
const FLAG_MORE_FRAGS: u16 = 0x2000;
const FRAG_OFFSET_MASK: u16 = 0x1fff;

fn err(reason: Reason) -> Error {
    Error::new(Layer::Ipv4, reason)
}

/// A zero-copy view of an IPv4 packet.
#[derive(Debug, Clone)]
pub struct Ipv4Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Ipv4Packet<T> {
    /// Wraps `buffer` without checks; see the module's panic contract.
    pub const fn new_unchecked(buffer: T) -> Self {
        Ipv4Packet { buffer }
    }

    /// Wraps `buffer` after [`check_len`](Self::check_len).
    pub fn new_checked(buffer: T) -> Result<Self> {
        let p = Self::new_unchecked(buffer);
        p.check_len()?;
        Ok(p)
    }

    /// Checks the version, that the header and the announced total length fit in the buffer,
    /// and that the header length is at most the total length. Bytes past the total length
    /// (Ethernet padding) are allowed and ignored.
    pub fn check_len(&self) -> Result<()> {
        let len = self.buffer.as_ref().len();
        if len < field::HEADER_LEN {
            return Err(err(Reason::Truncated));
        }
        if self.version() != 4 {
            return Err(err(Reason::BadVersion));
        }
        let header_len = self.header_len();
        if header_len < field::HEADER_LEN {
            return Err(err(Reason::BadLength));
        }
        let total = usize::from(self.total_len());
        if total < header_len {
            return Err(err(Reason::BadLength));
        }
        if len < header_len || len < total {
            return Err(err(Reason::Truncated));
        }
        Ok(())
    }

    /// Returns the underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The version nibble (4).
    pub fn version(&self) -> u8 {
        self.buffer.as_ref()[field::VER_IHL] >> 4
    }

    /// The header length in bytes.
    pub fn header_len(&self) -> usize {
        usize::from(self.buffer.as_ref()[field::VER_IHL] & 0x0f) * 4
    }

    /// The type-of-service byte.
    pub fn tos(&self) -> u8 {
        self.buffer.as_ref()[field::TOS]
    }

    /// The total length of header and payload.
    pub fn total_len(&self) -> u16 {
        be16(self.buffer.as_ref(), field::LENGTH)
    }

    /// The identification field.
    pub fn ident(&self) -> u16 {
        be16(self.buffer.as_ref(), field::IDENT)
    }

    /// The don't-fragment flag.
    pub fn dont_frag(&self) -> bool {
        be16(self.buffer.as_ref(), field::FLG_OFF) & FLAG_DONT_FRAG != 0
    }

    /// Whether this is a fragment (more-fragments set, or a non-zero offset).
    pub fn is_fragment(&self) -> bool {
        let v = be16(self.buffer.as_ref(), field::FLG_OFF);
        v & FLAG_MORE_FRAGS != 0 || v & FRAG_OFFSET_MASK != 0
    }

    /// Time to live.
    pub fn ttl(&self) -> u8 {
        self.buffer.as_ref()[field::TTL]
    }

    /// The payload's protocol number.
    pub fn protocol(&self) -> u8 {
        self.buffer.as_ref()[field::PROTOCOL]
    }

    /// The header checksum as written.
    pub fn checksum(&self) -> u16 {
        be16(self.buffer.as_ref(), field::CHECKSUM)
    }

    /// Whether the header checksum verifies.
    pub fn verify_checksum(&self) -> bool {
        checksum::sum(&self.buffer.as_ref()[..self.header_len()]) == 0xffff
    }

    /// The source address.
    pub fn src_addr(&self) -> Ipv4Addr {
        let b = &self.buffer.as_ref()[field::SRC_ADDR];
        Ipv4Addr::new(b[0], b[1], b[2], b[3])
    }

    /// The destination address.
    pub fn dst_addr(&self) -> Ipv4Addr {
        let b = &self.buffer.as_ref()[field::DST_ADDR];
        Ipv4Addr::new(b[0], b[1], b[2], b[3])
    }

    /// The payload: from the end of the header to the total length.
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[self.header_len()..usize::from(self.total_len())]
    }
}

/// The IPv4 header as plain values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ipv4Repr {
    /// Source address.
    pub src_addr: Ipv4Addr,
    /// Destination address.
    pub dst_addr: Ipv4Addr,
    /// Type of service; `priority << 5` for Homa.
    pub tos: u8,
    /// Identification.
    pub ident: u16,
    /// Don't-fragment flag.
    pub dont_frag: bool,
    /// Time to live.
    pub ttl: u8,
    /// Protocol of the payload.
    pub protocol: u8,
    /// Payload length in bytes.
    pub payload_len: usize,
}

impl Ipv4Repr {
    /// Reads and validates a header: lengths, version, no fragmentation, and the checksum
    /// when `caps.ipv4_rx`.
    pub fn parse<T: AsRef<[u8]>>(
        packet: &Ipv4Packet<T>,
        caps: &ChecksumCapabilities,
    ) -> Result<Self> {
        packet.check_len()?;
        if caps.ipv4_rx && !packet.verify_checksum() {
            return Err(err(Reason::BadChecksum));
        }
        if packet.is_fragment() {
            return Err(err(Reason::Unsupported));
        }
        Ok(Ipv4Repr {
            src_addr: packet.src_addr(),
            dst_addr: packet.dst_addr(),
            tos: packet.tos(),
            ident: packet.ident(),
            dont_frag: packet.dont_frag(),
            ttl: packet.ttl(),
            protocol: packet.protocol(),
            payload_len: usize::from(packet.total_len()) - packet.header_len(),
        })
    }

    /// The header's length on the wire (no options are emitted).
    pub const fn buffer_len(&self) -> usize {
        field::HEADER_LEN
    }

    /// Writes the header at the start of `buf`, with the checksum when `caps.ipv4_tx`.
    ///
    /// Panics if `buf` is shorter than the header or `payload_len` does not fit the 16-bit
    /// total length (callers size packets to the MTU).
    pub fn emit(&self, buf: &mut [u8], caps: &ChecksumCapabilities) {
        let total = u16::try_from(field::HEADER_LEN + self.payload_len)
            .expect("IPv4 payload_len exceeds the 16-bit total length");
        let buf = &mut buf[..field::HEADER_LEN];
        buf[field::VER_IHL] = 0x45;
        buf[field::TOS] = self.tos;
        buf[field::LENGTH].copy_from_slice(&total.to_be_bytes());
        buf[field::IDENT].copy_from_slice(&self.ident.to_be_bytes());
        let flags = if self.dont_frag { FLAG_DONT_FRAG } else { 0 };
        buf[field::FLG_OFF].copy_from_slice(&flags.to_be_bytes());
        buf[field::TTL] = self.ttl;
        buf[field::PROTOCOL] = self.protocol;
        buf[field::CHECKSUM].copy_from_slice(&[0, 0]);
        buf[field::SRC_ADDR].copy_from_slice(&self.src_addr.octets());
        buf[field::DST_ADDR].copy_from_slice(&self.dst_addr.octets());
        if caps.ipv4_tx {
            let c = checksum::checksum(buf);
            buf[field::CHECKSUM].copy_from_slice(&c.to_be_bytes());
        }
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    // A real IPv4 header (Wikipedia's checksum example): 4500 0073 0000 4000 4011 b861
    // c0a8 0001 c0a8 00c7, followed by 0x73 - 20 payload bytes.
    fn example() -> Vec<u8> {
        let mut v =
            hex::decode("450000730000400040 11b861c0a80001c0a800c7".replace(' ', "")).unwrap();
        v.resize(0x73, 0);
        v
    }

    #[test]
    fn parse__known_header() {
        let bytes = example();
        let p = Ipv4Packet::new_checked(&bytes[..]).unwrap();
        assert!(p.verify_checksum());
        let r = Ipv4Repr::parse(&p, &ChecksumCapabilities::default()).unwrap();
        assert_eq!(r.src_addr, Ipv4Addr::new(192, 168, 0, 1));
        assert_eq!(r.dst_addr, Ipv4Addr::new(192, 168, 0, 199));
        assert_eq!(r.protocol, 17);
        assert_eq!(r.payload_len, 0x73 - 20);
        assert!(r.dont_frag);
        let mut out = [0xa5u8; 20];
        r.emit(&mut out, &ChecksumCapabilities::default());
        assert_eq!(&out[..], &bytes[..20]);
    }

    #[test]
    fn parse__bad_checksum_unless_ignored() {
        let mut bytes = example();
        bytes[11] ^= 1;
        let p = Ipv4Packet::new_checked(&bytes[..]).unwrap();
        let e = Ipv4Repr::parse(&p, &ChecksumCapabilities::default()).unwrap_err();
        assert_eq!(e, err(Reason::BadChecksum));
        assert!(Ipv4Repr::parse(&p, &ChecksumCapabilities::ignored()).is_ok());
    }

    #[test]
    fn check_len__reasons() {
        let bytes = example();
        assert_eq!(
            Ipv4Packet::new_checked(&bytes[..19]).unwrap_err(),
            err(Reason::Truncated)
        );
        assert_eq!(
            Ipv4Packet::new_checked(&bytes[..0x72]).unwrap_err(),
            err(Reason::Truncated)
        );
        let mut v6 = bytes.clone();
        v6[0] = 0x65;
        assert_eq!(
            Ipv4Packet::new_checked(&v6[..]).unwrap_err(),
            err(Reason::BadVersion)
        );
        let mut short_ihl = bytes.clone();
        short_ihl[0] = 0x44;
        assert_eq!(
            Ipv4Packet::new_checked(&short_ihl[..]).unwrap_err(),
            err(Reason::BadLength)
        );
        let mut short_total = bytes.clone();
        short_total[2..4].copy_from_slice(&19u16.to_be_bytes());
        assert_eq!(
            Ipv4Packet::new_checked(&short_total[..]).unwrap_err(),
            err(Reason::BadLength)
        );
    }

    #[test]
    fn parse__fragment_is_unsupported() {
        let mut bytes = example();
        bytes[6] = 0x20; // more fragments
        bytes[10..12].copy_from_slice(&[0, 0]);
        let c = checksum::checksum(&bytes[..20]);
        bytes[10..12].copy_from_slice(&c.to_be_bytes());
        let p = Ipv4Packet::new_checked(&bytes[..]).unwrap();
        let e = Ipv4Repr::parse(&p, &ChecksumCapabilities::default()).unwrap_err();
        assert_eq!(e, err(Reason::Unsupported));
    }
}
