//! Completion (NIC → host, 64 bytes): what the NIC reports back, one entry per event.
//!
//! Design notes: the RPC id, kind, status and phase sit at fixed places; the body depends on
//! the kind. Receive data is reported per buffer (`RX_DATA`): one DATA packet's payload in one
//! posted buffer, with everything the host needs to place it (the sender's address and port,
//! the RPC id, the offset, the message's length). The host reassembles messages itself: the
//! NIC's message table may forget a hole (see `GRANT.holes_forgotten`), so only the host knows
//! when every byte of a message is in. Kind 3 is not used: it was `RX_MESSAGE_COMPLETE` in the
//! 32-byte layout of QUEUE version 1, retired for that reason.

use super::bytes::{get, put, u8_at, u16_at, u32_at, u64_at};
use super::{Field, HostifError, Layout, check_reserved, peer_ip};
use std::fmt;
use std::net::Ipv6Addr;

/// Size of a completion in bytes.
pub const COMPLETION_LEN: usize = 64;

const NAME: &str = "completion";

pub(super) mod field {
    use super::Field;

    const fn f(name: &'static str, offset: usize, len: usize, doc: &'static str) -> Field {
        Field {
            name,
            offset,
            len,
            doc,
        }
    }

    // Common to every kind.
    pub(crate) const RPC_ID: Field = f("rpc_id", 0, 8, "Homa RPC id (ERROR: 0 if none).");
    pub(crate) const KIND: Field = f(
        "kind",
        8,
        1,
        "1 = TX_DONE, 2 = RX_DATA, 4 = ERROR (3 is not used).",
    );
    pub(crate) const STATUS: Field = f(
        "status",
        9,
        1,
        "0 ok, 1 out-of-bounds descriptor, 2 message too long, 3 no buffer, 4 table full, \
         5 bad descriptor, 6 DMA error, 7 buffer too small.",
    );
    pub(crate) const PHASE: Field = f(
        "phase",
        63,
        1,
        "Bit 0: phase (1 on the first pass over the ring, flips on each wrap); bits 7-1 \
         reserved (0). Written last.",
    );

    // TX_DONE.
    pub(crate) const TX_RESERVED0: Field = f("reserved0", 10, 2, "Zero.");
    pub(crate) const TX_LENGTH: Field = f("length", 12, 4, "The message's length.");
    pub(crate) const TX_COOKIE: Field = f("cookie", 16, 8, "The TX descriptor's cookie.");
    pub(crate) const TX_RESERVED1: Field = f("reserved1", 24, 39, "Zero.");

    // RX_DATA.
    pub(crate) const RX_FLAGS: Field = f(
        "flags",
        10,
        1,
        "Bit 0: the DATA packet was a retransmission (RESEND answer). Bits 7-1 reserved (0).",
    );
    pub(crate) const RX_RESERVED0: Field = f("reserved0", 11, 1, "Zero.");
    pub(crate) const RX_LENGTH: Field = f(
        "length",
        12,
        4,
        "Payload bytes written into the buffer, from its first byte.",
    );
    pub(crate) const RX_OFFSET: Field = f(
        "offset",
        16,
        4,
        "Offset in the message of the buffer's first byte.",
    );
    pub(crate) const RX_BUFFER_ID: Field =
        f("buffer_id", 20, 4, "The RX buffer descriptor's buffer_id.");
    pub(crate) const RX_MESSAGE_LENGTH: Field =
        f("message_length", 24, 4, "Length of the whole message.");
    pub(crate) const RX_LOCAL_PORT: Field = f(
        "local_port",
        28,
        2,
        "Destination (local) Homa port of the message.",
    );
    pub(crate) const PEER_PORT: Field = f("peer_port", 30, 2, "Sender's (source) Homa port.");
    pub(crate) const PEER: Field = f(
        "peer",
        32,
        16,
        "Sender's address, network order; IPv4 as `::ffff:a.b.c.d`.",
    );
    pub(crate) const RX_RESERVED1: Field = f("reserved1", 48, 15, "Zero.");

