//! `LutRam`: a small memory with one synchronous write port and one combinational read port,
//! the shape of an FPGA's distributed (LUT) RAM. rust-hdl's own `RAM` registers its read,
//! which costs a cycle and a skid stage in front of a FIFO's head; this one reads in the same
//! cycle, so a FIFO built on it shows its head as flops would, in a fraction of the area
//! (Yosys maps it to `RAM32M`/`RAM64M` cells on Xilinx parts).
//!
//! A write takes effect at the rising edge; a read of the address being written shows the
//! old value until that edge. Entries never written read as zero in rust-hdl's simulation
//! (and as whatever the memory powers up with in hardware): a FIFO reads only entries it
//! has written.

use crate::hdl::*;
use std::collections::BTreeMap;

/// `2^N` entries of `D`, write at the clock edge, read at once.
#[derive(LogicBlock, Default)]
pub struct LutRam<D: Synth, const N: usize> {
    /// Write clock.
    pub clock: Signal<In, Clock>,
    /// Entry read.
    pub read_address: Signal<In, Bits<N>>,
    /// Its value, now.
    pub read_data: Signal<Out, D>,
    /// Entry written at the next edge.
    pub write_address: Signal<In, Bits<N>>,
    /// The value written.
    pub write_data: Signal<In, D>,
    /// Write at the next edge.
    pub write_enable: Signal<In, Bit>,
    /// The contents, for rust-hdl's simulation (the derive skips `_` fields).
    _sim: BTreeMap<Bits<N>, D>,
}

impl<D: Synth, const N: usize> core::fmt::Debug for LutRam<D, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LutRam")
            .field("entries", &(1usize << N))
            .field("bits", &D::BITS)
            .finish_non_exhaustive()
    }
}

impl<D: Synth, const N: usize> Logic for LutRam<D, N> {
    fn update(&mut self) {
        if self.clock.pos_edge() && self.write_enable.val() {
            self._sim
                .insert(self.write_address.val(), self.write_data.val());
        }
        self.read_data.next = self
            ._sim
            .get(&self.read_address.val())
            .copied()
            .unwrap_or_default();
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "reg [{msb}:0] mem [0:{last}];\n\n\
             always @(posedge clock) begin\n    \
                 if (write_enable) begin\n        \
                     mem[write_address] <= write_data;\n    \
                 end\n\
             end\n\n\
             always @(*) begin\n    \
                 read_data = mem[read_address];\n\
             end\n",
            msb = D::BITS - 1,
            last = (1usize << N) - 1,
        ))
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    type Ram = LutRam<Bits<12>, 3>;

    fn half(ram: &mut Ram, high: bool) {
        clock_half(ram, |r| &mut r.clock, high);
    }

    #[test]
    fn lutram__reads_at_once_and_writes_at_the_edge() {
        let mut ram = Ram::default();
        ram.clock.connect();
        ram.read_address.connect();
        ram.write_address.connect();
        ram.write_data.connect();
        ram.write_enable.connect();
        ram.connect_all();
        for a in 0..8u64 {
            ram.write_address.next = a.into();
            ram.write_data.next = (0x100 + a).into();
            ram.write_enable.next = true;
            ram.read_address.next = a.into();
            half(&mut ram, false);
            assert_eq!(ram.read_data.val(), Bits::<12>::from(0), "before the edge");
            half(&mut ram, true);
            assert_eq!(ram.read_data.val(), Bits::<12>::from(0x100 + a), "after it");
        }
        ram.write_enable.next = false;
        ram.write_data.next = 0xfff.into();
        half(&mut ram, false);
        half(&mut ram, true);
        for a in 0..8u64 {
            ram.read_address.next = a.into();
            half(&mut ram, false);
            assert_eq!(ram.read_data.val(), Bits::<12>::from(0x100 + a));
        }
    }
}
