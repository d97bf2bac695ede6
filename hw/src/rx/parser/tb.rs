//! Test bench for [`HomaParser`]: drives frames through the rust-hdl model with the direct
//! `simulate()` loop (no testbench threads), with seeded random idle cycles on the input and
//! random back-pressure on both outputs, and records everything the block says, for
//! `crate::parser_model::check`.

use super::HomaParser;
use crate::bench::Rng;
use crate::hdl::*;
use crate::parser_model::{Hdr, Observed, Shape};

/// A parser under test with the direct simulation loop.
pub struct Bench<const W: usize, const K: usize> {
    pub uut: HomaParser<W, K>,
    cycle: u64,
}

fn word<const W: usize>(bytes: &[u8]) -> Bits<W> {
    bits_from_le_bytes::<W>(bytes)
}

fn keep<const K: usize>(n: usize) -> Bits<K> {
    let mut v: Bits<K> = Bits::default();
    for i in 0..n {
        v = v.replace_bit(i, true);
    }
    v
}

impl<const W: usize, const K: usize> Bench<W, K> {
    /// A reset parser.
    pub fn new() -> Self {
        let mut uut = HomaParser::<W, K>::new();
        uut.clock.connect();
        uut.reset.connect();
        uut.s_axis_tdata.connect();
        uut.s_axis_tkeep.connect();
        uut.s_axis_tvalid.connect();
        uut.s_axis_tlast.connect();
        uut.m_hdr_ready.connect();
        uut.m_axis_tready.connect();
        uut.connect_all();
        let mut b = Bench { uut, cycle: 0 };
        b.uut.reset.next = true;
        b.step();
        b.step();
        b.uut.reset.next = false;
        b
    }

    /// Low half of a cycle: inputs already set; outputs valid after this.
    fn low(&mut self) {
        clock_half(&mut self.uut, |u| &mut u.clock, false);
    }

    /// Rising edge.
    fn high(&mut self) {
        clock_half(&mut self.uut, |u| &mut u.clock, true);
        self.cycle += 1;
    }

    fn step(&mut self) {
        self.low();
        self.high();
    }

