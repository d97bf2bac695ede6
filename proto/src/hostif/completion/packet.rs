//! What a receive completion stands for: the packet header the NIC took it from, and back.
//!
//! An `RX_DATA` completion carries every field of a DATA header, a `CONTROL` completion the
//! type-specific header of any other packet inside a fixed window ([`control_window`]). The
//! NIC builds them ([`Completion::rx_data`] and [`Completion::control`] are its reference);
//! the host turns them back into Homa headers ([`Completion::header`]), so a host needs no
//! other path from the NIC than its completion ring. A `GRANT_SENT` completion stands for a
//! GRANT the NIC sent ([`Completion::grant_sent`], [`Completion::sent_grant`]).

use super::{Completion, Event, Status};
use crate::hostif::{HostifError, peer_address, peer_ip};
use crate::wire::field::homa as f;
use crate::wire::{AckEntry, Body, Data, HomaPacket, PacketType, Repr};
use std::net::IpAddr;

/// Bytes of a control packet's type-specific header a `CONTROL` completion carries.
pub const CONTROL_BODY_LEN: usize = 31;

/// ACK entries a `CONTROL` completion carries whole (after `num_acks`).
pub const ACKS_CARRIED: usize =
    (CONTROL_BODY_LEN - (f::NUM_ACKS.end - f::NUM_ACKS.start)) / f::ACK_ENTRY_LEN;

/// The bytes of a packet's Homa header that a `CONTROL` completion carries, as (first byte,
/// count): from the end of the common header (CUTOFFS: past `unsched_cutoffs[0]`, which a
/// receiver always forces to the maximum) to the header's end, at most
/// [`CONTROL_BODY_LEN`]. DATA and unknown types carry none.
pub const fn control_window(t: PacketType) -> (usize, usize) {
    let start = match t {
        PacketType::Cutoffs => f::UNSCHED_CUTOFFS.start + 4,
        _ => f::COMMON_LEN,
    };
    let end = match (t, t.header_len()) {
        (PacketType::Data, _) | (_, None) => start,
        (_, Some(len)) => len,
    };
    let len = end - start;
    (
        start,
        if len < CONTROL_BODY_LEN {
            len
        } else {
            CONTROL_BODY_LEN
        },
    )
}

/// A packet header rebuilt from a receive completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacketHeader {
    /// The sender.
    pub peer: IpAddr,
    /// The Homa header; a DATA's payload is in the completion's buffer, not here (empty).
    pub header: Repr<'static>,
    /// ACK entries the packet had beyond those the completion carries (0 for other types).
    pub acks_not_carried: u16,
}

impl Completion {
    /// The `RX_DATA` completion for a DATA packet from `peer` whose payload went into buffer
    /// `buffer_id` (phase clear, `host_grants` clear); `None` for other types or a payload
    /// over 65535 bytes.
    pub fn rx_data(peer: IpAddr, header: &Repr<'_>, buffer_id: u32) -> Option<Completion> {
        let Body::Data(d) = header.body else {
            return None;
        };
        let ack = d.ack.unwrap_or_default();
        Some(Completion {
            rpc_id: header.sender_id ^ 1,
            status: Status::Ok,
            event: Event::RxData {
                retransmit: d.retransmit,
                host_grants: false,
                length: u16::try_from(d.payload.len()).ok()?,
                cutoff_version: d.cutoff_version,
                offset: d.offset,
                buffer_id,
                message_length: d.message_length,
                local_port: header.dport,
                peer_port: header.sport,
                peer: peer_address(peer),
                incoming: d.incoming,
                ack_client_id: ack.client_id,
                ack_server_port: ack.server_port,
            },
            phase: false,
        })
    }

    /// The `CONTROL` completion for a control packet from `peer` (phase clear); `None` for
    /// DATA.
    pub fn control(peer: IpAddr, header: &Repr<'_>) -> Option<Completion> {
        let t = header.packet_type();
        if t == PacketType::Data {
            return None;
        }
        let mut raw = [0u8; f::ACK_LEN];
        header.emit(&mut HomaPacket::new_unchecked(&mut raw[..]));
        let (start, len) = control_window(t);
        let mut body = [0u8; CONTROL_BODY_LEN];
        body[..len].copy_from_slice(&raw[start..start + len]);
        Some(Completion {
            rpc_id: header.sender_id ^ 1,
            status: Status::Ok,
            event: Event::Control {
                packet_type: t,
                local_port: header.dport,
                peer_port: header.sport,
                peer: peer_address(peer),
                body,
            },
            phase: false,
        })
    }

    /// The `GRANT_SENT` completion for a GRANT the NIC sent to `peer` (phase clear); `None`
    /// for other types.
    pub fn grant_sent(peer: std::net::Ipv4Addr, grant: &Repr<'_>) -> Option<Completion> {
        let Body::Grant(g) = grant.body else {
            return None;
        };
        Some(Completion {
            rpc_id: grant.sender_id,
            status: Status::Ok,
            event: Event::GrantSent {
                offset: g.offset,
                priority: g.priority,
                local_port: grant.sport,
                peer_port: grant.dport,
                peer,
            },
            phase: false,
        })
    }

