//! `GrantQueue`: the receiver's grant generator over every message of the message table
//! (`2^A` entries, 1,024 in `homa_rx_grant_n1024`), its state in block RAM. It takes the
//! decisions of [`crate::grant_queue_model::QueueReference`]: SRPT at packet granularity
//! (the [`BucketQueue`] keyed by `policy::bucket::packets_left`), the active set by
//! `policy::bucket::choose_active_queued` over the first 32 messages in queue order (at
//! most K = 8, one per peer first), and per rank `policy::window`, `policy::grant_target`
//! within the `max_incoming` budget and `policy::sched_priority`; and FIFO grants
//! (`QueueReference::fifo_grant`) on a timer of `cfg_fifo_interval` cycles.
//!
//! ```text
//!  s_evt_* (entry, DATA fields) ─► state RAM (2^A): valid, peer, length, received, granted
//!     │                           header RAM (2^A): id, ports, MAC (echoed by GRANTs)
//!     │ update, outstanding bytes ─► key = packets left (PacketsLeft) ─► queue SET/REMOVE
//!     ▼
//!  decision: walk the queue (≤ 32) ─► firsts / seconds per peer ─► ranks in queue order
//!     ─► per rank: window, target within the budget, priority ─► state write ─► m_grant_*
//!  FIFO timer ─► walk the age order ─► first in flight < window + 2 x increment
//!     ─► + increment (at most the rest) ─► state write ─► m_grant_*
//! ```
//!
//! One thing at a time, in a state machine, every RAM output registered before use:
//! - An event (`s_evt_*`, taken in `IDLE`) reads its entry; the update is worked out over
//!   three cycles (a hit on the entry's (peer, id), a new message taking it, or neither), the
//!   fourth writes it and moves the bytes granted and not received. A message that still
//!   needs grants gets its key from a radix-4 divider ([`PacketsLeft`], five cycles) and is
//!   set in the queue; one that no longer does is removed. An event of a message not tracked
//!   that needs no grants takes five cycles and changes nothing; one that sets a key about
//!   twelve.
//! - A decision follows a batch of events: when no event is offered, or after
//!   [`MAX_BATCH`] events, if any of them calls for one. It walks the queue, classifying each
//!   entry by its peer four cycles after the queue shows it (its state read, its peer
//!   compared with the peers seen, then the first of a peer or a second), stops at K firsts
//!   or 32 entries, and then grants rank by rank in queue order (six cycles a rank, one
//!   adder or compare per stage), removing a message from the queue once fully granted.
//!   `m_dec_start` marks the decision's first cycle, so that a bench decides over the same
//!   state.
//!
//! Cost: a walk shows its first entry about five cycles after it starts, then one entry a
//! cycle within a bucket and four or five across buckets; with K = 8 a decision takes about
//! 35 to 160 cycles. A decision waits for a pause in the events or [`MAX_BATCH`] of them, so
//! an idle receiver decides after every packet and a busy one coalesces: in the
//! co-simulation with every entry live and events offered in 70 % of cycles, one decision
//! covers 5.75 events and the block takes an event every 25.9 cycles, above the rate of full
//! packets at 100 Gb/s (one every 30.8 cycles at 250 MHz). With batches of four it was 36.2
//! cycles, below that rate.
//!
//! FIFO grants: a second [`BucketQueue`], `ages`, takes the queue's SETs and REMOVEs under one
//! key, so its one list holds the same messages in the order they entered the queue (a new
//! message is removed from it first, so that it joins at the tail even when it takes an
//! entry whose message was queued). Every `cfg_fifo_interval` cycles a FIFO grant is owed;
//! it goes before events and decisions: it walks the age order, tests each entry four cycles
//! after the walk shows it (needs grants; in flight below the last decision's window plus
//! twice `cfg_fifo_increment`), stops at the first that passes, and grants it
//! `cfg_fifo_increment` more bytes (the rest, at most) at `cfg_fifo_prio`, outside the
//! `max_incoming` budget as HomaModule's. `m_fifo_start` marks its first cycle. About fifteen
//! cycles and one per message passed over; one every 20,000 cycles at HomaModule's defaults
//! (50 KB at 5 % of 100 Gb/s, 250 MHz).
//!
//! After reset the block clears its state RAM over `2^A` cycles (`s_evt_ready` low).

mod records;
#[cfg(test)]
mod tests;

pub use records::{GqHeader, GqState};

use crate::bucket_queue::{BucketQueue, KEY_BITS, OP_REMOVE, OP_SET, OP_WALK};
use crate::hdl::*;
use crate::packets_left::PacketsLeft;

/// Events taken before a pending decision is made, while more are offered: eight keep a
/// receiver with every entry live at the full-packet rate of 100 Gb/s (four did not). The
/// GRANT offsets after a batch are those after its last packet, as HomaModule's own batching
/// of the packets of one interrupt.
pub const MAX_BATCH: usize = 8;

use crate::grant::MAX_OVERCOMMIT;

fn k<const M: usize>(v: u64) -> Constant<Bits<M>> {
    Constant::new(v.into())
}

