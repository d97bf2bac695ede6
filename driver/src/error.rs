//! The crate's one error type. Each variant is named after the operation that failed; its
//! message starts "failed to …", names the device (PCI address) or ring, and says what to do
//! where the fix is outside the program.

use homa_proto::hostif::HostifError;
use std::io;
use std::path::PathBuf;

/// `Result` with [`DriverError`].
pub type Result<T, E = DriverError> = std::result::Result<T, E>;

/// Everything that can go wrong in the driver.
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    /// The PCI address is not `domain:bus:device.function`.
    #[error(
        "failed to parse PCI address `{bdf}`: expected domain:bus:device.function in hex, \
         e.g. 0000:01:00.0 (see `lspci -D`)"
    )]
    ParsePciAddress {
        /// What was given.
        bdf: String,
    },
    /// No such PCI device in sysfs.
    #[error(
        "failed to find PCI device {bdf} ({path}): {source}; check the address with \
         `lspci -D -d 10ee:4e48` (is the NIC's bitstream loaded?), then bind it to vfio-pci: \
         scripts/bind-vfio.sh {bdf}",
        path = path.display()
    )]
    FindPciDevice {
        /// The device.
        bdf: String,
        /// Its sysfs directory.
        path: PathBuf,
        /// Why it could not be read.
        #[source]
        source: io::Error,
    },
    /// The vendor or device file could not be read.
    #[error("failed to read the PCI ids of {bdf} ({path}): {source}", path = path.display())]
    ReadPciId {
        /// The device.
        bdf: String,
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The device is not a homa-nic.
    #[error(
        "failed to identify {bdf} as a homa-nic: its PCI id is {vendor:04x}:{device:04x}, \
         expected 10ee:4e48; pick the NIC's address from `lspci -D -d 10ee:4e48`"
    )]
    IdentifyPciDevice {
        /// The device.
        bdf: String,
        /// Its vendor id.
        vendor: u16,
        /// Its device id.
        device: u16,
    },
    /// The device has no IOMMU group.
    #[error(
        "failed to read the IOMMU group of {bdf} ({path}): {source}; enable the IOMMU \
         (intel_iommu=on or amd_iommu=on on the kernel command line, VT-d/AMD-Vi in the \
         firmware), then bind the device: scripts/bind-vfio.sh {bdf}",
        path = path.display()
    )]
    ReadIommuGroup {
        /// The device.
        bdf: String,
        /// The `iommu_group` link.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// `/dev/vfio/vfio` or the group file could not be opened.
    #[error(
        "failed to open {path} for {bdf}: {source}; load vfio-pci and bind the device: \
         scripts/bind-vfio.sh {bdf}",
        path = path.display()
    )]
    OpenVfio {
        /// The device.
        bdf: String,
        /// The VFIO file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The VFIO container refused (API version, IOMMU type).
    #[error(
        "failed to open the VFIO container for {bdf}: {source}; check that vfio-pci and \
         vfio_iommu_type1 are loaded and that you may use /dev/vfio (run as root)"
    )]
    OpenVfioContainer {
        /// The device.
        bdf: String,
        /// Why.
        #[source]
        source: vfio_ioctls::VfioError,
    },
    /// The VFIO group or device could not be opened.
    #[error(
        "failed to open VFIO device {bdf}: {source}; every device of its IOMMU group must be \
         bound to vfio-pci and no other process may hold the group: scripts/bind-vfio.sh {bdf}"
    )]
    OpenVfioDevice {
        /// The device.
        bdf: String,
        /// Why.
        #[source]
        source: vfio_ioctls::VfioError,
    },
    /// BAR0 is missing, not mappable or too small for the register map.
    #[error(
        "failed to use BAR0 of {bdf}: {reason}; the register map needs {need} bytes \
         (is the bitstream a homa-nic build matching this driver?)"
    )]
    CheckBar {
        /// The device.
        bdf: String,
        /// What is wrong.
        reason: String,
        /// Bytes needed.
        need: u32,
    },
    /// mmap of BAR0 failed.
    #[error("failed to map BAR0 of {bdf}: {source}")]
    MapBar {
        /// The device.
        bdf: String,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The bus-master bit of the PCI command register did not stick.
    #[error(
        "failed to enable bus mastering on {bdf}: the PCI command register reads {command:#06x}"
    )]
    EnableBusMaster {
        /// The device.
        bdf: String,
        /// The command register after the write.
        command: u16,
    },
    /// DMA memory could not be allocated.
    #[error(
        "failed to allocate {len} bytes of DMA memory for {device}: {source}; raise the \
         locked-memory limit (ulimit -l) or reserve hugepages (vm.nr_hugepages)"
    )]
    AllocDma {
        /// The device.
        device: String,
        /// Bytes asked for.
        len: usize,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The IOMMU refused to map DMA memory.
    #[error(
        "failed to map {len} bytes at IOVA {iova:#x} into the IOMMU for {bdf}: {source}; \
         raise the locked-memory limit (ulimit -l)"
    )]
    MapDma {
        /// The device.
        bdf: String,
        /// Where.
        iova: u64,
        /// How much.
        len: usize,
        /// Why.
        #[source]
        source: vfio_ioctls::VfioError,
    },
    /// A register offset outside BAR0 or not 4-byte aligned.
    #[error(
        "failed to access register {offset:#x} of {device}: outside the {bar_len}-byte BAR0 \
         or not 4-byte aligned"
    )]
    RegisterAccess {
        /// The device.
        device: String,
        /// The offset.
        offset: u32,
        /// BAR0's size.
        bar_len: u32,
    },
    /// The device cannot be used from here (a simulated device, from a thread other than the
    /// simulator's).
    #[error("failed to use {device}: {reason}")]
    Unusable {
        /// The device.
        device: String,
        /// Why.
        reason: String,
    },
    /// A push into on-chip TX memory the device does not take.
    #[error("failed to push {len} bytes to BAR0 offset {offset:#x} of {device}: {reason}")]
    Push {
        /// The device.
        device: String,
        /// The BAR0 offset.
        offset: u32,
        /// Bytes pushed.
        len: usize,
        /// Why.
        reason: &'static str,
    },
    /// An access outside a DMA region.
    #[error(
        "failed to access DMA memory at IOVA {iova:#x} + {offset}: {len} bytes do not fit \
         the {region_len}-byte region"
    )]
    DmaAccess {
        /// The region's IOVA.
        iova: u64,
        /// Offset in the region.
        offset: usize,
        /// Bytes.
        len: usize,
        /// The region's size.
        region_len: usize,
    },
    /// A device-side DMA to an IOVA no region maps.
    #[error("failed to reach IOVA {iova:#x} ({len} bytes): no DMA region maps it")]
    DmaUnmapped {
        /// The IOVA.
        iova: u64,
        /// Bytes.
        len: usize,
    },
    /// The register-block chain is broken.
    #[error("failed to walk the register blocks of {device}: {reason} at offset {offset:#x}")]
    WalkRegisterBlocks {
        /// The device.
        device: String,
        /// Where.
        offset: u32,
        /// What is wrong.
        reason: String,
    },
    /// The ID block does not say "HOMA".
    #[error(
        "failed to identify {device} as a homa-nic: ID block type {type_id:#010x} nic_id \
         {nic_id:#010x}, expected type 0x484d4e49 nic_id 0x484f4d41 (is a homa-nic \
         bitstream loaded?)"
    )]
    CheckNicId {
        /// The device.
        device: String,
        /// The type word at offset 0.
        type_id: u32,
        /// The nic_id register.
        nic_id: u32,
    },
    /// A block has a major version this driver does not know.
    #[error(
        "failed to use the {block} block of {device}: version {major}.{minor}, this driver \
         supports {supported}.x; use a driver and bitstream from the same release"
    )]
    CheckBlockVersion {
        /// The device.
        device: String,
        /// The block.
        block: &'static str,
        /// Its major version.
        major: u16,
        /// Its minor version.
        minor: u16,
        /// The major version supported.
        supported: u16,
    },
    /// A block the driver needs is absent.
    #[error(
        "failed to find the {block} register block on {device}: the bitstream lacks it \
         (rebuild it with the host queues)"
    )]
    FindRegisterBlock {
        /// The device.
        device: String,
        /// The block.
        block: &'static str,
    },
    /// A register name the driver uses is not in `proto::regs` (a bug in the driver).
    #[error("failed to look up register {block}.{register} in proto::regs")]
    LookupRegister {
        /// The block.
        block: &'static str,
        /// The register.
        register: String,
    },
    /// A configuration value out of range.
    #[error("failed to configure the NIC: {field} = {value}, {reason}")]
    ConfigureNic {
        /// The field.
        field: &'static str,
        /// Its value.
        value: u64,
        /// The rule it breaks.
        reason: &'static str,
    },
    /// A ring could not be set up.
    #[error("failed to set up the {ring} ring: {source}")]
    SetUpRing {
        /// The ring.
        ring: &'static str,
        /// Why.
        #[source]
        source: HostifError,
    },
    /// A descriptor could not be posted (ring full, invalid descriptor).
    #[error("failed to post a {ring} descriptor: {source}")]
    PostDescriptor {
        /// The ring.
        ring: &'static str,
        /// Why.
        #[source]
        source: HostifError,
    },
    /// A message to send is larger than the whole TX payload area: it can never be placed.
    #[error(
        "failed to place a TX payload of {length} bytes: the TX buffer area holds {capacity}; \
         give the transport a larger one or send shorter messages"
    )]
    PlaceTxPayload {
        /// The message's length.
        length: usize,
        /// The area's size.
        capacity: usize,
    },
    /// The NIC reported a ring index it cannot have reached.
    #[error("failed to take the NIC's {ring} ring index: {source}")]
    ReadRingIndex {
        /// The ring.
        ring: &'static str,
        /// Why.
        #[source]
        source: HostifError,
    },
    /// A posted RX buffer descriptor failed to decode (device side: the software NIC).
    #[error("failed to read RX buffer descriptor {index}: {source}")]
    ReadDescriptor {
        /// Its free-running ring index.
        index: u32,
        /// Why.
        #[source]
        source: HostifError,
    },
    /// A completion with a valid phase failed to decode (it is consumed all the same).
    #[error("failed to decode completion {index}: {source}")]
    DecodeCompletion {
        /// Its free-running ring index.
        index: u32,
        /// Why.
        #[source]
        source: HostifError,
    },
    /// An RX buffer id that does not exist.
    #[error("failed to repost RX buffer {buffer_id}: only {count} buffers exist")]
    RepostRxBuffer {
        /// The id.
        buffer_id: u32,
        /// Buffers in the pool.
        count: u32,
    },
}

