//! `homa-driver`: how the host reaches the NIC.
//!
//! Place in the workspace: depends on `homa-proto` (register map, descriptor layouts); used
//! by `host-lib`. It will hold the `Device` trait (registers, DMA memory, doorbells,
//! completions), the ring logic shared by every backend, the VFIO backend for a real FPGA
//! NIC, and the simulated backend over the Verilated NIC. It is the only crate allowed
//! `unsafe`, each block with a `// SAFETY:` note.
//!
//! Status: empty; it arrives with the driver issue.
