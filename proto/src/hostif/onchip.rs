//! On-chip TX memory: where the host may push its TX descriptors and the payloads of small
//! messages straight into the NIC, so that sending one costs no DMA read.
//!
//! A NIC that has it says so in QUEUE `tx_onchip_bytes` (the payload area's size; 0: none).
//! The memory is BAR0 from [`RING_OFFSET`]: the host writes it with posted, write-combined
//! stores (one PCIe write of 64 bytes per [`WORD`]), and the NIC reads it as if it were
//! host memory at IOVA [`IOVA`] + the BAR0 offset:
//!
//! ```text
//!  BAR0 offset        IOVA                    what
//!  0x8000 - 0x8fff    IOVA + 0x8000 ...       TX descriptor ring, 64 entries (tx_base = IOVA + 0x8000)
//!  0xc000 - 0xffff    IOVA + 0xc000 ...       payload area: a message's bytes from lane 26 of a word
//! ```
//!
//! Rules (what [`super::TxLimits::refusal`] and the hardware hold a descriptor to):
//! - A descriptor whose payload IOVA is on chip (its top 48 bits are `IOVA`'s) is one packet
//!   read from the payload area in one go: the IOVA's offset is in the payload area and
//!   ≡ [`PAYLOAD_LANE`] (mod 64), so that payload byte 0 sits where the DATA frame wants it;
//!   the message is at most `max_payload` bytes; a RETRANSMIT starts at offset 0; and the
//!   payload ends inside the area. Anything else on chip is refused with status 1 (out of
//!   bounds); the TX window does not apply on chip.
//! - A descriptor ring on chip (`tx_base` = `IOVA + RING_OFFSET`) holds at most
//!   [`RING_ENTRIES`] descriptors. A read of on-chip memory outside both areas returns zeros
//!   (a descriptor of zeros is refused) and is counted in QUEUE `tx_onchip_faults`.
//! - The payload of a message stays in place until its `TX_DONE` (or `ERROR`), as in host
//!   memory; the NIC never writes the area.

/// IOVA of BAR0 offset 0 as the NIC's readers see on-chip memory. The driver keeps host
/// memory below it (an IOMMU address space never reaches the top 128 KiB of 2^64), and
/// on-chip payloads never end at 2^64 (which the wrap rule refuses).
pub const IOVA: u64 = 0xffff_ffff_fffe_0000;

/// Bytes per push and per on-chip word (one write-combined PCIe store).
pub const WORD: usize = 64;

/// BAR0 offset of the TX descriptor ring area.
pub const RING_OFFSET: u32 = 0x8000;
/// TX descriptors the ring area holds (its `tx_log2_size` is at most 6).
pub const RING_ENTRIES: u32 = 64;
/// BAR0 offset of the payload area.
pub const PAYLOAD_OFFSET: u32 = 0xc000;
/// Bytes of the payload area (the value of QUEUE `tx_onchip_bytes` when present).
pub const PAYLOAD_BYTES: u32 = 0x4000;
/// Lane of a 64-byte word where payload byte 0 goes: the DATA frame's headers are 90 bytes,
/// so a frame's payload starts at lane 26 of its second beat.
pub const PAYLOAD_LANE: u32 = 26;

/// Whether `iova` names on-chip memory.
pub const fn is_onchip(iova: u64) -> bool {
    iova >> 16 == IOVA >> 16
}

/// The IOVA of BAR0 offset `offset` of on-chip memory.
pub const fn iova_of(offset: u32) -> u64 {
    IOVA | offset as u64
}

/// Whether a descriptor may read its payload of `message_length` bytes on chip at `iova`,
/// from `offset` (0 for a SEND_MESSAGE), in packets of at most `max_payload` bytes.
pub const fn payload_ok(iova: u64, message_length: u32, offset: u32, max_payload: u32) -> bool {
    let off = iova & 0xffff;
    off >= PAYLOAD_OFFSET as u64
        && off % WORD as u64 == PAYLOAD_LANE as u64
        && off + message_length as u64 <= PAYLOAD_OFFSET as u64 + PAYLOAD_BYTES as u64
        && offset == 0
        && message_length <= max_payload
}

/// BAR0 offset of the end of on-chip memory.
pub const END: u32 = PAYLOAD_OFFSET + PAYLOAD_BYTES;

/// Whether the NIC takes a push of `len` bytes at BAR0 `offset`: whole [`WORD`]s, at least
/// one, inside on-chip memory (`RING_OFFSET..END`).
pub const fn push_fits(offset: u32, len: usize) -> bool {
    let end = offset as u64 + len as u64;
    offset >= RING_OFFSET
        && offset.is_multiple_of(WORD as u32)
        && len > 0
        && len.is_multiple_of(WORD)
        && end <= END as u64
}

