//! `MsgTable`: the inbound message table. Every DATA packet's header looks up its message by
//! (peer, RPC id) in a table of `2^A` entries held in block RAM (1024 at the default `A = 10`),
//! counts how many of its bytes are new, and hands the grant generator
//! ([`crate::grant_queue::GrantQueue`]) its event with the message's entry (`m_evt_index`, the
//! generator's index for the message): what `homa_proto::core` does with a message's range
//! set, bounded to what hardware keeps per entry.
//!
//! ```text
//!  s_pkt_* ─► hash0, hash1 ─► way 0, way 1 reads ──► stage 1: match, pick, dedupe, ranges ──► write
//!                                   ▲  bypass of the write one edge earlier      └──► Fifo2 ─► m_evt_*
//! ```
//!
//! A message may sit in two places ([`places`]): its bucket of way 0 (entries `0..2^(A-1)`) or
//! its bucket of way 1 (the upper half), under the two hashes of the TX park
//! ([`crate::key_hash`]), which rarely agree for two keys. Both are read at once; a packet
//! takes the way that holds its message, and a new message the first way whose entry is free
//! (empty, or its message complete). Only a message whose two places both hold live messages
//! is left to the host. With one place per message, as first built, 17 hosts of w4 at 80 %
//! load into one receiver left 4 messages of 2,535 to the host.
//!
//! Each entry keeps the message's received bytes as at most two disjoint ranges (one hole):
//! `new` is the packet's length minus its overlap with them, exactly as `core` counts it.
//! What the table does not track, it drops or passes by, and counts:
//! - a packet that would open a third range (a second hole) joins the neighbouring range, and
//!   the gap between them counts as received with it (`holes_forgotten`). Bytes that arrive
//!   later in the gap are then duplicates, so the count is exact when the gap was only
//!   reordering (packets of one message at several priorities); when it was a loss the entry
//!   counts the gap early, its grants run ahead by at most the gap, and the host's RESEND
//!   fetches the bytes. Counting the gap as missing instead left the grants behind by the
//!   gap for good: a gap of a window froze the message until the host took its grants over;
//!   dropping such packets would freeze it at its second loss;
//! - a packet of a message whose bytes have all arrived is a late duplicate, dropped
//!   (`dropped_late`); so is a packet whose message length disagrees with its entry's;
//! - a packet whose two places both hold other live messages (a collision) is passed to the host
//!   without an event (`collisions`): the hardware does not grant that message, and says so
//!   (`m_fate_*`: one report per packet, in order, which the core puts in the packet's
//!   completion for the host, which then grants the message itself).
//!
//! Releases (`s_pkt_release`, from the host through `GRANT.release`) take the same path as a
//! packet covering the whole message: a live entry completes, and the event carries the bytes
//! it still lacked, so the grant generator forgets the message too. This is how messages
//! whose packets the table dropped, or that the host gave up on, stop holding an entry.
//!
//! Timing: a packet accepted at edge `t` reads its two places; its event enters the output FIFO at
//! edge `t + 1` (and the entry is written back); `m_evt_valid` rises in the cycle after. One
//! packet per cycle while the FIFO drains; a write at edge `t` is forwarded to a read of the
//! same entry issued at that edge.

mod records;
mod update;

pub use records::{GrantEvt, MsgEntry};

use crate::fifo::Fifo2;
use crate::hdl::*;
use crate::key_hash::{H0, H1, KeyHash};
use update::EntryUpdate;

fn k<const M: usize>(v: u64) -> Constant<Bits<M>> {
    Constant::new(v.into())
}

/// The two entries a message may take in a table of `2^bits` entries (the hardware's hash,
/// restated for the reference model): way 0's (the low `bits - 1` bits of the TX park's
/// first hash) and way 1's (the upper half, under its second hash).
pub fn places(peer: u32, id: u64, bits: u32) -> [usize; 2] {
    use crate::key_hash::{H0, H1, bucket_of};
    let half = 1usize << (bits - 1);
    [
        bucket_of(&H0, peer, id) & (half - 1),
        half | (bucket_of(&H1, peer, id) & (half - 1)),
    ]
}

