//! RPCs between two hosts of an otherwise idle cluster: the round trip an application sees
//! for one RPC, and the RPC rate with several outstanding, engine and (with the `rtl`
//! engine) NICs and PCIe included.

use super::{CLIENT_PORT, Cluster, ClusterConfig, ClusterError, SERVER_PORT, addr_of};
use crate::event::EventQueue;
use crate::fabric::HostId;
use crate::time::Ps;
use homa_proto::core::{Instant, Message, Request};
use std::collections::HashMap;

/// The state of an RPC run.
#[derive(Debug, Default)]
pub(super) struct Ping {
    /// The response each server sends.
    response: bytes::Bytes,
    /// The length of every request.
    request_len: usize,
    /// RPCs in flight: client id and start time.
    waiting: HashMap<u64, Ps>,
    /// Round trips of the RPCs done, in completion order.
    rtts: Vec<Ps>,
    /// When each server had the request, by client id (until the response is in).
    served: HashMap<u64, Ps>,
    /// Per RPC done: when it was called, served and done.
    log: Vec<(Ps, Ps, Ps)>,
}

/// What [`Cluster::rpcs`] measured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpcRun {
    /// Each RPC's round trip, from the client's call to the response in its engine, in
    /// completion order.
    pub rtts: Vec<Ps>,
    /// Simulated time from the first call to the last response.
    pub elapsed: Ps,
    /// Where the round trip goes, stage by stage (one RPC at a time over the `rtl` engine;
    /// empty otherwise).
    pub breakdown: Vec<super::Stage>,
}

impl Cluster {
    /// Runs `count` RPCs one after another from host 0 to host 1, with requests of
    /// `request` bytes and responses of `response` bytes, on the cluster with no other
    /// traffic, and returns each round trip.
    pub fn round_trips(
        config: ClusterConfig,
        request: u32,
        response: u32,
        count: u32,
    ) -> Result<Vec<Ps>, ClusterError> {
        Ok(Cluster::rpcs(config, request, response, count, 1)?.rtts)
    }

    /// Runs `count` RPCs from host 0 to host 1 keeping `outstanding` in flight (a new call
    /// as each response arrives), on the cluster with no other traffic. Requests and
    /// responses are checked byte for byte; a corrupted one is an error.
    pub fn rpcs(
        config: ClusterConfig,
        request: u32,
        response: u32,
        count: u32,
        outstanding: u32,
    ) -> Result<RpcRun, ClusterError> {
        let mut c = Cluster::new(config)?;
        for (field, len) in [("request", request), ("response", response)] {
            if len == 0 || len > c.config.homa.max_message_length || len as usize > c.payload.len()
            {
                return Err(ClusterError::Invalid {
                    field,
                    value: len.to_string(),
                    allowed: "1 byte up to the workload's largest message",
                });
            }
        }
        if outstanding == 0 {
            return Err(ClusterError::Invalid {
                field: "outstanding",
                value: "0".into(),
                allowed: "at least 1",
            });
        }
        // No workload: only the RPCs below.
        c.timers = EventQueue::new();
        c.trace_nics(outstanding == 1);
        c.ping = Some(Ping {
            response: c.payload.slice(..response as usize),
            request_len: request as usize,
            ..Ping::default()
        });
        let start = c.now;
        let mut called = 0;
        loop {
            let (in_flight, done) = c
                .ping
                .as_ref()
                .map_or((0, 0), |p| (p.waiting.len(), p.rtts.len()));
            if done >= count as usize {
                break;
            }
            if in_flight < outstanding as usize && called < count {
                c.call(request)?;
                called += 1;
                continue;
            }
            if !matches!(c.step(), super::Step::Ran) {
                return Err(ClusterError::Invalid {
                    field: "time_limit",
                    value: format!("{} ps", c.config.time_limit_ps),
                    allowed: "enough simulated time for every RPC",
                });
            }
        }
        if c.payload_errors > 0 {
            return Err(ClusterError::Invalid {
                field: "payload",
                value: format!("{} corrupted messages", c.payload_errors),
                allowed: "every request and response intact",
            });
        }
        let ping = c.ping.take().unwrap_or_default();
        let breakdown = if outstanding == 1 {
            c.breakdown(&ping.log)
        } else {
            Vec::new()
        };
        Ok(RpcRun {
            rtts: ping.rtts,
            elapsed: c.now - start,
            breakdown,
        })
    }

    /// Host 0 calls host 1 now.
    fn call(&mut self, request: u32) -> Result<(), ClusterError> {
        let now = Instant::from_nanos(self.now / 1_000);
        let data = self.payload.slice(..request as usize);
        let dest = std::net::SocketAddr::new(addr_of(1), SERVER_PORT);
        let id = self.hosts[0]
            .submit(now, CLIENT_PORT, dest, data)
            .map_err(|e| ClusterError::Invalid {
                field: "request",
                value: e,
                allowed: "a request the engine accepts",
            })?;
        let at = self.now;
        if let Some(p) = self.ping.as_mut() {
            p.waiting.insert(id, at);
        }
        self.drain(0, now);
        Ok(())
    }

    /// A server got a request in RPC mode: check it, answer it.
    pub(super) fn ping_request(&mut self, h: HostId, now: Instant, req: Request) {
        let Some(ping) = &self.ping else {
            return;
        };
        if !self.intact(&req.message, ping.request_len) {
            self.payload_errors += 1;
        }
        let response = ping.response.clone();
        let at = self.now;
        if let Some(p) = &mut self.ping {
            // The server's id of it is the client's with bit 0 set.
            p.served.insert(req.id ^ 1, at);
        }
        self.hosts[h].reply(now, req.peer.ip(), req.id, response);
    }

    /// A client got a response in RPC mode.
    pub(super) fn ping_response(&mut self, id: u64, message: &Message) {
        let now = self.now;
        let Some(ping) = &mut self.ping else {
            return;
        };
        if let Some(start) = ping.waiting.remove(&id) {
            ping.rtts.push(now - start);
            if let Some(served) = ping.served.remove(&id) {
                ping.log.push((start, served, now));
            }
            let len = ping.response.len();
            if !self.intact(message, len) {
                self.payload_errors += 1;
            }
        }
    }
}

impl Cluster {
    /// Turns the NICs' traces on or off (`rtl` engine; nothing otherwise).
    fn trace_nics(&mut self, on: bool) {
        #[cfg(homa_rtl)]
        for h in &self.hosts {
            if let super::Host::Nic(n) = h {
                n.nic().borrow_mut().set_tracing(on);
            }
        }
        let _ = on;
    }

    /// The stages of the RPCs in `log` between hosts 0 and 1 (`rtl` engine; empty
    /// otherwise).
    fn breakdown(&mut self, log: &[(Ps, Ps, Ps)]) -> Vec<super::Stage> {
        #[cfg(homa_rtl)]
        if let (super::Host::Nic(a), super::Host::Nic(b), Some(nics)) =
            (&self.hosts[0], &self.hosts[1], &self.nics)
        {
            let client = a.nic().borrow_mut().take_trace();
            let server = b.nic().borrow_mut().take_trace();
            return super::breakdown::stages(&client, &server, log, nics.timing.pcie_ps());
        }
        let _ = log;
        Vec::new()
    }
}
