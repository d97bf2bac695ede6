//! The seam between the RPC library and whatever moves frames: the [`Transport`] trait.
//!
//! An endpoint runs the `proto::core` engine over one transport. The transport knows nothing
//! of Homa: it carries whole IP datagrams (IP header first, as
//! [`Transmit::to_ip_bytes`](homa_proto::core::Transmit::to_ip_bytes) builds them and
//! [`FrameRepr::parse`](homa_proto::wire::FrameRepr::parse) with [`LinkType::Ip`] reads them),
//! tells the time, and lets the endpoint's I/O thread sleep until a frame, a deadline or a
//! wake-up, whichever comes first.
//!
//! Implementations here: [`MemNetwork`](crate::MemNetwork)'s in-process ports,
//! [`RawIpTransport`](crate::RawIpTransport) (raw IPv4 sockets, protocol 146) and
//! [`NicTransport`](crate::NicTransport) (a homa-nic through `homa-driver`).
//!
//! # The NIC path
//!
//! [`NicTransport`](crate::NicTransport): `recv` reaps the NIC's completions (the driver's
//! `Nic::receive` rebuilds each packet from its `RX_DATA` or `CONTROL` completion) and hands
//! them on as datagrams; `now` is the host's clock. With transmit offload the NIC sends the
//! DATA: the transport says so ([`Transport::sends_data`]), the endpoint's engine runs with
//! `tx_offload`, and each outbound message (or range asked for again) goes to
//! [`Transport::offload`], which posts it as a TX descriptor; the NIC cuts the packets, takes
//! the GRANTs off the wire and picks among its messages by SRPT. Control packets still go
//! through `send`. When the NIC also takes over the receiver's grants (DESIGN §2) the seam
//! moves further up; that is a later interface, not this one.

use crate::error::{OffloadError, TransportError};
use bytes::Bytes;
use core::fmt;
use core::net::IpAddr;
use homa_proto::core::{Instant, Offload};
use homa_proto::hostif::TxOp;
use homa_proto::wire::ChecksumCapabilities;

/// What a NIC that grants (homa-nic with grant offload) tells its host about grants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NicReport {
    /// The NIC does not grant this inbound message (a homa-nic's `RX_DATA` flags bit 1: its
    /// message table could not hold it): the host grants it (`Endpoint::nic_not_granting`).
    NotGranting {
        /// The sender.
        peer: IpAddr,
        /// The DATA's RPC id (the sender's).
        sender_id: u64,
    },
    /// The NIC sent this GRANT (`GRANT_SENT`; `Endpoint::note_offloaded_grant`).
    Granted {
        /// Where it went.
        peer: IpAddr,
        /// The GRANT, as it went on the wire.
        grant: homa_proto::wire::Repr<'static>,
    },
}

/// Moves IP datagrams for one host address, with a clock and a wake-up.
///
/// Contract:
/// - One endpoint per transport; the transport answers for one address
///   ([`local_addr`](Self::local_addr)) and delivers only datagrams addressed to it.
/// - `send` may be called from any thread, concurrently with `recv`; `recv` and its
///   `wake` are used by the endpoint's single I/O thread (and `wake` by any thread).
/// - A datagram that cannot be sent may be dropped: Homa recovers lost packets. Return an
///   error only for what the caller should hear about.
/// - `now` is monotonic, and `recv` interprets its deadline on the same clock.
pub trait Transport: Send + Sync + fmt::Debug + 'static {
    /// The address this transport sends from and receives for.
    fn local_addr(&self) -> IpAddr;

    /// The current time on this transport's clock.
    fn now(&self) -> Instant;

    /// Sends one IP datagram (IP header included) to `dst`.
    fn send(&self, dst: IpAddr, datagram: Bytes) -> Result<(), TransportError>;

    /// The next received datagram, waiting until one arrives, `deadline` passes (`None`: no
    /// deadline) or [`wake`](Self::wake) is called. `Ok(None)` for the deadline or the
    /// wake-up. A deadline already past never blocks: it returns a datagram already received,
    /// if any.
    fn recv(&self, deadline: Option<Instant>) -> Result<Option<Bytes>, TransportError>;

    /// Makes a `recv` that is blocked return `Ok(None)` promptly; if none is blocked, the next
    /// one that would block returns at once instead (the wake-up is not lost).
    fn wake(&self);

    /// Which checksums software must verify and compute (all of them, unless the device
    /// offloads them).
    fn checksum_caps(&self) -> ChecksumCapabilities {
        ChecksumCapabilities::default()
    }

    /// Whether this transport's device sends the DATA of outbound messages itself (a
    /// homa-nic's transmit engine). The endpoint then runs its engine with `tx_offload` and
    /// hands every message to [`offload`](Self::offload) rather than sending DATA packets.
    fn sends_data(&self) -> bool {
        false
    }

    /// Moves into `out` what the device finished sending since the last call: the peer, the
    /// RPC id and the descriptor's op of each offloaded message or range whose completion
    /// came back (`TX_DONE`, or refused). The endpoint tells its engine
    /// (`Endpoint::offload_sent`), whose sender counts no silence until its message is sent.
    fn take_sent(&self, out: &mut Vec<(IpAddr, u64, TxOp)>) {
        let _ = out;
    }

    /// Moves into `out` what the device reported of its own grants ([`NicReport`]), each
    /// after every datagram [`recv`](Self::recv) returned before it. With grant offload the
    /// endpoint's engine takes them in. Nothing for most transports.
    fn take_nic_reports(&self, out: &mut Vec<NicReport>) {
        let _ = out;
    }

    /// Hands an outbound message, or a range of one to send again, to the device (called only
    /// when [`sends_data`](Self::sends_data)); the device may queue it until it has room.
    /// Any thread may call it. An error fails the client RPC the message belongs to.
    fn offload(&self, o: Offload) -> Result<(), OffloadError> {
        let _ = o;
        Err(TransportError::new(
            "hand a message to the device",
            std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                "this transport sends DATA packets itself",
            ),
        )
        .into())
    }

    /// The endpoint has a whole inbound message from `peer` whose DATA packets carried RPC id
    /// `sender_id`, `length` bytes: a device that tracks inbound messages (a homa-nic's
    /// message table, for its grants) may forget it. Nothing to do for most transports.
    fn message_received(&self, peer: IpAddr, sender_id: u64, length: u32) {
        let _ = (peer, sender_id, length);
    }
}

