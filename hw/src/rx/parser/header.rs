//! The plain-data records of the parser: big-endian byte assemblies and the header record.
//!
//! rust-hdl has no concatenation operator and its `bit_cast` widening trips Verilator's WIDTH
//! lint, so multi-byte fields are assembled as `LogicStruct`s of bytes (assigning a struct
//! field is a part-select write in Verilog): `b0` is the least significant byte, the last one
//! on the wire. The `z` fields zero-extend a value to the width its arithmetic needs.

// The `LogicStruct` derive adds public `get_my_width_*` / `get_my_offset_*` accessors (used by
// the `hdl_gen` translation) that it does not document; every item written here is documented.
#![allow(missing_docs)]

use crate::hdl::*;

/// A big-endian 16-bit field.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct Be16 {
    /// Byte 0 from the least significant end: the last on the wire.
    pub b0: Bits<8>,
    /// Byte 1 from the least significant end: the first on the wire.
    pub b1: Bits<8>,
}

/// A big-endian 16-bit field zero-extended to 20 bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct Be16In20 {
    /// Byte 0 from the least significant end: the last on the wire.
    pub b0: Bits<8>,
    /// Byte 1 from the least significant end: the first on the wire.
    pub b1: Bits<8>,
    /// Zero: widens the value to 20 bits for arithmetic.
    pub z: Bits<4>,
}

/// A big-endian 16-bit field zero-extended to 32 bits (lengths).
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct Be16In32 {
    /// Byte 0 from the least significant end: the last on the wire.
    pub b0: Bits<8>,
    /// Byte 1 from the least significant end: the first on the wire.
    pub b1: Bits<8>,
    /// Zero: widens the value to 32 bits for arithmetic.
    pub z: Bits<16>,
}

/// A big-endian 32-bit field.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct Be32 {
    /// Byte 0 from the least significant end: the last on the wire.
    pub b0: Bits<8>,
    /// Byte 1 from the least significant end.
    pub b1: Bits<8>,
    /// Byte 2 from the least significant end.
    pub b2: Bits<8>,
    /// Byte 3 from the least significant end: the first on the wire.
    pub b3: Bits<8>,
}

/// A big-endian 64-bit field.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct Be64 {
    /// Byte 0 from the least significant end: the last on the wire.
    pub b0: Bits<8>,
    /// Byte 1 from the least significant end.
    pub b1: Bits<8>,
    /// Byte 2 from the least significant end.
    pub b2: Bits<8>,
    /// Byte 3 from the least significant end.
    pub b3: Bits<8>,
    /// Byte 4 from the least significant end.
    pub b4: Bits<8>,
    /// Byte 5 from the least significant end.
    pub b5: Bits<8>,
    /// Byte 6 from the least significant end.
    pub b6: Bits<8>,
    /// Byte 7 from the least significant end: the first on the wire.
    pub b7: Bits<8>,
}

/// A big-endian 128-bit field (an IP address; IPv4 in `b0..=b3`).
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct Be128 {
    /// Byte 0 from the least significant end: the last on the wire.
    pub b0: Bits<8>,
    /// Byte 1 from the least significant end.
    pub b1: Bits<8>,
    /// Byte 2 from the least significant end.
    pub b2: Bits<8>,
    /// Byte 3 from the least significant end.
    pub b3: Bits<8>,
    /// Byte 4 from the least significant end.
    pub b4: Bits<8>,
    /// Byte 5 from the least significant end.
    pub b5: Bits<8>,
    /// Byte 6 from the least significant end.
    pub b6: Bits<8>,
    /// Byte 7 from the least significant end.
    pub b7: Bits<8>,
    /// Byte 8 from the least significant end.
    pub b8: Bits<8>,
    /// Byte 9 from the least significant end.
    pub b9: Bits<8>,
    /// Byte 10 from the least significant end.
    pub b10: Bits<8>,
    /// Byte 11 from the least significant end.
    pub b11: Bits<8>,
    /// Byte 12 from the least significant end.
    pub b12: Bits<8>,
    /// Byte 13 from the least significant end.
    pub b13: Bits<8>,
    /// Byte 14 from the least significant end.
    pub b14: Bits<8>,
    /// Byte 15 from the least significant end: the first on the wire.
    pub b15: Bits<8>,
}

