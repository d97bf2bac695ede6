//! How the threaded [`Endpoint`](crate::Endpoint) drives its [`EndpointCore`]: the state its
//! threads share, and the two ways of driving ([`Drive`]).
//!
//! Design notes. One mutex guards the core and the tables around it ([`State`]). Any thread
//! that changes the core (an I/O round with datagrams or a timer, an application thread
//! with a request or a reply) then *dispatches* under the same lock: the core's deliveries
//! go to their waiters. The core itself sends what the engine wants sent as it goes, so a
//! request leaves from the caller's thread, without a hop to another thread. The clock is
//! read under the lock, so the engine sees time move forward only.
//!
//! An *I/O round* ([`Shared::io_round`]) receives outside the lock: it records the deadline
//! it sleeps until (the engine's next timer), waits in [`Transport::recv`], then takes the
//! lock and hands over what came. A thread whose command brings the engine's deadline
//! earlier (a new RPC arms the tick, the pacer holds data back) calls [`Transport::wake`],
//! whose wake-up is never lost. Rounds are run by the endpoint's I/O thread
//! ([`Drive::Thread`]) or, with [`Drive::Caller`], by the application threads that wait:
//! one of them at a time (the *poller*) runs rounds while the others sleep on
//! [`Shared::progress`] until their outcome is dispatched or the poller leaves.
//!
//! Lock order: [`State`] first, then a [`Completion`]'s own lock; never the other way.

use crate::endpoint_core::{self, Delivery, EndpointCore, IncomingRequest};
use crate::error::{Error, Result, TransportError};
use crate::transport::Transport;
use bytes::Bytes;
use core::time::Duration;
use homa_proto::core::Instant;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every critical section leaves the tables consistent before it can panic (a panic here
    // is a bug in this crate or the engine): keep serving rather than poisoning every caller.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The time left to `deadline` (`None`: no limit); [`Error::Timeout`] once it has passed.
pub(crate) fn time_left(deadline: Option<std::time::Instant>) -> Result<Option<Duration>> {
    match deadline.map(|d| d.saturating_duration_since(std::time::Instant::now())) {
        Some(left) if left.is_zero() => Err(Error::Timeout),
        left => Ok(left),
    }
}

/// Waits on `cv` with `guard`, at most `left` (`None`: no limit).
pub(crate) fn wait_on<'a, T>(
    cv: &Condvar,
    guard: MutexGuard<'a, T>,
    left: Option<Duration>,
) -> MutexGuard<'a, T> {
    match left {
        None => cv.wait(guard).unwrap_or_else(PoisonError::into_inner),
        Some(l) => {
            cv.wait_timeout(guard, l)
                .unwrap_or_else(PoisonError::into_inner)
                .0
        }
    }
}

/// Who drives an [`Endpoint`](crate::Endpoint)'s engine.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Drive {
    /// A background I/O thread receives, runs the timers and hands outcomes to the threads
    /// that wait (the default). Each outcome crosses from that thread to the waiter.
    #[default]
    Thread,
    /// No thread of the endpoint's own: the application threads drive the engine while they
    /// wait ([`call`](crate::Endpoint::call), [`wait`](crate::Endpoint::wait),
    /// [`recv_request`](crate::Endpoint::recv_request),
    /// [`drive_for`](crate::Endpoint::drive_for)), one at a time, and a waiter's own outcome
    /// reaches it on its own thread (run to completion). The endpoint makes progress only
    /// while some thread is in one of those calls: a server keeps a thread in
    /// `recv_request`, a client that only submits and polls calls `drive_for` now and then.
    Caller,
}

/// How an [`Endpoint`](crate::Endpoint) runs: [`Endpoint::bind_with`](crate::Endpoint::bind_with).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Who drives the engine.
    pub drive: Drive,
    /// Poll the transport without sleeping: the thread that drives spins on it (a core's
    /// worth of CPU) instead of sleeping in the kernel, and so never waits for a wake-up.
    pub busy_poll: bool,
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

