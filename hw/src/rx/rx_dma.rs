//! `RxDma`: the receive DMA engine, 64 or 8 bytes a beat (`RxDma512`, `RxDma64`). It writes
//! each DATA packet's payload into one host buffer the driver posted and reports it in one
//! 64-byte completion (`proto::hostif`); every other packet it reports in a `CONTROL`
//! completion.
//!
//! ```text
//!  s_pay_* (parser payload) ──► write into the held buffer ──► m_dma_*  (DMA write requests)
//!  s_buf_* (RX buffer ring) ──► held buffer (one)                 │
//!                                   └─► pending records (8) ──┐   │
//!  s_hdr_* (parser header) ────────────────────────────────────┴─► m_cpl_* (RX_DATA, ERROR,
//!                                                                              CONTROL)
//! ```
//!
//! One buffer per packet: the engine holds one posted buffer (`s_buf_*`, from the RX buffer
//! ring) for the next payload besides the one the payload under way writes, and streams each
//! payload into its buffer, beat `k` at `iova + W k` for `W` bytes a beat. The parser
//! sends a payload before its header, so the engine keeps a record per streamed payload (up
//! to 8) and writes the completion when the header arrives:
//! - `RX_DATA` (status ok) when the payload fitted: the RPC id (the DATA's `sender_id` with
//!   bit 0 flipped, the receiver's id as in GRANTs), sender address (IPv4 mapped) and ports,
//!   offset, lengths, the buffer's id, the host-grants flag (`s_hdr_host_grants`: the NIC's
//!   grant generator does not track the message), and the rest of the DATA header (retransmit flag,
//!   `incoming`, `cutoff_version`, the piggybacked ack): the host needs nothing else.
//! - `ERROR` (ring 2, the buffer's index and id) when it did not: status 7 (buffer too small)
//!   when the header's payload length exceeds the buffer, status 6 when the beats streamed
//!   disagree with the header's length (a parser fault; never seen in the co-simulation).
//!
//! Safety: a DMA write's byte enables are cut at the buffer's end (`iova + length`), so no
//! packet, however long or malformed, makes the engine write outside a posted buffer; a
//! payload with no buffer held or offered at its first beat writes nothing (`no_buffer`):
//! Homa's RESEND repairs the loss, and the parser, whose headers also feed the grant path,
//! is never stalled for want of host buffers.
//! A payload that ends with `tuser` (a frame the parser found short after its payload had
//! started) keeps its buffer for the next payload and posts nothing (`bad_frames`); a DATA
//! header with no payload posts nothing (`empty`).
//!
//! A control header (any type but DATA) pairs with no payload: it becomes a `CONTROL`
//! completion at once (type, addresses, the parser's body window), in header order with the
//! DATA completions; its DATA fields, payload length included, are ignored.
//!
//! Timing: one beat per cycle. A payload's first beat may use a buffer offered in the same
//! cycle; a header takes one cycle. Back-pressure on `m_dma` or on `m_cpl` stops the payload
//! or header stream only; the buffer input is taken whenever no buffer is held.
//! Counters are free-running 32-bit values.

mod records;
#[cfg(test)]
mod tests;

pub use records::{ControlCpl, ErrorCpl, GrantSentCpl, Pending, RxDataCpl, TxDoneCpl};

use crate::grant_framer::{Lo16In32, Lo32Hi32};
use crate::hdl::*;
use homa_proto::hostif::{CompletionKind, ErrorRing, Status};
use homa_proto::wire::PacketType;

/// Depth of the pending-record queue: payloads streamed whose headers have not arrived.
/// The parser holds at most four headers behind their payloads (two in its stages, two in
/// its header FIFO), so eight never stall a payload on the parser's own headers.
pub const PENDING: usize = 8;

