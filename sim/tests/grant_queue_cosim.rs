//! Co-simulation of the generated grant generator over 1,024 message-table entries
//! (`hw/rtl/homa_rx_grant_n1024.v`) under Verilator against
//! `homa_hw::grant_queue_model::QueueReference` (`proto::policy` at packet granularity):
//! closed-loop DATA traffic of 1 B to 1 MB messages from up to 200 peers, every entry of the
//! table held at once, with losses repaired later, duplicates, repairs cut across packets,
//! reordering, random gaps and back-pressure on the GRANT output. Every GRANT (peer, id,
//! ports, offset, priority, order), every decision's moment and the counters must match.
//! `HOMA_HW_SEED` (hex) replays a seed; `HOMA_HW_FRAMES` sets the events per run.

#![allow(non_snake_case)]

#[cfg(not(homa_rtl))]
#[test]
fn grant_queue_cosim__SKIPPED_verilator_missing() {
    println!("{}", homa_sim::rtl::SKIP_MESSAGE);
}

#[cfg(homa_rtl)]
mod built {
    use homa_hw::bench::{frames_from_env, seed_from_env};
    use homa_hw::grant_model::{Event, Grant, GrantConfig};
    use homa_hw::grant_queue_model::{FifoConfig, Load, QueueConfig, QueuePorts, run};
    use homa_sim::rtl::models::HomaRxGrantN1024;

    struct Dut(HomaRxGrantN1024);

    impl QueuePorts for Dut {
        fn reset(&mut self, cfg: &QueueConfig) {
            let m = &mut self.0;
            let g = cfg.grant;
            m.set_cfg_max_overcommit(u64::from(g.max_overcommit));
            m.set_cfg_max_sched_prio(u64::from(g.max_sched_prio));
            m.set_cfg_max_incoming(u64::from(g.max_incoming));
            m.set_cfg_max_payload(u64::from(cfg.max_payload));
            let w = g.window_table().map(u64::from);
            m.set_cfg_window_0(w[0]);
            m.set_cfg_window_1(w[1]);
            m.set_cfg_window_2(w[2]);
            m.set_cfg_window_3(w[3]);
            m.set_cfg_window_4(w[4]);
            m.set_cfg_window_5(w[5]);
            m.set_cfg_window_6(w[6]);
            m.set_cfg_window_7(w[7]);
            m.set_cfg_window_8(w[8]);
            m.set_cfg_fifo_interval(u64::from(cfg.fifo.interval));
            m.set_cfg_fifo_increment(u64::from(cfg.fifo.increment));
            m.set_cfg_fifo_prio(u64::from(cfg.fifo.priority));
            m.reset(2);
        }

        fn drive(&mut self, ev: Option<(u32, &Event)>, grant_ready: bool) {
            let (index, e) = ev.map_or((0, Event::default()), |(i, e)| (i, *e));
            let m = &mut self.0;
            m.set_s_evt_valid(u64::from(ev.is_some()));
            m.set_s_evt_index(u64::from(index));
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

        fn dec_start(&self) -> bool {
            self.0.get_m_dec_start() == 1
        }

        fn fifo_start(&self) -> bool {
            self.0.get_m_fifo_start() == 1
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

        fn counters(&self) -> (u32, u32, u32, u32) {
            let m = &self.0;
            (
                m.get_messages_tracked() as u32,
                m.get_messages_queued() as u32,
                m.get_grants_sent() as u32,
                m.get_decisions() as u32,
            )
        }

        fn edge(&mut self) {
            self.0.tick();
        }
    }

    #[test]
    fn grant_queue_cosim__matches_the_reference_with_every_entry_live() {
        let events = frames_from_env(30_000, 300_000) as u64;
        let seed = seed_from_env(0x6a47_9c51);
        // (K, top scheduled level, window, max_payload, max_incoming, peers, starts %, FIFO
        // grants every so many cycles, of so many bytes)
        let configs = [
            (8, 5, 15_000, 1442, 40_000_000, 200, 60, 2_000, 10_000),
            (4, 3, 30_000, 1400, 4_000_000, 64, 20, 0, 0),
            (1, 0, 0, 8900, 400_000, 7, 20, 300, 50_000),
            (8, 7, 0, 600, 80_000_000, 1000, 40, 5_000, 1_400),
        ];
        for (i, &(k, prio, window, max_payload, max_incoming, peers, starts, every, bytes)) in
            configs.iter().enumerate()
        {
            let s = seed.wrapping_add(i as u64);
            let cfg = QueueConfig {
                grant: GrantConfig {
                    max_overcommit: k,
                    max_sched_prio: prio,
                    max_incoming,
                    window,
                },
                max_payload,
                fifo: FifoConfig {
                    interval: every,
                    increment: bytes,
                    priority: 6,
                },
            };
            let load = Load {
                events,
                entries: 1024,
                peers,
                offer: 70,
                starts,
            };
            let mut dut = Dut(HomaRxGrantN1024::new());
            let st = run(&mut dut, s, load, cfg).unwrap_or_else(|e| panic!("{e}"));
            eprintln!("grant queue co-sim: seed {s:#x}, {cfg:?}: {st:?}");
            assert!(st.grants > 100, "too few GRANTs to mean anything: {st:?}");
            if cfg.fifo.enabled() {
                assert!(st.fifo_grants > 10, "too few FIFO grants: {st:?}");
            }
            if i == 0 {
                assert!(st.most_tracked >= 1000, "the table filled: {st:?}");
            }
        }
    }
}
