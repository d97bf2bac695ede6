//! `HomaRxCore512`: the receive half of the NIC core at 100 Gb/s, composed from the tested
//! blocks: RX parser → inbound message table → grant generator → GRANT framer.
//!
//! ```text
//!  s_axis_* ─► HomaParser512 ─┬─ payload ─────────────────────────────► m_pay_*   (to host DMA)
//!                             ├─ every header ───────────────────────► m_hdr_*   (to the host)
//!                             └─ IPv4 DATA headers ─► MsgTable1024 ─► GrantScheduler16
//!                                                                         └─► GrantFramer512 ─► m_grant_axis_*
//! ```
//!
//! The header stream forks: a DATA header leaves when both the host side (`m_hdr_ready`) and
//! the message table take it. GRANTs go to the next-hop MAC `cfg_gw_mac` (an L3 fabric: every
//! frame leaves through the top-of-rack router). The configuration inputs are flat ports; the
//! register file that drives them from BAR0 writes (`proto::regs`) is the next block.
//! IPv6 DATA reaches the host but not the table (the table keys peers by IPv4 address).

use crate::grant::GrantScheduler16;
use crate::grant_framer::{Beat512, GrantFramer512, Lo16In32};
use crate::hdl::*;
use crate::msg_table::MsgTable1024;
use crate::parser::HomaParser512;

