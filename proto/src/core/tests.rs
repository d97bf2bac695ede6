//! Engine tests over a small in-memory network: hosts joined by links with latency and a
//! serialization rate, with seeded loss, duplication and reordering.
#![allow(non_snake_case)]

use super::*;
use crate::hostif::TxOp;
use crate::wire::{Body, PacketType, Repr};
use proptest::prelude::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A deterministic xorshift generator for the harness.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn chance(&mut self, p: f64) -> bool {
        (self.next() % 1_000_000) as f64 / 1_000_000.0 < p
    }
}

#[derive(Default, Clone, Copy)]
struct Impair {
    loss: f64,
    dup: f64,
    reorder: f64,
}

struct Net {
    hosts: Vec<Endpoint>,
    now: Instant,
    /// (arrival ns, seq) -> (dst index, src addr, packet)
    queue: BinaryHeap<Reverse<(u64, u64)>>,
    packets: HashMap<u64, (usize, IpAddr, Packet)>,
    seq: u64,
    nic_free: Vec<u64>,
    latency_ns: u64,
    impair: Impair,
    rng: Rng,
    /// Hosts whose packets vanish (dead hosts).
    dead: HashSet<usize>,
    responses: HashMap<(usize, u64), Vec<u8>>,
    failures: HashMap<(usize, u64), RpcError>,
    trace: Vec<String>,
    max_outstanding_grants: u64,
}

fn addr(i: usize) -> IpAddr {
    IpAddr::from([10, 0, 0, i as u8 + 1])
}

fn pattern(len: usize, seed: u8) -> Bytes {
    Bytes::from(
        (0..len)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
            .collect::<Vec<_>>(),
    )
}

impl Net {
    fn new(n: usize, config: Config, impair: Impair, seed: u64) -> Self {
        let hosts = (0..n)
            .map(|i| {
                let mut e = Endpoint::new(config.clone(), addr(i)).unwrap();
                e.bind(500);
                e
            })
            .collect();
        Net {
            hosts,
            now: Instant::ZERO,
            queue: BinaryHeap::new(),
            packets: HashMap::default(),
            seq: 0,
            nic_free: vec![0; n],
            latency_ns: 1_000,
            impair,
            rng: Rng(seed | 1),
            dead: HashSet::default(),
            responses: HashMap::default(),
            failures: HashMap::default(),
            trace: Vec::new(),
            max_outstanding_grants: 0,
        }
    }

    fn index(&self, a: IpAddr) -> usize {
        match a {
            IpAddr::V4(v4) => usize::from(v4.octets()[3]) - 1,
            IpAddr::V6(_) => unreachable!(),
        }
    }

    fn call(&mut self, from: usize, to: usize, msg: Bytes) -> u64 {
        let now = self.now;
        self.hosts[from]
            .send_request(now, 40000, SocketAddr::new(addr(to), 500), msg)
            .unwrap()
    }

    /// Drains every host's events and packets at the current time.
    fn drain(&mut self) {
        for i in 0..self.hosts.len() {
            while let Some(ev) = self.hosts[i].poll_event() {
                match ev {
                    Event::Request(r) => {
                        // Echo servers answer with the request reversed.
                        let mut v = r.message.to_vec();
                        v.reverse();
                        let now = self.now;
                        self.hosts[i]
                            .send_response(now, r.peer.ip(), r.id, Bytes::from(v))
                            .unwrap();
                    }
                    Event::Response { id, message } => {
                        self.responses.insert((i, id), message.to_vec());
                    }
                    Event::Failed { id, error } => {
                        self.failures.insert((i, id), error);
                    }
                }
            }
            while let Some(t) = self.hosts[i].poll_transmit(self.now) {
                self.trace
                    .push(format!("{} > {} {}", i, self.index(t.dst), t.packet.repr()));
                if self.dead.contains(&i) || self.rng.chance(self.impair.loss) {
                    continue;
                }
                // A 10 Gb/s NIC per host: 0.8 ns per byte.
                let bytes = t.packet.len() as u64 + 58;
                let start = self.nic_free[i].max(self.now.as_nanos());
                self.nic_free[i] = start + bytes * 8 / 10;
                let mut at = self.nic_free[i] + self.latency_ns;
                if self.rng.chance(self.impair.reorder) {
                    at += 5_000;
                }
                let dst = self.index(t.dst);
                let copies = if self.rng.chance(self.impair.dup) {
                    2
                } else {
                    1
                };
                for _ in 0..copies {
                    self.seq += 1;
                    self.queue.push(Reverse((at, self.seq)));
                    self.packets
                        .insert(self.seq, (dst, addr(i), t.packet.clone()));
                }
            }
            let outstanding: u64 = self.hosts[i]
                .rpcs
                .values()
                .filter_map(|r| r.msgin.as_ref())
                .map(|m| u64::from(m.granted.saturating_sub(m.received)))
                .sum();
            self.max_outstanding_grants = self.max_outstanding_grants.max(outstanding);
        }
    }

    /// Runs until nothing is pending or `limit_ns` of simulated time passed.
    fn run(&mut self, limit_ns: u64) {
        loop {
            self.drain();
            let next_packet = self.queue.peek().map(|Reverse((t, _))| *t);
            let next_timer = self.hosts.iter().filter_map(|h| h.poll_timeout()).min();
            let next = match (next_packet, next_timer) {
                (Some(p), Some(t)) => p.min(t.as_nanos()),
                (Some(p), None) => p,
                (None, Some(t)) => t.as_nanos(),
                (None, None) => return,
            };
            if next > limit_ns {
                return;
            }
            self.now = Instant::from_nanos(next.max(self.now.as_nanos()));
            while let Some(Reverse((t, seq))) = self.queue.peek().copied() {
                if t > self.now.as_nanos() {
                    break;
                }
                self.queue.pop();
                let (dst, src, p) = self.packets.remove(&seq).unwrap();
                if !self.dead.contains(&dst) {
                    self.hosts[dst].handle_packet(self.now, src, p);
                }
            }
            for h in &mut self.hosts {
                if h.poll_timeout().is_some_and(|t| t <= self.now) {
                    h.handle_timeout(self.now);
                }
            }
        }
    }
}

fn config() -> Config {
    Config {
        link_mbps: 10_000,
        unsched_bytes: 10_000,
        ..Config::default()
    }
}

fn reversed(b: &Bytes) -> Vec<u8> {
    let mut v = b.to_vec();
    v.reverse();
    v
}

