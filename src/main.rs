//! `homa-nic`: the command-line entry point. See `homa-nic --help`.

mod bench_rpc;
mod cmd_advise;
mod cmd_bench;
mod cmd_compare;
mod cmd_probe;
mod cmd_regs;
mod cmd_sim;
mod cmd_stress;
mod cmd_synth;
mod matrix;
mod pnr;
mod sim_report;
mod traffic;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use homa_nic::capture::{read_capture, read_hex};
use homa_nic::decode::{Style, decode_frames};
use homa_proto::wire::{ChecksumCapabilities, LinkType};
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// Homa transport offload for FPGA SmartNICs.
#[derive(Debug, Parser)]
#[command(version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Decode Homa frames from a pcap/pcapng capture or from hex lines, like tcpdump.
    ///
    /// Exit status: 0 when every frame decoded, 1 when any was malformed or the capture was
    /// cut short (every whole frame before the cut is printed), 2 on usage or I/O
    /// errors.
    Decode(DecodeArgs),
    /// Simulate a Homa cluster on a workload and print the slowdown by message size.
    Sim(cmd_sim::SimArgs),
    /// Run one workload under several transports (Homa, TCP, DCTCP) and seeds on the same
    /// messages and fabric, and print their slowdowns side by side with the ratios to the
    /// first.
    Compare(cmd_compare::CompareArgs),
    /// What Homa would do for your traffic: simulate Homa, TCP and DCTCP on your message
    /// sizes (a workload, a CDF file, or inferred from a capture) at a load, over several
    /// seeds, and advise from the changes that every seed agrees on.
    Advise(cmd_advise::AdviseArgs),
    /// Run the stress matrix (workloads x loads x losses, duplication with reordering,
    /// incast) over both engines and check every run: it completes, every RPC is accounted
    /// for, no payload is wrong, control packets and switch queues stay bounded.
    ///
    /// Exit status: 0 when every run passed, 1 when any failed a check, 2 on usage errors or
    /// when a run could not start.
    Stress(cmd_stress::StressArgs),
    /// Write the NIC's generated Verilog (and its lint waivers and Verilator manifest) into a
    /// directory, or list the generated modules.
    Gen {
        /// Output directory (created if missing).
        #[arg(long, required_unless_present = "list")]
        out: Option<PathBuf>,
        /// List every generated module (name, role, capacity, width) instead.
        #[arg(long, conflicts_with = "out")]
        list: bool,
        /// With --list: one JSON array of {"module", "role", "capacity", "width"}.
        #[arg(long, requires = "list")]
        json: bool,
    },
    /// Resource estimates of the generated blocks (Yosys synth_xilinx): LUT, FF, carry, BRAM
    /// and logic depth per block.
    Synth {
        /// Only this block (a module of hw/rtl/models.txt).
        #[arg(long)]
        block: Option<String>,
        /// Directory of the generated Verilog.
        #[arg(long, default_value = "hw/rtl")]
        rtl: PathBuf,
        /// Place and route each block on an ECP5-85 instead (Yosys synth_ecp5, then
        /// nextpnr-ecp5 from `scripts/setup.sh`), inside a harness that makes every
        /// path register to register: LUT4, FF, BRAM and the Fmax routing allows.
        #[arg(long)]
        pnr: bool,
        /// Print one JSON array of rows (`module`, `lut`, `lutram`, `ff`, `carry`, `muxf`,
        /// `bram`, `path_cells`, `path_luts`; with --pnr `ecp5_lut4`, `ecp5_ff`, `ecp5_bram`,
        /// `fmax_mhz`; the columns not measured are null) instead of the table.
        #[arg(long)]
        json: bool,
    },
    /// Print the NIC register map (from proto::regs).
    Regs {
        /// As Markdown: the text of docs/regs.md.
        #[arg(long)]
        markdown: bool,
    },
    /// Measure the speed of the protocol engine or of the simulator.
    #[command(subcommand)]
    Bench(cmd_bench::BenchCmd),
    /// Open a homa-nic through VFIO and print its ID block, configuration and counters.
    ///
    /// Exit status: 0 when read, 1 when the device could not be opened or read.
    Probe(cmd_probe::ProbeArgs),
}

