//! `SrptScheduler`: the TX SRPT scheduler, `N` per-slot registers and a comparator tree that
//! picks, every cycle, the occupied slot with the fewest bytes left, older first on ties:
//! exactly [`homa_proto::policy::srpt_pick`] over the occupied slots in age order. A slot takes
//! part only while its bit of `s_mask` is set: the TX engine masks the messages that wait for
//! a GRANT, and they keep their age (their place among equals) while they wait.
//!
//! ```text
//!  s_ins_* ---> lowest free slot (rank = occupancy)   +------------------+
//!  s_upd_* ---> slot s: remaining := r, or freed     | N slot registers |--> occupancy
//!                                                     +--------+---------+
//!                     leaves 0..N --> node N+k = better(node 2k, node 2k+1) --> root 2N-2
//!                                                                   --> m_pick_*
//! ```
//!
//! Latency: the tree is combinational from the slot registers, so an insert or update
//! accepted at a clock edge is reflected in `m_pick_*` right after that edge (one cycle from
//! input to pick), and the pick is valid every cycle. `s_ins_ready` and `occupancy` also
//! come from registers only.
//!
//! Age is kept as a rank: each occupied slot's `rank` is the number of occupied slots
//! inserted before it (an insert takes the occupancy; when a slot frees, the younger ones
//! move up by one). Ties on `remaining` go to the lower rank, the same order as insertion
//! order, exact however long the scheduler runs; the comparison costs `S` bits per tree node
//! where a 32-bit insertion counter in serial-number arithmetic cost a subtraction and a
//! compare (a 32-bit carry chain each) per level.
//!
//! What limits `N`: the pick path is `log2 N` levels of a (remaining, rank) comparison plus a
//! 2:1 mux of the winner's key, id and slot; the state is `N` x (49 + `S`) flip-flops; the
//! generated Verilog grows linearly (rust-hdl unrolls the loops into one signal per slot and
//! node). At line rate past 16 slots, or at 250 MHz at all, the tree wants pipeline registers
//! between levels (a cycle of pick latency per stage).
//!
//! Measured at 16 slots (`homa-nic synth`, Yosys `synth_xilinx`): see docs/timing.md; with
//! the 32-bit insertion counter the longest path was 63 cells, 23 of them LUTs (about three
//! times what 250 MHz allows), the four levels' two carry chains each.

use crate::hdl::*;

/// The TX SRPT scheduler with `N` slots (a power of two, `N = 1 << S`) and `NODES = 2N - 1`
/// tree nodes (the `N` leaves, then the `N - 1` comparators, root last).
#[derive(LogicBlock)]
pub struct SrptScheduler<const N: usize, const NODES: usize, const S: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: frees every slot.
    pub reset: Signal<In, Bit>,
    /// Insert a message this cycle (taken when `s_ins_ready`).
    pub s_ins_valid: Signal<In, Bit>,
    /// A slot is free (from registers only).
    pub s_ins_ready: Signal<Out, Bit>,
    /// The inserted message's id.
    pub s_ins_id: Signal<In, Bits<16>>,
    /// The inserted message's bytes left to send.
    pub s_ins_remaining: Signal<In, Bits<32>>,
    /// Update slot `s_upd_slot` this cycle (ignored if the slot is free).
    pub s_upd_valid: Signal<In, Bit>,
    /// The slot to update.
    pub s_upd_slot: Signal<In, Bits<S>>,
    /// The slot's new bytes left (not used when `s_upd_free`).
    pub s_upd_remaining: Signal<In, Bits<32>>,
    /// Free the slot (its message is sent): a bit of its own, so that no compare of
    /// `s_upd_remaining` with 0 sits on the caller's path to the slot and rank registers.
    pub s_upd_free: Signal<In, Bit>,
    /// Bit `j` set: slot `j`, if occupied, takes part in the pick (all ones: every slot).
    pub s_mask: Signal<In, Bits<N>>,
    /// The slot the next insert takes (the lowest free one; meaningful while `s_ins_ready`).
    pub m_free_slot: Signal<Out, Bits<S>>,
    /// Some slot is occupied: `m_pick_*` name the message to send next.
    pub m_pick_valid: Signal<Out, Bit>,
    /// The picked slot.
    pub m_pick_slot: Signal<Out, Bits<S>>,
    /// The picked slot's message id.
    pub m_pick_id: Signal<Out, Bits<16>>,
    /// The picked slot's bytes left.
    pub m_pick_remaining: Signal<Out, Bits<32>>,
    /// The number of occupied slots (from a register).
    pub occupancy: Signal<Out, Bits<16>>,
    valid: [DFF<Bit>; N],
    id: [DFF<Bits<16>>; N],
    rem: [DFF<Bits<32>>; N],
    rank: [DFF<Bits<S>>; N],
    occ: DFF<Bits<16>>,
    free_any: Signal<Local, Bit>,
    free_slot: Signal<Local, Bits<S>>,
    ins_fire: Signal<Local, Bit>,
    upd_hit: Signal<Local, Bit>,
    del_fire: Signal<Local, Bit>,
    del_rank: Signal<Local, Bits<S>>,
    ins_rank: Signal<Local, Bits<S>>,
    nv: [Signal<Local, Bit>; NODES],
    ns: [Signal<Local, Bits<S>>; NODES],
    ni: [Signal<Local, Bits<16>>; NODES],
    nr: [Signal<Local, Bits<32>>; NODES],
    nk: [Signal<Local, Bits<S>>; NODES],
    c_slot: [Constant<Bits<S>>; N],
    c_one_s: Constant<Bits<S>>,
    c_lo: Constant<Bits<8>>,
    c_zero16: Constant<Bits<16>>,
    c_one16: Constant<Bits<16>>,
    c_zero_s: Constant<Bits<S>>,
}

