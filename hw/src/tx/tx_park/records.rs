//! The park's plain-data records: a parked message, and a lookup waiting in its queue.

// The `LogicStruct` derive adds public `get_my_width_*` / `get_my_offset_*` accessors (used by
// the `hdl_gen` translation) that it does not document; every item written here is documented.
#![allow(missing_docs)]

use crate::hdl::*;

/// A parked SEND_MESSAGE: what [`crate::tx_sched::TxSched16`] needs to take it back.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct ParkEntry {
    /// The entry holds a message.
    pub valid: Bit,
    /// Flag NO_COMPLETION.
    pub nocpl: Bit,
    /// Local port.
    pub sport: Bits<16>,
    /// Peer's port.
    pub dport: Bits<16>,
    /// RPC id (the local one).
    pub id: Bits<64>,
    /// Peer IPv4 address.
    pub peer: Bits<32>,
    /// Message length.
    pub length: Bits<32>,
    /// IOVA of the message's first byte.
    pub iova: Bits<64>,
    /// The descriptor's cookie.
    pub cookie: Bits<64>,
    /// Its ring index.
    pub index: Bits<32>,
    /// Bytes sent (the resume offset).
    pub sent: Bits<32>,
    /// Bytes left to send.
    pub left: Bits<32>,
    /// Bytes granted.
    pub granted: Bits<32>,
    /// Scheduled priority.
    pub sprio: Bits<3>,
}

/// A GRANT that matched no slot, or a CANCEL, waiting to look up the park.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct ParkItem {
    /// A CANCEL (otherwise a GRANT).
    pub cancel: Bit,
    /// Peer IPv4 address.
    pub peer: Bits<32>,
    /// RPC id (the local one: a GRANT's `sender_id` with the low bit flipped).
    pub id: Bits<64>,
    /// The GRANT's offset.
    pub offset: Bits<32>,
    /// The GRANT's priority.
    pub prio: Bits<3>,
}

/// One way of the park's key table: a parked message's key and where its entry is.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct KeyWay {
    /// The way holds a key.
    pub valid: Bit,
    /// Peer IPv4 address.
    pub peer: Bits<32>,
    /// RPC id (the local one).
    pub id: Bits<64>,
    /// The message's entry.
    pub ptr: Bits<10>,
}

/// Where an entry's key is in the key table (kept beside the entry, so that a message
/// brought back by its entry alone clears its key without hashing it again).
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct KeyLoc {
    /// The bucket.
    pub bucket: Bits<9>,
    /// Which of the four ways: choice (bit 1) and way within the bucket (bit 0).
    pub way: Bits<2>,
}
