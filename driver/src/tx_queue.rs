//! [`TxQueue`]: the host's side of transmit offload. The messages the protocol engine hands
//! over (`proto::core`'s [`Offload`]: a message, a range to send again, or a CANCEL) wait
//! here, and [`TxQueue::pump`] posts them as TX descriptors, payloads placed in
//! [`TxBuffers`], while the payload area, the NIC's transmit engine and the ring have room.
//! Every backend posts through its own call (the driver's `Nic::send`, or a simulated NIC
//! that times the doorbell), so `pump` takes the post as a closure.
//!
//! The NIC's engine picks by SRPT among the messages it holds (its `capacity`: 4 in its
//! scheduler's slots and 1024 parked, in the default build); this queue holds the rest. It
//! posts by SRPT too: the message or range with the fewest bytes first, ties to the older
//! message (the engine's [`Offload::age`]), so a short message behind a burst of long ones
//! waits for one slot, not for the burst. CANCELs go before everything (they free slots and
//! need none), so a message handed over again after a CANCEL of its RPC (RPC_UNKNOWN) never
//! reaches the NIC before that CANCEL.
//!
//! SRPT alone starves: while short messages come faster than the NIC takes them, a longer
//! one waits for ever. As HomaModule's pacer does (`pacer_fifo_fraction`, 50 per mille),
//! a share of the posts ([`TxQueue::FIFO_PER_MILLE`], counted in descriptors) goes to the
//! oldest message instead, so every message leaves in bounded time. Age is the message's,
//! not the hand-over's: a message handed over again after RPC_UNKNOWN keeps its place
//! among messages of its size and its claim on the FIFO turns, however long the queue.
//!
//! Every operation costs a logarithm of the queue's length, a CANCEL or a RETRANSMIT the
//! number of its own RPC's entries: an overloaded host holds hundreds of thousands.

use crate::tx_buffers::{Placement, Released, TxBuffers};
use homa_proto::core::Offload;
use homa_proto::hostif::{TxDescriptor, TxOp};
use homa_proto::policy::FifoTurns;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::fmt;
use std::net::IpAddr;

/// What became of a descriptor [`TxQueue::pump`] handed to its post closure.
#[derive(Debug)]
pub enum Post<E> {
    /// Posted (the doorbell rung, or to be).
    Posted,
    /// The ring is full: again once the NIC has taken some.
    RingFull,
    /// Refused for good: the message is dropped.
    Failed(E),
}

/// Where an entry waits: (bytes to send, message age, arrival), the SRPT order.
type Key = (u32, u64, u64);

/// `key` in FIFO order: (age, arrival, bytes).
fn fifo_order((bytes, age, arrival): Key) -> (u64, u64, u32) {
    (age, arrival, bytes)
}

/// Messages waiting for the TX ring, and the payloads of those posted (see the module doc).
#[derive(Debug)]
pub struct TxQueue {
    buffers: TxBuffers,
    /// CANCELs not posted yet, in order.
    cancels: VecDeque<Offload>,
    /// Messages and ranges not posted yet, in SRPT order.
    waiting: BTreeMap<Key, Offload>,
    /// The same keys in FIFO order ([`fifo_order`]).
    by_age: BTreeSet<(u64, u64, u32)>,
    /// The same keys by RPC (peer, id).
    by_rpc: HashMap<(IpAddr, u64), Vec<Key>>,
    arrivals: u64,
    /// Which posts go to the oldest message.
    fifo: FifoTurns,
}

/// The bytes `o` asks the NIC to send (what SRPT orders by).
fn bytes(o: &Offload) -> u32 {
    match o.op {
        TxOp::Retransmit { length, .. } => length,
        TxOp::SendMessage | TxOp::Cancel => u32::try_from(o.message.len()).unwrap_or(u32::MAX),
    }
}

impl TxQueue {
    /// The share of posts, per mille, that go to the message waiting longest rather than to
    /// the shortest (HomaModule's `pacer_fifo_fraction` default).
    pub const FIFO_PER_MILLE: u32 = homa_proto::policy::DEFAULT_PACER_FIFO_FRACTION;

    /// An empty queue over `buffers`.
    pub fn new(buffers: TxBuffers) -> Self {
        TxQueue {
            buffers,
            cancels: VecDeque::new(),
            waiting: BTreeMap::new(),
            by_age: BTreeSet::new(),
            by_rpc: HashMap::new(),
            arrivals: 0,
            fifo: FifoTurns::new(Self::FIFO_PER_MILLE),
        }
    }

