//! `TxEngine`: the NIC's transmit path between the TX descriptor ring and the MAC: the
//! transmit scheduler ([`TxSched4`], [`ENGINE_SLOTS`] slots, with the park of
//! [`crate::tx_park`] behind them for every other message) decides each DATA packet and
//! requests its payload by DMA; the packet's header fields wait in a 16-entry FIFO (LUT RAM)
//! while the read is out; the DATA framer ([`DataFramer`]) builds the frame as the payload
//! comes back and posts `TX_DONE` after a message's last frame. Payload and frame beats are `W`
//! bytes ([`TxEngine512`], [`TxEngine64`]).
//!
//! ```text
//!  s_desc_* ─┐                         ┌─► m_rd_* (payload address, length)
//!  s_grant_* ┴─► TxSched4 ─► m_job_* ──┤
//!                                      └─► job FIFO (16) ─► DataFramer ─► m_axis_*
//!  s_pay_* (DMA read data, payload at lane 26 mod W) ────────────────┘      └─► m_done_*
//! ```
//!
//! A pick fires when the read request is taken and the FIFO has room, so at most 16 payload
//! reads are out at once: at ~1 µs of PCIe read latency (250 cycles) and 1424-byte packets,
//! 16 reads in flight carry 16 x 1424 B per µs, 182 Gb/s, above line rate. The DMA engine must
//! answer reads in request order, each exactly as `m_rd_len` asks (see [`DataFramer`]).

#[cfg(test)]
mod tests;

mod rec;

pub use rec::JobRec;

use crate::data_framer::DataFramer;
use crate::hdl::*;
use crate::lutram::LutRam;
use crate::tx_park::TxPark;
use crate::tx_sched::TxSched4;

/// The transmit scheduler's slots in the engine: the shortest messages with bytes to send;
/// the park holds the rest (see [`crate::tx_park`]).
pub const ENGINE_SLOTS: usize = 4;

/// Packets whose payload read may be out at once (the job FIFO's depth).
pub const TX_READS_IN_FLIGHT: usize = 16;

