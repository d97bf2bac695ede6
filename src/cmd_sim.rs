//! `homa-nic sim`: a simulated Homa cluster and its slowdown by message size.

use crate::sim_report::{RunInfo, chart, print_report, report_json};
use crate::traffic::Traffic;
use anyhow::{Context, Result};
use clap::ValueEnum;
use homa_nic::capture::{CaptureError, CaptureWriter, FlushingWriter};
use homa_sim::baseline::pfabric::PfabricConfig;
use homa_sim::baseline::tcp::TcpConfig;
use homa_sim::baseline::{BaselineCluster, BaselineConfig, Transport, fabric_for};
use homa_sim::cluster::{
    Cluster, ClusterConfig, Engine as ClusterEngine, Pattern, Progress, Report, Watchdog,
    mean_arrival_gap_ps,
};
use homa_sim::fabric::{FabricConfig, Topology};
use homa_sim::nic::NicTiming;
use homa_sim::preset::{Preset, config_for, for_engine};
use homa_sim::time::MS;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
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
    /// over drop-tail switches), `dctcp` (switches mark ECN above --ecn-threshold-bytes),
    /// `pfabric` (switches schedule and drop by bytes left) or `pias` (DCTCP flows demoted
    /// through eight priorities) (docs/baselines.md).
    #[arg(long, value_enum, default_value_t = TransportArg::Homa)]
    transport: TransportArg,
    /// Switch ECN marking threshold K in bytes (--transport dctcp or pias) [default: 65
    /// full-size packets per 10 Gb/s of host link, the DCTCP paper's setting].
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
    /// The NIC core's data path (--engine rtl): `w512` (the Alveo configuration, 64 bytes a
    /// cycle, on 100 Gb/s links) or `w64` (the small configuration, 8 bytes a cycle, on
    /// 10 Gb/s links, which it carries from 157 MHz).
    #[arg(long, value_enum, default_value_t = CoreWidth::W512)]
    core: CoreWidth,
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

/// Link rate of clusters of the small core (`--core w64`).
const W64_LINK_BPS: u64 = 10_000_000_000;

/// The NIC core a cluster of `--engine rtl` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum CoreWidth {
    /// `homa_nic_core_w512`.
    W512,
    /// `homa_nic_core_w64`.
    W64,
}

impl CoreWidth {
    fn beat_bytes(self) -> u32 {
        match self {
            CoreWidth::W512 => 64,
            CoreWidth::W64 => 8,
        }
    }
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
    let (mut base, mut homa) = for_engine(Preset::from(args.preset), &workload, rtl, args.seed);
    if rtl && args.core == CoreWidth::W64 {
        // The small core's links: 10 Gb/s, which it carries from 157 MHz.
        base = FabricConfig::nic_at(W64_LINK_BPS, args.seed);
        homa = config_for(Preset::from(args.preset), &workload, W64_LINK_BPS);
        homa.tick_usecs = 10;
    }
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
        beat_bytes: args.core.beat_bytes(),
    };
    if rtl && !(50..=1_000).contains(&args.clock_mhz) {
        anyhow::bail!(
            "invalid --clock-mhz {}: allowed 50 to 1000 (the NIC's clock; and fast enough for \
             the links: 196 MHz for w512 at 100 Gb/s, 157 for w64 at 10 Gb/s)",
            args.clock_mhz
        );
    }
    let core_bps = 8 * u64::from(timing.beat_bytes) * u64::from(args.clock_mhz) * 1_000_000;
    if rtl && core_bps < fabric.host_link_bps {
        anyhow::bail!(
            "--core {:?} at --clock-mhz {} carries {:.1} Gb/s, less than its {} Gb/s links: \
             raise --clock-mhz",
            args.core,
            args.clock_mhz,
            core_bps as f64 / 1e9,
            fabric.host_link_bps / 1_000_000_000
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
