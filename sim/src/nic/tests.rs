//! Tests of the simulated NIC (they need the Verilated core).
#![allow(non_snake_case)]
#![cfg(homa_rtl)]

use super::hosted::{HostedNic, Out};
use super::*;
use homa_driver::{Device, NicConfig, Probe};
use homa_proto::hostif::{RxBufDescriptor, Status};
use homa_proto::wire::{self, Body, ChecksumCapabilities, FrameRepr, LinkType};
use std::net::Ipv4Addr;

#[test]
fn sim_device__the_driver_probes_the_rtl_register_file() {
    let dev = SimDevice::new();
    let probe = Probe::run(&dev).unwrap();
    let names: Vec<&str> = probe
        .blocks
        .iter()
        .filter_map(|b| b.def.map(|d| d.name))
        .collect();
    for b in ["ID", "CONFIG", "RX", "GRANT"] {
        assert!(names.contains(&b), "{b} in {names:?}");
    }
    let e = dev.read32(dev.bar_len()).unwrap_err().to_string();
    assert!(e.contains("simulated homa-nic"), "{e}");
    assert!(dev.write32(2, 0).is_err(), "unaligned");
}

/// A frame from 10.0.0.2 (behind the router 02:00:00:ff:ff:ff) to this NIC, 10.0.0.1.
pub(super) fn frame_to_nic(homa: wire::Repr<'_>) -> Vec<u8> {
    FrameRepr {
        ethernet: Some(wire::EthernetRepr {
            src_addr: wire::EthernetAddress([2, 0, 0, 0xff, 0xff, 0xff]),
            dst_addr: wire::EthernetAddress([2, 0, 0, 0, 0, 1]),
            vlan: None,
            ethertype: wire::EtherType::IPV4,
        }),
        ip: wire::IpRepr::V4(wire::Ipv4Repr {
            src_addr: Ipv4Addr::new(10, 0, 0, 2),
            dst_addr: Ipv4Addr::new(10, 0, 0, 1),
            tos: 0,
            ident: 0,
            dont_frag: true,
            ttl: 64,
            protocol: wire::PROTOCOL_HOMA,
            payload_len: 0,
        }),
        homa,
    }
    .to_bytes(&ChecksumCapabilities::default())
}

/// A DATA frame of RPC 8 to this NIC.
pub(super) fn frame(payload: &[u8], offset: u32, length: u32) -> Vec<u8> {
    frame_to_nic(wire::Repr {
        sport: 40_000,
        dport: 1_000,
        sender_id: 8,
        body: Body::Data(wire::Data {
            message_length: length,
            incoming: 10_000,
            ack: None,
            cutoff_version: 1,
            retransmit: false,
            offset,
            payload,
        }),
    })
}

/// The NIC of host 10.0.0.1, behind the router 02:00:00:ff:ff:ff that `frame` comes from.
pub(super) fn config() -> NicConfig {
    NicConfig {
        mac: [2, 0, 0, 0, 0, 1],
        gateway_mac: [2, 0, 0, 0xff, 0xff, 0xff],
        ipv4: Ipv4Addr::new(10, 0, 0, 1),
        ..NicConfig::default()
    }
}

