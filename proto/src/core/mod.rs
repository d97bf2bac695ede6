//! `proto::core`: the Homa protocol engine of one host, deterministic and sans-IO.
//!
//! The engine does no I/O and reads no clock (the quinn-proto shape). Whoever drives it — the
//! fast simulator, the Verilator co-simulation, a host over the NIC driver — feeds it packets
//! and time and drains what it wants done:
//!
//! - inputs: [`Endpoint::handle_packet`], [`Endpoint::handle_timeout`], and the application's
//!   commands [`Endpoint::send_request`], [`Endpoint::send_response`], [`Endpoint::cancel`],
//!   [`Endpoint::bind`];
//! - outputs, drained after any input, in this order: [`Endpoint::poll_event`] until `None`
//!   (deliveries and failures), [`Endpoint::poll_transmit`] until `None` (control packets
//!   first, then DATA by the sender's SRPT, within the pacer's budget), with
//!   `Config::tx_offload` [`Endpoint::poll_offload`] until `None` (messages and ranges for
//!   the NIC to send: the engine then emits no DATA), then [`Endpoint::poll_timeout`] — the time at which to call `handle_timeout` next (also when
//!   paced data may go).
//!
//! Contract: `now` never goes backwards across calls.
//!
//! The protocol is HomaModule's (SPEC §2): client ids from 2 by 2, the server's id is the
//! client's | 1; unscheduled bytes up to `unsched_bytes` at priorities from the receiver's
//! cutoffs (learnt through CUTOFFS); receiver grants by SRPT over up to `max_overcommit`
//! messages with a window and a `max_incoming` budget and scheduled priorities by rank; FIFO
//! grants to the oldest message; RESEND of exact ranges after `resend_ticks` of silence, BUSY
//! and RPC_UNKNOWN; timeouts; NEED_ACK / ACK and piggybacked acks. The decisions themselves are
//! the pure functions of [`crate::policy`], which the hardware must match.
//!
//! Design notes: state is per RPC ([`rpc`]), with the inbound and outbound halves in
//! `incoming` and `outgoing`; the receiver-side grant scheduler is in `grant`, the pacer in
//! `pacer`, timers in `timer`, packet handling in `dispatch`, and packet production in `xmit`.
//! Payloads are `Bytes`: a DATA packet's payload is a slice of the application's message and
//! a delivered message is the list of received slices, so nothing is copied inside the engine.

mod conf_keys;
mod config;
mod dispatch;
mod grant;
mod incoming;
mod metrics;
mod offload;
mod outgoing;
mod pacer;
mod packet;
mod peer;
pub mod rpc;
mod served;
mod time;
mod timer;
mod xmit;

#[cfg(test)]
mod tests;

pub use config::{Config, ConfigError};
pub use incoming::Message;
pub use metrics::Metrics;
pub use offload::Offload;
pub use outgoing::segment_len;
pub use pacer::ETHERNET_OVERHEAD;
pub use packet::{Packet, Transmit, parse_ip_bytes};
pub use rpc::RpcState;
pub use time::Instant;

use bytes::Bytes;
use core::net::{IpAddr, SocketAddr};
use outgoing::MessageOut;
use peer::Peer;
use rpc::{Rpc, RpcKey};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::VecDeque;

/// Why an RPC failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum RpcError {
    /// Nothing came from the peer for `timeout_ticks`.
    #[error("timed out: no packet from the peer for the timeout period")]
    Timeout,
    /// The server lost the RPC while the response was arriving (it answered RPC_UNKNOWN).
    #[error("the server no longer knows this RPC")]
    ServerLostRpc,
}

/// Why an application command was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    /// Zero-length or longer than `max_message_length`.
    #[error("message length {length} is outside 1..={max}")]
    BadLength {
        /// The length given.
        length: usize,
        /// The configured maximum.
        max: u32,
    },
    /// `send_response` for an RPC that is not waiting for one.
    #[error("no request {id} from {peer} is waiting for a response")]
    NoSuchRequest {
        /// The peer named.
        peer: IpAddr,
        /// The id named.
        id: u64,
    },
    /// The destination's address family differs from this host's.
    #[error("destination {0} is not of this host's address family")]
    AddressFamily(IpAddr),
}

