//! `TxSched`: the NIC's transmit scheduler. It keeps the outbound messages the TX
//! descriptor ring accepted in a table of `N` slots ([`TxSched16`], [`TxSched4`]), raises
//! their granted bytes from the GRANTs the parser decodes, and picks, by SRPT among the
//! slots with granted bytes still to send, the next DATA packet: which bytes of which
//! message, at which priority (one every two cycles while they are taken, below). The pick
//! is [`SrptScheduler`]'s, with each slot masked while it waits for a GRANT; the packet is cut
//! as `homa_proto::core` cuts it ([`homa_proto::core::segment_len`]).
//!
//! ```text
//!  s_desc_* (TxRing512) ─► lowest free slot ─┐      ┌─ sent < granted ─► mask
//!  s_grant_* (parser)  ─► match (peer, id^1) ─► N slots ─► SrptScheduler ─► [pk_slot]
//!                                              ▲                                  │
//!                                              │       m_job_* ◄─ cut ◄─ N:1 mux  ◄┘
//!                                              │                   │
//!                                              └───────────────────┘ sent += len (0 left: free)
//! ```
//!
//! A slot holds a range of a message still to send: `[0, length)` for a SEND_MESSAGE,
//! `[offset, offset + bytes)` for a RETRANSMIT. Its SRPT key is the bytes of the range not yet
//! sent (for a message, `length - sent`, `proto::core`'s key; a retransmission's key is what
//! is left of its range, so it goes before longer messages); ties go to the older slot. A
//! SEND_MESSAGE starts with `min(cfg_unsched_bytes, length)` granted and its unscheduled
//! priority from the cutoffs (`proto::policy::unsched_priority`); a GRANT for it raises
//! `granted` to `min(offset, length)` (never lowers it) and sets the scheduled priority. A
//! RETRANSMIT is granted whole and sent at the message's unscheduled priority (the descriptor
//! carries no priority), with DATA's retransmit flag and `incoming` at its range's end.
//!
//! A CANCEL descriptor (`s_desc_cancel`) takes no slot and is taken every cycle, even with
//! the table full (the messages it stops may be what fills it): every live slot of its peer
//! and RPC id, SEND_MESSAGE or RETRANSMIT, is cut short after one more packet of one byte
//! (its end, its granted bytes and its unscheduled limit become `sent + 1`). No job is
//! offered in a CANCEL's cycle, so the cut comes from the slot registers alone, off the
//! pick path.
//! That packet is the range's last, so its `TX_DONE` follows once every earlier payload
//! read of the slot has come back (the job FIFO is in order), and the host may free the
//! payload. The SRPT scheduler keeps the slot's remaining bytes as they were until that
//! pick (its key is refreshed only by picks).
//!
//! Each job (`m_job_*`) is one DATA packet: the payload's host address and length for the DMA
//! read, and every header field the DATA framer needs, so the slot can be reused before the
//! frame leaves. A packet never straddles the unscheduled limit and carries at most
//! `cfg_max_payload` bytes (> 0). `m_job_last` marks a range's last packet (the slot is free
//! after it): the framer posts `TX_DONE` after that frame, unless `m_job_no_completion`.
//!
//! Parking (the second level, [`crate::tx_park`]): a slot that waits for a GRANT (a live
//! SEND_MESSAGE whose granted bytes are all sent: `waiting`) may leave the table so that a
//! new message can have its slot. The park names the slot (`park_slot`, `park_valid`), reads
//! its state from `park_*`, and the slot is free after the edge if `park_ok`: nothing else
//! may touch it in that cycle (no GRANT at all, no CANCEL, no registered pick, whose job
//! would take the SRPT scheduler's update port; all known from inputs and registers, so the
//! park's decision does not wait for the GRANT compare or the job's ready). It comes back as
//! a descriptor with `s_desc_resume`: its sent bytes as the offset, the rest as the bytes,
//! its granted bytes and scheduled priority with it (its unscheduled share and priority are
//! recomputed from the length, as at its first insert); it is then the youngest slot.
//! `m_grant_hit` tells the park which GRANTs matched a slot here.
//!
//! Timing: the pick is two register stages, one decision every two cycles at most, which is
//! line rate for the smallest DATA frame (2.3 cycles at 100 Gb/s, docs/timing.md). Stage 1:
//! slot state → mask → the SRPT scheduler's tournament → the picked slot, registered.
//! Stage 2: an N-way mux of that slot's state as it is *now* → the cut → `m_job_*`, and at
//! the edge that takes the job, the slot's and the SRPT scheduler's update. The slot keeps
//! its bytes to the range's end and to the unscheduled limit, so the cut is a compare and a
//! mux, with no subtraction before it. The job is thus the SRPT pick over the state one
//! cycle old (a GRANT or an insert at the edge between does not change it), cut from the
//! state of now (a CANCEL at that edge does cut it): the registered slot is still live and
//! eligible, since only a pick frees a slot and nothing else brings its granted bytes down
//! to its sent bytes (a CANCEL leaves one byte); the cycle after a pick offers no job (the
//! registered pick predates that pick's update). A GRANT, an insert and a pick are all
//! taken in the same cycle (they touch different fields or slots). GRANTs are always taken;
//! one that matches no slot (its message is fully sent, or unknown) is counted in
//! `grants_unmatched`. IPv4 peers only (`u32`, first byte most significant, as the GRANT
//! framer takes them).

#[cfg(test)]
mod tests;

use crate::grant_framer::Lo32Hi32;
use crate::hdl::*;
use crate::srpt::SrptScheduler;

/// Slots in the 16-slot table ([`TxSched16`]).
pub const TX_SLOTS: usize = 16;

/// The transmit scheduler with 16 slots.
pub type TxSched16 = TxSched<16, 31, 256, 4>;

/// The transmit scheduler with 4 slots.
pub type TxSched4 = TxSched<4, 7, 16, 2>;

