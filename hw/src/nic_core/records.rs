//! Records of the NIC core (`LogicStruct` derives undocumented accessor methods, hence the
//! allowance).
#![allow(missing_docs)]

use crate::hdl::*;

/// An IPv4 address as the transmit engine takes it: first byte (network order) most
/// significant. Filled from a TX descriptor's IPv4-mapped peer, whose first byte is byte 12
/// of the 128-bit field, so the four bytes are placed in reverse.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct Ipv4Msb {
    /// Byte 3 (the last), bits 7-0.
    pub b3: Bits<8>,
    /// Byte 2.
    pub b2: Bits<8>,
    /// Byte 1.
    pub b1: Bits<8>,
    /// Byte 0 (the first), bits 31-24.
    pub b0: Bits<8>,
}

/// A DATA packet's event on its way from the message table to the grant generator
/// (`msg_table::GrantEvt` and the message's table entry), held in the event queue between
/// them.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct QueuedEvt {
    /// The message's table entry.
    pub index: Bits<10>,
    /// The sending peer.
    pub peer: Bits<32>,
    /// The RPC id.
    pub id: Bits<64>,
    /// Source port.
    pub sport: Bits<16>,
    /// Destination port.
    pub dport: Bits<16>,
    /// Source MAC address.
    pub mac: Bits<48>,
    /// Message length.
    pub length: Bits<32>,
    /// The DATA header's `incoming`.
    pub incoming: Bits<32>,
    /// Bytes of the packet not received before.
    pub new: Bits<32>,
    /// The packet's end offset.
    pub end: Bits<32>,
}

/// A GRANT the framer took, on its way to the host queues as a `GRANT_SENT` completion.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct GrantRep {
    /// This host's RPC id (the GRANT's `sender_id`).
    pub rpc_id: Bits<64>,
    /// The peer's IPv4 address.
    pub peer: Bits<32>,
    /// The GRANT's source (local) port.
    pub local_port: Bits<16>,
    /// Its destination (peer) port.
    pub peer_port: Bits<16>,
    /// The granted offset.
    pub offset: Bits<32>,
    /// The priority granted.
    pub priority: Bits<3>,
}
