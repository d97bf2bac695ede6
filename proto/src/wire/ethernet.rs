//! Ethernet II header with an optional 802.1Q VLAN tag.
//!
//! ```text
//!  0      6      12         14          16         18
//!  +------+------+----------+-----------+----------+---------
//!  | dst  | src  | 0x8100   | TCI       | EtherType| payload      (tagged)
//!  | dst  | src  | EtherType| payload ...                         (untagged)
//! ```
//!
//! Homa on Linux (since May 2020) and on this NIC carries its priority in the IP header, not in
//! the VLAN PCP bits; a tag is parsed and kept, not interpreted.

use super::{Error, Layer, Reason, Result, be16};
use core::fmt;

/// Byte ranges of the Ethernet header.
pub mod field {
    use crate::wire::Field;
    /// Destination MAC address.
    pub const DESTINATION: Field = 0..6;
    /// Source MAC address.
    pub const SOURCE: Field = 6..12;
    /// EtherType, or the TPID 0x8100 of an 802.1Q tag.
    pub const ETHERTYPE: Field = 12..14;
    /// Tag control information (PCP, DEI, VID) when tagged.
    pub const VLAN_TCI: Field = 14..16;
    /// The inner EtherType when tagged.
    pub const VLAN_ETHERTYPE: Field = 16..18;
    /// Header length without a tag.
    pub const HEADER_LEN: usize = 14;
    /// Header length with one 802.1Q tag.
    pub const TAGGED_HEADER_LEN: usize = 18;
}

/// An EtherType value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EtherType(pub u16);

impl EtherType {
    /// IPv4.
    pub const IPV4: EtherType = EtherType(0x0800);
    /// IPv6.
    pub const IPV6: EtherType = EtherType(0x86dd);
    /// An 802.1Q VLAN tag follows.
    pub const VLAN: EtherType = EtherType(0x8100);
    /// An 802.1ad service tag (QinQ); not supported.
    pub const QINQ: EtherType = EtherType(0x88a8);
}

/// A 48-bit MAC address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct EthernetAddress(pub [u8; 6]);

impl fmt::Display for EthernetAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        write!(
            f,
            "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
            b[0], b[1], b[2], b[3], b[4], b[5]
        )
    }
}

/// A zero-copy view of an Ethernet header and what follows it.
#[derive(Debug, Clone)]
pub struct EthernetFrame<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> EthernetFrame<T> {
    /// Wraps `buffer` without checks; see the module's panic contract.
    pub const fn new_unchecked(buffer: T) -> Self {
        EthernetFrame { buffer }
    }

    /// Wraps `buffer` after [`check_len`](Self::check_len).
    pub fn new_checked(buffer: T) -> Result<Self> {
        let frame = Self::new_unchecked(buffer);
        frame.check_len()?;
        Ok(frame)
    }

    /// Checks that the whole header, tag included, is in the buffer, and that at most one
    /// tag is present.
    pub fn check_len(&self) -> Result<()> {
        let len = self.buffer.as_ref().len();
        if len < field::HEADER_LEN {
            return Err(Error::new(Layer::Ethernet, Reason::Truncated));
        }
        let outer = EtherType(be16(self.buffer.as_ref(), field::ETHERTYPE));
        if outer == EtherType::QINQ {
            return Err(Error::new(Layer::Ethernet, Reason::Unsupported));
        }
        if outer == EtherType::VLAN {
            if len < field::TAGGED_HEADER_LEN {
                return Err(Error::new(Layer::Ethernet, Reason::Truncated));
            }
            let inner = self.ethertype();
            if inner == EtherType::VLAN || inner == EtherType::QINQ {
                return Err(Error::new(Layer::Ethernet, Reason::Unsupported));
            }
        }
        Ok(())
    }

    /// Returns the underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The destination address.
    pub fn dst_addr(&self) -> EthernetAddress {
        let mut a = [0u8; 6];
        a.copy_from_slice(&self.buffer.as_ref()[field::DESTINATION]);
        EthernetAddress(a)
    }

    /// The source address.
    pub fn src_addr(&self) -> EthernetAddress {
        let mut a = [0u8; 6];
        a.copy_from_slice(&self.buffer.as_ref()[field::SOURCE]);
        EthernetAddress(a)
    }

    /// The 802.1Q tag, if the frame carries one.
    pub fn vlan(&self) -> Option<VlanTag> {
        let buf = self.buffer.as_ref();
        (EtherType(be16(buf, field::ETHERTYPE)) == EtherType::VLAN)
            .then(|| VlanTag::from_tci(be16(buf, field::VLAN_TCI)))
    }

    /// The EtherType of the payload (the inner one when tagged).
    pub fn ethertype(&self) -> EtherType {
        let buf = self.buffer.as_ref();
        if self.vlan().is_some() {
            EtherType(be16(buf, field::VLAN_ETHERTYPE))
        } else {
            EtherType(be16(buf, field::ETHERTYPE))
        }
    }