/// A shared transport: what one handle sends, the others may receive (e.g. a NIC's thread
/// reads the port that a [`NicTransport`](crate::NicTransport) sends through).
impl<T: Transport + ?Sized> Transport for std::sync::Arc<T> {
    fn local_addr(&self) -> IpAddr {
        (**self).local_addr()
    }
    fn now(&self) -> Instant {
        (**self).now()
    }
    fn send(&self, dst: IpAddr, datagram: Bytes) -> Result<(), TransportError> {
        (**self).send(dst, datagram)
    }
    fn recv(&self, deadline: Option<Instant>) -> Result<Option<Bytes>, TransportError> {
        (**self).recv(deadline)
    }
    fn wake(&self) {
        (**self).wake()
    }
    fn checksum_caps(&self) -> ChecksumCapabilities {
        (**self).checksum_caps()
    }
    fn sends_data(&self) -> bool {
        (**self).sends_data()
    }
    fn offload(&self, o: Offload) -> Result<(), OffloadError> {
        (**self).offload(o)
    }
    fn take_sent(&self, out: &mut Vec<(IpAddr, u64, TxOp)>) {
        (**self).take_sent(out)
    }
    fn take_nic_reports(&self, out: &mut Vec<NicReport>) {
        (**self).take_nic_reports(out)
    }
    fn message_received(&self, peer: IpAddr, sender_id: u64, length: u32) {
        (**self).message_received(peer, sender_id, length)
    }
}

/// A source of time for a transport: the OS clock ([`MonotonicClock`]) on a host, a
/// simulator's clock when the host is simulated.
pub trait Clock: Send + Sync + fmt::Debug + 'static {
    /// The current time; never earlier than a time returned before.
    fn now(&self) -> Instant;
}

impl Clock for MonotonicClock {
    fn now(&self) -> Instant {
        MonotonicClock::now(self)
    }
}

/// A monotonic clock with its own origin, for transports that read the OS clock.
#[derive(Debug, Clone, Copy)]
pub struct MonotonicClock {
    origin: std::time::Instant,
}

impl MonotonicClock {
    /// A clock whose origin is now.
    pub fn new() -> Self {
        MonotonicClock {
            origin: std::time::Instant::now(),
        }
    }

    /// The time since the origin.
    pub fn now(&self) -> Instant {
        Instant::from_nanos(u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX))
    }

    /// The OS instant of `t`.
    pub fn to_std(&self, t: Instant) -> std::time::Instant {
        self.origin + core::time::Duration::from_nanos(t.as_nanos())
    }
}

impl Default for MonotonicClock {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    /// A transport that reports one finished message and counts what it is handed.
    #[derive(Debug, Default)]
    struct Reporting {
        received: std::sync::atomic::AtomicU32,
    }

    impl Transport for Reporting {
        fn local_addr(&self) -> IpAddr {
            IpAddr::from([10, 0, 0, 1])
        }
        fn now(&self) -> Instant {
            Instant::ZERO
        }
        fn send(&self, _: IpAddr, _: Bytes) -> Result<(), TransportError> {
            Ok(())
        }
        fn recv(&self, _: Option<Instant>) -> Result<Option<Bytes>, TransportError> {
            Ok(None)
        }
        fn wake(&self) {}
        fn sends_data(&self) -> bool {
            true
        }
        fn take_sent(&self, out: &mut Vec<(IpAddr, u64, TxOp)>) {
            out.push((IpAddr::from([10, 0, 0, 2]), 8, TxOp::SendMessage));
        }
        fn message_received(&self, _: IpAddr, _: u64, _: u32) {
            self.received
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }

    #[test]
    fn arc__forwards_what_the_device_reports() {
        let t = std::sync::Arc::new(Reporting::default());
        let shared: std::sync::Arc<dyn Transport> = std::sync::Arc::new(std::sync::Arc::clone(&t));
        assert!(shared.sends_data());
        let mut sent = Vec::new();
        shared.take_sent(&mut sent);
        assert_eq!(
            sent.len(),
            1,
            "TX_DONEs reach the engine through a shared transport"
        );
        shared.message_received(IpAddr::from([10, 0, 0, 2]), 8, 1);
        assert_eq!(t.received.load(std::sync::atomic::Ordering::Relaxed), 1);
    }
}
