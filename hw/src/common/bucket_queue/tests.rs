//! [`BucketQueue`] in rust-hdl's simulator against the reference queue: the shared bench of
//! [`crate::bucket_queue_model`], and a small walk traced cycle by cycle.
#![allow(non_snake_case)]

use super::*;
use crate::bench::seed_from_env;
use crate::bucket_queue_model::{BucketPorts, Cmd, Outputs, run};

struct Sim<const A: usize> {
    uut: BucketQueue<A>,
}

impl<const A: usize> Sim<A> {
    fn new() -> Self {
        Sim {
            uut: BucketQueue::top_level(),
        }
    }
}

impl<const A: usize> BucketPorts for Sim<A> {
    fn reset(&mut self) {
        self.drive(None, false);
        reset_two_cycles(&mut self.uut, |u| &mut u.clock, |u| &mut u.reset);
    }

    fn outputs(&self) -> Outputs {
        let u = &self.uut;
        Outputs {
            cmd_ready: u.s_cmd_ready.val(),
            walk_valid: u.m_walk_valid.val(),
            walk_entry: u.m_walk_entry.val().index() as u32,
            walk_key: u.m_walk_key.val().index() as u16,
            walk_end: u.m_walk_end.val(),
            count: u.count.val().index() as u32,
        }
    }

    fn drive(&mut self, cmd: Option<Cmd>, stop: bool) {
        let u = &mut self.uut;
        let c = cmd.unwrap_or(Cmd {
            op: 0,
            entry: 0,
            key: 0,
        });
        u.s_cmd_valid.next = cmd.is_some();
        u.s_cmd_op.next = c.op.into();
        u.s_cmd_entry.next = u64::from(c.entry).into();
        u.s_cmd_key.next = u64::from(c.key).into();
        u.s_walk_stop.next = stop;
        clock_half(&mut self.uut, |u| &mut u.clock, false);
    }

    fn edge(&mut self) {
        clock_half(&mut self.uut, |u| &mut u.clock, true);
    }
}

#[test]
fn bucket_queue__matches_the_reference_over_64_entries() {
    for (i, seed) in [0xb0c_0001u64, 0xb0c_0002, 0xb0c_0003]
        .into_iter()
        .enumerate()
    {
        let seed = seed_from_env(seed) + i as u64;
        let mut sim = Sim::<6>::new();
        let st = run(&mut sim, seed, 1_500, 64).unwrap_or_else(|e| panic!("{e}"));
        assert!(st.most >= 56, "the queue filled: {st:?}");
        assert!(st.walked > 500 && st.removes > 100, "{st:?}");
    }
}

#[test]
fn bucket_queue__matches_the_reference_over_1024_entries() {
    let seed = seed_from_env(0xb0c_1024);
    let mut sim = Sim::<10>::new();
    let st = run(&mut sim, seed, 3_000, 1024).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{st:?}");
    assert!(st.most >= 600, "{st:?}");
}

#[test]
fn bucket_queue__generates_lint_clean_verilog() {
    let uut = BucketQueue1024::top_level();
    let v = generate_verilog(&uut);
    assert!(v.contains("module top("));
}
