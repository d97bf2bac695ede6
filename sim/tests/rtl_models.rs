//! The Verilator co-simulation machinery, on the self-test designs of `sim/tests/rtl/`:
//! every port width class, a counter and a 512-bit AXI-stream FIFO, each driven with seeded
//! random stimulus (idle cycles and back-pressure) and checked cycle by cycle against a Rust
//! reference model; waveforms; independent instances on several threads.
//!
//! Without Verilator at build time the models do not exist and the only test here is
//! `rtl_models__SKIPPED_verilator_missing`, which prints why.

#![allow(non_snake_case)]

#[cfg(not(homa_rtl))]
#[test]
fn rtl_models__SKIPPED_verilator_missing() {
    println!("{}", homa_sim::rtl::SKIP_MESSAGE);
}

#[cfg(homa_rtl)]
mod built {
    use std::collections::VecDeque;
    use std::path::{Path, PathBuf};

    use homa_sim::rng::{SimRng, seeded_rng};
    use homa_sim::rtl::test_models::{RtlTestAxisFifo, RtlTestCounter, RtlTestWidths};
    use homa_sim::rtl::{Clocked, Model, PortDir, RtlError, words_from_le_bytes};
    use rand::RngExt;

    fn mask(bits: u32) -> u64 {
        if bits == 64 {
            u64::MAX
        } else {
            (1 << bits) - 1
        }
    }

    /// Random words for a wide port and the expected output (the NOT, top word masked).
    fn wide<const N: usize>(rng: &mut SimRng, bits: u32) -> ([u32; N], [u32; N]) {
        let value: [u32; N] = std::array::from_fn(|_| rng.random());
        let top = (bits - 1) % 32 + 1;
        let top_mask = if top == 32 { u32::MAX } else { (1 << top) - 1 };
        let mut clean = value;
        clean[N - 1] &= top_mask;
        let mut not = value.map(|w| !w);
        not[N - 1] &= top_mask;
        (clean, not)
    }

    #[test]
    fn widths__every_class_round_trips() {
        let seed = 1;
        let mut rng = seeded_rng(seed);
        let mut dut = RtlTestWidths::new();
        macro_rules! narrow {
            ($set:ident, $get_in:ident, $get_out:ident, $bits:expr, $v:expr) => {{
                let v: u64 = $v;
                dut.$set(v);
                assert_eq!(dut.$get_in(), v & mask($bits), "seed {seed}: input masked");
                assert_eq!(dut.$get_out(), !v & mask($bits), "seed {seed}: output");
            }};
        }
        macro_rules! wide {
            ($set:ident, $get_in:ident, $get_out:ident, $words:literal, $bits:expr) => {{
                let (value, not) = wide::<$words>(&mut rng, $bits);
                // Set the bits past the width too: the setter must ignore them.
                let mut dirty = value;
                let top: u32 = ($bits - 1) % 32 + 1;
                dirty[$words - 1] |= u32::MAX.checked_shl(top).unwrap_or(0);
                dut.$set(&dirty);
                assert_eq!(dut.$get_in(), value, "seed {seed}: input masked");
                assert_eq!(dut.$get_out(), not, "seed {seed}: output");
            }};
        }
        for _ in 0..500 {
            let v = rng.random::<u64>();
            narrow!(set_a1, get_a1, get_y1, 1, v);
            narrow!(set_a7, get_a7, get_y7, 7, v);
            narrow!(set_a8, get_a8, get_y8, 8, v);
            narrow!(set_a9, get_a9, get_y9, 9, v);
            narrow!(set_a16, get_a16, get_y16, 16, v);
            narrow!(set_a17, get_a17, get_y17, 17, v);
            narrow!(set_a32, get_a32, get_y32, 32, v);
            narrow!(set_a33, get_a33, get_y33, 33, v);
            narrow!(set_a64, get_a64, get_y64, 64, v);
            narrow!(set_a_lsb1, get_a_lsb1, get_y_lsb1, 8, v);
            narrow!(set_a_asc, get_a_asc, get_y_asc, 4, v);
            wide!(set_a65, get_a65, get_y65, 3, 65);
            wide!(set_a100, get_a100, get_y100, 4, 100);
            wide!(set_a512, get_a512, get_y512, 16, 512);
            dut.step();
        }
        assert_eq!(dut.cycles(), 500);
    }

