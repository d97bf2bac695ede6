//! The bench for [`crate::cq_writer::CqWriter`] at any width, shared by its rust-hdl tests and the
//! Verilator co-simulation in `homa-sim`: a host that polls the completion ring the way the
//! driver does (phase bit in byte 63, `proto::hostif::RingState`) and consumes entries at a
//! random pace, against random completions and DMA back-pressure.
//!
//! Checks: every completion the host reads equals the one offered, in order; each entry is
//! written as its 63-byte body and then its phase byte, in that order, at
//! `base + 64 * (index mod size)`; no write touches an entry the host has not consumed or
//! anything outside the ring; while the ring is off, completions are dropped and counted.

use std::collections::VecDeque;

use homa_proto::hostif::{COMPLETION_LEN, RingState};

use crate::bench::Rng;
use crate::rx_dma_model::DmaWrite;

/// What the bench offers the writer in one cycle.
#[derive(Clone, Copy, Debug)]
pub struct CqOffer<'a> {
    /// Ring IOVA.
    pub base: u64,
    /// log2 of the entry count (0: off).
    pub log2: u8,
    /// The host's consumer index.
    pub consumer: u32,
    /// The `cq_log2_size` write pulse.
    pub clear: bool,
    /// A completion (byte 63 zero).
    pub cpl: Option<&'a [u8; COMPLETION_LEN]>,
    /// The DMA sink takes a write.
    pub dma_ready: bool,
}

/// What the writer answers, once settled.
#[derive(Clone, Debug, Default)]
pub struct CqAnswer {
    /// The completion is taken.
    pub cpl_ready: bool,
    /// The DMA write offered.
    pub dma: Option<DmaWrite>,
}

/// The writer under test.
pub trait CqPorts {
    /// Resets the writer.
    fn reset(&mut self);
    /// Drives this cycle's inputs and returns the settled outputs.
    fn drive(&mut self, offer: &CqOffer<'_>) -> CqAnswer;
    /// (producer, dropped).
    fn counters(&self) -> (u32, u32);
    /// The rising edge.
    fn edge(&mut self);
}

/// The result of [`run`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CqStats {
    /// Cycles run.
    pub cycles: u64,
    /// Completions the host read.
    pub read: u64,
    /// Completions dropped while the ring was off.
    pub dropped: u32,
    /// Times the writer stopped on a full ring.
    pub full_stalls: u64,
}

fn completion(rng: &mut Rng, n: u64) -> [u8; COMPLETION_LEN] {
    let mut c: [u8; COMPLETION_LEN] = std::array::from_fn(|_| rng.byte());
    c[..8].copy_from_slice(&n.to_le_bytes());
    c[COMPLETION_LEN - 1] = 0;
    c
}

/// Runs `per_ring` completions through each of two rings of random size (with the ring off
/// before each), checking everything listed in the module doc.
pub fn run<D: CqPorts>(dut: &mut D, seed: u64, per_ring: u64) -> Result<CqStats, String> {
    let fail = |m: String| format!("seed {seed:#x}: {m}");
    let mut rng = Rng::new(seed);
    let mut stats = CqStats::default();
    let mut serial = 0u64;
    let mut dropped_want = 0u32;
    dut.reset();
    for _epoch in 0..2 {
        // The ring off: completions are taken and dropped.
        for _ in 0..20 {
            let c = completion(&mut rng, serial);
            serial += 1;
            let a = dut.drive(&CqOffer {
                base: 0,
                log2: 0,
                consumer: 0,
                clear: false,
                cpl: Some(&c),
                dma_ready: true,
            });
            if a.dma.is_some() || !a.cpl_ready {
                return Err(fail("a ring that is off must take and drop".into()));
            }
            dropped_want += 1;
            dut.edge();
        }
        let (read, cycles) =
            epoch_run(dut, &mut rng, &mut serial, per_ring, &mut stats.full_stalls)
                .map_err(&fail)?;
        stats.read += read;
        stats.cycles += cycles + 20;
    }
    let (_, dropped) = dut.counters();
    stats.dropped = dropped;
    if dropped != dropped_want {
        return Err(fail(format!("dropped {dropped}, want {dropped_want}")));
    }
    Ok(stats)
}

