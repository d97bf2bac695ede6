//! Running Verilator and the C++ compiler, with a cache in `OUT_DIR`.
//!
//! Each unit of work (the Verilator runtime; one model: `verilator --cc` plus compiling its
//! C++ and shim) lives in its own directory under `OUT_DIR/rtl/` with a `stamp` file holding
//! the hash of every input (sources, flags, Verilator version, generated shim text). A rerun
//! of the build script with unchanged inputs reuses the objects, so touching one model only
//! recompiles that model.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A working Verilator installation.
#[derive(Debug, Clone)]
pub struct Verilator {
    /// The program to run (`$VERILATOR` or `verilator`).
    pub program: PathBuf,
    /// `verilator --version`, part of every cache key.
    pub version: String,
    /// `$VERILATOR_ROOT/include`: the runtime sources and headers.
    pub include: PathBuf,
    /// C++ flags Verilator's configure chose for this compiler (`CFG_CXXFLAGS_NO_UNUSED`).
    pub cxx_flags: Vec<String>,
}

impl Verilator {
    /// Finds Verilator, or says why it is unusable.
    pub fn find() -> Result<Self, String> {
        let program =
            PathBuf::from(std::env::var_os("VERILATOR").unwrap_or_else(|| "verilator".into()));
        let run = |args: &[&str]| -> Result<String, String> {
            let output = Command::new(&program).args(args).output().map_err(|e| {
                format!("cannot run `{} {}`: {e}", program.display(), args.join(" "))
            })?;
            if !output.status.success() {
                return Err(format!(
                    "`{} {}` failed ({}): {}",
                    program.display(),
                    args.join(" "),
                    output.status,
                    String::from_utf8_lossy(&output.stderr).trim()
                ));
            }
            Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
        };
        let version = run(&["--version"])?;
        let root = PathBuf::from(run(&["--getenv", "VERILATOR_ROOT"])?);
        let include = root.join("include");
        for file in ["verilated.cpp", "verilated_vcd_c.cpp", "vltstd/svdpi.h"] {
            if !include.join(file).is_file() {
                return Err(format!(
                    "{version} has no {} (incomplete installation?)",
                    include.join(file).display()
                ));
            }
        }
        let mk = fs::read_to_string(include.join("verilated.mk")).unwrap_or_default();
        let mut cxx_flags: Vec<String> = mk
            .lines()
            .filter_map(|l| l.strip_prefix("CFG_CXXFLAGS_NO_UNUSED"))
            .filter_map(|l| l.trim_start().strip_prefix('='))
            .flat_map(|l| l.split_whitespace().map(str::to_string))
            .collect();
        if cxx_flags.is_empty() {
            cxx_flags.push("-Wno-unused-parameter".into());
        }
        Ok(Self {
            program,
            version,
            include,
            cxx_flags,
        })
    }

    /// A `cc` build with Verilator's include directories, defines and flags, at `opt`.
    pub fn cxx(&self, opt: &str, out_dir: &Path) -> cc::Build {
        let mut build = cc::Build::new();
        build
            .cpp(true)
            .std("c++17")
            .opt_level_str(opt)
            .debug(false)
            .warnings(false)
            .extra_warnings(false)
            .cargo_metadata(false)
            .out_dir(out_dir)
            .include(&self.include)
            .include(self.include.join("vltstd"));
        for (name, value) in [
            ("VM_COVERAGE", "0"),
            ("VM_SC", "0"),
            ("VM_TRACE", "1"),
            ("VM_TRACE_FST", "0"),
            ("VM_TRACE_VCD", "1"),
        ] {
            build.define(name, value);
        }
        for flag in &self.cxx_flags {
            build.flag(flag);
        }
        build
    }
}

/// Optimisation of the per-cycle code (Verilator's own `OPT_FAST`).
pub const OPT_FAST: &str = "s";
/// Optimisation of the run-once construction and trace-setup code (`OPT_SLOW`, none).
pub const OPT_SLOW: &str = "0";

/// The Verilator command-line options of every model (part of its cache key). Every
/// variable, memories included, starts at 0 (`--x-initial 0`), as an FPGA's registers and
/// block RAM do after configuration.
pub const VERILATOR_ARGS: &[&str] = &[
    "--cc",
    "--x-initial",
    "0",
    "--trace",
    "--threads",
    "1",
    "--no-timing",
    "-Wno-fatal",
    "-O3",
];

/// FNV-1a over a sequence of byte strings (each length-prefixed): the cache key.
#[derive(Debug, Clone)]
pub struct Key(u64);

impl Key {
    /// The empty key.
    pub fn new() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }

    /// Mixes in `bytes`.
    pub fn add(&mut self, bytes: impl AsRef<[u8]>) -> &mut Self {
        let bytes = bytes.as_ref();
        for b in (bytes.len() as u64).to_le_bytes().iter().chain(bytes) {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
        self
    }

    /// Mixes in the path and contents of a file (a missing file hashes as such).
    pub fn add_file(&mut self, path: &Path) -> &mut Self {
        self.add(path.to_string_lossy().as_bytes());
        match fs::read(path) {
            Ok(bytes) => self.add(bytes),
            Err(_) => self.add(b"<missing>"),
        }
    }

    /// Hex form, as stored in stamps.
    pub fn hex(&self) -> String {
        format!("{:016x}", self.0)
    }
}

