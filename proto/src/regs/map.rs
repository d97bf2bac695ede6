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
    reg(
        "gw_mac_lo",
        0x058,
        Access::Rw,
        0,
        "Next hop's MAC address (every GRANT and DATA frame the NIC builds goes to it), bytes 2-5.",
    ),
    reg(
        "gw_mac_hi",
        0x05c,
        Access::Rw,
        0,
        "Next hop's MAC address, bytes 0-1 (low half).",
    ),
    reg(
        "max_sched_prio",
        0x060,
        Access::Rw,
        3,
        "Highest scheduled priority (derived: policy::max_sched_priority of the cutoffs).",
    ),
    reg(
        "window_n0",
        0x064,
        Access::Rw,
        400_000,
        "Grant window with 0 active messages (derived: policy::window(window, max_incoming, 0)).",
    ),
    reg(
        "window_n1",
        0x068,
        Access::Rw,
        200_000,
        "Grant window with 1 active message (derived).",
    ),
    reg(
        "window_n2",
        0x06c,
        Access::Rw,
        133_333,
        "Grant window with 2 active messages (derived).",
    ),
    reg(
        "window_n3",
        0x070,
        Access::Rw,
        100_000,
        "Grant window with 3 active messages (derived).",
    ),
    reg(
        "window_n4",
        0x074,
        Access::Rw,
        80_000,
        "Grant window with 4 active messages (derived).",
    ),
    reg(
        "window_n5",
        0x078,
        Access::Rw,
        66_666,
        "Grant window with 5 active messages (derived).",
    ),
    reg(
        "window_n6",
        0x07c,
        Access::Rw,
        57_142,
        "Grant window with 6 active messages (derived).",
    ),
    reg(
        "window_n7",
        0x080,
        Access::Rw,
        50_000,
        "Grant window with 7 active messages (derived).",
    ),
    reg(
        "window_n8",
        0x084,
        Access::Rw,
        44_444,
        "Grant window with 8 active messages (derived).",
    ),
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
    reg(
        "rx_data",
        0x028,
        Access::Ro,
        0,
        "RX_DATA completions posted: payloads written into host buffers.",
    ),
    reg(
        "rx_errors",
        0x02c,
        Access::Ro,
        0,
        "ERROR completions for RX buffers (buffer too small, length fault).",
    ),
    reg(
        "dropped_bad_payload",
        0x030,
        Access::Ro,
        0,
        "DATA payloads abandoned when their frame turned out bad after the payload had started.",
    ),
    reg(
        "data_empty",
        0x034,
        Access::Ro,
        0,
        "DATA packets without payload (no buffer used).",
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
        "Messages the grant generator tracks now: those with scheduled bytes not yet received, one per table entry (up to `capacity`).",
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
        "Messages that took a grant generator entry still held by another message, which it forgot (free-running): 0 while the table and the generator agree, as they do by construction.",
    ),
    reg(
        "holes_forgotten",
        0x01c,
        Access::Ro,
        0,
        "DATA that would have opened a second hole in its message's entry, which then joined it to the neighbouring range, forgetting the gap between them: bytes arriving later in that gap are not counted, so the message completes only when the host releases it (free-running).",
    ),
    reg(
        "dropped_late",
        0x020,
        Access::Ro,
        0,
        "DATA of finished messages, or whose length disagreed, dropped (free-running).",
    ),
    reg(
        "collisions",
        0x024,
        Access::Ro,
        0,
        "DATA of messages the table could not hold, passed to the host (free-running).",
    ),
    reg(
        "release_peer",
        0x028,
        Access::Rw,
        0,
        "Release operand: the sending peer's IPv4 address of the inbound message to release.",
    ),
    reg(
        "release_id_lo",
        0x02c,
        Access::Rw,
        0,
        "Release operand: the message's RPC id as its DATA carry it (`sender_id`), bits 31-0.",
    ),
    reg(
        "release_id_hi",
        0x030,
        Access::Rw,
        0,
        "Release operand: the RPC id, bits 63-32.",
    ),
    reg(
        "release_length",
        0x034,
        Access::Rw,
        0,
        "Release operand: the message's length.",
    ),
    reg(
        "release",
        0x038,
        Access::Rw,
        0,
        "Doorbell: any write releases the message the operands name (the host has all of it, or gave up): its table entry counts as complete and the grant generator forgets it. A message the table does not hold is ignored.",
    ),
    reg(
        "releases",
        0x03c,
        Access::Ro,
        0,
        "Releases taken (free-running), including ignored ones.",
    ),
    reg(
        "messages_queued",
        0x040,
        Access::Ro,
        0,
        "Messages waiting for grants now (part of messages_tracked): queued by full packets left to receive.",
    ),
    reg(
        "decisions",
        0x044,
        Access::Ro,
        0,
        "Grant decisions taken (free-running): each over the events of a batch.",
    ),
];

