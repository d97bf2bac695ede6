//! `homa-nic sim --engine rtl` end to end: a cluster over Verilated NICs, its JSON fields,
//! and the wire capture read back by `homa-nic decode` and by tshark.
#![allow(non_snake_case)]

use serde_json::Value;
use std::process::{Command, Output};

fn homa_nic(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_homa-nic"))
        .args(args)
        .output()
        .expect("run homa-nic")
}

fn temp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("homa-nic-{}-{name}", std::process::id()))
}

/// Whether the Verilated models exist (Verilator present at build time).
fn rtl_built(test: &str) -> bool {
    if !homa_sim::rtl::MODELS_BUILT {
        eprintln!("SKIP {test}: {}", homa_sim::rtl::SKIP_MESSAGE);
    }
    homa_sim::rtl::MODELS_BUILT
}

#[test]
fn sim_rtl__json_fields_and_a_capture_decode_and_tshark_read() {
    if !rtl_built("sim_rtl__json_fields_and_a_capture_decode_and_tshark_read") {
        return;
    }
    let json = temp("rtl.json");
    let pcap = temp("rtl.pcap");
    let out = homa_nic(&[
        "sim",
        "--engine",
        "rtl",
        "--workload",
        "fixed:20000",
        "--load",
        "0.5",
        "--messages",
        "60",
        "--rtt-samples",
        "3",
        "--json",
        json.to_str().unwrap(),
        "--pcap",
        pcap.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("engine rtl"), "{stdout}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["engine"], "rtl");
    assert_eq!(v["hosts"], 4, "four hosts by default");
    assert_eq!(v["messages"], 60);
    assert_eq!(v["payload_errors"], 0);
    assert!(v["rpcs"].as_u64().unwrap() >= 60, "{v}");
    let rtt = v["small_rpc_rtt_ns"].as_f64().unwrap();
    // Two PCIe crossings of 500 ns per direction bound it from below.
    assert!(rtt > 2_000.0 && rtt < 10_000.0, "{rtt}");
    assert_eq!(
        v["small_rpc_rtt_cycles"].as_u64().unwrap(),
        (rtt * 0.25) as u64,
        "cycles at 250 MHz"
    );
    let nic = &v["nic"];
    assert_eq!(nic["parse_mismatches"], 0);
    let grants = nic["grants_sent"].as_u64().unwrap();
    assert!(grants > 60, "20 kB messages need grants: {nic}");

    // The capture: every frame decodes; the GRANTs are the hardware's.
    let out = homa_nic(&["decode", pcap.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let grant_lines = text.lines().filter(|l| l.contains(" GRANT ")).count() as u64;
    let data_lines = text.lines().filter(|l| l.contains(" DATA ")).count();
    assert_eq!(
        grant_lines, grants,
        "every hardware GRANT is in the capture"
    );
    assert!(data_lines > 60 * 14, "{data_lines} DATA frames");

    if Command::new("tshark").arg("--version").output().is_err() {
        eprintln!("SKIP the tshark half: tshark is not installed (scripts/setup.sh installs it)");
        return;
    }
    let out = Command::new("tshark")
        .args(["-n", "-o", "ip.check_checksum:TRUE", "-r"])
        .arg(&pcap)
        .args(["-T", "fields", "-e", "ip.proto", "-e", "ip.checksum.status"])
        .output()
        .expect("run tshark");
    assert!(out.status.success(), "{out:?}");
    let rows = String::from_utf8(out.stdout).unwrap();
    let n = rows.lines().count();
    assert_eq!(n, text.lines().count(), "tshark sees every frame");
    assert!(
        rows.lines().all(|r| r == "146\t1"),
        "IPv4 protocol 146 with good header checksums"
    );
}

#[test]
fn sim_rtl__refuses_a_bad_clock() {
    let out = homa_nic(&["sim", "--engine", "rtl", "--clock-mhz", "5"]);
    assert_eq!(out.status.code(), Some(2), "usage errors exit 2");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("--clock-mhz 5"), "{stderr}");
}
