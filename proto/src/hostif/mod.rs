//! The host-queue contract between the driver and the NIC, defined once: descriptor and
//! completion layouts and the ring arithmetic both sides share.
//!
//! Three rings live in host memory that the NIC reaches by DMA; their base IOVA, size and
//! indices are QUEUE registers ([`crate::regs`]):
//!
//! ```text
//!  ring                 entry                    producer     consumer
//!  TX descriptors       TxDescriptor, 64 B       host         NIC
//!  RX buffers           RxBufDescriptor, 16 B    host         NIC
//!  completions          Completion, 64 B         NIC          host
//! ```
//!
//! Design notes:
//!
//! - Every layout is a fixed little-endian byte layout described by a table of [`Field`]s
//!   (name, offset, length): the encoder, the decoder, the hardware packing and
//!   `docs/hostif.md` ([`markdown`]) all read the same table, and compile-time assertions pin
//!   each layout's size. Addresses (IPv6, or IPv4 mapped into IPv6) are the one exception to
//!   little-endian: they are stored in network byte order, as on the wire.
//! - Reserved bytes and bits are written as zero and must read as zero: a decoder refuses
//!   anything else, so a field can later be given a meaning without ambiguity.
//! - Ring indices are free-running `u32` counters; the slot is `index mod size`
//!   ([`RingState::wrap`]). The NIC-written completion ring needs no producer register: each
//!   entry carries a phase bit in its last byte that flips on every pass over the ring
//!   ([`RingState::phase`]), so the host sees a new entry when its phase matches the pass it
//!   expects. The NIC writes the last byte last.
//!
//! Panic contract: `encode`/`decode` work on fixed-size arrays whose field offsets are
//! checked at compile time, so they cannot panic; every malformed input is a
//! [`HostifError`].

mod completion;
pub mod onchip;
mod ring;
mod rxbuf;
mod tx;

pub use completion::{
    ACKS_CARRIED, COMPLETION_LEN, CONTROL_BODY_LEN, Completion, CompletionKind, ErrorRing, Event,
    PacketHeader, Status, control_window,
};
pub use ring::{MAX_LOG2_SIZE, MIN_LOG2_SIZE, RingState};
pub use rxbuf::{DmaWindow, RX_BUF_DESC_LEN, RxBufDescriptor};
pub use tx::field as tx_field;
pub use tx::{TX_DESC_LEN, TxDescriptor, TxFlags, TxLimits, TxOp, TxOpcode};

use std::net::{IpAddr, Ipv6Addr};

/// Why a descriptor, a completion or a ring operation was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum HostifError {
    /// A TX descriptor's opcode is not one of [`TxOpcode`].
    #[error("unknown TX descriptor opcode {0}")]
    UnknownOpcode(u8),
    /// A completion's kind is not one of [`CompletionKind`].
    #[error("unknown completion kind {0}")]
    UnknownKind(u8),
    /// A `CONTROL` completion's packet type is DATA or not a Homa type.
    #[error("CONTROL completion for packet type {0:#04x}, which is not a control type")]
    NotControl(u8),
    /// A completion's status is not one of [`Status`].
    #[error("unknown completion status {0}")]
    UnknownStatus(u8),
    /// A reserved field or bit was not zero.
    #[error("reserved {layout} field `{field}` is not zero")]
    Reserved {
        /// The layout ("TX descriptor", ...).
        layout: &'static str,
        /// The field.
        field: &'static str,
    },
    /// A retransmit range does not lie inside its message.
    #[error("retransmit range {offset}+{length} is outside the {message_length}-byte message")]
    RetransmitRange {
        /// First byte to send again.
        offset: u32,
        /// Bytes to send again.
        length: u32,
        /// The message's length.
        message_length: u32,
    },
    /// A length that must be positive was zero.
    #[error("{layout} field `{field}` is zero")]
    ZeroLength {
        /// The layout.
        layout: &'static str,
        /// The field.
        field: &'static str,
    },
    /// A ring size outside [`MIN_LOG2_SIZE`]..=[`MAX_LOG2_SIZE`] (as log2 of the entry count).
    #[error("ring size 2^{0} is outside 2^{MIN_LOG2_SIZE}..=2^{MAX_LOG2_SIZE} entries")]
    RingSize(u8),
    /// The ring has no free slot.
    #[error("ring full: all {0} slots are in use")]
    RingFull(u32),
    /// The ring has no entry to consume.
    #[error("ring empty")]
    RingEmpty,
    /// An index reported by the other side is not one it could have reached.
    #[error("{which} index {index} is outside {low}..={high}")]
    IndexOutOfRange {
        /// "producer" or "consumer".
        which: &'static str,
        /// The index reported.
        index: u32,
        /// The lowest acceptable value.
        low: u32,
        /// The highest acceptable value (modulo 2^32).
        high: u32,
    },
}

/// One field of a fixed layout: what [`markdown`] prints and what the codecs index by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// Name, lower snake case; `reserved*` fields must be zero.
    pub name: &'static str,
    /// Byte offset from the start of the entry.
    pub offset: usize,
    /// Length in bytes.
    pub len: usize,
    /// What it holds.
    pub doc: &'static str,
}

impl Field {
    /// One past the last byte.
    pub const fn end(&self) -> usize {
        self.offset + self.len
    }
}

/// A fixed layout: its name, size and fields in address order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Name, as in the reference ("TX descriptor").
    pub name: &'static str,
    /// Size in bytes.
    pub size: usize,
    /// What it is for.
    pub doc: &'static str,
    /// The fields, in address order, tiling `0..size`.
    pub fields: &'static [Field],
}

