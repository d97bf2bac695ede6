//! `TxRing512`: fetches the TX descriptors the host posts (`proto::hostif`, 64 bytes each;
//! QUEUE registers `tx_base_*`, `tx_log2_size`, `tx_producer`, `tx_consumer`), checks each
//! against the NIC's limits (`max_message_length`, the TX window `tx_window_*`) exactly as
//! [`homa_proto::hostif::TxLimits::refusal`] does, and hands them out in ring order: a good
//! one on `m_desc_*` (for the transmit scheduler), a refused one on `m_err_*` (for an `ERROR`
//! completion: ring TX, its index, its cookie and RPC id).
//!
//! ```text
//!  cfg_producer (doorbell) ─► m_rd_* (one descriptor, one 64-byte read; ≤ 16 in flight)
//!  s_rd_* (responses, in order) ─► check ─► FIFO (16, LUT RAM) ─► m_desc_* (fields, index)
//!                                                            └─► m_err_* (status)
//! ```
//!
//! A descriptor is one beat, so each read asks for one: the ring's end never splits a read,
//! and the FIFO space is reserved when a read is issued (responses are always taken). Sixteen
//! reads in flight cover a PCIe read's ~1 µs (250 cycles) at one new message every 16
//! cycles, 15 M messages a second; a host posting faster waits on the FIFO, nothing is lost.
//! `consumer` (`tx_consumer`) counts descriptors whose read has returned: the host may
//! rewrite those slots (the payload itself must stay until the message's `TX_DONE`).
//!
//! Refusals, decided as the response arrives (a status byte beside each FIFO entry) and
//! counted (`bad`), in [`TxLimits::refusal`](homa_proto::hostif::TxLimits::refusal)'s order:
//! status 5 for what `TxDescriptor::decode` refuses (unknown opcode; reserved flags or fields
//! not zero; message length 0; a SEND or CANCEL with retransmit fields, a RETRANSMIT range
//! empty or past the message's end) and for a peer that is not IPv4-mapped (the DATA framer
//! builds IPv4), status 2 for a message longer than `cfg_max_len`, status 5 for a payload that
//! wraps past the top of the address space, status 1 for a payload outside the window when
//! one is set, status 1 for an on-chip payload (`hostif::onchip`) that breaks its rules
//! (the window does not apply on chip). The NIC never reads a refused descriptor's payload. A CANCEL is checked as a
//! SEND and handed out with `m_desc_cancel` (the scheduler stops its RPC's slots).
//!
//! `cfg_clear` (the `tx_log2_size` write) restarts the indices at 0 and empties the FIFO;
//! responses to reads issued before it are discarded.

#[cfg(test)]
mod tests;

use crate::grant_framer::Lo32Hi32;
use crate::hdl::*;
use homa_proto::hostif::{Field, Status, TX_DESC_LEN, TxOpcode, onchip, tx_field};

/// FIFO depth in descriptors, and reads in flight at most.
pub const TX_RING_FIFO: usize = 16;

