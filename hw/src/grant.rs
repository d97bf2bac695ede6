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
//!  N slot registers ──► pairwise outranks / same-peer matrices ──► first-of-peer, ranks,
//!     ▲                 active set (K), window[n], outstanding sum, headroom chain by rank
//!     │ granted := target                      │ (one decision per event, next cycle)
//!     └────────────────────────────────────────┴──► grant queue (per slot) ──► m_grant_*
//! ```
//!
//! Timing of one event: accepted at edge `t` (slot registers updated), decided in the cycle
//! after it from the registers (combinational), committed at edge `t + 1` (targets written
//! back, grants queued), first grant on `m_grant_*` in the cycle after that. A new event is
//! accepted in every cycle in which the previous decision can commit, that is while the
//! grant queue holds at most the one grant leaving this cycle: one decision per cycle while
//! each DATA causes at most one GRANT, which is the common case.
//!
//! What the block leaves to the stage in front of it: duplicate detection (`s_evt_new` is
//! the number of bytes of the packet not received before, as `core`'s range set counts them)
//! and length checks. Messages whose first packet finds every slot taken are counted in
//! `table_full` and get no grants from the hardware. FIFO grants (`grant_fifo_fraction`)
//! are not implemented: configure it as 0 when grants are offloaded.
//!
//! What limits `N`: the decision compares every pair of slots (`N²` comparators of
//! (remaining, age) and of peers) and counts ranks with `N` chains of `N` adders, all in one
//! combinational cycle; area grows as `N²` and the longest path as `N`. 16 slots is the
//! default; tracking more messages than can be decided on at once needs a second level
//! (messages parked in RAM, promoted into the decision slots), not built yet.

use crate::hdl::*;

/// The largest overcommitment degree (ranks decided per event).
pub const MAX_OVERCOMMIT: usize = 8;

/// The age counter's value after reset: 256 inserts below the 32-bit wrap, so every run
/// crosses it.
pub const AGE_RESET: u32 = 0xFFFF_FF00;

fn k<const M: usize>(v: u64) -> Constant<Bits<M>> {
    Constant::new(v.into())
}

/// The grant generator with `N` slots (`N = 1 << S`, `N1 = N + 1`), `NN = N * N` pairwise
/// signals, `NC = N * (N + 1)` counter-chain signals and `T = 2N - 1` nodes of the
/// outstanding-bytes tree.
#[derive(LogicBlock)]
pub struct GrantScheduler<
    const N: usize,
    const S: usize,
    const N1: usize,
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
    // Grant queue, one entry per slot.
    gq: [DFF<Bit>; N],
    gq_rank: [DFF<Bits<8>>; N],
    gq_off: [DFF<Bits<32>>; N],
    gq_prio: [DFF<Bits<3>>; N],
    age_ctr: DFF<Bits<32>>,
    dec_pending: DFF<Bit>,
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
    insert: Signal<Local, Bit>,
    refuse: Signal<Local, Bit>,
    trigger: Signal<Local, Bit>,
    ins_granted0: Signal<Local, Bits<32>>,
    ins_granted: Signal<Local, Bits<32>>,
    ins_done: Signal<Local, Bit>,
    frees: Signal<Local, Bit>,

    // Decision.
    cand: [Signal<Local, Bit>; N],
    rem: [Signal<Local, Bits<32>>; N],
    beat: [Signal<Local, Bit>; NN],
    same: [Signal<Local, Bit>; NN],
    first: [Signal<Local, Bit>; N],
    second: [Signal<Local, Bit>; N],
    c_first: [Signal<Local, Bits<8>>; NC],
    c_second: [Signal<Local, Bits<8>>; NC],
    c_chosen: [Signal<Local, Bits<8>>; NC],
    n_first_chain: [Signal<Local, Bits<8>>; N1],
    n_chosen_chain: [Signal<Local, Bits<8>>; N1],
    out_tree: [Signal<Local, Bits<32>>; T],
    n_first: Signal<Local, Bits<8>>,
    f_taken: Signal<Local, Bits<8>>,
    chosen: [Signal<Local, Bit>; N],
    n_active: Signal<Local, Bits<8>>,
    window: Signal<Local, Bits<32>>,
    outstanding: Signal<Local, Bits<32>>,
    levels: Signal<Local, Bits<8>>,
    // Per rank.
    r_any: [Signal<Local, Bit>; MAX_OVERCOMMIT],
    r_recv: [Signal<Local, Bits<32>>; MAX_OVERCOMMIT],
    r_len: [Signal<Local, Bits<32>>; MAX_OVERCOMMIT],
    r_granted: [Signal<Local, Bits<32>>; MAX_OVERCOMMIT],
    r_sum: [Signal<Local, Bits<32>>; MAX_OVERCOMMIT],
    r_want: [Signal<Local, Bits<32>>; MAX_OVERCOMMIT],
    r_more: [Signal<Local, Bits<32>>; MAX_OVERCOMMIT],
    r_target: [Signal<Local, Bits<32>>; MAX_OVERCOMMIT],
    r_prio0: [Signal<Local, Bits<8>>; MAX_OVERCOMMIT],
    r_prio: [Signal<Local, Bits<8>>; MAX_OVERCOMMIT],
    headroom: [Signal<Local, Bits<32>>; 9],
    // Per slot, from its rank.
    g_do: [Signal<Local, Bit>; N],
    g_rank: [Signal<Local, Bits<8>>; N],
    g_target: [Signal<Local, Bits<32>>; N],
    g_prio: [Signal<Local, Bits<3>>; N],
    commit: Signal<Local, Bit>,
    // Output.
    out_any: Signal<Local, Bit>,
    out_slot: Signal<Local, Bits<S>>,
    pop: Signal<Local, Bit>,
    left_after_pop: Signal<Local, Bit>,

    c_slot: [Constant<Bits<S>>; N],
    c_rank: [Constant<Bits<8>>; 9],
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
}

