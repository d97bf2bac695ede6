//! The transmit side (`homa_tx_*`): the SRPT scheduler, the transmit scheduler and its park,
//! the DATA framer, the transmit engine that composes them, and the on-chip TX memory, each
//! beside its reference model.

pub mod data_framer;
pub mod data_framer_model;
pub mod srpt;
pub mod srpt_model;
pub mod tx_engine;
pub mod tx_engine_model;
pub mod tx_park;
pub mod tx_push;
pub mod tx_push_model;
pub mod tx_sched;
pub mod tx_sched_model;
