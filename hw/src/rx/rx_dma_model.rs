//! The reference for [`crate::rx_dma::RxDma`] at any width, and the random traffic both its
//! rust-hdl tests and the Verilator co-simulations in `homa-sim` drive it with.
//!
//! [`DmaModel`] follows the handshakes the engine makes (a buffer taken, a payload beat taken,
//! a header taken) and says what the engine must output for each: the DMA write of a beat,
//! the completion of a header (its bytes from `homa_proto::hostif::Completion::encode`).
//! [`run`] adds checks that do not trust the model: every byte a DMA write enables lies inside
//! a buffer the engine holds and has not yet returned, and every `RX_DATA` buffer, read back
//! from the host-memory model, holds exactly its packet's payload.

use std::collections::{HashMap, VecDeque};
use std::net::Ipv6Addr;

use homa_proto::hostif::{
    COMPLETION_LEN, CONTROL_BODY_LEN, Completion, ErrorRing, Event, Status, control_window,
};
use homa_proto::wire::PacketType;

use crate::bench::Rng;

/// A posted RX buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Buffer {
    /// IOVA of its first byte.
    pub iova: u64,
    /// Its length.
    pub length: u32,
    /// Its id.
    pub id: u32,
    /// Its free-running ring index.
    pub index: u32,
}

/// A header as the parser hands it over: DATA, or a control packet (whose payload length
/// is 0 and whose `body` is its window).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Header {
    /// The packet type byte (0x10 DATA).
    pub ptype: u8,
    /// 4 or 6.
    pub ip_version: u8,
    /// Sender address: IPv6, or IPv4 in the low 32 bits.
    pub src_ip: u128,
    /// Sender's port.
    pub sport: u16,
    /// Local port.
    pub dport: u16,
    /// `sender_id`.
    pub sender_id: u64,
    /// Message length.
    pub message_length: u32,
    /// Offset of the payload.
    pub offset: u32,
    /// Payload bytes.
    pub payload_len: u16,
    /// A retransmission.
    pub retransmit: bool,
    /// DATA: the NIC's grant generator does not track the message (the host grants it).
    pub host_grants: bool,
    /// DATA: `incoming`.
    pub incoming: u32,
    /// DATA: `cutoff_version`.
    pub cutoff_version: u16,
    /// DATA: the piggybacked ack's client id (0: none).
    pub ack_client_id: u64,
    /// DATA: the piggybacked ack's server port.
    pub ack_server_port: u16,
    /// Control packets: the body window (`hostif::control_window`).
    pub body: [u8; CONTROL_BODY_LEN],
}

/// The DATA type byte.
pub const DATA: u8 = 0x10;

/// One payload beat: up to a beat's bytes (64 at most) from lane 0.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Beat {
    /// The bytes (`keep` is their count).
    pub bytes: Vec<u8>,
    /// The payload's last beat.
    pub last: bool,
    /// The frame turned out bad (with `last`).
    pub user: bool,
}

impl Beat {
    /// The beat's byte enables.
    pub fn keep(&self) -> u64 {
        lanes(self.bytes.len() as u64)
    }
}

/// A DMA write beat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DmaWrite {
    /// Host address of data byte 0.
    pub addr: u64,
    /// The beat's data bytes, up to 64 (only those under `keep` matter).
    pub data: [u8; 64],
    /// Byte enables.
    pub keep: u64,
    /// The last write into the buffer.
    pub last: bool,
}

impl DmaWrite {
    /// The enabled bytes as (address, byte).
    pub fn bytes(&self) -> impl Iterator<Item = (u64, u8)> + '_ {
        (0..64)
            .filter(|i| self.keep >> i & 1 == 1)
            .map(|i| (self.addr.wrapping_add(i), self.data[i as usize]))
    }

    fn same_as(&self, other: &DmaWrite) -> bool {
        self.addr == other.addr
            && self.keep == other.keep
            && self.last == other.last
            && self.bytes().eq(other.bytes())
    }
}

