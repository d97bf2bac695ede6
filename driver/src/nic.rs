//! [`Nic`]: the init sequence and the datapath calls over any [`Device`]; [`Probe`]: the
//! read-only part (enumerate the register blocks, check the ID block), which
//! `homa-nic probe` uses on its own.

use crate::ring::{CompletionRing, RingRegs, RxBufRing, TxRing};
use crate::ring_reads::InFlight;
use crate::{Device, DmaRegion, DriverError, Result};
use homa_proto::core::Config;
use homa_proto::hostif::{Completion, RxBufDescriptor, TxDescriptor, TxLimits, onchip};
use homa_proto::policy;
use homa_proto::regs::{BLOCKS, Block, NIC_ID, Register, block, header, ring};
use homa_proto::wire::MAX_MESSAGE_LENGTH;
use std::net::Ipv4Addr;

/// Bytes of an IPv4 header without options (the NIC builds no others).
const IPV4_HEADER_LEN: u32 = homa_proto::wire::field::ipv4::HEADER_LEN as u32;

/// The most payload a DATA packet can carry: an IPv4 datagram of 65,535 bytes less its header
/// and the DATA header.
const MAX_PAYLOAD: u32 =
    65_535 - IPV4_HEADER_LEN - homa_proto::wire::field::homa::DATA_HEADER_LEN as u32;

/// A register block found on the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FoundBlock {
    /// Its BAR0 offset.
    pub offset: u32,
    /// Its `type` word.
    pub type_id: u32,
    /// Its `version` word (major << 16 | minor).
    pub version: u32,
    /// Its `next` word.
    pub next: u32,
    /// Its definition in `proto::regs`, or `None` for a type this driver does not know
    /// (skipped: newer bitstreams may add blocks).
    pub def: Option<&'static Block>,
}

impl FoundBlock {
    /// The block's name, or "unknown".
    pub fn name(&self) -> &'static str {
        self.def.map_or("unknown", |b| b.name)
    }
}

/// The ID block's registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdBlock {
    /// "HOMA".
    pub nic_id: u32,
    /// Firmware version, major in bits 15-8.
    pub fw_version: u32,
    /// Low 32 bits of the bitstream's git commit.
    pub git_hash: u32,
    /// Build time, seconds since 1970.
    pub build_date: u32,
    /// Blocks present (bit 0 RX parser, bit 1 grants, bit 2 TX scheduler).
    pub capabilities: u32,
    /// Datapath width in bits.
    pub data_width: u32,
    /// Core clock in MHz (0 if the device does not say).
    pub clock_mhz: u32,
}

/// What the driver learns before touching anything: the block chain and the ID block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// The device's name.
    pub device: String,
    /// Every block, in chain order (ID first).
    pub blocks: Vec<FoundBlock>,
    /// The ID block.
    pub id: IdBlock,
}

