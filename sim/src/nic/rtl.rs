//! [`RtlNic`]: the Verilated NIC core driven cycle by cycle from frames that arrive on the
//! fabric, its DMA ports served from host memory that the driver's own ring code uses. The
//! host learns of every packet from its completion ring alone (an `RX_DATA` completion and
//! its buffer for DATA, a `CONTROL` completion for the rest), as on a real host.

use super::device::SimDevice;
use super::{NicCounters, NicError, NicOutput, NicTiming};
use crate::rtl::models::HomaNicCoreW512;
use crate::rtl::{words_from_le_bytes, words_to_le_bytes};
use crate::time::Ps;
use bytes::Bytes;
use homa_driver::{Device, MemDevice, Nic, NicConfig, Probe, Received, RingSizes};
// The lane of a payload read response's first byte, as the core's DATA framer takes it.
use homa_hw::data_framer::PAYLOAD_LANE;
use homa_hw::grant::DECISION_CYCLES;
use homa_proto::core::Packet;
use homa_proto::hostif::{
    ACKS_CARRIED, Completion, ErrorRing, Event, RxBufDescriptor, Status, TxDescriptor, TxLimits,
};
use homa_proto::wire::{Acks, Body, ChecksumCapabilities, FrameRepr, LinkType};
use std::collections::VecDeque;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;

/// Cycles without any transfer after which a core with nothing queued is idle: longer than
/// the deepest silent path, frame in to GRANT out (22 cycles, a grant decision taking
/// `DECISION_CYCLES` of them) with four more DATA events queued in the parser and the
/// message table, each waiting for a decision of its own that may grant nothing.
const DRAIN_CYCLES: u32 = 24 + 4 * DECISION_CYCLES as u32;

/// The same after host activity alone (a doorbell, a descriptor read, a completion polled):
/// what it starts shows within a few cycles (a read request, a completion written).
const HOST_DRAIN_CYCLES: u32 = 8;

/// Cycles after its header within which a packet's completion is written (a few cycles: a
/// payload is in its buffer before the header leaves the parser, and completions wait only
/// for the DMA write port); a DATA still without one after this lost its payload (no buffer
/// was posted).
const LOST_CYCLES: u64 = 1024;

/// Cycles a new NIC runs before time 0 to fetch its first RX buffer descriptors (a few
/// PCIe round trips are enough).
const PRIME_CYCLES: u64 = 20_000;

/// Bytes the MAC's receive FIFO holds in front of the core (a 100 Gb/s MAC buffers some tens
/// to hundreds of KiB); a frame that finds it full is dropped.
const MAC_RX_FIFO: usize = 128 * 1024;

/// Completions the host takes per `cq_consumer` write.
const POLL_BATCH: usize = 64;

/// The host's rings: RX buffers of 4 KiB (a whole MTU payload each), 256 of them posted,
/// a completion ring of 1024 entries.
const RINGS: RingSizes = RingSizes {
    tx_log2: 4,
    rx_log2: 8,
    cq_log2: 10,
    rx_buffer_len: 4096,
};

