//! The event-driven core of [`Fabric`]: sending, forwarding, queueing and delivery.

use rand::{RngExt, SeedableRng};

use super::config::{FabricConfig, FabricError};
use super::ideal;
use super::port::{Port, PortStats};
use super::topology::{HostId, Layout, PortKind, Topology};
use super::{Delivery, FabricPacket, FabricStats};
use crate::event::EventQueue;
use crate::rng::SimRng;
use crate::time::Ps;

/// Seed offset separating the impairment stream from the spraying stream.
const IMPAIR_STREAM: u64 = 0x6a09_e667_f3bc_c908;

/// FIFO lanes of the event queue for events scheduled a fixed delay after the current time.
const LANE_NIC_IN: usize = 0;
const LANE_ARRIVE: usize = 1;
const LANE_DELIVER: usize = 2;

#[derive(Debug)]
enum Event<P> {
    /// The packet leaves the sender's send delay and joins its NIC queue.
    NicIn(P),
    /// The packet on `port`'s wire has been fully transmitted.
    TxDone(usize),
    /// The packet is at the switch that owns `port` and joins that egress queue.
    Arrive(usize, P),
    /// The packet reaches host `.0`.
    Deliver(HostId, P),
}

/// A simulated network of hosts and switches carrying packets of type `P`.
#[derive(Debug)]
pub struct Fabric<P> {
    topology: Topology,
    config: FabricConfig,
    layout: Layout,
    ports: Vec<Port<P>>,
    events: EventQueue<Event<P>>,
    now: Ps,
    spray_rng: SimRng,
    impair_rng: SimRng,
    stats: FabricStats,
    /// Whether any impairment is configured (saves random draws when none is).
    impaired: bool,
}

impl<P: FabricPacket + Clone> Fabric<P> {
    /// Builds an idle fabric; fails naming the first invalid setting.
    pub fn new(topology: Topology, config: FabricConfig) -> Result<Self, FabricError> {
        topology.validate()?;
        config.validate()?;
        let layout = Layout::new(&topology);
        let ports = (0..layout.num_ports())
            .map(|i| {
                let kind = layout.kind(i);
                let rate = match kind {
                    PortKind::HostNic { .. } | PortKind::ToHost { .. } => config.host_link_bps,
                    PortKind::TorUp { .. } | PortKind::AggDown { .. } => config.core_link_bps,
                };
                Port::new(kind, rate)
            })
            .collect();
        let impaired =
            config.loss_rate > 0.0 || config.duplicate_rate > 0.0 || config.reorder_rate > 0.0;
        Ok(Self {
            topology,
            layout,
            ports,
            events: EventQueue::new(),
            now: 0,
            spray_rng: SimRng::seed_from_u64(config.seed),
            impair_rng: SimRng::seed_from_u64(config.seed ^ IMPAIR_STREAM),
            stats: FabricStats::default(),
            impaired,
            config,
        })
    }

    /// Number of hosts.
    pub fn num_hosts(&self) -> usize {
        self.layout.hosts
    }

    /// The fabric's shape.
    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// The fabric's parameters.
    pub fn config(&self) -> &FabricConfig {
        &self.config
    }

    /// The latest time passed to [`Self::advance`] (0 before the first call).
    pub fn now(&self) -> Ps {
        self.now
    }

    /// The host hands a packet to its NIC at `now` (now is never before the last advance; an
    /// earlier time is taken as the last advance). The packet joins the NIC of `packet.src()`
    /// after `host_tx_delay_ps`. A packet whose source or destination is not a host is dropped
    /// and counted in `invalid_packets`.
    pub fn host_send(&mut self, now: Ps, packet: P) {
        let (src, dst) = (packet.src(), packet.dst());
        if src >= self.layout.hosts || dst >= self.layout.hosts {
            self.stats.invalid_packets += 1;
            return;
        }
        let now = now.max(self.now);
        self.ports[self.layout.host_nic(src)].hold(u64::from(packet.wire_bytes()));
        self.stats.packets_sent += 1;
        let at = now.saturating_add(self.config.host_tx_delay_ps);
        self.events.push_fifo(LANE_NIC_IN, at, Event::NicIn(packet));
    }

