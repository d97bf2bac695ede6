//! Golden byte vectors, one per packet type, written by hand from SPEC §1 (not produced by
//! `emit`), and the deconstruct / construct / parse / emit quartet for each. Also the
//! round-trip and no-panic property tests.
#![allow(non_snake_case)]

use super::*;
use proptest::prelude::*;

/// Decodes a hex string with spaces for readability.
fn h(s: &str) -> Vec<u8> {
    hex::decode(s.replace([' ', '\n'], "")).unwrap()
}

// Common headers: sport dport sequence unused type doff flags window checksum urgent sender_id.
const CLIENT_TO_SERVER: &str = "0fa0 01f4 00000000 000000";
const SERVER_TO_CLIENT: &str = "01f4 0fa0 00000000 000000";
const MARKER_AND_CLIENT_ID: &str = "06 0000 0000 b97d 0000000000000064";
const MARKER_AND_SERVER_ID: &str = "06 0000 0000 b97d 0000000000000065";

fn data_bytes() -> Vec<u8> {
    h(
        "0fa0 01f4 00000578 000000 10 e0 06 0000 0000 b97d 0000000000000064
       00001388 00000af0 0000000000000062 01f4 0003 00 000000 ffffffff
       68656c6c6f",
    )
}

fn control_bytes(t: PacketType) -> Vec<u8> {
    let (dir, tail) = match t {
        PacketType::Busy | PacketType::RpcUnknown | PacketType::Freeze | PacketType::Ack => {
            (CLIENT_TO_SERVER, MARKER_AND_CLIENT_ID)
        }
        _ => (SERVER_TO_CLIENT, MARKER_AND_SERVER_ID),
    };
    let body = match t {
        PacketType::Grant => "00002710 05",
        PacketType::Resend => "00000578 000005dc 07",
        PacketType::Cutoffs => {
            "7fffffff 00002710 000005dc 00000190 00000064 00000020 00000000 00000000 0002"
        }
        PacketType::Ack => {
            "0002 0000000000000062 01f4 0000000000000060 01f4
             00000000000000000000 00000000000000000000 00000000000000000000"
        }
        _ => "",
    };
    h(&format!("{dir} {:02x} 50 {tail} {body}", u8::from(t)))
}

fn expected(t: PacketType) -> Repr<'static> {
    let c2s = |body| Repr {
        sport: 4000,
        dport: 500,
        sender_id: 100,
        body,
    };
    let s2c = |body| Repr {
        sport: 500,
        dport: 4000,
        sender_id: 101,
        body,
    };
    match t {
        PacketType::Data => c2s(Body::Data(Data {
            message_length: 5000,
            incoming: 2800,
            ack: Some(AckEntry {
                client_id: 98,
                server_port: 500,
            }),
            cutoff_version: 3,
            retransmit: false,
            offset: 1400,
            payload: b"hello",
        })),
        PacketType::Grant => s2c(Body::Grant(Grant {
            offset: 10000,
            priority: 5,
        })),
        PacketType::Resend => s2c(Body::Resend(Resend {
            offset: 1400,
            length: 1500,
            priority: 7,
        })),
        PacketType::RpcUnknown => c2s(Body::RpcUnknown),
        PacketType::Busy => c2s(Body::Busy),
        PacketType::Cutoffs => s2c(Body::Cutoffs(Cutoffs {
            unsched_cutoffs: [0x7fff_ffff, 10000, 1500, 400, 100, 32, 0, 0],
            cutoff_version: 2,
        })),
        PacketType::Freeze => c2s(Body::Freeze),
        PacketType::NeedAck => s2c(Body::NeedAck),
        PacketType::Ack => {
            let e = |client_id| AckEntry {
                client_id,
                server_port: 500,
            };
            c2s(Body::Ack(Acks::new(&[e(98), e(96)]).unwrap()))
        }
        PacketType::Unknown(_) => unreachable!(),
    }
}

fn golden(t: PacketType) -> Vec<u8> {
    match t {
        PacketType::Data => data_bytes(),
        other => control_bytes(other),
    }
}

const DISPLAY: [&str; 9] = [
    "DATA id=100 offset=1400 length=5 message_length=5000 incoming=2800 cutoff_version=3 ack=98@500",
    "GRANT id=101 offset=10000 prio=5",
    "RESEND id=101 offset=1400 length=1500 prio=7",
    "RPC_UNKNOWN id=100",
    "BUSY id=100",
    "CUTOFFS id=101 cutoffs=[2147483647, 10000, 1500, 400, 100, 32, 0, 0] version=2",
    "FREEZE id=100",
    "NEED_ACK id=101",
    "ACK id=100 acks=[98@500,96@500]",
];

