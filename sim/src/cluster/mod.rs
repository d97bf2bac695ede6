//! The fast model of a Homa cluster: one `proto::core` engine per host on the packet-level
//! fabric, driven by a workload of Poisson message arrivals, measured as message slowdown.
//!
//! Messages are one-way, as in the SIGCOMM'18 simulations: each is sent as a Homa request,
//! and when the receiver has the whole message the cluster records its completion and ends
//! the RPC at both ends (the server discards it, the client cancels it), so no response or
//! ack traffic is added to the network load.
//!
//! Load is the fraction of each host link's bandwidth that the workload puts on the wire:
//! data packets with their Homa, IP and Ethernet overheads, plus the GRANTs that schedule
//! them. Each host draws message sizes from the workload and destinations uniformly among
//! the other hosts. The first tenth of the messages warms the network up and is not measured;
//! arrivals go on until every measured message has completed, so the last ones see the same
//! load as the first.
//!
//! Slowdown is a message's completion time over its best case on the idle fabric, computed by
//! the fabric itself (`Fabric::ideal_delivery_ps`) for the exact frames the engine sends.

// Without Verilator the NIC hosts and their breakdown are never built (NicError::NotBuilt).
#[cfg_attr(not(homa_rtl), allow(dead_code))]
mod breakdown;
mod grant_nic;
mod host;
mod hosts;
#[cfg_attr(not(homa_rtl), allow(dead_code))]
mod nics;
mod pingpong;
mod report;
mod watchdog;

pub use breakdown::Stage;
pub use grant_nic::GrantNicReport;
pub use pingpong::RpcRun;
pub(crate) use report::rows as report_rows;
pub use report::{BucketRow, NicReport, Report};
pub use watchdog::{STUCK_LISTED, SeenPacket, StopReason, Stopped, StuckRpc, Watchdog};

use crate::collective::{Collective, CollectiveSpec};
use crate::event::EventQueue;
use crate::fabric::{Fabric, FabricConfig, FabricError, HostId, Topology};
use crate::nic::{NicError, NicTiming};
use crate::rng::{SimRng, seeded_rng};
use crate::stats::SlowdownStats;
use crate::time::{Ps, SEC};
use crate::workload::{PoissonArrivals, Workload};
use homa_proto::core::{Config, ConfigError, Endpoint, Event, Instant, Message};
use homa_proto::wire::Body;
use host::{SimPacket, addr_of, frames_of};
use hosts::Host;
use nics::Nics;
use rand::RngExt;
use std::collections::HashMap;

/// Everything a run depends on.
#[derive(Debug, Clone)]
pub struct ClusterConfig {
    /// The network.
    pub topology: Topology,
    /// Link rates, delays, buffers, impairments and the fabric's seed.
    pub fabric: FabricConfig,
    /// The Homa parameters of every host.
    pub homa: Config,
    /// Message sizes.
    pub workload: Workload,
    /// Offered load on each host link, in (0, 1).
    pub load: f64,
    /// Messages to measure.
    pub messages: u64,
    /// Seed of the workload generator.
    pub seed: u64,
    /// Simulated time after which the run stops even if messages are outstanding.
    pub time_limit_ps: Ps,
    /// Where messages go.
    pub pattern: Pattern,
    /// What runs between each host's engine and the fabric.
    pub engine: Engine,
    /// When a run that stops making progress gives up.
    pub watchdog: Watchdog,
    /// A training job on hosts 0 to N-1, beside the Poisson messages (which then run only
    /// at a load above 0); the run ends when the job does.
    pub collective: Option<CollectiveSpec>,
}

/// How a run is going, for a progress display.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Measured messages completed.
    pub measured: u64,
    /// Measured messages asked for.
    pub total: u64,
    /// Messages completed, warm-up and later traffic included.
    pub completed: u64,
    /// RPCs that failed (their client's engine gave up on them).
    pub failed: u64,
    /// Simulated time, ps.
    pub simulated_ps: Ps,
    /// Packets the hosts and NICs put on the fabric so far.
    pub packets: u64,
}

/// What one step of the run did.
enum Step {
    /// Handled the events of the next time.
    Ran,
    /// Nothing is left to happen.
    Idle,
    /// The next event lies past the time limit.
    TimeLimit,
}

/// What runs between each host's engine and the fabric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Engine {
    /// Nothing: the engine's packets go straight to the fabric (the fast model).
    #[default]
    Model,
    /// A Verilated homa-nic per host ([`crate::nic`]): the hardware parses every received
    /// frame, decides and builds every GRANT (the engines run with `grant_offload`) and
    /// builds and sends every DATA frame from the TX descriptors the hosts post (the engines
    /// run with `tx_offload`).
    Rtl(NicTiming),
    /// The software engine with a model of the NIC's grants ([`grant_nic`]): the hardware's
    /// references (message table, grant queue) decide and send every GRANT (the engines run
    /// with `grant_offload`), without Verilator and without the core's latencies.
    ModelNic,
}

