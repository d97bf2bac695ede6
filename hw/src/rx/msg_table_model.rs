//! The message table's reference, shared by the rust-hdl tests and the Verilator
//! co-simulation: the same two-way table ([`crate::msg_table::places`]), each entry's
//! received bytes as a range set merged exactly as `homa_proto::core` merges it, limited to
//! two ranges; and the checking loop [`run`] over closed-loop traffic
//! ([`crate::grant_model::Traffic`]) that every packet's fate feeds back into.

use crate::bench::Rng;
use crate::grant_model::{Event, Grant, Packet, Ranges, Traffic};
use crate::msg_table::places;

/// What the table does with one packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The grant generator's event, with the message's entry.
    Event(u32, Event),
    /// Dropped: its message is complete, or its length disagrees.
    DropLate,
    /// Passed to the host: both its places hold other live messages.
    Collision,
}

#[derive(Debug, Clone)]
struct Entry {
    peer: u32,
    id: u64,
    length: u32,
    received: u32,
    ranges: Ranges,
    done: bool,
}

/// The reference table.
#[derive(Debug, Clone)]
pub struct TableModel {
    bits: u32,
    entries: Vec<Option<Entry>>,
    /// (holes_forgotten, dropped_late, collisions) so far.
    pub counters: (u32, u32, u32),
}

impl TableModel {
    /// An empty table of `2^bits` entries.
    pub fn new(bits: u32) -> Self {
        TableModel {
            bits,
            entries: vec![None; 1 << bits],
            counters: (0, 0, 0),
        }
    }

    /// The entry that holds message `(peer, id)`, if one does (done or not).
    fn find(&self, peer: u32, id: u64) -> Option<usize> {
        places(peer, id, self.bits).into_iter().find(|&i| {
            self.entries[i]
                .as_ref()
                .is_some_and(|e| e.peer == peer && e.id == id)
        })
    }

    /// Takes a release ([`release_packet`]): a live entry of that message and length
    /// completes, and its event carries the bytes it had not counted (so that the grant
    /// generator's count reaches the length); anything else is ignored and counted nowhere.
    pub fn release(&mut self, p: &Packet) -> Option<(u32, Event)> {
        let ev = p.ev;
        let at = self.find(ev.peer, ev.id)?;
        let e = self.entries[at].as_mut().expect("found");
        if e.done || e.length != ev.length {
            return None;
        }
        // Complete, whatever the entry counted (forgotten gaps included).
        let new = e.length - e.received;
        e.ranges = Ranges(vec![(0, e.length)]);
        e.received = e.length;
        e.done = true;
        Some((at as u32, Event { new, ..ev }))
    }

    /// Takes one packet.
    pub fn packet(&mut self, p: &Packet) -> Outcome {
        let ev = p.ev;
        let plen = ev.end - p.offset;
        if let Some(at) = self.find(ev.peer, ev.id) {
            let e = self.entries[at].as_mut().expect("found");
            if e.done || e.length != ev.length {
                self.counters.1 += 1;
                return Outcome::DropLate;
            }
            let mut ranges = e.ranges.clone();
            let mut new = ranges.insert(p.offset, ev.end);
            if ranges.0.len() > 2 {
                // A second hole: the packet's range joins its neighbour (the first range
                // when it comes before it, else the second), and the gap between them
                // counts as received.
                self.counters.0 += 1;
                let r = &mut ranges.0;
                let (a, b) = if p.offset < r[1].0 { (0, 1) } else { (1, 2) };
                new += r[b].0 - r[a].1;
                r[a].1 = r[b].1;
                r.remove(b);
            }
            e.ranges = ranges;
            e.received += new;
            e.done = e.received >= e.length;
            return Outcome::Event(at as u32, Event { new, ..ev });
        }
        // A new message takes the first place whose entry is free or complete.
        let free = places(ev.peer, ev.id, self.bits)
            .into_iter()
            .find(|&i| self.entries[i].as_ref().is_none_or(|e| e.done));
        let Some(at) = free else {
            self.counters.2 += 1;
            return Outcome::Collision;
        };
        self.entries[at] = Some(Entry {
            peer: ev.peer,
            id: ev.id,
            length: ev.length,
            received: plen,
            ranges: Ranges(vec![(p.offset, ev.end)]),
            done: plen >= ev.length,
        });
        Outcome::Event(at as u32, Event { new: plen, ..ev })
    }
}

