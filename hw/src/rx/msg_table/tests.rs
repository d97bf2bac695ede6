//! [`MsgTable`] against [`crate::msg_table_model::TableModel`] with the direct `simulate()`
//! loop: a 16-entry table (two ways of 8, so that collisions happen) and the 1024-entry default, under
//! closed-loop traffic with losses, duplicates, reordering, gaps and back-pressure
//! (`HOMA_HW_SEED` replays a run).
#![allow(non_snake_case)]

use super::*;
use crate::bench::seed_from_env;
use crate::grant_model::{Event, Packet};
use crate::msg_table_model::{self, TablePorts};

struct Bench<const A: usize, const W: usize> {
    uut: MsgTable<A, W>,
}

impl<const A: usize, const W: usize> Bench<A, W> {
    fn half(&mut self, high: bool) {
        clock_half(&mut self.uut, |u| &mut u.clock, high);
    }
}

impl<const A: usize, const W: usize> TablePorts for Bench<A, W> {
    fn reset(&mut self) {
        reset_two_cycles(&mut self.uut, |u| &mut u.clock, |u| &mut u.reset);
    }

    fn drive(&mut self, pkt: Option<&Packet>, release: bool, evt_ready: bool) {
        let p = pkt.copied().unwrap_or(Packet {
            ev: Event::default(),
            offset: 0,
        });
        let u = &mut self.uut;
        u.s_pkt_valid.next = pkt.is_some();
        u.s_pkt_peer.next = u64::from(p.ev.peer).into();
        u.s_pkt_id.next = p.ev.id.into();
        u.s_pkt_sport.next = u64::from(p.ev.sport).into();
        u.s_pkt_dport.next = u64::from(p.ev.dport).into();
        u.s_pkt_mac.next = p.ev.mac.into();
        u.s_pkt_length.next = u64::from(p.ev.length).into();
        u.s_pkt_incoming.next = u64::from(p.ev.incoming).into();
        u.s_pkt_offset.next = u64::from(p.offset).into();
        u.s_pkt_end.next = u64::from(p.ev.end).into();
        u.s_pkt_release.next = release;
        u.m_evt_ready.next = evt_ready;
        self.half(false);
    }

    fn pkt_ready(&self) -> bool {
        self.uut.s_pkt_ready.val()
    }

    fn event(&self) -> Option<(u32, Event)> {
        let u = &self.uut;
        u.m_evt_valid.val().then(|| {
            (
                u.m_evt_index.val().index() as u32,
                Event {
                    peer: u.m_evt_peer.val().index() as u32,
                    id: u.m_evt_id.val().to_u64(),
                    sport: u.m_evt_sport.val().index() as u16,
                    dport: u.m_evt_dport.val().index() as u16,
                    mac: u.m_evt_mac.val().to_u64(),
                    length: u.m_evt_length.val().index() as u32,
                    incoming: u.m_evt_incoming.val().index() as u32,
                    new: u.m_evt_new.val().index() as u32,
                    end: u.m_evt_end.val().index() as u32,
                },
            )
        })
    }

    fn counters(&self) -> (u32, u32, u32) {
        let u = &self.uut;
        (
            u.holes_forgotten.val().index() as u32,
            u.dropped_late.val().index() as u32,
            u.collisions.val().index() as u32,
        )
    }

    fn fate(&self) -> Option<bool> {
        let u = &self.uut;
        u.m_fate_valid.val().then(|| u.m_fate_collision.val())
    }

    fn edge(&mut self) {
        self.half(true);
    }
}

#[test]
fn msg_table__small_table_matches_reference_with_collisions() {
    let seed = seed_from_env(0x7ab1_0001);
    eprintln!("msg table (16 entries): seed = {seed:#x} (HOMA_HW_SEED to replay)");
    let mut b = Bench {
        uut: MsgTable::<4, 3>::top_level(),
    };
    let (events, drops, collisions) =
        msg_table_model::run(&mut b, seed, 1500, 4, 12).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("  {events} events, {drops} drops, {collisions} collisions");
    assert!(
        events > 500 && drops > 0 && collisions > 0,
        "{events} {drops} {collisions}"
    );
}

#[test]
fn msg_table__1024_entries_match_reference() {
    let seed = seed_from_env(0x7ab1_0002);
    eprintln!("msg table (1024 entries): seed = {seed:#x} (HOMA_HW_SEED to replay)");
    let mut b = Bench {
        uut: MsgTable1024::top_level(),
    };
    let (events, drops, _) =
        msg_table_model::run(&mut b, seed, 800, 10, 12).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("  {events} events, {drops} drops");
    assert!(events > 300, "{events}");
}
