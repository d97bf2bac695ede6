//! [`RtlHost`]: a host whose NIC is the Verilated core, for application code written against
//! `homa_host`: its endpoint's transport is a `homa_host::NicTransport` over the driver, with
//! transmit offload, and the core runs on its own thread, fed at line rate the frames an
//! in-process network (`homa_host::MemNetwork`) brings to the host's address; the frames the
//! core builds (its GRANTs, and the DATA of every message the endpoint sends: the transport
//! posts TX descriptors, the core reads their payloads by DMA) go back onto that network. The
//! endpoint hears of its packets only through the completion ring the core writes by DMA into
//! host memory, as on a host with the FPGA NIC; its control packets (RESEND, ACK, its own
//! GRANTs) go onto the network directly.
//!
//! Simulated NIC time runs as fast as the model does (tens of thousands of cycles per second
//! of wall time), far slower than the endpoints' wall clock: give the endpoints generous
//! timers ([`RtlHost::endpoint_config`]).

use super::{NicCounters, NicError, NicOutput, NicTiming, RtlNic};
use bytes::Bytes;
use homa_driver::{MemDevice, Nic, NicConfig};
use homa_host::{Config, MemNetwork, NicTransport, Transport};
use homa_proto::wire::field::{ethernet as eth, ipv4};
use homa_proto::wire::{EtherType, EthernetAddress, EthernetRepr};
use std::net::{IpAddr, Ipv4Addr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::thread::{self, JoinHandle};
use std::time::Duration;

/// NIC time simulated per step of the NIC thread (1000 cycles at 250 MHz).
const STEP_PS: u64 = 4_000_000;

/// Picoseconds a byte takes on the NIC's 100 Gb/s link: frames that reach the thread
/// together arrive at the MAC one after the other, at line rate.
const BYTE_PS: u64 = 80;

/// The MAC address of the router every frame comes through (an L3 fabric).
const ROUTER_MAC: [u8; 6] = [0x02, 0, 0, 0xff, 0xff, 0xff];

/// What the NIC thread reports when it stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RtlHostReport {
    /// The NIC's counters.
    pub counters: NicCounters,
    /// GRANT `releases`: messages the host released in the table.
    pub releases: u32,
    /// GRANT `messages_tracked`: messages still competing for grants.
    pub messages_tracked: u32,
    /// TX `messages_queued`: outbound messages the transmit engine still holds.
    pub tx_queued: u32,
    /// TX `grants_unmatched`: GRANTs for no message the engine held.
    pub grants_unmatched: u32,
}

/// The NIC thread of a host (see the module doc). Dropping it stops the thread.
#[derive(Debug)]
pub struct RtlHost {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<Result<RtlHostReport, NicError>>>,
}

impl RtlHost {
    /// A host at `addr` on `net`: the transport for its endpoint and the NIC's thread. The
    /// NIC is brought up by the driver's own code (`NicConfig` with `addr` and a MAC of
    /// `02:00:00:00:00:01`); `timing` sets its clock and PCIe latency.
    pub fn spawn(
        net: &MemNetwork,
        addr: Ipv4Addr,
        timing: NicTiming,
    ) -> Result<(NicTransport<Arc<MemDevice>>, RtlHost), NicError> {
        let cfg = NicConfig {
            ipv4: addr,
            mac: [0x02, 0, 0, 0, 0, 0x01],
            gateway_mac: ROUTER_MAC,
            ..NicConfig::default()
        };
        let port = Arc::new(net.attach(IpAddr::V4(addr)).map_err(NicError::Attach)?);
        let wire = Arc::clone(&port);
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let (give, take) = mpsc::channel::<Result<Nic<Arc<MemDevice>>, NicError>>();
        let thread = thread::spawn(move || {
            let (nic, host) = match RtlNic::with_driver(&cfg, timing) {
                Ok(up) => up,
                Err(e) => {
                    let _ = give.send(Err(e));
                    return Err(NicError::Thread("never brought the NIC up"));
                }
            };
            // The caller waits for the driver; if it has gone, nothing else would run.
            if give.send(Ok(host)).is_err() {
                return Err(NicError::Thread("lost its host"));
            }
            run(nic, cfg.mac, &wire, &stopped)
        });
        let host = take
            .recv()
            .map_err(|_| NicError::Thread("ended before handing over its driver"))??;
        let transport =
            NicTransport::with_tx_offload(host, Box::new(port), 0).map_err(NicError::Transport)?;
        let rtl = RtlHost {
            stop,
            thread: Some(thread),
        };
        Ok((transport, rtl))
    }

