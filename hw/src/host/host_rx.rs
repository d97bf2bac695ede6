//! `HostRx`: the receive side of the host queue interface (DESIGN §3), composed from the
//! three tested blocks: the RX buffer ring fetcher, the RX DMA engine and the completion ring
//! writer, behind one DMA read port and one DMA write port, `W` bytes wide ([`HostRx512`],
//! [`HostRx64`]).
//!
//! ```text
//!  cfg_rx_* ─► RxRing512 ◄─ ReadGather ◄─ m_rd_* / s_rd_* (descriptor reads)
//!                  ├─ buffers ─► RxDma ◄─ s_pay_* (payload), s_hdr_* (headers)
//!                  └─ refusals ─────┐  └─ completions ─► CqWriter ◄─ cfg_cq_*
//!                                  └─ payload writes ─┐        └─ entry writes
//!                                                     └──► m_wr_* ◄──┘ (entry writes first)
//! ```
//!
//! A descriptor the ring fetcher refuses (bad, or outside the RX window `cfg_rx_win_*`) comes
//! back as an `ERROR` completion (ring 2, its index, its `buffer_id` as the cookie, status 5 or
//! 1); refusals enter the completion FIFO ahead of the DMA engine's completions (they are
//! rare, and only they can unblock the buffers queued behind them). TX descriptors the TX ring
//! refused (`s_txerr_*`, from [`crate::tx_ring::TxRing512`]) share the ring: an `ERROR` of
//! ring 1 with their index, RPC id, cookie and status, after RX refusals and before the
//! engine's completions (each refusal consumed a descriptor the host posted, so neither
//! kind can hold the other off for long). Each waits a cycle in a register first (`txe`):
//! the TX ring reads its status out of distributed RAM, and without the register that read
//! ran through the 512-bit completion mux in the same cycle (8 LUT levels, the NIC core's
//! longest path). The transmit engine's reports (`s_txdone_*`, one
//! per message that asked) come next, as `TX_DONE` completions, ahead of the DMA engine's:
//! at most one per message sent, and a report held back would stall the engine's frames.
//! The grant generator's reports (`s_gnt_*`, one per GRANT sent) come last, as `GRANT_SENT`
//! completions: after the DMA engine's, so that the `RX_DATA` of a DATA comes before the
//! reports of the GRANTs it led to whenever both wait (the host ignores a report for a
//! message it has not seen yet, and learns its grants from the next).
//!
//! Completions pass through a two-entry FIFO on their way to the ring writer (which takes
//! each with its phase write, the last), so the engine never waits on the write port's arbitration
//! within a cycle. The write port takes one beat per cycle. Completion-ring writes win the
//! port over payload writes: they are one entry per packet (two beats at 64 bytes, nine at
//! 8) and never wait on the payload, so
//! neither side starves (a waiting completion holds the DMA engine's headers, and with them,
//! after eight payloads, its payload input). Order on the port is the order of the engine's
//! decisions: a completion exists only after the last beat of its payload went out, so a
//! host that sees a completion's phase bit sees its payload (PCIe posted writes stay in order).
//!
//! The descriptor fetcher takes a read's answer as one 64-byte record: at 64 bytes a beat is
//! one, narrower beats are gathered ([`ReadGather`]; `ceil(len / W)` beats per read), and a
//! read is requested only while the gatherer has room to count it. The write port carries `W`
//! bytes a beat: a completion entry is `64 / W` beats and its phase byte.
//!
//! Nothing here adds state: the safety properties are the blocks' own (writes only inside a
//! posted buffer or an entry the host has consumed; reads only of posted descriptors).

mod records;
#[cfg(test)]
mod tests;

pub use records::HostHdr;

use crate::cq_writer::CqWriter;
use crate::fifo::Fifo2;
use crate::hdl::*;
use crate::read_gather::ReadGather;
use crate::rx_dma::{ErrorCpl, GrantSentCpl, RxDma, TxDoneCpl};
use crate::rx_ring::RxRing512;
use homa_proto::hostif::{CompletionKind, ErrorRing};

/// The RX host queues at 512 bits (the Alveo configuration).
pub type HostRx512 = HostRx<64, 512>;

