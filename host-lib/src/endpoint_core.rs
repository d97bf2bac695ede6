//! [`EndpointCore`]: a Homa endpoint with no thread of its own, driven by its caller.
//!
//! The core owns the `proto::core` engine, the transport it runs over and what the
//! application has not taken yet (responses, requests). Nothing happens unless a caller
//! drives it: [`EndpointCore::poll`] takes the datagrams that arrived (waiting until a
//! deadline if asked to), fires the engine's timers, and sends what the engine wants sent.
//! Time is the transport's clock ([`Transport::now`]): a real one on a host, a simulated one
//! in a simulator, so the same code runs in both.
//!
//! Outcomes come out of [`EndpointCore::next_delivery`] as [`Delivery`] values. The threaded
//! [`Endpoint`](crate::Endpoint) is a wrapper: it keeps a core behind a mutex and hands
//! deliveries to the threads that wait for them.
//!
//! ```
//! use bytes::Bytes;
//! use homa_host::{Config, Delivery, EndpointCore, MemNetwork};
//! use homa_proto::core::Instant;
//! use std::net::SocketAddr;
//!
//! let net = MemNetwork::new();
//! let mut server = EndpointCore::new(net.attach([10, 0, 0, 1].into())?, 500, Config::default())?;
//! let mut client = EndpointCore::new(net.attach([10, 0, 0, 2].into())?, 40_000, Config::default())?;
//! let id = client.submit(SocketAddr::new([10, 0, 0, 1].into(), 500), Bytes::from("ping"))?;
//! loop {
//!     // One thread drives both ends; `Some(Instant::ZERO)` never blocks.
//!     server.poll(Some(Instant::ZERO))?;
//!     while let Some(Delivery::Request(r)) = server.next_delivery() {
//!         server.reply(r.peer.ip(), r.id, Bytes::from(r.payload.to_ascii_uppercase()))?;
//!     }
//!     client.poll(Some(Instant::ZERO))?;
//!     if let Some(Delivery::Response { id: done, outcome }) = client.next_delivery() {
//!         assert_eq!((done, &outcome?[..]), (id, &b"PING"[..]));
//!         break;
//!     }
//! }
//! # Ok::<(), homa_host::Error>(())
//! ```

use crate::endpoint::Stats;
use crate::error::{Error, Result, TransportError};
use crate::frame;
use crate::transport::{NicReport, Transport};
use bytes::Bytes;
use core::net::{IpAddr, SocketAddr};
use homa_proto::core::{self as engine, Config, Event, Instant, Message, SendError};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// Datagrams taken from the transport per [`EndpointCore::poll`].
pub(crate) const BATCH: usize = 32;

/// What the core has for the application.
#[derive(Debug)]
pub enum Delivery {
    /// A request to this endpoint's port: answer it with [`EndpointCore::reply`] (or
    /// [`EndpointCore::discard_request`]).
    Request(IncomingRequest),
    /// The outcome of a client RPC started with [`EndpointCore::submit`]: its response, or
    /// why it failed ([`Error::Unreachable`], or the device's refusal of the request).
    Response {
        /// The id `submit` returned.
        id: u64,
        /// The response, or the error.
        outcome: Result<Bytes>,
    },
}

/// A request delivered by an [`EndpointCore`].
#[derive(Debug)]
pub struct IncomingRequest {
    /// The client's address and port.
    pub peer: SocketAddr,
    /// The RPC id to reply to (with `peer`'s address).
    pub id: u64,
    /// The request message.
    pub payload: Bytes,
}

/// Counters of the library layer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counters {
    pub(crate) datagrams_received: u64,
    pub(crate) datagrams_malformed: u64,
    pub(crate) datagrams_misaddressed: u64,
    pub(crate) send_errors: u64,
}

/// A Homa endpoint driven by its caller: one engine over one transport, bound to one port.
/// See the [module notes](self).
#[derive(Debug)]
pub struct EndpointCore {
    transport: Arc<dyn Transport>,
    addr: IpAddr,
    port: u16,
    engine: engine::Endpoint,
    /// Client RPCs whose outcome is not delivered yet, and their servers.
    clients: HashMap<u64, SocketAddr>,
    deliveries: VecDeque<Delivery>,
    counters: Counters,
    sent: Vec<(IpAddr, u64, homa_proto::hostif::TxOp)>,
    /// Scratch for [`Transport::take_nic_reports`].
    nic_reports: Vec<NicReport>,
    batch: Vec<Bytes>,
}

