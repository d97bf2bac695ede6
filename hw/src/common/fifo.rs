//! `Fifo2`: a two-entry synchronous FIFO, the output buffer of the parser's streams.
//!
//! ```text
//!            +---------------------------+
//!  push ---->| slot0 | slot1  (wr/rd ptr)|----> valid, dout
//!  din  ---->|  count: 0..=2             |<---- ready
//!            +---------------------------+----> full (registered count == 2)
//! ```
//!
//! Two slots are enough for full throughput: with `ready` held high the count never reaches 2
//! (a push and a pop in the same cycle), so `full`, which comes from a register only, never
//! stalls the producer; under back-pressure it fills and stops the producer without a
//! combinational path from `ready` to the producer's `ready`. Pushing while `full` is a
//! caller bug (the parser never does); the entry would be lost, not corrupt the other.

use crate::hdl::*;

/// A two-entry FIFO of any synthesizable type.
#[derive(LogicBlock)]
pub struct Fifo2<T: Synth> {
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
    /// Both slots hold entries (from registers only).
    pub full: Signal<Out, Bit>,
    slot0: DFF<T>,
    slot1: DFF<T>,
    wr: DFF<Bit>,
    rd: DFF<Bit>,
    count: DFF<Bits<2>>,
    pop: Signal<Local, Bit>,
    c_zero: Constant<Bits<2>>,
    c_one: Constant<Bits<2>>,
    c_two: Constant<Bits<2>>,
}

impl<T: Synth> Default for Fifo2<T> {
    fn default() -> Self {
        Self {
            clock: Signal::default(),
            reset: Signal::default(),
            push: Signal::default(),
            din: Signal::default(),
            ready: Signal::default(),
            valid: Signal::default(),
            dout: Signal::default(),
            full: Signal::default(),
            slot0: DFF::default(),
            slot1: DFF::default(),
            wr: DFF::default(),
            rd: DFF::default(),
            count: DFF::default(),
            pop: Signal::default(),
            c_zero: Constant::new(0u64.into()),
            c_one: Constant::new(1u64.into()),
            c_two: Constant::new(2u64.into()),
        }
    }
}

impl<T: Synth> core::fmt::Debug for Fifo2<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Fifo2")
            .field("count", &self.count.q.val())
            .finish_non_exhaustive()
    }
}

impl<T: Synth> Logic for Fifo2<T> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, slot0, slot1, wr, rd, count);
        self.valid.next = self.count.q.val() != self.c_zero.val();
        self.full.next = self.count.q.val() == self.c_two.val();
        self.pop.next = (self.count.q.val() != self.c_zero.val()) & self.ready.val();
        self.dout.next = self.slot0.q.val();
        if self.rd.q.val() {
            self.dout.next = self.slot1.q.val();
        }
        if self.push.val() {
            self.wr.d.next = !self.wr.q.val();
            if self.wr.q.val() {
                self.slot1.d.next = self.din.val();
            } else {
                self.slot0.d.next = self.din.val();
            }
        }
        if self.pop.val() {
            self.rd.d.next = !self.rd.q.val();
        }
        if self.push.val() & !self.pop.val() {
            self.count.d.next = self.count.q.val() + self.c_one.val();
        }
        if self.pop.val() & !self.push.val() {
            self.count.d.next = self.count.q.val() - self.c_one.val();
        }
        if self.reset.val() {
            self.wr.d.next = false;
            self.rd.d.next = false;
            self.count.d.next = self.c_zero.val();
        }
    }
}
