//! Distributed-training traffic: synchronous steps of compute and collectives over gradient
//! buckets, sans IO, for any transport.
//!
//! A step is a compute phase (`compute`) during which the gradient buckets become ready one
//! after another, evenly, the last at its end, as a data-parallel backward pass produces them;
//! each bucket's collective starts when it is ready, so communication overlaps the rest of
//! the compute. The step ends when the compute is over and every bucket's collective is
//! complete; the next step starts then. The collectives:
//!
//! - ring all-reduce: a reduce-scatter and an all-gather around the ring of hosts, 2(N-1)
//!   phases in each of which every host sends a chunk of bucket/N bytes to its successor,
//!   once it holds the chunk of the previous phase from its predecessor;
//! - tree all-reduce: the whole bucket up a binary tree (a host sends to its parent once
//!   every child's has arrived) and back down from the root;
//! - all-to-all (mixture-of-experts dispatch): every host sends bucket/N bytes to every other
//!   host at once.
//!
//! The driver says which messages to send and when ([`Collective::poll`]); the cluster says
//! when each arrives whole ([`Collective::delivered`]). Step times and the share of each step
//! spent waiting on the network are its results ([`Collective::report`]).

use crate::time::{MS, Ps, US};

/// Which collective each bucket runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    /// Ring all-reduce (reduce-scatter, then all-gather).
    Ring,
    /// Binary-tree all-reduce (reduce to the root, broadcast back).
    Tree,
    /// All-to-all.
    AllToAll,
}

/// A training job's traffic, as `--workload` gives it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CollectiveSpec {
    /// The collective of every bucket.
    pub algorithm: Algorithm,
    /// Hosts taking part: hosts 0 to N-1.
    pub hosts: usize,
    /// Bytes per gradient bucket (per host).
    pub bucket_bytes: u32,
    /// Buckets per step.
    pub buckets: u32,
    /// Compute time per step.
    pub compute_ps: Ps,
    /// Steps to run.
    pub steps: u32,
}

/// The forms [`CollectiveSpec::parse`] accepts, for error messages.
pub const COLLECTIVE_FORMS: &str = "allreduce:hosts=N,bucket=SIZE,buckets=B,compute=TIME\
    [,steps=S][,algo=ring|tree] or alltoall:hosts=N,bucket=SIZE,buckets=B,compute=TIME[,steps=S] \
    (SIZE like 25MB, 64KB or 1000; TIME like 2ms, 500us)";

/// A collective specification that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad collective workload `{spec}`: {reason}; expected {COLLECTIVE_FORMS}")]
pub struct CollectiveError {
    /// The specification given.
    pub spec: String,
    /// What is wrong with it.
    pub reason: String,
}

impl CollectiveSpec {
    /// Whether `spec` names a collective (rather than a message-size workload).
    pub fn is_collective(spec: &str) -> bool {
        let s = spec.trim().to_ascii_lowercase();
        s.starts_with("allreduce") || s.starts_with("alltoall")
    }

