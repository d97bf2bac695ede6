//! [`TxPark`] in rust-hdl's simulator, with the bench playing the scheduler: messages parked
//! into the ways their two buckets offer (a fifth message of the same buckets is refused),
//! brought back by a GRANT with the GRANT applied, a GRANT for nobody offered again, a
//! CANCEL bringing its message back and following it.
#![allow(non_snake_case)]

use super::*;
use crate::key_hash::{H0, H1, bucket_of};

/// Both buckets of a key.
fn buckets(p: u32, x: u64) -> (usize, usize) {
    (bucket_of(&H0, p, x), bucket_of(&H1, p, x))
}

/// TX `max_payload` in the bench: the ready queue's unit.
const MAX_PAYLOAD: u32 = 1442;

struct Bench {
    uut: TxPark,
    /// The scheduler's slots as the bench plays them: what `park_entry` shows per slot.
    slots: [ParkEntry; 16],
}

fn entry(peer: u32, id: u64, sent: u32, length: u32, index: u32) -> ParkEntry {
    ParkEntry {
        valid: true,
        nocpl: index % 2 == 1,
        sport: (0x4000 + index as u64).into(),
        dport: 0x5000u64.into(),
        id: id.into(),
        peer: u64::from(peer).into(),
        length: u64::from(length).into(),
        iova: (0x10_0000 + u64::from(index) * 0x10_0000).into(),
        cookie: (0xc00c_0000 + u64::from(index)).into(),
        index: u64::from(index).into(),
        sent: u64::from(sent).into(),
        left: u64::from(length - sent).into(),
        granted: u64::from(sent).into(),
        sprio: 1u64.into(),
    }
}

impl Bench {
    fn new() -> Self {
        let mut b = Bench {
            uut: TxPark::top_level(),
            slots: [ParkEntry::default(); 16],
        };
        reset_two_cycles(&mut b.uut, |u| &mut u.clock, |u| &mut u.reset);
        b.idle();
        // The table clears over 1024 cycles after reset.
        for _ in 0..1030 {
            b.cycle();
        }
        b
    }

    fn idle(&mut self) {
        let u = &mut self.uut;
        u.ring_valid.next = false;
        u.ring_cancel.next = false;
        u.g_valid.next = false;
        u.sched_grant_hit.next = false;
        u.waiting.next = 0u64.into();
        u.sched_full.next = true;
        u.most_valid.next = false;
        u.park_ok.next = true;
        u.cfg_max_payload.next = u64::from(MAX_PAYLOAD).into();
    }

    /// Settles this cycle's outputs (the slot the park names shows its entry).
    fn settle(&mut self) {
        let slot = self.uut.park_slot.val().index();
        self.uut.park_entry.next = self.slots[slot];
        clock_half(&mut self.uut, |u| &mut u.clock, false);
    }

    fn edge(&mut self) {
        clock_half(&mut self.uut, |u| &mut u.clock, true);
    }

    fn cycle(&mut self) {
        self.settle();
        self.edge();
    }

    /// Runs until `f` holds after settling (at most `n` cycles); the cycle is left settled.
    fn until(&mut self, n: usize, mut f: impl FnMut(&TxPark) -> bool) -> bool {
        for _ in 0..n {
            self.settle();
            if f(&self.uut) {
                return true;
            }
            self.edge();
        }
        false
    }

    /// Offers slot `j` (waiting) to be parked while a descriptor waits; true if it left.
    fn park(&mut self, j: usize) -> bool {
        self.uut.ring_valid.next = true;
        self.uut.waiting.next = (1u64 << j).into();
        let left = self.until(12, |u| u.park_valid.val());
        if left {
            assert_eq!(self.uut.park_slot.val().index(), j);
            self.edge();
        }
        self.uut.ring_valid.next = false;
        self.uut.waiting.next = 0u64.into();
        left
    }

