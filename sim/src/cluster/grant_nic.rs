//! The NICs of the `model-nic` engine: their grant decisions alone, made by the hardware's own
//! references in place of the Verilated core. Each host's DATA packets go through
//! [`TableModel`] (the two-way message table, two received ranges per message) into
//! [`QueueReference`] (SRPT at packet granularity over every entry, `proto::policy`'s
//! decisions), which decides after each packet; its GRANTs leave the host at once (none of
//! the core's latency) at the control priority, as the core's GRANT framer sends them, and the engine hears of each (`note_offloaded_grant`) and of every
//! message the table cannot hold (`nic_not_granting`), as over the real NIC's completions.
//! Whole messages are released in the table as host-lib releases them. FIFO grants come
//! from the cluster's timer ([`GrantNic::fifo_interval_ps`]) as from the core's.

use homa_hw::grant_model::{Event, GrantConfig, Packet};
use homa_hw::grant_queue_model::{FifoConfig, QueueConfig, QueueReference};
use homa_hw::msg_table_model::{Outcome, TableModel, release_packet};
use homa_proto::core::{Config, Packet as CorePacket, Transmit};
use homa_proto::wire::{self, Body, Repr};
use std::net::{IpAddr, Ipv4Addr};

/// The message table's index bits (1,024 entries, as `homa_rx_msg_table_a10`).
const TABLE_BITS: u32 = 10;

/// What the model NICs did, summed over the hosts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GrantNicReport {
    /// GRANTs the NICs decided and sent.
    pub grants_sent: u64,
    /// Of them, FIFO grants (to the oldest message, `grant_fifo_fraction`).
    pub fifo_grants: u64,
    /// DATA packets whose two table places held other live messages.
    pub collisions: u64,
    /// DATA packets that would have opened a second hole (the table counted the gap).
    pub holes_forgotten: u64,
    /// Messages the hosts released in the NICs once complete.
    pub releases: u64,
    /// Messages whose grants the host engines took over (`grant_fallbacks`).
    pub grant_fallbacks: u64,
    /// Of those, the messages the NICs left ungranted for `timeout_ticks` while the policy
    /// ranked them active (`grant_fallbacks_silent`); the rest the NICs could not hold.
    pub grant_fallbacks_silent: u64,
    /// GRANTs the host engines sent in software (for those messages).
    pub software_grants: u64,
}

/// One host's model NIC.
#[derive(Debug)]
pub(crate) struct GrantNic {
    table: TableModel,
    queue: QueueReference,
    /// Messages of at most this many bytes are not released (one packet completes them).
    no_release_below: u32,
    /// The level GRANT frames travel at (the body carries the granted one).
    control_priority: u8,
    /// Time between FIFO grants, if any.
    fifo_interval_ps: Option<u64>,
    grants_sent: u64,
    fifo_grants: u64,
    releases: u64,
}

/// What a DATA packet did at the NIC.
pub(crate) struct DataVerdict {
    /// The NIC does not grant the packet's message (its table could not hold it).
    pub host_grants: bool,
    /// The GRANTs the NIC sends, in order.
    pub grants: Vec<Transmit>,
}

impl GrantNic {
    /// A NIC set up from the host's protocol configuration, as the driver sets the core's
    /// registers.
    pub(crate) fn new(homa: &Config) -> Self {
        let cfg = QueueConfig {
            grant: GrantConfig {
                max_overcommit: homa.max_overcommit,
                max_sched_prio: homa.max_sched_prio(),
                max_incoming: homa.max_incoming,
                window: homa.window,
            },
            max_payload: homa.max_payload(20),
            // The model decides FIFO grants when the cluster's timer says (the interval here
            // only turns them on).
            fifo: FifoConfig {
                interval: 1,
                increment: homa.fifo_grant_increment,
                priority: homa_proto::policy::fifo_grant_priority(homa.num_priorities),
            },
        };
        let fifo_ns = homa_proto::policy::fifo_interval_ns(
            homa.fifo_grant_increment,
            homa.link_mbps,
            homa.grant_fifo_fraction,
        );
        GrantNic {
            table: TableModel::new(TABLE_BITS),
            queue: QueueReference::new(cfg, 1 << TABLE_BITS),
            no_release_below: homa.max_payload(20),
            control_priority: homa.control_priority(),
            fifo_interval_ps: fifo_ns.map(|ns| ns.saturating_mul(1_000).max(1)),
            grants_sent: 0,
            fifo_grants: 0,
            releases: 0,
        }
    }

