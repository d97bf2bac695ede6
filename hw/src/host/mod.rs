//! The host interface (`homa_host_*`): the register file, the RX and TX descriptor rings,
//! the completion writer and the RX queues that compose them, each beside its reference model.

pub mod cq_writer;
pub mod cq_writer_model;
pub mod host_rx;
pub mod host_rx_model;
pub mod regfile;
pub mod rx_ring;
pub mod rx_ring_model;
pub mod tx_ring;
pub mod tx_ring_model;
