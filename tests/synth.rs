//! The generated RTL synthesises under Yosys (`homa-nic synth`), with plausible counts.
#![allow(non_snake_case)]

use std::process::Command;

/// The counts of `homa-nic synth --block <block>`: LUT, LUTRAM, FF, CARRY, MUXF, BRAM, then the
/// longest path's cells, LUTs, CARRY4s and MUXFs; `None` (with a message) when Yosys is not
/// installed.
fn synth(test: &str, block: &str) -> Option<Vec<u64>> {
    if Command::new("yosys").arg("-V").output().is_err() {
        eprintln!("SKIP {test}: yosys is not installed (scripts/setup.sh installs it)");
        return None;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_homa-nic"))
        .args(["synth", "--block", block, "--rtl"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/hw/rtl"))
        .output()
        .expect("run homa-nic synth");
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let row = text
        .lines()
        .find(|l| l.starts_with(block))
        .expect("a row for the block");
    eprintln!("{row}");
    let n: Vec<u64> = row
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    assert_eq!(n.len(), 10, "{row}");
    // The path ends at registers: it is made of the counted kinds (and a few others, such as
    // distributed RAM read ports), has at least one LUT, and is far shorter than a walk
    // through the state feedback would be.
    let (cells, on_path) = (n[6], n[7] + n[8] + n[9]);
    assert!(n[7] > 0 && on_path <= cells && cells < 200, "{row}");
    assert!(!row.contains("(loops)"), "{row}");
    Some(n)
}

#[test]
fn synth__rx_parser_w64_synthesises() {
    let Some(n) = synth("synth__rx_parser_w64_synthesises", "homa_rx_parser_w64") else {
        return;
    };
    let (luts, ffs) = (n[0], n[2]);
    assert!((500..50_000).contains(&luts), "{n:?}");
    assert!((500..50_000).contains(&ffs), "{n:?}");
}

#[test]
fn synth__rx_ring_fifo_is_in_lut_ram() {
    // 64 descriptors of 128 bits plus a status byte: 96 RAM32M, 384 LUTs as RAM; the flop
    // FIFO of 16 it replaced took 11785 LUTs.
    let Some(n) = synth("synth__rx_ring_fifo_is_in_lut_ram", "homa_host_rxq_w512") else {
        return;
    };
    let (luts, lutram, ffs) = (n[0], n[1], n[2]);
    assert!((256..=1024).contains(&lutram), "{n:?}");
    assert!(luts < 5_000 && ffs < 1_000, "{n:?}");
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
