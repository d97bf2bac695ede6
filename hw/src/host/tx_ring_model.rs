//! The bench for [`crate::tx_ring::TxRing512`], shared by its rust-hdl test and the Verilator
//! co-simulation in `homa-sim`: a host that posts TX descriptors (`proto::hostif` encoding;
//! some malformed, too long, wrapping, or outside the TX window when one is set) into its ring
//! whenever `tx_consumer` leaves room, and a DMA read server that answers in order after a
//! random latency, reading host memory when it answers.
//!
//! Checks: every descriptor comes out once, in ring order, with its index: a good one with
//! every field as `TxDescriptor::decode` reads it, a refused one with the status
//! [`TxLimits::refusal`] gives and its raw RPC id and cookie (what its `ERROR` completion
//! carries); the refusals are counted; each read is one descriptor of a posted slot; and since
//! the host rewrites a slot as soon as `tx_consumer` passes it, a consumer that ran ahead of
//! the reads would hand out a rewritten descriptor.

use std::collections::VecDeque;

use homa_proto::hostif::{
    DmaWindow, Field, Status, TX_DESC_LEN, TxDescriptor, TxFlags, TxLimits, TxOp, TxOpcode, onchip,
    tx_field,
};
use homa_proto::regs::DEFAULT_MAX_PAYLOAD;
use homa_proto::wire::MAX_MESSAGE_LENGTH;

use crate::bench::Rng;

/// What the bench offers the fetcher in one cycle.
#[derive(Clone, Copy, Debug, Default)]
pub struct TxRingOffer {
    /// Ring IOVA.
    pub base: u64,
    /// log2 of the entry count.
    pub log2: u8,
    /// The host's producer index.
    pub producer: u32,
    /// The `tx_log2_size` write pulse (restart at 0).
    pub clear: bool,
    /// The NIC's limits.
    pub limits: TxLimits,
    /// A read request is taken.
    pub rd_ready: bool,
    /// A read response.
    pub resp: Option<[u8; 64]>,
    /// A descriptor is taken.
    pub desc_ready: bool,
    /// A refusal is taken.
    pub err_ready: bool,
}

/// The fetcher's descriptor outputs (`m_desc_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxHead {
    /// RETRANSMIT.
    pub retransmit: bool,
    /// CANCEL.
    pub cancel: bool,
    /// NO_COMPLETION.
    pub no_completion: bool,
    /// Local port.
    pub src_port: u16,
    /// Peer's port.
    pub dst_port: u16,
    /// RPC id.
    pub rpc_id: u64,
    /// Peer address bytes, network order.
    pub peer: [u8; 16],
    /// Message length.
    pub length: u32,
    /// Payload IOVA.
    pub iova: u64,
    /// First byte to send.
    pub offset: u32,
    /// Bytes to send.
    pub bytes: u32,
    /// Cookie.
    pub cookie: u64,
    /// Ring index.
    pub index: u32,
}

impl TxHead {
    /// What the fetcher hands out for the good descriptor `d` at ring index `index`.
    pub fn of(d: &TxDescriptor, index: u32) -> TxHead {
        let (retransmit, offset, bytes) = match d.op {
            TxOp::SendMessage | TxOp::Cancel => (false, 0, d.message_length),
            TxOp::Retransmit { offset, length } => (true, offset, length),
        };
        TxHead {
            retransmit,
            cancel: d.op == TxOp::Cancel,
            no_completion: d.flags.contains(TxFlags::NO_COMPLETION),
            src_port: d.src_port,
            dst_port: d.dst_port,
            rpc_id: d.rpc_id,
            peer: d.peer.octets(),
            length: d.message_length,
            iova: d.payload_iova,
            offset,
            bytes,
            cookie: d.cookie,
            index,
        }
    }
}

/// What the fetcher answers, once settled.
#[derive(Clone, Copy, Debug, Default)]
pub struct TxRingAnswer {
    /// A read request (address, bytes).
    pub rd: Option<(u64, u32)>,
    /// A good descriptor offered.
    pub desc: Option<TxHead>,
    /// A refused descriptor offered (its fields as read), with its status byte.
    pub err: Option<(TxHead, u8)>,
}

