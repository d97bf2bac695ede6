//! `homa-nic synth`: resource estimates of the generated blocks from Yosys `synth_xilinx`
//! (7-series cells; no Vivado here), one row per block, and the longest combinational path
//! between registers (Yosys `ltp` over the mapped cells with the flip-flops, block RAMs and
//! I/O buffers left out, so a path ends at a register), with the LUTs, carry cells and wide
//! muxes on it: the logic levels that decide whether a block closes timing.
//!
//! Yosys' `ltp -noff` alone knows only its own internal flip-flop types, not the Xilinx
//! `FDRE` cells `synth_xilinx` maps to: on a mapped netlist it walks through every register
//! and reports a path through the state feedback (876 cells for the transmit scheduler,
//! 77 once the registers end the path). The selection below makes the registers end it.

use anyhow::{Context, Result, bail};
use std::collections::HashSet;
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
    /// The longest combinational path between registers and ports.
    pub(crate) path: Option<LongestPath>,
}

/// The cells on a block's longest combinational path.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LongestPath {
    /// Cells on it (LUTs, carry cells, wide muxes, distributed RAM read ports).
    pub(crate) cells: u64,
    /// LUTs on it: the logic levels that cost routing.
    pub(crate) luts: u64,
    /// `CARRY4` cells on it (fast, chained: a 32-bit compare is 8 of them).
    pub(crate) carry: u64,
    /// `MUXF7`/`MUXF8` on it (wide functions: a LUT level and a bit).
    pub(crate) muxf: u64,
    /// Yosys found combinational loops: through distributed RAM (write data from read data,
    /// which `ltp` cannot tell from a loop) or a real one. The path may then be cut short.
    pub(crate) loops: bool,
}

/// Cells Yosys mapped, by name, from `select -list` output (`module/name` per line).
#[derive(Debug, Default)]
pub(crate) struct CellKinds {
    pub(crate) luts: HashSet<String>,
    pub(crate) carry: HashSet<String>,
    pub(crate) muxf: HashSet<String>,
}

impl CellKinds {
    fn names(list: &str) -> HashSet<String> {
        list.lines()
            .filter_map(|l| l.trim().split_once('/'))
            .map(|(_, name)| name.to_string())
            .collect()
    }

    /// The three lists as `select -list t:LUT*`, `t:CARRY*` and `t:MUXF*` print them.
    pub(crate) fn from_lists(luts: &str, carry: &str, muxf: &str) -> Self {
        Self {
            luts: Self::names(luts),
            carry: Self::names(carry),
            muxf: Self::names(muxf),
        }
    }
}

/// Reads `ltp`'s path (`length=N`, then one `i: wire (via cell)` line per cell) and counts
/// its cells by kind; `None` when there is no path line.
pub(crate) fn parse_path(ltp: &str, kinds: &CellKinds, loops: bool) -> Option<LongestPath> {
    let cells = ltp
        .lines()
        .find_map(|l| l.split("(length=").nth(1))
        .and_then(|s| s.trim_end_matches(['(', ')', ':']).parse().ok())?;
    let mut p = LongestPath {
        cells,
        loops,
        ..LongestPath::default()
    };
    for via in ltp
        .lines()
        .filter_map(|l| l.rsplit_once("(via ").map(|(_, v)| v.trim_end_matches(')')))
    {
        if kinds.luts.contains(via) {
            p.luts += 1;
        } else if kinds.carry.contains(via) {
            p.carry += 1;
        } else if kinds.muxf.contains(via) {
            p.muxf += 1;
        }
    }
    Some(p)
}

/// The `cell count` lines of Yosys `stat` output.
pub(crate) fn stat_cells(stat: &str) -> impl Iterator<Item = (&str, u64)> {
    stat.lines().filter_map(|line| {
        let mut it = line.split_whitespace();
        let (cell, n) = (it.next()?, it.next()?);
        Some((cell, n.parse().ok()?))
    })
}

