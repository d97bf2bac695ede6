//! Application code over a Verilated NIC: an echo server whose `homa_host::Endpoint` runs
//! over `homa_sim::nic::RtlHost` (the Verilated core's completion ring is its only source of
//! packets; the core grants in hardware and sends every response's DATA from the TX
//! descriptors the transport posts) and a client on the same in-process network, making
//! one RPC per size and checking the echo byte for byte. Run with
//! `cargo run -p homa-sim --release --example rpc_over_rtl [SIZE...]` (sizes in bytes,
//! default 1 100 1424 10000 100000 1000000).
//!
//! Times are wall-clock: the NIC is simulated cycle by cycle (tens of thousands of cycles
//! per second), so they measure the model, not the hardware; the NIC's cycle count is the
//! hardware's time.

#[cfg(not(homa_rtl))]
fn main() {
    println!("{}", homa_sim::rtl::SKIP_MESSAGE);
}

#[cfg(homa_rtl)]
fn main() {
    if let Err(e) = run() {
        eprintln!("rpc_over_rtl: {e}");
        std::process::exit(1);
    }
}

#[cfg(homa_rtl)]
fn run() -> Result<(), Box<dyn std::error::Error>> {
    use bytes::Bytes;
    use homa_host::{Endpoint, MemNetwork};
    use homa_sim::nic::{NicTiming, RtlHost};
    use std::net::{IpAddr, Ipv4Addr};
    use std::sync::Arc;
    use std::time::Instant;

    let mut sizes = Vec::new();
    for a in std::env::args().skip(1) {
        let n: usize = a
            .parse()
            .map_err(|_| format!("{a:?} is not a size in bytes (1 to 1000000)"))?;
        if !(1..=1_000_000).contains(&n) {
            return Err(format!("{n} bytes: sizes run from 1 to 1000000 (Homa's limit)").into());
        }
        sizes.push(n);
    }
    if sizes.is_empty() {
        sizes = vec![1, 100, 1_424, 10_000, 100_000, 1_000_000];
    }

    let net = MemNetwork::new();
    let server_ip = Ipv4Addr::new(10, 0, 0, 1);
    let (transport, nic) = RtlHost::spawn(&net, server_ip, NicTiming::default())?;
    let transport = Arc::new(transport);
    let config = RtlHost::endpoint_config();
    let server = Arc::new(Endpoint::bind(Arc::clone(&transport), 500, config.clone())?);
    let echo = {
        let server = Arc::clone(&server);
        std::thread::spawn(move || {
            while let Ok(req) = server.recv_request() {
                let (payload, token) = (req.payload.clone(), req.token);
                if server.reply(token, payload).is_err() {
                    break;
                }
            }
        })
    };
    let client_ip = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2));
    let client = Endpoint::bind(net.attach(client_ip)?, 40_000, config)?;
    println!(
        "echo RPCs to {} over a Verilated homa_nic_core_w512",
        server.local_addr()
    );
    for (i, &size) in sizes.iter().enumerate() {
        let request: Bytes = (0..size).map(|b| (b * 7 + i) as u8).collect();
        let start = Instant::now();
        let response = client.call(server.local_addr(), request.clone())?;
        if response != request {
            return Err(format!("{size} B: the echo differs from the request").into());
        }
        println!("{size:>9} B  {:>9.2?} wall", start.elapsed());
    }
    server.close()?;
    let _ = echo.join();
    let r = nic.stop()?;
    let c = r.counters;
    let tx = transport.stats();
    println!(
        "NIC: {} frames in ({} dropped by the MAC), {} GRANTs and {} DATA frames built in \
         hardware, {} cycles ({:.1} µs at 250 MHz); {} messages released; {} DMA faults",
        c.frames_in,
        c.mac_drops,
        c.grants,
        c.data_frames,
        c.cycles,
        c.cycles as f64 / 250.0,
        r.releases,
        c.dma_faults
    );
    println!(
        "server's transport: {} TX descriptors posted, {} TX_DONE, {} not sent, {} RETRANSMITs \
         not posted (another held their range)",
        tx.tx_descriptors, tx.tx_done, tx.tx_errors, tx.retransmits_covered
    );
    Ok(())
}
