//! A simulated host's homa-nic: the Verilated NIC core of `hw/rtl` (`homa_nic_core_w512`, or
//! `homa_nic_core_w64` with [`NicTiming::beat_bytes`] 8:
//! parser, inbound message table, grant generator, GRANT framer, RX host queues, TX
//! descriptor ring, transmit engine and register file) clocked at the NIC clock, between the
//! fabric and the host stack that applications link.
//!
//! ```text
//!  fabric ──frame──► RtlNic::receive ─► MAC FIFO ─► s_axis (a beat/cycle) ─► Verilated core
//!                                                     m_dma_wr / m_dma_rd / _txrd / _payrd
//!   host memory ◄── payloads, completions (land one PCIe latency later) ─────────┘ ▲
//!        ▲  └── rings, buffers, TX payloads (read a PCIe round trip later) ──────────┘
//!        │                                                       s_reg (register bus)
//!   homa_driver::Nic ── NicDevice: register writes (posted, one PCIe latency) ─────┘
//!        ▲             register reads (a PCIe round trip the host waits for)
//!   homa_host::NicTransport ◄─► homa_host::EndpointCore  (NicHost: the host stack)
//!        └─ control packets (RESEND, ACK, ...) ─► WirePort ─► wire, one PCIe latency later
//!  fabric ◄── NicOutput::Grant / NicOutput::Data (frames built by the RTL)
//! ```
//!
//! What is RTL and what is modelled:
//! - RTL, cycle by cycle: every received frame is parsed by the hardware parser (malformed
//!   frames are dropped and counted there); every grant decision and every GRANT frame on
//!   the wire comes from the hardware; every DATA payload is written by the hardware's DMA
//!   engine into an RX buffer the driver posted, from descriptors the hardware fetched, and
//!   reported in a completion the hardware wrote; every DATA frame on the wire is built by
//!   the hardware's transmit engine from a TX descriptor the host posted and payload it read
//!   by DMA, cut and sent by SRPT as the receiver's GRANTs (taken off the wire by the same
//!   core) allow, with a `TX_DONE` completion per descriptor. Every register access is a
//!   transaction on the core's register bus: the driver's probe, its init sequence, its
//!   doorbells, its reads of a ring's consumer index.
//! - The host side is the code a host with the FPGA runs: `homa_host`'s endpoint
//!   (`EndpointCore`) over `NicTransport` over the driver's `Nic`, over [`NicDevice`] here
//!   and over VFIO there ([`NicHost`]). It learns of packets from its completion ring alone,
//!   and of its rings' progress from its completions.
//! - Modelled: the MAC's receive FIFO in front of the core (128 KiB: a frame that finds it
//!   full is dropped and counted, [`NicCounters::mac_drops`], as a MAC drops when the core
//!   back-pressures it, e.g. when the host stops taking completions); host memory
//!   ([`homa_driver::MemDevice`]: DMA outside what the driver allocated is refused and
//!   counted in [`NicCounters::dma_faults`]); PCIe as a fixed one-way latency
//!   ([`NicTiming::pcie_ns`]) on DMA reads (a round trip), DMA writes (they land in host
//!   memory one latency later, and the host wakes then), register writes (posted) and
//!   register reads (a round trip, during which the host issues nothing); the payload read
//!   channel, which answers with the first byte at lane 26 (the DMA engine's placement).
//!   Host software takes no time. The host's control packets (RESEND, ACK, NEED_ACK,
//!   CUTOFFS, BUSY, RPC_UNKNOWN, its own GRANTs) are not framed by the hardware: they reach
//!   the wire one PCIe latency after the host sends them.
//!
//! Idle NICs are not clocked: a core with nothing in flight and nothing to output holds its
//! state, so the simulator skips to the next frame's arrival (the free-running cycle counter
//! of the register file lags by the skipped cycles; nothing else reads the time).
//!
//! [`RtlNet`] joins a few such hosts for application code and examples; the cluster's `rtl`
//! engine (`crate::cluster`) runs one per host on the fabric. The NIC's own tests check
//! every packet the driver rebuilds from its completions against `proto::wire`'s parse of
//! the frame it came from, its payload byte for byte.

#[cfg(homa_rtl)]
mod device;
#[cfg(homa_rtl)]
mod rtl;
#[cfg(homa_rtl)]
pub use device::{NicDevice, SimDevice};
#[cfg(homa_rtl)]
pub use rtl::RtlNic;
#[cfg(homa_rtl)]
mod stack;
#[cfg(homa_rtl)]
pub use stack::{NicHost, RINGS, TX_AREA_BYTES, WirePort};
#[cfg(homa_rtl)]
mod net;
#[cfg(homa_rtl)]
pub use net::{HOP_PS, ROUTER_MAC, RtlNet};

use crate::time::Ps;

/// Clock and host-interface timing of a simulated NIC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NicTiming {
    /// NIC clock in MHz (250 for the 512-bit datapath at 100 Gb/s).
    pub clock_mhz: u32,
    /// One-way latency of a host-NIC transfer over PCIe, in ns: a received packet reaches
    /// the host engine this long after the NIC outputs it, and a packet the engine sends
    /// reaches the wire this long after it is posted.
    pub pcie_ns: u32,
    /// Bytes a beat on the core's MAC and DMA ports: 64 (`homa_nic_core_w512`, the Alveo
    /// configuration) or 8 (`homa_nic_core_w64`, the small one).
    pub beat_bytes: u32,
}

