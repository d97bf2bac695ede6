//! [`NicTransport`]: an endpoint over a homa-nic, through its driver (`homa_driver::Nic`, over
//! any `Device`: VFIO on a host with the FPGA, `MemDevice` in tests).
//!
//! Receive is the NIC's: the driver's [`Nic::receive`] turns the completion ring into
//! packets (an `RX_DATA` completion and its buffer for DATA, a `CONTROL` completion for the
//! rest) and gives the buffers back in batches; the transport hands each packet to the
//! endpoint as the IP datagram it came in as (rebuilt: the seam carries datagrams). The NIC
//! has already checked the IPv4 header checksum and dropped malformed frames.
//!
//! Send: built with [`NicTransport::with_tx_offload`], the NIC sends the DATA (transmit
//! offload). The endpoint's engine hands each outbound message over whole
//! ([`Transport::offload`]); the transport copies it into a payload area in the NIC's TX
//! window (the driver's `TxBuffers`), posts a SEND_MESSAGE descriptor (a RETRANSMIT for a
//! range asked for again, unless one waiting or in the NIC holds it) and frees the payload
//! when its `TX_DONE` comes back. What the ring, the area or the NIC's transmit engine (at
//! most its `tx_capacity` messages out) has no room for waits, and is posted as completions
//! free room, fewest bytes first (the driver's `TxQueue`). An RPC that ends early (the
//! application cancels it, it times out) comes as a CANCEL: what of it waits here is dropped,
//! and a CANCEL descriptor stops what the NIC holds (its `TX_DONE`s follow).
//! Control packets (RESEND, ACK, NEED_ACK, BUSY, the host's GRANTs) leave through another
//! transport given at construction (raw IP on a real host, a [`crate::MemNetwork`] port in
//! tests), which [`NicTransport::new`] uses for every packet: the receive-offload
//! configuration.
//!
//! When the endpoint has a whole inbound message, the transport releases it in the NIC's
//! message table (GRANT `release_*`), as the simulated cluster's hosts do: the entry
//! completes and its grant slot frees even when the table lost count of its bytes.
//!
//! The driver is polled (no interrupt): a `recv` with nothing to take sleeps
//! [`NicTransport::POLL_INTERVAL`] between polls, up to its deadline or a `wake`.

use crate::error::{OffloadError, TransportError};
use crate::transport::{Clock, MonotonicClock, NicReport, Transport};
use bytes::Bytes;
use core::fmt;
use core::net::IpAddr;
use core::time::Duration;
use homa_driver::{Device, DriverError, Nic, Post, Received, TxBuffers, TxQueue};
use homa_proto::core::{Instant, Offload, Packet, Transmit};
use homa_proto::hostif::{TxLimits, TxOp};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Completions taken per driver call.
const BATCH: usize = 64;

/// What a [`NicTransport`] saw that its endpoint does not: counts since it was made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NicStats {
    /// Packets received through the completion ring.
    pub packets: u64,
    /// ACK entries the NIC's completions could not carry (the server asks again with
    /// NEED_ACK).
    pub acks_not_carried: u64,
    /// RX buffers that came back too small for a payload (the payload was lost; Homa
    /// resends it) or refused by the NIC.
    pub buffer_errors: u64,
    /// Completions that made no sense (a buffer outside the pool, a malformed `CONTROL`
    /// body, a packet from an address family other than ours) or were not about receiving,
    /// and message releases the device refused.
    pub bad: u64,
    /// Inbound messages released in the NIC's message table (the endpoint had them whole).
    pub released: u64,
    /// DATA packets whose message the NIC reported it does not grant (`RX_DATA` flags bit
    /// 1), handed to the endpoint (with grant offload, its engine grants them).
    pub host_grants: u64,
    /// GRANTs the NIC reported sending (`GRANT_SENT`), handed to the endpoint.
    pub nic_grants: u64,
    /// TX descriptors posted (transmit offload): messages, and ranges sent again.
    pub tx_descriptors: u64,
    /// `TX_DONE` completions: messages the NIC finished sending (their payload freed).
    pub tx_done: u64,
    /// RETRANSMITs not posted: one of their RPC, waiting or in the NIC, already held the
    /// range (the receiver asked again before the first was sent).
    pub retransmits_covered: u64,
    /// TX descriptors the NIC refused, and messages that could not be posted (their copy into
    /// the payload area failed, or the ring refused them): nothing of them was sent.
    pub tx_errors: u64,
}

