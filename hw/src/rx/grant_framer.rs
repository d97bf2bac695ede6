//! `GrantFramer`: builds the GRANT frames the grant generator decides on, byte for byte
//! as `homa_proto::wire` emits them (Ethernet II, IPv4, Homa GRANT: 67 bytes, two beats of
//! a 512-bit AXI-Stream, nine of a 64-bit one), without the host.
//!
//! Every constant byte comes from a template that `proto::wire` itself emits at elaboration
//! time ([`template`]); the variable bytes (addresses, ports, id, offset, priority and the
//! IPv4 header checksum) are muxed in from the grant and the configuration. The checksum is
//! the template's constant partial sum plus the variable words, folded twice. The frame's
//! bytes become beats of any width through [`crate::frame_beats`], so one description serves
//! every width.
//!
//! Timing: a GRANT is taken into registers (`g_*`) when the framer is empty or its last beat
//! leaves in that cycle, and the frame is built from them: beat 0 in the cycle after, each
//! next one when its predecessor is taken. So the frame's checksum and byte muxes start at
//! flip-flops, not at the grant generator's output muxes (rank queue, then slot: through both and the checksum,
//! that was the NIC core's longest path, 13 LUTs). One GRANT per frame's beats at most (a
//! grant is taken in the cycle its predecessor's last beat leaves), against one DATA frame
//! of at least as many beats (90 bytes of header and a payload): the framer keeps up with
//! any DATA stream at line rate. The
//! register costs a cycle of latency from decision to frame. At 8 bytes a beat the checksum
//! is registered too (its bytes are in the fourth beat, three cycles after the GRANT is taken
//! at the earliest), so the beat out starts at flip-flops for every byte; at 64 it is in
//! beat 0 and comes straight from the GRANT's registers.

use crate::frame_beats::{FRAME_BYTES, FRAME_WORDS, FrameBeats, PackWord};
use crate::grant_model::Grant;
use crate::hdl::*;
use crate::parser::Be16In20;
use homa_proto::wire::{self, ChecksumCapabilities, FrameRepr};

mod lanes;

pub use lanes::{Lo4In20, Lo16In20, Lo16In32, Lo32Hi32, Mac48, Prio8, Prio8Low};

/// The IPv4 header checksum's offset in the frame.
const CSUM_AT: usize = 14 + 10;

/// Frame bytes emitted per GRANT.
pub const GRANT_FRAME_LEN: usize = 14 + 20 + wire::field::homa::GRANT_LEN;

/// Where each variable byte of the frame comes from: `(frame offset, source, byte of the
/// source counted from its most significant end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Src {
    PeerMac,
    LocalMac,
    Tos,
    Csum,
    LocalIp,
    PeerIp,
    Sport,
    Dport,
    SenderId,
    Offset,
    Priority,
}

/// The template frame: a GRANT with every variable field zero (the id's low bit set, so that
/// the id on the wire is 0), as [`reference_frame`] builds it.
pub fn template() -> Vec<u8> {
    let zero = Grant {
        peer: 0,
        mac: 0,
        id: 1,
        sport: 0,
        dport: 0,
        offset: 0,
        priority: 0,
    };
    let mut bytes = reference_frame(0, 0, 0, &zero);
    // The checksum bytes are computed by the block.
    bytes[14 + 10] = 0;
    bytes[14 + 11] = 0;
    bytes
}

/// The frame `proto::wire` emits for this GRANT from `local_mac`/`local_ip` (MACs as 48-bit
/// values, first byte on the wire most significant), sent at `control_priority` as every
/// Homa control packet is (`Config::control_priority`; the body carries the granted level):
/// what the framer must send.
pub fn reference_frame(local_mac: u64, local_ip: u32, control_priority: u8, g: &Grant) -> Vec<u8> {
    let Grant {
        peer: peer_ip,
        mac: peer_mac,
        id,
        sport,
        dport,
        offset,
        priority,
    } = *g;
    let mac = |m: u64| wire::EthernetAddress(std::array::from_fn(|i| (m >> (40 - 8 * i)) as u8));
    FrameRepr {
        ethernet: Some(wire::EthernetRepr {
            src_addr: mac(local_mac),
            dst_addr: mac(peer_mac),
            vlan: None,
            ethertype: wire::EtherType::IPV4,
        }),
        ip: wire::IpRepr::V4(wire::Ipv4Repr {
            src_addr: local_ip.into(),
            dst_addr: peer_ip.into(),
            tos: control_priority << 5,
            ident: 0,
            dont_frag: true,
            ttl: 64,
            protocol: wire::PROTOCOL_HOMA,
            payload_len: wire::field::homa::GRANT_LEN,
        }),
        homa: wire::Repr {
            sport,
            dport,
            sender_id: id ^ 1,
            body: wire::Body::Grant(wire::Grant { offset, priority }),
        },
    }
    .to_bytes(&ChecksumCapabilities::default())
}

