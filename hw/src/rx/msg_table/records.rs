//! The message table's plain-data records: one table entry, and the event it hands the grant
//! generator.

// The `LogicStruct` derive adds public `get_my_width_*` / `get_my_offset_*` accessors (used by
// the `hdl_gen` translation) that it does not document; every item written here is documented.
#![allow(missing_docs)]

use crate::hdl::*;

/// One inbound message: its key, length, bytes received, and the received bytes as at most
/// two disjoint ranges `[a0, b0)` and `[a1, b1)` (the second valid when `r1v`), `b0 < a1`.
/// Every byte of the message has arrived when `received >= length` (the entry is done: late
/// duplicates are dropped, and another message may take it); that compare is made when the
/// entry is read, not kept as a bit, so the update that raises `received` ends at its adder.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct MsgEntry {
    /// The entry holds a message.
    pub valid: Bit,
    /// The second range is in use.
    pub r1v: Bit,
    /// The sending peer (IPv4 address).
    pub peer: Bits<32>,
    /// The RPC id.
    pub id: Bits<64>,
    /// The message length.
    pub length: Bits<32>,
    /// Bytes received.
    pub received: Bits<32>,
    /// First range start.
    pub a0: Bits<32>,
    /// First range end.
    pub b0: Bits<32>,
    /// Second range start.
    pub a1: Bits<32>,
    /// Second range end.
    pub b1: Bits<32>,
}

/// One DATA packet as the grant generator takes it (`homa_hw::grant_model::Event`).
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct GrantEvt {
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
