//! `homa-nic`: the command-line tool of the homa-nic project, and the small library behind
//! it that tests and examples share.
//!
//! The tool sits at the top of the workspace: it drives `homa-proto` (wire formats) today and,
//! as later parts land, the hardware generator, the simulator and the driver.
//!
//! - [`capture`]: reading frames from pcap/pcapng files and writing pcap files.
//! - [`decode`]: `homa-nic decode`, a tcpdump for Homa.
//! - [`infer`]: message sizes inferred from a capture of TCP and UDP traffic, for
//!   `homa-nic advise`.
//! - [`plot`]: the SVG chart of slowdown against message size that `homa-nic sim` draws.
//! - [`samples`]: one frame of every Homa packet type, the content of
//!   `tests/data/all-types.pcap`.

pub mod capture;
pub mod decode;
pub mod infer;
pub mod plot;
pub mod samples;