fn lookup(b: &'static Block, register: &str) -> Result<&'static Register> {
    b.register(register)
        .ok_or_else(|| DriverError::LookupRegister {
            block: b.name,
            register: register.to_string(),
        })
}

fn table(name: &'static str) -> Result<&'static Block> {
    block(name).ok_or_else(|| DriverError::LookupRegister {
        block: name,
        register: String::new(),
    })
}

impl Probe {
    /// Checks the ID block at offset 0 (type and `nic_id`), then walks the `next` chain
    /// (Corundum's layout, proto::regs): every header must lie in BAR0, 4-byte aligned,
    /// without loops; every known block must have the major version of `proto::regs`.
    pub fn run(dev: &impl Device) -> Result<Probe> {
        let device = dev.name().to_string();
        let id_def = table("ID")?;
        // ID block at 0 first: on anything else the chain is not worth walking.
        let type_id = dev.read32(header::TYPE)?;
        let nic_id = dev.read32(lookup(id_def, "nic_id")?.offset)?;
        if type_id != id_def.type_id || nic_id != NIC_ID {
            return Err(DriverError::CheckNicId {
                device,
                type_id,
                nic_id,
            });
        }
        let blocks = walk(dev)?;
        let id_reg = |name: &str| -> Result<u32> { dev.read32(lookup(id_def, name)?.offset) };
        let id = IdBlock {
            nic_id,
            fw_version: id_reg("fw_version")?,
            git_hash: id_reg("git_hash")?,
            build_date: id_reg("build_date")?,
            capabilities: id_reg("capabilities")?,
            data_width: id_reg("data_width")?,
            clock_mhz: id_reg("clock_mhz").unwrap_or(0),
        };
        Ok(Probe { device, blocks, id })
    }

    /// The block called `name` and its offset, or an error naming what the bitstream lacks.
    pub fn require(&self, name: &'static str) -> Result<(&'static Block, u32)> {
        self.blocks
            .iter()
            .find_map(|b| b.def.filter(|d| d.name == name).map(|d| (d, b.offset)))
            .ok_or_else(|| DriverError::FindRegisterBlock {
                device: self.device.clone(),
                block: name,
            })
    }

    /// The BAR0 offset of `block.register` on this device.
    pub fn address(&self, block: &'static str, register: &str) -> Result<u32> {
        let (def, base) = self.require(block)?;
        Ok(base + lookup(def, register)?.offset)
    }
}

/// Follows the `next` pointers from offset 0.
fn walk(dev: &impl Device) -> Result<Vec<FoundBlock>> {
    let bar_len = dev.bar_len();
    let broken = |offset: u32, reason: &str| DriverError::WalkRegisterBlocks {
        device: dev.name().to_string(),
        offset,
        reason: reason.to_string(),
    };
    let mut blocks: Vec<FoundBlock> = Vec::new();
    let mut at = 0u32;
    loop {
        if !at.is_multiple_of(4)
            || at
                .checked_add(header::FIRST)
                .is_none_or(|end| end > bar_len)
        {
            return Err(broken(at, "a block header outside BAR0 or misaligned"));
        }
        if blocks.iter().any(|b| b.offset == at) {
            return Err(broken(at, "the next pointers loop"));
        }
        let type_id = dev.read32(at + header::TYPE)?;
        let version = dev.read32(at + header::VERSION)?;
        let next = dev.read32(at + header::NEXT)?;
        let def = BLOCKS.iter().find(|b| b.type_id == type_id);
        if let Some(d) = def
            && (version >> 16) as u16 != d.major()
        {
            return Err(DriverError::CheckBlockVersion {
                device: dev.name().to_string(),
                block: d.name,
                major: (version >> 16) as u16,
                minor: version as u16,
                supported: d.major(),
            });
        }
        blocks.push(FoundBlock {
            offset: at,
            type_id,
            version,
            next,
            def,
        });
        if next == 0 {
            return Ok(blocks);
        }
        at = next;
    }
}

/// One register's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegisterValue {
    /// Its block.
    pub block: &'static str,
    /// Its definition.
    pub register: &'static Register,
    /// Its BAR0 offset on this device.
    pub address: u32,
    /// What it read.
    pub value: u32,
}

/// Reads every register of every known block of `probe` (registers only; reads have no
/// side effects in this map).
pub fn read_registers(dev: &impl Device, probe: &Probe) -> Result<Vec<RegisterValue>> {
    let mut out = Vec::new();
    for b in &probe.blocks {
        let Some(def) = b.def else { continue };
        for r in def.registers {
            let address = b.offset + r.offset;
            out.push(RegisterValue {
                block: def.name,
                register: r,
                address,
                value: dev.read32(address)?,
            });
        }
    }
    Ok(out)
}

/// Bits of CONFIG.enable.
pub mod enable {
    /// Receive.
    pub const RX: u32 = 1 << 0;
    /// Transmit.
    pub const TX: u32 = 1 << 1;
    /// Grants generated by the NIC.
    pub const GRANTS: u32 = 1 << 2;
}

/// The CONFIG block's values, as the init sequence programs them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NicConfig {
    /// Unscheduled bytes per message (rtt_bytes).
    pub unsched_bytes: u32,
    /// Grant window; 0 = dynamic.
    pub window: u32,
    /// Limit on granted-but-unreceived bytes.
    pub max_incoming: u32,
    /// Overcommitment degree (1-8).
    pub max_overcommit: u32,
    /// Priority levels (1-8).
    pub num_priorities: u32,
    /// Version of the cutoffs (1-65535).
    pub cutoff_version: u32,
    /// Unscheduled priority cutoffs.
    pub unsched_cutoffs: [u32; 8],
    /// Link speed, Mb/s.
    pub link_mbps: u32,
    /// Local MAC address.
    pub mac: [u8; 6],
    /// The next hop's MAC address: where the NIC sends the GRANTs it builds.
    pub gateway_mac: [u8; 6],
    /// Local IPv4 address.
    pub ipv4: Ipv4Addr,
    /// Most payload bytes per DATA packet the NIC builds (TX `max_payload`, 1-65459): the
    /// link MTU less the IPv4 and DATA headers.
    pub max_payload: u32,
    /// CONFIG.enable bits set at the end of init ([`enable`]).
    pub enable: u32,
    /// Share of the link (per mille, 0-500) the NIC grants to the oldest message that needs
    /// grants; 0 = no FIFO grants.
    pub grant_fifo_fraction: u32,
    /// Bytes of each FIFO grant.
    pub fifo_grant_increment: u32,
}

impl From<&Config> for NicConfig {
    /// The engine's parameters; MACs and IPv4 unset; receive, transmit and grants enabled.
    fn from(c: &Config) -> NicConfig {
        NicConfig {
            unsched_bytes: c.unsched_bytes,
            window: c.window,
            max_incoming: c.max_incoming,
            max_overcommit: u32::from(c.max_overcommit),
            num_priorities: u32::from(c.num_priorities),
            cutoff_version: u32::from(c.cutoff_version),
            unsched_cutoffs: c.unsched_cutoffs,
            link_mbps: c.link_mbps,
            mac: [0; 6],
            gateway_mac: [0; 6],
            ipv4: Ipv4Addr::UNSPECIFIED,
            max_payload: c.max_payload(IPV4_HEADER_LEN),
            enable: enable::RX | enable::TX | enable::GRANTS,
            grant_fifo_fraction: c.grant_fifo_fraction,
            fifo_grant_increment: c.fifo_grant_increment,
        }
    }
}

impl Default for NicConfig {
    fn default() -> Self {
        NicConfig::from(&Config::default())
    }
}

