//! TX descriptor (host → NIC, 64 bytes): one outbound message to send, or a range of one to
//! send again.

mod limits;

pub use limits::TxLimits;

use super::bytes::{put, u8_at, u16_at, u32_at, u64_at};
use super::{Field, HostifError, Layout, check_reserved, peer_ip};
use std::fmt;
use std::net::Ipv6Addr;

/// Size of a TX descriptor in bytes.
pub const TX_DESC_LEN: usize = 64;

const NAME: &str = "TX descriptor";

/// Byte layout. Order and widths keep every integer naturally aligned. Public (as
/// `hostif::tx_field`) so that the hardware takes its byte selects from here.
pub mod field {
    use super::Field;

    const fn f(name: &'static str, offset: usize, len: usize, doc: &'static str) -> Field {
        Field {
            name,
            offset,
            len,
            doc,
        }
    }

    /// The `opcode` field (see `docs/hostif.md`).
    pub const OPCODE: Field = f(
        "opcode",
        0,
        1,
        "1 = SEND_MESSAGE, 2 = RETRANSMIT, 3 = CANCEL.",
    );
    /// The `flags` field (see `docs/hostif.md`).
    pub const FLAGS: Field = f(
        "flags",
        1,
        1,
        "Bit 0: NO_COMPLETION, post no TX_DONE completion. Bits 7-1 reserved (0).",
    );
    /// The `src_port` field (see `docs/hostif.md`).
    pub const SRC_PORT: Field = f("src_port", 2, 2, "Homa source port (local).");
    /// The `dst_port` field (see `docs/hostif.md`).
    pub const DST_PORT: Field = f("dst_port", 4, 2, "Homa destination port (peer's).");
    /// The `reserved0` field (see `docs/hostif.md`).
    pub const RESERVED0: Field = f("reserved0", 6, 2, "Zero.");
    /// The `rpc_id` field (see `docs/hostif.md`).
    pub const RPC_ID: Field = f("rpc_id", 8, 8, "Homa RPC id.");
    /// The `peer` field (see `docs/hostif.md`).
    pub const PEER: Field = f(
        "peer",
        16,
        16,
        "Peer address, network order; IPv4 as `::ffff:a.b.c.d`. The NIC frames IPv4 only: \
         any other address is refused (ERROR, status 5).",
    );
    /// The `message_length` field (see `docs/hostif.md`).
    pub const MESSAGE_LENGTH: Field = f(
        "message_length",
        32,
        4,
        "Length of the whole message in bytes (> 0).",
    );
    /// The `reserved1` field (see `docs/hostif.md`).
    pub const RESERVED1: Field = f("reserved1", 36, 4, "Zero.");
    /// The `payload_iova` field (see `docs/hostif.md`).
    pub const PAYLOAD_IOVA: Field = f(
        "payload_iova",
        40,
        8,
        "IOVA of the first byte of the message in host memory (contiguous).",
    );
    /// The `retransmit_offset` field (see `docs/hostif.md`).
    pub const RETRANSMIT_OFFSET: Field = f(
        "retransmit_offset",
        48,
        4,
        "RETRANSMIT: first byte to send again; SEND_MESSAGE and CANCEL: 0.",
    );
    /// The `retransmit_length` field (see `docs/hostif.md`).
    pub const RETRANSMIT_LENGTH: Field = f(
        "retransmit_length",
        52,
        4,
        "RETRANSMIT: bytes to send again (> 0, inside the message); SEND_MESSAGE and CANCEL: 0.",
    );
    /// The `cookie` field (see `docs/hostif.md`).
    pub const COOKIE: Field = f(
        "cookie",
        56,
        8,
        "Opaque to the NIC; echoed in the TX_DONE or ERROR completion.",
    );

    /// Every field, in address order.
    pub const ALL: &[Field] = &[
        OPCODE,
        FLAGS,
        SRC_PORT,
        DST_PORT,
        RESERVED0,
        RPC_ID,
        PEER,
        MESSAGE_LENGTH,
        RESERVED1,
        PAYLOAD_IOVA,
        RETRANSMIT_OFFSET,
        RETRANSMIT_LENGTH,
        COOKIE,
    ];
}

