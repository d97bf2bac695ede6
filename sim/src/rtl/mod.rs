//! Verilator co-simulation: the generated Verilog of `hw`, compiled into Rust-callable models
//! that tests drive cycle by cycle.
//!
//! # Design notes
//!
//! `sim/build.rs` reads `hw/rtl/models.txt` (the hardware) and `sim/tests/rtl/models.txt`
//! (self-test designs of this machinery), runs `verilator --cc --trace --threads 1` on each
//! listed top module, reads the elaborated port list from the generated `V<top>.h`, and
//! generates a C shim plus a Rust wrapper per model. Everything is compiled with the `cc`
//! crate into one archive with one copy of the Verilator runtime. The wrappers appear here as
//! [`models`] (hardware) and [`test_models`] (self-tests), one struct per model named in
//! CamelCase after its top module: `homa_rx_parser_w64` becomes `models::HomaRxParserW64`.
//!
//! Each struct has, besides `new()`/`Default` and `Drop`:
//! - `set_<port>(u64)` for inputs of up to 64 bits and `set_<port>(&[u32; N])` for wider
//!   ones (word 0 holds bits 31..0, as in Verilator's `VlWide`; [`words_from_le_bytes`] packs
//!   a byte lane); bits past the port's width are ignored;
//! - `get_<port>()` for every port, returning `u64` or `[u32; N]`; a getter first evaluates
//!   the model if an input changed, so combinational outputs are always up to date;
//! - `tick()`/`ticks(n)` if it has a clock (input `clock`, `clk` or `aclk`, or named in the
//!   manifest): clock low, evaluate, clock high, evaluate. The clock rests high between
//!   ticks, so inputs set between two ticks are sampled at the next rising edge, and outputs
//!   read after `tick()` are the registered values after that edge. `new()` evaluates once
//!   with the clock low, so the first tick is a real edge;
//! - `reset(cycles)` if it also has a reset (`reset`/`rst` active high,
//!   `reset_n`/`rst_n`/`resetn`/`aresetn` active low, or named in the manifest);
//! - `step()` instead of `tick()` if it has no clock;
//! - `trace_to(path)`, `trace_path()`, `trace_close()`: a VCD waveform, 10 time units per
//!   clock cycle (falling edge at 10·c, rising edge at 10·c + 5);
//! - the [`Model`] trait (name, port table, eval) and, when clocked, [`Clocked`].
//!
//! ```ignore
//! // (compiled and run as `docs__module_example` in sim/tests/rtl_models.rs)
//! use homa_sim::rtl::test_models::RtlTestAxisFifo;
//! let mut fifo = RtlTestAxisFifo::new();
//! fifo.reset(2); // rst_n low for two cycles
//! fifo.set_s_axis_tdata(&homa_sim::rtl::words_from_le_bytes(&[0xab; 64]).unwrap());
//! fifo.set_s_axis_tvalid(1);
//! let accepted = fifo.get_s_axis_tready() == 1; // sampled before the edge
//! fifo.tick();
//! assert_eq!(fifo.get_m_axis_tvalid(), u64::from(accepted));
//! ```
//!
//! Waveforms: with `HOMA_VCD=<file.vcd>` in the environment every model instance records one
//! (the first instance of the process writes `<file.vcd>`, the n-th `<file>-<n>.vcd`; with
//! `HOMA_VCD=<dir>/`, `<dir>/<module>-<n>.vcd`; a relative path is relative to the working
//! directory, `sim/` under `cargo test`). Each instance prints its file on stderr, which the
//! test harness shows for failing tests. Typical use: `HOMA_VCD=/tmp/w.vcd cargo test -p
//! homa-sim --test <file> <one test>`. `HOMA_VCD_ONLY=<n>[,<n>...]` records only those
//! instances (numbered as the file names are, in the order the process creates them: in a
//! `homa-nic sim --engine rtl` cluster, host n's NIC core is instance n), so that one NIC of
//! a long run can be watched without writing every other one's waveform.
//!
//! Adding a model: put the Verilog under `hw/rtl/` and add its top module on a line of
//! `hw/rtl/models.txt` (format in that file's header: `<top> [files] [clock=] [reset=|reset_n=]`).
//! The next `cargo build` regenerates everything; flat top-level ports bind best.
//!
//! Without Verilator at build time there are no models: [`MODELS_BUILT`] is `false` (the
//! build printed a warning), and tests print [`SKIP_MESSAGE`] instead of running.
//!
//! Unsafe code: the workspace forbids it and STYLE keeps it in `driver`, but the FFI to the
//! Verilated C++ has to live in the crate that links the models, so the one exception is the
//! private `ffi` module here (the generated wrappers): every `unsafe` block there carries a
//! `// SAFETY:` note; this module and the rest of `homa-sim` stay safe.
//!
//! Each instance owns its own `VerilatedContext`, so instances on different threads (parallel
//! tests) are independent. A model is neither `Send` nor `Sync`. A Verilog `$stop` or a
//! Verilator fatal error (e.g. a combinational loop that does not settle) aborts the process,
//! as in any Verilator program.

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

