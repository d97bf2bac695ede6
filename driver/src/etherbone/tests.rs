//! [`EtherboneDevice`] against the software endpoint: registers, board memory at any
//! alignment, pushes, loss, silence.
#![allow(non_snake_case)]

use super::*;
use homa_proto::etherbone::BoardMap;
use std::sync::Mutex;

const MAP: BoardMap = BoardMap::DEFAULT;

fn quick() -> Patience {
    Patience {
        timeout: Duration::from_millis(50),
        tries: 8,
    }
}

fn board(drop_every: Option<u32>) -> (EtherboneEndpoint, Arc<Mutex<MemoryBus>>, EtherboneDevice) {
    let bus = Arc::new(Mutex::new(MemoryBus::with_register_image(MAP.regs_base)));
    let ep = EtherboneEndpoint::spawn(Arc::clone(&bus), drop_every).unwrap();
    let dev =
        EtherboneDevice::open_from(&ep.addr().to_string(), Some(LOCAL), MAP, quick()).unwrap();
    (ep, bus, dev)
}

/// Any free port on the loopback.
const LOCAL: SocketAddr = SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), 0);

/// An endpoint that answers as LiteEth does, to the sender's IP at its own port: the device
/// bound (by `open`'s default) to that port gets the answers.
#[test]
fn open__answers_to_the_board_s_own_port_arrive() {
    let bus = MemoryBus::with_register_image(MAP.regs_base);
    let ep = EtherboneEndpoint::spawn_liteeth(LOCAL, bus, None).unwrap();
    let port = ep.addr().port();
    // The host side on another loopback address, at the board's port.
    let host = SocketAddr::new(std::net::Ipv4Addr::new(127, 0, 0, 2).into(), port);
    let dev = EtherboneDevice::open_from(&ep.addr().to_string(), Some(host), MAP, quick()).unwrap();
    dev.write32(0x104, 5).unwrap();
    assert_eq!(dev.read32(0x104).unwrap(), 5);
    // From another port the answers never come.
    let other = EtherboneDevice::open_from(
        &ep.addr().to_string(),
        Some(LOCAL),
        MAP,
        Patience {
            timeout: Duration::from_millis(20),
            tries: 2,
        },
    );
    assert!(other.is_err());
}

#[test]
fn open__a_map_past_the_bus_is_refused() {
    let (ep, _bus, _dev) = board(None);
    let map = BoardMap {
        mem_base: 0xf000_0000,
        mem_len: 0x2000_0000,
        ..MAP
    };
    let err =
        EtherboneDevice::open_from(&ep.addr().to_string(), Some(LOCAL), map, quick()).unwrap_err();
    assert!(err.to_string().contains("past the 32-bit bus"), "{err}");
}

/// A small deterministic generator (xorshift) for offsets and bytes.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[test]
fn registers__read_and_write_at_the_map_s_base() {
    let (_ep, bus, dev) = board(None);
    let nic_id = homa_proto::regs::block("ID")
        .and_then(|b| b.address("nic_id"))
        .unwrap();
    assert_eq!(dev.read32(nic_id).unwrap(), homa_proto::regs::NIC_ID);
    dev.write32(0x104, 0xdead_beef).unwrap();
    assert_eq!(dev.read32(0x104).unwrap(), 0xdead_beef);
    assert_eq!(bus.lock().unwrap().read(MAP.regs_base + 0x104), 0xdead_beef);
    assert!(matches!(
        dev.read32(2),
        Err(DriverError::RegisterAccess { .. })
    ));
    assert!(matches!(
        dev.write32(BoardMap::REGS_LEN, 1),
        Err(DriverError::RegisterAccess { .. })
    ));
}

/// Reads and writes of every alignment and length against a local copy, in two regions; the
/// bytes land in the window at the region's place, and a region's IOVA is where the core
/// finds them.
#[test]
fn memory__bytes_at_any_alignment_land_in_the_window() {
    let (_ep, bus, dev) = board(None);
    let a = dev.alloc_dma(5000).unwrap();
    let b = dev.alloc_dma(100).unwrap();
    assert_eq!((a.len(), b.len()), (8192, 4096));
    assert!(
        b.iova() >= a.iova() + a.len() as u64,
        "regions do not overlap"
    );
    assert!(!a.hugepages());
    let mut copy = vec![0u8; a.len()];
    let mut g = Gen(0x5eed);
    for _ in 0..300 {
        let at = g.below(a.len() as u64 - 40) as usize;
        let n = g.below(40) as usize;
        if g.below(2) == 0 {
            let data: Vec<u8> = (0..n).map(|_| g.next() as u8).collect();
            a.write(at, &data).unwrap();
            copy[at..at + n].copy_from_slice(&data);
        } else {
            let mut got = vec![0u8; n];
            a.read(at, &mut got).unwrap();
            assert_eq!(got, copy[at..at + n], "read of {n} at {at}");
        }
    }
    // The window holds the same bytes, at mem_base + (iova - dma_base).
    let at = MAP.mem_base as u64 + (a.iova() - MAP.dma_base);
    let mut bus = bus.lock().unwrap();
    for (i, chunk) in copy.chunks(4).enumerate() {
        let w = bus.read((at + 4 * i as u64) as u32).to_le_bytes();
        assert_eq!(&w[..], chunk, "word {i}");
    }
    drop(bus);
    b.write_u64(8, 0x0102_0304_0506_0708).unwrap();
    assert_eq!(b.read_u64(8).unwrap(), 0x0102_0304_0506_0708);
    assert!(matches!(
        b.read(4090, &mut [0u8; 8]),
        Err(DriverError::DmaAccess { .. })
    ));
}

