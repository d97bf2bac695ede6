//! Client for the `server` example over raw IPv4: sends N requests one after the other,
//! checks each echo, and prints each round trip and a summary.
//!
//! ```text
//! sudo cargo run --release -p homa-host --example client -- [SERVER:PORT] [N] [SIZE] [LOCAL_ADDR]
//! ```
//! Defaults: 127.0.0.1:4000, 10 requests of 100 bytes, from 127.0.0.2.

use bytes::Bytes;
use homa_host::{Config, Endpoint, RawIpTransport};
use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let server: SocketAddr = args.next().as_deref().unwrap_or("127.0.0.1:4000").parse()?;
    let n: usize = args.next().as_deref().unwrap_or("10").parse()?;
    let size: usize = args.next().as_deref().unwrap_or("100").parse()?;
    let local: Ipv4Addr = args.next().as_deref().unwrap_or("127.0.0.2").parse()?;
    let transport = RawIpTransport::open(local)?;
    let client = Endpoint::bind(transport, 4001, Config::default())?;
    let request = Bytes::from((0..size).map(|i| i as u8).collect::<Vec<_>>());
    let mut rtts = Vec::with_capacity(n);
    for i in 0..n {
        let start = Instant::now();
        let response = client.call(server, request.clone())?;
        let rtt = start.elapsed();
        if response != request {
            return Err(format!("request {i}: the echo differs from the request").into());
        }
        println!("request {i}: {size} B round trip {:.1} us", micros(rtt));
        rtts.push(rtt);
    }
    rtts.sort();
    if let (Some(min), Some(max)) = (rtts.first(), rtts.last()) {
        println!(
            "{n} requests: min {:.1} us, median {:.1} us, max {:.1} us",
            micros(*min),
            micros(rtts[rtts.len() / 2]),
            micros(*max)
        );
    }
    Ok(())
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}
