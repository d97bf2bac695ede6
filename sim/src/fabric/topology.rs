//! Fabric shapes ([`Topology`]) and the numbering of their egress ports.
//!
//! Every unidirectional link is driven by one egress port. Ports are numbered, for `H` hosts,
//! `R` racks and `A` aggregation switches:
//! host NICs `0..H`; switch ports towards hosts `H..2H`; TOR uplinks `2H + r*A + a`;
//! aggregation downlinks `2H + R*A + a*R + r`.

use super::config::FabricError;

/// Index of a host, `0..num_hosts`.
pub type HostId = usize;

/// Largest number of hosts a topology may have.
pub const MAX_HOSTS: usize = 1 << 20;

/// The shape of the fabric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Topology {
    /// Every host on one switch: host → switch → host.
    SingleSwitch {
        /// Number of hosts.
        hosts: usize,
    },
    /// Racks of hosts under top-of-rack (TOR) switches, every TOR linked to every aggregation
    /// switch. Hosts of rack `r` are `r*hosts_per_rack .. (r+1)*hosts_per_rack`. Cross-rack
    /// packets go host → TOR → aggregation → TOR → host, the aggregation switch drawn per packet.
    TwoLevel {
        /// Number of racks (TOR switches).
        racks: usize,
        /// Hosts under each TOR.
        hosts_per_rack: usize,
        /// Number of aggregation switches.
        aggregation_switches: usize,
    },
}

impl Topology {
    /// The SIGCOMM'18 topology: 9 racks of 16 hosts and 4 aggregation switches (144 hosts).
    pub fn paper() -> Self {
        Self::TwoLevel {
            racks: 9,
            hosts_per_rack: 16,
            aggregation_switches: 4,
        }
    }

    /// Number of hosts (saturating, for unvalidated shapes).
    pub fn num_hosts(&self) -> usize {
        match *self {
            Self::SingleSwitch { hosts } => hosts,
            Self::TwoLevel {
                racks,
                hosts_per_rack,
                ..
            } => racks.saturating_mul(hosts_per_rack),
        }
    }

    /// Number of racks (1 for a single switch).
    pub fn num_racks(&self) -> usize {
        match *self {
            Self::SingleSwitch { .. } => 1,
            Self::TwoLevel { racks, .. } => racks,
        }
    }

    /// Number of aggregation switches (0 for a single switch).
    pub fn num_aggregation_switches(&self) -> usize {
        match *self {
            Self::SingleSwitch { .. } => 0,
            Self::TwoLevel {
                aggregation_switches,
                ..
            } => aggregation_switches,
        }
    }

    /// Rack of `host` (always 0 for a single switch).
    pub fn rack_of(&self, host: HostId) -> usize {
        match *self {
            Self::SingleSwitch { .. } => 0,
            Self::TwoLevel { hosts_per_rack, .. } => host / hosts_per_rack.max(1),
        }
    }

    /// True when a packet from `a` to `b` stays under one switch.
    pub fn same_rack(&self, a: HostId, b: HostId) -> bool {
        self.rack_of(a) == self.rack_of(b)
    }

    /// Checks sizes: every count at least 1 and at most [`MAX_HOSTS`] hosts in all.
    pub fn validate(&self) -> Result<(), FabricError> {
        const RANGE: &str = "1 ..= 1048576 (hosts in total at most 1048576)";
        match *self {
            Self::SingleSwitch { hosts } => {
                if hosts == 0 || hosts > MAX_HOSTS {
                    return Err(FabricError::invalid("topology.hosts", hosts, RANGE));
                }
            }
            Self::TwoLevel {
                racks,
                hosts_per_rack,
                aggregation_switches,
            } => {
                for (field, n) in [
                    ("topology.racks", racks),
                    ("topology.hosts_per_rack", hosts_per_rack),
                    ("topology.aggregation_switches", aggregation_switches),
                ] {
                    if n == 0 || n > MAX_HOSTS {
                        return Err(FabricError::invalid(field, n, RANGE));
                    }
                }
                if racks.saturating_mul(hosts_per_rack) > MAX_HOSTS {
                    return Err(FabricError::invalid(
                        "topology.racks * topology.hosts_per_rack",
                        racks.saturating_mul(hosts_per_rack),
                        RANGE,
                    ));
                }
                if racks.saturating_mul(aggregation_switches) > MAX_HOSTS {
                    return Err(FabricError::invalid(
                        "topology.racks * topology.aggregation_switches",
                        racks.saturating_mul(aggregation_switches),
                        "1 ..= 1048576 core links per direction",
                    ));
                }
            }
        }
        Ok(())
    }
}