    fn grant(&mut self, peer: u32, id: u64, offset: u32, prio: u8) {
        let u = &mut self.uut;
        u.g_valid.next = true;
        u.g_peer.next = u64::from(peer).into();
        u.g_id.next = (id ^ 1).into();
        u.g_offset.next = u64::from(offset).into();
        u.g_priority.next = u64::from(prio).into();
        self.cycle();
        self.uut.g_valid.next = false;
    }
}

#[test]
fn tx_park__parks_by_hash_and_brings_back_on_grant_and_cancel() {
    let mut b = Bench::new();
    let peer = 0x0a00_0002;
    // Nothing parked: a GRANT that matched no slot is not the park's.
    b.grant(peer, 1234, 5000, 3);
    assert!(!b.until(10, |u| u.ro_valid.val() || u.r_valid.val()));
    // A and three random keys of both its buckets fill the four ways; a fourth such key, b,
    // is refused and stays; c parks elsewhere. Random keys, so that every slice of both
    // folds takes part.
    let (a, c) = (0x8765_4321_0fed_cba8u64, 1002u64);
    let mut rng = crate::bench::Rng::new(7);
    let crowd: Vec<(u32, u64)> = std::iter::repeat_with(|| (rng.next_u64() as u32, rng.next_u64()))
        .filter(|&(p, x)| buckets(p, x) == buckets(peer, a))
        .take(4)
        .collect();
    let (bpeer, bid) = crowd[3];
    assert_ne!(buckets(peer, c).0, buckets(peer, a).0);
    assert_ne!(buckets(peer, c).1, buckets(peer, a).1);
    b.slots[5] = entry(peer, a, 10_000, 50_000, 7);
    b.slots[9] = entry(bpeer, bid, 3000, 9000, 8);
    b.slots[2] = entry(peer, c, 1424, 80_000, 9);
    assert!(b.park(5), "a free way takes the slot");
    for (j, &(p, x)) in crowd.iter().take(3).enumerate() {
        b.slots[10 + j] = entry(p, x, 100, 200, 10 + j as u32);
        assert!(
            b.park(10 + j),
            "the bucket's other ways, then the other bucket's"
        );
    }
    assert_eq!(b.uut.collisions.val().to_u32(), 0);
    assert!(
        !b.park(9),
        "four taken ways refuse a fifth message of the same buckets"
    );
    assert!(b.park(2));
    assert!(
        b.uut.collisions.val().to_u32() >= 1,
        "b's refusal is counted"
    );
    // A key already parked (a host that posted one message twice) is refused as well.
    b.slots[14] = b.slots[2];
    assert!(!b.park(14), "a key is parked once");
    b.cycle(); // the high-water mark follows the count a cycle later
    assert_eq!(b.uut.parked_most.val().to_u32(), 5);
    // A GRANT for a comes back as a resume with the GRANT applied (a slot is free now).
    b.uut.sched_full.next = false;
    b.grant(peer, a, 20_000, 6);
    assert!(b.until(12, |u| u.r_valid.val()));
    let mut want = b.slots[5];
    want.granted = 20_000u64.into();
    want.sprio = 6u64.into();
    assert_eq!(b.uut.r_entry.val(), want);
    b.edge();
    b.settle();
    assert!(!b.uut.r_valid.val(), "taken while a slot is free");
    b.edge();
    // A GRANT for a again finds nothing (a is back in the scheduler): offered again.
    b.grant(peer, a, 30_000, 4);
    assert!(b.until(12, |u| u.ro_valid.val()));
    assert_eq!(b.uut.ro_id.val().to_u64(), a ^ 1);
    assert_eq!(b.uut.ro_offset.val().to_u32(), 30_000);
    assert_eq!(b.uut.ro_priority.val().to_u64(), 4);
    b.edge();
    b.settle();
    assert!(
        !b.uut.ro_valid.val(),
        "taken in a cycle without a parser GRANT"
    );
    b.edge();
    // A CANCEL of c: taken, c comes back as it was, then the CANCEL follows it.
    b.uut.ring_valid.next = true;
    b.uut.ring_cancel.next = true;
    b.uut.ring_peer.next = u64::from(peer).into();
    b.uut.ring_id.next = c.into();
    b.settle();
    assert!(b.uut.ring_ok.val());
    b.edge();
    b.uut.ring_valid.next = false;
    b.uut.ring_cancel.next = false;
    assert!(b.until(12, |u| u.r_valid.val()));
    assert_eq!(b.uut.r_entry.val(), b.slots[2], "the resume comes first");
    b.edge();
    b.settle();
    assert!(b.uut.r_valid.val() && !b.uut.r_entry.val().valid);
    assert_eq!(b.uut.r_entry.val().peer.to_u32(), peer);
    assert_eq!(b.uut.r_entry.val().id.to_u64(), c);
    b.edge();
    b.settle();
    assert!(!b.uut.r_valid.val());
    // Both GRANTs were the park's to resolve (one found, one offered again).
    assert_eq!(b.uut.grants_resolved.val().to_u32(), 2);
    // A's way is free again, so b parks now (every slot taken), and the three others are
    // still found: a CANCEL of one brings it back.
    b.uut.sched_full.next = true;
    assert!(b.park(9));
    assert_eq!(b.uut.parked.val().to_u64(), 4);
    let (p0, x0) = crowd[0];
    b.uut.ring_valid.next = true;
    b.uut.ring_cancel.next = true;
    b.uut.ring_peer.next = u64::from(p0).into();
    b.uut.ring_id.next = x0.into();
    b.cycle();
    b.uut.ring_valid.next = false;
    b.uut.ring_cancel.next = false;
    b.uut.sched_full.next = false;
    assert!(b.until(12, |u| u.r_valid.val()));
    assert_eq!(b.uut.r_entry.val(), b.slots[10]);
    b.edge();
    assert_eq!(b.uut.parked.val().to_u64(), 3);
}

