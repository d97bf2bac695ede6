//! The stress matrix: the cluster under load, loss, duplication, reordering and incast, in
//! both engines, every run checked against what Homa promises ([`check`]).
//!
//! A [`Case`] is one run: an engine, a workload, an offered load, the fabric's impairments
//! and a traffic pattern. [`matrix`] lists the cases of the whole matrix (W1-W5 x load
//! {0.3, 0.5, 0.8, 0.95} x loss {0, 1e-3, 1e-2, 5e-2}, then duplication with reordering per
//! workload, then incast: 64-to-1 in the model, 16-to-1 in RTL) or of its quick subset.
//! [`Case::run`] builds the cluster as `homa-nic sim` does and returns the [`Outcome`]: the
//! report and the checks it failed.

mod check;

pub use check::{Limits, check};

use crate::cluster::{Cluster, ClusterConfig, ClusterError, Engine, Pattern, Report, Watchdog};
use crate::fabric::{FabricConfig, Topology};
use crate::nic::NicTiming;
use crate::preset::{Preset, for_engine};
use crate::time::{MS, US};
use crate::workload::Workload;
use std::fmt;

/// Which engine a case runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StressEngine {
    /// `proto::core` engines alone on the fabric (16 hosts, 10 Gb/s links).
    Model,
    /// The engines over a Verilated homa-nic each (4 hosts, 100 Gb/s links).
    Rtl,
}

impl StressEngine {
    /// `model` or `rtl`.
    pub fn name(self) -> &'static str {
        match self {
            StressEngine::Model => "model",
            StressEngine::Rtl => "rtl",
        }
    }
}

/// Where a case's messages go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Traffic {
    /// Poisson arrivals at every host, to uniformly chosen others.
    Uniform,
    /// `senders` hosts send to one, all starting at the same instant, then at
    /// `load / senders` each, so the receiver's link is offered `load`.
    Incast {
        /// How many hosts send.
        senders: usize,
    },
}

/// One run of the matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// The engine.
    pub engine: StressEngine,
    /// The workload (`w1`..`w5`, `fixed:N`).
    pub workload: String,
    /// Offered load per host link (the receiver's, for incast).
    pub load: f64,
    /// Packets dropped on their last hop.
    pub loss: f64,
    /// Packets delivered twice.
    pub duplicate: f64,
    /// Packets delayed on their last hop by [`Case::reorder_delay_ps`].
    pub reorder: f64,
    /// The traffic pattern.
    pub traffic: Traffic,
    /// Messages measured (a tenth more warm up).
    pub messages: u64,
    /// Seed of the workload and the fabric.
    pub seed: u64,
    /// The Homa parameters: HomaModule's defaults unless asked otherwise (with their FIFO
    /// grants, Homa's guard against starving a long message; the RTL engine's hardware
    /// grants by SRPT alone).
    pub preset: Preset,
}

impl fmt::Display for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} load {} loss {}",
            self.engine.name(),
            self.workload,
            self.load,
            self.loss
        )?;
        if self.duplicate > 0.0 || self.reorder > 0.0 {
            write!(f, " dup {} reorder {}", self.duplicate, self.reorder)?;
        }
        if let Traffic::Incast { senders } = self.traffic {
            write!(f, " incast {senders}-to-1")?;
        }
        let preset = match self.preset {
            Preset::Paper => "paper",
            Preset::HomaModule => "homamodule",
        };
        write!(
            f,
            " ({} messages, seed {}, {preset} preset)",
            self.messages, self.seed
        )
    }
}

/// The whole matrix, or the subset CI runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Every case, with message counts that take minutes per engine.
    Full,
    /// A few cases of each kind, with small message counts (seconds per engine).
    Quick,
}

/// The loads of the matrix.
pub const LOADS: [f64; 4] = [0.3, 0.5, 0.8, 0.95];
/// The loss rates of the matrix.
pub const LOSSES: [f64; 4] = [0.0, 1e-3, 1e-2, 5e-2];
/// The workloads of the matrix.
pub const WORKLOADS: [&str; 5] = ["w1", "w2", "w3", "w4", "w5"];

/// Messages measured per case: as many as fit in seconds of wall time for the engine
/// (the RTL engine clocks a Verilated core per host; W4 and W5 carry megabytes each).
fn messages(engine: StressEngine, workload: &str, scope: Scope) -> u64 {
    let full = match (engine, workload) {
        (StressEngine::Model, "w1" | "w2") => 4_000,
        (StressEngine::Model, "w3") => 2_000,
        (StressEngine::Model, _) => 1_000,
        (StressEngine::Rtl, "w1" | "w2") => 300,
        (StressEngine::Rtl, "w3") => 150,
        (StressEngine::Rtl, _) => 60,
    };
    match scope {
        Scope::Full => full,
        Scope::Quick => (full / 10).max(20),
    }
}

