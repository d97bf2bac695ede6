//! pFabric's end hosts (Alizadeh et al., SIGCOMM 2013), sans IO: every message is a flow
//! that starts at line rate with a window of one bandwidth-delay product, marks each packet
//! with the bytes its flow has left (the switches schedule and drop by that rank), and
//! repairs losses by timeout only; the receiver acknowledges every packet by its index.
//!
//! Minimal rate control: a timeout sends the oldest unacknowledged packet again with a
//! window of one packet, and every acknowledgement grows the window by a packet, back up to
//! the initial window. Consecutive timeouts double the timeout (up to 2^10 times), as
//! pFabric's probe mode slows a starved flow down: without that, flows that the switches
//! starve (the largest, at high load) time out every 45 µs, and their copies take the
//! fabric's bandwidth.

use crate::time::{Ps, US};

/// pFabric's end-host parameters. `Default` is the pFabric paper's for 10 Gb/s edge links
/// and its 144-host fabric (the Homa paper's simulation topology): 12-packet window (about
/// one BDP) and a 45 µs retransmission timeout (about 3 RTTs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PfabricConfig {
    /// Payload bytes per packet (1,460: a 1,500-byte MTU less 40 bytes of headers).
    pub mss: u32,
    /// Initial (and largest) window, packets.
    pub window: u32,
    /// Retransmission timeout.
    pub rto_ps: Ps,
}

impl Default for PfabricConfig {
    fn default() -> Self {
        Self {
            mss: 1_460,
            window: 12,
            rto_ps: 45 * US,
        }
    }
}

/// A packet to send: the flow's packet `index`, `len` bytes, with its rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowPacket {
    /// Its index in the flow (its first byte is at `index * mss`).
    pub index: u32,
    /// Payload bytes.
    pub len: u32,
    /// The flow's bytes not yet acknowledged when it left: the switches' rank.
    pub rank: u64,
}

/// The sending half of one flow.
#[derive(Debug, Clone)]
pub struct FlowSender {
    config: PfabricConfig,
    size: u64,
    packets: u32,
    acked: Vec<bool>,
    acked_bytes: u64,
    /// Next packet never sent.
    next_new: u32,
    /// Packets below it are acknowledged or were sent since the last timeout.
    resend_from: u32,
    /// Sent and not acknowledged, as far as the sender knows (reset by a timeout).
    in_flight: u32,
    window: u32,
    deadline: Option<Ps>,
    /// Timeouts since the last new acknowledgement (the timeout doubles with each).
    backoff: u32,
    /// Packets sent, retransmissions included.
    pub sent: u64,
    /// Packets sent again.
    pub resent: u64,
    /// Timeouts.
    pub timeouts: u64,
}

impl FlowSender {
    /// A flow of `size` bytes (at least one packet, even for 0 bytes).
    pub fn new(config: PfabricConfig, size: u64) -> Self {
        let packets = size.div_ceil(u64::from(config.mss)).max(1) as u32;
        Self {
            config,
            size,
            packets,
            acked: vec![false; packets as usize],
            acked_bytes: 0,
            next_new: 0,
            resend_from: 0,
            in_flight: 0,
            window: config.window,
            deadline: None,
            backoff: 0,
            sent: 0,
            resent: 0,
            timeouts: 0,
        }
    }

    /// Packets in the flow.
    pub fn packets(&self) -> u32 {
        self.packets
    }

    /// Whether every packet is acknowledged.
    pub fn is_done(&self) -> bool {
        self.acked_bytes >= self.size && self.acked.iter().all(|&a| a)
    }

    /// When the retransmission timer fires, if armed.
    pub fn deadline(&self) -> Option<Ps> {
        self.deadline
    }

    fn len_of(&self, index: u32) -> u32 {
        let start = u64::from(index) * u64::from(self.config.mss);
        (self.size - start.min(self.size)).min(u64::from(self.config.mss)) as u32
    }

    /// Sends what the window allows: packets a timeout left unacknowledged first, then new
    /// ones.
    pub fn poll(&mut self, now: Ps, out: &mut Vec<FlowPacket>) {
        while self.in_flight < self.window {
            while self.resend_from < self.next_new && self.acked[self.resend_from as usize] {
                self.resend_from += 1;
            }
            let index = if self.resend_from < self.next_new {
                self.resent += 1;
                self.resend_from += 1;
                self.resend_from - 1
            } else if self.next_new < self.packets {
                self.next_new += 1;
                self.resend_from = self.next_new;
                self.next_new - 1
            } else {
                break;
            };
            self.sent += 1;
            self.in_flight += 1;
            out.push(FlowPacket {
                index,
                len: self.len_of(index),
                rank: self.size - self.acked_bytes,
            });
        }
        if self.in_flight > 0 && self.deadline.is_none() {
            self.deadline = Some(now + self.rto());
        }
    }

