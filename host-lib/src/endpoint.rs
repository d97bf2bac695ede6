//! [`Endpoint`]: a Homa RPC endpoint — a client and a server on one bound port.
//!
//! # Threading model
//!
//! An endpoint is an [`EndpointCore`](crate::EndpointCore) behind a mutex, so that every
//! method here may be called from any thread, concurrently (`Endpoint` is `Send + Sync`:
//! share it with `Arc` or scoped threads). Sends happen on the calling thread. Who receives
//! and runs the timers is chosen at [`bind_with`](Endpoint::bind_with) ([`Options`]): a
//! background I/O thread ([`Drive::Thread`], the default), or the application threads
//! themselves while they wait ([`Drive::Caller`]: no hand-off between threads on the fast
//! path), sleeping in the transport or spinning on it (`busy_poll`). The details are in the
//! `io` module's notes.
//!
//! # Lifetimes
//!
//! Dropping an [`RpcHandle`] before its outcome is known cancels the RPC. Dropping a
//! [`ReplyToken`] without replying discards the request; the client, finding on its next
//! RESEND that the server no longer knows the RPC, sends the request again (Homa's restart),
//! so the request is delivered anew. [`Endpoint::close`] (or dropping the endpoint) stops
//! its I/O thread; RPCs still pending fail with [`Error::Closed`].

use crate::endpoint_core::EndpointCore;
use crate::error::{Error, Result, TransportError};
use crate::io::{self, Closed, Completion, Drive, Options, Shared};
use crate::transport::Transport;
use bytes::Bytes;
use core::net::{IpAddr, SocketAddr};
use core::time::Duration;
use homa_proto::core::{Config, Metrics};
use std::sync::{Arc, Mutex, Weak};
use std::thread::JoinHandle;

/// A Homa endpoint: one engine over one transport, bound to one port.
///
/// ```
/// use bytes::Bytes;
/// use homa_host::{Config, Endpoint, MemNetwork};
/// use std::net::{IpAddr, SocketAddr};
///
/// let net = MemNetwork::new();
/// let server_ip: IpAddr = [10, 0, 0, 1].into();
/// let server = Endpoint::bind(net.attach(server_ip)?, 500, Config::default())?;
/// let client = Endpoint::bind(net.attach([10, 0, 0, 2].into())?, 40_000, Config::default())?;
/// std::thread::scope(|s| -> homa_host::Result<()> {
///     s.spawn(|| -> homa_host::Result<()> {
///         let req = server.recv_request()?;
///         let answer = Bytes::from(req.payload.to_ascii_uppercase());
///         server.reply(req.token, answer)
///     });
///     let response = client.call(SocketAddr::new(server_ip, 500), Bytes::from("ping"))?;
///     assert_eq!(&response[..], b"PING");
///     Ok(())
/// })?;
/// # Ok::<(), homa_host::Error>(())
/// ```
#[derive(Debug)]
pub struct Endpoint {
    shared: Arc<Shared>,
    io: Mutex<Option<JoinHandle<()>>>,
}

/// A client RPC in progress, from [`Endpoint::submit`]. Dropping it while the RPC is in
/// progress cancels the RPC.
#[derive(Debug)]
pub struct RpcHandle {
    id: u64,
    peer: SocketAddr,
    completion: Arc<Completion>,
    owner: Weak<Shared>,
}

/// A request delivered to the server side of an endpoint.
#[derive(Debug)]
pub struct Request {
    /// The client's address and port.
    pub peer: SocketAddr,
    /// The request message.
    pub payload: Bytes,
    /// What [`Endpoint::reply`] needs to answer it.
    pub token: ReplyToken,
}

/// The right to answer one request, consumed by [`Endpoint::reply`]. Dropping it without
/// replying discards the request (which the client's engine then sends again).
#[derive(Debug)]
pub struct ReplyToken {
    peer: IpAddr,
    id: u64,
    owner: Weak<Shared>,
    armed: bool,
}

/// A snapshot of an endpoint's counters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// The engine's counters (packets by type, bytes, timeouts...).
    pub engine: Metrics,
    /// Datagrams taken from the transport.
    pub datagrams_received: u64,
    /// Datagrams that did not parse as Homa (dropped).
    pub datagrams_malformed: u64,
    /// Datagrams for another address or family (dropped).
    pub datagrams_misaddressed: u64,
    /// Datagrams the transport refused to send (counted as loss).
    pub send_errors: u64,
    /// Client RPCs in progress.
    pub rpcs_pending: usize,
    /// Requests delivered by the engine and not yet taken by `recv_request`.
    pub requests_queued: usize,
}

