//! Fabric parameters ([`FabricConfig`]), their validation and the fabric's error type.

use crate::time::Ps;

/// A fabric setting outside its allowed range.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FabricError {
    /// `field` holds `value`, which is outside `allowed`.
    #[error("invalid fabric setting `{field}` = {value}: allowed {allowed}")]
    InvalidSetting {
        /// Name of the offending field (e.g. `loss_rate`, `topology.racks`).
        field: &'static str,
        /// The rejected value, printed.
        value: String,
        /// The allowed range, in words.
        allowed: &'static str,
    },
}

impl FabricError {
    pub(crate) fn invalid(
        field: &'static str,
        value: impl ToString,
        allowed: &'static str,
    ) -> Self {
        Self::InvalidSetting {
            field,
            value: value.to_string(),
            allowed,
        }
    }
}

/// Link rates, delays, buffers, impairments and the random seed of a [`super::Fabric`].
///
/// `Default` is the SIGCOMM'18 simulation setup (SPEC §2.10): 10 Gb/s edge links, 40 Gb/s
/// core links, no propagation delay, 0.25 µs per switch, 0.5 µs host send and receive delays,
/// unlimited switch buffers and no impairments.
#[derive(Debug, Clone, PartialEq)]
pub struct FabricConfig {
    /// Rate of host–TOR links (both directions), bits per second.
    pub host_link_bps: u64,
    /// Rate of TOR–aggregation links (both directions), bits per second.
    pub core_link_bps: u64,
    /// Propagation delay of every link.
    pub link_delay_ps: Ps,
    /// Fixed processing delay of every switch hop, after the last bit has arrived.
    pub switch_delay_ps: Ps,
    /// Delay between the host handing a packet to its NIC and the packet joining the NIC queue
    /// (default 1 µs: the paper simulator's host turnaround 0.5 µs plus NIC think time 0.5 µs).
    pub host_tx_delay_ps: Ps,
    /// Delay between the last bit reaching the host and the packet's delivery to the host
    /// (default 0.5 µs: the paper simulator's host turnaround).
    pub host_rx_delay_ps: Ps,
    /// Capacity of each switch egress port in bytes (all priorities together); `None` is unlimited.
    pub port_buffer_bytes: Option<u64>,
    /// ECN marking threshold K of each switch egress port, in bytes: an ECN-capable packet
    /// that arrives while the port holds more than K bytes is marked Congestion Experienced
    /// (DCTCP's marking on the instantaneous queue); `None` marks nothing.
    pub ecn_mark_bytes: Option<u64>,
    /// pFabric's queues at every switch port and host NIC instead of strict priorities: the
    /// earliest packet of the flow with the lowest-rank packet goes first
    /// ([`super::FabricPacket::rank`]), and a full port (`port_buffer_bytes`, host NICs
    /// included) drops its highest-rank packet, the arriving one if that is it.
    pub pfabric: bool,
    /// Host NICs serve the eight priorities strictly, as switch ports do (PIAS's end hosts),
    /// instead of one first-in first-out queue.
    pub nic_priorities: bool,
    /// Probability that a packet is dropped on its last hop, in [0, 1).
    pub loss_rate: f64,
    /// Probability that a packet is delivered twice, in [0, 1).
    pub duplicate_rate: f64,
    /// Probability that a packet is delayed by `reorder_delay_ps` on its last hop, in [0, 1).
    pub reorder_rate: f64,
    /// Extra delay of a reordered packet.
    pub reorder_delay_ps: Ps,
    /// Seed of every random choice the fabric makes (spraying, impairments).
    pub seed: u64,
}

impl FabricConfig {
    /// Links for homa-nic's 100 Gb/s NICs (host and switch links at 100 Gb/s, the default
    /// switch delay) with no host software delays: the `rtl` engine models the NIC and PCIe
    /// itself.
    pub fn nic_100g(seed: u64) -> Self {
        Self::nic_at(100_000_000_000, seed)
    }

    /// The same with every link at `bps` (the small NIC configuration's 10 Gb/s).
    pub fn nic_at(bps: u64, seed: u64) -> Self {
        FabricConfig {
            host_link_bps: bps,
            core_link_bps: bps,
            host_tx_delay_ps: 0,
            host_rx_delay_ps: 0,
            seed,
            ..FabricConfig::default()
        }
    }
}