const _: () = assert!(field::COOKIE.end() == TX_DESC_LEN);

pub(super) const LAYOUT: Layout = Layout {
    name: NAME,
    size: TX_DESC_LEN,
    doc: "Host → NIC. One outbound message for the SRPT scheduler, or (RETRANSMIT) a range of \
          one to send again after a RESEND (the host posts none whose range a RETRANSMIT of the \
          same RPC, waiting or still out, holds: the receiver asked again before the first was \
          sent), or (CANCEL) the end of everything the NIC still \
          holds of an RPC. The payload stays in host memory until the TX_DONE completion. \
          CANCEL (the RPC ended early: aborted, timed out, forgotten by the peer): every \
          SEND_MESSAGE and RETRANSMIT of the same peer and rpc_id the NIC holds sends at most \
          one more byte (the packet after which its TX_DONE follows, once no read of its \
          payload is outstanding) and frees its slot; a CANCEL is checked as a SEND_MESSAGE \
          (give it the length and payload IOVA of one of the RPC's descriptors still out), \
          reads no payload and has no completion of its own (an ERROR if refused).",
    fields: field::ALL,
};

/// The descriptor's operation code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum TxOpcode {
    /// Send a whole message.
    SendMessage = 1,
    /// Send a range of a message again.
    Retransmit = 2,
    /// Stop sending an RPC's message.
    Cancel = 3,
}

impl TxOpcode {
    /// The opcode for a byte, if known.
    pub const fn from_u8(v: u8) -> Option<TxOpcode> {
        match v {
            1 => Some(TxOpcode::SendMessage),
            2 => Some(TxOpcode::Retransmit),
            3 => Some(TxOpcode::Cancel),
            _ => None,
        }
    }
}

/// What to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TxOp {
    /// The whole message.
    SendMessage,
    /// Bytes `offset..offset + length` of the message, again.
    Retransmit {
        /// First byte.
        offset: u32,
        /// Number of bytes (> 0).
        length: u32,
    },
    /// Stop sending everything of this RPC (see the layout's doc).
    Cancel,
}

impl TxOp {
    /// The opcode byte.
    pub const fn opcode(self) -> TxOpcode {
        match self {
            TxOp::SendMessage => TxOpcode::SendMessage,
            TxOp::Retransmit { .. } => TxOpcode::Retransmit,
            TxOp::Cancel => TxOpcode::Cancel,
        }
    }

    /// Whether a descriptor asking for `self` sends every byte `other` asks for, from its
    /// start: a RETRANSMIT whose range holds `other`'s, a RETRANSMIT. (A SEND_MESSAGE covers
    /// nothing: the engine may have sent the range already, and sends it no more.)
    pub const fn covers(self, other: TxOp) -> bool {
        match (self, other) {
            (
                TxOp::Retransmit { offset, length },
                TxOp::Retransmit {
                    offset: o,
                    length: l,
                },
            ) => offset <= o && offset as u64 + length as u64 >= o as u64 + l as u64,
            _ => false,
        }
    }
}

/// Descriptor flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TxFlags(pub u8);

impl TxFlags {
    /// Post no TX_DONE completion for this descriptor (errors are still reported).
    pub const NO_COMPLETION: TxFlags = TxFlags(0x01);
    /// Every defined bit.
    pub const KNOWN: TxFlags = TxFlags(0x01);

