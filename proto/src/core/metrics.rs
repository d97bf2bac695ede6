//! Free-running counters of one endpoint (HomaModule's `/proc/net/homa_metrics` in spirit):
//! they only grow; readers diff snapshots.

use crate::wire::PacketType;

/// Counters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Metrics {
    /// Packets sent, by type (index = type value - 0x10).
    pub packets_sent: [u64; 9],
    /// Packets received, by type.
    pub packets_received: [u64; 9],
    /// Payload bytes sent in DATA packets, first transmissions only.
    pub data_bytes_sent: u64,
    /// Payload bytes sent again after RESENDs or restarts.
    pub retransmitted_bytes: u64,
    /// Payload bytes received that had already arrived.
    pub duplicate_bytes: u64,
    /// Client RPCs completed (response received).
    pub client_rpcs_completed: u64,
    /// Requests delivered to the application.
    pub requests_delivered: u64,
    /// RPCs aborted for silence.
    pub timeouts: u64,
    /// Packets dropped: no RPC and none to be created (stale, or for a port nobody bound).
    pub dropped_no_rpc: u64,
    /// Packets dropped: inconsistent with the RPC (length changed, too long...).
    pub dropped_invalid: u64,
    /// Restarts after RPC_UNKNOWN.
    pub restarts: u64,
    /// Inbound messages still arriving whose lowest hole outlived the RESEND timeout: its
    /// holes were asked for.
    pub hole_repairs: u64,
    /// With `grant_offload`: GRANTs the NIC reported sending.
    pub offloaded_grants: u64,
    /// With `grant_offload`: inbound messages the engine took over granting because the NIC
    /// had not granted them.
    pub grant_fallbacks: u64,
    /// Of `grant_fallbacks`, the messages the NIC left ungranted for `timeout_ticks` while the
    /// policy ranked them active; the others the NIC said it does not track.
    pub grant_fallbacks_silent: u64,
}

impl Metrics {
    pub(crate) fn sent(&mut self, t: PacketType) {
        if let Some(i) = index(t) {
            self.packets_sent[i] += 1;
        }
    }

    pub(crate) fn received(&mut self, t: PacketType) {
        if let Some(i) = index(t) {
            self.packets_received[i] += 1;
        }
    }

    /// Packets of type `t` sent.
    pub fn sent_of(&self, t: PacketType) -> u64 {
        index(t).map_or(0, |i| self.packets_sent[i])
    }

    /// Packets of type `t` received.
    pub fn received_of(&self, t: PacketType) -> u64 {
        index(t).map_or(0, |i| self.packets_received[i])
    }
}

fn index(t: PacketType) -> Option<usize> {
    let v = u8::from(t);
    (0x10..=0x18).contains(&v).then(|| usize::from(v - 0x10))
}
