//! `TxPark`: the transmit scheduler's second level. [`TxSched`](crate::tx_sched::TxSched)
//! keeps a few outbound messages in registers (four in the engine); the park keeps the rest
//! in a table of 1024 entries in block RAM. A message leaves its slot for the park when it
//! has sent every byte it was granted (it only waits: it comes back when a GRANT for it
//! arrives), or when a message that wants a slot has fewer bytes left than it (it is ready at
//! once, and comes back when its turn does), so the slots hold the shortest messages that
//! may send.
//!
//! ```text
//!  ring desc ─┬──────────────────────────────► mux ─► TxSched ─► waiting, most_*, park_*
//!             │ CANCEL                          ▲ r_* (resume, re-issued CANCEL)   │
//!  GRANT ─────┼─► TxSched: no slot matched ───► queue (64) ─► keys ─► entries ◄────┘ park
//!             │                                              │ hit: resume, or mark ready
//!             │                             packets left (divider) ─► ready queue ─► fetch
//!             │                                              └ miss: re-offer the GRANT
//! ```
//!
//! A message is found by its key (peer, RPC id) in a **key table** of two halves of 512
//! buckets, each bucket two ways (2,048 places, block RAM): the key may sit in either way of
//! its bucket in either half ([`H0`], [`H1`] of [`crate::key_hash`]), and its way names its **entry**
//! (1024, block RAM, allocated from a free list). Two choices of two ways seldom run out of
//! room before the entries do: in the fill model of the tests, random keys and interleaved
//! sequences of 4 to 64 peers all park 1024 messages (one direct-mapped table of 1024 took
//! 160-190).
//!
//! One sequential engine does everything that touches the tables, one step at a time:
//! - **Park**: when a descriptor (from the ring, or a resume) waits, every slot is taken and
//!   an entry is free, the highest waiting slot not tried yet is hashed, or, when no slot
//!   waits, the slot with the most bytes left (`most_*`, registered in the scheduler) if the
//!   descriptor has strictly fewer (`ring_bytes`, or the resume's `left`): a message that
//!   comes back never outranks the one that made room for it, so nothing swaps back and
//!   forth. The slot must still hold the message hashed when it leaves (a slot that finished
//!   and took another message meanwhile is left alone). A message that leaves with granted
//!   bytes to send joins the ready queue at once; if one of its four
//!   ways is free, the slot leaves into a free entry (`park_valid` with `park_ok`, see
//!   `TxSched16`). Four taken ways (or its own key already parked, a host's fault) are a
//!   collision: that slot is not tried again until a park succeeds or every waiting slot was
//!   tried.
//! - **Lookup**: a GRANT that matched no slot (`m_grant_hit` low) while anything is parked,
//!   and every CANCEL taken while anything is parked, enter a 64-entry queue and look up the
//!   key table, then the entry. A GRANT that finds its message brings it back (`r_*`,
//!   offered ahead of the ring with `r_resume`) with the GRANT applied (granted raised, never
//!   lowered; the scheduled priority). If another message holds the resume register (it
//!   waits for a slot), the GRANT is applied in the table instead and an entry it makes ready
//!   (granted above sent) joins the **ready queue** (below), so lookups
//!   go on behind a message that waits. A GRANT for the message in the resume register is
//!   applied there. A GRANT that finds nothing is offered once more to the scheduler
//!   (`ro_*`, when the parser offers none), since its message may have come back since it
//!   was queued; it is then counted there if it matches nothing again. A CANCEL waits for a
//!   free resume register, brings its message back if parked, then is issued again (`r_*`
//!   with `r_cancel`), for the message that came back or any that did while it waited.
//! - **Fetch**: when the resume register is free, the first ready entry is read and its
//!   message comes back. Fetches go first, then lookups and parks by turns.
//!
//! The **ready queue** is a [`BucketQueue`] over the entries, keyed by the packets of TX
//! `max_payload` bytes each message has left (`policy::bucket::packets_left`, from a
//! [`PacketsLeft`] divider): the parked messages that may send come back fewest packets
//! first, and those of one key in the order they became ready. With the slots holding the
//! shortest sendable messages (above), the order over every message with bytes to send is
//! SRPT to within a packet. An entry is in the queue exactly while it holds a parked message
//! with granted bytes to send (a parked message's sent bytes do not change and its granted
//! bytes only rise), so the queue never fills.
//!
//! A message that comes back frees its entry (onto the free list), its key's way (found
//! through the entry's [`KeyLoc`], so a fetch need not hash again) and its place in the
//! ready queue.
//!
//! A GRANT that misses while the queue is full is dropped (`grants_dropped`), as the network
//! may drop one: the receiver's RESEND recovers it. A CANCEL waits for room instead.
//! `grants_resolved` counts the GRANTs the park took from the scheduler's unmatched count
//! (found parked, or offered again), so that the scheduler's count less it and the dropped
//! ones is the GRANTs that matched nothing. `collisions` counts parks refused for want of a
//! way, `parked_most` the high-water mark of the table.
//!
//! Timing: a GRANT that missed is registered before it is queued (off the scheduler's
//! compare); a lookup is then six cycles (pop, hash, key read, key compare, entry read,
//! apply), a park five (choose, hash, key read, check, park: the slot's `park_ok` comes from
//! the scheduler's inputs and registers only), a fetch the ready queue's walk to its first
//! entry, then two (read, check). Each leaves at most one command for the ready queue (a
//! SET with its key, seven cycles after the operation for the division, or a REMOVE), and
//! the next operation starts once it is taken. Every RAM address and both hashes come from
//! registers.

mod records;
#[cfg(test)]
mod tests;

pub use records::{KeyLoc, KeyWay, ParkEntry, ParkItem};

use crate::bucket_queue::{BucketQueue, OP_REMOVE, OP_SET, OP_WALK};
use crate::hdl::*;
use crate::key_hash::{BUCKET_BITS, H0, H1, KeyHash};
use crate::lutram::LutRam;
use crate::packets_left::PacketsLeft;

fn k<const M: usize>(v: u64) -> Constant<Bits<M>> {
    Constant::new(v.into())
}