/// The fetcher under test.
pub trait TxRingPorts {
    /// Resets it.
    fn reset(&mut self);
    /// Drives this cycle's inputs and returns the settled outputs.
    fn drive(&mut self, offer: &TxRingOffer) -> TxRingAnswer;
    /// (consumer, bad).
    fn counters(&self) -> (u32, u32);
    /// The rising edge.
    fn edge(&mut self);
}

/// The result of [`run`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TxRingStats {
    /// Cycles run.
    pub cycles: u64,
    /// Good descriptors handed out.
    pub good: u64,
    /// Descriptors refused (the fetcher's `bad` counter).
    pub bad: u32,
    /// Of which too long.
    pub too_long: u32,
    /// Of which outside the window.
    pub out_of_bounds: u32,
}

/// The window a run uses, when it uses one: 2^40 bytes from 2^40.
pub const WINDOW: DmaWindow = DmaWindow {
    base: 1 << 40,
    len: 1 << 40,
};

/// A random descriptor, as its 64 bytes: mostly good (inside [`WINDOW`], 1 B to 1 MB,
/// some retransmits, a few cancels); one in three faulty in one of twelve ways.
pub fn descriptor(rng: &mut Rng, index: u32, max_len: u32) -> [u8; TX_DESC_LEN] {
    let len = match rng.below(4) {
        0 => 1 + rng.below(100) as u32,
        1 => 1 + rng.below(1500) as u32,
        2 => 1 + rng.below(100_000) as u32,
        _ => 1 + rng.below(u64::from(MAX_MESSAGE_LENGTH)) as u32,
    };
    let op = if rng.chance(20) {
        let offset = rng.below(u64::from(len)) as u32;
        let length = 1 + rng.below(u64::from(len - offset)) as u32;
        TxOp::Retransmit { offset, length }
    } else if rng.chance(8) {
        TxOp::Cancel
    } else {
        TxOp::SendMessage
    };
    // IPv4-mapped, or now and then any 16 bytes (refused: the NIC frames IPv4 only).
    let mut peer = [0u8; 16];
    for b in peer.iter_mut() {
        *b = rng.below(256) as u8;
    }
    if !rng.chance(3) {
        peer[..10].fill(0);
        peer[10..12].fill(0xff);
    }
    let d = TxDescriptor {
        op,
        flags: if rng.chance(10) {
            TxFlags::NO_COMPLETION
        } else {
            TxFlags::default()
        },
        rpc_id: rng.next_u64(),
        peer: peer.into(),
        src_port: rng.below(1 << 16) as u16,
        dst_port: rng.below(1 << 16) as u16,
        message_length: len,
        payload_iova: WINDOW.base + (rng.next_u64() >> 25),
        cookie: rng.next_u64() ^ u64::from(index),
    };
    let mut b = [0u8; TX_DESC_LEN];
    d.encode(&mut b);
    let end = WINDOW.base + WINDOW.len;
    // A field set to `v` (little-endian, the field's width).
    let put = |b: &mut [u8; TX_DESC_LEN], f: Field, v: u64| {
        b[f.offset..f.end()].copy_from_slice(&v.to_le_bytes()[..f.len])
    };
    let byte_of = |rng: &mut Rng, f: Field| f.offset + rng.below(f.len as u64) as usize;
    let (send, retx, cancel) = (
        u64::from(TxOpcode::SendMessage as u8),
        u64::from(TxOpcode::Retransmit as u8),
        u64::from(TxOpcode::Cancel as u8),
    );
    match rng.below(40) {
        0 => put(
            &mut b,
            tx_field::OPCODE,
            [0, 4, 0xff][rng.below(3) as usize],
        ),
        1 => b[tx_field::FLAGS.offset] |= 2 << rng.below(7),
        2 => b[byte_of(rng, tx_field::RESERVED0)] = 1 + rng.below(255) as u8,
        3 => b[byte_of(rng, tx_field::RESERVED1)] = 1 + rng.below(255) as u8,
        4 => put(&mut b, tx_field::MESSAGE_LENGTH, 0),
        5 => {
            // A SEND or CANCEL with a retransmit field set.
            put(
                &mut b,
                tx_field::OPCODE,
                [send, cancel][rng.below(2) as usize],
            );
            let f =
                [tx_field::RETRANSMIT_OFFSET, tx_field::RETRANSMIT_LENGTH][rng.below(2) as usize];
            put(&mut b, f, 1 + rng.below(100));
        }
        6 => {
            put(&mut b, tx_field::OPCODE, retx);
            put(
                &mut b,
                tx_field::RETRANSMIT_OFFSET,
                rng.below(u64::from(len)),
            );
            put(&mut b, tx_field::RETRANSMIT_LENGTH, 0);
        }
        7 => {
            // A RETRANSMIT range one byte or more past the end (offset + length in 33 bits).
            put(&mut b, tx_field::OPCODE, retx);
            let offset = rng.below(u64::from(len) + 1) as u32;
            put(&mut b, tx_field::RETRANSMIT_OFFSET, u64::from(offset));
            let past = len - offset + 1 + rng.below(u64::from(u32::MAX - (len - offset))) as u32;
            put(&mut b, tx_field::RETRANSMIT_LENGTH, u64::from(past));
        }
        8 => put(
            &mut b,
            tx_field::MESSAGE_LENGTH,
            u64::from(max_len.saturating_add(1 + rng.below(1000) as u32)),
        ),
        9 => put(
            &mut b,
            tx_field::PAYLOAD_IOVA,
            u64::MAX - rng.below(u64::from(len)),
        ),
        10 => put(
            &mut b,
            tx_field::PAYLOAD_IOVA,
            WINDOW.base - 1 - rng.below(1 << 20),
        ),
        11 => put(
            &mut b,
            tx_field::PAYLOAD_IOVA,
            end - u64::from(len) + 1 + rng.below(1 << 20),
        ),
        12 => put(&mut b, tx_field::PAYLOAD_IOVA, end - u64::from(len)),
        13..=16 => {
            // On chip: mostly a payload-area word at lane 26, now and then any lane or any
            // word of the on-chip window (the ring area, say), 1 to 2,000 bytes.
            let word = rng.below(1 << 10);
            let lane = if rng.chance(25) {
                rng.below(64)
            } else {
                u64::from(onchip::PAYLOAD_LANE)
            };
            let at = if rng.chance(25) {
                word * 64
            } else {
                u64::from(onchip::PAYLOAD_OFFSET) + (word % 256) * 64
            };
            put(
                &mut b,
                tx_field::PAYLOAD_IOVA,
                onchip::iova_of(at as u32 + lane as u32),
            );
            put(&mut b, tx_field::MESSAGE_LENGTH, 1 + rng.below(2000));
        }
        _ => {}
    }
    b
}

