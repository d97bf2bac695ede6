//! Tests of [`HomaParser`] at the rust-hdl level: golden frames of every type over IPv4 and
//! IPv6 with and without a VLAN tag, latency and throughput, and seeded random runs of valid
//! and malformed frames under idle cycles and back-pressure, all checked frame by frame
//! against `homa_proto::wire::FrameRepr::parse` (see `tb::expect`).
#![allow(non_snake_case)]

use super::tb::Bench;
use super::{HomaParser64, HomaParser512};
use crate::bench::{
    Rng, frame_of, frames_from_env, golden_frames, random_malformed, random_valid, seed_from_env,
};
use crate::parser_model::{Shape, Verdict, check, expect};
use homa_proto::wire::PacketType;
use std::time::Instant;

type Bench64 = Bench<64, 8>;
type Bench512 = Bench<512, 64>;

#[test]
fn new__aliases_build_and_report_their_width() {
    assert!(format!("{:?}", HomaParser64::new()).contains("width: 64"));
    assert!(format!("{:?}", HomaParser512::new()).contains("width: 512"));
}

#[test]
fn golden__every_type_ipv4_ipv6_vlan_w64() {
    let mut rng = Rng::new(1);
    let frames = golden_frames(&mut rng);
    assert_eq!(frames.len(), 36);
    for f in &frames {
        assert_eq!(expect(f).verdict, Verdict::Ok);
    }
    let mut tb = Bench64::new();
    let obs = tb.run(&frames, Shape::FULL_SPEED, &mut rng);
    check(&frames, &obs).unwrap();
    assert_eq!(obs.counters[0], 36);
    assert_eq!(obs.headers.len(), 36);
    assert_eq!(obs.payloads.len(), 4);
}

#[test]
fn golden__every_type_ipv4_ipv6_vlan_w512() {
    let mut rng = Rng::new(2);
    let frames = golden_frames(&mut rng);
    let mut tb = Bench512::new();
    let obs = tb.run(&frames, Shape::FULL_SPEED, &mut rng);
    check(&frames, &obs).unwrap();
    assert_eq!(obs.counters[0], 36);
}

#[test]
fn latency__header_valid_three_cycles_after_the_last_beat() {
    let mut rng = Rng::new(3);
    for v6 in [false, true] {
        let frame = frame_of(&mut rng, PacketType::Grant, v6, false, &[]);
        let mut tb = Bench64::new();
        let obs = tb.run(std::slice::from_ref(&frame), Shape::FULL_SPEED, &mut rng);
        check(std::slice::from_ref(&frame), &obs).unwrap();
        assert_eq!(obs.hdr_valid_cycle[0] - obs.last_beat_cycle[0], 3);
    }
}

#[test]
fn throughput__one_beat_per_cycle_without_backpressure() {
    let mut rng = Rng::new(4);
    let frames: Vec<Vec<u8>> = (0..60)
        .map(|i| {
            if i % 3 == 0 {
                random_malformed(&mut rng)
            } else {
                random_valid(&mut rng)
            }
        })
        .collect();
    let mut tb = Bench64::new();
    let obs = tb.run(&frames, Shape::FULL_SPEED, &mut rng);
    check(&frames, &obs).unwrap();
    assert_eq!(obs.input_stalls, 0, "the input was refused a beat");
    // 512 bits: a stream of single-beat control frames, one frame per cycle.
    let small: Vec<Vec<u8>> = (0..50)
        .map(|_| frame_of(&mut rng, PacketType::Busy, false, false, &[]))
        .collect();
    let mut tb = Bench512::new();
    let obs = tb.run(&small, Shape::FULL_SPEED, &mut rng);
    check(&small, &obs).unwrap();
    assert_eq!(obs.input_stalls, 0);
    let span = obs.last_beat_cycle[49] - obs.last_beat_cycle[0];
    assert_eq!(span, 49, "one 62-byte frame per cycle");
}

fn random_run<const W: usize, const K: usize>(seed: u64, n: usize) {
    eprintln!("random run: W = {W}, seed = {seed:#x} (HOMA_HW_SEED to replay), {n} frames");
    let mut rng = Rng::new(seed);
    let frames: Vec<Vec<u8>> = (0..n)
        .map(|_| {
            if rng.chance(35) {
                random_malformed(&mut rng)
            } else {
                random_valid(&mut rng)
            }
        })
        .collect();
    let shape = Shape {
        idle: rng.below(40),
        hdr_stall: rng.below(60),
        pay_stall: rng.below(60),
    };
    let mut tb = Bench::<W, K>::new();
    let t = Instant::now();
    let obs = tb.run(&frames, shape, &mut rng);
    let secs = t.elapsed().as_secs_f64();
    eprintln!(
        "{} cycles in {secs:.2} s = {:.0} cycles/s; {shape:?}; verdicts {:?}",
        obs.cycles,
        obs.cycles as f64 / secs,
        obs.counters
    );
    if let Err(m) = check(&frames, &obs) {
        panic!("seed {seed:#x}: {m}");
    }
}

#[test]
fn random__valid_and_malformed_under_backpressure_w64() {
    let n = frames_from_env(300, 4000);
    for (i, seed) in [0x5eed_0001_u64, 0x5eed_0002].into_iter().enumerate() {
        random_run::<64, 8>(seed_from_env(seed) + i as u64 * 0x100, n / 2);
    }
}

#[test]
fn random__valid_and_malformed_under_backpressure_w512() {
    let n = frames_from_env(60, 600);
    random_run::<512, 64>(seed_from_env(0x5eed_0512), n);
}
