//! [`RtlNet`]: a few simulated hosts, each running the host stack applications link over its
//! own Verilated NIC ([`NicHost`]), joined by 100 Gb/s links through one router, in
//! simulated time. Application code drives each host's `homa_host::EndpointCore` between
//! steps of the simulation ([`RtlNet::run_until`]).
//!
//! The network is plain: each host's link to the router serializes its frames at line rate,
//! the router forwards after [`HOP_PS`], and delivers on the receiver's link at line rate;
//! nothing is lost or reordered (the cluster's fabric, `crate::fabric`, is the one with
//! priority queues and impairments).

use super::stack::NicHost;
use super::{NicError, NicOutput, NicTiming};
use crate::time::{Ps, SimClock};
use homa_proto::core::Config;
use homa_proto::wire::field::{ethernet as eth, ipv4};
use homa_proto::wire::{EtherType, EthernetAddress, EthernetRepr};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::net::{Ipv4Addr, SocketAddr};

/// The MAC address of the router every frame goes through.
pub const ROUTER_MAC: [u8; 6] = [0x02, 0, 0, 0xff, 0xff, 0xff];

/// Picoseconds a byte takes on a 100 Gb/s link.
const BYTE_PS: Ps = 80;

/// The router's forwarding latency (and the links' propagation), in picoseconds.
pub const HOP_PS: Ps = 250_000;

/// Preamble, FCS and inter-frame gap: the bytes a frame costs on the link beyond its own.
const FRAME_OVERHEAD: Ps = 24;

/// A frame on its way: (arrival, sequence number, receiving host, frame).
type OnWire = (Ps, u64, usize, Vec<u8>);

/// Simulated hosts over Verilated NICs (see the module notes).
#[derive(Debug)]
pub struct RtlNet {
    hosts: Vec<NicHost>,
    clock: SimClock,
    timing: NicTiming,
    now: Ps,
    /// Frames on their way to a host, earliest first.
    wire: BinaryHeap<Reverse<OnWire>>,
    sequence: u64,
    /// When each host's uplink and downlink are free.
    up_free: Vec<Ps>,
    down_free: Vec<Ps>,
    /// Frames for no host of the network (dropped).
    unroutable: u64,
    /// Failures of a host's transport.
    host_errors: u64,
}

impl RtlNet {
    /// `n` hosts, host `i` at 10.0.0.(i + 1) with MAC 02:00:00:00:00:(i + 1), each with an
    /// endpoint on `port` running protocol `homa` over its NIC (brought up by the driver's
    /// init, behind the PCIe model of `timing`).
    pub fn new(n: usize, homa: &Config, port: u16, timing: NicTiming) -> Result<Self, NicError> {
        let clock = SimClock::new();
        let mut hosts = Vec::with_capacity(n);
        for i in 0..n {
            let config = NicHost::nic_config(homa, Self::ipv4(i), Self::mac(i), ROUTER_MAC);
            hosts.push(NicHost::new(&config, homa, port, timing, clock.clone())?);
        }
        Ok(RtlNet {
            hosts,
            clock,
            timing,
            now: 0,
            wire: BinaryHeap::new(),
            sequence: 0,
            up_free: vec![0; n],
            down_free: vec![0; n],
            unroutable: 0,
            host_errors: 0,
        })
    }

    fn ipv4(i: usize) -> Ipv4Addr {
        Ipv4Addr::from(0x0a00_0001 + i as u32)
    }

    fn mac(i: usize) -> [u8; 6] {
        let [hi, lo] = (i as u16 + 1).to_be_bytes();
        [0x02, 0, 0, 0, hi, lo]
    }

    /// Host `i`'s endpoint address.
    pub fn addr(&self, i: usize) -> SocketAddr {
        self.hosts[i].core_ref().local_addr()
    }

    /// Host `i`.
    pub fn host(&mut self, i: usize) -> &mut NicHost {
        &mut self.hosts[i]
    }

    /// Host `i`, to look at.
    pub fn host_ref(&self, i: usize) -> &NicHost {
        &self.hosts[i]
    }

    /// The simulated time.
    pub fn now(&self) -> Ps {
        self.now
    }