/// The RX DMA engine for payload beats of `W` bytes (`B` = 8 `W` bits; `W` 8 or 64).
#[derive(LogicBlock)]
pub struct RxDma<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: drops the held buffer and the pending records.
    pub reset: Signal<In, Bit>,
    /// Payload (parser `m_axis`): byte 0 in lane 0.
    pub s_pay_tdata: Signal<In, Bits<B>>,
    /// Payload byte enables (contiguous from lane 0).
    pub s_pay_tkeep: Signal<In, Bits<W>>,
    /// A payload beat is offered.
    pub s_pay_tvalid: Signal<In, Bit>,
    /// The payload's last beat.
    pub s_pay_tlast: Signal<In, Bit>,
    /// The frame turned out bad (with `tlast`): no header follows.
    pub s_pay_tuser: Signal<In, Bit>,
    /// The beat is taken.
    pub s_pay_tready: Signal<Out, Bit>,
    /// A DATA header is offered (parser `m_hdr`, DATA only).
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
    /// Payload bytes (0: the header came without a payload).
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
    /// Control packets: the body window, copied into the `CONTROL` completion.
    pub s_hdr_body: Signal<In, Bits<248>>,
    /// A posted RX buffer is offered.
    pub s_buf_valid: Signal<In, Bit>,
    /// The buffer is taken (whenever none is held).
    pub s_buf_ready: Signal<Out, Bit>,
    /// The buffer's IOVA.
    pub s_buf_iova: Signal<In, Bits<64>>,
    /// The buffer's length in bytes.
    pub s_buf_length: Signal<In, Bits<32>>,
    /// The buffer's id (returned in its completion).
    pub s_buf_id: Signal<In, Bits<32>>,
    /// The buffer's free-running ring index (returned in an ERROR).
    pub s_buf_index: Signal<In, Bits<32>>,
    /// A DMA write beat is offered.
    pub m_dma_valid: Signal<Out, Bit>,
    /// The DMA write beat is taken.
    pub m_dma_ready: Signal<In, Bit>,
    /// Host address of data byte 0.
    pub m_dma_addr: Signal<Out, Bits<64>>,
    /// Data: byte `i` goes to `addr + i` when `keep[i]`.
    pub m_dma_data: Signal<Out, Bits<B>>,
    /// Byte enables.
    pub m_dma_keep: Signal<Out, Bits<W>>,
    /// The last write into this buffer.
    pub m_dma_last: Signal<Out, Bit>,
    /// A completion is offered.
    pub m_cpl_valid: Signal<Out, Bit>,
    /// The completion is taken.
    pub m_cpl_ready: Signal<In, Bit>,
    /// The completion's 64 bytes (byte 0 in bits 7..0), phase byte zero.
    pub m_cpl_data: Signal<Out, Bits<512>>,
    /// `RX_DATA` completions posted.
    pub rx_data: Signal<Out, Bits<32>>,
    /// `ERROR` completions posted (buffers too small, length faults).
    pub rx_errors: Signal<Out, Bits<32>>,
    /// Payloads dropped: no buffer held or offered at their first beat.
    pub no_buffer: Signal<Out, Bits<32>>,
    /// Payloads that ended bad (`tuser`).
    pub bad_frames: Signal<Out, Bits<32>>,
    /// Headers without payload.
    pub empty: Signal<Out, Bits<32>>,
    // The held buffer (the next payload's).
    have_buf: DFF<Bit>,
    b_iova: DFF<Bits<64>>,
    b_len: DFF<Bits<32>>,
    b_id: DFF<Bits<32>>,
    b_index: DFF<Bits<32>>,
    // The buffer of the payload under way (or kept for reuse after a bad frame).
    reuse: DFF<Bit>,
    u_iova: DFF<Bits<64>>,
    u_len: DFF<Bits<32>>,
    u_id: DFF<Bits<32>>,
    u_index: DFF<Bits<32>>,
    // The payload under way.
    in_pay: DFF<Bit>,
    drop_pay: DFF<Bit>,
    off: DFF<Bits<32>>,
    beats: DFF<Bits<32>>,
    // Pending records.
    q: [DFF<Pending>; PENDING],
    wr: DFF<Bits<3>>,
    rd: DFF<Bits<3>>,
    count: DFF<Bits<4>>,
    n_data: DFF<Bits<32>>,
    n_err: DFF<Bits<32>>,
    n_nobuf: DFF<Bits<32>>,
    n_bad: DFF<Bits<32>>,
    n_empty: DFF<Bits<32>>,
    // Combinational.
    take: Signal<Local, Bit>,
    cur_have: Signal<Local, Bit>,
    cur_iova: Signal<Local, Bits<64>>,
    cur_len: Signal<Local, Bits<32>>,
    cur_id: Signal<Local, Bits<32>>,
    cur_index: Signal<Local, Bits<32>>,
    cur_off: Signal<Local, Bits<32>>,
    cur_beats: Signal<Local, Bits<32>>,
    off64: Signal<Local, Lo32Hi32>,
    rem: Signal<Local, Bits<32>>,
    writing: Signal<Local, Bit>,
    room: Signal<Local, Bit>,
    beat_go: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    rec: Signal<Local, Pending>,
    head: Signal<Local, Pending>,
    has_head: Signal<Local, Bit>,
    plen: Signal<Local, Lo16In32>,
    plen32: Signal<Local, Bits<32>>,
    want_beats: Signal<Local, Bits<32>>,
    fits: Signal<Local, Bit>,
    ok: Signal<Local, Bit>,
    hdr_empty: Signal<Local, Bit>,
    hdr_go: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    peer: Signal<Local, Bits<128>>,
    id_out: Signal<Local, Bits<64>>,
    rx: Signal<Local, RxDataCpl>,
    er: Signal<Local, ErrorCpl>,
    ct: Signal<Local, ControlCpl>,
    is_ctl: Signal<Local, Bit>,
    // Constants.
    c_zero16: Constant<Bits<16>>,
    c_zero32: Constant<Bits<32>>,
    c_one3: Constant<Bits<3>>,
    c_one4: Constant<Bits<4>>,
    c_full: Constant<Bits<4>>,
    c_one32: Constant<Bits<32>>,
    c_one64: Constant<Bits<64>>,
    c_beat: Constant<Bits<32>>,
    c_round: Constant<Bits<32>>,
    c_shift: Constant<Bits<32>>,
    c_ones: Constant<Bits<W>>,
    c_v4: Constant<Bits<4>>,
    c_mapped: Constant<Bits<128>>,
    c_rx: Constant<RxDataCpl>,
    c_er: Constant<ErrorCpl>,
    c_ct: Constant<ControlCpl>,
    c_data: Constant<Bits<8>>,
    c_st_small: Constant<Bits<8>>,
    c_zero4: Constant<Bits<4>>,
    c_one8: Constant<Bits<8>>,
    c_two8: Constant<Bits<8>>,
    c_idx: [Constant<Bits<8>>; 16],
    c_slot: [Constant<Bits<3>>; PENDING],
}

