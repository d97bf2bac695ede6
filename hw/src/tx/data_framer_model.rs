//! The DATA framer's bench, shared by the rust-hdl tests of [`crate::data_framer::DataFramer`]
//! at every width and their Verilator co-simulations in `homa-sim`: seeded random jobs (every
//! header field random, payloads of 1 B to 9000 B), a DMA read server that delivers each
//! job's payload from [`payload_lane`] (26 at 64 bytes a beat, 2 at 8) with garbage around it
//! and random gaps,
//! back-pressure on the frames and on `TX_DONE`, jobs offered with gaps. Every frame must equal
//! [`reference_frame`] (`proto::wire`'s DATA, byte for byte), and every message's last
//! frame (without NO_COMPLETION) must post one `TX_DONE`, in order. The framer holds two jobs
//! at most, and with nothing pushing back its frames follow back to back (one cycle a beat).

use crate::bench::Rng;
use crate::data_framer::{DATA_HEADER_FRAME_LEN, DataHeader, payload_lane, reference_frame};
use crate::tx_sched_model::TxJob;
use std::collections::VecDeque;

/// The framer's configuration inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FramerConfig {
    /// The NIC's MAC.
    pub mac: u64,
    /// The next hop's MAC.
    pub next_hop_mac: u64,
    /// The NIC's IPv4 address.
    pub ip: u32,
    /// The cutoff version.
    pub cutoff_version: u16,
}

/// A `TX_DONE` as `m_done_*` carry it: (id, length, cookie, index).
pub type Done = (u64, u32, u64, u32);

/// One cycle's inputs.
#[derive(Debug, Clone, Copy)]
pub struct FramerOffer {
    /// Configuration.
    pub cfg: FramerConfig,
    /// The job at the head of the queue (the scheduler's; `addr` and `slot` are not the
    /// framer's business).
    pub job: Option<TxJob>,
    /// A payload beat (its first `BYTES` lanes).
    pub pay: Option<[u8; 64]>,
    /// `m_axis_tready`.
    pub tready: bool,
    /// `m_done_ready`.
    pub done_ready: bool,
}

/// One cycle's outputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FramerAnswer {
    /// `s_job_ready`.
    pub job_ready: bool,
    /// `s_pay_ready`.
    pub pay_ready: bool,
    /// A frame beat: (data, keep, last); lanes past `BYTES` are zero.
    pub beat: Option<([u8; 64], u64, bool)>,
    /// A `TX_DONE` offered.
    pub done: Option<Done>,
    /// Frames sent.
    pub frames: u32,
}

/// A DATA framer under test.
pub trait FramerPorts {
    /// Bytes a beat (8 to 64).
    const BYTES: usize;
    /// Two cycles of reset.
    fn reset(&mut self);
    /// Sets the inputs and settles: the outputs of this cycle.
    fn drive(&mut self, offer: &FramerOffer) -> FramerAnswer;
    /// The rising edge.
    fn edge(&mut self);
}

/// What a run did.
#[derive(Debug, Clone, Copy, Default)]
pub struct FramerStats {
    /// Cycles run.
    pub cycles: u64,
    /// Frames checked.
    pub frames: u64,
    /// Frame bytes checked.
    pub bytes: u64,
    /// `TX_DONE`s checked.
    pub dones: u64,
}

/// The header fields of `job` under `cfg`.
pub fn header_of(cfg: &FramerConfig, j: &TxJob) -> DataHeader {
    DataHeader {
        next_hop_mac: cfg.next_hop_mac,
        local_mac: cfg.mac,
        local_ip: cfg.ip,
        peer: j.peer,
        priority: j.priority,
        sport: j.sport,
        dport: j.dport,
        id: j.id,
        message_length: j.length,
        incoming: j.incoming,
        cutoff_version: cfg.cutoff_version,
        retransmit: j.retransmit,
        offset: j.offset,
    }
}

