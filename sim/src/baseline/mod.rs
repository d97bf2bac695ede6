//! Transports other than Homa on the same fabric, workloads and reporting: the baselines
//! that Homa's claims are measured against.
//!
//! - [`tcp`]: one direction of a TCP connection, sans IO: NewReno, and DCTCP's reaction to
//!   ECN echoes.
//! - [`pfabric`]: pFabric's end hosts, sans IO: a flow per message, ranked by bytes left.
//! - [`BaselineCluster`]: hosts running TCP, DCTCP or pFabric over [`crate::fabric`], one connection
//!   per host pair, fed the same messages as [`crate::cluster::Cluster`] for a seed and
//!   measured the same way (a [`crate::cluster::Report`]).
//!
//! The switch features they need live in the fabric: drop-tail buffers
//! (`FabricConfig::port_buffer_bytes`), ECN marking (`FabricConfig::ecn_mark_bytes`) and
//! pFabric's scheduling and dropping by rank (`FabricConfig::pfabric`).

mod cluster;
mod packet;
pub mod pfabric;
mod switches;
pub mod tcp;

pub use cluster::{BaselineCluster, BaselineConfig, BaselineError, Transport, TransportReport};
pub use switches::{PFABRIC_BUFFER_BYTES, dctcp_mark_bytes, fabric_for, pias_thresholds};