fn layout() -> Vec<(usize, Src, usize)> {
    use wire::field::homa as h;
    let (ip, l4) = (14, 34);
    let mut v = Vec::new();
    let mut put = |at: usize, n: usize, s: Src| (0..n).for_each(|i| v.push((at + i, s, i)));
    put(0, 6, Src::PeerMac);
    put(6, 6, Src::LocalMac);
    put(ip + 1, 1, Src::Tos);
    put(ip + 10, 2, Src::Csum);
    put(ip + 12, 4, Src::LocalIp);
    put(ip + 16, 4, Src::PeerIp);
    put(l4 + h::SPORT.start, 2, Src::Sport);
    put(l4 + h::DPORT.start, 2, Src::Dport);
    put(l4 + h::SENDER_ID.start, 8, Src::SenderId);
    put(l4 + h::GRANT_OFFSET.start, 4, Src::Offset);
    put(l4 + h::GRANT_PRIORITY, 1, Src::Priority);
    v
}

/// The template's constant contribution to the IPv4 header's one's-complement sum.
fn template_sum() -> u64 {
    let t = template();
    (0..10)
        .map(|w| u64::from(u16::from_be_bytes([t[14 + 2 * w], t[14 + 2 * w + 1]])))
        .sum()
}

/// Variable bytes: 6 + 6 + 1 + 2 + 4 + 4 + 2 + 2 + 8 + 4 + 1.
const VARS: usize = 40;

/// Beats of a GRANT frame at `w` bytes a beat.
pub const fn grant_beats(w: usize) -> usize {
    GRANT_FRAME_LEN.div_ceil(w)
}

