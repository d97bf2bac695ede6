//! `GrantFramer512`: builds the GRANT frames the grant generator decides on, byte for byte
//! as `homa_proto::wire` emits them (Ethernet II, IPv4, Homa GRANT: 67 bytes, two beats of
//! a 512-bit AXI-Stream), without the host.
//!
//! Every constant byte comes from a template that `proto::wire` itself emits at elaboration
//! time ([`template`]); the variable bytes (addresses, ports, id, offset, priority and the
//! IPv4 header checksum) are muxed in from the grant and the configuration. The checksum is
//! the template's constant partial sum plus the variable words, folded twice.
//!
//! Timing: a GRANT is taken into registers (`g_*`) when the framer is empty or its last beat
//! leaves in that cycle, and the frame is built from them: beat 0 in the cycle after, beat 1
//! when beat 0 is taken. So the frame's checksum and byte muxes start at flip-flops, not at
//! the grant generator's output muxes (rank queue, then slot: through both and the checksum,
//! that was the NIC core's longest path, 13 LUTs). One GRANT every two cycles at most (a
//! grant is taken in the cycle its predecessor's last beat leaves), against one DATA frame
//! of at least two beats: the framer keeps up with any DATA stream at line rate. The
//! register costs a cycle of latency from decision to frame.

use crate::grant_model::Grant;
use crate::hdl::*;
use crate::parser::Be16In20;
use homa_proto::wire::{self, ChecksumCapabilities, FrameRepr};

mod lanes;

pub use lanes::{Beat512, Lo4In20, Lo16In20, Lo16In32, Lo32Hi32, Mac48, Prio8, Prio8Low};

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

/// The GRANT framer for a 512-bit stream.
#[derive(LogicBlock)]
pub struct GrantFramer512 {
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
    pub m_axis_tdata: Signal<Out, Beat512>,
    /// Byte enables.
    pub m_axis_tkeep: Signal<Out, Bits<64>>,
    /// A beat is offered.
    pub m_axis_tvalid: Signal<Out, Bit>,
    /// The last beat of the frame.
    pub m_axis_tlast: Signal<Out, Bit>,
    /// The beat is taken.
    pub m_axis_tready: Signal<In, Bit>,
    second: DFF<Bit>,
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
    vb: [Signal<Local, Bits<8>>; VARS],
    fb: [Signal<Local, Bits<8>>; 128],
    beat0: Signal<Local, Beat512>,
    beat1: Signal<Local, Beat512>,
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
    w_tos: Signal<Local, Be16In20>,
    w_lip_hi: Signal<Local, Be16In20>,
    w_lip_lo: Signal<Local, Be16In20>,
    w_pip_hi: Signal<Local, Be16In20>,
    w_pip_lo: Signal<Local, Be16In20>,
    c_tmpl: [Constant<Bits<8>>; 128],
    c_is_var: [Constant<Bit>; 128],
    c_src: [Constant<Bits<8>>; 128],
    c_var: [Constant<Bits<8>>; VARS],
    c_sum: Constant<Bits<20>>,
    c_keep0: Constant<Bits<64>>,
    c_keep1: Constant<Bits<64>>,
    c_one64: Constant<Bits<64>>,
    c_off: [Constant<Bits<8>>; 8],
    c_zero4: Constant<Bits<4>>,
    c_zero5: Constant<Bits<5>>,
    c_zero8: Constant<Bits<8>>,
    c_zero16: Constant<Bits<16>>,
}

fn k<const M: usize>(v: u64) -> Constant<Bits<M>> {
    Constant::new(v.into())
}

impl GrantFramer512 {
    /// A framer with its template from `proto::wire`.
    pub fn new() -> Self {
        let t = template();
        let lay = layout();
        assert_eq!(lay.len(), VARS, "variable bytes");
        let mut src = [0u64; 128];
        let mut is_var = [false; 128];
        for (n, &(at, _, _)) in lay.iter().enumerate() {
            src[at] = n as u64;
            is_var[at] = true;
        }
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
            second: DFF::default(),
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
            vb: std::array::from_fn(|_| Signal::default()),
            fb: std::array::from_fn(|_| Signal::default()),
            beat0: Signal::default(),
            beat1: Signal::default(),
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
            w_tos: Signal::default(),
            w_lip_hi: Signal::default(),
            w_lip_lo: Signal::default(),
            w_pip_hi: Signal::default(),
            w_pip_lo: Signal::default(),
            c_tmpl: std::array::from_fn(|i| k(u64::from(t.get(i).copied().unwrap_or(0)))),
            c_is_var: std::array::from_fn(|i| Constant::new(is_var[i])),
            c_src: std::array::from_fn(|i| k(src[i])),
            c_var: std::array::from_fn(|n| k(n as u64)),
            c_sum: k(template_sum()),
            c_keep0: k(u64::MAX),
            c_keep1: k((1u64 << (GRANT_FRAME_LEN - 64)) - 1),
            c_one64: k(1),
            c_off: std::array::from_fn(|i| k(8 * i as u64)),
            c_zero4: k(0),
            c_zero5: k(0),
            c_zero8: k(0),
            c_zero16: k(0),
        }
    }
}

