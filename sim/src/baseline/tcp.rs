//! One direction of a TCP connection, sans IO: the sender's NewReno congestion control
//! (RFC 5681 slow start and congestion avoidance, RFC 6582 fast retransmit and recovery,
//! RFC 6298 retransmission timer) with DCTCP's reaction to ECN echoes (RFC 8257), and the
//! receiver's cumulative acknowledgements.
//!
//! Sequence numbers are 64-bit byte offsets into the connection's stream, from 0: they never
//! wrap. The connection is open from the start (no handshake) and never closes. Segments
//! carry no SACK blocks; the receiver keeps segments that arrive out of order and
//! acknowledges every segment it receives at once (quick ACKs, no delayed ACK), echoing the
//! segment's Congestion Experienced mark, which makes DCTCP's echo exact.

use std::collections::BTreeMap;

use crate::time::Ps;

/// TCP's parameters. `Default` gives Linux's defaults where they apply (`mss`, `init_cwnd`,
/// `max_window`), DCTCP's published gain, and the DCTCP paper's testbed minimum timeout.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TcpConfig {
    /// Payload bytes per segment (1,460: a 1,500-byte MTU less 40 bytes of IPv4 and TCP).
    pub mss: u32,
    /// Initial congestion window, segments (10, RFC 6928 and Linux).
    pub init_cwnd: u32,
    /// Receive window: bytes in flight never exceed it (6 MiB, Linux's `tcp_rmem` maximum).
    pub max_window: u64,
    /// Smallest retransmission timeout (10 ms, as in the DCTCP paper's testbed; Linux's
    /// default is 200 ms, which its tail loss probe usually pre-empts).
    pub rto_min_ps: Ps,
    /// Largest retransmission timeout after back-off (60 s, RFC 6298).
    pub rto_max_ps: Ps,
    /// Duplicate ACKs that trigger a fast retransmit (3).
    pub dupack_threshold: u32,
    /// DCTCP's estimation gain g (1/16); used only when the connection runs DCTCP.
    pub dctcp_gain: f64,
    /// After more than a retransmission timeout without sending, the window restarts from
    /// at most `init_cwnd` (RFC 5681 §4.1; Linux's `tcp_slow_start_after_idle`, on by
    /// default).
    pub restart_after_idle: bool,
}

impl Default for TcpConfig {
    fn default() -> Self {
        Self {
            mss: 1_460,
            init_cwnd: 10,
            max_window: 6 << 20,
            rto_min_ps: 10 * crate::time::MS,
            rto_max_ps: 60 * crate::time::SEC,
            dupack_threshold: 3,
            dctcp_gain: 1.0 / 16.0,
            restart_after_idle: true,
        }
    }
}

/// A TCP parameter outside its allowed range.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid TCP setting `{field}` = {value}: allowed {allowed}")]
pub struct TcpConfigError {
    /// The parameter.
    pub field: &'static str,
    /// Its value, printed.
    pub value: String,
    /// What is allowed.
    pub allowed: &'static str,
}

impl TcpConfig {
    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), TcpConfigError> {
        let bad = |field, value: &dyn ToString, allowed| TcpConfigError {
            field,
            value: value.to_string(),
            allowed,
        };
        if !(64..=65_495).contains(&self.mss) {
            return Err(bad("mss", &self.mss, "64 ..= 65495 bytes"));
        }
        if self.init_cwnd == 0 {
            return Err(bad("init_cwnd", &self.init_cwnd, "at least 1 segment"));
        }
        if self.max_window < u64::from(self.mss) {
            return Err(bad("max_window", &self.max_window, "at least one mss"));
        }
        if self.rto_min_ps == 0 || self.rto_min_ps > self.rto_max_ps {
            return Err(bad("rto_min_ps", &self.rto_min_ps, "1 ps ..= rto_max_ps"));
        }
        if self.dupack_threshold == 0 {
            return Err(bad(
                "dupack_threshold",
                &self.dupack_threshold,
                "at least 1",
            ));
        }
        if !(self.dctcp_gain > 0.0 && self.dctcp_gain <= 1.0) {
            return Err(bad("dctcp_gain", &self.dctcp_gain, "0 < g <= 1"));
        }
        Ok(())
    }
}

