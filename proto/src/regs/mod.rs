//! The NIC's register map, defined once: self-describing blocks of 32-bit registers.
//!
//! Every block starts with the same three words (Corundum's layout): its **type**, its
//! **version** (major in the high half, minor in the low half) and the byte offset of the
//! **next** block (0 ends the chain). A driver walks the chain from offset 0, matches blocks
//! by type and major version, and refuses unknown major versions; the hardware generator
//! takes its address decoder and reset values from the same tables; the Markdown reference
//! (`docs/regs.md`) is generated from them too ([`markdown`]), and a test pins it.
//!
//! Counters are free-running and never reset: readers diff snapshots.
//!
//! ```text
//!  block   offset  registers
//!  ID      0x0000  type version next | nic_id fw_version git_hash build_date capabilities
//!  CONFIG  0x0100  type version next | unsched_bytes window max_incoming max_overcommit
//!                  num_priorities cutoff_version unsched_cutoff[0..8] link_mbps enable
//!  RX      0x0200  type version next | frames_ok dropped_* ... (counters)
//!  GRANT   0x0300  type version next | messages_tracked capacity grants_sent ...
//!  TX      0x0400  type version next | capacity messages_queued packets_sent ... max_payload
//!  QUEUE   0x0500  type version next | {tx,rx,cq}_{base_lo,base_hi,log2_size,producer,
//!                  consumer} dma_errors  (the rings of `crate::hostif`)
//! ```
//!
//! The NIC is PCI function [`PCI_VENDOR_ID`]:[`PCI_DEVICE_ID`] with this map in BAR0.

mod map;

pub use map::{BLOCK_STRIDE, BLOCKS, DEFAULT_MAX_PAYLOAD};

/// PCI vendor id of the NIC: Xilinx, whose FPGA boards carry it.
pub const PCI_VENDOR_ID: u16 = 0x10ee;
/// PCI device id of the NIC: "HN" (homa-nic).
pub const PCI_DEVICE_ID: u16 = 0x4e48;
/// The value of the ID block's `nic_id` register ("HOMA").
pub const NIC_ID: u32 = 0x484f_4d41;

/// The ring prefixes of the QUEUE block: every ring has the registers `<prefix>_base_lo`,
/// `_base_hi`, `_log2_size`, `_producer` and `_consumer`.
pub mod ring {
    /// TX descriptors (host produces).
    pub const TX: &str = "tx";
    /// RX buffer descriptors (host produces).
    pub const RX: &str = "rx";
    /// Completions (NIC produces).
    pub const CQ: &str = "cq";
    /// The register suffixes of one ring, in address order.
    pub const SUFFIXES: [&str; 5] = ["base_lo", "base_hi", "log2_size", "producer", "consumer"];
}

/// Bytes of BAR0 the register map needs: up to the end of the last block.
pub fn map_len() -> u32 {
    BLOCKS
        .iter()
        .map(|b| b.base + BLOCK_STRIDE)
        .max()
        .unwrap_or(0)
}

/// How software may access a register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read-only.
    Ro,
    /// Read-write.
    Rw,
    /// Read; writing 1 to a bit clears it.
    W1c,
}

impl Access {
    /// The short name used in the reference table.
    pub const fn name(self) -> &'static str {
        match self {
            Access::Ro => "RO",
            Access::Rw => "RW",
            Access::W1c => "W1C",
        }
    }
}

/// One 32-bit register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Register {
    /// Name, lower snake case, unique within its block.
    pub name: &'static str,
    /// Byte offset from the start of the block (a multiple of 4).
    pub offset: u32,
    /// Access.
    pub access: Access,
    /// Value after reset.
    pub reset: u32,
    /// What it holds.
    pub doc: &'static str,
}

/// A register block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    /// Name, upper case.
    pub name: &'static str,
    /// The value of the block's `type` register.
    pub type_id: u32,
    /// The value of its `version` register: major << 16 | minor.
    pub version: u32,
    /// Byte offset of the block in BAR0.
    pub base: u32,
    /// The registers after the three header words.
    pub registers: &'static [Register],
    /// What the block is for.
    pub doc: &'static str,
}

/// Offsets of the header words present in every block.
pub mod header {
    /// The block's type.
    pub const TYPE: u32 = 0x0;
    /// The block's version.
    pub const VERSION: u32 = 0x4;
    /// The byte offset of the next block, 0 for the last.
    pub const NEXT: u32 = 0x8;
    /// The first register after the header.
    pub const FIRST: u32 = 0xc;
}

impl Block {
    /// The major version.
    pub const fn major(&self) -> u16 {
        (self.version >> 16) as u16
    }

    /// The register called `name`.
    pub fn register(&self, name: &str) -> Option<&'static Register> {
        self.registers.iter().find(|r| r.name == name)
    }

    /// The absolute BAR offset of register `name`.
    pub fn address(&self, name: &str) -> Option<u32> {
        self.register(name).map(|r| self.base + r.offset)
    }

    /// The offset of the block after this one, 0 for the last.
    pub fn next(&self) -> u32 {
        let i = BLOCKS.iter().position(|b| b.name == self.name);
        i.and_then(|i| BLOCKS.get(i + 1)).map_or(0, |b| b.base)
    }

    /// The header words and reset values of every register, as (offset in block, value),
    /// in address order: what the hardware returns right after reset.
    pub fn reset_image(&self) -> Vec<(u32, u32)> {
        let mut v = vec![
            (header::TYPE, self.type_id),
            (header::VERSION, self.version),
            (header::NEXT, self.next()),
        ];
        v.extend(self.registers.iter().map(|r| (r.offset, r.reset)));
        v
    }
}

