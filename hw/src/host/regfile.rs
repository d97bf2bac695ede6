//! `RegFile`: the NIC's register file, generated from `homa_proto::regs` — every block's three
//! header words (type, version, next), its read-write registers (flip-flops with the table's
//! reset values) and its read-only registers (driven by the blocks' counters and constants).
//!
//! ```text
//!  s_reg_addr/wdata/we ──► for each word r of proto::regs::BLOCKS (in table order):
//!                             write: RW words whose address matches take wdata
//!  s_reg_re ─────────────► read:  header words and RO constants from the table,
//!                                  RO counters from ro[r], RW words from their flip-flops
//!                                  ──► m_reg_rdata (registered: valid the cycle after re)
//!  rw[r] ◄── each RW word's value, for the blocks it configures
//! ```
//!
//! One word index `r` per 32-bit register, in the order of [`words`]; a block's logic picks
//! its configuration out of `rw` and feeds its counters into `ro` by that index. Reads of an
//! address that holds no register return 0; writes to it, or to a read-only register, are
//! ignored (the driver checks addresses against the same table).

use crate::hdl::*;
use homa_proto::regs::{Access, BLOCKS, header};

/// What a word of the register file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WordKind {
    /// A block header word or a read-only constant: reads the table's value.
    Const,
    /// A read-only register driven by the hardware (`ro[r]`).
    Status,
    /// A read-write register.
    Control,
}

/// One word: (block, register name, absolute address, reset value, kind).
pub type Word = (&'static str, &'static str, u32, u32, WordKind);

/// Read-only registers whose value is fixed by the build, not driven by a block.
const CONSTANTS: &[(&str, &str)] = &[
    ("ID", "nic_id"),
    ("ID", "fw_version"),
    ("ID", "git_hash"),
    ("ID", "build_date"),
    ("ID", "capabilities"),
    ("ID", "data_width"),
    ("ID", "clock_mhz"),
    ("GRANT", "capacity"),
    ("TX", "capacity"),
];

/// Every word of the register map, in table order: each block's header words, then its
/// registers.
pub fn words() -> Vec<Word> {
    let mut out = Vec::new();
    for b in BLOCKS {
        let next = b.next();
        out.push((
            b.name,
            "type",
            b.base + header::TYPE,
            b.type_id,
            WordKind::Const,
        ));
        out.push((
            b.name,
            "version",
            b.base + header::VERSION,
            b.version,
            WordKind::Const,
        ));
        out.push((b.name, "next", b.base + header::NEXT, next, WordKind::Const));
        for r in b.registers {
            let kind = match r.access {
                Access::Rw => WordKind::Control,
                _ if CONSTANTS.contains(&(b.name, r.name)) => WordKind::Const,
                _ => WordKind::Status,
            };
            out.push((b.name, r.name, b.base + r.offset, r.reset, kind));
        }
    }
    out
}

/// The index of register `name` of block `block` in [`words`]. Panics if there is none: the
/// hardware names registers of the table at elaboration, a missing one is a build bug.
pub fn index_of(block: &str, name: &str) -> usize {
    words()
        .iter()
        .position(|w| w.0 == block && w.1 == name)
        .unwrap_or_else(|| panic!("no register {block}.{name} in proto::regs"))
}

/// The number of words in `proto::regs` (a test checks it against [`words`]).
pub const HOMA_REG_WORDS: usize = 126;

/// The register file of `proto::regs`.
pub type HomaRegFile = RegFile<HOMA_REG_WORDS>;

/// The register file with `R` words (`R == words().len()`).
#[derive(LogicBlock)]
pub struct RegFile<const R: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: every RW register back to its reset value.
    pub reset: Signal<In, Bit>,
    /// Byte address in BAR0.
    pub s_reg_addr: Signal<In, Bits<16>>,
    /// Data to write.
    pub s_reg_wdata: Signal<In, Bits<32>>,
    /// Write this cycle.
    pub s_reg_we: Signal<In, Bit>,
    /// Read this cycle.
    pub s_reg_re: Signal<In, Bit>,
    /// The read data, the cycle after `s_reg_re`.
    pub m_reg_rdata: Signal<Out, Bits<32>>,
    /// `m_reg_rdata` holds a read's result.
    pub m_reg_rvalid: Signal<Out, Bit>,
    /// The values of the status (RO) words, by word index; others are ignored.
    pub ro: [Signal<In, Bits<32>>; R],
    /// The values of the control (RW) words, by word index; others read 0.
    pub rw: [Signal<Out, Bits<32>>; R],
    regs: [DFF<Bits<32>>; R],
    rdata: DFF<Bits<32>>,
    rvalid: DFF<Bit>,
    read: Signal<Local, Bits<32>>,
    c_addr: [Constant<Bits<16>>; R],
    c_value: [Constant<Bits<32>>; R],
    c_control: [Constant<Bit>; R],
    c_status: [Constant<Bit>; R],
    c_zero: Constant<Bits<32>>,
}

