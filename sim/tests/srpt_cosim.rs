//! Co-simulation of the generated TX SRPT scheduler (`hw/rtl/homa_tx_srpt_n16.v`) under
//! Verilator against `homa_proto::policy::srpt_pick` on a Rust mirror of the occupied slots:
//! seeded random inserts, updates and removals; every cycle the ready signal, occupancy and
//! the whole pick must match. `HOMA_HW_SEED` (hex) replays a seed.

#![allow(non_snake_case)]

#[cfg(not(homa_rtl))]
#[test]
fn srpt_cosim__SKIPPED_verilator_missing() {
    println!("{}", homa_sim::rtl::SKIP_MESSAGE);
}

#[cfg(homa_rtl)]
mod built {
    use homa_hw::parser_model::{Rng, seed_from_env};
    use homa_hw::srpt_model::{Slot, reference};
    use homa_sim::rtl::models::HomaTxSrptN16;

    const N: usize = 16;
    fn run(seed: u64, cycles: usize) {
        eprintln!("srpt co-sim: seed {seed:#x} (HOMA_HW_SEED to replay), {cycles} cycles");
        let mut rng = Rng::new(seed);
        let mut m = HomaTxSrptN16::new();
        m.reset(2);
        let mut slots: [Slot; N] = [None; N];
        let (mut inserted, mut max_occ) = (0u64, 0);
        let key_range = 1 + rng.below(64);
        for cycle in 0..cycles {
            let ins = rng.chance(45);
            let ins_id = rng.next_u64() as u16;
            let ins_rem = match rng.below(10) {
                0 => u32::MAX - rng.below(3) as u32,
                1 => rng.next_u64() as u32,
                _ => rng.below(key_range) as u32 + 1,
            };
            let upd = rng.chance(50);
            let upd_slot = rng.below(N as u64) as usize;
            let upd_rem = if rng.chance(40) {
                0
            } else {
                rng.below(key_range) as u32 + 1
            };
            m.set_s_ins_valid(u64::from(ins));
            m.set_s_ins_id(u64::from(ins_id));
            m.set_s_ins_remaining(u64::from(ins_rem));
            m.set_s_upd_valid(u64::from(upd));
            m.set_s_upd_slot(upd_slot as u64);
            m.set_s_upd_remaining(u64::from(upd_rem));

            let occupied = slots.iter().filter(|s| s.is_some()).count();
            max_occ = max_occ.max(occupied);
            let ctx = format!("seed {seed:#x}, cycle {cycle}, slots {slots:?}");
            assert_eq!(m.get_occupancy() as usize, occupied, "{ctx}");
            let free = slots.iter().position(|s| s.is_none());
            assert_eq!(m.get_s_ins_ready() == 1, free.is_some(), "{ctx}");
            match reference(&slots) {
                None => assert_eq!(m.get_m_pick_valid(), 0, "{ctx}"),
                Some(s) => {
                    let (id, rem, _) = slots[s].expect("picked an occupied slot");
                    assert_eq!(m.get_m_pick_valid(), 1, "{ctx}");
                    assert_eq!(m.get_m_pick_slot() as usize, s, "{ctx}");
                    assert_eq!(m.get_m_pick_id() as u16, id, "{ctx}");
                    assert_eq!(m.get_m_pick_remaining() as u32, rem, "{ctx}");
                }
            }
            // The edge, in the mirror: updates touch occupied slots only, inserts a free one.
            if upd && let Some((_, r, _)) = &mut slots[upd_slot] {
                *r = upd_rem;
                if upd_rem == 0 {
                    slots[upd_slot] = None;
                }
            }
            if ins && let Some(f) = free {
                slots[f] = Some((ins_id, ins_rem, inserted));
                inserted += 1;
            }
            m.tick();
        }
        assert!(
            inserted > 256,
            "the run crossed the age wrap ({inserted} inserts)"
        );
        assert_eq!(max_occ, N, "the run filled the scheduler");
    }

    #[test]
    fn srpt_cosim__matches_the_reference_policy() {
        for (i, seed) in [0x5a7_0001u64, 0x5a7_0002, 0x5a7_0003]
            .into_iter()
            .enumerate()
        {
            run(seed_from_env(seed) + i as u64, 20_000);
        }
    }
}
