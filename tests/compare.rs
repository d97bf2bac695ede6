//! `homa-nic compare` end to end: the same messages under every transport, medians over
//! seeds, JSON, chart, and errors for bad input.
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
    std::env::temp_dir().join(format!("homa-nic-compare-{}-{name}", std::process::id()))
}

#[test]
fn compare__runs_every_transport_on_the_same_messages_and_writes_json_and_chart() {
    let json = temp("c.json");
    let svg = temp("c.svg");
    let out = homa_nic(&[
        "compare",
        "--workload",
        "w2",
        "--hosts",
        "4",
        "--messages",
        "200",
        "--seeds",
        "2",
        "--json",
        json.to_str().unwrap(),
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("ratios to homa"), "{stdout}");
    assert!(stdout.contains("<= 10 KB"), "{stdout}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["reference"], "homa");
    let transports = v["transports"].as_array().unwrap();
    let names: Vec<&str> = transports
        .iter()
        .map(|t| t["transport"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["homa", "tcp", "dctcp"]);
    // Per seed, every transport measured messages of the same sizes.
    let counts = |t: &Value, seed: usize| -> Vec<u64> {
        t["runs"][seed]["buckets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["count"].as_u64().unwrap())
            .collect()
    };
    for t in transports {
        assert_eq!(t["runs"].as_array().unwrap().len(), 2);
        for seed in 0..2 {
            assert_eq!(counts(t, seed), counts(&transports[0], seed));
            assert_eq!(t["runs"][seed]["stopped"], Value::Null);
        }
        // The medians' counts add the seeds' counts.
        let total: u64 = t["buckets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["count"].as_u64().unwrap())
            .sum();
        assert_eq!(total, 400);
        for r in t["ranges"].as_array().unwrap() {
            assert!(r["p99_slowdown"].as_f64().unwrap() >= r["p50_slowdown"].as_f64().unwrap());
        }
    }
    let chart = std::fs::read_to_string(&svg).unwrap();
    assert_eq!(
        chart.matches("<polyline").count(),
        6,
        "p50 and p99 per transport"
    );
    assert!(chart.contains("p99 dctcp"));
    let _ = std::fs::remove_file(json);
    let _ = std::fs::remove_file(svg);
}

#[test]
fn compare__bad_input_is_a_clear_error() {
    let cases: [(&[&str], &str); 3] = [
        (&["--seeds", "0"], "--seeds 0"),
        (&["--transports", "tcp,tcp"], "twice"),
        (&["--load", "2"], "load"),
    ];
    for (args, says) in cases {
        let mut all = vec!["compare", "--hosts", "3", "--messages", "10"];
        all.extend_from_slice(args);
        let out = homa_nic(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

#[test]
fn compare__a_training_job_gets_step_times_per_transport() {
    let json = temp("job.json");
    let out = homa_nic(&[
        "compare",
        "--workload",
        "alltoall:hosts=4,bucket=400KB,buckets=2,compute=200us,steps=3",
        "--background",
        "w1",
        "--load",
        "0.1",
        "--messages",
        "50",
        "--seeds",
        "1",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("training job alltoall"), "{stdout}");
    assert!(stdout.contains("p99 step (ms)") && stdout.contains("network wait (%)"));
    assert!(stdout.contains("with w1 RPCs at load 0.1"), "{stdout}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for t in v["transports"].as_array().unwrap() {
        let job = &t["runs"][0]["collective"];
        assert_eq!(job["steps"], 3, "{job}");
        let steps = job["step_ms"].as_array().unwrap();
        assert!(steps.iter().all(|s| s.as_f64().unwrap() >= 0.2), "{job}");
        // The RPCs beside the job were measured.
        assert!(t["runs"][0]["messages"].as_u64().unwrap() > 0);
    }
    let _ = std::fs::remove_file(json);
}
