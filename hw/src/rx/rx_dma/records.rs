//! The RX DMA engine's plain-data records: a payload waiting for its header, and the three
//! completions it writes, laid out bit for bit as `homa_proto::hostif` lays out their bytes
//! (little-endian fields, byte 0 in bits 7..0, so a field at byte offset `o` is the part-select
//! at bit `8 * o`). `rx_dma::tests` checks every field's offset against the proto table.

// The `LogicStruct` derive adds public `get_my_width_*` / `get_my_offset_*` accessors (used by
// the `hdl_gen` translation) that it does not document; every item written here is documented.
#![allow(missing_docs)]

use crate::hdl::*;

/// A payload the engine has streamed (or dropped), waiting for its header.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct Pending {
    /// No buffer was held or offered at its first beat: nothing was written.
    pub dropped: Bit,
    /// The buffer's id.
    pub buf_id: Bits<32>,
    /// The buffer's free-running ring index.
    pub buf_index: Bits<32>,
    /// The buffer's length in bytes.
    pub buf_len: Bits<32>,
    /// Payload beats streamed (written or cut at the buffer's end).
    pub beats: Bits<32>,
}

/// `RX_DATA` (`proto::hostif`, 64 bytes), phase byte zero (the completion ring writer sets it).
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct RxDataCpl {
    pub rpc_id: Bits<64>,
    pub kind: Bits<8>,
    pub status: Bits<8>,
    pub flags: Bits<8>,
    pub reserved0: Bits<8>,
    pub length: Bits<16>,
    pub cutoff_version: Bits<16>,
    pub offset: Bits<32>,
    pub buffer_id: Bits<32>,
    pub message_length: Bits<32>,
    pub local_port: Bits<16>,
    pub peer_port: Bits<16>,
    /// `peer`, network order: `p0` is its first byte.
    pub p0: Bits<8>,
    pub p1: Bits<8>,
    pub p2: Bits<8>,
    pub p3: Bits<8>,
    pub p4: Bits<8>,
    pub p5: Bits<8>,
    pub p6: Bits<8>,
    pub p7: Bits<8>,
    pub p8: Bits<8>,
    pub p9: Bits<8>,
    pub p10: Bits<8>,
    pub p11: Bits<8>,
    pub p12: Bits<8>,
    pub p13: Bits<8>,
    pub p14: Bits<8>,
    pub p15: Bits<8>,
    pub ack_client_id: Bits<64>,
    pub incoming: Bits<32>,
    pub ack_server_port: Bits<16>,
    pub reserved1: Bits<8>,
    pub phase: Bits<8>,
}

/// `CONTROL` (`proto::hostif`, 64 bytes), phase byte zero.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct ControlCpl {
    pub rpc_id: Bits<64>,
    pub kind: Bits<8>,
    pub status: Bits<8>,
    pub ptype: Bits<8>,
    pub reserved0: Bits<8>,
    pub local_port: Bits<16>,
    pub peer_port: Bits<16>,
    /// `peer`, network order: `p0` is its first byte.
    pub p0: Bits<8>,
    pub p1: Bits<8>,
    pub p2: Bits<8>,
    pub p3: Bits<8>,
    pub p4: Bits<8>,
    pub p5: Bits<8>,
    pub p6: Bits<8>,
    pub p7: Bits<8>,
    pub p8: Bits<8>,
    pub p9: Bits<8>,
    pub p10: Bits<8>,
    pub p11: Bits<8>,
    pub p12: Bits<8>,
    pub p13: Bits<8>,
    pub p14: Bits<8>,
    pub p15: Bits<8>,
    /// The body window, wire byte `i` in bits `8i+7..8i`.
    pub body: Bits<248>,
    pub phase: Bits<8>,
}

/// `ERROR` (`proto::hostif`, 64 bytes), phase byte zero.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct ErrorCpl {
    pub rpc_id: Bits<64>,
    pub kind: Bits<8>,
    pub status: Bits<8>,
    pub reserved0: Bits<16>,
    pub index: Bits<32>,
    /// `cookie` (the buffer id, zero-extended): low half.
    pub cookie_lo: Bits<32>,
    /// `cookie`: high half (zero).
    pub cookie_hi: Bits<32>,
    pub ring: Bits<8>,
    pub reserved1: Bits<304>,
    pub phase: Bits<8>,
}

/// `TX_DONE` (`proto::hostif`, 64 bytes), phase byte zero: the transmit engine's report that
/// a message's last frame left (built by [`crate::host_rx::HostRx512`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct TxDoneCpl {
    pub rpc_id: Bits<64>,
    pub kind: Bits<8>,
    pub status: Bits<8>,
    pub reserved0: Bits<16>,
    pub length: Bits<32>,
    pub cookie: Bits<64>,
    pub reserved1: Bits<312>,
    pub phase: Bits<8>,
}

/// `GRANT_SENT` (`proto::hostif`, 64 bytes), phase byte zero: a GRANT the NIC's grant
/// generator sent (built by [`crate::host_rx::HostRx512`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct GrantSentCpl {
    pub rpc_id: Bits<64>,
    pub kind: Bits<8>,
    pub status: Bits<8>,
    /// `priority`: its three bits, then five zero ones.
    pub priority: Bits<3>,
    pub priority_z: Bits<5>,
    pub reserved0: Bits<8>,
    pub offset: Bits<32>,
    pub local_port: Bits<16>,
    pub peer_port: Bits<16>,
    /// `peer` (IPv4), network order: `p0` is its first byte.
    pub p0: Bits<8>,
    pub p1: Bits<8>,
    pub p2: Bits<8>,
    pub p3: Bits<8>,
    pub reserved1: Bits<312>,
    pub phase: Bits<8>,
}