/// The RX core at 512 bits.
#[derive(LogicBlock)]
pub struct HomaRxCore512 {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Frames from the MAC: data, byte lane 0 first.
    pub s_axis_tdata: Signal<In, Bits<512>>,
    /// Byte enables.
    pub s_axis_tkeep: Signal<In, Bits<64>>,
    /// A beat is offered.
    pub s_axis_tvalid: Signal<In, Bit>,
    /// The frame's last beat.
    pub s_axis_tlast: Signal<In, Bit>,
    /// The beat is taken.
    pub s_axis_tready: Signal<Out, Bit>,
    /// DATA payload, realigned (to the host DMA engine).
    pub m_pay_tdata: Signal<Out, Bits<512>>,
    /// Payload byte enables.
    pub m_pay_tkeep: Signal<Out, Bits<64>>,
    /// A payload beat is offered.
    pub m_pay_tvalid: Signal<Out, Bit>,
    /// The payload's last beat.
    pub m_pay_tlast: Signal<Out, Bit>,
    /// The frame turned out bad: drop this payload.
    pub m_pay_tuser: Signal<Out, Bit>,
    /// The payload beat is taken.
    pub m_pay_tready: Signal<In, Bit>,
    /// A parsed header is offered to the host.
    pub m_hdr_valid: Signal<Out, Bit>,
    /// The host takes it.
    pub m_hdr_ready: Signal<In, Bit>,
    /// Parsed header (to the host): `ip_version`.
    pub m_hdr_ip_version: Signal<Out, Bits<4>>,
    /// Parsed header (to the host): `src_ip`.
    pub m_hdr_src_ip: Signal<Out, Bits<128>>,
    /// Parsed header (to the host): `dst_ip`.
    pub m_hdr_dst_ip: Signal<Out, Bits<128>>,
    /// Parsed header (to the host): `priority`.
    pub m_hdr_priority: Signal<Out, Bits<3>>,
    /// Parsed header (to the host): `sport`.
    pub m_hdr_sport: Signal<Out, Bits<16>>,
    /// Parsed header (to the host): `dport`.
    pub m_hdr_dport: Signal<Out, Bits<16>>,
    /// Parsed header (to the host): `type`.
    pub m_hdr_type: Signal<Out, Bits<8>>,
    /// Parsed header (to the host): `sender_id`.
    pub m_hdr_sender_id: Signal<Out, Bits<64>>,
    /// Parsed header (to the host): `data_message_length`.
    pub m_hdr_data_message_length: Signal<Out, Bits<32>>,
    /// Parsed header (to the host): `data_incoming`.
    pub m_hdr_data_incoming: Signal<Out, Bits<32>>,
    /// Parsed header (to the host): `data_offset`.
    pub m_hdr_data_offset: Signal<Out, Bits<32>>,
    /// Parsed header (to the host): `data_cutoff_version`.
    pub m_hdr_data_cutoff_version: Signal<Out, Bits<16>>,
    /// Parsed header (to the host): `data_retransmit`.
    pub m_hdr_data_retransmit: Signal<Out, Bit>,
    /// Parsed header (to the host): `data_ack_client_id`.
    pub m_hdr_data_ack_client_id: Signal<Out, Bits<64>>,
    /// Parsed header (to the host): `data_ack_server_port`.
    pub m_hdr_data_ack_server_port: Signal<Out, Bits<16>>,
    /// Parsed header (to the host): `data_payload_len`.
    pub m_hdr_data_payload_len: Signal<Out, Bits<16>>,
    /// Parsed header (to the host): `grant_offset`.
    pub m_hdr_grant_offset: Signal<Out, Bits<32>>,
    /// Parsed header (to the host): `grant_priority`.
    pub m_hdr_grant_priority: Signal<Out, Bits<3>>,
    /// Parsed header (to the host): `resend_offset`.
    pub m_hdr_resend_offset: Signal<Out, Bits<32>>,
    /// Parsed header (to the host): `resend_length`.
    pub m_hdr_resend_length: Signal<Out, Bits<32>>,
    /// Parsed header (to the host): `resend_priority`.
    pub m_hdr_resend_priority: Signal<Out, Bits<3>>,
    /// GRANT frames to the MAC: data.
    pub m_grant_axis_tdata: Signal<Out, Beat512>,
    /// Byte enables.
    pub m_grant_axis_tkeep: Signal<Out, Bits<64>>,
    /// A beat is offered.
    pub m_grant_axis_tvalid: Signal<Out, Bit>,
    /// The frame's last beat.
    pub m_grant_axis_tlast: Signal<Out, Bit>,
    /// The beat is taken.
    pub m_grant_axis_tready: Signal<In, Bit>,
    /// Overcommitment degree (1-8).
    pub cfg_max_overcommit: Signal<In, Bits<8>>,
    /// Highest scheduled priority (0-7).
    pub cfg_max_sched_prio: Signal<In, Bits<8>>,
    /// Limit on granted-but-unreceived bytes.
    pub cfg_max_incoming: Signal<In, Bits<32>>,
    /// Grant window when 0 messages are active (the driver computes the table).
    pub cfg_window_0: Signal<In, Bits<32>>,
    /// Grant window when 1 messages are active (the driver computes the table).
    pub cfg_window_1: Signal<In, Bits<32>>,
    /// Grant window when 2 messages are active (the driver computes the table).
    pub cfg_window_2: Signal<In, Bits<32>>,
    /// Grant window when 3 messages are active (the driver computes the table).
    pub cfg_window_3: Signal<In, Bits<32>>,
    /// Grant window when 4 messages are active (the driver computes the table).
    pub cfg_window_4: Signal<In, Bits<32>>,
    /// Grant window when 5 messages are active (the driver computes the table).
    pub cfg_window_5: Signal<In, Bits<32>>,
    /// Grant window when 6 messages are active (the driver computes the table).
    pub cfg_window_6: Signal<In, Bits<32>>,
    /// Grant window when 7 messages are active (the driver computes the table).
    pub cfg_window_7: Signal<In, Bits<32>>,
    /// Grant window when 8 messages are active (the driver computes the table).
    pub cfg_window_8: Signal<In, Bits<32>>,
    /// Local MAC address.
    pub cfg_mac: Signal<In, Bits<48>>,
    /// Local IPv4 address.
    pub cfg_ip: Signal<In, Bits<32>>,
    /// The next hop's MAC address (GRANTs are sent to it).
    pub cfg_gw_mac: Signal<In, Bits<48>>,
    /// Counter: `parser.frames_ok` (free-running).
    pub frames_ok: Signal<Out, Bits<32>>,
    /// Counter: `parser.dropped_runt` (free-running).
    pub dropped_runt: Signal<Out, Bits<32>>,
    /// Counter: `parser.dropped_bad_checksum` (free-running).
    pub dropped_bad_checksum: Signal<Out, Bits<32>>,
    /// Counter: `parser.dropped_not_homa` (free-running).
    pub dropped_not_homa: Signal<Out, Bits<32>>,
    /// Counter: `parser.dropped_bad_type` (free-running).
    pub dropped_bad_type: Signal<Out, Bits<32>>,
    /// Counter: `parser.dropped_bad_length` (free-running).
    pub dropped_bad_length: Signal<Out, Bits<32>>,
    /// Counter: `table.dropped_holes` (free-running).
    pub dropped_holes: Signal<Out, Bits<32>>,
    /// Counter: `table.dropped_late` (free-running).
    pub dropped_late: Signal<Out, Bits<32>>,
    /// Counter: `table.collisions` (free-running).
    pub collisions: Signal<Out, Bits<32>>,
    /// Counter: `grant.messages_tracked` (free-running).
    pub messages_tracked: Signal<Out, Bits<32>>,
    /// Counter: `grant.grants_sent` (free-running).
    pub grants_sent: Signal<Out, Bits<32>>,
    /// Counter: `grant.table_full` (free-running).
    pub table_full: Signal<Out, Bits<32>>,
    parser: HomaParser512,
    msgs: MsgTable1024,
    grant: GrantScheduler16,
    framer: GrantFramer512,
    is_data: Signal<Local, Bit>,
    end_len: Signal<Local, Lo16In32>,
    c_data: Constant<Bits<8>>,
    c_v4: Constant<Bits<4>>,
    c_lo: Constant<Bits<8>>,
    c_zero16: Constant<Bits<16>>,
}