    // ERROR.
    pub(crate) const ERR_RESERVED0: Field = f("reserved0", 10, 2, "Zero.");
    pub(crate) const ERR_INDEX: Field = f(
        "index",
        12,
        4,
        "Free-running ring index of the descriptor at fault (0 if none).",
    );
    pub(crate) const ERR_COOKIE: Field = f(
        "cookie",
        16,
        8,
        "TX ring: the descriptor's cookie; RX buffer ring: its buffer_id; else 0.",
    );
    pub(crate) const ERR_RING: Field = f(
        "ring",
        24,
        1,
        "Ring of the descriptor at fault: 0 none, 1 TX descriptors, 2 RX buffers.",
    );
    pub(crate) const ERR_RESERVED1: Field = f("reserved1", 25, 38, "Zero.");
}

const _: () = assert!(field::PHASE.end() == COMPLETION_LEN);
const _: () = assert!(field::TX_RESERVED1.end() == field::PHASE.offset);
const _: () = assert!(field::RX_RESERVED1.end() == field::PHASE.offset);
const _: () = assert!(field::ERR_RESERVED1.end() == field::PHASE.offset);

use field::{KIND, PHASE, RPC_ID, STATUS};

pub(super) const LAYOUT_TX_DONE: Layout = Layout {
    name: "completion TX_DONE",
    size: COMPLETION_LEN,
    doc: "NIC → host. The message of a TX descriptor has left (or, with a non-zero status, \
          was refused); its payload buffer may be reused. None when the descriptor had \
          NO_COMPLETION and the status is ok.",
    fields: &[
        RPC_ID,
        KIND,
        STATUS,
        field::TX_RESERVED0,
        field::TX_LENGTH,
        field::TX_COOKIE,
        field::TX_RESERVED1,
        PHASE,
    ],
};

pub(super) const LAYOUT_RX_DATA: Layout = Layout {
    name: "completion RX_DATA",
    size: COMPLETION_LEN,
    doc: "NIC → host. One RX buffer holds the payload of one DATA packet. A buffer holds data \
          of one packet and comes back in exactly one completion: this one, or an ERROR \
          (buffer too small).",
    fields: &[
        RPC_ID,
        KIND,
        STATUS,
        field::RX_FLAGS,
        field::RX_RESERVED0,
        field::RX_LENGTH,
        field::RX_OFFSET,
        field::RX_BUFFER_ID,
        field::RX_MESSAGE_LENGTH,
        field::RX_LOCAL_PORT,
        field::PEER_PORT,
        field::PEER,
        field::RX_RESERVED1,
        PHASE,
    ],
};

pub(super) const LAYOUT_ERROR: Layout = Layout {
    name: "completion ERROR",
    size: COMPLETION_LEN,
    doc: "NIC → host. Something the NIC refused or lost that no other completion reports: a \
          descriptor it could not use, a message it dropped. The status says what.",
    fields: &[
        RPC_ID,
        KIND,
        STATUS,
        field::ERR_RESERVED0,
        field::ERR_INDEX,
        field::ERR_COOKIE,
        field::ERR_RING,
        field::ERR_RESERVED1,
        PHASE,
    ],
};

/// The kind byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum CompletionKind {
    /// A TX descriptor is done.
    TxDone = 1,
    /// An RX buffer was filled.
    RxData = 2,
    /// An error no other kind reports.
    Error = 4,
}

impl CompletionKind {
    /// The kind for a byte, if known.
    pub const fn from_u8(v: u8) -> Option<CompletionKind> {
        match v {
            1 => Some(CompletionKind::TxDone),
            2 => Some(CompletionKind::RxData),
            4 => Some(CompletionKind::Error),
            _ => None,
        }
    }

    /// The upper-case name used in the reference and in `Display`.
    pub const fn name(self) -> &'static str {
        match self {
            CompletionKind::TxDone => "TX_DONE",
            CompletionKind::RxData => "RX_DATA",
            CompletionKind::Error => "ERROR",
        }
    }
}