/// The DMA beats of `w` bytes that carry `payload` for the framer: byte 0 at
/// [`payload_lane`] of the first, the rest of the lanes filled from `rng` (the framer must
/// ignore them). Lanes past `w` are zero.
pub fn dma_beats(rng: &mut Rng, payload: &[u8], w: usize) -> Vec<[u8; 64]> {
    let lane = payload_lane(w);
    let n = (lane + payload.len()).div_ceil(w);
    (0..n)
        .map(|b| {
            std::array::from_fn(|l| {
                if l >= w {
                    return 0;
                }
                let at = (w * b + l).checked_sub(lane);
                at.and_then(|i| payload.get(i).copied())
                    .unwrap_or_else(|| rng.byte())
            })
        })
        .collect()
}

fn random_job(rng: &mut Rng, index: u32) -> TxJob {
    let len = match rng.below(4) {
        0 => 1 + rng.below(64) as u32,
        1 => 1424,
        2 => 1 + rng.below(9000) as u32,
        _ => 1 + rng.below(1500) as u32,
    };
    TxJob {
        offset: rng.next_u64() as u32,
        len,
        priority: rng.below(8) as u8,
        retransmit: rng.chance(20),
        incoming: rng.next_u64() as u32,
        last: rng.chance(40),
        no_completion: rng.chance(20),
        peer: rng.next_u64() as u32,
        sport: rng.next_u64() as u16,
        dport: rng.next_u64() as u16,
        id: rng.next_u64(),
        length: rng.next_u64() as u32,
        cookie: rng.next_u64(),
        index,
        addr: 0,
        slot: 0,
    }
}