/// Checks the fate `dut` reports this cycle, if any, against the oldest owed.
fn check_fate<D: TablePorts>(
    dut: &D,
    fates: &mut std::collections::VecDeque<bool>,
    seed: u64,
    cycle: u64,
) -> Result<(), String> {
    let Some(got) = dut.fate() else {
        return Ok(());
    };
    match fates.pop_front() {
        Some(want) if want == got => Ok(()),
        Some(want) => Err(format!(
            "seed {seed:#x}, cycle {cycle}: fate collision {got}, reference {want}"
        )),
        None => Err(format!(
            "seed {seed:#x}, cycle {cycle}: a fate (collision {got}) for no packet"
        )),
    }
}

/// The release of message `(peer, id)` of `length` bytes as the table's input takes it
/// (offset 0, end = length, `incoming` = length so that the grant generator never inserts
/// it; ports and MAC 0).
pub fn release_packet(peer: u32, id: u64, length: u32) -> Packet {
    Packet {
        ev: Event {
            peer,
            id,
            sport: 0,
            dport: 0,
            mac: 0,
            length,
            incoming: length,
            new: 0,
            end: length,
        },
        offset: 0,
    }
}

/// The table's ports as a co-simulation drives them (rust-hdl bench and Verilated model).
pub trait TablePorts {
    /// Resets the pipeline (the RAM starts cleared).
    fn reset(&mut self);
    /// Drives the inputs for this cycle and lets the outputs settle: a packet, or with
    /// `release` a release made by [`release_packet`].
    fn drive(&mut self, pkt: Option<&Packet>, release: bool, evt_ready: bool);
    /// Whether the offered packet is taken this cycle.
    fn pkt_ready(&self) -> bool;
    /// The event offered this cycle, with its table entry (`m_evt_index`).
    fn event(&self) -> Option<(u32, Event)>;
    /// (holes_forgotten, dropped_late, collisions).
    fn counters(&self) -> (u32, u32, u32);
    /// The fate of a packet leaving the table this cycle (`m_fate_*`): whether its entry
    /// held another message.
    fn fate(&self) -> Option<bool>;
    /// The rising edge.
    fn edge(&mut self);
}

