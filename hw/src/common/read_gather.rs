//! `ReadGather`: a DMA read channel's response beats of `W` bytes gathered into one 64-byte
//! record per request, for the descriptor fetchers, which take a whole record at once
//! (`proto::hostif`: four RX descriptors or one TX descriptor).
//!
//! ```text
//!  request taken (req_fire, req_len) ─► beat counts (LutFifo, 32) ─┐
//!  s_valid, s_data (W bytes, in request order) ─► record (64 B) ◄──┘ ─► m_valid, m_data
//! ```
//!
//! A read of `len` bytes (1 to 64) is answered by `ceil(len / W)` beats, beat `k` holding bytes
//! `W k` to `W k + W - 1`; the record is offered in the cycle of its last beat (that beat goes
//! straight through), with no back-pressure, as the fetchers take responses. `req_room` is low
//! while 32 requests are unanswered (from a register): the channel's owner holds its requests
//! back then, so the counts never overflow, even when a ring restart leaves its old reads to
//! be answered and discarded beside new ones. A response arrives at least a cycle after its
//! request (any DMA engine's latency). At 64 bytes a beat is the record: the counts and the
//! accumulator go unused and synthesis removes them.

use crate::frame_beats::Widen;
use crate::hdl::*;
use crate::lut_fifo::LutFifo;

/// Bytes of the record.
pub const RECORD_BYTES: usize = 64;

/// Address bits of the beat counts (32 requests in flight).
const COUNT_BITS: usize = 5;

/// Beats of the narrowest width (8 bytes) per record.
const MAX_BEATS: usize = 8;

/// Gathers `W`-byte response beats (`B` = 8 `W` bits) into 64-byte records.
#[derive(LogicBlock)]
pub struct ReadGather<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: forgets every request.
    pub reset: Signal<In, Bit>,
    /// A read request is taken this cycle.
    pub req_fire: Signal<In, Bit>,
    /// Its length in bytes (1 to 64).
    pub req_len: Signal<In, Bits<32>>,
    /// Room for another request (from a register).
    pub req_room: Signal<Out, Bit>,
    /// A response beat.
    pub s_valid: Signal<In, Bit>,
    /// Its bytes, lane 0 in bits 7..0.
    pub s_data: Signal<In, Bits<B>>,
    /// A record is complete this cycle.
    pub m_valid: Signal<Out, Bit>,
    /// The record: byte `i` of the read in lane `i`, zero past the read's length.
    pub m_data: Signal<Out, Bits<512>>,
    counts: LutFifo<Bits<8>, COUNT_BITS>,
    /// Beats of the current record so far.
    k: DFF<Bits<8>>,
    acc: DFF<Bits<512>>,
    ext: Widen<B, 512>,
    placed: Signal<Local, Bits<512>>,
    rec: Signal<Local, Bits<512>>,
    last: Signal<Local, Bit>,
    beats_less1: Signal<Local, Bits<32>>,
    c_single: Constant<Bit>,
    c_shift: Constant<Bits<32>>,
    c_max_k: Constant<Bits<32>>,
    c_max_k8: Constant<Bits<8>>,
    c_at0: Constant<Bits<8>>,
    c_j: [Constant<Bits<8>>; MAX_BEATS],
    c_used: [Constant<Bit>; MAX_BEATS],
    c_sh: [Constant<Bits<16>>; MAX_BEATS],
    c_one32: Constant<Bits<32>>,
    c_zero32: Constant<Bits<32>>,
    c_zero8: Constant<Bits<8>>,
    c_one8: Constant<Bits<8>>,
}

/// The gatherer of the 64-bit (small) configuration.
pub type ReadGather64 = ReadGather<8, 64>;

