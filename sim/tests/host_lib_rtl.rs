//! The RPC library over a Verilated NIC: a server endpoint (`homa_host::Endpoint` over
//! `homa_host::NicTransport`) hears of its packets only through the completion ring that the
//! Verilated NIC core (`hw/rtl/homa_nic_core_w512.v`) writes by DMA into host memory, read by
//! the driver (`homa_driver::Nic::receive`). The core runs on its own thread
//! (`homa_sim::nic::RtlHost`, also behind `examples/rpc_over_rtl.rs`), fed the frames
//! the in-process network brings to the server's address; the GRANT frames it builds go back
//! on the network, beside the server's own packets. Simulated NIC time runs as fast as the
//! model does (tens of thousands of cycles per second), far slower than the endpoints' wall
//! clock, so the timers are generous.

#![allow(non_snake_case)]

#[cfg(not(homa_rtl))]
#[test]
fn host_lib_rtl__SKIPPED_verilator_missing() {
    println!("{}", homa_sim::rtl::SKIP_MESSAGE);
}

#[cfg(homa_rtl)]
mod built {
    use bytes::Bytes;
    use homa_host::{Endpoint, MemNetwork};
    use homa_sim::nic::{NicTiming, RtlHost, RtlHostReport};
    use std::net::{IpAddr, Ipv4Addr};
    use std::sync::Arc;
    use std::thread;
    use std::time::{Duration, Instant};

    /// Waits until every TX descriptor the transport posted has its `TX_DONE`, and that has
    /// held for a while (a RETRANSMIT posted meanwhile starts the wait again); panics after
    /// `limit` with the counts.
    fn drain<D: homa_driver::Device + Send + 'static>(
        transport: &homa_host::NicTransport<D>,
        limit: Duration,
    ) {
        let (start, mut settled) = (Instant::now(), None);
        loop {
            let tx = transport.stats();
            if tx.tx_done < tx.tx_descriptors {
                settled = None;
            } else if settled.get_or_insert_with(Instant::now).elapsed()
                > Duration::from_millis(300)
            {
                return;
            }
            assert!(
                start.elapsed() < limit,
                "the NIC never finished sending: {tx:?}"
            );
            thread::sleep(Duration::from_millis(10));
        }
    }

    #[test]
    fn host_lib_rtl__rpcs_reach_a_server_through_the_verilated_nics_completion_ring() {
        let net = MemNetwork::new();
        let server_ip = Ipv4Addr::new(10, 0, 0, 1);
        let (transport, nic) = RtlHost::spawn(&net, server_ip, NicTiming::default()).expect("NIC");
        let transport = Arc::new(transport);
        let config = RtlHost::endpoint_config;
        let server = Arc::new(Endpoint::bind(Arc::clone(&transport), 500, config()).expect("bind"));
        let echo = {
            let server = Arc::clone(&server);
            thread::spawn(move || {
                let mut n = 0u64;
                while let Ok(req) = server.recv_request() {
                    let (payload, token) = (req.payload.clone(), req.token);
                    if server.reply(token, payload).is_err() {
                        break;
                    }
                    n += 1;
                }
                n
            })
        };
        let client_ip = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2));
        let client = Endpoint::bind(net.attach(client_ip).unwrap(), 40_000, config()).unwrap();
        let sizes = [1usize, 100, 1_424, 10_000, 100_000, 1_000_000];
        let started = Instant::now();
        for (i, &size) in sizes.iter().enumerate() {
            let request: Bytes = (0..size).map(|b| (b * 7 + i) as u8).collect();
            let response = client
                .call(server.local_addr(), request.clone())
                .expect("call");
            assert!(response == request, "size {size}: bytes differ");
        }
        let wall = started.elapsed();
        // The client has every response; the NIC may still be sending ranges asked for again
        // (a slow machine's timers fire while the model crawls: a RESEND, or a NEED_ACK the
        // client answers with RESENDs). Each descriptor must end in a TX_DONE: wait for the
        // last, while the server's endpoint still takes completions.
        drain(&transport, Duration::from_secs(120));
        server.close().expect("close");
        assert_eq!(echo.join().expect("echo thread"), sizes.len() as u64);
        let RtlHostReport {
            counters: c,
            releases,
            messages_tracked: tracked,
            tx_queued,
            grants_unmatched,
        } = nic.stop().expect("NIC thread");
        let tx = transport.stats();
        println!(
            "{} RPCs of 1 B to 1 MB in {wall:.2?} wall; NIC: {} frames in, {} GRANTs and {} \
             DATA built, {} cycles, {tx_queued} messages left in the TX engine, \
             {grants_unmatched} GRANTs for none; {tx:?}",
            sizes.len(),
            c.frames_in,
            c.grants,
            c.data_frames,
            c.cycles
        );
        assert_eq!((c.dma_faults, c.mac_drops), (0, 0), "{c:?}");
        // Every response left as TX descriptors the NIC sent (a RETRANSMIT for any range a
        // RESEND asked for again), each payload freed at its TX_DONE; the server's engine
        // built no DATA packet, the NIC built at least one per response's packet.
        let server_metrics = server.stats().engine;
        assert_eq!(tx.tx_errors, 0, "{tx:?}");
        assert!(tx.tx_descriptors >= sizes.len() as u64, "{tx:?}");
        assert_eq!(tx.tx_done, tx.tx_descriptors, "{tx:?}");
        let packets: u64 = sizes.iter().map(|&s| s.div_ceil(1_424) as u64).sum();
        assert!(
            c.data_frames >= packets,
            "{} DATA for {packets} packets",
            c.data_frames
        );
        assert_eq!(
            server_metrics.packets_sent[0], 0,
            "the engine sends no DATA (type 0x10)"
        );
        assert_eq!(server.stats().datagrams_malformed, 0);
        // The server's transport released each request in the NIC's table when the endpoint
        // had it whole (the register writes reached the core), and nothing competes for
        // grants any more. (The table also completes a message whose bytes all came in by
        // itself; a release matters for one whose holes it forgot, or that the host gave
        // up. The ids released are checked in host-lib's `tests/nic.rs`.)
        assert_eq!((releases, tracked), (sizes.len() as u32, 0));
    }
}
