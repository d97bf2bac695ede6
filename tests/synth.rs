//! The generated RTL synthesises under Yosys (`homa-nic synth`), with plausible counts.
#![allow(non_snake_case)]

use std::process::Command;

/// The table row of `block` in `homa-nic synth`'s output, and its numbers.
fn row_of<T: std::str::FromStr>(stdout: &[u8], block: &str) -> (String, Vec<T>) {
    let text = String::from_utf8_lossy(stdout);
    let row = text
        .lines()
        .find(|l| l.starts_with(block))
        .expect("a row for the block")
        .to_string();
    eprintln!("{row}");
    let n = row
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    (row, n)
}

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
    let (row, n) = row_of::<u64>(&out.stdout, block);
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

/// `synth --pnr` places and routes a block on the ECP5-85 and reports its Fmax. It needs
/// Yosys and nextpnr-ecp5 (scripts/setup.sh installs both); CI (HOMA_REQUIRE_RTL) has them.
#[test]
fn synth_pnr__the_completion_writer_places_and_routes() {
    let block = "homa_host_cq_w512";
    let out = Command::new(env!("CARGO_BIN_EXE_homa-nic"))
        .args(["synth", "--pnr", "--block", block, "--rtl"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/hw/rtl"))
        .output()
        .expect("run homa-nic synth --pnr");
    let err = String::from_utf8_lossy(&out.stderr);
    let missing = err.contains("no nextpnr-ecp5") || err.contains("failed to start yosys");
    if !out.status.success() && missing && std::env::var_os("HOMA_REQUIRE_RTL").is_none() {
        eprintln!("SKIP synth_pnr__the_completion_writer_places_and_routes: {err}");
        return;
    }
    assert!(out.status.success(), "{err}");
    let (row, n) = row_of::<f64>(&out.stdout, block);
    assert_eq!(n.len(), 4, "LUT4, FF, BRAM, Fmax: {row}");
    let (lut4, ff, fmax) = (n[0], n[1], n[3]);
    // 786 LUT4, 65 FF and 118 MHz when measured; routing varies with the tools' version.
    assert!((300.0..3_000.0).contains(&lut4), "{row}");
    assert!((30.0..300.0).contains(&ff), "{row}");
    assert!((40.0..400.0).contains(&fmax), "{row}");
}