/// The GRANT framer for a stream of `W` bytes (`B` = 8 `W` bits) a beat; `W` is 8 or 64.
#[derive(LogicBlock)]
pub struct GrantFramer<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// The local MAC address (the frame's source).
    pub cfg_mac: Signal<In, Bits<48>>,
    /// The local IPv4 address.
    pub cfg_ip: Signal<In, Bits<32>>,
    /// A GRANT to send.
    pub s_grant_valid: Signal<In, Bit>,
    /// The GRANT is taken at this edge (into the framer's registers: the framer is empty, or
    /// the last beat of its frame leaves in this cycle).
    pub s_grant_ready: Signal<Out, Bit>,
    /// The peer's IPv4 address.
    pub s_grant_peer: Signal<In, Bits<32>>,
    /// The peer's MAC address.
    pub s_grant_mac: Signal<In, Bits<48>>,
    /// The RPC id as it arrived in the DATA (the GRANT carries it with the low bit flipped:
    /// the receiver's own id for the RPC).
    pub s_grant_id: Signal<In, Bits<64>>,
    /// The GRANT's source port.
    pub s_grant_sport: Signal<In, Bits<16>>,
    /// The GRANT's destination port.
    pub s_grant_dport: Signal<In, Bits<16>>,
    /// The granted offset.
    pub s_grant_offset: Signal<In, Bits<32>>,
    /// The priority the sender must use, carried in the GRANT's body.
    pub s_grant_priority: Signal<In, Bits<3>>,
    /// The frame's own level (IPv4 TOS): the control priority, `num_priorities - 1`. A GRANT
    /// sent at the level it grants would queue behind the scheduled DATA it asks for.
    pub cfg_ctl_priority: Signal<In, Bits<3>>,
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
    beat: DFF<Bits<16>>,
    hv: DFF<Bit>,
    g_peer: DFF<Bits<32>>,
    g_mac: DFF<Bits<48>>,
    g_id: DFF<Bits<64>>,
    g_sport: DFF<Bits<16>>,
    g_dport: DFF<Bits<16>>,
    g_offset: DFF<Bits<32>>,
    g_priority: DFF<Bits<3>>,
    done: Signal<Local, Bit>,
    room: Signal<Local, Bit>,
    is_last: Signal<Local, Bit>,
    vb: [Signal<Local, Bits<8>>; VARS],
    fb: [Signal<Local, Bits<8>>; FRAME_BYTES],
    pack: [PackWord; FRAME_WORDS],
    beats: FrameBeats<W, B>,
    tos: Signal<Local, Prio8>,
    prio: Signal<Local, Prio8Low>,
    f1_lo: Signal<Local, Lo16In20>,
    f1_hi: Signal<Local, Lo4In20>,
    f2_lo: Signal<Local, Lo16In20>,
    f2_hi: Signal<Local, Lo4In20>,
    id_out: Signal<Local, Bits<64>>,
    sum0: Signal<Local, Bits<20>>,
    sum1: Signal<Local, Bits<20>>,
    sum2: Signal<Local, Bits<20>>,
    csum: Signal<Local, Bits<16>>,
    /// The checksum from the GRANT's registers, and the same a cycle later: a beat narrower
    /// than the checksum's offset (24) takes the register, whose value is ready before the
    /// checksum's beat (the fourth at 8 bytes) can leave.
    csum_c: Signal<Local, Bits<16>>,
    csum_q: DFF<Bits<16>>,
    c_csum_reg: Constant<Bit>,
    w_tos: Signal<Local, Be16In20>,
    w_lip_hi: Signal<Local, Be16In20>,
    w_lip_lo: Signal<Local, Be16In20>,
    w_pip_hi: Signal<Local, Be16In20>,
    w_pip_lo: Signal<Local, Be16In20>,
    c_tmpl: [Constant<Bits<8>>; FRAME_BYTES],
    c_is_var: [Constant<Bit>; FRAME_BYTES],
    c_src: [Constant<Bits<8>>; FRAME_BYTES],
    c_var: [Constant<Bits<8>>; VARS],
    c_last_beat: Constant<Bits<16>>,
    c_sum: Constant<Bits<20>>,
    c_ones: Constant<Bits<W>>,
    c_keep_last: Constant<Bits<W>>,
    c_one64: Constant<Bits<64>>,
    c_off: [Constant<Bits<8>>; 8],
    c_zero4: Constant<Bits<4>>,
    c_zero5: Constant<Bits<5>>,
    c_zero8: Constant<Bits<8>>,
    c_zero16: Constant<Bits<16>>,
    c_one16: Constant<Bits<16>>,
}

/// The GRANT framer of the 512-bit (Alveo) configuration.
pub type GrantFramer512 = GrantFramer<64, 512>;

/// The GRANT framer of the 64-bit (small) configuration.
pub type GrantFramer64 = GrantFramer<8, 64>;

fn k<const M: usize>(v: u64) -> Constant<Bits<M>> {
    Constant::new(v.into())
}

