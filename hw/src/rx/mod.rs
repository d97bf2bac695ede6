//! The receive side (`homa_rx_*`): the parser, the inbound message table, the grant
//! generators and their GRANT framer, and the RX DMA engine, each beside its reference model.

pub mod grant;
pub mod grant_framer;
pub mod grant_framer_model;
pub mod grant_model;
pub mod grant_queue;
pub mod grant_queue_model;
pub mod msg_table;
pub mod msg_table_model;
pub mod parser;
pub mod parser_model;
pub mod rx_dma;
pub mod rx_dma_model;
