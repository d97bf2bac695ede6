//! The two hash functions of a key (peer, RPC id), shared by the transmit park (a bucket of
//! each half of its key table, [`crate::tx_park`]) and the inbound message table (a place in
//! each of its two ways, [`crate::msg_table::places`]). Each folds the id's and the peer's bits into 9 by XOR of 9-bit slices (every bit
//! takes part), then mixes them as `id_fold + mul * peer_fold` modulo 512, the product as
//! shifts and adds. The two differ in their slices and multiplier, so keys that share one
//! bucket rarely share the other ([`bucket_of`] is the model; a test holds the hardware to it).

use crate::hdl::*;

/// Bits of a bucket index: 512 buckets per half of the park's key table, or per way of the
/// message table.
pub const BUCKET_BITS: usize = 9;

/// A hash: where the id's slices start, where the peer's start, the multiplier (odd).
#[derive(Clone, Copy, Debug)]
pub struct HashSpec {
    /// Bit offsets of the id's eight 9-bit slices.
    pub id_at: [u32; 8],
    /// Bit offsets of the peer's four 9-bit slices.
    pub peer_at: [u32; 4],
    /// The peer fold's multiplier (odd; at most 8 bits set above bit 0 among bits 1..9).
    pub mul: u32,
}

/// The first choice's hash.
pub const H0: HashSpec = HashSpec {
    id_at: [0, 8, 16, 24, 32, 40, 48, 55],
    peer_at: [0, 9, 18, 23],
    mul: 0b10_0101_1011,
};

/// The second choice's hash.
pub const H1: HashSpec = HashSpec {
    id_at: [0, 5, 14, 23, 32, 41, 50, 55],
    peer_at: [0, 5, 14, 23],
    mul: 181,
};

/// The bucket a key hashes to under `h` (the hardware's hash, restated).
pub fn bucket_of(h: &HashSpec, peer: u32, id: u64) -> usize {
    let m = (1u64 << BUCKET_BITS) - 1;
    let fold = |x: u64, at: &[u32]| at.iter().fold(0, |a, &s| a ^ ((x >> s) & m));
    let id_fold = fold(id, &h.id_at);
    let peer_fold = fold(u64::from(peer), &h.peer_at);
    (id_fold.wrapping_add(peer_fold.wrapping_mul(u64::from(h.mul))) & m) as usize
}

/// The shifts of `mul`'s bits above bit 0 within the bucket width, padded with the width
/// itself (a shift that leaves nothing).
fn shifts(mul: u32) -> [u64; 8] {
    assert!(mul % 2 == 1, "the multiplier is odd");
    let mut out = [BUCKET_BITS as u64; 8];
    let set: Vec<u64> = (1..BUCKET_BITS as u64)
        .filter(|b| mul >> b & 1 == 1)
        .collect();
    out[..set.len()].copy_from_slice(&set);
    out
}

/// One hash function, combinational.
#[derive(LogicBlock)]
pub struct KeyHash {
    /// The key's peer.
    pub peer: Signal<In, Bits<32>>,
    /// The key's RPC id.
    pub id: Signal<In, Bits<64>>,
    /// Its bucket.
    pub bucket: Signal<Out, Bits<BUCKET_BITS>>,
    id_fold: Signal<Local, Bits<BUCKET_BITS>>,
    peer_fold: Signal<Local, Bits<BUCKET_BITS>>,
    c_id: [Constant<Bits<8>>; 8],
    c_peer: [Constant<Bits<8>>; 4],
    c_sh: [Constant<Bits<BUCKET_BITS>>; 8],
}

impl KeyHash {
    /// The hash `h`.
    pub fn new(h: &HashSpec) -> Self {
        let sh = shifts(h.mul);
        Self {
            peer: Signal::default(),
            id: Signal::default(),
            bucket: Signal::default(),
            id_fold: Signal::default(),
            peer_fold: Signal::default(),
            c_id: h.id_at.map(|a| Constant::new(u64::from(a).into())),
            c_peer: h.peer_at.map(|a| Constant::new(u64::from(a).into())),
            c_sh: sh.map(|s| Constant::new(s.into())),
        }
    }
}

