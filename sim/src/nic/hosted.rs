//! A test bench for one simulated NIC: the NIC ([`RtlNic`]), its driver (`homa_driver::Nic`
//! over a [`NicDevice`]) polling the completion ring as the NIC's writes land, and a check of
//! every packet the host rebuilds from its completions against `proto::wire`'s parse of the
//! frame it came in as.

use super::device::NicDevice;
use super::rtl::RtlNic;
use super::{NicCounters, NicError, NicOutput, NicTiming};
use crate::time::{Ps, SimClock};
use bytes::Bytes;
use homa_driver::{Device, Nic, NicConfig, Received, RingSizes};
use homa_hw::parser_model::Verdict;
use homa_proto::core::Packet;
use homa_proto::hostif::{
    ACKS_CARRIED, Completion, ErrorRing, Event, RxBufDescriptor, Status, TxDescriptor, TxLimits,
};
use homa_proto::wire::{Acks, Body, ChecksumCapabilities, FrameRepr, LinkType, Repr};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::net::{IpAddr, Ipv4Addr};
use std::rc::Rc;

/// The host stack's rings with a TX ring of 16 entries (as many as the NIC's transmit
/// capacity), so that the tests fill it.
pub(super) const RINGS: RingSizes = RingSizes {
    tx_log2: 4,
    ..super::stack::RINGS
};

/// Completions the host takes per `cq_consumer` write.
const POLL_BATCH: usize = 64;

/// What the bench hands on.
#[derive(Debug, Clone)]
pub(super) enum Out {
    /// A packet the host rebuilt from its completions.
    Host { src: IpAddr, packet: Packet },
    /// A GRANT frame the hardware built.
    Grant { frame: Vec<u8> },
    /// A DATA frame the hardware built.
    Data { frame: Vec<u8> },
}

