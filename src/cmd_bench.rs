//! `homa-nic bench`: how fast the protocol engine, the simulator and the RPC library run on
//! this machine.
//!
//! Each measurement is repeated and the median reported (these machines are noisy); compare
//! numbers from one run with each other, not across machines.

use crate::bench_rpc::{MODES, RpcRun};
use anyhow::{Context, Result};
use bytes::Bytes;
use clap::Subcommand;
use homa_proto::core::{Config, Endpoint, Event, Instant};
use homa_sim::cluster::{Cluster, ClusterConfig, Engine as SimEngine, Pattern};
use homa_sim::fabric::{FabricConfig, Topology};
use homa_sim::nic::NicTiming;
use homa_sim::preset::{Preset, config_for};
use homa_sim::time::MS;
use homa_sim::workload::Workload;
use serde_json::{Value, json};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub(crate) enum BenchCmd {
    /// Engine cost: nanoseconds of `proto::core` work per packet, two hosts back to back.
    Engine {
        /// Request size in bytes (responses are 100 bytes).
        #[arg(long, default_value_t = 100_000)]
        size: usize,
        /// RPCs per repetition.
        #[arg(long, default_value_t = 2_000)]
        rpcs: u64,
        /// Repetitions (the median is reported).
        #[arg(long, default_value_t = 5)]
        repeat: usize,
    },
    /// Simulator speed: simulated packets per wall second on the paper topology at 80 % load.
    Sim {
        /// Workload.
        #[arg(long, default_value = "w3")]
        workload: String,
        /// Messages per repetition.
        #[arg(long, default_value_t = 20_000)]
        messages: u64,
        /// Repetitions (the median is reported).
        #[arg(long, default_value_t = 3)]
        repeat: usize,
    },
    /// RPC round trip (median, p99) and rate with many RPCs outstanding: the RPC library
    /// (`homa-host` over `proto::core`) over the in-process network and, as root, raw IP on
    /// loopback; then, in simulated time, two hosts over Verilated NICs and one switch at
    /// 100 Gb/s (`--engine rtl` of `homa-nic sim`) and the same without NICs.
    Rpc {
        /// Ping-pong RPCs timed one by one.
        #[arg(long, default_value_t = 10_000)]
        rpcs: usize,
        /// Request and response size in bytes.
        #[arg(long, default_value_t = 100)]
        size: usize,
        /// RPCs kept in flight for the rate measurement.
        #[arg(long, default_value_t = 64)]
        outstanding: usize,
        /// RPCs completed for the rate measurement.
        #[arg(long, default_value_t = 20_000)]
        rate_rpcs: usize,
        /// Skip raw IP even when the socket could be opened.
        #[arg(long)]
        no_raw: bool,
        /// RPCs per measurement over the simulated cluster (ping-pong, then the rate).
        #[arg(long, default_value_t = 2_000)]
        sim_rpcs: u32,
        /// The simulated switch's latency, ns (the Homa paper's simulations: 250; a
        /// cut-through datacenter switch of today: 100 or less).
        #[arg(long, default_value_t = 250)]
        switch_ns: u64,
        /// Also write the results as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
    },
}

