//! The bench for [`crate::rx_ring::RxRing512`], shared by its rust-hdl test and the Verilator
//! co-simulation in `homa-sim`: a host that posts RX buffer descriptors (`proto::hostif`
//! encoding, some bad, some outside the RX window when one is set) into its ring whenever
//! `rx_consumer` leaves room, and a DMA read server that answers in order after a random
//! latency, reading host memory when it answers.
//!
//! Checks: every descriptor comes out once, in ring order, with its index: a good one as a
//! buffer, a refused one as a refusal with the status `RxBufDescriptor::refusal` gives; the
//! refusals are counted; reads stay inside the ring, never cross its end, never ask for a slot the
//! host has not posted; and since the host rewrites a slot as soon as `rx_consumer` passes
//! it, a consumer that ran ahead of the reads would hand out a rewritten descriptor.

use std::collections::VecDeque;

use homa_proto::hostif::{DmaWindow, RX_BUF_DESC_LEN, RxBufDescriptor, Status};

use crate::bench::Rng;
use crate::rx_dma_model::Buffer;

/// What the bench offers the fetcher in one cycle.
#[derive(Clone, Copy, Debug, Default)]
pub struct RingOffer {
    /// Ring IOVA.
    pub base: u64,
    /// log2 of the entry count.
    pub log2: u8,
    /// The host's producer index.
    pub producer: u32,
    /// The `rx_log2_size` write pulse (restart at 0).
    pub clear: bool,
    /// A read request is taken.
    pub rd_ready: bool,
    /// A read response.
    pub resp: Option<[u8; 64]>,
    /// A buffer is taken.
    pub buf_ready: bool,
    /// The RX window.
    pub window: DmaWindow,
    /// A refusal is taken.
    pub err_ready: bool,
}

/// What the fetcher answers, once settled.
#[derive(Clone, Copy, Debug, Default)]
pub struct RingAnswer {
    /// A read request (address, bytes).
    pub rd: Option<(u64, u16)>,
    /// A buffer offered.
    pub buf: Option<Buffer>,
    /// A refused descriptor offered (id and index as in a buffer), with its status byte.
    pub err: Option<(Buffer, u8)>,
}

/// The fetcher under test.
pub trait RingPorts {
    /// Resets it.
    fn reset(&mut self);
    /// Drives this cycle's inputs and returns the settled outputs.
    fn drive(&mut self, offer: &RingOffer) -> RingAnswer;
    /// (consumer, bad).
    fn counters(&self) -> (u32, u32);
    /// The rising edge.
    fn edge(&mut self);
}

/// The result of [`run`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RingStats {
    /// Cycles run.
    pub cycles: u64,
    /// Buffers handed out.
    pub buffers: u64,
    /// Descriptors refused.
    pub bad: u32,
    /// Of which outside the window.
    pub out_of_bounds: u32,
    /// Reads issued.
    pub reads: u64,
}

/// The window a run uses, when it uses one: 2^46 bytes from 2^40.
pub const WINDOW: DmaWindow = DmaWindow {
    base: 1 << 40,
    len: 1 << 46,
};

/// A random descriptor for ring slot `index`: mostly good (inside [`WINDOW`]); some empty,
/// wrapping, or outside the window or across one of its ends.
pub fn descriptor(rng: &mut Rng, index: u32) -> RxBufDescriptor {
    let buffer_id = index ^ 0x5a00_0000;
    let length = 1 + rng.below(1 << 16) as u32;
    let end = WINDOW.base + WINDOW.len;
    let (iova, length) = match rng.below(40) {
        0 => (rng.next_u64(), 0),
        1 => (u64::MAX - rng.below(1000), 2048),
        2 => (rng.next_u64() >> 30, length),
        3 => (WINDOW.base - rng.below(64), length),
        4 => (end - u64::from(length) + 1 + rng.below(64), length),
        5 => (end + rng.below(1 << 20), length),
        6 => (end - u64::from(length), length),
        _ => (WINDOW.base + (rng.next_u64() >> 19), length),
    };
    RxBufDescriptor {
        iova,
        length,
        buffer_id,
    }
}

