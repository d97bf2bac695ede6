//! Builds every Verilog model listed in `hw/rtl/models.txt` (and the self-test designs in
//! `sim/tests/rtl/models.txt`) into a Verilator model linked into `homa-sim`, with a generated
//! C shim and Rust wrapper per model (see `src/rtl/mod.rs` for the API).
//!
//! For each model: `verilator --cc --trace` into `OUT_DIR/rtl/model-<top>/`, read the
//! elaborated port list from the generated `V<top>.h` (`build/ports.rs`), choose clock and
//! reset, generate `homa_shim.cpp` and the Rust wrapper (`build/codegen.rs`), compile the
//! model's C++ with the `cc` crate. The Verilator runtime (`verilated.cpp`,
//! `verilated_threads.cpp`, `verilated_vcd_c.cpp`) is compiled once, everything goes into one
//! archive `libhoma_rtl.a`, and `cargo::rustc-cfg=homa_rtl` tells the crate the models exist.
//! Results are cached per model in `OUT_DIR` (`build/verilate.rs`).
//!
//! Without Verilator (no `verilator` on PATH, or `$VERILATOR` unusable), nothing is built:
//! a warning says to run `scripts/setup.sh`, `homa_rtl` is not set, and the RTL tests print
//! SKIP. Setting `HOMA_REQUIRE_RTL=1` turns that case into a build error instead (for CI).
//!
//! Errors (a bad manifest line, Verilog that Verilator rejects, an unusable port list) fail
//! the build with a message naming the file and line.

#[path = "build/codegen.rs"]
mod codegen;
#[path = "build/manifest.rs"]
mod manifest;
#[path = "build/ports.rs"]
mod ports;
#[path = "build/verilate.rs"]
mod verilate;

use std::fs;
use std::path::{Path, PathBuf};

use manifest::ModelSpec;
use verilate::{Key, Unit, Verilator};

/// The build code itself: part of every model's cache key, so a change to the generator
/// regenerates and recompiles the shims.
const GENERATOR: &[&str] = &[
    include_str!("build.rs"),
    include_str!("build/codegen.rs"),
    include_str!("build/manifest.rs"),
    include_str!("build/ports.rs"),
    include_str!("build/verilate.rs"),
];

/// A manifest and the Rust module its models go to.
struct ModelSet {
    /// `models` or `test_models`; also the name of the generated file.
    module: &'static str,
    /// The manifest (may be missing: then the set is empty).
    manifest: PathBuf,
}

fn main() {
    if let Err(error) = run() {
        for line in error.lines() {
            println!("cargo::error={line}");
        }
        std::process::exit(1);
    }
}

fn env_path(name: &str) -> Result<PathBuf, String> {
    std::env::var_os(name)
        .map(PathBuf::from)
        .ok_or_else(|| format!("{name} is not set (not run by cargo?)"))
}

fn run() -> Result<(), String> {
    println!("cargo::rustc-check-cfg=cfg(homa_rtl)");
    println!("cargo::rerun-if-env-changed=VERILATOR");
    println!("cargo::rerun-if-env-changed=VERILATOR_ROOT");
    println!("cargo::rerun-if-env-changed=HOMA_REQUIRE_RTL");
    let sim = env_path("CARGO_MANIFEST_DIR")?;
    let out = env_path("OUT_DIR")?;
    let workspace = sim.parent().unwrap_or(&sim).to_path_buf();
    let hw_rtl = workspace.join("hw").join("rtl");
    let test_rtl = sim.join("tests").join("rtl");
    // Watch hw/rtl, or hw until hw/rtl exists (a missing path would rerun every build).
    let watch_hw = if hw_rtl.is_dir() {
        hw_rtl.clone()
    } else {
        workspace.join("hw")
    };
    for dir in [&watch_hw, &test_rtl] {
        println!("cargo::rerun-if-changed={}", dir.display());
    }

    let sets = [
        ModelSet {
            module: "models",
            manifest: hw_rtl.join("models.txt"),
        },
        ModelSet {
            module: "test_models",
            manifest: test_rtl.join("models.txt"),
        },
    ];
    let mut specs: Vec<(&ModelSet, ModelSpec)> = Vec::new();
    for set in &sets {
        let listed = match fs::read_to_string(&set.manifest) {
            Ok(text) => manifest::parse(&set.manifest, &text)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(format!("cannot read {}: {e}", set.manifest.display())),
        };
        warn_unlisted(&set.manifest, &listed);
        for spec in listed {
            if let Some((_, other)) = specs.iter().find(|(_, s)| {
                codegen::type_name(&s.top) == codegen::type_name(&spec.top) || s.top == spec.top
            }) {
                return Err(format!(
                    "{}: module `{}` clashes with `{}` listed at {}",
                    spec.origin, spec.top, other.top, other.origin
                ));
            }
            specs.push((set, spec));
        }
    }

    let tool = match Verilator::find() {
        Ok(tool) => tool,
        Err(reason) => {
            if std::env::var_os("HOMA_REQUIRE_RTL").is_some_and(|v| v != "0") {
                return Err(format!(
                    "HOMA_REQUIRE_RTL is set but Verilator is unusable: {reason}; run \
                     scripts/setup.sh"
                ));
            }
            println!(
                "cargo::warning=homa-sim: Verilator not available ({reason}): the RTL models \
                 are not built and the RTL tests will SKIP. Run scripts/setup.sh to install it."
            );
            // Installing Verilator adds a file to a PATH directory: watch them, so the
            // models get built on the next cargo run without a manual clean.
            if let Some(path) = std::env::var_os("PATH") {
                for dir in std::env::split_paths(&path).filter(|d| d.is_dir()) {
                    println!("cargo::rerun-if-changed={}", dir.display());
                }
            }
            return Ok(());
        }
    };

    let root = out.join("rtl");
    let include = root.join("include");
    fs::create_dir_all(&include)
        .map_err(|e| format!("cannot create {}: {e}", include.display()))?;
    verilate::write(&include.join("homa_rtl_shim.h"), codegen::SHIM_HEADER)?;

    let mut objects = Vec::new();
    let mut rust: Vec<(&str, String)> = sets
        .iter()
        .map(|set| {
            (
                set.module,
                format!(
                    "// @generated by homa-sim's build.rs from {}. Do not edit.\n",
                    set.manifest.display()
                ),
            )
        })
        .collect();
    for (set, spec) in &specs {
        let model = build_model(&tool, &root, &include, spec, &workspace)?;
        objects.extend(model.objects);
        if let Some((_, text)) = rust.iter_mut().find(|(m, _)| *m == set.module) {
            text.push('\n');
            text.push_str(&model.rust);
        }
    }
    objects.extend(verilate::runtime(&tool, &root)?);
    for (module, text) in &rust {
        verilate::write(&out.join(format!("rtl_{module}.rs")), text)?;
    }

    let mut archive = tool.cxx(verilate::OPT_FAST, &out);
    archive.cargo_metadata(true);
    let library = archive
        .try_create_archive("homa_rtl", &objects)
        .map_err(|e| format!("archiving the RTL models failed: {e}"))?;
    cc::try_emit_link_directives(&archive, &library)
        .map_err(|e| format!("linking the RTL models failed: {e}"))?;
    println!("cargo::rustc-link-lib=atomic");
    println!("cargo::rustc-cfg=homa_rtl");
    Ok(())
}

