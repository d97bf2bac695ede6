//! [`GrantScheduler16`] against [`crate::grant_model::Reference`] (`proto::policy` restated
//! as `core` applies it), with the direct `simulate()` loop: closed-loop DATA traffic with
//! losses, duplicates and reordering, random gaps and GRANT back-pressure
//! (`HOMA_HW_SEED` replays a run).
#![allow(non_snake_case)]

use super::*;
use crate::bench::seed_from_env;
use crate::grant_model::{self, Event, Grant, GrantConfig, GrantPorts};

struct Bench {
    uut: GrantScheduler16,
}

impl Bench {
    fn new() -> Self {
        let uut = GrantScheduler16::top_level();
        Bench { uut }
    }

    fn half(&mut self, high: bool) {
        clock_half(&mut self.uut, |u| &mut u.clock, high);
    }
}

impl GrantPorts for Bench {
    fn reset(&mut self, cfg: &GrantConfig) {
        let u = &mut self.uut;
        u.cfg_max_overcommit.next = u64::from(cfg.max_overcommit).into();
        u.cfg_max_sched_prio.next = u64::from(cfg.max_sched_prio).into();
        u.cfg_max_incoming.next = u64::from(cfg.max_incoming).into();
        let w = cfg.window_table().map(|x| Bits::<32>::from(u64::from(x)));
        u.cfg_window_0.next = w[0];
        u.cfg_window_1.next = w[1];
        u.cfg_window_2.next = w[2];
        u.cfg_window_3.next = w[3];
        u.cfg_window_4.next = w[4];
        u.cfg_window_5.next = w[5];
        u.cfg_window_6.next = w[6];
        u.cfg_window_7.next = w[7];
        u.cfg_window_8.next = w[8];
        u.reset.next = true;
        for _ in 0..2 {
            self.half(false);
            self.half(true);
        }
        self.uut.reset.next = false;
    }

    fn drive(&mut self, ev: Option<&Event>, grant_ready: bool) {
        let e = ev.copied().unwrap_or_default();
        let u = &mut self.uut;
        u.s_evt_valid.next = ev.is_some();
        u.s_evt_peer.next = u64::from(e.peer).into();
        u.s_evt_id.next = e.id.into();
        u.s_evt_sport.next = u64::from(e.sport).into();
        u.s_evt_dport.next = u64::from(e.dport).into();
        u.s_evt_mac.next = e.mac.into();
        u.s_evt_length.next = u64::from(e.length).into();
        u.s_evt_incoming.next = u64::from(e.incoming).into();
        u.s_evt_new.next = u64::from(e.new).into();
        u.s_evt_end.next = u64::from(e.end).into();
        u.m_grant_ready.next = grant_ready;
        self.half(false);
    }

    fn evt_ready(&self) -> bool {
        self.uut.s_evt_ready.val()
    }

    fn grant(&self) -> Option<Grant> {
        let u = &self.uut;
        u.m_grant_valid.val().then(|| Grant {
            peer: u.m_grant_peer.val().index() as u32,
            mac: u.m_grant_mac.val().to_u64(),
            id: u.m_grant_id.val().to_u64(),
            sport: u.m_grant_sport.val().index() as u16,
            dport: u.m_grant_dport.val().index() as u16,
            offset: u.m_grant_offset.val().index() as u32,
            priority: u.m_grant_priority.val().index() as u8,
        })
    }

    fn counters(&self) -> (u32, u32, u32) {
        let u = &self.uut;
        (
            u.messages_tracked.val().index() as u32,
            u.grants_sent.val().index() as u32,
            u.table_full.val().index() as u32,
        )
    }

    fn edge(&mut self) {
        self.half(true);
    }
}

fn cfg(max_overcommit: u8, window: u32) -> GrantConfig {
    GrantConfig {
        max_overcommit,
        max_sched_prio: 5,
        max_incoming: 400_000,
        window,
    }
}

#[test]
fn grant_scheduler__matches_reference_on_random_traffic() {
    let seed = seed_from_env(0x6A47_0001);
    for (i, c) in [cfg(8, 0), cfg(2, 10_000), cfg(1, 0)]
        .into_iter()
        .enumerate()
    {
        let s = seed.wrapping_add(i as u64);
        eprintln!("grant random run: seed = {s:#x} (HOMA_HW_SEED to replay), {c:?}");
        let st =
            grant_model::run(&mut Bench::new(), s, 400, c, 12).unwrap_or_else(|e| panic!("{e}"));
        eprintln!("  {st:?}");
        assert!(st.grants > 20, "too few grants to mean anything: {st:?}");
    }
}