/// The status byte: ok, or why the NIC refused or lost something.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Status {
    /// Done as asked.
    Ok = 0,
    /// A descriptor points outside what the NIC may reach (IOVA range, ring index).
    OutOfBounds = 1,
    /// A message is longer than the NIC accepts.
    MessageTooLong = 2,
    /// Payload arrived and no RX buffer was posted; it was dropped.
    NoBuffer = 3,
    /// The NIC's message table is full; the message was dropped.
    TableFull = 4,
    /// A descriptor failed to decode (unknown opcode, reserved bits, bad range).
    BadDescriptor = 5,
    /// A DMA transfer failed.
    DmaError = 6,
    /// An RX buffer was smaller than a packet's payload: the payload was cut at the buffer's
    /// end (nothing is written past it) and the buffer comes back in an ERROR.
    BufferTooSmall = 7,
}

impl Status {
    /// The status for a byte, if known.
    pub const fn from_u8(v: u8) -> Option<Status> {
        match v {
            0 => Some(Status::Ok),
            1 => Some(Status::OutOfBounds),
            2 => Some(Status::MessageTooLong),
            3 => Some(Status::NoBuffer),
            4 => Some(Status::TableFull),
            5 => Some(Status::BadDescriptor),
            6 => Some(Status::DmaError),
            7 => Some(Status::BufferTooSmall),
            _ => None,
        }
    }

    /// Short lower-case name.
    pub const fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::OutOfBounds => "out-of-bounds",
            Status::MessageTooLong => "message-too-long",
            Status::NoBuffer => "no-buffer",
            Status::TableFull => "table-full",
            Status::BadDescriptor => "bad-descriptor",
            Status::DmaError => "dma-error",
            Status::BufferTooSmall => "buffer-too-small",
        }
    }
}

/// The ring whose descriptor an ERROR completion is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ErrorRing {
    /// No descriptor.
    None = 0,
    /// The TX descriptor ring.
    Tx = 1,
    /// The RX buffer ring.
    RxBuf = 2,
}

impl ErrorRing {
    const fn from_u8(v: u8) -> Option<ErrorRing> {
        match v {
            0 => Some(ErrorRing::None),
            1 => Some(ErrorRing::Tx),
            2 => Some(ErrorRing::RxBuf),
            _ => None,
        }
    }
}

/// The kind-specific part of a completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Event {
    /// A TX descriptor is done.
    TxDone {
        /// The message's length.
        length: u32,
        /// The descriptor's cookie.
        cookie: u64,
    },
    /// An RX buffer holds the payload of one DATA packet.
    RxData {
        /// The packet was a retransmission.
        retransmit: bool,
        /// Bytes written into the buffer.
        length: u32,
        /// Offset in the message of the buffer's first byte.
        offset: u32,
        /// The buffer's id.
        buffer_id: u32,
        /// Length of the whole message.
        message_length: u32,
        /// Destination (local) port.
        local_port: u16,
        /// Sender's (source) port.
        peer_port: u16,
        /// Sender's address (IPv4 mapped).
        peer: Ipv6Addr,
    },
    /// An error no other kind reports.
    Error {
        /// The ring of the descriptor at fault.
        ring: ErrorRing,
        /// Its free-running index (0 if none).
        index: u32,
        /// Its cookie or buffer id (0 if none).
        cookie: u64,
    },
}

impl Event {
    /// The kind byte of this event.
    pub const fn kind(&self) -> CompletionKind {
        match self {
            Event::TxDone { .. } => CompletionKind::TxDone,
            Event::RxData { .. } => CompletionKind::RxData,
            Event::Error { .. } => CompletionKind::Error,
        }
    }
}

/// A completion, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Completion {
    /// Homa RPC id.
    pub rpc_id: u64,
    /// Ok, or what went wrong.
    pub status: Status,
    /// The kind and its fields.
    pub event: Event,
    /// The phase bit the NIC wrote ([`super::RingState::phase`] of the entry's index).
    pub phase: bool,
}

impl Completion {
    /// The phase bit of an encoded entry: the byte the host reads first, before the rest.
    pub const fn phase_of(buf: &[u8; COMPLETION_LEN]) -> bool {
        buf[COMPLETION_LEN - 1] & 1 != 0
    }

