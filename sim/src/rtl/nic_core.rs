//! [`NicCore`]: the Verilated NIC core at either width behind one interface, so that a bench
//! or a simulated host drives `homa_nic_core_w512` (the Alveo configuration) and
//! `homa_nic_core_w64` (the small one) with the same code.
//!
//! The two models have the same ports but for the width of the MAC and DMA data: the 512-bit
//! core's are `[u32; 16]`, the 64-bit core's `u64`. Here every data port is bytes, lane 0
//! first, [`NicCore::beat_bytes`] a beat (fewer bytes are zero-extended; the push port is 64
//! bytes at both widths); every other port is the model's own.

use super::models::{HomaNicCoreW64, HomaNicCoreW512};
use super::{u64_from_le_bytes as narrow, words_from_le_bytes, words_to_le_bytes};

/// A Verilated NIC core, whatever its width.
pub trait NicCore {
    /// Bytes per beat on the MAC ports, the DMA write port and the DMA read channels.
    fn beat_bytes(&self) -> usize;
    /// The generated module's name (`homa_nic_core_w512`).
    fn module(&self) -> &'static str;
    /// One clock cycle.
    fn tick(&mut self);
    /// `n` clock cycles with the inputs unchanged.
    fn ticks(&mut self, n: u64);
    /// Clock cycles since the model was built.
    fn cycles(&self) -> u64;
    /// Reset held for `cycles` cycles.
    fn reset(&mut self, cycles: u64);

    /// An inbound frame's beat (at most [`beat_bytes`](Self::beat_bytes) bytes).
    fn set_s_axis_data(&mut self, bytes: &[u8]);
    /// The outbound beat's bytes (all lanes; `m_axis_tkeep` says which count).
    fn m_axis_data(&self) -> Vec<u8>;
    /// A response beat on the RX descriptor read channel.
    fn set_s_dma_rd_data(&mut self, bytes: &[u8]);
    /// A response beat on the TX descriptor read channel.
    fn set_s_dma_txrd_data(&mut self, bytes: &[u8]);
    /// A response beat on the payload read channel.
    fn set_s_dma_payrd_data(&mut self, bytes: &[u8]);
    /// The DMA write beat's bytes (all lanes; `m_dma_wr_keep` says which are written).
    fn m_dma_wr_data(&self) -> Vec<u8>;
    /// A push's 64 bytes, as 16 words (word 0 holds bytes 0-3).
    fn set_s_push_data(&mut self, words: &[u32; 16]);

