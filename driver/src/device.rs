//! The [`Device`] trait: what the ring logic and the init sequence need from a backend.

use crate::{DmaRegion, DriverError, Result};
use std::sync::atomic::{Ordering, fence};

/// A NIC as the driver sees it: BAR0 registers, DMA memory, doorbells.
///
/// Implemented by [`crate::VfioDevice`] (hardware), [`crate::MemDevice`] (plain memory, for
/// tests) and, later, the simulated device over the Verilated NIC. Register offsets are
/// byte offsets into BAR0, 4-byte aligned; the register map is [`homa_proto::regs`].
pub trait Device {
    /// A name for messages: the PCI address, or what the backend is.
    fn name(&self) -> &str;

    /// Bytes of BAR0.
    fn bar_len(&self) -> u32;

    /// Reads the 32-bit register at `offset`.
    fn read32(&self, offset: u32) -> Result<u32>;

    /// Writes the 32-bit register at `offset`.
    fn write32(&self, offset: u32, value: u32) -> Result<()>;

    /// Allocates at least `len` bytes of zeroed memory the device can reach by DMA.
    fn alloc_dma(&self, len: usize) -> Result<DmaRegion>;

    /// Pushes `data` into the device's on-chip TX memory at BAR0 `offset`
    /// ([`homa_proto::hostif::onchip`]): whole 64-byte words, written as posted
    /// (write-combined) stores that reach the device in order with register writes. A device
    /// without on-chip memory refuses (the default); so does a push outside it
    /// ([`onchip::push_fits`](homa_proto::hostif::onchip::push_fits)).
    fn push(&self, offset: u32, data: &[u8]) -> Result<()> {
        Err(push_error(self.name(), offset, data.len(), NO_ONCHIP))
    }

    /// Rings a doorbell: writes `value` to the register at `offset` after every earlier write
    /// to DMA memory is visible to the device.
    fn doorbell(&self, offset: u32, value: u32) -> Result<()> {
        fence(Ordering::SeqCst);
        self.write32(offset, value)
    }

    /// Lets the device make progress before completions are polled: a simulated device
    /// advances its clock here; hardware needs nothing (the default).
    fn poll(&self) -> Result<()> {
        Ok(())
    }
}

/// Why a device without on-chip TX memory refuses a push.
pub(crate) const NO_ONCHIP: &str =
    "the device has no on-chip TX memory (QUEUE tx_onchip_bytes is 0)";

/// The [`DriverError::Push`] for a push of `len` bytes at BAR0 `offset` of `device`.
pub(crate) fn push_error(
    device: &str,
    offset: u32,
    len: usize,
    reason: &'static str,
) -> DriverError {
    DriverError::Push {
        device: device.to_string(),
        offset,
        len,
        reason,
    }
}

/// Checks a push of `len` bytes at BAR0 `offset` of `device` against the on-chip memory's
/// bounds ([`onchip::push_fits`](homa_proto::hostif::onchip::push_fits)): the check, and
/// the error, of every backend that takes pushes.
pub fn check_push(device: &str, offset: u32, len: usize) -> Result<()> {
    if homa_proto::hostif::onchip::push_fits(offset, len) {
        Ok(())
    } else {
        Err(push_error(
            device,
            offset,
            len,
            "not whole 64-byte words inside on-chip memory",
        ))
    }
}

/// Checks a register access at BAR0 `offset` of `device`, whose BAR0 has `bar_len` bytes:
/// 4-byte aligned and inside. The check, and the error, of every backend.
pub fn check_register(device: &str, offset: u32, bar_len: u32) -> Result<()> {
    if offset.is_multiple_of(4) && offset < bar_len {
        Ok(())
    } else {
        Err(DriverError::RegisterAccess {
            device: device.to_string(),
            offset,
            bar_len,
        })
    }
}

/// Locks `m`, keeping its data if a holder panicked: the driver's locks guard plain data
/// that stays usable.
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Forwards every method to the device behind a pointer.
macro_rules! forward_device {
    ($($ptr:ident)::+) => {
        impl<D: Device + ?Sized> Device for $($ptr)::+<D> {
            fn name(&self) -> &str {
                (**self).name()
            }
            fn bar_len(&self) -> u32 {
                (**self).bar_len()
            }
            fn read32(&self, offset: u32) -> Result<u32> {
                (**self).read32(offset)
            }
            fn write32(&self, offset: u32, value: u32) -> Result<()> {
                (**self).write32(offset, value)
            }
            fn alloc_dma(&self, len: usize) -> Result<DmaRegion> {
                (**self).alloc_dma(len)
            }
            fn doorbell(&self, offset: u32, value: u32) -> Result<()> {
                (**self).doorbell(offset, value)
            }
            fn push(&self, offset: u32, data: &[u8]) -> Result<()> {
                (**self).push(offset, data)
            }
            fn poll(&self) -> Result<()> {
                (**self).poll()
            }
        }
    };
}

// A boxed device is a device (backends chosen at run time); a shared one too (a simulated
// NIC plays the device side of the memory the driver uses).
forward_device!(Box);
forward_device!(std::sync::Arc);
