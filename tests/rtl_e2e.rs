//! End-to-end RPCs over Verilated NICs (`homa_sim::cluster` with `Engine::Rtl`): each host
//! runs the protocol engine over a Verilated homa-nic core that parses every frame and
//! decides and builds every GRANT. Payloads are verified byte for byte at both ends.
#![allow(non_snake_case)]

use homa_sim::cluster::{Cluster, ClusterConfig, Engine, Pattern, Report};
use homa_sim::fabric::{FabricConfig, Topology};
use homa_sim::nic::NicTiming;
use homa_sim::preset::{Preset, config_for};
use homa_sim::time::MS;
use homa_sim::workload::Workload;

fn built(test: &str) -> bool {
    if !homa_sim::rtl::MODELS_BUILT {
        eprintln!("SKIP {test}: {}", homa_sim::rtl::SKIP_MESSAGE);
    }
    homa_sim::rtl::MODELS_BUILT
}

fn config(hosts: usize, workload: &str, load: f64, messages: u64, loss: f64) -> ClusterConfig {
    // Real frames: Homa's 1 MB message limit holds.
    let (workload, _) = Workload::parse(workload).unwrap().capped(1_000_000);
    let fabric = FabricConfig {
        loss_rate: loss,
        ..FabricConfig::nic_100g(7)
    };
    let mut homa = config_for(Preset::Paper, &workload, fabric.host_link_bps);
    homa.tick_usecs = 10;
    ClusterConfig {
        topology: Topology::SingleSwitch { hosts },
        homa,
        fabric,
        workload,
        load,
        messages,
        seed: 7,
        time_limit_ps: 1_000 * MS,
        pattern: Pattern::Uniform,
        engine: Engine::Rtl(NicTiming::default()),
        watchdog: Default::default(),
        collective: None,
    }
}

fn check(r: &Report, messages: u64) {
    assert_eq!(r.messages, messages, "every measured message arrived");
    assert_eq!(r.payload_errors, 0);
    assert_eq!(r.timeouts, 0);
    let nic = r.nic.as_ref().expect("a NIC report");
    assert_eq!(nic.parse_mismatches, 0, "{nic:?}");
    assert_eq!(
        nic.frames_dropped, 0,
        "no malformed frames on this network: {nic:?}"
    );
    // The NICs sent every DATA frame, from the descriptors their hosts posted.
    assert!(nic.data_frames > 0 && nic.tx_descriptors > 0, "{nic:?}");
    assert_eq!(nic.tx_errors, 0, "{nic:?}");
}

#[test]
fn rtl_e2e__rpcs_from_1_byte_to_1_mb_byte_for_byte() {
    if !built("rtl_e2e__rpcs_from_1_byte_to_1_mb_byte_for_byte") {
        return;
    }
    for size in [1, 100, 1_400, 1_500, 9_000, 60_000, 300_000, 1_000_000] {
        let c = config(2, &format!("fixed:{size}"), 0.5, 1, 0.0);
        let rtts =
            Cluster::round_trips(c, size, size, 2).unwrap_or_else(|e| panic!("{size} bytes: {e}"));
        // At least the serialisation of both messages at 100 Gb/s.
        let floor = 2 * u64::from(size) * 8 * 10;
        assert!(rtts.iter().all(|&r| r > floor), "{size} bytes: {rtts:?}");
    }
}

#[test]
fn rtl_e2e__many_concurrent_messages_on_eight_hosts() {
    if !built("rtl_e2e__many_concurrent_messages_on_eight_hosts") {
        return;
    }
    let r = Cluster::new(config(8, "w3", 0.8, 1_500, 0.0))
        .unwrap()
        .run(&mut |_| {});
    check(&r, 1_500);
    let nic = r.nic.unwrap();
    assert!(nic.grants_sent > 100, "{nic:?}");
}

#[test]
fn rtl_e2e__losses_on_the_fabric_are_repaired() {
    if !built("rtl_e2e__losses_on_the_fabric_are_repaired") {
        return;
    }
    let r = Cluster::new(config(4, "fixed:100000", 0.5, 100, 0.02))
        .unwrap()
        .run(&mut |_| {});
    check(&r, 100);
    assert!(r.fabric.injected_losses > 0);
    let resends = r
        .packets_by_type
        .iter()
        .find(|(t, _)| *t == "RESEND")
        .map_or(0, |(_, n)| *n);
    assert!(resends > 0, "losses were repaired by RESEND");
    let nic = r.nic.unwrap();
    assert!(nic.grants_sent > 0);
    assert!(
        nic.tx_descriptors > r.completed,
        "RESENDs answered by RETRANSMIT descriptors: {nic:?}"
    );
}
