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
