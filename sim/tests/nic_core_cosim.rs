//! Co-simulation of the composed NIC core (`hw/rtl/homa_nic_core_w512.v` and
//! `homa_nic_core_w64.v`: parser, 1024-entry message table, grant generator, GRANT framer)
//! under Verilator, at both widths: DATA frames built by
//! `proto::wire` from closed-loop traffic (many interleaved messages of 1 B to 1 MB, losses,
//! duplicates, reordering) go in a beat a cycle (64 or 8 bytes) with gaps; every GRANT frame that comes out
//! must equal, byte for byte and in order, the frame `proto::wire` emits for the GRANT the
//! reference decides (message table model, then `proto::policy` as `core` applies it), under
//! back-pressure on every output. Also measures the latency from a DATA frame's last beat
//! to its GRANT's first beat, and the model's speed. Malformed frames, control packets and
//! IPv6 DATA are mixed in: the parser must count them and the grant path must not see them.
//! The host rings stay off here (payloads are dropped for want of a buffer, and the grant
//! path must not notice); `host_rx_cosim` and the cluster's tests check the DMA path.
//! `HOMA_HW_SEED` replays a seed; `HOMA_HW_FRAMES` sets the packets per run.

#![allow(non_snake_case)]

#[cfg(not(homa_rtl))]
#[test]
fn nic_core_cosim__SKIPPED_verilator_missing() {
    println!("{}", homa_sim::rtl::SKIP_MESSAGE);
}

#[cfg(homa_rtl)]
mod built {
    use homa_hw::bench::{
        Rng, frame_of, frames_from_env, random_malformed, random_payload, seed_from_env,
    };
    use homa_hw::grant_framer::reference_frame;
    use homa_hw::grant_model::{Event, Grant, GrantConfig, Packet, Traffic};
    use homa_hw::grant_queue_model::{FifoConfig, QueueConfig, QueueReference};
    use homa_hw::msg_table::places;
    use homa_hw::msg_table_model::{Outcome, TableModel, release_packet};
    use homa_hw::parser_model::{Verdict, expect};
    use homa_proto::wire::{self, ChecksumCapabilities, FrameRepr, LinkType, PacketType};
    use homa_sim::rtl::nic_core::{NicCore, new_core};
    use std::collections::VecDeque;

    const LOCAL_MAC: u64 = 0x02_00_00_00_00_aa;
    const LOCAL_IP: u32 = 0x0a00_00fe;
    /// Priority levels in use: the core's GRANTs go at the top one (not the reset value's 7).
    const NUM_PRIORITIES: u8 = 7;
    const CONTROL_PRIORITY: u8 = NUM_PRIORITIES - 1;
    const GW_MAC: u64 = 0x02_00_00_00_00_01;

    fn mac(m: u64) -> wire::EthernetAddress {
        wire::EthernetAddress(std::array::from_fn(|i| (m >> (40 - 8 * i)) as u8))
    }

    /// The DATA frame of a packet, from its peer to us.
    fn data_frame(p: &Packet, payload: &[u8]) -> Vec<u8> {
        let ev = p.ev;
        FrameRepr {
            ethernet: Some(wire::EthernetRepr {
                src_addr: mac(ev.mac),
                dst_addr: mac(LOCAL_MAC),
                vlan: None,
                ethertype: wire::EtherType::IPV4,
            }),
            ip: wire::IpRepr::V4(wire::Ipv4Repr {
                src_addr: ev.peer.into(),
                dst_addr: LOCAL_IP.into(),
                tos: 0,
                ident: 0,
                dont_frag: true,
                ttl: 64,
                protocol: wire::PROTOCOL_HOMA,
                payload_len: 0,
            }),
            homa: wire::Repr {
                sport: ev.sport,
                dport: ev.dport,
                sender_id: ev.id,
                body: wire::Body::Data(wire::Data {
                    message_length: ev.length,
                    incoming: ev.incoming,
                    ack: None,
                    cutoff_version: 1,
                    retransmit: false,
                    offset: p.offset,
                    payload: &payload[..(ev.end - p.offset) as usize],
                }),
            },
        }
        .to_bytes(&ChecksumCapabilities::default())
    }

    fn address(block: &str, name: &str) -> u64 {
        let b = homa_proto::regs::block(block).expect("a block of proto::regs");
        u64::from(b.address(name).expect("a register of proto::regs"))
    }

