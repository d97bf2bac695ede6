//! The framer's plain-data records: a 512-bit beat as byte lanes, and the zero-extensions its
//! arithmetic needs (rust-hdl has no concatenation, and its `bit_cast` widening trips
//! Verilator's WIDTH lint; assigning a struct field is a part-select write in Verilog).

// The `LogicStruct` derive adds public `get_my_width_*` / `get_my_offset_*` accessors (used by
// the `hdl_gen` translation) that it does not document; every item written here is documented.
#![allow(missing_docs)]

use crate::hdl::*;

/// A 512-bit AXI-Stream beat as 64 byte lanes: `b0` is byte lane 0 (bits 7..0), the first
/// byte of the beat on the wire. Assigning a field is a part-select write in Verilog.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct Beat512 {
    /// Byte lane 0.
    pub b0: Bits<8>,
    /// Byte lane 1.
    pub b1: Bits<8>,
    /// Byte lane 2.
    pub b2: Bits<8>,
    /// Byte lane 3.
    pub b3: Bits<8>,
    /// Byte lane 4.
    pub b4: Bits<8>,
    /// Byte lane 5.
    pub b5: Bits<8>,
    /// Byte lane 6.
    pub b6: Bits<8>,
    /// Byte lane 7.
    pub b7: Bits<8>,
    /// Byte lane 8.
    pub b8: Bits<8>,
    /// Byte lane 9.
    pub b9: Bits<8>,
    /// Byte lane 10.
    pub b10: Bits<8>,
    /// Byte lane 11.
    pub b11: Bits<8>,
    /// Byte lane 12.
    pub b12: Bits<8>,
    /// Byte lane 13.
    pub b13: Bits<8>,
    /// Byte lane 14.
    pub b14: Bits<8>,
    /// Byte lane 15.
    pub b15: Bits<8>,
    /// Byte lane 16.
    pub b16: Bits<8>,
    /// Byte lane 17.
    pub b17: Bits<8>,
    /// Byte lane 18.
    pub b18: Bits<8>,
    /// Byte lane 19.
    pub b19: Bits<8>,
    /// Byte lane 20.
    pub b20: Bits<8>,
    /// Byte lane 21.
    pub b21: Bits<8>,
    /// Byte lane 22.
    pub b22: Bits<8>,
    /// Byte lane 23.
    pub b23: Bits<8>,
    /// Byte lane 24.
    pub b24: Bits<8>,
    /// Byte lane 25.
    pub b25: Bits<8>,
    /// Byte lane 26.
    pub b26: Bits<8>,
    /// Byte lane 27.
    pub b27: Bits<8>,
    /// Byte lane 28.
    pub b28: Bits<8>,
    /// Byte lane 29.
    pub b29: Bits<8>,
    /// Byte lane 30.
    pub b30: Bits<8>,
    /// Byte lane 31.
    pub b31: Bits<8>,
    /// Byte lane 32.
    pub b32: Bits<8>,
    /// Byte lane 33.
    pub b33: Bits<8>,
    /// Byte lane 34.
    pub b34: Bits<8>,
    /// Byte lane 35.
    pub b35: Bits<8>,
    /// Byte lane 36.
    pub b36: Bits<8>,
    /// Byte lane 37.
    pub b37: Bits<8>,
    /// Byte lane 38.
    pub b38: Bits<8>,
    /// Byte lane 39.
    pub b39: Bits<8>,
    /// Byte lane 40.
    pub b40: Bits<8>,
    /// Byte lane 41.
    pub b41: Bits<8>,
    /// Byte lane 42.
    pub b42: Bits<8>,
    /// Byte lane 43.
    pub b43: Bits<8>,
    /// Byte lane 44.
    pub b44: Bits<8>,
    /// Byte lane 45.
    pub b45: Bits<8>,
    /// Byte lane 46.
    pub b46: Bits<8>,
    /// Byte lane 47.
    pub b47: Bits<8>,
    /// Byte lane 48.
    pub b48: Bits<8>,
    /// Byte lane 49.
    pub b49: Bits<8>,
    /// Byte lane 50.
    pub b50: Bits<8>,
    /// Byte lane 51.
    pub b51: Bits<8>,
    /// Byte lane 52.
    pub b52: Bits<8>,
    /// Byte lane 53.
    pub b53: Bits<8>,
    /// Byte lane 54.
    pub b54: Bits<8>,
    /// Byte lane 55.
    pub b55: Bits<8>,
    /// Byte lane 56.
    pub b56: Bits<8>,
    /// Byte lane 57.
    pub b57: Bits<8>,
    /// Byte lane 58.
    pub b58: Bits<8>,
    /// Byte lane 59.
    pub b59: Bits<8>,
    /// Byte lane 60.
    pub b60: Bits<8>,
    /// Byte lane 61.
    pub b61: Bits<8>,
    /// Byte lane 62.
    pub b62: Bits<8>,
    /// Byte lane 63.
    pub b63: Bits<8>,
}

