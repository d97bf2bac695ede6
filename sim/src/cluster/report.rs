//! What a run measured.

use super::Cluster;
use crate::fabric::FabricStats;
use crate::stats::{BucketSummary, SIZE_RANGES};
use crate::time::SEC;
use homa_proto::wire::PacketType;

/// One message-size bucket.
#[derive(Debug, Clone, PartialEq)]
pub struct BucketRow {
    /// Largest message size in the bucket (bytes).
    pub max_bytes: u32,
    /// Messages measured.
    pub count: u64,
    /// Median slowdown.
    pub p50_slowdown: f64,
    /// 99th-percentile slowdown.
    pub p99_slowdown: f64,
    /// Mean slowdown.
    pub mean_slowdown: f64,
}

/// The result of a run.
#[derive(Debug, Clone)]
pub struct Report {
    /// Workload name.
    pub workload: String,
    /// Offered load.
    pub load: f64,
    /// Hosts simulated.
    pub hosts: usize,
    /// Messages measured (may be fewer than asked when the time limit hit).
    pub messages: u64,
    /// Messages generated in all (warm-up and traffic after the measured ones included).
    pub generated: u64,
    /// Wall-clock seconds of the run.
    pub wall_seconds: f64,
    /// Simulated seconds.
    pub simulated_seconds: f64,
    /// Simulation steps (distinct event times).
    pub steps: u64,
    /// Per-bucket slowdowns, ascending by size.
    pub buckets: Vec<BucketRow>,
    /// Slowdowns over the size ranges of [`crate::stats::SIZE_RANGES`] (`max_bytes` is the
    /// range's bound, `u32::MAX` for the last), ascending; empty ranges left out.
    pub ranges: Vec<BucketRow>,
    /// Fabric counters.
    pub fabric: FabricStats,
    /// Packets sent by all hosts, by type name.
    pub packets_by_type: Vec<(&'static str, u64)>,
    /// RPCs aborted for silence, across hosts.
    pub timeouts: u64,
    /// Messages delivered over the whole run (RPCs completed), warm-up included.
    pub completed: u64,
    /// Delivered messages whose bytes differ from what was sent (must be 0).
    pub payload_errors: u64,
    /// Bytes delivered over the run / (simulated time x hosts x host link rate): the load
    /// the network actually carried.
    pub achieved_load: f64,
    /// With the `rtl` engine: what the Verilated NICs did.
    pub nic: Option<NicReport>,
    /// With the `model-nic` engine: what the model NICs' grant decisions did.
    pub grant_nic: Option<super::GrantNicReport>,
    /// Client RPCs that failed (their engine gave up: timeout, or the server lost them).
    pub rpcs_failed: u64,
    /// Messages still in flight when the run ended (generated, neither completed nor
    /// failed): `generated = completed + rpcs_failed + in_flight`.
    pub in_flight: u64,
    /// Messages delivered to their server after their client had given up on them.
    pub late_deliveries: u64,
    /// Why the run ended before every measured message completed, if it did.
    pub stopped: Option<super::Stopped>,
    /// The training job's steps, if one ran.
    pub collective: Option<crate::collective::CollectiveReport>,
}

/// What the Verilated NICs of an `rtl` run did, summed over the hosts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NicReport {
    /// The Verilated core: `homa_nic_core_w512` or `homa_nic_core_w64`.
    pub core: String,
    /// NIC clock, MHz.
    pub clock_mhz: u32,
    /// Host-NIC latency per crossing, ns.
    pub pcie_ns: u32,
    /// Clock cycles simulated (idle NICs are not clocked).
    pub cycles: u64,
    /// Frames the NICs took from the wire.
    pub frames_in: u64,
    /// Packets the NICs passed to their hosts.
    pub to_host: u64,
    /// Frames the hardware parser accepted (RX.frames_ok).
    pub frames_ok: u64,
    /// Frames the hardware parser dropped as malformed (RX.dropped_*).
    pub frames_dropped: u64,
    /// GRANT frames the hardware built and sent (GRANT.grants_sent).
    pub grants_sent: u64,
    /// Of them, FIFO grants (GRANT.fifo_grants).
    pub fifo_grants: u64,
    /// Messages the grant generator found no slot for (GRANT.table_full).
    pub table_full: u64,
    /// DATA packets passed to the host because their table entry held another message
    /// (GRANT.collisions).
    pub collisions: u64,
    /// DATA packets that would have opened a second hole: the table counted the gap instead
    /// (GRANT.holes_forgotten).
    pub holes_forgotten: u64,
    /// Messages the hosts released in the NICs once complete (GRANT.releases).
    pub releases: u64,
    /// Messages whose grants the host engines took over (`grant_fallbacks`).
    pub grant_fallbacks: u64,
    /// Of those, the messages the NICs left ungranted for `timeout_ticks` while the policy
    /// ranked them active (`grant_fallbacks_silent`); the rest the NICs could not hold.
    pub grant_fallbacks_silent: u64,
    /// GRANTs the host engines sent in software (for those messages).
    pub software_grants: u64,
    /// Packets the hosts rebuilt from their completions that differ from `proto::wire`'s
    /// parse of the frame they came from, plus GRANT frames that did not parse (must be 0).
    pub parse_mismatches: u64,
    /// DATA payloads the hardware wrote into host RX buffers (RX.rx_data).
    pub rx_dma: u64,
    /// DATA payloads dropped for want of a posted RX buffer (RX.dropped_no_buffer).
    pub rx_no_buffer: u64,
    /// DMA accesses outside the memory the drivers allocated (must be 0).
    pub dma_faults: u64,
    /// Frames the MACs dropped, their receive FIFO full.
    pub mac_drops: u64,
    /// ACK entries past the two a `CONTROL` completion carries.
    pub acks_not_carried: u64,
    /// DATA frames the hardware built and sent (TX.packets_sent).
    pub data_frames: u64,
    /// TX descriptors the hosts posted (messages, and ranges RESENDs asked for again).
    pub tx_descriptors: u64,
    /// RETRANSMITs the hosts did not post: one of their RPC waiting or out already held the
    /// range (the receiver asked again before it was sent).
    pub retransmits_covered: u64,
    /// TX descriptors the NICs refused, or the hosts could not post (must be 0).
    pub tx_errors: u64,
    /// GRANTs for no message the transmit engines hold (TX.grants_unmatched): late or
    /// duplicated.
    pub grants_unmatched: u64,
    /// GRANTs the transmit engines' parks dropped, their lookup queues full
    /// (TX.grants_dropped).
    pub grants_dropped: u64,
    /// Parks refused because the message's entry held another (TX.park_collisions).
    pub park_collisions: u64,
    /// The most messages one NIC's park held at once (TX.parked_most, the largest).
    pub parked_most: u64,
    /// Register reads from the hosts' drivers (each a PCIe round trip the host waits for).
    pub bus_reads: u64,
    /// Register writes from the hosts' drivers (doorbells, releases, configuration).
    pub bus_writes: u64,
    /// 64-byte pushes from the hosts' drivers into on-chip TX memory (descriptors, small
    /// payloads).
    pub pushes: u64,
}

