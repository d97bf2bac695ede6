//! [`EtherboneDevice`]: a homa-nic on an open-flow FPGA board, reached over UDP with Etherbone
//! ([`homa_proto::etherbone`]) instead of PCIe. The board has no PCIe: its memory (DDR behind
//! LiteDRAM) stands in for host memory, and the host reads and writes it, and the core's
//! registers, through Etherbone ([`BoardMap`] says where each lies on the board's bus).
//!
//! ```text
//!  driver ─ read32 / write32 / push ─► regs_base + offset ─┐
//!         ─ DmaRegion read / write ──► mem_base + offset ──┼─ Etherbone over UDP ─► board
//!  core's DMA ◄──────────────────────── dma_base + offset ─┘   (bus: core regs, DDR)
//! ```
//!
//! Every transaction is acknowledged: reads by their answer, writes by the answer of a read
//! the same record carries (Etherbone's writes are otherwise unanswered, and UDP loses
//! packets). One transaction is out at a time. An answer is matched to its request by its
//! return address, a sequence tag, so a late or duplicated answer is ignored; a request
//! unanswered within the timeout is sent again, up to the tries allowed. A write sent again
//! is applied twice when only its answer was lost, which an immediate repeat of any write the
//! driver makes tolerates; a first copy delayed in the network past its repeat and past later
//! writes would undo them, which a direct link between host and board does not do. Partial
//! words are written with byte enables.
//!
//! LiteEth's Etherbone core answers from and to its own UDP port (1234), whatever the
//! request's source port, so the host's socket is bound to the board's port by default
//! ([`EtherboneDevice::open`]); [`EtherboneDevice::open_from`] binds another local address. All of it is slow by PCIe's
//! measure (a round trip per access, about 0.1-1 ms over GbE and LiteEth): the board is for
//! bring-up and functional tests, not for latency.

mod endpoint;
#[cfg(test)]
mod tests;

pub use endpoint::{Bus, EtherboneEndpoint, MemoryBus};

use crate::device::{Device, check_push, check_register, lock};
use crate::dma::{DmaRegion, RemoteMemory};
use crate::{DriverError, Result};
use homa_proto::etherbone::{BoardMap, MAX_WORDS, Packet, Reads, Record, WORD_ENABLE, Writes};
use std::net::{SocketAddr, ToSocketAddrs, UdpSocket};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long to wait for an answer before sending a request again, and how many times to send
/// it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Patience {
    /// Wait for one answer.
    pub timeout: Duration,
    /// Sends of one request, at least 1.
    pub tries: u32,
}

impl Default for Patience {
    fn default() -> Self {
        Patience {
            timeout: Duration::from_millis(200),
            tries: 5,
        }
    }
}

/// The UDP link to one endpoint: requests out, answers matched by tag.
#[derive(Debug)]
struct Link {
    name: String,
    /// Held for a whole exchange: one transaction on the link at a time, so no caller reads
    /// (and drops) another's answer.
    busy: Mutex<()>,
    socket: UdpSocket,
    peer: SocketAddr,
    patience: Patience,
    /// The next tag (a multiple of 4, the return address of the next request's reads).
    tag: Mutex<u32>,
}

impl Link {
    fn unusable(&self, reason: String) -> DriverError {
        DriverError::Unusable {
            device: self.name.clone(),
            reason,
        }
    }