/// The transmit scheduler: `N` outbound ranges (`N = 1 << S`, at most 16; `NODES = 2N - 1`
/// and `NN = N²` size its SRPT scheduler), GRANTs into them, one DATA packet per pick. Slot
/// numbers on its ports are four bits wide whatever `N`.
#[derive(LogicBlock)]
pub struct TxSched<const N: usize, const NODES: usize, const NN: usize, const S: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: frees every slot, clears the counters.
    pub reset: Signal<In, Bit>,
    /// Unscheduled bytes per message (`rtt_bytes`).
    pub cfg_unsched_bytes: Signal<In, Bits<32>>,
    /// Most payload bytes per DATA packet (> 0).
    pub cfg_max_payload: Signal<In, Bits<32>>,
    /// Largest message length using unscheduled level 1.
    pub cfg_cutoff1: Signal<In, Bits<32>>,
    /// Largest message length using unscheduled level 2.
    pub cfg_cutoff2: Signal<In, Bits<32>>,
    /// Largest message length using unscheduled level 3.
    pub cfg_cutoff3: Signal<In, Bits<32>>,
    /// Largest message length using unscheduled level 4.
    pub cfg_cutoff4: Signal<In, Bits<32>>,
    /// Largest message length using unscheduled level 5.
    pub cfg_cutoff5: Signal<In, Bits<32>>,
    /// Largest message length using unscheduled level 6.
    pub cfg_cutoff6: Signal<In, Bits<32>>,
    /// Largest message length using unscheduled level 7.
    pub cfg_cutoff7: Signal<In, Bits<32>>,
    /// An accepted TX descriptor is offered.
    pub s_desc_valid: Signal<In, Bit>,
    /// It is taken (a slot is free, from registers; or it is a CANCEL).
    pub s_desc_ready: Signal<Out, Bit>,
    /// RETRANSMIT (otherwise SEND_MESSAGE, unless CANCEL).
    pub s_desc_retransmit: Signal<In, Bit>,
    /// CANCEL: stop the slots of this peer and RPC id (see the module doc).
    pub s_desc_cancel: Signal<In, Bit>,
    /// Flag NO_COMPLETION.
    pub s_desc_no_completion: Signal<In, Bit>,
    /// Local Homa port.
    pub s_desc_sport: Signal<In, Bits<16>>,
    /// Peer's Homa port.
    pub s_desc_dport: Signal<In, Bits<16>>,
    /// RPC id (the local one).
    pub s_desc_id: Signal<In, Bits<64>>,
    /// Peer IPv4 address.
    pub s_desc_peer: Signal<In, Bits<32>>,
    /// The whole message's length (> 0).
    pub s_desc_length: Signal<In, Bits<32>>,
    /// IOVA of the message's first byte.
    pub s_desc_iova: Signal<In, Bits<64>>,
    /// First byte to send: 0, or the retransmit offset.
    pub s_desc_offset: Signal<In, Bits<32>>,
    /// Bytes to send from there (> 0, inside the message).
    pub s_desc_bytes: Signal<In, Bits<32>>,
    /// The descriptor's cookie.
    pub s_desc_cookie: Signal<In, Bits<64>>,
    /// Its ring index.
    pub s_desc_index: Signal<In, Bits<32>>,
    /// A parked SEND_MESSAGE comes back (see "Parking" in the module doc): `s_desc_offset` is
    /// what it has sent, `s_desc_bytes` the rest of it, and it starts with `s_desc_granted`
    /// granted (at least the offset, at most the length) and `s_desc_sprio` as its scheduled
    /// priority.
    pub s_desc_resume: Signal<In, Bit>,
    /// A resumed message's granted bytes.
    pub s_desc_granted: Signal<In, Bits<32>>,
    /// A resumed message's scheduled priority.
    pub s_desc_sprio: Signal<In, Bits<3>>,
    /// A GRANT arrived (decoded by the parser).
    pub s_grant_valid: Signal<In, Bit>,
    /// Always high: a GRANT is taken every cycle.
    pub s_grant_ready: Signal<Out, Bit>,
    /// The GRANT's source IPv4 address (the peer).
    pub s_grant_peer: Signal<In, Bits<32>>,
    /// Its `sender_id` as on the wire (the local id with the low bit flipped).
    pub s_grant_id: Signal<In, Bits<64>>,
    /// Every byte below this offset may be sent.
    pub s_grant_offset: Signal<In, Bits<32>>,
    /// The priority for the scheduled bytes.
    pub s_grant_priority: Signal<In, Bits<3>>,
    /// This cycle's GRANT matches a live slot (from the GRANT's inputs and the slots).
    pub m_grant_hit: Signal<Out, Bit>,
    /// The slots that wait for a GRANT: live SEND_MESSAGEs with every granted byte sent
    /// (bit `j` is slot `j`; from registers only).
    pub waiting: Signal<Out, Bits<16>>,
    /// Park slot `park_slot` at this edge, if `park_ok`.
    pub park_valid: Signal<In, Bit>,
    /// The slot to park.
    pub park_slot: Signal<In, Bits<4>>,
    /// `park_slot` may leave at this edge: it holds a SEND_MESSAGE that no CANCEL cut short,
    /// and there is no GRANT, no CANCEL and no registered pick in this cycle.
    pub park_ok: Signal<Out, Bit>,
    /// Some slot holds a SEND_MESSAGE that may park (registered: the state of the cycle
    /// before).
    pub most_valid: Signal<Out, Bit>,
    /// Of those, the one with the most bytes left to send (the lowest on ties).
    pub most_slot: Signal<Out, Bits<4>>,
    /// Its bytes left to send.
    pub most_left: Signal<Out, Bits<32>>,
    /// Every slot is taken (from registers).
    pub full: Signal<Out, Bit>,
    /// `park_slot`'s flag NO_COMPLETION.
    pub park_no_completion: Signal<Out, Bit>,
    /// `park_slot`'s local port.
    pub park_sport: Signal<Out, Bits<16>>,
    /// `park_slot`'s peer port.
    pub park_dport: Signal<Out, Bits<16>>,
    /// `park_slot`'s RPC id.
    pub park_id: Signal<Out, Bits<64>>,
    /// `park_slot`'s peer.
    pub park_peer: Signal<Out, Bits<32>>,
    /// `park_slot`'s message length.
    pub park_length: Signal<Out, Bits<32>>,
    /// `park_slot`'s message IOVA.
    pub park_iova: Signal<Out, Bits<64>>,
    /// `park_slot`'s cookie.
    pub park_cookie: Signal<Out, Bits<64>>,
    /// `park_slot`'s ring index.
    pub park_index: Signal<Out, Bits<32>>,
    /// `park_slot`'s bytes sent (its resume offset).
    pub park_sent: Signal<Out, Bits<32>>,
    /// `park_slot`'s bytes left to send.
    pub park_left: Signal<Out, Bits<32>>,
    /// `park_slot`'s granted bytes.
    pub park_granted: Signal<Out, Bits<32>>,
    /// `park_slot`'s scheduled priority.
    pub park_sprio: Signal<Out, Bits<3>>,
    /// A DATA packet is decided.
    pub m_job_valid: Signal<Out, Bit>,
    /// It is taken (the slot advances at this edge).
    pub m_job_ready: Signal<In, Bit>,
    /// Host address of the payload's first byte.
    pub m_job_addr: Signal<Out, Bits<64>>,
    /// The payload's offset in the message (DATA's `offset`).
    pub m_job_offset: Signal<Out, Bits<32>>,
    /// Payload bytes (1..=`cfg_max_payload`).
    pub m_job_len: Signal<Out, Bits<32>>,
    /// The packet's priority.
    pub m_job_priority: Signal<Out, Bits<3>>,
    /// DATA's retransmit flag.
    pub m_job_retransmit: Signal<Out, Bit>,
    /// DATA's `incoming`.
    pub m_job_incoming: Signal<Out, Bits<32>>,
    /// The range's last packet: the slot is free after it.
    pub m_job_last: Signal<Out, Bit>,
    /// The descriptor asked for no `TX_DONE`.
    pub m_job_no_completion: Signal<Out, Bit>,
    /// Peer IPv4 address.
    pub m_job_peer: Signal<Out, Bits<32>>,
    /// Local Homa port.
    pub m_job_sport: Signal<Out, Bits<16>>,
    /// Peer's Homa port.
    pub m_job_dport: Signal<Out, Bits<16>>,
    /// RPC id (DATA's `sender_id`).
    pub m_job_id: Signal<Out, Bits<64>>,
    /// The message's length.
    pub m_job_length: Signal<Out, Bits<32>>,
    /// The descriptor's cookie.
    pub m_job_cookie: Signal<Out, Bits<64>>,
    /// The descriptor's ring index.
    pub m_job_index: Signal<Out, Bits<32>>,
    /// The slot the packet comes from.
    pub m_job_slot: Signal<Out, Bits<4>>,
    /// Occupied slots.
    pub occupancy: Signal<Out, Bits<16>>,
    /// Jobs taken (DATA packets decided), free-running.
    pub packets: Signal<Out, Bits<32>>,
    /// GRANTs that matched no slot, free-running.
    pub grants_unmatched: Signal<Out, Bits<32>>,
    srpt: SrptScheduler<N, NODES, NN, S>,
    live: [DFF<Bit>; N],
    rtx: [DFF<Bit>; N],
    nocpl: [DFF<Bit>; N],
    sport: [DFF<Bits<16>>; N],
    dport: [DFF<Bits<16>>; N],
    id: [DFF<Bits<64>>; N],
    iova: [DFF<Bits<64>>; N],
    cookie: [DFF<Bits<64>>; N],
    peer: [DFF<Bits<32>>; N],
    length: [DFF<Bits<32>>; N],
    end: [DFF<Bits<32>>; N],
    sent: [DFF<Bits<32>>; N],
    granted: [DFF<Bits<32>>; N],
    unsch: [DFF<Bits<32>>; N],
    left: [DFF<Bits<32>>; N],
    uleft: [DFF<Bits<32>>; N],
    uend: [DFF<Bit>; N],
    cut: [DFF<Bit>; N],
    index: [DFF<Bits<32>>; N],
    uprio: [DFF<Bits<3>>; N],
    sprio: [DFF<Bits<3>>; N],
    n_pkts: DFF<Bits<32>>,
    n_unmatched: DFF<Bits<32>>,
    pk_valid: DFF<Bit>,
    pk_slot: DFF<Bits<S>>,
    mo_v: DFF<Bit>,
    mo_s: DFF<Bits<4>>,
    mo_l: DFF<Bits<32>>,
    pkb: [Signal<Local, Bit>; N],
    tv: [Signal<Local, Bit>; NODES],
    ts: [Signal<Local, Bits<4>>; NODES],
    tl: [Signal<Local, Bits<32>>; NODES],
    elig: [Signal<Local, Bit>; N],
    wait: [Signal<Local, Bit>; N],
    wk: [Signal<Local, Bits<16>>; NODES],
    park_fire: Signal<Local, Bit>,
    gmatch: [Signal<Local, Bit>; N],
    cmatch: [Signal<Local, Bit>; N],
    c_base: [Signal<Local, Bits<32>>; N],
    big_l: [Signal<Local, Bit>; N],
    big_u: [Signal<Local, Bit>; N],
    nz_u: [Signal<Local, Bit>; N],
    p_big_l: Signal<Local, Bit>,
    p_big_u: Signal<Local, Bit>,
    p_nz_u: Signal<Local, Bit>,
    p_uend: Signal<Local, Bit>,
    cancel_fire: Signal<Local, Bit>,
    pick_valid: Signal<Local, Bit>,
    any_match: Signal<Local, Bit>,
    mk: [Signal<Local, Bits<N>>; NODES],
    park_s: Signal<Local, Bits<S>>,
    gid: Signal<Local, Bits<64>>,
    ins_fire: Signal<Local, Bit>,
    ins_unsch: Signal<Local, Bits<32>>,
    ins_end: Signal<Local, Bits<32>>,
    ins_uprio: Signal<Local, Bits<3>>,
    ins_uleft: Signal<Local, Bits<32>>,
    fire: Signal<Local, Bit>,
    p_rtx: Signal<Local, Bit>,
    p_sent: Signal<Local, Bits<32>>,
    p_end: Signal<Local, Bits<32>>,
    p_unsch: Signal<Local, Bits<32>>,
    p_left: Signal<Local, Bits<32>>,
    p_uleft: Signal<Local, Bits<32>>,
    p_rem: Signal<Local, Bits<32>>,
    p_iova: Signal<Local, Bits<64>>,
    p_uprio: Signal<Local, Bits<3>>,
    p_sprio: Signal<Local, Bits<3>>,
    p_in_unsched: Signal<Local, Bit>,
    p_len: Signal<Local, Bits<32>>,
    p_new_sent: Signal<Local, Bits<32>>,
    p_last: Signal<Local, Bit>,
    p_sent64: Signal<Local, Lo32Hi32>,
    c_slot: [Constant<Bits<S>>; N],
    c_slot4: [Constant<Bits<4>>; N],
    c_oh: [Constant<Bits<N>>; N],
    c_oh16: [Constant<Bits<16>>; N],
    c_zero_n: Constant<Bits<N>>,
    c_zero16: Constant<Bits<16>>,
    c_zero_s: Constant<Bits<S>>,
    c_prio: [Constant<Bits<3>>; 8],
    c_zero32: Constant<Bits<32>>,
    c_one32: Constant<Bits<32>>,
    c_one64: Constant<Bits<64>>,
    c_zero64: Constant<Bits<64>>,
    c_lo: Constant<Bits<8>>,
}

