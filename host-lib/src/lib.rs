//! `homa-host`: the Homa RPC library that applications link.
//!
//! Place in the workspace: the top library layer. It runs the sans-IO protocol engine of
//! `homa_proto::core` over a [`Transport`] — the seam where frames leave the host. Three
//! transports exist: [`MemNetwork`] (in-process, for tests and benchmarks),
//! [`RawIpTransport`] (raw IPv4 sockets, protocol 146, for hosts without the NIC) and
//! [`NicTransport`] (a homa-nic through `homa-driver`, over any `Device`: packets arrive
//! through the NIC's completion ring; with transmit offload messages leave as TX
//! descriptors the NIC sends, control packets through one of the others); see
//! [`transport`].
//!
//! The API, on an [`Endpoint`] bound to a port:
//! - client: [`Endpoint::call`] (blocking), or [`Endpoint::submit`] then
//!   [`Endpoint::poll`] / [`Endpoint::wait`];
//! - server: [`Endpoint::recv_request`] / [`Endpoint::recv_request_timeout`] give a
//!   [`Request`] with its payload and a [`ReplyToken`] for [`Endpoint::reply`].
//!
//! Messages are [`bytes::Bytes`]: a request or response is sliced into packets without
//! copying, and a one-packet message is delivered as a slice of the buffer it arrived in.
//! Every failure is an [`Error`].
//!
//! Threading: an [`Endpoint`]'s methods may be called from any thread; by default it has one
//! I/O thread, or (with [`Drive::Caller`]) the threads that wait drive it themselves (see
//! [`Endpoint`]). Under both is an [`EndpointCore`]: the same endpoint with no thread at all,
//! driven by its caller on the transport's clock, real or simulated.

mod endpoint;
mod endpoint_core;
mod error;
mod frame;
mod io;
mod memnet;
mod nic;
mod rawip;
pub mod transport;

pub use endpoint::{Endpoint, ReplyToken, Request, RpcHandle, Stats};
pub use endpoint_core::{Delivery, EndpointCore, IncomingRequest};
pub use error::{Error, OffloadError, Result, TransportError};
pub use homa_proto::core::{Config, RpcError};
pub use io::{Drive, Options};
pub use memnet::{MemNetwork, MemTransport};
pub use nic::{NicStats, NicTransport};
pub use rawip::RawIpTransport;
pub use transport::{Clock, MonotonicClock, NicReport, Transport};
