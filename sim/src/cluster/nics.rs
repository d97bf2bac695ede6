//! The `rtl` engine's part of the cluster: each host runs the host stack applications link
//! (`homa_host`'s endpoint over the driver) over a Verilated NIC between it and the fabric
//! ([`crate::nic::NicHost`]; see [`crate::nic`] for what is RTL and what is modelled).

use super::host::{SimPacket, addr_of, host_of};
use super::hosts::Host;
use crate::fabric::{FabricPacket, HostId};
use crate::nic::{NicCounters, NicError, NicTiming};
use crate::time::{Ps, SimClock};
use homa_proto::core::{Config, Packet, Transmit};
use homa_proto::wire::{self, ChecksumCapabilities, FrameRepr};
use std::collections::VecDeque;

/// Host `i`'s MAC address: 02:00:00:00:xx:xx with xx:xx = i + 1 (locally administered).
pub(crate) fn mac_of(i: HostId) -> [u8; 6] {
    let n = (i + 1) as u16;
    let [hi, lo] = n.to_be_bytes();
    [0x02, 0, 0, 0, hi, lo]
}

/// The switch's MAC: every host's next hop.
pub(crate) const SWITCH_MAC: [u8; 6] = [0x02, 0, 0, 0xff, 0xff, 0xff];

/// Which link a frame is on: its MAC addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hop {
    /// From the sending host to the switch.
    FromHost,
    /// From the switch to the receiving host.
    // Built by the rtl engine only (without Verilator it is never constructed).
    #[cfg_attr(not(homa_rtl), allow(dead_code))]
    ToHost,
}

/// The Ethernet frame of a packet on one hop.
pub(crate) fn frame_of(p: &SimPacket, hop: Hop) -> Vec<u8> {
    let t = Transmit {
        dst: addr_of(p.dst),
        priority: p.priority(),
        packet: p.packet.clone(),
    };
    let (dst, src) = match hop {
        Hop::FromHost => (SWITCH_MAC, mac_of(p.src)),
        Hop::ToHost => (mac_of(p.dst), SWITCH_MAC),
    };
    let ethernet = wire::EthernetRepr {
        src_addr: wire::EthernetAddress(src),
        dst_addr: wire::EthernetAddress(dst),
        vlan: None,
        ethertype: wire::EtherType::IPV4,
    };
    t.to_frame_bytes(addr_of(p.src), Some(ethernet))
}

/// A frame the hardware built (GRANT or DATA, `link` Ethernet) or a datagram the host sent
/// (`link` IP) as a fabric packet from host `from`.
#[cfg_attr(not(homa_rtl), allow(dead_code))]
pub(crate) fn fabric_packet(from: HostId, frame: &[u8], link: wire::LinkType) -> Option<SimPacket> {
    let caps = ChecksumCapabilities::default();
    let f = FrameRepr::parse(frame, link, &caps).ok()?;
    let dst = f.ip.dst_addr();
    let to = host_of(dst);
    let t = Transmit {
        dst,
        priority: f.priority(),
        packet: Packet::from_repr(&f.homa),
    };
    Some(SimPacket::new(from, to, t))
}

/// What the cluster keeps for its NICs: the PCIe model's queue of control packets, counts.
#[derive(Debug)]
pub(crate) struct Nics {
    pub(crate) timing: NicTiming,
    /// The hosts' clock: the cluster's time, set before each host acts.
    pub(crate) clock: SimClock,
    /// Per host: control packets the host sent (the NIC does not frame them), with the time
    /// they reach the wire.
    pub(crate) to_wire: Vec<VecDeque<(Ps, SimPacket)>>,
    /// Frames the hardware built, or datagrams a host sent, that did not parse (must stay 0).
    pub(crate) bad_frames: u64,
    /// Failures of a host's transport (must stay 0).
    pub(crate) host_errors: u64,
}

