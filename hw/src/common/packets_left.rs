//! `PacketsLeft`: the SRPT key of the bucketed queues, `policy::bucket::packets_left` in
//! hardware. The packets of `max_payload` bytes that `bytes` make, rounded up and clamped to
//! the last bucket, from a radix-4 divider: `done` rises [`DIV_CYCLES`] edges after the edge
//! that takes `start`.
//!
//! ```text
//!  start, bytes, max_payload ─► x = bytes - 1 ─► x >> 10 ≥ mp? (clamp)
//!                               remainder = x >> 10, then two bits of x[9:0] a cycle:
//!                               digit = how many of mp, 2 mp, 3 mp fit ─► q
//!  key = 0 for 0 bytes, else q + 1 (at most the last bucket)
//! ```
//!
//! Rounding up is `(bytes - 1) / mp + 1`, which cannot overflow. The top 22 bits of the
//! dividend are the first partial remainder: when they reach `mp`, the quotient has more
//! than 10 bits and the key is the last bucket. Otherwise the remainder stays below `mp`
//! and each step shifts in two bits, so `4 mp` must fit 32 bits: `max_payload` below 2^30
//! (the driver allows at most 65,459). A `max_payload` of 0 is taken as 1.

#[cfg(test)]
mod tests;

use crate::bucket_queue::KEY_BITS;
use crate::hdl::*;

// The divider takes the key's bits two at a time.
const _: () = assert!(KEY_BITS.is_multiple_of(2));

/// Edges from the one that takes `start` to the one after which `done` is high.
pub const DIV_CYCLES: usize = KEY_BITS / 2;

fn k<const M: usize>(v: u64) -> Constant<Bits<M>> {
    Constant::new(v.into())
}

/// The key divider.
#[derive(LogicBlock)]
pub struct PacketsLeft {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: no key is being computed.
    pub reset: Signal<In, Bit>,
    /// Take `bytes` and `max_payload` at this edge (a computation under way starts over).
    pub start: Signal<In, Bit>,
    /// The bytes left.
    pub bytes: Signal<In, Bits<32>>,
    /// Payload bytes of a full packet.
    pub max_payload: Signal<In, Bits<32>>,
    /// `key` holds the last start's answer (from a register; low while computing).
    pub done: Signal<Out, Bit>,
    /// The packets left, at most the last bucket.
    pub key: Signal<Out, Bits<KEY_BITS>>,
    mp: DFF<Bits<32>>,
    mp2: DFF<Bits<32>>,
    mp3: DFF<Bits<32>>,
    r: DFF<Bits<32>>,
    lo: DFF<Bits<KEY_BITS>>,
    quo: DFF<Bits<KEY_BITS>>,
    sat: DFF<Bit>,
    zero: DFF<Bit>,
    n: DFF<Bits<4>>,
    busy: DFF<Bit>,
    fin: DFF<Bit>,
    m: Signal<Local, Bits<32>>,
    x: Signal<Local, Bits<32>>,
    r4: Signal<Local, Bits<32>>,
    c_zero32: Constant<Bits<32>>,
    c_one32: Constant<Bits<32>>,
    c_two32: Constant<Bits<32>>,
    c_shift: Constant<Bits<32>>,
    c_zero_k: Constant<Bits<KEY_BITS>>,
    c_one_k: Constant<Bits<KEY_BITS>>,
    c_two_k: Constant<Bits<KEY_BITS>>,
    c_three_k: Constant<Bits<KEY_BITS>>,
    c_last_k: Constant<Bits<KEY_BITS>>,
    c_top_k: Constant<Bits<KEY_BITS>>,
    c_next_k: Constant<Bits<KEY_BITS>>,
    c_zero4: Constant<Bits<4>>,
    c_one4: Constant<Bits<4>>,
    c_last_step: Constant<Bits<4>>,
}

