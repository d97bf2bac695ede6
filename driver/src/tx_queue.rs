//! [`TxQueue`]: the host's side of transmit offload. The messages the protocol engine hands
//! over (`proto::core`'s [`Offload`]: a message, a range to send again, or a CANCEL) wait
//! here in order, and [`TxQueue::pump`] posts them as TX descriptors, payloads placed in
//! [`TxBuffers`], while the payload area, the NIC's transmit engine and the ring have room.
//! Every backend posts through its own call (the driver's `Nic::send`, or a simulated NIC
//! that times the doorbell), so `pump` takes the post as a closure.

use crate::tx_buffers::{Placement, TxBuffers};
use homa_proto::core::Offload;
use homa_proto::hostif::{TxDescriptor, TxOp};
use std::collections::VecDeque;
use std::fmt;

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

/// Messages waiting for the TX ring, and the payloads of those posted (see the module doc).
#[derive(Debug)]
pub struct TxQueue {
    buffers: TxBuffers,
    waiting: VecDeque<Offload>,
}

impl TxQueue {
    /// An empty queue over `buffers`.
    pub fn new(buffers: TxBuffers) -> Self {
        TxQueue {
            buffers,
            waiting: VecDeque::new(),
        }
    }

    /// The payload area.
    pub fn buffers(&self) -> &TxBuffers {
        &self.buffers
    }

