//! Round trips of single RPCs on an otherwise idle cluster: the latency an application sees
//! for one small RPC, engine and (with the `rtl` engine) NICs and PCIe included.

use super::{CLIENT_PORT, Cluster, ClusterConfig, ClusterError, SERVER_PORT, addr_of};
use crate::event::EventQueue;
use crate::fabric::HostId;
use crate::time::Ps;
use homa_proto::core::{Instant, Message, Request};

/// The state of a round-trip run.
#[derive(Debug, Default)]
pub(super) struct Ping {
    /// The response each server sends.
    response: bytes::Bytes,
    /// The length of every request.
    request_len: usize,
    /// The RPC in flight: its client id, and the response once it arrived intact (or not).
    waiting: Option<u64>,
    done: Option<bool>,
}

impl Cluster {
    /// Runs `count` RPCs one after another from host 0 to host 1, with requests of
    /// `request` bytes and responses of `response` bytes, on the cluster with no other
    /// traffic, and returns each round trip: from the client's call to the response in its
    /// engine.
    pub fn round_trips(
        config: ClusterConfig,
        request: u32,
        response: u32,
        count: u32,
    ) -> Result<Vec<Ps>, ClusterError> {
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
        // No workload: only the RPCs below.
        c.timers = EventQueue::new();
        c.ping = Some(Ping {
            response: c.payload.slice(..response as usize),
            request_len: request as usize,
            ..Ping::default()
        });
        let mut rtts = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let start = c.now;
            let now = Instant::from_nanos(start / 1_000);
            let data = c.payload.slice(..request as usize);
            let dest = std::net::SocketAddr::new(addr_of(1), SERVER_PORT);
            let id = c.hosts[0]
                .send_request(now, CLIENT_PORT, dest, data)
                .map_err(|e| ClusterError::Invalid {
                    field: "request",
                    value: e.to_string(),
                    allowed: "a request the engine accepts",
                })?;
            let ping = c.ping.as_mut().expect("set above");
            ping.waiting = Some(id);
            ping.done = None;
            c.drain(0, now);
            while c.ping.as_ref().is_some_and(|p| p.done.is_none()) {
                if !c.step() {
                    return Err(ClusterError::Invalid {
                        field: "time_limit",
                        value: format!("{} ps", c.config.time_limit_ps),
                        allowed: "enough time for every round trip",
                    });
                }
            }
            if c.ping.as_ref().and_then(|p| p.done) == Some(false) {
                c.payload_errors += 1;
            }
            rtts.push(c.now - start);
        }
        if c.payload_errors > 0 {
            return Err(ClusterError::Invalid {
                field: "response",
                value: format!("{} corrupted", c.payload_errors),
                allowed: "every response intact",
            });
        }
        Ok(rtts)
    }

    /// A server got a request in round-trip mode: check it, answer it.
    pub(super) fn ping_request(&mut self, h: HostId, now: Instant, req: Request) {
        let Some(ping) = &self.ping else {
            return;
        };
        let intact = req.message.len() == ping.request_len
            && req.message.chunks().iter().all(|(offset, chunk)| {
                let at = *offset as usize;
                self.payload.get(at..at + chunk.len()) == Some(&chunk[..])
            });
        if !intact {
            self.payload_errors += 1;
        }
        let response = ping.response.clone();
        let _ = self.hosts[h].send_response(now, req.peer.ip(), req.id, response);
    }

    /// A client got a response in round-trip mode.
    pub(super) fn ping_response(&mut self, id: u64, message: &Message) {
        let Some(ping) = &mut self.ping else {
            return;
        };
        if ping.waiting == Some(id) {
            ping.waiting = None;
            ping.done = Some(message.to_vec() == ping.response[..]);
        }
    }
}