/// The inbound message table with `2^A` entries, two ways of `2^W` (`W = A - 1`: Rust's
/// const generics cannot compute it).
#[derive(LogicBlock)]
pub struct MsgTable<const A: usize, const W: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: empties the pipeline. The RAM is not cleared: pulse
    /// `clear` for `2^A` cycles for that (the tests start from a cleared RAM model).
    pub reset: Signal<In, Bit>,
    /// A DATA header is offered.
    pub s_pkt_valid: Signal<In, Bit>,
    /// It is taken this cycle.
    pub s_pkt_ready: Signal<Out, Bit>,
    /// Its sending peer (IPv4 address).
    pub s_pkt_peer: Signal<In, Bits<32>>,
    /// Its RPC id.
    pub s_pkt_id: Signal<In, Bits<64>>,
    /// Its source port.
    pub s_pkt_sport: Signal<In, Bits<16>>,
    /// Its destination port.
    pub s_pkt_dport: Signal<In, Bits<16>>,
    /// Its source MAC address.
    pub s_pkt_mac: Signal<In, Bits<48>>,
    /// The message length.
    pub s_pkt_length: Signal<In, Bits<32>>,
    /// The header's `incoming`.
    pub s_pkt_incoming: Signal<In, Bits<32>>,
    /// The payload's offset in the message.
    pub s_pkt_offset: Signal<In, Bits<32>>,
    /// The payload's end offset (offset + length, at most the message length).
    pub s_pkt_end: Signal<In, Bits<32>>,
    /// The input is a release, not a packet: the host has the whole message (or gave it
    /// up). Offered with offset 0 and end = length, it completes a live entry of that
    /// message and its event makes the grant generator forget it; it is ignored (no event, no
    /// counter) when the entry is done, holds another message or has another length.
    pub s_pkt_release: Signal<In, Bit>,
    /// An event for the grant generator.
    pub m_evt_valid: Signal<Out, Bit>,
    /// The event is taken.
    pub m_evt_ready: Signal<In, Bit>,
    /// Event: the message's entry in the table (the grant generator's index).
    pub m_evt_index: Signal<Out, Bits<A>>,
    /// Event: peer.
    pub m_evt_peer: Signal<Out, Bits<32>>,
    /// Event: RPC id.
    pub m_evt_id: Signal<Out, Bits<64>>,
    /// Event: source port.
    pub m_evt_sport: Signal<Out, Bits<16>>,
    /// Event: destination port.
    pub m_evt_dport: Signal<Out, Bits<16>>,
    /// Event: source MAC.
    pub m_evt_mac: Signal<Out, Bits<48>>,
    /// Event: message length.
    pub m_evt_length: Signal<Out, Bits<32>>,
    /// Event: `incoming`.
    pub m_evt_incoming: Signal<Out, Bits<32>>,
    /// Event: new bytes.
    pub m_evt_new: Signal<Out, Bits<32>>,
    /// Event: end offset.
    pub m_evt_end: Signal<Out, Bits<32>>,
    /// Packets dropped because they would open a second hole (free-running).
    pub holes_forgotten: Signal<Out, Bits<32>>,
    /// Late duplicates and length mismatches dropped (free-running).
    pub dropped_late: Signal<Out, Bits<32>>,
    /// Packets of messages the table could not hold (free-running).
    pub collisions: Signal<Out, Bits<32>>,
    /// A pulse per packet dropped (either reason), with the packet leaving stage 1.
    pub drop_pulse: Signal<Out, Bit>,
    /// A pulse per packet (not release) leaving stage 1, in the order they were taken: its
    /// fate, for the host's completion of the same packet.
    pub m_fate_valid: Signal<Out, Bit>,
    /// With `m_fate_valid`: both the packet's places hold other live messages, so the grant
    /// generator does not see this message (the host grants it).
    pub m_fate_collision: Signal<Out, Bit>,
    hash0: KeyHash,
    hash1: KeyHash,
    way0: EntryUpdate,
    way1: EntryUpdate,
    ram0: RAM<MsgEntry, W>,
    ram1: RAM<MsgEntry, W>,
    fifo: Fifo2<GrantEvt>,
    /// The events' entries, beside `fifo` (pushed and popped with it).
    fifo_idx: Fifo2<Bits<A>>,
    s1_valid: DFF<Bit>,
    s1_idx0: DFF<Bits<W>>,
    s1_idx1: DFF<Bits<W>>,
    s1_peer: DFF<Bits<32>>,
    s1_id: DFF<Bits<64>>,
    s1_sport: DFF<Bits<16>>,
    s1_dport: DFF<Bits<16>>,
    s1_mac: DFF<Bits<48>>,
    s1_length: DFF<Bits<32>>,
    s1_incoming: DFF<Bits<32>>,
    s1_offset: DFF<Bits<32>>,
    s1_end: DFF<Bits<32>>,
    s1_release: DFF<Bit>,
    /// The entry written at the last edge is forwarded to way 0's (way 1's) read.
    byp0: DFF<Bit>,
    byp1: DFF<Bit>,
    byp_entry: DFF<MsgEntry>,
    n_holes: DFF<Bits<32>>,
    n_late: DFF<Bits<32>>,
    n_coll: DFF<Bits<32>>,
    idx0: Signal<Local, Bits<W>>,
    idx1: Signal<Local, Bits<W>>,
    go: Signal<Local, Bit>,
    counted: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    e0: Signal<Local, MsgEntry>,
    e1: Signal<Local, MsgEntry>,
    hit0: Signal<Local, Bit>,
    hit1: Signal<Local, Bit>,
    live0: Signal<Local, Bit>,
    live1: Signal<Local, Bit>,
    sel1: Signal<Local, Bit>,
    hit: Signal<Local, Bit>,
    live_other: Signal<Local, Bit>,
    ent_idx: Signal<Local, Bits<A>>,
    upd: Signal<Local, MsgEntry>,
    new_bytes: Signal<Local, Bits<32>>,
    forgot: Signal<Local, Bit>,
    drop_late: Signal<Local, Bit>,
    coll: Signal<Local, Bit>,
    write: Signal<Local, Bit>,
    emit: Signal<Local, Bit>,
    evt: Signal<Local, GrantEvt>,
    c_one32: Constant<Bits<32>>,
    c_lo: Constant<Bits<8>>,
    c_half: Constant<Bits<A>>,
}

