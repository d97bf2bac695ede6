//! The RPC API over a homa-nic's transmit path: endpoints whose transport
//! ([`NicTransport::with_tx_offload`]) hands every message to the NIC as a TX descriptor,
//! its payload copied into the NIC's TX window and freed at its `TX_DONE`. A software NIC
//! ([`SoftNic`]) takes the descriptors off the ring as the hardware does and sends their
//! bytes as DATA packets (all at once: it neither waits for grants nor checks limits, which
//! the Verilated core's own tests cover), then reports each one done; or, holding them (as a
//! NIC holds a message nobody grants), reports them done only when a CANCEL comes for them.
#![allow(non_snake_case)]

mod common;

use bytes::Bytes;
use common::{config, echo_server, ip, pattern, stop};
use homa_driver::{MemDevice, RingSizes, SoftNic};
use homa_host::{Endpoint, Error, MemNetwork, NicTransport, Transport};
use homa_proto::core::{Packet, Transmit};
use homa_proto::hostif::{TxDescriptor, TxOp, peer_ip};
use homa_proto::wire::{Body, ChecksumCapabilities, Data, FrameRepr, LinkType, Repr};
use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};
use std::time::Duration;

/// Payload bytes per DATA packet the software NIC sends.
const MAX_PAYLOAD: usize = 1_424;

/// A host whose NIC receives every datagram the network brings to its address and sends the
/// messages its TX descriptors carry.
struct NicTxHost {
    /// The endpoint's transport.
    transport: Arc<NicTransport<Arc<MemDevice>>>,
    done: Arc<AtomicBool>,
    thread: JoinHandle<(SoftNic, Vec<TxDescriptor>)>,
}

impl NicTxHost {
    /// Stops the NIC's thread: the software NIC, and the descriptors it sent.
    fn stop(self) -> (SoftNic, Vec<TxDescriptor>) {
        self.done.store(true, Ordering::Release);
        self.thread.join().expect("NIC thread")
    }
}

/// What the software NIC does with the messages of its TX descriptors.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Behaviour {
    /// Sends them at once, then reports them done.
    Sends,
    /// Sends nothing; a CANCEL reports the RPC's descriptors done.
    Holds,
}

/// The host at `addr` on `net`, its transport with `tx_area` bytes of TX window.
fn nic_tx_host(net: &MemNetwork, addr: IpAddr, sizes: RingSizes, tx_area: usize) -> NicTxHost {
    nic_tx_host_that(Behaviour::Sends, net, addr, sizes, tx_area)
}

fn nic_tx_host_that(
    mode: Behaviour,
    net: &MemNetwork,
    addr: IpAddr,
    sizes: RingSizes,
    tx_area: usize,
) -> NicTxHost {
    let (nic, mut soft, wire, _) = common::soft_nic_at(net, addr, sizes);
    let transport = NicTransport::with_tx_offload(nic, Box::new(Arc::clone(&wire)), tx_area)
        .expect("transmit offload");
    let done = Arc::new(AtomicBool::new(false));
    let stop = Arc::clone(&done);
    let thread = thread::spawn(move || {
        let caps = ChecksumCapabilities::default();
        let mut sent = Vec::new();
        let mut held: Vec<TxDescriptor> = Vec::new();
        while !stop.load(Ordering::Acquire) {
            let deadline = wire.now() + Duration::from_micros(50);
            if let Ok(Some(d)) = wire.recv(Some(deadline))
                && let Ok(f) = FrameRepr::parse(&d, LinkType::Ip, &caps)
            {
                soft.deliver(f.ip.src_addr(), &f.homa).expect("device side");
            }
            for (desc, message) in soft.take_tx().expect("TX ring") {
                sent.push(desc);
                if desc.op == TxOp::Cancel {
                    let rpc = (desc.peer, desc.rpc_id);
                    for d in held.iter().filter(|d| (d.peer, d.rpc_id) == rpc) {
                        soft.tx_done(d).expect("completion");
                    }
                    held.retain(|d| (d.peer, d.rpc_id) != rpc);
                } else if mode == Behaviour::Holds {
                    held.push(desc);
                } else {
                    send_data(&*wire, addr, &desc, &message);
                    soft.tx_done(&desc).expect("completion");
                }
            }
        }
        (soft, sent)
    });
    NicTxHost {
        transport: Arc::new(transport),
        done,
        thread,
    }
}

