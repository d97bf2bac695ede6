//! The thin seam between `homa-hw` and rust-hdl 0.46 (pinned in the workspace manifest).
//!
//! Every other module of this crate imports rust-hdl through here and only through here, so a
//! later move to another generator (rust-hdl is frozen upstream; RHDL is its successor) stays
//! local to this file and to the blocks themselves. The list is what the blocks and the
//! `LogicBlock` / `LogicStruct` / `hdl_gen` macros need (the macros expand to unqualified
//! `ast::`, `block::`, `probe::`, `Bits`, `bit_cast`, `Synth`, ... paths).

pub use rust_hdl::prelude::{
    Bit, Bits, Block, Clock, Constant, In, LiteralType, Local, Logic, LogicBlock, LogicStruct, Out,
    Signal, Synth, TypeDescriptor, TypeField, TypeKind, VCDValue, VerilogLiteral, ast, bit_cast,
    block, dff_setup, generate_verilog, hdl_gen, logic, probe, simulate,
};
pub use rust_hdl::widgets::prelude::{DFF, RAM};

/// Sets a block's clock to `high` and lets its logic settle: one half-cycle of the direct
/// simulation loop that the block tests use instead of rust-hdl's threaded testbench.
/// Panics (a test failure) if the model does not settle within 1000 delta steps.
pub fn clock_half<U: Block>(uut: &mut U, clock: fn(&mut U) -> &mut Signal<In, Clock>, high: bool) {
    clock(uut).next = Clock { clk: high };
    assert!(simulate(uut, 1000), "the model did not settle");
}