impl NicConfig {
    /// The CONFIG registers to write, by name, after range checks: the values the init
    /// sequence programs (also used by the simulated cluster to program Verilated NICs).
    pub fn registers(&self) -> Result<Vec<(String, u32)>> {
        let check = |field: &'static str, value: u32, ok: bool, reason: &'static str| {
            if ok {
                Ok(())
            } else {
                Err(DriverError::ConfigureNic {
                    field,
                    value: u64::from(value),
                    reason,
                })
            }
        };
        let o = self.max_overcommit;
        check("max_overcommit", o, (1..=8).contains(&o), "must be 1-8")?;
        let p = self.num_priorities;
        check("num_priorities", p, (1..=8).contains(&p), "must be 1-8")?;
        let v = self.cutoff_version;
        check(
            "cutoff_version",
            v,
            (1..=65535).contains(&v),
            "must be 1-65535",
        )?;
        let mp = self.max_payload;
        check(
            "max_payload",
            mp,
            (1..=MAX_PAYLOAD).contains(&mp),
            "must be 1-65459 (an IPv4 datagram less the DATA header)",
        )?;
        let e = self.enable;
        let known = enable::RX | enable::TX | enable::GRANTS;
        check(
            "enable",
            e,
            e & !known == 0,
            "has bits beyond rx, tx, grants",
        )?;
        let f = self.grant_fifo_fraction;
        check(
            "grant_fifo_fraction",
            f,
            f <= 500,
            "must be 0-500 (per mille)",
        )?;
        let m = self.mac;
        let mut regs = vec![
            ("unsched_bytes".to_string(), self.unsched_bytes),
            ("window".to_string(), self.window),
            ("max_incoming".to_string(), self.max_incoming),
            ("max_overcommit".to_string(), o),
            ("num_priorities".to_string(), p),
            ("cutoff_version".to_string(), v),
            ("link_mbps".to_string(), self.link_mbps),
            (
                "mac_addr_lo".to_string(),
                u32::from_be_bytes([m[2], m[3], m[4], m[5]]),
            ),
            (
                "mac_addr_hi".to_string(),
                u32::from(u16::from_be_bytes([m[0], m[1]])),
            ),
            ("ipv4_addr".to_string(), u32::from(self.ipv4)),
        ];
        for (i, c) in self.unsched_cutoffs.iter().enumerate() {
            regs.push((format!("unsched_cutoff_{i}"), *c));
        }
        // What the hardware takes precomputed: the window for each number of active
        // messages, and the highest scheduled level the cutoffs leave.
        for n in 0..=8 {
            let w = policy::window(self.window, self.max_incoming, n);
            regs.push((format!("window_n{n}"), w));
        }
        let prio = policy::max_sched_priority(&self.unsched_cutoffs, MAX_MESSAGE_LENGTH);
        regs.push(("max_sched_prio".to_string(), u32::from(prio)));
        // FIFO grants at the level below the control packets' (`fifo_grant_interval`, in
        // the core's clock, is written by `Nic::init`, which reads the clock).
        regs.push((
            "fifo_grant_increment".to_string(),
            self.fifo_grant_increment,
        ));
        // (`p` is 1-8, checked above.)
        let fifo_prio = policy::fifo_grant_priority(u8::try_from(p).unwrap_or(u8::MAX));
        regs.push(("fifo_grant_prio".to_string(), u32::from(fifo_prio)));
        let g = self.gateway_mac;
        regs.push((
            "gw_mac_lo".to_string(),
            u32::from_be_bytes([g[2], g[3], g[4], g[5]]),
        ));
        regs.push((
            "gw_mac_hi".to_string(),
            u32::from(u16::from_be_bytes([g[0], g[1]])),
        ));
        Ok(regs)
    }
}

/// Ring sizes (log2 of the entry count, 1-16) and RX buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RingSizes {
    /// TX descriptor ring.
    pub tx_log2: u8,
    /// RX buffer ring; this many buffers are allocated and posted.
    pub rx_log2: u8,
    /// Completion ring; make it at least as large as the other two together.
    pub cq_log2: u8,
    /// Bytes per RX buffer (a positive multiple of 64).
    pub rx_buffer_len: u32,
    /// Put the TX ring in the NIC's on-chip memory when it has some (QUEUE
    /// `tx_onchip_bytes`) and the ring fits it (`tx_log2` at most 6): descriptors are pushed
    /// through BAR0, and the NIC fetches none over PCIe.
    pub tx_onchip: bool,
}

impl Default for RingSizes {
    fn default() -> Self {
        RingSizes {
            tx_log2: 8,
            rx_log2: 8,
            cq_log2: 10,
            rx_buffer_len: 4096,
            tx_onchip: true,
        }
    }
}

/// A NIC brought up and ready: its rings set up, RX buffers posted, CONFIG programmed.
#[derive(Debug)]
pub struct Nic<D: Device> {
    dev: D,
    probe: Probe,
    pub(crate) tx: TxRing,
    pub(crate) rx: RxBufRing,
    cq: CompletionRing,
    rx_pool: DmaRegion,
    rx_buffer_len: u32,
    rx_count: u32,
    /// The ring indices of the RX buffers in the ring, by buffer id, and of the TX
    /// descriptors that will complete, by cookie: the completions tell the NIC's progress
    /// through the rings (see `ring_reads`).
    pub(crate) rx_in_flight: InFlight,
    pub(crate) tx_in_flight: InFlight,
    onchip_bytes: u32,
    max_payload: u32,
}