/// Sums Yosys `stat` cell lines into [`Resources`] (the path is filled in apart).
pub(crate) fn parse(stat: &str) -> Resources {
    let mut r = Resources::default();
    for (cell, n) in stat_cells(stat) {
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
    let out_file = |what: &str| work.join(format!("{module}.{what}"));
    let [stat, ltp, luts, carry, muxf] = ["stat", "ltp", "luts", "carry", "muxf"].map(out_file);
    // The path: every cell but registers, block RAMs and I/O buffers (so a path ends at a
    // register or a port), then the names of the cells of each kind to classify it.
    let script = format!(
        "read_verilog {}; synth_xilinx -top {module} -flatten; tee -q -o {} stat; \
         tee -q -o {} ltp -noff t:FD* t:RAMB* t:IBUF t:OBUF t:BUFG %u %u %u %u %n; \
         tee -q -o {} select -list t:LUT*; tee -q -o {} select -list t:CARRY*; \
         tee -q -o {} select -list t:MUXF*",
        file.display(),
        stat.display(),
        ltp.display(),
        luts.display(),
        carry.display(),
        muxf.display()
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
    let read =
        |p: &PathBuf| std::fs::read_to_string(p).with_context(|| format!("no {}", p.display()));
    let loops = String::from_utf8_lossy(&out.stderr).contains("Detected loop");
    let kinds = CellKinds::from_lists(&read(&luts)?, &read(&carry)?, &read(&muxf)?);
    let mut r = parse(&read(&stat)?);
    r.path = parse_path(&read(&ltp)?, &kinds, loops);
    Ok(r)
}

/// Synthesises every block listed in `hw/rtl/models.txt` (or just `only`) and prints a table:
/// Yosys `synth_xilinx` resources and logic levels, or with `pnr` the ECP5 place-and-route
/// measurement (`crate::pnr`).
/// With `json`, one JSON array of [`Row`]s instead of the table.
pub(crate) fn run(rtl: &Path, only: Option<&str>, pnr: bool, json: bool) -> Result<()> {
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
    let result = match (json, pnr) {
        (true, _) => run_json(rtl, &modules, &work, pnr),
        (false, true) => run_pnr(rtl, &modules, &work),
        (false, false) => run_xilinx(rtl, &modules, &work),
    };
    let _ = std::fs::remove_dir_all(&work);
    result
}

/// The `--json` rows of `modules`: `synth_xilinx`'s, or with `pnr` place and route's.
fn run_json(rtl: &Path, modules: &[&str], work: &Path, pnr: bool) -> Result<()> {
    let rows = modules
        .iter()
        .map(|m| match pnr {
            true => crate::pnr::place_and_route(rtl, m, work).map(|p| Row::placed(m, &p)),
            false => synth_one(rtl, m, work).map(|r| Row::mapped(m, &r)),
        })
        .collect::<Result<Vec<_>>>()?;
    println!("{}", serde_json::to_string_pretty(&rows)?);
    Ok(())
}

/// The `synth_xilinx` table of `modules`.
fn run_xilinx(rtl: &Path, modules: &[&str], work: &Path) -> Result<()> {
    println!(
        "{:<24} {:>7} {:>7} {:>7} {:>6} {:>6} {:>5}   {:>5} {:>4} {:>5} {:>4}",
        "block", "LUT", "LUTRAM", "FF", "CARRY", "MUXF", "BRAM", "path", "LUT", "CARRY", "MUXF"
    );
    for m in modules {
        let r = synth_one(rtl, m, work)?;
        let path = r.path.map_or_else(
            || format!("{:>5} {:>4} {:>5} {:>4}", "-", "-", "-", "-"),
            |p| {
                format!(
                    "{:>5} {:>4} {:>5} {:>4}{}",
                    p.cells,
                    p.luts,
                    p.carry,
                    p.muxf,
                    if p.loops { " (loops)" } else { "" }
                )
            },
        );
        println!(
            "{m:<24} {:>7} {:>7} {:>7} {:>6} {:>6} {:>5}   {path}",
            r.luts, r.lutram, r.ffs, r.carry, r.muxf, r.bram
        );
    }
    println!(
        "(Yosys synth_xilinx, 7-series cells; LUTRAM = LUTs used as distributed RAM, not in LUT. \
         path = the longest combinational path between registers and ports, in cells, and the \
         LUTs, CARRY4s and MUXFs on it; at 250 MHz (4 ns) an UltraScale+ part fits about \
         6-8 LUT levels with their routing, a CARRY4 adds tens of ps. (loops) = Yosys saw \
         combinational loops, through distributed RAM or real: that path may be cut short.)"
    );
    Ok(())
}

/// One block in `--json`: the `synth_xilinx` columns, or with `--pnr` the ECP5 ones (the
/// others null).
#[derive(Debug, Default, serde::Serialize, PartialEq)]
pub(crate) struct Row {
    module: String,
    lut: Option<u64>,
    lutram: Option<u64>,
    ff: Option<u64>,
    carry: Option<u64>,
    muxf: Option<u64>,
    bram: Option<u64>,
    path_cells: Option<u64>,
    path_luts: Option<u64>,
    ecp5_lut4: Option<u64>,
    ecp5_ff: Option<u64>,
    ecp5_bram: Option<u64>,
    fmax_mhz: Option<f64>,
}

impl Row {
    fn mapped(module: &str, r: &Resources) -> Self {
        Row {
            module: module.to_string(),
            lut: Some(r.luts),
            lutram: Some(r.lutram),
            ff: Some(r.ffs),
            carry: Some(r.carry),
            muxf: Some(r.muxf),
            bram: Some(r.bram),
            path_cells: r.path.map(|p| p.cells),
            path_luts: r.path.map(|p| p.luts),
            ..Row::default()
        }
    }

    fn placed(module: &str, p: &crate::pnr::Placed) -> Self {
        Row {
            module: module.to_string(),
            ecp5_lut4: Some(p.lut4),
            ecp5_ff: Some(p.ff),
            ecp5_bram: Some(p.bram),
            fmax_mhz: Some(p.fmax_mhz),
            ..Row::default()
        }
    }
}

/// The ECP5 place-and-route table of `modules`.
fn run_pnr(rtl: &Path, modules: &[&str], work: &Path) -> Result<()> {
    println!(
        "{:<28} {:>8} {:>6} {:>5} {:>9}",
        "block", "LUT4", "FF", "BRAM", "Fmax MHz"
    );
    for m in modules {
        let p = crate::pnr::place_and_route(rtl, m, work)?;
        println!(
            "{m:<28} {:>8} {:>6} {:>5} {:>9.1}",
            p.lut4, p.ff, p.bram, p.fmax_mhz
        );
    }
    println!(
        "(LUT4, FF and BRAM (DP16KD): the block alone, Yosys synth_ecp5. Fmax: the block placed \
         and routed by nextpnr-ecp5 {} --seed 1, in a harness that makes every path register \
         to register: inputs from a shift register fed by one pin, outputs registered and \
         shifted out to one pin.)",
        crate::pnr::NEXTPNR_ARGS.join(" ")
    );
    Ok(())
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn row__json_names_and_nulls() {
        let r = Resources {
            luts: 5,
            path: Some(LongestPath {
                cells: 7,
                luts: 3,
                ..LongestPath::default()
            }),
            ..Resources::default()
        };
        let v = serde_json::to_value(Row::mapped("m", &r)).unwrap();
        assert_eq!(v["module"], "m");
        assert_eq!(
            (v["lut"].as_u64(), v["path_luts"].as_u64()),
            (Some(5), Some(3))
        );
        assert!(v["fmax_mhz"].is_null() && v["ecp5_lut4"].is_null());
        let p = crate::pnr::Placed {
            lut4: 442,
            ff: 213,
            bram: 0,
            fmax_mhz: 100.5,
        };
        let v = serde_json::to_value(Row::placed("m", &p)).unwrap();
        assert_eq!(
            (v["ecp5_lut4"].as_u64(), v["fmax_mhz"].as_f64()),
            (Some(442), Some(100.5))
        );
        assert!(v["lut"].is_null());
    }

    #[test]
    fn parse__sums_cell_classes() {
        let stat = "   Number of cells: 9\n     CARRY4 202\n     FDRE 3252\n     FDSE 3\n     LUT2 378\n     LUT6 756\n     MUXF7 220\n     RAMB36E1 2\n     RAM32M 96\n     RAM64X1D 3\n     OBUF 953\n";
        assert_eq!(
            parse(stat),
            Resources {
                luts: 1134,
                lutram: 390,
                ffs: 3255,
                carry: 202,
                muxf: 220,
                bram: 2,
                path: None
            }
        );
    }

    #[test]
    fn parse_path__counts_the_cells_on_the_path_by_kind() {
        // As Yosys prints them: the path's first line names a register's output (no cell).
        let ltp = "\n3. Executing LTP pass (find longest path).\n\n\
            Longest topological path in top (length=5):\n\
            \x20   0: \\age$7.q [3]\n\
            \x20   1: $alu$5.X [3] (via $abc$21472)\n\
            \x20   2: $alu$5.CO [3] (via $alu$5.slice[0].carry4)\n\
            \x20   3: $alu$5.CO [7] (via $alu$5.slice[1].carry4)\n\
            \x20   4: \\ns$30 [2] (via $abc$20416.lut1.mux7)\n\
            \x20   5: \\m_pick_slot [2] (via $abc$20417)\n";
        let kinds = CellKinds::from_lists(
            "top/$abc$21472\ntop/$abc$20417\ntop/$abc$1\n",
            "top/$alu$5.slice[0].carry4\ntop/$alu$5.slice[1].carry4\n",
            "top/$abc$20416.lut1.mux7\n",
        );
        assert_eq!(
            parse_path(ltp, &kinds, false),
            Some(LongestPath {
                cells: 5,
                luts: 2,
                carry: 2,
                muxf: 1,
                loops: false
            })
        );
        assert_eq!(parse_path("no path here\n", &kinds, true), None);
    }
}