/// The grant generator over `2^A` message-table entries.
#[derive(LogicBlock)]
pub struct GrantQueue<const A: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: forgets every message (then clears for `2^A` cycles).
    pub reset: Signal<In, Bit>,
    /// Overcommitment degree K (at most 8 are used).
    pub cfg_max_overcommit: Signal<In, Bits<8>>,
    /// The highest scheduled priority level (0-7).
    pub cfg_max_sched_prio: Signal<In, Bits<8>>,
    /// Limit on granted-but-unreceived bytes over all tracked messages.
    pub cfg_max_incoming: Signal<In, Bits<32>>,
    /// Payload bytes of a full DATA packet: the unit of the SRPT key (0 is taken as 1).
    pub cfg_max_payload: Signal<In, Bits<32>>,
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
    /// Cycles between FIFO grants; 0 turns them off (`FifoConfig::interval`).
    pub cfg_fifo_interval: Signal<In, Bits<32>>,
    /// Bytes each FIFO grant adds; 0 turns them off.
    pub cfg_fifo_increment: Signal<In, Bits<32>>,
    /// The level FIFO grants give.
    pub cfg_fifo_prio: Signal<In, Bits<3>>,
    /// A DATA packet's event is offered.
    pub s_evt_valid: Signal<In, Bit>,
    /// The event is taken this cycle (from registers only).
    pub s_evt_ready: Signal<Out, Bit>,
    /// The message's entry in the message table.
    pub s_evt_index: Signal<In, Bits<A>>,
    /// The sending peer (IPv4 address; also the fairness key).
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
    /// The granted message's table entry.
    pub m_grant_index: Signal<Out, Bits<A>>,
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
    /// A decision starts this cycle: it covers every event taken before.
    pub m_dec_start: Signal<Out, Bit>,
    /// A FIFO grant starts this cycle: it goes to the oldest message that qualifies after
    /// every event taken before.
    pub m_fifo_start: Signal<Out, Bit>,
    /// Messages tracked now.
    pub messages_tracked: Signal<Out, Bits<32>>,
    /// Messages queued for grants now.
    pub messages_queued: Signal<Out, Bits<16>>,
    /// GRANTs emitted (free-running).
    pub grants_sent: Signal<Out, Bits<32>>,
    /// Decisions taken (free-running).
    pub decisions: Signal<Out, Bits<32>>,
    /// FIFO grants emitted (free-running; part of `grants_sent`).
    pub fifo_grants: Signal<Out, Bits<32>>,
    /// Messages that took an entry another message still held (free-running).
    pub evictions: Signal<Out, Bits<32>>,
    /// Nothing in work: no event being taken in, no decision owed or under way, no GRANT
    /// offered (so the block changes nothing until an event comes).
    pub idle: Signal<Out, Bit>,

    queue: BucketQueue<A>,
    /// The messages of `queue` under one key: oldest first, for FIFO grants.
    ages: BucketQueue<A>,
    st: RAM<GqState, A>,
    hdr: RAM<GqHeader, A>,
    fsm: DFF<Bits<5>>,
    clr: DFF<Bits<A>>,
    // The RAMs' outputs, registered.
    rq: DFF<GqState>,
    hq: DFF<GqHeader>,
    // The event.
    e_idx: DFF<Bits<A>>,
    e_peer: DFF<Bits<32>>,
    e_id: DFF<Bits<64>>,
    e_sport: DFF<Bits<16>>,
    e_dport: DFF<Bits<16>>,
    e_mac: DFF<Bits<48>>,
    e_len: DFF<Bits<32>>,
    e_inc: DFF<Bits<32>>,
    e_new: DFF<Bits<32>>,
    e_end: DFF<Bits<32>>,
    // A new message's granted bytes: `max(incoming, end)` (taken), then at most the length (U0).
    e_ie: DFF<Bits<32>>,
    e_igr: DFF<Bits<32>>,
    // Its update.
    u_hit: DFF<Bit>,
    u_ins: DFF<Bit>,
    u_dec: DFF<Bit>,
    u_len: DFF<Bits<32>>,
    u_recv: DFF<Bits<32>>,
    u_gr: DFF<Bits<32>>,
    u_oldv: DFF<Bit>,
    u_oldq: DFF<Bit>,
    u_oldif: DFF<Bits<32>>,
    u_done: DFF<Bit>,
    u_vn: DFF<Bit>,
    u_newif: DFF<Bits<32>>,
    u_set: DFF<Bit>,
    u_rem: DFF<Bits<32>>,
    // The queue command and the key's divider.
    qop: DFF<Bits<2>>,
    pk: PacketsLeft,
    // Totals and the batch.
    outstanding: DFF<Bits<32>>,
    tracked: DFF<Bits<32>>,
    n_grants: DFF<Bits<32>>,
    n_dec: DFF<Bits<32>>,
    n_evict: DFF<Bits<32>>,
    dirty: DFF<Bit>,
    batch: DFF<Bits<4>>,
    dec: DFF<Bit>,
    // The walk: entries shown, the entry being classified, firsts and seconds.
    wcnt: DFF<Bits<6>>,
    wv1: DFF<Bit>,
    we1: DFF<Bits<A>>,
    wp1: DFF<Bits<6>>,
    wv2: DFF<Bit>,
    we2: DFF<Bits<A>>,
    wp2: DFF<Bits<6>>,
    wv3: DFF<Bit>,
    we3: DFF<Bits<A>>,
    wp3: DFF<Bits<6>>,
    wv4: DFF<Bit>,
    we4: DFF<Bits<A>>,
    wp4: DFF<Bits<6>>,
    ypeer: DFF<Bits<32>>,
    eq: [DFF<Bit>; MAX_OVERCOMMIT],
    eqp: DFF<Bit>,
    lastf: DFF<Bit>,
    nf: DFF<Bits<4>>,
    ns: DFF<Bits<4>>,
    seen: [DFF<Bits<32>>; MAX_OVERCOMMIT],
    f_idx: [DFF<Bits<A>>; MAX_OVERCOMMIT],
    f_pos: [DFF<Bits<6>>; MAX_OVERCOMMIT],
    s_idx: [DFF<Bits<A>>; MAX_OVERCOMMIT],
    s_pos: [DFF<Bits<6>>; MAX_OVERCOMMIT],
    // The ranks.
    gn: DFF<Bits<4>>,
    slim: DFF<Bits<4>>,
    gi: DFF<Bits<4>>,
    gj: DFF<Bits<4>>,
    gr: DFF<Bits<4>>,
    win: DFF<Bits<32>>,
    room: DFF<Bits<32>>,
    gidx: DFF<Bits<A>>,
    // The next rank's entry and list, worked out a cycle ahead (gi, gj change only in G0).
    p_idx: DFF<Bits<A>>,
    p_take: DFF<Bit>,
    g_w0: DFF<Bits<32>>,
    g_want: DFF<Bits<32>>,
    g_wl: DFF<Bit>,
    g_diff: DFF<Bits<32>>,
    g_need: DFF<Bit>,
    g_do: DFF<Bit>,
    g_full: DFF<Bit>,
    g_more: DFF<Bits<32>>,
    g_tgt: DFF<Bits<32>>,
    g_prio: DFF<Bits<3>>,
    // FIFO grants: the timer, a grant owed, its start, the walk's test of each entry (in
    // flight below `f_lim`), the drain after the walk and the grant's sums.
    fcnt: DFF<Bits<32>>,
    n_fifo: DFF<Bits<32>>,
    fdue: DFF<Bit>,
    fst: DFF<Bit>,
    wset: DFF<Bit>,
    f_lim: DFF<Bits<32>>,
    f_ok1: DFF<Bit>,
    f_if: DFF<Bits<32>>,
    f_drain: DFF<Bits<3>>,
    f_diff: DFF<Bits<32>>,
    f_sum: DFF<Bits<32>>,
    // The GRANT offered.
    ov: DFF<Bit>,
    o_idx: DFF<Bits<A>>,
    o_peer: DFF<Bits<32>>,
    o_mac: DFF<Bits<48>>,
    o_id: DFF<Bits<64>>,
    o_sport: DFF<Bits<16>>,
    o_dport: DFF<Bits<16>>,
    o_off: DFF<Bits<32>>,
    o_prio: DFF<Bits<3>>,

    // Combinational.
    kk: Signal<Local, Bits<4>>,
    fire: Signal<Local, Bit>,
    hit: Signal<Local, Bit>,
    needs: Signal<Local, Bit>,
    new_nz: Signal<Local, Bit>,
    sum_r: Signal<Local, Bits<32>>,
    top_a: Signal<Local, Bit>,
    top_b: Signal<Local, Bit>,
    top_s: Signal<Local, Bit>,
    wrec: Signal<Local, GqState>,
    whdr: Signal<Local, GqHeader>,
    prio_max: Signal<Local, Bits<4>>,
    stop: Signal<Local, Bit>,
    peer_seen: Signal<Local, Bit>,
    take_f: Signal<Local, Bit>,
    fi_idx: Signal<Local, Bits<A>>,
    fi_pos: Signal<Local, Bits<6>>,
    sj_idx: Signal<Local, Bits<A>>,
    sj_pos: Signal<Local, Bits<6>>,
    pick: Signal<Local, Bits<A>>,
    k_left: Signal<Local, Bits<4>>,
    n_act: Signal<Local, Bits<4>>,
    want0: Signal<Local, Bits<32>>,
    more: Signal<Local, Bits<32>>,
    levels: Signal<Local, Bits<4>>,
    gap: Signal<Local, Bits<4>>,
    p0: Signal<Local, Bits<4>>,
    p1: Signal<Local, Bits<4>>,
    out_free: Signal<Local, Bit>,
    f_on: Signal<Local, Bit>,
    f_win: Signal<Local, Bits<32>>,
    f_two: Signal<Local, Bits<32>>,
    f_l0: Signal<Local, Bits<32>>,
    f_l1: Signal<Local, Bits<32>>,
    f_found: Signal<Local, Bit>,
    f_walking: Signal<Local, Bit>,
    both_ready: Signal<Local, Bit>,

    // States.
    s_clr: Constant<Bits<5>>,
    s_idle: Constant<Bits<5>>,
    s_u0: Constant<Bits<5>>,
    s_u1: Constant<Bits<5>>,
    s_u2: Constant<Bits<5>>,
    s_u3: Constant<Bits<5>>,
    s_u4: Constant<Bits<5>>,
    s_div: Constant<Bits<5>>,
    s_qc: Constant<Bits<5>>,
    s_w0: Constant<Bits<5>>,
    s_wk: Constant<Bits<5>>,
    s_wd: Constant<Bits<5>>,
    s_wd2: Constant<Bits<5>>,
    s_wd3: Constant<Bits<5>>,
    s_wd4: Constant<Bits<5>>,
    s_mg: Constant<Bits<5>>,
    s_mw: Constant<Bits<5>>,
    s_g0: Constant<Bits<5>>,
    s_ga: Constant<Bits<5>>,
    s_gb: Constant<Bits<5>>,
    s_gc: Constant<Bits<5>>,
    s_ge: Constant<Bits<5>>,
    s_g2: Constant<Bits<5>>,
    s_gr: Constant<Bits<5>>,
    s_f0: Constant<Bits<5>>,
    s_fk: Constant<Bits<5>>,
    s_fd: Constant<Bits<5>>,
    s_fa: Constant<Bits<5>>,
    s_fb: Constant<Bits<5>>,
    s_fc: Constant<Bits<5>>,
    s_fe: Constant<Bits<5>>,
    c_drain: Constant<Bits<3>>,
    c_one3: Constant<Bits<3>>,
    c_zero3: Constant<Bits<3>>,
    c_set: Constant<Bits<2>>,
    c_remove: Constant<Bits<2>>,
    c_walk: Constant<Bits<2>>,
    c4: [Constant<Bits<4>>; 9],
    c_zero4: Constant<Bits<4>>,
    c_one4: Constant<Bits<4>>,
    c_max_k: Constant<Bits<4>>,
    c_batch: Constant<Bits<4>>,
    c_zero6: Constant<Bits<6>>,
    c_one6: Constant<Bits<6>>,
    c_last6: Constant<Bits<6>>,
    c_k8: Constant<Bits<8>>,
    c_zero32: Constant<Bits<32>>,
    c_one32: Constant<Bits<32>>,
    c_max32: Constant<Bits<32>>,
    c_top32: Constant<Bits<32>>,
    c_zero_k: Constant<Bits<KEY_BITS>>,
    c_zero_e: Constant<Bits<A>>,
    c_one_e: Constant<Bits<A>>,
    c_last_e: Constant<Bits<A>>,
}

