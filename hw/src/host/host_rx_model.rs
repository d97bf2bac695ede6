//! The bench for [`crate::host_rx::HostRx512`], shared by its rust-hdl test and the Verilator
//! co-simulation in `homa-sim`: the whole receive path from the host's side. A host posts RX
//! buffer descriptors (some bad, some outside its RX window) into its ring and polls the completion ring by phase bits,
//! as the driver does; one memory serves the NIC's DMA reads after a random latency and
//! takes its writes under random back-pressure; payloads and DATA headers arrive as the
//! parser hands them over, with gaps, droughts of buffers and bad frames.
//!
//! Checks that trust none of the blocks' models:
//! - every byte written lies in a buffer the NIC has fetched and not yet returned, or in the
//!   completion entry being written (body first, then the phase byte, never over an entry
//!   the host has not consumed);
//! - the host reads completions in packet order; an `RX_DATA` names its packet (id, peer,
//!   ports, offset, lengths, retransmit) and the oldest buffer still out, which then holds
//!   exactly the payload; an `ERROR` (status 7) comes for a payload longer than its buffer,
//!   whose bytes hold the payload's head; every refused descriptor (`RxBufDescriptor::
//!   refusal`) comes back once in an `ERROR` naming its index, id and status, and is never
//!   written; every TX refusal, `TX_DONE` and `GRANT_SENT` report the block took comes back
//!   once, in order among its kind, with its fields;
//! - at the end, every packet with a payload is accounted for: completed, dropped for want of
//!   a buffer, or a bad frame; every descriptor is used or refused; and the counters agree
//!   with what the host saw.

use std::collections::{HashMap, VecDeque};

use homa_proto::hostif::{
    COMPLETION_LEN, Completion, DmaWindow, ErrorRing, Event, RX_BUF_DESC_LEN, RingState,
    RxBufDescriptor, Status,
};

use crate::bench::Rng;
use crate::rx_dma_model::{
    Beat, DATA, DmaWrite, Frame, Header, beats_of, control_completion, frame, rx_data_completion,
};

/// What the bench offers the block in one cycle.
#[derive(Clone, Copy, Debug, Default)]
pub struct HostOffer<'a> {
    /// RX ring IOVA.
    pub rx_base: u64,
    /// log2 of its entries.
    pub rx_log2: u8,
    /// The host's RX producer index.
    pub rx_producer: u32,
    /// Completion ring IOVA.
    pub cq_base: u64,
    /// log2 of its entries.
    pub cq_log2: u8,
    /// The host's completion consumer index.
    pub cq_consumer: u32,
    /// The `*_log2_size` write pulse (both rings restart).
    pub clear: bool,
    /// The RX window.
    pub rx_window: DmaWindow,
    /// A payload beat.
    pub beat: Option<&'a Beat>,
    /// A DATA header.
    pub header: Option<&'a Header>,
    /// A read request is taken.
    pub rd_ready: bool,
    /// A read response.
    pub resp: Option<[u8; 64]>,
    /// A write beat is taken.
    pub wr_ready: bool,
    /// A refused TX descriptor (the TX ring's `m_err_*`).
    pub txerr: Option<TxRefusal>,
    /// A transmit engine's report that a message left (its `m_done_*`).
    pub txdone: Option<TxDone>,
    /// A grant generator's report that a GRANT left.
    pub grant: Option<GrantReport>,
}

/// A GRANT the grant generator sent, as the core reports it for a `GRANT_SENT` completion.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GrantReport {
    /// This host's RPC id (the GRANT's `sender_id`).
    pub rpc_id: u64,
    /// The peer's IPv4 address.
    pub peer: u32,
    /// The GRANT's source (local) port.
    pub local_port: u16,
    /// Its destination (peer) port.
    pub peer_port: u16,
    /// The granted offset.
    pub offset: u32,
    /// The priority granted (0-7).
    pub priority: u8,
}

impl GrantReport {
    /// The completion the host must read for it (phase aside).
    pub fn completion(&self) -> Completion {
        Completion {
            rpc_id: self.rpc_id,
            status: Status::Ok,
            event: Event::GrantSent {
                offset: self.offset,
                priority: self.priority,
                local_port: self.local_port,
                peer_port: self.peer_port,
                peer: self.peer.into(),
            },
            phase: false,
        }
    }
}

