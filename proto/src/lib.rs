//! `homa-proto`: the contracts that every homa-nic crate shares.
//!
//! This crate sits at the bottom of the workspace (`proto` ← `hw`, `driver`, `sim` ←
//! `host-lib` ← the CLI) and depends on none of them. It holds, each defined exactly once:
//!
//! - [`wire`]: the Homa packet formats of the current Linux HomaModule, byte for byte, over
//!   Ethernet II (optionally 802.1Q-tagged), IPv4 and IPv6, as zero-copy views plus
//!   high-level `Repr`s with `parse`/`emit` (the smoltcp pattern).
//!
//! Later issues add `regs` (the NIC register map and descriptor layouts), `core` (the sans-IO
//! Homa protocol engine) and `policy` (the grant and SRPT decisions that the hardware must
//! match).

pub mod wire;
