//! [`VfioDevice`]: a homa-nic on the PCI bus, reached through Linux VFIO (`vfio-pci` bound
//! to the device, an IOMMU translating its DMA).
//!
//! Open sequence, each step with its own error and fix:
//! 1. parse the PCI address; 2. find `/sys/bus/pci/devices/<BDF>`; 3. check its vendor and
//!    device ids ([`homa_proto::regs::PCI_VENDOR_ID`]:[`homa_proto::regs::PCI_DEVICE_ID`]);
//! 4. read its `iommu_group` link; 5. open `/dev/vfio/vfio` and `/dev/vfio/<group>`;
//! 6. hand over to `vfio-ioctls` (container, group, device fd); 7. map BAR0, which must hold
//!    the whole register map; 8. enable bus mastering.
//!
//! DMA memory is anonymous memory (hugepages when available) mapped into the IOMMU at IOVAs
//! from 4 GiB up; the device keeps every mapping until it is dropped.

use crate::dma::IovaAllocator;
use crate::mmio::{BarMap, DmaMemory};
use crate::{Device, DmaRegion, DriverError, PciAddress, Result};
use homa_proto::regs::{PCI_DEVICE_ID, PCI_VENDOR_ID, map_len};
use std::fmt;
use std::fs::{self, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::device::lock;
use vfio_ioctls::VfioContainer;

/// VFIO region index of BAR0 (linux/vfio.h `VFIO_PCI_BAR0_REGION_INDEX`).
const BAR0_REGION: u32 = 0;
/// VFIO region index of PCI configuration space (`VFIO_PCI_CONFIG_REGION_INDEX`).
const CONFIG_REGION: u32 = 7;
/// The region may be mmap'ed (`VFIO_REGION_INFO_FLAG_MMAP`).
const REGION_FLAG_MMAP: u32 = 1 << 2;
/// PCI command register offset, and its memory-space and bus-master bits.
const PCI_COMMAND: u64 = 0x04;
const PCI_COMMAND_MEMORY: u16 = 1 << 1;
const PCI_COMMAND_MASTER: u16 = 1 << 2;

/// Where the kernel's files are; tests point these elsewhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VfioPaths {
    /// `/sys/bus/pci/devices`.
    pub sysfs_devices: PathBuf,
    /// `/dev/vfio`.
    pub dev_vfio: PathBuf,
}

impl Default for VfioPaths {
    fn default() -> Self {
        VfioPaths {
            sysfs_devices: PathBuf::from("/sys/bus/pci/devices"),
            dev_vfio: PathBuf::from("/dev/vfio"),
        }
    }
}

/// A homa-nic reached through VFIO.
pub struct VfioDevice {
    bdf: String,
    bar: BarMap,
    bar_len: u32,
    // Kept open for the BAR mapping and DMA; dropped after the fields above.
    _device: vfio_ioctls::VfioDevice,
    container: Arc<VfioContainer>,
    dma: Mutex<Vec<(u64, Arc<DmaMemory>)>>,
    iova: Mutex<IovaAllocator>,
}

impl fmt::Debug for VfioDevice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VfioDevice")
            .field("bdf", &self.bdf)
            .field("bar_len", &self.bar_len)
            .finish_non_exhaustive()
    }
}

/// Reads a sysfs id file ("0x10ee\n").
fn read_id(bdf: &str, path: &Path) -> Result<u16> {
    let err = |source| DriverError::ReadPciId {
        bdf: bdf.to_string(),
        path: path.to_path_buf(),
        source,
    };
    let text = fs::read_to_string(path).map_err(err)?;
    let hex = text.trim().trim_start_matches("0x");
    u16::from_str_radix(hex, 16).map_err(|_| {
        err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("`{}` is not a 16-bit hex id", text.trim()),
        ))
    })
}

/// Opens `path` read-write, only to give a clear error before `vfio-ioctls` tries.
fn check_openable(bdf: &str, path: PathBuf) -> Result<()> {
    match OpenOptions::new().read(true).write(true).open(&path) {
        Ok(_) => Ok(()),
        Err(source) => Err(DriverError::OpenVfio {
            bdf: bdf.to_string(),
            path,
            source,
        }),
    }
}

impl VfioDevice {
    /// Opens the homa-nic at PCI address `bdf` (`0000:01:00.0`).
    pub fn open(bdf: &str) -> Result<VfioDevice> {
        VfioDevice::open_with(bdf, &VfioPaths::default())
    }

