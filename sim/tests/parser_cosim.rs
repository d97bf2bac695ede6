//! Co-simulation of the generated RX parser (`hw/rtl/homa_rx_parser_w64.v` and `_w512.v`)
//! under Verilator, against the same oracle and stimulus as the rust-hdl tests
//! (`homa_hw::parser_model`): seeded random valid and malformed frames, random idle cycles on
//! the input and random back-pressure on both outputs; every verdict, counter, error pulse,
//! header field and payload byte must match `homa_proto::wire::FrameRepr::parse`.
//!
//! `HOMA_HW_SEED` (hex) replays a seed, `HOMA_HW_FRAMES` sets the frame count, `HOMA_VCD`
//! dumps a waveform. Without Verilator at build time the only test is the SKIPPED one.

#![allow(non_snake_case)]

#[cfg(not(homa_rtl))]
#[test]
fn parser_cosim__SKIPPED_verilator_missing() {
    println!("{}", homa_sim::rtl::SKIP_MESSAGE);
}

#[cfg(homa_rtl)]
mod built {
    use homa_hw::bench::{
        Rng, frames_from_env, golden_frames, random_malformed, random_valid, seed_from_env,
    };
    use homa_hw::parser_model::{Hdr, Observed, Shape, check};
    use homa_sim::rtl::models::{HomaRxParserW64, HomaRxParserW512};
    use homa_sim::rtl::{words_from_le_bytes, words_to_le_bytes};

    /// The parser's ports, the same for both widths but for the data words.
    trait Parser {
        const BYTES: usize;
        fn create() -> Self;
        fn reset_cycles(&mut self, n: u64);
        fn tick(&mut self);
        fn set_beat(&mut self, data: &[u8], keep: u64, last: bool);
        fn set_valid(&mut self, v: bool);
        fn set_ready(&mut self, hdr: bool, payload: bool);
        fn input_ready(&self) -> bool;
        fn hdr_valid(&self) -> bool;
        fn hdr(&self) -> Hdr;
        /// (valid, bytes kept, last, tuser)
        fn payload(&self) -> (bool, Vec<u8>, bool, bool);
        fn counters(&self) -> [u32; 6];
        fn pulses(&self) -> [bool; 5];
        fn busy(&self) -> bool;
    }

    fn u128_of(w: [u32; 4]) -> u128 {
        w.iter()
            .rev()
            .fold(0u128, |acc, x| (acc << 32) | u128::from(*x))
    }

