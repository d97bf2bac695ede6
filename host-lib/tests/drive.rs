//! Who drives the engine: endpoints with no I/O thread (the callers drive, sleeping or
//! busy-polling), and the bare `EndpointCore` driven by one thread.
#![allow(non_snake_case)]

mod common;

use bytes::Bytes;
use common::{config, echo_server, ip, pattern, short_timeout_config, stop};
use homa_host::{
    Config, Delivery, Drive, Endpoint, EndpointCore, Error, MemNetwork, Options, RpcError,
};
use homa_proto::core::Instant as EngineInstant;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

const PORT: u16 = 500;

fn caller(busy_poll: bool) -> Options {
    Options {
        drive: Drive::Caller,
        busy_poll,
    }
}

fn bind(net: &MemNetwork, last: u8, port: u16, config: Config, options: Options) -> Endpoint {
    let t = net.attach(ip(last)).expect("address free");
    Endpoint::bind_with(t, port, config, options).expect("bind")
}

/// Echo of every size from 1 B to 1 MB between a server and a client that both have no I/O
/// thread.
fn sizes_round_trip(options: Options) {
    let net = MemNetwork::new();
    let server = Arc::new(bind(&net, 1, PORT, config(), options));
    let threads = echo_server(&server, 2);
    let client = bind(&net, 2, 40_000, config(), options);
    let dest = server.local_addr();
    let sizes = [1, 100, 1_424, 1_425, 40_001, 100_000, 1_000_000];
    for (i, &size) in sizes.iter().enumerate() {
        let request = pattern(size, i as u8);
        let response = client.call(dest, request.clone()).expect("call");
        assert!(response == request, "size {size}: bytes differ");
    }
    assert_eq!(stop(&server, threads), sizes.len() as u64);
    let s = client.stats();
    assert_eq!((s.rpcs_pending, s.datagrams_malformed), (0, 0));
}

#[test]
fn caller_drive__sizes_from_1_byte_to_1_MB_arrive_byte_for_byte() {
    sizes_round_trip(caller(false));
}

#[test]
fn caller_drive__busy_poll_arrives_byte_for_byte() {
    sizes_round_trip(caller(true));
}

#[test]
fn thread_drive__busy_poll_arrives_byte_for_byte() {
    sizes_round_trip(Options {
        drive: Drive::Thread,
        busy_poll: true,
    });
}

#[test]
fn caller_drive__threads_sharing_a_client_take_turns_polling_under_loss() {
    // Four threads wait on one caller-driven client: one polls at a time and the others get
    // their outcomes from it, or take over when it leaves.
    let seed = 0x5eed_0026;
    let net = MemNetwork::with_loss(0.05, seed).expect("valid loss");
    let server = Arc::new(bind(&net, 1, PORT, config(), caller(false)));
    let threads = echo_server(&server, 2);
    let client = bind(&net, 2, 40_000, config(), caller(false));
    let dest = server.local_addr();
    std::thread::scope(|s| {
        for t in 0..4u8 {
            let client = &client;
            s.spawn(move || {
                for i in 0..10usize {
                    let request =
                        pattern([1, 900, 5_000, 30_000, 120_000][i % 5], t * 10 + i as u8);
                    let h = client.submit(dest, request.clone()).expect("submit");
                    let got = client
                        .wait(&h, Duration::from_secs(30))
                        .unwrap_or_else(|e| panic!("seed {seed:#x}: thread {t}: {e}"));
                    assert!(got == request, "seed {seed:#x}: bytes differ");
                }
            });
        }
    });
    assert_eq!(stop(&server, threads), 40);
    assert!(
        net.dropped() > 0,
        "seed {seed:#x}: the network lost nothing"
    );
}

