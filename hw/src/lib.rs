//! `homa-hw`: the on-NIC Homa pipeline, described in Rust-HDL, and its Verilog generator.
//!
//! Place in the workspace: depends only on `homa-proto`, whose `wire::field` offsets and
//! (later) `regs` tables it turns into hardware; `sim` verilates what it generates into
//! `hw/rtl/`.
//!
//! Status: empty. The blocks (RX parser, inbound message table and grant generator, TX SRPT
//! scheduler, register file, host queues) and `homa-nic gen` arrive with the
//! hardware-pipeline issue; see `DESIGN.md` §2 and §5 for what each must do and how it is
//! tested.
