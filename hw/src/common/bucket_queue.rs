//! `BucketQueue`: SRPT at packet granularity over `2^A` messages in block RAM, the
//! structure the scalable grant generator and transmit scheduler are built on. It is
//! [`homa_proto::policy::bucket::BucketQueue`] in hardware: 1,024 buckets, one per key
//! (packets left), each a first-in first-out list of entries; the queue's order is the
//! buckets' order, then the order of entry into the bucket.
//!
//! ```text
//!  s_cmd_* ─► FSM ─► entry RAMs (2^A): next, prev, key, valid
//!              │  └► bucket RAMs (1024): head, tail
//!              └──► bitmap: 32 words of 32 bits (LUT RAM) + a 32-bit summary (register)
//!  walk: first set bit ≥ b (word, else summary then word) ─► head ─► next ... tail ─► next
//! ```
//!
//! Commands (`s_cmd_op`), one at a time, taken while `s_cmd_ready`:
//! - `OP_SET` (entry, key): queue the entry under the key, at the tail of its bucket, after
//!   unlinking it from the bucket it was in; an entry already under that key keeps its
//!   place. Five cycles from the taking edge to the next `s_cmd_ready` (unlink: read the
//!   entry, read its bucket's head and tail and write the links; link: read the new bucket's
//!   tail, write the links).
//! - `OP_REMOVE` (entry): unlink it, if queued. Four cycles.
//! - `OP_WALK`: stream the queued entries in order on `m_walk_*`, one per cycle within a
//!   bucket; across buckets, four cycles to the next bucket of the same bitmap word (see the
//!   tail was the last, find the next bucket, read its head and tail, show it) and five to
//!   one in a later word (one more to read that word), until `s_walk_stop` is high in a
//!   cycle (the entry shown in that cycle, if any, counts as taken; no more follow) or the
//!   queue is exhausted: `m_walk_end` is high, with no entry, in the cycle after which no
//!   more follow. The queue does not change during a walk.
//!
//! The links need no null pointer: a bucket's list ends at its tail, begins at its head, and
//! whether a bucket holds anything is its bitmap bit. So a link is one write into each of
//! two RAMs (`next` at the old tail, `prev` at the entry), and an unlink likewise (`next` at
//! the predecessor, `prev` at the successor, the head or the tail where the entry was one):
//! every command writes each RAM at most once.
//!
//! Timing: every RAM read is issued from registers or from one RAM's output through a
//! multiplexer; the bitmap word's address is registered with the state before; the walk's
//! tail compare is registered (a cycle per bucket) rather than steering the next state from a
//! RAM's output.
//!
//! After reset the block clears the entries' valid bits and the bitmap over `2^A` cycles
//! (`s_cmd_ready` low); the bucket RAMs need no clearing.

#[cfg(test)]
mod tests;

use crate::hdl::*;
use crate::lutram::LutRam;

/// `s_cmd_op`: queue an entry under a key.
pub const OP_SET: u64 = 0;
/// `s_cmd_op`: take an entry out of the queue.
pub const OP_REMOVE: u64 = 1;
/// `s_cmd_op`: stream the queue in order.
pub const OP_WALK: u64 = 2;

/// Bits of a key: 1,024 buckets.
pub const KEY_BITS: usize = 10;

/// Cycles from the edge that takes an `OP_SET` to the next `s_cmd_ready`.
pub const SET_CYCLES: usize = 5;
/// Cycles from the edge that takes an `OP_REMOVE` to the next `s_cmd_ready`.
pub const REMOVE_CYCLES: usize = 4;

fn k<const M: usize>(v: u64) -> Constant<Bits<M>> {
    Constant::new(v.into())
}

