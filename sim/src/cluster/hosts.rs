//! A host of the cluster: a bare `proto::core` engine on the fabric (`Engine::Model`), or the
//! host stack applications link over a Verilated NIC (`Engine::Rtl`, [`crate::nic::NicHost`]).

use homa_proto::core::{Endpoint, Instant, SendError};
use std::net::{IpAddr, SocketAddr};

/// One host (see the module notes).
// The bare engine is the model engine's hot path, 144 of them at a time: kept inline.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(crate) enum Host {
    /// The engine alone: the cluster moves its packets.
    Bare(Endpoint),
    /// `homa_host`'s endpoint over the driver over the NIC.
    #[cfg(homa_rtl)]
    Nic(Box<crate::nic::NicHost>),
}

impl Host {
    /// The protocol engine, to look at.
    pub(crate) fn engine(&self) -> &Endpoint {
        match self {
            Host::Bare(e) => e,
            #[cfg(homa_rtl)]
            Host::Nic(n) => n.core_ref().engine(),
        }
    }

    /// The protocol engine, to set up before the run (peers' cutoffs).
    pub(crate) fn engine_mut(&mut self) -> &mut Endpoint {
        match self {
            Host::Bare(e) => e,
            #[cfg(homa_rtl)]
            Host::Nic(n) => n.core().engine_mut(),
        }
    }

    /// Starts an RPC from `port` (the bare engine's; a NIC host sends from its endpoint's
    /// port) to `dest`; its client id.
    pub(crate) fn submit(
        &mut self,
        now: Instant,
        port: u16,
        dest: SocketAddr,
        data: bytes::Bytes,
    ) -> Result<u64, String> {
        match self {
            Host::Bare(e) => e
                .send_request(now, port, dest, data)
                .map_err(|e: SendError| e.to_string()),
            #[cfg(homa_rtl)]
            Host::Nic(n) => n.core().submit(dest, data).map_err(|e| e.to_string()),
        }
    }

    /// Abandons client RPC `id`.
    pub(crate) fn cancel(&mut self, id: u64) {
        match self {
            Host::Bare(e) => {
                e.cancel(id);
            }
            #[cfg(homa_rtl)]
            Host::Nic(n) => {
                n.core().cancel(id);
            }
        }
    }

    /// Until when the host waits for a register read's answer, ps (0: it is free). A bare
    /// engine never waits.
    pub(crate) fn busy_until(&self) -> crate::time::Ps {
        match self {
            Host::Bare(_) => 0,
            #[cfg(homa_rtl)]
            Host::Nic(n) => n.busy_until(),
        }
    }

    /// Forgets request `id` from `peer` without answering it.
    pub(crate) fn discard_request(&mut self, peer: IpAddr, id: u64) {
        match self {
            Host::Bare(e) => {
                e.discard_request(peer, id);
            }
            #[cfg(homa_rtl)]
            Host::Nic(n) => {
                n.core().discard_request(peer, id);
            }
        }
    }

    /// Answers request `id` from `peer`.
    pub(crate) fn reply(&mut self, now: Instant, peer: IpAddr, id: u64, response: bytes::Bytes) {
        match self {
            Host::Bare(e) => {
                let _ = e.send_response(now, peer, id, response);
            }
            #[cfg(homa_rtl)]
            Host::Nic(n) => {
                let _ = n.core().reply(peer, id, response);
            }
        }
    }
}