/// Destinations of the generated messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Pattern {
    /// Uniformly among the other hosts (the paper's traffic).
    #[default]
    Uniform,
    /// Every other host sends to this one (incast), all starting at the same instant; the
    /// target sends nothing.
    Incast {
        /// The receiving host.
        target: HostId,
    },
}

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// The fabric configuration is invalid.
    #[error(transparent)]
    Fabric(#[from] FabricError),
    /// The Homa configuration is invalid.
    #[error(transparent)]
    Homa(#[from] ConfigError),
    /// The simulated NICs could not be built.
    #[error(transparent)]
    Nic(#[from] NicError),
    /// The workload is unknown or malformed.
    #[error(transparent)]
    Workload(#[from] crate::workload::WorkloadError),
    /// A run parameter is out of range.
    #[error("invalid {field} {value}: allowed {allowed}")]
    Invalid {
        /// The parameter.
        field: &'static str,
        /// Its value.
        value: String,
        /// What is allowed.
        allowed: &'static str,
    },
}

#[derive(Debug, Clone, Copy)]
enum Timer {
    /// A new message is due at this host.
    Arrival(HostId),
    /// The host asked to be woken: its engine's timer, or (a NIC host) its NIC's DMA writes
    /// landing in its memory.
    Engine(HostId),
    /// A packet the host posted reaches the wire (the control packets of a NIC host).
    #[cfg_attr(not(homa_rtl), allow(dead_code))]
    ToWire(HostId),
    /// The host's model NIC makes a FIFO grant (`Engine::ModelNic`).
    NicFifo(HostId),
    /// The training job's next bucket may be ready.
    Collective,
}

/// A message in flight.
#[derive(Debug, Clone, Copy)]
struct Tracked {
    src: HostId,
    size: u32,
    start: Ps,
    measured: bool,
    client_id: u64,
    /// The last packets of its RPC that reached a host, oldest first (for the watchdog).
    seen: [Option<SeenPacket>; watchdog::SEEN],
    /// The highest byte end of its DATA that reached the receiver.
    reached: u32,
    /// When `reached` last grew (or the message started).
    advanced_ps: Ps,
    /// The training job's tag for it (`None`: a Poisson message).
    tag: Option<u64>,
}

/// A running cluster.
#[derive(Debug)]
pub struct Cluster {
    config: ClusterConfig,
    fabric: Fabric<SimPacket>,
    hosts: Vec<Host>,
    /// The time each host asked to be woken, as scheduled in `timers`.
    wake: Vec<Option<Ps>>,
    timers: EventQueue<Timer>,
    arrivals: Vec<PoissonArrivals>,
    rng: SimRng,
    /// Messages in flight by (destination host, client id at the source).
    in_flight: HashMap<(HostId, HostId, u64), Tracked>,
    /// Messages submitted (Poisson and the training job's).
    generated: u64,
    /// Poisson messages submitted: the first `warmup` are not measured.
    poisson: u64,
    warmup: u64,
    measured_done: u64,
    stats: SlowdownStats,
    ideal_cache: HashMap<(u32, bool), Ps>,
    now: Ps,
    payload: bytes::Bytes,
    deliveries: Vec<crate::fabric::Delivery<SimPacket>>,
    /// Delivered messages whose bytes differ from what was sent.
    payload_errors: u64,
    /// The PCIe model and counts of the Verilated NICs (`Engine::Rtl`; the NICs are the
    /// hosts').
    nics: Option<Nics>,
    /// Where frames leaving the hosts go ([`Cluster::capture`]).
    capture: Option<Capture>,
    /// Messages delivered, warm-up and later traffic included.
    completed: u64,
    /// Messages delivered that were no longer in flight (their client had given up).
    late_deliveries: u64,
    /// Client RPCs their engine gave up on (`Event::Failed`), and of them the measured ones.
    failed: u64,
    failed_measured: u64,
    /// Why the run ended early, if it did.
    stopped: Option<Stopped>,
    /// Round-trip mode ([`Cluster::round_trips`]).
    ping: Option<pingpong::Ping>,
    /// The model NICs' grant decisions, one per host (`Engine::ModelNic`; else empty).
    grant_nics: Vec<grant_nic::GrantNic>,
    /// The training job, if one runs.
    collective: Option<Collective>,
    /// Hosts the training job submitted messages on, to drain before the step ends.
    collective_hosts: Vec<HostId>,
    /// The time a `Timer::Collective` is queued for, if any.
    collective_timer: Option<Ps>,
    /// Why the training job cannot finish, once one of its messages is lost.
    job_lost: Option<StopReason>,
    /// NIC outputs of the current step.
    // Built by the rtl engine only (without Verilator it is never constructed).
    #[cfg_attr(not(homa_rtl), allow(dead_code))]
    nic_out: Vec<(Ps, crate::nic::NicOutput)>,
}

/// The port every host's server listens on.
const SERVER_PORT: u16 = 1000;
/// The port clients send from.
const CLIENT_PORT: u16 = 40000;

impl Cluster {
    /// Builds the cluster; nothing runs yet.
    pub fn new(mut config: ClusterConfig) -> Result<Self, ClusterError> {
        if matches!(config.engine, Engine::ModelNic | Engine::Rtl(_)) {
            // The NIC (modelled or Verilated) grants, FIFO grants included.
            config.homa.grant_offload = true;
        }
        if let Engine::Rtl(_) = config.engine {
            // The NIC sends the DATA: the engines hand it their messages.
            config.homa.tx_offload = true;
            // Real frames: the wire's message length limit holds.
            let limit = homa_proto::wire::MAX_MESSAGE_LENGTH;
            if config.workload.max_bytes() > limit {
                return Err(ClusterError::Invalid {
                    field: "workload",
                    value: format!(
                        "{} (up to {} bytes)",
                        config.workload.name(),
                        config.workload.max_bytes()
                    ),
                    allowed: "messages of at most 1000000 bytes with the rtl engine (Homa's wire \
                              limit; cap the workload with Workload::capped)",
                });
            }
            config.homa.max_message_length = config.homa.max_message_length.min(limit);
        }
        let poisson = check_run(
            config.load,
            config.messages,
            config.topology.num_hosts(),
            config.pattern,
            config.collective.as_ref(),
        )
        .map_err(|(field, value, allowed)| ClusterError::Invalid {
            field,
            value,
            allowed,
        })?;
        if config.workload.max_bytes() > config.homa.max_message_length {
            return Err(ClusterError::Invalid {
                field: "workload",
                value: config.workload.name(),
                allowed: "messages no longer than the configuration's max_message_length",
            });
        }
        if let Some(c) = &config.collective
            && c.largest_message() > config.homa.max_message_length
        {
            return Err(ClusterError::Invalid {
                field: "collective",
                value: format!("{} (messages of {} bytes)", c.name(), c.largest_message()),
                allowed: "messages no longer than the configuration's max_message_length \
                          (smaller buckets, or more hosts for ring and all-to-all)",
            });
        }
        config.homa.validate()?;
        let fabric = Fabric::new(config.topology, config.fabric.clone())?;
        let n = fabric.num_hosts();
        let (nics, mut hosts) = match config.engine {
            Engine::Model | Engine::ModelNic => {
                let mut hosts = Vec::with_capacity(n);
                for i in 0..n {
                    let mut e = Endpoint::new(config.homa.clone(), addr_of(i))?;
                    e.bind(SERVER_PORT);
                    hosts.push(Host::Bare(e));
                }
                (None, hosts)
            }
            Engine::Rtl(timing) => {
                let (nics, hosts) = Nics::hosts(n, &config.homa, SERVER_PORT, timing)?;
                (Some(nics), hosts)
            }
        };
        for (i, h) in hosts.iter_mut().enumerate() {
            // Steady state: every host already knows every peer's cutoffs (they are all the
            // same), as the paper's simulator assumes.
            let e = h.engine_mut();
            for j in (0..n).filter(|&j| j != i) {
                e.set_peer_cutoffs(
                    addr_of(j),
                    config.homa.unsched_cutoffs,
                    config.homa.cutoff_version,
                );
            }
        }
        // Without Poisson messages the arrival streams exist but are never started.
        let mean_gap_ps = mean_arrival_gap_ps(
            &config.homa,
            &config.workload,
            if poisson { config.load } else { 0.5 },
            config.fabric.host_link_bps,
        );
        let mut timers = EventQueue::new();
        let mut arrivals = Vec::with_capacity(n);
        for i in 0..n {
            let (first, a) =
                arrival_stream(config.seed, i, mean_gap_ps, config.pattern).map_err(|e| {
                    ClusterError::Invalid {
                        field: "load",
                        value: format!("{} (mean gap {} ps)", config.load, e.0),
                        allowed: "a load that gives a positive, finite message rate",
                    }
                })?;
            if poisson {
                timers.push(first, Timer::Arrival(i));
            }
            arrivals.push(a);
        }
        if config.collective.is_some() {
            timers.push(0, Timer::Collective);
        }
        let warmup = config.messages / 10;
        let largest = config
            .collective
            .map_or(0, |c| c.largest_message())
            .max(config.workload.max_bytes()) as usize;
        let bounds = crate::stats::paper_buckets(&config.workload.name())
            .unwrap_or_else(|| default_buckets(&config.workload));
        let stats = SlowdownStats::with_buckets(bounds).map_err(|e| ClusterError::Invalid {
            field: "buckets",
            value: e.to_string(),
            allowed: "a non-empty ascending list",
        })?;
        let grant_nics: Vec<grant_nic::GrantNic> = if config.engine == Engine::ModelNic {
            (0..n)
                .map(|_| grant_nic::GrantNic::new(&config.homa))
                .collect()
        } else {
            Vec::new()
        };
        for (h, nic) in grant_nics.iter().enumerate() {
            if let Some(every) = nic.fifo_interval_ps() {
                timers.push(every, Timer::NicFifo(h));
            }
        }
        Ok(Cluster {
            nics,
            ping: None,
            capture: None,
            completed: 0,
            late_deliveries: 0,
            failed: 0,
            failed_measured: 0,
            stopped: None,
            nic_out: Vec::new(),
            collective: config.collective.map(Collective::new),
            collective_hosts: Vec::new(),
            collective_timer: config.collective.map(|_| 0),
            job_lost: None,
            grant_nics,
            rng: seeded_rng(config.seed),
            fabric,
            hosts,
            wake: vec![None; n],
            timers,
            arrivals,
            in_flight: HashMap::new(),
            generated: 0,
            poisson: 0,
            warmup,
            measured_done: 0,
            stats,
            ideal_cache: HashMap::new(),
            now: 0,
            payload: bytes::Bytes::from((0..largest).map(|i| (i % 251) as u8).collect::<Vec<_>>()),
            payload_errors: 0,
            deliveries: Vec::new(),
            config,
        })
    }

    /// Hosts in the cluster.
    pub fn num_hosts(&self) -> usize {
        self.hosts.len()
    }

    /// Runs until every measured message completed (or failed), calling `progress` now and
    /// then. A run that cannot finish stops early (the time limit, or the watchdog: see
    /// [`Watchdog`]) and its report says why ([`Report::stopped`]). Returns the report.
    pub fn run(mut self, progress: &mut dyn FnMut(&Progress)) -> Report {
        let wall = std::time::Instant::now();
        let total = self.config.messages;
        let watchdog = self.config.watchdog;
        let mut events: u64 = 0;
        let (mut last_completed, mut last_completion_ps) = (0, 0);
        while !self.finished(total) {
            let reason = match self.step() {
                Step::Ran => None,
                Step::Idle => Some(StopReason::NothingPending),
                Step::TimeLimit => Some(StopReason::TimeLimit {
                    limit_ps: self.config.time_limit_ps,
                }),
            };
            let reason = reason.or_else(|| self.job_lost.take());
            events += 1;
            if self.completed + self.failed != last_completed || self.in_flight.is_empty() {
                // Progress, or nothing to wait for (an idle gap between arrivals).
                last_completed = self.completed + self.failed;
                last_completion_ps = self.now;
            }
            let reason = reason.or_else(|| {
                let span_ps = self.now - last_completion_ps;
                (span_ps > watchdog.stall_ps).then_some(StopReason::Stalled { span_ps })
            });
            let reason = reason.or_else(|| {
                if !events.is_multiple_of(1024) {
                    return None;
                }
                let oldest = self.in_flight.values().map(|t| t.advanced_ps).min()?;
                let age_ps = self.now - oldest;
                (age_ps > watchdog.stall_ps).then_some(StopReason::Starved { age_ps })
            });
            let reason = reason.or_else(|| {
                let budget = watchdog.wall.filter(|_| events.is_multiple_of(1024))?;
                (wall.elapsed() > budget).then_some(StopReason::WallBudget { budget })
            });
            if let Some(reason) = reason {
                self.stopped = Some(self.stopped(reason));
                break;
            }
            if events.is_multiple_of(4096) {
                progress(&self.progress());
            }
        }
        progress(&self.progress());
        self.settle_nics();
        let nic = self.nic_report();
        report::build(&self, events, wall.elapsed().as_secs_f64(), nic)
    }

    /// Host `h`'s model NIC sends `grants`: onto the wire from `h`, and into its engine as
    /// the real NIC's `GRANT_SENT` completions would tell it.
    fn nic_grants(&mut self, h: HostId, grants: Vec<homa_proto::core::Transmit>) {
        let now = Instant::from_nanos(self.now / 1_000);
        for t in grants {
            if let Host::Bare(e) = &mut self.hosts[h] {
                e.note_offloaded_grant(now, t.dst, &t.packet.header);
            }
            let dst = host::host_of(t.dst);
            self.wire_send(self.now, SimPacket::new(h, dst, t), None);
        }
    }

    /// What the model NICs did (`Engine::ModelNic`).
    pub(super) fn grant_nic_report(&self) -> Option<GrantNicReport> {
        if self.grant_nics.is_empty() {
            return None;
        }
        let mut r = GrantNicReport::default();
        for nic in &self.grant_nics {
            let (sent, fifo, collisions, holes, releases) = nic.counts();
            r.grants_sent += sent;
            r.fifo_grants += fifo;
            r.collisions += collisions;
            r.holes_forgotten += holes;
            r.releases += releases;
        }
        (
            r.grant_fallbacks,
            r.grant_fallbacks_silent,
            r.software_grants,
        ) = self.host_grants();
        Some(r)
    }

    /// What the host engines granted themselves, summed: (messages taken over from the NIC,
    /// of them after its silence, GRANTs sent in software).
    pub(super) fn host_grants(&self) -> (u64, u64, u64) {
        self.hosts.iter().fold((0, 0, 0), |(a, b, c), h| {
            let m = h.engine().metrics();
            (
                a + m.grant_fallbacks,
                b + m.grant_fallbacks_silent,
                c + m.sent_of(homa_proto::wire::PacketType::Grant),
            )
        })
    }

    fn progress(&self) -> Progress {
        Progress {
            measured: self.measured_done,
            total: self.config.messages,
            completed: self.completed,
            failed: self.failed,
            simulated_ps: self.now,
            packets: self.fabric.stats().packets_sent,
        }
    }

    /// Advances to the next event time and handles everything due then.
    fn step(&mut self) -> Step {
        let nic_edge = self.next_nic_edge();
        let next = [
            self.fabric.next_event_time(),
            self.timers.peek_time(),
            nic_edge,
        ]
        .into_iter()
        .flatten()
        .min();
        let Some(next) = next else {
            return Step::Idle;
        };
        if next > self.config.time_limit_ps {
            return Step::TimeLimit;
        }
        self.now = next;
        if let Some(nics) = &self.nics {
            // What the hosts do from here on happens now.
            nics.clock.set(next);
        }
        self.deliveries.clear();
        let mut deliveries = std::mem::take(&mut self.deliveries);
        self.fabric.advance(next, &mut deliveries);
        let now_ns = Instant::from_nanos(next / 1_000);
        let mut touched: Vec<HostId> = Vec::new();
        for d in deliveries.drain(..) {
            let h = &d.packet.packet.header;
            let (from, id, kind) = (d.packet.src, h.sender_id, h.packet_type());
            let data_end = match &h.body {
                Body::Data(data) => Some(data.offset + d.packet.packet.payload.len() as u32),
                _ => None,
            };
            self.note_packet(d.host, from, id, kind, data_end);
            match &mut self.hosts[d.host] {
                Host::Bare(e) => {
                    let src = addr_of(d.packet.src);
                    let verdict = self
                        .grant_nics
                        .get_mut(d.host)
                        .map(|nic| nic.packet(src, &d.packet.packet));
                    e.handle_packet(now_ns, src, d.packet.packet);
                    if let Some(v) = verdict {
                        if v.host_grants {
                            e.nic_not_granting(now_ns, src, id);
                        }
                        self.nic_grants(d.host, v.grants);
                    }
                    touched.push(d.host);
                }
                #[cfg(homa_rtl)]
                Host::Nic(_) => self.nic_receive(next, d.host, &d.packet),
            }
        }
        self.deliveries = deliveries;
        self.run_nics(next);
        while self.timers.peek_time().is_some_and(|t| t <= next) {
            let (t, timer) = self.timers.pop().expect("peeked");
            match timer {
                Timer::Arrival(h) => {
                    self.new_message(h, now_ns);
                    let gap = self.arrivals[h].next_gap();
                    self.timers.push(next + gap.max(1), Timer::Arrival(h));
                }
                Timer::Engine(h) => {
                    if self.wake[h].is_some_and(|w| w <= next) {
                        self.wake[h] = None;
                        #[cfg_attr(not(homa_rtl), allow(irrefutable_let_patterns))]
                        if let Host::Bare(e) = &mut self.hosts[h] {
                            e.handle_timeout(now_ns);
                        }
                    }
                }
                Timer::ToWire(h) => self.nic_to_wire(h, next),
                Timer::Collective => {
                    if self.collective_timer == Some(t) {
                        self.collective_timer = None;
                    }
                    self.drive_collective(now_ns);
                    continue;
                }
                Timer::NicFifo(h) => {
                    let nic = &mut self.grant_nics[h];
                    let grants = nic.fifo_grant();
                    if let Some(every) = nic.fifo_interval_ps() {
                        self.timers.push(next + every, Timer::NicFifo(h));
                    }
                    self.nic_grants(h, grants);
                }
            }
            touched.push(match timer {
                Timer::Arrival(h) | Timer::Engine(h) | Timer::ToWire(h) | Timer::NicFifo(h) => h,
                Timer::Collective => unreachable!("handled above"),
            });
        }
        // The training job's sends (from its timer, or from deliveries) are drained too.
        loop {
            touched.append(&mut self.collective_hosts);
            if touched.is_empty() {
                break;
            }
            touched.sort_unstable();
            touched.dedup();
            for h in std::mem::take(&mut touched) {
                self.drain(h, now_ns);
            }
        }
        Step::Ran
    }

    /// Whether the run is over: the training job is done, or (without one) every measured
    /// message completed or failed.
    fn finished(&self, total: u64) -> bool {
        match &self.collective {
            Some(c) => c.is_done(),
            None => self.measured_done + self.failed_measured >= total,
        }
    }

    /// Lets the training job send what it may now (its hosts are drained at the end of the
    /// step), and schedules its next bucket.
    fn drive_collective(&mut self, now: Instant) {
        let Some(c) = &mut self.collective else {
            return;
        };
        let sends = c.poll(self.now);
        let next = c.next_time();
        for s in sends {
            if !self.submit(s.src, s.dst, s.bytes, false, Some(s.tag), now) {
                self.job_lost.get_or_insert(StopReason::JobMessageLost {
                    src: s.src,
                    dst: s.dst,
                    size: s.bytes,
                });
            }
            self.collective_hosts.push(s.src);
        }
        // One timer at a time: a new one only when it is earlier than the one queued.
        if let Some(t) = next.map(|t| t.max(self.now))
            && self.collective_timer.is_none_or(|q| t < q)
        {
            self.collective_timer = Some(t);
            self.timers.push(t, Timer::Collective);
        }
    }

    fn new_message(&mut self, src: HostId, now: Instant) {
        let n = self.hosts.len();
        let dst = match self.config.pattern {
            Pattern::Uniform => {
                let d = self.rng.random_range(0..n - 1);
                if d >= src { d + 1 } else { d }
            }
            Pattern::Incast { target } if target != src => target,
            Pattern::Incast { .. } => return,
        };
        let size = self.config.workload.sample(&mut self.rng).max(1);
        let index = self.poisson;
        let measured = index >= self.warmup && index < self.warmup + self.config.messages;
        if self.submit(src, dst, size, measured, None, now) {
            self.poisson += 1;
        }
    }

    /// Host `src` sends a message of `size` bytes to `dst`; false if its engine refused it.
    fn submit(
        &mut self,
        src: HostId,
        dst: HostId,
        size: u32,
        measured: bool,
        tag: Option<u64>,
        now: Instant,
    ) -> bool {
        let data = self.payload.slice(..size as usize);
        let dest = std::net::SocketAddr::new(addr_of(dst), SERVER_PORT);
        let Ok(client_id) = self.hosts[src].submit(now, CLIENT_PORT, dest, data) else {
            return false;
        };
        self.generated += 1;
        self.in_flight.insert(
            (dst, src, client_id),
            Tracked {
                src,
                size,
                start: self.now,
                measured,
                client_id,
                seen: [None; watchdog::SEEN],
                reached: 0,
                advanced_ps: self.now,
                tag,
            },
        );
        true
    }

    /// Lets host `h` act at `now`: deliver events, send packets, re-arm its timer.
    fn drain(&mut self, h: HostId, now: Instant) {
        #[cfg(homa_rtl)]
        if let Host::Nic(_) = self.hosts[h] {
            self.drain_nic_host(h, now);
            return;
        }
        while let Some(ev) = self.bare(h).and_then(Endpoint::poll_event) {
            match ev {
                Event::Request(req) if self.ping.is_some() => self.ping_request(h, now, req),
                Event::Request(req) => self.delivered(h, req.peer.ip(), req.id, &req.message),
                Event::Response { id, message } => self.ping_response(id, &message),
                Event::Failed { id, .. } => self.failed(h, id),
            }
        }
        let now_ps = self.now;
        while let Some(t) = self.bare(h).and_then(|e| e.poll_transmit(now)) {
            let dst = host::host_of(t.dst);
            self.wire_send(now_ps, SimPacket::new(h, dst, t), None);
        }
        if let Some(t) = self.bare(h).and_then(|e| e.poll_timeout()) {
            self.wake_at(h, t.as_nanos() * 1_000);
        }
    }

    /// Host `h`'s engine, if it is a bare one.
    fn bare(&mut self, h: HostId) -> Option<&mut Endpoint> {
        match &mut self.hosts[h] {
            Host::Bare(e) => Some(e),
            #[cfg(homa_rtl)]
            Host::Nic(_) => None,
        }
    }

    /// Schedules host `h` to act at `at` (not before the next instant, nor while it waits
    /// for a register read's answer), unless it is already due by then.
    fn wake_at(&mut self, h: HostId, at: Ps) {
        let at = at.max(self.now + 1).max(self.hosts[h].busy_until());
        if self.wake[h].is_none_or(|w| at < w) {
            self.wake[h] = Some(at);
            self.timers.push(at, Timer::Engine(h));
        }
    }

    fn delivered(
        &mut self,
        dst: HostId,
        client: std::net::IpAddr,
        server_id: u64,
        message: &Message,
    ) {
        let src = host::host_of(client);
        let client_id = server_id ^ 1;
        if let Some(nic) = self.grant_nics.get_mut(dst) {
            let grants = nic.release(client, client_id, message.len() as u32);
            self.nic_grants(dst, grants);
        }
        self.hosts[dst].discard_request(client, server_id);
        let Some(t) = self.in_flight.remove(&(dst, src, client_id)) else {
            // Its client already gave up on it (or it came twice).
            self.late_deliveries += 1;
            return;
        };
        self.hosts[t.src].cancel(t.client_id);
        if t.src != dst {
            self.after_nic_host(t.src);
        }
        self.completed += 1;
        if !self.intact(message, t.size as usize) {
            self.payload_errors += 1;
        }
        if let (Some(tag), Some(c)) = (t.tag, &mut self.collective) {
            c.delivered(self.now, tag);
            self.drive_collective(Instant::from_nanos(self.now / 1_000));
        }
        if t.measured {
            let ideal = self.ideal(t.src, dst, t.size);
            let took = self.now - t.start;
            self.stats.record(t.size, took as f64 / ideal as f64);
            self.measured_done += 1;
        }
    }

    /// Client RPC `id` of host `src` failed: its message is accounted for as failed.
    fn failed(&mut self, src: HostId, id: u64) {
        let key = self
            .in_flight
            .iter()
            .find(|(_, t)| t.src == src && t.client_id == id)
            .map(|(k, _)| *k);
        let Some(t) = key.and_then(|k| self.in_flight.remove(&k)) else {
            return;
        };
        if t.tag.is_some() {
            self.job_lost.get_or_insert(StopReason::JobMessageLost {
                src: t.src,
                dst: key.map_or(0, |k| k.0),
                size: t.size,
            });
        }
        self.failed += 1;
        if t.measured {
            self.failed_measured += 1;
        }
    }

    fn ideal(&mut self, src: HostId, dst: HostId, size: u32) -> Ps {
        let same = self.config.topology.same_rack(src, dst);
        if let Some(v) = self.ideal_cache.get(&(size, same)) {
            return *v;
        }
        let frames = frames_of(&self.config.homa, size);
        // With NICs, the best case also crosses PCIe twice (posting, delivery).
        let pcie = self.nics.as_ref().map_or(0, |n| 2 * n.timing.pcie_ps());
        let v = (self.fabric.ideal_delivery_ps(src, dst, &frames) + pcie).max(1);
        self.ideal_cache.insert((size, same), v);
        v
    }
}

impl Cluster {
    /// Whether `message` is the first `len` bytes of the shared payload pattern (every
    /// message is a prefix of it): each received chunk compared in place.
    fn intact(&self, message: &Message, len: usize) -> bool {
        message.len() == len
            && message.chunks().iter().all(|(offset, chunk)| {
                let at = *offset as usize;
                self.payload.get(at..at + chunk.len()) == Some(&chunk[..])
            })
    }
}

/// What receives captured frames: (time, Ethernet frame).
type CaptureSink = Box<dyn FnMut(Ps, &[u8])>;

/// A sink for the frames hosts put on the wire.
pub struct Capture(CaptureSink);

impl std::fmt::Debug for Capture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Capture")
    }
}

impl Cluster {
    /// Hands every frame a host (engine or NIC) puts on its link to `sink`, with the time
    /// it starts: the bytes the NIC built (GRANTs of the `rtl` engine), else the frame
    /// `proto::wire` emits for the packet, from the host's MAC to the switch's.
    pub fn capture(&mut self, sink: impl FnMut(Ps, &[u8]) + 'static) {
        self.capture = Some(Capture(Box::new(sink)));
    }

    /// Puts a packet on host `packet.src`'s link; `frame` is its bytes when already built.
    fn wire_send(&mut self, at: Ps, packet: SimPacket, frame: Option<&[u8]>) {
        if let Some(Capture(sink)) = &mut self.capture {
            match frame {
                Some(f) => sink(at, f),
                None => sink(at, &nics::frame_of(&packet, nics::Hop::FromHost)),
            }
        }
        self.fabric.host_send(at, packet);
    }
}

/// A run parameter out of range: its name, its value and what is allowed.
pub(crate) type Invalid = (&'static str, String, &'static str);

/// The checks every cluster makes of its run, Homa's and the baselines': the load (when
/// Poisson messages run: always without a training job, and with one at a load above 0),
/// the messages to measure, the hosts, and where a training job and an incast go. Returns
/// whether Poisson messages run.
pub(crate) fn check_run(
    load: f64,
    messages: u64,
    hosts: usize,
    pattern: Pattern,
    collective: Option<&CollectiveSpec>,
) -> Result<bool, Invalid> {
    let poisson = collective.is_none() || load > 0.0;
    if poisson && !(load > 0.0 && load < 1.0) {
        return Err((
            "load",
            load.to_string(),
            "a fraction strictly between 0 and 1",
        ));
    }
    if messages == 0 {
        return Err(("messages", "0".into(), "at least 1"));
    }
    if hosts < 2 {
        return Err(("hosts", hosts.to_string(), "at least 2"));
    }
    if let Some(c) = collective
        && c.hosts > hosts
    {
        return Err((
            "collective hosts",
            c.hosts.to_string(),
            "at most the topology's hosts",
        ));
    }
    if let Pattern::Incast { target } = pattern
        && target >= hosts
    {
        return Err((
            "incast target",
            target.to_string(),
            "a host of the topology",
        ));
    }
    Ok(poisson)
}

/// Host `host`'s message arrivals for the run's `seed`, and when its first message comes: the
/// same streams for every transport. An incast starts with every sender's first message at
/// once.
pub(crate) fn arrival_stream(
    seed: u64,
    host: HostId,
    mean_gap_ps: f64,
    pattern: Pattern,
) -> Result<(Ps, PoissonArrivals), crate::workload::ArrivalsError> {
    let seed = seed
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .wrapping_add(host as u64);
    let mut a = PoissonArrivals::new(mean_gap_ps, seed)?;
    let first = match pattern {
        Pattern::Incast { .. } => 1,
        Pattern::Uniform => a.next_gap(),
    };
    Ok((first, a))
}

/// The mean gap between one host's message arrivals, ps, that puts `load` of a host link
/// of `host_link_bps` on the wire as Homa sends `workload`: its DATA frames with every
/// overhead, and the GRANTs that schedule them. The baseline transports take the same gap,
/// so that every transport carries the same messages.
pub fn mean_arrival_gap_ps(
    homa: &Config,
    workload: &Workload,
    load: f64,
    host_link_bps: u64,
) -> f64 {
    let grant_wire = host::wire_bytes(33, 20);
    let mean_wire = workload.expectation(|s| {
        let frames = frames_of(homa, s);
        let data: u64 = frames.iter().map(|&f| u64::from(f)).sum();
        let scheduled = frames_of_scheduled(homa, s);
        data as f64 + scheduled as f64 * f64::from(grant_wire)
    });
    let rate_per_ps = load * host_link_bps as f64 / 8.0 / SEC as f64 / mean_wire;
    1.0 / rate_per_ps
}

/// Scheduled DATA packets of a message (each is preceded by about one GRANT).
fn frames_of_scheduled(config: &Config, size: u32) -> u64 {
    let unsched = config.unsched_bytes.min(size);
    let payload = config.max_payload(20);
    u64::from((size - unsched).div_ceil(payload))
}

/// Buckets for workloads without paper data: powers of two up to the largest size.
pub(crate) fn default_buckets(workload: &Workload) -> Vec<u32> {
    let max = workload.max_bytes();
    let mut b = Vec::new();
    let mut x: u32 = 1;
    while x < max {
        b.push(x);
        x = x.saturating_mul(2);
    }
    b.push(max);
    b
}

#[cfg(test)]
mod tests;
