//! One RPC as either end sees it: its identity, state and messages.

use super::incoming::MessageIn;
use super::outgoing::MessageOut;
use core::net::IpAddr;

/// Where an RPC is in its life (HomaModule `homa_rpc.h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RpcState {
    /// Client: the request is being sent. Server: the response is being sent.
    Outgoing,
    /// Client: the response is arriving. Server: the request is arriving.
    Incoming,
    /// Server only: the whole request was handed to the application; no response yet.
    InService,
}

/// What one end of an RPC holds of a message, for diagnosis (a watchdog naming a stuck RPC).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageView {
    /// The RPC's state at this end.
    pub state: RpcState,
    /// Message bytes.
    pub length: u32,
    /// Sender: bytes sent at least once (with transmit offload, handed to the NIC).
    /// Receiver: bytes received.
    pub done: u32,
    /// The granted offset as this end knows it.
    pub granted: u32,
    /// Sender: whether it has a packet it may send now (granted bytes unsent, or a
    /// retransmission queued). Receiver: whether it still grants this message.
    pub active: bool,
}

/// How the engine finds an RPC: clients by their local id (unique per host), servers by the
/// client's address and their local id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum RpcKey {
    Client(u64),
    Server(IpAddr, u64),
}

impl RpcKey {
    /// The key of this host's RPC `id` (as it writes it in `sender_id`) with `peer`.
    pub(crate) fn local(peer: IpAddr, id: u64) -> RpcKey {
        if id & 1 == 0 {
            RpcKey::Client(id)
        } else {
            RpcKey::Server(peer, id)
        }
    }
}

/// One RPC.
#[derive(Debug, Clone)]
pub(crate) struct Rpc {
    /// The id this host writes as `sender_id` (even for clients, odd for servers).
    pub(crate) id: u64,
    pub(crate) peer: IpAddr,
    pub(crate) peer_port: u16,
    pub(crate) local_port: u16,
    pub(crate) state: RpcState,
    pub(crate) msgout: Option<MessageOut>,
    pub(crate) msgin: Option<MessageIn>,
    /// Timer ticks without DATA, GRANT or BUSY while something was expected.
    pub(crate) silent_ticks: u32,
    /// Server: ticks since the whole response was sent (for NEED_ACK).
    pub(crate) done_ticks: u32,
}

impl Rpc {
    pub(crate) fn is_client(&self) -> bool {
        self.id & 1 == 0
    }
}