    /// Parses `allreduce:hosts=16,bucket=25MB,buckets=8,compute=2ms[,steps=10][,algo=tree]`
    /// or `alltoall:...`; every field but `steps` (default 10) and `algo` (default ring) is
    /// required.
    pub fn parse(spec: &str) -> Result<Self, CollectiveError> {
        let bad = |reason: String| CollectiveError {
            spec: spec.to_string(),
            reason,
        };
        let s = spec.trim().to_ascii_lowercase();
        let (kind, fields) = s
            .split_once(':')
            .ok_or_else(|| bad("no fields after the collective's name".into()))?;
        let mut algorithm = match kind {
            "allreduce" => Algorithm::Ring,
            "alltoall" => Algorithm::AllToAll,
            other => return Err(bad(format!("unknown collective `{other}`"))),
        };
        let (mut hosts, mut bucket, mut buckets, mut compute) = (None, None, None, None);
        let mut steps = 10;
        for field in fields.split(',').map(str::trim).filter(|f| !f.is_empty()) {
            let (key, value) = field
                .split_once('=')
                .ok_or_else(|| bad(format!("`{field}` is not KEY=VALUE")))?;
            let number = |v: &str| {
                v.parse::<u64>()
                    .map_err(|_| bad(format!("`{key}={v}` is not a whole number")))
            };
            match key {
                "hosts" => hosts = Some(number(value)?),
                "bucket" => {
                    bucket = Some(parse_bytes(value).ok_or_else(|| {
                        bad(format!("`bucket={value}` is not a size (25MB, 64KB, 1000)"))
                    })?)
                }
                "buckets" => buckets = Some(number(value)?),
                "compute" => {
                    compute = Some(parse_time(value).ok_or_else(|| {
                        bad(format!("`compute={value}` is not a time (2ms, 500us, 0)"))
                    })?)
                }
                "steps" => steps = number(value)?,
                "algo" if algorithm != Algorithm::AllToAll => {
                    algorithm = match value {
                        "ring" => Algorithm::Ring,
                        "tree" => Algorithm::Tree,
                        v => return Err(bad(format!("unknown algo `{v}` (ring or tree)"))),
                    }
                }
                k => return Err(bad(format!("unknown field `{k}`"))),
            }
        }
        let missing = |name: &str| bad(format!("`{name}` is missing"));
        let hosts = hosts.ok_or_else(|| missing("hosts"))?;
        let bucket = bucket.ok_or_else(|| missing("bucket"))?;
        let buckets = buckets.ok_or_else(|| missing("buckets"))?;
        let compute_ps = compute.ok_or_else(|| missing("compute"))?;
        if !(2..=4096).contains(&hosts) {
            return Err(bad(format!("hosts={hosts}: allowed 2 to 4096")));
        }
        if bucket == 0 || bucket > u64::from(u32::MAX) {
            return Err(bad(format!("bucket={bucket}: allowed 1 B to 4 GB")));
        }
        if !(1..=10_000).contains(&buckets) {
            return Err(bad(format!("buckets={buckets}: allowed 1 to 10000")));
        }
        if !(1..=100_000).contains(&steps) {
            return Err(bad(format!("steps={steps}: allowed 1 to 100000")));
        }
        Ok(Self {
            algorithm,
            hosts: hosts as usize,
            bucket_bytes: bucket as u32,
            buckets: buckets as u32,
            compute_ps,
            steps: steps as u32,
        })
    }

    /// A short name for reports.
    pub fn name(&self) -> String {
        let algo = match self.algorithm {
            Algorithm::Ring => "allreduce-ring",
            Algorithm::Tree => "allreduce-tree",
            Algorithm::AllToAll => "alltoall",
        };
        format!(
            "{algo}:hosts={},bucket={},buckets={},compute={}us",
            self.hosts,
            self.bucket_bytes,
            self.buckets,
            self.compute_ps / US
        )
    }

    /// The largest message any collective step sends, bytes.
    pub fn largest_message(&self) -> u32 {
        match self.algorithm {
            Algorithm::Tree => self.bucket_bytes,
            Algorithm::Ring | Algorithm::AllToAll => self.chunk(),
        }
    }

    fn chunk(&self) -> u32 {
        self.bucket_bytes.div_ceil(self.hosts as u32).max(1)
    }
}

/// `25MB`, `64KB`, `1000`, `1.5MB` (decimal units: KB = 1,000 bytes), bytes.
fn parse_bytes(v: &str) -> Option<u64> {
    let v = v.trim();
    let (num, unit) = split_unit(v);
    let scale = match unit {
        "" | "b" => 1.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        _ => return None,
    };
    let n: f64 = num.parse().ok()?;
    (n.is_finite() && n >= 0.0).then(|| (n * scale).round() as u64)
}

/// `2ms`, `500us`, `100ns`, `0`, ps.
fn parse_time(v: &str) -> Option<Ps> {
    let (num, unit) = split_unit(v.trim());
    let scale = match unit {
        "" if num == "0" => 0.0,
        "s" => 1e12,
        "ms" => MS as f64,
        "us" => US as f64,
        "ns" => 1e3,
        _ => return None,
    };
    let n: f64 = num.parse().ok()?;
    (n.is_finite() && n >= 0.0 && n * scale < 3.6e15).then(|| (n * scale).round() as Ps)
}

fn split_unit(v: &str) -> (&str, &str) {
    let at = v
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(v.len());
    (&v[..at], &v[at..])
}

/// A message the collective wants sent: `bytes` from `src` to `dst`, tagged so that its
/// delivery can be reported back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Send {
    /// Sending host.
    pub src: usize,
    /// Receiving host.
    pub dst: usize,
    /// Message bytes.
    pub bytes: u32,
    /// Identifies the message to [`Collective::delivered`].
    pub tag: u64,
}

