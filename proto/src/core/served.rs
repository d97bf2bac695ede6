//! Requests a server handed to its application and has since forgotten (discarded unanswered,
//! or answered and acknowledged), remembered for a while so that a late copy of one of their
//! packets — duplicated or held back by the network — is not taken for a new request and
//! delivered a second time.
//!
//! Two generations of keys: every `span` timer ticks the older one is dropped, so a key is
//! remembered for between `span` and `2 × span` ticks. The engine uses `resend_ticks` for
//! `span`: a copy that arrives later than a RESEND timeout is one the network held longer
//! than any sender waits before sending again. Memory follows the rate of requests over that
//! span, not the life of the endpoint. A RESEND for a remembered id forgets it: the client is
//! still waiting, its next DATA is the request sent again after RPC_UNKNOWN, and a server
//! that dropped a request unanswered gets it again (host-lib's contract for a dropped reply
//! token).

use core::net::IpAddr;
use rustc_hash::FxHashSet as HashSet;

#[derive(Debug, Default)]
pub(crate) struct Served {
    young: HashSet<(IpAddr, u64)>,
    old: HashSet<(IpAddr, u64)>,
    ticks: u32,
}

impl Served {
    /// Remembers server RPC `id` of client `peer`.
    pub(crate) fn insert(&mut self, peer: IpAddr, id: u64) {
        self.young.insert((peer, id));
    }

    /// Forgets server RPC `id` of client `peer`.
    pub(crate) fn remove(&mut self, peer: IpAddr, id: u64) {
        self.young.remove(&(peer, id));
        self.old.remove(&(peer, id));
    }

    /// Whether nothing is remembered.
    pub(crate) fn is_empty(&self) -> bool {
        self.young.is_empty() && self.old.is_empty()
    }

    /// Whether server RPC `id` of client `peer` was served recently.
    pub(crate) fn contains(&self, peer: IpAddr, id: u64) -> bool {
        self.young.contains(&(peer, id)) || self.old.contains(&(peer, id))
    }

    /// One timer tick; every `span` ticks the oldest generation is forgotten.
    pub(crate) fn tick(&mut self, span: u32) {
        self.ticks += 1;
        if self.ticks >= span.max(1) {
            self.ticks = 0;
            self.old = core::mem::take(&mut self.young);
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.young.len() + self.old.len()
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn served__keys_live_between_one_and_two_spans() {
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let mut s = Served::default();
        s.insert(a, 3);
        for _ in 0..4 {
            s.tick(5);
        }
        s.insert(a, 5);
        assert!(s.contains(a, 3) && s.contains(a, 5) && !s.contains(a, 7));
        s.tick(5); // 3 and 5 become old
        for _ in 0..4 {
            s.tick(5);
        }
        assert!(s.contains(a, 3), "remembered until the second rotation");
        s.tick(5);
        assert!(!s.contains(a, 3) && !s.contains(a, 5));
        assert_eq!(s.len(), 0);
    }
}