    /// Writes the completion into `buf`, every byte (reserved ones as zero).
    pub fn encode(&self, buf: &mut [u8; COMPLETION_LEN]) {
        buf.fill(0);
        put(buf, RPC_ID, &self.rpc_id.to_le_bytes());
        put(buf, KIND, &[self.event.kind() as u8]);
        put(buf, STATUS, &[self.status as u8]);
        match self.event {
            Event::TxDone { length, cookie } => {
                put(buf, field::TX_LENGTH, &length.to_le_bytes());
                put(buf, field::TX_COOKIE, &cookie.to_le_bytes());
            }
            Event::RxData {
                retransmit,
                length,
                offset,
                buffer_id,
                message_length,
                local_port,
                peer_port,
                peer,
            } => {
                put(buf, field::RX_FLAGS, &[u8::from(retransmit)]);
                put(buf, field::RX_LENGTH, &length.to_le_bytes());
                put(buf, field::RX_OFFSET, &offset.to_le_bytes());
                put(buf, field::RX_BUFFER_ID, &buffer_id.to_le_bytes());
                put(buf, field::RX_MESSAGE_LENGTH, &message_length.to_le_bytes());
                put(buf, field::RX_LOCAL_PORT, &local_port.to_le_bytes());
                put(buf, field::PEER_PORT, &peer_port.to_le_bytes());
                put(buf, field::PEER, &peer.octets());
            }
            Event::Error {
                ring,
                index,
                cookie,
            } => {
                put(buf, field::ERR_INDEX, &index.to_le_bytes());
                put(buf, field::ERR_COOKIE, &cookie.to_le_bytes());
                put(buf, field::ERR_RING, &[ring as u8]);
            }
        }
        put(buf, PHASE, &[u8::from(self.phase)]);
    }

    /// Reads a completion, refusing unknown kinds and statuses and non-zero reserved fields.
    pub fn decode(buf: &[u8; COMPLETION_LEN]) -> Result<Completion, HostifError> {
        let reserved = |f: Field| check_reserved(NAME, buf, f);
        if u8_at(buf, PHASE) & !1 != 0 {
            return Err(HostifError::Reserved {
                layout: NAME,
                field: PHASE.name,
            });
        }
        let raw_status = u8_at(buf, STATUS);
        let status = Status::from_u8(raw_status).ok_or(HostifError::UnknownStatus(raw_status))?;
        let raw_kind = u8_at(buf, KIND);
        let event = match CompletionKind::from_u8(raw_kind) {
            Some(CompletionKind::TxDone) => {
                reserved(field::TX_RESERVED0)?;
                reserved(field::TX_RESERVED1)?;
                Event::TxDone {
                    length: u32_at(buf, field::TX_LENGTH),
                    cookie: u64_at(buf, field::TX_COOKIE),
                }
            }
            Some(CompletionKind::RxData) => {
                reserved(field::RX_RESERVED0)?;
                reserved(field::RX_RESERVED1)?;
                let flags = u8_at(buf, field::RX_FLAGS);
                if flags & !1 != 0 {
                    return Err(HostifError::Reserved {
                        layout: NAME,
                        field: field::RX_FLAGS.name,
                    });
                }
                Event::RxData {
                    retransmit: flags & 1 != 0,
                    length: u32_at(buf, field::RX_LENGTH),
                    offset: u32_at(buf, field::RX_OFFSET),
                    buffer_id: u32_at(buf, field::RX_BUFFER_ID),
                    message_length: u32_at(buf, field::RX_MESSAGE_LENGTH),
                    local_port: u16_at(buf, field::RX_LOCAL_PORT),
                    peer_port: u16_at(buf, field::PEER_PORT),
                    peer: Ipv6Addr::from(get::<16>(buf, field::PEER)),
                }
            }
            Some(CompletionKind::Error) => {
                reserved(field::ERR_RESERVED0)?;
                reserved(field::ERR_RESERVED1)?;
                let ring = ErrorRing::from_u8(u8_at(buf, field::ERR_RING)).ok_or(
                    HostifError::Reserved {
                        layout: NAME,
                        field: field::ERR_RING.name,
                    },
                )?;
                Event::Error {
                    ring,
                    index: u32_at(buf, field::ERR_INDEX),
                    cookie: u64_at(buf, field::ERR_COOKIE),
                }
            }
            None => return Err(HostifError::UnknownKind(raw_kind)),
        };
        Ok(Completion {
            rpc_id: u64_at(buf, RPC_ID),
            status,
            event,
            phase: Completion::phase_of(buf),
        })
    }
}

