//! Beats of a frame at any width from its bytes: what the GRANT and DATA framers share.
//!
//! rust-hdl has no concatenation, and a struct field cannot be assigned inside an HDL loop,
//! so a frame's bytes become beats in two steps that each loop can express:
//!
//! ```text
//!  128 bytes ─► PackWord × 16 (8 bytes → one 64-bit word, little-endian lanes)
//!            ─► FrameBeats<W, B>: the W/8 words of the beat the counter is at, each
//!               zero-extended (Widen) and shifted to its place ─► B bits
//! ```
//!
//! At 64 bits a beat is one word (a 16:1 mux); at 512 it is eight (a 2:1 mux per word). The
//! selection compares the beat counter with constants, so synthesis keeps only the muxes.

use crate::hdl::*;

/// Bytes of the largest frame head the framers build (two 512-bit beats).
pub const FRAME_BYTES: usize = 128;

/// 64-bit words of [`FRAME_BYTES`].
pub const FRAME_WORDS: usize = FRAME_BYTES / 8;

/// Words of the widest beat (512 bits).
const MAX_BEAT_WORDS: usize = 8;
const _: () = assert!(
    MAX_BEAT_WORDS == 8,
    "update() names the last accumulator acc[8]"
);

// The `LogicStruct` derive adds public `get_my_width_*` / `get_my_offset_*` accessors (used
// by the `hdl_gen` translation) that it does not document.
#[allow(missing_docs)]
mod word {
    use crate::hdl::*;

    /// A 64-bit word as eight byte lanes, `b0` in bits 7..0 (the first on the wire).
    #[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
    pub struct Word64 {
        /// Lane 0.
        pub b0: Bits<8>,
        /// Lane 1.
        pub b1: Bits<8>,
        /// Lane 2.
        pub b2: Bits<8>,
        /// Lane 3.
        pub b3: Bits<8>,
        /// Lane 4.
        pub b4: Bits<8>,
        /// Lane 5.
        pub b5: Bits<8>,
        /// Lane 6.
        pub b6: Bits<8>,
        /// Lane 7.
        pub b7: Bits<8>,
    }
}

use word::Word64;

/// Eight bytes into a 64-bit word, byte `bi` in lane `i`.
#[derive(LogicBlock, Default)]
pub struct PackWord {
    /// Lane 0.
    pub b0: Signal<In, Bits<8>>,
    /// Lane 1.
    pub b1: Signal<In, Bits<8>>,
    /// Lane 2.
    pub b2: Signal<In, Bits<8>>,
    /// Lane 3.
    pub b3: Signal<In, Bits<8>>,
    /// Lane 4.
    pub b4: Signal<In, Bits<8>>,
    /// Lane 5.
    pub b5: Signal<In, Bits<8>>,
    /// Lane 6.
    pub b6: Signal<In, Bits<8>>,
    /// Lane 7.
    pub b7: Signal<In, Bits<8>>,
    /// The word.
    pub o: Signal<Out, Bits<64>>,
    w: Signal<Local, Word64>,
}

impl Logic for PackWord {
    #[hdl_gen]
    fn update(&mut self) {
        self.w.next.b0 = self.b0.val();
        self.w.next.b1 = self.b1.val();
        self.w.next.b2 = self.b2.val();
        self.w.next.b3 = self.b3.val();
        self.w.next.b4 = self.b4.val();
        self.w.next.b5 = self.b5.val();
        self.w.next.b6 = self.b6.val();
        self.w.next.b7 = self.b7.val();
        self.o.next = self.w.val().into();
    }
}

impl core::fmt::Debug for PackWord {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PackWord").finish_non_exhaustive()
    }
}

/// Zero-extends `N` bits to `M` (a cast outside any loop, where the HDL translation needs
/// the widths).
#[derive(LogicBlock, Default)]
pub struct Widen<const N: usize, const M: usize> {
    /// The value.
    pub i: Signal<In, Bits<N>>,
    /// The value in the low `N` bits, zero above.
    pub o: Signal<Out, Bits<M>>,
}

impl<const N: usize, const M: usize> Logic for Widen<N, M> {
    #[hdl_gen]
    fn update(&mut self) {
        self.o.next = bit_cast::<M, N>(self.i.val());
    }
}

impl<const N: usize, const M: usize> core::fmt::Debug for Widen<N, M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Widen").finish_non_exhaustive()
    }
}