/// The instance over 1,024 entries (module `homa_rx_grant_n1024`).
pub type GrantQueue1024 = GrantQueue<10>;

impl<const A: usize> Default for GrantQueue<A> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const A: usize> core::fmt::Debug for GrantQueue<A> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GrantQueue")
            .field("entries", &(1usize << A))
            .finish_non_exhaustive()
    }
}

impl<const A: usize> GrantQueue<A> {
    /// A generator that knows no message after reset.
    pub fn new() -> Self {
        fn arr<X: Default, const M: usize>() -> [X; M] {
            std::array::from_fn(|_| X::default())
        }
        Self {
            clock: Signal::default(),
            reset: Signal::default(),
            cfg_max_overcommit: Signal::default(),
            cfg_max_sched_prio: Signal::default(),
            cfg_max_incoming: Signal::default(),
            cfg_max_payload: Signal::default(),
            cfg_window_0: Signal::default(),
            cfg_window_1: Signal::default(),
            cfg_window_2: Signal::default(),
            cfg_window_3: Signal::default(),
            cfg_window_4: Signal::default(),
            cfg_window_5: Signal::default(),
            cfg_window_6: Signal::default(),
            cfg_window_7: Signal::default(),
            cfg_window_8: Signal::default(),
            cfg_fifo_interval: Signal::default(),
            cfg_fifo_increment: Signal::default(),
            cfg_fifo_prio: Signal::default(),
            s_evt_valid: Signal::default(),
            s_evt_ready: Signal::default(),
            s_evt_index: Signal::default(),
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
            m_grant_index: Signal::default(),
            m_grant_peer: Signal::default(),
            m_grant_mac: Signal::default(),
            m_grant_id: Signal::default(),
            m_grant_sport: Signal::default(),
            m_grant_dport: Signal::default(),
            m_grant_offset: Signal::default(),
            m_grant_priority: Signal::default(),
            m_dec_start: Signal::default(),
            m_fifo_start: Signal::default(),
            messages_tracked: Signal::default(),
            messages_queued: Signal::default(),
            grants_sent: Signal::default(),
            decisions: Signal::default(),
            fifo_grants: Signal::default(),
            evictions: Signal::default(),
            idle: Signal::default(),
            queue: BucketQueue::new(),
            ages: BucketQueue::new(),
            st: RAM::default(),
            hdr: RAM::default(),
            fsm: DFF::default(),
            clr: DFF::default(),
            rq: DFF::default(),
            hq: DFF::default(),
            e_idx: DFF::default(),
            e_peer: DFF::default(),
            e_id: DFF::default(),
            e_sport: DFF::default(),
            e_dport: DFF::default(),
            e_mac: DFF::default(),
            e_len: DFF::default(),
            e_inc: DFF::default(),
            e_new: DFF::default(),
            e_end: DFF::default(),
            e_ie: DFF::default(),
            e_igr: DFF::default(),
            u_hit: DFF::default(),
            u_ins: DFF::default(),
            u_dec: DFF::default(),
            u_len: DFF::default(),
            u_recv: DFF::default(),
            u_gr: DFF::default(),
            u_oldv: DFF::default(),
            u_oldq: DFF::default(),
            u_oldif: DFF::default(),
            u_done: DFF::default(),
            u_vn: DFF::default(),
            u_newif: DFF::default(),
            u_set: DFF::default(),
            u_rem: DFF::default(),
            qop: DFF::default(),
            pk: PacketsLeft::default(),
            outstanding: DFF::default(),
            tracked: DFF::default(),
            n_grants: DFF::default(),
            n_dec: DFF::default(),
            n_evict: DFF::default(),
            dirty: DFF::default(),
            batch: DFF::default(),
            dec: DFF::default(),
            wcnt: DFF::default(),
            wv1: DFF::default(),
            we1: DFF::default(),
            wp1: DFF::default(),
            wv2: DFF::default(),
            we2: DFF::default(),
            wp2: DFF::default(),
            wv3: DFF::default(),
            we3: DFF::default(),
            wp3: DFF::default(),
            wv4: DFF::default(),
            we4: DFF::default(),
            wp4: DFF::default(),
            ypeer: DFF::default(),
            eq: arr(),
            eqp: DFF::default(),
            lastf: DFF::default(),
            nf: DFF::default(),
            ns: DFF::default(),
            seen: arr(),
            f_idx: arr(),
            f_pos: arr(),
            s_idx: arr(),
            s_pos: arr(),
            gn: DFF::default(),
            slim: DFF::default(),
            gi: DFF::default(),
            gj: DFF::default(),
            gr: DFF::default(),
            win: DFF::default(),
            room: DFF::default(),
            gidx: DFF::default(),
            p_idx: DFF::default(),
            p_take: DFF::default(),
            g_w0: DFF::default(),
            g_want: DFF::default(),
            g_wl: DFF::default(),
            g_diff: DFF::default(),
            g_need: DFF::default(),
            g_do: DFF::default(),
            g_full: DFF::default(),
            g_more: DFF::default(),
            g_tgt: DFF::default(),
            g_prio: DFF::default(),
            fcnt: DFF::default(),
            n_fifo: DFF::default(),
            fdue: DFF::default(),
            fst: DFF::default(),
            wset: DFF::default(),
            f_lim: DFF::default(),
            f_ok1: DFF::default(),
            f_if: DFF::default(),
            f_drain: DFF::default(),
            f_diff: DFF::default(),
            f_sum: DFF::default(),
            ov: DFF::default(),
            o_idx: DFF::default(),
            o_peer: DFF::default(),
            o_mac: DFF::default(),
            o_id: DFF::default(),
            o_sport: DFF::default(),
            o_dport: DFF::default(),
            o_off: DFF::default(),
            o_prio: DFF::default(),
            kk: Signal::default(),
            fire: Signal::default(),
            hit: Signal::default(),
            needs: Signal::default(),
            new_nz: Signal::default(),
            sum_r: Signal::default(),
            top_a: Signal::default(),
            top_b: Signal::default(),
            top_s: Signal::default(),
            wrec: Signal::default(),
            whdr: Signal::default(),
            prio_max: Signal::default(),
            stop: Signal::default(),
            peer_seen: Signal::default(),
            take_f: Signal::default(),
            fi_idx: Signal::default(),
            fi_pos: Signal::default(),
            sj_idx: Signal::default(),
            sj_pos: Signal::default(),
            pick: Signal::default(),
            k_left: Signal::default(),
            n_act: Signal::default(),
            want0: Signal::default(),
            more: Signal::default(),
            levels: Signal::default(),
            gap: Signal::default(),
            p0: Signal::default(),
            p1: Signal::default(),
            out_free: Signal::default(),
            f_on: Signal::default(),
            f_win: Signal::default(),
            f_two: Signal::default(),
            f_l0: Signal::default(),
            f_l1: Signal::default(),
            f_found: Signal::default(),
            f_walking: Signal::default(),
            both_ready: Signal::default(),
            s_clr: k(0),
            s_idle: k(1),
            s_u0: k(2),
            s_u1: k(3),
            s_u2: k(4),
            s_u3: k(5),
            s_u4: k(6),
            s_div: k(7),
            s_qc: k(8),
            s_w0: k(9),
            s_wk: k(10),
            s_wd: k(11),
            s_wd2: k(12),
            s_wd3: k(13),
            s_wd4: k(14),
            s_mg: k(15),
            s_mw: k(16),
            s_g0: k(17),
            s_ga: k(18),
            s_gb: k(19),
            s_gc: k(20),
            s_ge: k(21),
            s_g2: k(22),
            s_gr: k(23),
            s_f0: k(24),
            s_fk: k(25),
            s_fd: k(26),
            s_fa: k(27),
            s_fb: k(28),
            s_fc: k(29),
            s_fe: k(30),
            c_drain: k(4),
            c_one3: k(1),
            c_zero3: k(0),
            c_set: k(OP_SET),
            c_remove: k(OP_REMOVE),
            c_walk: k(OP_WALK),
            c4: std::array::from_fn(|j| k(j as u64)),
            c_zero4: k(0),
            c_one4: k(1),
            c_max_k: k(MAX_OVERCOMMIT as u64),
            c_batch: k(MAX_BATCH as u64),
            c_zero6: k(0),
            c_one6: k(1),
            c_last6: k((crate::grant_queue_model::LOOKAHEAD - 1) as u64),
            c_k8: k(MAX_OVERCOMMIT as u64),
            c_zero32: k(0),
            c_one32: k(1),
            c_max32: k(u64::from(u32::MAX)),
            c_top32: k(1 << 31),
            c_zero_k: k(0),
            c_zero_e: k(0),
            c_one_e: k(1),
            c_last_e: k((1 << A) - 1),
        }
    }