/// The 1024-entry table (two ways of 512), generated as `homa_rx_msg_table_a10`.
pub type MsgTable1024 = MsgTable<10, 9>;

impl<const A: usize, const W: usize> MsgTable<A, W> {
    /// An empty table.
    pub fn new() -> Self {
        assert!(
            (4..=10).contains(&A),
            "MsgTable<{A}, {W}>: 4 to 10 index bits"
        );
        assert_eq!(
            W + 1,
            A,
            "MsgTable<{A}, {W}>: each way holds half the entries"
        );
        Self {
            clock: Signal::default(),
            reset: Signal::default(),
            s_pkt_valid: Signal::default(),
            s_pkt_ready: Signal::default(),
            s_pkt_peer: Signal::default(),
            s_pkt_id: Signal::default(),
            s_pkt_sport: Signal::default(),
            s_pkt_dport: Signal::default(),
            s_pkt_mac: Signal::default(),
            s_pkt_length: Signal::default(),
            s_pkt_incoming: Signal::default(),
            s_pkt_offset: Signal::default(),
            s_pkt_end: Signal::default(),
            s_pkt_release: Signal::default(),
            m_evt_valid: Signal::default(),
            m_evt_ready: Signal::default(),
            m_evt_index: Signal::default(),
            m_evt_peer: Signal::default(),
            m_evt_id: Signal::default(),
            m_evt_sport: Signal::default(),
            m_evt_dport: Signal::default(),
            m_evt_mac: Signal::default(),
            m_evt_length: Signal::default(),
            m_evt_incoming: Signal::default(),
            m_evt_new: Signal::default(),
            m_evt_end: Signal::default(),
            holes_forgotten: Signal::default(),
            dropped_late: Signal::default(),
            collisions: Signal::default(),
            drop_pulse: Signal::default(),
            m_fate_valid: Signal::default(),
            m_fate_collision: Signal::default(),
            hash0: KeyHash::new(&H0),
            hash1: KeyHash::new(&H1),
            way0: EntryUpdate::default(),
            way1: EntryUpdate::default(),
            ram0: RAM::default(),
            ram1: RAM::default(),
            fifo: Fifo2::default(),
            fifo_idx: Fifo2::default(),
            s1_valid: DFF::default(),
            s1_idx0: DFF::default(),
            s1_idx1: DFF::default(),
            s1_peer: DFF::default(),
            s1_id: DFF::default(),
            s1_sport: DFF::default(),
            s1_dport: DFF::default(),
            s1_mac: DFF::default(),
            s1_length: DFF::default(),
            s1_incoming: DFF::default(),
            s1_offset: DFF::default(),
            s1_end: DFF::default(),
            s1_release: DFF::default(),
            byp0: DFF::default(),
            byp1: DFF::default(),
            byp_entry: DFF::default(),
            n_holes: DFF::default(),
            n_late: DFF::default(),
            n_coll: DFF::default(),
            idx0: Signal::default(),
            idx1: Signal::default(),
            go: Signal::default(),
            counted: Signal::default(),
            take: Signal::default(),
            e0: Signal::default(),
            e1: Signal::default(),
            hit0: Signal::default(),
            hit1: Signal::default(),
            live0: Signal::default(),
            live1: Signal::default(),
            sel1: Signal::default(),
            hit: Signal::default(),
            live_other: Signal::default(),
            ent_idx: Signal::default(),
            upd: Signal::default(),
            new_bytes: Signal::default(),
            forgot: Signal::default(),
            drop_late: Signal::default(),
            coll: Signal::default(),
            write: Signal::default(),
            emit: Signal::default(),
            evt: Signal::default(),
            c_one32: k(1),
            c_lo: k(0),
            c_half: k(1 << W),
        }
    }