/// The transmit side of a [`NicTransport::with_tx_offload`].
#[derive(Debug)]
struct TxPath {
    queue: TxQueue,
    limits: TxLimits,
    /// The TX ring was full even after the driver read the NIC's consumer index: no other
    /// post (and read, a PCIe round trip the host waits for) until completions come.
    ring_full: bool,
}

impl TxPath {
    /// The longest message this path takes: the NIC's limit, or the payload area.
    fn max_length(&self) -> u32 {
        let area = u32::try_from(self.queue.buffers().capacity()).unwrap_or(u32::MAX);
        self.limits.max_message_length.min(area)
    }
}

/// What a completion gave the endpoint, in completion order.
enum Ready {
    /// A datagram rebuilt from it.
    Datagram(Bytes),
    /// A report of the NIC's grants, due once the datagrams before it are taken.
    Report(NicReport),
}

/// An endpoint's transport over a homa-nic's receive path, sending through `tx`.
pub struct NicTransport<D: Device> {
    nic: Mutex<Nic<D>>,
    /// Datagrams rebuilt from completions and the NIC's reports, not yet taken.
    ready: Mutex<VecDeque<Ready>>,
    /// The reports passed on the way to a datagram, for [`Transport::take_nic_reports`].
    reports: Mutex<Vec<NicReport>>,
    host_grants_seen: AtomicU64,
    nic_grants_seen: AtomicU64,
    tx: Box<dyn Transport>,
    /// Transmit offload, if on. Lock order: this, then `nic`.
    offload: Option<Mutex<TxPath>>,
    local: IpAddr,
    clock: std::sync::Arc<dyn Clock>,
    woken: AtomicBool,
    packets: AtomicU64,
    acks_not_carried: AtomicU64,
    buffer_errors: AtomicU64,
    bad: AtomicU64,
    released: AtomicU64,
    tx_descriptors: AtomicU64,
    tx_done: AtomicU64,
    retransmits_covered: AtomicU64,
    tx_errors: AtomicU64,
    /// What the NIC finished sending, for the endpoint's engine ([`Transport::take_sent`]).
    sent: Mutex<Vec<(IpAddr, u64, TxOp)>>,
    /// Messages this long or shorter are not released (see `message_received`).
    no_release_below: u32,
}

