//! Co-simulation of the generated RX host queues (`hw/rtl/homa_host_rx_w512.v`: descriptor
//! ring fetcher, RX DMA engine and completion writer behind one read and one write port)
//! under Verilator with `homa_hw::host_rx_model`'s host: descriptors posted into a ring (some
//! bad, some outside the RX window: each must come back in an `ERROR`), reads answered after 5-65 cycles, writes under back-pressure, completions polled by
//! phase bit at a random pace, payloads of 0 B to 64 KiB with bad frames and buffer droughts.
//! Every byte written must lie in a held buffer or the entry being written; every packet with
//! a payload is completed in order with its bytes in its buffer, or accounted as dropped.
//! `HOMA_HW_SEED` (hex) replays a seed; `HOMA_HW_FRAMES` sets the packets per run.

#![allow(non_snake_case)]

#[cfg(not(homa_rtl))]
#[test]
fn host_rx_cosim__SKIPPED_verilator_missing() {
    println!("{}", homa_sim::rtl::SKIP_MESSAGE);
}

#[cfg(homa_rtl)]
mod built {
    use homa_hw::bench::{frames_from_env, seed_from_env};
    use homa_hw::host_rx_model::{self, HostAnswer, HostCounters, HostOffer, HostRxPorts};
    use homa_hw::rx_dma_model::DmaWrite;
    use homa_sim::rtl::models::HomaHostRxW512;
    use homa_sim::rtl::{words_from_le_bytes, words_to_le_bytes};

    struct Dut(HomaHostRxW512);

    impl HostRxPorts for Dut {
        fn reset(&mut self) {
            self.0.reset(2);
        }

        fn drive(&mut self, o: &HostOffer<'_>) -> HostAnswer {
            let m = &mut self.0;
            m.set_cfg_rx_base(o.rx_base);
            m.set_cfg_rx_log2(u64::from(o.rx_log2));
            m.set_cfg_rx_producer(u64::from(o.rx_producer));
            m.set_cfg_rx_clear(u64::from(o.clear));
            m.set_cfg_rx_win_base(o.rx_window.base);
            m.set_cfg_rx_win_len(o.rx_window.len);
            m.set_cfg_cq_base(o.cq_base);
            m.set_cfg_cq_log2(u64::from(o.cq_log2));
            m.set_cfg_cq_consumer(u64::from(o.cq_consumer));
            m.set_cfg_cq_clear(u64::from(o.clear));
            let beat = o.beat.cloned().unwrap_or_default();
            let data: [u32; 16] = words_from_le_bytes(&beat.bytes).expect("a beat is 64 bytes");
            m.set_s_pay_tdata(&data);
            m.set_s_pay_tkeep(beat.keep());
            m.set_s_pay_tvalid(u64::from(o.beat.is_some()));
            m.set_s_pay_tlast(u64::from(beat.last));
            m.set_s_pay_tuser(u64::from(beat.user));
            let h = o.header.copied().unwrap_or_default();
            m.set_s_hdr_valid(u64::from(o.header.is_some()));
            m.set_s_hdr_ip_version(u64::from(h.ip_version));
            let ip: [u32; 4] = words_from_le_bytes(&h.src_ip.to_le_bytes()).expect("16 bytes");
            m.set_s_hdr_src_ip(&ip);
            m.set_s_hdr_sport(u64::from(h.sport));
            m.set_s_hdr_dport(u64::from(h.dport));
            m.set_s_hdr_sender_id(h.sender_id);
            m.set_s_hdr_message_length(u64::from(h.message_length));
            m.set_s_hdr_offset(u64::from(h.offset));
            m.set_s_hdr_payload_len(u64::from(h.payload_len));
            m.set_s_hdr_retransmit(u64::from(h.retransmit));
            m.set_s_hdr_host_grants(u64::from(h.host_grants));
            m.set_s_hdr_type(u64::from(h.ptype));
            m.set_s_hdr_incoming(u64::from(h.incoming));
            m.set_s_hdr_cutoff_version(u64::from(h.cutoff_version));
            m.set_s_hdr_ack_client_id(h.ack_client_id);
            m.set_s_hdr_ack_server_port(u64::from(h.ack_server_port));
            let body: [u32; 8] = words_from_le_bytes(&h.body).expect("31 bytes");
            m.set_s_hdr_body(&body);
            m.set_m_rd_ready(u64::from(o.rd_ready));
            m.set_s_rd_valid(u64::from(o.resp.is_some()));
            let resp: [u32; 16] =
                words_from_le_bytes(&o.resp.unwrap_or([0; 64])).expect("64 bytes");
            m.set_s_rd_data(&resp);
            m.set_m_wr_ready(u64::from(o.wr_ready));
            let t = o.txerr.unwrap_or_default();
            m.set_s_txerr_valid(u64::from(o.txerr.is_some()));
            m.set_s_txerr_status(u64::from(t.status));
            m.set_s_txerr_index(u64::from(t.index));
            m.set_s_txerr_rpc_id(t.rpc_id);
            m.set_s_txerr_cookie(t.cookie);
            let d = o.txdone.unwrap_or_default();
            m.set_s_txdone_valid(u64::from(o.txdone.is_some()));
            m.set_s_txdone_rpc_id(d.rpc_id);
            m.set_s_txdone_length(u64::from(d.length));
            m.set_s_txdone_cookie(d.cookie);
            let g = o.grant.unwrap_or_default();
            m.set_s_gnt_valid(u64::from(o.grant.is_some()));
            m.set_s_gnt_rpc_id(g.rpc_id);
            m.set_s_gnt_peer(u64::from(g.peer));
            m.set_s_gnt_local_port(u64::from(g.local_port));
            m.set_s_gnt_peer_port(u64::from(g.peer_port));
            m.set_s_gnt_offset(u64::from(g.offset));
            m.set_s_gnt_priority(u64::from(g.priority));
            HostAnswer {
                pay_ready: m.get_s_pay_tready() == 1,
                hdr_ready: m.get_s_hdr_ready() == 1,
                rd: (m.get_m_rd_valid() == 1).then(|| (m.get_m_rd_addr(), m.get_m_rd_len() as u16)),
                wr: (m.get_m_wr_valid() == 1).then(|| {
                    let bytes = words_to_le_bytes(&m.get_m_wr_data());
                    DmaWrite {
                        addr: m.get_m_wr_addr(),
                        data: std::array::from_fn(|i| bytes[i]),
                        keep: m.get_m_wr_keep(),
                        last: m.get_m_wr_last() == 1,
                    }
                }),
                txerr_ready: m.get_s_txerr_ready() == 1,
                txdone_ready: m.get_s_txdone_ready() == 1,
                grant_ready: m.get_s_gnt_ready() == 1,
            }
        }

