//! `HomaNicCore`: the NIC core, composed from the tested blocks, at 512 bits for 100 Gb/s
//! ([`HomaNicCore512`], the Alveo configuration) or 64 ([`HomaNicCore64`], the small one): on receive,
//! RX parser → inbound message table → grant generator → GRANT framer, and the RX host queues
//! (descriptor ring fetcher, DMA engine, completion writer); on transmit, the TX descriptor
//! ring and the transmit engine (SRPT scheduler, DATA framer); one MAC port out.
//!
//! ```text
//!  s_axis_* ─► HomaParser ────┬─ payload ──────────► HostRx ────► m_dma_wr_* (payloads, completions)
//!                             │                        ▲  └────► m_dma_rd_* / s_dma_rd_* (descriptors)
//!                             ├─ every header ─────────┘  ▲ ▲
//!                             ├─ IPv4 DATA headers ─► MsgTable1024 ─► event queue ─► GrantQueue1024
//!                             │                           │ │             └─► GrantFramer ────┐
//!                             └─ IPv4 GRANTs ─┐           │ └ TX_DONE ─┐                      ├► m_axis_*
//!  cfg tx_* ─► TxRing512 ─ good descriptors ─► TxEngine ─ DATA frames ────────────────────────┘
//!     │  └─ refusals (ERROR, ring TX) ────────────┘   └─ m_dma_payrd_* / s_dma_payrd_* (payloads)
//!     └─ m_dma_txrd_* / s_dma_txrd_* (TX descriptors)
//! ```
//!
//! Grants: the message table hands each DATA packet's event, with the message's entry, to a
//! 32-event queue in LUT RAM ([`EVENT_QUEUE_BITS`]) in front of the grant generator over
//! every entry of the table ([`crate::grant_queue::GrantQueue`]), which takes an event in 5
//! to 17 cycles and decides after each batch of up to eight (a decision takes 35 to 160
//! cycles); the queue absorbs bursts of short packets, and only when it is full does the
//! table, then the header fork, wait. The SRPT key's unit is TX `max_payload`. The trace
//! outputs `m_trace_grant_*` show each event taken, each decision and whether the grant path
//! has work, for benches (the co-simulation checks every decision against the reference) and
//! for a simulator that skips idle cycles.
//!
//! The header fork: a header leaves when both takers take it: the message table (IPv4 DATA)
//! and the host queues (every header: its completion); an IPv4 GRANT is also handed to the
//! transmit engine as it leaves (the engine takes one every cycle). The host hears of every
//! packet through its completion ring alone (QUEUE version 3): each DATA payload goes by DMA
//! into one RX buffer the host posted (QUEUE `rx_*`), with an `RX_DATA` completion that carries
//! the rest of its header; every other packet becomes a `CONTROL` completion (its type,
//! addresses and body window). Writing `rx_log2_size` or `cq_log2_size` restarts that ring
//! at index 0. A descriptor outside the RX window (QUEUE `rx_window_*`, the driver's buffer
//! pool) or malformed comes back in an `ERROR` completion and is never written. Until the
//! host sets the rings up, payloads are dropped (no buffer), completions are dropped (the
//! ring is off) and the grant path runs as before; a full completion ring back-pressures
//! the header fork, and with it the parser's input (and the transmit engine's `TX_DONE`s,
//! and with them its frames).
//!
//! Transmit: the TX descriptor ring (QUEUE `tx_*`) is fetched on its own DMA read channel
//! and every descriptor checked against `max_message_length`, the TX window (`tx_window_*`)
//! and its peer (IPv4-mapped only); a refused one comes back in an `ERROR` completion (ring
//! TX, its index, RPC id and cookie; status 5, 2 or 1) and its payload is never read. The
//! others go to the transmit engine (16 messages at once): it sends each message's first
//! `unsched_bytes` (CONFIG) at the unscheduled priority of its length (CONFIG
//! `unsched_cutoff_*`), the rest as GRANTs from its receiver allow, at their priority, the
//! message with the fewest bytes left first, in packets of at most TX `max_payload` bytes;
//! RETRANSMIT descriptors resend a range whole. Payload is read on a third DMA read channel
//! whose responses put the first byte at lane `26 mod W` (the DATA frame's headers are 90
//! bytes).
//!
//! Widths: the MAC ports, the DMA write port and the three DMA read channels carry `W` bytes a
//! beat (`B` = 8 `W` bits); a read of `len` bytes is answered in `ceil(len / W)` beats (the
//! payload channel's: `ceil((26 mod W + len) / W)`), and the descriptor fetchers gather theirs
//! into 64-byte records. A completion entry is `64 / W` beats and a phase byte; a GRANT frame
//! is 2 beats at 64 bytes, 9 at 8. The push port (BAR0's on-chip TX memory), the register
//! bus and every table are the same at both widths.
//! A message's `TX_DONE` completion follows its last frame (unless NO_COMPLETION).
//!
//! The MAC port carries whole frames from both framers: when both wait, a GRANT goes first
//! (it lets a sender go on), never inside a DATA frame. Every frame goes to the
//! next-hop MAC `gw_mac` (an L3 fabric: every frame leaves through the top-of-rack router).
//! Configuration and counters live in the register file generated from `proto::regs`
//! ([`crate::regfile::RegFile`]), on the `s_reg_*`/`m_reg_*` bus: the driver programs the
//! core by the same register names. IPv6 DATA reaches the host but not the table (the table
//! keys peers by IPv4 address); IPv6 GRANTs reach the host but not the engine.
//!
//! Who grants: each IPv4 DATA header waits at the host queues' input for the table's verdict
//! on it (`fate`, a cycle behind), and its `RX_DATA` completion says, in flags bit 1, whether
//! the grant generator tracks the message: it does not when both the message's places in the
//! table (one per way) hold other live messages, nor for any IPv6 message. The host grants those itself,
//! at once; every other message it leaves to the hardware. Each GRANT the framer takes is
//! reported to the host as a `GRANT_SENT` completion (through a two-entry FIFO; the grant
//! generator waits while it is full), so that the host knows what its peers may send: its
//! RESENDs cover the NIC's grants, and a message whose granted bytes are in waits quietly.

use crate::fifo::Fifo2;
use crate::grant_framer::{GrantFramer, Lo16In32, Lo32Hi32, Mac48};
use crate::grant_queue::GrantQueue1024;
use crate::hdl::*;
use crate::host_rx::{HostHdr, HostRx};
use crate::lut_fifo::LutFifo;
use crate::msg_table::MsgTable1024;
use crate::parser::HomaParser;
use crate::regfile::{HOMA_REG_WORDS, HomaRegFile, index_of};
use crate::tx_engine::TxEngine;
use crate::tx_push::TxPush;
use crate::tx_ring::TxRing512;

mod records;
pub use records::{GrantRep, Ipv4Msb, QueuedEvt};

/// Address bits of the event queue in front of the grant generator (32 events).
pub const EVENT_QUEUE_BITS: usize = 5;

/// The NIC core of the Alveo configuration: 512 bits at 250 MHz for 100 Gb/s.
pub type HomaNicCore512 = HomaNicCore<64, 512>;

/// The NIC core of the small configuration: 64 bits, for an ECP5-85 class part.
pub type HomaNicCore64 = HomaNicCore<8, 64>;

