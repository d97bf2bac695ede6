//! [`DataFramer512`] and [`DataFramer64`] against `proto::wire` with the direct `simulate()`
//! loop, through [`crate::data_framer_model`] (`HOMA_HW_SEED` replays a run).
#![allow(non_snake_case)]

use super::*;
use crate::bench::seed_from_env;
use crate::data_framer_model::{self, FramerAnswer, FramerOffer, FramerPorts};

struct Bench<const W: usize, const B: usize> {
    uut: DataFramer<W, B>,
}

impl<const W: usize, const B: usize> Bench<W, B> {
    fn new() -> Self {
        Bench {
            uut: DataFramer::top_level(),
        }
    }

    fn half(&mut self, high: bool) {
        clock_half(&mut self.uut, |u| &mut u.clock, high);
    }
}

impl<const W: usize, const B: usize> FramerPorts for Bench<W, B> {
    const BYTES: usize = W;

    fn reset(&mut self) {
        reset_two_cycles(&mut self.uut, |u| &mut u.clock, |u| &mut u.reset);
    }

    fn drive(&mut self, o: &FramerOffer) -> FramerAnswer {
        let u = &mut self.uut;
        u.cfg_mac.next = o.cfg.mac.into();
        u.cfg_next_hop_mac.next = o.cfg.next_hop_mac.into();
        u.cfg_ip.next = u64::from(o.cfg.ip).into();
        u.cfg_cutoff_version.next = u64::from(o.cfg.cutoff_version).into();
        let j = o.job.unwrap_or_default();
        u.s_job_valid.next = o.job.is_some();
        u.s_job_offset.next = u64::from(j.offset).into();
        u.s_job_len.next = u64::from(j.len).into();
        u.s_job_priority.next = u64::from(j.priority).into();
        u.s_job_retransmit.next = j.retransmit;
        u.s_job_incoming.next = u64::from(j.incoming).into();
        u.s_job_last.next = j.last;
        u.s_job_no_completion.next = j.no_completion;
        u.s_job_peer.next = u64::from(j.peer).into();
        u.s_job_sport.next = u64::from(j.sport).into();
        u.s_job_dport.next = u64::from(j.dport).into();
        u.s_job_id.next = j.id.into();
        u.s_job_length.next = u64::from(j.length).into();
        u.s_job_cookie.next = j.cookie.into();
        u.s_job_index.next = u64::from(j.index).into();
        u.s_pay_valid.next = o.pay.is_some();
        u.s_pay_data.next = bits_from_le_bytes(&o.pay.unwrap_or([0; 64])[..W]);
        u.m_axis_tready.next = o.tready;
        u.m_done_ready.next = o.done_ready;
        self.half(false);
        let u = &self.uut;
        let mut bytes = [0u8; 64];
        bytes[..W].copy_from_slice(&le_bytes_of(u.m_axis_tdata.val()));
        FramerAnswer {
            job_ready: u.s_job_ready.val(),
            pay_ready: u.s_pay_ready.val(),
            beat: u
                .m_axis_tvalid
                .val()
                .then(|| (bytes, u.m_axis_tkeep.val().to_u64(), u.m_axis_tlast.val())),
            done: u.m_done_valid.val().then(|| {
                (
                    u.m_done_id.val().to_u64(),
                    u.m_done_length.val().to_u32(),
                    u.m_done_cookie.val().to_u64(),
                    u.m_done_index.val().to_u32(),
                )
            }),
            frames: u.frames.val().to_u32(),
        }
    }

    fn edge(&mut self) {
        self.half(true);
    }
}

#[test]
fn template__is_the_90_byte_data_header() {
    let t = template();
    assert_eq!(t.len(), 90);
    // Ethernet type IPv4, IPv4 version 4 with 5 words, protocol 146, DATA type 0x10.
    assert_eq!((t[12], t[13], t[14], t[23]), (0x08, 0x00, 0x45, 146));
    assert_eq!(t[34 + wire::field::homa::TYPE], 0x10);
}

#[test]
fn data_framer__frames_match_proto_wire_under_back_pressure() {
    let seed = seed_from_env(0xda7a_0001);
    let n = if cfg!(debug_assertions) { 40 } else { 300 };
    data_framer_model::run_seeds("data framer (rust-hdl)", Bench::<64, 512>::new, seed, 4, n)
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn data_framer__w64_frames_match_proto_wire_under_back_pressure() {
    let seed = seed_from_env(0xda7a_0641);
    let n = if cfg!(debug_assertions) { 8 } else { 200 };
    data_framer_model::run_seeds(
        "data framer w64 (rust-hdl)",
        Bench::<8, 64>::new,
        seed,
        4,
        n,
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn payload_lane__is_where_the_header_ends_in_its_last_beat() {
    assert_eq!((header_beats(64), payload_lane(64)), (1, PAYLOAD_LANE));
    assert_eq!((header_beats(8), payload_lane(8)), (11, 2));
    assert_eq!((header_beats(16), payload_lane(16)), (5, 10));
}
