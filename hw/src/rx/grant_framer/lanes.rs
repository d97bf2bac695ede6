//! The framers' plain-data records: the zero-extensions their arithmetic needs (rust-hdl
//! has no concatenation, and its `bit_cast` widening trips Verilator's WIDTH lint; assigning
//! a struct field is a part-select write in Verilog).

// The `LogicStruct` derive adds public `get_my_width_*` / `get_my_offset_*` accessors (used by
// the `hdl_gen` translation) that it does not document; every item written here is documented.
#![allow(missing_docs)]

use crate::hdl::*;

/// A priority in bits 7..5 of a byte (the IPv4 TOS).
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct Prio8 {
    /// Bits 4..0: zero.
    pub z: Bits<5>,
    /// Bits 7..5: the priority.
    pub p: Bits<3>,
}

/// A priority in bits 2..0 of a byte (the GRANT's priority field).
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct Prio8Low {
    /// Bits 2..0: the priority.
    pub p: Bits<3>,
    /// Bits 7..3: zero.
    pub z: Bits<5>,
}

/// 16 bits zero-extended to 20.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct Lo16In20 {
    /// The value.
    pub lo: Bits<16>,
    /// Zero.
    pub z: Bits<4>,
}

/// 4 bits zero-extended to 20.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct Lo4In20 {
    /// The value.
    pub lo: Bits<4>,
    /// Zero.
    pub z: Bits<16>,
}

/// 16 bits zero-extended to 32.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct Lo16In32 {
    /// The value.
    pub lo: Bits<16>,
    /// Zero.
    pub z: Bits<16>,
}

/// A 64-bit value from its two 32-bit registers.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct Lo32Hi32 {
    /// Bits 31-0.
    pub lo: Bits<32>,
    /// Bits 63-32.
    pub hi: Bits<32>,
}

/// A MAC address from its two registers: `lo` holds bytes 2-5, `hi` bytes 0-1.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct Mac48 {
    /// Bytes 2-5 (byte 5 least significant).
    pub lo: Bits<32>,
    /// Bytes 0-1.
    pub hi: Bits<16>,
}