impl<const N: usize, const NODES: usize, const NN: usize, const S: usize> TxSched<N, NODES, NN, S> {
    /// A scheduler with every slot free (after reset).
    ///
    /// # Panics
    /// Unless `N = 1 << S` with `2 <= N <= 16`, `NODES = 2N - 1` and `NN = N²`: a caller bug in
    /// the type's parameters.
    pub fn new() -> Self {
        assert!(
            (2..=16).contains(&N) && N == 1 << S && NODES == 2 * N - 1 && NN == N * N,
            "TxSched<{N}, {NODES}, {NN}, {S}>: need N = 1 << S in 2..=16, NODES = 2N - 1, NN = N²"
        );
        Self {
            clock: Signal::default(),
            reset: Signal::default(),
            cfg_unsched_bytes: Signal::default(),
            cfg_max_payload: Signal::default(),
            cfg_cutoff1: Signal::default(),
            cfg_cutoff2: Signal::default(),
            cfg_cutoff3: Signal::default(),
            cfg_cutoff4: Signal::default(),
            cfg_cutoff5: Signal::default(),
            cfg_cutoff6: Signal::default(),
            cfg_cutoff7: Signal::default(),
            s_desc_valid: Signal::default(),
            s_desc_ready: Signal::default(),
            s_desc_retransmit: Signal::default(),
            s_desc_cancel: Signal::default(),
            s_desc_no_completion: Signal::default(),
            s_desc_sport: Signal::default(),
            s_desc_dport: Signal::default(),
            s_desc_id: Signal::default(),
            s_desc_peer: Signal::default(),
            s_desc_length: Signal::default(),
            s_desc_iova: Signal::default(),
            s_desc_offset: Signal::default(),
            s_desc_bytes: Signal::default(),
            s_desc_cookie: Signal::default(),
            s_desc_index: Signal::default(),
            s_desc_resume: Signal::default(),
            s_desc_granted: Signal::default(),
            s_desc_sprio: Signal::default(),
            s_grant_valid: Signal::default(),
            s_grant_ready: Signal::default(),
            s_grant_peer: Signal::default(),
            s_grant_id: Signal::default(),
            s_grant_offset: Signal::default(),
            s_grant_priority: Signal::default(),
            m_grant_hit: Signal::default(),
            waiting: Signal::default(),
            park_valid: Signal::default(),
            park_slot: Signal::default(),
            park_ok: Signal::default(),
            most_valid: Signal::default(),
            most_slot: Signal::default(),
            most_left: Signal::default(),
            full: Signal::default(),
            park_no_completion: Signal::default(),
            park_sport: Signal::default(),
            park_dport: Signal::default(),
            park_id: Signal::default(),
            park_peer: Signal::default(),
            park_length: Signal::default(),
            park_iova: Signal::default(),
            park_cookie: Signal::default(),
            park_index: Signal::default(),
            park_sent: Signal::default(),
            park_left: Signal::default(),
            park_granted: Signal::default(),
            park_sprio: Signal::default(),
            m_job_valid: Signal::default(),
            m_job_ready: Signal::default(),
            m_job_addr: Signal::default(),
            m_job_offset: Signal::default(),
            m_job_len: Signal::default(),
            m_job_priority: Signal::default(),
            m_job_retransmit: Signal::default(),
            m_job_incoming: Signal::default(),
            m_job_last: Signal::default(),
            m_job_no_completion: Signal::default(),
            m_job_peer: Signal::default(),
            m_job_sport: Signal::default(),
            m_job_dport: Signal::default(),
            m_job_id: Signal::default(),
            m_job_length: Signal::default(),
            m_job_cookie: Signal::default(),
            m_job_index: Signal::default(),
            m_job_slot: Signal::default(),
            occupancy: Signal::default(),
            packets: Signal::default(),
            grants_unmatched: Signal::default(),
            srpt: SrptScheduler::new(),
            live: std::array::from_fn(|_| DFF::default()),
            rtx: std::array::from_fn(|_| DFF::default()),
            nocpl: std::array::from_fn(|_| DFF::default()),
            sport: std::array::from_fn(|_| DFF::default()),
            dport: std::array::from_fn(|_| DFF::default()),
            id: std::array::from_fn(|_| DFF::default()),
            iova: std::array::from_fn(|_| DFF::default()),
            cookie: std::array::from_fn(|_| DFF::default()),
            peer: std::array::from_fn(|_| DFF::default()),
            length: std::array::from_fn(|_| DFF::default()),
            end: std::array::from_fn(|_| DFF::default()),
            sent: std::array::from_fn(|_| DFF::default()),
            granted: std::array::from_fn(|_| DFF::default()),
            unsch: std::array::from_fn(|_| DFF::default()),
            left: std::array::from_fn(|_| DFF::default()),
            uleft: std::array::from_fn(|_| DFF::default()),
            uend: std::array::from_fn(|_| DFF::default()),
            cut: std::array::from_fn(|_| DFF::default()),
            index: std::array::from_fn(|_| DFF::default()),
            uprio: std::array::from_fn(|_| DFF::default()),
            sprio: std::array::from_fn(|_| DFF::default()),
            n_pkts: DFF::default(),
            n_unmatched: DFF::default(),
            pk_valid: DFF::default(),
            pk_slot: DFF::default(),
            mo_v: DFF::default(),
            mo_s: DFF::default(),
            mo_l: DFF::default(),
            pkb: std::array::from_fn(|_| Signal::default()),
            tv: std::array::from_fn(|_| Signal::default()),
            ts: std::array::from_fn(|_| Signal::default()),
            tl: std::array::from_fn(|_| Signal::default()),
            elig: std::array::from_fn(|_| Signal::default()),
            wait: std::array::from_fn(|_| Signal::default()),
            wk: std::array::from_fn(|_| Signal::default()),
            park_fire: Signal::default(),
            gmatch: std::array::from_fn(|_| Signal::default()),
            cmatch: std::array::from_fn(|_| Signal::default()),
            c_base: std::array::from_fn(|_| Signal::default()),
            big_l: std::array::from_fn(|_| Signal::default()),
            big_u: std::array::from_fn(|_| Signal::default()),
            nz_u: std::array::from_fn(|_| Signal::default()),
            p_big_l: Signal::default(),
            p_big_u: Signal::default(),
            p_nz_u: Signal::default(),
            p_uend: Signal::default(),
            cancel_fire: Signal::default(),
            pick_valid: Signal::default(),
            any_match: Signal::default(),
            mk: std::array::from_fn(|_| Signal::default()),
            park_s: Signal::default(),
            gid: Signal::default(),
            ins_fire: Signal::default(),
            ins_unsch: Signal::default(),
            ins_end: Signal::default(),
            ins_uprio: Signal::default(),
            ins_uleft: Signal::default(),
            fire: Signal::default(),
            p_rtx: Signal::default(),
            p_sent: Signal::default(),
            p_end: Signal::default(),
            p_unsch: Signal::default(),
            p_left: Signal::default(),
            p_uleft: Signal::default(),
            p_rem: Signal::default(),
            p_iova: Signal::default(),
            p_uprio: Signal::default(),
            p_sprio: Signal::default(),
            p_in_unsched: Signal::default(),
            p_len: Signal::default(),
            p_new_sent: Signal::default(),
            p_last: Signal::default(),
            p_sent64: Signal::default(),
            c_slot: std::array::from_fn(|j| Constant::new((j as u64).into())),
            c_slot4: std::array::from_fn(|j| Constant::new((j as u64).into())),
            c_oh: std::array::from_fn(|j| Constant::new((1u64 << j).into())),
            c_oh16: std::array::from_fn(|j| Constant::new((1u64 << j).into())),
            c_zero_n: Constant::new(0u64.into()),
            c_zero16: Constant::new(0u64.into()),
            c_zero_s: Constant::new(0u64.into()),
            c_prio: std::array::from_fn(|p| Constant::new((p as u64).into())),
            c_zero32: Constant::new(0u64.into()),
            c_one32: Constant::new(1u64.into()),
            c_one64: Constant::new(1u64.into()),
            c_zero64: Constant::new(0u64.into()),
            c_lo: Constant::new(0u64.into()),
        }
    }

