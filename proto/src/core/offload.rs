//! Transmit offload (`Config::tx_offload`): the NIC sends the DATA. The engine hands each
//! outbound message to the NIC whole, as a TX descriptor's worth ([`Offload`]), and each range
//! a RESEND (or an RPC_UNKNOWN restart) asks for again; it emits no DATA packet itself. The
//! NIC cuts the packets, sends the unscheduled bytes at once and the rest as the receiver's
//! GRANTs arrive (homa-nic's transmit engine takes GRANTs off the wire itself), by SRPT among
//! its messages. The engine keeps every other duty: control packets, timers, RESENDs it
//! sends, acks, delivery.
//!
//! From the engine's view a message is sent once handed over: a RESEND for any of its bytes
//! is answered with a retransmission of that range (the NIC may not have sent them yet;
//! duplicates are harmless, the receiver counts them). The host reports each SEND's
//! `TX_DONE` ([`Endpoint::offload_sent`]): until then a message the NIC may send whole
//! counts as being sent (its RPC counts no silence), and a server's NEED_ACK timer starts
//! there. The engine still follows the GRANTs it sees (it sends nothing for
//! them): a RESEND for everything (a client that has heard nothing of its response) is
//! answered with the bytes granted so far, the unscheduled ones at least, never the whole
//! message, which the NIC would send at once as a retransmission. After RPC_UNKNOWN the
//! message is handed over again as new (a SEND, waiting for the new RPC's grants).
//!
//! An RPC that ends while its message may still be in the NIC (the application cancelled
//! it, it timed out, the peer forgot it, or it restarts) gets a CANCEL in the same queue, in
//! order: the NIC stops sending what it holds of the RPC (a message whose receiver never
//! grants would otherwise hold one of its slots for ever).

use super::rpc::Rpc;
use super::rpc::RpcKey;
use super::{Endpoint, RpcState};
use crate::hostif::{TxDescriptor, TxFlags, TxOp, peer_address};
use bytes::Bytes;
use core::net::IpAddr;

/// A message, or a range of one, for the NIC to send, or a CANCEL of what it holds of an
/// RPC: what a TX descriptor carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offload {
    /// The peer.
    pub dst: IpAddr,
    /// Local port.
    pub sport: u16,
    /// The peer's port.
    pub dport: u16,
    /// This host's RPC id (the DATA's `sender_id`).
    pub id: u64,
    /// The whole message (a RETRANSMIT's range is within it).
    pub message: Bytes,
    /// [`TxOp::SendMessage`]: send the message (its unscheduled bytes now, the rest as it is
    /// granted); [`TxOp::Retransmit`]: send that range again now; [`TxOp::Cancel`]: stop
    /// sending everything of this RPC the NIC holds.
    pub op: TxOp,
    /// The message's age in the engine (smaller is older; the sender's SRPT breaks ties by
    /// it). It stays with the message for its whole life, restarts included, so a queue in
    /// front of the NIC can order and age messages the way the engine does.
    pub age: u64,
}

impl Offload {
    /// `op` for `rpc`'s `message`, to its peer.
    fn of(rpc: &Rpc, message: Bytes, op: TxOp) -> Offload {
        Offload {
            dst: rpc.peer,
            sport: rpc.local_port,
            dport: rpc.peer_port,
            id: rpc.id,
            message,
            op,
            age: rpc.msgout.as_ref().map_or(0, |m| m.age),
        }
    }

    /// The TX descriptor that asks the NIC for this: SEND_MESSAGE, or RETRANSMIT of the range,
    /// of the whole message placed at `payload_iova` (a RETRANSMIT's range is an offset into
    /// it), a `TX_DONE` asked for with `cookie`; or a CANCEL (give it the IOVA of one of the
    /// RPC's messages still out: it is checked as a SEND, and reads nothing).
    pub fn descriptor(&self, payload_iova: u64, cookie: u64) -> TxDescriptor {
        TxDescriptor {
            op: self.op,
            flags: TxFlags::default(),
            rpc_id: self.id,
            peer: peer_address(self.dst),
            src_port: self.sport,
            dst_port: self.dport,
            message_length: u32::try_from(self.message.len()).unwrap_or(u32::MAX),
            payload_iova,
            cookie,
        }
    }
}

