#![allow(non_snake_case)]

use super::*;
use crate::rng::seeded_rng;
use crate::time::{MS, US};
use rand::RngExt;

const MSS: u64 = 1_460;

fn sender(dctcp: bool) -> Sender {
    Sender::new(TcpConfig::default(), dctcp)
}

#[test]
fn config__default_is_valid_and_each_bad_field_is_named() {
    assert_eq!(TcpConfig::default().validate(), Ok(()));
    let base = TcpConfig::default();
    let cases = [
        ("mss", TcpConfig { mss: 10, ..base }),
        (
            "init_cwnd",
            TcpConfig {
                init_cwnd: 0,
                ..base
            },
        ),
        (
            "max_window",
            TcpConfig {
                max_window: 100,
                ..base
            },
        ),
        (
            "rto_min_ps",
            TcpConfig {
                rto_min_ps: 0,
                ..base
            },
        ),
        (
            "dupack_threshold",
            TcpConfig {
                dupack_threshold: 0,
                ..base
            },
        ),
        (
            "dctcp_gain",
            TcpConfig {
                dctcp_gain: f64::NAN,
                ..base
            },
        ),
    ];
    for (field, c) in cases {
        let e = c.validate().expect_err(field);
        assert_eq!(e.field, field);
        assert!(e.to_string().contains(field), "{e}");
    }
}

#[test]
fn sender__starts_with_ten_segments_and_grows_one_mss_per_ack_in_slow_start() {
    let mut s = sender(false);
    s.write(100 * MSS + 7);
    let mut out = Vec::new();
    s.poll(0, &mut out);
    assert_eq!(out.len(), 10);
    assert_eq!(
        out[3],
        Segment {
            seq: 3 * MSS,
            len: 1_460
        }
    );
    let before = s.cwnd();
    for seg in &out.clone() {
        s.on_ack(10 * US, seg.seq + u64::from(seg.len), false, &mut out);
    }
    assert_eq!(s.cwnd(), before + 10.0 * MSS as f64);
    out.clear();
    s.poll(10 * US, &mut out);
    assert_eq!(out.len(), 20, "the window doubled");
    assert_eq!(out[0].seq, 10 * MSS);
}

#[test]
fn sender__last_segment_is_short_and_nothing_more_is_sent() {
    let mut s = sender(false);
    s.write(2 * MSS + 100);
    let mut out = Vec::new();
    s.poll(0, &mut out);
    assert_eq!(
        out.iter().map(|s| s.len).collect::<Vec<_>>(),
        [1_460, 1_460, 100]
    );
    out.clear();
    s.poll(0, &mut out);
    assert!(out.is_empty());
    assert_eq!(s.unacked(), 2 * MSS + 100);
}

#[test]
fn receiver__acknowledges_cumulatively_and_keeps_what_comes_early() {
    let mut r = Receiver::default();
    let seg = |i: u64| Segment {
        seq: i * 100,
        len: 100,
    };
    assert_eq!(r.on_segment(seg(1)), 0);
    assert_eq!(r.on_segment(seg(3)), 0);
    assert_eq!(r.on_segment(seg(0)), 200);
    assert_eq!(r.on_segment(seg(0)), 200, "a duplicate changes nothing");
    assert_eq!(r.on_segment(seg(2)), 400);
    // Overlapping and partly old data.
    assert_eq!(r.on_segment(Segment { seq: 350, len: 100 }), 450);
    assert_eq!(r.on_segment(Segment { seq: 600, len: 50 }), 450);
    assert_eq!(r.on_segment(Segment { seq: 640, len: 100 }), 450);
    assert_eq!(r.on_segment(Segment { seq: 450, len: 150 }), 740);
    assert_eq!(r.delivered(), 740);
}

