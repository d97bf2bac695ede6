//! Behavioural tests of the whole fabric (queueing, priorities, drops, impairments, timing).

#![allow(non_snake_case)]

use super::*;
use crate::time::{US, serialization_ps};

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Pkt {
    pub src: HostId,
    pub dst: HostId,
    pub bytes: u32,
    pub prio: u8,
    pub id: u64,
}

impl FabricPacket for Pkt {
    fn src(&self) -> HostId {
        self.src
    }
    fn dst(&self) -> HostId {
        self.dst
    }
    fn wire_bytes(&self) -> u32 {
        self.bytes
    }
    fn priority(&self) -> u8 {
        self.prio
    }
}

fn pkt(src: HostId, dst: HostId, bytes: u32, prio: u8, id: u64) -> Pkt {
    Pkt {
        src,
        dst,
        bytes,
        prio,
        id,
    }
}

fn run_to_end(fabric: &mut Fabric<Pkt>) -> Vec<Delivery<Pkt>> {
    let mut out = Vec::new();
    fabric.advance(Ps::MAX, &mut out);
    out
}

fn fabric(topology: Topology, config: FabricConfig) -> Fabric<Pkt> {
    match Fabric::new(topology, config) {
        Ok(f) => f,
        Err(e) => panic!("{e}"),
    }
}

const SMALL: Topology = Topology::TwoLevel {
    racks: 3,
    hosts_per_rack: 4,
    aggregation_switches: 4,
};

/// Sends `frames` back to back from `src` to `dst` at time 0 and returns the last delivery time.
fn lone_message(f: &mut Fabric<Pkt>, src: HostId, dst: HostId, frames: &[u32]) -> Ps {
    for (i, &b) in frames.iter().enumerate() {
        f.host_send(0, pkt(src, dst, b, 0, i as u64));
    }
    let out = run_to_end(f);
    assert_eq!(out.len(), frames.len());
    out.iter().map(|d| d.time).max().unwrap_or(0)
}

#[test]
fn ideal_delivery_ps__matches_idle_fabric_exactly() {
    // Frame lists where no frame is more than 4x (the core/edge rate ratio) the next one.
    let messages: [&[u32]; 6] = [
        &[64],
        &[1538],
        &[1538, 1538, 1538, 400],
        &[100, 200, 300, 1538, 1538, 900, 1538, 500],
        &[84, 84, 84],
        &[
            9000, 9000, 3000, 1538, 1538, 1538, 1538, 1538, 1538, 1538, 1538, 1538, 1538, 700,
        ],
    ];
    let configs = [
        FabricConfig::default(),
        FabricConfig {
            link_delay_ps: 123_456,
            switch_delay_ps: 77_000,
            host_tx_delay_ps: 0,
            host_rx_delay_ps: 1,
            host_link_bps: 25_000_000_000,
            core_link_bps: 100_000_000_000,
            ..FabricConfig::default()
        },
    ];
    let paths = [
        (Topology::SingleSwitch { hosts: 3 }, 0, 2),
        (SMALL, 0, 1),  // same rack
        (SMALL, 0, 11), // cross rack
        (SMALL, 5, 4),  // same rack (rack 1)
        (SMALL, 9, 2),  // cross rack
    ];
    for config in &configs {
        for (topology, src, dst) in paths {
            for frames in messages {
                for seed in 0..5 {
                    let config = FabricConfig {
                        seed,
                        ..config.clone()
                    };
                    let mut f = fabric(topology, config);
                    let ideal = f.ideal_delivery_ps(src, dst, frames);
                    let got = lone_message(&mut f, src, dst, frames);
                    assert_eq!(
                        got, ideal,
                        "{topology:?} {src}->{dst} {frames:?} seed {seed}"
                    );
                }
            }
        }
    }
}

#[test]
fn ideal_delivery_ps__is_a_lower_bound_when_frames_collide_in_the_core() {
    let frames = [9000, 64, 9000, 64, 64, 9000, 64];
    let mut slower = 0;
    for seed in 0..40 {
        let config = FabricConfig {
            seed,
            ..FabricConfig::default()
        };
        let mut f = fabric(SMALL, config);
        let ideal = f.ideal_delivery_ps(0, 8, &frames);
        let got = lone_message(&mut f, 0, 8, &frames);
        assert!(got >= ideal, "seed {seed}: {got} < {ideal}");
        slower += usize::from(got > ideal);
        assert!(got < ideal + 10 * US);
    }
    assert!(slower < 40);
}

#[test]
fn advance__delivers_in_time_order_only_up_to_until() {
    let mut f = fabric(Topology::SingleSwitch { hosts: 2 }, FabricConfig::default());
    f.host_send(0, pkt(0, 1, 1538, 0, 1));
    f.host_send(0, pkt(1, 0, 64, 0, 2));
    let mut out = Vec::new();
    f.advance(1_000_000, &mut out);
    assert!(out.is_empty());
    let first = f.ideal_delivery_ps(1, 0, &[64]);
    f.advance(first, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].time, out[0].host, out[0].packet.id), (first, 0, 2));
    assert!(f.next_event_time().is_some());
    f.advance(Ps::MAX, &mut out);
    assert_eq!(out.len(), 2);
    assert_eq!(f.next_event_time(), None);
    assert_eq!(f.pending_events(), 0);
}