    /// Sends `bytes` until an answer from the peer is accepted by `accept` (`None`: not this
    /// request's answer), each try waiting the timeout; `what` names the request in the error.
    fn exchange<T>(
        &self,
        bytes: &[u8],
        what: &str,
        mut accept: impl FnMut(Packet) -> Option<T>,
    ) -> Result<T> {
        let _one = lock(&self.busy);
        let mut buf = vec![0u8; 2048];
        for _ in 0..self.patience.tries.max(1) {
            self.socket
                .send_to(bytes, self.peer)
                .map_err(|e| self.unusable(format!("sending to {}: {e}", self.peer)))?;
            let deadline = Instant::now() + self.patience.timeout;
            loop {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                self.socket
                    .set_read_timeout(Some(left))
                    .map_err(|e| self.unusable(format!("socket timeout: {e}")))?;
                let (n, from) = match self.socket.recv_from(&mut buf) {
                    Ok(x) => x,
                    Err(e)
                        if matches!(
                            e.kind(),
                            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                        ) =>
                    {
                        break;
                    }
                    Err(e) => return Err(self.unusable(format!("receiving: {e}"))),
                };
                // Anything else (another sender, a late answer to an earlier try, a malformed
                // packet) is ignored.
                if from != self.peer {
                    continue;
                }
                if let Some(t) = Packet::decode(&buf[..n]).ok().and_then(&mut accept) {
                    return Ok(t);
                }
            }
        }
        Err(self.unusable(format!(
            "no Etherbone answer from {} to {what} after {} tries of {:?}: is the board \
             powered, loaded with a homa-nic bitstream, and reachable (ping it; its Etherbone \
             port is UDP {})?",
            self.peer,
            self.patience.tries.max(1),
            self.patience.timeout,
            self.peer.port()
        )))
    }

    /// Sends `records` (their reads' return base set to the request's tag) and returns the
    /// values the endpoint read, in order. At least one record must read (the answer is the
    /// acknowledgement).
    fn call(&self, mut records: Vec<Record>) -> Result<Vec<u32>> {
        let tag = {
            let mut next = lock(&self.tag);
            let tag = *next;
            *next = tag.wrapping_add(0x1000);
            tag
        };
        let mut expect = 0;
        for r in &mut records {
            if !r.reads.addrs.is_empty() {
                r.reads.ret_base = tag.wrapping_add(4 * expect as u32);
                expect += r.reads.addrs.len();
            }
        }
        debug_assert!(expect > 0, "a request without reads gets no answer");
        let bytes = Packet {
            records,
            ..Packet::default()
        }
        .encode()
        .map_err(|e| self.unusable(e.to_string()))?;
        self.exchange(&bytes, "a bus request", |answer| {
            // The answer writes the values read to the tag's addresses, in order.
            let mut values = Vec::with_capacity(expect);
            for r in answer
                .records
                .iter()
                .filter(|r| !r.writes.values.is_empty())
            {
                if r.writes.base != tag.wrapping_add(4 * values.len() as u32) {
                    return None;
                }
                values.extend_from_slice(&r.writes.values);
            }
            (values.len() == expect).then_some(values)
        })
    }

    /// Reads the words at `addrs`.
    fn read_words(&self, addrs: &[u32]) -> Result<Vec<u32>> {
        let mut out = Vec::with_capacity(addrs.len());
        for chunk in addrs.chunks(MAX_WORDS) {
            out.extend(self.call(vec![Record::read(0, chunk.to_vec())])?);
        }
        Ok(out)
    }

    /// Writes `values` to consecutive words from `base` (with byte enables `be` when there is
    /// one value), acknowledged by a read of the last word written.
    fn write_words(&self, base: u32, values: &[u32], be: u8) -> Result<()> {
        for (k, chunk) in values.chunks(MAX_WORDS).enumerate() {
            let at = base.wrapping_add((4 * MAX_WORDS * k) as u32);
            let last = at.wrapping_add(4 * (chunk.len() as u32 - 1));
            self.call(vec![Record {
                flags: 0,
                byte_enable: be,
                writes: Writes {
                    base: at,
                    values: chunk.to_vec(),
                },
                reads: Reads {
                    ret_base: 0,
                    addrs: vec![last],
                },
            }])?;
        }
        Ok(())
    }

    /// Whether the endpoint answers a probe.
    fn probe(&self) -> Result<()> {
        let bytes = Packet::probe()
            .encode()
            .map_err(|e| self.unusable(e.to_string()))?;
        self.exchange(&bytes, "a probe", |p| p.probe_reply.then_some(()))
    }
}

/// The board's memory window, byte-addressed for [`DmaRegion`]s.
#[derive(Debug)]
struct BoardMemory {
    link: Arc<Link>,
}

