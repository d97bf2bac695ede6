//! Co-simulation of the generated completion ring writers (`hw/rtl/homa_host_cq_w512.v`, `_w64.v`)
//! under Verilator with `homa_hw::cq_writer_model`'s host: rings of 2 to 32 entries, a host that
//! polls the phase bit at a random pace (so that the ring fills), DMA back-pressure, and the
//! ring off before each set-up. Every completion must reach the host in order, body before
//! phase, and no write may touch an entry the host has not consumed. `HOMA_HW_SEED` (hex)
//! replays a seed; `HOMA_HW_FRAMES` sets the completions per ring.

#![allow(non_snake_case)]

#[cfg(not(homa_rtl))]
#[test]
fn cq_writer_cosim__SKIPPED_verilator_missing() {
    println!("{}", homa_sim::rtl::SKIP_MESSAGE);
}

#[cfg(homa_rtl)]
mod built {
    use homa_hw::bench::{frames_from_env, seed_from_env};
    use homa_hw::cq_writer_model::{self, CqAnswer, CqOffer, CqPorts};
    use homa_hw::rx_dma_model::DmaWrite;
    use homa_sim::rtl::models::{HomaHostCqW64, HomaHostCqW512};
    use homa_sim::rtl::{words_from_le_bytes, words_to_le_bytes};

    /// A writer model under the bench: `$get_data` reads `m_dma_data` into 64 lanes.
    macro_rules! cq_dut {
        ($dut:ident, $model:ty, $get_data:expr) => {
            struct $dut($model);

            impl CqPorts for $dut {
                fn reset(&mut self) {
                    self.0.reset(2);
                }

                fn drive(&mut self, o: &CqOffer<'_>) -> CqAnswer {
                    let m = &mut self.0;
                    m.set_cfg_base(o.base);
                    m.set_cfg_log2(u64::from(o.log2));
                    m.set_cfg_consumer(u64::from(o.consumer));
                    m.set_cfg_clear(u64::from(o.clear));
                    m.set_s_cpl_valid(u64::from(o.cpl.is_some()));
                    let data: [u32; 16] =
                        words_from_le_bytes(o.cpl.map_or(&[][..], |c| &c[..])).expect("64 bytes");
                    m.set_s_cpl_data(&data);
                    m.set_m_dma_ready(u64::from(o.dma_ready));
                    CqAnswer {
                        cpl_ready: m.get_s_cpl_ready() == 1,
                        dma: (m.get_m_dma_valid() == 1).then(|| DmaWrite {
                            addr: m.get_m_dma_addr(),
                            data: ($get_data)(&*m),
                            keep: m.get_m_dma_keep(),
                            last: m.get_m_dma_last() == 1,
                        }),
                    }
                }

                fn counters(&self) -> (u32, u32) {
                    (self.0.get_producer() as u32, self.0.get_dropped() as u32)
                }

                fn edge(&mut self) {
                    self.0.tick();
                }
            }
        };
    }

    cq_dut!(CqDut512, HomaHostCqW512, |m: &HomaHostCqW512| {
        let bytes = words_to_le_bytes(&m.get_m_dma_data());
        std::array::from_fn(|i| bytes[i])
    });

    cq_dut!(CqDut64, HomaHostCqW64, |m: &HomaHostCqW64| {
        let mut d = [0u8; 64];
        d[..8].copy_from_slice(&m.get_m_dma_data().to_le_bytes());
        d
    });

    #[test]
    fn cq_writer_cosim__host_reads_every_completion_in_order() {
        let per_ring = frames_from_env(5_000, 50_000) as u64;
        let seed = seed_from_env(0xc0_c051);
        for i in 0..3u64 {
            let s = seed.wrapping_add(i);
            eprintln!(
                "cq writer co-sim: seed {s:#x} (HOMA_HW_SEED to replay), {per_ring} per ring"
            );
            let stats = cq_writer_model::run(&mut CqDut512(HomaHostCqW512::new()), s, per_ring)
                .unwrap_or_else(|e| panic!("{e}"));
            eprintln!("  {stats:?}");
            assert_eq!(stats.read, 2 * per_ring);
            assert!(stats.full_stalls > 0, "{stats:?}");
        }
    }

    #[test]
    fn cq_writer_cosim__w64_host_reads_every_completion_in_order() {
        let per_ring = frames_from_env(2_000, 20_000) as u64;
        let seed = seed_from_env(0xc0_c641);
        for i in 0..2u64 {
            let s = seed.wrapping_add(i);
            eprintln!(
                "cq writer w64 co-sim: seed {s:#x} (HOMA_HW_SEED to replay), {per_ring} per ring"
            );
            let stats = cq_writer_model::run(&mut CqDut64(HomaHostCqW64::new()), s, per_ring)
                .unwrap_or_else(|e| panic!("{e}"));
            eprintln!("  {stats:?}");
            assert_eq!(stats.read, 2 * per_ring);
            assert!(stats.full_stalls > 0, "{stats:?}");
        }
    }
}
