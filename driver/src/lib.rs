//! `homa-driver`: how the host reaches the NIC.
//!
//! Place in the workspace: depends on `homa-proto` (register map in `proto::regs`, host-queue
//! layouts and ring arithmetic in `proto::hostif`); used by `host-lib` and the `homa-nic`
//! tool. Layers, bottom up:
//!
//! - [`Device`]: what every backend offers: 32-bit BAR0 register reads and writes,
//!   DMA memory ([`DmaRegion`], reached only through volatile accesses), doorbells (register
//!   writes ordered after the memory writes they announce) and a `poll` hook. Backends:
//!   [`VfioDevice`] (a real FPGA NIC through Linux VFIO), [`MemDevice`] (registers and DMA
//!   memory in plain host memory, nothing behind them: for tests, and as the base the
//!   simulated backend over the Verilated NIC will build on).
//! - Ring logic shared by every backend: [`TxRing`], [`RxBufRing`] and [`CompletionRing`]
//!   over a `DmaRegion` and the QUEUE registers; [`TxQueue`]: the messages a host hands to
//!   the NIC, posted as there is room (CANCELs first, then fewest bytes first), their
//!   payloads in the NIC's TX window ([`TxBuffers`] over an [`Arena`]: first-fit ranges,
//!   freed at `TX_DONE`).
//! - [`Nic`]: the init sequence (walk the self-describing register blocks, check the ID
//!   block and versions, program CONFIG, set up the rings and RX buffers) and the datapath
//!   calls (`send`, `poll_completion`, `repost_rx_buffer`), and [`Nic::receive`]: the
//!   receive datapath, completions back into packets, buffers given back in batches.
//!
//! Why `vfio-ioctls` rather than `pci-driver`: `vfio-ioctls` (rust-vmm, used by Cloud
//! Hypervisor) is maintained, keeps raw bindings, ioctl wrappers and safe types apart as this
//! crate does, documents the safety contract of DMA-mapped memory that this crate follows,
//! and builds without KVM (`default-features = false`). `pci-driver` 0.1 is a smaller,
//! young crate with one maintainer; both claim the VFIO group, so only one can be used.
//!
//! `unsafe` lives in one module (`mmio`: mapping BAR0 and DMA memory, volatile accesses,
//! the IOMMU map call), each block with a `// SAFETY:` note; the rest of the crate is safe.
//! Errors: one [`DriverError`], variants named after the failing operation.

mod arena;
mod device;
mod dma;
mod error;
mod etherbone;
mod mem;
#[allow(unsafe_code)]
mod mmio;
mod nic;
mod pci;
mod ring;
mod ring_reads;
mod rx;
mod soft_nic;
#[cfg(test)]
mod testing;
mod tx_buffers;
mod tx_queue;
mod vfio;

pub use arena::Arena;
pub use device::{Device, check_push, check_register};
pub use dma::{DmaRegion, RemoteMemory};
pub use error::{DriverError, Result};
pub use etherbone::{Bus, EtherboneDevice, EtherboneEndpoint, MemoryBus, Patience};
pub use mem::MemDevice;
pub use nic::{
    FoundBlock, IdBlock, Nic, NicConfig, Probe, RegisterValue, RingSizes, enable, read_registers,
};
pub use pci::PciAddress;
pub use ring::{CompletionRing, Entry, ProducerRing, RingRegs, RxBufRing, TxRing};
pub use rx::Received;
pub use soft_nic::SoftNic;
pub use tx_buffers::{Placement, Released, TxBuffers};
pub use tx_queue::{Post, TxQueue};
pub use vfio::{VfioDevice, VfioPaths};
