//! The Homa header as plain values: [`Repr`] with `parse`, `buffer_len` and `emit`.
//!
//! Parsing checks what the bytes say about themselves (SPEC §1): known type and full header
//! (in [`HomaPacket::check_len`]), a message no longer than [`MAX_MESSAGE_LENGTH`], payload
//! that lies inside the message, priorities 0-7, at most [`MAX_ACKS_PER_PACKET`] ACK
//! entries. Whether a packet makes sense for an RPC is the protocol engine's business.
//!
//! Emitting writes what the GitHub build of HomaModule writes (SPEC §1.1, §1.5): the hijack
//! marker in every packet, `doff` = header words, DATA with `sequence` = offset and
//! `seg.offset` = 0xFFFFFFFF, and a zero TCP-style checksum (nothing verifies it for IP
//! protocol 146).

use super::homa::{HomaPacket, MAX_ACKS_PER_PACKET, MAX_MESSAGE_LENGTH, NUM_PRIORITIES, field};
use super::packet_type::PacketType;
use super::{Error, Layer, Reason, Result};
use core::fmt;

fn err(reason: Reason) -> Error {
    Error::new(Layer::Homa, reason)
}

fn check_priority(p: u8) -> Result<u8> {
    if usize::from(p) < NUM_PRIORITIES {
        Ok(p)
    } else {
        Err(err(Reason::BadValue))
    }
}

/// One acknowledged RPC: the client's id and the server's port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct AckEntry {
    /// The client-side RPC id.
    pub client_id: u64,
    /// The server's port.
    pub server_port: u16,
}

impl fmt::Display for AckEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@{}", self.client_id, self.server_port)
    }
}

/// Up to [`MAX_ACKS_PER_PACKET`] ACK entries, stored inline.
#[derive(Debug, Clone, Copy, Default)]
pub struct Acks {
    len: u8,
    entries: [AckEntry; MAX_ACKS_PER_PACKET],
}

impl Acks {
    /// Builds a list from at most five entries; `None` if there are more.
    pub fn new(entries: &[AckEntry]) -> Option<Self> {
        if entries.len() > MAX_ACKS_PER_PACKET {
            return None;
        }
        let mut acks = Acks::default();
        acks.entries[..entries.len()].copy_from_slice(entries);
        acks.len = entries.len() as u8;
        Some(acks)
    }

    /// The valid entries.
    pub fn as_slice(&self) -> &[AckEntry] {
        &self.entries[..usize::from(self.len)]
    }
}

impl PartialEq for Acks {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}
impl Eq for Acks {}

/// DATA: a run of message bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Data<'a> {
    /// Total length of the message.
    pub message_length: u32,
    /// The sender will send bytes [0, incoming) without further grants.
    pub incoming: u32,
    /// A piggybacked acknowledgement of another RPC (client id 0 on the wire means none).
    pub ack: Option<AckEntry>,
    /// The CUTOFFS version the sender holds for this receiver (0 = none yet).
    pub cutoff_version: u16,
    /// Sent in response to a RESEND.
    pub retransmit: bool,
    /// Message offset of the first payload byte.
    pub offset: u32,
    /// The payload.
    pub payload: &'a [u8],
}

/// GRANT: permission to send more of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grant {
    /// The sender may send every byte below this offset.
    pub offset: u32,
    /// The priority for the scheduled bytes (0-7, 7 highest).
    pub priority: u8,
}

/// RESEND: a request to retransmit a byte range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resend {
    /// First byte to retransmit.
    pub offset: u32,
    /// Bytes to retransmit; [`Resend::ALL`] for "everything sent so far".
    pub length: u32,
    /// The priority for the retransmitted packets.
    pub priority: u8,
}

impl Resend {
    /// The `length` meaning "I have received nothing, resend everything sent so far".
    pub const ALL: u32 = field::RESEND_ALL;
}

/// CUTOFFS: the receiver's unscheduled priority cutoffs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cutoffs {
    /// `unsched_cutoffs[i]` is the largest message length that uses priority `i`.
    pub unsched_cutoffs: [u32; NUM_PRIORITIES],
    /// The version to echo in later DATA packets.
    pub cutoff_version: u16,
}

