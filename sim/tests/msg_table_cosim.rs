//! Co-simulation of the generated inbound message table (`hw/rtl/homa_rx_msg_table_a10.v`,
//! 1024 entries in block RAM) under Verilator against `homa_hw::msg_table_model::TableModel`:
//! closed-loop DATA traffic of many interleaved messages with losses, duplicates,
//! reordering, gaps and back-pressure; every event (new bytes counted by the table's ranges)
//! and the drop and collision counters must match. `HOMA_HW_SEED` (hex) replays a seed;
//! `HOMA_HW_FRAMES` sets the packets per run.

#![allow(non_snake_case)]

#[cfg(not(homa_rtl))]
#[test]
fn msg_table_cosim__SKIPPED_verilator_missing() {
    println!("{}", homa_sim::rtl::SKIP_MESSAGE);
}

#[cfg(homa_rtl)]
mod built {
    use homa_hw::bench::{frames_from_env, seed_from_env};
    use homa_hw::grant_model::{Event, Packet};
    use homa_hw::msg_table_model::{self, TablePorts};
    use homa_sim::rtl::models::HomaRxMsgTableA10;

    struct Dut(HomaRxMsgTableA10);

    impl TablePorts for Dut {
        fn reset(&mut self) {
            self.0.reset(2);
        }

        fn drive(&mut self, pkt: Option<&Packet>, release: bool, evt_ready: bool) {
            let p = pkt.copied().unwrap_or(Packet {
                ev: Event::default(),
                offset: 0,
            });
            let m = &mut self.0;
            m.set_s_pkt_valid(u64::from(pkt.is_some()));
            m.set_s_pkt_peer(u64::from(p.ev.peer));
            m.set_s_pkt_id(p.ev.id);
            m.set_s_pkt_sport(u64::from(p.ev.sport));
            m.set_s_pkt_dport(u64::from(p.ev.dport));
            m.set_s_pkt_mac(p.ev.mac);
            m.set_s_pkt_length(u64::from(p.ev.length));
            m.set_s_pkt_incoming(u64::from(p.ev.incoming));
            m.set_s_pkt_offset(u64::from(p.offset));
            m.set_s_pkt_end(u64::from(p.ev.end));
            m.set_s_pkt_release(u64::from(release));
            m.set_m_evt_ready(u64::from(evt_ready));
        }

        fn pkt_ready(&self) -> bool {
            self.0.get_s_pkt_ready() == 1
        }

        fn event(&self) -> Option<(u32, Event)> {
            let m = &self.0;
            (m.get_m_evt_valid() == 1).then(|| {
                (
                    m.get_m_evt_index() as u32,
                    Event {
                        peer: m.get_m_evt_peer() as u32,
                        id: m.get_m_evt_id(),
                        sport: m.get_m_evt_sport() as u16,
                        dport: m.get_m_evt_dport() as u16,
                        mac: m.get_m_evt_mac(),
                        length: m.get_m_evt_length() as u32,
                        incoming: m.get_m_evt_incoming() as u32,
                        new: m.get_m_evt_new() as u32,
                        end: m.get_m_evt_end() as u32,
                    },
                )
            })
        }

        fn counters(&self) -> (u32, u32, u32) {
            let m = &self.0;
            (
                m.get_holes_forgotten() as u32,
                m.get_dropped_late() as u32,
                m.get_collisions() as u32,
            )
        }

        fn fate(&self) -> Option<bool> {
            let m = &self.0;
            (m.get_m_fate_valid() == 1).then(|| m.get_m_fate_collision() == 1)
        }

        fn edge(&mut self) {
            self.0.tick();
        }
    }

    #[test]
    fn msg_table_cosim__matches_the_reference_on_random_traffic() {
        let packets = frames_from_env(5_000, 50_000) as u64;
        let seed = seed_from_env(0x7ab1_c051);
        for (i, live) in [4usize, 12, 40].into_iter().enumerate() {
            let s = seed.wrapping_add(i as u64);
            eprintln!(
                "msg table co-sim: seed {s:#x} (HOMA_HW_SEED to replay), {packets} packets, \
                 {live} messages live"
            );
            let (events, drops, collisions) =
                msg_table_model::run(&mut Dut(HomaRxMsgTableA10::new()), s, packets, 10, live)
                    .unwrap_or_else(|e| panic!("{e}"));
            eprintln!("  {events} events, {drops} drops, {collisions} collisions");
            assert!(events > packets / 2, "{events} events");
        }
    }
}
