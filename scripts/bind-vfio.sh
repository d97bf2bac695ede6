#!/usr/bin/env bash
# Bind a homa-nic PCI function to vfio-pci so that `homa-nic probe` and the driver
# (homa-driver's VfioDevice) can open it.
#
#   usage: scripts/bind-vfio.sh 0000:01:00.0
#
# Checks, in order: the address, that the device exists, that the IOMMU is on (the device
# has an IOMMU group), that vfio-pci can be loaded; then unbinds the current driver, binds
# vfio-pci through driver_override and shows what to run next. Run as root.
set -euo pipefail

die() {
    echo "bind-vfio: error: $*" >&2
    exit 1
}

[[ $# -eq 1 ]] || die "usage: $0 DOMAIN:BUS:DEVICE.FUNCTION (e.g. 0000:01:00.0; see lspci -D -d 10ee:4e48)"
bdf=$1
[[ $bdf =~ ^[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-1][0-9a-fA-F]\.[0-7]$ ]] ||
    die "'$bdf' is not a PCI address like 0000:01:00.0 (see lspci -D)"
bdf=${bdf,,}

dev=/sys/bus/pci/devices/$bdf
[[ -d $dev ]] || die "no PCI device $bdf: list homa-nics with 'lspci -D -d 10ee:4e48' (is the bitstream loaded?)"
[[ $(id -u) -eq 0 ]] || die "binding $bdf needs root: sudo $0 $bdf"

vendor=$(<"$dev/vendor")
device=$(<"$dev/device")
if [[ $vendor != 0x10ee || $device != 0x4e48 ]]; then
    echo "bind-vfio: warning: $bdf is ${vendor#0x}:${device#0x}, not a homa-nic (10ee:4e48); binding anyway" >&2
fi

[[ -e $dev/iommu_group ]] ||
    die "$bdf has no IOMMU group: enable VT-d/AMD-Vi in the firmware and add intel_iommu=on (or amd_iommu=on) to the kernel command line, then reboot"
group=$(basename "$(readlink "$dev/iommu_group")")

if [[ ! -d /sys/bus/pci/drivers/vfio-pci ]]; then
    modprobe vfio-pci || die "cannot load vfio-pci: install the kernel's vfio modules (linux-modules-extra on some distributions)"
fi

current=""
if [[ -e $dev/driver ]]; then
    current=$(basename "$(readlink "$dev/driver")")
fi
if [[ $current == vfio-pci ]]; then
    echo "bind-vfio: $bdf is already bound to vfio-pci (group $group)"
else
    if [[ -n $current ]]; then
        echo "bind-vfio: unbinding $bdf from $current"
        echo "$bdf" >"$dev/driver/unbind"
    fi
    echo vfio-pci >"$dev/driver_override"
    echo "$bdf" >/sys/bus/pci/drivers_probe
    bound=""
    if [[ -e $dev/driver ]]; then
        bound=$(basename "$(readlink "$dev/driver")")
    fi
    [[ $bound == vfio-pci ]] || die "vfio-pci did not take $bdf (driver now: '${bound:-none}'); see dmesg"
    echo "bind-vfio: $bdf bound to vfio-pci (group $group)"
fi

# VFIO hands out whole groups: every other device in the group must be unbound or on vfio-pci.
for other in /sys/kernel/iommu_groups/"$group"/devices/*; do
    o=$(basename "$other")
    [[ $o == "$bdf" ]] && continue
    d=""
    if [[ -e $other/driver ]]; then
        d=$(basename "$(readlink "$other/driver")")
    fi
    if [[ -n $d && $d != vfio-pci ]]; then
        echo "bind-vfio: warning: $o shares IOMMU group $group and is bound to $d; bind it too: $0 $o" >&2
    fi
done

[[ -e /dev/vfio/$group ]] || die "/dev/vfio/$group did not appear; see dmesg"
echo "bind-vfio: ready: homa-nic probe --pci $bdf"
