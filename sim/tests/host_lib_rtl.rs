//! The RPC library over a Verilated NIC: a server endpoint (`homa_host::Endpoint` over
//! `homa_host::NicTransport`) hears of its packets only through the completion ring that the
//! Verilated RX core (`hw/rtl/homa_rx_core_w512.v`) writes by DMA into host memory, read by
//! the driver (`homa_driver::Nic::receive`). The core runs on its own thread, fed the frames
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
    use homa_driver::{MemDevice, Nic, NicConfig};
    use homa_host::{Config, Endpoint, MemNetwork, NicTransport, Transport};
    use homa_proto::wire::field::ethernet as eth;
    use homa_sim::nic::{NicCounters, NicOutput, NicTiming, RtlNic};
    use std::net::{IpAddr, Ipv4Addr};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, mpsc};
    use std::thread::{self, JoinHandle};
    use std::time::Duration;

    /// NIC time simulated per step of the NIC thread (1000 cycles at 250 MHz).
    const STEP_PS: u64 = 4_000_000;

    /// Picoseconds a byte takes on the NIC's 100 Gb/s link: frames that reach the thread
    /// together arrive at the MAC one after the other, at line rate.
    const BYTE_PS: u64 = 80;

    /// Timers for a NIC far slower than the wall clock: RESEND after 50 ms of silence, give
    /// up after 20 s.
    fn config() -> Config {
        Config {
            tick_usecs: 1_000,
            resend_ticks: 50,
            resend_interval: 50,
            timeout_ticks: 20_000,
            ..Config::default()
        }
    }

    /// The Ethernet frame of an IPv4 datagram, to the NIC's MAC.
    fn ethernet(to: [u8; 6], datagram: &[u8]) -> Vec<u8> {
        let mut f = Vec::with_capacity(eth::HEADER_LEN + datagram.len());
        f.extend_from_slice(&to);
        f.extend_from_slice(&[0x02, 0, 0, 0xff, 0xff, 0xff]);
        f.extend_from_slice(&0x0800u16.to_be_bytes());
        f.extend_from_slice(datagram);
        f
    }

    /// What the NIC's thread reports when it stops.
    struct NicEnd {
        counters: NicCounters,
        /// GRANT `releases`.
        releases: u32,
        /// GRANT `messages_tracked`.
        tracked: u32,
    }

    /// A host at `addr` whose NIC is the Verilated core, on its own thread: the transport
    /// for its endpoint, the flag that stops the thread, and the thread (it returns the
    /// NIC's counters and GRANT registers).
    fn rtl_host(
        net: &MemNetwork,
        addr: Ipv4Addr,
    ) -> (
        NicTransport<Arc<MemDevice>>,
        Arc<AtomicBool>,
        JoinHandle<NicEnd>,
    ) {
        let cfg = NicConfig {
            ipv4: addr,
            mac: [0x02, 0, 0, 0, 0, 0x01],
            ..NicConfig::default()
        };
        let port = Arc::new(net.attach(IpAddr::V4(addr)).expect("address free"));
        let wire = Arc::clone(&port);
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let (give, take) = mpsc::channel::<Nic<Arc<MemDevice>>>();
        let thread = thread::spawn(move || {
            let (mut nic, host) = RtlNic::with_driver(&cfg, NicTiming::default()).expect("NIC");
            give.send(host).expect("the test waits for the driver");
            let (mut t, mut link_free) = (0u64, 0u64);
            let mut link = std::collections::VecDeque::new();
            let mut out = Vec::new();
            while !stopped.load(Ordering::Acquire) {
                // Everything the network has brought (a past deadline never blocks), onto
                // the link at line rate.
                while let Ok(Some(d)) = wire.recv(Some(wire.now())) {
                    let frame = ethernet(cfg.mac, &d);
                    link_free = link_free.max(t) + BYTE_PS * frame.len() as u64;
                    link.push_back((link_free, frame));
                }
                nic.host_writes(t);
                t += STEP_PS;
                while link.front().is_some_and(|(at, _)| *at <= t) {
                    let (at, frame) = link.pop_front().expect("checked");
                    nic.receive(at, frame);
                }
                if nic.next_edge().is_none() && link.is_empty() {
                    thread::sleep(Duration::from_micros(50));
                    continue;
                }
                nic.run_until(t, &mut out);
                for (_, o) in out.drain(..) {
                    if let NicOutput::Grant { frame } = o {
                        let ip = &frame[eth::HEADER_LEN..];
                        let dst = Ipv4Addr::new(ip[16], ip[17], ip[18], ip[19]);
                        let _ = wire.send(IpAddr::V4(dst), Bytes::copy_from_slice(ip));
                    }
                }
            }
            // The last register writes (releases) reach the core.
            nic.host_writes(t);
            nic.run_until(t + 1_000_000, &mut out);
            let releases = nic.read_register("GRANT", "releases").expect("register");
            let tracked = nic
                .read_register("GRANT", "messages_tracked")
                .expect("register");
            NicEnd {
                counters: nic.counters(),
                releases,
                tracked,
            }
        });
        let host = take.recv().expect("the NIC thread hands over its driver");
        let transport = NicTransport::new(host, Box::new(port));
        (transport, stop, thread)
    }

    #[test]
    fn host_lib_rtl__rpcs_reach_a_server_through_the_verilated_nics_completion_ring() {
        let net = MemNetwork::new();
        let server_ip = Ipv4Addr::new(10, 0, 0, 1);
        let (transport, stop, nic_thread) = rtl_host(&net, server_ip);
        let server = Arc::new(Endpoint::bind(transport, 500, config()).expect("bind"));
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
        let started = std::time::Instant::now();
        for (i, &size) in sizes.iter().enumerate() {
            let request: Bytes = (0..size).map(|b| (b * 7 + i) as u8).collect();
            let response = client
                .call(server.local_addr(), request.clone())
                .expect("call");
            assert!(response == request, "size {size}: bytes differ");
        }
        let wall = started.elapsed();
        server.close().expect("close");
        assert_eq!(echo.join().expect("echo thread"), sizes.len() as u64);
        stop.store(true, Ordering::Release);
        let NicEnd {
            counters: c,
            releases,
            tracked,
        } = nic_thread.join().expect("NIC thread");
        println!(
            "{} RPCs of 1 B to 1 MB in {wall:.2?} wall; NIC: {} frames in, {} GRANTs built, \
             {} cycles",
            sizes.len(),
            c.frames_in,
            c.grants,
            c.cycles
        );
        assert_eq!((c.dma_faults, c.mac_drops), (0, 0), "{c:?}");
        assert_eq!(server.stats().datagrams_malformed, 0);
        // The server's transport released each request in the NIC's table when the endpoint
        // had it whole (the register writes reached the core), and nothing competes for
        // grants any more. (The table also completes a message whose bytes all came in by
        // itself; a release matters for one whose holes it forgot, or that the host gave
        // up. The ids released are checked in host-lib's `tests/nic.rs`.)
        assert_eq!((releases, tracked), (sizes.len() as u32, 0));
    }
}
