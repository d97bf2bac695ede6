//! `RxRing512`: fetches the RX buffer descriptors the host posts (`proto::hostif`, 16 bytes
//! each; QUEUE registers `rx_base_*`, `rx_log2_size`, `rx_producer`, `rx_consumer`) and
//! hands them, in ring order, to the RX DMA engine ([`crate::rx_dma::RxDma512`]'s `s_buf_*`).
//!
//! ```text
//!  cfg_producer (doorbell) ─► m_rd_* (up to 4 descriptors, one 64-byte read, ≤ 16 in flight)
//!  s_rd_* (responses, in order) ─► descriptor FIFO (64) ─► m_buf_* (iova, length, id, index)
//!                                                        └─► m_err_* (status; id, index)
//! ```
//!
//! Depth: a PCIe read takes about 1 µs (250 cycles) to come back, and a burst of short DATA
//! packets at 100 Gb/s uses a buffer every 2-10 cycles; 16 reads of 4 descriptors in flight
//! and a 64-entry FIFO keep buffers coming through such bursts (16 and 4 reads lost payloads
//! in the cluster's W3 runs). The FIFO lies in four banks of LUT RAM ([`LutRam`]), slot `s`
//! in bank `s mod 4` (with its refusal status, decided as the descriptor arrives, in a
//! parallel bank): the up to four descriptors of one response go to four different banks,
//! one write each, and the head is one bank's combinational read.
//!
//! Reads never cross the ring's end and never run ahead of the producer; the FIFO space is
//! reserved when a read is issued, so responses are always taken. The ring's size and index
//! mask are registered from `cfg_log2` (off the read's path); no read is issued in the cycle
//! they lag it. `consumer` (`rx_consumer`) counts descriptors whose read has returned: the
//! host may reuse those slots.
//!
//! A descriptor the engine must not use is refused: it leaves the FIFO, in ring order, on
//! `m_err_*` instead of `m_buf_*` (its id and index on `m_buf_id`/`m_buf_index`), so that it
//! comes back to the host in an `ERROR` completion, and is counted (`bad`):
//! - status 5 (bad descriptor): length 0, or a buffer that wraps past the top of the
//!   address space;
//! - status 1 (out of bounds): the RX window is on (`cfg_win_len` ≠ 0) and the buffer does not
//!   lie inside `[cfg_win_base, cfg_win_base + cfg_win_len)`. The driver sets the window to
//!   its RX buffer pool, so a stray descriptor can never steer a payload elsewhere in host
//!   memory, whatever the IOMMU allows.
//!
//! `cfg_clear` (the `rx_log2_size` write) restarts the indices at 0 and empties the FIFO;
//! responses to reads issued before it are discarded.

#[cfg(test)]
mod tests;

use crate::grant_framer::Lo32Hi32;
use crate::hdl::*;
use crate::lutram::LutRam;
use homa_proto::hostif::Status;

/// FIFO depth in descriptors.
pub const RX_RING_FIFO: usize = 64;
/// Descriptors per read (one 64-byte beat); also the number of FIFO banks.
pub const RX_RING_BATCH: usize = 4;
/// Descriptor reads in flight at most.
pub const RX_RING_READS: usize = 16;

