//! Frames in and out of capture files: pcap and pcapng (read with the `pcap-file` crate),
//! and one hex-encoded frame per line.

use homa_proto::wire::LinkType;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapReader, PcapWriter};
use pcap_file::pcapng::{Block, PcapNgReader};
use pcap_file::{DataLink, Endianness, TsResolution};
use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A failure to read or write a capture.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// The file could not be opened or read.
    #[error("failed to read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The file is neither pcap nor pcapng.
    #[error("{path} is not a pcap or pcapng file (magic {magic}); for hex frames use --hex {path}")]
    UnknownFormat {
        /// The file.
        path: PathBuf,
        /// Its first four bytes, in hex.
        magic: String,
    },
    /// The pcap/pcapng structure is broken.
    #[error("failed to parse capture {path}: {source}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What the pcap-file crate reported.
        #[source]
        source: pcap_file::PcapError,
    },
    /// The capture's link type carries no IP frames this tool understands.
    #[error(
        "{path}: unsupported link type {linktype:?} (supported: Ethernet, raw IP, IPv4, IPv6, Linux cooked)"
    )]
    LinkType {
        /// The file.
        path: PathBuf,
        /// The link type.
        linktype: DataLink,
    },
    /// Writing a capture failed.
    #[error("failed to write capture: {0}")]
    Write(#[source] pcap_file::PcapError),
}

/// One captured frame, with the bytes starting where `link` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// Capture timestamp, if the source has one.
    pub timestamp: Option<Duration>,
    /// Where the bytes start.
    pub link: LinkType,
    /// The frame bytes, or why the line or record could not be turned into bytes.
    pub bytes: Result<Vec<u8>, String>,
}

/// Maps a capture link type to where the IP header starts: the link type we parse from and
/// the number of link-layer bytes to skip first.
fn link_of(linktype: DataLink) -> Option<(LinkType, usize)> {
    match linktype {
        DataLink::ETHERNET => Some((LinkType::Ethernet, 0)),
        DataLink::RAW | DataLink::IPV4 | DataLink::IPV6 => Some((LinkType::Ip, 0)),
        // Linux "cooked" capture: a 16-byte pseudo header, then the network-layer packet.
        DataLink::LINUX_SLL => Some((LinkType::Ip, 16)),
        _ => None,
    }
}

fn captured(timestamp: Duration, data: &[u8], link: (LinkType, usize)) -> Frame {
    let bytes = data
        .get(link.1..)
        .map(<[u8]>::to_vec)
        .ok_or_else(|| format!("record shorter than its {}-byte link header", link.1));
    Frame {
        timestamp: Some(timestamp),
        link: link.0,
        bytes,
    }
}

/// The frames of a capture file, and whether it ended in the middle of a record.
#[derive(Debug)]
pub struct Capture {
    /// Every whole frame, in file order.
    pub frames: Vec<Frame>,
    /// Why reading stopped before the end of the file (a capture cut short, as by a stopped
    /// run, or damaged after its last whole frame), if it did.
    pub truncated: Option<String>,
}

/// Reads every frame of a pcap or pcapng file (the format is told by its magic number). A
/// file whose header is sound but whose tail is not (cut in the middle of a record) gives
/// the frames before it, with [`Capture::truncated`] saying why, as tcpdump does.
pub fn read_capture(path: &Path) -> Result<Capture, CaptureError> {
    let io = |source| CaptureError::Io {
        path: path.to_owned(),
        source,
    };
    let format = |source| CaptureError::Format {
        path: path.to_owned(),
        source,
    };
    let mut data = Vec::new();
    std::fs::File::open(path)
        .and_then(|mut f| f.read_to_end(&mut data))
        .map_err(io)?;
    let magic = data.get(..4).unwrap_or(&data);
    match magic {
        [0x0a, 0x0d, 0x0d, 0x0a] => read_pcapng(&data).map_err(|e| match e {
            ReadError::Format(source) => format(source),
            ReadError::Link(linktype) => CaptureError::LinkType {
                path: path.to_owned(),
                linktype,
            },
        }),
        [0xa1, 0xb2, 0xc3, 0xd4]
        | [0xd4, 0xc3, 0xb2, 0xa1]
        | [0xa1, 0xb2, 0x3c, 0x4d]
        | [0x4d, 0x3c, 0xb2, 0xa1] => {
            let mut reader = PcapReader::new(&data[..]).map_err(format)?;
            let linktype = reader.header().datalink;
            let link = link_of(linktype).ok_or_else(|| CaptureError::LinkType {
                path: path.to_owned(),
                linktype,
            })?;
            let mut frames = Vec::new();
            while let Some(packet) = reader.next_packet() {
                match packet {
                    Ok(p) => frames.push(captured(p.timestamp, &p.data, link)),
                    Err(e) => {
                        return Ok(Capture {
                            frames,
                            truncated: Some(e.to_string()),
                        });
                    }
                }
            }
            Ok(Capture {
                frames,
                truncated: None,
            })
        }
        _ => Err(CaptureError::UnknownFormat {
            path: path.to_owned(),
            magic: hex::encode(magic),
        }),
    }
}