/// The result of building one model.
struct BuiltModel {
    objects: Vec<PathBuf>,
    rust: String,
}

fn build_model(
    tool: &Verilator,
    root: &Path,
    include: &Path,
    spec: &ModelSpec,
    workspace: &Path,
) -> Result<BuiltModel, String> {
    let top = &spec.top;
    for file in &spec.files {
        if !file.is_file() {
            return Err(format!(
                "{}: module `{top}`: source {} does not exist",
                spec.origin,
                file.display()
            ));
        }
    }
    let mut key = Key::new();
    key.add(&tool.version)
        .add(verilate::VERILATOR_ARGS.join(" "))
        .add(format!("{spec:?}"));
    for text in GENERATOR {
        key.add(text);
    }
    // Every file beside the manifest, for `include`s; then the listed sources.
    let dir = spec.origin.file.parent().unwrap_or(Path::new("."));
    let mut beside: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    beside.sort();
    for file in beside.iter().chain(&spec.files) {
        key.add_file(file);
    }
    let unit = Unit::new(root, &format!("model-{top}"), &key);
    let cached = unit.cached();
    if cached.is_none() {
        unit.clear()?;
        let warnings = verilate::verilate(tool, top, &spec.files, &unit.dir)
            .map_err(|e| format!("{}: {e}", spec.origin))?;
        if !warnings.is_empty() {
            println!(
                "cargo::warning=homa-sim: verilator: {} warning(s) on `{top}` ({}), first: {}",
                warnings.len(),
                spec.origin,
                warnings[0]
            );
        }
    }
    let header = unit.dir.join(format!("V{top}.h"));
    let text = fs::read_to_string(&header)
        .map_err(|e| format!("{}: cannot read {}: {e}", spec.origin, header.display()))?;
    let ports = ports::parse_header(&header, &text)?;
    let clocking = ports::clocking(spec, &ports)?;
    let objects = match cached {
        Some(objects) => objects,
        None => {
            let shim = unit.dir.join("homa_shim.cpp");
            verilate::write(&shim, &codegen::shim_cpp(top, &ports, &clocking))?;
            let (mut fast, slow) = verilate::generated_sources(&unit.dir)?;
            fast.retain(|f| f != &shim);
            fast.push(shim);
            let object_dir = unit.dir.join("obj");
            let mut objects = Vec::new();
            for (files, opt) in [(&fast, verilate::OPT_FAST), (&slow, verilate::OPT_SLOW)] {
                let mut build = tool.cxx(opt, &object_dir);
                build.include(&unit.dir).include(include);
                objects.extend(verilate::compile(build, files, &format!("model `{top}`"))?);
            }
            unit.commit(&objects)?;
            objects
        }
    };
    let sources = spec
        .files
        .iter()
        .map(|f| f.strip_prefix(workspace).unwrap_or(f).display().to_string())
        .collect();
    let rust = codegen::rust_model(&codegen::RustModel {
        top,
        sources,
        ports: &ports,
        clocking: &clocking,
    });
    Ok(BuiltModel { objects, rust })
}

/// Warns about Verilog files that declare a module named like the file but are not listed:
/// probably a model someone forgot to add to the manifest.
fn warn_unlisted(manifest_path: &Path, listed: &[ModelSpec]) {
    let Some(dir) = manifest_path.parent() else {
        return;
    };
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        let is_verilog = path.extension().is_some_and(|x| x == "v" || x == "sv");
        let stem = path.file_stem().map(|s| s.to_string_lossy().to_string());
        let (true, Some(stem)) = (is_verilog, stem) else {
            continue;
        };
        if listed.iter().any(|m| m.top == stem) {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap_or_default();
        if manifest::declared_modules(&text).contains(&stem) {
            println!(
                "cargo::warning=homa-sim: {} declares module `{stem}` but {} does not list \
                 it, so no Verilator model is built for it",
                path.display(),
                manifest_path.display()
            );
        }
    }
}
