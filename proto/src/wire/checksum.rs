//! The Internet checksum (RFC 1071) and the offload capabilities that decide who computes it.

/// Which checksums software verifies on receive and computes on transmit.
///
/// Only the IPv4 header checksum is in play: Homa over IP protocol 146 carries no checksum
/// that anyone verifies (SPEC §1.1). With a NIC that checks and fills IPv4 checksums, the host
/// passes [`ChecksumCapabilities::ignored`] so that neither side does the work twice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChecksumCapabilities {
    /// Verify the IPv4 header checksum on parse.
    pub ipv4_rx: bool,
    /// Compute the IPv4 header checksum on emit (otherwise the field is left 0).
    pub ipv4_tx: bool,
}

impl Default for ChecksumCapabilities {
    fn default() -> Self {
        ChecksumCapabilities {
            ipv4_rx: true,
            ipv4_tx: true,
        }
    }
}

impl ChecksumCapabilities {
    /// Neither verify nor compute: the NIC does it, or the bytes come from a fuzzer.
    pub const fn ignored() -> Self {
        ChecksumCapabilities {
            ipv4_rx: false,
            ipv4_tx: false,
        }
    }
}

/// The one's-complement sum of `data` folded to 16 bits, not yet inverted.
pub(crate) fn sum(data: &[u8]) -> u16 {
    let mut acc: u32 = 0;
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        acc += u32::from(u16::from_be_bytes([c[0], c[1]]));
    }
    if let [last] = chunks.remainder() {
        acc += u32::from(*last) << 8;
    }
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    acc as u16
}

/// The Internet checksum of `data`: the complement of [`sum`].
pub(crate) fn checksum(data: &[u8]) -> u16 {
    !sum(data)
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn checksum__rfc1071_example() {
        // RFC 1071 §3: the sum of 0001 f203 f4f5 f6f7 is ddf2.
        let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(sum(&data), 0xddf2);
        assert_eq!(checksum(&data), !0xddf2);
    }

    #[test]
    fn sum__odd_length_pads_with_zero() {
        assert_eq!(sum(&[0x12]), 0x1200);
        assert_eq!(sum(&[0x12, 0x34, 0x56]), 0x1234 + 0x5600);
    }
}
