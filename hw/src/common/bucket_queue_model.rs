//! The bucketed queue's bench, shared by the rust-hdl tests and the Verilator co-simulation
//! in `homa-sim`: seeded random commands against [`homa_proto::policy::bucket::BucketQueue`],
//! every walk checked entry by entry, every command's latency bounded.

use crate::bench::Rng;
use crate::bucket_queue::{OP_REMOVE, OP_SET, OP_WALK, REMOVE_CYCLES, SET_CYCLES};
use homa_proto::policy::bucket::{BucketQueue as Reference, MAX_KEY};

/// A command as the bench offers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cmd {
    /// [`OP_SET`], [`OP_REMOVE`] or [`OP_WALK`].
    pub op: u64,
    /// The entry (set, remove).
    pub entry: u32,
    /// The key (set).
    pub key: u16,
}

/// The block's outputs in one cycle (they depend on registers only).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Outputs {
    /// `s_cmd_ready`.
    pub cmd_ready: bool,
    /// `m_walk_valid`.
    pub walk_valid: bool,
    /// `m_walk_entry`.
    pub walk_entry: u32,
    /// `m_walk_key`.
    pub walk_key: u16,
    /// `m_walk_end`.
    pub walk_end: bool,
    /// `count`.
    pub count: u32,
}

/// The queue's ports as a bench drives them: implemented by the rust-hdl bench and by the
/// Verilated model, so both run [`run`].
pub trait BucketPorts {
    /// Holds reset for two cycles.
    fn reset(&mut self);
    /// The outputs this cycle.
    fn outputs(&self) -> Outputs;
    /// Drives the inputs for this cycle.
    fn drive(&mut self, cmd: Option<Cmd>, stop: bool);
    /// The rising edge.
    fn edge(&mut self);
}

/// What a [`run`] saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Cycles simulated.
    pub cycles: u64,
    /// Set commands taken.
    pub sets: u64,
    /// Remove commands taken.
    pub removes: u64,
    /// Walks taken.
    pub walks: u64,
    /// Walk entries checked.
    pub walked: u64,
    /// The most entries queued at once.
    pub most: usize,
    /// Cycles spent walking.
    pub walk_cycles: u64,
    /// Bucket changes during the walks (each costs the find).
    pub walk_buckets: u64,
}

struct Walk {
    expected: Vec<(u32, u16)>,
    pos: usize,
    limit: usize,
    started: u64,
}

/// The stimulus: a key range drawn per seed (small ranges make long buckets), entries drawn
/// from all `2^A`, most sets moving an entry one packet down as a DATA packet would.
struct Gen {
    rng: Rng,
    entries: u32,
    key_span: u64,
    next_new: u32,
}

impl Gen {
    fn key(&mut self, now: Option<u16>) -> u16 {
        match self.rng.below(10) {
            0..=4 if now.is_some_and(|k| k > 0) => now.unwrap_or(0) - 1,
            5 if now.is_some() => now.unwrap_or(0),
            6 => MAX_KEY,
            _ => self.rng.below(self.key_span) as u16,
        }
    }

    fn cmd(&mut self, q: &Reference, remove_share: u64) -> Cmd {
        let fill = remove_share < 10;
        let mut entry = self.rng.below(u64::from(self.entries)) as u32;
        if fill && self.rng.chance(50) {
            // Filling: every entry in turn, so that all of them are queued at once.
            entry = self.next_new;
            self.next_new = (self.next_new + 1) % self.entries;
        }
        let roll = self.rng.below(100);
        if roll < 8 {
            Cmd {
                op: OP_WALK,
                entry: 0,
                key: 0,
            }
        } else if roll < 8 + remove_share {
            Cmd {
                op: OP_REMOVE,
                entry,
                key: 0,
            }
        } else {
            let key = self.key(q.key(entry));
            Cmd {
                op: OP_SET,
                entry,
                key,
            }
        }
    }
}

