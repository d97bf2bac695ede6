//! Every parameter of the protocol engine, with HomaModule's names and defaults
//! (SPEC §2.9), loadable from TOML and validated field by field.

use crate::policy;
use crate::wire::{MAX_MESSAGE_LENGTH, NUM_PRIORITIES};
use serde::{Deserialize, Serialize};

/// A rejected configuration: which field, what it held, and what it may hold.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// A value outside its allowed range.
    #[error("invalid value {value} for `{field}`: allowed {allowed}")]
    Invalid {
        /// The field's name, as in the TOML file.
        field: &'static str,
        /// The value given.
        value: String,
        /// What is allowed.
        allowed: String,
    },
    /// The TOML text did not parse or named an unknown field.
    #[error("failed to parse Homa configuration: {0}")]
    Parse(String),
}

/// The engine's parameters. Field names are HomaModule's sysctl names (`/proc/sys/net/homa/*`)
/// where one exists. The defaults are HomaModule's (current main).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Link MTU in bytes; a DATA packet carries `mtu - IP header - 56` payload bytes.
    pub mtu: u32,
    /// Unscheduled bytes per message (`unsched_bytes`, once `rtt_bytes`, which is accepted as
    /// an alias): sent without grants.
    #[serde(alias = "rtt_bytes")]
    pub unsched_bytes: u32,
    /// Per-message grant window in bytes; 0 = dynamic, `max_incoming / (active + 1)`.
    pub window: u32,
    /// Limit on granted-but-not-received bytes across all inbound messages.
    pub max_incoming: u32,
    /// Overcommitment degree: how many inbound messages are granted at once (1-8).
    pub max_overcommit: u8,
    /// Network priority levels in use (1-8).
    pub num_priorities: u8,
    /// `unsched_cutoffs[i]` = largest message length that uses level `i` for unscheduled
    /// packets sent to this host; non-increasing.
    pub unsched_cutoffs: [u32; NUM_PRIORITIES],
    /// Version of `unsched_cutoffs`, echoed by senders in DATA (1-65535).
    pub cutoff_version: u16,
    /// Share of link bandwidth (per mille, 0-500) granted to the oldest message (anti-starvation).
    pub grant_fifo_fraction: u32,
    /// Bytes granted to the oldest message at each FIFO grant.
    pub fifo_grant_increment: u32,
    /// Uplink speed in Mb/s, for pacing and FIFO grants.
    pub link_mbps: u32,
    /// Pacer: hold data while the estimated NIC backlog exceeds this many microseconds.
    pub max_nic_est_backlog_usecs: u32,
    /// Pacer: messages with at most this many bytes left are never held back.
    pub defer_min_bytes: u32,
    /// Share of the sender's picks among competing messages (per mille, 0-500) that go to the
    /// oldest message instead of the shortest (anti-starvation).
    pub pacer_fifo_fraction: u32,
    /// Length of a timer tick in microseconds (HomaModule: 1 ms).
    pub tick_usecs: u32,
    /// Ticks of silence before the receiver of a message asks for a RESEND.
    pub resend_ticks: u32,
    /// Ticks between further RESENDs.
    pub resend_interval: u32,
    /// Ticks of silence after which an RPC is aborted with a timeout.
    pub timeout_ticks: u32,
    /// Ticks a server waits after sending a whole response before asking for an ACK.
    pub request_ack_ticks: u32,
    /// Longest message accepted. HomaModule's limit is 1,000,000; the simulator may raise it
    /// (up to 2^31 - 1) to run the paper's workloads W3-W5 unchanged.
    pub max_message_length: u32,
    /// Log level of the engine: error, warn, info, debug or trace.
    pub log_level: String,
    /// Grants are decided by the NIC (homa-nic's grant generator), not by this engine. The
    /// engine learns each GRANT the NIC sends through [`super::Endpoint::note_offloaded_grant`]
    /// (for RESENDs, and so that a message whose granted bytes are in waits quietly), and
    /// grants in software only the messages the NIC says it does not track
    /// ([`super::Endpoint::nic_not_granting`]: their table entry holds another message) and
    /// those it has not granted for `timeout_ticks` with every granted byte in. The NIC makes
    /// the FIFO grants too (`grant_fifo_fraction`); the engine makes none.
    pub grant_offload: bool,
    /// DATA is sent by the NIC (homa-nic's transmit engine), not by this engine: each
    /// outbound message, and each range asked for again, is handed out through
    /// [`super::Endpoint::poll_offload`] for the host to post as a TX descriptor; the engine
    /// emits control packets only. See `core::offload`.
    pub tx_offload: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            mtu: 1500,
            unsched_bytes: 40_000,
            window: 0,
            max_incoming: 400_000,
            max_overcommit: 8,
            num_priorities: 8,
            unsched_cutoffs: [
                MAX_MESSAGE_LENGTH,
                MAX_MESSAGE_LENGTH,
                MAX_MESSAGE_LENGTH,
                MAX_MESSAGE_LENGTH,
                MAX_MESSAGE_LENGTH,
                15_000,
                2_800,
                200,
            ],
            cutoff_version: 1,
            grant_fifo_fraction: 50,
            fifo_grant_increment: 50_000,
            link_mbps: 25_000,
            max_nic_est_backlog_usecs: 5,
            defer_min_bytes: 1_000,
            pacer_fifo_fraction: crate::policy::DEFAULT_PACER_FIFO_FRACTION,
            tick_usecs: 1_000,
            resend_ticks: 5,
            resend_interval: 5,
            timeout_ticks: 100,
            request_ack_ticks: 2,
            max_message_length: MAX_MESSAGE_LENGTH,
            log_level: "warn".into(),
            grant_offload: false,
            tx_offload: false,
        }
    }
}

