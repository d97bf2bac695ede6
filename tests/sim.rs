//! `homa-nic sim` end to end: the JSON schema, the chart, and errors for bad input.
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

#[test]
fn sim__writes_json_schema_and_chart() {
    // The chart's directory does not exist yet: it is made.
    let json = temp("sim.json");
    let dir = temp("out");
    let svg = dir.join("sim.svg");
    let out = homa_nic(&[
        "sim",
        "--workload",
        "w2",
        "--load",
        "0.5",
        "--hosts",
        "4",
        "--messages",
        "400",
        "--seed",
        "3",
        "--json",
        json.to_str().unwrap(),
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("400 messages measured"), "{stdout}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("seed 3"), "the seed is printed: {stderr}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["workload"], "w2");
    assert_eq!(v["load"], 0.5);
    assert_eq!(v["hosts"], 4);
    assert_eq!(v["messages"], 400);
    assert_eq!(v["payload_errors"], 0);
    assert!(v["wall_seconds"].as_f64().unwrap() > 0.0);
    let buckets = v["buckets"].as_array().unwrap();
    let sizes: Vec<u64> = buckets
        .iter()
        .map(|b| b["max_bytes"].as_u64().unwrap())
        .collect();
    assert!(
        sizes.windows(2).all(|w| w[0] < w[1]),
        "ascending: {sizes:?}"
    );
    let count: u64 = buckets.iter().map(|b| b["count"].as_u64().unwrap()).sum();
    assert_eq!(count, 400);
    for b in buckets {
        assert!(b["p50_slowdown"].as_f64().unwrap() >= 0.99);
        assert!(b["p99_slowdown"].as_f64().unwrap() >= b["p50_slowdown"].as_f64().unwrap());
    }
    // Every packet type by name, and the RPCs that failed.
    let packets = v["packets"].as_object().unwrap();
    for t in [
        "DATA",
        "GRANT",
        "RESEND",
        "RPC_UNKNOWN",
        "BUSY",
        "ACK",
        "NEED_ACK",
        "CUTOFFS",
    ] {
        assert!(packets[t].is_u64(), "{t} in {packets:?}");
    }
    assert!(packets["DATA"].as_u64().unwrap() >= 400);
    assert_eq!(v["rpcs_failed"], 0);
    assert_eq!(v["stopped"], Value::Null);
    let chart = std::fs::read_to_string(&svg).unwrap();
    assert!(chart.starts_with("<svg") && chart.contains("<polyline"));
    let _ = std::fs::remove_file(json);
    let _ = std::fs::remove_file(svg);
    let _ = std::fs::remove_dir(dir);
}

#[test]
fn sim__bad_input_is_a_clear_error() {
    let out = homa_nic(&["sim", "--load", "1.5", "--messages", "10"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid load 1.5"));

    let out = homa_nic(&["sim", "--workload", "w9"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("fixed:BYTES"));

    let config = temp("bad.toml");
    std::fs::write(&config, "max_overcommit = 12\n").unwrap();
    let out = homa_nic(&[
        "sim",
        "--config",
        config.to_str().unwrap(),
        "--messages",
        "10",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("max_overcommit") && stderr.contains("1..=8"),
        "{stderr}"
    );
    let _ = std::fs::remove_file(config);

    let out = homa_nic(&["sim", "--config", "/nonexistent.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent.toml"));
}

#[test]
fn sim__an_output_that_cannot_be_written_fails_before_the_run() {
    // A directory below a plain file cannot be made.
    let file = temp("plain-file");
    std::fs::write(&file, b"x").unwrap();
    let svg = file.join("chart.svg");
    let out = homa_nic(&["sim", "--messages", "400", "--plot", svg.to_str().unwrap()]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("failed to create the directory of") && stderr.contains("chart.svg"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("messages, seed"),
        "no run started: {stderr}"
    );
    std::fs::remove_file(&file).ok();
}

#[test]
fn sim__a_run_that_cannot_finish_stops_names_its_stuck_rpcs_and_fails() {
    // 1 MB messages cannot complete in 1 us: the watchdog stops the run.
    let json = temp("stalled.json");
    let out = homa_nic(&[
        "sim",
        "--workload",
        "fixed:1000000",
        "--hosts",
        "4",
        "--messages",
        "50",
        "--stall-ms",
        "0.001",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the run stopped at"), "{stderr}");
    assert!(stderr.contains("client state Outgoing"), "{stderr}");
    // The report and the JSON still come, with the reason.
    assert!(String::from_utf8_lossy(&out.stdout).contains("messages measured"));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(
        v["stopped"].as_str().unwrap().contains("simulated time"),
        "{v}"
    );
    let _ = std::fs::remove_file(json);
}

#[test]
fn sim__the_small_rpc_timing_fits_a_workload_of_tiny_messages() {
    let out = homa_nic(&[
        "sim",
        "--workload",
        "fixed:1",
        "--hosts",
        "2",
        "--messages",
        "20",
        "--rtt-samples",
        "3",
    ]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("small RPC round trip (1 B request and response"),
        "{stdout}"
    );
}

fn json_of(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn sim__baselines_carry_the_same_messages_and_report_their_transport() {
    let mut counts = Vec::new();
    for transport in ["homa", "tcp", "dctcp"] {
        let json = temp(&format!("{transport}.json"));
        let out = homa_nic(&[
            "sim",
            "--transport",
            transport,
            "--workload",
            "w2",
            "--hosts",
            "4",
            "--messages",
            "300",
            "--rtt-samples",
            "0",
            "--json",
            json.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{transport}: {out:?}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        let v = json_of(&json);
        assert_eq!(v["transport"], transport);
        assert_eq!(v["messages"], 300);
        let buckets: Vec<u64> = v["buckets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["count"].as_u64().unwrap())
            .collect();
        counts.push(buckets);
        if transport == "homa" {
            assert_eq!(v["baseline"], Value::Null);
        } else {
            assert!(
                stdout.contains(&format!("transport {transport}:")),
                "{stdout}"
            );
            let b = &v["baseline"];
            assert!(b["segments"].as_u64().unwrap() >= 300, "{b}");
            assert!(b["acks"].as_u64().unwrap() > 0);
            assert_eq!(v["packets"]["ACK"], b["acks"]);
            if transport == "tcp" {
                assert_eq!(v["ecn_marks"], 0, "plain TCP is not ECN-capable");
            }
        }
        let _ = std::fs::remove_file(json);
    }
    // The same seed gives every transport the same messages: the same sizes per bucket.
    assert_eq!(counts[0], counts[1]);
    assert_eq!(counts[0], counts[2]);
}

#[test]
fn sim__baseline_options_that_do_not_apply_are_refused() {
    let cases: [(&[&str], &str); 3] = [
        (
            &["--transport", "tcp", "--engine", "model-nic"],
            "fast model only",
        ),
        (
            &["--transport", "tcp", "--ecn-threshold-bytes", "9000"],
            "dctcp and pias only",
        ),
        (
            &["--transport", "dctcp", "--pcap", "/tmp/x.pcap"],
            "Homa only",
        ),
    ];
    for (args, says) in cases {
        let mut all = vec!["sim", "--messages", "10"];
        all.extend_from_slice(args);
        let out = homa_nic(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

#[test]
fn sim__a_training_job_reports_its_steps() {
    let json = temp("job.json");
    for transport in ["homa", "dctcp"] {
        let out = homa_nic(&[
            "sim",
            "--transport",
            transport,
            "--workload",
            "allreduce:hosts=4,bucket=1MB,buckets=2,compute=100us,steps=2,algo=tree",
            "--rtt-samples",
            "2",
            "--json",
            json.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{transport}: {out:?}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(stdout.contains("training job allreduce-tree"), "{stdout}");
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(v["hosts"], 4, "the job's hosts by default");
        assert_eq!(v["collective"]["steps"], 2);
        assert!(v["collective"]["network_share"].as_f64().unwrap() > 0.0);
        assert_eq!(v["messages"], 0, "no RPCs without --background");
    }
    let _ = std::fs::remove_file(json);
    let out = homa_nic(&["sim", "--workload", "w3", "--background", "w1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--background applies"));
    let out = homa_nic(&["sim", "--workload", "allreduce:hosts=4,bucket=1MB"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is missing"));
}
