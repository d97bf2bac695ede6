//! `CqWriter`: writes 64-byte completions into the completion ring in host memory
//! (`proto::hostif`, QUEUE registers `cq_base_*`, `cq_log2_size`, `cq_producer`,
//! `cq_consumer`), 64 or 8 bytes a DMA beat (`CqWriter512`, `CqWriter64`).
//!
//! ```text
//!  s_cpl_* (64 B, phase byte 0) ─► [slot = producer mod size] ─► m_dma_*: bytes 0-62 (W a
//!                                                                 beat), then byte 63
//!  cfg_consumer (host doorbell) ─► full when producer - consumer = size (back-pressure)
//! ```
//!
//! Each completion takes `64 / W + 1` DMA write beats of `W` bytes into `cq_base + 64 * slot`
//! (two at 512 bits, nine at 64): bytes 0-62 first, `W` a beat, then byte 63 alone with the
//! phase bit (1 on the first pass over the ring, flipping on each wrap),
//! so the host, which polls byte 63, never sees the phase before the rest (posted writes stay
//! in order). The writer never overwrites an entry the host has not consumed: with `size`
//! entries outstanding it stops taking completions until `cfg_consumer` moves. While the ring
//! is off (`cfg_log2` 0, or above 16) completions are taken and dropped (`dropped`), so a
//! NIC whose host has not set up its rings does not stall its receive path. `cfg_clear` (the
//! register file's pulse when `cq_log2_size` is written) restarts the producer at 0 and
//! writes nothing in its cycle.

#[cfg(test)]
mod tests;

use crate::grant_framer::Lo32Hi32;
use crate::hdl::*;
use homa_proto::hostif::COMPLETION_LEN;

/// The most beats a completion takes (8 bytes a beat: eight for the body, one for the phase).
const MAX_BEATS: usize = COMPLETION_LEN / 8 + 1;

/// The completion ring writer, writing `W` bytes a beat (`B` = 8 `W` bits; `W` 8 or 64).
#[derive(LogicBlock)]
pub struct CqWriter<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: the producer restarts at 0.
    pub reset: Signal<In, Bit>,
    /// IOVA of the ring (`cq_base_hi:cq_base_lo`).
    pub cfg_base: Signal<In, Bits<64>>,
    /// log2 of the entry count (1-16; otherwise the ring is off).
    pub cfg_log2: Signal<In, Bits<5>>,
    /// The host's consumer index (`cq_consumer`).
    pub cfg_consumer: Signal<In, Bits<32>>,
    /// Restart the producer at 0 (`cq_log2_size` written).
    pub cfg_clear: Signal<In, Bit>,
    /// A completion is offered.
    pub s_cpl_valid: Signal<In, Bit>,
    /// The completion is taken (with its phase write).
    pub s_cpl_ready: Signal<Out, Bit>,
    /// The completion, byte 0 in bits 7..0; byte 63 must be 0 (the writer sets the phase).
    pub s_cpl_data: Signal<In, Bits<512>>,
    /// A DMA write beat is offered.
    pub m_dma_valid: Signal<Out, Bit>,
    /// The DMA write beat is taken.
    pub m_dma_ready: Signal<In, Bit>,
    /// Host address of data byte 0.
    pub m_dma_addr: Signal<Out, Bits<64>>,
    /// Data.
    pub m_dma_data: Signal<Out, Bits<B>>,
    /// Byte enables.
    pub m_dma_keep: Signal<Out, Bits<W>>,
    /// Every beat is a write of its own.
    pub m_dma_last: Signal<Out, Bit>,
    /// The producer index (`cq_producer`).
    pub producer: Signal<Out, Bits<32>>,
    /// Completions dropped while the ring was off (free-running).
    pub dropped: Signal<Out, Bits<32>>,
    prod: DFF<Bits<32>>,
    beat: DFF<Bits<8>>,
    n_drop: DFF<Bits<32>>,
    on: Signal<Local, Bit>,
    size: Signal<Local, Bits<32>>,
    full: Signal<Local, Bit>,
    slot: Signal<Local, Bits<32>>,
    off64: Signal<Local, Lo32Hi32>,
    pass: Signal<Local, Bits<32>>,
    phase: Signal<Local, Bit>,
    go: Signal<Local, Bit>,
    is_phase: Signal<Local, Bit>,
    boff: Signal<Local, Bits<32>>,
    c_zero5: Constant<Bits<5>>,
    c_max_log2: Constant<Bits<5>>,
    c_zero32: Constant<Bits<32>>,
    c_one32: Constant<Bits<32>>,
    c_six: Constant<Bits<32>>,
    c_keep_full: Constant<Bits<W>>,
    c_keep_body: Constant<Bits<W>>,
    c_keep_last: Constant<Bits<W>>,
    c_phase1: Constant<Bits<B>>,
    c_zero: Constant<Bits<B>>,
    c_beat: [Constant<Bits<8>>; MAX_BEATS],
    c_slice: [Constant<Bits<16>>; MAX_BEATS],
    c_boff: [Constant<Bits<32>>; MAX_BEATS],
    c_last_body: Constant<Bits<8>>,
    c_phase_beat: Constant<Bits<8>>,
    c_zero8: Constant<Bits<8>>,
    c_one8: Constant<Bits<8>>,
}