    macro_rules! impl_parser {
        ($ty:ty, $bytes:expr, $set_data:expr, $get_data:expr) => {
            impl Parser for $ty {
                const BYTES: usize = $bytes;
                fn create() -> Self {
                    <$ty>::new()
                }
                fn reset_cycles(&mut self, n: u64) {
                    self.reset(n);
                }
                fn tick(&mut self) {
                    <$ty>::tick(self);
                }
                fn set_beat(&mut self, data: &[u8], keep: u64, last: bool) {
                    ($set_data)(self, data);
                    self.set_s_axis_tkeep(keep);
                    self.set_s_axis_tlast(u64::from(last));
                }
                fn set_valid(&mut self, v: bool) {
                    self.set_s_axis_tvalid(u64::from(v));
                }
                fn set_ready(&mut self, hdr: bool, payload: bool) {
                    self.set_m_hdr_ready(u64::from(hdr));
                    self.set_m_axis_tready(u64::from(payload));
                }
                fn input_ready(&self) -> bool {
                    self.get_s_axis_tready() == 1
                }
                fn hdr_valid(&self) -> bool {
                    self.get_m_hdr_valid() == 1
                }
                fn hdr(&self) -> Hdr {
                    Hdr {
                        ip_version: self.get_m_hdr_ip_version() as u8,
                        src_ip: u128_of(self.get_m_hdr_src_ip()),
                        dst_ip: u128_of(self.get_m_hdr_dst_ip()),
                        priority: self.get_m_hdr_priority() as u8,
                        sport: self.get_m_hdr_sport() as u16,
                        dport: self.get_m_hdr_dport() as u16,
                        ptype: self.get_m_hdr_type() as u8,
                        sender_id: self.get_m_hdr_sender_id(),
                        message_length: self.get_m_hdr_data_message_length() as u32,
                        incoming: self.get_m_hdr_data_incoming() as u32,
                        offset: self.get_m_hdr_data_offset() as u32,
                        cutoff_version: self.get_m_hdr_data_cutoff_version() as u16,
                        retransmit: self.get_m_hdr_data_retransmit() == 1,
                        ack_client_id: self.get_m_hdr_data_ack_client_id(),
                        ack_server_port: self.get_m_hdr_data_ack_server_port() as u16,
                        payload_len: self.get_m_hdr_data_payload_len() as u16,
                        grant_offset: self.get_m_hdr_grant_offset() as u32,
                        grant_priority: self.get_m_hdr_grant_priority() as u8,
                        resend_offset: self.get_m_hdr_resend_offset() as u32,
                        resend_length: self.get_m_hdr_resend_length() as u32,
                        resend_priority: self.get_m_hdr_resend_priority() as u8,
                        body: body_of(&self.get_m_hdr_body()),
                    }
                    .normalised()
                }
                fn payload(&self) -> (bool, Vec<u8>, bool, bool) {
                    let bytes: Vec<u8> = ($get_data)(self);
                    let keep = self.get_m_axis_tkeep();
                    let kept = (0..$bytes)
                        .filter(|lane| keep >> lane & 1 == 1)
                        .map(|lane| bytes[lane])
                        .collect();
                    (
                        self.get_m_axis_tvalid() == 1,
                        kept,
                        self.get_m_axis_tlast() == 1,
                        self.get_m_axis_tuser() == 1,
                    )
                }
                fn counters(&self) -> [u32; 6] {
                    [
                        self.get_frames_ok() as u32,
                        self.get_dropped_runt() as u32,
                        self.get_dropped_bad_checksum() as u32,
                        self.get_dropped_not_homa() as u32,
                        self.get_dropped_bad_type() as u32,
                        self.get_dropped_bad_length() as u32,
                    ]
                }
                fn pulses(&self) -> [bool; 5] {
                    [
                        self.get_error_runt() == 1,
                        self.get_error_bad_checksum() == 1,
                        self.get_error_not_homa() == 1,
                        self.get_error_bad_type() == 1,
                        self.get_error_bad_length() == 1,
                    ]
                }
                fn busy(&self) -> bool {
                    self.get_busy() == 1
                }
            }
        };
    }

    impl_parser!(
        HomaRxParserW64,
        8,
        |m: &mut HomaRxParserW64, d: &[u8]| {
            let mut b = [0u8; 8];
            b[..d.len()].copy_from_slice(d);
            m.set_s_axis_tdata(u64::from_le_bytes(b));
        },
        |m: &HomaRxParserW64| m.get_m_axis_tdata().to_le_bytes().to_vec()
    );
    impl_parser!(
        HomaRxParserW512,
        64,
        |m: &mut HomaRxParserW512, d: &[u8]| {
            let words = words_from_le_bytes::<16>(d).expect("a beat fits 64 bytes");
            m.set_s_axis_tdata(&words);
        },
        |m: &HomaRxParserW512| words_to_le_bytes(&m.get_m_axis_tdata())
    );