/// The words to push for a payload placed at `at` bytes into the payload area (a multiple
/// of [`WORD`]): [`PAYLOAD_LANE`] bytes of zeros, the payload, zeros to the end of its last
/// word. It goes to BAR0 `PAYLOAD_OFFSET + at`; its descriptor's payload IOVA is
/// [`payload_iova`]`(at)`.
pub fn payload_words(payload: &[u8]) -> Vec<u8> {
    let lane = PAYLOAD_LANE as usize;
    let mut words = vec![0; (lane + payload.len()).div_ceil(WORD) * WORD];
    words[lane..lane + payload.len()].copy_from_slice(payload);
    words
}

/// Bytes of the payload area a payload of `len` bytes takes (whole words, from lane 0).
pub const fn payload_footprint(len: usize) -> usize {
    (PAYLOAD_LANE as usize + len).div_ceil(WORD) * WORD
}

/// The payload IOVA of a payload placed at `at` bytes into the payload area.
pub const fn payload_iova(at: u32) -> u64 {
    iova_of(PAYLOAD_OFFSET + at + PAYLOAD_LANE)
}

/// The on-chip memory's section of `docs/hostif.md`.
pub(super) fn markdown() -> String {
    format!(
        "\n## On-chip TX memory\n\n\
         Present when QUEUE `tx_onchip_bytes` is not 0. The host writes it through BAR0 with \
         posted stores ({WORD} bytes per write-combined push); the NIC reads it as host memory \
         at IOVA `{IOVA:#x}` + the BAR0 offset, with no PCIe read.\n\n\
         | BAR0 offset | size | what |\n|---|---|---|\n\
         | `{RING_OFFSET:#x}` | {ring} B | TX descriptor ring, at most {RING_ENTRIES} entries \
         (`tx_base` = IOVA + `{RING_OFFSET:#x}`) |\n\
         | `{PAYLOAD_OFFSET:#x}` | {PAYLOAD_BYTES} B | payloads: one packet each, payload byte 0 \
         at lane {PAYLOAD_LANE} of a {WORD}-byte word |\n\n\
         A descriptor whose payload IOVA is on chip is refused (ERROR, status 1) unless the \
         payload lies in the payload area, starts at lane {PAYLOAD_LANE}, is at most TX \
         `max_payload` bytes and (RETRANSMIT) starts at offset 0; the TX window does not apply \
         on chip. Reads of on-chip memory outside both areas return zeros and count in QUEUE \
         `tx_onchip_faults`. A payload stays in place until its message's `TX_DONE` or \
         `ERROR`.\n",
        ring = RING_ENTRIES * 64,
    )
}

// The areas fit BAR0's upper half without overlapping.
const _: () = assert!(RING_OFFSET + RING_ENTRIES * 64 <= PAYLOAD_OFFSET);
const _: () = assert!(PAYLOAD_OFFSET + PAYLOAD_BYTES == 0x1_0000);

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn areas__fit_bar0_and_their_iovas_are_on_chip() {
        assert!(is_onchip(iova_of(RING_OFFSET)));
        assert!(is_onchip(iova_of(0xffff)));
        assert!(!is_onchip(IOVA - 1));
        assert!(!is_onchip(IOVA + 0x1_0000));
        assert!(!is_onchip(0x1000));
    }

    #[test]
    fn push_fits__whole_words_inside_on_chip_memory() {
        assert!(push_fits(RING_OFFSET, 64));
        assert!(push_fits(END - 128, 128));
        assert!(!push_fits(RING_OFFSET - 64, 64), "below the ring area");
        assert!(!push_fits(END - 64, 128), "past the end");
        assert!(!push_fits(RING_OFFSET + 4, 64), "not word-aligned");
        assert!(!push_fits(RING_OFFSET, 60), "not whole words");
        assert!(!push_fits(RING_OFFSET, 0), "empty");
        assert!(!push_fits(u32::MAX - 63, 64), "no overflow");
    }

    #[test]
    fn payload_words__put_byte_0_at_lane_26_of_whole_words() {
        let w = payload_words(&[7; 40]);
        assert_eq!(w.len(), 128);
        assert_eq!(w.len(), payload_footprint(40));
        assert!(w[..26].iter().all(|&b| b == 0));
        assert!(w[26..66].iter().all(|&b| b == 7));
        assert!(w[66..].iter().all(|&b| b == 0));
        assert_eq!(payload_footprint(38), 64);
        let at = payload_iova(128);
        assert!(payload_ok(at, 40, 0, 1442));
        assert_eq!(at, IOVA + 0xc000 + 128 + 26);
    }

    #[test]
    fn payload_ok__one_packet_at_lane_26_inside_the_area() {
        let at = iova_of(PAYLOAD_OFFSET + 26);
        assert!(payload_ok(at, 100, 0, 1442));
        assert!(!payload_ok(at + 1, 100, 0, 1442), "lane 27");
        assert!(
            !payload_ok(iova_of(RING_OFFSET + 26), 100, 0, 1442),
            "ring area"
        );
        assert!(!payload_ok(at, 100, 4, 1442), "retransmit past 0");
        assert!(!payload_ok(at, 1443, 0, 1442), "two packets");
        let last = iova_of(0xffc0 + 26);
        assert!(payload_ok(last, 38, 0, 1442));
        assert!(!payload_ok(last, 39, 0, 1442), "past the area's end");
    }
}
