//! [`RtlNic`]: the Verilated NIC core driven cycle by cycle from frames that arrive on the
//! fabric, its DMA ports served from host memory and its register bus from the host's PCIe
//! transactions. The host side is not here: a driver reaches this NIC through
//! [`NicDevice`](super::NicDevice), like any other `Device`.

use super::{NicCounters, NicError, NicEvent, NicOutput, NicTiming};
use crate::rtl::nic_core::{NicCore, new_core};
use crate::rtl::words_from_le_bytes;
use crate::time::Ps;
use homa_driver::MemDevice;
// The lane of a payload read response's first byte, as the core's DATA framer takes it.
use homa_hw::data_framer::payload_lane;
use homa_proto::wire::{Body, ChecksumCapabilities, FrameRepr, LinkType};
use std::collections::VecDeque;
use std::sync::Arc;

/// Cycles without any transfer, and without work on the grant path (the core's
/// `m_trace_grant_busy`: events queued, an event or a decision under way), after which a core
/// with nothing queued is idle: longer than the silent path from a frame's last beat to its
/// event in the grant generator's queue (the parser and the message table, about 20 cycles).
const DRAIN_CYCLES: u32 = 32;

/// The same after host activity alone (a doorbell, a descriptor read, a completion polled):
/// what it starts shows within a few cycles (a read request, a completion written).
const HOST_DRAIN_CYCLES: u32 = 8;

/// Bytes the MAC's receive FIFO holds in front of the core (a 100 Gb/s MAC buffers some tens
/// to hundreds of KiB); a frame that finds it full is dropped.
const MAC_RX_FIFO: usize = 128 * 1024;

/// Cycles a new NIC may run to settle after the driver's init (fetching its first RX buffer
/// descriptors takes a few PCIe round trips).
const PRIME_CYCLES: u64 = 20_000;

/// The descriptor read channels.
enum ReadChannel {
    /// RX buffer descriptors (`m_dma_rd_*`).
    Rx,
    /// TX descriptors (`m_dma_txrd_*`).
    Tx,
}

/// A posted write from the host.
#[derive(Debug, Clone, Copy)]
enum HostWrite {
    /// A register write on the core's register bus.
    Reg { address: u64, value: u32 },
    /// A 64-byte push into on-chip memory (`hostif::onchip`): its word (BAR0 offset / 64).
    Push { word: u16, data: [u32; 16] },
}

/// One host's NIC: the Verilated `homa_nic_core_w512` (or `homa_nic_core_w64`) and the
/// state around its streams.
pub struct RtlNic {
    core: Box<dyn NicCore>,
    /// Bytes a beat on the core's MAC and DMA ports.
    beat: usize,
    /// Host memory: the driver allocates its rings and buffers here; the core's DMA reads
    /// and writes it.
    memory: Arc<MemDevice>,
    /// DMA reads in flight: (cycle the data is back, address, bytes).
    reads: VecDeque<(u64, u64, usize)>,
    /// The same on the TX descriptor read channel.
    tx_reads: VecDeque<(u64, u64, usize)>,
    /// The same on the payload read channel (the transmit engine's), and the beats of the
    /// front read already delivered.
    pay_reads: VecDeque<(u64, u64, usize)>,
    pay_beat: usize,
    /// Beats of the front read already delivered on the RX and TX descriptor channels.
    rd_beat: usize,
    txrd_beat: usize,
    /// DMA writes on their way to host memory: (time they land, address, bytes).
    posted: VecDeque<(Ps, u64, Vec<u8>)>,
    /// One-way PCIe latency in cycles.
    pcie_cycles: u64,
    period: Ps,
    /// The NIC's time: the last clock edge simulated or skipped, in cycles.
    cycle: u64,
    /// Posted writes from the host (register writes and pushes), with the cycle they reach
    /// the core, in the order the host made them.
    writes: VecDeque<(u64, HostWrite)>,
    /// A register read from the host on the bus this cycle, and its answer.
    bus_read: Option<u32>,
    bus_answer: Option<u32>,
    /// The cycle before which the host can issue nothing (it waits for a read's answer).
    host_ready: u64,
    /// Outputs of edges clocked ahead of the caller's time (to serve a register read),
    /// handed on by the next `run_until`.
    ahead: Vec<(Ps, NicOutput)>,
    /// Frames from the wire not yet offered, with their arrival cycle.
    inbox: VecDeque<(u64, Vec<u8>)>,
    /// Bytes in `inbox` (the MAC's receive FIFO, with what is left of `feeding`).
    inbox_bytes: usize,
    /// The frame on `s_axis` and the offset of its next beat.
    feeding: Option<(Vec<u8>, usize)>,
    /// Frame (GRANT or DATA) being collected from `m_axis`.
    frame_out: Vec<u8>,
    quiet: u32,
    /// Quiet cycles that make the core idle: [`DRAIN_CYCLES`] after frame traffic,
    /// [`HOST_DRAIN_CYCLES`] after host traffic alone.
    drain: u32,
    counters: NicCounters,
    /// What happened when, if traced ([`RtlNic::set_tracing`]).
    trace: Option<Vec<(Ps, NicEvent)>>,
    /// Byte address of QUEUE.tx_producer (the TX doorbell), for the trace.
    tx_doorbell: u64,
    /// Every DMA write that landed in host memory, (address, bytes), if logged
    /// ([`RtlNic::set_dma_log`]).
    dma_log: Option<Vec<(u64, usize)>>,
}