/// One host's NIC: the Verilated `homa_nic_core_w512` and the state around its streams.
pub struct RtlNic {
    core: HomaNicCoreW512,
    /// The host side: the driver's rings and RX buffers over a host-memory model that also
    /// serves the core's DMA; `None` when the host is elsewhere ([`RtlNic::with_driver`]).
    host: Option<Nic<Arc<MemDevice>>>,
    memory: Arc<MemDevice>,
    /// DMA reads in flight: (cycle the data is back, address, bytes).
    reads: VecDeque<(u64, u64, usize)>,
    /// The same on the TX descriptor read channel.
    tx_reads: VecDeque<(u64, u64, usize)>,
    /// The same on the payload read channel (the transmit engine's), and the beats of the
    /// front read already delivered.
    pay_reads: VecDeque<(u64, u64, usize)>,
    pay_beat: usize,
    /// TX descriptors the core refused, as their `ERROR` completions came.
    tx_refused: Vec<Completion>,
    /// The `TX_DONE` completions the host read, in order.
    tx_done: Vec<Completion>,
    /// One-way PCIe latency in cycles.
    pcie_cycles: u64,
    /// Byte address of QUEUE.rx_consumer, mirrored into the host's view.
    rx_consumer: u32,
    /// Byte address of QUEUE.tx_consumer, mirrored too while TX descriptors are posted.
    tx_consumer: u32,
    /// Byte address of QUEUE.tx_producer (the TX doorbell).
    tx_producer: u32,
    /// The last TX doorbell's value (descriptors posted, free-running), and the
    /// `tx_consumer` the host's view holds.
    tx_posted: u32,
    tx_mirrored: u32,
    /// The register the bus reads this cycle.
    reading: u32,
    period: Ps,
    /// The NIC's time: the last clock edge simulated or skipped, in cycles.
    cycle: u64,
    /// Frames from the wire not yet offered, with their arrival cycle.
    inbox: VecDeque<(u64, Vec<u8>)>,
    /// Bytes in `inbox` (the MAC's receive FIFO, with what is left of `feeding`).
    inbox_bytes: usize,
    /// The frame on `s_axis` and the offset of its next beat.
    feeding: Option<(Vec<u8>, usize)>,
    /// Frames taken that `proto::wire` accepts (header, DATA payload), with the cycle of
    /// their last beat, waiting for their completion.
    sent: VecDeque<(FrameRepr<'static>, Bytes, u64)>,
    /// Frame (GRANT or DATA) being collected from `m_axis`.
    frame_out: Vec<u8>,
    quiet: u32,
    /// Quiet cycles that make the core idle: [`DRAIN_CYCLES`] after frame traffic,
    /// [`HOST_DRAIN_CYCLES`] after host traffic alone.
    drain: u32,
    counters: NicCounters,
    /// Descriptors the NIC refused (`ERROR` other than buffer-too-small): buffer id, status.
    refusals: Vec<(u32, Status)>,
    /// Register writes from the host, with the cycle they arrive: (address, value).
    writes: VecDeque<(u64, u64, u32)>,
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

/// A parsed frame with nothing borrowed: the header, and the DATA payload apart (as
/// `Packet` keeps it).
fn owned(frame: &FrameRepr<'_>) -> (FrameRepr<'static>, Bytes) {
    let p = Packet::from_repr(&frame.homa);
    let header = FrameRepr {
        ethernet: frame.ethernet,
        ip: frame.ip,
        homa: p.header,
    };
    (header, p.payload)
}

impl RtlNic {
    /// A NIC reset, probed by the driver's own code through [`SimDevice`] ([`Probe::run`]),
    /// then brought up by the driver's init sequence ([`Nic::init`]: `config`, the rings,
    /// 256 RX buffers of 4 KiB posted) over host memory, its register writes replayed on the
    /// core's bus.
    pub fn new(config: &NicConfig, timing: NicTiming) -> Result<Self, NicError> {
        let (mut nic, host) = Self::with_driver(config, timing)?;
        nic.host = Some(host);
        Ok(nic)
    }

    /// The same NIC with its host elsewhere: the driver's `Nic` over the NIC's host memory is
    /// returned for another layer to use (`homa_host::NicTransport`, on another thread). The
    /// driver's register writes (doorbells) reach the core when [`host_writes`] is called or
    /// the core is clocked; its completions and payloads are in that memory; nothing is
    /// handed on as [`NicOutput::Host`].
    ///
    /// [`host_writes`]: RtlNic::host_writes
    pub fn with_driver(
        config: &NicConfig,
        timing: NicTiming,
    ) -> Result<(Self, Nic<Arc<MemDevice>>), NicError> {
        // The driver's probe over the core's register bus.
        let dev = SimDevice::new();
        Probe::run(&dev)?;
        // The driver's init sequence (configuration, rings, RX buffers posted) against the
        // host memory, its register writes replayed on the core's bus in order.
        let memory = Arc::new(MemDevice::new());
        let host = Nic::init(Arc::clone(&memory), config, &RINGS)?;
        for (offset, value) in memory.take_writes() {
            dev.write32(offset, value)?;
        }
        let mut core = dev.into_core();
        core.set_m_axis_tready(1);
        core.set_m_dma_rd_ready(1);
        core.set_m_dma_wr_ready(1);
        core.set_m_dma_txrd_ready(1);
        core.set_m_dma_payrd_ready(1);
        let period = timing.period_ps();
        let mut nic = RtlNic {
            core,
            host: None,
            memory,
            reads: VecDeque::new(),
            tx_reads: VecDeque::new(),
            pay_reads: VecDeque::new(),
            pay_beat: 0,
            tx_refused: Vec::new(),
            tx_done: Vec::new(),
            pcie_cycles: timing.pcie_ps().div_ceil(period),
            rx_consumer: address("QUEUE", "rx_consumer")? as u32,
            tx_consumer: address("QUEUE", "tx_consumer")? as u32,
            tx_producer: address("QUEUE", "tx_producer")? as u32,
            tx_posted: 0,
            tx_mirrored: 0,
            reading: 0,
            period,
            cycle: 0,
            inbox: VecDeque::new(),
            inbox_bytes: 0,
            feeding: None,
            sent: VecDeque::new(),
            frame_out: Vec::new(),
            quiet: DRAIN_CYCLES,
            drain: DRAIN_CYCLES,
            counters: NicCounters::default(),
            refusals: Vec::new(),
            writes: VecDeque::new(),
        };
        // Until idle: the core fetches its first RX buffer descriptors (one PCIe round trip),
        // as a NIC does between the driver's init and the first packet. That happens before
        // time 0: the NIC's clock and cycle count restart there.
        // (Bounded: a fetcher that never settled would show up as a slow first packet.)
        nic.quiet = 0;
        nic.run_until(PRIME_CYCLES * period, &mut Vec::new());
        nic.cycle = 0;
        nic.counters.cycles = 0;
        Ok((nic, host))
    }

    /// The host's register writes since the last call (doorbells, `cq_consumer`) reach the
    /// core one PCIe latency after `at`.
    pub fn host_writes(&mut self, at: Ps) {
        let writes = self.memory.take_writes();
        if writes.is_empty() {
            return;
        }
        if self.is_idle() {
            self.cycle = self.cycle.max(at.div_ceil(self.period));
        }
        let arrival = at.div_ceil(self.period).max(self.cycle) + self.pcie_cycles;
        self.queue_writes(arrival, writes);
    }

    /// Reads a register over the core's bus (one cycle, not counted as NIC time).
    pub fn read_register(&mut self, block: &'static str, name: &str) -> Result<u32, NicError> {
        self.core.set_s_reg_addr(address(block, name)?);
        self.core.set_s_reg_re(1);
        self.core.tick();
        self.core.set_s_reg_re(0);
        Ok(self.core.get_m_reg_rdata() as u32)
    }

    /// What the NIC counted.
    pub fn counters(&self) -> NicCounters {
        self.counters
    }

    /// Descriptors the NIC refused so far, in the order their `ERROR`s came: the buffer id
    /// and the status (out of bounds, bad descriptor). The driver never reposts them.
    pub fn refusals(&self) -> &[(u32, Status)] {
        &self.refusals
    }

    /// The host posts an RX buffer descriptor of its own at `at` (the driver's
    /// `post_rx_descriptor`); the doorbell reaches the core one PCIe latency later.
    pub fn post_rx_descriptor(&mut self, at: Ps, desc: &RxBufDescriptor) -> Result<(), NicError> {
        let host = self.host.as_mut().ok_or(NicError::HostElsewhere)?;
        host.post_rx_descriptor(desc)?;
        self.host_writes(at);
        Ok(())
    }

    /// The host posts a TX descriptor at `at` (the driver's `send`); the doorbell reaches the
    /// core one PCIe latency later. Its free-running ring index.
    pub fn post_tx_descriptor(&mut self, at: Ps, desc: &TxDescriptor) -> Result<u32, NicError> {
        let host = self.host.as_mut().ok_or(NicError::HostElsewhere)?;
        let index = host.send(desc)?;
        self.host_writes(at);
        Ok(index)
    }

    /// The host sets the NIC's TX limits at `at` (the driver's `set_tx_limits`).
    pub fn set_tx_limits(&mut self, at: Ps, limits: &TxLimits) -> Result<(), NicError> {
        let host = self.host.as_mut().ok_or(NicError::HostElsewhere)?;
        host.set_tx_limits(limits)?;
        self.host_writes(at);
        Ok(())
    }

    /// The `TX_DONE` completions the host read (the messages the core finished sending), in
    /// order.
    pub fn tx_done(&self) -> &[Completion] {
        &self.tx_done
    }

    /// The `TX_DONE` and TX `ERROR` completions read since the last call, in order (and no
    /// longer kept for [`RtlNic::tx_done`] and [`RtlNic::tx_refused`]).
    pub fn take_tx_completions(&mut self) -> (Vec<Completion>, Vec<Completion>) {
        (
            std::mem::take(&mut self.tx_done),
            std::mem::take(&mut self.tx_refused),
        )
    }

    /// The host memory the core's DMA reads and writes (the driver's rings and buffers live
    /// in it; a host places the payloads of the messages it sends here).
    pub fn memory(&self) -> &Arc<MemDevice> {
        &self.memory
    }

    /// The `ERROR` completions (ring TX) of the TX descriptors the core refused, in order.
    pub fn tx_refused(&self) -> &[Completion] {
        &self.tx_refused
    }

    /// A frame from the wire reaches the NIC at `at`.
    pub fn receive(&mut self, at: Ps, frame: Vec<u8>) {
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
            return;
        }
        self.inbox_bytes += frame.len();
        self.inbox.push_back((arrival, frame));
    }

    /// The host releases inbound message `(peer, id)` of `length` bytes (it has all of it,
    /// or gave up) through the driver's `Nic::release`: its register writes (GRANT.release_*)
    /// reach the core one per cycle from `at`.
    pub fn release(
        &mut self,
        at: Ps,
        peer: Ipv4Addr,
        id: u64,
        length: u32,
    ) -> Result<(), NicError> {
        let host = self.host.as_mut().ok_or(NicError::HostElsewhere)?;
        host.release(peer, id, length)?;
        let arrival = at.div_ceil(self.period);
        if self.is_idle() {
            self.cycle = self.cycle.max(arrival);
        }
        self.send_host_writes(arrival);
        Ok(())
    }

    fn is_idle(&self) -> bool {
        self.inbox.is_empty()
            && self.feeding.is_none()
            && self.writes.is_empty()
            && self.reads.is_empty()
            && self.tx_reads.is_empty()
            && self.pay_reads.is_empty()
            && self.sent.is_empty()
            && self.quiet >= self.drain
    }

    /// When the NIC's next clock edge is due, if it has anything to do.
    pub fn next_edge(&self) -> Option<Ps> {
        if self.is_idle() {
            return None;
        }
        let due = [
            self.inbox.front().map(|(a, _)| *a),
            self.writes.front().map(|(a, _, _)| *a),
            self.reads.front().map(|(a, _, _)| *a),
            self.tx_reads.front().map(|(a, _, _)| *a),
            self.pay_reads.front().map(|(a, _, _)| *a),
            self.sent.front().map(|s| s.2 + LOST_CYCLES + 1),
        ]
        .into_iter()
        .flatten()
        .min();
        let next = match (&self.feeding, due) {
            // Nothing in the core and the next input later: skip to it.
            (None, Some(arrival)) if self.quiet >= self.drain => arrival.max(self.cycle + 1),
            _ => self.cycle + 1,
        };
        Some(next * self.period)
    }

    /// Clocks every edge due at or before `until`; outputs go to `out` with their time.
    pub fn run_until(&mut self, until: Ps, out: &mut Vec<(Ps, NicOutput)>) {
        while let Some(edge) = self.next_edge() {
            if edge > until {
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
        // One register write per cycle from the host; otherwise the bus reads rx_consumer (and
        // every other cycle tx_consumer, while TX descriptors are outstanding), which the
        // host's view mirrors (as a NIC writes its ring indices back to memory).
        match self.writes.front() {
            Some(&(due, address, value)) if due <= self.cycle => {
                self.writes.pop_front();
                self.core.set_s_reg_addr(address);
                self.core.set_s_reg_wdata(u64::from(value));
                self.core.set_s_reg_we(1);
                self.core.set_s_reg_re(0);
                busy = true;
            }
            _ => {
                self.core.set_s_reg_we(0);
                self.reading = if self.tx_mirrored != self.tx_posted && self.cycle % 2 == 1 {
                    self.tx_consumer
                } else {
                    self.rx_consumer
                };
                self.core.set_s_reg_addr(u64::from(self.reading));
                self.core.set_s_reg_re(1);
            }
        }
        busy |= self.dma_response();
        // Every input is set before the first output is read: one evaluation of the model.
        match &self.feeding {
            Some((frame, pos)) => {
                let end = (pos + 64).min(frame.len());
                let beat = &frame[*pos..end];
                let data: [u32; 16] = words_from_le_bytes(beat).unwrap_or([0; 16]);
                self.core.set_s_axis_tdata(&data);
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
            *pos += 64;
            if *pos >= frame.len() {
                let (frame, _) = self.feeding.take().expect("checked above");
                self.taken(&frame);
            }
        }
        frames |= self.payload_taken();
        if self.core.get_m_axis_tvalid() == 1 {
            frames = true;
            let keep = self.core.get_m_axis_tkeep();
            let bytes = words_to_le_bytes(&self.core.get_m_axis_tdata());
            self.frame_out
                .extend_from_slice(&bytes[..keep.count_ones() as usize]);
            if self.core.get_m_axis_tlast() == 1 {
                let frame = std::mem::take(&mut self.frame_out);
                self.frame_sent(at, frame, out);
            }
        }
        self.core.tick();
        self.counters.cycles += 1;
        if self.core.get_m_reg_rvalid() == 1 {
            let consumer = self.core.get_m_reg_rdata() as u32;
            if self.reading == self.tx_consumer {
                self.tx_mirrored = consumer;
            }
            // The address is in the register map (checked in `new`).
            let _ = self.memory.set_register(self.reading, consumer);
        }
        busy |= self.poll_host(at, out);
        if frames {
            self.drain = DRAIN_CYCLES;
        }
        self.quiet = if busy || frames { 0 } else { self.quiet + 1 };
        if self.quiet >= self.drain {
            self.drain = HOST_DRAIN_CYCLES;
        }
        self.forget_lost();
    }

    /// Serves the core's DMA ports for this cycle: read requests are answered from host
    /// memory one PCIe round trip later, in order; write beats land in host memory at once
    /// (the host sees them when it polls, and its packets reach the engine a PCIe latency
    /// later). An access outside the memory the driver allocated is refused and counted.
    ///
    /// This half drives the read response due this cycle; whether there was one.
    fn dma_response(&mut self) -> bool {
        let pay = match self.pay_reads.front() {
            Some(&(due, addr, len)) if due <= self.cycle => {
                let words = self.payload_beat(addr, len, self.pay_beat);
                self.core.set_s_dma_payrd_data(&words);
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
                self.tx_reads.pop_front();
                let words = self.read_words(addr, len);
                self.core.set_s_dma_txrd_data(&words);
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
                    self.reads.pop_front();
                    let words = self.read_words(addr, len);
                    self.core.set_s_dma_rd_data(&words);
                    self.core.set_s_dma_rd_valid(1);
                    true
                }
                _ => {
                    self.core.set_s_dma_rd_valid(0);
                    false
                }
            }
    }

    /// `len` bytes (at most 64) of host memory at `addr`, as a read response beat; an
    /// access outside the memory the driver allocated reads zeros and is counted.
    fn read_words(&mut self, addr: u64, len: usize) -> [u32; 16] {
        let mut data = [0u8; 64];
        if self
            .memory
            .dma_read(addr, &mut data[..len.min(64)])
            .is_err()
        {
            self.counters.dma_faults += 1;
        }
        words_from_le_bytes(&data).unwrap_or([0; 16])
    }

    /// Beat `k` of the response to a payload read of `len` bytes at `addr`: payload byte
    /// `i` at lane `PAYLOAD_LANE + i` of the whole response, zeros around it. An access
    /// outside the memory the driver allocated reads zeros and is counted.
    fn payload_beat(&mut self, addr: u64, len: usize, k: usize) -> [u32; 16] {
        let mut data = [0u8; 64];
        // Payload bytes [first, end) land in this beat, from lane `first + PAYLOAD_LANE - 64k`.
        let first = (64 * k).saturating_sub(PAYLOAD_LANE);
        let end = (64 * k + 64 - PAYLOAD_LANE).min(len);
        if first < end {
            let lane = first + PAYLOAD_LANE - 64 * k;
            let at = addr.wrapping_add(first as u64);
            if self
                .memory
                .dma_read(at, &mut data[lane..lane + end - first])
                .is_err()
            {
                self.counters.dma_faults += 1;
            }
        }
        words_from_le_bytes(&data).unwrap_or([0; 16])
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
        if self.pay_beat == (PAYLOAD_LANE + len).div_ceil(64) {
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
            let addr = self.core.get_m_dma_wr_addr();
            let keep = self.core.get_m_dma_wr_keep();
            let bytes = words_to_le_bytes(&self.core.get_m_dma_wr_data());
            // Each run of enabled bytes is one write.
            let mut i = 0;
            while i < 64 {
                if keep >> i & 1 == 0 {
                    i += 1;
                    continue;
                }
                let start = i;
                while i < 64 && keep >> i & 1 == 1 {
                    i += 1;
                }
                let at = addr.wrapping_add(start as u64);
                if self.memory.dma_write(at, &bytes[start..i]).is_err() {
                    self.counters.dma_faults += 1;
                }
            }
            writes = true;
        }
        (reads, writes)
    }

    /// The host polls its completion ring (the driver's own code), a batch at a time with one
    /// `cq_consumer` write: each packet is rebuilt from its completion (and for DATA its
    /// buffer's bytes, copied out) and handed on; the buffers go back to the NIC with one
    /// `rx_producer` doorbell, which reaches the core one PCIe latency later.
    fn poll_host(&mut self, at: Ps, out: &mut Vec<(Ps, NicOutput)>) -> bool {
        let mut got = Vec::new();
        let Some(host) = self.host.as_mut() else {
            self.send_host_writes(self.cycle + self.pcie_cycles);
            return false;
        };
        loop {
            match host.receive(&mut got, POLL_BATCH) {
                Ok(0) => break,
                Ok(_) => {}
                // An entry that does not decode is consumed, or a buffer could not go back.
                Err(_) => self.counters.parse_mismatches += 1,
            }
        }
        let busy = !got.is_empty();
        for r in got {
            self.counters.rx_completions += 1;
            match r {
                Received::Packet {
                    peer,
                    header,
                    payload,
                    acks_not_carried,
                } => {
                    self.counters.acks_not_carried += u64::from(acks_not_carried);
                    let packet = Packet {
                        header,
                        payload: Bytes::from(payload),
                    };
                    self.arrived(at, peer, packet, out);
                }
                Received::BufferError { buffer_id, status } => {
                    self.counters.rx_errors += 1;
                    if status != Status::BufferTooSmall {
                        // Refused: the driver does not give it back.
                        self.refusals.push((buffer_id, status));
                    }
                }
                Received::TxRefused {
                    index,
                    rpc_id,
                    cookie,
                    status,
                } => self.tx_refused.push(Completion {
                    rpc_id,
                    status,
                    event: Event::Error {
                        ring: ErrorRing::Tx,
                        index,
                        cookie,
                    },
                    phase: false,
                }),
                Received::TxDone {
                    rpc_id,
                    length,
                    cookie,
                } => self.tx_done.push(Completion {
                    rpc_id,
                    status: Status::Ok,
                    event: Event::TxDone { length, cookie },
                    phase: false,
                }),
                // A completion no packet explains.
                Received::Bad { .. } | Received::Other(_) => self.counters.parse_mismatches += 1,
            }
        }
        self.send_host_writes(self.cycle + self.pcie_cycles);
        busy
    }

    /// The register writes the driver made since the last call reach the core's bus at cycle
    /// `arrival`, in order.
    fn send_host_writes(&mut self, arrival: u64) {
        let writes = self.memory.take_writes();
        self.queue_writes(arrival, writes);
    }

    fn queue_writes(&mut self, arrival: u64, writes: Vec<(u32, u32)>) {
        for (offset, value) in writes {
            if offset == self.tx_producer {
                // The TX doorbell, whoever rang it: mirror tx_consumer until it catches up.
                self.tx_posted = value;
            }
            self.writes.push_back((arrival, u64::from(offset), value));
        }
    }

    /// The core took a frame's last beat: remember what the software parser makes of it,
    /// to check the packet its completion stands for.
    fn taken(&mut self, frame: &[u8]) {
        if self.host.is_none() {
            return;
        }
        let caps = ChecksumCapabilities::default();
        if let Ok(f) = FrameRepr::parse(frame, LinkType::Ethernet, &caps) {
            let (f, payload) = owned(&f);
            self.sent.push_back((f, payload, self.cycle));
        }
    }

    /// A packet came in, rebuilt from its completion alone (and the payload read out of its
    /// buffer): check it against the frame the hardware took, hand it on.
    /// Completions come in the order the hardware took their frames; frames skipped on the
    /// way lost their payload (no buffer was posted).
    fn arrived(&mut self, at: Ps, peer: IpAddr, packet: Packet, out: &mut Vec<(Ps, NicOutput)>) {
        let header = packet.header;
        let same = |f: &FrameRepr<'static>| {
            f.homa.sender_id == header.sender_id
                && f.homa.packet_type() == header.packet_type()
                && match (f.homa.body, header.body) {
                    (Body::Data(a), Body::Data(b)) => a.offset == b.offset,
                    _ => true,
                }
        };
        match self.sent.iter().position(|(f, _, _)| same(f)) {
            Some(skipped) => {
                let lost: Vec<_> = self.sent.drain(..skipped).collect();
                for (f, payload, _) in lost {
                    self.count_lost(&f, &payload);
                }
                let (f, sent, _) = self.sent.pop_front().expect("found above");
                let src = f.ip.src_addr();
                if src != peer || carried(f.homa) != header || packet.payload != sent {
                    self.counters.parse_mismatches += 1;
                }
            }
            None => self.counters.parse_mismatches += 1,
        }
        self.counters.to_host += 1;
        out.push((at, NicOutput::Host { src: peer, packet }));
    }

    /// Frames the hardware took whose completion is overdue: their payload found no buffer.
    fn forget_lost(&mut self) {
        while let Some((_, _, since)) = self.sent.front()
            && self.cycle > since + LOST_CYCLES
        {
            let (f, payload, _) = self.sent.pop_front().expect("peeked");
            self.count_lost(&f, &payload);
        }
    }

    /// A frame the hardware took and never reported: a DATA payload that found no buffer
    /// (Homa's RESEND repairs it), a DATA without payload (nothing to report), or a fault.
    fn count_lost(&mut self, f: &FrameRepr<'static>, payload: &Bytes) {
        match f.homa.body {
            Body::Data(_) if !payload.is_empty() => self.counters.rx_lost += 1,
            Body::Data(_) => {}
            _ => self.counters.parse_mismatches += 1,
        }
    }
}

/// The header as a completion carries it: a DATA's payload apart, an ACK's first
/// [`ACKS_CARRIED`] entries.
fn carried(mut h: homa_proto::wire::Repr<'static>) -> homa_proto::wire::Repr<'static> {
    if let Body::Ack(a) = h.body {
        let kept = &a.as_slice()[..a.as_slice().len().min(ACKS_CARRIED)];
        h.body = Body::Ack(Acks::new(kept).expect("at most five"));
    }
    h
}
