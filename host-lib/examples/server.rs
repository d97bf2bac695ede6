//! Echo server over raw IPv4 (Homa, protocol 146): answers every request with its own bytes.
//!
//! ```text
//! sudo cargo run --release -p homa-host --example server -- [ADDR] [PORT]
//! ```
//! Defaults: 127.0.0.1, port 4000. Pair it with the `client` example, which by default runs
//! on 127.0.0.2 (each endpoint needs its own address; or use two network namespaces).
//! Runs until killed; prints a line every 10,000 requests.

use homa_host::{Config, Endpoint, RawIpTransport};
use std::net::Ipv4Addr;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let addr: Ipv4Addr = args.next().as_deref().unwrap_or("127.0.0.1").parse()?;
    let port: u16 = args.next().as_deref().unwrap_or("4000").parse()?;
    let transport = RawIpTransport::open(addr)?;
    let server = Endpoint::bind(transport, port, Config::default())?;
    println!("echo server on {}", server.local_addr());
    let mut served: u64 = 0;
    loop {
        let request = server.recv_request()?;
        let payload = request.payload.clone();
        server.reply(request.token, payload)?;
        served += 1;
        if served.is_multiple_of(10_000) {
            println!("{served} requests served");
        }
    }
}
