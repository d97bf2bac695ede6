//! `homa-sim`: everything needed to run homa-nic without an FPGA.
//!
//! Place in the workspace: over `homa-proto`. Today it holds the network-simulation half,
//! generic over the packet type and free of Homa protocol logic:
//! - [`time`]: simulated time in picoseconds and serialization helpers;
//! - [`event`]: a deterministic discrete-event queue;
//! - [`rng`]: the seeded, portable random generator every random choice uses;
//! - [`fabric`]: hosts, links and store-and-forward switches (single switch or the paper's
//!   two-level topology with per-packet spraying), eight strict priorities, drop-tail buffers,
//!   injected loss/duplication/reordering, and the ideal (idle-network) delivery time;
//! - [`workload`]: the Homa paper's message-size distributions W1-W5 and Poisson arrivals;
//! - [`stats`]: slowdown statistics per message-size bucket and the SIGCOMM'18 published
//!   results to compare against.
//!
//! Still to come: the glue that runs the protocol engine of `homa-proto` over the fabric, the
//! Verilator co-simulation of the generated RTL of `hw`, and the host-memory/DMA model.

pub mod event;
pub mod fabric;
pub mod rng;
pub mod stats;
pub mod time;
pub mod workload;
