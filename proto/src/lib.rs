//! `homa-proto`: the contracts that every homa-nic crate shares.
//!
//! This crate sits at the bottom of the workspace (`proto` ← `hw`, `driver`, `sim` ←
//! `host-lib` ← the CLI) and depends on none of them. It holds, each defined exactly once:
//!
//! - [`wire`]: the Homa packet formats of the current Linux HomaModule, byte for byte, over
//!   Ethernet II (optionally 802.1Q-tagged), IPv4 and IPv6, as zero-copy views plus
//!   high-level `Repr`s with `parse`/`emit` (the smoltcp pattern).
//!
//! - [`policy`]: the grant, SRPT and priority decisions as pure functions: the reference
//!   model the hardware must match.
//! - [`core`]: the sans-IO Homa protocol engine of one host, built on `policy`.
//!
//! - [`regs`]: the NIC register map (self-describing blocks), from which the hardware
//!   decoder, the driver accessors and `docs/regs.md` are derived. Descriptor and completion
//!   layouts join it with the driver.
//! - [`etherbone`]: Etherbone (Wishbone over UDP), how a host reaches the open-flow board's
//!   registers and memory.

pub mod core;
pub mod etherbone;
pub mod hostif;
pub mod policy;
pub mod regs;
pub mod wire;
