//! [`MemNetwork`]: an in-process network of endpoints, for tests, examples and benchmarks.
//!
//! A shared hub routes each datagram to the port attached at its destination address, by
//! reading that address from the datagram's IP header (so what travels is the real wire
//! format). Datagrams to an address nobody holds vanish, as on a real network. Optional loss
//! drops each datagram with a fixed probability from a seeded generator; since endpoints run
//! on their own threads, which datagrams are lost depends on their interleaving, but the
//! loss rate and the seed are fixed.
//!
//! Each port's receive queue is bounded ([`MemNetwork::QUEUE_LIMIT`] datagrams); beyond it,
//! datagrams are dropped like a full NIC ring.

use crate::error::{Error, Result, TransportError};
use crate::transport::{MonotonicClock, Transport};
use bytes::Bytes;
use core::net::IpAddr;
use homa_proto::core::Instant;
use std::collections::{HashMap, VecDeque};
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, Weak};

/// A shared in-process network. Clones share the same hub.
#[derive(Debug, Clone)]
pub struct MemNetwork {
    hub: Arc<Hub>,
}

#[derive(Debug)]
struct Hub {
    clock: MonotonicClock,
    ports: Mutex<HashMap<IpAddr, Weak<Inbox>>>,
    /// Loss probability in parts per 2^32 (0 = none).
    loss: u64,
    rng: Mutex<u64>,
    delivered: AtomicU64,
    dropped: AtomicU64,
}

#[derive(Debug, Default)]
struct Inbox {
    state: Mutex<InboxState>,
    ready: Condvar,
}

#[derive(Debug, Default)]
struct InboxState {
    frames: VecDeque<Bytes>,
    woken: bool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding these locks leaves plain data behind: keep going.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl MemNetwork {
    /// Datagrams a port's receive queue holds before it drops.
    pub const QUEUE_LIMIT: usize = 65_536;

    /// A lossless network.
    pub fn new() -> Self {
        Self::build(0, 0)
    }

    /// A network that drops each datagram with probability `loss` (0 to 1), drawing from a
    /// generator seeded with `seed`.
    pub fn with_loss(loss: f64, seed: u64) -> Result<Self> {
        if !(0.0..=1.0).contains(&loss) {
            return Err(Error::BadArgument(format!(
                "loss probability {loss} is outside 0..=1"
            )));
        }
        Ok(Self::build((loss * f64::from(u32::MAX)) as u64, seed))
    }

    fn build(loss: u64, seed: u64) -> Self {
        MemNetwork {
            hub: Arc::new(Hub {
                clock: MonotonicClock::new(),
                ports: Mutex::new(HashMap::new()),
                loss,
                rng: Mutex::new(seed),
                delivered: AtomicU64::new(0),
                dropped: AtomicU64::new(0),
            }),
        }
    }

    /// A transport for the host at `addr`; an address may be held by one port at a time.
    pub fn attach(&self, addr: IpAddr) -> Result<MemTransport> {
        let mut ports = lock(&self.hub.ports);
        if ports.get(&addr).is_some_and(|w| w.strong_count() > 0) {
            return Err(Error::BadArgument(format!(
                "address {addr} is already attached to this network"
            )));
        }
        let inbox = Arc::new(Inbox::default());
        ports.insert(addr, Arc::downgrade(&inbox));
        Ok(MemTransport {
            addr,
            hub: Arc::clone(&self.hub),
            inbox,
        })
    }

    /// Datagrams delivered to a port's queue so far.
    pub fn delivered(&self) -> u64 {
        self.hub.delivered.load(Ordering::Relaxed)
    }

    /// Datagrams dropped so far (loss, no such address, full queue, unreadable header).
    pub fn dropped(&self) -> u64 {
        self.hub.dropped.load(Ordering::Relaxed)
    }
}

impl Default for MemNetwork {
    fn default() -> Self {
        Self::new()
    }
}

impl Hub {
    /// splitmix64: one draw, whether this datagram is lost.
    fn lose(&self) -> bool {
        if self.loss == 0 {
            return false;
        }
        let mut s = lock(&self.rng);
        *s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z & 0xffff_ffff) < self.loss
    }

    fn drop_one(&self) {
        self.dropped.fetch_add(1, Ordering::Relaxed);
    }
}

/// One host's port on a [`MemNetwork`]; detaches when dropped.
#[derive(Debug)]
pub struct MemTransport {
    addr: IpAddr,
    hub: Arc<Hub>,
    inbox: Arc<Inbox>,
}

/// The destination address in an IP header, if the bytes hold one.
fn dst_of(datagram: &[u8]) -> Option<IpAddr> {
    match datagram.first()? >> 4 {
        4 => {
            let b: [u8; 4] = datagram.get(16..20)?.try_into().ok()?;
            Some(IpAddr::from(b))
        }
        6 => {
            let b: [u8; 16] = datagram.get(24..40)?.try_into().ok()?;
            Some(IpAddr::from(b))
        }
        _ => None,
    }
}

