//! Completion (NIC → host, 64 bytes): what the NIC reports back, one entry per event.
//!
//! Design notes: the RPC id, kind, status and phase sit at fixed places; the body depends on
//! the kind. Receive data is reported per buffer (`RX_DATA`): one DATA packet's payload in one
//! posted buffer, with every field of its DATA header (QUEUE version 3), so the host needs
//! nothing but its completions: the sender's address and ports, the RPC id, the offset, the
//! message's length, `incoming`, the `cutoff_version` and the piggybacked ack. Every other
//! packet the NIC accepts reaches the host as a `CONTROL` completion: its type, its addresses,
//! and its type-specific header inline ([`control_window`]). The host reassembles messages
//! itself: the NIC's message table may forget a hole (see `GRANT.holes_forgotten`), so only
//! the host knows when every byte of a message is in. Kind 3 is not used: it was
//! `RX_MESSAGE_COMPLETE` in the 32-byte layout of QUEUE version 1, retired for that reason.
//! With the NIC granting, each GRANT it sends comes back as a `GRANT_SENT` completion (QUEUE
//! version 4), so that the host knows every offset its peers may send up to.

mod packet;
#[cfg(test)]
mod tests;

pub use packet::{ACKS_CARRIED, CONTROL_BODY_LEN, PacketHeader, control_window};