/// Collects the park's resumes over `n` cycles while the scheduler has a free slot (every
/// resume is taken in the cycle it shows); fails on a CANCEL or a GRANT offered again.
fn resumes(b: &mut Bench, n: usize) -> Vec<ParkEntry> {
    b.uut.sched_full.next = false;
    let mut got = Vec::new();
    for _ in 0..n {
        b.settle();
        assert!(!b.uut.ro_valid.val(), "no GRANT is offered again");
        if b.uut.r_valid.val() {
            assert!(b.uut.r_entry.val().valid, "no CANCEL here");
            got.push(b.uut.r_entry.val());
        }
        b.edge();
    }
    b.uut.sched_full.next = true;
    got
}

#[test]
fn tx_park__grants_for_parked_messages_go_on_while_one_waits_for_a_slot() {
    let mut b = Bench::new();
    let peer = 0x0a00_0003;
    let ids: Vec<u64> = (0..4).map(|i| 7000 + 37 * i).collect();
    for (j, &x) in ids.iter().enumerate() {
        b.slots[j] = entry(peer, x, 10_000, 100_000, j as u32);
        assert!(b.park(j));
    }
    assert_eq!(b.uut.parked.val().to_u64(), 4);
    let granted = |e: &ParkEntry| e.granted.to_u32();
    // Every slot taken and none waiting: the first GRANT's message waits in the resume
    // register. GRANTs for the others, one a cycle, are applied in the table meanwhile (none
    // dropped, none offered again), and a second GRANT for the waiting one reaches it there.
    b.grant(peer, ids[0], 20_000, 5);
    assert!(b.until(12, |u| u.r_valid.val()));
    for (x, off) in [
        (1, 30_000),
        (2, 40_000),
        (3, 50_000),
        (0, 25_000),
        (1, 35_000),
    ] {
        b.grant(peer, ids[x], off, x as u8);
    }
    // (A lookup that makes an entry ready takes about 13 cycles: six, then its key's
    // division and its queue command.)
    for _ in 0..100 {
        b.cycle();
        assert!(!b.uut.ro_valid.val());
    }
    assert!(b.uut.r_valid.val(), "still waiting for a slot");
    assert_eq!(granted(&b.uut.r_entry.val()), 25_000);
    assert_eq!(b.uut.grants_resolved.val().to_u32(), 6);
    // A slot frees: the waiting message, then the ready ones (all as long: in the order of
    // their GRANTs), each once, with every GRANT applied (the larger offset wins).
    let back = resumes(&mut b, 80);
    let got: Vec<(u64, u32, u64)> = back
        .iter()
        .map(|e| (e.id.to_u64(), granted(e), e.sprio.to_u64()))
        .collect();
    assert_eq!(
        got,
        vec![
            (ids[0], 25_000, 0),
            (ids[1], 35_000, 1),
            (ids[2], 40_000, 2),
            (ids[3], 50_000, 3)
        ]
    );
    assert_eq!(b.uut.parked.val().to_u64(), 0);
    // Park two again; the first one's GRANT comes while the second one's waits, so the first
    // is queued as ready. A second GRANT for it is looked up just as the scheduler takes the
    // waiting one: it comes back at once, out of the ready queue with it (it comes back
    // once).
    for (j, &x) in ids.iter().enumerate().take(2) {
        b.slots[j] = entry(peer, x, 10_000, 100_000, j as u32);
        assert!(b.park(j));
    }
    b.grant(peer, ids[1], 60_000, 6);
    assert!(b.until(12, |u| u.r_valid.val()));
    b.edge();
    b.grant(peer, ids[0], 70_000, 7);
    assert!(b.until(12, |u| u.st.q.val() == u.s_look.val()));
    b.edge();
    b.grant(peer, ids[0], 80_000, 4);
    assert!(b.until(12, |u| u.st.q.val() == u.s_look.val()));
    let back = resumes(&mut b, 80);
    let got: Vec<(u64, u32)> = back.iter().map(|e| (e.id.to_u64(), granted(e))).collect();
    assert_eq!(got, vec![(ids[1], 60_000), (ids[0], 80_000)]);
    assert_eq!(b.uut.parked.val().to_u64(), 0);
    assert_eq!(b.uut.parked_most.val().to_u64(), 4);
    assert_eq!(b.uut.grants_resolved.val().to_u32(), 9);
    assert_eq!(b.uut.grants_dropped.val().to_u32(), 0);
    // A run of GRANTs for nobody, one a cycle, while something is parked: the queue takes
    // 64 and lookups drain one every 6 cycles; the rest are dropped and counted, and each
    // one is either dropped or resolved (offered again), never both, never neither.
    b.slots[3] = entry(peer, ids[3], 10_000, 100_000, 3);
    assert!(b.park(3));
    for i in 0..100 {
        b.grant(peer, 90_000 + 2 * i, 1000, 0);
    }
    let mut offered = 0;
    for _ in 0..600 {
        b.settle();
        offered += u32::from(b.uut.ro_valid.val());
        b.edge();
    }
    let dropped = b.uut.grants_dropped.val().to_u32();
    assert!(dropped > 0, "a run longer than the queue drops");
    assert_eq!(offered + dropped, 100);
    assert_eq!(b.uut.grants_resolved.val().to_u32(), 9 + offered);
}

