//! The `rtl` engine's part of the cluster: one Verilated NIC per host between the host's
//! engine and the fabric (see [`crate::nic`] for what is RTL and what is modelled).

use super::host::{SimPacket, addr_of, host_of};
use crate::fabric::{FabricPacket, HostId};
use crate::nic::{NicCounters, NicError, NicTiming};
use crate::time::Ps;
use homa_proto::core::{Config, Packet, Transmit};
use homa_proto::wire::{self, ChecksumCapabilities, FrameRepr, Repr};
use std::collections::VecDeque;
use std::net::IpAddr;

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

/// Something on its way from a NIC to its host's engine (built by the rtl engine only).
#[derive(Debug)]
#[cfg_attr(not(homa_rtl), allow(dead_code))]
pub(crate) enum ToHost {
    /// A received packet.
    Packet(IpAddr, Packet),
    /// A GRANT the NIC sent to `peer`.
    Granted(IpAddr, Repr<'static>),
    /// The NIC finished a TX descriptor (its `TX_DONE` or `ERROR` completion).
    #[cfg(homa_rtl)]
    Sent(homa_driver::Released),
}

/// A frame the hardware built (GRANT or DATA) as a fabric packet, its destination and its
/// header (what the host learns of a GRANT).
#[cfg_attr(not(homa_rtl), allow(dead_code))]
pub(crate) fn frame_packet(
    from: HostId,
    frame: &[u8],
) -> Option<(SimPacket, IpAddr, Repr<'static>)> {
    let caps = ChecksumCapabilities::default();
    let f = FrameRepr::parse(frame, wire::LinkType::Ethernet, &caps).ok()?;
    let dst = f.ip.dst_addr();
    let to = host_of(dst);
    let packet = Packet::from_repr(&f.homa);
    let header = packet.header;
    let t = Transmit {
        dst,
        priority: f.priority(),
        packet,
    };
    Some((SimPacket::new(from, to, t), dst, header))
}

/// The NICs of all hosts and the PCIe queues between them and the engines.
#[derive(Debug)]
pub(crate) struct Nics {
    #[cfg(homa_rtl)]
    pub(crate) nics: Vec<crate::nic::RtlNic>,
    pub(crate) timing: NicTiming,
    /// Per host: what is crossing PCIe to the engine, with its arrival time.
    pub(crate) to_host: Vec<VecDeque<(Ps, ToHost)>>,
    /// Per host: what the engine posted, with the time it reaches the wire.
    pub(crate) to_wire: Vec<VecDeque<(Ps, SimPacket)>>,
    /// Frames the hardware built that did not parse (must stay 0).
    pub(crate) bad_frames: u64,
    /// Per host: its TX descriptors (the engines hand their messages to the NICs).
    #[cfg(homa_rtl)]
    pub(crate) tx: Vec<super::nic_tx::TxSide>,
}

impl Nics {
    /// One NIC per host, programmed from the engine's configuration.
    #[cfg(homa_rtl)]
    pub(crate) fn new(n: usize, homa: &Config, timing: NicTiming) -> Result<Nics, NicError> {
        let mut nics = Vec::with_capacity(n);
        for i in 0..n {
            let mut c = homa_driver::NicConfig::from(homa);
            c.mac = mac_of(i);
            c.gateway_mac = SWITCH_MAC;
            c.ipv4 = match addr_of(i) {
                IpAddr::V4(v4) => v4,
                IpAddr::V6(_) => unreachable!("cluster hosts are IPv4"),
            };
            nics.push(crate::nic::RtlNic::new(&c, timing)?);
        }
        let tx = nics
            .iter_mut()
            .map(super::nic_tx::TxSide::new)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Nics {
            nics,
            tx,
            timing,
            to_host: (0..n).map(|_| VecDeque::new()).collect(),
            to_wire: (0..n).map(|_| VecDeque::new()).collect(),
            bad_frames: 0,
        })
    }

    /// Without Verilator there is no NIC to simulate.
    #[cfg(not(homa_rtl))]
    pub(crate) fn new(_n: usize, _homa: &Config, _timing: NicTiming) -> Result<Nics, NicError> {
        Err(NicError::NotBuilt)
    }