impl Endpoint {
    /// The next message or range for the NIC to send (with `tx_offload`), in the order they
    /// arose; drain it after [`Endpoint::poll_transmit`].
    pub fn poll_offload(&mut self) -> Option<Offload> {
        self.offloads.pop_front()
    }

    /// With `tx_offload`: the NIC finished a descriptor of RPC `id` to `dst` (its `TX_DONE`,
    /// or an `ERROR`: it will send nothing more of it). For a SEND, the message has left: from
    /// here on its sender counts silence (a client waits for its response, a server for the
    /// ACK of its response). Until then an RPC whose whole message the NIC may send counts
    /// none, however long the message waits in the host's queue or the NIC's. A completion
    /// for an RPC that is gone, or of another kind, changes nothing.
    pub fn offload_sent(&mut self, dst: IpAddr, id: u64, op: TxOp) {
        if op != TxOp::SendMessage {
            return;
        }
        let key = RpcKey::local(dst, id);
        if let Some(rpc) = self.rpcs.get_mut(&key)
            && let Some(m) = rpc.msgout.as_mut()
        {
            m.nic_sent();
            if !rpc.is_client() {
                // NEED_ACK counts from the last byte of the response.
                rpc.done_ticks = 0;
            }
        }
    }

    /// With `tx_offload`: hands RPC `key`'s new outbound message to the NIC whole. Returns
    /// false (and does nothing) without `tx_offload`.
    pub(super) fn offload_message(&mut self, key: RpcKey) -> bool {
        if !self.config.tx_offload {
            return false;
        }
        let Some(rpc) = self.rpcs.get_mut(&key) else {
            return false;
        };
        let Some(m) = rpc.msgout.as_mut() else {
            return false;
        };
        let message = m.hand_over();
        self.metrics.data_bytes_sent += message.len() as u64;
        self.offloads
            .push_back(Offload::of(rpc, message, TxOp::SendMessage));
        true
    }

    /// With `tx_offload`: a CANCEL of what the NIC holds of `rpc`, if it may hold anything
    /// (its message is being sent: handed over, not known complete at the peer).
    pub(super) fn offload_cancel(&mut self, rpc: &Rpc) {
        if !self.config.tx_offload || rpc.state != RpcState::Outgoing {
            return;
        }
        let Some(m) = rpc.msgout.as_ref() else {
            return;
        };
        self.offloads
            .push_back(Offload::of(rpc, m.data(), TxOp::Cancel));
    }

    /// With `tx_offload`: hands RPC `key`'s message to the NIC again as new, after the server
    /// lost the RPC (RPC_UNKNOWN). Returns false (and does nothing) without `tx_offload`.
    pub(super) fn offload_restart(&mut self, key: RpcKey) -> bool {
        if !self.config.tx_offload {
            return false;
        }
        let Some(rpc) = self.rpcs.get_mut(&key) else {
            return false;
        };
        let Some(m) = rpc.msgout.as_mut() else {
            return false;
        };
        let message = m.hand_over_again();
        self.metrics.retransmitted_bytes += message.len() as u64;
        // What the NIC still holds of the first hand-over waits for grants from an RPC the
        // server no longer has: cancelled first (the queue is in order).
        self.offloads
            .push_back(Offload::of(rpc, message.clone(), TxOp::Cancel));
        self.offloads
            .push_back(Offload::of(rpc, message, TxOp::SendMessage));
        true
    }

    /// With `tx_offload`: hands the ranges RPC `key` must send again to the NIC. Returns false
    /// (and does nothing) without `tx_offload`.
    pub(super) fn offload_retransmits(&mut self, key: RpcKey) -> bool {
        if !self.config.tx_offload {
            return false;
        }
        let Some(rpc) = self.rpcs.get_mut(&key) else {
            return false;
        };
        let Some(m) = rpc.msgout.as_mut() else {
            return false;
        };
        let (message, ranges) = (m.data(), m.take_retransmits());
        for (offset, end) in ranges {
            self.metrics.retransmitted_bytes += u64::from(end - offset);
            let length = end - offset;
            let op = TxOp::Retransmit { offset, length };
            self.offloads
                .push_back(Offload::of(rpc, message.clone(), op));
        }
        true
    }
}
