//! A cluster of hosts talking TCP or DCTCP over the fabric, driven and measured like the
//! Homa cluster: the same Poisson arrivals, sizes and destinations for a seed, the same
//! slowdown by size.
//!
//! Each ordered pair of hosts has one connection (or a pool of them), open from the start; a
//! host's messages to one peer are written to that connection's stream in the order they
//! arrive, so a short message waits behind every byte written before it (the head-of-line
//! blocking of RPC over TCP). With a pool, each message goes to the connection with the
//! fewest bytes outstanding. A message completes when the receiver holds every byte of the stream up to its
//! end. Slowdown divides its completion time by the best case on the idle fabric for the
//! segments it becomes on its own.

use std::collections::{HashMap, VecDeque};

use rand::RngExt;

use super::packet::{self, Body, TcpPacket};
use super::pfabric::{FlowPacket, FlowReceiver, FlowSender, PfabricConfig};
use super::switches::pias_thresholds;
use super::tcp::{Receiver, Segment, Sender, SenderCounts, TcpConfig, TcpConfigError};
use crate::cluster::{Pattern, Progress, Report, StopReason, Stopped, Watchdog};
use crate::cluster::{arrival_stream, check_run, default_buckets, report_rows};
use crate::collective::{Collective, CollectiveSpec};
use crate::event::EventQueue;
use crate::fabric::{Delivery, Fabric, FabricConfig, FabricError, HostId, Topology};
use crate::rng::{SimRng, seeded_rng};
use crate::stats::{SIZE_RANGES, SlowdownStats};
use crate::time::{Ps, SEC};
use crate::workload::{PoissonArrivals, Workload};
use flows::Flow;

/// A transport other than Homa.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// TCP NewReno over drop-tail switches.
    Tcp,
    /// DCTCP: TCP that cuts its window by the fraction of ECN-marked bytes; the switches
    /// must mark (`FabricConfig::ecn_mark_bytes`).
    Dctcp,
    /// pFabric: every message a flow ranked by its bytes left; the switches must schedule
    /// and drop by rank (`FabricConfig::pfabric`, with a small `port_buffer_bytes`).
    Pfabric,
    /// PIAS: every message a DCTCP flow of its own whose packets drop from priority 7 down
    /// a level at each of seven thresholds of bytes sent (a multi-level feedback queue on
    /// the switches' eight priorities); the switches mark ECN as for DCTCP.
    Pias,
}

impl Transport {
    /// Its name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Transport::Tcp => "tcp",
            Transport::Dctcp => "dctcp",
            Transport::Pfabric => "pfabric",
            Transport::Pias => "pias",
        }
    }
}

fn add(a: SenderCounts, b: SenderCounts) -> SenderCounts {
    SenderCounts {
        segments: a.segments + b.segments,
        retransmits: a.retransmits + b.retransmits,
        fast_retransmits: a.fast_retransmits + b.fast_retransmits,
        timeouts: a.timeouts + b.timeouts,
        ecn_reductions: a.ecn_reductions + b.ecn_reductions,
    }
}

/// Everything a baseline run depends on.
#[derive(Debug, Clone)]
pub struct BaselineConfig {
    /// The transport every host runs.
    pub transport: Transport,
    /// Its parameters (TCP and DCTCP).
    pub tcp: TcpConfig,
    /// pFabric's end-host parameters.
    pub pfabric: PfabricConfig,
    /// Connections per ordered host pair (at least 1): each message goes whole to the one
    /// with the fewest bytes outstanding, as an RPC library's connection pool would send it.
    pub connections: u16,
    /// The network.
    pub topology: Topology,
    /// Link rates, delays, buffers (and ECN marking), impairments and the fabric's seed.
    pub fabric: FabricConfig,
    /// Message sizes.
    pub workload: Workload,
    /// The offered load the arrivals stand for, reported as given.
    pub load: f64,
    /// Mean gap between one host's message arrivals, ps
    /// ([`crate::cluster::mean_arrival_gap_ps`] gives Homa's at a load).
    pub mean_gap_ps: f64,
    /// Messages to measure (a tenth more warm the network up first).
    pub messages: u64,
    /// Seed of the workload generator.
    pub seed: u64,
    /// Simulated time after which the run stops.
    pub time_limit_ps: Ps,
    /// Where messages go.
    pub pattern: Pattern,
    /// When a run that stops making progress gives up.
    pub watchdog: Watchdog,
    /// A training job on hosts 0 to N-1, beside the Poisson messages (which then run only
    /// at a load above 0); the run ends when the job does.
    pub collective: Option<CollectiveSpec>,
}

