//! Whole-cluster runs of the fast model, small enough for the test suite.
#![allow(non_snake_case)]

use super::*;
use crate::collective::CollectiveSpec;
use crate::preset::{Preset, config_for};
use crate::time::MS;

fn cluster(hosts: usize, workload: &str, load: f64, messages: u64, seed: u64) -> ClusterConfig {
    let workload = Workload::parse(workload).unwrap();
    let fabric = FabricConfig {
        seed,
        ..FabricConfig::default()
    };
    ClusterConfig {
        topology: Topology::SingleSwitch { hosts },
        homa: config_for(Preset::Paper, &workload, fabric.host_link_bps),
        fabric,
        workload,
        load,
        messages,
        seed,
        time_limit_ps: 10_000 * MS,
        pattern: Pattern::Uniform,
        engine: Engine::Model,
        watchdog: Watchdog::default(),
        collective: None,
    }
}

fn run(config: ClusterConfig) -> Report {
    Cluster::new(config).unwrap().run(&mut |_| {})
}

#[test]
fn run__every_message_arrives_intact_and_no_faster_than_ideal() {
    let r = run(cluster(8, "w3", 0.5, 2_000, 1));
    assert_eq!(r.messages, 2_000);
    assert_eq!(r.payload_errors, 0);
    assert_eq!(r.timeouts, 0);
    let counted: u64 = r.buckets.iter().map(|b| b.count).sum();
    assert_eq!(counted, 2_000);
    for b in &r.buckets {
        assert!(b.p50_slowdown >= 0.999, "{b:?}");
        assert!(b.p99_slowdown >= b.p50_slowdown, "{b:?}");
    }
}

#[test]
fn run__light_load_is_close_to_ideal() {
    let r = run(cluster(4, "fixed:1000", 0.02, 500, 2));
    let b = &r.buckets[0];
    assert!(b.p50_slowdown < 1.05, "{b:?}");
}

#[test]
fn run__same_seed_same_result_and_other_seed_differs() {
    let a = run(cluster(6, "w2", 0.6, 1_000, 7));
    let b = run(cluster(6, "w2", 0.6, 1_000, 7));
    let c = run(cluster(6, "w2", 0.6, 1_000, 8));
    assert_eq!(a.buckets, b.buckets);
    assert_eq!(a.simulated_seconds, b.simulated_seconds);
    assert_ne!(a.buckets, c.buckets);
}

#[test]
fn run__loss_is_repaired() {
    let mut config = cluster(6, "w3", 0.4, 600, 3);
    config.fabric.loss_rate = 0.02;
    let r = run(config);
    assert_eq!(r.messages, 600, "every measured message completes");
    assert_eq!(r.payload_errors, 0);
    assert!(r.fabric.injected_losses > 0);
    let resends = r
        .packets_by_type
        .iter()
        .find(|(t, _)| *t == "RESEND")
        .unwrap()
        .1;
    assert!(resends > 0);
}

#[test]
fn run__incast_of_100_completes_with_bounded_queue() {
    let mut config = cluster(101, "fixed:200000", 0.004, 100, 4);
    config.homa = config_for(Preset::HomaModule, &config.workload, 10_000_000_000);
    config.homa.max_incoming = 200_000;
    config.pattern = Pattern::Incast { target: 0 };
    let unsched = u64::from(config.homa.unsched_bytes);
    let incoming = u64::from(config.homa.max_incoming);
    let r = run(config);
    assert_eq!(r.messages, 100);
    assert_eq!(r.payload_errors, 0);
    assert_eq!(r.fabric.buffer_drops, 0);
    // Every sender's unscheduled bytes arrive at once (Homa cannot avoid that part: the
    // paper's incast optimisation is not in HomaModule either), plus at most max_incoming
    // granted bytes, in wire bytes (1538 on the wire per 1424 of payload). Without grants
    // the queue would reach 100 x 200 KB = 20 MB.
    let bound = (100 * unsched + incoming) * 1538 / 1424;
    assert!(
        r.fabric.max_switch_queue_bytes < bound,
        "max queue {} >= {bound}",
        r.fabric.max_switch_queue_bytes
    );
}

