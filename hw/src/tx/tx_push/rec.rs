//! An on-chip payload read as [`super::TxPush512`] keeps it while host reads issued before it
//! are still being answered.

// The `LogicStruct` derive adds public `get_my_width_*` / `get_my_offset_*` accessors (used by
// the `hdl_gen` translation) that it does not document; every item written here is documented.
#![allow(missing_docs)]

use crate::hdl::*;

/// One on-chip payload read, taken and waiting for its turn to stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct OnChipRead {
    /// Host payload beats requested before it (free-running count): it streams once that
    /// many have been passed on.
    pub mark: Bits<32>,
    /// Its first word in the payload area.
    pub first: Bits<8>,
    /// Beats to answer.
    pub beats: Bits<32>,
    /// Inside the payload area at the payload lane (else answered with zeros).
    pub ok: Bit,
}
