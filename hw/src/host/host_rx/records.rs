//! The record the host queues' header FIFO holds (`LogicStruct` derives undocumented
//! accessor methods, hence the allowance).
#![allow(missing_docs)]

use crate::hdl::*;

/// A header as the host queues take it (the parser's fields they use), for a FIFO in front
/// of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct HostHdr {
    /// 4 or 6.
    pub ip_version: Bits<4>,
    /// Sender address: IPv6, or IPv4 in the low 32 bits.
    pub src_ip: Bits<128>,
    /// Sender's port.
    pub sport: Bits<16>,
    /// Local port.
    pub dport: Bits<16>,
    /// The DATA's `sender_id`.
    pub sender_id: Bits<64>,
    /// The message's length.
    pub message_length: Bits<32>,
    /// Offset of the payload in the message.
    pub offset: Bits<32>,
    /// Payload bytes.
    pub payload_len: Bits<16>,
    /// A retransmission.
    pub retransmit: Bit,
    /// The message table took this header (IPv4 DATA): it waits for the table's verdict.
    pub table: Bit,
    /// The packet type.
    pub ptype: Bits<8>,
    /// DATA: `incoming`.
    pub incoming: Bits<32>,
    /// DATA: `cutoff_version`.
    pub cutoff_version: Bits<16>,
    /// DATA: the piggybacked ack's client id.
    pub ack_client_id: Bits<64>,
    /// DATA: the piggybacked ack's server port.
    pub ack_server_port: Bits<16>,
    /// Control packets: the body window.
    pub body: Bits<248>,
}