impl<const W: usize, const B: usize> GrantFramer<W, B> {
    /// A framer with its template from `proto::wire`.
    pub fn new() -> Self {
        assert!(
            B == 8 * W && (W == 8 || W == 64),
            "a GRANT framer is 8 or 64 bytes wide (the widths generated and tested), with B = 8 W bits"
        );
        let t = template();
        let lay = layout();
        assert_eq!(lay.len(), VARS, "variable bytes");
        let mut src = [0u64; FRAME_BYTES];
        let mut is_var = [false; FRAME_BYTES];
        for (n, &(at, _, _)) in lay.iter().enumerate() {
            src[at] = n as u64;
            is_var[at] = true;
        }
        let beats = grant_beats(W);
        let tail = GRANT_FRAME_LEN - (beats - 1) * W;
        Self {
            clock: Signal::default(),
            reset: Signal::default(),
            cfg_mac: Signal::default(),
            cfg_ip: Signal::default(),
            s_grant_valid: Signal::default(),
            s_grant_ready: Signal::default(),
            s_grant_peer: Signal::default(),
            s_grant_mac: Signal::default(),
            s_grant_id: Signal::default(),
            s_grant_sport: Signal::default(),
            s_grant_dport: Signal::default(),
            s_grant_offset: Signal::default(),
            s_grant_priority: Signal::default(),
            cfg_ctl_priority: Signal::default(),
            m_axis_tdata: Signal::default(),
            m_axis_tkeep: Signal::default(),
            m_axis_tvalid: Signal::default(),
            m_axis_tlast: Signal::default(),
            m_axis_tready: Signal::default(),
            beat: DFF::default(),
            hv: DFF::default(),
            g_peer: DFF::default(),
            g_mac: DFF::default(),
            g_id: DFF::default(),
            g_sport: DFF::default(),
            g_dport: DFF::default(),
            g_offset: DFF::default(),
            g_priority: DFF::default(),
            done: Signal::default(),
            room: Signal::default(),
            is_last: Signal::default(),
            vb: std::array::from_fn(|_| Signal::default()),
            fb: std::array::from_fn(|_| Signal::default()),
            pack: std::array::from_fn(|_| PackWord::default()),
            beats: FrameBeats::new(),
            tos: Signal::default(),
            prio: Signal::default(),
            f1_lo: Signal::default(),
            f1_hi: Signal::default(),
            f2_lo: Signal::default(),
            f2_hi: Signal::default(),
            id_out: Signal::default(),
            sum0: Signal::default(),
            sum1: Signal::default(),
            sum2: Signal::default(),
            csum: Signal::default(),
            csum_c: Signal::default(),
            csum_q: DFF::default(),
            c_csum_reg: Constant::new(W <= CSUM_AT),
            w_tos: Signal::default(),
            w_lip_hi: Signal::default(),
            w_lip_lo: Signal::default(),
            w_pip_hi: Signal::default(),
            w_pip_lo: Signal::default(),
            c_tmpl: std::array::from_fn(|i| k(u64::from(t.get(i).copied().unwrap_or(0)))),
            c_is_var: std::array::from_fn(|i| Constant::new(is_var[i])),
            c_src: std::array::from_fn(|i| k(src[i])),
            c_var: std::array::from_fn(|n| k(n as u64)),
            c_last_beat: k(beats as u64 - 1),
            c_sum: k(template_sum()),
            c_ones: Constant::new(Bits::<W>::mask()),
            c_keep_last: Constant::new(Bits::<W>::mask() >> (W - tail) as u64),
            c_one64: k(1),
            c_off: std::array::from_fn(|i| k(8 * i as u64)),
            c_zero4: k(0),
            c_zero5: k(0),
            c_zero8: k(0),
            c_zero16: k(0),
            c_one16: k(1),
        }
    }

    /// A new framer as the top level of a design: every input driven from outside, the rest
    /// connected (what the Verilog generator and the bench both start from).
    pub fn top_level() -> Self {
        let mut uut = Self::new();
        uut.clock.connect();
        uut.reset.connect();
        uut.cfg_mac.connect();
        uut.cfg_ip.connect();
        uut.s_grant_valid.connect();
        uut.s_grant_peer.connect();
        uut.s_grant_mac.connect();
        uut.s_grant_id.connect();
        uut.s_grant_sport.connect();
        uut.s_grant_dport.connect();
        uut.s_grant_offset.connect();
        uut.s_grant_priority.connect();
        uut.cfg_ctl_priority.connect();
        uut.m_axis_tready.connect();
        uut.connect_all();
        uut
    }
}

impl<const W: usize, const B: usize> Default for GrantFramer<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> core::fmt::Debug for GrantFramer<W, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GrantFramer")
            .field("bytes_per_beat", &W)
            .finish_non_exhaustive()
    }
}

