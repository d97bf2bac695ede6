//! The Homa header: the 28-byte common header shared by every type, and the type-specific
//! fields that follow it (SPEC §1.3-§1.10).
//!
//! ```text
//! common (28):  0 sport(2) | 2 dport(2) | 4 sequence(4) | 8 unused(3) | 11 type(1) | 12 doff(1)
//!               13 flags(1) | 14 window(2) | 16 checksum(2) | 18 urgent(2) | 20 sender_id(8)
//! DATA (56):    28 message_length(4) | 32 incoming(4) | 36 ack.client_id(8) |
//!               44 ack.server_port(2) | 46 cutoff_version(2) | 48 retransmit(1) | 49 pad(3) |
//!               52 seg.offset(4) | 56 payload ...
//! GRANT (33):   28 offset(4) | 32 priority(1)
//! RESEND (37):  28 offset(4) | 32 length(4) | 36 priority(1)
//! CUTOFFS (62): 28 unsched_cutoffs[8](4 each) | 60 cutoff_version(2)
//! ACK (80):     28 num_acks(2) | 30 acks[5] {client_id(8), server_port(2)}
//! RPC_UNKNOWN, BUSY, FREEZE, NEED_ACK: the common header only.
//! ```
//!
//! Why the common header looks like TCP: HomaModule lays it over a 20-byte TCP header (ports,
//! sequence, ack, data offset, flags, window, checksum, urgent) so that NICs which only
//! segment TCP can do TSO and RSS on Homa ("TCP hijacking", SPEC §1.2). The type sits in the
//! low byte of TCP's ack field, `doff` where TCP's data offset is, and the hijack marker
//! (flags 0x06 = SYN|RST, urgent 0xB97D) in TCP's flags and urgent pointer. For IP protocol 146
//! the marker and checksum carry no meaning and are accepted whatever they hold.

use super::packet_type::PacketType;
use super::{Error, Layer, Reason, Result, be16, be32, be64};

/// The largest message Homa carries (HOMA_MAX_MESSAGE_LENGTH).
pub const MAX_MESSAGE_LENGTH: u32 = 1_000_000;
/// The most ACK entries one ACK packet holds (HOMA_MAX_ACKS_PER_PKT).
pub const MAX_ACKS_PER_PACKET: usize = 5;
/// Homa's network priorities: 0 (lowest) to 7 (highest).
pub const NUM_PRIORITIES: usize = 8;

/// Byte ranges of the Homa header, by packet type.
pub mod field {
    use crate::wire::{Field, Rest};

    /// Source port.
    pub const SPORT: Field = 0..2;
    /// Destination port.
    pub const DPORT: Field = 2..4;
    /// DATA: message offset of the first payload byte (see [`SEG_OFFSET`]); else 0.
    pub const SEQUENCE: Field = 4..8;
    /// Unused high three bytes of TCP's ack field.
    pub const ACK_UNUSED: Field = 8..11;
    /// Packet type.
    pub const TYPE: usize = 11;
    /// Header length in 32-bit words, in the high nibble (TCP's data offset).
    pub const DOFF: usize = 12;
    /// TCP flags position: 0x06 is the hijack marker.
    pub const FLAGS: usize = 13;
    /// Unused (TCP window).
    pub const WINDOW: Field = 14..16;
    /// TCP-style checksum, verified only when hijacked as TCP.
    pub const CHECKSUM: Field = 16..18;
    /// TCP urgent pointer position: 0xB97D is the hijack marker.
    pub const URGENT: Field = 18..20;
    /// The RPC id as the sender of this packet knows it; low bit set when the sender is
    /// the server.
    pub const SENDER_ID: Field = 20..28;
    /// Length of the common header.
    pub const COMMON_LEN: usize = 28;

    /// DATA: total message length.
    pub const MESSAGE_LENGTH: Field = 28..32;
    /// DATA: bytes the sender will send without further grants.
    pub const INCOMING: Field = 32..36;
    /// DATA: piggybacked ACK, client-side RPC id (0 = none).
    pub const ACK_CLIENT_ID: Field = 36..44;
    /// DATA: piggybacked ACK, server port.
    pub const ACK_SERVER_PORT: Field = 44..46;
    /// DATA: the CUTOFFS version the sender holds for this receiver.
    pub const DATA_CUTOFF_VERSION: Field = 46..48;
    /// DATA: 1 when sent in response to a RESEND.
    pub const RETRANSMIT: usize = 48;
    /// DATA: padding, 0.
    pub const DATA_PAD: Field = 49..52;
    /// DATA: message offset of the payload, or 0xFFFFFFFF for "use `sequence`".
    pub const SEG_OFFSET: Field = 52..56;
    /// DATA: the payload.
    pub const PAYLOAD: Rest = 56..;
    /// DATA: header length.
    pub const DATA_HEADER_LEN: usize = 56;

