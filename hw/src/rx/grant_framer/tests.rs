//! [`GrantFramer512`] and [`GrantFramer64`] against `proto::wire` through
//! [`crate::grant_framer_model`], and their rate when nothing holds them back
//! (`HOMA_HW_SEED` replays a run).
#![allow(non_snake_case)]

use super::*;
use crate::bench::seed_from_env;
use crate::grant_framer_model::{self, GrantFramerAnswer, GrantFramerConfig, GrantFramerPorts};

#[test]
fn template__is_a_grant_of_67_bytes() {
    let t = template();
    assert_eq!(t.len(), GRANT_FRAME_LEN);
    assert_eq!(GRANT_FRAME_LEN, 67);
}

#[test]
fn grant_framer__frames_match_proto_wire_under_back_pressure() {
    frames_match_proto_wire::<64, 512>();
}

#[test]
fn grant_framer__w64_frames_match_proto_wire_under_back_pressure() {
    frames_match_proto_wire::<8, 64>();
}

struct Bench<const W: usize, const B: usize> {
    uut: GrantFramer<W, B>,
}

impl<const W: usize, const B: usize> GrantFramerPorts for Bench<W, B> {
    const BYTES: usize = W;

    fn reset(&mut self, cfg: &GrantFramerConfig) {
        let u = &mut self.uut;
        u.cfg_mac.next = cfg.mac.into();
        u.cfg_ip.next = u64::from(cfg.ip).into();
        u.cfg_ctl_priority.next = u64::from(cfg.ctl_priority).into();
        reset_two_cycles(u, |u| &mut u.clock, |u| &mut u.reset);
    }

    fn drive(&mut self, g: Option<&Grant>, tready: bool) -> GrantFramerAnswer {
        let u = &mut self.uut;
        let g = g.copied();
        let v = g.unwrap_or(Grant {
            peer: 0,
            mac: 0,
            id: 0,
            sport: 0,
            dport: 0,
            offset: 0,
            priority: 0,
        });
        u.s_grant_valid.next = g.is_some();
        u.s_grant_mac.next = v.mac.into();
        u.s_grant_peer.next = u64::from(v.peer).into();
        u.s_grant_sport.next = u64::from(v.sport).into();
        u.s_grant_dport.next = u64::from(v.dport).into();
        u.s_grant_id.next = v.id.into();
        u.s_grant_offset.next = u64::from(v.offset).into();
        u.s_grant_priority.next = u64::from(v.priority).into();
        u.m_axis_tready.next = tready;
        clock_half(u, |u| &mut u.clock, false);
        let mut bytes = [0u8; 64];
        bytes[..W].copy_from_slice(&le_bytes_of(u.m_axis_tdata.val()));
        GrantFramerAnswer {
            grant_ready: u.s_grant_ready.val(),
            beat: u
                .m_axis_tvalid
                .val()
                .then(|| (bytes, u.m_axis_tkeep.val().to_u64(), u.m_axis_tlast.val())),
        }
    }

    fn edge(&mut self) {
        clock_half(&mut self.uut, |u| &mut u.clock, true);
    }
}

fn frames_match_proto_wire<const W: usize, const B: usize>() {
    let seed = seed_from_env(0x6f7a_0001);
    let make = || Bench::<W, B> {
        uut: GrantFramer::top_level(),
    };
    grant_framer_model::run_seeds("grant framer (rust-hdl)", make, seed, 2, 200)
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn grant_framer__one_grant_every_two_cycles_when_never_held_back() {
    one_grant_per_frame_when_never_held_back::<64, 512>();
}

#[test]
fn grant_framer__w64_one_grant_every_nine_cycles_when_never_held_back() {
    one_grant_per_frame_when_never_held_back::<8, 64>();
}

fn one_grant_per_frame_when_never_held_back<const W: usize, const B: usize>() {
    let n = grant_beats(W);
    let mut uut = GrantFramer::<W, B>::top_level();
    uut.reset.next = true;
    for high in [false, true, false, true] {
        clock_half(&mut uut, |u| &mut u.clock, high);
    }
    uut.reset.next = false;
    uut.s_grant_valid.next = true;
    uut.m_axis_tready.next = true;
    let (mut taken, mut lasts) = (0, 0);
    for _ in 0..200 {
        clock_half(&mut uut, |u| &mut u.clock, false);
        taken += usize::from(uut.s_grant_ready.val());
        lasts += usize::from(uut.m_axis_tvalid.val() && uut.m_axis_tlast.val());
        clock_half(&mut uut, |u| &mut u.clock, true);
    }
    // The first GRANT is taken in cycle 0 and its frame's n beats leave in cycles 1 to n;
    // from then on one is taken with each last beat.
    assert_eq!(taken, 200usize.div_ceil(n), "GRANTs taken in 200 cycles");
    assert_eq!(lasts, 199 / n, "frames ended in 200 cycles");
}
