//! Homa parameters for simulations: the SIGCOMM'18 simulator's settings (SPEC §2.10) per
//! workload, and HomaModule's defaults adapted to the simulated link.

use crate::fabric::FabricConfig;
use crate::workload::Workload;
use homa_proto::core::Config;
use homa_proto::policy::cutoffs;

/// Which parameter set a simulation starts from (a `--config` file then overrides fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preset {
    /// The SIGCOMM'18 simulator: rttBytes 10000 (9328 unscheduled), a grant window of
    /// rttBytes, per-workload overcommitment and unscheduled levels, no FIFO grants, and
    /// senders that choose by SRPT when their NIC is idle rather than queueing in it.
    Paper,
    /// HomaModule's defaults, with `link_mbps` set to the host link and cutoffs from the
    /// workload.
    HomaModule,
}

/// Largest message the simulator lets the engine carry: W5's largest message is 28,840,000
/// bytes, above HomaModule's 1,000,000 (the paper's simulator had no such limit).
pub const SIM_MAX_MESSAGE_LENGTH: u32 = 30_000_000;

/// The SIGCOMM'18 per-workload split: (overcommitment degree, unscheduled levels).
pub fn paper_split(workload: &Workload) -> (u8, u8) {
    match workload.name().as_str() {
        "w1" => (1, 7),
        "w2" => (3, 5),
        "w3" => (4, 4),
        "w4" => (7, 1),
        "w5" => (7, 1),
        // Fixed sizes and anything else: W3's middle ground.
        _ => (4, 4),
    }
}

/// The fabric (seeded with `seed`) and Homa parameters of a cluster run: with the model
/// engine, the default fabric; with Verilated NICs (`rtl`), 100 Gb/s links
/// ([`FabricConfig::nic_100g`]) and a 10 us timer tick instead of HomaModule's 1 ms, since
/// round trips take microseconds there (RESEND after 50 us of silence).
pub fn for_engine(
    preset: Preset,
    workload: &Workload,
    rtl: bool,
    seed: u64,
) -> (FabricConfig, Config) {
    let fabric = if rtl {
        FabricConfig::nic_100g(seed)
    } else {
        FabricConfig {
            seed,
            ..FabricConfig::default()
        }
    };
    let mut homa = config_for(preset, workload, fabric.host_link_bps);
    if rtl {
        homa.tick_usecs = 10;
    }
    (fabric, homa)
}

/// The configuration for `preset`, a workload and a host link of `link_bps`.
pub fn config_for(preset: Preset, workload: &Workload, link_bps: u64) -> Config {
    let base = Config {
        link_mbps: (link_bps / 1_000_000).max(1) as u32,
        max_message_length: SIM_MAX_MESSAGE_LENGTH.max(workload.max_bytes()),
        ..Config::default()
    };
    let dist = workload.probabilities();
    match preset {
        Preset::Paper => {
            let (overcommit, levels) = paper_split(workload);
            let unsched_bytes = 9_328;
            Config {
                unsched_bytes,
                window: 10_000,
                max_incoming: 100_000_000,
                max_overcommit: overcommit,
                unsched_cutoffs: cutoffs::from_distribution(
                    &dist,
                    unsched_bytes,
                    Some(levels),
                    base.max_message_length,
                ),
                grant_fifo_fraction: 0,
                pacer_fifo_fraction: 0,
                // The paper's hosts pick the next packet by SRPT when the NIC goes idle (no
                // NIC queue): pace with no backlog allowance and no bypass, at the link rate
                // (the pacer assumes 1 % below link_mbps, so state 1 % above).
                max_nic_est_backlog_usecs: 0,
                defer_min_bytes: 0,
                link_mbps: (link_bps / 1_000_000 * 100).div_ceil(99) as u32,
                ..base
            }
        }
        Preset::HomaModule => Config {
            unsched_cutoffs: cutoffs::from_distribution(
                &dist,
                base.unsched_bytes,
                None,
                base.max_message_length,
            ),
            ..base
        },
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn config_for__paper_split_per_workload() {
        for (name, oc, sched) in [
            ("w1", 1, 0),
            ("w2", 3, 2),
            ("w3", 4, 3),
            ("w4", 7, 6),
            ("w5", 7, 6),
        ] {
            let w = Workload::parse(name).unwrap();
            let c = config_for(Preset::Paper, &w, 10_000_000_000);
            c.validate().unwrap();
            assert_eq!(c.max_overcommit, oc, "{name}");
            assert_eq!(c.max_sched_prio(), sched, "{name}: {:?}", c.unsched_cutoffs);
            assert_eq!(c.link_mbps, 10_102);
        }
    }

    #[test]
    fn config_for__homamodule_is_valid_for_every_workload() {
        for name in ["w1", "w2", "w3", "w4", "w5", "fixed:1000"] {
            let w = Workload::parse(name).unwrap();
            config_for(Preset::HomaModule, &w, 25_000_000_000)
                .validate()
                .unwrap();
        }
    }
}
