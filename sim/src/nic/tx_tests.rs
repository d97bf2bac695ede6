//! The simulated NIC's transmit path (it needs the Verilated core): the driver posts TX
//! descriptors, the core fetches them on its TX read channel, refuses the bad ones in `ERROR`
//! completions, and sends the good ones as DATA frames it builds from payload it reads from
//! host memory, SRPT among them, as far as their grants allow; the GRANTs it receives raise
//! them; a `TX_DONE` completion reports each message that asked for one.
#![allow(non_snake_case)]
#![cfg(homa_rtl)]

use super::hosted::{HostedNic, Out};
use super::tests::{config, frame_to_nic};
use super::*;
use homa_driver::Device;
use homa_proto::hostif::{
    Completion, DmaWindow, ErrorRing, Event, Status, TxDescriptor, TxFlags, TxLimits, TxOp,
    peer_address,
};
use homa_proto::wire::{self, Body, ChecksumCapabilities, FrameRepr, LinkType};
use std::collections::BTreeMap;
use std::net::Ipv4Addr;

/// The byte host memory holds at `a` in the payload regions of these tests.
fn pattern(a: u64) -> u8 {
    (a.wrapping_mul(0x9e37_79b9) >> 13) as u8
}

/// A payload region of `len` bytes in the NIC's host memory, filled with [`pattern`].
fn payload_region(nic: &HostedNic, len: usize) -> DmaWindow {
    let region = nic.memory().alloc_dma(len).unwrap();
    let base = region.iova();
    let bytes: Vec<u8> = (0..len as u64).map(|i| pattern(base + i)).collect();
    region.write(0, &bytes).unwrap();
    DmaWindow {
        base,
        len: len as u64,
    }
}

fn send(id: u64, length: u32, iova: u64) -> TxDescriptor {
    TxDescriptor {
        op: TxOp::SendMessage,
        flags: TxFlags::default(),
        rpc_id: id,
        peer: peer_address("10.0.0.2".parse().unwrap()),
        src_port: 40_000,
        dst_port: 99,
        message_length: length,
        payload_iova: iova,
        cookie: 0xc0_0000 + id,
    }
}

/// A GRANT from 10.0.0.2 (the receiver of this host's messages) for this host's RPC `id`:
/// the receiver's id of it has bit 0 flipped.
fn grant(id: u64, offset: u32, priority: u8) -> Vec<u8> {
    frame_to_nic(wire::Repr {
        sport: 99,
        dport: 40_000,
        sender_id: id ^ 1,
        body: Body::Grant(wire::Grant { offset, priority }),
    })
}

/// One DATA frame the core sent, as `proto::wire` parses it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Sent {
    id: u64,
    offset: u32,
    payload: Vec<u8>,
    priority: u8,
    retransmit: bool,
}

/// The DATA frames among the NIC's outputs, checked for their addresses (this host to
/// 10.0.0.2, through the router) and the message's ports.
fn data_frames(out: &[(Ps, Out)]) -> Vec<Sent> {
    let caps = ChecksumCapabilities::default();
    out.iter()
        .filter_map(|(_, o)| match o {
            Out::Data { frame } => Some(frame),
            _ => None,
        })
        .map(|frame| {
            let f = FrameRepr::parse(frame, LinkType::Ethernet, &caps).expect("a valid frame");
            let eth = f.ethernet.expect("Ethernet");
            assert_eq!(eth.src_addr.0, [2, 0, 0, 0, 0, 1]);
            assert_eq!(eth.dst_addr.0, [2, 0, 0, 0xff, 0xff, 0xff]);
            assert_eq!(f.ip.src_addr(), Ipv4Addr::new(10, 0, 0, 1));
            assert_eq!(f.ip.dst_addr(), Ipv4Addr::new(10, 0, 0, 2));
            assert_eq!((f.homa.sport, f.homa.dport), (40_000, 99));
            let Body::Data(d) = f.homa.body else {
                panic!("a DATA frame: {:?}", f.homa)
            };
            Sent {
                id: f.homa.sender_id,
                offset: d.offset,
                payload: d.payload.to_vec(),
                priority: f.priority(),
                retransmit: d.retransmit,
            }
        })
        .collect()
}