#[test]
fn caller_drive__dead_peer_fails_unreachable_while_the_caller_drives_the_timers() {
    let net = MemNetwork::new();
    let client = bind(&net, 2, 40_000, short_timeout_config(), caller(false));
    let dest = SocketAddr::new(ip(99), PORT);
    let start = Instant::now();
    match client.call(dest, pattern(3_000, 1)) {
        Err(Error::Unreachable { peer, cause }) => {
            assert_eq!((peer, cause), (dest, RpcError::Timeout));
        }
        other => panic!("expected Unreachable, got {other:?}"),
    }
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn caller_drive__wait_times_out_and_poll_and_drive_for_make_progress() {
    let net = MemNetwork::new();
    let server = bind(&net, 1, PORT, config(), caller(false));
    let client = bind(&net, 2, 40_000, config(), caller(false));
    let dest = server.local_addr();
    let h = client.submit(dest, pattern(10, 3)).expect("submit");
    // Nobody drives the server: no answer.
    assert!(matches!(
        client.wait(&h, Duration::from_millis(20)),
        Err(Error::Timeout)
    ));
    // The server gets the request while a thread of its own waits for one.
    let req = server
        .recv_request_timeout(Duration::from_secs(5))
        .expect("request");
    server
        .reply(req.token, Bytes::from_static(b"ok"))
        .expect("reply");
    // `poll` drives one round that does not block; `drive_for` a few more if needed.
    let deadline = Instant::now() + Duration::from_secs(5);
    let got = loop {
        if let Some(r) = client.poll(&h).expect("poll") {
            break r;
        }
        assert!(Instant::now() < deadline, "no response");
        client.drive_for(Duration::from_millis(1)).expect("drive");
    };
    assert_eq!(&got[..], b"ok");
    server.close().expect("close");
    assert!(matches!(
        server.drive_for(Duration::ZERO),
        Err(Error::Closed { .. })
    ));
}

#[test]
fn caller_drive__close_fails_a_waiting_thread() {
    let net = MemNetwork::new();
    let client = Arc::new(bind(&net, 2, 40_000, config(), caller(false)));
    let h = client
        .submit(SocketAddr::new(ip(99), PORT), pattern(10, 1))
        .expect("submit");
    let waiter = {
        let client = Arc::clone(&client);
        std::thread::spawn(move || client.wait(&h, Duration::from_secs(30)))
    };
    std::thread::sleep(Duration::from_millis(20));
    client.close().expect("close");
    let outcome = waiter.join().expect("waiter");
    assert!(matches!(outcome, Err(Error::Closed { .. })), "{outcome:?}");
}

#[test]
fn endpoint_core__one_thread_drives_a_client_and_a_server_under_loss() {
    let seed = 0x5eed_c0de;
    let net = MemNetwork::with_loss(0.05, seed).expect("valid loss");
    let mut server =
        EndpointCore::new(net.attach(ip(1)).expect("free"), PORT, config()).expect("server");
    let mut client =
        EndpointCore::new(net.attach(ip(2)).expect("free"), 40_000, config()).expect("client");
    let dest = server.local_addr();
    let mut expected = HashMap::new();
    for i in 0..30usize {
        let request = pattern([1, 1_500, 20_000, 150_000][i % 4], i as u8);
        let id = client.submit(dest, request.clone()).expect("submit");
        expected.insert(id, request);
    }
    assert_eq!(client.rpcs_pending(), 30);
    let deadline = Instant::now() + Duration::from_secs(60);
    while !expected.is_empty() {
        assert!(Instant::now() < deadline, "seed {seed:#x}: stuck");
        server.poll(Some(EngineInstant::ZERO)).expect("server poll");
        while let Some(d) = server.next_delivery() {
            let Delivery::Request(r) = d else {
                panic!("a server got a response");
            };
            server.reply(r.peer.ip(), r.id, r.payload).expect("reply");
        }
        client.poll(Some(EngineInstant::ZERO)).expect("client poll");
        while let Some(d) = client.next_delivery() {
            let Delivery::Response { id, outcome } = d else {
                panic!("a client got a request");
            };
            let want = expected.remove(&id).expect("a known RPC, delivered once");
            let got = outcome.unwrap_or_else(|e| panic!("seed {seed:#x}: rpc {id}: {e}"));
            assert!(got == want, "seed {seed:#x}: rpc {id}: bytes differ");
        }
    }
    assert_eq!(client.rpcs_pending(), 0);
    assert_eq!(client.stats().engine.client_rpcs_completed, 30);
    assert!(
        net.dropped() > 0,
        "seed {seed:#x}: the network lost nothing"
    );
}

#[test]
fn endpoint_core__refuses_bad_arguments_before_sending() {
    let net = MemNetwork::new();
    let t = net.attach(ip(2)).expect("free");
    assert!(matches!(
        EndpointCore::new(t, 0, config()),
        Err(Error::BadArgument(_))
    ));
    let mut core =
        EndpointCore::new(net.attach(ip(3)).expect("free"), 40_000, config()).expect("core");
    let dest = SocketAddr::new(ip(1), PORT);
    assert!(matches!(
        core.submit(dest, Bytes::new()),
        Err(Error::BadArgument(_))
    ));
    let long = Bytes::from(vec![0; core.max_message_length() + 1]);
    assert!(matches!(
        core.submit(dest, long),
        Err(Error::MessageTooLong { .. })
    ));
    let v6: SocketAddr = "[::1]:500".parse().expect("v6");
    assert!(matches!(
        core.submit(v6, pattern(1, 0)),
        Err(Error::BadArgument(_))
    ));
    assert_eq!(core.rpcs_pending(), 0);
    assert!(!core.cancel(12));
}