#[test]
fn endpoint__basics_one_small_rpc_trace() {
    let mut net = Net::new(2, config(), Impair::default(), 1);
    let id = net.call(0, 1, pattern(100, 0));
    net.run(1_000_000_000);
    assert_eq!(net.responses[&(0, id)], reversed(&pattern(100, 0)));
    assert_eq!(
        net.trace,
        [
            "0 > 1 DATA id=2 offset=0 length=100 message_length=100 incoming=100 cutoff_version=0",
            "1 > 0 CUTOFFS id=3 cutoffs=[1000000, 1000000, 1000000, 1000000, 1000000, 15000, 2800, 200] version=1",
            "1 > 0 DATA id=3 offset=0 length=100 message_length=100 incoming=100 cutoff_version=0",
            "0 > 1 CUTOFFS id=2 cutoffs=[1000000, 1000000, 1000000, 1000000, 1000000, 15000, 2800, 200] version=1",
            // The server asks for an ack two ticks after its response; the client has it.
            "1 > 0 NEED_ACK id=3",
            "0 > 1 ACK id=2 acks=[2@500]",
        ]
    );
    assert_eq!(
        net.hosts[1].rpc_count(),
        0,
        "the server forgot the RPC after the ACK"
    );
    assert_eq!(net.hosts[0].rpc_count(), 0);
}

#[test]
fn endpoint__payload_exact_from_1_byte_to_1_mb() {
    let sizes = [
        1, 1423, 1424, 1425, 9_999, 10_000, 10_001, 65_536, 250_000, 1_000_000,
    ];
    let mut net = Net::new(2, config(), Impair::default(), 2);
    let ids: Vec<_> = sizes
        .iter()
        .enumerate()
        .map(|(i, &n)| (net.call(0, 1, pattern(n, i as u8)), i, n))
        .collect();
    net.run(10_000_000_000);
    for (id, i, n) in ids {
        assert_eq!(
            net.responses.get(&(0, id)),
            Some(&reversed(&pattern(n, i as u8))),
            "size {n}"
        );
    }
    assert!(net.failures.is_empty());
}

#[test]
fn endpoint__many_hosts_concurrent_rpcs() {
    let mut net = Net::new(6, config(), Impair::default(), 3);
    let mut want = Vec::new();
    for k in 0..60usize {
        let (from, to) = (k % 6, (k * 7 + 1) % 6);
        let to = if to == from { (to + 1) % 6 } else { to };
        let n = 1 + (k * 7919) % 120_000;
        want.push((
            from,
            net.call(from, to, pattern(n, k as u8)),
            pattern(n, k as u8),
        ));
    }
    net.run(10_000_000_000);
    for (from, id, msg) in want {
        assert_eq!(net.responses.get(&(from, id)), Some(&reversed(&msg)));
    }
}

#[test]
fn endpoint__every_rpc_completes_under_loss() {
    for (loss, seed) in [(0.01, 11), (0.05, 12)] {
        let impair = Impair {
            loss,
            ..Impair::default()
        };
        let mut net = Net::new(4, config(), impair, seed);
        let mut want = Vec::new();
        for k in 0..40usize {
            let n = 1 + (k * 104_729) % 200_000;
            let (from, to) = (k % 4, (k + 1 + k / 4) % 4);
            let to = if to == from { (to + 1) % 4 } else { to };
            want.push((
                from,
                net.call(from, to, pattern(n, k as u8)),
                pattern(n, k as u8),
            ));
        }
        net.run(60_000_000_000);
        assert!(net.failures.is_empty(), "loss {loss}: {:?}", net.failures);
        for (from, id, msg) in want {
            assert_eq!(
                net.responses.get(&(from, id)),
                Some(&reversed(&msg)),
                "loss {loss}"
            );
        }
        let resends: u64 = net
            .hosts
            .iter()
            .map(|h| h.metrics().sent_of(PacketType::Resend))
            .sum();
        assert!(resends > 0, "loss {loss} must have needed RESENDs");
    }
}

#[test]
fn endpoint__duplicates_and_reordering_are_harmless() {
    let impair = Impair {
        dup: 0.05,
        reorder: 0.1,
        ..Impair::default()
    };
    let mut net = Net::new(3, config(), impair, 21);
    let a = net.call(0, 1, pattern(300_000, 1));
    let b = net.call(2, 1, pattern(5_000, 2));
    net.run(10_000_000_000);
    assert_eq!(net.responses[&(0, a)], reversed(&pattern(300_000, 1)));
    assert_eq!(net.responses[&(2, b)], reversed(&pattern(5_000, 2)));
    assert!(net.hosts[1].metrics().duplicate_bytes > 0);
}

#[test]
fn endpoint__a_late_copy_of_a_served_request_is_not_delivered_again() {
    // A one-packet request delivered and discarded (a one-way message), then a copy of its
    // packet the network duplicated or held back: the copy is a duplicate, not a new request.
    let mut rx = Endpoint::new(config(), addr(0)).unwrap();
    rx.bind(500);
    let tick = core::time::Duration::from_micros(u64::from(config().tick_usecs));
    let mut now = Instant::ZERO;
    let packet = || first_data(2, 1_000, 7);
    rx.handle_packet(now, addr(1), packet());
    let Some(Event::Request(req)) = rx.poll_event() else {
        panic!("the request is delivered")
    };
    assert!(rx.discard_request(addr(1), req.id));
    assert_eq!(rx.rpc_count(), 0);
    rx.handle_packet(now, addr(1), packet());
    assert_eq!(rx.poll_event(), None, "a late copy is not a second request");
    assert_eq!(rx.rpc_count(), 0);
    assert_eq!(rx.metrics().duplicate_bytes, 1_000);
    // The client is still waiting (the server dropped the request unanswered): its RESEND
    // gets RPC_UNKNOWN, and the request it sends again is a new one, delivered again.
    rx.handle_packet(now, addr(1), resend_everything(2));
    let t = rx.poll_transmit(now).expect("an answer");
    assert_eq!(t.packet.repr().to_string(), "RPC_UNKNOWN id=3");
    rx.handle_packet(now, addr(1), packet());
    let Some(Event::Request(req)) = rx.poll_event() else {
        panic!("the request sent again is delivered")
    };
    assert!(rx.discard_request(addr(1), req.id));
    // Long after a RESEND timeout the id is forgotten (the timer runs while any is
    // remembered): the same id is a new request, as it is for any server that no longer
    // has the RPC.
    for _ in 0..=2 * config().resend_ticks {
        now = now + tick;
        rx.handle_timeout(now);
    }
    assert_eq!(rx.poll_timeout(), None, "nothing left to time");
    rx.handle_packet(now, addr(1), packet());
    assert!(matches!(rx.poll_event(), Some(Event::Request(_))));
    assert_eq!(rx.metrics().requests_delivered, 3);
}