impl std::fmt::Debug for RtlNic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RtlNic")
            .field("cycle", &self.cycle)
            .field("inbox", &self.inbox.len())
            .field("counters", &self.counters)
            .finish_non_exhaustive()
    }
}

fn address(block: &'static str, name: &str) -> Result<u64, NicError> {
    homa_proto::regs::block(block)
        .and_then(|b| b.address(name))
        .map(u64::from)
        .ok_or_else(|| NicError::NoRegister {
            block,
            name: name.to_string(),
        })
}

/// Whether the host side takes the core's outputs: frames, DMA requests and writes.
fn set_ports_ready(core: &mut dyn NicCore, ready: u64) {
    core.set_m_axis_tready(ready);
    core.set_m_dma_rd_ready(ready);
    core.set_m_dma_wr_ready(ready);
    core.set_m_dma_txrd_ready(ready);
    core.set_m_dma_payrd_ready(ready);
}

impl RtlNic {
    /// A NIC just out of reset, with empty host memory: nothing is configured until a driver
    /// does it through a [`NicDevice`](super::NicDevice). The core is the one of
    /// `timing.beat_bytes` (8 or 64; [`NicError::BeatWidth`] otherwise).
    pub fn new(timing: NicTiming) -> Result<Self, NicError> {
        let beat = timing.beat_bytes as usize;
        let mut core = new_core(beat).ok_or(NicError::BeatWidth(timing.beat_bytes))?;
        core.reset(2);
        set_ports_ready(core.as_mut(), 1);
        let period = timing.period_ps();
        Ok(RtlNic {
            core,
            beat,
            memory: Arc::new(MemDevice::new()),
            reads: VecDeque::new(),
            tx_reads: VecDeque::new(),
            pay_reads: VecDeque::new(),
            pay_beat: 0,
            rd_beat: 0,
            txrd_beat: 0,
            posted: VecDeque::new(),
            pcie_cycles: timing.pcie_ps().div_ceil(period),
            period,
            cycle: 0,
            writes: VecDeque::new(),
            bus_read: None,
            bus_answer: None,
            host_ready: 0,
            ahead: Vec::new(),
            inbox: VecDeque::new(),
            inbox_bytes: 0,
            feeding: None,
            frame_out: Vec::new(),
            quiet: DRAIN_CYCLES,
            drain: DRAIN_CYCLES,
            counters: NicCounters::default(),
            trace: None,
            tx_doorbell: address("QUEUE", "tx_producer").unwrap_or(u64::MAX),
            dma_log: None,
        })
    }

    /// Bytes a beat on the core's MAC and DMA ports (64 or 8).
    pub fn beat_bytes(&self) -> usize {
        self.beat
    }

    /// Records (or stops recording) what the NIC does and when ([`NicEvent`]), for a
    /// breakdown of where a packet's time goes.
    pub fn set_tracing(&mut self, on: bool) {
        self.trace = on.then(Vec::new);
    }