    /// Bytes handed to `host`'s NIC and not yet fully serialized (in the send delay, queued or
    /// on the wire); 0 for an unknown host.
    pub fn host_backlog_bytes(&self, host: HostId) -> u64 {
        if host >= self.layout.hosts {
            return 0;
        }
        self.ports[self.layout.host_nic(host)].queued_bytes
    }

    /// Time of the next internal event (serialization end, arrival...), if any.
    pub fn next_event_time(&self) -> Option<Ps> {
        self.events.peek_time()
    }

    /// Processes every internal event with time <= `until`, appending packets delivered to
    /// hosts (after the receive delay) to `out` in delivery-time order.
    pub fn advance(&mut self, until: Ps, out: &mut Vec<Delivery<P>>) {
        while let Some((t, event)) = self.events.pop_until(until) {
            match event {
                Event::NicIn(packet) => {
                    let port = self.layout.host_nic(packet.src());
                    if self.config.pfabric && !self.nic_room(port, &packet) {
                        continue;
                    }
                    let priority = if self.config.nic_priorities && !self.config.pfabric {
                        packet.priority()
                    } else {
                        0
                    };
                    self.ports[port].enqueue(priority, packet);
                    self.start_if_idle(port, t);
                }
                Event::TxDone(port) => self.tx_done(port, t),
                Event::Arrive(port, packet) => self.arrive(port, t, packet),
                Event::Deliver(host, packet) => {
                    self.stats.packets_delivered += 1;
                    self.stats.bytes_delivered += u64::from(packet.wire_bytes());
                    out.push(Delivery {
                        time: t,
                        host,
                        packet,
                    });
                }
            }
        }
        self.now = self.now.max(until);
    }

    /// Counters so far.
    pub fn stats(&self) -> FabricStats {
        let mut stats = self.stats;
        for port in &self.ports {
            match port.kind {
                PortKind::HostNic { .. } => {
                    stats.max_host_backlog_bytes =
                        stats.max_host_backlog_bytes.max(port.max_queued_bytes);
                }
                _ => {
                    stats.max_switch_queue_bytes =
                        stats.max_switch_queue_bytes.max(port.max_queued_bytes);
                }
            }
        }
        stats
    }

    /// Counters of every egress port (host NICs first, see [`PortKind`]).
    pub fn port_stats(&self) -> Vec<PortStats> {
        self.ports.iter().map(Port::stats).collect()
    }

    /// Number of pending internal events (0 when the fabric holds no packet).
    pub fn pending_events(&self) -> usize {
        self.events.len()
    }

    /// Best-case one-way time on an idle fabric for a message sent as these frames back to back
    /// from src to dst (all frames of one message; exact store-and-forward pipeline over the
    /// path's links, plus host tx/rx delays, switch delays and propagation; cross-rack frames
    /// each cross the core uncontended, see the `ideal` module). 0 for no frames.
    pub fn ideal_delivery_ps(&self, src: HostId, dst: HostId, frame_wire_bytes: &[u32]) -> Ps {
        ideal::ideal_delivery_ps(&self.config, &self.topology, src, dst, frame_wire_bytes)
    }

    /// Puts the next queued packet of `port` on the wire if the wire is free.
    #[inline]
    fn start_if_idle(&mut self, port: usize, now: Ps) {
        let p = &mut self.ports[port];
        if p.on_wire.is_some() {
            return;
        }
        let next = if self.config.pfabric {
            p.dequeue_ranked()
        } else {
            p.dequeue()
        };
        if let Some(packet) = next {
            let done = now.saturating_add(p.serialization(u64::from(packet.wire_bytes())));
            p.on_wire = Some(packet);
            self.events.push(done, Event::TxDone(port));
        }
    }

