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
    use homa_hw::bench::seed_from_env;
    use homa_hw::srpt_model::{Mirror, OpGen};
    use homa_sim::rtl::models::HomaTxSrptN16;

    const N: usize = 16;
    fn run(seed: u64, cycles: usize) {
        eprintln!("srpt co-sim: seed {seed:#x} (HOMA_HW_SEED to replay), {cycles} cycles");
        let mut ops = OpGen::new(seed, N);
        let mut mirror = Mirror::new(N);
        let mut m = HomaTxSrptN16::new();
        m.reset(2);
        let mut max_occ = 0;
        for cycle in 0..cycles {
            let op = ops.next_op();
            let (ins_id, ins_rem) = op.insert.unwrap_or_default();
            let (upd_slot, upd_rem) = op.update.unwrap_or_default();
            m.set_s_ins_valid(u64::from(op.insert.is_some()));
            m.set_s_ins_id(u64::from(ins_id));
            m.set_s_ins_remaining(u64::from(ins_rem));
            m.set_s_upd_valid(u64::from(op.update.is_some()));
            m.set_s_upd_slot(upd_slot as u64);
            m.set_s_upd_remaining(u64::from(upd_rem));
            m.set_s_upd_free(u64::from(upd_rem == 0));
            m.set_s_mask(op.mask);
            max_occ = max_occ.max(mirror.occupancy());
            let ctx = format!("seed {seed:#x}, cycle {cycle}, slots {:?}", mirror.slots);
            assert_eq!(m.get_occupancy() as usize, mirror.occupancy(), "{ctx}");
            assert_eq!(m.get_s_ins_ready() == 1, mirror.free().is_some(), "{ctx}");
            if let Some(f) = mirror.free() {
                assert_eq!(m.get_m_free_slot() as usize, f, "{ctx}");
            }
            match mirror.pick(op.mask) {
                None => assert_eq!(m.get_m_pick_valid(), 0, "{ctx}"),
                Some((slot, id, rem)) => {
                    assert_eq!(m.get_m_pick_valid(), 1, "{ctx}");
                    assert_eq!(m.get_m_pick_slot() as usize, slot, "{ctx}");
                    assert_eq!(m.get_m_pick_id() as u16, id, "{ctx}");
                    assert_eq!(m.get_m_pick_remaining() as u32, rem, "{ctx}");
                }
            }
            mirror.apply(op);
            m.tick();
        }
        assert!(
            mirror.inserted > 256,
            "the run crossed the age wrap ({})",
            mirror.inserted
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
