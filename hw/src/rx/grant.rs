//! `GrantScheduler`: the receiver's grant generator. It tracks the inbound messages that need
//! grants and, after every DATA packet of such a message, takes the same decision as
//! `homa_proto::core`'s `update_grants`: the active set by SRPT with overcommitment and
//! per-peer fairness ([`homa_proto::policy::choose_active`]), the window
//! ([`homa_proto::policy::window`], from a table the driver fills), each active message's
//! target within the `max_incoming` budget ([`homa_proto::policy::grant_target`]) and its
//! scheduled priority by rank ([`homa_proto::policy::sched_priority`]). The grants leave in
//! rank order on `m_grant_*`, one per cycle, for the GRANT framer.
//!
//! ```text
//!  s_evt_* (one DATA: key, length, incoming, new bytes, end)
//!     │   CAM on (peer, id) ─ hit: received += new, granted = max(granted, end)
//!     │                     └ miss: insert in the lowest free slot (age = counter++)
//!     ▼
//!  N slot registers ──► decision pipeline, 14 register stages (below) ──► targets, ranks
//!     ▲                                                                     │
//!     │ granted := target (commit)                                          ▼
//!     └──────────────────────────────── grant queue (per rank) ──► m_grant_* (rank order)
//! ```
//!
//! The decision pipeline, one register stage each (`p<k>_*`):
//! 1. per slot: candidate (`granted < length`), remaining bytes, outstanding bytes (the leaves
//!    of a saturating sum tree, one tree level per stage from here on, then the headroom
//!    `max_incoming - outstanding`);
//! 2. the pairwise matrices: `i` outranks `j` (fewer remaining bytes, then older), same peer;
//! 3. each peer's best candidate ("first"; the others "second");
//! 4. per slot, how many firsts and seconds outrank it (adder trees), and how many firsts;
//! 5. the active set: a first of rank below K, or a second of rank below K minus the firsts
//!    taken;
//! 6. each active message's rank among the active ones, and their number;
//! 7. per rank: the message's state (a one-hot mux), the window, the priority;
//! 8. `received + window` (saturating);
//! 9. the wanted target `min(length, that)` and the bytes it adds, `d`;
//! 10. to 12. the budget as a prefix sum over the ranks, `d_0 + ... + d_r` (saturating,
//!     Kogge-Stone, one level per stage): the headroom left for rank `r` is
//!     `max(headroom - (d_0 + ... + d_{r-1}), 0)`, which equals the serial chain of
//!     `core::grant` (`headroom -= min(d_r, headroom)`) because every `d` is non-negative;
//! 13. each rank's headroom;
//! 14. each rank's target: `want` if `d` fits, else `granted + headroom`.
//!
//! The slot registers do not change while a decision is pending, so each stage holds its
//! final value `k` edges after the event: no stage needs a valid bit, and the decision is
//! exactly the one-cycle decision of before, later. Timing of one event: accepted at edge `t`
//! (slot registers updated), stage 14 final after edge `t + 14`, committed at edge `t + 15`
//! (targets written back, grants queued) if the grant queue holds at most the grant leaving
//! then, first grant on `m_grant_*` in the cycle after. The next event that needs a decision
//! is accepted at the commit edge; one decision every 15 cycles (60 ns at 250 MHz) is twice
//! the rate of full DATA packets at 100 Gb/s (one every 30.8 cycles). Events that need none
//! (a message not tracked that needs no grants, or brings no new bytes) pass at any time, so
//! the unscheduled traffic of short messages is never held up by a decision.
//!
//! What the block leaves to the stage in front of it: duplicate detection (`s_evt_new` is
//! the number of bytes of the packet not received before, as `core`'s range set counts them)
//! and length checks. Messages whose first packet finds every slot taken are counted in
//! `table_full` and get no grants from the hardware. FIFO grants (`grant_fifo_fraction`)
//! are not implemented: configure it as 0 when grants are offloaded.
//!
//! What limits `N`: the decision compares every pair of slots (`N²` comparators of
//! (remaining, age) and of peers) and counts ranks with `3N` adder trees of `N` leaves; area
//! grows as `N²` and the longest path as `log N`. 16 slots is the default; tracking more
//! messages than can be decided on at once needs a second level (messages parked in RAM,
//! promoted into the decision slots), not built yet.

use crate::hdl::*;

/// The largest overcommitment degree (ranks decided per event).
pub const MAX_OVERCOMMIT: usize = 8;

/// Register stages of the decision pipeline: a decision commits `DECISION_STAGES + 1` edges
/// after its event.
pub const DECISION_STAGES: usize = 14;

/// Cycles one decision holds the block: from the edge that takes its event to the edge that
/// commits it, when the next event that needs a decision can be taken.
pub const DECISION_CYCLES: usize = DECISION_STAGES + 1;

/// Slots of [`GrantScheduler16`], the instance the NIC core uses.
pub const SLOTS16: usize = 16;

/// The age counter's value after reset: 256 inserts below the 32-bit wrap, so every run
/// crosses it.
pub const AGE_RESET: u32 = 0xFFFF_FF00;

fn k<const M: usize>(v: u64) -> Constant<Bits<M>> {
    Constant::new(v.into())
}

/// The grant generator with `N` slots (`N = 1 << S`), `NN = N * N` pairwise signals,
/// `T = 2N - 1` nodes in a tree over the slots and `NC = N * T` nodes in the per-slot rank
/// counting trees.
#[derive(LogicBlock)]
pub struct GrantScheduler<
    const N: usize,
    const S: usize,
    const NN: usize,
    const NC: usize,
    const T: usize,
> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: frees every slot and drops queued grants.
    pub reset: Signal<In, Bit>,
    /// Overcommitment degree K (1-8): how many messages are granted at once.
    pub cfg_max_overcommit: Signal<In, Bits<8>>,
    /// The highest scheduled priority level (0-7).
    pub cfg_max_sched_prio: Signal<In, Bits<8>>,
    /// Limit on granted-but-unreceived bytes over all tracked messages.
    pub cfg_max_incoming: Signal<In, Bits<32>>,
    /// The window when 0 messages are active (`policy::window(window, max_incoming, 0)`).
    pub cfg_window_0: Signal<In, Bits<32>>,
    /// The window when 1 message is active.
    pub cfg_window_1: Signal<In, Bits<32>>,
    /// The window when 2 messages are active.
    pub cfg_window_2: Signal<In, Bits<32>>,
    /// The window when 3 messages are active.
    pub cfg_window_3: Signal<In, Bits<32>>,
    /// The window when 4 messages are active.
    pub cfg_window_4: Signal<In, Bits<32>>,
    /// The window when 5 messages are active.
    pub cfg_window_5: Signal<In, Bits<32>>,
    /// The window when 6 messages are active.
    pub cfg_window_6: Signal<In, Bits<32>>,
    /// The window when 7 messages are active.
    pub cfg_window_7: Signal<In, Bits<32>>,
    /// The window when 8 messages are active.
    pub cfg_window_8: Signal<In, Bits<32>>,
    /// A DATA packet's event is offered.
    pub s_evt_valid: Signal<In, Bit>,
    /// The event is taken this cycle.
    pub s_evt_ready: Signal<Out, Bit>,
    /// The sending peer (its IPv4 address; also the fairness key).
    pub s_evt_peer: Signal<In, Bits<32>>,
    /// The RPC id (the sender's id, as on the wire).
    pub s_evt_id: Signal<In, Bits<64>>,
    /// The packet's source port (echoed as the GRANT's destination port).
    pub s_evt_sport: Signal<In, Bits<16>>,
    /// The packet's destination port (echoed as the GRANT's source port).
    pub s_evt_dport: Signal<In, Bits<16>>,
    /// The packet's source MAC address (the GRANT's destination).
    pub s_evt_mac: Signal<In, Bits<48>>,
    /// The message length.
    pub s_evt_length: Signal<In, Bits<32>>,
    /// The DATA header's `incoming` (unscheduled bytes granted by default).
    pub s_evt_incoming: Signal<In, Bits<32>>,
    /// Bytes of this packet not received before.
    pub s_evt_new: Signal<In, Bits<32>>,
    /// The packet's end offset (offset + payload length).
    pub s_evt_end: Signal<In, Bits<32>>,
    /// A GRANT to send.
    pub m_grant_valid: Signal<Out, Bit>,
    /// The GRANT is taken this cycle.
    pub m_grant_ready: Signal<In, Bit>,
    /// The granted message's slot.
    pub m_grant_slot: Signal<Out, Bits<S>>,
    /// The peer to send it to (IPv4 address).
    pub m_grant_peer: Signal<Out, Bits<32>>,
    /// The peer's MAC address.
    pub m_grant_mac: Signal<Out, Bits<48>>,
    /// The RPC id, as it arrived.
    pub m_grant_id: Signal<Out, Bits<64>>,
    /// The GRANT's source port (the DATA's destination port).
    pub m_grant_sport: Signal<Out, Bits<16>>,
    /// The GRANT's destination port (the DATA's source port).
    pub m_grant_dport: Signal<Out, Bits<16>>,
    /// The granted offset.
    pub m_grant_offset: Signal<Out, Bits<32>>,
    /// The priority the sender must use.
    pub m_grant_priority: Signal<Out, Bits<3>>,
    /// Messages tracked now.
    pub messages_tracked: Signal<Out, Bits<32>>,
    /// GRANTs emitted (free-running).
    pub grants_sent: Signal<Out, Bits<32>>,
    /// Messages refused because every slot was taken (free-running).
    pub table_full: Signal<Out, Bits<32>>,

    // Slot state.
    valid: [DFF<Bit>; N],
    peer: [DFF<Bits<32>>; N],
    id: [DFF<Bits<64>>; N],
    sport: [DFF<Bits<16>>; N],
    dport: [DFF<Bits<16>>; N],
    mac: [DFF<Bits<48>>; N],
    len: [DFF<Bits<32>>; N],
    recv: [DFF<Bits<32>>; N],
    granted: [DFF<Bits<32>>; N],
    age: [DFF<Bits<32>>; N],
    // A grant of the slot's message is queued (the slot is not reused until it leaves).
    gq: [DFF<Bit>; N],
    // The grant queue, one entry per rank: a decision's grants leave in rank order.
    rq: [DFF<Bit>; MAX_OVERCOMMIT],
    rq_slot: [DFF<Bits<S>>; MAX_OVERCOMMIT],
    rq_off: [DFF<Bits<32>>; MAX_OVERCOMMIT],
    rq_prio: [DFF<Bits<3>>; MAX_OVERCOMMIT],
    rq_n: DFF<Bits<8>>,
    age_ctr: DFF<Bits<32>>,
    dec_pending: DFF<Bit>,
    // Edges since the pending decision's event, up to `DECISION_STAGES`.
    phase: DFF<Bits<8>>,
    occ: DFF<Bits<32>>,
    n_grants: DFF<Bits<32>>,
    n_full: DFF<Bits<32>>,

    // Event front end.
    hit: [Signal<Local, Bit>; N],
    hit_any: Signal<Local, Bit>,
    free_any: Signal<Local, Bit>,
    free_slot: Signal<Local, Bits<S>>,
    fire: Signal<Local, Bit>,
    needs: Signal<Local, Bit>,
    would_decide: Signal<Local, Bit>,
    insert: Signal<Local, Bit>,
    refuse: Signal<Local, Bit>,
    trigger: Signal<Local, Bit>,
    ins_granted0: Signal<Local, Bits<32>>,
    ins_granted: Signal<Local, Bits<32>>,
    ins_done: Signal<Local, Bit>,
    frees: Signal<Local, Bit>,

    // Decision pipeline (the module doc lists the stages).
    p1_cand: [DFF<Bit>; N],
    p1_rem: [DFF<Bits<32>>; N],
    p_out: [DFF<Bits<32>>; T],
    p_h0: DFF<Bits<32>>,
    p2_beat: [DFF<Bit>; NN],
    p2_same: [DFF<Bit>; NN],
    first: [Signal<Local, Bit>; N],
    p3_first: [DFF<Bit>; N],
    p3_second: [DFF<Bit>; N],
    t_first: [Signal<Local, Bits<8>>; NC],
    t_second: [Signal<Local, Bits<8>>; NC],
    t_nfirst: [Signal<Local, Bits<8>>; T],
    p4_cf: [DFF<Bits<8>>; N],
    p4_cs: [DFF<Bits<8>>; N],
    p4_nf: DFF<Bits<8>>,
    f_taken: Signal<Local, Bits<8>>,
    p5_chosen: [DFF<Bit>; N],
    t_chosen: [Signal<Local, Bits<8>>; NC],
    t_nchosen: [Signal<Local, Bits<8>>; T],
    p6_rank: [DFF<Bits<8>>; N],
    p6_nact: DFF<Bits<8>>,
    window: Signal<Local, Bits<32>>,
    levels: Signal<Local, Bits<8>>,
    r_prio0: [Signal<Local, Bits<8>>; MAX_OVERCOMMIT],
    r_prio: [Signal<Local, Bits<8>>; MAX_OVERCOMMIT],
    p7_any: [DFF<Bit>; MAX_OVERCOMMIT],
    p7_recv: [DFF<Bits<32>>; MAX_OVERCOMMIT],
    p7_len: [DFF<Bits<32>>; MAX_OVERCOMMIT],
    p7_granted: [DFF<Bits<32>>; MAX_OVERCOMMIT],
    p7_win: DFF<Bits<32>>,
    p7_prio: [DFF<Bits<3>>; MAX_OVERCOMMIT],
    p7_slot: [DFF<Bits<S>>; MAX_OVERCOMMIT],
    p8_sum: [DFF<Bits<32>>; MAX_OVERCOMMIT],
    r_want: [Signal<Local, Bits<32>>; MAX_OVERCOMMIT],
    p9_want: [DFF<Bits<32>>; MAX_OVERCOMMIT],
    p9_d: [DFF<Bits<32>>; MAX_OVERCOMMIT],
    // Inclusive prefix sums of d over ranks 0..7 (rank 7's own sum has no reader).
    p10_ks: [DFF<Bits<32>>; MAX_OVERCOMMIT - 1],
    p11_ks: [DFF<Bits<32>>; MAX_OVERCOMMIT - 1],
    p12_ks: [DFF<Bits<32>>; MAX_OVERCOMMIT - 1],
    p13_hr: [DFF<Bits<32>>; MAX_OVERCOMMIT],
    p14_target: [DFF<Bits<32>>; MAX_OVERCOMMIT],
    p14_do: [DFF<Bit>; MAX_OVERCOMMIT],
    // Per slot, from its rank, at the commit.
    g_do: [Signal<Local, Bit>; N],
    g_target: [Signal<Local, Bits<32>>; N],
    n_do: [Signal<Local, Bits<8>>; 9],
    commit: Signal<Local, Bit>,
    // Output.
    out_any: Signal<Local, Bit>,
    out_rank: Signal<Local, Bits<3>>,
    out_slot: Signal<Local, Bits<S>>,
    pop: Signal<Local, Bit>,

    c_slot: [Constant<Bits<S>>; N],
    c_rank: [Constant<Bits<8>>; 9],
    c_rank3: [Constant<Bits<3>>; MAX_OVERCOMMIT],
    c_zero_s: Constant<Bits<S>>,
    c_zero8: Constant<Bits<8>>,
    c_one8: Constant<Bits<8>>,
    c_zero32: Constant<Bits<32>>,
    c_one32: Constant<Bits<32>>,
    c_max32: Constant<Bits<32>>,
    c_half32: Constant<Bits<32>>,
    c_age_reset: Constant<Bits<32>>,
    c_bit0: Constant<Bits<3>>,
    c_zero3: Constant<Bits<3>>,
    c_stages: Constant<Bits<8>>,
}