/// A request delivered to a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The client's address and port.
    pub peer: SocketAddr,
    /// The local (bound) port it was sent to.
    pub local_port: u16,
    /// The server-side RPC id (odd); pass it to [`Endpoint::send_response`].
    pub id: u64,
    /// The request message.
    pub message: Message,
}

/// Something for the application.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A whole request arrived at a bound port.
    Request(Request),
    /// The whole response of client RPC `id` arrived; the RPC is over.
    Response {
        /// The client-side RPC id returned by `send_request`.
        id: u64,
        /// The response.
        message: Message,
    },
    /// Client RPC `id` failed; the RPC is over.
    Failed {
        /// The client-side RPC id.
        id: u64,
        /// Why.
        error: RpcError,
    },
}

/// The Homa engine of one host.
#[derive(Debug)]
pub struct Endpoint {
    config: Config,
    addr: IpAddr,
    max_payload: u32,
    ip_header_len: u32,
    max_sched_prio: u8,
    next_client_id: u64,
    /// Age counter for SRPT and grant tie-breaks.
    next_age: u64,
    bound: HashSet<u16>,
    rpcs: HashMap<RpcKey, Rpc>,
    /// Server RPCs whose request was delivered and that are gone since: a late copy of
    /// their DATA is a duplicate, not a new request.
    served: served::Served,
    peers: HashMap<IpAddr, Peer>,
    /// RPCs with a message to send, with what the sender's SRPT needs of each (refreshed by
    /// [`refresh_sender`](Self::refresh_sender) whenever the message changes), so a pick
    /// looks up no RPC.
    sending: Vec<xmit::Sender>,
    /// The last look at `sending` found nothing that may go before this time (the pacer's
    /// wake time, or never), and nothing since has made a message sendable (a new message, a
    /// GRANT, a RESEND, a restart): `poll_transmit` need not look again until then. Most
    /// polls of a busy sender find nothing (its bytes wait for GRANTs or the pacer), and each
    /// look scans every sender. The pacer's wake time only moves later as packets go, so
    /// looking again at the time noted is never too late.
    tx_quiet_until: Option<Instant>,
    /// RPCs with an inbound message that needed grants when it started, until complete.
    grantable: Vec<RpcKey>,
    control: VecDeque<Transmit>,
    /// With `tx_offload`: messages and ranges for the NIC to send, and cancels, in order.
    offloads: VecDeque<Offload>,
    events: VecDeque<Event>,
    pacer: pacer::Pacer,
    /// Which picks of the sender go to its oldest message (`pacer_fifo_fraction`).
    fifo_turns: crate::policy::FifoTurns,
    /// Set when data was held back by the pacer, so poll_timeout reports its wake time.
    paced: bool,
    next_tick: Option<Instant>,
    next_fifo_grant: Option<Instant>,
    /// The per-message grant window of the last grant decision (it follows the number of
    /// active messages when `window` is 0).
    grant_window: u32,
    metrics: Metrics,
    /// Reused buffers for per-packet decisions (no allocation on the fast path).
    scratch_keys: Vec<RpcKey>,
    scratch_cands: Vec<crate::policy::GrantCandidate>,
    scratch_tx: Vec<crate::policy::TxCandidate>,
}

impl Endpoint {
    /// An engine for the host at `addr`. The configuration must be valid.
    pub fn new(config: Config, addr: IpAddr) -> Result<Self, ConfigError> {
        config.validate()?;
        let ip_header_len = if addr.is_ipv4() { 20 } else { 40 };
        Ok(Endpoint {
            max_payload: config.max_payload(ip_header_len),
            max_sched_prio: config.max_sched_prio(),
            pacer: pacer::Pacer::new(
                config.link_mbps,
                config.max_nic_est_backlog_usecs,
                config.defer_min_bytes,
            ),
            fifo_turns: crate::policy::FifoTurns::new(config.pacer_fifo_fraction),
            grant_window: crate::policy::window(config.window, config.max_incoming, 0),
            config,
            addr,
            ip_header_len,
            next_client_id: 2,
            next_age: 0,
            bound: HashSet::default(),
            rpcs: HashMap::default(),
            served: served::Served::default(),
            peers: HashMap::default(),
            sending: Vec::new(),
            tx_quiet_until: None,
            grantable: Vec::new(),
            control: VecDeque::new(),
            offloads: VecDeque::new(),
            events: VecDeque::new(),
            paced: false,
            next_tick: None,
            next_fifo_grant: None,
            metrics: Metrics::default(),
            scratch_keys: Vec::new(),
            scratch_cands: Vec::new(),
            scratch_tx: Vec::new(),
        })
    }