    #[test]
    fn widths__port_table() {
        let a512 = RtlTestWidths::port("a512");
        assert_eq!(
            a512.map(|p| (p.dir, p.width, p.words())),
            Some((PortDir::In, 512, 16))
        );
        let asc = RtlTestWidths::port("y_asc");
        assert_eq!(
            asc.map(|p| (p.dir, p.msb, p.lsb)),
            Some((PortDir::Out, 3, 0))
        );
        let lsb1 = RtlTestWidths::port("a_lsb1");
        assert_eq!(lsb1.map(|p| (p.msb, p.lsb, p.width)), Some((8, 1, 8)));
        assert_eq!(RtlTestWidths::PORTS.len(), 28);
        assert_eq!(<RtlTestWidths as Model>::NAME, "rtl_test_widths");
    }

    /// The counter's behaviour, one rising edge at a time.
    #[derive(Debug, Default)]
    struct CounterRef {
        count: u64,
        wraps: u64,
    }

    impl CounterRef {
        fn edge(&mut self, reset: bool, load: Option<u64>, enable: bool) {
            const MAX: u64 = (1 << 48) - 1;
            if reset {
                *self = Self::default();
            } else if let Some(value) = load {
                self.count = value & MAX;
            } else if enable {
                if self.count == MAX {
                    self.wraps = (self.wraps + 1) & 0xffff;
                }
                self.count = (self.count + 1) & MAX;
            }
        }
    }

    #[test]
    fn counter__matches_reference() {
        let seed = 2;
        let mut rng = seeded_rng(seed);
        let mut dut = RtlTestCounter::new();
        let mut model = CounterRef::default();
        dut.reset(1);
        model.edge(true, None, false);
        for cycle in 0..20_000u64 {
            let reset = rng.random_bool(0.002);
            let load = rng.random_bool(0.02).then(|| {
                if rng.random_bool(0.5) {
                    (1 << 48) - 1 - rng.random_range(0..8)
                } else {
                    rng.random()
                }
            });
            let enable = rng.random_bool(0.8);
            dut.set_reset(u64::from(reset));
            dut.set_load(u64::from(load.is_some()));
            dut.set_load_value(load.unwrap_or_else(|| rng.random()));
            dut.set_enable(u64::from(enable));
            // Registered outputs do not move before the edge.
            assert_eq!(
                dut.get_count(),
                model.count,
                "seed {seed} cycle {cycle}: before edge"
            );
            dut.tick();
            model.edge(reset, load, enable);
            assert_eq!(
                dut.get_count(),
                model.count,
                "seed {seed} cycle {cycle}: count"
            );
            assert_eq!(
                dut.get_wraps(),
                model.wraps,
                "seed {seed} cycle {cycle}: wraps"
            );
        }
        assert!(
            model.wraps > 0,
            "seed {seed}: the stimulus never wrapped the counter"
        );
        assert_eq!(dut.cycles(), 20_001);
    }

    #[test]
    fn counter__first_tick_is_an_edge() {
        let mut dut = RtlTestCounter::new();
        dut.set_load(1);
        dut.set_load_value(0x1234);
        dut.tick();
        assert_eq!(dut.get_count(), 0x1234);
    }

    /// One AXI-stream beat of the FIFO.
    #[derive(Debug, Clone, PartialEq, Eq)]
    struct Beat {
        data: [u32; 16],
        keep: u64,
        last: bool,
    }

    /// The FIFO's behaviour: 4 entries, ready when not full, valid when not empty.
    #[derive(Debug, Default)]
    struct FifoRef {
        queue: VecDeque<Beat>,
        frames: u64,
    }

    impl FifoRef {
        const DEPTH: usize = 4;

        fn ready(&self) -> bool {
            self.queue.len() < Self::DEPTH
        }

        /// The rising edge: whether the input beat was taken, and the beat sent, if any.
        fn edge(&mut self, input: Option<&Beat>, m_ready: bool) -> (bool, Option<Beat>) {
            let push = input.is_some() && self.ready();
            let popped = if m_ready {
                self.queue.pop_front()
            } else {
                None
            };
            if let (true, Some(beat)) = (push, input) {
                self.frames = (self.frames + u64::from(beat.last)) & 0xffff_ffff;
                self.queue.push_back(beat.clone());
            }
            (push, popped)
        }
    }

    /// Random frames of 1-5 beats; the last beat keeps 1-64 bytes.
    fn random_frames(rng: &mut SimRng, count: usize) -> Vec<Beat> {
        let mut beats = Vec::new();
        for _ in 0..count {
            let len = rng.random_range(1..=5);
            for i in 0..len {
                let last = i + 1 == len;
                let bytes = if last { rng.random_range(1..=64) } else { 64 };
                let payload: Vec<u8> = (0..bytes).map(|_| rng.random()).collect();
                beats.push(Beat {
                    data: words_from_le_bytes(&payload).unwrap_or_default(),
                    keep: if bytes == 64 {
                        u64::MAX
                    } else {
                        (1 << bytes) - 1
                    },
                    last,
                });
            }
        }
        beats
    }

