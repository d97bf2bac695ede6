//! The run's watchdog: a run that stops making progress is stopped, and says why.
//!
//! Three limits, checked as the run steps: simulated time with no message completed while
//! events still happen, or a message in flight for longer (a message starved while others
//! complete: both [`Watchdog::stall_ps`]), and wall-clock time ([`Watchdog::wall`]). The simulated time limit of [`super::ClusterConfig`] is a third way
//! a run ends early. Each stop names the messages still in flight, oldest first, with the
//! state their client's engine holds them in and the last packets of each that reached a
//! host, so a livelock shows its cause.

use super::Cluster;
use crate::fabric::HostId;
use crate::time::{MS, Ps};
use homa_proto::core::RpcState;
use homa_proto::wire::PacketType;
use std::fmt;
use std::time::Duration;

/// When a run gives up (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Watchdog {
    /// Simulated time without a completed message, or for which one message stays in
    /// flight, after which the run stops.
    pub stall_ps: Ps,
    /// Wall-clock time after which the run stops (`None`: no limit).
    pub wall: Option<Duration>,
}

impl Default for Watchdog {
    /// 100 ms of simulated time without a completion (longer than any RPC timeout of the
    /// presets), no wall-clock limit.
    fn default() -> Self {
        Watchdog {
            stall_ps: 100 * MS,
            wall: None,
        }
    }
}

/// Why a run ended before every measured message completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// No message completed for this long (simulated) while the run went on.
    Stalled {
        /// The span, ps.
        span_ps: Ps,
    },
    /// A message has been in flight this long (simulated) while others completed.
    Starved {
        /// Its age, ps.
        age_ps: Ps,
    },
    /// The wall-clock budget ran out.
    WallBudget {
        /// The budget.
        budget: Duration,
    },
    /// The simulated time limit was reached.
    TimeLimit {
        /// The limit, ps.
        limit_ps: Ps,
    },
    /// Nothing was left to happen (no event pending), yet messages were outstanding.
    NothingPending,
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopReason::Stalled { span_ps } => write!(
                f,
                "no message completed for {:.3} ms of simulated time",
                *span_ps as f64 / MS as f64
            ),
            StopReason::Starved { age_ps } => write!(
                f,
                "a message has been in flight for {:.3} ms of simulated time",
                *age_ps as f64 / MS as f64
            ),
            StopReason::WallBudget { budget } => {
                write!(f, "the wall-clock budget of {budget:?} ran out")
            }
            StopReason::TimeLimit { limit_ps } => write!(
                f,
                "the simulated time limit of {:.3} ms was reached",
                *limit_ps as f64 / MS as f64
            ),
            StopReason::NothingPending => {
                write!(f, "nothing was left to happen, with messages outstanding")
            }
        }
    }
}

/// A packet of a tracked message's RPC that reached a host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeenPacket {
    /// When it arrived, ps.
    pub at_ps: Ps,
    /// Its type.
    pub kind: PacketType,
    /// Sent by the client (towards the server).
    pub from_client: bool,
}

impl fmt::Display for SeenPacket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dir = if self.from_client { "->" } else { "<-" };
        write!(
            f,
            "{:.3} us {dir} {}",
            self.at_ps as f64 / 1e6,
            self.kind.name()
        )
    }
}

/// How many packets of each message the watchdog remembers.
pub(crate) const SEEN: usize = 4;

/// A message still in flight when a run stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StuckRpc {
    /// Client host.
    pub src: HostId,
    /// Server host.
    pub dst: HostId,
    /// The client's RPC id.
    pub client_id: u64,
    /// Message bytes.
    pub size: u32,
    /// Since when, ps.
    pub started_ps: Ps,
    /// The client engine's state of the RPC (`None`: it no longer has it).
    pub client_state: Option<RpcState>,
    /// The last packets of the RPC that reached a host, oldest first.
    pub last_packets: Vec<SeenPacket>,
}

impl fmt::Display for StuckRpc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match self.client_state {
            Some(s) => format!("{s:?}"),
            None => "gone".into(),
        };
        write!(
            f,
            "host {} -> host {} rpc {}: {} B since {:.3} us, client state {state}; last packets: ",
            self.src,
            self.dst,
            self.client_id,
            self.size,
            self.started_ps as f64 / 1e6
        )?;
        if self.last_packets.is_empty() {
            return f.write_str("none arrived");
        }
        for (i, p) in self.last_packets.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

/// Why and where a run stopped early.
#[derive(Debug, Clone, PartialEq)]
pub struct Stopped {
    /// Why.
    pub reason: StopReason,
    /// Simulated time of the stop, ps.
    pub at_ps: Ps,
    /// Messages in flight then.
    pub in_flight: usize,
    /// The oldest of them (at most [`STUCK_LISTED`]).
    pub stuck: Vec<StuckRpc>,
}

/// How many stuck messages a stop lists.
pub const STUCK_LISTED: usize = 5;

impl fmt::Display for Stopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the run stopped at {:.3} ms of simulated time: {}; {} messages in flight",
            self.at_ps as f64 / MS as f64,
            self.reason,
            self.in_flight
        )?;
        if !self.stuck.is_empty() {
            write!(f, ", the oldest:")?;
            for s in &self.stuck {
                write!(f, "\n  {s}")?;
            }
        }
        Ok(())
    }
}

impl Cluster {
    /// Remembers a packet of a tracked message's RPC that reached host `at_host` from
    /// `from`: its header names the RPC (a client's even id, or the server's odd one).
    pub(super) fn note_packet(
        &mut self,
        at_host: HostId,
        from: HostId,
        sender_id: u64,
        kind: PacketType,
    ) {
        let from_client = sender_id & 1 == 0;
        let key = if from_client {
            (at_host, from, sender_id)
        } else {
            (from, at_host, sender_id ^ 1)
        };
        if let Some(t) = self.in_flight.get_mut(&key) {
            t.seen.rotate_left(1);
            t.seen[SEEN - 1] = Some(SeenPacket {
                at_ps: self.now,
                kind,
                from_client,
            });
        }
    }

    /// The stop record for `reason`, now.
    pub(super) fn stopped(&self, reason: StopReason) -> Stopped {
        let mut oldest: Vec<_> = self.in_flight.iter().collect();
        oldest.sort_unstable_by_key(|(_, t)| (t.start, t.src, t.client_id));
        let stuck = oldest
            .into_iter()
            .take(STUCK_LISTED)
            .map(|(&(dst, src, client_id), t)| StuckRpc {
                src,
                dst,
                client_id,
                size: t.size,
                started_ps: t.start,
                client_state: self.hosts[src].client_state(client_id),
                last_packets: t.seen.iter().flatten().copied().collect(),
            })
            .collect();
        Stopped {
            reason,
            at_ps: self.now,
            in_flight: self.in_flight.len(),
            stuck,
        }
    }
}
