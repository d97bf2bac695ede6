//! Feeds arbitrary bytes to the frame parser, starting at Ethernet and at IP, with and
//! without IPv4 checksum verification; when a frame parses, emitting it again must give a
//! frame that parses to the same value.
#![no_main]

use homa_proto::wire::{ChecksumCapabilities, FrameRepr, LinkType};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for link in [LinkType::Ethernet, LinkType::Ip] {
        for caps in [ChecksumCapabilities::default(), ChecksumCapabilities::ignored()] {
            if let Ok(frame) = FrameRepr::parse(data, link, &caps) {
                let bytes = frame.to_bytes(&ChecksumCapabilities::default());
                let again = FrameRepr::parse(&bytes, link, &ChecksumCapabilities::default())
                    .expect("an emitted frame parses");
                assert_eq!(again.homa, frame.homa);
            }
        }
    }
});