#[test]
fn golden__lengths_match_spec() {
    for t in PacketType::ALL {
        let extra = if *t == PacketType::Data { 5 } else { 0 };
        assert_eq!(golden(*t).len(), t.header_len().unwrap() + extra, "{t}");
    }
}

#[test]
fn golden__deconstruct_data() {
    let bytes = data_bytes();
    let p = HomaPacket::new_checked(&bytes[..]).unwrap();
    assert_eq!(p.sport(), 4000);
    assert_eq!(p.dport(), 500);
    assert_eq!(p.sequence(), 1400);
    assert_eq!(p.packet_type(), PacketType::Data);
    assert_eq!(p.doff(), 0xe0);
    assert!(p.has_hijack_marker());
    assert_eq!(p.sender_id(), 100);
    assert_eq!(p.message_length(), 5000);
    assert_eq!(p.incoming(), 2800);
    assert_eq!(p.ack_client_id(), 98);
    assert_eq!(p.ack_server_port(), 500);
    assert_eq!(p.data_cutoff_version(), 3);
    assert_eq!(p.retransmit(), 0);
    assert_eq!(p.seg_offset(), 0xffff_ffff);
    assert_eq!(p.data_offset(), 1400);
    assert_eq!(p.payload(), b"hello");
}

#[test]
fn golden__data_offset_prefers_seg_offset() {
    let mut bytes = data_bytes();
    bytes[52..56].copy_from_slice(&2800u32.to_be_bytes());
    let p = HomaPacket::new_checked(&bytes[..]).unwrap();
    assert_eq!(p.data_offset(), 2800);
}

#[test]
fn golden__parse_every_type() {
    for t in PacketType::ALL {
        let bytes = golden(*t);
        let p = HomaPacket::new_checked(&bytes[..]).unwrap();
        assert_eq!(Repr::parse(&p).unwrap(), expected(*t), "{t}");
    }
}

#[test]
fn golden__emit_every_type() {
    for t in PacketType::ALL {
        let repr = expected(*t);
        let mut buf = vec![0xa5u8; repr.buffer_len()];
        repr.emit(&mut HomaPacket::new_unchecked(&mut buf[..]));
        assert_eq!(hex::encode(&buf), hex::encode(golden(*t)), "{t}");
    }
}

#[test]
fn golden__display_every_type() {
    for (t, want) in PacketType::ALL.iter().zip(DISPLAY) {
        assert_eq!(expected(*t).to_string(), want);
    }
}

#[test]
fn parse__rejects_with_reasons() {
    let homa = |r| Error::new(Layer::Homa, r);
    let parse = |b: &[u8]| HomaPacket::new_checked(b).and_then(|p| Repr::parse(&p).map(|_| ()));

    let mut bad_type = control_bytes(PacketType::Busy);
    bad_type[11] = 0x19;
    assert_eq!(parse(&bad_type), Err(homa(Reason::BadType)));
    assert_eq!(
        parse(&golden(PacketType::Grant)[..32]),
        Err(homa(Reason::Truncated))
    );
    assert_eq!(
        parse(&golden(PacketType::Busy)[..27]),
        Err(homa(Reason::Truncated))
    );

    let mut beyond_message = data_bytes();
    beyond_message[28..32].copy_from_slice(&1404u32.to_be_bytes());
    assert_eq!(parse(&beyond_message), Err(homa(Reason::BadLength)));
    let mut too_long = data_bytes();
    too_long[28..32].copy_from_slice(&1_000_001u32.to_be_bytes());
    assert_eq!(parse(&too_long), Err(homa(Reason::BadLength)));

    let mut many_acks = golden(PacketType::Ack);
    many_acks[28..30].copy_from_slice(&6u16.to_be_bytes());
    assert_eq!(parse(&many_acks), Err(homa(Reason::BadLength)));

    let mut bad_prio = golden(PacketType::Grant);
    bad_prio[32] = 8;
    assert_eq!(parse(&bad_prio), Err(homa(Reason::BadValue)));
}

#[test]
fn parse__control_padding_ignored_and_marker_not_required() {
    let mut padded = golden(PacketType::Grant);
    padded.extend_from_slice(&[0; 7]);
    padded[13] = 0;
    padded[16..20].copy_from_slice(&[0x12, 0x34, 0, 0]);
    let p = HomaPacket::new_checked(&padded[..]).unwrap();
    assert_eq!(Repr::parse(&p).unwrap(), expected(PacketType::Grant));
}

fn v4_frame() -> Vec<u8> {
    h(&format!(
        "020000000002 020000000001 0800
         45a0 0035 0000 4000 40 92 2595 0a000001 0a000002 {}",
        hex::encode(golden(PacketType::Grant))
    ))
}