#[test]
fn tx_park__the_tx_capacity_register_is_the_slots_and_the_park() {
    // `proto::regs` states what the engine holds; the hardware's sizes must agree with it.
    let tx = homa_proto::regs::block("TX").expect("a TX block");
    let capacity = tx.register("capacity").expect("a capacity register").reset;
    assert_eq!(
        capacity as usize,
        crate::tx_engine::ENGINE_SLOTS + (1 << PARK_BITS)
    );
}

/// A way to place parked messages: the buckets a key may go to, and each bucket's ways.
struct Placement {
    buckets: usize,
    ways: usize,
    choices: fn(u32, u64) -> Vec<usize>,
}

/// The park as built: two choices ([`H0`] in the first 512 buckets, [`H1`] in the second),
/// two ways each.
const BUILT: Placement = Placement {
    buckets: 2 << BUCKET_BITS,
    ways: 2,
    choices: |p, x| {
        let (b0, b1) = buckets(p, x);
        vec![b0, (1 << BUCKET_BITS) + b1]
    },
};

/// One choice of one way in 1024 buckets (the park before the key table).
const DIRECT: Placement = Placement {
    buckets: 1 << PARK_BITS,
    ways: 1,
    choices: |p, x| {
        let (b0, b1) = buckets(p, x);
        vec![b0 + ((b1 & 1) << BUCKET_BITS)]
    },
};