/// The cases of `scope` for `engine` with the Homa parameters of `preset`, in the order they
/// run.
pub fn matrix(engine: StressEngine, scope: Scope, preset: Preset) -> Vec<Case> {
    let seed = 1;
    let base = |workload: &str, load, loss| Case {
        engine,
        workload: workload.to_string(),
        load,
        loss,
        duplicate: 0.0,
        reorder: 0.0,
        traffic: Traffic::Uniform,
        messages: messages(engine, workload, scope),
        seed,
        preset,
    };
    let mut cases = Vec::new();
    match scope {
        Scope::Full => {
            for w in WORKLOADS {
                for load in LOADS {
                    for loss in LOSSES {
                        cases.push(base(w, load, loss));
                    }
                }
            }
        }
        Scope::Quick => {
            // Each workload once at high load without loss, the short-message workloads
            // with heavy loss too.
            for w in WORKLOADS {
                cases.push(base(w, 0.8, 0.0));
            }
            cases.push(base("w1", 0.5, 5e-2));
            cases.push(base("w3", 0.5, 1e-2));
        }
    }
    // Duplication and reordering, with some loss, at half load.
    let impaired: &[&str] = match scope {
        Scope::Full => &WORKLOADS,
        Scope::Quick => &["w2"],
    };
    for w in impaired {
        cases.push(Case {
            duplicate: 1e-2,
            reorder: 1e-2,
            ..base(w, 0.5, 1e-3)
        });
    }
    let senders = match engine {
        StressEngine::Model => 64,
        StressEngine::Rtl => 16,
    };
    cases.push(Case {
        traffic: Traffic::Incast { senders },
        messages: match scope {
            Scope::Full => 4 * senders as u64,
            Scope::Quick => senders as u64,
        },
        ..base("w4", 0.8, 0.0)
    });
    cases
}

/// What one case gave.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The case.
    pub case: Case,
    /// Its run's report.
    pub report: Report,
    /// The checks it failed, each a sentence (empty: the case passed).
    pub failures: Vec<String>,
}

impl Case {
    /// The cluster configuration of the case: `homa-nic sim`'s for its engine (the preset's
    /// parameters for the workload; with RTL, 100 Gb/s links, a 10 us timer tick and
    /// messages capped at Homa's 1 MB), its impairments and pattern, and `watchdog`.
    pub fn config(&self, watchdog: Watchdog) -> Result<ClusterConfig, ClusterError> {
        let rtl = self.engine == StressEngine::Rtl;
        let mut workload = Workload::parse(&self.workload)?;
        if rtl {
            workload = workload.capped(homa_proto::wire::MAX_MESSAGE_LENGTH).0;
        }
        let (base, homa) = for_engine(self.preset, &workload, rtl, self.seed);
        // A reordered packet comes a few packet times late (a 1538-byte frame takes 1.2 us
        // at 10 Gb/s, 0.12 us at 100 Gb/s).
        let reorder_delay_ps = if rtl { 2 * US } else { 10 * US };
        let fabric = FabricConfig {
            loss_rate: self.loss,
            duplicate_rate: self.duplicate,
            reorder_rate: self.reorder,
            reorder_delay_ps,
            ..base
        };
        let (hosts, pattern, load) = match self.traffic {
            Traffic::Uniform => (if rtl { 4 } else { 16 }, Pattern::Uniform, self.load),
            Traffic::Incast { senders } => (
                senders + 1,
                Pattern::Incast { target: 0 },
                self.load / senders as f64,
            ),
        };
        Ok(ClusterConfig {
            topology: Topology::SingleSwitch { hosts },
            fabric,
            homa,
            workload,
            load,
            messages: self.messages,
            seed: self.seed,
            time_limit_ps: 60_000 * MS,
            pattern,
            engine: if rtl {
                Engine::Rtl(NicTiming::default())
            } else {
                Engine::Model
            },
            watchdog,
            collective: None,
        })
    }

    /// Runs the case and checks it against `limits`; `progress` sees the run going.
    pub fn run(
        &self,
        limits: &Limits,
        progress: &mut dyn FnMut(&crate::cluster::Progress),
    ) -> Result<Outcome, ClusterError> {
        let config = self.config(limits.watchdog)?;
        let unsched = u64::from(config.homa.unsched_bytes);
        let incoming = u64::from(config.homa.max_incoming);
        let hosts = config.topology.num_hosts() as u64;
        let cluster = Cluster::new(config)?;
        let report = cluster.run(progress);
        let failures = check(&report, limits, hosts, unsched, incoming);
        Ok(Outcome {
            case: self.clone(),
            report,
            failures,
        })
    }
}

#[cfg(test)]
mod tests;
