//! Tests of the fabric under many packets: drops, incast, impairments, spraying, determinism.

#![allow(non_snake_case)]

use super::tests::Pkt;
use super::*;
use crate::rng::seeded_rng;
use crate::time::US;
use rand::RngExt;

fn fabric(topology: Topology, config: FabricConfig) -> Fabric<Pkt> {
    match Fabric::new(topology, config) {
        Ok(f) => f,
        Err(e) => panic!("{e}"),
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

/// Random traffic: `n` packets between random distinct hosts, one every `gap` ps.
fn random_traffic(f: &mut Fabric<Pkt>, n: u64, gap: Ps, seed: u64) -> Vec<Delivery<Pkt>> {
    let hosts = f.num_hosts();
    let mut rng = seeded_rng(seed);
    let mut out = Vec::new();
    for id in 0..n {
        let now = id * gap;
        f.advance(now, &mut out);
        let src = rng.random_range(0..hosts);
        let dst = (src + rng.random_range(1..hosts)) % hosts;
        let bytes = rng.random_range(64..=1538);
        let prio = rng.random_range(0..8);
        f.host_send(now, pkt(src, dst, bytes, prio, id));
    }
    f.advance(Ps::MAX, &mut out);
    out
}

#[test]
fn switch_port__drop_tail_counts_drops_and_bounds_the_queue() {
    let config = FabricConfig {
        port_buffer_bytes: Some(3_000),
        ..FabricConfig::default()
    };
    let mut f = fabric(Topology::SingleSwitch { hosts: 5 }, config);
    for src in 0..4 {
        for i in 0..10 {
            f.host_send(0, pkt(src, 4, 1_000, 0, (src * 100 + i) as u64));
        }
    }
    let mut out = Vec::new();
    f.advance(Ps::MAX, &mut out);
    let s = f.stats();
    assert_eq!(s.packets_sent, 40);
    assert!(s.buffer_drops > 0);
    assert_eq!(s.packets_delivered + s.buffer_drops, 40);
    assert_eq!(out.len() as u64, s.packets_delivered);
    assert!(s.max_switch_queue_bytes <= 3_000);
    assert_eq!(s.max_switch_queue_bytes, 3_000);
}

#[test]
fn incast__queue_bounded_by_buffer_and_everything_accounted() {
    let buffer = 64 * 1024;
    let config = FabricConfig {
        port_buffer_bytes: Some(buffer),
        ..FabricConfig::default()
    };
    let mut f = fabric(Topology::paper(), config);
    let receiver = 0;
    for src in 1..144 {
        for i in 0..20 {
            f.host_send(0, pkt(src, receiver, 1538, 0, (src * 1000 + i) as u64));
        }
    }
    let mut out = Vec::new();
    f.advance(Ps::MAX, &mut out);
    let s = f.stats();
    assert!(s.buffer_drops > 0);
    assert_eq!(s.packets_delivered + s.buffer_drops, 143 * 20);
    assert!(s.max_switch_queue_bytes <= buffer);
    assert!(s.max_switch_queue_bytes > buffer - 1538);
    let to_receiver = f
        .port_stats()
        .into_iter()
        .find(|p| p.kind == PortKind::ToHost { host: receiver })
        .map(|p| p.max_queued_bytes);
    assert_eq!(to_receiver, Some(s.max_switch_queue_bytes));
    assert!(out.iter().all(|d| d.host == receiver));
}

#[test]
fn incast__unlimited_buffer_delivers_everything_at_line_rate() {
    let mut f = fabric(Topology::paper(), FabricConfig::default());
    for src in 1..33 {
        for i in 0..10 {
            f.host_send(0, pkt(src, 0, 1538, 0, (src * 1000 + i) as u64));
        }
    }
    let mut out = Vec::new();
    f.advance(Ps::MAX, &mut out);
    assert_eq!(out.len(), 320);
    assert_eq!(f.stats().buffer_drops, 0);
    // The receiver's link is the bottleneck: deliveries end back to back.
    let per = crate::time::serialization_ps(1538, 10_000_000_000);
    let last = out.iter().map(|d| d.time).max().unwrap_or(0);
    assert!(last >= 320 * per, "{last}");
    assert!(last <= 320 * per + 10 * US, "{last}");
}

#[test]
fn impairments__rates_near_their_settings() {
    let config = FabricConfig {
        loss_rate: 0.1,
        duplicate_rate: 0.05,
        reorder_rate: 0.2,
        reorder_delay_ps: 20 * US,
        seed: 42,
        ..FabricConfig::default()
    };
    // Few hosts, so each pair carries enough packets to see overtaking.
    let mut f = fabric(Topology::SingleSwitch { hosts: 4 }, config);
    let n = 40_000;
    let out = random_traffic(&mut f, n, 400_000, 1);
    let s = f.stats();
    let near = |count: u64, expected: f64| {
        let tolerance = 4.0 * expected.sqrt() + 1.0;
        (count as f64 - expected).abs() <= tolerance
    };
    let kept = n - s.injected_losses;
    assert!(near(s.injected_losses, n as f64 * 0.1), "{s:?}");
    assert!(near(s.injected_reorders, kept as f64 * 0.2), "{s:?}");
    assert!(near(s.injected_duplicates, kept as f64 * 0.05), "{s:?}");
    assert_eq!(out.len() as u64, kept + s.injected_duplicates);
    // Reordering lets later packets of a pair of hosts overtake earlier ones.
    let mut last_id = std::collections::HashMap::new();
    let mut overtaken = 0;
    for d in &out {
        let key = (d.packet.src, d.packet.dst);
        if let Some(&prev) = last_id.get(&key)
            && d.packet.id < prev
        {
            overtaken += 1;
        }
        last_id.insert(key, d.packet.id);
    }
    assert!(overtaken > 100, "{overtaken}");
}

#[test]
fn impairments__none_by_default() {
    let mut f = fabric(Topology::paper(), FabricConfig::default());
    let out = random_traffic(&mut f, 5_000, 100_000, 3);
    let s = f.stats();
    assert_eq!(out.len(), 5_000);
    assert_eq!(
        (
            s.injected_losses,
            s.injected_duplicates,
            s.injected_reorders
        ),
        (0, 0, 0)
    );
    assert_eq!(s.packets_delivered, 5_000);
}

#[test]
fn fabric__same_seed_same_delivery_sequence() {
    let config = FabricConfig {
        loss_rate: 0.01,
        duplicate_rate: 0.01,
        reorder_rate: 0.05,
        reorder_delay_ps: 3 * US,
        seed: 9,
        ..FabricConfig::default()
    };
    let run = |config: FabricConfig| {
        let mut f = fabric(Topology::paper(), config);
        let out = random_traffic(&mut f, 20_000, 20_000, 5);
        (out, f.stats())
    };
    let (a, sa) = run(config.clone());
    let (b, sb) = run(config.clone());
    assert_eq!(a, b);
    assert_eq!(sa, sb);
    let (c, _) = run(FabricConfig { seed: 10, ..config });
    assert_ne!(a, c);
}

#[test]
fn spraying__uses_every_aggregation_switch_about_equally() {
    let mut f = fabric(Topology::paper(), FabricConfig::default());
    let n = 8_000u64;
    let mut out = Vec::new();
    for id in 0..n {
        // Host 0 (rack 0) to hosts in other racks.
        f.host_send(id * 2 * US, pkt(0, 16 + (id as usize % 128), 1000, 0, id));
        f.advance(id * 2 * US, &mut out);
    }
    f.advance(Ps::MAX, &mut out);
    let ups: Vec<u64> = f
        .port_stats()
        .iter()
        .filter(|p| matches!(p.kind, PortKind::TorUp { rack: 0, .. }))
        .map(|p| p.packets)
        .collect();
    assert_eq!(ups.len(), 4);
    assert_eq!(ups.iter().sum::<u64>(), n);
    for &u in &ups {
        assert!((u as f64 - n as f64 / 4.0).abs() < 200.0, "{ups:?}");
    }
    assert_eq!(out.len() as u64, n);
}

#[test]
fn stats__hops_match_paths() {
    let mut f = fabric(Topology::paper(), FabricConfig::default());
    f.host_send(0, pkt(0, 1, 100, 0, 0)); // same rack: 2 hops
    f.host_send(0, pkt(0, 20, 100, 0, 1)); // cross rack: 4 hops
    let mut out = Vec::new();
    f.advance(Ps::MAX, &mut out);
    let s = f.stats();
    assert_eq!(s.packet_hops, 6);
    assert_eq!(s.bytes_delivered, 200);
}

/// A packet that may be ECN-capable and records whether a switch marked it.
#[derive(Debug, Clone)]
struct EcnPkt {
    src: HostId,
    dst: HostId,
    ect: bool,
    ce: bool,
}

impl FabricPacket for EcnPkt {
    fn src(&self) -> HostId {
        self.src
    }
    fn dst(&self) -> HostId {
        self.dst
    }
    fn wire_bytes(&self) -> u32 {
        1_000
    }
    fn priority(&self) -> u8 {
        0
    }
    fn ecn_capable(&self) -> bool {
        self.ect
    }
    fn mark_ce(&mut self) {
        self.ce = true;
    }
}

#[test]
fn switch_port__marks_ecn_capable_packets_above_the_threshold_only() {
    let config = FabricConfig {
        ecn_mark_bytes: Some(2_500),
        ..FabricConfig::default()
    };
    let mut f = Fabric::new(Topology::SingleSwitch { hosts: 5 }, config).expect("valid");
    // Four senders at once into host 4: the port to host 4 holds up to 4 packets, so the
    // fourth and later arrivals of a round find more than 2,500 bytes there.
    for round in 0..5 {
        for src in 0..4 {
            let ect = src != 3;
            f.host_send(
                round * 10,
                EcnPkt {
                    src,
                    dst: 4,
                    ect,
                    ce: false,
                },
            );
        }
    }
    let mut out = Vec::new();
    f.advance(Ps::MAX, &mut out);
    let s = f.stats();
    assert_eq!(s.packets_delivered, 20);
    let marked = out.iter().filter(|d| d.packet.ce).count() as u64;
    assert_eq!(marked, s.ecn_marks);
    assert!(marked > 0, "a queue of up to 20 packets must mark some");
    assert!(
        out.iter().all(|d| d.packet.ect || !d.packet.ce),
        "non-ECT never marked"
    );
    // The first three packets find at most 2,000 bytes queued.
    assert!(out[..3].iter().all(|d| !d.packet.ce));

    // Without a threshold nothing is marked.
    let mut f =
        Fabric::new(Topology::SingleSwitch { hosts: 3 }, FabricConfig::default()).expect("valid");
    for i in 0..10 {
        f.host_send(
            i,
            EcnPkt {
                src: i as usize % 2,
                dst: 2,
                ect: true,
                ce: false,
            },
        );
    }
    out.clear();
    f.advance(Ps::MAX, &mut out);
    assert_eq!(f.stats().ecn_marks, 0);
    assert!(out.iter().all(|d| !d.packet.ce));
}

/// A packet with pFabric's rank and flow.
#[derive(Debug, Clone)]
struct RankedPkt {
    src: HostId,
    rank: u64,
    flow: u64,
}

impl FabricPacket for RankedPkt {
    fn src(&self) -> HostId {
        self.src
    }
    fn dst(&self) -> HostId {
        3
    }
    fn wire_bytes(&self) -> u32 {
        1_000
    }
    fn priority(&self) -> u8 {
        // Ignored in pFabric mode: everything waits in one queue.
        (self.rank % 8) as u8
    }
    fn rank(&self) -> (u64, u64) {
        (self.rank, self.flow)
    }
}

#[test]
fn pfabric__a_switch_serves_the_lowest_rank_and_drops_the_highest_when_full() {
    let config = FabricConfig {
        pfabric: true,
        port_buffer_bytes: Some(4_000),
        ..FabricConfig::default()
    };
    let mut f = Fabric::new(Topology::SingleSwitch { hosts: 4 }, config).expect("valid");
    // Three senders burst into host 3: ranks 100.. from host 0, 10.. from host 1, 50.. from
    // host 2, four packets each, all at once.
    for i in 0..4 {
        for (src, base) in [(0, 100), (1, 10), (2, 50)] {
            let p = RankedPkt {
                src,
                rank: base + i,
                flow: src as u64,
            };
            f.host_send(0, p);
        }
    }
    let mut out = Vec::new();
    f.advance(Ps::MAX, &mut out);
    let s = f.stats();
    assert!(s.buffer_drops > 0, "12 packets into 4 KB");
    assert_eq!(s.packets_delivered + s.buffer_drops, 12);
    assert!(s.max_switch_queue_bytes <= 4_000);
    let ranks: Vec<u64> = out.iter().map(|d| d.packet.rank).collect();
    // Host 1's flow (the lowest ranks) loses nothing; drops hit the highest ranks.
    for r in 10..14 {
        assert!(ranks.contains(&r), "rank {r} delivered: {ranks:?}");
    }
    assert!(
        !ranks.contains(&103),
        "the highest rank is dropped: {ranks:?}"
    );
    // Each flow arrives in its own order.
    for flow in 0..3 {
        let of: Vec<u64> = out
            .iter()
            .filter(|d| d.packet.flow == flow)
            .map(|d| d.packet.rank)
            .collect();
        assert!(of.windows(2).all(|w| w[0] < w[1]), "flow {flow}: {of:?}");
    }
}

#[test]
fn pfabric__a_host_nic_drops_its_highest_ranks_not_its_latest_packets() {
    let config = FabricConfig {
        pfabric: true,
        port_buffer_bytes: Some(4_000),
        ..FabricConfig::default()
    };
    let mut f = Fabric::new(Topology::SingleSwitch { hosts: 4 }, config).expect("valid");
    // One host sends three flows at once: the highest ranks first, the lowest last.
    for (rank, flow) in [(300, 2), (200, 1), (100, 0)] {
        for i in 0..4 {
            let p = RankedPkt {
                src: 0,
                rank: rank - i,
                flow,
            };
            f.host_send(0, p);
        }
    }
    let mut out = Vec::new();
    f.advance(Ps::MAX, &mut out);
    let s = f.stats();
    assert!(s.buffer_drops > 0, "12 packets into a 4 KB NIC");
    assert_eq!(s.packets_delivered + s.buffer_drops, 12);
    // What is left is the first packet (on the wire before the rest arrived) and the three
    // lowest ranks, those sent last: 4 KB holds three waiting packets.
    let mut ranks: Vec<u64> = out.iter().map(|d| d.packet.rank).collect();
    ranks.sort_unstable();
    assert_eq!(ranks, [97, 98, 99, 300], "{out:?}");
}
