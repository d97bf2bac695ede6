//! [`GrantQueue`] in rust-hdl's simulator against the reference: the shared bench of
//! [`crate::grant_queue_model`] over 64 entries.
#![allow(non_snake_case)]

use super::*;
use crate::bench::seed_from_env;
use crate::grant_model::{Event, Grant, GrantConfig};
use crate::grant_queue_model::{FifoConfig, Load, QueueConfig, QueuePorts, RunStats, replay, run};

struct Sim<const A: usize> {
    uut: GrantQueue<A>,
}

impl<const A: usize> QueuePorts for Sim<A> {
    fn reset(&mut self, cfg: &QueueConfig) {
        let u = &mut self.uut;
        let g = cfg.grant;
        u.cfg_max_overcommit.next = u64::from(g.max_overcommit).into();
        u.cfg_max_sched_prio.next = u64::from(g.max_sched_prio).into();
        u.cfg_max_incoming.next = u64::from(g.max_incoming).into();
        u.cfg_max_payload.next = u64::from(cfg.max_payload).into();
        let w = g.window_table();
        u.cfg_window_0.next = u64::from(w[0]).into();
        u.cfg_window_1.next = u64::from(w[1]).into();
        u.cfg_window_2.next = u64::from(w[2]).into();
        u.cfg_window_3.next = u64::from(w[3]).into();
        u.cfg_window_4.next = u64::from(w[4]).into();
        u.cfg_window_5.next = u64::from(w[5]).into();
        u.cfg_window_6.next = u64::from(w[6]).into();
        u.cfg_window_7.next = u64::from(w[7]).into();
        u.cfg_window_8.next = u64::from(w[8]).into();
        u.cfg_fifo_interval.next = u64::from(cfg.fifo.interval).into();
        u.cfg_fifo_increment.next = u64::from(cfg.fifo.increment).into();
        u.cfg_fifo_prio.next = u64::from(cfg.fifo.priority).into();
        self.drive(None, false);
        reset_two_cycles(&mut self.uut, |u| &mut u.clock, |u| &mut u.reset);
    }

    fn drive(&mut self, ev: Option<(u32, &Event)>, grant_ready: bool) {
        let u = &mut self.uut;
        let (index, e) = ev.map_or((0, Event::default()), |(i, e)| (i, *e));
        u.s_evt_valid.next = ev.is_some();
        u.s_evt_index.next = u64::from(index).into();
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
        clock_half(&mut self.uut, |u| &mut u.clock, false);
    }

    fn evt_ready(&self) -> bool {
        self.uut.s_evt_ready.val()
    }

    fn dec_start(&self) -> bool {
        self.uut.m_dec_start.val()
    }

