//! Golden bytes, refusals and round trips of the completion layouts.
#![allow(non_snake_case)]

use super::*;
use crate::hostif::{peer_address, peer_ip};
use crate::wire::{AckEntry, Acks, Body, Cutoffs, Grant, PacketType, Repr, Resend};
use proptest::prelude::*;
use std::net::IpAddr;

fn rx_data() -> Completion {
    Completion {
        rpc_id: 7,
        status: Status::Ok,
        event: Event::RxData {
            retransmit: true,
            host_grants: true,
            length: 2048,
            cutoff_version: 0x0a0b,
            offset: 4096,
            buffer_id: 5,
            message_length: 10000,
            local_port: 99,
            peer_port: 0x0304,
            peer: peer_address("10.0.0.1".parse().unwrap()),
            incoming: 0x1_0000,
            ack_client_id: 0x0102_0304_0506_0708,
            ack_server_port: 0x0c0d,
        },
        phase: true,
    }
}

const GOLDEN_RX_DATA: [u8; COMPLETION_LEN] = [
    7, 0, 0, 0, 0, 0, 0, 0, // rpc_id
    2, 0, 3, 0, // kind status flags reserved0
    0x00, 0x08, 0x0b, 0x0a, // length cutoff_version
    0x00, 0x10, 0, 0, // offset
    5, 0, 0, 0, // buffer_id
    0x10, 0x27, 0, 0, // message_length
    99, 0, 4, 3, // local_port peer_port
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1, // peer
    8, 7, 6, 5, 4, 3, 2, 1, // ack_client_id
    0, 0, 1, 0, // incoming
    0x0d, 0x0c, // ack_server_port
    0,    // reserved1
    1,    // phase
];

#[test]
fn encode__golden_rx_data() {
    let mut buf = [0xa5; COMPLETION_LEN];
    rx_data().encode(&mut buf);
    assert_eq!(buf, GOLDEN_RX_DATA);
    assert_eq!(Completion::decode(&buf), Ok(rx_data()));
    assert!(Completion::phase_of(&buf));
    assert_eq!(
        rx_data().to_string(),
        "RX_DATA id=7 from=10.0.0.1:772 port=99 2048@4096/10000 buf=5 incoming=65536 \
         cutoff_version=2571 retransmit host-grants ack=72623859790382856:3085 status=ok"
    );
}

#[test]
fn encode__golden_other_kinds() {
    let done = Completion {
        rpc_id: 8,
        status: Status::Ok,
        event: Event::TxDone {
            length: 5000,
            cookie: 0x0102_0304_0506_0708,
        },
        phase: false,
    };
    let mut buf = [0xa5; COMPLETION_LEN];
    done.encode(&mut buf);
    let mut want = [0u8; COMPLETION_LEN];
    want[0] = 8;
    want[8] = 1;
    want[12..16].copy_from_slice(&[0x88, 0x13, 0, 0]);
    want[16..24].copy_from_slice(&[8, 7, 6, 5, 4, 3, 2, 1]);
    assert_eq!(buf, want);
    assert_eq!(
        done.to_string(),
        "TX_DONE id=8 len=5000 cookie=72623859790382856 status=ok"
    );

    let err = Completion {
        rpc_id: 0,
        status: Status::BadDescriptor,
        event: Event::Error {
            ring: ErrorRing::Tx,
            index: 17,
            cookie: 4,
        },
        phase: true,
    };
    err.encode(&mut buf);
    let mut want = [0u8; COMPLETION_LEN];
    want[8] = 4;
    want[9] = 5;
    want[12] = 17;
    want[16] = 4;
    want[24] = 1;
    want[63] = 1;
    assert_eq!(buf, want);
    assert_eq!(
        err.to_string(),
        "ERROR id=0 ring=Tx index=17 cookie=4 status=bad-descriptor"
    );

    let grant = Repr {
        sport: 99,
        dport: 772,
        sender_id: 7,
        body: Body::Grant(Grant {
            offset: 0x0001_2345,
            priority: 5,
        }),
    };
    let peer = std::net::Ipv4Addr::new(10, 0, 0, 1);
    let sent = Completion::grant_sent(peer, &grant).expect("a GRANT");
    sent.encode(&mut buf);
    let mut want = [0u8; COMPLETION_LEN];
    want[0] = 7;
    want[8] = 6;
    want[10] = 5;
    want[12..16].copy_from_slice(&[0x45, 0x23, 0x01, 0]);
    want[16..18].copy_from_slice(&[99, 0]);
    want[18..20].copy_from_slice(&[4, 3]);
    want[20..24].copy_from_slice(&[10, 0, 0, 1]);
    assert_eq!(buf, want);
    assert_eq!(
        sent.to_string(),
        "GRANT_SENT id=7 to=10.0.0.1:772 port=99 offset=74565 priority=5 status=ok"
    );
    assert_eq!(sent.sent_grant(), Some((IpAddr::V4(peer), grant)));
    assert_eq!(sent.header(), None);
}

