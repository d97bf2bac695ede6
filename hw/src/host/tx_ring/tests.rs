//! [`TxRing512`] against [`crate::tx_ring_model`] with the direct `simulate()` loop
//! (`HOMA_HW_SEED` replays a run).
#![allow(non_snake_case)]

use super::*;
use crate::bench::seed_from_env;
use crate::tx_ring_model::{self, TxHead, TxRingAnswer, TxRingOffer, TxRingPorts};

struct Bench {
    uut: TxRing512,
}

impl Bench {
    fn half(&mut self, high: bool) {
        clock_half(&mut self.uut, |u| &mut u.clock, high);
    }
}

impl TxRingPorts for Bench {
    fn reset(&mut self) {
        reset_two_cycles(&mut self.uut, |u| &mut u.clock, |u| &mut u.reset);
    }

    fn drive(&mut self, o: &TxRingOffer) -> TxRingAnswer {
        let u = &mut self.uut;
        u.cfg_base.next = o.base.into();
        u.cfg_log2.next = u64::from(o.log2).into();
        u.cfg_producer.next = u64::from(o.producer).into();
        u.cfg_clear.next = o.clear;
        u.cfg_win_base.next = o.limits.window.base.into();
        u.cfg_win_len.next = o.limits.window.len.into();
        u.cfg_max_len.next = u64::from(o.limits.max_message_length).into();
        u.cfg_max_payload.next = u64::from(o.limits.max_payload).into();
        u.m_rd_ready.next = o.rd_ready;
        u.s_rd_valid.next = o.resp.is_some();
        u.s_rd_data.next = bits_from_le_bytes::<512>(&o.resp.unwrap_or([0; 64]));
        u.m_desc_ready.next = o.desc_ready;
        u.m_err_ready.next = o.err_ready;
        self.half(false);
        let u = &self.uut;
        let mut peer = [0u8; 16];
        peer.copy_from_slice(&le_bytes_of(u.m_desc_peer.val()));
        let head = TxHead {
            retransmit: u.m_desc_retransmit.val(),
            cancel: u.m_desc_cancel.val(),
            no_completion: u.m_desc_no_completion.val(),
            src_port: u.m_desc_src_port.val().to_u64() as u16,
            dst_port: u.m_desc_dst_port.val().to_u64() as u16,
            rpc_id: u.m_desc_rpc_id.val().to_u64(),
            peer,
            length: u.m_desc_length.val().to_u32(),
            iova: u.m_desc_iova.val().to_u64(),
            offset: u.m_desc_offset.val().to_u32(),
            bytes: u.m_desc_bytes.val().to_u32(),
            cookie: u.m_desc_cookie.val().to_u64(),
            index: u.m_desc_index.val().to_u32(),
        };
        TxRingAnswer {
            rd: u
                .m_rd_valid
                .val()
                .then(|| (u.m_rd_addr.val().to_u64(), u.m_rd_len.val().to_u32())),
            desc: u.m_desc_valid.val().then_some(head),
            err: u
                .m_err_valid
                .val()
                .then(|| (head, u.m_err_status.val().to_u64() as u8)),
        }
    }

    fn counters(&self) -> (u32, u32) {
        (
            self.uut.consumer.val().to_u32(),
            self.uut.bad.val().to_u32(),
        )
    }

    fn edge(&mut self) {
        self.half(true);
    }
}

#[test]
fn tx_ring__hands_out_every_posted_descriptor_in_order_or_refuses_it() {
    let seed = seed_from_env(0x7a_0001);
    let make = || Bench {
        uut: TxRing512::top_level(),
    };
    tx_ring_model::run_seeds("tx ring", make, seed, 200).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn tx_ring__clear_discards_reads_in_flight_and_restarts_at_zero() {
    let mut bench = Bench {
        uut: TxRing512::top_level(),
    };
    tx_ring_model::clear_case(&mut bench).unwrap_or_else(|e| panic!("{e}"));
}