    /// A new scheduler as the top level of a design: every input driven from outside, the
    /// rest connected (what the Verilog generator and the bench both start from).
    pub fn top_level() -> Self {
        let mut uut = Self::new();
        uut.clock.connect();
        uut.reset.connect();
        uut.cfg_unsched_bytes.connect();
        uut.cfg_max_payload.connect();
        uut.cfg_cutoff1.connect();
        uut.cfg_cutoff2.connect();
        uut.cfg_cutoff3.connect();
        uut.cfg_cutoff4.connect();
        uut.cfg_cutoff5.connect();
        uut.cfg_cutoff6.connect();
        uut.cfg_cutoff7.connect();
        uut.s_desc_valid.connect();
        uut.s_desc_retransmit.connect();
        uut.s_desc_cancel.connect();
        uut.s_desc_no_completion.connect();
        uut.s_desc_sport.connect();
        uut.s_desc_dport.connect();
        uut.s_desc_id.connect();
        uut.s_desc_peer.connect();
        uut.s_desc_length.connect();
        uut.s_desc_iova.connect();
        uut.s_desc_offset.connect();
        uut.s_desc_bytes.connect();
        uut.s_desc_cookie.connect();
        uut.s_desc_index.connect();
        uut.s_desc_resume.connect();
        uut.s_desc_granted.connect();
        uut.s_desc_sprio.connect();
        uut.s_grant_valid.connect();
        uut.s_grant_peer.connect();
        uut.s_grant_id.connect();
        uut.s_grant_offset.connect();
        uut.s_grant_priority.connect();
        uut.park_valid.connect();
        uut.park_slot.connect();
        uut.m_job_ready.connect();
        uut.connect_all();
        uut
    }
}

