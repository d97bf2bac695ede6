//! The sending side of one message: what has been granted, what has been sent, what must be
//! sent again, and how the next packet is cut.

use bytes::Bytes;
use std::collections::VecDeque;

/// The payload length of the first-time packet at `offset` of a message of `length` bytes
/// with `unscheduled` unscheduled bytes: at most `max_payload`, and never straddling the
/// unscheduled limit, so no ungranted byte leaves early (HomaModule forces a frame boundary
/// there). The one packetisation rule; the simulator's ideal times use it too.
pub fn segment_len(offset: u32, unscheduled: u32, length: u32, max_payload: u32) -> u32 {
    let boundary = if offset < unscheduled {
        unscheduled
    } else {
        length
    };
    boundary.saturating_sub(offset).min(max_payload)
}

/// One DATA packet's worth of a message, chosen by [`MessageOut::next_packet`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Segment {
    pub(crate) offset: u32,
    pub(crate) payload: Bytes,
    pub(crate) priority: u8,
    pub(crate) retransmit: bool,
    /// DATA's `incoming`: the unscheduled limit, or the end of a resent range.
    pub(crate) incoming: u32,
}

/// Transmit state of one outbound message.
#[derive(Debug, Clone)]
pub(crate) struct MessageOut {
    data: Bytes,
    pub(crate) length: u32,
    /// Bytes sent without grants: min(unsched_bytes, length).
    pub(crate) unscheduled: u32,
    pub(crate) granted: u32,
    /// The first byte never sent yet.
    pub(crate) next_offset: u32,
    /// Priority for the unscheduled packets (from the receiver's cutoffs).
    pub(crate) unsched_priority: u8,
    /// Priority for scheduled packets (from the latest GRANT).
    pub(crate) sched_priority: u8,
    /// Ranges to send again, with the priority the RESEND asked for.
    retransmits: VecDeque<(u32, u32, u8)>,
    /// Creation order, for SRPT ties.
    pub(crate) age: u64,
    /// With transmit offload: the message is the NIC's to send ([`hand_over`](Self::hand_over)).
    handed_over: bool,
    /// With transmit offload: the NIC reported its last hand-over sent (`TX_DONE`).
    nic_done: bool,
}

impl MessageOut {
    pub(crate) fn new(data: Bytes, unsched_bytes: u32, unsched_priority: u8, age: u64) -> Self {
        let length = data.len() as u32;
        let unscheduled = unsched_bytes.min(length);
        MessageOut {
            data,
            length,
            unscheduled,
            granted: unscheduled,
            next_offset: 0,
            unsched_priority,
            sched_priority: 0,
            retransmits: VecDeque::new(),
            age,
            handed_over: false,
            nic_done: false,
        }
    }

    /// Whether a packet may go now: a retransmission is queued, or granted bytes are unsent.
    pub(crate) fn sendable(&self) -> bool {
        !self.retransmits.is_empty() || self.next_offset < self.granted.min(self.length)
    }

    /// Whether every byte has been sent once and nothing waits for retransmission.
    pub(crate) fn fully_sent(&self) -> bool {
        self.next_offset >= self.length && self.retransmits.is_empty()
    }

    /// Whether every byte is on its way: sent once, and with transmit offload (where every
    /// byte counts as sent at the hand-over) granted and reported sent by the NIC, since
    /// until its `TX_DONE` the message may still wait in the host's queue or the NIC's.
    /// Without offload the same as [`fully_sent`](Self::fully_sent).
    pub(crate) fn all_out(&self) -> bool {
        self.fully_sent() && self.granted >= self.length && (!self.handed_over || self.nic_done)
    }

    /// With transmit offload: whether the NIC is still sending the message and needs nothing
    /// from the receiver to finish (every byte granted, no `TX_DONE` yet). The sender is
    /// then in HomaModule's "granted bytes not yet sent" state and expects nothing: the
    /// message may wait behind others in the host's queue or the NIC's for longer than the
    /// receiver's timers, and a RESEND for it then would find no RPC at the receiver and
    /// restart it (RPC_UNKNOWN), over and over under load.
    pub(crate) fn nic_sending(&self) -> bool {
        self.handed_over && !self.nic_done && self.granted >= self.length
    }

    /// With transmit offload: the NIC reported the message sent (its SEND's `TX_DONE`).
    pub(crate) fn nic_sent(&mut self) {
        self.nic_done = self.handed_over;
    }

    /// Bytes never sent yet: the sender's SRPT key.
    pub(crate) fn bytes_remaining(&self) -> u32 {
        self.length - self.next_offset
    }

    /// Applies a GRANT (HomaModule `homa_grant_pkt`): granted only grows, never past the end.
    pub(crate) fn grant(&mut self, offset: u32, priority: u8) {
        self.granted = self.granted.max(offset.min(self.length));
        self.sched_priority = priority;
    }

