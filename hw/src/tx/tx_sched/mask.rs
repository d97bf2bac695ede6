//! The scheduler's eligibility mask as sixteen named bits: rust-hdl has no per-bit write into a
//! `Bits` signal, and assigning a struct field is a part-select write in Verilog.

// The `LogicStruct` derive adds public `get_my_width_*` / `get_my_offset_*` accessors (used by
// the `hdl_gen` translation) that it does not document; every item written here is documented.
#![allow(missing_docs)]

use crate::hdl::*;

/// Bit `mJ` is slot `J`'s: set while the slot has bytes it may send (`m0` is bit 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct Mask16 {
    /// Slot 0.
    pub m0: Bit,
    /// Slot 1.
    pub m1: Bit,
    /// Slot 2.
    pub m2: Bit,
    /// Slot 3.
    pub m3: Bit,
    /// Slot 4.
    pub m4: Bit,
    /// Slot 5.
    pub m5: Bit,
    /// Slot 6.
    pub m6: Bit,
    /// Slot 7.
    pub m7: Bit,
    /// Slot 8.
    pub m8: Bit,
    /// Slot 9.
    pub m9: Bit,
    /// Slot 10.
    pub m10: Bit,
    /// Slot 11.
    pub m11: Bit,
    /// Slot 12.
    pub m12: Bit,
    /// Slot 13.
    pub m13: Bit,
    /// Slot 14.
    pub m14: Bit,
    /// Slot 15.
    pub m15: Bit,
}
