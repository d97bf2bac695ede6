//! Best-case one-way delivery time of a message on an idle fabric.
//!
//! The computation replays the fabric's own store-and-forward pipeline for the message's frames
//! alone: the sender's NIC serializes them back to back after the send delay; each switch hop
//! adds the link propagation and the switch delay after a frame's last bit; the final
//! switch-to-host link serializes frames in arrival order. Across racks, every frame is assumed
//! to cross the core without waiting for another frame of the same message (the best spraying
//! choice); this is what the fabric does whenever no two consecutive frames collide on one
//! aggregation switch, which is always the case when each frame's core serialization time is at
//! most the next frame's edge serialization time, and a lower bound otherwise.

use super::config::FabricConfig;
use super::topology::{HostId, Topology};
use crate::time::{Ps, serialization_ps};

/// See the module doc. An empty frame list gives 0.
pub(crate) fn ideal_delivery_ps(
    config: &FabricConfig,
    topology: &Topology,
    src: HostId,
    dst: HostId,
    frame_wire_bytes: &[u32],
) -> Ps {
    if frame_wire_bytes.is_empty() {
        return 0;
    }
    let edge = |b: u32| serialization_ps(u64::from(b), config.host_link_bps);
    let core = |b: u32| serialization_ps(u64::from(b), config.core_link_bps);
    let hop = config.link_delay_ps.saturating_add(config.switch_delay_ps);
    let cross_rack = !topology.same_rack(src, dst);

    // Time each frame is ready at the egress port towards `dst`, paired with its size.
    let mut sent = config.host_tx_delay_ps;
    let mut ready: Vec<(Ps, u32)> = frame_wire_bytes
        .iter()
        .map(|&bytes| {
            sent = sent.saturating_add(edge(bytes));
            let mut at = sent.saturating_add(hop);
            if cross_rack {
                // TOR uplink, aggregation switch, aggregation downlink, destination TOR.
                let c = core(bytes);
                at = at
                    .saturating_add(c)
                    .saturating_add(hop)
                    .saturating_add(c)
                    .saturating_add(hop);
            }
            (at, bytes)
        })
        .collect();
    ready.sort_by_key(|&(at, _)| at);

    let mut last_bit: Ps = 0;
    for (at, bytes) in ready {
        last_bit = last_bit.max(at).saturating_add(edge(bytes));
    }
    last_bit
        .saturating_add(config.link_delay_ps)
        .saturating_add(config.host_rx_delay_ps)
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use crate::time::US;

    #[test]
    fn ideal_delivery_ps__single_frame_same_rack_by_hand() {
        let c = FabricConfig::default();
        let t = Topology::paper();
        // 1.0 tx + 2 x 1.2304 serialization + 0.25 switch + 0.5 rx.
        let want = 1_000_000 + 2 * 1_230_400 + 250_000 + 500_000;
        assert_eq!(ideal_delivery_ps(&c, &t, 0, 1, &[1538]), want);
    }

    #[test]
    fn ideal_delivery_ps__single_frame_cross_rack_by_hand() {
        let c = FabricConfig::default();
        let t = Topology::paper();
        let want = 1_000_000 + 2 * 1_230_400 + 2 * 307_600 + 3 * 250_000 + 500_000;
        assert_eq!(ideal_delivery_ps(&c, &t, 0, 16, &[1538]), want);
    }

    #[test]
    fn ideal_delivery_ps__pipelines_many_frames() {
        let c = FabricConfig::default();
        let t = Topology::SingleSwitch { hosts: 2 };
        // n full frames: the first crosses both links, the others add one edge time each.
        let n = 10u64;
        let frames = vec![1538u32; n as usize];
        let want = 1_000_000 + (n + 1) * 1_230_400 + 250_000 + 500_000;
        assert_eq!(ideal_delivery_ps(&c, &t, 0, 1, &frames), want);
        assert!(ideal_delivery_ps(&c, &t, 0, 1, &frames) > 10 * US);
        assert_eq!(ideal_delivery_ps(&c, &t, 0, 1, &[]), 0);
    }
}