/// Each message's frames cover `[from, to)` of its payload at `iova`, in order, once, at
/// most `max_payload` bytes each, every byte the host's.
fn check_range(frames: &[&Sent], iova: u64, from: u32, to: u32) {
    let mut next = from;
    for s in frames {
        assert_eq!(s.offset, next, "contiguous: {:?}", (s.id, s.offset));
        assert!(!s.payload.is_empty() && s.payload.len() <= 1424);
        for (i, b) in s.payload.iter().enumerate() {
            let a = iova + u64::from(s.offset) + i as u64;
            assert_eq!(
                *b,
                pattern(a),
                "message {} byte {}",
                s.id,
                s.offset as usize + i
            );
        }
        next += s.payload.len() as u32;
    }
    assert_eq!(next, to, "message ends");
}

fn by_id(frames: &[Sent]) -> BTreeMap<u64, Vec<&Sent>> {
    let mut m: BTreeMap<u64, Vec<&Sent>> = BTreeMap::new();
    for s in frames {
        m.entry(s.id).or_default().push(s);
    }
    m
}

#[test]
fn rtl_nic__tx_descriptors_become_data_frames_grants_release_the_rest_refusals_are_errors() {
    let mut nic = HostedNic::new(&config(), NicTiming::default()).unwrap();
    let window = payload_region(&nic, 1 << 20);
    let end = window.base + window.len;
    nic.set_tx_limits(
        0,
        &TxLimits {
            max_message_length: 100_000,
            window,
            ..TxLimits::default()
        },
    )
    .unwrap();
    let retransmit = TxDescriptor {
        op: TxOp::Retransmit {
            offset: 1400,
            length: 2800,
        },
        flags: TxFlags::NO_COMPLETION,
        ..send(2, 90_000, window.base + 0x1000)
    };
    let v6 = TxDescriptor {
        peer: "fe80::2".parse().unwrap(),
        ..send(11, 100, window.base)
    };
    // (descriptor, the refusal's status, or None when it must pass)
    let posted = [
        (send(1, 5000, window.base), None),
        (retransmit, None),
        (send(3, 100_000, end - 100_000), None),
        (send(4, 100_001, window.base), Some(Status::MessageTooLong)),
        (
            send(5, 1_000_000, window.base),
            Some(Status::MessageTooLong),
        ),
        (send(6, 100, window.base - 1), Some(Status::OutOfBounds)),
        (send(7, 100, end - 99), Some(Status::OutOfBounds)),
        (send(8, 100, 0xdead_0000_0000), Some(Status::OutOfBounds)),
        (send(9, 100, u64::MAX - 50), Some(Status::BadDescriptor)),
        (send(10, 1, end - 1), None),
        (v6, Some(Status::BadDescriptor)),
    ];
    for (i, (d, _)) in posted.iter().enumerate() {
        let index = nic.post_tx_descriptor(1000 * i as u64, d).unwrap();
        assert_eq!(index, i as u32);
    }
    let mut out = Vec::new();
    nic.run_until(50_000_000, &mut out);
    // Before any GRANT: messages 1 and 10 whole, the retransmitted range, and message 3's
    // unscheduled bytes (rtt_bytes, 40,000), each at its unscheduled priority.
    let cutoffs = config().unsched_cutoffs;
    let early = data_frames(&out);
    let ids = by_id(&early);
    assert_eq!(ids.keys().copied().collect::<Vec<_>>(), [1, 2, 3, 10]);
    check_range(&ids[&1], window.base, 0, 5000);
    check_range(&ids[&2], window.base + 0x1000, 1400, 4200);
    check_range(&ids[&3], end - 100_000, 0, 40_000);
    check_range(&ids[&10], end - 1, 0, 1);
    for s in &early {
        let length =
            [5000, 90_000, 100_000, 1][[1, 2, 3, 10].iter().position(|i| *i == s.id).unwrap()];
        let prio = homa_proto::policy::unsched_priority(&cutoffs, length);
        assert_eq!((s.priority, s.retransmit), (prio, s.id == 2), "{s:?}");
    }
    // GRANTs for message 3 (and one for a message this host never sent): the rest leaves at
    // the granted priority, then its TX_DONE.
    nic.receive(60_000_000, grant(3, 70_000, 5));
    nic.receive(60_100_000, grant(77, 10_000, 2));
    nic.receive(70_000_000, grant(3, 100_000, 6));
    out.clear();
    nic.run_until(200_000_000, &mut out);
    let late = data_frames(&out);
    assert!(late.iter().all(|s| s.id == 3 && !s.retransmit), "{late:?}");
    let granted: Vec<&Sent> = late.iter().collect();
    check_range(&granted, end - 100_000, 40_000, 100_000);
    assert!(granted.iter().all(|s| s.priority == 5 || s.priority == 6));
    assert_eq!(granted.last().unwrap().priority, 6);
    // The GRANTs reached the host too (CONTROL completions).
    let grants_to_host = out
        .iter()
        .filter(|(_, o)| matches!(o, Out::Host { packet, .. } if matches!(packet.header.body, Body::Grant(_))))
        .count();
    assert_eq!(grants_to_host, 3);

    let done = Completion::tx_done;
    // Messages 1 and 10 (no completion for the retransmitted range), then 3 after its grants.
    let want_done = vec![done(&posted[0].0), done(&posted[9].0), done(&posted[2].0)];
    let mut got_done = nic.tx_done().to_vec();
    got_done[..2].sort_by_key(|c| c.rpc_id);
    assert_eq!(got_done, want_done);

    let want_refused: Vec<Completion> = posted
        .iter()
        .enumerate()
        .filter_map(|(i, (d, why))| {
            why.map(|status| Completion {
                rpc_id: d.rpc_id,
                status,
                event: Event::Error {
                    ring: ErrorRing::Tx,
                    index: i as u32,
                    cookie: d.cookie,
                },
                phase: false,
            })
        })
        .collect();
    let refused: Vec<Completion> = nic
        .tx_refused()
        .iter()
        .map(|c| Completion { phase: false, ..*c })
        .collect();
    assert_eq!(refused, want_refused);
    let c = nic.counters();
    assert_eq!((c.dma_faults, c.parse_mismatches), (0, 0), "{c:?}");
    assert_eq!(c.data_frames as usize, early.len() + late.len());
    assert_eq!(nic.read_register("QUEUE", "tx_bad_descriptors").unwrap(), 7);
    assert_eq!(nic.read_register("QUEUE", "tx_consumer").unwrap(), 11);
    assert_eq!(
        nic.read_register("TX", "packets_sent").unwrap() as usize,
        early.len() + late.len()
    );
    assert_eq!(nic.read_register("TX", "grants_unmatched").unwrap(), 1);
    assert_eq!(nic.read_register("TX", "messages_queued").unwrap(), 0);
}