    /// A new block as the top level of a design: every input driven from outside, the
    /// rest connected (what the Verilog generator and the benches both start from).
    pub fn top_level() -> Self {
        let mut uut = Self::new();
        uut.clock.connect();
        uut.reset.connect();
        uut.cfg_max_overcommit.connect();
        uut.cfg_max_sched_prio.connect();
        uut.cfg_max_incoming.connect();
        uut.cfg_max_payload.connect();
        uut.cfg_window_0.connect();
        uut.cfg_window_1.connect();
        uut.cfg_window_2.connect();
        uut.cfg_window_3.connect();
        uut.cfg_window_4.connect();
        uut.cfg_window_5.connect();
        uut.cfg_window_6.connect();
        uut.cfg_window_7.connect();
        uut.cfg_window_8.connect();
        uut.cfg_fifo_interval.connect();
        uut.cfg_fifo_increment.connect();
        uut.cfg_fifo_prio.connect();
        uut.s_evt_valid.connect();
        uut.s_evt_index.connect();
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

impl<const A: usize> Logic for GrantQueue<A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            fsm,
            clr,
            rq,
            hq,
            e_idx,
            e_peer,
            e_id,
            e_sport,
            e_dport,
            e_mac,
            e_len,
            e_inc,
            e_new,
            e_end,
            e_ie,
            e_igr,
            u_hit,
            u_ins,
            u_dec,
            u_len,
            u_recv,
            u_gr,
            u_oldv,
            u_oldq,
            u_oldif,
            u_done,
            u_vn,
            u_newif,
            u_set,
            u_rem,
            qop,
            outstanding,
            tracked,
            n_grants,
            n_dec,
            n_evict,
            dirty,
            batch,
            dec,
            wcnt,
            wv1,
            we1,
            wp1,
            wv2,
            we2,
            wp2,
            wv3,
            we3,
            wp3,
            wv4,
            we4,
            wp4,
            ypeer,
            eqp,
            lastf,
            nf,
            ns,
            gn,
            slim,
            gi,
            gj,
            gr,
            win,
            room,
            gidx,
            p_idx,
            p_take,
            g_w0,
            g_want,
            g_wl,
            g_diff,
            g_need,
            g_do,
            g_full,
            g_more,
            g_tgt,
            g_prio,
            fcnt,
            n_fifo,
            fdue,
            fst,
            wset,
            f_lim,
            f_ok1,
            f_if,
            f_drain,
            f_diff,
            f_sum,
            ov,
            o_idx,
            o_peer,
            o_mac,
            o_id,
            o_sport,
            o_dport,
            o_off,
            o_prio
        );
        for j in 0..MAX_OVERCOMMIT {
            self.seen[j].clock.next = self.clock.val();
            self.eq[j].clock.next = self.clock.val();
            self.f_idx[j].clock.next = self.clock.val();
            self.f_pos[j].clock.next = self.clock.val();
            self.s_idx[j].clock.next = self.clock.val();
            self.s_pos[j].clock.next = self.clock.val();
            self.seen[j].d.next = self.seen[j].q.val();
            self.f_idx[j].d.next = self.f_idx[j].q.val();
            self.f_pos[j].d.next = self.f_pos[j].q.val();
            self.s_idx[j].d.next = self.s_idx[j].q.val();
            self.s_pos[j].d.next = self.s_pos[j].q.val();
        }
        self.queue.clock.next = self.clock.val();
        self.queue.reset.next = self.reset.val();
        self.ages.clock.next = self.clock.val();
        self.ages.reset.next = self.reset.val();
        self.st.read_clock.next = self.clock.val();
        self.st.write_clock.next = self.clock.val();
        self.hdr.read_clock.next = self.clock.val();
        self.hdr.write_clock.next = self.clock.val();

        // K, at most 8.
        self.kk.next = self.c_max_k.val();
        if self.cfg_max_overcommit.val() < self.c_k8.val() {
            self.kk.next = self.cfg_max_overcommit.val().get_bits::<4>(0);
        }