#[derive(Debug, clap::Args)]
struct DecodeArgs {
    /// A pcap or pcapng file (the format is told by its magic number).
    #[arg(required_unless_present = "hex", conflicts_with = "hex")]
    capture: Option<PathBuf>,
    /// Read hex-encoded frames, one per line, from FILE (or `-` for standard input).
    #[arg(long, value_name = "FILE|-")]
    hex: Option<String>,
    /// Where hex frames start: at the Ethernet header or at the IP header.
    #[arg(long, value_enum, default_value_t = Link::Eth, requires = "hex")]
    link: Link,
    /// One JSON object per line, with every header field.
    #[arg(long)]
    json: bool,
    /// Do not verify IPv4 header checksums.
    #[arg(long)]
    no_verify_checksum: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Link {
    /// Frames start at the Ethernet header.
    Eth,
    /// Frames start at the IPv4 or IPv6 header.
    Ip,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Decode(args) => decode(args),
        Command::Sim(args) => cmd_sim::run(args).map(|()| ExitCode::SUCCESS),
        Command::Compare(args) => cmd_compare::run(args).map(|()| ExitCode::SUCCESS),
        Command::Advise(args) => cmd_advise::run(args).map(|()| ExitCode::SUCCESS),
        Command::Stress(args) => cmd_stress::run(args),
        Command::Gen { out, list, json } => match out {
            Some(out) if !list => generate(&out),
            _ => print_all(&list_modules(json)),
        },
        Command::Synth {
            block,
            rtl,
            pnr,
            json,
        } => cmd_synth::run(&rtl, block.as_deref(), pnr, json).map(|()| ExitCode::SUCCESS),
        Command::Regs { markdown } => print_all(&cmd_regs::render(markdown)),
        Command::Bench(cmd) => cmd_bench::run(cmd).map(|()| ExitCode::SUCCESS),
        Command::Probe(args) => cmd_probe::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("homa-nic: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// `homa-nic gen`: every generated hardware file into `out`.
fn generate(out: &std::path::Path) -> Result<ExitCode> {
    std::fs::create_dir_all(out).with_context(|| format!("failed to create {}", out.display()))?;
    for (name, text) in homa_hw::verilog::all_files() {
        let path = out.join(&name);
        std::fs::write(&path, text)
            .with_context(|| format!("failed to write {}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// `homa-nic gen --list`: every generated module, as a table or (`json`) a JSON array.
fn list_modules(json: bool) -> String {
    let modules = homa_hw::verilog::MODULES;
    if json {
        let rows: Vec<serde_json::Value> = modules
            .iter()
            .map(|m| {
                serde_json::json!({
                    "module": m.name,
                    "role": m.role,
                    "capacity": m.capacity,
                    "width": m.width,
                })
            })
            .collect();
        return format!("{:#}\n", serde_json::Value::Array(rows));
    }
    let dash = |v: Option<u32>| v.map_or("-".to_string(), |v| v.to_string());
    let mut text = format!(
        "{:<32} {:<14} {:>8} {:>5}\n",
        "module", "role", "capacity", "width"
    );
    for m in modules {
        text.push_str(&format!(
            "{:<32} {:<14} {:>8} {:>5}\n",
            m.name,
            m.role,
            dash(m.capacity),
            dash(m.width)
        ));
    }
    text
}

/// Writes `text` to standard output; a reader that went away (`| head`) is not an error.
fn print_all(text: &str) -> Result<ExitCode> {
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(e).context("failed to write to standard output")
        }
        _ => Ok(ExitCode::SUCCESS),
    }
}

fn decode(args: DecodeArgs) -> Result<ExitCode> {
    let link = match args.link {
        Link::Eth => LinkType::Ethernet,
        Link::Ip => LinkType::Ip,
    };
    let mut truncated = None;
    let frames = match (&args.capture, args.hex.as_deref()) {
        (Some(path), _) => {
            let capture = read_capture(path)?;
            truncated = capture.truncated.map(|why| (path, why));
            capture.frames
        }
        (None, Some("-")) => read_hex(std::io::stdin().lock(), link)
            .context("failed to read hex frames from standard input")?,
        (None, Some(file)) => {
            let f = std::fs::File::open(file)
                .with_context(|| format!("failed to open hex file {file}"))?;
            read_hex(std::io::BufReader::new(f), link)
                .with_context(|| format!("failed to read hex file {file}"))?
        }
        (None, None) => unreachable!("clap requires a capture or --hex"),
    };
    let style = if args.json { Style::Json } else { Style::Text };
    let caps = ChecksumCapabilities {
        ipv4_rx: !args.no_verify_checksum,
        ..ChecksumCapabilities::default()
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    let summary = match decode_frames(&frames, style, &caps, &mut out)
        .and_then(|s| out.flush().map(|()| s))
    {
        Ok(summary) => summary,
        // The reader went away (`| head`): stop quietly, as tcpdump does.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(ExitCode::SUCCESS),
        Err(e) => return Err(e).context("failed to write to standard output"),
    };
    eprintln!(
        "homa-nic: {} frames: {} Homa, {} malformed, {} not Homa (skipped)",
        frames.len(),
        summary.homa,
        summary.malformed,
        summary.skipped
    );
    if let Some((path, why)) = &truncated {
        eprintln!(
            "homa-nic: {} is cut short after its last whole frame ({why}): the capture was \
             stopped while writing, or damaged",
            path.display()
        );
    }
    Ok(if summary.malformed > 0 || truncated.is_some() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