pub(crate) fn run(cmd: BenchCmd) -> Result<()> {
    match cmd {
        BenchCmd::Engine { size, rpcs, repeat } => {
            let mut samples = Vec::new();
            let mut packets = 0;
            for _ in 0..repeat.max(1) {
                let (ns, n) = engine_once(size, rpcs)?;
                samples.push(ns);
                packets = n;
            }
            let med = median(&mut samples);
            println!(
                "engine: {packets} packets per repetition ({rpcs} RPCs of {size} B), median {med:.1} ns per packet \
                 (handle + poll, both ends), {:.2} M packets/s",
                1e3 / med
            );
        }
        BenchCmd::Sim {
            workload,
            messages,
            repeat,
        } => {
            let mut rates = Vec::new();
            for seed in 1..=repeat.max(1) as u64 {
                let wl = Workload::parse(&workload)?;
                let fabric = FabricConfig {
                    seed,
                    ..FabricConfig::default()
                };
                let config = ClusterConfig {
                    topology: Topology::paper(),
                    homa: config_for(Preset::Paper, &wl, fabric.host_link_bps),
                    fabric,
                    workload: wl,
                    load: 0.8,
                    messages,
                    seed,
                    time_limit_ps: 60_000 * MS,
                    pattern: Pattern::Uniform,
                    engine: homa_sim::cluster::Engine::Model,
                    watchdog: homa_sim::cluster::Watchdog::default(),
                    collective: None,
                };
                let r = Cluster::new(config)?.run(&mut |_| {});
                rates.push(r.packets_per_wall_second());
                eprintln!(
                    "  seed {seed}: {} packets in {:.2} s wall",
                    r.fabric.packets_sent, r.wall_seconds
                );
            }
            let med = median(&mut rates);
            println!(
                "sim: paper topology (144 hosts), {workload} at 80 % load: median {:.0} simulated packets per wall second",
                med
            );
        }
        BenchCmd::Rpc {
            rpcs,
            size,
            outstanding,
            rate_rpcs,
            no_raw,
            sim_rpcs,
            switch_ns,
            json,
        } => {
            if let Some(path) = &json {
                crate::cmd_sim::make_parent(path)?;
            }
            let run = RpcRun {
                rpcs,
                size,
                outstanding: outstanding.max(1),
                rate_rpcs,
            };
            let mut out = serde_json::Map::new();
            let udp = run.udp(false)?;
            run.print("UDP socket ping-pong", &udp);
            out.insert("udp".into(), json!(udp));
            let udp_busy = run.udp(true)?;
            run.print("UDP socket ping-pong, busy-poll", &udp_busy);
            out.insert("udp_busy_poll".into(), json!(udp_busy));
            let mut memnet = serde_json::Map::new();
            for (mode, options) in MODES {
                let net = homa_host::MemNetwork::new();
                let m = run.measure(
                    "memnet",
                    options,
                    net.attach([10, 0, 0, 1].into())?,
                    net.attach([10, 0, 0, 2].into())?,
                )?;
                run.print(&format!("memnet, {mode}"), &m);
                memnet.insert(mode.into(), json!(m));
            }
            out.insert("memnet".into(), best(&memnet));
            out.insert("memnet_by_drive".into(), Value::Object(memnet));
            out.insert("rawip".into(), Value::Null);
            if no_raw {
                println!("raw IP: skipped (--no-raw)");
            } else {
                // Addresses of their own on loopback, apart from the examples' and tests'.
                let open = |last| homa_host::RawIpTransport::open(Ipv4Addr::new(127, 0, 0, last));
                let mut rawip = serde_json::Map::new();
                for (mode, options) in MODES {
                    match open(21).and_then(|s| Ok((s, open(22)?))) {
                        Ok((server, client)) => {
                            let m = run.measure("raw IP loopback", options, server, client)?;
                            run.print(&format!("raw IP loopback, {mode}"), &m);
                            // Like for like: a busy-polling endpoint beside a busy-polled
                            // socket, a sleeping one beside a blocking socket.
                            let kernel = if options.busy_poll { &udp_busy } else { &udp };
                            println!(
                                "{:<28} {:.2}x the UDP ping-pong that {}",
                                "",
                                m.p50_ns as f64 / kernel.p50_ns.max(1) as f64,
                                if options.busy_poll {
                                    "busy-polls"
                                } else {
                                    "blocks"
                                }
                            );
                            rawip.insert(mode.into(), json!(m));
                        }
                        Err(e) => {
                            let cause = std::error::Error::source(&e)
                                .map_or_else(String::new, |c| format!(": {c}"));
                            println!("raw IP: skipped: {e}{cause} (needs root or CAP_NET_RAW)");
                            break;
                        }
                    }
                }
                if !rawip.is_empty() {
                    out.insert("rawip".into(), best(&rawip));
                    out.insert("rawip_by_drive".into(), Value::Object(rawip));
                }
            }
            let size = u32::try_from(size.max(1)).unwrap_or(u32::MAX);
            let outstanding = u32::try_from(outstanding.max(1)).unwrap_or(u32::MAX);
            for (key, engine) in [
                ("rtl", SimEngine::Rtl(NicTiming::default())),
                ("model", SimEngine::Model),
            ] {
                if key == "rtl" && !homa_sim::rtl::MODELS_BUILT {
                    println!("simulated NICs: skipped: {}", homa_sim::rtl::SKIP_MESSAGE);
                    out.insert(key.into(), Value::Null);
                    continue;
                }
                out.insert(
                    key.into(),
                    sim_rpcs_once(engine, size, sim_rpcs, outstanding, switch_ns)?,
                );
            }
            if let Some(path) = &json {
                let text = serde_json::to_string_pretty(&Value::Object(out))? + "\n";
                std::fs::write(path, text).with_context(|| format!("write {}", path.display()))?;
            }
        }
    }
    Ok(())
}