    /// A register write on the core's bus (one cycle).
    fn write_reg(m: &mut dyn NicCore, block: &str, name: &str, value: u64) {
        m.set_s_reg_addr(address(block, name));
        m.set_s_reg_wdata(value);
        m.set_s_reg_we(1);
        m.tick();
        m.set_s_reg_we(0);
    }

    /// A register read on the core's bus (one cycle).
    fn read_reg(m: &mut dyn NicCore, block: &str, name: &str) -> u64 {
        m.set_s_reg_addr(address(block, name));
        m.set_s_reg_re(1);
        m.tick();
        m.set_s_reg_re(0);
        assert_eq!(m.get_m_reg_rvalid(), 1);
        m.get_m_reg_rdata()
    }

    /// Resets the core and programs it through its registers, as the driver does.
    fn configure(m: &mut dyn NicCore, cfg: &QueueConfig) {
        let (max_payload, fifo, cfg) = (cfg.max_payload, cfg.fifo, &cfg.grant);
        m.reset(2);
        assert_eq!(
            read_reg(m, "ID", "nic_id"),
            u64::from(homa_proto::regs::NIC_ID)
        );
        assert_eq!(
            read_reg(m, "ID", "data_width"),
            8 * m.beat_bytes() as u64,
            "the ID block names the core's width"
        );
        write_reg(m, "CONFIG", "max_overcommit", u64::from(cfg.max_overcommit));
        write_reg(m, "CONFIG", "max_sched_prio", u64::from(cfg.max_sched_prio));
        write_reg(m, "CONFIG", "max_incoming", u64::from(cfg.max_incoming));
        write_reg(m, "CONFIG", "num_priorities", u64::from(NUM_PRIORITIES));
        write_reg(m, "CONFIG", "fifo_grant_interval", u64::from(fifo.interval));
        write_reg(
            m,
            "CONFIG",
            "fifo_grant_increment",
            u64::from(fifo.increment),
        );
        write_reg(m, "CONFIG", "fifo_grant_prio", u64::from(fifo.priority));
        for (n, w) in cfg.window_table().into_iter().enumerate() {
            write_reg(m, "CONFIG", &format!("window_n{n}"), u64::from(w));
        }
        write_reg(m, "CONFIG", "mac_addr_lo", LOCAL_MAC & 0xffff_ffff);
        write_reg(m, "CONFIG", "mac_addr_hi", LOCAL_MAC >> 32);
        write_reg(m, "CONFIG", "gw_mac_lo", GW_MAC & 0xffff_ffff);
        write_reg(m, "CONFIG", "gw_mac_hi", GW_MAC >> 32);
        write_reg(m, "CONFIG", "ipv4_addr", u64::from(LOCAL_IP));
        write_reg(m, "TX", "max_payload", u64::from(max_payload));
    }

    /// The message table's entry bits in the core.
    const TABLE_BITS: u32 = 10;

    /// The grant generator's side of the run: the table's events in the order it sends
    /// them, applied to the reference as the core's trace shows the generator take each one,
    /// a decision where the trace shows one, and the GRANT frames owed, in order.
    struct GrantSide {
        reference: QueueReference,
        pending: VecDeque<(u32, Event)>,
        expected: VecDeque<Vec<u8>>,
        dirty: bool,
        most_tracked: usize,
        decisions: u64,
        fifo_grants: u64,
    }

    impl GrantSide {
        fn new(cfg: QueueConfig) -> Self {
            GrantSide {
                reference: QueueReference::new(cfg, 1 << TABLE_BITS),
                pending: VecDeque::new(),
                expected: VecDeque::new(),
                dirty: false,
                most_tracked: 0,
                decisions: 0,
                fifo_grants: 0,
            }
        }

        /// The message table sends `ev` (its reference says so).
        fn table_event(&mut self, (at, ev): (u32, Event)) {
            let ev = Event { mac: GW_MAC, ..ev };
            self.pending.push_back((at, ev));
        }

        /// A register write on the core's bus, its cycle traced (the FIFO grants' timer runs
        /// meanwhile).
        fn write(&mut self, m: &mut dyn NicCore, seed: u64, block: &str, name: &str, v: u64) {
            self.trace(m, seed);
            write_reg(m, block, name, v);
        }