impl<const R: usize> RegFile<R> {
    /// The register file of `proto::regs`. Panics unless `R == words().len()` (a build bug,
    /// caught by the tests).
    pub fn new() -> Self {
        Self::with_constants(&[])
    }

    /// The same with some build constants (ID block words such as `data_width`) set to
    /// `(block, name, value)` instead of their `proto::regs` reset values. Panics if one
    /// names no constant word (a build bug).
    pub fn with_constants(constants: &[(&str, &str, u32)]) -> Self {
        let mut w = words();
        for &(block, name, value) in constants {
            let word = w
                .iter_mut()
                .find(|x| x.0 == block && x.1 == name && x.4 == WordKind::Const)
                .unwrap_or_else(|| panic!("{block}.{name} is no build constant of proto::regs"));
            word.3 = value;
        }
        assert_eq!(
            w.len(),
            R,
            "RegFile<{R}>: proto::regs has {} words",
            w.len()
        );
        Self {
            clock: Signal::default(),
            reset: Signal::default(),
            s_reg_addr: Signal::default(),
            s_reg_wdata: Signal::default(),
            s_reg_we: Signal::default(),
            s_reg_re: Signal::default(),
            m_reg_rdata: Signal::default(),
            m_reg_rvalid: Signal::default(),
            ro: std::array::from_fn(|_| Signal::default()),
            rw: std::array::from_fn(|_| Signal::default()),
            regs: std::array::from_fn(|_| DFF::default()),
            rdata: DFF::default(),
            rvalid: DFF::default(),
            read: Signal::default(),
            c_addr: std::array::from_fn(|r| Constant::new(u64::from(w[r].2).into())),
            c_value: std::array::from_fn(|r| Constant::new(u64::from(w[r].3).into())),
            c_control: std::array::from_fn(|r| Constant::new(w[r].4 == WordKind::Control)),
            c_status: std::array::from_fn(|r| Constant::new(w[r].4 == WordKind::Status)),
            c_zero: Constant::new(0u64.into()),
        }
    }
}

impl<const R: usize> Default for RegFile<R> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const R: usize> core::fmt::Debug for RegFile<R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RegFile")
            .field("words", &R)
            .finish_non_exhaustive()
    }
}

impl<const R: usize> Logic for RegFile<R> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rdata, rvalid);
        self.read.next = self.c_zero.val();
        for r in 0..R {
            self.regs[r].clock.next = self.clock.val();
            self.regs[r].d.next = self.regs[r].q.val();
            if self.c_control[r].val()
                & self.s_reg_we.val()
                & (self.s_reg_addr.val() == self.c_addr[r].val())
            {
                self.regs[r].d.next = self.s_reg_wdata.val();
            }
            if self.reset.val() {
                self.regs[r].d.next = self.c_value[r].val();
            }
            self.rw[r].next = self.c_zero.val();
            if self.c_control[r].val() {
                self.rw[r].next = self.regs[r].q.val();
            }
            if self.s_reg_addr.val() == self.c_addr[r].val() {
                self.read.next = self.c_value[r].val();
                if self.c_control[r].val() {
                    self.read.next = self.regs[r].q.val();
                }
                if self.c_status[r].val() {
                    self.read.next = self.ro[r].val();
                }
            }
        }
        self.rvalid.d.next = self.s_reg_re.val();
        if self.s_reg_re.val() {
            self.rdata.d.next = self.read.val();
        }
        if self.reset.val() {
            self.rvalid.d.next = false;
        }
        self.m_reg_rdata.next = self.rdata.q.val();
        self.m_reg_rvalid.next = self.rvalid.q.val();
    }
}

#[cfg(test)]
mod tests;
