//! The register tables. Edit here; everything else (the hardware decoder, driver accessors,
//! `docs/regs.md`) follows.

use super::{Access, Block, Register};

/// Bytes reserved per block: blocks sit at multiples of this.
pub const BLOCK_STRIDE: u32 = 0x100;

const fn reg(
    name: &'static str,
    offset: u32,
    access: Access,
    reset: u32,
    doc: &'static str,
) -> Register {
    Register {
        name,
        offset,
        access,
        reset,
        doc,
    }
}

const ID: &[Register] = &[
    reg(
        "nic_id",
        0x00c,
        Access::Ro,
        1213156673,
        "Constant 0x484F4D41 (\"HOMA\").",
    ),
    reg(
        "fw_version",
        0x010,
        Access::Ro,
        256,
        "Firmware version: major in bits 15-8, minor in bits 7-0.",
    ),
    reg(
        "git_hash",
        0x014,
        Access::Ro,
        0,
        "Low 32 bits of the git commit the bitstream was built from.",
    ),
    reg(
        "build_date",
        0x018,
        Access::Ro,
        0,
        "Build time, seconds since 1970 (low 32 bits).",
    ),
    reg(
        "capabilities",
        0x01c,
        Access::Ro,
        0,
        "Blocks present, set by the build: bit 0 RX parser, bit 1 grant generator, bit 2 TX SRPT scheduler.",
    ),
    reg(
        "data_width",
        0x020,
        Access::Ro,
        512,
        "Datapath width in bits.",
    ),
];

const CONFIG: &[Register] = &[
    reg(
        "enable",
        0x00c,
        Access::Rw,
        0,
        "Bit 0: receive; bit 1: transmit; bit 2: hardware grants.",
    ),
    reg(
        "unsched_bytes",
        0x010,
        Access::Rw,
        40000,
        "Unscheduled bytes per message (rtt_bytes).",
    ),
    reg(
        "window",
        0x014,
        Access::Rw,
        0,
        "Grant window per message; 0 = max_incoming / (active + 1).",
    ),
    reg(
        "max_incoming",
        0x018,
        Access::Rw,
        400000,
        "Limit on granted-but-unreceived bytes.",
    ),
    reg(
        "max_overcommit",
        0x01c,
        Access::Rw,
        8,
        "Overcommitment degree (1-8).",
    ),
    reg(
        "num_priorities",
        0x020,
        Access::Rw,
        8,
        "Priority levels in use (1-8).",
    ),
    reg(
        "cutoff_version",
        0x024,
        Access::Rw,
        1,
        "Version of the unscheduled cutoffs.",
    ),
    reg(
        "unsched_cutoff_0",
        0x028,
        Access::Rw,
        1000000,
        "Largest message length using level 0 unscheduled.",
    ),
    reg(
        "unsched_cutoff_1",
        0x02c,
        Access::Rw,
        1000000,
        "Largest message length using level 1 unscheduled.",
    ),
    reg(
        "unsched_cutoff_2",
        0x030,
        Access::Rw,
        1000000,
        "Largest message length using level 2 unscheduled.",
    ),
    reg(
        "unsched_cutoff_3",
        0x034,
        Access::Rw,
        1000000,
        "Largest message length using level 3 unscheduled.",
    ),
    reg(
        "unsched_cutoff_4",
        0x038,
        Access::Rw,
        1000000,
        "Largest message length using level 4 unscheduled.",
    ),
    reg(
        "unsched_cutoff_5",
        0x03c,
        Access::Rw,
        15000,
        "Largest message length using level 5 unscheduled.",
    ),
    reg(
        "unsched_cutoff_6",
        0x040,
        Access::Rw,
        2800,
        "Largest message length using level 6 unscheduled.",
    ),
    reg(
        "unsched_cutoff_7",
        0x044,
        Access::Rw,
        200,
        "Largest message length using level 7 unscheduled.",
    ),
    reg(
        "link_mbps",
        0x048,
        Access::Rw,
        100000,
        "Link speed for pacing, Mb/s.",
    ),
    reg(
        "mac_addr_lo",
        0x04c,
        Access::Rw,
        0,
        "Local MAC address, bytes 2-5.",
    ),
    reg(
        "mac_addr_hi",
        0x050,
        Access::Rw,
        0,
        "Local MAC address, bytes 0-1 (low half).",
    ),
    reg("ipv4_addr", 0x054, Access::Rw, 0, "Local IPv4 address."),
];

