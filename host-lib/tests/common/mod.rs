//! Helpers shared by the integration tests: payloads, configurations and an echo server.
#![allow(dead_code)]

use bytes::Bytes;
use homa_driver::{MemDevice, Nic, NicConfig, RingSizes, SoftNic};
use homa_host::{Config, Endpoint, Error, MemNetwork, MemTransport};
use std::net::IpAddr;
use std::sync::Arc;
use std::thread::JoinHandle;

/// A payload whose bytes depend on its length and a seed, so that a mix-up shows.
pub fn pattern(len: usize, seed: u8) -> Bytes {
    Bytes::from(
        (0..len)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) ^ (i >> 8) as u8)
            .collect::<Vec<_>>(),
    )
}

/// A configuration with generous timeouts for tests on a loaded machine: 1 ms ticks,
/// RESEND after 2 silent ticks, abort after 1,000 (a stalled thread counts one tick).
pub fn config() -> Config {
    Config {
        tick_usecs: 1_000,
        resend_ticks: 2,
        resend_interval: 2,
        timeout_ticks: 1_000,
        link_mbps: 100_000,
        ..Config::default()
    }
}

/// A configuration that gives up on a silent peer within about 20 ms.
pub fn short_timeout_config() -> Config {
    Config {
        tick_usecs: 1_000,
        resend_ticks: 2,
        resend_interval: 2,
        timeout_ticks: 20,
        ..Config::default()
    }
}

pub fn ip(last: u8) -> IpAddr {
    IpAddr::from([10, 0, 0, last])
}

/// Serves `endpoint` on `threads` threads, answering each request with its own bytes, until
/// the endpoint is closed. Each thread returns how many requests it answered.
pub fn echo_server(endpoint: &Arc<Endpoint>, threads: usize) -> Vec<JoinHandle<u64>> {
    (0..threads)
        .map(|_| {
            let ep = Arc::clone(endpoint);
            std::thread::spawn(move || {
                let mut served = 0;
                loop {
                    match ep.recv_request() {
                        Ok(req) => {
                            let payload = req.payload.clone();
                            match ep.reply(req.token, payload) {
                                Ok(()) => served += 1,
                                Err(Error::Closed { .. }) => return served,
                                Err(e) => panic!("reply failed: {e}"),
                            }
                        }
                        Err(Error::Closed { .. }) => return served,
                        Err(e) => panic!("recv_request failed: {e}"),
                    }
                }
            })
        })
        .collect()
}

/// Closes the server and returns the requests its threads answered.
pub fn stop(endpoint: &Endpoint, threads: Vec<JoinHandle<u64>>) -> u64 {
    endpoint.close().expect("clean close");
    threads
        .into_iter()
        .map(|t| t.join().expect("server thread"))
        .sum()
}

/// A NIC for the IPv4 host `addr` on `net`, over host memory: the driver brought up with
/// `sizes`, the software NIC serving its rings, the host's port on the network and the
/// device (its registers hold what the driver wrote).
pub fn soft_nic_at(
    net: &MemNetwork,
    addr: IpAddr,
    sizes: RingSizes,
) -> (
    Nic<Arc<MemDevice>>,
    SoftNic,
    Arc<MemTransport>,
    Arc<MemDevice>,
) {
    let IpAddr::V4(ipv4) = addr else {
        panic!("an IPv4 host")
    };
    let cfg = NicConfig {
        ipv4,
        ..NicConfig::default()
    };
    let dev = Arc::new(MemDevice::new());
    let nic = Nic::init(Arc::clone(&dev), &cfg, &sizes).expect("NIC up");
    let soft = SoftNic::new(&nic).expect("device side");
    let wire = Arc::new(net.attach(addr).expect("address free"));
    (nic, soft, wire, dev)
}
