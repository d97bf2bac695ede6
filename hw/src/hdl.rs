//! The thin seam between `homa-hw` and rust-hdl 0.46 (pinned in the workspace manifest).
//!
//! Every other module of this crate imports rust-hdl through here and only through here, so a
//! later move to another generator (rust-hdl is frozen upstream; RHDL is its successor) stays
//! local to this file and to the blocks themselves. The list is what the blocks and the
//! `LogicBlock` / `LogicStruct` / `hdl_gen` macros need (the macros expand to unqualified
//! `ast::`, `block::`, `probe::`, `Bits`, `bit_cast`, `Synth`, ... paths).

pub use rust_hdl::prelude::{
    Bit, Bits, Block, Clock, Constant, In, LiteralType, Local, Logic, LogicBlock, LogicStruct, Out,
    Signal, Synth, TypeDescriptor, TypeField, TypeKind, VCDValue, Verilog, VerilogLiteral, ast,
    bit_cast, block, dff_setup, generate_verilog, hdl_gen, logic, probe, simulate,
};
pub use rust_hdl::widgets::prelude::{DFF, RAM};

/// Sets a block's clock to `high` and lets its logic settle: one half-cycle of the direct
/// simulation loop that the block tests use instead of rust-hdl's threaded testbench.
/// Panics (a test failure) if the model does not settle within 1000 delta steps.
pub fn clock_half<U: Block>(uut: &mut U, clock: fn(&mut U) -> &mut Signal<In, Clock>, high: bool) {
    clock(uut).next = Clock { clk: high };
    assert!(simulate(uut, 1000), "the model did not settle");
}

/// The benches' reset: `reset` high for two clock cycles, then low again before the next
/// rising edge.
pub fn reset_two_cycles<U: Block>(
    uut: &mut U,
    clock: fn(&mut U) -> &mut Signal<In, Clock>,
    reset: fn(&mut U) -> &mut Signal<In, Bit>,
) {
    reset(uut).next = true;
    for _ in 0..2 {
        clock_half(uut, clock, false);
        clock_half(uut, clock, true);
    }
    reset(uut).next = false;
}

/// A `W`-bit value whose byte lane `i` (bits `8i+7..8i`) is `bytes[i]`, missing bytes zero:
/// how the benches drive a data bus from bytes. Bytes past `W` bits are dropped.
pub fn bits_from_le_bytes<const W: usize>(bytes: &[u8]) -> Bits<W> {
    let mut v: Bits<W> = Bits::default();
    for chunk in (0..W.div_ceil(64)).rev() {
        let mut b = [0u8; 8];
        for (i, x) in b.iter_mut().enumerate() {
            *x = bytes.get(chunk * 8 + i).copied().unwrap_or(0);
        }
        let lane: Bits<W> = u64::from_le_bytes(b).into();
        v = if W > 64 { (v << 64) | lane } else { lane };
    }
    v
}

/// The byte lanes of a `W`-bit value, lane 0 first (the inverse of [`bits_from_le_bytes`]).
pub fn le_bytes_of<const W: usize>(v: Bits<W>) -> Vec<u8> {
    (0..W / 8).map(|i| v.get_bits::<8>(8 * i).to_u8()).collect()
}