/// The bucketed queue over `2^A` entries.
#[derive(LogicBlock)]
pub struct BucketQueue<const A: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: empties the queue (then clears for `2^A` cycles).
    pub reset: Signal<In, Bit>,
    /// A command is offered.
    pub s_cmd_valid: Signal<In, Bit>,
    /// The block takes a command at this edge (from registers only).
    pub s_cmd_ready: Signal<Out, Bit>,
    /// [`OP_SET`], [`OP_REMOVE`] or [`OP_WALK`].
    pub s_cmd_op: Signal<In, Bits<2>>,
    /// The entry set or removed.
    pub s_cmd_entry: Signal<In, Bits<A>>,
    /// The key an entry is set under.
    pub s_cmd_key: Signal<In, Bits<KEY_BITS>>,
    /// Ends a walk at this edge.
    pub s_walk_stop: Signal<In, Bit>,
    /// An entry of the walk is shown.
    pub m_walk_valid: Signal<Out, Bit>,
    /// The entry.
    pub m_walk_entry: Signal<Out, Bits<A>>,
    /// Its key.
    pub m_walk_key: Signal<Out, Bits<KEY_BITS>>,
    /// The walk ends at this edge: no entry follows.
    pub m_walk_end: Signal<Out, Bit>,
    /// Entries queued.
    pub count: Signal<Out, Bits<16>>,
    nxt: RAM<Bits<A>, A>,
    prv: RAM<Bits<A>, A>,
    ekey: RAM<Bits<KEY_BITS>, A>,
    ev: RAM<Bit, A>,
    head: RAM<Bits<A>, KEY_BITS>,
    tail: RAM<Bits<A>, KEY_BITS>,
    words: LutRam<Bits<32>, 5>,
    sum: DFF<Bits<32>>,
    st: DFF<Bits<4>>,
    op: DFF<Bits<2>>,
    e: DFF<Bits<A>>,
    key: DFF<Bits<KEY_BITS>>,
    ob: DFF<Bits<KEY_BITS>>,
    onx: DFF<Bits<A>>,
    opv: DFF<Bits<A>>,
    clr: DFF<Bits<A>>,
    n: DFF<Bits<16>>,
    fb: DFF<Bits<KEY_BITS>>,
    f_w2: DFF<Bits<KEY_BITS>>,
    wb: DFF<Bits<KEY_BITS>>,
    wt: DFF<Bits<A>>,
    emptied: DFF<Bit>,
    wa: DFF<Bits<5>>,
    pz: DFF<Bit>,
    wl: DFF<Bit>,
    // Combinational helpers.
    ek_valid: Signal<Local, Bit>,
    ek_key: Signal<Local, Bits<KEY_BITS>>,
    is_head: Signal<Local, Bit>,
    is_tail: Signal<Local, Bit>,
    kw: Signal<Local, Bits<5>>,
    kb: Signal<Local, Bits<KEY_BITS>>,
    ow: Signal<Local, Bits<5>>,
    obb: Signal<Local, Bits<KEY_BITS>>,
    fw: Signal<Local, Bits<5>>,
    fbb: Signal<Local, Bits<KEY_BITS>>,
    w2w: Signal<Local, Bits<5>>,
    wb_next: Signal<Local, Bits<KEY_BITS>>,
    nw: Signal<Local, Bits<5>>,
    sum_base: Signal<Local, Bits<32>>,
    word: Signal<Local, Bits<32>>,
    k_bit: Signal<Local, Bits<32>>,
    k_empty: Signal<Local, Bit>,
    o_bit: Signal<Local, Bits<32>>,
    o_left: Signal<Local, Bits<32>>,
    m1: Signal<Local, Bits<32>>,
    s2: Signal<Local, Bits<32>>,
    oh_w: Signal<Local, Bits<32>>,
    oh_s: Signal<Local, Bits<32>>,
    t_w: [Signal<Local, Bits<KEY_BITS>>; 5],
    t_s: [Signal<Local, Bits<KEY_BITS>>; 5],
    ffs_w: Signal<Local, Bits<KEY_BITS>>,
    ffs_s: Signal<Local, Bits<KEY_BITS>>,
    w_entry: Signal<Local, Bits<A>>,
    w_last: Signal<Local, Bit>,
    w_top: Signal<Local, Bit>,
    bt_addr: Signal<Local, Bits<KEY_BITS>>,
    walking: Signal<Local, Bit>,
    // States: clearing; idle; unlink (entry read, bucket read); link (tail read, write);
    // walk (find: word, bucket; head; next).
    s_clr: Constant<Bits<4>>,
    s_idle: Constant<Bits<4>>,
    s_u1: Constant<Bits<4>>,
    s_u2: Constant<Bits<4>>,
    s_u3: Constant<Bits<4>>,
    s_l0: Constant<Bits<4>>,
    s_l1: Constant<Bits<4>>,
    s_fa: Constant<Bits<4>>,
    s_fb: Constant<Bits<4>>,
    s_fc: Constant<Bits<4>>,
    s_h: Constant<Bits<4>>,
    s_n: Constant<Bits<4>>,
    c_set: Constant<Bits<2>>,
    c_walk: Constant<Bits<2>>,
    c_sel: [Constant<Bits<32>>; 5],
    c_pow: [Constant<Bits<KEY_BITS>>; KEY_BITS],
    c_low: Constant<Bits<KEY_BITS>>,
    c_high: Constant<Bits<KEY_BITS>>,
    c_five8: Constant<Bits<8>>,
    c_zero8: Constant<Bits<8>>,
    c_ones: Constant<Bits<32>>,
    c_one: Constant<Bits<32>>,
    c_zero: Constant<Bits<32>>,
    c_one_k: Constant<Bits<KEY_BITS>>,
    c_zero_k: Constant<Bits<KEY_BITS>>,
    c_last_k: Constant<Bits<KEY_BITS>>,
    c_one_e: Constant<Bits<A>>,
    c_zero_e: Constant<Bits<A>>,
    c_last_e: Constant<Bits<A>>,
    c_one16: Constant<Bits<16>>,
    c_zero16: Constant<Bits<16>>,
    c_zero5: Constant<Bits<5>>,
}

