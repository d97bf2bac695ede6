//! `homa-nic sim`: a simulated Homa cluster and its slowdown by message size.

use crate::traffic::{self, Traffic};
use anyhow::{Context, Result};
use clap::ValueEnum;
use homa_nic::capture::{CaptureError, CaptureWriter, FlushingWriter};
use homa_nic::plot::{Series, slowdown_chart};
use homa_sim::baseline::pfabric::PfabricConfig;
use homa_sim::baseline::tcp::TcpConfig;
use homa_sim::baseline::{BaselineCluster, BaselineConfig, Transport, TransportReport, fabric_for};
use homa_sim::cluster::{
    Cluster, ClusterConfig, Engine as ClusterEngine, NicReport, Pattern, Progress, Report,
    Watchdog, mean_arrival_gap_ps,
};
use homa_sim::fabric::{FabricConfig, Topology};
use homa_sim::nic::NicTiming;
use homa_sim::preset::{Preset, for_engine};
use homa_sim::stats;
use homa_sim::time::MS;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;
use std::cell::RefCell;
use std::fs::File;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::Duration;

#[derive(Debug, clap::Args)]
pub(crate) struct SimArgs {
    /// What runs in each host: `model` is the software engine (proto::core) alone;
    /// `model-nic` adds the NIC's grant decisions, made by the hardware's reference models
    /// (no Verilator); `rtl` adds a Verilated homa-nic per host on 100 Gb/s links, which
    /// parses every frame and decides and builds every GRANT.
    #[arg(long, value_enum, default_value_t = Engine::Model)]
    engine: Engine,
    /// The transport every host runs: `homa`, in the engine --engine names; or a baseline
    /// carrying the same messages over the same fabric, in the fast model: `tcp` (NewReno
    /// over drop-tail switches) or `dctcp` (switches mark ECN above --ecn-threshold-bytes).
    #[arg(long, value_enum, default_value_t = TransportArg::Homa)]
    transport: TransportArg,
    /// Switch ECN marking threshold K in bytes (--transport dctcp) [default: 65 full-size
    /// packets per 10 Gb/s of host link, the DCTCP paper's setting].
    #[arg(long)]
    ecn_threshold_bytes: Option<u64>,
    /// TCP connections per ordered host pair (--transport tcp|dctcp): each message goes to
    /// the one with the fewest bytes outstanding, as a connection pool would send it.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    tcp_connections: u16,
    /// Message sizes: w1..w5 (the Homa paper's workloads) or fixed:BYTES; or a training
    /// job's collectives: allreduce:hosts=N,bucket=SIZE,buckets=B,compute=TIME[,steps=S]
    /// [,algo=ring|tree] or alltoall:... (docs/baselines.md).
    #[arg(long, default_value = "w3")]
    workload: String,
    /// With a training job: RPCs of these sizes (w1..w5, fixed:BYTES) beside it, at --load.
    #[arg(long)]
    background: Option<String>,
    /// Offered load on every host link, strictly between 0 and 1.
    #[arg(long, default_value_t = 0.5)]
    load: f64,
    /// Hosts on one switch (ignored with --topology paper) [default: 16, 4 with --engine rtl].
    #[arg(long)]
    hosts: Option<usize>,
    /// Incast: every other host sends to host 0 (which sends nothing), all starting at the
    /// same instant; --load is then the load offered to host 0's link, shared evenly by the
    /// senders.
    #[arg(long)]
    incast: bool,
    /// `paper`: 144 hosts in 9 racks of 16, 10 Gb/s host links, 4 aggregation switches at
    /// 40 Gb/s; `single`: --hosts hosts on one switch.
    #[arg(long, value_enum, default_value_t = TopologyArg::Single)]
    topology: TopologyArg,
    /// Stop after this many messages have been measured (a tenth more warm the network up)
    /// [default: 20000, 5000 with --engine rtl].
    #[arg(long)]
    messages: Option<u64>,
    /// Seed of the workload and fabric generators.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Homa parameters to start from, before --config.
    #[arg(long, value_enum, default_value_t = PresetArg::Paper)]
    preset: PresetArg,
    /// A TOML file of Homa parameters (HomaModule names) that override the preset.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Drop this fraction of packets on the last hop (0 to <1).
    #[arg(long, default_value_t = 0.0)]
    loss: f64,
    /// Per-port switch buffer in bytes (default: unlimited, as in the paper).
    #[arg(long)]
    buffer_bytes: Option<u64>,
    /// Stop after this much simulated time (milliseconds) even if messages are outstanding.
    #[arg(long, default_value_t = 60_000)]
    time_limit_ms: u64,
    /// Watchdog: stop, naming the stuck RPCs, when no message completes for this much
    /// simulated time (milliseconds) while the run goes on.
    #[arg(long, default_value_t = 100.0)]
    stall_ms: f64,
    /// Watchdog: stop, naming the stuck RPCs, after this much wall-clock time (seconds).
    #[arg(long)]
    wall_limit_s: Option<f64>,
    /// Also write the results as JSON to FILE.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Also capture every frame the hosts put on the wire into FILE (pcap, Ethernet),
    /// readable by `homa-nic decode` and tshark.
    #[arg(long)]
    pcap: Option<PathBuf>,
    /// NIC clock in MHz (--engine rtl).
    #[arg(long, default_value_t = 250)]
    clock_mhz: u32,
    /// Host-NIC latency over PCIe per crossing, ns (--engine rtl).
    #[arg(long, default_value_t = 500)]
    pcie_ns: u32,
    /// Small RPCs (100-byte request and response, idle network) timed after the run.
    #[arg(long, default_value_t = 20)]
    rtt_samples: u32,
    /// Also draw p50 and p99 slowdown against message size (with the paper's, on the paper
    /// topology) as an SVG chart into FILE.
    #[arg(long)]
    plot: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Engine {
    /// The software protocol engine in every host.
    Model,
    /// The software engine, its GRANTs decided by a model of the NIC (the hardware's own
    /// reference models of the message table and the grant queue).
    ModelNic,
    /// The software engine over a Verilated homa-nic per host.
    Rtl,
}

impl Engine {
    /// The engine's name, as `--engine` takes it.
    fn name(self) -> &'static str {
        match self {
            Engine::Model => "model",
            Engine::ModelNic => "model-nic",
            Engine::Rtl => "rtl",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TransportArg {
    /// Homa.
    Homa,
    /// TCP NewReno, one connection per host pair (`homa_sim::baseline`).
    Tcp,
    /// DCTCP: TCP cutting its window by the share of ECN-marked bytes.
    Dctcp,
    /// pFabric: a flow per message ranked by bytes left, switches that schedule and drop
    /// by rank.
    Pfabric,
    /// PIAS: a DCTCP flow per message, demoted through the eight priorities by bytes sent.
    Pias,
}

impl TransportArg {
    /// The baseline transport it names (`None` for Homa).
    pub(crate) fn baseline(self) -> Option<Transport> {
        match self {
            TransportArg::Homa => None,
            TransportArg::Tcp => Some(Transport::Tcp),
            TransportArg::Dctcp => Some(Transport::Dctcp),
            TransportArg::Pfabric => Some(Transport::Pfabric),
            TransportArg::Pias => Some(Transport::Pias),
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum TopologyArg {
    /// The SIGCOMM'18 two-level topology (144 hosts).
    Paper,
    /// One switch.
    Single,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum PresetArg {
    /// The SIGCOMM'18 simulator's parameters for the workload.
    Paper,
    /// HomaModule's defaults, cutoffs from the workload.
    Homamodule,
}

impl From<PresetArg> for Preset {
    fn from(p: PresetArg) -> Self {
        match p {
            PresetArg::Paper => Preset::Paper,
            PresetArg::Homamodule => Preset::HomaModule,
        }
    }
}

pub(crate) fn run(args: SimArgs) -> Result<()> {
    let rtl = matches!(args.engine, Engine::Rtl);
    let traffic = Traffic::parse(&args.workload, args.background.as_deref(), args.load)?;
    let collective = traffic.collective;
    let summary = traffic.summary(
        &args.workload,
        args.messages.unwrap_or(if rtl { 5_000 } else { 20_000 }),
    );
    let hosts = args.hosts.unwrap_or(match collective {
        Some(c) => c.hosts,
        None if rtl => 4,
        None => 16,
    });
    let messages = args.messages.unwrap_or(if rtl { 5_000 } else { 20_000 });
    let mut workload = traffic.workload;
    let limit = homa_proto::wire::MAX_MESSAGE_LENGTH;
    if rtl && workload.max_bytes() > limit {
        // Real frames carry Homa's 1 MB limit (the model engine may exceed it).
        let (capped, share) = workload.capped(limit);
        eprintln!(
            "homa-nic sim: engine rtl: {} has messages up to {} bytes; the {:.2} % above {limit} \
             bytes (Homa's wire limit) are sent as {limit}-byte messages",
            args.workload,
            workload.max_bytes(),
            share * 100.0
        );
        workload = capped;
    }
    let topology = match args.topology {
        TopologyArg::Paper => Topology::paper(),
        TopologyArg::Single => Topology::SingleSwitch { hosts },
    };
    // --config can set the RTL engine's 10 us tick back.
    let (base, mut homa) = for_engine(Preset::from(args.preset), &workload, rtl, args.seed);
    let fabric = FabricConfig {
        loss_rate: args.loss,
        port_buffer_bytes: args.buffer_bytes,
        ..base
    };
    if let Some(path) = &args.config {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("failed to read Homa configuration {}", path.display()))?;
        let (config, notes) = homa
            .with_overrides_noted(&text)
            .with_context(|| format!("in {}", path.display()))?;
        for n in notes {
            eprintln!("homa-nic: note: {}: {n}", path.display());
        }
        homa = config;
    }
    // The engine logs at the configuration's level (RUST_LOG, when set, wins).
    let filter = std::env::var("RUST_LOG").unwrap_or_else(|_| homa.log_level.clone());
    let _ = env_logger::Builder::new().parse_filters(&filter).try_init();
    let timing = NicTiming {
        clock_mhz: args.clock_mhz,
        pcie_ns: args.pcie_ns,
    };
    if rtl && !(50..=1_000).contains(&args.clock_mhz) {
        anyhow::bail!(
            "invalid --clock-mhz {}: allowed 50 to 1000 (the NIC's clock)",
            args.clock_mhz
        );
    }
    let watchdog = watchdog(args.stall_ms, args.wall_limit_s)?;
    let (pattern, load) = if args.incast {
        let senders = topology.num_hosts().saturating_sub(1);
        if senders == 0 {
            anyhow::bail!("--incast needs at least 2 hosts (--hosts)");
        }
        (Pattern::Incast { target: 0 }, traffic.load / senders as f64)
    } else {
        (Pattern::Uniform, traffic.load)
    };
    if let Some(transport) = args.transport.baseline() {
        let gap = mean_arrival_gap_ps(&homa, &workload, load, fabric.host_link_bps);
        let config = BaselineConfig {
            transport,
            tcp: TcpConfig::default(),
            pfabric: PfabricConfig::default(),
            connections: args.tcp_connections,
            topology,
            fabric,
            workload,
            load,
            mean_gap_ps: gap,
            messages,
            seed: args.seed,
            time_limit_ps: args.time_limit_ms.saturating_mul(MS),
            pattern,
            watchdog,
            collective,
        };
        return run_baseline(&args, config, &summary);
    }
    let config = ClusterConfig {
        topology,
        fabric,
        homa,
        workload,
        load,
        messages,
        seed: args.seed,
        time_limit_ps: args.time_limit_ms.saturating_mul(MS),
        pattern,
        engine: match args.engine {
            Engine::Rtl => ClusterEngine::Rtl(timing),
            Engine::ModelNic => ClusterEngine::ModelNic,
            Engine::Model => ClusterEngine::Model,
        },
        watchdog,
        collective,
    };
    // Output paths are checked (their directories made) before a run of minutes, not after.
    for path in [&args.json, &args.plot, &args.pcap].into_iter().flatten() {
        make_parent(path)?;
    }
    let mut cluster = Cluster::new(config.clone())?;
    eprintln!(
        "homa-nic sim: engine {}, {} hosts{}, {}, seed {}",
        args.engine.name(),
        cluster.num_hosts(),
        if args.incast {
            " (incast to host 0)"
        } else {
            ""
        },
        summary,
        args.seed
    );
    let capture = match &args.pcap {
        Some(path) => Some(start_capture(&mut cluster, path)?),
        None => None,
    };
    let bar = progress_bar(messages);
    let wall_start = std::time::Instant::now();
    let report = cluster.run(&mut |p| show_progress(&bar, wall_start, p));
    bar.finish_and_clear();
    if let (Some(c), Some(path)) = (capture, &args.pcap) {
        finish_capture(c, path)?;
    }
    // A 100-byte RPC, or the workload's largest message if it is smaller.
    let rtt_bytes = config.workload.max_bytes().min(100);
    let rtt = if args.rtt_samples > 0 && report.stopped.is_none() {
        // On the idle cluster: no training job (and a load the checks accept; nothing
        // arrives while RPCs are timed).
        let idle = ClusterConfig {
            collective: None,
            load: if config.load > 0.0 { config.load } else { 0.5 },
            ..config
        };
        let mut v = Cluster::round_trips(idle, rtt_bytes, rtt_bytes, args.rtt_samples)
            .context("timing small RPCs")?;
        v.sort_unstable();
        Some(v[v.len() / 2])
    } else {
        None
    };
    let run = RunInfo {
        engine: args.engine.name(),
        small_rpc_rtt_ps: rtt,
        small_rpc_bytes: rtt_bytes,
        baseline: None,
        paper_protocol: Some("Homa"),
    };
    finish(&args, &report, &run)
}

/// Runs a baseline transport on the messages and fabric Homa would have had.
fn run_baseline(args: &SimArgs, mut config: BaselineConfig, summary: &str) -> Result<()> {
    let name = config.transport.name();
    let config_transport = config.transport;
    if !matches!(args.engine, Engine::Model) {
        anyhow::bail!(
            "--transport {name} runs in the fast model only: drop --engine {}",
            args.engine.name()
        );
    }
    for (flag, given) in [
        ("--pcap", args.pcap.is_some()),
        ("--config", args.config.is_some()),
    ] {
        if given {
            anyhow::bail!(
                "{flag} applies to Homa only: drop it with --transport {name} (its parameters \
                 are documented in docs/baselines.md)"
            );
        }
    }
    if !matches!(config.transport, Transport::Dctcp | Transport::Pias)
        && args.ecn_threshold_bytes.is_some()
    {
        anyhow::bail!(
            "--ecn-threshold-bytes applies to --transport dctcp and pias only (switches mark \
             only ECN-capable packets)"
        );
    }
    config.fabric = fabric_for(config.transport, config.fabric, args.ecn_threshold_bytes);
    for path in [&args.json, &args.plot].into_iter().flatten() {
        make_parent(path)?;
    }
    let messages = config.messages;
    let cluster = BaselineCluster::new(config)?;
    eprintln!(
        "homa-nic sim: transport {name}, {} hosts{}, {summary}, seed {}",
        cluster.num_hosts(),
        if args.incast {
            " (incast to host 0)"
        } else {
            ""
        },
        args.seed
    );
    let bar = progress_bar(messages);
    let wall_start = std::time::Instant::now();
    let (report, transport) = cluster.run(&mut |p| show_progress(&bar, wall_start, p));
    bar.finish_and_clear();
    let run = RunInfo {
        engine: name,
        small_rpc_rtt_ps: None,
        small_rpc_bytes: 0,
        baseline: Some(transport),
        paper_protocol: match config_transport {
            Transport::Pfabric => Some("pFabric"),
            Transport::Pias => Some("PIAS"),
            Transport::Tcp | Transport::Dctcp => None,
        },
    };
    finish(args, &report, &run)
}

/// Prints the report, writes the files asked for, and fails if the run stopped early.
fn finish(args: &SimArgs, report: &Report, run: &RunInfo) -> Result<()> {
    // The report first: a file that cannot be written then does not cost the results.
    match print_report(&mut std::io::stdout().lock(), report, run) {
        // The reader went away (`| head`): not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other.context("failed to write to standard output")?,
    }
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&report_json(report, run))? + "\n";
        std::fs::write(path, text)
            .with_context(|| format!("failed to write {}", path.display()))?;
    }
    if let Some(path) = &args.plot {
        std::fs::write(path, chart(report, run))
            .with_context(|| format!("failed to write {}", path.display()))?;
    }
    if let Some(stop) = &report.stopped {
        anyhow::bail!(
            "{stop}\n(--stall-ms, --wall-limit-s and --time-limit-ms set the limits; RUST_LOG=debug \
             shows the engines' decisions)"
        );
    }
    Ok(())
}

/// The watchdog of `--stall-ms` and `--wall-limit-s` (`None`: no wall-clock limit), or an
/// error naming the bad one.
pub(crate) fn watchdog(stall_ms: f64, wall_limit_s: Option<f64>) -> Result<Watchdog> {
    if !(stall_ms.is_finite() && stall_ms > 0.0) {
        anyhow::bail!("invalid --stall-ms {stall_ms}: allowed a positive number of milliseconds");
    }
    let wall = match wall_limit_s {
        Some(s) if s.is_finite() && s > 0.0 => Some(Duration::from_secs_f64(s)),
        Some(s) => {
            anyhow::bail!("invalid --wall-limit-s {s}: allowed a positive number of seconds")
        }
        None => None,
    };
    Ok(Watchdog {
        stall_ps: (stall_ms * MS as f64) as u64,
        wall,
    })
}

/// Creates the directory an output file goes into, if it is missing.
pub(crate) fn make_parent(path: &Path) -> Result<()> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => std::fs::create_dir_all(dir)
            .with_context(|| format!("failed to create the directory of {}", path.display())),
        _ => Ok(()),
    }
}

/// A progress bar of measured messages (hidden when standard error is not a terminal).
pub(crate) fn progress_bar(messages: u64) -> ProgressBar {
    let bar = ProgressBar::new(messages);
    if std::io::stderr().is_terminal() {
        bar.set_style(
            ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {pos}/{len} measured, eta {eta} {msg}",
            )
            .expect("static template")
            .progress_chars("=> "),
        );
    } else {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar
}

fn show_progress(bar: &ProgressBar, wall_start: std::time::Instant, p: &Progress) {
    bar.set_position(p.measured);
    let secs = wall_start.elapsed().as_secs_f64().max(1e-3);
    bar.set_message(format!(
        "| simulated {:.3} ms, {} messages done, {} failed, {:.0} packets/s",
        p.simulated_ps as f64 / MS as f64,
        p.completed,
        p.failed,
        p.packets as f64 / secs
    ));
}

/// What the run adds to the cluster's report.
struct RunInfo {
    /// The Homa engine, or the baseline transport's name.
    engine: &'static str,
    /// A baseline's transport counters (`None`: Homa ran).
    baseline: Option<TransportReport>,
    /// The protocol of the SIGCOMM'18 data this run compares with, if the data has it.
    paper_protocol: Option<&'static str>,
    /// Median round trip of a small RPC on the idle cluster.
    small_rpc_rtt_ps: Option<u64>,
    /// Its request and response size (100 B, or the workload's largest if smaller).
    small_rpc_bytes: u32,
}

type Sink = Rc<RefCell<(CaptureWriter<FlushingWriter<File>>, Option<CaptureError>)>>;

/// Opens the pcap file and hands the cluster a sink that writes to it.
fn start_capture(cluster: &mut Cluster, path: &Path) -> Result<Sink> {
    let file = File::create(path)
        .with_context(|| format!("failed to create the capture {}", path.display()))?;
    let writer = CaptureWriter::new(FlushingWriter::new(file))?;
    let sink: Sink = Rc::new(RefCell::new((writer, None)));
    let inner = sink.clone();
    cluster.capture(move |ps, frame| {
        let mut s = inner.borrow_mut();
        if s.1.is_none()
            && let Err(e) = s.0.write(Duration::from_nanos(ps / 1_000), frame)
        {
            s.1 = Some(e);
        }
    });
    Ok(sink)
}

/// Flushes the capture; reports the first write error.
fn finish_capture(sink: Sink, path: &Path) -> Result<()> {
    let (writer, error) = Rc::try_unwrap(sink)
        .map_err(|_| anyhow::anyhow!("the capture of {} is still in use", path.display()))?
        .into_inner();
    if let Some(e) = error {
        return Err(e).with_context(|| format!("failed to write {}", path.display()));
    }
    writer
        .into_inner()
        .flush()
        .with_context(|| format!("failed to write {}", path.display()))
}

/// The rows the paper's tables quote (smallest bucket and the buckets holding the P50, P90
/// and P99 message): bucket, max_bytes, our p99, the paper's p99.
fn paper_comparison(r: &Report, run: &RunInfo) -> Vec<(&'static str, u32, Option<f64>, f64)> {
    // Only Homa on the paper's own topology is comparable.
    let Some(protocol) = run.paper_protocol else {
        return Vec::new();
    };
    if r.hosts != Topology::paper().num_hosts() {
        return Vec::new();
    }
    let Some(load) = stats::paper_load_key(r.load) else {
        return Vec::new();
    };
    let Some(keys) = stats::paper_percentile_buckets(&r.workload, load) else {
        return Vec::new();
    };
    [
        ("smallest", keys.smallest),
        ("P50", keys.p50),
        ("P90", keys.p90),
        ("P99", keys.p99),
    ]
    .into_iter()
    .filter_map(|(name, max_bytes)| {
        let paper = stats::paper_row(protocol, &r.workload, load, max_bytes)?;
        let ours = r.buckets.iter().find(|b| b.max_bytes == max_bytes);
        Some((name, max_bytes, ours.map(|b| b.p99_slowdown), paper.p99))
    })
    .collect()
}

fn chart(r: &Report, run: &RunInfo) -> String {
    let engine = match run.baseline {
        None => format!("homa-nic {}", run.engine),
        Some(_) => run.engine.to_string(),
    };
    let ours = |label: &str, color, dashed, f: fn(&homa_sim::cluster::BucketRow) -> f64| Series {
        label: label.into(),
        color,
        dashed,
        points: r
            .buckets
            .iter()
            .map(|b| (f64::from(b.max_bytes), f(b)))
            .collect(),
    };
    let mut series = vec![
        ours(&format!("p99 ({engine})"), "#c0392b", false, |b| {
            b.p99_slowdown
        }),
        ours(&format!("p50 ({engine})"), "#2471a3", false, |b| {
            b.p50_slowdown
        }),
    ];
    let paper_rows = stats::paper_load_key(r.load)
        .filter(|_| r.hosts == Topology::paper().num_hosts())
        .map(|load| {
            r.buckets
                .iter()
                .filter_map(|b| {
                    stats::paper_row(run.paper_protocol?, &r.workload, load, b.max_bytes)
                })
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    if !paper_rows.is_empty() {
        let paper = |label: &str, color, f: fn(&stats::PaperRow) -> f64| Series {
            label: label.into(),
            color,
            dashed: true,
            points: paper_rows
                .iter()
                .map(|p| (f64::from(p.max_bytes), f(p)))
                .collect(),
        };
        series.push(paper("p99 (SIGCOMM'18)", "#c0392b", |p| p.p99));
        series.push(paper("p50 (SIGCOMM'18)", "#2471a3", |p| p.p50));
    }
    let title = format!(
        "Homa slowdown, {} at {:.0}% load, {} hosts",
        r.workload,
        r.load * 100.0,
        r.hosts
    );
    slowdown_chart(&title, &series)
}

fn print_report(out: &mut impl Write, r: &Report, run: &RunInfo) -> std::io::Result<()> {
    // The paper's columns are Homa's: only a Homa run on its topology compares with them.
    let paper = stats::paper_load_key(r.load)
        .filter(|_| r.hosts == Topology::paper().num_hosts() && run.paper_protocol.is_some());
    let head = if paper.is_some() {
        "  paper_p50 paper_p99"
    } else {
        ""
    };
    writeln!(
        out,
        "{:>10} {:>8} {:>9} {:>9}{head}",
        "max_bytes", "count", "p50", "p99"
    )?;
    for b in &r.buckets {
        let row =
            paper.and_then(|l| stats::paper_row(run.paper_protocol?, &r.workload, l, b.max_bytes));
        let tail = row.map_or(String::new(), |p| {
            format!("  {:>9.2} {:>9.2}", p.p50, p.p99)
        });
        writeln!(
            out,
            "{:>10} {:>8} {:>9.2} {:>9.2}{tail}",
            b.max_bytes, b.count, b.p50_slowdown, b.p99_slowdown
        )?;
    }
    let ranges: Vec<String> = r
        .ranges
        .iter()
        .map(|b| {
            let bound = match b.max_bytes {
                u32::MAX => "larger".to_string(),
                m => format!("<= {m} B"),
            };
            format!(
                "{bound}: {} messages, p50 {:.2}, p99 {:.2}",
                b.count, b.p50_slowdown, b.p99_slowdown
            )
        })
        .collect();
    if !ranges.is_empty() {
        writeln!(out, "\nby size range: {}", ranges.join("; "))?;
    }
    if let Some(c) = &r.collective {
        writeln!(out, "{}", traffic::describe(c))?;
    }
    writeln!(
        out,
        "{} messages measured ({} generated) on {} hosts, workload {}, load {}",
        r.messages, r.generated, r.hosts, r.workload, r.load
    )?;
    writeln!(
        out,
        "simulated {:.3} ms in {:.1} s wall: {:.0} packets/s, {} packet-hops",
        r.simulated_seconds * 1e3,
        r.wall_seconds,
        r.packets_per_wall_second(),
        r.fabric.packet_hops
    )?;
    let sent: Vec<String> = r
        .packets_by_type
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(t, n)| format!("{t} {n}"))
        .collect();
    writeln!(out, "packets sent: {}", sent.join(", "))?;
    writeln!(
        out,
        "switch drops {}, injected losses {}, max switch queue {} B, timeouts {}",
        r.fabric.buffer_drops,
        r.fabric.injected_losses,
        r.fabric.max_switch_queue_bytes,
        r.timeouts
    )?;
    writeln!(
        out,
        "achieved load {:.3} (offered {})",
        r.achieved_load, r.load
    )?;
    match &run.baseline {
        None => writeln!(
            out,
            "engine {}: RPCs completed {}, failed {}, payload errors {}",
            run.engine, r.completed, r.rpcs_failed, r.payload_errors
        )?,
        Some(t) => writeln!(
            out,
            "transport {}: messages completed {} {}; segments {} ({} sent again: {} fast \
             retransmits, {} timeouts); ACKs {}; ECN marks {}, window cuts for them {}",
            run.engine,
            r.completed,
            match t.connections {
                0 => "as one flow each".to_string(),
                n => format!("over {n} connections"),
            },
            t.segments,
            t.retransmits,
            t.fast_retransmits,
            t.timeouts,
            t.acks,
            r.fabric.ecn_marks,
            t.ecn_reductions
        )?,
    }
    if let Some(rtt) = run.small_rpc_rtt_ps {
        let cycles = r
            .nic
            .as_ref()
            .map(|n| format!(" = {} cycles at {} MHz", rtt_cycles(rtt, n), n.clock_mhz))
            .unwrap_or_default();
        writeln!(
            out,
            "small RPC round trip ({} B request and response, idle network, median): {} ns{cycles}",
            run.small_rpc_bytes,
            rtt / 1_000
        )?;
    }
    if let Some(g) = &r.grant_nic {
        writeln!(
            out,
            "model NICs (the hardware's message table and grant queue references): GRANTs \
             decided {} ({} FIFO); table collisions {}, holes forgotten {}; releases {}; messages \
             granted by host software {} ({} of them after the NIC's silence; {} GRANTs)",
            g.grants_sent,
            g.fifo_grants,
            g.collisions,
            g.holes_forgotten,
            g.releases,
            g.grant_fallbacks,
            g.grant_fallbacks_silent,
            g.software_grants
        )?;
    }
    if let Some(n) = &r.nic {
        writeln!(
            out,
            "NICs (Verilated homa_nic_core_w512 per host, {} MHz, PCIe {} ns each way): {} cycles \
             clocked; frames in {} (dropped by the MAC, FIFO full: {}), parser ok {} / dropped {}; GRANTs built in hardware {} \
             ({} FIFO); grant slots full {}, table collisions {}, holes forgotten {}; releases {}; messages \
             granted by host software {} ({} of them after the NIC's silence; {} GRANTs); \
             payloads DMAed into host buffers {}, \
             dropped for want of a buffer {}; DMA faults {}; ACK entries a completion could not \
             carry {}; packets rebuilt from completions that differ from the wire {}; DATA frames \
             built in hardware {} from {} TX descriptors (refused or not posted: {}; RETRANSMITs \
             another already held: {}), GRANTs \
             matching no outbound message {}, dropped by a full park queue {}; most messages \
             parked at once on one NIC {} (parks refused, no free way for the key: {}); \
             the hosts' drivers wrote {} registers and read {} (each read a PCIe round trip) \
             and pushed {} 64-byte words into on-chip TX memory",
            n.clock_mhz,
            n.pcie_ns,
            n.cycles,
            n.frames_in,
            n.mac_drops,
            n.frames_ok,
            n.frames_dropped,
            n.grants_sent,
            n.fifo_grants,
            n.table_full,
            n.collisions,
            n.holes_forgotten,
            n.releases,
            n.grant_fallbacks,
            n.grant_fallbacks_silent,
            n.software_grants,
            n.rx_dma,
            n.rx_no_buffer,
            n.dma_faults,
            n.acks_not_carried,
            n.parse_mismatches,
            n.data_frames,
            n.tx_descriptors,
            n.tx_errors,
            n.retransmits_covered,
            n.grants_unmatched,
            n.grants_dropped,
            n.parked_most,
            n.park_collisions,
            n.bus_writes,
            n.bus_reads,
            n.pushes
        )?;
    }
    let rows = paper_comparison(r, run);
    if !rows.is_empty() {
        writeln!(
            out,
            "\np99 slowdown against SIGCOMM'18 ({}, same workload and load):",
            run.paper_protocol.unwrap_or("-")
        )?;
        writeln!(
            out,
            "{:>9} {:>10} {:>8} {:>8} {:>7}",
            "bucket", "max_bytes", "ours", "paper", "ratio"
        )?;
        for (name, max_bytes, ours, paper) in rows {
            match ours {
                Some(o) => writeln!(
                    out,
                    "{name:>9} {max_bytes:>10} {o:>8.2} {paper:>8.2} {:>7.2}",
                    o / paper
                )?,
                None => writeln!(
                    out,
                    "{name:>9} {max_bytes:>10} {:>8} {paper:>8.2} {:>7}",
                    "-", "-"
                )?,
            }
        }
    }
    Ok(())
}

/// A round trip in NIC clock cycles.
fn rtt_cycles(rtt_ps: u64, n: &NicReport) -> u64 {
    rtt_ps * u64::from(n.clock_mhz) / 1_000_000
}

fn report_json(r: &Report, run: &RunInfo) -> serde_json::Value {
    let buckets: Vec<_> = r
        .buckets
        .iter()
        .map(|b| {
            json!({
                "max_bytes": b.max_bytes,
                "count": b.count,
                "p50_slowdown": b.p50_slowdown,
                "p99_slowdown": b.p99_slowdown,
                "mean_slowdown": b.mean_slowdown,
            })
        })
        .collect();
    let comparison: Vec<_> = paper_comparison(r, run)
        .into_iter()
        .map(|(name, max_bytes, ours, paper)| {
            json!({
                "bucket": name,
                "max_bytes": max_bytes,
                "p99_slowdown": ours,
                "paper_p99_slowdown": paper,
            })
        })
        .collect();
    json!({
        "workload": r.workload,
        "load": r.load,
        "hosts": r.hosts,
        "messages": r.messages,
        "wall_seconds": r.wall_seconds,
        "simulated_seconds": r.simulated_seconds,
        "packets_per_wall_second": r.packets_per_wall_second(),
        "achieved_load": r.achieved_load,
        "switch_drops": r.fabric.buffer_drops,
        "timeouts": r.timeouts,
        "payload_errors": r.payload_errors,
        "engine": run.engine,
        "transport": if run.baseline.is_some() { run.engine } else { "homa" },
        "ecn_marks": r.fabric.ecn_marks,
        "baseline": run.baseline.as_ref().map(|t| json!({
            "connections": t.connections,
            "segments": t.segments,
            "retransmits": t.retransmits,
            "fast_retransmits": t.fast_retransmits,
            "timeouts": t.timeouts,
            "acks": t.acks,
            "ecn_reductions": t.ecn_reductions,
        })),
        "rpcs": r.completed,
        "rpcs_failed": r.rpcs_failed,
        "packets": packets_json(r),
        "stopped": r.stopped.as_ref().map(|s| s.to_string()),
        "small_rpc_rtt_ns": run.small_rpc_rtt_ps.map(|p| p as f64 / 1_000.0),
        "small_rpc_rtt_cycles": run
            .small_rpc_rtt_ps
            .zip(r.nic.as_ref())
            .map(|(p, n)| rtt_cycles(p, n)),
        "nic": r.nic.as_ref().map(nic_json),
        "grant_nic": r.grant_nic.as_ref().map(|g| json!({
            "grants_sent": g.grants_sent,
            "fifo_grants": g.fifo_grants,
            "collisions": g.collisions,
            "holes_forgotten": g.holes_forgotten,
            "releases": g.releases,
            "grant_fallbacks": g.grant_fallbacks,
            "grant_fallbacks_silent": g.grant_fallbacks_silent,
            "software_grants": g.software_grants,
        })),
        "buckets": buckets,
        "ranges": r.ranges.iter().map(|b| json!({
            "max_bytes": b.max_bytes,
            "count": b.count,
            "p50_slowdown": b.p50_slowdown,
            "p99_slowdown": b.p99_slowdown,
            "mean_slowdown": b.mean_slowdown,
        })).collect::<Vec<_>>(),
        "paper_comparison": comparison,
        "collective": r.collective.as_ref().map(traffic::to_json),
    })
}

/// Packets the hosts and NICs sent, by type: every type named, zeros included.
fn packets_json(r: &Report) -> serde_json::Value {
    let map: serde_json::Map<String, serde_json::Value> = r
        .packets_by_type
        .iter()
        .map(|(t, n)| ((*t).to_string(), json!(n)))
        .collect();
    serde_json::Value::Object(map)
}

/// The NICs' counters as JSON: the receive side and the transmit side (two objects merged,
/// one `json!` would pass the macro's recursion limit).
fn nic_json(n: &NicReport) -> serde_json::Value {
    let mut v = json!({
        "clock_mhz": n.clock_mhz,
        "pcie_ns": n.pcie_ns,
        "cycles": n.cycles,
        "frames_in": n.frames_in,
        "frames_ok": n.frames_ok,
        "frames_dropped": n.frames_dropped,
        "grants_sent": n.grants_sent,
        "fifo_grants": n.fifo_grants,
        "table_full": n.table_full,
        "collisions": n.collisions,
        "holes_forgotten": n.holes_forgotten,
        "releases": n.releases,
        "grant_fallbacks": n.grant_fallbacks,
        "grant_fallbacks_silent": n.grant_fallbacks_silent,
        "software_grants": n.software_grants,
        "parse_mismatches": n.parse_mismatches,
        "rx_dma": n.rx_dma,
        "rx_no_buffer": n.rx_no_buffer,
        "dma_faults": n.dma_faults,
        "mac_drops": n.mac_drops,
        "acks_not_carried": n.acks_not_carried,
    });
    let tx = json!({
        "data_frames": n.data_frames,
        "tx_descriptors": n.tx_descriptors,
        "tx_errors": n.tx_errors,
        "retransmits_covered": n.retransmits_covered,
        "grants_unmatched": n.grants_unmatched,
        "grants_dropped": n.grants_dropped,
        "parked_most": n.parked_most,
        "park_collisions": n.park_collisions,
        "bus_writes": n.bus_writes,
        "bus_reads": n.bus_reads,
        "pushes": n.pushes,
    });
    if let (Some(v), serde_json::Value::Object(tx)) = (v.as_object_mut(), tx) {
        v.extend(tx);
    }
    v
}
