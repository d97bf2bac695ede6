//! rust-hdl's own simulator on the composed NIC core (`HomaNicCore512`): DATA frames of one
//! message, 64 bytes a cycle, every output ready; prints simulated cycles per second, to set
//! beside the Verilator co-simulation's figure for the same core
//! (`cargo test --release -p homa-sim --test nic_core_cosim -- --nocapture`).
//!
//! `cargo run --release -p homa-hw --example nic_core_speed [CYCLES]`

use homa_hw::hdl::*;
use homa_hw::nic_core::HomaNicCore512;
use homa_proto::wire::{self, ChecksumCapabilities, FrameRepr};

fn frame(offset: u32) -> Vec<u8> {
    let payload = vec![0x5a; 1400];
    FrameRepr {
        ethernet: Some(wire::EthernetRepr {
            src_addr: wire::EthernetAddress([2, 0, 0, 0, 0, 7]),
            dst_addr: wire::EthernetAddress([2, 0, 0, 0, 0, 0xaa]),
            vlan: None,
            ethertype: wire::EtherType::IPV4,
        }),
        ip: wire::IpRepr::V4(wire::Ipv4Repr {
            src_addr: [10, 0, 0, 1].into(),
            dst_addr: [10, 0, 0, 254].into(),
            tos: 0,
            ident: 0,
            dont_frag: true,
            ttl: 64,
            protocol: wire::PROTOCOL_HOMA,
            payload_len: 0,
        }),
        homa: wire::Repr {
            sport: 40_000,
            dport: 500,
            sender_id: 2,
            body: wire::Body::Data(wire::Data {
                message_length: 1_000_000,
                incoming: 10_000,
                ack: None,
                cutoff_version: 1,
                retransmit: false,
                offset,
                payload: &payload,
            }),
        },
    }
    .to_bytes(&ChecksumCapabilities::default())
}

fn main() {
    let cycles: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(2_000);
    let mut uut = HomaNicCore512::top_level();
    uut.m_dma_wr_ready.next = true;
    uut.m_dma_rd_ready.next = true;
    uut.m_axis_tready.next = true;
    uut.reset.next = true;
    for high in [false, true, false, true] {
        clock_half(&mut uut, |u| &mut u.clock, high);
    }
    uut.reset.next = false;
    let (mut offset, mut beat, mut grants) = (0u32, 0usize, 0u64);
    let mut f = frame(0);
    let start = std::time::Instant::now();
    for _ in 0..cycles {
        let end = (beat * 64 + 64).min(f.len());
        let bytes = &f[beat * 64..end];
        let mut data = Bits::<512>::default();
        for (i, b) in bytes.iter().enumerate() {
            for k in 0..8 {
                data = data.replace_bit(8 * i + k, (b >> k) & 1 == 1);
            }
        }
        uut.s_axis_tdata.next = data;
        uut.s_axis_tkeep.next = if bytes.len() == 64 {
            u64::MAX.into()
        } else {
            ((1u64 << bytes.len()) - 1).into()
        };
        uut.s_axis_tvalid.next = true;
        uut.s_axis_tlast.next = end == f.len();
        clock_half(&mut uut, |u| &mut u.clock, false);
        if uut.m_axis_tvalid.val() && uut.m_axis_tlast.val() {
            grants += 1;
        }
        if uut.s_axis_tready.val() {
            beat += 1;
            if end == f.len() {
                offset += 1400;
                f = frame(offset % 990_000);
                beat = 0;
            }
        }
        clock_half(&mut uut, |u| &mut u.clock, true);
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "rust-hdl, HomaNicCore512: {cycles} cycles in {secs:.2} s = {:.0} cycles/s ({} DATA frames, {grants} GRANTs)",
        cycles as f64 / secs,
        offset / 1400
    );
}