/// The instance over 1,024 entries (module `homa_common_bucket_queue_n1024`).
pub type BucketQueue1024 = BucketQueue<10>;

impl<const A: usize> Default for BucketQueue<A> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const A: usize> core::fmt::Debug for BucketQueue<A> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BucketQueue")
            .field("entries", &(1usize << A))
            .finish_non_exhaustive()
    }
}

impl<const A: usize> BucketQueue<A> {
    /// A queue, empty after reset.
    pub fn new() -> Self {
        assert!((5..=16).contains(&A), "32 to 65,536 entries");
        Self {
            clock: Signal::default(),
            reset: Signal::default(),
            s_cmd_valid: Signal::default(),
            s_cmd_ready: Signal::default(),
            s_cmd_op: Signal::default(),
            s_cmd_entry: Signal::default(),
            s_cmd_key: Signal::default(),
            s_walk_stop: Signal::default(),
            m_walk_valid: Signal::default(),
            m_walk_entry: Signal::default(),
            m_walk_key: Signal::default(),
            m_walk_end: Signal::default(),
            count: Signal::default(),
            nxt: RAM::default(),
            prv: RAM::default(),
            ekey: RAM::default(),
            ev: RAM::default(),
            head: RAM::default(),
            tail: RAM::default(),
            words: LutRam::default(),
            sum: DFF::default(),
            st: DFF::default(),
            op: DFF::default(),
            e: DFF::default(),
            key: DFF::default(),
            ob: DFF::default(),
            onx: DFF::default(),
            opv: DFF::default(),
            clr: DFF::default(),
            n: DFF::default(),
            fb: DFF::default(),
            f_w2: DFF::default(),
            wb: DFF::default(),
            wt: DFF::default(),
            emptied: DFF::default(),
            wa: DFF::default(),
            pz: DFF::default(),
            wl: DFF::default(),
            ek_valid: Signal::default(),
            ek_key: Signal::default(),
            is_head: Signal::default(),
            is_tail: Signal::default(),
            kw: Signal::default(),
            kb: Signal::default(),
            ow: Signal::default(),
            obb: Signal::default(),
            fw: Signal::default(),
            fbb: Signal::default(),
            w2w: Signal::default(),
            wb_next: Signal::default(),
            nw: Signal::default(),
            sum_base: Signal::default(),
            word: Signal::default(),
            k_bit: Signal::default(),
            k_empty: Signal::default(),
            o_bit: Signal::default(),
            o_left: Signal::default(),
            m1: Signal::default(),
            s2: Signal::default(),
            oh_w: Signal::default(),
            oh_s: Signal::default(),
            t_w: std::array::from_fn(|_| Signal::default()),
            t_s: std::array::from_fn(|_| Signal::default()),
            ffs_w: Signal::default(),
            ffs_s: Signal::default(),
            w_entry: Signal::default(),
            w_last: Signal::default(),
            w_top: Signal::default(),
            bt_addr: Signal::default(),
            walking: Signal::default(),
            s_clr: k(0),
            s_idle: k(1),
            s_u1: k(2),
            s_u2: k(3),
            s_u3: k(11),
            s_l0: k(4),
            s_l1: k(5),
            s_fa: k(6),
            s_fb: k(7),
            s_fc: k(10),
            s_h: k(8),
            s_n: k(9),
            c_set: k(OP_SET),
            c_walk: k(OP_WALK),
            c_sel: std::array::from_fn(|j| {
                k((0..32u64).filter(|i| i >> j & 1 == 1).map(|i| 1 << i).sum())
            }),
            c_pow: std::array::from_fn(|j| k(1 << j)),
            c_low: k(31),
            c_high: k(0x3E0),
            c_five8: k(5),
            c_zero8: k(0),
            c_ones: k(u64::from(u32::MAX)),
            c_one: k(1),
            c_zero: k(0),
            c_one_k: k(1),
            c_zero_k: k(0),
            c_last_k: k((1 << KEY_BITS) - 1),
            c_one_e: k(1),
            c_zero_e: k(0),
            c_last_e: k((1 << A) - 1),
            c_one16: k(1),
            c_zero16: k(0),
            c_zero5: k(0),
        }
    }
}