/// A 64-bit field of a descriptor as read, whatever the rest holds.
fn u64_at(b: &[u8; TX_DESC_LEN], f: Field) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[f.offset..f.end()]);
    u64::from_le_bytes(w)
}

/// Posts `n` descriptors through a ring of random size and checks what the fetcher does.
pub fn run<D: TxRingPorts>(dut: &mut D, seed: u64, n: u32) -> Result<TxRingStats, String> {
    let fail = |m: String| format!("seed {seed:#x}: {m}");
    let mut rng = Rng::new(seed);
    let log2 = 1 + rng.below(8) as u8;
    let size = 1u32 << log2;
    let base = 0x4000_0000 + 4096 * rng.below(1024);
    let mut ring = vec![0u8; size as usize * TX_DESC_LEN];
    // Even seeds set the window, odd ones leave it off; some runs lower the length limit.
    let limits = TxLimits {
        max_message_length: if rng.chance(50) {
            MAX_MESSAGE_LENGTH
        } else {
            50_000 + rng.below(150_000) as u32
        },
        window: if seed.is_multiple_of(2) {
            WINDOW
        } else {
            DmaWindow::default()
        },
        max_payload: if rng.chance(50) {
            DEFAULT_MAX_PAYLOAD
        } else {
            100 + rng.below(1900) as u32
        },
    };
    let mut posted: VecDeque<(u32, [u8; TX_DESC_LEN])> = VecDeque::new();
    let (mut producer, mut doorbell, mut fetch) = (0u32, 0u32, 0u32);
    let mut reads: VecDeque<(u64, u64)> = VecDeque::new(); // (due cycle, addr)
    let mut stats = TxRingStats::default();
    dut.reset();
    let mut consumer = 0u32;
    let mut drain = 0;
    while drain < 300 {
        if producer == n && reads.is_empty() && posted.is_empty() {
            drain += 1;
        }
        stats.cycles += 1;
        if stats.cycles > 400 * u64::from(n) + 1000 {
            return Err(fail(format!(
                "no progress: {} out, producer {producer}, consumer {consumer}",
                stats.good + u64::from(stats.bad)
            )));
        }
        // The host writes descriptors into slots the NIC has read, and rings the doorbell.
        while producer < n && producer.wrapping_sub(consumer) < size && rng.chance(50) {
            let b = descriptor(&mut rng, producer, limits.max_message_length);
            let at = (producer & (size - 1)) as usize * TX_DESC_LEN;
            ring[at..at + TX_DESC_LEN].copy_from_slice(&b);
            posted.push_back((producer, b));
            producer += 1;
        }
        if rng.chance(30) {
            doorbell = producer;
        }
        // The read server: in order, after its latency, from memory as it is then.
        let resp = match reads.front() {
            Some(&(due, addr)) if due <= stats.cycles => {
                reads.pop_front();
                let at = (addr - base) as usize;
                let mut data = [0u8; 64];
                data.copy_from_slice(&ring[at..at + TX_DESC_LEN]);
                Some(data)
            }
            _ => None,
        };
        let offer = TxRingOffer {
            base,
            log2,
            producer: doorbell,
            clear: false,
            limits,
            rd_ready: rng.chance(70),
            resp,
            desc_ready: rng.chance(60),
            err_ready: rng.chance(60),
        };
        let a = dut.drive(&offer);
        if let Some((addr, len)) = a.rd.filter(|_| offer.rd_ready) {
            let want = base + u64::from(fetch & (size - 1)) * TX_DESC_LEN as u64;
            if addr != want || len != TX_DESC_LEN as u32 || fetch == doorbell {
                return Err(fail(format!(
                    "read {addr:#x}+{len} at index {fetch} (ring {size} at {base:#x}, \
                     doorbell {doorbell})"
                )));
            }
            fetch = fetch.wrapping_add(1);
            reads.push_back((stats.cycles + 5 + rng.below(60), addr));
        }
        if a.desc.is_some() && a.err.is_some() {
            return Err(fail(format!("a descriptor and a refusal at once: {a:?}")));
        }
        let taken = a
            .desc
            .filter(|_| offer.desc_ready)
            .map(|h| (h, 0))
            .or(a.err.filter(|_| offer.err_ready));
        if let Some((h, status)) = taken {
            let (index, raw) = posted
                .pop_front()
                .ok_or_else(|| fail(format!("{h:?} (status {status}) never posted")))?;
            let want_status = limits.refusal(&raw).map_or(0, |s| s as u8);
            // A refusal is reported with its index, raw RPC id and cookie.
            let same = match TxDescriptor::decode(&raw) {
                Ok(d) if status == 0 => h == TxHead::of(&d, index),
                _ => {
                    (h.index, h.rpc_id, h.cookie)
                        == (
                            index,
                            u64_at(&raw, tx_field::RPC_ID),
                            u64_at(&raw, tx_field::COOKIE),
                        )
                }
            };
            if !same || status != want_status {
                return Err(fail(format!(
                    "{h:?} status {status}, want status {want_status} for index {index}: \
                     {raw:02x?} ({limits:?})"
                )));
            }
            match status {
                0 => stats.good += 1,
                s if s == Status::OutOfBounds as u8 => stats.out_of_bounds += 1,
                s if s == Status::MessageTooLong as u8 => stats.too_long += 1,
                _ => {}
            }
        }
        dut.edge();
        consumer = dut.counters().0;
        if consumer.wrapping_sub(fetch) as i32 > 0 {
            return Err(fail(format!(
                "consumer {consumer} ahead of the reads ({fetch})"
            )));
        }
    }
    let (consumer, bad) = dut.counters();
    stats.bad = bad;
    let bad_want = n - stats.good as u32;
    if bad != bad_want || consumer != n {
        return Err(fail(format!(
            "refused {bad} (want {bad_want}), consumer {consumer} (want {n})"
        )));
    }
    Ok(stats)
}