#[test]
fn rtl_nic__data_to_the_host_and_a_grant_to_the_wire() {
    let config = NicConfig {
        window: 10_000,
        ..config()
    };
    let mut nic = HostedNic::new(&config, NicTiming::default()).unwrap();
    let payload: Vec<u8> = (0..1_400u32).map(|i| (i * 7) as u8).collect();
    nic.receive(4_000_000, frame(&payload, 0, 100_000));
    let mut out = Vec::new();
    nic.run_until(10_000_000, &mut out);
    assert!(nic.next_edge().is_none(), "idle again");
    let mut host = Vec::new();
    let mut grants = Vec::new();
    for (t, o) in out {
        assert!(t > 4_000_000, "after the frame arrived: {t}");
        match o {
            Out::Host { src, packet } => host.push((src, packet)),
            Out::Grant { frame } => grants.push(frame),
            Out::Data { .. } => panic!("no DATA frames without TX descriptors"),
        }
    }
    // The payload came by DMA into a buffer the driver posted, with its completion; the
    // GRANT's report followed it.
    assert_eq!(nic.read_register("RX", "rx_data").unwrap(), 1);
    assert_eq!(nic.read_register("RX", "dropped_no_buffer").unwrap(), 0);
    assert_eq!(nic.read_register("QUEUE", "cq_producer").unwrap(), 2);
    let c = nic.counters();
    assert_eq!(
        (c.rx_completions, c.nic_grants, c.rx_lost, c.dma_faults),
        (2, 1, 0, 0),
        "{c:?}"
    );
    assert_eq!(c.parse_mismatches, 0, "the report names the GRANT frame");
    assert_eq!(host.len(), 1);
    assert_eq!(host[0].0, Ipv4Addr::new(10, 0, 0, 2));
    assert_eq!(
        &host[0].1.payload[..],
        &payload[..],
        "the hardware's payload"
    );
    assert_eq!(grants.len(), 1, "one GRANT for the one message");
    let g = FrameRepr::parse(
        &grants[0],
        LinkType::Ethernet,
        &ChecksumCapabilities::default(),
    )
    .unwrap();
    assert_eq!(g.ip.dst_addr(), Ipv4Addr::new(10, 0, 0, 2));
    assert_eq!(g.homa.sender_id, 9, "the receiver's id");
    let Body::Grant(grant) = g.homa.body else {
        panic!("{g:?}")
    };
    assert_eq!(grant.offset, 1_400 + 10_000, "received + window");
    assert_eq!(nic.counters().parse_mismatches, 0);
    // The host releases the message: GRANT.releases counts it.
    nic.release(20_000_000, Ipv4Addr::new(10, 0, 0, 2), 8, 100_000)
        .unwrap();
    nic.run_until(30_000_000, &mut Vec::new());
    assert_eq!(nic.read_register("GRANT", "releases").unwrap(), 1);
    assert_eq!(nic.read_register("GRANT", "messages_tracked").unwrap(), 0);
}

#[test]
fn rtl_nic__a_message_whose_two_places_are_taken_is_left_to_the_host() {
    let mut nic = HostedNic::new(&config(), NicTiming::default()).unwrap();
    // Three messages from one peer: the second's first place is the first's (it takes its
    // second place), and the third's two places are theirs.
    let peer = u32::from(Ipv4Addr::new(10, 0, 0, 2));
    let places = |id: u64| homa_hw::msg_table::places(peer, id, 10);
    let first = places(8);
    let second = (10..)
        .step_by(2)
        .find(|&id| places(id)[0] == first[0])
        .unwrap();
    let third = (second + 2..)
        .step_by(2)
        .find(|&id| places(id) == [first[0], places(second)[1]])
        .unwrap();
    let payload = [5u8; 1_000];
    let data = |id: u64| {
        frame_to_nic(wire::Repr {
            sport: 40_000,
            dport: 1_000,
            sender_id: id,
            body: Body::Data(wire::Data {
                message_length: 100_000,
                incoming: 10_000,
                ack: None,
                cutoff_version: 1,
                retransmit: false,
                offset: 0,
                payload: &payload,
            }),
        })
    };
    nic.receive(4_000_000, data(8));
    nic.receive(4_500_000, data(second));
    nic.receive(5_000_000, data(third));
    let mut out = Vec::new();
    nic.run_until(20_000_000, &mut out);
    let grants = out
        .iter()
        .filter(|(_, o)| matches!(o, Out::Grant { .. }))
        .count();
    assert_eq!(nic.read_register("GRANT", "collisions").unwrap(), 1);
    let c = nic.counters();
    assert_eq!((c.to_host, c.host_grants, grants), (3, 1, 2), "{c:?}");
    // The GRANTs the NIC sent come back to the host, and name the frames.
    assert_eq!(c.nic_grants, 2, "{c:?}");
    assert_eq!(c.parse_mismatches, 0);
}

