//! `homa-nic stress`: the stress matrix (`homa_sim::stress`) over one or both engines, a
//! row per run, a Markdown table and JSON, and a non-zero exit when any run fails a check.

use crate::cmd_sim::{PresetArg, make_parent, watchdog};
use anyhow::{Context, Result};
use clap::ValueEnum;
use homa_sim::stress::{Case, Limits, Outcome, Scope, StressEngine, Traffic, matrix};
use homa_sim::time::MS;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub(crate) struct StressArgs {
    /// Which engines to run the matrix over.
    #[arg(long, value_enum, default_value_t = EngineArg::Both)]
    engine: EngineArg,
    /// The quick subset (each workload at 0.8, heavy loss on W1 and W3, duplication with
    /// reordering on W2, incast) with a tenth of the messages: what CI runs.
    #[arg(long)]
    quick: bool,
    /// Only the cases whose name contains this text (e.g. `w1 load 0.95`).
    #[arg(long)]
    only: Option<String>,
    /// Watchdog per run: stop when no message completes for this much simulated time (ms).
    #[arg(long, default_value_t = 100.0)]
    stall_ms: f64,
    /// Watchdog per run: stop after this much wall time (seconds).
    #[arg(long, default_value_t = 600.0)]
    wall_limit_s: f64,
    /// Homa parameters: HomaModule's defaults (FIFO grants included), or the SIGCOMM'18
    /// simulator's (SRPT alone).
    #[arg(long, value_enum, default_value_t = PresetArg::Homamodule)]
    preset: PresetArg,
    /// Also write the table as Markdown to FILE.
    #[arg(long)]
    markdown: Option<PathBuf>,
    /// Also write every run's case, counts and failed checks as JSON to FILE.
    #[arg(long)]
    json: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum EngineArg {
    /// The software engine alone (16 hosts at 10 Gb/s; incast 64-to-1).
    Model,
    /// The software engine over Verilated NICs (4 hosts at 100 Gb/s; incast 16-to-1).
    Rtl,
    /// Both, the model first.
    Both,
}

pub(crate) fn run(args: StressArgs) -> Result<ExitCode> {
    let limits = Limits {
        watchdog: watchdog(args.stall_ms, Some(args.wall_limit_s))?,
        ..Limits::default()
    };
    let scope = if args.quick {
        Scope::Quick
    } else {
        Scope::Full
    };
    let engines: &[StressEngine] = match args.engine {
        EngineArg::Model => &[StressEngine::Model],
        EngineArg::Rtl => &[StressEngine::Rtl],
        EngineArg::Both => &[StressEngine::Model, StressEngine::Rtl],
    };
    let cases: Vec<Case> = engines
        .iter()
        .flat_map(|&e| matrix(e, scope, args.preset.into()))
        .filter(|c| args.only.as_ref().is_none_or(|o| c.to_string().contains(o)))
        .collect();
    if cases.is_empty() {
        anyhow::bail!(
            "no case matches --only {:?}: case names read like `model w1 load 0.5 loss 0.01`",
            args.only.unwrap_or_default()
        );
    }
    if engines.contains(&StressEngine::Rtl) && !homa_sim::rtl::MODELS_BUILT {
        anyhow::bail!(
            "the RTL engine needs Verilator at build time: run scripts/setup.sh, then rebuild \
             (or pass --engine model)"
        );
    }
    for path in [&args.markdown, &args.json].into_iter().flatten() {
        make_parent(path)?;
    }
    let bar = ProgressBar::new(cases.len() as u64);
    if std::io::stderr().is_terminal() {
        bar.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} runs {msg}")
                .expect("static template")
                .progress_chars("=> "),
        );
    } else {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", header())?;
    let mut outcomes = Vec::with_capacity(cases.len());
    for case in &cases {
        let name = case.to_string();
        let outcome = case
            .run(&limits, &mut |p| {
                bar.set_message(format!(
                    "| {name}: {}/{} measured, simulated {:.2} ms",
                    p.measured,
                    p.total,
                    p.simulated_ps as f64 / MS as f64
                ))
            })
            .with_context(|| format!("starting {name}"))?;
        bar.suspend(|| writeln!(out, "{}", row(&outcome)))?;
        for f in &outcome.failures {
            bar.suspend(|| writeln!(out, "    FAIL {name}: {f}"))?;
        }
        bar.inc(1);
        outcomes.push(outcome);
    }
    bar.finish_and_clear();
    let failed = outcomes.iter().filter(|o| !o.failures.is_empty()).count();
    writeln!(
        out,
        "\n{} runs, {} passed, {failed} failed",
        outcomes.len(),
        outcomes.len() - failed
    )?;
    if let Some(path) = &args.markdown {
        std::fs::write(path, markdown(&outcomes))
            .with_context(|| format!("failed to write {}", path.display()))?;
    }
    if let Some(path) = &args.json {
        let v: Vec<_> = outcomes.iter().map(outcome_json).collect();
        std::fs::write(path, serde_json::to_string_pretty(&v)? + "\n")
            .with_context(|| format!("failed to write {}", path.display()))?;
    }
    if failed > 0 {
        eprintln!(
            "homa-nic stress: {failed} of {} runs failed a check (the FAIL lines above)",
            outcomes.len()
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// The table's columns.
const NAMES: [&str; 17] = [
    "engine",
    "workload",
    "load",
    "loss",
    "impairment",
    "RPCs",
    "failed",
    "carried",
    "DATA",
    "lost",
    "RESEND",
    "UNKNOWN",
    "BUSY",
    "max queue KB",
    "worst p99",
    "wall s",
    "result",
];

/// Their widths in the terminal.
const WIDTHS: [usize; 17] = [6, 8, 5, 6, 16, 11, 6, 7, 9, 7, 7, 7, 5, 12, 9, 7, 6];

/// A run's cells, in the order of [`NAMES`].
fn cells(o: &Outcome) -> [String; 17] {
    let c = &o.case;
    let r = &o.report;
    let impair = match (c.duplicate > 0.0 || c.reorder > 0.0, c.traffic) {
        (_, Traffic::Incast { senders }) => format!("incast {senders}:1"),
        (true, _) => format!("dup {} reo {}", c.duplicate, c.reorder),
        (false, _) => "-".to_string(),
    };
    let p99 = (r.buckets.iter())
        .filter(|b| b.count > 0)
        .map(|b| b.p99_slowdown)
        .fold(0.0, f64::max);
    [
        c.engine.name().to_string(),
        c.workload.clone(),
        c.load.to_string(),
        c.loss.to_string(),
        impair,
        format!("{}/{}", r.messages, c.messages),
        r.rpcs_failed.to_string(),
        format!("{:.3}", r.achieved_load),
        r.sent("DATA").to_string(),
        (r.fabric.injected_losses + r.fabric.buffer_drops).to_string(),
        r.sent("RESEND").to_string(),
        r.sent("RPC_UNKNOWN").to_string(),
        r.sent("BUSY").to_string(),
        format!("{:.0}", r.fabric.max_switch_queue_bytes as f64 / 1e3),
        format!("{p99:.1}"),
        format!("{:.1}", r.wall_seconds),
        if o.failures.is_empty() { "ok" } else { "FAIL" }.to_string(),
    ]
}

fn aligned<'a>(cells: impl IntoIterator<Item = &'a str>) -> String {
    let v: Vec<String> = (cells.into_iter().zip(WIDTHS))
        .map(|(c, w)| format!("{c:>w$}"))
        .collect();
    v.join(" ")
}

fn header() -> String {
    aligned(NAMES)
}

fn row(o: &Outcome) -> String {
    aligned(cells(o).iter().map(String::as_str))
}

/// The table as Markdown, then every failed check.
fn markdown(outcomes: &[Outcome]) -> String {
    let mut s = format!("| {} |\n", NAMES.join(" | "));
    s += &format!("|{}\n", "---:|".repeat(NAMES.len()));
    for o in outcomes {
        s += &format!("| {} |\n", cells(o).join(" | "));
    }
    let failures: Vec<String> = outcomes
        .iter()
        .flat_map(|o| {
            o.failures
                .iter()
                .map(move |f| format!("- {}: {f}\n", o.case))
        })
        .collect();
    if !failures.is_empty() {
        s += "\nFailed checks:\n\n";
        s += &failures.concat();
    }
    s
}

fn outcome_json(o: &Outcome) -> serde_json::Value {
    let c = &o.case;
    let r = &o.report;
    let packets: serde_json::Map<String, serde_json::Value> = r
        .packets_by_type
        .iter()
        .map(|(t, n)| (t.to_string(), json!(n)))
        .collect();
    json!({
        "case": c.to_string(),
        "engine": c.engine.name(),
        "workload": c.workload,
        "load": c.load,
        "loss": c.loss,
        "duplicate": c.duplicate,
        "reorder": c.reorder,
        "incast_senders": match c.traffic {
            Traffic::Incast { senders } => Some(senders),
            Traffic::Uniform => None,
        },
        "messages": c.messages,
        "seed": c.seed,
        "preset": format!("{:?}", c.preset),
        "measured": r.messages,
        "generated": r.generated,
        "completed": r.completed,
        "rpcs_failed": r.rpcs_failed,
        "in_flight": r.in_flight,
        "late_deliveries": r.late_deliveries,
        "payload_errors": r.payload_errors,
        "achieved_load": r.achieved_load,
        "packets": packets,
        "injected_losses": r.fabric.injected_losses,
        "buffer_drops": r.fabric.buffer_drops,
        "injected_duplicates": r.fabric.injected_duplicates,
        "injected_reorders": r.fabric.injected_reorders,
        "max_switch_queue_bytes": r.fabric.max_switch_queue_bytes,
        "simulated_seconds": r.simulated_seconds,
        "wall_seconds": r.wall_seconds,
        "stopped": r.stopped.as_ref().map(|s| s.to_string()),
        "failures": o.failures,
    })
}