impl<const W: usize, const B: usize> Logic for GrantFramer<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, beat, hv, g_peer, g_mac, g_id, g_sport, g_dport, g_offset, g_priority,
            csum_q
        );
        self.tos.next.z = self.c_zero5.val();
        self.tos.next.p = self.cfg_ctl_priority.val();
        // IPv4 header checksum: the template's constant sum plus the variable words.
        self.w_tos.next.b0 = Bits::<8>::from(self.tos.val());
        self.w_tos.next.b1 = self.c_zero8.val();
        self.w_tos.next.z = self.c_zero4.val();
        self.w_lip_hi.next.b1 = self.cfg_ip.val().get_bits::<8>(self.c_off[3].val().index());
        self.w_lip_hi.next.b0 = self.cfg_ip.val().get_bits::<8>(self.c_off[2].val().index());
        self.w_lip_hi.next.z = self.c_zero4.val();
        self.w_lip_lo.next.b1 = self.cfg_ip.val().get_bits::<8>(self.c_off[1].val().index());
        self.w_lip_lo.next.b0 = self.cfg_ip.val().get_bits::<8>(self.c_off[0].val().index());
        self.w_lip_lo.next.z = self.c_zero4.val();
        self.w_pip_hi.next.b1 = self
            .g_peer
            .q
            .val()
            .get_bits::<8>(self.c_off[3].val().index());
        self.w_pip_hi.next.b0 = self
            .g_peer
            .q
            .val()
            .get_bits::<8>(self.c_off[2].val().index());
        self.w_pip_hi.next.z = self.c_zero4.val();
        self.w_pip_lo.next.b1 = self
            .g_peer
            .q
            .val()
            .get_bits::<8>(self.c_off[1].val().index());
        self.w_pip_lo.next.b0 = self
            .g_peer
            .q
            .val()
            .get_bits::<8>(self.c_off[0].val().index());
        self.w_pip_lo.next.z = self.c_zero4.val();
        self.sum0.next = self.c_sum.val()
            + Bits::<20>::from(self.w_tos.val())
            + Bits::<20>::from(self.w_lip_hi.val())
            + Bits::<20>::from(self.w_lip_lo.val())
            + Bits::<20>::from(self.w_pip_hi.val())
            + Bits::<20>::from(self.w_pip_lo.val());
        self.f1_lo.next.lo = self.sum0.val().get_bits::<16>(self.c_off[0].val().index());
        self.f1_lo.next.z = self.c_zero4.val();
        self.f1_hi.next.lo = self.sum0.val().get_bits::<4>(self.c_off[2].val().index());
        self.f1_hi.next.z = self.c_zero16.val();
        self.sum1.next = Bits::<20>::from(self.f1_lo.val()) + Bits::<20>::from(self.f1_hi.val());
        self.f2_lo.next.lo = self.sum1.val().get_bits::<16>(self.c_off[0].val().index());
        self.f2_lo.next.z = self.c_zero4.val();
        self.f2_hi.next.lo = self.sum1.val().get_bits::<4>(self.c_off[2].val().index());
        self.f2_hi.next.z = self.c_zero16.val();
        self.sum2.next = Bits::<20>::from(self.f2_lo.val()) + Bits::<20>::from(self.f2_hi.val());
        self.csum_c.next = !self.sum2.val().get_bits::<16>(self.c_off[0].val().index());
        self.csum_q.d.next = self.csum_c.val();
        self.csum.next = self.csum_c.val();
        if self.c_csum_reg.val() {
            self.csum.next = self.csum_q.q.val();
        }
        // The variable bytes, most significant first, in `layout()` order.
        self.id_out.next = self.g_id.q.val() ^ self.c_one64.val();
        self.prio.next.p = self.g_priority.q.val();
        self.prio.next.z = self.c_zero5.val();
        for i in 0..6 {
            self.vb[i].next = self
                .g_mac
                .q
                .val()
                .get_bits::<8>(self.c_off[5 - i].val().index());
            self.vb[6 + i].next = self
                .cfg_mac
                .val()
                .get_bits::<8>(self.c_off[5 - i].val().index());
        }
        self.vb[12].next = Bits::<8>::from(self.tos.val());
        self.vb[13].next = self.csum.val().get_bits::<8>(self.c_off[1].val().index());
        self.vb[14].next = self.csum.val().get_bits::<8>(self.c_off[0].val().index());
        for i in 0..4 {
            self.vb[15 + i].next = self
                .cfg_ip
                .val()
                .get_bits::<8>(self.c_off[3 - i].val().index());
            self.vb[19 + i].next = self
                .g_peer
                .q
                .val()
                .get_bits::<8>(self.c_off[3 - i].val().index());
        }
        for i in 0..2 {
            self.vb[23 + i].next = self
                .g_sport
                .q
                .val()
                .get_bits::<8>(self.c_off[1 - i].val().index());
            self.vb[25 + i].next = self
                .g_dport
                .q
                .val()
                .get_bits::<8>(self.c_off[1 - i].val().index());
        }
        for i in 0..8 {
            self.vb[27 + i].next = self
                .id_out
                .val()
                .get_bits::<8>(self.c_off[7 - i].val().index());
        }
        for i in 0..4 {
            self.vb[35 + i].next = self
                .g_offset
                .q
                .val()
                .get_bits::<8>(self.c_off[3 - i].val().index());
        }
        self.vb[39].next = Bits::<8>::from(self.prio.val());
        // The frame: each byte from the template or from its variable, then the beat the
        // frame is at.
        for i in 0..FRAME_BYTES {
            self.fb[i].next = self.c_tmpl[i].val();
            for n in 0..VARS {
                if self.c_is_var[i].val() & (self.c_src[i].val() == self.c_var[n].val()) {
                    self.fb[i].next = self.vb[n].val();
                }
            }
        }
        for m in 0..FRAME_WORDS {
            self.pack[m].b0.next = self.fb[8 * m].val();
            self.pack[m].b1.next = self.fb[8 * m + 1].val();
            self.pack[m].b2.next = self.fb[8 * m + 2].val();
            self.pack[m].b3.next = self.fb[8 * m + 3].val();
            self.pack[m].b4.next = self.fb[8 * m + 4].val();
            self.pack[m].b5.next = self.fb[8 * m + 5].val();
            self.pack[m].b6.next = self.fb[8 * m + 6].val();
            self.pack[m].b7.next = self.fb[8 * m + 7].val();
        }
        self.beats.beat.next = self.beat.q.val();
        self.beats.w0.next = self.pack[0].o.val();
        self.beats.w1.next = self.pack[1].o.val();
        self.beats.w2.next = self.pack[2].o.val();
        self.beats.w3.next = self.pack[3].o.val();
        self.beats.w4.next = self.pack[4].o.val();
        self.beats.w5.next = self.pack[5].o.val();
        self.beats.w6.next = self.pack[6].o.val();
        self.beats.w7.next = self.pack[7].o.val();
        self.beats.w8.next = self.pack[8].o.val();
        self.beats.w9.next = self.pack[9].o.val();
        self.beats.w10.next = self.pack[10].o.val();
        self.beats.w11.next = self.pack[11].o.val();
        self.beats.w12.next = self.pack[12].o.val();
        self.beats.w13.next = self.pack[13].o.val();
        self.beats.w14.next = self.pack[14].o.val();
        self.beats.w15.next = self.pack[15].o.val();
        self.m_axis_tdata.next = self.beats.o.val();
        self.is_last.next = self.beat.q.val() == self.c_last_beat.val();
        self.m_axis_tvalid.next = self.hv.q.val();
        self.m_axis_tkeep.next = self.c_ones.val();
        self.m_axis_tlast.next = false;
        if self.is_last.val() {
            self.m_axis_tkeep.next = self.c_keep_last.val();
            self.m_axis_tlast.next = true;
        }
        // The beats of a held GRANT; the next is taken as the last leaves.
        self.done.next = self.hv.q.val() & self.is_last.val() & self.m_axis_tready.val();
        if self.hv.q.val() & self.m_axis_tready.val() {
            self.beat.d.next = self.beat.q.val() + self.c_one16.val();
        }
        if self.done.val() {
            self.beat.d.next = self.c_zero16.val();
        }
        self.room.next = !self.hv.q.val() | self.done.val();
        self.s_grant_ready.next = self.room.val();
        if self.done.val() {
            self.hv.d.next = false;
        }
        if self.s_grant_valid.val() & self.room.val() {
            self.hv.d.next = true;
            self.g_peer.d.next = self.s_grant_peer.val();
            self.g_mac.d.next = self.s_grant_mac.val();
            self.g_id.d.next = self.s_grant_id.val();
            self.g_sport.d.next = self.s_grant_sport.val();
            self.g_dport.d.next = self.s_grant_dport.val();
            self.g_offset.d.next = self.s_grant_offset.val();
            self.g_priority.d.next = self.s_grant_priority.val();
        }
        if self.reset.val() {
            self.hv.d.next = false;
            self.beat.d.next = self.c_zero16.val();
        }
    }
}

#[cfg(test)]
mod tests;