#[test]
fn rtl_nic__descriptors_outside_dma_memory_or_wrapping_come_back_in_errors() {
    let mut nic = HostedNic::new(&config(), NicTiming::default()).unwrap();
    // The RX window the driver set: its buffer pool.
    let mut reg64 = |name: &str| {
        let lo = nic.read_register("QUEUE", &format!("{name}_lo")).unwrap();
        let hi = nic.read_register("QUEUE", &format!("{name}_hi")).unwrap();
        u64::from(hi) << 32 | u64::from(lo)
    };
    let (base, len) = (reg64("rx_window_base"), reg64("rx_window_len"));
    assert_eq!(len, 256 * 4096);
    // Behind the driver's 256 buffers: one far outside the DMA memory, one across each end
    // of the pool, one that wraps the address space (the driver refuses an empty one).
    let rogue = [
        (0xdead_0000_0000, 4096, 9001, Status::OutOfBounds),
        (base + len - 100, 4096, 9002, Status::OutOfBounds),
        (base - 64, 4096, 9003, Status::OutOfBounds),
        (u64::MAX - 100, 4096, 9004, Status::BadDescriptor),
    ];
    for (iova, length, buffer_id, _) in rogue {
        nic.post_rx_descriptor(
            0,
            &RxBufDescriptor {
                iova,
                length,
                buffer_id,
            },
        )
        .unwrap();
    }
    // Enough DATA packets to use every buffer ahead of them, and more.
    let n = 300u32;
    let payloads: Vec<Vec<u8>> = (0..n)
        .map(|i| (0..100u32).map(|b| (b * 3 + i) as u8).collect())
        .collect();
    for (i, p) in payloads.iter().enumerate() {
        nic.receive(
            1_000_000 + 200_000 * i as u64,
            frame(p, 100 * i as u32, 100 * n),
        );
    }
    let mut out = Vec::new();
    nic.run_until(200_000_000, &mut out);
    let got: Vec<Vec<u8>> = out
        .into_iter()
        .filter_map(|(_, o)| match o {
            Out::Host { packet, .. } => Some(packet.payload.to_vec()),
            Out::Grant { .. } | Out::Data { .. } => None,
        })
        .collect();
    assert_eq!(got, payloads, "every payload, in a posted buffer, in order");
    let want: Vec<(u32, Status)> = rogue.iter().map(|r| (r.2, r.3)).collect();
    assert_eq!(nic.refusals(), &want[..]);
    let c = nic.counters();
    assert_eq!(
        (c.dma_faults, c.rx_lost, c.parse_mismatches),
        (0, 0, 0),
        "{c:?}"
    );
    assert_eq!(c.rx_errors, 4, "{c:?}");
    assert_eq!(nic.read_register("QUEUE", "rx_bad_descriptors").unwrap(), 4);
}

#[test]
fn rtl_nic__a_burst_beyond_the_mac_fifo_is_dropped_not_buffered() {
    let mut nic = HostedNic::new(&config(), NicTiming::default()).unwrap();
    // 200 full frames at the same instant: 300 KB, more than the MAC's 128 KiB FIFO.
    let payload = vec![0x5a; 1_400];
    let n = 200u32;
    for i in 0..n {
        nic.receive(1_000_000, frame(&payload, 1_400 * i, 1_400 * n));
    }
    let c = nic.counters();
    let kept = u64::from(n) - c.mac_drops;
    assert!(c.mac_drops > 0 && kept >= 85, "{c:?}");
    let mut out = Vec::new();
    nic.run_until(100_000_000, &mut out);
    let delivered = out
        .iter()
        .filter(|(_, o)| matches!(o, Out::Host { .. }))
        .count() as u64;
    assert_eq!(
        delivered, kept,
        "every frame the FIFO kept reaches the host"
    );
    // Once drained, the FIFO takes frames again.
    nic.receive(200_000_000, frame(&payload, 0, 1_400 * n));
    assert_eq!(nic.counters().mac_drops, c.mac_drops);
}

