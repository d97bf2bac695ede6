//! Co-simulation of the generated grant generator (`hw/rtl/homa_rx_grant_n16.v`) under
//! Verilator against `homa_hw::grant_model::Reference` (`proto::policy` as `proto::core`
//! applies it): closed-loop DATA traffic of many interleaved messages of 1 B to 1 MB from a
//! few peers, with losses repaired later, duplicates, reordering, random gaps and
//! back-pressure on the GRANT output; every GRANT (peer, id, ports, offset, priority, order)
//! and the counters must match. `HOMA_HW_SEED` (hex) replays a seed; `HOMA_HW_FRAMES` sets
//! the events per run.

#![allow(non_snake_case)]

#[cfg(not(homa_rtl))]
#[test]
fn grant_cosim__SKIPPED_verilator_missing() {
    println!("{}", homa_sim::rtl::SKIP_MESSAGE);
}

#[cfg(homa_rtl)]
mod built {
    use homa_hw::bench::{frames_from_env, seed_from_env};
    use homa_hw::grant_model::{self, Event, Grant, GrantConfig, GrantPorts};
    use homa_sim::rtl::models::HomaRxGrantN16;

    struct Dut(HomaRxGrantN16);

    impl GrantPorts for Dut {
        fn reset(&mut self, cfg: &GrantConfig) {
            let m = &mut self.0;
            m.set_cfg_max_overcommit(u64::from(cfg.max_overcommit));
            m.set_cfg_max_sched_prio(u64::from(cfg.max_sched_prio));
            m.set_cfg_max_incoming(u64::from(cfg.max_incoming));
            let w = cfg.window_table().map(u64::from);
            m.set_cfg_window_0(w[0]);
            m.set_cfg_window_1(w[1]);
            m.set_cfg_window_2(w[2]);
            m.set_cfg_window_3(w[3]);
            m.set_cfg_window_4(w[4]);
            m.set_cfg_window_5(w[5]);
            m.set_cfg_window_6(w[6]);
            m.set_cfg_window_7(w[7]);
            m.set_cfg_window_8(w[8]);
            m.reset(2);
        }

        fn drive(&mut self, ev: Option<&Event>, grant_ready: bool) {
            let e = ev.copied().unwrap_or_default();
            let m = &mut self.0;
            m.set_s_evt_valid(u64::from(ev.is_some()));
            m.set_s_evt_peer(u64::from(e.peer));
            m.set_s_evt_id(e.id);
            m.set_s_evt_sport(u64::from(e.sport));
            m.set_s_evt_dport(u64::from(e.dport));
            m.set_s_evt_mac(e.mac);
            m.set_s_evt_length(u64::from(e.length));
            m.set_s_evt_incoming(u64::from(e.incoming));
            m.set_s_evt_new(u64::from(e.new));
            m.set_s_evt_end(u64::from(e.end));
            m.set_m_grant_ready(u64::from(grant_ready));
        }

        fn evt_ready(&self) -> bool {
            self.0.get_s_evt_ready() == 1
        }

        fn grant(&self) -> Option<Grant> {
            let m = &self.0;
            (m.get_m_grant_valid() == 1).then(|| Grant {
                peer: m.get_m_grant_peer() as u32,
                mac: m.get_m_grant_mac(),
                id: m.get_m_grant_id(),
                sport: m.get_m_grant_sport() as u16,
                dport: m.get_m_grant_dport() as u16,
                offset: m.get_m_grant_offset() as u32,
                priority: m.get_m_grant_priority() as u8,
            })
        }

        fn counters(&self) -> (u32, u32, u32) {
            let m = &self.0;
            (
                m.get_messages_tracked() as u32,
                m.get_grants_sent() as u32,
                m.get_table_full() as u32,
            )
        }

        fn edge(&mut self) {
            self.0.tick();
        }
    }

    #[test]
    fn grant_cosim__matches_the_reference_on_random_traffic() {
        let events = frames_from_env(3_000, 30_000) as u64;
        let seed = seed_from_env(0x6a47_c051);
        let configs = [
            (8, 5, 0),
            (4, 3, 0),
            (2, 5, 10_000),
            (1, 0, 0),
            (8, 7, 30_000),
        ];
        for (i, &(max_overcommit, max_sched_prio, window)) in configs.iter().enumerate() {
            let cfg = GrantConfig {
                max_overcommit,
                max_sched_prio,
                max_incoming: 400_000,
                window,
            };
            let s = seed.wrapping_add(i as u64);
            eprintln!(
                "grant co-sim: seed {s:#x} (HOMA_HW_SEED to replay), {events} events, {cfg:?}"
            );
            let t = std::time::Instant::now();
            let st = grant_model::run(&mut Dut(HomaRxGrantN16::new()), s, events, cfg, 12)
                .unwrap_or_else(|e| panic!("{e}"));
            eprintln!(
                "  {st:?}: {:.0} cycles/s",
                st.cycles as f64 / t.elapsed().as_secs_f64()
            );
            assert!(
                st.grants > events / 4,
                "too few grants to mean anything: {st:?}"
            );
        }
    }
}