impl Default for PacketsLeft {
    fn default() -> Self {
        Self {
            clock: Signal::default(),
            reset: Signal::default(),
            start: Signal::default(),
            bytes: Signal::default(),
            max_payload: Signal::default(),
            done: Signal::default(),
            key: Signal::default(),
            mp: DFF::default(),
            mp2: DFF::default(),
            mp3: DFF::default(),
            r: DFF::default(),
            lo: DFF::default(),
            quo: DFF::default(),
            sat: DFF::default(),
            zero: DFF::default(),
            n: DFF::default(),
            busy: DFF::default(),
            fin: DFF::default(),
            m: Signal::default(),
            x: Signal::default(),
            r4: Signal::default(),
            c_zero32: k(0),
            c_one32: k(1),
            c_two32: k(2),
            c_shift: k(KEY_BITS as u64),
            c_zero_k: k(0),
            c_one_k: k(1),
            c_two_k: k(2),
            c_three_k: k(3),
            c_last_k: k((1 << KEY_BITS) - 1),
            c_top_k: k(1 << (KEY_BITS - 1)),
            c_next_k: k(1 << (KEY_BITS - 2)),
            c_zero4: k(0),
            c_one4: k(1),
            c_last_step: k((DIV_CYCLES - 1) as u64),
        }
    }
}

impl PacketsLeft {
    /// A divider as the top level of a design: every input driven from outside.
    pub fn top_level() -> Self {
        let mut uut = Self::default();
        uut.clock.connect();
        uut.reset.connect();
        uut.start.connect();
        uut.bytes.connect();
        uut.max_payload.connect();
        uut.connect_all();
        uut
    }
}

impl core::fmt::Debug for PacketsLeft {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PacketsLeft").finish_non_exhaustive()
    }
}

impl Logic for PacketsLeft {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, mp, mp2, mp3, r, lo, quo, sat, zero, n, busy, fin
        );
        self.done.next = self.fin.q.val();
        self.key.next = self.quo.q.val() + self.c_one_k.val();
        if self.sat.q.val() | (self.quo.q.val() == self.c_last_k.val()) {
            self.key.next = self.c_last_k.val();
        }
        if self.zero.q.val() {
            self.key.next = self.c_zero_k.val();
        }
        // The dividend, `bytes - 1` (0 bytes is key 0 whatever it divides to).
        self.m.next = self.max_payload.val();
        if self.max_payload.val() == self.c_zero32.val() {
            self.m.next = self.c_one32.val();
        }
        self.x.next = self.bytes.val() - self.c_one32.val();
        // One radix-4 step: the next two dividend bits shifted in, then the largest multiple
        // of `mp` that fits taken off.
        self.r4.next = self.r.q.val() << self.c_two32.val();
        if (self.lo.q.val() & self.c_top_k.val()) != self.c_zero_k.val() {
            self.r4.next = self.r4.val() | self.c_two32.val();
        }
        if (self.lo.q.val() & self.c_next_k.val()) != self.c_zero_k.val() {
            self.r4.next = self.r4.val() | self.c_one32.val();
        }
        if self.busy.q.val() {
            self.quo.d.next = self.quo.q.val() << self.c_two_k.val();
            self.r.d.next = self.r4.val();
            if self.r4.val() >= self.mp3.q.val() {
                self.r.d.next = self.r4.val() - self.mp3.q.val();
                self.quo.d.next = (self.quo.q.val() << self.c_two_k.val()) | self.c_three_k.val();
            } else if self.r4.val() >= self.mp2.q.val() {
                self.r.d.next = self.r4.val() - self.mp2.q.val();
                self.quo.d.next = (self.quo.q.val() << self.c_two_k.val()) | self.c_two_k.val();
            } else if self.r4.val() >= self.mp.q.val() {
                self.r.d.next = self.r4.val() - self.mp.q.val();
                self.quo.d.next = (self.quo.q.val() << self.c_two_k.val()) | self.c_one_k.val();
            }
            self.lo.d.next = self.lo.q.val() << self.c_two_k.val();
            self.n.d.next = self.n.q.val() + self.c_one4.val();
            if self.n.q.val() == self.c_last_step.val() {
                self.busy.d.next = false;
                self.fin.d.next = true;
            }
        }
        if self.start.val() {
            self.mp.d.next = self.m.val();
            self.mp2.d.next = self.m.val() << self.c_one32.val();
            self.mp3.d.next = (self.m.val() << self.c_one32.val()) + self.m.val();
            self.r.d.next = self.x.val() >> self.c_shift.val();
            self.lo.d.next = self.x.val().get_bits::<KEY_BITS>(0);
            self.sat.d.next = (self.x.val() >> self.c_shift.val()) >= self.m.val();
            self.zero.d.next = self.bytes.val() == self.c_zero32.val();
            self.quo.d.next = self.c_zero_k.val();
            self.n.d.next = self.c_zero4.val();
            self.busy.d.next = true;
            self.fin.d.next = false;
        }
        if self.reset.val() {
            self.busy.d.next = false;
            self.fin.d.next = false;
        }
    }
}
