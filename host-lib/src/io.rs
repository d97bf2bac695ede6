//! The state an endpoint shares between application threads and its I/O thread, and the I/O
//! loop itself.
//!
//! Design notes. One mutex guards the engine and the tables around it ([`State`]). Any
//! thread that changes the engine — the I/O thread with a datagram or a timer, an
//! application thread with a request or a reply — then *flushes* under the same lock:
//! events go to their waiters, and every packet the engine wants sent is handed to the
//! transport right there (so a request leaves from the caller's thread, without a hop to the
//! I/O thread). The clock is read under the lock, so the engine sees time move forward only.
//!
//! The I/O thread sleeps in [`Transport::recv`] until a datagram arrives or the engine's next
//! timer (`poll_timeout`) is due. Before sleeping it records that deadline; an application
//! thread whose command brings the engine's deadline earlier (a new RPC arms the tick, the
//! pacer holds data back) calls [`Transport::wake`], whose wake-up is never lost.
//!
//! Lock order: [`State`] first, then a [`Completion`]'s own lock; never the other way.

use crate::error::{Error, Result, TransportError};
use crate::frame;
use crate::transport::Transport;
use bytes::Bytes;
use core::net::{IpAddr, SocketAddr};
use core::time::Duration;
use homa_proto::core::{self as engine, Event, Instant, Message, Metrics};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

/// Datagrams taken from the transport per lock acquisition.
const BATCH: usize = 32;

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every critical section leaves the tables consistent before it can panic (a panic here
    // is a bug in this crate or the engine): keep serving rather than poisoning every caller.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What the application threads and the I/O thread share.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) transport: Box<dyn Transport>,
    pub(crate) addr: IpAddr,
    pub(crate) port: u16,
    pub(crate) max_message_length: u32,
    pub(crate) state: Mutex<State>,
    /// Signalled when a request is queued or the endpoint closes.
    pub(crate) requests_ready: Condvar,
}

/// Why the endpoint stopped.
#[derive(Debug, Clone)]
pub(crate) enum Closed {
    ByUser,
    Failed(Arc<TransportError>),
}

impl Closed {
    pub(crate) fn error(&self) -> Error {
        match self {
            Closed::ByUser => Error::Closed { cause: None },
            Closed::Failed(e) => Error::Closed {
                cause: Some(Arc::clone(e)),
            },
        }
    }
}

/// A client RPC waiting for its outcome.
#[derive(Debug)]
pub(crate) struct Pending {
    pub(crate) completion: Arc<Completion>,
    pub(crate) peer: SocketAddr,
}

/// Counters of the library layer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Counters {
    pub(crate) datagrams_received: u64,
    pub(crate) datagrams_malformed: u64,
    pub(crate) datagrams_misaddressed: u64,
    pub(crate) send_errors: u64,
}

/// The engine and everything around it, under [`Shared::state`].
#[derive(Debug)]
pub(crate) struct State {
    pub(crate) engine: engine::Endpoint,
    pub(crate) pending: HashMap<u64, Pending>,
    pub(crate) requests: VecDeque<engine::Request>,
    /// The I/O thread is in (or about to enter) `recv` with deadline `io_deadline`.
    pub(crate) io_sleeping: bool,
    pub(crate) io_deadline: Option<Instant>,
    pub(crate) closed: Option<Closed>,
    pub(crate) counters: Counters,
}