    /// Timers for endpoints that talk to a NIC far slower than the wall clock: RESEND, and a
    /// server's NEED_ACK, after 300 ms; give up after 20 s. The NIC thread clocks the core
    /// 1000 cycles (4 µs of NIC time) per step, tens of milliseconds of wall time, so a
    /// GRANT's round trip through it takes tens of milliseconds and a 1 MB message seconds;
    /// shorter timers would have the receiver ask again for bytes on their way (a NEED_ACK
    /// to a client still receiving is answered with RESENDs), and the NIC, which sends a
    /// RETRANSMIT at once, would spend its time sending them twice.
    pub fn endpoint_config() -> Config {
        Config {
            tick_usecs: 1_000,
            resend_ticks: 300,
            resend_interval: 300,
            request_ack_ticks: 300,
            timeout_ticks: 20_000,
            ..Config::default()
        }
    }

    /// Stops the NIC thread (after the host's last register writes reach the core) and
    /// reports what the NIC did.
    pub fn stop(mut self) -> Result<RtlHostReport, NicError> {
        self.stop.store(true, Ordering::Release);
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(report)) => report,
            Some(Err(_)) => Err(NicError::Thread("panicked")),
            None => Err(NicError::Thread("was already stopped")),
        }
    }
}

impl Drop for RtlHost {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The NIC thread: the network's frames onto the link at line rate, the core clocked in
/// steps of [`STEP_PS`], its GRANT and DATA frames back onto the network.
fn run(
    mut nic: RtlNic,
    mac: [u8; 6],
    wire: &impl Transport,
    stop: &AtomicBool,
) -> Result<RtlHostReport, NicError> {
    let (mut t, mut link_free) = (0u64, 0u64);
    let mut link = std::collections::VecDeque::new();
    let mut out = Vec::new();
    while !stop.load(Ordering::Acquire) {
        // Everything the network has brought (a past deadline never blocks).
        while let Ok(Some(d)) = wire.recv(Some(wire.now())) {
            let frame = ethernet(mac, &d);
            link_free = link_free.max(t) + BYTE_PS * frame.len() as u64;
            link.push_back((link_free, frame));
        }
        nic.host_writes(t);
        t += STEP_PS;
        while link.front().is_some_and(|(at, _)| *at <= t) {
            if let Some((at, frame)) = link.pop_front() {
                nic.receive(at, frame);
            }
        }
        if nic.next_edge().is_none() && link.is_empty() {
            thread::sleep(Duration::from_micros(50));
            continue;
        }
        nic.run_until(t, &mut out);
        for (_, o) in out.drain(..) {
            if let NicOutput::Grant { frame } | NicOutput::Data { frame } = o {
                let ip = &frame[eth::HEADER_LEN..];
                let dst: [u8; 4] = ip[ipv4::DST_ADDR].try_into().expect("4 bytes");
                let dst = Ipv4Addr::from(dst);
                // A frame the network cannot deliver is lost, as on a wire.
                let _ = wire.send(IpAddr::V4(dst), Bytes::copy_from_slice(ip));
            }
        }
    }
    // The host's last register writes (releases) reach the core.
    nic.host_writes(t);
    nic.run_until(t + 1_000_000, &mut out);
    Ok(RtlHostReport {
        counters: nic.counters(),
        releases: nic.read_register("GRANT", "releases")?,
        messages_tracked: nic.read_register("GRANT", "messages_tracked")?,
        tx_queued: nic.read_register("TX", "messages_queued")?,
        grants_unmatched: nic.read_register("TX", "grants_unmatched")?,
    })
}

/// The Ethernet frame of an IPv4 datagram from the router to the NIC's MAC.
fn ethernet(to: [u8; 6], datagram: &[u8]) -> Vec<u8> {
    let header = EthernetRepr {
        src_addr: EthernetAddress(ROUTER_MAC),
        dst_addr: EthernetAddress(to),
        vlan: None,
        ethertype: EtherType::IPV4,
    };
    let mut f = vec![0; header.buffer_len() + datagram.len()];
    header.emit(&mut f);
    f[header.buffer_len()..].copy_from_slice(datagram);
    f
}