#[test]
fn run__model_nic_engine_grants_every_message_in_the_nic_under_incast() {
    // 16 senders, each at 0.05: 0.8 of the receiver's link.
    let mut config = cluster(17, "w4", 0.05, 800, 5);
    config.pattern = Pattern::Incast { target: 0 };
    config.engine = Engine::ModelNic;
    // HomaModule's FIFO grants (the paper's preset has none).
    config.homa.grant_fifo_fraction = 50;
    let r = run(config);
    assert_eq!(
        r.messages,
        800,
        "{:?} at {} s",
        r.stopped.as_ref().map(ToString::to_string),
        r.simulated_seconds
    );
    assert_eq!((r.payload_errors, r.rpcs_failed, r.timeouts), (0, 0, 0));
    let g = r.grant_nic.expect("the model NICs report");
    // Every GRANT came from the NICs: the engines granted nothing themselves.
    assert!(g.grants_sent > 1_000, "{g:?}");
    assert_eq!((g.grant_fallbacks, g.software_grants), (0, 0), "{g:?}");
    assert_eq!(r.sent("GRANT"), g.grants_sent);
    assert!(g.releases > 0, "{g:?}");
    // The oldest messages got FIFO grants from the NICs.
    assert!(g.fifo_grants > 0, "{g:?}");
    // Without them, the model engine reports none.
    assert!(run(cluster(4, "w3", 0.3, 100, 5)).grant_nic.is_none());
}

#[test]
fn new__rejects_bad_parameters() {
    let mut c = cluster(4, "w1", 1.0, 10, 1);
    assert!(
        Cluster::new(c.clone())
            .unwrap_err()
            .to_string()
            .contains("load")
    );
    c.load = 0.5;
    c.messages = 0;
    assert!(
        Cluster::new(c.clone())
            .unwrap_err()
            .to_string()
            .contains("messages")
    );
    c.messages = 10;
    c.pattern = Pattern::Incast { target: 9 };
    assert!(
        Cluster::new(c.clone())
            .unwrap_err()
            .to_string()
            .contains("incast")
    );
    c.pattern = Pattern::Uniform;
    c.topology = Topology::SingleSwitch { hosts: 1 };
    assert!(Cluster::new(c).is_err());
}

/// A small cluster over Verilated NICs.
#[cfg(homa_rtl)]
fn rtl_cluster(hosts: usize, workload: &str, load: f64, messages: u64, seed: u64) -> ClusterConfig {
    // Real frames carry Homa's 1 MB limit.
    let (workload, _) = Workload::parse(workload)
        .unwrap()
        .capped(homa_proto::wire::MAX_MESSAGE_LENGTH);
    let fabric = FabricConfig::nic_100g(seed);
    ClusterConfig {
        topology: Topology::SingleSwitch { hosts },
        homa: config_for(Preset::Paper, &workload, fabric.host_link_bps),
        fabric,
        workload,
        load,
        messages,
        seed,
        time_limit_ps: 1_000 * MS,
        pattern: Pattern::Uniform,
        engine: Engine::Rtl(crate::nic::NicTiming::default()),
        watchdog: Watchdog::default(),
        collective: None,
    }
}

#[cfg(homa_rtl)]
#[test]
fn run__rtl_engine_delivers_every_message_with_hardware_grants() {
    let r = run(rtl_cluster(4, "fixed:30000", 0.5, 200, 3));
    eprintln!("{r:#?}");
    assert_eq!(r.messages, 200);
    assert_eq!(r.payload_errors, 0);
    assert_eq!(r.timeouts, 0);
    let nic = r.nic.expect("a NIC report");
    assert_eq!(nic.parse_mismatches, 0);
    assert!(nic.grants_sent > 0, "{nic:?}");
    // Every payload went by the hardware's DMA into a posted buffer.
    assert_eq!(nic.dma_faults, 0, "{nic:?}");
    assert_eq!(nic.rx_no_buffer, 0, "{nic:?}");
    assert_eq!(
        nic.mac_drops, 0,
        "the cores keep up with the links: {nic:?}"
    );
    assert!(nic.rx_dma >= 200 * 30_000 / 1_500, "{nic:?}");
    // Every DATA frame was built by the hardware, from TX descriptors the hosts posted.
    assert!(nic.data_frames >= 200 * 30_000 / 1_424, "{nic:?}");
    assert!(nic.tx_descriptors >= 200, "{nic:?}");
    assert_eq!(nic.tx_errors, 0, "{nic:?}");
    let data = r
        .packets_by_type
        .iter()
        .find(|(t, _)| *t == "DATA")
        .unwrap()
        .1;
    assert_eq!(data, nic.data_frames, "the engines sent no DATA themselves");
}

