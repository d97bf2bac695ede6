//! Test support: the device side of the rings, over a [`MemDevice`].

use crate::mem::MemDevice;
use crate::nic::Nic;
use homa_proto::hostif::{COMPLETION_LEN, Completion, Event, RingState, Status};

/// The device side: writes completion `rpc_id`/`event` (status ok) into the next entry of
/// the ring `cq` tracks, with its pass's phase.
pub(crate) fn complete(nic: &Nic<MemDevice>, cq: &mut RingState, rpc_id: u64, event: Event) {
    complete_with(nic, cq, rpc_id, Status::Ok, event);
}

/// The same with a status.
pub(crate) fn complete_with(
    nic: &Nic<MemDevice>,
    cq: &mut RingState,
    rpc_id: u64,
    status: Status,
    event: Event,
) {
    let i = cq.push().unwrap();
    let c = Completion {
        rpc_id,
        status,
        event,
        phase: cq.phase(i),
    };
    let mut e = [0u8; COMPLETION_LEN];
    c.encode(&mut e);
    let at = nic.cq().region().iova() + u64::from(cq.wrap(i)) * COMPLETION_LEN as u64;
    nic.device().dma_write(at, &e).unwrap();
}
