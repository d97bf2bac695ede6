//! [`SrptScheduler16`] against [`homa_proto::policy::srpt_pick`] on a Rust mirror of the
//! occupied slots, with the direct `simulate()` loop and seeded random inserts, updates and
//! removes (`HOMA_HW_SEED` replays a run).
#![allow(non_snake_case)]

use super::*;
use crate::bench::seed_from_env;
use crate::srpt_model::{Mirror, OpGen};

const N: usize = 16;

struct Bench {
    uut: SrptScheduler16,
}

impl Bench {
    fn new() -> Self {
        let mut uut = SrptScheduler16::new();
        uut.clock.connect();
        uut.reset.connect();
        uut.s_ins_valid.connect();
        uut.s_ins_id.connect();
        uut.s_ins_remaining.connect();
        uut.s_upd_valid.connect();
        uut.s_upd_slot.connect();
        uut.s_upd_remaining.connect();
        uut.s_upd_free.connect();
        uut.s_mask.connect();
        uut.connect_all();
        let mut b = Bench { uut };
        b.uut.s_mask.next = ((1u64 << N) - 1).into();
        b.uut.reset.next = true;
        b.low();
        b.high();
        b.low();
        b.high();
        b.uut.reset.next = false;
        b
    }

    /// Low half of a cycle: inputs already set; outputs valid after this.
    fn low(&mut self) {
        clock_half(&mut self.uut, |u| &mut u.clock, false);
    }

    /// Rising edge.
    fn high(&mut self) {
        clock_half(&mut self.uut, |u| &mut u.clock, true);
    }
}

fn run(seed: u64, cycles: usize) {
    eprintln!("srpt random run: seed = {seed:#x} (HOMA_HW_SEED to replay), {cycles} cycles");
    let mut ops = OpGen::new(seed, N);
    let mut mirror = Mirror::new(N);
    let mut b = Bench::new();
    let mut max_occ = 0;
    for cycle in 0..cycles {
        let op = ops.next_op();
        let (ins_id, ins_rem) = op.insert.unwrap_or_default();
        let (upd_slot, upd_rem) = op.update.unwrap_or_default();
        b.uut.s_ins_valid.next = op.insert.is_some();
        b.uut.s_ins_id.next = u64::from(ins_id).into();
        b.uut.s_ins_remaining.next = u64::from(ins_rem).into();
        b.uut.s_upd_valid.next = op.update.is_some();
        b.uut.s_upd_slot.next = (upd_slot as u64).into();
        b.uut.s_upd_remaining.next = u64::from(upd_rem).into();
        b.uut.s_upd_free.next = upd_rem == 0;
        b.uut.s_mask.next = op.mask.into();
        b.low();

        max_occ = max_occ.max(mirror.occupancy());
        let ctx = format!("seed {seed:#x}, cycle {cycle}, slots {:?}", mirror.slots);
        assert_eq!(b.uut.occupancy.val().index(), mirror.occupancy(), "{ctx}");
        assert_eq!(b.uut.s_ins_ready.val(), mirror.free().is_some(), "{ctx}");
        if let Some(f) = mirror.free() {
            assert_eq!(b.uut.m_free_slot.val().index(), f, "{ctx}");
        }
        match mirror.pick(op.mask) {
            None => assert!(!b.uut.m_pick_valid.val(), "{ctx}"),
            Some((slot, id, rem)) => {
                assert!(b.uut.m_pick_valid.val(), "{ctx}");
                assert_eq!(b.uut.m_pick_slot.val().index(), slot, "{ctx}");
                assert_eq!(b.uut.m_pick_id.val().index(), usize::from(id), "{ctx}");
                assert_eq!(b.uut.m_pick_remaining.val().index() as u32, rem, "{ctx}");
            }
        }
        mirror.apply(op);
        b.high();
    }
    assert!(
        mirror.inserted > 256,
        "the run reused the slots many times, moving ranks at every free ({} inserts)",
        mirror.inserted
    );
    assert_eq!(max_occ, N, "the run filled the scheduler");
}

#[test]
fn srpt__matches_srpt_pick_random() {
    let seed = seed_from_env(0x5e1f_7a11);
    run(seed, if cfg!(debug_assertions) { 4000 } else { 40_000 });
}

#[test]
fn srpt__fixed_seeds() {
    for seed in 1..4 {
        run(seed, 3000);
    }
}

#[test]
fn srpt__tie_goes_to_the_older() {
    let mut b = Bench::new();
    b.low();
    assert!(!b.uut.m_pick_valid.val());
    for (id, rem) in [(7u64, 100u64), (8, 50), (9, 50)] {
        b.uut.s_ins_valid.next = true;
        b.uut.s_ins_id.next = id.into();
        b.uut.s_ins_remaining.next = rem.into();
        b.low();
        b.high();
    }
    b.uut.s_ins_valid.next = false;
    b.low();
    assert_eq!(b.uut.occupancy.val().index(), 3);
    assert_eq!(b.uut.m_pick_id.val().index(), 8);
    assert_eq!(b.uut.m_pick_slot.val().index(), 1);
    // Slot 1 drops to 0 bytes (removed): slot 2 (id 9) is next; then slot 0 undercuts it.
    b.uut.s_upd_valid.next = true;
    b.uut.s_upd_slot.next = 1u64.into();
    b.uut.s_upd_remaining.next = 0u64.into();
    b.uut.s_upd_free.next = true;
    b.low();
    b.high();
    b.uut.s_upd_slot.next = 0u64.into();
    b.uut.s_upd_remaining.next = 10u64.into();
    b.uut.s_upd_free.next = false;
    b.low();
    assert_eq!(
        b.uut.m_pick_id.val().index(),
        9,
        "pick one cycle after the update"
    );
    b.high();
    b.uut.s_upd_valid.next = false;
    b.low();
    assert_eq!(b.uut.m_pick_id.val().index(), 7);
    assert_eq!(b.uut.occupancy.val().index(), 2);
}

#[test]
fn srpt__masked_slots_wait_and_keep_their_age() {
    let mut b = Bench::new();
    for (id, rem) in [(7u64, 50u64), (8, 50), (9, 10)] {
        b.uut.s_ins_valid.next = true;
        b.uut.s_ins_id.next = id.into();
        b.uut.s_ins_remaining.next = rem.into();
        b.low();
        b.high();
    }
    b.uut.s_ins_valid.next = false;
    b.low();
    assert_eq!(b.uut.m_pick_id.val().index(), 9);
    assert_eq!(b.uut.m_free_slot.val().index(), 3);
    // Slot 2 (the shortest) and slot 0 wait: slot 1 goes.
    b.uut.s_mask.next = 0b1111_1111_1111_1010u64.into();
    b.low();
    assert_eq!(b.uut.m_pick_id.val().index(), 8);
    // Slot 0 back: it is older than slot 1 at the same length.
    b.uut.s_mask.next = 0b1111_1111_1111_1011u64.into();
    b.low();
    assert_eq!(b.uut.m_pick_id.val().index(), 7);
    // Nothing in the mask: no pick, though slots are occupied.
    b.uut.s_mask.next = 0u64.into();
    b.low();
    assert!(!b.uut.m_pick_valid.val());
    assert_eq!(b.uut.occupancy.val().index(), 3);
}