    /// Packet `index` was acknowledged. Call [`Self::poll`] after it.
    pub fn on_ack(&mut self, now: Ps, index: u32) {
        let Some(a) = self.acked.get_mut(index as usize) else {
            return;
        };
        if *a {
            return;
        }
        *a = true;
        self.acked_bytes += u64::from(self.len_of(index));
        self.in_flight = self.in_flight.saturating_sub(1);
        self.window = (self.window + 1).min(self.config.window);
        self.backoff = 0;
        self.deadline = (!self.is_done()).then_some(now + self.rto());
    }

    /// The timeout now: the configured one, doubled per consecutive timeout.
    fn rto(&self) -> Ps {
        self.config.rto_ps << self.backoff.min(10)
    }

    /// The timer fired at `now` (earlier calls do nothing): everything unacknowledged is
    /// taken as lost, the window drops to one packet, and sending resumes from the oldest.
    pub fn on_timer(&mut self, now: Ps, out: &mut Vec<FlowPacket>) {
        match self.deadline {
            Some(t) if t <= now => {}
            _ => return,
        }
        self.deadline = None;
        if self.is_done() {
            return;
        }
        self.timeouts += 1;
        self.backoff += 1;
        self.window = 1;
        self.in_flight = 0;
        self.resend_from = 0;
        self.poll(now, out);
    }
}

/// The receiving half of one flow.
#[derive(Debug, Clone)]
pub struct FlowReceiver {
    got: Vec<bool>,
    missing: u32,
}

impl FlowReceiver {
    /// A flow of `packets` packets.
    pub fn new(packets: u32) -> Self {
        Self {
            got: vec![false; packets as usize],
            missing: packets,
        }
    }

    /// Packet `index` arrived; returns whether the flow is now complete (true once).
    pub fn on_packet(&mut self, index: u32) -> bool {
        match self.got.get_mut(index as usize) {
            Some(g) if !*g => {
                *g = true;
                self.missing -= 1;
                self.missing == 0
            }
            _ => false,
        }
    }

    /// Whether every packet arrived.
    pub fn is_complete(&self) -> bool {
        self.missing == 0
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    fn sender(size: u64) -> FlowSender {
        FlowSender::new(PfabricConfig::default(), size)
    }

    #[test]
    fn poll__a_window_at_line_rate_ranked_by_bytes_left() {
        let mut s = sender(100 * 1_460 + 10);
        assert_eq!(s.packets(), 101);
        let mut out = Vec::new();
        s.poll(0, &mut out);
        assert_eq!(out.len(), 12);
        assert!(out.iter().all(|p| p.rank == 100 * 1_460 + 10));
        assert_eq!(out[11].index, 11);
        // Each ACK lets one more go, ranked by what is still unacknowledged.
        s.on_ack(10 * US, 0);
        out.clear();
        s.poll(10 * US, &mut out);
        assert_eq!(
            out,
            [FlowPacket {
                index: 12,
                len: 1_460,
                rank: 99 * 1_460 + 10
            }]
        );
        assert_eq!(s.deadline(), Some(55 * US));
    }

    #[test]
    fn timeout__resends_the_oldest_unacknowledged_with_a_window_of_one_then_grows() {
        let mut s = sender(5 * 1_460);
        let mut out = Vec::new();
        s.poll(0, &mut out);
        assert_eq!(out.len(), 5);
        // Packets 1 and 3 arrive; 0, 2 and 4 are lost.
        s.on_ack(US, 1);
        s.on_ack(US, 3);
        out.clear();
        s.on_timer(45 * US, &mut out);
        assert!(out.is_empty(), "the ACK at 1 us moved the deadline");
        s.on_timer(46 * US, &mut out);
        assert_eq!(out.iter().map(|p| p.index).collect::<Vec<_>>(), [0]);
        assert_eq!(s.timeouts, 1);
        assert_eq!(s.deadline(), Some(46 * US + 90 * US), "the timeout doubled");
        // Its ACK opens the window to 2: packets 2 and 4, skipping the acknowledged 3.
        s.on_ack(50 * US, 0);
        out.clear();
        s.poll(50 * US, &mut out);
        assert_eq!(out.iter().map(|p| p.index).collect::<Vec<_>>(), [2, 4]);
        s.on_ack(55 * US, 2);
        s.on_ack(55 * US, 4);
        assert!(s.is_done());
        assert_eq!(s.deadline(), None);
        assert_eq!((s.sent, s.resent), (8, 3));
    }

    #[test]
    fn small_and_empty_flows_are_one_packet() {
        let mut s = sender(0);
        let mut out = Vec::new();
        s.poll(0, &mut out);
        assert_eq!(
            out,
            [FlowPacket {
                index: 0,
                len: 0,
                rank: 0
            }]
        );
        s.on_ack(1, 0);
        assert!(s.is_done());
        s.on_ack(2, 7);
        assert!(s.is_done());
    }

    #[test]
    fn receiver__completes_once_whatever_the_order_and_duplicates() {
        let mut r = FlowReceiver::new(3);
        assert!(!r.on_packet(2));
        assert!(!r.on_packet(2));
        assert!(!r.on_packet(0));
        assert!(r.on_packet(1));
        assert!(!r.on_packet(1));
        assert!(!r.on_packet(9));
        assert!(r.is_complete());
    }
}
