//! [`MemDevice`]: registers and DMA memory in plain host memory, no NIC behind them.

use crate::device::{NO_ONCHIP, check_push, lock, push_error};
use crate::dma::IovaAllocator;
use crate::mmio::DmaMemory;
use crate::{Device, DmaRegion, DriverError, Result};
use homa_proto::hostif::onchip;
use homa_proto::regs::{BLOCKS, block, map_len};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

/// A device made of memory: a register array holding the reset image of
/// [`homa_proto::regs::BLOCKS`], and DMA regions in ordinary (page-aligned, anonymous) memory.
///
/// Nothing reacts to register writes: the test (or a NIC model built on this) plays the
/// device side through [`set_register`](Self::set_register), [`dma_read`](Self::dma_read)
/// and [`dma_write`](Self::dma_write), and checks what the driver did through
/// [`take_writes`](Self::take_writes). Writes from the driver are stored as-is, also to
/// registers the map calls read-only.
///
/// With [`enable_onchip`](Self::enable_onchip) it also has on-chip TX memory
/// ([`onchip`]): pushes land in it, and the device side reads it by DMA at its IOVAs.
#[derive(Debug)]
pub struct MemDevice {
    regs: Vec<AtomicU32>,
    /// On-chip memory: BAR0 offsets `0..onchip::END` (only the areas are written).
    onchip: Mutex<Vec<u8>>,
    writes: Mutex<Vec<(u32, u32)>>,
    regions: Mutex<Vec<(u64, Arc<DmaMemory>)>>,
    iova: Mutex<IovaAllocator>,
}

impl Default for MemDevice {
    fn default() -> Self {
        MemDevice::new()
    }
}

impl MemDevice {
    /// A device showing the register map's reset values (the ID block says "HOMA").
    pub fn new() -> MemDevice {
        let regs: Vec<AtomicU32> = (0..map_len() / 4).map(|_| AtomicU32::new(0)).collect();
        for b in BLOCKS {
            for (offset, value) in b.reset_image() {
                if let Some(r) = regs.get(((b.base + offset) / 4) as usize) {
                    r.store(value, Ordering::Relaxed);
                }
            }
        }
        MemDevice {
            regs,
            onchip: Mutex::new(Vec::new()),
            writes: Mutex::new(Vec::new()),
            regions: Mutex::new(Vec::new()),
            iova: Mutex::new(IovaAllocator::new()),
        }
    }

    fn slot(&self, offset: u32) -> Result<&AtomicU32> {
        let fault = || DriverError::RegisterAccess {
            device: self.name().to_string(),
            offset,
            bar_len: self.bar_len(),
        };
        if !offset.is_multiple_of(4) {
            return Err(fault());
        }
        self.regs.get((offset / 4) as usize).ok_or_else(fault)
    }

    /// Device side: sets a register without logging it as a driver write.
    pub fn set_register(&self, offset: u32, value: u32) -> Result<()> {
        self.slot(offset)?.store(value, Ordering::SeqCst);
        Ok(())
    }

    /// Device side: a register's value.
    pub fn register(&self, offset: u32) -> Result<u32> {
        Ok(self.slot(offset)?.load(Ordering::SeqCst))
    }

    /// Device side: gives the device on-chip TX memory (QUEUE `tx_onchip_bytes` reads
    /// [`onchip::PAYLOAD_BYTES`]), zeroed.
    pub fn enable_onchip(&self) -> Result<()> {
        let at = block("QUEUE")
            .and_then(|b| b.address("tx_onchip_bytes"))
            .ok_or_else(|| DriverError::LookupRegister {
                block: "QUEUE",
                register: "tx_onchip_bytes".to_string(),
            })?;
        self.set_register(at, onchip::PAYLOAD_BYTES)?;
        *lock(&self.onchip) = vec![0; onchip::END as usize];
        Ok(())
    }

    /// The driver's register writes (offset, value) since the last call, oldest first.
    pub fn take_writes(&self) -> Vec<(u32, u32)> {
        std::mem::take(&mut *lock(&self.writes))
    }

    /// The region holding `iova..iova + len`, and the offset of `iova` in it.
    fn find(&self, iova: u64, len: usize) -> Result<(Arc<DmaMemory>, usize)> {
        let unmapped = DriverError::DmaUnmapped { iova, len };
        let regions = lock(&self.regions);
        for (start, mem) in regions.iter() {
            let Some(offset) = iova.checked_sub(*start) else {
                continue;
            };
            let Ok(offset) = usize::try_from(offset) else {
                continue;
            };
            if offset.checked_add(len).is_some_and(|end| end <= mem.len()) {
                return Ok((Arc::clone(mem), offset));
            }
        }
        Err(unmapped)
    }