    /// Drives `frames` through a fresh model, recording what it says (the same protocol as
    /// the rust-hdl bench: inputs set, outputs read, then the clock edge).
    fn run<P: Parser>(frames: &[Vec<u8>], shape: Shape, rng: &mut Rng) -> Observed {
        let k = P::BYTES;
        let mut beats: Vec<(Vec<u8>, u64, bool)> = Vec::new();
        for frame in frames {
            if frame.is_empty() {
                beats.push((Vec::new(), 0, true));
            }
            for (i, chunk) in frame.chunks(k).enumerate() {
                let keep = if chunk.len() == 64 {
                    u64::MAX
                } else {
                    (1u64 << chunk.len()) - 1
                };
                beats.push((chunk.to_vec(), keep, (i + 1) * k >= frame.len()));
            }
        }
        let mut m = P::create();
        m.reset_cycles(2);
        let mut obs = Observed::default();
        let (mut next, mut offered, mut quiet, mut cycle, mut last_progress) =
            (0, false, 0, 0u64, 0u64);
        let mut payload = Vec::new();
        let mut prev = m.counters();
        loop {
            if !offered && next < beats.len() && !rng.chance(shape.idle) {
                offered = true;
            }
            if offered {
                let (d, keep, last) = &beats[next];
                m.set_beat(d, *keep, *last);
            }
            m.set_valid(offered);
            let hdr_ready = !rng.chance(shape.hdr_stall);
            let payload_ready = !rng.chance(shape.pay_stall);
            m.set_ready(hdr_ready, payload_ready);
            let mut progress = false;
            if offered && m.input_ready() {
                next += 1;
                offered = false;
                progress = true;
            }
            // The header and payload handshakes as set this cycle.
            let hdr_taken = m.hdr_valid() && hdr_ready;
            if hdr_taken {
                obs.headers.push(m.hdr());
                progress = true;
            }
            let (valid, bytes, last, tuser) = m.payload();
            if valid && payload_ready {
                payload.extend_from_slice(&bytes);
                if last {
                    obs.payloads.push((std::mem::take(&mut payload), tuser));
                }
                progress = true;
            }
            let now = m.counters();
            let pulses = m.pulses();
            progress |= obs.record_counters(&prev, &now, &pulses);
            prev = now;
            let idle = next == beats.len() && !m.busy();
            m.tick();
            cycle += 1;
            if progress {
                last_progress = cycle;
                quiet = 0;
            } else if idle {
                quiet += 1;
                if quiet > 4 {
                    break;
                }
            }
            assert!(
                cycle - last_progress < 10_000,
                "no progress for 10000 cycles at beat {next}"
            );
        }
        obs.counters = prev;
        obs.cycles = cycle;
        assert!(payload.is_empty(), "payload without tlast at the end");
        obs
    }

    fn cosim<P: Parser>(name: &str, seed: u64, n: usize) {
        eprintln!("{name}: seed {seed:#x} (HOMA_HW_SEED to replay), {n} frames");
        let mut rng = Rng::new(seed);
        let mut frames = golden_frames(&mut rng);
        frames.extend((0..n).map(|_| {
            if rng.chance(35) {
                random_malformed(&mut rng)
            } else {
                random_valid(&mut rng)
            }
        }));
        let shape = Shape {
            idle: rng.below(40),
            hdr_stall: rng.below(60),
            pay_stall: rng.below(60),
        };
        let t = std::time::Instant::now();
        let obs = run::<P>(&frames, shape, &mut rng);
        let secs = t.elapsed().as_secs_f64();
        eprintln!(
            "{name}: {} cycles in {secs:.2} s ({:.0} cycles/s), {shape:?}, verdicts {:?}",
            obs.cycles,
            obs.cycles as f64 / secs,
            obs.counters
        );
        if let Err(m) = check(&frames, &obs) {
            panic!("{name}, seed {seed:#x}: {m}");
        }
    }

    #[test]
    fn parser_cosim__w64_matches_the_software_parser() {
        cosim::<HomaRxParserW64>(
            "w64",
            seed_from_env(0xc051_0064),
            frames_from_env(3_000, 20_000),
        );
    }

    #[test]
    fn parser_cosim__w512_matches_the_software_parser() {
        cosim::<HomaRxParserW512>(
            "w512",
            seed_from_env(0xc051_0512),
            frames_from_env(1_000, 5_000),
        );
    }

    /// The bytes of a body window port (eight 32-bit words, wire byte 0 lowest).
    fn body_of(words: &[u32]) -> [u8; homa_proto::hostif::CONTROL_BODY_LEN] {
        let bytes = words_to_le_bytes(words);
        std::array::from_fn(|i| bytes[i])
    }
}
