//! The receiving side of one message: which byte ranges have arrived, what has been granted,
//! and the payload chunks, kept as the shared buffers they arrived in (no copy until the
//! application asks for one).

use bytes::Bytes;

/// A whole message as delivered to the application: its chunks in offset order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    length: u32,
    chunks: Vec<(u32, Bytes)>,
}

impl Message {
    /// A message holding `data` in one chunk.
    pub fn from_bytes(data: Bytes) -> Self {
        Message {
            length: data.len() as u32,
            chunks: vec![(0, data)],
        }
    }

    /// The message length in bytes.
    pub fn len(&self) -> usize {
        self.length as usize
    }

    /// Whether the message is empty (Homa never delivers one).
    pub fn is_empty(&self) -> bool {
        self.length == 0
    }

    /// The received chunks as (offset, bytes), in offset order. Chunks may overlap where a
    /// retransmission covered bytes that had arrived; overlapping bytes are identical.
    pub fn chunks(&self) -> &[(u32, Bytes)] {
        &self.chunks
    }

    /// Copies the message into one contiguous vector.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.len()];
        for (offset, chunk) in &self.chunks {
            let start = *offset as usize;
            out[start..start + chunk.len()].copy_from_slice(chunk);
        }
        out
    }
}

/// Receive state of one inbound message.
#[derive(Debug, Clone)]
pub(crate) struct MessageIn {
    pub(crate) length: u32,
    /// Disjoint, sorted, merged byte ranges received.
    ranges: Vec<(u32, u32)>,
    pub(crate) received: u32,
    /// The sender may send bytes below this without further grants.
    pub(crate) granted: u32,
    chunks: Vec<(u32, Bytes)>,
    /// Arrival order of the first packet (the grant policy's tie-breaker).
    pub(crate) age: u64,
    /// Whether this message is in the receiver's grant list (length above its unscheduled
    /// part when it started).
    pub(crate) needs_grants: bool,
    /// With `grant_offload`: the engine grants this message (the NIC did not).
    pub(crate) soft_granted: bool,
    /// With `grant_offload`: ticks in a row this message has waited for the NIC's next
    /// GRANT with every granted byte in (see `core::timer`).
    pub(crate) nic_wait_ticks: u32,
    /// The lowest hole (a missing range below bytes received) as the last tick saw it, and
    /// for how many ticks in a row it has been the lowest: see [`MessageIn::hole_tick`].
    lowest_hole: Option<u32>,
    hole_ticks: u32,
}

impl MessageIn {
    pub(crate) fn new(length: u32, incoming: u32, age: u64) -> Self {
        let granted = incoming.min(length);
        MessageIn {
            length,
            ranges: Vec::new(),
            received: 0,
            granted,
            chunks: Vec::new(),
            age,
            needs_grants: granted < length,
            soft_granted: false,
            nic_wait_ticks: 0,
            lowest_hole: None,
            hole_ticks: 0,
        }
    }

    /// Where the lowest hole starts: the first missing byte below the last byte received.
    fn first_hole(&self) -> Option<u32> {
        match self.ranges.as_slice() {
            [(a, _), ..] if *a > 0 => Some(0),
            [(_, b), _, ..] => Some(*b),
            _ => None,
        }
    }

    /// One timer tick: how many ticks in a row the same hole has been the lowest (0 when
    /// there is none, or it is new). A hole that outlives the RESEND timeout while the rest
    /// of the message keeps coming was lost, not overtaken: packets of one message reorder
    /// by queueing, which takes far less.
    pub(crate) fn hole_tick(&mut self) -> u32 {
        let hole = self.first_hole();
        if hole.is_some() && hole == self.lowest_hole {
            self.hole_ticks += 1;
        } else {
            self.lowest_hole = hole;
            self.hole_ticks = 0;
        }
        self.hole_ticks
    }