impl Nics {
    /// One host stack and NIC per host, the NICs programmed from the engine's configuration
    /// by the driver's init, every engine bound to `port`.
    #[cfg(homa_rtl)]
    pub(crate) fn hosts(
        n: usize,
        homa: &Config,
        port: u16,
        timing: NicTiming,
    ) -> Result<(Nics, Vec<Host>), NicError> {
        let clock = SimClock::new();
        let mut hosts = Vec::with_capacity(n);
        for i in 0..n {
            let std::net::IpAddr::V4(ipv4) = addr_of(i) else {
                unreachable!("cluster hosts are IPv4")
            };
            let config = crate::nic::NicHost::nic_config(homa, ipv4, mac_of(i), SWITCH_MAC);
            let host = crate::nic::NicHost::new(&config, homa, port, timing, clock.clone())?;
            hosts.push(Host::Nic(Box::new(host)));
        }
        let nics = Nics {
            timing,
            clock,
            to_wire: (0..n).map(|_| VecDeque::new()).collect(),
            bad_frames: 0,
            host_errors: 0,
        };
        Ok((nics, hosts))
    }

    /// Without Verilator there is no NIC to simulate.
    #[cfg(not(homa_rtl))]
    pub(crate) fn hosts(
        _n: usize,
        _homa: &Config,
        _port: u16,
        _timing: NicTiming,
    ) -> Result<(Nics, Vec<Host>), NicError> {
        Err(NicError::NotBuilt)
    }
}

impl super::Cluster {
    /// The earliest clock edge any NIC needs.
    pub(super) fn next_nic_edge(&self) -> Option<Ps> {
        #[cfg(homa_rtl)]
        {
            self.hosts
                .iter()
                .filter_map(|h| match h {
                    Host::Nic(n) => n.nic().borrow().next_edge(),
                    Host::Bare(_) => None,
                })
                .min()
        }
        #[cfg(not(homa_rtl))]
        None
    }

    /// A packet from the fabric reaches host `h`'s NIC at `at`.
    pub(super) fn nic_receive(&mut self, at: Ps, h: HostId, p: &SimPacket) {
        #[cfg(homa_rtl)]
        if let Host::Nic(n) = &self.hosts[h] {
            n.nic().borrow_mut().receive(at, frame_of(p, Hop::ToHost));
        }
        #[cfg(not(homa_rtl))]
        let _ = (at, h, p);
    }

    /// Clocks every NIC up to `now`: its GRANT and DATA frames go on the wire; its host wakes
    /// when the NIC's DMA writes land in host memory.
    pub(super) fn run_nics(&mut self, now: Ps) {
        #[cfg(homa_rtl)]
        for h in 0..self.hosts.len() {
            let Host::Nic(n) = &self.hosts[h] else {
                continue;
            };
            let mut out = std::mem::take(&mut self.nic_out);
            let landing = {
                let mut nic = n.nic().borrow_mut();
                nic.run_until(now, &mut out);
                nic.next_landing()
            };
            for (t, o) in out.drain(..) {
                let (crate::nic::NicOutput::Data { frame }
                | crate::nic::NicOutput::Grant { frame }) = o;
                match fabric_packet(h, &frame, wire::LinkType::Ethernet) {
                    Some(packet) => {
                        if let Some(super::Capture(sink)) = &mut self.capture {
                            sink(t, &frame);
                        }
                        self.fabric.host_send(t, packet);
                    }
                    None => {
                        if let Some(nics) = &mut self.nics {
                            nics.bad_frames += 1;
                        }
                    }
                }
            }
            self.nic_out = out;
            if let Some(at) = landing {
                self.wake_at(h, at);
            }
        }
        let _ = now;
    }

    /// Clocks the NICs until each has finished what it was doing (their last frames reach
    /// the wire), so that their counters agree with the capture. Nothing is delivered.
    pub(super) fn settle_nics(&mut self) {
        while let Some(edge) = self.next_nic_edge() {
            self.run_nics(edge);
        }
    }