#[test]
fn rtl_nic__a_cancel_frees_the_slots_of_messages_nobody_grants() {
    let mut nic = HostedNic::new(&config(), NicTiming::default()).unwrap();
    let window = payload_region(&nic, 4 << 20);
    nic.set_tx_limits(
        0,
        &TxLimits {
            window,
            ..TxLimits::default()
        },
    )
    .unwrap();
    // Sixteen messages of 100 kB to a receiver that never grants: their unscheduled bytes
    // leave (the engine's slots park what waits for a GRANT to make room for the next).
    let base = |i: u64| window.base + i * 200_000;
    let mut t = 0;
    for i in 0..16u64 {
        nic.post_tx_descriptor(t, &send(100 + i, 100_000, base(i)))
            .unwrap();
        t += 1000;
    }
    let mut out = Vec::new();
    nic.run_until(300_000_000, &mut out);
    let sent = by_id(&data_frames(&out))
        .into_iter()
        .map(|(id, f)| (id, f.iter().map(|s| s.payload.len()).sum::<usize>()))
        .collect::<BTreeMap<_, _>>();
    assert_eq!(sent.len(), 16, "every message started: {sent:?}");
    assert!(sent.values().all(|&b| b == 40_000), "{sent:?}");
    assert!(nic.tx_done().is_empty());
    assert_eq!(nic.read_register("TX", "messages_queued").unwrap(), 16);
    // CANCELs for three of them (and one for an RPC the NIC does not hold), with the table
    // full: each cancelled message sends one more byte and completes, at the end of its
    // packets (its last is the TX_DONE's); a new message then takes a freed slot.
    let cancel = |id: u64| TxDescriptor {
        op: TxOp::Cancel,
        cookie: 0,
        ..send(id, 100_000, base(id - 100))
    };
    for id in [103, 999, 110, 115] {
        let d = if id == 999 { cancel(100) } else { cancel(id) };
        let d = TxDescriptor { rpc_id: id, ..d };
        nic.post_tx_descriptor(t, &d).unwrap();
        t += 1000;
    }
    out.clear();
    nic.run_until(400_000_000, &mut out);
    let mut done: Vec<u64> = nic.tx_done().iter().map(|c| c.rpc_id).collect();
    done.sort_unstable();
    assert_eq!(done, [103, 110, 115]);
    assert_eq!(nic.read_register("TX", "messages_queued").unwrap(), 13);
    nic.post_tx_descriptor(400_000_000, &send(116, 100_000, base(16)))
        .unwrap();
    nic.run_until(600_000_000, &mut out);
    let late = data_frames(&out);
    let mut last_bytes: Vec<(u64, u32, usize)> = late
        .iter()
        .filter(|s| s.id != 116)
        .map(|s| (s.id, s.offset, s.payload.len()))
        .collect();
    last_bytes.sort_unstable();
    assert_eq!(
        last_bytes,
        [(103, 40_000, 1), (110, 40_000, 1), (115, 40_000, 1)],
        "one byte more each"
    );
    check_range(&by_id(&late)[&116], base(16), 0, 40_000);
    assert_eq!(nic.tx_done().len(), 3);
    assert!(nic.tx_refused().is_empty());
    assert_eq!(nic.read_register("TX", "messages_queued").unwrap(), 14);
    let c = nic.counters();
    assert_eq!((c.dma_faults, c.parse_mismatches), (0, 0), "{c:?}");
}

