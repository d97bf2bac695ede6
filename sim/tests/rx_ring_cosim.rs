//! Co-simulation of the generated RX buffer ring fetcher (`hw/rtl/homa_host_rxq_w512.v`) under
//! Verilator with `homa_hw::rx_ring_model`'s host and DMA read server: rings of 2 to 256
//! entries, descriptors posted as `rx_consumer` frees slots (some bad, some outside the RX
//! window), reads answered in order after 5-65 cycles from memory as it is then,
//! back-pressure on reads, buffers and refusals. Every descriptor must come out once, in
//! order, as a buffer or as a refusal with its status; reads stay inside posted slots.
//! `HOMA_HW_SEED` (hex) replays a seed; `HOMA_HW_FRAMES` sets the descriptors per run.

#![allow(non_snake_case)]

#[cfg(not(homa_rtl))]
#[test]
fn rx_ring_cosim__SKIPPED_verilator_missing() {
    println!("{}", homa_sim::rtl::SKIP_MESSAGE);
}

#[cfg(homa_rtl)]
mod built {
    use homa_hw::bench::{frames_from_env, seed_from_env};
    use homa_hw::rx_dma_model::Buffer;
    use homa_hw::rx_ring_model::{self, RingAnswer, RingOffer, RingPorts};
    use homa_sim::rtl::models::HomaHostRxqW512;
    use homa_sim::rtl::words_from_le_bytes;

    struct Dut(HomaHostRxqW512);

    impl RingPorts for Dut {
        fn reset(&mut self) {
            self.0.reset(2);
        }

        fn drive(&mut self, o: &RingOffer) -> RingAnswer {
            let m = &mut self.0;
            m.set_cfg_base(o.base);
            m.set_cfg_log2(u64::from(o.log2));
            m.set_cfg_producer(u64::from(o.producer));
            m.set_cfg_clear(u64::from(o.clear));
            m.set_m_rd_ready(u64::from(o.rd_ready));
            m.set_s_rd_valid(u64::from(o.resp.is_some()));
            let data: [u32; 16] =
                words_from_le_bytes(&o.resp.unwrap_or([0; 64])).expect("64 bytes");
            m.set_s_rd_data(&data);
            m.set_m_buf_ready(u64::from(o.buf_ready));
            m.set_cfg_win_base(o.window.base);
            m.set_cfg_win_len(o.window.len);
            m.set_m_err_ready(u64::from(o.err_ready));
            let head = Buffer {
                iova: m.get_m_buf_iova(),
                length: m.get_m_buf_length() as u32,
                id: m.get_m_buf_id() as u32,
                index: m.get_m_buf_index() as u32,
            };
            RingAnswer {
                rd: (m.get_m_rd_valid() == 1).then(|| (m.get_m_rd_addr(), m.get_m_rd_len() as u16)),
                buf: (m.get_m_buf_valid() == 1).then_some(head),
                err: (m.get_m_err_valid() == 1).then(|| (head, m.get_m_err_status() as u8)),
            }
        }

        fn counters(&self) -> (u32, u32) {
            (self.0.get_consumer() as u32, self.0.get_bad() as u32)
        }

        fn edge(&mut self) {
            self.0.tick();
        }
    }

    #[test]
    fn rx_ring_cosim__hands_out_every_posted_buffer_in_order() {
        let n = frames_from_env(5_000, 50_000) as u32;
        let seed = seed_from_env(0x41_c051);
        let mut out_of_bounds = 0;
        for i in 0..4u64 {
            let s = seed.wrapping_add(i);
            eprintln!("rx ring co-sim: seed {s:#x} (HOMA_HW_SEED to replay), {n} descriptors");
            let stats = rx_ring_model::run(&mut Dut(HomaHostRxqW512::new()), s, n)
                .unwrap_or_else(|e| panic!("{e}"));
            eprintln!("  {stats:?}");
            assert!(stats.bad > 0 && stats.buffers + u64::from(stats.bad) == u64::from(n));
            out_of_bounds += stats.out_of_bounds;
        }
        assert!(
            out_of_bounds > 0,
            "no run refused a descriptor outside the window"
        );
    }

    #[test]
    fn rx_ring_cosim__clear_discards_reads_in_flight_and_restarts_at_zero() {
        rx_ring_model::clear_case(&mut Dut(HomaHostRxqW512::new()))
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
