//! Datagrams to engine packets and back, with `homa_proto`'s wire code.
//!
//! Receive is zero-copy: a DATA packet's payload stays a slice of the received datagram's
//! buffer (`Bytes::slice_ref`), so the only copies of a message are the transport's and,
//! for a message of several packets, the one into a contiguous response buffer.

use bytes::Bytes;
use core::net::IpAddr;
use homa_proto::core::{Packet, Transmit};
use homa_proto::wire::{self, Body, ChecksumCapabilities, Data, FrameRepr, LinkType, Repr};

/// A parsed received datagram.
#[derive(Debug)]
pub(crate) struct Received {
    pub(crate) src: IpAddr,
    pub(crate) dst: IpAddr,
    pub(crate) packet: Packet,
}

/// Parses an IP datagram carrying a Homa packet.
pub(crate) fn decode(datagram: &Bytes, caps: &ChecksumCapabilities) -> wire::Result<Received> {
    let frame = FrameRepr::parse(datagram, LinkType::Ip, caps)?;
    let h = frame.homa;
    let packet = match h.body {
        Body::Data(d) => Packet {
            header: Repr {
                sport: h.sport,
                dport: h.dport,
                sender_id: h.sender_id,
                body: Body::Data(Data {
                    message_length: d.message_length,
                    incoming: d.incoming,
                    ack: d.ack,
                    cutoff_version: d.cutoff_version,
                    retransmit: d.retransmit,
                    offset: d.offset,
                    payload: &[],
                }),
            },
            payload: datagram.slice_ref(d.payload),
        },
        // Control packets carry no payload: nothing to copy.
        _ => Packet::from_repr(&h),
    };
    Ok(Received {
        src: frame.ip.src_addr(),
        dst: frame.ip.dst_addr(),
        packet,
    })
}

/// The IP datagram of `t` sent from `src`; `None` if the families differ (the engine never
/// asks for that, but a datagram is not worth a panic).
pub(crate) fn encode(t: &Transmit, src: IpAddr) -> Option<Bytes> {
    (src.is_ipv4() == t.dst.is_ipv4()).then(|| Bytes::from(t.to_ip_bytes(src)))
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use homa_proto::wire::{Grant, Repr};

    fn transmit(body: Body<'static>, payload: Bytes) -> Transmit {
        Transmit {
            dst: IpAddr::from([10, 0, 0, 2]),
            priority: 5,
            packet: Packet {
                header: Repr {
                    sport: 40_000,
                    dport: 500,
                    sender_id: 6,
                    body,
                },
                payload,
            },
        }
    }

    #[test]
    fn decode__data_payload_is_a_slice_of_the_datagram() {
        let body = Body::Data(Data {
            message_length: 5,
            incoming: 5,
            ack: None,
            cutoff_version: 1,
            retransmit: false,
            offset: 0,
            payload: &[],
        });
        let t = transmit(body, Bytes::from_static(b"hello"));
        let src = IpAddr::from([10, 0, 0, 1]);
        let bytes = encode(&t, src).expect("same family");
        let r = decode(&bytes, &ChecksumCapabilities::default()).expect("parses");
        assert_eq!((r.src, r.dst), (src, t.dst));
        assert_eq!(r.packet, t.packet);
        let inside = bytes.as_ptr_range();
        assert!(inside.contains(&r.packet.payload.as_ptr()), "not copied");
    }

    #[test]
    fn decode__control_and_garbage() {
        let t = transmit(
            Body::Grant(Grant {
                offset: 1200,
                priority: 2,
            }),
            Bytes::new(),
        );
        let bytes = encode(&t, IpAddr::from([10, 0, 0, 1])).expect("same family");
        let r = decode(&bytes, &ChecksumCapabilities::default()).expect("parses");
        assert_eq!(r.packet, t.packet);
        for len in 0..bytes.len() {
            assert!(decode(&bytes.slice(..len), &ChecksumCapabilities::default()).is_err());
        }
        assert!(encode(&t, IpAddr::from([0u16; 8])).is_none());
    }
}