impl EndpointCore {
    /// An endpoint on `transport`, accepting requests on `port` and sending its own requests
    /// from it. `config` sets the protocol; it must be valid. A transport whose device sends
    /// the DATA itself ([`Transport::sends_data`]) turns on the engine's `tx_offload`.
    pub fn new(transport: impl Transport, port: u16, config: Config) -> Result<EndpointCore> {
        Self::over(Arc::new(transport), port, config)
    }

    pub(crate) fn over(
        transport: Arc<dyn Transport>,
        port: u16,
        config: Config,
    ) -> Result<EndpointCore> {
        if port == 0 {
            return Err(Error::BadArgument("port 0 cannot be bound".into()));
        }
        let config = Config {
            tx_offload: config.tx_offload || transport.sends_data(),
            ..config
        };
        let addr = transport.local_addr();
        let mut engine = engine::Endpoint::new(config, addr)?;
        engine.bind(port);
        Ok(EndpointCore {
            transport,
            addr,
            port,
            engine,
            clients: HashMap::new(),
            deliveries: VecDeque::new(),
            counters: Counters::default(),
            sent: Vec::new(),
            nic_reports: Vec::new(),
            batch: Vec::with_capacity(BATCH),
        })
    }

    /// The address and port requests to this endpoint go to.
    pub fn local_addr(&self) -> SocketAddr {
        SocketAddr::new(self.addr, self.port)
    }

    /// The longest message (request or response) this endpoint sends or accepts.
    pub fn max_message_length(&self) -> usize {
        self.engine.config().max_message_length as usize
    }

    /// The transport's clock.
    pub fn now(&self) -> Instant {
        self.transport.now()
    }

    /// The transport the core runs over.
    pub fn transport(&self) -> &Arc<dyn Transport> {
        &self.transport
    }

    /// The protocol engine, to look at (its metrics, the state of an RPC).
    pub fn engine(&self) -> &engine::Endpoint {
        &self.engine
    }

    /// The protocol engine, to set up (for simulators and tests: e.g. the peers' cutoffs of
    /// a steady state). What it is told here is sent at the next [`poll`](Self::poll) or
    /// command.
    pub fn engine_mut(&mut self) -> &mut engine::Endpoint {
        &mut self.engine
    }

