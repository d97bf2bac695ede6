//! [`RegFile`] against `proto::regs`: after reset every word reads its table value (header
//! words, constants, RW reset values) or its `ro` input; writes land in RW words only and
//! show on `rw`; other addresses read 0; reset restores the table (direct `simulate()` loop).
#![allow(non_snake_case)]

use super::*;
use crate::bench::{Rng, seed_from_env};

type Uut = HomaRegFile;

struct Bench {
    uut: Box<Uut>,
}

impl Bench {
    fn new() -> Self {
        let mut uut = Box::new(Uut::new());
        uut.clock.connect();
        uut.reset.connect();
        uut.s_reg_addr.connect();
        uut.s_reg_wdata.connect();
        uut.s_reg_we.connect();
        uut.s_reg_re.connect();
        for r in 0..HOMA_REG_WORDS {
            uut.ro[r].connect();
        }
        uut.connect_all();
        let mut b = Bench { uut };
        b.uut.reset.next = true;
        b.cycle();
        b.uut.reset.next = false;
        b
    }

    fn cycle(&mut self) {
        clock_half(&mut *self.uut, |u| &mut u.clock, false);
        clock_half(&mut *self.uut, |u| &mut u.clock, true);
    }

    fn write(&mut self, addr: u32, value: u32) {
        self.uut.s_reg_addr.next = u64::from(addr).into();
        self.uut.s_reg_wdata.next = u64::from(value).into();
        self.uut.s_reg_we.next = true;
        self.cycle();
        self.uut.s_reg_we.next = false;
    }

    fn read(&mut self, addr: u32) -> u32 {
        self.uut.s_reg_addr.next = u64::from(addr).into();
        self.uut.s_reg_re.next = true;
        self.cycle();
        self.uut.s_reg_re.next = false;
        clock_half(&mut *self.uut, |u| &mut u.clock, false);
        assert!(self.uut.m_reg_rvalid.val(), "rvalid the cycle after re");
        self.uut.m_reg_rdata.val().index() as u32
    }
}

#[test]
fn words__match_the_type_alias_and_cover_every_register() {
    let w = words();
    assert_eq!(w.len(), HOMA_REG_WORDS);
    let regs: usize = BLOCKS.iter().map(|b| 3 + b.registers.len()).sum();
    assert_eq!(w.len(), regs);
    let mut addrs: Vec<u32> = w.iter().map(|x| x.2).collect();
    addrs.sort_unstable();
    addrs.dedup();
    assert_eq!(addrs.len(), w.len(), "addresses are unique");
    assert_eq!(
        index_of("CONFIG", "max_overcommit"),
        w.iter().position(|x| x.1 == "max_overcommit").unwrap()
    );
}

#[test]
fn words__reset_values_are_proto_regs_reset_image() {
    let w = words();
    for b in BLOCKS {
        for (offset, value) in b.reset_image() {
            let word = w
                .iter()
                .find(|x| x.2 == b.base + offset)
                .unwrap_or_else(|| panic!("{} + {offset:#x} missing", b.name));
            if word.4 != WordKind::Status {
                assert_eq!(word.3, value, "{}.{}", word.0, word.1);
            }
        }
    }
}

#[test]
fn regfile__reads_writes_and_resets_as_proto_regs_says() {
    let seed = seed_from_env(0x4e6_0001);
    let mut rng = Rng::new(seed);
    let w = words();
    let mut b = Bench::new();
    let status: Vec<u32> = (0..w.len()).map(|_| rng.next_u64() as u32).collect();
    for (r, v) in status.iter().enumerate() {
        b.uut.ro[r].next = u64::from(*v).into();
    }
    let expect_reset = |r: usize| match w[r].4 {
        WordKind::Status => status[r],
        _ => w[r].3,
    };
    for (r, word) in w.iter().enumerate() {
        assert_eq!(
            b.read(word.2),
            expect_reset(r),
            "{}.{} after reset",
            word.0,
            word.1
        );
    }
    let written: Vec<u32> = (0..w.len()).map(|_| rng.next_u64() as u32).collect();
    for r in 0..w.len() {
        b.write(w[r].2, written[r]);
    }
    for r in 0..w.len() {
        let want = match w[r].4 {
            WordKind::Control => written[r],
            _ => expect_reset(r),
        };
        assert_eq!(b.read(w[r].2), want, "{}.{} after writes", w[r].0, w[r].1);
        let rw = b.uut.rw[r].val().index() as u32;
        let want_rw = if w[r].4 == WordKind::Control {
            written[r]
        } else {
            0
        };
        assert_eq!(rw, want_rw, "rw output of {}.{}", w[r].0, w[r].1);
    }
    assert_eq!(b.read(0x0ffc), 0, "an address without a register");
    b.uut.reset.next = true;
    b.cycle();
    b.uut.reset.next = false;
    for (r, word) in w.iter().enumerate() {
        assert_eq!(
            b.read(word.2),
            expect_reset(r),
            "{}.{} after a second reset",
            word.0,
            word.1
        );
    }
}