/// A 400 kB request, 200 kB of it granted, arriving a packet per tick at a receiver with
/// `max_incoming`, except the packet at 1,000, which was lost. The RESENDs the receiver
/// sends (with the tick of each) while the message keeps coming, and its hole repairs.
fn holes_asked_for(max_incoming: u32) -> (Vec<(u32, String)>, u64) {
    let cfg = Config {
        max_incoming,
        ..config()
    };
    let mut rx = Endpoint::new(cfg.clone(), addr(0)).unwrap();
    rx.bind(500);
    let tick = core::time::Duration::from_micros(u64::from(cfg.tick_usecs));
    let packet = |offset: u32| {
        let mut p = first_data(2, 400_000, 1);
        if let Body::Data(d) = &mut p.header.body {
            d.offset = offset;
            d.incoming = 200_000;
        }
        p
    };
    let mut now = Instant::ZERO;
    rx.handle_packet(now, addr(1), packet(0));
    let mut resends = Vec::new();
    for i in 2..(2 + cfg.resend_ticks + cfg.resend_interval + 1) {
        now = now + tick;
        rx.handle_packet(now, addr(1), packet(i * 1_000));
        rx.handle_timeout(now);
        while let Some(t) = rx.poll_transmit(now) {
            let r = t.packet.repr().to_string();
            if r.starts_with("RESEND") {
                resends.push((i, r));
            }
        }
    }
    // Once the hole is filled, nothing more is asked for.
    let repairs = rx.metrics().hole_repairs;
    rx.handle_packet(now, addr(1), packet(1_000));
    for _ in 0..cfg.resend_ticks + 1 {
        now = now + tick;
        rx.handle_timeout(now);
    }
    assert_eq!(rx.metrics().hole_repairs, repairs);
    (resends, repairs)
}

#[test]
fn endpoint__a_hole_is_asked_for_while_data_flows_when_it_holds_the_grant_budget() {
    // 200 kB granted and not received is above a max_incoming of 100 kB: the receiver can
    // grant nothing, so the hole is asked for once it has been the lowest for
    // resend_ticks, and again every resend_interval, although the message never goes quiet.
    let cfg = config();
    let (resends, repairs) = holes_asked_for(100_000);
    let at = |n: u32| 2 + cfg.resend_ticks + n;
    let hole = "RESEND id=3 offset=1000 length=1000 prio=7".to_string();
    assert_eq!(
        resends,
        [(at(0), hole.clone()), (at(cfg.resend_interval), hole)]
    );
    assert_eq!(repairs, 2);
    // With budget to spare the hole may be a packet held in a low-priority queue: it is
    // left to the silence timer, which a message still arriving never reaches.
    assert_eq!(holes_asked_for(1_000_000), (Vec::new(), 0));
}

#[test]
fn endpoint__rpc_to_an_unbound_port_times_out() {
    // The host is alive but nobody listens on the port: it answers RESENDs with
    // RPC_UNKNOWN, the client restarts, and the restarts must not keep the RPC alive.
    let mut net = Net::new(2, config(), Impair::default(), 5);
    let now = net.now;
    let id = net.hosts[0]
        .send_request(now, 40000, SocketAddr::new(addr(1), 501), pattern(5_000, 0))
        .unwrap();
    net.run(1_000_000_000);
    assert_eq!(net.failures.get(&(0, id)), Some(&RpcError::Timeout));
    assert!(
        net.hosts[0].metrics().restarts > 0,
        "the server answered RPC_UNKNOWN"
    );
    assert!(
        net.now.as_nanos() < 110_000_000,
        "about timeout_ticks of 1 ms"
    );
}

#[test]
fn endpoint__rpc_to_a_dead_host_times_out() {
    let mut net = Net::new(2, config(), Impair::default(), 4);
    net.dead.insert(1);
    let id = net.call(0, 1, pattern(50_000, 0));
    net.run(1_000_000_000);
    assert_eq!(net.failures.get(&(0, id)), Some(&RpcError::Timeout));
    assert_eq!(net.hosts[0].rpc_count(), 0);
    // About timeout_ticks (100) of 1 ms.
    assert!(net.now.as_nanos() >= 100_000_000 && net.now.as_nanos() < 110_000_000);
}

#[test]
fn endpoint__incast_keeps_granted_bytes_within_budget() {
    let cfg = Config {
        max_incoming: 200_000,
        ..config()
    };
    let mut net = Net::new(21, cfg.clone(), Impair::default(), 5);
    let mut want = Vec::new();
    for from in 1..21 {
        want.push((from, net.call(from, 0, pattern(400_000, from as u8))));
    }
    net.run(30_000_000_000);
    for (from, id) in want {
        assert_eq!(
            net.responses[&(from, id)],
            reversed(&pattern(400_000, from as u8))
        );
    }
    // Scheduled bytes stay within max_incoming; unscheduled ones come on top, one window
    // per sender at most.
    let bound = u64::from(cfg.max_incoming) + 20 * u64::from(cfg.unsched_bytes);
    assert!(
        net.max_outstanding_grants <= bound,
        "{} > {bound}",
        net.max_outstanding_grants
    );
}

#[test]
fn endpoint__sender_srpt_sends_shorter_message_first() {
    let mut net = Net::new(2, config(), Impair::default(), 6);
    net.call(0, 1, pattern(8_000, 1));
    net.call(0, 1, pattern(3_000, 2));
    net.drain();
    let first: Vec<_> = net.trace.iter().take(2).cloned().collect();
    assert!(first[0].contains("message_length=3000"), "{first:?}");
    assert!(first[1].contains("message_length=3000"), "{first:?}");
}

/// The position among the DATA packets a sender sends of the first packet of its oldest
/// message, a long one, when 30 shorter ones come after it (`pacer_fifo_fraction` per mille).
fn first_packet_of_the_oldest(pacer_fifo_fraction: u32) -> usize {
    let cfg = Config {
        pacer_fifo_fraction,
        ..config()
    };
    let mut tx = Endpoint::new(cfg, addr(0)).unwrap();
    let to = SocketAddr::new(addr(1), 500);
    let mut now = Instant::ZERO;
    let oldest = tx.send_request(now, 40000, to, pattern(10_000, 1)).unwrap();
    for i in 0..30 {
        tx.send_request(now, 40000, to, pattern(2_000, i)).unwrap();
    }
    let mut sent = 0;
    loop {
        // 10 us apart: the pacer never holds a packet back.
        now = Instant::from_nanos(now.as_nanos() + 10_000);
        let t = tx.poll_transmit(now).expect("data to send");
        sent += 1;
        if t.packet.header.sender_id == oldest {
            return sent;
        }
    }
}

#[test]
fn endpoint__sender_fifo_turns_reach_the_oldest_message() {
    // SRPT alone: the long message waits for all 60 packets of the short ones.
    assert_eq!(first_packet_of_the_oldest(0), 61);
    // One pick in twenty among competing messages goes to the oldest.
    assert_eq!(first_packet_of_the_oldest(50), 21);
}

/// A receiver with one grant slot, a fixed window of 10,000 bytes and FIFO grants of
/// 50,000 bytes for 5 % of its link.
fn fifo_receiver() -> Endpoint {
    let cfg = Config {
        max_overcommit: 1,
        window: 10_000,
        grant_fifo_fraction: 50,
        fifo_grant_increment: 50_000,
        ..config()
    };
    let mut rx = Endpoint::new(cfg, addr(0)).unwrap();
    rx.bind(500);
    rx
}