/// Round trips and rate of RPCs between two hosts of a simulated cluster (100 Gb/s links,
/// one switch), in simulated time, with `engine` between each engine and its link.
fn sim_rpcs_once(
    engine: SimEngine,
    size: u32,
    count: u32,
    outstanding: u32,
    switch_ns: u64,
) -> Result<Value> {
    let workload = Workload::Fixed(size);
    let fabric = FabricConfig {
        switch_delay_ps: switch_ns.saturating_mul(1_000),
        ..FabricConfig::nic_100g(1)
    };
    let mut homa = config_for(Preset::Paper, &workload, fabric.host_link_bps);
    homa.tick_usecs = 10;
    let config = ClusterConfig {
        topology: Topology::SingleSwitch { hosts: 2 },
        homa,
        fabric,
        workload,
        load: 0.5,
        messages: 1,
        seed: 1,
        time_limit_ps: 60_000 * MS,
        pattern: Pattern::Uniform,
        engine,
        watchdog: homa_sim::cluster::Watchdog::default(),
        collective: None,
    };
    let (name, clock) = match engine {
        SimEngine::Rtl(t) => ("simulated NICs (rtl engine)", Some(t)),
        SimEngine::Model => ("no NICs (model engine, same fabric)", None),
        SimEngine::ModelNic => ("model NICs' grants (model-nic engine, same fabric)", None),
    };
    let wall = std::time::Instant::now();
    let ping = Cluster::rpcs(config.clone(), size, size, count, 1)?;
    let mut pings = ping.rtts;
    let rate = Cluster::rpcs(config, size, size, count, outstanding)?;
    let wall = wall.elapsed().as_secs_f64();
    pings.sort_unstable();
    let median = pings[pings.len() / 2];
    let p99 = pings[(pings.len() * 99 / 100).min(pings.len() - 1)];
    let cycles = clock.map_or(String::new(), |t| {
        format!(
            " = {} cycles at {} MHz",
            median / t.period_ps(),
            t.clock_mhz
        )
    });
    let rate_per_s = f64::from(count) / (rate.elapsed as f64 * 1e-12);
    println!(
        "{name}: {size} B RPCs over one switch ({switch_ns} ns) at 100 Gb/s: round trip median {} ns{cycles}, p99 {} ns \
         ({count} ping-pongs); {:.2} M RPC/s with {outstanding} outstanding (simulated time; host software \
         takes no time here); {:.1} s wall",
        median / 1_000,
        p99 / 1_000,
        rate_per_s / 1e6,
        wall
    );
    let mut v = json!({
        "p50_ns": median / 1_000,
        "p99_ns": p99 / 1_000,
        "rate_per_s": rate_per_s,
    });
    if let Some(t) = clock {
        v["p50_cycles"] = json!(median / t.period_ps());
    }
    if !ping.breakdown.is_empty() {
        let ns = |ps: u64| ps as f64 / 1e3;
        println!(
            "  where the round trip goes (both directions, median per stage), beside the floor:"
        );
        let mut breakdown = serde_json::Map::new();
        let (mut total, mut floor) = (0, 0);
        for s in &ping.breakdown {
            println!(
                "    {:<34} {:>8.0} ns   floor {:>6.0} ns",
                s.name,
                ns(s.ps),
                ns(s.floor_ps)
            );
            breakdown.insert(s.name.into(), json!(ns(s.ps)));
            total += s.ps;
            floor += s.floor_ps;
        }
        println!(
            "    {:<34} {:>8.0} ns   floor {:>6.0} ns",
            "sum",
            ns(total),
            ns(floor)
        );
        v["breakdown"] = Value::Object(breakdown);
        v["floor_ns"] = json!(ns(floor));
    }
    Ok(v)
}