    /// The holes: missing ranges below the last byte received (not the tail).
    pub(crate) fn holes(&self) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        let mut at = 0;
        for &(a, b) in &self.ranges {
            if a > at {
                out.push((at, a));
            }
            at = b;
        }
        out
    }

    pub(crate) fn is_complete(&self) -> bool {
        self.received >= self.length
    }

    pub(crate) fn bytes_remaining(&self) -> u32 {
        self.length - self.received
    }

    /// Bytes granted and not received (holes included): what the grant budget counts.
    pub(crate) fn in_flight(&self) -> u64 {
        u64::from(self.granted.saturating_sub(self.received))
    }

    /// Adds a packet's payload; returns how many of its bytes were new.
    pub(crate) fn add(&mut self, offset: u32, payload: Bytes) -> u32 {
        let end = offset + payload.len() as u32;
        if payload.is_empty() || end > self.length {
            return 0;
        }
        let new = self.insert_range(offset, end);
        if new > 0 {
            self.received += new;
            // Keep chunks sorted; packets mostly arrive in order, so this is usually a push.
            let at = self.chunks.partition_point(|(o, _)| *o <= offset);
            self.chunks.insert(at, (offset, payload));
        }
        // A sender that sent past what we granted had a grant we lost track of: take it.
        self.granted = self.granted.max(end);
        new
    }

    /// Inserts [start, end) into the range set, returning the number of bytes not already
    /// covered.
    fn insert_range(&mut self, start: u32, end: u32) -> u32 {
        // First range that ends at or after `start` (could touch or overlap).
        let i = self.ranges.partition_point(|r| r.1 < start);
        let mut new_start = start;
        let mut new_end = end;
        let mut covered = 0;
        let mut j = i;
        while j < self.ranges.len() && self.ranges[j].0 <= end {
            let (a, b) = self.ranges[j];
            covered += b.min(end).saturating_sub(a.max(start));
            new_start = new_start.min(a);
            new_end = new_end.max(b);
            j += 1;
        }
        self.ranges.splice(i..j, [(new_start, new_end)]);
        (end - start) - covered
    }

    /// The ranges still missing below `granted`: gaps between received ranges, then
    /// [end of received data, granted).
    pub(crate) fn missing(&self) -> Vec<(u32, u32)> {
        let mut out: Vec<(u32, u32)> = (self.holes().into_iter())
            .map(|(a, b)| (a, b.min(self.granted)))
            .collect();
        let end = self.ranges.last().map_or(0, |r| r.1);
        if end < self.granted {
            out.push((end, self.granted));
        }
        out.retain(|(a, b)| b > a);
        out
    }

    /// Whether every granted byte has arrived (nothing to wait for but grants).
    pub(crate) fn has_all_granted(&self) -> bool {
        self.missing().is_empty()
    }

    pub(crate) fn into_message(self) -> Message {
        Message {
            length: self.length,
            chunks: self.chunks,
        }
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    fn chunk(offset: u32, len: usize) -> Bytes {
        Bytes::from(
            (0..len)
                .map(|i| (offset as usize + i) as u8)
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn add__in_order_out_of_order_and_duplicates() {
        let mut m = MessageIn::new(100, 30, 0);
        assert_eq!(m.add(0, chunk(0, 10)), 10);
        assert_eq!(m.add(20, chunk(20, 10)), 10);
        assert_eq!(m.missing(), vec![(10, 20)]);
        assert_eq!(m.add(20, chunk(20, 10)), 0, "duplicate");
        assert_eq!(m.add(5, chunk(5, 20)), 10, "overlaps both sides");
        assert_eq!(m.missing(), Vec::<(u32, u32)>::new());
        assert!(m.has_all_granted());
        m.granted = 100;
        assert_eq!(m.missing(), vec![(30, 100)]);
        assert_eq!(m.add(30, chunk(30, 70)), 70);
        assert!(m.is_complete());
        let want: Vec<u8> = (0..100).map(|i| i as u8).collect();
        assert_eq!(m.into_message().to_vec(), want);
    }

    #[test]
    fn add__rejects_bytes_past_the_end() {
        let mut m = MessageIn::new(10, 10, 0);
        assert_eq!(m.add(5, chunk(5, 6)), 0);
        assert_eq!(m.received, 0);
    }
}
