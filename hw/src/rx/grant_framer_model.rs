//! The GRANT framer's bench, shared by the rust-hdl tests of
//! [`crate::grant_framer::GrantFramer`] at every width and their Verilator co-simulations in
//! `homa-sim`: seeded random GRANTs (every field random) offered with gaps, random
//! back-pressure on the frames. Every frame must equal
//! [`reference_frame`] (`proto::wire`'s GRANT, checksum included) byte for byte and parse
//! back; a frame is offered exactly while a GRANT is held, a GRANT is taken exactly when the
//! framer is empty or its frame's last beat leaves, and every beat before the last is full.

use crate::bench::Rng;
use crate::grant_framer::reference_frame;
use crate::grant_model::Grant;
use homa_proto::wire::{self, FrameRepr, LinkType};
use std::collections::VecDeque;

/// The framer's configuration inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GrantFramerConfig {
    /// The local MAC.
    pub mac: u64,
    /// The local IPv4 address.
    pub ip: u32,
    /// The control priority (the frames' TOS).
    pub ctl_priority: u8,
}

/// One cycle's outputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GrantFramerAnswer {
    /// `s_grant_ready`.
    pub grant_ready: bool,
    /// A frame beat: (data, keep, last); lanes past `BYTES` are zero.
    pub beat: Option<([u8; 64], u64, bool)>,
}

/// A GRANT framer under test.
pub trait GrantFramerPorts {
    /// Bytes a beat (8 to 64).
    const BYTES: usize;
    /// Two cycles of reset with `cfg` applied.
    fn reset(&mut self, cfg: &GrantFramerConfig);
    /// Sets the inputs (the GRANT offered, `m_axis_tready`) and settles: this cycle's outputs.
    fn drive(&mut self, grant: Option<&Grant>, tready: bool) -> GrantFramerAnswer;
    /// The rising edge.
    fn edge(&mut self);
}

/// What a run did.
#[derive(Debug, Clone, Copy, Default)]
pub struct GrantFramerStats {
    /// Cycles run.
    pub cycles: u64,
    /// Frames checked.
    pub frames: u64,
}

fn random_grant(rng: &mut Rng) -> Grant {
    Grant {
        mac: rng.next_u64() & 0xffff_ffff_ffff,
        peer: rng.next_u64() as u32,
        sport: rng.next_u64() as u16,
        dport: rng.next_u64() as u16,
        id: rng.next_u64(),
        offset: rng.next_u64() as u32,
        priority: rng.below(8) as u8,
    }
}

/// Drives `dut` until `n` frames from `seed` are checked.
pub fn run<D: GrantFramerPorts>(
    dut: &mut D,
    seed: u64,
    n: u64,
) -> Result<GrantFramerStats, String> {
    let w = D::BYTES;
    let mut rng = Rng::new(seed);
    let cfg = GrantFramerConfig {
        mac: 0x02_00_00_00_00_01 | (rng.next_u64() & 0xffff_ffff_ff00),
        ip: rng.next_u64() as u32,
        ctl_priority: rng.below(8) as u8,
    };
    dut.reset(&cfg);
    // The GRANT offered (held until taken), and the frames of those taken, in order.
    let mut offered: Option<(Grant, Vec<u8>)> = None;
    let mut taken: VecDeque<Vec<u8>> = VecDeque::new();
    let mut frame: Vec<u8> = Vec::new();
    let mut st = GrantFramerStats::default();
    let limit = 200 * n + 10_000;
    while st.frames < n {
        if offered.is_none() && rng.chance(70) {
            let g = random_grant(&mut rng);
            let want = reference_frame(cfg.mac, cfg.ip, cfg.ctl_priority, &g);
            offered = Some((g, want));
        }
        let ready = rng.chance(60);
        let a = dut.drive(offered.as_ref().map(|(g, _)| g), ready);
        let ctx = format!("seed {seed:#x}, cycle {}, frame {}", st.cycles, st.frames);
        if a.beat.is_some() == taken.is_empty() {
            return Err(format!(
                "{ctx}: a frame must be offered exactly while a GRANT is held"
            ));
        }
        let last_leaves = ready && a.beat.is_some_and(|b| b.2);
        if a.grant_ready != (taken.is_empty() || last_leaves) {
            return Err(format!(
                "{ctx}: a GRANT must be taken exactly when the framer is empty or its frame ends"
            ));
        }
        if let Some((data, keep, last)) = a.beat.filter(|_| ready) {
            let k = keep.count_ones() as usize;
            if keep.trailing_ones() as usize != k || k == 0 || k > w || (!last && k != w) {
                return Err(format!("{ctx}: bad tkeep {keep:#x} (last {last})"));
            }
            frame.extend_from_slice(&data[..k]);
            if last {
                let want = taken.pop_front().expect("a GRANT is held");
                if frame != want {
                    return Err(format!(
                        "{ctx}: frame {frame:02x?} differs from proto::wire's {want:02x?}"
                    ));
                }
                let parsed = FrameRepr::parse(&frame, LinkType::Ethernet, &Default::default())
                    .map_err(|e| format!("{ctx}: the frame does not parse: {e}"))?;
                if !matches!(parsed.homa.body, wire::Body::Grant(_))
                    || frame[15] >> 5 != cfg.ctl_priority
                {
                    return Err(format!("{ctx}: not a GRANT at the control priority"));
                }
                frame.clear();
                st.frames += 1;
            }
        }
        if a.grant_ready && offered.is_some() {
            taken.push_back(offered.take().expect("offered").1);
        }
        dut.edge();
        st.cycles += 1;
        if st.cycles > limit {
            return Err(format!("{ctx}: stuck after {limit} cycles"));
        }
    }
    Ok(st)
}

/// Runs of `n` frames from seeds `seed..seed + runs` on fresh framers from `make`.
pub fn run_seeds<D: GrantFramerPorts>(
    what: &str,
    mut make: impl FnMut() -> D,
    seed: u64,
    runs: u64,
    n: u64,
) -> Result<(), String> {
    for i in 0..runs {
        let s = seed.wrapping_add(i);
        eprintln!("{what}: seed {s:#x} (HOMA_HW_SEED to replay), {n} frames");
        let st = run(&mut make(), s, n)?;
        eprintln!("  {st:?}");
    }
    Ok(())
}