/// The RX buffer ring fetcher.
#[derive(LogicBlock)]
pub struct RxRing512 {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// IOVA of the ring.
    pub cfg_base: Signal<In, Bits<64>>,
    /// log2 of the entry count (1-16; otherwise off).
    pub cfg_log2: Signal<In, Bits<5>>,
    /// The host's producer index (`rx_producer`).
    pub cfg_producer: Signal<In, Bits<32>>,
    /// Restart at 0 (`rx_log2_size` written).
    pub cfg_clear: Signal<In, Bit>,
    /// First IOVA of the RX window.
    pub cfg_win_base: Signal<In, Bits<64>>,
    /// Bytes in the RX window (0: no window check).
    pub cfg_win_len: Signal<In, Bits<64>>,
    /// A DMA read is requested.
    pub m_rd_valid: Signal<Out, Bit>,
    /// The request is taken.
    pub m_rd_ready: Signal<In, Bit>,
    /// Host address to read.
    pub m_rd_addr: Signal<Out, Bits<64>>,
    /// Bytes to read (16 to 64).
    pub m_rd_len: Signal<Out, Bits<32>>,
    /// A read response (one beat per request, in request order).
    pub s_rd_valid: Signal<In, Bit>,
    /// The bytes read, byte 0 in bits 7..0.
    pub s_rd_data: Signal<In, Bits<512>>,
    /// A buffer is offered.
    pub m_buf_valid: Signal<Out, Bit>,
    /// The buffer is taken.
    pub m_buf_ready: Signal<In, Bit>,
    /// Its IOVA.
    pub m_buf_iova: Signal<Out, Bits<64>>,
    /// Its length.
    pub m_buf_length: Signal<Out, Bits<32>>,
    /// Its id.
    pub m_buf_id: Signal<Out, Bits<32>>,
    /// Its free-running ring index.
    pub m_buf_index: Signal<Out, Bits<32>>,
    /// A refused descriptor is offered (its id and index on `m_buf_id`, `m_buf_index`).
    pub m_err_valid: Signal<Out, Bit>,
    /// The refusal is taken (reported).
    pub m_err_ready: Signal<In, Bit>,
    /// Why: `Status::BadDescriptor` or `Status::OutOfBounds`.
    pub m_err_status: Signal<Out, Bits<8>>,
    /// Descriptors read back (`rx_consumer`).
    pub consumer: Signal<Out, Bits<32>>,
    /// Descriptors refused (free-running).
    pub bad: Signal<Out, Bits<32>>,
    fetch: DFF<Bits<32>>,
    got: DFF<Bits<32>>,
    count: DFF<Bits<32>>,
    inflight: DFF<Bits<32>>,
    reqs: DFF<Bits<32>>,
    discard: DFF<Bits<32>>,
    /// Slot of the next write and of the head (6 bits: 64 slots).
    wr: DFF<Bits<6>>,
    rd: DFF<Bits<6>>,
    /// Descriptors popped since the clear: the head's ring index.
    popped: DFF<Bits<32>>,
    /// Descriptor count of each read in flight, in issue order.
    rq: [DFF<Bits<3>>; RX_RING_READS],
    rq_wr: DFF<Bits<4>>,
    rq_rd: DFF<Bits<4>>,
    rn_q: DFF<Bits<3>>,
    /// The FIFO: descriptors as read, and their refusal status (0: good).
    bank: [LutRam<Bits<128>, 4>; RX_RING_BATCH],
    st_bank: [LutRam<Bits<8>, 4>; RX_RING_BATCH],
    n_bad: DFF<Bits<32>>,
    /// The ring's size and index mask, registered from `cfg_log2` (a cycle behind it: no
    /// read is issued while they differ).
    log2_q: DFF<Bits<5>>,
    on_q: DFF<Bit>,
    size_q: DFF<Bits<32>>,
    mask_q: DFF<Bits<32>>,
    settled: Signal<Local, Bit>,
    /// What the read may take, each clamped to 4 (3 bits): posted, to the ring's end, FIFO space.
    a4: Signal<Local, Bits<3>>,
    e4: Signal<Local, Bits<3>>,
    s4: Signal<Local, Bits<3>>,
    n3: Signal<Local, Bits<3>>,
    on: Signal<Local, Bit>,
    size: Signal<Local, Bits<32>>,
    slot: Signal<Local, Bits<32>>,
    avail: Signal<Local, Bits<32>>,
    to_end: Signal<Local, Bits<32>>,
    space: Signal<Local, Bits<32>>,
    n: Signal<Local, Bits<32>>,
    off64: Signal<Local, Lo32Hi32>,
    issue: Signal<Local, Bit>,
    resp: Signal<Local, Bit>,
    rn3: Signal<Local, Bits<3>>,
    rq_next: Signal<Local, Bits<4>>,
    rn: Signal<Local, Bits<32>>,
    head: Signal<Local, Bits<128>>,
    h_st: Signal<Local, Bits<8>>,
    h_bad: Signal<Local, Bit>,
    has: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    win_on: Signal<Local, Bit>,
    win_end: Signal<Local, Bits<64>>,
    d_iova: [Signal<Local, Bits<64>>; RX_RING_BATCH],
    d_len64: [Signal<Local, Bits<64>>; RX_RING_BATCH],
    d_end: [Signal<Local, Bits<64>>; RX_RING_BATCH],
    d_st: [Signal<Local, Bits<8>>; RX_RING_BATCH],
    /// Which descriptor of the beat bank b takes, and the slot it goes to.
    b_j: [Signal<Local, Bits<2>>; RX_RING_BATCH],
    b_slot: [Signal<Local, Bits<6>>; RX_RING_BATCH],
    c_lo32: Constant<Bits<64>>,
    c_zero64: Constant<Bits<64>>,
    c_zero8: Constant<Bits<8>>,
    c_st_bad: Constant<Bits<8>>,
    c_st_oob: Constant<Bits<8>>,
    c_zero5: Constant<Bits<5>>,
    c_zero3: Constant<Bits<3>>,
    c_four3: Constant<Bits<3>>,
    c_max_log2: Constant<Bits<5>>,
    c_zero32: Constant<Bits<32>>,
    c_one32: Constant<Bits<32>>,
    c_four: Constant<Bits<32>>,
    c_fifo: Constant<Bits<32>>,
    c_reads: Constant<Bits<32>>,
    c_shift16: Constant<Bits<32>>,
    c_one6: Constant<Bits<6>>,
    c_one4: Constant<Bits<4>>,
    c_zero6: Constant<Bits<6>>,
    c_zero4: Constant<Bits<4>>,
    c_j: [Constant<Bits<32>>; RX_RING_BATCH],
    c_j2: [Constant<Bits<2>>; RX_RING_BATCH],
    c_j6: [Constant<Bits<6>>; RX_RING_BATCH],
    /// 1 to 4, in 3 and in 32 bits.
    c_n3: [Constant<Bits<3>>; RX_RING_BATCH],
    c_n32: [Constant<Bits<32>>; RX_RING_BATCH],
    c_r4: [Constant<Bits<4>>; RX_RING_READS],
    c_desc_at: [Constant<Bits<16>>; RX_RING_BATCH],
    c_at: [Constant<Bits<16>>; 2 * RX_RING_BATCH],
}

