//! `TxPush`: the NIC's on-chip TX memory (`proto::hostif::onchip`). The host pushes TX
//! descriptors and the payloads of small messages into it through BAR0 (64-byte
//! write-combined stores on `s_push_*`); the TX descriptor fetcher and the transmit engine
//! read it as if it were host memory, with no PCIe round trip.
//!
//! ```text
//!  s_push_* ─► ring area (64 words) ─┐          payload area (256 words) ◄─ s_push_*
//!  TxRing512 ─ s_rd_* ─► on chip? ─ yes ─► read ─┴► m_rdr_* ◄─ s_dma_rd_* ◄┐  (in order)
//!                           └──── no ─► m_dma_rd_* ────────────────────────┘
//!  TxEngine ─ s_pay_* ─► on chip? ─ yes ─► beats from the payload area ─► m_payr_*
//!                              └──── no ─► m_dma_pay_* ... s_dma_pay_* ────► m_payr_*
//! ```
//!
//! Each reader sees its responses in request order, as from host memory. A descriptor read on
//! chip waits until every host descriptor read issued before it has been answered (a counter
//! of answers due). A payload read on chip does not hold up the reads behind it: it is taken
//! at once into a queue of [`ONCHIP_READS`], marked with the count of host payload beats
//! requested before it, and streams when that many have been passed on; host beats wait
//! while the queue's head is due or streams. So the engine keeps host reads in flight behind
//! an on-chip one, and a small message between two long ones costs no PCIe round trip of
//! stall. Descriptor answers have no back-pressure (as the DMA channel's); payload beats do.
//! An on-chip read streams from the cycle after it starts (block RAM), one beat a cycle.
//!
//! An on-chip payload read is served beat by beat from the beat its address is in, so payload
//! byte 0 is at lane `26 mod W` of the first beat (26 at 64 bytes, 2 at 8: the DATA header's
//! length modulo the beat, where the DATA framer wants it) exactly when the address is at lane
//! 26 of its 64-byte word, which the descriptor fetcher holds every on-chip descriptor to.
//! The memory is 64 bytes wide whatever `W`: a narrower beat is a slice of the word read.
//! Host memory answers a descriptor read (64 bytes) in `64 / W` beats, gathered into one
//! record ([`ReadGather`]) before the fetcher sees it. An on-chip read outside its area (a
//! descriptor read outside the ring area, a payload read outside the payload area or at
//! another lane) is answered with zeros for as many beats as asked, and counted (`faults`).
//! Pushes outside both areas are ignored.

mod rec;
#[cfg(test)]
mod tests;

pub use rec::OnChipRead;

use crate::hdl::*;
use crate::lut_fifo::LutFifo;
use crate::read_gather::ReadGather;
use crate::wideram::WideRam;
use homa_proto::hostif::onchip;

/// Words of the ring area (64 descriptors).
pub const RING_WORDS: usize = 64;
/// Words of the payload area.
pub const PAYLOAD_WORDS: usize = 256;
/// Bits of the on-chip payload read queue's index: as many reads as the transmit engine
/// keeps in flight may wait behind host reads, so it never waits for room.
const ONCHIP_BITS: usize = crate::tx_engine::TX_READS_IN_FLIGHT.trailing_zeros() as usize;
/// On-chip payload reads that may wait behind host reads (LUT RAM).
pub const ONCHIP_READS: usize = 1 << ONCHIP_BITS;
const _: () = assert!(ONCHIP_READS == crate::tx_engine::TX_READS_IN_FLIGHT);

/// The on-chip TX memory of the 512-bit (Alveo) configuration.
pub type TxPush512 = TxPush<64, 512>;

/// The on-chip TX memory of the 64-bit (small) configuration.
pub type TxPush64 = TxPush<8, 64>;