impl HomaRxCore512 {
    /// A new core.
    pub fn new() -> Self {
        Self {
            clock: Signal::default(),
            reset: Signal::default(),
            s_axis_tdata: Signal::default(),
            s_axis_tkeep: Signal::default(),
            s_axis_tvalid: Signal::default(),
            s_axis_tlast: Signal::default(),
            s_axis_tready: Signal::default(),
            m_pay_tdata: Signal::default(),
            m_pay_tkeep: Signal::default(),
            m_pay_tvalid: Signal::default(),
            m_pay_tlast: Signal::default(),
            m_pay_tuser: Signal::default(),
            m_pay_tready: Signal::default(),
            m_hdr_valid: Signal::default(),
            m_hdr_ready: Signal::default(),
            m_hdr_ip_version: Signal::default(),
            m_hdr_src_ip: Signal::default(),
            m_hdr_dst_ip: Signal::default(),
            m_hdr_priority: Signal::default(),
            m_hdr_sport: Signal::default(),
            m_hdr_dport: Signal::default(),
            m_hdr_type: Signal::default(),
            m_hdr_sender_id: Signal::default(),
            m_hdr_data_message_length: Signal::default(),
            m_hdr_data_incoming: Signal::default(),
            m_hdr_data_offset: Signal::default(),
            m_hdr_data_cutoff_version: Signal::default(),
            m_hdr_data_retransmit: Signal::default(),
            m_hdr_data_ack_client_id: Signal::default(),
            m_hdr_data_ack_server_port: Signal::default(),
            m_hdr_data_payload_len: Signal::default(),
            m_hdr_grant_offset: Signal::default(),
            m_hdr_grant_priority: Signal::default(),
            m_hdr_resend_offset: Signal::default(),
            m_hdr_resend_length: Signal::default(),
            m_hdr_resend_priority: Signal::default(),
            m_grant_axis_tdata: Signal::default(),
            m_grant_axis_tkeep: Signal::default(),
            m_grant_axis_tvalid: Signal::default(),
            m_grant_axis_tlast: Signal::default(),
            m_grant_axis_tready: Signal::default(),
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
            cfg_mac: Signal::default(),
            cfg_ip: Signal::default(),
            cfg_gw_mac: Signal::default(),
            frames_ok: Signal::default(),
            dropped_runt: Signal::default(),
            dropped_bad_checksum: Signal::default(),
            dropped_not_homa: Signal::default(),
            dropped_bad_type: Signal::default(),
            dropped_bad_length: Signal::default(),
            dropped_holes: Signal::default(),
            dropped_late: Signal::default(),
            collisions: Signal::default(),
            messages_tracked: Signal::default(),
            grants_sent: Signal::default(),
            table_full: Signal::default(),
            parser: HomaParser512::new(),
            msgs: MsgTable1024::new(),
            grant: GrantScheduler16::new(),
            framer: GrantFramer512::new(),
            is_data: Signal::default(),
            end_len: Signal::default(),
            c_data: Constant::new(u64::from(u8::from(homa_proto::wire::PacketType::Data)).into()),
            c_v4: Constant::new(4u64.into()),
            c_lo: Constant::new(0u64.into()),
            c_zero16: Constant::new(0u64.into()),
        }
    }

    /// A new core as the top level of a design: every input driven from outside.
    pub fn top_level() -> Self {
        let mut uut = Self::new();
        uut.clock.connect();
        uut.reset.connect();
        uut.s_axis_tdata.connect();
        uut.s_axis_tkeep.connect();
        uut.s_axis_tvalid.connect();
        uut.s_axis_tlast.connect();
        uut.m_pay_tready.connect();
        uut.m_hdr_ready.connect();
        uut.m_grant_axis_tready.connect();
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
        uut.cfg_mac.connect();
        uut.cfg_ip.connect();
        uut.cfg_gw_mac.connect();
        uut.connect_all();
        uut
    }
}

impl Default for HomaRxCore512 {
    fn default() -> Self {
        Self::new()
    }
}