#[test]
fn rtl_nic__messages_waiting_for_grants_are_parked_and_come_back_on_their_grant() {
    let mut nic = HostedNic::new(&config(), NicTiming::default()).unwrap();
    let window = payload_region(&nic, 8 << 20);
    nic.set_tx_limits(
        0,
        &TxLimits {
            window,
            ..TxLimits::default()
        },
    )
    .unwrap();
    // 40 messages of 100 kB, more than the scheduler's slots, to a receiver that has not
    // granted yet: each sends its unscheduled bytes (rtt_bytes, 40,000); those that wait
    // leave their slots for the park so that the next message can start.
    let slots = homa_hw::tx_engine::ENGINE_SLOTS as u32;
    assert_eq!(nic.read_register("TX", "capacity").unwrap(), slots + 1024);
    let n = 40u64;
    let base = |i: u64| window.base + i * 150_000;
    let (mut t, mut out) = (0, Vec::new());
    for i in 0..n {
        // The ring holds 16: post as the NIC takes them.
        while nic
            .post_tx_descriptor(t, &send(200 + i, 100_000, base(i)))
            .is_err()
        {
            t += 1_000_000;
            nic.run_until(t, &mut out);
        }
        t += 1000;
    }
    t += 400_000_000;
    nic.run_until(t, &mut out);
    let early = data_frames(&out);
    let ids = by_id(&early);
    assert_eq!(ids.len() as u64, n, "every message started");
    for i in 0..n {
        check_range(&ids[&(200 + i)], base(i), 0, 40_000);
    }
    assert!(nic.tx_done().is_empty());
    assert_eq!(
        nic.read_register("TX", "messages_queued").unwrap(),
        n as u32
    );
    // GRANTs for the whole of every message in one burst, 20 ns apart, the first ones posted
    // (parked by now) first: more parked messages granted at once than the slots take
    // back (a receiver grants at most K <= 8 at once; a burst of receivers can do this).
    // Each comes back, sends the rest at the granted priority, and completes: no GRANT is
    // lost (one that finds its message while another waits for a slot marks it ready).
    out.clear();
    for i in 0..n {
        nic.receive(t + 20_000 * i, grant(200 + i, 100_000, 4));
    }
    t += 500_000_000;
    nic.run_until(t, &mut out);
    let late = data_frames(&out);
    let ids = by_id(&late);
    for i in 0..n {
        check_range(&ids[&(200 + i)], base(i), 40_000, 100_000);
    }
    assert!(late.iter().all(|s| s.priority == 4 && !s.retransmit));
    let mut done: Vec<u64> = nic.tx_done().iter().map(|c| c.rpc_id).collect();
    done.sort_unstable();
    assert_eq!(done, (200..200 + n).collect::<Vec<_>>());
    assert_eq!(nic.read_register("TX", "messages_queued").unwrap(), 0);
    assert_eq!(nic.read_register("TX", "grants_unmatched").unwrap(), 0);
    // The park's registers: all but the slots' of the 40 waited there at once, none of the
    // burst's GRANTs was dropped, and these sequential ids never shared an entry.
    let mut reg = |n| nic.read_register("TX", n).unwrap();
    assert_eq!(reg("messages_parked"), 0);
    assert_eq!(reg("parked_most"), 40 - slots);
    assert_eq!(reg("grants_dropped"), 0);
    assert_eq!(reg("park_collisions"), 0);
    let c = nic.counters();
    assert_eq!((c.dma_faults, c.parse_mismatches), (0, 0), "{c:?}");
}