    /// A new table as the top level of a design: every input driven from outside, the rest
    /// connected (what the Verilog generator and the benches both start from).
    pub fn top_level() -> Self {
        let mut uut = Self::new();
        uut.clock.connect();
        uut.reset.connect();
        uut.s_pkt_valid.connect();
        uut.s_pkt_peer.connect();
        uut.s_pkt_id.connect();
        uut.s_pkt_sport.connect();
        uut.s_pkt_dport.connect();
        uut.s_pkt_mac.connect();
        uut.s_pkt_length.connect();
        uut.s_pkt_incoming.connect();
        uut.s_pkt_offset.connect();
        uut.s_pkt_end.connect();
        uut.s_pkt_release.connect();
        uut.m_evt_ready.connect();
        uut.connect_all();
        uut
    }
}

impl<const A: usize, const W: usize> Default for MsgTable<A, W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const A: usize, const W: usize> core::fmt::Debug for MsgTable<A, W> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MsgTable")
            .field("entries", &(1usize << A))
            .finish_non_exhaustive()
    }
}

impl<const A: usize, const W: usize> Logic for MsgTable<A, W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            s1_valid,
            s1_idx0,
            s1_idx1,
            s1_peer,
            s1_id,
            s1_sport,
            s1_dport,
            s1_mac,
            s1_length,
            s1_incoming,
            s1_offset,
            s1_end,
            s1_release,
            byp0,
            byp1,
            byp_entry,
            n_holes,
            n_late,
            n_coll
        );
        self.fifo.clock.next = self.clock.val();
        self.fifo.reset.next = self.reset.val();
        self.fifo_idx.clock.next = self.clock.val();
        self.fifo_idx.reset.next = self.reset.val();
        self.ram0.read_clock.next = self.clock.val();
        self.ram0.write_clock.next = self.clock.val();
        self.ram1.read_clock.next = self.clock.val();
        self.ram1.write_clock.next = self.clock.val();
        // Stage 1 retires when the FIFO has room; a new packet enters when stage 1 is free
        // or retiring.
        self.go.next = self.s1_valid.q.val() & !self.fifo.full.val();
        self.s_pkt_ready.next = !self.s1_valid.q.val() | self.go.val();
        self.take.next = self.s_pkt_valid.val() & self.s_pkt_ready.val();
        self.hash0.peer.next = self.s_pkt_peer.val();
        self.hash0.id.next = self.s_pkt_id.val();
        self.hash1.peer.next = self.s_pkt_peer.val();
        self.hash1.id.next = self.s_pkt_id.val();
        self.idx0.next = self
            .hash0
            .bucket
            .val()
            .get_bits::<W>(self.c_lo.val().index());
        self.idx1.next = self
            .hash1
            .bucket
            .val()
            .get_bits::<W>(self.c_lo.val().index());
        // Read the new packet's places, or re-read the held ones.
        self.ram0.read_address.next = self.s1_idx0.q.val();
        self.ram1.read_address.next = self.s1_idx1.q.val();
        if self.take.val() {
            self.ram0.read_address.next = self.idx0.val();
            self.ram1.read_address.next = self.idx1.val();
        }
        // ---- Stage 1: the two places (forwarded from the write one edge earlier). ----
        self.e0.next = self.ram0.read_data.val();
        if self.byp0.q.val() {
            self.e0.next = self.byp_entry.q.val();
        }
        self.e1.next = self.ram1.read_data.val();
        if self.byp1.q.val() {
            self.e1.next = self.byp_entry.q.val();
        }
        self.hit0.next = self.e0.val().valid
            & (self.e0.val().peer == self.s1_peer.q.val())
            & (self.e0.val().id == self.s1_id.q.val());
        self.hit1.next = self.e1.val().valid
            & (self.e1.val().peer == self.s1_peer.q.val())
            & (self.e1.val().id == self.s1_id.q.val());
        self.live0.next = self.e0.val().valid & (self.e0.val().received < self.e0.val().length);
        self.live1.next = self.e1.val().valid & (self.e1.val().received < self.e1.val().length);
        // The way that holds the message; for a new one, way 0 unless its entry is live.
        self.sel1.next = self.hit1.val() | (!self.hit0.val() & self.live0.val());
        self.ent_idx.next = bit_cast::<A, W>(self.s1_idx0.q.val());
        if self.sel1.val() {
            self.ent_idx.next = bit_cast::<A, W>(self.s1_idx1.q.val()) | self.c_half.val();
        }
        self.hit.next = self.hit0.val() | self.hit1.val();
        self.live_other.next = !self.hit.val() & self.live0.val() & self.live1.val();
        // Each way's entry is updated as if the packet were its message's (a new one when it
        // misses); the way is picked after, beside the update, so the pick is not on its path.
        self.way0.e.next = self.e0.val();
        self.way0.hit.next = self.hit0.val();
        self.way1.e.next = self.e1.val();
        self.way1.hit.next = self.hit1.val();
        self.way0.pkt_offset.next = self.s1_offset.q.val();
        self.way0.pkt_end.next = self.s1_end.q.val();
        self.way0.pkt_length.next = self.s1_length.q.val();
        self.way0.pkt_peer.next = self.s1_peer.q.val();
        self.way0.pkt_id.next = self.s1_id.q.val();
        self.way0.pkt_release.next = self.s1_release.q.val();
        self.way1.pkt_offset.next = self.s1_offset.q.val();
        self.way1.pkt_end.next = self.s1_end.q.val();
        self.way1.pkt_length.next = self.s1_length.q.val();
        self.way1.pkt_peer.next = self.s1_peer.q.val();
        self.way1.pkt_id.next = self.s1_id.q.val();
        self.way1.pkt_release.next = self.s1_release.q.val();
        self.upd.next = self.way0.upd.val();
        self.new_bytes.next = self.way0.new_bytes.val();
        self.forgot.next = self.way0.forgot.val();
        self.drop_late.next = self.way0.drop_late.val();
        if self.sel1.val() {
            self.upd.next = self.way1.upd.val();
            self.new_bytes.next = self.way1.new_bytes.val();
            self.forgot.next = self.way1.forgot.val();
            self.drop_late.next = self.way1.drop_late.val();
        }
        self.coll.next = self.live_other.val();
        self.emit.next = self.go.val()
            & !self.coll.val()
            & !self.drop_late.val()
            & !(self.s1_release.q.val() & !self.hit.val());
        self.write.next = self.emit.val();
        self.ram0.write_address.next = self.s1_idx0.q.val();
        self.ram0.write_data.next = self.upd.val();
        self.ram0.write_enable.next = self.write.val() & !self.sel1.val();
        self.ram1.write_address.next = self.s1_idx1.q.val();
        self.ram1.write_data.next = self.upd.val();
        self.ram1.write_enable.next = self.write.val() & self.sel1.val();
        self.evt.next.peer = self.s1_peer.q.val();
        self.evt.next.id = self.s1_id.q.val();
        self.evt.next.sport = self.s1_sport.q.val();
        self.evt.next.dport = self.s1_dport.q.val();
        self.evt.next.mac = self.s1_mac.q.val();
        self.evt.next.length = self.s1_length.q.val();
        self.evt.next.incoming = self.s1_incoming.q.val();
        self.evt.next.new = self.new_bytes.val();
        self.evt.next.end = self.s1_end.q.val();
        self.fifo.din.next = self.evt.val();
        self.fifo.push.next = self.emit.val();
        self.fifo.ready.next = self.m_evt_ready.val();
        self.fifo_idx.din.next = self.ent_idx.val();
        self.fifo_idx.push.next = self.emit.val();
        self.fifo_idx.ready.next = self.m_evt_ready.val();
        self.m_evt_index.next = self.fifo_idx.dout.val();
        self.m_evt_valid.next = self.fifo.valid.val();
        self.m_evt_peer.next = self.fifo.dout.val().peer;
        self.m_evt_id.next = self.fifo.dout.val().id;
        self.m_evt_sport.next = self.fifo.dout.val().sport;
        self.m_evt_dport.next = self.fifo.dout.val().dport;
        self.m_evt_mac.next = self.fifo.dout.val().mac;
        self.m_evt_length.next = self.fifo.dout.val().length;
        self.m_evt_incoming.next = self.fifo.dout.val().incoming;
        self.m_evt_new.next = self.fifo.dout.val().new;
        self.m_evt_end.next = self.fifo.dout.val().end;
        // ---- Pipeline registers. ----
        self.byp0.d.next = self.write.val()
            & !self.sel1.val()
            & self.take.val()
            & (self.idx0.val() == self.s1_idx0.q.val());
        self.byp1.d.next = self.write.val()
            & self.sel1.val()
            & self.take.val()
            & (self.idx1.val() == self.s1_idx1.q.val());
        self.byp_entry.d.next = self.upd.val();
        if self.go.val() {
            self.s1_valid.d.next = false;
        }
        if self.take.val() {
            self.s1_valid.d.next = true;
            self.s1_idx0.d.next = self.idx0.val();
            self.s1_idx1.d.next = self.idx1.val();
            self.s1_peer.d.next = self.s_pkt_peer.val();
            self.s1_id.d.next = self.s_pkt_id.val();
            self.s1_sport.d.next = self.s_pkt_sport.val();
            self.s1_dport.d.next = self.s_pkt_dport.val();
            self.s1_mac.d.next = self.s_pkt_mac.val();
            self.s1_length.d.next = self.s_pkt_length.val();
            self.s1_incoming.d.next = self.s_pkt_incoming.val();
            self.s1_offset.d.next = self.s_pkt_offset.val();
            self.s1_end.d.next = self.s_pkt_end.val();
            self.s1_release.d.next = self.s_pkt_release.val();
        }
        self.drop_pulse.next = self.go.val() & !self.emit.val() & !self.s1_release.q.val();
        // Releases count nowhere here (the core counts them).
        self.counted.next = self.go.val() & !self.s1_release.q.val();
        self.m_fate_valid.next = self.counted.val();
        self.m_fate_collision.next = self.coll.val();
        if self.counted.val() & self.hit.val() & self.forgot.val() & !self.drop_late.val() {
            self.n_holes.d.next = self.n_holes.q.val() + self.c_one32.val();
        }
        if self.counted.val() & self.drop_late.val() {
            self.n_late.d.next = self.n_late.q.val() + self.c_one32.val();
        }
        if self.counted.val() & self.coll.val() {
            self.n_coll.d.next = self.n_coll.q.val() + self.c_one32.val();
        }
        if self.reset.val() {
            self.s1_valid.d.next = false;
            self.byp0.d.next = false;
            self.byp1.d.next = false;
        }
        self.holes_forgotten.next = self.n_holes.q.val();
        self.dropped_late.next = self.n_late.q.val();
        self.collisions.next = self.n_coll.q.val();
    }
}

#[cfg(test)]
mod tests;
