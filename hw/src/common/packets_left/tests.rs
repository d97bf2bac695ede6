//! [`PacketsLeft`] in rust-hdl's simulator against `policy::bucket::packets_left`: edge values
//! and seeded random ones, with a start taken while a computation is under way.
#![allow(non_snake_case)]

use super::*;
use crate::bench::{Rng, seed_from_env};
use homa_proto::policy::bucket::packets_left;

fn sim() -> PacketsLeft {
    let mut uut = PacketsLeft::top_level();
    uut.start.next = false;
    reset_two_cycles(&mut uut, |u| &mut u.clock, |u| &mut u.reset);
    uut
}

/// Starts a division, then clocks until `done`: the key and the edges it took after the
/// starting one.
fn divide(uut: &mut PacketsLeft, bytes: u32, max_payload: u32) -> (u16, usize) {
    uut.start.next = true;
    uut.bytes.next = u64::from(bytes).into();
    uut.max_payload.next = u64::from(max_payload).into();
    clock_half(uut, |u| &mut u.clock, false);
    clock_half(uut, |u| &mut u.clock, true);
    uut.start.next = false;
    for edges in 0..=2 * DIV_CYCLES {
        clock_half(uut, |u| &mut u.clock, false);
        if uut.done.val() {
            return (uut.key.val().index() as u16, edges);
        }
        clock_half(uut, |u| &mut u.clock, true);
    }
    panic!(
        "no key {} cycles after start ({bytes} B, max_payload {max_payload})",
        2 * DIV_CYCLES
    );
}

#[test]
fn packets_left__matches_the_policy_at_the_edges() {
    let mut uut = sim();
    let payloads = [
        0,
        1,
        2,
        3,
        1442,
        1500,
        8952,
        65_459,
        (1 << 22) - 1,
        1 << 22,
        (1 << 30) - 1,
    ];
    let bytes = [
        0,
        1,
        2,
        1441,
        1442,
        1443,
        1_000_000,
        1_476_607,
        1_476_608,
        u32::MAX - 1,
        u32::MAX,
    ];
    for &mp in &payloads {
        for &b in &bytes {
            let (key, cycles) = divide(&mut uut, b, mp);
            assert_eq!(key, packets_left(b, mp), "{b} B at max_payload {mp}");
            assert_eq!(cycles, DIV_CYCLES, "{b} B at max_payload {mp}");
        }
    }
}

#[test]
fn packets_left__matches_the_policy_on_random_values() {
    let seed = seed_from_env(0x9ac7);
    let mut rng = Rng::new(seed);
    let mut uut = sim();
    for _ in 0..2_000 {
        let mp = match rng.below(4) {
            0 => rng.below(64) as u32,
            1 => 1000 + rng.below(64_000) as u32,
            2 => rng.below(1 << 30) as u32,
            _ => 1442,
        };
        let b = match rng.below(3) {
            0 => rng.below(1 << 21) as u32,
            1 => rng.next_u64() as u32,
            _ => mp.saturating_mul(rng.below(1100) as u32),
        };
        // Now and then a start lands while the divider is busy: only the last one counts.
        if rng.chance(10) {
            uut.start.next = true;
            uut.bytes.next = u64::from(rng.next_u64() as u32).into();
            uut.max_payload.next = 7u64.into();
            clock_half(&mut uut, |u| &mut u.clock, false);
            clock_half(&mut uut, |u| &mut u.clock, true);
        }
        let (key, _) = divide(&mut uut, b, mp);
        assert_eq!(
            key,
            packets_left(b, mp),
            "seed {seed:#x}: {b} B at max_payload {mp}"
        );
    }
}
