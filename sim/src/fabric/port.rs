//! One egress port: eight strict-priority FIFOs (a host NIC uses only one), the packet on the
//! wire and byte accounting.

use std::collections::VecDeque;

use super::topology::PortKind;
use crate::time::{Ps, SEC, serialization_ps};

/// Number of priority levels at a switch port.
pub const PRIORITIES: usize = 8;

/// Counters of one egress port, as returned by [`super::Fabric::port_stats`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortStats {
    /// What the port drives.
    pub kind: PortKind,
    /// Packets fully transmitted.
    pub packets: u64,
    /// Bytes fully transmitted.
    pub bytes: u64,
    /// Bytes held now (waiting plus the packet on the wire; for a NIC also those in its send delay).
    pub queued_bytes: u64,
    /// Largest `queued_bytes` ever seen.
    pub max_queued_bytes: u64,
}

#[derive(Debug)]
pub(crate) struct Port<P> {
    pub kind: PortKind,
    rate_bps: u64,
    /// Picoseconds per byte when the rate divides 8e12 exactly (the common case), for speed.
    ps_per_byte: Option<u64>,
    queues: [VecDeque<P>; PRIORITIES],
    /// Bit `i` set when `queues[i]` is non-empty.
    nonempty: u8,
    /// The packet being serialized, if any.
    pub on_wire: Option<P>,
    pub queued_bytes: u64,
    pub max_queued_bytes: u64,
    pub packets: u64,
    pub bytes: u64,
}

impl<P> Port<P> {
    pub fn new(kind: PortKind, rate_bps: u64) -> Self {
        let bits = 8 * SEC;
        let ps_per_byte = (rate_bps > 0 && bits.is_multiple_of(rate_bps)).then(|| bits / rate_bps);
        Self {
            kind,
            rate_bps,
            ps_per_byte,
            queues: std::array::from_fn(|_| VecDeque::new()),
            nonempty: 0,
            on_wire: None,
            queued_bytes: 0,
            max_queued_bytes: 0,
            packets: 0,
            bytes: 0,
        }
    }

    /// Serialization time of `bytes` on this port's link.
    #[inline]
    pub fn serialization(&self, bytes: u64) -> Ps {
        match self.ps_per_byte {
            Some(ps) => bytes.saturating_mul(ps),
            None => serialization_ps(bytes, self.rate_bps),
        }
    }

    /// Adds `bytes` to the held bytes and tracks the maximum.
    #[inline]
    pub fn hold(&mut self, bytes: u64) {
        self.queued_bytes += bytes;
        self.max_queued_bytes = self.max_queued_bytes.max(self.queued_bytes);
    }

    /// Appends `packet` to the FIFO of `priority` (values above 7 count as 7).
    #[inline]
    pub fn enqueue(&mut self, priority: u8, packet: P) {
        let p = usize::from(priority).min(PRIORITIES - 1);
        self.queues[p].push_back(packet);
        self.nonempty |= 1 << p;
    }

    /// Removes the head of the highest non-empty priority.
    #[inline]
    pub fn dequeue(&mut self) -> Option<P> {
        if self.nonempty == 0 {
            return None;
        }
        let p = 7 - self.nonempty.leading_zeros() as usize;
        let packet = self.queues[p].pop_front();
        if self.queues[p].is_empty() {
            self.nonempty &= !(1 << p);
        }
        packet
    }

    /// Packets waiting (not the one on the wire).
    #[cfg(test)]
    pub fn waiting(&self) -> usize {
        self.queues.iter().map(VecDeque::len).sum()
    }

    pub fn stats(&self) -> PortStats {
        PortStats {
            kind: self.kind,
            packets: self.packets,
            bytes: self.bytes,
            queued_bytes: self.queued_bytes,
            max_queued_bytes: self.max_queued_bytes,
        }
    }
}

impl<P: super::FabricPacket> Port<P> {
    /// pFabric's dequeue (everything waits in queue 0, in arrival order): the earliest
    /// packet of the flow that holds the lowest-rank packet, so that no flow is reordered.
    pub fn dequeue_ranked(&mut self) -> Option<P> {
        let q = &mut self.queues[0];
        let (_, flow) = q.iter().map(|p| p.rank()).min_by_key(|&(rank, _)| rank)?;
        let i = q
            .iter()
            .position(|p| p.rank().1 == flow)
            .expect("the flow has a packet");
        let packet = q.remove(i);
        if q.is_empty() {
            self.nonempty &= !1;
        }
        packet
    }

    /// Bytes of the packets waiting and on the wire (a host NIC's `queued_bytes` also counts
    /// packets still in the send delay).
    pub fn enqueued_bytes(&self) -> u64 {
        let waiting: u64 = self
            .queues
            .iter()
            .flatten()
            .map(|p| u64::from(p.wire_bytes()))
            .sum();
        waiting
            + self
                .on_wire
                .as_ref()
                .map_or(0, |p| u64::from(p.wire_bytes()))
    }