/// What the application threads and the I/O thread share.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) transport: Arc<dyn Transport>,
    pub(crate) options: Options,
    pub(crate) state: Mutex<State>,
    /// Signalled when a request is queued or the endpoint closes.
    pub(crate) requests_ready: Condvar,
    /// Signalled, when threads wait on it ([`State::waiters`]), as outcomes are dispatched,
    /// the poller leaves, or the endpoint closes ([`Drive::Caller`]).
    pub(crate) progress: Condvar,
}

/// The core and everything around it, under [`Shared::state`].
#[derive(Debug)]
pub(crate) struct State {
    pub(crate) core: EndpointCore,
    pub(crate) pending: HashMap<u64, Arc<Completion>>,
    pub(crate) requests: VecDeque<IncomingRequest>,
    /// A thread is in (or about to enter) `recv` with deadline `io_deadline`.
    pub(crate) io_sleeping: bool,
    pub(crate) io_deadline: Option<Instant>,
    /// A thread runs I/O rounds ([`Drive::Caller`]).
    pub(crate) polling: bool,
    /// Threads waiting on [`Shared::progress`].
    pub(crate) waiters: usize,
    /// Threads waiting on [`Shared::requests_ready`] (a notification with none waiting is a
    /// system call for nothing, on the fast path).
    pub(crate) request_waiters: usize,
    pub(crate) closed: Option<Closed>,
}

impl Shared {
    pub(crate) fn new(core: EndpointCore, options: Options) -> Self {
        Shared {
            transport: Arc::clone(core.transport()),
            options,
            state: Mutex::new(State {
                core,
                pending: HashMap::new(),
                requests: VecDeque::new(),
                io_sleeping: false,
                io_deadline: None,
                polling: false,
                waiters: 0,
                request_waiters: 0,
                closed: None,
            }),
            requests_ready: Condvar::new(),
            progress: Condvar::new(),
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// After an application command: dispatch, and wake the thread in `recv` if it sleeps
    /// past the engine's new deadline.
    pub(crate) fn after_command(&self, st: &mut State) {
        self.dispatch(st);
        if st.io_sleeping {
            let due = st.core.poll_timeout();
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

    /// Hands the core's deliveries to their waiters.
    fn dispatch(&self, st: &mut State) {
        let mut any = false;
        while let Some(d) = st.core.next_delivery() {
            any = true;
            match d {
                Delivery::Request(r) => {
                    st.requests.push_back(r);
                    if st.request_waiters > 0 {
                        self.requests_ready.notify_one();
                    }
                }
                Delivery::Response { id, outcome } => {
                    if let Some(c) = st.pending.remove(&id) {
                        c.complete(outcome);
                    }
                }
            }
        }
        if any && st.waiters > 0 {
            self.progress.notify_all();
        }
    }

    /// Stops the endpoint: fails every pending RPC and wakes every waiter.
    pub(crate) fn close(&self, st: &mut State, why: Closed) {
        if st.closed.is_some() {
            return;
        }
        st.core.fail_all(|| why.error());
        self.dispatch(st);
        st.closed = Some(why);
        self.requests_ready.notify_all();
        self.progress.notify_all();
        self.transport.wake();
    }

    /// One I/O round: receives until a datagram, the engine's next timer, `cap` or a wake-up
    /// (at once with `busy_poll`), then hands what came to the core and dispatches. The lock
    /// is released while receiving. A transport failure closes the endpoint.
    pub(crate) fn io_round<'a>(
        &'a self,
        mut st: MutexGuard<'a, State>,
        cap: Option<Duration>,
    ) -> MutexGuard<'a, State> {
        let t = &*self.transport;
        let deadline = if self.options.busy_poll {
            Some(Instant::ZERO)
        } else {
            let cap = cap.map(|c| t.now() + c);
            endpoint_core::earliest(cap, st.core.poll_timeout())
        };
        st.io_sleeping = true;
        st.io_deadline = deadline;
        drop(st);
        let mut batch = Vec::new();
        let received = endpoint_core::receive_batch(t, deadline, &mut batch);
        let mut st = self.lock();
        st.io_sleeping = false;
        let now = t.now();
        for d in &batch {
            st.core.handle_datagram(now, d);
        }
        st.core.handle_timers(now);
        st.core.flush(now);
        self.dispatch(&mut st);
        if let Err(e) = received {
            log::error!("homa endpoint {}: I/O stopped: {e}", st.core.local_addr());
            self.close(&mut st, Closed::Failed(Arc::new(e)));
        }
        st
    }

    /// Waits until `ready` finds what the caller waits for, driving the engine meanwhile if
    /// no other thread does ([`Drive::Caller`]). [`Error::Timeout`] past `deadline`;
    /// [`Error::Closed`] once the endpoint is closed and `ready` has nothing.
    pub(crate) fn drive_until<R>(
        &self,
        deadline: Option<std::time::Instant>,
        mut ready: impl FnMut(&mut State) -> Option<Result<R>>,
    ) -> Result<R> {
        let mut st = self.lock();
        loop {
            if let Some(r) = ready(&mut st) {
                return r;
            }
            if let Some(c) = &st.closed {
                return Err(c.error());
            }
            let left = time_left(deadline)?;
            if st.polling {
                st.waiters += 1;
                st = wait_on(&self.progress, st, left);
                st.waiters -= 1;
                continue;
            }
            st = self.poll_round(st, left);
        }
    }

    /// An I/O round run by an application thread as the poller ([`Drive::Caller`]).
    pub(crate) fn poll_round<'a>(
        &'a self,
        mut st: MutexGuard<'a, State>,
        cap: Option<Duration>,
    ) -> MutexGuard<'a, State> {
        st.polling = true;
        st = self.io_round(st, cap);
        st.polling = false;
        if st.waiters > 0 {
            // Whoever waits may take over polling (or find its outcome).
            self.progress.notify_all();
        }
        if self.options.busy_poll {
            std::hint::spin_loop();
        }
        st
    }
}