/// The 16-slot instance, generated as `homa_rx_grant_n16`.
pub type GrantScheduler16 = GrantScheduler<16, 4, 17, 256, 272, 31>;

impl<
    const N: usize,
    const S: usize,
    const N1: usize,
    const NN: usize,
    const NC: usize,
    const T: usize,
> GrantScheduler<N, S, N1, NN, NC, T>
{
    /// A scheduler with every slot free. Panics unless `N == 1 << S`, `N1 == N + 1`,
    /// `NN == N * N`, `NC == N * (N + 1)` and `T == 2 * N - 1`: that is a caller bug in the
    /// type's parameters.
    pub fn new() -> Self {
        assert!(
            N >= 2
                && N == 1 << S
                && N1 == N + 1
                && NN == N * N
                && NC == N * (N + 1)
                && T == 2 * N - 1
                && N < 256,
            "GrantScheduler<{N}, {S}, {N1}, {NN}, {NC}, {T}>: need N = 1 << S in 2..256, \
             N1 = N + 1, NN = N², NC = N(N+1), T = 2N - 1"
        );
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
            valid: std::array::from_fn(|_| DFF::default()),
            peer: std::array::from_fn(|_| DFF::default()),
            id: std::array::from_fn(|_| DFF::default()),
            sport: std::array::from_fn(|_| DFF::default()),
            dport: std::array::from_fn(|_| DFF::default()),
            mac: std::array::from_fn(|_| DFF::default()),
            len: std::array::from_fn(|_| DFF::default()),
            recv: std::array::from_fn(|_| DFF::default()),
            granted: std::array::from_fn(|_| DFF::default()),
            age: std::array::from_fn(|_| DFF::default()),
            gq: std::array::from_fn(|_| DFF::default()),
            gq_rank: std::array::from_fn(|_| DFF::default()),
            gq_off: std::array::from_fn(|_| DFF::default()),
            gq_prio: std::array::from_fn(|_| DFF::default()),
            age_ctr: DFF::default(),
            dec_pending: DFF::default(),
            occ: DFF::default(),
            n_grants: DFF::default(),
            n_full: DFF::default(),
            hit: std::array::from_fn(|_| Signal::default()),
            hit_any: Signal::default(),
            free_any: Signal::default(),
            free_slot: Signal::default(),
            fire: Signal::default(),
            needs: Signal::default(),
            insert: Signal::default(),
            refuse: Signal::default(),
            trigger: Signal::default(),
            ins_granted0: Signal::default(),
            ins_granted: Signal::default(),
            ins_done: Signal::default(),
            frees: Signal::default(),
            cand: std::array::from_fn(|_| Signal::default()),
            rem: std::array::from_fn(|_| Signal::default()),
            beat: std::array::from_fn(|_| Signal::default()),
            same: std::array::from_fn(|_| Signal::default()),
            first: std::array::from_fn(|_| Signal::default()),
            second: std::array::from_fn(|_| Signal::default()),
            c_first: std::array::from_fn(|_| Signal::default()),
            c_second: std::array::from_fn(|_| Signal::default()),
            c_chosen: std::array::from_fn(|_| Signal::default()),
            n_first_chain: std::array::from_fn(|_| Signal::default()),
            n_chosen_chain: std::array::from_fn(|_| Signal::default()),
            out_tree: std::array::from_fn(|_| Signal::default()),
            n_first: Signal::default(),
            f_taken: Signal::default(),
            chosen: std::array::from_fn(|_| Signal::default()),
            n_active: Signal::default(),
            window: Signal::default(),
            outstanding: Signal::default(),
            levels: Signal::default(),
            r_any: std::array::from_fn(|_| Signal::default()),
            r_recv: std::array::from_fn(|_| Signal::default()),
            r_len: std::array::from_fn(|_| Signal::default()),
            r_granted: std::array::from_fn(|_| Signal::default()),
            r_sum: std::array::from_fn(|_| Signal::default()),
            r_want: std::array::from_fn(|_| Signal::default()),
            r_more: std::array::from_fn(|_| Signal::default()),
            r_target: std::array::from_fn(|_| Signal::default()),
            r_prio0: std::array::from_fn(|_| Signal::default()),
            r_prio: std::array::from_fn(|_| Signal::default()),
            headroom: std::array::from_fn(|_| Signal::default()),
            g_do: std::array::from_fn(|_| Signal::default()),
            g_rank: std::array::from_fn(|_| Signal::default()),
            g_target: std::array::from_fn(|_| Signal::default()),
            g_prio: std::array::from_fn(|_| Signal::default()),
            commit: Signal::default(),
            out_any: Signal::default(),
            out_slot: Signal::default(),
            pop: Signal::default(),
            left_after_pop: Signal::default(),
            c_slot: std::array::from_fn(|j| k(j as u64)),
            c_rank: std::array::from_fn(|r| k(r as u64)),
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
        }
    }
}