    /// When the engine's next timer is due (`None`: no timer armed).
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.engine.poll_timeout()
    }

    /// Sends `request` to the server at `dest`; its outcome comes later as a
    /// [`Delivery::Response`] with the returned id. Errors, found before anything is sent:
    /// [`Error::MessageTooLong`], [`Error::BadArgument`] for an empty request or a
    /// destination of the other address family.
    pub fn submit(&mut self, dest: SocketAddr, request: Bytes) -> Result<u64> {
        self.check_message(request.len())?;
        if dest.is_ipv4() != self.addr.is_ipv4() {
            return Err(Error::BadArgument(format!(
                "destination {dest} is not of the endpoint's address family ({})",
                self.addr
            )));
        }
        let now = self.transport.now();
        let id = self
            .engine
            .send_request(now, self.port, dest, request)
            .map_err(send_error)?;
        self.clients.insert(id, dest);
        self.flush(now);
        Ok(id)
    }

    /// Sends `response` to the request `id` from `peer`. On error the request is discarded.
    pub fn reply(&mut self, peer: IpAddr, id: u64, response: Bytes) -> Result<()> {
        if let Err(e) = self.check_message(response.len()) {
            self.engine.discard_request(peer, id);
            return Err(e);
        }
        let now = self.transport.now();
        self.engine
            .send_response(now, peer, id, response)
            .map_err(send_error)?;
        self.flush(now);
        Ok(())
    }

    /// Forgets a request without answering it (its client sends it again on its next RESEND,
    /// finding the server does not know the RPC). `false` if it was not known.
    pub fn discard_request(&mut self, peer: IpAddr, id: u64) -> bool {
        self.engine.discard_request(peer, id)
    }

    /// Abandons a client RPC (the server is not told); `false` if its outcome was already
    /// delivered or it was never known.
    pub fn cancel(&mut self, id: u64) -> bool {
        if self.clients.remove(&id).is_none() {
            return false;
        }
        self.engine.cancel(id);
        // A device that sends the DATA hears of it (a CANCEL for what it holds).
        let now = self.transport.now();
        self.flush(now);
        true
    }

    /// Drives the endpoint once: takes the datagrams that have arrived, waiting for the first
    /// one until `deadline` at most (`None`: no limit; a deadline already past never blocks)
    /// and no later than the engine's next timer or a [`Transport::wake`]; then runs the timers
    /// that are due and sends what the engine has to send. Returns how many datagrams it took.
    /// An error is the transport's: the endpoint cannot go on.
    pub fn poll(
        &mut self,
        deadline: Option<Instant>,
    ) -> core::result::Result<usize, TransportError> {
        let deadline = earliest(deadline, self.engine.poll_timeout());
        let mut batch = std::mem::take(&mut self.batch);
        let received = receive_batch(&*self.transport, deadline, &mut batch);
        let now = self.transport.now();
        let n = batch.len();
        for d in batch.drain(..) {
            self.handle_datagram(now, &d);
        }
        self.batch = batch;
        self.handle_timers(now);
        self.flush(now);
        received.map(|()| n)
    }

    /// Hands one received datagram to the engine (for a caller that receives by itself).
    /// Call [`flush`](Self::flush) afterwards.
    pub fn handle_datagram(&mut self, now: Instant, datagram: &Bytes) {
        self.counters.datagrams_received += 1;
        match frame::decode(datagram, &self.transport.checksum_caps()) {
            Ok(r) if r.dst == self.addr && r.src.is_ipv4() == self.addr.is_ipv4() => {
                self.engine.handle_packet(now, r.src, r.packet);
            }
            Ok(_) => self.counters.datagrams_misaddressed += 1,
            Err(e) => {
                self.counters.datagrams_malformed += 1;
                log::debug!("homa endpoint {}: dropped datagram: {e}", self.addr);
            }
        }
    }

    /// Runs the engine's timers if they are due at `now`.
    pub fn handle_timers(&mut self, now: Instant) {
        if self.engine.poll_timeout().is_some_and(|due| due <= now) {
            self.engine.handle_timeout(now);
        }
    }

    /// Tells the engine what the device finished sending, queues the engine's events as
    /// deliveries, and hands every packet and offloaded message to the transport.
    pub fn flush(&mut self, now: Instant) {
        self.transport.take_sent(&mut self.sent);
        for (peer, id, op) in self.sent.drain(..) {
            self.engine.offload_sent(peer, id, op);
        }
        self.transport.take_nic_reports(&mut self.nic_reports);
        for r in self.nic_reports.drain(..) {
            match r {
                NicReport::NotGranting { peer, sender_id } => {
                    self.engine.nic_not_granting(now, peer, sender_id);
                }
                NicReport::Granted { peer, grant } => {
                    self.engine.note_offloaded_grant(now, peer, &grant);
                }
            }
        }
        while let Some(ev) = self.engine.poll_event() {
            self.deliver(ev);
        }
        while let Some(t) = self.engine.poll_transmit(now) {
            let Some(datagram) = frame::encode(&t, self.addr) else {
                self.counters.send_errors += 1;
                continue;
            };
            if let Err(e) = self.transport.send(t.dst, datagram) {
                // Treated as loss: the engine retransmits, and an RPC whose packets never
                // get through ends with `Error::Unreachable`.
                if self.counters.send_errors == 0 {
                    log::warn!("homa endpoint {}: {e}: {:?}", self.addr, e.source);
                }
                self.counters.send_errors += 1;
            }
        }
        while let Some(o) = self.engine.poll_offload() {
            let id = o.id;
            if let Err(e) = self.transport.offload(o) {
                self.counters.send_errors += 1;
                // A client's request fails (a server's response: its client's RESENDs time
                // out in the end, as for a server that cannot send).
                if self.clients.remove(&id).is_some() {
                    self.engine.cancel(id);
                    self.deliveries.push_back(Delivery::Response {
                        id,
                        outcome: Err(e.into()),
                    });
                } else {
                    log::warn!("homa endpoint {}: response of RPC {id}: {e}", self.addr);
                }
            }
        }
    }

    /// The next thing for the application, oldest first.
    pub fn next_delivery(&mut self) -> Option<Delivery> {
        self.deliveries.pop_front()
    }

    /// Client RPCs whose outcome has not been delivered.
    pub fn rpcs_pending(&self) -> usize {
        self.clients.len()
    }

    /// The endpoint's counters (`requests_queued` counts the undelivered requests).
    pub fn stats(&self) -> Stats {
        let c = self.counters;
        Stats {
            engine: self.engine.metrics().clone(),
            datagrams_received: c.datagrams_received,
            datagrams_malformed: c.datagrams_malformed,
            datagrams_misaddressed: c.datagrams_misaddressed,
            send_errors: c.send_errors,
            rpcs_pending: self.clients.len(),
            requests_queued: self
                .deliveries
                .iter()
                .filter(|d| matches!(d, Delivery::Request(_)))
                .count(),
        }
    }

    /// Fails every client RPC not yet delivered with `error()` (the endpoint is closing).
    pub(crate) fn fail_all(&mut self, error: impl Fn() -> Error) {
        let ids: Vec<u64> = self.clients.drain().map(|(id, _)| id).collect();
        for id in ids {
            self.engine.cancel(id);
            self.deliveries.push_back(Delivery::Response {
                id,
                outcome: Err(error()),
            });
        }
    }

    fn deliver(&mut self, ev: Event) {
        match ev {
            Event::Request(r) => {
                // The client's DATA carried its own id, the server's id ^ 1.
                self.transport
                    .message_received(r.peer.ip(), r.id ^ 1, message_len(&r.message));
                self.deliveries
                    .push_back(Delivery::Request(IncomingRequest {
                        peer: r.peer,
                        id: r.id,
                        payload: message_bytes(r.message),
                    }));
            }
            Event::Response { id, message } => {
                if let Some(peer) = self.clients.remove(&id) {
                    self.transport
                        .message_received(peer.ip(), id ^ 1, message_len(&message));
                    self.deliveries.push_back(Delivery::Response {
                        id,
                        outcome: Ok(message_bytes(message)),
                    });
                }
            }
            Event::Failed { id, error } => {
                if let Some(peer) = self.clients.remove(&id) {
                    self.deliveries.push_back(Delivery::Response {
                        id,
                        outcome: Err(Error::Unreachable { peer, cause: error }),
                    });
                }
            }
        }
    }

    fn check_message(&self, length: usize) -> Result<()> {
        if length == 0 {
            return Err(Error::BadArgument("Homa messages are not empty".into()));
        }
        if length > self.max_message_length() {
            return Err(Error::MessageTooLong {
                length,
                max: self.engine.config().max_message_length,
            });
        }
        Ok(())
    }
}

