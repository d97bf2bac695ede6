//! One frame of every Homa packet type, over IPv4 and then IPv6: the content of the example
//! capture `tests/data/all-types.pcap`, which `homa-nic decode` reads back in the tests and in
//! the README.
//!
//! The frames tell one small story: client 10.0.0.1 (fd00::1) port 4000, RPC id 100, calls
//! server 10.0.0.2 (fd00::2) port 500; DATA goes out at priority 6, control packets at 7.

use crate::capture::{CaptureError, CaptureWriter};
use homa_proto::wire::{
    AckEntry, Acks, Body, ChecksumCapabilities, Cutoffs, Data, EtherType, EthernetAddress,
    EthernetRepr, FrameRepr, Grant, IpRepr, Ipv4Repr, Ipv6Repr, PROTOCOL_HOMA, PacketType, Repr,
    Resend,
};
use std::io::Write;
use std::time::Duration;

const CLIENT_PORT: u16 = 4000;
const SERVER_PORT: u16 = 500;
const CLIENT_ID: u64 = 100;

/// The payload carried by the sample DATA frame: 64 bytes counting up from 0.
pub fn sample_payload() -> Vec<u8> {
    (0u8..64).collect()
}

fn body(t: PacketType, payload: &[u8]) -> Body<'_> {
    match t {
        PacketType::Data => Body::Data(Data {
            message_length: 10_000,
            incoming: 6_000,
            ack: Some(AckEntry {
                client_id: 98,
                server_port: SERVER_PORT,
            }),
            cutoff_version: 1,
            retransmit: false,
            offset: 0,
            payload,
        }),
        PacketType::Grant => Body::Grant(Grant {
            offset: 7_400,
            priority: 3,
        }),
        PacketType::Resend => Body::Resend(Resend {
            offset: 1_400,
            length: 1_400,
            priority: 7,
        }),
        PacketType::RpcUnknown => Body::RpcUnknown,
        PacketType::Busy => Body::Busy,
        PacketType::Cutoffs => Body::Cutoffs(Cutoffs {
            unsched_cutoffs: [0x7fff_ffff, 0x7fff_ffff, 6_000, 2_000, 1_000, 500, 200, 100],
            cutoff_version: 1,
        }),
        PacketType::Freeze => Body::Freeze,
        PacketType::NeedAck => Body::NeedAck,
        PacketType::Ack => {
            let e = |client_id| AckEntry {
                client_id,
                server_port: SERVER_PORT,
            };
            Body::Ack(Acks::new(&[e(96), e(98)]).expect("two entries fit"))
        }
        PacketType::Unknown(v) => unreachable!("PacketType::ALL holds no unknown type {v}"),
    }
}

/// Whether the server sends this type (to the client); otherwise the client sends it.
fn from_server(t: PacketType) -> bool {
    matches!(
        t,
        PacketType::Grant | PacketType::Resend | PacketType::Cutoffs | PacketType::NeedAck
    )
}

/// Every sample frame, as bytes: the nine types over IPv4, then over IPv6.
pub fn all_types() -> Vec<Vec<u8>> {
    let payload = sample_payload();
    let caps = ChecksumCapabilities::default();
    let mut frames = Vec::new();
    for v6 in [false, true] {
        for &t in PacketType::ALL {
            let server = from_server(t);
            let priority: u8 = if t == PacketType::Data { 6 } else { 7 };
            let homa = Repr {
                sport: if server { SERVER_PORT } else { CLIENT_PORT },
                dport: if server { CLIENT_PORT } else { SERVER_PORT },
                sender_id: if server { CLIENT_ID ^ 1 } else { CLIENT_ID },
                body: body(t, &payload),
            };
            let (client, srv) = (1u8, 2u8);
            let (src, dst) = if server { (srv, client) } else { (client, srv) };
            let ip = if v6 {
                IpRepr::V6(Ipv6Repr {
                    src_addr: [0xfd00, 0, 0, 0, 0, 0, 0, u16::from(src)].into(),
                    dst_addr: [0xfd00, 0, 0, 0, 0, 0, 0, u16::from(dst)].into(),
                    traffic_class: priority << 5,
                    flow_label: 0,
                    hop_limit: 64,
                    next_header: PROTOCOL_HOMA,
                    payload_len: homa.buffer_len(),
                })
            } else {
                IpRepr::V4(Ipv4Repr {
                    src_addr: [10, 0, 0, src].into(),
                    dst_addr: [10, 0, 0, dst].into(),
                    tos: priority << 5,
                    ident: 0,
                    dont_frag: true,
                    ttl: 64,
                    protocol: PROTOCOL_HOMA,
                    payload_len: homa.buffer_len(),
                })
            };
            let ethernet = EthernetRepr {
                src_addr: EthernetAddress([0x02, 0, 0, 0, 0, src]),
                dst_addr: EthernetAddress([0x02, 0, 0, 0, 0, dst]),
                vlan: None,
                ethertype: if v6 { EtherType::IPV6 } else { EtherType::IPV4 },
            };
            let frame = FrameRepr {
                ethernet: Some(ethernet),
                ip,
                homa,
            };
            frames.push(frame.to_bytes(&caps));
        }
    }
    frames
}

/// Writes [`all_types`] as a pcap, one frame per microsecond.
pub fn write_all_types_pcap<W: Write>(writer: W) -> Result<W, CaptureError> {
    let mut w = CaptureWriter::new(writer)?;
    for (i, frame) in all_types().iter().enumerate() {
        w.write(Duration::from_micros(i as u64 + 1), frame)?;
    }
    Ok(w.into_inner())
}