/// What an egress port drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PortKind {
    /// A host's NIC, towards its switch.
    HostNic {
        /// The sending host.
        host: HostId,
    },
    /// A TOR (or the single switch) towards one of its hosts.
    ToHost {
        /// The receiving host.
        host: HostId,
    },
    /// A TOR towards an aggregation switch.
    TorUp {
        /// The TOR's rack.
        rack: usize,
        /// The aggregation switch.
        agg: usize,
    },
    /// An aggregation switch towards a TOR.
    AggDown {
        /// The aggregation switch.
        agg: usize,
        /// The TOR's rack.
        rack: usize,
    },
}

/// Port numbering of a validated topology (see the module doc).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layout {
    pub hosts: usize,
    pub racks: usize,
    pub aggs: usize,
    pub hosts_per_rack: usize,
}

impl Layout {
    pub fn new(t: &Topology) -> Self {
        Self {
            hosts: t.num_hosts(),
            racks: t.num_racks(),
            aggs: t.num_aggregation_switches(),
            hosts_per_rack: match *t {
                Topology::SingleSwitch { hosts } => hosts,
                Topology::TwoLevel { hosts_per_rack, .. } => hosts_per_rack,
            },
        }
    }

    pub fn num_ports(&self) -> usize {
        2 * self.hosts + 2 * self.racks * self.aggs
    }

    pub fn rack_of(&self, host: HostId) -> usize {
        host / self.hosts_per_rack.max(1)
    }

    pub fn host_nic(&self, host: HostId) -> usize {
        host
    }

    pub fn toward_host(&self, host: HostId) -> usize {
        self.hosts + host
    }

    pub fn tor_up(&self, rack: usize, agg: usize) -> usize {
        2 * self.hosts + rack * self.aggs + agg
    }

    pub fn agg_down(&self, agg: usize, rack: usize) -> usize {
        2 * self.hosts + self.racks * self.aggs + agg * self.racks + rack
    }

    pub fn kind(&self, port: usize) -> PortKind {
        let h = self.hosts;
        let ups = self.racks * self.aggs;
        if port < h {
            PortKind::HostNic { host: port }
        } else if port < 2 * h {
            PortKind::ToHost { host: port - h }
        } else if port < 2 * h + ups {
            let i = port - 2 * h;
            PortKind::TorUp {
                rack: i / self.aggs,
                agg: i % self.aggs,
            }
        } else {
            let i = port - 2 * h - ups;
            PortKind::AggDown {
                agg: i / self.racks,
                rack: i % self.racks,
            }
        }
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn paper__has_144_hosts_in_9_racks() {
        let t = Topology::paper();
        assert_eq!(t.num_hosts(), 144);
        assert_eq!(t.num_racks(), 9);
        assert_eq!(t.num_aggregation_switches(), 4);
        assert_eq!(t.rack_of(15), 0);
        assert_eq!(t.rack_of(16), 1);
        assert!(t.same_rack(16, 31));
        assert!(!t.same_rack(15, 16));
        assert_eq!(t.validate(), Ok(()));
    }

    #[test]
    fn validate__rejects_zero_and_oversized_shapes() {
        let bad = [
            Topology::SingleSwitch { hosts: 0 },
            Topology::TwoLevel {
                racks: 0,
                hosts_per_rack: 1,
                aggregation_switches: 1,
            },
            Topology::TwoLevel {
                racks: 1,
                hosts_per_rack: 1,
                aggregation_switches: 0,
            },
            Topology::TwoLevel {
                racks: usize::MAX,
                hosts_per_rack: usize::MAX,
                aggregation_switches: 1,
            },
            Topology::TwoLevel {
                racks: 2048,
                hosts_per_rack: 1024,
                aggregation_switches: 1,
            },
        ];
        for t in bad {
            let err = t.validate().unwrap_err().to_string();
            assert!(err.contains("topology."), "{err}");
        }
    }

    #[test]
    fn layout__numbers_every_port_once() {
        let t = Topology::TwoLevel {
            racks: 3,
            hosts_per_rack: 2,
            aggregation_switches: 2,
        };
        let l = Layout::new(&t);
        assert_eq!(l.num_ports(), 2 * 6 + 2 * 6);
        let mut seen = vec![false; l.num_ports()];
        for h in 0..6 {
            assert_eq!(l.kind(l.host_nic(h)), PortKind::HostNic { host: h });
            assert_eq!(l.kind(l.toward_host(h)), PortKind::ToHost { host: h });
            seen[l.host_nic(h)] = true;
            seen[l.toward_host(h)] = true;
        }
        for r in 0..3 {
            for a in 0..2 {
                assert_eq!(l.kind(l.tor_up(r, a)), PortKind::TorUp { rack: r, agg: a });
                assert_eq!(
                    l.kind(l.agg_down(a, r)),
                    PortKind::AggDown { agg: a, rack: r }
                );
                seen[l.tor_up(r, a)] = true;
                seen[l.agg_down(a, r)] = true;
            }
        }
        assert!(seen.iter().all(|&s| s));
    }
}