/// The transmit path: scheduler, job FIFO, DATA framer.
#[derive(LogicBlock)]
pub struct TxEngine<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: frees every slot, empties the FIFO.
    pub reset: Signal<In, Bit>,
    /// Unscheduled bytes per message (`rtt_bytes`).
    pub cfg_unsched_bytes: Signal<In, Bits<32>>,
    /// Most payload bytes per DATA packet (> 0, at most 65,459).
    pub cfg_max_payload: Signal<In, Bits<32>>,
    /// Largest message length using unscheduled level 1.
    pub cfg_cutoff1: Signal<In, Bits<32>>,
    /// Largest message length using unscheduled level 2.
    pub cfg_cutoff2: Signal<In, Bits<32>>,
    /// Largest message length using unscheduled level 3.
    pub cfg_cutoff3: Signal<In, Bits<32>>,
    /// Largest message length using unscheduled level 4.
    pub cfg_cutoff4: Signal<In, Bits<32>>,
    /// Largest message length using unscheduled level 5.
    pub cfg_cutoff5: Signal<In, Bits<32>>,
    /// Largest message length using unscheduled level 6.
    pub cfg_cutoff6: Signal<In, Bits<32>>,
    /// Largest message length using unscheduled level 7.
    pub cfg_cutoff7: Signal<In, Bits<32>>,
    /// The NIC's MAC address.
    pub cfg_mac: Signal<In, Bits<48>>,
    /// The next hop's MAC address (every DATA frame's destination).
    pub cfg_next_hop_mac: Signal<In, Bits<48>>,
    /// The NIC's IPv4 address.
    pub cfg_ip: Signal<In, Bits<32>>,
    /// The cutoff version DATA carries.
    pub cfg_cutoff_version: Signal<In, Bits<16>>,
    /// An accepted TX descriptor is offered.
    pub s_desc_valid: Signal<In, Bit>,
    /// It is taken (a scheduler slot is free, or it is a CANCEL).
    pub s_desc_ready: Signal<Out, Bit>,
    /// RETRANSMIT (otherwise SEND_MESSAGE).
    pub s_desc_retransmit: Signal<In, Bit>,
    /// CANCEL: stop what the engine holds of this peer and RPC id (`TxSched`).
    pub s_desc_cancel: Signal<In, Bit>,
    /// Flag NO_COMPLETION.
    pub s_desc_no_completion: Signal<In, Bit>,
    /// Local Homa port.
    pub s_desc_sport: Signal<In, Bits<16>>,
    /// Peer's Homa port.
    pub s_desc_dport: Signal<In, Bits<16>>,
    /// RPC id (the local one).
    pub s_desc_id: Signal<In, Bits<64>>,
    /// Peer IPv4 address.
    pub s_desc_peer: Signal<In, Bits<32>>,
    /// The whole message's length (> 0).
    pub s_desc_length: Signal<In, Bits<32>>,
    /// IOVA of the message's first byte.
    pub s_desc_iova: Signal<In, Bits<64>>,
    /// First byte to send: 0, or the retransmit offset.
    pub s_desc_offset: Signal<In, Bits<32>>,
    /// Bytes to send from there (> 0, inside the message).
    pub s_desc_bytes: Signal<In, Bits<32>>,
    /// The descriptor's cookie.
    pub s_desc_cookie: Signal<In, Bits<64>>,
    /// Its ring index.
    pub s_desc_index: Signal<In, Bits<32>>,
    /// A GRANT arrived.
    pub s_grant_valid: Signal<In, Bit>,
    /// Always high.
    pub s_grant_ready: Signal<Out, Bit>,
    /// The GRANT's source IPv4 address.
    pub s_grant_peer: Signal<In, Bits<32>>,
    /// Its `sender_id` as on the wire.
    pub s_grant_id: Signal<In, Bits<64>>,
    /// Every byte below this offset may be sent.
    pub s_grant_offset: Signal<In, Bits<32>>,
    /// The priority for the scheduled bytes.
    pub s_grant_priority: Signal<In, Bits<3>>,
    /// A payload read is requested.
    pub m_rd_valid: Signal<Out, Bit>,
    /// The request is taken.
    pub m_rd_ready: Signal<In, Bit>,
    /// Host address of the payload's first byte.
    pub m_rd_addr: Signal<Out, Bits<64>>,
    /// Payload bytes: answered, in request order, as `ceil((26 mod W + len) / W)` beats with
    /// byte 0 at lane `26 mod W` of the first.
    pub m_rd_len: Signal<Out, Bits<32>>,
    /// A payload beat.
    pub s_pay_valid: Signal<In, Bit>,
    /// It is taken.
    pub s_pay_ready: Signal<Out, Bit>,
    /// Its bytes, lane 0 in bits 7..0.
    pub s_pay_data: Signal<In, Bits<B>>,
    /// Frame data, byte lane 0 first on the wire.
    pub m_axis_tdata: Signal<Out, Bits<B>>,
    /// Byte enables.
    pub m_axis_tkeep: Signal<Out, Bits<W>>,
    /// A beat is offered.
    pub m_axis_tvalid: Signal<Out, Bit>,
    /// The last beat of the frame.
    pub m_axis_tlast: Signal<Out, Bit>,
    /// The beat is taken.
    pub m_axis_tready: Signal<In, Bit>,
    /// A `TX_DONE` is offered.
    pub m_done_valid: Signal<Out, Bit>,
    /// It is taken.
    pub m_done_ready: Signal<In, Bit>,
    /// Its RPC id.
    pub m_done_id: Signal<Out, Bits<64>>,
    /// The message's length.
    pub m_done_length: Signal<Out, Bits<32>>,
    /// The descriptor's cookie.
    pub m_done_cookie: Signal<Out, Bits<64>>,
    /// The descriptor's ring index.
    pub m_done_index: Signal<Out, Bits<32>>,
    /// Messages held: the scheduler's slots occupied, and the park's entries.
    pub occupancy: Signal<Out, Bits<16>>,
    /// DATA packets decided (payload reads requested), free-running.
    pub packets: Signal<Out, Bits<32>>,
    /// GRANTs that matched no message held (in a slot or parked), free-running.
    pub grants_unmatched: Signal<Out, Bits<32>>,
    /// GRANTs the park dropped, its lookup queue full (free-running).
    pub grants_dropped: Signal<Out, Bits<32>>,
    /// Messages parked now.
    pub parked: Signal<Out, Bits<16>>,
    /// The most messages parked at once since reset.
    pub parked_most: Signal<Out, Bits<16>>,
    /// Parks refused by a taken entry (free-running).
    pub park_collisions: Signal<Out, Bits<32>>,
    /// DATA frames sent, free-running.
    pub frames: Signal<Out, Bits<32>>,
    /// Packets whose payload read is out, not yet framed (0-16).
    pub queued: Signal<Out, Bits<5>>,
    sched: TxSched4,
    park: TxPark,
    framer: DataFramer<W, B>,
    fifo: LutRam<JobRec, 4>,
    wr: DFF<Bits<4>>,
    rd: DFF<Bits<4>>,
    count: DFF<Bits<5>>,
    rec: Signal<Local, JobRec>,
    full: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    c_depth: Constant<Bits<5>>,
    c_zero5: Constant<Bits<5>>,
    c_one5: Constant<Bits<5>>,
    c_zero4: Constant<Bits<4>>,
    c_one4: Constant<Bits<4>>,
}