    /// This host's address.
    pub fn addr(&self) -> IpAddr {
        self.addr
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Counters so far.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// Live RPCs (either role).
    pub fn rpc_count(&self) -> usize {
        self.rpcs.len()
    }

    /// The state of client RPC `id`, if it is alive.
    pub fn client_state(&self, id: u64) -> Option<RpcState> {
        self.rpcs.get(&RpcKey::Client(id)).map(|r| r.state)
    }

    /// What client RPC `id` holds of its request (the message it sends), if it is alive.
    pub fn client_request(&self, id: u64) -> Option<rpc::MessageView> {
        let rpc = self.rpcs.get(&RpcKey::Client(id))?;
        let m = rpc.msgout.as_ref()?;
        Some(rpc::MessageView {
            state: rpc.state,
            length: m.length,
            done: m.next_offset,
            granted: m.granted,
            active: m.sendable(),
        })
    }

    /// What the server RPC of client `peer`'s id `client_id` holds of its request (the
    /// message it receives), if it is alive.
    pub fn server_request(&self, peer: IpAddr, client_id: u64) -> Option<rpc::MessageView> {
        let rpc = self.rpcs.get(&RpcKey::Server(peer, client_id | 1))?;
        let m = rpc.msgin.as_ref()?;
        Some(rpc::MessageView {
            state: rpc.state,
            length: m.length,
            done: m.received,
            granted: m.granted,
            active: m.granted < m.length,
        })
    }

    /// Takes `peer`'s unscheduled cutoffs as if it had sent them in a CUTOFFS packet: for a
    /// host that knows its peers' settings (a simulated cluster in steady state), so that
    /// first messages do not go out at the default priority.
    pub fn set_peer_cutoffs(&mut self, peer: IpAddr, cutoffs: [u32; 8], version: u16) {
        let p = self.peer(peer);
        p.cutoffs = cutoffs;
        p.cutoffs[0] = u32::MAX;
        p.cutoff_version = version;
    }

    /// Accepts requests on `port` from now on.
    pub fn bind(&mut self, port: u16) {
        self.bound.insert(port);
    }

    /// Starts a client RPC from local port `sport` to `dest`; returns its id (even).
    pub fn send_request(
        &mut self,
        now: Instant,
        sport: u16,
        dest: SocketAddr,
        message: Bytes,
    ) -> Result<u64, SendError> {
        self.check_length(message.len())?;
        if dest.is_ipv4() != self.addr.is_ipv4() {
            return Err(SendError::AddressFamily(dest.ip()));
        }
        let id = self.next_client_id;
        self.next_client_id += 2;
        let msgout = self.new_msgout(dest.ip(), message);
        let rpc = Rpc {
            id,
            peer: dest.ip(),
            peer_port: dest.port(),
            local_port: sport,
            state: RpcState::Outgoing,
            msgout: Some(msgout),
            msgin: None,
            silent_ticks: 0,
            done_ticks: 0,
        };
        self.rpcs.insert(RpcKey::Client(id), rpc);
        if !self.offload_message(RpcKey::Client(id)) {
            self.refresh_sender(RpcKey::Client(id));
        }
        self.arm_tick(now);
        Ok(id)
    }

    /// Sends the response to server RPC `id` (from an [`Event::Request`]) from `peer`.
    pub fn send_response(
        &mut self,
        now: Instant,
        peer: IpAddr,
        id: u64,
        message: Bytes,
    ) -> Result<(), SendError> {
        self.check_length(message.len())?;
        let key = RpcKey::Server(peer, id);
        match self.rpcs.get(&key) {
            Some(rpc) if rpc.state == RpcState::InService => {}
            _ => return Err(SendError::NoSuchRequest { peer, id }),
        }
        let msgout = self.new_msgout(peer, message);
        let rpc = self.rpcs.get_mut(&key).expect("checked above");
        rpc.msgout = Some(msgout);
        rpc.state = RpcState::Outgoing;
        rpc.silent_ticks = 0;
        if !self.offload_message(key) {
            self.refresh_sender(key);
        }
        self.arm_tick(now);
        Ok(())
    }

    /// Drops request `id` from `peer` without responding (the application will not answer;
    /// the client times out or is told otherwise); `false` if no such request is in service.
    ///
    /// The simulator uses it to model the paper's one-way messages.
    pub fn discard_request(&mut self, peer: IpAddr, id: u64) -> bool {
        let key = RpcKey::Server(peer, id);
        match self.rpcs.get(&key) {
            Some(rpc) if rpc.state == RpcState::InService => {
                self.remove_rpc(key);
                self.served.insert(peer, id);
                true
            }
            _ => false,
        }
    }

    /// Abandons client RPC `id` without telling the server; `false` if it was not alive.
    /// With `tx_offload`, a request still being sent gets a CANCEL for the NIC.
    pub fn cancel(&mut self, id: u64) -> bool {
        self.abort_rpc(RpcKey::Client(id)).is_some()
    }

    /// The next event for the application.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// When `handle_timeout` should next be called, if anything is pending.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let earliest = |a: Option<Instant>, b: Instant| Some(a.map_or(b, |a| a.min(b)));
        let mut t = self.next_tick;
        if let Some(f) = self.next_fifo_grant {
            t = earliest(t, f);
        }
        if self.paced {
            t = earliest(t, self.pacer.wake_time());
        }
        t
    }