/// The I/O thread's body ([`Drive::Thread`]): runs until the endpoint is closed.
pub(crate) fn run(shared: Arc<Shared>) {
    let mut st = shared.lock();
    while st.closed.is_none() {
        st = shared.io_round(st, None);
    }
}

/// Where a client RPC's outcome is left for whoever waits on it.
#[derive(Debug)]
pub(crate) struct Completion {
    outcome: Mutex<Slot>,
    done: Condvar,
}

/// The outcome, and how many threads wait for it on `done` (notified only if some do: a
/// caller that drives the engine itself never waits there).
#[derive(Debug)]
struct Slot {
    outcome: Outcome,
    waiting: usize,
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
            outcome: Mutex::new(Slot {
                outcome: Outcome::Pending,
                waiting: 0,
            }),
            done: Condvar::new(),
        }
    }

    fn complete(&self, result: Result<Bytes>) {
        let mut o = lock(&self.outcome);
        if matches!(o.outcome, Outcome::Pending) {
            o.outcome = Outcome::Done(result);
            if o.waiting > 0 {
                self.done.notify_all();
            }
        }
    }

    /// Takes the outcome if there is one; `Ok(None)` while pending.
    pub(crate) fn try_take(&self, id: u64) -> Result<Option<Bytes>> {
        take(&mut lock(&self.outcome).outcome, id)
    }

    /// Waits for the outcome, at most `timeout` (`None`: no limit).
    pub(crate) fn wait(&self, id: u64, timeout: Option<Duration>) -> Result<Bytes> {
        let deadline = timeout.map(|t| std::time::Instant::now() + t);
        let mut o = lock(&self.outcome);
        loop {
            if let Some(r) = take(&mut o.outcome, id)? {
                return Ok(r);
            }
            let left = time_left(deadline)?;
            o.waiting += 1;
            o = wait_on(&self.done, o, left);
            o.waiting -= 1;
        }
    }

    pub(crate) fn is_pending(&self) -> bool {
        matches!(lock(&self.outcome).outcome, Outcome::Pending)
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

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

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
