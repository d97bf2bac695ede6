//! Co-simulation of the generated bucketed queue (`hw/rtl/homa_common_bucket_queue_n1024.v`)
//! under Verilator against `homa_proto::policy::bucket::BucketQueue`: the bench of
//! `homa_hw::bucket_queue_model`, seeded random sets, removes and walks with idle gaps, with
//! all 1,024 entries queued at once. `HOMA_HW_SEED` (hex) replays a seed.

#![allow(non_snake_case)]

#[cfg(not(homa_rtl))]
#[test]
fn bucket_queue_cosim__SKIPPED_verilator_missing() {
    println!("{}", homa_sim::rtl::SKIP_MESSAGE);
}

#[cfg(homa_rtl)]
mod built {
    use homa_hw::bench::seed_from_env;
    use homa_hw::bucket_queue_model::{BucketPorts, Cmd, Outputs, run};
    use homa_sim::rtl::models::HomaCommonBucketQueueN1024;

    struct Dut(HomaCommonBucketQueueN1024);

    impl BucketPorts for Dut {
        fn reset(&mut self) {
            self.drive(None, false);
            self.0.reset(2);
        }

        fn outputs(&self) -> Outputs {
            let m = &self.0;
            Outputs {
                cmd_ready: m.get_s_cmd_ready() == 1,
                walk_valid: m.get_m_walk_valid() == 1,
                walk_entry: m.get_m_walk_entry() as u32,
                walk_key: m.get_m_walk_key() as u16,
                walk_end: m.get_m_walk_end() == 1,
                count: m.get_count() as u32,
            }
        }

        fn drive(&mut self, cmd: Option<Cmd>, stop: bool) {
            let m = &mut self.0;
            let c = cmd.unwrap_or(Cmd {
                op: 0,
                entry: 0,
                key: 0,
            });
            m.set_s_cmd_valid(u64::from(cmd.is_some()));
            m.set_s_cmd_op(c.op);
            m.set_s_cmd_entry(u64::from(c.entry));
            m.set_s_cmd_key(u64::from(c.key));
            m.set_s_walk_stop(u64::from(stop));
        }

        fn edge(&mut self) {
            self.0.tick();
        }
    }

    #[test]
    fn bucket_queue_cosim__matches_the_reference_with_1024_entries_queued() {
        for (i, seed) in [0xb0c_c051u64, 0xb0c_c052, 0xb0c_c053]
            .into_iter()
            .enumerate()
        {
            let seed = seed_from_env(seed) + i as u64;
            let mut dut = Dut(HomaCommonBucketQueueN1024::new());
            let st = run(&mut dut, seed, 40_000, 1024).unwrap_or_else(|e| panic!("{e}"));
            eprintln!("bucket queue co-sim: seed {seed:#x}: {st:?}");
            assert_eq!(st.most, 1024, "every entry was queued at once: {st:?}");
            assert!(st.walked > 20_000 && st.removes > 5_000, "{st:?}");
        }
    }
}