/// The DATA packets of what `d` asks for, onto the network from `src`.
fn send_data(wire: &dyn Transport, src: IpAddr, d: &TxDescriptor, message: &[u8]) {
    let (start, end, retransmit) = match d.op {
        TxOp::Cancel => return,
        TxOp::SendMessage => (0, message.len(), false),
        TxOp::Retransmit { offset, length } => (offset as usize, (offset + length) as usize, true),
    };
    let dst = peer_ip(d.peer);
    for offset in (start..end).step_by(MAX_PAYLOAD) {
        let payload = &message[offset..(offset + MAX_PAYLOAD).min(end)];
        let header = Repr {
            sport: d.src_port,
            dport: d.dst_port,
            sender_id: d.rpc_id,
            body: Body::Data(Data {
                message_length: d.message_length,
                incoming: d.message_length,
                ack: None,
                cutoff_version: 0,
                retransmit,
                offset: offset as u32,
                payload: &[],
            }),
        };
        let t = Transmit {
            dst,
            priority: 0,
            packet: Packet {
                header,
                payload: Bytes::copy_from_slice(payload),
            },
        };
        // A datagram the network refuses is lost, as on a wire.
        let _ = wire.send(dst, Bytes::from(t.to_ip_bytes(src)));
    }
}

/// Four TX descriptors in the ring, 1.5 MiB of TX window.
fn small_tx() -> RingSizes {
    RingSizes {
        tx_log2: 2,
        ..RingSizes::default()
    }
}

#[test]
fn nic_tx__the_server_sends_every_response_through_tx_descriptors() {
    let net = MemNetwork::new();
    let host = nic_tx_host(&net, ip(1), small_tx(), 3 << 19);
    let transport = Arc::clone(&host.transport);
    assert!(transport.sends_data());
    let server = Arc::new(Endpoint::bind(Arc::clone(&transport), 500, config()).expect("bind"));
    let threads = echo_server(&server, 2);
    let sizes = [1usize, 100, 1_424, 10_000, 100_000, 1_000_000];
    // Four clients at once: more messages than the ring holds, and two 1 MB responses that
    // never fit in the window together (one waits for the other's TX_DONE).
    thread::scope(|s| {
        for c in 0..4u8 {
            let net = &net;
            let dest = server.local_addr();
            s.spawn(move || {
                let client = Endpoint::bind(net.attach(ip(10 + c)).unwrap(), 40_000, config())
                    .expect("client");
                for (i, &size) in sizes.iter().enumerate() {
                    let request = pattern(size, i as u8 ^ c);
                    let response = client.call(dest, request.clone()).expect("call");
                    assert!(response == request, "client {c}, size {size}: bytes differ");
                }
            });
        }
    });
    assert_eq!(stop(&server, threads), 4 * sizes.len() as u64);
    let metrics = server.stats().engine;
    let (soft, sent) = host.stop();
    let tx = transport.stats();
    println!("{tx:?}; completions dropped: {}", soft.dropped);
    assert_eq!(
        metrics.packets_sent[0], 0,
        "the engine built no DATA packet"
    );
    assert_eq!(tx.tx_errors, 0, "{tx:?}");
    assert_eq!(tx.tx_descriptors, sent.len() as u64, "{tx:?}");
    // Every response was a SEND_MESSAGE (RETRANSMITs answer RESENDs, if any were needed).
    let sends: Vec<u32> = sent
        .iter()
        .filter(|d| d.op == TxOp::SendMessage)
        .map(|d| d.message_length)
        .collect();
    assert_eq!(sends.len(), 4 * sizes.len(), "{sends:?}");
    for &size in &sizes {
        assert_eq!(sends.iter().filter(|&&l| l as usize == size).count(), 4);
    }
    // Every cookie was new: a payload is never reused while its descriptor is out (a CANCEL,
    // for an RPC that ended early, has none: 0).
    let placed: Vec<&TxDescriptor> = sent.iter().filter(|d| d.op != TxOp::Cancel).collect();
    let mut cookies: Vec<u64> = placed.iter().map(|d| d.cookie).collect();
    cookies.sort_unstable();
    cookies.dedup();
    assert_eq!(cookies.len(), placed.len());
    assert!(cookies[0] > 0);
}

