//! Co-simulation of the generated TX descriptor ring fetcher (`hw/rtl/homa_host_txq_w512.v`)
//! under Verilator with `homa_hw::tx_ring_model`'s host and DMA read server: rings of 2 to
//! 256 entries, descriptors posted as `tx_consumer` frees slots (some malformed, too long,
//! wrapping, or outside the TX window), reads answered in order after 5-65 cycles from memory
//! as it is then, back-pressure on reads, descriptors and refusals. Every descriptor must
//! come out once, in order, with every field, or refused with `TxLimits::refusal`'s status.
//! `HOMA_HW_SEED` (hex) replays a seed; `HOMA_HW_FRAMES` sets the descriptors per run.

#![allow(non_snake_case)]

#[cfg(not(homa_rtl))]
#[test]
fn tx_ring_cosim__SKIPPED_verilator_missing() {
    println!("{}", homa_sim::rtl::SKIP_MESSAGE);
}

#[cfg(homa_rtl)]
mod built {
    use homa_hw::bench::{frames_from_env, seed_from_env};
    use homa_hw::tx_ring_model::{self, TxHead, TxRingAnswer, TxRingOffer, TxRingPorts};
    use homa_sim::rtl::models::HomaHostTxqW512;
    use homa_sim::rtl::{words_from_le_bytes, words_to_le_bytes};

    struct Dut(HomaHostTxqW512);

    impl TxRingPorts for Dut {
        fn reset(&mut self) {
            self.0.reset(2);
        }

        fn drive(&mut self, o: &TxRingOffer) -> TxRingAnswer {
            let m = &mut self.0;
            m.set_cfg_base(o.base);
            m.set_cfg_log2(u64::from(o.log2));
            m.set_cfg_producer(u64::from(o.producer));
            m.set_cfg_clear(u64::from(o.clear));
            m.set_cfg_win_base(o.limits.window.base);
            m.set_cfg_win_len(o.limits.window.len);
            m.set_cfg_max_len(u64::from(o.limits.max_message_length));
            m.set_cfg_max_payload(u64::from(o.limits.max_payload));
            m.set_m_rd_ready(u64::from(o.rd_ready));
            m.set_s_rd_valid(u64::from(o.resp.is_some()));
            let data: [u32; 16] =
                words_from_le_bytes(&o.resp.unwrap_or([0; 64])).expect("64 bytes");
            m.set_s_rd_data(&data);
            m.set_m_desc_ready(u64::from(o.desc_ready));
            m.set_m_err_ready(u64::from(o.err_ready));
            let peer = words_to_le_bytes(&m.get_m_desc_peer());
            let head = TxHead {
                retransmit: m.get_m_desc_retransmit() == 1,
                cancel: m.get_m_desc_cancel() == 1,
                no_completion: m.get_m_desc_no_completion() == 1,
                src_port: m.get_m_desc_src_port() as u16,
                dst_port: m.get_m_desc_dst_port() as u16,
                rpc_id: m.get_m_desc_rpc_id(),
                peer: peer[..16].try_into().expect("128 bits"),
                length: m.get_m_desc_length() as u32,
                iova: m.get_m_desc_iova(),
                offset: m.get_m_desc_offset() as u32,
                bytes: m.get_m_desc_bytes() as u32,
                cookie: m.get_m_desc_cookie(),
                index: m.get_m_desc_index() as u32,
            };
            TxRingAnswer {
                rd: (m.get_m_rd_valid() == 1).then(|| (m.get_m_rd_addr(), m.get_m_rd_len() as u32)),
                desc: (m.get_m_desc_valid() == 1).then_some(head),
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
    fn tx_ring_cosim__hands_out_every_posted_descriptor_in_order_or_refuses_it() {
        let n = frames_from_env(3_000, 30_000) as u32;
        let seed = seed_from_env(0x7a_c051);
        let make = || Dut(HomaHostTxqW512::new());
        tx_ring_model::run_seeds("tx ring co-sim", make, seed, n).unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn tx_ring_cosim__clear_discards_reads_in_flight_and_restarts_at_zero() {
        tx_ring_model::clear_case(&mut Dut(HomaHostTxqW512::new()))
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
