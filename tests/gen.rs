//! `homa-nic gen` writes exactly the committed `hw/rtl/` files.
#![allow(non_snake_case)]

use std::path::Path;
use std::process::Command;

#[test]
fn gen__writes_the_committed_rtl() {
    let out = std::env::temp_dir().join(format!("homa-nic-gen-{}", std::process::id()));
    let status = Command::new(env!("CARGO_BIN_EXE_homa-nic"))
        .args(["gen", "--out"])
        .arg(&out)
        .status()
        .expect("run homa-nic gen");
    assert!(status.success());
    let rtl = Path::new(env!("CARGO_MANIFEST_DIR")).join("hw/rtl");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&out).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_owned();
        let committed = std::fs::read_to_string(rtl.join(&name)).unwrap_or_default();
        assert!(
            std::fs::read_to_string(&path).unwrap() == committed,
            "{name:?} differs from hw/rtl: run UPDATE_RTL=1 cargo test -p homa-hw"
        );
        names.push(name);
    }
    assert!(names.len() >= 3, "{names:?}");
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn gen__lists_every_module_as_json() {
    let out = Command::new(env!("CARGO_BIN_EXE_homa-nic"))
        .args(["gen", "--list", "--json"])
        .output()
        .expect("run homa-nic gen --list --json");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("JSON");
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("hw/rtl/models.txt"))
            .unwrap();
    let listed: Vec<&str> = manifest
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let names: Vec<&str> = rows.iter().filter_map(|r| r["module"].as_str()).collect();
    assert_eq!(names, listed, "the list is the Verilator manifest's");
    let roles = [
        "parser",
        "msg_table",
        "grant",
        "grant_framer",
        "tx_sched",
        "tx_srpt",
        "data_framer",
        "tx_engine",
        "queue",
        "core",
    ];
    for r in &rows {
        let role = r["role"].as_str().unwrap_or_default();
        assert!(roles.contains(&role) || role.starts_with("host_"), "{r}");
        assert!(r["capacity"].is_null() || r["capacity"].as_u64().is_some_and(|c| c > 0));
        assert!(r["width"].is_null() || r["width"].as_u64().is_some_and(|w| w >= 64));
    }
    let grants: Vec<u64> = (rows.iter())
        .filter(|r| r["role"] == "grant")
        .filter_map(|r| r["capacity"].as_u64())
        .collect();
    assert!(
        grants.contains(&16),
        "the 16-slot grant generator: {grants:?}"
    );
    assert!(
        grants.contains(&1024),
        "the one over every table entry: {grants:?}"
    );
}

#[test]
fn gen__wants_a_directory_or_the_list() {
    let out = Command::new(env!("CARGO_BIN_EXE_homa-nic"))
        .arg("gen")
        .output()
        .expect("run homa-nic gen");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--out"));
}