#[test]
fn endpoint__fifo_grants_pass_over_a_message_whose_sender_does_not_answer() {
    let mut rx = fifo_receiver();
    let t0 = Instant::ZERO;
    rx.handle_packet(t0, addr(1), first_data(2, 1_000_000, 0)); // oldest
    rx.handle_packet(t0, addr(2), first_data(2, 800_000, 0)); // next oldest
    rx.handle_packet(t0, addr(3), first_data(2, 200_000, 0)); // takes the one slot
    while rx.poll_transmit(t0).is_some() {}
    // No DATA answers the FIFO grants. Once the oldest has window + 2 x increment
    // (110,000 bytes) granted and not received, the next oldest gets them.
    let mut fifo = Vec::new();
    while fifo.len() < 4 {
        // FIFO grants every 800 us, timer ticks between them.
        let due = rx.poll_timeout().unwrap();
        assert!(due.as_nanos() <= 3_200_000, "{fifo:?}");
        rx.handle_timeout(due);
        while let Some(g) = rx.poll_transmit(due) {
            if let Body::Grant(_) = g.packet.header.body {
                fifo.push(format!("{} {}", g.dst, g.packet.repr()));
            }
        }
    }
    assert_eq!(
        fifo,
        [
            "10.0.0.2 GRANT id=3 offset=61000 prio=6",
            "10.0.0.2 GRANT id=3 offset=111000 prio=6",
            "10.0.0.3 GRANT id=3 offset=61000 prio=6",
            "10.0.0.3 GRANT id=3 offset=111000 prio=6",
        ]
    );
}

/// The first DATA packet (1000 bytes at offset 0, 10000 unscheduled) of a request `id` of
/// `len` bytes to port 500.
fn first_data(id: u64, len: u32, seed: u8) -> Packet {
    Packet {
        header: Repr {
            sport: 40000,
            dport: 500,
            sender_id: id,
            body: Body::Data(crate::wire::Data {
                message_length: len,
                incoming: 10_000,
                ack: None,
                cutoff_version: 1,
                retransmit: false,
                offset: 0,
                payload: &[],
            }),
        },
        payload: pattern(1_000, seed),
    }
}

/// A RESEND of a whole message from the client at port 40000 (RPC `id`) to port 500.
fn resend_everything(id: u64) -> Packet {
    Packet::control(Repr {
        sport: 40_000,
        dport: 500,
        sender_id: id,
        body: Body::Resend(crate::wire::Resend {
            offset: 0,
            length: crate::wire::Resend::ALL,
            priority: 7,
        }),
    })
}

#[test]
fn endpoint__receiver_grants_srpt_with_overcommit_and_rank_priorities() {
    let cfg = Config {
        max_overcommit: 2,
        window: 10_000,
        grant_fifo_fraction: 0,
        ..config()
    };
    let mut rx = Endpoint::new(cfg, addr(0)).unwrap();
    rx.bind(500);
    let data = |sender: usize, id: u64, len: u32| first_data(id, len, sender as u8);
    let now = Instant::ZERO;
    rx.handle_packet(now, addr(1), data(1, 2, 300_000));
    rx.handle_packet(now, addr(2), data(2, 2, 100_000));
    rx.handle_packet(now, addr(3), data(3, 2, 200_000));
    let mut grants = Vec::new();
    while let Some(t) = rx.poll_transmit(now) {
        grants.push(format!("{} {}", t.dst, t.packet.repr()));
    }
    assert_eq!(
        grants,
        [
            // First message alone: rank 0 of 1 uses the lowest scheduled level.
            "10.0.0.2 GRANT id=3 offset=11000 prio=0",
            // The 100 KB message outranks it: it takes the upper of the two levels.
            "10.0.0.3 GRANT id=3 offset=11000 prio=1",
            // The 200 KB message displaces the 300 KB one (two slots): its grant.
            "10.0.0.4 GRANT id=3 offset=11000 prio=0",
        ]
    );
}

#[test]
fn endpoint__unknown_rpcs() {
    let mut e = Endpoint::new(config(), addr(0)).unwrap();
    let now = Instant::ZERO;
    let ctl = |id, body| {
        Packet::control(Repr {
            sport: 500,
            dport: 40000,
            sender_id: id,
            body,
        })
    };
    // A RESEND for an RPC we never had: RPC_UNKNOWN back.
    e.handle_packet(
        now,
        addr(1),
        ctl(
            7,
            Body::Resend(crate::wire::Resend {
                offset: 0,
                length: 10,
                priority: 7,
            }),
        ),
    );
    let t = e.poll_transmit(now).unwrap();
    assert_eq!(t.packet.repr().to_string(), "RPC_UNKNOWN id=6");
    // GRANT, BUSY and response DATA for unknown client RPCs are dropped.
    e.handle_packet(
        now,
        addr(1),
        ctl(
            9,
            Body::Grant(crate::wire::Grant {
                offset: 5,
                priority: 1,
            }),
        ),
    );
    e.handle_packet(now, addr(1), ctl(9, Body::Busy));
    assert_eq!(e.metrics().dropped_no_rpc, 2);
    assert!(e.poll_transmit(now).is_none());
    // A request to a port nobody bound creates nothing.
    let mut req = ctl(4, Body::NeedAck);
    req.header = Repr {
        dport: 9,
        ..req.header
    };
    e.handle_packet(now, addr(1), req);
    assert_eq!(e.rpc_count(), 0);
}

#[test]
fn endpoint__commands_reject_bad_input() {
    let mut e = Endpoint::new(config(), addr(0)).unwrap();
    let dest = SocketAddr::new(addr(1), 500);
    let now = Instant::ZERO;
    assert!(matches!(
        e.send_request(now, 1, dest, Bytes::new()),
        Err(SendError::BadLength { length: 0, .. })
    ));
    assert!(matches!(
        e.send_request(now, 1, dest, Bytes::from(vec![0; 1_000_001])),
        Err(SendError::BadLength { .. })
    ));
    let v6: SocketAddr = "[fd00::1]:500".parse().unwrap();
    assert_eq!(
        e.send_request(now, 1, v6, Bytes::from_static(b"x")),
        Err(SendError::AddressFamily(v6.ip()))
    );
    assert!(matches!(
        e.send_response(now, addr(1), 3, Bytes::from_static(b"x")),
        Err(SendError::NoSuchRequest { .. })
    ));
    let id = e
        .send_request(now, 1, dest, Bytes::from_static(b"hello"))
        .unwrap();
    assert_eq!(id, 2);
    assert!(e.cancel(id));
    assert!(!e.cancel(id));
}

