//! `homa-sim`: everything needed to run homa-nic without an FPGA.
//!
//! Place in the workspace: over `homa-proto`; it will verilate the generated RTL of `hw`
//! and wrap it for Rust, model host memory and DMA, model the network fabric (links,
//! switches with eight strict priorities, loss) and generate the Homa paper's workloads
//! W1-W5.
//!
//! Status: empty; the fabric and workloads arrive with the protocol-engine issue, the
//! Verilator co-simulation with the hardware-pipeline issue.