/// A frame of any Homa packet from 10.0.0.2 to the NIC's host.
fn packet_frame(homa: wire::Repr<'_>) -> Vec<u8> {
    let data = frame(&[], 0, 1);
    let mut f =
        FrameRepr::parse(&data, LinkType::Ethernet, &ChecksumCapabilities::default()).unwrap();
    f.homa = homa;
    f.to_bytes(&ChecksumCapabilities::default())
}

#[test]
fn rtl_nic__every_packet_reaches_the_host_through_its_completions_alone() {
    use homa_proto::wire::{AckEntry, Acks, Cutoffs, Data, Grant, Resend};
    let mut nic = HostedNic::new(&config(), NicTiming::default()).unwrap();
    let acks: Vec<AckEntry> = (1..=5)
        .map(|i| AckEntry {
            client_id: 100 * i,
            server_port: 7000 + i as u16,
        })
        .collect();
    let payload = vec![0xa7; 300];
    let bodies = [
        Body::Data(Data {
            message_length: 5_000,
            incoming: 4_321,
            ack: Some(acks[0]),
            cutoff_version: 3,
            retransmit: true,
            offset: 1_000,
            payload: &payload,
        }),
        Body::Grant(Grant {
            offset: 77_000,
            priority: 6,
        }),
        Body::Resend(Resend {
            offset: 1_200,
            length: 3_400,
            priority: 2,
        }),
        Body::RpcUnknown,
        Body::Busy,
        Body::Cutoffs(Cutoffs {
            unsched_cutoffs: [u32::MAX, 9_000, 5_000, 3_000, 2_000, 1_000, 500, 100],
            cutoff_version: 4,
        }),
        Body::Freeze,
        Body::NeedAck,
        Body::Ack(Acks::new(&acks[..2]).unwrap()),
        Body::Ack(Acks::new(&acks).unwrap()),
    ];
    let sent: Vec<wire::Repr<'_>> = bodies
        .iter()
        .enumerate()
        .map(|(i, &body)| wire::Repr {
            sport: 40_000,
            dport: 1_000 + i as u16,
            sender_id: 2 * i as u64 + 8,
            body,
        })
        .collect();
    for (i, h) in sent.iter().enumerate() {
        nic.receive(1_000_000 + 100_000 * i as u64, packet_frame(*h));
    }
    let mut out = Vec::new();
    nic.run_until(50_000_000, &mut out);
    let got: Vec<_> = out
        .into_iter()
        .filter_map(|(_, o)| match o {
            Out::Host { src, packet } => Some((src, packet)),
            Out::Grant { .. } | Out::Data { .. } => None,
        })
        .collect();
    assert_eq!(got.len(), sent.len(), "{got:?}");
    for ((src, p), h) in got.iter().zip(&sent) {
        assert_eq!(*src, Ipv4Addr::new(10, 0, 0, 2));
        let want = match h.body {
            Body::Data(d) => {
                assert_eq!(&p.payload[..], &payload[..]);
                wire::Repr {
                    body: Body::Data(Data { payload: &[], ..d }),
                    ..*h
                }
            }
            // The completion carries an ACK's first two entries.
            Body::Ack(a) => wire::Repr {
                body: Body::Ack(Acks::new(&a.as_slice()[..a.as_slice().len().min(2)]).unwrap()),
                ..*h
            },
            _ => *h,
        };
        assert_eq!(p.header, want);
    }
    let c = nic.counters();
    assert_eq!(
        (c.parse_mismatches, c.rx_lost, c.acks_not_carried),
        (0, 0, 3),
        "{c:?}"
    );
    // One RX_DATA, the rest CONTROL, and a GRANT_SENT for each GRANT, all in the ring.
    assert_eq!(nic.read_register("RX", "rx_data").unwrap(), 1);
    assert_eq!(
        u64::from(nic.read_register("QUEUE", "cq_producer").unwrap()),
        sent.len() as u64 + c.nic_grants
    );
}

