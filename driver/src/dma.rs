//! DMA memory as the driver hands it around: [`DmaRegion`], and IOVA assignment.
//!
//! A region lives in this host's memory (VFIO, the simulated devices), or in memory the host
//! reaches only through the device's link ([`RemoteMemory`]: an FPGA board's DDR, over
//! Etherbone).

use crate::mmio::DmaMemory;
use crate::{DriverError, Result};
use std::sync::Arc;

/// Memory the device can reach by DMA, at a known IOVA.
///
/// # Safety model
///
/// The device may read or write this memory at any time, so there is no way to borrow it as
/// `&[u8]` or `&mut [u8]` (that would break Rust's aliasing rules, as `vfio-ioctls`'
/// `vfio_dma_map` documents): every access copies through volatile loads and stores, bounds
/// checked. Accesses from several threads to the same bytes are as unsynchronised as the
/// device's own; the ring types own their regions and order writes before doorbells.
#[derive(Debug)]
pub struct DmaRegion {
    mem: Backing,
    iova: u64,
}

/// Memory the device reaches by DMA and this host only through the device's link (an FPGA
/// board's memory, over Etherbone): byte-addressed copies, each a transaction on the link.
pub trait RemoteMemory: std::fmt::Debug + Send + Sync {
    /// Copies `buf.len()` bytes at `addr` (the link's address) into `buf`.
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<()>;
    /// Copies `data` to `addr`.
    fn write(&self, addr: u64, data: &[u8]) -> Result<()>;
}

/// Where a region's bytes are.
#[derive(Debug)]
enum Backing {
    /// This host's memory, mapped.
    Host(Arc<DmaMemory>),
    /// `len` bytes at `addr` of a remote memory.
    Remote {
        mem: Arc<dyn RemoteMemory>,
        addr: u64,
        len: usize,
    },
}

impl DmaRegion {
    pub(crate) fn new(mem: Arc<DmaMemory>, iova: u64) -> DmaRegion {
        DmaRegion {
            mem: Backing::Host(mem),
            iova,
        }
    }

    /// A region of `len` bytes at `addr` of `mem`, which the device reaches at `iova`.
    pub(crate) fn remote(mem: Arc<dyn RemoteMemory>, addr: u64, len: usize, iova: u64) -> Self {
        DmaRegion {
            mem: Backing::Remote { mem, addr, len },
            iova,
        }
    }

    /// The IOVA of the first byte: what descriptors and ring registers carry.
    pub fn iova(&self) -> u64 {
        self.iova
    }

    /// Size in bytes (the request rounded up to whole pages).
    pub fn len(&self) -> usize {
        match &self.mem {
            Backing::Host(m) => m.len(),
            Backing::Remote { len, .. } => *len,
        }
    }

    /// Never true: regions have at least one page.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the memory sits on 2 MiB hugepages (never for remote memory).
    pub fn hugepages(&self) -> bool {
        match &self.mem {
            Backing::Host(m) => m.hugepages(),
            Backing::Remote { .. } => false,
        }
    }

    /// The remote address of `offset..offset + n`, if inside the region.
    fn remote_at(&self, offset: usize, n: usize, addr: u64, len: usize) -> Result<u64> {
        match offset.checked_add(n) {
            Some(end) if end <= len => Ok(addr + offset as u64),
            _ => Err(self.fault(offset, n)),
        }
    }

    fn fault(&self, offset: usize, len: usize) -> DriverError {
        DriverError::DmaAccess {
            iova: self.iova,
            offset,
            len,
            region_len: self.len(),
        }
    }

    /// Copies `buf.len()` bytes at `offset` into `buf`.
    pub fn read(&self, offset: usize, buf: &mut [u8]) -> Result<()> {
        match &self.mem {
            Backing::Host(m) => m
                .read(offset, buf)
                .map_err(|_| self.fault(offset, buf.len())),
            Backing::Remote { mem, addr, len } => {
                mem.read(self.remote_at(offset, buf.len(), *addr, *len)?, buf)
            }
        }
    }

