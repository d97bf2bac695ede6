//! The crate's one error type.

use core::net::SocketAddr;
use homa_proto::core::{ConfigError, RpcError};
use std::io;
use std::sync::Arc;

/// What can go wrong in an RPC or an endpoint.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A local deadline passed first: `wait` or `recv_request_timeout` found nothing in
    /// time. The RPC (if any) is still alive; waiting again is allowed.
    #[error("timed out waiting")]
    Timeout,
    /// The RPC to `peer` failed: the peer was silent for the engine's timeout period (dead or
    /// unreachable host), or the server lost the RPC (it answered RPC_UNKNOWN).
    #[error("failed to complete the RPC to {peer}: peer unreachable")]
    Unreachable {
        /// The server the request was sent to.
        peer: SocketAddr,
        /// What the protocol engine saw.
        #[source]
        cause: RpcError,
    },
    /// The message is longer than the configuration (or the device that sends it) allows.
    #[error("message of {length} bytes is longer than the maximum {max}")]
    MessageTooLong {
        /// The length given.
        length: usize,
        /// The configured `max_message_length` (or the device's limit).
        max: u32,
    },
    /// The transport (socket, in-memory network, device) failed.
    #[error("transport failure")]
    Transport(#[from] TransportError),
    /// The endpoint's I/O loop has stopped: the endpoint was closed, or its transport failed
    /// (the cause, if any, is the source).
    #[error("the endpoint is closed")]
    Closed {
        /// The transport failure that stopped the I/O loop, if it was one.
        #[source]
        cause: Option<Arc<TransportError>>,
    },
    /// A caller error: an empty message, a destination of the wrong address family, a handle
    /// or token of another endpoint, a result already taken...
    #[error("bad argument: {0}")]
    BadArgument(String),
    /// The engine configuration is invalid.
    #[error("invalid Homa configuration")]
    Config(#[from] ConfigError),
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// A failed transport operation: which one, and the OS (or device) error.
///
/// Transports that are not sockets (an in-memory network, a NIC device) wrap their own
/// errors in an `io::Error` (`io::Error::other`), so that one type crosses the seam.
#[derive(Debug, thiserror::Error)]
#[error("failed to {op}")]
pub struct TransportError {
    /// The operation, phrased to follow "failed to" ("open raw IP socket", "receive frame").
    pub op: String,
    /// The underlying error.
    #[source]
    pub source: io::Error,
}

impl TransportError {
    /// An error of operation `op`.
    pub fn new(op: impl Into<String>, source: io::Error) -> Self {
        TransportError {
            op: op.into(),
            source,
        }
    }
}

/// Why a transport that sends DATA itself (a NIC's transmit engine) could not take a
/// message ([`Transport::offload`](crate::Transport::offload)).
#[derive(Debug, thiserror::Error)]
pub enum OffloadError {
    /// The device cannot send a message this long (its message limit, or the size of the area
    /// its payloads are placed in).
    #[error("message of {length} bytes is longer than the device sends (at most {max})")]
    TooLong {
        /// The message's length.
        length: usize,
        /// The device's limit.
        max: u32,
    },
    /// The device cannot send to this peer (a homa-nic sends to IPv4 peers only).
    #[error("the device cannot send to {0}")]
    Peer(core::net::IpAddr),
    /// The transport or its device failed.
    #[error(transparent)]
    Transport(#[from] TransportError),
}

impl From<OffloadError> for Error {
    fn from(e: OffloadError) -> Self {
        match e {
            OffloadError::TooLong { length, max } => Error::MessageTooLong { length, max },
            OffloadError::Peer(ip) => Error::BadArgument(format!(
                "this endpoint's device cannot send to {ip} (IPv4 peers only)"
            )),
            OffloadError::Transport(t) => Error::Transport(t),
        }
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn display__names_the_failure_and_keeps_the_source() {
        let e = Error::from(TransportError::new(
            "open raw IP socket",
            io::Error::from(io::ErrorKind::PermissionDenied),
        ));
        assert_eq!(e.to_string(), "transport failure");
        let src = e.source().expect("has a source");
        assert_eq!(src.to_string(), "failed to open raw IP socket");
        assert!(src.source().is_some());

        let e = Error::Unreachable {
            peer: "10.0.0.2:500".parse().expect("address"),
            cause: RpcError::Timeout,
        };
        assert_eq!(
            e.to_string(),
            "failed to complete the RPC to 10.0.0.2:500: peer unreachable"
        );
        assert!(
            e.source()
                .is_some_and(|s| s.to_string().contains("timed out"))
        );

        let e = Error::MessageTooLong {
            length: 1_000_001,
            max: 1_000_000,
        };
        assert_eq!(
            e.to_string(),
            "message of 1000001 bytes is longer than the maximum 1000000"
        );
        assert!(Error::Closed { cause: None }.source().is_none());
    }
}