impl Report {
    /// Packets of type `name` (HomaModule's name, as in `packets_by_type`) the hosts and
    /// NICs sent.
    pub fn sent(&self, name: &str) -> u64 {
        let of = self.packets_by_type.iter().find(|(t, _)| *t == name);
        of.map_or(0, |(_, n)| *n)
    }

    /// Simulated packets per wall second (packets the hosts sent).
    pub fn packets_per_wall_second(&self) -> f64 {
        self.fabric.packets_sent as f64 / self.wall_seconds.max(1e-9)
    }
}

/// The report's rows for summaries of `stats`.
pub(crate) fn rows(summaries: Vec<BucketSummary>) -> Vec<BucketRow> {
    summaries
        .into_iter()
        .map(|b| BucketRow {
            max_bytes: b.max_bytes,
            count: b.count,
            p50_slowdown: b.p50_slowdown,
            p99_slowdown: b.p99_slowdown,
            mean_slowdown: b.mean_slowdown,
        })
        .collect()
}

pub(super) fn build(c: &Cluster, steps: u64, wall_seconds: f64, nic: Option<NicReport>) -> Report {
    let buckets = rows(c.stats.buckets());
    let grant_nic = c.grant_nic_report();
    // What the engines sent, and what the NICs built themselves (DATA, GRANT).
    let packets_by_type = PacketType::ALL
        .iter()
        .map(|t| {
            let engines: u64 = c
                .hosts
                .iter()
                .map(|h| h.engine().metrics().sent_of(*t))
                .sum();
            let nics = nic.as_ref().map_or(0, |n| match t {
                PacketType::Data => n.data_frames,
                PacketType::Grant => n.grants_sent,
                _ => 0,
            });
            let model_nics = match (t, &grant_nic) {
                (PacketType::Grant, Some(g)) => g.grants_sent,
                _ => 0,
            };
            (t.name(), engines + nics + model_nics)
        })
        .collect();
    Report {
        workload: c.config.workload.name(),
        load: c.config.load,
        hosts: c.hosts.len(),
        messages: c.measured_done,
        generated: c.generated,
        wall_seconds,
        simulated_seconds: c.now as f64 / SEC as f64,
        steps,
        buckets,
        ranges: rows(c.stats.ranges(&SIZE_RANGES)),
        fabric: c.fabric.stats(),
        packets_by_type,
        timeouts: c.hosts.iter().map(|h| h.engine().metrics().timeouts).sum(),
        payload_errors: c.payload_errors,
        completed: c.completed,
        achieved_load: {
            let fabric = c.fabric.stats();
            let capacity = c.now as f64 / SEC as f64
                * c.hosts.len() as f64
                * c.config.fabric.host_link_bps as f64;
            fabric.bytes_delivered as f64 * 8.0 / capacity.max(1.0)
        },
        nic,
        grant_nic,
        rpcs_failed: c.failed,
        in_flight: c.in_flight.len() as u64,
        late_deliveries: c.late_deliveries,
        stopped: c.stopped.clone(),
        collective: c
            .collective
            .as_ref()
            .map(crate::collective::Collective::report),
    }
}
