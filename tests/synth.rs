//! The generated RTL synthesises under Yosys (`homa-nic synth`), with plausible counts.
#![allow(non_snake_case)]

use std::process::Command;

#[test]
fn synth__rx_parser_w64_synthesises() {
    if Command::new("yosys").arg("-V").output().is_err() {
        eprintln!(
            "SKIP synth__rx_parser_w64_synthesises: yosys is not installed (scripts/setup.sh installs it)"
        );
        return;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_homa-nic"))
        .args(["synth", "--block", "homa_rx_parser_w64", "--rtl"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/hw/rtl"))
        .output()
        .expect("run homa-nic synth");
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let row = text
        .lines()
        .find(|l| l.starts_with("homa_rx_parser_w64"))
        .expect("a row for the block");
    let n: Vec<u64> = row
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    let (luts, ffs) = (n[0], n[1]);
    assert!((500..50_000).contains(&luts), "{row}");
    assert!((500..50_000).contains(&ffs), "{row}");
}

#[test]
fn synth__unknown_block_is_an_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_homa-nic"))
        .args(["synth", "--block", "nope", "--rtl"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/hw/rtl"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no block named"));
}
