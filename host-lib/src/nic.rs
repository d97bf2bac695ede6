//! [`NicTransport`]: an endpoint over a homa-nic, through its driver (`homa_driver::Nic`, over
//! any `Device`: VFIO on a host with the FPGA, `MemDevice` in tests).
//!
//! Receive is the NIC's: the driver's [`Nic::receive`] turns the completion ring into
//! packets (an `RX_DATA` completion and its buffer for DATA, a `CONTROL` completion for the
//! rest) and gives the buffers back in batches; the transport hands each packet to the
//! endpoint as the IP datagram it came in as (rebuilt: the seam carries datagrams). The NIC
//! has already checked the IPv4 header checksum and dropped malformed frames.
//!
//! Send is not the NIC's yet: this transport does not post TX descriptors (the hardware's
//! transmit engine is driven by the simulated cluster's hosts, `homa_sim`'s `rtl` engine),
//! so datagrams leave through another transport given at construction (raw IP on a real
//! host, a [`crate::MemNetwork`] port in tests): the receive-offload configuration.
//!
//! When the endpoint has a whole inbound message, the transport releases it in the NIC's
//! message table (GRANT `release_*`), as the simulated cluster's hosts do: the entry
//! completes and its grant slot frees even when the table lost count of its bytes.
//!
//! The driver is polled (no interrupt): a `recv` with nothing to take sleeps
//! [`NicTransport::POLL_INTERVAL`] between polls, up to its deadline or a `wake`.

use crate::error::TransportError;
use crate::transport::{MonotonicClock, Transport};
use bytes::Bytes;
use core::fmt;
use core::net::IpAddr;
use core::time::Duration;
use homa_driver::{Device, Nic, Received};
use homa_proto::core::{Instant, Packet, Transmit};
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
}

/// An endpoint's transport over a homa-nic's receive path, sending through `tx`.
pub struct NicTransport<D: Device> {
    nic: Mutex<Nic<D>>,
    /// Datagrams rebuilt from completions, not yet taken.
    ready: Mutex<VecDeque<Bytes>>,
    tx: Box<dyn Transport>,
    local: IpAddr,
    clock: MonotonicClock,
    woken: AtomicBool,
    packets: AtomicU64,
    acks_not_carried: AtomicU64,
    buffer_errors: AtomicU64,
    bad: AtomicU64,
    released: AtomicU64,
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

    /// A transport for address `tx.local_addr()` over `nic` (brought up with that address
    /// in its configuration), sending through `tx`.
    pub fn new(nic: Nic<D>, tx: Box<dyn Transport>) -> Self {
        NicTransport {
            nic: Mutex::new(nic),
            ready: Mutex::new(VecDeque::new()),
            local: tx.local_addr(),
            tx,
            clock: MonotonicClock::new(),
            woken: AtomicBool::new(false),
            packets: AtomicU64::new(0),
            acks_not_carried: AtomicU64::new(0),
            buffer_errors: AtomicU64::new(0),
            bad: AtomicU64::new(0),
            released: AtomicU64::new(0),
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
        }
    }

    /// Polls the completion ring once; whether a datagram is ready.
    fn poll(&self) -> Result<bool, TransportError> {
        let mut got = Vec::new();
        let polled = lock(&self.nic).receive(&mut got, BATCH);
        let mut ready = lock(&self.ready);
        for r in got {
            match r {
                Received::Packet {
                    peer,
                    header,
                    payload,
                    acks_not_carried,
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
                    ready.push_back(Bytes::from(t.to_ip_bytes(peer)));
                }
                Received::BufferError { .. } => {
                    self.buffer_errors.fetch_add(1, Ordering::Relaxed);
                }
                // This transport posts no TX descriptors: TX completions are not its own.
                Received::Bad { .. }
                | Received::TxDone { .. }
                | Received::TxRefused { .. }
                | Received::Other(_) => {
                    self.bad.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        polled.map_err(|e| {
            TransportError::new("poll the NIC's completion ring", std::io::Error::other(e))
        })?;
        Ok(!ready.is_empty())
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

    fn recv(&self, deadline: Option<Instant>) -> Result<Option<Bytes>, TransportError> {
        loop {
            if let Some(d) = lock(&self.ready).pop_front() {
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

    fn wake(&self) {
        self.woken.store(true, Ordering::Release);
    }

    /// Releases the message in the NIC's message table (GRANT `release_*`): the table
    /// completes a message whose bytes all came in by itself, but one whose second hole it
    /// forgot, or that lost packets the host gave up on, would hold its entry and a grant
    /// slot until released. The table keys peers by IPv4 address: an IPv6 peer's message was
    /// never in it. A register write that fails is counted in [`NicStats::bad`].
    fn message_received(&self, peer: IpAddr, sender_id: u64, length: u32) {
        let IpAddr::V4(peer) = peer else {
            return;
        };
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