/// A data segment to put on the wire: `len` bytes of the stream from `seq`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    /// Offset of its first byte in the stream.
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
}

/// What a sender did, summed over its life.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SenderCounts {
    /// Segments sent, retransmissions included.
    pub segments: u64,
    /// Segments sent again (fast retransmits, recovery, after timeouts).
    pub retransmits: u64,
    /// Fast retransmits (entries into recovery).
    pub fast_retransmits: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Window reductions for ECN echoes (DCTCP).
    pub ecn_reductions: u64,
}

/// DCTCP's congestion estimate: the fraction of bytes marked, per window of data.
#[derive(Debug, Clone, Copy)]
struct Dctcp {
    alpha: f64,
    /// The window being measured ends when this byte is acknowledged.
    window_end: u64,
    acked: u64,
    marked: u64,
    /// No second reduction until this byte is acknowledged (one per window).
    reduced_until: u64,
}

/// The sending half of a connection.
#[derive(Debug, Clone)]
pub struct Sender {
    config: TcpConfig,
    /// Oldest unacknowledged byte.
    una: u64,
    /// Next byte to send.
    nxt: u64,
    /// One past the highest byte ever sent.
    max_sent: u64,
    /// One past the last byte the application has written.
    end: u64,
    /// Congestion window and slow-start threshold, bytes.
    cwnd: f64,
    ssthresh: f64,
    dupacks: u32,
    /// In fast recovery until this byte is acknowledged.
    recover: Option<u64>,
    /// No new fast retransmit until `una` passes this (RFC 6582's `recover` after a timeout).
    high_water: u64,
    srtt_ps: Option<f64>,
    rttvar_ps: f64,
    rto_ps: Ps,
    /// The segment being timed: (its end, when it was sent); never a retransmitted one.
    rtt_probe: Option<(u64, Ps)>,
    /// When the retransmission timer fires, if armed.
    deadline: Option<Ps>,
    /// When a segment was last sent.
    last_sent: Option<Ps>,
    dctcp: Option<Dctcp>,
    counts: SenderCounts,
}

impl Sender {
    /// An idle sender; `dctcp` selects DCTCP's window reduction (its segments are then
    /// ECN-capable).
    pub fn new(config: TcpConfig, dctcp: bool) -> Self {
        let mss = f64::from(config.mss);
        Self {
            una: 0,
            nxt: 0,
            max_sent: 0,
            end: 0,
            cwnd: mss * f64::from(config.init_cwnd),
            ssthresh: f64::INFINITY,
            dupacks: 0,
            recover: None,
            high_water: 0,
            srtt_ps: None,
            rttvar_ps: 0.0,
            rto_ps: config.rto_min_ps,
            rtt_probe: None,
            deadline: None,
            last_sent: None,
            dctcp: dctcp.then_some(Dctcp {
                alpha: 1.0,
                window_end: 0,
                acked: 0,
                marked: 0,
                reduced_until: 0,
            }),
            counts: SenderCounts::default(),
            config,
        }
    }

    /// The application writes `bytes` more to the stream.
    pub fn write(&mut self, bytes: u64) {
        self.end += bytes;
    }

    /// Whether the sender runs DCTCP (its segments are ECN-capable).
    pub fn is_dctcp(&self) -> bool {
        self.dctcp.is_some()
    }

    /// Bytes written and not yet acknowledged.
    pub fn unacked(&self) -> u64 {
        self.end - self.una
    }

    /// The congestion window, bytes.
    pub fn cwnd(&self) -> f64 {
        self.cwnd
    }

    /// DCTCP's current estimate of the marked fraction (`None` for plain TCP).
    pub fn dctcp_alpha(&self) -> Option<f64> {
        self.dctcp.map(|d| d.alpha)
    }

    /// When the retransmission timer fires, if it is armed.
    pub fn deadline(&self) -> Option<Ps> {
        self.deadline
    }

    /// Counters so far.
    pub fn counts(&self) -> SenderCounts {
        self.counts
    }

    fn mss(&self) -> f64 {
        f64::from(self.config.mss)
    }

    fn flight(&self) -> u64 {
        self.nxt.saturating_sub(self.una)
    }

