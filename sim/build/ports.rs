//! The port list of a Verilated model, read from the `V<top>.h` header Verilator writes.
//!
//! The header is the authoritative, elaborated port list: parameters, `` `define``d widths,
//! ANSI and non-ANSI declarations and `generate` are already resolved by Verilator, and each
//! port is one line in a fixed format that has not changed since Verilator 3:
//!
//! ```text
//!     VL_IN8(&clock,0,0);            // 1-8 bits   CData
//!     VL_OUT16(&count,15,0);         // 9-16 bits  SData
//!     VL_IN(&addr,31,0);             // 17-32 bits IData
//!     VL_OUT64(&stamp,47,0);         // 33-64 bits QData
//!     VL_INW(&s_axis_tdata,511,0,16) // 65+ bits   VlWide<words>
//! ```
//!
//! (`VL_INOUT*` for `inout`.) Pure text processing with no dependencies, so
//! `sim/tests/rtl_build.rs` can unit-test it.

use std::path::Path;

use crate::manifest::{ClockSpec, ModelSpec, ResetSpec};

/// Port direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// `input`.
    In,
    /// `output`.
    Out,
    /// `inout`.
    InOut,
}

/// One port of the top module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Port {
    /// The C++ member name (the Verilog name unless Verilator had to mangle it).
    pub name: String,
    /// Direction.
    pub dir: Dir,
    /// Left bound of the range as Verilator normalised it.
    pub msb: u32,
    /// Right bound.
    pub lsb: u32,
    /// Width in bits.
    pub width: u32,
}

impl Port {
    /// Ports wider than 64 bits are `VlWide` arrays of 32-bit words.
    pub fn is_wide(&self) -> bool {
        self.width > 64
    }

    /// Number of 32-bit words of a wide port.
    pub fn words(&self) -> u32 {
        self.width.div_ceil(32)
    }

    /// The port can be written.
    pub fn is_input(&self) -> bool {
        self.dir != Dir::Out
    }
}

/// Parses the ports out of the text of a Verilator model header (`path` for messages).
pub fn parse_header(path: &Path, text: &str) -> Result<Vec<Port>, String> {
    let mut ports: Vec<Port> = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let at = || format!("{}:{}", path.display(), index + 1);
        let line = raw.trim();
        let Some((macro_name, rest)) = line.split_once('(') else {
            continue;
        };
        let (dir, kind) = if let Some(kind) = macro_name.strip_prefix("VL_INOUT") {
            (Dir::InOut, kind)
        } else if let Some(kind) = macro_name.strip_prefix("VL_IN") {
            (Dir::In, kind)
        } else if let Some(kind) = macro_name.strip_prefix("VL_OUT") {
            (Dir::Out, kind)
        } else {
            continue;
        };
        let bad = |why: &str| format!("{}: unsupported port declaration `{line}`: {why}", at());
        let Some(args) = rest
            .trim_end()
            .strip_suffix(';')
            .and_then(|s| s.trim_end().strip_suffix(')'))
        else {
            return Err(bad("expected `(...);`"));
        };
        let fields: Vec<&str> = args.split(',').map(str::trim).collect();
        let Some(name) = fields.first().and_then(|f| f.strip_prefix('&')) else {
            return Err(bad("expected `&name` as the first argument"));
        };
        if !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Err(bad(
                "the name is not a plain identifier (unpacked array port?)",
            ));
        }
        let number = |i: usize| -> Result<u32, String> {
            fields
                .get(i)
                .and_then(|f| f.parse::<u32>().ok())
                .ok_or_else(|| bad("expected numeric bounds"))
        };
        let (msb, lsb) = (number(1)?, number(2)?);
        let width = msb.abs_diff(lsb) + 1;
        let (max_width, arity) = match kind {
            "8" => (8, 3),
            "16" => (16, 3),
            "" => (32, 3),
            "64" => (64, 3),
            "W" => (u32::MAX, 4),
            _ => return Err(bad("unknown port macro")),
        };
        if fields.len() != arity {
            return Err(bad("wrong number of arguments"));
        }
        if width > max_width {
            return Err(bad("width does not fit the macro's type"));
        }
        let port = Port {
            name: name.to_string(),
            dir,
            msb,
            lsb,
            width,
        };
        if kind == "W" && (width <= 64 || number(3)? != port.words()) {
            return Err(bad("wide port with an inconsistent word count"));
        }
        if ports.iter().any(|p| p.name == port.name) {
            return Err(bad("port declared twice"));
        }
        ports.push(port);
    }
    if ports.is_empty() {
        return Err(format!(
            "{}: no VL_IN*/VL_OUT* port declarations found (a model without ports cannot be \
             driven)",
            path.display()
        ));
    }
    Ok(ports)
}

/// The clock and reset a generated wrapper drives in `tick()` and `reset()`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Clocking {
    /// The clock input, if the model has one to tick.
    pub clock: Option<String>,
    /// The reset input and whether it is active low.
    pub reset: Option<(String, bool)>,
}

const CLOCK_NAMES: &[&str] = &["clock", "clk", "aclk"];
const RESET_HIGH_NAMES: &[&str] = &["reset", "rst", "areset"];
const RESET_LOW_NAMES: &[&str] = &["reset_n", "rst_n", "resetn", "rstn", "aresetn"];

/// Chooses the clock and reset of `spec` among `ports`: named ones must be 1-bit inputs;
/// automatic ones are found by name. A reset needs a clock: a named one without is an error,
/// a found one is dropped.
pub fn clocking(spec: &ModelSpec, ports: &[Port]) -> Result<Clocking, String> {
    let origin = &spec.origin;
    let one_bit_input = |name: &str| {
        ports
            .iter()
            .any(|p| p.name == name && p.is_input() && p.width == 1)
    };
    let named = |name: &str, what: &str| -> Result<String, String> {
        if one_bit_input(name) {
            Ok(name.to_string())
        } else {
            Err(format!(
                "{origin}: {what} `{name}` is not a 1-bit input of module `{}`",
                spec.top
            ))
        }
    };
    let find = |names: &[&str]| {
        names
            .iter()
            .find(|n| one_bit_input(n))
            .map(|n| n.to_string())
    };
    let clock = match &spec.clock {
        ClockSpec::Auto => find(CLOCK_NAMES),
        ClockSpec::Port(name) => Some(named(name, "clock")?),
        ClockSpec::None => None,
    };
    let reset = match &spec.reset {
        ResetSpec::Auto => find(RESET_HIGH_NAMES)
            .map(|n| (n, false))
            .or_else(|| find(RESET_LOW_NAMES).map(|n| (n, true))),
        ResetSpec::High(name) => Some((named(name, "reset")?, false)),
        ResetSpec::Low(name) => Some((named(name, "reset")?, true)),
        ResetSpec::None => None,
    };
    let explicit_reset = matches!(spec.reset, ResetSpec::High(_) | ResetSpec::Low(_));
    if explicit_reset && clock.is_none() {
        return Err(format!(
            "{origin}: module `{}` has a reset but no clock to tick it with",
            spec.top
        ));
    }
    Ok(Clocking {
        reset: reset.filter(|_| clock.is_some()),
        clock,
    })
}