    /// Queues [offset, offset + length) again, capped at what was sent; `None` when none of
    /// it has been sent yet (the caller answers BUSY). A range past `granted` means a GRANT
    /// was lost: granted is raised to cover it.
    pub(crate) fn resend(&mut self, offset: u32, length: Option<u32>, priority: u8) -> Option<()> {
        let end = match length {
            // Everything sent: with transmit offload (everything counts as sent) only what
            // was granted; without it, next_offset never passes granted.
            None => self.next_offset.min(self.granted),
            Some(len) => {
                let end = offset.saturating_add(len).min(self.length);
                self.granted = self.granted.max(end);
                end
            }
        };
        let end = end.min(self.next_offset);
        if offset >= end {
            return None;
        }
        self.retransmits.push_back((offset, end, priority));
        Some(())
    }

    /// Queues everything sent so far again, at the unscheduled priority (restart after
    /// RPC_UNKNOWN).
    pub(crate) fn restart(&mut self) {
        if self.next_offset > 0 {
            self.retransmits.clear();
            self.retransmits
                .push_back((0, self.next_offset, self.unsched_priority));
        }
    }

    /// With transmit offload: the NIC takes the whole message, so from here on every byte
    /// counts as sent. `granted` keeps following the GRANTs the host sees (the NIC acts on
    /// them; the engine sends nothing), so a RESEND for everything is capped at what the
    /// receiver let the NIC send, not the whole message.
    pub(crate) fn hand_over(&mut self) -> Bytes {
        self.next_offset = self.length;
        self.handed_over = true;
        self.nic_done = false;
        self.data.clone()
    }

    /// With transmit offload, after RPC_UNKNOWN: the message goes to the NIC again as new (its
    /// unscheduled bytes now, the rest as the server's new RPC grants it), not as a
    /// retransmission of everything, which the NIC would send without waiting for grants.
    pub(crate) fn hand_over_again(&mut self) -> Bytes {
        self.retransmits.clear();
        self.granted = self.unscheduled;
        self.hand_over()
    }

    /// The message.
    pub(crate) fn data(&self) -> Bytes {
        self.data.clone()
    }

    /// The queued ranges to send again, `(start, end)`, oldest first, and none left.
    pub(crate) fn take_retransmits(&mut self) -> Vec<(u32, u32)> {
        self.retransmits.drain(..).map(|(s, e, _)| (s, e)).collect()
    }

    /// Cuts the next packet: retransmissions first, then new bytes. A packet never straddles
    /// the unscheduled limit (so no ungranted byte leaves early) and carries at most
    /// `max_payload` bytes.
    pub(crate) fn next_packet(&mut self, max_payload: u32) -> Option<Segment> {
        if let Some((start, end, priority)) = self.retransmits.front_mut() {
            let offset = *start;
            let len = (*end - offset).min(max_payload);
            let seg = Segment {
                offset,
                payload: self.data.slice(offset as usize..(offset + len) as usize),
                priority: *priority,
                retransmit: true,
                incoming: *end,
            };
            *start += len;
            if *start >= *end {
                self.retransmits.pop_front();
            }
            return Some(seg);
        }
        if self.next_offset >= self.granted.min(self.length) {
            return None;
        }
        let offset = self.next_offset;
        let len = segment_len(offset, self.unscheduled, self.length, max_payload);
        let priority = if offset < self.unscheduled {
            self.unsched_priority
        } else {
            self.sched_priority
        };
        self.next_offset += len;
        Some(Segment {
            offset,
            payload: self.data.slice(offset as usize..(offset + len) as usize),
            priority,
            retransmit: false,
            incoming: self.unscheduled,
        })
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    fn msg(len: usize, unsched: u32) -> MessageOut {
        MessageOut::new(Bytes::from(vec![7u8; len]), unsched, 6, 0)
    }

    fn cuts(m: &mut MessageOut, max: u32) -> Vec<(u32, usize, u8)> {
        std::iter::from_fn(|| m.next_packet(max))
            .map(|s| (s.offset, s.payload.len(), s.priority))
            .collect()
    }

    #[test]
    fn next_packet__stops_at_unscheduled_limit_until_granted() {
        let mut m = msg(5000, 2500);
        assert_eq!(
            cuts(&mut m, 1000),
            [(0, 1000, 6), (1000, 1000, 6), (2000, 500, 6)]
        );
        assert!(!m.sendable());
        m.grant(3000, 2);
        assert_eq!(cuts(&mut m, 1000), [(2500, 1000, 2)]);
        m.grant(99_999, 1);
        assert_eq!(cuts(&mut m, 1000), [(3500, 1000, 1), (4500, 500, 1)]);
        assert!(m.fully_sent());
    }

    #[test]
    fn resend__capped_at_sent_and_busy_when_nothing_sent() {
        let mut m = msg(5000, 5000);
        assert_eq!(m.resend(0, Some(100), 7), None);
        cuts(&mut m, 1000);
        assert_eq!(m.resend(4500, Some(1000), 7), Some(()));
        let seg = m.next_packet(1000).unwrap();
        assert_eq!(
            (seg.offset, seg.payload.len(), seg.priority, seg.retransmit),
            (4500, 500, 7, true)
        );
        assert_eq!(seg.incoming, 5000);
        assert_eq!(m.next_packet(1000), None);
    }

    #[test]
    fn resend__past_granted_raises_granted() {
        let mut m = msg(5000, 1000);
        cuts(&mut m, 1000);
        m.resend(0, Some(3000), 7).unwrap();
        assert_eq!(m.granted, 3000);
        assert_eq!(cuts(&mut m, 1000).len(), 1 + 2);
    }
}