#[test]
fn decode__refuses_unknown_and_reserved() {
    let mut b = GOLDEN_RX_DATA;
    b[8] = 9;
    assert_eq!(Completion::decode(&b), Err(HostifError::UnknownKind(9)));
    let mut b = GOLDEN_RX_DATA;
    b[9] = 200;
    assert_eq!(Completion::decode(&b), Err(HostifError::UnknownStatus(200)));
    let mut b = GOLDEN_RX_DATA;
    b[8] = 3;
    assert_eq!(Completion::decode(&b), Err(HostifError::UnknownKind(3)));
    let mut b = GOLDEN_RX_DATA;
    b[63] = 0x03;
    assert!(matches!(
        Completion::decode(&b),
        Err(HostifError::Reserved { field: "phase", .. })
    ));
    let mut b = GOLDEN_RX_DATA;
    b[62] = 1;
    assert!(matches!(
        Completion::decode(&b),
        Err(HostifError::Reserved {
            field: "reserved1",
            ..
        })
    ));
    let mut b = GOLDEN_RX_DATA;
    b[10] = 4;
    assert!(matches!(
        Completion::decode(&b),
        Err(HostifError::Reserved { field: "flags", .. })
    ));
    let mut b = [0u8; COMPLETION_LEN];
    b[8] = 6;
    b[10] = 8;
    assert!(matches!(
        Completion::decode(&b),
        Err(HostifError::Reserved {
            field: "priority",
            ..
        })
    ));
    b[10] = 0;
    b[24] = 1;
    assert!(matches!(
        Completion::decode(&b),
        Err(HostifError::Reserved {
            field: "reserved1",
            ..
        })
    ));
    let mut b = [0u8; COMPLETION_LEN];
    b[8] = 4;
    b[24] = 7;
    assert!(matches!(
        Completion::decode(&b),
        Err(HostifError::Reserved { field: "ring", .. })
    ));
}

#[test]
fn decode__zeroed_entry_is_refused() {
    // Ring memory starts zeroed: kind 0 is never a valid completion.
    assert_eq!(
        Completion::decode(&[0; COMPLETION_LEN]),
        Err(HostifError::UnknownKind(0))
    );
}

fn arb_status() -> impl Strategy<Value = Status> {
    (0u8..=7).prop_map(|v| Status::from_u8(v).unwrap_or(Status::Ok))
}

fn arb_event() -> impl Strategy<Value = Event> {
    prop_oneof![
        any::<(u32, u64)>().prop_map(|(length, cookie)| Event::TxDone { length, cookie }),
        (
            any::<(bool, u16, u16, u32, u32, u32, u16, u16, [u8; 16])>(),
            any::<(u32, u64, u16, bool)>()
        )
            .prop_map(
                |((r, l, cv, o, b, m, p, pp, a), (incoming, ack_id, ack_port, hg))| {
                    Event::RxData {
                        retransmit: r,
                        host_grants: hg,
                        length: l,
                        cutoff_version: cv,
                        offset: o,
                        buffer_id: b,
                        message_length: m,
                        local_port: p,
                        peer_port: pp,
                        peer: Ipv6Addr::from(a),
                        incoming,
                        ack_client_id: ack_id,
                        ack_server_port: ack_port,
                    }
                }
            ),
        (arb_control(), any::<[u8; 16]>()).prop_map(|((_, c), peer)| {
            let peer = Ipv6Addr::from(peer);
            Completion::control(peer_ip(peer), &c)
                .expect("a control type")
                .event
        }),
        (any::<(u32, u16, u16, [u8; 4])>(), 0u8..=7).prop_map(
            |((offset, local_port, peer_port, peer), priority)| Event::GrantSent {
                offset,
                priority,
                local_port,
                peer_port,
                peer: peer.into(),
            }
        ),
        (0u8..=2, any::<(u32, u64)>()).prop_map(|(r, (index, cookie))| Event::Error {
            ring: ErrorRing::from_u8(r).unwrap_or(ErrorRing::None),
            index,
            cookie,
        }),
    ]
}

