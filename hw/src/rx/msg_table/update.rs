//! One way's entry update: what the packet in stage 1 makes of the entry read from that way,
//! as if the packet's message were the one it holds (or, when it misses, a new message).
//! [`super::MsgTable`] runs one per way side by side and picks the result of the way that
//! holds (or takes) the message, so the way's pick is not on the update's path.

use super::records::MsgEntry;
use crate::hdl::*;

/// The update of one way's entry (combinational).
#[derive(LogicBlock)]
pub struct EntryUpdate {
    /// The entry read from the way (forwarded from the last write when it was that place).
    pub e: Signal<In, MsgEntry>,
    /// The entry holds the packet's message (done or not).
    pub hit: Signal<In, Bit>,
    /// The packet's offset in its message.
    pub pkt_offset: Signal<In, Bits<32>>,
    /// The packet's end offset.
    pub pkt_end: Signal<In, Bits<32>>,
    /// The packet's message length.
    pub pkt_length: Signal<In, Bits<32>>,
    /// The packet's peer.
    pub pkt_peer: Signal<In, Bits<32>>,
    /// The packet's RPC id.
    pub pkt_id: Signal<In, Bits<64>>,
    /// The input is a release, not a packet.
    pub pkt_release: Signal<In, Bit>,
    /// The entry to write back.
    pub upd: Signal<Out, MsgEntry>,
    /// The packet's new bytes (for the grant generator's event).
    pub new_bytes: Signal<Out, Bits<32>>,
    /// The packet would open a third range: it joins its neighbour, and the gap between them
    /// counts as received.
    pub forgot: Signal<Out, Bit>,
    /// The packet is a late duplicate, or its length disagrees with the entry's.
    pub drop_late: Signal<Out, Bit>,
    e_done: Signal<Local, Bit>,
    hi_b0: Signal<Local, Bit>,
    hi_b1: Signal<Local, Bit>,
    lo_a0: Signal<Local, Bit>,
    lo_a1: Signal<Local, Bit>,
    pos0: Signal<Local, Bit>,
    pos1: Signal<Local, Bit>,
    t0: Signal<Local, Bit>,
    t1: Signal<Local, Bit>,
    d_ba0: Signal<Local, Bits<32>>,
    d_ba1: Signal<Local, Bits<32>>,
    d_bo0: Signal<Local, Bits<32>>,
    d_bo1: Signal<Local, Bits<32>>,
    d_ea0: Signal<Local, Bits<32>>,
    d_ea1: Signal<Local, Bits<32>>,
    max_eb0: Signal<Local, Bits<32>>,
    max_eb1: Signal<Local, Bits<32>>,
    min_sa0: Signal<Local, Bits<32>>,
    min_sa1: Signal<Local, Bits<32>>,
    ov0: Signal<Local, Bits<32>>,
    ov1: Signal<Local, Bits<32>>,
    plen: Signal<Local, Bits<32>>,
    g_a0: Signal<Local, Bits<32>>,
    g_a1: Signal<Local, Bits<32>>,
    g_b1: Signal<Local, Bits<32>>,
    c_zero32: Constant<Bits<32>>,
}

impl Default for EntryUpdate {
    fn default() -> Self {
        Self {
            e: Signal::default(),
            hit: Signal::default(),
            pkt_offset: Signal::default(),
            pkt_end: Signal::default(),
            pkt_length: Signal::default(),
            pkt_peer: Signal::default(),
            pkt_id: Signal::default(),
            pkt_release: Signal::default(),
            upd: Signal::default(),
            new_bytes: Signal::default(),
            forgot: Signal::default(),
            drop_late: Signal::default(),
            e_done: Signal::default(),
            hi_b0: Signal::default(),
            hi_b1: Signal::default(),
            lo_a0: Signal::default(),
            lo_a1: Signal::default(),
            pos0: Signal::default(),
            pos1: Signal::default(),
            t0: Signal::default(),
            t1: Signal::default(),
            d_ba0: Signal::default(),
            d_ba1: Signal::default(),
            d_bo0: Signal::default(),
            d_bo1: Signal::default(),
            d_ea0: Signal::default(),
            d_ea1: Signal::default(),
            max_eb0: Signal::default(),
            max_eb1: Signal::default(),
            min_sa0: Signal::default(),
            min_sa1: Signal::default(),
            ov0: Signal::default(),
            ov1: Signal::default(),
            plen: Signal::default(),
            g_a0: Signal::default(),
            g_a1: Signal::default(),
            g_b1: Signal::default(),
            c_zero32: Constant::new(0u64.into()),
        }
    }
}