/// The 16-slot instance, generated as `homa_rx_grant_n16`.
pub type GrantScheduler16 = GrantScheduler<SLOTS16, 4, 256, 496, 31>;

impl<const N: usize, const S: usize, const NN: usize, const NC: usize, const T: usize>
    GrantScheduler<N, S, NN, NC, T>
{
    /// A scheduler with every slot free. Panics unless `N == 1 << S`, `NN == N * N`,
    /// `T == 2 * N - 1` and `NC == N * T`: that is a caller bug in the type's parameters.
    pub fn new() -> Self {
        assert!(
            N >= 2 && N == 1 << S && NN == N * N && T == 2 * N - 1 && NC == N * T && N < 256,
            "GrantScheduler<{N}, {S}, {NN}, {NC}, {T}>: need N = 1 << S in 2..256, NN = N², \
             T = 2N - 1, NC = N·T"
        );
        // The outstanding-bytes tree's root is final at stage S + 1 and the headroom at S + 2;
        // stage 13 reads it.
        assert!(
            S + 2 <= 13,
            "GrantScheduler: the outstanding tree is too deep"
        );
        fn arr<X: Default, const M: usize>() -> [X; M] {
            std::array::from_fn(|_| X::default())
        }
        Self {
            clock: Signal::default(),
            reset: Signal::default(),
            cfg_max_overcommit: Signal::default(),
            cfg_max_sched_prio: Signal::default(),
            cfg_max_incoming: Signal::default(),
            cfg_window_0: Signal::default(),
            cfg_window_1: Signal::default(),
            cfg_window_2: Signal::default(),
            cfg_window_3: Signal::default(),
            cfg_window_4: Signal::default(),
            cfg_window_5: Signal::default(),
            cfg_window_6: Signal::default(),
            cfg_window_7: Signal::default(),
            cfg_window_8: Signal::default(),
            s_evt_valid: Signal::default(),
            s_evt_ready: Signal::default(),
            s_evt_peer: Signal::default(),
            s_evt_id: Signal::default(),
            s_evt_sport: Signal::default(),
            s_evt_dport: Signal::default(),
            s_evt_mac: Signal::default(),
            s_evt_length: Signal::default(),
            s_evt_incoming: Signal::default(),
            s_evt_new: Signal::default(),
            s_evt_end: Signal::default(),
            m_grant_valid: Signal::default(),
            m_grant_ready: Signal::default(),
            m_grant_slot: Signal::default(),
            m_grant_peer: Signal::default(),
            m_grant_mac: Signal::default(),
            m_grant_id: Signal::default(),
            m_grant_sport: Signal::default(),
            m_grant_dport: Signal::default(),
            m_grant_offset: Signal::default(),
            m_grant_priority: Signal::default(),
            messages_tracked: Signal::default(),
            grants_sent: Signal::default(),
            table_full: Signal::default(),
            valid: arr(),
            peer: arr(),
            id: arr(),
            sport: arr(),
            dport: arr(),
            mac: arr(),
            len: arr(),
            recv: arr(),
            granted: arr(),
            age: arr(),
            gq: arr(),
            rq: arr(),
            rq_slot: arr(),
            rq_off: arr(),
            rq_prio: arr(),
            rq_n: DFF::default(),
            age_ctr: DFF::default(),
            dec_pending: DFF::default(),
            phase: DFF::default(),
            occ: DFF::default(),
            n_grants: DFF::default(),
            n_full: DFF::default(),
            hit: arr(),
            hit_any: Signal::default(),
            free_any: Signal::default(),
            free_slot: Signal::default(),
            fire: Signal::default(),
            needs: Signal::default(),
            would_decide: Signal::default(),
            insert: Signal::default(),
            refuse: Signal::default(),
            trigger: Signal::default(),
            ins_granted0: Signal::default(),
            ins_granted: Signal::default(),
            ins_done: Signal::default(),
            frees: Signal::default(),
            p1_cand: arr(),
            p1_rem: arr(),
            p_out: arr(),
            p_h0: DFF::default(),
            p2_beat: arr(),
            p2_same: arr(),
            first: arr(),
            p3_first: arr(),
            p3_second: arr(),
            t_first: arr(),
            t_second: arr(),
            t_nfirst: arr(),
            p4_cf: arr(),
            p4_cs: arr(),
            p4_nf: DFF::default(),
            f_taken: Signal::default(),
            p5_chosen: arr(),
            t_chosen: arr(),
            t_nchosen: arr(),
            p6_rank: arr(),
            p6_nact: DFF::default(),
            window: Signal::default(),
            levels: Signal::default(),
            r_prio0: arr(),
            r_prio: arr(),
            p7_any: arr(),
            p7_recv: arr(),
            p7_len: arr(),
            p7_granted: arr(),
            p7_win: DFF::default(),
            p7_prio: arr(),
            p7_slot: arr(),
            p8_sum: arr(),
            r_want: arr(),
            p9_want: arr(),
            p9_d: arr(),
            p10_ks: arr(),
            p11_ks: arr(),
            p12_ks: arr(),
            p13_hr: arr(),
            p14_target: arr(),
            p14_do: arr(),
            g_do: arr(),
            g_target: arr(),
            n_do: arr(),
            commit: Signal::default(),
            out_any: Signal::default(),
            out_rank: Signal::default(),
            out_slot: Signal::default(),
            pop: Signal::default(),
            c_slot: std::array::from_fn(|j| k(j as u64)),
            c_rank: std::array::from_fn(|r| k(r as u64)),
            c_rank3: std::array::from_fn(|r| k(r as u64)),
            c_zero_s: k(0),
            c_zero8: k(0),
            c_one8: k(1),
            c_zero32: k(0),
            c_one32: k(1),
            c_max32: k(u64::from(u32::MAX)),
            c_half32: k(0x8000_0000),
            c_age_reset: k(u64::from(AGE_RESET)),
            c_bit0: k(0),
            c_zero3: k(0),
            c_stages: k(DECISION_STAGES as u64),
        }
    }
}