        fn counters(&self) -> HostCounters {
            let m = &self.0;
            HostCounters {
                rx_consumer: m.get_rx_consumer() as u32,
                cq_producer: m.get_cq_producer() as u32,
                rx_data: m.get_rx_data() as u32,
                rx_errors: m.get_rx_errors() as u32,
                no_buffer: m.get_no_buffer() as u32,
                bad_frames: m.get_bad_frames() as u32,
                empty: m.get_empty() as u32,
                bad_descriptors: m.get_bad_descriptors() as u32,
                cq_dropped: m.get_cq_dropped() as u32,
            }
        }

        fn edge(&mut self) {
            self.0.tick();
        }
    }

    #[test]
    fn host_rx_cosim__delivers_every_payload_into_posted_buffers_with_its_completion() {
        let frames = frames_from_env(1_500, 20_000) as u64;
        let seed = seed_from_env(0x4057_c051);
        for i in 0..3u64 {
            let s = seed.wrapping_add(i);
            eprintln!("host rx co-sim: seed {s:#x} (HOMA_HW_SEED to replay), {frames} packets");
            let start = std::time::Instant::now();
            let stats = host_rx_model::run(&mut Dut(HomaHostRxW512::new()), s, frames)
                .unwrap_or_else(|e| panic!("{e}"));
            let rate = stats.cycles as f64 / start.elapsed().as_secs_f64();
            eprintln!("  {stats:?}, {rate:.0} cycles/s with the checks");
            let c = stats.counters;
            assert!(
                u64::from(c.rx_data) > frames / 2
                    && stats.too_small > 0
                    && c.no_buffer > 0
                    && c.bad_frames > 0
                    && c.empty > 0
                    && c.bad_descriptors > 0
                    && stats.refused == u64::from(c.bad_descriptors)
                    && stats.tx_done > 0
                    && stats.grants_sent > 0,
                "{stats:?}"
            );
        }
    }
}