#[test]
fn switch_port__high_priority_overtakes_queued_low_priority() {
    let mut f = fabric(Topology::SingleSwitch { hosts: 3 }, FabricConfig::default());
    // Host 0 and host 1 both send to host 2: the switch port to host 2 gets twice its rate.
    for i in 0..10 {
        f.host_send(0, pkt(0, 2, 1500, 0, i));
        f.host_send(0, pkt(1, 2, 1500, 0, 100 + i));
    }
    // Sent last, at high priority, behind host 1's ten packets on host 1's (FIFO) NIC.
    f.host_send(0, pkt(1, 2, 1500, 7, 999));
    let out = run_to_end(&mut f);
    let pos = out
        .iter()
        .position(|d| d.packet.id == 999)
        .unwrap_or(usize::MAX);
    // It reaches the switch when about ten low-priority packets still wait there.
    assert!(
        pos <= 12,
        "high-priority packet delivered at position {pos}"
    );
    assert_eq!(out.len(), 21);
    assert!(out.windows(2).all(|w| w[0].time <= w[1].time));
}

#[test]
fn host_nic__is_fifo_whatever_the_priority() {
    let mut f = fabric(Topology::SingleSwitch { hosts: 2 }, FabricConfig::default());
    for i in 0..5 {
        f.host_send(0, pkt(0, 1, 1000, 0, i));
    }
    f.host_send(0, pkt(0, 1, 1000, 7, 5));
    let ids: Vec<u64> = run_to_end(&mut f).iter().map(|d| d.packet.id).collect();
    assert_eq!(ids, [0, 1, 2, 3, 4, 5]);
}

#[test]
fn host_nic__serves_priorities_when_asked() {
    let config = FabricConfig {
        nic_priorities: true,
        ..FabricConfig::default()
    };
    let mut f = fabric(Topology::SingleSwitch { hosts: 2 }, config);
    for i in 0..5 {
        f.host_send(0, pkt(0, 1, 1000, 0, i));
    }
    f.host_send(0, pkt(0, 1, 1000, 7, 5));
    let ids: Vec<u64> = run_to_end(&mut f).iter().map(|d| d.packet.id).collect();
    // Packet 0 is on the wire when the rest arrive: 5 goes next.
    assert_eq!(ids, [0, 5, 1, 2, 3, 4]);
}

#[test]
fn host_backlog_bytes__counts_until_serialized() {
    let config = FabricConfig::default();
    let mut f = fabric(Topology::SingleSwitch { hosts: 2 }, config.clone());
    f.host_send(0, pkt(0, 1, 1000, 0, 0));
    f.host_send(0, pkt(0, 1, 500, 0, 1));
    assert_eq!(f.host_backlog_bytes(0), 1500);
    assert_eq!(f.host_backlog_bytes(1), 0);
    assert_eq!(f.host_backlog_bytes(99), 0);
    let mut out = Vec::new();
    f.advance(
        config.host_tx_delay_ps + serialization_ps(1000, config.host_link_bps),
        &mut out,
    );
    assert_eq!(f.host_backlog_bytes(0), 500);
    f.advance(Ps::MAX, &mut out);
    assert_eq!(f.host_backlog_bytes(0), 0);
    assert_eq!(f.stats().max_host_backlog_bytes, 1500);
}

#[test]
fn host_send__rejects_unknown_hosts_and_clamps_past_times() {
    let mut f = fabric(Topology::SingleSwitch { hosts: 2 }, FabricConfig::default());
    f.host_send(0, pkt(0, 2, 100, 0, 0));
    f.host_send(0, pkt(5, 0, 100, 0, 0));
    assert_eq!(f.stats().invalid_packets, 2);
    assert_eq!(f.stats().packets_sent, 0);
    let mut out = Vec::new();
    f.advance(10 * US, &mut out);
    f.host_send(0, pkt(0, 1, 64, 0, 1));
    f.advance(Ps::MAX, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].time, 10 * US + f.ideal_delivery_ps(0, 1, &[64]));
}

#[test]
fn new__rejects_bad_settings() {
    let bad = Fabric::<Pkt>::new(Topology::SingleSwitch { hosts: 0 }, FabricConfig::default());
    assert!(matches!(
        bad,
        Err(FabricError::InvalidSetting {
            field: "topology.hosts",
            ..
        })
    ));
    let config = FabricConfig {
        reorder_rate: 2.0,
        ..FabricConfig::default()
    };
    let bad = Fabric::<Pkt>::new(Topology::paper(), config);
    assert!(matches!(
        bad,
        Err(FabricError::InvalidSetting {
            field: "reorder_rate",
            ..
        })
    ));
}