impl<const N: usize, const S: usize, const NN: usize, const NC: usize, const T: usize>
    GrantScheduler<N, S, NN, NC, T>
{
    /// A new block as the top level of a design: every input driven from outside, the
    /// rest connected (what the Verilog generator and the benches both start from).
    pub fn top_level() -> Self {
        let mut uut = Self::new();
        uut.clock.connect();
        uut.reset.connect();
        uut.cfg_max_overcommit.connect();
        uut.cfg_max_sched_prio.connect();
        uut.cfg_max_incoming.connect();
        uut.cfg_window_0.connect();
        uut.cfg_window_1.connect();
        uut.cfg_window_2.connect();
        uut.cfg_window_3.connect();
        uut.cfg_window_4.connect();
        uut.cfg_window_5.connect();
        uut.cfg_window_6.connect();
        uut.cfg_window_7.connect();
        uut.cfg_window_8.connect();
        uut.s_evt_valid.connect();
        uut.s_evt_peer.connect();
        uut.s_evt_id.connect();
        uut.s_evt_sport.connect();
        uut.s_evt_dport.connect();
        uut.s_evt_mac.connect();
        uut.s_evt_length.connect();
        uut.s_evt_incoming.connect();
        uut.s_evt_new.connect();
        uut.s_evt_end.connect();
        uut.m_grant_ready.connect();
        uut.connect_all();
        uut
    }
}

impl<const N: usize, const S: usize, const NN: usize, const NC: usize, const T: usize> Default
    for GrantScheduler<N, S, NN, NC, T>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize, const S: usize, const NN: usize, const NC: usize, const T: usize>
    core::fmt::Debug for GrantScheduler<N, S, NN, NC, T>
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GrantScheduler")
            .field("slots", &N)
            .field("tracked", &self.occ.q.val())
            .finish_non_exhaustive()
    }
}