    fn drive(dut: &mut RtlTestAxisFifo, beat: Option<&Beat>) {
        dut.set_s_axis_tvalid(u64::from(beat.is_some()));
        if let Some(beat) = beat {
            dut.set_s_axis_tdata(&beat.data);
            dut.set_s_axis_tkeep(beat.keep);
            dut.set_s_axis_tlast(u64::from(beat.last));
        }
    }

    /// Random traffic with idle source cycles and bursty back-pressure, checked cycle by
    /// cycle against `FifoRef` and end to end (every beat out, in order).
    fn fifo_random_traffic(seed: u64, frames: usize) {
        let mut rng = seeded_rng(seed);
        let sent = random_frames(&mut rng, frames);
        let mut dut = RtlTestAxisFifo::new();
        let mut model = FifoRef::default();
        dut.reset(2);
        assert_eq!(dut.get_m_axis_tvalid(), 0, "seed {seed}: valid after reset");
        let (mut next, mut received) = (0, Vec::new());
        let mut stall = 0u32;
        let mut cycle = 0u64;
        while received.len() < sent.len() {
            assert!(
                cycle < 100 * sent.len() as u64,
                "seed {seed}: stuck at cycle {cycle}"
            );
            let offer = (next < sent.len() && rng.random_bool(0.7)).then(|| &sent[next]);
            if stall == 0 && rng.random_bool(0.05) {
                stall = rng.random_range(1..20);
            }
            stall = stall.saturating_sub(1);
            let m_ready = stall == 0 && rng.random_bool(0.6);
            drive(&mut dut, offer);
            dut.set_m_axis_tready(u64::from(m_ready));
            let at = format!("seed {seed} cycle {cycle}");
            assert_eq!(dut.get_s_axis_tready() == 1, model.ready(), "{at}: tready");
            assert_eq!(
                dut.get_m_axis_tvalid() == 1,
                !model.queue.is_empty(),
                "{at}: tvalid"
            );
            if let Some(head) = model.queue.front() {
                let out = Beat {
                    data: dut.get_m_axis_tdata(),
                    keep: dut.get_m_axis_tkeep(),
                    last: dut.get_m_axis_tlast() == 1,
                };
                assert_eq!(&out, head, "{at}: head");
            }
            dut.tick();
            let (pushed, popped) = model.edge(offer, m_ready);
            received.extend(popped);
            next += usize::from(pushed);
            assert_eq!(dut.get_frames(), model.frames, "{at}: frames");
            cycle += 1;
        }
        // The DUT's head matched the model's before every edge, so this is the DUT's output.
        assert_eq!(received, sent, "seed {seed}: stream");
        assert_eq!(model.frames, frames as u64);
    }

    #[test]
    fn axis_fifo__random_traffic_with_back_pressure() {
        fifo_random_traffic(3, 2_000);
    }

    #[test]
    fn axis_fifo__reset_empties_it() {
        let mut rng = seeded_rng(4);
        let beats = random_frames(&mut rng, 2);
        let mut dut = RtlTestAxisFifo::new();
        dut.reset(1);
        drive(&mut dut, Some(&beats[0]));
        dut.ticks(4);
        assert_eq!(dut.get_m_axis_tvalid(), 1);
        assert_eq!(dut.get_s_axis_tready(), 0, "four pushes fill it");
        dut.set_s_axis_tvalid(0);
        dut.reset(1);
        assert_eq!(dut.get_m_axis_tvalid(), 0);
        assert_eq!(dut.get_s_axis_tready(), 1);
        assert_eq!(dut.get_frames(), 0);
    }

    #[test]
    fn axis_fifo__independent_instances_on_threads() {
        std::thread::scope(|scope| {
            for seed in 10..14 {
                scope.spawn(move || fifo_random_traffic(seed, 300));
            }
        });
    }

    fn tmp(name: &str) -> PathBuf {
        Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join("rtl_models")
            .join(name)
    }