/// A message the transmit engine finished, as it reports it for a `TX_DONE` completion.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxDone {
    /// Its RPC id.
    pub rpc_id: u64,
    /// Its length.
    pub length: u32,
    /// Its descriptor's cookie.
    pub cookie: u64,
}

impl TxDone {
    /// The completion the host must read for it (phase aside).
    pub fn completion(&self) -> Completion {
        Completion {
            rpc_id: self.rpc_id,
            status: Status::Ok,
            event: Event::TxDone {
                length: self.length,
                cookie: self.cookie,
            },
            phase: false,
        }
    }
}

/// A TX descriptor the TX ring refused, as it offers it for an `ERROR` completion.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxRefusal {
    /// Why (a `Status` byte).
    pub status: u8,
    /// The descriptor's ring index.
    pub index: u32,
    /// Its RPC id.
    pub rpc_id: u64,
    /// Its cookie.
    pub cookie: u64,
}

impl TxRefusal {
    /// The completion the host must read for it (phase aside).
    pub fn completion(&self) -> Completion {
        Completion {
            rpc_id: self.rpc_id,
            status: Status::from_u8(self.status).unwrap_or(Status::BadDescriptor),
            event: Event::Error {
                ring: ErrorRing::Tx,
                index: self.index,
                cookie: self.cookie,
            },
            phase: false,
        }
    }
}

/// What the block answers, once settled.
#[derive(Clone, Debug, Default)]
pub struct HostAnswer {
    /// The payload beat is taken.
    pub pay_ready: bool,
    /// The header is taken.
    pub hdr_ready: bool,
    /// A read request (address, bytes).
    pub rd: Option<(u64, u16)>,
    /// A write beat.
    pub wr: Option<DmaWrite>,
    /// The TX refusal is taken.
    pub txerr_ready: bool,
    /// The TX_DONE report is taken.
    pub txdone_ready: bool,
    /// The GRANT report is taken.
    pub grant_ready: bool,
}

/// The block's indices and counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostCounters {
    /// `rx_consumer`.
    pub rx_consumer: u32,
    /// `cq_producer`.
    pub cq_producer: u32,
    /// `RX_DATA` completions.
    pub rx_data: u32,
    /// `ERROR` completions.
    pub rx_errors: u32,
    /// Payloads dropped without a buffer.
    pub no_buffer: u32,
    /// Payloads of bad frames.
    pub bad_frames: u32,
    /// Headers without payload.
    pub empty: u32,
    /// Descriptors refused.
    pub bad_descriptors: u32,
    /// Completions dropped while the ring was off.
    pub cq_dropped: u32,
}

/// The block under test.
pub trait HostRxPorts {
    /// Resets it.
    fn reset(&mut self);
    /// Drives this cycle's inputs and returns the settled outputs.
    fn drive(&mut self, offer: &HostOffer<'_>) -> HostAnswer;
    /// Indices and counters.
    fn counters(&self) -> HostCounters;
    /// The rising edge.
    fn edge(&mut self);
}

/// The result of [`run`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostStats {
    /// Cycles run.
    pub cycles: u64,
    /// Completions the host read.
    pub completions: u64,
    /// Of which `ERROR` (buffer too small).
    pub too_small: u64,
    /// Of which `ERROR` for a refused descriptor.
    pub refused: u64,
    /// Of which `CONTROL` (control packets).
    pub control: u64,
    /// Of which `ERROR` for a refused TX descriptor.
    pub tx_refused: u64,
    /// Of which `TX_DONE`.
    pub tx_done: u64,
    /// Of which `GRANT_SENT`.
    pub grants_sent: u64,
    /// The block's counters at the end.
    pub counters: HostCounters,
}

/// Where the rings live (clear of the buffers, which lie below 2^40).
/// Idle cycles, with packets left, that mean the block is stuck: a drought of buffers lasts
/// under 400 cycles and a read under 65.
const STALL_CYCLES: u64 = 20_000;
const RX_RING: u64 = 0x7f00_0000_0000;
const CQ_RING: u64 = 0x7f10_0000_0000;