    /// True when every bit of `other` is set.
    pub const fn contains(self, other: TxFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

/// A TX descriptor, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TxDescriptor {
    /// What to send.
    pub op: TxOp,
    /// Flags.
    pub flags: TxFlags,
    /// Homa RPC id.
    pub rpc_id: u64,
    /// Peer address (IPv4 mapped, see [`super::peer_address`]).
    pub peer: Ipv6Addr,
    /// Local Homa port.
    pub src_port: u16,
    /// Peer's Homa port.
    pub dst_port: u16,
    /// Length of the whole message.
    pub message_length: u32,
    /// IOVA of the message's first byte.
    pub payload_iova: u64,
    /// Echoed in the completion.
    pub cookie: u64,
}

impl TxDescriptor {
    /// Fails when the descriptor breaks a rule [`decode`](Self::decode) enforces: a zero
    /// message length, or a retransmit range that is empty or outside the message.
    pub fn check(&self) -> Result<(), HostifError> {
        if self.message_length == 0 {
            return Err(HostifError::ZeroLength {
                layout: NAME,
                field: field::MESSAGE_LENGTH.name,
            });
        }
        if self.flags.0 & !TxFlags::KNOWN.0 != 0 {
            return Err(HostifError::Reserved {
                layout: NAME,
                field: field::FLAGS.name,
            });
        }
        if let TxOp::Retransmit { offset, length } = self.op {
            if length == 0 {
                return Err(HostifError::ZeroLength {
                    layout: NAME,
                    field: field::RETRANSMIT_LENGTH.name,
                });
            }
            if u64::from(offset) + u64::from(length) > u64::from(self.message_length) {
                return Err(HostifError::RetransmitRange {
                    offset,
                    length,
                    message_length: self.message_length,
                });
            }
        }
        Ok(())
    }

    /// Writes the descriptor into `buf`, every byte (reserved ones as zero). Writes what it
    /// is given: use [`check`](Self::check) first to refuse what `decode` would refuse.
    pub fn encode(&self, buf: &mut [u8; TX_DESC_LEN]) {
        buf.fill(0);
        let (offset, length) = match self.op {
            TxOp::SendMessage | TxOp::Cancel => (0, 0),
            TxOp::Retransmit { offset, length } => (offset, length),
        };
        put(buf, field::OPCODE, &[self.op.opcode() as u8]);
        put(buf, field::FLAGS, &[self.flags.0]);
        put(buf, field::SRC_PORT, &self.src_port.to_le_bytes());
        put(buf, field::DST_PORT, &self.dst_port.to_le_bytes());
        put(buf, field::RPC_ID, &self.rpc_id.to_le_bytes());
        put(buf, field::PEER, &self.peer.octets());
        put(
            buf,
            field::MESSAGE_LENGTH,
            &self.message_length.to_le_bytes(),
        );
        put(buf, field::PAYLOAD_IOVA, &self.payload_iova.to_le_bytes());
        put(buf, field::RETRANSMIT_OFFSET, &offset.to_le_bytes());
        put(buf, field::RETRANSMIT_LENGTH, &length.to_le_bytes());
        put(buf, field::COOKIE, &self.cookie.to_le_bytes());
    }