/// On-chip TX memory and the two read routers; payload and host read beats of `W` bytes (`B`
/// = 8 `W` bits). Pushes and descriptor records are 64 bytes at any width.
#[derive(LogicBlock)]
pub struct TxPush<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// A push (one write-combined store of up to 64 bytes) is offered; always taken.
    pub s_push_valid: Signal<In, Bit>,
    /// Its 64-byte word: the BAR0 byte offset divided by 64.
    pub s_push_word: Signal<In, Bits<10>>,
    /// Bytes: lane `i` to BAR0 offset `64 * word + i`.
    pub s_push_data: Signal<In, Bits<512>>,
    /// Byte enables.
    pub s_push_keep: Signal<In, Bits<64>>,
    /// A descriptor read (the fetcher's): offered.
    pub s_rd_valid: Signal<In, Bit>,
    /// Taken.
    pub s_rd_ready: Signal<Out, Bit>,
    /// Its address (host memory, or on chip).
    pub s_rd_addr: Signal<In, Bits<64>>,
    /// Its length (64).
    pub s_rd_len: Signal<In, Bits<32>>,
    /// Its answer, in request order, always taken.
    pub m_rdr_valid: Signal<Out, Bit>,
    /// The bytes read.
    pub m_rdr_data: Signal<Out, Bits<512>>,
    /// A descriptor read to host memory.
    pub m_dma_rd_valid: Signal<Out, Bit>,
    /// Taken.
    pub m_dma_rd_ready: Signal<In, Bit>,
    /// Address.
    pub m_dma_rd_addr: Signal<Out, Bits<64>>,
    /// Length.
    pub m_dma_rd_len: Signal<Out, Bits<32>>,
    /// Host memory's answer: a beat (`64 / W` per read).
    pub s_dma_rd_valid: Signal<In, Bit>,
    /// Its bytes.
    pub s_dma_rd_data: Signal<In, Bits<B>>,
    /// A payload read (the transmit engine's): offered.
    pub s_pay_valid: Signal<In, Bit>,
    /// Taken.
    pub s_pay_ready: Signal<Out, Bit>,
    /// Address of payload byte 0.
    pub s_pay_addr: Signal<In, Bits<64>>,
    /// Bytes.
    pub s_pay_len: Signal<In, Bits<32>>,
    /// A payload beat (byte 0 at lane `26 mod W` of the first), in request order.
    pub m_payr_valid: Signal<Out, Bit>,
    /// Taken.
    pub m_payr_ready: Signal<In, Bit>,
    /// The beat.
    pub m_payr_data: Signal<Out, Bits<B>>,
    /// A payload read to host memory.
    pub m_dma_pay_valid: Signal<Out, Bit>,
    /// Taken.
    pub m_dma_pay_ready: Signal<In, Bit>,
    /// Address.
    pub m_dma_pay_addr: Signal<Out, Bits<64>>,
    /// Length.
    pub m_dma_pay_len: Signal<Out, Bits<32>>,
    /// A beat from host memory.
    pub s_dma_pay_valid: Signal<In, Bit>,
    /// Taken.
    pub s_dma_pay_ready: Signal<Out, Bit>,
    /// Its bytes.
    pub s_dma_pay_data: Signal<In, Bits<B>>,
    /// On-chip reads answered with zeros (free-running).
    pub faults: Signal<Out, Bits<32>>,
    ring: WideRam<6>,
    /// Host descriptor answers into records.
    rdg: ReadGather<W, B>,
    /// The beat of the word read that the on-chip stream is at.
    l_sub: DFF<Bits<16>>,
    /// The word read, shifted down to that beat, and its low `B` bits.
    word_sh: Signal<Local, Bits<512>>,
    narrow: Signal<Local, Bits<B>>,
    c_sub0: Constant<Bits<16>>,
    c_max_sub: Constant<Bits<16>>,
    c_one16: Constant<Bits<16>>,
    c_bshift: Constant<Bits<16>>,
    c_zero_b: Constant<Bits<B>>,
    pay: WideRam<8>,
    /// Host descriptor reads not yet answered.
    rd_due: DFF<Bits<32>>,
    /// An on-chip descriptor answer is due this cycle, and whether it is in the ring area.
    l_rd: DFF<Bit>,
    l_rd_ok: DFF<Bit>,
    /// Host payload beats requested, and passed on (free-running).
    issued: DFF<Bits<32>>,
    taken: DFF<Bits<32>>,
    /// On-chip payload reads waiting for their turn.
    q: LutFifo<OnChipRead, ONCHIP_BITS>,
    /// The queue's head may stream: every host beat requested before it was passed on.
    head_due: Signal<Local, Bit>,
    /// It starts streaming at this edge.
    start: Signal<Local, Bit>,
    /// An on-chip read is queued at this edge.
    enq: Signal<Local, Bit>,
    /// An on-chip payload read streams: its word, beats left, in its area, data ready.
    l_busy: DFF<Bit>,
    l_word: DFF<Bits<8>>,
    l_left: DFF<Bits<32>>,
    l_ok: DFF<Bit>,
    l_have: DFF<Bit>,
    n_faults: DFF<Bits<32>>,
    rd_on: Signal<Local, Bit>,
    rd_in: Signal<Local, Bit>,
    rd_go: Signal<Local, Bit>,
    rd_ext: Signal<Local, Bit>,
    pay_on: Signal<Local, Bit>,
    pay_in: Signal<Local, Bit>,
    pay_go: Signal<Local, Bit>,
    pay_ext: Signal<Local, Bit>,
    pay_beats: Signal<Local, Bits<32>>,
    pay_end: Signal<Local, Bits<32>>,
    l_first: Signal<Local, Bits<8>>,
    l_take: Signal<Local, Bit>,
    pay_fault: Signal<Local, Bit>,
    rd_fault: Signal<Local, Bit>,
    ext_take: Signal<Local, Bit>,
    c_on_hi: Constant<Bits<48>>,
    c_ring_hi: Constant<Bits<4>>,
    c_pay_hi: Constant<Bits<2>>,
    c_lane: Constant<Bits<6>>,
    c_lo16: Constant<Bits<32>>,
    c_zero16: Constant<Bits<16>>,
    c_area_end: Constant<Bits<32>>,
    c_lanes: Constant<Bits<32>>,
    c_shift: Constant<Bits<32>>,
    c_zero32: Constant<Bits<32>>,
    c_zero512: Constant<Bits<512>>,
    c_one32: Constant<Bits<32>>,
    c_two32: Constant<Bits<32>>,
    c_one8: Constant<Bits<8>>,
    c_at0: Constant<Bits<16>>,
    c_at6: Constant<Bits<16>>,
    c_at8: Constant<Bits<16>>,
    c_at12: Constant<Bits<16>>,
    c_at14: Constant<Bits<16>>,
    c_at16: Constant<Bits<16>>,
}