enum ReadError {
    Format(pcap_file::PcapError),
    Link(DataLink),
}

fn read_pcapng(data: &[u8]) -> Result<Capture, ReadError> {
    let mut reader = PcapNgReader::new(data).map_err(ReadError::Format)?;
    let mut frames = Vec::new();
    while let Some(block) = reader.next_block() {
        let block = match block {
            Ok(b) => b,
            Err(e) => {
                return Ok(Capture {
                    frames,
                    truncated: Some(e.to_string()),
                });
            }
        };
        let (interface, timestamp, data) = match block {
            Block::EnhancedPacket(p) => (p.interface_id, p.timestamp, p.data.into_owned()),
            Block::SimplePacket(p) => (0, Duration::ZERO, p.data.into_owned()),
            _ => continue,
        };
        let linktype = reader
            .interfaces()
            .get(interface as usize)
            .map(|i| i.linktype)
            .unwrap_or(DataLink::ETHERNET);
        let link = link_of(linktype).ok_or(ReadError::Link(linktype))?;
        frames.push(captured(timestamp, &data, link));
    }
    Ok(Capture {
        frames,
        truncated: None,
    })
}

/// Reads hex frames, one per line (whitespace and ':' separators allowed, blank lines and
/// `#` comments skipped). A line that is not valid hex becomes a frame whose `bytes` is the
/// reason.
pub fn read_hex(input: impl BufRead, link: LinkType) -> std::io::Result<Vec<Frame>> {
    let mut frames = Vec::new();
    for line in input.lines() {
        let line = line?;
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let digits: String = text
            .chars()
            .filter(|c| !c.is_whitespace() && *c != ':')
            .collect();
        let bytes = hex::decode(&digits).map_err(|e| format!("invalid hex: {e}"));
        frames.push(Frame {
            timestamp: None,
            link,
            bytes,
        });
    }
    Ok(frames)
}

/// Writes Ethernet frames into a pcap file with nanosecond timestamps.
pub struct CaptureWriter<W: Write> {
    inner: PcapWriter<W>,
}

impl<W: Write> std::fmt::Debug for CaptureWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaptureWriter").finish_non_exhaustive()
    }
}

impl<W: Write> CaptureWriter<W> {
    /// Starts a little-endian, nanosecond-resolution pcap of Ethernet frames.
    pub fn new(writer: W) -> Result<Self, CaptureError> {
        let header = PcapHeader {
            datalink: DataLink::ETHERNET,
            ts_resolution: TsResolution::NanoSecond,
            endianness: Endianness::Little,
            ..PcapHeader::default()
        };
        let inner = PcapWriter::with_header(writer, header).map_err(CaptureError::Write)?;
        Ok(CaptureWriter { inner })
    }

    /// Appends one frame captured at `timestamp`.
    pub fn write(&mut self, timestamp: Duration, frame: &[u8]) -> Result<(), CaptureError> {
        let len = u32::try_from(frame.len()).unwrap_or(u32::MAX);
        self.inner
            .write_packet(&PcapPacket::new(timestamp, len, frame))
            .map(|_| ())
            .map_err(CaptureError::Write)
    }

    /// Returns the underlying writer.
    pub fn into_inner(self) -> W {
        self.inner.into_writer()
    }
}

/// A buffered writer that also flushes at least every [`FlushingWriter::PERIOD`] of wall
/// time while it is written to, so that a capture of a run stopped from outside (a time-out,
/// Ctrl-C) loses at most that much of its tail: [`read_capture`] reads what came before.
#[derive(Debug)]
pub struct FlushingWriter<W: Write> {
    inner: std::io::BufWriter<W>,
    last: std::time::Instant,
}