/// The RX host queues at 64 bits (the small configuration).
pub type HostRx64 = HostRx<8, 64>;

/// The RX host queues, `W` bytes (`B` = 8 `W` bits) a beat on the payload and DMA ports.
#[derive(LogicBlock)]
pub struct HostRx<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// RX buffer ring IOVA (`rx_base_hi:rx_base_lo`).
    pub cfg_rx_base: Signal<In, Bits<64>>,
    /// log2 of its entry count (`rx_log2_size`; 1-16, otherwise off).
    pub cfg_rx_log2: Signal<In, Bits<5>>,
    /// The host's producer index (`rx_producer`).
    pub cfg_rx_producer: Signal<In, Bits<32>>,
    /// `rx_log2_size` was written: restart the ring at 0.
    pub cfg_rx_clear: Signal<In, Bit>,
    /// First IOVA of the RX window (`rx_window_base_hi:_lo`).
    pub cfg_rx_win_base: Signal<In, Bits<64>>,
    /// Its length in bytes (`rx_window_len_hi:_lo`; 0: no window).
    pub cfg_rx_win_len: Signal<In, Bits<64>>,
    /// Completion ring IOVA (`cq_base_hi:cq_base_lo`).
    pub cfg_cq_base: Signal<In, Bits<64>>,
    /// log2 of its entry count (`cq_log2_size`; 1-16, otherwise off).
    pub cfg_cq_log2: Signal<In, Bits<5>>,
    /// The host's consumer index (`cq_consumer`).
    pub cfg_cq_consumer: Signal<In, Bits<32>>,
    /// `cq_log2_size` was written: restart the ring at 0.
    pub cfg_cq_clear: Signal<In, Bit>,
    /// Payload (parser `m_axis`): byte 0 in lane 0.
    pub s_pay_tdata: Signal<In, Bits<B>>,
    /// Payload byte enables.
    pub s_pay_tkeep: Signal<In, Bits<W>>,
    /// A payload beat is offered.
    pub s_pay_tvalid: Signal<In, Bit>,
    /// The payload's last beat.
    pub s_pay_tlast: Signal<In, Bit>,
    /// The frame turned out bad (with `tlast`).
    pub s_pay_tuser: Signal<In, Bit>,
    /// The beat is taken.
    pub s_pay_tready: Signal<Out, Bit>,
    /// A DATA header is offered.
    pub s_hdr_valid: Signal<In, Bit>,
    /// The header is taken.
    pub s_hdr_ready: Signal<Out, Bit>,
    /// 4 or 6.
    pub s_hdr_ip_version: Signal<In, Bits<4>>,
    /// Sender address: IPv6, or IPv4 in the low 32 bits.
    pub s_hdr_src_ip: Signal<In, Bits<128>>,
    /// Sender's port.
    pub s_hdr_sport: Signal<In, Bits<16>>,
    /// Local port.
    pub s_hdr_dport: Signal<In, Bits<16>>,
    /// The DATA's `sender_id`.
    pub s_hdr_sender_id: Signal<In, Bits<64>>,
    /// The message's length.
    pub s_hdr_message_length: Signal<In, Bits<32>>,
    /// Offset of the payload in the message.
    pub s_hdr_offset: Signal<In, Bits<32>>,
    /// Payload bytes.
    pub s_hdr_payload_len: Signal<In, Bits<16>>,
    /// The DATA is a retransmission.
    pub s_hdr_retransmit: Signal<In, Bit>,
    /// The NIC's grant generator does not track the DATA's message: the host grants it
    /// (`RX_DATA` flags bit 1).
    pub s_hdr_host_grants: Signal<In, Bit>,
    /// The packet type (0x10 DATA; any other makes a `CONTROL` completion).
    pub s_hdr_type: Signal<In, Bits<8>>,
    /// DATA: `incoming`.
    pub s_hdr_incoming: Signal<In, Bits<32>>,
    /// DATA: `cutoff_version`.
    pub s_hdr_cutoff_version: Signal<In, Bits<16>>,
    /// DATA: the piggybacked ack's client id.
    pub s_hdr_ack_client_id: Signal<In, Bits<64>>,
    /// DATA: the piggybacked ack's server port.
    pub s_hdr_ack_server_port: Signal<In, Bits<16>>,
    /// Control packets: the body window.
    pub s_hdr_body: Signal<In, Bits<248>>,
    /// A refused TX descriptor is offered (`tx_ring::TxRing512`'s `m_err_*`): it becomes an
    /// `ERROR` completion of ring TX.
    pub s_txerr_valid: Signal<In, Bit>,
    /// The refusal is taken.
    pub s_txerr_ready: Signal<Out, Bit>,
    /// Why (a `Status`).
    pub s_txerr_status: Signal<In, Bits<8>>,
    /// The descriptor's ring index.
    pub s_txerr_index: Signal<In, Bits<32>>,
    /// Its RPC id.
    pub s_txerr_rpc_id: Signal<In, Bits<64>>,
    /// Its cookie.
    pub s_txerr_cookie: Signal<In, Bits<64>>,
    /// A message's last frame left (the transmit engine's `m_done_*`): it becomes a
    /// `TX_DONE` completion.
    pub s_txdone_valid: Signal<In, Bit>,
    /// The report is taken.
    pub s_txdone_ready: Signal<Out, Bit>,
    /// The message's RPC id.
    pub s_txdone_rpc_id: Signal<In, Bits<64>>,
    /// Its length.
    pub s_txdone_length: Signal<In, Bits<32>>,
    /// Its descriptor's cookie.
    pub s_txdone_cookie: Signal<In, Bits<64>>,
    /// The grant generator sent a GRANT: it becomes a `GRANT_SENT` completion.
    pub s_gnt_valid: Signal<In, Bit>,
    /// The report is taken.
    pub s_gnt_ready: Signal<Out, Bit>,
    /// This host's RPC id (the GRANT's `sender_id`).
    pub s_gnt_rpc_id: Signal<In, Bits<64>>,
    /// The peer's IPv4 address.
    pub s_gnt_peer: Signal<In, Bits<32>>,
    /// The GRANT's source (local) port.
    pub s_gnt_local_port: Signal<In, Bits<16>>,
    /// The GRANT's destination (peer) port.
    pub s_gnt_peer_port: Signal<In, Bits<16>>,
    /// The granted offset.
    pub s_gnt_offset: Signal<In, Bits<32>>,
    /// The priority granted.
    pub s_gnt_priority: Signal<In, Bits<3>>,
    /// A DMA read is requested.
    pub m_rd_valid: Signal<Out, Bit>,
    /// The request is taken.
    pub m_rd_ready: Signal<In, Bit>,
    /// Host address to read.
    pub m_rd_addr: Signal<Out, Bits<64>>,
    /// Bytes to read (16 to 64).
    pub m_rd_len: Signal<Out, Bits<32>>,
    /// A read response beat (`ceil(len / W)` per request, in request order).
    pub s_rd_valid: Signal<In, Bit>,
    /// The bytes read, byte 0 in bits 7..0.
    pub s_rd_data: Signal<In, Bits<B>>,
    /// A DMA write beat is offered.
    pub m_wr_valid: Signal<Out, Bit>,
    /// The write beat is taken.
    pub m_wr_ready: Signal<In, Bit>,
    /// Host address of data byte 0.
    pub m_wr_addr: Signal<Out, Bits<64>>,
    /// Data: byte `i` goes to `addr + i` when `keep[i]`.
    pub m_wr_data: Signal<Out, Bits<B>>,
    /// Byte enables.
    pub m_wr_keep: Signal<Out, Bits<W>>,
    /// The last beat of a write (a payload's last beat into its buffer, every entry beat).
    pub m_wr_last: Signal<Out, Bit>,
    /// Descriptors read back (`rx_consumer`).
    pub rx_consumer: Signal<Out, Bits<32>>,
    /// Completions written (`cq_producer`).
    pub cq_producer: Signal<Out, Bits<32>>,
    /// `RX_DATA` completions posted.
    pub rx_data: Signal<Out, Bits<32>>,
    /// `ERROR` completions posted by the DMA engine.
    pub rx_errors: Signal<Out, Bits<32>>,
    /// Payloads dropped for want of a posted buffer (a bad frame's too).
    pub no_buffer: Signal<Out, Bits<32>>,
    /// Payloads of frames that ended bad.
    pub bad_frames: Signal<Out, Bits<32>>,
    /// DATA headers without payload.
    pub empty: Signal<Out, Bits<32>>,
    /// RX descriptors refused (each reported in an `ERROR`).
    pub bad_descriptors: Signal<Out, Bits<32>>,
    /// Completions dropped while the completion ring was off.
    pub cq_dropped: Signal<Out, Bits<32>>,
    ring: RxRing512,
    /// Descriptor read answers into 64-byte records.
    rdg: ReadGather<W, B>,
    dma: RxDma<W, B>,
    cq: CqWriter<W, B>,
    /// Completions between the DMA engine and the ring writer: the engine sees only this
    /// FIFO's registered `full`, so no combinational path runs from the write port's
    /// arbitration back into the engine.
    cpl: Fifo2<Bits<512>>,
    refusal: Signal<Local, ErrorCpl>,
    tx_refusal: Signal<Local, ErrorCpl>,
    /// A TX refusal taken from `s_txerr_*`, held for the completion FIFO: the TX ring's
    /// status comes out of its distributed RAM, and this register keeps that read out of
    /// the 512-bit completion mux (and the mux's arbitration out of the ring's pop).
    txe: DFF<ErrorCpl>,
    /// `txe` holds a refusal.
    txe_v: DFF<Bit>,
    c_refusal: Constant<ErrorCpl>,
    c_tx_refusal: Constant<ErrorCpl>,
    tx_done: Signal<Local, TxDoneCpl>,
    c_tx_done: Constant<TxDoneCpl>,
    grant_sent: Signal<Local, GrantSentCpl>,
    c_grant_sent: Constant<GrantSentCpl>,
    /// Byte offsets (MSB first) of the peer address's bytes.
    c_ip_byte: [Constant<Bits<8>>; 4],
}