/// One ring's life: set up (with the clear pulse), `n` completions through it, all read.
fn epoch_run<D: CqPorts>(
    dut: &mut D,
    rng: &mut Rng,
    serial: &mut u64,
    n: u64,
    full_stalls: &mut u64,
) -> Result<(u64, u64), String> {
    let log2 = 1 + rng.below(5) as u8;
    let size = 1u32 << log2;
    let base = 0x10_0000 + 64 * rng.below(1 << 12);
    let mut ring = vec![0u8; size as usize * COMPLETION_LEN];
    let mut host = RingState::new(log2).map_err(|e| e.to_string())?;
    let mut queue: VecDeque<[u8; COMPLETION_LEN]> = VecDeque::new();
    let mut taken: VecDeque<[u8; COMPLETION_LEN]> = VecDeque::new();
    let (mut sent, mut read, mut written, mut cycles) = (0u64, 0u64, 0u32, 0u64);
    // Lanes of the entry under way written so far.
    let mut body = 0u64;
    let mut clear = true;
    let mut pause = 0u64;
    while read < n {
        cycles += 1;
        if cycles > 200 * n + 1000 {
            return Err(format!(
                "ring of {size}: no progress ({sent} offered, {written} written, {read} read)"
            ));
        }
        if queue.len() < 2 && sent < n && rng.chance(70) {
            queue.push_back(completion(rng, *serial));
            *serial += 1;
            sent += 1;
        }
        let cpl = queue.front().filter(|_| rng.chance(85)).copied();
        let dma_ready = rng.chance(75);
        let a = dut.drive(&CqOffer {
            base,
            log2,
            consumer: host.consumer(),
            clear,
            cpl: cpl.as_ref(),
            dma_ready,
        });
        clear = false;
        let mut completed = false;
        if let Some(w) = a.dma.as_ref().filter(|_| dma_ready) {
            let index = written;
            if index.wrapping_sub(host.consumer()) >= size {
                return Err(format!(
                    "entry {index} written with the host at {}: an unread entry overwritten",
                    host.consumer()
                ));
            }
            let at = base + 64 * u64::from(host.wrap(index));
            let phase = u8::from(host.phase(index));
            // The enabled bytes, as lanes of the entry: the body's (0-62) in any number of
            // writes, each byte once; then byte 63 alone, with the phase.
            let mut mask = 0u64;
            for (addr, _) in w.bytes() {
                if addr < at || addr >= at + 64 {
                    return Err(format!(
                        "entry {index}: a write at {:#x} (keep {:#x}) outside its slot at {at:#x}",
                        w.addr, w.keep
                    ));
                }
                mask |= 1 << (addr - at);
            }
            const PHASE: u64 = 1 << 63;
            if mask == PHASE {
                let byte = w.bytes().map(|(_, b)| b).next();
                if body != !PHASE || byte != Some(phase) {
                    return Err(format!(
                        "entry {index}: phase byte {byte:?} (phase {phase}) with body lanes \
                         {body:#x} written"
                    ));
                }
                body = 0;
                written += 1;
                completed = true;
            } else if mask == 0 || mask & PHASE != 0 || body & mask != 0 {
                return Err(format!(
                    "entry {index}: write of lanes {mask:#x} after lanes {body:#x} (keep {:#x})",
                    w.keep
                ));
            } else {
                body |= mask;
            }
            for (addr, byte) in w.bytes() {
                ring[(addr - base) as usize] = byte;
            }
        }
        if a.cpl_ready {
            let Some(c) = cpl else {
                return Err("took a completion not offered".into());
            };
            if !completed {
                return Err("took a completion before writing its phase byte".into());
            }
            taken.push_back(c);
            queue.pop_front();
        } else if cpl.is_some() && a.dma.is_none() {
            *full_stalls += 1;
        }
        dut.edge();
        // The host polls (with pauses, so that the ring fills): a new entry when byte 63
        // carries this pass's phase.
        if pause > 0 {
            pause -= 1;
        } else if rng.chance(3) {
            pause = rng.below(120);
        } else if rng.chance(40) {
            let i = host.consumer();
            let slot = host.wrap(i) as usize * COMPLETION_LEN;
            let entry = &ring[slot..slot + COMPLETION_LEN];
            if entry[COMPLETION_LEN - 1] & 1 == u8::from(host.phase(i)) {
                let want = taken
                    .pop_front()
                    .ok_or_else(|| format!("host read entry {i} before any was written"))?;
                if entry[..COMPLETION_LEN - 1] != want[..COMPLETION_LEN - 1] {
                    return Err(format!("host read entry {i}: not the completion taken"));
                }
                host.advance_producer_to(i.wrapping_add(1))
                    .and_then(|_| host.pop().map(|_| ()))
                    .map_err(|e| e.to_string())?;
                read += 1;
            }
        }
    }
    let (producer, _) = dut.counters();
    if producer != written {
        return Err(format!("producer {producer}, {written} entries written"));
    }
    Ok((read, cycles))
}
