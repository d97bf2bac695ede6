//! What `--workload` and `--background` ask for, for `sim` and `compare`: Poisson messages of
//! a size distribution, a training job's collectives, or both.

use anyhow::Result;
use homa_sim::collective::{CollectiveReport, CollectiveSpec};
use homa_sim::time::MS;
use homa_sim::workload::Workload;

/// The traffic of a run.
#[derive(Debug, Clone)]
pub(crate) struct Traffic {
    /// The Poisson messages' sizes; with a training job alone, its largest message (what the
    /// Homa presets derive their parameters from).
    pub workload: Workload,
    /// The training job, if any.
    pub collective: Option<CollectiveSpec>,
    /// The Poisson messages' load (0: none, only with a training job).
    pub load: f64,
}

impl Traffic {
    /// What runs, for the line a command prints before it starts.
    pub(crate) fn summary(&self, workload: &str, messages: u64) -> String {
        match (&self.collective, self.load > 0.0) {
            (None, _) => format!(
                "workload {workload}, load {}, {messages} messages",
                self.load
            ),
            (Some(_), false) => format!("workload {workload} (no RPCs beside it)"),
            (Some(_), true) => format!(
                "workload {workload} with {} RPCs at load {}, {messages} of them measured",
                self.workload.name(),
                self.load
            ),
        }
    }
}

impl Traffic {
    /// `--workload` (a size distribution or a collective), `--background` (the sizes of
    /// RPCs beside a collective, at `--load`) and `--load`.
    pub(crate) fn parse(workload: &str, background: Option<&str>, load: f64) -> Result<Self> {
        if !CollectiveSpec::is_collective(workload) {
            if background.is_some() {
                anyhow::bail!(
                    "--background applies to a training job (--workload allreduce:... or \
                     alltoall:...); with --workload {workload} every message is already \
                     Poisson traffic"
                );
            }
            return Ok(Self {
                workload: Workload::parse(workload)?,
                collective: None,
                load,
            });
        }
        let spec = CollectiveSpec::parse(workload)?;
        Ok(match background {
            Some(b) => Self {
                workload: Workload::parse(b)?,
                collective: Some(spec),
                load,
            },
            None => Self {
                workload: Workload::Fixed(spec.largest_message()),
                collective: Some(spec),
                load: 0.0,
            },
        })
    }
}

/// Milliseconds of `ps`, for printing.
pub(crate) fn ms(ps: u64) -> f64 {
    ps as f64 / MS as f64
}

/// One line on a training job's steps.
pub(crate) fn describe(c: &CollectiveReport) -> String {
    format!(
        "training job {}: {} steps, step time p50 {:.3} ms, p99 {:.3} ms (compute {:.3} ms); \
         {:.1} % of the time waiting on the network",
        c.name,
        c.steps,
        ms(c.p50_ps),
        ms(c.p99_ps),
        ms(c.compute_ps),
        100.0 * c.network_share
    )
}

/// A training job's steps as JSON.
pub(crate) fn to_json(c: &CollectiveReport) -> serde_json::Value {
    serde_json::json!({
        "name": c.name,
        "steps": c.steps,
        "step_ms": c.step_times_ps.iter().map(|&t| ms(t)).collect::<Vec<_>>(),
        "p50_step_ms": ms(c.p50_ps),
        "p99_step_ms": ms(c.p99_ps),
        "compute_ms": ms(c.compute_ps),
        "network_share": c.network_share,
    })
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn parse__sizes_a_job_alone_a_job_with_rpcs_and_a_misplaced_background() {
        let t = Traffic::parse("w3", None, 0.5).unwrap();
        assert!(t.collective.is_none());
        assert_eq!(t.load, 0.5);
        let job = "allreduce:hosts=4,bucket=4MB,buckets=2,compute=1ms";
        let t = Traffic::parse(job, None, 0.5).unwrap();
        assert_eq!(t.load, 0.0, "no RPCs without --background");
        assert_eq!(t.workload, Workload::Fixed(1_000_000));
        let t = Traffic::parse(job, Some("w1"), 0.3).unwrap();
        assert_eq!((t.workload.name().as_str(), t.load), ("w1", 0.3));
        let e = Traffic::parse("w3", Some("w1"), 0.3)
            .unwrap_err()
            .to_string();
        assert!(e.contains("--background applies"), "{e}");
        assert!(Traffic::parse("allreduce:hosts=4", None, 0.5).is_err());
    }
}