    /// GRANT: the sender may send all bytes below this offset.
    pub const GRANT_OFFSET: Field = 28..32;
    /// GRANT: priority for the scheduled bytes that follow.
    pub const GRANT_PRIORITY: usize = 32;
    /// GRANT: header length.
    pub const GRANT_LEN: usize = 33;

    /// RESEND: first byte to retransmit.
    pub const RESEND_OFFSET: Field = 28..32;
    /// RESEND: bytes to retransmit, 0xFFFFFFFF for "everything sent so far".
    pub const RESEND_LENGTH: Field = 32..36;
    /// RESEND: priority for the retransmitted packets.
    pub const RESEND_PRIORITY: usize = 36;
    /// RESEND: header length.
    pub const RESEND_LEN: usize = 37;

    /// CUTOFFS: eight big-endian 32-bit cutoffs.
    pub const UNSCHED_CUTOFFS: Field = 28..60;
    /// CUTOFFS: version to echo in later DATA.
    pub const CUTOFFS_VERSION: Field = 60..62;
    /// CUTOFFS: header length.
    pub const CUTOFFS_LEN: usize = 62;

    /// ACK: number of valid entries.
    pub const NUM_ACKS: Field = 28..30;
    /// ACK: the entries, 10 bytes each.
    pub const ACKS: Field = 30..80;
    /// ACK: size of one entry (client_id 8, server_port 2).
    pub const ACK_ENTRY_LEN: usize = 10;
    /// ACK: header length.
    pub const ACK_LEN: usize = 80;

    /// The value of [`SEG_OFFSET`] meaning "the offset is in `sequence`".
    pub const SEG_OFFSET_USE_SEQUENCE: u32 = 0xffff_ffff;
    /// The value of RESEND's length meaning "everything sent so far".
    pub const RESEND_ALL: u32 = 0xffff_ffff;
    /// The hijack marker in [`FLAGS`] (SYN|RST).
    pub const HIJACK_FLAGS: u8 = 0x06;
    /// The hijack marker in [`URGENT`].
    pub const HIJACK_URGENT: u16 = 0xb97d;
}

fn err(reason: Reason) -> Error {
    Error::new(Layer::Homa, reason)
}

/// A zero-copy view of a Homa packet: the IP payload.
#[derive(Debug, Clone)]
pub struct HomaPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> HomaPacket<T> {
    /// Wraps `buffer` without checks; see the module's panic contract.
    pub const fn new_unchecked(buffer: T) -> Self {
        HomaPacket { buffer }
    }

    /// Wraps `buffer` after [`check_len`](Self::check_len).
    pub fn new_checked(buffer: T) -> Result<Self> {
        let p = Self::new_unchecked(buffer);
        p.check_len()?;
        Ok(p)
    }

    /// Checks that the type is known and the buffer holds its whole header, as HomaModule's
    /// receive path does (`header_lengths[type - DATA]`). Extra bytes after a control header
    /// are allowed and ignored.
    pub fn check_len(&self) -> Result<()> {
        let buf = self.buffer.as_ref();
        if buf.len() < field::COMMON_LEN {
            return Err(err(Reason::Truncated));
        }
        let Some(len) = self.packet_type().header_len() else {
            return Err(err(Reason::BadType));
        };
        if buf.len() < len {
            return Err(err(Reason::Truncated));
        }
        Ok(())
    }

