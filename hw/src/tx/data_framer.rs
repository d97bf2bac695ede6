//! `DataFramer`: builds the DATA frames the transmit scheduler decides on, byte for byte as
//! `homa_proto::wire` emits them (Ethernet II, IPv4 with the priority in DSCP, the 56-byte
//! Homa DATA header, the payload), from each job's header fields and the payload the DMA
//! engine reads from host memory; posts `TX_DONE` after a message's last frame. One
//! description at `W` bytes a beat: `DataFramer512` (64 bytes) and `DataFramer64` (8).
//!
//! ```text
//!  s_job_* (the scheduler's, via a FIFO) ─► header (template + variable bytes) ─► header beats
//!  s_pay_* (DMA read data, payload byte 0 at payload_lane) ─► overlay beat (the header's last
//!                                     bytes below that lane), then payload beats ─► m_axis_*
//!  last frame of a message (unless NO_COMPLETION) ─► m_done_* (one register)
//! ```
//!
//! The header is 90 bytes (14 + 20 + 56): [`header_beats`] beats of header alone (1 at 64
//! bytes a beat, 11 at 8), then the payload starts at lane [`payload_lane`] (90 mod `W`: 26
//! or 2) of the next. The DMA read that serves a job is asked to deliver exactly that way:
//! `ceil((payload_lane + len) / W)` beats with the payload's first byte at that lane of the
//! first (the lanes below it and the bytes past the payload are ignored), as Corundum's DMA
//! interface places a read at a RAM offset. The framer never shifts payload; it overlays
//! the header's last bytes on the first data beat and counts beats from the job's length
//! (the DMA must deliver exactly that many). Constant bytes come from a template
//! `proto::wire` emits at elaboration ([`template`]); the variable ones (addresses,
//! priority, lengths, ports, offset, id, incoming, cutoff version, retransmit flag and the
//! IPv4 checksum) are muxed in.
//!
//! Timing: a job passes two stages of registers. Stage A takes it from the queue with its
//! lengths worked out (the IPv4 total length, the last beat's number and keep) and the
//! peer's two checksum words summed; stage B takes it from A with the header built, the IPv4
//! checksum folded in, as 16 words of 64 bits. With more than one header beat the words
//! shift down a beat's worth with each, so a header beat is always the first `W / 8` words
//! and the overlay beat's header bytes are there after the last (no beat mux); with one,
//! the overlay takes the second beat's words. Registered flags say which beat is next
//! (header, overlay, payload), so no counter comparison lies in the output path; each
//! payload beat passes through a 2:1 byte mux. B takes A's job with the last beat of the
//! frame it holds, A the next job in the same cycle, so frames follow back to back: a
//! frame of `n` beats takes `n` cycles at full rate. The checksum takes the NIC's address
//! from a register of the configuration, one cycle behind it (the address is set before
//! traffic starts). The header beats are offered only once the payload's first beat is
//! there (a frame never holds the MAC port while its DMA read is in flight). The DMA must
//! then deliver a job's beats without gaps for the MAC not to underrun: the simulator's
//! does; a PCIe read engine that may not needs a frame FIFO (store and forward) in front of
//! the MAC. `TX_DONE` waits in one register; a message's last frame holds its last beat
//! while the register is still full.

#[cfg(test)]
mod tests;

use crate::frame_beats::{FRAME_BYTES, FRAME_WORDS, FrameBeats, PackWord};
use crate::grant_framer::{Lo4In20, Lo16In20, Prio8};
use crate::hdl::*;
use crate::parser::Be16In20;
use homa_proto::wire::{self, ChecksumCapabilities, FrameRepr};

/// Where the IPv4 header starts in a frame (untagged Ethernet).
const IP_AT: usize = wire::field::ethernet::HEADER_LEN;

/// Where the Homa header starts in a frame.
const L4_AT: usize = IP_AT + wire::field::ipv4::HEADER_LEN;

/// Header bytes before the payload: Ethernet 14, IPv4 20, Homa DATA 56.
pub const DATA_HEADER_FRAME_LEN: usize = L4_AT + wire::field::homa::DATA_HEADER_LEN;

/// The byte lane of a 512-bit frame's second beat (and of the DMA's first data beat) where
/// the payload starts: [`payload_lane`] at 64 bytes a beat.
pub const PAYLOAD_LANE: usize = DATA_HEADER_FRAME_LEN - 64;

const _: () = assert!(DATA_HEADER_FRAME_LEN == 90 && PAYLOAD_LANE == 26);

/// What a DATA frame is made of besides its payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DataHeader {
    /// Ethernet destination (the next hop's MAC), first byte most significant.
    pub next_hop_mac: u64,
    /// Ethernet source (the NIC's MAC).
    pub local_mac: u64,
    /// The NIC's IPv4 address.
    pub local_ip: u32,
    /// The peer's IPv4 address.
    pub peer: u32,
    /// The priority (0-7), in the IPv4 DSCP's top bits.
    pub priority: u8,
    /// Local Homa port.
    pub sport: u16,
    /// Peer's Homa port.
    pub dport: u16,
    /// RPC id (`sender_id`).
    pub id: u64,
    /// The message's length.
    pub message_length: u32,
    /// DATA's `incoming`.
    pub incoming: u32,
    /// The cutoff version the sender holds.
    pub cutoff_version: u16,
    /// Sent again after a RESEND.
    pub retransmit: bool,
    /// The payload's offset in the message.
    pub offset: u32,
}