impl fmt::Display for Completion {
    /// One line: `RX_DATA id=7 from=10.0.0.1:772 port=99 2048@4096/10000 buf=5 status=ok`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} id={}", self.event.kind().name(), self.rpc_id)?;
        match self.event {
            Event::TxDone { length, cookie } => write!(f, " len={length} cookie={cookie}")?,
            Event::RxData {
                retransmit,
                length,
                offset,
                buffer_id,
                message_length,
                local_port,
                peer_port,
                peer,
            } => {
                write!(
                    f,
                    " from={}:{peer_port} port={local_port} {length}@{offset}/{message_length} \
                     buf={buffer_id}",
                    peer_ip(peer)
                )?;
                if retransmit {
                    write!(f, " retransmit")?;
                }
            }
            Event::Error {
                ring,
                index,
                cookie,
            } => write!(f, " ring={ring:?} index={index} cookie={cookie}")?,
        }
        write!(f, " status={}", self.status.name())
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use crate::hostif::peer_address;
    use proptest::prelude::*;

    fn rx_data() -> Completion {
        Completion {
            rpc_id: 7,
            status: Status::Ok,
            event: Event::RxData {
                retransmit: true,
                length: 2048,
                offset: 4096,
                buffer_id: 5,
                message_length: 10000,
                local_port: 99,
                peer_port: 0x0304,
                peer: peer_address("10.0.0.1".parse().unwrap()),
            },
            phase: true,
        }
    }

    const GOLDEN_RX_DATA: [u8; COMPLETION_LEN] = [
        7, 0, 0, 0, 0, 0, 0, 0, // rpc_id
        2, 0, 1, 0, // kind status flags reserved0
        0x00, 0x08, 0, 0, // length
        0x00, 0x10, 0, 0, // offset
        5, 0, 0, 0, // buffer_id
        0x10, 0x27, 0, 0, // message_length
        99, 0, 4, 3, // local_port peer_port
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1, // peer
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // reserved1
        1, // phase
    ];

    #[test]
    fn encode__golden_rx_data() {
        let mut buf = [0xa5; COMPLETION_LEN];
        rx_data().encode(&mut buf);
        assert_eq!(buf, GOLDEN_RX_DATA);
        assert_eq!(Completion::decode(&buf), Ok(rx_data()));
        assert!(Completion::phase_of(&buf));
        assert_eq!(
            rx_data().to_string(),
            "RX_DATA id=7 from=10.0.0.1:772 port=99 2048@4096/10000 buf=5 retransmit status=ok"
        );
    }

    #[test]
    fn encode__golden_other_kinds() {
        let done = Completion {
            rpc_id: 8,
            status: Status::Ok,
            event: Event::TxDone {
                length: 5000,
                cookie: 0x0102_0304_0506_0708,
            },
            phase: false,
        };
        let mut buf = [0xa5; COMPLETION_LEN];
        done.encode(&mut buf);
        let mut want = [0u8; COMPLETION_LEN];
        want[0] = 8;
        want[8] = 1;
        want[12..16].copy_from_slice(&[0x88, 0x13, 0, 0]);
        want[16..24].copy_from_slice(&[8, 7, 6, 5, 4, 3, 2, 1]);
        assert_eq!(buf, want);
        assert_eq!(
            done.to_string(),
            "TX_DONE id=8 len=5000 cookie=72623859790382856 status=ok"
        );

        let err = Completion {
            rpc_id: 0,
            status: Status::BadDescriptor,
            event: Event::Error {
                ring: ErrorRing::Tx,
                index: 17,
                cookie: 4,
            },
            phase: true,
        };
        err.encode(&mut buf);
        let mut want = [0u8; COMPLETION_LEN];
        want[8] = 4;
        want[9] = 5;
        want[12] = 17;
        want[16] = 4;
        want[24] = 1;
        want[63] = 1;
        assert_eq!(buf, want);
        assert_eq!(
            err.to_string(),
            "ERROR id=0 ring=Tx index=17 cookie=4 status=bad-descriptor"
        );
    }

