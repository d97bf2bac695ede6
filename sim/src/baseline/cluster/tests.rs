#![allow(non_snake_case)]

use super::*;
use crate::baseline::pfabric::PfabricConfig;
use crate::baseline::{dctcp_mark_bytes, fabric_for};
use crate::cluster::mean_arrival_gap_ps;
use crate::preset::{Preset, for_engine};
use crate::time::MS;

fn config(transport: Transport, workload: &str, load: f64, hosts: usize) -> BaselineConfig {
    let workload = Workload::parse(workload).expect("workload");
    let (fabric, homa) = for_engine(Preset::Paper, &workload, false, 1);

    BaselineConfig {
        transport,
        tcp: TcpConfig::default(),
        pfabric: PfabricConfig::default(),
        connections: 1,
        topology: Topology::SingleSwitch { hosts },
        mean_gap_ps: mean_arrival_gap_ps(&homa, &workload, load, fabric.host_link_bps),
        fabric: fabric_for(transport, fabric, None),
        workload,
        load,
        messages: 400,
        seed: 1,
        time_limit_ps: 10_000 * MS,
        pattern: Pattern::Uniform,
        watchdog: Watchdog {
            stall_ps: 1_000 * MS,
            wall: None,
        },
        collective: None,
    }
}

fn run(c: BaselineConfig) -> (Report, TransportReport) {
    BaselineCluster::new(c).expect("valid").run(&mut |_| {})
}

#[test]
fn run__tcp_and_dctcp_complete_every_message_no_faster_than_the_idle_fabric() {
    for transport in [Transport::Tcp, Transport::Dctcp] {
        let (r, t) = run(config(transport, "w3", 0.5, 8));
        assert!(r.stopped.is_none(), "{transport:?}: {:?}", r.stopped);
        assert_eq!(r.messages, 400);
        assert_eq!(r.completed + r.in_flight, r.generated);
        assert!(r.buckets.iter().map(|b| b.count).sum::<u64>() == 400);
        for b in r.buckets.iter().filter(|b| b.count > 0) {
            assert!(b.p50_slowdown >= 1.0, "{transport:?}: {b:?}");
            assert!(b.p99_slowdown >= b.p50_slowdown);
        }
        assert!(t.acks > 0 && t.acks <= t.segments, "{t:?}");
        assert!(
            r.achieved_load > 0.2 && r.achieved_load < 0.8,
            "{}",
            r.achieved_load
        );
        assert_eq!(r.fabric.buffer_drops, 0, "unlimited buffers");
    }
}

#[test]
fn run__is_a_pure_function_of_its_config() {
    let a = run(config(Transport::Dctcp, "w2", 0.6, 6));
    let b = run(config(Transport::Dctcp, "w2", 0.6, 6));
    assert_eq!(a.0.buckets, b.0.buckets);
    assert_eq!(a.1, b.1);
    assert_eq!(a.0.fabric, b.0.fabric);
}

#[test]
fn incast__dctcp_keeps_the_queue_near_its_threshold_where_tcp_fills_the_buffer() {
    let incast = |transport| {
        let mut c = config(transport, "fixed:200000", 0.8, 9);
        c.pattern = Pattern::Incast { target: 0 };
        c.mean_gap_ps *= 8.0;
        c.messages = 60;
        c.fabric.port_buffer_bytes = Some(1_000_000);
        run(c)
    };
    let (tcp, tcp_t) = incast(Transport::Tcp);
    let (dctcp, dctcp_t) = incast(Transport::Dctcp);
    for r in [&tcp, &dctcp] {
        assert!(r.stopped.is_none(), "{:?}", r.stopped);
        assert_eq!(r.messages, 60);
    }
    assert_eq!(tcp.fabric.ecn_marks, 0, "plain TCP is not ECN-capable");
    assert!(
        tcp.fabric.buffer_drops > 0,
        "TCP fills the buffer: {:?}",
        tcp.fabric
    );
    assert!(tcp_t.retransmits > 0);
    assert!(dctcp.fabric.ecn_marks > 0 && dctcp_t.ecn_reductions > 0);
    let k = dctcp_mark_bytes(10_000_000_000);
    assert!(
        dctcp.fabric.max_switch_queue_bytes < tcp.fabric.max_switch_queue_bytes
            && dctcp.fabric.max_switch_queue_bytes < 3 * k,
        "DCTCP {} B, TCP {} B, K {k} B",
        dctcp.fabric.max_switch_queue_bytes,
        tcp.fabric.max_switch_queue_bytes
    );
}

#[test]
fn loss__every_message_still_arrives_through_retransmission() {
    let mut c = config(Transport::Tcp, "w4", 0.5, 6);
    c.fabric.loss_rate = 0.01;
    c.messages = 200;
    let (r, t) = run(c);
    assert!(r.stopped.is_none(), "{:?}", r.stopped);
    assert_eq!(r.messages, 200);
    assert!(r.fabric.injected_losses > 0);
    assert!(t.fast_retransmits + t.timeouts > 0, "{t:?}");
}

