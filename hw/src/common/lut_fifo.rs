//! `LutFifo`: a synchronous FIFO of `2^N` entries in distributed (LUT) RAM, for queues too deep
//! for flops and too shallow for block RAM: the grant generator's event queue.
//!
//! ```text
//!  push, din ──► LutRam[wr] ──► dout = LutRam[rd] (the head, read at once) ──► valid, dout
//!                 count: 0..=2^N (full when 2^N, from a register)        ◄── ready
//! ```
//!
//! The head is the RAM's combinational read of the read pointer, so it shows in the cycle
//! after its push, as with flops. `valid` and `full` come from the count register only: no
//! combinational path runs from `ready` to the producer, or from `push` to the consumer.
//! Pushing while `full` is a caller bug: the entry is dropped, the others are kept.

use crate::hdl::*;
use crate::lutram::LutRam;

/// A FIFO of `2^N` entries of `T` (`N` from 1 to 7).
#[derive(LogicBlock)]
pub struct LutFifo<T: Synth, const N: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: empties the FIFO.
    pub reset: Signal<In, Bit>,
    /// Write `din` this cycle (only when not `full`).
    pub push: Signal<In, Bit>,
    /// The entry to write.
    pub din: Signal<In, T>,
    /// The consumer takes `dout` this cycle if `valid`.
    pub ready: Signal<In, Bit>,
    /// An entry is available.
    pub valid: Signal<Out, Bit>,
    /// The oldest entry.
    pub dout: Signal<Out, T>,
    /// Every entry is taken (from registers only).
    pub full: Signal<Out, Bit>,
    ram: LutRam<T, N>,
    wr: DFF<Bits<N>>,
    rd: DFF<Bits<N>>,
    n: DFF<Bits<8>>,
    pop: Signal<Local, Bit>,
    put: Signal<Local, Bit>,
    c_zero: Constant<Bits<8>>,
    c_one: Constant<Bits<8>>,
    c_cap: Constant<Bits<8>>,
    c_step: Constant<Bits<N>>,
    c_zn: Constant<Bits<N>>,
}

impl<T: Synth, const N: usize> Default for LutFifo<T, N> {
    fn default() -> Self {
        assert!((1..=7).contains(&N), "LutFifo<_, {N}>: 1 to 7 address bits");
        Self {
            clock: Signal::default(),
            reset: Signal::default(),
            push: Signal::default(),
            din: Signal::default(),
            ready: Signal::default(),
            valid: Signal::default(),
            dout: Signal::default(),
            full: Signal::default(),
            ram: LutRam::default(),
            wr: DFF::default(),
            rd: DFF::default(),
            n: DFF::default(),
            pop: Signal::default(),
            put: Signal::default(),
            c_zero: Constant::new(0u64.into()),
            c_one: Constant::new(1u64.into()),
            c_cap: Constant::new((1u64 << N).into()),
            c_step: Constant::new(1u64.into()),
            c_zn: Constant::new(0u64.into()),
        }
    }
}

impl<T: Synth, const N: usize> core::fmt::Debug for LutFifo<T, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LutFifo")
            .field("count", &self.n.q.val())
            .finish_non_exhaustive()
    }
}

impl<T: Synth, const N: usize> Logic for LutFifo<T, N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wr, rd, n);
        self.ram.clock.next = self.clock.val();
        self.valid.next = self.n.q.val() != self.c_zero.val();
        self.full.next = self.n.q.val() == self.c_cap.val();
        self.pop.next = (self.n.q.val() != self.c_zero.val()) & self.ready.val();
        self.put.next = self.push.val() & (self.n.q.val() != self.c_cap.val());
        self.ram.read_address.next = self.rd.q.val();
        self.dout.next = self.ram.read_data.val();
        self.ram.write_address.next = self.wr.q.val();
        self.ram.write_data.next = self.din.val();
        self.ram.write_enable.next = self.put.val();
        if self.put.val() {
            self.wr.d.next = self.wr.q.val() + self.c_step.val();
        }
        if self.pop.val() {
            self.rd.d.next = self.rd.q.val() + self.c_step.val();
        }
        if self.put.val() & !self.pop.val() {
            self.n.d.next = self.n.q.val() + self.c_one.val();
        }
        if self.pop.val() & !self.put.val() {
            self.n.d.next = self.n.q.val() - self.c_one.val();
        }
        if self.reset.val() {
            self.wr.d.next = self.c_zn.val();
            self.rd.d.next = self.c_zn.val();
            self.n.d.next = self.c_zero.val();
        }
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use crate::bench::Rng;
    use std::collections::VecDeque;

    type F = LutFifo<Bits<12>, 3>;

    fn half(f: &mut F, high: bool) {
        clock_half(f, |f| &mut f.clock, high);
    }

    /// Random pushes and pops against a `VecDeque`: order, count, `full` and `valid` every
    /// cycle, through fill, drain and wrap, and a reset in the middle.
    #[test]
    fn lut_fifo__keeps_order_through_fill_drain_and_reset() {
        let mut f = F::default();
        f.clock.connect();
        f.reset.connect();
        f.push.connect();
        f.din.connect();
        f.ready.connect();
        f.connect_all();
        let mut rng = Rng::new(0xF1F0);
        let mut model: VecDeque<u64> = VecDeque::new();
        let (mut next, mut popped, mut fulls) = (0u64, 0u64, 0u64);
        for cycle in 0..20_000u64 {
            // Phases: filling, draining, mixed.
            let (p_push, p_pop) = match (cycle / 500) % 3 {
                0 => (90, 20),
                1 => (20, 90),
                _ => (60, 60),
            };
            let reset = cycle == 7_777;
            f.reset.next = reset;
            let full = model.len() == 8;
            let push = !full && rng.chance(p_push);
            let ready = rng.chance(p_pop);
            f.push.next = push;
            f.din.next = (next & 0xfff).into();
            f.ready.next = ready;
            half(&mut f, false);
            assert_eq!(f.full.val(), full, "cycle {cycle}: full");
            assert_eq!(f.valid.val(), !model.is_empty(), "cycle {cycle}: valid");
            fulls += u64::from(full);
            if let Some(&head) = model.front() {
                assert_eq!(f.dout.val(), Bits::<12>::from(head), "cycle {cycle}: head");
                if ready {
                    model.pop_front();
                    popped += 1;
                }
            }
            if push {
                model.push_back(next & 0xfff);
                next += 1;
            }
            if reset {
                model.clear();
            }
            half(&mut f, true);
        }
        assert!(
            popped > 5_000 && fulls > 100,
            "{popped} popped, {fulls} full"
        );
    }
}