impl Transport for MemTransport {
    fn local_addr(&self) -> IpAddr {
        self.addr
    }

    fn now(&self) -> Instant {
        self.hub.clock.now()
    }

    fn send(&self, dst: IpAddr, datagram: Bytes) -> Result<(), TransportError> {
        if dst_of(&datagram) != Some(dst) {
            return Err(TransportError::new(
                format!("send datagram to {dst}"),
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "the IP header names another destination",
                ),
            ));
        }
        if self.hub.lose() {
            self.hub.drop_one();
            return Ok(());
        }
        let inbox = lock(&self.hub.ports).get(&dst).and_then(Weak::upgrade);
        let Some(inbox) = inbox else {
            self.hub.drop_one();
            return Ok(());
        };
        let mut st = lock(&inbox.state);
        if st.frames.len() >= MemNetwork::QUEUE_LIMIT {
            drop(st);
            self.hub.drop_one();
            return Ok(());
        }
        st.frames.push_back(datagram);
        drop(st);
        inbox.ready.notify_one();
        self.hub.delivered.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    fn recv(&self, deadline: Option<Instant>) -> Result<Option<Bytes>, TransportError> {
        let mut st = lock(&self.inbox.state);
        loop {
            if let Some(f) = st.frames.pop_front() {
                return Ok(Some(f));
            }
            if st.woken {
                st.woken = false;
                return Ok(None);
            }
            match deadline {
                None => {
                    st = self
                        .inbox
                        .ready
                        .wait(st)
                        .unwrap_or_else(PoisonError::into_inner);
                }
                Some(d) => {
                    let left = d - self.now();
                    if left.is_zero() {
                        return Ok(None);
                    }
                    st = self
                        .inbox
                        .ready
                        .wait_timeout(st, left)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
            }
        }
    }

    fn wake(&self) {
        lock(&self.inbox.state).woken = true;
        self.inbox.ready.notify_one();
    }
}

impl Drop for MemTransport {
    fn drop(&mut self) {
        let mut ports = lock(&self.hub.ports);
        if ports
            .get(&self.addr)
            .is_some_and(|w| w.as_ptr() == Arc::as_ptr(&self.inbox))
        {
            ports.remove(&self.addr);
        }
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use core::time::Duration;

    fn ip4(d: u8) -> IpAddr {
        IpAddr::from([10, 0, 0, d])
    }

    /// A minimal IPv4 header to `dst` (the hub reads only the destination).
    fn datagram(dst: IpAddr) -> Bytes {
        let mut b = vec![0x45u8; 20];
        if let IpAddr::V4(v4) = dst {
            b[16..20].copy_from_slice(&v4.octets());
        }
        Bytes::from(b)
    }

    #[test]
    fn send__routes_by_destination_and_drops_the_unknown() {
        let net = MemNetwork::new();
        let a = net.attach(ip4(1)).expect("free");
        let b = net.attach(ip4(2)).expect("free");
        assert!(net.attach(ip4(1)).is_err(), "one port per address");
        a.send(ip4(2), datagram(ip4(2))).expect("sent");
        a.send(ip4(3), datagram(ip4(3))).expect("vanishes silently");
        assert!(a.send(ip4(2), datagram(ip4(3))).is_err(), "header mismatch");
        let got = b.recv(Some(b.now())).expect("ok");
        assert_eq!(got.as_deref(), Some(&datagram(ip4(2))[..]));
        assert_eq!((net.delivered(), net.dropped()), (1, 1));
        drop(b);
        net.attach(ip4(2)).expect("free again after drop");
    }

    #[test]
    fn recv__returns_on_deadline_and_on_wake() {
        let net = MemNetwork::new();
        let a = net.attach(ip4(1)).expect("free");
        let t0 = a.now();
        assert_eq!(a.recv(Some(t0 + Duration::from_millis(2))).ok(), Some(None));
        assert!(a.now() - t0 >= Duration::from_millis(2));
        a.wake();
        assert_eq!(a.recv(None).ok(), Some(None), "a wake-up is not lost");
    }

    #[test]
    fn with_loss__drops_about_the_given_fraction() {
        assert!(MemNetwork::with_loss(1.5, 1).is_err());
        let net = MemNetwork::with_loss(0.25, 7).expect("valid");
        let a = net.attach(ip4(1)).expect("free");
        let _b = net.attach(ip4(2)).expect("free");
        for _ in 0..4000 {
            a.send(ip4(2), datagram(ip4(2))).expect("sent");
        }
        let dropped = net.dropped();
        assert!((800..1200).contains(&dropped), "seed 7: dropped {dropped}");
    }
}