impl Endpoint {
    /// Starts an endpoint on `transport`, accepting requests on `port` and sending its own
    /// requests from it. `config` sets the protocol (timeouts, MTU, maximum message length);
    /// it must be valid.
    pub fn bind(transport: impl Transport, port: u16, config: Config) -> Result<Endpoint> {
        Self::bind_with(transport, port, config, Options::default())
    }

    /// [`bind`](Self::bind), driven as `options` say: by an I/O thread of its own or by the
    /// threads that wait, sleeping or busy-polling.
    pub fn bind_with(
        transport: impl Transport,
        port: u16,
        config: Config,
        options: Options,
    ) -> Result<Endpoint> {
        let core = EndpointCore::new(transport, port, config)?;
        let shared = Arc::new(Shared::new(core, options));
        let io = match options.drive {
            Drive::Caller => None,
            Drive::Thread => Some(
                std::thread::Builder::new()
                    .name(format!("homa-io-{port}"))
                    .spawn({
                        let shared = Arc::clone(&shared);
                        move || io::run(shared)
                    })
                    .map_err(|e| TransportError::new("spawn the endpoint's I/O thread", e))?,
            ),
        };
        Ok(Endpoint {
            shared,
            io: Mutex::new(io),
        })
    }

    /// The address and port requests to this endpoint go to.
    pub fn local_addr(&self) -> SocketAddr {
        self.shared.lock().core.local_addr()
    }

    /// The longest message (request or response) this endpoint sends or accepts.
    pub fn max_message_length(&self) -> usize {
        self.shared.lock().core.max_message_length()
    }

    /// Sends `request` to the server at `dest` and waits for its response.
    ///
    /// Errors: [`Error::Unreachable`] if the server goes silent for the engine's timeout
    /// period (`tick_usecs * timeout_ticks`), [`Error::MessageTooLong`], [`Error::BadArgument`]
    /// for an empty request or a destination of the other address family,
    /// [`Error::Closed`].
    pub fn call(&self, dest: SocketAddr, request: Bytes) -> Result<Bytes> {
        let h = self.submit(dest, request)?;
        self.outcome(&h, None)
    }

    /// Starts an RPC without waiting; collect its outcome with [`poll`](Self::poll) or
    /// [`wait`](Self::wait). Errors as for [`call`](Self::call), found before anything is
    /// sent.
    pub fn submit(&self, dest: SocketAddr, request: Bytes) -> Result<RpcHandle> {
        let mut st = self.shared.lock();
        if let Some(c) = &st.closed {
            return Err(c.error());
        }
        let id = st.core.submit(dest, request)?;
        let completion = Arc::new(Completion::new());
        st.pending.insert(id, Arc::clone(&completion));
        self.shared.after_command(&mut st);
        Ok(RpcHandle {
            id,
            peer: dest,
            completion,
            owner: Arc::downgrade(&self.shared),
        })
    }

    /// The RPC's outcome if it is known: `Ok(Some(response))`, `Ok(None)` while in
    /// progress, or its error. An outcome is handed out once; asking again is
    /// [`Error::BadArgument`].
    pub fn poll(&self, handle: &RpcHandle) -> Result<Option<Bytes>> {
        self.check_owner(&handle.owner)?;
        if self.shared.options.drive == Drive::Caller && handle.completion.is_pending() {
            self.drive_for(Duration::ZERO)?;
        }
        handle.completion.try_take(handle.id)
    }

    /// Waits at most `timeout` for the RPC's outcome. [`Error::Timeout`] if it is still in
    /// progress then (the RPC goes on: wait again, or drop the handle to cancel it).
    pub fn wait(&self, handle: &RpcHandle, timeout: Duration) -> Result<Bytes> {
        self.check_owner(&handle.owner)?;
        self.outcome(handle, Some(timeout))
    }

    /// Drives the engine for `timeout` (at least one round, that does not block with a zero
    /// timeout), with [`Drive::Caller`]: what a thread that waits for nothing calls to let
    /// the endpoint receive and run its timers. Returns at once if another thread drives.
    /// With [`Drive::Thread`] it only sleeps. [`Error::Closed`] if the endpoint is closed.
    pub fn drive_for(&self, timeout: Duration) -> Result<()> {
        let deadline = std::time::Instant::now() + timeout;
        if self.shared.options.drive == Drive::Thread {
            std::thread::sleep(timeout);
            return Ok(());
        }
        let mut st = self.shared.lock();
        loop {
            if let Some(c) = &st.closed {
                return Err(c.error());
            }
            if st.polling {
                return Ok(());
            }
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            st = self.shared.poll_round(st, Some(left));
            if std::time::Instant::now() >= deadline {
                return Ok(());
            }
        }
    }

