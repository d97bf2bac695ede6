//! [`EtherboneEndpoint`]: a software Etherbone endpoint on a local UDP port, serving a
//! [`Bus`]: what the board's Etherbone core does, for tests and for bring-up without a board.

use homa_proto::etherbone::{Packet, Reads, Record, Writes};
use homa_proto::regs::BLOCKS;
use std::collections::HashMap;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// A 32-bit bus of words at byte addresses (multiples of 4).
pub trait Bus: Send {
    /// The word at `addr`.
    fn read(&mut self, addr: u32) -> u32;
    /// Writes the bytes of `value` whose bit is set in `byte_enable` (bit `i`: byte `i`,
    /// little-endian) to the word at `addr`.
    fn write(&mut self, addr: u32, value: u32, byte_enable: u8);
}

/// A bus shared with whoever holds the other `Arc` (a test looking at what was written).
impl<B: Bus> Bus for Arc<Mutex<B>> {
    fn read(&mut self, addr: u32) -> u32 {
        self.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .read(addr)
    }

    fn write(&mut self, addr: u32, value: u32, byte_enable: u8) {
        self.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .write(addr, value, byte_enable);
    }
}

/// A bus of plain memory: every word reads as last written, zero before.
#[derive(Debug, Clone, Default)]
pub struct MemoryBus {
    words: HashMap<u32, u32>,
}

impl MemoryBus {
    /// An empty bus.
    pub fn new() -> MemoryBus {
        MemoryBus::default()
    }

    /// A bus holding the reset image of every block of [`homa_proto::regs`] from
    /// `regs_base` (a homa-nic's registers as a probe reads them; nothing reacts to writes).
    pub fn with_register_image(regs_base: u32) -> MemoryBus {
        let mut bus = MemoryBus::new();
        for b in BLOCKS {
            for (offset, value) in b.reset_image() {
                bus.words
                    .insert(regs_base.wrapping_add(b.base + offset), value);
            }
        }
        bus
    }
}

impl Bus for MemoryBus {
    fn read(&mut self, addr: u32) -> u32 {
        self.words.get(&(addr & !3)).copied().unwrap_or(0)
    }

    fn write(&mut self, addr: u32, value: u32, byte_enable: u8) {
        let mask = (0..4)
            .filter(|i| byte_enable >> i & 1 == 1)
            .fold(0u32, |m, i| m | 0xff << (8 * i));
        let w = self.words.entry(addr & !3).or_insert(0);
        *w = (*w & !mask) | (value & mask);
    }
}

/// The answer to `p` from `bus`, if it asks for one: writes applied in order, reads
/// answered as writes to their return address (one record per record that reads).
fn serve(bus: &mut dyn Bus, p: &Packet) -> Option<Packet> {
    let mut answer = Packet {
        probe_reply: p.probe,
        no_reads: true,
        ..Packet::default()
    };
    for r in &p.records {
        for (i, v) in r.writes.values.iter().enumerate() {
            bus.write(r.writes.base.wrapping_add(4 * i as u32), *v, r.byte_enable);
        }
        if !r.reads.addrs.is_empty() {
            answer.records.push(Record {
                flags: 0,
                byte_enable: r.byte_enable,
                writes: Writes {
                    base: r.reads.ret_base,
                    values: r.reads.addrs.iter().map(|&a| bus.read(a)).collect(),
                },
                reads: Reads::default(),
            });
        }
    }
    (p.probe || !answer.records.is_empty()).then_some(answer)
}

/// A software Etherbone endpoint serving a [`Bus`] on a local UDP port until dropped.
#[derive(Debug)]
pub struct EtherboneEndpoint {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl EtherboneEndpoint {
    /// Serves `bus` on 127.0.0.1 at a free port, answering each request to its source address.
    /// With `drop_every = Some(n)`, every n-th packet received is ignored, as a lossy network
    /// would.
    pub fn spawn(bus: impl Bus + 'static, drop_every: Option<u32>) -> std::io::Result<Self> {
        Self::serve(UdpSocket::bind("127.0.0.1:0")?, bus, drop_every, false)
    }

    /// Serves `bus` at `bind` as LiteEth's Etherbone core does: answers go to the request's
    /// source IP at this endpoint's own port, whatever the request's source port.
    pub fn spawn_liteeth(
        bind: SocketAddr,
        bus: impl Bus + 'static,
        drop_every: Option<u32>,
    ) -> std::io::Result<Self> {
        Self::serve(UdpSocket::bind(bind)?, bus, drop_every, true)
    }

    fn serve(
        socket: UdpSocket,
        mut bus: impl Bus + 'static,
        drop_every: Option<u32>,
        own_port: bool,
    ) -> std::io::Result<Self> {
        socket.set_read_timeout(Some(Duration::from_millis(20)))?;
        let addr = socket.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let halt = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("etherbone-endpoint".into())
            .spawn(move || {
                let mut buf = vec![0u8; 2048];
                let mut received = 0u32;
                while !halt.load(Ordering::Relaxed) {
                    let Ok((n, from)) = socket.recv_from(&mut buf) else {
                        continue;
                    };
                    received = received.wrapping_add(1);
                    if drop_every.is_some_and(|k| k > 0 && received.is_multiple_of(k)) {
                        continue;
                    }
                    let Ok(p) = Packet::decode(&buf[..n]) else {
                        continue;
                    };
                    let to = if own_port {
                        SocketAddr::new(from.ip(), addr.port())
                    } else {
                        from
                    };
                    if let Some(answer) = serve(&mut bus, &p)
                        && let Ok(bytes) = answer.encode()
                    {
                        let _ = socket.send_to(&bytes, to);
                    }
                }
            })?;
        Ok(EtherboneEndpoint {
            addr,
            stop,
            thread: Some(thread),
        })
    }

    /// Its UDP address (`IP:PORT`, for [`EtherboneDevice::open`](super::EtherboneDevice::open)).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for EtherboneEndpoint {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