/// The frame `proto::wire` emits for this header and payload: what the framer must send.
pub fn reference_frame(h: &DataHeader, payload: &[u8]) -> Vec<u8> {
    let mac = |m: u64| wire::EthernetAddress(std::array::from_fn(|i| (m >> (40 - 8 * i)) as u8));
    FrameRepr {
        ethernet: Some(wire::EthernetRepr {
            src_addr: mac(h.local_mac),
            dst_addr: mac(h.next_hop_mac),
            vlan: None,
            ethertype: wire::EtherType::IPV4,
        }),
        ip: wire::IpRepr::V4(wire::Ipv4Repr {
            src_addr: h.local_ip.into(),
            dst_addr: h.peer.into(),
            tos: h.priority << 5,
            ident: 0,
            dont_frag: true,
            ttl: 64,
            protocol: wire::PROTOCOL_HOMA,
            payload_len: wire::field::homa::DATA_HEADER_LEN + payload.len(),
        }),
        homa: wire::Repr {
            sport: h.sport,
            dport: h.dport,
            sender_id: h.id,
            body: wire::Body::Data(wire::Data {
                message_length: h.message_length,
                incoming: h.incoming,
                ack: None,
                cutoff_version: h.cutoff_version,
                retransmit: h.retransmit,
                offset: h.offset,
                payload,
            }),
        },
    }
    .to_bytes(&ChecksumCapabilities::default())
}

/// The variable bytes: (frame offset, count), in the order the block computes them.
fn layout() -> Vec<(usize, usize)> {
    use wire::field::{ethernet as e, homa as h, ipv4 as i};
    let (ip, l4) = (IP_AT, L4_AT);
    vec![
        (e::DESTINATION.start, 6),              // next hop MAC
        (e::SOURCE.start, 6),                   // local MAC
        (ip + i::TOS, 1),                       // TOS
        (ip + i::LENGTH.start, 2),              // total length
        (ip + i::CHECKSUM.start, 2),            // header checksum
        (ip + i::SRC_ADDR.start, 4),            // local IP
        (ip + i::DST_ADDR.start, 4),            // peer IP
        (l4 + h::SPORT.start, 2),               // sport
        (l4 + h::DPORT.start, 2),               // dport
        (l4 + h::SEQUENCE.start, 4),            // sequence = offset
        (l4 + h::SENDER_ID.start, 8),           // sender id
        (l4 + h::MESSAGE_LENGTH.start, 4),      // message length
        (l4 + h::INCOMING.start, 4),            // incoming
        (l4 + h::DATA_CUTOFF_VERSION.start, 2), // cutoff version
        (l4 + h::RETRANSMIT, 1),                // retransmit
    ]
}

/// Variable bytes in all.
const VARS: usize = 52;

/// The template header: a DATA frame's first 90 bytes with every variable byte zero.
pub fn template() -> Vec<u8> {
    let mut t = reference_frame(&DataHeader::default(), &[0])[..DATA_HEADER_FRAME_LEN].to_vec();
    for (at, n) in layout() {
        t[at..at + n].fill(0);
    }
    t
}

/// The template's constant contribution to the IPv4 header's one's-complement sum.
fn template_sum() -> u64 {
    let t = template();
    t[IP_AT..L4_AT]
        .chunks(2)
        .map(|w| u64::from(u16::from_be_bytes([w[0], w[1]])))
        .sum()
}

/// Beats of a frame that hold header bytes alone, at `w` bytes a beat.
pub const fn header_beats(w: usize) -> usize {
    DATA_HEADER_FRAME_LEN / w
}

/// The byte lane, at `w` bytes a beat, where the payload starts: in the first payload beat,
/// whose lanes below it carry the header's last bytes.
pub const fn payload_lane(w: usize) -> usize {
    DATA_HEADER_FRAME_LEN % w
}