        /// This cycle's trace, before the edge.
        fn trace(&mut self, m: &dyn NicCore, seed: u64) {
            if m.get_m_trace_grant_decision() == 1 {
                assert!(self.dirty, "seed {seed:#x}: a decision no event called for");
                for g in self.reference.decide() {
                    self.expected.push_back(reference_frame(
                        LOCAL_MAC,
                        LOCAL_IP,
                        CONTROL_PRIORITY,
                        &g,
                    ));
                }
                self.dirty = false;
                self.decisions += 1;
            }
            if m.get_m_trace_grant_fifo() == 1
                && let Some(g) = self.reference.fifo_grant()
            {
                self.expected
                    .push_back(reference_frame(LOCAL_MAC, LOCAL_IP, CONTROL_PRIORITY, &g));
                self.fifo_grants += 1;
            }
            if m.get_m_trace_grant_event() == 1 {
                let (index, ev) = self.pending.pop_front().unwrap_or_else(|| {
                    panic!("seed {seed:#x}: the grant generator took an event the table never sent")
                });
                self.dirty |= self.reference.event(index, &ev);
                self.most_tracked = self.most_tracked.max(self.reference.tracked());
            }
        }
    }

    /// Offers `beat` (or nothing) on the frame input.
    fn offer(m: &mut dyn NicCore, beat: Option<(&[u8], bool)>) {
        let (bytes, last) = beat.unwrap_or((&[], false));
        assert!(
            bytes.len() <= m.beat_bytes(),
            "a beat is at most the port's width"
        );
        m.set_s_axis_data(bytes);
        let keep = if bytes.len() == 64 {
            u64::MAX
        } else {
            (1u64 << bytes.len()) - 1
        };
        m.set_s_axis_tkeep(keep);
        m.set_s_axis_tvalid(u64::from(beat.is_some()));
        m.set_s_axis_tlast(u64::from(last));
    }

    /// A frame that must not reach the grant path: a malformed frame (dropped and counted by
    /// the parser), a valid control packet, or IPv6 DATA (both to the host only). Returns it
    /// with the parser's verdict.
    fn noise(rng: &mut Rng) -> (Vec<u8>, Verdict) {
        loop {
            let f = if rng.chance(50) {
                random_malformed(rng)
            } else {
                let types = [
                    PacketType::Data,
                    PacketType::Grant,
                    PacketType::Resend,
                    PacketType::RpcUnknown,
                    PacketType::Busy,
                    PacketType::Cutoffs,
                    PacketType::NeedAck,
                    PacketType::Ack,
                ];
                let t = types[rng.below(types.len() as u64) as usize];
                let v6 = t == PacketType::Data || rng.chance(30);
                let vlan = rng.chance(20);
                let payload = random_payload(rng);
                frame_of(rng, t, v6, vlan, &payload)
            };
            let e = expect(&f);
            let ipv4_data = e.hdr.is_some_and(|h| h.ptype == 0x10 && h.ip_version == 4);
            if !ipv4_data {
                return (f, e.verdict);
            }
        }
    }

    /// The GRANT a frame carries, as the traffic's senders take it.
    fn grant_of(frame: &[u8]) -> Grant {
        let f = FrameRepr::parse(frame, LinkType::Ethernet, &ChecksumCapabilities::default())
            .expect("a GRANT frame parses");
        let wire::Body::Grant(g) = f.homa.body else {
            panic!("not a GRANT: {f:?}");
        };
        let wire::IpRepr::V4(ip) = f.ip else {
            panic!("not IPv4");
        };
        Grant {
            peer: ip.dst_addr.into(),
            mac: GW_MAC,
            id: f.homa.sender_id ^ 1,
            sport: f.homa.sport,
            dport: f.homa.dport,
            offset: g.offset,
            priority: g.priority,
        }
    }

    /// The core of `beat` bytes a beat.
    fn core(beat: usize) -> Box<dyn NicCore> {
        new_core(beat).expect("a generated width")
    }

