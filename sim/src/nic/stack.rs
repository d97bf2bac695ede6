//! [`NicHost`]: a simulated host running the host stack that applications link, over its
//! Verilated NIC, in simulated time.
//!
//! The stack is `homa_host`'s: an [`EndpointCore`] over a [`NicTransport`] with transmit
//! offload, over `homa_driver::Nic`, over a [`NicDevice`]: the same code a host with the FPGA
//! runs over VFIO. The simulator owns the time: it sets the shared [`SimClock`], clocks the
//! NIC, and calls [`NicHost::step`] when the host has something to do (a DMA write of the
//! NIC's landed in host memory, an engine timer is due, the application acts).
//!
//! What the NIC does not frame yet: the host's control packets (RESEND, ACK, NEED_ACK,
//! BUSY, RPC_UNKNOWN, its own GRANTs). The transport sends them through a [`WirePort`],
//! from which the simulator puts them on the wire one PCIe latency later.

use super::device::NicDevice;
use super::rtl::RtlNic;
use super::{NicError, NicTiming};
use crate::time::{Ps, SimClock};
use bytes::Bytes;
use homa_driver::{NicConfig, RingSizes};
use homa_host::{Clock, EndpointCore, NicStats, NicTransport, Transport, TransportError};
use homa_proto::core::{Config, Instant};
use std::cell::RefCell;
use std::net::{IpAddr, Ipv4Addr};
use std::rc::Rc;
use std::sync::{Arc, Mutex, PoisonError};

/// The host's rings: 64 TX descriptors (four times the NIC's transmit capacity: room for
/// the RETRANSMITs and CANCELs beside the messages, so that the ring seldom looks full and
/// the driver seldom reads its consumer index), RX buffers of 4 KiB (a whole MTU payload
/// each), 256 of them posted, a completion ring of 1024 entries.
pub const RINGS: RingSizes = RingSizes {
    tx_log2: 6,
    rx_log2: 8,
    cq_log2: 10,
    rx_buffer_len: 4096,
    tx_onchip: true,
};

/// Bytes of host memory each host sets aside for the payloads of the messages it sends.
pub const TX_AREA_BYTES: usize = 64 << 20;

/// Where a simulated host's transport sends the packets its NIC does not frame: kept for
/// the simulator to put on the wire. It receives nothing (the host receives through its NIC).
#[derive(Debug)]
pub struct WirePort {
    addr: IpAddr,
    clock: SimClock,
    sent: Mutex<Vec<(IpAddr, Bytes)>>,
}

impl WirePort {
    /// A port for the host at `addr` on `clock`.
    pub fn new(addr: IpAddr, clock: SimClock) -> Self {
        WirePort {
            addr,
            clock,
            sent: Mutex::new(Vec::new()),
        }
    }

    /// Moves the datagrams sent since the last call into `out`: (destination, IP datagram).
    pub fn take(&self, out: &mut Vec<(IpAddr, Bytes)>) {
        out.append(&mut self.sent.lock().unwrap_or_else(PoisonError::into_inner));
    }
}

impl Transport for WirePort {
    fn local_addr(&self) -> IpAddr {
        self.addr
    }

    fn now(&self) -> Instant {
        Clock::now(&self.clock)
    }

    fn send(&self, dst: IpAddr, datagram: Bytes) -> Result<(), TransportError> {
        self.sent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((dst, datagram));
        Ok(())
    }

    fn recv(&self, _deadline: Option<Instant>) -> Result<Option<Bytes>, TransportError> {
        Ok(None)
    }

    fn wake(&self) {}
}

/// A simulated host: its NIC and the host stack over it (see the module notes).
pub struct NicHost {
    core: EndpointCore,
    transport: Arc<NicTransport<NicDevice>>,
    wire: Arc<WirePort>,
    nic: Rc<RefCell<RtlNic>>,
    clock: SimClock,
}

impl std::fmt::Debug for NicHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NicHost")
            .field("addr", &self.core.local_addr())
            .finish_non_exhaustive()
    }
}

impl NicHost {
    /// A host at `nic.ipv4` whose endpoint has port `port` and protocol `homa` (transmit
    /// offload on; `grant_offload` as given), its NIC brought up by the driver's init with
    /// `nic` (the protocol registers from `homa`) through the PCIe model of `timing`.
    pub fn new(
        nic: &NicConfig,
        homa: &Config,
        port: u16,
        timing: NicTiming,
        clock: SimClock,
    ) -> Result<Self, NicError> {
        let addr = IpAddr::V4(nic.ipv4);
        let (driver, rtl) = NicDevice::init(nic, &RINGS, timing, clock.clone())?;
        let wire = Arc::new(WirePort::new(addr, clock.clone()));
        let transport =
            NicTransport::with_tx_offload(driver, Box::new(Arc::clone(&wire)), TX_AREA_BYTES)
                .map_err(NicError::Transport)?
                .with_clock(Arc::new(clock.clone()));
        let transport = Arc::new(transport);
        let core = EndpointCore::new(Arc::clone(&transport), port, homa.clone())
            .map_err(NicError::Attach)?;
        rtl.borrow_mut().prime();
        Ok(NicHost {
            core,
            transport,
            wire,
            nic: rtl,
            clock,
        })
    }

    /// The NIC configuration of host `ipv4` (MAC `mac`, next hop `gateway_mac`) for `homa`.
    pub fn nic_config(
        homa: &Config,
        ipv4: Ipv4Addr,
        mac: [u8; 6],
        gateway_mac: [u8; 6],
    ) -> NicConfig {
        NicConfig {
            ipv4,
            mac,
            gateway_mac,
            ..NicConfig::from(homa)
        }
    }

    /// The endpoint: what the application calls.
    pub fn core(&mut self) -> &mut EndpointCore {
        &mut self.core
    }

    /// The endpoint, to look at.
    pub fn core_ref(&self) -> &EndpointCore {
        &self.core
    }

    /// The NIC, for the simulator to clock and feed.
    pub fn nic(&self) -> &Rc<RefCell<RtlNic>> {
        &self.nic
    }

    /// What the transport counted (packets from completions, TX descriptors...).
    pub fn stats(&self) -> NicStats {
        self.transport.stats()
    }

    /// The host acts at `now`: it takes what landed from its NIC, runs its engine's timers
    /// that are due, sends what it has to send. Returns how many packets it took.
    pub fn step(&mut self, now: Ps) -> Result<usize, TransportError> {
        self.clock.set(now);
        let mut taken = 0;
        loop {
            let n = self.core.poll(Some(Instant::ZERO))?;
            taken += n;
            if n == 0 {
                return Ok(taken);
            }
        }
    }

    /// Until when the host waits for the answer of its last register read (a PCIe round
    /// trip): it acts again no earlier.
    pub fn busy_until(&self) -> Ps {
        self.nic.borrow().host_busy_until()
    }

    /// Moves the control packets the host sent into `out`: (destination, IP datagram).
    pub fn take_control(&self, out: &mut Vec<(IpAddr, Bytes)>) {
        self.wire.take(out);
    }

    /// When the host next has something to do by itself: its engine's next timer, or the
    /// NIC's next DMA write landing in its memory.
    pub fn next_wakeup(&self) -> Option<Ps> {
        let timer = self.core.poll_timeout().map(|t| t.as_nanos() * 1_000);
        let landing = self.nic.borrow().next_landing();
        [timer, landing].into_iter().flatten().min()
    }
}
