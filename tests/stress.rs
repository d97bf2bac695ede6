//! `homa-nic stress`: a slice of the matrix runs and passes, its table and JSON are
//! written, and bad arguments are refused with a message.
#![allow(non_snake_case)]

use serde_json::Value;
use std::process::{Command, Output};

fn homa_nic(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_homa-nic"))
        .args(args)
        .output()
        .expect("homa-nic runs")
}

#[test]
fn stress__quick_w1_cases_pass_and_are_written() {
    let dir = std::env::temp_dir().join(format!("homa-stress-{}", std::process::id()));
    let (md, json) = (dir.join("t.md"), dir.join("t.json"));
    let out = homa_nic(&[
        "stress",
        "--engine",
        "model",
        "--quick",
        "--only",
        "w1",
        "--markdown",
        md.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("2 runs, 2 passed, 0 failed"), "{stdout}");
    let table = std::fs::read_to_string(&md).unwrap();
    assert_eq!(
        table.lines().filter(|l| l.contains("| w1 |")).count(),
        2,
        "{table}"
    );
    let runs: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(runs.len(), 2);
    for r in &runs {
        assert_eq!(r["payload_errors"], 0);
        assert_eq!(r["failures"].as_array().map(Vec::len), Some(0), "{r}");
        assert!(r["packets"]["DATA"].as_u64().unwrap() > 0);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn stress__bad_arguments_are_refused() {
    let out = homa_nic(&["stress", "--engine", "model", "--only", "w9"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no case matches --only"));
    let out = homa_nic(&["stress", "--stall-ms", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--stall-ms"));
}
