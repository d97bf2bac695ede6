//! The baselines' packets on the fabric: TCP segments and ACKs with their IPv4 and Ethernet
//! overheads and ECN bits.

use super::tcp::Segment;
use crate::fabric::{FabricPacket, HostId};
use homa_proto::core::ETHERNET_OVERHEAD;

/// IPv4 (20) and TCP (20) headers, no options.
const HEADERS: u32 = 40;

/// Bytes on an Ethernet link for a TCP segment of `payload` bytes: headers, the 60-byte
/// minimum frame, FCS, preamble and inter-frame gap.
pub(crate) fn wire_bytes(payload: u32) -> u32 {
    (14 + HEADERS + payload).max(60) + ETHERNET_OVERHEAD - 14
}

/// What a packet carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Body {
    /// Stream data of the connection `src` → `dst` (pFabric: `seq` is the packet's index).
    Data(Segment),
    /// The acknowledgement of the connection `dst` → `src`: every byte before `ack`, and
    /// whether the segment it answers was marked Congestion Experienced.
    Ack { ack: u64, ece: bool },
}

/// A TCP packet on the fabric.
#[derive(Debug, Clone)]
pub(crate) struct TcpPacket {
    pub src: HostId,
    pub dst: HostId,
    /// Which of the pair's connections (0 when there is one; PIAS: the message).
    pub conn: u64,
    /// pFabric: the flow (message) it belongs to, and its rank (the flow's bytes left; 0
    /// for an ACK). TCP: 0 and 0.
    pub flow: u64,
    pub rank: u64,
    /// Switch priority (PIAS's level; 0 for the others).
    pub priority: u8,
    pub body: Body,
    /// ECN-capable transport (DCTCP's segments).
    pub ect: bool,
    /// Marked Congestion Experienced by a switch.
    pub ce: bool,
}

impl FabricPacket for TcpPacket {
    fn src(&self) -> HostId {
        self.src
    }
    fn dst(&self) -> HostId {
        self.dst
    }
    fn wire_bytes(&self) -> u32 {
        match self.body {
            Body::Data(s) => wire_bytes(s.len),
            Body::Ack { .. } => wire_bytes(0),
        }
    }
    fn priority(&self) -> u8 {
        self.priority
    }
    fn ecn_capable(&self) -> bool {
        self.ect
    }
    fn mark_ce(&mut self) {
        self.ce = true;
    }
    fn rank(&self) -> (u64, u64) {
        (self.rank, self.flow)
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn wire_bytes__full_segment_and_bare_ack() {
        assert_eq!(wire_bytes(1_460), 1_538);
        assert_eq!(wire_bytes(0), 84);
        assert_eq!(wire_bytes(6), 84);
        assert_eq!(wire_bytes(7), 85);
    }
}