/// The DATA framer for a stream of `W` bytes (`B` = 8 `W` bits) a beat; `W` is 8 or 64.
#[derive(LogicBlock)]
pub struct DataFramer<const W: usize, const B: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// The NIC's MAC address (the frames' source).
    pub cfg_mac: Signal<In, Bits<48>>,
    /// The next hop's MAC address (every DATA frame's destination).
    pub cfg_next_hop_mac: Signal<In, Bits<48>>,
    /// The NIC's IPv4 address.
    pub cfg_ip: Signal<In, Bits<32>>,
    /// The cutoff version DATA carries.
    pub cfg_cutoff_version: Signal<In, Bits<16>>,
    /// A packet to frame.
    pub s_job_valid: Signal<In, Bit>,
    /// The job is taken into the framer's registers (when it holds none, or with the last
    /// beat of the frame it holds).
    pub s_job_ready: Signal<Out, Bit>,
    /// The payload's offset in the message.
    pub s_job_offset: Signal<In, Bits<32>>,
    /// Payload bytes (> 0; 76 + len fits the IPv4 total length).
    pub s_job_len: Signal<In, Bits<32>>,
    /// The packet's priority.
    pub s_job_priority: Signal<In, Bits<3>>,
    /// DATA's retransmit flag.
    pub s_job_retransmit: Signal<In, Bit>,
    /// DATA's `incoming`.
    pub s_job_incoming: Signal<In, Bits<32>>,
    /// The message's (or range's) last packet.
    pub s_job_last: Signal<In, Bit>,
    /// No `TX_DONE` for it.
    pub s_job_no_completion: Signal<In, Bit>,
    /// Peer IPv4 address.
    pub s_job_peer: Signal<In, Bits<32>>,
    /// Local Homa port.
    pub s_job_sport: Signal<In, Bits<16>>,
    /// Peer's Homa port.
    pub s_job_dport: Signal<In, Bits<16>>,
    /// RPC id.
    pub s_job_id: Signal<In, Bits<64>>,
    /// The message's length.
    pub s_job_length: Signal<In, Bits<32>>,
    /// The descriptor's cookie.
    pub s_job_cookie: Signal<In, Bits<64>>,
    /// The descriptor's ring index.
    pub s_job_index: Signal<In, Bits<32>>,
    /// A payload beat from the DMA read (payload byte 0 at lane [`payload_lane`] of a job's
    /// first beat).
    pub s_pay_valid: Signal<In, Bit>,
    /// The beat is taken.
    pub s_pay_ready: Signal<Out, Bit>,
    /// The beat's bytes, lane 0 in bits 7..0.
    pub s_pay_data: Signal<In, Bits<B>>,
    /// Frame data, byte lane 0 first on the wire.
    pub m_axis_tdata: Signal<Out, Bits<B>>,
    /// Byte enables.
    pub m_axis_tkeep: Signal<Out, Bits<W>>,
    /// A beat is offered.
    pub m_axis_tvalid: Signal<Out, Bit>,
    /// The last beat of the frame.
    pub m_axis_tlast: Signal<Out, Bit>,
    /// The beat is taken.
    pub m_axis_tready: Signal<In, Bit>,
    /// A `TX_DONE` is offered.
    pub m_done_valid: Signal<Out, Bit>,
    /// It is taken.
    pub m_done_ready: Signal<In, Bit>,
    /// Its RPC id.
    pub m_done_id: Signal<Out, Bits<64>>,
    /// The message's length.
    pub m_done_length: Signal<Out, Bits<32>>,
    /// The descriptor's cookie.
    pub m_done_cookie: Signal<Out, Bits<64>>,
    /// The descriptor's ring index.
    pub m_done_index: Signal<Out, Bits<32>>,
    /// Frames sent, free-running.
    pub frames: Signal<Out, Bits<32>>,
    beat: DFF<Bits<16>>,
    done_full: DFF<Bit>,
    done_id: DFF<Bits<64>>,
    done_len: DFF<Bits<32>>,
    done_cookie: DFF<Bits<64>>,
    done_index: DFF<Bits<32>>,
    n_frames: DFF<Bits<32>>,
    a_valid: DFF<Bit>,
    a_offset: DFF<Bits<32>>,
    a_priority: DFF<Bits<3>>,
    a_retransmit: DFF<Bit>,
    a_incoming: DFF<Bits<32>>,
    a_need_done: DFF<Bit>,
    a_peer: DFF<Bits<32>>,
    a_sport: DFF<Bits<16>>,
    a_dport: DFF<Bits<16>>,
    a_id: DFF<Bits<64>>,
    a_length: DFF<Bits<32>>,
    a_cookie: DFF<Bits<64>>,
    a_index: DFF<Bits<32>>,
    a_totlen: DFF<Bits<16>>,
    a_pip: DFF<Bits<20>>,
    a_last_beat: DFF<Bits<16>>,
    a_keep: DFF<Bits<W>>,
    cfg_sum: DFF<Bits<20>>,
    cur_valid: DFF<Bit>,
    hw: [DFF<Bits<64>>; FRAME_WORDS],
    past_hdr: DFF<Bit>,
    at_ov: DFF<Bit>,
    cur_last_beat: DFF<Bits<16>>,
    cur_keep: DFF<Bits<W>>,
    cur_need_done: DFF<Bit>,
    cur_id: DFF<Bits<64>>,
    cur_length: DFF<Bits<32>>,
    cur_cookie: DFF<Bits<64>>,
    cur_index: DFF<Bits<32>>,
    free: Signal<Local, Bit>,
    a_free: Signal<Local, Bit>,
    a_load: Signal<Local, Bit>,
    pip: Signal<Local, Bits<20>>,
    load: Signal<Local, Bit>,
    done_frame: Signal<Local, Bit>,
    vb: [Signal<Local, Bits<8>>; VARS],
    fb: [Signal<Local, Bits<8>>; DATA_HEADER_FRAME_LEN],
    fbytes: [Signal<Local, Bits<8>>; FRAME_BYTES],
    shifted: [Signal<Local, Bits<64>>; FRAME_WORDS],
    pack: [PackWord; FRAME_WORDS],
    beats: FrameBeats<W, B>,
    ov: Signal<Local, Bits<B>>,
    tos: Signal<Local, Prio8>,
    tot: Signal<Local, Bits<32>>,
    totlen: Signal<Local, Bits<16>>,
    tail: Signal<Local, Bits<32>>,
    last_beat: Signal<Local, Bits<16>>,
    rem: Signal<Local, Bits<8>>,
    keep_last: Signal<Local, Bits<W>>,
    first: Signal<Local, Bit>,
    is_last: Signal<Local, Bit>,
    stall: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    w_tos: Signal<Local, Be16In20>,
    w_len: Signal<Local, Lo16In20>,
    w_lip_hi: Signal<Local, Be16In20>,
    w_lip_lo: Signal<Local, Be16In20>,
    w_pip_hi: Signal<Local, Be16In20>,
    w_pip_lo: Signal<Local, Be16In20>,
    f1_lo: Signal<Local, Lo16In20>,
    f1_hi: Signal<Local, Lo4In20>,
    f2_lo: Signal<Local, Lo16In20>,
    f2_hi: Signal<Local, Lo4In20>,
    sum0: Signal<Local, Bits<20>>,
    sum1: Signal<Local, Bits<20>>,
    sum2: Signal<Local, Bits<20>>,
    csum: Signal<Local, Bits<16>>,
    c_tmpl: [Constant<Bits<8>>; DATA_HEADER_FRAME_LEN],
    c_is_var: [Constant<Bit>; DATA_HEADER_FRAME_LEN],
    c_src: [Constant<Bits<8>>; DATA_HEADER_FRAME_LEN],
    c_var: [Constant<Bits<8>>; VARS],
    c_keep: [Constant<Bits<W>>; W],
    c_rem: [Constant<Bits<8>>; W],
    c_rmask: Constant<Bits<8>>,
    c_shift: Constant<Bits<8>>,
    c_hlast: Constant<Bits<16>>,
    c_hbeats: Constant<Bits<16>>,
    c_shifts: Constant<Bit>,
    c_from: [Constant<Bits<8>>; FRAME_WORDS],
    c_word: [Constant<Bits<8>>; FRAME_WORDS],
    c_zero64: Constant<Bits<64>>,
    c_ov_mask: Constant<Bits<B>>,
    c_sum: Constant<Bits<20>>,
    c_ones: Constant<Bits<W>>,
    c_off: [Constant<Bits<8>>; 8],
    c_hdr_tail: Constant<Bits<32>>,
    c_ip_len: Constant<Bits<32>>,
    c_zero4: Constant<Bits<4>>,
    c_zero5: Constant<Bits<5>>,
    c_zero8: Constant<Bits<8>>,
    c_one8: Constant<Bits<8>>,
    c_zero16: Constant<Bits<16>>,
    c_one16: Constant<Bits<16>>,
    c_one32: Constant<Bits<32>>,
    c_zero32: Constant<Bits<32>>,
}