/// Drives `dut` with `n` random jobs from `seed` and checks every frame and `TX_DONE`.
pub fn run<D: FramerPorts>(dut: &mut D, seed: u64, n: u32) -> Result<FramerStats, String> {
    let w = D::BYTES;
    let mut rng = Rng::new(seed);
    let cfg = FramerConfig {
        mac: rng.next_u64() >> 16,
        next_hop_mac: rng.next_u64() >> 16,
        ip: rng.next_u64() as u32,
        cutoff_version: rng.next_u64() as u16,
    };
    // Four modes by the seed, so that four seeds in a row cover them all: nothing pushing
    // back (frames must then follow back to back), jobs with gaps, and two levels of
    // back-pressure.
    let mode = seed % 4;
    let (tready_pct, pay_pct, done_pct) = match mode {
        0 | 1 => (100, 100, 100),
        2 => (70, 80, 50),
        _ => (40, 50, 10),
    };
    dut.reset();
    let jobs: Vec<(TxJob, Vec<u8>)> = (0..n)
        .map(|i| {
            let j = random_job(&mut rng, i);
            let p = (0..j.len).map(|_| rng.byte()).collect();
            (j, p)
        })
        .collect();
    // The DMA server: each job's beats, in job order.
    let mut dma: VecDeque<[u8; 64]> = VecDeque::new();
    for (_, p) in &jobs {
        dma.extend(dma_beats(&mut rng, p, w));
    }
    let mut want_dones: VecDeque<Done> = jobs
        .iter()
        .filter(|(j, _)| j.last && !j.no_completion)
        .map(|(j, _)| (j.id, j.length, j.cookie, j.index))
        .collect();
    // `head`: the job whose frame is being checked; `next`: the next job to offer (the
    // framer holds the ones between, and may take the next with a frame's last
    // beat; it holds two at most). Jobs are offered with gaps, so the framer also starts from
    // empty.
    let mut head = 0usize;
    let mut next = 0usize;
    let job_pct = if mode == 1 { 60 } else { 100 };
    let mut frame: Vec<u8> = Vec::new();
    let mut st = FramerStats::default();
    // With nothing pushing back, frames must follow back to back: one cycle per beat, plus
    // the two that take the first job through the framer's two stages.
    let unthrottled = mode == 0;
    let beats: u64 = jobs
        .iter()
        .map(|(j, _)| (DATA_HEADER_FRAME_LEN as u64 + u64::from(j.len)).div_ceil(w as u64))
        .sum();
    // Beats wait on a 40 % ready and a 50 % DMA at worst: five cycles a beat expected.
    let limit = 20 * beats + 200 * u64::from(n) + 10_000;

    while head < jobs.len() || !want_dones.is_empty() {
        let offer = FramerOffer {
            cfg,
            job: jobs
                .get(next)
                .map(|(j, _)| *j)
                .filter(|_| rng.chance(job_pct)),
            pay: dma.front().copied().filter(|_| rng.chance(pay_pct)),
            tready: rng.chance(tready_pct),
            done_ready: rng.chance(done_pct),
        };
        let a = dut.drive(&offer);
        let ctx = format!("seed {seed:#x}, cycle {}, job {head}", st.cycles);
        if a.beat.is_some() && head >= next {
            return Err(format!("{ctx}: a beat offered with no job taken"));
        }
        if a.beat.is_some() && frame.is_empty() && offer.pay.is_none() {
            // A frame started before its payload would hold the MAC port (and underrun it)
            // for as long as the DMA read takes.
            return Err(format!(
                "{ctx}: a frame's first beat offered before its payload"
            ));
        }
        if let Some((data, keep, last)) = a.beat.filter(|_| offer.tready) {
            let n = keep.trailing_ones() as usize;
            if keep != u64::MAX >> (64 - n.max(1)) || n == 0 || n > w || (!last && n != w) {
                return Err(format!("{ctx}: bad tkeep {keep:#x} (last {last})"));
            }
            frame.extend_from_slice(&data[..n]);
            if last {
                let (j, p) = &jobs[head];
                let want = reference_frame(&header_of(&cfg, j), p);
                if frame != want {
                    let at = frame.iter().zip(&want).position(|(a, b)| a != b);
                    return Err(format!(
                        "{ctx}: frame of {} bytes differs from proto::wire's {} (first at {at:?}): {j:?}",
                        frame.len(),
                        want.len()
                    ));
                }
                st.frames += 1;
                st.bytes += frame.len() as u64;
                frame.clear();
                head += 1;
                if unthrottled && head == jobs.len() && st.cycles + 1 > beats + 2 {
                    return Err(format!(
                        "{ctx}: {} cycles for {beats} beats with nothing pushing back: \
                         frames do not follow back to back",
                        st.cycles + 1
                    ));
                }
            }
        }
        if a.job_ready && offer.job.is_some() {
            next += 1;
        }
        if next > head + 2 {
            return Err(format!(
                "{ctx}: the framer took job {} while jobs {head} and {} are not framed",
                next - 1,
                head + 1
            ));
        }
        if a.pay_ready && offer.pay.is_some() {
            dma.pop_front();
        }
        if let Some(d) = a.done.filter(|_| offer.done_ready) {
            match want_dones.pop_front() {
                Some(w) if w == d => st.dones += 1,
                w => return Err(format!("{ctx}: TX_DONE {d:?}, expected {w:?}")),
            }
        }
        if u64::from(a.frames) != st.frames - u64::from(a.beat.is_some_and(|b| b.2 && offer.tready))
        {
            return Err(format!(
                "{ctx}: frames counter {} vs {}",
                a.frames, st.frames
            ));
        }
        dut.edge();
        st.cycles += 1;
        if st.cycles > limit {
            return Err(format!("{ctx}: stuck after {limit} cycles"));
        }
    }
    if !dma.is_empty() {
        return Err(format!(
            "seed {seed:#x}: {} DMA beats never taken",
            dma.len()
        ));
    }
    Ok(st)
}

/// Runs of `n` jobs from seeds `seed..seed + runs` on fresh framers from `make`.
pub fn run_seeds<D: FramerPorts>(
    what: &str,
    mut make: impl FnMut() -> D,
    seed: u64,
    runs: u64,
    n: u32,
) -> Result<(), String> {
    for i in 0..runs {
        let s = seed.wrapping_add(i);
        eprintln!("{what}: seed {s:#x} (HOMA_HW_SEED to replay), {n} jobs");
        let st = run(&mut make(), s, n)?;
        eprintln!("  {st:?}");
    }
    Ok(())
}