    /// The GRANT a `GRANT_SENT` completion reports, as it went on the wire, and its
    /// destination; `None` for other kinds.
    pub fn sent_grant(&self) -> Option<(IpAddr, Repr<'static>)> {
        let Event::GrantSent {
            offset,
            priority,
            local_port,
            peer_port,
            peer,
        } = self.event
        else {
            return None;
        };
        Some((
            IpAddr::V4(peer),
            Repr {
                sport: local_port,
                dport: peer_port,
                sender_id: self.rpc_id,
                body: Body::Grant(crate::wire::Grant { offset, priority }),
            },
        ))
    }

    /// The packet header an `RX_DATA` or `CONTROL` completion stands for; `None` for other
    /// kinds. A `CONTROL` body that is not a valid header of its type (a GRANT priority over
    /// 7, an ACK of more than five entries) is an error.
    pub fn header(&self) -> Option<Result<PacketHeader, HostifError>> {
        let sender_id = self.rpc_id ^ 1;
        match self.event {
            Event::RxData {
                retransmit,
                cutoff_version,
                offset,
                message_length,
                local_port,
                peer_port,
                peer,
                incoming,
                ack_client_id,
                ack_server_port,
                ..
            } => Some(Ok(PacketHeader {
                peer: peer_ip(peer),
                header: Repr {
                    sport: peer_port,
                    dport: local_port,
                    sender_id,
                    body: Body::Data(Data {
                        message_length,
                        incoming,
                        ack: (ack_client_id != 0).then_some(AckEntry {
                            client_id: ack_client_id,
                            server_port: ack_server_port,
                        }),
                        cutoff_version,
                        retransmit,
                        offset,
                        payload: &[],
                    }),
                },
                acks_not_carried: 0,
            })),
            Event::Control {
                packet_type,
                local_port,
                peer_port,
                peer,
                body,
            } => Some(
                control_header(packet_type, local_port, peer_port, sender_id, &body).map(
                    |(header, acks_not_carried)| PacketHeader {
                        peer: peer_ip(peer),
                        header,
                        acks_not_carried,
                    },
                ),
            ),
            Event::TxDone { .. } | Event::Error { .. } | Event::GrantSent { .. } => None,
        }
    }
}

/// Rebuilds a control packet's header from its window, parsing it as the wire parser does.
fn control_header(
    t: PacketType,
    dport: u16,
    sport: u16,
    sender_id: u64,
    body: &[u8; CONTROL_BODY_LEN],
) -> Result<(Repr<'static>, u16), HostifError> {
    let not_control = HostifError::NotControl(u8::from(t));
    let header_len = t.header_len().ok_or(not_control)?;
    let mut raw = [0u8; f::ACK_LEN];
    let mut p = HomaPacket::new_unchecked(&mut raw[..]);
    // Control packets use doff = 5 words, as HomaModule does (SPEC §1.3).
    p.set_common(sport, dport, 0, t, 20, sender_id);
    let (start, len) = control_window(t);
    raw[start..start + len].copy_from_slice(&body[..len]);
    let mut not_carried = 0;
    match t {
        PacketType::Cutoffs => raw[f::UNSCHED_CUTOFFS.start..start].fill(0xff),
        PacketType::Ack => {
            let n = u16::from_be_bytes([raw[f::NUM_ACKS.start], raw[f::NUM_ACKS.start + 1]]);
            let carried = ACKS_CARRIED as u16;
            if n > carried && usize::from(n) <= crate::wire::MAX_ACKS_PER_PACKET {
                not_carried = n - carried;
                raw[f::NUM_ACKS].copy_from_slice(&carried.to_be_bytes());
            }
        }
        _ => {}
    }
    let bad_body = HostifError::Reserved {
        layout: "completion CONTROL",
        field: "body",
    };
    let packet = HomaPacket::new_checked(&raw[..header_len]).map_err(|_| bad_body)?;
    let repr = Repr::parse(&packet).map_err(|_| bad_body)?;
    let body = match repr.body {
        Body::Grant(g) => Body::Grant(g),
        Body::Resend(r) => Body::Resend(r),
        Body::RpcUnknown => Body::RpcUnknown,
        Body::Busy => Body::Busy,
        Body::Cutoffs(c) => Body::Cutoffs(c),
        Body::Freeze => Body::Freeze,
        Body::NeedAck => Body::NeedAck,
        Body::Ack(a) => Body::Ack(a),
        Body::Data(_) => return Err(not_control),
    };
    Ok((
        Repr {
            sport: repr.sport,
            dport: repr.dport,
            sender_id: repr.sender_id,
            body,
        },
        not_carried,
    ))
}

const _: () = assert!(ACKS_CARRIED == 2);