        // ---- The ranks: the next one is the earlier of the next first and next second. ----
        self.fi_idx.next = self.f_idx[0].q.val();
        self.fi_pos.next = self.f_pos[0].q.val();
        self.sj_idx.next = self.s_idx[0].q.val();
        self.sj_pos.next = self.s_pos[0].q.val();
        for j in 0..MAX_OVERCOMMIT {
            if self.gi.q.val() == self.c4[j].val() {
                self.fi_idx.next = self.f_idx[j].q.val();
                self.fi_pos.next = self.f_pos[j].q.val();
            }
            if self.gj.q.val() == self.c4[j].val() {
                self.sj_idx.next = self.s_idx[j].q.val();
                self.sj_pos.next = self.s_pos[j].q.val();
            }
        }
        self.take_f.next = (self.gi.q.val() < self.nf.q.val())
            & ((self.gj.q.val() >= self.slim.q.val()) | (self.fi_pos.val() < self.sj_pos.val()));
        self.pick.next = self.sj_idx.val();
        if self.take_f.val() {
            self.pick.next = self.fi_idx.val();
        }
        // ---- The RAMs' read port: the offered event's entry while idle, the walked entry
        // while walking, the picked rank's entry, else the held entry. ----
        self.st.read_address.next = self.e_idx.q.val();
        self.hdr.read_address.next = self.e_idx.q.val();
        if self.fsm.q.val() == self.s_idle.val() {
            self.st.read_address.next = self.s_evt_index.val();
            self.hdr.read_address.next = self.s_evt_index.val();
        }
        self.f_walking.next =
            (self.fsm.q.val() == self.s_fk.val()) | (self.fsm.q.val() == self.s_fd.val());
        if (self.fsm.q.val() == self.s_wk.val())
            | (self.fsm.q.val() == self.s_wd.val())
            | self.f_walking.val()
        {
            self.st.read_address.next = self.we1.q.val();
        }
        self.p_idx.d.next = self.pick.val();
        self.p_take.d.next = self.take_f.val();
        if self.fsm.q.val() == self.s_g0.val() {
            self.st.read_address.next = self.p_idx.q.val();
            self.hdr.read_address.next = self.p_idx.q.val();
        }
        if ((self.fsm.q.val() >= self.s_ga.val()) & (self.fsm.q.val() <= self.s_gr.val()))
            | ((self.fsm.q.val() >= self.s_fa.val()) & (self.fsm.q.val() <= self.s_fe.val()))
        {
            self.st.read_address.next = self.gidx.q.val();
            self.hdr.read_address.next = self.gidx.q.val();
        }
        self.rq.d.next = self.st.read_data.val();
        self.hq.d.next = self.hdr.read_data.val();

        // ---- Event intake. ----
        self.s_evt_ready.next = (self.fsm.q.val() == self.s_idle.val())
            & !(self.dirty.q.val() & (self.batch.q.val() >= self.c_batch.val()))
            & !self.fdue.q.val();
        self.fire.next = self.s_evt_valid.val() & self.s_evt_ready.val();

        // ---- U1: the update, from the entry as read. ----
        self.hit.next = self.rq.q.val().valid
            & (self.rq.q.val().peer == self.e_peer.q.val())
            & (self.hq.q.val().id == self.e_id.q.val());
        self.needs.next = self.e_inc.q.val() < self.e_len.q.val();
        self.new_nz.next = self.e_new.q.val() != self.c_zero32.val();
        // Saturated: an unsigned add overflows when both top bits are set, or one is and the
        // sum's is not (from the top bits alone, beside the adder rather than after it).
        self.sum_r.next = self.rq.q.val().received + self.e_new.q.val();
        self.top_a.next = (self.rq.q.val().received & self.c_top32.val()) != self.c_zero32.val();
        self.top_b.next = (self.e_new.q.val() & self.c_top32.val()) != self.c_zero32.val();
        self.top_s.next = (self.sum_r.val() & self.c_top32.val()) != self.c_zero32.val();
        if (self.top_a.val() & self.top_b.val())
            | ((self.top_a.val() | self.top_b.val()) & !self.top_s.val())
        {
            self.sum_r.next = self.c_max32.val();
        }

        // The key's divider: started as an update that sets a key is written.
        self.pk.clock.next = self.clock.val();
        self.pk.reset.next = self.reset.val();
        self.pk.start.next = false;
        self.pk.bytes.next = self.u_rem.q.val();
        self.pk.max_payload.next = self.cfg_max_payload.val();

        // ---- The walk's classification of the entry read. ----
        // Stage X (the entry's state just read): its peer against every peer seen so far, and
        // against the entry classified in this cycle (stage Y), which may add its own.
        for j in 0..MAX_OVERCOMMIT {
            self.eq[j].d.next = (self.c4[j].val() < self.nf.q.val())
                & (self.seen[j].q.val() == self.rq.q.val().peer);
        }
        self.eqp.d.next = self.wv4.q.val() & (self.rq.q.val().peer == self.ypeer.q.val());
        self.ypeer.d.next = self.rq.q.val().peer;
        // Stage Y: a second when a first of its peer came before.
        self.peer_seen.next = self.eqp.q.val() & self.lastf.q.val();
        for j in 0..MAX_OVERCOMMIT {
            if self.eq[j].q.val() {
                self.peer_seen.next = true;
            }
        }
        self.stop.next = (self.fsm.q.val() == self.s_wk.val())
            & ((self.nf.q.val() == self.kk.val())
                | (self.queue.m_walk_valid.val() & (self.wcnt.q.val() == self.c_last6.val())));

        self.k_left.next = self.kk.val() - self.nf.q.val();
        self.n_act.next = self.nf.q.val() + self.ns.q.val();
        if self.ns.q.val() > self.k_left.val() {
            self.n_act.next = self.nf.q.val() + self.k_left.val();
        }
        // The target within the budget: `received + window` (saturated), at most the length;
        // what it adds, at most the room left.
        self.want0.next = self.rq.q.val().received + self.win.q.val();
        if self.want0.val() < self.rq.q.val().received {
            self.want0.next = self.c_max32.val();
        }
        self.more.next = self.g_diff.q.val();
        if self.room.q.val() < self.g_diff.q.val() {
            self.more.next = self.room.q.val();
        }
        self.prio_max.next = self.cfg_max_sched_prio.val().get_bits::<4>(0);
        self.levels.next = self.prio_max.val() + self.c_one4.val();
        self.gap.next = self.levels.val() - self.gn.q.val();
        self.p0.next = self.c_zero4.val();
        if self.prio_max.val() >= self.gr.q.val() {
            self.p0.next = self.prio_max.val() - self.gr.q.val();
        }
        self.p1.next = self.p0.val();
        if self.gn.q.val() <= self.levels.val() {
            self.p1.next = self.c_zero4.val();
            if self.p0.val() >= self.gap.val() {
                self.p1.next = self.p0.val() - self.gap.val();
            }
        }
        self.out_free.next = !self.ov.q.val() | self.m_grant_ready.val();

        // ---- FIFO grants: the timer, the limit on bytes in flight, the walk's test. ----
        self.f_on.next = (self.cfg_fifo_interval.val() != self.c_zero32.val())
            & (self.cfg_fifo_increment.val() != self.c_zero32.val());
        self.fcnt.d.next = self.fcnt.q.val() + self.c_one32.val();
        if self.fcnt.q.val() >= self.cfg_fifo_interval.val() {
            self.fcnt.d.next = self.c_one32.val();
            self.fdue.d.next = true;
        }
        if !self.f_on.val() {
            self.fcnt.d.next = self.c_zero32.val();
            self.fdue.d.next = false;
        }
        self.fst.d.next = false;
        // `window + 2 * increment`, saturated; the window of the last decision (before any,
        // the window with none active).
        self.f_win.next = self.cfg_window_0.val();
        if self.wset.q.val() {
            self.f_win.next = self.win.q.val();
        }
        self.f_two.next = self.cfg_fifo_increment.val() << self.c_one32.val();
        if (self.cfg_fifo_increment.val() & self.c_top32.val()) != self.c_zero32.val() {
            self.f_two.next = self.c_max32.val();
        }
        self.f_l0.next = self.f_win.val() + self.f_two.val();
        self.f_l1.next = self.f_l0.val();
        if self.f_l0.val() < self.f_win.val() {
            self.f_l1.next = self.c_max32.val();
        }
        // Stage X of the walk: the entry needs grants, and its bytes in flight.
        self.f_ok1.d.next =
            self.rq.q.val().valid & (self.rq.q.val().granted < self.rq.q.val().length);
        self.f_if.d.next = self.c_zero32.val();
        if self.rq.q.val().granted > self.rq.q.val().received {
            self.f_if.d.next = self.rq.q.val().granted - self.rq.q.val().received;
        }
        // Stage Y: the first entry that qualifies is the one.
        self.f_found.next = self.f_walking.val()
            & self.wv4.q.val()
            & self.f_ok1.q.val()
            & (self.f_if.q.val() < self.f_lim.q.val());

