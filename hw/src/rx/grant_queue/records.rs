//! The bucketed grant generator's plain-data records: what it keeps per message-table entry.

// The `LogicStruct` derive adds public `get_my_width_*` / `get_my_offset_*` accessors (used by
// the `hdl_gen` translation) that it does not document; every item written here is documented.
#![allow(missing_docs)]

use crate::hdl::*;

/// The grant state of one entry: read on every event, for every walked message (its peer)
/// and for every ranked one.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct GqState {
    /// The entry holds a message that is not fully received.
    pub valid: Bit,
    /// The sending peer (IPv4 address; the fairness key).
    pub peer: Bits<32>,
    /// The message length.
    pub length: Bits<32>,
    /// Bytes received.
    pub received: Bits<32>,
    /// Bytes granted (the unscheduled bytes included).
    pub granted: Bits<32>,
}

/// What a GRANT of the entry's message echoes: written when the message takes the entry,
/// read when it is granted.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct GqHeader {
    /// The RPC id, as it arrived.
    pub id: Bits<64>,
    /// The DATA's source port.
    pub sport: Bits<16>,
    /// The DATA's destination port.
    pub dport: Bits<16>,
    /// The DATA's source MAC address.
    pub mac: Bits<48>,
}
