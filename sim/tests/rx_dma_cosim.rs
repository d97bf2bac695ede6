//! Co-simulation of the generated RX DMA engines (`hw/rtl/homa_rx_dma_w512.v`, `_w64.v`) under
//! Verilator
//! against `homa_hw::rx_dma_model`: random payloads of 0 B to 64 KiB (some cut short by a bad
//! frame, some without payload), IPv4 and IPv6 senders, buffers of random size and alignment
//! (some too small) with droughts, and back-pressure on the DMA and completion streams. Every
//! DMA write and completion must match the model byte for byte; every written byte must lie
//! inside a buffer the engine holds; every returned buffer must hold exactly its payload.
//! `HOMA_HW_SEED` (hex) replays a seed; `HOMA_HW_FRAMES` sets the packets per run.

#![allow(non_snake_case)]

#[cfg(not(homa_rtl))]
#[test]
fn rx_dma_cosim__SKIPPED_verilator_missing() {
    println!("{}", homa_sim::rtl::SKIP_MESSAGE);
}

#[cfg(homa_rtl)]
mod built {
    use homa_hw::bench::{frames_from_env, seed_from_env};
    use homa_hw::rx_dma_model::{self, Answer, Counters, DmaPorts, DmaWrite, Offer};
    use homa_sim::rtl::models::{HomaRxDmaW64, HomaRxDmaW512};
    use homa_sim::rtl::{words_from_le_bytes, words_to_le_bytes};

    fn bytes64(words: &[u32]) -> [u8; 64] {
        let v = words_to_le_bytes(words);
        std::array::from_fn(|i| v[i])
    }

    /// An engine model under the bench: `$bytes` a beat, `$set_data` drives `s_pay_tdata`
    /// from a beat's bytes, `$get_data` reads `m_dma_data` into 64 lanes.
    macro_rules! dma_dut {
        ($dut:ident, $model:ty, $bytes:expr, $set_data:expr, $get_data:expr) => {
            struct $dut($model);

            impl DmaPorts for $dut {
                const BYTES: usize = $bytes;

                fn reset(&mut self) {
                    self.0.reset(2);
                }

                fn drive(&mut self, o: &Offer<'_>) -> Answer {
                    let m = &mut self.0;
                    let beat = o.beat.cloned().unwrap_or_default();
                    ($set_data)(&mut *m, &beat.bytes);
                    m.set_s_pay_tkeep(beat.keep());
                    m.set_s_pay_tvalid(u64::from(o.beat.is_some()));
                    m.set_s_pay_tlast(u64::from(beat.last));
                    m.set_s_pay_tuser(u64::from(beat.user));
                    let h = o.header.copied().unwrap_or_default();
                    m.set_s_hdr_valid(u64::from(o.header.is_some()));
                    m.set_s_hdr_ip_version(u64::from(h.ip_version));
                    let ip = h.src_ip.to_le_bytes();
                    let ip: [u32; 4] = words_from_le_bytes(&ip).expect("16 bytes");
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
                    let b = o.buffer.copied().unwrap_or_default();
                    m.set_s_buf_valid(u64::from(o.buffer.is_some()));
                    m.set_s_buf_iova(b.iova);
                    m.set_s_buf_length(u64::from(b.length));
                    m.set_s_buf_id(u64::from(b.id));
                    m.set_s_buf_index(u64::from(b.index));
                    m.set_m_dma_ready(u64::from(o.dma_ready));
                    m.set_m_cpl_ready(u64::from(o.cpl_ready));
                    Answer {
                        pay_ready: m.get_s_pay_tready() == 1,
                        hdr_ready: m.get_s_hdr_ready() == 1,
                        buf_ready: m.get_s_buf_ready() == 1,
                        dma: (m.get_m_dma_valid() == 1).then(|| DmaWrite {
                            addr: m.get_m_dma_addr(),
                            data: ($get_data)(&*m),
                            keep: m.get_m_dma_keep(),
                            last: m.get_m_dma_last() == 1,
                        }),
                        cpl: (m.get_m_cpl_valid() == 1).then(|| bytes64(&m.get_m_cpl_data())),
                    }
                }

                fn counters(&self) -> Counters {
                    let m = &self.0;
                    (
                        m.get_rx_data() as u32,
                        m.get_rx_errors() as u32,
                        m.get_no_buffer() as u32,
                        m.get_bad_frames() as u32,
                        m.get_empty() as u32,
                    )
                }

                fn edge(&mut self) {
                    self.0.tick();
                }
            }
        };
    }

    dma_dut!(
        Dut512,
        HomaRxDmaW512,
        64,
        |m: &mut HomaRxDmaW512, bytes: &[u8]| {
            let data: [u32; 16] = words_from_le_bytes(bytes).expect("a beat is 64 bytes");
            m.set_s_pay_tdata(&data);
        },
        |m: &HomaRxDmaW512| bytes64(&m.get_m_dma_data())
    );

    dma_dut!(
        Dut64,
        HomaRxDmaW64,
        8,
        |m: &mut HomaRxDmaW64, bytes: &[u8]| {
            let mut b = [0u8; 8];
            b[..bytes.len()].copy_from_slice(bytes);
            m.set_s_pay_tdata(u64::from_le_bytes(b));
        },
        |m: &HomaRxDmaW64| {
            let mut d = [0u8; 64];
            d[..8].copy_from_slice(&m.get_m_dma_data().to_le_bytes());
            d
        }
    );

    #[test]
    fn rx_dma_cosim__matches_the_reference_on_random_traffic() {
        let frames = frames_from_env(2_000, 20_000) as u64;
        cosim(
            || Dut512(HomaRxDmaW512::new()),
            seed_from_env(0xd3a_c051),
            frames,
        );
    }

    #[test]
    fn rx_dma_cosim__w64_matches_the_reference_on_random_traffic() {
        let frames = frames_from_env(1_000, 10_000) as u64;
        cosim(
            || Dut64(HomaRxDmaW64::new()),
            seed_from_env(0xd3a_c641),
            frames,
        );
    }

    fn cosim<D: DmaPorts>(make: impl Fn() -> D, seed: u64, frames: u64) {
        for i in 0..2u64 {
            let s = seed.wrapping_add(i);
            let w = D::BYTES;
            eprintln!(
                "rx dma co-sim, {w} bytes a beat: seed {s:#x} (HOMA_HW_SEED to replay), {frames} packets"
            );
            let start = std::time::Instant::now();
            let stats = rx_dma_model::run(&mut make(), s, frames).unwrap_or_else(|e| panic!("{e}"));
            let rate = stats.cycles as f64 / start.elapsed().as_secs_f64();
            eprintln!("  {stats:?}, {rate:.0} cycles/s with the checks");
            let (data, errors, no_buffer, bad, empty) = stats.counters;
            assert!(
                u64::from(data) > frames / 2 && errors > 0 && no_buffer > 0 && bad > 0 && empty > 0,
                "{stats:?}"
            );
        }
    }
}
