//! The bench of [`crate::tx_push::TxPush`] (on-chip TX memory) at any beat width
//! ([`TxPushPorts::BYTES`]), shared by its rust-hdl test and its Verilator co-simulation in
//! `homa-sim`: seeded random pushes (any word of BAR0's
//! upper half, any byte enables), descriptor reads and payload reads that mix host memory and
//! on-chip memory (inside and outside their areas, at lane 26 and not), a host-memory model
//! that answers after random latencies with gaps, and random back-pressure on payload beats.
//!
//! The reference is the on-chip memory as the host wrote it (`hostif::onchip`): every answer
//! must arrive in request order, hold exactly the bytes expected (host bytes passed through,
//! on-chip words as pushed, zeros for a read outside its area) and be counted as a fault
//! exactly when it is outside. A push never touches words an unanswered read will return,
//! so each answer is defined whatever the timing.

use std::collections::VecDeque;

use homa_proto::hostif::onchip;

use crate::bench::Rng;
use crate::data_framer::payload_lane as lane;

/// What the bench offers the block in one cycle (beats of [`TxPushPorts::BYTES`] bytes).
#[derive(Clone, Debug, Default)]
pub struct TxPushOffer {
    /// A push: word (BAR0 offset / 64), bytes, byte enables.
    pub push: Option<(u16, [u8; 64], u64)>,
    /// A descriptor read (address).
    pub rd: Option<u64>,
    /// Host memory takes a descriptor read.
    pub dma_rd_ready: bool,
    /// Host memory offers a beat of a descriptor read's answer (`64 / BYTES` beats a read).
    pub dma_rd_resp: Option<Vec<u8>>,
    /// A payload read (address, length).
    pub pay: Option<(u64, u32)>,
    /// The engine takes a payload beat.
    pub payr_ready: bool,
    /// Host memory takes a payload read.
    pub dma_pay_ready: bool,
    /// Host memory offers a payload beat.
    pub dma_pay_beat: Option<Vec<u8>>,
}

/// The block's outputs in that cycle, before the edge.
#[derive(Clone, Debug, Default)]
pub struct TxPushAnswer {
    /// The descriptor read is taken.
    pub rd_ready: bool,
    /// A descriptor answer (a whole 64-byte record).
    pub rdr: Option<[u8; 64]>,
    /// A descriptor read to host memory (address).
    pub dma_rd: Option<u64>,
    /// The payload read is taken.
    pub pay_ready: bool,
    /// A payload beat to the engine.
    pub payr: Option<Vec<u8>>,
    /// A payload read to host memory (address, length).
    pub dma_pay: Option<(u64, u32)>,
    /// Host memory's beat is taken.
    pub dma_pay_ready: bool,
    /// The fault counter.
    pub faults: u32,
}

/// A bench's access to the block, one clock cycle per `cycle`.
pub trait TxPushPorts {
    /// Bytes a beat on the payload and host read ports (8 or 64).
    const BYTES: usize;
    /// Reset.
    fn reset(&mut self);
    /// Sets the inputs, reads the outputs, then clocks one edge.
    fn cycle(&mut self, o: &TxPushOffer) -> TxPushAnswer;
}

/// What a run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxPushStats {
    /// Cycles.
    pub cycles: u64,
    /// Pushes.
    pub pushes: u64,
    /// Descriptor reads answered on chip, and from host memory.
    pub rd_onchip: u64,
    /// Host descriptor reads.
    pub rd_host: u64,
    /// Payload reads streamed on chip.
    pub pay_onchip: u64,
    /// Host payload reads.
    pub pay_host: u64,
    /// On-chip payload reads taken while a host payload read before them was still being
    /// answered (they do not wait for it to be taken).
    pub pay_onchip_behind_host: u64,
    /// Reads outside their area (answered with zeros).
    pub faults: u32,
}

/// The payload beats of a read of `len` bytes at `w` bytes a beat: byte 0 at lane 26 mod `w`.
pub fn beats(len: u32, w: usize) -> usize {
    (lane(w) + len as usize).div_ceil(w)
}

/// Host memory's bytes at `addr` (any address: a pure function of it).
fn host_byte(addr: u64) -> u8 {
    (addr.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56) as u8
}

/// Host memory's beat `k` of a payload read at `addr`, `w` bytes a beat: lane `l` holds the
/// byte at `addr - 26 mod w + w k + l` (what a DMA engine placing byte 0 at that lane
/// returns).
fn host_beat(addr: u64, k: usize, w: usize) -> Vec<u8> {
    let first = addr.wrapping_sub(lane(w) as u64);
    (0..w)
        .map(|l| host_byte(first.wrapping_add((w * k + l) as u64)))
        .collect()
}