/// The transmit path of the 512-bit (Alveo) configuration.
pub type TxEngine512 = TxEngine<64, 512>;

/// The transmit path of the 64-bit (small) configuration.
pub type TxEngine64 = TxEngine<8, 64>;

impl<const W: usize, const B: usize> TxEngine<W, B> {
    /// An engine with every slot free and the FIFO empty (after reset).
    pub fn new() -> Self {
        Self {
            clock: Signal::default(),
            reset: Signal::default(),
            cfg_unsched_bytes: Signal::default(),
            cfg_max_payload: Signal::default(),
            cfg_cutoff1: Signal::default(),
            cfg_cutoff2: Signal::default(),
            cfg_cutoff3: Signal::default(),
            cfg_cutoff4: Signal::default(),
            cfg_cutoff5: Signal::default(),
            cfg_cutoff6: Signal::default(),
            cfg_cutoff7: Signal::default(),
            cfg_mac: Signal::default(),
            cfg_next_hop_mac: Signal::default(),
            cfg_ip: Signal::default(),
            cfg_cutoff_version: Signal::default(),
            s_desc_valid: Signal::default(),
            s_desc_ready: Signal::default(),
            s_desc_retransmit: Signal::default(),
            s_desc_cancel: Signal::default(),
            s_desc_no_completion: Signal::default(),
            s_desc_sport: Signal::default(),
            s_desc_dport: Signal::default(),
            s_desc_id: Signal::default(),
            s_desc_peer: Signal::default(),
            s_desc_length: Signal::default(),
            s_desc_iova: Signal::default(),
            s_desc_offset: Signal::default(),
            s_desc_bytes: Signal::default(),
            s_desc_cookie: Signal::default(),
            s_desc_index: Signal::default(),
            s_grant_valid: Signal::default(),
            s_grant_ready: Signal::default(),
            s_grant_peer: Signal::default(),
            s_grant_id: Signal::default(),
            s_grant_offset: Signal::default(),
            s_grant_priority: Signal::default(),
            m_rd_valid: Signal::default(),
            m_rd_ready: Signal::default(),
            m_rd_addr: Signal::default(),
            m_rd_len: Signal::default(),
            s_pay_valid: Signal::default(),
            s_pay_ready: Signal::default(),
            s_pay_data: Signal::default(),
            m_axis_tdata: Signal::default(),
            m_axis_tkeep: Signal::default(),
            m_axis_tvalid: Signal::default(),
            m_axis_tlast: Signal::default(),
            m_axis_tready: Signal::default(),
            m_done_valid: Signal::default(),
            m_done_ready: Signal::default(),
            m_done_id: Signal::default(),
            m_done_length: Signal::default(),
            m_done_cookie: Signal::default(),
            m_done_index: Signal::default(),
            occupancy: Signal::default(),
            packets: Signal::default(),
            grants_unmatched: Signal::default(),
            grants_dropped: Signal::default(),
            parked: Signal::default(),
            parked_most: Signal::default(),
            park_collisions: Signal::default(),
            frames: Signal::default(),
            queued: Signal::default(),
            sched: TxSched4::new(),
            park: TxPark::new(),
            framer: DataFramer::new(),
            fifo: LutRam::default(),
            wr: DFF::default(),
            rd: DFF::default(),
            count: DFF::default(),
            rec: Signal::default(),
            full: Signal::default(),
            push: Signal::default(),
            pop: Signal::default(),
            c_depth: Constant::new((TX_READS_IN_FLIGHT as u64).into()),
            c_zero5: Constant::new(0u64.into()),
            c_one5: Constant::new(1u64.into()),
            c_zero4: Constant::new(0u64.into()),
            c_one4: Constant::new(1u64.into()),
        }
    }