fn k<const M: usize>(v: u64) -> Constant<Bits<M>> {
    Constant::new(v.into())
}

impl<const W: usize, const B: usize> TxPush<W, B> {
    /// A fresh block (ports unconnected: use [`TxPush::top_level`] for Verilog).
    pub fn new() -> Self {
        assert!(
            B == 8 * W && (W == 8 || W == 64),
            "the on-chip TX memory is read 8 or 64 bytes a beat (the widths generated and tested), with B = 8 W bits"
        );
        let lane = u64::from(onchip::PAYLOAD_LANE);
        const _: () = assert!(onchip::RING_ENTRIES as usize == RING_WORDS);
        const _: () = assert!(onchip::PAYLOAD_BYTES as usize == 64 * PAYLOAD_WORDS);
        const _: () = assert!(onchip::RING_OFFSET == 0x8000 && onchip::PAYLOAD_OFFSET == 0xc000);
        Self {
            clock: Signal::default(),
            reset: Signal::default(),
            s_push_valid: Signal::default(),
            s_push_word: Signal::default(),
            s_push_data: Signal::default(),
            s_push_keep: Signal::default(),
            s_rd_valid: Signal::default(),
            s_rd_ready: Signal::default(),
            s_rd_addr: Signal::default(),
            s_rd_len: Signal::default(),
            m_rdr_valid: Signal::default(),
            m_rdr_data: Signal::default(),
            m_dma_rd_valid: Signal::default(),
            m_dma_rd_ready: Signal::default(),
            m_dma_rd_addr: Signal::default(),
            m_dma_rd_len: Signal::default(),
            s_dma_rd_valid: Signal::default(),
            s_dma_rd_data: Signal::default(),
            s_pay_valid: Signal::default(),
            s_pay_ready: Signal::default(),
            s_pay_addr: Signal::default(),
            s_pay_len: Signal::default(),
            m_payr_valid: Signal::default(),
            m_payr_ready: Signal::default(),
            m_payr_data: Signal::default(),
            m_dma_pay_valid: Signal::default(),
            m_dma_pay_ready: Signal::default(),
            m_dma_pay_addr: Signal::default(),
            m_dma_pay_len: Signal::default(),
            s_dma_pay_valid: Signal::default(),
            s_dma_pay_ready: Signal::default(),
            s_dma_pay_data: Signal::default(),
            faults: Signal::default(),
            ring: WideRam::default(),
            rdg: ReadGather::new(),
            l_sub: DFF::default(),
            word_sh: Signal::default(),
            narrow: Signal::default(),
            c_sub0: k(lane / W as u64),
            c_max_sub: k((64 / W - 1) as u64),
            c_one16: k(1),
            c_bshift: k(u64::from(W.trailing_zeros() + 3)),
            c_zero_b: Constant::new(Bits::default()),
            pay: WideRam::default(),
            rd_due: DFF::default(),
            l_rd: DFF::default(),
            l_rd_ok: DFF::default(),
            issued: DFF::default(),
            taken: DFF::default(),
            q: LutFifo::default(),
            head_due: Signal::default(),
            start: Signal::default(),
            enq: Signal::default(),
            l_busy: DFF::default(),
            l_word: DFF::default(),
            l_left: DFF::default(),
            l_ok: DFF::default(),
            l_have: DFF::default(),
            n_faults: DFF::default(),
            rd_on: Signal::default(),
            rd_in: Signal::default(),
            rd_go: Signal::default(),
            rd_ext: Signal::default(),
            pay_on: Signal::default(),
            pay_in: Signal::default(),
            pay_go: Signal::default(),
            pay_ext: Signal::default(),
            pay_beats: Signal::default(),
            pay_end: Signal::default(),
            l_first: Signal::default(),
            l_take: Signal::default(),
            pay_fault: Signal::default(),
            rd_fault: Signal::default(),
            ext_take: Signal::default(),
            c_on_hi: k(onchip::IOVA >> 16),
            c_ring_hi: k(u64::from(onchip::RING_OFFSET >> 12)),
            c_pay_hi: k(u64::from(onchip::PAYLOAD_OFFSET >> 14)),
            c_lane: k(u64::from(onchip::PAYLOAD_LANE)),
            c_lo16: k(0xffff),
            c_zero16: k(0),
            c_area_end: k(u64::from(onchip::PAYLOAD_OFFSET + onchip::PAYLOAD_BYTES)),
            c_lanes: k((crate::data_framer::payload_lane(W) + W - 1) as u64),
            c_shift: k(u64::from(W.trailing_zeros())),
            c_zero32: k(0),
            c_zero512: Constant::new(Bits::default()),
            c_one32: k(1),
            c_two32: k(2),
            c_one8: k(1),
            c_at0: k(0),
            c_at6: k(6),
            c_at8: k(8),
            c_at12: k(12),
            c_at14: k(14),
            c_at16: k(16),
        }
    }