/// Bits of the park's index: 1024 entries.
pub const PARK_BITS: usize = 10;

/// Bits of the lookup queue's index: 64 GRANTs and CANCELs (LUT RAM). With four slots
/// nearly every GRANT of a burst is for a parked message, and a lookup takes six cycles.
pub const QUEUE_BITS: usize = 6;

/// The park: 1024 waiting messages in block RAM, and the engine that moves them.
#[derive(LogicBlock)]
pub struct TxPark {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: empties the queue and, over the 1024 cycles after it,
    /// the table (nothing is parked meanwhile).
    pub reset: Signal<In, Bit>,
    /// The ring offers a descriptor.
    pub ring_valid: Signal<In, Bit>,
    /// It is a CANCEL.
    pub ring_cancel: Signal<In, Bit>,
    /// Its peer.
    pub ring_peer: Signal<In, Bits<32>>,
    /// Its RPC id.
    pub ring_id: Signal<In, Bits<64>>,
    /// The ring's descriptor may go to the scheduler this cycle (no resume or CANCEL of the
    /// park's goes first, and a CANCEL has room in the queue).
    pub ring_ok: Signal<Out, Bit>,
    /// The ring's descriptor's bytes to send (its SRPT key against the slots').
    pub ring_bytes: Signal<In, Bits<32>>,
    /// Payload bytes of a full DATA packet (TX `max_payload`): the ready queue's unit.
    pub cfg_max_payload: Signal<In, Bits<32>>,
    /// Every slot of the scheduler is taken.
    pub sched_full: Signal<In, Bit>,
    /// The scheduler holds a SEND_MESSAGE that may park (`TxSched::most_*`)...
    pub most_valid: Signal<In, Bit>,
    /// ... in this slot, the one with the most bytes left ...
    pub most_slot: Signal<In, Bits<4>>,
    /// ... which are these.
    pub most_left: Signal<In, Bits<32>>,
    /// The parser offers a GRANT (the scheduler sees it; `ro_*` waits).
    pub g_valid: Signal<In, Bit>,
    /// Its peer.
    pub g_peer: Signal<In, Bits<32>>,
    /// Its `sender_id` as on the wire.
    pub g_id: Signal<In, Bits<64>>,
    /// Its offset.
    pub g_offset: Signal<In, Bits<32>>,
    /// Its priority.
    pub g_priority: Signal<In, Bits<3>>,
    /// The scheduler matched this cycle's GRANT to a slot.
    pub sched_grant_hit: Signal<In, Bit>,
    /// The scheduler's waiting slots.
    pub waiting: Signal<In, Bits<16>>,
    /// Park `park_slot` at this edge (if `park_ok`).
    pub park_valid: Signal<Out, Bit>,
    /// The slot to park.
    pub park_slot: Signal<Out, Bits<4>>,
    /// The scheduler lets it go.
    pub park_ok: Signal<In, Bit>,
    /// The slot's state (`TxSched16::park_*`).
    pub park_entry: Signal<In, ParkEntry>,
    /// A descriptor of the park's is offered to the scheduler (ahead of the ring's).
    pub r_valid: Signal<Out, Bit>,
    /// The message that comes back when its `valid` is set; otherwise a CANCEL of its peer
    /// and id.
    pub r_entry: Signal<Out, ParkEntry>,
    /// A GRANT offered again (when `g_valid` is low, the scheduler sees this one).
    pub ro_valid: Signal<Out, Bit>,
    /// Its peer.
    pub ro_peer: Signal<Out, Bits<32>>,
    /// Its `sender_id` as on the wire.
    pub ro_id: Signal<Out, Bits<64>>,
    /// Its offset.
    pub ro_offset: Signal<Out, Bits<32>>,
    /// Its priority.
    pub ro_priority: Signal<Out, Bits<3>>,
    /// GRANTs taken from the scheduler's unmatched count, free-running.
    pub grants_resolved: Signal<Out, Bits<32>>,
    /// Messages in the table now.
    pub parked: Signal<Out, Bits<16>>,
    /// The most messages in the table at once since reset.
    pub parked_most: Signal<Out, Bits<16>>,
    /// GRANTs that missed while the lookup queue was full, dropped (free-running).
    pub grants_dropped: Signal<Out, Bits<32>>,
    /// Parks refused because the slot's entry held another message (free-running).
    pub collisions: Signal<Out, Bits<32>>,
    ram: RAM<ParkEntry, PARK_BITS>,
    loc: RAM<KeyLoc, PARK_BITS>,
    k0: RAM<KeyWay, BUCKET_BITS>,
    k1: RAM<KeyWay, BUCKET_BITS>,
    k2: RAM<KeyWay, BUCKET_BITS>,
    k3: RAM<KeyWay, BUCKET_BITS>,
    free: RAM<Bits<PARK_BITS>, PARK_BITS>,
    h0: KeyHash,
    h1: KeyHash,
    queue: LutRam<ParkItem, QUEUE_BITS>,
    ready: BucketQueue<PARK_BITS>,
    pk: PacketsLeft,
    cv: DFF<Bit>,
    cset: DFF<Bit>,
    cgo: DFF<Bit>,
    cleft: DFF<Bits<32>>,
    fwr: DFF<Bits<PARK_BITS>>,
    frd: DFF<Bits<PARK_BITS>>,
    turn: DFF<Bit>,
    rmatch: DFF<Bit>,
    qwr: DFF<Bits<QUEUE_BITS>>,
    qrd: DFF<Bits<QUEUE_BITS>>,
    qcnt: DFF<Bits<7>>,
    st: DFF<Bits<4>>,
    item: DFF<ParkItem>,
    cand: DFF<Bits<4>>,
    cand_oh: DFF<Bits<16>>,
    tried: DFF<Bits<16>>,
    hb0: DFF<Bits<BUCKET_BITS>>,
    hb1: DFF<Bits<BUCKET_BITS>>,
    kpeer: DFF<Bits<32>>,
    kid: DFF<Bits<64>>,
    khit: DFF<Bit>,
    kway: DFF<Bits<2>>,
    kb: DFF<Bits<BUCKET_BITS>>,
    eidx: DFF<Bits<PARK_BITS>>,
    count: DFF<Bits<16>>,
    n_resolved: DFF<Bits<32>>,
    n_dropped: DFF<Bits<32>>,
    n_coll: DFF<Bits<32>>,
    most: DFF<Bits<16>>,
    rv: DFF<Bit>,
    re: DFF<ParkEntry>,
    xv: DFF<Bit>,
    xpeer: DFF<Bits<32>>,
    xid: DFF<Bits<64>>,
    rov: DFF<Bit>,
    ro: DFF<ParkItem>,
    gv: DFF<Bit>,
    gi: DFF<ParkItem>,
    avail: Signal<Local, Bits<16>>,
    any_avail: Signal<Local, Bit>,
    pick: Signal<Local, Bits<4>>,
    pick_oh: Signal<Local, Bits<16>>,
    fetch_go: Signal<Local, Bit>,
    look_go: Signal<Local, Bit>,
    park_go: Signal<Local, Bit>,
    rv_free: Signal<Local, Bit>,
    cmd_go: Signal<Local, Bit>,
    set_left: Signal<Local, Bits<32>>,
    set_ready: Signal<Local, Bit>,
    rm: Signal<Local, Bit>,
    rhit: Signal<Local, Bit>,
    q_full: Signal<Local, Bit>,
    q_push: Signal<Local, Bit>,
    q_pop: Signal<Local, Bit>,
    q_in: Signal<Local, ParkItem>,
    need_look: Signal<Local, Bit>,
    cancel_push: Signal<Local, Bit>,
    hpeer: Signal<Local, Bits<32>>,
    hid: Signal<Local, Bits<64>>,
    e: Signal<Local, ParkEntry>,
    el: Signal<Local, KeyLoc>,
    m0: Signal<Local, Bit>,
    m1: Signal<Local, Bit>,
    m2: Signal<Local, Bit>,
    m3: Signal<Local, Bit>,
    kw: Signal<Local, KeyWay>,
    kwa: Signal<Local, Bits<BUCKET_BITS>>,
    kwe: Signal<Local, Bits<4>>,
    unkey: Signal<Local, Bit>,
    clr_b: Signal<Local, Bits<BUCKET_BITS>>,
    g_have: Signal<Local, Bits<32>>,
    g_len: Signal<Local, Bits<32>>,
    g_new: Signal<Local, Bits<32>>,
    full_table: Signal<Local, Bit>,
    want_slot: Signal<Local, Bit>,
    cand_left: Signal<Local, Bits<32>>,
    most_oh: Signal<Local, Bits<16>>,
    outranked: Signal<Local, Bit>,
    bump: Signal<Local, Bit>,
    same: DFF<Bit>,
    // The engine's states: idle; a lookup's hash, key read, key compare, entry read and
    // apply; a candidate's hash, key read, check and park; a fetch's index, read and check;
    // clearing the tables after reset.
    s_idle: Constant<Bits<4>>,
    s_hash: Constant<Bits<4>>,
    s_krd: Constant<Bits<4>>,
    s_kchk: Constant<Bits<4>>,
    s_lrd: Constant<Bits<4>>,
    s_look: Constant<Bits<4>>,
    s_ev1: Constant<Bits<4>>,
    s_erd: Constant<Bits<4>>,
    s_evd: Constant<Bits<4>>,
    s_clr: Constant<Bits<4>>,
    s_evg: Constant<Bits<4>>,
    s_f0: Constant<Bits<4>>,
    s_frd: Constant<Bits<4>>,
    s_fchk: Constant<Bits<4>>,
    s_fw: Constant<Bits<4>>,
    c_set: Constant<Bits<2>>,
    c_remove: Constant<Bits<2>>,
    c_walk: Constant<Bits<2>>,
    c_last: Constant<Bits<PARK_BITS>>,
    c_one_idx: Constant<Bits<PARK_BITS>>,
    c_zero_idx: Constant<Bits<PARK_BITS>>,
    c_at0: Constant<Bits<8>>,
    c_way: [Constant<Bits<2>>; 4],
    c_wbit: [Constant<Bits<4>>; 4],
    c_slot: [Constant<Bits<4>>; 16],
    c_oh: [Constant<Bits<16>>; 16],
    c_entries: Constant<Bits<16>>,
    c_zero16: Constant<Bits<16>>,
    c_one16: Constant<Bits<16>>,
    c_one32: Constant<Bits<32>>,
    c_one64: Constant<Bits<64>>,
    c_zero32: Constant<Bits<32>>,
    c_qone: Constant<Bits<QUEUE_BITS>>,
    c_qzero: Constant<Bits<QUEUE_BITS>>,
    c_one7: Constant<Bits<7>>,
    c_zero4: Constant<Bits<4>>,
    c_zero7: Constant<Bits<7>>,
    c_qdepth: Constant<Bits<7>>,
}