proptest! {
    #[test]
    fn encode_decode__round_trip(
        rpc_id in any::<u64>(),
        status in arb_status(),
        event in arb_event(),
        phase in any::<bool>(),
    ) {
        let c = Completion { rpc_id, status, event, phase };
        let mut buf = [0xa5; COMPLETION_LEN];
        c.encode(&mut buf);
        prop_assert_eq!(Completion::phase_of(&buf), phase);
        prop_assert_eq!(Completion::decode(&buf), Ok(c));
    }

    #[test]
    fn decode__accepted_bytes_encode_back(bytes in any::<[u8; COMPLETION_LEN]>()) {
        if let Ok(c) = Completion::decode(&bytes) {
            let mut again = [0u8; COMPLETION_LEN];
            c.encode(&mut again);
            prop_assert_eq!(again, bytes);
        }
    }
}

/// A control packet of any type, with the number of its ACK entries the window cannot carry.
fn arb_control() -> impl Strategy<Value = (u16, Repr<'static>)> {
    let body = prop_oneof![
        (any::<u32>(), 0u8..8)
            .prop_map(|(offset, priority)| (0, Body::Grant(Grant { offset, priority }))),
        (any::<(u32, u32)>(), 0u8..8).prop_map(|((offset, length), priority)| (
            0,
            Body::Resend(Resend {
                offset,
                length,
                priority
            })
        )),
        Just((0, Body::RpcUnknown)),
        Just((0, Body::Busy)),
        Just((0, Body::Freeze)),
        Just((0, Body::NeedAck)),
        (any::<[u32; 8]>(), any::<u16>()).prop_map(|(mut cutoffs, cutoff_version)| {
            cutoffs[0] = u32::MAX;
            (
                0,
                Body::Cutoffs(Cutoffs {
                    unsched_cutoffs: cutoffs,
                    cutoff_version,
                }),
            )
        }),
        prop::collection::vec(any::<(u64, u16)>(), 0..=5).prop_map(|v| {
            let e: Vec<AckEntry> = v
                .iter()
                .map(|&(client_id, server_port)| AckEntry {
                    client_id,
                    server_port,
                })
                .collect();
            (
                e.len().saturating_sub(2) as u16,
                Body::Ack(Acks::new(&e).expect("at most five")),
            )
        }),
    ];
    (any::<(u16, u16, u64)>(), body).prop_map(|((sport, dport, sender_id), (cut, body))| {
        (
            cut,
            Repr {
                sport,
                dport,
                sender_id,
                body,
            },
        )
    })
}