fn arb_packet() -> impl Strategy<Value = Packet> {
    let body = prop_oneof![
        (
            1u32..3_000_000,
            any::<u32>(),
            any::<u16>(),
            any::<bool>(),
            0u32..3_000_000,
            0usize..1500
        )
            .prop_map(|(len, inc, cv, rt, off, n)| (
                Body::Data(crate::wire::Data {
                    message_length: len,
                    incoming: inc,
                    ack: None,
                    cutoff_version: cv,
                    retransmit: rt,
                    offset: off,
                    payload: &[],
                }),
                n
            )),
        (any::<u32>(), 0u8..8).prop_map(|(offset, priority)| (
            Body::Grant(crate::wire::Grant { offset, priority }),
            0
        )),
        (any::<u32>(), any::<u32>(), 0u8..8).prop_map(|(offset, length, priority)| (
            Body::Resend(crate::wire::Resend {
                offset,
                length,
                priority
            }),
            0
        )),
        Just((Body::RpcUnknown, 0)),
        Just((Body::Busy, 0)),
        Just((Body::NeedAck, 0)),
        (any::<[u32; 8]>(), any::<u16>()).prop_map(|(c, v)| (
            Body::Cutoffs(crate::wire::Cutoffs {
                unsched_cutoffs: c,
                cutoff_version: v
            }),
            0
        )),
        Just((Body::Ack(crate::wire::Acks::default()), 0)),
    ];
    (body, 0u64..12, any::<bool>()).prop_map(|((body, n), id, port)| Packet {
        header: Repr {
            sport: 40000,
            dport: if port { 500 } else { 7 },
            sender_id: id,
            body,
        },
        payload: if matches!(body, Body::Data(_)) {
            pattern(n, 0)
        } else {
            Bytes::new()
        },
    })
}

proptest! {
    #[test]
    fn endpoint__no_packet_sequence_panics(
        packets in proptest::collection::vec((arb_packet(), 0usize..3, 0u64..3_000_000), 1..60),
    ) {
        let mut e = Endpoint::new(config(), addr(0)).unwrap();
        e.bind(500);
        let _ = e.send_request(Instant::ZERO, 40000, SocketAddr::new(addr(1), 500), pattern(30_000, 0));
        let mut now = 0;
        for (p, from, dt) in packets {
            now += dt;
            let t = Instant::from_nanos(now);
            e.handle_packet(t, addr(from + 1), p);
            while e.poll_event().is_some() {}
            while e.poll_transmit(t).is_some() {}
            if e.poll_timeout().is_some_and(|x| x <= t) {
                e.handle_timeout(t);
            }
        }
    }
}

#[test]
fn endpoint__unscheduled_priority_follows_learnt_cutoffs() {
    let mut net = Net::new(2, config(), Impair::default(), 8);
    let mut prios = Vec::new();
    for _ in 0..2 {
        let now = net.now;
        net.hosts[0]
            .send_request(now, 40000, SocketAddr::new(addr(1), 500), pattern(100, 0))
            .unwrap();
        let t = net.hosts[0].poll_transmit(now).unwrap();
        prios.push(t.priority);
        net.hosts[1].handle_packet(now, addr(0), t.packet);
        // Hand the receiver's CUTOFFS (if any) back to the sender.
        while let Some(back) = net.hosts[1].poll_transmit(now) {
            net.hosts[0].handle_packet(now, addr(1), back.packet);
        }
    }
    // First message: no cutoffs yet, level num_priorities - 2; then cutoffs[7] = 200 >= 100.
    assert_eq!(prios, [6, 7]);
}

#[test]
fn endpoint__fifo_grant_reaches_the_oldest_message() {
    let mut rx = fifo_receiver();
    let data = |len: u32| first_data(2, len, 0);
    let t0 = Instant::ZERO;
    rx.handle_packet(t0, addr(1), data(1_000_000)); // old and long
    rx.handle_packet(t0, addr(2), data(200_000)); // newer, shorter: takes the one slot
    while rx.poll_transmit(t0).is_some() {}
    let due = rx.poll_timeout().unwrap();
    // 50 KB x 8 bits at 5 % of 10 Gb/s = 800 us.
    assert_eq!(due.as_nanos(), 800_000);
    rx.handle_timeout(due);
    let g = rx.poll_transmit(due).unwrap();
    assert_eq!(g.dst, addr(1));
    // It had 11000 (1000 received + the window) while it was alone; FIFO adds 50000.
    assert_eq!(
        g.packet.repr().to_string(),
        "GRANT id=3 offset=61000 prio=6"
    );
}

#[test]
fn endpoint__grant_offload_waits_for_the_nic_and_takes_over_only_when_it_is_lost() {
    let cfg = Config {
        grant_offload: true,
        grant_fifo_fraction: 0,
        window: 10_000,
        ..config()
    };
    let mut rx = Endpoint::new(cfg.clone(), addr(0)).unwrap();
    rx.bind(500);
    let mut now = Instant::ZERO;
    rx.handle_packet(now, addr(1), first_data(2, 100_000, 1));
    let sent = |rx: &mut Endpoint, now| {
        let mut v = Vec::new();
        while let Some(t) = rx.poll_transmit(now) {
            v.push(format!("{}", t.packet.repr()));
        }
        v
    };
    assert_eq!(sent(&mut rx, now), Vec::<String>::new(), "the NIC grants");
    // The NIC granted up to 21000: a RESEND after silence covers it.
    let nic_grant = Repr {
        sport: 500,
        dport: 40000,
        sender_id: 3,
        body: Body::Grant(crate::wire::Grant {
            offset: 21_000,
            priority: 0,
        }),
    };
    rx.note_offloaded_grant(now, addr(1), &nic_grant);
    assert_eq!(rx.metrics().offloaded_grants, 1);
    let tick = core::time::Duration::from_micros(u64::from(cfg.tick_usecs));
    for _ in 0..cfg.resend_ticks {
        now = now + tick;
        rx.handle_timeout(now);
    }
    assert_eq!(
        sent(&mut rx, now),
        ["RESEND id=3 offset=1000 length=20000 prio=7"],
        "missing bytes up to the NIC's grant"
    );
    // Every granted byte in: the message waits for the NIC (SRPT may hold it back), with no
    // RESEND and no timeout.
    let mut rest = first_data(2, 100_000, 1);
    if let Body::Data(d) = &mut rest.header.body {
        d.offset = 1_000;
    }
    rest.payload = pattern(20_000, 1);
    rx.handle_packet(now, addr(1), rest);
    assert_eq!(sent(&mut rx, now), Vec::<String>::new());
    for _ in 1..cfg.timeout_ticks {
        now = now + tick;
        rx.handle_timeout(now);
        assert_eq!(sent(&mut rx, now), Vec::<String>::new());
    }
    assert_eq!(rx.metrics().grant_fallbacks, 0);
    // A GRANT from the NIC restarts the wait.
    rx.note_offloaded_grant(
        now,
        addr(1),
        &Repr {
            body: Body::Grant(crate::wire::Grant {
                offset: 21_000,
                priority: 0,
            }),
            ..nic_grant
        },
    );
    for _ in 1..cfg.timeout_ticks {
        now = now + tick;
        rx.handle_timeout(now);
    }
    assert_eq!(rx.metrics().grant_fallbacks, 0);
    // A NIC silent for `timeout_ticks` has lost the message: the engine grants it itself.
    now = now + tick;
    rx.handle_timeout(now);
    assert_eq!(rx.metrics().grant_fallbacks, 1);
    assert_eq!(rx.metrics().grant_fallbacks_silent, 1);
    assert_eq!(sent(&mut rx, now), ["GRANT id=3 offset=31000 prio=0"]);
    assert_eq!(rx.metrics().timeouts, 0);
}

