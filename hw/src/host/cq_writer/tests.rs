//! [`CqWriter512`] against [`crate::cq_writer_model`] with the direct `simulate()` loop
//! (`HOMA_HW_SEED` replays a run).
#![allow(non_snake_case)]

use super::*;
use crate::bench::seed_from_env;
use crate::cq_writer_model::{self, CqAnswer, CqOffer, CqPorts};
use crate::rx_dma_model::DmaWrite;

struct Bench {
    uut: CqWriter512,
}

impl Bench {
    fn half(&mut self, high: bool) {
        clock_half(&mut self.uut, |u| &mut u.clock, high);
    }
}

impl CqPorts for Bench {
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
                data: le_bytes_of(u.m_dma_data.val())
                    .try_into()
                    .expect("64 bytes"),
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