/// The small core (`homa_nic_core_w64`, 8 bytes a cycle) on 10 Gb/s links, which it carries
/// at 250 MHz: the same host stack, every payload by its DMA, every DATA and GRANT frame
/// built by it, beats of 8 bytes on every port.
#[cfg(homa_rtl)]
#[test]
fn run__rtl_engine_small_core_delivers_every_message() {
    let mut c = rtl_cluster(4, "w3", 0.5, 150, 5);
    c.fabric = FabricConfig::nic_at(10_000_000_000, 5);
    c.homa = config_for(Preset::Paper, &c.workload, c.fabric.host_link_bps);
    c.homa.tick_usecs = 10;
    c.engine = Engine::Rtl(crate::nic::NicTiming {
        beat_bytes: 8,
        ..crate::nic::NicTiming::default()
    });
    let r = run(c);
    assert!(r.stopped.is_none(), "{:?}", r.stopped);
    assert_eq!((r.messages, r.payload_errors, r.rpcs_failed), (150, 0, 0));
    let data = r.sent("DATA");
    let nic = r.nic.expect("a NIC report");
    assert_eq!(nic.core, "homa_nic_core_w64");
    assert_eq!(
        (
            nic.parse_mismatches,
            nic.dma_faults,
            nic.mac_drops,
            nic.tx_errors
        ),
        (0, 0, 0, 0),
        "{nic:?}"
    );
    assert!(nic.grants_sent > 0 && nic.rx_dma > 150, "{nic:?}");
    // Small messages go through on-chip TX memory, read a beat at a time.
    assert!(nic.pushes > 0, "{nic:?}");
    assert_eq!(data, nic.data_frames, "the engines sent no DATA themselves");
}

/// Short-message workloads at half load over Verilated NICs: more messages arrive than
/// the NICs' descriptor path takes (about 12 M a second each), so the hosts' TX queues
/// grow. They used to livelock: each queued request counted as silence at its client,
/// whose RESEND found no RPC at the server (RPC_UNKNOWN), restarted it at the back of the
/// queue, and so on; and SRPT starved the longer messages behind the endless short ones.
#[cfg(homa_rtl)]
#[test]
fn run__rtl_engine_short_messages_at_half_load_all_complete() {
    for (workload, seed) in [("w1", 1), ("w1", 4681), ("w2", 1)] {
        let mut c = rtl_cluster(4, workload, 0.5, 120, seed);
        c.homa.tick_usecs = 10;
        c.watchdog.stall_ps = MS;
        let r = run(c);
        assert!(
            r.stopped.is_none(),
            "{workload} seed {seed}: {:?}",
            r.stopped
        );
        assert_eq!((r.messages, r.payload_errors, r.rpcs_failed), (120, 0, 0));
        let sent = |name| r.sent(name);
        let control = sent("RESEND") + sent("RPC_UNKNOWN") + sent("BUSY");
        assert!(
            control * 10 <= sent("DATA"),
            "{workload} seed {seed}: {control} control packets for {} DATA",
            sent("DATA")
        );
    }
}

/// A host that reads a NIC register waits for the answer, a PCIe round trip, before it
/// does anything else. Hosts that went on reading while an answer was due pushed their
/// NIC's view of them ever further ahead of time, until each doorbell and completion
/// write reached the NIC a millisecond late and the cluster livelocked.
#[cfg(homa_rtl)]
#[test]
fn step__rtl_engine_hosts_never_run_ahead_of_their_register_reads() {
    use crate::time::US;
    let mut config = rtl_cluster(8, "w1", 0.8, 1_000_000, 1);
    config.homa.tick_usecs = 10;
    let mut c = Cluster::new(config).unwrap();
    let mut worst = 0;
    while c.now < 100 * US {
        assert!(matches!(c.step(), Step::Ran));
        for h in &c.hosts {
            worst = worst.max(h.busy_until().saturating_sub(c.now));
        }
    }
    // A host reads a register when a ring it posts to looks full: w1 at 0.8 posts more
    // descriptors than the NICs take, and each drain reads a few times, each read a 1 us
    // round trip (4 us here; 329 us when hosts did not wait).
    assert!(worst <= 10 * US, "a host ran {worst} ps ahead of its reads");
}

#[test]
fn run__a_starved_message_stops_the_run_and_is_named() {
    // A stall span shorter than any message's delivery: the watchdog must stop the run and
    // name the oldest messages, with their client's state.
    let mut c = cluster(4, "fixed:100000", 0.5, 100, 1);
    c.watchdog.stall_ps = crate::time::US;
    let r = run(c);
    let stop = r.stopped.expect("stopped by the watchdog");
    assert!(
        matches!(
            stop.reason,
            StopReason::Stalled { .. } | StopReason::Starved { .. }
        ),
        "{stop}"
    );
    assert!(!stop.stuck.is_empty() && stop.stuck.len() <= STUCK_LISTED);
    assert!(stop.stuck[0].client_state.is_some(), "{stop}");
    let text = stop.to_string();
    assert!(
        text.contains("rpc ") && text.contains("client state") && text.contains("client sent"),
        "{text}"
    );
    assert!(r.messages < 100);
}

#[test]
fn round_trips__model_engine_small_rpcs_take_about_two_one_way_delays() {
    let c = cluster(2, "w1", 0.5, 10, 1);
    let rtts = Cluster::round_trips(c, 100, 100, 5).unwrap();
    assert_eq!(rtts.len(), 5);
    // Two one-way trips, each: host delays 1.5 us, two 10 Gb/s serialisations of a 214-byte
    // frame (2 x 171 ns) and a 250 ns switch: 2.09 us.
    for r in rtts {
        assert!((4_000_000..4_400_000).contains(&r), "{r} ps");
    }
}

