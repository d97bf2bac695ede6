//! What every stress run must show (see [`check`]).

use crate::cluster::{Report, Watchdog};
use std::time::Duration;

/// The bounds a run is checked against, and its watchdog.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// Control packets (RESEND + RPC_UNKNOWN + BUSY) allowed per DATA packet, on top of
    /// those loss explains.
    pub control_per_data: f64,
    /// Control packets allowed per packet the fabric lost (injected or dropped by a full
    /// buffer): a lost request costs its client a RESEND and its server an RPC_UNKNOWN;
    /// a lost GRANT or response packet costs a RESEND, its answer is DATA.
    pub control_per_loss: f64,
    /// The switch queue bound is this many times Homa's own (see [`check`]): a sender may
    /// have the unscheduled bytes of more than one message queued at once (Poisson
    /// arrivals), and a RESEND for every gap of a long message brings them back to back.
    pub queue_slack: f64,
    /// When a run is stopped: the cluster's watchdog.
    pub watchdog: Watchdog,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            control_per_data: 0.1,
            control_per_loss: 4.0,
            queue_slack: 2.0,
            watchdog: Watchdog {
                wall: Some(Duration::from_secs(600)),
                ..Watchdog::default()
            },
        }
    }
}

/// Wire bytes per payload byte of a full DATA frame (1538 on the wire for 1424 of payload).
const WIRE_PER_PAYLOAD: f64 = 1538.0 / 1424.0;

/// The checks `report` (of a run on `hosts` hosts with `unsched` unscheduled bytes per
/// message and `incoming` bytes of overcommitment per receiver) fails, each a sentence:
/// - the run completed: every measured message delivered or failed, no watchdog stop;
/// - no delivered message differs from what was sent;
/// - every RPC is accounted for: generated = completed + failed + still in flight;
/// - without loss, no RPC failed, and no message reached its server after its client gave
///   up;
/// - control packets (RESEND + RPC_UNKNOWN + BUSY) are at most `control_per_data` of DATA
///   packets plus `control_per_loss` per lost packet;
/// - no switch queue held more than Homa lets arrive at one receiver: every sender's
///   unscheduled bytes at once plus `incoming` granted ones, in wire bytes (times
///   `queue_slack`);
/// - with RTL: no DMA outside a posted buffer, no parse mismatch, no TX descriptor refused.
pub fn check(
    report: &Report,
    limits: &Limits,
    hosts: u64,
    unsched: u64,
    incoming: u64,
) -> Vec<String> {
    let mut failures = Vec::new();
    let mut fail = |s: String| failures.push(s);
    if let Some(stop) = &report.stopped {
        fail(format!("did not complete: {}", stop.reason));
    }
    if report.payload_errors > 0 {
        fail(format!(
            "{} messages delivered with wrong bytes",
            report.payload_errors
        ));
    }
    let accounted = report.completed + report.rpcs_failed + report.in_flight;
    if accounted != report.generated {
        fail(format!(
            "{} RPCs generated, {} accounted for ({} completed, {} failed, {} in flight)",
            report.generated, accounted, report.completed, report.rpcs_failed, report.in_flight
        ));
    }
    let lost = report.fabric.injected_losses + report.fabric.buffer_drops;
    if lost == 0 && report.rpcs_failed > 0 {
        fail(format!(
            "{} RPCs failed with no packet lost",
            report.rpcs_failed
        ));
    }
    if lost == 0 && report.late_deliveries > 0 {
        fail(format!(
            "{} messages delivered after their client gave up, with no packet lost",
            report.late_deliveries
        ));
    }
    let sent = |name| report.sent(name);
    let control = sent("RESEND") + sent("RPC_UNKNOWN") + sent("BUSY");
    let allowed =
        limits.control_per_data * sent("DATA") as f64 + limits.control_per_loss * lost as f64;
    if control as f64 > allowed {
        fail(format!(
            "{control} control packets (RESEND, RPC_UNKNOWN, BUSY) for {} DATA and {lost} \
             lost: more than {allowed:.0}",
            sent("DATA")
        ));
    }
    let queue_bound = queue_bound(hosts, unsched, incoming) * limits.queue_slack;
    if report.fabric.max_switch_queue_bytes as f64 > queue_bound {
        fail(format!(
            "a switch queue reached {} bytes, above Homa's bound of {queue_bound:.0}",
            report.fabric.max_switch_queue_bytes
        ));
    }
    if let Some(nic) = &report.nic {
        for (what, n) in [
            ("DMA accesses outside posted memory", nic.dma_faults),
            (
                "completions that differ from the frame's parse",
                nic.parse_mismatches,
            ),
            ("TX descriptors refused or not posted", nic.tx_errors),
        ] {
            if n > 0 {
                fail(format!("{n} {what}"));
            }
        }
    }
    failures
}

/// The most bytes Homa lets queue for one receiver: every other host's unscheduled bytes
/// at once plus the receiver's granted bytes, in wire bytes.
pub(crate) fn queue_bound(hosts: u64, unsched: u64, incoming: u64) -> f64 {
    ((hosts - 1) * unsched + incoming) as f64 * WIRE_PER_PAYLOAD
}
