//! [`SimDevice`]: the driver's [`Device`] over a Verilated core, so that the driver's own
//! probe (ID block, block chain, versions) and configuration run against the RTL register
//! file, as they would against BAR0 of the FPGA.

use crate::rtl::models::HomaNicCoreW512;
use homa_driver::{Device, DmaRegion, DriverError, MemDevice};
use homa_proto::regs::map_len;
use std::cell::RefCell;

/// A Verilated NIC core seen through the driver's [`Device`] trait: every register access is
/// a transaction on the core's register bus (one clock cycle); DMA memory comes from a
/// host-memory model ([`MemDevice`]'s). Register access only: this device does not serve
/// the core's DMA ports (the cluster's `RtlNic` does, from the driver's host memory).
pub struct SimDevice {
    core: RefCell<HomaNicCoreW512>,
    memory: MemDevice,
}

impl std::fmt::Debug for SimDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimDevice").finish_non_exhaustive()
    }
}

impl SimDevice {
    /// A core just out of reset.
    pub fn new() -> Self {
        let mut core = HomaNicCoreW512::new();
        core.reset(2);
        SimDevice {
            core: RefCell::new(core),
            memory: MemDevice::new(),
        }
    }

    /// The core, to drive its streams.
    pub fn into_core(self) -> HomaNicCoreW512 {
        self.core.into_inner()
    }

    fn check(&self, offset: u32) -> Result<u64, DriverError> {
        if !offset.is_multiple_of(4) || offset >= self.bar_len() {
            return Err(DriverError::RegisterAccess {
                device: self.name().to_string(),
                offset,
                bar_len: self.bar_len(),
            });
        }
        Ok(u64::from(offset))
    }
}

impl Default for SimDevice {
    fn default() -> Self {
        SimDevice::new()
    }
}

impl Device for SimDevice {
    fn name(&self) -> &str {
        "simulated homa-nic (Verilated homa_nic_core_w512)"
    }

    fn bar_len(&self) -> u32 {
        map_len()
    }

    fn read32(&self, offset: u32) -> Result<u32, DriverError> {
        let address = self.check(offset)?;
        let mut c = self.core.borrow_mut();
        c.set_s_reg_addr(address);
        c.set_s_reg_re(1);
        c.tick();
        c.set_s_reg_re(0);
        Ok(c.get_m_reg_rdata() as u32)
    }

    fn write32(&self, offset: u32, value: u32) -> Result<(), DriverError> {
        let address = self.check(offset)?;
        let mut c = self.core.borrow_mut();
        c.set_s_reg_addr(address);
        c.set_s_reg_wdata(u64::from(value));
        c.set_s_reg_we(1);
        c.tick();
        c.set_s_reg_we(0);
        Ok(())
    }

    fn alloc_dma(&self, len: usize) -> Result<DmaRegion, DriverError> {
        self.memory.alloc_dma(len)
    }
}
