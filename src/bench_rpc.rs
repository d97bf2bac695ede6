//! `homa-nic bench rpc` on the host: round trips and rates of the RPC library over the
//! in-process network and raw IP, each way of driving the endpoint, beside a plain UDP
//! socket ping-pong measured in the same run (the kernel's floor on this machine).

use anyhow::{Context, Result};
use bytes::Bytes;
use homa_host::{Drive, Endpoint, Options, Transport};
use serde::Serialize;
use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What one measurement gives.
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct Measured {
    pub p50_ns: u64,
    pub p99_ns: u64,
    pub rate_per_s: f64,
}

impl Measured {
    fn line(&self, name: &str, what: &str) -> String {
        format!(
            "{name:<28} {what}: round trip median {:>7.1} us, p99 {:>7.1} us (p99/median {:.1}); {:>8.0} RPCs/s",
            self.p50_ns as f64 / 1e3,
            self.p99_ns as f64 / 1e3,
            self.p99_ns as f64 / self.p50_ns.max(1) as f64,
            self.rate_per_s
        )
    }
}

/// The ways of driving an endpoint that `bench rpc` compares.
pub(crate) const MODES: [(&str, Options); 3] = [
    (
        "I/O thread",
        Options {
            drive: Drive::Thread,
            busy_poll: false,
        },
    ),
    (
        "caller drives",
        Options {
            drive: Drive::Caller,
            busy_poll: false,
        },
    ),
    (
        "caller drives, busy-poll",
        Options {
            drive: Drive::Caller,
            busy_poll: true,
        },
    ),
];

/// The parameters of `bench rpc`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RpcRun {
    pub rpcs: usize,
    pub size: usize,
    pub outstanding: usize,
    pub rate_rpcs: usize,
}

impl RpcRun {
    /// Runs an echo server on `server` and measures a client on `client`, both driven as
    /// `options` say.
    pub(crate) fn measure(
        &self,
        name: &str,
        options: Options,
        server: impl Transport,
        client: impl Transport,
    ) -> Result<Measured> {
        let config = homa_host::Config::default();
        let server = Arc::new(Endpoint::bind_with(server, 4000, config.clone(), options)?);
        let serving = {
            let server = Arc::clone(&server);
            std::thread::spawn(move || -> homa_host::Result<()> {
                loop {
                    let request = match server.recv_request() {
                        Ok(r) => r,
                        Err(homa_host::Error::Closed { .. }) => return Ok(()),
                        Err(e) => return Err(e),
                    };
                    let payload = request.payload.clone();
                    server.reply(request.token, payload)?;
                }
            })
        };
        let client = Endpoint::bind_with(client, 4001, config, options)?;
        let dest = server.local_addr();
        let request = Bytes::from(vec![0x5a; self.size.max(1)]);
        let result = self
            .ping_pong(&client, dest, &request)
            .and_then(|(p50, p99)| {
                Ok(Measured {
                    p50_ns: p50,
                    p99_ns: p99,
                    rate_per_s: self.rate(&client, dest, &request)?,
                })
            });
        server.close()?;
        match serving.join() {
            Ok(served) => served?,
            Err(_) => anyhow::bail!("{name}: the echo server thread panicked"),
        }
        result
    }

    /// Round trips of one RPC at a time; returns (median, p99) in nanoseconds.
    fn ping_pong(
        &self,
        client: &Endpoint,
        dest: SocketAddr,
        request: &Bytes,
    ) -> Result<(u64, u64)> {
        for _ in 0..self.rpcs.min(200) {
            client.call(dest, request.clone())?;
        }
        let mut rtts = Vec::with_capacity(self.rpcs);
        for _ in 0..self.rpcs.max(1) {
            let start = Instant::now();
            let response = client.call(dest, request.clone())?;
            rtts.push(nanos(start.elapsed()));
            anyhow::ensure!(response == *request, "the echo differs from the request");
        }
        Ok(percentiles(&mut rtts))
    }

    /// Completed RPCs per second with `outstanding` in flight.
    fn rate(&self, client: &Endpoint, dest: SocketAddr, request: &Bytes) -> Result<f64> {
        let total = self.rate_rpcs.max(1);
        let mut window = std::collections::VecDeque::with_capacity(self.outstanding);
        let (mut submitted, mut done) = (0, 0);
        let start = Instant::now();
        while done < total {
            while window.len() < self.outstanding && submitted < total {
                window.push_back(client.submit(dest, request.clone())?);
                submitted += 1;
            }
            if let Some(h) = window.pop_front() {
                client.wait(&h, Duration::from_secs(10))?;
                done += 1;
            }
        }
        Ok(total as f64 / start.elapsed().as_secs_f64())
    }