    /// A new engine as the top level of a design: every input driven from outside, the rest
    /// connected (what the Verilog generator and the bench both start from).
    pub fn top_level() -> Self {
        let mut uut = Self::new();
        uut.clock.connect();
        uut.reset.connect();
        uut.cfg_unsched_bytes.connect();
        uut.cfg_max_payload.connect();
        uut.cfg_cutoff1.connect();
        uut.cfg_cutoff2.connect();
        uut.cfg_cutoff3.connect();
        uut.cfg_cutoff4.connect();
        uut.cfg_cutoff5.connect();
        uut.cfg_cutoff6.connect();
        uut.cfg_cutoff7.connect();
        uut.cfg_mac.connect();
        uut.cfg_next_hop_mac.connect();
        uut.cfg_ip.connect();
        uut.cfg_cutoff_version.connect();
        uut.s_desc_valid.connect();
        uut.s_desc_retransmit.connect();
        uut.s_desc_cancel.connect();
        uut.s_desc_no_completion.connect();
        uut.s_desc_sport.connect();
        uut.s_desc_dport.connect();
        uut.s_desc_id.connect();
        uut.s_desc_peer.connect();
        uut.s_desc_length.connect();
        uut.s_desc_iova.connect();
        uut.s_desc_offset.connect();
        uut.s_desc_bytes.connect();
        uut.s_desc_cookie.connect();
        uut.s_desc_index.connect();
        uut.s_grant_valid.connect();
        uut.s_grant_peer.connect();
        uut.s_grant_id.connect();
        uut.s_grant_offset.connect();
        uut.s_grant_priority.connect();
        uut.m_rd_ready.connect();
        uut.s_pay_valid.connect();
        uut.s_pay_data.connect();
        uut.m_axis_tready.connect();
        uut.m_done_ready.connect();
        uut.connect_all();
        uut
    }
}

impl<const W: usize, const B: usize> Default for TxEngine<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> core::fmt::Debug for TxEngine<W, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TxEngine")
            .field("bytes_per_beat", &W)
            .finish_non_exhaustive()
    }
}

