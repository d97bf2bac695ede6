//! The run's watchdog: a run that stops making progress is stopped, and says why.
//!
//! Three limits, checked as the run steps: simulated time with no message completed while
//! events still happen, or a message in flight whose receiver gets no new byte for longer (a
//! message starved while others complete: both [`Watchdog::stall_ps`]), and wall-clock time
//! ([`Watchdog::wall`]). The simulated time limit of [`super::ClusterConfig`] ends a run
//! early too. Each stop names the messages still in flight, least recently advanced first,
//! with what their client's and server's engines hold of them and the last packets of each
//! that reached a host, so a livelock shows its cause.

use super::Cluster;
use crate::fabric::HostId;
use crate::time::{MS, Ps};
use homa_proto::core::RpcState;
use homa_proto::core::rpc::MessageView;
use homa_proto::wire::PacketType;
use std::fmt;
use std::time::Duration;

/// When a run gives up (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Watchdog {
    /// Simulated time without a completed message, or during which one message in flight
    /// gets no new byte to its receiver, after which the run stops.
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
    /// A message has reached no new byte of its receiver for this long (simulated) while
    /// others completed.
    Starved {
        /// Simulated time since its last new byte reached its receiver, ps.
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
    /// A training job's message was lost for good (its RPC failed, or its host refused it),
    /// so the job cannot finish.
    JobMessageLost {
        /// Sending host.
        src: HostId,
        /// Receiving host.
        dst: HostId,
        /// Message bytes.
        size: u32,
    },
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
                "a message in flight got no new byte to its receiver for {:.3} ms of simulated time",
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
            StopReason::JobMessageLost { src, dst, size } => write!(
                f,
                "the training job's {size}-byte message from host {src} to host {dst} was lost \
                 for good (its RPC failed), so the job cannot finish"
            ),
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
    /// The highest byte end of its DATA that reached the server.
    pub reached: u32,
    /// When that last grew (or the message started), ps.
    pub advanced_ps: Ps,
    /// The client engine's state of the RPC (`None`: it no longer has it).
    pub client_state: Option<RpcState>,
    /// What the client's engine holds of the message (`None`: no longer anything).
    pub sender: Option<MessageView>,
    /// What the server's engine holds of it (`None`: no RPC, or not yet).
    pub receiver: Option<MessageView>,
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
            "host {} -> host {} rpc {}: {} B since {:.3} us, {} B reached by {:.3} us, \
             client state {state}; ",
            self.src,
            self.dst,
            self.client_id,
            self.size,
            self.started_ps as f64 / 1e6,
            self.reached,
            self.advanced_ps as f64 / 1e6
        )?;
        if let Some(m) = self.sender {
            write!(
                f,
                "client sent {} B, granted {} B{}; ",
                m.done,
                m.granted,
                if m.active { ", may send" } else { "" }
            )?;
        }
        match self.receiver {
            Some(m) => write!(
                f,
                "server {:?}, received {} B, granted {} B; ",
                m.state, m.done, m.granted
            )?,
            None => f.write_str("no server RPC; ")?,
        }
        f.write_str("last packets: ")?;
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
    /// Those that advanced least recently (at most [`STUCK_LISTED`]).
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
            write!(f, ", the least recently advanced:")?;
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
    /// `data_end` is a DATA packet's end offset: a message advances when its receiver gets
    /// bytes beyond any it got before (a restart's DATA from offset 0 is no progress).
    pub(super) fn note_packet(
        &mut self,
        at_host: HostId,
        from: HostId,
        sender_id: u64,
        kind: PacketType,
        data_end: Option<u32>,
    ) {
        let from_client = sender_id & 1 == 0;
        let key = if from_client {
            (at_host, from, sender_id)
        } else {
            (from, at_host, sender_id ^ 1)
        };
        if let Some(t) = self.in_flight.get_mut(&key) {
            if let Some(end) = data_end.filter(|&end| from_client && end > t.reached) {
                t.reached = end;
                t.advanced_ps = self.now;
            }
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
        oldest.sort_unstable_by_key(|(_, t)| (t.advanced_ps, t.start, t.src, t.client_id));
        let stuck = oldest
            .into_iter()
            .take(STUCK_LISTED)
            .map(|(&(dst, src, client_id), t)| StuckRpc {
                src,
                dst,
                client_id,
                size: t.size,
                started_ps: t.start,
                reached: t.reached,
                advanced_ps: t.advanced_ps,
                client_state: self.hosts[src].engine().client_state(client_id),
                sender: self.hosts[src].engine().client_request(client_id),
                receiver: self.hosts[dst]
                    .engine()
                    .server_request(super::host::addr_of(src), client_id),
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