/// A receiver whose NIC grants (overcommitment 1), holding the first 10,000 bytes of one
/// message of each length in `lens`, from peers 1, 2, ..., after `ticks` ticks of the NIC's
/// silence.
fn nic_silent_over(lens: &[u32], ticks: u32) -> (Endpoint, Instant) {
    let cfg = Config {
        grant_offload: true,
        grant_fifo_fraction: 0,
        window: 10_000,
        max_overcommit: 1,
        ..config()
    };
    let mut rx = Endpoint::new(cfg.clone(), addr(0)).unwrap();
    rx.bind(500);
    let mut now = Instant::ZERO;
    for (i, &len) in lens.iter().enumerate() {
        let mut p = first_data(2, len, 1);
        p.payload = pattern(10_000, 1);
        rx.handle_packet(now, addr(i + 1), p);
    }
    assert!(rx.poll_transmit(now).is_none(), "the NIC grants");
    let tick = core::time::Duration::from_micros(u64::from(cfg.tick_usecs));
    for _ in 0..ticks {
        now = now + tick;
        rx.handle_timeout(now);
    }
    (rx, now)
}

#[test]
fn endpoint__grant_offload_never_takes_over_a_message_srpt_holds_back() {
    // Two messages, every unscheduled byte in: the shorter one is the one to grant.
    let (mut rx, now) = nic_silent_over(&[100_000, 50_000], config().timeout_ticks);
    // The NIC never granted the shorter one: lost, taken over. The longer one waits.
    assert_eq!(rx.metrics().grant_fallbacks, 1);
    let g = rx.poll_transmit(now).expect("a GRANT");
    assert_eq!(g.dst, addr(2));
    assert!(rx.poll_transmit(now).is_none());
    assert_eq!(rx.metrics().timeouts, 0);
}

#[test]
fn endpoint__grant_offload_leaves_a_packet_tie_to_the_nic() {
    // 90,000 and 90,100 bytes left: by bytes the first is the one to grant, but both are 64
    // packets of 1,424 bytes, and the NIC may grant either. Neither is taken over.
    let (mut rx, now) = nic_silent_over(&[100_000, 100_100], 2 * config().timeout_ticks);
    assert_eq!(rx.metrics().grant_fallbacks, 0);
    assert!(rx.poll_transmit(now).is_none(), "the NIC grants");
    assert_eq!(rx.metrics().timeouts, 0);
}

#[test]
fn endpoint__the_nics_grants_count_in_the_pacers_backlog() {
    // DATA packets of a long message the pacer lets go at one instant, after `grants` GRANTs
    // the NIC sent for this host.
    let sendable = |grants: usize| {
        let cfg = Config {
            grant_offload: true,
            grant_fifo_fraction: 0,
            ..config()
        };
        let mut e = Endpoint::new(cfg, addr(0)).unwrap();
        let now = Instant::ZERO;
        let g = Repr {
            sport: 500,
            dport: 40_000,
            sender_id: 3,
            body: Body::Grant(crate::wire::Grant {
                offset: 20_000,
                priority: 0,
            }),
        };
        for _ in 0..grants {
            // The RPC is unknown: the GRANT still took the link.
            e.note_offloaded_grant(now, addr(1), &g);
        }
        e.send_request(
            now,
            40_000,
            SocketAddr::new(addr(2), 500),
            pattern(100_000, 1),
        )
        .unwrap();
        std::iter::from_fn(|| e.poll_transmit(now)).count()
    };
    let free = sendable(0);
    assert!(free > 1, "{free}");
    // Enough GRANTs to fill the backlog the pacer allows: no DATA may go.
    assert_eq!(sendable(1_000), 0);
}

#[test]
fn endpoint__grant_offload_grants_at_once_what_the_nic_does_not_track() {
    let cfg = Config {
        grant_offload: true,
        grant_fifo_fraction: 0,
        window: 10_000,
        ..config()
    };
    let mut rx = Endpoint::new(cfg, addr(0)).unwrap();
    rx.bind(500);
    let now = Instant::ZERO;
    rx.handle_packet(now, addr(1), first_data(2, 100_000, 1));
    assert!(rx.poll_transmit(now).is_none(), "the NIC grants");
    // Another peer's report changes nothing; this one's makes the engine grant.
    rx.nic_not_granting(now, addr(2), 2);
    assert!(rx.poll_transmit(now).is_none());
    rx.nic_not_granting(now, addr(1), 2);
    let g = rx.poll_transmit(now).expect("a GRANT");
    assert_eq!(
        g.packet.repr().to_string(),
        "GRANT id=3 offset=11000 prio=0"
    );
    assert_eq!(rx.metrics().grant_fallbacks, 1);
    assert_eq!(rx.metrics().grant_fallbacks_silent, 0, "the NIC said so");
    // Every later packet repeats the report: nothing more.
    rx.nic_not_granting(now, addr(1), 2);
    assert_eq!(rx.metrics().grant_fallbacks, 1);
}

#[test]
fn endpoint__grant_offload_leaves_the_fifo_grants_to_the_nic() {
    let mut rx = fifo_receiver();
    rx.config.grant_offload = true;
    let t0 = Instant::ZERO;
    rx.handle_packet(t0, addr(1), first_data(2, 1_000_000, 0));
    rx.handle_packet(t0, addr(2), first_data(2, 200_000, 0));
    while rx.poll_transmit(t0).is_some() {}
    // Past two FIFO intervals (800 us each) the engine has sent nothing: only its timer
    // ticks come due.
    let end = Instant::from_nanos(2_000_000);
    while let Some(due) = rx.poll_timeout().filter(|&d| d <= end) {
        rx.handle_timeout(due);
        while let Some(t) = rx.poll_transmit(due) {
            assert!(
                !matches!(t.packet.header.body, Body::Grant(_)),
                "{}",
                t.packet.repr()
            );
        }
    }
}