/// Drives `packets` packets from `seed` (at most `max_live` messages at once, every message
/// granted in full so that all of it flows) into `dut` with gaps and back-pressure, and
/// checks every event (and its entry) and the counters against [`TableModel`] of `2^bits` entries.
/// Returns (events, drops, collisions) seen.
pub fn run<D: TablePorts>(
    dut: &mut D,
    seed: u64,
    packets: u64,
    bits: u32,
    max_live: usize,
) -> Result<(u64, u64, u64), String> {
    let mut traffic = Traffic::new(seed, max_live);
    let mut rng = Rng::new(seed ^ 0x7AB1_E000);
    let mut model = TableModel::new(bits);
    let mut expected = std::collections::VecDeque::new();
    // Each packet's fate (whether it collided), in the order the table took them.
    let mut fates = std::collections::VecDeque::new();
    // The input offered: a packet, or a release (true).
    let mut offered: Option<(Packet, bool)> = None;
    let (mut taken, mut seen, mut cycles, mut releases) = (0u64, 0u64, 0u64, 0u64);
    dut.reset();
    while taken < packets || !expected.is_empty() || !fates.is_empty() {
        cycles += 1;
        if cycles > 50 * packets + 1000 {
            return Err(format!(
                "seed {seed:#x}: no progress after {cycles} cycles ({taken} packets, {} events owed)",
                expected.len()
            ));
        }
        if offered.is_none() && taken < packets && rng.chance(3) {
            // The host gives up on a message (or has it all): release it.
            offered = traffic
                .abort()
                .map(|ev| (release_packet(ev.peer, ev.id, ev.length), true));
        }
        if offered.is_none() && taken < packets && rng.chance(85) {
            offered = traffic.next_packet().map(|p| (p, false));
            if let Some((p, _)) = offered {
                // Every message may send all of it: this test is about the table.
                traffic.grant(&Grant {
                    peer: p.ev.peer,
                    mac: 0,
                    id: p.ev.id,
                    sport: 0,
                    dport: 0,
                    offset: p.ev.length,
                    priority: 0,
                });
            }
        }
        let valid = offered.is_some() && rng.chance(85);
        let ready = rng.chance(70);
        let release = offered.is_some_and(|(_, r)| r);
        dut.drive(
            offered.as_ref().map(|(p, _)| p).filter(|_| valid),
            release,
            ready,
        );
        check_fate(dut, &mut fates, seed, cycles)?;
        if let (Some(got), true) = (dut.event(), ready) {
            let want = expected.pop_front().ok_or_else(|| {
                format!("seed {seed:#x}, cycle {cycles}: unexpected event {got:?}")
            })?;
            if got != want {
                return Err(format!(
                    "seed {seed:#x}, cycle {cycles}: event {got:?}, reference {want:?}"
                ));
            }
            seen += 1;
        }
        if valid && dut.pkt_ready() && release {
            let (p, _) = offered.take().expect("valid implies offered");
            if let Some(ev) = model.release(&p) {
                expected.push_back(ev);
            }
            releases += 1;
        } else if valid && dut.pkt_ready() {
            let (p, _) = offered.take().expect("valid implies offered");
            let outcome = model.packet(&p);
            fates.push_back(outcome == Outcome::Collision);
            match outcome {
                Outcome::Event(at, ev) => {
                    expected.push_back((at, ev));
                    traffic.deliver(&p, true);
                }
                Outcome::Collision => {
                    traffic.deliver(&p, false);
                }
                Outcome::DropLate => {}
            }
            taken += 1;
        }
        dut.edge();
    }
    // Let the last packet leave stage 1.
    dut.drive(None, false, true);
    check_fate(dut, &mut fates, seed, cycles)?;
    dut.edge();
    dut.drive(None, false, true);
    check_fate(dut, &mut fates, seed, cycles)?;
    if let Some(f) = fates.front() {
        return Err(format!(
            "seed {seed:#x}: {} packets left the table with no fate (next: collision {f})",
            fates.len()
        ));
    }
    if releases == 0 && packets >= 1_000 {
        return Err(format!("seed {seed:#x}: no release was offered"));
    }
    if dut.counters() != model.counters {
        return Err(format!(
            "seed {seed:#x}: counters (holes, late, collisions) {:?}, reference {:?}",
            dut.counters(),
            model.counters
        ));
    }
    let c = model.counters;
    Ok((seen, u64::from(c.0 + c.1), u64::from(c.2)))
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    const LEN: u32 = 40 * 1000;

    /// Packet `k` (of 1,000 bytes) of one message of [`LEN`] bytes.
    fn pkt(k: u32) -> Packet {
        let offset = k * 1000;
        Packet {
            ev: Event {
                peer: 0x0a00_0001,
                id: 7,
                length: LEN,
                end: offset + 1000,
                ..Event::default()
            },
            offset,
        }
    }

    /// Feeds packets `order` to a fresh table: (new bytes per packet, holes forgotten).
    fn feed(order: &[u32]) -> (Vec<u32>, u32) {
        let mut t = TableModel::new(4);
        let news = order
            .iter()
            .map(|&k| match t.packet(&pkt(k)) {
                Outcome::Event(_, ev) => ev.new,
                // Its bytes were counted with a gap, and the entry is complete.
                Outcome::DropLate => 0,
                Outcome::Collision => panic!("packet {k} collided in an empty table"),
            })
            .collect();
        (news, t.counters.0)
    }

    #[test]
    fn table__counts_every_byte_once_whatever_the_order() {
        // Reordering alone (every packet arrives once): the count never passes the length
        // and reaches it, holes forgotten or not (a gap counted early makes its packets
        // late duplicates).
        let mut rng = Rng::new(0x0dd_0de5);
        let mut forgot = 0;
        for _ in 0..200 {
            let mut order: Vec<u32> = (0..LEN / 1000).collect();
            for i in (1..order.len()).rev() {
                order.swap(i, rng.below(i as u64 + 1) as usize);
            }
            let (news, holes) = feed(&order);
            forgot += holes;
            let mut sum = 0;
            for (i, n) in news.iter().enumerate() {
                sum += n;
                assert!(sum <= LEN, "{order:?}: {sum} counted by packet {i}");
            }
            assert_eq!(sum, LEN, "{order:?}: {news:?}");
        }
        assert!(
            forgot > 100,
            "the orders opened second holes only {forgot} times"
        );
    }

    #[test]
    fn table__a_forgotten_gap_counts_as_received_and_its_bytes_as_duplicates() {
        // 0, 2, 4: the third range joins the second, and packet 3 counts with it.
        let (news, holes) = feed(&[0, 2, 4, 3, 1]);
        assert_eq!(holes, 1);
        assert_eq!(news, vec![1000, 1000, 2000, 0, 1000]);
    }
}
