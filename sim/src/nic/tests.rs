//! Tests of the simulated NIC (they need the Verilated core).
#![allow(non_snake_case)]
