//! [`TxSched16`] and [`TxSched4`] against [`crate::tx_sched_model`] with the direct
//! `simulate()` loop (`HOMA_HW_SEED` replays a run).
#![allow(non_snake_case)]

use super::*;
use crate::bench::seed_from_env;
use crate::tx_sched_model::{self, TxEntry, TxJob, TxSchedAnswer, TxSchedOffer, TxSchedPorts};

struct Bench<const N: usize, const NODES: usize, const NN: usize, const S: usize> {
    uut: TxSched<N, NODES, NN, S>,
}

impl<const N: usize, const NODES: usize, const NN: usize, const S: usize> Bench<N, NODES, NN, S> {
    fn new() -> Self {
        Bench {
            uut: TxSched::top_level(),
        }
    }

    fn half(&mut self, high: bool) {
        clock_half(&mut self.uut, |u| &mut u.clock, high);
    }
}

impl<const N: usize, const NODES: usize, const NN: usize, const S: usize> TxSchedPorts
    for Bench<N, NODES, NN, S>
{
    fn reset(&mut self) {
        reset_two_cycles(&mut self.uut, |u| &mut u.clock, |u| &mut u.reset);
    }

    fn drive(&mut self, o: &TxSchedOffer) -> TxSchedAnswer {
        let u = &mut self.uut;
        u.cfg_unsched_bytes.next = u64::from(o.cfg.unsched_bytes).into();
        u.cfg_max_payload.next = u64::from(o.cfg.max_payload).into();
        let c = o.cfg.cutoffs.map(|c| Bits::<32>::from(u64::from(c)));
        u.cfg_cutoff1.next = c[1];
        u.cfg_cutoff2.next = c[2];
        u.cfg_cutoff3.next = c[3];
        u.cfg_cutoff4.next = c[4];
        u.cfg_cutoff5.next = c[5];
        u.cfg_cutoff6.next = c[6];
        u.cfg_cutoff7.next = c[7];
        let d = o.desc.unwrap_or_default();
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
        u.s_desc_resume.next = d.resume;
        u.s_desc_granted.next = u64::from(d.granted).into();
        u.s_desc_sprio.next = u64::from(d.sprio).into();
        u.park_valid.next = o.park.is_some();
        u.park_slot.next = (o.park.unwrap_or(0) as u64).into();
        let g = o.grant.unwrap_or_default();
        u.s_grant_valid.next = o.grant.is_some();
        u.s_grant_peer.next = u64::from(g.peer).into();
        u.s_grant_id.next = g.id.into();
        u.s_grant_offset.next = u64::from(g.offset).into();
        u.s_grant_priority.next = u64::from(g.priority).into();
        u.m_job_ready.next = o.job_ready;
        self.half(false);
        let u = &self.uut;
        assert!(u.s_grant_ready.val(), "GRANTs are always taken");
        TxSchedAnswer {
            desc_ready: u.s_desc_ready.val(),
            job: u.m_job_valid.val().then(|| TxJob {
                addr: u.m_job_addr.val().to_u64(),
                offset: u.m_job_offset.val().to_u32(),
                len: u.m_job_len.val().to_u32(),
                priority: u.m_job_priority.val().to_u64() as u8,
                retransmit: u.m_job_retransmit.val(),
                incoming: u.m_job_incoming.val().to_u32(),
                last: u.m_job_last.val(),
                no_completion: u.m_job_no_completion.val(),
                peer: u.m_job_peer.val().to_u32(),
                sport: u.m_job_sport.val().to_u64() as u16,
                dport: u.m_job_dport.val().to_u64() as u16,
                id: u.m_job_id.val().to_u64(),
                length: u.m_job_length.val().to_u32(),
                cookie: u.m_job_cookie.val().to_u64(),
                index: u.m_job_index.val().to_u32(),
                slot: u.m_job_slot.val().index(),
            }),
            occupancy: u.occupancy.val().to_u32(),
            packets: u.packets.val().to_u32(),
            grants_unmatched: u.grants_unmatched.val().to_u32(),
            grant_hit: u.m_grant_hit.val(),
            waiting: u.waiting.val().to_u64() as u16,
            park: (o.park.is_some() && u.park_ok.val()).then(|| TxEntry {
                no_completion: u.park_no_completion.val(),
                sport: u.park_sport.val().to_u64() as u16,
                dport: u.park_dport.val().to_u64() as u16,
                id: u.park_id.val().to_u64(),
                peer: u.park_peer.val().to_u32(),
                length: u.park_length.val().to_u32(),
                iova: u.park_iova.val().to_u64(),
                offset: u.park_sent.val().to_u32(),
                bytes: u.park_left.val().to_u32(),
                cookie: u.park_cookie.val().to_u64(),
                index: u.park_index.val().to_u32(),
                resume: true,
                granted: u.park_granted.val().to_u32(),
                sprio: u.park_sprio.val().to_u64() as u8,
                ..TxEntry::default()
            }),
            most: u
                .most_valid
                .val()
                .then(|| (u.most_slot.val().index(), u.most_left.val().to_u32())),
            full: u.full.val(),
        }
    }

    fn edge(&mut self) {
        self.half(true);
    }

    fn slots(&self) -> usize {
        N
    }
}

/// Four seeded runs from `seed` (`HOMA_HW_SEED` replaces it) of the `N`-slot scheduler.
fn runs<const N: usize, const NODES: usize, const NN: usize, const S: usize>(seed: u64) {
    let seed = seed_from_env(seed);
    let messages = if cfg!(debug_assertions) { 12 } else { 60 };
    let what = format!("tx_sched_n{N} (rust-hdl)");
    tx_sched_model::run_seeds(&what, Bench::<N, NODES, NN, S>::new, seed, 4, messages)
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn tx_sched__matches_the_reference_on_random_traffic() {
    runs::<16, 31, 256, 4>(0x7c5_0001);
}

#[test]
fn tx_sched__four_slots_match_the_reference_on_random_traffic() {
    runs::<4, 7, 16, 2>(0x7c5_0004);
}