/// The engine's counters: (rx_data, rx_errors, no_buffer, bad_frames, empty).
pub type Counters = (u32, u32, u32, u32, u32);

/// The low `n` byte lanes (`n` ≤ 64).
fn lanes(n: u64) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// A payload the engine streamed, waiting for its header.
#[derive(Clone, Copy, Debug)]
struct Pending {
    buffer: Option<Buffer>,
    beats: u32,
}

/// The reference: what the engine must do at each handshake.
#[derive(Debug)]
pub struct DmaModel {
    /// Bytes a beat.
    width: u32,
    held: Option<Buffer>,
    /// The buffer of a bad frame's payload, for the next payload.
    reuse: Option<Buffer>,
    /// The payload under way: its buffer (None: dropped), bytes so far, beats so far.
    current: Option<(Option<Buffer>, u32, u32)>,
    pending: VecDeque<Pending>,
    counters: Counters,
}

impl DmaModel {
    /// A model after reset, for beats of `width` bytes (8 to 64).
    pub fn new(width: usize) -> Self {
        assert!((8..=64).contains(&width), "beats are 8 to 64 bytes");
        Self {
            width: width as u32,
            held: None,
            reuse: None,
            current: None,
            pending: VecDeque::new(),
            counters: Counters::default(),
        }
    }

    /// Whether the engine may take a buffer now (it holds none).
    pub fn wants_buffer(&self) -> bool {
        self.held.is_none()
    }

    /// The engine took `buffer`.
    pub fn take_buffer(&mut self, buffer: Buffer) -> Result<(), String> {
        if self.held.is_some() {
            return Err(format!("took buffer {} while holding one", buffer.id));
        }
        self.held = Some(buffer);
        Ok(())
    }

    /// The engine took payload beat `beat`: the DMA write it must have offered with it.
    pub fn beat(&mut self, beat: &Beat) -> Option<DmaWrite> {
        let (buffer, off, beats) = match self.current.take() {
            Some(c) => c,
            None => {
                let b = self.reuse.take().or_else(|| self.held.take());
                if b.is_none() {
                    self.counters.2 += 1;
                }
                (b, 0, 0)
            }
        };
        let write = buffer.filter(|b| b.length > off).map(|b| {
            let mut data = [0u8; 64];
            data[..beat.bytes.len()].copy_from_slice(&beat.bytes);
            let room = u64::from(b.length - off);
            DmaWrite {
                addr: b.iova.wrapping_add(u64::from(off)),
                data,
                keep: beat.keep() & lanes(room),
                last: beat.last || room <= u64::from(self.width),
            }
        });
        if !beat.last {
            self.current = Some((buffer, off + self.width, beats + 1));
        } else if beat.user {
            self.counters.3 += 1;
            self.reuse = buffer;
        } else {
            self.pending.push_back(Pending {
                buffer,
                beats: beats + 1,
            });
        }
        write
    }

    /// The engine took header `h`: the completion it must have offered with it (phase 0).
    pub fn header(&mut self, h: &Header) -> Result<Option<Completion>, String> {
        if h.ptype != DATA {
            return Ok(Some(control_completion(h)));
        }
        if h.payload_len == 0 {
            self.counters.4 += 1;
            return Ok(None);
        }
        let p = self
            .pending
            .pop_front()
            .ok_or_else(|| format!("header {h:?} taken before its payload"))?;
        let Some(b) = p.buffer else {
            return Ok(None);
        };
        let rpc_id = h.sender_id ^ 1;
        let fits = u32::from(h.payload_len) <= b.length;
        if fits && u32::from(h.payload_len).div_ceil(self.width) == p.beats {
            self.counters.0 += 1;
            return Ok(Some(rx_data_completion(h, b.id)));
        }
        self.counters.1 += 1;
        Ok(Some(Completion {
            rpc_id,
            status: if fits {
                Status::DmaError
            } else {
                Status::BufferTooSmall
            },
            event: Event::Error {
                ring: ErrorRing::RxBuf,
                index: b.index,
                cookie: u64::from(b.id),
            },
            phase: false,
        }))
    }