    // Every other port, as the models have them.
    /// Input `s_axis_tkeep`.
    fn set_s_axis_tkeep(&mut self, v: u64);
    /// Input `s_axis_tvalid`.
    fn set_s_axis_tvalid(&mut self, v: u64);
    /// Input `s_axis_tlast`.
    fn set_s_axis_tlast(&mut self, v: u64);
    /// Output `s_axis_tready`.
    fn get_s_axis_tready(&self) -> u64;
    /// Input `m_axis_tready`.
    fn set_m_axis_tready(&mut self, v: u64);
    /// Output `m_axis_tvalid`.
    fn get_m_axis_tvalid(&self) -> u64;
    /// Output `m_axis_tkeep`.
    fn get_m_axis_tkeep(&self) -> u64;
    /// Output `m_axis_tlast`.
    fn get_m_axis_tlast(&self) -> u64;
    /// Input `m_dma_rd_ready`.
    fn set_m_dma_rd_ready(&mut self, v: u64);
    /// Output `m_dma_rd_valid`.
    fn get_m_dma_rd_valid(&self) -> u64;
    /// Output `m_dma_rd_addr`.
    fn get_m_dma_rd_addr(&self) -> u64;
    /// Output `m_dma_rd_len`.
    fn get_m_dma_rd_len(&self) -> u64;
    /// Input `s_dma_rd_valid`.
    fn set_s_dma_rd_valid(&mut self, v: u64);
    /// Input `m_dma_wr_ready`.
    fn set_m_dma_wr_ready(&mut self, v: u64);
    /// Output `m_dma_wr_valid`.
    fn get_m_dma_wr_valid(&self) -> u64;
    /// Output `m_dma_wr_addr`.
    fn get_m_dma_wr_addr(&self) -> u64;
    /// Output `m_dma_wr_keep`.
    fn get_m_dma_wr_keep(&self) -> u64;
    /// Output `m_dma_wr_last`.
    fn get_m_dma_wr_last(&self) -> u64;
    /// Input `m_dma_txrd_ready`.
    fn set_m_dma_txrd_ready(&mut self, v: u64);
    /// Output `m_dma_txrd_valid`.
    fn get_m_dma_txrd_valid(&self) -> u64;
    /// Output `m_dma_txrd_addr`.
    fn get_m_dma_txrd_addr(&self) -> u64;
    /// Output `m_dma_txrd_len`.
    fn get_m_dma_txrd_len(&self) -> u64;
    /// Input `s_dma_txrd_valid`.
    fn set_s_dma_txrd_valid(&mut self, v: u64);
    /// Input `m_dma_payrd_ready`.
    fn set_m_dma_payrd_ready(&mut self, v: u64);
    /// Output `m_dma_payrd_valid`.
    fn get_m_dma_payrd_valid(&self) -> u64;
    /// Output `m_dma_payrd_addr`.
    fn get_m_dma_payrd_addr(&self) -> u64;
    /// Output `m_dma_payrd_len`.
    fn get_m_dma_payrd_len(&self) -> u64;
    /// Input `s_dma_payrd_valid`.
    fn set_s_dma_payrd_valid(&mut self, v: u64);
    /// Output `s_dma_payrd_ready`.
    fn get_s_dma_payrd_ready(&self) -> u64;
    /// Input `s_reg_addr`.
    fn set_s_reg_addr(&mut self, v: u64);
    /// Input `s_reg_wdata`.
    fn set_s_reg_wdata(&mut self, v: u64);
    /// Input `s_reg_we`.
    fn set_s_reg_we(&mut self, v: u64);
    /// Input `s_reg_re`.
    fn set_s_reg_re(&mut self, v: u64);
    /// Output `m_reg_rdata`.
    fn get_m_reg_rdata(&self) -> u64;
    /// Output `m_reg_rvalid`.
    fn get_m_reg_rvalid(&self) -> u64;
    /// Input `s_push_valid`.
    fn set_s_push_valid(&mut self, v: u64);
    /// Input `s_push_word`.
    fn set_s_push_word(&mut self, v: u64);
    /// Input `s_push_keep`.
    fn set_s_push_keep(&mut self, v: u64);
    /// Output `m_trace_grant_event`.
    fn get_m_trace_grant_event(&self) -> u64;
    /// Output `m_trace_grant_decision`.
    fn get_m_trace_grant_decision(&self) -> u64;
    /// Output `m_trace_grant_fifo`.
    fn get_m_trace_grant_fifo(&self) -> u64;
    /// Output `m_trace_grant_busy`.
    fn get_m_trace_grant_busy(&self) -> u64;
}

/// The ports both models have alike: each trait method calls the model's own.
macro_rules! same_ports {
    ($ty:ty; set: $($s:ident),*; get: $($g:ident),*) => {
        $(fn $s(&mut self, v: u64) { <$ty>::$s(self, v) })*
        $(fn $g(&self) -> u64 { <$ty>::$g(self) })*
    };
}