    fn run(width: usize, seed: u64, packets: u64, cfg: QueueConfig, live: usize, starts: u64) {
        let mut m = core(width);
        let m = m.as_mut();
        eprintln!(
            "rx core co-sim ({}): seed {seed:#x} (HOMA_HW_SEED to replay), {packets} packets, \
             {cfg:?}",
            m.module()
        );
        configure(m, &cfg);
        let mut traffic = Traffic::with_peers(seed, live, 48).with_start_percent(starts);
        let mut rng = Rng::new(seed ^ 0xC0DE);
        let mut table = TableModel::new(10);
        let mut grants = GrantSide::new(cfg);
        // Packets re-cut as a RESEND would reach three segments (26,700 bytes at 8,900).
        let payload: Vec<u8> = (0..1 << 16).map(|i| i as u8).collect();
        let (mut frame, mut at, mut current): (Vec<u8>, usize, Option<Packet>) =
            (Vec::new(), 0, None);
        let (mut sent, mut checked, mut got, mut quiet) = (0u64, 0u64, Vec::new(), 0u64);
        // Frames expected per parser verdict: ok, runt, checksum, not Homa, type, length.
        let mut verdicts = [0u64; 6];
        let mut noisy: Option<Verdict> = None;
        // A release waits for the pipeline to empty (so that it meets the table after every
        // frame before it, as in the reference), then goes in through the register bus. The
        // wait covers the parser and table stages; then every event the table sent must be
        // in the grant generator (the event queue in between back-pressures the table).
        let release_drain = 16;
        let (mut release_wait, mut releases, mut released) = (0u32, 0u64, 0u64);
        let mut fifo_stopped = false;
        let t = std::time::Instant::now();
        let start = m.cycles();
        loop {
            if sent >= packets
                && current.is_none()
                && noisy.is_none()
                && grants.expected.is_empty()
                && grants.pending.is_empty()
                && quiet > 300
                && m.get_m_trace_grant_busy() == 0
            {
                if !fifo_stopped {
                    // The FIFO grants' timer stops before the counters are read (the reads
                    // tick the core untraced); what it started meanwhile drains first.
                    grants.write(m, seed, "CONFIG", "fifo_grant_interval", 0);
                    fifo_stopped = true;
                    quiet = 0;
                    continue;
                }
                break;
            }
            assert!(
                m.cycles() - start < 600 * packets * (64 / width) as u64 + 20_000,
                "seed {seed:#x}: no progress"
            );
            // (The register writes tick the core: the grant path must be idle, and makes no
            // decision until the doorbell's event reaches it; a FIFO grant may start, and the
            // writes' cycles are traced for it.)
            if release_wait == 1 && grants.pending.is_empty() && m.get_m_trace_grant_busy() == 0 {
                release_wait = 0;
                // The host releases a message it holds whole whose table entry did not complete
                // (a forgotten hole), or else gives a live one up: GRANT.release.
                let stale = (grants.reference.tracked_messages())
                    .find(|&(peer, id, _)| !traffic.is_live(peer, id));
                let gone = stale.or_else(|| traffic.abort().map(|e| (e.peer, e.id, e.length)));
                if let Some((peer, id, length)) = gone {
                    let ev = release_packet(peer, id, length).ev;
                    // Nothing leaves the core meanwhile (the writes tick it).
                    m.set_m_axis_tready(0);
                    offer(m, None);
                    let g = &mut grants;
                    g.write(m, seed, "GRANT", "release_peer", u64::from(ev.peer));
                    g.write(m, seed, "GRANT", "release_id_lo", ev.id & 0xffff_ffff);
                    g.write(m, seed, "GRANT", "release_id_hi", ev.id >> 32);
                    g.write(m, seed, "GRANT", "release_length", u64::from(ev.length));
                    g.write(m, seed, "GRANT", "release", 1);
                    releases += 1;
                    if let Some(ev) = table.release(&release_packet(ev.peer, ev.id, ev.length)) {
                        released += 1;
                        grants.table_event(ev);
                    }
                }
            } else if release_wait == 1 {
                // Waiting for the grant generator to take the table's last events.
            } else if release_wait > 1 {
                release_wait -= 1;
            } else if current.is_none() && noisy.is_none() && sent < packets && rng.chance(2) {
                release_wait = release_drain;
            }
            if current.is_none() && noisy.is_none() && sent < packets && release_wait == 0 {
                if rng.chance(8) {
                    let (f, v) = noise(&mut rng);
                    frame = f;
                    at = 0;
                    noisy = Some(v);
                } else {
                    current = traffic.next_packet();
                    if let Some(p) = current {
                        frame = data_frame(&p, &payload);
                        at = 0;
                    }
                }
            }
            let show = (current.is_some() || noisy.is_some()) && rng.chance(90);
            let beat = show.then(|| {
                let end = (at + width).min(frame.len());
                (&frame[at..end], end == frame.len())
            });
            offer(m, beat);
            let grant_ready = rng.chance(80);
            m.set_m_dma_wr_ready(u64::from(rng.chance(90)));
            m.set_m_dma_rd_ready(1);
            m.set_m_axis_tready(u64::from(grant_ready));
            grants.trace(m, seed);
            if m.get_m_axis_tvalid() == 1 && grant_ready {
                let keep = m.get_m_axis_tkeep();
                let bytes = m.m_axis_data();
                got.extend_from_slice(&bytes[..keep.count_ones() as usize]);
                if m.get_m_axis_tlast() == 1 {
                    let want = grants.expected.pop_front().unwrap_or_else(|| {
                        panic!("seed {seed:#x}: unexpected GRANT frame {got:02x?}")
                    });
                    assert_eq!(got, want, "seed {seed:#x}: GRANT frame {checked}");
                    traffic.grant(&grant_of(&got));
                    got.clear();
                    checked += 1;
                }
                quiet = 0;
            } else {
                quiet += 1;
            }
            if let Some((_, last)) = beat
                && m.get_s_axis_tready() == 1
            {
                at += width;
                quiet = 0;
                if last && let Some(v) = noisy.take() {
                    verdicts[v as usize] += 1;
                } else if last {
                    verdicts[Verdict::Ok as usize] += 1;
                    let p = current.take().expect("a frame in flight");
                    match table.packet(&p) {
                        Outcome::Event(at, ev) => {
                            grants.table_event((at, ev));
                            traffic.deliver(&p, true);
                        }
                        Outcome::Collision => {
                            traffic.deliver(&p, false);
                        }
                        Outcome::DropLate => {}
                    }
                    sent += 1;
                }
            }
            m.tick();
        }
        let cycles = m.cycles() - start;
        let rate = cycles as f64 / t.elapsed().as_secs_f64();
        eprintln!(
            "  {sent} DATA frames, {checked} GRANT frames checked, {} decisions, {} FIFO grants, \
             {} messages ({} tracked at once at most), other frames by verdict (ok, runt, \
             checksum, not Homa, type, length) {:?}, {cycles} cycles: {rate:.0} cycles/s",
            grants.decisions,
            grants.fifo_grants,
            traffic.started,
            grants.most_tracked,
            {
                let mut v = verdicts;
                v[0] -= sent;
                v
            }
        );
        offer(m, None);
        let mut reg = |b: &str, n: &str| read_reg(m, b, n);
        let rx = [
            reg("RX", "frames_ok"),
            reg("RX", "dropped_runt"),
            reg("RX", "dropped_bad_checksum"),
            reg("RX", "dropped_not_homa"),
            reg("RX", "dropped_bad_type"),
            reg("RX", "dropped_bad_length"),
        ];
        assert!(
            verdicts[1..].iter().sum::<u64>() > 0,
            "some malformed frames: {verdicts:?}"
        );
        assert_eq!(
            rx, verdicts,
            "seed {seed:#x}: RX counters (frames_ok, runt, checksum, not Homa, type, length)"
        );
        assert_eq!(
            [
                reg("GRANT", "grants_sent"),
                reg("GRANT", "decisions"),
                reg("GRANT", "messages_tracked"),
                reg("GRANT", "messages_queued"),
                reg("GRANT", "table_full"),
                reg("GRANT", "fifo_grants"),
            ],
            [
                checked,
                grants.decisions,
                grants.reference.tracked() as u64,
                grants.reference.queued() as u64,
                grants.reference.evictions,
                grants.fifo_grants,
            ],
            "seed {seed:#x}: grants_sent, decisions, messages_tracked, messages_queued, \
             table_full (evictions), fifo_grants"
        );
        if cfg.fifo.enabled() {
            assert!(
                grants.fifo_grants > 0,
                "seed {seed:#x}: FIFO grants on, and none made"
            );
        }
        // Past the 16 messages a grant generator in registers could hold.
        assert!(
            grants.most_tracked > 16,
            "seed {seed:#x}: at most {} messages tracked at once: the run tests too little",
            grants.most_tracked
        );
        let (h, l, c) = table.counters;
        assert_eq!(
            [
                reg("GRANT", "holes_forgotten"),
                reg("GRANT", "dropped_late"),
                reg("GRANT", "collisions")
            ],
            [u64::from(h), u64::from(l), u64::from(c)],
            "seed {seed:#x}: table counters"
        );
        assert!(
            checked > packets / 10,
            "too few GRANTs to mean anything: {checked}"
        );
        assert_eq!(
            reg("GRANT", "releases"),
            releases,
            "seed {seed:#x}: releases taken"
        );
        eprintln!("  {releases} releases, {released} of live messages");
        assert!(
            released > 0,
            "seed {seed:#x}: no release met a live message"
        );
    }

