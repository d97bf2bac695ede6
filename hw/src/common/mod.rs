//! Building blocks the RX, TX and host blocks share: the bucketed SRPT queue in block RAM,
//! the small FIFOs and RAMs, and the bench kit every level of testing uses.

pub mod bench;
pub mod bucket_queue;
pub mod bucket_queue_model;
pub mod fifo;
pub mod frame_beats;
pub mod key_hash;
pub mod lut_fifo;
pub mod lutram;
pub mod packets_left;
pub mod read_gather;
pub mod wideram;
