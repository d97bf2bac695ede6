//! The RPC library over Verilated NICs: two hosts, each running `homa_host`'s endpoint over
//! `homa_host::NicTransport` over the driver over its own Verilated NIC core
//! (`hw/rtl/homa_nic_core_w512.v`), in simulated time (`homa_sim::nic::RtlNet`, also behind
//! `examples/rpc_over_rtl.rs`). Each endpoint hears of its packets only through the
//! completion ring its NIC writes by DMA into host memory; every DATA packet is built by a
//! NIC from the TX descriptors the transport posts, every GRANT by a NIC's grant generator.

#![allow(non_snake_case)]

#[cfg(not(homa_rtl))]
#[test]
fn host_lib_rtl__SKIPPED_verilator_missing() {
    println!("{}", homa_sim::rtl::SKIP_MESSAGE);
}

#[cfg(homa_rtl)]
mod built {
    use bytes::Bytes;
    use homa_host::Delivery;
    use homa_proto::core::Config;
    use homa_sim::nic::{NicTiming, RtlNet};

    const MS: u64 = 1_000_000_000;

    fn config() -> Config {
        Config {
            link_mbps: 100_000,
            tick_usecs: 10,
            ..Config::default()
        }
    }

    #[test]
    fn host_lib_rtl__rpcs_of_1_byte_to_1_MB_between_two_hosts_over_their_nics() {
        let mut net = RtlNet::new(2, &config(), 500, NicTiming::default()).expect("NICs up");
        let server = net.addr(1);
        let sizes = [1usize, 100, 1_424, 10_000, 100_000, 1_000_000];
        for (i, &size) in sizes.iter().enumerate() {
            let request: Bytes = (0..size).map(|b| (b * 7 + i) as u8).collect();
            let id = net
                .host(0)
                .core()
                .submit(server, request.clone())
                .expect("submit");
            let started = net.now();
            let mut response = None;
            let done = net.run_until(started + 50 * MS, |net| {
                // The server echoes; the client waits for its response.
                while let Some(d) = net.host(1).core().next_delivery() {
                    let Delivery::Request(r) = d else {
                        panic!("a server got {d:?}");
                    };
                    net.host(1)
                        .core()
                        .reply(r.peer.ip(), r.id, r.payload)
                        .expect("reply");
                }
                if let Some(Delivery::Response { id: got, outcome }) =
                    net.host(0).core().next_delivery()
                {
                    assert_eq!(got, id);
                    response = Some(outcome.expect("response"));
                }
                response.is_some()
            });
            assert!(done, "size {size}: no response by {} ps", net.now());
            assert!(
                response.expect("checked") == request,
                "size {size}: bytes differ"
            );
        }
        // Let every TX descriptor end in its TX_DONE and the NICs go idle.
        let end = net.now() + 5 * MS;
        net.run_until(end, |_| false);
        assert_eq!(net.faults(), (0, 0));
        for h in 0..2 {
            let host = net.host(h);
            let tx = host.stats();
            let engine = host.core_ref().stats();
            let mut nic = host.nic().borrow_mut();
            let c = nic.counters();
            assert_eq!(
                (c.dma_faults, c.mac_drops, c.parse_mismatches),
                (0, 0, 0),
                "{c:?}"
            );
            // Every message left as TX descriptors the NIC sent, each payload freed at its
            // TX_DONE; the engine built no DATA packet (type 0x10).
            assert_eq!(tx.tx_errors, 0, "{tx:?}");
            assert!(tx.tx_descriptors >= sizes.len() as u64, "{tx:?}");
            assert_eq!(tx.tx_done, tx.tx_descriptors, "{tx:?}");
            assert_eq!(
                engine.engine.packets_sent[0], 0,
                "host {h}: no DATA from the engine"
            );
            assert_eq!(engine.datagrams_malformed, 0);
            let packets: u64 = sizes.iter().map(|&s| s.div_ceil(1_424) as u64).sum();
            assert!(
                c.data_frames >= packets,
                "{} DATA for {packets} packets",
                c.data_frames
            );
            // Each endpoint released every inbound message of more than one packet in its
            // NIC's table; the table completed the others by itself: it tracks none.
            let one_packet = config().max_payload(20) as usize;
            let longer = sizes.iter().filter(|&&s| s > one_packet).count();
            assert_eq!(
                nic.read_register("GRANT", "releases").unwrap(),
                longer as u32
            );
            assert_eq!(nic.read_register("GRANT", "messages_tracked").unwrap(), 0);
            assert!(c.bus_writes > 0, "doorbells are register writes: {c:?}");
            // The TX ring is on chip and the one-packet messages went there too: every
            // descriptor and those payloads were pushed, none read outside its area.
            assert!(c.pushes >= tx.tx_descriptors, "{c:?} {tx:?}");
            assert_eq!(nic.read_register("QUEUE", "tx_onchip_faults").unwrap(), 0);
        }
    }
}