impl<const W: usize, const B: usize> HostRx<W, B> {
    /// New host queues (ports unconnected: use [`HostRx::top_level`] for Verilog).
    pub fn new() -> Self {
        Self {
            clock: Signal::default(),
            reset: Signal::default(),
            cfg_rx_base: Signal::default(),
            cfg_rx_log2: Signal::default(),
            cfg_rx_producer: Signal::default(),
            cfg_rx_clear: Signal::default(),
            cfg_rx_win_base: Signal::default(),
            cfg_rx_win_len: Signal::default(),
            cfg_cq_base: Signal::default(),
            cfg_cq_log2: Signal::default(),
            cfg_cq_consumer: Signal::default(),
            cfg_cq_clear: Signal::default(),
            s_pay_tdata: Signal::default(),
            s_pay_tkeep: Signal::default(),
            s_pay_tvalid: Signal::default(),
            s_pay_tlast: Signal::default(),
            s_pay_tuser: Signal::default(),
            s_pay_tready: Signal::default(),
            s_hdr_valid: Signal::default(),
            s_hdr_ready: Signal::default(),
            s_hdr_ip_version: Signal::default(),
            s_hdr_src_ip: Signal::default(),
            s_hdr_sport: Signal::default(),
            s_hdr_dport: Signal::default(),
            s_hdr_sender_id: Signal::default(),
            s_hdr_message_length: Signal::default(),
            s_hdr_offset: Signal::default(),
            s_hdr_payload_len: Signal::default(),
            s_hdr_retransmit: Signal::default(),
            s_hdr_host_grants: Signal::default(),
            s_hdr_type: Signal::default(),
            s_hdr_incoming: Signal::default(),
            s_hdr_cutoff_version: Signal::default(),
            s_hdr_ack_client_id: Signal::default(),
            s_hdr_ack_server_port: Signal::default(),
            s_hdr_body: Signal::default(),
            m_rd_valid: Signal::default(),
            m_rd_ready: Signal::default(),
            m_rd_addr: Signal::default(),
            m_rd_len: Signal::default(),
            s_rd_valid: Signal::default(),
            s_rd_data: Signal::default(),
            m_wr_valid: Signal::default(),
            m_wr_ready: Signal::default(),
            m_wr_addr: Signal::default(),
            m_wr_data: Signal::default(),
            m_wr_keep: Signal::default(),
            m_wr_last: Signal::default(),
            rx_consumer: Signal::default(),
            cq_producer: Signal::default(),
            rx_data: Signal::default(),
            rx_errors: Signal::default(),
            no_buffer: Signal::default(),
            bad_frames: Signal::default(),
            empty: Signal::default(),
            bad_descriptors: Signal::default(),
            cq_dropped: Signal::default(),
            ring: RxRing512::new(),
            rdg: ReadGather::new(),
            dma: RxDma::new(),
            cq: CqWriter::new(),
            cpl: Fifo2::default(),
            refusal: Signal::default(),
            tx_refusal: Signal::default(),
            txe: DFF::default(),
            txe_v: DFF::default(),
            s_txerr_valid: Signal::default(),
            s_txerr_ready: Signal::default(),
            s_txerr_status: Signal::default(),
            s_txerr_index: Signal::default(),
            s_txerr_rpc_id: Signal::default(),
            s_txerr_cookie: Signal::default(),
            s_txdone_valid: Signal::default(),
            s_txdone_ready: Signal::default(),
            s_txdone_rpc_id: Signal::default(),
            s_txdone_length: Signal::default(),
            s_txdone_cookie: Signal::default(),
            s_gnt_valid: Signal::default(),
            s_gnt_ready: Signal::default(),
            s_gnt_rpc_id: Signal::default(),
            s_gnt_peer: Signal::default(),
            s_gnt_local_port: Signal::default(),
            s_gnt_peer_port: Signal::default(),
            s_gnt_offset: Signal::default(),
            s_gnt_priority: Signal::default(),
            grant_sent: Signal::default(),
            c_grant_sent: Constant::new(GrantSentCpl {
                kind: (CompletionKind::GrantSent as u64).into(),
                ..GrantSentCpl::default()
            }),
            c_ip_byte: std::array::from_fn(|i| Constant::new((24 - 8 * i as u64).into())),
            tx_done: Signal::default(),
            c_tx_done: Constant::new(TxDoneCpl {
                kind: (CompletionKind::TxDone as u64).into(),
                ..TxDoneCpl::default()
            }),
            c_refusal: Constant::new(ErrorCpl {
                kind: (CompletionKind::Error as u64).into(),
                ring: (ErrorRing::RxBuf as u64).into(),
                ..ErrorCpl::default()
            }),
            c_tx_refusal: Constant::new(ErrorCpl {
                kind: (CompletionKind::Error as u64).into(),
                ring: (ErrorRing::Tx as u64).into(),
                ..ErrorCpl::default()
            }),
        }
    }

