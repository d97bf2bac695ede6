//! What the NIC holds a TX descriptor to beyond its encoding: the longest message it sends
//! (QUEUE `max_message_length`) and the IOVA window it may read payload from (`tx_window_*`).
//! [`TxLimits::refusal`] is the reference the hardware's descriptor fetcher
//! (`homa_hw::tx_ring`) matches bit for bit.

use super::super::onchip;
use super::super::{DmaWindow, Status};
use super::{TX_DESC_LEN, TxDescriptor, TxOp};
use crate::wire::MAX_MESSAGE_LENGTH;

/// The NIC's limits on TX descriptors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TxLimits {
    /// The longest message sent; a longer one is refused with
    /// [`Status::MessageTooLong`] (QUEUE `max_message_length`, reset value Homa's
    /// `HOMA_MAX_MESSAGE_LENGTH`).
    pub max_message_length: u32,
    /// The IOVA range a message's payload must lie in (QUEUE `tx_window_*`; length 0: none).
    pub window: DmaWindow,
    /// The most payload per DATA packet (TX `max_payload`): a payload on chip is one packet
    /// ([`super::super::onchip`]).
    pub max_payload: u32,
}

impl Default for TxLimits {
    /// The registers' reset values: Homa's largest message, no window.
    fn default() -> Self {
        TxLimits {
            max_message_length: MAX_MESSAGE_LENGTH,
            window: DmaWindow::default(),
            max_payload: crate::regs::DEFAULT_MAX_PAYLOAD,
        }
    }
}

