//! Co-simulation of the generated transmit scheduler (`hw/rtl/homa_tx_sched_n16.v`) under
//! Verilator against `homa_hw::tx_sched_model`'s mirror: seeded random SEND_MESSAGE
//! descriptors of 1 B to 1 MB and RETRANSMIT ranges, GRANTs for live messages (stale,
//! lowering, past the end) and for nobody, random configurations, back-pressure on the jobs,
//! and slots parked and resumed as the park would. Every cycle's outputs must equal the
//! mirror's (`proto::policy::srpt_pick`, `unsched_priority`, `proto::core::segment_len`), and
//! each range's bytes must leave once, in order. `HOMA_HW_SEED` (hex) replays a seed; `HOMA_HW_FRAMES` sets the messages per run.

#![allow(non_snake_case)]

#[cfg(not(homa_rtl))]
#[test]
fn tx_sched_cosim__SKIPPED_verilator_missing() {
    println!("{}", homa_sim::rtl::SKIP_MESSAGE);
}

#[cfg(homa_rtl)]
mod built {
    use homa_hw::bench::{frames_from_env, seed_from_env};
    use homa_hw::tx_sched_model::{
        self, TxEntry, TxJob, TxSchedAnswer, TxSchedOffer, TxSchedPorts,
    };
    use homa_sim::rtl::models::HomaTxSchedN16;

    struct Dut(HomaTxSchedN16);

    impl TxSchedPorts for Dut {
        fn reset(&mut self) {
            self.0.reset(2);
        }

        fn drive(&mut self, o: &TxSchedOffer) -> TxSchedAnswer {
            let m = &mut self.0;
            let c = o.cfg.cutoffs.map(u64::from);
            m.set_cfg_unsched_bytes(u64::from(o.cfg.unsched_bytes));
            m.set_cfg_max_payload(u64::from(o.cfg.max_payload));
            m.set_cfg_cutoff1(c[1]);
            m.set_cfg_cutoff2(c[2]);
            m.set_cfg_cutoff3(c[3]);
            m.set_cfg_cutoff4(c[4]);
            m.set_cfg_cutoff5(c[5]);
            m.set_cfg_cutoff6(c[6]);
            m.set_cfg_cutoff7(c[7]);
            let d = o.desc.unwrap_or_default();
            m.set_s_desc_valid(u64::from(o.desc.is_some()));
            m.set_s_desc_retransmit(u64::from(d.retransmit));
            m.set_s_desc_cancel(u64::from(d.cancel));
            m.set_s_desc_no_completion(u64::from(d.no_completion));
            m.set_s_desc_sport(u64::from(d.sport));
            m.set_s_desc_dport(u64::from(d.dport));
            m.set_s_desc_id(d.id);
            m.set_s_desc_peer(u64::from(d.peer));
            m.set_s_desc_length(u64::from(d.length));
            m.set_s_desc_iova(d.iova);
            m.set_s_desc_offset(u64::from(d.offset));
            m.set_s_desc_bytes(u64::from(d.bytes));
            m.set_s_desc_cookie(d.cookie);
            m.set_s_desc_index(u64::from(d.index));
            m.set_s_desc_resume(u64::from(d.resume));
            m.set_s_desc_granted(u64::from(d.granted));
            m.set_s_desc_sprio(u64::from(d.sprio));
            m.set_park_valid(u64::from(o.park.is_some()));
            m.set_park_slot(o.park.unwrap_or(0) as u64);
            let g = o.grant.unwrap_or_default();
            m.set_s_grant_valid(u64::from(o.grant.is_some()));
            m.set_s_grant_peer(u64::from(g.peer));
            m.set_s_grant_id(g.id);
            m.set_s_grant_offset(u64::from(g.offset));
            m.set_s_grant_priority(u64::from(g.priority));
            m.set_m_job_ready(u64::from(o.job_ready));
            assert_eq!(m.get_s_grant_ready(), 1, "GRANTs are always taken");
            TxSchedAnswer {
                desc_ready: m.get_s_desc_ready() == 1,
                job: (m.get_m_job_valid() == 1).then(|| TxJob {
                    addr: m.get_m_job_addr(),
                    offset: m.get_m_job_offset() as u32,
                    len: m.get_m_job_len() as u32,
                    priority: m.get_m_job_priority() as u8,
                    retransmit: m.get_m_job_retransmit() == 1,
                    incoming: m.get_m_job_incoming() as u32,
                    last: m.get_m_job_last() == 1,
                    no_completion: m.get_m_job_no_completion() == 1,
                    peer: m.get_m_job_peer() as u32,
                    sport: m.get_m_job_sport() as u16,
                    dport: m.get_m_job_dport() as u16,
                    id: m.get_m_job_id(),
                    length: m.get_m_job_length() as u32,
                    cookie: m.get_m_job_cookie(),
                    index: m.get_m_job_index() as u32,
                    slot: m.get_m_job_slot() as usize,
                }),
                occupancy: m.get_occupancy() as u32,
                packets: m.get_packets() as u32,
                grants_unmatched: m.get_grants_unmatched() as u32,
                grant_hit: m.get_m_grant_hit() == 1,
                waiting: m.get_waiting() as u16,
                park: (o.park.is_some() && m.get_park_ok() == 1).then(|| TxEntry {
                    no_completion: m.get_park_no_completion() == 1,
                    sport: m.get_park_sport() as u16,
                    dport: m.get_park_dport() as u16,
                    id: m.get_park_id(),
                    peer: m.get_park_peer() as u32,
                    length: m.get_park_length() as u32,
                    iova: m.get_park_iova(),
                    offset: m.get_park_sent() as u32,
                    bytes: m.get_park_left() as u32,
                    cookie: m.get_park_cookie(),
                    index: m.get_park_index() as u32,
                    resume: true,
                    granted: m.get_park_granted() as u32,
                    sprio: m.get_park_sprio() as u8,
                    ..TxEntry::default()
                }),
                most: (m.get_most_valid() == 1)
                    .then(|| (m.get_most_slot() as usize, m.get_most_left() as u32)),
                full: m.get_full() == 1,
            }
        }

        fn edge(&mut self) {
            self.0.tick();
        }
    }

    #[test]
    fn tx_sched_cosim__matches_the_reference_on_random_traffic() {
        let n = frames_from_env(200, 1_000) as u32;
        let seed = seed_from_env(0x7c5_c051);
        let make = || Dut(HomaTxSchedN16::new());
        tx_sched_model::run_seeds("tx sched co-sim", make, seed, 6, n)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