#[test]
fn memory__the_window_runs_out_with_a_clear_error() {
    let (_ep, _bus, dev) = board(None);
    let err = dev
        .alloc_dma(MAP.mem_len as usize)
        .expect_err("the window has a guard page at its start");
    assert!(err.to_string().contains("memory window"), "{err}");
}

/// One packet in three lost: every access still completes, with the right values.
#[test]
fn loss__every_access_completes() {
    let (_ep, _bus, dev) = board(Some(3));
    let r = dev.alloc_dma(4096).unwrap();
    for i in 0..60u32 {
        dev.write32(0x200 + 4 * (i % 8), i).unwrap();
        assert_eq!(dev.read32(0x200 + 4 * (i % 8)).unwrap(), i);
        r.write_u32(4 * i as usize, !i).unwrap();
    }
    for i in 0..60u32 {
        assert_eq!(r.read_u32(4 * i as usize).unwrap(), !i);
    }
}

#[test]
fn push__whole_words_land_at_the_on_chip_offsets() {
    let (_ep, bus, dev) = board(None);
    let offset = homa_proto::hostif::onchip::PAYLOAD_OFFSET;
    let data: Vec<u8> = (0..128).map(|i| i as u8).collect();
    dev.push(offset, &data).unwrap();
    let mut bus = bus.lock().unwrap();
    for i in 0..32u32 {
        let want = u32::from_le_bytes(data[4 * i as usize..][..4].try_into().unwrap());
        assert_eq!(bus.read(MAP.regs_base + offset + 4 * i), want);
    }
    drop(bus);
    assert!(matches!(dev.push(4, &data), Err(DriverError::Push { .. })));
}

/// A host that does not answer: opening fails within the patience, naming the board and what
/// to check.
#[test]
fn open__a_silent_peer_is_refused_with_the_reason() {
    let silent = UdpSocket::bind("127.0.0.1:0").unwrap();
    let addr = silent.local_addr().unwrap().to_string();
    let t = Instant::now();
    let err = EtherboneDevice::open_from(
        &addr,
        Some(LOCAL),
        MAP,
        Patience {
            timeout: Duration::from_millis(30),
            tries: 3,
        },
    )
    .expect_err("nobody answers");
    assert!(t.elapsed() < Duration::from_secs(2));
    let text = err.to_string();
    assert!(
        text.contains(&addr) && text.contains("no Etherbone answer"),
        "{text}"
    );
    assert!(
        EtherboneDevice::open_from("not an address", Some(LOCAL), MAP, quick())
            .unwrap_err()
            .to_string()
            .contains("is not IP or IP:PORT")
    );
}

/// The driver's whole init sequence over Etherbone: rings and RX buffers in board memory,
/// zeroed first, their addresses as the core's DMA sees them in the QUEUE registers, every
/// RX buffer posted inside the RX window.
#[test]
fn nic_init__rings_and_buffers_live_in_board_memory() {
    use crate::{Nic, NicConfig, RingSizes};
    use homa_proto::hostif::{RX_BUF_DESC_LEN, RxBufDescriptor};
    let (_ep, bus, dev) = board(None);
    // Stale bytes where the first region will go: the allocation zeroes them.
    bus.lock()
        .unwrap()
        .write(MAP.mem_base + 4096 + 8, 0xffff_ffff, 0xf);
    let sizes = RingSizes {
        tx_log2: 4,
        rx_log2: 4,
        cq_log2: 5,
        rx_buffer_len: 1024,
        ..RingSizes::default()
    };
    let nic = Nic::init(dev, &NicConfig::default(), &sizes).unwrap();
    let probe = nic.probe();
    let reg = |name: &str| {
        let at = MAP.regs_base + probe.address("QUEUE", name).unwrap();
        bus.lock().unwrap().read(at)
    };
    let in_window = |iova: u64| (MAP.dma_base..MAP.dma_base + MAP.mem_len as u64).contains(&iova);
    let cq_base = u64::from(reg("cq_base_lo")) | u64::from(reg("cq_base_hi")) << 32;
    let rx_base = u64::from(reg("rx_base_lo")) | u64::from(reg("rx_base_hi")) << 32;
    assert!(
        in_window(cq_base) && in_window(rx_base),
        "{cq_base:#x} {rx_base:#x}"
    );
    assert_eq!(reg("rx_producer"), 16, "every RX buffer posted");
    let win = u64::from(reg("rx_window_base_lo")) | u64::from(reg("rx_window_base_hi")) << 32;
    let win_len = u64::from(reg("rx_window_len_lo"));
    assert_eq!(win_len, 16 * 1024);
    let mut board = bus.lock().unwrap();
    assert_eq!(
        board.read(MAP.mem_base + 4096 + 8),
        0,
        "allocations are zeroed"
    );
    for slot in 0..16u64 {
        let at = MAP.mem_base as u64 + (rx_base - MAP.dma_base) + slot * RX_BUF_DESC_LEN as u64;
        let bytes: Vec<u8> = (0..RX_BUF_DESC_LEN as u64 / 4)
            .flat_map(|i| board.read((at + 4 * i) as u32).to_le_bytes())
            .collect();
        let d = RxBufDescriptor::decode(bytes[..].try_into().unwrap()).unwrap();
        assert!(
            d.iova >= win && d.iova + u64::from(d.length) <= win + win_len,
            "slot {slot}: {d:?}"
        );
    }
}