impl<
    const N: usize,
    const S: usize,
    const N1: usize,
    const NN: usize,
    const NC: usize,
    const T: usize,
> GrantScheduler<N, S, N1, NN, NC, T>
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

impl<
    const N: usize,
    const S: usize,
    const N1: usize,
    const NN: usize,
    const NC: usize,
    const T: usize,
> Default for GrantScheduler<N, S, N1, NN, NC, T>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<
    const N: usize,
    const S: usize,
    const N1: usize,
    const NN: usize,
    const NC: usize,
    const T: usize,
> core::fmt::Debug for GrantScheduler<N, S, N1, NN, NC, T>
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GrantScheduler")
            .field("slots", &N)
            .field("tracked", &self.occ.q.val())
            .finish_non_exhaustive()
    }
}

impl<
    const N: usize,
    const S: usize,
    const N1: usize,
    const NN: usize,
    const NC: usize,
    const T: usize,
> Logic for GrantScheduler<N, S, N1, NN, NC, T>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, age_ctr, dec_pending, occ, n_grants, n_full);

        // ---- Output: the queued grant of the lowest rank. ----
        self.out_any.next = false;
        self.out_slot.next = self.c_zero_s.val();
        for rr in 0..9 {
            for j in 0..N {
                if self.gq[j].q.val() & (self.gq_rank[j].q.val() == self.c_rank[8 - rr].val()) {
                    self.out_any.next = true;
                    self.out_slot.next = self.c_slot[j].val();
                }
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
        self.m_grant_offset.next = self.gq_off[0].q.val();
        self.m_grant_priority.next = self.gq_prio[0].q.val();
        self.left_after_pop.next = false;
        for j in 0..N {
            if self.out_slot.val() == self.c_slot[j].val() {
                self.m_grant_peer.next = self.peer[j].q.val();
                self.m_grant_mac.next = self.mac[j].q.val();
                self.m_grant_id.next = self.id[j].q.val();
                self.m_grant_sport.next = self.dport[j].q.val();
                self.m_grant_dport.next = self.sport[j].q.val();
                self.m_grant_offset.next = self.gq_off[j].q.val();
                self.m_grant_priority.next = self.gq_prio[j].q.val();
            }
            if self.gq[j].q.val()
                & !(self.pop.val() & (self.out_slot.val() == self.c_slot[j].val()))
            {
                self.left_after_pop.next = true;
            }
        }

        // ---- The decision, from the slot registers. ----
        for j in 0..N {
            self.cand[j].next =
                self.valid[j].q.val() & (self.granted[j].q.val() < self.len[j].q.val());
            self.rem[j].next = self.len[j].q.val() - self.recv[j].q.val();
        }
        // beat[i*N + j]: candidate i outranks candidate j; same[i*N + j]: same peer.
        for n in N..(N + 1) {
            for i in 0..N {
                for j in 0..N {
                    self.beat[i * n + j].next = self.cand[i].val()
                        & self.cand[j].val()
                        & ((self.rem[i].val() < self.rem[j].val())
                            | ((self.rem[i].val() == self.rem[j].val())
                                & ((self.age[i].q.val() - self.age[j].q.val())
                                    >= self.c_half32.val())));
                    self.same[i * n + j].next = self.peer[i].q.val() == self.peer[j].q.val();
                }
            }
        }
        // Each peer's best candidate is "first"; the others are "second".
        for n in N..(N + 1) {
            for j in 0..N {
                self.first[j].next = self.cand[j].val();
                for i in 0..N {
                    if self.beat[i * n + j].val() & self.same[i * n + j].val() {
                        self.first[j].next = false;
                    }
                }
                self.second[j].next = self.cand[j].val() & !self.first[j].val();
            }
        }
        // Counter chains: c_x[j*(N+1) + i + 1] = c_x[j*(N+1) + i] + (x_i outranks j).
        for n in N..(N + 1) {
            for j in 0..N {
                self.c_first[j * (n + 1)].next = self.c_zero8.val();
                self.c_second[j * (n + 1)].next = self.c_zero8.val();
                for i in 0..N {
                    self.c_first[j * (n + 1) + i + 1].next = self.c_first[j * (n + 1) + i].val();
                    if self.first[i].val() & self.beat[i * n + j].val() {
                        self.c_first[j * (n + 1) + i + 1].next =
                            self.c_first[j * (n + 1) + i].val() + self.c_one8.val();
                    }
                    self.c_second[j * (n + 1) + i + 1].next = self.c_second[j * (n + 1) + i].val();
                    if self.second[i].val() & self.beat[i * n + j].val() {
                        self.c_second[j * (n + 1) + i + 1].next =
                            self.c_second[j * (n + 1) + i].val() + self.c_one8.val();
                    }
                }
            }
            // The number of first candidates, and how many of them are taken.
            self.n_first_chain[0].next = self.c_zero8.val();
            for i in 0..N {
                self.n_first_chain[i + 1].next = self.n_first_chain[i].val();
                if self.first[i].val() {
                    self.n_first_chain[i + 1].next =
                        self.n_first_chain[i].val() + self.c_one8.val();
                }
            }
            self.n_first.next = self.n_first_chain[n].val();
        }
        self.f_taken.next = self.n_first.val();
        if self.n_first.val() > self.cfg_max_overcommit.val() {
            self.f_taken.next = self.cfg_max_overcommit.val();
        }
        for n in N..(N + 1) {
            for j in 0..N {
                self.chosen[j].next = (self.first[j].val()
                    & (self.c_first[j * (n + 1) + n].val() < self.cfg_max_overcommit.val()))
                    | (self.second[j].val()
                        & ((self.c_second[j * (n + 1) + n].val() + self.f_taken.val())
                            < self.cfg_max_overcommit.val()));
            }
            // Ranks among the chosen, and their number.
            for j in 0..N {
                self.c_chosen[j * (n + 1)].next = self.c_zero8.val();
                for i in 0..N {
                    self.c_chosen[j * (n + 1) + i + 1].next = self.c_chosen[j * (n + 1) + i].val();
                    if self.chosen[i].val() & self.beat[i * n + j].val() {
                        self.c_chosen[j * (n + 1) + i + 1].next =
                            self.c_chosen[j * (n + 1) + i].val() + self.c_one8.val();
                    }
                }
            }
            self.n_chosen_chain[0].next = self.c_zero8.val();
            for i in 0..N {
                self.n_chosen_chain[i + 1].next = self.n_chosen_chain[i].val();
                if self.chosen[i].val() {
                    self.n_chosen_chain[i + 1].next =
                        self.n_chosen_chain[i].val() + self.c_one8.val();
                }
            }
            self.n_active.next = self.n_chosen_chain[n].val();
            // Granted-but-unreceived bytes over every tracked message, saturating, as a
            // balanced tree (leaves 0..N, node N + k adds 2k and 2k + 1, root last): a
            // saturating sum of non-negative values is min(sum, 2^32 - 1) in any order, so
            // the tree equals a chain, in log2 N adders instead of N.
            for i in 0..N {
                self.out_tree[i].next = self.c_zero32.val();
                if self.valid[i].q.val() & (self.granted[i].q.val() > self.recv[i].q.val()) {
                    self.out_tree[i].next = self.granted[i].q.val() - self.recv[i].q.val();
                }
            }
            for k in 0..(N - 1) {
                self.out_tree[n + k].next =
                    self.out_tree[2 * k].val() + self.out_tree[2 * k + 1].val();
                if (self.out_tree[2 * k].val() + self.out_tree[2 * k + 1].val())
                    < self.out_tree[2 * k].val()
                {
                    self.out_tree[n + k].next = self.c_max32.val();
                }
            }
        }
        for r in (T - 1)..T {
            self.outstanding.next = self.out_tree[r].val();
        }
        self.window.next = self.cfg_window_0.val();
        if self.n_active.val() == self.c_rank[1].val() {
            self.window.next = self.cfg_window_1.val();
        }
        if self.n_active.val() == self.c_rank[2].val() {
            self.window.next = self.cfg_window_2.val();
        }
        if self.n_active.val() == self.c_rank[3].val() {
            self.window.next = self.cfg_window_3.val();
        }
        if self.n_active.val() == self.c_rank[4].val() {
            self.window.next = self.cfg_window_4.val();
        }
        if self.n_active.val() == self.c_rank[5].val() {
            self.window.next = self.cfg_window_5.val();
        }
        if self.n_active.val() == self.c_rank[6].val() {
            self.window.next = self.cfg_window_6.val();
        }
        if self.n_active.val() == self.c_rank[7].val() {
            self.window.next = self.cfg_window_7.val();
        }
        if self.n_active.val() == self.c_rank[8].val() {
            self.window.next = self.cfg_window_8.val();
        }
        self.headroom[0].next = self.c_zero32.val();
        if self.cfg_max_incoming.val() > self.outstanding.val() {
            self.headroom[0].next = self.cfg_max_incoming.val() - self.outstanding.val();
        }
        self.levels.next = self.cfg_max_sched_prio.val() + self.c_one8.val();
        // Rank by rank: the target within the headroom left by the better ranks.
        for n in N..(N + 1) {
            for r in 0..MAX_OVERCOMMIT {
                self.r_any[r].next = false;
                self.r_recv[r].next = self.c_zero32.val();
                self.r_len[r].next = self.c_zero32.val();
                self.r_granted[r].next = self.c_zero32.val();
                for j in 0..N {
                    if self.chosen[j].val()
                        & (self.c_chosen[j * (n + 1) + n].val() == self.c_rank[r].val())
                    {
                        self.r_any[r].next = true;
                        self.r_recv[r].next = self.recv[j].q.val();
                        self.r_len[r].next = self.len[j].q.val();
                        self.r_granted[r].next = self.granted[j].q.val();
                    }
                }
                self.r_sum[r].next = self.r_recv[r].val() + self.window.val();
                if self.r_sum[r].val() < self.r_recv[r].val() {
                    self.r_sum[r].next = self.c_max32.val();
                }
                self.r_want[r].next = self.r_sum[r].val();
                if self.r_len[r].val() < self.r_sum[r].val() {
                    self.r_want[r].next = self.r_len[r].val();
                }
                self.r_more[r].next = self.c_zero32.val();
                if self.r_any[r].val() & (self.r_want[r].val() > self.r_granted[r].val()) {
                    self.r_more[r].next = self.r_want[r].val() - self.r_granted[r].val();
                    if self.headroom[r].val() < (self.r_want[r].val() - self.r_granted[r].val()) {
                        self.r_more[r].next = self.headroom[r].val();
                    }
                }
                self.headroom[r + 1].next = self.headroom[r].val() - self.r_more[r].val();
                self.r_target[r].next = self.r_granted[r].val() + self.r_more[r].val();
                // sched_priority(r, n_active, max_sched_prio).
                self.r_prio0[r].next = self.c_zero8.val();
                if self.cfg_max_sched_prio.val() >= self.c_rank[r].val() {
                    self.r_prio0[r].next = self.cfg_max_sched_prio.val() - self.c_rank[r].val();
                }
                self.r_prio[r].next = self.r_prio0[r].val();
                if self.n_active.val() <= self.levels.val() {
                    self.r_prio[r].next = self.c_zero8.val();
                    if self.r_prio0[r].val() >= (self.levels.val() - self.n_active.val()) {
                        self.r_prio[r].next =
                            self.r_prio0[r].val() - (self.levels.val() - self.n_active.val());
                    }
                }
            }
        }
        // Back to slots.
        for n in N..(N + 1) {
            for j in 0..N {
                self.g_rank[j].next = self.c_chosen[j * (n + 1) + n].val();
                self.g_do[j].next = false;
                self.g_target[j].next = self.granted[j].q.val();
                self.g_prio[j].next = self.c_zero3.val();
                for r in 0..MAX_OVERCOMMIT {
                    if self.chosen[j].val()
                        & (self.c_chosen[j * (n + 1) + n].val() == self.c_rank[r].val())
                    {
                        self.g_do[j].next = self.r_more[r].val() != self.c_zero32.val();
                        self.g_target[j].next = self.r_target[r].val();
                        self.g_prio[j].next = self.r_prio[r]
                            .val()
                            .get_bits::<3>(self.c_bit0.val().index());
                    }
                }
            }
        }
        self.commit.next = self.dec_pending.q.val() & !self.left_after_pop.val();

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
        self.s_evt_ready.next = !self.dec_pending.q.val() | self.commit.val();
        self.fire.next = self.s_evt_valid.val() & self.s_evt_ready.val();
        self.needs.next = self.s_evt_incoming.val() < self.s_evt_length.val();
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
        self.trigger.next = self.fire.val()
            & (self.hit_any.val()
                | (self.needs.val() & (self.s_evt_new.val() != self.c_zero32.val())));
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
            self.gq_rank[j].clock.next = self.clock.val();
            self.gq_off[j].clock.next = self.clock.val();
            self.gq_prio[j].clock.next = self.clock.val();
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
            self.gq_rank[j].d.next = self.gq_rank[j].q.val();
            self.gq_off[j].d.next = self.gq_off[j].q.val();
            self.gq_prio[j].d.next = self.gq_prio[j].q.val();
            // The grant leaving now.
            if self.pop.val() & (self.out_slot.val() == self.c_slot[j].val()) {
                self.gq[j].d.next = false;
            }
            // The previous event's decision.
            if self.commit.val() & self.g_do[j].val() {
                self.granted[j].d.next = self.g_target[j].val();
                self.gq[j].d.next = true;
                self.gq_rank[j].d.next = self.g_rank[j].val();
                self.gq_off[j].d.next = self.g_target[j].val();
                self.gq_prio[j].d.next = self.g_prio[j].val();
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
        if self.trigger.val() {
            self.dec_pending.d.next = true;
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