impl<const N: usize, const NODES: usize, const NN: usize, const S: usize> Default
    for TxSched<N, NODES, NN, S>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize, const NODES: usize, const NN: usize, const S: usize> core::fmt::Debug
    for TxSched<N, NODES, NN, S>
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TxSched")
            .field("slots", &N)
            .finish_non_exhaustive()
    }
}

impl<const N: usize, const NODES: usize, const NN: usize, const S: usize> Logic
    for TxSched<N, NODES, NN, S>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, n_pkts, n_unmatched, mo_v, mo_s, mo_l);
        self.srpt.clock.next = self.clock.val();
        self.srpt.reset.next = self.reset.val();
        // Eligible slots: live, with granted bytes not yet sent.
        for j in 0..N {
            self.elig[j].next =
                self.live[j].q.val() & (self.sent[j].q.val() < self.granted[j].q.val());
        }
        // The mask, through an OR tree of one-hot leaves (leaves 0..N; node N + k ORs 2k
        // and 2k + 1; the root is node 2N - 2). rust-hdl has no per-bit write into a signal.
        for j in 0..N {
            self.mk[j].next = self.c_zero_n.val();
            if self.elig[j].val() {
                self.mk[j].next = self.c_oh[j].val();
            }
        }
        for n in N..(N + 1) {
            for k in 0..(N - 1) {
                self.mk[n + k].next = self.mk[2 * k].val() | self.mk[2 * k + 1].val();
            }
        }
        for r in (NODES - 1)..NODES {
            self.srpt.s_mask.next = self.mk[r].val();
        }
        // Slots that wait for a GRANT (what a park may take first), and the SEND_MESSAGEs no
        // CANCEL cut short (what a park may take).
        for j in 0..N {
            self.pkb[j].next = self.live[j].q.val() & !self.rtx[j].q.val() & !self.cut[j].q.val();
            self.wait[j].next = self.live[j].q.val()
                & !self.rtx[j].q.val()
                & (self.sent[j].q.val() == self.granted[j].q.val());
        }
        for j in 0..N {
            self.wk[j].next = self.c_zero16.val();
            if self.wait[j].val() {
                self.wk[j].next = self.c_oh16[j].val();
            }
        }
        for n in N..(N + 1) {
            for k in 0..(N - 1) {
                self.wk[n + k].next = self.wk[2 * k].val() | self.wk[2 * k + 1].val();
            }
        }
        for r in (NODES - 1)..NODES {
            self.waiting.next = self.wk[r].val();
        }
        // Stage 2: the registered pick's slot as it is now (it is still live and eligible:
        // see the module doc). Each slot's compares with the payload limit run beside the
        // mux, not after it.
        for j in 0..N {
            self.big_l[j].next = self.cfg_max_payload.val() < self.left[j].q.val();
            self.big_u[j].next = self.cfg_max_payload.val() < self.uleft[j].q.val();
            self.nz_u[j].next = self.uleft[j].q.val() != self.c_zero32.val();
        }
        self.p_big_l.next = false;
        self.p_big_u.next = false;
        self.p_nz_u.next = false;
        self.p_uend.next = false;
        self.p_rtx.next = false;
        self.p_sent.next = self.c_zero32.val();
        self.p_end.next = self.c_zero32.val();
        self.p_unsch.next = self.c_zero32.val();
        self.p_left.next = self.c_zero32.val();
        self.p_uleft.next = self.c_zero32.val();
        self.p_iova.next = self.c_zero64.val();
        self.p_uprio.next = self.c_prio[0].val();
        self.p_sprio.next = self.c_prio[0].val();
        self.m_job_no_completion.next = false;
        self.m_job_peer.next = self.c_zero32.val();
        self.m_job_sport.next = self.sport[0].q.val();
        self.m_job_dport.next = self.dport[0].q.val();
        self.m_job_id.next = self.id[0].q.val();
        self.m_job_length.next = self.c_zero32.val();
        self.m_job_cookie.next = self.cookie[0].q.val();
        self.m_job_index.next = self.c_zero32.val();
        for j in 0..N {
            if self.pk_slot.q.val() == self.c_slot[j].val() {
                self.p_rtx.next = self.rtx[j].q.val();
                self.p_sent.next = self.sent[j].q.val();
                self.p_end.next = self.end[j].q.val();
                self.p_unsch.next = self.unsch[j].q.val();
                self.p_left.next = self.left[j].q.val();
                self.p_uleft.next = self.uleft[j].q.val();
                self.p_big_l.next = self.big_l[j].val();
                self.p_big_u.next = self.big_u[j].val();
                self.p_nz_u.next = self.nz_u[j].val();
                self.p_uend.next = self.uend[j].q.val();
                self.p_iova.next = self.iova[j].q.val();
                self.p_uprio.next = self.uprio[j].q.val();
                self.p_sprio.next = self.sprio[j].q.val();
                self.m_job_no_completion.next = self.nocpl[j].q.val();
                self.m_job_peer.next = self.peer[j].q.val();
                self.m_job_sport.next = self.sport[j].q.val();
                self.m_job_dport.next = self.dport[j].q.val();
                self.m_job_id.next = self.id[j].q.val();
                self.m_job_length.next = self.length[j].q.val();
                self.m_job_cookie.next = self.cookie[j].q.val();
                self.m_job_index.next = self.index[j].q.val();
            }
        }
        // The cut: never past the unscheduled limit of a message, nor the range's end. The
        // bytes to either are kept per slot, so no subtraction comes before the cut; the
        // packet is the range's last when it takes all that is left: below the unscheduled
        // limit only when that limit is the range's end (`uend`), above it when the rest fits.
        self.p_in_unsched.next = !self.p_rtx.val() & self.p_nz_u.val();
        self.p_len.next = self.p_left.val();
        if self.p_big_l.val() {
            self.p_len.next = self.cfg_max_payload.val();
        }
        self.p_last.next = !self.p_big_l.val();
        if self.p_in_unsched.val() {
            self.p_len.next = self.p_uleft.val();
            if self.p_big_u.val() {
                self.p_len.next = self.cfg_max_payload.val();
            }
            self.p_last.next = !self.p_big_u.val() & self.p_uend.val();
        }
        self.p_new_sent.next = self.p_sent.val() + self.p_len.val();
        self.p_rem.next = self.p_left.val() - self.p_len.val();
        // A CANCEL's cycle offers no job (see the module doc).
        self.cancel_fire.next = self.s_desc_valid.val() & self.s_desc_cancel.val();
        self.pick_valid.next = self.pk_valid.q.val() & !self.cancel_fire.val();
        self.m_job_valid.next = self.pick_valid.val();
        self.m_job_slot.next = self.c_slot4[0].val();
        for j in 0..N {
            if self.pk_slot.q.val() == self.c_slot[j].val() {
                self.m_job_slot.next = self.c_slot4[j].val();
            }
        }
        self.p_sent64.next.lo = self.p_sent.val();
        self.p_sent64.next.hi = self.c_zero32.val();
        self.m_job_addr.next = self.p_iova.val() + Bits::<64>::from(self.p_sent64.val());
        self.m_job_offset.next = self.p_sent.val();
        self.m_job_len.next = self.p_len.val();
        self.m_job_priority.next = self.p_sprio.val();
        if self.p_rtx.val() | self.p_in_unsched.val() {
            self.m_job_priority.next = self.p_uprio.val();
        }
        self.m_job_retransmit.next = self.p_rtx.val();
        self.m_job_incoming.next = self.p_unsch.val();
        if self.p_rtx.val() {
            self.m_job_incoming.next = self.p_end.val();
        }
        self.m_job_last.next = self.p_last.val();
        self.fire.next = self.pick_valid.val() & self.m_job_ready.val();
        // GRANTs: matched against live SEND_MESSAGE slots by (peer, local id).
        self.s_grant_ready.next = true;
        self.gid.next = self.s_grant_id.val() ^ self.c_one64.val();
        self.any_match.next = false;
        for j in 0..N {
            self.gmatch[j].next = self.live[j].q.val()
                & !self.rtx[j].q.val()
                & (self.peer[j].q.val() == self.s_grant_peer.val())
                & (self.id[j].q.val() == self.gid.val());
            if self.gmatch[j].val() {
                self.any_match.next = true;
            }
        }
        self.m_grant_hit.next = self.s_grant_valid.val() & self.any_match.val();
        // Parking: `park_slot` leaves when it holds a SEND_MESSAGE (one that waits for a GRANT,
        // or one that a shorter message outranks) and nothing else may touch it in the cycle:
        // no GRANT (its own, or a re-offered one), no CANCEL, no registered pick (whose job
        // would take the SRPT update port). All from inputs and registers, off
        // the GRANT compare and the job's ready.
        self.park_ok.next = false;
        self.park_no_completion.next = false;
        self.park_sport.next = self.sport[0].q.val();
        self.park_dport.next = self.dport[0].q.val();
        self.park_id.next = self.id[0].q.val();
        self.park_peer.next = self.peer[0].q.val();
        self.park_length.next = self.length[0].q.val();
        self.park_iova.next = self.iova[0].q.val();
        self.park_cookie.next = self.cookie[0].q.val();
        self.park_index.next = self.index[0].q.val();
        self.park_sent.next = self.sent[0].q.val();
        self.park_left.next = self.left[0].q.val();
        self.park_granted.next = self.granted[0].q.val();
        self.park_sprio.next = self.sprio[0].q.val();
        for j in 0..N {
            if self.park_slot.val() == self.c_slot4[j].val() {
                self.park_ok.next = self.pkb[j].val();
                self.park_no_completion.next = self.nocpl[j].q.val();
                self.park_sport.next = self.sport[j].q.val();
                self.park_dport.next = self.dport[j].q.val();
                self.park_id.next = self.id[j].q.val();
                self.park_peer.next = self.peer[j].q.val();
                self.park_length.next = self.length[j].q.val();
                self.park_iova.next = self.iova[j].q.val();
                self.park_cookie.next = self.cookie[j].q.val();
                self.park_index.next = self.index[j].q.val();
                self.park_sent.next = self.sent[j].q.val();
                self.park_left.next = self.left[j].q.val();
                self.park_granted.next = self.granted[j].q.val();
                self.park_sprio.next = self.sprio[j].q.val();
            }
        }
        if self.s_grant_valid.val() | self.cancel_fire.val() | self.pk_valid.q.val() {
            self.park_ok.next = false;
        }
        self.park_fire.next = self.park_valid.val() & self.park_ok.val();
        // Stage 1: the SRPT pick over this cycle's state, registered. A pick taken at this
        // edge moves its slot's key, so the registered pick would be stale: none follows; nor
        // after a park (the pick may be the slot that leaves).
        self.pk_valid.clock.next = self.clock.val();
        self.pk_slot.clock.next = self.clock.val();
        self.pk_valid.d.next =
            self.srpt.m_pick_valid.val() & !self.fire.val() & !self.park_fire.val();
        self.pk_slot.d.next = self.srpt.m_pick_slot.val();
        if self.reset.val() {
            self.pk_valid.d.next = false;
        }
        // The SEND_MESSAGE with the most bytes left, for the park to weigh against a shorter
        // message that waits for a slot: a tree of compares over the slots, registered.
        for j in 0..N {
            self.tv[j].next = self.pkb[j].val();
            self.ts[j].next = self.c_slot4[j].val();
            self.tl[j].next = self.left[j].q.val();
        }
        for n in N..(N + 1) {
            for k in 0..(N - 1) {
                self.tv[n + k].next = self.tv[2 * k].val() | self.tv[2 * k + 1].val();
                self.ts[n + k].next = self.ts[2 * k].val();
                self.tl[n + k].next = self.tl[2 * k].val();
                if self.tv[2 * k + 1].val()
                    & (!self.tv[2 * k].val() | (self.tl[2 * k + 1].val() > self.tl[2 * k].val()))
                {
                    self.ts[n + k].next = self.ts[2 * k + 1].val();
                    self.tl[n + k].next = self.tl[2 * k + 1].val();
                }
            }
        }
        for r in (NODES - 1)..NODES {
            self.mo_v.d.next = self.tv[r].val();
            self.mo_s.d.next = self.ts[r].val();
            self.mo_l.d.next = self.tl[r].val();
        }
        if self.reset.val() {
            self.mo_v.d.next = false;
        }
        self.most_valid.next = self.mo_v.q.val();
        self.most_slot.next = self.mo_s.q.val();
        self.most_left.next = self.mo_l.q.val();
        self.full.next = !self.srpt.s_ins_ready.val();
        self.srpt.s_upd_valid.next = self.fire.val() | self.park_fire.val();
        self.srpt.s_upd_slot.next = self.pk_slot.q.val();
        self.park_s.next = self.c_zero_s.val();
        for j in 0..N {
            if self.park_slot.val() == self.c_slot4[j].val() {
                self.park_s.next = self.c_slot[j].val();
            }
        }
        if self.park_fire.val() {
            self.srpt.s_upd_slot.next = self.park_s.val();
        }
        self.srpt.s_upd_remaining.next = self.p_rem.val();
        self.srpt.s_upd_free.next = self.p_last.val() | self.park_fire.val();
        // CANCELs: matched against every live slot by (peer, local id).
        for j in 0..N {
            self.cmatch[j].next = self.live[j].q.val()
                & (self.peer[j].q.val() == self.s_desc_peer.val())
                & (self.id[j].q.val() == self.s_desc_id.val());
            self.c_base[j].next = self.sent[j].q.val() + self.c_one32.val();
        }
        // Inserts: the lowest free slot, with its unscheduled share and priority.
        self.s_desc_ready.next = self.srpt.s_ins_ready.val() | self.s_desc_cancel.val();
        self.ins_fire.next =
            self.s_desc_valid.val() & !self.s_desc_cancel.val() & self.srpt.s_ins_ready.val();
        self.srpt.s_ins_valid.next = self.s_desc_valid.val() & !self.s_desc_cancel.val();
        self.srpt.s_ins_id.next = self
            .s_desc_index
            .val()
            .get_bits::<16>(self.c_lo.val().index());
        self.srpt.s_ins_remaining.next = self.s_desc_bytes.val();
        self.ins_end.next = self.s_desc_offset.val() + self.s_desc_bytes.val();
        self.ins_unsch.next = self.s_desc_length.val();
        if self.cfg_unsched_bytes.val() < self.s_desc_length.val() {
            self.ins_unsch.next = self.cfg_unsched_bytes.val();
        }
        // A message's bytes below its unscheduled limit (none for a retransmission).
        self.ins_uleft.next = self.c_zero32.val();
        if !self.s_desc_retransmit.val() & (self.ins_unsch.val() > self.s_desc_offset.val()) {
            self.ins_uleft.next = self.ins_unsch.val() - self.s_desc_offset.val();
        }
        // `proto::policy::unsched_priority`: the largest level whose cutoff covers the length;
        // level 0 when none does, so level 0's own cutoff is never needed.
        self.ins_uprio.next = self.c_prio[0].val();
        if self.cfg_cutoff1.val() >= self.s_desc_length.val() {
            self.ins_uprio.next = self.c_prio[1].val();
        }
        if self.cfg_cutoff2.val() >= self.s_desc_length.val() {
            self.ins_uprio.next = self.c_prio[2].val();
        }
        if self.cfg_cutoff3.val() >= self.s_desc_length.val() {
            self.ins_uprio.next = self.c_prio[3].val();
        }
        if self.cfg_cutoff4.val() >= self.s_desc_length.val() {
            self.ins_uprio.next = self.c_prio[4].val();
        }
        if self.cfg_cutoff5.val() >= self.s_desc_length.val() {
            self.ins_uprio.next = self.c_prio[5].val();
        }
        if self.cfg_cutoff6.val() >= self.s_desc_length.val() {
            self.ins_uprio.next = self.c_prio[6].val();
        }
        if self.cfg_cutoff7.val() >= self.s_desc_length.val() {
            self.ins_uprio.next = self.c_prio[7].val();
        }
        // The slots.
        for j in 0..N {
            self.live[j].clock.next = self.clock.val();
            self.rtx[j].clock.next = self.clock.val();
            self.nocpl[j].clock.next = self.clock.val();
            self.sport[j].clock.next = self.clock.val();
            self.dport[j].clock.next = self.clock.val();
            self.id[j].clock.next = self.clock.val();
            self.iova[j].clock.next = self.clock.val();
            self.cookie[j].clock.next = self.clock.val();
            self.peer[j].clock.next = self.clock.val();
            self.length[j].clock.next = self.clock.val();
            self.end[j].clock.next = self.clock.val();
            self.sent[j].clock.next = self.clock.val();
            self.granted[j].clock.next = self.clock.val();
            self.unsch[j].clock.next = self.clock.val();
            self.left[j].clock.next = self.clock.val();
            self.uleft[j].clock.next = self.clock.val();
            self.uend[j].clock.next = self.clock.val();
            self.cut[j].clock.next = self.clock.val();
            self.index[j].clock.next = self.clock.val();
            self.uprio[j].clock.next = self.clock.val();
            self.sprio[j].clock.next = self.clock.val();
            self.live[j].d.next = self.live[j].q.val();
            self.rtx[j].d.next = self.rtx[j].q.val();
            self.nocpl[j].d.next = self.nocpl[j].q.val();
            self.sport[j].d.next = self.sport[j].q.val();
            self.dport[j].d.next = self.dport[j].q.val();
            self.id[j].d.next = self.id[j].q.val();
            self.iova[j].d.next = self.iova[j].q.val();
            self.cookie[j].d.next = self.cookie[j].q.val();
            self.peer[j].d.next = self.peer[j].q.val();
            self.length[j].d.next = self.length[j].q.val();
            self.end[j].d.next = self.end[j].q.val();
            self.sent[j].d.next = self.sent[j].q.val();
            self.granted[j].d.next = self.granted[j].q.val();
            self.unsch[j].d.next = self.unsch[j].q.val();
            self.left[j].d.next = self.left[j].q.val();
            self.uleft[j].d.next = self.uleft[j].q.val();
            self.uend[j].d.next = self.uend[j].q.val();
            self.cut[j].d.next = self.cut[j].q.val();
            self.index[j].d.next = self.index[j].q.val();
            self.uprio[j].d.next = self.uprio[j].q.val();
            self.sprio[j].d.next = self.sprio[j].q.val();
            if self.fire.val() & (self.pk_slot.q.val() == self.c_slot[j].val()) {
                self.sent[j].d.next = self.p_new_sent.val();
                self.left[j].d.next = self.p_rem.val();
                if self.p_in_unsched.val() {
                    self.uleft[j].d.next = self.p_uleft.val() - self.p_len.val();
                }
                if self.p_last.val() {
                    self.live[j].d.next = false;
                }
            }
            if self.park_fire.val() & (self.park_slot.val() == self.c_slot4[j].val()) {
                self.live[j].d.next = false;
            }
            if self.s_grant_valid.val() & self.gmatch[j].val() {
                if self.s_grant_offset.val() > self.granted[j].q.val() {
                    self.granted[j].d.next = self.length[j].q.val();
                    if self.s_grant_offset.val() < self.length[j].q.val() {
                        self.granted[j].d.next = self.s_grant_offset.val();
                    }
                }
                self.sprio[j].d.next = self.s_grant_priority.val();
            }
            if self.cancel_fire.val() & self.cmatch[j].val() {
                self.end[j].d.next = self.c_base[j].val();
                self.granted[j].d.next = self.c_base[j].val();
                if self.unsch[j].q.val() > self.c_base[j].val() {
                    self.unsch[j].d.next = self.c_base[j].val();
                }
                self.left[j].d.next = self.c_one32.val();
                self.cut[j].d.next = true;
                if self.nz_u[j].val() {
                    self.uleft[j].d.next = self.c_one32.val();
                    self.uend[j].d.next = true;
                }
            }
            if self.ins_fire.val() & (self.srpt.m_free_slot.val() == self.c_slot[j].val()) {
                self.live[j].d.next = true;
                self.rtx[j].d.next = self.s_desc_retransmit.val();
                self.nocpl[j].d.next = self.s_desc_no_completion.val();
                self.sport[j].d.next = self.s_desc_sport.val();
                self.dport[j].d.next = self.s_desc_dport.val();
                self.id[j].d.next = self.s_desc_id.val();
                self.iova[j].d.next = self.s_desc_iova.val();
                self.cookie[j].d.next = self.s_desc_cookie.val();
                self.peer[j].d.next = self.s_desc_peer.val();
                self.length[j].d.next = self.s_desc_length.val();
                self.end[j].d.next = self.ins_end.val();
                self.sent[j].d.next = self.s_desc_offset.val();
                self.granted[j].d.next = self.ins_unsch.val();
                if self.s_desc_retransmit.val() {
                    self.granted[j].d.next = self.ins_end.val();
                }
                if self.s_desc_resume.val() {
                    self.granted[j].d.next = self.s_desc_granted.val();
                }
                self.unsch[j].d.next = self.ins_unsch.val();
                self.left[j].d.next = self.s_desc_bytes.val();
                self.uleft[j].d.next = self.ins_uleft.val();
                self.uend[j].d.next = self.ins_unsch.val() == self.ins_end.val();
                self.cut[j].d.next = false;
                self.index[j].d.next = self.s_desc_index.val();
                self.uprio[j].d.next = self.ins_uprio.val();
                self.sprio[j].d.next = self.c_prio[0].val();
                if self.s_desc_resume.val() {
                    self.sprio[j].d.next = self.s_desc_sprio.val();
                }
            }
            if self.reset.val() {
                self.live[j].d.next = false;
            }
        }
        // Counters.
        if self.fire.val() {
            self.n_pkts.d.next = self.n_pkts.q.val() + self.c_one32.val();
        }
        if self.s_grant_valid.val() & !self.any_match.val() {
            self.n_unmatched.d.next = self.n_unmatched.q.val() + self.c_one32.val();
        }
        if self.reset.val() {
            self.n_pkts.d.next = self.c_zero32.val();
            self.n_unmatched.d.next = self.c_zero32.val();
        }
        self.packets.next = self.n_pkts.q.val();
        self.grants_unmatched.next = self.n_unmatched.q.val();
        self.occupancy.next = self.srpt.occupancy.val();
    }
}
