//! `homa-nic probe` end to end. This machine has no homa-nic, no /dev/vfio and no IOMMU
//! (DESIGN.md §7), so the command must fail with exit status 1 and a message that names the
//! device and the fix; the report itself is tested on `MemDevice` in src/cmd_probe.rs.
#![allow(non_snake_case)]

use std::process::{Command, Output};

fn homa_nic(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_homa-nic"))
        .args(args)
        .output()
        .expect("run homa-nic")
}

#[test]
fn probe__without_the_device_fails_clearly() {
    let out = homa_nic(&["probe", "--pci", "0000:01:00.0"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {stderr}");
    assert!(out.stdout.is_empty());
    assert!(
        stderr.starts_with("homa-nic: error: failed to "),
        "{stderr}"
    );
    assert!(
        stderr.contains("0000:01:00.0"),
        "names the device: {stderr}"
    );
    assert!(
        stderr.contains("scripts/bind-vfio.sh 0000:01:00.0"),
        "says what to do: {stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn probe__refuses_a_malformed_address() {
    let out = homa_nic(&["probe", "--pci", "1:0.0"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {stderr}");
    assert!(
        stderr.contains("failed to parse PCI address `1:0.0`: expected domain:bus:device.function"),
        "{stderr}"
    );
}

#[test]
fn probe__requires_the_address() {
    let out = homa_nic(&["probe"]);
    assert_eq!(out.status.code(), Some(2), "clap's usage error");
}

#[test]
fn probe__sim_reads_the_verilated_nic_through_the_driver() {
    if !homa_sim::rtl::MODELS_BUILT {
        eprintln!("SKIP probe__sim: {}", homa_sim::rtl::SKIP_MESSAGE);
        return;
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_homa-nic"))
        .args(["probe", "--sim"])
        .output()
        .expect("run homa-nic");
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Verilated homa_nic_core_w512"), "{text}");
    for block in [
        "ID at 0x0000",
        "CONFIG at 0x0100",
        "GRANT at 0x0300",
        "QUEUE at 0x0500",
    ] {
        assert!(text.contains(block), "{block}: {text}");
    }
    assert!(text.contains("datapath 512 bits"), "{text}");
    assert!(text.contains("releases"), "{text}");
}