impl Default for NicTiming {
    fn default() -> Self {
        NicTiming {
            clock_mhz: 250,
            pcie_ns: 500,
            beat_bytes: 64,
        }
    }
}

impl NicTiming {
    /// Picoseconds per NIC clock cycle.
    pub fn period_ps(&self) -> Ps {
        1_000_000 / Ps::from(self.clock_mhz.max(1))
    }

    /// The host-NIC latency in picoseconds.
    pub fn pcie_ps(&self) -> Ps {
        Ps::from(self.pcie_ns) * 1_000
    }
}

/// What a traced NIC did ([`RtlNic::set_tracing`]), with the time it happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NicEvent {
    /// A TX doorbell (`QUEUE.tx_producer`) reached the register bus.
    TxDoorbell,
    /// A TX descriptor came back from host memory.
    DescriptorRead,
    /// The first beat of a payload came back from host memory.
    PayloadRead,
    /// A DATA frame the NIC built left it (its last byte).
    FrameOut,
    /// A frame from the wire entered the core (its last beat).
    FrameIn,
    /// A DMA write landed in host memory (a payload or a completion).
    Landed,
}

/// What a NIC puts on the wire.
#[derive(Debug, Clone)]
pub enum NicOutput {
    /// A GRANT frame the hardware built.
    Grant {
        /// The Ethernet frame.
        frame: Vec<u8>,
    },
    /// A DATA frame the hardware built from a TX descriptor the host posted: for the wire.
    Data {
        /// The Ethernet frame.
        frame: Vec<u8>,
    },
}

/// What a NIC counted; the hardware's own counters are read from its registers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NicCounters {
    /// Frames the NIC took from the wire.
    pub frames_in: u64,
    /// Packets passed to the host.
    pub to_host: u64,
    /// GRANT frames the hardware sent.
    pub grants: u64,
    /// DATA frames the hardware built and sent (from the host's TX descriptors).
    pub data_frames: u64,
    /// Packets the host rebuilt from its completions (header or payload) that differ from
    /// `proto::wire`'s parse of the frame they came from, or that no valid frame explains.
    pub parse_mismatches: u64,
    /// Cycles the model was clocked.
    pub cycles: u64,
    /// Completions the host read from its completion ring.
    pub rx_completions: u64,
    /// `ERROR` completions among them.
    pub rx_errors: u64,
    /// DATA packets whose completion said the NIC does not grant their message (flags bit
    /// 1: its message-table entry held another message, or the peer is IPv6).
    pub host_grants: u64,
    /// `GRANT_SENT` completions: GRANTs the NIC reported to its host (each checked against
    /// the GRANT frame it sent).
    pub nic_grants: u64,
    /// DATA packets whose payload never reached a buffer (none was posted): Homa's RESEND
    /// repairs them.
    pub rx_lost: u64,
    /// ACK entries past the two a `CONTROL` completion carries (the server frees those RPCs
    /// when it asks again with NEED_ACK).
    pub acks_not_carried: u64,
    /// DMA accesses outside the memory the driver allocated (must be 0).
    pub dma_faults: u64,
    /// Frames the MAC dropped because its receive FIFO in front of the core was full (the
    /// core stalled, or frames came faster than it takes them). Homa's RESEND repairs them.
    pub mac_drops: u64,
    /// Register reads from the host (each a PCIe round trip the host waits for).
    pub bus_reads: u64,
    /// Register writes from the host (doorbells, configuration).
    pub bus_writes: u64,
    /// 64-byte pushes from the host into on-chip TX memory (descriptors, small payloads).
    pub pushes: u64,
}

/// Why a NIC could not be built.
#[derive(Debug, thiserror::Error)]
pub enum NicError {
    /// The driver refused the configuration or the device (probe, ID, versions).
    #[error("simulated NIC: {0}")]
    Driver(#[from] homa_driver::DriverError),
    /// The register map has no such register.
    #[error("register {block}.{name} is not in proto::regs")]
    NoRegister {
        /// Block name.
        block: &'static str,
        /// Register name.
        name: String,
    },
    /// A simulated host could not join the in-process network.
    #[error("simulated host: {0}")]
    Attach(#[source] homa_host::Error),
    /// A simulated host's transport over its NIC could not be set up.
    #[error("simulated host: {0}")]
    Transport(#[source] homa_host::TransportError),
    /// The RTL engine was asked for but Verilator was not available at build time.
    #[error(
        "the rtl engine needs the Verilated NIC, which was not built (Verilator was missing at \
         build time): run scripts/setup.sh, then cargo build again"
    )]
    NotBuilt,
    /// No core of that width is generated.
    #[error(
        "no NIC core is {0} bytes a beat: the generated cores are homa_nic_core_w512 (64) and \
         homa_nic_core_w64 (8)"
    )]
    BeatWidth(u32),
}

/// A simulated NIC as the driver sees it ([`homa_driver::Device`]): a Verilated core just
/// out of reset (`SimDevice`), or [`NicError::NotBuilt`] when Verilator was missing at
/// build time.
pub fn sim_device() -> Result<Box<dyn homa_driver::Device>, NicError> {
    #[cfg(homa_rtl)]
    {
        Ok(Box::new(SimDevice::new()))
    }
    #[cfg(not(homa_rtl))]
    Err(NicError::NotBuilt)
}

#[cfg(all(test, homa_rtl))]
mod hosted;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tx_tests;