/// What a message of the current step is, by its tag.
#[derive(Debug, Clone, Copy)]
struct Sent {
    bucket: u32,
    /// Ring: the phase; tree: 0 going up, 1 coming down; all-to-all: 0.
    phase: u32,
    dst: usize,
    /// Delivered already (a second delivery is a duplicate).
    arrived: bool,
}

/// One bucket's progress.
#[derive(Debug, Clone, Default)]
struct Bucket {
    /// Tree: per host, children heard from going up.
    counts: Vec<u32>,
    /// Messages delivered of the bucket.
    delivered: u64,
    done: bool,
}

/// The training job, running.
#[derive(Debug, Clone)]
pub struct Collective {
    spec: CollectiveSpec,
    step: u32,
    step_start: Ps,
    /// Buckets made ready so far in this step.
    released: u32,
    buckets: Vec<Bucket>,
    sent: Vec<Sent>,
    /// Messages to send now.
    out: Vec<Send>,
    step_times: Vec<Ps>,
    finished: bool,
}

/// What a training job measured.
#[derive(Debug, Clone, PartialEq)]
pub struct CollectiveReport {
    /// The job.
    pub name: String,
    /// Steps completed.
    pub steps: u32,
    /// Each step's time, ps.
    pub step_times_ps: Vec<Ps>,
    /// Median step time, ps.
    pub p50_ps: Ps,
    /// 99th-percentile step time (nearest rank), ps.
    pub p99_ps: Ps,
    /// Compute time per step, ps.
    pub compute_ps: Ps,
    /// The share of the steps' time spent with the compute over and the collectives not:
    /// waiting on the network.
    pub network_share: f64,
}

impl Collective {
    /// A job that starts its first step at time 0.
    pub fn new(spec: CollectiveSpec) -> Self {
        let mut c = Self {
            spec,
            step: 0,
            step_start: 0,
            released: 0,
            buckets: Vec::new(),
            sent: Vec::new(),
            out: Vec::new(),
            step_times: Vec::new(),
            finished: false,
        };
        c.start_step(0);
        c
    }

    /// Its specification.
    pub fn spec(&self) -> &CollectiveSpec {
        &self.spec
    }

    /// Whether every step is complete.
    pub fn is_done(&self) -> bool {
        self.finished
    }

    /// When the next bucket becomes ready (`None`: no bucket is waiting for its time).
    pub fn next_time(&self) -> Option<Ps> {
        (!self.finished && self.released < self.spec.buckets).then(|| self.ready_at(self.released))
    }

    fn ready_at(&self, bucket: u32) -> Ps {
        let s = &self.spec;
        // In u128: compute (up to an hour in ps) times buckets (up to 10,000) overflows u64.
        let at = u128::from(s.compute_ps) * u128::from(bucket + 1) / u128::from(s.buckets);
        self.step_start + at as Ps
    }

    /// Advances to `now`: releases the buckets whose time has come and returns every message
    /// to send now (also those that deliveries made sendable).
    pub fn poll(&mut self, now: Ps) -> Vec<Send> {
        while !self.finished && self.released < self.spec.buckets {
            let b = self.released;
            if self.ready_at(b) > now {
                break;
            }
            self.released += 1;
            self.release(b);
        }
        self.maybe_end_step(now);
        std::mem::take(&mut self.out)
    }

    fn start_step(&mut self, now: Ps) {
        self.step_start = now;
        self.released = 0;
        self.sent.clear();
        let n = self.spec.hosts;
        self.buckets = (0..self.spec.buckets)
            .map(|_| Bucket {
                counts: vec![0; n],
                ..Bucket::default()
            })
            .collect();
    }

    fn send(&mut self, src: usize, dst: usize, bytes: u32, bucket: u32, phase: u32) {
        let tag = (u64::from(self.step) << 40) | self.sent.len() as u64;
        self.sent.push(Sent {
            bucket,
            phase,
            dst,
            arrived: false,
        });
        self.out.push(Send {
            src,
            dst,
            bytes,
            tag,
        });
    }

    fn children(&self, h: usize) -> impl Iterator<Item = usize> + use<> {
        let n = self.spec.hosts;
        [2 * h + 1, 2 * h + 2].into_iter().filter(move |&c| c < n)
    }