/// The type-specific part of a Homa packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body<'a> {
    /// DATA (0x10).
    Data(Data<'a>),
    /// GRANT (0x11).
    Grant(Grant),
    /// RESEND (0x12).
    Resend(Resend),
    /// RPC_UNKNOWN (0x13).
    RpcUnknown,
    /// BUSY (0x14).
    Busy,
    /// CUTOFFS (0x15).
    Cutoffs(Cutoffs),
    /// FREEZE (0x16).
    Freeze,
    /// NEED_ACK (0x17).
    NeedAck,
    /// ACK (0x18): the RPC in the common header plus these.
    Ack(Acks),
}

impl Body<'_> {
    /// The packet type this body is sent as.
    pub const fn packet_type(&self) -> PacketType {
        match self {
            Body::Data(_) => PacketType::Data,
            Body::Grant(_) => PacketType::Grant,
            Body::Resend(_) => PacketType::Resend,
            Body::RpcUnknown => PacketType::RpcUnknown,
            Body::Busy => PacketType::Busy,
            Body::Cutoffs(_) => PacketType::Cutoffs,
            Body::Freeze => PacketType::Freeze,
            Body::NeedAck => PacketType::NeedAck,
            Body::Ack(_) => PacketType::Ack,
        }
    }
}

/// A Homa packet as plain values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repr<'a> {
    /// Source port.
    pub sport: u16,
    /// Destination port.
    pub dport: u16,
    /// The RPC id as the sender of this packet knows it.
    pub sender_id: u64,
    /// The type-specific part.
    pub body: Body<'a>,
}

impl<'a> Repr<'a> {
    /// Reads and validates a Homa packet.
    pub fn parse<T: AsRef<[u8]> + ?Sized>(packet: &HomaPacket<&'a T>) -> Result<Self> {
        packet.check_len()?;
        let body = match packet.packet_type() {
            PacketType::Data => {
                let message_length = packet.message_length();
                if message_length > MAX_MESSAGE_LENGTH {
                    return Err(err(Reason::BadLength));
                }
                let offset = packet.data_offset();
                let bytes: &'a [u8] = packet.clone().into_inner().as_ref();
                let payload = &bytes[field::PAYLOAD];
                let end = u64::from(offset) + payload.len() as u64;
                if end > u64::from(message_length) {
                    return Err(err(Reason::BadLength));
                }
                let ack = match packet.ack_client_id() {
                    0 => None,
                    client_id => Some(AckEntry {
                        client_id,
                        server_port: packet.ack_server_port(),
                    }),
                };
                Body::Data(Data {
                    message_length,
                    incoming: packet.incoming(),
                    ack,
                    cutoff_version: packet.data_cutoff_version(),
                    retransmit: packet.retransmit() != 0,
                    offset,
                    payload,
                })
            }
            PacketType::Grant => Body::Grant(Grant {
                offset: packet.grant_offset(),
                priority: check_priority(packet.grant_priority())?,
            }),
            PacketType::Resend => Body::Resend(Resend {
                offset: packet.resend_offset(),
                length: packet.resend_length(),
                priority: check_priority(packet.resend_priority())?,
            }),
            PacketType::RpcUnknown => Body::RpcUnknown,
            PacketType::Busy => Body::Busy,
            PacketType::Cutoffs => Body::Cutoffs(Cutoffs {
                unsched_cutoffs: packet.unsched_cutoffs(),
                cutoff_version: packet.cutoffs_version(),
            }),
            PacketType::Freeze => Body::Freeze,
            PacketType::NeedAck => Body::NeedAck,
            PacketType::Ack => {
                let n = usize::from(packet.num_acks());
                if n > MAX_ACKS_PER_PACKET {
                    return Err(err(Reason::BadLength));
                }
                let mut entries = [AckEntry::default(); MAX_ACKS_PER_PACKET];
                for (i, e) in entries.iter_mut().enumerate().take(n) {
                    let (client_id, server_port) = packet.ack_entry(i);
                    *e = AckEntry {
                        client_id,
                        server_port,
                    };
                }
                Body::Ack(Acks::new(&entries[..n]).ok_or(err(Reason::BadLength))?)
            }
            PacketType::Unknown(_) => return Err(err(Reason::BadType)),
        };
        Ok(Repr {
            sport: packet.sport(),
            dport: packet.dport(),
            sender_id: packet.sender_id(),
            body,
        })
    }