/// Posts `n` descriptors through a ring of random size and checks what the fetcher does.
pub fn run<D: RingPorts>(dut: &mut D, seed: u64, n: u32) -> Result<RingStats, String> {
    let fail = |m: String| format!("seed {seed:#x}: {m}");
    let mut rng = Rng::new(seed);
    let log2 = 1 + rng.below(8) as u8;
    let size = 1u32 << log2;
    let base = 0x4000_0000 + 4096 * rng.below(1024);
    let mut ring = vec![0u8; size as usize * RX_BUF_DESC_LEN];
    // Even seeds set the window, odd ones leave it off.
    let window = if seed.is_multiple_of(2) {
        WINDOW
    } else {
        DmaWindow::default()
    };
    let mut posted: VecDeque<(u32, RxBufDescriptor)> = VecDeque::new();
    let (mut producer, mut doorbell, mut fetch) = (0u32, 0u32, 0u32);
    let mut reads: VecDeque<(u64, u64, u16)> = VecDeque::new(); // (due cycle, addr, len)
    let mut stats = RingStats::default();
    dut.reset();
    let mut consumer = 0u32;
    let mut drain = 0;
    // Until every descriptor is out (and a while longer, to catch extra output).
    while drain < 300 {
        if producer == n && reads.is_empty() && posted.is_empty() {
            drain += 1;
        }
        stats.cycles += 1;
        if stats.cycles > 400 * u64::from(n) + 1000 {
            return Err(fail(format!(
                "no progress: {} buffers, producer {producer}, consumer {consumer}",
                stats.buffers
            )));
        }
        // The host writes descriptors into slots the NIC has read, and rings the doorbell.
        while producer < n && producer.wrapping_sub(consumer) < size && rng.chance(50) {
            let d = descriptor(&mut rng, producer);
            let at = (producer & (size - 1)) as usize * RX_BUF_DESC_LEN;
            let mut b = [0u8; RX_BUF_DESC_LEN];
            d.encode(&mut b);
            ring[at..at + RX_BUF_DESC_LEN].copy_from_slice(&b);
            posted.push_back((producer, d));
            producer += 1;
        }
        if rng.chance(30) {
            doorbell = producer;
        }
        // The read server: in order, after its latency, from memory as it is then.
        let resp = match reads.front() {
            Some(&(due, addr, len)) if due <= stats.cycles => {
                reads.pop_front();
                let mut data = [0xa5u8; 64];
                let at = (addr - base) as usize;
                data[..usize::from(len)].copy_from_slice(&ring[at..at + usize::from(len)]);
                Some(data)
            }
            _ => None,
        };
        let offer = RingOffer {
            base,
            log2,
            producer: doorbell,
            clear: false,
            rd_ready: rng.chance(70),
            resp,
            buf_ready: rng.chance(60),
            window,
            err_ready: rng.chance(60),
        };
        let a = dut.drive(&offer);
        if let Some((addr, len)) = a.rd.filter(|_| offer.rd_ready) {
            let count = u32::from(len) / RX_BUF_DESC_LEN as u32;
            let want = base + u64::from(fetch & (size - 1)) * RX_BUF_DESC_LEN as u64;
            if addr != want
                || len == 0
                || usize::from(len) % RX_BUF_DESC_LEN != 0
                || count > 4
                || (fetch & (size - 1)) + count > size
                || fetch.wrapping_add(count).wrapping_sub(doorbell) as i32 > 0
            {
                return Err(fail(format!(
                    "read {addr:#x}+{len} at index {fetch} (ring {size} at {base:#x}, \
                     doorbell {doorbell})"
                )));
            }
            fetch = fetch.wrapping_add(count);
            stats.reads += 1;
            reads.push_back((stats.cycles + 5 + rng.below(60), addr, len));
        }
        if a.buf.is_some() && a.err.is_some() {
            return Err(fail(format!("a buffer and a refusal at once: {a:?}")));
        }
        let taken = a
            .buf
            .filter(|_| offer.buf_ready)
            .map(|b| (b, 0))
            .or(a.err.filter(|_| offer.err_ready));
        if let Some((b, status)) = taken {
            let (index, d) = posted
                .pop_front()
                .ok_or_else(|| fail(format!("{b:?} (status {status}) never posted")))?;
            let want_status = d.refusal(window).map_or(0, |s| s as u8);
            let want = Buffer {
                iova: d.iova,
                length: d.length,
                id: d.buffer_id,
                index,
            };
            // A refusal carries only the id and the index.
            let same = if status == 0 {
                b == want
            } else {
                (b.id, b.index) == (want.id, want.index)
            };
            if !same || status != want_status {
                return Err(fail(format!(
                    "{b:?} status {status}, want {want:?} status {want_status} ({d}, window \
                     {window:?})"
                )));
            }
            match status {
                0 => stats.buffers += 1,
                s if s == Status::OutOfBounds as u8 => stats.out_of_bounds += 1,
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
    let bad_want = n - stats.buffers as u32;
    if bad != bad_want || consumer != n {
        return Err(fail(format!(
            "refused {bad} (want {bad_want}), consumer {consumer} (want {n})"
        )));
    }
    Ok(stats)
}

/// A directed case for the clear pulse: reads are in flight when the host restarts the ring;
/// their answers (old descriptors) must be discarded, and the indices must restart at 0 with
/// only the descriptors posted after the clear handed out.
pub fn clear_case<D: RingPorts>(dut: &mut D) -> Result<(), String> {
    let (base, log2) = (0x8000_0000u64, 4u8);
    let desc = |id: u32| RxBufDescriptor {
        iova: 0x1_0000 * u64::from(id),
        length: 1500,
        buffer_id: id,
    };
    let beat = |ids: &[u32]| {
        let mut data = [0u8; 64];
        for (j, &id) in ids.iter().enumerate() {
            let mut b = [0u8; RX_BUF_DESC_LEN];
            desc(id).encode(&mut b);
            data[j * RX_BUF_DESC_LEN..(j + 1) * RX_BUF_DESC_LEN].copy_from_slice(&b);
        }
        data
    };
    let idle = RingOffer {
        base,
        log2,
        ..RingOffer::default()
    };
    dut.reset();
    // 8 posted: two reads go out and stay unanswered.
    let mut issued = 0;
    for _ in 0..4 {
        let a = dut.drive(&RingOffer {
            producer: 8,
            rd_ready: true,
            ..idle
        });
        issued += usize::from(a.rd.is_some());
        dut.edge();
    }
    if issued != 2 {
        return Err(format!("{issued} reads issued for 8 descriptors, want 2"));
    }
    // The host restarts the ring and posts 3 new descriptors (ids 100..103) at slots 0..2.
    dut.drive(&RingOffer {
        clear: true,
        ..idle
    });
    dut.edge();
    // The two old reads are answered now: discarded.
    for old in [[1, 2, 3, 4], [5, 6, 7, 8]] {
        let a = dut.drive(&RingOffer {
            resp: Some(beat(&old)),
            ..idle
        });
        if a.rd.is_some() || a.buf.is_some() {
            return Err(format!("after the clear: {a:?} with nothing posted"));
        }
        dut.edge();
    }
    let mut out = Vec::new();
    let mut pending_read = None;
    for _ in 0..40 {
        let a = dut.drive(&RingOffer {
            producer: 3,
            rd_ready: pending_read.is_none(),
            resp: pending_read.take(),
            buf_ready: true,
            err_ready: true,
            ..idle
        });
        if let Some((addr, len)) = a.rd {
            if (addr, len) != (base, 48) {
                return Err(format!(
                    "read {addr:#x}+{len} after the clear, want {base:#x}+48"
                ));
            }
            pending_read = Some(beat(&[100, 101, 102]));
        }
        if let Some(b) = a.buf {
            out.push((b.id, b.index));
        }
        dut.edge();
    }
    let (consumer, _) = dut.counters();
    if out != [(100, 0), (101, 1), (102, 2)] || consumer != 3 {
        return Err(format!(
            "after the clear: buffers {out:?}, consumer {consumer}"
        ));
    }
    Ok(())
}