    /// The counters the engine must show.
    pub fn counters(&self) -> Counters {
        self.counters
    }
}

/// The `RX_DATA` completion (phase 0) of DATA header `h` whose payload fills buffer
/// `buffer_id`: the RPC id is the receiver's (`sender_id` with bit 0 flipped).
pub fn rx_data_completion(h: &Header, buffer_id: u32) -> Completion {
    Completion {
        rpc_id: h.sender_id ^ 1,
        status: Status::Ok,
        event: Event::RxData {
            retransmit: h.retransmit,
            host_grants: h.host_grants,
            length: h.payload_len,
            cutoff_version: h.cutoff_version,
            offset: h.offset,
            buffer_id,
            message_length: h.message_length,
            local_port: h.dport,
            peer_port: h.sport,
            peer: peer_of(h),
            incoming: h.incoming,
            ack_client_id: h.ack_client_id,
            ack_server_port: h.ack_server_port,
        },
        phase: false,
    }
}

/// The `CONTROL` completion (phase 0) of control header `h`: its body window verbatim.
pub fn control_completion(h: &Header) -> Completion {
    Completion {
        rpc_id: h.sender_id ^ 1,
        status: Status::Ok,
        event: Event::Control {
            packet_type: PacketType::from(h.ptype),
            local_port: h.dport,
            peer_port: h.sport,
            peer: peer_of(h),
            body: h.body,
        },
        phase: false,
    }
}

/// The sender address a completion names: IPv6 as is, IPv4 mapped.
pub fn peer_of(h: &Header) -> Ipv6Addr {
    if h.ip_version == 4 {
        Ipv6Addr::from(h.src_ip as u32 as u128 | 0xffff_0000_0000)
    } else {
        Ipv6Addr::from(h.src_ip)
    }
}

/// What the bench offers the engine in one cycle.
#[derive(Clone, Copy, Debug, Default)]
pub struct Offer<'a> {
    /// A payload beat.
    pub beat: Option<&'a Beat>,
    /// A header.
    pub header: Option<&'a Header>,
    /// A buffer.
    pub buffer: Option<&'a Buffer>,
    /// The DMA sink takes a write.
    pub dma_ready: bool,
    /// The completion sink takes a completion.
    pub cpl_ready: bool,
}

/// What the engine answers in that cycle, once settled.
#[derive(Clone, Debug, Default)]
pub struct Answer {
    /// The payload beat is taken.
    pub pay_ready: bool,
    /// The header is taken.
    pub hdr_ready: bool,
    /// The buffer is taken.
    pub buf_ready: bool,
    /// The DMA write offered.
    pub dma: Option<DmaWrite>,
    /// The completion offered (64 bytes).
    pub cpl: Option<[u8; COMPLETION_LEN]>,
}