#[cfg(homa_rtl)]
mod ffi;
#[cfg(homa_rtl)]
pub use ffi::{models, test_models};
#[cfg(homa_rtl)]
pub mod nic_core;

/// Whether Verilator was available when `homa-sim` was built, i.e. whether [`models`] and
/// [`test_models`] exist.
pub const MODELS_BUILT: bool = cfg!(homa_rtl);

/// What a test that needs the models prints when they were not built.
pub const SKIP_MESSAGE: &str = "SKIP: Verilator was not found when homa-sim was built, so no \
     RTL model exists; run scripts/setup.sh and rebuild to run this test";

/// Direction of a model port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PortDir {
    /// `input`: has a setter and a getter.
    In,
    /// `output`: has a getter.
    Out,
    /// `inout`: has a setter and a getter.
    InOut,
}

/// One port of a model, as Verilator elaborated it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Port {
    /// Its name (the Verilog name, unless Verilator had to mangle it).
    pub name: &'static str,
    /// Its direction.
    pub dir: PortDir,
    /// Left bound of its range (Verilator normalises `[0:3]` to `[3:0]`).
    pub msb: u32,
    /// Right bound of its range.
    pub lsb: u32,
    /// Its width in bits.
    pub width: u32,
}

impl Port {
    /// Ports wider than 64 bits are accessed as arrays of 32-bit words.
    pub fn is_wide(&self) -> bool {
        self.width > 64
    }

    /// The number of 32-bit words of a wide port (and 1 or 2 for a narrow one).
    pub fn words(&self) -> u32 {
        self.width.div_ceil(32)
    }
}

/// What every generated model implements.
pub trait Model {
    /// The Verilog top module.
    const NAME: &'static str;
    /// Its ports, in the order of Verilator's header (grouped by C++ type).
    const PORTS: &'static [Port];

    /// Propagates inputs set since the last evaluation.
    fn eval(&mut self);

    /// Clock cycles ticked so far (evaluation steps, for a model without a clock).
    fn cycles(&self) -> u64;

    /// Records a VCD waveform to `path` from now on.
    fn trace_to(&mut self, path: &Path) -> Result<(), RtlError>;

    /// The port called `name`.
    fn port(name: &str) -> Option<&'static Port> {
        Self::PORTS.iter().find(|p| p.name == name)
    }
}

/// A model with a clock.
pub trait Clocked: Model {
    /// One clock cycle (low, evaluate, high, evaluate).
    fn tick(&mut self);

    /// `n` clock cycles with the inputs unchanged.
    fn ticks(&mut self, n: u64);
}

