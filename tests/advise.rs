//! `homa-nic advise` end to end: sizes from a name, a CDF file or a capture, and errors.
#![allow(non_snake_case)]

use etherparse::PacketBuilder;
use homa_nic::capture::CaptureWriter;
use serde_json::Value;
use std::process::{Command, Output};
use std::time::Duration;

fn homa_nic(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_homa-nic"))
        .args(args)
        .output()
        .expect("run homa-nic")
}

fn temp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("homa-nic-advise-{}-{name}", std::process::id()))
}

/// A capture of UDP requests of 100-300 bytes and one TCP transfer of 30,000 bytes.
fn capture() -> Vec<u8> {
    let mut w = CaptureWriter::new(Vec::new()).unwrap();
    let mut t = 0;
    let mut frame = |bytes: Vec<u8>| {
        t += 1;
        w.write(Duration::from_micros(t), &bytes).unwrap();
    };
    for i in 0..60 {
        let b = PacketBuilder::ethernet2([1; 6], [2; 6])
            .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
            .udp(5000, 6000);
        let mut out = Vec::new();
        b.write(&mut out, &vec![0; 100 + (i % 3) * 100]).unwrap();
        frame(out);
    }
    for k in 0..20u32 {
        let b = PacketBuilder::ethernet2([1; 6], [2; 6])
            .ipv4([10, 0, 0, 3], [10, 0, 0, 4], 64)
            .tcp(40000, 80, k * 1_500, 65_000);
        let b = if k == 19 { b.psh() } else { b };
        let mut out = Vec::new();
        b.write(&mut out, &[0; 1_500]).unwrap();
        frame(out);
    }
    w.into_inner()
}

#[test]
fn advise__from_a_capture_infers_sizes_and_advises_with_reasons() {
    let pcap = temp("c.pcap");
    let json = temp("a.json");
    std::fs::write(&pcap, capture()).unwrap();
    let out = homa_nic(&[
        "advise",
        "--pcap",
        pcap.to_str().unwrap(),
        "--load",
        "0.5",
        "--seeds",
        "2",
        "--hosts",
        "4",
        "--messages",
        "300",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("61 messages: 60 UDP datagrams"), "{stdout}");
    assert!(stdout.contains("1 from 1 TCP directions"), "{stdout}");
    assert!(stdout.contains("advice: "), "{stdout}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["seeds"], 2);
    let ranges = v["ranges"].as_array().unwrap();
    assert!(!ranges.is_empty());
    for r in ranges {
        for t in ["homa", "tcp", "dctcp"] {
            assert_eq!(r["per_seed"][t].as_array().unwrap().len(), 2, "{r}");
        }
        assert!(
            ["homa_better", "homa_worse", "undecided"].contains(&r["verdict"].as_str().unwrap())
        );
    }
    assert_eq!(v["reasons"].as_array().unwrap().len(), ranges.len());
    let _ = std::fs::remove_file(pcap);
    let _ = std::fs::remove_file(json);
}

#[test]
fn advise__a_cdf_file_is_read() {
    let cdf = temp("sizes.txt");
    std::fs::write(&cdf, "100 0.5\n2000 0.9\n50000 1\n").unwrap();
    let out = homa_nic(&[
        "advise",
        "--cdf",
        cdf.to_str().unwrap(),
        "--load",
        "0.4",
        "--seeds",
        "2",
        "--hosts",
        "4",
        "--messages",
        "200",
    ]);
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("sizes from"));
    let _ = std::fs::remove_file(cdf);
}

#[test]
fn advise__bad_input_is_a_clear_error() {
    let out = homa_nic(&["advise", "--load", "0.5"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--workload"));
    let out = homa_nic(&[
        "advise",
        "--workload",
        "w1",
        "--load",
        "0.5",
        "--seeds",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("at least 2 runs"));
    let out = homa_nic(&["advise", "--workload", "w1", "--load", "1.5"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid --load 1.5"));
    // A capture with no TCP or UDP payload.
    let empty = temp("empty.pcap");
    std::fs::write(&empty, CaptureWriter::new(Vec::new()).unwrap().into_inner()).unwrap();
    let out = homa_nic(&["advise", "--pcap", empty.to_str().unwrap(), "--load", "0.5"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no TCP or UDP payload"));
    let _ = std::fs::remove_file(empty);
    let out = homa_nic(&["advise", "--pcap", "/nonexistent.pcap", "--load", "0.5"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent.pcap"));
}