/// The TX descriptor ring fetcher.
#[derive(LogicBlock)]
pub struct TxRing512 {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// IOVA of the ring.
    pub cfg_base: Signal<In, Bits<64>>,
    /// log2 of the entry count (1-16; otherwise off).
    pub cfg_log2: Signal<In, Bits<5>>,
    /// The host's producer index (`tx_producer`).
    pub cfg_producer: Signal<In, Bits<32>>,
    /// Restart at 0 (`tx_log2_size` written).
    pub cfg_clear: Signal<In, Bit>,
    /// First IOVA of the TX window.
    pub cfg_win_base: Signal<In, Bits<64>>,
    /// Bytes in the TX window (0: no window check).
    pub cfg_win_len: Signal<In, Bits<64>>,
    /// The longest message accepted (`max_message_length`).
    pub cfg_max_len: Signal<In, Bits<32>>,
    /// The most payload per packet (TX `max_payload`): an on-chip payload is one packet.
    pub cfg_max_payload: Signal<In, Bits<32>>,
    /// A DMA read is requested.
    pub m_rd_valid: Signal<Out, Bit>,
    /// The request is taken.
    pub m_rd_ready: Signal<In, Bit>,
    /// Host address to read.
    pub m_rd_addr: Signal<Out, Bits<64>>,
    /// Bytes to read (always 64).
    pub m_rd_len: Signal<Out, Bits<32>>,
    /// A read response (one beat per request, in request order).
    pub s_rd_valid: Signal<In, Bit>,
    /// The bytes read, byte 0 in bits 7..0.
    pub s_rd_data: Signal<In, Bits<512>>,
    /// A good descriptor is offered.
    pub m_desc_valid: Signal<Out, Bit>,
    /// It is taken.
    pub m_desc_ready: Signal<In, Bit>,
    /// RETRANSMIT (otherwise SEND_MESSAGE).
    pub m_desc_retransmit: Signal<Out, Bit>,
    /// CANCEL (otherwise SEND_MESSAGE, unless `m_desc_retransmit`).
    pub m_desc_cancel: Signal<Out, Bit>,
    /// Flag NO_COMPLETION.
    pub m_desc_no_completion: Signal<Out, Bit>,
    /// Local Homa port.
    pub m_desc_src_port: Signal<Out, Bits<16>>,
    /// Peer's Homa port.
    pub m_desc_dst_port: Signal<Out, Bits<16>>,
    /// RPC id.
    pub m_desc_rpc_id: Signal<Out, Bits<64>>,
    /// Peer address, byte 0 of the field (network order) in bits 7..0.
    pub m_desc_peer: Signal<Out, Bits<128>>,
    /// The whole message's length.
    pub m_desc_length: Signal<Out, Bits<32>>,
    /// IOVA of the message's first byte.
    pub m_desc_iova: Signal<Out, Bits<64>>,
    /// First byte to send: 0, or the retransmit offset.
    pub m_desc_offset: Signal<Out, Bits<32>>,
    /// Bytes to send from there: the message's length, or the retransmit length.
    pub m_desc_bytes: Signal<Out, Bits<32>>,
    /// The descriptor's cookie.
    pub m_desc_cookie: Signal<Out, Bits<64>>,
    /// Its free-running ring index.
    pub m_desc_index: Signal<Out, Bits<32>>,
    /// A refused descriptor is offered (its fields on `m_desc_*`, as read).
    pub m_err_valid: Signal<Out, Bit>,
    /// The refusal is taken (reported).
    pub m_err_ready: Signal<In, Bit>,
    /// Why: `Status::BadDescriptor`, `MessageTooLong` or `OutOfBounds`.
    pub m_err_status: Signal<Out, Bits<8>>,
    /// Descriptors read back (`tx_consumer`).
    pub consumer: Signal<Out, Bits<32>>,
    /// Descriptors refused (free-running, `tx_bad_descriptors`).
    pub bad: Signal<Out, Bits<32>>,
    fetch: DFF<Bits<32>>,
    got: DFF<Bits<32>>,
    count: DFF<Bits<32>>,
    inflight: DFF<Bits<32>>,
    reqs: DFF<Bits<32>>,
    discard: DFF<Bits<32>>,
    wr: DFF<Bits<4>>,
    rd: DFF<Bits<4>>,
    popped: DFF<Bits<32>>,
    n_bad: DFF<Bits<32>>,
    /// The FIFO: descriptors as read, and their refusal status (0: good).
    bank: crate::lutram::LutRam<Bits<512>, 4>,
    st_bank: crate::lutram::LutRam<Bits<8>, 4>,
    /// A copy of the status bank, read one entry past the head: the next head's status.
    st_next: crate::lutram::LutRam<Bits<8>, 4>,
    /// The head is refused (a register: the status bank's read decides nothing downstream
    /// within its cycle, so the scheduler's insert and the ERROR path start at a flop).
    hb: DFF<Bit>,
    /// `rd + 1`, kept in a register (the copy's read address).
    rd1: DFF<Bits<4>>,
    rd_nx: Signal<Local, Bits<4>>,
    on: Signal<Local, Bit>,
    size: Signal<Local, Bits<32>>,
    slot: Signal<Local, Bits<32>>,
    avail: Signal<Local, Bits<32>>,
    space: Signal<Local, Bits<32>>,
    off64: Signal<Local, Lo32Hi32>,
    issue: Signal<Local, Bit>,
    resp: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    has: Signal<Local, Bit>,
    h_bad: Signal<Local, Bit>,
    head: Signal<Local, Bits<512>>,
    h_st: Signal<Local, Bits<8>>,
    // The response's checks.
    d_op: Signal<Local, Bits<8>>,
    d_send: Signal<Local, Bit>,
    d_retx: Signal<Local, Bit>,
    d_cancel: Signal<Local, Bit>,
    d_len: Signal<Local, Bits<32>>,
    d_len64: Signal<Local, Bits<64>>,
    d_roff: Signal<Local, Bits<64>>,
    d_rlen: Signal<Local, Bits<64>>,
    d_iova: Signal<Local, Bits<64>>,
    d_end: Signal<Local, Bits<64>>,
    d_enc_bad: Signal<Local, Bit>,
    d_st: Signal<Local, Bits<8>>,
    win_on: Signal<Local, Bit>,
    win_end: Signal<Local, Bits<64>>,
    /// The payload is on chip (`hostif::onchip`), and keeps its rules.
    d_on: Signal<Local, Bit>,
    d_on_ok: Signal<Local, Bit>,
    d_on_end: Signal<Local, Bits<64>>,
    h_retx: Signal<Local, Bit>,
    h_cancel: Signal<Local, Bit>,
    c_lo32: Constant<Bits<64>>,
    c_zero64: Constant<Bits<64>>,
    c_zero32: Constant<Bits<32>>,
    c_zero16: Constant<Bits<16>>,
    c_zero8: Constant<Bits<8>>,
    c_zero5: Constant<Bits<5>>,
    c_zero4: Constant<Bits<4>>,
    c_one32: Constant<Bits<32>>,
    c_one4: Constant<Bits<4>>,
    c_max_log2: Constant<Bits<5>>,
    c_fifo: Constant<Bits<32>>,
    c_desc_len: Constant<Bits<32>>,
    c_shift: Constant<Bits<32>>,
    c_op_send: Constant<Bits<8>>,
    c_op_retx: Constant<Bits<8>>,
    c_op_cancel: Constant<Bits<8>>,
    c_flags_reserved: Constant<Bits<8>>,
    c_st_bad: Constant<Bits<8>>,
    c_st_long: Constant<Bits<8>>,
    c_st_oob: Constant<Bits<8>>,
    /// Bit offsets of the descriptor's fields (`hostif::tx_field`).
    c_at_op: Constant<Bits<16>>,
    c_at_flags: Constant<Bits<16>>,
    c_at_src: Constant<Bits<16>>,
    c_at_dst: Constant<Bits<16>>,
    c_at_rsv0: Constant<Bits<16>>,
    c_at_rpc: Constant<Bits<16>>,
    c_at_peer: Constant<Bits<16>>,
    c_at_len: Constant<Bits<16>>,
    c_at_rsv1: Constant<Bits<16>>,
    c_at_iova: Constant<Bits<16>>,
    c_at_roff: Constant<Bits<16>>,
    c_at_rlen: Constant<Bits<16>>,
    c_at_cookie: Constant<Bits<16>>,
    /// Bit offset of the peer's bytes 8-11, and their value when the peer is IPv4-mapped
    /// (`::ffff:a.b.c.d`: zero, zero, 0xff, 0xff).
    c_at_peer8: Constant<Bits<16>>,
    c_v4_mapped: Constant<Bits<32>>,
    /// `hostif::onchip`: the IOVA's top 48 bits on chip, the offset's mask, the payload
    /// area's index (offset bits 15-14), the lane, the area's end.
    c_on_hi: Constant<Bits<48>>,
    c_lo16: Constant<Bits<64>>,
    c_on_area: Constant<Bits<2>>,
    c_on_lane: Constant<Bits<6>>,
    c_on_end: Constant<Bits<64>>,
    c_at16: Constant<Bits<16>>,
    c_at14: Constant<Bits<16>>,
}