    /// Host `h` (a NIC host) acts at the cluster's time: it takes what its NIC wrote, runs
    /// its timers, and its deliveries go to the cluster; its control packets start across
    /// PCIe to the wire; its next wake-up is scheduled.
    #[cfg(homa_rtl)]
    pub(super) fn drain_nic_host(&mut self, h: HostId, now: homa_proto::core::Instant) {
        use homa_host::Delivery;
        let now_ps = self.now;
        // A host that waits for a register read's answer does nothing else until it comes:
        // it acts then, on all that came meanwhile.
        let busy = self.hosts[h].busy_until();
        if busy > now_ps {
            self.wake_at(h, busy);
            return;
        }
        let mut deliveries = Vec::new();
        if let Host::Nic(n) = &mut self.hosts[h] {
            if n.step(now_ps).is_err()
                && let Some(nics) = &mut self.nics
            {
                nics.host_errors += 1;
            }
            while let Some(d) = n.core().next_delivery() {
                deliveries.push(d);
            }
        }
        for d in deliveries {
            match d {
                Delivery::Request(r) => {
                    let req = homa_proto::core::Request {
                        peer: r.peer,
                        local_port: super::SERVER_PORT,
                        id: r.id,
                        message: homa_proto::core::Message::from_bytes(r.payload),
                    };
                    if self.ping.is_some() {
                        self.ping_request(h, now, req);
                    } else {
                        self.delivered(h, req.peer.ip(), req.id, &req.message);
                    }
                }
                Delivery::Response { id, outcome: Ok(m) } => {
                    self.ping_response(id, &homa_proto::core::Message::from_bytes(m));
                }
                Delivery::Response {
                    id,
                    outcome: Err(_),
                } => self.failed(h, id),
            }
        }
        self.after_nic_host(h);
    }

    /// What host `h` did since it last acted: its control packets start across PCIe to the
    /// wire, and its next wake-up is scheduled (nothing for a bare host).
    pub(super) fn after_nic_host(&mut self, h: HostId) {
        #[cfg(homa_rtl)]
        if let Host::Nic(n) = &self.hosts[h] {
            let mut control = Vec::new();
            n.take_control(&mut control);
            let wakeup = n.next_wakeup();
            if let Some(nics) = &mut self.nics {
                let at = self.now + nics.timing.pcie_ps();
                for (_, datagram) in control {
                    match fabric_packet(h, &datagram, wire::LinkType::Ip) {
                        Some(p) => nics.to_wire[h].push_back((at, p)),
                        None => nics.bad_frames += 1,
                    }
                }
                if !nics.to_wire[h].is_empty() {
                    self.timers.push(at, super::Timer::ToWire(h));
                }
            }
            if let Some(at) = wakeup {
                self.wake_at(h, at);
            }
        }
        let _ = h;
    }

    /// What host `h` posted that reaches the wire by `now`.
    pub(super) fn nic_to_wire(&mut self, h: HostId, now: Ps) {
        loop {
            let Some(nics) = &mut self.nics else {
                return;
            };
            if nics.to_wire[h].front().is_none_or(|(t, _)| *t > now) {
                return;
            }
            let (_, packet) = nics.to_wire[h].pop_front().expect("peeked");
            self.wire_send(now, packet, None);
        }
    }
}

