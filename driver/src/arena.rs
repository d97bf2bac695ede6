//! [`Arena`]: first-fit allocation of byte ranges in one DMA region, for the payloads a host
//! posts in TX descriptors (each freed when its `TX_DONE` comes back, in any order).

use std::collections::BTreeMap;

/// Byte ranges of a region of `len` bytes: allocated, and free (coalesced).
#[derive(Debug, Clone)]
pub struct Arena {
    /// Free ranges: start → length, never adjacent.
    free: BTreeMap<u64, u64>,
    /// Allocated ranges: start → length.
    used: BTreeMap<u64, u64>,
    /// Every allocation is a multiple of this (cache lines).
    align: u64,
}

impl Arena {
    /// An empty arena over `[0, len)`, allocating in multiples of 64 bytes.
    pub fn new(len: u64) -> Self {
        let mut free = BTreeMap::new();
        if len > 0 {
            free.insert(0, len);
        }
        Arena {
            free,
            used: BTreeMap::new(),
            align: 64,
        }
    }

    /// The start of `len` free bytes (the lowest that fit), now allocated; `None` when no
    /// free range holds them.
    pub fn alloc(&mut self, len: u64) -> Option<u64> {
        let len = len.max(1).div_ceil(self.align) * self.align;
        let (&start, &have) = self.free.iter().find(|(_, l)| **l >= len)?;
        self.free.remove(&start);
        if have > len {
            self.free.insert(start + len, have - len);
        }
        self.used.insert(start, len);
        Some(start)
    }

    /// Frees the allocation at `start`; false if there is none.
    pub fn free(&mut self, start: u64) -> bool {
        let Some(len) = self.used.remove(&start) else {
            return false;
        };
        // Merged with the free ranges just after and just before it.
        let (mut at, mut end) = (start, start + len);
        if let Some(next) = self.free.remove(&end) {
            end += next;
        }
        if let Some((&p, &pl)) = self.free.range(..start).next_back()
            && p + pl == start
        {
            self.free.remove(&p);
            at = p;
        }
        self.free.insert(at, end - at);
        true
    }

    /// Bytes allocated now.
    pub fn in_use(&self) -> u64 {
        self.used.values().sum()
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn arena__first_fit_reuse_and_coalescing() {
        let mut a = Arena::new(1024);
        let x = a.alloc(100).unwrap();
        let y = a.alloc(64).unwrap();
        let z = a.alloc(300).unwrap();
        assert_eq!((x, y, z), (0, 128, 192));
        assert_eq!(a.alloc(600), None, "only 1024 - 512 left");
        assert!(a.free(y));
        assert!(!a.free(y), "twice");
        assert_eq!(a.alloc(1), Some(128), "the hole is reused");
        assert!(a.free(128));
        assert!(a.free(x));
        assert!(a.free(z));
        assert_eq!(a.in_use(), 0);
        assert_eq!(a.alloc(1024), Some(0), "all of it coalesced again");
    }

    #[test]
    fn arena__random_frees_never_overlap() {
        let mut a = Arena::new(64 * 1000);
        let mut live: Vec<(u64, u64)> = Vec::new();
        let mut x = 7u64;
        for _ in 0..5000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            if x >> 60 < 9 || live.is_empty() {
                let len = 1 + (x >> 20) % 3000;
                if let Some(at) = a.alloc(len) {
                    assert!(live.iter().all(|&(s, l)| at + len <= s || s + l <= at));
                    assert!(at + len <= 64 * 1000);
                    live.push((at, len));
                }
            } else {
                let (s, _) = live.swap_remove((x >> 8) as usize % live.len());
                assert!(a.free(s));
            }
        }
        for (s, _) in live.drain(..) {
            assert!(a.free(s));
        }
        assert_eq!(a.alloc(64 * 1000), Some(0));
    }
}
