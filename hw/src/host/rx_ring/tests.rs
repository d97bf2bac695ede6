//! [`RxRing512`] against [`crate::rx_ring_model`] with the direct `simulate()` loop
//! (`HOMA_HW_SEED` replays a run).
#![allow(non_snake_case)]

use super::*;
use crate::bench::seed_from_env;
use crate::rx_dma_model::Buffer;
use crate::rx_ring_model::{self, RingAnswer, RingOffer, RingPorts};

struct Bench {
    uut: RxRing512,
}

impl Bench {
    fn half(&mut self, high: bool) {
        clock_half(&mut self.uut, |u| &mut u.clock, high);
    }
}

impl RingPorts for Bench {
    fn reset(&mut self) {
        reset_two_cycles(&mut self.uut, |u| &mut u.clock, |u| &mut u.reset);
    }

    fn drive(&mut self, o: &RingOffer) -> RingAnswer {
        let u = &mut self.uut;
        u.cfg_base.next = o.base.into();
        u.cfg_log2.next = u64::from(o.log2).into();
        u.cfg_producer.next = u64::from(o.producer).into();
        u.cfg_clear.next = o.clear;
        u.m_rd_ready.next = o.rd_ready;
        u.s_rd_valid.next = o.resp.is_some();
        u.s_rd_data.next = bits_from_le_bytes::<512>(&o.resp.unwrap_or([0; 64]));
        u.m_buf_ready.next = o.buf_ready;
        u.cfg_win_base.next = o.window.base.into();
        u.cfg_win_len.next = o.window.len.into();
        u.m_err_ready.next = o.err_ready;
        self.half(false);
        let u = &self.uut;
        let head = Buffer {
            iova: u.m_buf_iova.val().to_u64(),
            length: u.m_buf_length.val().to_u32(),
            id: u.m_buf_id.val().to_u32(),
            index: u.m_buf_index.val().to_u32(),
        };
        RingAnswer {
            rd: u
                .m_rd_valid
                .val()
                .then(|| (u.m_rd_addr.val().to_u64(), u.m_rd_len.val().to_u64() as u16)),
            buf: u.m_buf_valid.val().then_some(head),
            err: u
                .m_err_valid
                .val()
                .then(|| (head, u.m_err_status.val().to_u64() as u8)),
        }
    }

    fn counters(&self) -> (u32, u32) {
        (
            self.uut.consumer.val().to_u32(),
            self.uut.bad.val().to_u32(),
        )
    }

    fn edge(&mut self) {
        self.half(true);
    }
}

#[test]
fn rx_ring__hands_out_every_posted_buffer_in_order() {
    let seed = seed_from_env(0x41_0001);
    let mut out_of_bounds = 0;
    for i in 0..2u64 {
        let s = seed.wrapping_add(i);
        eprintln!("rx ring: seed {s:#x} (HOMA_HW_SEED to replay)");
        let mut bench = Bench {
            uut: RxRing512::top_level(),
        };
        let stats = rx_ring_model::run(&mut bench, s, 300).unwrap_or_else(|e| panic!("{e}"));
        eprintln!("  {stats:?}");
        assert!(stats.buffers > 230 && stats.bad > 0, "{stats:?}");
        out_of_bounds += stats.out_of_bounds;
    }
    assert!(
        out_of_bounds > 0,
        "no run refused a descriptor outside the window"
    );
}

#[test]
fn rx_ring__clear_discards_reads_in_flight_and_restarts_at_zero() {
    let mut bench = Bench {
        uut: RxRing512::top_level(),
    };
    rx_ring_model::clear_case(&mut bench).unwrap_or_else(|e| panic!("{e}"));
}