impl core::fmt::Debug for EntryUpdate {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("EntryUpdate").finish_non_exhaustive()
    }
}

impl Logic for EntryUpdate {
    #[hdl_gen]
    fn update(&mut self) {
        self.e_done.next = self.e.val().received >= self.e.val().length;
        self.plen.next = self.pkt_end.val() - self.pkt_offset.val();
        // Overlap of [offset, end) with each range [a, b): min(b, end) - max(a, offset) when
        // positive. The four differences it can be are worked out beside the compares that
        // pick one (not after them), and it is positive when each of b and end lies above
        // each of a and offset.
        self.lo_a0.next = self.e.val().a0 > self.pkt_offset.val();
        self.hi_b0.next = self.e.val().b0 < self.pkt_end.val();
        self.d_ba0.next = self.e.val().b0 - self.e.val().a0;
        self.d_bo0.next = self.e.val().b0 - self.pkt_offset.val();
        self.d_ea0.next = self.pkt_end.val() - self.e.val().a0;
        self.pos0.next = (self.e.val().b0 > self.e.val().a0)
            & (self.e.val().b0 > self.pkt_offset.val())
            & (self.pkt_end.val() > self.e.val().a0)
            & (self.pkt_end.val() > self.pkt_offset.val());
        self.ov0.next = self.c_zero32.val();
        if self.pos0.val() {
            self.ov0.next = self.plen.val();
            if self.hi_b0.val() & self.lo_a0.val() {
                self.ov0.next = self.d_ba0.val();
            }
            if self.hi_b0.val() & !self.lo_a0.val() {
                self.ov0.next = self.d_bo0.val();
            }
            if !self.hi_b0.val() & self.lo_a0.val() {
                self.ov0.next = self.d_ea0.val();
            }
        }
        self.lo_a1.next = self.e.val().a1 > self.pkt_offset.val();
        self.hi_b1.next = self.e.val().b1 < self.pkt_end.val();
        self.d_ba1.next = self.e.val().b1 - self.e.val().a1;
        self.d_bo1.next = self.e.val().b1 - self.pkt_offset.val();
        self.d_ea1.next = self.pkt_end.val() - self.e.val().a1;
        self.pos1.next = (self.e.val().b1 > self.e.val().a1)
            & (self.e.val().b1 > self.pkt_offset.val())
            & (self.pkt_end.val() > self.e.val().a1)
            & (self.pkt_end.val() > self.pkt_offset.val());
        self.ov1.next = self.c_zero32.val();
        if self.e.val().r1v & self.pos1.val() {
            self.ov1.next = self.plen.val();
            if self.hi_b1.val() & self.lo_a1.val() {
                self.ov1.next = self.d_ba1.val();
            }
            if self.hi_b1.val() & !self.lo_a1.val() {
                self.ov1.next = self.d_bo1.val();
            }
            if !self.hi_b1.val() & self.lo_a1.val() {
                self.ov1.next = self.d_ea1.val();
            }
        }
        self.t0.next =
            (self.pkt_offset.val() <= self.e.val().b0) & (self.pkt_end.val() >= self.e.val().a0);
        self.t1.next = self.e.val().r1v
            & (self.pkt_offset.val() <= self.e.val().b1)
            & (self.pkt_end.val() >= self.e.val().a1);
        self.min_sa0.next = self.pkt_offset.val();
        if self.e.val().a0 < self.pkt_offset.val() {
            self.min_sa0.next = self.e.val().a0;
        }
        self.max_eb0.next = self.pkt_end.val();
        if self.e.val().b0 > self.pkt_end.val() {
            self.max_eb0.next = self.e.val().b0;
        }
        self.min_sa1.next = self.pkt_offset.val();
        if self.e.val().a1 < self.pkt_offset.val() {
            self.min_sa1.next = self.e.val().a1;
        }
        self.max_eb1.next = self.pkt_end.val();
        if self.e.val().b1 > self.pkt_end.val() {
            self.max_eb1.next = self.e.val().b1;
        }
        // What a packet that opens a third range adds, gap included, for each neighbour.
        self.g_a0.next = self.e.val().a0 - self.pkt_offset.val();
        self.g_a1.next = self.e.val().a1 - self.pkt_offset.val();
        self.g_b1.next = self.pkt_end.val() - self.e.val().b1;
        // The updated entry: an existing message's ranges, or a new message.
        self.upd.next = self.e.val();
        self.new_bytes.next = self.plen.val() - self.ov0.val() - self.ov1.val();
        self.forgot.next = false;
        if self.t0.val() & self.t1.val() {
            self.upd.next.a0 = self.min_sa0.val();
            self.upd.next.b0 = self.max_eb1.val();
            self.upd.next.r1v = false;
        } else if self.t0.val() {
            self.upd.next.a0 = self.min_sa0.val();
            self.upd.next.b0 = self.max_eb0.val();
        } else if self.t1.val() {
            self.upd.next.a1 = self.min_sa1.val();
            self.upd.next.b1 = self.max_eb1.val();
        } else if !self.e.val().r1v {
            self.upd.next.r1v = true;
            if self.pkt_end.val() < self.e.val().a0 {
                self.upd.next.a0 = self.pkt_offset.val();
                self.upd.next.b0 = self.pkt_end.val();
                self.upd.next.a1 = self.e.val().a0;
                self.upd.next.b1 = self.e.val().b0;
            } else {
                self.upd.next.a1 = self.pkt_offset.val();
                self.upd.next.b1 = self.pkt_end.val();
            }
        } else {
            // A third range: join the packet to its neighbour; the gap between them counts
            // as received (the packet overlaps neither range, so its new bytes are the
            // joined range's growth).
            self.forgot.next = true;
            if self.pkt_end.val() < self.e.val().a0 {
                self.upd.next.a0 = self.pkt_offset.val();
                self.new_bytes.next = self.g_a0.val();
            } else if self.pkt_end.val() < self.e.val().a1 {
                self.upd.next.a1 = self.pkt_offset.val();
                self.new_bytes.next = self.g_a1.val();
            } else {
                self.upd.next.b1 = self.pkt_end.val();
                self.new_bytes.next = self.g_b1.val();
            }
        }
        self.upd.next.received = self.e.val().received + self.new_bytes.val();
        self.drop_late.next =
            self.hit.val() & (self.e_done.val() | (self.e.val().length != self.pkt_length.val()));
        if !self.hit.val() {
            // A new message (replacing a free or finished entry).
            self.new_bytes.next = self.plen.val();
            self.forgot.next = false;
            self.upd.next.valid = true;
            self.upd.next.r1v = false;
            self.upd.next.peer = self.pkt_peer.val();
            self.upd.next.id = self.pkt_id.val();
            self.upd.next.length = self.pkt_length.val();
            self.upd.next.received = self.plen.val();
            self.upd.next.a0 = self.pkt_offset.val();
            self.upd.next.b0 = self.pkt_end.val();
            self.upd.next.a1 = self.c_zero32.val();
            self.upd.next.b1 = self.c_zero32.val();
        }
        if self.pkt_release.val() & self.hit.val() {
            // A release: the message is complete, whatever the entry counted (forgotten gaps
            // included); the event carries the rest, so the grant generator's count reaches
            // the length too.
            self.new_bytes.next = self.e.val().length - self.e.val().received;
            self.upd.next.received = self.e.val().length;
            self.upd.next.a0 = self.c_zero32.val();
            self.upd.next.b0 = self.e.val().length;
            self.upd.next.r1v = false;
        }
    }
}
