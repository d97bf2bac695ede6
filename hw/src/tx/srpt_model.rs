//! The TX SRPT scheduler's reference, shared by the rust-hdl tests and the Verilator
//! co-simulation in `homa-sim`: `proto::policy::srpt_pick` over a mirror of the slots.

use homa_proto::policy::{TxCandidate, srpt_pick};

/// One scheduler slot as the mirror keeps it: (message id, bytes remaining, insertion order),
/// or `None` when free.
pub type Slot = Option<(u16, u32, u64)>;

/// The slot the scheduler must pick: `srpt_pick` over the occupied slots whose `mask` bit is
/// set, in age order.
pub fn reference(slots: &[Slot], mask: u64) -> Option<usize> {
    let mut occupied: Vec<(usize, u32, u64)> = slots
        .iter()
        .enumerate()
        .filter(|&(s, _)| mask >> s & 1 == 1)
        .filter_map(|(s, x)| x.map(|(_, r, a)| (s, r, a)))
        .collect();
    occupied.sort_by_key(|&(_, _, a)| a);
    srpt_pick(occupied.iter().map(|&(_, r, a)| TxCandidate {
        bytes_remaining: r,
        age: a,
    }))
    .map(|i| occupied[i].0)
}

/// One cycle of stimulus: an insert (id, remaining) and/or an update (slot, remaining; 0
/// frees the slot: the benches drive `s_upd_free`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Op {
    /// Insert this message, if any.
    pub insert: Option<(u16, u32)>,
    /// Update this slot, if any.
    pub update: Option<(usize, u32)>,
    /// The slots that take part in the pick (bit per slot).
    pub mask: u64,
}

/// Random operations: a small key range (drawn once per generator) makes ties on `remaining`
/// common, so age decides often; a few keys are huge or arbitrary.
#[derive(Debug)]
pub struct OpGen {
    rng: crate::bench::Rng,
    key_range: u64,
    slots: usize,
}

impl OpGen {
    /// A generator for a scheduler of `slots` slots from `seed`.
    pub fn new(seed: u64, slots: usize) -> Self {
        let mut rng = crate::bench::Rng::new(seed);
        let key_range = 1 + rng.below(64);
        OpGen {
            rng,
            key_range,
            slots,
        }
    }

    /// The next cycle's operation.
    pub fn next_op(&mut self) -> Op {
        let r = &mut self.rng;
        let ins = r.chance(45);
        let id = r.next_u64() as u16;
        let remaining = match r.below(10) {
            0 => u32::MAX - r.below(3) as u32,
            1 => r.next_u64() as u32,
            _ => r.below(self.key_range) as u32 + 1,
        };
        let upd = r.chance(50);
        let slot = r.below(self.slots as u64) as usize;
        let new_remaining = if r.chance(40) {
            0
        } else {
            r.below(self.key_range) as u32 + 1
        };
        // Mostly every slot; sometimes a random subset (slots waiting for a GRANT).
        let all = if self.slots >= 64 {
            u64::MAX
        } else {
            (1u64 << self.slots) - 1
        };
        let mask = if r.chance(70) {
            all
        } else {
            r.next_u64() & all
        };
        Op {
            insert: ins.then_some((id, remaining)),
            update: upd.then_some((slot, new_remaining)),
            mask,
        }
    }
}

/// The scheduler's state as the reference keeps it.
#[derive(Debug, Clone)]
pub struct Mirror {
    /// The slots.
    pub slots: Vec<Slot>,
    /// Inserts accepted so far (the next insertion number).
    pub inserted: u64,
}

impl Mirror {
    /// An empty scheduler of `n` slots.
    pub fn new(n: usize) -> Self {
        Mirror {
            slots: vec![None; n],
            inserted: 0,
        }
    }

    /// Occupied slots.
    pub fn occupancy(&self) -> usize {
        self.slots.iter().filter(|s| s.is_some()).count()
    }

    /// The slot an insert would take (the lowest free one).
    pub fn free(&self) -> Option<usize> {
        self.slots.iter().position(|s| s.is_none())
    }

    /// The expected pick among the slots in `mask`: (slot, id, remaining).
    pub fn pick(&self, mask: u64) -> Option<(usize, u16, u32)> {
        reference(&self.slots, mask).map(|s| {
            let (id, rem, _) = self.slots[s].expect("picked an occupied slot");
            (s, id, rem)
        })
    }

    /// The clock edge: the update touches an occupied slot only; the insert takes the slot
    /// that was free before the edge.
    pub fn apply(&mut self, op: Op) {
        let free = self.free();
        if let Some((slot, rem)) = op.update
            && let Some(Some((_, r, _))) = self.slots.get_mut(slot)
        {
            *r = rem;
            if rem == 0 {
                self.slots[slot] = None;
            }
        }
        if let (Some((id, rem)), Some(f)) = (op.insert, free) {
            self.slots[f] = Some((id, rem, self.inserted));
            self.inserted += 1;
        }
    }
}