impl<const W: usize, const B: usize> Logic for TxEngine<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wr, rd, count);
        self.sched.clock.next = self.clock.val();
        self.sched.reset.next = self.reset.val();
        self.framer.clock.next = self.clock.val();
        self.framer.reset.next = self.reset.val();
        self.fifo.clock.next = self.clock.val();
        // The scheduler: descriptors and GRANTs straight in.
        self.sched.cfg_unsched_bytes.next = self.cfg_unsched_bytes.val();
        self.sched.cfg_max_payload.next = self.cfg_max_payload.val();
        self.sched.cfg_cutoff1.next = self.cfg_cutoff1.val();
        self.sched.cfg_cutoff2.next = self.cfg_cutoff2.val();
        self.sched.cfg_cutoff3.next = self.cfg_cutoff3.val();
        self.sched.cfg_cutoff4.next = self.cfg_cutoff4.val();
        self.sched.cfg_cutoff5.next = self.cfg_cutoff5.val();
        self.sched.cfg_cutoff6.next = self.cfg_cutoff6.val();
        self.sched.cfg_cutoff7.next = self.cfg_cutoff7.val();
        // The park's resumes and re-issued CANCELs go ahead of the ring's descriptors; its
        // GRANTs offered again take the cycles the parser leaves.
        self.park.clock.next = self.clock.val();
        self.park.reset.next = self.reset.val();
        self.park.ring_valid.next = self.s_desc_valid.val();
        self.park.ring_cancel.next = self.s_desc_cancel.val();
        self.park.ring_peer.next = self.s_desc_peer.val();
        self.park.ring_id.next = self.s_desc_id.val();
        self.park.ring_bytes.next = self.s_desc_bytes.val();
        self.park.cfg_max_payload.next = self.cfg_max_payload.val();
        self.park.sched_full.next = self.sched.full.val();
        self.park.most_valid.next = self.sched.most_valid.val();
        self.park.most_slot.next = self.sched.most_slot.val();
        self.park.most_left.next = self.sched.most_left.val();
        self.park.g_valid.next = self.s_grant_valid.val();
        self.park.g_peer.next = self.s_grant_peer.val();
        self.park.g_id.next = self.s_grant_id.val();
        self.park.g_offset.next = self.s_grant_offset.val();
        self.park.g_priority.next = self.s_grant_priority.val();
        self.park.sched_grant_hit.next = self.sched.m_grant_hit.val();
        self.park.waiting.next = self.sched.waiting.val();
        self.park.park_ok.next = self.sched.park_ok.val();
        self.park.park_entry.next.valid = true;
        self.park.park_entry.next.nocpl = self.sched.park_no_completion.val();
        self.park.park_entry.next.sport = self.sched.park_sport.val();
        self.park.park_entry.next.dport = self.sched.park_dport.val();
        self.park.park_entry.next.id = self.sched.park_id.val();
        self.park.park_entry.next.peer = self.sched.park_peer.val();
        self.park.park_entry.next.length = self.sched.park_length.val();
        self.park.park_entry.next.iova = self.sched.park_iova.val();
        self.park.park_entry.next.cookie = self.sched.park_cookie.val();
        self.park.park_entry.next.index = self.sched.park_index.val();
        self.park.park_entry.next.sent = self.sched.park_sent.val();
        self.park.park_entry.next.left = self.sched.park_left.val();
        self.park.park_entry.next.granted = self.sched.park_granted.val();
        self.park.park_entry.next.sprio = self.sched.park_sprio.val();
        self.sched.park_valid.next = self.park.park_valid.val();
        self.sched.park_slot.next = self.park.park_slot.val();
        self.sched.s_desc_valid.next = self.s_desc_valid.val() & self.park.ring_ok.val();
        self.sched.s_desc_retransmit.next = self.s_desc_retransmit.val();
        self.sched.s_desc_cancel.next = self.s_desc_cancel.val();
        self.sched.s_desc_no_completion.next = self.s_desc_no_completion.val();
        self.sched.s_desc_sport.next = self.s_desc_sport.val();
        self.sched.s_desc_dport.next = self.s_desc_dport.val();
        self.sched.s_desc_id.next = self.s_desc_id.val();
        self.sched.s_desc_peer.next = self.s_desc_peer.val();
        self.sched.s_desc_length.next = self.s_desc_length.val();
        self.sched.s_desc_iova.next = self.s_desc_iova.val();
        self.sched.s_desc_offset.next = self.s_desc_offset.val();
        self.sched.s_desc_bytes.next = self.s_desc_bytes.val();
        self.sched.s_desc_cookie.next = self.s_desc_cookie.val();
        self.sched.s_desc_index.next = self.s_desc_index.val();
        self.sched.s_desc_resume.next = false;
        self.sched.s_desc_granted.next = self.park.r_entry.val().granted;
        self.sched.s_desc_sprio.next = self.park.r_entry.val().sprio;
        if self.park.r_valid.val() {
            self.sched.s_desc_valid.next = true;
            self.sched.s_desc_retransmit.next = false;
            self.sched.s_desc_cancel.next = !self.park.r_entry.val().valid;
            self.sched.s_desc_resume.next = self.park.r_entry.val().valid;
            self.sched.s_desc_no_completion.next = self.park.r_entry.val().nocpl;
            self.sched.s_desc_sport.next = self.park.r_entry.val().sport;
            self.sched.s_desc_dport.next = self.park.r_entry.val().dport;
            self.sched.s_desc_id.next = self.park.r_entry.val().id;
            self.sched.s_desc_peer.next = self.park.r_entry.val().peer;
            self.sched.s_desc_length.next = self.park.r_entry.val().length;
            self.sched.s_desc_iova.next = self.park.r_entry.val().iova;
            self.sched.s_desc_offset.next = self.park.r_entry.val().sent;
            self.sched.s_desc_bytes.next = self.park.r_entry.val().left;
            self.sched.s_desc_cookie.next = self.park.r_entry.val().cookie;
            self.sched.s_desc_index.next = self.park.r_entry.val().index;
        }
        self.sched.s_grant_valid.next = self.s_grant_valid.val() | self.park.ro_valid.val();
        self.sched.s_grant_peer.next = self.s_grant_peer.val();
        self.sched.s_grant_id.next = self.s_grant_id.val();
        self.sched.s_grant_offset.next = self.s_grant_offset.val();
        self.sched.s_grant_priority.next = self.s_grant_priority.val();
        if !self.s_grant_valid.val() {
            self.sched.s_grant_peer.next = self.park.ro_peer.val();
            self.sched.s_grant_id.next = self.park.ro_id.val();
            self.sched.s_grant_offset.next = self.park.ro_offset.val();
            self.sched.s_grant_priority.next = self.park.ro_priority.val();
        }
        self.s_desc_ready.next = self.sched.s_desc_ready.val() & self.park.ring_ok.val();
        self.s_grant_ready.next = self.sched.s_grant_ready.val();
        self.occupancy.next = self.sched.occupancy.val() + self.park.parked.val();
        self.packets.next = self.sched.packets.val();
        self.grants_unmatched.next = self.sched.grants_unmatched.val()
            - self.park.grants_resolved.val()
            - self.park.grants_dropped.val();
        self.grants_dropped.next = self.park.grants_dropped.val();
        self.parked.next = self.park.parked.val();
        self.parked_most.next = self.park.parked_most.val();
        self.park_collisions.next = self.park.collisions.val();
        // A pick leaves as a read request and a FIFO entry in the same cycle.
        self.full.next = self.count.q.val() == self.c_depth.val();
        self.m_rd_valid.next = self.sched.m_job_valid.val() & !self.full.val();
        self.m_rd_addr.next = self.sched.m_job_addr.val();
        self.m_rd_len.next = self.sched.m_job_len.val();
        self.sched.m_job_ready.next = self.m_rd_ready.val() & !self.full.val();
        self.push.next = self.sched.m_job_valid.val() & self.m_rd_ready.val() & !self.full.val();
        self.rec.next.offset = self.sched.m_job_offset.val();
        self.rec.next.len = self.sched.m_job_len.val();
        self.rec.next.priority = self.sched.m_job_priority.val();
        self.rec.next.retransmit = self.sched.m_job_retransmit.val();
        self.rec.next.incoming = self.sched.m_job_incoming.val();
        self.rec.next.last = self.sched.m_job_last.val();
        self.rec.next.no_completion = self.sched.m_job_no_completion.val();
        self.rec.next.peer = self.sched.m_job_peer.val();
        self.rec.next.sport = self.sched.m_job_sport.val();
        self.rec.next.dport = self.sched.m_job_dport.val();
        self.rec.next.id = self.sched.m_job_id.val();
        self.rec.next.length = self.sched.m_job_length.val();
        self.rec.next.cookie = self.sched.m_job_cookie.val();
        self.rec.next.index = self.sched.m_job_index.val();
        self.fifo.write_address.next = self.wr.q.val();
        self.fifo.write_data.next = self.rec.val();
        self.fifo.write_enable.next = self.push.val();
        self.fifo.read_address.next = self.rd.q.val();
        // The framer: the FIFO's head, the payload beats, the MAC and TX_DONE.
        self.framer.s_job_valid.next = self.count.q.val() != self.c_zero5.val();
        self.framer.s_job_offset.next = self.fifo.read_data.val().offset;
        self.framer.s_job_len.next = self.fifo.read_data.val().len;
        self.framer.s_job_priority.next = self.fifo.read_data.val().priority;
        self.framer.s_job_retransmit.next = self.fifo.read_data.val().retransmit;
        self.framer.s_job_incoming.next = self.fifo.read_data.val().incoming;
        self.framer.s_job_last.next = self.fifo.read_data.val().last;
        self.framer.s_job_no_completion.next = self.fifo.read_data.val().no_completion;
        self.framer.s_job_peer.next = self.fifo.read_data.val().peer;
        self.framer.s_job_sport.next = self.fifo.read_data.val().sport;
        self.framer.s_job_dport.next = self.fifo.read_data.val().dport;
        self.framer.s_job_id.next = self.fifo.read_data.val().id;
        self.framer.s_job_length.next = self.fifo.read_data.val().length;
        self.framer.s_job_cookie.next = self.fifo.read_data.val().cookie;
        self.framer.s_job_index.next = self.fifo.read_data.val().index;
        self.framer.cfg_mac.next = self.cfg_mac.val();
        self.framer.cfg_next_hop_mac.next = self.cfg_next_hop_mac.val();
        self.framer.cfg_ip.next = self.cfg_ip.val();
        self.framer.cfg_cutoff_version.next = self.cfg_cutoff_version.val();
        self.framer.s_pay_valid.next = self.s_pay_valid.val();
        self.framer.s_pay_data.next = self.s_pay_data.val();
        self.framer.m_axis_tready.next = self.m_axis_tready.val();
        self.framer.m_done_ready.next = self.m_done_ready.val();
        self.s_pay_ready.next = self.framer.s_pay_ready.val();
        self.m_axis_tdata.next = self.framer.m_axis_tdata.val();
        self.m_axis_tkeep.next = self.framer.m_axis_tkeep.val();
        self.m_axis_tvalid.next = self.framer.m_axis_tvalid.val();
        self.m_axis_tlast.next = self.framer.m_axis_tlast.val();
        self.m_done_valid.next = self.framer.m_done_valid.val();
        self.m_done_id.next = self.framer.m_done_id.val();
        self.m_done_length.next = self.framer.m_done_length.val();
        self.m_done_cookie.next = self.framer.m_done_cookie.val();
        self.m_done_index.next = self.framer.m_done_index.val();
        self.frames.next = self.framer.frames.val();
        self.pop.next = self.framer.s_job_ready.val() & (self.count.q.val() != self.c_zero5.val());
        if self.push.val() {
            self.wr.d.next = self.wr.q.val() + self.c_one4.val();
        }
        if self.pop.val() {
            self.rd.d.next = self.rd.q.val() + self.c_one4.val();
        }
        if self.push.val() & !self.pop.val() {
            self.count.d.next = self.count.q.val() + self.c_one5.val();
        }
        if self.pop.val() & !self.push.val() {
            self.count.d.next = self.count.q.val() - self.c_one5.val();
        }
        if self.reset.val() {
            self.wr.d.next = self.c_zero4.val();
            self.rd.d.next = self.c_zero4.val();
            self.count.d.next = self.c_zero5.val();
        }
        self.queued.next = self.count.q.val();
    }
}
