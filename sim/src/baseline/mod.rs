//! Transports other than Homa on the same fabric, workloads and reporting: the baselines
//! that Homa's claims are measured against.
//!
//! - [`tcp`]: one direction of a TCP connection, sans IO: NewReno, and DCTCP's reaction to
//!   ECN echoes.
//! - [`BaselineCluster`]: hosts running TCP or DCTCP over [`crate::fabric`], one connection
//!   per host pair, fed the same messages as [`crate::cluster::Cluster`] for a seed and
//!   measured the same way (a [`crate::cluster::Report`]).
//!
//! The switch features they need live in the fabric: drop-tail buffers
//! (`FabricConfig::port_buffer_bytes`) and ECN marking (`FabricConfig::ecn_mark_bytes`).

mod cluster;
mod packet;
pub mod tcp;

pub use cluster::{
    BaselineCluster, BaselineConfig, BaselineError, Transport, TransportReport, dctcp_mark_bytes,
};