        // ---- Writes: the event's update (U2), a grant (G2), the clearing sweep. ----
        self.wrec.next = self.rq.q.val();
        self.wrec.next.valid = self.u_vn.q.val();
        self.wrec.next.peer = self.e_peer.q.val();
        self.wrec.next.length = self.u_len.q.val();
        self.wrec.next.received = self.u_recv.q.val();
        self.wrec.next.granted = self.u_gr.q.val();
        self.whdr.next.id = self.e_id.q.val();
        self.whdr.next.sport = self.e_sport.q.val();
        self.whdr.next.dport = self.e_dport.q.val();
        self.whdr.next.mac = self.e_mac.q.val();
        self.st.write_address.next = self.e_idx.q.val();
        self.st.write_enable.next = false;
        self.hdr.write_address.next = self.e_idx.q.val();
        self.hdr.write_data.next = self.whdr.val();
        self.hdr.write_enable.next = false;
        if self.fsm.q.val() == self.s_g2.val() {
            self.wrec.next = self.rq.q.val();
            self.wrec.next.granted = self.g_tgt.q.val();
            self.st.write_address.next = self.gidx.q.val();
        }
        if self.fsm.q.val() == self.s_clr.val() {
            self.wrec.next = self.rq.q.val();
            self.wrec.next.valid = false;
            self.st.write_address.next = self.clr.q.val();
        }
        self.st.write_data.next = self.wrec.val();

        // ---- The queue's command port. ----
        self.queue.s_cmd_valid.next = false;
        self.queue.s_cmd_op.next = self.qop.q.val();
        self.queue.s_cmd_entry.next = self.e_idx.q.val();
        self.queue.s_cmd_key.next = self.pk.key.val();
        self.queue.s_walk_stop.next = self.stop.val();
        // The age order takes the queue's SETs (under key 0: a message keeps its place) and
        // REMOVEs, a REMOVE before a new message's SET, and its own walks.
        self.both_ready.next = self.queue.s_cmd_ready.val() & self.ages.s_cmd_ready.val();
        self.ages.s_cmd_valid.next = false;
        self.ages.s_cmd_op.next = self.qop.q.val();
        self.ages.s_cmd_entry.next = self.e_idx.q.val();
        self.ages.s_cmd_key.next = self.c_zero_k.val();
        self.ages.s_walk_stop.next = self.f_found.val() & (self.fsm.q.val() == self.s_fk.val());

        // ---- The GRANT offered. ----
        if self.ov.q.val() & self.m_grant_ready.val() {
            self.ov.d.next = false;
        }
        self.dec.d.next = false;

