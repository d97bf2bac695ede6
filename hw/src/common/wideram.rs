//! `WideRam`: block RAM of 512-bit words with a byte-enabled write port and a registered
//! read port, the shape of an FPGA's byte-write block RAM (Xilinx `RAMB36` with `WEA` per
//! byte; Yosys infers it from the loop below). rust-hdl's `RAM` writes whole words only;
//! the host's pushes into on-chip memory write part of one.
//!
//! The read is registered: `read_data` after an edge holds the word at the `read_address`
//! seen at that edge, as it was before the edge's write (read-first). Words never written
//! read as zero in rust-hdl's simulation and in Verilator; on an FPGA, as the memory
//! powers up (zero on Xilinx and ECP5 parts).

use crate::hdl::*;
use std::collections::BTreeMap;

/// `2^N` words of 512 bits: a byte-enabled write at the edge, a read registered at the edge.
#[derive(LogicBlock, Default)]
pub struct WideRam<const N: usize> {
    /// Clock of both ports.
    pub clock: Signal<In, Clock>,
    /// Word read at the next edge.
    pub read_address: Signal<In, Bits<N>>,
    /// The word read at the last edge.
    pub read_data: Signal<Out, Bits<512>>,
    /// Word written at the next edge.
    pub write_address: Signal<In, Bits<N>>,
    /// Bytes written: lane `i` (bits `8i+7..8i`) where `write_keep[i]`.
    pub write_data: Signal<In, Bits<512>>,
    /// Byte enables.
    pub write_keep: Signal<In, Bits<64>>,
    /// Write at the next edge.
    pub write_enable: Signal<In, Bit>,
    /// The contents, for rust-hdl's simulation (the derive skips `_` fields).
    _sim: BTreeMap<Bits<N>, Bits<512>>,
}

impl<const N: usize> core::fmt::Debug for WideRam<N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("WideRam")
            .field("words", &(1usize << N))
            .finish_non_exhaustive()
    }
}

/// The 512-bit mask of the byte lanes `keep` enables.
fn lane_mask(keep: Bits<64>) -> Bits<512> {
    let byte: Bits<512> = 0xffu64.into();
    (0..64)
        .filter(|&i| keep.get_bit(i))
        .fold(Bits::default(), |m, i| m | (byte << (i * 8) as LiteralType))
}

impl<const N: usize> Logic for WideRam<N> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            self.read_data.next = self
                ._sim
                .get(&self.read_address.val())
                .copied()
                .unwrap_or_default();
            if self.write_enable.val() {
                let mask = lane_mask(self.write_keep.val());
                let old = self
                    ._sim
                    .get(&self.write_address.val())
                    .copied()
                    .unwrap_or_default();
                let new = (old & !mask) | (self.write_data.val() & mask);
                self._sim.insert(self.write_address.val(), new);
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "reg [511:0] mem [0:{last}];\n\
             integer i;\n\n\
             initial begin\n    \
                 for (i = 0; i <= {last}; i = i + 1) begin\n        \
                     mem[i] = 512'd0;\n    \
                 end\n\
             end\n\n\
             always @(posedge clock) begin\n    \
                 read_data <= mem[read_address];\n    \
                 for (i = 0; i < 64; i = i + 1) begin\n        \
                     if (write_enable && write_keep[i]) begin\n            \
                         mem[write_address][i * 8 +: 8] <= write_data[i * 8 +: 8];\n        \
                     end\n    \
                 end\n\
             end\n",
            last = (1usize << N) - 1,
        ))
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    type Ram = WideRam<3>;

    fn half(ram: &mut Ram, high: bool) {
        clock_half(ram, |r| &mut r.clock, high);
    }

    fn edge(ram: &mut Ram) {
        half(ram, false);
        half(ram, true);
    }

    #[test]
    fn wideram__writes_only_the_kept_bytes_and_reads_first() {
        let mut ram = Ram::default();
        ram.clock.connect();
        ram.read_address.connect();
        ram.write_address.connect();
        ram.write_data.connect();
        ram.write_keep.connect();
        ram.write_enable.connect();
        ram.connect_all();
        let ones = bits_from_le_bytes::<512>(&[0x11; 64]);
        let twos = bits_from_le_bytes::<512>(&[0x22; 64]);
        ram.write_address.next = 5.into();
        ram.write_data.next = ones;
        ram.write_keep.next = u64::MAX.into();
        ram.write_enable.next = true;
        ram.read_address.next = 5.into();
        edge(&mut ram);
        assert_eq!(ram.read_data.val(), Bits::<512>::default(), "read first");
        ram.write_data.next = twos;
        ram.write_keep.next = 0xf0.into();
        edge(&mut ram);
        assert_eq!(ram.read_data.val(), ones);
        ram.write_enable.next = false;
        edge(&mut ram);
        let mut want = [0x11u8; 64];
        want[4..8].fill(0x22);
        assert_eq!(le_bytes_of(ram.read_data.val()), want.to_vec());
        ram.read_address.next = 4.into();
        edge(&mut ram);
        assert_eq!(ram.read_data.val(), Bits::<512>::default(), "never written");
    }
}