    /// Sends what the windows allow: new data, or data again after a timeout rewound `nxt`.
    pub fn poll(&mut self, now: Ps, out: &mut Vec<Segment>) {
        if self.config.restart_after_idle
            && self.nxt < self.end
            && self.flight() == 0
            && self
                .last_sent
                .is_some_and(|t| now.saturating_sub(t) > self.rto_ps)
        {
            let restart = self.mss() * f64::from(self.config.init_cwnd);
            self.cwnd = self.cwnd.min(restart);
        }
        let window = (self.cwnd.max(0.0) as u64).min(self.config.max_window);
        while self.nxt < self.end && self.flight() < window {
            let len = (self.end - self.nxt).min(u64::from(self.config.mss)) as u32;
            let seg = Segment { seq: self.nxt, len };
            let resent = seg.seq < self.max_sent;
            self.nxt += u64::from(len);
            self.max_sent = self.max_sent.max(self.nxt);
            if resent {
                self.counts.retransmits += 1;
            } else if self.rtt_probe.is_none() {
                self.rtt_probe = Some((self.nxt, now));
            }
            self.counts.segments += 1;
            self.last_sent = Some(now);
            out.push(seg);
            if self.deadline.is_none() {
                self.deadline = Some(now + self.rto_ps);
            }
        }
    }

    /// The segment at `una` again (fast retransmit, or a partial ACK in recovery).
    fn resend_first(&mut self, now: Ps, out: &mut Vec<Segment>) {
        let len = (self.max_sent - self.una).min(u64::from(self.config.mss)) as u32;
        if len == 0 {
            return;
        }
        self.counts.segments += 1;
        self.counts.retransmits += 1;
        // Karn: a retransmission invalidates the sample in progress.
        self.rtt_probe = None;
        self.last_sent = Some(now);
        out.push(Segment { seq: self.una, len });
        self.deadline = Some(now + self.rto_ps);
    }

    /// An acknowledgement of every byte before `ack`, echoing Congestion Experienced when
    /// `ece`. Retransmissions it calls for go to `out`; call [`Self::poll`] after it for new
    /// data.
    pub fn on_ack(&mut self, now: Ps, ack: u64, ece: bool, out: &mut Vec<Segment>) {
        if ack > self.max_sent {
            // Acknowledges data never sent: not from this connection's receiver.
            return;
        }
        if ack <= self.una {
            let outstanding = self.max_sent > self.una;
            if ack == self.una && outstanding {
                self.on_dupack(now, out);
            }
            return;
        }
        let acked = ack - self.una;
        self.una = ack;
        // A timeout rewound `nxt`: what the receiver already holds needs no resend.
        self.nxt = self.nxt.max(ack);
        if let Some((end, sent)) = self.rtt_probe
            && ack >= end
        {
            self.rtt_probe = None;
            self.rtt_sample(now.saturating_sub(sent));
        }
        let reduce = self.dctcp_on_ack(acked, ece);
        match self.recover {
            Some(recover) if ack >= recover => {
                // Full ACK: recovery ends, the window deflates to the threshold.
                self.recover = None;
                self.cwnd = self.ssthresh;
            }
            Some(_) => {
                // Partial ACK: the next hole is lost too; resend it at once.
                self.cwnd = (self.cwnd - acked as f64 + self.mss()).max(self.mss());
                self.resend_first(now, out);
            }
            None => {
                if self.cwnd < self.ssthresh {
                    self.cwnd += (acked as f64).min(self.mss());
                } else {
                    self.cwnd += self.mss() * self.mss() / self.cwnd;
                }
            }
        }
        if reduce && self.recover.is_none() {
            let alpha = self.dctcp.map_or(1.0, |d| d.alpha);
            self.cwnd = (self.cwnd * (1.0 - alpha / 2.0)).max(2.0 * self.mss());
            self.ssthresh = self.cwnd;
            self.counts.ecn_reductions += 1;
        }
        self.dupacks = 0;
        self.deadline = (self.max_sent > self.una).then_some(now + self.rto_ps);
    }