    fn outcome(&self, h: &RpcHandle, timeout: Option<Duration>) -> Result<Bytes> {
        match self.shared.options.drive {
            Drive::Thread => h.completion.wait(h.id, timeout),
            Drive::Caller => {
                let deadline = timeout.map(|t| std::time::Instant::now() + t);
                self.shared
                    .drive_until(deadline, |_| h.completion.try_take(h.id).transpose())
            }
        }
    }

    /// Abandons an RPC (the server is not told); `false` if its outcome was already known.
    pub fn cancel(&self, handle: RpcHandle) -> bool {
        handle.cancel()
    }

    /// Waits for the next request to this endpoint's port.
    pub fn recv_request(&self) -> Result<Request> {
        self.next_request(None)
    }

    /// Waits at most `timeout` for the next request; [`Error::Timeout`] if none came.
    pub fn recv_request_timeout(&self, timeout: Duration) -> Result<Request> {
        self.next_request(Some(std::time::Instant::now() + timeout))
    }

    /// Sends `response` to the request that `token` came with. On error the request is
    /// discarded (check lengths against [`max_message_length`](Self::max_message_length)
    /// first to answer with something shorter instead).
    pub fn reply(&self, mut token: ReplyToken, response: Bytes) -> Result<()> {
        self.check_owner(&token.owner)?;
        let mut st = self.shared.lock();
        if let Some(c) = &st.closed {
            return Err(c.error());
        }
        token.armed = false;
        let sent = st.core.reply(token.peer, token.id, response);
        self.shared.after_command(&mut st);
        sent
    }

    /// The endpoint's counters.
    pub fn stats(&self) -> Stats {
        let st = self.shared.lock();
        Stats {
            rpcs_pending: st.pending.len(),
            requests_queued: st.requests.len(),
            ..st.core.stats()
        }
    }

    /// Stops the endpoint and waits for its I/O thread to end. Calls in progress on other
    /// threads and later calls fail with [`Error::Closed`]. Closing twice is harmless.
    /// [`Error::Closed`] with the cause if the transport had failed before.
    pub fn close(&self) -> Result<()> {
        let before = {
            let mut st = self.shared.lock();
            let before = st.closed.clone();
            self.shared.close(&mut st, Closed::ByUser);
            before
        };
        let io = io::lock(&self.io).take();
        if let Some(io) = io
            && io.join().is_err()
        {
            log::error!(
                "homa endpoint {}: the I/O thread panicked",
                self.local_addr()
            );
        }
        match before {
            Some(c @ Closed::Failed(_)) => Err(c.error()),
            _ => Ok(()),
        }
    }

    fn next_request(&self, deadline: Option<std::time::Instant>) -> Result<Request> {
        let request = |r: crate::IncomingRequest| Request {
            peer: r.peer,
            payload: r.payload,
            token: ReplyToken {
                peer: r.peer.ip(),
                id: r.id,
                owner: Arc::downgrade(&self.shared),
                armed: true,
            },
        };
        if self.shared.options.drive == Drive::Caller {
            return self.shared.drive_until(deadline, |st| {
                st.requests.pop_front().map(|r| Ok(request(r)))
            });
        }
        let mut st = self.shared.lock();
        loop {
            if let Some(r) = st.requests.pop_front() {
                return Ok(request(r));
            }
            if let Some(c) = &st.closed {
                return Err(c.error());
            }
            let left = crate::io::time_left(deadline)?;
            st.request_waiters += 1;
            st = crate::io::wait_on(&self.shared.requests_ready, st, left);
            st.request_waiters -= 1;
        }
    }

    fn check_owner(&self, owner: &Weak<Shared>) -> Result<()> {
        if owner.as_ptr() == Arc::as_ptr(&self.shared) {
            Ok(())
        } else {
            Err(Error::BadArgument(
                "the handle or token belongs to another endpoint".into(),
            ))
        }
    }
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        // A transport failure was reported to every waiter already.
        let _ = self.close();
    }
}

impl RpcHandle {
    /// The client-side RPC id (even; unique within the endpoint).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The server the request went to.
    pub fn peer(&self) -> SocketAddr {
        self.peer
    }

    fn cancel(&self) -> bool {
        let Some(shared) = self.owner.upgrade() else {
            return false;
        };
        let mut st = shared.lock();
        if st.pending.remove(&self.id).is_some() {
            st.core.cancel(self.id);
            shared.after_command(&mut st);
            true
        } else {
            false
        }
    }
}

impl Drop for RpcHandle {
    fn drop(&mut self) {
        if self.completion.is_pending() {
            self.cancel();
        }
    }
}

impl ReplyToken {
    /// The client's address.
    pub fn peer(&self) -> IpAddr {
        self.peer
    }
}

impl Drop for ReplyToken {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        if let Some(shared) = self.owner.upgrade() {
            shared.lock().core.discard_request(self.peer, self.id);
        }
    }
}