impl DriverError {
    /// Whether this is a descriptor refused because its ring is full (the NIC has not taken
    /// enough yet: post it again later), not for what it holds.
    pub fn is_ring_full(&self) -> bool {
        matches!(
            self,
            DriverError::PostDescriptor {
                source: HostifError::RingFull(_),
                ..
            }
        )
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn driver_error__display_and_source() {
        let e = DriverError::OpenVfio {
            bdf: "0000:01:00.0".into(),
            path: "/dev/vfio/vfio".into(),
            source: io::Error::from(io::ErrorKind::NotFound),
        };
        assert_eq!(
            e.to_string(),
            "failed to open /dev/vfio/vfio for 0000:01:00.0: entity not found; load vfio-pci \
             and bind the device: scripts/bind-vfio.sh 0000:01:00.0"
        );
        assert!(e.source().is_some());

        let e = DriverError::PostDescriptor {
            ring: "TX",
            source: HostifError::RingFull(4),
        };
        assert_eq!(
            e.to_string(),
            "failed to post a TX descriptor: ring full: all 4 slots are in use"
        );
        assert!(e.is_ring_full());
        assert_eq!(
            e.source().map(|s| s.to_string()).as_deref(),
            Some("ring full: all 4 slots are in use")
        );

        let e = DriverError::CheckNicId {
            device: "mem".into(),
            type_id: 0,
            nic_id: 0xdead_beef,
        };
        assert!(
            e.to_string()
                .starts_with("failed to identify mem as a homa-nic")
        );
        assert!(e.source().is_none());
    }
}