/// Every layout, for the reference and the tests. The completion has one per kind.
pub static LAYOUTS: &[Layout] = &[
    tx::LAYOUT,
    rxbuf::LAYOUT,
    completion::LAYOUT_TX_DONE,
    completion::LAYOUT_RX_DATA,
    completion::LAYOUT_ERROR,
    completion::LAYOUT_CONTROL,
    completion::LAYOUT_GRANT_SENT,
];

/// The address stored for `ip` in a peer field: IPv6 as is, IPv4 mapped (`::ffff:a.b.c.d`).
pub fn peer_address(ip: IpAddr) -> Ipv6Addr {
    match ip {
        IpAddr::V4(v4) => v4.to_ipv6_mapped(),
        IpAddr::V6(v6) => v6,
    }
}

/// The address a peer field stands for: IPv4-mapped addresses come back as IPv4.
pub fn peer_ip(stored: Ipv6Addr) -> IpAddr {
    stored.to_canonical()
}

/// Little-endian accessors over a fixed entry. Offsets come from `const` [`Field`]s whose
/// bounds are asserted at compile time beside each layout, so the indexing cannot fail.
mod bytes {
    use super::Field;

    pub(super) fn get<const W: usize>(buf: &[u8], f: Field) -> [u8; W] {
        let mut out = [0u8; W];
        out.copy_from_slice(&buf[f.offset..f.offset + W]);
        out
    }

    pub(super) fn put(buf: &mut [u8], f: Field, bytes: &[u8]) {
        buf[f.offset..f.offset + bytes.len()].copy_from_slice(bytes);
    }

    pub(super) fn u8_at(buf: &[u8], f: Field) -> u8 {
        buf[f.offset]
    }

    pub(super) fn u16_at(buf: &[u8], f: Field) -> u16 {
        u16::from_le_bytes(get(buf, f))
    }

    pub(super) fn u32_at(buf: &[u8], f: Field) -> u32 {
        u32::from_le_bytes(get(buf, f))
    }

    pub(super) fn u64_at(buf: &[u8], f: Field) -> u64 {
        u64::from_le_bytes(get(buf, f))
    }

    /// True when every byte of `f` is zero.
    pub(super) fn is_zero(buf: &[u8], f: Field) -> bool {
        buf[f.offset..f.end()].iter().all(|&b| b == 0)
    }
}

/// Fails unless `f` is all zero.
fn check_reserved(layout: &'static str, buf: &[u8], f: Field) -> Result<(), HostifError> {
    if bytes::is_zero(buf, f) {
        Ok(())
    } else {
        Err(HostifError::Reserved {
            layout,
            field: f.name,
        })
    }
}

/// The layout reference as Markdown (the text of `docs/hostif.md`).
pub fn markdown() -> String {
    let mut s = String::from(
        "# homa-nic host queues\n\n\
         Generated from `proto/src/hostif` — do not edit by hand.\n\n\
         Integers are little-endian; addresses are 16 bytes in network order (IPv4 as \
         `::ffff:a.b.c.d`). Reserved fields are written as zero and refused when not zero. \
         Ring indices are free-running 32-bit counters; the slot is the index modulo the ring \
         size (a power of two). Completion entries carry a phase bit (bit 0 of byte 63) that \
         is 1 on the first pass over the ring and flips on every wrap; the NIC writes byte 63 \
         last.\n",
    );
    for l in LAYOUTS {
        s.push_str(&format!(
            "\n## {} ({} bytes)\n\n{}\n\n| offset | size | name | description |\n|---|---|---|---|\n",
            l.name, l.size, l.doc
        ));
        for f in l.fields {
            s.push_str(&format!(
                "| {} | {} | `{}` | {} |\n",
                f.offset,
                f.len,
                f.name,
                f.doc.replace('|', "\\|")
            ));
        }
    }
    s.push_str(&onchip::markdown());
    s
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn layouts__fields_tile_the_entry_in_order() {
        for l in LAYOUTS {
            let mut at = 0;
            for f in l.fields {
                assert_eq!(
                    f.offset, at,
                    "{}: `{}` leaves a gap or overlaps",
                    l.name, f.name
                );
                assert!(f.len > 0, "{}: `{}` is empty", l.name, f.name);
                if matches!(f.len, 2 | 4 | 8) {
                    assert_eq!(
                        f.offset % f.len,
                        0,
                        "{}: `{}` is misaligned",
                        l.name,
                        f.name
                    );
                }
                at = f.end();
            }
            assert_eq!(at, l.size, "{}: fields do not fill the entry", l.name);
        }
    }

    #[test]
    fn peer_address__maps_ipv4_and_back() {
        let v4: IpAddr = "10.0.0.7".parse().unwrap();
        let stored = peer_address(v4);
        assert_eq!(stored.to_string(), "::ffff:10.0.0.7");
        assert_eq!(peer_ip(stored), v4);
        let v6: IpAddr = "fd00::1".parse().unwrap();
        assert_eq!(peer_ip(peer_address(v6)), v6);
    }

    #[test]
    fn hostif_error__display() {
        assert_eq!(
            HostifError::RingFull(8).to_string(),
            "ring full: all 8 slots are in use"
        );
        assert_eq!(
            HostifError::RingSize(20).to_string(),
            "ring size 2^20 is outside 2^1..=2^16 entries"
        );
    }

    #[test]
    fn markdown__matches_committed_reference() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/hostif.md");
        let text = markdown();
        if std::env::var_os("UPDATE_EXPECT").is_some() {
            std::fs::write(path, &text).unwrap();
        }
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            committed == text,
            "docs/hostif.md is stale: run UPDATE_EXPECT=1 cargo test -p homa-proto hostif"
        );
    }
}