pub(super) fn invalid(
    field: &'static str,
    value: impl ToString,
    allowed: impl ToString,
) -> ConfigError {
    ConfigError::Invalid {
        field,
        value: value.to_string(),
        allowed: allowed.to_string(),
    }
}

fn range<T: PartialOrd + ToString + Copy>(
    field: &'static str,
    value: T,
    lo: T,
    hi: T,
) -> Result<(), ConfigError> {
    if value < lo || value > hi {
        return Err(invalid(
            field,
            value,
            format!("{}..={}", lo.to_string(), hi.to_string()),
        ));
    }
    Ok(())
}

/// Smallest MTU that leaves payload room in a DATA packet over IPv6.
const MIN_MTU: u32 = 40 + 56 + 8;

impl Config {
    /// Parses and validates a TOML document; absent fields keep their defaults.
    pub fn from_toml_str(text: &str) -> Result<Self, ConfigError> {
        let config: Config = toml::from_str(text).map_err(|e| ConfigError::Parse(e.to_string()))?;
        config.validate()?;
        Ok(config)
    }

    /// This configuration with the fields a TOML document sets replaced, then validated (how a
    /// `--config` file applies over a preset).
    pub fn with_overrides(&self, text: &str) -> Result<Self, ConfigError> {
        let parse = |e: toml::de::Error| ConfigError::Parse(e.to_string());
        let overrides: toml::Table = toml::from_str(text).map_err(parse)?;
        let mut merged: toml::Table =
            toml::Table::try_from(self).map_err(|e| ConfigError::Parse(e.to_string()))?;
        for (k, v) in overrides {
            merged.insert(k, v);
        }
        let config: Config = merged.try_into().map_err(parse)?;
        config.validate()?;
        Ok(config)
    }

    /// [`with_overrides`](Self::with_overrides) for a `homa.conf` as articles about Homa
    /// publish it: their keys that are not Homa's (`log_level` as a number,
    /// `nack_timeout_us`) are translated, each with a note to show the user, and those with
    /// no single meaning (`max_credits`) refused with the parameters to set instead.
    pub fn with_overrides_noted(&self, text: &str) -> Result<(Self, Vec<String>), ConfigError> {
        let mut table: toml::Table =
            toml::from_str(text).map_err(|e: toml::de::Error| ConfigError::Parse(e.to_string()))?;
        let notes = super::conf_keys::translate(&mut table, self)?;
        let text = toml::to_string(&table).map_err(|e| ConfigError::Parse(e.to_string()))?;
        Ok((self.with_overrides(&text)?, notes))
    }

