//! `HomaParser`: the RX parser. Ethernet (with at most one 802.1Q tag) → IPv4 or IPv6 →
//! Homa, at one AXI-Stream beat per clock; drops and counts malformed frames; emits one header
//! transaction per accepted frame and the DATA payload realigned to byte lane 0.
//!
//! ```text
//!  s_axis ──►┌──────── S0 ────────┐   ┌──────────── S1 ─────────────┐   ┌────────── S2 ──────────┐
//!  (W bits)  │ accept when `adv`  │   │ views of hb: untagged (u),  │   │ counters, error_* pulses│
//!            │ beat/pos counters  ├──►│ IP (ip), Homa (l4) bytes;   ├──►│ header push on tlast ───┼─► Fifo2 ─► m_hdr_*
//!            │ hb[]: header bytes │   │ fields, checks, verdict,    │   │ payload realigner       │
//!            │ 12..114 by lane    │   │ payload gate, ip_end        │   │ (prev ⧺ cur >> 8·shift) ┼─► Fifo2 ─► m_axis_*
//!            └────────────────────┘   └─────────────────────────────┘   └─────────────────────────┘
//!  adv = !hdr_fifo.full & !pay_fifo.full  (registered FIFO state only: no path from m_*_ready
//!  to s_axis_tready); every stage moves together when `adv` is high, bubbles included.
//! ```
//!
//! What it parses (byte offsets are computed from `homa_proto::wire::field::*`; E = 14, or 18
//! after a tag; L4 = E + 20 (IPv4) or E + 40 (IPv6)):
//!
//! | Frame bytes        | Field                             | Used for                             |
//! |--------------------|-----------------------------------|--------------------------------------|
//! | 12..14, 16..18     | EtherType / TPID, inner EtherType | tag, IPv4 vs IPv6, not-Homa, QinQ    |
//! | E+0                | version, IHL                      | version check; IHL must be 5         |
//! | E+1 (v4), E+0..2 (v6) | TOS / Traffic Class top 3 bits | `priority`                           |
//! | E+2..4 / E+4..6    | total length / payload length     | IP end vs frame, Homa length         |
//! | E+6..8 (v4)        | flags, fragment offset            | fragments are dropped                |
//! | E+9 / E+6          | protocol / next header            | 146, or 6 with the hijack marker     |
//! | E+0..20 (v4)       | whole header                      | header checksum                      |
//! | E+12..20 / E+8..40 | source, destination address       | `src_ip`, `dst_ip`                   |
//! | L4+0..28           | ports, sequence, type, flags, urgent, sender_id | common header fields   |
//! | L4+28..56          | DATA / GRANT / RESEND / ACK bodies| type fields, length and range checks |
//! | L4+28..59 (CUTOFFS L4+32..62) | control bodies         | `m_hdr_body`, masked to the type      |
//! | L4+56..IP end      | DATA payload                      | `m_axis`, realigned to lane 0        |
//!
//! Every control type's header length is checked (and ACK's `num_acks` ≤ 5); its body leaves
//! as raw bytes on `m_hdr_body`, the window a `CONTROL` completion carries
//! (`homa_proto::hostif::control_window`: GRANT, RESEND and CUTOFFS whole, an ACK's first two
//! entries).
//!
//! # Verdicts
//!
//! Checks run in exactly the order of `homa_proto::wire::FrameRepr::parse`, so the first
//! failing one names the reason, and each `wire::Reason` maps to one counter:
//!
//! | Counter                 | `wire` reasons                                                      |
//! |-------------------------|---------------------------------------------------------------------|
//! | `dropped_runt`          | Truncated inside the Ethernet header (tag included) or the fixed IP header |
//! | `dropped_bad_checksum`  | BadChecksum (IPv4 header checksum)                                  |
//! | `dropped_not_homa`      | NotHoma; BadVersion (EtherType and version nibble disagree); Unsupported at Ethernet (QinQ, stacked tags) |
//! | `dropped_bad_type`      | BadType                                                             |
//! | `dropped_bad_length`    | BadLength; other Truncated (IP length beyond the frame, IP payload shorter than the Homa header of its type); BadValue (GRANT/RESEND priority > 7); Unsupported at IPv4 (fragments) |
//!
//! One deliberate difference from the software parser: IPv4 options (IHL > 5) are not
//! supported and count as `dropped_bad_length`, at the place where the software parser
//! rejects IHL < 5.
//!
//! # Streams
//!
//! - Beats: byte 0 of the frame is in lane 0 (`tdata[7:0]`) of the first beat. `tkeep` is
//!   read on the last beat only (its highest set bit ends the frame; all-zero means the frame
//!   ended with the previous beat); earlier beats count as full.
//! - `m_hdr_*`: one transaction per accepted frame; with the last beat on `s_axis` in cycle t,
//!   `m_hdr_valid` rises in cycle t + 3 (S1, S2, the FIFO), unless `m_hdr` is back-pressured.
//! - `m_axis_*`: the payload of each accepted DATA frame with a non-empty payload, byte 0 in
//!   lane 0, `tkeep` contiguous, `tlast` on its last byte; bytes after the IP end (Ethernet
//!   padding) are not sent. The payload of frame N precedes its header on `m_hdr`. All checks
//!   but one are decided before the payload starts and a failing frame sends nothing; the
//!   exception is a frame that ends before its IP length: its payload, already under way, ends
//!   at the frame's end with `m_axis_tuser` = 1 (Forencich's bad-frame convention), and no
//!   header follows. A consumer keeps each payload until its header (or drops it on `tuser`).
//! - Back-pressure on either output stops the input (`s_axis_tready` low) and loses nothing.
//!   The two outputs are independent; a consumer must not wait for `m_hdr` before draining a
//!   payload larger than the payload FIFO (two beats), since the header comes after it.
//! - Counters are free-running (never reset, 32 bits, wrapping); each `error_*` output is a
//!   one-cycle pulse per dropped frame of that reason, one cycle after its counter moved.
//!
//! Timing note: S1 is one combinational stage from the header bytes to the verdict (class
//! decode, two byte-mux levels, a 20-byte checksum sum, 32-bit compares). It is the first
//! candidate to split for 250 MHz; the design does not depend on the stage count.

mod header;

pub use header::{Be16, Be16In20, Be16In32, Be32, Be64, Be128, Body31, HomaHeader};

use crate::fifo::Fifo2;
use crate::hdl::*;
use homa_proto::hostif::{CONTROL_BODY_LEN, control_window};
use homa_proto::wire::field::{ethernet as eth, homa, ipv4, ipv6};
use homa_proto::wire::{
    EtherType, MAX_ACKS_PER_PACKET, MAX_MESSAGE_LENGTH, NUM_PRIORITIES, PROTOCOL_HOMA,
    PROTOCOL_TCP, PacketType,
};

/// The first frame byte the parser captures (the outer EtherType).
const HB0: usize = eth::ETHERTYPE.start;
/// Extra bytes an 802.1Q tag puts before the IP header.
const TAG: usize = eth::TAGGED_HEADER_LEN - eth::HEADER_LEN;
/// One past the last frame byte the parser reads: a Homa view after a tag and IPv6.
const HB_END: usize = eth::TAGGED_HEADER_LEN + ipv6::HEADER_LEN + NL4;
/// Captured header bytes: frame bytes `HB0..HB_END`.
const NHB: usize = HB_END - HB0;
/// Bytes of the untagged view `u` (frame bytes from `HB0` as if there were no tag).
const NU: usize = NHB - TAG;
/// Where the IP header starts in `u`.
const IP0: usize = eth::HEADER_LEN - HB0;
/// Bytes of the IP view (the longer header).
const NIP: usize = ipv6::HEADER_LEN;
/// Where the Homa header starts in `u`, after IPv4 and after IPv6.
const L4_V4: usize = IP0 + ipv4::HEADER_LEN;
/// See [`L4_V4`].
const L4_V6: usize = IP0 + ipv6::HEADER_LEN;
/// Suffix-OR levels of the beat's byte count: lanes up to 2^6 = 64 (512 bits).
const KB_LEVELS: usize = 6;
/// Bits of the beat's byte count (0..=64).
const KB_BITS: usize = KB_LEVELS + 1;
// `update` ORs the count's bits by name.
const _: () = assert!(KB_BITS == 7);
/// Bytes of a control header a `CONTROL` completion carries (`proto::hostif`).
const BODY_LEN: usize = CONTROL_BODY_LEN;
/// Where the body window starts in the Homa header: after the common header, and for
/// CUTOFFS past `unsched_cutoffs[0]` (`hostif::control_window`).
const BODY0: usize = control_window(PacketType::Grant).0;
/// See [`BODY0`].
const BODY_CUTOFFS: usize = control_window(PacketType::Cutoffs).0;
/// Bytes of the Homa view: the DATA header, or the furthest body window byte.
const NL4: usize = if homa::DATA_HEADER_LEN > BODY_CUTOFFS + BODY_LEN {
    homa::DATA_HEADER_LEN
} else {
    BODY_CUTOFFS + BODY_LEN
};
/// 16-bit words of the IPv4 header (options unsupported).
const CSUM_WORDS: usize = ipv4::HEADER_LEN / 2;
/// Homa priorities are the top bits of TOS / Traffic Class (SPEC §1.1).
const PRIORITY_BITS: usize = NUM_PRIORITIES.trailing_zeros() as usize;
/// The IP version nibble: the high half of the first byte (both versions).
const VERSION_LSB: usize = 4;
/// IPv6's Traffic Class starts right under the version nibble, so its top bits are the
/// low nibble's top bits.
const V6_PRIORITY_LSB: usize = VERSION_LSB - PRIORITY_BITS;
/// IPv4's TOS is a whole byte.
const V4_PRIORITY_LSB: usize = 8 - PRIORITY_BITS;
/// RFC 791: in the high byte of flags/fragment offset, more-fragments (bit 5) and the top
/// five offset bits; any of them, or any bit of the low byte, makes a fragment.
const FRAG_MASK_HI: u64 = 0x3f;
/// Position saturation: frames longer than this keep the last position (far beyond any
/// IP length, so no verdict changes).
const POS_MAX: u64 = 0xffff_0000;
/// Number of packet types.
const NTYPES: usize = PacketType::ALL.len();
/// The four header layouts: bit 0 = is_tagged, bit 1 = IPv6.
const NCLASS: usize = 4;

