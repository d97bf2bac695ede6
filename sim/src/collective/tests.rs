#![allow(non_snake_case)]

use super::*;

fn spec(text: &str) -> CollectiveSpec {
    CollectiveSpec::parse(text).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs the job over an ideal network where every message takes `latency` plus `per_byte`
/// ps per byte, messages in flight independent of each other. Returns the report and the
/// messages sent.
fn run_ideal(c: &mut Collective, latency: Ps, per_byte: Ps) -> Vec<Send> {
    let mut all = Vec::new();
    let mut flying: Vec<(Ps, u64)> = Vec::new();
    let mut now = 0;
    for _ in 0..1_000_000 {
        for s in c.poll(now) {
            flying.push((now + latency + per_byte * u64::from(s.bytes), s.tag));
            all.push(s);
        }
        if c.is_done() {
            return all;
        }
        let next = flying
            .iter()
            .map(|f| f.0)
            .chain(c.next_time())
            .min()
            .expect("something pending");
        now = next;
        while let Some(i) = flying.iter().position(|f| f.0 == now) {
            let (_, tag) = flying.swap_remove(i);
            c.delivered(now, tag);
        }
    }
    panic!("the job did not finish");
}

#[test]
fn parse__the_issue_example_and_defaults() {
    let s = spec("allreduce:hosts=16,bucket=25MB,buckets=8,compute=2ms");
    assert_eq!(s.algorithm, Algorithm::Ring);
    assert_eq!((s.hosts, s.bucket_bytes, s.buckets), (16, 25_000_000, 8));
    assert_eq!((s.compute_ps, s.steps), (2 * MS, 10));
    assert_eq!(s.largest_message(), 1_562_500);
    let t = spec("AllReduce:hosts=4, bucket=64KB, buckets=2, compute=500us, steps=3, algo=tree");
    assert_eq!(t.algorithm, Algorithm::Tree);
    assert_eq!(
        (t.bucket_bytes, t.compute_ps, t.steps),
        (64_000, 500 * US, 3)
    );
    assert_eq!(t.largest_message(), 64_000);
    let a = spec("alltoall:hosts=8,bucket=1.5MB,buckets=1,compute=0");
    assert_eq!(
        (a.algorithm, a.bucket_bytes, a.compute_ps),
        (Algorithm::AllToAll, 1_500_000, 0)
    );
    assert!(CollectiveSpec::is_collective("allreduce:hosts=2"));
    assert!(!CollectiveSpec::is_collective("w3"));
}

#[test]
fn parse__bad_specs_say_what_is_wrong() {
    for (text, says) in [
        ("allreduce", "no fields"),
        ("broadcast:hosts=4", "unknown collective"),
        (
            "allreduce:hosts=4,bucket=1MB,buckets=2",
            "`compute` is missing",
        ),
        (
            "allreduce:hosts=1,bucket=1MB,buckets=2,compute=1ms",
            "hosts=1",
        ),
        (
            "allreduce:hosts=4,bucket=lots,buckets=2,compute=1ms",
            "bucket=lots",
        ),
        (
            "allreduce:hosts=4,bucket=1MB,buckets=2,compute=soon",
            "compute=soon",
        ),
        (
            "allreduce:hosts=4,bucket=1MB,buckets=2,compute=1ms,algo=star",
            "unknown algo",
        ),
        (
            "allreduce:hosts=4,bucket=1MB,buckets=2,compute=1ms,color=red",
            "unknown field",
        ),
        (
            "allreduce:hosts=4,bucket=0,buckets=2,compute=1ms",
            "bucket=0",
        ),
        (
            "alltoall:hosts=4,bucket=1MB,buckets=2,compute=1ms,algo=tree",
            "unknown field",
        ),
    ] {
        let e = CollectiveSpec::parse(text).expect_err(text).to_string();
        assert!(e.contains(says), "{text}: {e}");
        assert!(e.contains("allreduce:hosts=N"), "the forms are listed: {e}");
    }
}

#[test]
fn ring__each_host_sends_two_n_minus_one_chunks_per_bucket_in_order() {
    let mut c = Collective::new(spec(
        "allreduce:hosts=4,bucket=4000,buckets=2,compute=0,steps=1",
    ));
    let sent = run_ideal(&mut c, US, 0);
    assert_eq!(sent.len(), 2 * 2 * 3 * 4, "buckets x 2(N-1) x N");
    assert!(
        sent.iter()
            .all(|s| s.dst == (s.src + 1) % 4 && s.bytes == 1_000)
    );
    // Phases are sequential: 6 one-microsecond hops.
    let r = c.report();
    assert_eq!(r.step_times_ps, [6 * US]);
    assert_eq!(r.network_share, 1.0);
}

#[test]
fn tree__reduces_to_the_root_and_broadcasts_back() {
    let mut c = Collective::new(spec(
        "allreduce:hosts=7,bucket=5000,buckets=1,compute=0,steps=1,algo=tree",
    ));
    let sent = run_ideal(&mut c, US, 0);
    // Up: every non-root host to its parent; down: the root and inner hosts to children.
    let up: Vec<_> = sent.iter().filter(|s| s.dst < s.src).collect();
    let down: Vec<_> = sent.iter().filter(|s| s.dst > s.src).collect();
    assert_eq!((up.len(), down.len()), (6, 6));
    assert!(
        up.iter()
            .all(|s| s.dst == (s.src - 1) / 2 && s.bytes == 5_000)
    );
    // Depth 2: two hops up, two down.
    assert_eq!(c.report().step_times_ps, [4 * US]);
}

#[test]
fn alltoall__every_pair_once_per_bucket() {
    let mut c = Collective::new(spec(
        "alltoall:hosts=5,bucket=5000,buckets=3,compute=0,steps=2",
    ));
    let sent = run_ideal(&mut c, US, 0);
    assert_eq!(sent.len(), 2 * 3 * 5 * 4);
    let mut pairs: Vec<(usize, usize)> = sent.iter().map(|s| (s.src, s.dst)).collect();
    pairs.sort_unstable();
    pairs.dedup();
    assert_eq!(pairs.len(), 20);
    assert_eq!(c.report().steps, 2);
}

#[test]
fn steps__overlap_buckets_with_compute_and_measure_the_network_share() {
    // 4 buckets ready at 1, 2, 3 and 4 ms; each ring all-reduce takes 6 x 10 us: only the
    // last bucket's 60 us is outside the compute.
    let mut c = Collective::new(spec(
        "allreduce:hosts=4,bucket=4000,buckets=4,compute=4ms,steps=3",
    ));
    run_ideal(&mut c, 10 * US, 0);
    let r = c.report();
    assert_eq!(r.steps, 3);
    assert_eq!(r.step_times_ps, [4 * MS + 60 * US; 3]);
    assert_eq!((r.p50_ps, r.p99_ps), (4 * MS + 60 * US, 4 * MS + 60 * US));
    let share = 60.0 / 4_060.0;
    assert!(
        (r.network_share - share).abs() < 1e-9,
        "{}",
        r.network_share
    );
    // A network fast enough to hide: the step is the compute.
    let mut c = Collective::new(spec(
        "allreduce:hosts=4,bucket=4000,buckets=4,compute=4ms,steps=2",
    ));
    run_ideal(&mut c, 0, 0);
    assert_eq!(c.report().step_times_ps, [4 * MS; 2]);
    assert_eq!(c.report().network_share, 0.0);
}

#[test]
fn delivered__ignores_unknown_and_stale_tags() {
    let mut c = Collective::new(spec(
        "alltoall:hosts=2,bucket=10,buckets=1,compute=0,steps=2",
    ));
    let first = c.poll(0);
    assert_eq!(first.len(), 2);
    c.delivered(1, 12345);
    c.delivered(1, first[0].tag);
    c.delivered(1, first[0].tag);
    assert_eq!(c.report().steps, 0, "a duplicate is not the other message");
    c.delivered(2, first[1].tag);
    assert_eq!(c.report().steps, 1);
    // Step 1's messages; step 0's tags no longer count.
    let second = c.poll(2);
    assert_eq!(second.len(), 2);
    c.delivered(3, first[0].tag);
    c.delivered(3, first[1].tag);
    assert_eq!(c.report().steps, 1);
    for s in second {
        c.delivered(4, s.tag);
    }
    assert!(c.is_done());
    assert_eq!(c.poll(5), []);
}

#[test]
fn steps__hour_long_compute_over_many_buckets_does_not_overflow() {
    let mut c = Collective::new(spec(
        "alltoall:hosts=2,bucket=10,buckets=10000,compute=3000s,steps=1",
    ));
    // The first bucket is ready after 3000 s / 10,000.
    assert_eq!(c.next_time(), Some(300 * MS));
    assert!(c.poll(0).is_empty());
    assert_eq!(c.poll(300 * MS).len(), 2);
}