/// The RX window: the host's buffers lie in it (its end is in reach of a buffer's).
const WINDOW: DmaWindow = DmaWindow {
    base: 1 << 32,
    len: 1 << 36,
};

/// A posted descriptor: free-running index, the descriptor, why the NIC must refuse it.
type Posted = (u32, RxBufDescriptor, Option<Status>);

fn descriptor(rng: &mut Rng, index: u32) -> RxBufDescriptor {
    let buffer_id = index ^ 0x3c00_0000;
    let length = match rng.below(10) {
        0 => 1 + rng.below(1500) as u32,
        1 => 65_536,
        _ => 2048 + rng.below(8192) as u32,
    };
    let end = WINDOW.base + WINDOW.len;
    let (iova, length) = match rng.below(60) {
        0 | 1 => (rng.next_u64(), 0),
        2 => (rng.next_u64() & 0xffff_ffff, length),
        3 => (end - 100, length.max(101)),
        _ => (
            WINDOW.base + (u64::from(index) << 20) + (rng.next_u64() & 0x3_ffff),
            length,
        ),
    };
    RxBufDescriptor {
        iova,
        length,
        buffer_id,
    }
}

/// The host: its memory, its two rings, what it posted and what it expects.
struct Host {
    memory: HashMap<u64, u8>,
    rx_log2: u8,
    posted: VecDeque<Posted>,
    producer: u32,
    doorbell: u32,
    cq: RingState,
    /// Entries fully written by the NIC (free-running), and whether the next one's body is in.
    cq_written: u32,
    cq_body: bool,
}

impl Host {
    fn read(&self, addr: u64, len: usize) -> Vec<u8> {
        (0..len as u64)
            .map(|i| self.memory.get(&(addr + i)).copied().unwrap_or(0))
            .collect()
    }

    fn write(&mut self, addr: u64, bytes: &[u8]) {
        for (i, b) in bytes.iter().enumerate() {
            self.memory.insert(addr + i as u64, *b);
        }
    }

    /// Posts descriptors into free slots (the NIC has read every slot below `consumer`).
    fn post(&mut self, rng: &mut Rng, consumer: u32, limit: u32) {
        let size = 1u32 << self.rx_log2;
        while self.producer < limit && self.producer.wrapping_sub(consumer) < size && rng.chance(60)
        {
            let d = descriptor(rng, self.producer);
            let mut b = [0u8; RX_BUF_DESC_LEN];
            d.encode(&mut b);
            let slot = u64::from(self.producer & (size - 1));
            self.write(RX_RING + slot * RX_BUF_DESC_LEN as u64, &b);
            self.posted.push_back((self.producer, d, d.refusal(WINDOW)));
            self.producer += 1;
        }
        if rng.chance(40) {
            self.doorbell = self.producer;
        }
    }

    /// The oldest posted buffer the NIC may be writing (refused descriptors passed over):
    /// its place in `posted`, its index, the descriptor.
    fn oldest(&self, consumer: u32) -> Option<(usize, u32, RxBufDescriptor)> {
        self.posted
            .iter()
            .enumerate()
            .find(|(_, p)| p.2.is_none())
            .filter(|(_, p)| p.0 < consumer)
            .map(|(at, p)| (at, p.0, p.1))
    }

    /// Checks an `ERROR` for a refused descriptor and forgets the descriptor.
    fn refused(&mut self, c: &Completion, consumer: u32) -> Result<(), String> {
        let Event::Error {
            ring: ErrorRing::RxBuf,
            index,
            cookie,
        } = c.event
        else {
            return Err(format!("not a refusal: {c}"));
        };
        let at = self
            .posted
            .iter()
            .position(|p| p.0 == index && p.0 < consumer)
            .ok_or_else(|| format!("refusal of descriptor {index}, not fetched or posted: {c}"))?;
        let (_, d, why) = self.posted[at];
        if why != Some(c.status) || cookie != u64::from(d.buffer_id) || c.rpc_id != 0 {
            return Err(format!(
                "refusal {c} for descriptor {index} ({d}), want status {why:?}"
            ));
        }
        self.posted.remove(at);
        Ok(())
    }