const RX: &[Register] = &[
    reg("frames_ok", 0x00c, Access::Ro, 0, "Homa frames accepted."),
    reg(
        "dropped_runt",
        0x010,
        Access::Ro,
        0,
        "Frames shorter than their headers.",
    ),
    reg(
        "dropped_bad_checksum",
        0x014,
        Access::Ro,
        0,
        "IPv4 header checksum failures.",
    ),
    reg(
        "dropped_not_homa",
        0x018,
        Access::Ro,
        0,
        "Other EtherType, IP protocol or next header.",
    ),
    reg(
        "dropped_bad_type",
        0x01c,
        Access::Ro,
        0,
        "Homa type outside 0x10-0x18.",
    ),
    reg(
        "dropped_bad_length",
        0x020,
        Access::Ro,
        0,
        "Length fields that disagree.",
    ),
    reg(
        "dropped_no_buffer",
        0x024,
        Access::Ro,
        0,
        "DATA with no posted host buffer.",
    ),
];

const GRANT: &[Register] = &[
    reg(
        "capacity",
        0x00c,
        Access::Ro,
        1024,
        "Inbound messages the table can track.",
    ),
    reg(
        "messages_tracked",
        0x010,
        Access::Ro,
        0,
        "Messages tracked now.",
    ),
    reg(
        "grants_sent",
        0x014,
        Access::Ro,
        0,
        "GRANT packets emitted (free-running).",
    ),
    reg(
        "table_full",
        0x018,
        Access::Ro,
        0,
        "Messages refused because the table was full (free-running).",
    ),
];

const TX: &[Register] = &[
    reg(
        "capacity",
        0x00c,
        Access::Ro,
        1024,
        "Outbound messages the scheduler can hold.",
    ),
    reg(
        "messages_queued",
        0x010,
        Access::Ro,
        0,
        "Messages queued now.",
    ),
    reg(
        "packets_sent",
        0x014,
        Access::Ro,
        0,
        "DATA packets sent (free-running).",
    ),
    reg(
        "control_sent",
        0x018,
        Access::Ro,
        0,
        "Control packets sent (free-running).",
    ),
];

/// Every block, in address order (the `next` chain follows this order).
pub static BLOCKS: &[Block] = &[
    Block {
        name: "ID",
        type_id: 0x484d4e49,
        version: 0x00010000,
        base: 0,
        registers: ID,
        doc: "Identifies the NIC and the build.",
    },
    Block {
        name: "CONFIG",
        type_id: 0x484d4346,
        version: 0x00010000,
        base: BLOCK_STRIDE,
        registers: CONFIG,
        doc: "Protocol parameters, HomaModule names (SPEC §2.9); the engine's `Config` defaults are the reset values.",
    },
    Block {
        name: "RX",
        type_id: 0x484d5258,
        version: 0x00010000,
        base: 2 * BLOCK_STRIDE,
        registers: RX,
        doc: "Receive parser counters (free-running).",
    },
    Block {
        name: "GRANT",
        type_id: 0x484d4752,
        version: 0x00010000,
        base: 3 * BLOCK_STRIDE,
        registers: GRANT,
        doc: "Inbound message table and grant generator.",
    },
    Block {
        name: "TX",
        type_id: 0x484d5458,
        version: 0x00010000,
        base: 4 * BLOCK_STRIDE,
        registers: TX,
        doc: "Transmit SRPT scheduler.",
    },
];