impl<const A: usize> BucketQueue<A> {
    /// A new block as the top level of a design: every input driven from outside, the
    /// rest connected (what the Verilog generator and the benches both start from).
    pub fn top_level() -> Self {
        let mut uut = Self::new();
        uut.clock.connect();
        uut.reset.connect();
        uut.s_cmd_valid.connect();
        uut.s_cmd_op.connect();
        uut.s_cmd_entry.connect();
        uut.s_cmd_key.connect();
        uut.s_walk_stop.connect();
        uut.connect_all();
        uut
    }
}

impl<const A: usize> Logic for BucketQueue<A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, sum, st, op, e, key, ob, onx, opv, clr, n, fb, f_w2, wb, wt, emptied, wa,
            pz, wl
        );
        self.words.clock.next = self.clock.val();
        self.nxt.read_clock.next = self.clock.val();
        self.nxt.write_clock.next = self.clock.val();
        self.prv.read_clock.next = self.clock.val();
        self.prv.write_clock.next = self.clock.val();
        self.ekey.read_clock.next = self.clock.val();
        self.ekey.write_clock.next = self.clock.val();
        self.ev.read_clock.next = self.clock.val();
        self.ev.write_clock.next = self.clock.val();
        self.head.read_clock.next = self.clock.val();
        self.head.write_clock.next = self.clock.val();
        self.tail.read_clock.next = self.clock.val();
        self.tail.write_clock.next = self.clock.val();

        // The entry's RAMs are read at the command's entry while idle (the read happens at
        // the edge that takes the command), else at the registered entry.
        self.nxt.read_address.next = self.e.q.val();
        self.prv.read_address.next = self.e.q.val();
        self.ekey.read_address.next = self.e.q.val();
        self.ev.read_address.next = self.e.q.val();
        if self.st.q.val() == self.s_idle.val() {
            self.nxt.read_address.next = self.s_cmd_entry.val();
            self.prv.read_address.next = self.s_cmd_entry.val();
            self.ekey.read_address.next = self.s_cmd_entry.val();
            self.ev.read_address.next = self.s_cmd_entry.val();
        }
        self.ek_valid.next = self.ev.read_data.val();
        self.ek_key.next = self.ekey.read_data.val();
        self.is_head.next = self.head.read_data.val() == self.e.q.val();
        self.is_tail.next = self.tail.read_data.val() == self.e.q.val();

        // The bitmap: one word of 32 buckets read at a time, at the new key's word (link),
        // the old key's (unlink), the from-bucket's (find A) or the next non-empty one's
        // (find B).
        self.kw.next = self.key.q.val().get_bits::<5>(self.c_five8.val().index());
        self.kb.next = self.key.q.val() & self.c_low.val();
        self.ow.next = self.ob.q.val().get_bits::<5>(self.c_five8.val().index());
        self.obb.next = self.ob.q.val() & self.c_low.val();
        self.fw.next = self.fb.q.val().get_bits::<5>(self.c_five8.val().index());
        self.fbb.next = self.fb.q.val() & self.c_low.val();
        self.wb_next.next = self.wb.q.val() + self.c_one_k.val();
        self.nw.next = self.wb_next.val().get_bits::<5>(self.c_five8.val().index());
        // Each state's word is read at an address registered in the state before (below,
        // with the transitions), so the read starts at a flop.
        self.words.read_address.next = self.wa.q.val();
        self.word.next = self.words.read_data.val();
        self.k_bit.next = self.c_one.val() << self.kb.val();
        self.k_empty.next = (self.word.val() & self.k_bit.val()) == self.c_zero.val();
        self.o_bit.next = self.c_one.val() << self.obb.val();
        self.o_left.next = self.word.val() & !self.o_bit.val();

        // Find A: the from-bucket's word from its bit up, and the non-empty words after it
        // (summary). Find B: the next non-empty word. Lowest set bit: the loop's last hit
        // wins, so it runs downwards.
        self.m1.next = self.word.val() & (self.c_ones.val() << self.fbb.val());
        self.s2.next =
            self.sum.q.val() & ((self.c_ones.val() << self.fw.val()) << self.c_one.val());
        if self.st.q.val() == self.s_fb.val() {
            self.m1.next = self.word.val();
        }
        // The lowest set bit isolated by the carry chain (`m & -m`), then encoded: bit `j` of
        // its index is set when the one-hot bit lies where index bit `j` is one.
        self.oh_w.next = self.m1.val() & ((!self.m1.val()) + self.c_one.val());
        self.oh_s.next = self.s2.val() & ((!self.s2.val()) + self.c_one.val());
        for j in 0..5 {
            self.t_w[j].next = self.c_zero_k.val();
            self.t_s[j].next = self.c_zero_k.val();
            if (self.oh_w.val() & self.c_sel[j].val()) != self.c_zero.val() {
                self.t_w[j].next = self.c_pow[j].val();
            }
            if (self.oh_s.val() & self.c_sel[j].val()) != self.c_zero.val() {
                self.t_s[j].next = self.c_pow[j + 5].val();
            }
        }
        self.ffs_w.next = self.t_w[0].val()
            | self.t_w[1].val()
            | self.t_w[2].val()
            | self.t_w[3].val()
            | self.t_w[4].val();
        self.ffs_s.next = self.t_s[0].val()
            | self.t_s[1].val()
            | self.t_s[2].val()
            | self.t_s[3].val()
            | self.t_s[4].val();
        self.w2w.next = self.ffs_s.val().get_bits::<5>(self.c_five8.val().index());

        // The bucket RAMs are read at the entry's old bucket (unlink), the new key (link) or
        // the bucket found (walk).
        self.bt_addr.next = self.key.q.val();
        if self.st.q.val() == self.s_u1.val() {
            self.bt_addr.next = self.ek_key.val();
        }
        if self.st.q.val() == self.s_fc.val() {
            self.bt_addr.next = self.wb.q.val();
        }
        self.head.read_address.next = self.bt_addr.val();
        self.tail.read_address.next = self.bt_addr.val();

        // The walk's output: the head of the bucket just read, then each next entry.
        self.w_entry.next = self.nxt.read_data.val();
        self.w_last.next = self.nxt.read_data.val() == self.wt.q.val();
        if self.st.q.val() == self.s_h.val() {
            self.w_entry.next = self.head.read_data.val();
            self.w_last.next = self.head.read_data.val() == self.tail.read_data.val();
        }
        self.w_top.next = self.wb.q.val() == self.c_last_k.val();
        // The cycle after a bucket's tail was shown shows nothing (`wl`): the tail compare is
        // registered, off the RAM's output path into the state.
        self.m_walk_valid.next = (self.st.q.val() == self.s_h.val())
            | ((self.st.q.val() == self.s_n.val()) & !self.wl.q.val());
        self.m_walk_entry.next = self.w_entry.val();
        self.m_walk_key.next = self.wb.q.val();
        self.m_walk_end.next = false;
        if (self.st.q.val() == self.s_fa.val())
            & (self.m1.val() == self.c_zero.val())
            & (self.s2.val() == self.c_zero.val())
        {
            self.m_walk_end.next = true;
        }
        if (self.st.q.val() == self.s_n.val()) & self.wl.q.val() & self.w_top.val() {
            self.m_walk_end.next = true;
        }

        self.s_cmd_ready.next = self.st.q.val() == self.s_idle.val();
        self.count.next = self.n.q.val();

        // The summary as the pending clear leaves it.
        self.sum_base.next = self.sum.q.val();
        if self.pz.q.val() {
            self.sum_base.next = self.sum.q.val() & !(self.c_one.val() << self.ow.val());
        }
        self.sum.d.next = self.sum_base.val();
        self.pz.d.next = false;

        // Writes: none unless a state below says so.
        self.nxt.write_enable.next = false;
        self.prv.write_enable.next = false;
        self.ekey.write_enable.next = false;
        self.ev.write_enable.next = false;
        self.head.write_enable.next = false;
        self.tail.write_enable.next = false;
        self.words.write_enable.next = false;
        self.nxt.write_address.next = self.opv.q.val();
        self.nxt.write_data.next = self.onx.q.val();
        self.prv.write_address.next = self.onx.q.val();
        self.prv.write_data.next = self.opv.q.val();
        self.ekey.write_address.next = self.e.q.val();
        self.ekey.write_data.next = self.key.q.val();
        self.ev.write_address.next = self.e.q.val();
        self.ev.write_data.next = false;
        self.head.write_address.next = self.bt_addr.val();
        self.head.write_data.next = self.onx.q.val();
        self.tail.write_address.next = self.bt_addr.val();
        self.tail.write_data.next = self.opv.q.val();
        self.words.write_address.next = self.kw.val();
        self.words.write_data.next = self.word.val() | self.k_bit.val();

        // Clearing after reset: every entry's valid bit, every bitmap word.
        if self.st.q.val() == self.s_clr.val() {
            self.ev.write_address.next = self.clr.q.val();
            self.ev.write_enable.next = true;
            self.words.write_address.next =
                self.clr.q.val().get_bits::<5>(self.c_zero8.val().index());
            self.words.write_data.next = self.c_zero.val();
            self.words.write_enable.next = true;
            self.clr.d.next = self.clr.q.val() + self.c_one_e.val();
            if self.clr.q.val() == self.c_last_e.val() {
                self.st.d.next = self.s_idle.val();
            }
        }

        // Idle: take a command.
        if (self.st.q.val() == self.s_idle.val()) & self.s_cmd_valid.val() {
            self.op.d.next = self.s_cmd_op.val();
            self.e.d.next = self.s_cmd_entry.val();
            self.key.d.next = self.s_cmd_key.val();
            if self.s_cmd_op.val() == self.c_walk.val() {
                self.fb.d.next = self.c_zero_k.val();
                self.wa.d.next = self.c_zero5.val();
                self.st.d.next = self.s_fa.val();
            } else {
                self.st.d.next = self.s_u1.val();
            }
        }

        // Unlink, 1: the entry's key, next and prev; its old bucket's head and tail are read.
        if self.st.q.val() == self.s_u1.val() {
            self.ob.d.next = self.ek_key.val();
            self.onx.d.next = self.nxt.read_data.val();
            self.opv.d.next = self.prv.read_data.val();
            self.emptied.d.next = false;
            if !self.ek_valid.val() {
                // Not queued: a set links it, a remove is done.
                if self.op.q.val() == self.c_set.val() {
                    self.st.d.next = self.s_l0.val();
                } else {
                    self.st.d.next = self.s_idle.val();
                }
            } else if (self.op.q.val() == self.c_set.val())
                & (self.ek_key.val() == self.key.q.val())
            {
                // Already under that key: it keeps its place.
                self.st.d.next = self.s_idle.val();
            } else {
                self.st.d.next = self.s_u2.val();
            }
        }

        // Unlink, 2: the links around the entry.
        if self.st.q.val() == self.s_u2.val() {
            self.head.write_address.next = self.ob.q.val();
            self.tail.write_address.next = self.ob.q.val();
            self.nxt.write_enable.next = !self.is_head.val();
            self.prv.write_enable.next = !self.is_tail.val();
            self.head.write_enable.next = self.is_head.val();
            self.tail.write_enable.next = self.is_tail.val();
            self.ev.write_enable.next = true;
            self.n.d.next = self.n.q.val() - self.c_one16.val();
            self.emptied.d.next = self.is_head.val() & self.is_tail.val();
            self.wa.d.next = self.ow.val();
            if self.op.q.val() == self.c_set.val() {
                self.st.d.next = self.s_l0.val();
            } else {
                self.st.d.next = self.s_u3.val();
            }
        }

        // Unlink, 3 (a remove's; a set's is link 0): the old bucket's bit is cleared if it
        // emptied; its word's summary bit, if the word did, at the next edge (`pz`: the old
        // bucket `ob` holds until the next command's first edge, when it applies).
        if ((self.st.q.val() == self.s_u3.val()) | (self.st.q.val() == self.s_l0.val()))
            & self.emptied.q.val()
        {
            self.words.write_address.next = self.ow.val();
            self.words.write_data.next = self.o_left.val();
            self.words.write_enable.next = true;
            self.pz.d.next = self.o_left.val() == self.c_zero.val();
        }
        if self.st.q.val() == self.s_u3.val() {
            self.st.d.next = self.s_idle.val();
        }

        // Link, 0: the new bucket's tail is read.
        if self.st.q.val() == self.s_l0.val() {
            self.wa.d.next = self.kw.val();
            self.st.d.next = self.s_l1.val();
        }

        // Link, 1: the entry at the tail.
        if self.st.q.val() == self.s_l1.val() {
            self.ekey.write_enable.next = true;
            self.ev.write_data.next = true;
            self.ev.write_enable.next = true;
            self.tail.write_data.next = self.e.q.val();
            self.tail.write_enable.next = true;
            self.n.d.next = self.n.q.val() + self.c_one16.val();
            // The bucket's bit and its word's summary bit are set whether or not they were
            // (off the empty test's path).
            self.words.write_enable.next = true;
            self.sum.d.next = self.sum_base.val() | (self.c_one.val() << self.kw.val());
            if self.k_empty.val() {
                self.head.write_data.next = self.e.q.val();
                self.head.write_enable.next = true;
            } else {
                self.nxt.write_address.next = self.tail.read_data.val();
                self.nxt.write_data.next = self.e.q.val();
                self.nxt.write_enable.next = true;
                self.prv.write_address.next = self.e.q.val();
                self.prv.write_data.next = self.tail.read_data.val();
                self.prv.write_enable.next = true;
            }
            self.st.d.next = self.s_idle.val();
        }

        // Find A: a bucket in the from-bucket's word, else the next non-empty word, else
        // the end.
        if self.st.q.val() == self.s_fa.val() {
            self.wb.d.next = (self.fb.q.val() & self.c_high.val()) | self.ffs_w.val();
            self.f_w2.d.next = self.ffs_s.val();
            if self.m1.val() != self.c_zero.val() {
                self.st.d.next = self.s_fc.val();
            } else if self.s2.val() != self.c_zero.val() {
                self.wa.d.next = self.w2w.val();
                self.st.d.next = self.s_fb.val();
            } else {
                self.st.d.next = self.s_idle.val();
            }
        }
        // Find B: the first bucket of that word.
        if self.st.q.val() == self.s_fb.val() {
            self.wb.d.next = self.f_w2.q.val() | self.ffs_w.val();
            self.st.d.next = self.s_fc.val();
        }
        // Find C: its head and tail are read.
        if self.st.q.val() == self.s_fc.val() {
            self.st.d.next = self.s_h.val();
        }
        // Head or next: the entry is shown and its next read; after a bucket's tail, the next
        // bucket.
        if self.m_walk_valid.val() {
            if self.st.q.val() == self.s_h.val() {
                self.wt.d.next = self.tail.read_data.val();
            }
            self.nxt.read_address.next = self.w_entry.val();
            self.wl.d.next = self.w_last.val();
            self.st.d.next = self.s_n.val();
        }
        if (self.st.q.val() == self.s_n.val()) & self.wl.q.val() {
            self.fb.d.next = self.wb_next.val();
            self.wa.d.next = self.nw.val();
            self.wl.d.next = false;
            if self.w_top.val() {
                self.st.d.next = self.s_idle.val();
            } else {
                self.st.d.next = self.s_fa.val();
            }
        }
        self.walking.next = (self.st.q.val() == self.s_fa.val())
            | (self.st.q.val() == self.s_fb.val())
            | (self.st.q.val() == self.s_fc.val())
            | (self.st.q.val() == self.s_h.val())
            | (self.st.q.val() == self.s_n.val());
        if self.walking.val() & self.s_walk_stop.val() {
            self.st.d.next = self.s_idle.val();
            self.wl.d.next = false;
        }

        if self.reset.val() {
            self.st.d.next = self.s_clr.val();
            self.clr.d.next = self.c_zero_e.val();
            self.n.d.next = self.c_zero16.val();
            self.sum.d.next = self.c_zero.val();
            self.pz.d.next = false;
            self.wl.d.next = false;
        }
    }
}