impl TxLimits {
    /// Why the NIC refuses the descriptor `buf`, if it does, checked in this order:
    /// - [`Status::BadDescriptor`]: [`TxDescriptor::decode`] refuses it (unknown opcode,
    ///   reserved bits or fields not zero, zero length, a retransmit range that is empty or
    ///   outside the message), or its peer is not IPv4-mapped (`::ffff:a.b.c.d`: the NIC
    ///   builds IPv4 frames only);
    /// - [`Status::MessageTooLong`]: `message_length` is over `max_message_length`;
    /// - [`Status::BadDescriptor`]: the payload `[payload_iova, payload_iova +
    ///   message_length)` wraps past the top of the address space (or ends exactly at it);
    /// - [`Status::OutOfBounds`]: the payload is on chip and breaks
    ///   [`onchip::payload_ok`](super::super::onchip::payload_ok)'s rules, or it is in host
    ///   memory, the window is on and the payload is not wholly inside it (the window's end
    ///   computed modulo 2^64, as the hardware adds it).
    ///
    /// A refused descriptor comes back in an `ERROR` completion (ring TX, its index, its
    /// cookie, its `rpc_id`); the NIC reads nothing of its payload and sends nothing.
    pub fn refusal(&self, buf: &[u8; TX_DESC_LEN]) -> Option<Status> {
        let Ok(d) = TxDescriptor::decode(buf) else {
            return Some(Status::BadDescriptor);
        };
        if d.peer.to_ipv4_mapped().is_none() {
            return Some(Status::BadDescriptor);
        }
        if d.message_length > self.max_message_length {
            return Some(Status::MessageTooLong);
        }
        let end = d.payload_iova.wrapping_add(u64::from(d.message_length));
        if end <= d.payload_iova {
            return Some(Status::BadDescriptor);
        }
        if onchip::is_onchip(d.payload_iova) {
            let offset = match d.op {
                TxOp::Retransmit { offset, .. } => offset,
                TxOp::SendMessage | TxOp::Cancel => 0,
            };
            return (!onchip::payload_ok(
                d.payload_iova,
                d.message_length,
                offset,
                self.max_payload,
            ))
            .then_some(Status::OutOfBounds);
        }
        let win = self.window;
        let win_end = win.base.wrapping_add(win.len);
        (win.len != 0 && (d.payload_iova < win.base || end > win_end))
            .then_some(Status::OutOfBounds)
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use crate::hostif::{TxFlags, peer_address};

    fn desc(len: u32, iova: u64) -> [u8; TX_DESC_LEN] {
        desc_op(TxOp::SendMessage, len, iova)
    }

    fn desc_op(op: TxOp, len: u32, iova: u64) -> [u8; TX_DESC_LEN] {
        let d = TxDescriptor {
            op,
            flags: TxFlags::default(),
            rpc_id: 12,
            peer: peer_address("10.0.0.2".parse().unwrap()),
            src_port: 1000,
            dst_port: 99,
            message_length: len,
            payload_iova: iova,
            cookie: 7,
        };
        let mut b = [0; TX_DESC_LEN];
        d.encode(&mut b);
        b
    }

    #[test]
    fn refusal__each_rule_in_order() {
        let open = TxLimits::default();
        assert_eq!(open.refusal(&desc(5000, 0x1000)), None);
        assert_eq!(open.refusal(&desc(MAX_MESSAGE_LENGTH, 0x1000)), None);
        assert_eq!(
            open.refusal(&desc(MAX_MESSAGE_LENGTH + 1, 0x1000)),
            Some(Status::MessageTooLong)
        );
        // Too long and wrapping: the length is named first.
        assert_eq!(
            open.refusal(&desc(MAX_MESSAGE_LENGTH + 1, u64::MAX - 10)),
            Some(Status::MessageTooLong)
        );
        assert_eq!(
            open.refusal(&desc(100, u64::MAX - 10)),
            Some(Status::BadDescriptor)
        );
        assert_eq!(
            open.refusal(&desc(100, u64::MAX - 99)),
            Some(Status::BadDescriptor),
            "ends exactly at 2^64"
        );
        let mut unknown = desc(100, 0x1000);
        unknown[0] = 9;
        assert_eq!(open.refusal(&unknown), Some(Status::BadDescriptor));
        let mut zero = desc(100, 0x1000);
        zero[32..36].fill(0);
        assert_eq!(open.refusal(&zero), Some(Status::BadDescriptor));
        // An IPv6 peer (a well-formed descriptor the NIC cannot frame), and a plain IPv4
        // address without the ::ffff: prefix.
        let mut v6 = desc(100, 0x1000);
        v6[16..32].copy_from_slice(&"fe80::1".parse::<std::net::Ipv6Addr>().unwrap().octets());
        assert_eq!(open.refusal(&v6), Some(Status::BadDescriptor));
        let mut bare = desc(100, 0x1000);
        bare[26..28].fill(0);
        assert_eq!(open.refusal(&bare), Some(Status::BadDescriptor));

        let win = TxLimits {
            max_message_length: 1 << 20,
            window: DmaWindow {
                base: 0x10_0000,
                len: 0x10_0000,
            },
            ..TxLimits::default()
        };
        assert_eq!(
            win.refusal(&desc(0x10_0000, 0x10_0000)),
            None,
            "the whole window"
        );
        assert_eq!(
            win.refusal(&desc(0x10_0000, 0x10_0001)),
            Some(Status::OutOfBounds)
        );
        assert_eq!(win.refusal(&desc(1, 0xf_ffff)), Some(Status::OutOfBounds));
        assert_eq!(win.refusal(&desc(1, 0x20_0000)), Some(Status::OutOfBounds));
        assert_eq!(
            win.refusal(&desc((1 << 20) + 1, 0x10_0000)),
            Some(Status::MessageTooLong),
            "the length before the window"
        );
    }

    #[test]
    fn refusal__on_chip_payloads_are_one_packet_at_lane_26_and_skip_the_window() {
        use crate::hostif::onchip;
        let win = TxLimits {
            window: DmaWindow {
                base: 0x10_0000,
                len: 0x10_0000,
            },
            max_payload: 1000,
            ..TxLimits::default()
        };
        let slot = onchip::iova_of(onchip::PAYLOAD_OFFSET + 512 + onchip::PAYLOAD_LANE);
        assert_eq!(
            win.refusal(&desc(100, slot)),
            None,
            "outside the window, on chip"
        );
        assert_eq!(win.refusal(&desc(1000, slot)), None);
        assert_eq!(win.refusal(&desc(1001, slot)), Some(Status::OutOfBounds));
        assert_eq!(win.refusal(&desc(100, slot + 1)), Some(Status::OutOfBounds));
        let ring = onchip::iova_of(onchip::RING_OFFSET + onchip::PAYLOAD_LANE);
        assert_eq!(win.refusal(&desc(100, ring)), Some(Status::OutOfBounds));
        let retx = |offset, length| desc_op(TxOp::Retransmit { offset, length }, 100, slot);
        assert_eq!(
            win.refusal(&retx(0, 100)),
            None,
            "a RETRANSMIT from offset 0"
        );
        assert_eq!(
            win.refusal(&retx(1, 99)),
            Some(Status::OutOfBounds),
            "from offset 1"
        );
    }
}
