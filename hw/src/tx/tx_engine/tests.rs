//! [`TxEngine512`] end to end with the direct `simulate()` loop, through
//! [`crate::tx_engine_model`] (`HOMA_HW_SEED` replays a run).
#![allow(non_snake_case)]

use super::*;
use crate::bench::seed_from_env;
use crate::tx_engine_model::{self, EngineAnswer, EngineOffer, EnginePorts};

struct Bench {
    uut: TxEngine512,
}

impl Bench {
    fn new() -> Self {
        Bench {
            uut: TxEngine512::top_level(),
        }
    }
}

impl EnginePorts for Bench {
    fn reset(&mut self) {
        reset_two_cycles(&mut self.uut, |u| &mut u.clock, |u| &mut u.reset);
    }

    fn drive(&mut self, o: &EngineOffer) -> EngineAnswer {
        let u = &mut self.uut;
        let d = o.desc.unwrap_or_default();
        let g = o.grant.unwrap_or_default();
        u.cfg_unsched_bytes.next = u64::from(o.sched.unsched_bytes).into();
        u.cfg_max_payload.next = u64::from(o.sched.max_payload).into();
        u.cfg_cutoff1.next = u64::from(o.sched.cutoffs[1]).into();
        u.cfg_cutoff2.next = u64::from(o.sched.cutoffs[2]).into();
        u.cfg_cutoff3.next = u64::from(o.sched.cutoffs[3]).into();
        u.cfg_cutoff4.next = u64::from(o.sched.cutoffs[4]).into();
        u.cfg_cutoff5.next = u64::from(o.sched.cutoffs[5]).into();
        u.cfg_cutoff6.next = u64::from(o.sched.cutoffs[6]).into();
        u.cfg_cutoff7.next = u64::from(o.sched.cutoffs[7]).into();
        u.cfg_mac.next = o.framer.mac.into();
        u.cfg_next_hop_mac.next = o.framer.next_hop_mac.into();
        u.cfg_ip.next = u64::from(o.framer.ip).into();
        u.cfg_cutoff_version.next = u64::from(o.framer.cutoff_version).into();
        u.s_desc_valid.next = o.desc.is_some();
        u.s_desc_retransmit.next = d.retransmit;
        u.s_desc_cancel.next = d.cancel;
        u.s_desc_no_completion.next = d.no_completion;
        u.s_desc_sport.next = u64::from(d.sport).into();
        u.s_desc_dport.next = u64::from(d.dport).into();
        u.s_desc_id.next = d.id.into();
        u.s_desc_peer.next = u64::from(d.peer).into();
        u.s_desc_length.next = u64::from(d.length).into();
        u.s_desc_iova.next = d.iova.into();
        u.s_desc_offset.next = u64::from(d.offset).into();
        u.s_desc_bytes.next = u64::from(d.bytes).into();
        u.s_desc_cookie.next = d.cookie.into();
        u.s_desc_index.next = u64::from(d.index).into();
        u.s_grant_valid.next = o.grant.is_some();
        u.s_grant_peer.next = u64::from(g.peer).into();
        u.s_grant_id.next = g.id.into();
        u.s_grant_offset.next = u64::from(g.offset).into();
        u.s_grant_priority.next = u64::from(g.priority).into();
        u.m_rd_ready.next = o.rd_ready;
        u.s_pay_valid.next = o.pay.is_some();
        u.s_pay_data.next = bits_from_le_bytes(&o.pay.unwrap_or([0; 64]));
        u.m_axis_tready.next = o.tready;
        u.m_done_ready.next = o.done_ready;
        clock_half(&mut self.uut, |u| &mut u.clock, false);
        let u = &self.uut;
        let data: Bits<512> = u.m_axis_tdata.val();
        let mut bytes = [0u8; 64];
        bytes.copy_from_slice(&le_bytes_of(data));
        EngineAnswer {
            desc_ready: u.s_desc_ready.val(),
            rd: u
                .m_rd_valid
                .val()
                .then(|| (u.m_rd_addr.val().to_u64(), u.m_rd_len.val().to_u32())),
            pay_ready: u.s_pay_ready.val(),
            beat: u
                .m_axis_tvalid
                .val()
                .then(|| (bytes, u.m_axis_tkeep.val().to_u64(), u.m_axis_tlast.val())),
            done: u.m_done_valid.val().then(|| {
                (
                    u.m_done_id.val().to_u64(),
                    u.m_done_length.val().to_u32(),
                    u.m_done_cookie.val().to_u64(),
                    u.m_done_index.val().to_u32(),
                )
            }),
            queued: u.queued.val().to_u32(),
        }
    }

    fn edge(&mut self) {
        clock_half(&mut self.uut, |u| &mut u.clock, true);
    }
}

#[test]
fn tx_engine__sends_every_message_byte_exact_under_back_pressure() {
    let seed = seed_from_env(0x7e_0001);
    // rust-hdl simulates a few hundred cycles a second here: short messages, few of them.
    let n = if cfg!(debug_assertions) { 6 } else { 40 };
    tx_engine_model::run_seeds("tx engine (rust-hdl)", Bench::new, seed, 2, n, 3_000)
        .unwrap_or_else(|e| panic!("{e}"));
}