/// The NIC core, `W` bytes (`B` = 8 `W` bits) a beat on its MAC and DMA ports.
#[derive(LogicBlock)]
pub struct HomaNicCore<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Frames from the MAC: data, byte lane 0 first.
    pub s_axis_tdata: Signal<In, Bits<B>>,
    /// Byte enables.
    pub s_axis_tkeep: Signal<In, Bits<W>>,
    /// A beat is offered.
    pub s_axis_tvalid: Signal<In, Bit>,
    /// The frame's last beat.
    pub s_axis_tlast: Signal<In, Bit>,
    /// The beat is taken.
    pub s_axis_tready: Signal<Out, Bit>,
    /// DMA read request (RX buffer descriptors) is offered.
    pub m_dma_rd_valid: Signal<Out, Bit>,
    /// The read request is taken.
    pub m_dma_rd_ready: Signal<In, Bit>,
    /// Host address to read.
    pub m_dma_rd_addr: Signal<Out, Bits<64>>,
    /// Bytes to read (16 to 64).
    pub m_dma_rd_len: Signal<Out, Bits<32>>,
    /// A read response beat: `ceil(len / W)` per request, in request order, always taken.
    pub s_dma_rd_valid: Signal<In, Bit>,
    /// The bytes read, byte 0 in bits 7..0.
    pub s_dma_rd_data: Signal<In, Bits<B>>,
    /// A DMA write beat (payload into an RX buffer, or a completion entry) is offered.
    pub m_dma_wr_valid: Signal<Out, Bit>,
    /// The write beat is taken.
    pub m_dma_wr_ready: Signal<In, Bit>,
    /// Host address of data byte 0.
    pub m_dma_wr_addr: Signal<Out, Bits<64>>,
    /// Data: byte `i` goes to `addr + i` when `keep[i]`.
    pub m_dma_wr_data: Signal<Out, Bits<B>>,
    /// Byte enables.
    pub m_dma_wr_keep: Signal<Out, Bits<W>>,
    /// The last beat of a write.
    pub m_dma_wr_last: Signal<Out, Bit>,
    /// DMA read request (TX descriptors) is offered: a second read channel.
    pub m_dma_txrd_valid: Signal<Out, Bit>,
    /// The read request is taken.
    pub m_dma_txrd_ready: Signal<In, Bit>,
    /// Host address to read.
    pub m_dma_txrd_addr: Signal<Out, Bits<64>>,
    /// Bytes to read (64).
    pub m_dma_txrd_len: Signal<Out, Bits<32>>,
    /// A read response beat on the TX channel: `64 / W` per request, in order, always taken.
    pub s_dma_txrd_valid: Signal<In, Bit>,
    /// The bytes read, byte 0 in bits 7..0.
    pub s_dma_txrd_data: Signal<In, Bits<B>>,
    /// A payload read request (the transmit engine's): the response puts the first byte at
    /// lane `26 mod W` of its first beat (the DATA header's length mod `W`).
    pub m_dma_payrd_valid: Signal<Out, Bit>,
    /// The request is taken.
    pub m_dma_payrd_ready: Signal<In, Bit>,
    /// Host address of the payload's first byte.
    pub m_dma_payrd_addr: Signal<Out, Bits<64>>,
    /// Bytes to read (1 to `max_payload`).
    pub m_dma_payrd_len: Signal<Out, Bits<32>>,
    /// A payload beat: `ceil((26 mod W + len) / W)` beats per request, in request order.
    pub s_dma_payrd_valid: Signal<In, Bit>,
    /// The beat is taken.
    pub s_dma_payrd_ready: Signal<Out, Bit>,
    /// The bytes: payload byte `i` at lane `26 mod W + i` (then on in the following beats).
    pub s_dma_payrd_data: Signal<In, Bits<B>>,
    /// Frames to the MAC (GRANT and DATA, whole frames, GRANTs first): data.
    pub m_axis_tdata: Signal<Out, Bits<B>>,
    /// Byte enables.
    pub m_axis_tkeep: Signal<Out, Bits<W>>,
    /// A beat is offered.
    pub m_axis_tvalid: Signal<Out, Bit>,
    /// The frame's last beat.
    pub m_axis_tlast: Signal<Out, Bit>,
    /// The beat is taken.
    pub m_axis_tready: Signal<In, Bit>,
    /// Register bus: byte address in BAR0.
    pub s_reg_addr: Signal<In, Bits<16>>,
    /// Register bus: data to write.
    pub s_reg_wdata: Signal<In, Bits<32>>,
    /// Register bus: write this cycle.
    pub s_reg_we: Signal<In, Bit>,
    /// Register bus: read this cycle.
    pub s_reg_re: Signal<In, Bit>,
    /// Register bus: the read data, the cycle after `s_reg_re`.
    pub m_reg_rdata: Signal<Out, Bits<32>>,
    /// Register bus: `m_reg_rdata` holds a read's result.
    pub m_reg_rvalid: Signal<Out, Bit>,
    /// A push into on-chip TX memory (a write-combined store into BAR0's upper half,
    /// `hostif::onchip`); always taken. The host's pushes and register writes reach the
    /// core in the order it made them.
    pub s_push_valid: Signal<In, Bit>,
    /// Its 64-byte word: the BAR0 byte offset divided by 64.
    pub s_push_word: Signal<In, Bits<10>>,
    /// Bytes: lane `i` to BAR0 offset `64 * word + i`.
    pub s_push_data: Signal<In, Bits<512>>,
    /// Byte enables.
    pub s_push_keep: Signal<In, Bits<64>>,
    /// Trace: the grant generator takes an event from its queue this cycle (the message
    /// table's events, in their order). For benches and logic analysers; a board may leave
    /// it open.
    pub m_trace_grant_event: Signal<Out, Bit>,
    /// Trace: a grant decision starts this cycle, over every event taken before it.
    pub m_trace_grant_decision: Signal<Out, Bit>,
    /// Trace: a FIFO grant starts this cycle, over every event taken before it.
    pub m_trace_grant_fifo: Signal<Out, Bit>,
    /// Trace: the grant path has work (events queued, an event or a decision under way, a
    /// GRANT offered); low, it changes nothing until the message table sends an event.
    pub m_trace_grant_busy: Signal<Out, Bit>,
    parser: HomaParser<B, W>,
    msgs: MsgTable1024,
    grant: GrantQueue1024,
    /// The message table's events, queued for the grant generator (which takes one in 5 to
    /// 17 cycles, and none during a decision).
    evq: LutFifo<QueuedEvt, EVENT_QUEUE_BITS>,
    qevt: Signal<Local, QueuedEvt>,
    tracked_q: Signal<Local, Lo16In32>,
    c_i_g_messages_queued: Constant<Bits<8>>,
    c_i_decisions: Constant<Bits<8>>,
    c_i_fifo_grants: Constant<Bits<8>>,
    framer: GrantFramer<W, B>,
    regs: HomaRegFile,
    hq: HostRx<W, B>,
    txq: TxRing512,
    tx: TxEngine<W, B>,
    push: TxPush<W, B>,
    /// The MAC port is in a GRANT frame / a DATA frame (until its last beat).
    out_g: DFF<Bit>,
    out_d: DFF<Bit>,
    /// This cycle's beat comes from the GRANT framer.
    sel_g: Signal<Local, Bit>,
    /// The descriptor's IPv4 peer, first byte most significant.
    peer4: Signal<Local, Ipv4Msb>,
    c_peer_b0: Constant<Bits<8>>,
    c_peer_b1: Constant<Bits<8>>,
    c_peer_b2: Constant<Bits<8>>,
    c_peer_b3: Constant<Bits<8>>,
    c_grant: Constant<Bits<8>>,
    /// A GRANT for this host's transmit engine leaves the parser this cycle.
    grant_in: Signal<Local, Bit>,
    cutoff_version: Signal<Local, Bits<16>>,
    /// The level of the NIC's own control packets: `num_priorities - 1`, as `proto`'s
    /// `Config::control_priority` (the register's reset value 8 gives 7).
    ctl_prio: Signal<Local, Bits<3>>,
    c_i_num_priorities: Constant<Bits<8>>,
    c_i_fifo_interval: Constant<Bits<8>>,
    c_i_fifo_increment: Constant<Bits<8>>,
    c_i_fifo_prio: Constant<Bits<8>>,
    c_one3: Constant<Bits<3>>,
    c_zero3: Constant<Bits<3>>,
    queued32: Signal<Local, Lo16In32>,
    parked32: Signal<Local, Lo16In32>,
    most32: Signal<Local, Lo16In32>,
    c_i_unsched_bytes: Constant<Bits<8>>,
    c_i_cutoff_version: Constant<Bits<8>>,
    c_i_cutoff1: Constant<Bits<8>>,
    c_i_cutoff2: Constant<Bits<8>>,
    c_i_cutoff3: Constant<Bits<8>>,
    c_i_cutoff4: Constant<Bits<8>>,
    c_i_cutoff5: Constant<Bits<8>>,
    c_i_cutoff6: Constant<Bits<8>>,
    c_i_cutoff7: Constant<Bits<8>>,
    c_i_max_payload: Constant<Bits<8>>,
    c_i_messages_queued: Constant<Bits<8>>,
    c_i_packets_sent: Constant<Bits<8>>,
    c_i_control_sent: Constant<Bits<8>>,
    c_i_grants_unmatched: Constant<Bits<8>>,
    c_i_messages_parked: Constant<Bits<8>>,
    c_i_parked_most: Constant<Bits<8>>,
    c_i_grants_dropped: Constant<Bits<8>>,
    c_i_park_collisions: Constant<Bits<8>>,
    tx_base: Signal<Local, Lo32Hi32>,
    tx_win_base: Signal<Local, Lo32Hi32>,
    tx_win_len: Signal<Local, Lo32Hi32>,
    c_i_tx_base_lo: Constant<Bits<8>>,
    c_i_tx_base_hi: Constant<Bits<8>>,
    c_i_tx_log2_size: Constant<Bits<8>>,
    c_i_tx_producer: Constant<Bits<8>>,
    c_i_tx_consumer: Constant<Bits<8>>,
    c_i_tx_win_base_lo: Constant<Bits<8>>,
    c_i_tx_win_base_hi: Constant<Bits<8>>,
    c_i_tx_win_len_lo: Constant<Bits<8>>,
    c_i_tx_win_len_hi: Constant<Bits<8>>,
    c_i_max_message_length: Constant<Bits<8>>,
    c_i_tx_bad_descriptors: Constant<Bits<8>>,
    c_i_tx_onchip_bytes: Constant<Bits<8>>,
    c_i_tx_onchip_faults: Constant<Bits<8>>,
    c_onchip_bytes: Constant<Bits<32>>,
    /// Byte address of QUEUE.tx_log2_size (a write restarts the ring).
    c_a_tx_log2: Constant<Bits<16>>,
    /// DATA headers on their way to the host queues: the fork sees only this FIFO's
    /// registered `full`, so no combinational path runs from the host queues to the table.
    dhdr: Fifo2<HostHdr>,
    /// The message table's fate of each IPv4 DATA header in `dhdr` (whether its entry held
    /// another message), in order: at most as many as `dhdr` holds, so never full.
    fate: Fifo2<Bit>,
    /// Each GRANT the framer took, for its `GRANT_SENT` completion: the grant generator
    /// waits while this is full (the completion ring back-pressures grants as it does
    /// headers).
    gsent: Fifo2<GrantRep>,
    grep: Signal<Local, GrantRep>,
    c_i_dropped_no_buffer: Constant<Bits<8>>,
    c_i_rx_data: Constant<Bits<8>>,
    c_i_rx_errors: Constant<Bits<8>>,
    c_i_dropped_bad_payload: Constant<Bits<8>>,
    c_i_data_empty: Constant<Bits<8>>,
    c_i_rx_bad_descriptors: Constant<Bits<8>>,
    c_i_cq_dropped: Constant<Bits<8>>,
    rx_base: Signal<Local, Lo32Hi32>,
    cq_base: Signal<Local, Lo32Hi32>,
    rx_win_base: Signal<Local, Lo32Hi32>,
    rx_win_len: Signal<Local, Lo32Hi32>,
    c_i_rx_win_base_lo: Constant<Bits<8>>,
    c_i_rx_win_base_hi: Constant<Bits<8>>,
    c_i_rx_win_len_lo: Constant<Bits<8>>,
    c_i_rx_win_len_hi: Constant<Bits<8>>,
    c_i_rx_base_lo: Constant<Bits<8>>,
    c_i_rx_base_hi: Constant<Bits<8>>,
    c_i_rx_log2_size: Constant<Bits<8>>,
    c_i_rx_producer: Constant<Bits<8>>,
    c_i_rx_consumer: Constant<Bits<8>>,
    c_i_cq_base_lo: Constant<Bits<8>>,
    c_i_cq_base_hi: Constant<Bits<8>>,
    c_i_cq_log2_size: Constant<Bits<8>>,
    c_i_cq_producer: Constant<Bits<8>>,
    c_i_cq_consumer: Constant<Bits<8>>,
    /// Byte addresses of QUEUE.rx_log2_size and QUEUE.cq_log2_size (a write restarts the ring).
    c_a_rx_log2: Constant<Bits<16>>,
    c_a_cq_log2: Constant<Bits<16>>,
    dma_ok: Signal<Local, Bit>,
    table_ok: Signal<Local, Bit>,
    local_mac: Signal<Local, Mac48>,
    gw_mac: Signal<Local, Mac48>,
    cfg_ip: Signal<Local, Bits<32>>,
    c_r: [Constant<Bits<8>>; HOMA_REG_WORDS],
    c_i_max_overcommit: Constant<Bits<8>>,
    c_i_max_incoming: Constant<Bits<8>>,
    c_i_max_sched_prio: Constant<Bits<8>>,
    c_i_ipv4_addr: Constant<Bits<8>>,
    c_i_mac_addr_lo: Constant<Bits<8>>,
    c_i_mac_addr_hi: Constant<Bits<8>>,
    c_i_gw_mac_lo: Constant<Bits<8>>,
    c_i_gw_mac_hi: Constant<Bits<8>>,
    c_i_window_n0: Constant<Bits<8>>,
    c_i_window_n1: Constant<Bits<8>>,
    c_i_window_n2: Constant<Bits<8>>,
    c_i_window_n3: Constant<Bits<8>>,
    c_i_window_n4: Constant<Bits<8>>,
    c_i_window_n5: Constant<Bits<8>>,
    c_i_window_n6: Constant<Bits<8>>,
    c_i_window_n7: Constant<Bits<8>>,
    c_i_window_n8: Constant<Bits<8>>,
    c_i_frames_ok: Constant<Bits<8>>,
    c_i_dropped_runt: Constant<Bits<8>>,
    c_i_dropped_bad_checksum: Constant<Bits<8>>,
    c_i_dropped_not_homa: Constant<Bits<8>>,
    c_i_dropped_bad_type: Constant<Bits<8>>,
    c_i_dropped_bad_length: Constant<Bits<8>>,
    c_i_messages_tracked: Constant<Bits<8>>,
    c_i_grants_sent: Constant<Bits<8>>,
    c_i_table_full: Constant<Bits<8>>,
    c_i_holes_forgotten: Constant<Bits<8>>,
    c_i_dropped_late: Constant<Bits<8>>,
    c_i_collisions: Constant<Bits<8>>,
    c_i_release_peer: Constant<Bits<8>>,
    c_i_release_id_lo: Constant<Bits<8>>,
    c_i_release_id_hi: Constant<Bits<8>>,
    c_i_release_length: Constant<Bits<8>>,
    c_i_releases: Constant<Bits<8>>,
    /// The byte address of GRANT.release (the doorbell).
    c_a_release: Constant<Bits<16>>,
    c_one32: Constant<Bits<32>>,
    c_one64: Constant<Bits<64>>,
    /// A release is waiting for the table, with its operands.
    rel_pending: DFF<Bit>,
    rel_peer: DFF<Bits<32>>,
    rel_id: DFF<Lo32Hi32>,
    rel_len: DFF<Bits<32>>,
    n_rel: DFF<Bits<32>>,
    ring: Signal<Local, Bit>,
    op_peer: Signal<Local, Bits<32>>,
    op_id: Signal<Local, Lo32Hi32>,
    op_len: Signal<Local, Bits<32>>,
    data_ok: Signal<Local, Bit>,
    c_zero8: Constant<Bits<8>>,
    c_zero32: Constant<Bits<32>>,
    is_data: Signal<Local, Bit>,
    end_len: Signal<Local, Lo16In32>,
    c_data: Constant<Bits<8>>,
    c_v4: Constant<Bits<4>>,
    c_lo: Constant<Bits<8>>,
    c_zero16: Constant<Bits<16>>,
    c_zero5: Constant<Bits<5>>,
}