#[cfg(homa_rtl)]
#[test]
fn round_trips__rtl_engine_small_rpcs() {
    let c = rtl_cluster(2, "w1", 0.5, 10, 1);
    let rtts = Cluster::round_trips(c, 100, 100, 5).unwrap();
    eprintln!("{rtts:?}");
    // Per direction, with the NIC sending: the descriptor and the payload pushed on chip and
    // the doorbell (PCIe 500 ns), both read from on-chip memory (no PCIe read), 2 x 15 ns
    // serialisation, a 250 ns switch, the parser, the completion and PCIe 500 ns to the
    // host: about 1.4 us, of which 1.3 us is the floor.
    for r in rtts {
        assert!((2_600_000..3_000_000).contains(&r), "{r} ps");
    }
}

#[test]
fn round_trips__refuse_an_empty_request() {
    let c = cluster(2, "w1", 0.5, 10, 1);
    let e = Cluster::round_trips(c, 0, 100, 5).unwrap_err();
    assert!(e.to_string().contains("request"), "{e}");
}

/// A ring all-reduce cannot beat its bytes on the wire: each host sends 2(N-1)/N of every
/// bucket, at the host link's rate, after the first bucket is ready.
fn check_ring_step_times(r: &Report, what: &str) {
    let c = r.collective.as_ref().expect("collective report");
    assert_eq!(c.steps, 3, "{what}");
    // 8 hosts, 2 buckets of 1 MB: 3.5 MB per host at 10 Gb/s is 2.8 ms, the first bucket
    // ready after 0.5 ms.
    let floor = 500 * crate::time::US + 2_800 * crate::time::US;
    for &t in &c.step_times_ps {
        assert!(t >= floor, "{what}: step {t} ps below the wire's {floor}");
        assert!(t < 3 * floor, "{what}: step {t} ps");
    }
    assert!(
        c.network_share > 0.5 && c.network_share < 1.0,
        "{what}: {}",
        c.network_share
    );
    assert!(c.p99_ps >= c.p50_ps);
    assert_eq!(r.payload_errors, 0);
    assert!(r.stopped.is_none(), "{what}: {:?}", r.stopped);
}

#[test]
fn collective__ring_allreduce_steps_finish_and_respect_the_wire() {
    let mut config = cluster(8, "w3", 0.5, 100, 1);
    config.collective = Some(
        CollectiveSpec::parse("allreduce:hosts=8,bucket=1MB,buckets=2,compute=1ms,steps=3")
            .unwrap(),
    );
    config.load = 0.0;
    let r = run(config.clone());
    check_ring_step_times(&r, "homa");
    assert_eq!(r.messages, 0, "no Poisson messages at load 0");
    assert_eq!(r.generated, 3 * 2 * 14 * 8);
    // The same job beside background RPCs at 20 % load: it still finishes, the RPCs are
    // measured as usual.
    config.load = 0.2;
    let r = run(config);
    assert_eq!(r.collective.as_ref().map(|c| c.steps), Some(3));
    assert!(r.messages > 0);
}

#[test]
fn collective__too_large_a_message_or_too_many_hosts_is_refused() {
    let mut config = cluster(4, "w3", 0.5, 100, 1);
    config.collective =
        Some(CollectiveSpec::parse("allreduce:hosts=8,bucket=1MB,buckets=1,compute=0").unwrap());
    let e = Cluster::new(config.clone()).unwrap_err().to_string();
    assert!(e.contains("collective hosts"), "{e}");
    config.homa.max_message_length = 100_000;
    config.collective = Some(
        CollectiveSpec::parse("allreduce:hosts=4,bucket=1MB,buckets=1,compute=0,algo=tree")
            .unwrap(),
    );
    let e = Cluster::new(config).unwrap_err().to_string();
    assert!(e.contains("max_message_length"), "{e}");
}

#[test]
fn collective__a_lost_job_message_stops_the_run_and_says_so() {
    let mut config = cluster(4, "w3", 0.5, 100, 1);
    config.collective = Some(
        CollectiveSpec::parse("alltoall:hosts=4,bucket=40KB,buckets=1,compute=0,steps=1").unwrap(),
    );
    config.load = 0.0;
    // Nearly every packet is lost: RPCs fail after their timeouts.
    config.fabric.loss_rate = 0.95;
    config.homa.timeout_ticks = 6;
    let r = run(config);
    let stop = r.stopped.expect("the job cannot finish");
    assert!(
        matches!(stop.reason, StopReason::JobMessageLost { .. }),
        "{stop}"
    );
    assert!(stop.to_string().contains("training job"), "{stop}");
    assert_eq!(r.collective.map(|c| c.steps), Some(0));
}
