//! One decided DATA packet as the engine's job FIFO keeps it, between the scheduler's pick
//! (when its payload read is requested) and the framer (when the payload comes back).

// The `LogicStruct` derive adds public `get_my_width_*` / `get_my_offset_*` accessors (used by
// the `hdl_gen` translation) that it does not document; every item written here is documented.
#![allow(missing_docs)]

use crate::hdl::*;

/// The header fields of one DATA packet (`TxSched16`'s `m_job_*` less the payload address).
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct JobRec {
    /// Offset in the message.
    pub offset: Bits<32>,
    /// Payload bytes.
    pub len: Bits<32>,
    /// Priority.
    pub priority: Bits<3>,
    /// Retransmit flag.
    pub retransmit: Bit,
    /// DATA's `incoming`.
    pub incoming: Bits<32>,
    /// The range's last packet.
    pub last: Bit,
    /// No `TX_DONE`.
    pub no_completion: Bit,
    /// Peer IPv4 address.
    pub peer: Bits<32>,
    /// Local port.
    pub sport: Bits<16>,
    /// Peer's port.
    pub dport: Bits<16>,
    /// RPC id.
    pub id: Bits<64>,
    /// Message length.
    pub length: Bits<32>,
    /// Cookie.
    pub cookie: Bits<64>,
    /// Ring index.
    pub index: Bits<32>,
}