    /// The packet type.
    pub const fn packet_type(&self) -> PacketType {
        self.body.packet_type()
    }

    /// The header length of this packet's type.
    pub fn header_len(&self) -> usize {
        match self.packet_type().header_len() {
            Some(len) => len,
            None => unreachable!("a Body always has a known type"),
        }
    }

    /// Bytes on the wire: header plus payload.
    pub fn buffer_len(&self) -> usize {
        let payload = match &self.body {
            Body::Data(d) => d.payload.len(),
            _ => 0,
        };
        self.header_len() + payload
    }

    /// Writes the packet into `packet`, whose buffer must be at least
    /// [`buffer_len`](Self::buffer_len) bytes long (it panics otherwise).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, packet: &mut HomaPacket<T>) {
        let header_len = self.header_len();
        // Control packets use doff = 5 words, as HomaModule does (SPEC §1.3).
        let doff_len = match self.body {
            Body::Data(_) => header_len,
            _ => 20,
        };
        let sequence = match &self.body {
            Body::Data(d) => d.offset,
            _ => 0,
        };
        packet.set_common(
            self.sport,
            self.dport,
            sequence,
            self.packet_type(),
            doff_len,
            self.sender_id,
        );
        match &self.body {
            Body::Data(d) => {
                let ack = d.ack.map_or((0, 0), |a| (a.client_id, a.server_port));
                packet.set_data_header(
                    d.message_length,
                    d.incoming,
                    ack,
                    d.cutoff_version,
                    d.retransmit,
                    field::SEG_OFFSET_USE_SEQUENCE,
                );
                packet.payload_mut()[..d.payload.len()].copy_from_slice(d.payload);
            }
            Body::Grant(g) => packet.set_grant(g.offset, g.priority),
            Body::Resend(r) => packet.set_resend(r.offset, r.length, r.priority),
            Body::Cutoffs(c) => packet.set_cutoffs(&c.unsched_cutoffs, c.cutoff_version),
            Body::Ack(acks) => {
                let mut raw = [(0u64, 0u16); MAX_ACKS_PER_PACKET];
                for (r, a) in raw.iter_mut().zip(acks.as_slice()) {
                    *r = (a.client_id, a.server_port);
                }
                packet.set_acks(&raw[..acks.as_slice().len()]);
            }
            Body::RpcUnknown | Body::Busy | Body::Freeze | Body::NeedAck => {}
        }
    }
}

impl fmt::Display for Repr<'_> {
    /// One line in HomaModule's trace style, e.g. `GRANT id=7 offset=1200 prio=2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} id={}", self.packet_type(), self.sender_id)?;
        match &self.body {
            Body::Data(d) => {
                write!(
                    f,
                    " offset={} length={} message_length={} incoming={} cutoff_version={}",
                    d.offset,
                    d.payload.len(),
                    d.message_length,
                    d.incoming,
                    d.cutoff_version
                )?;
                if d.retransmit {
                    f.write_str(" retransmit")?;
                }
                if let Some(a) = d.ack {
                    write!(f, " ack={a}")?;
                }
                Ok(())
            }
            Body::Grant(g) => write!(f, " offset={} prio={}", g.offset, g.priority),
            Body::Resend(r) if r.length == Resend::ALL => {
                write!(f, " offset={} length=all prio={}", r.offset, r.priority)
            }
            Body::Resend(r) => write!(
                f,
                " offset={} length={} prio={}",
                r.offset, r.length, r.priority
            ),
            Body::Cutoffs(c) => write!(
                f,
                " cutoffs={:?} version={}",
                c.unsched_cutoffs, c.cutoff_version
            ),
            Body::Ack(acks) => {
                f.write_str(" acks=[")?;
                for (i, a) in acks.as_slice().iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{a}")?;
                }
                f.write_str("]")
            }
            Body::RpcUnknown | Body::Busy | Body::Freeze | Body::NeedAck => Ok(()),
        }
    }
}