/// The same two choices with one way each (1024 places).
const ONE_WAY: Placement = Placement {
    buckets: 2 << BUCKET_BITS,
    ways: 1,
    choices: BUILT.choices,
};

/// How many messages the park takes before a descriptor must wait (at most 1024): the
/// engine's slots hold waiting messages (keys from `next`), nothing is granted, and each
/// descriptor parks the first slot that has room in one of its buckets and takes its place; a slot
/// with no room keeps its message. Stops when no slot has room.
fn fill_until_refused(at: &Placement, mut next: impl FnMut() -> (u32, u64)) -> usize {
    let mut used = vec![0; at.buckets];
    let mut slots: Vec<(u32, u64)> = (0..crate::tx_engine::ENGINE_SLOTS)
        .map(|_| next())
        .collect();
    let mut n = 0;
    while n < 1 << PARK_BITS {
        let room =
            |&(p, x): &(u32, u64)| (at.choices)(p, x).into_iter().find(|&b| used[b] < at.ways);
        let Some((j, b)) = slots
            .iter()
            .enumerate()
            .find_map(|(j, k)| room(k).map(|b| (j, b)))
        else {
            break;
        };
        used[b] += 1;
        slots[j] = next();
        n += 1;
    }
    n
}

/// The median fill over 25 seeds of keys from `keys(seed)`.
fn median_fill<F: FnMut() -> (u32, u64)>(at: &Placement, keys: impl Fn(u64) -> F) -> usize {
    let mut fills: Vec<usize> = (0..25).map(|s| fill_until_refused(at, keys(s))).collect();
    fills.sort_unstable();
    fills[fills.len() / 2]
}

/// Keys of `peers` peers, each counting its RPC ids up by 2 from a random start, the peer
/// of each message chosen at random.
fn sequential_ids(seed: u64, peers: usize) -> impl FnMut() -> (u32, u64) {
    let mut rng = crate::bench::Rng::new(seed);
    let mut next: Vec<(u32, u64)> = (0..peers)
        .map(|_| (rng.next_u64() as u32, (rng.next_u64() >> 24) << 1))
        .collect();
    move || {
        let p = rng.below(peers as u64) as usize;
        next[p].1 += 2;
        next[p]
    }
}

fn random_keys(seed: u64) -> impl FnMut() -> (u32, u64) {
    let mut rng = crate::bench::Rng::new(seed);
    move || (rng.next_u64() as u32, rng.next_u64())
}