impl core::fmt::Debug for KeyHash {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("KeyHash").finish_non_exhaustive()
    }
}

impl Logic for KeyHash {
    #[hdl_gen]
    fn update(&mut self) {
        self.id_fold.next = self
            .id
            .val()
            .get_bits::<BUCKET_BITS>(self.c_id[0].val().index())
            ^ self
                .id
                .val()
                .get_bits::<BUCKET_BITS>(self.c_id[1].val().index())
            ^ self
                .id
                .val()
                .get_bits::<BUCKET_BITS>(self.c_id[2].val().index())
            ^ self
                .id
                .val()
                .get_bits::<BUCKET_BITS>(self.c_id[3].val().index())
            ^ self
                .id
                .val()
                .get_bits::<BUCKET_BITS>(self.c_id[4].val().index())
            ^ self
                .id
                .val()
                .get_bits::<BUCKET_BITS>(self.c_id[5].val().index())
            ^ self
                .id
                .val()
                .get_bits::<BUCKET_BITS>(self.c_id[6].val().index())
            ^ self
                .id
                .val()
                .get_bits::<BUCKET_BITS>(self.c_id[7].val().index());
        self.peer_fold.next = self
            .peer
            .val()
            .get_bits::<BUCKET_BITS>(self.c_peer[0].val().index())
            ^ self
                .peer
                .val()
                .get_bits::<BUCKET_BITS>(self.c_peer[1].val().index())
            ^ self
                .peer
                .val()
                .get_bits::<BUCKET_BITS>(self.c_peer[2].val().index())
            ^ self
                .peer
                .val()
                .get_bits::<BUCKET_BITS>(self.c_peer[3].val().index());
        self.bucket.next = self.id_fold.val()
            + self.peer_fold.val()
            + (self.peer_fold.val() << self.c_sh[0].val())
            + (self.peer_fold.val() << self.c_sh[1].val())
            + (self.peer_fold.val() << self.c_sh[2].val())
            + (self.peer_fold.val() << self.c_sh[3].val())
            + (self.peer_fold.val() << self.c_sh[4].val())
            + (self.peer_fold.val() << self.c_sh[5].val())
            + (self.peer_fold.val() << self.c_sh[6].val())
            + (self.peer_fold.val() << self.c_sh[7].val());
    }
}

#[cfg(test)]
mod tests {
    #![allow(non_snake_case)]
    use super::*;

    #[test]
    fn key_hash__the_hardware_hashes_as_bucket_of_does() {
        let mut rng = crate::bench::Rng::new(11);
        for h in [H0, H1] {
            let mut uut = KeyHash::new(&h);
            uut.peer.connect();
            uut.id.connect();
            uut.connect_all();
            for _ in 0..2000 {
                let (p, x) = (rng.next_u64() as u32, rng.next_u64());
                uut.peer.next = u64::from(p).into();
                uut.id.next = x.into();
                assert!(simulate(&mut uut, 100), "settles");
                assert_eq!(
                    uut.bucket.val().index(),
                    bucket_of(&h, p, x),
                    "{h:?} {p:#x} {x:#x}"
                );
            }
        }
    }

    #[test]
    fn key_hash__every_bit_of_the_key_moves_both_buckets() {
        let (p, x) = (0x0a00_0102u32, 0x1234_5678_9abc_def0u64);
        for h in [H0, H1] {
            let b = bucket_of(&h, p, x);
            for bit in 0..64 {
                assert_ne!(bucket_of(&h, p, x ^ 1 << bit), b, "{h:?}: id bit {bit}");
            }
            for bit in 0..32 {
                assert_ne!(bucket_of(&h, p ^ 1 << bit, x), b, "{h:?}: peer bit {bit}");
            }
        }
    }
}