fn k<const M: usize>(v: u64) -> Constant<Bits<M>> {
    Constant::new(v.into())
}

impl TxRing512 {
    /// A fresh fetcher (ports unconnected: use [`TxRing512::top_level`] for Verilog).
    pub fn new() -> Self {
        const _: () = assert!(TX_DESC_LEN == 64);
        const _: () = assert!(TX_RING_FIFO == 1 << 4);
        // A field's bit offset, its width checked against the select that reads it.
        let at = |f: Field, bytes: usize| {
            assert_eq!(f.len, bytes, "TX descriptor field {}", f.name);
            k::<16>(8 * f.offset as u64)
        };
        Self {
            clock: Signal::default(),
            reset: Signal::default(),
            cfg_base: Signal::default(),
            cfg_log2: Signal::default(),
            cfg_producer: Signal::default(),
            cfg_clear: Signal::default(),
            cfg_win_base: Signal::default(),
            cfg_win_len: Signal::default(),
            cfg_max_len: Signal::default(),
            cfg_max_payload: Signal::default(),
            m_rd_valid: Signal::default(),
            m_rd_ready: Signal::default(),
            m_rd_addr: Signal::default(),
            m_rd_len: Signal::default(),
            s_rd_valid: Signal::default(),
            s_rd_data: Signal::default(),
            m_desc_valid: Signal::default(),
            m_desc_ready: Signal::default(),
            m_desc_retransmit: Signal::default(),
            m_desc_cancel: Signal::default(),
            m_desc_no_completion: Signal::default(),
            m_desc_src_port: Signal::default(),
            m_desc_dst_port: Signal::default(),
            m_desc_rpc_id: Signal::default(),
            m_desc_peer: Signal::default(),
            m_desc_length: Signal::default(),
            m_desc_iova: Signal::default(),
            m_desc_offset: Signal::default(),
            m_desc_bytes: Signal::default(),
            m_desc_cookie: Signal::default(),
            m_desc_index: Signal::default(),
            m_err_valid: Signal::default(),
            m_err_ready: Signal::default(),
            m_err_status: Signal::default(),
            consumer: Signal::default(),
            bad: Signal::default(),
            fetch: DFF::default(),
            got: DFF::default(),
            count: DFF::default(),
            inflight: DFF::default(),
            reqs: DFF::default(),
            discard: DFF::default(),
            wr: DFF::default(),
            rd: DFF::default(),
            popped: DFF::default(),
            n_bad: DFF::default(),
            bank: Default::default(),
            st_bank: Default::default(),
            st_next: Default::default(),
            hb: DFF::default(),
            rd1: DFF::default(),
            rd_nx: Signal::default(),
            on: Signal::default(),
            size: Signal::default(),
            slot: Signal::default(),
            avail: Signal::default(),
            space: Signal::default(),
            off64: Signal::default(),
            issue: Signal::default(),
            resp: Signal::default(),
            pop: Signal::default(),
            has: Signal::default(),
            h_bad: Signal::default(),
            head: Signal::default(),
            h_st: Signal::default(),
            d_op: Signal::default(),
            d_send: Signal::default(),
            d_retx: Signal::default(),
            d_cancel: Signal::default(),
            d_len: Signal::default(),
            d_len64: Signal::default(),
            d_roff: Signal::default(),
            d_rlen: Signal::default(),
            d_iova: Signal::default(),
            d_end: Signal::default(),
            d_enc_bad: Signal::default(),
            d_st: Signal::default(),
            win_on: Signal::default(),
            win_end: Signal::default(),
            d_on: Signal::default(),
            d_on_ok: Signal::default(),
            d_on_end: Signal::default(),
            h_retx: Signal::default(),
            h_cancel: Signal::default(),
            c_lo32: k(u64::from(u32::MAX)),
            c_zero64: k(0),
            c_zero32: k(0),
            c_zero16: k(0),
            c_zero8: k(0),
            c_zero5: k(0),
            c_zero4: k(0),
            c_one32: k(1),
            c_one4: k(1),
            c_max_log2: k(16),
            c_fifo: k(TX_RING_FIFO as u64),
            c_desc_len: k(TX_DESC_LEN as u64),
            c_shift: k(6),
            c_op_send: k(TxOpcode::SendMessage as u64),
            c_op_retx: k(TxOpcode::Retransmit as u64),
            c_op_cancel: k(TxOpcode::Cancel as u64),
            c_flags_reserved: k(0xfe),
            c_st_bad: k(Status::BadDescriptor as u64),
            c_st_long: k(Status::MessageTooLong as u64),
            c_st_oob: k(Status::OutOfBounds as u64),
            c_at_op: at(tx_field::OPCODE, 1),
            c_at_flags: at(tx_field::FLAGS, 1),
            c_at_src: at(tx_field::SRC_PORT, 2),
            c_at_dst: at(tx_field::DST_PORT, 2),
            c_at_rsv0: at(tx_field::RESERVED0, 2),
            c_at_rpc: at(tx_field::RPC_ID, 8),
            c_at_peer: at(tx_field::PEER, 16),
            c_at_len: at(tx_field::MESSAGE_LENGTH, 4),
            c_at_rsv1: at(tx_field::RESERVED1, 4),
            c_at_iova: at(tx_field::PAYLOAD_IOVA, 8),
            c_at_roff: at(tx_field::RETRANSMIT_OFFSET, 4),
            c_at_rlen: at(tx_field::RETRANSMIT_LENGTH, 4),
            c_at_cookie: at(tx_field::COOKIE, 8),
            c_at_peer8: k(8 * (tx_field::PEER.offset as u64 + 8)),
            c_v4_mapped: k(0xffff_0000),
            c_on_hi: k(onchip::IOVA >> 16),
            c_lo16: k(0xffff),
            c_on_area: k(u64::from(onchip::PAYLOAD_OFFSET >> 14)),
            c_on_lane: k(u64::from(onchip::PAYLOAD_LANE)),
            c_on_end: k(u64::from(onchip::PAYLOAD_OFFSET + onchip::PAYLOAD_BYTES)),
            c_at16: k(16),
            c_at14: k(14),
        }
    }