    /// Device side: a DMA read of `buf.len()` bytes at `iova` (on-chip memory at its IOVAs,
    /// if the device has some).
    pub fn dma_read(&self, iova: u64, buf: &mut [u8]) -> Result<()> {
        if onchip::is_onchip(iova) {
            let chip = lock(&self.onchip);
            let at = (iova - onchip::IOVA) as usize;
            let src = chip
                .get(at..at + buf.len())
                .ok_or(DriverError::DmaUnmapped {
                    iova,
                    len: buf.len(),
                })?;
            buf.copy_from_slice(src);
            return Ok(());
        }
        let (mem, offset) = self.find(iova, buf.len())?;
        mem.read(offset, buf).map_err(|_| DriverError::DmaUnmapped {
            iova,
            len: buf.len(),
        })
    }

    /// Device side: a DMA write of `data` at `iova`.
    pub fn dma_write(&self, iova: u64, data: &[u8]) -> Result<()> {
        let (mem, offset) = self.find(iova, data.len())?;
        mem.write(offset, data)
            .map_err(|_| DriverError::DmaUnmapped {
                iova,
                len: data.len(),
            })
    }
}

impl Device for MemDevice {
    fn name(&self) -> &str {
        "mem"
    }

    fn bar_len(&self) -> u32 {
        map_len()
    }

    fn read32(&self, offset: u32) -> Result<u32> {
        self.register(offset)
    }

    fn write32(&self, offset: u32, value: u32) -> Result<()> {
        self.slot(offset)?.store(value, Ordering::SeqCst);
        lock(&self.writes).push((offset, value));
        Ok(())
    }

    /// Stores into on-chip memory if the device has some ([`MemDevice::enable_onchip`]).
    fn push(&self, offset: u32, data: &[u8]) -> Result<()> {
        let mut chip = lock(&self.onchip);
        if chip.is_empty() {
            return Err(push_error(self.name(), offset, data.len(), NO_ONCHIP));
        }
        check_push(self.name(), offset, data.len())?;
        let at = offset as usize;
        chip[at..at + data.len()].copy_from_slice(data);
        Ok(())
    }

    fn alloc_dma(&self, len: usize) -> Result<DmaRegion> {
        let (mem, iova) = lock(&self.iova).allocate(self.name(), len)?;
        lock(&self.regions).push((iova, Arc::clone(&mem)));
        Ok(DmaRegion::new(mem, iova))
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use homa_proto::regs::{NIC_ID, block};

    #[test]
    fn mem_device__reset_image_and_write_log() {
        let d = MemDevice::new();
        let id = block("ID").unwrap();
        assert_eq!(d.read32(id.address("nic_id").unwrap()).unwrap(), NIC_ID);
        assert_eq!(d.read32(0).unwrap(), id.type_id);
        d.write32(0x100, 7).unwrap();
        d.set_register(0x104, 9).unwrap();
        assert_eq!(d.take_writes(), [(0x100, 7)]);
        assert!(d.take_writes().is_empty());
        assert_eq!(d.read32(0x104).unwrap(), 9);
        assert!(matches!(
            d.read32(map_len()),
            Err(DriverError::RegisterAccess { .. })
        ));
        assert!(d.write32(2, 0).is_err());
    }

    #[test]
    fn mem_device__pushes_land_on_chip_only_when_it_has_some() {
        let d = MemDevice::new();
        let word = [7u8; 64];
        let refused = d.push(onchip::RING_OFFSET, &word).unwrap_err();
        assert!(refused.to_string().contains("no on-chip"), "{refused}");
        d.enable_onchip().unwrap();
        d.push(onchip::RING_OFFSET + 64, &word).unwrap();
        let mut buf = [0u8; 64];
        d.dma_read(onchip::iova_of(onchip::RING_OFFSET + 64), &mut buf)
            .unwrap();
        assert_eq!(buf, word);
        assert!(
            d.push(onchip::RING_OFFSET + 1, &word).is_err(),
            "misaligned"
        );
        assert!(d.push(onchip::END, &word).is_err(), "past the end");
        assert!(
            d.dma_read(onchip::iova_of(onchip::END - 8), &mut buf)
                .is_err()
        );
    }

    #[test]
    fn mem_device__dma_by_iova() {
        let d = MemDevice::new();
        let a = d.alloc_dma(100).unwrap();
        let b = d.alloc_dma(100).unwrap();
        assert_ne!(a.iova(), b.iova());
        d.dma_write(b.iova() + 4, &[1, 2, 3]).unwrap();
        assert_eq!(b.read_u32(4).unwrap(), 0x0003_0201);
        a.write_u64(0, 42).unwrap();
        let mut buf = [0u8; 8];
        d.dma_read(a.iova(), &mut buf).unwrap();
        assert_eq!(u64::from_le_bytes(buf), 42);
        let past = a.iova() + a.len() as u64 - 2;
        assert!(matches!(
            d.dma_read(past, &mut buf),
            Err(DriverError::DmaUnmapped { .. })
        ));
    }
}