#[test]
fn new__names_bad_settings() {
    let mut c = config(Transport::Tcp, "w1", 0.5, 4);
    c.messages = 0;
    let e = BaselineCluster::new(c).expect_err("0 messages");
    assert!(e.to_string().contains("messages"), "{e}");
    let mut c = config(Transport::Tcp, "w1", 0.5, 4);
    c.tcp.mss = 1;
    let e = BaselineCluster::new(c).expect_err("mss");
    assert!(e.to_string().contains("mss"), "{e}");
    let mut c = config(Transport::Tcp, "w1", 0.5, 4);
    c.pattern = Pattern::Incast { target: 4 };
    let e = BaselineCluster::new(c).expect_err("target");
    assert!(e.to_string().contains("incast target"), "{e}");
    let mut c = config(Transport::Tcp, "w1", 0.5, 4);
    c.connections = 0;
    let e = BaselineCluster::new(c).expect_err("connections");
    assert!(e.to_string().contains("connections"), "{e}");
    let mut c = config(Transport::Tcp, "w1", 0.5, 4);
    c.mean_gap_ps = f64::NAN;
    assert!(BaselineCluster::new(c).is_err());
}

#[test]
fn pool__a_connection_per_message_in_flight_cuts_head_of_line_blocking() {
    let run_with = |connections| {
        let mut c = config(Transport::Tcp, "w4", 0.5, 6);
        c.connections = connections;
        c.messages = 1_000;
        run(c)
    };
    let (one, one_t) = run_with(1);
    let (pool, pool_t) = run_with(8);
    assert!(one.stopped.is_none() && pool.stopped.is_none());
    assert!(one_t.connections <= 30, "one per ordered pair of 6 hosts");
    assert!(pool_t.connections > 30, "{}", pool_t.connections);
    // Short messages no longer wait behind long ones written before them.
    let short = |r: &Report| r.ranges[0].p99_slowdown;
    assert!(
        short(&pool) < short(&one) / 2.0,
        "p99 <= 10 KB: pool {} vs one {}",
        short(&pool),
        short(&one)
    );
}

#[test]
fn collective__tcp_and_dctcp_run_a_training_job_to_its_end() {
    for (transport, spec) in [
        (
            Transport::Tcp,
            "allreduce:hosts=6,bucket=600KB,buckets=2,compute=1ms,steps=2",
        ),
        (
            Transport::Dctcp,
            "alltoall:hosts=6,bucket=600KB,buckets=2,compute=1ms,steps=2",
        ),
        (
            Transport::Tcp,
            "allreduce:hosts=6,bucket=600KB,buckets=2,compute=0,steps=2,algo=tree",
        ),
    ] {
        let mut c = config(transport, "w3", 0.0, 6);
        c.collective = Some(crate::collective::CollectiveSpec::parse(spec).unwrap());
        let (r, t) = run(c);
        assert!(r.stopped.is_none(), "{spec}: {:?}", r.stopped);
        let job = r.collective.expect("report");
        assert_eq!(job.steps, 2, "{spec}");
        assert!(job.step_times_ps.iter().all(|&s| s >= job.compute_ps));
        assert_eq!(r.messages, 0);
        assert_eq!(r.completed, r.generated);
        assert!(t.segments > 0);
    }
}

#[test]
fn pfabric__completes_every_message_through_drops_and_beats_tcp_for_short_ones() {
    let (pf, pf_t) = run(config(Transport::Pfabric, "w3", 0.8, 8));
    let (tcp, _) = run(config(Transport::Tcp, "w3", 0.8, 8));
    assert!(pf.stopped.is_none(), "{:?}", pf.stopped);
    assert_eq!(pf.messages, 400);
    assert_eq!(pf_t.connections, 0, "flows, not connections");
    assert!(pf.fabric.max_switch_queue_bytes <= crate::baseline::PFABRIC_BUFFER_BYTES);
    // Drops are repaired by timeouts.
    if pf.fabric.buffer_drops > 0 {
        assert!(pf_t.timeouts > 0 && pf_t.retransmits > 0, "{pf_t:?}");
    }
    let short = |r: &Report| r.ranges[0].p99_slowdown;
    assert!(
        short(&pf) < short(&tcp),
        "pFabric {} vs TCP {}",
        short(&pf),
        short(&tcp)
    );
}

#[test]
fn pias__thresholds_split_the_messages_in_eighths() {
    let w = Workload::parse("w3").unwrap();
    let t = crate::baseline::pias_thresholds(&w);
    assert!(!t.is_empty() && t.len() <= 7, "{t:?}");
    assert!(t.windows(2).all(|p| p[0] < p[1]), "{t:?}");
    // Each threshold has at least its share of the messages at or below it.
    let probs = w.probabilities();
    for (i, &th) in t.iter().enumerate() {
        let below: f64 = probs
            .iter()
            .filter(|&&(s, _)| u64::from(s) <= th)
            .map(|p| p.1)
            .sum();
        assert!(
            below >= (i + 1) as f64 / 8.0 - 1e-9,
            "{i}: {th} holds {below}"
        );
    }
    assert_eq!(
        crate::baseline::pias_thresholds(&Workload::Fixed(1_000)),
        [1_000],
        "one size: one threshold"
    );
}

#[test]
fn pias__short_messages_overtake_long_ones_at_the_top_priority() {
    let (pias, t) = run(config(Transport::Pias, "w3", 0.8, 8));
    let (dctcp, _) = run(config(Transport::Dctcp, "w3", 0.8, 8));
    assert!(pias.stopped.is_none(), "{:?}", pias.stopped);
    assert_eq!(pias.messages, 400);
    assert_eq!(
        t.connections, 0,
        "every PIAS flow closed or counted as a flow"
    );
    assert_eq!(pias.completed + pias.in_flight, pias.generated);
    let short = |r: &Report| r.ranges[0].p99_slowdown;
    assert!(
        short(&pias) < short(&dctcp),
        "PIAS {} vs DCTCP {}",
        short(&pias),
        short(&dctcp)
    );
}
