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

mod host;
mod report;

pub use report::{BucketRow, Report};

use crate::event::EventQueue;
use crate::fabric::{Fabric, FabricConfig, FabricError, HostId, Topology};
use crate::rng::{SimRng, seeded_rng};
use crate::stats::SlowdownStats;
use crate::time::{Ps, SEC};
use crate::workload::{PoissonArrivals, Workload};
use homa_proto::core::{Config, ConfigError, Endpoint, Event, Instant, Message};
use host::{SimPacket, addr_of, frames_of};
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
    /// The host's engine asked to be woken (handle_timeout).
    Engine(HostId),
}

/// A message in flight.
#[derive(Debug, Clone, Copy)]
struct Tracked {
    src: HostId,
    size: u32,
    start: Ps,
    measured: bool,
    client_id: u64,
}

/// A running cluster.
#[derive(Debug)]
pub struct Cluster {
    config: ClusterConfig,
    fabric: Fabric<SimPacket>,
    hosts: Vec<Endpoint>,
    /// The time each host's engine asked to be woken, as scheduled in `timers`.
    wake: Vec<Option<Ps>>,
    timers: EventQueue<Timer>,
    arrivals: Vec<PoissonArrivals>,
    rng: SimRng,
    /// Messages in flight by (destination host, client id at the source).
    in_flight: HashMap<(HostId, HostId, u64), Tracked>,
    generated: u64,
    warmup: u64,
    measured_done: u64,
    stats: SlowdownStats,
    ideal_cache: HashMap<(u32, bool), Ps>,
    now: Ps,
    payload: bytes::Bytes,
    deliveries: Vec<crate::fabric::Delivery<SimPacket>>,
    /// Delivered messages whose bytes differ from what was sent.
    payload_errors: u64,
}

/// The port every host's server listens on.
const SERVER_PORT: u16 = 1000;
/// The port clients send from.
const CLIENT_PORT: u16 = 40000;

