//! The crate's only `unsafe` code: memory the device can see.
//!
//! Two kinds of mapping live here:
//!
//! - [`DmaMemory`]: anonymous host memory handed to the device for DMA (2 MiB hugepages when
//!   the system has them, else normal pages). Following the contract of `vfio-ioctls`'
//!   `vfio_dma_map`, no Rust reference to it is ever created: the device may read or write it
//!   at any time, so every access is a volatile access through a raw pointer, bounds-checked
//!   here, and the mapping outlives its IOMMU mapping because [`DmaMemory`] is shared through
//!   an `Arc` that the IOMMU owner keeps until it has unmapped.
//! - [`BarMap`]: BAR0 of a VFIO device mapped into the process; 32-bit volatile accesses at
//!   4-byte-aligned offsets inside the mapping only.
//!
//! Every function checks its bounds and alignment itself, so the `unsafe` blocks are sound
//! whatever the (safe) callers pass; a refused access is an [`OutOfBounds`].

use memmap2::{MmapOptions, MmapRaw};
use std::io;
use std::ptr;

/// An access outside a mapping, or misaligned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OutOfBounds;

/// Size of the hugepages asked for: 2 MiB (log2 = 21).
const HUGEPAGE_LOG2: u8 = 21;
const HUGEPAGE: usize = 1 << HUGEPAGE_LOG2;
const PAGE: usize = 4096;

/// Anonymous memory, zeroed, that a device may reach by DMA.
#[derive(Debug)]
pub(crate) struct DmaMemory {
    map: MmapRaw,
    hugepages: bool,
}

impl DmaMemory {
    /// At least `len` bytes (rounded up to whole pages), on hugepages when available.
    pub(crate) fn allocate(len: usize) -> io::Result<DmaMemory> {
        if len == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "zero-length DMA region",
            ));
        }
        let huge_len = len.checked_next_multiple_of(HUGEPAGE);
        if let Some(huge_len) = huge_len
            && let Ok(map) = MmapOptions::new()
                .len(huge_len)
                .huge(Some(HUGEPAGE_LOG2))
                .populate()
                .map_anon()
        {
            return Ok(DmaMemory {
                map: map.into(),
                hugepages: true,
            });
        }
        let page_len = len
            .checked_next_multiple_of(PAGE)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "DMA region too large"))?;
        let map = MmapOptions::new().len(page_len).populate().map_anon()?;
        Ok(DmaMemory {
            map: map.into(),
            hugepages: false,
        })
    }

    /// Bytes mapped.
    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether the memory sits on hugepages.
    pub(crate) fn hugepages(&self) -> bool {
        self.hugepages
    }

    /// The start of `offset..offset + len`, if inside the mapping and aligned to `align`.
    fn at(&self, offset: usize, len: usize, align: usize) -> Result<*mut u8, OutOfBounds> {
        let end = offset.checked_add(len).ok_or(OutOfBounds)?;
        if end > self.map.len() || !offset.is_multiple_of(align) {
            return Err(OutOfBounds);
        }
        // The mapping is page-aligned, so an aligned offset gives an aligned pointer.
        Ok(self.map.as_mut_ptr().wrapping_add(offset))
    }

    /// Copies `buf.len()` bytes from `offset` into `buf`, 8 bytes per access when aligned.
    pub(crate) fn read(&self, offset: usize, buf: &mut [u8]) -> Result<(), OutOfBounds> {
        let p = self.at(offset, buf.len(), 1)?;
        if offset.is_multiple_of(8) && buf.len().is_multiple_of(8) {
            for (i, chunk) in buf.chunks_exact_mut(8).enumerate() {
                // SAFETY: `at` checked that the whole range is inside the live mapping, and
                // `offset` and `i * 8` are multiples of 8 in a page-aligned mapping, so the
                // pointer is valid and aligned for a u64. Volatile: the device may change it.
                let v = unsafe { ptr::read_volatile(p.add(i * 8).cast::<u64>()) };
                chunk.copy_from_slice(&v.to_ne_bytes());
            }
        } else {
            for (i, b) in buf.iter_mut().enumerate() {
                // SAFETY: `p + i` lies inside the range `at` checked; u8 needs no alignment.
                *b = unsafe { ptr::read_volatile(p.add(i)) };
            }
        }
        Ok(())
    }

    /// Copies `data` to `offset`, 8 bytes per access when aligned, in address order.
    pub(crate) fn write(&self, offset: usize, data: &[u8]) -> Result<(), OutOfBounds> {
        let p = self.at(offset, data.len(), 1)?;
        if offset.is_multiple_of(8) && data.len().is_multiple_of(8) {
            for (i, chunk) in data.chunks_exact(8).enumerate() {
                let mut v = [0u8; 8];
                v.copy_from_slice(chunk);
                // SAFETY: as in `read`: in bounds, aligned for u64, volatile.
                unsafe { ptr::write_volatile(p.add(i * 8).cast::<u64>(), u64::from_ne_bytes(v)) };
            }
        } else {
            for (i, &b) in data.iter().enumerate() {
                // SAFETY: `p + i` lies inside the range `at` checked.
                unsafe { ptr::write_volatile(p.add(i), b) };
            }
        }
        Ok(())
    }

    /// Maps the memory into the IOMMU of `container` at `iova`.
    ///
    /// The contract of `vfio_dma_map` holds because: (1) no Rust reference to this memory
    /// exists or is ever created (all access is the volatile code above); (2) the caller keeps
    /// an `Arc<DmaMemory>` until after `vfio_dma_unmap` of the same range succeeded or was
    /// attempted at teardown, so the memory is not unmapped from the process while the IOMMU
    /// mapping exists.
    pub(crate) fn map_for_dma(
        &self,
        container: &vfio_ioctls::VfioContainer,
        iova: u64,
    ) -> Result<(), vfio_ioctls::VfioError> {
        // SAFETY: see the function doc: volatile-only access, and the memory outlives the
        // IOMMU mapping (the caller holds it until after unmapping).
        unsafe { container.vfio_dma_map(iova, self.map.len(), self.map.as_mut_ptr()) }
    }
}