    /// The payload area.
    pub fn buffers(&self) -> &TxBuffers {
        &self.buffers
    }

    /// Messages, ranges and CANCELs not posted yet.
    pub fn waiting(&self) -> usize {
        self.cancels.len() + self.waiting.len()
    }

    /// Queues `o`. A CANCEL first drops what of its RPC still waits (never posted: nothing
    /// of it to stop in the NIC). A RETRANSMIT is dropped, and `push` returns false, when a
    /// RETRANSMIT of its RPC, waiting or out, already holds its range (the receiver asked
    /// again before the first was sent: its timer is shorter than the queue's wait, and it
    /// would have every byte twice more; if bytes of it are lost again, it asks again), or
    /// when its message's SEND_MESSAGE still waits: nothing of it was sent, and the whole
    /// message is on its way (HomaModule resends no byte it has not sent once). Queued, the
    /// shorter range would go first, and the message would reach its receiver as ranges.
    pub fn push(&mut self, o: Offload) -> bool {
        let rpc = (o.dst, o.id);
        match o.op {
            TxOp::Cancel => {
                for key in self.by_rpc.get(&rpc).cloned().unwrap_or_default() {
                    self.remove(key);
                }
                self.cancels.push_back(o);
                return true;
            }
            TxOp::Retransmit { .. } => {
                let waits = (self.by_rpc.get(&rpc).into_iter().flatten()).any(|k| {
                    self.waiting
                        .get(k)
                        .is_some_and(|w| w.op == TxOp::SendMessage || w.op.covers(o.op))
                });
                if waits || self.buffers.out_covers(rpc, o.op) {
                    return false;
                }
            }
            TxOp::SendMessage => {}
        }
        self.arrivals += 1;
        let key = (bytes(&o), o.age, self.arrivals);
        self.by_age.insert(fifo_order(key));
        self.by_rpc.entry(rpc).or_default().push(key);
        self.waiting.insert(key, o);
        true
    }

    /// Takes the entry at `key` out of the queue and its indices.
    fn remove(&mut self, key: Key) -> Option<Offload> {
        let o = self.waiting.remove(&key)?;
        self.by_age.remove(&fifo_order(key));
        let rpc = (o.dst, o.id);
        if let Some(keys) = self.by_rpc.get_mut(&rpc) {
            keys.retain(|k| *k != key);
            if keys.is_empty() {
                self.by_rpc.remove(&rpc);
            }
        }
        Some(o)
    }

    /// The key of the message or range to post next: the fewest bytes, or on a FIFO turn
    /// the oldest.
    fn next_key(&self) -> Option<Key> {
        if self.fifo.oldest_next() {
            let &(age, arrival, bytes) = self.by_age.first()?;
            return Some((bytes, age, arrival));
        }
        self.waiting.keys().next().copied()
    }

    /// The descriptor with `cookie` came back (`TX_DONE`, or an `ERROR`): its payload is
    /// free. `None` for a cookie that holds nothing; else whose it was, for the engine
    /// (`Endpoint::offload_sent`).
    pub fn complete(&mut self, cookie: u64) -> Option<Released> {
        self.buffers.release(cookie)
    }

    /// Drops the next to post: the first CANCEL, else [`next_key`](Self::next_key)'s.
    fn pop_next(&mut self) {
        if self.cancels.pop_front().is_some() {
            return;
        }
        let Some(key) = self.next_key() else {
            return;
        };
        self.fifo.picked();
        self.remove(key);
    }

