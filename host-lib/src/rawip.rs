//! [`RawIpTransport`]: Homa over a raw IPv4 socket of protocol 146 (Linux, needs root or
//! `CAP_NET_RAW`).
//!
//! The socket is bound to one local address, so the kernel hands it only datagrams addressed
//! there; it sends with `IP_HDRINCL`, so the IP header (and the priority in its TOS byte) is
//! the one `homa_proto::wire` built. Several endpoints on one machine need one address each:
//! any of 127.0.0.0/8 works on loopback (server on 127.0.0.1, clients on 127.0.0.2, ...),
//! or one network namespace per endpoint.
//!
//! Receive waits in `mio` on the socket and on a waker (an eventfd), so the endpoint's I/O
//! thread sleeps until a datagram, its next timer, or a wake-up. Datagrams are read into
//! slices of a large shared buffer, which later become the delivered message's bytes
//! without another copy.
//!
//! The kernel's own Homa module, if loaded, also handles protocol 146; do not run both on
//! the same address.

use crate::error::TransportError;
use crate::transport::{MonotonicClock, Transport};
use bytes::{Bytes, BytesMut};
use core::net::{IpAddr, Ipv4Addr, SocketAddrV4};
use core::time::Duration;
use homa_proto::core::Instant;
use homa_proto::wire::PROTOCOL_HOMA;
use mio::unix::SourceFd;
use mio::{Events, Interest, Poll, Token, Waker};
use socket2::{Domain, Protocol, SockAddr, Socket, Type};
use std::io::{self, Read};
use std::os::fd::AsRawFd;
use std::sync::{Mutex, MutexGuard, PoisonError};

const SOCKET: Token = Token(0);
const WAKER: Token = Token(1);
/// The largest IPv4 datagram.
const MAX_DATAGRAM: usize = 65_535;
/// Receive buffers are carved from blocks of this size.
const RX_BLOCK: usize = 1 << 20;
/// Socket buffer sizes asked for (the kernel caps them at `net.core.{r,w}mem_max`).
const SOCKET_BUFFER: usize = 4 << 20;

/// A raw IPv4 socket carrying Homa for one local address.
#[derive(Debug)]
pub struct RawIpTransport {
    socket: Socket,
    addr: Ipv4Addr,
    clock: MonotonicClock,
    rx: Mutex<Rx>,
    waker: Waker,
}

#[derive(Debug)]
struct Rx {
    poll: Poll,
    events: Events,
    /// Zeroed bytes that the next datagrams are read into.
    block: BytesMut,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl RawIpTransport {
    /// Opens a raw socket of protocol 146 bound to `addr`.
    pub fn open(addr: Ipv4Addr) -> Result<Self, TransportError> {
        let fail = |op: &str| {
            let op = format!("{op} (raw IPv4 socket, protocol 146, on {addr})");
            move |e| TransportError::new(op, e)
        };
        let socket = Socket::new(
            Domain::IPV4,
            Type::RAW,
            Some(Protocol::from(i32::from(PROTOCOL_HOMA))),
        )
        .map_err(fail("open socket"))?;
        socket
            .set_header_included_v4(true)
            .map_err(fail("set IP_HDRINCL"))?;
        socket
            .bind(&SockAddr::from(SocketAddrV4::new(addr, 0)))
            .map_err(fail("bind"))?;
        socket
            .set_nonblocking(true)
            .map_err(fail("make non-blocking"))?;
        // Larger buffers only reduce loss under bursts; the kernel may cap them.
        let _ = socket.set_recv_buffer_size(SOCKET_BUFFER);
        let _ = socket.set_send_buffer_size(SOCKET_BUFFER);
        let poll = Poll::new().map_err(fail("create poller"))?;
        poll.registry()
            .register(
                &mut SourceFd(&socket.as_raw_fd()),
                SOCKET,
                Interest::READABLE,
            )
            .map_err(fail("register socket with poller"))?;
        let waker = Waker::new(poll.registry(), WAKER).map_err(fail("create waker"))?;
        Ok(RawIpTransport {
            socket,
            addr,
            clock: MonotonicClock::new(),
            rx: Mutex::new(Rx {
                poll,
                events: Events::with_capacity(8),
                block: BytesMut::zeroed(RX_BLOCK),
            }),
            waker,
        })
    }

    /// The bound address.
    pub fn addr(&self) -> Ipv4Addr {
        self.addr
    }

    /// One non-blocking read; `Ok(None)` if nothing is waiting.
    fn try_read(&self, rx: &mut Rx) -> io::Result<Option<Bytes>> {
        if rx.block.len() < MAX_DATAGRAM {
            rx.block = BytesMut::zeroed(RX_BLOCK);
        }
        loop {
            match (&self.socket).read(&mut rx.block[..MAX_DATAGRAM]) {
                Ok(n) => return Ok(Some(rx.block.split_to(n).freeze())),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(None),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

impl Transport for RawIpTransport {
    fn local_addr(&self) -> IpAddr {
        IpAddr::V4(self.addr)
    }

    fn now(&self) -> Instant {
        self.clock.now()
    }

    fn send(&self, dst: IpAddr, datagram: Bytes) -> Result<(), TransportError> {
        let IpAddr::V4(dst) = dst else {
            return Err(TransportError::new(
                format!("send to {dst}"),
                io::Error::new(io::ErrorKind::InvalidInput, "an IPv4 socket"),
            ));
        };
        match self
            .socket
            .send_to(&datagram, &SockAddr::from(SocketAddrV4::new(dst, 0)))
        {
            Ok(_) => Ok(()),
            // A full socket buffer is loss, which Homa recovers from.
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(()),
            Err(e) => Err(TransportError::new(format!("send datagram to {dst}"), e)),
        }
    }

    fn recv(&self, deadline: Option<Instant>) -> Result<Option<Bytes>, TransportError> {
        let fail = |e| TransportError::new(format!("receive on {}", self.addr), e);
        let mut rx = lock(&self.rx);
        let rx = &mut *rx;
        loop {
            // Edge-triggered: read until the socket is drained before waiting again.
            if let Some(d) = self.try_read(rx).map_err(fail)? {
                return Ok(Some(d));
            }
            let timeout = match deadline {
                None => None,
                Some(d) => {
                    let left = d - self.now();
                    if left.is_zero() {
                        return Ok(None);
                    }
                    // Round up so that the wait does not end a hair before the deadline.
                    Some(left + Duration::from_micros(1))
                }
            };
            match rx.poll.poll(&mut rx.events, timeout) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(fail(e)),
            }
            if rx.events.iter().any(|e| e.token() == WAKER) {
                return Ok(None);
            }
        }
    }

    fn wake(&self) {
        if let Err(e) = self.waker.wake() {
            log::warn!("raw IP transport on {}: wake-up failed: {e}", self.addr);
        }
    }
}
