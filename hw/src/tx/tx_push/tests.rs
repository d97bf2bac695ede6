//! [`TxPush512`] and [`TxPush64`] against [`crate::tx_push_model`] with the direct
//! `simulate()` loop (`HOMA_HW_SEED` replays a run).
#![allow(non_snake_case)]

use super::*;
use crate::bench::seed_from_env;
use crate::tx_push_model::{self, TxPushAnswer, TxPushOffer, TxPushPorts};

struct Bench<const W: usize, const B: usize> {
    uut: TxPush<W, B>,
}

impl<const W: usize, const B: usize> Bench<W, B> {
    fn half(&mut self, high: bool) {
        clock_half(&mut self.uut, |u| &mut u.clock, high);
    }
}

fn bytes64(v: Bits<512>) -> [u8; 64] {
    let mut b = [0u8; 64];
    b.copy_from_slice(&le_bytes_of(v));
    b
}

impl<const W: usize, const B: usize> TxPushPorts for Bench<W, B> {
    const BYTES: usize = W;

    fn reset(&mut self) {
        reset_two_cycles(&mut self.uut, |u| &mut u.clock, |u| &mut u.reset);
    }

    fn cycle(&mut self, o: &TxPushOffer) -> TxPushAnswer {
        let u = &mut self.uut;
        let (word, data, keep) = o.push.unwrap_or((0, [0; 64], 0));
        u.s_push_valid.next = o.push.is_some();
        u.s_push_word.next = u64::from(word).into();
        u.s_push_data.next = bits_from_le_bytes::<512>(&data);
        u.s_push_keep.next = keep.into();
        u.s_rd_valid.next = o.rd.is_some();
        u.s_rd_addr.next = o.rd.unwrap_or(0).into();
        u.s_rd_len.next = 64u64.into();
        u.m_dma_rd_ready.next = o.dma_rd_ready;
        u.s_dma_rd_valid.next = o.dma_rd_resp.is_some();
        u.s_dma_rd_data.next = bits_from_le_bytes::<B>(o.dma_rd_resp.as_deref().unwrap_or(&[]));
        let (pa, pl) = o.pay.unwrap_or((0, 0));
        u.s_pay_valid.next = o.pay.is_some();
        u.s_pay_addr.next = pa.into();
        u.s_pay_len.next = u64::from(pl).into();
        u.m_payr_ready.next = o.payr_ready;
        u.m_dma_pay_ready.next = o.dma_pay_ready;
        u.s_dma_pay_valid.next = o.dma_pay_beat.is_some();
        u.s_dma_pay_data.next = bits_from_le_bytes::<B>(o.dma_pay_beat.as_deref().unwrap_or(&[]));
        self.half(false);
        let u = &self.uut;
        let a = TxPushAnswer {
            rd_ready: u.s_rd_ready.val(),
            rdr: u.m_rdr_valid.val().then(|| bytes64(u.m_rdr_data.val())),
            dma_rd: u
                .m_dma_rd_valid
                .val()
                .then(|| u.m_dma_rd_addr.val().to_u64()),
            pay_ready: u.s_pay_ready.val(),
            payr: u
                .m_payr_valid
                .val()
                .then(|| le_bytes_of(u.m_payr_data.val())),
            dma_pay: u.m_dma_pay_valid.val().then(|| {
                (
                    u.m_dma_pay_addr.val().to_u64(),
                    u.m_dma_pay_len.val().to_u32(),
                )
            }),
            dma_pay_ready: u.s_dma_pay_ready.val(),
            faults: u.faults.val().to_u32(),
        };
        self.half(true);
        a
    }
}

#[test]
fn tx_push__answers_every_read_in_order_from_the_right_memory() {
    let seed = seed_from_env(0x7b_0001);
    let make = || Bench {
        uut: TxPush512::top_level(),
    };
    tx_push_model::run_seeds("tx push", make, seed, 150).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn tx_push__answers_every_read_in_order_at_64_bits() {
    let seed = seed_from_env(0x7b_6401);
    let make = || Bench {
        uut: TxPush64::top_level(),
    };
    tx_push_model::run_seeds("tx push w64", make, seed, 100).unwrap_or_else(|e| panic!("{e}"));
}