    /// Checks one write beat and applies it.
    fn take_write(&mut self, w: &DmaWrite, consumer: u32) -> Result<(), String> {
        let cq_size = self.cq.size();
        let slot_addr = CQ_RING + 64 * u64::from(self.cq.wrap(self.cq_written));
        if w.addr == slot_addr && (w.keep == u64::MAX >> 1 || w.keep == 1 << 63) {
            if self.cq_written.wrapping_sub(self.cq.consumer()) >= cq_size {
                return Err(format!(
                    "completion {} written over an entry the host has not read ({})",
                    self.cq_written,
                    self.cq.consumer()
                ));
            }
            let phase = u8::from(self.cq.phase(self.cq_written));
            match (self.cq_body, w.keep == 1 << 63) {
                (false, false) => self.cq_body = true,
                (true, true) if w.data[63] == phase => {
                    self.cq_body = false;
                    self.cq_written += 1;
                }
                _ => {
                    return Err(format!(
                        "completion {}: write keep {:#x} byte 63 {} (body in: {}, phase {phase})",
                        self.cq_written, w.keep, w.data[63], self.cq_body
                    ));
                }
            }
        } else {
            // Payload: every byte inside a buffer fetched and not yet returned.
            let held: Vec<RxBufDescriptor> = self
                .posted
                .iter()
                .filter(|p| p.2.is_none() && p.0 < consumer)
                .map(|p| p.1)
                .collect();
            for (addr, _) in w.bytes() {
                let inside = held
                    .iter()
                    .any(|d| addr >= d.iova && addr - d.iova < u64::from(d.length));
                if !inside {
                    return Err(format!(
                        "write to {addr:#x} (beat at {:#x}, keep {:#x}) outside every held buffer",
                        w.addr, w.keep
                    ));
                }
            }
        }
        let bytes: Vec<(u64, u8)> = w.bytes().collect();
        for (addr, b) in bytes {
            self.memory.insert(addr, b);
        }
        Ok(())
    }

    /// The next completion, if its phase byte is in.
    fn poll(&mut self) -> Result<Option<Completion>, String> {
        let index = self.cq.consumer();
        let at = CQ_RING + 64 * u64::from(self.cq.wrap(index));
        let bytes: [u8; COMPLETION_LEN] = self
            .read(at, COMPLETION_LEN)
            .try_into()
            .expect("64 bytes read");
        if Completion::phase_of(&bytes) != self.cq.phase(index) {
            return Ok(None);
        }
        self.cq
            .advance_producer_to(index.wrapping_add(1))
            .and_then(|_| self.cq.pop())
            .map_err(|e| e.to_string())?;
        Completion::decode(&bytes)
            .map(Some)
            .map_err(|e| format!("completion {index}: {e}"))
    }
}