#[test]
fn endpoint__tx_offload_hands_messages_and_resent_ranges_to_the_nic() {
    let cfg = Config {
        tx_offload: true,
        ..config()
    };
    let mut c = Endpoint::new(cfg, addr(0)).unwrap();
    let now = Instant::ZERO;
    let server = SocketAddr::new(addr(1), 500);
    let message = pattern(100_000, 3);
    let id = c
        .send_request(now, 40_000, server, message.clone())
        .unwrap();
    assert!(c.poll_transmit(now).is_none(), "no DATA from the engine");
    let whole = Offload {
        dst: addr(1),
        sport: 40_000,
        dport: 500,
        id,
        message: message.clone(),
        op: TxOp::SendMessage,
        age: 1,
    };
    assert_eq!(c.poll_offload(), Some(whole.clone()));
    assert_eq!(c.poll_offload(), None);
    // A GRANT is the NIC's business: nothing to send here.
    let from_server = |body| Packet {
        header: Repr {
            sport: 500,
            dport: 40_000,
            sender_id: id ^ 1,
            body,
        },
        payload: Bytes::new(),
    };
    c.handle_packet(
        now,
        addr(1),
        from_server(Body::Grant(crate::wire::Grant {
            offset: 50_000,
            priority: 3,
        })),
    );
    assert!(c.poll_transmit(now).is_none() && c.poll_offload().is_none());
    // A RESEND for everything: what the receiver granted (the GRANT just seen), not the whole
    // message.
    let resend_all = || {
        Body::Resend(crate::wire::Resend {
            offset: 0,
            length: crate::wire::Resend::ALL,
            priority: 2,
        })
    };
    c.handle_packet(now, addr(1), from_server(resend_all()));
    assert_eq!(
        c.poll_offload(),
        Some(Offload {
            op: TxOp::Retransmit {
                offset: 0,
                length: 50_000,
            },
            ..whole.clone()
        })
    );
    // A RESEND: that range again, as a retransmission for the NIC (even past what the
    // engine knows the NIC sent), not a BUSY.
    c.handle_packet(
        now,
        addr(1),
        from_server(Body::Resend(crate::wire::Resend {
            offset: 60_000,
            length: 5_000,
            priority: 2,
        })),
    );
    assert!(c.poll_transmit(now).is_none(), "no BUSY, no DATA");
    assert_eq!(
        c.poll_offload(),
        Some(Offload {
            op: TxOp::Retransmit {
                offset: 60_000,
                length: 5_000,
            },
            ..whole.clone()
        })
    );
    // RPC_UNKNOWN: the server lost the request; the message again, as new (its grants start
    // over: a RESEND for everything is now answered with the unscheduled bytes only).
    // What the NIC still holds of the first hand-over is cancelled first.
    c.handle_packet(now, addr(1), from_server(Body::RpcUnknown));
    assert_eq!(
        c.poll_offload(),
        Some(Offload {
            op: TxOp::Cancel,
            ..whole.clone()
        })
    );
    assert_eq!(c.poll_offload(), Some(whole.clone()));
    assert_eq!(c.metrics().restarts, 1);
    assert_eq!(c.metrics().data_bytes_sent, 100_000);
    assert_eq!(c.metrics().retransmitted_bytes, 155_000);
    c.handle_packet(now, addr(1), from_server(resend_all()));
    let unsched = c.config().unsched_bytes.min(100_000);
    assert_eq!(
        c.poll_offload(),
        Some(Offload {
            op: TxOp::Retransmit {
                offset: 0,
                length: unsched,
            },
            ..whole.clone()
        })
    );
    assert_eq!(c.client_state(id), Some(RpcState::Outgoing));

    // What the host posts for them: the whole message's IOVA either way, the range as a
    // RETRANSMIT, the peer IPv4-mapped; each descriptor passes the layout's own check.
    let send = whole.descriptor(0x10_0000, 7);
    let again = Offload {
        op: TxOp::Retransmit {
            offset: 60_000,
            length: 5_000,
        },
        ..whole.clone()
    }
    .descriptor(0x10_0000, 8);
    use crate::hostif::TxFlags;
    assert_eq!(send.op, TxOp::SendMessage);
    assert_eq!(
        again.op,
        TxOp::Retransmit {
            offset: 60_000,
            length: 5_000
        }
    );
    for (d, cookie) in [(send, 7), (again, 8)] {
        assert_eq!((d.rpc_id, d.src_port, d.dst_port), (id, whole.sport, 500));
        assert_eq!(d.peer, crate::hostif::peer_address(addr(1)));
        assert_eq!((d.message_length, d.payload_iova), (100_000, 0x10_0000));
        assert_eq!((d.cookie, d.flags), (cookie, TxFlags::default()));
        d.check().expect("a valid descriptor");
    }

    // The application gives up: what the NIC holds of the request is cancelled.
    assert!(c.cancel(id));
    let cancel = c.poll_offload().expect("a CANCEL");
    assert_eq!(
        cancel,
        Offload {
            op: TxOp::Cancel,
            ..whole.clone()
        }
    );
    cancel.descriptor(0x10_0000, 0).check().expect("valid");
    assert_eq!(c.poll_offload(), None);
}