impl TxPark {
    /// An empty park (after reset, with its RAM cleared).
    pub fn new() -> Self {
        Self {
            clock: Signal::default(),
            reset: Signal::default(),
            ring_valid: Signal::default(),
            ring_cancel: Signal::default(),
            ring_peer: Signal::default(),
            ring_id: Signal::default(),
            ring_ok: Signal::default(),
            ring_bytes: Signal::default(),
            cfg_max_payload: Signal::default(),
            sched_full: Signal::default(),
            most_valid: Signal::default(),
            most_slot: Signal::default(),
            most_left: Signal::default(),
            g_valid: Signal::default(),
            g_peer: Signal::default(),
            g_id: Signal::default(),
            g_offset: Signal::default(),
            g_priority: Signal::default(),
            sched_grant_hit: Signal::default(),
            waiting: Signal::default(),
            park_valid: Signal::default(),
            park_slot: Signal::default(),
            park_ok: Signal::default(),
            park_entry: Signal::default(),
            r_valid: Signal::default(),
            r_entry: Signal::default(),
            ro_valid: Signal::default(),
            ro_peer: Signal::default(),
            ro_id: Signal::default(),
            ro_offset: Signal::default(),
            ro_priority: Signal::default(),
            grants_resolved: Signal::default(),
            parked: Signal::default(),
            parked_most: Signal::default(),
            grants_dropped: Signal::default(),
            collisions: Signal::default(),
            ram: RAM::default(),
            loc: RAM::default(),
            k0: RAM::default(),
            k1: RAM::default(),
            k2: RAM::default(),
            k3: RAM::default(),
            free: RAM::default(),
            h0: KeyHash::new(&H0),
            h1: KeyHash::new(&H1),
            queue: LutRam::default(),
            ready: BucketQueue::default(),
            pk: PacketsLeft::default(),
            cv: DFF::default(),
            cset: DFF::default(),
            cgo: DFF::default(),
            cleft: DFF::default(),
            fwr: DFF::default(),
            frd: DFF::default(),
            turn: DFF::default(),
            rmatch: DFF::default(),
            qwr: DFF::default(),
            qrd: DFF::default(),
            qcnt: DFF::default(),
            st: DFF::default(),
            item: DFF::default(),
            cand: DFF::default(),
            cand_oh: DFF::default(),
            tried: DFF::default(),
            hb0: DFF::default(),
            hb1: DFF::default(),
            kpeer: DFF::default(),
            kid: DFF::default(),
            khit: DFF::default(),
            kway: DFF::default(),
            kb: DFF::default(),
            eidx: DFF::default(),
            count: DFF::default(),
            n_resolved: DFF::default(),
            n_dropped: DFF::default(),
            n_coll: DFF::default(),
            most: DFF::default(),
            rv: DFF::default(),
            re: DFF::default(),
            xv: DFF::default(),
            xpeer: DFF::default(),
            xid: DFF::default(),
            rov: DFF::default(),
            ro: DFF::default(),
            gv: DFF::default(),
            gi: DFF::default(),
            avail: Signal::default(),
            any_avail: Signal::default(),
            pick: Signal::default(),
            pick_oh: Signal::default(),
            fetch_go: Signal::default(),
            look_go: Signal::default(),
            park_go: Signal::default(),
            rv_free: Signal::default(),
            cmd_go: Signal::default(),
            set_left: Signal::default(),
            set_ready: Signal::default(),
            rm: Signal::default(),
            rhit: Signal::default(),
            q_full: Signal::default(),
            q_push: Signal::default(),
            q_pop: Signal::default(),
            q_in: Signal::default(),
            need_look: Signal::default(),
            cancel_push: Signal::default(),
            hpeer: Signal::default(),
            hid: Signal::default(),
            e: Signal::default(),
            el: Signal::default(),
            m0: Signal::default(),
            m1: Signal::default(),
            m2: Signal::default(),
            m3: Signal::default(),
            kw: Signal::default(),
            kwa: Signal::default(),
            kwe: Signal::default(),
            unkey: Signal::default(),
            clr_b: Signal::default(),
            g_have: Signal::default(),
            g_len: Signal::default(),
            g_new: Signal::default(),
            full_table: Signal::default(),
            want_slot: Signal::default(),
            cand_left: Signal::default(),
            most_oh: Signal::default(),
            outranked: Signal::default(),
            bump: Signal::default(),
            same: DFF::default(),
            s_idle: k(0),
            s_hash: k(1),
            s_lrd: k(2),
            s_look: k(3),
            s_ev1: k(4),
            s_erd: k(5),
            s_evd: k(6),
            s_clr: k(7),
            s_evg: k(8),
            s_f0: k(9),
            s_frd: k(10),
            s_fchk: k(11),
            s_krd: k(12),
            s_kchk: k(13),
            s_fw: k(14),
            c_set: k(OP_SET),
            c_remove: k(OP_REMOVE),
            c_walk: k(OP_WALK),
            c_last: k((1 << PARK_BITS) - 1),
            c_one_idx: k(1),
            c_zero_idx: k(0),
            c_at0: k(0),
            c_way: std::array::from_fn(|j| k(j as u64)),
            c_wbit: std::array::from_fn(|j| k(1u64 << j)),
            c_slot: std::array::from_fn(|j| k(j as u64)),
            c_oh: std::array::from_fn(|j| k(1u64 << j)),
            c_entries: k(1 << PARK_BITS),
            c_zero16: k(0),
            c_one16: k(1),
            c_one32: k(1),
            c_one64: k(1),
            c_zero32: k(0),
            c_qone: k(1),
            c_qzero: k(0),
            c_one7: k(1),
            c_zero4: k(0),
            c_zero7: k(0),
            c_qdepth: k(1 << QUEUE_BITS),
        }
    }
}

