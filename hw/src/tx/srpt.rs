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
//!        pairs i < j: (remaining, rank) compare --> bt[i][j], bt[j][i] = !bt[i][j]
//!        win[i] = cand[i] & AND_j (!cand[j] | bt[i][j]) --> OR trees --> m_pick_*
//! ```
//!
//! Latency: the pick is combinational from the slot registers, so an insert or update
//! accepted at a clock edge is reflected in `m_pick_*` right after that edge (one cycle from
//! input to pick), and the pick is valid every cycle. `s_ins_ready` and `occupancy` also
//! come from registers only.
//!
//! Age is kept as a rank: each occupied slot's `rank` is the number of occupied slots
//! inserted before it (an insert takes the occupancy; when a slot frees, the younger ones
//! move up by one). Ties on `remaining` go to the lower rank, the same order as insertion
//! order, exact however long the scheduler runs; the comparison costs `S` bits per pair
//! where a 32-bit insertion counter in serial-number arithmetic cost a subtraction and a
//! compare (a 32-bit carry chain each).
//!
//! The pick is a tournament of every pair at once, not a tree: slot `i` wins when every
//! other candidate goes after it. The path is one (remaining, rank) compare, a wide AND and
//! the one-hot's encoding, whatever `N`; a comparator tree was `log2 N` compares, each
//! followed by the mux of the winner's key (11 LUT levels at 16 slots, 4 compares deep).
//! The cost is `N(N-1)/2` comparators: quadratic area, the price of a flat path, fine at
//! 16 slots (the transmit scheduler's active set) and not at hundreds. The state is `N` x
//! (49 + `S`) flip-flops; the generated Verilog grows as `N²` (rust-hdl unrolls the loops
//! into one signal per pair).
//!
//! Measured at 16 slots (`homa-nic synth`, Yosys `synth_xilinx`): see docs/timing.md.

use crate::hdl::*;

/// The TX SRPT scheduler with `N` slots (a power of two, `N = 1 << S`) and `NODES = 2N - 1`
/// tree nodes (the `N` leaves, then the `N - 1` comparators, root last).
#[derive(LogicBlock)]
pub struct SrptScheduler<const N: usize, const NODES: usize, const NN: usize, const S: usize> {
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
    cand: [Signal<Local, Bit>; N],
    bt: [Signal<Local, Bit>; NN],
    win: [Signal<Local, Bit>; N],
    c_slot: [Constant<Bits<S>>; N],
    c_one_s: Constant<Bits<S>>,
    c_zero32: Constant<Bits<32>>,
    c_lo: Constant<Bits<8>>,
    c_zero16: Constant<Bits<16>>,
    c_one16: Constant<Bits<16>>,
    c_zero_s: Constant<Bits<S>>,
}

/// The 16-slot instance, generated as `homa_tx_srpt_n16`.
pub type SrptScheduler16 = SrptScheduler<16, 31, 256, 4>;

impl<const N: usize, const NODES: usize, const NN: usize, const S: usize>
    SrptScheduler<N, NODES, NN, S>
{
    /// A scheduler with every slot free (after reset). Panics unless `N == 1 << S`,
    /// `NODES == 2 * N - 1` and `NN == N * N`: that is a caller bug in the type's parameters.
    pub fn new() -> Self {
        assert!(
            N >= 2 && N == 1 << S && NODES == 2 * N - 1 && NN == N * N,
            "SrptScheduler<{N}, {NODES}, {NN}, {S}>: need N = 1 << S >= 2, NODES = 2N - 1, NN = N²"
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
            cand: std::array::from_fn(|_| Signal::default()),
            bt: std::array::from_fn(|_| Signal::default()),
            win: std::array::from_fn(|_| Signal::default()),
            c_slot: std::array::from_fn(|j| Constant::new((j as u64).into())),
            c_one_s: Constant::new(1u64.into()),
            c_zero32: Constant::new(0u64.into()),
            c_lo: Constant::new(0u64.into()),
            c_zero16: Constant::new(0u64.into()),
            c_one16: Constant::new(1u64.into()),
            c_zero_s: Constant::new(0u64.into()),
        }
    }
}

impl<const N: usize, const NODES: usize, const NN: usize, const S: usize> Default
    for SrptScheduler<N, NODES, NN, S>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize, const NODES: usize, const NN: usize, const S: usize> core::fmt::Debug
    for SrptScheduler<N, NODES, NN, S>
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SrptScheduler")
            .field("slots", &N)
            .field("occupancy", &self.occ.q.val())
            .finish_non_exhaustive()
    }
}

impl<const N: usize, const NODES: usize, const NN: usize, const S: usize> Logic
    for SrptScheduler<N, NODES, NN, S>
{
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
        // The pick: slot i wins when it takes part and goes before every other slot that
        // does. bt[i*N + j]: slot i goes before slot j (fewer bytes left, or as many and
        // older); one compare per pair, the mirror entry is its complement. Ranks are
        // distinct among occupied slots, so this is a total order on them and at most one
        // slot wins.
        for j in 0..N {
            self.cand[j].next = self.valid[j].q.val() & self.s_mask.val().get_bit(j);
        }
        for n in N..(N + 1) {
            for i in 0..N {
                for j in 0..N {
                    if i < j {
                        self.bt[i * n + j].next = (self.rem[i].q.val() < self.rem[j].q.val())
                            | ((self.rem[i].q.val() == self.rem[j].q.val())
                                & (self.rank[i].q.val() < self.rank[j].q.val()));
                    } else if j < i {
                        self.bt[i * n + j].next = !self.bt[j * n + i].val();
                    } else {
                        self.bt[i * n + j].next = true;
                    }
                }
            }
            for i in 0..N {
                self.win[i].next = self.cand[i].val();
                for j in 0..N {
                    if self.cand[j].val() & !self.bt[i * n + j].val() {
                        self.win[i].next = false;
                    }
                }
            }
        }
        // The winner's slot, id and bytes left, through OR trees over the one-hot wins
        // (leaves 0..N; node N + k ORs 2k and 2k + 1; the root is node 2N - 2).
        for j in 0..N {
            self.nv[j].next = self.cand[j].val();
            self.ns[j].next = self.c_zero_s.val();
            self.ni[j].next = self.c_zero16.val();
            self.nr[j].next = self.c_zero32.val();
            if self.win[j].val() {
                self.ns[j].next = self.c_slot[j].val();
                self.ni[j].next = self.id[j].q.val();
                self.nr[j].next = self.rem[j].q.val();
            }
        }
        for n in N..(N + 1) {
            for k in 0..(N - 1) {
                self.nv[n + k].next = self.nv[2 * k].val() | self.nv[2 * k + 1].val();
                self.ns[n + k].next = self.ns[2 * k].val() | self.ns[2 * k + 1].val();
                self.ni[n + k].next = self.ni[2 * k].val() | self.ni[2 * k + 1].val();
                self.nr[n + k].next = self.nr[2 * k].val() | self.nr[2 * k + 1].val();
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