    /// Bucket `b` is ready on every host: its first messages go.
    fn release(&mut self, b: u32) {
        let n = self.spec.hosts;
        let chunk = self.spec.chunk();
        match self.spec.algorithm {
            Algorithm::Ring => {
                for h in 0..n {
                    self.send(h, (h + 1) % n, chunk, b, 0);
                }
            }
            Algorithm::Tree => {
                // Leaves have no children: 2h + 1 >= n.
                for h in (1..n).filter(|&h| 2 * h + 1 >= n) {
                    self.send(h, (h - 1) / 2, self.spec.bucket_bytes, b, 0);
                }
            }
            Algorithm::AllToAll => {
                for src in 0..n {
                    for dst in (0..n).filter(|&d| d != src) {
                        self.send(src, dst, chunk, b, 0);
                    }
                }
            }
        }
    }

    /// The message `tag` arrived whole at its receiver at `now`. Unknown or stale tags are
    /// ignored. Call [`Self::poll`] for what it makes sendable.
    pub fn delivered(&mut self, now: Ps, tag: u64) {
        if self.finished || tag >> 40 != u64::from(self.step) {
            return;
        }
        let Some(sent) = self.sent.get_mut((tag & ((1 << 40) - 1)) as usize) else {
            return;
        };
        if sent.arrived {
            return;
        }
        sent.arrived = true;
        let Sent {
            bucket, phase, dst, ..
        } = *sent;
        let n = self.spec.hosts;
        let (bytes, whole) = (self.spec.chunk(), self.spec.bucket_bytes);
        let b = bucket as usize;
        self.buckets[b].delivered += 1;
        let total = match self.spec.algorithm {
            Algorithm::Ring => {
                // The receiver now holds this phase's chunk: it forwards the next one.
                let last = 2 * (n as u32 - 1);
                if phase + 1 < last {
                    self.send(dst, (dst + 1) % n, bytes, bucket, phase + 1);
                }
                u64::from(last) * n as u64
            }
            Algorithm::Tree => {
                if phase == 0 {
                    self.buckets[b].counts[dst] += 1;
                    if self.buckets[b].counts[dst] as usize == self.children(dst).count() {
                        if dst == 0 {
                            let kids: Vec<usize> = self.children(0).collect();
                            for c in kids {
                                self.send(0, c, whole, bucket, 1);
                            }
                        } else {
                            self.send(dst, (dst - 1) / 2, whole, bucket, 0);
                        }
                    }
                } else {
                    let kids: Vec<usize> = self.children(dst).collect();
                    for c in kids {
                        self.send(dst, c, whole, bucket, 1);
                    }
                }
                2 * (n as u64 - 1)
            }
            Algorithm::AllToAll => (n * (n - 1)) as u64,
        };
        if self.buckets[b].delivered == total {
            self.buckets[b].done = true;
        }
        self.maybe_end_step(now);
    }

    fn maybe_end_step(&mut self, now: Ps) {
        if self.finished
            || self.released < self.spec.buckets
            || !self.buckets.iter().all(|b| b.done)
        {
            return;
        }
        let end = now.max(self.step_start + self.spec.compute_ps);
        self.step_times.push(end - self.step_start);
        self.step += 1;
        if self.step == self.spec.steps {
            self.finished = true;
            return;
        }
        // The next step's buckets go at the next poll, from their times.
        self.start_step(end);
    }

    /// Steps so far.
    pub fn report(&self) -> CollectiveReport {
        let mut sorted = self.step_times.clone();
        sorted.sort_unstable();
        let rank = |p: f64| -> Ps {
            if sorted.is_empty() {
                return 0;
            }
            let i = ((p / 100.0 * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
            sorted[i - 1]
        };
        let total: Ps = self.step_times.iter().sum();
        let compute = self.spec.compute_ps * self.step_times.len() as u64;
        CollectiveReport {
            name: self.spec.name(),
            steps: self.step_times.len() as u32,
            step_times_ps: self.step_times.clone(),
            p50_ps: rank(50.0),
            p99_ps: rank(99.0),
            compute_ps: self.spec.compute_ps,
            network_share: if total == 0 {
                0.0
            } else {
                (total - compute.min(total)) as f64 / total as f64
            },
        }
    }
}

#[cfg(test)]
mod tests;
