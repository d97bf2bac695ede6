//! The RPC API over a homa-nic's receive path: the server's packets reach its endpoint only
//! through the driver's completion ring ([`NicTransport`]), which a software NIC
//! ([`SoftNic`]) fills as the hardware does; its replies leave through its network port.
#![allow(non_snake_case)]

mod common;

use common::{config, echo_server, ip, pattern, stop};
use homa_driver::{MemDevice, RingSizes, SoftNic};
use homa_host::{Endpoint, MemNetwork, NicTransport, Transport};
use homa_proto::wire::{ChecksumCapabilities, FrameRepr, LinkType};
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};
use std::time::Duration;

/// A host whose NIC takes every datagram the network brings to `addr`: the transport of its
/// endpoint, and the NIC's thread (stopped by the flag; it returns the software NIC), and the
/// device's memory (its registers hold what the driver wrote).
fn nic_host(
    net: &MemNetwork,
    addr: IpAddr,
    sizes: RingSizes,
) -> (
    NicTransport<Arc<MemDevice>>,
    Arc<AtomicBool>,
    JoinHandle<SoftNic>,
    Arc<MemDevice>,
) {
    let (nic, mut soft, wire, dev) = common::soft_nic_at(net, addr, sizes);
    let transport = NicTransport::new(nic, Box::new(Arc::clone(&wire)));
    let done = Arc::new(AtomicBool::new(false));
    let stop = Arc::clone(&done);
    let thread = thread::spawn(move || {
        let caps = ChecksumCapabilities::default();
        while !stop.load(Ordering::Acquire) {
            let deadline = wire.now() + Duration::from_millis(2);
            let Ok(Some(d)) = wire.recv(Some(deadline)) else {
                continue;
            };
            if let Ok(f) = FrameRepr::parse(&d, LinkType::Ip, &caps) {
                soft.deliver(f.ip.src_addr(), &f.homa).expect("device side");
            }
        }
        soft
    });
    (transport, done, thread, dev)
}

/// The messages the driver released in the NIC's table (GRANT `release_*`, then the
/// `release` doorbell) among the register writes `dev` saw: (peer, id, length).
fn releases(dev: &MemDevice) -> Vec<(Ipv4Addr, u64, u32)> {
    let grant = homa_proto::regs::block("GRANT").expect("GRANT block");
    let at = |name: &str| grant.address(name).expect("GRANT register");
    let mut regs = std::collections::HashMap::new();
    let mut out = Vec::new();
    for (offset, value) in dev.take_writes() {
        regs.insert(offset, value);
        if offset == at("release") {
            let get = |name: &str| regs.get(&at(name)).copied().unwrap_or(0);
            let id = u64::from(get("release_id_hi")) << 32 | u64::from(get("release_id_lo"));
            out.push((
                Ipv4Addr::from(get("release_peer")),
                id,
                get("release_length"),
            ));
        }
    }
    out
}

#[test]
fn nic_transport__rpcs_of_1_byte_to_1_MB_reach_a_server_through_its_completion_ring() {
    let net = MemNetwork::new();
    // 256 RX buffers of 4 KiB, a completion ring of 1024.
    let (transport, done, nic_thread, dev) = nic_host(&net, ip(1), RingSizes::default());
    let server = Arc::new(Endpoint::bind(transport, 500, config()).expect("bind"));
    let threads = echo_server(&server, 1);
    let client = Endpoint::bind(net.attach(ip(2)).unwrap(), 40_000, config()).unwrap();
    let dest = server.local_addr();
    let sizes = [1, 100, 1_424, 10_000, 100_000, 1_000_000];
    for (i, &size) in sizes.iter().enumerate() {
        let request = pattern(size, i as u8);
        let response = client.call(dest, request.clone()).expect("call");
        assert!(response == request, "size {size}: bytes differ");
    }
    assert_eq!(stop(&server, threads), sizes.len() as u64);
    let s = server.stats();
    assert_eq!(s.datagrams_malformed, 0);
    done.store(true, Ordering::Release);
    let soft = nic_thread.join().expect("NIC thread");
    // A packet that found no buffer posted is dropped, as the NIC drops it; RESEND repaired
    // it (every call above completed).
    println!("packets the NIC dropped: {}", soft.dropped);
    // Each request of more than one packet was released in the NIC's table once the server
    // had it whole, under the client's address and its RPC id (even: a client's), with its
    // length; the table completes a one-packet message by itself.
    let released = releases(&dev);
    let lengths: Vec<usize> = released.iter().map(|r| r.2 as usize).collect();
    let one_packet = homa_driver::NicConfig::default().max_payload as usize;
    let longer: Vec<usize> = sizes.into_iter().filter(|&s| s > one_packet).collect();
    assert_eq!(lengths, longer, "{released:?}");
    for (peer, id, _) in &released {
        assert_eq!(IpAddr::V4(*peer), ip(2));
        assert_eq!(id % 2, 0, "{released:?}");
    }
}

#[test]
fn nic_transport__packets_dropped_for_want_of_buffers_are_resent() {
    // 16 RX buffers: a 1 MB request outruns them, the NIC drops what finds none posted,
    // and Homa's RESEND brings it again.
    let net = MemNetwork::new();
    let sizes = RingSizes {
        rx_log2: 4,
        cq_log2: 6,
        ..RingSizes::default()
    };
    let (transport, done, nic_thread, _) = nic_host(&net, ip(1), sizes);
    let server = Arc::new(Endpoint::bind(transport, 500, config()).expect("bind"));
    let threads = echo_server(&server, 1);
    let client = Endpoint::bind(net.attach(ip(2)).unwrap(), 40_000, config()).unwrap();
    for i in 0..3u8 {
        let request = pattern(1_000_000, i);
        let response = client
            .call(server.local_addr(), request.clone())
            .expect("call");
        assert!(response == request, "call {i}: bytes differ");
    }
    assert_eq!(stop(&server, threads), 3);
    done.store(true, Ordering::Release);
    let soft = nic_thread.join().expect("NIC thread");
    println!("packets the NIC dropped: {}", soft.dropped);
}

#[test]
fn nic_transport__recv_returns_at_its_deadline_and_on_wake() {
    let net = MemNetwork::new();
    let (transport, done, nic_thread, _) = nic_host(&net, ip(1), RingSizes::default());
    let start = transport.now();
    let got = transport
        .recv(Some(start + Duration::from_millis(5)))
        .unwrap();
    assert!(got.is_none());
    assert!(transport.now() - start >= Duration::from_millis(5));
    transport.wake();
    assert!(
        transport.recv(None).unwrap().is_none(),
        "the wake-up is not lost"
    );
    assert_eq!(transport.stats().packets, 0);
    done.store(true, Ordering::Release);
    nic_thread.join().expect("NIC thread");
}