    /// A packet from `peer` reaches the NIC. Only IPv4 DATA concerns it (the table keys peers
    /// by IPv4 address; an IPv6 message is the host's to grant).
    pub(crate) fn packet(&mut self, peer: IpAddr, packet: &CorePacket) -> DataVerdict {
        let h = &packet.header;
        let Body::Data(d) = &h.body else {
            return DataVerdict {
                host_grants: false,
                grants: Vec::new(),
            };
        };
        let IpAddr::V4(peer) = peer else {
            return DataVerdict {
                host_grants: true,
                grants: Vec::new(),
            };
        };
        let end = (d.offset + packet.payload.len() as u32).min(d.message_length);
        let p = Packet {
            ev: Event {
                peer: u32::from(peer),
                id: h.sender_id,
                sport: h.sport,
                dport: h.dport,
                mac: 0,
                length: d.message_length,
                incoming: d.incoming,
                new: 0,
                end,
            },
            offset: d.offset.min(end),
        };
        let host_grants = match self.table.packet(&p) {
            Outcome::Event(at, ev) => {
                self.queue.event(at, &ev);
                false
            }
            Outcome::Collision => true,
            Outcome::DropLate => false,
        };
        DataVerdict {
            host_grants,
            grants: self.decide(),
        }
    }

    /// The host has the whole message `sender_id` from `peer` of `length` bytes: releases
    /// its entry (so an entry the table could not follow cannot hold it); any GRANTs that
    /// frees.
    pub(crate) fn release(&mut self, peer: IpAddr, sender_id: u64, length: u32) -> Vec<Transmit> {
        let IpAddr::V4(peer) = peer else {
            return Vec::new();
        };
        if length <= self.no_release_below {
            return Vec::new();
        }
        self.releases += 1;
        if let Some((at, ev)) =
            self.table
                .release(&release_packet(u32::from(peer), sender_id, length))
        {
            self.queue.event(at, &ev);
        }
        self.decide()
    }

    /// Time between FIFO grants, if the host's configuration asks for them.
    pub(crate) fn fifo_interval_ps(&self) -> Option<u64> {
        self.fifo_interval_ps
    }

    /// The FIFO timer fired: the GRANT for the oldest message that qualifies, if any.
    pub(crate) fn fifo_grant(&mut self) -> Vec<Transmit> {
        let g = self.queue.fifo_grant();
        self.fifo_grants += u64::from(g.is_some());
        self.transmits(g.into_iter().collect())
    }

    fn decide(&mut self) -> Vec<Transmit> {
        let g = self.queue.decide();
        self.transmits(g)
    }

    fn transmits(&mut self, grants: Vec<homa_hw::grant_model::Grant>) -> Vec<Transmit> {
        let grants: Vec<Transmit> = grants
            .into_iter()
            .map(|g| Transmit {
                dst: IpAddr::V4(Ipv4Addr::from(g.peer)),
                priority: self.control_priority,
                packet: CorePacket::control(Repr {
                    sport: g.sport,
                    dport: g.dport,
                    sender_id: g.id ^ 1,
                    body: Body::Grant(wire::Grant {
                        offset: g.offset,
                        priority: g.priority,
                    }),
                }),
            })
            .collect();
        self.grants_sent += grants.len() as u64;
        grants
    }

    /// (GRANTs sent, FIFO grants among them, table collisions, holes forgotten, releases).
    pub(crate) fn counts(&self) -> (u64, u64, u64, u64, u64) {
        let (holes, _, collisions) = self.table.counters;
        (
            self.grants_sent,
            self.fifo_grants,
            u64::from(collisions),
            u64::from(holes),
            self.releases,
        )
    }
}