    /// Runs `frames` through the parser and returns what it did. Panics (a test failure)
    /// if the parser stops making progress for 10 000 cycles.
    pub fn run(&mut self, frames: &[Vec<u8>], shape: Shape, rng: &mut Rng) -> Observed {
        // Beats: (data, keep, last, frame index).
        let mut beats = Vec::new();
        for (f, frame) in frames.iter().enumerate() {
            if frame.is_empty() {
                beats.push((word::<W>(&[]), keep::<K>(0), true, f));
            }
            // Sometimes end a frame of whole beats with an empty (tkeep = 0) last beat.
            let empty_last = !frame.is_empty() && frame.len() % K == 0 && rng.chance(30);
            for (i, chunk) in frame.chunks(K).enumerate() {
                let last = (i + 1) * K >= frame.len() && !empty_last;
                beats.push((word::<W>(chunk), keep::<K>(chunk.len()), last, f));
            }
            if empty_last {
                beats.push((word::<W>(&[]), keep::<K>(0), true, f));
            }
        }
        let mut obs = Observed::default();
        let mut next = 0;
        let mut offered = false;
        let mut payload = Vec::new();
        let mut prev = [0u32; 6];
        let mut hdr_was_valid = false;
        let mut quiet = 0;
        let mut last_progress = self.cycle;
        loop {
            if !offered && next < beats.len() && !rng.chance(shape.idle) {
                offered = true;
            }
            if offered {
                let (d, k, l, _) = &beats[next];
                self.uut.s_axis_tdata.next = *d;
                self.uut.s_axis_tkeep.next = *k;
                self.uut.s_axis_tlast.next = *l;
            }
            self.uut.s_axis_tvalid.next = offered;
            self.uut.m_hdr_ready.next = !rng.chance(shape.hdr_stall);
            self.uut.m_axis_tready.next = !rng.chance(shape.pay_stall);
            self.low();
            let u = &self.uut;
            let mut progress = false;
            if offered {
                if u.s_axis_tready.val() {
                    if beats[next].2 {
                        obs.last_beat_cycle.push(self.cycle);
                    }
                    next += 1;
                    offered = false;
                    progress = true;
                } else {
                    obs.input_stalls += 1;
                }
            }
            if u.m_hdr_valid.val() && !hdr_was_valid {
                obs.hdr_valid_cycle.push(self.cycle);
            }
            hdr_was_valid = u.m_hdr_valid.val() && !u.m_hdr_ready.val();
            if u.m_hdr_valid.val() && u.m_hdr_ready.val() {
                obs.headers.push(read_hdr(u));
                progress = true;
            }
            if u.m_axis_tvalid.val() && u.m_axis_tready.val() {
                let data = u.m_axis_tdata.val();
                let kp = u.m_axis_tkeep.val();
                for lane in 0..K {
                    if kp.get_bit(lane) {
                        payload.push(data.get_bits::<8>(lane * 8).to_u8());
                    }
                }
                if u.m_axis_tlast.val() {
                    obs.payloads
                        .push((std::mem::take(&mut payload), u.m_axis_tuser.val()));
                }
                progress = true;
            }
            let now = [
                u.frames_ok.val().to_u32(),
                u.dropped_runt.val().to_u32(),
                u.dropped_bad_checksum.val().to_u32(),
                u.dropped_not_homa.val().to_u32(),
                u.dropped_bad_type.val().to_u32(),
                u.dropped_bad_length.val().to_u32(),
            ];
            let pulses = [
                u.error_runt.val(),
                u.error_bad_checksum.val(),
                u.error_not_homa.val(),
                u.error_bad_type.val(),
                u.error_bad_length.val(),
            ];
            progress |= obs.record_counters(&prev, &now, &pulses);
            prev = now;
            let idle = next == beats.len() && !u.busy.val();
            self.high();
            if progress {
                last_progress = self.cycle;
                quiet = 0;
            } else if idle {
                // Counters and pulses lag the last verdict by a cycle: drain a little more.
                quiet += 1;
                if quiet > 4 {
                    break;
                }
            }
            assert!(
                self.cycle - last_progress < 10_000,
                "no progress for 10000 cycles: at beat {next} of {}",
                beats.len()
            );
        }
        obs.counters = prev;
        obs.cycles = self.cycle;
        assert!(payload.is_empty(), "payload without tlast at the end");
        obs
    }
}

fn read_hdr<const W: usize, const K: usize>(u: &HomaParser<W, K>) -> Hdr {
    Hdr {
        ip_version: u.m_hdr_ip_version.val().to_u8(),
        src_ip: u.m_hdr_src_ip.val().to_u128(),
        dst_ip: u.m_hdr_dst_ip.val().to_u128(),
        priority: u.m_hdr_priority.val().to_u8(),
        sport: u.m_hdr_sport.val().to_u16(),
        dport: u.m_hdr_dport.val().to_u16(),
        ptype: u.m_hdr_type.val().to_u8(),
        sender_id: u.m_hdr_sender_id.val().to_u64(),
        message_length: u.m_hdr_data_message_length.val().to_u32(),
        incoming: u.m_hdr_data_incoming.val().to_u32(),
        offset: u.m_hdr_data_offset.val().to_u32(),
        cutoff_version: u.m_hdr_data_cutoff_version.val().to_u16(),
        retransmit: u.m_hdr_data_retransmit.val(),
        ack_client_id: u.m_hdr_data_ack_client_id.val().to_u64(),
        ack_server_port: u.m_hdr_data_ack_server_port.val().to_u16(),
        payload_len: u.m_hdr_data_payload_len.val().to_u16(),
        grant_offset: u.m_hdr_grant_offset.val().to_u32(),
        grant_priority: u.m_hdr_grant_priority.val().to_u8(),
        resend_offset: u.m_hdr_resend_offset.val().to_u32(),
        resend_length: u.m_hdr_resend_length.val().to_u32(),
        resend_priority: u.m_hdr_resend_priority.val().to_u8(),
        body: body_bytes(u.m_hdr_body.val()),
    }
    .normalised()
}

/// The bytes of a body window port, wire byte `i` from bits `8i+7..8i`.
fn body_bytes(b: Bits<248>) -> [u8; homa_proto::hostif::CONTROL_BODY_LEN] {
    std::array::from_fn(|i| b.get_bits::<8>(8 * i).to_u8())
}