const _: () = assert!(CSUM_WORDS == 10, "the checksum sum below adds ten words");
const _: () = assert!(8 * BODY_LEN == 248, "m_hdr_body and Body31 are 31 bytes");
const _: () = assert!(ipv4::VER_IHL == ipv6::VER_TC_FLOW.start);
const _: () = assert!(eth::ETHERTYPE.end - eth::ETHERTYPE.start == 2);
const _: () = assert!(eth::VLAN_ETHERTYPE.end - eth::VLAN_ETHERTYPE.start == 2);
const _: () = assert!(ipv4::LENGTH.end - ipv4::LENGTH.start == 2);
const _: () = assert!(ipv6::PAYLOAD_LEN.end - ipv6::PAYLOAD_LEN.start == 2);
const _: () = assert!(ipv4::SRC_ADDR.end - ipv4::SRC_ADDR.start == 4);
const _: () = assert!(ipv6::SRC_ADDR.end - ipv6::SRC_ADDR.start == 16);
const _: () = assert!(ipv4::DST_ADDR.end - ipv4::DST_ADDR.start == 4);
const _: () = assert!(ipv6::DST_ADDR.end - ipv6::DST_ADDR.start == 16);
const _: () = assert!(homa::NUM_ACKS.end <= NL4 && homa::URGENT.end <= NL4);
const _: () = assert!(homa::SPORT.end - homa::SPORT.start == 2);
const _: () = assert!(homa::DPORT.end - homa::DPORT.start == 2);
const _: () = assert!(homa::SEQUENCE.end - homa::SEQUENCE.start == 4);
const _: () = assert!(homa::URGENT.end - homa::URGENT.start == 2);
const _: () = assert!(homa::SENDER_ID.end - homa::SENDER_ID.start == 8);
const _: () = assert!(homa::MESSAGE_LENGTH.end - homa::MESSAGE_LENGTH.start == 4);
const _: () = assert!(homa::INCOMING.end - homa::INCOMING.start == 4);
const _: () = assert!(homa::ACK_CLIENT_ID.end - homa::ACK_CLIENT_ID.start == 8);
const _: () = assert!(homa::ACK_SERVER_PORT.end - homa::ACK_SERVER_PORT.start == 2);
const _: () = assert!(homa::DATA_CUTOFF_VERSION.end - homa::DATA_CUTOFF_VERSION.start == 2);
const _: () = assert!(homa::SEG_OFFSET.end - homa::SEG_OFFSET.start == 4);
const _: () = assert!(homa::GRANT_OFFSET.end - homa::GRANT_OFFSET.start == 4);
const _: () = assert!(homa::RESEND_OFFSET.end - homa::RESEND_OFFSET.start == 4);
const _: () = assert!(homa::RESEND_LENGTH.end - homa::RESEND_LENGTH.start == 4);
const _: () = assert!(homa::NUM_ACKS.end - homa::NUM_ACKS.start == 2);

/// Verdict codes (the `s2_verdict` register).
mod verdict {
    pub const OK: u64 = 0;
    pub const RUNT: u64 = 1;
    pub const BAD_CHECKSUM: u64 = 2;
    pub const NOT_HOMA: u64 = 3;
    pub const BAD_TYPE: u64 = 4;
    pub const BAD_LENGTH: u64 = 5;
}

fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(v.into())
}

fn kb(v: bool) -> Constant<Bit> {
    Constant::new(v)
}

/// The RX parser for a `W`-bit stream with `K` = `W / 8` byte lanes (see the module doc).
/// Use [`HomaParser64`] or [`HomaParser512`], or check `W` in [`HomaParser::new`].
#[derive(LogicBlock)]
pub struct HomaParser<const W: usize, const K: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high (counters are not reset).
    pub reset: Signal<In, Bit>,
    /// Input beat data; frame byte 0 in `tdata[7:0]` of the first beat.
    pub s_axis_tdata: Signal<In, Bits<W>>,
    /// Input byte enables (read on the last beat).
    pub s_axis_tkeep: Signal<In, Bits<K>>,
    /// Input beat valid.
    pub s_axis_tvalid: Signal<In, Bit>,
    /// Last beat of a frame.
    pub s_axis_tlast: Signal<In, Bit>,
    /// The parser takes the beat this cycle.
    pub s_axis_tready: Signal<Out, Bit>,
    /// A header transaction is on `m_hdr_*`.
    pub m_hdr_valid: Signal<Out, Bit>,
    /// The consumer takes the header this cycle.
    pub m_hdr_ready: Signal<In, Bit>,
    /// 4 or 6.
    pub m_hdr_ip_version: Signal<Out, Bits<4>>,
    /// Source address (IPv4 in the low 32 bits).
    pub m_hdr_src_ip: Signal<Out, Bits<128>>,
    /// Destination address (IPv4 in the low 32 bits).
    pub m_hdr_dst_ip: Signal<Out, Bits<128>>,
    /// Homa priority: top three bits of TOS / Traffic Class.
    pub m_hdr_priority: Signal<Out, Bits<3>>,
    /// Source port.
    pub m_hdr_sport: Signal<Out, Bits<16>>,
    /// Destination port.
    pub m_hdr_dport: Signal<Out, Bits<16>>,
    /// Packet type (0x10..=0x18).
    pub m_hdr_type: Signal<Out, Bits<8>>,
    /// RPC id as the sender knows it.
    pub m_hdr_sender_id: Signal<Out, Bits<64>>,
    /// DATA: message length.
    pub m_hdr_data_message_length: Signal<Out, Bits<32>>,
    /// DATA: `incoming`.
    pub m_hdr_data_incoming: Signal<Out, Bits<32>>,
    /// DATA: message offset of the payload (the `seg.offset` = all-ones rule applied).
    pub m_hdr_data_offset: Signal<Out, Bits<32>>,
    /// DATA: cutoff version.
    pub m_hdr_data_cutoff_version: Signal<Out, Bits<16>>,
    /// DATA: sent in response to a RESEND.
    pub m_hdr_data_retransmit: Signal<Out, Bit>,
    /// DATA: piggybacked ACK client id (0 = none).
    pub m_hdr_data_ack_client_id: Signal<Out, Bits<64>>,
    /// DATA: piggybacked ACK server port.
    pub m_hdr_data_ack_server_port: Signal<Out, Bits<16>>,
    /// DATA: payload bytes on `m_axis`.
    pub m_hdr_data_payload_len: Signal<Out, Bits<16>>,
    /// GRANT: granted offset.
    pub m_hdr_grant_offset: Signal<Out, Bits<32>>,
    /// GRANT: priority.
    pub m_hdr_grant_priority: Signal<Out, Bits<3>>,
    /// RESEND: first byte.
    pub m_hdr_resend_offset: Signal<Out, Bits<32>>,
    /// RESEND: length (all ones = everything).
    pub m_hdr_resend_length: Signal<Out, Bits<32>>,
    /// RESEND: priority.
    pub m_hdr_resend_priority: Signal<Out, Bits<3>>,
    /// Control packets: the body window a `CONTROL` completion carries
    /// (`hostif::control_window`), wire byte `i` in bits `8i+7..8i`, zero past the type's
    /// window; zero for DATA.
    pub m_hdr_body: Signal<Out, Bits<248>>,
    /// Payload beat data, payload byte 0 in lane 0.
    pub m_axis_tdata: Signal<Out, Bits<W>>,
    /// Payload byte enables (contiguous from lane 0).
    pub m_axis_tkeep: Signal<Out, Bits<K>>,
    /// Payload beat valid.
    pub m_axis_tvalid: Signal<Out, Bit>,
    /// Last beat of a payload.
    pub m_axis_tlast: Signal<Out, Bit>,
    /// On the last beat: the frame was truncated, drop this payload.
    pub m_axis_tuser: Signal<Out, Bit>,
    /// The consumer takes the payload beat this cycle.
    pub m_axis_tready: Signal<In, Bit>,
    /// A frame is in progress or in the pipeline, or an output holds data.
    pub busy: Signal<Out, Bit>,
    /// Frames accepted.
    pub frames_ok: Signal<Out, Bits<32>>,
    /// Frames dropped: shorter than their Ethernet or fixed IP header.
    pub dropped_runt: Signal<Out, Bits<32>>,
    /// Frames dropped: bad IPv4 header checksum.
    pub dropped_bad_checksum: Signal<Out, Bits<32>>,
    /// Frames dropped: not Homa (EtherType, IP version, protocol / next header, QinQ).
    pub dropped_not_homa: Signal<Out, Bits<32>>,
    /// Frames dropped: unknown Homa packet type.
    pub dropped_bad_type: Signal<Out, Bits<32>>,
    /// Frames dropped: length or range fields wrong (see the module doc).
    pub dropped_bad_length: Signal<Out, Bits<32>>,
    /// One-cycle pulse per frame counted in `dropped_runt`.
    pub error_runt: Signal<Out, Bit>,
    /// One-cycle pulse per frame counted in `dropped_bad_checksum`.
    pub error_bad_checksum: Signal<Out, Bit>,
    /// One-cycle pulse per frame counted in `dropped_not_homa`.
    pub error_not_homa: Signal<Out, Bit>,
    /// One-cycle pulse per frame counted in `dropped_bad_type`.
    pub error_bad_type: Signal<Out, Bit>,
    /// One-cycle pulse per frame counted in `dropped_bad_length`.
    pub error_bad_length: Signal<Out, Bit>,

    // ---- S0: input, header capture
    adv: Signal<Local, Bit>,
    acc: Signal<Local, Bit>,
    beat: DFF<Bits<8>>,
    pos: DFF<Bits<32>>,
    hb: [DFF<Bits<8>>; NHB],
    s1_valid: DFF<Bit>,
    s1_last: DFF<Bit>,
    s1_data: DFF<Bits<W>>,
    s1_kb: DFF<Bits<32>>,
    s1_pos: DFF<Bits<32>>,
    // ---- S0: the beat's byte count (see `update`)
    sfx: [Signal<Local, Bits<K>>; KB_LEVELS + 1],
    top_keep: Signal<Local, Bits<K>>,
    kbit: [Signal<Local, Bits<32>>; KB_BITS],
    // ---- S1: views, fields, checks
    et_outer: Signal<Local, Be16>,
    et_inner: Signal<Local, Be16>,
    eff_et: Signal<Local, Be16>,
    is_tagged: Signal<Local, Bit>,
    v6: Signal<Local, Bit>,
    u: [Signal<Local, Bits<8>>; NU],
    ip: [Signal<Local, Bits<8>>; NIP],
    l4: [Signal<Local, Bits<8>>; NL4],
    cls: Signal<Local, Bits<2>>,
    kbytes: Signal<Local, Bits<32>>,
    frame_len: Signal<Local, Bits<32>>,
    eth_len: Signal<Local, Bits<32>>,
    ip_fixed_end: Signal<Local, Bits<32>>,
    ip_total: Signal<Local, Be16In32>,
    ip6_plen: Signal<Local, Be16In32>,
    ip_end: Signal<Local, Bits<32>>,
    homa_len: Signal<Local, Bits<32>>,
    ver: Signal<Local, Bits<4>>,
    ihl: Signal<Local, Bits<4>>,
    frag: Signal<Local, Bit>,
    cw0: Signal<Local, Be16In20>,
    cw1: Signal<Local, Be16In20>,
    cw2: Signal<Local, Be16In20>,
    cw3: Signal<Local, Be16In20>,
    cw4: Signal<Local, Be16In20>,
    cw5: Signal<Local, Be16In20>,
    cw6: Signal<Local, Be16In20>,
    cw7: Signal<Local, Be16In20>,
    cw8: Signal<Local, Be16In20>,
    cw9: Signal<Local, Be16In20>,
    csum_sum: Signal<Local, Bits<20>>,
    csum_ok: Signal<Local, Bit>,
    proto: Signal<Local, Bits<8>>,
    src: Signal<Local, Be128>,
    dst: Signal<Local, Be128>,
    f_sport: Signal<Local, Be16>,
    f_dport: Signal<Local, Be16>,
    f_seq: Signal<Local, Be32>,
    f_type: Signal<Local, Bits<8>>,
    f_flags: Signal<Local, Bits<8>>,
    f_urgent: Signal<Local, Be16>,
    f_sender_id: Signal<Local, Be64>,
    f_msg_len: Signal<Local, Be32>,
    f_incoming: Signal<Local, Be32>,
    f_ack_id: Signal<Local, Be64>,
    f_ack_port: Signal<Local, Be16>,
    f_cutoff: Signal<Local, Be16>,
    f_retransmit: Signal<Local, Bits<8>>,
    f_seg_off: Signal<Local, Be32>,
    f_grant_off: Signal<Local, Be32>,
    f_grant_prio: Signal<Local, Bits<8>>,
    f_resend_off: Signal<Local, Be32>,
    f_resend_len: Signal<Local, Be32>,
    f_resend_prio: Signal<Local, Bits<8>>,
    f_num_acks: Signal<Local, Be16>,
    // The body window: its length for the type, its bytes, packed.
    wlen: Signal<Local, Bits<8>>,
    is_cutoffs: Signal<Local, Bit>,
    bw: [Signal<Local, Bits<8>>; BODY_LEN],
    f_body: Signal<Local, Body31>,
    data_off: Signal<Local, Bits<32>>,
    paylen: Signal<Local, Bits<32>>,
    known_type: Signal<Local, Bit>,
    need_len: Signal<Local, Bits<32>>,
    e_runt_eth: Signal<Local, Bit>,
    e_qinq: Signal<Local, Bit>,
    e_runt_tag: Signal<Local, Bit>,
    e_stacked: Signal<Local, Bit>,
    e_not_ip: Signal<Local, Bit>,
    e_runt_ip: Signal<Local, Bit>,
    e_bad_ver: Signal<Local, Bit>,
    e_bad_ihl: Signal<Local, Bit>,
    e_trunc: Signal<Local, Bit>,
    e_bad_csum: Signal<Local, Bit>,
    e_frag: Signal<Local, Bit>,
    e_not_homa: Signal<Local, Bit>,
    e_short_homa: Signal<Local, Bit>,
    e_bad_type: Signal<Local, Bit>,
    e_short_type: Signal<Local, Bit>,
    e_bad_body: Signal<Local, Bit>,
    verdict: Signal<Local, Bits<3>>,
    gate: Signal<Local, Bit>,
    hdr_c: Signal<Local, HomaHeader>,
    s2_valid: DFF<Bit>,
    s2_last: DFF<Bit>,
    s2_data: DFF<Bits<W>>,
    s2_pos: DFF<Bits<32>>,
    s2_fe: DFF<Bits<32>>,
    /// The frame ends before its IP length says (S1's `e_trunc`), for `trunc`.
    s2_short: DFF<Bit>,
    s2_pe: DFF<Bits<32>>,
    s2_gate: DFF<Bit>,
    s2_cls: DFF<Bits<2>>,
    s2_verdict: DFF<Bits<3>>,
    s2_hdr: DFF<HomaHeader>,
    // ---- S2: verdict, counters, realigner
    fire: Signal<Local, Bit>,
    trunc: Signal<Local, Bit>,
    pay_end: Signal<Local, Bits<32>>,
    sb: Signal<Local, Bits<32>>,
    pb: Signal<Local, Bits<32>>,
    pbk: Signal<Local, Bits<32>>,
    p_s: Signal<Local, Bits<32>>,
    act: Signal<Local, Bit>,
    is_mid: Signal<Local, Bit>,
    is_tail: Signal<Local, Bit>,
    mid_last: Signal<Local, Bit>,
    pe8: Signal<Local, Bits<8>>,
    ps8: Signal<Local, Bits<8>>,
    mid_n8: Signal<Local, Bits<8>>,
    tail_n8: Signal<Local, Bits<8>>,
    mid_keep: Signal<Local, Bits<K>>,
    tail_keep: Signal<Local, Bits<K>>,
    mid_data: Signal<Local, Bits<W>>,
    tail_data: Signal<Local, Bits<W>>,
    flush_data: Signal<Local, Bits<W>>,
    o_valid: Signal<Local, Bit>,
    o_data: Signal<Local, Bits<W>>,
    o_keep: Signal<Local, Bits<K>>,
    o_last: Signal<Local, Bit>,
    o_user: Signal<Local, Bit>,
    r_prev: DFF<Bits<W>>,
    f_pending: DFF<Bit>,
    f_keep: DFF<Bits<K>>,
    f_bad: DFF<Bit>,
    f_cls: DFF<Bits<2>>,
    cnt_ok: DFF<Bits<32>>,
    cnt_runt: DFF<Bits<32>>,
    cnt_csum: DFF<Bits<32>>,
    cnt_not_homa: DFF<Bits<32>>,
    cnt_type: DFF<Bits<32>>,
    cnt_len: DFF<Bits<32>>,
    p_runt: DFF<Bit>,
    p_csum: DFF<Bit>,
    p_not_homa: DFF<Bit>,
    p_type: DFF<Bit>,
    p_len: DFF<Bit>,
    hdr_fifo: Fifo2<HomaHeader>,
    pay_data: Fifo2<Bits<W>>,
    pay_keep: Fifo2<Bits<K>>,
    pay_last: Fifo2<Bit>,
    pay_user: Fifo2<Bit>,

    // ---- constants (computed in `new` from the wire field modules)
    c_beat: [Constant<Bits<8>>; NHB],
    c_lane: [Constant<Bits<16>>; NHB],
    c_beat_max: Constant<Bits<8>>,
    c_zero8: Constant<Bits<8>>,
    c_one8: Constant<Bits<8>>,
    c_zero4: Constant<Bits<4>>,
    c_zero16: Constant<Bits<16>>,
    c_zero32: Constant<Bits<32>>,
    c_one32: Constant<Bits<32>>,
    c_k32: Constant<Bits<32>>,
    c_k8: Constant<Bits<8>>,
    c_pos_max: Constant<Bits<32>>,
    c_vlan: Constant<Bits<16>>,
    c_qinq: Constant<Bits<16>>,
    c_ipv4: Constant<Bits<16>>,
    c_ipv6: Constant<Bits<16>>,
    c_ver4: Constant<Bits<4>>,
    c_ver6: Constant<Bits<4>>,
    c_ihl5: Constant<Bits<4>>,
    c_ver_lsb: Constant<Bits<3>>,
    c_v4_prio_lsb: Constant<Bits<3>>,
    c_v6_prio_lsb: Constant<Bits<3>>,
    c_bit0_8: Constant<Bits<3>>,
    c_bit0_32: Constant<Bits<5>>,
    c_frag_mask: Constant<Bits<8>>,
    c_proto_homa: Constant<Bits<8>>,
    c_proto_tcp: Constant<Bits<8>>,
    c_hijack_flags: Constant<Bits<8>>,
    c_hijack_urgent: Constant<Bits<16>>,
    c_eth_untagged: Constant<Bits<32>>,
    c_eth_tagged: Constant<Bits<32>>,
    c_v4_hdr: Constant<Bits<32>>,
    c_v6_hdr: Constant<Bits<32>>,
    c_common_len: Constant<Bits<32>>,
    c_data_hdr: Constant<Bits<32>>,
    c_type: [Constant<Bits<8>>; NTYPES],
    c_hlen: [Constant<Bits<32>>; NTYPES],
    c_type_data: Constant<Bits<8>>,
    c_type_grant: Constant<Bits<8>>,
    c_type_resend: Constant<Bits<8>>,
    c_type_ack: Constant<Bits<8>>,
    c_type_cutoffs: Constant<Bits<8>>,
    c_wlen: [Constant<Bits<8>>; NTYPES],
    c_bi: [Constant<Bits<8>>; BODY_LEN],
    c_max_msg: Constant<Bits<32>>,
    c_nprio: Constant<Bits<8>>,
    c_max_acks: Constant<Bits<16>>,
    c_seg_use_seq: Constant<Bits<32>>,
    c_csum_ok: [Constant<Bits<20>>; CSUM_WORDS],
    c_sh: [Constant<Bits<8>>; KB_LEVELS],
    c_kbm: [Constant<Bits<K>>; KB_BITS],
    c_pow: [Constant<Bits<32>>; KB_BITS],
    c_keep_all: Constant<Bits<K>>,
    c_cls: [Constant<Bits<2>>; NCLASS],
    c_cls_tag: [Constant<Bit>; NCLASS],
    c_cls_v6: [Constant<Bit>; NCLASS],
    c_shr: [Constant<Bits<16>>; NCLASS],
    c_shl: [Constant<Bits<16>>; NCLASS],
    c_sb: [Constant<Bits<32>>; NCLASS],
    c_pb: [Constant<Bits<32>>; NCLASS],
    c_pbk: [Constant<Bits<32>>; NCLASS],
    c_v_ok: Constant<Bits<3>>,
    c_v_runt: Constant<Bits<3>>,
    c_v_csum: Constant<Bits<3>>,
    c_v_not_homa: Constant<Bits<3>>,
    c_v_type: Constant<Bits<3>>,
    c_v_len: Constant<Bits<3>>,
}

