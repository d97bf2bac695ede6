//! [`RtlNic`]: the Verilated RX core driven cycle by cycle from frames that arrive on the
//! fabric, with its outputs turned into host packets and GRANT frames, and its DMA ports
//! served from host memory that the driver's own ring code uses.

use super::device::SimDevice;
use super::{NicCounters, NicError, NicOutput, NicTiming};
use crate::rtl::models::HomaRxCoreW512;
use crate::rtl::{words_from_le_bytes, words_to_le_bytes};
use crate::time::Ps;
use bytes::Bytes;
use homa_driver::{Device, MemDevice, Nic, NicConfig, Probe, RingSizes};
use homa_hw::parser_model::Hdr;
use homa_hw::rx_dma_model::{Header, rx_data_completion};
use homa_proto::core::Packet;
use homa_proto::hostif::{Completion, Event, RxBufDescriptor, Status};
use homa_proto::wire::{
    self, AckEntry, Body, ChecksumCapabilities, FrameRepr, LinkType, PacketType, Repr,
};
use std::collections::VecDeque;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::Arc;

/// Cycles without any transfer after which a core with nothing queued is idle (longer than
/// the deepest path, frame in to GRANT out: 7 cycles, plus the framer's second beat).
const DRAIN_CYCLES: u32 = 24;

/// The same after host activity alone (a doorbell, a descriptor read, a completion polled):
/// what it starts shows within a few cycles (a read request, a completion written).
const HOST_DRAIN_CYCLES: u32 = 8;

/// Cycles after its header within which a DATA payload's completion is written (a few
/// cycles: the payload is in its buffer before the header leaves the parser); a header
/// still without one after this lost its payload (no buffer was posted).
const LOST_CYCLES: u64 = 256;

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