fn k<const M: usize>(v: u64) -> Constant<Bits<M>> {
    Constant::new(v.into())
}

/// The RX DMA engine of the 512-bit (Alveo) configuration.
pub type RxDma512 = RxDma<64, 512>;

/// The RX DMA engine of the 64-bit (small) configuration.
pub type RxDma64 = RxDma<8, 64>;

impl<const W: usize, const B: usize> RxDma<W, B> {
    /// A fresh engine (ports unconnected: use [`RxDma::top_level`] for Verilog).
    pub fn new() -> Self {
        assert!(
            B == 8 * W && (W == 8 || W == 64),
            "an RX DMA engine is 8 or 64 bytes wide (the widths generated and tested), with B = 8 W bits"
        );
        Self {
            clock: Signal::default(),
            reset: Signal::default(),
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
            s_buf_valid: Signal::default(),
            s_buf_ready: Signal::default(),
            s_buf_iova: Signal::default(),
            s_buf_length: Signal::default(),
            s_buf_id: Signal::default(),
            s_buf_index: Signal::default(),
            m_dma_valid: Signal::default(),
            m_dma_ready: Signal::default(),
            m_dma_addr: Signal::default(),
            m_dma_data: Signal::default(),
            m_dma_keep: Signal::default(),
            m_dma_last: Signal::default(),
            m_cpl_valid: Signal::default(),
            m_cpl_ready: Signal::default(),
            m_cpl_data: Signal::default(),
            rx_data: Signal::default(),
            rx_errors: Signal::default(),
            no_buffer: Signal::default(),
            bad_frames: Signal::default(),
            empty: Signal::default(),
            have_buf: DFF::default(),
            b_iova: DFF::default(),
            b_len: DFF::default(),
            b_id: DFF::default(),
            b_index: DFF::default(),
            reuse: DFF::default(),
            u_iova: DFF::default(),
            u_len: DFF::default(),
            u_id: DFF::default(),
            u_index: DFF::default(),
            in_pay: DFF::default(),
            drop_pay: DFF::default(),
            off: DFF::default(),
            beats: DFF::default(),
            q: std::array::from_fn(|_| DFF::default()),
            wr: DFF::default(),
            rd: DFF::default(),
            count: DFF::default(),
            n_data: DFF::default(),
            n_err: DFF::default(),
            n_nobuf: DFF::default(),
            n_bad: DFF::default(),
            n_empty: DFF::default(),
            take: Signal::default(),
            cur_have: Signal::default(),
            cur_iova: Signal::default(),
            cur_len: Signal::default(),
            cur_id: Signal::default(),
            cur_index: Signal::default(),
            cur_off: Signal::default(),
            cur_beats: Signal::default(),
            off64: Signal::default(),
            rem: Signal::default(),
            writing: Signal::default(),
            room: Signal::default(),
            beat_go: Signal::default(),
            push: Signal::default(),
            rec: Signal::default(),
            head: Signal::default(),
            has_head: Signal::default(),
            plen: Signal::default(),
            plen32: Signal::default(),
            want_beats: Signal::default(),
            fits: Signal::default(),
            ok: Signal::default(),
            hdr_empty: Signal::default(),
            hdr_go: Signal::default(),
            pop: Signal::default(),
            peer: Signal::default(),
            id_out: Signal::default(),
            rx: Signal::default(),
            er: Signal::default(),
            ct: Signal::default(),
            is_ctl: Signal::default(),
            c_zero16: k(0),
            c_zero32: k(0),
            c_one3: k(1),
            c_one4: k(1),
            c_full: k(PENDING as u64),
            c_one32: k(1),
            c_one64: k(1),
            c_beat: k(W as u64),
            c_round: k(W as u64 - 1),
            c_shift: k(u64::from(W.trailing_zeros())),
            c_ones: Constant::new(Bits::<W>::mask()),
            c_v4: k(4),
            c_mapped: Constant::new(Bits::<128>::from(0xffff_0000_0000u64)),
            c_rx: Constant::new(RxDataCpl {
                kind: (CompletionKind::RxData as u64).into(),
                status: (Status::Ok as u64).into(),
                ..RxDataCpl::default()
            }),
            c_er: Constant::new(ErrorCpl {
                kind: (CompletionKind::Error as u64).into(),
                status: (Status::DmaError as u64).into(),
                ring: (ErrorRing::RxBuf as u64).into(),
                ..ErrorCpl::default()
            }),
            c_ct: Constant::new(ControlCpl {
                kind: (CompletionKind::Control as u64).into(),
                status: (Status::Ok as u64).into(),
                ..ControlCpl::default()
            }),
            c_data: k(u8::from(PacketType::Data).into()),
            c_st_small: k(Status::BufferTooSmall as u64),
            c_zero4: k(0),
            c_one8: k(1),
            c_two8: k(2),
            c_idx: std::array::from_fn(|i| k(120 - 8 * i as u64)),
            c_slot: std::array::from_fn(|i| k(i as u64)),
        }
    }

