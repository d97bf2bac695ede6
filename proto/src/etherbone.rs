//! Etherbone: Wishbone bus cycles carried in UDP (CERN's Etherbone specification, as LiteX's
//! `liteeth` core and `litex_server` speak it). The open-flow board reaches the NIC core's
//! register bus and its memory through it.
//!
//! A packet is an 8-byte header and records, every field big-endian:
//!
//! ```text
//!  0       2        3        4             8
//!  ┌───────┬────────┬────────┬─────────────┐
//!  │ 4e 6f │ V N R F│ A4 | P4│ padding (0) │   V: version 1 (high nibble), N: no reads,
//!  └───────┴────────┴────────┴─────────────┘   R: probe reply, F: probe; A, P: address and
//!  record: flags, byte enables, wcount, rcount   port sizes (0x4: 32 bits)
//!          [base write address, wcount values]  writes: value i to base + 4 i
//!          [base return address, rcount addrs]  reads: answered as writes to the return base
//! ```
//!
//! The device answers a read record with a record of writes: the values read, at the
//! request's return address. Only 32-bit addresses and data are used (`0x44`); at most 255
//! words a record. [`Packet::encode`] and [`Packet::decode`] are exact inverses on valid
//! packets, and `decode` refuses anything else with the reason.

use thiserror::Error;

/// UDP port of an Etherbone endpoint.
pub const PORT: u16 = 1234;
/// The magic number that opens every packet.
pub const MAGIC: u16 = 0x4e6f;
/// The protocol version this speaks.
pub const VERSION: u8 = 1;
/// Address and port sizes: 32 bits each (`0x4` in each nibble).
pub const SIZES_32: u8 = 0x44;
/// Bytes of the packet header with 32-bit sizes.
pub const HEADER_LEN: usize = 8;
/// Bytes of a record's header.
pub const RECORD_HEADER_LEN: usize = 4;
/// Most writes, or reads, in one record.
pub const MAX_WORDS: usize = 255;
/// Byte enables of a whole 32-bit word.
pub const WORD_ENABLE: u8 = 0x0f;

/// Where an open-flow board top puts the NIC on its Wishbone bus, as a host reaches it over
/// Etherbone: the core's register space (BAR0's 64 KiB: registers, then the on-chip TX
/// memory's push areas) and a window of the board's memory that the core reaches by DMA,
/// standing in for host memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoardMap {
    /// Bus address of BAR0 offset 0.
    pub regs_base: u32,
    /// Bus address of the DMA window's first byte.
    pub mem_base: u32,
    /// Bytes of the window.
    pub mem_len: u32,
    /// The address the core's DMA uses for the window's first byte (descriptors and ring
    /// registers carry these).
    pub dma_base: u64,
}

impl BoardMap {
    /// The board tops' map: registers at 0x8000_0000; 128 MiB of board memory at LiteX's
    /// `main_ram` origin, 0x4000_0000, which the core addresses from 0.
    pub const DEFAULT: BoardMap = BoardMap {
        regs_base: 0x8000_0000,
        mem_base: 0x4000_0000,
        mem_len: 128 << 20,
        dma_base: 0,
    };

    /// Bytes of the register space (BAR0).
    pub const REGS_LEN: u32 = 0x1_0000;
}

const FLAG_NO_READS: u8 = 1 << 2;
const FLAG_PROBE_REPLY: u8 = 1 << 1;
const FLAG_PROBE: u8 = 1 << 0;

/// Why bytes are not an Etherbone packet this side can use.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EtherboneError {
    /// Fewer bytes than a header.
    #[error("an Etherbone packet has at least {HEADER_LEN} bytes, this one {0}")]
    Short(usize),
    /// The first two bytes are not [`MAGIC`].
    #[error("not an Etherbone packet: magic {0:#06x}, expected 0x4e6f")]
    Magic(u16),
    /// Another protocol version.
    #[error("Etherbone version {0}, this speaks version 1")]
    Version(u8),
    /// Addresses or data other than 32 bits.
    #[error(
        "Etherbone address/port sizes {0:#04x}: only 32-bit buses (0x44) are spoken here; \
         build the endpoint with a 32-bit Wishbone"
    )]
    Sizes(u8),
    /// A record runs past the end of the packet.
    #[error("Etherbone record {record} is cut short: it needs {need} bytes, {have} are left")]
    Truncated {
        /// The record's index.
        record: usize,
        /// Bytes it needs.
        need: usize,
        /// Bytes left in the packet.
        have: usize,
    },
    /// More than [`MAX_WORDS`] writes or reads in one record.
    #[error(
        "an Etherbone record carries at most {MAX_WORDS} writes and {MAX_WORDS} reads, not {0}"
    )]
    TooManyWords(usize),
}

/// Writes of consecutive words: `values[i]` to `base + 4 i`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Writes {
    /// Byte address of the first word.
    pub base: u32,
    /// The words.
    pub values: Vec<u32>,
}