/// The byte address of a register, as a constant the core compares the bus address with.
fn address_of(block: &str, name: &str) -> Constant<Bits<16>> {
    let a = homa_proto::regs::block(block)
        .and_then(|b| b.address(name))
        .unwrap_or_else(|| panic!("{block}.{name} is in proto::regs"));
    Constant::new(u64::from(a).into())
}

/// The word index of a register as a constant (the core selects registers by comparing
/// constants, which synthesis folds).
fn ix(block: &str, name: &str) -> Constant<Bits<8>> {
    Constant::new((index_of(block, name) as u64).into())
}

impl<const W: usize, const B: usize> HomaNicCore<W, B> {
    /// A new core.
    pub fn new() -> Self {
        Self {
            clock: Signal::default(),
            reset: Signal::default(),
            s_axis_tdata: Signal::default(),
            s_axis_tkeep: Signal::default(),
            s_axis_tvalid: Signal::default(),
            s_axis_tlast: Signal::default(),
            s_axis_tready: Signal::default(),
            m_dma_rd_valid: Signal::default(),
            m_dma_rd_ready: Signal::default(),
            m_dma_rd_addr: Signal::default(),
            m_dma_rd_len: Signal::default(),
            s_dma_rd_valid: Signal::default(),
            s_dma_rd_data: Signal::default(),
            m_dma_wr_valid: Signal::default(),
            m_dma_wr_ready: Signal::default(),
            m_dma_wr_addr: Signal::default(),
            m_dma_wr_data: Signal::default(),
            m_dma_wr_keep: Signal::default(),
            m_dma_wr_last: Signal::default(),
            m_axis_tdata: Signal::default(),
            m_axis_tkeep: Signal::default(),
            m_axis_tvalid: Signal::default(),
            m_axis_tlast: Signal::default(),
            m_axis_tready: Signal::default(),
            s_reg_addr: Signal::default(),
            s_reg_wdata: Signal::default(),
            s_reg_we: Signal::default(),
            s_reg_re: Signal::default(),
            m_reg_rdata: Signal::default(),
            m_reg_rvalid: Signal::default(),
            s_push_valid: Signal::default(),
            s_push_word: Signal::default(),
            s_push_data: Signal::default(),
            s_push_keep: Signal::default(),
            parser: HomaParser::new(),
            msgs: MsgTable1024::new(),
            grant: GrantQueue1024::new(),
            evq: LutFifo::default(),
            qevt: Signal::default(),
            tracked_q: Signal::default(),
            c_i_g_messages_queued: ix("GRANT", "messages_queued"),
            c_i_decisions: ix("GRANT", "decisions"),
            c_i_fifo_grants: ix("GRANT", "fifo_grants"),
            m_trace_grant_event: Signal::default(),
            m_trace_grant_decision: Signal::default(),
            m_trace_grant_fifo: Signal::default(),
            m_trace_grant_busy: Signal::default(),
            framer: GrantFramer::new(),
            regs: HomaRegFile::with_constants(&[("ID", "data_width", B as u32)]),
            hq: HostRx::new(),
            txq: TxRing512::new(),
            tx: TxEngine::new(),
            push: TxPush::new(),
            out_g: DFF::default(),
            out_d: DFF::default(),
            sel_g: Signal::default(),
            peer4: Signal::default(),
            c_peer_b0: Constant::new(96u64.into()),
            c_peer_b1: Constant::new(104u64.into()),
            c_peer_b2: Constant::new(112u64.into()),
            c_peer_b3: Constant::new(120u64.into()),
            c_grant: Constant::new(u64::from(u8::from(homa_proto::wire::PacketType::Grant)).into()),
            grant_in: Signal::default(),
            cutoff_version: Signal::default(),
            ctl_prio: Signal::default(),
            c_i_num_priorities: ix("CONFIG", "num_priorities"),
            c_i_fifo_interval: ix("CONFIG", "fifo_grant_interval"),
            c_i_fifo_increment: ix("CONFIG", "fifo_grant_increment"),
            c_i_fifo_prio: ix("CONFIG", "fifo_grant_prio"),
            c_one3: Constant::new(1u64.into()),
            c_zero3: Constant::new(0u64.into()),
            queued32: Signal::default(),
            parked32: Signal::default(),
            most32: Signal::default(),
            c_i_unsched_bytes: ix("CONFIG", "unsched_bytes"),
            c_i_cutoff_version: ix("CONFIG", "cutoff_version"),
            c_i_cutoff1: ix("CONFIG", "unsched_cutoff_1"),
            c_i_cutoff2: ix("CONFIG", "unsched_cutoff_2"),
            c_i_cutoff3: ix("CONFIG", "unsched_cutoff_3"),
            c_i_cutoff4: ix("CONFIG", "unsched_cutoff_4"),
            c_i_cutoff5: ix("CONFIG", "unsched_cutoff_5"),
            c_i_cutoff6: ix("CONFIG", "unsched_cutoff_6"),
            c_i_cutoff7: ix("CONFIG", "unsched_cutoff_7"),
            c_i_max_payload: ix("TX", "max_payload"),
            c_i_messages_queued: ix("TX", "messages_queued"),
            c_i_packets_sent: ix("TX", "packets_sent"),
            c_i_control_sent: ix("TX", "control_sent"),
            c_i_grants_unmatched: ix("TX", "grants_unmatched"),
            c_i_messages_parked: ix("TX", "messages_parked"),
            c_i_parked_most: ix("TX", "parked_most"),
            c_i_grants_dropped: ix("TX", "grants_dropped"),
            c_i_park_collisions: ix("TX", "park_collisions"),
            tx_base: Signal::default(),
            tx_win_base: Signal::default(),
            tx_win_len: Signal::default(),
            c_i_tx_base_lo: ix("QUEUE", "tx_base_lo"),
            c_i_tx_base_hi: ix("QUEUE", "tx_base_hi"),
            c_i_tx_log2_size: ix("QUEUE", "tx_log2_size"),
            c_i_tx_producer: ix("QUEUE", "tx_producer"),
            c_i_tx_consumer: ix("QUEUE", "tx_consumer"),
            c_i_tx_win_base_lo: ix("QUEUE", "tx_window_base_lo"),
            c_i_tx_win_base_hi: ix("QUEUE", "tx_window_base_hi"),
            c_i_tx_win_len_lo: ix("QUEUE", "tx_window_len_lo"),
            c_i_tx_win_len_hi: ix("QUEUE", "tx_window_len_hi"),
            c_i_max_message_length: ix("QUEUE", "max_message_length"),
            c_i_tx_bad_descriptors: ix("QUEUE", "tx_bad_descriptors"),
            c_i_tx_onchip_bytes: ix("QUEUE", "tx_onchip_bytes"),
            c_i_tx_onchip_faults: ix("QUEUE", "tx_onchip_faults"),
            c_onchip_bytes: Constant::new(
                u64::from(homa_proto::hostif::onchip::PAYLOAD_BYTES).into(),
            ),
            c_a_tx_log2: address_of("QUEUE", "tx_log2_size"),
            m_dma_txrd_valid: Signal::default(),
            m_dma_txrd_ready: Signal::default(),
            m_dma_txrd_addr: Signal::default(),
            m_dma_txrd_len: Signal::default(),
            s_dma_txrd_valid: Signal::default(),
            s_dma_txrd_data: Signal::default(),
            m_dma_payrd_valid: Signal::default(),
            m_dma_payrd_ready: Signal::default(),
            m_dma_payrd_addr: Signal::default(),
            m_dma_payrd_len: Signal::default(),
            s_dma_payrd_valid: Signal::default(),
            s_dma_payrd_ready: Signal::default(),
            s_dma_payrd_data: Signal::default(),
            dhdr: Fifo2::default(),
            fate: Fifo2::default(),
            gsent: Fifo2::default(),
            grep: Signal::default(),
            c_i_dropped_no_buffer: ix("RX", "dropped_no_buffer"),
            c_i_rx_data: ix("RX", "rx_data"),
            c_i_rx_errors: ix("RX", "rx_errors"),
            c_i_dropped_bad_payload: ix("RX", "dropped_bad_payload"),
            c_i_data_empty: ix("RX", "data_empty"),
            c_i_rx_bad_descriptors: ix("QUEUE", "rx_bad_descriptors"),
            c_i_cq_dropped: ix("QUEUE", "cq_dropped"),
            rx_base: Signal::default(),
            cq_base: Signal::default(),
            rx_win_base: Signal::default(),
            rx_win_len: Signal::default(),
            c_i_rx_win_base_lo: ix("QUEUE", "rx_window_base_lo"),
            c_i_rx_win_base_hi: ix("QUEUE", "rx_window_base_hi"),
            c_i_rx_win_len_lo: ix("QUEUE", "rx_window_len_lo"),
            c_i_rx_win_len_hi: ix("QUEUE", "rx_window_len_hi"),
            c_i_rx_base_lo: ix("QUEUE", "rx_base_lo"),
            c_i_rx_base_hi: ix("QUEUE", "rx_base_hi"),
            c_i_rx_log2_size: ix("QUEUE", "rx_log2_size"),
            c_i_rx_producer: ix("QUEUE", "rx_producer"),
            c_i_rx_consumer: ix("QUEUE", "rx_consumer"),
            c_i_cq_base_lo: ix("QUEUE", "cq_base_lo"),
            c_i_cq_base_hi: ix("QUEUE", "cq_base_hi"),
            c_i_cq_log2_size: ix("QUEUE", "cq_log2_size"),
            c_i_cq_producer: ix("QUEUE", "cq_producer"),
            c_i_cq_consumer: ix("QUEUE", "cq_consumer"),
            c_a_rx_log2: address_of("QUEUE", "rx_log2_size"),
            c_a_cq_log2: address_of("QUEUE", "cq_log2_size"),
            dma_ok: Signal::default(),
            table_ok: Signal::default(),
            local_mac: Signal::default(),
            gw_mac: Signal::default(),
            cfg_ip: Signal::default(),
            c_r: std::array::from_fn(|r| Constant::new((r as u64).into())),
            c_i_max_overcommit: ix("CONFIG", "max_overcommit"),
            c_i_max_incoming: ix("CONFIG", "max_incoming"),
            c_i_max_sched_prio: ix("CONFIG", "max_sched_prio"),
            c_i_ipv4_addr: ix("CONFIG", "ipv4_addr"),
            c_i_mac_addr_lo: ix("CONFIG", "mac_addr_lo"),
            c_i_mac_addr_hi: ix("CONFIG", "mac_addr_hi"),
            c_i_gw_mac_lo: ix("CONFIG", "gw_mac_lo"),
            c_i_gw_mac_hi: ix("CONFIG", "gw_mac_hi"),
            c_i_window_n0: ix("CONFIG", "window_n0"),
            c_i_window_n1: ix("CONFIG", "window_n1"),
            c_i_window_n2: ix("CONFIG", "window_n2"),
            c_i_window_n3: ix("CONFIG", "window_n3"),
            c_i_window_n4: ix("CONFIG", "window_n4"),
            c_i_window_n5: ix("CONFIG", "window_n5"),
            c_i_window_n6: ix("CONFIG", "window_n6"),
            c_i_window_n7: ix("CONFIG", "window_n7"),
            c_i_window_n8: ix("CONFIG", "window_n8"),
            c_i_frames_ok: ix("RX", "frames_ok"),
            c_i_dropped_runt: ix("RX", "dropped_runt"),
            c_i_dropped_bad_checksum: ix("RX", "dropped_bad_checksum"),
            c_i_dropped_not_homa: ix("RX", "dropped_not_homa"),
            c_i_dropped_bad_type: ix("RX", "dropped_bad_type"),
            c_i_dropped_bad_length: ix("RX", "dropped_bad_length"),
            c_i_messages_tracked: ix("GRANT", "messages_tracked"),
            c_i_grants_sent: ix("GRANT", "grants_sent"),
            c_i_table_full: ix("GRANT", "table_full"),
            c_i_holes_forgotten: ix("GRANT", "holes_forgotten"),
            c_i_dropped_late: ix("GRANT", "dropped_late"),
            c_i_collisions: ix("GRANT", "collisions"),
            c_i_release_peer: ix("GRANT", "release_peer"),
            c_i_release_id_lo: ix("GRANT", "release_id_lo"),
            c_i_release_id_hi: ix("GRANT", "release_id_hi"),
            c_i_release_length: ix("GRANT", "release_length"),
            c_i_releases: ix("GRANT", "releases"),
            c_a_release: address_of("GRANT", "release"),
            c_one32: Constant::new(1u64.into()),
            c_one64: Constant::new(1u64.into()),
            rel_pending: DFF::default(),
            rel_peer: DFF::default(),
            rel_id: DFF::default(),
            rel_len: DFF::default(),
            n_rel: DFF::default(),
            ring: Signal::default(),
            op_peer: Signal::default(),
            op_id: Signal::default(),
            op_len: Signal::default(),
            data_ok: Signal::default(),
            c_zero8: Constant::new(0u64.into()),
            c_zero32: Constant::new(0u64.into()),
            is_data: Signal::default(),
            end_len: Signal::default(),
            c_data: Constant::new(u64::from(u8::from(homa_proto::wire::PacketType::Data)).into()),
            c_v4: Constant::new(4u64.into()),
            c_lo: Constant::new(0u64.into()),
            c_zero16: Constant::new(0u64.into()),
            c_zero5: Constant::new(0u64.into()),
        }
    }