#[test]
fn tx_park__how_full_the_table_gets_before_a_descriptor_waits() {
    // As built, with the engine's four slots to choose from, every pattern of keys parks at
    // least three quarters of the 1024 messages (one peer's sequence and 4 peers all of
    // them: the entries run out before the ways do); one way per choice, or one choice,
    // runs out of room much earlier (docs/timing.md states these numbers).
    type Fill = fn(&Placement) -> usize;
    let patterns: [(&str, Fill); 5] = [
        ("one peer's sequence", |at| {
            median_fill(at, |s| sequential_ids(s, 1))
        }),
        ("random keys", |at| median_fill(at, random_keys)),
        ("4 peers", |at| median_fill(at, |s| sequential_ids(s, 4))),
        ("16 peers", |at| median_fill(at, |s| sequential_ids(s, 16))),
        ("64 peers", |at| median_fill(at, |s| sequential_ids(s, 64))),
    ];
    let mut fills = Vec::new();
    for (name, at) in [
        ("two choices of two ways (built)", &BUILT),
        ("two choices of one way", &ONE_WAY),
        ("one choice, direct-mapped", &DIRECT),
    ] {
        let got: Vec<usize> = patterns.iter().map(|(_, f)| f(at)).collect();
        println!("{name}: median fill: {got:?} ({:?})", patterns.map(|p| p.0));
        fills.push(got);
    }
    assert!(
        fills[0].iter().all(|&f| 4 * f >= 3 << PARK_BITS) && fills[0][0] == 1 << PARK_BITS,
        "{fills:?}"
    );
    assert!(
        (1..5).all(|k| fills[2][k] < fills[1][k] && fills[1][k] < fills[0][k]),
        "{fills:?}"
    );
}

#[test]
fn tx_park__takes_1024_random_keys_and_gives_each_back_on_its_grant() {
    let mut b = Bench::new();
    let mut rng = crate::bench::Rng::new(5);
    let mut parked: Vec<ParkEntry> = Vec::new();
    let mut refused = 0;
    let mut index = 0;
    // Fill with random keys until the entries run out (a key whose four ways are taken stays
    // in its slot; another takes its place); give 100 back at random, fill again (the freed
    // entries are reused), then give every one back.
    for (fill, give_back) in [(1 << PARK_BITS, 100), (1 << PARK_BITS, 1 << PARK_BITS)] {
        while parked.len() < fill {
            let j = index % 16;
            b.slots[j] = entry(
                rng.next_u64() as u32,
                rng.next_u64(),
                100,
                1000,
                index as u32,
            );
            index += 1;
            if b.park(j) {
                parked.push(b.slots[j]);
            } else {
                refused += 1;
            }
        }
        assert_eq!(b.uut.parked.val().index(), fill);
        // Near full, a few keys find all four ways taken (17 of 1,141 here, with this seed);
        // one way per choice, or a broken choice, refuses hundreds.
        println!("{refused} of {index} keys found no way");
        assert!(
            refused * 25 < index,
            "{refused} of {index} keys found no way"
        );
        let before = b.uut.collisions.val().to_u32();
        b.slots[0] = entry(1, 2, 100, 1000, 9999);
        assert!(!b.park(0), "no entry is free");
        assert_eq!(b.uut.collisions.val().to_u32(), before, "not a collision");
        // A GRANT for each, in random order: each comes back, as parked, with its GRANT.
        for _ in 0..give_back {
            let e = parked.swap_remove(rng.below(parked.len() as u64) as usize);
            b.uut.sched_full.next = false;
            b.grant(e.peer.to_u32(), e.id.to_u64(), 700, 2);
            assert!(b.until(12, |u| u.r_valid.val()), "{e:?} comes back");
            let mut want = e;
            want.granted = 700u64.into();
            want.sprio = 2u64.into();
            assert_eq!(b.uut.r_entry.val(), want);
            b.edge();
            b.uut.sched_full.next = true;
        }
    }
    assert_eq!(b.uut.parked.val().to_u64(), 0);
    assert_eq!(b.uut.parked_most.val().index(), 1 << PARK_BITS);
}