impl<W: Write> FlushingWriter<W> {
    /// How long written bytes may wait in the buffer.
    pub const PERIOD: Duration = Duration::from_millis(500);

    /// Buffers writes to `inner`.
    pub fn new(inner: W) -> Self {
        FlushingWriter {
            inner: std::io::BufWriter::with_capacity(1 << 16, inner),
            last: std::time::Instant::now(),
        }
    }
}

impl<W: Write> Write for FlushingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        if self.last.elapsed() >= Self::PERIOD {
            self.inner.flush()?;
            self.last = std::time::Instant::now();
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.last = std::time::Instant::now();
        self.inner.flush()
    }
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn read_hex__skips_comments_and_reports_bad_lines() {
        let text = "# a comment\n\n0a0b 0c\n01:02\nzz\n";
        let frames = read_hex(text.as_bytes(), LinkType::Ip).unwrap();
        assert_eq!(frames.len(), 3);
        assert_eq!(frames[0].bytes, Ok(vec![0x0a, 0x0b, 0x0c]));
        assert_eq!(frames[1].bytes, Ok(vec![1, 2]));
        assert!(
            frames[2]
                .bytes
                .as_ref()
                .unwrap_err()
                .contains("invalid hex")
        );
    }

    #[test]
    fn read_capture__roundtrips_written_pcap() {
        let mut w = CaptureWriter::new(Vec::new()).unwrap();
        w.write(Duration::from_nanos(1_500), &[1, 2, 3]).unwrap();
        let dir = std::env::temp_dir().join(format!("homa-nic-cap-{}", std::process::id()));
        std::fs::write(&dir, w.into_inner()).unwrap();
        let frames = read_capture(&dir).unwrap().frames;
        std::fs::remove_file(&dir).unwrap();
        assert_eq!(frames.len(), 1);
        assert_eq!(frames[0].timestamp, Some(Duration::from_nanos(1_500)));
        assert_eq!(frames[0].bytes, Ok(vec![1, 2, 3]));
    }

    #[test]
    fn read_capture__pcapng_with_raw_ip_interface() {
        use pcap_file::pcapng::PcapNgWriter;
        use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
        use pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionBlock;

        let mut w = PcapNgWriter::new(Vec::new()).unwrap();
        w.write_pcapng_block(InterfaceDescriptionBlock::new(DataLink::RAW, 65535))
            .unwrap();
        let packet = [0x45u8, 0, 0, 20];
        w.write_pcapng_block(EnhancedPacketBlock {
            interface_id: 0,
            timestamp: Duration::from_micros(7),
            original_len: 4,
            data: packet[..].into(),
            options: vec![],
        })
        .unwrap();
        let path = std::env::temp_dir().join(format!("homa-nic-ng-{}", std::process::id()));
        std::fs::write(&path, w.into_inner()).unwrap();
        let frames = read_capture(&path).unwrap().frames;
        std::fs::remove_file(&path).unwrap();
        assert_eq!(
            frames,
            [Frame {
                timestamp: Some(Duration::from_micros(7)),
                link: LinkType::Ip,
                bytes: Ok(packet.to_vec()),
            }]
        );
    }

    #[test]
    fn read_capture__a_file_cut_short_gives_its_whole_frames_and_says_so() {
        let mut w = CaptureWriter::new(Vec::new()).unwrap();
        for i in 0..3u8 {
            w.write(Duration::from_nanos(u64::from(i)), &[i; 60])
                .unwrap();
        }
        let bytes = w.into_inner();
        let path = std::env::temp_dir().join(format!("homa-nic-cut-{}", std::process::id()));
        // Cut in the middle of the third record.
        std::fs::write(&path, &bytes[..bytes.len() - 30]).unwrap();
        let cut = read_capture(&path).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        let whole = read_capture(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(cut.frames.len(), 2);
        assert_eq!(cut.frames[1].bytes, Ok(vec![1; 60]));
        assert!(cut.truncated.is_some());
        assert_eq!((whole.frames.len(), whole.truncated), (3, None));
    }

    #[test]
    fn read_capture__names_unknown_formats() {
        let path = std::env::temp_dir().join(format!("homa-nic-txt-{}", std::process::id()));
        std::fs::write(&path, b"hello").unwrap();
        let err = read_capture(&path).unwrap_err().to_string();
        std::fs::remove_file(&path).unwrap();
        assert!(err.contains("not a pcap or pcapng file"), "{err}");
    }
}