    #[test]
    fn decode__refuses_unknown_and_reserved() {
        let mut b = GOLDEN_RX_DATA;
        b[8] = 9;
        assert_eq!(Completion::decode(&b), Err(HostifError::UnknownKind(9)));
        let mut b = GOLDEN_RX_DATA;
        b[9] = 200;
        assert_eq!(Completion::decode(&b), Err(HostifError::UnknownStatus(200)));
        let mut b = GOLDEN_RX_DATA;
        b[8] = 3;
        assert_eq!(Completion::decode(&b), Err(HostifError::UnknownKind(3)));
        let mut b = GOLDEN_RX_DATA;
        b[63] = 0x03;
        assert!(matches!(
            Completion::decode(&b),
            Err(HostifError::Reserved { field: "phase", .. })
        ));
        let mut b = GOLDEN_RX_DATA;
        b[50] = 1;
        assert!(matches!(
            Completion::decode(&b),
            Err(HostifError::Reserved {
                field: "reserved1",
                ..
            })
        ));
        let mut b = GOLDEN_RX_DATA;
        b[10] = 2;
        assert!(matches!(
            Completion::decode(&b),
            Err(HostifError::Reserved { field: "flags", .. })
        ));
        let mut b = [0u8; COMPLETION_LEN];
        b[8] = 4;
        b[24] = 7;
        assert!(matches!(
            Completion::decode(&b),
            Err(HostifError::Reserved { field: "ring", .. })
        ));
    }

    #[test]
    fn decode__zeroed_entry_is_refused() {
        // Ring memory starts zeroed: kind 0 is never a valid completion.
        assert_eq!(
            Completion::decode(&[0; COMPLETION_LEN]),
            Err(HostifError::UnknownKind(0))
        );
    }

    fn arb_status() -> impl Strategy<Value = Status> {
        (0u8..=7).prop_map(|v| Status::from_u8(v).unwrap_or(Status::Ok))
    }

    fn arb_event() -> impl Strategy<Value = Event> {
        prop_oneof![
            any::<(u32, u64)>().prop_map(|(length, cookie)| Event::TxDone { length, cookie }),
            any::<(bool, u32, u32, u32, u32, u16, u16, [u8; 16])>().prop_map(
                |(r, l, o, b, m, p, pp, a)| Event::RxData {
                    retransmit: r,
                    length: l,
                    offset: o,
                    buffer_id: b,
                    message_length: m,
                    local_port: p,
                    peer_port: pp,
                    peer: Ipv6Addr::from(a),
                }
            ),
            (0u8..=2, any::<(u32, u64)>()).prop_map(|(r, (index, cookie))| Event::Error {
                ring: ErrorRing::from_u8(r).unwrap_or(ErrorRing::None),
                index,
                cookie,
            }),
        ]
    }

    proptest! {
        #[test]
        fn encode_decode__round_trip(
            rpc_id in any::<u64>(),
            status in arb_status(),
            event in arb_event(),
            phase in any::<bool>(),
        ) {
            let c = Completion { rpc_id, status, event, phase };
            let mut buf = [0xa5; COMPLETION_LEN];
            c.encode(&mut buf);
            prop_assert_eq!(Completion::phase_of(&buf), phase);
            prop_assert_eq!(Completion::decode(&buf), Ok(c));
        }

        #[test]
        fn decode__accepted_bytes_encode_back(bytes in any::<[u8; COMPLETION_LEN]>()) {
            if let Ok(c) = Completion::decode(&bytes) {
                let mut again = [0u8; COMPLETION_LEN];
                c.encode(&mut again);
                prop_assert_eq!(again, bytes);
            }
        }
    }
}