/// Errors of the co-simulation.
#[derive(Debug, thiserror::Error)]
pub enum RtlError {
    /// The waveform file could not be created.
    #[error("failed to create the waveform file {}", path.display())]
    CreateTrace {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A model records one waveform at a time.
    #[error(
        "failed to open the waveform {}: this model is already recording {}",
        path.display(),
        open.display()
    )]
    TraceAlreadyOpen {
        /// The file asked for.
        path: PathBuf,
        /// The file being recorded.
        open: PathBuf,
    },
    /// Verilator takes a C string: the path must be UTF-8 without NUL bytes.
    #[error(
        "failed to open the waveform {}: the path is not UTF-8 or contains a NUL byte",
        path.display()
    )]
    TracePath {
        /// The file.
        path: PathBuf,
    },
    /// Verilator's VCD writer could not open the file.
    #[error("failed to open the waveform {}: Verilator could not open it", path.display())]
    OpenTrace {
        /// The file.
        path: PathBuf,
    },
}

/// Packs little-endian bytes into the 32-bit words of a wide port: byte `i` goes to bits
/// `8i+7..8i` (AXI-stream byte lane `i`). Missing bytes are zero; `None` if `bytes` does not
/// fit in `N` words.
pub fn words_from_le_bytes<const N: usize>(bytes: &[u8]) -> Option<[u32; N]> {
    if bytes.len() > 4 * N {
        return None;
    }
    let mut words = [0u32; N];
    for (i, byte) in bytes.iter().enumerate() {
        words[i / 4] |= u32::from(*byte) << (8 * (i % 4));
    }
    Some(words)
}

/// Packs at most 8 bytes into a port of up to 64 bits, byte `i` in bits `8i+7..8i`, missing
/// bytes zero (bytes past 8 are dropped): a narrow port's [`words_from_le_bytes`].
pub fn u64_from_le_bytes(bytes: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = bytes.len().min(8);
    b[..n].copy_from_slice(&bytes[..n]);
    u64::from_le_bytes(b)
}

/// Unpacks the words of a wide port into little-endian bytes (the inverse of
/// [`words_from_le_bytes`]): `4 * words.len()` bytes, byte `i` from bits `8i+7..8i`.
pub fn words_to_le_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Model instances created in this process, for distinct waveform names.
static INSTANCES: AtomicU64 = AtomicU64::new(0);

/// Where a new instance of model `name` records its waveform, from the `HOMA_VCD`
/// environment variable: `None` if it is unset or empty; for a directory (existing, or
/// written with a trailing `/`), `<dir>/<name>-<n>.vcd`; for a file, the file itself for the
/// first instance of the process and `<stem>-<n>.<ext>` for the n-th after it.
pub fn vcd_path_from_env(name: &str) -> Option<PathBuf> {
    let value = std::env::var_os("HOMA_VCD").filter(|v| !v.is_empty())?;
    let n = INSTANCES.fetch_add(1, Ordering::Relaxed);
    let only = std::env::var("HOMA_VCD_ONLY").ok();
    match instance_selected(only.as_deref(), n) {
        Ok(true) => {}
        Ok(false) => return None,
        Err(e) => {
            eprintln!("homa-sim: {name}: no waveform: {e}");
            return None;
        }
    }
    let base = PathBuf::from(&value);
    let is_dir = base.is_dir() || value.to_string_lossy().ends_with(std::path::MAIN_SEPARATOR);
    let path = if is_dir {
        base.join(format!("{name}-{n}.vcd"))
    } else if n == 0 {
        base
    } else {
        let stem = base.file_stem().unwrap_or_default().to_string_lossy();
        let file = match base.extension() {
            Some(ext) => format!("{stem}-{n}.{}", ext.to_string_lossy()),
            None => format!("{stem}-{n}"),
        };
        base.with_file_name(file)
    };
    eprintln!("homa-sim: {name}: waveform {}", path.display());
    Some(path)
}

/// Whether instance `n` records its waveform under `HOMA_VCD_ONLY` (`None`: unset, every
/// instance does); a value that is not a comma-separated list of instance numbers is an
/// error, and then none does.
fn instance_selected(only: Option<&str>, n: u64) -> Result<bool, String> {
    let Some(only) = only.map(str::trim).filter(|s| !s.is_empty()) else {
        return Ok(true);
    };
    let mut selected = false;
    for item in only.split(',') {
        let k: u64 = item.trim().parse().map_err(|_| {
            format!(
                "HOMA_VCD_ONLY={only:?}: {item:?} is not an instance number (want e.g. 2 or 0,3)"
            )
        })?;
        selected |= k == n;
    }
    Ok(selected)
}