/// The beat of `W` bytes (`B` = 8 `W` bits) that `beat` points at, from the frame's 16 words:
/// lanes `8 j..8 j + 7` of beat `b` are word `b W / 8 + j`. Words are inputs `w0`-`w15` (a
/// block's ports are single signals).
#[derive(LogicBlock)]
pub struct FrameBeats<const W: usize, const B: usize> {
    /// The beat's number.
    pub beat: Signal<In, Bits<16>>,
    /// Word 0 (frame bytes 0-7).
    pub w0: Signal<In, Bits<64>>,
    /// Word 1.
    pub w1: Signal<In, Bits<64>>,
    /// Word 2.
    pub w2: Signal<In, Bits<64>>,
    /// Word 3.
    pub w3: Signal<In, Bits<64>>,
    /// Word 4.
    pub w4: Signal<In, Bits<64>>,
    /// Word 5.
    pub w5: Signal<In, Bits<64>>,
    /// Word 6.
    pub w6: Signal<In, Bits<64>>,
    /// Word 7.
    pub w7: Signal<In, Bits<64>>,
    /// Word 8.
    pub w8: Signal<In, Bits<64>>,
    /// Word 9.
    pub w9: Signal<In, Bits<64>>,
    /// Word 10.
    pub w10: Signal<In, Bits<64>>,
    /// Word 11.
    pub w11: Signal<In, Bits<64>>,
    /// Word 12.
    pub w12: Signal<In, Bits<64>>,
    /// Word 13.
    pub w13: Signal<In, Bits<64>>,
    /// Word 14.
    pub w14: Signal<In, Bits<64>>,
    /// Word 15 (frame bytes 120-127).
    pub w15: Signal<In, Bits<64>>,
    /// The beat.
    pub o: Signal<Out, Bits<B>>,
    wa: [Signal<Local, Bits<64>>; FRAME_WORDS],
    sel: [Signal<Local, Bits<64>>; MAX_BEAT_WORDS],
    ext: [Widen<64, B>; MAX_BEAT_WORDS],
    acc: [Signal<Local, Bits<B>>; MAX_BEAT_WORDS + 1],
    c_wbeat: [Constant<Bits<16>>; FRAME_WORDS],
    c_wlane: [Constant<Bits<8>>; FRAME_WORDS],
    c_j: [Constant<Bits<8>>; MAX_BEAT_WORDS],
    c_used: [Constant<Bit>; MAX_BEAT_WORDS],
    c_sh: [Constant<Bits<16>>; MAX_BEAT_WORDS],
    c_zero: Constant<Bits<B>>,
}

impl<const W: usize, const B: usize> FrameBeats<W, B> {
    /// A selector of `W`-byte beats (`W` 8 or 64; `B` = 8 `W`).
    pub fn new() -> Self {
        assert!(
            B == 8 * W && (W == 8 || W == 64),
            "beats is 8 or 64 bytes wide (the widths generated and tested), with B = 8 W bits"
        );
        let per = W / 8;
        let k16 = |v: usize| Constant::new((v as u64).into());
        let k8 = |v: usize| Constant::new((v as u64).into());
        Self {
            beat: Signal::default(),
            w0: Signal::default(),
            w1: Signal::default(),
            w2: Signal::default(),
            w3: Signal::default(),
            w4: Signal::default(),
            w5: Signal::default(),
            w6: Signal::default(),
            w7: Signal::default(),
            w8: Signal::default(),
            w9: Signal::default(),
            w10: Signal::default(),
            w11: Signal::default(),
            w12: Signal::default(),
            w13: Signal::default(),
            w14: Signal::default(),
            w15: Signal::default(),
            o: Signal::default(),
            wa: std::array::from_fn(|_| Signal::default()),
            sel: std::array::from_fn(|_| Signal::default()),
            ext: std::array::from_fn(|_| Widen::default()),
            acc: std::array::from_fn(|_| Signal::default()),
            c_wbeat: std::array::from_fn(|m| k16(m / per)),
            c_wlane: std::array::from_fn(|m| k8(m % per)),
            c_j: std::array::from_fn(k8),
            c_used: std::array::from_fn(|j| Constant::new(j < per)),
            c_sh: std::array::from_fn(|j| k16(64 * j)),
            c_zero: Constant::new(Bits::default()),
        }
    }
}

impl<const W: usize, const B: usize> Default for FrameBeats<W, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const B: usize> core::fmt::Debug for FrameBeats<W, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FrameBeats")
            .field("bytes_per_beat", &W)
            .finish_non_exhaustive()
    }
}

impl<const W: usize, const B: usize> Logic for FrameBeats<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        self.wa[0].next = self.w0.val();
        self.wa[1].next = self.w1.val();
        self.wa[2].next = self.w2.val();
        self.wa[3].next = self.w3.val();
        self.wa[4].next = self.w4.val();
        self.wa[5].next = self.w5.val();
        self.wa[6].next = self.w6.val();
        self.wa[7].next = self.w7.val();
        self.wa[8].next = self.w8.val();
        self.wa[9].next = self.w9.val();
        self.wa[10].next = self.w10.val();
        self.wa[11].next = self.w11.val();
        self.wa[12].next = self.w12.val();
        self.wa[13].next = self.w13.val();
        self.wa[14].next = self.w14.val();
        self.wa[15].next = self.w15.val();
        // Lane group j of the beat: the word whose beat and group are the counter's and j,
        // beat 0's by default (not zero: a frame bit equal in every beat then stays a
        // constant).
        for j in 0..MAX_BEAT_WORDS {
            self.sel[j].next = self.wa[j].val();
            for m in 0..FRAME_WORDS {
                if (self.beat.val() == self.c_wbeat[m].val())
                    & (self.c_wlane[m].val() == self.c_j[j].val())
                {
                    self.sel[j].next = self.wa[m].val();
                }
            }
        }
        // Each group zero-extended and shifted to its lanes.
        self.acc[0].next = self.c_zero.val();
        for j in 0..MAX_BEAT_WORDS {
            self.ext[j].i.next = self.sel[j].val();
            self.acc[j + 1].next = self.acc[j].val();
            if self.c_used[j].val() {
                self.acc[j + 1].next =
                    self.acc[j].val() | (self.ext[j].o.val() << self.c_sh[j].val());
            }
        }
        // The index is a literal: the HDL translation evaluates it without Rust's constants.
        self.o.next = self.acc[8].val();
    }
}