impl<D: Device + Send + 'static> fmt::Debug for NicTransport<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NicTransport")
            .field("local", &self.local)
            .field("tx", &self.tx)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding these locks leaves plain data behind: keep going.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<D: Device + Send + 'static> NicTransport<D> {
    /// How long an idle `recv` sleeps between polls of the completion ring.
    pub const POLL_INTERVAL: Duration = Duration::from_micros(20);

    /// Bytes of DMA memory [`with_tx_offload`](Self::with_tx_offload) sets aside for payloads
    /// when asked for 0: room for 16 of Homa's largest messages.
    pub const DEFAULT_TX_BUFFER_BYTES: usize = 16 << 20;

    /// A transport for address `tx.local_addr()` over `nic` (brought up with that address
    /// in its configuration), receiving through the NIC and sending every packet through
    /// `tx` (receive offload only).
    pub fn new(nic: Nic<D>, tx: Box<dyn Transport>) -> Self {
        NicTransport {
            no_release_below: nic.max_payload(),
            nic: Mutex::new(nic),
            ready: Mutex::new(VecDeque::new()),
            reports: Mutex::new(Vec::new()),
            host_grants_seen: AtomicU64::new(0),
            nic_grants_seen: AtomicU64::new(0),
            local: tx.local_addr(),
            tx,
            offload: None,
            clock: std::sync::Arc::new(MonotonicClock::new()),
            woken: AtomicBool::new(false),
            packets: AtomicU64::new(0),
            acks_not_carried: AtomicU64::new(0),
            buffer_errors: AtomicU64::new(0),
            bad: AtomicU64::new(0),
            released: AtomicU64::new(0),
            tx_descriptors: AtomicU64::new(0),
            tx_done: AtomicU64::new(0),
            retransmits_covered: AtomicU64::new(0),
            tx_errors: AtomicU64::new(0),
            sent: Mutex::new(Vec::new()),
        }
    }

    /// The same transport on another clock (a simulator's, for a simulated NIC). Its
    /// [`Transport::now`] and `recv`'s deadlines are on that clock.
    pub fn with_clock(mut self, clock: std::sync::Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// As [`new`](Self::new), and the NIC sends the DATA (transmit offload; see the module
    /// doc): `tx_buffer_bytes` of the device's DMA memory (0: [`Self::DEFAULT_TX_BUFFER_BYTES`])
    /// hold the payloads of the messages in flight, and become the NIC's TX window (its
    /// `max_message_length` stays Homa's largest message). Fails when the device cannot give
    /// the memory or take the limits.
    pub fn with_tx_offload(
        mut nic: Nic<D>,
        tx: Box<dyn Transport>,
        tx_buffer_bytes: usize,
    ) -> Result<Self, TransportError> {
        let fail = |op: &str, e: DriverError| TransportError::new(op, std::io::Error::other(e));
        let bytes = match tx_buffer_bytes {
            0 => Self::DEFAULT_TX_BUFFER_BYTES,
            n => n,
        };
        let region = nic
            .device()
            .alloc_dma(bytes)
            .map_err(|e| fail("allocate the NIC's TX payload area", e))?;
        let capacity = nic
            .tx_capacity()
            .map_err(|e| fail("read the NIC's TX capacity", e))?;
        // Small messages go in the NIC's on-chip memory when it has some.
        let buffers = TxBuffers::new(region, capacity as usize)
            .with_onchip(nic.onchip_bytes(), nic.max_payload());
        let limits = TxLimits {
            window: buffers.window(),
            ..TxLimits::default()
        };
        nic.set_tx_limits(&limits)
            .map_err(|e| fail("set the NIC's TX window", e))?;
        let mut t = Self::new(nic, tx);
        t.offload = Some(Mutex::new(TxPath {
            queue: TxQueue::new(buffers),
            limits,
            ring_full: false,
        }));
        Ok(t)
    }

    /// Posts what waits (CANCELs first, then fewest bytes first) while the ring, the payload
    /// area and the NIC's engine have room.
    fn post_waiting(&self, path: &mut TxPath) {
        let mut nic = lock(&self.nic);
        let mut ring_full = path.ring_full;
        let post = |d: &_, inline: Option<&[u8]>| {
            if ring_full && nic.tx().state().is_full() {
                return Post::RingFull;
            }
            let sent = match inline {
                Some(payload) => nic.send_inline(d, payload),
                None => nic.send(d),
            };
            match sent {
                Ok(_) => Post::Posted,
                Err(e) if e.is_ring_full() => {
                    ring_full = true;
                    Post::RingFull
                }
                Err(e) => Post::Failed(e),
            }
        };
        let posted = path.queue.pump(post, |e| self.tx_error(e));
        path.ring_full = ring_full;
        self.tx_descriptors.fetch_add(posted, Ordering::Relaxed);
    }

    /// Counts a message that was not sent; the first is logged.
    fn tx_error(&self, e: &dyn fmt::Display) {
        if self.tx_errors.fetch_add(1, Ordering::Relaxed) == 0 {
            log::warn!(
                "homa NIC transport {}: a message was not sent: {e}",
                self.local
            );
        }
    }

    /// Frees the payloads of the descriptors whose completions came back (`refused`: of
    /// them, how many were `ERROR`s), then posts what waits (the ring may have room now even
    /// with no completion: the NIC took descriptors).
    fn tx_progress(&self, cookies: &[u64], refused: u64, completions: usize) {
        let Some(path) = &self.offload else {
            return;
        };
        let mut path = lock(path);
        if completions > 0 {
            // Time has passed: the NIC may have read more of the ring.
            path.ring_full = false;
        }
        let mut sent = lock(&self.sent);
        for &c in cookies {
            match path.queue.complete(c) {
                Some(r) => sent.push((r.peer, r.id, r.op)),
                None => {
                    self.bad.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        drop(sent);
        self.tx_done
            .fetch_add(cookies.len() as u64 - refused, Ordering::Relaxed);
        if refused > 0 {
            self.tx_error(&format_args!("the NIC refused {refused} TX descriptor(s)"));
        }
        if path.queue.waiting() > 0 {
            self.post_waiting(&mut path);
        }
    }

    /// What the transport counted.
    pub fn stats(&self) -> NicStats {
        NicStats {
            packets: self.packets.load(Ordering::Relaxed),
            acks_not_carried: self.acks_not_carried.load(Ordering::Relaxed),
            buffer_errors: self.buffer_errors.load(Ordering::Relaxed),
            bad: self.bad.load(Ordering::Relaxed),
            released: self.released.load(Ordering::Relaxed),
            host_grants: self.host_grants_seen.load(Ordering::Relaxed),
            nic_grants: self.nic_grants_seen.load(Ordering::Relaxed),
            tx_descriptors: self.tx_descriptors.load(Ordering::Relaxed),
            tx_done: self.tx_done.load(Ordering::Relaxed),
            retransmits_covered: self.retransmits_covered.load(Ordering::Relaxed),
            tx_errors: self.tx_errors.load(Ordering::Relaxed),
        }
    }

    /// Moves the reports at the front of `ready` (due: every datagram before them is taken)
    /// to `reports`.
    fn pass_reports(&self, ready: &mut VecDeque<Ready>) {
        while let Some(Ready::Report(_)) = ready.front() {
            if let Some(Ready::Report(r)) = ready.pop_front() {
                lock(&self.reports).push(r);
            }
        }
    }

    /// The next datagram ready, the reports before it passed on.
    fn next_datagram(&self) -> Option<Bytes> {
        let mut ready = lock(&self.ready);
        self.pass_reports(&mut ready);
        match ready.pop_front() {
            Some(Ready::Datagram(d)) => Some(d),
            _ => None,
        }
    }

    /// Takes everything in the completion ring; whether a datagram is ready.
    fn poll(&self) -> Result<bool, TransportError> {
        // Everything the ring holds: a caller that polls once per wake-up (a simulator, a
        // caller-driven endpoint) gets no other wake-up for what is already there.
        let mut got = Vec::new();
        let polled = {
            let mut nic = lock(&self.nic);
            loop {
                match nic.receive(&mut got, BATCH) {
                    Ok(n) if n == BATCH => {}
                    other => break other,
                }
            }
        };
        let (mut finished, mut refused) = (Vec::new(), 0);
        let mut ready = lock(&self.ready);
        let got_len = got.len();
        for r in got {
            match r {
                Received::Packet {
                    peer,
                    header,
                    payload,
                    acks_not_carried,
                    host_grants,
                } => {
                    self.acks_not_carried
                        .fetch_add(u64::from(acks_not_carried), Ordering::Relaxed);
                    if peer.is_ipv4() != self.local.is_ipv4() {
                        self.bad.fetch_add(1, Ordering::Relaxed);
                        continue;
                    }
                    self.packets.fetch_add(1, Ordering::Relaxed);
                    let t = Transmit {
                        dst: self.local,
                        priority: 0,
                        packet: Packet {
                            header,
                            payload: Bytes::from(payload),
                        },
                    };
                    let sender_id = t.packet.header.sender_id;
                    ready.push_back(Ready::Datagram(Bytes::from(t.to_ip_bytes(peer))));
                    if host_grants {
                        self.host_grants_seen.fetch_add(1, Ordering::Relaxed);
                        let r = NicReport::NotGranting { peer, sender_id };
                        ready.push_back(Ready::Report(r));
                    }
                }
                Received::GrantSent { peer, grant } => {
                    self.nic_grants_seen.fetch_add(1, Ordering::Relaxed);
                    ready.push_back(Ready::Report(NicReport::Granted { peer, grant }));
                }
                Received::BufferError { .. } => {
                    self.buffer_errors.fetch_add(1, Ordering::Relaxed);
                }
                Received::TxDone { cookie, .. } if self.offload.is_some() => {
                    finished.push(cookie);
                }
                Received::TxRefused { cookie, .. } if self.offload.is_some() => {
                    finished.push(cookie);
                    refused += 1;
                }
                // TX completions without transmit offload are not this transport's.
                Received::Bad { .. }
                | Received::TxDone { .. }
                | Received::TxRefused { .. }
                | Received::Other(_) => {
                    self.bad.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        let any = ready.iter().any(|r| matches!(r, Ready::Datagram(_)));
        drop(ready);
        self.tx_progress(&finished, refused, got_len);
        polled.map_err(|e| {
            TransportError::new("poll the NIC's completion ring", std::io::Error::other(e))
        })?;
        Ok(any)
    }
}

impl<D: Device + Send + 'static> Transport for NicTransport<D> {
    fn local_addr(&self) -> IpAddr {
        self.local
    }

    fn now(&self) -> Instant {
        self.clock.now()
    }

    fn send(&self, dst: IpAddr, datagram: Bytes) -> Result<(), TransportError> {
        self.tx.send(dst, datagram)
    }

    fn sends_data(&self) -> bool {
        self.offload.is_some()
    }

    /// Queues `o` for the TX ring and posts what fits now. Refused at once: a peer the NIC
    /// cannot send to (IPv6: the DATA framer builds IPv4), a message longer than the NIC's
    /// `max_message_length` or the payload area. A CANCEL drops what of its RPC still waits
    /// here, and stops in the NIC what was posted.
    fn offload(&self, o: Offload) -> Result<(), OffloadError> {
        let Some(path) = &self.offload else {
            return Err(TransportError::new(
                "hand a message to the NIC",
                std::io::Error::other("this NicTransport was built without transmit offload"),
            )
            .into());
        };
        if !o.dst.is_ipv4() {
            return Err(OffloadError::Peer(o.dst));
        }
        let mut path = lock(path);
        let max = path.max_length();
        if o.op != TxOp::Cancel && o.message.len() > max as usize {
            return Err(OffloadError::TooLong {
                length: o.message.len(),
                max,
            });
        }
        if !path.queue.push(o) {
            self.retransmits_covered.fetch_add(1, Ordering::Relaxed);
        }
        self.post_waiting(&mut path);
        Ok(())
    }

    fn recv(&self, deadline: Option<Instant>) -> Result<Option<Bytes>, TransportError> {
        loop {
            if let Some(d) = self.next_datagram() {
                return Ok(Some(d));
            }
            if self.poll()? {
                continue;
            }
            if self.woken.swap(false, Ordering::AcqRel) {
                return Ok(None);
            }
            let now = self.now();
            let sleep = match deadline {
                Some(d) if d <= now => return Ok(None),
                Some(d) => Self::POLL_INTERVAL.min(d - now),
                None => Self::POLL_INTERVAL,
            };
            std::thread::sleep(sleep);
        }
    }

    fn take_sent(&self, out: &mut Vec<(IpAddr, u64, TxOp)>) {
        out.append(&mut lock(&self.sent));
    }

    fn take_nic_reports(&self, out: &mut Vec<NicReport>) {
        // Reports behind the last datagram taken are due too (nothing comes before them).
        let mut ready = lock(&self.ready);
        self.pass_reports(&mut ready);
        out.append(&mut lock(&self.reports));
    }

    fn wake(&self) {
        self.woken.store(true, Ordering::Release);
    }

    /// Releases the message in the NIC's message table (GRANT `release_*`): the table
    /// completes a message whose bytes all came in by itself, but one whose second hole it
    /// forgot, or that lost packets the host gave up on, would hold its entry and a grant
    /// slot until released. The table keys peers by IPv4 address: an IPv6 peer's message was
    /// never in it. A register write that fails is counted in [`NicStats::bad`].
    ///
    /// A message of one packet is not released: the table completes it with that packet, and
    /// the five register writes would go ahead of the host's next doorbell (the response's,
    /// in a ping-pong). It takes three packets or more to open a second hole, so this holds
    /// as long as a peer's packets carry at least a third of this NIC's `max_payload`.
    fn message_received(&self, peer: IpAddr, sender_id: u64, length: u32) {
        let IpAddr::V4(peer) = peer else {
            return;
        };
        if length <= self.no_release_below {
            return;
        }
        match lock(&self.nic).release(peer, sender_id, length) {
            Ok(()) => {
                self.released.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                if self.bad.fetch_add(1, Ordering::Relaxed) == 0 {
                    log::warn!("homa NIC transport {}: release: {e}", self.local);
                }
            }
        }
    }
}
