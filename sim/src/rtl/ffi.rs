//! The Verilator FFI: the wrappers `sim/build.rs` generates for every model (see the parent
//! module for the API and the design notes).
//!
//! This is the only module of `homa-sim` allowed to use `unsafe`: calls into the generated C
//! shim of each Verilated model. The invariants every `// SAFETY:` note relies on:
//! - a wrapper struct owns exactly one C++ instance, created by `<top>_new` (checked non-null)
//!   and freed once by `<top>_free` in `Drop`;
//! - Rust never forms references into the C++ objects: all access goes through the shim
//!   functions, which take the instance pointer;
//! - the structs hold a raw pointer, so they are neither `Send` nor `Sync`: no two calls on
//!   one instance run concurrently (the getters evaluate through `&self`, which is sound for
//!   the same reason: the C++ state is not Rust memory and is reached only through calls);
//! - wide ports pass a pointer to exactly as many `u32` words as the port has;
//! - every shim function is `noexcept` (a C++ exception aborts instead of unwinding into
//!   Rust).

// The workspace forbids `unsafe`; Verilator FFI has to live in the crate that links the models
// (STYLE keeps unsafe in `driver`: this is the documented exception), so it is allowed here
// and only here.
#![allow(unsafe_code)]
#![deny(clippy::undocumented_unsafe_blocks, unsafe_op_in_unsafe_fn)]

/// The hardware: one model per top module listed in `hw/rtl/models.txt` (empty until that
/// file exists).
pub mod models {
    include!(concat!(env!("OUT_DIR"), "/rtl_models.rs"));
}

/// Self-test designs of the co-simulation machinery, from `sim/tests/rtl/models.txt`:
/// combinational width classes, a counter, and a 512-bit AXI-stream FIFO.
pub mod test_models {
    include!(concat!(env!("OUT_DIR"), "/rtl_test_models.rs"));
}
