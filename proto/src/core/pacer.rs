//! The sender's NIC-queue pacing (HomaModule's time-based estimate, SPEC §2.2): data is held
//! back while the estimated NIC backlog exceeds `max_nic_est_backlog_usecs`, so the NIC's
//! FIFO stays short and the sender's SRPT order is what reaches the wire. Control packets
//! and messages with at most `defer_min_bytes` left are never held back.

use super::time::Instant;

/// Bytes a frame occupies on an Ethernet link beyond the IP packet: header 14, FCS 4,
/// preamble and start delimiter 8, inter-frame gap 12.
pub const ETHERNET_OVERHEAD: u32 = 14 + 4 + 8 + 12;

/// The backlog estimate.
#[derive(Debug, Clone)]
pub(crate) struct Pacer {
    /// When the NIC will have sent everything handed to it so far (estimate).
    busy_until: Instant,
    /// Picoseconds per byte at 99 % of the link rate.
    ps_per_byte: u64,
    max_backlog_ns: u64,
    defer_min_bytes: u32,
}

impl Pacer {
    pub(crate) fn new(link_mbps: u32, max_backlog_usecs: u32, defer_min_bytes: u32) -> Self {
        // 8e6 ps per byte per Mb/s; at 99 % of the rate, a little slower.
        let ps_per_byte = (8_000_000u64 * 100).div_ceil(u64::from(link_mbps) * 99);
        Pacer {
            busy_until: Instant::ZERO,
            ps_per_byte,
            max_backlog_ns: u64::from(max_backlog_usecs) * 1_000,
            defer_min_bytes,
        }
    }

    /// Whether a data packet of a message with `bytes_remaining` may go at `now`.
    pub(crate) fn may_send(&self, now: Instant, bytes_remaining: u32) -> bool {
        bytes_remaining <= self.defer_min_bytes
            || self.busy_until.as_nanos() <= now.as_nanos() + self.max_backlog_ns
    }

    /// When held-back data may go.
    pub(crate) fn wake_time(&self) -> Instant {
        Instant::from_nanos(
            self.busy_until
                .as_nanos()
                .saturating_sub(self.max_backlog_ns),
        )
    }

    /// Accounts for `wire_bytes` handed to the NIC at `now`.
    pub(crate) fn on_send(&mut self, now: Instant, wire_bytes: u32) {
        let start = self.busy_until.max(now).as_nanos();
        let ns = (u64::from(wire_bytes) * self.ps_per_byte).div_ceil(1_000);
        self.busy_until = Instant::from_nanos(start + ns);
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn may_send__holds_long_messages_past_the_backlog_limit() {
        // 10 Gb/s: 1538 bytes take ~1.24 us at 99 %.
        let mut p = Pacer::new(10_000, 5, 1000);
        let t0 = Instant::ZERO;
        let mut sent = 0;
        while p.may_send(t0, 1_000_000) {
            p.on_send(t0, 1538);
            sent += 1;
        }
        assert_eq!(sent, 5, "four fit under 5 us, the fifth crosses it");
        assert!(p.may_send(t0, 1000), "short messages bypass");
        let wake = p.wake_time();
        assert!(p.may_send(wake, 1_000_000));
        assert!(wake.as_nanos() > 1_000 && wake.as_nanos() < 1_500, "{wake}");
    }
}