impl<D: Device> Nic<D> {
    /// The init sequence; each step names the registers it uses.
    pub fn init(dev: D, config: &NicConfig, sizes: &RingSizes) -> Result<Nic<D>> {
        // 1. ID block and block chain (every block: type, version, next).
        let probe = Probe::run(&dev)?;
        let (queue, queue_base) = probe.require("QUEUE")?;
        let enable_reg = probe.address("CONFIG", "enable")?;
        let config_regs = config.registers()?;
        let fifo = policy::fifo_interval_cycles(
            config.fifo_grant_increment,
            config.link_mbps,
            config.grant_fifo_fraction,
            probe.id.clock_mhz,
        );
        if probe.id.clock_mhz == 0 && fifo != 0 {
            return Err(DriverError::ConfigureNic {
                field: "grant_fifo_fraction",
                value: u64::from(config.grant_fifo_fraction),
                reason: "must be 0: the device does not report its clock (ID clock_mhz), so \
                         FIFO grants cannot be timed",
            });
        }
        let len = sizes.rx_buffer_len;
        if len == 0 || !len.is_multiple_of(64) {
            return Err(DriverError::ConfigureNic {
                field: "rx_buffer_len",
                value: u64::from(len),
                reason: "must be a positive multiple of 64",
            });
        }

        // 2. CONFIG.enable = 0: nothing moves while the rest is programmed.
        dev.write32(enable_reg, 0)?;

        // 3. CONFIG: protocol parameters.
        for (name, value) in &config_regs {
            dev.write32(probe.address("CONFIG", name)?, *value)?;
        }

        // 3a. CONFIG.fifo_grant_interval: FIFO grants in cycles of the core's clock (ID).
        dev.write32(probe.address("CONFIG", "fifo_grant_interval")?, fifo)?;

        // 3b. TX: the most payload per DATA packet (TX version 1.1 on).
        if let Ok(at) = probe.address("TX", "max_payload") {
            dev.write32(at, config.max_payload)?;
        }

        // 4. QUEUE: completion ring first, so the NIC can report on the others.
        let cq = CompletionRing::new(
            &dev,
            RingRegs::resolve(queue, queue_base, ring::CQ)?,
            sizes.cq_log2,
        )?;
        let mut rx = RxBufRing::new(
            &dev,
            RingRegs::resolve(queue, queue_base, ring::RX)?,
            sizes.rx_log2,
        )?;
        // The TX ring on chip if the NIC has on-chip memory and the ring fits it.
        let onchip_bytes = match probe.address("QUEUE", "tx_onchip_bytes") {
            Ok(at) => dev.read32(at)?,
            Err(_) => 0,
        };
        let tx_regs = RingRegs::resolve(queue, queue_base, ring::TX)?;
        let tx = if sizes.tx_onchip && onchip_bytes > 0 && TxRing::fits_on_chip(sizes.tx_log2) {
            TxRing::on_chip(&dev, tx_regs, sizes.tx_log2)?
        } else {
            TxRing::new(&dev, tx_regs, sizes.tx_log2)?
        };

        // 5. RX buffers: one pool, one buffer per RX ring slot, posted with one doorbell
        //    (QUEUE.rx_producer).
        let rx_count = rx.state().size();
        let pool_len =
            (rx_count as usize)
                .checked_mul(len as usize)
                .ok_or(DriverError::ConfigureNic {
                    field: "rx_buffer_len",
                    value: u64::from(len),
                    reason: "times the RX ring size overflows",
                })?;
        let rx_pool = dev.alloc_dma(pool_len)?;
        // The RX window: the NIC refuses (with an ERROR completion) any RX descriptor that
        // points outside the pool, so no descriptor can steer a payload elsewhere.
        let (win_base, win_len) = (rx_pool.iova(), pool_len as u64);
        for (name, value) in [
            ("rx_window_base_lo", win_base as u32),
            ("rx_window_base_hi", (win_base >> 32) as u32),
            ("rx_window_len_lo", win_len as u32),
            ("rx_window_len_hi", (win_len >> 32) as u32),
        ] {
            dev.write32(probe.address("QUEUE", name)?, value)?;
        }
        let bufs: Vec<RxBufDescriptor> = (0..rx_count)
            .map(|id| pool_buffer(&rx_pool, len, id))
            .collect();
        let first = rx.state().producer();
        let posted = rx.post_batch(&dev, &bufs)?;
        let mut rx_in_flight = InFlight::default();
        for (k, b) in bufs.iter().take(posted).enumerate() {
            rx_in_flight.posted(u64::from(b.buffer_id), first.wrapping_add(k as u32));
        }

        // 6. CONFIG.enable: go.
        dev.write32(enable_reg, config.enable)?;
        Ok(Nic {
            dev,
            probe,
            tx,
            rx,
            cq,
            rx_pool,
            rx_buffer_len: len,
            rx_count,
            rx_in_flight,
            tx_in_flight: InFlight::default(),
            onchip_bytes,
            max_payload: config.max_payload,
        })
    }

    /// The most payload per DATA packet the NIC was set up with (TX `max_payload`): the
    /// longest message that can go on chip.
    pub fn max_payload(&self) -> u32 {
        self.max_payload
    }

    /// Bytes of the NIC's on-chip payload area (QUEUE `tx_onchip_bytes`; 0: none): payloads
    /// placed there go with [`send_inline`](Self::send_inline).
    pub fn onchip_bytes(&self) -> u32 {
        self.onchip_bytes
    }

    /// The device.
    pub fn device(&self) -> &D {
        &self.dev
    }

    /// What the init sequence found.
    pub fn probe(&self) -> &Probe {
        &self.probe
    }

    /// The TX descriptor ring.
    pub fn tx(&self) -> &TxRing {
        &self.tx
    }

    /// The RX buffer ring.
    pub fn rx(&self) -> &RxBufRing {
        &self.rx
    }

    /// The completion ring.
    pub fn cq(&self) -> &CompletionRing {
        &self.cq
    }

