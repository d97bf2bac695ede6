//! The switches each baseline needs, set once on the fabric: DCTCP's ECN threshold, PIAS's
//! priority levels, pFabric's queues and buffer.

use super::Transport;
use super::packet;
use super::tcp::TcpConfig;
use crate::fabric::FabricConfig;
use crate::workload::Workload;

/// pFabric's switch buffer per port: 36 KB, about two bandwidth-delay products at 10 Gb/s
/// (the pFabric paper's setting).
pub const PFABRIC_BUFFER_BYTES: u64 = 36_000;

/// The switches `transport` needs on `fabric`: DCTCP's ECN marking above `ecn_mark_bytes`
/// (default [`dctcp_mark_bytes`]), the same for PIAS with priority queues in the host NICs
/// too, pFabric's queues with its small buffer (unless `port_buffer_bytes` sets one); TCP's
/// unchanged.
pub fn fabric_for(
    transport: Transport,
    fabric: FabricConfig,
    ecn_mark_bytes: Option<u64>,
) -> FabricConfig {
    match transport {
        Transport::Tcp => fabric,
        Transport::Dctcp => FabricConfig {
            ecn_mark_bytes: Some(
                ecn_mark_bytes.unwrap_or_else(|| dctcp_mark_bytes(fabric.host_link_bps)),
            ),
            ..fabric
        },
        Transport::Pias => FabricConfig {
            ecn_mark_bytes: Some(
                ecn_mark_bytes.unwrap_or_else(|| dctcp_mark_bytes(fabric.host_link_bps)),
            ),
            nic_priorities: true,
            ..fabric
        },
        Transport::Pfabric => FabricConfig {
            pfabric: true,
            port_buffer_bytes: fabric.port_buffer_bytes.or(Some(PFABRIC_BUFFER_BYTES)),
            ..fabric
        },
    }
}

/// PIAS's seven demotion thresholds for `workload`: the sizes below which 1/8, 2/8, ... 7/8
/// of its messages fall, so that each of the eight priorities is where an equal share of the
/// messages finish (an approximation of PIAS's optimised thresholds), ascending and distinct.
pub fn pias_thresholds(workload: &Workload) -> Vec<u64> {
    let mut out: Vec<u64> = Vec::new();
    let mut cum = 0.0;
    let mut next = 1;
    for (size, p) in workload.probabilities() {
        cum += p;
        while next < 8 && cum >= f64::from(next) / 8.0 - 1e-12 {
            if out.last().is_none_or(|&l| l < u64::from(size)) {
                out.push(u64::from(size));
            }
            next += 1;
        }
    }
    out
}

/// DCTCP's marking threshold for a link: 65 full-size packets per 10 Gb/s (the DCTCP paper's
/// setting for 10 Gb/s), bytes.
pub fn dctcp_mark_bytes(link_bps: u64) -> u64 {
    let packets = (65.0 * link_bps as f64 / 10e9).round().max(1.0) as u64;
    packets * u64::from(packet::wire_bytes(TcpConfig::default().mss))
}
