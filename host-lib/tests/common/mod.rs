//! Helpers shared by the integration tests: payloads, configurations and an echo server.
#![allow(dead_code)]

use bytes::Bytes;
use homa_host::{Config, Endpoint, Error};
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
