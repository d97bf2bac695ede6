//! `homa-hw`: the on-NIC Homa pipeline, described in Rust-HDL, and its Verilog generator.
//!
//! Place in the workspace: depends only on `homa-proto`, whose `wire::field` offsets,
//! `wire` emitter (the GRANT template), `policy` and `regs` tables it turns into hardware;
//! `sim` verilates what it generates into `hw/rtl/`. rust-hdl is reached only through
//! [`hdl`], the local seam.
//!
//! Blocks:
//! - [`parser::HomaParser`]: the RX parser (Ethernet/IPv4/IPv6/Homa headers, drop counters,
//!   DATA payload realigned), with its 64- and 512-bit instances.
//! - [`msg_table::MsgTable`]: the inbound message table (1024 messages in block RAM, two ways
//!   under two hashes, two received ranges each), which counts each DATA packet's new bytes for the grant generator.
//! - [`grant::GrantScheduler`]: the grant generator (which inbound messages to grant, how
//!   far, at which priority, as `homa_proto::core` decides), with its 16-slot instance.
//! - [`grant_queue::GrantQueue`]: the grant generator over every message-table entry (1024
//!   in block RAM, over a [`bucket_queue::BucketQueue`]): SRPT at packet granularity, the
//!   same decisions as `homa_proto::policy`, one at a time after each batch of events.
//! - [`grant_framer::GrantFramer`]: GRANT frames built in hardware, byte-exact with
//!   `proto::wire`, at 64 or 512 bits a beat (beats cut from the frame's bytes by
//!   [`frame_beats`], as the DATA framer's are).
//! - [`regfile::RegFile`]: the register file, generated from `homa_proto::regs`.
//! - [`nic_core::HomaNicCore`]: the NIC core, composed of the blocks below (parser →
//!   message table → grant generator → GRANT framer, register file, the RX host queues of
//!   [`host_rx::HostRx`], the TX descriptor ring and the transmit engine of
//!   [`tx_engine::TxEngine`], one MAC port for GRANT and DATA frames), at 512 bits a beat
//!   (the Alveo configuration) or 64 (the small one).
//! - [`rx_dma::RxDma`]: the receive DMA engine (64- and 512-bit instances): each DATA payload into one posted host
//!   buffer (writes cut at the buffer's end), one `RX_DATA` or `ERROR` completion per buffer.
//! - [`rx_ring::RxRing512`]: fetches the RX buffer descriptors the host posts, four per
//!   DMA read and up to 16 reads in flight, into a 64-entry FIFO in LUT RAM, for the RX DMA
//!   engine; refuses (with an `ERROR` completion) descriptors outside the RX window.
//! - [`lutram::LutRam`]: distributed RAM with a combinational read port, for FIFOs.
//! - [`cq_writer::CqWriter`]: completions into the host's completion ring (body, then the
//!   phase byte, at 64 or 512 bits a beat; never over an entry the host has not consumed).
//! - [`host_rx::HostRx`]: the three above behind one DMA read port and one DMA write
//!   port: completion entries win the write port over payload beats, `TX_DONE`s from the
//!   transmit engine join the completions, and narrow descriptor reads are gathered into
//!   records by [`read_gather::ReadGather`].
//! - [`srpt::SrptScheduler`]: the TX SRPT scheduler (which outbound message sends next,
//!   as `homa_proto::policy::srpt_pick`), with its 16-slot instance.
//! - [`tx_ring::TxRing512`]: fetches the TX descriptors the host posts, one per DMA read and
//!   up to 16 in flight, and refuses (with an `ERROR` completion) those that are malformed,
//!   longer than `max_message_length`, addressed to a peer that is not IPv4, or whose
//!   payload lies outside the TX window.
//! - [`tx_sched::TxSched16`]: the transmit scheduler: the accepted TX descriptors in a
//!   16-slot table, GRANTs raising their granted bytes, and one DATA packet decided per cycle
//!   by SRPT among the slots with granted bytes to send (payload address and length for the
//!   DMA read, every DATA header field for the framer).
//! - [`data_framer::DataFramer`]: DATA frames built in hardware from the scheduler's jobs
//!   and the payload read by DMA (placed at lane 90 mod the width, 26 at 512 bits and 2 at
//!   64, so the payload is never shifted), byte-exact with
//!   `proto::wire`; `TX_DONE` after a message's last frame.
//! - [`tx_engine::TxEngine`]: the transmit path composed: scheduler, a 16-entry job FIFO
//!   (one payload read in flight per entry), DATA framer.
//! - [`tx_push::TxPush`]: on-chip TX memory (`proto::hostif::onchip`): the host pushes
//!   TX descriptors and small payloads through BAR0, and the descriptor fetcher and the
//!   transmit engine read them there instead of over PCIe (in request order with their host
//!   reads), in [`wideram::WideRam`]s (byte-write block RAM).
//! - [`fifo::Fifo2`]: the two-entry output buffer the blocks use.
//!
//! [`parser_model`], [`msg_table_model`], [`grant_model`], [`grant_queue_model`],
//! [`grant_framer_model`], [`rx_dma_model`],
//! [`rx_ring_model`], [`tx_ring_model`], [`tx_sched_model`], [`data_framer_model`],
//! [`tx_engine_model`], [`tx_push_model`], [`cq_writer_model`], [`host_rx_model`] and [`srpt_model`] are the
//! blocks' oracles and benches (no rust-hdl), shared by this crate's rust-hdl tests and the
//! Verilator co-simulation in `homa-sim`; [`bench`](mod@bench) is the kit they share (the seeded PRNG,
//! the `HOMA_HW_SEED` / `HOMA_HW_FRAMES` knobs, valid and malformed frames).
//!
//! The source is grouped as the Verilog names are: [`rx`] (`homa_rx_*`), [`tx`]
//! (`homa_tx_*`), [`host`] (`homa_host_*`) and [`common`] (`homa_common_*`, the FIFOs and
//! RAMs, the bench kit), each block beside its model and its tests; the NIC core, the
//! rust-hdl seam ([`hdl`]) and the Verilog generator sit at the root.
//!
//! [`verilog`] (`gen.rs`) renders the blocks to Verilog (`hw/rtl/`, golden-checked and
//! Verilator-linted by its tests). Still to come (`DESIGN.md` §2, §3): SRPT over
//! every outbound message (today 16 slots, with 1,024 parked while they wait for GRANTs:
//! docs/timing.md), and the parser, message table and RX queues within 250 MHz.

pub mod common;
pub mod host;
pub mod rx;
pub mod tx;

pub mod hdl;
pub mod nic_core;

// Every block is also reached at the crate's root by its own name (`homa_hw::parser`,
// `homa_hw::tx_park`, ...): the groups order the source, the paths stay short.
pub use common::{
    bench, bucket_queue, bucket_queue_model, fifo, frame_beats, key_hash, lut_fifo, lutram,
    packets_left, read_gather, wideram,
};
pub use host::{
    cq_writer, cq_writer_model, host_rx, host_rx_model, regfile, rx_ring, rx_ring_model, tx_ring,
    tx_ring_model,
};
pub use rx::{
    grant, grant_framer, grant_framer_model, grant_model, grant_queue, grant_queue_model,
    msg_table, msg_table_model, parser, parser_model, rx_dma, rx_dma_model,
};
pub use tx::{
    data_framer, data_framer_model, srpt, srpt_model, tx_engine, tx_engine_model, tx_park, tx_push,
    tx_push_model, tx_sched, tx_sched_model,
};

// `gen` is a reserved word in edition 2024: the file keeps its name, the module is `verilog`.
#[path = "gen.rs"]
pub mod verilog;