/// A read the bench waits for, in order: its beats (one 64-byte record for a descriptor
/// read).
#[derive(Debug)]
struct Due {
    beats: VecDeque<Vec<u8>>,
    /// The on-chip words it reads (pushes keep off them until it is answered).
    words: Vec<u16>,
    /// A read of host memory.
    host: bool,
}

/// The on-chip word (BAR0 offset / 64) of a descriptor read at `addr`, and whether it is
/// inside the ring area.
fn ring_word(addr: u64) -> (u16, bool) {
    let word = (onchip::RING_OFFSET as u64 / 64 + (addr >> 6 & 63)) as u16;
    (
        word,
        addr >> 12 & 15 == u64::from(onchip::RING_OFFSET >> 12),
    )
}

/// Whether an on-chip payload read of `len` bytes at `addr` is inside the payload area at
/// lane 26, the words it streams from, and its beats at `w` bytes a beat: from the beat of
/// the word that holds lane `26 mod w`'s byte on (the area's word after its last wraps to
/// its first).
fn payload_area_read(addr: u64, len: u32, w: usize) -> (bool, Vec<u16>, Vec<(u16, usize)>) {
    let off = addr & 0xffff;
    let ok = off >> 14 == u64::from(onchip::PAYLOAD_OFFSET >> 14)
        && off % 64 == u64::from(onchip::PAYLOAD_LANE)
        && len < 1 << 16
        && off + u64::from(len) <= 0x1_0000;
    let first = (addr >> 6 & 0xff) as usize;
    let base = (onchip::PAYLOAD_OFFSET / 64) as usize;
    let sub0 = onchip::PAYLOAD_LANE as usize / w;
    // Beat k: (word, byte offset in it).
    let beats: Vec<(u16, usize)> = (0..beats(len, w))
        .map(|k| {
            let at = sub0 * w + k * w;
            ((base + (first + at / 64) % 256) as u16, at % 64)
        })
        .collect();
    let mut words: Vec<u16> = beats.iter().map(|b| b.0).collect();
    words.dedup();
    (ok, words, beats)
}

