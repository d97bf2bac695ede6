//! `homa-nic regs`: the NIC register map, from `proto::regs`.

use homa_proto::regs::{BLOCKS, markdown};
use std::fmt::Write;

/// The map as Markdown (`markdown`, the text of docs/regs.md) or as a compact list.
pub(crate) fn render(markdown_out: bool) -> String {
    if markdown_out {
        return markdown();
    }
    let mut s = String::new();
    for b in BLOCKS {
        let _ = writeln!(
            s,
            "0x{:04x} {:<7} type 0x{:08x} version {}.{} next 0x{:04x}",
            b.base,
            b.name,
            b.type_id,
            b.major(),
            b.version & 0xffff,
            b.next()
        );
        for r in b.registers {
            let _ = writeln!(
                s,
                "  0x{:04x} {:<22} {:<3} reset 0x{:x}",
                b.base + r.offset,
                r.name,
                r.access.name(),
                r.reset
            );
        }
    }
    s
}