#[test]
fn sender__three_duplicates_resend_the_hole_and_a_full_ack_ends_recovery() {
    let mut s = sender(false);
    s.write(10 * MSS);
    let mut out = Vec::new();
    s.poll(0, &mut out);
    assert_eq!(out.len(), 10);
    // Segment 2 is lost: the receiver acknowledges 2 * MSS for each later one.
    let mut resent = Vec::new();
    s.on_ack(5 * US, MSS, false, &mut resent);
    s.on_ack(5 * US, 2 * MSS, false, &mut resent);
    for _ in 0..2 {
        s.on_ack(6 * US, 2 * MSS, false, &mut resent);
    }
    assert!(resent.is_empty(), "two duplicates are not enough");
    s.on_ack(6 * US, 2 * MSS, false, &mut resent);
    assert_eq!(
        resent,
        [Segment {
            seq: 2 * MSS,
            len: 1_460
        }]
    );
    assert_eq!(s.counts().fast_retransmits, 1);
    // The retransmission fills the hole: everything is acknowledged.
    resent.clear();
    s.on_ack(12 * US, 10 * MSS, false, &mut resent);
    assert!(resent.is_empty());
    // Flight was 8 segments at the loss: ssthresh = 4 segments, the window deflates to it.
    assert_eq!(s.cwnd(), 4.0 * MSS as f64);
    assert_eq!(s.unacked(), 0);
    assert_eq!(s.deadline(), None, "nothing outstanding: no timer");
}

#[test]
fn sender__partial_ack_in_recovery_resends_the_next_hole() {
    let mut s = sender(false);
    s.write(10 * MSS);
    let mut out = Vec::new();
    s.poll(0, &mut out);
    // Segments 0 and 4 lost.
    for _ in 0..3 {
        s.on_ack(5 * US, 0, false, &mut out);
    }
    out.clear();
    // Recovery's first retransmission arrives: the receiver now holds 0..4.
    s.on_ack(9 * US, 4 * MSS, false, &mut out);
    assert_eq!(
        out,
        [Segment {
            seq: 4 * MSS,
            len: 1_460
        }]
    );
    s.on_ack(12 * US, 10 * MSS, false, &mut out);
    assert_eq!(s.unacked(), 0);
    assert_eq!(s.counts().retransmits, 2);
}

#[test]
fn sender__timeout_goes_back_to_the_oldest_byte_with_one_segment_and_backs_off() {
    let mut s = sender(false);
    s.write(5 * MSS);
    let mut out = Vec::new();
    s.poll(0, &mut out);
    let deadline = s.deadline().expect("armed");
    assert_eq!(deadline, 10 * MS, "rto_min before any sample");
    out.clear();
    s.on_timer(deadline - 1, &mut out);
    assert!(out.is_empty(), "early: nothing happens");
    s.on_timer(deadline, &mut out);
    assert_eq!(out, [Segment { seq: 0, len: 1_460 }]);
    assert_eq!(s.cwnd(), MSS as f64);
    assert_eq!(s.deadline(), Some(deadline + 20 * MS), "doubled");
    assert_eq!(s.counts().timeouts, 1);
    // The receiver had everything but the first segment: one ACK covers it all.
    out.clear();
    s.on_ack(deadline + US, 5 * MSS, false, &mut out);
    s.poll(deadline + US, &mut out);
    assert!(
        out.is_empty(),
        "nothing is sent twice after the cumulative ACK"
    );
    assert_eq!(s.unacked(), 0);
}

#[test]
fn sender__restarts_from_the_initial_window_after_an_idle_timeout_only() {
    let grown = |restart_after_idle| {
        let mut s = Sender::new(
            TcpConfig {
                restart_after_idle,
                ..TcpConfig::default()
            },
            false,
        );
        s.write(40 * MSS);
        let mut out = Vec::new();
        s.poll(0, &mut out);
        for _ in 0..3 {
            for seg in std::mem::take(&mut out) {
                s.on_ack(US, seg.seq + u64::from(seg.len), false, &mut Vec::new());
            }
            s.poll(US, &mut out);
        }
        assert_eq!(s.unacked(), 0);
        assert!(s.cwnd() > 20.0 * MSS as f64);
        s
    };
    // Idle for less than the timeout (10 ms): the grown window is used at once.
    let mut s = grown(true);
    s.write(100 * MSS);
    let mut out = Vec::new();
    s.poll(5 * MS, &mut out);
    assert!(out.len() > 20, "{}", out.len());
    // Idle for longer: ten segments, as for a new connection.
    let mut s = grown(true);
    s.write(100 * MSS);
    out.clear();
    s.poll(20 * MS, &mut out);
    assert_eq!(out.len(), 10);
    // Unless the restart is off.
    let mut s = grown(false);
    s.write(100 * MSS);
    out.clear();
    s.poll(20 * MS, &mut out);
    assert!(out.len() > 20);
}