    /// The earliest clock edge any NIC needs.
    pub(crate) fn next_edge(&self) -> Option<Ps> {
        #[cfg(homa_rtl)]
        {
            self.nics.iter().filter_map(|n| n.next_edge()).min()
        }
        #[cfg(not(homa_rtl))]
        None
    }

    /// The counters of every NIC, summed.
    pub(crate) fn counters(&self) -> NicCounters {
        #[allow(unused_mut)]
        let mut sum = NicCounters::default();
        #[cfg(homa_rtl)]
        for n in &self.nics {
            let c = n.counters();
            sum.frames_in += c.frames_in;
            sum.to_host += c.to_host;
            sum.grants += c.grants;
            sum.parse_mismatches += c.parse_mismatches;
            sum.cycles += c.cycles;
            sum.rx_completions += c.rx_completions;
            sum.rx_errors += c.rx_errors;
            sum.rx_lost += c.rx_lost;
            sum.dma_faults += c.dma_faults;
            sum.mac_drops += c.mac_drops;
            sum.acks_not_carried += c.acks_not_carried;
            sum.data_frames += c.data_frames;
        }
        sum
    }

    /// One register (`block.name`) of every NIC, read over their register buses (none
    /// without NICs).
    pub(crate) fn register_values(
        &mut self,
        block: &'static str,
        name: &str,
    ) -> Result<Vec<u64>, NicError> {
        #[allow(unused_mut)]
        let mut values = Vec::new();
        #[cfg(homa_rtl)]
        for n in &mut self.nics {
            values.push(u64::from(n.read_register(block, name)?));
        }
        let _ = (block, name);
        Ok(values)
    }
}

impl Nics {
    /// Host `h`'s engine has the whole inbound message `id` (as its DATA carry it) of
    /// `length` bytes from `peer`: the driver releases it in the NIC, one PCIe crossing later.
    pub(crate) fn release(&mut self, at: Ps, h: HostId, peer: IpAddr, id: u64, length: u32) {
        #[cfg(homa_rtl)]
        if let IpAddr::V4(peer) = peer {
            let at = at + self.timing.pcie_ps();
            // The cluster's NICs have their host here, and the GRANT registers are in the map
            // the driver probed: the simulated device takes these writes.
            let _ = self.nics[h].release(at, peer, id, length);
        }
        #[cfg(not(homa_rtl))]
        let _ = (at, h, peer, id, length);
    }

    /// A packet from the fabric reaches host `h`'s NIC at `at`.
    pub(crate) fn receive(&mut self, at: Ps, h: HostId, p: &SimPacket) {
        #[cfg(homa_rtl)]
        self.nics[h].receive(at, frame_of(p, Hop::ToHost));
        #[cfg(not(homa_rtl))]
        let _ = (at, h, p);
    }
}

impl super::Cluster {
    /// Clocks every NIC up to `now`: received packets and GRANT reports start across PCIe,
    /// GRANT frames go on the wire.
    pub(super) fn run_nics(&mut self, now: Ps) {
        let Some(nics) = &mut self.nics else {
            return;
        };
        let pcie = nics.timing.pcie_ps();
        #[cfg(homa_rtl)]
        for h in 0..nics.nics.len() {
            let mut out = std::mem::take(&mut self.nic_out);
            nics.nics[h].run_until(now, &mut out);
            let mut sent = Vec::new();
            nics.tx_progress(h, now, &mut sent);
            for (t, o) in out.drain(..) {
                match o {
                    crate::nic::NicOutput::Host { src, packet } => {
                        nics.to_host[h].push_back((t + pcie, ToHost::Packet(src, packet)));
                    }
                    crate::nic::NicOutput::Data { frame } => match frame_packet(h, &frame) {
                        Some((packet, _, _)) => {
                            if let Some(super::Capture(sink)) = &mut self.capture {
                                sink(t, &frame);
                            }
                            self.fabric.host_send(t, packet);
                        }
                        None => nics.bad_frames += 1,
                    },
                    crate::nic::NicOutput::Grant { frame } => match frame_packet(h, &frame) {
                        Some((packet, peer, header)) => {
                            let capture = &mut self.capture;
                            if let Some(super::Capture(sink)) = capture {
                                sink(t, &frame);
                            }
                            self.fabric.host_send(t, packet);
                            nics.to_host[h].push_back((t + pcie, ToHost::Granted(peer, header)));
                        }
                        None => nics.bad_frames += 1,
                    },
                }
                self.timers.push(t + pcie, super::Timer::ToHost(h));
            }
            if !sent.is_empty() {
                // The completions reach the host one PCIe crossing later (after the packets
                // above: this queue is in time order).
                for r in sent {
                    nics.to_host[h].push_back((now + pcie, ToHost::Sent(r)));
                }
                self.timers.push(now + pcie, super::Timer::ToHost(h));
            }
            self.nic_out = out;
        }
        let _ = (now, pcie);
    }