/// The little-endian word of `bytes` (at most 4) placed from byte `lane`.
fn word_of(bytes: &[u8], lane: usize) -> u32 {
    let mut w = [0u8; 4];
    w[lane..lane + bytes.len()].copy_from_slice(bytes);
    u32::from_le_bytes(w)
}

fn bus_addr(addr: u64, link: &Link) -> Result<u32> {
    u32::try_from(addr)
        .map_err(|_| link.unusable(format!("address {addr:#x} is past the 32-bit bus")))
}

impl RemoteMemory for BoardMemory {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<()> {
        if buf.is_empty() {
            return Ok(());
        }
        let first = addr & !3;
        let end = (addr + buf.len() as u64).next_multiple_of(4);
        let addrs = (first..end)
            .step_by(4)
            .map(|a| bus_addr(a, &self.link))
            .collect::<Result<Vec<u32>>>()?;
        let bytes: Vec<u8> = self
            .link
            .read_words(&addrs)?
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        let skip = (addr - first) as usize;
        buf.copy_from_slice(&bytes[skip..skip + buf.len()]);
        Ok(())
    }

    fn write(&self, addr: u64, data: &[u8]) -> Result<()> {
        let mut at = addr;
        let mut rest = data;
        // A partial head word, with its byte enables.
        let lane = (at % 4) as usize;
        if lane != 0 && !rest.is_empty() {
            let n = rest.len().min(4 - lane);
            let be = ((1u8 << n) - 1) << lane;
            let base = bus_addr(at & !3, &self.link)?;
            self.link
                .write_words(base, &[word_of(&rest[..n], lane)], be)?;
            at += n as u64;
            rest = &rest[n..];
        }
        let whole = rest.len() / 4 * 4;
        if whole > 0 {
            let values: Vec<u32> = rest[..whole]
                .chunks_exact(4)
                .map(|c| word_of(c, 0))
                .collect();
            self.link
                .write_words(bus_addr(at, &self.link)?, &values, WORD_ENABLE)?;
            at += whole as u64;
            rest = &rest[whole..];
        }
        if !rest.is_empty() {
            let be = (1u8 << rest.len()) - 1;
            self.link
                .write_words(bus_addr(at, &self.link)?, &[word_of(rest, 0)], be)?;
        }
        Ok(())
    }
}

/// A homa-nic on an open-flow board, over Etherbone.
#[derive(Debug)]
pub struct EtherboneDevice {
    link: Arc<Link>,
    memory: Arc<BoardMemory>,
    map: BoardMap,
    /// Bytes of the window handed out.
    used: Mutex<u64>,
}

/// Bytes left unused at the window's start and between regions (a stray DMA just past a
/// region meets no other region).
const GUARD: u64 = 4096;

impl EtherboneDevice {
    /// Opens the board at `addr` (`IP` or `IP:PORT`; port [`homa_proto::etherbone::PORT`] if
    /// none), with its bus laid out as `map`, and checks that it answers a probe. The local
    /// socket takes the board's port (LiteEth answers to it): one device per port per host.
    pub fn open(addr: &str, map: BoardMap, patience: Patience) -> Result<EtherboneDevice> {
        Self::open_from(addr, None, map, patience)
    }

