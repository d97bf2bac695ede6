//! Homa packet formats, byte-exact with the current Linux HomaModule
//! (`homa_wire.h` at 9edb958; see `shared/homa/SPEC.md` §1), and the Ethernet, IPv4 and IPv6
//! layers that carry them.
//!
//! # Shape
//!
//! Every layer follows smoltcp: a zero-copy view `Xxx<T: AsRef<[u8]>>` over a byte buffer,
//! with a public `field` module of byte ranges (the single source of offsets for the hardware
//! parser too), getters for `T: AsRef<[u8]>` and setters for `T: AsMut<[u8]>`, and a plain
//! `XxxRepr` with `parse`, `buffer_len` and `emit`. [`FrameRepr`] strings the layers together
//! for a whole Ethernet (or bare IP) frame.
//!
//! # Panic contract
//!
//! - `new_checked` and every `Repr::parse` validate lengths first; **no input, however
//!   malformed, makes them panic** (a property test and a fuzz target hold them to that).
//! - `new_unchecked` does no validation: its accessors may panic if the buffer is shorter than
//!   the fields they read. Call `check_len` (or use `new_checked`) first.
//! - `emit` panics if the buffer is shorter than `buffer_len()`: that is a caller bug, not
//!   bad input.
//!
//! # Errors
//!
//! A parse failure is an [`Error`]: the [`Layer`] that rejected the bytes and a small `Copy`
//! [`Reason`], so that a disagreement between the hardware parser and this one can be
//! explained, not just observed.

mod checksum;
mod ethernet;
mod frame;
mod homa;
mod ip;
mod ipv4;
mod ipv6;
mod packet_type;
mod repr;

#[cfg(test)]
mod golden;

pub use checksum::ChecksumCapabilities;
pub use ethernet::{EtherType, EthernetAddress, EthernetFrame, EthernetRepr, VlanTag};
pub use frame::{FrameRepr, LinkType};
pub use homa::{HomaPacket, MAX_ACKS_PER_PACKET, MAX_MESSAGE_LENGTH, NUM_PRIORITIES};
pub use ip::{IpRepr, PROTOCOL_HOMA, PROTOCOL_TCP};
pub use ipv4::{Ipv4Packet, Ipv4Repr};
pub use ipv6::{Ipv6Packet, Ipv6Repr};
pub use packet_type::PacketType;
pub use repr::{AckEntry, Acks, Body, Cutoffs, Data, Grant, Repr, Resend};

/// Byte-range field modules, public so that the hardware generator computes its byte-lane
/// selects from them instead of re-typing offsets.
pub mod field {
    pub use super::ethernet::field as ethernet;
    pub use super::homa::field as homa;
    pub use super::ipv4::field as ipv4;
    pub use super::ipv6::field as ipv6;
}

/// A range of bytes inside a header.
pub type Field = core::ops::Range<usize>;
/// The bytes from an offset to the end of the buffer.
pub type Rest = core::ops::RangeFrom<usize>;

/// The protocol layer that rejected a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layer {
    /// Ethernet II header, with its optional 802.1Q tag.
    Ethernet,
    /// IPv4 header.
    Ipv4,
    /// IPv6 header.
    Ipv6,
    /// The Homa header (common header plus the type-specific part).
    Homa,
}

impl core::fmt::Display for Layer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Layer::Ethernet => "Ethernet",
            Layer::Ipv4 => "IPv4",
            Layer::Ipv6 => "IPv6",
            Layer::Homa => "Homa",
        })
    }
}

/// Why a frame was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reason {
    /// The buffer ends before the header (or the length a header announces) does.
    Truncated,
    /// The IP version nibble is not the one the EtherType announced.
    BadVersion,
    /// A Homa packet type outside 0x10..=0x18.
    BadType,
    /// Length fields that disagree with each other or exceed Homa's limits.
    BadLength,
    /// The IPv4 header checksum does not verify.
    BadChecksum,
    /// A field holds a value outside its range (a priority above 7).
    BadValue,
    /// A well-formed frame that is not Homa (another EtherType, IP protocol or next header).
    NotHoma,
    /// A form this parser deliberately does not take: IP fragments, IPv6 extension headers,
    /// stacked VLAN tags.
    Unsupported,
}

impl core::fmt::Display for Reason {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Reason::Truncated => "truncated",
            Reason::BadVersion => "bad IP version",
            Reason::BadType => "bad packet type",
            Reason::BadLength => "bad length",
            Reason::BadChecksum => "bad header checksum",
            Reason::BadValue => "field value out of range",
            Reason::NotHoma => "not Homa",
            Reason::Unsupported => "unsupported",
        })
    }
}

/// A parse failure: which layer, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[error("{layer}: {reason}")]
pub struct Error {
    /// The layer whose header was rejected.
    pub layer: Layer,
    /// Why it was rejected.
    pub reason: Reason,
}

impl Error {
    /// An error of `layer` for `reason`.
    pub const fn new(layer: Layer, reason: Reason) -> Self {
        Error { layer, reason }
    }
}

/// The result of parsing wire bytes.
pub type Result<T> = core::result::Result<T, Error>;

/// Reads a big-endian `u16` at `range` (which must be 2 bytes long and in bounds).
pub(crate) fn be16(buf: &[u8], range: Field) -> u16 {
    let mut b = [0u8; 2];
    b.copy_from_slice(&buf[range]);
    u16::from_be_bytes(b)
}

/// Reads a big-endian `u32` at `range` (4 bytes, in bounds).
pub(crate) fn be32(buf: &[u8], range: Field) -> u32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&buf[range]);
    u32::from_be_bytes(b)
}

/// Reads a big-endian `u64` at `range` (8 bytes, in bounds).
pub(crate) fn be64(buf: &[u8], range: Field) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&buf[range]);
    u64::from_be_bytes(b)
}