fn v6_frame() -> Vec<u8> {
    h(&format!(
        "020000000002 020000000001 8100 a064 86dd
         6e000000 0021 92 40 fd000000000000000000000000000001 fd000000000000000000000000000002
         {}",
        hex::encode(golden(PacketType::Grant))
    ))
}

#[test]
fn frame__ipv4_golden() {
    let bytes = v4_frame();
    let caps = ChecksumCapabilities::default();
    let f = FrameRepr::parse(&bytes, LinkType::Ethernet, &caps).unwrap();
    assert_eq!(f.priority(), 5);
    assert_eq!(f.homa, expected(PacketType::Grant));
    assert_eq!(
        f.to_string(),
        "10.0.0.1:500 > 10.0.0.2:4000 prio=5 GRANT id=101 offset=10000 prio=5"
    );
    assert_eq!(f.to_bytes(&caps), bytes);
    let ip_only = FrameRepr::parse(&bytes[14..], LinkType::Ip, &caps).unwrap();
    assert_eq!(ip_only.homa, f.homa);
}

#[test]
fn frame__ipv6_vlan_golden() {
    let bytes = v6_frame();
    let caps = ChecksumCapabilities::default();
    let f = FrameRepr::parse(&bytes, LinkType::Ethernet, &caps).unwrap();
    assert_eq!(f.priority(), 7);
    assert_eq!(f.ethernet.unwrap().vlan.unwrap().vid, 100);
    assert_eq!(
        f.to_string(),
        "[fd00::1]:500 > [fd00::2]:4000 prio=7 GRANT id=101 offset=10000 prio=5"
    );
    assert_eq!(f.to_bytes(&caps), bytes);
    let ip_only = FrameRepr::parse(&bytes[18..], LinkType::Ip, &caps).unwrap();
    assert_eq!(ip_only.ip, f.ip);
}

#[test]
fn frame__rejects_with_layer_and_reason() {
    let caps = ChecksumCapabilities::default();
    let parse = |b: &[u8]| FrameRepr::parse(b, LinkType::Ethernet, &caps).map(|_| ());

    let mut bad_sum = v4_frame();
    bad_sum[25] ^= 0xff;
    assert_eq!(
        parse(&bad_sum),
        Err(Error::new(Layer::Ipv4, Reason::BadChecksum))
    );

    let mut udp = v4_frame();
    udp[23] = 17;
    let sum = super::checksum::checksum(&{
        let mut hdr = udp[14..34].to_vec();
        hdr[10..12].fill(0);
        hdr
    });
    udp[24..26].copy_from_slice(&sum.to_be_bytes());
    assert_eq!(parse(&udp), Err(Error::new(Layer::Ipv4, Reason::NotHoma)));

    let mut arp = v4_frame();
    arp[12..14].copy_from_slice(&[0x08, 0x06]);
    assert_eq!(
        parse(&arp),
        Err(Error::new(Layer::Ethernet, Reason::NotHoma))
    );

    let mut v6_other = v6_frame();
    v6_other[18 + 6] = 17;
    assert_eq!(
        parse(&v6_other),
        Err(Error::new(Layer::Ipv6, Reason::NotHoma))
    );

    let runt = &v4_frame()[..40];
    assert_eq!(parse(runt), Err(Error::new(Layer::Ipv4, Reason::Truncated)));
}

#[test]
fn frame__hijacked_tcp_is_homa_only_with_marker() {
    let caps = ChecksumCapabilities::ignored();
    let mut tcp = v4_frame();
    tcp[23] = 6;
    assert!(FrameRepr::parse(&tcp, LinkType::Ethernet, &caps).is_ok());
    tcp[34 + 13] = 0x10; // a real TCP ACK
    assert_eq!(
        FrameRepr::parse(&tcp, LinkType::Ethernet, &caps).map(|_| ()),
        Err(Error::new(Layer::Ipv4, Reason::NotHoma))
    );
}

#[test]
fn frame__ethernet_padding_is_ignored() {
    let mut padded = v4_frame();
    padded.resize(v4_frame().len() + 13, 0);
    let caps = ChecksumCapabilities::default();
    let f = FrameRepr::parse(&padded, LinkType::Ethernet, &caps).unwrap();
    assert_eq!(f.homa.buffer_len(), 33);
}

// --- property tests ---