macro_rules! common {
    ($ty:ty) => {
        fn tick(&mut self) {
            <$ty>::tick(self)
        }
        fn ticks(&mut self, n: u64) {
            <$ty>::ticks(self, n)
        }
        fn cycles(&self) -> u64 {
            <$ty>::cycles(self)
        }
        fn reset(&mut self, cycles: u64) {
            <$ty>::reset(self, cycles)
        }
        fn set_s_push_data(&mut self, words: &[u32; 16]) {
            <$ty>::set_s_push_data(self, words)
        }
        same_ports!($ty;
            set: set_s_axis_tkeep, set_s_axis_tvalid, set_s_axis_tlast, set_m_axis_tready,
                set_m_dma_rd_ready, set_s_dma_rd_valid, set_m_dma_wr_ready, set_m_dma_txrd_ready,
                set_s_dma_txrd_valid, set_m_dma_payrd_ready, set_s_dma_payrd_valid,
                set_s_reg_addr, set_s_reg_wdata, set_s_reg_we, set_s_reg_re, set_s_push_valid,
                set_s_push_word, set_s_push_keep;
            get: get_s_axis_tready, get_m_axis_tvalid, get_m_axis_tkeep, get_m_axis_tlast,
                get_m_dma_rd_valid, get_m_dma_rd_addr, get_m_dma_rd_len, get_m_dma_wr_valid,
                get_m_dma_wr_addr, get_m_dma_wr_keep, get_m_dma_wr_last, get_m_dma_txrd_valid,
                get_m_dma_txrd_addr, get_m_dma_txrd_len, get_m_dma_payrd_valid,
                get_m_dma_payrd_addr, get_m_dma_payrd_len, get_s_dma_payrd_ready,
                get_m_reg_rdata, get_m_reg_rvalid, get_m_trace_grant_event,
                get_m_trace_grant_decision, get_m_trace_grant_fifo, get_m_trace_grant_busy);
    };
}

/// Bytes as a 512-bit port's words (at most 64 bytes; the rest zero).
fn wide(bytes: &[u8]) -> [u32; 16] {
    words_from_le_bytes(&bytes[..bytes.len().min(64)]).unwrap_or([0; 16])
}

impl NicCore for HomaNicCoreW512 {
    fn beat_bytes(&self) -> usize {
        64
    }
    fn module(&self) -> &'static str {
        "homa_nic_core_w512"
    }
    fn set_s_axis_data(&mut self, bytes: &[u8]) {
        self.set_s_axis_tdata(&wide(bytes));
    }
    fn m_axis_data(&self) -> Vec<u8> {
        words_to_le_bytes(&self.get_m_axis_tdata())
    }
    fn set_s_dma_rd_data(&mut self, bytes: &[u8]) {
        HomaNicCoreW512::set_s_dma_rd_data(self, &wide(bytes));
    }
    fn set_s_dma_txrd_data(&mut self, bytes: &[u8]) {
        HomaNicCoreW512::set_s_dma_txrd_data(self, &wide(bytes));
    }
    fn set_s_dma_payrd_data(&mut self, bytes: &[u8]) {
        HomaNicCoreW512::set_s_dma_payrd_data(self, &wide(bytes));
    }
    fn m_dma_wr_data(&self) -> Vec<u8> {
        words_to_le_bytes(&self.get_m_dma_wr_data())
    }
    common!(HomaNicCoreW512);
}

impl NicCore for HomaNicCoreW64 {
    fn beat_bytes(&self) -> usize {
        8
    }
    fn module(&self) -> &'static str {
        "homa_nic_core_w64"
    }
    fn set_s_axis_data(&mut self, bytes: &[u8]) {
        self.set_s_axis_tdata(narrow(bytes));
    }
    fn m_axis_data(&self) -> Vec<u8> {
        self.get_m_axis_tdata().to_le_bytes().to_vec()
    }
    fn set_s_dma_rd_data(&mut self, bytes: &[u8]) {
        HomaNicCoreW64::set_s_dma_rd_data(self, narrow(bytes));
    }
    fn set_s_dma_txrd_data(&mut self, bytes: &[u8]) {
        HomaNicCoreW64::set_s_dma_txrd_data(self, narrow(bytes));
    }
    fn set_s_dma_payrd_data(&mut self, bytes: &[u8]) {
        HomaNicCoreW64::set_s_dma_payrd_data(self, narrow(bytes));
    }
    fn m_dma_wr_data(&self) -> Vec<u8> {
        self.get_m_dma_wr_data().to_le_bytes().to_vec()
    }
    common!(HomaNicCoreW64);
}

/// A Verilated core of `bytes` bytes a beat (8 or 64), just built (not reset).
pub fn new_core(bytes: usize) -> Option<Box<dyn NicCore>> {
    match bytes {
        64 => Some(Box::new(HomaNicCoreW512::new())),
        8 => Some(Box::new(HomaNicCoreW64::new())),
        _ => None,
    }
}