    fn assert_is_vcd(path: &Path, signal: &str) {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            text.contains("$enddefinitions"),
            "{} is not a VCD",
            path.display()
        );
        assert!(
            text.contains(signal),
            "{} has no `{signal}`",
            path.display()
        );
        assert!(
            text.contains("\n#15\n"),
            "{} lacks the second rising edge",
            path.display()
        );
    }

    #[test]
    fn trace__writes_a_vcd() {
        let path = tmp("trace/counter.vcd");
        let mut dut = RtlTestCounter::new();
        assert_eq!(dut.trace_to(&path).map_err(|e| e.to_string()), Ok(()));
        assert_eq!(dut.trace_path(), Some(path.as_path()));
        let again = dut.trace_to(&tmp("trace/again.vcd"));
        assert!(
            matches!(again, Err(RtlError::TraceAlreadyOpen { .. })),
            "{again:?}"
        );
        dut.set_enable(1);
        dut.ticks(4);
        dut.trace_close();
        assert_eq!(dut.trace_path(), None);
        dut.ticks(2);
        assert_is_vcd(&path, "load_value");
    }

    #[test]
    fn trace__bad_path_is_an_error() {
        let mut dut = RtlTestCounter::new();
        let error = dut.trace_to(Path::new("/proc/no-such-dir/x.vcd"));
        assert!(
            matches!(error, Err(RtlError::CreateTrace { .. })),
            "{error:?}"
        );
        dut.tick();
    }

    /// Run by `homa_vcd__one_waveform_per_instance` in a child process with `HOMA_VCD` set.
    #[test]
    fn homa_vcd_child() {
        if std::env::var_os("HOMA_SIM_VCD_CHILD").is_none() {
            return;
        }
        let mut counter = RtlTestCounter::new();
        let mut fifo = RtlTestAxisFifo::new();
        counter.ticks(3);
        fifo.ticks(3);
    }

    fn run_child(homa_vcd: &str, only: Option<&str>) {
        let exe = std::env::current_exe().unwrap_or_default();
        let mut child = std::process::Command::new(exe);
        child
            .args(["--exact", "built::homa_vcd_child", "--test-threads", "1"])
            .env("HOMA_SIM_VCD_CHILD", "1")
            .env("HOMA_VCD", homa_vcd)
            .env_remove("HOMA_VCD_ONLY");
        if let Some(only) = only {
            child.env("HOMA_VCD_ONLY", only);
        }
        let status = child.output();
        assert!(
            status.as_ref().is_ok_and(|o| o.status.success()),
            "child failed: {status:?}"
        );
    }

    #[test]
    fn homa_vcd__one_waveform_per_instance() {
        let file = tmp("env-file/wave.vcd");
        let _ = std::fs::remove_dir_all(tmp("env-file"));
        run_child(&file.to_string_lossy(), None);
        assert_is_vcd(&file, "count");
        assert_is_vcd(&tmp("env-file/wave-1.vcd"), "s_axis_tdata");

        let dir = tmp("env-dir");
        let _ = std::fs::remove_dir_all(&dir);
        run_child(&format!("{}/", dir.display()), None);
        assert_is_vcd(&dir.join("rtl_test_counter-0.vcd"), "count");
        assert_is_vcd(&dir.join("rtl_test_axis_fifo-1.vcd"), "m_axis_tready");

        // HOMA_VCD_ONLY picks instances; a bad list records none.
        for (only, want) in [
            ("1", [false, true]),
            ("0,1", [true, true]),
            ("1x", [false; 2]),
        ] {
            let dir = tmp("env-only");
            let _ = std::fs::remove_dir_all(&dir);
            run_child(&format!("{}/", dir.display()), Some(only));
            let got = [
                dir.join("rtl_test_counter-0.vcd").exists(),
                dir.join("rtl_test_axis_fifo-1.vcd").exists(),
            ];
            assert_eq!(got, want, "HOMA_VCD_ONLY={only}");
        }
    }

    /// The example in the `rtl` module documentation.
    #[test]
    fn docs__module_example() {
        let mut fifo = RtlTestAxisFifo::new();
        fifo.reset(2); // rst_n low for two cycles
        fifo.set_s_axis_tdata(&words_from_le_bytes(&[0xab; 64]).unwrap_or_default());
        fifo.set_s_axis_tvalid(1);
        let accepted = fifo.get_s_axis_tready() == 1; // sampled before the edge
        fifo.tick();
        assert_eq!(fifo.get_m_axis_tvalid(), u64::from(accepted));
        assert!(accepted);
        assert_eq!(fifo.get_m_axis_tdata(), [0xabab_abab; 16]);
    }

    /// Generic code over the traits.
    fn run_clocked<M: Clocked>(model: &mut M, cycles: u64) -> u64 {
        model.ticks(cycles);
        model.cycles()
    }

    #[test]
    fn traits__generic_driving() {
        let mut dut = RtlTestCounter::new();
        assert_eq!(run_clocked(&mut dut, 7), 7);
        assert!(format!("{dut:?}").contains("cycles: 7"));
    }
}