use super::bytes::{get, put, u8_at, u16_at, u32_at, u64_at};
use super::{Field, HostifError, Layout, check_reserved, peer_ip};
use crate::wire::PacketType;
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
        "1 = TX_DONE, 2 = RX_DATA, 4 = ERROR, 5 = CONTROL, 6 = GRANT_SENT (3 is not used).",
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
        "Bit 0: the DATA packet was a retransmission (RESEND answer). Bit 1: host grants: the \
         NIC's grant generator does not track this message (its message-table entry holds \
         another message, or the peer is IPv6), so the host grants it. Bits 7-2 reserved (0).",
    );
    pub(crate) const RX_RESERVED0: Field = f("reserved0", 11, 1, "Zero.");
    pub(crate) const RX_LENGTH: Field = f(
        "length",
        12,
        2,
        "Payload bytes written into the buffer, from its first byte (one IP datagram's \
         payload: at most 65535).",
    );
    pub(crate) const RX_CUTOFF_VERSION: Field = f(
        "cutoff_version",
        14,
        2,
        "The DATA's `cutoff_version`: the CUTOFFS version its sender holds for this host.",
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
    pub(crate) const RX_ACK_CLIENT_ID: Field = f(
        "ack_client_id",
        48,
        8,
        "The piggybacked ack: the sender's client id of an RPC it has finished with this \
         host (0: none).",
    );
    pub(crate) const RX_INCOMING: Field = f(
        "incoming",
        56,
        4,
        "The DATA's `incoming`: bytes its sender will send without further grants.",
    );
    pub(crate) const RX_ACK_SERVER_PORT: Field = f(
        "ack_server_port",
        60,
        2,
        "The piggybacked ack: that RPC's server port (0 when there is no ack).",
    );
    pub(crate) const RX_RESERVED1: Field = f("reserved1", 62, 1, "Zero.");

    // CONTROL.
    pub(crate) const CTL_TYPE: Field = f(
        "type",
        10,
        1,
        "The packet's Homa type (0x11 GRANT ... 0x18 ACK; never 0x10 DATA).",
    );
    pub(crate) const CTL_RESERVED0: Field = f("reserved0", 11, 1, "Zero.");
    pub(crate) const CTL_LOCAL_PORT: Field =
        f("local_port", 12, 2, "Destination (local) Homa port.");
    pub(crate) const CTL_PEER_PORT: Field = f("peer_port", 14, 2, "Sender's (source) Homa port.");
    pub(crate) const CTL_PEER: Field = f(
        "peer",
        16,
        16,
        "Sender's address, network order; IPv4 as `::ffff:a.b.c.d`.",
    );
    pub(crate) const CTL_BODY: Field = f(
        "body",
        32,
        31,
        "The type's header after the common one, bytes as on the wire (big-endian), from \
         Homa header byte 28 (CUTOFFS: byte 32, as `unsched_cutoffs[0]` is always the \
         maximum) up to the header's end or 31 bytes; zero past it. GRANT, RESEND and \
         CUTOFFS fit whole; an ACK carries `num_acks` and its first two entries.",
    );

    // GRANT_SENT.
    pub(crate) const GS_PRIORITY: Field = f(
        "priority",
        10,
        1,
        "The GRANT's `priority`: the one its sender must use for the granted bytes (0-7).",
    );
    pub(crate) const GS_RESERVED0: Field = f("reserved0", 11, 1, "Zero.");
    pub(crate) const GS_OFFSET: Field = f(
        "offset",
        12,
        4,
        "The GRANT's `offset`: the message's bytes below it are granted.",
    );
    pub(crate) const GS_LOCAL_PORT: Field = f(
        "local_port",
        16,
        2,
        "The GRANT's source port: the message's destination (local) Homa port.",
    );
    pub(crate) const GS_PEER_PORT: Field = f(
        "peer_port",
        18,
        2,
        "The GRANT's destination port: the message sender's Homa port.",
    );
    pub(crate) const GS_PEER: Field = f(
        "peer",
        20,
        4,
        "The message sender's IPv4 address, network order (the NIC grants IPv4 peers only).",
    );
    pub(crate) const GS_RESERVED1: Field = f("reserved1", 24, 39, "Zero.");

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
const _: () = assert!(field::CTL_BODY.end() == field::PHASE.offset);
const _: () = assert!(field::GS_RESERVED1.end() == field::PHASE.offset);
const _: () = assert!(field::CTL_BODY.len == CONTROL_BODY_LEN);

use field::{KIND, PHASE, RPC_ID, STATUS};

pub(super) const LAYOUT_TX_DONE: Layout = Layout {
    name: "completion TX_DONE",
    size: COMPLETION_LEN,
    doc: "NIC → host. The message of a TX descriptor has left (status ok); its payload \
          buffer may be reused. None when the descriptor had NO_COMPLETION. A descriptor the \
          NIC refuses (`TxLimits::refusal`: malformed, longer than `max_message_length`, \
          payload outside the TX window) comes back in an ERROR of ring 1 instead, whatever \
          its flags.",
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
        field::RX_CUTOFF_VERSION,
        field::RX_OFFSET,
        field::RX_BUFFER_ID,
        field::RX_MESSAGE_LENGTH,
        field::RX_LOCAL_PORT,
        field::PEER_PORT,
        field::PEER,
        field::RX_ACK_CLIENT_ID,
        field::RX_INCOMING,
        field::RX_ACK_SERVER_PORT,
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

pub(super) const LAYOUT_CONTROL: Layout = Layout {
    name: "completion CONTROL",
    size: COMPLETION_LEN,
    doc: "NIC → host. A packet other than DATA reached this host (GRANT, RESEND, RPC_UNKNOWN, \
          BUSY, CUTOFFS, FREEZE, NEED_ACK, ACK): its type, addresses and type-specific header. \
          The RPC id is the packet's `sender_id` with bit 0 flipped (this host's id of the RPC).",
    fields: &[
        RPC_ID,
        KIND,
        STATUS,
        field::CTL_TYPE,
        field::CTL_RESERVED0,
        field::CTL_LOCAL_PORT,
        field::CTL_PEER_PORT,
        field::CTL_PEER,
        field::CTL_BODY,
        PHASE,
    ],
};

pub(super) const LAYOUT_GRANT_SENT: Layout = Layout {
    name: "completion GRANT_SENT",
    size: COMPLETION_LEN,
    doc: "NIC → host. The NIC's grant generator sent a GRANT (one completion per GRANT, after \
          the RX_DATA of the DATA that led to it), so that the host knows what its peers may \
          send: its RESENDs cover granted bytes, and a message whose granted bytes are all in \
          waits for the NIC without a timeout. The RPC id is this host's id of the RPC (the \
          GRANT's `sender_id`).",
    fields: &[
        RPC_ID,
        KIND,
        STATUS,
        field::GS_PRIORITY,
        field::GS_RESERVED0,
        field::GS_OFFSET,
        field::GS_LOCAL_PORT,
        field::GS_PEER_PORT,
        field::GS_PEER,
        field::GS_RESERVED1,
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
    /// A control packet arrived.
    Control = 5,
    /// The NIC sent a GRANT.
    GrantSent = 6,
}

impl CompletionKind {
    /// The kind for a byte, if known.
    pub const fn from_u8(v: u8) -> Option<CompletionKind> {
        match v {
            1 => Some(CompletionKind::TxDone),
            2 => Some(CompletionKind::RxData),
            4 => Some(CompletionKind::Error),
            5 => Some(CompletionKind::Control),
            6 => Some(CompletionKind::GrantSent),
            _ => None,
        }
    }

    /// The upper-case name used in the reference and in `Display`.
    pub const fn name(self) -> &'static str {
        match self {
            CompletionKind::TxDone => "TX_DONE",
            CompletionKind::RxData => "RX_DATA",
            CompletionKind::Error => "ERROR",
            CompletionKind::Control => "CONTROL",
            CompletionKind::GrantSent => "GRANT_SENT",
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
    /// An RX buffer holds the payload of one DATA packet; the rest of its header is here.
    RxData {
        /// The packet was a retransmission.
        retransmit: bool,
        /// The NIC does not grant this message (with grant offload, the host must).
        host_grants: bool,
        /// Bytes written into the buffer.
        length: u16,
        /// The DATA's `cutoff_version`.
        cutoff_version: u16,
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
        /// The DATA's `incoming`.
        incoming: u32,
        /// The piggybacked ack's client id (0: none).
        ack_client_id: u64,
        /// The piggybacked ack's server port (0 when there is no ack).
        ack_server_port: u16,
    },
    /// A control packet: its type and type-specific header ([`control_window`]).
    Control {
        /// The packet type (never DATA).
        packet_type: PacketType,
        /// Destination (local) port.
        local_port: u16,
        /// Sender's (source) port.
        peer_port: u16,
        /// Sender's address (IPv4 mapped).
        peer: Ipv6Addr,
        /// The type's header window, zero past its end.
        body: [u8; CONTROL_BODY_LEN],
    },
    /// The NIC's grant generator sent a GRANT for an inbound message of this host.
    GrantSent {
        /// The granted offset.
        offset: u32,
        /// The priority granted.
        priority: u8,
        /// The message's destination (local) port.
        local_port: u16,
        /// Its sender's port.
        peer_port: u16,
        /// Its sender's address (IPv4).
        peer: core::net::Ipv4Addr,
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
            Event::Control { .. } => CompletionKind::Control,
            Event::GrantSent { .. } => CompletionKind::GrantSent,
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
    /// The `TX_DONE` the NIC posts once the message of descriptor `d` has left (phase aside;
    /// none is due for a NO_COMPLETION descriptor or a CANCEL).
    pub fn tx_done(d: &super::TxDescriptor) -> Completion {
        Completion {
            rpc_id: d.rpc_id,
            status: Status::Ok,
            event: Event::TxDone {
                length: d.message_length,
                cookie: d.cookie,
            },
            phase: false,
        }
    }

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
                host_grants,
                length,
                cutoff_version,
                offset,
                buffer_id,
                message_length,
                local_port,
                peer_port,
                peer,
                incoming,
                ack_client_id,
                ack_server_port,
            } => {
                let flags = u8::from(retransmit) | u8::from(host_grants) << 1;
                put(buf, field::RX_FLAGS, &[flags]);
                put(buf, field::RX_LENGTH, &length.to_le_bytes());
                put(buf, field::RX_CUTOFF_VERSION, &cutoff_version.to_le_bytes());
                put(buf, field::RX_INCOMING, &incoming.to_le_bytes());
                put(buf, field::RX_ACK_CLIENT_ID, &ack_client_id.to_le_bytes());
                put(
                    buf,
                    field::RX_ACK_SERVER_PORT,
                    &ack_server_port.to_le_bytes(),
                );
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
            Event::Control {
                packet_type,
                local_port,
                peer_port,
                peer,
                body,
            } => {
                put(buf, field::CTL_TYPE, &[u8::from(packet_type)]);
                put(buf, field::CTL_LOCAL_PORT, &local_port.to_le_bytes());
                put(buf, field::CTL_PEER_PORT, &peer_port.to_le_bytes());
                put(buf, field::CTL_PEER, &peer.octets());
                put(buf, field::CTL_BODY, &body);
            }
            Event::GrantSent {
                offset,
                priority,
                local_port,
                peer_port,
                peer,
            } => {
                put(buf, field::GS_PRIORITY, &[priority]);
                put(buf, field::GS_OFFSET, &offset.to_le_bytes());
                put(buf, field::GS_LOCAL_PORT, &local_port.to_le_bytes());
                put(buf, field::GS_PEER_PORT, &peer_port.to_le_bytes());
                put(buf, field::GS_PEER, &peer.octets());
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
                if flags & !3 != 0 {
                    return Err(HostifError::Reserved {
                        layout: NAME,
                        field: field::RX_FLAGS.name,
                    });
                }
                Event::RxData {
                    retransmit: flags & 1 != 0,
                    host_grants: flags & 2 != 0,
                    length: u16_at(buf, field::RX_LENGTH),
                    cutoff_version: u16_at(buf, field::RX_CUTOFF_VERSION),
                    offset: u32_at(buf, field::RX_OFFSET),
                    buffer_id: u32_at(buf, field::RX_BUFFER_ID),
                    message_length: u32_at(buf, field::RX_MESSAGE_LENGTH),
                    local_port: u16_at(buf, field::RX_LOCAL_PORT),
                    peer_port: u16_at(buf, field::PEER_PORT),
                    peer: Ipv6Addr::from(get::<16>(buf, field::PEER)),
                    incoming: u32_at(buf, field::RX_INCOMING),
                    ack_client_id: u64_at(buf, field::RX_ACK_CLIENT_ID),
                    ack_server_port: u16_at(buf, field::RX_ACK_SERVER_PORT),
                }
            }
            Some(CompletionKind::Control) => {
                reserved(field::CTL_RESERVED0)?;
                let raw = u8_at(buf, field::CTL_TYPE);
                let packet_type = PacketType::from(raw);
                if matches!(packet_type, PacketType::Data | PacketType::Unknown(_)) {
                    return Err(HostifError::NotControl(raw));
                }
                let body = get::<CONTROL_BODY_LEN>(buf, field::CTL_BODY);
                let (_, len) = control_window(packet_type);
                if body[len..].iter().any(|&b| b != 0) {
                    return Err(HostifError::Reserved {
                        layout: NAME,
                        field: field::CTL_BODY.name,
                    });
                }
                Event::Control {
                    packet_type,
                    local_port: u16_at(buf, field::CTL_LOCAL_PORT),
                    peer_port: u16_at(buf, field::CTL_PEER_PORT),
                    peer: Ipv6Addr::from(get::<16>(buf, field::CTL_PEER)),
                    body,
                }
            }
            Some(CompletionKind::GrantSent) => {
                reserved(field::GS_RESERVED0)?;
                reserved(field::GS_RESERVED1)?;
                let priority = u8_at(buf, field::GS_PRIORITY);
                if priority > 7 {
                    return Err(HostifError::Reserved {
                        layout: NAME,
                        field: field::GS_PRIORITY.name,
                    });
                }
                Event::GrantSent {
                    offset: u32_at(buf, field::GS_OFFSET),
                    priority,
                    local_port: u16_at(buf, field::GS_LOCAL_PORT),
                    peer_port: u16_at(buf, field::GS_PEER_PORT),
                    peer: core::net::Ipv4Addr::from(get::<4>(buf, field::GS_PEER)),
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
                host_grants,
                length,
                cutoff_version,
                offset,
                buffer_id,
                message_length,
                local_port,
                peer_port,
                peer,
                incoming,
                ack_client_id,
                ack_server_port,
            } => {
                write!(
                    f,
                    " from={}:{peer_port} port={local_port} {length}@{offset}/{message_length} \
                     buf={buffer_id} incoming={incoming} cutoff_version={cutoff_version}",
                    peer_ip(peer)
                )?;
                if retransmit {
                    write!(f, " retransmit")?;
                }
                if host_grants {
                    write!(f, " host-grants")?;
                }
                if ack_client_id != 0 {
                    write!(f, " ack={ack_client_id}:{ack_server_port}")?;
                }
            }
            Event::Control {
                packet_type,
                local_port,
                peer_port,
                peer,
                ..
            } => write!(
                f,
                " {packet_type} from={}:{peer_port} port={local_port}",
                peer_ip(peer)
            )?,
            Event::GrantSent {
                offset,
                priority,
                local_port,
                peer_port,
                peer,
            } => write!(
                f,
                " to={peer}:{peer_port} port={local_port} offset={offset} priority={priority}"
            )?,
            Event::Error {
                ring,
                index,
                cookie,
            } => write!(f, " ring={ring:?} index={index} cookie={cookie}")?,
        }
        write!(f, " status={}", self.status.name())
    }
}