    /// The events recorded since the last call, in time order of their recording.
    pub fn take_trace(&mut self) -> Vec<(Ps, NicEvent)> {
        self.trace.as_mut().map(std::mem::take).unwrap_or_default()
    }

    fn note(&mut self, at: Ps, e: NicEvent) {
        if let Some(t) = &mut self.trace {
            t.push((at, e));
        }
    }

    /// After the driver's init: runs until the NIC settles (it fetches its first RX buffer
    /// descriptors, as a NIC does between the driver's init and the first packet), with every
    /// write it made shown to the host, then restarts the NIC's clock and cycle count at 0.
    /// That happens before time 0.
    pub fn prime(&mut self) {
        let mut out = Vec::new();
        let until = (self.cycle + PRIME_CYCLES) * self.period;
        self.quiet = 0;
        self.run_until(until, &mut out);
        self.show_host(Ps::MAX);
        self.cycle = 0;
        self.host_ready = 0;
        self.counters.cycles = 0;
    }

    /// A posted register write from the host at `at` (a doorbell, a configuration register):
    /// it reaches the core's register bus one PCIe latency later, after the host's earlier
    /// writes, one per cycle.
    pub fn host_write(&mut self, at: Ps, offset: u32, value: u32) {
        self.counters.bus_writes += 1;
        let address = u64::from(offset);
        self.post(at, HostWrite::Reg { address, value });
    }

    /// A push of whole 64-byte words into on-chip memory from the host at `at` (write-combined
    /// stores at BAR0 `offset`, checked by the caller with `onchip::push_fits`): posted like
    /// a register write, one word per cycle, in order with the host's other writes.
    pub fn host_push(&mut self, at: Ps, offset: u32, data: &[u8]) {
        for (k, chunk) in data.chunks(64).enumerate() {
            let word = (offset as usize / 64 + k) as u16;
            let data: [u32; 16] = words_from_le_bytes(chunk).unwrap_or([0; 16]);
            self.counters.pushes += 1;
            self.post(at, HostWrite::Push { word, data });
        }
    }

    /// Queues a posted write: it reaches the core one PCIe latency after it is issued, after
    /// the host's earlier writes.
    fn post(&mut self, at: Ps, write: HostWrite) {
        let issued = at.div_ceil(self.period).max(self.host_ready);
        if self.is_idle() {
            self.cycle = self.cycle.max(issued);
        }
        let last = self.writes.back().map_or(0, |w| w.0);
        let arrival = (issued.max(self.cycle) + self.pcie_cycles).max(last);
        self.writes.push_back((arrival, write));
    }

    /// A register read from the host at `at`. The host waits a PCIe round trip for the
    /// answer: it issues nothing before then (its later writes reach the bus after that).
    /// The answer is the register's value at the NIC's next clock edge (the core is clocked
    /// that one edge here, ahead of the caller's time if need be: what it outputs comes out
    /// of the next [`run_until`](Self::run_until)); a read does not wait for the host's
    /// earlier writes to land, so an index it reads may be a little old, never ahead.
    pub fn host_read(&mut self, at: Ps, offset: u32) -> u32 {
        let issued = at.div_ceil(self.period).max(self.host_ready);
        if self.is_idle() {
            self.cycle = self.cycle.max(issued);
        }
        let mut ahead = std::mem::take(&mut self.ahead);
        self.bus_read = Some(offset);
        // A write due this edge goes first: clock until the read is on the bus.
        while self.bus_read.is_some() {
            self.cycle += 1;
            self.clock(self.cycle * self.period, &mut ahead);
        }
        self.ahead = ahead;
        self.counters.bus_reads += 1;
        self.host_ready = issued + 2 * self.pcie_cycles;
        // The bus answers a read the cycle it is issued.
        self.bus_answer.take().unwrap_or(u32::MAX)
    }

    /// Until when the host waits for the answer of its last register read, ps.
    pub fn host_busy_until(&self) -> Ps {
        self.host_ready * self.period
    }

    /// Shows the host every DMA write that has landed by `until`.
    pub fn show_host(&mut self, until: Ps) {
        while self.posted.front().is_some_and(|(t, _, _)| *t <= until) {
            let (_, addr, bytes) = self.posted.pop_front().expect("peeked");
            if let Some(log) = &mut self.dma_log {
                log.push((addr, bytes.len()));
            }
            if self.memory.dma_write(addr, &bytes).is_err() {
                self.counters.dma_faults += 1;
            }
        }
    }