const TX: &[Register] = &[
    reg(
        "capacity",
        0x00c,
        Access::Ro,
        1040,
        "Outbound messages the engine can hold: 16 in its scheduler's slots and 1024 more that wait for a GRANT in its park (found by peer and id in a key table of two hash choices of two ways: a descriptor whose message finds no room waits in the ring).",
    ),
    reg(
        "messages_queued",
        0x010,
        Access::Ro,
        0,
        "Messages held now, in the slots and parked.",
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
        "Control packets sent (free-running): the GRANTs the NIC builds.",
    ),
    reg(
        "max_payload",
        0x01c,
        Access::Rw,
        DEFAULT_MAX_PAYLOAD,
        "Most payload bytes per DATA packet (1-65459): the link MTU less the IPv4 and DATA headers (`core::Config::max_payload`); also the unit of the grant generator's SRPT key (full packets left), so every host of a cluster is assumed to send the same size.",
    ),
    reg(
        "grants_unmatched",
        0x020,
        Access::Ro,
        0,
        "GRANTs that matched no outbound message the engine holds, in a slot or parked (free-running): late, duplicated, or for a message not posted here.",
    ),
    reg(
        "messages_parked",
        0x024,
        Access::Ro,
        0,
        "Messages parked now (part of messages_queued): waiting for a GRANT in the park's table, out of the scheduler's slots.",
    ),
    reg(
        "parked_most",
        0x028,
        Access::Ro,
        0,
        "The most messages parked at once since reset.",
    ),
    reg(
        "grants_dropped",
        0x02c,
        Access::Ro,
        0,
        "GRANTs for no message in a slot that the park could not look up, its queue of 16 full (free-running): lost as the network may lose one; the receiver's RESEND recovers them.",
    ),
    reg(
        "park_collisions",
        0x030,
        Access::Ro,
        0,
        "Parks refused because all four places of the message's key (two hash choices of peer and id, two ways each) held other messages, or its key was parked already (free-running): that message stays in its slot, and another waiting one is tried.",
    ),
];

/// `TX.max_payload` at reset: a 1500-byte MTU less the IPv4 header (20) and the DATA header.
pub const DEFAULT_MAX_PAYLOAD: u32 = 1500
    - crate::wire::field::ipv4::HEADER_LEN as u32
    - crate::wire::field::homa::DATA_HEADER_LEN as u32;

/// One ring's registers, `prefix` naming the ring.
macro_rules! ring_regs {
    ($prefix:literal, $at:expr, $what:literal, $producer_access:expr, $producer_doc:literal,
     $consumer_access:expr, $consumer_doc:literal) => {
        [
            reg(
                concat!($prefix, "_base_lo"),
                $at,
                Access::Rw,
                0,
                concat!(
                    "IOVA of the ",
                    $what,
                    " ring, bits 31-0 (aligned to 4 KiB)."
                ),
            ),
            reg(
                concat!($prefix, "_base_hi"),
                $at + 0x4,
                Access::Rw,
                0,
                concat!("IOVA of the ", $what, " ring, bits 63-32."),
            ),
            reg(
                concat!($prefix, "_log2_size"),
                $at + 0x8,
                Access::Rw,
                0,
                concat!(
                    "log2 of the ",
                    $what,
                    " ring's entry count (1-16; 0 = ring off). Writing it resets both indices to 0."
                ),
            ),
            reg(
                concat!($prefix, "_producer"),
                $at + 0xc,
                $producer_access,
                0,
                $producer_doc,
            ),
            reg(
                concat!($prefix, "_consumer"),
                $at + 0x10,
                $consumer_access,
                0,
                $consumer_doc,
            ),
        ]
    };
}

const TX_RING: [Register; 5] = ring_regs!(
    "tx",
    0x00c,
    "TX descriptor",
    Access::Rw,
    "Doorbell: free-running index of the next TX descriptor the host will write.",
    Access::Ro,
    "Free-running index of the next TX descriptor the NIC will read."
);

const RX_RING: [Register; 5] = ring_regs!(
    "rx",
    0x020,
    "RX buffer",
    Access::Rw,
    "Doorbell: free-running index of the next RX buffer descriptor the host will write.",
    Access::Ro,
    "Free-running index of the next RX buffer descriptor the NIC will read."
);

const CQ_RING: [Register; 5] = ring_regs!(
    "cq",
    0x034,
    "completion",
    Access::Ro,
    "Free-running index of the next completion the NIC will write.",
    Access::Rw,
    "Doorbell: free-running index of the next completion the host will read (frees the entries before it)."
);