    /// A plain UDP ping-pong on loopback between two threads, and the rate with
    /// `outstanding` datagrams in flight: what the kernel costs on this machine. Blocking
    /// sockets (each side sleeps in `recv`), or with `busy` non-blocking ones that both
    /// threads spin on, as a busy-polling endpoint does.
    pub(crate) fn udp(&self, busy: bool) -> Result<Measured> {
        let server = UdpSocket::bind("127.0.0.1:0").context("bind a UDP socket on loopback")?;
        let client = UdpSocket::bind("127.0.0.1:0").context("bind a UDP socket on loopback")?;
        let server_addr = server.local_addr()?;
        client.connect(server_addr)?;
        client.set_read_timeout(Some(UDP_WAIT))?;
        server.set_nonblocking(busy)?;
        client.set_nonblocking(busy)?;
        let echo = std::thread::spawn(move || -> std::io::Result<()> {
            let mut buf = [0u8; 65_536];
            loop {
                let (n, from) = recv_spin(&server, &mut buf)?;
                if n == 0 {
                    return Ok(());
                }
                server.send_to(&buf[..n], from)?;
            }
        });
        let request = vec![0x5a; self.size.clamp(1, 65_000)];
        let mut buf = vec![0u8; 65_536];
        let mut round_trip = |client: &UdpSocket| -> Result<()> {
            client.send(&request)?;
            let (n, _) = recv_spin(client, &mut buf).context("UDP echo (lost on loopback?)")?;
            anyhow::ensure!(n == request.len(), "the UDP echo differs from the request");
            Ok(())
        };
        for _ in 0..self.rpcs.min(200) {
            round_trip(&client)?;
        }
        let mut rtts = Vec::with_capacity(self.rpcs);
        for _ in 0..self.rpcs.max(1) {
            let start = Instant::now();
            round_trip(&client)?;
            rtts.push(nanos(start.elapsed()));
        }
        let (p50, p99) = percentiles(&mut rtts);
        let total = self.rate_rpcs.max(1);
        let window = self.outstanding.min(64);
        let start = Instant::now();
        let mut in_flight = 0;
        let mut sent = 0;
        let mut done = 0;
        while done < total {
            while in_flight < window && sent < total {
                client.send(&request)?;
                in_flight += 1;
                sent += 1;
            }
            recv_spin(&client, &mut buf).context("UDP echo (lost on loopback?)")?;
            in_flight -= 1;
            done += 1;
        }
        let rate = total as f64 / start.elapsed().as_secs_f64();
        client.send(&[])?;
        match echo.join() {
            Ok(r) => r.context("UDP echo thread")?,
            Err(_) => anyhow::bail!("the UDP echo thread panicked"),
        }
        Ok(Measured {
            p50_ns: p50,
            p99_ns: p99,
            rate_per_s: rate,
        })
    }

    /// Prints one measured line.
    pub(crate) fn print(&self, name: &str, m: &Measured) {
        println!("{}", m.line(name, &format!("{} B", self.size.max(1))));
    }
}

/// How long a UDP ping-pong waits for a datagram before it gives up.
const UDP_WAIT: Duration = Duration::from_secs(5);

/// Receives a datagram on `s`: blocking as the socket is, or spinning on a non-blocking one
/// for up to [`UDP_WAIT`].
fn recv_spin(s: &UdpSocket, buf: &mut [u8]) -> std::io::Result<(usize, SocketAddr)> {
    let deadline = Instant::now() + UDP_WAIT;
    loop {
        match s.recv_from(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if Instant::now() > deadline {
                    return Err(std::io::ErrorKind::TimedOut.into());
                }
                std::hint::spin_loop();
            }
            other => return other,
        }
    }
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// (median, p99) of `v`, which must not be empty.
fn percentiles(v: &mut [u64]) -> (u64, u64) {
    v.sort_unstable();
    let p99 = v[(v.len() * 99 / 100).min(v.len() - 1)];
    (v[v.len() / 2], p99)
}