    /// The host queues as the top level of a design: every input driven from outside.
    pub fn top_level() -> Self {
        let mut uut = Self::new();
        uut.clock.connect();
        uut.reset.connect();
        uut.cfg_rx_base.connect();
        uut.cfg_rx_log2.connect();
        uut.cfg_rx_producer.connect();
        uut.cfg_rx_clear.connect();
        uut.cfg_rx_win_base.connect();
        uut.cfg_rx_win_len.connect();
        uut.cfg_cq_base.connect();
        uut.cfg_cq_log2.connect();
        uut.cfg_cq_consumer.connect();
        uut.cfg_cq_clear.connect();
        uut.s_pay_tdata.connect();
        uut.s_pay_tkeep.connect();
        uut.s_pay_tvalid.connect();
        uut.s_pay_tlast.connect();
        uut.s_pay_tuser.connect();
        uut.s_hdr_valid.connect();
        uut.s_hdr_ip_version.connect();
        uut.s_hdr_src_ip.connect();
        uut.s_hdr_sport.connect();
        uut.s_hdr_dport.connect();
        uut.s_hdr_sender_id.connect();
        uut.s_hdr_message_length.connect();
        uut.s_hdr_offset.connect();
        uut.s_hdr_payload_len.connect();
        uut.s_hdr_retransmit.connect();
        uut.s_hdr_host_grants.connect();
        uut.s_hdr_type.connect();
        uut.s_hdr_incoming.connect();
        uut.s_hdr_cutoff_version.connect();
        uut.s_hdr_ack_client_id.connect();
        uut.s_hdr_ack_server_port.connect();
        uut.s_hdr_body.connect();
        uut.s_txerr_valid.connect();
        uut.s_txerr_status.connect();
        uut.s_txerr_index.connect();
        uut.s_txerr_rpc_id.connect();
        uut.s_txerr_cookie.connect();
        uut.s_txdone_valid.connect();
        uut.s_txdone_rpc_id.connect();
        uut.s_txdone_length.connect();
        uut.s_txdone_cookie.connect();
        uut.s_gnt_valid.connect();
        uut.s_gnt_rpc_id.connect();
        uut.s_gnt_peer.connect();
        uut.s_gnt_local_port.connect();
        uut.s_gnt_peer_port.connect();
        uut.s_gnt_offset.connect();
        uut.s_gnt_priority.connect();
        uut.m_rd_ready.connect();
        uut.s_rd_valid.connect();
        uut.s_rd_data.connect();
        uut.m_wr_ready.connect();
        uut.connect_all();
        uut
    }
}