/// The block called `name`.
pub fn block(name: &str) -> Option<&'static Block> {
    BLOCKS.iter().find(|b| b.name == name)
}

/// The register reference as Markdown: one table per block.
pub fn markdown() -> String {
    let mut s = String::from(
        "# homa-nic register map\n\n\
         Generated from `proto/src/regs` by `homa-nic regs` — do not edit by hand.\n\n\
         Every block starts with `type` (0x0), `version` (0x4, major << 16 | minor) and `next` \
         (0x8, byte offset of the next block, 0 for the last). Counters are free-running and \
         never reset.\n",
    );
    for b in BLOCKS {
        s.push_str(&format!(
            "\n## {} at 0x{:04x} (type 0x{:08x}, version {}.{})\n\n{}\n\n\
             | offset | name | access | reset | description |\n|---|---|---|---|---|\n",
            b.name,
            b.base,
            b.type_id,
            b.major(),
            b.version & 0xffff,
            b.doc
        ));
        for r in b.registers {
            s.push_str(&format!(
                "| 0x{:03x} | `{}` | {} | 0x{:x} | {} |\n",
                r.offset,
                r.name,
                r.access.name(),
                r.reset,
                r.doc.replace('|', "\\|")
            ));
        }
    }
    s
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn blocks__chain_from_zero_without_overlap() {
        assert_eq!(BLOCKS[0].base, 0);
        let mut seen = Vec::new();
        let mut at = 0;
        loop {
            let b = BLOCKS
                .iter()
                .find(|b| b.base == at)
                .expect("chain points at a block");
            assert!(!seen.contains(&b.name), "loop in the chain at {}", b.name);
            seen.push(b.name);
            at = b.next();
            if at == 0 {
                break;
            }
        }
        assert_eq!(seen.len(), BLOCKS.len(), "every block is reachable");
    }

    #[test]
    fn registers__aligned_unique_inside_their_block() {
        for b in BLOCKS {
            let mut offsets: Vec<u32> = b.registers.iter().map(|r| r.offset).collect();
            offsets.sort_unstable();
            offsets.dedup();
            assert_eq!(
                offsets.len(),
                b.registers.len(),
                "{}: duplicate offset",
                b.name
            );
            for r in b.registers {
                assert_eq!(r.offset % 4, 0, "{}.{}", b.name, r.name);
                assert!(
                    r.offset >= header::FIRST,
                    "{}.{} overlaps the header",
                    b.name,
                    r.name
                );
                assert!(
                    r.offset < BLOCK_STRIDE,
                    "{}.{} past the block",
                    b.name,
                    r.name
                );
                let same = b.registers.iter().filter(|x| x.name == r.name).count();
                assert_eq!(same, 1, "{}.{} named twice", b.name, r.name);
            }
        }
    }

    #[test]
    fn config_reset_values__match_the_engine_defaults() {
        let cfg = crate::core::Config::default();
        let c = block("CONFIG").unwrap();
        let reset = |n: &str| c.register(n).unwrap().reset;
        assert_eq!(reset("unsched_bytes"), cfg.unsched_bytes);
        assert_eq!(reset("max_incoming"), cfg.max_incoming);
        assert_eq!(reset("max_overcommit"), u32::from(cfg.max_overcommit));
        for i in 0..8 {
            let name = format!("unsched_cutoff_{i}");
            assert_eq!(reset(&name), cfg.unsched_cutoffs[i], "{name}");
        }
        // The derived registers hold what the policy derives from those defaults.
        for n in 0..=8 {
            let want = crate::policy::window(cfg.window, cfg.max_incoming, n);
            assert_eq!(reset(&format!("window_n{n}")), want, "window_n{n}");
        }
        let prio = crate::policy::max_sched_priority(
            &cfg.unsched_cutoffs,
            crate::wire::MAX_MESSAGE_LENGTH,
        );
        assert_eq!(reset("max_sched_prio"), u32::from(prio));
        let tx = block("TX").unwrap();
        assert_eq!(
            tx.register("max_payload").unwrap().reset,
            cfg.max_payload(20),
            "TX.max_payload: the default MTU over IPv4"
        );
    }

    #[test]
    fn id_block__nic_id_matches_constant() {
        let id = block("ID").unwrap();
        assert_eq!(id.register("nic_id").unwrap().reset, NIC_ID);
        assert_eq!(map_len(), 0x600);
    }

    #[test]
    fn queue_block__every_ring_has_its_registers() {
        let q = block("QUEUE").unwrap();
        for prefix in [ring::TX, ring::RX, ring::CQ] {
            let offsets: Vec<u32> = ring::SUFFIXES
                .iter()
                .map(|s| q.register(&format!("{prefix}_{s}")).unwrap().offset)
                .collect();
            assert!(
                offsets.windows(2).all(|w| w[1] == w[0] + 4),
                "{prefix}: {offsets:?}"
            );
        }
        // The host writes its own index (the doorbell) and only reads the NIC's.
        let access = |n: &str| q.register(n).unwrap().access;
        assert_eq!(access("tx_producer"), Access::Rw);
        assert_eq!(access("tx_consumer"), Access::Ro);
        assert_eq!(access("cq_producer"), Access::Ro);
        assert_eq!(access("cq_consumer"), Access::Rw);
        assert!(q.register("dma_errors").is_some());
    }

    #[test]
    fn markdown__matches_committed_reference() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/regs.md");
        let text = markdown();
        if std::env::var_os("UPDATE_EXPECT").is_some() {
            std::fs::write(path, &text).unwrap();
        }
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            committed == text,
            "docs/regs.md is stale: run UPDATE_EXPECT=1 cargo test -p homa-proto regs"
        );
    }
}