    /// pFabric's drop: makes room for `bytes` more when `used` of `cap` bytes are taken, by
    /// dropping waiting packets of a higher rank than `rank`, highest first. All or nothing:
    /// returns the packets dropped, or `None`, dropping none, when even all of them would
    /// leave no room (the arriving packet is then the one to drop).
    pub fn evict_for(&mut self, bytes: u64, rank: u64, used: u64, cap: u64) -> Option<u64> {
        let need = used.saturating_add(bytes).saturating_sub(cap);
        let q = &mut self.queues[0];
        let above: u64 = q
            .iter()
            .filter(|p| p.rank().0 > rank)
            .map(|p| u64::from(p.wire_bytes()))
            .sum();
        if above < need {
            return None;
        }
        let (mut freed, mut dropped) = (0, 0);
        while freed < need {
            let (i, _) = q
                .iter()
                .enumerate()
                .map(|(i, p)| (i, p.rank().0))
                .max_by_key(|&(i, r)| (r, i))
                .expect("enough bytes above the rank wait");
            let p = q.remove(i).expect("indexed");
            let b = u64::from(p.wire_bytes());
            freed += b;
            self.queued_bytes -= b;
            dropped += 1;
        }
        if q.is_empty() {
            self.nonempty &= !1;
        }
        Some(dropped)
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn dequeue__strict_priority_then_fifo() {
        let mut port = Port::new(PortKind::ToHost { host: 0 }, 10_000_000_000);
        port.enqueue(0, "low1");
        port.enqueue(3, "mid");
        port.enqueue(0, "low2");
        port.enqueue(7, "high");
        port.enqueue(200, "clamped-high");
        let order: Vec<_> = std::iter::from_fn(|| port.dequeue()).collect();
        assert_eq!(order, ["high", "clamped-high", "mid", "low1", "low2"]);
        assert_eq!(port.dequeue(), None);
    }

    #[test]
    fn serialization__fast_path_agrees_with_general_formula() {
        for rate in [
            10_000_000_000,
            40_000_000_000,
            25_000_000_000,
            3_000_000_007,
        ] {
            let port: Port<()> = Port::new(PortKind::HostNic { host: 0 }, rate);
            for bytes in [0, 1, 64, 1538, 9000] {
                assert_eq!(port.serialization(bytes), serialization_ps(bytes, rate));
            }
        }
    }

    #[derive(Debug, Clone, PartialEq)]
    struct Ranked(u64, u64, u32);
    impl super::super::FabricPacket for Ranked {
        fn src(&self) -> usize {
            0
        }
        fn dst(&self) -> usize {
            1
        }
        fn wire_bytes(&self) -> u32 {
            self.2
        }
        fn priority(&self) -> u8 {
            0
        }
        fn rank(&self) -> (u64, u64) {
            (self.0, self.1)
        }
    }

    #[test]
    fn dequeue_ranked__lowest_rank_flow_first_in_its_own_order() {
        let mut port = Port::new(PortKind::ToHost { host: 0 }, 10_000_000_000);
        // Flow 7's first packet has rank 50, its second (sent later, fewer bytes left) 40;
        // flow 8 has rank 45.
        for p in [Ranked(50, 7, 100), Ranked(45, 8, 100), Ranked(40, 7, 100)] {
            port.enqueue(0, p);
        }
        let order: Vec<_> = std::iter::from_fn(|| port.dequeue_ranked()).collect();
        assert_eq!(
            order,
            [Ranked(50, 7, 100), Ranked(40, 7, 100), Ranked(45, 8, 100)]
        );
    }

    #[test]
    fn evict_for__drops_the_highest_ranks_above_the_arrival_only() {
        let mut port = Port::new(PortKind::ToHost { host: 0 }, 10_000_000_000);
        for p in [Ranked(10, 1, 500), Ranked(90, 2, 500), Ranked(60, 3, 500)] {
            port.hold(500);
            port.enqueue(0, p);
        }
        // Room for 500 more in 1,500: drop one, the rank-90 packet.
        assert_eq!(port.evict_for(500, 20, port.queued_bytes, 1_500), Some(1));
        assert_eq!(port.queued_bytes, 1_000);
        // An arrival of rank 95 is itself the worst: nothing to evict for it.
        assert_eq!(port.evict_for(500, 95, port.queued_bytes, 1_000), None);
        assert_eq!(port.waiting(), 2);
        // Rank 30 needs 500 bytes of room; only the rank-60 packet is above it: that will do.
        // Rank 30 needing 1,000 bytes would need the rank-10 packet too: nothing is dropped.
        assert_eq!(port.evict_for(1_000, 30, port.queued_bytes, 1_000), None);
        assert_eq!(port.waiting(), 2, "all or nothing");
        assert_eq!(port.evict_for(500, 30, port.queued_bytes, 1_000), Some(1));
        // Room for 500 more in 500 for rank 5: the last one goes.
        assert_eq!(port.evict_for(500, 5, port.queued_bytes, 500), Some(1));
        assert_eq!(port.waiting(), 0);
        assert_eq!(port.enqueued_bytes(), 0);
        assert_eq!(port.dequeue_ranked(), None);
    }

    #[test]
    fn hold__tracks_maximum() {
        let mut port: Port<()> = Port::new(PortKind::HostNic { host: 0 }, 1);
        port.hold(10);
        port.hold(5);
        port.queued_bytes -= 12;
        port.hold(1);
        assert_eq!((port.queued_bytes, port.max_queued_bytes), (4, 15));
    }
}
