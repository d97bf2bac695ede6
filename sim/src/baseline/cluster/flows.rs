//! pFabric's flows in the baseline cluster: one per message, sent, acknowledged and timed
//! out through [`super::super::pfabric`].

use super::{BaselineCluster, Timer};
use crate::baseline::packet::{Body, TcpPacket};
use crate::baseline::pfabric::{FlowReceiver, FlowSender};
use crate::baseline::tcp::Segment;
use crate::fabric::HostId;
use crate::time::Ps;

/// A pFabric flow: one message.
#[derive(Debug)]
pub(super) struct Flow {
    pub(super) src: HostId,
    pub(super) dst: HostId,
    pub(super) sender: FlowSender,
    pub(super) receiver: FlowReceiver,
    /// The time a `Timer::FlowRto` is queued for, if any.
    pub(super) timer_at: Option<Ps>,
}

impl BaselineCluster {
    /// Sends what flow `message` may send now and re-arms its timer.
    pub(super) fn flow_poll(&mut self, message: u64) {
        let Some(f) = self.flows.get_mut(&message) else {
            return;
        };
        f.sender.poll(self.now, &mut self.flow_packets);
        self.flow_flush(message);
    }

    /// Puts the packets flow `message` produced on the wire, re-arms its timer, and forgets
    /// the flow once both ends are done.
    pub(super) fn flow_flush(&mut self, message: u64) {
        let Some(f) = self.flows.get_mut(&message) else {
            return;
        };
        let mss = u64::from(self.config.pfabric.mss);
        for fp in self.flow_packets.drain(..) {
            let p = TcpPacket {
                src: f.src,
                dst: f.dst,
                conn: 0,
                flow: message,
                rank: fp.rank,
                priority: 0,
                body: Body::Data(Segment {
                    seq: u64::from(fp.index) * mss,
                    len: fp.len,
                }),
                ect: false,
                ce: false,
            };
            self.fabric.host_send(self.now, p);
        }
        if f.sender.is_done() && f.receiver.is_complete() {
            let f = self.flows.remove(&message).expect("present");
            self.flow_counts.0 += f.sender.sent;
            self.flow_counts.1 += f.sender.resent;
            self.flow_counts.2 += f.sender.timeouts;
            return;
        }
        if let Some(d) = f.sender.deadline()
            && f.timer_at.is_none_or(|at| d < at)
        {
            f.timer_at = Some(d);
            self.timers.push(d, Timer::FlowRto(message));
        }
    }

    /// A pFabric packet reached `host`.
    pub(super) fn flow_receive(&mut self, host: HostId, p: TcpPacket) {
        let message = p.flow;
        let Some(f) = self.flows.get_mut(&message) else {
            return;
        };
        let mss = u64::from(self.config.pfabric.mss);
        match p.body {
            Body::Data(seg) => {
                let index = (seg.seq / mss) as u32;
                let complete = f.receiver.on_packet(index);
                self.acks += 1;
                let ack = TcpPacket {
                    src: host,
                    dst: p.src,
                    conn: 0,
                    flow: message,
                    rank: 0,
                    priority: 0,
                    body: Body::Ack {
                        ack: u64::from(index),
                        ece: false,
                    },
                    ect: false,
                    ce: false,
                };
                self.fabric.host_send(self.now, ack);
                if complete {
                    self.complete(message);
                    self.flow_flush(message);
                }
            }
            Body::Ack { ack, .. } => {
                f.sender.on_ack(self.now, ack as u32);
                self.flow_poll(message);
            }
        }
    }
}
