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
pub use rust_hdl::widgets::prelude::DFF;
