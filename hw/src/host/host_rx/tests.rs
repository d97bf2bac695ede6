//! [`HostRx512`] against the host bench of [`crate::host_rx_model`] with the direct
//! `simulate()` loop (`HOMA_HW_SEED` replays a run).
#![allow(non_snake_case)]

use super::*;
use crate::bench::seed_from_env;
use crate::host_rx_model::{self, HostAnswer, HostCounters, HostOffer, HostRxPorts};
use crate::rx_dma_model::DmaWrite;

struct Bench {
    uut: HostRx512,
}

impl Bench {
    fn half(&mut self, high: bool) {
        clock_half(&mut self.uut, |u| &mut u.clock, high);
    }
}

impl HostRxPorts for Bench {
    fn reset(&mut self) {
        reset_two_cycles(&mut self.uut, |u| &mut u.clock, |u| &mut u.reset);
    }

    fn drive(&mut self, o: &HostOffer<'_>) -> HostAnswer {
        let u = &mut self.uut;
        u.cfg_rx_base.next = o.rx_base.into();
        u.cfg_rx_log2.next = u64::from(o.rx_log2).into();
        u.cfg_rx_producer.next = u64::from(o.rx_producer).into();
        u.cfg_rx_clear.next = o.clear;
        u.cfg_rx_win_base.next = o.rx_window.base.into();
        u.cfg_rx_win_len.next = o.rx_window.len.into();
        u.cfg_cq_base.next = o.cq_base.into();
        u.cfg_cq_log2.next = u64::from(o.cq_log2).into();
        u.cfg_cq_consumer.next = u64::from(o.cq_consumer).into();
        u.cfg_cq_clear.next = o.clear;
        let beat = o.beat.cloned().unwrap_or_default();
        u.s_pay_tvalid.next = o.beat.is_some();
        u.s_pay_tdata.next = bits_from_le_bytes::<512>(&beat.bytes);
        u.s_pay_tkeep.next = beat.keep().into();
        u.s_pay_tlast.next = beat.last;
        u.s_pay_tuser.next = beat.user;
        let h = o.header.copied().unwrap_or_default();
        u.s_hdr_valid.next = o.header.is_some();
        u.s_hdr_ip_version.next = u64::from(h.ip_version).into();
        u.s_hdr_src_ip.next = bits_from_le_bytes::<128>(&h.src_ip.to_le_bytes());
        u.s_hdr_sport.next = u64::from(h.sport).into();
        u.s_hdr_dport.next = u64::from(h.dport).into();
        u.s_hdr_sender_id.next = h.sender_id.into();
        u.s_hdr_message_length.next = u64::from(h.message_length).into();
        u.s_hdr_offset.next = u64::from(h.offset).into();
        u.s_hdr_payload_len.next = u64::from(h.payload_len).into();
        u.s_hdr_retransmit.next = h.retransmit;
        u.s_hdr_host_grants.next = h.host_grants;
        u.s_hdr_type.next = u64::from(h.ptype).into();
        u.s_hdr_incoming.next = u64::from(h.incoming).into();
        u.s_hdr_cutoff_version.next = u64::from(h.cutoff_version).into();
        u.s_hdr_ack_client_id.next = h.ack_client_id.into();
        u.s_hdr_ack_server_port.next = u64::from(h.ack_server_port).into();
        u.s_hdr_body.next = bits_from_le_bytes(&h.body);
        u.m_rd_ready.next = o.rd_ready;
        u.s_rd_valid.next = o.resp.is_some();
        u.s_rd_data.next = bits_from_le_bytes::<512>(&o.resp.unwrap_or([0; 64]));
        u.m_wr_ready.next = o.wr_ready;
        let t = o.txerr.unwrap_or_default();
        u.s_txerr_valid.next = o.txerr.is_some();
        u.s_txerr_status.next = u64::from(t.status).into();
        u.s_txerr_index.next = u64::from(t.index).into();
        u.s_txerr_rpc_id.next = t.rpc_id.into();
        u.s_txerr_cookie.next = t.cookie.into();
        let d = o.txdone.unwrap_or_default();
        u.s_txdone_valid.next = o.txdone.is_some();
        u.s_txdone_rpc_id.next = d.rpc_id.into();
        u.s_txdone_length.next = u64::from(d.length).into();
        u.s_txdone_cookie.next = d.cookie.into();
        let g = o.grant.unwrap_or_default();
        u.s_gnt_valid.next = o.grant.is_some();
        u.s_gnt_rpc_id.next = g.rpc_id.into();
        u.s_gnt_peer.next = u64::from(g.peer).into();
        u.s_gnt_local_port.next = u64::from(g.local_port).into();
        u.s_gnt_peer_port.next = u64::from(g.peer_port).into();
        u.s_gnt_offset.next = u64::from(g.offset).into();
        u.s_gnt_priority.next = u64::from(g.priority).into();
        self.half(false);
        let u = &self.uut;
        HostAnswer {
            pay_ready: u.s_pay_tready.val(),
            hdr_ready: u.s_hdr_ready.val(),
            rd: u
                .m_rd_valid
                .val()
                .then(|| (u.m_rd_addr.val().to_u64(), u.m_rd_len.val().to_u64() as u16)),
            wr: u.m_wr_valid.val().then(|| DmaWrite {
                addr: u.m_wr_addr.val().to_u64(),
                data: le_bytes_of(u.m_wr_data.val()).try_into().expect("64 bytes"),
                keep: u.m_wr_keep.val().to_u64(),
                last: u.m_wr_last.val(),
            }),
            txerr_ready: u.s_txerr_ready.val(),
            txdone_ready: u.s_txdone_ready.val(),
            grant_ready: u.s_gnt_ready.val(),
        }
    }

    fn counters(&self) -> HostCounters {
        let u = &self.uut;
        HostCounters {
            rx_consumer: u.rx_consumer.val().to_u32(),
            cq_producer: u.cq_producer.val().to_u32(),
            rx_data: u.rx_data.val().to_u32(),
            rx_errors: u.rx_errors.val().to_u32(),
            no_buffer: u.no_buffer.val().to_u32(),
            bad_frames: u.bad_frames.val().to_u32(),
            empty: u.empty.val().to_u32(),
            bad_descriptors: u.bad_descriptors.val().to_u32(),
            cq_dropped: u.cq_dropped.val().to_u32(),
        }
    }

    fn edge(&mut self) {
        self.half(true);
    }
}

#[test]
fn host_rx__delivers_every_payload_into_posted_buffers_with_its_completion() {
    let seed = seed_from_env(0x4057_0001);
    eprintln!("host rx: seed {seed:#x} (HOMA_HW_SEED to replay)");
    let mut bench = Bench {
        uut: HostRx512::top_level(),
    };
    let stats = host_rx_model::run(&mut bench, seed, 150).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("  {stats:?}");
    let c = stats.counters;
    assert!(
        c.rx_data > 60
            && c.bad_frames > 0
            && c.empty > 0
            && stats.refused > 0
            && stats.tx_done > 0
            && stats.grants_sent > 0,
        "{stats:?}"
    );
}