    /// Logs (or stops logging) every DMA write as it lands in host memory: where the NIC
    /// wrote, for tests that check it wrote nowhere else.
    pub fn set_dma_log(&mut self, on: bool) {
        self.dma_log = on.then(Vec::new);
    }

    /// The DMA writes logged since the last call: (address, bytes), in landing order.
    pub fn take_dma_log(&mut self) -> Vec<(u64, usize)> {
        self.dma_log
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// When the next DMA write lands in host memory (a payload, a completion), if any is on
    /// its way: when the host has something new to see.
    pub fn next_landing(&self) -> Option<Ps> {
        self.posted.front().map(|p| p.0)
    }

    /// Reads a register over the core's bus outside time (one cycle, not counted as NIC
    /// time): for reports and tests, not for a host (see [`host_read`](Self::host_read)).
    /// That cycle stalls every port: no input is offered (the last edge's beat, write or
    /// DMA answer is not taken twice) and no output is taken (none is lost).
    pub fn read_register(&mut self, block: &'static str, name: &str) -> Result<u32, NicError> {
        let address = address(block, name)?;
        set_ports_ready(self.core.as_mut(), 0);
        self.core.set_s_axis_tvalid(0);
        self.core.set_s_push_valid(0);
        self.core.set_s_dma_rd_valid(0);
        self.core.set_s_dma_txrd_valid(0);
        self.core.set_s_dma_payrd_valid(0);
        self.core.set_s_reg_we(0);
        self.core.set_s_reg_addr(address);
        self.core.set_s_reg_re(1);
        self.core.tick();
        self.core.set_s_reg_re(0);
        set_ports_ready(self.core.as_mut(), 1);
        Ok(self.core.get_m_reg_rdata() as u32)
    }

    /// What the NIC counted.
    pub fn counters(&self) -> NicCounters {
        self.counters
    }

    /// The host memory the core's DMA reads and writes (the driver's rings and buffers live
    /// in it; a host places the payloads of the messages it sends here).
    pub fn memory(&self) -> &Arc<MemDevice> {
        &self.memory
    }

    /// A frame from the wire reaches the NIC at `at`. `false` if the MAC's receive FIFO had
    /// no room for it (dropped and counted).
    pub fn receive(&mut self, at: Ps, frame: Vec<u8>) -> bool {
        let arrival = at.div_ceil(self.period);
        if self.is_idle() {
            self.cycle = self.cycle.max(arrival);
        }
        self.counters.frames_in += 1;
        let unfed = self
            .feeding
            .as_ref()
            .map_or(0, |(f, pos)| f.len().saturating_sub(*pos));
        if self.inbox_bytes + unfed + frame.len() > MAC_RX_FIFO {
            self.counters.mac_drops += 1;
            return false;
        }
        self.inbox_bytes += frame.len();
        self.inbox.push_back((arrival.max(self.cycle), frame));
        true
    }

    fn is_idle(&self) -> bool {
        self.inbox.is_empty()
            && self.feeding.is_none()
            && self.writes.is_empty()
            && self.reads.is_empty()
            && self.tx_reads.is_empty()
            && self.pay_reads.is_empty()
            && self.quiet >= self.drain
    }

    /// When the NIC's next clock edge is due (or an output clocked ahead is handed on), if it
    /// has anything to do.
    pub fn next_edge(&self) -> Option<Ps> {
        let ahead = self.ahead.iter().map(|(t, _)| *t).min();
        if self.is_idle() {
            return ahead;
        }
        let due = [
            self.inbox.front().map(|(a, _)| *a),
            self.writes.front().map(|(a, _)| *a),
            self.reads.front().map(|(a, _, _)| *a),
            self.tx_reads.front().map(|(a, _, _)| *a),
            self.pay_reads.front().map(|(a, _, _)| *a),
        ]
        .into_iter()
        .flatten()
        .min();
        let next = match (&self.feeding, due) {
            // Nothing in the core and the next input later: skip to it.
            (None, Some(arrival)) if self.quiet >= self.drain => arrival.max(self.cycle + 1),
            _ => self.cycle + 1,
        };
        let edge = next * self.period;
        Some(ahead.map_or(edge, |a| a.min(edge)))
    }

    /// Clocks every edge due at or before `until`; outputs go to `out` with their time.
    pub fn run_until(&mut self, until: Ps, out: &mut Vec<(Ps, NicOutput)>) {
        if !self.ahead.is_empty() {
            let (due, later): (Vec<_>, Vec<_>) =
                self.ahead.drain(..).partition(|(t, _)| *t <= until);
            out.extend(due);
            self.ahead = later;
        }
        while let Some(edge) = self.next_edge() {
            if edge > until || (self.is_idle() && !self.ahead.is_empty()) {
                break;
            }
            self.cycle = edge / self.period;
            self.clock(edge, out);
        }
    }

    /// One clock edge at `at`: offer the next beat, take every output, tick.
    fn clock(&mut self, at: Ps, out: &mut Vec<(Ps, NicOutput)>) {
        if self.feeding.is_none()
            && self.inbox.front().is_some_and(|(a, _)| *a <= self.cycle)
            && let Some((_, frame)) = self.inbox.pop_front()
        {
            self.inbox_bytes -= frame.len();
            self.feeding = Some((frame, 0));
        }
        let mut busy = false;
        // One register transaction per cycle from the host: a write due, else a read.
        let mut reading = false;
        self.core.set_s_push_valid(0);
        match self.writes.front() {
            Some(&(due, HostWrite::Reg { address, value })) if due <= self.cycle => {
                self.writes.pop_front();
                if address == self.tx_doorbell {
                    self.note(at, NicEvent::TxDoorbell);
                }
                self.core.set_s_reg_addr(address);
                self.core.set_s_reg_wdata(u64::from(value));
                self.core.set_s_reg_we(1);
                self.core.set_s_reg_re(0);
                busy = true;
            }
            Some(&(due, HostWrite::Push { word, data })) if due <= self.cycle => {
                self.writes.pop_front();
                self.core.set_s_push_valid(1);
                self.core.set_s_push_word(u64::from(word));
                self.core.set_s_push_data(&data);
                self.core.set_s_push_keep(u64::MAX);
                self.core.set_s_reg_we(0);
                self.core.set_s_reg_re(0);
                busy = true;
            }
            _ => {
                self.core.set_s_reg_we(0);
                match self.bus_read.take() {
                    Some(address) => {
                        self.core.set_s_reg_addr(u64::from(address));
                        self.core.set_s_reg_re(1);
                        reading = true;
                    }
                    None => self.core.set_s_reg_re(0),
                }
            }
        }
        busy |= self.dma_response();
        // Every input is set before the first output is read: one evaluation of the model.
        match &self.feeding {
            Some((frame, pos)) => {
                let end = (pos + self.beat).min(frame.len());
                let beat = &frame[*pos..end];
                self.core.set_s_axis_data(beat);
                let keep = if beat.len() == 64 {
                    u64::MAX
                } else {
                    (1u64 << beat.len()) - 1
                };
                self.core.set_s_axis_tkeep(keep);
                self.core.set_s_axis_tvalid(1);
                self.core.set_s_axis_tlast(u64::from(end == frame.len()));
            }
            None => self.core.set_s_axis_tvalid(0),
        }
        let (dma_reads, dma_writes) = self.dma_requests();
        busy |= dma_reads;
        // Frame traffic from here on (DMA writes are payloads and their completions).
        let mut frames = dma_writes;
        if self.feeding.is_some() && self.core.get_s_axis_tready() == 1 {
            frames = true;
            let (frame, pos) = self.feeding.as_mut().expect("checked above");
            *pos += self.beat;
            if *pos >= frame.len() {
                self.feeding = None;
                self.note(at, NicEvent::FrameIn);
            }
        }
        frames |= self.payload_taken();
        frames |= self.core.get_m_trace_grant_busy() == 1;
        if self.core.get_m_axis_tvalid() == 1 {
            frames = true;
            let keep = self.core.get_m_axis_tkeep();
            let bytes = self.core.m_axis_data();
            self.frame_out
                .extend_from_slice(&bytes[..keep.count_ones() as usize]);
            if self.core.get_m_axis_tlast() == 1 {
                let frame = std::mem::take(&mut self.frame_out);
                self.frame_sent(at, frame, out);
            }
        }
        self.core.tick();
        self.counters.cycles += 1;
        if reading {
            self.core.set_s_reg_re(0);
            if self.core.get_m_reg_rvalid() == 1 {
                self.bus_answer = Some(self.core.get_m_reg_rdata() as u32);
            }
        }
        if frames {
            self.drain = DRAIN_CYCLES;
        }
        self.quiet = if busy || frames { 0 } else { self.quiet + 1 };
        if self.quiet >= self.drain {
            self.drain = HOST_DRAIN_CYCLES;
        }
    }

    /// Serves the core's DMA ports for this cycle: read requests are answered from host
    /// memory one PCIe round trip later, in order; write beats land in host memory one PCIe
    /// latency later ([`RtlNic::show_host`]). An access outside the memory the driver
    /// allocated is refused and counted.
    ///
    /// This half drives the read response due this cycle; whether there was one.
    fn dma_response(&mut self) -> bool {
        let pay = match self.pay_reads.front() {
            Some(&(due, addr, len)) if due <= self.cycle => {
                if self.pay_beat == 0 {
                    self.note(self.cycle * self.period, NicEvent::PayloadRead);
                }
                let bytes = self.payload_beat(addr, len, self.pay_beat);
                self.core.set_s_dma_payrd_data(&bytes);
                self.core.set_s_dma_payrd_valid(1);
                true
            }
            _ => {
                self.core.set_s_dma_payrd_valid(0);
                false
            }
        };
        let tx = match self.tx_reads.front() {
            Some(&(due, addr, len)) if due <= self.cycle => {
                let bytes = self.read_beat(addr, len, &ReadChannel::Tx);
                self.core.set_s_dma_txrd_data(&bytes);
                self.core.set_s_dma_txrd_valid(1);
                true
            }
            _ => {
                self.core.set_s_dma_txrd_valid(0);
                false
            }
        };
        pay | tx
            | match self.reads.front() {
                Some(&(due, addr, len)) if due <= self.cycle => {
                    let bytes = self.read_beat(addr, len, &ReadChannel::Rx);
                    self.core.set_s_dma_rd_data(&bytes);
                    self.core.set_s_dma_rd_valid(1);
                    true
                }
                _ => {
                    self.core.set_s_dma_rd_valid(0);
                    false
                }
            }
    }

    /// The next response beat of the descriptor read at the front of `channel` (`len` bytes,
    /// at most 64, of host memory at `addr`: `ceil(len / beat)` beats, beat `k` holding bytes
    /// `beat k..`); the read leaves its queue with its last beat. An access outside the
    /// memory the driver allocated reads zeros and is counted.
    fn read_beat(&mut self, addr: u64, len: usize, channel: &ReadChannel) -> Vec<u8> {
        let len = len.min(64);
        let k = match channel {
            ReadChannel::Rx => self.rd_beat,
            ReadChannel::Tx => self.txrd_beat,
        };
        let lo = (k * self.beat).min(len);
        let hi = (lo + self.beat).min(len);
        let mut data = vec![0u8; self.beat];
        if self
            .memory
            .dma_read(addr.wrapping_add(lo as u64), &mut data[..hi - lo])
            .is_err()
        {
            self.counters.dma_faults += 1;
        }
        let last = hi >= len;
        match channel {
            ReadChannel::Rx => {
                self.rd_beat = if last { 0 } else { k + 1 };
                if last {
                    self.reads.pop_front();
                }
            }
            ReadChannel::Tx => {
                self.txrd_beat = if last { 0 } else { k + 1 };
                if last {
                    self.tx_reads.pop_front();
                    self.note(self.cycle * self.period, NicEvent::DescriptorRead);
                }
            }
        }
        data
    }

    /// Beat `k` of the response to a payload read of `len` bytes at `addr`: payload byte
    /// `i` at lane `payload_lane(beat) + i` of the whole response, zeros around it. An
    /// access outside the memory the driver allocated reads zeros and is counted.
    fn payload_beat(&mut self, addr: u64, len: usize, k: usize) -> Vec<u8> {
        let (w, lane0) = (self.beat, payload_lane(self.beat));
        let mut data = vec![0u8; w];
        // Payload bytes [first, end) land in this beat, from lane `first + lane0 - w k`.
        let first = (w * k).saturating_sub(lane0);
        let end = (w * k + w - lane0).min(len);
        if first < end {
            let lane = first + lane0 - w * k;
            let at = addr.wrapping_add(first as u64);
            if self
                .memory
                .dma_read(at, &mut data[lane..lane + end - first])
                .is_err()
            {
                self.counters.dma_faults += 1;
            }
        }
        data
    }

    /// After the edge's inputs are set: whether the payload beat offered was taken (the
    /// read is done after its last beat).
    fn payload_taken(&mut self) -> bool {
        let Some(&(due, _, len)) = self.pay_reads.front() else {
            return false;
        };
        if due > self.cycle || self.core.get_s_dma_payrd_ready() == 0 {
            return false;
        }
        self.pay_beat += 1;
        if self.pay_beat == (payload_lane(self.beat) + len).div_ceil(self.beat) {
            self.pay_reads.pop_front();
            self.pay_beat = 0;
        }
        true
    }

    /// A whole frame left on `m_axis`: a GRANT (for the wire, reported to the host engine)
    /// or a DATA frame (for the wire). A frame `proto::wire` does not accept is counted.
    fn frame_sent(&mut self, at: Ps, frame: Vec<u8>, out: &mut Vec<(Ps, NicOutput)>) {
        let caps = ChecksumCapabilities::default();
        let kind = FrameRepr::parse(&frame, LinkType::Ethernet, &caps).map(|f| f.homa.body);
        match kind {
            Ok(Body::Grant(_)) => {
                self.counters.grants += 1;
                out.push((at, NicOutput::Grant { frame }));
            }
            Ok(Body::Data(_)) => {
                self.counters.data_frames += 1;
                self.note(at, NicEvent::FrameOut);
                out.push((at, NicOutput::Data { frame }));
            }
            _ => self.counters.parse_mismatches += 1,
        }
    }

    /// The other half, once every input is set: takes the read request and the write beat
    /// offered; whether there was a request, and whether a write.
    fn dma_requests(&mut self) -> (bool, bool) {
        let (mut reads, mut writes) = (false, false);
        if self.core.get_m_dma_txrd_valid() == 1 {
            let len = (self.core.get_m_dma_txrd_len() as usize).min(64);
            let due = self.cycle + 2 * self.pcie_cycles;
            self.tx_reads
                .push_back((due, self.core.get_m_dma_txrd_addr(), len));
            reads = true;
        }
        if self.core.get_m_dma_payrd_valid() == 1 {
            let len = self.core.get_m_dma_payrd_len() as usize;
            let due = self.cycle + 2 * self.pcie_cycles;
            self.pay_reads
                .push_back((due, self.core.get_m_dma_payrd_addr(), len));
            reads = true;
        }
        if self.core.get_m_dma_rd_valid() == 1 {
            let len = (self.core.get_m_dma_rd_len() as usize).min(64);
            let due = self.cycle + 2 * self.pcie_cycles;
            self.reads
                .push_back((due, self.core.get_m_dma_rd_addr(), len));
            reads = true;
        }
        if self.core.get_m_dma_wr_valid() == 1 {
            // A posted write: in host memory one PCIe crossing later.
            let visible = (self.cycle + self.pcie_cycles) * self.period;
            let addr = self.core.get_m_dma_wr_addr();
            let keep = self.core.get_m_dma_wr_keep();
            let bytes = self.core.m_dma_wr_data();
            // Each run of enabled bytes is one write.
            let mut i = 0;
            while i < self.beat {
                if keep >> i & 1 == 0 {
                    i += 1;
                    continue;
                }
                let start = i;
                while i < self.beat && keep >> i & 1 == 1 {
                    i += 1;
                }
                let at = addr.wrapping_add(start as u64);
                self.posted
                    .push_back((visible, at, bytes[start..i].to_vec()));
                self.note(visible, NicEvent::Landed);
            }
            writes = true;
        }
        (reads, writes)
    }
}