    /// The header length: 14, or 18 with a tag.
    pub fn header_len(&self) -> usize {
        if self.vlan().is_some() {
            field::TAGGED_HEADER_LEN
        } else {
            field::HEADER_LEN
        }
    }

    /// The bytes after the header (including any padding to the 60-byte minimum).
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[self.header_len()..]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> EthernetFrame<T> {
    /// The bytes after the header, writable.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let start = self.header_len();
        &mut self.buffer.as_mut()[start..]
    }
}

/// An 802.1Q tag: priority code point, drop-eligible bit and VLAN id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VlanTag {
    /// Priority code point (3 bits).
    pub pcp: u8,
    /// Drop-eligible indicator.
    pub dei: bool,
    /// VLAN identifier (12 bits).
    pub vid: u16,
}

impl VlanTag {
    /// Splits a tag control information word.
    pub const fn from_tci(tci: u16) -> Self {
        VlanTag {
            pcp: (tci >> 13) as u8,
            dei: tci & 0x1000 != 0,
            vid: tci & 0x0fff,
        }
    }

    /// Packs the tag into a tag control information word (extra bits are masked off).
    pub const fn tci(&self) -> u16 {
        ((self.pcp as u16 & 0x7) << 13) | ((self.dei as u16) << 12) | (self.vid & 0x0fff)
    }
}

/// The Ethernet header as plain values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EthernetRepr {
    /// Source address.
    pub src_addr: EthernetAddress,
    /// Destination address.
    pub dst_addr: EthernetAddress,
    /// The 802.1Q tag, if any.
    pub vlan: Option<VlanTag>,
    /// The payload's EtherType.
    pub ethertype: EtherType,
}

impl EthernetRepr {
    /// Reads the header of a checked frame.
    pub fn parse<T: AsRef<[u8]>>(frame: &EthernetFrame<T>) -> Result<Self> {
        frame.check_len()?;
        Ok(EthernetRepr {
            src_addr: frame.src_addr(),
            dst_addr: frame.dst_addr(),
            vlan: frame.vlan(),
            ethertype: frame.ethertype(),
        })
    }

    /// The header's length on the wire.
    pub const fn buffer_len(&self) -> usize {
        match self.vlan {
            Some(_) => field::TAGGED_HEADER_LEN,
            None => field::HEADER_LEN,
        }
    }

    /// Writes the header at the start of `buf` (at least [`buffer_len`](Self::buffer_len)
    /// bytes long).
    pub fn emit(&self, buf: &mut [u8]) {
        buf[field::DESTINATION].copy_from_slice(&self.dst_addr.0);
        buf[field::SOURCE].copy_from_slice(&self.src_addr.0);
        match self.vlan {
            Some(tag) => {
                buf[field::ETHERTYPE].copy_from_slice(&EtherType::VLAN.0.to_be_bytes());
                buf[field::VLAN_TCI].copy_from_slice(&tag.tci().to_be_bytes());
                buf[field::VLAN_ETHERTYPE].copy_from_slice(&self.ethertype.0.to_be_bytes());
            }
            None => buf[field::ETHERTYPE].copy_from_slice(&self.ethertype.0.to_be_bytes()),
        }
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    static UNTAGGED: [u8; 14] = [0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00];
    static TAGGED: [u8; 18] = [
        0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x81, 0x00, 0xa0, 0x64, 0x86, 0xdd,
    ];

    #[test]
    fn parse__untagged() {
        let f = EthernetFrame::new_checked(&UNTAGGED[..]).unwrap();
        let r = EthernetRepr::parse(&f).unwrap();
        assert_eq!(r.dst_addr.to_string(), "02:00:00:00:00:02");
        assert_eq!(r.src_addr.to_string(), "02:00:00:00:00:01");
        assert_eq!(r.vlan, None);
        assert_eq!(r.ethertype, EtherType::IPV4);
        assert_eq!(f.header_len(), 14);
    }

    #[test]
    fn parse__tagged() {
        let f = EthernetFrame::new_checked(&TAGGED[..]).unwrap();
        let r = EthernetRepr::parse(&f).unwrap();
        assert_eq!(
            r.vlan,
            Some(VlanTag {
                pcp: 5,
                dei: false,
                vid: 100
            })
        );
        assert_eq!(r.ethertype, EtherType::IPV6);
        let mut out = [0xa5u8; 18];
        r.emit(&mut out);
        assert_eq!(out, TAGGED);
    }

    #[test]
    fn check_len__truncated_and_stacked_tags() {
        let err = EthernetFrame::new_checked(&TAGGED[..16]).unwrap_err();
        assert_eq!(err, Error::new(Layer::Ethernet, Reason::Truncated));
        let mut qinq = TAGGED;
        qinq[16..18].copy_from_slice(&[0x81, 0x00]);
        let err = EthernetFrame::new_checked(&qinq[..]).unwrap_err();
        assert_eq!(err.reason, Reason::Unsupported);
    }
}
