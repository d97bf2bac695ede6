//! Packet-level network fabric: hosts, links and store-and-forward switches, generic over the
//! packet type and free of any transport logic.
//!
//! Every link serializes one packet at a time at its rate; a packet moves on only after its
//! last bit has arrived. Host NICs send from one FIFO; switch egress ports serve eight
//! strict-priority FIFOs (7 first), may drop-tail when a byte budget is set and may mark
//! ECN-capable packets above a queue threshold. Cross-rack
//! packets are sprayed over the aggregation switches at random per packet. Loss, duplication
//! and reordering can be injected on the last hop. All randomness comes from the configured
//! seed, so a run is a pure function of its inputs.

mod config;
mod engine;
mod ideal;
mod port;
mod topology;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod traffic_tests;

pub use config::{FabricConfig, FabricError, MAX_DELAY_PS};
pub use engine::Fabric;
pub use port::{PRIORITIES, PortStats};
pub use topology::{HostId, MAX_HOSTS, PortKind, Topology};

use crate::time::Ps;

/// What the fabric needs to know about a packet.
pub trait FabricPacket {
    /// Sending host.
    fn src(&self) -> HostId;
    /// Receiving host.
    fn dst(&self) -> HostId;
    /// Bytes on the wire, including whatever Ethernet framing overhead the caller counts.
    fn wire_bytes(&self) -> u32;
    /// Switch priority, 0..=7 with 7 highest; larger values count as 7.
    fn priority(&self) -> u8;
    /// Whether a switch may mark the packet instead of queueing it silently (the IP header's
    /// ECT codepoint); packets that are not ECN-capable are never marked.
    fn ecn_capable(&self) -> bool {
        false
    }
    /// A switch marks the packet Congestion Experienced (called only when `ecn_capable`).
    fn mark_ce(&mut self) {}
    /// pFabric's scheduling key `(rank, flow)` (with `FabricConfig::pfabric`): lower ranks go
    /// first, each flow in its own order, and a full switch port drops its highest rank.
    /// Every packet has rank 0 of flow 0 by default: first in, first out.
    fn rank(&self) -> (u64, u64) {
        (0, 0)
    }
}

/// A packet handed to its destination host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery<P> {
    /// When the host receives it (after the receive delay).
    pub time: Ps,
    /// The receiving host.
    pub host: HostId,
    /// The packet.
    pub packet: P,
}

/// Counters of a [`Fabric`] since it was built.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FabricStats {
    /// Packets accepted by `host_send`.
    pub packets_sent: u64,
    /// Packets delivered to hosts (duplicates included).
    pub packets_delivered: u64,
    /// Bytes delivered to hosts (duplicates included).
    pub bytes_delivered: u64,
    /// Packets refused by `host_send` because the source or destination is not a host.
    pub invalid_packets: u64,
    /// Packets dropped because a switch egress buffer (with `pfabric`, a host NIC's too)
    /// was full.
    pub buffer_drops: u64,
    /// Packets marked Congestion Experienced by a switch (`ecn_mark_bytes`).
    pub ecn_marks: u64,
    /// Packets dropped by injected loss.
    pub injected_losses: u64,
    /// Extra copies delivered by injected duplication.
    pub injected_duplicates: u64,
    /// Packets delayed by injected reordering.
    pub injected_reorders: u64,
    /// Link transmissions completed (packet-hops, host NIC links included).
    pub packet_hops: u64,
    /// Largest number of bytes ever held at one switch egress port.
    pub max_switch_queue_bytes: u64,
    /// Largest backlog ever held by one host NIC (see [`Fabric::host_backlog_bytes`]).
    pub max_host_backlog_bytes: u64,
}