#[test]
fn control__golden_grant() {
    let grant = Repr {
        sport: 0x0102,
        dport: 0x0304,
        sender_id: 10,
        body: Body::Grant(Grant {
            offset: 0x0a0b_0c0d,
            priority: 5,
        }),
    };
    let c = Completion::control("10.0.0.2".parse().unwrap(), &grant).unwrap();
    let mut buf = [0xa5; COMPLETION_LEN];
    c.encode(&mut buf);
    let mut want = [0u8; COMPLETION_LEN];
    want[0] = 11; // rpc_id: sender_id ^ 1
    want[8] = 5; // CONTROL
    want[10] = 0x11; // GRANT
    want[12..14].copy_from_slice(&[4, 3]); // local port
    want[14..16].copy_from_slice(&[2, 1]); // peer port
    want[26..32].copy_from_slice(&[0xff, 0xff, 10, 0, 0, 2]);
    want[32..37].copy_from_slice(&[0x0a, 0x0b, 0x0c, 0x0d, 5]); // offset (BE), priority
    assert_eq!(buf, want);
    assert_eq!(
        c.to_string(),
        "CONTROL id=11 GRANT from=10.0.0.2:258 port=772 status=ok"
    );
    let back = Completion::decode(&buf).unwrap().header().unwrap().unwrap();
    assert_eq!(back.header, grant);
    assert_eq!(back.peer, "10.0.0.2".parse::<std::net::IpAddr>().unwrap());
    // Bytes past a GRANT's window are reserved.
    let mut b = buf;
    b[37] = 1;
    assert!(matches!(
        Completion::decode(&b),
        Err(HostifError::Reserved { field: "body", .. })
    ));
    // DATA is never a CONTROL.
    let mut b = buf;
    b[10] = 0x10;
    assert_eq!(Completion::decode(&b), Err(HostifError::NotControl(0x10)));
}

#[test]
fn control_window__fits_every_type_but_long_acks() {
    for t in PacketType::ALL {
        let (start, len) = control_window(*t);
        assert!(len <= CONTROL_BODY_LEN);
        match t {
            PacketType::Data => assert_eq!(len, 0),
            PacketType::Ack => assert_eq!((start, len), (28, 31)),
            PacketType::Cutoffs => assert_eq!((start, len), (32, 30)),
            t => assert_eq!(start + len, t.header_len().unwrap(), "{t}"),
        }
    }
}

proptest! {
    #[test]
    fn control__header_comes_back(
        (cut, repr) in arb_control(),
        peer in any::<[u8; 16]>(),
        phase in any::<bool>(),
    ) {
        let peer = peer_ip(Ipv6Addr::from(peer));
        let mut c = Completion::control(peer, &repr).unwrap();
        c.phase = phase;
        let mut buf = [0u8; COMPLETION_LEN];
        c.encode(&mut buf);
        let back = Completion::decode(&buf).unwrap().header().unwrap().unwrap();
        prop_assert_eq!(back.peer, peer);
        prop_assert_eq!(back.acks_not_carried, cut);
        let want = match repr.body {
            Body::Ack(a) => {
                let kept = &a.as_slice()[..a.as_slice().len().min(2)];
                Body::Ack(Acks::new(kept).unwrap())
            }
            b => b,
        };
        prop_assert_eq!(back.header, Repr { body: want, ..repr });
    }

    #[test]
    fn rx_data__header_comes_back(
        ids in any::<(u64, u32, u16, u16)>(),
        lens in (1u32..=1_000_000).prop_flat_map(|m| (Just(m), 0..m, 0..=m)),
        ack in any::<(u64, u16)>(),
        flags in any::<(bool, u16)>(),
        payload in 0usize..2000,
    ) {
        let (sender_id, buffer_id, sport, dport) = ids;
        let (message_length, offset, incoming) = lens;
        let (retransmit, cutoff_version) = flags;
        let bytes = vec![7u8; payload];
        let ack = (ack.0 != 0).then_some(AckEntry { client_id: ack.0, server_port: ack.1 });
        let data = crate::wire::Data {
            message_length,
            incoming,
            ack,
            cutoff_version,
            retransmit,
            offset,
            payload: &bytes,
        };
        let repr = Repr { sport, dport, sender_id, body: Body::Data(data) };
        let peer: std::net::IpAddr = "fd00::7".parse().unwrap();
        let c = Completion::rx_data(peer, &repr, buffer_id).unwrap();
        let mut buf = [0u8; COMPLETION_LEN];
        c.encode(&mut buf);
        let d = Completion::decode(&buf).unwrap();
        let placed = matches!(d.event, Event::RxData { length, buffer_id: b, .. }
            if usize::from(length) == payload && b == buffer_id);
        prop_assert!(placed);
        let back = d.header().unwrap().unwrap();
        prop_assert_eq!(back.peer, peer);
        let want = Repr { body: Body::Data(crate::wire::Data { payload: &[], ..data }), ..repr };
        prop_assert_eq!(back.header, want);
    }
}