impl Cluster {
    /// Builds the cluster; nothing runs yet.
    pub fn new(config: ClusterConfig) -> Result<Self, ClusterError> {
        if !(config.load > 0.0 && config.load < 1.0) {
            return Err(ClusterError::Invalid {
                field: "load",
                value: config.load.to_string(),
                allowed: "a fraction strictly between 0 and 1",
            });
        }
        if config.messages == 0 {
            return Err(ClusterError::Invalid {
                field: "messages",
                value: "0".into(),
                allowed: "at least 1",
            });
        }
        if config.workload.max_bytes() > config.homa.max_message_length {
            return Err(ClusterError::Invalid {
                field: "workload",
                value: config.workload.name(),
                allowed: "messages no longer than the configuration's max_message_length",
            });
        }
        config.homa.validate()?;
        if let Pattern::Incast { target } = config.pattern
            && target >= config.topology.num_hosts()
        {
            return Err(ClusterError::Invalid {
                field: "incast target",
                value: target.to_string(),
                allowed: "a host of the topology",
            });
        }
        let fabric = Fabric::new(config.topology, config.fabric.clone())?;
        let n = fabric.num_hosts();
        if n < 2 {
            return Err(ClusterError::Invalid {
                field: "hosts",
                value: n.to_string(),
                allowed: "at least 2",
            });
        }
        let mut hosts = Vec::with_capacity(n);
        for i in 0..n {
            let mut e = Endpoint::new(config.homa.clone(), addr_of(i))?;
            e.bind(SERVER_PORT);
            // Steady state: every host already knows every peer's cutoffs (they are all the
            // same), as the paper's simulator assumes.
            for j in (0..n).filter(|&j| j != i) {
                e.set_peer_cutoffs(
                    addr_of(j),
                    config.homa.unsched_cutoffs,
                    config.homa.cutoff_version,
                );
            }
            hosts.push(e);
        }
        let grant_wire = host::wire_bytes(33, 20);
        let mean_wire = config.workload.expectation(|s| {
            let frames = frames_of(&config.homa, s);
            let data: u64 = frames.iter().map(|&f| u64::from(f)).sum();
            let scheduled = frames_of_scheduled(&config.homa, s);
            data as f64 + scheduled as f64 * f64::from(grant_wire)
        });
        let rate_per_ps =
            config.load * config.fabric.host_link_bps as f64 / 8.0 / SEC as f64 / mean_wire;
        let mean_gap_ps = 1.0 / rate_per_ps;
        let mut timers = EventQueue::new();
        let mut arrivals = Vec::with_capacity(n);
        for i in 0..n {
            let seed = config
                .seed
                .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                .wrapping_add(i as u64);
            let mut a =
                PoissonArrivals::new(mean_gap_ps, seed).map_err(|e| ClusterError::Invalid {
                    field: "load",
                    value: format!("{} (mean gap {} ps)", config.load, e.0),
                    allowed: "a load that gives a positive, finite message rate",
                })?;
            // An incast starts with every sender's first message at once.
            let first = match config.pattern {
                Pattern::Incast { .. } => 1,
                Pattern::Uniform => a.next_gap(),
            };
            timers.push(first, Timer::Arrival(i));
            arrivals.push(a);
        }
        let warmup = config.messages / 10;
        let largest = config.workload.max_bytes() as usize;
        let bounds = crate::stats::paper_buckets(&config.workload.name())
            .unwrap_or_else(|| default_buckets(&config.workload));
        let stats = SlowdownStats::with_buckets(bounds).map_err(|e| ClusterError::Invalid {
            field: "buckets",
            value: e.to_string(),
            allowed: "a non-empty ascending list",
        })?;
        Ok(Cluster {
            rng: seeded_rng(config.seed),
            fabric,
            hosts,
            wake: vec![None; n],
            timers,
            arrivals,
            in_flight: HashMap::new(),
            generated: 0,
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

    /// Runs until every measured message completed or the time limit passed, calling
    /// `progress(completed, total)` now and then. Returns the report.
    pub fn run(mut self, progress: &mut dyn FnMut(u64, u64)) -> Report {
        let wall = std::time::Instant::now();
        let total = self.config.messages;
        let mut events: u64 = 0;
        let mut last_reported = 0;
        while self.measured_done < total {
            let next = match (self.fabric.next_event_time(), self.timers.peek_time()) {
                (Some(a), Some(b)) => a.min(b),
                (Some(a), None) => a,
                (None, Some(b)) => b,
                (None, None) => break,
            };
            if next > self.config.time_limit_ps {
                break;
            }
            self.now = next;
            events += 1;
            self.deliveries.clear();
            let mut deliveries = std::mem::take(&mut self.deliveries);
            self.fabric.advance(next, &mut deliveries);
            let now_ns = Instant::from_nanos(next / 1_000);
            let mut touched: Vec<HostId> = Vec::new();
            for d in deliveries.drain(..) {
                let src = addr_of(d.packet.src);
                self.hosts[d.host].handle_packet(now_ns, src, d.packet.packet);
                touched.push(d.host);
            }
            self.deliveries = deliveries;
            while self.timers.peek_time().is_some_and(|t| t <= next) {
                let (_, timer) = self.timers.pop().expect("peeked");
                match timer {
                    Timer::Arrival(h) => {
                        self.new_message(h, now_ns);
                        let gap = self.arrivals[h].next_gap();
                        self.timers.push(next + gap.max(1), Timer::Arrival(h));
                    }
                    Timer::Engine(h) => {
                        if self.wake[h].is_some_and(|w| w <= next) {
                            self.wake[h] = None;
                            self.hosts[h].handle_timeout(now_ns);
                        }
                    }
                }
                touched.push(match timer {
                    Timer::Arrival(h) | Timer::Engine(h) => h,
                });
            }
            touched.sort_unstable();
            touched.dedup();
            for h in touched {
                self.drain(h, now_ns);
            }
            if self.measured_done >= last_reported + (total / 200).max(1) {
                last_reported = self.measured_done;
                progress(self.measured_done, total);
            }
        }
        progress(self.measured_done, total);
        report::build(&self, events, wall.elapsed().as_secs_f64())
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
        let data = self.payload.slice(..size as usize);
        let dest = std::net::SocketAddr::new(addr_of(dst), SERVER_PORT);
        let Ok(client_id) = self.hosts[src].send_request(now, CLIENT_PORT, dest, data) else {
            return;
        };
        let index = self.generated;
        self.generated += 1;
        let measured = index >= self.warmup && index < self.warmup + self.config.messages;
        self.in_flight.insert(
            (dst, src, client_id),
            Tracked {
                src,
                size,
                start: self.now,
                measured,
                client_id,
            },
        );
    }

    /// Lets host `h` act at `now`: deliver events, send packets, re-arm its timer.
    fn drain(&mut self, h: HostId, now: Instant) {
        while let Some(ev) = self.hosts[h].poll_event() {
            if let Event::Request(req) = ev {
                self.delivered(h, req.peer.ip(), req.id, &req.message);
            }
            // Responses and failures do not occur: every RPC ends at delivery.
        }
        let now_ps = self.now;
        while let Some(t) = self.hosts[h].poll_transmit(now) {
            let dst = host::host_of(t.dst);
            let packet = SimPacket::new(h, dst, t);
            self.fabric.host_send(now_ps, packet);
        }
        if let Some(t) = self.hosts[h].poll_timeout() {
            let at = (t.as_nanos() * 1_000).max(now_ps + 1);
            if self.wake[h].is_none_or(|w| at < w) {
                self.wake[h] = Some(at);
                self.timers.push(at, Timer::Engine(h));
            }
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
        self.hosts[dst].discard_request(client, server_id);
        let Some(t) = self.in_flight.remove(&(dst, src, client_id)) else {
            return;
        };
        self.hosts[t.src].cancel(t.client_id);
        // Every message is a prefix of the shared pattern: compare each received chunk in place.
        let intact = message.len() == t.size as usize
            && message.chunks().iter().all(|(offset, chunk)| {
                let at = *offset as usize;
                self.payload.get(at..at + chunk.len()) == Some(&chunk[..])
            });
        if !intact {
            self.payload_errors += 1;
        }
        if t.measured {
            let ideal = self.ideal(t.src, dst, t.size);
            let took = self.now - t.start;
            self.stats.record(t.size, took as f64 / ideal as f64);
            self.measured_done += 1;
        }
    }

    fn ideal(&mut self, src: HostId, dst: HostId, size: u32) -> Ps {
        let same = self.config.topology.same_rack(src, dst);
        if let Some(v) = self.ideal_cache.get(&(size, same)) {
            return *v;
        }
        let frames = frames_of(&self.config.homa, size);
        let v = self.fabric.ideal_delivery_ps(src, dst, &frames).max(1);
        self.ideal_cache.insert((size, same), v);
        v
    }
}

/// Scheduled DATA packets of a message (each is preceded by about one GRANT).
fn frames_of_scheduled(config: &Config, size: u32) -> u64 {
    let unsched = config.unsched_bytes.min(size);
    let payload = config.max_payload(20);
    u64::from((size - unsched).div_ceil(payload))
}

/// Buckets for workloads without paper data: powers of two up to the largest size.
fn default_buckets(workload: &Workload) -> Vec<u32> {
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
