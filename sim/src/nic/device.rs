//! The driver's [`Device`] over a Verilated core:
//! - [`NicDevice`]: the NIC of a simulated host, in simulated time. Register writes are
//!   posted PCIe writes that reach the core's bus one PCIe latency later; register reads are
//!   bus reads that take a PCIe round trip; DMA memory is the host memory the core's DMA
//!   reads and writes, where its writes land one PCIe latency after the core makes them.
//!   The driver's `Nic`, and `homa_host::NicTransport` over it, run on it unchanged.
//! - [`SimDevice`]: a core alone, for register access only (the driver's probe, `homa-nic
//!   probe --sim`).

use super::rtl::RtlNic;
use super::{NicError, NicTiming};
use crate::rtl::models::HomaNicCoreW512;
use crate::time::SimClock;
use fragile::Fragile;
use homa_driver::{
    Device, DmaRegion, DriverError, MemDevice, Nic, NicConfig, RingSizes, check_register,
};
use homa_proto::regs::map_len;
use std::cell::{RefCell, RefMut};
use std::rc::Rc;

/// A simulated host's NIC as its driver sees it (see the module notes). Clones are handles
/// to the same NIC.
///
/// The Verilated core is not `Send`; this handle is (the driver's `Nic` and the transports
/// over it must be), and is confined to the thread that made it: the simulator's. Used from
/// another thread, every call fails with [`DriverError::Unusable`] and nothing happens.
#[derive(Clone)]
pub struct NicDevice {
    nic: Fragile<Rc<RefCell<RtlNic>>>,
    memory: std::sync::Arc<MemDevice>,
    clock: SimClock,
}

impl std::fmt::Debug for NicDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NicDevice").finish_non_exhaustive()
    }
}

impl NicDevice {
    /// A NIC out of reset behind the PCIe model of `timing`, on the host's clock `clock`;
    /// the simulator keeps the returned `RtlNic` to clock it and feed it frames.
    pub fn new(
        timing: NicTiming,
        clock: SimClock,
    ) -> Result<(NicDevice, Rc<RefCell<RtlNic>>), NicError> {
        let nic = Rc::new(RefCell::new(RtlNic::new(timing)?));
        let memory = std::sync::Arc::clone(nic.borrow().memory());
        let dev = NicDevice {
            nic: Fragile::new(Rc::clone(&nic)),
            memory,
            clock,
        };
        Ok((dev, nic))
    }

    /// A NIC brought up by the driver's own code through this device (probe, `config`,
    /// rings of `sizes`, RX buffers posted): the driver's `Nic`, and the `RtlNic` for the
    /// simulator. Once the host has set up what else it needs (its TX area, say), call
    /// [`RtlNic::prime`] to let the NIC settle before time 0.
    pub fn init(
        config: &NicConfig,
        sizes: &RingSizes,
        timing: NicTiming,
        clock: SimClock,
    ) -> Result<(Nic<NicDevice>, Rc<RefCell<RtlNic>>), NicError> {
        let (dev, nic) = NicDevice::new(timing, clock)?;
        let driver = Nic::init(dev, config, sizes)?;
        Ok((driver, nic))
    }

    fn nic(&self) -> Result<RefMut<'_, RtlNic>, DriverError> {
        let fail = |what: &str| DriverError::Unusable {
            device: self.name().to_string(),
            reason: what.to_string(),
        };
        let nic = self
            .nic
            .try_get()
            .map_err(|_| fail("used from a thread other than the simulator's"))?;
        nic.try_borrow_mut()
            .map_err(|_| fail("called back while the simulator clocks the NIC"))
    }

    fn check(&self, offset: u32) -> Result<(), DriverError> {
        check_register(self.name(), offset, self.bar_len())
    }
}

impl Device for NicDevice {
    fn name(&self) -> &str {
        "simulated homa-nic (Verilated NIC core, PCIe model)"
    }

    fn bar_len(&self) -> u32 {
        map_len()
    }

    fn read32(&self, offset: u32) -> Result<u32, DriverError> {
        self.check(offset)?;
        let at = self.clock.now_ps();
        Ok(self.nic()?.host_read(at, offset))
    }

    fn write32(&self, offset: u32, value: u32) -> Result<(), DriverError> {
        self.check(offset)?;
        let at = self.clock.now_ps();
        self.nic()?.host_write(at, offset, value);
        Ok(())
    }

    fn push(&self, offset: u32, data: &[u8]) -> Result<(), DriverError> {
        homa_driver::check_push(self.name(), offset, data.len())?;
        let at = self.clock.now_ps();
        self.nic()?.host_push(at, offset, data);
        Ok(())
    }

    fn alloc_dma(&self, len: usize) -> Result<DmaRegion, DriverError> {
        self.memory.alloc_dma(len)
    }

    /// Shows the host the NIC's DMA writes that have landed by now.
    fn poll(&self) -> Result<(), DriverError> {
        let at = self.clock.now_ps();
        self.nic()?.show_host(at);
        Ok(())
    }
}

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
        check_register(self.name(), offset, self.bar_len())?;
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