impl<const W: usize, const B: usize> ReadGather<W, B> {
    /// A fresh gatherer (`W` 8 or 64; `B` = 8 `W`).
    pub fn new() -> Self {
        assert!(
            B == 8 * W && (W == 8 || W == 64),
            "a read gatherer is 8 or 64 bytes wide (the widths generated and tested), with B = 8 W bits"
        );
        let per = RECORD_BYTES / W;
        let k8 = |v: usize| -> Constant<Bits<8>> { Constant::new((v as u64).into()) };
        Self {
            clock: Signal::default(),
            reset: Signal::default(),
            req_fire: Signal::default(),
            req_len: Signal::default(),
            req_room: Signal::default(),
            s_valid: Signal::default(),
            s_data: Signal::default(),
            m_valid: Signal::default(),
            m_data: Signal::default(),
            counts: LutFifo::default(),
            k: DFF::default(),
            acc: DFF::default(),
            ext: Widen::default(),
            placed: Signal::default(),
            rec: Signal::default(),
            last: Signal::default(),
            beats_less1: Signal::default(),
            c_single: Constant::new(per == 1),
            c_shift: Constant::new((W.trailing_zeros() as u64).into()),
            c_max_k: Constant::new(((per - 1) as u64).into()),
            c_max_k8: k8(per - 1),
            c_at0: k8(0),
            c_j: std::array::from_fn(k8),
            c_used: std::array::from_fn(|j| Constant::new(j < per)),
            c_sh: std::array::from_fn(|j| Constant::new(((B * j) as u64).into())),
            c_one32: Constant::new(1u64.into()),
            c_zero32: Constant::new(0u64.into()),
            c_zero8: k8(0),
            c_one8: k8(1),
        }
    }

    /// The gatherer as a top-level module: every input connected.
    pub fn top_level() -> Self {
        let mut uut = Self::new();
        uut.clock.connect();
        uut.reset.connect();
        uut.req_fire.connect();
        uut.req_len.connect();
        uut.s_valid.connect();
        uut.s_data.connect();
        uut.connect_all();
        uut
    }
}

impl<const W: usize, const B: usize> Default for ReadGather<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> core::fmt::Debug for ReadGather<W, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ReadGather")
            .field("bytes_per_beat", &W)
            .finish_non_exhaustive()
    }
}