    /// A new core as the top level of a design: every input driven from outside.
    pub fn top_level() -> Self {
        let mut uut = Self::new();
        uut.clock.connect();
        uut.reset.connect();
        uut.s_axis_tdata.connect();
        uut.s_axis_tkeep.connect();
        uut.s_axis_tvalid.connect();
        uut.s_axis_tlast.connect();
        uut.m_dma_rd_ready.connect();
        uut.s_dma_rd_valid.connect();
        uut.s_dma_rd_data.connect();
        uut.m_dma_wr_ready.connect();
        uut.m_dma_txrd_ready.connect();
        uut.s_dma_txrd_valid.connect();
        uut.s_dma_txrd_data.connect();
        uut.m_dma_payrd_ready.connect();
        uut.s_dma_payrd_valid.connect();
        uut.s_dma_payrd_data.connect();
        uut.m_axis_tready.connect();
        uut.s_reg_addr.connect();
        uut.s_reg_wdata.connect();
        uut.s_reg_we.connect();
        uut.s_reg_re.connect();
        uut.s_push_valid.connect();
        uut.s_push_word.connect();
        uut.s_push_data.connect();
        uut.s_push_keep.connect();
        uut.connect_all();
        uut
    }
}

impl<const W: usize, const B: usize> Default for HomaNicCore<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> core::fmt::Debug for HomaNicCore<W, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("HomaNicCore")
            .field("bytes_per_beat", &W)
            .finish_non_exhaustive()
    }
}