    /// The NICs' timing.
    pub fn timing(&self) -> NicTiming {
        self.timing
    }

    /// Frames for no host of the network, and failures of a host's transport (both 0 in a
    /// sound run).
    pub fn faults(&self) -> (u64, u64) {
        (self.unroutable, self.host_errors)
    }

    /// Runs until `done` says so (it is called after every step, and may drive the hosts'
    /// endpoints: take deliveries, submit, reply), or until nothing is left to happen, or
    /// past `limit` of simulated time. `true` if `done` said so.
    pub fn run_until(&mut self, limit: Ps, mut done: impl FnMut(&mut RtlNet) -> bool) -> bool {
        loop {
            if done(self) {
                return true;
            }
            self.collect_control();
            if !self.step(limit) {
                return false;
            }
        }
    }

    /// Advances to the next event, at most to `limit`; `false` if there is none by then.
    fn step(&mut self, limit: Ps) -> bool {
        let next = [
            self.wire.peek().map(|Reverse(w)| w.0),
            self.hosts
                .iter()
                .filter_map(|h| h.nic().borrow().next_edge())
                .min(),
            self.hosts.iter().filter_map(NicHost::next_wakeup).min(),
        ]
        .into_iter()
        .flatten()
        .min();
        let Some(next) = next.filter(|t| *t <= limit) else {
            return false;
        };
        self.now = self.now.max(next);
        self.clock.set(self.now);
        while self.wire.peek().is_some_and(|Reverse(w)| w.0 <= self.now) {
            let Reverse((at, _, to, frame)) = self.wire.pop().expect("peeked");
            self.hosts[to].nic().borrow_mut().receive(at, frame);
        }
        let mut out = Vec::new();
        for i in 0..self.hosts.len() {
            self.hosts[i]
                .nic()
                .borrow_mut()
                .run_until(self.now, &mut out);
            for (at, o) in out.drain(..) {
                let (NicOutput::Grant { frame } | NicOutput::Data { frame }) = o;
                self.send(i, at, &frame[eth::HEADER_LEN..]);
            }
        }
        for i in 0..self.hosts.len() {
            if self.hosts[i].next_wakeup().is_some_and(|w| w <= self.now)
                && self.hosts[i].step(self.now).is_err()
            {
                self.host_errors += 1;
            }
        }
        true
    }

    /// The hosts' control packets start across PCIe to their links.
    fn collect_control(&mut self) {
        let at = self.now + self.timing.pcie_ps();
        let mut control = Vec::new();
        for i in 0..self.hosts.len() {
            self.hosts[i].take_control(&mut control);
            for (_, datagram) in control.drain(..) {
                self.send(i, at, &datagram);
            }
        }
    }

    /// Host `from` puts IP datagram `datagram` on its link at `at`: it reaches its
    /// destination's NIC after both links and the router.
    fn send(&mut self, from: usize, at: Ps, datagram: &[u8]) {
        let Some(dst) = datagram.get(ipv4::DST_ADDR) else {
            self.unroutable += 1;
            return;
        };
        let dst = Ipv4Addr::from(<[u8; 4]>::try_from(dst).expect("4 bytes"));
        let Some(to) = (0..self.hosts.len()).find(|&i| Self::ipv4(i) == dst) else {
            self.unroutable += 1;
            return;
        };
        let bytes = (eth::HEADER_LEN + datagram.len()).max(60) as Ps + FRAME_OVERHEAD;
        let sent = self.up_free[from].max(at) + bytes * BYTE_PS;
        self.up_free[from] = sent;
        let arrival = self.down_free[to].max(sent + HOP_PS) + bytes * BYTE_PS;
        self.down_free[to] = arrival;
        let header = EthernetRepr {
            src_addr: EthernetAddress(ROUTER_MAC),
            dst_addr: EthernetAddress(Self::mac(to)),
            vlan: None,
            ethertype: EtherType::IPV4,
        };
        let mut frame = vec![0; header.buffer_len() + datagram.len()];
        header.emit(&mut frame);
        frame[header.buffer_len()..].copy_from_slice(datagram);
        self.sequence += 1;
        self.wire.push(Reverse((arrival, self.sequence, to, frame)));
    }
}
