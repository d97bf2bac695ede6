//! Application code over Verilated NICs: two simulated hosts, each running `homa_host`'s
//! endpoint over the driver over its own Verilated NIC core (`homa_sim::nic::RtlNet`: the
//! NIC's completion ring is the endpoint's only source of packets; the NIC grants in
//! hardware and sends every message's DATA from the TX descriptors the transport posts). The
//! client makes one RPC per size to an echo server and checks the echo byte for byte. Run
//! with `cargo run -p homa-sim --release --example rpc_over_rtl [SIZE...]` (sizes in bytes,
//! default 1 100 1424 10000 100000 1000000).
//!
//! Times are simulated (the NICs are clocked cycle by cycle at 250 MHz, PCIe 500 ns each
//! way; host software takes no time); the wall time is the model's.

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
    use homa_host::Delivery;
    use homa_proto::core::Config;
    use homa_sim::nic::{NicTiming, RtlNet};
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
    let config = Config {
        link_mbps: 100_000,
        tick_usecs: 10,
        ..Config::default()
    };
    let mut net = RtlNet::new(2, &config, 500, NicTiming::default())?;
    let server = net.addr(1);
    println!(
        "echo RPCs from {} to {server} over Verilated homa_nic_core_w512s",
        net.addr(0)
    );
    println!("{:>9}  {:>12}  {:>10}", "bytes", "round trip", "wall");
    for (i, &size) in sizes.iter().enumerate() {
        let request: Bytes = (0..size).map(|b| (b * 7 + i) as u8).collect();
        let wall = Instant::now();
        let started = net.now();
        net.host(0).core().submit(server, request.clone())?;
        let mut outcome = None;
        let mut failure = None;
        let done = net.run_until(started + 1_000_000_000_000, |net| {
            while let Some(Delivery::Request(r)) = net.host(1).core().next_delivery() {
                if let Err(e) = net.host(1).core().reply(r.peer.ip(), r.id, r.payload) {
                    failure = Some(e);
                }
            }
            if let Some(Delivery::Response { outcome: o, .. }) = net.host(0).core().next_delivery()
            {
                outcome = Some(o);
            }
            outcome.is_some() || failure.is_some()
        });
        if let Some(e) = failure {
            return Err(format!("{size} B: the server could not reply: {e}").into());
        }
        if !done {
            return Err(format!("{size} B: no response within 1 s of simulated time").into());
        }
        let response = outcome.ok_or("no outcome")??;
        if response != request {
            return Err(format!("{size} B: the echo differs from the request").into());
        }
        println!(
            "{size:>9}  {:>9.2} us  {:>10.2?}",
            (net.now() - started) as f64 / 1e6,
            wall.elapsed()
        );
    }
    for h in 0..2 {
        let host = net.host(h);
        let tx = host.stats();
        let c = host.nic().borrow().counters();
        println!(
            "host {h}: NIC {} frames in, {} GRANTs and {} DATA frames built in hardware, {} \
             cycles, {} DMA faults; driver {} register writes, {} reads, {} pushes; transport {} TX \
             descriptors, {} TX_DONE",
            c.frames_in,
            c.grants,
            c.data_frames,
            c.cycles,
            c.dma_faults,
            c.bus_writes,
            c.bus_reads,
            c.pushes,
            tx.tx_descriptors,
            tx.tx_done
        );
    }
    Ok(())
}