impl<const W: usize, const B: usize> Logic for HomaNicCore<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            rel_pending,
            rel_peer,
            rel_id,
            rel_len,
            n_rel,
            out_g,
            out_d
        );
        self.regs.clock.next = self.clock.val();
        self.regs.reset.next = self.reset.val();
        self.regs.s_reg_addr.next = self.s_reg_addr.val();
        self.regs.s_reg_wdata.next = self.s_reg_wdata.val();
        self.regs.s_reg_we.next = self.s_reg_we.val();
        self.regs.s_reg_re.next = self.s_reg_re.val();
        self.m_reg_rdata.next = self.regs.m_reg_rdata.val();
        self.m_reg_rvalid.next = self.regs.m_reg_rvalid.val();
        // Configuration out of the register file, counters into it, by the word index
        // of each register in proto::regs (constants: synthesis keeps one mux input each).
        self.grant.cfg_max_overcommit.next = self.c_zero8.val();
        self.grant.cfg_max_sched_prio.next = self.c_zero8.val();
        self.grant.cfg_max_incoming.next = self.c_zero32.val();
        self.grant.cfg_max_payload.next = self.c_zero32.val();
        self.grant.cfg_window_0.next = self.c_zero32.val();
        self.grant.cfg_window_1.next = self.c_zero32.val();
        self.grant.cfg_window_2.next = self.c_zero32.val();
        self.grant.cfg_window_3.next = self.c_zero32.val();
        self.grant.cfg_window_4.next = self.c_zero32.val();
        self.grant.cfg_window_5.next = self.c_zero32.val();
        self.grant.cfg_window_6.next = self.c_zero32.val();
        self.grant.cfg_window_7.next = self.c_zero32.val();
        self.grant.cfg_window_8.next = self.c_zero32.val();
        self.grant.cfg_fifo_interval.next = self.c_zero32.val();
        self.grant.cfg_fifo_increment.next = self.c_zero32.val();
        self.grant.cfg_fifo_prio.next = self.c_zero3.val();
        self.cfg_ip.next = self.c_zero32.val();
        self.local_mac.next.lo = self.c_zero32.val();
        self.local_mac.next.hi = self.c_zero16.val();
        self.gw_mac.next.lo = self.c_zero32.val();
        self.gw_mac.next.hi = self.c_zero16.val();
        self.op_peer.next = self.c_zero32.val();
        self.op_id.next.lo = self.c_zero32.val();
        self.op_id.next.hi = self.c_zero32.val();
        self.op_len.next = self.c_zero32.val();
        self.rx_base.next.lo = self.c_zero32.val();
        self.rx_base.next.hi = self.c_zero32.val();
        self.cq_base.next.lo = self.c_zero32.val();
        self.cq_base.next.hi = self.c_zero32.val();
        self.rx_win_base.next.lo = self.c_zero32.val();
        self.rx_win_base.next.hi = self.c_zero32.val();
        self.rx_win_len.next.lo = self.c_zero32.val();
        self.rx_win_len.next.hi = self.c_zero32.val();
        self.hq.cfg_rx_log2.next = self.c_zero5.val();
        self.hq.cfg_cq_log2.next = self.c_zero5.val();
        self.hq.cfg_rx_producer.next = self.c_zero32.val();
        self.hq.cfg_cq_consumer.next = self.c_zero32.val();
        self.tx_base.next.lo = self.c_zero32.val();
        self.tx_base.next.hi = self.c_zero32.val();
        self.tx_win_base.next.lo = self.c_zero32.val();
        self.tx_win_base.next.hi = self.c_zero32.val();
        self.tx_win_len.next.lo = self.c_zero32.val();
        self.tx_win_len.next.hi = self.c_zero32.val();
        self.txq.cfg_log2.next = self.c_zero5.val();
        self.txq.cfg_producer.next = self.c_zero32.val();
        self.txq.cfg_max_len.next = self.c_zero32.val();
        self.txq.cfg_max_payload.next = self.c_zero32.val();
        self.tx.cfg_unsched_bytes.next = self.c_zero32.val();
        self.tx.cfg_max_payload.next = self.c_zero32.val();
        self.tx.cfg_cutoff1.next = self.c_zero32.val();
        self.tx.cfg_cutoff2.next = self.c_zero32.val();
        self.tx.cfg_cutoff3.next = self.c_zero32.val();
        self.tx.cfg_cutoff4.next = self.c_zero32.val();
        self.tx.cfg_cutoff5.next = self.c_zero32.val();
        self.tx.cfg_cutoff6.next = self.c_zero32.val();
        self.tx.cfg_cutoff7.next = self.c_zero32.val();
        self.cutoff_version.next = self.c_zero16.val();
        self.ctl_prio.next = self.c_zero3.val();
        self.tracked_q.next.lo = self.grant.messages_queued.val();
        self.tracked_q.next.z = self.c_zero16.val();
        self.queued32.next.lo = self.tx.occupancy.val();
        self.queued32.next.z = self.c_zero16.val();
        self.parked32.next.lo = self.tx.parked.val();
        self.parked32.next.z = self.c_zero16.val();
        self.most32.next.lo = self.tx.parked_most.val();
        self.most32.next.z = self.c_zero16.val();
        for r in 0..HOMA_REG_WORDS {
            if self.c_r[r].val() == self.c_i_unsched_bytes.val() {
                self.tx.cfg_unsched_bytes.next = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_max_payload.val() {
                self.tx.cfg_max_payload.next = self.regs.rw[r].val();
                self.txq.cfg_max_payload.next = self.regs.rw[r].val();
                self.grant.cfg_max_payload.next = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_cutoff1.val() {
                self.tx.cfg_cutoff1.next = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_cutoff2.val() {
                self.tx.cfg_cutoff2.next = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_cutoff3.val() {
                self.tx.cfg_cutoff3.next = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_cutoff4.val() {
                self.tx.cfg_cutoff4.next = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_cutoff5.val() {
                self.tx.cfg_cutoff5.next = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_cutoff6.val() {
                self.tx.cfg_cutoff6.next = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_cutoff7.val() {
                self.tx.cfg_cutoff7.next = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_fifo_interval.val() {
                self.grant.cfg_fifo_interval.next = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_fifo_increment.val() {
                self.grant.cfg_fifo_increment.next = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_fifo_prio.val() {
                self.grant.cfg_fifo_prio.next =
                    self.regs.rw[r].val().get_bits::<3>(self.c_lo.val().index());
            }
            if self.c_r[r].val() == self.c_i_num_priorities.val() {
                self.ctl_prio.next = self.regs.rw[r].val().get_bits::<3>(self.c_lo.val().index())
                    - self.c_one3.val();
            }
            if self.c_r[r].val() == self.c_i_cutoff_version.val() {
                self.cutoff_version.next = self.regs.rw[r]
                    .val()
                    .get_bits::<16>(self.c_lo.val().index());
            }
            if self.c_r[r].val() == self.c_i_tx_base_lo.val() {
                self.tx_base.next.lo = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_tx_base_hi.val() {
                self.tx_base.next.hi = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_tx_log2_size.val() {
                self.txq.cfg_log2.next =
                    self.regs.rw[r].val().get_bits::<5>(self.c_lo.val().index());
            }
            if self.c_r[r].val() == self.c_i_tx_producer.val() {
                self.txq.cfg_producer.next = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_tx_win_base_lo.val() {
                self.tx_win_base.next.lo = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_tx_win_base_hi.val() {
                self.tx_win_base.next.hi = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_tx_win_len_lo.val() {
                self.tx_win_len.next.lo = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_tx_win_len_hi.val() {
                self.tx_win_len.next.hi = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_max_message_length.val() {
                self.txq.cfg_max_len.next = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_rx_base_lo.val() {
                self.rx_base.next.lo = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_rx_base_hi.val() {
                self.rx_base.next.hi = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_rx_win_base_lo.val() {
                self.rx_win_base.next.lo = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_rx_win_base_hi.val() {
                self.rx_win_base.next.hi = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_rx_win_len_lo.val() {
                self.rx_win_len.next.lo = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_rx_win_len_hi.val() {
                self.rx_win_len.next.hi = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_rx_log2_size.val() {
                self.hq.cfg_rx_log2.next =
                    self.regs.rw[r].val().get_bits::<5>(self.c_lo.val().index());
            }
            if self.c_r[r].val() == self.c_i_rx_producer.val() {
                self.hq.cfg_rx_producer.next = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_cq_base_lo.val() {
                self.cq_base.next.lo = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_cq_base_hi.val() {
                self.cq_base.next.hi = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_cq_log2_size.val() {
                self.hq.cfg_cq_log2.next =
                    self.regs.rw[r].val().get_bits::<5>(self.c_lo.val().index());
            }
            if self.c_r[r].val() == self.c_i_cq_consumer.val() {
                self.hq.cfg_cq_consumer.next = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_max_overcommit.val() {
                self.grant.cfg_max_overcommit.next =
                    self.regs.rw[r].val().get_bits::<8>(self.c_lo.val().index());
            }
            if self.c_r[r].val() == self.c_i_max_sched_prio.val() {
                self.grant.cfg_max_sched_prio.next =
                    self.regs.rw[r].val().get_bits::<8>(self.c_lo.val().index());
            }
            if self.c_r[r].val() == self.c_i_max_incoming.val() {
                self.grant.cfg_max_incoming.next = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_ipv4_addr.val() {
                self.cfg_ip.next = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_mac_addr_lo.val() {
                self.local_mac.next.lo = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_mac_addr_hi.val() {
                self.local_mac.next.hi = self.regs.rw[r]
                    .val()
                    .get_bits::<16>(self.c_lo.val().index());
            }
            if self.c_r[r].val() == self.c_i_gw_mac_lo.val() {
                self.gw_mac.next.lo = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_gw_mac_hi.val() {
                self.gw_mac.next.hi = self.regs.rw[r]
                    .val()
                    .get_bits::<16>(self.c_lo.val().index());
            }
            if self.c_r[r].val() == self.c_i_window_n0.val() {
                self.grant.cfg_window_0.next = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_window_n1.val() {
                self.grant.cfg_window_1.next = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_window_n2.val() {
                self.grant.cfg_window_2.next = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_window_n3.val() {
                self.grant.cfg_window_3.next = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_window_n4.val() {
                self.grant.cfg_window_4.next = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_window_n5.val() {
                self.grant.cfg_window_5.next = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_window_n6.val() {
                self.grant.cfg_window_6.next = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_window_n7.val() {
                self.grant.cfg_window_7.next = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_window_n8.val() {
                self.grant.cfg_window_8.next = self.regs.rw[r].val();
            }
            self.regs.ro[r].next = self.c_zero32.val();
            if self.c_r[r].val() == self.c_i_messages_queued.val() {
                self.regs.ro[r].next = Bits::<32>::from(self.queued32.val());
            }
            if self.c_r[r].val() == self.c_i_packets_sent.val() {
                self.regs.ro[r].next = self.tx.frames.val();
            }
            if self.c_r[r].val() == self.c_i_control_sent.val() {
                self.regs.ro[r].next = self.grant.grants_sent.val();
            }
            if self.c_r[r].val() == self.c_i_grants_unmatched.val() {
                self.regs.ro[r].next = self.tx.grants_unmatched.val();
            }
            if self.c_r[r].val() == self.c_i_messages_parked.val() {
                self.regs.ro[r].next = Bits::<32>::from(self.parked32.val());
            }
            if self.c_r[r].val() == self.c_i_parked_most.val() {
                self.regs.ro[r].next = Bits::<32>::from(self.most32.val());
            }
            if self.c_r[r].val() == self.c_i_grants_dropped.val() {
                self.regs.ro[r].next = self.tx.grants_dropped.val();
            }
            if self.c_r[r].val() == self.c_i_park_collisions.val() {
                self.regs.ro[r].next = self.tx.park_collisions.val();
            }
            if self.c_r[r].val() == self.c_i_frames_ok.val() {
                self.regs.ro[r].next = self.parser.frames_ok.val();
            }
            if self.c_r[r].val() == self.c_i_dropped_runt.val() {
                self.regs.ro[r].next = self.parser.dropped_runt.val();
            }
            if self.c_r[r].val() == self.c_i_dropped_bad_checksum.val() {
                self.regs.ro[r].next = self.parser.dropped_bad_checksum.val();
            }
            if self.c_r[r].val() == self.c_i_dropped_not_homa.val() {
                self.regs.ro[r].next = self.parser.dropped_not_homa.val();
            }
            if self.c_r[r].val() == self.c_i_dropped_bad_type.val() {
                self.regs.ro[r].next = self.parser.dropped_bad_type.val();
            }
            if self.c_r[r].val() == self.c_i_dropped_bad_length.val() {
                self.regs.ro[r].next = self.parser.dropped_bad_length.val();
            }
            if self.c_r[r].val() == self.c_i_messages_tracked.val() {
                self.regs.ro[r].next = self.grant.messages_tracked.val();
            }
            if self.c_r[r].val() == self.c_i_grants_sent.val() {
                self.regs.ro[r].next = self.grant.grants_sent.val();
            }
            if self.c_r[r].val() == self.c_i_table_full.val() {
                self.regs.ro[r].next = self.grant.evictions.val();
            }
            if self.c_r[r].val() == self.c_i_g_messages_queued.val() {
                self.regs.ro[r].next = Bits::<32>::from(self.tracked_q.val());
            }
            if self.c_r[r].val() == self.c_i_decisions.val() {
                self.regs.ro[r].next = self.grant.decisions.val();
            }
            if self.c_r[r].val() == self.c_i_fifo_grants.val() {
                self.regs.ro[r].next = self.grant.fifo_grants.val();
            }
            if self.c_r[r].val() == self.c_i_holes_forgotten.val() {
                self.regs.ro[r].next = self.msgs.holes_forgotten.val();
            }
            if self.c_r[r].val() == self.c_i_dropped_late.val() {
                self.regs.ro[r].next = self.msgs.dropped_late.val();
            }
            if self.c_r[r].val() == self.c_i_release_peer.val() {
                self.op_peer.next = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_release_id_lo.val() {
                self.op_id.next.lo = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_release_id_hi.val() {
                self.op_id.next.hi = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_release_length.val() {
                self.op_len.next = self.regs.rw[r].val();
            }
            if self.c_r[r].val() == self.c_i_releases.val() {
                self.regs.ro[r].next = self.n_rel.q.val();
            }
            if self.c_r[r].val() == self.c_i_collisions.val() {
                self.regs.ro[r].next = self.msgs.collisions.val();
            }
            if self.c_r[r].val() == self.c_i_rx_consumer.val() {
                self.regs.ro[r].next = self.hq.rx_consumer.val();
            }
            if self.c_r[r].val() == self.c_i_cq_producer.val() {
                self.regs.ro[r].next = self.hq.cq_producer.val();
            }
            if self.c_r[r].val() == self.c_i_dropped_no_buffer.val() {
                self.regs.ro[r].next = self.hq.no_buffer.val();
            }
            if self.c_r[r].val() == self.c_i_rx_data.val() {
                self.regs.ro[r].next = self.hq.rx_data.val();
            }
            if self.c_r[r].val() == self.c_i_rx_errors.val() {
                self.regs.ro[r].next = self.hq.rx_errors.val();
            }
            if self.c_r[r].val() == self.c_i_dropped_bad_payload.val() {
                self.regs.ro[r].next = self.hq.bad_frames.val();
            }
            if self.c_r[r].val() == self.c_i_data_empty.val() {
                self.regs.ro[r].next = self.hq.empty.val();
            }
            if self.c_r[r].val() == self.c_i_rx_bad_descriptors.val() {
                self.regs.ro[r].next = self.hq.bad_descriptors.val();
            }
            if self.c_r[r].val() == self.c_i_cq_dropped.val() {
                self.regs.ro[r].next = self.hq.cq_dropped.val();
            }
            if self.c_r[r].val() == self.c_i_tx_consumer.val() {
                self.regs.ro[r].next = self.txq.consumer.val();
            }
            if self.c_r[r].val() == self.c_i_tx_bad_descriptors.val() {
                self.regs.ro[r].next = self.txq.bad.val();
            }
            if self.c_r[r].val() == self.c_i_tx_onchip_bytes.val() {
                self.regs.ro[r].next = self.c_onchip_bytes.val();
            }
            if self.c_r[r].val() == self.c_i_tx_onchip_faults.val() {
                self.regs.ro[r].next = self.push.faults.val();
            }
        }
        // The TX descriptor ring: its own read channel; refusals into the completion ring,
        // good descriptors out to the transmit engine.
        self.txq.clock.next = self.clock.val();
        self.txq.reset.next = self.reset.val();
        self.txq.cfg_base.next = Bits::<64>::from(self.tx_base.val());
        self.txq.cfg_win_base.next = Bits::<64>::from(self.tx_win_base.val());
        self.txq.cfg_win_len.next = Bits::<64>::from(self.tx_win_len.val());
        self.txq.cfg_clear.next =
            self.s_reg_we.val() & (self.s_reg_addr.val() == self.c_a_tx_log2.val());
        // Its reads go through on-chip TX memory: on chip, or on to host memory.
        self.push.clock.next = self.clock.val();
        self.push.reset.next = self.reset.val();
        self.push.s_push_valid.next = self.s_push_valid.val();
        self.push.s_push_word.next = self.s_push_word.val();
        self.push.s_push_data.next = self.s_push_data.val();
        self.push.s_push_keep.next = self.s_push_keep.val();
        self.push.s_rd_valid.next = self.txq.m_rd_valid.val();
        self.push.s_rd_addr.next = self.txq.m_rd_addr.val();
        self.push.s_rd_len.next = self.txq.m_rd_len.val();
        self.txq.m_rd_ready.next = self.push.s_rd_ready.val();
        self.txq.s_rd_valid.next = self.push.m_rdr_valid.val();
        self.txq.s_rd_data.next = self.push.m_rdr_data.val();
        self.m_dma_txrd_valid.next = self.push.m_dma_rd_valid.val();
        self.m_dma_txrd_addr.next = self.push.m_dma_rd_addr.val();
        self.m_dma_txrd_len.next = self.push.m_dma_rd_len.val();
        self.push.m_dma_rd_ready.next = self.m_dma_txrd_ready.val();
        self.push.s_dma_rd_valid.next = self.s_dma_txrd_valid.val();
        self.push.s_dma_rd_data.next = self.s_dma_txrd_data.val();
        self.hq.s_txerr_valid.next = self.txq.m_err_valid.val();
        self.txq.m_err_ready.next = self.hq.s_txerr_ready.val();
        self.hq.s_txerr_status.next = self.txq.m_err_status.val();
        self.hq.s_txerr_index.next = self.txq.m_desc_index.val();
        self.hq.s_txerr_rpc_id.next = self.txq.m_desc_rpc_id.val();
        self.hq.s_txerr_cookie.next = self.txq.m_desc_cookie.val();
        // The transmit engine: checked descriptors in, GRANTs for this host's messages in,
        // payload reads out on the third read channel, frames to the MAC arbiter, TX_DONE
        // into the completion ring.
        self.tx.clock.next = self.clock.val();
        self.tx.reset.next = self.reset.val();
        self.tx.cfg_mac.next = Bits::<48>::from(self.local_mac.val());
        self.tx.cfg_next_hop_mac.next = Bits::<48>::from(self.gw_mac.val());
        self.tx.cfg_ip.next = self.cfg_ip.val();
        self.tx.cfg_cutoff_version.next = self.cutoff_version.val();
        self.tx.s_desc_valid.next = self.txq.m_desc_valid.val();
        self.txq.m_desc_ready.next = self.tx.s_desc_ready.val();
        self.tx.s_desc_retransmit.next = self.txq.m_desc_retransmit.val();
        self.tx.s_desc_cancel.next = self.txq.m_desc_cancel.val();
        self.tx.s_desc_no_completion.next = self.txq.m_desc_no_completion.val();
        self.tx.s_desc_sport.next = self.txq.m_desc_src_port.val();
        self.tx.s_desc_dport.next = self.txq.m_desc_dst_port.val();
        self.tx.s_desc_id.next = self.txq.m_desc_rpc_id.val();
        self.peer4.next.b0 = self
            .txq
            .m_desc_peer
            .val()
            .get_bits::<8>(self.c_peer_b0.val().index());
        self.peer4.next.b1 = self
            .txq
            .m_desc_peer
            .val()
            .get_bits::<8>(self.c_peer_b1.val().index());
        self.peer4.next.b2 = self
            .txq
            .m_desc_peer
            .val()
            .get_bits::<8>(self.c_peer_b2.val().index());
        self.peer4.next.b3 = self
            .txq
            .m_desc_peer
            .val()
            .get_bits::<8>(self.c_peer_b3.val().index());
        self.tx.s_desc_peer.next = Bits::<32>::from(self.peer4.val());
        self.tx.s_desc_length.next = self.txq.m_desc_length.val();
        self.tx.s_desc_iova.next = self.txq.m_desc_iova.val();
        self.tx.s_desc_offset.next = self.txq.m_desc_offset.val();
        self.tx.s_desc_bytes.next = self.txq.m_desc_bytes.val();
        self.tx.s_desc_cookie.next = self.txq.m_desc_cookie.val();
        self.tx.s_desc_index.next = self.txq.m_desc_index.val();
        self.push.s_pay_valid.next = self.tx.m_rd_valid.val();
        self.push.s_pay_addr.next = self.tx.m_rd_addr.val();
        self.push.s_pay_len.next = self.tx.m_rd_len.val();
        self.tx.m_rd_ready.next = self.push.s_pay_ready.val();
        self.tx.s_pay_valid.next = self.push.m_payr_valid.val();
        self.tx.s_pay_data.next = self.push.m_payr_data.val();
        self.push.m_payr_ready.next = self.tx.s_pay_ready.val();
        self.m_dma_payrd_valid.next = self.push.m_dma_pay_valid.val();
        self.m_dma_payrd_addr.next = self.push.m_dma_pay_addr.val();
        self.m_dma_payrd_len.next = self.push.m_dma_pay_len.val();
        self.push.m_dma_pay_ready.next = self.m_dma_payrd_ready.val();
        self.push.s_dma_pay_valid.next = self.s_dma_payrd_valid.val();
        self.push.s_dma_pay_data.next = self.s_dma_payrd_data.val();
        self.s_dma_payrd_ready.next = self.push.s_dma_pay_ready.val();
        self.hq.s_txdone_valid.next = self.tx.m_done_valid.val();
        self.tx.m_done_ready.next = self.hq.s_txdone_ready.val();
        self.hq.s_txdone_rpc_id.next = self.tx.m_done_id.val();
        self.hq.s_txdone_length.next = self.tx.m_done_length.val();
        self.hq.s_txdone_cookie.next = self.tx.m_done_cookie.val();
        self.parser.clock.next = self.clock.val();
        self.msgs.clock.next = self.clock.val();
        self.grant.clock.next = self.clock.val();
        self.evq.clock.next = self.clock.val();
        self.framer.clock.next = self.clock.val();
        self.parser.reset.next = self.reset.val();
        self.msgs.reset.next = self.reset.val();
        self.grant.reset.next = self.reset.val();
        self.evq.reset.next = self.reset.val();
        self.framer.reset.next = self.reset.val();
        // Frames in, payload out.
        self.parser.s_axis_tdata.next = self.s_axis_tdata.val();
        self.parser.s_axis_tkeep.next = self.s_axis_tkeep.val();
        self.parser.s_axis_tvalid.next = self.s_axis_tvalid.val();
        self.parser.s_axis_tlast.next = self.s_axis_tlast.val();
        self.s_axis_tready.next = self.parser.s_axis_tready.val();
        // Payload into the host queues (DMA into posted RX buffers).
        self.hq.clock.next = self.clock.val();
        self.hq.reset.next = self.reset.val();
        self.hq.cfg_rx_base.next = Bits::<64>::from(self.rx_base.val());
        self.hq.cfg_cq_base.next = Bits::<64>::from(self.cq_base.val());
        self.hq.cfg_rx_win_base.next = Bits::<64>::from(self.rx_win_base.val());
        self.hq.cfg_rx_win_len.next = Bits::<64>::from(self.rx_win_len.val());
        self.hq.cfg_rx_clear.next =
            self.s_reg_we.val() & (self.s_reg_addr.val() == self.c_a_rx_log2.val());
        self.hq.cfg_cq_clear.next =
            self.s_reg_we.val() & (self.s_reg_addr.val() == self.c_a_cq_log2.val());
        self.hq.s_pay_tdata.next = self.parser.m_axis_tdata.val();
        self.hq.s_pay_tkeep.next = self.parser.m_axis_tkeep.val();
        self.hq.s_pay_tvalid.next = self.parser.m_axis_tvalid.val();
        self.hq.s_pay_tlast.next = self.parser.m_axis_tlast.val();
        self.hq.s_pay_tuser.next = self.parser.m_axis_tuser.val();
        self.parser.m_axis_tready.next = self.hq.s_pay_tready.val();
        self.m_dma_rd_valid.next = self.hq.m_rd_valid.val();
        self.m_dma_rd_addr.next = self.hq.m_rd_addr.val();
        self.m_dma_rd_len.next = self.hq.m_rd_len.val();
        self.hq.m_rd_ready.next = self.m_dma_rd_ready.val();
        self.hq.s_rd_valid.next = self.s_dma_rd_valid.val();
        self.hq.s_rd_data.next = self.s_dma_rd_data.val();
        self.m_dma_wr_valid.next = self.hq.m_wr_valid.val();
        self.m_dma_wr_addr.next = self.hq.m_wr_addr.val();
        self.m_dma_wr_data.next = self.hq.m_wr_data.val();
        self.m_dma_wr_keep.next = self.hq.m_wr_keep.val();
        self.m_dma_wr_last.next = self.hq.m_wr_last.val();
        self.hq.m_wr_ready.next = self.m_dma_wr_ready.val();
        // The header fork: the table for IPv4 DATA, the host queues for every header (its
        // completion). A header leaves when both its takers take it.
        self.is_data.next = (self.parser.m_hdr_type.val() == self.c_data.val())
            & (self.parser.m_hdr_ip_version.val() == self.c_v4.val());
        // A pending release goes into the table first; DATA waits behind it.
        self.data_ok.next = self.msgs.s_pkt_ready.val() & !self.rel_pending.q.val();
        self.table_ok.next = !self.is_data.val() | self.data_ok.val();
        self.dma_ok.next = !self.dhdr.full.val();
        self.parser.m_hdr_ready.next = self.table_ok.val() & self.dma_ok.val();
        // GRANTs (IPv4) also go to the transmit engine, which takes one every cycle: it
        // sees the header the cycle it leaves the parser.
        self.grant_in.next = self.parser.m_hdr_valid.val()
            & self.table_ok.val()
            & self.dma_ok.val()
            & (self.parser.m_hdr_type.val() == self.c_grant.val())
            & (self.parser.m_hdr_ip_version.val() == self.c_v4.val());
        self.tx.s_grant_valid.next = self.grant_in.val();
        self.tx.s_grant_peer.next = self
            .parser
            .m_hdr_src_ip
            .val()
            .get_bits::<32>(self.c_lo.val().index());
        self.tx.s_grant_id.next = self.parser.m_hdr_sender_id.val();
        self.tx.s_grant_offset.next = self.parser.m_hdr_grant_offset.val();
        self.tx.s_grant_priority.next = self.parser.m_hdr_grant_priority.val();
        self.dhdr.clock.next = self.clock.val();
        self.dhdr.reset.next = self.reset.val();
        self.dhdr.push.next =
            self.parser.m_hdr_valid.val() & self.table_ok.val() & !self.dhdr.full.val();
        self.dhdr.din.next.ip_version = self.parser.m_hdr_ip_version.val();
        self.dhdr.din.next.src_ip = self.parser.m_hdr_src_ip.val();
        self.dhdr.din.next.sport = self.parser.m_hdr_sport.val();
        self.dhdr.din.next.dport = self.parser.m_hdr_dport.val();
        self.dhdr.din.next.sender_id = self.parser.m_hdr_sender_id.val();
        self.dhdr.din.next.message_length = self.parser.m_hdr_data_message_length.val();
        self.dhdr.din.next.offset = self.parser.m_hdr_data_offset.val();
        self.dhdr.din.next.payload_len = self.parser.m_hdr_data_payload_len.val();
        self.dhdr.din.next.retransmit = self.parser.m_hdr_data_retransmit.val();
        self.dhdr.din.next.table = self.is_data.val();
        self.dhdr.din.next.ptype = self.parser.m_hdr_type.val();
        self.dhdr.din.next.incoming = self.parser.m_hdr_data_incoming.val();
        self.dhdr.din.next.cutoff_version = self.parser.m_hdr_data_cutoff_version.val();
        self.dhdr.din.next.ack_client_id = self.parser.m_hdr_data_ack_client_id.val();
        self.dhdr.din.next.ack_server_port = self.parser.m_hdr_data_ack_server_port.val();
        self.dhdr.din.next.body = self.parser.m_hdr_body.val();
        // An IPv4 DATA header waits for its fate from the table (one cycle behind it); the
        // host grants a message the table could not hold, and every IPv6 one.
        self.fate.clock.next = self.clock.val();
        self.fate.reset.next = self.reset.val();
        self.fate.push.next = self.msgs.m_fate_valid.val();
        self.fate.din.next = self.msgs.m_fate_collision.val();
        // Each term from registers (the FIFOs' outputs) alone, none shared between the valid
        // and the ready side: the host queues' ready comes out of the same logic as their use
        // of valid, and a shared term would close a loop through them.
        self.hq.s_hdr_valid.next =
            self.dhdr.valid.val() & (!self.dhdr.dout.val().table | self.fate.valid.val());
        self.dhdr.ready.next =
            self.hq.s_hdr_ready.val() & (!self.dhdr.dout.val().table | self.fate.valid.val());
        self.fate.ready.next =
            self.hq.s_hdr_ready.val() & self.dhdr.dout.val().table & self.dhdr.valid.val();
        self.hq.s_hdr_host_grants.next = !self.dhdr.dout.val().table | self.fate.dout.val();
        self.hq.s_hdr_ip_version.next = self.dhdr.dout.val().ip_version;
        self.hq.s_hdr_src_ip.next = self.dhdr.dout.val().src_ip;
        self.hq.s_hdr_sport.next = self.dhdr.dout.val().sport;
        self.hq.s_hdr_dport.next = self.dhdr.dout.val().dport;
        self.hq.s_hdr_sender_id.next = self.dhdr.dout.val().sender_id;
        self.hq.s_hdr_message_length.next = self.dhdr.dout.val().message_length;
        self.hq.s_hdr_offset.next = self.dhdr.dout.val().offset;
        self.hq.s_hdr_payload_len.next = self.dhdr.dout.val().payload_len;
        self.hq.s_hdr_retransmit.next = self.dhdr.dout.val().retransmit;
        self.hq.s_hdr_type.next = self.dhdr.dout.val().ptype;
        self.hq.s_hdr_incoming.next = self.dhdr.dout.val().incoming;
        self.hq.s_hdr_cutoff_version.next = self.dhdr.dout.val().cutoff_version;
        self.hq.s_hdr_ack_client_id.next = self.dhdr.dout.val().ack_client_id;
        self.hq.s_hdr_ack_server_port.next = self.dhdr.dout.val().ack_server_port;
        self.hq.s_hdr_body.next = self.dhdr.dout.val().body;
        self.end_len.next.lo = self.parser.m_hdr_data_payload_len.val();
        self.end_len.next.z = self.c_zero16.val();
        self.msgs.s_pkt_valid.next =
            self.parser.m_hdr_valid.val() & self.is_data.val() & !self.dhdr.full.val();
        self.msgs.s_pkt_peer.next = self
            .parser
            .m_hdr_src_ip
            .val()
            .get_bits::<32>(self.c_lo.val().index());
        self.msgs.s_pkt_id.next = self.parser.m_hdr_sender_id.val();
        self.msgs.s_pkt_sport.next = self.parser.m_hdr_sport.val();
        self.msgs.s_pkt_dport.next = self.parser.m_hdr_dport.val();
        self.msgs.s_pkt_mac.next = Bits::<48>::from(self.gw_mac.val());
        self.msgs.s_pkt_length.next = self.parser.m_hdr_data_message_length.val();
        self.msgs.s_pkt_incoming.next = self.parser.m_hdr_data_incoming.val();
        self.msgs.s_pkt_offset.next = self.parser.m_hdr_data_offset.val();
        self.msgs.s_pkt_end.next =
            self.parser.m_hdr_data_offset.val() + Bits::<32>::from(self.end_len.val());
        self.msgs.s_pkt_release.next = false;
        if self.rel_pending.q.val() {
            self.msgs.s_pkt_valid.next = true;
            self.msgs.s_pkt_peer.next = self.rel_peer.q.val();
            self.msgs.s_pkt_id.next = Bits::<64>::from(self.rel_id.q.val());
            self.msgs.s_pkt_sport.next = self.c_zero16.val();
            self.msgs.s_pkt_dport.next = self.c_zero16.val();
            self.msgs.s_pkt_length.next = self.rel_len.q.val();
            self.msgs.s_pkt_incoming.next = self.rel_len.q.val();
            self.msgs.s_pkt_offset.next = self.c_zero32.val();
            self.msgs.s_pkt_end.next = self.rel_len.q.val();
            self.msgs.s_pkt_release.next = true;
        }
        // Releases: the doorbell latches the operands unless one is still waiting (that
        // doorbell is lost; `releases` counts those taken).
        self.ring.next = self.s_reg_we.val() & (self.s_reg_addr.val() == self.c_a_release.val());
        if self.rel_pending.q.val() & self.msgs.s_pkt_ready.val() {
            self.rel_pending.d.next = false;
            self.n_rel.d.next = self.n_rel.q.val() + self.c_one32.val();
        }
        if self.ring.val() & !self.rel_pending.q.val() {
            self.rel_pending.d.next = true;
            self.rel_peer.d.next = self.op_peer.val();
            self.rel_id.d.next = self.op_id.val();
            self.rel_len.d.next = self.op_len.val();
        }
        if self.reset.val() {
            self.rel_pending.d.next = false;
            self.n_rel.d.next = self.c_zero32.val();
        }
        // Table → event queue → grant generator.
        self.qevt.next.index = self.msgs.m_evt_index.val();
        self.qevt.next.peer = self.msgs.m_evt_peer.val();
        self.qevt.next.id = self.msgs.m_evt_id.val();
        self.qevt.next.sport = self.msgs.m_evt_sport.val();
        self.qevt.next.dport = self.msgs.m_evt_dport.val();
        self.qevt.next.mac = self.msgs.m_evt_mac.val();
        self.qevt.next.length = self.msgs.m_evt_length.val();
        self.qevt.next.incoming = self.msgs.m_evt_incoming.val();
        self.qevt.next.new = self.msgs.m_evt_new.val();
        self.qevt.next.end = self.msgs.m_evt_end.val();
        self.evq.din.next = self.qevt.val();
        self.evq.push.next = self.msgs.m_evt_valid.val() & !self.evq.full.val();
        self.msgs.m_evt_ready.next = !self.evq.full.val();
        self.grant.s_evt_valid.next = self.evq.valid.val();
        self.evq.ready.next = self.grant.s_evt_ready.val();
        self.grant.s_evt_index.next = self.evq.dout.val().index;
        self.grant.s_evt_peer.next = self.evq.dout.val().peer;
        self.grant.s_evt_id.next = self.evq.dout.val().id;
        self.grant.s_evt_sport.next = self.evq.dout.val().sport;
        self.grant.s_evt_dport.next = self.evq.dout.val().dport;
        self.grant.s_evt_mac.next = self.evq.dout.val().mac;
        self.grant.s_evt_length.next = self.evq.dout.val().length;
        self.grant.s_evt_incoming.next = self.evq.dout.val().incoming;
        self.grant.s_evt_new.next = self.evq.dout.val().new;
        self.grant.s_evt_end.next = self.evq.dout.val().end;
        self.m_trace_grant_event.next = self.evq.valid.val() & self.grant.s_evt_ready.val();
        self.m_trace_grant_decision.next = self.grant.m_dec_start.val();
        self.m_trace_grant_fifo.next = self.grant.m_fifo_start.val();
        self.m_trace_grant_busy.next = self.evq.valid.val() | !self.grant.idle.val();
        // Grant generator → framer → MAC, and a report of each GRANT to the host queues.
        self.framer.s_grant_valid.next = self.grant.m_grant_valid.val() & !self.gsent.full.val();
        self.grant.m_grant_ready.next = self.framer.s_grant_ready.val() & !self.gsent.full.val();
        self.gsent.clock.next = self.clock.val();
        self.gsent.reset.next = self.reset.val();
        self.gsent.push.next = self.grant.m_grant_valid.val()
            & self.framer.s_grant_ready.val()
            & !self.gsent.full.val();
        self.grep.next.rpc_id = self.grant.m_grant_id.val() ^ self.c_one64.val();
        self.grep.next.peer = self.grant.m_grant_peer.val();
        self.grep.next.local_port = self.grant.m_grant_sport.val();
        self.grep.next.peer_port = self.grant.m_grant_dport.val();
        self.grep.next.offset = self.grant.m_grant_offset.val();
        self.grep.next.priority = self.grant.m_grant_priority.val();
        self.gsent.din.next = self.grep.val();
        self.hq.s_gnt_valid.next = self.gsent.valid.val();
        self.gsent.ready.next = self.hq.s_gnt_ready.val();
        self.hq.s_gnt_rpc_id.next = self.gsent.dout.val().rpc_id;
        self.hq.s_gnt_peer.next = self.gsent.dout.val().peer;
        self.hq.s_gnt_local_port.next = self.gsent.dout.val().local_port;
        self.hq.s_gnt_peer_port.next = self.gsent.dout.val().peer_port;
        self.hq.s_gnt_offset.next = self.gsent.dout.val().offset;
        self.hq.s_gnt_priority.next = self.gsent.dout.val().priority;
        self.framer.s_grant_peer.next = self.grant.m_grant_peer.val();
        self.framer.s_grant_mac.next = self.grant.m_grant_mac.val();
        self.framer.s_grant_id.next = self.grant.m_grant_id.val();
        self.framer.s_grant_sport.next = self.grant.m_grant_sport.val();
        self.framer.s_grant_dport.next = self.grant.m_grant_dport.val();
        self.framer.s_grant_offset.next = self.grant.m_grant_offset.val();
        self.framer.s_grant_priority.next = self.grant.m_grant_priority.val();
        self.framer.cfg_mac.next = Bits::<48>::from(self.local_mac.val());
        self.framer.cfg_ip.next = self.cfg_ip.val();
        self.framer.cfg_ctl_priority.next = self.ctl_prio.val();
        // The MAC port: whole frames, a GRANT first when both wait (a GRANT is 2 beats at
        // 64 bytes, 9 at 8, and unblocks a sender; a DATA frame is up to 24 or 190).
        self.sel_g.next =
            self.out_g.q.val() | (!self.out_d.q.val() & self.framer.m_axis_tvalid.val());
        self.m_axis_tdata.next = self.tx.m_axis_tdata.val();
        self.m_axis_tkeep.next = self.tx.m_axis_tkeep.val();
        self.m_axis_tvalid.next = self.tx.m_axis_tvalid.val();
        self.m_axis_tlast.next = self.tx.m_axis_tlast.val();
        if self.sel_g.val() {
            self.m_axis_tdata.next = self.framer.m_axis_tdata.val();
            self.m_axis_tkeep.next = self.framer.m_axis_tkeep.val();
            self.m_axis_tvalid.next = self.framer.m_axis_tvalid.val();
            self.m_axis_tlast.next = self.framer.m_axis_tlast.val();
        }
        self.framer.m_axis_tready.next = self.sel_g.val() & self.m_axis_tready.val();
        self.tx.m_axis_tready.next = !self.sel_g.val() & self.m_axis_tready.val();
        if self.m_axis_tvalid.val() & self.m_axis_tready.val() {
            self.out_g.d.next = self.sel_g.val() & !self.m_axis_tlast.val();
            self.out_d.d.next = !self.sel_g.val() & !self.m_axis_tlast.val();
        }
        if self.reset.val() {
            self.out_g.d.next = false;
            self.out_d.d.next = false;
        }
    }
}
