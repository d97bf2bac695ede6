//! [`GrantFramer512`] against `proto::wire`: random GRANTs under random back-pressure, every
//! frame byte-exact with `FrameRepr::emit` (checksum included) and parsed back by
//! `FrameRepr::parse` (`HOMA_HW_SEED` replays a run).
#![allow(non_snake_case)]

use super::*;
use crate::bench::{Rng, seed_from_env};
use crate::grant_model::Grant;
use homa_proto::wire::{FrameRepr, LinkType};
use std::collections::VecDeque;

fn beat_bytes(b: &Beat512) -> Vec<u8> {
    let bits: Bits<512> = (*b).into();
    (0..64)
        .map(|i| bits.get_bits::<8>(8 * i).index() as u8)
        .collect()
}

#[test]
fn template__is_a_grant_of_67_bytes() {
    let t = template();
    assert_eq!(t.len(), GRANT_FRAME_LEN);
    assert_eq!(GRANT_FRAME_LEN, 67);
}

#[test]
fn grant_framer__frames_match_proto_wire_under_back_pressure() {
    let seed = seed_from_env(0x6f7a_0001);
    eprintln!("grant framer: seed = {seed:#x} (HOMA_HW_SEED to replay)");
    let mut rng = Rng::new(seed);
    let mut uut = GrantFramer512::top_level();
    let local_mac = 0x02_00_00_00_00_01 | (rng.next_u64() & 0xffff_ffff_ff00);
    let local_ip = rng.next_u64() as u32;
    uut.cfg_mac.next = local_mac.into();
    uut.cfg_ip.next = u64::from(local_ip).into();
    let ctl_priority = rng.below(8) as u8;
    uut.cfg_ctl_priority.next = u64::from(ctl_priority).into();
    uut.reset.next = true;
    for high in [false, true, false, true] {
        clock_half(&mut uut, |u| &mut u.clock, high);
    }
    uut.reset.next = false;
    let mut frames = 0;
    let mut beats: Vec<u8> = Vec::new();
    // The GRANT offered (held until taken), and the frames of those taken, in order.
    let mut offered: Option<Vec<u8>> = None;
    let mut taken: VecDeque<Vec<u8>> = VecDeque::new();
    let mut cycles = 0;
    while frames < 200 {
        cycles += 1;
        assert!(cycles < 10_000, "seed {seed:#x}: no progress");
        if offered.is_none() && rng.chance(70) {
            let g = Grant {
                mac: rng.next_u64() & 0xffff_ffff_ffff,
                peer: rng.next_u64() as u32,
                sport: rng.next_u64() as u16,
                dport: rng.next_u64() as u16,
                id: rng.next_u64(),
                offset: rng.next_u64() as u32,
                priority: rng.below(8) as u8,
            };
            uut.s_grant_mac.next = g.mac.into();
            uut.s_grant_peer.next = u64::from(g.peer).into();
            uut.s_grant_sport.next = u64::from(g.sport).into();
            uut.s_grant_dport.next = u64::from(g.dport).into();
            uut.s_grant_id.next = g.id.into();
            uut.s_grant_offset.next = u64::from(g.offset).into();
            uut.s_grant_priority.next = u64::from(g.priority).into();
            offered = Some(reference_frame(local_mac, local_ip, ctl_priority, &g));
        }
        uut.s_grant_valid.next = offered.is_some();
        let ready = rng.chance(60);
        uut.m_axis_tready.next = ready;
        clock_half(&mut uut, |u| &mut u.clock, false);
        assert_eq!(
            uut.m_axis_tvalid.val(),
            !taken.is_empty(),
            "seed {seed:#x}: a frame is offered exactly while a GRANT is held"
        );
        let last_leaves = uut.m_axis_tvalid.val() && ready && uut.m_axis_tlast.val();
        assert_eq!(
            uut.s_grant_ready.val(),
            taken.is_empty() || last_leaves,
            "seed {seed:#x}: a GRANT is taken when the framer is empty or its frame ends"
        );
        if uut.m_axis_tvalid.val() && ready {
            let keep = uut.m_axis_tkeep.val().to_u64();
            let bytes = beat_bytes(&uut.m_axis_tdata.val());
            beats.extend(bytes.iter().take(keep.count_ones() as usize));
            assert_eq!(keep.trailing_ones(), keep.count_ones(), "contiguous tkeep");
            if uut.m_axis_tlast.val() {
                let want = taken.pop_front().expect("a grant was taken");
                assert_eq!(beats, want, "seed {seed:#x}, frame {frames}");
                let parsed = FrameRepr::parse(&beats, LinkType::Ethernet, &Default::default())
                    .expect("the frame parses");
                assert!(matches!(parsed.homa.body, wire::Body::Grant(_)));
                assert_eq!(beats[15] >> 5, ctl_priority, "sent at the control priority");
                beats.clear();
                frames += 1;
            }
        }
        if uut.s_grant_valid.val() && uut.s_grant_ready.val() {
            taken.push_back(offered.take().expect("offered"));
        }
        clock_half(&mut uut, |u| &mut u.clock, true);
    }
}

#[test]
fn grant_framer__one_grant_every_two_cycles_when_never_held_back() {
    let mut uut = GrantFramer512::top_level();
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
    // The first GRANT is taken in cycle 0 and its frame leaves in cycles 1 and 2; from then
    // on one is taken with each last beat.
    assert_eq!(taken, 100, "GRANTs taken in 200 cycles");
    assert_eq!(lasts, 99, "frames ended in 200 cycles");
}
