//! Where a small RPC's round trip goes over the `rtl` engine, stage by stage, from the NICs'
//! traces ([`crate::nic::NicEvent`]) and the times the hosts saw the request and the
//! response, beside the floor: what each stage must take at least (the doorbell and the
//! DMA write each cross PCIe once; the wire is the wire).

use crate::nic::NicEvent;
use crate::time::Ps;

/// One stage of a round trip: both directions summed, the median over the RPCs measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stage {
    /// What it is.
    pub name: &'static str,
    /// Its time.
    pub ps: Ps,
    /// The least it can take with this PCIe latency and this fabric.
    pub floor_ps: Ps,
}

/// The stages, in order, and whether a stage's floor is two PCIe crossings (one per
/// direction), the stage itself (the wire), or nothing.
const STAGES: [(&str, Floor); 8] = [
    ("doorbell and pushes (PCIe write)", Floor::Pcie),
    ("descriptor fetch (PCIe read)", Floor::Zero),
    ("payload fetch (PCIe read)", Floor::Zero),
    ("NIC TX (frame built)", Floor::Zero),
    ("wire and switch", Floor::Itself),
    ("NIC RX (parse, DMA issued)", Floor::Zero),
    ("DMA to host memory (PCIe write)", Floor::Pcie),
    ("host", Floor::Zero),
];

#[derive(Debug, Clone, Copy)]
enum Floor {
    Pcie,
    Itself,
    Zero,
}

/// The stages of one direction: the sender's NIC trace from `from` (the host's call) and
/// the receiver's NIC trace up to `to` (the host has the message).
fn direction(
    tx: &[(Ps, NicEvent)],
    rx: &[(Ps, NicEvent)],
    from: Ps,
    to: Ps,
    pcie: Ps,
) -> Option<[Ps; 8]> {
    let first = |trace: &[(Ps, NicEvent)], after: Ps, e: NicEvent| {
        trace
            .iter()
            .filter(|(t, x)| *x == e && *t >= after && *t <= to)
            .map(|(t, _)| *t)
            .min()
    };
    let doorbell = first(tx, from, NicEvent::TxDoorbell)?;
    let out = first(tx, doorbell, NicEvent::FrameOut)?;
    // Fetches from host memory, if any: a descriptor and a payload pushed on chip are read
    // there, with no PCIe read (their time is the NIC's TX stage).
    let fetched = |after: Ps, e: NicEvent| first(tx, after, e).filter(|t| *t <= out);
    let descriptor = fetched(doorbell, NicEvent::DescriptorRead).unwrap_or(doorbell);
    let payload = fetched(descriptor, NicEvent::PayloadRead).unwrap_or(descriptor);
    let into = first(rx, out, NicEvent::FrameIn)?;
    let landed = rx
        .iter()
        .filter(|(t, x)| *x == NicEvent::Landed && *t >= into && *t <= to)
        .map(|(t, _)| *t)
        .max()?;
    let issued = landed.checked_sub(pcie)?.max(into);
    Some([
        doorbell - from,
        descriptor - doorbell,
        payload - descriptor,
        out - payload,
        into - out,
        issued - into,
        landed - issued,
        to - landed,
    ])
}

/// The breakdown of RPCs between host 0 (client, trace `client`) and host 1 (server, trace
/// `server`): `rpcs` holds, per RPC, when the client called, when the server had the
/// request (and answered at once) and when the client had the response. Empty when no RPC
/// could be followed through the traces.
pub(super) fn stages(
    client: &[(Ps, NicEvent)],
    server: &[(Ps, NicEvent)],
    rpcs: &[(Ps, Ps, Ps)],
    pcie: Ps,
) -> Vec<Stage> {
    let per_rpc: Vec<[Ps; 8]> = rpcs
        .iter()
        .filter_map(|&(call, served, done)| {
            let a = direction(client, server, call, served, pcie)?;
            let b = direction(server, client, served, done, pcie)?;
            Some(std::array::from_fn(|i| a[i] + b[i]))
        })
        .collect();
    if per_rpc.is_empty() {
        return Vec::new();
    }
    STAGES
        .iter()
        .enumerate()
        .map(|(i, &(name, floor))| {
            let mut v: Vec<Ps> = per_rpc.iter().map(|s| s[i]).collect();
            v.sort_unstable();
            let ps = v[v.len() / 2];
            let floor_ps = match floor {
                Floor::Pcie => 2 * pcie,
                Floor::Itself => ps,
                Floor::Zero => 0,
            };
            Stage { name, ps, floor_ps }
        })
        .collect()
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use NicEvent::*;

    #[test]
    fn stages__follow_each_direction_through_both_traces() {
        // Request: called at 0, doorbell 500, descriptor 1500, payload 2500, out 2600,
        // in 2900, landed 3500 (issued 3000), served 3500. Response the same from 3500.
        let a = [
            (500, TxDoorbell),
            (1_500, DescriptorRead),
            (2_500, PayloadRead),
            (2_600, FrameOut),
            (6_400, FrameIn),
            (7_000, Landed),
        ];
        let b = [
            (2_900, FrameIn),
            (3_450, Landed),
            (3_500, Landed),
            (4_000, TxDoorbell),
            (5_000, DescriptorRead),
            (6_000, PayloadRead),
            (6_100, FrameOut),
        ];
        let s = stages(&a, &b, &[(0, 3_500, 7_000)], 500);
        let ps: Vec<Ps> = s.iter().map(|s| s.ps).collect();
        assert_eq!(ps, [1_000, 2_000, 2_000, 200, 600, 200, 1_000, 0]);
        assert_eq!(ps.iter().sum::<Ps>(), 7_000);
        let floor: Ps = s.iter().map(|s| s.floor_ps).sum();
        assert_eq!(floor, 2_000 + 600);
        assert!(stages(&a, &[], &[(0, 3_500, 7_000)], 500).is_empty());

        // Pushed on chip: no fetches; the frame leaves 20 ns after the doorbell.
        let a = [
            (500, TxDoorbell),
            (520, FrameOut),
            (2_420, FrameIn),
            (3_020, Landed),
        ];
        let b = [
            (820, FrameIn),
            (1_420, Landed),
            (1_920, TxDoorbell),
            (1_940, FrameOut),
        ];
        let s = stages(&a, &b, &[(0, 1_420, 3_020)], 500);
        let ps: Vec<Ps> = s.iter().map(|s| s.ps).collect();
        assert_eq!(ps, [1_000, 0, 0, 40, 780, 200, 1_000, 0]);
        assert_eq!(ps.iter().sum::<Ps>(), 3_020);
    }
}