/// Why a baseline run could not start.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    /// The fabric configuration is invalid.
    #[error(transparent)]
    Fabric(#[from] FabricError),
    /// The TCP configuration is invalid.
    #[error(transparent)]
    Tcp(#[from] TcpConfigError),
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

/// What the transport did, summed over every connection.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TransportReport {
    /// Data segments sent, retransmissions included.
    pub segments: u64,
    /// Segments sent again.
    pub retransmits: u64,
    /// Fast retransmits.
    pub fast_retransmits: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Window reductions for ECN echoes (DCTCP).
    pub ecn_reductions: u64,
    /// ACKs sent.
    pub acks: u64,
    /// Connections that carried a message.
    pub connections: u64,
}

/// A connection: its sending host, its receiving host, and which of the pair's it is.
type ConnId = (HostId, HostId, u64);

#[derive(Debug, Clone, Copy)]
enum Timer {
    /// A new message is due at this host.
    Arrival(HostId),
    /// The retransmission timer of a connection may fire.
    Rto(ConnId),
    /// The training job's next bucket may be ready.
    Collective,
    /// The retransmission timer of a pFabric flow (by message) may fire.
    FlowRto(u64),
}

/// One direction of a connection: its two ends and the messages in its stream.
#[derive(Debug)]
struct Conn {
    sender: Sender,
    receiver: Receiver,
    /// Bytes written to the stream so far.
    written: u64,
    /// Messages written and not yet complete: (stream offset of their end, id).
    pending: VecDeque<(u64, u64)>,
    /// The time a `Timer::Rto` is queued for, if any.
    timer_at: Option<Ps>,
}

/// A message in flight.
#[derive(Debug, Clone, Copy)]
struct Tracked {
    src: HostId,
    dst: HostId,
    size: u32,
    start: Ps,
    measured: bool,
    /// The training job's tag for it (`None`: a Poisson message).
    tag: Option<u64>,
}

/// A running baseline cluster.
#[derive(Debug)]
pub struct BaselineCluster {
    config: BaselineConfig,
    fabric: Fabric<TcpPacket>,
    conns: HashMap<ConnId, Conn>,
    /// What closed connections (PIAS flows) did.
    closed: SenderCounts,
    /// PIAS's demotion thresholds, bytes sent, ascending (empty for the other transports).
    pias: Vec<u64>,
    /// pFabric's flows by message, until their sender has every acknowledgement.
    flows: HashMap<u64, Flow>,
    /// What finished pFabric flows did: packets, resent, timeouts.
    flow_counts: (u64, u64, u64),
    flow_packets: Vec<FlowPacket>,
    timers: EventQueue<Timer>,
    arrivals: Vec<PoissonArrivals>,
    rng: SimRng,
    in_flight: HashMap<u64, Tracked>,
    /// The next message's key in `in_flight`.
    next_id: u64,
    /// Poisson messages generated.
    generated: u64,
    warmup: u64,
    measured_done: u64,
    completed: u64,
    stats: SlowdownStats,
    ideal_cache: HashMap<(u32, bool), Ps>,
    now: Ps,
    acks: u64,
    segments: Vec<Segment>,
    deliveries: Vec<Delivery<TcpPacket>>,
    stopped: Option<Stopped>,
    collective: Option<Collective>,
    /// The time a `Timer::Collective` is queued for, if any.
    collective_timer: Option<Ps>,
}

impl BaselineCluster {
    /// Builds the cluster; nothing runs yet.
    pub fn new(config: BaselineConfig) -> Result<Self, BaselineError> {
        config.tcp.validate()?;
        let poisson = check_run(
            config.load,
            config.messages,
            config.topology.num_hosts(),
            config.pattern,
            config.collective.as_ref(),
        )
        .map_err(|(field, value, allowed)| BaselineError::Invalid {
            field,
            value,
            allowed,
        })?;
        if poisson && !(config.mean_gap_ps.is_finite() && config.mean_gap_ps >= 1.0) {
            return Err(BaselineError::Invalid {
                field: "mean arrival gap",
                value: format!("{} ps", config.mean_gap_ps),
                allowed: "a finite gap of at least 1 ps",
            });
        }
        if config.connections == 0 {
            return Err(BaselineError::Invalid {
                field: "connections per host pair",
                value: "0".into(),
                allowed: "at least 1",
            });
        }
        let fabric = Fabric::new(config.topology, config.fabric.clone())?;
        let n = fabric.num_hosts();
        // The same arrival streams as the Homa cluster's for the seed.
        let mut timers = EventQueue::new();
        let mut arrivals = Vec::with_capacity(n);
        for i in 0..n {
            // Without Poisson messages the streams exist but are never started.
            let gap = if poisson { config.mean_gap_ps } else { 1.0 };
            let (first, a) = arrival_stream(config.seed, i, gap, config.pattern).map_err(|e| {
                BaselineError::Invalid {
                    field: "mean arrival gap",
                    value: format!("{} ps", e.0),
                    allowed: "a positive, finite gap",
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
        let bounds = crate::stats::paper_buckets(&config.workload.name())
            .unwrap_or_else(|| default_buckets(&config.workload));
        let stats = SlowdownStats::with_buckets(bounds).map_err(|e| BaselineError::Invalid {
            field: "buckets",
            value: e.to_string(),
            allowed: "a non-empty ascending list",
        })?;
        Ok(Self {
            rng: seeded_rng(config.seed),
            warmup: config.messages / 10,
            fabric,
            conns: HashMap::new(),
            closed: SenderCounts::default(),
            pias: if config.transport == Transport::Pias {
                pias_thresholds(&config.workload)
            } else {
                Vec::new()
            },
            flows: HashMap::new(),
            flow_counts: (0, 0, 0),
            flow_packets: Vec::new(),
            timers,
            arrivals,
            in_flight: HashMap::new(),
            next_id: 0,
            generated: 0,
            measured_done: 0,
            completed: 0,
            stats,
            ideal_cache: HashMap::new(),
            now: 0,
            acks: 0,
            segments: Vec::new(),
            deliveries: Vec::new(),
            stopped: None,
            collective: config.collective.map(Collective::new),
            collective_timer: config.collective.map(|_| 0),
            config,
        })
    }

    /// Hosts in the cluster.
    pub fn num_hosts(&self) -> usize {
        self.fabric.num_hosts()
    }

    /// Runs until every measured message completed, calling `progress` now and then; a run
    /// that cannot finish stops early and its report says why.
    pub fn run(mut self, progress: &mut dyn FnMut(&Progress)) -> (Report, TransportReport) {
        let wall = std::time::Instant::now();
        let watchdog = self.config.watchdog;
        let mut steps: u64 = 0;
        let (mut last_completed, mut last_progress_ps) = (0, 0);
        while !self.finished() {
            let Some(next) = [self.fabric.next_event_time(), self.timers.peek_time()]
                .into_iter()
                .flatten()
                .min()
            else {
                self.stop(StopReason::NothingPending);
                break;
            };
            if next > self.config.time_limit_ps {
                self.stop(StopReason::TimeLimit {
                    limit_ps: self.config.time_limit_ps,
                });
                break;
            }
            self.step(next);
            steps += 1;
            if self.completed != last_completed || self.in_flight.is_empty() {
                last_completed = self.completed;
                last_progress_ps = self.now;
            }
            let span_ps = self.now - last_progress_ps;
            if span_ps > watchdog.stall_ps {
                self.stop(StopReason::Stalled { span_ps });
                break;
            }
            if steps.is_multiple_of(1024)
                && let Some(budget) = watchdog.wall
                && wall.elapsed() > budget
            {
                self.stop(StopReason::WallBudget { budget });
                break;
            }
            if steps.is_multiple_of(4096) {
                progress(&self.progress());
            }
        }
        progress(&self.progress());
        let transport = self.transport_report();
        (self.report(steps, wall.elapsed().as_secs_f64()), transport)
    }

    /// Whether the run is over: the training job is done, or (without one) every measured
    /// message completed.
    fn finished(&self) -> bool {
        match &self.collective {
            Some(c) => c.is_done(),
            None => self.measured_done >= self.config.messages,
        }
    }

    fn progress(&self) -> Progress {
        Progress {
            measured: self.measured_done,
            total: self.config.messages,
            completed: self.completed,
            failed: 0,
            simulated_ps: self.now,
            packets: self.fabric.stats().packets_sent,
        }
    }

    fn stop(&mut self, reason: StopReason) {
        self.stopped = Some(Stopped {
            reason,
            at_ps: self.now,
            in_flight: self.in_flight.len(),
            stuck: Vec::new(),
        });
    }

    /// Handles everything that happens at `now`.
    fn step(&mut self, now: Ps) {
        self.now = now;
        let mut deliveries = std::mem::take(&mut self.deliveries);
        self.fabric.advance(now, &mut deliveries);
        for d in deliveries.drain(..) {
            self.receive(d.host, d.packet);
        }
        self.deliveries = deliveries;
        while self.timers.peek_time().is_some_and(|t| t <= now) {
            let (t, timer) = self.timers.pop().expect("peeked");
            match timer {
                Timer::Arrival(h) => {
                    self.new_message(h);
                    let gap = self.arrivals[h].next_gap();
                    self.timers.push(now + gap.max(1), Timer::Arrival(h));
                }
                Timer::Collective => {
                    if self.collective_timer == Some(t) {
                        self.collective_timer = None;
                    }
                    self.drive_collective();
                }
                Timer::FlowRto(message) => {
                    let Some(f) = self.flows.get_mut(&message) else {
                        continue;
                    };
                    if f.timer_at == Some(t) {
                        f.timer_at = None;
                    }
                    f.sender.on_timer(now, &mut self.flow_packets);
                    self.flow_flush(message);
                }
                Timer::Rto(id) => {
                    let Some(c) = self.conns.get_mut(&id) else {
                        continue;
                    };
                    if c.timer_at == Some(t) {
                        c.timer_at = None;
                    }
                    c.sender.on_timer(now, &mut self.segments);
                    self.flush(id);
                }
            }
        }
    }

    /// Lets the training job send what it may now, and schedules its next bucket.
    fn drive_collective(&mut self) {
        let Some(c) = &mut self.collective else {
            return;
        };
        let sends = c.poll(self.now);
        let next = c.next_time();
        for s in sends {
            self.send_message(s.src, s.dst, s.bytes, false, Some(s.tag));
        }
        // One timer at a time: a new one only when it is earlier than the one queued.
        if let Some(t) = next.map(|t| t.max(self.now))
            && self.collective_timer.is_none_or(|q| t < q)
        {
            self.collective_timer = Some(t);
            self.timers.push(t, Timer::Collective);
        }
    }

    fn new_message(&mut self, src: HostId) {
        let n = self.num_hosts();
        let dst = match self.config.pattern {
            Pattern::Uniform => {
                let d = self.rng.random_range(0..n - 1);
                if d >= src { d + 1 } else { d }
            }
            Pattern::Incast { target } if target != src => target,
            Pattern::Incast { .. } => return,
        };
        let size = self.config.workload.sample(&mut self.rng).max(1);
        let index = self.generated;
        self.generated += 1;
        let measured = index >= self.warmup && index < self.warmup + self.config.messages;
        self.send_message(src, dst, size, measured, None);
    }

    /// Writes a message of `size` bytes to a connection from `src` to `dst`.
    fn send_message(
        &mut self,
        src: HostId,
        dst: HostId,
        size: u32,
        measured: bool,
        tag: Option<u64>,
    ) {
        let message = self.next_id;
        self.next_id += 1;
        self.in_flight.insert(
            message,
            Tracked {
                src,
                dst,
                size,
                start: self.now,
                measured,
                tag,
            },
        );
        if self.config.transport == Transport::Pfabric {
            let sender = FlowSender::new(self.config.pfabric, u64::from(size));
            let receiver = FlowReceiver::new(sender.packets());
            self.flows.insert(
                message,
                Flow {
                    src,
                    dst,
                    sender,
                    receiver,
                    timer_at: None,
                },
            );
            self.flow_poll(message);
            return;
        }
        let pias = self.config.transport == Transport::Pias;
        let (tcp, dctcp) = (
            self.config.tcp,
            pias || self.config.transport == Transport::Dctcp,
        );
        // PIAS: a connection of its own. Else the pair's connection with the fewest bytes
        // outstanding (the lowest on a tie).
        let k = if pias {
            message
        } else {
            (0..u64::from(self.config.connections))
                .min_by_key(|&k| {
                    self.conns
                        .get(&(src, dst, k))
                        .map_or(0, |c| c.sender.unacked())
                })
                .unwrap_or(0)
        };
        let id = (src, dst, k);
        let c = self.conns.entry(id).or_insert_with(|| Conn {
            sender: Sender::new(tcp, dctcp),
            receiver: Receiver::default(),
            written: 0,
            pending: VecDeque::new(),
            timer_at: None,
        });
        c.sender.write(u64::from(size));
        c.written += u64::from(size);
        c.pending.push_back((c.written, message));
        c.sender.poll(self.now, &mut self.segments);
        self.flush(id);
    }

    /// A packet reached `host`.
    fn receive(&mut self, host: HostId, p: TcpPacket) {
        if self.config.transport == Transport::Pfabric {
            self.flow_receive(host, p);
            return;
        }
        match p.body {
            Body::Data(seg) => {
                let (src, dst) = (p.src, host);
                let Some(c) = self.conns.get_mut(&(src, dst, p.conn)) else {
                    return;
                };
                let ack = c.receiver.on_segment(seg);
                let mut done = Vec::new();
                while c.pending.front().is_some_and(|&(end, _)| end <= ack) {
                    done.push(c.pending.pop_front().expect("peeked").1);
                }
                self.acks += 1;
                let reply = TcpPacket {
                    src: dst,
                    dst: src,
                    conn: p.conn,
                    flow: 0,
                    rank: 0,
                    // PIAS sends ACKs at the top priority; TCP has one.
                    priority: if self.config.transport == Transport::Pias {
                        7
                    } else {
                        0
                    },
                    body: Body::Ack { ack, ece: p.ce },
                    ect: false,
                    ce: false,
                };
                self.fabric.host_send(self.now, reply);
                for id in done {
                    self.complete(id);
                }
            }
            Body::Ack { ack, ece } => {
                let id = (host, p.src, p.conn);
                let Some(c) = self.conns.get_mut(&id) else {
                    return;
                };
                c.sender.on_ack(self.now, ack, ece, &mut self.segments);
                c.sender.poll(self.now, &mut self.segments);
                // A PIAS flow is over once everything is acknowledged.
                if self.config.transport == Transport::Pias
                    && c.sender.unacked() == 0
                    && c.pending.is_empty()
                {
                    let c = self.conns.remove(&id).expect("present");
                    self.closed = add(self.closed, c.sender.counts());
                    return;
                }
                self.flush(id);
            }
        }
    }

    /// Sends the segments the sender of connection `id` produced and re-arms its timer.
    fn flush(&mut self, id: ConnId) {
        let Some(c) = self.conns.get_mut(&id) else {
            return;
        };
        let ect = c.sender.is_dctcp();
        let (src, dst, conn) = id;
        for seg in self.segments.drain(..) {
            // PIAS: one level down per threshold of bytes sent before the segment.
            let demoted = self.pias.iter().filter(|&&t| seg.seq >= t).count() as u8;
            let p = TcpPacket {
                src,
                dst,
                conn,
                flow: 0,
                rank: 0,
                priority: if self.config.transport == Transport::Pias {
                    7 - demoted
                } else {
                    0
                },
                body: Body::Data(seg),
                ect,
                ce: false,
            };
            self.fabric.host_send(self.now, p);
        }
        if let Some(d) = c.sender.deadline()
            && c.timer_at.is_none_or(|at| d < at)
        {
            c.timer_at = Some(d);
            self.timers.push(d, Timer::Rto(id));
        }
    }

    fn complete(&mut self, id: u64) {
        let Some(t) = self.in_flight.remove(&id) else {
            return;
        };
        self.completed += 1;
        if let (Some(tag), Some(c)) = (t.tag, &mut self.collective) {
            c.delivered(self.now, tag);
            self.drive_collective();
        }
        if t.measured {
            let ideal = self.ideal(t.src, t.dst, t.size);
            let took = self.now - t.start;
            self.stats.record(t.size, took as f64 / ideal as f64);
            self.measured_done += 1;
        }
    }

    /// The best case of a message of `size` bytes from `src` to `dst` on the idle fabric:
    /// its full segments back to back.
    fn ideal(&mut self, src: HostId, dst: HostId, size: u32) -> Ps {
        let same = self.config.topology.same_rack(src, dst);
        if let Some(v) = self.ideal_cache.get(&(size, same)) {
            return *v;
        }
        let mss = match self.config.transport {
            Transport::Pfabric => self.config.pfabric.mss,
            Transport::Tcp | Transport::Dctcp | Transport::Pias => self.config.tcp.mss,
        };
        let frames: Vec<u32> = (0..size.div_ceil(mss))
            .map(|i| packet::wire_bytes((size - i * mss).min(mss)))
            .collect();
        let v = self.fabric.ideal_delivery_ps(src, dst, &frames).max(1);
        self.ideal_cache.insert((size, same), v);
        v
    }

    fn transport_report(&self) -> TransportReport {
        let sum = self
            .conns
            .values()
            .map(|c| c.sender.counts())
            .fold(self.closed, add);
        let live = self.flows.values().fold((0, 0, 0), |a, f| {
            (
                a.0 + f.sender.sent,
                a.1 + f.sender.resent,
                a.2 + f.sender.timeouts,
            )
        });
        let flows = (
            self.flow_counts.0 + live.0,
            self.flow_counts.1 + live.1,
            self.flow_counts.2 + live.2,
        );
        TransportReport {
            segments: sum.segments + flows.0,
            retransmits: sum.retransmits + flows.1,
            fast_retransmits: sum.fast_retransmits,
            timeouts: sum.timeouts + flows.2,
            ecn_reductions: sum.ecn_reductions,
            acks: self.acks,
            connections: match self.config.transport {
                Transport::Pfabric | Transport::Pias => 0,
                Transport::Tcp | Transport::Dctcp => self.conns.len() as u64,
            },
        }
    }

    fn report(&self, steps: u64, wall_seconds: f64) -> Report {
        let fabric = self.fabric.stats();
        let capacity = self.now as f64 / SEC as f64
            * self.num_hosts() as f64
            * self.config.fabric.host_link_bps as f64;
        let t = self.transport_report();
        Report {
            workload: self.config.workload.name(),
            load: self.config.load,
            hosts: self.num_hosts(),
            messages: self.measured_done,
            generated: self.next_id,
            wall_seconds,
            simulated_seconds: self.now as f64 / SEC as f64,
            steps,
            buckets: report_rows(self.stats.buckets()),
            ranges: report_rows(self.stats.ranges(&SIZE_RANGES)),
            fabric,
            packets_by_type: vec![("DATA", t.segments), ("ACK", t.acks)],
            timeouts: t.timeouts,
            completed: self.completed,
            payload_errors: 0,
            achieved_load: fabric.bytes_delivered as f64 * 8.0 / capacity.max(1.0),
            nic: None,
            grant_nic: None,
            rpcs_failed: 0,
            in_flight: self.in_flight.len() as u64,
            late_deliveries: 0,
            stopped: self.stopped.clone(),
            collective: self.collective.as_ref().map(Collective::report),
        }
    }
}

mod flows;

#[cfg(test)]
mod tests;
