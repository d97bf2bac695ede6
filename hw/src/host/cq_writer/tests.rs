//! [`CqWriter512`] and [`CqWriter64`] against [`crate::cq_writer_model`] with the direct
//! `simulate()` loop
//! (`HOMA_HW_SEED` replays a run).
#![allow(non_snake_case)]

use super::*;
use crate::bench::seed_from_env;
use crate::cq_writer_model::{self, CqAnswer, CqOffer, CqPorts};
use crate::rx_dma_model::DmaWrite;

struct Bench<const W: usize, const B: usize> {
    uut: CqWriter<W, B>,
}

impl<const W: usize, const B: usize> Bench<W, B> {
    fn half(&mut self, high: bool) {
        clock_half(&mut self.uut, |u| &mut u.clock, high);
    }
}

impl<const W: usize, const B: usize> CqPorts for Bench<W, B> {
    fn reset(&mut self) {
        reset_two_cycles(&mut self.uut, |u| &mut u.clock, |u| &mut u.reset);
    }

    fn drive(&mut self, o: &CqOffer<'_>) -> CqAnswer {
        let u = &mut self.uut;
        u.cfg_base.next = o.base.into();
        u.cfg_log2.next = u64::from(o.log2).into();
        u.cfg_consumer.next = u64::from(o.consumer).into();
        u.cfg_clear.next = o.clear;
        u.s_cpl_valid.next = o.cpl.is_some();
        u.s_cpl_data.next = bits_from_le_bytes::<512>(o.cpl.map_or(&[][..], |c| &c[..]));
        u.m_dma_ready.next = o.dma_ready;
        self.half(false);
        let u = &self.uut;
        CqAnswer {
            cpl_ready: u.s_cpl_ready.val(),
            dma: u.m_dma_valid.val().then(|| DmaWrite {
                addr: u.m_dma_addr.val().to_u64(),
                data: {
                    let mut d = [0u8; 64];
                    d[..W].copy_from_slice(&le_bytes_of(u.m_dma_data.val()));
                    d
                },
                keep: u.m_dma_keep.val().to_u64(),
                last: u.m_dma_last.val(),
            }),
        }
    }

    fn counters(&self) -> (u32, u32) {
        (
            self.uut.producer.val().to_u32(),
            self.uut.dropped.val().to_u32(),
        )
    }

    fn edge(&mut self) {
        self.half(true);
    }
}

#[test]
fn cq_writer__host_reads_every_completion_in_order() {
    let seed = seed_from_env(0xc0_0001);
    eprintln!("cq writer: seed {seed:#x} (HOMA_HW_SEED to replay)");
    let mut bench = Bench {
        uut: CqWriter512::top_level(),
    };
    let stats = cq_writer_model::run(&mut bench, seed, 300).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("  {stats:?}");
    assert_eq!(stats.read, 600);
    assert!(stats.full_stalls > 0, "the ring never filled: {stats:?}");
}

#[test]
fn cq_writer__w64_host_reads_every_completion_in_order() {
    let seed = seed_from_env(0xc0_0641);
    eprintln!("cq writer w64: seed {seed:#x} (HOMA_HW_SEED to replay)");
    let mut bench = Bench {
        uut: CqWriter64::top_level(),
    };
    let stats = cq_writer_model::run(&mut bench, seed, 100).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("  {stats:?}");
    assert_eq!(stats.read, 200);
    assert!(stats.full_stalls > 0, "the ring never filled: {stats:?}");
}