const QUEUE: &[Register] = &[
    TX_RING[0],
    TX_RING[1],
    TX_RING[2],
    TX_RING[3],
    TX_RING[4],
    RX_RING[0],
    RX_RING[1],
    RX_RING[2],
    RX_RING[3],
    RX_RING[4],
    CQ_RING[0],
    CQ_RING[1],
    CQ_RING[2],
    CQ_RING[3],
    CQ_RING[4],
    reg(
        "dma_errors",
        0x048,
        Access::Ro,
        0,
        "DMA transfers that failed or were refused (free-running).",
    ),
    reg(
        "rx_bad_descriptors",
        0x04c,
        Access::Ro,
        0,
        "RX buffer descriptors refused, each reported in an ERROR completion: length 0 or a buffer that wraps the address space (status 5), or outside the RX window (status 1).",
    ),
    reg(
        "cq_dropped",
        0x050,
        Access::Ro,
        0,
        "Completions dropped while the completion ring was off (cq_log2_size 0).",
    ),
    reg(
        "rx_window_base_lo",
        0x054,
        Access::Rw,
        0,
        "RX window, first IOVA, bits 31-0: RX buffer descriptors must lie inside the window.",
    ),
    reg(
        "rx_window_base_hi",
        0x058,
        Access::Rw,
        0,
        "RX window, first IOVA, bits 63-32.",
    ),
    reg(
        "rx_window_len_lo",
        0x05c,
        Access::Rw,
        0,
        "RX window length in bytes, bits 31-0 (0 with _hi: no window). A descriptor outside it is refused with an ERROR (status 1, out of bounds).",
    ),
    reg(
        "rx_window_len_hi",
        0x060,
        Access::Rw,
        0,
        "RX window length in bytes, bits 63-32.",
    ),
    reg(
        "tx_window_base_lo",
        0x064,
        Access::Rw,
        0,
        "TX window, first IOVA, bits 31-0: a TX descriptor's payload must lie inside the window.",
    ),
    reg(
        "tx_window_base_hi",
        0x068,
        Access::Rw,
        0,
        "TX window, first IOVA, bits 63-32.",
    ),
    reg(
        "tx_window_len_lo",
        0x06c,
        Access::Rw,
        0,
        "TX window length in bytes, bits 31-0 (0 with _hi: no window). A descriptor whose payload is outside it is refused with an ERROR (status 1, out of bounds).",
    ),
    reg(
        "tx_window_len_hi",
        0x070,
        Access::Rw,
        0,
        "TX window length in bytes, bits 63-32.",
    ),
    reg(
        "max_message_length",
        0x074,
        Access::Rw,
        crate::wire::MAX_MESSAGE_LENGTH,
        "The longest message a TX descriptor may send; a longer one is refused with an ERROR (status 2, message too long).",
    ),
    reg(
        "tx_bad_descriptors",
        0x078,
        Access::Ro,
        0,
        "TX descriptors refused, each reported in an ERROR completion (ring 1, its index and cookie): not decodable (status 5), longer than max_message_length (status 2), a payload that wraps the address space (status 5), lies outside the TX window (status 1) or breaks the on-chip rules (status 1).",
    ),
    reg(
        "tx_onchip_bytes",
        0x07c,
        Access::Ro,
        0,
        "Bytes of on-chip payload memory (`hostif::onchip`): the host may push TX descriptors to BAR0 0x8000 (tx_base = onchip::IOVA + 0x8000, at most 64 entries) and small payloads to BAR0 0xc000 onwards. 0: no on-chip memory.",
    ),
    reg(
        "tx_onchip_faults",
        0x080,
        Access::Ro,
        0,
        "Reads of on-chip memory outside its areas, answered with zeros (free-running): a TX ring placed past the ring area, say.",
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
        version: 0x00010001,
        base: 2 * BLOCK_STRIDE,
        registers: RX,
        doc: "Receive parser and RX DMA counters (free-running). Version 1.1: the DMA counters.",
    },
    Block {
        name: "GRANT",
        type_id: 0x484d4752,
        version: 0x00010002,
        base: 3 * BLOCK_STRIDE,
        registers: GRANT,
        doc: "Inbound message table and grant generator. Version 1.2: the grant generator covers every table entry (1,024); messages_queued and decisions.",
    },
    Block {
        name: "TX",
        type_id: 0x484d5458,
        version: 0x00010002,
        base: 4 * BLOCK_STRIDE,
        registers: TX,
        doc: "Transmit engine: SRPT scheduler, its park and the DATA framer. Version 1.1: max_payload and grants_unmatched; messages_queued and packets_sent are live. Version 1.2: the park's messages_parked, parked_most, grants_dropped and park_collisions.",
    },
    Block {
        name: "QUEUE",
        type_id: 0x484d5155,
        version: 0x00040000,
        base: 5 * BLOCK_STRIDE,
        registers: QUEUE,
        doc: "Host queues (`proto::hostif`): where the TX descriptor, RX buffer and completion rings are, and their indices. Version 2: 64-byte completions; 2.1: the RX descriptor and dropped-completion counters; 2.2: the RX window, refused descriptors reported in ERROR completions; 3: RX_DATA carries the whole DATA header (incoming, cutoff_version, the piggybacked ack; its length is 16 bits) and every other packet comes as a CONTROL completion; 3.1: the TX window and max_message_length, refused TX descriptors reported in ERROR completions; 3.2: on-chip TX memory (`tx_onchip_bytes`, `tx_onchip_faults`); 4: RX_DATA flags bit 1 (host grants) and GRANT_SENT completions, for grants made by the NIC (a 3.x driver refuses both).",
    },
];
