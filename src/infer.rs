//! Message sizes inferred from a packet capture of an application's traffic, for
//! `homa-nic advise`.
//!
//! - UDP: each datagram with a payload is one message of that payload.
//! - TCP: per direction of a connection, a message is the new payload bytes up to a segment
//!   with PSH or FIN set (Linux sets PSH on the last segment of each write the application
//!   makes); bytes at or below the highest sequence number seen are counted as retransmitted
//!   and not again (so a segment the capture holds out of order counts as retransmitted),
//!   a SYN starts the direction afresh, and bytes still open when the capture ends (or a SYN
//!   reuses the ports) make a last message, counted as cut.
//! - Everything else (ARP, ICMP, other IP protocols, frames that do not parse) is skipped
//!   and counted.

use std::collections::HashMap;
use std::fmt;
use std::net::IpAddr;

use etherparse::{NetSlice, SlicedPacket, TransportSlice};
use homa_proto::wire::LinkType;

use crate::capture::Frame;

/// What a capture holds, as messages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Inferred {
    /// Every message's size, bytes, in capture order (TCP messages when they end).
    pub sizes: Vec<u32>,
    /// Messages from UDP datagrams.
    pub udp_messages: u64,
    /// Messages from TCP streams.
    pub tcp_messages: u64,
    /// TCP directions (connection halves) that carried payload.
    pub tcp_flows: u64,
    /// TCP messages the capture's end cut (no PSH or FIN seen after their last bytes).
    pub tcp_cut: u64,
    /// TCP payload bytes seen again (retransmissions), not counted.
    pub retransmitted_bytes: u64,
    /// Frames that carried no TCP or UDP payload, or did not parse.
    pub skipped_frames: u64,
}

/// One direction of a TCP connection.
#[derive(Debug, Clone, Copy, Default)]
struct Flow {
    /// One past the highest sequence number seen.
    next: Option<u32>,
    /// Bytes of the message in progress.
    open: u64,
}

type FlowKey = (IpAddr, u16, IpAddr, u16);

impl Inferred {
    /// The messages of every frame of a capture.
    pub fn from_frames(frames: &[Frame]) -> Self {
        let mut me = Inferred::default();
        let mut flows: HashMap<FlowKey, Flow> = HashMap::new();
        for f in frames {
            let Ok(bytes) = &f.bytes else {
                me.skipped_frames += 1;
                continue;
            };
            let sliced = match f.link {
                LinkType::Ethernet => SlicedPacket::from_ethernet(bytes),
                LinkType::Ip => SlicedPacket::from_ip(bytes),
            };
            let Ok(p) = sliced else {
                me.skipped_frames += 1;
                continue;
            };
            let addrs = match &p.net {
                Some(NetSlice::Ipv4(v4)) => Some((
                    IpAddr::V4(v4.header().source_addr()),
                    IpAddr::V4(v4.header().destination_addr()),
                )),
                Some(NetSlice::Ipv6(v6)) => Some((
                    IpAddr::V6(v6.header().source_addr()),
                    IpAddr::V6(v6.header().destination_addr()),
                )),
                _ => None,
            };
            match (p.transport, addrs) {
                (Some(TransportSlice::Udp(u)), Some(_)) if !u.payload().is_empty() => {
                    me.push(u.payload().len() as u64);
                    me.udp_messages += 1;
                }
                (Some(TransportSlice::Tcp(t)), Some((src, dst))) => {
                    let key = (src, t.source_port(), dst, t.destination_port());
                    let flow = flows.entry(key).or_default();
                    if t.syn() {
                        // A new connection on the same ports: what the old one left open is
                        // a message the capture cut.
                        if flow.open > 0 {
                            me.push(flow.open);
                            me.tcp_messages += 1;
                            me.tcp_cut += 1;
                        }
                        let payload_seq = t.sequence_number().wrapping_add(1);
                        *flow = Flow {
                            next: Some(payload_seq),
                            open: 0,
                        };
                        if t.payload().is_empty() {
                            continue;
                        }
                    }
                    let len = t.payload().len() as u32;
                    if len == 0 && !t.fin() {
                        me.skipped_frames += 1;
                        continue;
                    }
                    let seq = t.sequence_number();
                    let end = seq.wrapping_add(len);
                    // New bytes: those beyond the highest sequence number seen (in wrapping
                    // order: a difference below 2^31 is ahead).
                    let fresh = match flow.next {
                        None => len,
                        Some(next) => {
                            let ahead = end.wrapping_sub(next);
                            if ahead == 0 || ahead >= 1 << 31 {
                                0
                            } else {
                                ahead.min(len)
                            }
                        }
                    };
                    me.retransmitted_bytes += u64::from(len - fresh);
                    if fresh > 0 {
                        flow.next = Some(end);
                        flow.open += u64::from(fresh);
                    } else if flow.next.is_none() {
                        flow.next = Some(end);
                    }
                    if (t.psh() || t.fin()) && flow.open > 0 {
                        let open = std::mem::take(&mut flow.open);
                        me.push(open);
                        me.tcp_messages += 1;
                    }
                }
                _ => me.skipped_frames += 1,
            }
        }
        // Directions that carried payload, and what the capture's end left open.
        let mut open: Vec<(FlowKey, Flow)> = flows.into_iter().collect();
        open.sort_by_key(|(k, _)| *k);
        for (_, flow) in open {
            if flow.next.is_some() {
                me.tcp_flows += 1;
            }
            if flow.open > 0 {
                me.push(flow.open);
                me.tcp_messages += 1;
                me.tcp_cut += 1;
            }
        }
        me
    }