/// A 512-bit value as its byte lanes (lane `i` is bits `8i+7..8i`, the same layout in
/// Verilog, where `.into()` in `hdl_gen` code is a plain assignment).
impl From<Bits<512>> for Beat512 {
    fn from(v: Bits<512>) -> Self {
        let mut b = [0u8; 64];
        b.copy_from_slice(&crate::hdl::le_bytes_of(v));
        Beat512::from_bytes(&b)
    }
}

impl Beat512 {
    /// The beat whose byte lane `i` is `b[i]` (for benches driving a `Beat512` port).
    pub fn from_bytes(b: &[u8; 64]) -> Self {
        Beat512 {
            b0: Bits::from(u64::from(b[0])),
            b1: Bits::from(u64::from(b[1])),
            b2: Bits::from(u64::from(b[2])),
            b3: Bits::from(u64::from(b[3])),
            b4: Bits::from(u64::from(b[4])),
            b5: Bits::from(u64::from(b[5])),
            b6: Bits::from(u64::from(b[6])),
            b7: Bits::from(u64::from(b[7])),
            b8: Bits::from(u64::from(b[8])),
            b9: Bits::from(u64::from(b[9])),
            b10: Bits::from(u64::from(b[10])),
            b11: Bits::from(u64::from(b[11])),
            b12: Bits::from(u64::from(b[12])),
            b13: Bits::from(u64::from(b[13])),
            b14: Bits::from(u64::from(b[14])),
            b15: Bits::from(u64::from(b[15])),
            b16: Bits::from(u64::from(b[16])),
            b17: Bits::from(u64::from(b[17])),
            b18: Bits::from(u64::from(b[18])),
            b19: Bits::from(u64::from(b[19])),
            b20: Bits::from(u64::from(b[20])),
            b21: Bits::from(u64::from(b[21])),
            b22: Bits::from(u64::from(b[22])),
            b23: Bits::from(u64::from(b[23])),
            b24: Bits::from(u64::from(b[24])),
            b25: Bits::from(u64::from(b[25])),
            b26: Bits::from(u64::from(b[26])),
            b27: Bits::from(u64::from(b[27])),
            b28: Bits::from(u64::from(b[28])),
            b29: Bits::from(u64::from(b[29])),
            b30: Bits::from(u64::from(b[30])),
            b31: Bits::from(u64::from(b[31])),
            b32: Bits::from(u64::from(b[32])),
            b33: Bits::from(u64::from(b[33])),
            b34: Bits::from(u64::from(b[34])),
            b35: Bits::from(u64::from(b[35])),
            b36: Bits::from(u64::from(b[36])),
            b37: Bits::from(u64::from(b[37])),
            b38: Bits::from(u64::from(b[38])),
            b39: Bits::from(u64::from(b[39])),
            b40: Bits::from(u64::from(b[40])),
            b41: Bits::from(u64::from(b[41])),
            b42: Bits::from(u64::from(b[42])),
            b43: Bits::from(u64::from(b[43])),
            b44: Bits::from(u64::from(b[44])),
            b45: Bits::from(u64::from(b[45])),
            b46: Bits::from(u64::from(b[46])),
            b47: Bits::from(u64::from(b[47])),
            b48: Bits::from(u64::from(b[48])),
            b49: Bits::from(u64::from(b[49])),
            b50: Bits::from(u64::from(b[50])),
            b51: Bits::from(u64::from(b[51])),
            b52: Bits::from(u64::from(b[52])),
            b53: Bits::from(u64::from(b[53])),
            b54: Bits::from(u64::from(b[54])),
            b55: Bits::from(u64::from(b[55])),
            b56: Bits::from(u64::from(b[56])),
            b57: Bits::from(u64::from(b[57])),
            b58: Bits::from(u64::from(b[58])),
            b59: Bits::from(u64::from(b[59])),
            b60: Bits::from(u64::from(b[60])),
            b61: Bits::from(u64::from(b[61])),
            b62: Bits::from(u64::from(b[62])),
            b63: Bits::from(u64::from(b[63])),
        }
    }
}

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
