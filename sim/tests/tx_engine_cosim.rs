//! Co-simulation of the generated transmit engine (`hw/rtl/homa_tx_engine_w512.v`: scheduler,
//! job FIFO, DATA framer) under Verilator with `homa_hw::tx_engine_model`'s host, receiver and
//! DMA read server: SEND_MESSAGE descriptors of 1 B to 200 kB and RETRANSMIT ranges, GRANTs
//! bit by bit, reads answered after 5-65 cycles, back-pressure everywhere. Every frame is
//! parsed by `proto::wire` and must be byte-exact, cut as `proto::core` cuts it, at the right
//! priority, never past the grants; every payload byte the host's; one `TX_DONE` per
//! descriptor that asked for it, in order. `HOMA_HW_SEED` (hex) replays a seed;
//! `HOMA_HW_FRAMES` sets the messages per run.

#![allow(non_snake_case)]

#[cfg(not(homa_rtl))]
#[test]
fn tx_engine_cosim__SKIPPED_verilator_missing() {
    println!("{}", homa_sim::rtl::SKIP_MESSAGE);
}

#[cfg(homa_rtl)]
mod built {
    use homa_hw::bench::{frames_from_env, seed_from_env};
    use homa_hw::tx_engine_model::{self, EngineAnswer, EngineOffer, EnginePorts};
    use homa_sim::rtl::models::HomaTxEngineW512;
    use homa_sim::rtl::{words_from_le_bytes, words_to_le_bytes};

    struct Dut(HomaTxEngineW512);

    impl EnginePorts for Dut {
        fn reset(&mut self) {
            self.0.reset(2);
        }

        fn drive(&mut self, o: &EngineOffer) -> EngineAnswer {
            let m = &mut self.0;
            let d = o.desc.unwrap_or_default();
            let g = o.grant.unwrap_or_default();
            m.set_cfg_unsched_bytes(u64::from(o.sched.unsched_bytes));
            m.set_cfg_max_payload(u64::from(o.sched.max_payload));
            m.set_cfg_cutoff1(u64::from(o.sched.cutoffs[1]));
            m.set_cfg_cutoff2(u64::from(o.sched.cutoffs[2]));
            m.set_cfg_cutoff3(u64::from(o.sched.cutoffs[3]));
            m.set_cfg_cutoff4(u64::from(o.sched.cutoffs[4]));
            m.set_cfg_cutoff5(u64::from(o.sched.cutoffs[5]));
            m.set_cfg_cutoff6(u64::from(o.sched.cutoffs[6]));
            m.set_cfg_cutoff7(u64::from(o.sched.cutoffs[7]));
            m.set_cfg_mac(o.framer.mac);
            m.set_cfg_next_hop_mac(o.framer.next_hop_mac);
            m.set_cfg_ip(u64::from(o.framer.ip));
            m.set_cfg_cutoff_version(u64::from(o.framer.cutoff_version));
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
            m.set_s_grant_valid(u64::from(o.grant.is_some()));
            m.set_s_grant_peer(u64::from(g.peer));
            m.set_s_grant_id(g.id);
            m.set_s_grant_offset(u64::from(g.offset));
            m.set_s_grant_priority(u64::from(g.priority));
            m.set_m_rd_ready(u64::from(o.rd_ready));
            m.set_s_pay_valid(u64::from(o.pay.is_some()));
            m.set_m_axis_tready(u64::from(o.tready));
            m.set_m_done_ready(u64::from(o.done_ready));
            let data: [u32; 16] = words_from_le_bytes(&o.pay.unwrap_or([0; 64])).expect("64 bytes");
            m.set_s_pay_data(&data);
            let bytes: [u8; 64] = words_to_le_bytes(&m.get_m_axis_tdata())[..64]
                .try_into()
                .expect("512 bits");
            EngineAnswer {
                desc_ready: m.get_s_desc_ready() == 1,
                rd: (m.get_m_rd_valid() == 1).then(|| (m.get_m_rd_addr(), m.get_m_rd_len() as u32)),
                pay_ready: m.get_s_pay_ready() == 1,
                beat: (m.get_m_axis_tvalid() == 1)
                    .then(|| (bytes, m.get_m_axis_tkeep(), m.get_m_axis_tlast() == 1)),
                done: (m.get_m_done_valid() == 1).then(|| {
                    (
                        m.get_m_done_id(),
                        m.get_m_done_length() as u32,
                        m.get_m_done_cookie(),
                        m.get_m_done_index() as u32,
                    )
                }),
                queued: m.get_queued() as u32,
            }
        }

        fn edge(&mut self) {
            self.0.tick();
        }
    }

    #[test]
    fn tx_engine_cosim__sends_every_message_byte_exact_under_back_pressure() {
        let n = frames_from_env(30, 200) as u32;
        let seed = seed_from_env(0x7e_c051);
        let make = || Dut(HomaTxEngineW512::new());
        tx_engine_model::run_seeds("tx engine co-sim", make, seed, 4, n, 200_000)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