/// The 16-slot instance, generated as `homa_tx_srpt_n16`.
pub type SrptScheduler16 = SrptScheduler<16, 31, 4>;

impl<const N: usize, const NODES: usize, const S: usize> SrptScheduler<N, NODES, S> {
    /// A scheduler with every slot free (after reset). Panics unless `N == 1 << S` and
    /// `NODES == 2 * N - 1`: that is a caller bug in the type's parameters.
    pub fn new() -> Self {
        assert!(
            N >= 2 && N == 1 << S && NODES == 2 * N - 1,
            "SrptScheduler<{N}, {NODES}, {S}>: need N = 1 << S >= 2 and NODES = 2N - 1"
        );
        Self {
            clock: Signal::default(),
            reset: Signal::default(),
            s_ins_valid: Signal::default(),
            s_ins_ready: Signal::default(),
            s_ins_id: Signal::default(),
            s_ins_remaining: Signal::default(),
            s_upd_valid: Signal::default(),
            s_upd_slot: Signal::default(),
            s_upd_remaining: Signal::default(),
            s_upd_free: Signal::default(),
            s_mask: Signal::default(),
            m_free_slot: Signal::default(),
            m_pick_valid: Signal::default(),
            m_pick_slot: Signal::default(),
            m_pick_id: Signal::default(),
            m_pick_remaining: Signal::default(),
            occupancy: Signal::default(),
            valid: std::array::from_fn(|_| DFF::default()),
            id: std::array::from_fn(|_| DFF::default()),
            rem: std::array::from_fn(|_| DFF::default()),
            rank: std::array::from_fn(|_| DFF::default()),
            occ: DFF::default(),
            free_any: Signal::default(),
            free_slot: Signal::default(),
            ins_fire: Signal::default(),
            upd_hit: Signal::default(),
            del_fire: Signal::default(),
            del_rank: Signal::default(),
            ins_rank: Signal::default(),
            nv: std::array::from_fn(|_| Signal::default()),
            ns: std::array::from_fn(|_| Signal::default()),
            ni: std::array::from_fn(|_| Signal::default()),
            nr: std::array::from_fn(|_| Signal::default()),
            nk: std::array::from_fn(|_| Signal::default()),
            c_slot: std::array::from_fn(|j| Constant::new((j as u64).into())),
            c_one_s: Constant::new(1u64.into()),
            c_lo: Constant::new(0u64.into()),
            c_zero16: Constant::new(0u64.into()),
            c_one16: Constant::new(1u64.into()),
            c_zero_s: Constant::new(0u64.into()),
        }
    }
}

impl<const N: usize, const NODES: usize, const S: usize> Default for SrptScheduler<N, NODES, S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize, const NODES: usize, const S: usize> core::fmt::Debug
    for SrptScheduler<N, NODES, S>
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SrptScheduler")
            .field("slots", &N)
            .field("occupancy", &self.occ.q.val())
            .finish_non_exhaustive()
    }
}