    /// The block as a top-level module: every input connected, for Verilog generation.
    pub fn top_level() -> Self {
        let mut uut = Self::new();
        uut.clock.connect();
        uut.reset.connect();
        uut.s_push_valid.connect();
        uut.s_push_word.connect();
        uut.s_push_data.connect();
        uut.s_push_keep.connect();
        uut.s_rd_valid.connect();
        uut.s_rd_addr.connect();
        uut.s_rd_len.connect();
        uut.m_dma_rd_ready.connect();
        uut.s_dma_rd_valid.connect();
        uut.s_dma_rd_data.connect();
        uut.s_pay_valid.connect();
        uut.s_pay_addr.connect();
        uut.s_pay_len.connect();
        uut.m_payr_ready.connect();
        uut.m_dma_pay_ready.connect();
        uut.s_dma_pay_valid.connect();
        uut.s_dma_pay_data.connect();
        uut.connect_all();
        uut
    }
}

impl<const W: usize, const B: usize> Default for TxPush<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> core::fmt::Debug for TxPush<W, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TxPush")
            .field("bytes_per_beat", &W)
            .finish_non_exhaustive()
    }
}

impl<const W: usize, const B: usize> Logic for TxPush<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, rd_due, l_rd, l_rd_ok, issued, taken, l_busy, l_word, l_left, l_ok,
            l_have, n_faults, l_sub
        );
        self.rdg.clock.next = self.clock.val();
        self.rdg.reset.next = self.reset.val();
        self.q.clock.next = self.clock.val();
        self.q.reset.next = self.reset.val();
        self.ring.clock.next = self.clock.val();
        self.pay.clock.next = self.clock.val();
        // Pushes: BAR0 0x8000-0x8fff into the ring area, 0xc000-0xffff into the payload area.
        self.ring.write_address.next = self
            .s_push_word
            .val()
            .get_bits::<6>(self.c_at0.val().index());
        self.ring.write_data.next = self.s_push_data.val();
        self.ring.write_keep.next = self.s_push_keep.val();
        self.ring.write_enable.next = self.s_push_valid.val()
            & (self
                .s_push_word
                .val()
                .get_bits::<4>(self.c_at6.val().index())
                == self.c_ring_hi.val());
        self.pay.write_address.next = self
            .s_push_word
            .val()
            .get_bits::<8>(self.c_at0.val().index());
        self.pay.write_data.next = self.s_push_data.val();
        self.pay.write_keep.next = self.s_push_keep.val();
        self.pay.write_enable.next = self.s_push_valid.val()
            & (self
                .s_push_word
                .val()
                .get_bits::<2>(self.c_at8.val().index())
                == self.c_pay_hi.val());

        // Descriptor reads: on chip when no host read is due, else to host memory.
        self.rd_on.next = self
            .s_rd_addr
            .val()
            .get_bits::<48>(self.c_at16.val().index())
            == self.c_on_hi.val();
        self.rd_in.next = self
            .s_rd_addr
            .val()
            .get_bits::<4>(self.c_at12.val().index())
            == self.c_ring_hi.val();
        // (A host read goes out while the gatherer can count it.)
        self.m_dma_rd_valid.next =
            self.s_rd_valid.val() & !self.rd_on.val() & self.rdg.req_room.val();
        self.m_dma_rd_addr.next = self.s_rd_addr.val();
        self.m_dma_rd_len.next = self.s_rd_len.val();
        self.s_rd_ready.next = self.m_dma_rd_ready.val() & self.rdg.req_room.val();
        if self.rd_on.val() {
            self.s_rd_ready.next = self.rd_due.q.val() == self.c_zero32.val();
        }
        self.rd_go.next = self.s_rd_valid.val() & self.rd_on.val() & self.s_rd_ready.val();
        self.rd_ext.next = self.m_dma_rd_valid.val() & self.m_dma_rd_ready.val();
        self.rdg.req_fire.next = self.rd_ext.val();
        self.rdg.req_len.next = self.s_rd_len.val();
        self.rdg.s_valid.next = self.s_dma_rd_valid.val();
        self.rdg.s_data.next = self.s_dma_rd_data.val();
        self.ring.read_address.next = self.s_rd_addr.val().get_bits::<6>(self.c_at6.val().index());
        self.l_rd.d.next = self.rd_go.val();
        self.l_rd_ok.d.next = self.rd_in.val();
        self.m_rdr_valid.next = self.l_rd.q.val() | self.rdg.m_valid.val();
        self.m_rdr_data.next = self.rdg.m_data.val();
        if self.l_rd.q.val() {
            self.m_rdr_data.next = self.c_zero512.val();
            if self.l_rd_ok.q.val() {
                self.m_rdr_data.next = self.ring.read_data.val();
            }
        }
        self.rd_due.d.next = self.rd_due.q.val();
        if self.rd_ext.val() & !self.rdg.m_valid.val() {
            self.rd_due.d.next = self.rd_due.q.val() + self.c_one32.val();
        }
        if !self.rd_ext.val() & self.rdg.m_valid.val() {
            self.rd_due.d.next = self.rd_due.q.val() - self.c_one32.val();
        }

        // Payload reads: on chip into the queue, else to host memory.
        self.pay_on.next = self
            .s_pay_addr
            .val()
            .get_bits::<48>(self.c_at16.val().index())
            == self.c_on_hi.val();
        // (The length's top 16 bits are checked zero, so the sum cannot wrap.)
        self.pay_end.next = (self
            .s_pay_addr
            .val()
            .get_bits::<32>(self.c_at0.val().index())
            & self.c_lo16.val())
            + self.s_pay_len.val();
        self.l_first.next = self
            .s_pay_addr
            .val()
            .get_bits::<8>(self.c_at6.val().index());
        self.pay_in.next = (self
            .s_pay_addr
            .val()
            .get_bits::<2>(self.c_at14.val().index())
            == self.c_pay_hi.val())
            & (self
                .s_pay_addr
                .val()
                .get_bits::<6>(self.c_at0.val().index())
                == self.c_lane.val())
            & (self
                .s_pay_len
                .val()
                .get_bits::<16>(self.c_at16.val().index())
                == self.c_zero16.val())
            & (self.pay_end.val() <= self.c_area_end.val());
        self.pay_beats.next = (self.s_pay_len.val() + self.c_lanes.val()) >> self.c_shift.val();
        self.m_dma_pay_valid.next = self.s_pay_valid.val() & !self.pay_on.val();
        self.m_dma_pay_addr.next = self.s_pay_addr.val();
        self.m_dma_pay_len.next = self.s_pay_len.val();
        self.s_pay_ready.next = self.m_dma_pay_ready.val();
        if self.pay_on.val() {
            self.s_pay_ready.next = !self.q.full.val();
        }
        self.pay_go.next = self.s_pay_valid.val() & self.pay_on.val() & self.s_pay_ready.val();
        self.pay_ext.next = self.m_dma_pay_valid.val() & self.m_dma_pay_ready.val();
        // The queue: an on-chip read with beats to answer joins it, marked with the host beats
        // requested before it.
        self.enq.next = self.pay_go.val() & (self.pay_beats.val() != self.c_zero32.val());
        self.q.din.next.mark = self.issued.q.val();
        self.q.din.next.first = self.l_first.val();
        self.q.din.next.beats = self.pay_beats.val();
        self.q.din.next.ok = self.pay_in.val();
        self.q.push.next = self.enq.val();
        self.head_due.next = self.q.valid.val() & (self.q.dout.val().mark == self.taken.q.val());
        self.start.next = self.head_due.val() & !self.l_busy.q.val();
        self.q.ready.next = self.start.val();
        // Beats out: the on-chip stream's while it runs, else host memory's unless the
        // queue's head comes first.
        self.m_payr_valid.next = self.s_dma_pay_valid.val() & !self.head_due.val();
        self.m_payr_data.next = self.s_dma_pay_data.val();
        self.s_dma_pay_ready.next = self.m_payr_ready.val() & !self.head_due.val();
        // The on-chip beat: the slice of the word read that the stream is at.
        self.word_sh.next = self.pay.read_data.val() >> (self.l_sub.q.val() << self.c_bshift.val());
        self.narrow.next = self.word_sh.val().get_bits::<B>(self.c_at0.val().index());
        if self.l_busy.q.val() {
            self.m_payr_valid.next = self.l_have.q.val();
            self.m_payr_data.next = self.c_zero_b.val();
            if self.l_ok.q.val() {
                self.m_payr_data.next = self.narrow.val();
            }
            self.s_dma_pay_ready.next = false;
        }
        self.l_take.next = self.l_busy.q.val() & self.l_have.q.val() & self.m_payr_ready.val();
        self.ext_take.next = self.s_dma_pay_valid.val() & self.s_dma_pay_ready.val();
        // The payload area's read: the word shown now, the next one once its last beat is
        // taken.
        self.pay.read_address.next = self.l_word.q.val();
        if self.l_take.val() {
            self.l_sub.d.next = self.l_sub.q.val() + self.c_one16.val();
            if self.l_sub.q.val() == self.c_max_sub.val() {
                self.l_sub.d.next = self.c_zero16.val();
                self.pay.read_address.next = self.l_word.q.val() + self.c_one8.val();
                self.l_word.d.next = self.l_word.q.val() + self.c_one8.val();
            }
            self.l_left.d.next = self.l_left.q.val() - self.c_one32.val();
            if self.l_left.q.val() == self.c_one32.val() {
                self.l_busy.d.next = false;
                self.l_have.d.next = false;
            }
        }
        if self.start.val() {
            self.pay.read_address.next = self.q.dout.val().first;
            self.l_word.d.next = self.q.dout.val().first;
            self.l_sub.d.next = self.c_sub0.val();
            self.l_left.d.next = self.q.dout.val().beats;
            self.l_ok.d.next = self.q.dout.val().ok;
            self.l_busy.d.next = true;
            self.l_have.d.next = true;
        }
        self.pay_fault.next = self.pay_go.val() & !self.pay_in.val();
        self.rd_fault.next = self.rd_go.val() & !self.rd_in.val();
        if self.pay_fault.val() | self.rd_fault.val() {
            self.n_faults.d.next = self.n_faults.q.val() + self.c_one32.val();
            if self.pay_fault.val() & self.rd_fault.val() {
                self.n_faults.d.next = self.n_faults.q.val() + self.c_two32.val();
            }
        }
        if self.pay_ext.val() {
            self.issued.d.next = self.issued.q.val() + self.pay_beats.val();
        }
        if self.ext_take.val() {
            self.taken.d.next = self.taken.q.val() + self.c_one32.val();
        }
        self.faults.next = self.n_faults.q.val();
        if self.reset.val() {
            self.rd_due.d.next = self.c_zero32.val();
            self.l_rd.d.next = false;
            self.issued.d.next = self.c_zero32.val();
            self.taken.d.next = self.c_zero32.val();
            self.l_busy.d.next = false;
            self.l_have.d.next = false;
            self.n_faults.d.next = self.c_zero32.val();
        }
    }
}