/// The engine under test: rust-hdl's simulation or the Verilated model.
pub trait DmaPorts {
    /// Bytes a beat (8 to 64).
    const BYTES: usize;
    /// Resets the engine.
    fn reset(&mut self);
    /// Drives this cycle's inputs and returns the settled outputs.
    fn drive(&mut self, offer: &Offer<'_>) -> Answer;
    /// The counters.
    fn counters(&self) -> Counters;
    /// The rising edge.
    fn edge(&mut self);
}

/// One packet of the traffic.
#[derive(Clone, Debug)]
pub(crate) struct Frame {
    pub(crate) payload: Vec<u8>,
    pub(crate) header: Header,
    /// The payload ends with `tuser` and no header follows.
    pub(crate) bad: bool,
}

/// A random packet (`n` makes its `sender_id` differ from its neighbours'): one in five is a
/// control packet.
pub(crate) fn frame(rng: &mut Rng, n: u64) -> Frame {
    let control = rng.chance(20);
    let len = match rng.below(20) {
        _ if control => 0,
        0 => 0,
        1 => 1 + rng.below(64),
        2 => 1400 + rng.below(8000),
        3 => 65_000 + rng.below(536),
        _ => 1 + rng.below(1500),
    } as usize;
    let payload: Vec<u8> = (0..len).map(|_| rng.byte()).collect();
    let v6 = rng.chance(20);
    let header = Header {
        ip_version: if v6 { 6 } else { 4 },
        src_ip: if v6 {
            u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64())
        } else {
            u128::from(rng.next_u64() as u32)
        },
        sport: rng.next_u64() as u16,
        dport: rng.next_u64() as u16,
        sender_id: rng.next_u64().wrapping_add(n),
        message_length: (len as u32).saturating_add(rng.below(1 << 20) as u32),
        offset: rng.next_u64() as u32,
        payload_len: len as u16,
        retransmit: rng.chance(10),
        host_grants: rng.chance(10),
        incoming: rng.next_u64() as u32,
        cutoff_version: rng.next_u64() as u16,
        ack_client_id: if rng.chance(50) { rng.next_u64() } else { 0 },
        ack_server_port: rng.next_u64() as u16,
        ..Header::default()
    };
    let header = if control {
        let t = PacketType::ALL[1 + rng.below(PacketType::ALL.len() as u64 - 1) as usize];
        let (_, window) = control_window(t);
        let mut body = [0u8; CONTROL_BODY_LEN];
        body[..window].iter_mut().for_each(|b| *b = rng.byte());
        // Its DATA fields (the payload length too) are whatever bytes sit there; the engine
        // must ignore them.
        Header {
            ptype: u8::from(t),
            body,
            payload_len: rng.next_u64() as u16,
            ..header
        }
    } else {
        Header {
            ptype: DATA,
            ..header
        }
    };
    Frame {
        bad: len > 0 && rng.chance(4),
        payload,
        header,
    }
}

/// A packet's payload as stream beats of `w` bytes.
pub(crate) fn beats_of(f: &Frame, w: usize) -> Vec<Beat> {
    let n = f.payload.len().div_ceil(w);
    f.payload
        .chunks(w)
        .enumerate()
        .map(|(i, c)| Beat {
            bytes: c.to_vec(),
            last: i + 1 == n,
            user: i + 1 == n && f.bad,
        })
        .collect()
}

fn buffer(rng: &mut Rng, index: u32) -> Buffer {
    let length = match rng.below(10) {
        0 => 1 + rng.below(1500) as u32,
        1 => 65_536,
        _ => 2048 + rng.below(8192) as u32,
    };
    Buffer {
        // Anywhere below 2^48 (some unaligned), clear of the buffers before it.
        iova: (u64::from(index) << 24) + (rng.next_u64() & 0xf_ffff),
        length,
        id: 0x1000_0000 | index,
        index,
    }
}

/// The result of [`run`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Cycles run.
    pub cycles: u64,
    /// Payload beats taken.
    pub beats: u64,
    /// The engine's counters at the end.
    pub counters: Counters,
}

