//! `homa-nic synth`: resource estimates of the generated blocks from Yosys `synth_xilinx`
//! (7-series cells; no Vivado here), one row per block.

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

/// One block's cell counts.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Resources {
    pub(crate) luts: u64,
    /// LUTs used as distributed RAM (in SLICEMs), apart from `luts`.
    pub(crate) lutram: u64,
    pub(crate) ffs: u64,
    pub(crate) carry: u64,
    pub(crate) muxf: u64,
    pub(crate) bram: u64,
    /// Yosys `ltp -noff`: the longest path in cells between flip-flops and ports.
    pub(crate) depth: Option<u64>,
}

/// Sums Yosys `stat` cell lines into [`Resources`] and reads the `ltp` length.
pub(crate) fn parse(stat: &str, ltp: &str) -> Resources {
    let mut r = Resources::default();
    for line in stat.lines() {
        let mut it = line.split_whitespace();
        let (Some(cell), Some(n)) = (it.next(), it.next()) else {
            continue;
        };
        let Ok(n) = n.parse::<u64>() else { continue };
        match cell {
            c if c.starts_with("LUT") => r.luts += n,
            "FDRE" | "FDSE" | "FDCE" | "FDPE" => r.ffs += n,
            c if c.starts_with("CARRY") => r.carry += n,
            c if c.starts_with("MUXF") => r.muxf += n,
            c if c.starts_with("RAMB") => r.bram += n,
            c if c.starts_with("RAM") => r.lutram += n * lutram_luts(c),
            _ => {}
        }
    }
    r.depth = ltp
        .lines()
        .find_map(|l| l.split("(length=").nth(1))
        .and_then(|s| s.trim_end_matches(['(', ')', ':']).parse().ok());
    r
}

/// LUTs one distributed-RAM primitive occupies (UG474: RAM32M/RAM64M take a SLICEM's four).
fn lutram_luts(cell: &str) -> u64 {
    match cell {
        "RAM32X1S" | "RAM64X1S" => 1,
        "RAM32X1D" | "RAM64X1D" | "RAM128X1S" => 2,
        "RAM32M" | "RAM64M" | "RAM128X1D" | "RAM256X1S" => 4,
        _ => 8, // RAM32M16, RAM64M8, RAM256X1D
    }
}

fn synth_one(rtl: &Path, module: &str, work: &Path) -> Result<Resources> {
    let file = rtl.join(format!("{module}.v"));
    let (stat, ltp) = (
        work.join(format!("{module}.stat")),
        work.join(format!("{module}.ltp")),
    );
    let script = format!(
        "read_verilog {}; synth_xilinx -top {module} -flatten; tee -q -o {} stat; tee -q -o {} ltp -noff",
        file.display(),
        stat.display(),
        ltp.display()
    );
    let out = Command::new("yosys")
        .args(["-q", "-p", &script])
        .output()
        .context("failed to run yosys: install it with scripts/setup.sh (Debian package yosys)")?;
    if !out.status.success() {
        bail!(
            "yosys failed on {}: {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let read = |p: &Path| std::fs::read_to_string(p).with_context(|| format!("no {}", p.display()));
    Ok(parse(&read(&stat)?, &read(&ltp)?))
}

/// Synthesises every block listed in `hw/rtl/models.txt` (or just `only`) and prints a table.
pub(crate) fn run(rtl: &Path, only: Option<&str>) -> Result<()> {
    let manifest = rtl.join("models.txt");
    let text = std::fs::read_to_string(&manifest)
        .with_context(|| format!("failed to read {}", manifest.display()))?;
    let modules: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|m| only.is_none_or(|o| o == *m))
        .collect();
    if modules.is_empty() {
        bail!("no block named {only:?} in {}", manifest.display());
    }
    let work: PathBuf = std::env::temp_dir().join(format!("homa-nic-synth-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    println!(
        "{:<24} {:>7} {:>7} {:>7} {:>6} {:>6} {:>5} {:>6}",
        "block", "LUT", "LUTRAM", "FF", "CARRY", "MUXF", "BRAM", "depth"
    );
    for m in modules {
        let r = synth_one(rtl, m, &work)?;
        println!(
            "{m:<24} {:>7} {:>7} {:>7} {:>6} {:>6} {:>5} {:>6}",
            r.luts,
            r.lutram,
            r.ffs,
            r.carry,
            r.muxf,
            r.bram,
            r.depth.map_or("-".into(), |d| d.to_string())
        );
    }
    let _ = std::fs::remove_dir_all(&work);
    println!(
        "(Yosys synth_xilinx, 7-series cells; LUTRAM = LUTs used as distributed RAM, not in LUT; \
         depth = ltp -noff, cells on the longest path)"
    );
    Ok(())
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn parse__sums_cell_classes_and_reads_depth() {
        let stat = "   Number of cells: 9\n     CARRY4 202\n     FDRE 3252\n     FDSE 3\n     LUT2 378\n     LUT6 756\n     MUXF7 220\n     RAMB36E1 2\n     RAM32M 96\n     RAM64X1D 3\n     OBUF 953\n";
        let ltp = "Longest topological path in top (length=200):\n";
        assert_eq!(
            parse(stat, ltp),
            Resources {
                luts: 1134,
                lutram: 390,
                ffs: 3255,
                carry: 202,
                muxf: 220,
                bram: 2,
                depth: Some(200)
            }
        );
    }
}