/// Four runs of `n` descriptors from seeds `seed..seed + 4` (even seeds with the window,
/// odd ones without), each on a fresh fetcher from `make`, printing what they did: every run
/// must refuse something besides passing most, and the runs together must have refused a
/// message too long and a payload outside the window.
pub fn run_seeds<D: TxRingPorts>(
    what: &str,
    mut make: impl FnMut() -> D,
    seed: u64,
    n: u32,
) -> Result<(), String> {
    let (mut too_long, mut out_of_bounds) = (0, 0);
    for i in 0..4u64 {
        let s = seed.wrapping_add(i);
        eprintln!("{what}: seed {s:#x} (HOMA_HW_SEED to replay), {n} descriptors");
        let stats = run(&mut make(), s, n)?;
        eprintln!("  {stats:?}");
        if stats.bad == 0 || stats.good < u64::from(n) / 4 {
            return Err(format!("seed {s:#x}: too little of either kind: {stats:?}"));
        }
        too_long += stats.too_long;
        out_of_bounds += stats.out_of_bounds;
    }
    if too_long == 0 || out_of_bounds == 0 {
        return Err(format!(
            "seeds {seed:#x}+4: {too_long} too long, {out_of_bounds} outside the window"
        ));
    }
    Ok(())
}

/// A directed case for the clear pulse: reads are in flight when the host restarts the ring;
/// their answers (old descriptors) must be discarded, and the indices must restart at 0 with
/// only the descriptors posted after the clear handed out.
pub fn clear_case<D: TxRingPorts>(dut: &mut D) -> Result<(), String> {
    let (base, log2) = (0x8000_0000u64, 4u8);
    let beat = |cookie: u64| {
        let d = TxDescriptor {
            op: TxOp::SendMessage,
            flags: TxFlags::default(),
            rpc_id: cookie * 2,
            peer: homa_proto::hostif::peer_address([10, 0, 0, 9].into()),
            src_port: 1,
            dst_port: 2,
            message_length: 100,
            payload_iova: 0x1_0000 * cookie,
            cookie,
        };
        let mut b = [0u8; TX_DESC_LEN];
        d.encode(&mut b);
        b
    };
    let idle = TxRingOffer {
        base,
        log2,
        ..TxRingOffer::default()
    };
    dut.reset();
    // 3 posted: three reads go out and stay unanswered.
    let mut issued = 0;
    for _ in 0..6 {
        let a = dut.drive(&TxRingOffer {
            producer: 3,
            rd_ready: true,
            ..idle
        });
        issued += usize::from(a.rd.is_some());
        dut.edge();
    }
    if issued != 3 {
        return Err(format!("{issued} reads issued for 3 descriptors, want 3"));
    }
    dut.drive(&TxRingOffer {
        clear: true,
        ..idle
    });
    dut.edge();
    for old in 1..=3 {
        let a = dut.drive(&TxRingOffer {
            resp: Some(beat(old)),
            ..idle
        });
        if a.rd.is_some() || a.desc.is_some() || a.err.is_some() {
            return Err(format!("after the clear: {a:?} with nothing posted"));
        }
        dut.edge();
    }
    let mut out = Vec::new();
    let mut pending = VecDeque::new();
    let mut next = 100;
    for _ in 0..40 {
        let a = dut.drive(&TxRingOffer {
            producer: 2,
            rd_ready: true,
            resp: pending.pop_front(),
            desc_ready: true,
            err_ready: true,
            ..idle
        });
        if let Some((addr, _)) = a.rd {
            let want = base + 64 * (next - 100);
            if addr != want {
                return Err(format!("read {addr:#x} after the clear, want {want:#x}"));
            }
            pending.push_back(beat(next));
            next += 1;
        }
        if let Some(h) = a.desc {
            out.push((h.cookie, h.index));
        }
        dut.edge();
    }
    let (consumer, _) = dut.counters();
    if out != [(100, 0), (101, 1)] || consumer != 2 {
        return Err(format!(
            "after the clear: descriptors {out:?}, consumer {consumer}"
        ));
    }
    Ok(())
}
