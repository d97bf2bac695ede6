//! Co-simulation of the generated on-chip TX memory (`hw/rtl/homa_tx_push_w512.v` and
//! `homa_tx_push_w64.v`) under Verilator with `homa_hw::tx_push_model`'s bench: seeded random pushes into BAR0's upper
//! half, descriptor and payload reads that mix host memory and on-chip memory (inside and
//! outside their areas), host memory answering after random latencies, back-pressure on
//! payload beats. Every answer must come in request order with exactly the bytes expected,
//! and the fault counter must count exactly the reads outside their areas.
//! `HOMA_HW_SEED` (hex) replays a seed; `HOMA_HW_FRAMES` sets the reads per run.

#![allow(non_snake_case)]

#[cfg(not(homa_rtl))]
#[test]
fn tx_push_cosim__SKIPPED_verilator_missing() {
    println!("{}", homa_sim::rtl::SKIP_MESSAGE);
}

#[cfg(homa_rtl)]
mod built {
    use homa_hw::bench::{frames_from_env, seed_from_env};
    use homa_hw::tx_push_model::{self, TxPushAnswer, TxPushOffer, TxPushPorts};
    use homa_sim::rtl::models::{HomaTxPushW64, HomaTxPushW512};
    use homa_sim::rtl::{u64_from_le_bytes, words_from_le_bytes, words_to_le_bytes};

    fn words(bytes: &[u8]) -> [u32; 16] {
        words_from_le_bytes(bytes).expect("at most 64 bytes")
    }

    fn bytes(words: &[u32; 16]) -> [u8; 64] {
        words_to_le_bytes(words)[..64].try_into().expect("512 bits")
    }

    /// The data ports whose width differs between the models, as bytes.
    trait Beats {
        fn set_rd_beat(&mut self, b: &[u8]);
        fn set_pay_beat(&mut self, b: &[u8]);
        fn payr_beat(&self) -> Vec<u8>;
    }

    impl Beats for HomaTxPushW512 {
        fn set_rd_beat(&mut self, b: &[u8]) {
            self.set_s_dma_rd_data(&words(b));
        }
        fn set_pay_beat(&mut self, b: &[u8]) {
            self.set_s_dma_pay_data(&words(b));
        }
        fn payr_beat(&self) -> Vec<u8> {
            bytes(&self.get_m_payr_data()).to_vec()
        }
    }

    impl Beats for HomaTxPushW64 {
        fn set_rd_beat(&mut self, b: &[u8]) {
            self.set_s_dma_rd_data(u64_from_le_bytes(b));
        }
        fn set_pay_beat(&mut self, b: &[u8]) {
            self.set_s_dma_pay_data(u64_from_le_bytes(b));
        }
        fn payr_beat(&self) -> Vec<u8> {
            self.get_m_payr_data().to_le_bytes().to_vec()
        }
    }

    /// The bench's ports for either model.
    macro_rules! dut {
        ($dut:ident, $model:ty, $bytes:expr) => {
            struct $dut($model);

            impl TxPushPorts for $dut {
                const BYTES: usize = $bytes;

                fn reset(&mut self) {
                    self.0.reset(2);
                }

                fn cycle(&mut self, o: &TxPushOffer) -> TxPushAnswer {
                    let m = &mut self.0;
                    let (word, data, keep) = o.push.unwrap_or((0, [0; 64], 0));
                    m.set_s_push_valid(u64::from(o.push.is_some()));
                    m.set_s_push_word(u64::from(word));
                    m.set_s_push_data(&words(&data));
                    m.set_s_push_keep(keep);
                    m.set_s_rd_valid(u64::from(o.rd.is_some()));
                    m.set_s_rd_addr(o.rd.unwrap_or(0));
                    m.set_s_rd_len(64);
                    m.set_m_dma_rd_ready(u64::from(o.dma_rd_ready));
                    m.set_s_dma_rd_valid(u64::from(o.dma_rd_resp.is_some()));
                    m.set_rd_beat(o.dma_rd_resp.as_deref().unwrap_or(&[]));
                    let (pa, pl) = o.pay.unwrap_or((0, 0));
                    m.set_s_pay_valid(u64::from(o.pay.is_some()));
                    m.set_s_pay_addr(pa);
                    m.set_s_pay_len(u64::from(pl));
                    m.set_m_payr_ready(u64::from(o.payr_ready));
                    m.set_m_dma_pay_ready(u64::from(o.dma_pay_ready));
                    m.set_s_dma_pay_valid(u64::from(o.dma_pay_beat.is_some()));
                    m.set_pay_beat(o.dma_pay_beat.as_deref().unwrap_or(&[]));
                    let a = TxPushAnswer {
                        rd_ready: m.get_s_rd_ready() == 1,
                        rdr: (m.get_m_rdr_valid() == 1).then(|| bytes(&m.get_m_rdr_data())),
                        dma_rd: (m.get_m_dma_rd_valid() == 1).then(|| m.get_m_dma_rd_addr()),
                        pay_ready: m.get_s_pay_ready() == 1,
                        payr: (m.get_m_payr_valid() == 1).then(|| m.payr_beat()),
                        dma_pay: (m.get_m_dma_pay_valid() == 1)
                            .then(|| (m.get_m_dma_pay_addr(), m.get_m_dma_pay_len() as u32)),
                        dma_pay_ready: m.get_s_dma_pay_ready() == 1,
                        faults: m.get_faults() as u32,
                    };
                    m.tick();
                    a
                }
            }
        };
    }

    dut!(Dut512, HomaTxPushW512, 64);
    dut!(Dut64, HomaTxPushW64, 8);

    #[test]
    fn tx_push_cosim__answers_every_read_in_order_from_the_right_memory() {
        let n = frames_from_env(2_000, 20_000) as u32;
        let seed = seed_from_env(0x7b_c051);
        let make = || Dut512(HomaTxPushW512::new());
        tx_push_model::run_seeds("tx push co-sim", make, seed, n).unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn tx_push_cosim__answers_every_read_in_order_at_64_bits() {
        let n = frames_from_env(2_000, 20_000) as u32;
        let seed = seed_from_env(0x7b_c064);
        let make = || Dut64(HomaTxPushW64::new());
        tx_push_model::run_seeds("tx push w64 co-sim", make, seed, n)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