#[test]
fn endpoint__tx_offload_hands_the_response_over_and_answers_need_ack() {
    let cfg = Config {
        tx_offload: true,
        ..config()
    };
    let mut s = Endpoint::new(cfg.clone(), addr(1)).unwrap();
    s.bind(500);
    let now = Instant::ZERO;
    // A one-packet request from 10.0.0.1's RPC 2.
    let mut req = first_data(2, 1_000, 7);
    if let Body::Data(d) = &mut req.header.body {
        d.incoming = 1_000;
    }
    s.handle_packet(now, addr(0), req);
    let Some(Event::Request(r)) = s.poll_event() else {
        panic!("the request is delivered")
    };
    while s.poll_transmit(now).is_some() {}
    s.send_response(now, addr(0), r.id, pattern(3_000, 9))
        .unwrap();
    assert!(s.poll_transmit(now).is_none(), "no DATA from the engine");
    let o = s.poll_offload().expect("the response, for the NIC");
    assert_eq!(
        (o.dst, o.sport, o.dport, o.id, o.op, o.message.len()),
        (addr(0), 500, 40_000, 3, TxOp::SendMessage, 3_000)
    );
    // NEED_ACK counts from the NIC's TX_DONE: the response may wait in the host's queue or
    // the NIC's for any number of ticks before.
    let tick = core::time::Duration::from_micros(u64::from(cfg.tick_usecs));
    let mut t = now;
    let asks = |s: &mut Endpoint, t: &mut Instant, ticks: u32| {
        let mut asked = false;
        for _ in 0..ticks {
            *t = *t + tick;
            s.handle_timeout(*t);
            while let Some(x) = s.poll_transmit(*t) {
                asked |= x.packet.header.packet_type() == crate::wire::PacketType::NeedAck;
            }
        }
        asked
    };
    assert!(
        !asks(&mut s, &mut t, 2 * cfg.timeout_ticks),
        "no NEED_ACK while the NIC has not sent the response"
    );
    assert_eq!((s.rpc_count(), s.metrics().timeouts), (1, 0));
    s.offload_sent(o.dst, o.id, TxOp::SendMessage);
    assert!(
        asks(&mut s, &mut t, cfg.request_ack_ticks + 2),
        "the server asks for an ACK of the response the NIC sent"
    );

    // A response longer than the unscheduled bytes is out only once the client granted all
    // of it (the NIC sends granted bytes at once): no NEED_ACK before, which would have the
    // client ask again for bytes still on their way.
    let mut req = first_data(4, 1_000, 7);
    if let Body::Data(d) = &mut req.header.body {
        d.incoming = 1_000;
    }
    s.handle_packet(t, addr(0), req);
    let Some(Event::Request(r)) = s.poll_event() else {
        panic!("the second request is delivered")
    };
    s.send_response(t, addr(0), r.id, pattern(100_000, 9))
        .unwrap();
    assert_eq!(s.poll_offload().map(|o| o.id), Some(5));
    let need_ack = |s: &mut Endpoint, t: &mut Instant| {
        let mut asked = false;
        for _ in 0..=cfg.request_ack_ticks + 1 {
            *t = *t + tick;
            s.handle_timeout(*t);
            while let Some(x) = s.poll_transmit(*t) {
                asked |= x.packet.header.packet_type() == crate::wire::PacketType::NeedAck
                    && x.packet.header.sender_id == 5;
            }
        }
        asked
    };
    assert!(!need_ack(&mut s, &mut t), "not while ungranted bytes wait");
    let grant = Packet {
        header: Repr {
            sport: 40_000,
            dport: 500,
            sender_id: 4,
            body: Body::Grant(crate::wire::Grant {
                offset: 100_000,
                priority: 1,
            }),
        },
        payload: Bytes::new(),
    };
    s.handle_packet(t, addr(0), grant);
    s.offload_sent(addr(0), 5, TxOp::SendMessage);
    assert!(need_ack(&mut s, &mut t), "once the client granted it all");
}

#[test]
fn endpoint__tx_offload_a_server_asked_for_its_response_does_not_time_out() {
    let cfg = Config {
        tx_offload: true,
        ..config()
    };
    let mut s = Endpoint::new(cfg.clone(), addr(1)).unwrap();
    s.bind(500);
    let mut t = Instant::ZERO;
    let mut req = first_data(2, 1_000, 7);
    if let Body::Data(d) = &mut req.header.body {
        d.incoming = 1_000;
    }
    s.handle_packet(t, addr(0), req);
    let Some(Event::Request(r)) = s.poll_event() else {
        panic!("the request is delivered")
    };
    // A response the client never grants past its unscheduled bytes (the NIC may still hold
    // it, or the host's queue): the client asks for it every few ticks, and is alive.
    s.send_response(t, addr(0), r.id, pattern(100_000, 9))
        .unwrap();
    let tick = core::time::Duration::from_micros(u64::from(cfg.tick_usecs));
    for i in 0..2 * cfg.timeout_ticks {
        t = t + tick;
        if i % cfg.resend_ticks == 0 {
            s.handle_packet(t, addr(0), resend_everything(2));
        }
        s.handle_timeout(t);
        while s.poll_transmit(t).is_some() {}
        while s.poll_offload().is_some() {}
    }
    assert_eq!(s.rpc_count(), 1, "still serving the RPC");
    assert_eq!(s.metrics().timeouts, 0);
    // Silent from here: it times out, and what the NIC holds of it is cancelled.
    for _ in 0..=cfg.timeout_ticks {
        t = t + tick;
        s.handle_timeout(t);
        while s.poll_transmit(t).is_some() {}
    }
    assert_eq!((s.rpc_count(), s.metrics().timeouts), (0, 1));
    let ops: Vec<TxOp> = core::iter::from_fn(|| s.poll_offload())
        .map(|o| o.op)
        .collect();
    assert_eq!(ops, [TxOp::Cancel]);
}

#[test]
fn endpoint__tx_offload_a_request_waiting_to_be_sent_asks_for_nothing() {
    // Under load the request waits in the host's queue or the NIC's for many ticks. Counting
    // them as silence sent RESENDs for a request the server had never seen: RPC_UNKNOWN, a
    // restart to the back of the queue, and again (the RTL cluster's w1 livelock).
    let cfg = Config {
        tx_offload: true,
        ..config()
    };
    let mut c = Endpoint::new(cfg.clone(), addr(0)).unwrap();
    let mut t = Instant::ZERO;
    let dest = SocketAddr::new(addr(1), 500);
    let id = c.send_request(t, 40_000, dest, pattern(1_000, 1)).unwrap();
    let o = c.poll_offload().expect("the request, for the NIC");
    let tick = core::time::Duration::from_micros(u64::from(cfg.tick_usecs));
    let run = |c: &mut Endpoint, t: &mut Instant, ticks: u32| {
        let mut sent = Vec::new();
        for _ in 0..ticks {
            *t = *t + tick;
            c.handle_timeout(*t);
            while let Some(x) = c.poll_transmit(*t) {
                sent.push(x.packet.header.packet_type());
            }
        }
        sent
    };
    assert_eq!(run(&mut c, &mut t, 2 * cfg.timeout_ticks), []);
    assert_eq!(c.client_state(id), Some(RpcState::Outgoing));
    assert_eq!(c.metrics().timeouts, 0);
    // A TX_DONE of another kind, or for another RPC, is not this one's.
    c.offload_sent(o.dst, o.id, TxOp::Cancel);
    c.offload_sent(o.dst, o.id + 2, TxOp::SendMessage);
    assert_eq!(run(&mut c, &mut t, cfg.resend_ticks + 1), []);
    // Sent: now the client waits for its response, and asks for it.
    c.offload_sent(o.dst, o.id, TxOp::SendMessage);
    assert!(run(&mut c, &mut t, cfg.resend_ticks + 1).contains(&PacketType::Resend));
    // The message handed over again (RPC_UNKNOWN) is being sent anew.
    let unknown = Packet {
        header: Repr {
            sport: 500,
            dport: 40_000,
            sender_id: id | 1,
            body: Body::RpcUnknown,
        },
        payload: Bytes::new(),
    };
    c.handle_packet(t, addr(1), unknown);
    let ops: Vec<TxOp> = core::iter::from_fn(|| c.poll_offload())
        .map(|o| o.op)
        .collect();
    assert_eq!(ops, [TxOp::Cancel, TxOp::SendMessage]);
    assert_eq!(run(&mut c, &mut t, 2 * cfg.timeout_ticks), []);
    assert_eq!(c.client_state(id), Some(RpcState::Outgoing));
}