/// One host's NIC: the Verilated `homa_rx_core_w512` and the state around its streams.
pub struct RtlNic {
    core: HomaRxCoreW512,
    /// The host side: the driver's rings and RX buffers over a host-memory model that also
    /// serves the core's DMA.
    host: Nic<Arc<MemDevice>>,
    memory: Arc<MemDevice>,
    /// DMA reads in flight: (cycle the data is back, address, bytes).
    reads: VecDeque<(u64, u64, usize)>,
    /// One-way PCIe latency in cycles.
    pcie_cycles: u64,
    /// Byte address of QUEUE.rx_consumer, mirrored into the host's view.
    rx_consumer: u32,
    /// Completions polled, with the payload read out of their buffer, waiting for their
    /// header from `m_hdr`.
    completions: VecDeque<(Completion, Vec<u8>)>,
    period: Ps,
    /// The NIC's time: the last clock edge simulated or skipped, in cycles.
    cycle: u64,
    /// Frames from the wire not yet offered, with their arrival cycle.
    inbox: VecDeque<(u64, Vec<u8>)>,
    /// Bytes in `inbox` (the MAC's receive FIFO, with what is left of `feeding`).
    inbox_bytes: usize,
    /// The frame on `s_axis` and the offset of its next beat.
    feeding: Option<(Vec<u8>, usize)>,
    /// Frames taken that `proto::wire` accepts (header, DATA payload), waiting for the
    /// hardware's header.
    expect: VecDeque<(FrameRepr<'static>, Bytes)>,
    /// Headers output with their frame and cycle, waiting for their payload.
    headers: VecDeque<(Hdr, FrameRepr<'static>, Bytes, u64)>,
    /// GRANT frame being collected from `m_grant_axis`.
    grant: Vec<u8>,
    quiet: u32,
    /// Quiet cycles that make the core idle: [`DRAIN_CYCLES`] after frame traffic,
    /// [`HOST_DRAIN_CYCLES`] after host traffic alone.
    drain: u32,
    counters: NicCounters,
    /// Descriptors the NIC refused (`ERROR` other than buffer-too-small): buffer id, status.
    refusals: Vec<(u32, Status)>,
    /// Register writes from the host, with the cycle they arrive: (address, value).
    writes: VecDeque<(u64, u64, u32)>,
    /// Byte addresses of GRANT.release_peer, _id_lo, _id_hi, _length and release.
    release_regs: [u64; 5],
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
        core.set_m_hdr_ready(1);
        core.set_m_grant_axis_tready(1);
        core.set_m_dma_rd_ready(1);
        core.set_m_dma_wr_ready(1);
        let period = timing.period_ps();
        let mut nic = RtlNic {
            core,
            host,
            memory,
            reads: VecDeque::new(),
            pcie_cycles: timing.pcie_ps().div_ceil(period),
            rx_consumer: address("QUEUE", "rx_consumer")? as u32,
            completions: VecDeque::new(),
            period,
            cycle: 0,
            inbox: VecDeque::new(),
            inbox_bytes: 0,
            feeding: None,
            expect: VecDeque::new(),
            headers: VecDeque::new(),
            grant: Vec::new(),
            quiet: DRAIN_CYCLES,
            drain: DRAIN_CYCLES,
            counters: NicCounters::default(),
            refusals: Vec::new(),
            writes: VecDeque::new(),
            release_regs: [
                address("GRANT", "release_peer")?,
                address("GRANT", "release_id_lo")?,
                address("GRANT", "release_id_hi")?,
                address("GRANT", "release_length")?,
                address("GRANT", "release")?,
            ],
        };
        // Until idle: the core fetches its first RX buffer descriptors (one PCIe round trip),
        // as a NIC does between the driver's init and the first packet. That happens before
        // time 0: the NIC's clock and cycle count restart there.
        // (Bounded: a fetcher that never settled would show up as a slow first packet.)
        nic.quiet = 0;
        nic.run_until(PRIME_CYCLES * period, &mut Vec::new());
        nic.cycle = 0;
        nic.counters.cycles = 0;
        Ok(nic)
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
        self.host.post_rx_descriptor(desc)?;
        if self.is_idle() {
            self.cycle = self.cycle.max(at.div_ceil(self.period));
        }
        self.send_host_writes(at.div_ceil(self.period) + self.pcie_cycles);
        Ok(())
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
    /// or gave up): five register writes, one per cycle from `at` (GRANT.release_*).
    pub fn release(&mut self, at: Ps, peer: Ipv4Addr, id: u64, length: u32) {
        let arrival = at.div_ceil(self.period);
        if self.is_idle() {
            self.cycle = self.cycle.max(arrival);
        }
        let values = [u32::from(peer), id as u32, (id >> 32) as u32, length, 1];
        for (address, value) in self.release_regs.into_iter().zip(values) {
            self.writes.push_back((arrival, address, value));
        }
    }

    fn is_idle(&self) -> bool {
        self.inbox.is_empty()
            && self.feeding.is_none()
            && self.writes.is_empty()
            && self.reads.is_empty()
            && self.headers.is_empty()
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
            self.headers.front().map(|h| h.3 + LOST_CYCLES + 1),
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
        // One register write per cycle from the host; otherwise the bus reads rx_consumer,
        // which the host's view mirrors (as a NIC writes its ring indices back to memory).
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
                self.core.set_s_reg_addr(u64::from(self.rx_consumer));
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
        if self.core.get_m_hdr_valid() == 1 {
            frames = true;
            self.header();
        }
        if self.core.get_m_grant_axis_tvalid() == 1 {
            frames = true;
            let keep = self.core.get_m_grant_axis_tkeep();
            let bytes = words_to_le_bytes(&self.core.get_m_grant_axis_tdata());
            self.grant
                .extend_from_slice(&bytes[..keep.count_ones() as usize]);
            if self.core.get_m_grant_axis_tlast() == 1 {
                self.counters.grants += 1;
                let frame = std::mem::take(&mut self.grant);
                out.push((at, NicOutput::Grant { frame }));
            }
        }
        self.core.tick();
        self.counters.cycles += 1;
        if self.core.get_m_reg_rvalid() == 1 {
            let consumer = self.core.get_m_reg_rdata() as u32;
            // The address is in the register map (checked in `new`).
            let _ = self.memory.set_register(self.rx_consumer, consumer);
        }
        busy |= self.poll_host();
        if frames {
            self.drain = DRAIN_CYCLES;
        }
        self.quiet = if busy || frames { 0 } else { self.quiet + 1 };
        if self.quiet >= self.drain {
            self.drain = HOST_DRAIN_CYCLES;
        }
        self.deliver(at, out);
    }

    /// Serves the core's DMA ports for this cycle: read requests are answered from host
    /// memory one PCIe round trip later, in order; write beats land in host memory at once
    /// (the host sees them when it polls, and its packets reach the engine a PCIe latency
    /// later). An access outside the memory the driver allocated is refused and counted.
    ///
    /// This half drives the read response due this cycle; whether there was one.
    fn dma_response(&mut self) -> bool {
        match self.reads.front() {
            Some(&(due, addr, len)) if due <= self.cycle => {
                self.reads.pop_front();
                let mut data = [0u8; 64];
                if self.memory.dma_read(addr, &mut data[..len]).is_err() {
                    self.counters.dma_faults += 1;
                }
                let words: [u32; 16] = words_from_le_bytes(&data).unwrap_or([0; 16]);
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

    /// The other half, once every input is set: takes the read request and the write beat
    /// offered; whether there was a request, and whether a write.
    fn dma_requests(&mut self) -> (bool, bool) {
        let (mut reads, mut writes) = (false, false);
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
    /// `cq_consumer` write: each RX buffer's payload is copied out, and the buffers go back
    /// to the NIC with one `rx_producer` doorbell; the doorbells reach the core one PCIe
    /// latency later.
    fn poll_host(&mut self) -> bool {
        let mut batch = Vec::new();
        loop {
            match self.host.poll_completions(&mut batch, POLL_BATCH) {
                Ok(0) => break,
                Ok(_) => {}
                // An entry that does not decode is consumed; the ones before it are in.
                Err(_) => self.counters.parse_mismatches += 1,
            }
        }
        let busy = !batch.is_empty();
        let mut repost = Vec::with_capacity(batch.len());
        for c in batch {
            self.counters.rx_completions += 1;
            match c.event {
                Event::RxData {
                    length, buffer_id, ..
                } => {
                    let mut payload = vec![0u8; length as usize];
                    if self
                        .host
                        .read_rx_buffer(buffer_id, 0, &mut payload)
                        .is_err()
                    {
                        self.counters.dma_faults += 1;
                    }
                    repost.push(buffer_id);
                    self.completions.push_back((c, payload));
                }
                Event::Error { cookie, .. } => {
                    self.counters.rx_errors += 1;
                    if c.status == Status::BufferTooSmall {
                        // The buffer comes back unused: post it again.
                        repost.push(cookie as u32);
                    } else {
                        // Refused: not one to reuse.
                        self.refusals.push((cookie as u32, c.status));
                    }
                }
                Event::TxDone { .. } => self.counters.parse_mismatches += 1,
            }
        }
        if !repost.is_empty() {
            // One doorbell; should the batch fail (an id the driver does not know), each
            // buffer on its own, so one bad id costs only itself.
            let done = self.host.repost_rx_buffers(&repost).unwrap_or(0);
            for &id in &repost[done..] {
                if self.host.repost_rx_buffer(id).is_err() {
                    self.counters.dma_faults += 1;
                }
            }
        }
        self.send_host_writes(self.cycle + self.pcie_cycles);
        busy
    }

    /// The register writes the driver made since the last call reach the core's bus at cycle
    /// `arrival`, in order.
    fn send_host_writes(&mut self, arrival: u64) {
        for (offset, value) in self.memory.take_writes() {
            self.writes.push_back((arrival, u64::from(offset), value));
        }
    }

    /// The core took a frame's last beat: remember what the software parser makes of it.
    fn taken(&mut self, frame: &[u8]) {
        let caps = ChecksumCapabilities::default();
        if let Ok(f) = FrameRepr::parse(frame, LinkType::Ethernet, &caps) {
            self.expect.push_back(owned(&f));
        }
    }

    /// The core outputs a header: pair it with the frame it came from.
    fn header(&mut self) {
        let c = &self.core;
        let ip = |w: [u32; 4]| {
            w.iter()
                .rev()
                .fold(0u128, |a, x| (a << 32) | u128::from(*x))
        };
        let hw = Hdr {
            ip_version: c.get_m_hdr_ip_version() as u8,
            src_ip: ip(c.get_m_hdr_src_ip()),
            dst_ip: ip(c.get_m_hdr_dst_ip()),
            priority: c.get_m_hdr_priority() as u8,
            sport: c.get_m_hdr_sport() as u16,
            dport: c.get_m_hdr_dport() as u16,
            ptype: c.get_m_hdr_type() as u8,
            sender_id: c.get_m_hdr_sender_id(),
            message_length: c.get_m_hdr_data_message_length() as u32,
            incoming: c.get_m_hdr_data_incoming() as u32,
            offset: c.get_m_hdr_data_offset() as u32,
            cutoff_version: c.get_m_hdr_data_cutoff_version() as u16,
            retransmit: c.get_m_hdr_data_retransmit() == 1,
            ack_client_id: c.get_m_hdr_data_ack_client_id(),
            ack_server_port: c.get_m_hdr_data_ack_server_port() as u16,
            payload_len: c.get_m_hdr_data_payload_len() as u16,
            grant_offset: c.get_m_hdr_grant_offset() as u32,
            grant_priority: c.get_m_hdr_grant_priority() as u8,
            resend_offset: c.get_m_hdr_resend_offset() as u32,
            resend_length: c.get_m_hdr_resend_length() as u32,
            resend_priority: c.get_m_hdr_resend_priority() as u8,
        }
        .normalised();
        match self.expect.pop_front() {
            Some((f, payload)) => {
                let mut want = Hdr::from_repr(&f).normalised();
                if want.ptype == u8::from(PacketType::Data) {
                    // `f` keeps its payload apart.
                    want.payload_len = payload.len() as u16;
                }
                if want != hw {
                    self.counters.parse_mismatches += 1;
                }
                self.headers.push_back((hw, f, payload, self.cycle));
            }
            None => self.counters.parse_mismatches += 1,
        }
    }

    /// Hands on every header whose payload (if any) is in: a DATA header with payload waits
    /// for its `RX_DATA` completion. Completions come in header order; one that names a
    /// later packet means this header's payload was dropped (no buffer, or an `ERROR`).
    fn deliver(&mut self, at: Ps, out: &mut Vec<(Ps, NicOutput)>) {
        while let Some((hw, _, _, since)) = self.headers.front() {
            let needs_payload = hw.ptype == u8::from(PacketType::Data) && hw.payload_len > 0;
            let payload = if needs_payload {
                let Some((c, _)) = self.completions.front() else {
                    if self.cycle > *since + LOST_CYCLES {
                        self.headers.pop_front();
                        self.counters.rx_lost += 1;
                        continue;
                    }
                    return;
                };
                if c.rpc_id != hw.sender_id ^ 1 || completion_offset(c) != Some(hw.offset) {
                    self.headers.pop_front();
                    self.counters.rx_lost += 1;
                    continue;
                }
                let (c, payload) = self.completions.pop_front().expect("peeked");
                if !completion_matches(&c, hw) {
                    self.counters.parse_mismatches += 1;
                }
                payload
            } else {
                Vec::new()
            };
            let (hw, frame, sent, _) = self.headers.pop_front().expect("peeked");
            if payload[..] != sent[..] {
                self.counters.parse_mismatches += 1;
            }
            let src = if hw.ip_version == 4 {
                IpAddr::V4(Ipv4Addr::from(hw.src_ip as u32))
            } else {
                IpAddr::V6(Ipv6Addr::from(hw.src_ip))
            };
            let packet = packet_of(&hw, &frame, payload);
            self.counters.to_host += 1;
            out.push((at, NicOutput::Host { src, packet }));
        }
    }
}

/// The message offset an `RX_DATA` completion names.
fn completion_offset(c: &Completion) -> Option<u32> {
    match c.event {
        Event::RxData { offset, .. } => Some(offset),
        _ => None,
    }
}

/// Whether an `RX_DATA` completion says what the header says.
fn completion_matches(c: &Completion, hw: &Hdr) -> bool {
    let Event::RxData { buffer_id, .. } = c.event else {
        return false;
    };
    let h = Header {
        ip_version: hw.ip_version,
        src_ip: hw.src_ip,
        sport: hw.sport,
        dport: hw.dport,
        sender_id: hw.sender_id,
        message_length: hw.message_length,
        offset: hw.offset,
        payload_len: hw.payload_len,
        retransmit: hw.retransmit,
    };
    Completion { phase: false, ..*c } == rx_data_completion(&h, buffer_id)
}

/// The packet the host gets: DATA, GRANT and RESEND from the hardware's fields, other types
/// (whose bodies the parser does not output) from the frame.
fn packet_of(hw: &Hdr, frame: &FrameRepr<'static>, payload: Vec<u8>) -> Packet {
    let body = match PacketType::from(hw.ptype) {
        PacketType::Data => Body::Data(wire::Data {
            message_length: hw.message_length,
            incoming: hw.incoming,
            ack: (hw.ack_client_id != 0).then_some(AckEntry {
                client_id: hw.ack_client_id,
                server_port: hw.ack_server_port,
            }),
            cutoff_version: hw.cutoff_version,
            retransmit: hw.retransmit,
            offset: hw.offset,
            payload: &[],
        }),
        PacketType::Grant => Body::Grant(wire::Grant {
            offset: hw.grant_offset,
            priority: hw.grant_priority,
        }),
        PacketType::Resend => Body::Resend(wire::Resend {
            offset: hw.resend_offset,
            length: hw.resend_length,
            priority: hw.resend_priority,
        }),
        _ => return Packet::control(frame.homa),
    };
    Packet {
        header: Repr {
            sport: hw.sport,
            dport: hw.dport,
            sender_id: hw.sender_id,
            body,
        },
        payload: Bytes::from(payload),
    }
}