/// Drives `frames` random packets from `seed` through `dut` with random gaps on every input,
/// back-pressure on both outputs and droughts of buffers, and checks every output against
/// [`DmaModel`], every write against the buffers held, and every buffer's contents.
pub fn run<D: DmaPorts>(dut: &mut D, seed: u64, frames: u64) -> Result<RunStats, String> {
    let fail = |m: String| format!("seed {seed:#x}: {m}");
    let mut rng = Rng::new(seed);
    let mut model = DmaModel::new(D::BYTES);
    let all: Vec<Frame> = (0..frames).map(|n| frame(&mut rng, n)).collect();
    // The payload stream (frames with a payload) and, per frame, when its header may go.
    let mut pay_queue: VecDeque<(usize, Beat)> = VecDeque::new();
    for (i, f) in all.iter().enumerate() {
        pay_queue.extend(beats_of(f, D::BYTES).into_iter().map(|b| (i, b)));
    }
    let mut next_header = 0usize; // the next frame whose header goes (skipping bad ones)
    let mut buffers: VecDeque<Buffer> = VecDeque::new();
    let mut next_index = 0u32;
    // Buffers taken and not yet returned, and the host memory they hold.
    let mut held: HashMap<u32, Buffer> = HashMap::new();
    let mut memory: HashMap<u64, u8> = HashMap::new();
    // Frame of each pending payload in the engine, to check buffer contents.
    let mut streamed: VecDeque<(usize, Option<u32>)> = VecDeque::new();
    let mut cur_buffer: Option<Option<u32>> = None;
    let mut stats = RunStats::default();
    let mut drought = 0u64;
    // The cycle budget, fixed from the start: 40 per packet and per payload beat.
    let budget = 40 * (frames + pay_queue.len() as u64) + 100_000;
    dut.reset();
    while next_header < all.len() || !pay_queue.is_empty() {
        stats.cycles += 1;
        if stats.cycles > budget {
            return Err(fail(format!(
                "no progress: {} cycles, over the budget of {budget} (header {next_header} of \
                 {}, {} beats left)",
                stats.cycles,
                all.len(),
                pay_queue.len()
            )));
        }
        // Skip headers that never come (bad frames).
        while next_header < all.len() && all[next_header].bad {
            next_header += 1;
        }
        // Keep a few buffers posted, with droughts.
        if drought > 0 {
            drought -= 1;
        } else if rng.below(400) == 0 {
            drought = rng.below(300);
        } else if buffers.len() < 4 {
            buffers.push_back(buffer(&mut rng, next_index));
            next_index += 1;
        }
        // A header goes after its payload's last beat was offered, and the parser holds at
        // most 4 headers behind their payloads.
        let payload_sent =
            |i: usize, q: &VecDeque<(usize, Beat)>| q.front().is_none_or(|(f, _)| *f > i);
        let header =
            (next_header < all.len() && payload_sent(next_header, &pay_queue) && rng.chance(80))
                .then(|| &all[next_header].header);
        let beat_ahead = pay_queue
            .front()
            .is_some_and(|(f, _)| *f <= next_header + 4);
        let beat = (beat_ahead && rng.chance(85)).then(|| &pay_queue[0].1);
        let offered_buffer = if rng.chance(70) {
            buffers.front().copied()
        } else {
            None
        };
        let offer = Offer {
            beat,
            header,
            buffer: offered_buffer.as_ref(),
            dma_ready: rng.chance(80),
            cpl_ready: rng.chance(75),
        };
        let a = dut.drive(&offer);
        // Headers first: the engine completes from records made in earlier cycles.
        match (header, a.hdr_ready) {
            (Some(h), true) => {
                let want = model.header(h).map_err(&fail)?;
                let frame_index = next_header;
                let got = match (&want, a.cpl, offer.cpl_ready) {
                    (Some(w), Some(bytes), true) => {
                        let mut b = [0u8; COMPLETION_LEN];
                        w.encode(&mut b);
                        if b != bytes {
                            return Err(fail(format!(
                                "frame {frame_index}: completion\n  got  {:?}\n  want {w}",
                                Completion::decode(&bytes)
                            )));
                        }
                        Some(*w)
                    }
                    (None, None, _) => None,
                    (w, c, r) => {
                        return Err(fail(format!(
                            "frame {frame_index}: header taken, completion {:?} offered \
                             (ready {r}), want {w:?}",
                            c.map(|b| Completion::decode(&b))
                        )));
                    }
                };
                if h.ptype == DATA && h.payload_len > 0 {
                    let (f, buf) = streamed
                        .pop_front()
                        .ok_or_else(|| fail("header without a streamed payload".into()))?;
                    if f != frame_index {
                        return Err(fail(format!("header {frame_index} paired with {f}")));
                    }
                    check_returned(&all[f], buf, got, &mut held, &mut memory).map_err(&fail)?;
                }
                next_header += 1;
            }
            (_, _) => {
                if a.cpl.is_some() && offer.cpl_ready {
                    return Err(fail("a completion left without its header".into()));
                }
            }
        }
        if let (Some(b), true) = (offer.buffer, a.buf_ready) {
            model.take_buffer(*b).map_err(&fail)?;
            held.insert(b.id, *b);
            buffers.pop_front();
        } else if offer.buffer.is_some() && model.wants_buffer() {
            return Err(fail("a buffer was refused while none was held".into()));
        }
        match (beat, a.pay_ready) {
            (Some(beat), true) => {
                stats.beats += 1;
                let (frame_index, _) = pay_queue[0];
                if cur_buffer.is_none() {
                    cur_buffer = Some(model_buffer(&model));
                }
                let want = model.beat(beat);
                match (&want, &a.dma) {
                    (Some(w), Some(g)) if w.same_as(g) && offer.dma_ready => {
                        check_inside(g, &held).map_err(&fail)?;
                        for (addr, byte) in g.bytes() {
                            memory.insert(addr, byte);
                        }
                    }
                    (None, None) => {}
                    (w, g) => {
                        return Err(fail(format!(
                            "frame {frame_index}: beat taken, DMA write {g:?} (ready {}), \
                             want {w:?}",
                            offer.dma_ready
                        )));
                    }
                }
                if beat.last {
                    let buf = cur_buffer.take().flatten();
                    if !beat.user {
                        streamed.push_back((frame_index, buf));
                    }
                }
                pay_queue.pop_front();
            }
            (_, _) => {
                if a.dma.is_some() && offer.dma_ready {
                    return Err(fail("a DMA write left without a payload beat".into()));
                }
            }
        }
        dut.edge();
    }
    stats.counters = dut.counters();
    if stats.counters != model.counters() {
        return Err(fail(format!(
            "counters (data, errors, no buffer, bad, empty) {:?}, want {:?}",
            stats.counters,
            model.counters()
        )));
    }
    Ok(stats)
}