/// The header transaction of one accepted frame (the `m_hdr_*` ports).
///
/// Type-specific fields hold the bytes at their position whatever the type, and mean
/// something only for their type (`data_*` for DATA, `grant_*` for GRANT, `resend_*` for
/// RESEND).
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct HomaHeader {
    /// 4 or 6.
    pub ip_version: Bits<4>,
    /// Source address; IPv4 in the low 32 bits, network order as a big-endian number.
    pub src_ip: Bits<128>,
    /// Destination address, as `src_ip`.
    pub dst_ip: Bits<128>,
    /// Top three bits of TOS / Traffic Class.
    pub priority: Bits<3>,
    /// Source port.
    pub sport: Bits<16>,
    /// Destination port.
    pub dport: Bits<16>,
    /// Packet type byte (0x10..=0x18).
    pub ptype: Bits<8>,
    /// RPC id as the sender knows it.
    pub sender_id: Bits<64>,
    /// DATA: message length.
    pub data_message_length: Bits<32>,
    /// DATA: `incoming`.
    pub data_incoming: Bits<32>,
    /// DATA: message offset of the payload (`seg.offset`, or `sequence` when it is all ones).
    pub data_offset: Bits<32>,
    /// DATA: cutoff version.
    pub data_cutoff_version: Bits<16>,
    /// DATA: retransmit byte is non-zero.
    pub data_retransmit: Bit,
    /// DATA: piggybacked ACK client id (0 = none).
    pub data_ack_client_id: Bits<64>,
    /// DATA: piggybacked ACK server port.
    pub data_ack_server_port: Bits<16>,
    /// DATA: payload bytes (IP payload minus the 56-byte DATA header).
    pub data_payload_len: Bits<16>,
    /// GRANT: granted offset.
    pub grant_offset: Bits<32>,
    /// GRANT: priority (0-7).
    pub grant_priority: Bits<3>,
    /// RESEND: first byte to resend.
    pub resend_offset: Bits<32>,
    /// RESEND: length (all ones = everything).
    pub resend_length: Bits<32>,
    /// RESEND: priority (0-7).
    pub resend_priority: Bits<3>,
    /// Control packets: the `CONTROL` completion's body window, wire byte `i` in bits
    /// `8i+7..8i`.
    pub body: Bits<248>,
}

/// The 31 bytes of a body window, wire byte `i` in field `bi` (packed, `b0` lowest).
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct Body31 {
    /// Wire byte 0.
    pub b0: Bits<8>,
    /// Wire byte 1.
    pub b1: Bits<8>,
    /// Wire byte 2.
    pub b2: Bits<8>,
    /// Wire byte 3.
    pub b3: Bits<8>,
    /// Wire byte 4.
    pub b4: Bits<8>,
    /// Wire byte 5.
    pub b5: Bits<8>,
    /// Wire byte 6.
    pub b6: Bits<8>,
    /// Wire byte 7.
    pub b7: Bits<8>,
    /// Wire byte 8.
    pub b8: Bits<8>,
    /// Wire byte 9.
    pub b9: Bits<8>,
    /// Wire byte 10.
    pub b10: Bits<8>,
    /// Wire byte 11.
    pub b11: Bits<8>,
    /// Wire byte 12.
    pub b12: Bits<8>,
    /// Wire byte 13.
    pub b13: Bits<8>,
    /// Wire byte 14.
    pub b14: Bits<8>,
    /// Wire byte 15.
    pub b15: Bits<8>,
    /// Wire byte 16.
    pub b16: Bits<8>,
    /// Wire byte 17.
    pub b17: Bits<8>,
    /// Wire byte 18.
    pub b18: Bits<8>,
    /// Wire byte 19.
    pub b19: Bits<8>,
    /// Wire byte 20.
    pub b20: Bits<8>,
    /// Wire byte 21.
    pub b21: Bits<8>,
    /// Wire byte 22.
    pub b22: Bits<8>,
    /// Wire byte 23.
    pub b23: Bits<8>,
    /// Wire byte 24.
    pub b24: Bits<8>,
    /// Wire byte 25.
    pub b25: Bits<8>,
    /// Wire byte 26.
    pub b26: Bits<8>,
    /// Wire byte 27.
    pub b27: Bits<8>,
    /// Wire byte 28.
    pub b28: Bits<8>,
    /// Wire byte 29.
    pub b29: Bits<8>,
    /// Wire byte 30.
    pub b30: Bits<8>,
}