    /// The TOML text of this configuration.
    pub fn to_toml_string(&self) -> String {
        toml::to_string(self).unwrap_or_else(|e| format!("# failed to serialise: {e}\n"))
    }

    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), ConfigError> {
        range("mtu", self.mtu, MIN_MTU, 65_535)?;
        range(
            "max_message_length",
            self.max_message_length,
            1,
            i32::MAX as u32,
        )?;
        range(
            "unsched_bytes",
            self.unsched_bytes,
            1,
            self.max_message_length,
        )?;
        range("window", self.window, 0, self.max_message_length)?;
        range("max_incoming", self.max_incoming, 1, u32::MAX / 2)?;
        range("max_overcommit", self.max_overcommit, 1, 8)?;
        range(
            "num_priorities",
            self.num_priorities,
            1,
            NUM_PRIORITIES as u8,
        )?;
        if !self.unsched_cutoffs.windows(2).all(|w| w[0] >= w[1]) {
            return Err(invalid(
                "unsched_cutoffs",
                format!("{:?}", self.unsched_cutoffs),
                "a non-increasing list of 8 lengths",
            ));
        }
        if self.unsched_cutoffs[0] < self.max_message_length {
            return Err(invalid(
                "unsched_cutoffs",
                format!("{:?}", self.unsched_cutoffs),
                format!(
                    "entry 0 at least max_message_length ({})",
                    self.max_message_length
                ),
            ));
        }
        range("cutoff_version", self.cutoff_version, 1, u16::MAX)?;
        range("grant_fifo_fraction", self.grant_fifo_fraction, 0, 500)?;
        range(
            "fifo_grant_increment",
            self.fifo_grant_increment,
            1,
            self.max_message_length,
        )?;
        range("pacer_fifo_fraction", self.pacer_fifo_fraction, 0, 500)?;
        range("link_mbps", self.link_mbps, 1, 10_000_000)?;
        range(
            "max_nic_est_backlog_usecs",
            self.max_nic_est_backlog_usecs,
            0,
            1_000_000,
        )?;
        range(
            "defer_min_bytes",
            self.defer_min_bytes,
            0,
            self.max_message_length,
        )?;
        range("tick_usecs", self.tick_usecs, 1, 10_000_000)?;
        range("resend_ticks", self.resend_ticks, 1, 1_000_000)?;
        range("resend_interval", self.resend_interval, 1, 1_000_000)?;
        range(
            "timeout_ticks",
            self.timeout_ticks,
            self.resend_ticks + 1,
            10_000_000,
        )?;
        range("request_ack_ticks", self.request_ack_ticks, 1, 1_000_000)?;
        if !["error", "warn", "info", "debug", "trace"].contains(&self.log_level.as_str()) {
            return Err(invalid(
                "log_level",
                &self.log_level,
                "one of error, warn, info, debug, trace",
            ));
        }
        Ok(())
    }

    /// Payload bytes in one DATA packet for a given IP header length (20 or 40).
    pub fn max_payload(&self, ip_header_len: u32) -> u32 {
        self.mtu - ip_header_len - crate::wire::field::homa::DATA_HEADER_LEN as u32
    }

    /// The highest scheduled priority level, derived from the cutoffs and the number of
    /// levels in use.
    pub fn max_sched_prio(&self) -> u8 {
        policy::max_sched_priority(&self.unsched_cutoffs, self.max_message_length)
            .min(self.num_priorities - 1)
    }

    /// The highest level in use: control packets and RESENDs go out at it.
    pub fn control_priority(&self) -> u8 {
        self.num_priorities - 1
    }

    /// The level of unscheduled packets to a peer whose cutoffs are not known yet.
    pub fn default_unsched_priority(&self) -> u8 {
        self.num_priorities.saturating_sub(2)
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn default__is_valid_and_homamodule_like() {
        let c = Config::default();
        c.validate().unwrap();
        assert_eq!(c.max_sched_prio(), 3);
        assert_eq!(c.max_payload(20), 1424);
        assert_eq!(c.control_priority(), 7);
    }

    #[test]
    fn from_toml_str__partial_file_keeps_defaults() {
        let c = Config::from_toml_str("unsched_bytes = 10000\nmax_overcommit = 4\n").unwrap();
        assert_eq!(c.unsched_bytes, 10_000);
        assert_eq!(c.max_overcommit, 4);
        assert_eq!(c.max_incoming, 400_000);
        let again = Config::from_toml_str(&c.to_toml_string()).unwrap();
        assert_eq!(again, c);
    }

    #[test]
    fn with_overrides__replaces_only_given_fields() {
        let base = Config {
            unsched_bytes: 9_328,
            ..Config::default()
        };
        let c = base.with_overrides("max_overcommit = 2").unwrap();
        assert_eq!((c.unsched_bytes, c.max_overcommit), (9_328, 2));
        assert!(base.with_overrides("max_overcommit = 0").is_err());
        assert!(base.with_overrides("bogus = 1").is_err());
    }

    #[test]
    fn from_toml_str__names_bad_field_value_and_range() {
        let e = Config::from_toml_str("max_overcommit = 9").unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid value 9 for `max_overcommit`: allowed 1..=8"
        );
        let e = Config::from_toml_str("grant_window = 5").unwrap_err();
        assert!(
            e.to_string().contains("unknown field `grant_window`"),
            "{e}"
        );
        let c = Config::from_toml_str("rtt_bytes = 9328").unwrap();
        assert_eq!(c.unsched_bytes, 9328);
        let e =
            Config::from_toml_str("unsched_cutoffs = [1000000, 2, 3, 0, 0, 0, 0, 0]").unwrap_err();
        assert!(e.to_string().contains("non-increasing"), "{e}");
        let e = Config::from_toml_str("log_level = \"loud\"").unwrap_err();
        assert!(e.to_string().contains("log_level"), "{e}");
        let e = Config::from_toml_str("mtu = \"big\"").unwrap_err();
        assert!(e.to_string().contains("mtu"), "{e}");
    }
}