#[test]
fn tx_park__a_shorter_message_makes_the_longest_slot_park_and_it_comes_back_ready() {
    let mut b = Bench::new();
    let peer = 0x0a00_0003;
    // Slot 2 holds a message with granted bytes to send and the most bytes left of the slots;
    // no slot waits for a GRANT.
    let mut long = entry(peer, 0x42, 10_000, 50_000, 3);
    long.granted = 30_000u64.into();
    b.slots[2] = long;
    b.uut.most_valid.next = true;
    b.uut.most_slot.next = 2u64.into();
    b.uut.most_left.next = 40_000u64.into();
    // A descriptor as long does not outrank it: nothing parks.
    b.uut.ring_valid.next = true;
    b.uut.ring_bytes.next = 40_000u64.into();
    assert!(!b.until(16, |u| u.park_valid.val()), "equal keys: no park");
    // A shorter one does: the slot parks ...
    b.uut.ring_bytes.next = 1_000u64.into();
    assert!(
        b.until(16, |u| u.park_valid.val()),
        "a shorter descriptor parks it"
    );
    assert_eq!(b.uut.park_slot.val().index(), 2);
    b.edge();
    // ... the descriptor takes the slot, and the parked message is ready at once: it comes
    // back, as it left, when the resume register is free.
    b.settle();
    assert!(b.uut.ring_ok.val(), "the descriptor goes first");
    b.edge();
    b.uut.ring_valid.next = false;
    b.uut.most_valid.next = false;
    assert!(
        b.until(40, |u| u.r_valid.val()),
        "fetched from the ready queue"
    );
    assert_eq!(b.uut.r_entry.val(), long);
    assert_eq!(b.uut.parked.val().to_u32(), 0);
}

#[test]
fn tx_park__ready_messages_come_back_fewest_packets_first() {
    use homa_proto::policy::bucket::packets_left;
    let mut b = Bench::new();
    let mut rng = crate::bench::Rng::new(crate::bench::seed_from_env(0x5e7));
    // One message waits in the resume register (every slot stays taken) ...
    let first = entry(0x0a00_0001, 2, 0, 100, 0);
    b.slots[0] = first;
    assert!(b.park(0));
    b.grant(0x0a00_0001, 2, 100, 0);
    assert!(b.until(20, |u| u.r_valid.val()));
    // ... while 300 more park, a third of them ready at once (granted bytes to send), the
    // others made ready later by a GRANT each, in random order. The queue's reference order:
    // fewest packets left first, then the order in which each became ready.
    let mut ready: Vec<(u16, u64)> = Vec::new();
    let mut waiting: Vec<ParkEntry> = Vec::new();
    for i in 1..=300u32 {
        let length = 1 + rng.below(1 << 20) as u32;
        let sent = rng.below(u64::from(length)) as u32;
        let mut e = entry(rng.next_u64() as u32, rng.next_u64() & !1, sent, length, i);
        let at_once = rng.chance(33);
        if at_once {
            e.granted = u64::from(length).into();
        }
        let j = 1 + i as usize % 15;
        b.slots[j] = e;
        if !b.park(j) {
            continue;
        }
        if at_once {
            ready.push((packets_left(length - sent, MAX_PAYLOAD), e.id.to_u64()));
        } else {
            waiting.push(e);
        }
    }
    while !waiting.is_empty() {
        let e = waiting.swap_remove(rng.below(waiting.len() as u64) as usize);
        let resolved = b.uut.grants_resolved.val().to_u32();
        b.grant(e.peer.to_u32(), e.id.to_u64(), e.length.to_u32(), 1);
        assert!(
            b.until(40, |u| u.grants_resolved.val().to_u32() == resolved + 1),
            "the GRANT for {e:?} is looked up"
        );
        let left = e.length.to_u32() - e.sent.to_u32();
        ready.push((packets_left(left, MAX_PAYLOAD), e.id.to_u64()));
    }
    ready.sort_by_key(|&(key, _)| key);
    let mut want = vec![first.id.to_u64()];
    want.extend(ready.iter().map(|&(_, id)| id));
    // A slot frees for good: everything comes back, in that order.
    let got: Vec<u64> = resumes(&mut b, 40 * want.len())
        .iter()
        .map(|e| e.id.to_u64())
        .collect();
    assert_eq!(got.len(), want.len(), "every ready message comes back once");
    assert_eq!(got, want);
    assert_eq!(b.uut.parked.val().to_u64(), 0);
    assert_eq!(b.uut.grants_dropped.val().to_u32(), 0);
}