    /// Copies `data` to `offset`.
    pub fn write(&self, offset: usize, data: &[u8]) -> Result<()> {
        match &self.mem {
            Backing::Host(m) => m
                .write(offset, data)
                .map_err(|_| self.fault(offset, data.len())),
            Backing::Remote { mem, addr, len } => {
                mem.write(self.remote_at(offset, data.len(), *addr, *len)?, data)
            }
        }
    }

    /// Reads one byte.
    pub fn read_u8(&self, offset: usize) -> Result<u8> {
        let mut b = [0u8; 1];
        self.read(offset, &mut b)?;
        Ok(b[0])
    }

    /// Reads a little-endian `u32`.
    pub fn read_u32(&self, offset: usize) -> Result<u32> {
        let mut b = [0u8; 4];
        self.read(offset, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    /// Writes a little-endian `u32`.
    pub fn write_u32(&self, offset: usize, value: u32) -> Result<()> {
        self.write(offset, &value.to_le_bytes())
    }

    /// Reads a little-endian `u64`.
    pub fn read_u64(&self, offset: usize) -> Result<u64> {
        let mut b = [0u8; 8];
        self.read(offset, &mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    /// Writes a little-endian `u64`.
    pub fn write_u64(&self, offset: usize, value: u64) -> Result<()> {
        self.write(offset, &value.to_le_bytes())
    }
}

/// Hands out IOVAs: a bump allocator from 4 GiB up, each region aligned to its own page size
/// (2 MiB for hugepages), with a guard page between regions so an overrun faults in the IOMMU
/// instead of landing in the next region.
#[derive(Debug)]
pub(crate) struct IovaAllocator {
    next: u64,
}

/// Where IOVAs start: above the 32-bit range, away from any legacy DMA window.
const IOVA_BASE: u64 = 1 << 32;
const GUARD: u64 = 4096;

impl IovaAllocator {
    pub(crate) fn new() -> IovaAllocator {
        IovaAllocator { next: IOVA_BASE }
    }

    /// An IOVA for `len` bytes of `mem`, or `None` when the 64-bit space is exhausted.
    pub(crate) fn assign(&mut self, len: usize, hugepages: bool) -> Option<u64> {
        let align: u64 = if hugepages { 1 << 21 } else { 4096 };
        let iova = self.next.checked_next_multiple_of(align)?;
        let len = u64::try_from(len).ok()?;
        self.next = iova.checked_add(len)?.checked_add(GUARD)?;
        Some(iova)
    }

    /// Allocates memory and gives it an IOVA: the part every backend shares.
    pub(crate) fn allocate(&mut self, device: &str, len: usize) -> Result<(Arc<DmaMemory>, u64)> {
        let mem = DmaMemory::allocate(len).map_err(|source| DriverError::AllocDma {
            device: device.to_string(),
            len,
            source,
        })?;
        let iova =
            self.assign(mem.len(), mem.hugepages())
                .ok_or_else(|| DriverError::AllocDma {
                    device: device.to_string(),
                    len,
                    source: std::io::Error::other("IOVA space exhausted"),
                })?;
        Ok((Arc::new(mem), iova))
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn iova_allocator__aligned_disjoint_guarded() {
        let mut a = IovaAllocator::new();
        let x = a.assign(8192, false).unwrap();
        let y = a.assign(4096, false).unwrap();
        let z = a.assign(1 << 21, true).unwrap();
        assert_eq!(x, 1 << 32);
        assert_eq!(y, x + 8192 + 4096);
        assert_eq!(z % (1 << 21), 0);
        assert!(z >= y + 4096 + 4096);
    }

    #[test]
    fn dma_region__bounds_checked_access() {
        let (mem, iova) = IovaAllocator::new().allocate("test", 64).unwrap();
        let r = DmaRegion::new(mem, iova);
        assert_eq!(r.iova(), 1 << 32);
        r.write_u64(8, 0x0102_0304_0506_0708).unwrap();
        assert_eq!(r.read_u32(8).unwrap(), 0x0506_0708);
        assert_eq!(r.read_u8(15).unwrap(), 1);
        let e = r.read_u32(r.len() - 2).unwrap_err();
        assert!(matches!(e, DriverError::DmaAccess { len: 4, .. }), "{e}");
        assert!(
            e.to_string()
                .starts_with("failed to access DMA memory at IOVA 0x100000000")
        );
    }
}