/// The DATA framer of the 512-bit (Alveo) configuration.
pub type DataFramer512 = DataFramer<64, 512>;

/// The DATA framer of the 64-bit (small) configuration.
pub type DataFramer64 = DataFramer<8, 64>;

fn k<const M: usize>(v: u64) -> Constant<Bits<M>> {
    Constant::new(v.into())
}

impl<const W: usize, const B: usize> DataFramer<W, B> {
    /// A framer with its template from `proto::wire`.
    pub fn new() -> Self {
        assert!(
            B == 8 * W && (W == 8 || W == 64),
            "a DATA framer is 8 or 64 bytes wide (the widths generated and tested), with B = 8 W bits"
        );
        let t = template();
        let mut src = [0u64; DATA_HEADER_FRAME_LEN];
        let mut is_var = [false; DATA_HEADER_FRAME_LEN];
        let mut n = 0;
        for (at, len) in layout() {
            for i in 0..len {
                src[at + i] = n;
                is_var[at + i] = true;
                n += 1;
            }
        }
        assert_eq!(n as usize, VARS, "variable bytes");
        let hb = header_beats(W);
        let lane = payload_lane(W);
        let ov_mask = bits_from_le_bytes::<B>(&vec![0xff; lane]);
        Self {
            clock: Signal::default(),
            reset: Signal::default(),
            cfg_mac: Signal::default(),
            cfg_next_hop_mac: Signal::default(),
            cfg_ip: Signal::default(),
            cfg_cutoff_version: Signal::default(),
            s_job_valid: Signal::default(),
            s_job_ready: Signal::default(),
            s_job_offset: Signal::default(),
            s_job_len: Signal::default(),
            s_job_priority: Signal::default(),
            s_job_retransmit: Signal::default(),
            s_job_incoming: Signal::default(),
            s_job_last: Signal::default(),
            s_job_no_completion: Signal::default(),
            s_job_peer: Signal::default(),
            s_job_sport: Signal::default(),
            s_job_dport: Signal::default(),
            s_job_id: Signal::default(),
            s_job_length: Signal::default(),
            s_job_cookie: Signal::default(),
            s_job_index: Signal::default(),
            s_pay_valid: Signal::default(),
            s_pay_ready: Signal::default(),
            s_pay_data: Signal::default(),
            m_axis_tdata: Signal::default(),
            m_axis_tkeep: Signal::default(),
            m_axis_tvalid: Signal::default(),
            m_axis_tlast: Signal::default(),
            m_axis_tready: Signal::default(),
            m_done_valid: Signal::default(),
            m_done_ready: Signal::default(),
            m_done_id: Signal::default(),
            m_done_length: Signal::default(),
            m_done_cookie: Signal::default(),
            m_done_index: Signal::default(),
            frames: Signal::default(),
            beat: DFF::default(),
            done_full: DFF::default(),
            done_id: DFF::default(),
            done_len: DFF::default(),
            done_cookie: DFF::default(),
            done_index: DFF::default(),
            n_frames: DFF::default(),
            a_valid: DFF::default(),
            a_offset: DFF::default(),
            a_priority: DFF::default(),
            a_retransmit: DFF::default(),
            a_incoming: DFF::default(),
            a_need_done: DFF::default(),
            a_peer: DFF::default(),
            a_sport: DFF::default(),
            a_dport: DFF::default(),
            a_id: DFF::default(),
            a_length: DFF::default(),
            a_cookie: DFF::default(),
            a_index: DFF::default(),
            a_totlen: DFF::default(),
            a_pip: DFF::default(),
            a_last_beat: DFF::default(),
            a_keep: DFF::default(),
            cfg_sum: DFF::default(),
            cur_valid: DFF::default(),
            hw: std::array::from_fn(|_| DFF::default()),
            past_hdr: DFF::default(),
            at_ov: DFF::default(),
            cur_last_beat: DFF::default(),
            cur_keep: DFF::default(),
            cur_need_done: DFF::default(),
            cur_id: DFF::default(),
            cur_length: DFF::default(),
            cur_cookie: DFF::default(),
            cur_index: DFF::default(),
            free: Signal::default(),
            a_free: Signal::default(),
            a_load: Signal::default(),
            pip: Signal::default(),
            load: Signal::default(),
            done_frame: Signal::default(),
            vb: std::array::from_fn(|_| Signal::default()),
            fb: std::array::from_fn(|_| Signal::default()),
            fbytes: std::array::from_fn(|_| Signal::default()),
            shifted: std::array::from_fn(|_| Signal::default()),
            pack: std::array::from_fn(|_| PackWord::default()),
            beats: FrameBeats::new(),
            ov: Signal::default(),
            tos: Signal::default(),
            tot: Signal::default(),
            totlen: Signal::default(),
            tail: Signal::default(),
            last_beat: Signal::default(),
            rem: Signal::default(),
            keep_last: Signal::default(),
            first: Signal::default(),
            is_last: Signal::default(),
            stall: Signal::default(),
            take: Signal::default(),
            w_tos: Signal::default(),
            w_len: Signal::default(),
            w_lip_hi: Signal::default(),
            w_lip_lo: Signal::default(),
            w_pip_hi: Signal::default(),
            w_pip_lo: Signal::default(),
            f1_lo: Signal::default(),
            f1_hi: Signal::default(),
            f2_lo: Signal::default(),
            f2_hi: Signal::default(),
            sum0: Signal::default(),
            sum1: Signal::default(),
            sum2: Signal::default(),
            csum: Signal::default(),
            c_tmpl: std::array::from_fn(|i| k(u64::from(t[i]))),
            c_is_var: std::array::from_fn(|i| Constant::new(is_var[i])),
            c_src: std::array::from_fn(|i| k(src[i])),
            c_var: std::array::from_fn(|n| k(n as u64)),
            // The last beat holds ((90 + len - 1) mod W) + 1 bytes: rem + 1.
            c_keep: std::array::from_fn(|r| Constant::new(Bits::<W>::mask() >> (W - 1 - r) as u64)),
            c_rem: std::array::from_fn(|r| k(r as u64)),
            c_rmask: k(W as u64 - 1),
            c_shift: k(u64::from(W.trailing_zeros())),
            c_hlast: k(hb as u64 - 1),
            c_hbeats: k(hb as u64),
            c_shifts: Constant::new(hb > 1),
            // A header beat shifts word m + W / 8 into word m (none: zero).
            c_from: std::array::from_fn(|m| k((m + W / 8) as u64)),
            c_word: std::array::from_fn(|n| k(n as u64)),
            c_zero64: k(0),
            c_ov_mask: Constant::new(ov_mask),
            c_sum: k(template_sum()),
            c_ones: Constant::new(Bits::<W>::mask()),
            c_off: std::array::from_fn(|i| k(8 * i as u64)),
            c_hdr_tail: k(DATA_HEADER_FRAME_LEN as u64 - 1),
            c_ip_len: k(
                (wire::field::ipv4::HEADER_LEN + wire::field::homa::DATA_HEADER_LEN) as u64,
            ),
            c_zero4: k(0),
            c_zero5: k(0),
            c_zero8: k(0),
            c_one8: k(1),
            c_zero16: k(0),
            c_one16: k(1),
            c_one32: k(1),
            c_zero32: k(0),
        }
    }