    /// The engine as a top-level module: every input connected, for Verilog generation.
    pub fn top_level() -> Self {
        let mut uut = Self::new();
        uut.clock.connect();
        uut.reset.connect();
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
        uut.s_buf_valid.connect();
        uut.s_buf_iova.connect();
        uut.s_buf_length.connect();
        uut.s_buf_id.connect();
        uut.s_buf_index.connect();
        uut.m_dma_ready.connect();
        uut.m_cpl_ready.connect();
        uut.connect_all();
        uut
    }
}

impl<const W: usize, const B: usize> core::fmt::Debug for RxDma<W, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RxDma")
            .field("bytes_per_beat", &W)
            .field("pending", &PENDING)
            .finish_non_exhaustive()
    }
}

impl<const W: usize, const B: usize> Default for RxDma<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> Logic for RxDma<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, have_buf, b_iova, b_len, b_id, b_index, reuse, u_iova, u_len, u_id,
            u_index, in_pay, drop_pay, off, beats, wr, rd, count, n_data, n_err, n_nobuf, n_bad,
            n_empty
        );
        for i in 0..PENDING {
            self.q[i].clock.next = self.clock.val();
            self.q[i].d.next = self.q[i].q.val();
        }
        // The held buffer: take one whenever none is held.
        self.s_buf_ready.next = !self.have_buf.q.val() & !self.reset.val();
        self.take.next = self.s_buf_valid.val() & !self.have_buf.q.val() & !self.reset.val();
        if self.take.val() {
            self.have_buf.d.next = true;
            self.b_iova.d.next = self.s_buf_iova.val();
            self.b_len.d.next = self.s_buf_length.val();
            self.b_id.d.next = self.s_buf_id.val();
            self.b_index.d.next = self.s_buf_index.val();
        }
        // The buffer this beat writes into: the payload's own; at a first beat the one kept
        // after a bad frame, else the held one, else the one offered now.
        self.cur_have.next = !self.drop_pay.q.val();
        self.cur_iova.next = self.u_iova.q.val();
        self.cur_len.next = self.u_len.q.val();
        self.cur_id.next = self.u_id.q.val();
        self.cur_index.next = self.u_index.q.val();
        self.cur_off.next = self.off.q.val();
        self.cur_beats.next = self.beats.q.val();
        if !self.in_pay.q.val() {
            self.cur_have.next = self.reuse.q.val() | self.have_buf.q.val() | self.take.val();
            self.cur_off.next = self.c_zero32.val();
            self.cur_beats.next = self.c_zero32.val();
            if !self.reuse.q.val() & self.have_buf.q.val() {
                self.cur_iova.next = self.b_iova.q.val();
                self.cur_len.next = self.b_len.q.val();
                self.cur_id.next = self.b_id.q.val();
                self.cur_index.next = self.b_index.q.val();
            }
            if !self.reuse.q.val() & !self.have_buf.q.val() {
                self.cur_iova.next = self.s_buf_iova.val();
                self.cur_len.next = self.s_buf_length.val();
                self.cur_id.next = self.s_buf_id.val();
                self.cur_index.next = self.s_buf_index.val();
            }
        }
        self.off64.next.lo = self.cur_off.val();
        self.off64.next.hi = self.c_zero32.val();
        self.rem.next = self.cur_len.val() - self.cur_off.val();
        self.writing.next = self.cur_have.val() & (self.cur_len.val() > self.cur_off.val());
        self.room.next = self.count.q.val() != self.c_full.val();
        self.s_pay_tready.next =
            !self.reset.val() & self.room.val() & (!self.writing.val() | self.m_dma_ready.val());
        self.beat_go.next = self.s_pay_tvalid.val() & self.s_pay_tready.val();
        // The DMA write: cut at the buffer's end.
        self.m_dma_valid.next =
            self.s_pay_tvalid.val() & self.writing.val() & self.room.val() & !self.reset.val();
        self.m_dma_addr.next = self.cur_iova.val() + Bits::<64>::from(self.off64.val());
        self.m_dma_data.next = self.s_pay_tdata.val();
        self.m_dma_keep.next = self.s_pay_tkeep.val();
        if self.rem.val() < self.c_beat.val() {
            self.m_dma_keep.next =
                self.s_pay_tkeep.val() & !(self.c_ones.val() << self.rem.val().get_bits::<6>(0));
        }
        self.m_dma_last.next = self.s_pay_tlast.val() | (self.rem.val() <= self.c_beat.val());
        // A payload's end: its record.
        self.push.next = self.beat_go.val() & self.s_pay_tlast.val() & !self.s_pay_tuser.val();
        self.rec.next.dropped = !self.cur_have.val();
        self.rec.next.buf_id = self.cur_id.val();
        self.rec.next.buf_index = self.cur_index.val();
        self.rec.next.buf_len = self.cur_len.val();
        self.rec.next.beats = self.cur_beats.val() + self.c_one32.val();
        if self.beat_go.val() & !self.in_pay.q.val() {
            // A first beat: its buffer becomes the payload's; the held slot frees.
            self.u_iova.d.next = self.cur_iova.val();
            self.u_len.d.next = self.cur_len.val();
            self.u_id.d.next = self.cur_id.val();
            self.u_index.d.next = self.cur_index.val();
            self.reuse.d.next = false;
            if !self.reuse.q.val() {
                self.have_buf.d.next = false;
            }
        }
        if self.beat_go.val() {
            self.in_pay.d.next = !self.s_pay_tlast.val();
            self.drop_pay.d.next = !self.cur_have.val();
            self.off.d.next = self.cur_off.val() + self.c_beat.val();
            self.beats.d.next = self.cur_beats.val() + self.c_one32.val();
            if !self.in_pay.q.val() & !self.cur_have.val() {
                self.n_nobuf.d.next = self.n_nobuf.q.val() + self.c_one32.val();
            }
            if self.s_pay_tlast.val() & self.s_pay_tuser.val() {
                self.n_bad.d.next = self.n_bad.q.val() + self.c_one32.val();
                // Nothing the host may read was written: the next payload reuses the buffer.
                self.reuse.d.next = self.cur_have.val();
            }
        }
        for i in 0..PENDING {
            if self.push.val() & (self.wr.q.val() == self.c_slot[i].val()) {
                self.q[i].d.next = self.rec.val();
            }
        }
        // Headers: the oldest record.
        self.head.next = self.q[0].q.val();
        for i in 1..PENDING {
            if self.rd.q.val() == self.c_slot[i].val() {
                self.head.next = self.q[i].q.val();
            }
        }
        self.has_head.next = self.count.q.val() != self.c_zero4.val();
        self.plen.next.lo = self.s_hdr_payload_len.val();
        self.plen.next.z = self.c_zero16.val();
        self.plen32.next = Bits::<32>::from(self.plen.val());
        self.want_beats.next = (self.plen32.val() + self.c_round.val()) >> self.c_shift.val();
        self.fits.next = self.plen32.val() <= self.head.val().buf_len;
        self.ok.next = self.fits.val() & (self.want_beats.val() == self.head.val().beats);
        // A control header makes its completion at once; a DATA header pairs with the oldest
        // record (its payload), unless it has no payload.
        self.is_ctl.next = self.s_hdr_type.val() != self.c_data.val();
        self.hdr_empty.next =
            !self.is_ctl.val() & (self.s_hdr_payload_len.val() == self.c_zero16.val());
        self.m_cpl_valid.next = self.s_hdr_valid.val()
            & (self.is_ctl.val()
                | (!self.hdr_empty.val() & self.has_head.val() & !self.head.val().dropped))
            & !self.reset.val();
        self.s_hdr_ready.next = !self.reset.val()
            & (self.hdr_empty.val()
                | (self.is_ctl.val() & self.m_cpl_ready.val())
                | (!self.is_ctl.val()
                    & self.has_head.val()
                    & (self.head.val().dropped | self.m_cpl_ready.val())));
        self.hdr_go.next = self.s_hdr_valid.val() & self.s_hdr_ready.val();
        self.pop.next = self.hdr_go.val() & !self.hdr_empty.val() & !self.is_ctl.val();
        if self.hdr_go.val() & self.hdr_empty.val() {
            self.n_empty.d.next = self.n_empty.q.val() + self.c_one32.val();
        }
        if self.pop.val() & !self.head.val().dropped {
            if self.ok.val() {
                self.n_data.d.next = self.n_data.q.val() + self.c_one32.val();
            } else {
                self.n_err.d.next = self.n_err.q.val() + self.c_one32.val();
            }
        }
        // Queue pointers.
        if self.push.val() {
            self.wr.d.next = self.wr.q.val() + self.c_one3.val();
        }
        if self.pop.val() {
            self.rd.d.next = self.rd.q.val() + self.c_one3.val();
        }
        if self.push.val() & !self.pop.val() {
            self.count.d.next = self.count.q.val() + self.c_one4.val();
        }
        if !self.push.val() & self.pop.val() {
            self.count.d.next = self.count.q.val() - self.c_one4.val();
        }
        // The completion.
        self.peer.next = self.s_hdr_src_ip.val();
        if self.s_hdr_ip_version.val() == self.c_v4.val() {
            self.peer.next = self.s_hdr_src_ip.val() | self.c_mapped.val();
        }
        self.id_out.next = self.s_hdr_sender_id.val() ^ self.c_one64.val();
        self.rx.next = self.c_rx.val();
        self.rx.next.rpc_id = self.id_out.val();
        if self.s_hdr_retransmit.val() {
            self.rx.next.flags = self.c_one8.val();
        }
        if self.s_hdr_host_grants.val() {
            self.rx.next.flags = self.rx.val().flags | self.c_two8.val();
        }
        self.rx.next.length = self.s_hdr_payload_len.val();
        self.rx.next.cutoff_version = self.s_hdr_cutoff_version.val();
        self.rx.next.incoming = self.s_hdr_incoming.val();
        self.rx.next.ack_client_id = self.s_hdr_ack_client_id.val();
        self.rx.next.ack_server_port = self.s_hdr_ack_server_port.val();
        self.rx.next.offset = self.s_hdr_offset.val();
        self.rx.next.buffer_id = self.head.val().buf_id;
        self.rx.next.message_length = self.s_hdr_message_length.val();
        self.rx.next.local_port = self.s_hdr_dport.val();
        self.rx.next.peer_port = self.s_hdr_sport.val();
        self.rx.next.p0 = self.peer.val().get_bits::<8>(self.c_idx[0].val().index());
        self.rx.next.p1 = self.peer.val().get_bits::<8>(self.c_idx[1].val().index());
        self.rx.next.p2 = self.peer.val().get_bits::<8>(self.c_idx[2].val().index());
        self.rx.next.p3 = self.peer.val().get_bits::<8>(self.c_idx[3].val().index());
        self.rx.next.p4 = self.peer.val().get_bits::<8>(self.c_idx[4].val().index());
        self.rx.next.p5 = self.peer.val().get_bits::<8>(self.c_idx[5].val().index());
        self.rx.next.p6 = self.peer.val().get_bits::<8>(self.c_idx[6].val().index());
        self.rx.next.p7 = self.peer.val().get_bits::<8>(self.c_idx[7].val().index());
        self.rx.next.p8 = self.peer.val().get_bits::<8>(self.c_idx[8].val().index());
        self.rx.next.p9 = self.peer.val().get_bits::<8>(self.c_idx[9].val().index());
        self.rx.next.p10 = self.peer.val().get_bits::<8>(self.c_idx[10].val().index());
        self.rx.next.p11 = self.peer.val().get_bits::<8>(self.c_idx[11].val().index());
        self.rx.next.p12 = self.peer.val().get_bits::<8>(self.c_idx[12].val().index());
        self.rx.next.p13 = self.peer.val().get_bits::<8>(self.c_idx[13].val().index());
        self.rx.next.p14 = self.peer.val().get_bits::<8>(self.c_idx[14].val().index());
        self.rx.next.p15 = self.peer.val().get_bits::<8>(self.c_idx[15].val().index());
        self.ct.next = self.c_ct.val();
        self.ct.next.rpc_id = self.id_out.val();
        self.ct.next.ptype = self.s_hdr_type.val();
        self.ct.next.local_port = self.s_hdr_dport.val();
        self.ct.next.peer_port = self.s_hdr_sport.val();
        self.ct.next.p0 = self.rx.val().p0;
        self.ct.next.p1 = self.rx.val().p1;
        self.ct.next.p2 = self.rx.val().p2;
        self.ct.next.p3 = self.rx.val().p3;
        self.ct.next.p4 = self.rx.val().p4;
        self.ct.next.p5 = self.rx.val().p5;
        self.ct.next.p6 = self.rx.val().p6;
        self.ct.next.p7 = self.rx.val().p7;
        self.ct.next.p8 = self.rx.val().p8;
        self.ct.next.p9 = self.rx.val().p9;
        self.ct.next.p10 = self.rx.val().p10;
        self.ct.next.p11 = self.rx.val().p11;
        self.ct.next.p12 = self.rx.val().p12;
        self.ct.next.p13 = self.rx.val().p13;
        self.ct.next.p14 = self.rx.val().p14;
        self.ct.next.p15 = self.rx.val().p15;
        self.ct.next.body = self.s_hdr_body.val();
        self.er.next = self.c_er.val();
        self.er.next.rpc_id = self.id_out.val();
        if !self.fits.val() {
            self.er.next.status = self.c_st_small.val();
        }
        self.er.next.index = self.head.val().buf_index;
        self.er.next.cookie_lo = self.head.val().buf_id;
        self.m_cpl_data.next = Bits::<512>::from(self.er.val());
        if self.ok.val() {
            self.m_cpl_data.next = Bits::<512>::from(self.rx.val());
        }
        if self.is_ctl.val() {
            self.m_cpl_data.next = Bits::<512>::from(self.ct.val());
        }
        // Counters.
        self.rx_data.next = self.n_data.q.val();
        self.rx_errors.next = self.n_err.q.val();
        self.no_buffer.next = self.n_nobuf.q.val();
        self.bad_frames.next = self.n_bad.q.val();
        self.empty.next = self.n_empty.q.val();
        // Reset: no buffer, nothing under way, no records.
        if self.reset.val() {
            self.have_buf.d.next = false;
            self.reuse.d.next = false;
            self.in_pay.d.next = false;
            self.wr.d.next = self.c_slot[0].val();
            self.rd.d.next = self.c_slot[0].val();
            self.count.d.next = self.c_zero4.val();
        }
    }
}
