//! `models.txt`: the list of Verilog top modules to build into Verilator models.
//!
//! One model per line; `#` starts a comment; blank lines are ignored:
//!
//! ```text
//! <top module> [file.v ...] [clock=<port>|clock=none] [reset=<port>|reset_n=<port>|reset=none]
//! ```
//!
//! Files are relative to the manifest's directory; without any, the model is `<top>.v`.
//! Without `clock=`/`reset=`, the clock and reset are found by port name once Verilator has
//! elaborated the design (see `ports::Clocking`).
//!
//! Pure text processing with no dependencies, so `sim/tests/rtl_build.rs` can unit-test it.

use std::fmt;
use std::path::{Path, PathBuf};

/// How the clock input of a model is chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClockSpec {
    /// Find it by name (`clock`, `clk`, `aclk`); no clock if none of them exists.
    Auto,
    /// This port.
    Port(String),
    /// The model has no clock to tick (combinational, or clocks driven by hand).
    None,
}

/// How the reset input of a model is chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResetSpec {
    /// Find it by name (`reset`, `rst`, `areset` active high; `reset_n`, `rst_n`, `resetn`,
    /// `rstn`, `aresetn` active low); no reset helper if none of them exists.
    Auto,
    /// This port, active high.
    High(String),
    /// This port, active low.
    Low(String),
    /// No reset helper.
    None,
}

/// One line of a manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelSpec {
    /// The Verilog top module, also the stem of every generated name.
    pub top: String,
    /// The Verilog sources, resolved against the manifest's directory.
    pub files: Vec<PathBuf>,
    /// Clock choice.
    pub clock: ClockSpec,
    /// Reset choice.
    pub reset: ResetSpec,
    /// Where the line is, for error messages.
    pub origin: Origin,
}

/// A manifest file and line number (1-based), printed as `path:line`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The manifest.
    pub file: PathBuf,
    /// The line, 1-based.
    pub line: usize,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file.display(), self.line)
    }
}

/// Parses the text of the manifest at `path` (used for file resolution and messages).
///
/// Errors name the file and line: an invalid module name, an unknown `key=value` option, a
/// repeated option, a top listed twice, or a file name that leaves the directory.
pub fn parse(path: &Path, text: &str) -> Result<Vec<ModelSpec>, String> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut models: Vec<ModelSpec> = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let origin = Origin {
            file: path.to_path_buf(),
            line: index + 1,
        };
        let line = raw.split('#').next().unwrap_or("").trim();
        let mut words = line.split_whitespace();
        let Some(top) = words.next() else {
            continue;
        };
        if !is_identifier(top) {
            return Err(format!(
                "{origin}: `{top}` is not a plain Verilog module name (letters, digits and _, \
                 starting with a letter)"
            ));
        }
        if let Some(first) = models.iter().find(|m| m.top == top) {
            return Err(format!(
                "{origin}: module `{top}` is already listed at line {}",
                first.origin.line
            ));
        }
        let mut spec = ModelSpec {
            top: top.to_string(),
            files: Vec::new(),
            clock: ClockSpec::Auto,
            reset: ResetSpec::Auto,
            origin: origin.clone(),
        };
        let (mut clock_set, mut reset_set) = (false, false);
        for word in words {
            if let Some((key, value)) = word.split_once('=') {
                let port = || -> Result<String, String> {
                    if is_identifier(value) {
                        Ok(value.to_string())
                    } else {
                        Err(format!("{origin}: `{word}`: `{value}` is not a port name"))
                    }
                };
                let set = match key {
                    "clock" => &mut clock_set,
                    "reset" | "reset_n" => &mut reset_set,
                    _ => {
                        return Err(format!(
                            "{origin}: unknown option `{word}` (expected clock=, reset= or \
                             reset_n=)"
                        ));
                    }
                };
                if *set {
                    return Err(format!("{origin}: `{word}`: the {key} is already given"));
                }
                *set = true;
                match (key, value) {
                    ("clock", "none") => spec.clock = ClockSpec::None,
                    ("clock", _) => spec.clock = ClockSpec::Port(port()?),
                    ("reset", "none") => spec.reset = ResetSpec::None,
                    ("reset", _) => spec.reset = ResetSpec::High(port()?),
                    _ => spec.reset = ResetSpec::Low(port()?),
                }
            } else {
                let relative = Path::new(word);
                let escapes = relative.is_absolute()
                    || relative
                        .components()
                        .any(|c| matches!(c, std::path::Component::ParentDir));
                if escapes {
                    return Err(format!(
                        "{origin}: `{word}`: source files must be relative paths inside {}",
                        dir.display()
                    ));
                }
                spec.files.push(dir.join(relative));
            }
        }
        if spec.files.is_empty() {
            spec.files.push(dir.join(format!("{top}.v")));
        }
        models.push(spec);
    }
    Ok(models)
}

/// A plain identifier: an ASCII letter, then letters, digits and `_`.
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The modules declared in Verilog text (`module <name>` at the start of a line), in order.
///
/// A scan, not a parser: it is used only to warn about files that look like models but are
/// not listed in the manifest.
pub fn declared_modules(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| line.trim_start().strip_prefix("module"))
        .filter(|rest| rest.starts_with(|c: char| c.is_whitespace()))
        .filter_map(|rest| {
            let name: String = rest
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
                .collect();
            (!name.is_empty()).then_some(name)
        })
        .collect()
}
