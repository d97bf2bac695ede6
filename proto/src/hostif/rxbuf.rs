//! RX buffer descriptor (host → NIC, 16 bytes): one host buffer the NIC may fill with
//! received payload.

use super::bytes::{put, u32_at, u64_at};
use super::{Field, HostifError, Layout, Status};
use std::fmt;

/// Size of an RX buffer descriptor in bytes.
pub const RX_BUF_DESC_LEN: usize = 16;

const NAME: &str = "RX buffer descriptor";

pub(super) mod field {
    use super::Field;

    pub(crate) const IOVA: Field = Field {
        name: "iova",
        offset: 0,
        len: 8,
        doc: "IOVA of the buffer's first byte.",
    };
    pub(crate) const LENGTH: Field = Field {
        name: "length",
        offset: 8,
        len: 4,
        doc: "Buffer size in bytes (> 0).",
    };
    pub(crate) const BUFFER_ID: Field = Field {
        name: "buffer_id",
        offset: 12,
        len: 4,
        doc: "Opaque to the NIC; returned in the RX_DATA completion that fills the buffer.",
    };

    pub(crate) const ALL: &[Field] = &[IOVA, LENGTH, BUFFER_ID];
}

const _: () = assert!(field::BUFFER_ID.end() == RX_BUF_DESC_LEN);

pub(super) const LAYOUT: Layout = Layout {
    name: NAME,
    size: RX_BUF_DESC_LEN,
    doc: "Host → NIC. A buffer the NIC fills with received payload; each buffer holds data \
          of one DATA packet and comes back in exactly one completion (RX_DATA, or ERROR when it \
          is too small for the packet).",
    fields: field::ALL,
};

/// An RX buffer descriptor, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RxBufDescriptor {
    /// IOVA of the buffer.
    pub iova: u64,
    /// Size in bytes (> 0).
    pub length: u32,
    /// Returned in the completion.
    pub buffer_id: u32,
}

impl RxBufDescriptor {
    /// Writes the descriptor into `buf`.
    pub fn encode(&self, buf: &mut [u8; RX_BUF_DESC_LEN]) {
        put(buf, field::IOVA, &self.iova.to_le_bytes());
        put(buf, field::LENGTH, &self.length.to_le_bytes());
        put(buf, field::BUFFER_ID, &self.buffer_id.to_le_bytes());
    }

    /// Reads a descriptor, refusing a zero length.
    pub fn decode(buf: &[u8; RX_BUF_DESC_LEN]) -> Result<RxBufDescriptor, HostifError> {
        let d = RxBufDescriptor {
            iova: u64_at(buf, field::IOVA),
            length: u32_at(buf, field::LENGTH),
            buffer_id: u32_at(buf, field::BUFFER_ID),
        };
        if d.length == 0 {
            return Err(HostifError::ZeroLength {
                layout: NAME,
                field: field::LENGTH.name,
            });
        }
        Ok(d)
    }
}

/// An IOVA range the NIC confines a ring's DMA to: the RX window (QUEUE `rx_window_*`, the
/// driver's RX buffer pool) bounds what received payload may fill, the TX window
/// (`tx_window_*`) what a TX descriptor may have the NIC read. A length of 0 means no window
/// (every IOVA allowed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DmaWindow {
    /// First IOVA of the window.
    pub base: u64,
    /// Bytes in it (0: no window).
    pub len: u64,
}

impl RxBufDescriptor {
    /// Why the NIC refuses this descriptor, if it does: [`Status::BadDescriptor`] for a length
    /// of 0 or a buffer that wraps past the top of the address space, else
    /// [`Status::OutOfBounds`] for a buffer not wholly inside an active `window` (the window
    /// is computed modulo 2^64, as the hardware adds it: one that wraps refuses everything).
    /// A refused descriptor comes back in an `ERROR` completion (ring `RX buffers`, its index,
    /// its `buffer_id` as the cookie); nothing is ever written into it.
    pub fn refusal(&self, window: DmaWindow) -> Option<Status> {
        let end = self.iova.wrapping_add(u64::from(self.length));
        if self.length == 0 || end <= self.iova {
            return Some(Status::BadDescriptor);
        }
        let win_end = window.base.wrapping_add(window.len);
        (window.len != 0 && (self.iova < window.base || end > win_end))
            .then_some(Status::OutOfBounds)
    }
}

impl fmt::Display for RxBufDescriptor {
    /// One line: `RXBUF id=4 iova=0x10000 len=2048`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "RXBUF id={} iova={:#x} len={}",
            self.buffer_id, self.iova, self.length
        )
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const GOLDEN: [u8; RX_BUF_DESC_LEN] = [
        0x00, 0x10, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, // iova
        0x00, 0x08, 0x00, 0x00, // length 2048
        0x04, 0x00, 0x00, 0x00, // buffer_id
    ];

    fn sample() -> RxBufDescriptor {
        RxBufDescriptor {
            iova: 0x1_0000_1000,
            length: 2048,
            buffer_id: 4,
        }
    }

    #[test]
    fn encode__golden() {
        let mut buf = [0xa5; RX_BUF_DESC_LEN];
        sample().encode(&mut buf);
        assert_eq!(buf, GOLDEN);
        assert_eq!(RxBufDescriptor::decode(&GOLDEN), Ok(sample()));
        assert_eq!(sample().to_string(), "RXBUF id=4 iova=0x100001000 len=2048");
    }

    #[test]
    fn decode__refuses_zero_length() {
        let mut b = GOLDEN;
        b[8..12].fill(0);
        assert!(matches!(
            RxBufDescriptor::decode(&b),
            Err(HostifError::ZeroLength {
                field: "length",
                ..
            })
        ));
    }

    #[test]
    fn refusal__bad_descriptors_and_the_window() {
        let d = |iova: u64, length: u32| RxBufDescriptor {
            iova,
            length,
            buffer_id: 9,
        };
        let off = DmaWindow::default();
        let win = DmaWindow {
            base: 0x10_0000,
            len: 0x1_0000,
        };
        assert_eq!(d(0x10_0000, 0).refusal(off), Some(Status::BadDescriptor));
        assert_eq!(
            d(u64::MAX - 10, 11).refusal(off),
            Some(Status::BadDescriptor)
        );
        assert_eq!(d(u64::MAX - 10, 10).refusal(off), None);
        assert_eq!(d(5, 100).refusal(off), None);
        assert_eq!(d(0x10_0000, 0x1_0000).refusal(win), None);
        assert_eq!(
            d(0x10_0000, 0x1_0001).refusal(win),
            Some(Status::OutOfBounds)
        );
        assert_eq!(d(0xf_ffff, 2).refusal(win), Some(Status::OutOfBounds));
        assert_eq!(d(0x10_ffff, 1).refusal(win), None);
        assert_eq!(d(0x11_0000, 1).refusal(win), Some(Status::OutOfBounds));
        assert_eq!(d(0x10_0000, 0).refusal(win), Some(Status::BadDescriptor));
    }

    proptest! {
        #[test]
        fn encode_decode__round_trip(iova in any::<u64>(), length in 1..=u32::MAX, id in any::<u32>()) {
            let d = RxBufDescriptor { iova, length, buffer_id: id };
            let mut buf = [0xa5; RX_BUF_DESC_LEN];
            d.encode(&mut buf);
            prop_assert_eq!(RxBufDescriptor::decode(&buf), Ok(d));
        }
    }
}
