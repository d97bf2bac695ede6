//! The simulated NIC's TX descriptor ring (it needs the Verilated core): the driver posts
//! descriptors, the core fetches them on its TX read channel, hands on the good ones and
//! refuses the rest in `ERROR` completions.
#![allow(non_snake_case)]
#![cfg(homa_rtl)]

use super::tests::config;
use super::*;
use homa_proto::hostif::{
    Completion, DmaWindow, ErrorRing, Event, Status, TxDescriptor, TxFlags, TxLimits, TxOp,
    peer_address,
};

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

#[test]
fn rtl_nic__tx_descriptors_too_long_or_outside_the_window_come_back_in_errors() {
    let mut nic = RtlNic::new(&config(), NicTiming::default()).unwrap();
    let window = DmaWindow {
        base: 0x10_0000_0000,
        len: 1 << 30,
    };
    let end = window.base + window.len;
    nic.set_tx_limits(
        0,
        &TxLimits {
            max_message_length: 100_000,
            window,
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
    ];
    for (i, (d, _)) in posted.iter().enumerate() {
        let index = nic.post_tx_descriptor(1000 * i as u64, d).unwrap();
        assert_eq!(index, i as u32);
    }
    let mut out = Vec::new();
    nic.run_until(50_000_000, &mut out);
    assert!(out.is_empty(), "nothing for the wire or the host: {out:?}");
    let want_ok: Vec<(u32, TxDescriptor)> = posted
        .iter()
        .enumerate()
        .filter(|(_, (_, why))| why.is_none())
        .map(|(i, (d, _))| (i as u32, *d))
        .collect();
    assert_eq!(nic.tx_accepted(), &want_ok[..]);
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
    assert_eq!(nic.read_register("QUEUE", "tx_bad_descriptors").unwrap(), 6);
    assert_eq!(nic.read_register("QUEUE", "tx_consumer").unwrap(), 10);
}

#[test]
fn rtl_nic__tx_descriptors_through_a_small_ring_beside_rx_traffic() {
    use super::tests::frame;
    use crate::rng::seeded_rng;
    use rand::RngExt;

    let seed = 0x7a_5eed;
    let mut rng = seeded_rng(seed);
    let mut nic = RtlNic::new(&config(), NicTiming::default()).unwrap();
    let limits = TxLimits {
        max_message_length: 200_000,
        window: DmaWindow {
            base: 0x20_0000_0000,
            len: 1 << 32,
        },
    };
    let end = limits.window.base + limits.window.len;
    nic.set_tx_limits(0, &limits).unwrap();
    // 300 DATA frames, one every 200 ns, while 300 descriptors go through the driver's ring
    // of 16 entries, posted as fast as it frees slots.
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
            let length = rng.random_range(1..=250_000u32);
            let iova = match rng.random_range(0..10) {
                0 => limits.window.base - rng.random_range(1..=1000u64),
                1 => end - u64::from(length) + rng.random_range(1..=1000u64),
                2 => u64::MAX - rng.random_range(0..u64::from(length)),
                _ => limits.window.base + rng.random_range(0..(1u64 << 31)),
            };
            send(i, length, iova)
        })
        .collect();
    let (mut posted, mut t) = (0usize, 0u64);
    let mut out = Vec::new();
    while t < 400_000_000 && (posted < descs.len() || nic.next_edge().is_some()) {
        while posted < descs.len() {
            match nic.post_tx_descriptor(t, &descs[posted]) {
                Ok(index) => {
                    assert_eq!(index, posted as u32);
                    posted += 1;
                }
                Err(NicError::Driver(homa_driver::DriverError::PostDescriptor { .. })) => break,
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
    let mut want_ok = Vec::new();
    let mut want_refused = Vec::new();
    for (i, d) in descs.iter().enumerate() {
        let mut raw = [0u8; 64];
        d.encode(&mut raw);
        match limits.refusal(&raw) {
            None => want_ok.push((i as u32, *d)),
            Some(status) => want_refused.push((i as u32, d.cookie, status)),
        }
    }
    assert_eq!(nic.tx_accepted(), &want_ok[..], "seed {seed:#x}");
    let refused: Vec<(u32, u64, Status)> = nic
        .tx_refused()
        .iter()
        .map(|c| match c.event {
            Event::Error { index, cookie, .. } => (index, cookie, c.status),
            _ => unreachable!("tx_refused holds ERRORs"),
        })
        .collect();
    assert_eq!(refused, want_refused, "seed {seed:#x}");
    assert!(want_ok.len() > 100 && want_refused.len() > 50);
    let got: Vec<Vec<u8>> = out
        .into_iter()
        .filter_map(|(_, o)| match o {
            NicOutput::Host { packet, .. } => Some(packet.payload.to_vec()),
            NicOutput::Grant { .. } => None,
        })
        .collect();
    assert_eq!(got, payloads, "every payload, in order, beside the TX ring");
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