/// Receives into `batch`: the first datagram waiting until `deadline`, then what is already
/// there, up to [`BATCH`]. An error ends the batch (what came before it stays).
pub(crate) fn receive_batch(
    t: &dyn Transport,
    deadline: Option<Instant>,
    batch: &mut Vec<Bytes>,
) -> core::result::Result<(), TransportError> {
    let Some(first) = t.recv(deadline)? else {
        return Ok(());
    };
    batch.push(first);
    while batch.len() < BATCH {
        match t.recv(Some(Instant::ZERO))? {
            Some(d) => batch.push(d),
            None => break,
        }
    }
    Ok(())
}

/// The earlier of two optional deadlines (`None` is never).
pub(crate) fn earliest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, None) => a,
        (None, b) => b,
    }
}

fn send_error(e: SendError) -> Error {
    match e {
        SendError::BadLength { length, max } if length > 0 => Error::MessageTooLong { length, max },
        e => Error::BadArgument(e.to_string()),
    }
}

/// A message's length in bytes (at most `max_message_length`, which fits 32 bits).
fn message_len(message: &Message) -> u32 {
    u32::try_from(message.len()).unwrap_or(u32::MAX)
}

/// A delivered message as one buffer: its single chunk as is, or the chunks copied once
/// into a contiguous buffer.
pub(crate) fn message_bytes(message: Message) -> Bytes {
    match message.chunks() {
        [(0, chunk)] if chunk.len() == message.len() => chunk.clone(),
        _ => Bytes::from(message.to_vec()),
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn message_bytes__single_chunk_is_not_copied() {
        let b = Bytes::from_static(b"abc");
        let m = Message::from_bytes(b.clone());
        assert_eq!(message_bytes(m).as_ptr(), b.as_ptr());
    }

    #[test]
    fn earliest__none_is_never() {
        let t = |n| Some(Instant::from_nanos(n));
        assert_eq!(earliest(t(5), t(3)), t(3));
        assert_eq!(earliest(None, t(3)), t(3));
        assert_eq!(earliest(t(5), None), t(5));
        assert_eq!(earliest(None, None), None);
    }
}