/// Reads of words at any addresses, answered as writes to `ret_base`, `ret_base + 4`, ...
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reads {
    /// Where the answer's writes go (the requester's own address space).
    pub ret_base: u32,
    /// Byte addresses of the words to read.
    pub addrs: Vec<u32>,
}

/// One record: writes, then reads, under one set of byte enables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The flags byte (BCA, RCA, RFF, CYC, WCA, WFF), 0 for plain bus cycles.
    pub flags: u8,
    /// Byte enables of every access ([`WORD_ENABLE`]: whole words).
    pub byte_enable: u8,
    /// The writes (empty: none).
    pub writes: Writes,
    /// The reads (empty: none).
    pub reads: Reads,
}

impl Record {
    /// A record that neither writes nor reads (4 zero bytes: padding).
    pub fn empty() -> Record {
        Record {
            flags: 0,
            byte_enable: 0,
            writes: Writes::default(),
            reads: Reads::default(),
        }
    }

    /// Writes of `values` to consecutive words from `base`.
    pub fn write(base: u32, values: Vec<u32>) -> Record {
        Record {
            flags: 0,
            byte_enable: WORD_ENABLE,
            writes: Writes { base, values },
            reads: Reads::default(),
        }
    }

    /// Reads of the words at `addrs`, answered to `ret_base`.
    pub fn read(ret_base: u32, addrs: Vec<u32>) -> Record {
        Record {
            flags: 0,
            byte_enable: WORD_ENABLE,
            writes: Writes::default(),
            reads: Reads { ret_base, addrs },
        }
    }

    fn encoded_len(&self) -> usize {
        let part = |n: usize| if n == 0 { 0 } else { 4 * (n + 1) };
        RECORD_HEADER_LEN + part(self.writes.values.len()) + part(self.reads.addrs.len())
    }
}

/// An Etherbone packet.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Packet {
    /// A probe (the endpoint answers with `probe_reply`).
    pub probe: bool,
    /// The answer to a probe.
    pub probe_reply: bool,
    /// The packet has no reads (set by an endpoint on its answers).
    pub no_reads: bool,
    /// The records.
    pub records: Vec<Record>,
}

impl Packet {
    /// A packet of one record.
    pub fn of(record: Record) -> Packet {
        Packet {
            records: vec![record],
            ..Packet::default()
        }
    }

    /// A probe: an endpoint answers with a packet whose `probe_reply` is set. It carries one
    /// empty record (4 zero bytes), as LiteX's client pads it: an endpoint may drop a packet
    /// of a bare header.
    pub fn probe() -> Packet {
        Packet {
            probe: true,
            records: vec![Record::empty()],
            ..Packet::default()
        }
    }

    /// The packet's bytes, or [`EtherboneError::TooManyWords`].
    pub fn encode(&self) -> Result<Vec<u8>, EtherboneError> {
        let len = HEADER_LEN + self.records.iter().map(Record::encoded_len).sum::<usize>();
        let mut out = Vec::with_capacity(len);
        out.extend_from_slice(&MAGIC.to_be_bytes());
        let flags = (u8::from(self.no_reads) * FLAG_NO_READS)
            | (u8::from(self.probe_reply) * FLAG_PROBE_REPLY)
            | (u8::from(self.probe) * FLAG_PROBE);
        out.push(VERSION << 4 | flags);
        out.push(SIZES_32);
        out.extend_from_slice(&[0; 4]);
        for r in &self.records {
            let (w, n) = (r.writes.values.len(), r.reads.addrs.len());
            if w > MAX_WORDS || n > MAX_WORDS {
                return Err(EtherboneError::TooManyWords(w.max(n)));
            }
            out.extend_from_slice(&[r.flags, r.byte_enable, w as u8, n as u8]);
            if w > 0 {
                out.extend_from_slice(&r.writes.base.to_be_bytes());
                r.writes
                    .values
                    .iter()
                    .for_each(|v| out.extend_from_slice(&v.to_be_bytes()));
            }
            if n > 0 {
                out.extend_from_slice(&r.reads.ret_base.to_be_bytes());
                r.reads
                    .addrs
                    .iter()
                    .for_each(|a| out.extend_from_slice(&a.to_be_bytes()));
            }
        }
        Ok(out)
    }