impl<const N: usize, const NODES: usize, const S: usize> Logic for SrptScheduler<N, NODES, S> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, occ);
        // The lowest free slot.
        self.free_any.next = false;
        self.free_slot.next = self.c_zero_s.val();
        // (rust-hdl evaluates an index with the loop variables only: `n` carries `N` in.)
        for n in N..(N + 1) {
            for j in 0..N {
                if !self.valid[n - 1 - j].q.val() {
                    self.free_any.next = true;
                    self.free_slot.next = self.c_slot[n - 1 - j].val();
                }
            }
        }
        self.s_ins_ready.next = self.free_any.val();
        self.m_free_slot.next = self.free_slot.val();
        self.ins_fire.next = self.s_ins_valid.val() & self.free_any.val();
        // Whether the updated slot is occupied.
        self.upd_hit.next = false;
        for j in 0..N {
            if self.valid[j].q.val() & (self.s_upd_slot.val() == self.c_slot[j].val()) {
                self.upd_hit.next = true;
            }
        }
        self.del_fire.next = self.s_upd_valid.val() & self.upd_hit.val() & self.s_upd_free.val();
        // Ranks: the freed slot's, and the inserted one's (the occupancy after the free; an
        // insert needs a free slot, so it fits in `S` bits).
        self.del_rank.next = self.rank[0].q.val();
        for j in 0..N {
            if self.s_upd_slot.val() == self.c_slot[j].val() {
                self.del_rank.next = self.rank[j].q.val();
            }
        }
        self.ins_rank.next = self.occ.q.val().get_bits::<S>(self.c_lo.val().index());
        if self.del_fire.val() {
            self.ins_rank.next =
                self.occ.q.val().get_bits::<S>(self.c_lo.val().index()) - self.c_one_s.val();
        }
        // The slots.
        for j in 0..N {
            self.valid[j].clock.next = self.clock.val();
            self.id[j].clock.next = self.clock.val();
            self.rem[j].clock.next = self.clock.val();
            self.rank[j].clock.next = self.clock.val();
            self.valid[j].d.next = self.valid[j].q.val();
            self.id[j].d.next = self.id[j].q.val();
            self.rem[j].d.next = self.rem[j].q.val();
            self.rank[j].d.next = self.rank[j].q.val();
            if self.del_fire.val() & (self.rank[j].q.val() > self.del_rank.val()) {
                self.rank[j].d.next = self.rank[j].q.val() - self.c_one_s.val();
            }
            if self.ins_fire.val() & (self.free_slot.val() == self.c_slot[j].val()) {
                self.valid[j].d.next = true;
                self.id[j].d.next = self.s_ins_id.val();
                self.rem[j].d.next = self.s_ins_remaining.val();
                self.rank[j].d.next = self.ins_rank.val();
            }
            if self.s_upd_valid.val()
                & self.valid[j].q.val()
                & (self.s_upd_slot.val() == self.c_slot[j].val())
            {
                self.rem[j].d.next = self.s_upd_remaining.val();
                if self.s_upd_free.val() {
                    self.valid[j].d.next = false;
                }
            }
            if self.reset.val() {
                self.valid[j].d.next = false;
            }
        }
        if self.ins_fire.val() & !self.del_fire.val() {
            self.occ.d.next = self.occ.q.val() + self.c_one16.val();
        }
        if self.del_fire.val() & !self.ins_fire.val() {
            self.occ.d.next = self.occ.q.val() - self.c_one16.val();
        }
        if self.reset.val() {
            self.occ.d.next = self.c_zero16.val();
        }
        self.occupancy.next = self.occ.q.val();
        // The tree: leaves 0..N are the slots; node N + k is the better of 2k and 2k + 1.
        for j in 0..N {
            self.nv[j].next = self.valid[j].q.val() & self.s_mask.val().get_bit(j);
            self.ns[j].next = self.c_slot[j].val();
            self.ni[j].next = self.id[j].q.val();
            self.nr[j].next = self.rem[j].q.val();
            self.nk[j].next = self.rank[j].q.val();
        }
        for n in N..(N + 1) {
            for k in 0..(N - 1) {
                self.nv[n + k].next = self.nv[2 * k].val() | self.nv[2 * k + 1].val();
                self.ns[n + k].next = self.ns[2 * k + 1].val();
                self.ni[n + k].next = self.ni[2 * k + 1].val();
                self.nr[n + k].next = self.nr[2 * k + 1].val();
                self.nk[n + k].next = self.nk[2 * k + 1].val();
                if self.nv[2 * k].val()
                    & (!self.nv[2 * k + 1].val()
                        | (self.nr[2 * k].val() < self.nr[2 * k + 1].val())
                        | ((self.nr[2 * k].val() == self.nr[2 * k + 1].val())
                            & (self.nk[2 * k].val() < self.nk[2 * k + 1].val())))
                {
                    self.ns[n + k].next = self.ns[2 * k].val();
                    self.ni[n + k].next = self.ni[2 * k].val();
                    self.nr[n + k].next = self.nr[2 * k].val();
                    self.nk[n + k].next = self.nk[2 * k].val();
                }
            }
        }
        for r in (NODES - 1)..NODES {
            self.m_pick_valid.next = self.nv[r].val();
            self.m_pick_slot.next = self.ns[r].val();
            self.m_pick_id.next = self.ni[r].val();
            self.m_pick_remaining.next = self.nr[r].val();
        }
    }
}

#[cfg(test)]
mod tests;