impl<const W: usize, const B: usize> Logic for ReadGather<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, k, acc);
        self.counts.clock.next = self.clock.val();
        self.counts.reset.next = self.reset.val();
        // Each request's last beat number, `ceil(len / W) - 1`, at most the record's.
        self.beats_less1.next = (self.req_len.val() - self.c_one32.val()) >> self.c_shift.val();
        if self.beats_less1.val() > self.c_max_k.val() {
            self.beats_less1.next = self.c_max_k.val();
        }
        if self.req_len.val() == self.c_zero32.val() {
            self.beats_less1.next = self.c_zero32.val();
        }
        self.counts.din.next = self
            .beats_less1
            .val()
            .get_bits::<8>(self.c_at0.val().index());
        self.counts.push.next = self.req_fire.val() & !self.c_single.val();
        self.req_room.next = !self.counts.full.val() | self.c_single.val();
        // The beat at its place in the record.
        self.ext.i.next = self.s_data.val();
        self.placed.next = self.ext.o.val();
        for j in 0..MAX_BEATS {
            if self.c_used[j].val() & (self.k.q.val() == self.c_j[j].val()) {
                self.placed.next = self.ext.o.val() << self.c_sh[j].val();
            }
        }
        self.rec.next = self.acc.q.val() | self.placed.val();
        if self.k.q.val() == self.c_zero8.val() {
            self.rec.next = self.placed.val();
        }
        self.last.next = self.counts.valid.val() & (self.k.q.val() == self.counts.dout.val());
        self.counts.ready.next = self.s_valid.val() & self.last.val() & !self.c_single.val();
        self.m_valid.next = self.s_valid.val() & (self.last.val() | self.c_single.val());
        self.m_data.next = self.rec.val();
        if self.c_single.val() {
            self.m_data.next = self.ext.o.val();
        }
        if self.s_valid.val() & self.counts.valid.val() & !self.c_single.val() {
            if self.last.val() | (self.k.q.val() == self.c_max_k8.val()) {
                self.k.d.next = self.c_zero8.val();
            } else {
                self.k.d.next = self.k.q.val() + self.c_one8.val();
                self.acc.d.next = self.rec.val();
            }
        }
        if self.reset.val() {
            self.k.d.next = self.c_zero8.val();
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(non_snake_case)]
    use super::*;
    use crate::bench::Rng;
    use std::collections::VecDeque;

    /// Requests of random lengths answered in order, after random delays and with gaps, and
    /// stretches with no answers at all (the requests pile up to `req_room`'s limit): every
    /// record must hold exactly its read's bytes, zero above, in the cycle of its last beat.
    fn run<const W: usize, const B: usize>(seed: u64) {
        let mut uut = ReadGather::<W, B>::top_level();
        let mut rng = Rng::new(seed);
        reset_two_cycles(&mut uut, |u| &mut u.clock, |u| &mut u.reset);
        // Reads not yet fully answered: (due cycle, bytes, beats sent).
        let mut out: VecDeque<(u64, Vec<u8>, usize)> = VecDeque::new();
        let (mut records, mut blocked) = (0usize, 0usize);
        for cycle in 0..30_000u64 {
            let quiet = (cycle / 700) % 4 == 3;
            let len = 1 + rng.below(64) as usize;
            let want = rng.chance(40);
            let answer = !quiet && rng.chance(70);
            uut.req_len.next = (len as u64).into();
            uut.s_valid.next = false;
            uut.s_data.next = Bits::default();
            let mut beat_of: Option<bool> = None;
            if answer
                && let Some((due, bytes, sent)) = out.front()
                && *due <= cycle
            {
                let lo = sent * W;
                uut.s_valid.next = true;
                uut.s_data.next = bits_from_le_bytes(&bytes[lo..bytes.len().min(lo + W)]);
                beat_of = Some(lo + W >= bytes.len());
            }
            uut.req_fire.next = false;
            clock_half(&mut uut, |u| &mut u.clock, false);
            let room = uut.req_room.val();
            if W == 64 {
                assert!(room, "cycle {cycle}: one beat a record needs no counts");
            } else {
                assert_eq!(
                    room,
                    out.len() < 32,
                    "cycle {cycle}: room with {} out",
                    out.len()
                );
            }
            blocked += usize::from(!room);
            let fire = want && room;
            uut.req_fire.next = fire;
            clock_half(&mut uut, |u| &mut u.clock, false);
            match beat_of {
                Some(true) => {
                    let (_, bytes, _) = out.pop_front().expect("a read is out");
                    assert!(
                        uut.m_valid.val(),
                        "cycle {cycle}: the last beat completes the record"
                    );
                    let mut want = [0u8; 64];
                    want[..bytes.len()].copy_from_slice(&bytes);
                    assert_eq!(
                        le_bytes_of(uut.m_data.val()),
                        want,
                        "cycle {cycle}: the record"
                    );
                    records += 1;
                }
                Some(false) => {
                    assert!(
                        !uut.m_valid.val(),
                        "cycle {cycle}: a record before its last beat"
                    );
                    out.front_mut().expect("a read is out").2 += 1;
                }
                None => assert!(!uut.m_valid.val(), "cycle {cycle}: a record with no beat"),
            }
            if fire {
                let bytes = (0..len).map(|_| rng.byte()).collect();
                out.push_back((cycle + 1 + rng.below(20), bytes, 0));
            }
            clock_half(&mut uut, |u| &mut u.clock, true);
        }
        assert!(records > 3_000, "{records} records");
        if W < 64 {
            assert!(blocked > 100, "the counts never filled ({blocked} cycles)");
        }
    }

    #[test]
    fn read_gather__records_whole_at_8_and_64_bytes() {
        run::<8, 64>(0x6A7);
        run::<64, 512>(0x6A8);
    }
}
