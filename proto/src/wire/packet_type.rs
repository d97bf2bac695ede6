//! The Homa packet type byte (common header byte 11).

/// Declares [`PacketType`] with its values, names and header lengths in one table, so that a
/// new type cannot be added in one place and forgotten in another.
macro_rules! packet_types {
    ($($(#[$doc:meta])* $variant:ident = $value:literal, $name:literal, $len:expr;)*) => {
        /// A Homa packet type, with a catch-all for values outside the current format.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum PacketType {
            $($(#[$doc])* $variant,)*
            /// Any other value: rejected by the parser as `BadType`.
            Unknown(u8),
        }

        impl From<u8> for PacketType {
            fn from(v: u8) -> Self {
                match v {
                    $($value => PacketType::$variant,)*
                    other => PacketType::Unknown(other),
                }
            }
        }

        impl From<PacketType> for u8 {
            fn from(t: PacketType) -> u8 {
                match t {
                    $(PacketType::$variant => $value,)*
                    PacketType::Unknown(v) => v,
                }
            }
        }

        impl PacketType {
            /// Every known type, in wire-value order.
            pub const ALL: &'static [PacketType] = &[$(PacketType::$variant,)*];

            /// The name HomaModule and SPEC §1.4 use, e.g. `"RPC_UNKNOWN"`.
            pub const fn name(self) -> &'static str {
                match self {
                    $(PacketType::$variant => $name,)*
                    PacketType::Unknown(_) => "UNKNOWN_TYPE",
                }
            }

            /// The header length of this type, common header included (`None` if unknown).
            pub const fn header_len(self) -> Option<usize> {
                match self {
                    $(PacketType::$variant => Some($len),)*
                    PacketType::Unknown(_) => None,
                }
            }
        }
    };
}

use super::homa::field;

packet_types! {
    /// Message bytes (either direction).
    Data = 0x10, "DATA", field::DATA_HEADER_LEN;
    /// Receiver to sender: you may send up to `offset`, at `priority`.
    Grant = 0x11, "GRANT", field::GRANT_LEN;
    /// Receiver to sender: retransmit a byte range.
    Resend = 0x12, "RESEND", field::RESEND_LEN;
    /// Reply to a RESEND for an RPC the node does not know.
    RpcUnknown = 0x13, "RPC_UNKNOWN", field::COMMON_LEN;
    /// Reply to a RESEND: alive, but not sending now.
    Busy = 0x14, "BUSY", field::COMMON_LEN;
    /// Receiver to sender: unscheduled priority cutoffs.
    Cutoffs = 0x15, "CUTOFFS", field::CUTOFFS_LEN;
    /// Debugging: freeze the time trace.
    Freeze = 0x16, "FREEZE", field::COMMON_LEN;
    /// Server to client: please acknowledge this RPC.
    NeedAck = 0x17, "NEED_ACK", field::COMMON_LEN;
    /// Client to server: these RPCs' responses were received.
    Ack = 0x18, "ACK", field::ACK_LEN;
}

impl core::fmt::Display for PacketType {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            PacketType::Unknown(v) => write!(f, "UNKNOWN_TYPE(0x{v:02x})"),
            known => f.write_str(known.name()),
        }
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn from_u8__roundtrips_every_value() {
        for v in 0..=255u8 {
            assert_eq!(u8::from(PacketType::from(v)), v);
        }
    }

    #[test]
    fn header_len__matches_spec_table() {
        let lens: Vec<_> = PacketType::ALL
            .iter()
            .map(|t| (u8::from(*t), t.name(), t.header_len().unwrap()))
            .collect();
        assert_eq!(
            lens,
            [
                (0x10, "DATA", 56),
                (0x11, "GRANT", 33),
                (0x12, "RESEND", 37),
                (0x13, "RPC_UNKNOWN", 28),
                (0x14, "BUSY", 28),
                (0x15, "CUTOFFS", 62),
                (0x16, "FREEZE", 28),
                (0x17, "NEED_ACK", 28),
                (0x18, "ACK", 80),
            ]
        );
        assert_eq!(PacketType::from(0x19).header_len(), None);
    }
}