    /// Parses a packet (trailing bytes shorter than a record header are padding).
    pub fn decode(bytes: &[u8]) -> Result<Packet, EtherboneError> {
        if bytes.len() < HEADER_LEN {
            return Err(EtherboneError::Short(bytes.len()));
        }
        let magic = u16::from_be_bytes([bytes[0], bytes[1]]);
        if magic != MAGIC {
            return Err(EtherboneError::Magic(magic));
        }
        if bytes[2] >> 4 != VERSION {
            return Err(EtherboneError::Version(bytes[2] >> 4));
        }
        if bytes[3] != SIZES_32 {
            return Err(EtherboneError::Sizes(bytes[3]));
        }
        let mut p = Packet {
            probe: bytes[2] & FLAG_PROBE != 0,
            probe_reply: bytes[2] & FLAG_PROBE_REPLY != 0,
            no_reads: bytes[2] & FLAG_NO_READS != 0,
            records: Vec::new(),
        };
        let mut at = HEADER_LEN;
        while bytes.len() - at >= RECORD_HEADER_LEN {
            let h = &bytes[at..at + RECORD_HEADER_LEN];
            let (w, n) = (usize::from(h[2]), usize::from(h[3]));
            let part = |k: usize| if k == 0 { 0 } else { 4 * (k + 1) };
            let need = RECORD_HEADER_LEN + part(w) + part(n);
            if bytes.len() - at < need {
                return Err(EtherboneError::Truncated {
                    record: p.records.len(),
                    need,
                    have: bytes.len() - at,
                });
            }
            let word = |i: usize| {
                u32::from_be_bytes(bytes[i..i + 4].try_into().expect("four bytes in range"))
            };
            let mut i = at + RECORD_HEADER_LEN;
            let mut record = Record {
                flags: h[0],
                byte_enable: h[1],
                writes: Writes::default(),
                reads: Reads::default(),
            };
            if w > 0 {
                record.writes.base = word(i);
                record.writes.values = (0..w).map(|k| word(i + 4 + 4 * k)).collect();
                i += 4 * (w + 1);
            }
            if n > 0 {
                record.reads.ret_base = word(i);
                record.reads.addrs = (0..n).map(|k| word(i + 4 + 4 * k)).collect();
            }
            p.records.push(record);
            at += need;
        }
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    #![allow(non_snake_case)]
    use super::*;
    use proptest::prelude::*;

    /// A read of one word at 0xe0005818, in the specification's layout (LiteX's remote
    /// client sends these bytes).
    #[test]
    fn encode__a_single_read_is_byte_exact() {
        let p = Packet::of(Record::read(0, vec![0xe000_5818]));
        assert_eq!(
            hex::encode(p.encode().unwrap()),
            "4e6f104400000000000f000100000000e0005818"
        );
    }

    #[test]
    fn encode__a_single_write_is_byte_exact() {
        let p = Packet::of(Record::write(0xe000_a024, vec![0]));
        assert_eq!(
            hex::encode(p.encode().unwrap()),
            "4e6f104400000000000f0100e000a02400000000"
        );
    }

    #[test]
    fn decode__refuses_what_is_not_a_32_bit_etherbone_packet() {
        let good = Packet::of(Record::write(4, vec![1, 2])).encode().unwrap();
        assert_eq!(Packet::decode(&good[..7]), Err(EtherboneError::Short(7)));
        let mut bad = good.clone();
        bad[0] = 0x4f;
        assert_eq!(Packet::decode(&bad), Err(EtherboneError::Magic(0x4f6f)));
        let mut bad = good.clone();
        bad[2] = 0x20;
        assert_eq!(Packet::decode(&bad), Err(EtherboneError::Version(2)));
        let mut bad = good.clone();
        bad[3] = 0x88;
        assert_eq!(Packet::decode(&bad), Err(EtherboneError::Sizes(0x88)));
        assert_eq!(
            Packet::decode(&good[..good.len() - 1]),
            Err(EtherboneError::Truncated {
                record: 0,
                need: 16,
                have: 15
            })
        );
        let many = Packet::of(Record::read(0, vec![0; 256]));
        assert_eq!(many.encode(), Err(EtherboneError::TooManyWords(256)));
    }

    #[test]
    fn decode__probe_flags_survive() {
        let reply = Packet {
            probe_reply: true,
            no_reads: true,
            ..Packet::default()
        };
        let back = Packet::decode(&reply.encode().unwrap()).unwrap();
        assert_eq!(back, reply);
        let probe = Packet::probe().encode().unwrap();
        assert_eq!(
            hex::encode(&probe),
            "4e6f11440000000000000000",
            "padded as LiteX pads it"
        );
        assert!(Packet::decode(&probe).unwrap().probe);
    }

    fn record() -> impl Strategy<Value = Record> {
        (
            any::<u8>(),
            any::<u8>(),
            any::<u32>(),
            proptest::collection::vec(any::<u32>(), 0..20),
            any::<u32>(),
            proptest::collection::vec(any::<u32>(), 0..20),
        )
            .prop_map(
                |(flags, byte_enable, base, values, ret_base, addrs)| Record {
                    flags,
                    byte_enable,
                    writes: Writes {
                        base: if values.is_empty() { 0 } else { base },
                        values,
                    },
                    reads: Reads {
                        ret_base: if addrs.is_empty() { 0 } else { ret_base },
                        addrs,
                    },
                },
            )
    }

    proptest! {
        #[test]
        fn decode__inverts_encode(
            records in proptest::collection::vec(record(), 0..4),
            probe: bool,
            probe_reply: bool,
            no_reads: bool,
        ) {
            let p = Packet { probe, probe_reply, no_reads, records };
            prop_assert_eq!(Packet::decode(&p.encode().unwrap()).unwrap(), p);
        }

        #[test]
        fn decode__never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = Packet::decode(&bytes);
        }
    }
}