    fn check_length(&self, length: usize) -> Result<(), SendError> {
        if length == 0 || length > self.config.max_message_length as usize {
            return Err(SendError::BadLength {
                length,
                max: self.config.max_message_length,
            });
        }
        Ok(())
    }

    fn new_msgout(&mut self, peer: IpAddr, message: Bytes) -> MessageOut {
        let length = message.len() as u32;
        let default_prio = self.config.default_unsched_priority();
        let p = self.peer(peer);
        let prio = if p.cutoff_version == 0 {
            default_prio
        } else {
            crate::policy::unsched_priority(&p.cutoffs, length)
        };
        let age = self.age();
        MessageOut::new(message, self.config.unsched_bytes, prio, age)
    }

    fn age(&mut self) -> u64 {
        self.next_age += 1;
        self.next_age
    }

    fn peer(&mut self, addr: IpAddr) -> &mut Peer {
        let next = self.peers.len() as u32;
        self.peers.entry(addr).or_insert_with(|| Peer::new(next))
    }

    /// Starts the timer tick if it is not running.
    fn arm_tick(&mut self, now: Instant) {
        if self.next_tick.is_none() {
            self.next_tick = Some(now + self.tick());
        }
    }

    fn tick(&self) -> core::time::Duration {
        core::time::Duration::from_micros(u64::from(self.config.tick_usecs))
    }

    fn remove_rpc(&mut self, key: RpcKey) -> Option<Rpc> {
        let rpc = self.rpcs.remove(&key)?;
        self.sending.retain(|s| s.key != key);
        self.grantable.retain(|k| *k != key);
        Some(rpc)
    }

    /// Removes an RPC that ends early (cancelled, timed out, forgotten by its peer): with
    /// `tx_offload`, what the NIC may still hold of its message is cancelled.
    fn abort_rpc(&mut self, key: RpcKey) -> Option<Rpc> {
        let rpc = self.remove_rpc(key)?;
        self.offload_cancel(&rpc);
        Some(rpc)
    }

    /// Queues a control packet to `peer` for RPC `rpc` (ports and id from it).
    fn queue_control(
        &mut self,
        peer: IpAddr,
        sport: u16,
        dport: u16,
        sender_id: u64,
        body: crate::wire::Body<'static>,
    ) {
        let header = crate::wire::Repr {
            sport,
            dport,
            sender_id,
            body,
        };
        self.metrics.sent(header.packet_type());
        self.control.push_back(Transmit {
            dst: peer,
            priority: self.config.control_priority(),
            packet: Packet::control(header),
        });
    }
}