fn k<const M: usize>(v: u64) -> Constant<Bits<M>> {
    Constant::new(v.into())
}

impl RxRing512 {
    /// A fresh fetcher (ports unconnected: use [`RxRing512::top_level`] for Verilog).
    pub fn new() -> Self {
        use homa_proto::hostif::RX_BUF_DESC_LEN;
        const _: () = assert!(RX_BUF_DESC_LEN * RX_RING_BATCH == 64);
        const _: () = assert!(8 * RX_BUF_DESC_LEN == 128);
        const _: () = assert!(RX_RING_FIFO == 16 * RX_RING_BATCH);
        Self {
            clock: Signal::default(),
            reset: Signal::default(),
            cfg_base: Signal::default(),
            cfg_log2: Signal::default(),
            cfg_producer: Signal::default(),
            cfg_clear: Signal::default(),
            cfg_win_base: Signal::default(),
            cfg_win_len: Signal::default(),
            m_rd_valid: Signal::default(),
            m_rd_ready: Signal::default(),
            m_rd_addr: Signal::default(),
            m_rd_len: Signal::default(),
            s_rd_valid: Signal::default(),
            s_rd_data: Signal::default(),
            m_buf_valid: Signal::default(),
            m_buf_ready: Signal::default(),
            m_buf_iova: Signal::default(),
            m_buf_length: Signal::default(),
            m_buf_id: Signal::default(),
            m_buf_index: Signal::default(),
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
            rq: std::array::from_fn(|_| DFF::default()),
            rq_wr: DFF::default(),
            rq_rd: DFF::default(),
            rn_q: DFF::default(),
            bank: std::array::from_fn(|_| LutRam::default()),
            st_bank: std::array::from_fn(|_| LutRam::default()),
            n_bad: DFF::default(),
            log2_q: DFF::default(),
            on_q: DFF::default(),
            size_q: DFF::default(),
            mask_q: DFF::default(),
            settled: Signal::default(),
            a4: Signal::default(),
            e4: Signal::default(),
            s4: Signal::default(),
            n3: Signal::default(),
            on: Signal::default(),
            size: Signal::default(),
            slot: Signal::default(),
            avail: Signal::default(),
            to_end: Signal::default(),
            space: Signal::default(),
            n: Signal::default(),
            off64: Signal::default(),
            issue: Signal::default(),
            resp: Signal::default(),
            rn3: Signal::default(),
            rq_next: Signal::default(),
            rn: Signal::default(),
            head: Signal::default(),
            h_st: Signal::default(),
            h_bad: Signal::default(),
            has: Signal::default(),
            pop: Signal::default(),
            win_on: Signal::default(),
            win_end: Signal::default(),
            d_iova: std::array::from_fn(|_| Signal::default()),
            d_len64: std::array::from_fn(|_| Signal::default()),
            d_end: std::array::from_fn(|_| Signal::default()),
            d_st: std::array::from_fn(|_| Signal::default()),
            b_j: std::array::from_fn(|_| Signal::default()),
            b_slot: std::array::from_fn(|_| Signal::default()),
            c_lo32: k(u64::from(u32::MAX)),
            c_zero64: k(0),
            c_zero8: k(0),
            c_st_bad: k(Status::BadDescriptor as u64),
            c_st_oob: k(Status::OutOfBounds as u64),
            c_zero5: k(0),
            c_zero3: k(0),
            c_four3: k(RX_RING_BATCH as u64),
            c_max_log2: k(16),
            c_zero32: k(0),
            c_one32: k(1),
            c_four: k(RX_RING_BATCH as u64),
            c_fifo: k(RX_RING_FIFO as u64),
            c_reads: k(RX_RING_READS as u64),
            c_shift16: k(4),
            c_one6: k(1),
            c_one4: k(1),
            c_zero6: k(0),
            c_zero4: k(0),
            c_j: std::array::from_fn(|j| k(j as u64)),
            c_j2: std::array::from_fn(|j| k(j as u64)),
            c_j6: std::array::from_fn(|j| k(j as u64)),
            c_n3: std::array::from_fn(|v| k(v as u64 + 1)),
            c_n32: std::array::from_fn(|v| k(v as u64 + 1)),
            c_r4: std::array::from_fn(|r| k(r as u64)),
            // Bit offset of descriptor j in the beat.
            c_desc_at: std::array::from_fn(|j| k(128 * j as u64)),
            // Bit offsets of iova and length of descriptor j in the beat.
            c_at: std::array::from_fn(|i| {
                let (j, f) = (i / 2, i % 2);
                k((128 * j + [0, 64][f]) as u64)
            }),
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
        uut.m_rd_ready.connect();
        uut.s_rd_valid.connect();
        uut.s_rd_data.connect();
        uut.m_buf_ready.connect();
        uut.m_err_ready.connect();
        uut.connect_all();
        uut
    }
}

impl Default for RxRing512 {
    fn default() -> Self {
        Self::new()
    }
}

impl core::fmt::Debug for RxRing512 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RxRing512").finish_non_exhaustive()
    }
}