impl TxPark {
    /// A park as the top level of a design: every input driven from outside (its bench).
    pub fn top_level() -> Self {
        let mut uut = Self::new();
        uut.clock.connect();
        uut.reset.connect();
        uut.ring_valid.connect();
        uut.ring_cancel.connect();
        uut.ring_peer.connect();
        uut.ring_id.connect();
        uut.ring_bytes.connect();
        uut.cfg_max_payload.connect();
        uut.sched_full.connect();
        uut.most_valid.connect();
        uut.most_slot.connect();
        uut.most_left.connect();
        uut.g_valid.connect();
        uut.g_peer.connect();
        uut.g_id.connect();
        uut.g_offset.connect();
        uut.g_priority.connect();
        uut.sched_grant_hit.connect();
        uut.waiting.connect();
        uut.park_ok.connect();
        uut.park_entry.connect();
        uut.connect_all();
        uut
    }
}

impl Default for TxPark {
    fn default() -> Self {
        Self::new()
    }
}

impl core::fmt::Debug for TxPark {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TxPark").finish_non_exhaustive()
    }
}

impl Logic for TxPark {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, qwr, qrd, qcnt, st, item, cand, cand_oh, tried, hb0, hb1, kpeer, kid,
            khit, kway, kb, eidx, count, n_resolved, rv, re, xv, xpeer, xid, rov, ro, gv, gi, fwr,
            frd, turn, rmatch, n_dropped, n_coll, most, same, cv, cset, cgo, cleft
        );
        // The entries, and where each one's key is: read and written at `eidx`.
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.ram.read_address.next = self.eidx.q.val();
        self.ram.write_address.next = self.eidx.q.val();
        self.e.next = self.ram.read_data.val();
        self.loc.read_clock.next = self.clock.val();
        self.loc.write_clock.next = self.clock.val();
        self.loc.read_address.next = self.eidx.q.val();
        self.loc.write_address.next = self.eidx.q.val();
        self.loc.write_data.next.bucket = self.kb.q.val();
        self.loc.write_data.next.way = self.kway.q.val();
        self.loc.write_enable.next = false;
        self.el.next = self.loc.read_data.val();
        // The key table: ways 0 and 1 of the first choice's bucket, 2 and 3 of the second's.
        self.k0.read_clock.next = self.clock.val();
        self.k1.read_clock.next = self.clock.val();
        self.k2.read_clock.next = self.clock.val();
        self.k3.read_clock.next = self.clock.val();
        self.k0.write_clock.next = self.clock.val();
        self.k1.write_clock.next = self.clock.val();
        self.k2.write_clock.next = self.clock.val();
        self.k3.write_clock.next = self.clock.val();
        self.k0.read_address.next = self.hb0.q.val();
        self.k1.read_address.next = self.hb0.q.val();
        self.k2.read_address.next = self.hb1.q.val();
        self.k3.read_address.next = self.hb1.q.val();
        // What a way is written with: by default, cleared at the bucket of the entry's key.
        self.kw.next.valid = false;
        self.kw.next.peer = self.kpeer.q.val();
        self.kw.next.id = self.kid.q.val();
        self.kw.next.ptr = self.eidx.q.val();
        self.kwa.next = self.el.val().bucket;
        self.kwe.next = self.c_zero4.val();
        self.unkey.next = false;
        // The key being looked up or placed, against each way.
        self.m0.next = self.k0.read_data.val().valid
            & (self.k0.read_data.val().peer == self.kpeer.q.val())
            & (self.k0.read_data.val().id == self.kid.q.val());
        self.m1.next = self.k1.read_data.val().valid
            & (self.k1.read_data.val().peer == self.kpeer.q.val())
            & (self.k1.read_data.val().id == self.kid.q.val());
        self.m2.next = self.k2.read_data.val().valid
            & (self.k2.read_data.val().peer == self.kpeer.q.val())
            & (self.k2.read_data.val().id == self.kid.q.val());
        self.m3.next = self.k3.read_data.val().valid
            & (self.k3.read_data.val().peer == self.kpeer.q.val())
            & (self.k3.read_data.val().id == self.kid.q.val());
        // The free entries.
        self.free.read_clock.next = self.clock.val();
        self.free.write_clock.next = self.clock.val();
        self.free.read_address.next = self.frd.q.val();
        self.free.write_address.next = self.fwr.q.val();
        self.free.write_data.next = self.eidx.q.val();
        self.free.write_enable.next = false;
        self.queue.clock.next = self.clock.val();
        // The ready queue, keyed by packets left: an operation that makes an entry ready or
        // empties one leaves one command (`cv`) at its end, for its entry (`eidx`, which no
        // operation changes until the command is taken); a SET's key is divided first, from
        // registers (`cgo`, `cleft`).
        self.ready.clock.next = self.clock.val();
        self.ready.reset.next = self.reset.val();
        self.pk.clock.next = self.clock.val();
        self.pk.reset.next = self.reset.val();
        self.pk.start.next = self.cgo.q.val();
        self.pk.bytes.next = self.cleft.q.val();
        self.pk.max_payload.next = self.cfg_max_payload.val();
        self.cgo.d.next = false;
        self.cmd_go.next =
            self.cv.q.val() & (!self.cset.q.val() | (self.pk.done.val() & !self.cgo.q.val()));
        self.ready.s_cmd_valid.next = self.cmd_go.val();
        self.ready.s_cmd_op.next = self.c_remove.val();
        if self.cset.q.val() {
            self.ready.s_cmd_op.next = self.c_set.val();
        }
        self.ready.s_cmd_entry.next = self.eidx.q.val();
        self.ready.s_cmd_key.next = self.pk.key.val();
        self.ready.s_walk_stop.next = false;
        if self.cmd_go.val() & self.ready.s_cmd_ready.val() {
            self.cv.d.next = false;
        }
        self.set_ready.next = false;
        self.set_left.next = self.e.val().left;
        self.rm.next = false;
        self.full_table.next = self.sched_full.val();
        // What the park offers the scheduler: a resume first, then a CANCEL issued again.
        self.r_valid.next = self.rv.q.val() | self.xv.q.val();
        self.r_entry.next = self.re.q.val();
        self.r_entry.next.valid = self.rv.q.val();
        if !self.rv.q.val() {
            self.r_entry.next.peer = self.xpeer.q.val();
            self.r_entry.next.id = self.xid.q.val();
        }
        // The scheduler takes a resume when a slot is free, a CANCEL always.
        if self.rv.q.val() {
            if !self.full_table.val() {
                self.rv.d.next = false;
            }
        } else if self.xv.q.val() {
            self.xv.d.next = false;
        }
        self.ro_valid.next = self.rov.q.val();
        self.ro_peer.next = self.ro.q.val().peer;
        self.ro_id.next = self.ro.q.val().id ^ self.c_one64.val();
        self.ro_offset.next = self.ro.q.val().offset;
        self.ro_priority.next = self.ro.q.val().prio;
        if self.rov.q.val() & !self.g_valid.val() {
            self.rov.d.next = false;
        }
        self.grants_resolved.next = self.n_resolved.q.val();
        self.parked.next = self.count.q.val();
        self.parked_most.next = self.most.q.val();
        self.grants_dropped.next = self.n_dropped.q.val();
        self.collisions.next = self.n_coll.q.val();
        if self.count.q.val() > self.most.q.val() {
            self.most.d.next = self.count.q.val();
        }
        // The queue: GRANTs that matched no slot and CANCELs, while anything is parked (or
        // on its way back).
        self.q_full.next = self.qcnt.q.val() == self.c_qdepth.val();
        self.need_look.next = (self.count.q.val() != self.c_zero16.val()) | self.rv.q.val();
        self.cancel_push.next =
            self.ring_valid.val() & self.ring_cancel.val() & self.need_look.val();
        self.ring_ok.next = !self.rv.q.val()
            & !self.xv.q.val()
            & !(self.cancel_push.val() & (self.q_full.val() | self.gv.q.val()));
        // A GRANT that matched no slot while anything was parked (or on its way back) is
        // registered, then queued in the next cycle (off the scheduler's GRANT compare).
        self.gv.d.next = self.g_valid.val() & !self.sched_grant_hit.val() & self.need_look.val();
        self.gi.d.next.cancel = false;
        self.gi.d.next.peer = self.g_peer.val();
        self.gi.d.next.id = self.g_id.val() ^ self.c_one64.val();
        self.gi.d.next.offset = self.g_offset.val();
        self.gi.d.next.prio = self.g_priority.val();
        self.q_push.next = self.gv.q.val() & !self.q_full.val();
        if self.gv.q.val() & self.q_full.val() {
            self.n_dropped.d.next = self.n_dropped.q.val() + self.c_one32.val();
        }
        self.q_in.next = self.gi.q.val();
        if self.cancel_push.val() & self.ring_ok.val() {
            self.q_push.next = true;
            self.q_in.next.cancel = true;
            self.q_in.next.peer = self.ring_peer.val();
            self.q_in.next.id = self.ring_id.val();
        }
        self.queue.write_address.next = self.qwr.q.val();
        self.queue.write_data.next = self.q_in.val();
        self.queue.write_enable.next = self.q_push.val();
        self.queue.read_address.next = self.qrd.q.val();
        // The candidate to park: a waiting slot not tried since the last park.
        self.avail.next = self.waiting.val() & !self.tried.q.val();
        self.any_avail.next = self.avail.val() != self.c_zero16.val();
        self.pick.next = self.c_zero4.val();
        self.pick_oh.next = self.c_zero16.val();
        for j in 0..16 {
            if self.avail.val().get_bit(j) {
                self.pick.next = self.c_slot[j].val();
                self.pick_oh.next = self.c_oh[j].val();
            }
        }
        self.want_slot.next = (self.rv.q.val() | (self.ring_valid.val() & !self.ring_cancel.val()))
            & self.full_table.val();
        // With no slot waiting, the slot with the most bytes left makes room when the
        // message that wants a slot has fewer (strictly: a message that comes back from
        // the ready queue never outranks the one that made room for it).
        self.cand_left.next = self.ring_bytes.val();
        if self.rv.q.val() {
            self.cand_left.next = self.re.q.val().left;
        }
        self.most_oh.next = self.c_zero16.val();
        for j in 0..16 {
            if self.most_slot.val() == self.c_slot[j].val() {
                self.most_oh.next = self.c_oh[j].val();
            }
        }
        self.outranked.next = self.most_valid.val() & (self.cand_left.val() < self.most_left.val());
        self.bump.next = self.outranked.val()
            & ((self.tried.q.val() & self.most_oh.val()) == self.c_zero16.val());
        if !self.any_avail.val() & self.bump.val() {
            self.pick.next = self.most_slot.val();
            self.pick_oh.next = self.most_oh.val();
        }
        // The resume register is free at this edge: empty, or the scheduler takes it now.
        self.rv_free.next = !self.rv.q.val() | !self.full_table.val();
        // What the engine may start from idle. A fetch of a ready entry needs the resume
        // register. A lookup needs the re-offer and re-issue registers; a CANCEL's needs the
        // resume register too (it brings its message back). A park needs a free entry.
        // Each waits for the ready queue's last command to be taken (`cv`).
        self.fetch_go.next = !self.rv.q.val()
            & !self.xv.q.val()
            & !self.cv.q.val()
            & self.ready.s_cmd_ready.val()
            & (self.ready.count.val() != self.c_zero16.val());
        self.look_go.next = !self.xv.q.val()
            & !self.rov.q.val()
            & !self.cv.q.val()
            & (self.qcnt.q.val() != self.c_zero7.val());
        if self.queue.read_data.val().cancel & self.rv.q.val() {
            self.look_go.next = false;
        }
        self.park_go.next = self.want_slot.val()
            & (self.any_avail.val() | self.bump.val())
            & (self.count.q.val() != self.c_entries.val())
            & !self.cv.q.val();
        // The key to hash: the looked-up one, or the candidate slot's.
        self.hpeer.next = self.item.q.val().peer;
        self.hid.next = self.item.q.val().id;
        if self.st.q.val() == self.s_ev1.val() {
            self.hpeer.next = self.park_entry.val().peer;
            self.hid.next = self.park_entry.val().id;
        }
        self.h0.peer.next = self.hpeer.val();
        self.h0.id.next = self.hid.val();
        self.h1.peer.next = self.hpeer.val();
        self.h1.id.next = self.hid.val();
        // A GRANT applied as the scheduler applies it: to the entry found, or else to the
        // message in the resume register (`rmatch`).
        self.g_have.next = self.e.val().granted;
        self.g_len.next = self.e.val().length;
        if !self.khit.q.val() {
            self.g_have.next = self.re.q.val().granted;
            self.g_len.next = self.re.q.val().length;
        }
        self.g_new.next = self.g_have.val();
        if self.item.q.val().offset > self.g_have.val() {
            self.g_new.next = self.g_len.val();
            if self.item.q.val().offset < self.g_len.val() {
                self.g_new.next = self.item.q.val().offset;
            }
        }
        // A GRANT for the message in the resume register (it left the table, and the
        // scheduler has not taken it): applied there unless the scheduler takes it at this
        // edge (then the GRANT is offered again, and finds it in its slot).
        self.rhit.next = self.rmatch.q.val() & self.rv.q.val() & self.full_table.val();
        // The engine.
        self.park_valid.next = (self.st.q.val() == self.s_evg.val()) & self.same.q.val();
        self.park_slot.next = self.cand.q.val();
        self.q_pop.next = false;
        self.ram.write_enable.next = false;
        self.ram.write_data.next = self.park_entry.val();
        self.ram.write_data.next.valid = true;
        // Ready entries go first (their GRANTs came first), then lookups, which bring back
        // the messages the receivers grant; a park that a descriptor waits for takes turns
        // with lookups (a park that keeps colliding must not hold them up, nor a stream of
        // GRANTs the parks).
        if self.st.q.val() == self.s_idle.val() {
            if self.fetch_go.val() {
                self.st.d.next = self.s_f0.val();
            } else if self.look_go.val() & !(self.park_go.val() & self.turn.q.val()) {
                self.q_pop.next = true;
                self.item.d.next = self.queue.read_data.val();
                self.st.d.next = self.s_hash.val();
                self.turn.d.next = true;
            } else if self.park_go.val() {
                self.cand.d.next = self.pick.val();
                self.cand_oh.d.next = self.pick_oh.val();
                self.st.d.next = self.s_ev1.val();
                self.turn.d.next = false;
            } else if self.want_slot.val()
                & ((self.waiting.val() != self.c_zero16.val()) | self.outranked.val())
            {
                // Every slot that may park collided: try them all again.
                self.tried.d.next = self.c_zero16.val();
            }
        }
        // A lookup: the key's buckets, their ways, the entry.
        if (self.st.q.val() == self.s_hash.val()) | (self.st.q.val() == self.s_ev1.val()) {
            self.hb0.d.next = self.h0.bucket.val();
            self.hb1.d.next = self.h1.bucket.val();
            self.kpeer.d.next = self.hpeer.val();
            self.kid.d.next = self.hid.val();
        }
        if self.st.q.val() == self.s_hash.val() {
            self.st.d.next = self.s_krd.val();
        }
        if self.st.q.val() == self.s_krd.val() {
            self.st.d.next = self.s_kchk.val();
        }
        if self.st.q.val() == self.s_kchk.val() {
            self.st.d.next = self.s_lrd.val();
            self.khit.d.next = self.m0.val() | self.m1.val() | self.m2.val() | self.m3.val();
            if self.m3.val() {
                self.eidx.d.next = self.k3.read_data.val().ptr;
            }
            if self.m2.val() {
                self.eidx.d.next = self.k2.read_data.val().ptr;
            }
            if self.m1.val() {
                self.eidx.d.next = self.k1.read_data.val().ptr;
            }
            if self.m0.val() {
                self.eidx.d.next = self.k0.read_data.val().ptr;
            }
        }
        if self.st.q.val() == self.s_lrd.val() {
            self.st.d.next = self.s_look.val();
            self.rmatch.d.next = !self.item.q.val().cancel
                & (self.re.q.val().peer == self.item.q.val().peer)
                & (self.re.q.val().id == self.item.q.val().id);
        }
        if self.st.q.val() == self.s_look.val() {
            self.st.d.next = self.s_idle.val();
            if self.item.q.val().cancel {
                self.xv.d.next = true;
                self.xpeer.d.next = self.item.q.val().peer;
                self.xid.d.next = self.item.q.val().id;
            } else {
                self.n_resolved.d.next = self.n_resolved.q.val() + self.c_one32.val();
            }
            if self.khit.q.val() & self.rv_free.val() {
                // Found, and the resume register is free: the message comes back.
                self.rv.d.next = true;
                self.re.d.next = self.e.val();
                if !self.item.q.val().cancel {
                    self.re.d.next.granted = self.g_new.val();
                    self.re.d.next.sprio = self.item.q.val().prio;
                }
                self.unkey.next = true;
            } else if self.khit.q.val() {
                // Found while another message waits for a slot (a GRANT: a CANCEL waits for
                // the register): the GRANT is applied in the table, and an entry it makes
                // ready joins the ready queue (the engine goes on with the next lookup).
                self.ram.write_data.next = self.e.val();
                self.ram.write_data.next.granted = self.g_new.val();
                self.ram.write_data.next.sprio = self.item.q.val().prio;
                self.ram.write_enable.next = true;
                if (self.e.val().granted == self.e.val().sent)
                    & (self.g_new.val() != self.e.val().sent)
                {
                    self.set_ready.next = true;
                }
            } else if self.rhit.val() {
                self.re.d.next.granted = self.g_new.val();
                self.re.d.next.sprio = self.item.q.val().prio;
            } else if !self.item.q.val().cancel {
                self.rov.d.next = true;
                self.ro.d.next = self.item.q.val();
            }
        }
        // A park: the candidate's buckets, a free way (none, or its key already there: a
        // collision), then the slot leaves into the free list's next entry.
        if self.st.q.val() == self.s_ev1.val() {
            self.st.d.next = self.s_erd.val();
        }
        if self.st.q.val() == self.s_erd.val() {
            self.st.d.next = self.s_evd.val();
        }
        if self.st.q.val() == self.s_evd.val() {
            self.st.d.next = self.s_evg.val();
            // The slot still holds the message hashed (a slot that finished and took another
            // message since is not parked under the old one's key).
            self.same.d.next = (self.park_entry.val().peer == self.kpeer.q.val())
                & (self.park_entry.val().id == self.kid.q.val());
            self.eidx.d.next = self.free.read_data.val();
            self.kb.d.next = self.hb1.q.val();
            self.kway.d.next = self.c_way[3].val();
            if !self.k2.read_data.val().valid {
                self.kway.d.next = self.c_way[2].val();
            }
            if !self.k1.read_data.val().valid {
                self.kb.d.next = self.hb0.q.val();
                self.kway.d.next = self.c_way[1].val();
            }
            if !self.k0.read_data.val().valid {
                self.kb.d.next = self.hb0.q.val();
                self.kway.d.next = self.c_way[0].val();
            }
            if (self.k0.read_data.val().valid
                & self.k1.read_data.val().valid
                & self.k2.read_data.val().valid
                & self.k3.read_data.val().valid)
                | self.m0.val()
                | self.m1.val()
                | self.m2.val()
                | self.m3.val()
            {
                self.n_coll.d.next = self.n_coll.q.val() + self.c_one32.val();
                self.tried.d.next = self.tried.q.val() | self.cand_oh.q.val();
                self.st.d.next = self.s_idle.val();
            }
        }
        if self.st.q.val() == self.s_evg.val() {
            self.st.d.next = self.s_idle.val();
            if self.park_ok.val() & self.same.q.val() {
                self.ram.write_enable.next = true;
                self.loc.write_enable.next = true;
                self.kw.next.valid = true;
                self.kwa.next = self.kb.q.val();
                for j in 0..4 {
                    if self.kway.q.val() == self.c_way[j].val() {
                        self.kwe.next = self.c_wbit[j].val();
                    }
                }
                self.frd.d.next = self.frd.q.val() + self.c_one_idx.val();
                self.count.d.next = self.count.q.val() + self.c_one16.val();
                self.tried.d.next = self.c_zero16.val();
                // A message with granted bytes to send is ready at once.
                if self.park_entry.val().granted != self.park_entry.val().sent {
                    self.set_ready.next = true;
                    self.set_left.next = self.park_entry.val().left;
                }
            }
        }
        // A fetch: a walk of the ready queue stopped at its first entry (fewest packets
        // left), the entry's RAM read, and its check; the entry then leaves the queue.
        if self.st.q.val() == self.s_f0.val() {
            self.ready.s_cmd_valid.next = true;
            self.ready.s_cmd_op.next = self.c_walk.val();
            if self.ready.s_cmd_ready.val() {
                self.st.d.next = self.s_fw.val();
            }
        }
        if self.st.q.val() == self.s_fw.val() {
            self.ready.s_walk_stop.next = self.ready.m_walk_valid.val();
            if self.ready.m_walk_valid.val() {
                self.eidx.d.next = self.ready.m_walk_entry.val();
                self.st.d.next = self.s_frd.val();
            } else if self.ready.m_walk_end.val() {
                self.st.d.next = self.s_idle.val();
            }
        }
        if self.st.q.val() == self.s_frd.val() {
            self.st.d.next = self.s_fchk.val();
        }
        if self.st.q.val() == self.s_fchk.val() {
            self.st.d.next = self.s_idle.val();
            if self.e.val().valid & (self.e.val().granted != self.e.val().sent) {
                self.rv.d.next = true;
                self.re.d.next = self.e.val();
                self.unkey.next = true;
            } else {
                self.rm.next = true;
            }
        }
        // A message that comes back leaves its entry (to the free list) and its key's way.
        if self.unkey.val() {
            self.ram.write_data.next = self.e.val();
            self.ram.write_data.next.valid = false;
            self.ram.write_enable.next = true;
            for j in 0..4 {
                if self.el.val().way == self.c_way[j].val() {
                    self.kwe.next = self.c_wbit[j].val();
                }
            }
            self.free.write_enable.next = true;
            self.fwr.d.next = self.fwr.q.val() + self.c_one_idx.val();
            self.count.d.next = self.count.q.val() - self.c_one16.val();
            self.rm.next = true;
        }
        // The operation's command to the ready queue: its entry out, or in under its key.
        if self.rm.val() {
            self.cv.d.next = true;
            self.cset.d.next = false;
        }
        if self.set_ready.val() {
            self.cv.d.next = true;
            self.cset.d.next = true;
            self.cgo.d.next = true;
            self.cleft.d.next = self.set_left.val();
        }
        // After reset: every entry and every way emptied, every entry onto the free list.
        self.clr_b.next = self
            .eidx
            .q
            .val()
            .get_bits::<BUCKET_BITS>(self.c_at0.val().index());
        if self.st.q.val() == self.s_clr.val() {
            self.ram.write_data.next.valid = false;
            self.ram.write_enable.next = true;
            self.kwa.next = self.clr_b.val();
            self.kwe.next = self.c_wbit[0].val()
                | self.c_wbit[1].val()
                | self.c_wbit[2].val()
                | self.c_wbit[3].val();
            self.free.write_enable.next = true;
            self.fwr.d.next = self.fwr.q.val() + self.c_one_idx.val();
            self.eidx.d.next = self.eidx.q.val() + self.c_one_idx.val();
            if self.eidx.q.val() == self.c_last.val() {
                self.st.d.next = self.s_idle.val();
            }
        }
        self.k0.write_address.next = self.kwa.val();
        self.k1.write_address.next = self.kwa.val();
        self.k2.write_address.next = self.kwa.val();
        self.k3.write_address.next = self.kwa.val();
        self.k0.write_data.next = self.kw.val();
        self.k1.write_data.next = self.kw.val();
        self.k2.write_data.next = self.kw.val();
        self.k3.write_data.next = self.kw.val();
        self.k0.write_enable.next = self.kwe.val().get_bit(0);
        self.k1.write_enable.next = self.kwe.val().get_bit(1);
        self.k2.write_enable.next = self.kwe.val().get_bit(2);
        self.k3.write_enable.next = self.kwe.val().get_bit(3);
        if self.q_push.val() {
            self.qwr.d.next = self.qwr.q.val() + self.c_qone.val();
        }
        if self.q_pop.val() {
            self.qrd.d.next = self.qrd.q.val() + self.c_qone.val();
        }
        if self.q_push.val() & !self.q_pop.val() {
            self.qcnt.d.next = self.qcnt.q.val() + self.c_one7.val();
        }
        if self.q_pop.val() & !self.q_push.val() {
            self.qcnt.d.next = self.qcnt.q.val() - self.c_one7.val();
        }
        if self.reset.val() {
            self.st.d.next = self.s_clr.val();
            self.eidx.d.next = self.c_zero_idx.val();
            self.fwr.d.next = self.c_zero_idx.val();
            self.frd.d.next = self.c_zero_idx.val();
            self.qwr.d.next = self.c_qzero.val();
            self.qrd.d.next = self.c_qzero.val();
            self.qcnt.d.next = self.c_zero7.val();
            self.count.d.next = self.c_zero16.val();
            self.n_resolved.d.next = self.c_zero32.val();
            self.n_dropped.d.next = self.c_zero32.val();
            self.n_coll.d.next = self.c_zero32.val();
            self.most.d.next = self.c_zero16.val();
            self.tried.d.next = self.c_zero16.val();
            self.cv.d.next = false;
            self.cgo.d.next = false;
            self.turn.d.next = false;
            self.rv.d.next = false;
            self.xv.d.next = false;
            self.rov.d.next = false;
            self.gv.d.next = false;
        }
    }
}