impl Default for FabricConfig {
    fn default() -> Self {
        Self {
            host_link_bps: 10_000_000_000,
            core_link_bps: 40_000_000_000,
            link_delay_ps: 0,
            switch_delay_ps: 250_000,
            host_tx_delay_ps: 1_000_000,
            host_rx_delay_ps: 500_000,
            port_buffer_bytes: None,
            ecn_mark_bytes: None,
            pfabric: false,
            nic_priorities: false,
            loss_rate: 0.0,
            duplicate_rate: 0.0,
            reorder_rate: 0.0,
            reorder_delay_ps: 0,
            seed: 0,
        }
    }
}

/// Largest delay accepted for any single delay field (one simulated hour), so sums never overflow.
pub const MAX_DELAY_PS: Ps = 3_600 * crate::time::SEC;

impl FabricConfig {
    /// Checks every field; the error names the first bad field, its value and the allowed range.
    pub fn validate(&self) -> Result<(), FabricError> {
        for (field, bps) in [
            ("host_link_bps", self.host_link_bps),
            ("core_link_bps", self.core_link_bps),
        ] {
            if bps == 0 {
                return Err(FabricError::invalid(field, bps, "1 ..= u64::MAX bits/s"));
            }
        }
        for (field, delay) in [
            ("link_delay_ps", self.link_delay_ps),
            ("switch_delay_ps", self.switch_delay_ps),
            ("host_tx_delay_ps", self.host_tx_delay_ps),
            ("host_rx_delay_ps", self.host_rx_delay_ps),
            ("reorder_delay_ps", self.reorder_delay_ps),
        ] {
            if delay > MAX_DELAY_PS {
                return Err(FabricError::invalid(
                    field,
                    delay,
                    "0 ..= 3_600_000_000_000_000 ps (one hour)",
                ));
            }
        }
        if self.port_buffer_bytes == Some(0) {
            return Err(FabricError::invalid(
                "port_buffer_bytes",
                0,
                "None (unlimited) or Some(1 ..= u64::MAX) bytes",
            ));
        }
        for (field, rate) in [
            ("loss_rate", self.loss_rate),
            ("duplicate_rate", self.duplicate_rate),
            ("reorder_rate", self.reorder_rate),
        ] {
            if !(0.0..1.0).contains(&rate) {
                return Err(FabricError::invalid(field, rate, "0.0 <= rate < 1.0"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn default__is_valid_and_matches_the_paper() {
        let c = FabricConfig::default();
        assert_eq!(c.validate(), Ok(()));
        assert_eq!(c.host_link_bps, 10_000_000_000);
        assert_eq!(c.core_link_bps, 40_000_000_000);
        assert_eq!(c.switch_delay_ps, 250_000);
        assert_eq!(c.port_buffer_bytes, None);
    }

    #[test]
    fn validate__names_field_value_and_range() {
        let c = FabricConfig {
            loss_rate: 1.0,
            ..FabricConfig::default()
        };
        let msg = c.validate().unwrap_err().to_string();
        assert!(msg.contains("loss_rate"), "{msg}");
        assert!(msg.contains("= 1"), "{msg}");
        assert!(msg.contains("0.0 <= rate < 1.0"), "{msg}");
    }

    #[test]
    fn validate__rejects_each_bad_field() {
        let base = FabricConfig::default();
        let cases: Vec<(&str, FabricConfig)> = vec![
            (
                "host_link_bps",
                FabricConfig {
                    host_link_bps: 0,
                    ..base.clone()
                },
            ),
            (
                "core_link_bps",
                FabricConfig {
                    core_link_bps: 0,
                    ..base.clone()
                },
            ),
            (
                "switch_delay_ps",
                FabricConfig {
                    switch_delay_ps: u64::MAX,
                    ..base.clone()
                },
            ),
            (
                "port_buffer_bytes",
                FabricConfig {
                    port_buffer_bytes: Some(0),
                    ..base.clone()
                },
            ),
            (
                "duplicate_rate",
                FabricConfig {
                    duplicate_rate: -0.1,
                    ..base.clone()
                },
            ),
            (
                "reorder_rate",
                FabricConfig {
                    reorder_rate: f64::NAN,
                    ..base.clone()
                },
            ),
        ];
        for (field, config) in cases {
            match config.validate() {
                Err(FabricError::InvalidSetting { field: f, .. }) => assert_eq!(f, field),
                other => panic!("{field}: {other:?}"),
            }
        }
    }
}