impl Logic for RxRing512 {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, fetch, got, count, inflight, reqs, discard, wr, rd, popped, rq_wr, rq_rd,
            rn_q, n_bad, log2_q, on_q, size_q, mask_q
        );
        for i in 0..RX_RING_READS {
            self.rq[i].clock.next = self.clock.val();
            self.rq[i].d.next = self.rq[i].q.val();
        }
        // The ring's size from the configuration, registered.
        self.on.next = (self.cfg_log2.val() != self.c_zero5.val())
            & (self.cfg_log2.val() <= self.c_max_log2.val());
        self.size.next = self.c_one32.val() << self.cfg_log2.val();
        self.log2_q.d.next = self.cfg_log2.val();
        self.on_q.d.next = self.on.val();
        self.size_q.d.next = self.size.val();
        self.mask_q.d.next = self.size.val() - self.c_one32.val();
        self.settled.next = self.log2_q.q.val() == self.cfg_log2.val();
        // The next read: up to 4 descriptors, within what is posted, the ring's end and the
        // FIFO space not yet promised; each bound clamped to 4 on its own, then the least.
        self.slot.next = self.fetch.q.val() & self.mask_q.q.val();
        self.avail.next = self.cfg_producer.val() - self.fetch.q.val();
        self.to_end.next = self.size_q.q.val() - self.slot.val();
        self.space.next = self.c_fifo.val() - self.count.q.val() - self.inflight.q.val();
        self.a4.next = self.c_four3.val();
        if self.avail.val() < self.c_four.val() {
            self.a4.next = self.avail.val().get_bits::<3>(0);
        }
        if self.avail.val() > self.size_q.q.val() {
            // A producer beyond the ring (a host fault): nothing is posted.
            self.a4.next = self.c_zero3.val();
        }
        self.e4.next = self.c_four3.val();
        if self.to_end.val() < self.c_four.val() {
            self.e4.next = self.to_end.val().get_bits::<3>(0);
        }
        self.s4.next = self.c_four3.val();
        if self.space.val() < self.c_four.val() {
            self.s4.next = self.space.val().get_bits::<3>(0);
        }
        self.n3.next = self.s4.val();
        if self.e4.val() <= self.s4.val() {
            self.n3.next = self.e4.val();
        }
        if (self.a4.val() <= self.e4.val()) & (self.a4.val() <= self.s4.val()) {
            self.n3.next = self.a4.val();
        }
        // Zero-extended (a cast would not be width-clean Verilog): 0 to 4.
        self.n.next = self.c_zero32.val();
        for v in 0..RX_RING_BATCH {
            if self.n3.val() == self.c_n3[v].val() {
                self.n.next = self.c_n32[v].val();
            }
        }
        self.off64.next.lo = self.slot.val() << self.c_shift16.val();
        self.off64.next.hi = self.c_zero32.val();
        self.m_rd_addr.next = self.cfg_base.val() + Bits::<64>::from(self.off64.val());
        self.m_rd_len.next = self.n.val() << self.c_shift16.val();
        self.m_rd_valid.next = self.on_q.q.val()
            & self.settled.val()
            & (self.n3.val() != self.c_zero3.val())
            & (self.reqs.q.val() < self.c_reads.val())
            & !self.cfg_clear.val()
            & !self.reset.val();
        self.issue.next = self.m_rd_valid.val() & self.m_rd_ready.val();
        // Responses: the oldest request's count of descriptors, kept in a register (`rn_q`)
        // so that the response's bank writes start at flops: at each edge it takes the count
        // of the request that is the oldest after it (the next one when a response arrives),
        // or the count being issued when the issue writes that very entry (the queue was
        // empty). A request's entry is never rewritten while it is pending (at most
        // `RX_RING_READS` in flight).
        self.rq_next.next = self.rq_rd.q.val();
        if self.s_rd_valid.val() {
            self.rq_next.next = self.rq_rd.q.val() + self.c_one4.val();
        }
        self.rn3.next = self.rq[0].q.val();
        for i in 1..RX_RING_READS {
            if self.rq_next.val() == self.c_r4[i].val() {
                self.rn3.next = self.rq[i].q.val();
            }
        }
        if self.issue.val() & (self.rq_wr.q.val() == self.rq_next.val()) {
            self.rn3.next = self.n.val().get_bits::<3>(0);
        }
        self.rn_q.d.next = self.rn3.val();
        // Zero-extended (a cast would not be width-clean Verilog): 1 to 4, never 0.
        self.rn.next = self.c_zero32.val();
        for v in 0..RX_RING_BATCH {
            if self.rn_q.q.val() == self.c_n3[v].val() {
                self.rn.next = self.c_n32[v].val();
            }
        }
        self.resp.next = self.s_rd_valid.val() & (self.discard.q.val() == self.c_zero32.val());
        // Descriptor j of the beat: bad when empty or when its end wraps past 2^64; out of
        // bounds when the window is on and the buffer is not inside it.
        self.win_on.next = self.cfg_win_len.val() != self.c_zero64.val();
        self.win_end.next = self.cfg_win_base.val() + self.cfg_win_len.val();
        for j in 0..RX_RING_BATCH {
            self.d_iova[j].next = self
                .s_rd_data
                .val()
                .get_bits::<64>(self.c_at[2 * j].val().index());
            // The length, zero-extended: the 64 bits from its offset, the id's half masked.
            self.d_len64[j].next = self
                .s_rd_data
                .val()
                .get_bits::<64>(self.c_at[2 * j + 1].val().index())
                & self.c_lo32.val();
            self.d_end[j].next = self.d_iova[j].val() + self.d_len64[j].val();
            self.d_st[j].next = self.c_zero8.val();
            if self.win_on.val()
                & ((self.d_iova[j].val() < self.cfg_win_base.val())
                    | (self.d_end[j].val() > self.win_end.val()))
            {
                self.d_st[j].next = self.c_st_oob.val();
            }
            // An end at or below the start: the buffer is empty (length 0) or wraps.
            if self.d_end[j].val() <= self.d_iova[j].val() {
                self.d_st[j].next = self.c_st_bad.val();
            }
        }
        // Into the banks: bank b takes descriptor j = (b - wr) mod 4, at slot wr + j (row
        // bits 5-2 of the slot).
        for b in 0..RX_RING_BATCH {
            self.bank[b].clock.next = self.clock.val();
            self.st_bank[b].clock.next = self.clock.val();
            self.b_j[b].next = self.c_j2[b].val() - self.wr.q.val().get_bits::<2>(0);
            self.b_slot[b].next = self.wr.q.val();
            self.bank[b].write_enable.next = false;
            self.bank[b].write_data.next = self
                .s_rd_data
                .val()
                .get_bits::<128>(self.c_desc_at[0].val().index());
            self.st_bank[b].write_data.next = self.d_st[0].val();
            for j in 0..RX_RING_BATCH {
                if self.b_j[b].val() == self.c_j2[j].val() {
                    self.b_slot[b].next = self.wr.q.val() + self.c_j6[j].val();
                    self.bank[b].write_enable.next =
                        self.resp.val() & (self.c_j[j].val() < self.rn.val());
                    self.bank[b].write_data.next = self
                        .s_rd_data
                        .val()
                        .get_bits::<128>(self.c_desc_at[j].val().index());
                    self.st_bank[b].write_data.next = self.d_st[j].val();
                }
            }
            self.bank[b].write_address.next = self.b_slot[b].val().get_bits::<4>(2);
            self.st_bank[b].write_address.next = self.b_slot[b].val().get_bits::<4>(2);
            self.st_bank[b].write_enable.next = self.bank[b].write_enable.val();
            self.bank[b].read_address.next = self.rd.q.val().get_bits::<4>(2);
            self.st_bank[b].read_address.next = self.rd.q.val().get_bits::<4>(2);
        }
        // The FIFO's head: bank rd mod 4.
        self.head.next = self.bank[0].read_data.val();
        self.h_st.next = self.st_bank[0].read_data.val();
        for b in 1..RX_RING_BATCH {
            if self.rd.q.val().get_bits::<2>(0) == self.c_j2[b].val() {
                self.head.next = self.bank[b].read_data.val();
                self.h_st.next = self.st_bank[b].read_data.val();
            }
        }
        self.m_buf_iova.next = self.head.val().get_bits::<64>(0);
        self.m_buf_length.next = self.head.val().get_bits::<32>(64);
        self.m_buf_id.next = self.head.val().get_bits::<32>(96);
        self.m_buf_index.next = self.popped.q.val();
        self.h_bad.next = self.h_st.val() != self.c_zero8.val();
        self.m_err_status.next = self.h_st.val();
        self.has.next = self.count.q.val() != self.c_zero32.val();
        self.m_buf_valid.next = self.has.val() & !self.h_bad.val() & !self.reset.val();
        self.m_err_valid.next = self.has.val() & self.h_bad.val() & !self.reset.val();
        self.pop.next = self.has.val()
            & ((!self.h_bad.val() & self.m_buf_ready.val())
                | (self.h_bad.val() & self.m_err_ready.val()));
        if self.pop.val() & self.h_bad.val() {
            self.n_bad.d.next = self.n_bad.q.val() + self.c_one32.val();
        }
        // Bookkeeping.
        if self.issue.val() {
            self.fetch.d.next = self.fetch.q.val() + self.n.val();
            for i in 0..RX_RING_READS {
                if self.rq_wr.q.val() == self.c_r4[i].val() {
                    self.rq[i].d.next = self.n.val().get_bits::<3>(0);
                }
            }
            self.rq_wr.d.next = self.rq_wr.q.val() + self.c_one4.val();
        }
        if self.s_rd_valid.val() {
            self.rq_rd.d.next = self.rq_rd.q.val() + self.c_one4.val();
            if !self.resp.val() {
                self.discard.d.next = self.discard.q.val() - self.c_one32.val();
            }
        }
        if self.resp.val() {
            self.got.d.next = self.got.q.val() + self.rn.val();
            self.wr.d.next = self.wr.q.val() + self.rn.val().get_bits::<6>(0);
        }
        if self.pop.val() {
            self.rd.d.next = self.rd.q.val() + self.c_one6.val();
            self.popped.d.next = self.popped.q.val() + self.c_one32.val();
        }
        self.count.d.next = self.count.q.val();
        if self.resp.val() {
            self.count.d.next = self.count.q.val() + self.rn.val();
            if self.pop.val() {
                self.count.d.next = self.count.q.val() + self.rn.val() - self.c_one32.val();
            }
        } else if self.pop.val() {
            self.count.d.next = self.count.q.val() - self.c_one32.val();
        }
        self.inflight.d.next = self.inflight.q.val();
        if self.issue.val() {
            self.inflight.d.next = self.inflight.q.val() + self.n.val();
            if self.resp.val() {
                self.inflight.d.next = self.inflight.q.val() + self.n.val() - self.rn.val();
            }
        } else if self.resp.val() {
            self.inflight.d.next = self.inflight.q.val() - self.rn.val();
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
            self.wr.d.next = self.c_zero6.val();
            self.rd.d.next = self.c_zero6.val();
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
            self.wr.d.next = self.c_zero6.val();
            self.rd.d.next = self.c_zero6.val();
            self.popped.d.next = self.c_zero32.val();
            self.rq_wr.d.next = self.c_zero4.val();
            self.rq_rd.d.next = self.c_zero4.val();
            self.rn_q.d.next = self.c_zero3.val();
            self.n_bad.d.next = self.c_zero32.val();
        }
    }
}