/// The completion writer of the 512-bit (Alveo) configuration.
pub type CqWriter512 = CqWriter<64, 512>;

/// The completion writer of the 64-bit (small) configuration.
pub type CqWriter64 = CqWriter<8, 64>;

fn k<const M: usize>(v: u64) -> Constant<Bits<M>> {
    Constant::new(v.into())
}

impl<const W: usize, const B: usize> CqWriter<W, B> {
    /// A fresh writer (ports unconnected: use [`CqWriter::top_level`] for Verilog).
    pub fn new() -> Self {
        const _: () = assert!(COMPLETION_LEN == 64);
        assert!(
            B == 8 * W && (W == 8 || W == 64),
            "a completion writer is 8 or 64 bytes wide (the widths generated and tested), with B = 8 W bits"
        );
        let body = COMPLETION_LEN / W;
        let k8 = |v: usize| -> Constant<Bits<8>> { k(v as u64) };
        Self {
            clock: Signal::default(),
            reset: Signal::default(),
            cfg_base: Signal::default(),
            cfg_log2: Signal::default(),
            cfg_consumer: Signal::default(),
            cfg_clear: Signal::default(),
            s_cpl_valid: Signal::default(),
            s_cpl_ready: Signal::default(),
            s_cpl_data: Signal::default(),
            m_dma_valid: Signal::default(),
            m_dma_ready: Signal::default(),
            m_dma_addr: Signal::default(),
            m_dma_data: Signal::default(),
            m_dma_keep: Signal::default(),
            m_dma_last: Signal::default(),
            producer: Signal::default(),
            dropped: Signal::default(),
            prod: DFF::default(),
            beat: DFF::default(),
            n_drop: DFF::default(),
            on: Signal::default(),
            size: Signal::default(),
            full: Signal::default(),
            slot: Signal::default(),
            off64: Signal::default(),
            pass: Signal::default(),
            phase: Signal::default(),
            go: Signal::default(),
            is_phase: Signal::default(),
            boff: Signal::default(),
            c_zero5: k(0),
            c_max_log2: k(16),
            c_zero32: k(0),
            c_one32: k(1),
            c_six: k(6),
            c_keep_full: Constant::new(Bits::<W>::mask()),
            c_keep_body: Constant::new(Bits::<W>::mask() >> 1),
            c_keep_last: Constant::new(Bits::<W>::from(1u64) << (W as u64 - 1)),
            c_phase1: Constant::new(Bits::<B>::from(1u64) << (B as u64 - 8)),
            c_zero: Constant::new(Bits::<B>::default()),
            c_beat: std::array::from_fn(k8),
            c_slice: std::array::from_fn(|j| k((B * j.min(body - 1)) as u64)),
            // The phase write goes where the last body beat did.
            c_boff: std::array::from_fn(|j| k((W * j.min(body - 1)) as u64)),
            c_last_body: k8(body - 1),
            c_phase_beat: k8(body),
            c_zero8: k(0),
            c_one8: k(1),
        }
    }