#[test]
fn nic_tx__a_message_longer_than_the_tx_window_fails_the_call_at_once() {
    let net = MemNetwork::new();
    let server = Arc::new(Endpoint::bind(net.attach(ip(1)).unwrap(), 500, config()).unwrap());
    let threads = echo_server(&server, 1);
    // 64 KiB of TX window: the client's NIC can never hold a 100 kB request.
    let host = nic_tx_host(&net, ip(2), small_tx(), 64 << 10);
    let transport = Arc::clone(&host.transport);
    let client = Endpoint::bind(Arc::clone(&transport), 40_000, config()).expect("client");
    let started = std::time::Instant::now();
    match client.call(server.local_addr(), pattern(100_000, 1)) {
        Err(Error::MessageTooLong { length, max }) => {
            assert_eq!((length, max), (100_000, 64 << 10));
        }
        other => panic!("expected MessageTooLong, got {other:?}"),
    }
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "no timeout waited"
    );
    assert_eq!(client.stats().rpcs_pending, 0);
    // The endpoint goes on: a request that fits is sent by the NIC.
    let request = pattern(60_000, 2);
    let response = client.call(server.local_addr(), request.clone()).unwrap();
    assert!(response == request);
    assert_eq!(stop(&server, threads), 1);
    let (_, sent) = host.stop();
    // Only the request that fits ever reached the ring (more than once if a RESEND or a
    // restart asked for it again on a loaded machine).
    assert!(!sent.is_empty());
    assert!(sent.iter().all(|d| d.message_length == 60_000), "{sent:?}");
    assert_eq!(transport.stats().tx_errors, 0);
}

#[test]
fn nic_tx__a_dropped_call_cancels_what_the_nic_holds() {
    let net = MemNetwork::new();
    // Nobody at 10.0.0.9: the client's NIC holds the request, as one whose receiver never
    // grants.
    let host = nic_tx_host_that(Behaviour::Holds, &net, ip(2), small_tx(), 1 << 20);
    let transport = Arc::clone(&host.transport);
    let client = Endpoint::bind(Arc::clone(&transport), 40_000, config()).expect("client");
    let dest = std::net::SocketAddr::new(ip(9), 500);
    let wait_for = |what: &str, done: &dyn Fn() -> bool| {
        let start = std::time::Instant::now();
        while !done() {
            assert!(start.elapsed() < Duration::from_secs(10), "no {what}");
            thread::sleep(Duration::from_millis(1));
        }
    };
    let call = client.submit(dest, pattern(50_000, 3)).expect("submit");
    wait_for("TX descriptor", &|| transport.stats().tx_descriptors == 1);
    drop(call);
    // The CANCEL reached the NIC, which gave the message up: its payload is free.
    wait_for("TX_DONE", &|| transport.stats().tx_done == 1);
    let stats = transport.stats();
    let (_, sent) = host.stop();
    assert_eq!(
        sent.iter().map(|d| d.op).collect::<Vec<_>>(),
        [TxOp::SendMessage, TxOp::Cancel],
        "{sent:?}"
    );
    assert_eq!(sent[0].rpc_id, sent[1].rpc_id);
    assert_eq!(
        sent[1].payload_iova, sent[0].payload_iova,
        "borrows the SEND's place"
    );
    assert_eq!((stats.tx_errors, stats.bad), (0, 0), "{stats:?}");
    assert_eq!(client.stats().rpcs_pending, 0);
}
