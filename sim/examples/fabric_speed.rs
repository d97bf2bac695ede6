//! Measures the fabric's speed: the paper topology (144 hosts) under random all-to-all packets
//! at 80 % edge load, no transport. Run with
//! `cargo run -p homa-sim --release --example fabric_speed [simulated_ms]`.

use std::time::Instant;

use homa_sim::fabric::{Delivery, Fabric, FabricConfig, FabricPacket, HostId, Topology};
use homa_sim::rng::seeded_rng;
use homa_sim::time::{MS, Ps};
use homa_sim::workload::PoissonArrivals;
use rand::RngExt;

/// A packet about as big as a transport's header record.
#[derive(Debug, Clone)]
struct Packet {
    src: HostId,
    dst: HostId,
    bytes: u32,
    priority: u8,
    _payload: [u64; 6],
}

impl FabricPacket for Packet {
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
        self.priority
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sim_ms: u64 = std::env::args().nth(1).map_or(Ok(20), |a| a.parse())?;
    let until = sim_ms * MS;
    let mut fabric = Fabric::new(Topology::paper(), FabricConfig::default())?;
    let hosts = fabric.num_hosts();
    // 70 % full frames, 30 % small ones: mean 1106.6 wire bytes.
    let mean_bytes = 0.7 * 1538.0 + 0.3 * 100.0;
    let load = 0.8;
    let per_host_gap_ps = mean_bytes * 8.0 / (load * 10e9) * 1e12;
    let mut arrivals = PoissonArrivals::new(per_host_gap_ps / hosts as f64, 1)?;
    let mut rng = seeded_rng(2);
    let mut out: Vec<Delivery<Packet>> = Vec::new();
    let mut delivered = 0u64;
    let started = Instant::now();
    let mut now: Ps = 0;
    while now < until {
        now += arrivals.next_gap();
        fabric.advance(now, &mut out);
        delivered += out.len() as u64;
        out.clear();
        let src = rng.random_range(0..hosts);
        let dst = (src + rng.random_range(1..hosts)) % hosts;
        let bytes = if rng.random_bool(0.7) { 1538 } else { 100 };
        let priority = rng.random_range(0..8);
        fabric.host_send(
            now,
            Packet {
                src,
                dst,
                bytes,
                priority,
                _payload: [0; 6],
            },
        );
    }
    fabric.advance(Ps::MAX, &mut out);
    delivered += out.len() as u64;
    let wall = started.elapsed().as_secs_f64();
    let s = fabric.stats();
    println!(
        "{sim_ms} ms simulated in {wall:.2} s: {} packets, {delivered} delivered, {} packet-hops",
        s.packets_sent, s.packet_hops
    );
    println!(
        "{:.2} M packet-hops/s, {:.2} M packets/s (wall); max switch queue {} B, max NIC backlog {} B",
        s.packet_hops as f64 / wall / 1e6,
        s.packets_sent as f64 / wall / 1e6,
        s.max_switch_queue_bytes,
        s.max_host_backlog_bytes
    );
    Ok(())
}