/// The measurement with the lowest median among `by_drive`, named by its `drive`.
fn best(by_drive: &serde_json::Map<String, Value>) -> Value {
    let p50 = |v: &Value| v["p50_ns"].as_u64().unwrap_or(u64::MAX);
    by_drive
        .iter()
        .min_by_key(|(_, v)| p50(v))
        .map_or(Value::Null, |(mode, v)| {
            let mut v = v.clone();
            v["drive"] = json!(mode);
            v
        })
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// One repetition: `rpcs` RPCs between two engines with packets handed over directly;
/// returns (ns per packet, packets).
fn engine_once(size: usize, rpcs: u64) -> Result<(f64, u64)> {
    let a: IpAddr = [10, 0, 0, 1].into();
    let b: IpAddr = [10, 0, 0, 2].into();
    let config = Config {
        link_mbps: 100_000,
        ..Config::default()
    };
    let mut hosts = [Endpoint::new(config.clone(), a)?, Endpoint::new(config, b)?];
    hosts[1].bind(500);
    let request = Bytes::from(vec![7u8; size]);
    let response = Bytes::from(vec![9u8; 100]);
    let mut now = 0u64;
    let mut packets = 0u64;
    let mut done = 0u64;
    let mut outstanding = 0u64;
    let start = std::time::Instant::now();
    while done < rpcs {
        let t = Instant::from_nanos(now);
        while outstanding < 8 && done + outstanding < rpcs {
            hosts[0].send_request(t, 40000, SocketAddr::new(b, 500), request.clone())?;
            outstanding += 1;
        }
        let mut moved = false;
        for i in 0..2 {
            while let Some(ev) = hosts[i].poll_event() {
                match ev {
                    Event::Request(r) => {
                        hosts[i].send_response(t, r.peer.ip(), r.id, response.clone())?;
                    }
                    Event::Response { .. } | Event::Failed { .. } => {
                        done += 1;
                        outstanding -= 1;
                    }
                }
            }
            let from = hosts[i].addr();
            while let Some(tx) = hosts[i].poll_transmit(t) {
                hosts[1 - i].handle_packet(t, from, tx.packet);
                packets += 1;
                moved = true;
            }
        }
        // Advance time: to the next timer if nothing moved, else by a packet time.
        now = match (moved, hosts.iter().filter_map(|h| h.poll_timeout()).min()) {
            (false, Some(w)) => w.as_nanos().max(now + 1),
            _ => now + 120,
        };
        for h in &mut hosts {
            if h.poll_timeout().is_some_and(|w| w.as_nanos() <= now) {
                h.handle_timeout(Instant::from_nanos(now));
            }
        }
    }
    let ns = start.elapsed().as_nanos() as f64 / packets.max(1) as f64;
    Ok((ns, packets))
}
