//! `homa-host`: the Homa RPC library that applications link.
//!
//! Place in the workspace: the top library layer, over `homa-driver` (hosts with the NIC)
//! or the sans-IO engine in `homa-proto` alone (hosts without it). It will offer endpoints
//! bound to ports, client calls (blocking and non-blocking) and server receive/reply.
//!
//! Status: empty; it arrives with the driver and host-library issue.