    /// [`open`](Self::open) with the sysfs and `/dev/vfio` directories given.
    pub fn open_with(bdf: &str, paths: &VfioPaths) -> Result<VfioDevice> {
        // 1-3. The device exists and is ours.
        let bdf = bdf.parse::<PciAddress>()?.to_string();
        let dir = paths.sysfs_devices.join(&bdf);
        fs::metadata(&dir).map_err(|source| DriverError::FindPciDevice {
            bdf: bdf.clone(),
            path: dir.clone(),
            source,
        })?;
        let vendor = read_id(&bdf, &dir.join("vendor"))?;
        let device = read_id(&bdf, &dir.join("device"))?;
        if (vendor, device) != (PCI_VENDOR_ID, PCI_DEVICE_ID) {
            return Err(DriverError::IdentifyPciDevice {
                bdf,
                vendor,
                device,
            });
        }

        // 4. Its IOMMU group.
        let link = dir.join("iommu_group");
        let group_err = |source| DriverError::ReadIommuGroup {
            bdf: bdf.clone(),
            path: link.clone(),
            source,
        };
        let target = fs::read_link(&link).map_err(group_err)?;
        let group = target
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.parse::<u32>().ok())
            .ok_or_else(|| {
                group_err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("`{}` names no group number", target.display()),
                ))
            })?;

        // 5. The VFIO files (vfio-ioctls' own errors would not say what to do).
        check_openable(&bdf, paths.dev_vfio.join("vfio"))?;
        check_openable(&bdf, paths.dev_vfio.join(group.to_string()))?;

        // 6. Container, group and device.
        let container = Arc::new(VfioContainer::new(None).map_err(|source| {
            DriverError::OpenVfioContainer {
                bdf: bdf.clone(),
                source,
            }
        })?);
        let vfio =
            vfio_ioctls::VfioDevice::new(&dir, container.clone(), false).map_err(|source| {
                DriverError::OpenVfioDevice {
                    bdf: bdf.clone(),
                    source,
                }
            })?;

        // 7. BAR0, large enough for the register map.
        let need = map_len();
        let bar_err = |reason: String| DriverError::CheckBar {
            bdf: bdf.clone(),
            reason,
            need,
        };
        if vfio.get_region_flags(BAR0_REGION) & REGION_FLAG_MMAP == 0 {
            return Err(bar_err("it cannot be memory-mapped".into()));
        }
        let size = vfio.get_region_size(BAR0_REGION);
        if size < u64::from(need) {
            return Err(bar_err(format!("it has {size} bytes")));
        }
        let bar_len = u32::try_from(size).unwrap_or(u32::MAX);
        let map_size = usize::try_from(bar_len).map_err(|_| bar_err("too large".into()))?;
        let bar = BarMap::map(
            vfio.as_raw_fd(),
            vfio.get_region_offset(BAR0_REGION),
            map_size,
        )
        .map_err(|source| DriverError::MapBar {
            bdf: bdf.clone(),
            source,
        })?;

        // 8. Memory decoding and bus mastering (PCI command register), checked by reading
        //    back: vfio-ioctls' region accessors only log failures.
        let mut cmd = [0u8; 2];
        vfio.region_read(CONFIG_REGION, &mut cmd, PCI_COMMAND);
        let wanted = u16::from_le_bytes(cmd) | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
        vfio.region_write(CONFIG_REGION, &wanted.to_le_bytes(), PCI_COMMAND);
        vfio.region_read(CONFIG_REGION, &mut cmd, PCI_COMMAND);
        let command = u16::from_le_bytes(cmd);
        if command & PCI_COMMAND_MASTER == 0 {
            return Err(DriverError::EnableBusMaster { bdf, command });
        }

        Ok(VfioDevice {
            bdf,
            bar_len: u32::try_from(bar.len()).unwrap_or(u32::MAX),
            bar,
            _device: vfio,
            container,
            dma: Mutex::new(Vec::new()),
            iova: Mutex::new(IovaAllocator::new()),
        })
    }

    /// The PCI address.
    pub fn bdf(&self) -> &str {
        &self.bdf
    }

    fn register_fault(&self, offset: u32) -> DriverError {
        DriverError::RegisterAccess {
            device: self.bdf.clone(),
            offset,
            bar_len: self.bar_len,
        }
    }
}

impl Device for VfioDevice {
    fn name(&self) -> &str {
        &self.bdf
    }

    fn bar_len(&self) -> u32 {
        self.bar_len
    }

    fn read32(&self, offset: u32) -> Result<u32> {
        self.bar
            .read32(offset)
            .map_err(|_| self.register_fault(offset))
    }

    fn write32(&self, offset: u32, value: u32) -> Result<()> {
        self.bar
            .write32(offset, value)
            .map_err(|_| self.register_fault(offset))
    }

    /// Stores into the mapped BAR (uncached unless the platform maps it write-combined, in
    /// which case each 64-byte word leaves as one PCIe write).
    fn push(&self, offset: u32, data: &[u8]) -> Result<()> {
        crate::device::check_push(&self.bdf, offset, data.len())?;
        self.bar.push(offset, data).map_err(|_| {
            crate::device::push_error(&self.bdf, offset, data.len(), "outside the mapped BAR0")
        })
    }

    fn alloc_dma(&self, len: usize) -> Result<DmaRegion> {
        let (mem, iova) = lock(&self.iova).allocate(&self.bdf, len)?;
        mem.map_for_dma(&self.container, iova)
            .map_err(|source| DriverError::MapDma {
                bdf: self.bdf.clone(),
                iova,
                len: mem.len(),
                source,
            })?;
        lock(&self.dma).push((iova, Arc::clone(&mem)));
        Ok(DmaRegion::new(mem, iova))
    }
}