    fn tx_done(&mut self, port: usize, now: Ps) {
        let p = &mut self.ports[port];
        let Some(packet) = p.on_wire.take() else {
            return;
        };
        let bytes = u64::from(packet.wire_bytes());
        p.queued_bytes = p.queued_bytes.saturating_sub(bytes);
        p.packets += 1;
        p.bytes += bytes;
        let kind = p.kind;
        self.stats.packet_hops += 1;
        let hop = self
            .config
            .link_delay_ps
            .saturating_add(self.config.switch_delay_ps);
        let dst = packet.dst();
        let next = match kind {
            PortKind::HostNic { host } => {
                if self.layout.aggs == 0 || self.layout.rack_of(dst) == self.layout.rack_of(host) {
                    self.layout.toward_host(dst)
                } else {
                    let agg = self.spray_rng.random_range(0..self.layout.aggs);
                    self.layout.tor_up(self.layout.rack_of(host), agg)
                }
            }
            PortKind::TorUp { agg, .. } => self.layout.agg_down(agg, self.layout.rack_of(dst)),
            PortKind::AggDown { .. } => self.layout.toward_host(dst),
            PortKind::ToHost { host } => {
                self.deliver(host, now, packet);
                self.start_if_idle(port, now);
                return;
            }
        };
        let at = now.saturating_add(hop);
        self.events
            .push_fifo(LANE_ARRIVE, at, Event::Arrive(next, packet));
        self.start_if_idle(port, now);
    }

    /// pFabric's host NIC holds at most `port_buffer_bytes` of packets waiting or on the
    /// wire too (those still in the send delay do not count): makes room by dropping waiting
    /// packets of a higher rank, or says to drop the packet itself (its bytes, held since
    /// `host_send`, are released).
    fn nic_room(&mut self, port: usize, packet: &P) -> bool {
        let Some(cap) = self.config.port_buffer_bytes else {
            return true;
        };
        let p = &mut self.ports[port];
        let bytes = u64::from(packet.wire_bytes());
        let used = p.enqueued_bytes();
        if used + bytes <= cap {
            return true;
        }
        match p.evict_for(bytes, packet.rank().0, used, cap) {
            Some(n) => {
                self.stats.buffer_drops += n;
                true
            }
            None => {
                p.queued_bytes -= u64::from(packet.wire_bytes());
                self.stats.buffer_drops += 1;
                false
            }
        }
    }

    fn arrive(&mut self, port: usize, now: Ps, mut packet: P) {
        let bytes = u64::from(packet.wire_bytes());
        let p = &mut self.ports[port];
        if let Some(cap) = self.config.port_buffer_bytes
            && p.queued_bytes.saturating_add(bytes) > cap
        {
            let evicted = match self.config.pfabric {
                true => p.evict_for(bytes, packet.rank().0, p.queued_bytes, cap),
                false => None,
            };
            match evicted {
                Some(n) => self.stats.buffer_drops += n,
                None => {
                    self.stats.buffer_drops += 1;
                    return;
                }
            }
        }
        if let Some(k) = self.config.ecn_mark_bytes
            && p.queued_bytes > k
            && packet.ecn_capable()
        {
            packet.mark_ce();
            self.stats.ecn_marks += 1;
        }
        p.hold(bytes);
        // pFabric keeps every packet in one queue, in arrival order.
        let priority = if self.config.pfabric {
            0
        } else {
            packet.priority()
        };
        p.enqueue(priority, packet);
        self.start_if_idle(port, now);
    }

    /// The last bit of `packet` reached `host` at `now`: apply impairments, schedule delivery.
    fn deliver(&mut self, host: HostId, now: Ps, packet: P) {
        let mut at = now
            .saturating_add(self.config.link_delay_ps)
            .saturating_add(self.config.host_rx_delay_ps);
        if self.impaired {
            let c = &self.config;
            if c.loss_rate > 0.0 && self.impair_rng.random_bool(c.loss_rate) {
                self.stats.injected_losses += 1;
                return;
            }
            if c.reorder_rate > 0.0 && self.impair_rng.random_bool(c.reorder_rate) {
                self.stats.injected_reorders += 1;
                at = at.saturating_add(c.reorder_delay_ps);
            }
            if c.duplicate_rate > 0.0 && self.impair_rng.random_bool(c.duplicate_rate) {
                self.stats.injected_duplicates += 1;
                let copy = Event::Deliver(host, packet.clone());
                self.events.push_fifo(LANE_DELIVER, at, copy);
            }
        }
        self.events
            .push_fifo(LANE_DELIVER, at, Event::Deliver(host, packet));
    }
}