    /// Releases inbound message `(peer, id)` of `length` bytes in the NIC's message table
    /// (GRANT `release_*`, the doorbell last): the host has all of it (or gave up), so the
    /// table entry completes and its grant slot frees. `id` is the RPC id the message's
    /// DATA packets carry (their `sender_id`). A message the table does not hold is ignored
    /// by the NIC.
    pub fn release(&mut self, peer: Ipv4Addr, id: u64, length: u32) -> Result<()> {
        for (name, value) in [
            ("release_peer", u32::from(peer)),
            ("release_id_lo", id as u32),
            ("release_id_hi", (id >> 32) as u32),
            ("release_length", length),
            ("release", 1),
        ] {
            self.dev
                .write32(self.probe.address("GRANT", name)?, value)?;
        }
        Ok(())
    }

    /// How many SEND_MESSAGE and RETRANSMIT descriptors the NIC's transmit engine holds at
    /// once (TX `capacity`). The ring is in order: a descriptor waiting for a slot holds up
    /// every one behind it, a CANCEL too (which may be what would free a slot). A host that
    /// keeps at most this many out (posted, their `TX_DONE` or `ERROR` not yet back; see
    /// `TxBuffers`) never has one wait.
    pub fn tx_capacity(&self) -> Result<u32> {
        self.dev.read32(self.probe.address("TX", "capacity")?)
    }

    /// Sets what the NIC holds TX descriptors to (QUEUE `max_message_length` and
    /// `tx_window_*`): a longer message, or a payload outside the window, is refused with an
    /// `ERROR` completion and never read. The reset values are Homa's largest message and no
    /// window.
    pub fn set_tx_limits(&mut self, limits: &TxLimits) -> Result<()> {
        let (base, len) = (limits.window.base, limits.window.len);
        for (name, value) in [
            ("tx_window_base_lo", base as u32),
            ("tx_window_base_hi", (base >> 32) as u32),
            ("tx_window_len_lo", len as u32),
            ("tx_window_len_hi", (len >> 32) as u32),
            ("max_message_length", limits.max_message_length),
        ] {
            self.dev
                .write32(self.probe.address("QUEUE", name)?, value)?;
        }
        Ok(())
    }

    /// Posts a TX descriptor and rings the doorbell; its free-running ring index.
    ///
    /// The TX ring's free slots are learnt from the completions (each descriptor read is
    /// proven by its `TX_DONE` or `ERROR`); the NIC's consumer index is read only when the
    /// ring looks full even so.
    pub fn send(&mut self, desc: &TxDescriptor) -> Result<u32> {
        let index = self.tx.post(&self.dev, desc)?;
        if !desc
            .flags
            .contains(homa_proto::hostif::TxFlags::NO_COMPLETION)
        {
            self.tx_in_flight.posted(desc.cookie, index);
        }
        Ok(index)
    }

    /// Pushes `payload` into the NIC's on-chip payload area, where `desc` reads it, then
    /// posts `desc` as [`send`](Self::send) does: a message sent with no DMA read at all
    /// (with the TX ring on chip). The host owns the area's layout (`TxBuffers` places
    /// payloads in it): `desc.payload_iova` must be [`onchip::payload_iova`] of a place in
    /// it, and `payload` the whole message, one packet long at most.
    pub fn send_inline(&mut self, desc: &TxDescriptor, payload: &[u8]) -> Result<u32> {
        let len = payload.len();
        let at = desc.payload_iova.wrapping_sub(onchip::payload_iova(0));
        let fits = onchip::is_onchip(desc.payload_iova)
            && at.is_multiple_of(onchip::WORD as u64)
            && at + onchip::payload_footprint(len) as u64 <= u64::from(self.onchip_bytes)
            && u64::from(desc.message_length) == len as u64;
        if !fits {
            return Err(crate::device::push_error(
                self.dev.name(),
                onchip::PAYLOAD_OFFSET.wrapping_add(at as u32),
                len,
                "the payload is not the descriptor's, or not inside the on-chip area",
            ));
        }
        self.dev.push(
            onchip::PAYLOAD_OFFSET + at as u32,
            &onchip::payload_words(payload),
        )?;
        self.send(desc)
    }

    /// The next completion, if any (after letting the device make progress).
    pub fn poll_completion(&mut self) -> Result<Option<Completion>> {
        self.dev.poll()?;
        self.cq.poll(&self.dev)
    }

    /// Up to `max` completions appended to `out` (after letting the device make progress),
    /// with one `cq_consumer` write for all of them; how many. A completion that fails to
    /// decode ends the batch with an error; it and the ones before it are consumed.
    pub fn poll_completions(&mut self, out: &mut Vec<Completion>, max: usize) -> Result<usize> {
        self.dev.poll()?;
        self.cq.poll_batch(&self.dev, out, max)
    }

    pub(crate) fn rx_offset(&self, buffer_id: u32) -> Result<usize> {
        if buffer_id >= self.rx_count {
            return Err(DriverError::RepostRxBuffer {
                buffer_id,
                count: self.rx_count,
            });
        }
        Ok(buffer_id as usize * self.rx_buffer_len as usize)
    }

    /// The descriptor of pool buffer `buffer_id`, if the pool has one.
    fn rx_descriptor(&self, buffer_id: u32) -> Result<RxBufDescriptor> {
        self.rx_offset(buffer_id)?;
        Ok(pool_buffer(&self.rx_pool, self.rx_buffer_len, buffer_id))
    }

    /// Copies received bytes out of RX buffer `buffer_id`, from `offset` in the buffer.
    pub fn read_rx_buffer(&self, buffer_id: u32, offset: usize, buf: &mut [u8]) -> Result<()> {
        let base = self.rx_offset(buffer_id)?;
        if offset.saturating_add(buf.len()) > self.rx_buffer_len as usize {
            return Err(DriverError::DmaAccess {
                iova: self.rx_pool.iova() + base as u64,
                offset,
                len: buf.len(),
                region_len: self.rx_buffer_len as usize,
            });
        }
        self.rx_pool.read(base + offset, buf)
    }

