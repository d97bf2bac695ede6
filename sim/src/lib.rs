//! `homa-sim`: everything needed to run homa-nic without an FPGA.
//!
//! Place in the workspace: over `homa-proto`. It holds the network simulation, generic over
//! the packet type and free of Homa protocol logic, and the cluster that runs the protocol
//! engine on it:
//! - [`time`]: simulated time in picoseconds and serialization helpers;
//! - [`event`]: a deterministic discrete-event queue;
//! - [`rng`]: the seeded, portable random generator every random choice uses;
//! - [`fabric`]: hosts, links and store-and-forward switches (single switch or the paper's
//!   two-level topology with per-packet spraying), eight strict priorities, drop-tail buffers,
//!   injected loss/duplication/reordering, and the ideal (idle-network) delivery time;
//! - [`workload`]: the Homa paper's message-size distributions W1-W5 and Poisson arrivals;
//! - [`stats`]: slowdown statistics per message-size bucket and the SIGCOMM'18 published
//!   results to compare against;
//! - [`preset`]: Homa parameters for simulations (the SIGCOMM'18 settings per workload);
//! - [`stress`]: the stress matrix (workloads x loads x losses, duplication, reordering,
//!   incast) over the cluster, each run checked against Homa's promises;
//! - [`cluster`]: hosts on the fabric, driven by a workload, measured as slowdown per
//!   message size, RPCs and round trips; with `Engine::Model` each host is a bare
//!   `proto::core` engine that meets the fabric directly (the fast model), with
//!   `Engine::Rtl` it runs the host stack applications link (`homa_host` over the driver)
//!   over a Verilated homa-nic;
//! - [`nic`]: that simulated NIC — the Verilated NIC core clocked at the NIC clock, reached
//!   by the driver through [`nic::NicDevice`] (a `Device` with a PCIe latency model), the
//!   host stack over it ([`nic::NicHost`]) and a small network of such hosts
//!   ([`nic::RtlNet`]);
//! - [`rtl`]: Verilator co-simulation — the Verilog models of `hw/rtl` built into Rust
//!   wrappers driven cycle by cycle (the crate's only `unsafe`, in its FFI module).
//!
//! Still to come: control packets (RESEND, ACK, ...) framed by the NIC from host
//! descriptors.

pub mod baseline;
pub mod cluster;
pub mod collective;
pub mod event;
pub mod fabric;
pub mod nic;
pub mod preset;
pub mod rng;
pub mod rtl;
pub mod stats;
pub mod stress;
pub mod time;
pub mod workload;