/// Starts the waveform of a new model instance if `HOMA_VCD` asks for one; a failure is
/// reported on stderr and the model runs without it.
#[cfg_attr(not(homa_rtl), allow(dead_code))]
fn trace_from_env<M: Model>(model: &mut M) {
    if let Some(path) = vcd_path_from_env(M::NAME)
        && let Err(error) = model.trace_to(&path)
    {
        eprintln!("homa-sim: {}: HOMA_VCD: {error}", M::NAME);
    }
}

/// Checks that a model may start recording to `path` (not already recording, the file can
/// be created, its directories are made) and returns the path as a C string.
#[cfg_attr(not(homa_rtl), allow(dead_code))]
fn prepare_trace(path: &Path, open: Option<&Path>) -> Result<CString, RtlError> {
    if let Some(open) = open {
        return Err(RtlError::TraceAlreadyOpen {
            path: path.to_path_buf(),
            open: open.to_path_buf(),
        });
    }
    let create_error = |source| RtlError::CreateTrace {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(create_error)?;
    }
    std::fs::File::create(path).map_err(create_error)?;
    path.to_str()
        .and_then(|s| CString::new(s).ok())
        .ok_or_else(|| RtlError::TracePath {
            path: path.to_path_buf(),
        })
}

/// Turns the status of the C shim's `trace_open` into a result.
#[cfg_attr(not(homa_rtl), allow(dead_code))]
fn trace_status(status: std::ffi::c_int, path: &Path) -> Result<(), RtlError> {
    match status {
        0 => Ok(()),
        _ => Err(RtlError::OpenTrace {
            path: path.to_path_buf(),
        }),
    }
}

/// The C++ allocation of a model failed.
#[cfg_attr(not(homa_rtl), allow(dead_code))]
fn out_of_memory(name: &str) -> ! {
    panic!("homa-sim: out of memory creating a Verilator model of `{name}`")
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn words_from_le_bytes__lane_order_and_padding() {
        let words: [u32; 3] = words_from_le_bytes(&[1, 2, 3, 4, 5]).unwrap_or_default();
        assert_eq!(words, [0x0403_0201, 0x05, 0]);
        assert_eq!(
            words_to_le_bytes(&words),
            [1, 2, 3, 4, 5, 0, 0, 0, 0, 0, 0, 0]
        );
    }

    #[test]
    fn words_from_le_bytes__too_many_bytes() {
        assert_eq!(words_from_le_bytes::<1>(&[0; 5]), None);
    }

    #[test]
    fn prepare_trace__refuses_a_second_waveform() {
        let error = prepare_trace(Path::new("b.vcd"), Some(Path::new("a.vcd")));
        assert_eq!(
            error.map_err(|e| e.to_string()).err().as_deref(),
            Some("failed to open the waveform b.vcd: this model is already recording a.vcd")
        );
    }

    #[test]
    fn instance_selected__a_list_of_instances() {
        assert_eq!(instance_selected(None, 5), Ok(true));
        assert_eq!(instance_selected(Some(" "), 5), Ok(true));
        assert_eq!(instance_selected(Some("2"), 2), Ok(true));
        assert_eq!(instance_selected(Some("2"), 3), Ok(false));
        assert_eq!(instance_selected(Some("0, 3"), 3), Ok(true));
        let e = instance_selected(Some("2,x"), 2).unwrap_err();
        assert!(e.contains("\"x\" is not an instance number"), "{e}");
    }

    #[test]
    fn prepare_trace__reports_an_unwritable_path() {
        let error = prepare_trace(Path::new("/proc/homa-sim-no/x.vcd"), None);
        assert!(matches!(error, Err(RtlError::CreateTrace { .. })));
    }
}