    fn push(&mut self, bytes: u64) {
        self.sizes.push(bytes.min(u64::from(u32::MAX)) as u32);
    }

    /// The size distribution as `(size, cumulative fraction)` points, ascending, for
    /// [`homa_sim::workload::Workload::from_points`]; empty when no message was found.
    pub fn cdf(&self) -> Vec<(u32, f64)> {
        let mut sorted = self.sizes.clone();
        sorted.sort_unstable();
        let n = sorted.len() as f64;
        let mut points: Vec<(u32, f64)> = Vec::new();
        for (i, &s) in sorted.iter().enumerate() {
            let f = (i + 1) as f64 / n;
            match points.last_mut() {
                Some(last) if last.0 == s => last.1 = f,
                _ => points.push((s, f)),
            }
        }
        if let Some(last) = points.last_mut() {
            last.1 = 1.0;
        }
        points
    }
}

impl fmt::Display for Inferred {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} messages: {} UDP datagrams (one message each), {} from {} TCP directions \
             (new payload up to each PSH or FIN; {} retransmitted bytes not counted; {} cut by \
             the capture's end); {} frames skipped (no TCP or UDP payload)",
            self.sizes.len(),
            self.udp_messages,
            self.tcp_messages,
            self.tcp_flows,
            self.retransmitted_bytes,
            self.tcp_cut,
            self.skipped_frames
        )
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use etherparse::PacketBuilder;

    fn frame(bytes: Vec<u8>) -> Frame {
        Frame {
            timestamp: None,
            link: LinkType::Ethernet,
            bytes: Ok(bytes),
        }
    }

    fn udp(payload: usize) -> Frame {
        let b = PacketBuilder::ethernet2([1; 6], [2; 6])
            .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
            .udp(5000, 6000);
        let mut out = Vec::new();
        b.write(&mut out, &vec![7; payload]).unwrap();
        frame(out)
    }

    fn tcp(src_port: u16, seq: u32, payload: usize, psh: bool, fin: bool) -> Frame {
        let mut b = PacketBuilder::ethernet2([1; 6], [2; 6])
            .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
            .tcp(src_port, 80, seq, 65_000);
        if psh {
            b = b.psh();
        }
        if fin {
            b = b.fin();
        }
        let mut out = Vec::new();
        b.write(&mut out, &vec![9; payload]).unwrap();
        frame(out)
    }

    fn syn(src_port: u16, seq: u32) -> Frame {
        let b = PacketBuilder::ethernet2([1; 6], [2; 6])
            .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
            .tcp(src_port, 80, seq, 65_000)
            .syn();
        let mut out = Vec::new();
        b.write(&mut out, &[]).unwrap();
        frame(out)
    }

    #[test]
    fn tcp__a_syn_on_the_same_ports_starts_afresh() {
        let frames = [
            tcp(1, 5_000_000, 300, false, false), // left open by the old connection
            syn(1, 100),                          // a new one, its sequence far behind
            tcp(1, 101, 400, true, false),
        ];
        let i = Inferred::from_frames(&frames);
        assert_eq!(i.sizes, [300, 400]);
        assert_eq!((i.tcp_cut, i.retransmitted_bytes), (1, 0));
    }

    #[test]
    fn udp__each_datagram_is_a_message() {
        let i = Inferred::from_frames(&[udp(100), udp(0), udp(1_200)]);
        assert_eq!(i.sizes, [100, 1_200]);
        assert_eq!((i.udp_messages, i.skipped_frames), (2, 1));
    }

    #[test]
    fn tcp__messages_end_at_psh_or_fin_and_retransmissions_count_once() {
        let frames = [
            tcp(1, 1_000, 1_448, false, false),
            tcp(1, 2_448, 1_448, false, false),
            tcp(1, 3_896, 104, true, false),    // a 3,000-byte write
            tcp(1, 2_448, 1_448, false, false), // retransmitted
            tcp(1, 4_000, 0, false, false),     // a bare ACK
            tcp(1, 4_000, 50, true, false),     // a 50-byte write
            tcp(2, u32::MAX - 9, 20, false, false), // wraps
            tcp(2, 10, 5, false, true),         // 25 bytes, ended by FIN
            tcp(3, 0, 700, false, false),       // open at the capture's end
        ];
        let i = Inferred::from_frames(&frames);
        assert_eq!(i.sizes, [3_000, 50, 25, 700]);
        assert_eq!((i.tcp_messages, i.tcp_flows, i.tcp_cut), (4, 3, 1));
        assert_eq!(i.retransmitted_bytes, 1_448);
        assert_eq!(i.skipped_frames, 1);
        let text = i.to_string();
        assert!(text.starts_with("4 messages"), "{text}");
        assert!(text.contains("1 cut by the capture's end"), "{text}");
    }

    #[test]
    fn tcp__a_partly_new_segment_counts_its_new_bytes() {
        let frames = [
            tcp(1, 0, 1_000, false, false),
            tcp(1, 500, 1_000, true, false), // 500 old, 500 new
        ];
        let i = Inferred::from_frames(&frames);
        assert_eq!(i.sizes, [1_500]);
        assert_eq!(i.retransmitted_bytes, 500);
    }

    #[test]
    fn junk_and_unparsable_frames_are_skipped() {
        let bad = Frame {
            timestamp: None,
            link: LinkType::Ethernet,
            bytes: Ok(vec![1, 2, 3]),
        };
        let unreadable = Frame {
            timestamp: None,
            link: LinkType::Ip,
            bytes: Err("short".into()),
        };
        let i = Inferred::from_frames(&[bad, unreadable]);
        assert!(i.sizes.is_empty());
        assert_eq!(i.skipped_frames, 2);
        assert!(i.cdf().is_empty());
    }

    #[test]
    fn cdf__ascending_unique_sizes_ending_at_one() {
        let i = Inferred {
            sizes: vec![300, 100, 100, 200],
            ..Inferred::default()
        };
        assert_eq!(i.cdf(), [(100, 0.5), (200, 0.75), (300, 1.0)]);
    }
}