/// The 64-bit parser (8 byte lanes).
pub type HomaParser64 = HomaParser<64, 8>;
/// The 512-bit parser (64 byte lanes): 100 Gb/s at 250 MHz.
pub type HomaParser512 = HomaParser<512, 64>;

/// The first byte of IPv4 header word `i`.
const fn cw_at(i: usize) -> usize {
    2 * i
}

/// Header layout of a class (bit 0 = is_tagged, bit 1 = IPv6): the frame position where the
/// DATA payload starts.
const fn payload_start(class: usize) -> usize {
    let eth_len = if class & 1 != 0 {
        eth::TAGGED_HEADER_LEN
    } else {
        eth::HEADER_LEN
    };
    let ip_len = if class & 2 != 0 {
        ipv6::HEADER_LEN
    } else {
        ipv4::HEADER_LEN
    };
    eth_len + ip_len + homa::DATA_HEADER_LEN
}

impl<const W: usize, const K: usize> HomaParser<W, K> {
    /// Builds the parser; panics unless `W` is 64, 128, 256 or 512 and `K` = `W / 8`
    /// (a construction-time parameter check, like a Verilog `initial` assertion).
    pub fn new() -> Self {
        assert!(
            matches!(W, 64 | 128 | 256 | 512),
            "W must be 64, 128, 256 or 512"
        );
        assert_eq!(K * 8, W, "K must be W / 8");
        for class in 0..NCLASS {
            // The realigner relies on a payload that starts mid-beat and never in beat 0.
            assert!(!payload_start(class).is_multiple_of(K) && payload_start(class) >= K);
        }
        let shift = |c: usize| payload_start(c) % K;
        Self {
            clock: Signal::default(),
            reset: Signal::default(),
            s_axis_tdata: Signal::default(),
            s_axis_tkeep: Signal::default(),
            s_axis_tvalid: Signal::default(),
            s_axis_tlast: Signal::default(),
            s_axis_tready: Signal::default(),
            m_hdr_valid: Signal::default(),
            m_hdr_ready: Signal::default(),
            m_hdr_ip_version: Signal::default(),
            m_hdr_src_ip: Signal::default(),
            m_hdr_dst_ip: Signal::default(),
            m_hdr_priority: Signal::default(),
            m_hdr_sport: Signal::default(),
            m_hdr_dport: Signal::default(),
            m_hdr_type: Signal::default(),
            m_hdr_sender_id: Signal::default(),
            m_hdr_data_message_length: Signal::default(),
            m_hdr_data_incoming: Signal::default(),
            m_hdr_data_offset: Signal::default(),
            m_hdr_data_cutoff_version: Signal::default(),
            m_hdr_data_retransmit: Signal::default(),
            m_hdr_data_ack_client_id: Signal::default(),
            m_hdr_data_ack_server_port: Signal::default(),
            m_hdr_data_payload_len: Signal::default(),
            m_hdr_grant_offset: Signal::default(),
            m_hdr_grant_priority: Signal::default(),
            m_hdr_resend_offset: Signal::default(),
            m_hdr_resend_length: Signal::default(),
            m_hdr_resend_priority: Signal::default(),
            m_hdr_body: Signal::default(),
            m_axis_tdata: Signal::default(),
            m_axis_tkeep: Signal::default(),
            m_axis_tvalid: Signal::default(),
            m_axis_tlast: Signal::default(),
            m_axis_tuser: Signal::default(),
            m_axis_tready: Signal::default(),
            busy: Signal::default(),
            frames_ok: Signal::default(),
            dropped_runt: Signal::default(),
            dropped_bad_checksum: Signal::default(),
            dropped_not_homa: Signal::default(),
            dropped_bad_type: Signal::default(),
            dropped_bad_length: Signal::default(),
            error_runt: Signal::default(),
            error_bad_checksum: Signal::default(),
            error_not_homa: Signal::default(),
            error_bad_type: Signal::default(),
            error_bad_length: Signal::default(),
            adv: Signal::default(),
            acc: Signal::default(),
            beat: DFF::default(),
            pos: DFF::default(),
            hb: std::array::from_fn(|_| DFF::default()),
            s1_valid: DFF::default(),
            s1_last: DFF::default(),
            s1_data: DFF::default(),
            s1_kb: DFF::default(),
            sfx: Default::default(),
            top_keep: Signal::default(),
            kbit: Default::default(),
            s1_pos: DFF::default(),
            et_outer: Signal::default(),
            et_inner: Signal::default(),
            eff_et: Signal::default(),
            is_tagged: Signal::default(),
            v6: Signal::default(),
            u: std::array::from_fn(|_| Signal::default()),
            ip: std::array::from_fn(|_| Signal::default()),
            l4: std::array::from_fn(|_| Signal::default()),
            cls: Signal::default(),
            kbytes: Signal::default(),
            frame_len: Signal::default(),
            eth_len: Signal::default(),
            ip_fixed_end: Signal::default(),
            ip_total: Signal::default(),
            ip6_plen: Signal::default(),
            ip_end: Signal::default(),
            homa_len: Signal::default(),
            ver: Signal::default(),
            ihl: Signal::default(),
            frag: Signal::default(),
            cw0: Signal::default(),
            cw1: Signal::default(),
            cw2: Signal::default(),
            cw3: Signal::default(),
            cw4: Signal::default(),
            cw5: Signal::default(),
            cw6: Signal::default(),
            cw7: Signal::default(),
            cw8: Signal::default(),
            cw9: Signal::default(),
            csum_sum: Signal::default(),
            csum_ok: Signal::default(),
            proto: Signal::default(),
            src: Signal::default(),
            dst: Signal::default(),
            f_sport: Signal::default(),
            f_dport: Signal::default(),
            f_seq: Signal::default(),
            f_type: Signal::default(),
            f_flags: Signal::default(),
            f_urgent: Signal::default(),
            f_sender_id: Signal::default(),
            f_msg_len: Signal::default(),
            f_incoming: Signal::default(),
            f_ack_id: Signal::default(),
            f_ack_port: Signal::default(),
            f_cutoff: Signal::default(),
            f_retransmit: Signal::default(),
            f_seg_off: Signal::default(),
            f_grant_off: Signal::default(),
            f_grant_prio: Signal::default(),
            f_resend_off: Signal::default(),
            f_resend_len: Signal::default(),
            f_resend_prio: Signal::default(),
            f_num_acks: Signal::default(),
            wlen: Signal::default(),
            is_cutoffs: Signal::default(),
            bw: std::array::from_fn(|_| Signal::default()),
            f_body: Signal::default(),
            data_off: Signal::default(),
            paylen: Signal::default(),
            known_type: Signal::default(),
            need_len: Signal::default(),
            e_runt_eth: Signal::default(),
            e_qinq: Signal::default(),
            e_runt_tag: Signal::default(),
            e_stacked: Signal::default(),
            e_not_ip: Signal::default(),
            e_runt_ip: Signal::default(),
            e_bad_ver: Signal::default(),
            e_bad_ihl: Signal::default(),
            e_trunc: Signal::default(),
            e_bad_csum: Signal::default(),
            e_frag: Signal::default(),
            e_not_homa: Signal::default(),
            e_short_homa: Signal::default(),
            e_bad_type: Signal::default(),
            e_short_type: Signal::default(),
            e_bad_body: Signal::default(),
            verdict: Signal::default(),
            gate: Signal::default(),
            hdr_c: Signal::default(),
            s2_valid: DFF::default(),
            s2_last: DFF::default(),
            s2_data: DFF::default(),
            s2_pos: DFF::default(),
            s2_fe: DFF::default(),
            s2_short: DFF::default(),
            s2_pe: DFF::default(),
            s2_gate: DFF::default(),
            s2_cls: DFF::default(),
            s2_verdict: DFF::default(),
            s2_hdr: DFF::default(),
            fire: Signal::default(),
            trunc: Signal::default(),
            pay_end: Signal::default(),
            sb: Signal::default(),
            pb: Signal::default(),
            pbk: Signal::default(),
            p_s: Signal::default(),
            act: Signal::default(),
            is_mid: Signal::default(),
            is_tail: Signal::default(),
            mid_last: Signal::default(),
            pe8: Signal::default(),
            ps8: Signal::default(),
            mid_n8: Signal::default(),
            tail_n8: Signal::default(),
            mid_keep: Signal::default(),
            tail_keep: Signal::default(),
            mid_data: Signal::default(),
            tail_data: Signal::default(),
            flush_data: Signal::default(),
            o_valid: Signal::default(),
            o_data: Signal::default(),
            o_keep: Signal::default(),
            o_last: Signal::default(),
            o_user: Signal::default(),
            r_prev: DFF::default(),
            f_pending: DFF::default(),
            f_keep: DFF::default(),
            f_bad: DFF::default(),
            f_cls: DFF::default(),
            cnt_ok: DFF::default(),
            cnt_runt: DFF::default(),
            cnt_csum: DFF::default(),
            cnt_not_homa: DFF::default(),
            cnt_type: DFF::default(),
            cnt_len: DFF::default(),
            p_runt: DFF::default(),
            p_csum: DFF::default(),
            p_not_homa: DFF::default(),
            p_type: DFF::default(),
            p_len: DFF::default(),
            hdr_fifo: Fifo2::default(),
            pay_data: Fifo2::default(),
            pay_keep: Fifo2::default(),
            pay_last: Fifo2::default(),
            pay_user: Fifo2::default(),
            c_beat: std::array::from_fn(|i| k(((HB0 + i) / K) as u64)),
            c_lane: std::array::from_fn(|i| k((((HB0 + i) % K) * 8) as u64)),
            c_beat_max: k(0xff),
            c_zero8: k(0),
            c_one8: k(1),
            c_zero4: k(0),
            c_zero16: k(0),
            c_zero32: k(0),
            c_one32: k(1),
            c_k32: k(K as u64),
            c_k8: k(K as u64),
            c_pos_max: k(POS_MAX),
            c_vlan: k(EtherType::VLAN.0.into()),
            c_qinq: k(EtherType::QINQ.0.into()),
            c_ipv4: k(EtherType::IPV4.0.into()),
            c_ipv6: k(EtherType::IPV6.0.into()),
            c_ver4: k(4),
            c_ver6: k(6),
            c_ihl5: k((ipv4::HEADER_LEN / 4) as u64),
            c_ver_lsb: k(VERSION_LSB as u64),
            c_v4_prio_lsb: k(V4_PRIORITY_LSB as u64),
            c_v6_prio_lsb: k(V6_PRIORITY_LSB as u64),
            c_bit0_8: k(0),
            c_bit0_32: k(0),
            c_frag_mask: k(FRAG_MASK_HI),
            c_proto_homa: k(PROTOCOL_HOMA.into()),
            c_proto_tcp: k(PROTOCOL_TCP.into()),
            c_hijack_flags: k(homa::HIJACK_FLAGS.into()),
            c_hijack_urgent: k(homa::HIJACK_URGENT.into()),
            c_eth_untagged: k(eth::HEADER_LEN as u64),
            c_eth_tagged: k(eth::TAGGED_HEADER_LEN as u64),
            c_v4_hdr: k(ipv4::HEADER_LEN as u64),
            c_v6_hdr: k(ipv6::HEADER_LEN as u64),
            c_common_len: k(homa::COMMON_LEN as u64),
            c_data_hdr: k(homa::DATA_HEADER_LEN as u64),
            c_type: std::array::from_fn(|i| k(u8::from(PacketType::ALL[i]).into())),
            c_hlen: std::array::from_fn(|i| k(PacketType::ALL[i].header_len().unwrap_or(0) as u64)),
            c_type_data: k(u8::from(PacketType::Data).into()),
            c_type_grant: k(u8::from(PacketType::Grant).into()),
            c_type_resend: k(u8::from(PacketType::Resend).into()),
            c_type_ack: k(u8::from(PacketType::Ack).into()),
            c_type_cutoffs: k(u8::from(PacketType::Cutoffs).into()),
            c_wlen: std::array::from_fn(|i| k(control_window(PacketType::ALL[i]).1 as u64)),
            c_bi: std::array::from_fn(|i| k(i as u64)),
            c_max_msg: k(MAX_MESSAGE_LENGTH.into()),
            c_nprio: k(NUM_PRIORITIES as u64),
            c_max_acks: k(MAX_ACKS_PER_PACKET as u64),
            c_seg_use_seq: k(homa::SEG_OFFSET_USE_SEQUENCE.into()),
            c_csum_ok: std::array::from_fn(|i| k(0xffff * (i as u64 + 1))),
            c_sh: std::array::from_fn(|l| k(1 << l)),
            // Count bit j of lane i's byte count i + 1.
            c_kbm: std::array::from_fn(|j| {
                let mut m: Bits<K> = Bits::default();
                for lane in (0..K).filter(|lane| (lane + 1) >> j & 1 == 1) {
                    m = m.replace_bit(lane, true);
                }
                Constant::new(m)
            }),
            c_pow: std::array::from_fn(|j| k(1 << j)),
            c_keep_all: Constant::new(!Bits::default()),
            c_cls: std::array::from_fn(|c| k(c as u64)),
            c_cls_tag: std::array::from_fn(|c| kb(c & 1 != 0)),
            c_cls_v6: std::array::from_fn(|c| kb(c & 2 != 0)),
            c_shr: std::array::from_fn(|c| k((8 * shift(c)) as u64)),
            c_shl: std::array::from_fn(|c| k((W - 8 * shift(c)) as u64)),
            c_sb: std::array::from_fn(|c| k(shift(c) as u64)),
            c_pb: std::array::from_fn(|c| k((payload_start(c) - shift(c)) as u64)),
            c_pbk: std::array::from_fn(|c| k((payload_start(c) - shift(c) + K) as u64)),
            c_v_ok: k(verdict::OK),
            c_v_runt: k(verdict::RUNT),
            c_v_csum: k(verdict::BAD_CHECKSUM),
            c_v_not_homa: k(verdict::NOT_HOMA),
            c_v_type: k(verdict::BAD_TYPE),
            c_v_len: k(verdict::BAD_LENGTH),
        }
    }
}