    /// A new framer as the top level of a design: every input driven from outside, the rest
    /// connected (what the Verilog generator and the bench both start from).
    pub fn top_level() -> Self {
        let mut uut = Self::new();
        uut.clock.connect();
        uut.reset.connect();
        uut.cfg_mac.connect();
        uut.cfg_next_hop_mac.connect();
        uut.cfg_ip.connect();
        uut.cfg_cutoff_version.connect();
        uut.s_job_valid.connect();
        uut.s_job_offset.connect();
        uut.s_job_len.connect();
        uut.s_job_priority.connect();
        uut.s_job_retransmit.connect();
        uut.s_job_incoming.connect();
        uut.s_job_last.connect();
        uut.s_job_no_completion.connect();
        uut.s_job_peer.connect();
        uut.s_job_sport.connect();
        uut.s_job_dport.connect();
        uut.s_job_id.connect();
        uut.s_job_length.connect();
        uut.s_job_cookie.connect();
        uut.s_job_index.connect();
        uut.s_pay_valid.connect();
        uut.s_pay_data.connect();
        uut.m_axis_tready.connect();
        uut.m_done_ready.connect();
        uut.connect_all();
        uut
    }
}

impl<const W: usize, const B: usize> Default for DataFramer<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> core::fmt::Debug for DataFramer<W, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DataFramer")
            .field("bytes_per_beat", &W)
            .finish_non_exhaustive()
    }
}