    /// Clocks the NICs until each has finished what it was doing (their last GRANT frames
    /// reach the wire), so that their counters agree with the capture. Nothing is delivered.
    pub(super) fn settle_nics(&mut self) {
        while let Some(edge) = self.nics.as_ref().and_then(|n| n.next_edge()) {
            self.run_nics(edge);
        }
    }

    /// What crossed PCIe to host `h`'s engine by `now`.
    pub(super) fn nic_to_host(&mut self, h: HostId, now: Ps, now_ns: homa_proto::core::Instant) {
        let Some(nics) = &mut self.nics else {
            return;
        };
        while nics.to_host[h].front().is_some_and(|(t, _)| *t <= now) {
            let (_, item) = nics.to_host[h].pop_front().expect("peeked");
            match item {
                ToHost::Packet(src, packet) => self.hosts[h].handle_packet(now_ns, src, packet),
                ToHost::Granted(peer, header) => self.hosts[h].note_offloaded_grant(peer, &header),
                #[cfg(homa_rtl)]
                ToHost::Sent(r) => self.hosts[h].offload_sent(r.peer, r.id, r.op),
            }
        }
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
    /// What the NICs did, from their counters and registers (`None` without NICs).
    pub(super) fn nic_report(&mut self) -> Option<super::NicReport> {
        let nics = self.nics.as_mut()?;
        let c = nics.counters();
        let bad_frames = nics.bad_frames;
        let parked_most = nics
            .register_values("TX", "parked_most")
            .map_or(u64::MAX, |v| v.into_iter().max().unwrap_or(0));
        let mut reg = |block, name| {
            nics.register_values(block, name)
                .map_or(u64::MAX, |v| v.into_iter().sum())
        };
        let dropped = [
            "dropped_runt",
            "dropped_bad_checksum",
            "dropped_not_homa",
            "dropped_bad_type",
            "dropped_bad_length",
        ]
        .iter()
        .map(|n| reg("RX", n))
        .sum();
        let mut r = super::NicReport {
            clock_mhz: 0,
            pcie_ns: 0,
            cycles: c.cycles,
            frames_in: c.frames_in,
            to_host: c.to_host,
            frames_ok: reg("RX", "frames_ok"),
            frames_dropped: dropped,
            grants_sent: reg("GRANT", "grants_sent"),
            table_full: reg("GRANT", "table_full"),
            collisions: reg("GRANT", "collisions"),
            holes_forgotten: reg("GRANT", "holes_forgotten"),
            releases: reg("GRANT", "releases"),
            grant_fallbacks: self.hosts.iter().map(|h| h.metrics().grant_fallbacks).sum(),
            software_grants: self
                .hosts
                .iter()
                .map(|h| h.metrics().sent_of(wire::PacketType::Grant))
                .sum(),
            parse_mismatches: c.parse_mismatches + bad_frames,
            rx_dma: reg("RX", "rx_data"),
            rx_no_buffer: reg("RX", "dropped_no_buffer"),
            dma_faults: c.dma_faults,
            mac_drops: c.mac_drops,
            acks_not_carried: c.acks_not_carried,
            data_frames: reg("TX", "packets_sent"),
            grants_unmatched: reg("TX", "grants_unmatched"),
            grants_dropped: reg("TX", "grants_dropped"),
            park_collisions: reg("TX", "park_collisions"),
            parked_most,
            tx_descriptors: 0,
            retransmits_covered: 0,
            tx_errors: 0,
        };
        #[cfg(homa_rtl)]
        for tx in &nics.tx {
            r.tx_descriptors += tx.descriptors;
            r.retransmits_covered += tx.covered;
            r.tx_errors += tx.errors;
        }
        r.clock_mhz = nics.timing.clock_mhz;
        r.pcie_ns = nics.timing.pcie_ns;
        Some(r)
    }
}