    fn fifo_start(&self) -> bool {
        self.uut.m_fifo_start.val()
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

    fn counters(&self) -> (u32, u32, u32, u32) {
        let u = &self.uut;
        (
            u.messages_tracked.val().index() as u32,
            u.messages_queued.val().index() as u32,
            u.grants_sent.val().index() as u32,
            u.decisions.val().index() as u32,
        )
    }

    fn edge(&mut self) {
        clock_half(&mut self.uut, |u| &mut u.clock, true);
    }
}

fn cfg(max_overcommit: u8, window: u32, max_payload: u32, max_incoming: u32) -> QueueConfig {
    QueueConfig {
        grant: GrantConfig {
            max_overcommit,
            max_sched_prio: 5,
            max_incoming,
            window,
        },
        max_payload,
        fifo: FifoConfig::default(),
    }
}

/// [`run`] over 64 entries: `events` DATA events from `peers` peers, offered in 60 % of the
/// cycles, a new message before one packet in five.
fn run_64(seed: u64, cfg: QueueConfig, events: u64, peers: u64) -> RunStats {
    let mut sim = Sim::<6> {
        uut: GrantQueue::top_level(),
    };
    let load = Load {
        events,
        entries: 64,
        peers,
        offer: 60,
        starts: 20,
    };
    let st = run(&mut sim, seed, load, cfg).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{st:?}");
    st
}

/// Messages above 1,023 packets share the last bucket (at 600 bytes a packet, those above
/// 613,800 bytes), and a payload of 0 is taken as 1.
#[test]
fn grant_queue__matches_the_reference_over_64_entries() {
    let cases = [
        (0x6a0_0001u64, cfg(8, 0, 1442, 2_000_000), 4),
        (0x6a0_0002, cfg(3, 20_000, 1400, 1_000_000), 12),
        (0x6a0_0003, cfg(1, 100_000, 600, 4_000_000), 40),
        // A budget the unscheduled bytes alone use up: grants wait for messages to finish.
        // A payload of 0 (taken as 1 byte) puts most messages in the last bucket.
        (0x6a0_0004, cfg(8, 0, 0, 300_000), 40),
    ];
    for (i, (seed, cfg, peers)) in cases.into_iter().enumerate() {
        let tight = cfg.grant.max_incoming < 1_000_000;
        let st = run_64(seed_from_env(seed) + i as u64, cfg, 1_500, peers);
        assert!(st.grants > if tight { 5 } else { 50 }, "{st:?}");
        assert!(st.decisions > 100, "{st:?}");
        assert!(st.most_queued >= 16, "{st:?}");
    }
}

/// Two messages whose first packets come in one batch, the second with `rem_a` bytes left
/// and the first with `rem_b`: with K = 1 the one ahead in the queue is granted. Their keys
/// differ or tie exactly where `packets_left` says, so this pins the block's divider
/// (rounding up, the last bucket, a payload of 0) to the reference's.
fn first_granted(max_payload: u32, rem_a: u32, rem_b: u32) -> u64 {
    let cfg = QueueConfig {
        grant: GrantConfig {
            max_overcommit: 1,
            max_sched_prio: 0,
            max_incoming: u32::MAX,
            window: 2_000_000,
        },
        max_payload,
        fifo: FifoConfig::default(),
    };
    let first = |peer: u32, id: u64, rem: u32| Event {
        peer,
        id,
        sport: 1,
        dport: 2,
        mac: 3,
        length: rem + 100,
        incoming: 100,
        new: 100,
        end: 100,
    };
    let mut sim = Sim::<6> {
        uut: GrantQueue::top_level(),
    };
    let events = [(5, first(1, 10, rem_b)), (9, first(2, 20, rem_a))];
    let grants = replay(&mut sim, cfg, 64, &events).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(grants.len(), 1, "{grants:?}");
    grants[0].id
}

#[test]
fn grant_queue__keys_round_up_and_saturate_as_the_reference() {
    // (max_payload, remaining of A (second in), of B (first in), id granted: A 20, B 10)
    let cases = [
        (1000, 2000, 2001, 20),
        (1000, 1000, 1001, 20),
        (1000, 1, 1000, 10),
        (1000, 1001, 2000, 10),
        (600, 613_200, 613_201, 20),
        (600, 700_000, 613_201, 10),
        (1442, 1_000_000, 990_000, 10),
        (0, 1022, 1023, 20),
        (0, 5000, 1023, 10),
    ];
    for (mp, a, b, want) in cases {
        assert_eq!(
            first_granted(mp, a, b),
            want,
            "max_payload {mp}, A {a}, B {b}"
        );
    }
}

/// FIFO grants between the SRPT decisions: every GRANT, FIFO or not, is the reference's, in
/// order, under the same random traffic (a tight budget in the last case, so that the FIFO
/// grants, outside it, are most of the grants).
#[test]
fn grant_queue__fifo_grants_match_the_reference() {
    let cases = [
        (0x6a0_0101u64, 200, 5_000, cfg(2, 20_000, 1400, 1_000_000)),
        (0x6a0_0102, 97, 1_500, cfg(8, 0, 1442, 2_000_000)),
        (0x6a0_0103, 400, 60_000, cfg(1, 10_000, 1000, 200_000)),
    ];
    for (i, (seed, interval, increment, base)) in cases.into_iter().enumerate() {
        let cfg = QueueConfig {
            fifo: FifoConfig {
                interval,
                increment,
                priority: 6,
            },
            ..base
        };
        let st = run_64(seed_from_env(seed) + i as u64, cfg, 1_000, 12);
        assert!(st.fifo_grants > 10, "{st:?}");
        assert!(st.decisions > 100, "{st:?}");
    }
}