impl<const W: usize, const B: usize> Logic for DataFramer<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            beat,
            done_full,
            done_id,
            done_len,
            done_cookie,
            done_index,
            n_frames,
            a_valid,
            a_offset,
            a_priority,
            a_retransmit,
            a_incoming,
            a_need_done,
            a_peer,
            a_sport,
            a_dport,
            a_id,
            a_length,
            a_cookie,
            a_index,
            a_totlen,
            a_pip,
            a_last_beat,
            a_keep,
            cfg_sum,
            cur_valid,
            past_hdr,
            at_ov,
            cur_last_beat,
            cur_keep,
            cur_need_done,
            cur_id,
            cur_length,
            cur_cookie,
            cur_index
        );
        for m in 0..FRAME_WORDS {
            self.hw[m].clock.next = self.clock.val();
            self.hw[m].d.next = self.hw[m].q.val();
        }
        // Stage A, from the job offered: the IPv4 total length, where the frame's last byte
        // falls, and the peer's two checksum words summed.
        self.tot.next = self.s_job_len.val() + self.c_ip_len.val();
        self.totlen.next = self.tot.val().get_bits::<16>(self.c_off[0].val().index());
        self.tail.next = self.s_job_len.val() + self.c_hdr_tail.val();
        self.last_beat.next = self.tail.val().get_bits::<16>(self.c_shift.val().index());
        self.rem.next =
            self.tail.val().get_bits::<8>(self.c_off[0].val().index()) & self.c_rmask.val();
        self.keep_last.next = self.c_ones.val();
        for r in 0..W {
            if self.rem.val() == self.c_rem[r].val() {
                self.keep_last.next = self.c_keep[r].val();
            }
        }
        // IPv4 header checksum: the template's constant sum plus the variable words.
        self.tos.next.z = self.c_zero5.val();
        self.tos.next.p = self.a_priority.q.val();
        self.w_tos.next.b0 = Bits::<8>::from(self.tos.val());
        self.w_tos.next.b1 = self.c_zero8.val();
        self.w_tos.next.z = self.c_zero4.val();
        self.w_len.next.lo = self.a_totlen.q.val();
        self.w_len.next.z = self.c_zero4.val();
        self.w_lip_hi.next.b1 = self.cfg_ip.val().get_bits::<8>(self.c_off[3].val().index());
        self.w_lip_hi.next.b0 = self.cfg_ip.val().get_bits::<8>(self.c_off[2].val().index());
        self.w_lip_hi.next.z = self.c_zero4.val();
        self.w_lip_lo.next.b1 = self.cfg_ip.val().get_bits::<8>(self.c_off[1].val().index());
        self.w_lip_lo.next.b0 = self.cfg_ip.val().get_bits::<8>(self.c_off[0].val().index());
        self.w_lip_lo.next.z = self.c_zero4.val();
        self.w_pip_hi.next.b1 = self
            .s_job_peer
            .val()
            .get_bits::<8>(self.c_off[3].val().index());
        self.w_pip_hi.next.b0 = self
            .s_job_peer
            .val()
            .get_bits::<8>(self.c_off[2].val().index());
        self.w_pip_hi.next.z = self.c_zero4.val();
        self.w_pip_lo.next.b1 = self
            .s_job_peer
            .val()
            .get_bits::<8>(self.c_off[1].val().index());
        self.w_pip_lo.next.b0 = self
            .s_job_peer
            .val()
            .get_bits::<8>(self.c_off[0].val().index());
        self.w_pip_lo.next.z = self.c_zero4.val();
        self.pip.next =
            Bits::<20>::from(self.w_pip_hi.val()) + Bits::<20>::from(self.w_pip_lo.val());
        // The template's constant sum with the NIC's address, registered from the
        // configuration (one cycle behind it).
        self.cfg_sum.d.next = self.c_sum.val()
            + Bits::<20>::from(self.w_lip_hi.val())
            + Bits::<20>::from(self.w_lip_lo.val());
        // Stage B, from stage A's registers: the checksum, then the header's bytes.
        self.sum0.next = self.cfg_sum.q.val()
            + Bits::<20>::from(self.w_tos.val())
            + Bits::<20>::from(self.w_len.val())
            + self.a_pip.q.val();
        self.f1_lo.next.lo = self.sum0.val().get_bits::<16>(self.c_off[0].val().index());
        self.f1_lo.next.z = self.c_zero4.val();
        self.f1_hi.next.lo = self.sum0.val().get_bits::<4>(self.c_off[2].val().index());
        self.f1_hi.next.z = self.c_zero16.val();
        self.sum1.next = Bits::<20>::from(self.f1_lo.val()) + Bits::<20>::from(self.f1_hi.val());
        self.f2_lo.next.lo = self.sum1.val().get_bits::<16>(self.c_off[0].val().index());
        self.f2_lo.next.z = self.c_zero4.val();
        self.f2_hi.next.lo = self.sum1.val().get_bits::<4>(self.c_off[2].val().index());
        self.f2_hi.next.z = self.c_zero16.val();
        self.sum2.next = Bits::<20>::from(self.f2_lo.val()) + Bits::<20>::from(self.f2_hi.val());
        self.csum.next = !self.sum2.val().get_bits::<16>(self.c_off[0].val().index());
        // The variable bytes, most significant first, in `layout()` order.
        for i in 0..6 {
            self.vb[i].next = self
                .cfg_next_hop_mac
                .val()
                .get_bits::<8>(self.c_off[5 - i].val().index());
            self.vb[6 + i].next = self
                .cfg_mac
                .val()
                .get_bits::<8>(self.c_off[5 - i].val().index());
        }
        self.vb[12].next = Bits::<8>::from(self.tos.val());
        self.vb[13].next = self
            .a_totlen
            .q
            .val()
            .get_bits::<8>(self.c_off[1].val().index());
        self.vb[14].next = self
            .a_totlen
            .q
            .val()
            .get_bits::<8>(self.c_off[0].val().index());
        self.vb[15].next = self.csum.val().get_bits::<8>(self.c_off[1].val().index());
        self.vb[16].next = self.csum.val().get_bits::<8>(self.c_off[0].val().index());
        for i in 0..4 {
            self.vb[17 + i].next = self
                .cfg_ip
                .val()
                .get_bits::<8>(self.c_off[3 - i].val().index());
            self.vb[21 + i].next = self
                .a_peer
                .q
                .val()
                .get_bits::<8>(self.c_off[3 - i].val().index());
        }
        for i in 0..2 {
            self.vb[25 + i].next = self
                .a_sport
                .q
                .val()
                .get_bits::<8>(self.c_off[1 - i].val().index());
            self.vb[27 + i].next = self
                .a_dport
                .q
                .val()
                .get_bits::<8>(self.c_off[1 - i].val().index());
        }
        for i in 0..4 {
            self.vb[29 + i].next = self
                .a_offset
                .q
                .val()
                .get_bits::<8>(self.c_off[3 - i].val().index());
        }
        for i in 0..8 {
            self.vb[33 + i].next = self
                .a_id
                .q
                .val()
                .get_bits::<8>(self.c_off[7 - i].val().index());
        }
        for i in 0..4 {
            self.vb[41 + i].next = self
                .a_length
                .q
                .val()
                .get_bits::<8>(self.c_off[3 - i].val().index());
            self.vb[45 + i].next = self
                .a_incoming
                .q
                .val()
                .get_bits::<8>(self.c_off[3 - i].val().index());
        }
        for i in 0..2 {
            self.vb[49 + i].next = self
                .cfg_cutoff_version
                .val()
                .get_bits::<8>(self.c_off[1 - i].val().index());
        }
        self.vb[51].next = self.c_zero8.val();
        if self.a_retransmit.q.val() {
            self.vb[51].next = self.c_one8.val();
        }
        // The header: each byte from the template or from its variable.
        for i in 0..DATA_HEADER_FRAME_LEN {
            self.fb[i].next = self.c_tmpl[i].val();
            for n in 0..VARS {
                if self.c_is_var[i].val() & (self.c_src[i].val() == self.c_var[n].val()) {
                    self.fb[i].next = self.vb[n].val();
                }
            }
        }
        // The header built, as 64-bit words (bytes past the header zero), for the held
        // words to load.
        for i in 0..DATA_HEADER_FRAME_LEN {
            self.fbytes[i].next = self.fb[i].val();
        }
        for i in DATA_HEADER_FRAME_LEN..FRAME_BYTES {
            self.fbytes[i].next = self.c_zero8.val();
        }
        for m in 0..FRAME_WORDS {
            self.pack[m].b0.next = self.fbytes[8 * m].val();
            self.pack[m].b1.next = self.fbytes[8 * m + 1].val();
            self.pack[m].b2.next = self.fbytes[8 * m + 2].val();
            self.pack[m].b3.next = self.fbytes[8 * m + 3].val();
            self.pack[m].b4.next = self.fbytes[8 * m + 4].val();
            self.pack[m].b5.next = self.fbytes[8 * m + 5].val();
            self.pack[m].b6.next = self.fbytes[8 * m + 6].val();
            self.pack[m].b7.next = self.fbytes[8 * m + 7].val();
        }
        // With more than one header beat (64 bits), the held words shift down a beat's worth
        // with each, so the beat out is always the first W / 8 of them (no mux), and after
        // the last header beat they hold the header's tail for the overlay beat. (`c_from`
        // and `c_word` are constants: the comparison picks one wire per word.) With one
        // (512 bits), nothing shifts: the overlay beat takes the second beat's words.
        for m in 0..FRAME_WORDS {
            self.shifted[m].next = self.c_zero64.val();
            for n in 0..FRAME_WORDS {
                if self.c_from[m].val() == self.c_word[n].val() {
                    self.shifted[m].next = self.hw[n].q.val();
                }
            }
        }
        self.beats.beat.next = self.c_zero16.val();
        if self.at_ov.q.val() & !self.c_shifts.val() {
            self.beats.beat.next = self.c_hbeats.val();
        }
        self.beats.w0.next = self.hw[0].q.val();
        self.beats.w1.next = self.hw[1].q.val();
        self.beats.w2.next = self.hw[2].q.val();
        self.beats.w3.next = self.hw[3].q.val();
        self.beats.w4.next = self.hw[4].q.val();
        self.beats.w5.next = self.hw[5].q.val();
        self.beats.w6.next = self.hw[6].q.val();
        self.beats.w7.next = self.hw[7].q.val();
        self.beats.w8.next = self.hw[8].q.val();
        self.beats.w9.next = self.hw[9].q.val();
        self.beats.w10.next = self.hw[10].q.val();
        self.beats.w11.next = self.hw[11].q.val();
        self.beats.w12.next = self.hw[12].q.val();
        self.beats.w13.next = self.hw[13].q.val();
        self.beats.w14.next = self.hw[14].q.val();
        self.beats.w15.next = self.hw[15].q.val();
        // The overlay beat: the payload's first beat with the header's last bytes in the
        // lanes below the payload.
        self.ov.next = self.s_pay_data.val();
        if self.at_ov.q.val() {
            self.ov.next = (self.s_pay_data.val() & !self.c_ov_mask.val())
                | (self.beats.o.val() & self.c_ov_mask.val());
        }
        // The frame: its header beats from the job's registers alone, then one beat per
        // payload beat.
        self.first.next = !self.past_hdr.q.val();
        self.is_last.next = !self.first.val() & (self.beat.q.val() == self.cur_last_beat.q.val());
        self.stall.next = self.is_last.val() & self.cur_need_done.q.val() & self.done_full.q.val();
        self.m_axis_tdata.next = self.beats.o.val();
        self.m_axis_tkeep.next = self.c_ones.val();
        self.m_axis_tlast.next = false;
        // The header beats wait for the payload's first beat: a frame never starts (and
        // holds the MAC port) before its DMA read has answered.
        self.m_axis_tvalid.next = self.cur_valid.q.val() & self.s_pay_valid.val();
        self.s_pay_ready.next = false;
        if !self.first.val() {
            self.m_axis_tdata.next = self.ov.val();
            self.m_axis_tvalid.next =
                self.cur_valid.q.val() & self.s_pay_valid.val() & !self.stall.val();
            self.s_pay_ready.next =
                self.cur_valid.q.val() & self.m_axis_tready.val() & !self.stall.val();
            if self.is_last.val() {
                self.m_axis_tkeep.next = self.cur_keep.q.val();
                self.m_axis_tlast.next = true;
            }
        }
        self.take.next = self.m_axis_tvalid.val() & self.m_axis_tready.val();
        self.done_frame.next = self.take.val() & self.is_last.val();
        if self.take.val() {
            self.beat.d.next = self.beat.q.val() + self.c_one16.val();
            self.at_ov.d.next = false;
            if self.first.val() & self.c_shifts.val() {
                for m in 0..FRAME_WORDS {
                    self.hw[m].d.next = self.shifted[m].val();
                }
            }
            if self.first.val() & (self.beat.q.val() == self.c_hlast.val()) {
                self.past_hdr.d.next = true;
                self.at_ov.d.next = true;
            }
            if self.is_last.val() {
                self.past_hdr.d.next = false;
                self.beat.d.next = self.c_zero16.val();
                self.n_frames.d.next = self.n_frames.q.val() + self.c_one32.val();
            }
        }
        // Two stages of registers: A takes the job offered (its lengths and the peer's
        // checksum words), B the header built from A (the frame's beats come from B). B
        // takes A's job with the last beat of its frame (or when it holds none), A the next
        // job in the same cycle: frames follow back to back.
        self.free.next = !self.cur_valid.q.val() | self.done_frame.val();
        self.load.next = self.a_valid.q.val() & self.free.val();
        self.a_free.next = !self.a_valid.q.val() | self.free.val();
        self.s_job_ready.next = self.a_free.val();
        self.a_load.next = self.s_job_valid.val() & self.a_free.val();
        if self.done_frame.val() {
            self.cur_valid.d.next = false;
        }
        if self.load.val() {
            self.cur_valid.d.next = true;
            self.a_valid.d.next = false;
            for m in 0..FRAME_WORDS {
                self.hw[m].d.next = self.pack[m].o.val();
            }
            self.cur_last_beat.d.next = self.a_last_beat.q.val();
            self.cur_keep.d.next = self.a_keep.q.val();
            self.cur_need_done.d.next = self.a_need_done.q.val();
            self.cur_id.d.next = self.a_id.q.val();
            self.cur_length.d.next = self.a_length.q.val();
            self.cur_cookie.d.next = self.a_cookie.q.val();
            self.cur_index.d.next = self.a_index.q.val();
        }
        if self.a_load.val() {
            self.a_valid.d.next = true;
            self.a_offset.d.next = self.s_job_offset.val();
            self.a_priority.d.next = self.s_job_priority.val();
            self.a_retransmit.d.next = self.s_job_retransmit.val();
            self.a_incoming.d.next = self.s_job_incoming.val();
            self.a_need_done.d.next = self.s_job_last.val() & !self.s_job_no_completion.val();
            self.a_peer.d.next = self.s_job_peer.val();
            self.a_sport.d.next = self.s_job_sport.val();
            self.a_dport.d.next = self.s_job_dport.val();
            self.a_id.d.next = self.s_job_id.val();
            self.a_length.d.next = self.s_job_length.val();
            self.a_cookie.d.next = self.s_job_cookie.val();
            self.a_index.d.next = self.s_job_index.val();
            self.a_totlen.d.next = self.totlen.val();
            self.a_pip.d.next = self.pip.val();
            self.a_last_beat.d.next = self.last_beat.val();
            self.a_keep.d.next = self.keep_last.val();
        }
        // TX_DONE after a message's last frame.
        if self.m_done_ready.val() {
            self.done_full.d.next = false;
        }
        if self.done_frame.val() & self.cur_need_done.q.val() {
            self.done_full.d.next = true;
            self.done_id.d.next = self.cur_id.q.val();
            self.done_len.d.next = self.cur_length.q.val();
            self.done_cookie.d.next = self.cur_cookie.q.val();
            self.done_index.d.next = self.cur_index.q.val();
        }
        if self.reset.val() {
            self.beat.d.next = self.c_zero16.val();
            self.past_hdr.d.next = false;
            self.at_ov.d.next = false;
            self.cur_valid.d.next = false;
            self.a_valid.d.next = false;
            self.done_full.d.next = false;
            self.n_frames.d.next = self.c_zero32.val();
        }
        self.m_done_valid.next = self.done_full.q.val();
        self.m_done_id.next = self.done_id.q.val();
        self.m_done_length.next = self.done_len.q.val();
        self.m_done_cookie.next = self.done_cookie.q.val();
        self.m_done_index.next = self.done_index.q.val();
        self.frames.next = self.n_frames.q.val();
    }
}
