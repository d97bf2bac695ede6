//! How simulated hosts meet the fabric: addresses, packets with their wire size, and the
//! frames a message becomes.

use crate::fabric::{FabricPacket, HostId};
use homa_proto::core::{Config, ETHERNET_OVERHEAD, Packet, Transmit, segment_len};
use homa_proto::wire::field::homa::DATA_HEADER_LEN;
use std::net::{IpAddr, Ipv4Addr};

/// Host `i`'s address: 10.0.0.0 + i + 1.
pub(crate) fn addr_of(i: HostId) -> IpAddr {
    IpAddr::V4(Ipv4Addr::from(0x0a00_0000u32 + i as u32 + 1))
}

/// The host of an address made by [`addr_of`].
pub(crate) fn host_of(a: IpAddr) -> HostId {
    match a {
        IpAddr::V4(v4) => (u32::from(v4) - 0x0a00_0000 - 1) as HostId,
        IpAddr::V6(_) => usize::MAX,
    }
}

/// Bytes on an Ethernet link for a Homa packet of `homa_len` bytes over an IP header of
/// `ip_len` bytes, with the 60-byte minimum frame.
pub(crate) fn wire_bytes(homa_len: u32, ip_len: u32) -> u32 {
    let frame = (14 + ip_len + homa_len).max(60);
    frame + ETHERNET_OVERHEAD - 14
}

/// The wire sizes of the DATA frames a message of `size` bytes becomes (the packetisation of
/// `proto::core`: full packets, cut at the unscheduled limit).
pub(crate) fn frames_of(config: &Config, size: u32) -> Vec<u32> {
    let max = config.max_payload(20);
    let unsched = config.unsched_bytes.min(size);
    let mut frames = Vec::new();
    let mut at = 0;
    while at < size {
        let len = segment_len(at, unsched, size, max);
        frames.push(wire_bytes(DATA_HEADER_LEN as u32 + len, 20));
        at += len;
    }
    frames
}

/// A packet on the simulated fabric.
#[derive(Debug, Clone)]
pub(crate) struct SimPacket {
    pub(crate) src: HostId,
    pub(crate) dst: HostId,
    priority: u8,
    wire: u32,
    pub(crate) packet: Packet,
}

impl SimPacket {
    pub(crate) fn new(src: HostId, dst: HostId, t: Transmit) -> Self {
        SimPacket {
            src,
            dst,
            priority: t.priority,
            wire: wire_bytes(t.packet.len() as u32, 20),
            packet: t.packet,
        }
    }
}

impl FabricPacket for SimPacket {
    fn src(&self) -> HostId {
        self.src
    }
    fn dst(&self) -> HostId {
        self.dst
    }
    fn wire_bytes(&self) -> u32 {
        self.wire
    }
    fn priority(&self) -> u8 {
        self.priority
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn addr_of__roundtrips() {
        for i in [0, 1, 143, 70_000] {
            assert_eq!(host_of(addr_of(i)), i);
        }
    }

    #[test]
    fn frames_of__cuts_at_unscheduled_limit() {
        let c = Config {
            unsched_bytes: 2_000,
            ..Config::default()
        };
        // 1424 payload bytes per packet over IPv4 at MTU 1500: 1424 + 576 | 1424 + 1000.
        let f = frames_of(&c, 4_424);
        // Each frame: payload + 56 (Homa) + 20 (IPv4) + 14 (Ethernet) + 24 (FCS, preamble, gap).
        assert_eq!(f, [1538, 576 + 114, 1538, 1000 + 114]);
        assert_eq!(frames_of(&c, 1), [115]);
    }
}
