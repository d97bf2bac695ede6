//! Server and clients in one process over the in-memory network: an echo server on two
//! threads, and a client that makes a blocking call, then eight non-blocking ones.
//!
//! ```text
//! cargo run -p homa-host --example memnet_echo
//! ```

use bytes::Bytes;
use homa_host::{Config, Endpoint, Error, MemNetwork};
use std::net::IpAddr;
use std::time::Duration;

fn main() -> Result<(), Error> {
    let net = MemNetwork::new();
    let server_ip: IpAddr = [10, 0, 0, 1].into();
    let server = Endpoint::bind(net.attach(server_ip)?, 500, Config::default())?;
    let client = Endpoint::bind(net.attach([10, 0, 0, 2].into())?, 40_000, Config::default())?;
    let dest = server.local_addr();

    std::thread::scope(|s| -> Result<(), Error> {
        for _ in 0..2 {
            s.spawn(|| -> Result<(), Error> {
                loop {
                    let request = match server.recv_request() {
                        Ok(r) => r,
                        Err(Error::Closed { .. }) => return Ok(()),
                        Err(e) => return Err(e),
                    };
                    let payload = request.payload.clone();
                    server.reply(request.token, payload)?;
                }
            });
        }

        let response = client.call(dest, Bytes::from_static(b"hello, Homa"))?;
        println!("call: {:?}", String::from_utf8_lossy(&response));

        let handles = (0..8)
            .map(|i| client.submit(dest, Bytes::from(vec![i as u8; 10_000 * (i + 1)])))
            .collect::<Result<Vec<_>, _>>()?;
        for h in &handles {
            let response = client.wait(h, Duration::from_secs(5))?;
            println!("rpc {}: {} bytes echoed", h.id(), response.len());
        }
        server.close()
    })?;
    Ok(())
}