/// The id of the buffer the next payload goes into, as the model sees it.
fn model_buffer(model: &DmaModel) -> Option<u32> {
    model.reuse.or(model.held).map(|b| b.id)
}

/// A write's enabled bytes all lie inside one buffer the engine holds.
fn check_inside(w: &DmaWrite, held: &HashMap<u32, Buffer>) -> Result<(), String> {
    if w.keep == 0 {
        return Err(format!("a DMA write enables no byte: {w:?}"));
    }
    let first = w.addr + u64::from(w.keep.trailing_zeros());
    let end = w.addr + 64 - u64::from(w.keep.leading_zeros());
    let inside = held
        .values()
        .any(|b| first >= b.iova && end <= b.iova + u64::from(b.length));
    if inside {
        Ok(())
    } else {
        Err(format!(
            "DMA write to {first:#x}..{end:#x} outside every buffer held"
        ))
    }
}

/// A buffer came back (or not) for frame `f`: an `RX_DATA` buffer holds exactly the payload.
fn check_returned(
    f: &Frame,
    buf: Option<u32>,
    got: Option<Completion>,
    held: &mut HashMap<u32, Buffer>,
    memory: &mut HashMap<u64, u8>,
) -> Result<(), String> {
    let Some(id) = buf else {
        return if got.is_none() {
            Ok(())
        } else {
            Err("a completion for a dropped payload".into())
        };
    };
    let b = held
        .remove(&id)
        .ok_or_else(|| format!("buffer {id:#x} returned twice"))?;
    if let Some(Completion {
        event: Event::RxData { length, .. },
        ..
    }) = got
    {
        let stored: Vec<u8> = (0..u64::from(length))
            .map(|i| memory.get(&(b.iova + i)).copied().unwrap_or(0xee))
            .collect();
        if stored != f.payload {
            return Err(format!("buffer {id:#x} does not hold its payload"));
        }
    }
    memory.retain(|&a, _| a < b.iova || a >= b.iova + u64::from(b.length));
    Ok(())
}