impl GrantFramer512 {
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

impl Default for GrantFramer512 {
    fn default() -> Self {
        Self::new()
    }
}

impl core::fmt::Debug for GrantFramer512 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GrantFramer512").finish_non_exhaustive()
    }
}

impl Logic for GrantFramer512 {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, second, hv, g_peer, g_mac, g_id, g_sport, g_dport, g_offset, g_priority
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
        self.csum.next = !self.sum2.val().get_bits::<16>(self.c_off[0].val().index());
        // The variable bytes, most significant first, in `layout()` order.
        self.id_out.next = self.g_id.q.val() ^ self.c_one64.val();
        self.tos.next.z = self.c_zero5.val();
        self.tos.next.p = self.cfg_ctl_priority.val();
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
        // The frame.
        for i in 0..128 {
            self.fb[i].next = self.c_tmpl[i].val();
            for n in 0..VARS {
                if self.c_is_var[i].val() & (self.c_src[i].val() == self.c_var[n].val()) {
                    self.fb[i].next = self.vb[n].val();
                }
            }
        }
        self.beat0.next.b0 = self.fb[0].val();
        self.beat0.next.b1 = self.fb[1].val();
        self.beat0.next.b2 = self.fb[2].val();
        self.beat0.next.b3 = self.fb[3].val();
        self.beat0.next.b4 = self.fb[4].val();
        self.beat0.next.b5 = self.fb[5].val();
        self.beat0.next.b6 = self.fb[6].val();
        self.beat0.next.b7 = self.fb[7].val();
        self.beat0.next.b8 = self.fb[8].val();
        self.beat0.next.b9 = self.fb[9].val();
        self.beat0.next.b10 = self.fb[10].val();
        self.beat0.next.b11 = self.fb[11].val();
        self.beat0.next.b12 = self.fb[12].val();
        self.beat0.next.b13 = self.fb[13].val();
        self.beat0.next.b14 = self.fb[14].val();
        self.beat0.next.b15 = self.fb[15].val();
        self.beat0.next.b16 = self.fb[16].val();
        self.beat0.next.b17 = self.fb[17].val();
        self.beat0.next.b18 = self.fb[18].val();
        self.beat0.next.b19 = self.fb[19].val();
        self.beat0.next.b20 = self.fb[20].val();
        self.beat0.next.b21 = self.fb[21].val();
        self.beat0.next.b22 = self.fb[22].val();
        self.beat0.next.b23 = self.fb[23].val();
        self.beat0.next.b24 = self.fb[24].val();
        self.beat0.next.b25 = self.fb[25].val();
        self.beat0.next.b26 = self.fb[26].val();
        self.beat0.next.b27 = self.fb[27].val();
        self.beat0.next.b28 = self.fb[28].val();
        self.beat0.next.b29 = self.fb[29].val();
        self.beat0.next.b30 = self.fb[30].val();
        self.beat0.next.b31 = self.fb[31].val();
        self.beat0.next.b32 = self.fb[32].val();
        self.beat0.next.b33 = self.fb[33].val();
        self.beat0.next.b34 = self.fb[34].val();
        self.beat0.next.b35 = self.fb[35].val();
        self.beat0.next.b36 = self.fb[36].val();
        self.beat0.next.b37 = self.fb[37].val();
        self.beat0.next.b38 = self.fb[38].val();
        self.beat0.next.b39 = self.fb[39].val();
        self.beat0.next.b40 = self.fb[40].val();
        self.beat0.next.b41 = self.fb[41].val();
        self.beat0.next.b42 = self.fb[42].val();
        self.beat0.next.b43 = self.fb[43].val();
        self.beat0.next.b44 = self.fb[44].val();
        self.beat0.next.b45 = self.fb[45].val();
        self.beat0.next.b46 = self.fb[46].val();
        self.beat0.next.b47 = self.fb[47].val();
        self.beat0.next.b48 = self.fb[48].val();
        self.beat0.next.b49 = self.fb[49].val();
        self.beat0.next.b50 = self.fb[50].val();
        self.beat0.next.b51 = self.fb[51].val();
        self.beat0.next.b52 = self.fb[52].val();
        self.beat0.next.b53 = self.fb[53].val();
        self.beat0.next.b54 = self.fb[54].val();
        self.beat0.next.b55 = self.fb[55].val();
        self.beat0.next.b56 = self.fb[56].val();
        self.beat0.next.b57 = self.fb[57].val();
        self.beat0.next.b58 = self.fb[58].val();
        self.beat0.next.b59 = self.fb[59].val();
        self.beat0.next.b60 = self.fb[60].val();
        self.beat0.next.b61 = self.fb[61].val();
        self.beat0.next.b62 = self.fb[62].val();
        self.beat0.next.b63 = self.fb[63].val();
        self.beat1.next.b0 = self.fb[64].val();
        self.beat1.next.b1 = self.fb[65].val();
        self.beat1.next.b2 = self.fb[66].val();
        self.beat1.next.b3 = self.fb[67].val();
        self.beat1.next.b4 = self.fb[68].val();
        self.beat1.next.b5 = self.fb[69].val();
        self.beat1.next.b6 = self.fb[70].val();
        self.beat1.next.b7 = self.fb[71].val();
        self.beat1.next.b8 = self.fb[72].val();
        self.beat1.next.b9 = self.fb[73].val();
        self.beat1.next.b10 = self.fb[74].val();
        self.beat1.next.b11 = self.fb[75].val();
        self.beat1.next.b12 = self.fb[76].val();
        self.beat1.next.b13 = self.fb[77].val();
        self.beat1.next.b14 = self.fb[78].val();
        self.beat1.next.b15 = self.fb[79].val();
        self.beat1.next.b16 = self.fb[80].val();
        self.beat1.next.b17 = self.fb[81].val();
        self.beat1.next.b18 = self.fb[82].val();
        self.beat1.next.b19 = self.fb[83].val();
        self.beat1.next.b20 = self.fb[84].val();
        self.beat1.next.b21 = self.fb[85].val();
        self.beat1.next.b22 = self.fb[86].val();
        self.beat1.next.b23 = self.fb[87].val();
        self.beat1.next.b24 = self.fb[88].val();
        self.beat1.next.b25 = self.fb[89].val();
        self.beat1.next.b26 = self.fb[90].val();
        self.beat1.next.b27 = self.fb[91].val();
        self.beat1.next.b28 = self.fb[92].val();
        self.beat1.next.b29 = self.fb[93].val();
        self.beat1.next.b30 = self.fb[94].val();
        self.beat1.next.b31 = self.fb[95].val();
        self.beat1.next.b32 = self.fb[96].val();
        self.beat1.next.b33 = self.fb[97].val();
        self.beat1.next.b34 = self.fb[98].val();
        self.beat1.next.b35 = self.fb[99].val();
        self.beat1.next.b36 = self.fb[100].val();
        self.beat1.next.b37 = self.fb[101].val();
        self.beat1.next.b38 = self.fb[102].val();
        self.beat1.next.b39 = self.fb[103].val();
        self.beat1.next.b40 = self.fb[104].val();
        self.beat1.next.b41 = self.fb[105].val();
        self.beat1.next.b42 = self.fb[106].val();
        self.beat1.next.b43 = self.fb[107].val();
        self.beat1.next.b44 = self.fb[108].val();
        self.beat1.next.b45 = self.fb[109].val();
        self.beat1.next.b46 = self.fb[110].val();
        self.beat1.next.b47 = self.fb[111].val();
        self.beat1.next.b48 = self.fb[112].val();
        self.beat1.next.b49 = self.fb[113].val();
        self.beat1.next.b50 = self.fb[114].val();
        self.beat1.next.b51 = self.fb[115].val();
        self.beat1.next.b52 = self.fb[116].val();
        self.beat1.next.b53 = self.fb[117].val();
        self.beat1.next.b54 = self.fb[118].val();
        self.beat1.next.b55 = self.fb[119].val();
        self.beat1.next.b56 = self.fb[120].val();
        self.beat1.next.b57 = self.fb[121].val();
        self.beat1.next.b58 = self.fb[122].val();
        self.beat1.next.b59 = self.fb[123].val();
        self.beat1.next.b60 = self.fb[124].val();
        self.beat1.next.b61 = self.fb[125].val();
        self.beat1.next.b62 = self.fb[126].val();
        self.beat1.next.b63 = self.fb[127].val();
        // Two beats per held GRANT; the next is taken as the second leaves.
        self.m_axis_tvalid.next = self.hv.q.val();
        self.m_axis_tdata.next = self.beat0.val();
        self.m_axis_tkeep.next = self.c_keep0.val();
        self.m_axis_tlast.next = false;
        if self.second.q.val() {
            self.m_axis_tdata.next = self.beat1.val();
            self.m_axis_tkeep.next = self.c_keep1.val();
            self.m_axis_tlast.next = true;
        }
        if self.hv.q.val() & self.m_axis_tready.val() {
            self.second.d.next = !self.second.q.val();
        }
        self.done.next = self.hv.q.val() & self.second.q.val() & self.m_axis_tready.val();
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
            self.second.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests;