impl core::fmt::Debug for HomaRxCore512 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("HomaRxCore512").finish_non_exhaustive()
    }
}

impl Logic for HomaRxCore512 {
    #[hdl_gen]
    fn update(&mut self) {
        self.parser.clock.next = self.clock.val();
        self.msgs.clock.next = self.clock.val();
        self.grant.clock.next = self.clock.val();
        self.framer.clock.next = self.clock.val();
        self.parser.reset.next = self.reset.val();
        self.msgs.reset.next = self.reset.val();
        self.grant.reset.next = self.reset.val();
        self.framer.reset.next = self.reset.val();
        // Frames in, payload out.
        self.parser.s_axis_tdata.next = self.s_axis_tdata.val();
        self.parser.s_axis_tkeep.next = self.s_axis_tkeep.val();
        self.parser.s_axis_tvalid.next = self.s_axis_tvalid.val();
        self.parser.s_axis_tlast.next = self.s_axis_tlast.val();
        self.s_axis_tready.next = self.parser.s_axis_tready.val();
        self.m_pay_tdata.next = self.parser.m_axis_tdata.val();
        self.m_pay_tkeep.next = self.parser.m_axis_tkeep.val();
        self.m_pay_tvalid.next = self.parser.m_axis_tvalid.val();
        self.m_pay_tlast.next = self.parser.m_axis_tlast.val();
        self.m_pay_tuser.next = self.parser.m_axis_tuser.val();
        self.parser.m_axis_tready.next = self.m_pay_tready.val();
        // The header fork: the host always, the table for IPv4 DATA.
        self.is_data.next = (self.parser.m_hdr_type.val() == self.c_data.val())
            & (self.parser.m_hdr_ip_version.val() == self.c_v4.val());
        self.parser.m_hdr_ready.next =
            self.m_hdr_ready.val() & (!self.is_data.val() | self.msgs.s_pkt_ready.val());
        self.m_hdr_valid.next =
            self.parser.m_hdr_valid.val() & (!self.is_data.val() | self.msgs.s_pkt_ready.val());
        self.m_hdr_ip_version.next = self.parser.m_hdr_ip_version.val();
        self.m_hdr_src_ip.next = self.parser.m_hdr_src_ip.val();
        self.m_hdr_dst_ip.next = self.parser.m_hdr_dst_ip.val();
        self.m_hdr_priority.next = self.parser.m_hdr_priority.val();
        self.m_hdr_sport.next = self.parser.m_hdr_sport.val();
        self.m_hdr_dport.next = self.parser.m_hdr_dport.val();
        self.m_hdr_type.next = self.parser.m_hdr_type.val();
        self.m_hdr_sender_id.next = self.parser.m_hdr_sender_id.val();
        self.m_hdr_data_message_length.next = self.parser.m_hdr_data_message_length.val();
        self.m_hdr_data_incoming.next = self.parser.m_hdr_data_incoming.val();
        self.m_hdr_data_offset.next = self.parser.m_hdr_data_offset.val();
        self.m_hdr_data_cutoff_version.next = self.parser.m_hdr_data_cutoff_version.val();
        self.m_hdr_data_retransmit.next = self.parser.m_hdr_data_retransmit.val();
        self.m_hdr_data_ack_client_id.next = self.parser.m_hdr_data_ack_client_id.val();
        self.m_hdr_data_ack_server_port.next = self.parser.m_hdr_data_ack_server_port.val();
        self.m_hdr_data_payload_len.next = self.parser.m_hdr_data_payload_len.val();
        self.m_hdr_grant_offset.next = self.parser.m_hdr_grant_offset.val();
        self.m_hdr_grant_priority.next = self.parser.m_hdr_grant_priority.val();
        self.m_hdr_resend_offset.next = self.parser.m_hdr_resend_offset.val();
        self.m_hdr_resend_length.next = self.parser.m_hdr_resend_length.val();
        self.m_hdr_resend_priority.next = self.parser.m_hdr_resend_priority.val();
        self.end_len.next.lo = self.parser.m_hdr_data_payload_len.val();
        self.end_len.next.z = self.c_zero16.val();
        self.msgs.s_pkt_valid.next =
            self.parser.m_hdr_valid.val() & self.is_data.val() & self.m_hdr_ready.val();
        self.msgs.s_pkt_peer.next = self
            .parser
            .m_hdr_src_ip
            .val()
            .get_bits::<32>(self.c_lo.val().index());
        self.msgs.s_pkt_id.next = self.parser.m_hdr_sender_id.val();
        self.msgs.s_pkt_sport.next = self.parser.m_hdr_sport.val();
        self.msgs.s_pkt_dport.next = self.parser.m_hdr_dport.val();
        self.msgs.s_pkt_mac.next = self.cfg_gw_mac.val();
        self.msgs.s_pkt_length.next = self.parser.m_hdr_data_message_length.val();
        self.msgs.s_pkt_incoming.next = self.parser.m_hdr_data_incoming.val();
        self.msgs.s_pkt_offset.next = self.parser.m_hdr_data_offset.val();
        self.msgs.s_pkt_end.next =
            self.parser.m_hdr_data_offset.val() + Bits::<32>::from(self.end_len.val());
        // Table → grant generator.
        self.grant.s_evt_valid.next = self.msgs.m_evt_valid.val();
        self.msgs.m_evt_ready.next = self.grant.s_evt_ready.val();
        self.grant.s_evt_peer.next = self.msgs.m_evt_peer.val();
        self.grant.s_evt_id.next = self.msgs.m_evt_id.val();
        self.grant.s_evt_sport.next = self.msgs.m_evt_sport.val();
        self.grant.s_evt_dport.next = self.msgs.m_evt_dport.val();
        self.grant.s_evt_mac.next = self.msgs.m_evt_mac.val();
        self.grant.s_evt_length.next = self.msgs.m_evt_length.val();
        self.grant.s_evt_incoming.next = self.msgs.m_evt_incoming.val();
        self.grant.s_evt_new.next = self.msgs.m_evt_new.val();
        self.grant.s_evt_end.next = self.msgs.m_evt_end.val();
        self.grant.cfg_max_overcommit.next = self.cfg_max_overcommit.val();
        self.grant.cfg_max_sched_prio.next = self.cfg_max_sched_prio.val();
        self.grant.cfg_max_incoming.next = self.cfg_max_incoming.val();
        self.grant.cfg_window_0.next = self.cfg_window_0.val();
        self.grant.cfg_window_1.next = self.cfg_window_1.val();
        self.grant.cfg_window_2.next = self.cfg_window_2.val();
        self.grant.cfg_window_3.next = self.cfg_window_3.val();
        self.grant.cfg_window_4.next = self.cfg_window_4.val();
        self.grant.cfg_window_5.next = self.cfg_window_5.val();
        self.grant.cfg_window_6.next = self.cfg_window_6.val();
        self.grant.cfg_window_7.next = self.cfg_window_7.val();
        self.grant.cfg_window_8.next = self.cfg_window_8.val();
        // Grant generator → framer → MAC.
        self.framer.s_grant_valid.next = self.grant.m_grant_valid.val();
        self.grant.m_grant_ready.next = self.framer.s_grant_ready.val();
        self.framer.s_grant_peer.next = self.grant.m_grant_peer.val();
        self.framer.s_grant_mac.next = self.grant.m_grant_mac.val();
        self.framer.s_grant_id.next = self.grant.m_grant_id.val();
        self.framer.s_grant_sport.next = self.grant.m_grant_sport.val();
        self.framer.s_grant_dport.next = self.grant.m_grant_dport.val();
        self.framer.s_grant_offset.next = self.grant.m_grant_offset.val();
        self.framer.s_grant_priority.next = self.grant.m_grant_priority.val();
        self.framer.cfg_mac.next = self.cfg_mac.val();
        self.framer.cfg_ip.next = self.cfg_ip.val();
        self.m_grant_axis_tdata.next = self.framer.m_axis_tdata.val();
        self.m_grant_axis_tkeep.next = self.framer.m_axis_tkeep.val();
        self.m_grant_axis_tvalid.next = self.framer.m_axis_tvalid.val();
        self.m_grant_axis_tlast.next = self.framer.m_axis_tlast.val();
        self.framer.m_axis_tready.next = self.m_grant_axis_tready.val();
        self.frames_ok.next = self.parser.frames_ok.val();
        self.dropped_runt.next = self.parser.dropped_runt.val();
        self.dropped_bad_checksum.next = self.parser.dropped_bad_checksum.val();
        self.dropped_not_homa.next = self.parser.dropped_not_homa.val();
        self.dropped_bad_type.next = self.parser.dropped_bad_type.val();
        self.dropped_bad_length.next = self.parser.dropped_bad_length.val();
        self.dropped_holes.next = self.msgs.dropped_holes.val();
        self.dropped_late.next = self.msgs.dropped_late.val();
        self.collisions.next = self.msgs.collisions.val();
        self.messages_tracked.next = self.grant.messages_tracked.val();
        self.grants_sent.next = self.grant.grants_sent.val();
        self.table_full.next = self.grant.table_full.val();
    }
}