/// Runs `frames` random packets through `dut` and checks everything in the module doc.
pub fn run<D: HostRxPorts>(dut: &mut D, seed: u64, frames: u64) -> Result<HostStats, String> {
    let fail = |m: String| format!("seed {seed:#x}: {m}");
    let mut rng = Rng::new(seed);
    let all: Vec<Frame> = (0..frames).map(|n| frame(&mut rng, n)).collect();
    let by_id: HashMap<u64, usize> = all
        .iter()
        .enumerate()
        .map(|(i, f)| (f.header.sender_id ^ 1, i))
        .collect();
    let mut pay_queue: VecDeque<(usize, Beat)> = VecDeque::new();
    for (i, f) in all.iter().enumerate() {
        pay_queue.extend(beats_of(f, 64).into_iter().map(|b| (i, b)));
    }
    // The cycle budget, fixed from the start: 60 per packet and per payload beat.
    let budget = 60 * (frames + pay_queue.len() as u64) + 200_000;
    let rx_log2 = 1 + rng.below(6) as u8;
    let cq_log2 = 1 + rng.below(5) as u8;
    let mut host = Host {
        memory: HashMap::new(),
        rx_log2,
        posted: VecDeque::new(),
        producer: 0,
        doorbell: 0,
        cq: RingState::new(cq_log2).map_err(|e| fail(e.to_string()))?,
        cq_written: 0,
        cq_body: false,
    };
    let mut reads: VecDeque<(u64, u64, u16)> = VecDeque::new();
    let mut next_header = 0usize;
    let mut last_completed: Option<usize> = None;
    let mut stats = HostStats::default();
    let (mut drought, mut quiet) = (0u64, 0u64);
    let mut counters = HostCounters::default();
    // TX refusals: offered (one every ~100 cycles), then taken and awaited in the ring.
    let mut tx_offer: VecDeque<TxRefusal> = VecDeque::new();
    let mut tx_taken: VecDeque<TxRefusal> = VecDeque::new();
    let mut tx_index = 0u32;
    // TX_DONE reports, the same way.
    let (mut done_offer, mut done_taken) = (VecDeque::<TxDone>::new(), VecDeque::<TxDone>::new());
    let mut dones = 0u64;
    // GRANT reports, the same way (in bursts: a decision grants several messages).
    let (mut gnt_offer, mut gnt_taken) = (
        VecDeque::<GrantReport>::new(),
        VecDeque::<GrantReport>::new(),
    );
    let mut grants = 0u64;
    dut.reset();
    let mut clear = true;
    while next_header < all.len() || !pay_queue.is_empty() || quiet < 400 {
        if rng.below(100) == 0 && next_header < all.len() {
            tx_offer.push_back(TxRefusal {
                status: [
                    Status::BadDescriptor,
                    Status::MessageTooLong,
                    Status::OutOfBounds,
                ][rng.below(3) as usize] as u8,
                index: tx_index,
                rpc_id: rng.next_u64(),
                cookie: rng.next_u64(),
            });
            tx_index += 1;
        }
        if rng.below(80) == 0 && next_header < all.len() {
            done_offer.push_back(TxDone {
                rpc_id: rng.next_u64(),
                length: rng.next_u64() as u32,
                cookie: rng.next_u64(),
            });
            dones += 1;
        }
        if rng.below(60) == 0 && next_header < all.len() {
            for _ in 0..1 + rng.below(4) {
                gnt_offer.push_back(GrantReport {
                    rpc_id: rng.next_u64(),
                    peer: rng.next_u64() as u32,
                    local_port: rng.next_u64() as u16,
                    peer_port: rng.next_u64() as u16,
                    offset: rng.next_u64() as u32,
                    priority: rng.below(8) as u8,
                });
                grants += 1;
            }
        }
        stats.cycles += 1;
        // Stuck: nothing moved for far longer than any drought or read takes; or, moving,
        // far slower than the frames' beats allow (a livelock).
        if (quiet > STALL_CYCLES && (next_header < all.len() || !pay_queue.is_empty()))
            || stats.cycles > budget
        {
            return Err(fail(format!(
                "no progress: {} cycles, {quiet} of them idle, budget {budget} (header \
                 {next_header} of {}, {} beats left, {counters:?})",
                stats.cycles,
                all.len(),
                pay_queue.len()
            )));
        }
        while next_header < all.len() && all[next_header].bad {
            next_header += 1;
        }
        // Buffers, with droughts (payloads then drop for want of one).
        if drought > 0 {
            drought -= 1;
        } else if rng.below(500) == 0 {
            drought = rng.below(400);
        } else {
            host.post(&mut rng, counters.rx_consumer, u32::MAX);
        }
        // The read server: in order, after its latency, from memory as it is then.
        let resp = match reads.front() {
            Some(&(due, addr, len)) if due <= stats.cycles => {
                reads.pop_front();
                let mut data = [0x5au8; 64];
                data[..usize::from(len)].copy_from_slice(&host.read(addr, usize::from(len)));
                Some(data)
            }
            _ => None,
        };
        let payload_sent =
            |i: usize, q: &VecDeque<(usize, Beat)>| q.front().is_none_or(|(f, _)| *f > i);
        let header =
            (next_header < all.len() && payload_sent(next_header, &pay_queue) && rng.chance(80))
                .then(|| &all[next_header].header);
        let beat_ahead = pay_queue
            .front()
            .is_some_and(|(f, _)| *f <= next_header + 4);
        let beat = (beat_ahead && rng.chance(85)).then(|| &pay_queue[0].1);
        let offer = HostOffer {
            rx_base: RX_RING,
            rx_log2,
            rx_producer: host.doorbell,
            cq_base: CQ_RING,
            cq_log2,
            cq_consumer: host.cq.consumer(),
            clear,
            rx_window: WINDOW,
            beat,
            header,
            rd_ready: rng.chance(70),
            resp,
            wr_ready: rng.chance(80),
            txerr: tx_offer.front().copied(),
            txdone: done_offer.front().copied(),
            grant: gnt_offer.front().copied().filter(|_| rng.chance(90)),
        };
        clear = false;
        let a = dut.drive(&offer);
        let mut busy = resp.is_some()
            || !reads.is_empty()
            || !tx_taken.is_empty()
            || !done_taken.is_empty()
            || !gnt_taken.is_empty()
            || !gnt_offer.is_empty();
        if a.txerr_ready && offer.txerr.is_some() {
            tx_taken.extend(tx_offer.pop_front());
            busy = true;
        }
        if a.txdone_ready && offer.txdone.is_some() {
            done_taken.extend(done_offer.pop_front());
            busy = true;
        }
        if a.grant_ready && offer.grant.is_some() {
            gnt_taken.extend(gnt_offer.pop_front());
            busy = true;
        }
        if let Some((addr, len)) = a.rd.filter(|_| offer.rd_ready) {
            let size = 1u64 << rx_log2;
            let end = RX_RING + size * RX_BUF_DESC_LEN as u64;
            if addr < RX_RING || addr + u64::from(len) > end || len == 0 || len > 64 {
                return Err(fail(format!("read {addr:#x}+{len} outside the RX ring")));
            }
            reads.push_back((stats.cycles + 5 + rng.below(60), addr, len));
            busy = true;
        }
        if let Some(w) = a.wr.as_ref().filter(|_| offer.wr_ready) {
            host.take_write(w, counters.rx_consumer).map_err(&fail)?;
            busy = true;
        }
        if a.pay_ready && beat.is_some() {
            pay_queue.pop_front();
            busy = true;
        }
        if a.hdr_ready && header.is_some() {
            next_header += 1;
            busy = true;
        }
        dut.edge();
        counters = dut.counters();
        // The host reads its completions at its own pace.
        while rng.chance(70) {
            let Some(c) = host.poll().map_err(&fail)? else {
                break;
            };
            stats.completions += 1;
            busy = true;
            if let Event::Error {
                ring: ErrorRing::Tx,
                ..
            } = c.event
            {
                let want = tx_taken
                    .pop_front()
                    .ok_or_else(|| fail(format!("a TX refusal never offered: {c}")))?
                    .completion();
                if (Completion { phase: false, ..c }) != want {
                    return Err(fail(format!("TX refusal:\n  got  {c}\n  want {want}")));
                }
                stats.tx_refused += 1;
                continue;
            }
            if let Event::TxDone { .. } = c.event {
                let want = done_taken
                    .pop_front()
                    .ok_or_else(|| fail(format!("a TX_DONE never offered: {c}")))?
                    .completion();
                if (Completion { phase: false, ..c }) != want {
                    return Err(fail(format!("TX_DONE:\n  got  {c}\n  want {want}")));
                }
                stats.tx_done += 1;
                continue;
            }
            if let Event::GrantSent { .. } = c.event {
                let want = gnt_taken
                    .pop_front()
                    .ok_or_else(|| fail(format!("a GRANT report never offered: {c}")))?
                    .completion();
                if (Completion { phase: false, ..c }) != want {
                    return Err(fail(format!("GRANT_SENT:\n  got  {c}\n  want {want}")));
                }
                stats.grants_sent += 1;
                continue;
            }
            if matches!(c.status, Status::BadDescriptor | Status::OutOfBounds) {
                host.refused(&c, counters.rx_consumer).map_err(&fail)?;
                stats.refused += 1;
                continue;
            }
            let f = *by_id
                .get(&c.rpc_id)
                .ok_or_else(|| fail(format!("completion for no packet: {c}")))?;
            let control = all[f].header.ptype != DATA;
            if last_completed.is_some_and(|l| l >= f)
                || all[f].bad
                || (all[f].payload.is_empty() && !control)
            {
                return Err(fail(format!(
                    "completion for packet {f} after packet {last_completed:?} (bad {}, {} bytes)",
                    all[f].bad,
                    all[f].payload.len()
                )));
            }
            last_completed = Some(f);
            if control {
                // No buffer: the completion is the packet.
                let want = control_completion(&all[f].header);
                if (Completion { phase: false, ..c }) != want {
                    return Err(fail(format!("packet {f}:\n  got  {c}\n  want {want}")));
                }
                stats.control += 1;
                continue;
            }
            let (at, index, buffer) = host
                .oldest(counters.rx_consumer)
                .ok_or_else(|| fail(format!("packet {f}: a completion with no buffer out: {c}")))?;
            let h = &all[f].header;
            let payload = &all[f].payload;
            let got = host.read(buffer.iova, payload.len().min(buffer.length as usize));
            let want = if payload.len() <= buffer.length as usize {
                rx_data_completion(h, buffer.buffer_id)
            } else {
                stats.too_small += 1;
                Completion {
                    rpc_id: h.sender_id ^ 1,
                    status: Status::BufferTooSmall,
                    event: Event::Error {
                        ring: ErrorRing::RxBuf,
                        index,
                        cookie: u64::from(buffer.buffer_id),
                    },
                    phase: false,
                }
            };
            if (Completion { phase: false, ..c }) != want {
                return Err(fail(format!(
                    "packet {f}, buffer {index}:\n  got  {c}\n  want {want}"
                )));
            }
            if got[..] != payload[..got.len()] {
                return Err(fail(format!(
                    "packet {f}: buffer {index} does not hold its payload"
                )));
            }
            host.posted.remove(at);
        }
        quiet = if busy { 0 } else { quiet + 1 };
    }
    // Everything accounted for.
    let with_payload = all.iter().filter(|f| !f.payload.is_empty()).count() as u64;
    let bad = all.iter().filter(|f| f.bad).count() as u32;
    let empty = all
        .iter()
        .filter(|f| f.payload.is_empty() && f.header.ptype == DATA)
        .count() as u32;
    let control = all.iter().filter(|f| f.header.ptype != DATA).count() as u64;
    let c = counters;
    let completed = u64::from(c.rx_data) + u64::from(c.rx_errors);
    // A refusal waits for the good descriptors fetched before it to be used; none may be
    // left unreported ahead of every buffer still out.
    let refused_left = host
        .posted
        .iter()
        .take_while(|p| p.2.is_some())
        .filter(|p| p.0 < c.rx_consumer)
        .count();
    // Every good payload is completed or dropped for want of a buffer; `no_buffer` also
    // counts bad frames that found no buffer, `bad_frames` every bad frame.
    let good = with_payload - u64::from(bad);
    let accounted = completed + u64::from(c.no_buffer);
    if stats.completions
        != completed
            + stats.refused
            + stats.control
            + stats.tx_refused
            + stats.tx_done
            + stats.grants_sent
        || !tx_offer.is_empty()
        || !tx_taken.is_empty()
        || !done_offer.is_empty()
        || !done_taken.is_empty()
        || stats.tx_done != dones
        || !gnt_offer.is_empty()
        || !gnt_taken.is_empty()
        || stats.grants_sent != grants
        || stats.tx_refused != u64::from(tx_index)
        || stats.control != control
        || u64::from(c.cq_producer) != stats.completions
        || u64::from(c.bad_descriptors) != stats.refused
        || refused_left != 0
        || accounted < good
        || accounted > good + u64::from(bad)
        || c.empty != empty
        || c.bad_frames != bad
        || u64::from(c.rx_errors) != stats.too_small
        || c.cq_dropped != 0
    {
        return Err(fail(format!(
            "accounts: host read {} completions ({} too small, {} refused descriptors, {} \
             refused and unreported, {} control, {} of {tx_index} TX refusals, {} of {dones} \
             TX_DONEs, {} of {grants} GRANT_SENTs); {} packets \
             with payload, {bad} bad, {empty} empty, {control} control; counters {c:?}",
            stats.completions,
            stats.too_small,
            stats.refused,
            refused_left,
            stats.control,
            stats.tx_refused,
            stats.tx_done,
            stats.grants_sent,
            with_payload
        )));
    }
    stats.counters = c;
    Ok(stats)
}