fn arb_body() -> impl Strategy<Value = (Body<'static>, Vec<u8>)> {
    let prio = 0u8..8;
    prop_oneof![
        (
            0u32..=MAX_MESSAGE_LENGTH,
            any::<u32>(),
            proptest::option::of((1u64.., any::<u16>())),
            any::<u16>(),
            any::<bool>(),
            proptest::collection::vec(any::<u8>(), 0..1500),
            any::<prop::sample::Index>(),
        )
            .prop_map(|(len, incoming, ack, cv, rt, payload, at)| {
                let len = len.max(payload.len() as u32);
                let room = len - payload.len() as u32;
                let offset = at.index(room as usize + 1) as u32;
                let data = Data {
                    message_length: len,
                    incoming,
                    ack: ack.map(|(client_id, server_port)| AckEntry {
                        client_id,
                        server_port,
                    }),
                    cutoff_version: cv,
                    retransmit: rt,
                    offset,
                    payload: &[],
                };
                (Body::Data(data), payload)
            }),
        (any::<u32>(), prio.clone())
            .prop_map(|(offset, priority)| (Body::Grant(Grant { offset, priority }), vec![])),
        (any::<u32>(), any::<u32>(), prio).prop_map(|(offset, length, priority)| (
            Body::Resend(Resend {
                offset,
                length,
                priority
            }),
            vec![]
        )),
        Just((Body::RpcUnknown, vec![])),
        Just((Body::Busy, vec![])),
        (any::<[u32; 8]>(), any::<u16>()).prop_map(|(unsched_cutoffs, cutoff_version)| (
            Body::Cutoffs(Cutoffs {
                unsched_cutoffs,
                cutoff_version
            }),
            vec![]
        )),
        Just((Body::Freeze, vec![])),
        Just((Body::NeedAck, vec![])),
        proptest::collection::vec((any::<u64>(), any::<u16>()), 0..=5).prop_map(|v| {
            let entries: Vec<_> = v
                .into_iter()
                .map(|(client_id, server_port)| AckEntry {
                    client_id,
                    server_port,
                })
                .collect();
            (Body::Ack(Acks::new(&entries).unwrap()), vec![])
        }),
    ]
}

fn with_payload<'a>(body: Body<'static>, payload: &'a [u8]) -> Body<'a> {
    match body {
        Body::Data(d) => Body::Data(Data { payload, ..d }),
        other => other,
    }
}

proptest! {
    #[test]
    fn repr__emit_then_parse_roundtrips(
        (body, payload) in arb_body(),
        sport: u16, dport: u16, sender_id: u64,
        v6: bool, vlan: Option<u16>, prio in 0u8..8,
    ) {
        let homa = Repr { sport, dport, sender_id, body: with_payload(body, &payload) };
        let ip = if v6 {
            IpRepr::V6(Ipv6Repr {
                src_addr: "fd00::1".parse().unwrap(),
                dst_addr: "fd00::2".parse().unwrap(),
                traffic_class: prio << 5,
                flow_label: 0,
                hop_limit: 64,
                next_header: PROTOCOL_HOMA,
                payload_len: homa.buffer_len(),
            })
        } else {
            IpRepr::V4(Ipv4Repr {
                src_addr: [10, 0, 0, 1].into(),
                dst_addr: [10, 0, 0, 2].into(),
                tos: prio << 5,
                ident: 0,
                dont_frag: true,
                ttl: 64,
                protocol: PROTOCOL_HOMA,
                payload_len: homa.buffer_len(),
            })
        };
        let ethernet = Some(EthernetRepr {
            src_addr: EthernetAddress([2, 0, 0, 0, 0, 1]),
            dst_addr: EthernetAddress([2, 0, 0, 0, 0, 2]),
            vlan: vlan.map(VlanTag::from_tci),
            ethertype: if v6 { EtherType::IPV6 } else { EtherType::IPV4 },
        });
        let frame = FrameRepr { ethernet, ip, homa };
        let caps = ChecksumCapabilities::default();
        let bytes = frame.to_bytes(&caps);
        let parsed = FrameRepr::parse(&bytes, LinkType::Ethernet, &caps).unwrap();
        prop_assert_eq!(parsed, frame);
        prop_assert_eq!(parsed.priority(), prio);
    }

    #[test]
    fn frame__random_bytes_never_panic(
        bytes in proptest::collection::vec(any::<u8>(), 0..200),
        ip in any::<bool>(),
    ) {
        let link = if ip { LinkType::Ip } else { LinkType::Ethernet };
        let _ = FrameRepr::parse(&bytes, link, &ChecksumCapabilities::default());
        let _ = FrameRepr::parse(&bytes, link, &ChecksumCapabilities::ignored());
    }

    #[test]
    fn frame__mutated_golden_never_panics(
        which in 0usize..2,
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut bytes = if which == 0 { v4_frame() } else { v6_frame() };
        for (at, v) in flips {
            let i = at.index(bytes.len());
            bytes[i] = v;
        }
        bytes.truncate(cut.index(bytes.len() + 1));
        let _ = FrameRepr::parse(&bytes, LinkType::Ethernet, &ChecksumCapabilities::ignored());
    }
}