    #[test]
    fn nic_core_cosim__grant_frames_match_the_reference() {
        grant_frames(64, 0xc04e_0001);
    }

    #[test]
    fn nic_core_cosim__grant_frames_match_the_reference_w64() {
        grant_frames(8, 0xc04e_0001);
    }

    fn grant_frames(beat: usize, default_seed: u64) {
        let packets = frames_from_env(2_000, 20_000) as u64;
        let seed = seed_from_env(default_seed);
        for (i, (k, window)) in [(8u8, 0u32), (2, 10_000)].into_iter().enumerate() {
            let cfg = QueueConfig {
                grant: GrantConfig {
                    max_overcommit: k,
                    max_sched_prio: 5,
                    max_incoming: 400_000,
                    window,
                },
                max_payload: [1442, 8900][i],
                // FIFO grants in the first run, at the level below the control priority,
                // as often per byte received at either width (the timer counts cycles).
                fifo: FifoConfig {
                    interval: [3_000 * 64 / beat as u32, 0][i],
                    increment: 20_000,
                    priority: NUM_PRIORITIES - 2,
                },
            };
            // The second run's larger packets finish messages sooner: more of them start.
            run(
                beat,
                seed.wrapping_add(i as u64),
                packets,
                cfg,
                [400, 60][i],
                [10, 20][i],
            );
        }
    }