    /// Returns the underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The whole buffer.
    pub fn as_bytes(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    fn b(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    // --- common header ---

    /// Source port.
    pub fn sport(&self) -> u16 {
        be16(self.b(), field::SPORT)
    }
    /// Destination port.
    pub fn dport(&self) -> u16 {
        be16(self.b(), field::DPORT)
    }
    /// The `sequence` word.
    pub fn sequence(&self) -> u32 {
        be32(self.b(), field::SEQUENCE)
    }
    /// The packet type.
    pub fn packet_type(&self) -> PacketType {
        PacketType::from(self.b()[field::TYPE])
    }
    /// The raw data-offset byte (header words in the high nibble).
    pub fn doff(&self) -> u8 {
        self.b()[field::DOFF]
    }
    /// The flags byte (0x06 = hijack marker).
    pub fn flags(&self) -> u8 {
        self.b()[field::FLAGS]
    }
    /// The TCP-style checksum, as written.
    pub fn checksum(&self) -> u16 {
        be16(self.b(), field::CHECKSUM)
    }
    /// The urgent word (0xB97D = hijack marker).
    pub fn urgent(&self) -> u16 {
        be16(self.b(), field::URGENT)
    }
    /// Whether both halves of the hijack marker are present.
    pub fn has_hijack_marker(&self) -> bool {
        self.flags() == field::HIJACK_FLAGS && self.urgent() == field::HIJACK_URGENT
    }
    /// The RPC id as the sender knows it.
    pub fn sender_id(&self) -> u64 {
        be64(self.b(), field::SENDER_ID)
    }

    // --- DATA ---

    /// DATA: total message length.
    pub fn message_length(&self) -> u32 {
        be32(self.b(), field::MESSAGE_LENGTH)
    }
    /// DATA: bytes promised without further grants.
    pub fn incoming(&self) -> u32 {
        be32(self.b(), field::INCOMING)
    }
    /// DATA: piggybacked ACK client id.
    pub fn ack_client_id(&self) -> u64 {
        be64(self.b(), field::ACK_CLIENT_ID)
    }
    /// DATA: piggybacked ACK server port.
    pub fn ack_server_port(&self) -> u16 {
        be16(self.b(), field::ACK_SERVER_PORT)
    }
    /// DATA: the CUTOFFS version the sender holds.
    pub fn data_cutoff_version(&self) -> u16 {
        be16(self.b(), field::DATA_CUTOFF_VERSION)
    }
    /// DATA: the retransmit byte.
    pub fn retransmit(&self) -> u8 {
        self.b()[field::RETRANSMIT]
    }
    /// DATA: the raw `seg.offset` word.
    pub fn seg_offset(&self) -> u32 {
        be32(self.b(), field::SEG_OFFSET)
    }
    /// DATA: the message offset of the payload: `seg.offset`, or `sequence` when it is
    /// 0xFFFFFFFF (HomaModule's `homa_get_offset`).
    pub fn data_offset(&self) -> u32 {
        match self.seg_offset() {
            field::SEG_OFFSET_USE_SEQUENCE => self.sequence(),
            off => off,
        }
    }
    /// DATA: the payload.
    pub fn payload(&self) -> &[u8] {
        &self.b()[field::PAYLOAD]
    }

    // --- GRANT ---

    /// GRANT: the granted offset.
    pub fn grant_offset(&self) -> u32 {
        be32(self.b(), field::GRANT_OFFSET)
    }
    /// GRANT: the priority.
    pub fn grant_priority(&self) -> u8 {
        self.b()[field::GRANT_PRIORITY]
    }

    // --- RESEND ---

    /// RESEND: first byte to resend.
    pub fn resend_offset(&self) -> u32 {
        be32(self.b(), field::RESEND_OFFSET)
    }
    /// RESEND: length (0xFFFFFFFF = everything).
    pub fn resend_length(&self) -> u32 {
        be32(self.b(), field::RESEND_LENGTH)
    }
    /// RESEND: priority.
    pub fn resend_priority(&self) -> u8 {
        self.b()[field::RESEND_PRIORITY]
    }

    // --- CUTOFFS ---

    /// CUTOFFS: the eight cutoffs.
    pub fn unsched_cutoffs(&self) -> [u32; NUM_PRIORITIES] {
        let start = field::UNSCHED_CUTOFFS.start;
        core::array::from_fn(|i| be32(self.b(), start + 4 * i..start + 4 * i + 4))
    }
    /// CUTOFFS: version.
    pub fn cutoffs_version(&self) -> u16 {
        be16(self.b(), field::CUTOFFS_VERSION)
    }

    // --- ACK ---

    /// ACK: the number of valid entries, as written (may exceed 5 in a malformed packet).
    pub fn num_acks(&self) -> u16 {
        be16(self.b(), field::NUM_ACKS)
    }
    /// ACK: entry `i` (0..5) as (client_id, server_port).
    pub fn ack_entry(&self, i: usize) -> (u64, u16) {
        let start = field::ACKS.start + i * field::ACK_ENTRY_LEN;
        (
            be64(self.b(), start..start + 8),
            be16(self.b(), start + 8..start + 10),
        )
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> HomaPacket<T> {
    fn m(&mut self) -> &mut [u8] {
        self.buffer.as_mut()
    }
    fn put16(&mut self, r: super::Field, v: u16) {
        self.m()[r].copy_from_slice(&v.to_be_bytes());
    }
    fn put32(&mut self, r: super::Field, v: u32) {
        self.m()[r].copy_from_slice(&v.to_be_bytes());
    }
    fn put64(&mut self, r: super::Field, v: u64) {
        self.m()[r].copy_from_slice(&v.to_be_bytes());
    }

    /// Writes the common header's fields: ports, sequence, type, doff for `header_len`,
    /// the hijack marker, zero window/checksum/unused, and the sender id.
    pub fn set_common(
        &mut self,
        sport: u16,
        dport: u16,
        sequence: u32,
        packet_type: PacketType,
        header_len: usize,
        sender_id: u64,
    ) {
        self.put16(field::SPORT, sport);
        self.put16(field::DPORT, dport);
        self.put32(field::SEQUENCE, sequence);
        self.m()[field::ACK_UNUSED].fill(0);
        self.m()[field::TYPE] = packet_type.into();
        self.m()[field::DOFF] = ((header_len / 4) as u8) << 4;
        self.m()[field::FLAGS] = field::HIJACK_FLAGS;
        self.put16(field::WINDOW, 0);
        self.put16(field::CHECKSUM, 0);
        self.put16(field::URGENT, field::HIJACK_URGENT);
        self.put64(field::SENDER_ID, sender_id);
    }

    /// DATA: writes the type-specific fields (everything from byte 28 to 56).
    #[allow(clippy::too_many_arguments)]
    pub fn set_data_header(
        &mut self,
        message_length: u32,
        incoming: u32,
        ack: (u64, u16),
        cutoff_version: u16,
        retransmit: bool,
        seg_offset: u32,
    ) {
        self.put32(field::MESSAGE_LENGTH, message_length);
        self.put32(field::INCOMING, incoming);
        self.put64(field::ACK_CLIENT_ID, ack.0);
        self.put16(field::ACK_SERVER_PORT, ack.1);
        self.put16(field::DATA_CUTOFF_VERSION, cutoff_version);
        self.m()[field::RETRANSMIT] = u8::from(retransmit);
        self.m()[field::DATA_PAD].fill(0);
        self.put32(field::SEG_OFFSET, seg_offset);
    }

    /// DATA: the payload, writable.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        &mut self.m()[field::PAYLOAD]
    }

    /// GRANT: writes offset and priority.
    pub fn set_grant(&mut self, offset: u32, priority: u8) {
        self.put32(field::GRANT_OFFSET, offset);
        self.m()[field::GRANT_PRIORITY] = priority;
    }

    /// RESEND: writes offset, length and priority.
    pub fn set_resend(&mut self, offset: u32, length: u32, priority: u8) {
        self.put32(field::RESEND_OFFSET, offset);
        self.put32(field::RESEND_LENGTH, length);
        self.m()[field::RESEND_PRIORITY] = priority;
    }

    /// CUTOFFS: writes the cutoffs and their version.
    pub fn set_cutoffs(&mut self, cutoffs: &[u32; NUM_PRIORITIES], version: u16) {
        let start = field::UNSCHED_CUTOFFS.start;
        for (i, c) in cutoffs.iter().enumerate() {
            self.put32(start + 4 * i..start + 4 * i + 4, *c);
        }
        self.put16(field::CUTOFFS_VERSION, version);
    }

    /// ACK: writes the count and the entries, zeroing unused slots.
    ///
    /// Panics if more than [`MAX_ACKS_PER_PACKET`] entries are given.
    pub fn set_acks(&mut self, entries: &[(u64, u16)]) {
        assert!(entries.len() <= MAX_ACKS_PER_PACKET, "too many ACK entries");
        self.put16(field::NUM_ACKS, entries.len() as u16);
        self.m()[field::ACKS].fill(0);
        for (i, (id, port)) in entries.iter().enumerate() {
            let start = field::ACKS.start + i * field::ACK_ENTRY_LEN;
            self.put64(start..start + 8, *id);
            self.put16(start + 8..start + 10, *port);
        }
    }
}