    /// Reads a descriptor, refusing unknown opcodes, non-zero reserved fields and bits, and
    /// the rules of [`check`](Self::check).
    pub fn decode(buf: &[u8; TX_DESC_LEN]) -> Result<TxDescriptor, HostifError> {
        check_reserved(NAME, buf, field::RESERVED0)?;
        check_reserved(NAME, buf, field::RESERVED1)?;
        let raw_op = u8_at(buf, field::OPCODE);
        let offset = u32_at(buf, field::RETRANSMIT_OFFSET);
        let length = u32_at(buf, field::RETRANSMIT_LENGTH);
        let op = match TxOpcode::from_u8(raw_op) {
            Some(TxOpcode::SendMessage) => {
                check_reserved(NAME, buf, field::RETRANSMIT_OFFSET)?;
                check_reserved(NAME, buf, field::RETRANSMIT_LENGTH)?;
                TxOp::SendMessage
            }
            Some(TxOpcode::Retransmit) => TxOp::Retransmit { offset, length },
            Some(TxOpcode::Cancel) => {
                check_reserved(NAME, buf, field::RETRANSMIT_OFFSET)?;
                check_reserved(NAME, buf, field::RETRANSMIT_LENGTH)?;
                TxOp::Cancel
            }
            None => return Err(HostifError::UnknownOpcode(raw_op)),
        };
        let desc = TxDescriptor {
            op,
            flags: TxFlags(u8_at(buf, field::FLAGS)),
            rpc_id: u64_at(buf, field::RPC_ID),
            peer: Ipv6Addr::from(super::bytes::get::<16>(buf, field::PEER)),
            src_port: u16_at(buf, field::SRC_PORT),
            dst_port: u16_at(buf, field::DST_PORT),
            message_length: u32_at(buf, field::MESSAGE_LENGTH),
            payload_iova: u64_at(buf, field::PAYLOAD_IOVA),
            cookie: u64_at(buf, field::COOKIE),
        };
        desc.check()?;
        Ok(desc)
    }
}

impl fmt::Display for TxDescriptor {
    /// One line: `SEND id=7 peer=10.0.0.2 ports=1000->99 len=5000 iova=0x10000 cookie=3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.op {
            TxOp::SendMessage => write!(f, "SEND")?,
            TxOp::Retransmit { offset, length } => write!(f, "RETRANSMIT {offset}+{length}")?,
            TxOp::Cancel => write!(f, "CANCEL")?,
        }
        write!(
            f,
            " id={} peer={} ports={}->{} len={} iova={:#x} cookie={}",
            self.rpc_id,
            peer_ip(self.peer),
            self.src_port,
            self.dst_port,
            self.message_length,
            self.payload_iova,
            self.cookie
        )?;
        if self.flags.contains(TxFlags::NO_COMPLETION) {
            write!(f, " no-completion")?;
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use crate::hostif::peer_address;
    use proptest::prelude::*;

    fn sample() -> TxDescriptor {
        TxDescriptor {
            op: TxOp::SendMessage,
            flags: TxFlags::default(),
            rpc_id: 0x0102_0304_0506_0708,
            peer: peer_address("10.0.0.2".parse().unwrap()),
            src_port: 0x1234,
            dst_port: 99,
            message_length: 5000,
            payload_iova: 0x1_0000_2000,
            cookie: 0xdead_beef,
        }
    }

    const GOLDEN_SEND: [u8; TX_DESC_LEN] = [
        0x01, 0x00, 0x34, 0x12, 0x63, 0x00, 0x00, 0x00, // opcode flags src dst reserved
        0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, // rpc_id
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 2, // peer
        0x88, 0x13, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // message_length reserved1
        0x00, 0x20, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, // payload_iova
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // retransmit offset/length
        0xef, 0xbe, 0xad, 0xde, 0x00, 0x00, 0x00, 0x00, // cookie
    ];

    #[test]
    fn encode__golden_send_message() {
        let mut buf = [0xa5; TX_DESC_LEN];
        sample().encode(&mut buf);
        assert_eq!(buf, GOLDEN_SEND);
        assert_eq!(TxDescriptor::decode(&GOLDEN_SEND), Ok(sample()));
        assert_eq!(
            sample().to_string(),
            "SEND id=72623859790382856 peer=10.0.0.2 ports=4660->99 len=5000 \
             iova=0x100002000 cookie=3735928559"
        );
    }

    #[test]
    fn encode__golden_retransmit() {
        let d = TxDescriptor {
            op: TxOp::Retransmit {
                offset: 1400,
                length: 2800,
            },
            flags: TxFlags::NO_COMPLETION,
            ..sample()
        };
        let mut buf = [0xa5; TX_DESC_LEN];
        d.encode(&mut buf);
        let mut want = GOLDEN_SEND;
        want[0] = 2;
        want[1] = 1;
        want[48..52].copy_from_slice(&[0x78, 0x05, 0, 0]);
        want[52..56].copy_from_slice(&[0xf0, 0x0a, 0, 0]);
        assert_eq!(buf, want);
        assert_eq!(TxDescriptor::decode(&buf), Ok(d));
        assert!(d.to_string().starts_with("RETRANSMIT 1400+2800 id="));
        assert!(d.to_string().ends_with(" no-completion"));
    }

    #[test]
    fn decode__refuses_unknown_opcode_and_reserved() {
        let mut b = GOLDEN_SEND;
        b[0] = 4;
        assert_eq!(TxDescriptor::decode(&b), Err(HostifError::UnknownOpcode(4)));
        // CANCEL: a SEND_MESSAGE's fields, retransmit fields zero.
        b[0] = 3;
        let cancel = TxDescriptor::decode(&b).expect("a CANCEL");
        assert_eq!(cancel.op, TxOp::Cancel);
        assert!(cancel.to_string().starts_with("CANCEL id="));
        b[52] = 1;
        assert!(matches!(
            TxDescriptor::decode(&b),
            Err(HostifError::Reserved {
                field: "retransmit_length",
                ..
            })
        ));
        let mut b = GOLDEN_SEND;
        b[1] = 0x80;
        assert!(matches!(
            TxDescriptor::decode(&b),
            Err(HostifError::Reserved { field: "flags", .. })
        ));
        let mut b = GOLDEN_SEND;
        b[7] = 1;
        assert!(matches!(
            TxDescriptor::decode(&b),
            Err(HostifError::Reserved {
                field: "reserved0",
                ..
            })
        ));
        let mut b = GOLDEN_SEND;
        b[37] = 1;
        assert!(matches!(
            TxDescriptor::decode(&b),
            Err(HostifError::Reserved {
                field: "reserved1",
                ..
            })
        ));
        let mut b = GOLDEN_SEND;
        b[50] = 1; // a retransmit offset on a SEND_MESSAGE
        assert!(matches!(
            TxDescriptor::decode(&b),
            Err(HostifError::Reserved {
                field: "retransmit_offset",
                ..
            })
        ));
    }

    #[test]
    fn decode__refuses_bad_lengths() {
        let mut b = GOLDEN_SEND;
        b[32..36].fill(0);
        assert!(matches!(
            TxDescriptor::decode(&b),
            Err(HostifError::ZeroLength {
                field: "message_length",
                ..
            })
        ));
        let mut d = sample();
        d.op = TxOp::Retransmit {
            offset: 4000,
            length: 1001,
        };
        d.encode(&mut b);
        assert_eq!(
            TxDescriptor::decode(&b),
            Err(HostifError::RetransmitRange {
                offset: 4000,
                length: 1001,
                message_length: 5000
            })
        );
        d.op = TxOp::Retransmit {
            offset: 0,
            length: 0,
        };
        d.encode(&mut b);
        assert!(matches!(
            TxDescriptor::decode(&b),
            Err(HostifError::ZeroLength {
                field: "retransmit_length",
                ..
            })
        ));
    }

    fn arb_desc() -> impl Strategy<Value = TxDescriptor> {
        (
            any::<u64>(),
            any::<[u8; 16]>(),
            any::<(u16, u16)>(),
            1..=u32::MAX,
            any::<(u64, u64, bool, bool)>(),
            any::<(u32, u32)>(),
        )
            .prop_map(
                |(rpc_id, peer, (src, dst), len, (iova, cookie, retx, quiet), (a, b))| {
                    let op = if retx {
                        let offset = a % len;
                        let length = 1 + b % (len - offset);
                        TxOp::Retransmit { offset, length }
                    } else if b % 4 == 0 {
                        TxOp::Cancel
                    } else {
                        TxOp::SendMessage
                    };
                    TxDescriptor {
                        op,
                        flags: if quiet {
                            TxFlags::NO_COMPLETION
                        } else {
                            TxFlags::default()
                        },
                        rpc_id,
                        peer: Ipv6Addr::from(peer),
                        src_port: src,
                        dst_port: dst,
                        message_length: len,
                        payload_iova: iova,
                        cookie,
                    }
                },
            )
    }

    proptest! {
        #[test]
        fn encode_decode__round_trip(d in arb_desc()) {
            let mut buf = [0xa5; TX_DESC_LEN];
            d.encode(&mut buf);
            prop_assert_eq!(TxDescriptor::decode(&buf), Ok(d));
        }

        #[test]
        fn decode__never_panics(bytes in any::<[u8; 32]>(), more in any::<[u8; 32]>()) {
            let mut buf = [0u8; TX_DESC_LEN];
            buf[..32].copy_from_slice(&bytes);
            buf[32..].copy_from_slice(&more);
            if let Ok(d) = TxDescriptor::decode(&buf) {
                let mut again = [0u8; TX_DESC_LEN];
                d.encode(&mut again);
                prop_assert_eq!(again, buf);
            }
        }
    }
}