    /// The RX buffer pool: the NIC's RX window (QUEUE `rx_window_*`). RX buffer `i` is
    /// `rx_buffer_len` bytes at `i * rx_buffer_len` in it.
    pub fn rx_pool(&self) -> &DmaRegion {
        &self.rx_pool
    }

    /// Posts an RX buffer descriptor as given and rings the doorbell; its free-running ring
    /// index. [`repost_rx_buffer`](Self::repost_rx_buffer) is the usual way; this one posts
    /// any buffer, and the NIC refuses, with an `ERROR` completion (status out of bounds or
    /// bad descriptor, the cookie the descriptor's `buffer_id`), one that does not lie
    /// inside [`rx_pool`](Self::rx_pool) or is empty.
    pub fn post_rx_descriptor(&mut self, desc: &RxBufDescriptor) -> Result<u32> {
        let index = self.rx.post(&self.dev, desc)?;
        self.rx_in_flight.posted(u64::from(desc.buffer_id), index);
        Ok(index)
    }

    /// Gives RX buffer `buffer_id` back to the NIC once its data has been read.
    pub fn repost_rx_buffer(&mut self, buffer_id: u32) -> Result<()> {
        let desc = self.rx_descriptor(buffer_id)?;
        self.post_rx_descriptor(&desc).map(|_| ())
    }

    /// Gives RX buffers back to the NIC with one doorbell (`rx_producer`) for all of them; how
    /// many were posted (fewer when the ring is full). An id outside the pool is an error and
    /// nothing is posted.
    pub fn repost_rx_buffers(&mut self, buffer_ids: &[u32]) -> Result<usize> {
        let descs = buffer_ids
            .iter()
            .map(|&id| self.rx_descriptor(id))
            .collect::<Result<Vec<_>>>()?;
        let first = self.rx.state().producer();
        let posted = self.rx.post_batch(&self.dev, &descs);
        // What was pushed before an error was rung too.
        let pushed = self.rx.state().producer().wrapping_sub(first) as usize;
        for (k, &id) in buffer_ids.iter().take(pushed).enumerate() {
            self.rx_in_flight
                .posted(u64::from(id), first.wrapping_add(k as u32));
        }
        posted
    }

    /// Every register of every known block, read now (counters are free-running).
    pub fn registers(&self) -> Result<Vec<RegisterValue>> {
        read_registers(&self.dev, &self.probe)
    }
}