    /// Posts what waits (CANCELs, then SRPT: see the module doc) through `post`, until the
    /// payload area or the engine's capacity has no room for the next or the ring is full
    /// ([`Post::RingFull`]: it stays first in line). A message that can never be posted
    /// (longer than the area, or [`Post::Failed`]) is dropped and handed to `failed`, so
    /// that none behind it waits for ever. Returns the descriptors posted.
    ///
    /// `post` gets the descriptor, and the message to push with it when its payload is on
    /// chip ([`Placement::Inline`]: post it with `Nic::send_inline`).
    pub fn pump<E: fmt::Display>(
        &mut self,
        mut post: impl FnMut(&TxDescriptor, Option<&[u8]>) -> Post<E>,
        mut failed: impl FnMut(&dyn fmt::Display),
    ) -> u64 {
        let mut posted = 0;
        // The first CANCEL, else the fewest bytes.
        loop {
            let next = self.next_key();
            let Some(o) = (self.cancels.front()).or_else(|| self.waiting.get(&next?)) else {
                break;
            };
            let (desc, inline) = match self.buffers.place(o) {
                Ok(Placement::Post(desc)) => (desc, None),
                Ok(Placement::Inline(desc)) => (desc, Some(&o.message[..])),
                // No room until a completion frees some.
                Ok(Placement::Wait) => break,
                // A CANCEL with nothing of its RPC out.
                Ok(Placement::Nothing) => {
                    self.pop_next();
                    continue;
                }
                Err(e) => {
                    failed(&e);
                    self.pop_next();
                    continue;
                }
            };
            match post(&desc, inline) {
                Post::Posted => {
                    posted += 1;
                    self.pop_next();
                }
                Post::RingFull => {
                    self.buffers.release(desc.cookie);
                    break;
                }
                Post::Failed(e) => {
                    self.buffers.release(desc.cookie);
                    failed(&e);
                    self.pop_next();
                }
            }
        }
        posted
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use crate::{Device, DriverError, MemDevice};
    use bytes::Bytes;
    use std::net::{IpAddr, Ipv4Addr};

    fn offload(id: u64, len: usize, op: TxOp) -> Offload {
        Offload {
            dst: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 9)),
            sport: 40_000,
            dport: 500,
            id,
            message: Bytes::from(vec![id as u8; len]),
            op,
            age: id,
        }
    }

    fn ok(_: &TxDescriptor, _: Option<&[u8]>) -> Post<DriverError> {
        Post::Posted
    }

    #[test]
    fn tx_queue__posts_the_fewest_bytes_first_while_there_is_room_and_drops_what_never_fits() {
        let dev = MemDevice::new();
        let mut q = TxQueue::new(TxBuffers::new(dev.alloc_dma(8192).unwrap(), 3));
        for (id, len) in [(2, 400), (4, 9000), (6, 200), (8, 300), (10, 200)] {
            q.push(offload(id, len, TxOp::SendMessage));
        }
        // A ring of two: 6 and 10 (200 B each, in the order they came) go, 8 finds the ring
        // full.
        let mut ring: Vec<TxDescriptor> = Vec::new();
        let mut errors = Vec::new();
        let mut post = |d: &TxDescriptor, _: Option<&[u8]>| -> Post<DriverError> {
            if ring.len() == 2 {
                return Post::RingFull;
            }
            ring.push(*d);
            Post::Posted
        };
        assert_eq!(q.pump(&mut post, |e| errors.push(e.to_string())), 2);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(q.waiting(), 3);
        assert_eq!(q.buffers().in_flight(), 2, "8's place given back");
        let ids: Vec<u64> = ring.drain(..).map(|d| d.rpc_id).collect();
        assert_eq!(ids, [6, 10]);
        // The NIC took both: 8 goes, then the capacity (3) stops 2; a shorter message that
        // comes meanwhile goes before 2.
        let mut ring2 = Vec::new();
        let mut take = |d: &TxDescriptor, _: Option<&[u8]>| -> Post<DriverError> {
            ring2.push(d.rpc_id);
            Post::Posted
        };
        assert_eq!(q.pump(&mut take, |_| {}), 1, "6, 10 and 8 out");
        q.push(offload(12, 100, TxOp::SendMessage));
        assert!(q.complete(1).is_some());
        assert!(q.complete(1).is_none());
        assert_eq!(q.pump(&mut take, |_| {}), 1);
        assert!(q.complete(2).is_some());
        assert_eq!(q.pump(&mut take, |_| {}), 1);
        // 9000 B never fits the area: dropped, with an error, not waited for. (Cookies: 6 1,
        // 10 2, 8 4 (3 went to the try the full ring refused), 12 5, 2 6.)
        assert!(q.complete(3).is_none());
        assert!(q.complete(4).is_some());
        assert_eq!(q.pump(&mut take, |e| errors.push(e.to_string())), 0);
        assert_eq!(ring2, [8, 12, 2]);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains("9000 bytes"), "{errors:?}");
        assert_eq!(q.waiting(), 0);
        // A CANCEL of 14 (still waiting): both dropped, nothing to post.
        q.push(offload(14, 400, TxOp::SendMessage));
        q.push(offload(14, 400, TxOp::Cancel));
        assert_eq!(q.waiting(), 1);
        let n = q.pump(ok, |_| {});
        assert_eq!((n, q.waiting()), (0, 0));
        // A CANCEL of 2 (out) goes before a shorter message, even with the engine full; the
        // message handed over again after it waits for a slot.
        q.push(offload(18, 100, TxOp::SendMessage));
        assert_eq!(q.pump(ok, |_| {}), 1, "12, 2 and 18 out");
        q.push(offload(16, 50, TxOp::SendMessage));
        q.push(offload(2, 400, TxOp::Cancel));
        q.push(offload(2, 400, TxOp::SendMessage));
        let mut posted = Vec::new();
        q.pump(
            |d: &TxDescriptor, _: Option<&[u8]>| -> Post<DriverError> {
                posted.push(*d);
                Post::Posted
            },
            |_| {},
        );
        let cancel = posted[0];
        assert_eq!(
            (posted.len(), cancel.op, cancel.rpc_id, cancel.cookie),
            (1, TxOp::Cancel, 2, 0)
        );
        assert!(q.complete(5).is_some());
        posted.clear();
        q.pump(
            |d: &TxDescriptor, _: Option<&[u8]>| -> Post<DriverError> {
                posted.push(*d);
                Post::Posted
            },
            |_| {},
        );
        let ids: Vec<u64> = posted.iter().map(|d| d.rpc_id).collect();
        assert_eq!(ids, [16], "a slot for the shortest; 2 waits");
    }

    #[test]
    fn tx_queue__a_long_message_behind_endless_short_ones_still_leaves() {
        let dev = MemDevice::new();
        let mut q = TxQueue::new(TxBuffers::new(dev.alloc_dma(1 << 20).unwrap(), 1 << 12));
        q.push(offload(2, 5_000, TxOp::SendMessage));
        let mut id = 4;
        let mut posted = Vec::new();
        // Two short messages come for every one the NIC takes.
        for _ in 0..100 {
            for _ in 0..2 {
                q.push(offload(id, 10, TxOp::SendMessage));
                id += 2;
            }
            let mut one = true;
            q.pump(
                |d: &TxDescriptor, _: Option<&[u8]>| -> Post<DriverError> {
                    if !std::mem::take(&mut one) {
                        return Post::RingFull;
                    }
                    posted.push(d.rpc_id);
                    Post::Posted
                },
                |_| {},
            );
        }
        let at = posted
            .iter()
            .position(|&i| i == 2)
            .expect("the long one left");
        let turn = (1000 / TxQueue::FIFO_PER_MILLE) as usize;
        assert_eq!(at, turn, "{posted:?}");
        // The FIFO turns take the oldest short ones after it; the rest stay SRPT.
        assert_eq!(
            posted[..turn],
            (2..=turn as u64 + 1).map(|i| 2 * i).collect::<Vec<_>>()[..]
        );
    }

    #[test]
    fn tx_queue__a_message_handed_over_again_while_waiting_keeps_its_place() {
        let dev = MemDevice::new();
        let mut q = TxQueue::new(TxBuffers::new(dev.alloc_dma(1 << 16).unwrap(), 8));
        for id in [2, 4, 6] {
            q.push(offload(id, 100, TxOp::SendMessage));
        }
        // RPC_UNKNOWN restarts 2 while it waits: CANCEL, then the same message again.
        q.push(offload(2, 100, TxOp::Cancel));
        q.push(offload(2, 100, TxOp::SendMessage));
        // A CANCEL that ends an RPC lends its place to nobody else.
        q.push(offload(4, 100, TxOp::Cancel));
        q.push(offload(8, 100, TxOp::SendMessage));
        let mut ids = Vec::new();
        q.pump(
            |d: &TxDescriptor, _: Option<&[u8]>| -> Post<DriverError> {
                if d.op != TxOp::Cancel {
                    ids.push(d.rpc_id);
                }
                Post::Posted
            },
            |_| {},
        );
        assert_eq!(ids, [2, 6, 8]);
        let done = q.complete(1).expect("2's SEND is out");
        assert_eq!((done.id, done.op), (2, TxOp::SendMessage));
    }

    #[test]
    fn tx_queue__a_message_restarted_after_it_left_keeps_its_age() {
        // 2 (5,000 B) went to the NIC; 200 younger short messages wait behind a full ring.
        // The server lost 2's RPC: it comes back (CANCEL, SEND) and is the oldest, so the
        // first FIFO turn takes it, not the short message that came first after it.
        let dev = MemDevice::new();
        let mut q = TxQueue::new(TxBuffers::new(dev.alloc_dma(1 << 20).unwrap(), 1 << 12));
        q.push(offload(2, 5_000, TxOp::SendMessage));
        assert_eq!(q.pump(ok, |_| {}), 1);
        for id in (4..404).step_by(2) {
            q.push(offload(id, 100, TxOp::SendMessage));
        }
        q.push(offload(2, 5_000, TxOp::Cancel));
        q.push(offload(2, 5_000, TxOp::SendMessage));
        let mut ids = Vec::new();
        while ids.len() < 25 {
            q.pump(
                |d: &TxDescriptor, _: Option<&[u8]>| -> Post<DriverError> {
                    if d.op != TxOp::Cancel {
                        if ids.len() == 25 {
                            return Post::RingFull;
                        }
                        ids.push(d.rpc_id);
                    }
                    Post::Posted
                },
                |_| {},
            );
        }
        let turn = (1000 / TxQueue::FIFO_PER_MILLE) as usize;
        // 2's first post earned a share of a turn: the turn is the 20th post since.
        assert_eq!(ids.iter().position(|&i| i == 2), Some(turn - 1), "{ids:?}");
        // A CANCEL of an RPC with many entries waiting drops exactly those.
        for off in [0, 1_000, 2_000] {
            let again = TxOp::Retransmit {
                offset: off,
                length: 500,
            };
            assert!(q.push(offload(500, 3_000, again)));
        }
        let before = q.waiting();
        q.push(offload(500, 3_000, TxOp::Cancel));
        assert_eq!(q.waiting(), before - 3 + 1);
    }

    #[test]
    fn tx_queue__drops_a_retransmit_whose_range_one_waiting_or_out_holds() {
        let dev = MemDevice::new();
        let mut q = TxQueue::new(TxBuffers::new(dev.alloc_dma(1 << 16).unwrap(), 8));
        let again = |offset, length| TxOp::Retransmit { offset, length };
        // A message whose SEND_MESSAGE waits sends every byte: no range of it is queued.
        assert!(q.push(offload(6, 5000, TxOp::SendMessage)));
        assert!(!q.push(offload(6, 5000, again(0, 1000))));
        assert!(q.push(offload(2, 5000, again(1000, 2000))));
        // Held by the waiting one; another RPC's, or a range past it, is not.
        assert!(!q.push(offload(2, 5000, again(1000, 2000))));
        assert!(!q.push(offload(2, 5000, again(1500, 100))));
        assert!(q.push(offload(4, 5000, again(1500, 100))));
        assert!(q.push(offload(2, 5000, again(2500, 1000))));
        assert_eq!(q.waiting(), 4);
        let mut cookies = Vec::new();
        let n = q.pump(
            |d: &TxDescriptor, _: Option<&[u8]>| -> Post<DriverError> {
                cookies.push((d.rpc_id, d.op, d.cookie));
                Post::Posted
            },
            |_| {},
        );
        assert_eq!(n, 4);
        // Out now: still held; a SEND_MESSAGE holds no range (it may have sent it already).
        assert!(!q.push(offload(2, 5000, again(1000, 1))));
        assert!(!q.push(offload(2, 5000, again(3000, 500))));
        assert!(q.push(offload(6, 5000, again(0, 1000))));
        // Its TX_DONE came back: the range is asked for again.
        let first = cookies
            .iter()
            .find(|c| (c.0, c.1) == (2, again(1000, 2000)));
        assert!(q.complete(first.expect("posted").2).is_some());
        assert!(q.push(offload(2, 5000, again(1000, 2000))));
        // A range that ends past u32::MAX is compared without wrapping.
        assert!(again(10, u32::MAX).covers(again(20, 5)));
        assert!(!TxOp::SendMessage.covers(again(0, 1)));
        assert!(!again(0, 1).covers(TxOp::Cancel));
    }
}
