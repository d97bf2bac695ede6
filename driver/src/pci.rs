//! PCI addresses (`domain:bus:device.function`).

use crate::{DriverError, Result};
use std::fmt;
use std::str::FromStr;

/// A PCI function address, as in `/sys/bus/pci/devices` and `lspci -D`: `0000:01:00.0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PciAddress {
    /// Domain (segment).
    pub domain: u16,
    /// Bus.
    pub bus: u8,
    /// Device (0-31).
    pub device: u8,
    /// Function (0-7).
    pub function: u8,
}

impl FromStr for PciAddress {
    type Err = DriverError;

    /// Parses `dddd:bb:dd.f` (hex); nothing else.
    fn from_str(s: &str) -> Result<PciAddress> {
        let bad = || DriverError::ParsePciAddress { bdf: s.to_string() };
        let hex = |part: &str, digits: usize| -> Result<u32> {
            if part.len() != digits || !part.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(bad());
            }
            u32::from_str_radix(part, 16).map_err(|_| bad())
        };
        let (domain, rest) = s.split_once(':').ok_or_else(bad)?;
        let (bus, rest) = rest.split_once(':').ok_or_else(bad)?;
        let (device, function) = rest.split_once('.').ok_or_else(bad)?;
        let domain = hex(domain, 4)?;
        let bus = hex(bus, 2)?;
        let device = hex(device, 2)?;
        let function = hex(function, 1)?;
        if device > 0x1f || function > 7 {
            return Err(bad());
        }
        Ok(PciAddress {
            domain: u16::try_from(domain).map_err(|_| bad())?,
            bus: u8::try_from(bus).map_err(|_| bad())?,
            device: u8::try_from(device).map_err(|_| bad())?,
            function: u8::try_from(function).map_err(|_| bad())?,
        })
    }
}

impl fmt::Display for PciAddress {
    /// The canonical form, lower-case: `0000:01:00.0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:04x}:{:02x}:{:02x}.{:x}",
            self.domain, self.bus, self.device, self.function
        )
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn from_str__canonical_round_trip() {
        let a: PciAddress = "0000:01:00.0".parse().unwrap();
        assert_eq!((a.domain, a.bus, a.device, a.function), (0, 1, 0, 0));
        assert_eq!(a.to_string(), "0000:01:00.0");
        let b: PciAddress = "ABCD:ff:1F.7".parse().unwrap();
        assert_eq!(b.to_string(), "abcd:ff:1f.7");
    }

    #[test]
    fn from_str__refuses_other_forms() {
        for s in [
            "01:00.0",
            "0000:01:00",
            "0000:01:20.0",
            "0000:01:00.8",
            "0000:1:00.0",
            "",
            "0000:01:00.0/",
            "../../x",
        ] {
            let e = s.parse::<PciAddress>().unwrap_err();
            assert!(matches!(e, DriverError::ParsePciAddress { .. }), "{s}");
            assert!(e.to_string().contains("e.g. 0000:01:00.0"));
        }
    }
}