impl<const W: usize, const K: usize> core::fmt::Debug for HomaParser<W, K> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("HomaParser")
            .field("width", &W)
            .field("frames_ok", &self.cnt_ok.q.val())
            .finish_non_exhaustive()
    }
}

impl<const W: usize, const K: usize> Default for HomaParser<W, K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const K: usize> Logic for HomaParser<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            beat,
            pos,
            s1_valid,
            s1_last,
            s1_data,
            s1_kb,
            s1_pos,
            s2_valid,
            s2_last,
            s2_data,
            s2_pos,
            s2_fe,
            s2_short,
            s2_pe,
            s2_gate,
            s2_cls,
            s2_verdict,
            s2_hdr,
            r_prev,
            f_pending,
            f_keep,
            f_bad,
            f_cls,
            cnt_ok,
            cnt_runt,
            cnt_csum,
            cnt_not_homa,
            cnt_type,
            cnt_len,
            p_runt,
            p_csum,
            p_not_homa,
            p_type,
            p_len
        );
        // ---------------- flow control: every stage moves when both outputs have room
        self.adv.next = !self.hdr_fifo.full.val()
            & !self.pay_data.full.val()
            & !self.pay_keep.full.val()
            & !self.pay_last.full.val()
            & !self.pay_user.full.val();
        self.s_axis_tready.next = self.adv.val() & !self.reset.val();
        self.acc.next = self.s_axis_tvalid.val() & self.adv.val() & !self.reset.val();

        // ---------------- S0: beat and position counters, header byte capture
        if self.acc.val() {
            if self.s_axis_tlast.val() {
                self.beat.d.next = self.c_zero8.val();
                self.pos.d.next = self.c_zero32.val();
            } else {
                if self.beat.q.val() != self.c_beat_max.val() {
                    self.beat.d.next = self.beat.q.val() + self.c_one8.val();
                }
                if self.pos.q.val() < self.c_pos_max.val() {
                    self.pos.d.next = self.pos.q.val() + self.c_k32.val();
                }
            }
        }
        for i in 0..NHB {
            self.hb[i].clock.next = self.clock.val();
            self.hb[i].d.next = self.hb[i].q.val();
            if self.acc.val() & (self.beat.q.val() == self.c_beat[i].val()) {
                self.hb[i].d.next = self
                    .s_axis_tdata
                    .val()
                    .get_bits::<8>(self.c_lane[i].val().index());
            }
        }
        // The beat's bytes, its highest set keep bit + 1 (0 for none), in log depth: suffix
        // ORs (sfx[l][i]: a keep bit set in lanes i..i + 2^l), the top set bit as a one-hot,
        // and each bit of the count an OR over the lanes whose count has it.
        self.sfx[0].next = self.s_axis_tkeep.val();
        for l in 0..KB_LEVELS {
            self.sfx[l + 1].next = self.sfx[l].val() | (self.sfx[l].val() >> self.c_sh[l].val());
        }
        for t in KB_LEVELS..(KB_LEVELS + 1) {
            self.top_keep.next =
                self.s_axis_tkeep.val() & !(self.sfx[t].val() >> self.c_sh[0].val());
        }
        for j in 0..KB_BITS {
            self.kbit[j].next = self.c_zero32.val();
            if (self.top_keep.val() & self.c_kbm[j].val()).any() {
                self.kbit[j].next = self.c_pow[j].val();
            }
        }
        self.kbytes.next = self.kbit[0].val()
            | self.kbit[1].val()
            | self.kbit[2].val()
            | self.kbit[3].val()
            | self.kbit[4].val()
            | self.kbit[5].val()
            | self.kbit[6].val();
        if self.adv.val() {
            self.s1_valid.d.next = self.acc.val();
            self.s1_last.d.next = self.s_axis_tlast.val();
            self.s1_data.d.next = self.s_axis_tdata.val();
            self.s1_kb.d.next = self.kbytes.val();
            self.s1_pos.d.next = self.pos.q.val();
        }

        // ---------------- S1: byte views of the captured header
        for o in (eth::ETHERTYPE.start - HB0)..(eth::ETHERTYPE.start - HB0 + 1) {
            self.et_outer.next.b1 = self.hb[o].q.val();
            self.et_outer.next.b0 = self.hb[o + 1].q.val();
        }
        for o in (eth::VLAN_ETHERTYPE.start - HB0)..(eth::VLAN_ETHERTYPE.start - HB0 + 1) {
            self.et_inner.next.b1 = self.hb[o].q.val();
            self.et_inner.next.b0 = self.hb[o + 1].q.val();
        }
        self.is_tagged.next = Bits::<16>::from(self.et_outer.val()) == self.c_vlan.val();
        for t in TAG..(TAG + 1) {
            for i in 0..NU {
                self.u[i].next = self.hb[i].q.val();
                if self.is_tagged.val() {
                    self.u[i].next = self.hb[i + t].q.val();
                }
            }
        }
        for o in (eth::ETHERTYPE.start - HB0)..(eth::ETHERTYPE.start - HB0 + 1) {
            self.eff_et.next.b1 = self.u[o].val();
            self.eff_et.next.b0 = self.u[o + 1].val();
        }
        self.v6.next = Bits::<16>::from(self.eff_et.val()) == self.c_ipv6.val();
        for d in IP0..(IP0 + 1) {
            for q in 0..NIP {
                self.ip[q].next = self.u[q + d].val();
            }
        }
        for a in L4_V4..(L4_V4 + 1) {
            for b in L4_V6..(L4_V6 + 1) {
                for r in 0..NL4 {
                    self.l4[r].next = self.u[r + a].val();
                    if self.v6.val() {
                        self.l4[r].next = self.u[r + b].val();
                    }
                }
            }
        }
        self.cls.next = self.c_cls[0].val();
        for c in 0..NCLASS {
            if (self.is_tagged.val() == self.c_cls_tag[c].val())
                & (self.v6.val() == self.c_cls_v6[c].val())
            {
                self.cls.next = self.c_cls[c].val();
            }
        }

        // ---------------- S1: lengths
        self.frame_len.next = self.s1_pos.q.val() + self.s1_kb.q.val();
        self.eth_len.next = self.c_eth_untagged.val();
        if self.is_tagged.val() {
            self.eth_len.next = self.c_eth_tagged.val();
        }
        for o in ipv4::LENGTH.start..(ipv4::LENGTH.start + 1) {
            self.ip_total.next.b1 = self.ip[o].val();
            self.ip_total.next.b0 = self.ip[o + 1].val();
            self.ip_total.next.z = self.c_zero16.val();
        }
        for o in ipv6::PAYLOAD_LEN.start..(ipv6::PAYLOAD_LEN.start + 1) {
            self.ip6_plen.next.b1 = self.ip[o].val();
            self.ip6_plen.next.b0 = self.ip[o + 1].val();
            self.ip6_plen.next.z = self.c_zero16.val();
        }
        self.ip_fixed_end.next = self.eth_len.val() + self.c_v4_hdr.val();
        self.ip_end.next = self.eth_len.val() + Bits::<32>::from(self.ip_total.val());
        self.homa_len.next = Bits::<32>::from(self.ip_total.val()) - self.c_v4_hdr.val();
        if self.v6.val() {
            self.ip_fixed_end.next = self.eth_len.val() + self.c_v6_hdr.val();
            self.ip_end.next =
                self.eth_len.val() + self.c_v6_hdr.val() + Bits::<32>::from(self.ip6_plen.val());
            self.homa_len.next = Bits::<32>::from(self.ip6_plen.val());
        }

        // ---------------- S1: IP fields
        for o in ipv4::VER_IHL..(ipv4::VER_IHL + 1) {
            self.ver.next = self.ip[o].val().get_bits::<4>(self.c_ver_lsb.val().index());
            self.ihl.next = self.ip[o].val().get_bits::<4>(self.c_bit0_8.val().index());
        }
        for o in ipv4::FLG_OFF.start..(ipv4::FLG_OFF.start + 1) {
            self.frag.next = ((self.ip[o].val() & self.c_frag_mask.val()) != self.c_zero8.val())
                | (self.ip[o + 1].val() != self.c_zero8.val());
        }
        // Word i of the header is bytes cw_at(i), cw_at(i) + 1 (ten words: CSUM_WORDS).
        for o in cw_at(0)..(cw_at(0) + 1) {
            self.cw0.next.b1 = self.ip[o].val();
            self.cw0.next.b0 = self.ip[o + 1].val();
            self.cw0.next.z = self.c_zero4.val();
        }
        for o in cw_at(1)..(cw_at(1) + 1) {
            self.cw1.next.b1 = self.ip[o].val();
            self.cw1.next.b0 = self.ip[o + 1].val();
            self.cw1.next.z = self.c_zero4.val();
        }
        for o in cw_at(2)..(cw_at(2) + 1) {
            self.cw2.next.b1 = self.ip[o].val();
            self.cw2.next.b0 = self.ip[o + 1].val();
            self.cw2.next.z = self.c_zero4.val();
        }
        for o in cw_at(3)..(cw_at(3) + 1) {
            self.cw3.next.b1 = self.ip[o].val();
            self.cw3.next.b0 = self.ip[o + 1].val();
            self.cw3.next.z = self.c_zero4.val();
        }
        for o in cw_at(4)..(cw_at(4) + 1) {
            self.cw4.next.b1 = self.ip[o].val();
            self.cw4.next.b0 = self.ip[o + 1].val();
            self.cw4.next.z = self.c_zero4.val();
        }
        for o in cw_at(5)..(cw_at(5) + 1) {
            self.cw5.next.b1 = self.ip[o].val();
            self.cw5.next.b0 = self.ip[o + 1].val();
            self.cw5.next.z = self.c_zero4.val();
        }
        for o in cw_at(6)..(cw_at(6) + 1) {
            self.cw6.next.b1 = self.ip[o].val();
            self.cw6.next.b0 = self.ip[o + 1].val();
            self.cw6.next.z = self.c_zero4.val();
        }
        for o in cw_at(7)..(cw_at(7) + 1) {
            self.cw7.next.b1 = self.ip[o].val();
            self.cw7.next.b0 = self.ip[o + 1].val();
            self.cw7.next.z = self.c_zero4.val();
        }
        for o in cw_at(8)..(cw_at(8) + 1) {
            self.cw8.next.b1 = self.ip[o].val();
            self.cw8.next.b0 = self.ip[o + 1].val();
            self.cw8.next.z = self.c_zero4.val();
        }
        for o in cw_at(9)..(cw_at(9) + 1) {
            self.cw9.next.b1 = self.ip[o].val();
            self.cw9.next.b0 = self.ip[o + 1].val();
            self.cw9.next.z = self.c_zero4.val();
        }
        self.csum_sum.next = Bits::<20>::from(self.cw0.val())
            + Bits::<20>::from(self.cw1.val())
            + Bits::<20>::from(self.cw2.val())
            + Bits::<20>::from(self.cw3.val())
            + Bits::<20>::from(self.cw4.val())
            + Bits::<20>::from(self.cw5.val())
            + Bits::<20>::from(self.cw6.val())
            + Bits::<20>::from(self.cw7.val())
            + Bits::<20>::from(self.cw8.val())
            + Bits::<20>::from(self.cw9.val());
        // One's-complement sum 0xffff <=> the plain sum is a non-zero multiple of 0xffff.
        self.csum_ok.next = false;
        for i in 0..CSUM_WORDS {
            if self.csum_sum.val() == self.c_csum_ok[i].val() {
                self.csum_ok.next = true;
            }
        }
        for o in ipv4::PROTOCOL..(ipv4::PROTOCOL + 1) {
            for n in ipv6::NEXT_HEADER..(ipv6::NEXT_HEADER + 1) {
                self.proto.next = self.ip[o].val();
                if self.v6.val() {
                    self.proto.next = self.ip[n].val();
                }
            }
        }
        for o in ipv6::SRC_ADDR.start..(ipv6::SRC_ADDR.start + 1) {
            for a in ipv4::SRC_ADDR.start..(ipv4::SRC_ADDR.start + 1) {
                if self.v6.val() {
                    self.src.next.b15 = self.ip[o].val();
                    self.src.next.b14 = self.ip[o + 1].val();
                    self.src.next.b13 = self.ip[o + 2].val();
                    self.src.next.b12 = self.ip[o + 3].val();
                    self.src.next.b11 = self.ip[o + 4].val();
                    self.src.next.b10 = self.ip[o + 5].val();
                    self.src.next.b9 = self.ip[o + 6].val();
                    self.src.next.b8 = self.ip[o + 7].val();
                    self.src.next.b7 = self.ip[o + 8].val();
                    self.src.next.b6 = self.ip[o + 9].val();
                    self.src.next.b5 = self.ip[o + 10].val();
                    self.src.next.b4 = self.ip[o + 11].val();
                    self.src.next.b3 = self.ip[o + 12].val();
                    self.src.next.b2 = self.ip[o + 13].val();
                    self.src.next.b1 = self.ip[o + 14].val();
                    self.src.next.b0 = self.ip[o + 15].val();
                } else {
                    self.src.next.b15 = self.c_zero8.val();
                    self.src.next.b14 = self.c_zero8.val();
                    self.src.next.b13 = self.c_zero8.val();
                    self.src.next.b12 = self.c_zero8.val();
                    self.src.next.b11 = self.c_zero8.val();
                    self.src.next.b10 = self.c_zero8.val();
                    self.src.next.b9 = self.c_zero8.val();
                    self.src.next.b8 = self.c_zero8.val();
                    self.src.next.b7 = self.c_zero8.val();
                    self.src.next.b6 = self.c_zero8.val();
                    self.src.next.b5 = self.c_zero8.val();
                    self.src.next.b4 = self.c_zero8.val();
                    self.src.next.b3 = self.ip[a].val();
                    self.src.next.b2 = self.ip[a + 1].val();
                    self.src.next.b1 = self.ip[a + 2].val();
                    self.src.next.b0 = self.ip[a + 3].val();
                }
            }
        }
        for o in ipv6::DST_ADDR.start..(ipv6::DST_ADDR.start + 1) {
            for a in ipv4::DST_ADDR.start..(ipv4::DST_ADDR.start + 1) {
                if self.v6.val() {
                    self.dst.next.b15 = self.ip[o].val();
                    self.dst.next.b14 = self.ip[o + 1].val();
                    self.dst.next.b13 = self.ip[o + 2].val();
                    self.dst.next.b12 = self.ip[o + 3].val();
                    self.dst.next.b11 = self.ip[o + 4].val();
                    self.dst.next.b10 = self.ip[o + 5].val();
                    self.dst.next.b9 = self.ip[o + 6].val();
                    self.dst.next.b8 = self.ip[o + 7].val();
                    self.dst.next.b7 = self.ip[o + 8].val();
                    self.dst.next.b6 = self.ip[o + 9].val();
                    self.dst.next.b5 = self.ip[o + 10].val();
                    self.dst.next.b4 = self.ip[o + 11].val();
                    self.dst.next.b3 = self.ip[o + 12].val();
                    self.dst.next.b2 = self.ip[o + 13].val();
                    self.dst.next.b1 = self.ip[o + 14].val();
                    self.dst.next.b0 = self.ip[o + 15].val();
                } else {
                    self.dst.next.b15 = self.c_zero8.val();
                    self.dst.next.b14 = self.c_zero8.val();
                    self.dst.next.b13 = self.c_zero8.val();
                    self.dst.next.b12 = self.c_zero8.val();
                    self.dst.next.b11 = self.c_zero8.val();
                    self.dst.next.b10 = self.c_zero8.val();
                    self.dst.next.b9 = self.c_zero8.val();
                    self.dst.next.b8 = self.c_zero8.val();
                    self.dst.next.b7 = self.c_zero8.val();
                    self.dst.next.b6 = self.c_zero8.val();
                    self.dst.next.b5 = self.c_zero8.val();
                    self.dst.next.b4 = self.c_zero8.val();
                    self.dst.next.b3 = self.ip[a].val();
                    self.dst.next.b2 = self.ip[a + 1].val();
                    self.dst.next.b1 = self.ip[a + 2].val();
                    self.dst.next.b0 = self.ip[a + 3].val();
                }
            }
        }

        // ---------------- S1: Homa fields
        for o in homa::SPORT.start..(homa::SPORT.start + 1) {
            self.f_sport.next.b1 = self.l4[o].val();
            self.f_sport.next.b0 = self.l4[o + 1].val();
        }
        for o in homa::DPORT.start..(homa::DPORT.start + 1) {
            self.f_dport.next.b1 = self.l4[o].val();
            self.f_dport.next.b0 = self.l4[o + 1].val();
        }
        for o in homa::SEQUENCE.start..(homa::SEQUENCE.start + 1) {
            self.f_seq.next.b3 = self.l4[o].val();
            self.f_seq.next.b2 = self.l4[o + 1].val();
            self.f_seq.next.b1 = self.l4[o + 2].val();
            self.f_seq.next.b0 = self.l4[o + 3].val();
        }
        for o in homa::URGENT.start..(homa::URGENT.start + 1) {
            self.f_urgent.next.b1 = self.l4[o].val();
            self.f_urgent.next.b0 = self.l4[o + 1].val();
        }
        for o in homa::SENDER_ID.start..(homa::SENDER_ID.start + 1) {
            self.f_sender_id.next.b7 = self.l4[o].val();
            self.f_sender_id.next.b6 = self.l4[o + 1].val();
            self.f_sender_id.next.b5 = self.l4[o + 2].val();
            self.f_sender_id.next.b4 = self.l4[o + 3].val();
            self.f_sender_id.next.b3 = self.l4[o + 4].val();
            self.f_sender_id.next.b2 = self.l4[o + 5].val();
            self.f_sender_id.next.b1 = self.l4[o + 6].val();
            self.f_sender_id.next.b0 = self.l4[o + 7].val();
        }
        for o in homa::MESSAGE_LENGTH.start..(homa::MESSAGE_LENGTH.start + 1) {
            self.f_msg_len.next.b3 = self.l4[o].val();
            self.f_msg_len.next.b2 = self.l4[o + 1].val();
            self.f_msg_len.next.b1 = self.l4[o + 2].val();
            self.f_msg_len.next.b0 = self.l4[o + 3].val();
        }
        for o in homa::INCOMING.start..(homa::INCOMING.start + 1) {
            self.f_incoming.next.b3 = self.l4[o].val();
            self.f_incoming.next.b2 = self.l4[o + 1].val();
            self.f_incoming.next.b1 = self.l4[o + 2].val();
            self.f_incoming.next.b0 = self.l4[o + 3].val();
        }
        for o in homa::ACK_CLIENT_ID.start..(homa::ACK_CLIENT_ID.start + 1) {
            self.f_ack_id.next.b7 = self.l4[o].val();
            self.f_ack_id.next.b6 = self.l4[o + 1].val();
            self.f_ack_id.next.b5 = self.l4[o + 2].val();
            self.f_ack_id.next.b4 = self.l4[o + 3].val();
            self.f_ack_id.next.b3 = self.l4[o + 4].val();
            self.f_ack_id.next.b2 = self.l4[o + 5].val();
            self.f_ack_id.next.b1 = self.l4[o + 6].val();
            self.f_ack_id.next.b0 = self.l4[o + 7].val();
        }
        for o in homa::ACK_SERVER_PORT.start..(homa::ACK_SERVER_PORT.start + 1) {
            self.f_ack_port.next.b1 = self.l4[o].val();
            self.f_ack_port.next.b0 = self.l4[o + 1].val();
        }
        for o in homa::DATA_CUTOFF_VERSION.start..(homa::DATA_CUTOFF_VERSION.start + 1) {
            self.f_cutoff.next.b1 = self.l4[o].val();
            self.f_cutoff.next.b0 = self.l4[o + 1].val();
        }
        for o in homa::SEG_OFFSET.start..(homa::SEG_OFFSET.start + 1) {
            self.f_seg_off.next.b3 = self.l4[o].val();
            self.f_seg_off.next.b2 = self.l4[o + 1].val();
            self.f_seg_off.next.b1 = self.l4[o + 2].val();
            self.f_seg_off.next.b0 = self.l4[o + 3].val();
        }
        for o in homa::GRANT_OFFSET.start..(homa::GRANT_OFFSET.start + 1) {
            self.f_grant_off.next.b3 = self.l4[o].val();
            self.f_grant_off.next.b2 = self.l4[o + 1].val();
            self.f_grant_off.next.b1 = self.l4[o + 2].val();
            self.f_grant_off.next.b0 = self.l4[o + 3].val();
        }
        for o in homa::RESEND_OFFSET.start..(homa::RESEND_OFFSET.start + 1) {
            self.f_resend_off.next.b3 = self.l4[o].val();
            self.f_resend_off.next.b2 = self.l4[o + 1].val();
            self.f_resend_off.next.b1 = self.l4[o + 2].val();
            self.f_resend_off.next.b0 = self.l4[o + 3].val();
        }
        for o in homa::RESEND_LENGTH.start..(homa::RESEND_LENGTH.start + 1) {
            self.f_resend_len.next.b3 = self.l4[o].val();
            self.f_resend_len.next.b2 = self.l4[o + 1].val();
            self.f_resend_len.next.b1 = self.l4[o + 2].val();
            self.f_resend_len.next.b0 = self.l4[o + 3].val();
        }
        for o in homa::NUM_ACKS.start..(homa::NUM_ACKS.start + 1) {
            self.f_num_acks.next.b1 = self.l4[o].val();
            self.f_num_acks.next.b0 = self.l4[o + 1].val();
        }
        for o in homa::TYPE..(homa::TYPE + 1) {
            self.f_type.next = self.l4[o].val();
        }
        for o in homa::FLAGS..(homa::FLAGS + 1) {
            self.f_flags.next = self.l4[o].val();
        }
        for o in homa::RETRANSMIT..(homa::RETRANSMIT + 1) {
            self.f_retransmit.next = self.l4[o].val();
        }
        for o in homa::GRANT_PRIORITY..(homa::GRANT_PRIORITY + 1) {
            self.f_grant_prio.next = self.l4[o].val();
        }
        for o in homa::RESEND_PRIORITY..(homa::RESEND_PRIORITY + 1) {
            self.f_resend_prio.next = self.l4[o].val();
        }
        self.data_off.next = Bits::<32>::from(self.f_seg_off.val());
        if Bits::<32>::from(self.f_seg_off.val()) == self.c_seg_use_seq.val() {
            self.data_off.next = Bits::<32>::from(self.f_seq.val());
        }
        self.paylen.next = self.homa_len.val() - self.c_data_hdr.val();
        self.known_type.next = false;
        self.need_len.next = self.c_zero32.val();
        self.wlen.next = self.c_zero8.val();
        for i in 0..NTYPES {
            if self.f_type.val() == self.c_type[i].val() {
                self.known_type.next = true;
                self.need_len.next = self.c_hlen[i].val();
                self.wlen.next = self.c_wlen[i].val();
            }
        }
        // The body window of a control packet (zero past the type's window, so a short
        // header never shows a previous frame's bytes).
        self.is_cutoffs.next = self.f_type.val() == self.c_type_cutoffs.val();
        for a in BODY0..(BODY0 + 1) {
            for c in BODY_CUTOFFS..(BODY_CUTOFFS + 1) {
                for i in 0..BODY_LEN {
                    self.bw[i].next = self.c_zero8.val();
                    if self.c_bi[i].val() < self.wlen.val() {
                        self.bw[i].next = self.l4[i + a].val();
                        if self.is_cutoffs.val() {
                            self.bw[i].next = self.l4[i + c].val();
                        }
                    }
                }
            }
        }
        self.f_body.next.b0 = self.bw[0].val();
        self.f_body.next.b1 = self.bw[1].val();
        self.f_body.next.b2 = self.bw[2].val();
        self.f_body.next.b3 = self.bw[3].val();
        self.f_body.next.b4 = self.bw[4].val();
        self.f_body.next.b5 = self.bw[5].val();
        self.f_body.next.b6 = self.bw[6].val();
        self.f_body.next.b7 = self.bw[7].val();
        self.f_body.next.b8 = self.bw[8].val();
        self.f_body.next.b9 = self.bw[9].val();
        self.f_body.next.b10 = self.bw[10].val();
        self.f_body.next.b11 = self.bw[11].val();
        self.f_body.next.b12 = self.bw[12].val();
        self.f_body.next.b13 = self.bw[13].val();
        self.f_body.next.b14 = self.bw[14].val();
        self.f_body.next.b15 = self.bw[15].val();
        self.f_body.next.b16 = self.bw[16].val();
        self.f_body.next.b17 = self.bw[17].val();
        self.f_body.next.b18 = self.bw[18].val();
        self.f_body.next.b19 = self.bw[19].val();
        self.f_body.next.b20 = self.bw[20].val();
        self.f_body.next.b21 = self.bw[21].val();
        self.f_body.next.b22 = self.bw[22].val();
        self.f_body.next.b23 = self.bw[23].val();
        self.f_body.next.b24 = self.bw[24].val();
        self.f_body.next.b25 = self.bw[25].val();
        self.f_body.next.b26 = self.bw[26].val();
        self.f_body.next.b27 = self.bw[27].val();
        self.f_body.next.b28 = self.bw[28].val();
        self.f_body.next.b29 = self.bw[29].val();
        self.f_body.next.b30 = self.bw[30].val();

        // ---------------- S1: checks, in FrameRepr::parse's order
        self.e_runt_eth.next = self.frame_len.val() < self.c_eth_untagged.val();
        self.e_qinq.next = Bits::<16>::from(self.et_outer.val()) == self.c_qinq.val();
        self.e_runt_tag.next =
            self.is_tagged.val() & (self.frame_len.val() < self.c_eth_tagged.val());
        self.e_stacked.next = self.is_tagged.val()
            & ((Bits::<16>::from(self.et_inner.val()) == self.c_vlan.val())
                | (Bits::<16>::from(self.et_inner.val()) == self.c_qinq.val()));
        self.e_not_ip.next = (Bits::<16>::from(self.eff_et.val()) != self.c_ipv4.val())
            & (Bits::<16>::from(self.eff_et.val()) != self.c_ipv6.val());
        self.e_runt_ip.next = self.frame_len.val() < self.ip_fixed_end.val();
        self.e_bad_ver.next = self.ver.val() != self.c_ver4.val();
        if self.v6.val() {
            self.e_bad_ver.next = self.ver.val() != self.c_ver6.val();
        }
        self.e_bad_ihl.next = !self.v6.val()
            & ((self.ihl.val() != self.c_ihl5.val())
                | (Bits::<32>::from(self.ip_total.val()) < self.c_v4_hdr.val()));
        self.e_trunc.next = self.frame_len.val() < self.ip_end.val();
        self.e_bad_csum.next = !self.v6.val() & !self.csum_ok.val();
        self.e_frag.next = !self.v6.val() & self.frag.val();
        self.e_not_homa.next = !((self.proto.val() == self.c_proto_homa.val())
            | ((self.proto.val() == self.c_proto_tcp.val())
                & (self.homa_len.val() >= self.c_common_len.val())
                & (self.f_flags.val() == self.c_hijack_flags.val())
                & (Bits::<16>::from(self.f_urgent.val()) == self.c_hijack_urgent.val())));
        self.e_short_homa.next = self.homa_len.val() < self.c_common_len.val();
        self.e_bad_type.next = !self.known_type.val();
        self.e_short_type.next = self.homa_len.val() < self.need_len.val();
        self.e_bad_body.next = ((self.f_type.val() == self.c_type_data.val())
            & ((Bits::<32>::from(self.f_msg_len.val()) > self.c_max_msg.val())
                | (self.data_off.val() > self.c_max_msg.val())
                | ((self.data_off.val() + self.paylen.val())
                    > Bits::<32>::from(self.f_msg_len.val()))))
            | ((self.f_type.val() == self.c_type_grant.val())
                & (self.f_grant_prio.val() >= self.c_nprio.val()))
            | ((self.f_type.val() == self.c_type_resend.val())
                & (self.f_resend_prio.val() >= self.c_nprio.val()))
            | ((self.f_type.val() == self.c_type_ack.val())
                & (Bits::<16>::from(self.f_num_acks.val()) > self.c_max_acks.val()));
        // Adjacent checks with the same counter share a branch; the order is unchanged.
        self.verdict.next = self.c_v_ok.val();
        if self.e_runt_eth.val() {
            self.verdict.next = self.c_v_runt.val();
        } else if self.e_qinq.val() {
            self.verdict.next = self.c_v_not_homa.val();
        } else if self.e_runt_tag.val() {
            self.verdict.next = self.c_v_runt.val();
        } else if self.e_stacked.val() | self.e_not_ip.val() {
            self.verdict.next = self.c_v_not_homa.val();
        } else if self.e_runt_ip.val() {
            self.verdict.next = self.c_v_runt.val();
        } else if self.e_bad_ver.val() {
            self.verdict.next = self.c_v_not_homa.val();
        } else if self.e_bad_ihl.val() | self.e_trunc.val() {
            self.verdict.next = self.c_v_len.val();
        } else if self.e_bad_csum.val() {
            self.verdict.next = self.c_v_csum.val();
        } else if self.e_frag.val() {
            self.verdict.next = self.c_v_len.val();
        } else if self.e_not_homa.val() {
            self.verdict.next = self.c_v_not_homa.val();
        } else if self.e_short_homa.val() {
            self.verdict.next = self.c_v_len.val();
        } else if self.e_bad_type.val() {
            self.verdict.next = self.c_v_type.val();
        } else if self.e_short_type.val() | self.e_bad_body.val() {
            self.verdict.next = self.c_v_len.val();
        }
        // Every check that does not depend on where the frame ends: decided once the DATA
        // header is in, before the first payload byte leaves.
        self.gate.next = (self.f_type.val() == self.c_type_data.val())
            & !(self.e_qinq.val()
                | self.e_stacked.val()
                | self.e_not_ip.val()
                | self.e_bad_ver.val()
                | self.e_bad_ihl.val()
                | self.e_bad_csum.val()
                | self.e_frag.val()
                | self.e_not_homa.val()
                | self.e_short_homa.val()
                | self.e_bad_type.val()
                | self.e_short_type.val()
                | self.e_bad_body.val());

        // ---------------- S1: the header record
        for t in ipv4::TOS..(ipv4::TOS + 1) {
            for v in ipv6::VER_TC_FLOW.start..(ipv6::VER_TC_FLOW.start + 1) {
                self.hdr_c.next.ip_version = self.c_ver4.val();
                self.hdr_c.next.priority = self.ip[t]
                    .val()
                    .get_bits::<3>(self.c_v4_prio_lsb.val().index());
                if self.v6.val() {
                    self.hdr_c.next.ip_version = self.c_ver6.val();
                    self.hdr_c.next.priority = self.ip[v]
                        .val()
                        .get_bits::<3>(self.c_v6_prio_lsb.val().index());
                }
            }
        }
        self.hdr_c.next.src_ip = Bits::<128>::from(self.src.val());
        self.hdr_c.next.dst_ip = Bits::<128>::from(self.dst.val());
        self.hdr_c.next.sport = Bits::<16>::from(self.f_sport.val());
        self.hdr_c.next.dport = Bits::<16>::from(self.f_dport.val());
        self.hdr_c.next.ptype = self.f_type.val();
        self.hdr_c.next.sender_id = Bits::<64>::from(self.f_sender_id.val());
        self.hdr_c.next.data_message_length = Bits::<32>::from(self.f_msg_len.val());
        self.hdr_c.next.data_incoming = Bits::<32>::from(self.f_incoming.val());
        self.hdr_c.next.data_offset = self.data_off.val();
        self.hdr_c.next.data_cutoff_version = Bits::<16>::from(self.f_cutoff.val());
        self.hdr_c.next.data_retransmit = self.f_retransmit.val() != self.c_zero8.val();
        self.hdr_c.next.data_ack_client_id = Bits::<64>::from(self.f_ack_id.val());
        self.hdr_c.next.data_ack_server_port = Bits::<16>::from(self.f_ack_port.val());
        self.hdr_c.next.data_payload_len = self
            .paylen
            .val()
            .get_bits::<16>(self.c_bit0_32.val().index());
        self.hdr_c.next.grant_offset = Bits::<32>::from(self.f_grant_off.val());
        self.hdr_c.next.grant_priority = self
            .f_grant_prio
            .val()
            .get_bits::<3>(self.c_bit0_8.val().index());
        self.hdr_c.next.resend_offset = Bits::<32>::from(self.f_resend_off.val());
        self.hdr_c.next.resend_length = Bits::<32>::from(self.f_resend_len.val());
        self.hdr_c.next.body = Bits::<248>::from(self.f_body.val());
        self.hdr_c.next.resend_priority = self
            .f_resend_prio
            .val()
            .get_bits::<3>(self.c_bit0_8.val().index());

        if self.adv.val() {
            self.s2_valid.d.next = self.s1_valid.q.val();
            self.s2_last.d.next = self.s1_last.q.val();
            self.s2_data.d.next = self.s1_data.q.val();
            self.s2_pos.d.next = self.s1_pos.q.val();
            self.s2_fe.d.next = self.frame_len.val();
            self.s2_short.d.next = self.e_trunc.val();
            self.s2_pe.d.next = self.ip_end.val();
            self.s2_gate.d.next = self.gate.val();
            self.s2_cls.d.next = self.cls.val();
            self.s2_verdict.d.next = self.verdict.val();
            self.s2_hdr.d.next = self.hdr_c.val();
        }

        // ---------------- S2: verdict → header FIFO, counters, error pulses
        self.fire.next = self.adv.val() & self.s2_valid.q.val() & self.s2_last.q.val();
        self.hdr_fifo.clock.next = self.clock.val();
        self.hdr_fifo.reset.next = self.reset.val();
        self.hdr_fifo.push.next = self.fire.val() & (self.s2_verdict.q.val() == self.c_v_ok.val());
        self.hdr_fifo.din.next = self.s2_hdr.q.val();
        if self.fire.val() & (self.s2_verdict.q.val() == self.c_v_ok.val()) {
            self.cnt_ok.d.next = self.cnt_ok.q.val() + self.c_one32.val();
        }
        if self.fire.val() & (self.s2_verdict.q.val() == self.c_v_runt.val()) {
            self.cnt_runt.d.next = self.cnt_runt.q.val() + self.c_one32.val();
        }
        if self.fire.val() & (self.s2_verdict.q.val() == self.c_v_csum.val()) {
            self.cnt_csum.d.next = self.cnt_csum.q.val() + self.c_one32.val();
        }
        if self.fire.val() & (self.s2_verdict.q.val() == self.c_v_not_homa.val()) {
            self.cnt_not_homa.d.next = self.cnt_not_homa.q.val() + self.c_one32.val();
        }
        if self.fire.val() & (self.s2_verdict.q.val() == self.c_v_type.val()) {
            self.cnt_type.d.next = self.cnt_type.q.val() + self.c_one32.val();
        }
        if self.fire.val() & (self.s2_verdict.q.val() == self.c_v_len.val()) {
            self.cnt_len.d.next = self.cnt_len.q.val() + self.c_one32.val();
        }
        self.p_runt.d.next = self.fire.val() & (self.s2_verdict.q.val() == self.c_v_runt.val());
        self.p_csum.d.next = self.fire.val() & (self.s2_verdict.q.val() == self.c_v_csum.val());
        self.p_not_homa.d.next =
            self.fire.val() & (self.s2_verdict.q.val() == self.c_v_not_homa.val());
        self.p_type.d.next = self.fire.val() & (self.s2_verdict.q.val() == self.c_v_type.val());
        self.p_len.d.next = self.fire.val() & (self.s2_verdict.q.val() == self.c_v_len.val());

        // ---------------- S2: payload realigner
        // A payload starting at frame position ps = pb + sb (pb a multiple of K, 0 < sb < K)
        // leaves as beats [ps + jK, ps + (j+1)K): the "mid" beat of input beat P is
        // prev[sb..] ⧺ cur[..sb]; the "tail" is cur[sb..end) when the payload ends there.
        // Both in one input beat → the tail leaves in the next cycle (`f_pending`), a slot
        // in which no beat can need output (the next beat is padding past the payload end,
        // or a new frame's first beat, and payloads never start in a first beat).
        self.trunc.next = self.s2_last.q.val() & self.s2_short.q.val();
        self.pay_end.next = self.s2_pe.q.val();
        if self.trunc.val() {
            self.pay_end.next = self.s2_fe.q.val();
        }
        self.sb.next = self.c_sb[0].val();
        self.pb.next = self.c_pb[0].val();
        self.pbk.next = self.c_pbk[0].val();
        self.mid_data.next = self.s2_data.q.val();
        self.tail_data.next = self.s2_data.q.val();
        self.flush_data.next = self.r_prev.q.val();
        for c in 0..NCLASS {
            if self.s2_cls.q.val() == self.c_cls[c].val() {
                self.sb.next = self.c_sb[c].val();
                self.pb.next = self.c_pb[c].val();
                self.pbk.next = self.c_pbk[c].val();
                self.mid_data.next = (self.r_prev.q.val() >> self.c_shr[c].val())
                    | (self.s2_data.q.val() << self.c_shl[c].val());
                self.tail_data.next = self.s2_data.q.val() >> self.c_shr[c].val();
            }
            if self.f_cls.q.val() == self.c_cls[c].val() {
                self.flush_data.next = self.r_prev.q.val() >> self.c_shr[c].val();
            }
        }
        self.p_s.next = self.s2_pos.q.val() + self.sb.val();
        self.act.next = self.s2_valid.q.val() & self.s2_gate.q.val();
        self.is_tail.next = self.act.val()
            & (self.s2_pos.q.val() >= self.pb.val())
            & (self.pay_end.val() > self.p_s.val())
            & (self.pay_end.val() <= self.s2_pos.q.val() + self.c_k32.val());
        // Bytes of the mid window below P were the previous beat's tail if the payload
        // ended there (pe <= P): then this beat has nothing left to send.
        self.is_mid.next = self.act.val()
            & (self.s2_pos.q.val() >= self.pbk.val())
            & (self.pay_end.val() > self.p_s.val() - self.c_k32.val())
            & (self.s2_pe.q.val() > self.s2_pos.q.val());
        self.mid_last.next = self.pay_end.val() <= self.p_s.val();
        // Byte counts of the mid and tail beats in 8 bits: each is below K when it is used
        // (a tail ends at most K - sb bytes past p_s; a mid beat short of K ends before p_s),
        // so the low bytes of pay_end and p_s decide it. The keep masks are thermometers
        // (a shift of all ones: K or more bytes keep every lane).
        self.pe8.next = self
            .pay_end
            .val()
            .get_bits::<8>(self.c_bit0_32.val().index());
        self.ps8.next = self.p_s.val().get_bits::<8>(self.c_bit0_32.val().index());
        self.mid_n8.next = self.c_k8.val();
        if self.pay_end.val() < self.p_s.val() {
            self.mid_n8.next = self.pe8.val() - self.ps8.val() + self.c_k8.val();
        }
        self.tail_n8.next = self.pe8.val() - self.ps8.val();
        self.mid_keep.next = !(self.c_keep_all.val() << self.mid_n8.val());
        self.tail_keep.next = !(self.c_keep_all.val() << self.tail_n8.val());
        self.o_valid.next = self.f_pending.q.val() | self.is_mid.val() | self.is_tail.val();
        self.o_data.next = self.tail_data.val();
        self.o_keep.next = self.tail_keep.val();
        self.o_last.next = true;
        self.o_user.next = self.trunc.val();
        if self.is_mid.val() {
            self.o_data.next = self.mid_data.val();
            self.o_keep.next = self.mid_keep.val();
            self.o_last.next = self.mid_last.val();
            self.o_user.next = self.trunc.val() & self.mid_last.val();
        }
        if self.f_pending.q.val() {
            self.o_data.next = self.flush_data.val();
            self.o_keep.next = self.f_keep.q.val();
            self.o_last.next = true;
            self.o_user.next = self.f_bad.q.val();
        }
        if self.adv.val() {
            self.f_pending.d.next =
                self.is_mid.val() & self.is_tail.val() & !self.f_pending.q.val();
            self.f_keep.d.next = self.tail_keep.val();
            self.f_bad.d.next = self.trunc.val();
            self.f_cls.d.next = self.s2_cls.q.val();
            if self.s2_valid.q.val() {
                self.r_prev.d.next = self.s2_data.q.val();
            }
        }
        self.pay_data.clock.next = self.clock.val();
        self.pay_keep.clock.next = self.clock.val();
        self.pay_last.clock.next = self.clock.val();
        self.pay_user.clock.next = self.clock.val();
        self.pay_data.reset.next = self.reset.val();
        self.pay_keep.reset.next = self.reset.val();
        self.pay_last.reset.next = self.reset.val();
        self.pay_user.reset.next = self.reset.val();
        self.pay_data.push.next = self.adv.val() & self.o_valid.val();
        self.pay_keep.push.next = self.adv.val() & self.o_valid.val();
        self.pay_last.push.next = self.adv.val() & self.o_valid.val();
        self.pay_user.push.next = self.adv.val() & self.o_valid.val();
        self.pay_data.din.next = self.o_data.val();
        self.pay_keep.din.next = self.o_keep.val();
        self.pay_last.din.next = self.o_last.val();
        self.pay_user.din.next = self.o_user.val();

        // ---------------- reset (counters are free-running)
        if self.reset.val() {
            self.beat.d.next = self.c_zero8.val();
            self.pos.d.next = self.c_zero32.val();
            self.s1_valid.d.next = false;
            self.s2_valid.d.next = false;
            self.f_pending.d.next = false;
        }

        // ---------------- outputs
        self.hdr_fifo.ready.next = self.m_hdr_ready.val();
        self.m_hdr_valid.next = self.hdr_fifo.valid.val();
        self.m_hdr_ip_version.next = self.hdr_fifo.dout.val().ip_version;
        self.m_hdr_src_ip.next = self.hdr_fifo.dout.val().src_ip;
        self.m_hdr_dst_ip.next = self.hdr_fifo.dout.val().dst_ip;
        self.m_hdr_priority.next = self.hdr_fifo.dout.val().priority;
        self.m_hdr_sport.next = self.hdr_fifo.dout.val().sport;
        self.m_hdr_dport.next = self.hdr_fifo.dout.val().dport;
        self.m_hdr_type.next = self.hdr_fifo.dout.val().ptype;
        self.m_hdr_sender_id.next = self.hdr_fifo.dout.val().sender_id;
        self.m_hdr_data_message_length.next = self.hdr_fifo.dout.val().data_message_length;
        self.m_hdr_data_incoming.next = self.hdr_fifo.dout.val().data_incoming;
        self.m_hdr_data_offset.next = self.hdr_fifo.dout.val().data_offset;
        self.m_hdr_data_cutoff_version.next = self.hdr_fifo.dout.val().data_cutoff_version;
        self.m_hdr_data_retransmit.next = self.hdr_fifo.dout.val().data_retransmit;
        self.m_hdr_data_ack_client_id.next = self.hdr_fifo.dout.val().data_ack_client_id;
        self.m_hdr_data_ack_server_port.next = self.hdr_fifo.dout.val().data_ack_server_port;
        self.m_hdr_data_payload_len.next = self.hdr_fifo.dout.val().data_payload_len;
        self.m_hdr_grant_offset.next = self.hdr_fifo.dout.val().grant_offset;
        self.m_hdr_grant_priority.next = self.hdr_fifo.dout.val().grant_priority;
        self.m_hdr_resend_offset.next = self.hdr_fifo.dout.val().resend_offset;
        self.m_hdr_resend_length.next = self.hdr_fifo.dout.val().resend_length;
        self.m_hdr_resend_priority.next = self.hdr_fifo.dout.val().resend_priority;
        self.m_hdr_body.next = self.hdr_fifo.dout.val().body;
        self.pay_data.ready.next = self.m_axis_tready.val();
        self.pay_keep.ready.next = self.m_axis_tready.val();
        self.pay_last.ready.next = self.m_axis_tready.val();
        self.pay_user.ready.next = self.m_axis_tready.val();
        // The four payload FIFOs move in lockstep; all their flags are equal.
        self.m_axis_tvalid.next = self.pay_data.valid.val()
            & self.pay_keep.valid.val()
            & self.pay_last.valid.val()
            & self.pay_user.valid.val();
        self.m_axis_tdata.next = self.pay_data.dout.val();
        self.m_axis_tkeep.next = self.pay_keep.dout.val();
        self.m_axis_tlast.next = self.pay_last.dout.val();
        self.m_axis_tuser.next = self.pay_user.dout.val();
        self.busy.next = (self.beat.q.val() != self.c_zero8.val())
            | self.s1_valid.q.val()
            | self.s2_valid.q.val()
            | self.f_pending.q.val()
            | self.hdr_fifo.valid.val()
            | self.pay_data.valid.val();
        self.frames_ok.next = self.cnt_ok.q.val();
        self.dropped_runt.next = self.cnt_runt.q.val();
        self.dropped_bad_checksum.next = self.cnt_csum.q.val();
        self.dropped_not_homa.next = self.cnt_not_homa.q.val();
        self.dropped_bad_type.next = self.cnt_type.q.val();
        self.dropped_bad_length.next = self.cnt_len.q.val();
        self.error_runt.next = self.p_runt.q.val();
        self.error_bad_checksum.next = self.p_csum.q.val();
        self.error_not_homa.next = self.p_not_homa.q.val();
        self.error_bad_type.next = self.p_type.q.val();
        self.error_bad_length.next = self.p_len.q.val();
    }
}

#[cfg(test)]
mod tb;
#[cfg(test)]
mod tests;