/// RX buffer `id` of a pool of `len`-byte buffers: `len` bytes at `id * len` in it.
fn pool_buffer(pool: &DmaRegion, len: u32, id: u32) -> RxBufDescriptor {
    RxBufDescriptor {
        iova: pool.iova() + u64::from(id) * u64::from(len),
        length: len,
        buffer_id: id,
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use crate::MemDevice;
    use homa_proto::hostif::{
        Event, RX_BUF_DESC_LEN, RingState, TX_DESC_LEN, TxFlags, TxOp, peer_address,
    };

    const SIZES: RingSizes = RingSizes {
        tx_log2: 2,
        rx_log2: 2,
        cq_log2: 3,
        rx_buffer_len: 256,
        tx_onchip: true,
    };

    use crate::testing::complete;

    fn addr(b: &str, r: &str) -> u32 {
        block(b).unwrap().address(r).unwrap()
    }

    #[test]
    fn init__programs_config_then_rings_then_enables() {
        let cfg = NicConfig {
            mac: [0x02, 0x00, 0x00, 0x00, 0x00, 0x07],
            ipv4: Ipv4Addr::new(10, 0, 0, 7),
            ..NicConfig::default()
        };
        let nic = Nic::init(MemDevice::new(), &cfg, &SIZES).unwrap();
        let writes = nic.device().take_writes();
        let enable = addr("CONFIG", "enable");
        assert_eq!(writes.first(), Some(&(enable, 0)), "quiesce first");
        assert_eq!(writes.last(), Some(&(enable, 7)), "enable last");
        let written = |a: u32| writes.iter().rev().find(|w| w.0 == a).map(|w| w.1);
        assert_eq!(written(addr("CONFIG", "unsched_bytes")), Some(40000));
        assert_eq!(written(addr("CONFIG", "unsched_cutoff_7")), Some(200));
        assert_eq!(written(addr("CONFIG", "mac_addr_hi")), Some(0x0200));
        assert_eq!(written(addr("CONFIG", "mac_addr_lo")), Some(7));
        assert_eq!(written(addr("CONFIG", "ipv4_addr")), Some(0x0a00_0007));
        // FIFO grants: 50,000 bytes at 5 % of 25 Gb/s, 320 us, at the core's 250 MHz.
        assert_eq!(written(addr("CONFIG", "fifo_grant_interval")), Some(80_000));
        assert_eq!(
            written(addr("CONFIG", "fifo_grant_increment")),
            Some(50_000)
        );
        assert_eq!(written(addr("CONFIG", "fifo_grant_prio")), Some(6));
        assert_eq!(
            written(addr("TX", "max_payload")),
            Some(1424),
            "1500-byte MTU"
        );
        let cq = nic.cq().region().iova();
        assert_eq!(written(addr("QUEUE", "cq_base_lo")), Some(cq as u32));
        assert_eq!(
            written(addr("QUEUE", "cq_base_hi")),
            Some((cq >> 32) as u32)
        );
        assert_eq!(written(addr("QUEUE", "cq_log2_size")), Some(3));
        assert_eq!(written(addr("QUEUE", "tx_log2_size")), Some(2));
        assert_eq!(
            written(addr("QUEUE", "rx_producer")),
            Some(4),
            "4 buffers posted"
        );
        // The RX ring holds the pool's buffers, 256 bytes apart.
        let dev = nic.device();
        let mut ids = Vec::new();
        for slot in 0..4u64 {
            let mut b = [0u8; RX_BUF_DESC_LEN];
            dev.dma_read(nic.rx().base_iova() + slot * 16, &mut b)
                .unwrap();
            let d = RxBufDescriptor::decode(&b).unwrap();
            assert_eq!(d.length, 256);
            ids.push((d.buffer_id, d.iova));
        }
        let base = ids[0].1;
        assert_eq!(
            ids,
            [(0, base), (1, base + 256), (2, base + 512), (3, base + 768)]
        );
        // The RX window is the pool, set before the buffers are posted.
        assert_eq!(nic.rx_pool().iova(), base);
        assert_eq!(
            written(addr("QUEUE", "rx_window_base_lo")),
            Some(base as u32)
        );
        assert_eq!(
            written(addr("QUEUE", "rx_window_base_hi")),
            Some((base >> 32) as u32)
        );
        assert_eq!(written(addr("QUEUE", "rx_window_len_lo")), Some(1024));
        assert_eq!(written(addr("QUEUE", "rx_window_len_hi")), Some(0));
        let at = |a: u32| writes.iter().position(|w| w.0 == a).unwrap();
        assert!(at(addr("QUEUE", "rx_window_len_lo")) < at(addr("QUEUE", "rx_producer")));
        assert_eq!(nic.probe().blocks.len(), BLOCKS.len());
        assert_eq!(nic.probe().id.nic_id, NIC_ID);
    }

    #[test]
    fn init__refuses_a_bad_id_block_without_writing() {
        let dev = MemDevice::new();
        dev.set_register(addr("ID", "nic_id"), 0x1234_5678).unwrap();
        let e = Nic::init(dev, &NicConfig::default(), &SIZES).unwrap_err();
        assert!(
            matches!(
                e,
                DriverError::CheckNicId {
                    nic_id: 0x1234_5678,
                    ..
                }
            ),
            "{e}"
        );
        assert!(
            e.to_string()
                .contains("expected type 0x484d4e49 nic_id 0x484f4d41")
        );
        let dev = MemDevice::new();
        dev.set_register(0, 0xffff_ffff).unwrap();
        let e = Probe::run(&dev).unwrap_err();
        assert!(matches!(
            e,
            DriverError::CheckNicId {
                type_id: 0xffff_ffff,
                ..
            }
        ));
        assert!(dev.take_writes().is_empty());
    }

    #[test]
    fn probe__refuses_an_unknown_major_version() {
        let dev = MemDevice::new();
        let config = block("CONFIG").unwrap();
        dev.set_register(config.base + header::VERSION, 0x0002_0003)
            .unwrap();
        let e = Probe::run(&dev).unwrap_err();
        assert_eq!(
            e.to_string(),
            "failed to use the CONFIG block of mem: version 2.3, this driver supports 1.x; \
             use a driver and bitstream from the same release"
        );
        // A newer minor version is fine.
        dev.set_register(config.base + header::VERSION, 0x0001_0007)
            .unwrap();
        assert!(Probe::run(&dev).is_ok());
    }

    #[test]
    fn probe__refuses_a_looping_or_escaping_chain() {
        let dev = MemDevice::new();
        let tx = block("TX").unwrap();
        dev.set_register(tx.base + header::NEXT, 0x100).unwrap();
        let e = Probe::run(&dev).unwrap_err();
        assert!(
            e.to_string()
                .contains("the next pointers loop at offset 0x100"),
            "{e}"
        );
        dev.set_register(tx.base + header::NEXT, 0x10_0000).unwrap();
        let e = Probe::run(&dev).unwrap_err();
        assert!(matches!(
            e,
            DriverError::WalkRegisterBlocks {
                offset: 0x10_0000,
                ..
            }
        ));
    }

    #[test]
    fn probe__skips_unknown_blocks_and_init_needs_queue() {
        let dev = MemDevice::new();
        let tx = block("TX").unwrap();
        dev.set_register(tx.base, 0x5858_5858).unwrap();
        let p = Probe::run(&dev).unwrap();
        assert_eq!(p.blocks[4].name(), "unknown");
        assert!(p.require("TX").is_err());
        dev.set_register(tx.base + header::NEXT, 0).unwrap();
        let e = Nic::init(dev, &NicConfig::default(), &SIZES).unwrap_err();
        assert_eq!(
            e.to_string(),
            "failed to find the QUEUE register block on mem: the bitstream lacks it (rebuild \
             it with the host queues)"
        );
    }

    #[test]
    fn init__refuses_out_of_range_config() {
        let cfg = NicConfig {
            max_overcommit: 9,
            ..NicConfig::default()
        };
        let e = Nic::init(MemDevice::new(), &cfg, &SIZES).unwrap_err();
        assert_eq!(
            e.to_string(),
            "failed to configure the NIC: max_overcommit = 9, must be 1-8"
        );
        for bad in [0, 65_460] {
            let cfg = NicConfig {
                max_payload: bad,
                ..NicConfig::default()
            };
            let e = Nic::init(MemDevice::new(), &cfg, &SIZES).unwrap_err();
            assert!(e.to_string().contains("max_payload"), "{e}");
        }
        let sizes = RingSizes {
            rx_buffer_len: 100,
            ..SIZES
        };
        assert!(Nic::init(MemDevice::new(), &NicConfig::default(), &sizes).is_err());
    }

    #[test]
    fn send_and_poll_completion__through_the_rings() {
        let mut nic = Nic::init(MemDevice::new(), &NicConfig::default(), &SIZES).unwrap();
        let d = TxDescriptor {
            op: TxOp::SendMessage,
            flags: TxFlags::default(),
            rpc_id: 11,
            peer: peer_address("10.0.0.2".parse().unwrap()),
            src_port: 1,
            dst_port: 2,
            message_length: 300,
            payload_iova: 0x9_0000_0000,
            cookie: 5,
        };
        assert_eq!(nic.send(&d).unwrap(), 0);
        assert_eq!(nic.poll_completion().unwrap(), None);

        // Device side: fetch the descriptor, deliver 3 bytes into RX buffer 2, complete.
        let dev = nic.device();
        let mut b = [0u8; TX_DESC_LEN];
        dev.dma_read(nic.tx().base_iova(), &mut b).unwrap();
        assert_eq!(TxDescriptor::decode(&b).unwrap(), d);
        let mut rxd = [0u8; RX_BUF_DESC_LEN];
        dev.dma_read(nic.rx().base_iova() + 2 * 16, &mut rxd)
            .unwrap();
        let buf = RxBufDescriptor::decode(&rxd).unwrap();
        dev.dma_write(buf.iova, b"abc").unwrap();
        let mut cq = RingState::new(SIZES.cq_log2).unwrap();
        for event in [
            Event::TxDone {
                length: 300,
                cookie: 5,
            },
            Event::RxData {
                retransmit: false,
                host_grants: false,
                length: 3,
                cutoff_version: 0,
                offset: 0,
                buffer_id: buf.buffer_id,
                message_length: 3,
                local_port: 1,
                peer_port: 2,
                peer: homa_proto::hostif::peer_address("10.0.0.2".parse().unwrap()),
                incoming: 0,
                ack_client_id: 0,
                ack_server_port: 0,
            },
        ] {
            complete(&nic, &mut cq, 11, event);
        }

        let done = nic.poll_completion().unwrap().unwrap();
        assert_eq!(done.to_string(), "TX_DONE id=11 len=300 cookie=5 status=ok");
        let data = nic.poll_completion().unwrap().unwrap();
        let Event::RxData { buffer_id, .. } = data.event else {
            panic!("{data}");
        };
        let mut got = [0u8; 3];
        nic.read_rx_buffer(buffer_id, 0, &mut got).unwrap();
        assert_eq!(&got, b"abc");
        assert!(nic.read_rx_buffer(buffer_id, 255, &mut got).is_err());
        nic.device()
            .set_register(addr("QUEUE", "rx_consumer"), 3)
            .unwrap();
        nic.repost_rx_buffer(buffer_id).unwrap();
        assert_eq!(
            nic.repost_rx_buffer(4).unwrap_err().to_string(),
            "failed to repost RX buffer 4: only 4 buffers exist"
        );
        let regs = nic.registers().unwrap();
        let nic_id = regs.iter().find(|r| r.register.name == "nic_id").unwrap();
        assert_eq!(nic_id.value, NIC_ID);
    }

    #[test]
    fn batches__one_doorbell_for_many_buffers_and_one_for_many_completions() {
        let mut nic = Nic::init(MemDevice::new(), &NicConfig::default(), &SIZES).unwrap();
        let producer = addr("QUEUE", "rx_producer");
        let consumer = addr("QUEUE", "cq_consumer");
        nic.device().take_writes();
        // The NIC has read 3 of the 4 descriptors: 3 slots free.
        nic.device()
            .set_register(addr("QUEUE", "rx_consumer"), 3)
            .unwrap();
        assert_eq!(nic.repost_rx_buffers(&[2, 0, 1, 3]).unwrap(), 3, "3 fit");
        let w = nic.device().take_writes();
        assert_eq!(w.iter().filter(|x| x.0 == producer).count(), 1, "{w:?}");
        assert_eq!(w.iter().rev().find(|x| x.0 == producer).unwrap().1, 7);
        // An id outside the pool: nothing posted.
        assert!(nic.repost_rx_buffers(&[0, 9]).is_err());
        assert!(nic.device().take_writes().is_empty());

        // Three RX_DATA completions, taken with one cq_consumer write.
        let mut cq = RingState::new(SIZES.cq_log2).unwrap();
        for id in 0..3u32 {
            let event = Event::RxData {
                retransmit: false,
                host_grants: false,
                length: 1,
                cutoff_version: 0,
                offset: id,
                buffer_id: id,
                message_length: 3,
                local_port: 1,
                peer_port: 2,
                peer: peer_address("10.0.0.2".parse().unwrap()),
                incoming: 0,
                ack_client_id: 0,
                ack_server_port: 0,
            };
            complete(&nic, &mut cq, 20 + u64::from(id), event);
        }
        let mut out = Vec::new();
        assert_eq!(nic.poll_completions(&mut out, 2).unwrap(), 2, "at most max");
        assert_eq!(nic.poll_completions(&mut out, 10).unwrap(), 1);
        assert_eq!(nic.poll_completions(&mut out, 10).unwrap(), 0);
        let ids: Vec<u64> = out.iter().map(|c| c.rpc_id).collect();
        assert_eq!(ids, [20, 21, 22]);
        let w = nic.device().take_writes();
        let returned: Vec<u32> = w.iter().filter(|x| x.0 == consumer).map(|x| x.1).collect();
        assert_eq!(
            returned,
            [2, 3],
            "one write per batch, none for an empty one"
        );
    }
}