impl<const N: usize, const S: usize, const NN: usize, const NC: usize, const T: usize> Logic
    for GrantScheduler<N, S, NN, NC, T>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            rq_n,
            age_ctr,
            dec_pending,
            phase,
            occ,
            n_grants,
            n_full,
            p_h0,
            p4_nf,
            p6_nact,
            p7_win
        );

        // ---- Output: the queued grant of the lowest rank. ----
        self.out_any.next = self.rq_n.q.val() != self.c_zero8.val();
        self.out_rank.next = self.c_zero3.val();
        for m in (MAX_OVERCOMMIT - 1)..MAX_OVERCOMMIT {
            for rr in 0..MAX_OVERCOMMIT {
                if self.rq[m - rr].q.val() {
                    self.out_rank.next = self.c_rank3[m - rr].val();
                }
            }
        }
        self.out_slot.next = self.rq_slot[0].q.val();
        self.m_grant_offset.next = self.rq_off[0].q.val();
        self.m_grant_priority.next = self.rq_prio[0].q.val();
        for r in 1..MAX_OVERCOMMIT {
            if self.out_rank.val() == self.c_rank3[r].val() {
                self.out_slot.next = self.rq_slot[r].q.val();
                self.m_grant_offset.next = self.rq_off[r].q.val();
                self.m_grant_priority.next = self.rq_prio[r].q.val();
            }
        }
        self.m_grant_valid.next = self.out_any.val();
        self.pop.next = self.out_any.val() & self.m_grant_ready.val();
        self.m_grant_slot.next = self.out_slot.val();
        self.m_grant_peer.next = self.peer[0].q.val();
        self.m_grant_mac.next = self.mac[0].q.val();
        self.m_grant_id.next = self.id[0].q.val();
        self.m_grant_sport.next = self.dport[0].q.val();
        self.m_grant_dport.next = self.sport[0].q.val();
        for j in 1..N {
            if self.out_slot.val() == self.c_slot[j].val() {
                self.m_grant_peer.next = self.peer[j].q.val();
                self.m_grant_mac.next = self.mac[j].q.val();
                self.m_grant_id.next = self.id[j].q.val();
                self.m_grant_sport.next = self.dport[j].q.val();
                self.m_grant_dport.next = self.sport[j].q.val();
            }
        }

        // ---- The decision pipeline (stage k reads stage k - 1 and the frozen slots). ----
        for j in 0..N {
            self.p1_cand[j].clock.next = self.clock.val();
            self.p1_rem[j].clock.next = self.clock.val();
            self.p3_first[j].clock.next = self.clock.val();
            self.p3_second[j].clock.next = self.clock.val();
            self.p4_cf[j].clock.next = self.clock.val();
            self.p4_cs[j].clock.next = self.clock.val();
            self.p5_chosen[j].clock.next = self.clock.val();
            self.p6_rank[j].clock.next = self.clock.val();
        }
        for i in 0..NN {
            self.p2_beat[i].clock.next = self.clock.val();
            self.p2_same[i].clock.next = self.clock.val();
        }
        for i in 0..T {
            self.p_out[i].clock.next = self.clock.val();
        }
        for r in 0..MAX_OVERCOMMIT {
            self.p7_any[r].clock.next = self.clock.val();
            self.p7_recv[r].clock.next = self.clock.val();
            self.p7_len[r].clock.next = self.clock.val();
            self.p7_granted[r].clock.next = self.clock.val();
            self.p7_prio[r].clock.next = self.clock.val();
            self.p7_slot[r].clock.next = self.clock.val();
            self.rq[r].clock.next = self.clock.val();
            self.rq_slot[r].clock.next = self.clock.val();
            self.rq_off[r].clock.next = self.clock.val();
            self.rq_prio[r].clock.next = self.clock.val();
            self.p8_sum[r].clock.next = self.clock.val();
            self.p9_want[r].clock.next = self.clock.val();
            self.p9_d[r].clock.next = self.clock.val();
            self.p13_hr[r].clock.next = self.clock.val();
            self.p14_target[r].clock.next = self.clock.val();
            self.p14_do[r].clock.next = self.clock.val();
        }
        for r in 0..(MAX_OVERCOMMIT - 1) {
            self.p10_ks[r].clock.next = self.clock.val();
            self.p11_ks[r].clock.next = self.clock.val();
            self.p12_ks[r].clock.next = self.clock.val();
        }
        // Stage 1: candidates, remaining bytes, and the outstanding tree's leaves.
        for j in 0..N {
            self.p1_cand[j].d.next =
                self.valid[j].q.val() & (self.granted[j].q.val() < self.len[j].q.val());
            self.p1_rem[j].d.next = self.len[j].q.val() - self.recv[j].q.val();
            self.p_out[j].d.next = self.c_zero32.val();
            if self.valid[j].q.val() & (self.granted[j].q.val() > self.recv[j].q.val()) {
                self.p_out[j].d.next = self.granted[j].q.val() - self.recv[j].q.val();
            }
        }
        // Granted-but-unreceived bytes over every tracked message, saturating, as a
        // registered balanced tree (leaves 0..N, node N + k adds 2k and 2k + 1, root last): a
        // saturating sum of non-negative values is min(sum, 2^32 - 1) in any order.
        for n in N..(N + 1) {
            for k in 0..(N - 1) {
                self.p_out[n + k].d.next =
                    self.p_out[2 * k].q.val() + self.p_out[2 * k + 1].q.val();
                if (self.p_out[2 * k].q.val() + self.p_out[2 * k + 1].q.val())
                    < self.p_out[2 * k].q.val()
                {
                    self.p_out[n + k].d.next = self.c_max32.val();
                }
            }
        }
        for r in (T - 1)..T {
            self.p_h0.d.next = self.c_zero32.val();
            if self.cfg_max_incoming.val() > self.p_out[r].q.val() {
                self.p_h0.d.next = self.cfg_max_incoming.val() - self.p_out[r].q.val();
            }
        }
        // Stage 2: beat[i*N + j]: candidate i outranks candidate j; same[i*N + j]: same peer.
        for n in N..(N + 1) {
            for i in 0..N {
                for j in 0..N {
                    self.p2_beat[i * n + j].d.next = self.p1_cand[i].q.val()
                        & self.p1_cand[j].q.val()
                        & ((self.p1_rem[i].q.val() < self.p1_rem[j].q.val())
                            | ((self.p1_rem[i].q.val() == self.p1_rem[j].q.val())
                                & ((self.age[i].q.val() - self.age[j].q.val())
                                    >= self.c_half32.val())));
                    self.p2_same[i * n + j].d.next = self.peer[i].q.val() == self.peer[j].q.val();
                }
            }
        }
        // Stage 3: each peer's best candidate is "first"; the others are "second".
        for n in N..(N + 1) {
            for j in 0..N {
                self.first[j].next = self.p1_cand[j].q.val();
                for i in 0..N {
                    if self.p2_beat[i * n + j].q.val() & self.p2_same[i * n + j].q.val() {
                        self.first[j].next = false;
                    }
                }
                self.p3_first[j].d.next = self.first[j].val();
                self.p3_second[j].d.next = self.p1_cand[j].q.val() & !self.first[j].val();
            }
        }
        // Stage 4: per slot j, the firsts and the seconds that outrank it, as adder trees
        // (tree j's node x is t[j*T + x]: leaves 0..N, node N + k adds 2k and 2k + 1); and the
        // number of firsts.
        for t in T..(T + 1) {
            for n in N..(N + 1) {
                for j in 0..N {
                    for i in 0..N {
                        self.t_first[j * t + i].next = self.c_zero8.val();
                        if self.p3_first[i].q.val() & self.p2_beat[i * n + j].q.val() {
                            self.t_first[j * t + i].next = self.c_one8.val();
                        }
                        self.t_second[j * t + i].next = self.c_zero8.val();
                        if self.p3_second[i].q.val() & self.p2_beat[i * n + j].q.val() {
                            self.t_second[j * t + i].next = self.c_one8.val();
                        }
                    }
                    for k in 0..(N - 1) {
                        self.t_first[j * t + n + k].next = self.t_first[j * t + 2 * k].val()
                            + self.t_first[j * t + 2 * k + 1].val();
                        self.t_second[j * t + n + k].next = self.t_second[j * t + 2 * k].val()
                            + self.t_second[j * t + 2 * k + 1].val();
                    }
                    self.p4_cf[j].d.next = self.t_first[j * t + t - 1].val();
                    self.p4_cs[j].d.next = self.t_second[j * t + t - 1].val();
                }
                for i in 0..N {
                    self.t_nfirst[i].next = self.c_zero8.val();
                    if self.p3_first[i].q.val() {
                        self.t_nfirst[i].next = self.c_one8.val();
                    }
                }
                for k in 0..(N - 1) {
                    self.t_nfirst[n + k].next =
                        self.t_nfirst[2 * k].val() + self.t_nfirst[2 * k + 1].val();
                }
                self.p4_nf.d.next = self.t_nfirst[t - 1].val();
            }
        }
        // Stage 5: the active set. Firsts in rank order take up to K places; seconds take
        // what the firsts leave.
        self.f_taken.next = self.p4_nf.q.val();
        if self.p4_nf.q.val() > self.cfg_max_overcommit.val() {
            self.f_taken.next = self.cfg_max_overcommit.val();
        }
        for j in 0..N {
            self.p5_chosen[j].d.next = (self.p3_first[j].q.val()
                & (self.p4_cf[j].q.val() < self.cfg_max_overcommit.val()))
                | (self.p3_second[j].q.val()
                    & ((self.p4_cs[j].q.val() + self.f_taken.val())
                        < self.cfg_max_overcommit.val()));
        }
        // Stage 6: ranks among the chosen, and their number.
        for t in T..(T + 1) {
            for n in N..(N + 1) {
                for j in 0..N {
                    for i in 0..N {
                        self.t_chosen[j * t + i].next = self.c_zero8.val();
                        if self.p5_chosen[i].q.val() & self.p2_beat[i * n + j].q.val() {
                            self.t_chosen[j * t + i].next = self.c_one8.val();
                        }
                    }
                    for k in 0..(N - 1) {
                        self.t_chosen[j * t + n + k].next = self.t_chosen[j * t + 2 * k].val()
                            + self.t_chosen[j * t + 2 * k + 1].val();
                    }
                    self.p6_rank[j].d.next = self.t_chosen[j * t + t - 1].val();
                }
                for i in 0..N {
                    self.t_nchosen[i].next = self.c_zero8.val();
                    if self.p5_chosen[i].q.val() {
                        self.t_nchosen[i].next = self.c_one8.val();
                    }
                }
                for k in 0..(N - 1) {
                    self.t_nchosen[n + k].next =
                        self.t_nchosen[2 * k].val() + self.t_nchosen[2 * k + 1].val();
                }
                self.p6_nact.d.next = self.t_nchosen[t - 1].val();
            }
        }
        // Stage 7: per rank, the message's state; the window; the priority
        // (sched_priority(r, n_active, max_sched_prio)).
        self.window.next = self.cfg_window_0.val();
        if self.p6_nact.q.val() == self.c_rank[1].val() {
            self.window.next = self.cfg_window_1.val();
        }
        if self.p6_nact.q.val() == self.c_rank[2].val() {
            self.window.next = self.cfg_window_2.val();
        }
        if self.p6_nact.q.val() == self.c_rank[3].val() {
            self.window.next = self.cfg_window_3.val();
        }
        if self.p6_nact.q.val() == self.c_rank[4].val() {
            self.window.next = self.cfg_window_4.val();
        }
        if self.p6_nact.q.val() == self.c_rank[5].val() {
            self.window.next = self.cfg_window_5.val();
        }
        if self.p6_nact.q.val() == self.c_rank[6].val() {
            self.window.next = self.cfg_window_6.val();
        }
        if self.p6_nact.q.val() == self.c_rank[7].val() {
            self.window.next = self.cfg_window_7.val();
        }
        if self.p6_nact.q.val() == self.c_rank[8].val() {
            self.window.next = self.cfg_window_8.val();
        }
        self.p7_win.d.next = self.window.val();
        self.levels.next = self.cfg_max_sched_prio.val() + self.c_one8.val();
        for r in 0..MAX_OVERCOMMIT {
            self.p7_any[r].d.next = false;
            self.p7_recv[r].d.next = self.c_zero32.val();
            self.p7_len[r].d.next = self.c_zero32.val();
            self.p7_granted[r].d.next = self.c_zero32.val();
            self.p7_slot[r].d.next = self.c_zero_s.val();
            for j in 0..N {
                if self.p5_chosen[j].q.val() & (self.p6_rank[j].q.val() == self.c_rank[r].val()) {
                    self.p7_any[r].d.next = true;
                    self.p7_recv[r].d.next = self.recv[j].q.val();
                    self.p7_len[r].d.next = self.len[j].q.val();
                    self.p7_granted[r].d.next = self.granted[j].q.val();
                    self.p7_slot[r].d.next = self.c_slot[j].val();
                }
            }
            self.r_prio0[r].next = self.c_zero8.val();
            if self.cfg_max_sched_prio.val() >= self.c_rank[r].val() {
                self.r_prio0[r].next = self.cfg_max_sched_prio.val() - self.c_rank[r].val();
            }
            self.r_prio[r].next = self.r_prio0[r].val();
            if self.p6_nact.q.val() <= self.levels.val() {
                self.r_prio[r].next = self.c_zero8.val();
                if self.r_prio0[r].val() >= (self.levels.val() - self.p6_nact.q.val()) {
                    self.r_prio[r].next =
                        self.r_prio0[r].val() - (self.levels.val() - self.p6_nact.q.val());
                }
            }
            self.p7_prio[r].d.next = self.r_prio[r]
                .val()
                .get_bits::<3>(self.c_bit0.val().index());
            // Stage 8: received + window, saturating.
            self.p8_sum[r].d.next = self.p7_recv[r].q.val() + self.p7_win.q.val();
            if (self.p7_recv[r].q.val() + self.p7_win.q.val()) < self.p7_recv[r].q.val() {
                self.p8_sum[r].d.next = self.c_max32.val();
            }
            // Stage 9: the wanted target and the bytes it adds.
            self.r_want[r].next = self.p8_sum[r].q.val();
            if self.p7_len[r].q.val() < self.p8_sum[r].q.val() {
                self.r_want[r].next = self.p7_len[r].q.val();
            }
            self.p9_want[r].d.next = self.r_want[r].val();
            self.p9_d[r].d.next = self.c_zero32.val();
            if self.p7_any[r].q.val() & (self.r_want[r].val() > self.p7_granted[r].q.val()) {
                self.p9_d[r].d.next = self.r_want[r].val() - self.p7_granted[r].q.val();
            }
        }
        // Stages 10-12: inclusive prefix sums of d (saturating), Kogge-Stone, strides 1, 2, 4.
        self.p10_ks[0].d.next = self.p9_d[0].q.val();
        for r in 1..(MAX_OVERCOMMIT - 1) {
            self.p10_ks[r].d.next = self.p9_d[r].q.val() + self.p9_d[r - 1].q.val();
            if (self.p9_d[r].q.val() + self.p9_d[r - 1].q.val()) < self.p9_d[r].q.val() {
                self.p10_ks[r].d.next = self.c_max32.val();
            }
        }
        for r in 0..2 {
            self.p11_ks[r].d.next = self.p10_ks[r].q.val();
        }
        for r in 2..(MAX_OVERCOMMIT - 1) {
            self.p11_ks[r].d.next = self.p10_ks[r].q.val() + self.p10_ks[r - 2].q.val();
            if (self.p10_ks[r].q.val() + self.p10_ks[r - 2].q.val()) < self.p10_ks[r].q.val() {
                self.p11_ks[r].d.next = self.c_max32.val();
            }
        }
        for r in 0..4 {
            self.p12_ks[r].d.next = self.p11_ks[r].q.val();
        }
        for r in 4..(MAX_OVERCOMMIT - 1) {
            self.p12_ks[r].d.next = self.p11_ks[r].q.val() + self.p11_ks[r - 4].q.val();
            if (self.p11_ks[r].q.val() + self.p11_ks[r - 4].q.val()) < self.p11_ks[r].q.val() {
                self.p12_ks[r].d.next = self.c_max32.val();
            }
        }
        // Stage 13: the headroom left for each rank by the ranks before it.
        self.p13_hr[0].d.next = self.p_h0.q.val();
        for r in 1..MAX_OVERCOMMIT {
            self.p13_hr[r].d.next = self.c_zero32.val();
            if self.p_h0.q.val() > self.p12_ks[r - 1].q.val() {
                self.p13_hr[r].d.next = self.p_h0.q.val() - self.p12_ks[r - 1].q.val();
            }
        }
        // Stage 14: each rank's target, granted + min(d, headroom).
        for r in 0..MAX_OVERCOMMIT {
            self.p14_target[r].d.next = self.p7_granted[r].q.val() + self.p13_hr[r].q.val();
            if self.p9_d[r].q.val() <= self.p13_hr[r].q.val() {
                self.p14_target[r].d.next = self.p9_want[r].q.val();
            }
            self.p14_do[r].d.next = self.p7_any[r].q.val()
                & (self.p9_d[r].q.val() != self.c_zero32.val())
                & (self.p13_hr[r].q.val() != self.c_zero32.val());
        }
        // The commit: targets back to the slots, grants into the rank queue. A decision
        // commits when the queue is empty after this cycle's grant.
        for j in 0..N {
            self.g_do[j].next = false;
            self.g_target[j].next = self.granted[j].q.val();
            for r in 0..MAX_OVERCOMMIT {
                if self.p5_chosen[j].q.val() & (self.p6_rank[j].q.val() == self.c_rank[r].val()) {
                    self.g_do[j].next = self.p14_do[r].q.val();
                    self.g_target[j].next = self.p14_target[r].q.val();
                }
            }
        }
        self.n_do[0].next = self.c_zero8.val();
        for r in 0..MAX_OVERCOMMIT {
            self.n_do[r + 1].next = self.n_do[r].val();
            if self.p14_do[r].q.val() {
                self.n_do[r + 1].next = self.n_do[r].val() + self.c_one8.val();
            }
        }
        self.commit.next = self.dec_pending.q.val()
            & (self.phase.q.val() == self.c_stages.val())
            & ((self.rq_n.q.val() == self.c_zero8.val())
                | ((self.rq_n.q.val() == self.c_one8.val()) & self.m_grant_ready.val()));
        for r in 0..MAX_OVERCOMMIT {
            self.rq[r].d.next = self.rq[r].q.val();
            self.rq_slot[r].d.next = self.rq_slot[r].q.val();
            self.rq_off[r].d.next = self.rq_off[r].q.val();
            self.rq_prio[r].d.next = self.rq_prio[r].q.val();
            if self.pop.val() & (self.out_rank.val() == self.c_rank3[r].val()) {
                self.rq[r].d.next = false;
            }
            if self.commit.val() {
                self.rq[r].d.next = self.p14_do[r].q.val();
                self.rq_slot[r].d.next = self.p7_slot[r].q.val();
                self.rq_off[r].d.next = self.p14_target[r].q.val();
                self.rq_prio[r].d.next = self.p7_prio[r].q.val();
            }
            if self.reset.val() {
                self.rq[r].d.next = false;
            }
        }
        if self.pop.val() {
            self.rq_n.d.next = self.rq_n.q.val() - self.c_one8.val();
        }
        for r in MAX_OVERCOMMIT..(MAX_OVERCOMMIT + 1) {
            if self.commit.val() {
                self.rq_n.d.next = self.n_do[r].val();
            }
        }
        if self.reset.val() {
            self.rq_n.d.next = self.c_zero8.val();
        }

        // ---- Event front end. ----
        self.hit_any.next = false;
        for j in 0..N {
            self.hit[j].next = self.valid[j].q.val()
                & (self.peer[j].q.val() == self.s_evt_peer.val())
                & (self.id[j].q.val() == self.s_evt_id.val());
            if self.hit[j].val() {
                self.hit_any.next = true;
            }
        }
        self.free_any.next = false;
        self.free_slot.next = self.c_zero_s.val();
        for n in N..(N + 1) {
            for j in 0..N {
                if !self.valid[n - 1 - j].q.val() & !self.gq[n - 1 - j].q.val() {
                    self.free_any.next = true;
                    self.free_slot.next = self.c_slot[n - 1 - j].val();
                }
            }
        }
        // An event that changes no slot (not tracked, and needs no grants or brings no new
        // bytes) passes while a decision is pending; one that does waits for the commit.
        self.needs.next = self.s_evt_incoming.val() < self.s_evt_length.val();
        self.would_decide.next =
            self.hit_any.val() | (self.needs.val() & (self.s_evt_new.val() != self.c_zero32.val()));
        self.s_evt_ready.next =
            !self.dec_pending.q.val() | self.commit.val() | !self.would_decide.val();
        self.fire.next = self.s_evt_valid.val() & self.s_evt_ready.val();
        self.ins_done.next = self.s_evt_new.val() >= self.s_evt_length.val();
        self.insert.next = self.fire.val()
            & !self.hit_any.val()
            & self.needs.val()
            & (self.s_evt_new.val() != self.c_zero32.val())
            & !self.ins_done.val()
            & self.free_any.val();
        self.refuse.next = self.fire.val()
            & !self.hit_any.val()
            & self.needs.val()
            & (self.s_evt_new.val() != self.c_zero32.val())
            & !self.ins_done.val()
            & !self.free_any.val();
        self.trigger.next = self.fire.val() & self.would_decide.val();
        self.ins_granted0.next = self.s_evt_incoming.val();
        if self.s_evt_end.val() > self.s_evt_incoming.val() {
            self.ins_granted0.next = self.s_evt_end.val();
        }
        self.ins_granted.next = self.ins_granted0.val();
        if self.ins_granted0.val() > self.s_evt_length.val() {
            self.ins_granted.next = self.s_evt_length.val();
        }
        self.frees.next = false;

        // ---- Slot registers. ----
        for j in 0..N {
            self.valid[j].clock.next = self.clock.val();
            self.peer[j].clock.next = self.clock.val();
            self.id[j].clock.next = self.clock.val();
            self.sport[j].clock.next = self.clock.val();
            self.dport[j].clock.next = self.clock.val();
            self.mac[j].clock.next = self.clock.val();
            self.len[j].clock.next = self.clock.val();
            self.recv[j].clock.next = self.clock.val();
            self.granted[j].clock.next = self.clock.val();
            self.age[j].clock.next = self.clock.val();
            self.gq[j].clock.next = self.clock.val();
            self.valid[j].d.next = self.valid[j].q.val();
            self.peer[j].d.next = self.peer[j].q.val();
            self.id[j].d.next = self.id[j].q.val();
            self.sport[j].d.next = self.sport[j].q.val();
            self.dport[j].d.next = self.dport[j].q.val();
            self.mac[j].d.next = self.mac[j].q.val();
            self.len[j].d.next = self.len[j].q.val();
            self.recv[j].d.next = self.recv[j].q.val();
            self.granted[j].d.next = self.granted[j].q.val();
            self.age[j].d.next = self.age[j].q.val();
            self.gq[j].d.next = self.gq[j].q.val();
            // The grant leaving now.
            if self.pop.val() & (self.out_slot.val() == self.c_slot[j].val()) {
                self.gq[j].d.next = false;
            }
            // The previous event's decision.
            if self.commit.val() & self.g_do[j].val() {
                self.granted[j].d.next = self.g_target[j].val();
                self.gq[j].d.next = true;
            }
            // This event, on the state after that decision.
            if self.fire.val() & self.hit[j].val() {
                self.recv[j].d.next = self.recv[j].q.val() + self.s_evt_new.val();
                if self.commit.val() & self.g_do[j].val() {
                    if self.s_evt_end.val() > self.g_target[j].val() {
                        self.granted[j].d.next = self.s_evt_end.val();
                    }
                } else if self.s_evt_end.val() > self.granted[j].q.val() {
                    self.granted[j].d.next = self.s_evt_end.val();
                }
                if (self.recv[j].q.val() + self.s_evt_new.val()) >= self.len[j].q.val() {
                    self.valid[j].d.next = false;
                }
            }
            if self.insert.val() & (self.free_slot.val() == self.c_slot[j].val()) {
                self.valid[j].d.next = true;
                self.peer[j].d.next = self.s_evt_peer.val();
                self.id[j].d.next = self.s_evt_id.val();
                self.sport[j].d.next = self.s_evt_sport.val();
                self.dport[j].d.next = self.s_evt_dport.val();
                self.mac[j].d.next = self.s_evt_mac.val();
                self.len[j].d.next = self.s_evt_length.val();
                self.recv[j].d.next = self.s_evt_new.val();
                self.granted[j].d.next = self.ins_granted.val();
                self.age[j].d.next = self.age_ctr.q.val();
            }
            if self.fire.val()
                & self.hit[j].val()
                & ((self.recv[j].q.val() + self.s_evt_new.val()) >= self.len[j].q.val())
            {
                self.frees.next = true;
            }
            if self.reset.val() {
                self.valid[j].d.next = false;
                self.gq[j].d.next = false;
            }
        }
        // ---- Counters and control. ----
        if self.insert.val() {
            self.age_ctr.d.next = self.age_ctr.q.val() + self.c_one32.val();
        }
        if self.insert.val() & !self.frees.val() {
            self.occ.d.next = self.occ.q.val() + self.c_one32.val();
        }
        if self.frees.val() & !self.insert.val() {
            self.occ.d.next = self.occ.q.val() - self.c_one32.val();
        }
        if self.pop.val() {
            self.n_grants.d.next = self.n_grants.q.val() + self.c_one32.val();
        }
        if self.refuse.val() {
            self.n_full.d.next = self.n_full.q.val() + self.c_one32.val();
        }
        if self.commit.val() {
            self.dec_pending.d.next = false;
        }
        if self.dec_pending.q.val() & (self.phase.q.val() != self.c_stages.val()) {
            self.phase.d.next = self.phase.q.val() + self.c_one8.val();
        }
        if self.trigger.val() {
            self.dec_pending.d.next = true;
            self.phase.d.next = self.c_zero8.val();
        }
        if self.reset.val() {
            self.age_ctr.d.next = self.c_age_reset.val();
            self.occ.d.next = self.c_zero32.val();
            self.dec_pending.d.next = false;
        }
        self.messages_tracked.next = self.occ.q.val();
        self.grants_sent.next = self.n_grants.q.val();
        self.table_full.next = self.n_full.q.val();
    }
}

#[cfg(test)]
mod tests;