/// A cached unit of work: a directory and the files it produced.
#[derive(Debug)]
pub struct Unit {
    /// Its directory.
    pub dir: PathBuf,
    key: String,
}

impl Unit {
    /// The unit `name` under `root`, valid for `key`.
    pub fn new(root: &Path, name: &str, key: &Key) -> Self {
        Self {
            dir: root.join(name),
            key: key.hex(),
        }
    }

    /// The objects recorded by a previous run with the same key, if they all still exist.
    pub fn cached(&self) -> Option<Vec<PathBuf>> {
        let stamp = fs::read_to_string(self.dir.join("stamp")).ok()?;
        let mut lines = stamp.lines();
        if lines.next()? != self.key {
            return None;
        }
        let objects: Vec<PathBuf> = lines.map(PathBuf::from).collect();
        objects.iter().all(|o| o.is_file()).then_some(objects)
    }

    /// Empties the directory for a fresh run.
    pub fn clear(&self) -> Result<(), String> {
        if self.dir.exists() {
            fs::remove_dir_all(&self.dir)
                .map_err(|e| format!("cannot clear {}: {e}", self.dir.display()))?;
        }
        fs::create_dir_all(&self.dir)
            .map_err(|e| format!("cannot create {}: {e}", self.dir.display()))
    }

    /// Records the objects of a successful run.
    pub fn commit(&self, objects: &[PathBuf]) -> Result<(), String> {
        let mut stamp = self.key.clone();
        for object in objects {
            stamp.push('\n');
            stamp.push_str(&object.to_string_lossy());
        }
        write(&self.dir.join("stamp"), &stamp)
    }
}

/// Writes a file, with the path in the error.
pub fn write(path: &Path, text: &str) -> Result<(), String> {
    fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Compiles `files` with `build` (in parallel, through cargo's jobserver).
pub fn compile(
    mut build: cc::Build,
    files: &[PathBuf],
    what: &str,
) -> Result<Vec<PathBuf>, String> {
    if files.is_empty() {
        return Ok(Vec::new());
    }
    build.files(files);
    build
        .try_compile_intermediates()
        .map_err(|e| format!("compiling {what} failed: {e}"))
}

/// Compiles the Verilator runtime (cached).
pub fn runtime(tool: &Verilator, root: &Path) -> Result<Vec<PathBuf>, String> {
    let sources: Vec<PathBuf> = [
        "verilated.cpp",
        "verilated_threads.cpp",
        "verilated_vcd_c.cpp",
    ]
    .iter()
    .map(|f| tool.include.join(f))
    .collect();
    let mut key = Key::new();
    key.add(&tool.version)
        .add(OPT_FAST)
        .add(tool.cxx_flags.join(" "));
    for source in &sources {
        key.add_file(source);
    }
    let unit = Unit::new(root, "runtime", &key);
    if let Some(objects) = unit.cached() {
        return Ok(objects);
    }
    unit.clear()?;
    let objects = compile(
        tool.cxx(OPT_FAST, &unit.dir),
        &sources,
        "the Verilator runtime",
    )?;
    unit.commit(&objects)?;
    Ok(objects)
}

/// Runs `verilator --cc` for top module `top` into `mdir` (emptied first). Its warnings are
/// returned for the caller to show; an error carries Verilator's own messages, which name
/// the Verilog file and line.
pub fn verilate(
    tool: &Verilator,
    top: &str,
    files: &[PathBuf],
    mdir: &Path,
) -> Result<Vec<String>, String> {
    let output = Command::new(&tool.program)
        .args(VERILATOR_ARGS)
        .arg("--top-module")
        .arg(top)
        .arg("--Mdir")
        .arg(mdir)
        .args(files)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", tool.program.display()))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(format!(
            "verilator failed on module `{top}` ({}):\n{}",
            output.status,
            stderr.trim_end()
        ));
    }
    Ok(stderr
        .lines()
        .filter(|l| l.starts_with("%Warning"))
        .map(str::to_string)
        .collect())
}

/// The `.cpp` files Verilator wrote into `mdir`, split into (per-cycle, run-once) code.
pub fn generated_sources(mdir: &Path) -> Result<(Vec<PathBuf>, Vec<PathBuf>), String> {
    let entries = fs::read_dir(mdir).map_err(|e| format!("cannot list {}: {e}", mdir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "cpp"))
        .collect();
    files.sort();
    Ok(files.into_iter().partition(|p| {
        !p.file_stem()
            .is_some_and(|s| s.to_string_lossy().ends_with("__Slow"))
    }))
}
