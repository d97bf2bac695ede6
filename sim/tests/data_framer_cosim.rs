//! Co-simulation of the generated DATA framers (`hw/rtl/homa_tx_data_framer_w512.v` and
//! `_w64.v`) under Verilator with `homa_hw::data_framer_model`'s bench: random jobs (every
//! header field random, payloads of 1 B to 9000 B), a DMA read server placing each payload
//! at the width's payload lane (26 or 2) with garbage around it and gaps, back-pressure on
//! frames and `TX_DONE`. Every frame must equal `proto::wire`'s DATA byte for byte, and every
//! `TX_DONE` come once, in order. `HOMA_HW_SEED` (hex) replays a seed; `HOMA_HW_FRAMES` sets
//! the jobs per run.

#![allow(non_snake_case)]

#[cfg(not(homa_rtl))]
#[test]
fn data_framer_cosim__SKIPPED_verilator_missing() {
    println!("{}", homa_sim::rtl::SKIP_MESSAGE);
}

#[cfg(homa_rtl)]
mod built {
    use homa_hw::bench::{frames_from_env, seed_from_env};
    use homa_hw::data_framer_model::{self, FramerAnswer, FramerOffer, FramerPorts};
    use homa_sim::rtl::models::{HomaTxDataFramerW64, HomaTxDataFramerW512};
    use homa_sim::rtl::{words_from_le_bytes, words_to_le_bytes};

    /// A framer model under the bench: `$bytes` a beat, `$set_pay` drives `s_pay_data` from
    /// the offer's bytes, `$get_data` reads `m_axis_tdata` as bytes.
    macro_rules! framer_dut {
        ($dut:ident, $model:ty, $bytes:expr, $set_pay:expr, $get_data:expr) => {
            struct $dut($model);

            impl FramerPorts for $dut {
                const BYTES: usize = $bytes;

                fn reset(&mut self) {
                    self.0.reset(2);
                }

                fn drive(&mut self, o: &FramerOffer) -> FramerAnswer {
                    let m = &mut self.0;
                    m.set_cfg_mac(o.cfg.mac);
                    m.set_cfg_next_hop_mac(o.cfg.next_hop_mac);
                    m.set_cfg_ip(u64::from(o.cfg.ip));
                    m.set_cfg_cutoff_version(u64::from(o.cfg.cutoff_version));
                    let j = o.job.unwrap_or_default();
                    m.set_s_job_valid(u64::from(o.job.is_some()));
                    m.set_s_job_offset(u64::from(j.offset));
                    m.set_s_job_len(u64::from(j.len));
                    m.set_s_job_priority(u64::from(j.priority));
                    m.set_s_job_retransmit(u64::from(j.retransmit));
                    m.set_s_job_incoming(u64::from(j.incoming));
                    m.set_s_job_last(u64::from(j.last));
                    m.set_s_job_no_completion(u64::from(j.no_completion));
                    m.set_s_job_peer(u64::from(j.peer));
                    m.set_s_job_sport(u64::from(j.sport));
                    m.set_s_job_dport(u64::from(j.dport));
                    m.set_s_job_id(j.id);
                    m.set_s_job_length(u64::from(j.length));
                    m.set_s_job_cookie(j.cookie);
                    m.set_s_job_index(u64::from(j.index));
                    m.set_s_pay_valid(u64::from(o.pay.is_some()));
                    let pay = o.pay.unwrap_or([0; 64]);
                    ($set_pay)(&mut *m, &pay[..$bytes]);
                    m.set_m_axis_tready(u64::from(o.tready));
                    m.set_m_done_ready(u64::from(o.done_ready));
                    let mut bytes = [0u8; 64];
                    bytes[..$bytes].copy_from_slice(&($get_data)(&*m));
                    FramerAnswer {
                        job_ready: m.get_s_job_ready() == 1,
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
                        frames: m.get_frames() as u32,
                    }
                }

                fn edge(&mut self) {
                    self.0.tick();
                }
            }
        };
    }

    framer_dut!(
        Dut512,
        HomaTxDataFramerW512,
        64,
        |m: &mut HomaTxDataFramerW512, pay: &[u8]| {
            let data: [u32; 16] = words_from_le_bytes(pay).expect("64 bytes");
            m.set_s_pay_data(&data);
        },
        |m: &HomaTxDataFramerW512| words_to_le_bytes(&m.get_m_axis_tdata())[..64].to_vec()
    );

    framer_dut!(
        Dut64,
        HomaTxDataFramerW64,
        8,
        |m: &mut HomaTxDataFramerW64, pay: &[u8]| {
            m.set_s_pay_data(u64::from_le_bytes(pay.try_into().expect("8 bytes")));
        },
        |m: &HomaTxDataFramerW64| m.get_m_axis_tdata().to_le_bytes().to_vec()
    );

    #[test]
    fn data_framer_cosim__frames_match_proto_wire_under_back_pressure() {
        let n = frames_from_env(300, 3_000) as u32;
        let seed = seed_from_env(0xda7a_c051);
        let make = || Dut512(HomaTxDataFramerW512::new());
        data_framer_model::run_seeds("data framer co-sim", make, seed, 4, n)
            .unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn data_framer_cosim__w64_frames_match_proto_wire_under_back_pressure() {
        let n = frames_from_env(300, 3_000) as u32;
        let seed = seed_from_env(0xda7a_c641);
        let make = || Dut64(HomaTxDataFramerW64::new());
        data_framer_model::run_seeds("data framer w64 co-sim", make, seed, 4, n)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