#[test]
fn rtl_nic__many_messages_through_a_small_ring_beside_rx_traffic() {
    use super::tests::frame;
    use crate::rng::seeded_rng;
    use rand::RngExt;

    let seed = 0x7a_5eed;
    let mut rng = seeded_rng(seed);
    let mut nic = HostedNic::new(&config(), NicTiming::default()).unwrap();
    let window = payload_region(&nic, 4 << 20);
    let limits = TxLimits {
        max_message_length: 40_000,
        window,
        ..TxLimits::default()
    };
    let end = window.base + window.len;
    nic.set_tx_limits(0, &limits).unwrap();
    // 300 DATA frames in, one every 200 ns, while 300 descriptors go through the driver's
    // ring of 16 entries, posted as fast as it frees slots: messages of 1 B to 40 kB (all
    // unscheduled), some refused, some without TX_DONE.
    let n = 300u32;
    let payloads: Vec<Vec<u8>> = (0..n)
        .map(|i| (0..200u32).map(|b| (b * 5 + i) as u8).collect())
        .collect();
    for (i, p) in payloads.iter().enumerate() {
        nic.receive(
            1_000_000 + 200_000 * i as u64,
            frame(p, 200 * i as u32, 200 * n),
        );
    }
    let descs: Vec<TxDescriptor> = (0..300u64)
        .map(|i| {
            let length = rng.random_range(1..=41_000u32);
            let iova = match rng.random_range(0..12) {
                0 => window.base - rng.random_range(1..=1000u64),
                1 => end - u64::from(length) + rng.random_range(1..=1000u64),
                _ => window.base + rng.random_range(0..window.len - u64::from(length)),
            };
            let mut d = send(i, length, iova);
            if rng.random_range(0..10) == 0 {
                d.flags = TxFlags::NO_COMPLETION;
            }
            if rng.random_range(0..40) == 0 {
                d.peer = "2001:db8::7".parse().unwrap();
            }
            d
        })
        .collect();
    let (mut posted, mut t) = (0usize, 0u64);
    let mut out = Vec::new();
    // A full ring is tried again when a TX completion frees slots, or 2 us later (a
    // descriptor without completion frees its slot unseen: the driver reads the NIC's
    // consumer index then, a PCIe round trip the host waits for).
    let (mut retry_at, mut seen) = (0u64, 0usize);
    while t < 2_000_000_000 && (posted < descs.len() || nic.next_edge().is_some()) {
        let completions = nic.tx_done().len() + nic.tx_refused().len();
        while posted < descs.len() && (t >= retry_at || completions != seen) {
            seen = completions;
            match nic.post_tx_descriptor(t, &descs[posted]) {
                Ok(index) => {
                    assert_eq!(index, posted as u32);
                    posted += 1;
                }
                Err(NicError::Driver(homa_driver::DriverError::PostDescriptor { .. })) => {
                    retry_at = t + 2_000_000;
                    break;
                }
                Err(e) => panic!("seed {seed:#x}: {e}"),
            }
        }
        t += 100_000;
        nic.run_until(t, &mut out);
    }
    assert_eq!(
        posted,
        descs.len(),
        "seed {seed:#x}: the ring never freed its slots"
    );
    let (mut sent_ok, mut want_refused, mut want_done) = (Vec::new(), Vec::new(), Vec::new());
    for (i, d) in descs.iter().enumerate() {
        let mut raw = [0u8; 64];
        d.encode(&mut raw);
        match limits.refusal(&raw) {
            None => {
                sent_ok.push(d);
                if !d.flags.contains(TxFlags::NO_COMPLETION) {
                    want_done.push((d.rpc_id, d.message_length, d.cookie));
                }
            }
            Some(status) => want_refused.push((i as u32, d.cookie, status)),
        }
    }
    let refused: Vec<(u32, u64, Status)> = nic
        .tx_refused()
        .iter()
        .map(|c| match c.event {
            Event::Error { index, cookie, .. } => (index, cookie, c.status),
            _ => unreachable!("tx_refused holds ERRORs"),
        })
        .collect();
    assert_eq!(refused, want_refused, "seed {seed:#x}");
    assert!(
        sent_ok.len() > 200 && want_refused.len() > 20,
        "seed {seed:#x}"
    );
    // Every accepted message, whole, from its own payload; nothing else.
    let frames = data_frames(&out);
    let ids = by_id(&frames);
    assert_eq!(ids.len(), sent_ok.len(), "seed {seed:#x}");
    for d in &sent_ok {
        check_range(&ids[&d.rpc_id], d.payload_iova, 0, d.message_length);
    }
    let mut got_done: Vec<(u64, u32, u64)> = nic
        .tx_done()
        .iter()
        .map(|c| match c.event {
            Event::TxDone { length, cookie } => (c.rpc_id, length, cookie),
            _ => unreachable!("tx_done holds TX_DONEs"),
        })
        .collect();
    got_done.sort_unstable();
    want_done.sort_unstable();
    assert_eq!(got_done, want_done, "seed {seed:#x}");
    // The RX side went on beside it.
    let got: Vec<Vec<u8>> = out
        .into_iter()
        .filter_map(|(_, o)| match o {
            Out::Host { packet, .. } => Some(packet.payload.to_vec()),
            _ => None,
        })
        .collect();
    assert_eq!(got, payloads, "every payload, in order, beside the TX path");
    let c = nic.counters();
    assert_eq!(
        (c.dma_faults, c.rx_lost, c.parse_mismatches),
        (0, 0, 0),
        "{c:?}"
    );
    assert_eq!(
        nic.read_register("QUEUE", "tx_bad_descriptors").unwrap(),
        want_refused.len() as u32
    );
}