/// Drives `commands` commands from `seed` into `dut` (a queue of `entries` entries): the
/// first quarter fills the queue, the second keeps it nearly full, the second half churns it;
/// then one full walk. `Err` says what
/// differed, with the seed and the cycle.
pub fn run<D: BucketPorts>(
    dut: &mut D,
    seed: u64,
    commands: u64,
    entries: u32,
) -> Result<RunStats, String> {
    let mut rng = Rng::new(seed);
    let key_span = [4u64, 40, 1024][rng.below(3) as usize];
    let mut gen_ = Gen {
        rng: Rng::new(seed ^ 0x00B0_C4E7),
        entries,
        key_span,
        next_new: 0,
    };
    let mut q = Reference::new(entries as usize);
    let mut st = RunStats::default();
    let mut walk: Option<Walk> = None;
    let mut busy: Option<(u64, u64)> = None;
    let mut offered: Option<Cmd> = None;
    let mut issued = 0u64;
    let mut final_walk = false;
    dut.reset();
    // Clearing after reset.
    let mut clear = 0u64;
    while !dut.outputs().cmd_ready {
        clear += 1;
        if clear > u64::from(entries) + 8 {
            return Err(format!(
                "seed {seed:#x}: not ready {clear} cycles after reset"
            ));
        }
        dut.drive(None, false);
        dut.edge();
    }
    loop {
        let out = dut.outputs();
        macro_rules! ctx {
            () => {
                format!(
                    "seed {seed:#x}, cycle {}, key span {key_span}, {} queued",
                    st.cycles,
                    q.len()
                )
            };
        }
        let mut stop = false;
        if let Some(w) = walk.as_mut() {
            if out.cmd_ready {
                return Err(format!(
                    "{}: the walk ended after {} of {} entries without m_walk_end",
                    ctx!(),
                    w.pos,
                    w.expected.len()
                ));
            }
            if out.walk_valid {
                let want = w.expected.get(w.pos).copied();
                if want != Some((out.walk_entry, out.walk_key)) {
                    return Err(format!(
                        "{}: walk entry {} is (entry {}, key {}), reference {want:?}",
                        ctx!(),
                        w.pos,
                        out.walk_entry,
                        out.walk_key
                    ));
                }
                if w.pos > 0 && w.expected[w.pos - 1].1 != out.walk_key {
                    st.walk_buckets += 1;
                }
                w.pos += 1;
                st.walked += 1;
            }
            let bound = 5 * (w.pos as u64 + 1) + 3;
            if st.cycles - w.started > bound {
                return Err(format!(
                    "{}: the walk took {} cycles for {} entries",
                    ctx!(),
                    st.cycles - w.started,
                    w.pos
                ));
            }
            if out.walk_end {
                if w.pos != w.expected.len() {
                    return Err(format!(
                        "{}: the walk ended after {} of {} entries",
                        ctx!(),
                        w.pos,
                        w.expected.len()
                    ));
                }
                st.walk_cycles += st.cycles - w.started + 1;
                walk = None;
                busy = Some((OP_WALK, st.cycles));
            } else if w.pos >= w.limit {
                stop = true;
                st.walk_cycles += st.cycles - w.started + 1;
                walk = None;
                busy = Some((OP_WALK, st.cycles));
            }
        } else {
            if out.walk_valid || out.walk_end {
                return Err(format!("{}: walk output with no walk: {out:?}", ctx!()));
            }
            if let Some((op, since)) = busy {
                let bound = match op {
                    OP_SET => SET_CYCLES,
                    OP_REMOVE => REMOVE_CYCLES,
                    _ => 1,
                } as u64;
                if out.cmd_ready {
                    busy = None;
                } else if st.cycles - since > bound {
                    return Err(format!(
                        "{}: command {op} busy for more than {bound} cycles",
                        ctx!()
                    ));
                }
            }
            if out.cmd_ready {
                if out.count as usize != q.len() {
                    return Err(format!(
                        "{}: count {}, reference {}",
                        ctx!(),
                        out.count,
                        q.len()
                    ));
                }
                if final_walk {
                    break;
                }
            }
        }
        if offered.is_none() && walk.is_none() && busy.is_none() {
            if issued < commands {
                if rng.chance(85) {
                    // A quarter filling, a quarter nearly full, half churning.
                    let remove_share = match issued * 4 / commands.max(1) {
                        0 => 0,
                        1 => 4,
                        _ => 45,
                    };
                    offered = Some(gen_.cmd(&q, remove_share));
                }
            } else {
                offered = Some(Cmd {
                    op: OP_WALK,
                    entry: 0,
                    key: 0,
                });
            }
        }
        dut.drive(offered, stop);
        if let Some(cmd) = offered.filter(|_| out.cmd_ready && walk.is_none()) {
            offered = None;
            issued += 1;
            match cmd.op {
                OP_SET => {
                    q.set(cmd.entry, cmd.key);
                    st.sets += 1;
                    busy = Some((OP_SET, st.cycles));
                }
                OP_REMOVE => {
                    q.remove(cmd.entry);
                    st.removes += 1;
                    busy = Some((OP_REMOVE, st.cycles));
                }
                _ => {
                    let full = issued > commands;
                    let limit = if full {
                        usize::MAX
                    } else {
                        match rng.below(10) {
                            0 => 0,
                            1 => usize::MAX,
                            _ => 1 + rng.below(16) as usize,
                        }
                    };
                    final_walk |= full;
                    walk = Some(Walk {
                        expected: q.iter().collect(),
                        pos: 0,
                        limit,
                        started: st.cycles + 1,
                    });
                    st.walks += 1;
                }
            }
        }
        st.most = st.most.max(q.len());
        dut.edge();
        st.cycles += 1;
        if st.cycles > 400 * (commands + 1) + 20 * u64::from(entries) {
            return Err(format!("{}: no progress", ctx!()));
        }
    }
    Ok(st)
}