/// One run of about `n` reads of each kind from `seed`.
pub fn run<D: TxPushPorts>(dut: &mut D, seed: u64, n: u32) -> Result<TxPushStats, String> {
    let w = D::BYTES;
    let fail = |m: String| format!("seed {seed:#x}: {m}");
    let mut rng = Rng::new(seed);
    let mut mem = vec![0u8; 1 << 16];
    let mut stats = TxPushStats::default();
    let mut rd_due: VecDeque<Due> = VecDeque::new();
    let mut pay_due: VecDeque<Due> = VecDeque::new();
    // Host memory: descriptor read beats (due cycle, bytes), payload reads (due cycle, addr,
    // len, next beat).
    let mut host_rd: VecDeque<(u64, Vec<u8>)> = VecDeque::new();
    let mut host_pay: VecDeque<(u64, u64, u32, usize)> = VecDeque::new();
    let mut rd_offer: Option<u64> = None;
    let mut pay_offer: Option<(u64, u32)> = None;
    let (mut rd_left, mut pay_left) = (n, n);
    let mut faults = 0u32;
    let busy_ready = rng.below(60);
    let mut beat_held = false;
    dut.reset();
    let limit = (400 * u64::from(n) + 10_000) * (64 / w) as u64;
    for cycle in 0..limit {
        if rd_left == 0 && pay_left == 0 && rd_due.is_empty() && pay_due.is_empty() {
            stats.cycles = cycle;
            break;
        }
        // New reads, held until taken.
        if rd_offer.is_none() && rd_left > 0 && rng.chance(40) {
            rd_left -= 1;
            rd_offer = Some(match rng.below(10) {
                0..=3 => onchip::iova_of(onchip::RING_OFFSET) + 64 * rng.below(64),
                4 => onchip::IOVA + 64 * rng.below(1024),
                _ => 0x4000_0000 + 64 * rng.below(1 << 20),
            });
        }
        if pay_offer.is_none() && pay_left > 0 && rng.chance(30) {
            pay_left -= 1;
            let good = onchip::iova_of(onchip::PAYLOAD_OFFSET)
                + 64 * rng.below(256)
                + u64::from(onchip::PAYLOAD_LANE);
            pay_offer = Some(match rng.below(10) {
                0..=3 => {
                    let room = (0x1_0000 - (good & 0xffff)) as u32;
                    (good, 1 + rng.below(u64::from(room.min(1500))) as u32)
                }
                4 => match rng.below(3) {
                    0 => (good + 1 + rng.below(63), 1 + rng.below(500) as u32),
                    1 => (onchip::IOVA + rng.below(0xc000), 1 + rng.below(500) as u32),
                    _ => (good, 0x1_0000 - (good & 0xffff) as u32 + 1),
                },
                _ => (0x8000_0000 + rng.below(1 << 30), 1 + rng.below(1500) as u32),
            });
        }
        // A push to a word no unanswered read (or read on offer) returns.
        let mut busy: Vec<u16> = rd_due
            .iter()
            .chain(pay_due.iter())
            .flat_map(|d| d.words.iter().copied())
            .collect();
        if let Some(a) = rd_offer.filter(|&a| onchip::is_onchip(a)) {
            busy.push(ring_word(a).0);
        }
        if let Some((a, l)) = pay_offer.filter(|&(a, _)| onchip::is_onchip(a)) {
            busy.extend(payload_area_read(a, l, w).1);
        }
        let push = if rng.chance(50) {
            let word = match rng.below(8) {
                0..=2 => (onchip::RING_OFFSET / 64) as u16 + rng.below(64) as u16,
                3..=6 => (onchip::PAYLOAD_OFFSET / 64) as u16 + rng.below(256) as u16,
                _ => rng.below(1024) as u16,
            };
            let keep = if rng.chance(50) {
                u64::MAX
            } else {
                rng.next_u64()
            };
            (!busy.contains(&word)).then(|| {
                let data: [u8; 64] = std::array::from_fn(|_| rng.byte());
                (word, data, keep)
            })
        } else {
            None
        };
        // Host memory's answers, after their latency.
        let dma_rd_resp = match host_rd.front() {
            Some((due, _)) if *due <= cycle => host_rd.pop_front().map(|(_, b)| b),
            _ => None,
        };
        let dma_pay_beat = match host_pay.front() {
            // Once offered, a beat stays offered until taken.
            Some(&(due, addr, _, k)) if due <= cycle && (beat_held || rng.chance(80)) => {
                Some(host_beat(addr, k, w))
            }
            _ => None,
        };
        let offer = TxPushOffer {
            push,
            rd: rd_offer,
            dma_rd_ready: rng.chance(70),
            dma_rd_resp,
            pay: pay_offer,
            payr_ready: rng.below(100) >= busy_ready,
            dma_pay_ready: rng.chance(70),
            dma_pay_beat,
        };
        let a = dut.cycle(&offer);
        let faults_before = faults;
        beat_held = offer.dma_pay_beat.is_some() && !a.dma_pay_ready;
        // Descriptor answers, in order.
        if let Some(got) = a.rdr {
            let Some(mut d) = rd_due.pop_front() else {
                return Err(fail(format!(
                    "cycle {cycle}: a descriptor answer nobody asked for"
                )));
            };
            let want = d.beats.pop_front().expect("one beat");
            if got[..] != want[..] {
                return Err(fail(format!(
                    "cycle {cycle}: descriptor answer {:02x?}, want {:02x?}",
                    &got[..16],
                    &want[..16]
                )));
            }
        }
        if let Some(addr) = a.dma_rd {
            if onchip::is_onchip(addr) || Some(addr) != rd_offer {
                return Err(fail(format!(
                    "cycle {cycle}: host descriptor read {addr:#x}"
                )));
            }
        } else if rd_offer.is_some_and(|r| !onchip::is_onchip(r)) {
            return Err(fail(format!(
                "cycle {cycle}: a host descriptor read not passed on"
            )));
        }
        if a.rd_ready
            && let Some(addr) = rd_offer.take()
        {
            if onchip::is_onchip(addr) {
                stats.rd_onchip += 1;
                let (word, ok) = ring_word(addr);
                let at = 64 * word as usize;
                let mut b = [0u8; 64];
                if ok {
                    b.copy_from_slice(&mem[at..at + 64]);
                } else {
                    faults += 1;
                }
                rd_due.push_back(Due {
                    beats: VecDeque::from([b.to_vec()]),
                    words: vec![word],
                    host: false,
                });
            } else {
                if !offer.dma_rd_ready {
                    return Err(fail(format!("cycle {cycle}: a host read taken unasked")));
                }
                stats.rd_host += 1;
                let b: Vec<u8> = (0..64).map(|l| host_byte(addr + l as u64)).collect();
                // Answered in 64 / w beats, back to back.
                let due = cycle + 1 + rng.below(20);
                for beat in b.chunks(w) {
                    host_rd.push_back((due, beat.to_vec()));
                }
                rd_due.push_back(Due {
                    beats: VecDeque::from([b]),
                    words: Vec::new(),
                    host: true,
                });
            }
        }
        // Payload beats, in order.
        if let Some(got) = &a.payr
            && offer.payr_ready
        {
            let Some(d) = pay_due.front_mut() else {
                return Err(fail(format!(
                    "cycle {cycle}: a payload beat nobody asked for"
                )));
            };
            let want = d.beats.pop_front().expect("a beat left");
            if *got != want {
                let n = w.min(32);
                return Err(fail(format!(
                    "cycle {cycle}: payload beat {:02x?}.., want {:02x?}..",
                    &got[..n],
                    &want[..n]
                )));
            }
            if d.beats.is_empty() {
                pay_due.pop_front();
            }
        }
        if a.dma_pay_ready && offer.dma_pay_beat.is_some() {
            let front = host_pay.front_mut().expect("a beat was offered");
            front.3 += 1;
            if front.3 == beats(front.2, w) {
                host_pay.pop_front();
            }
            if !offer.payr_ready || a.payr != offer.dma_pay_beat {
                return Err(fail(format!(
                    "cycle {cycle}: a host beat taken but not passed"
                )));
            }
        }
        if let Some((addr, len)) = a.dma_pay
            && (onchip::is_onchip(addr) || Some((addr, len)) != pay_offer)
        {
            return Err(fail(format!("cycle {cycle}: host payload read {addr:#x}")));
        }
        if a.pay_ready
            && let Some((addr, len)) = pay_offer.take()
        {
            if onchip::is_onchip(addr) {
                stats.pay_onchip += 1;
                let (ok, words, at) = payload_area_read(addr, len, w);
                let beats = at
                    .iter()
                    .map(|&(word, off)| {
                        let start = 64 * word as usize + off;
                        if ok {
                            mem[start..start + w].to_vec()
                        } else {
                            vec![0u8; w]
                        }
                    })
                    .collect();
                faults += u32::from(!ok);
                if pay_due.iter().any(|d| d.host) {
                    stats.pay_onchip_behind_host += 1;
                }
                pay_due.push_back(Due {
                    beats,
                    words,
                    host: false,
                });
            } else {
                if !offer.dma_pay_ready {
                    return Err(fail(format!(
                        "cycle {cycle}: a host payload read taken unasked"
                    )));
                }
                stats.pay_host += 1;
                let beats = (0..beats(len, w)).map(|k| host_beat(addr, k, w)).collect();
                pay_due.push_back(Due {
                    beats,
                    words: Vec::new(),
                    host: true,
                });
                host_pay.push_back((cycle + 1 + rng.below(30), addr, len, 0));
            }
        }
        if let Some((word, data, keep)) = push {
            stats.pushes += 1;
            let in_area = (onchip::RING_OFFSET / 64..onchip::RING_OFFSET / 64 + 64)
                .contains(&u32::from(word))
                || u32::from(word) >= onchip::PAYLOAD_OFFSET / 64;
            if in_area {
                for (l, &b) in data.iter().enumerate() {
                    if keep >> l & 1 == 1 {
                        mem[64 * word as usize + l] = b;
                    }
                }
            }
        }
        // The counter shows a fault from the edge that takes the read.
        if a.faults != faults_before {
            return Err(fail(format!(
                "cycle {cycle}: faults {} want {faults_before}",
                a.faults
            )));
        }
        stats.cycles = cycle + 1;
    }
    if !(rd_due.is_empty() && pay_due.is_empty() && rd_left == 0 && pay_left == 0) {
        return Err(fail(format!(
            "not done after {limit} cycles: {} descriptor and {} payload answers due",
            rd_due.len(),
            pay_due.len()
        )));
    }
    let last = dut.cycle(&TxPushOffer::default());
    if last.faults != faults {
        return Err(fail(format!("faults {} want {faults}", last.faults)));
    }
    stats.faults = faults;
    Ok(stats)
}

/// Four runs from `seed..seed + 4`, each on a fresh block from `make`, printing what they
/// did; each must have read both memories both ways, met faults and taken on-chip payload
/// reads behind host ones still being answered.
pub fn run_seeds<D: TxPushPorts>(
    what: &str,
    mut make: impl FnMut() -> D,
    seed: u64,
    n: u32,
) -> Result<(), String> {
    for i in 0..4u64 {
        let s = seed.wrapping_add(i);
        eprintln!("{what}: seed {s:#x} (HOMA_HW_SEED to replay), {n} reads of each kind");
        let stats = run(&mut make(), s, n)?;
        eprintln!("  {stats:?}");
        if stats.rd_onchip == 0
            || stats.rd_host == 0
            || stats.pay_onchip == 0
            || stats.pay_host == 0
            || stats.faults == 0
            || stats.pay_onchip_behind_host == 0
        {
            return Err(format!(
                "seed {s:#x}: a kind of read never happened: {stats:?}"
            ));
        }
    }
    Ok(())
}