impl Shared {
    pub(crate) fn new(transport: Box<dyn Transport>, port: u16, engine: engine::Endpoint) -> Self {
        Shared {
            addr: transport.local_addr(),
            max_message_length: engine.config().max_message_length,
            transport,
            port,
            state: Mutex::new(State {
                engine,
                pending: HashMap::new(),
                requests: VecDeque::new(),
                io_sleeping: false,
                io_deadline: None,
                closed: None,
                counters: Counters::default(),
            }),
            requests_ready: Condvar::new(),
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// After an application command: flush, and wake the I/O thread if it sleeps past the
    /// engine's new deadline.
    pub(crate) fn after_command(&self, st: &mut State, now: Instant) {
        self.flush(st, now);
        if st.io_sleeping {
            let due = st.engine.poll_timeout();
            let earlier = match (due, st.io_deadline) {
                (Some(d), Some(sleeping_until)) => d < sleeping_until,
                (Some(_), None) => true,
                (None, _) => false,
            };
            if earlier {
                st.io_deadline = due;
                self.transport.wake();
            }
        }
    }

    /// Hands events to their waiters and packets to the transport.
    fn flush(&self, st: &mut State, now: Instant) {
        let mut sent = Vec::new();
        self.transport.take_sent(&mut sent);
        for (peer, id, op) in sent {
            st.engine.offload_sent(peer, id, op);
        }
        while let Some(ev) = st.engine.poll_event() {
            match ev {
                Event::Request(r) => {
                    // The client's DATA carried its own id, the server's id ^ 1.
                    self.transport
                        .message_received(r.peer.ip(), r.id ^ 1, message_len(&r.message));
                    st.requests.push_back(r);
                    self.requests_ready.notify_one();
                }
                Event::Response { id, message } => {
                    if let Some(p) = st.pending.remove(&id) {
                        self.transport
                            .message_received(p.peer.ip(), id ^ 1, message_len(&message));
                        p.completion.complete(Ok(message_bytes(message)));
                    }
                }
                Event::Failed { id, error } => {
                    if let Some(p) = st.pending.remove(&id) {
                        p.completion.complete(Err(Error::Unreachable {
                            peer: p.peer,
                            cause: error,
                        }));
                    }
                }
            }
        }
        while let Some(t) = st.engine.poll_transmit(now) {
            let Some(datagram) = frame::encode(&t, self.addr) else {
                st.counters.send_errors += 1;
                continue;
            };
            if let Err(e) = self.transport.send(t.dst, datagram) {
                // Treated as loss: the engine retransmits, and an RPC whose packets never
                // get through ends with `Error::Unreachable`.
                if st.counters.send_errors == 0 {
                    log::warn!("homa endpoint {}: {e}: {:?}", self.addr, e.source);
                }
                st.counters.send_errors += 1;
            }
        }
        while let Some(o) = st.engine.poll_offload() {
            let id = o.id;
            if let Err(e) = self.transport.offload(o) {
                st.counters.send_errors += 1;
                // A client's request fails (a server's response: its client's RESENDs time
                // out in the end, as for a server that cannot send).
                if let Some(p) = st.pending.remove(&id) {
                    st.engine.cancel(id);
                    p.completion.complete(Err(e.into()));
                } else {
                    log::warn!("homa endpoint {}: response of RPC {id}: {e}", self.addr);
                }
            }
        }
    }

    /// Stops the endpoint: fails every pending RPC and wakes every waiter.
    pub(crate) fn close(&self, st: &mut State, why: Closed) {
        if st.closed.is_some() {
            return;
        }
        for (_, p) in st.pending.drain() {
            p.completion.complete(Err(why.error()));
        }
        st.closed = Some(why);
        self.requests_ready.notify_all();
        self.transport.wake();
    }

    fn handle_datagram(&self, st: &mut State, now: Instant, datagram: &Bytes) {
        st.counters.datagrams_received += 1;
        match frame::decode(datagram, &self.transport.checksum_caps()) {
            Ok(r) if r.dst == self.addr && r.src.is_ipv4() == self.addr.is_ipv4() => {
                st.engine.handle_packet(now, r.src, r.packet);
            }
            Ok(_) => st.counters.datagrams_misaddressed += 1,
            Err(e) => {
                st.counters.datagrams_malformed += 1;
                log::debug!("homa endpoint {}: dropped datagram: {e}", self.addr);
            }
        }
    }
}

/// The I/O thread's body: runs until the endpoint is closed or the transport fails.
pub(crate) fn run(shared: Arc<Shared>) {
    let t = &*shared.transport;
    let mut batch: Vec<Bytes> = Vec::with_capacity(BATCH);
    loop {
        let deadline = {
            let mut st = shared.lock();
            if st.closed.is_some() {
                return;
            }
            st.io_sleeping = true;
            st.io_deadline = st.engine.poll_timeout();
            st.io_deadline
        };
        let mut failure = None;
        match t.recv(deadline) {
            Ok(Some(d)) => {
                batch.push(d);
                while batch.len() < BATCH {
                    match t.recv(Some(Instant::ZERO)) {
                        Ok(Some(d)) => batch.push(d),
                        Ok(None) => break,
                        Err(e) => {
                            failure = Some(e);
                            break;
                        }
                    }
                }
            }
            Ok(None) => {}
            Err(e) => failure = Some(e),
        }
        let mut st = shared.lock();
        st.io_sleeping = false;
        let now = t.now();
        for d in batch.drain(..) {
            shared.handle_datagram(&mut st, now, &d);
        }
        if st.engine.poll_timeout().is_some_and(|due| due <= now) {
            st.engine.handle_timeout(now);
        }
        shared.flush(&mut st, now);
        if let Some(e) = failure {
            log::error!("homa endpoint {}: I/O loop stopped: {e}", shared.addr);
            shared.close(&mut st, Closed::Failed(Arc::new(e)));
            return;
        }
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

/// Where a client RPC's outcome is left for whoever waits on it.
#[derive(Debug)]
pub(crate) struct Completion {
    outcome: Mutex<Outcome>,
    done: Condvar,
}

#[derive(Debug)]
enum Outcome {
    Pending,
    Done(Result<Bytes>),
    Taken,
}

impl Completion {
    pub(crate) fn new() -> Self {
        Completion {
            outcome: Mutex::new(Outcome::Pending),
            done: Condvar::new(),
        }
    }

    fn complete(&self, result: Result<Bytes>) {
        let mut o = lock(&self.outcome);
        if matches!(*o, Outcome::Pending) {
            *o = Outcome::Done(result);
            self.done.notify_all();
        }
    }

    /// Takes the outcome if there is one; `Ok(None)` while pending.
    pub(crate) fn try_take(&self, id: u64) -> Result<Option<Bytes>> {
        take(&mut lock(&self.outcome), id)
    }

    /// Waits for the outcome, at most `timeout` (`None`: no limit).
    pub(crate) fn wait(&self, id: u64, timeout: Option<Duration>) -> Result<Bytes> {
        let deadline = timeout.map(|t| std::time::Instant::now() + t);
        let mut o = lock(&self.outcome);
        loop {
            if let Some(r) = take(&mut o, id)? {
                return Ok(r);
            }
            o = match deadline {
                None => self.done.wait(o).unwrap_or_else(PoisonError::into_inner),
                Some(d) => {
                    let left = d.saturating_duration_since(std::time::Instant::now());
                    if left.is_zero() {
                        return Err(Error::Timeout);
                    }
                    self.done
                        .wait_timeout(o, left)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
            };
        }
    }

    pub(crate) fn is_pending(&self) -> bool {
        matches!(*lock(&self.outcome), Outcome::Pending)
    }
}

fn take(o: &mut Outcome, id: u64) -> Result<Option<Bytes>> {
    match std::mem::replace(o, Outcome::Taken) {
        Outcome::Pending => {
            *o = Outcome::Pending;
            Ok(None)
        }
        Outcome::Done(r) => r.map(Some),
        Outcome::Taken => Err(Error::BadArgument(format!(
            "the outcome of RPC {id} was already taken"
        ))),
    }
}

/// Engine metrics and library counters.
pub(crate) fn metrics(st: &State) -> (Metrics, Counters) {
    (st.engine.metrics().clone(), st.counters.clone())
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
    fn completion__outcome_is_taken_once() {
        let c = Completion::new();
        assert!(matches!(c.try_take(2), Ok(None)));
        assert!(matches!(
            c.wait(2, Some(Duration::from_millis(1))),
            Err(Error::Timeout)
        ));
        c.complete(Ok(Bytes::from_static(b"x")));
        c.complete(Err(Error::Timeout));
        assert_eq!(c.wait(2, None).ok().as_deref(), Some(&b"x"[..]));
        assert!(matches!(c.try_take(2), Err(Error::BadArgument(_))));
    }
}