/// BAR0 of a device, mapped.
#[derive(Debug)]
pub(crate) struct BarMap {
    map: MmapRaw,
}

impl BarMap {
    /// Maps `len` bytes at `offset` of the device file `fd` (a VFIO region).
    pub(crate) fn map(fd: std::os::fd::RawFd, offset: u64, len: usize) -> io::Result<BarMap> {
        let map = MmapOptions::new().offset(offset).len(len).map_raw(fd)?;
        Ok(BarMap { map })
    }

    /// Bytes mapped.
    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }

    fn reg(&self, offset: u32) -> Result<*mut u32, OutOfBounds> {
        let offset = usize::try_from(offset).map_err(|_| OutOfBounds)?;
        if offset % 4 != 0 || offset.checked_add(4).is_none_or(|end| end > self.map.len()) {
            return Err(OutOfBounds);
        }
        Ok(self.map.as_mut_ptr().wrapping_add(offset).cast::<u32>())
    }

    /// Reads the 32-bit register at `offset`.
    pub(crate) fn read32(&self, offset: u32) -> Result<u32, OutOfBounds> {
        let p = self.reg(offset)?;
        // SAFETY: `reg` checked that the 4 bytes lie inside the live mapping and that the
        // offset is 4-aligned in a page-aligned mapping. Device registers need volatile.
        Ok(u32::from_le(unsafe { ptr::read_volatile(p) }))
    }

    /// Writes the 32-bit register at `offset`.
    pub(crate) fn write32(&self, offset: u32, value: u32) -> Result<(), OutOfBounds> {
        let p = self.reg(offset)?;
        // SAFETY: as in `read32`.
        unsafe { ptr::write_volatile(p, value.to_le()) };
        Ok(())
    }

    /// Writes whole 64-byte words at `offset` (on-chip memory), as 64-bit stores in address
    /// order. The caller checks the range with `onchip::push_fits`; this checks the mapping.
    pub(crate) fn push(&self, offset: u32, data: &[u8]) -> Result<(), OutOfBounds> {
        let start = usize::try_from(offset).map_err(|_| OutOfBounds)?;
        if !start.is_multiple_of(64)
            || !data.len().is_multiple_of(64)
            || start
                .checked_add(data.len())
                .is_none_or(|end| end > self.map.len())
        {
            return Err(OutOfBounds);
        }
        let base = self.map.as_mut_ptr().wrapping_add(start).cast::<u64>();
        for (i, chunk) in data.chunks_exact(8).enumerate() {
            let word = u64::from_le_bytes(chunk.try_into().map_err(|_| OutOfBounds)?);
            // SAFETY: the range [start, start + data.len()) was checked to lie inside the
            // live mapping, and `start` is 64-aligned in a page-aligned mapping, so every
            // 8-byte store is in bounds and aligned. Device memory needs volatile.
            unsafe { ptr::write_volatile(base.wrapping_add(i), word.to_le()) };
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn dma_memory__zeroed_page_rounded_and_bounded() {
        let m = DmaMemory::allocate(100).unwrap();
        assert!(m.len() >= 100 && m.len().is_multiple_of(PAGE));
        let mut buf = [0xa5u8; 16];
        m.read(0, &mut buf).unwrap();
        assert_eq!(buf, [0; 16]);
        m.write(8, &[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        m.write(3, &[9]).unwrap();
        let mut buf = [0u8; 16];
        m.read(0, &mut buf).unwrap();
        assert_eq!(buf, [0, 0, 0, 9, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(m.read(m.len() - 1, &mut [0; 2]), Err(OutOfBounds));
        assert_eq!(m.write(usize::MAX, &[0]), Err(OutOfBounds));
        assert!(DmaMemory::allocate(0).is_err());
    }
}