/// A seeded campaign of bad input to the whole NIC with its driver's rings on: random and
/// cut frames, valid frames with bytes flipped, one-packet DATA messages of every size, then
/// the same again while the host misuses its RX ring (buffers that overlap others and
/// buffers posted twice, a producer index written past the ring). The NIC must go idle,
/// never write outside its buffer pool and its completion ring, account for every frame in
/// its parser's counters, and (before the misuse) hand every valid payload to the host, as
/// `proto::wire` parses it. `HOMA_HW_SEED` replays a seed; `HOMA_HW_FRAMES` sets the
/// frames per phase.
#[test]
fn rtl_nic__garbage_and_ring_misuse_never_hang_the_nic_or_write_outside_its_buffers() {
    use homa_hw::bench::{Rng, frames_from_env, random_malformed, seed_from_env};
    let seed = seed_from_env(0xbad_f00d);
    let n = frames_from_env(1_500, 20_000);
    eprintln!("seed {seed:#x} (HOMA_HW_SEED to replay), {n} frames per phase");
    let mut rng = Rng::new(seed);
    let mut nic = HostedNic::new(&config(), NicTiming::default()).unwrap();
    nic.set_dma_log(true);
    let reg64 = |nic: &mut HostedNic, name: &str| {
        let lo = nic.read_register("QUEUE", &format!("{name}_lo")).unwrap();
        let hi = nic.read_register("QUEUE", &format!("{name}_hi")).unwrap();
        u64::from(hi) << 32 | u64::from(lo)
    };
    let pool = (
        reg64(&mut nic, "rx_window_base"),
        reg64(&mut nic, "rx_window_len"),
    );
    let cq = nic.cq_range();
    let rx_ring = reg64(&mut nic, "rx_base");
    let one_packet = |rng: &mut Rng| {
        let len = 1 + rng.below(1_400) as usize;
        let payload: Vec<u8> = (0..len).map(|_| rng.byte()).collect();
        let id = 2 * (1 + rng.below(1 << 20));
        let f = frame_to_nic(wire::Repr {
            sport: 40_000,
            dport: 1_000,
            sender_id: id,
            body: Body::Data(wire::Data {
                message_length: len as u32,
                incoming: len as u32,
                ack: None,
                cutoff_version: 1,
                retransmit: false,
                offset: 0,
                payload: &payload,
            }),
        });
        (f, payload)
    };
    let mut at = 1_000_000;
    let mut fed = 0u64;
    // Returns the valid payloads fed and the DATA payloads the host got, in order.
    type Fed = (Vec<Vec<u8>>, Vec<Vec<u8>>);
    let mut phase = |nic: &mut HostedNic, rng: &mut Rng, misuse: bool| -> Fed {
        let mut valid = Vec::new();
        let mut out = Vec::new();
        for i in 0..n {
            // 0-400 ns apart: the MAC's FIFO never fills (a full one drops, counted apart).
            at += rng.below(400_000);
            let f = match rng.below(10) {
                0..=2 => random_malformed(rng),
                3 => {
                    let (mut f, _) = one_packet(rng);
                    f.truncate(rng.below(f.len() as u64) as usize);
                    f
                }
                4 => {
                    let (mut f, _) = one_packet(rng);
                    for _ in 0..1 + rng.below(4) {
                        let k = rng.below(f.len() as u64) as usize;
                        f[k] ^= 1 << rng.below(8);
                    }
                    f
                }
                _ => {
                    let (f, payload) = one_packet(rng);
                    valid.push(payload);
                    f
                }
            };
            nic.run_until(at, &mut out);
            nic.receive(at, f);
            fed += 1;
            if misuse && i % 300 == 150 {
                // Behind the driver's back, in the ring's memory: buffers over other buffers
                // under the ids of buffers already posted; then the producer index written a
                // ring and a half past the NIC's consumer.
                let size = 1u32 << super::stack::RINGS.rx_log2;
                let producer = nic.read_register("QUEUE", "rx_producer").unwrap();
                for k in 0..4u32 {
                    let start = pool.0 + 64 * rng.below(pool.1 / 64 - 64);
                    let len = 64 * (1 + rng.below(64)) as u32;
                    let d = RxBufDescriptor {
                        iova: start,
                        length: len.min((pool.0 + pool.1 - start) as u32),
                        buffer_id: k,
                    };
                    let mut raw = [0u8; homa_proto::hostif::RX_BUF_DESC_LEN];
                    d.encode(&mut raw);
                    let slot = u64::from(producer.wrapping_add(k) % size);
                    nic.memory()
                        .dma_write(rx_ring + slot * raw.len() as u64, &raw)
                        .unwrap();
                }
                let consumer = nic.read_register("QUEUE", "rx_consumer").unwrap();
                nic.poke(
                    at,
                    "QUEUE",
                    "rx_producer",
                    consumer.wrapping_add(size * 3 / 2),
                )
                .unwrap();
            }
        }
        nic.run_until(at + 50_000_000_000, &mut out);
        assert!(nic.next_edge().is_none(), "the NIC went idle");
        let got = out
            .into_iter()
            .filter_map(|(_, o)| match o {
                Out::Host { packet, .. } if !packet.payload.is_empty() => {
                    Some(packet.payload.to_vec())
                }
                _ => None,
            })
            .collect();
        (valid, got)
    };
    let (valid, got) = phase(&mut nic, &mut rng, false);
    let c = nic.counters();
    // Every frame `proto::wire` accepts reached the host as it parses it (the bench checks
    // each completion against the frame), none lost; the valid DATA among them in order.
    assert_eq!(
        (c.dma_faults, c.parse_mismatches, c.mac_drops, c.rx_lost),
        (0, 0, 0, 0),
        "{c:?}"
    );
    let mut rest = got.iter();
    for (i, v) in valid.iter().enumerate() {
        assert!(
            rest.any(|g| g == v),
            "valid payload {i} of {} never came",
            valid.len()
        );
    }
    let _ = phase(&mut nic, &mut rng, true);
    // The host misled itself (a buffer id it reads back is not where the rogue descriptor
    // put the payload, and payloads found no buffer while the ring was garbage): that shows
    // in what it rebuilt and lost, not in where the NIC wrote. While it works through a
    // ring of garbage the NIC may stop taking frames, and the MAC drops them (counted).
    let c = nic.counters();
    assert_eq!(c.dma_faults, 0, "{c:?}");
    assert_eq!(c.frames_in, fed, "{c:?}");
    // Every frame the MAC passed on is in one of the parser's verdict counters
    // (`dropped_bad_payload` counts the payloads of some of the dropped ones again).
    let rx: u32 = [
        "frames_ok",
        "dropped_runt",
        "dropped_bad_checksum",
        "dropped_not_homa",
        "dropped_bad_type",
        "dropped_bad_length",
    ]
    .iter()
    .map(|r| nic.read_register("RX", r).unwrap())
    .sum();
    assert_eq!(u64::from(rx), fed - c.mac_drops, "{c:?}");
    // Every byte the NIC wrote is in the pool (where every buffer posted lies) or the
    // completion ring.
    let inside =
        |(a, l): (u64, usize), (base, len): (u64, u64)| a >= base && a + l as u64 <= base + len;
    for w in nic.take_dma_log() {
        assert!(inside(w, pool) || inside(w, cq), "a DMA write at {w:?}");
    }
}
