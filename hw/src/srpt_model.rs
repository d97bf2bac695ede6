//! The TX SRPT scheduler's reference, shared by the rust-hdl tests and the Verilator
//! co-simulation in `homa-sim`: `proto::policy::srpt_pick` over a mirror of the slots.

use homa_proto::policy::{TxCandidate, srpt_pick};

/// One scheduler slot as the mirror keeps it: (message id, bytes remaining, insertion order),
/// or `None` when free.
pub type Slot = Option<(u16, u32, u64)>;

/// The slot the scheduler must pick: `srpt_pick` over the occupied slots in age order.
pub fn reference(slots: &[Slot]) -> Option<usize> {
    let mut occupied: Vec<(usize, u32, u64)> = slots
        .iter()
        .enumerate()
        .filter_map(|(s, x)| x.map(|(_, r, a)| (s, r, a)))
        .collect();
    occupied.sort_by_key(|&(_, _, a)| a);
    srpt_pick(occupied.iter().map(|&(_, r, a)| TxCandidate {
        bytes_remaining: r,
        age: a,
    }))
    .map(|i| occupied[i].0)
}