    /// DCTCP's bookkeeping for `acked` new bytes: updates alpha at the end of each window
    /// and says whether the window must shrink now.
    fn dctcp_on_ack(&mut self, acked: u64, ece: bool) -> bool {
        let (una, nxt, gain) = (self.una, self.nxt, self.config.dctcp_gain);
        let Some(d) = &mut self.dctcp else {
            return false;
        };
        d.acked += acked;
        if ece {
            d.marked += acked;
        }
        if una >= d.window_end {
            let fraction = if d.acked == 0 {
                0.0
            } else {
                d.marked as f64 / d.acked as f64
            };
            d.alpha = (1.0 - gain) * d.alpha + gain * fraction;
            d.acked = 0;
            d.marked = 0;
            d.window_end = nxt;
        }
        if ece && una > d.reduced_until {
            d.reduced_until = nxt;
            return true;
        }
        false
    }

    fn on_dupack(&mut self, now: Ps, out: &mut Vec<Segment>) {
        self.dupacks += 1;
        if self.recover.is_some() {
            // Each duplicate is a segment that left the network: inflate.
            self.cwnd += self.mss();
            return;
        }
        if self.dupacks == self.config.dupack_threshold && self.una >= self.high_water {
            let flight = self.max_sent - self.una;
            self.ssthresh = (flight as f64 / 2.0).max(2.0 * self.mss());
            self.cwnd = self.ssthresh + f64::from(self.config.dupack_threshold) * self.mss();
            self.recover = Some(self.max_sent);
            self.high_water = self.max_sent;
            self.counts.fast_retransmits += 1;
            self.resend_first(now, out);
        }
    }

    fn rtt_sample(&mut self, r: Ps) {
        let r = r as f64;
        match self.srtt_ps {
            None => {
                self.srtt_ps = Some(r);
                self.rttvar_ps = r / 2.0;
            }
            Some(srtt) => {
                self.rttvar_ps = 0.75 * self.rttvar_ps + 0.25 * (srtt - r).abs();
                self.srtt_ps = Some(0.875 * srtt + 0.125 * r);
            }
        }
        let rto = self.srtt_ps.unwrap_or(r) + 4.0 * self.rttvar_ps;
        self.rto_ps = (rto as Ps).clamp(self.config.rto_min_ps, self.config.rto_max_ps);
    }

    /// The retransmission timer fired at `now` (a call before the deadline does nothing):
    /// the window collapses to one segment and sending resumes from the oldest
    /// unacknowledged byte (go-back-N), with the timeout doubled.
    pub fn on_timer(&mut self, now: Ps, out: &mut Vec<Segment>) {
        match self.deadline {
            Some(t) if t <= now => {}
            _ => return,
        }
        self.deadline = None;
        if self.max_sent <= self.una {
            return;
        }
        self.counts.timeouts += 1;
        let flight = self.max_sent - self.una;
        self.ssthresh = (flight as f64 / 2.0).max(2.0 * self.mss());
        self.cwnd = self.mss();
        self.recover = None;
        self.high_water = self.max_sent;
        self.dupacks = 0;
        self.rtt_probe = None;
        self.rto_ps = (self.rto_ps.saturating_mul(2)).min(self.config.rto_max_ps);
        self.nxt = self.una;
        self.poll(now, out);
    }
}

/// The receiving half of a connection.
#[derive(Debug, Clone, Default)]
pub struct Receiver {
    /// Every byte before it has arrived.
    nxt: u64,
    /// Ranges [start, end) that arrived beyond `nxt`, keyed by start, disjoint.
    ahead: BTreeMap<u64, u64>,
}

impl Receiver {
    /// Every byte before this offset has arrived.
    pub fn delivered(&self) -> u64 {
        self.nxt
    }

    /// A segment arrived; returns the cumulative acknowledgement to send.
    pub fn on_segment(&mut self, seg: Segment) -> u64 {
        let (mut start, mut end) = (seg.seq, seg.seq + u64::from(seg.len));
        if end <= self.nxt {
            return self.nxt;
        }
        start = start.max(self.nxt);
        // Merge with every range it touches.
        let touching: Vec<u64> = self
            .ahead
            .range(..=end)
            .filter(|&(_, &e)| e >= start)
            .map(|(&s, _)| s)
            .collect();
        for s in touching {
            let e = self.ahead.remove(&s).expect("listed");
            start = start.min(s);
            end = end.max(e);
        }
        if start <= self.nxt {
            self.nxt = end;
        } else {
            self.ahead.insert(start, end);
        }
        self.nxt
    }
}

#[cfg(test)]
mod tests;
