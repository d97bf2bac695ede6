//! The RPC API over raw IPv4 sockets on loopback: server on 127.0.0.11, client on
//! 127.0.0.12 (every 127/8 address is loopback on Linux). Needs root or CAP_NET_RAW; without
//! them the test says why and returns.
#![allow(non_snake_case)]

mod common;

use common::{config, echo_server, pattern, stop};
use homa_host::{Endpoint, RawIpTransport};
use std::net::Ipv4Addr;
use std::sync::Arc;
use std::time::Duration;

fn open(addr: Ipv4Addr) -> Option<RawIpTransport> {
    match RawIpTransport::open(addr) {
        Ok(t) => Some(t),
        Err(e) => {
            let cause = std::error::Error::source(&e).map(ToString::to_string);
            eprintln!("SKIPPED: raw IP loopback test: {e}: {cause:?} (needs root or CAP_NET_RAW)");
            None
        }
    }
}

#[test]
fn raw_ip__loopback_rpcs_arrive_byte_for_byte() {
    let Some(st) = open(Ipv4Addr::new(127, 0, 0, 11)) else {
        return;
    };
    let Some(ct) = open(Ipv4Addr::new(127, 0, 0, 12)) else {
        return;
    };
    let server = Arc::new(Endpoint::bind(st, 4_100, config()).expect("bind server"));
    let threads = echo_server(&server, 1);
    let client = Endpoint::bind(ct, 4_101, config()).expect("bind client");
    let dest = server.local_addr();
    let sizes = [1, 1_424, 1_425, 50_000, 1_000_000];
    for (i, &size) in sizes.iter().enumerate() {
        let request = pattern(size, i as u8);
        let response = client.call(dest, request.clone()).expect("call");
        assert!(response == request, "size {size}: bytes differ");
    }
    let requests: Vec<_> = (0..20).map(|i| pattern(100 + i * 3_000, i as u8)).collect();
    let handles: Vec<_> = requests
        .iter()
        .map(|r| client.submit(dest, r.clone()).expect("submit"))
        .collect();
    for (h, r) in handles.iter().zip(&requests) {
        assert!(client.wait(h, Duration::from_secs(30)).expect("response") == r);
    }
    assert_eq!(stop(&server, threads), sizes.len() as u64 + 20);
    let s = client.stats();
    eprintln!("client stats: {s:?}");
    assert!(s.datagrams_received > 700, "{s:?}");
    assert_eq!((s.datagrams_malformed, s.datagrams_misaddressed), (0, 0));
}