    /// The fetcher as a top-level module: every input connected, for Verilog generation.
    pub fn top_level() -> Self {
        let mut uut = Self::new();
        uut.clock.connect();
        uut.reset.connect();
        uut.cfg_base.connect();
        uut.cfg_log2.connect();
        uut.cfg_producer.connect();
        uut.cfg_clear.connect();
        uut.cfg_win_base.connect();
        uut.cfg_win_len.connect();
        uut.cfg_max_len.connect();
        uut.cfg_max_payload.connect();
        uut.m_rd_ready.connect();
        uut.s_rd_valid.connect();
        uut.s_rd_data.connect();
        uut.m_desc_ready.connect();
        uut.m_err_ready.connect();
        uut.connect_all();
        uut
    }
}

impl Default for TxRing512 {
    fn default() -> Self {
        Self::new()
    }
}

impl core::fmt::Debug for TxRing512 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TxRing512").finish_non_exhaustive()
    }
}

impl Logic for TxRing512 {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, fetch, got, count, inflight, reqs, discard, wr, rd, popped, n_bad, hb, rd1
        );
        // The next read: one descriptor, when posted and the FIFO has room for its answer.
        self.on.next = (self.cfg_log2.val() != self.c_zero5.val())
            & (self.cfg_log2.val() <= self.c_max_log2.val());
        self.size.next = self.c_one32.val() << self.cfg_log2.val();
        self.slot.next = self.fetch.q.val() & (self.size.val() - self.c_one32.val());
        self.avail.next = self.cfg_producer.val() - self.fetch.q.val();
        if self.avail.val() > self.size.val() {
            // A producer beyond the ring (a host fault): nothing is posted.
            self.avail.next = self.c_zero32.val();
        }
        self.space.next = self.c_fifo.val() - self.count.q.val() - self.inflight.q.val();
        self.off64.next.lo = self.slot.val() << self.c_shift.val();
        self.off64.next.hi = self.c_zero32.val();
        self.m_rd_addr.next = self.cfg_base.val() + Bits::<64>::from(self.off64.val());
        self.m_rd_len.next = self.c_desc_len.val();
        self.m_rd_valid.next = self.on.val()
            & (self.avail.val() != self.c_zero32.val())
            & (self.space.val() != self.c_zero32.val())
            & !self.cfg_clear.val()
            & !self.reset.val();
        self.issue.next = self.m_rd_valid.val() & self.m_rd_ready.val();
        self.resp.next = self.s_rd_valid.val() & (self.discard.q.val() == self.c_zero32.val());
        // The response's checks (`TxLimits::refusal`), the last assignment winning.
        self.d_op.next = self
            .s_rd_data
            .val()
            .get_bits::<8>(self.c_at_op.val().index());
        self.d_send.next = self.d_op.val() == self.c_op_send.val();
        self.d_retx.next = self.d_op.val() == self.c_op_retx.val();
        self.d_cancel.next = self.d_op.val() == self.c_op_cancel.val();
        self.d_len.next = self
            .s_rd_data
            .val()
            .get_bits::<32>(self.c_at_len.val().index());
        self.d_len64.next = self
            .s_rd_data
            .val()
            .get_bits::<64>(self.c_at_len.val().index())
            & self.c_lo32.val();
        self.d_roff.next = self
            .s_rd_data
            .val()
            .get_bits::<64>(self.c_at_roff.val().index())
            & self.c_lo32.val();
        self.d_rlen.next = self
            .s_rd_data
            .val()
            .get_bits::<64>(self.c_at_rlen.val().index())
            & self.c_lo32.val();
        self.d_iova.next = self
            .s_rd_data
            .val()
            .get_bits::<64>(self.c_at_iova.val().index());
        self.d_end.next = self.d_iova.val() + self.d_len64.val();
        self.d_enc_bad.next = !(self.d_send.val() | self.d_retx.val() | self.d_cancel.val())
            | ((self
                .s_rd_data
                .val()
                .get_bits::<8>(self.c_at_flags.val().index())
                & self.c_flags_reserved.val())
                != self.c_zero8.val())
            | (self
                .s_rd_data
                .val()
                .get_bits::<16>(self.c_at_rsv0.val().index())
                != self.c_zero16.val())
            | (self
                .s_rd_data
                .val()
                .get_bits::<32>(self.c_at_rsv1.val().index())
                != self.c_zero32.val())
            | (self.d_len.val() == self.c_zero32.val())
            | (self
                .s_rd_data
                .val()
                .get_bits::<64>(self.c_at_peer.val().index())
                != self.c_zero64.val())
            | (self
                .s_rd_data
                .val()
                .get_bits::<32>(self.c_at_peer8.val().index())
                != self.c_v4_mapped.val())
            | ((self.d_send.val() | self.d_cancel.val())
                & ((self.d_roff.val() != self.c_zero64.val())
                    | (self.d_rlen.val() != self.c_zero64.val())))
            | (self.d_retx.val()
                & ((self.d_rlen.val() == self.c_zero64.val())
                    | ((self.d_roff.val() + self.d_rlen.val()) > self.d_len64.val())));
        self.win_on.next = self.cfg_win_len.val() != self.c_zero64.val();
        self.win_end.next = self.cfg_win_base.val() + self.cfg_win_len.val();
        self.d_on.next =
            self.d_iova.val().get_bits::<48>(self.c_at16.val().index()) == self.c_on_hi.val();
        self.d_on_end.next = (self.d_iova.val() & self.c_lo16.val()) + self.d_len64.val();
        self.d_on_ok.next = (self.d_iova.val().get_bits::<2>(self.c_at14.val().index())
            == self.c_on_area.val())
            & (self.d_iova.val().get_bits::<6>(self.c_zero4.val().index()) == self.c_on_lane.val())
            & (self.d_on_end.val() <= self.c_on_end.val())
            & (self.d_roff.val() == self.c_zero64.val())
            & (self.d_len.val() <= self.cfg_max_payload.val());
        self.d_st.next = self.c_zero8.val();
        if self.d_on.val() {
            if !self.d_on_ok.val() {
                self.d_st.next = self.c_st_oob.val();
            }
        } else if self.win_on.val()
            & ((self.d_iova.val() < self.cfg_win_base.val())
                | (self.d_end.val() > self.win_end.val()))
        {
            self.d_st.next = self.c_st_oob.val();
        }
        if self.d_end.val() <= self.d_iova.val() {
            self.d_st.next = self.c_st_bad.val();
        }
        if self.d_len.val() > self.cfg_max_len.val() {
            self.d_st.next = self.c_st_long.val();
        }
        if self.d_enc_bad.val() {
            self.d_st.next = self.c_st_bad.val();
        }
        // Into the FIFO.
        self.bank.clock.next = self.clock.val();
        self.st_bank.clock.next = self.clock.val();
        self.bank.write_address.next = self.wr.q.val();
        self.st_bank.write_address.next = self.wr.q.val();
        self.bank.write_data.next = self.s_rd_data.val();
        self.st_bank.write_data.next = self.d_st.val();
        self.bank.write_enable.next = self.resp.val();
        self.st_bank.write_enable.next = self.resp.val();
        self.bank.read_address.next = self.rd.q.val();
        self.st_bank.read_address.next = self.rd.q.val();
        self.st_next.clock.next = self.clock.val();
        self.st_next.write_address.next = self.wr.q.val();
        self.st_next.write_data.next = self.d_st.val();
        self.st_next.write_enable.next = self.resp.val();
        self.st_next.read_address.next = self.rd1.q.val();
        // The head, decoded.
        self.head.next = self.bank.read_data.val();
        self.h_st.next = self.st_bank.read_data.val();
        self.h_retx.next =
            self.head.val().get_bits::<8>(self.c_at_op.val().index()) == self.c_op_retx.val();
        self.m_desc_retransmit.next = self.h_retx.val();
        self.h_cancel.next =
            self.head.val().get_bits::<8>(self.c_at_op.val().index()) == self.c_op_cancel.val();
        self.m_desc_cancel.next = self.h_cancel.val();
        self.m_desc_no_completion.next = self.head.val().get_bit(self.c_at_flags.val().index());
        self.m_desc_src_port.next = self.head.val().get_bits::<16>(self.c_at_src.val().index());
        self.m_desc_dst_port.next = self.head.val().get_bits::<16>(self.c_at_dst.val().index());
        self.m_desc_rpc_id.next = self.head.val().get_bits::<64>(self.c_at_rpc.val().index());
        self.m_desc_peer.next = self
            .head
            .val()
            .get_bits::<128>(self.c_at_peer.val().index());
        self.m_desc_length.next = self.head.val().get_bits::<32>(self.c_at_len.val().index());
        self.m_desc_iova.next = self.head.val().get_bits::<64>(self.c_at_iova.val().index());
        self.m_desc_offset.next = self.c_zero32.val();
        self.m_desc_bytes.next = self.head.val().get_bits::<32>(self.c_at_len.val().index());
        if self.h_retx.val() {
            self.m_desc_offset.next = self.head.val().get_bits::<32>(self.c_at_roff.val().index());
            self.m_desc_bytes.next = self.head.val().get_bits::<32>(self.c_at_rlen.val().index());
        }
        self.m_desc_cookie.next = self
            .head
            .val()
            .get_bits::<64>(self.c_at_cookie.val().index());
        self.m_desc_index.next = self.popped.q.val();
        self.h_bad.next = self.hb.q.val();
        self.m_err_status.next = self.h_st.val();
        self.has.next = self.count.q.val() != self.c_zero32.val();
        self.m_desc_valid.next = self.has.val() & !self.h_bad.val() & !self.reset.val();
        self.m_err_valid.next = self.has.val() & self.h_bad.val() & !self.reset.val();
        self.pop.next = self.has.val()
            & ((!self.h_bad.val() & self.m_desc_ready.val())
                | (self.h_bad.val() & self.m_err_ready.val()));
        // The next head's refusal: the entry after the head when it is popped, or the entry
        // written now if it becomes the head (into an empty FIFO, or behind the last one).
        self.rd_nx.next = self.rd.q.val();
        if self.pop.val() {
            self.rd_nx.next = self.rd1.q.val();
            self.hb.d.next = self.st_next.read_data.val() != self.c_zero8.val();
        }
        if self.resp.val() & (self.wr.q.val() == self.rd_nx.val()) {
            self.hb.d.next = self.d_st.val() != self.c_zero8.val();
        }
        if self.pop.val() & self.h_bad.val() {
            self.n_bad.d.next = self.n_bad.q.val() + self.c_one32.val();
        }
        // Bookkeeping.
        if self.issue.val() {
            self.fetch.d.next = self.fetch.q.val() + self.c_one32.val();
        }
        if self.s_rd_valid.val() & !self.resp.val() {
            self.discard.d.next = self.discard.q.val() - self.c_one32.val();
        }
        if self.resp.val() {
            self.got.d.next = self.got.q.val() + self.c_one32.val();
            self.wr.d.next = self.wr.q.val() + self.c_one4.val();
        }
        if self.pop.val() {
            self.rd.d.next = self.rd.q.val() + self.c_one4.val();
            self.rd1.d.next = self.rd1.q.val() + self.c_one4.val();
            self.popped.d.next = self.popped.q.val() + self.c_one32.val();
        }
        self.count.d.next = self.count.q.val();
        if self.resp.val() & !self.pop.val() {
            self.count.d.next = self.count.q.val() + self.c_one32.val();
        }
        if !self.resp.val() & self.pop.val() {
            self.count.d.next = self.count.q.val() - self.c_one32.val();
        }
        self.inflight.d.next = self.inflight.q.val();
        if self.issue.val() & !self.resp.val() {
            self.inflight.d.next = self.inflight.q.val() + self.c_one32.val();
        }
        if !self.issue.val() & self.resp.val() {
            self.inflight.d.next = self.inflight.q.val() - self.c_one32.val();
        }
        if self.issue.val() & !self.s_rd_valid.val() {
            self.reqs.d.next = self.reqs.q.val() + self.c_one32.val();
        }
        if !self.issue.val() & self.s_rd_valid.val() {
            self.reqs.d.next = self.reqs.q.val() - self.c_one32.val();
        }
        self.consumer.next = self.got.q.val();
        self.bad.next = self.n_bad.q.val();
        // Clear: indices and FIFO restart; reads in flight are answered and discarded.
        if self.cfg_clear.val() {
            self.fetch.d.next = self.c_zero32.val();
            self.got.d.next = self.c_zero32.val();
            self.count.d.next = self.c_zero32.val();
            self.inflight.d.next = self.c_zero32.val();
            self.wr.d.next = self.c_zero4.val();
            self.rd.d.next = self.c_zero4.val();
            self.rd1.d.next = self.c_one4.val();
            self.popped.d.next = self.c_zero32.val();
            self.discard.d.next = self.reqs.q.val();
            if self.s_rd_valid.val() {
                self.discard.d.next = self.reqs.q.val() - self.c_one32.val();
            }
        }
        if self.reset.val() {
            self.fetch.d.next = self.c_zero32.val();
            self.got.d.next = self.c_zero32.val();
            self.count.d.next = self.c_zero32.val();
            self.inflight.d.next = self.c_zero32.val();
            self.reqs.d.next = self.c_zero32.val();
            self.discard.d.next = self.c_zero32.val();
            self.wr.d.next = self.c_zero4.val();
            self.rd.d.next = self.c_zero4.val();
            self.rd1.d.next = self.c_one4.val();
            self.popped.d.next = self.c_zero32.val();
            self.n_bad.d.next = self.c_zero32.val();
        }
    }
}