    /// The same from the local address `local` (`None`: any address, the board's port).
    pub fn open_from(
        addr: &str,
        local: Option<SocketAddr>,
        map: BoardMap,
        patience: Patience,
    ) -> Result<EtherboneDevice> {
        let name = format!("etherbone {addr}");
        let fail = |reason: String| DriverError::Unusable {
            device: name.clone(),
            reason,
        };
        let with_port = if addr.parse::<std::net::IpAddr>().is_ok() {
            format!("{addr}:{}", homa_proto::etherbone::PORT)
        } else {
            addr.to_string()
        };
        let peer = with_port
            .to_socket_addrs()
            .map_err(|e| fail(format!("`{addr}` is not IP or IP:PORT: {e}")))?
            .next()
            .ok_or_else(|| fail(format!("`{addr}` names no address")))?;
        let fits = |base: u32, len: u32| u64::from(base) + u64::from(len) <= 1 << 32;
        if !fits(map.regs_base, BoardMap::REGS_LEN) || !fits(map.mem_base, map.mem_len) {
            return Err(fail(format!(
                "its board map {map:?} runs past the 32-bit bus: registers need {} bytes from \
                 regs_base, the window mem_len bytes from mem_base",
                BoardMap::REGS_LEN
            )));
        }
        let local = local.unwrap_or_else(|| {
            let any: std::net::IpAddr = if peer.is_ipv4() {
                std::net::Ipv4Addr::UNSPECIFIED.into()
            } else {
                std::net::Ipv6Addr::UNSPECIFIED.into()
            };
            SocketAddr::new(any, peer.port())
        });
        let socket = UdpSocket::bind(local).map_err(|e| {
            fail(format!(
                "binding UDP {local}: {e} (the board answers to its own port, {}: is another \
                 program, litex_server say, using it?)",
                peer.port()
            ))
        })?;
        let link = Arc::new(Link {
            name: format!("etherbone {peer}"),
            busy: Mutex::new(()),
            socket,
            peer,
            patience,
            // Tags step by 4 KiB: a request reads at most 255 words (1,020 bytes).
            tag: Mutex::new(0x1000),
        });
        link.probe()?;
        Ok(EtherboneDevice {
            memory: Arc::new(BoardMemory {
                link: Arc::clone(&link),
            }),
            link,
            map,
            used: Mutex::new(GUARD),
        })
    }

    /// The bus address of BAR0 `offset`, checked.
    fn register(&self, offset: u32) -> Result<u32> {
        check_register(self.name(), offset, self.bar_len())?;
        Ok(self.map.regs_base.wrapping_add(offset))
    }
}

impl Device for EtherboneDevice {
    fn name(&self) -> &str {
        &self.link.name
    }

    fn bar_len(&self) -> u32 {
        BoardMap::REGS_LEN
    }

    fn read32(&self, offset: u32) -> Result<u32> {
        let at = self.register(offset)?;
        Ok(self.link.read_words(&[at])?[0])
    }

    fn write32(&self, offset: u32, value: u32) -> Result<()> {
        let at = self.register(offset)?;
        self.link.write_words(at, &[value], WORD_ENABLE)
    }

    fn alloc_dma(&self, len: usize) -> Result<DmaRegion> {
        let len = (len.max(1) as u64).next_multiple_of(4096);
        let mut used = lock(&self.used);
        let start = *used;
        let end = start + len;
        if end > u64::from(self.map.mem_len) {
            return Err(self.link.unusable(format!(
                "its {}-byte memory window has {} bytes left, {len} asked: post fewer or \
                 smaller rings and buffers",
                self.map.mem_len,
                u64::from(self.map.mem_len).saturating_sub(start)
            )));
        }
        *used = end + GUARD;
        drop(used);
        // Board memory holds whatever an earlier run left: zero it, as `alloc_dma` promises.
        let at = u64::from(self.map.mem_base) + start;
        let zeros = vec![0u32; (len / 4) as usize];
        self.link
            .write_words(bus_addr(at, &self.link)?, &zeros, WORD_ENABLE)?;
        let memory: Arc<dyn RemoteMemory> = self.memory.clone();
        Ok(DmaRegion::remote(
            memory,
            at,
            len as usize,
            self.map.dma_base + start,
        ))
    }

    /// Pushes whole 64-byte words as 16 register writes each, in one acknowledged record per
    /// word: the board top assembles them into the core's 64-byte push.
    fn push(&self, offset: u32, data: &[u8]) -> Result<()> {
        check_push(self.name(), offset, data.len())?;
        for (k, word) in data.chunks(64).enumerate() {
            let at = self.register(offset + 64 * k as u32)?;
            let values: Vec<u32> = word.chunks(4).map(|c| word_of(c, 0)).collect();
            self.link.write_words(at, &values, WORD_ENABLE)?;
        }
        Ok(())
    }
}