/// One NIC and its driver (see the module notes).
pub(super) struct HostedNic {
    nic: Rc<RefCell<RtlNic>>,
    driver: Nic<NicDevice>,
    clock: SimClock,
    /// Frames the NIC took that `proto::wire` accepts (header, DATA payload), waiting for
    /// their completion.
    sent: VecDeque<(FrameRepr<'static>, Bytes)>,
    host: NicCounters,
    refusals: Vec<(u32, Status)>,
    tx_done: Vec<Completion>,
    tx_refused: Vec<Completion>,
    /// GRANT frames the NIC sent and `GRANT_SENT` reports the host read, (destination,
    /// header) each, not yet paired: they must pair up in order.
    grant_frames: VecDeque<(IpAddr, Repr<'static>)>,
    grant_reports: VecDeque<(IpAddr, Repr<'static>)>,
}

impl HostedNic {
    /// A NIC brought up by its driver (`config`, [`RINGS`]).
    pub(super) fn new(config: &NicConfig, timing: NicTiming) -> Result<Self, NicError> {
        let clock = SimClock::new();
        let (driver, nic) = NicDevice::init(config, &RINGS, timing, clock.clone())?;
        nic.borrow_mut().prime();
        Ok(HostedNic {
            nic,
            driver,
            clock,
            sent: VecDeque::new(),
            host: NicCounters::default(),
            refusals: Vec::new(),
            tx_done: Vec::new(),
            tx_refused: Vec::new(),
            grant_frames: VecDeque::new(),
            grant_reports: VecDeque::new(),
        })
    }

    pub(super) fn receive(&mut self, at: Ps, frame: Vec<u8>) {
        // Expected back: what `proto::wire` parses, of the frames the hardware accepts (it
        // rejects IPv4 options, its one documented difference).
        let parsed = (homa_hw::parser_model::expect(&frame).verdict == Verdict::Ok)
            .then(|| {
                FrameRepr::parse(&frame, LinkType::Ethernet, &ChecksumCapabilities::default()).ok()
            })
            .flatten()
            .map(|f| owned(&f));
        if self.nic.borrow_mut().receive(at, frame)
            && let Some(f) = parsed
        {
            self.sent.push_back(f);
        }
    }

    pub(super) fn next_edge(&self) -> Option<Ps> {
        let nic = self.nic.borrow();
        [nic.next_edge(), nic.next_landing()]
            .into_iter()
            .flatten()
            .min()
    }

    /// Runs the NIC, and the host as the NIC's writes land, up to `until`.
    pub(super) fn run_until(&mut self, until: Ps, out: &mut Vec<(Ps, Out)>) {
        let mut frames = Vec::new();
        while let Some(t) = self.next_edge().filter(|t| *t <= until) {
            self.nic.borrow_mut().run_until(t, &mut frames);
            for (at, o) in frames.drain(..) {
                out.push(match o {
                    NicOutput::Grant { frame } => {
                        let parsed = FrameRepr::parse(
                            &frame,
                            LinkType::Ethernet,
                            &ChecksumCapabilities::default(),
                        );
                        match parsed {
                            Ok(f) => {
                                let (f, _) = owned(&f);
                                self.grant_frames.push_back((f.ip.dst_addr(), f.homa));
                                self.pair_grants();
                            }
                            Err(_) => self.host.parse_mismatches += 1,
                        }
                        (at, Out::Grant { frame })
                    }
                    NicOutput::Data { frame } => (at, Out::Data { frame }),
                });
            }
            if self.nic.borrow().next_landing().is_some_and(|l| l <= t) {
                self.clock.set(t);
                self.poll_host(t, out);
            }
        }
        self.clock.set(until);
        if self.next_edge().is_none() {
            // Idle: a frame still without its completion lost its payload (no buffer).
            for (f, payload) in std::mem::take(&mut self.sent) {
                self.count_lost(&f, &payload);
            }
        }
    }

    pub(super) fn read_register(
        &mut self,
        block: &'static str,
        name: &str,
    ) -> Result<u32, NicError> {
        self.nic.borrow_mut().read_register(block, name)
    }

    /// The NIC's counters with the host's.
    pub(super) fn counters(&self) -> NicCounters {
        let h = self.host;
        NicCounters {
            to_host: h.to_host,
            host_grants: h.host_grants,
            nic_grants: h.nic_grants,
            rx_completions: h.rx_completions,
            rx_errors: h.rx_errors,
            rx_lost: h.rx_lost,
            acks_not_carried: h.acks_not_carried,
            parse_mismatches: self.nic.borrow().counters().parse_mismatches + h.parse_mismatches,
            ..self.nic.borrow().counters()
        }
    }

    pub(super) fn memory(&self) -> std::sync::Arc<homa_driver::MemDevice> {
        std::sync::Arc::clone(self.nic.borrow().memory())
    }

    pub(super) fn refusals(&self) -> &[(u32, Status)] {
        &self.refusals
    }

    pub(super) fn tx_done(&self) -> &[Completion] {
        &self.tx_done
    }

    pub(super) fn tx_refused(&self) -> &[Completion] {
        &self.tx_refused
    }

    /// Logs the NIC's DMA writes ([`RtlNic::set_dma_log`]).
    pub(super) fn set_dma_log(&mut self, on: bool) {
        self.nic.borrow_mut().set_dma_log(on);
    }

    /// The DMA writes logged since the last call.
    pub(super) fn take_dma_log(&mut self) -> Vec<(u64, usize)> {
        self.nic.borrow_mut().take_dma_log()
    }

    /// The completion ring's host memory: (IOVA, bytes).
    pub(super) fn cq_range(&self) -> (u64, u64) {
        let r = self.driver.cq().region();
        (r.iova(), r.len() as u64)
    }

    /// A register write at `at` that bypasses the driver (misuse of the rings, say).
    pub(super) fn poke(
        &mut self,
        at: Ps,
        block: &'static str,
        name: &str,
        value: u32,
    ) -> Result<(), NicError> {
        self.clock.set(at);
        let offset = self.driver.probe().address(block, name)?;
        Ok(self.driver.device().write32(offset, value)?)
    }

    pub(super) fn post_rx_descriptor(
        &mut self,
        at: Ps,
        d: &RxBufDescriptor,
    ) -> Result<(), NicError> {
        self.clock.set(at);
        self.driver.post_rx_descriptor(d)?;
        Ok(())
    }

    pub(super) fn post_tx_descriptor(&mut self, at: Ps, d: &TxDescriptor) -> Result<u32, NicError> {
        self.clock.set(at);
        Ok(self.driver.send(d)?)
    }

    pub(super) fn set_tx_limits(&mut self, at: Ps, limits: &TxLimits) -> Result<(), NicError> {
        self.clock.set(at);
        Ok(self.driver.set_tx_limits(limits)?)
    }

    pub(super) fn release(
        &mut self,
        at: Ps,
        peer: Ipv4Addr,
        id: u64,
        length: u32,
    ) -> Result<(), NicError> {
        self.clock.set(at);
        Ok(self.driver.release(peer, id, length)?)
    }

    /// The host polls its completion ring (the driver's own code), a batch at a time: each
    /// packet is rebuilt from its completion (and for DATA its buffer's bytes) and checked.
    fn poll_host(&mut self, at: Ps, out: &mut Vec<(Ps, Out)>) {
        let mut got = Vec::new();
        loop {
            match self.driver.receive(&mut got, POLL_BATCH) {
                Ok(0) => break,
                Ok(_) => {}
                // An entry that does not decode is consumed, or a buffer could not go back.
                Err(_) => self.host.parse_mismatches += 1,
            }
        }
        for r in got {
            self.host.rx_completions += 1;
            match r {
                Received::Packet {
                    peer,
                    header,
                    payload,
                    acks_not_carried,
                    host_grants,
                } => {
                    self.host.acks_not_carried += u64::from(acks_not_carried);
                    self.host.host_grants += u64::from(host_grants);
                    // The table keys peers by IPv4 address: an IPv6 message is the host's.
                    if peer.is_ipv6() && matches!(header.body, Body::Data(_)) && !host_grants {
                        self.host.parse_mismatches += 1;
                    }
                    let packet = Packet {
                        header,
                        payload: Bytes::from(payload),
                    };
                    self.arrived(peer, &packet);
                    self.host.to_host += 1;
                    out.push((at, Out::Host { src: peer, packet }));
                }
                Received::BufferError { buffer_id, status } => {
                    self.host.rx_errors += 1;
                    if status != Status::BufferTooSmall {
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
                Received::GrantSent { peer, grant } => {
                    self.host.nic_grants += 1;
                    self.grant_reports.push_back((peer, grant));
                    self.pair_grants();
                }
                Received::Bad { .. } | Received::Other(_) => self.host.parse_mismatches += 1,
            }
        }
    }

    /// Each `GRANT_SENT` report must name the GRANT frame sent in its place in order.
    fn pair_grants(&mut self) {
        while !self.grant_frames.is_empty() && !self.grant_reports.is_empty() {
            if self.grant_frames.pop_front() != self.grant_reports.pop_front() {
                self.host.parse_mismatches += 1;
            }
        }
    }

    /// A packet came in, rebuilt from its completion alone: check it against the frame the
    /// hardware took. Completions come in the order the hardware took their frames; frames
    /// skipped on the way lost their payload (no buffer was posted) or were dropped.
    fn arrived(&mut self, peer: IpAddr, packet: &Packet) {
        let header = packet.header;
        let same = |f: &FrameRepr<'static>| {
            f.homa.sender_id == header.sender_id
                && f.homa.packet_type() == header.packet_type()
                && match (f.homa.body, header.body) {
                    (Body::Data(a), Body::Data(b)) => a.offset == b.offset,
                    _ => true,
                }
        };
        match self.sent.iter().position(|(f, _)| same(f)) {
            Some(skipped) => {
                let lost: Vec<_> = self.sent.drain(..skipped).collect();
                for (f, payload) in lost {
                    self.count_lost(&f, &payload);
                }
                let (f, sent) = self.sent.pop_front().expect("found above");
                if f.ip.src_addr() != peer || carried(f.homa) != header || packet.payload != sent {
                    self.host.parse_mismatches += 1;
                }
            }
            None => self.host.parse_mismatches += 1,
        }
    }

    /// A frame the hardware took and never reported: a DATA payload that found no buffer
    /// (Homa's RESEND repairs it), a DATA without payload (nothing to report), or a fault.
    fn count_lost(&mut self, f: &FrameRepr<'static>, payload: &Bytes) {
        match f.homa.body {
            Body::Data(_) if !payload.is_empty() => self.host.rx_lost += 1,
            Body::Data(_) => {}
            _ => self.host.parse_mismatches += 1,
        }
    }
}

/// A parsed frame with nothing borrowed: the header, and the DATA payload apart.
fn owned(frame: &FrameRepr<'_>) -> (FrameRepr<'static>, Bytes) {
    let p = Packet::from_repr(&frame.homa);
    let header = FrameRepr {
        ethernet: frame.ethernet,
        ip: frame.ip,
        homa: p.header,
    };
    (header, p.payload)
}

/// The header as a completion carries it: a DATA's payload apart, an ACK's first
/// [`ACKS_CARRIED`] entries.
fn carried(mut h: Repr<'static>) -> Repr<'static> {
    match &mut h.body {
        Body::Ack(a) => {
            let kept = &a.as_slice()[..a.as_slice().len().min(ACKS_CARRIED)];
            h.body = Body::Ack(Acks::new(kept).expect("at most five"));
        }
        // A receiver forces the lowest level's cutoff to the maximum: it is not carried.
        Body::Cutoffs(c) => c.unsched_cutoffs[0] = u32::MAX,
        _ => {}
    }
    h
}