impl<const W: usize, const B: usize> Default for HostRx<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> core::fmt::Debug for HostRx<W, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("HostRx")
            .field("bytes_per_beat", &W)
            .finish_non_exhaustive()
    }
}

impl<const W: usize, const B: usize> Logic for HostRx<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        self.ring.clock.next = self.clock.val();
        self.ring.reset.next = self.reset.val();
        self.dma.clock.next = self.clock.val();
        self.dma.reset.next = self.reset.val();
        self.cq.clock.next = self.clock.val();
        self.cq.reset.next = self.reset.val();
        self.rdg.clock.next = self.clock.val();
        self.rdg.reset.next = self.reset.val();
        dff_setup!(self, clock, txe, txe_v);
        // The descriptor ring: configuration, the read port, buffers to the DMA engine.
        self.ring.cfg_base.next = self.cfg_rx_base.val();
        self.ring.cfg_log2.next = self.cfg_rx_log2.val();
        self.ring.cfg_producer.next = self.cfg_rx_producer.val();
        self.ring.cfg_clear.next = self.cfg_rx_clear.val();
        self.ring.cfg_win_base.next = self.cfg_rx_win_base.val();
        self.ring.cfg_win_len.next = self.cfg_rx_win_len.val();
        // Reads go out while the gatherer can count them; answers come back as records.
        self.m_rd_valid.next = self.ring.m_rd_valid.val() & self.rdg.req_room.val();
        self.m_rd_addr.next = self.ring.m_rd_addr.val();
        self.m_rd_len.next = self.ring.m_rd_len.val();
        self.ring.m_rd_ready.next = self.m_rd_ready.val() & self.rdg.req_room.val();
        self.rdg.req_fire.next =
            self.ring.m_rd_valid.val() & self.m_rd_ready.val() & self.rdg.req_room.val();
        self.rdg.req_len.next = self.ring.m_rd_len.val();
        self.rdg.s_valid.next = self.s_rd_valid.val();
        self.rdg.s_data.next = self.s_rd_data.val();
        self.ring.s_rd_valid.next = self.rdg.m_valid.val();
        self.ring.s_rd_data.next = self.rdg.m_data.val();
        self.dma.s_buf_valid.next = self.ring.m_buf_valid.val();
        self.dma.s_buf_iova.next = self.ring.m_buf_iova.val();
        self.dma.s_buf_length.next = self.ring.m_buf_length.val();
        self.dma.s_buf_id.next = self.ring.m_buf_id.val();
        self.dma.s_buf_index.next = self.ring.m_buf_index.val();
        self.ring.m_buf_ready.next = self.dma.s_buf_ready.val();
        // Payload and headers into the DMA engine.
        self.dma.s_pay_tdata.next = self.s_pay_tdata.val();
        self.dma.s_pay_tkeep.next = self.s_pay_tkeep.val();
        self.dma.s_pay_tvalid.next = self.s_pay_tvalid.val();
        self.dma.s_pay_tlast.next = self.s_pay_tlast.val();
        self.dma.s_pay_tuser.next = self.s_pay_tuser.val();
        self.s_pay_tready.next = self.dma.s_pay_tready.val();
        self.dma.s_hdr_valid.next = self.s_hdr_valid.val();
        self.s_hdr_ready.next = self.dma.s_hdr_ready.val();
        self.dma.s_hdr_ip_version.next = self.s_hdr_ip_version.val();
        self.dma.s_hdr_src_ip.next = self.s_hdr_src_ip.val();
        self.dma.s_hdr_sport.next = self.s_hdr_sport.val();
        self.dma.s_hdr_dport.next = self.s_hdr_dport.val();
        self.dma.s_hdr_sender_id.next = self.s_hdr_sender_id.val();
        self.dma.s_hdr_message_length.next = self.s_hdr_message_length.val();
        self.dma.s_hdr_offset.next = self.s_hdr_offset.val();
        self.dma.s_hdr_payload_len.next = self.s_hdr_payload_len.val();
        self.dma.s_hdr_retransmit.next = self.s_hdr_retransmit.val();
        self.dma.s_hdr_host_grants.next = self.s_hdr_host_grants.val();
        self.dma.s_hdr_type.next = self.s_hdr_type.val();
        self.dma.s_hdr_incoming.next = self.s_hdr_incoming.val();
        self.dma.s_hdr_cutoff_version.next = self.s_hdr_cutoff_version.val();
        self.dma.s_hdr_ack_client_id.next = self.s_hdr_ack_client_id.val();
        self.dma.s_hdr_ack_server_port.next = self.s_hdr_ack_server_port.val();
        self.dma.s_hdr_body.next = self.s_hdr_body.val();
        // Completions into the ring writer.
        self.cq.cfg_base.next = self.cfg_cq_base.val();
        self.cq.cfg_log2.next = self.cfg_cq_log2.val();
        self.cq.cfg_consumer.next = self.cfg_cq_consumer.val();
        self.cq.cfg_clear.next = self.cfg_cq_clear.val();
        self.cpl.clock.next = self.clock.val();
        self.cpl.reset.next = self.reset.val();
        self.refusal.next = self.c_refusal.val();
        self.refusal.next.status = self.ring.m_err_status.val();
        self.refusal.next.index = self.ring.m_buf_index.val();
        self.refusal.next.cookie_lo = self.ring.m_buf_id.val();
        self.tx_refusal.next = self.c_tx_refusal.val();
        self.tx_refusal.next.status = self.s_txerr_status.val();
        self.tx_refusal.next.index = self.s_txerr_index.val();
        self.tx_refusal.next.rpc_id = self.s_txerr_rpc_id.val();
        self.tx_refusal.next.cookie_lo = self.s_txerr_cookie.val().get_bits::<32>(0);
        self.tx_refusal.next.cookie_hi = self.s_txerr_cookie.val().get_bits::<32>(32);
        // A TX refusal waits in `txe` (one every other cycle at most: they are rare).
        self.s_txerr_ready.next = !self.txe_v.q.val();
        if self.s_txerr_valid.val() & !self.txe_v.q.val() {
            self.txe.d.next = self.tx_refusal.val();
            self.txe_v.d.next = true;
        }
        if self.txe_v.q.val() & !self.cpl.full.val() & !self.ring.m_err_valid.val() {
            self.txe_v.d.next = false;
        }
        if self.reset.val() {
            self.txe_v.d.next = false;
        }
        self.tx_done.next = self.c_tx_done.val();
        self.tx_done.next.rpc_id = self.s_txdone_rpc_id.val();
        self.tx_done.next.length = self.s_txdone_length.val();
        self.tx_done.next.cookie = self.s_txdone_cookie.val();
        self.grant_sent.next = self.c_grant_sent.val();
        self.grant_sent.next.rpc_id = self.s_gnt_rpc_id.val();
        self.grant_sent.next.priority = self.s_gnt_priority.val();
        self.grant_sent.next.offset = self.s_gnt_offset.val();
        self.grant_sent.next.local_port = self.s_gnt_local_port.val();
        self.grant_sent.next.peer_port = self.s_gnt_peer_port.val();
        self.grant_sent.next.p0 = self
            .s_gnt_peer
            .val()
            .get_bits::<8>(self.c_ip_byte[0].val().index());
        self.grant_sent.next.p1 = self
            .s_gnt_peer
            .val()
            .get_bits::<8>(self.c_ip_byte[1].val().index());
        self.grant_sent.next.p2 = self
            .s_gnt_peer
            .val()
            .get_bits::<8>(self.c_ip_byte[2].val().index());
        self.grant_sent.next.p3 = self
            .s_gnt_peer
            .val()
            .get_bits::<8>(self.c_ip_byte[3].val().index());
        // One completion a cycle: an RX refusal, else a TX refusal, else a TX_DONE, else the
        // DMA engine's, else a GRANT_SENT.
        self.cpl.push.next = (self.ring.m_err_valid.val()
            | self.txe_v.q.val()
            | self.s_txdone_valid.val()
            | self.dma.m_cpl_valid.val()
            | self.s_gnt_valid.val())
            & !self.cpl.full.val();
        self.cpl.din.next = Bits::<512>::from(self.grant_sent.val());
        if self.dma.m_cpl_valid.val() {
            self.cpl.din.next = self.dma.m_cpl_data.val();
        }
        if self.s_txdone_valid.val() {
            self.cpl.din.next = Bits::<512>::from(self.tx_done.val());
        }
        if self.txe_v.q.val() {
            self.cpl.din.next = Bits::<512>::from(self.txe.q.val());
        }
        if self.ring.m_err_valid.val() {
            self.cpl.din.next = Bits::<512>::from(self.refusal.val());
        }
        self.ring.m_err_ready.next = !self.cpl.full.val();
        self.s_txdone_ready.next =
            !self.cpl.full.val() & !self.ring.m_err_valid.val() & !self.txe_v.q.val();
        self.dma.m_cpl_ready.next = !self.cpl.full.val()
            & !self.ring.m_err_valid.val()
            & !self.txe_v.q.val()
            & !self.s_txdone_valid.val();
        self.s_gnt_ready.next = !self.cpl.full.val()
            & !self.ring.m_err_valid.val()
            & !self.txe_v.q.val()
            & !self.s_txdone_valid.val()
            & !self.dma.m_cpl_valid.val();
        self.cq.s_cpl_valid.next = self.cpl.valid.val();
        self.cq.s_cpl_data.next = self.cpl.dout.val();
        self.cpl.ready.next = self.cq.s_cpl_ready.val();
        // The write port: entry writes first, payload writes otherwise.
        self.cq.m_dma_ready.next = self.m_wr_ready.val();
        self.dma.m_dma_ready.next = self.m_wr_ready.val() & !self.cq.m_dma_valid.val();
        self.m_wr_valid.next = self.cq.m_dma_valid.val() | self.dma.m_dma_valid.val();
        self.m_wr_addr.next = self.dma.m_dma_addr.val();
        self.m_wr_data.next = self.dma.m_dma_data.val();
        self.m_wr_keep.next = self.dma.m_dma_keep.val();
        self.m_wr_last.next = self.dma.m_dma_last.val();
        if self.cq.m_dma_valid.val() {
            self.m_wr_addr.next = self.cq.m_dma_addr.val();
            self.m_wr_data.next = self.cq.m_dma_data.val();
            self.m_wr_keep.next = self.cq.m_dma_keep.val();
            self.m_wr_last.next = self.cq.m_dma_last.val();
        }
        // Indices and counters.
        self.rx_consumer.next = self.ring.consumer.val();
        self.cq_producer.next = self.cq.producer.val();
        self.rx_data.next = self.dma.rx_data.val();
        self.rx_errors.next = self.dma.rx_errors.val();
        self.no_buffer.next = self.dma.no_buffer.val();
        self.bad_frames.next = self.dma.bad_frames.val();
        self.empty.next = self.dma.empty.val();
        self.bad_descriptors.next = self.ring.bad.val();
        self.cq_dropped.next = self.cq.dropped.val();
    }
}
