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