#[test]
fn sender__ignores_acks_beyond_what_it_sent() {
    let mut s = sender(false);
    s.write(3 * MSS);
    let mut out = Vec::new();
    s.poll(0, &mut out);
    s.on_ack(US, 100 * MSS, false, &mut out);
    assert_eq!(s.unacked(), 3 * MSS);
}

#[test]
fn dctcp__marks_shrink_the_window_once_per_window_by_alpha() {
    let mut s = sender(true);
    assert!(s.is_dctcp());
    s.write(1_000 * MSS);
    let mut out = Vec::new();
    s.poll(0, &mut out);
    let first: Vec<Segment> = std::mem::take(&mut out);
    // Every segment of the first window comes back marked.
    let cwnd0 = s.cwnd();
    for seg in &first {
        s.on_ack(10 * US, seg.seq + u64::from(seg.len), true, &mut out);
    }
    assert_eq!(s.counts().ecn_reductions, 1, "one reduction per window");
    // alpha started at 1: the window halves once, and then ssthresh = cwnd ends slow start
    // (congestion avoidance adds less than one MSS for the rest of the window).
    assert!(
        s.cwnd() < cwnd0 && s.cwnd() > cwnd0 / 2.0 - 1.0,
        "{}",
        s.cwnd()
    );
    // Unmarked windows decay alpha by (1 - g) each.
    let alpha1 = s.dctcp_alpha().expect("dctcp");
    for _ in 0..20 {
        out.clear();
        s.poll(20 * US, &mut out);
        for seg in &out.clone() {
            s.on_ack(30 * US, seg.seq + u64::from(seg.len), false, &mut out);
        }
    }
    let alpha2 = s.dctcp_alpha().expect("dctcp");
    assert!(alpha2 < alpha1 * 0.5, "{alpha1} -> {alpha2}");
    assert_eq!(s.counts().ecn_reductions, 1);
    assert_eq!(sender(false).dctcp_alpha(), None);
}

/// What a test channel carries: a segment to the receiver, or an ACK (with ECE) back.
enum OnWire {
    Data(Segment),
    Ack(u64, bool),
}

/// A sender and a receiver over a channel that drops and delays (reorders) segments and
/// ACKs at random: the whole stream always arrives, in order, and the sender learns it.
#[test]
fn connection__delivers_the_whole_stream_over_a_lossy_reordering_channel() {
    for seed in 0..40 {
        let mut rng = seeded_rng(seed);
        let dctcp = seed % 2 == 1;
        let mut s = sender(dctcp);
        let mut r = Receiver::default();
        let total = rng.random_range(1..300_000u64);
        s.write(total);
        let one_way = 5 * US;
        // In flight: (arrival time, what arrives).
        let mut wire: Vec<(Ps, OnWire)> = Vec::new();
        let mut now: Ps = 0;
        let mut out = Vec::new();
        s.poll(now, &mut out);
        for _ in 0..200_000 {
            for seg in out.drain(..) {
                if !rng.random_bool(0.05) {
                    let jitter = rng.random_range(0..3 * US);
                    wire.push((now + one_way + jitter, OnWire::Data(seg)));
                }
            }
            if r.delivered() == total && s.unacked() == 0 {
                break;
            }
            // The next thing to happen: an arrival or the timer.
            let next_wire = wire.iter().map(|w| w.0).min();
            let next = [next_wire, s.deadline()].into_iter().flatten().min();
            let Some(t) = next else {
                panic!("seed {seed}: nothing pending with {} unacked", s.unacked());
            };
            now = t;
            if let Some(i) = wire.iter().position(|w| w.0 == t) {
                let (_, item) = wire.swap_remove(i);
                match item {
                    OnWire::Data(seg) => {
                        let ack = r.on_segment(seg);
                        if !rng.random_bool(0.05) {
                            let ece = dctcp && rng.random_bool(0.1);
                            wire.push((now + one_way, OnWire::Ack(ack, ece)));
                        }
                    }
                    OnWire::Ack(ack, ece) => {
                        s.on_ack(now, ack, ece, &mut out);
                        s.poll(now, &mut out);
                    }
                }
            } else {
                s.on_timer(now, &mut out);
            }
        }
        assert_eq!(r.delivered(), total, "seed {seed}");
        assert_eq!(s.unacked(), 0, "seed {seed}");
        let c = s.counts();
        assert!(c.retransmits > 0 || total < 20 * MSS, "seed {seed}: {c:?}");
    }
}