        // ---- The state machine. ----
        if self.fsm.q.val() == self.s_clr.val() {
            self.st.write_enable.next = true;
            self.clr.d.next = self.clr.q.val() + self.c_one_e.val();
            if self.clr.q.val() == self.c_last_e.val() {
                self.fsm.d.next = self.s_idle.val();
            }
        }
        if self.fsm.q.val() == self.s_idle.val() {
            if self.fdue.q.val() {
                self.fdue.d.next = false;
                self.fst.d.next = true;
                self.fsm.d.next = self.s_f0.val();
            } else if self.fire.val() {
                self.e_idx.d.next = self.s_evt_index.val();
                self.e_peer.d.next = self.s_evt_peer.val();
                self.e_id.d.next = self.s_evt_id.val();
                self.e_sport.d.next = self.s_evt_sport.val();
                self.e_dport.d.next = self.s_evt_dport.val();
                self.e_mac.d.next = self.s_evt_mac.val();
                self.e_len.d.next = self.s_evt_length.val();
                self.e_inc.d.next = self.s_evt_incoming.val();
                self.e_new.d.next = self.s_evt_new.val();
                self.e_end.d.next = self.s_evt_end.val();
                self.e_ie.d.next = self.s_evt_incoming.val();
                if self.s_evt_end.val() > self.s_evt_incoming.val() {
                    self.e_ie.d.next = self.s_evt_end.val();
                }
                self.fsm.d.next = self.s_u0.val();
            } else if self.dirty.q.val() {
                self.dirty.d.next = false;
                self.batch.d.next = self.c_zero4.val();
                self.dec.d.next = true;
                self.n_dec.d.next = self.n_dec.q.val() + self.c_one32.val();
                self.fsm.d.next = self.s_w0.val();
            }
        }
        if self.fsm.q.val() == self.s_u0.val() {
            self.e_igr.d.next = self.e_ie.q.val();
            if self.e_ie.q.val() > self.e_len.q.val() {
                self.e_igr.d.next = self.e_len.q.val();
            }
            self.fsm.d.next = self.s_u1.val();
        }
        if self.fsm.q.val() == self.s_u1.val() {
            self.u_hit.d.next = self.hit.val();
            self.u_ins.d.next = !self.hit.val()
                & self.needs.val()
                & self.new_nz.val()
                & (self.e_new.q.val() < self.e_len.q.val());
            self.u_dec.d.next = self.hit.val() | (self.needs.val() & self.new_nz.val());
            self.u_oldv.d.next = self.rq.q.val().valid;
            self.u_oldq.d.next =
                self.rq.q.val().valid & (self.rq.q.val().granted < self.rq.q.val().length);
            self.u_oldif.d.next = self.c_zero32.val();
            if self.rq.q.val().valid & (self.rq.q.val().granted > self.rq.q.val().received) {
                self.u_oldif.d.next = self.rq.q.val().granted - self.rq.q.val().received;
            }
            if self.hit.val() {
                self.u_len.d.next = self.rq.q.val().length;
                self.u_recv.d.next = self.sum_r.val();
                self.u_gr.d.next = self.rq.q.val().granted;
                if self.e_end.q.val() > self.rq.q.val().granted {
                    self.u_gr.d.next = self.e_end.q.val();
                }
            } else {
                self.u_len.d.next = self.e_len.q.val();
                self.u_recv.d.next = self.e_new.q.val();
                self.u_gr.d.next = self.e_igr.q.val();
            }
            self.fsm.d.next = self.s_u2.val();
        }
        if self.fsm.q.val() == self.s_u2.val() {
            self.u_done.d.next = self.u_recv.q.val() >= self.u_len.q.val();
            self.u_vn.d.next = (self.u_hit.q.val() & (self.u_recv.q.val() < self.u_len.q.val()))
                | self.u_ins.q.val();
            self.u_newif.d.next = self.c_zero32.val();
            if (self.u_hit.q.val() | self.u_ins.q.val())
                & (self.u_recv.q.val() < self.u_len.q.val())
                & (self.u_gr.q.val() > self.u_recv.q.val())
            {
                self.u_newif.d.next = self.u_gr.q.val() - self.u_recv.q.val();
            }
            self.u_set.d.next = (self.u_hit.q.val() | self.u_ins.q.val())
                & (self.u_recv.q.val() < self.u_len.q.val())
                & (self.u_gr.q.val() < self.u_len.q.val());
            self.u_rem.d.next = self.u_len.q.val() - self.u_recv.q.val();
            self.fsm.d.next = self.s_u3.val();
        }
        if self.fsm.q.val() == self.s_u3.val() {
            if self.u_dec.q.val() {
                self.dirty.d.next = true;
            }
            if self.batch.q.val() < self.c_batch.val() {
                self.batch.d.next = self.batch.q.val() + self.c_one4.val();
            }
            self.fsm.d.next = self.s_idle.val();
            if self.u_hit.q.val() | self.u_ins.q.val() {
                self.st.write_enable.next = true;
                self.outstanding.d.next =
                    self.outstanding.q.val() - self.u_oldif.q.val() + self.u_newif.q.val();
                if self.u_ins.q.val() {
                    self.hdr.write_enable.next = true;
                    if self.u_oldv.q.val() {
                        self.n_evict.d.next = self.n_evict.q.val() + self.c_one32.val();
                    } else {
                        self.tracked.d.next = self.tracked.q.val() + self.c_one32.val();
                    }
                }
                if self.u_hit.q.val() & self.u_done.q.val() {
                    self.tracked.d.next = self.tracked.q.val() - self.c_one32.val();
                }
                if self.u_set.q.val() {
                    self.pk.start.next = true;
                    self.fsm.d.next = self.s_u4.val();
                } else if self.u_oldq.q.val() {
                    self.qop.d.next = self.c_remove.val();
                    self.fsm.d.next = self.s_qc.val();
                }
            }
        }
        if self.fsm.q.val() == self.s_u4.val() {
            // A new message is the youngest: out of the age order first, whatever the entry
            // held (the queue's SET below moves it within the queue by itself).
            self.qop.d.next = self.c_set.val();
            self.fsm.d.next = self.s_div.val();
            // A new message is the youngest: out of the age order first, whatever the entry
            // held (the queue's SET moves it within the queue by itself).
            if self.u_ins.q.val() {
                self.ages.s_cmd_valid.next = self.ages.s_cmd_ready.val();
                self.ages.s_cmd_op.next = self.c_remove.val();
                if !self.ages.s_cmd_ready.val() {
                    self.fsm.d.next = self.s_u4.val();
                }
            }
        }
        if (self.fsm.q.val() == self.s_div.val()) & self.pk.done.val() {
            self.fsm.d.next = self.s_qc.val();
        }
        if self.fsm.q.val() == self.s_qc.val() {
            self.queue.s_cmd_valid.next = self.both_ready.val();
            self.ages.s_cmd_valid.next = self.both_ready.val();
            if self.both_ready.val() {
                self.fsm.d.next = self.s_idle.val();
            }
        }
        if self.fsm.q.val() == self.s_w0.val() {
            self.queue.s_cmd_valid.next = true;
            self.queue.s_cmd_op.next = self.c_walk.val();
            self.wcnt.d.next = self.c_zero6.val();
            self.nf.d.next = self.c_zero4.val();
            self.ns.d.next = self.c_zero4.val();
            if self.queue.s_cmd_ready.val() {
                self.fsm.d.next = self.s_wk.val();
            }
        }
        self.wv1.d.next = false;
        self.we1.d.next = self.queue.m_walk_entry.val();
        if self.fsm.q.val() == self.s_fk.val() {
            self.we1.d.next = self.ages.m_walk_entry.val();
        }
        self.wp1.d.next = self.wcnt.q.val();
        self.wv2.d.next = self.wv1.q.val();
        self.we2.d.next = self.we1.q.val();
        self.wp2.d.next = self.wp1.q.val();
        self.wv3.d.next = self.wv2.q.val();
        self.we3.d.next = self.we2.q.val();
        self.wp3.d.next = self.wp2.q.val();
        self.wv4.d.next = self.wv3.q.val();
        self.we4.d.next = self.we3.q.val();
        self.wp4.d.next = self.wp3.q.val();
        self.lastf.d.next = false;
        if self.fsm.q.val() == self.s_wk.val() {
            if self.queue.m_walk_valid.val() {
                self.wv1.d.next = true;
                self.wcnt.d.next = self.wcnt.q.val() + self.c_one6.val();
            }
            if self.stop.val() | self.queue.m_walk_end.val() {
                self.fsm.d.next = self.s_wd.val();
            }
        }
        if self.wv4.q.val() & (self.nf.q.val() < self.kk.val()) {
            if self.peer_seen.val() {
                for j in 0..MAX_OVERCOMMIT {
                    if self.ns.q.val() == self.c4[j].val() {
                        self.s_idx[j].d.next = self.we4.q.val();
                        self.s_pos[j].d.next = self.wp4.q.val();
                    }
                }
                if self.ns.q.val() < self.c_max_k.val() {
                    self.ns.d.next = self.ns.q.val() + self.c_one4.val();
                }
            } else {
                for j in 0..MAX_OVERCOMMIT {
                    if self.nf.q.val() == self.c4[j].val() {
                        self.f_idx[j].d.next = self.we4.q.val();
                        self.f_pos[j].d.next = self.wp4.q.val();
                        self.seen[j].d.next = self.ypeer.q.val();
                    }
                }
                self.nf.d.next = self.nf.q.val() + self.c_one4.val();
                self.lastf.d.next = true;
            }
        }
        if self.fsm.q.val() == self.s_wd.val() {
            self.fsm.d.next = self.s_wd2.val();
        }
        if self.fsm.q.val() == self.s_wd2.val() {
            self.fsm.d.next = self.s_wd3.val();
        }
        if self.fsm.q.val() == self.s_wd3.val() {
            self.fsm.d.next = self.s_wd4.val();
        }
        if self.fsm.q.val() == self.s_wd4.val() {
            self.fsm.d.next = self.s_mg.val();
        }
        if self.fsm.q.val() == self.s_mg.val() {
            self.gn.d.next = self.n_act.val();
            self.slim.d.next = self.n_act.val() - self.nf.q.val();
            self.gi.d.next = self.c_zero4.val();
            self.gj.d.next = self.c_zero4.val();
            self.gr.d.next = self.c_zero4.val();
            self.room.d.next = self.c_zero32.val();
            if self.cfg_max_incoming.val() > self.outstanding.q.val() {
                self.room.d.next = self.cfg_max_incoming.val() - self.outstanding.q.val();
            }
            self.fsm.d.next = self.s_mw.val();
        }
        if self.fsm.q.val() == self.s_mw.val() {
            self.wset.d.next = true;
            self.win.d.next = self.cfg_window_0.val();
            if self.gn.q.val() == self.c4[1].val() {
                self.win.d.next = self.cfg_window_1.val();
            }
            if self.gn.q.val() == self.c4[2].val() {
                self.win.d.next = self.cfg_window_2.val();
            }
            if self.gn.q.val() == self.c4[3].val() {
                self.win.d.next = self.cfg_window_3.val();
            }
            if self.gn.q.val() == self.c4[4].val() {
                self.win.d.next = self.cfg_window_4.val();
            }
            if self.gn.q.val() == self.c4[5].val() {
                self.win.d.next = self.cfg_window_5.val();
            }
            if self.gn.q.val() == self.c4[6].val() {
                self.win.d.next = self.cfg_window_6.val();
            }
            if self.gn.q.val() == self.c4[7].val() {
                self.win.d.next = self.cfg_window_7.val();
            }
            if self.gn.q.val() == self.c4[8].val() {
                self.win.d.next = self.cfg_window_8.val();
            }
            self.fsm.d.next = self.s_g0.val();
            if self.gn.q.val() == self.c_zero4.val() {
                self.fsm.d.next = self.s_idle.val();
            }
        }
        if self.fsm.q.val() == self.s_g0.val() {
            self.gidx.d.next = self.p_idx.q.val();
            if self.p_take.q.val() {
                self.gi.d.next = self.gi.q.val() + self.c_one4.val();
            } else {
                self.gj.d.next = self.gj.q.val() + self.c_one4.val();
            }
            self.fsm.d.next = self.s_ga.val();
        }
        if self.fsm.q.val() == self.s_ga.val() {
            self.fsm.d.next = self.s_gb.val();
        }
        if self.fsm.q.val() == self.s_gb.val() {
            self.g_w0.d.next = self.want0.val();
            self.g_prio.d.next = self.p1.val().get_bits::<3>(0);
            self.fsm.d.next = self.s_gc.val();
        }
        // The wanted offset is the length or `received + window`, whichever is less: both
        // differences and compares with the granted offset are worked out beside the compare
        // that picks one.
        if self.fsm.q.val() == self.s_gc.val() {
            self.g_want.d.next = self.g_w0.q.val();
            self.g_diff.d.next = self.g_w0.q.val() - self.rq.q.val().granted;
            self.g_need.d.next = self.g_w0.q.val() > self.rq.q.val().granted;
            if self.rq.q.val().length < self.g_w0.q.val() {
                self.g_want.d.next = self.rq.q.val().length;
                self.g_diff.d.next = self.rq.q.val().length - self.rq.q.val().granted;
                self.g_need.d.next = self.rq.q.val().length > self.rq.q.val().granted;
            }
            self.g_wl.d.next = self.g_w0.q.val() >= self.rq.q.val().length;
            self.fsm.d.next = self.s_ge.val();
        }
        if self.fsm.q.val() == self.s_ge.val() {
            self.g_more.d.next = self.more.val();
            self.g_do.d.next = self.g_need.q.val()
                & (self.g_diff.q.val() != self.c_zero32.val())
                & (self.room.q.val() != self.c_zero32.val());
            self.g_full.d.next = self.g_need.q.val()
                & self.g_wl.q.val()
                & (self.room.q.val() >= self.g_diff.q.val());
            // The target: the wanted offset, or as far as the room goes.
            self.g_tgt.d.next = self.g_want.q.val();
            if self.room.q.val() < self.g_diff.q.val() {
                self.g_tgt.d.next = self.rq.q.val().granted + self.room.q.val();
            }
            self.fsm.d.next = self.s_g2.val();
        }
        if (self.fsm.q.val() == self.s_g2.val()) & (self.out_free.val() | !self.g_do.q.val()) {
            self.gr.d.next = self.gr.q.val() + self.c_one4.val();
            self.fsm.d.next = self.s_g0.val();
            if (self.gr.q.val() + self.c_one4.val()) == self.gn.q.val() {
                self.fsm.d.next = self.s_idle.val();
            }
            if self.g_do.q.val() {
                self.st.write_enable.next = true;
                self.room.d.next = self.room.q.val() - self.g_more.q.val();
                self.outstanding.d.next = self.outstanding.q.val() + self.g_more.q.val();
                self.n_grants.d.next = self.n_grants.q.val() + self.c_one32.val();
                self.ov.d.next = true;
                self.o_idx.d.next = self.gidx.q.val();
                self.o_peer.d.next = self.rq.q.val().peer;
                self.o_mac.d.next = self.hq.q.val().mac;
                self.o_id.d.next = self.hq.q.val().id;
                self.o_sport.d.next = self.hq.q.val().dport;
                self.o_dport.d.next = self.hq.q.val().sport;
                self.o_off.d.next = self.g_tgt.q.val();
                self.o_prio.d.next = self.g_prio.q.val();
                if self.g_full.q.val() {
                    self.fsm.d.next = self.s_gr.val();
                }
            }
        }
        if self.fsm.q.val() == self.s_gr.val() {
            self.queue.s_cmd_valid.next = self.both_ready.val();
            self.queue.s_cmd_op.next = self.c_remove.val();
            self.queue.s_cmd_entry.next = self.gidx.q.val();
            self.ages.s_cmd_valid.next = self.both_ready.val();
            self.ages.s_cmd_op.next = self.c_remove.val();
            self.ages.s_cmd_entry.next = self.gidx.q.val();
            if self.both_ready.val() {
                self.fsm.d.next = self.s_g0.val();
                if self.gr.q.val() == self.gn.q.val() {
                    self.fsm.d.next = self.s_idle.val();
                }
            }
        }
        // ---- A FIFO grant: walk the age order to the first message that qualifies (the
        // entries the walk shows after it are dropped), read it, work out the grant, then send
        // it as a decision's single rank (G2, and GR when it is granted in full). The walk's
        // stage Y above also classifies these entries for a decision; the next decision's
        // W0 starts that afresh. ----
        if self.fsm.q.val() == self.s_f0.val() {
            self.ages.s_cmd_valid.next = true;
            self.ages.s_cmd_op.next = self.c_walk.val();
            self.f_lim.d.next = self.f_l1.val();
            if self.ages.s_cmd_ready.val() {
                self.fsm.d.next = self.s_fk.val();
            }
        }
        if self.fsm.q.val() == self.s_fk.val() {
            if self.ages.m_walk_valid.val() {
                self.wv1.d.next = true;
            }
            if self.ages.m_walk_end.val() {
                self.f_drain.d.next = self.c_zero3.val();
                self.fsm.d.next = self.s_fd.val();
            }
        }
        if self.fsm.q.val() == self.s_fd.val() {
            self.f_drain.d.next = self.f_drain.q.val() + self.c_one3.val();
            if self.f_drain.q.val() == self.c_drain.val() {
                self.fsm.d.next = self.s_idle.val();
            }
        }
        if self.f_found.val() {
            self.gidx.d.next = self.we4.q.val();
            self.fsm.d.next = self.s_fa.val();
        }
        if self.fsm.q.val() == self.s_fa.val() {
            self.fsm.d.next = self.s_fb.val();
        }
        if self.fsm.q.val() == self.s_fb.val() {
            self.fsm.d.next = self.s_fc.val();
        }
        if self.fsm.q.val() == self.s_fc.val() {
            self.f_diff.d.next = self.rq.q.val().length - self.rq.q.val().granted;
            self.f_sum.d.next = self.rq.q.val().granted + self.cfg_fifo_increment.val();
            self.fsm.d.next = self.s_fe.val();
        }
        if self.fsm.q.val() == self.s_fe.val() {
            // Less than the rest: `increment` more; else the rest, and the message leaves
            // the queues. (The sum cannot wrap when it is taken.)
            self.g_do.d.next = true;
            self.g_full.d.next = self.cfg_fifo_increment.val() >= self.f_diff.q.val();
            self.g_tgt.d.next = self.f_sum.q.val();
            self.g_more.d.next = self.cfg_fifo_increment.val();
            if self.cfg_fifo_increment.val() >= self.f_diff.q.val() {
                self.g_tgt.d.next = self.rq.q.val().length;
                self.g_more.d.next = self.f_diff.q.val();
            }
            self.g_prio.d.next = self.cfg_fifo_prio.val();
            self.n_fifo.d.next = self.n_fifo.q.val() + self.c_one32.val();
            self.gn.d.next = self.c4[1].val();
            self.gr.d.next = self.c_zero4.val();
            self.fsm.d.next = self.s_g2.val();
        }
        if self.reset.val() {
            self.fsm.d.next = self.s_clr.val();
            self.clr.d.next = self.c_zero_e.val();
            self.outstanding.d.next = self.c_zero32.val();
            self.tracked.d.next = self.c_zero32.val();
            self.n_grants.d.next = self.c_zero32.val();
            self.n_dec.d.next = self.c_zero32.val();
            self.n_evict.d.next = self.c_zero32.val();
            self.dirty.d.next = false;
            self.batch.d.next = self.c_zero4.val();
            self.ov.d.next = false;
            self.dec.d.next = false;
            self.fcnt.d.next = self.c_zero32.val();
            self.n_fifo.d.next = self.c_zero32.val();
            self.fdue.d.next = false;
            self.fst.d.next = false;
            self.wset.d.next = false;
        }

        // ---- Outputs. ----
        self.m_grant_valid.next = self.ov.q.val();
        self.idle.next = (self.fsm.q.val() == self.s_idle.val())
            & !self.dirty.q.val()
            & !self.ov.q.val()
            & !self.fdue.q.val();
        self.m_grant_index.next = self.o_idx.q.val();
        self.m_grant_peer.next = self.o_peer.q.val();
        self.m_grant_mac.next = self.o_mac.q.val();
        self.m_grant_id.next = self.o_id.q.val();
        self.m_grant_sport.next = self.o_sport.q.val();
        self.m_grant_dport.next = self.o_dport.q.val();
        self.m_grant_offset.next = self.o_off.q.val();
        self.m_grant_priority.next = self.o_prio.q.val();
        self.m_dec_start.next = self.dec.q.val();
        self.m_fifo_start.next = self.fst.q.val();
        self.messages_tracked.next = self.tracked.q.val();
        self.messages_queued.next = self.queue.count.val();
        self.grants_sent.next = self.n_grants.q.val();
        self.decisions.next = self.n_dec.q.val();
        self.fifo_grants.next = self.n_fifo.q.val();
        self.evictions.next = self.n_evict.q.val();
    }
}
