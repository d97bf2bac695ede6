//! Co-simulation of the generated GRANT framers (`hw/rtl/homa_rx_grant_framer_w512.v` and
//! `_w64.v`) under Verilator with `homa_hw::grant_framer_model`'s bench: random GRANTs
//! offered with gaps, random back-pressure. Every frame must equal `proto::wire`'s GRANT
//! byte for byte and parse back. `HOMA_HW_SEED` (hex) replays a seed; `HOMA_HW_FRAMES` sets
//! the frames per run.

#![allow(non_snake_case)]

#[cfg(not(homa_rtl))]
#[test]
fn grant_framer_cosim__SKIPPED_verilator_missing() {
    println!("{}", homa_sim::rtl::SKIP_MESSAGE);
}

#[cfg(homa_rtl)]
mod built {
    use homa_hw::bench::{frames_from_env, seed_from_env};
    use homa_hw::grant_framer_model::{
        self, GrantFramerAnswer, GrantFramerConfig, GrantFramerPorts,
    };
    use homa_hw::grant_model::Grant;
    use homa_sim::rtl::models::{HomaRxGrantFramerW64, HomaRxGrantFramerW512};
    use homa_sim::rtl::words_to_le_bytes;

    /// A framer model under the bench: `$bytes` a beat, `$get_data` reads `m_axis_tdata` as
    /// bytes.
    macro_rules! framer_dut {
        ($dut:ident, $model:ty, $bytes:expr, $get_data:expr) => {
            struct $dut($model);

            impl GrantFramerPorts for $dut {
                const BYTES: usize = $bytes;

                fn reset(&mut self, cfg: &GrantFramerConfig) {
                    self.0.set_cfg_mac(cfg.mac);
                    self.0.set_cfg_ip(u64::from(cfg.ip));
                    self.0.set_cfg_ctl_priority(u64::from(cfg.ctl_priority));
                    self.0.reset(2);
                }

                fn drive(&mut self, g: Option<&Grant>, tready: bool) -> GrantFramerAnswer {
                    let m = &mut self.0;
                    m.set_s_grant_valid(u64::from(g.is_some()));
                    if let Some(g) = g {
                        m.set_s_grant_mac(g.mac);
                        m.set_s_grant_peer(u64::from(g.peer));
                        m.set_s_grant_sport(u64::from(g.sport));
                        m.set_s_grant_dport(u64::from(g.dport));
                        m.set_s_grant_id(g.id);
                        m.set_s_grant_offset(u64::from(g.offset));
                        m.set_s_grant_priority(u64::from(g.priority));
                    }
                    m.set_m_axis_tready(u64::from(tready));
                    let mut bytes = [0u8; 64];
                    bytes[..$bytes].copy_from_slice(&($get_data)(&*m));
                    GrantFramerAnswer {
                        grant_ready: m.get_s_grant_ready() == 1,
                        beat: (m.get_m_axis_tvalid() == 1)
                            .then(|| (bytes, m.get_m_axis_tkeep(), m.get_m_axis_tlast() == 1)),
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
        HomaRxGrantFramerW512,
        64,
        |m: &HomaRxGrantFramerW512| words_to_le_bytes(&m.get_m_axis_tdata())[..64].to_vec()
    );

    framer_dut!(
        Dut64,
        HomaRxGrantFramerW64,
        8,
        |m: &HomaRxGrantFramerW64| m.get_m_axis_tdata().to_le_bytes().to_vec()
    );

    #[test]
    fn grant_framer_cosim__frames_match_proto_wire_under_back_pressure() {
        let n = frames_from_env(1_000, 20_000) as u64;
        let seed = seed_from_env(0x6f7a_c051);
        let make = || Dut512(HomaRxGrantFramerW512::new());
        grant_framer_model::run_seeds("grant framer co-sim", make, seed, 2, n)
            .unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn grant_framer_cosim__w64_frames_match_proto_wire_under_back_pressure() {
        let n = frames_from_env(1_000, 20_000) as u64;
        let seed = seed_from_env(0x6f7a_c641);
        let make = || Dut64(HomaRxGrantFramerW64::new());
        grant_framer_model::run_seeds("grant framer w64 co-sim", make, seed, 2, n)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