impl super::Cluster {
    /// What the NICs did, from their counters and registers, and their hosts' transports
    /// (`None` without NICs).
    pub(super) fn nic_report(&mut self) -> Option<super::NicReport> {
        let nics = self.nics.as_ref()?;
        let (timing, bad_frames, host_errors) = (nics.timing, nics.bad_frames, nics.host_errors);
        #[allow(unused_mut)]
        let mut c = NicCounters::default();
        #[allow(unused_mut)]
        let mut host = homa_host::NicStats::default();
        #[allow(unused_mut)]
        let mut regs: Vec<Vec<u64>> = Vec::new();
        const REGS: [(&str, &str); 18] = [
            ("RX", "frames_ok"),
            ("RX", "dropped_runt"),
            ("RX", "dropped_bad_checksum"),
            ("RX", "dropped_not_homa"),
            ("RX", "dropped_bad_type"),
            ("RX", "dropped_bad_length"),
            ("GRANT", "grants_sent"),
            ("GRANT", "table_full"),
            ("GRANT", "collisions"),
            ("GRANT", "holes_forgotten"),
            ("GRANT", "releases"),
            ("RX", "rx_data"),
            ("RX", "dropped_no_buffer"),
            ("TX", "packets_sent"),
            ("TX", "grants_unmatched"),
            ("TX", "grants_dropped"),
            ("TX", "park_collisions"),
            ("GRANT", "fifo_grants"),
        ];
        #[cfg(homa_rtl)]
        for h in &self.hosts {
            let Host::Nic(n) = h else { continue };
            let mut nic = n.nic().borrow_mut();
            let k = nic.counters();
            c.frames_in += k.frames_in;
            c.grants += k.grants;
            c.data_frames += k.data_frames;
            c.parse_mismatches += k.parse_mismatches;
            c.cycles += k.cycles;
            c.dma_faults += k.dma_faults;
            c.mac_drops += k.mac_drops;
            c.bus_reads += k.bus_reads;
            c.bus_writes += k.bus_writes;
            c.pushes += k.pushes;
            let s = n.stats();
            host.packets += s.packets;
            host.acks_not_carried += s.acks_not_carried;
            host.buffer_errors += s.buffer_errors;
            host.bad += s.bad;
            host.tx_descriptors += s.tx_descriptors;
            host.retransmits_covered += s.retransmits_covered;
            host.tx_errors += s.tx_errors;
            let mut row: Vec<u64> = REGS
                .iter()
                .map(|(b, r)| nic.read_register(b, r).map_or(u64::MAX, u64::from))
                .collect();
            row.push(
                nic.read_register("TX", "parked_most")
                    .map_or(u64::MAX, u64::from),
            );
            regs.push(row);
        }
        let sum = |i: usize| -> u64 {
            regs.iter()
                .map(|r| r[i])
                .fold(0u64, |a, v| a.saturating_add(v))
        };
        let (grant_fallbacks, grant_fallbacks_silent, software_grants) = self.host_grants();
        let r = super::NicReport {
            core: format!("homa_nic_core_w{}", 8 * timing.beat_bytes),
            clock_mhz: timing.clock_mhz,
            pcie_ns: timing.pcie_ns,
            cycles: c.cycles,
            frames_in: c.frames_in,
            to_host: host.packets,
            frames_ok: sum(0),
            frames_dropped: (1..=5).map(sum).fold(0u64, u64::saturating_add),
            grants_sent: sum(6),
            fifo_grants: sum(17),
            table_full: sum(7),
            collisions: sum(8),
            holes_forgotten: sum(9),
            releases: sum(10),
            grant_fallbacks,
            grant_fallbacks_silent,
            software_grants,
            parse_mismatches: c.parse_mismatches + bad_frames + host.bad + host_errors,
            rx_dma: sum(11),
            rx_no_buffer: sum(12),
            dma_faults: c.dma_faults,
            mac_drops: c.mac_drops,
            acks_not_carried: host.acks_not_carried,
            data_frames: sum(13),
            grants_unmatched: sum(14),
            grants_dropped: sum(15),
            park_collisions: sum(16),
            parked_most: regs.iter().map(|r| r[18]).max().unwrap_or(0),
            tx_descriptors: host.tx_descriptors,
            retransmits_covered: host.retransmits_covered,
            tx_errors: host.tx_errors + host.buffer_errors,
            bus_reads: c.bus_reads,
            bus_writes: c.bus_writes,
            pushes: c.pushes,
        };
        Some(r)
    }
}