    /// Messages not posted yet.
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }

    /// Queues `o` behind what waits. A CANCEL first drops what of its RPC still waits (never
    /// posted: nothing of it to stop in the NIC). A RETRANSMIT whose range a RETRANSMIT of
    /// its RPC, waiting or out, already holds is dropped, and `push` returns false: the
    /// receiver asked again before the first was sent (its timer is shorter than the
    /// queue's wait), and would have every byte twice more; if bytes of it are lost again,
    /// it asks again.
    pub fn push(&mut self, o: Offload) -> bool {
        let rpc = (o.dst, o.id);
        match o.op {
            TxOp::Cancel => self.waiting.retain(|w| (w.dst, w.id) != rpc),
            TxOp::Retransmit { .. } => {
                let waits =
                    (self.waiting.iter()).any(|w| (w.dst, w.id) == rpc && w.op.covers(o.op));
                if waits || self.buffers.out_covers(rpc, o.op) {
                    return false;
                }
            }
            TxOp::SendMessage => {}
        }
        self.waiting.push_back(o);
        true
    }

    /// The descriptor with `cookie` came back (`TX_DONE`, or an `ERROR`): its payload is
    /// free. False for a cookie that holds nothing.
    pub fn complete(&mut self, cookie: u64) -> bool {
        self.buffers.release(cookie)
    }

    /// Posts what waits, in order, through `post`, until the payload area or the engine's
    /// capacity has no room or the ring is full ([`Post::RingFull`]: the descriptor stays
    /// first in line). A message that can never be posted (longer than the area, or
    /// [`Post::Failed`]) is dropped and handed to `failed`, so that none behind it waits for
    /// ever. Returns the descriptors posted.
    pub fn pump<E: fmt::Display>(
        &mut self,
        mut post: impl FnMut(&TxDescriptor) -> Post<E>,
        mut failed: impl FnMut(&dyn fmt::Display),
    ) -> u64 {
        let mut posted = 0;
        while let Some(o) = self.waiting.front() {
            let desc = match self.buffers.place(o) {
                Ok(Placement::Post(desc)) => desc,
                // No room until a completion frees some.
                Ok(Placement::Wait) => break,
                // A CANCEL with nothing of its RPC out.
                Ok(Placement::Nothing) => {
                    self.waiting.pop_front();
                    continue;
                }
                Err(e) => {
                    failed(&e);
                    self.waiting.pop_front();
                    continue;
                }
            };
            match post(&desc) {
                Post::Posted => {
                    posted += 1;
                    self.waiting.pop_front();
                }
                Post::RingFull => {
                    self.buffers.release(desc.cookie);
                    break;
                }
                Post::Failed(e) => {
                    self.buffers.release(desc.cookie);
                    failed(&e);
                    self.waiting.pop_front();
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
        }
    }

    fn ok(_: &TxDescriptor) -> Post<DriverError> {
        Post::Posted
    }

    #[test]
    fn tx_queue__posts_in_order_while_there_is_room_and_drops_what_never_fits() {
        let dev = MemDevice::new();
        let mut q = TxQueue::new(TxBuffers::new(dev.alloc_dma(8192).unwrap(), 3));
        for (id, len) in [(2, 100), (4, 9000), (6, 200), (8, 300), (10, 400)] {
            q.push(offload(id, len, TxOp::SendMessage));
        }
        // A ring of two: 2 and (9000 B never fits, dropped) 6 go, 8 finds the ring full.
        let mut ring: Vec<TxDescriptor> = Vec::new();
        let mut errors = Vec::new();
        let mut post = |d: &TxDescriptor| -> Post<DriverError> {
            if ring.len() == 2 {
                return Post::RingFull;
            }
            ring.push(*d);
            Post::Posted
        };
        assert_eq!(q.pump(&mut post, |e| errors.push(e.to_string())), 2);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains("9000 bytes"), "{errors:?}");
        assert_eq!(q.waiting(), 2);
        assert_eq!(q.buffers().in_flight(), 2, "8's place given back");
        // The NIC took both: 8 and 10 go; the capacity (3) stops nothing more.
        let ids: Vec<u64> = ring.drain(..).map(|d| d.rpc_id).collect();
        assert_eq!(ids, [2, 6]);
        let mut ring2 = Vec::new();
        let n = q.pump(
            |d: &TxDescriptor| -> Post<DriverError> {
                ring2.push(*d);
                Post::Posted
            },
            |_| {},
        );
        assert_eq!(n, 1, "the engine's capacity of 3: 2, 6 and 8 out");
        assert_eq!(ring2[0].rpc_id, 8);
        assert!(q.complete(1));
        assert!(!q.complete(1));
        // A CANCEL of 10 (still waiting): it is dropped, nothing to post for it.
        q.push(offload(10, 400, TxOp::Cancel));
        assert_eq!(q.waiting(), 1);
        let n = q.pump(ok, |_| {});
        assert_eq!((n, q.waiting()), (0, 0));
        // A CANCEL of 6 (out): posted at 6's place.
        q.push(offload(6, 200, TxOp::Cancel));
        let mut cancel = None;
        q.pump(
            |d: &TxDescriptor| -> Post<DriverError> {
                cancel = Some(*d);
                Post::Posted
            },
            |_| {},
        );
        let cancel = cancel.expect("a CANCEL posted");
        assert_eq!(
            (cancel.op, cancel.rpc_id, cancel.cookie),
            (TxOp::Cancel, 6, 0)
        );
    }

    #[test]
    fn tx_queue__drops_a_retransmit_whose_range_one_waiting_or_out_holds() {
        let dev = MemDevice::new();
        let mut q = TxQueue::new(TxBuffers::new(dev.alloc_dma(1 << 16).unwrap(), 8));
        let again = |offset, length| TxOp::Retransmit { offset, length };
        assert!(q.push(offload(2, 5000, TxOp::SendMessage)));
        assert!(q.push(offload(2, 5000, again(1000, 2000))));
        // Held by the waiting one; another RPC's, or a range past it, is not.
        assert!(!q.push(offload(2, 5000, again(1000, 2000))));
        assert!(!q.push(offload(2, 5000, again(1500, 100))));
        assert!(q.push(offload(4, 5000, again(1500, 100))));
        assert!(q.push(offload(2, 5000, again(2500, 1000))));
        assert_eq!(q.waiting(), 4);
        let mut cookies = Vec::new();
        let n = q.pump(
            |d: &TxDescriptor| -> Post<DriverError> {
                cookies.push((d.rpc_id, d.op, d.cookie));
                Post::Posted
            },
            |_| {},
        );
        assert_eq!(n, 4);
        // Out now: still held; a SEND_MESSAGE holds no range (it may have sent it already).
        assert!(!q.push(offload(2, 5000, again(1000, 1))));
        assert!(!q.push(offload(2, 5000, again(3000, 500))));
        assert!(q.push(offload(2, 5000, again(0, 1000))));
        // Its TX_DONE came back: the range is asked for again.
        let (_, _, first) = cookies[1];
        assert!(q.complete(first));
        assert!(q.push(offload(2, 5000, again(1000, 2000))));
        // A range that ends past u32::MAX is compared without wrapping.
        assert!(again(10, u32::MAX).covers(again(20, 5)));
        assert!(!TxOp::SendMessage.covers(again(0, 1)));
        assert!(!again(0, 1).covers(TxOp::Cancel));
    }
}