    /// The writer as a top-level module: every input connected, for Verilog generation.
    pub fn top_level() -> Self {
        let mut uut = Self::new();
        uut.clock.connect();
        uut.reset.connect();
        uut.cfg_base.connect();
        uut.cfg_log2.connect();
        uut.cfg_consumer.connect();
        uut.cfg_clear.connect();
        uut.s_cpl_valid.connect();
        uut.s_cpl_data.connect();
        uut.m_dma_ready.connect();
        uut.connect_all();
        uut
    }
}

impl<const W: usize, const B: usize> Default for CqWriter<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> core::fmt::Debug for CqWriter<W, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CqWriter")
            .field("bytes_per_beat", &W)
            .finish_non_exhaustive()
    }
}

impl<const W: usize, const B: usize> Logic for CqWriter<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, prod, beat, n_drop);
        self.on.next = (self.cfg_log2.val() != self.c_zero5.val())
            & (self.cfg_log2.val() <= self.c_max_log2.val());
        self.size.next = self.c_one32.val() << self.cfg_log2.val();
        self.full.next = (self.prod.q.val() - self.cfg_consumer.val()) >= self.size.val();
        self.slot.next = self.prod.q.val() & (self.size.val() - self.c_one32.val());
        // Phase 1 on even passes (the first pass is pass 0).
        self.pass.next = self.prod.q.val() >> self.cfg_log2.val();
        self.phase.next = (self.pass.val() & self.c_one32.val()) == self.c_zero32.val();
        // Beat j of the body: bytes W j to W j + W - 1 at their place in the slot (the last
        // without byte 63); then the phase alone, where the last body beat went.
        self.is_phase.next = self.beat.q.val() == self.c_phase_beat.val();
        self.boff.next = self.c_boff[0].val();
        self.m_dma_data.next = self
            .s_cpl_data
            .val()
            .get_bits::<B>(self.c_slice[0].val().index());
        for j in 0..MAX_BEATS {
            if self.beat.q.val() == self.c_beat[j].val() {
                self.boff.next = self.c_boff[j].val();
                self.m_dma_data.next = self
                    .s_cpl_data
                    .val()
                    .get_bits::<B>(self.c_slice[j].val().index());
            }
        }
        // The beat's offset is below 64: it sets the slot offset's low bits, no adder.
        self.off64.next.lo = (self.slot.val() << self.c_six.val()) | self.boff.val();
        self.off64.next.hi = self.c_zero32.val();
        self.m_dma_addr.next = self.cfg_base.val() + Bits::<64>::from(self.off64.val());
        self.m_dma_last.next = true;
        self.m_dma_keep.next = self.c_keep_full.val();
        if self.beat.q.val() == self.c_last_body.val() {
            self.m_dma_keep.next = self.c_keep_body.val();
        }
        if self.is_phase.val() {
            self.m_dma_keep.next = self.c_keep_last.val();
            self.m_dma_data.next = self.c_phase1.val();
            if !self.phase.val() {
                self.m_dma_data.next = self.c_zero.val();
            }
        }
        self.m_dma_valid.next = self.s_cpl_valid.val()
            & self.on.val()
            & !self.full.val()
            & !self.cfg_clear.val()
            & !self.reset.val();
        self.go.next = self.m_dma_valid.val() & self.m_dma_ready.val();
        // Taken with the phase write, or at once (and dropped) while the ring is off.
        self.s_cpl_ready.next =
            !self.reset.val() & ((!self.on.val()) | (self.is_phase.val() & self.go.val()));
        if self.go.val() {
            self.beat.d.next = self.beat.q.val() + self.c_one8.val();
            if self.is_phase.val() {
                self.beat.d.next = self.c_zero8.val();
                self.prod.d.next = self.prod.q.val() + self.c_one32.val();
            }
        }
        if self.s_cpl_valid.val() & !self.on.val() & !self.reset.val() {
            self.n_drop.d.next = self.n_drop.q.val() + self.c_one32.val();
        }
        self.producer.next = self.prod.q.val();
        self.dropped.next = self.n_drop.q.val();
        if self.reset.val() | self.cfg_clear.val() {
            self.prod.d.next = self.c_zero32.val();
            self.beat.d.next = self.c_zero8.val();
        }
    }
}