    /// Cycles from the clock edge that takes a DATA frame's last beat to the first cycle its
    /// GRANT's first beat is offered, every output ready.
    #[test]
    fn nic_core_cosim__data_to_grant_latency() {
        data_to_grant(64);
    }

    #[test]
    fn nic_core_cosim__data_to_grant_latency_w64() {
        data_to_grant(8);
    }

    fn data_to_grant(beat: usize) {
        let cfg = QueueConfig {
            grant: GrantConfig {
                max_overcommit: 8,
                max_sched_prio: 5,
                max_incoming: 400_000,
                window: 0,
            },
            max_payload: 1442,
            fifo: FifoConfig::default(),
        };
        let mut m = core(beat);
        let m = m.as_mut();
        configure(m, &cfg);
        // The grant generator clears its 1,024 entries after reset.
        m.ticks(1 << TABLE_BITS);
        assert_eq!(m.get_m_trace_grant_busy(), 0, "the grant path settles");
        m.set_m_dma_wr_ready(1);
        m.set_m_dma_rd_ready(1);
        m.set_m_axis_tready(1);
        let p = Packet {
            ev: Event {
                peer: 0x0a00_0001,
                id: 2,
                sport: 40_000,
                dport: 500,
                mac: 0x02_00_00_00_00_07,
                length: 100_000,
                incoming: 10_000,
                new: 0,
                end: 1400,
            },
            offset: 0,
        };
        let payload = vec![0x5a; 1400];
        let frame = data_frame(&p, &payload);
        let beats: Vec<&[u8]> = frame.chunks(beat).collect();
        for (i, b) in beats.iter().enumerate() {
            offer(m, Some((b, i + 1 == beats.len())));
            assert_eq!(m.get_s_axis_tready(), 1);
            m.tick();
        }
        offer(m, None);
        let mut latency = 0;
        while m.get_m_axis_tvalid() == 0 {
            m.tick();
            latency += 1;
            assert!(latency < 200, "no GRANT");
        }
        // The last beat was taken at the edge before `latency` more edges.
        eprintln!(
            "{}: DATA ({} bytes, {} beats) last beat taken -> GRANT first beat offered: {} cycles",
            m.module(),
            frame.len(),
            beats.len(),
            latency + 1
        );
        let bytes = m.m_axis_data();
        let mut reference = QueueReference::new(cfg, 1 << TABLE_BITS);
        let ev = Event {
            new: 1400,
            mac: GW_MAC,
            ..p.ev
        };
        // An empty table puts a message in its first place.
        assert!(reference.event(places(ev.peer, ev.id, TABLE_BITS)[0] as u32, &ev));
        let g = reference.decide();
        assert_eq!(g.len(), 1, "one GRANT: {g:?}");
        let want = reference_frame(LOCAL_MAC, LOCAL_IP, CONTROL_PRIORITY, &g[0]);
        assert_eq!(&bytes[..beat], &want[..beat], "the GRANT's first beat");
    }
}
