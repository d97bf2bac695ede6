//! `homa-nic bench rpc`: every transport and way of driving is measured, and the JSON holds
//! what the docs say it holds.
#![allow(non_snake_case)]

use serde_json::Value;
use std::process::Command;

#[test]
fn bench_rpc__writes_every_measurement_as_json() {
    let dir = std::env::temp_dir().join(format!("homa-bench-{}", std::process::id()));
    let json = dir.join("rpc.json");
    let out = Command::new(env!("CARGO_BIN_EXE_homa-nic"))
        .args(["bench", "rpc", "--rpcs", "50", "--rate-rpcs", "100"])
        .args([
            "--sim-rpcs",
            "10",
            "--outstanding",
            "8",
            "--no-raw",
            "--json",
        ])
        .arg(&json)
        .output()
        .expect("homa-nic runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let positive = |v: &Value, key: &str| v[key].as_f64().is_some_and(|x| x > 0.0);
    // Without Verilator at build time the NICs are not simulated, and rtl is null.
    let rtl = homa_sim::rtl::MODELS_BUILT;
    let keys: &[&str] = if rtl {
        &["udp", "udp_busy_poll", "memnet", "rtl", "model"]
    } else {
        &["udp", "udp_busy_poll", "memnet", "model"]
    };
    for &key in keys {
        for field in ["p50_ns", "p99_ns", "rate_per_s"] {
            assert!(positive(&v[key], field), "{key}.{field}: {v}");
        }
        assert!(
            v[key]["p99_ns"].as_u64() >= v[key]["p50_ns"].as_u64(),
            "{key}: {v}"
        );
    }
    if rtl {
        assert!(positive(&v["rtl"], "p50_cycles"), "{v}");
        // The stages of the RTL round trip add up to it (within a few cycles of rounding).
        let stages = v["rtl"]["breakdown"].as_object().expect("a breakdown");
        let sum: f64 = stages.values().filter_map(Value::as_f64).sum();
        let p50 = v["rtl"]["p50_ns"].as_f64().unwrap();
        assert!(
            (sum - p50).abs() < 50.0,
            "{sum} ns of stages for {p50} ns: {v}"
        );
        assert!(positive(&v["rtl"], "floor_ns"), "{v}");
        // The on-chip TX path leaves no descriptor or payload fetch in the small RPC.
        for stage in ["descriptor fetch (PCIe read)", "payload fetch (PCIe read)"] {
            assert_eq!(stages[stage].as_f64(), Some(0.0), "{stage}: {v}");
        }
    } else {
        assert!(v["rtl"].is_null(), "{v}");
        println!("{}", homa_sim::rtl::SKIP_MESSAGE);
    }
    assert_eq!(
        v["memnet_by_drive"].as_object().map(|m| m.len()),
        Some(3),
        "{v}"
    );
    assert!(v["memnet"]["drive"].is_string(), "{v}");
    assert!(v["rawip"].is_null(), "--no-raw: {v}");
    assert!(stdout.contains("UDP socket ping-pong"), "{stdout}");
    assert!(
        stdout.contains("UDP socket ping-pong, busy-poll"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