impl Drop for VfioDevice {
    fn drop(&mut self) {
        for (iova, mem) in lock(&self.dma).drain(..) {
            if self.container.vfio_dma_unmap(iova, mem.len()).is_err() {
                // The device may still reach this memory: never give it back to the system.
                std::mem::forget(mem);
            }
        }
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    const BDF: &str = "0000:01:00.0";

    /// A scratch sysfs tree, removed on drop.
    struct FakeSysfs(PathBuf);

    impl FakeSysfs {
        fn new(name: &str) -> FakeSysfs {
            let root =
                std::env::temp_dir().join(format!("homa-driver-{}-{name}", std::process::id()));
            let _ = fs::remove_dir_all(&root);
            fs::create_dir_all(&root).unwrap();
            FakeSysfs(root)
        }

        fn device(&self, vendor: &str, device: &str, group: Option<&str>) -> &Self {
            let dir = self.0.join("devices").join(BDF);
            fs::create_dir_all(&dir).unwrap();
            fs::write(dir.join("vendor"), format!("{vendor}\n")).unwrap();
            fs::write(dir.join("device"), format!("{device}\n")).unwrap();
            if let Some(g) = group {
                symlink(
                    format!("../../../kernel/iommu_groups/{g}"),
                    dir.join("iommu_group"),
                )
                .unwrap();
            }
            self
        }

        fn paths(&self) -> VfioPaths {
            VfioPaths {
                sysfs_devices: self.0.join("devices"),
                dev_vfio: self.0.join("dev-vfio"),
            }
        }
    }

    impl Drop for FakeSysfs {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn open__this_machine_gives_a_clear_error() {
        // No homa-nic, no /dev/vfio and no IOMMU here (DESIGN.md §7): whatever step fails
        // first, the message must name the device and the fix.
        let e = VfioDevice::open(BDF).unwrap_err();
        let text = e.to_string();
        assert!(text.starts_with("failed to "), "{text}");
        assert!(text.contains(BDF), "{text}");
        assert!(
            text.contains("scripts/bind-vfio.sh") || text.contains("lspci -D -d 10ee:4e48"),
            "{text}"
        );
    }

    #[test]
    fn open__refuses_a_malformed_address() {
        let e = VfioDevice::open("01:00.0").unwrap_err();
        assert!(matches!(e, DriverError::ParsePciAddress { .. }), "{e}");
    }

    #[test]
    fn open__missing_device() {
        let fake = FakeSysfs::new("missing");
        fs::create_dir_all(fake.0.join("devices")).unwrap();
        let e = VfioDevice::open_with(BDF, &fake.paths()).unwrap_err();
        assert!(matches!(e, DriverError::FindPciDevice { .. }), "{e}");
        let text = e.to_string();
        assert!(
            text.contains("failed to find PCI device 0000:01:00.0"),
            "{text}"
        );
        assert!(text.contains("lspci -D -d 10ee:4e48"), "{text}");
        assert!(text.contains("scripts/bind-vfio.sh 0000:01:00.0"), "{text}");
        assert!(std::error::Error::source(&e).is_some());
    }

    #[test]
    fn open__refuses_another_device() {
        let fake = FakeSysfs::new("other");
        fake.device("0x8086", "0x1237", Some("3"));
        let e = VfioDevice::open_with(BDF, &fake.paths()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "failed to identify 0000:01:00.0 as a homa-nic: its PCI id is 8086:1237, expected \
             10ee:4e48; pick the NIC's address from `lspci -D -d 10ee:4e48`"
        );
        let fake = FakeSysfs::new("garbled");
        fake.device("xyz", "0x4e48", None);
        let e = VfioDevice::open_with(BDF, &fake.paths()).unwrap_err();
        assert!(matches!(e, DriverError::ReadPciId { .. }), "{e}");
    }

    #[test]
    fn open__no_iommu_group() {
        let fake = FakeSysfs::new("nogroup");
        fake.device("0x10ee", "0x4e48", None);
        let e = VfioDevice::open_with(BDF, &fake.paths()).unwrap_err();
        assert!(matches!(e, DriverError::ReadIommuGroup { .. }), "{e}");
        let text = e.to_string();
        assert!(text.contains("intel_iommu=on"), "{text}");
        assert!(text.contains("scripts/bind-vfio.sh 0000:01:00.0"), "{text}");
    }

    #[test]
    fn open__no_dev_vfio() {
        let fake = FakeSysfs::new("novfio");
        fake.device("0x10ee", "0x4e48", Some("12"));
        let paths = fake.paths();
        let e = VfioDevice::open_with(BDF, &paths).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "failed to open {}/vfio for 0000:01:00.0: No such file or directory (os error \
                 2); load vfio-pci and bind the device: scripts/bind-vfio.sh 0000:01:00.0",
                paths.dev_vfio.display()
            )
        );
        // With the container present, the missing group file is reported next.
        fs::create_dir_all(&paths.dev_vfio).unwrap();
        fs::write(paths.dev_vfio.join("vfio"), "").unwrap();
        let e = VfioDevice::open_with(BDF, &paths).unwrap_err();
        assert!(
            matches!(&e, DriverError::OpenVfio { path, .. } if path.ends_with("12")),
            "{e}"
        );
    }
}
