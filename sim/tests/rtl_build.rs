//! Unit tests of the code generator in `sim/build/`: the manifest parser, the port list read
//! from Verilator's header, the clock/reset choice and the generated shim and wrapper text.
//! The build script's modules are compiled here through `#[path]`; they need no Verilator.

#![allow(non_snake_case)]

#[path = "../build/codegen.rs"]
mod codegen;
#[path = "../build/manifest.rs"]
mod manifest;
#[path = "../build/ports.rs"]
mod ports;

use std::path::{Path, PathBuf};

use manifest::{ClockSpec, ResetSpec};
use ports::{Clocking, Dir, Port};

fn parse(text: &str) -> Result<Vec<manifest::ModelSpec>, String> {
    manifest::parse(Path::new("hw/rtl/models.txt"), text)
}

#[test]
fn manifest__basics() {
    let specs = parse(
        "# comment\n\nfoo\nbar_w64 a.v sub/b.v clock=clk reset_n=rst_n # trailing\nbaz reset=none clock=none\n",
    )
    .unwrap_or_default();
    assert_eq!(specs.len(), 3);
    assert_eq!(specs[0].top, "foo");
    assert_eq!(specs[0].files, [PathBuf::from("hw/rtl/foo.v")]);
    assert_eq!(
        (&specs[0].clock, &specs[0].reset),
        (&ClockSpec::Auto, &ResetSpec::Auto)
    );
    assert_eq!(
        specs[1].files,
        [PathBuf::from("hw/rtl/a.v"), PathBuf::from("hw/rtl/sub/b.v")]
    );
    assert_eq!(specs[1].clock, ClockSpec::Port("clk".into()));
    assert_eq!(specs[1].reset, ResetSpec::Low("rst_n".into()));
    assert_eq!(specs[1].origin.to_string(), "hw/rtl/models.txt:4");
    assert_eq!(
        (&specs[2].clock, &specs[2].reset),
        (&ClockSpec::None, &ResetSpec::None)
    );
}

#[test]
fn manifest__errors_name_file_and_line() {
    let cases = [
        (
            "9lives\n",
            "hw/rtl/models.txt:1: `9lives` is not a plain Verilog module name",
        ),
        (
            "a\n\nb clk=x\n",
            "hw/rtl/models.txt:3: unknown option `clk=x`",
        ),
        (
            "a clock=x clock=y\n",
            "hw/rtl/models.txt:1: `clock=y`: the clock is already given",
        ),
        (
            "a reset=r reset_n=r\n",
            "hw/rtl/models.txt:1: `reset_n=r`: the reset_n is already",
        ),
        (
            "a clock=x-y\n",
            "hw/rtl/models.txt:1: `clock=x-y`: `x-y` is not a port name",
        ),
        (
            "a ../up.v\n",
            "hw/rtl/models.txt:1: `../up.v`: source files must be relative",
        ),
        (
            "a /abs.v\n",
            "hw/rtl/models.txt:1: `/abs.v`: source files must be relative",
        ),
        (
            "a\nb\na\n",
            "hw/rtl/models.txt:3: module `a` is already listed at line 1",
        ),
    ];
    for (text, expected) in cases {
        let error = parse(text).err().unwrap_or_default();
        assert!(error.starts_with(expected), "{text:?}: got {error:?}");
    }
}

#[test]
fn declared_modules__finds_module_headers() {
    let verilog = "// module not_this\nmodule top(a);\n  module  inner #(parameter W=1) (\nendmodule\nmodulex y;\n";
    assert_eq!(manifest::declared_modules(verilog), ["top", "inner"]);
}

const HEADER: &str = "\
class Vtop VL_NOT_FINAL : public VerilatedModel {
  public:
    // PORTS
    VL_IN8(&clock,0,0);
    VL_IN8(&rst_n,0,0);
    VL_OUT8(&odd,8,1);
    VL_INOUT16(&bus,15,0);
    VL_IN(&addr,31,0);
    VL_OUT64(&stamp,47,0);
    VL_INW(&s_axis_tdata,511,0,16);
    VL_UNCOPYABLE(Vtop);  ///< Copying not allowed
";

fn header(text: &str) -> Result<Vec<Port>, String> {
    ports::parse_header(Path::new("Vtop.h"), text)
}

#[test]
fn parse_header__basics() {
    let ports = header(HEADER).unwrap_or_default();
    let summary: Vec<(&str, Dir, u32, u32, u32)> = ports
        .iter()
        .map(|p| (p.name.as_str(), p.dir, p.msb, p.lsb, p.width))
        .collect();
    assert_eq!(
        summary,
        [
            ("clock", Dir::In, 0, 0, 1),
            ("rst_n", Dir::In, 0, 0, 1),
            ("odd", Dir::Out, 8, 1, 8),
            ("bus", Dir::InOut, 15, 0, 16),
            ("addr", Dir::In, 31, 0, 32),
            ("stamp", Dir::Out, 47, 0, 48),
            ("s_axis_tdata", Dir::In, 511, 0, 512),
        ]
    );
    assert!(ports[6].is_wide() && ports[6].words() == 16 && ports[6].is_input());
    assert!(!ports[5].is_wide() && !ports[5].is_input() && ports[3].is_input());
}

#[test]
fn parse_header__errors_name_file_and_line() {
    let cases = [
        (
            "VL_IN8(&a,0,0)\n",
            "Vtop.h:1: unsupported port declaration `VL_IN8(&a,0,0)`: expected",
        ),
        (
            "\nVL_IN8(a,0,0);\n",
            "Vtop.h:2: unsupported port declaration `VL_IN8(a,0,0);`: expected `&name`",
        ),
        (
            "VL_IN8(&a[4],7,0);\n",
            "Vtop.h:1: unsupported port declaration `VL_IN8(&a[4],7,0);`: the name",
        ),
        (
            "VL_IN8(&a,x,0);\n",
            "Vtop.h:1: unsupported port declaration `VL_IN8(&a,x,0);`: expected numeric",
        ),
        (
            "VL_IN8(&a,8,0);\n",
            "Vtop.h:1: unsupported port declaration `VL_IN8(&a,8,0);`: width does not fit",
        ),
        (
            "VL_IN32(&a,8,0);\n",
            "Vtop.h:1: unsupported port declaration `VL_IN32(&a,8,0);`: unknown port macro",
        ),
        (
            "VL_INW(&a,99,0,3);\n",
            "Vtop.h:1: unsupported port declaration `VL_INW(&a,99,0,3);`: wide port",
        ),
        (
            "VL_INW(&a,63,0,2);\n",
            "Vtop.h:1: unsupported port declaration `VL_INW(&a,63,0,2);`: wide port",
        ),
        (
            "VL_IN8(&a,0,0,1);\n",
            "Vtop.h:1: unsupported port declaration `VL_IN8(&a,0,0,1);`: wrong number",
        ),
        (
            "VL_IN8(&a,0,0);\nVL_OUT8(&a,0,0);\n",
            "Vtop.h:2: unsupported port declaration `VL_OUT8(&a,0,0);`: port declared twice",
        ),
        (
            "class Vtop {};\n",
            "Vtop.h: no VL_IN*/VL_OUT* port declarations found",
        ),
    ];
    for (text, expected) in cases {
        let error = header(text).err().unwrap_or_default();
        assert!(error.starts_with(expected), "{text:?}: got {error:?}");
    }
}

fn clocking(line: &str) -> Result<Clocking, String> {
    let spec = parse(line)?.pop().ok_or("no spec")?;
    ports::clocking(&spec, &header(HEADER)?)
}

#[test]
fn clocking__by_name_and_by_manifest() {
    let auto = clocking("top\n");
    assert_eq!(
        auto,
        Ok(Clocking {
            clock: Some("clock".into()),
            reset: Some(("rst_n".into(), true)),
        })
    );
    let none = clocking("top clock=none\n");
    assert_eq!(none, Ok(Clocking::default()), "a found reset needs a clock");
    let high = clocking("top reset=rst_n\n").map(|c| c.reset);
    assert_eq!(high, Ok(Some(("rst_n".into(), false))));
}

#[test]
fn clocking__errors() {
    let cases = [
        (
            "top clock=nope\n",
            "hw/rtl/models.txt:1: clock `nope` is not a 1-bit input of module `top`",
        ),
        (
            "top clock=odd\n",
            "hw/rtl/models.txt:1: clock `odd` is not a 1-bit input",
        ),
        (
            "top reset=addr\n",
            "hw/rtl/models.txt:1: reset `addr` is not a 1-bit input",
        ),
        (
            "top clock=none reset=rst_n\n",
            "hw/rtl/models.txt:1: module `top` has a reset but no clock",
        ),
    ];
    for (line, expected) in cases {
        let error = clocking(line).err().unwrap_or_default();
        assert!(error.starts_with(expected), "{line:?}: got {error:?}");
    }
}

#[test]
fn type_name__camel_case() {
    assert_eq!(codegen::type_name("homa_rx_parser_w64"), "HomaRxParserW64");
    assert_eq!(codegen::type_name("top__x"), "TopX");
}

#[test]
fn shim_cpp__masks_and_clock() {
    let ports = header(HEADER).unwrap_or_default();
    let clocking = Clocking {
        clock: Some("clock".into()),
        reset: Some(("rst_n".into(), true)),
    };
    let shim = codegen::shim_cpp("top", &ports, &clocking);
    for expected in [
        "#include \"Vtop.h\"",
        "void homa_rtl_top_tick(void* p, uint64_t n) noexcept {",
        "m->model.clock = 1;",
        "uint64_t homa_rtl_top_get_stamp(const void* p) noexcept { return model(p)->model.stamp; }",
        "model(p)->model.addr = static_cast<IData>(v & ((UINT64_C(1) << 32) - 1));",
        "model(p)->model.s_axis_tdata.at(15) = v[15] & static_cast<uint32_t>(((UINT64_C(1) << 32) - 1));",
        "std::memcpy(v, model(p)->model.s_axis_tdata.data(), 16 * sizeof(uint32_t));",
        "void homa_rtl_top_set_bus(void* p, uint64_t v) noexcept",
    ] {
        assert!(shim.contains(expected), "missing {expected:?} in\n{shim}");
    }
    assert!(!shim.contains("set_odd"), "outputs have no setter");
    assert!(codegen::SHIM_HEADER.contains("noexcept"));
}

#[test]
fn rust_model__api() {
    let ports = header(HEADER).unwrap_or_default();
    let clocking = Clocking {
        clock: Some("clock".into()),
        reset: Some(("rst_n".into(), true)),
    };
    let rust = codegen::rust_model(&codegen::RustModel {
        top: "top",
        sources: vec!["hw/rtl/top.v".into()],
        ports: &ports,
        clocking: &clocking,
    });
    for expected in [
        "/// Verilator model of the Verilog module `top` (`hw/rtl/top.v`).",
        "pub struct Top {",
        "pub fn set_s_axis_tdata(&mut self, value: &[u32; 16]) {",
        "pub fn get_s_axis_tdata(&self) -> [u32; 16] {",
        "pub fn get_stamp(&self) -> u64 {",
        "pub fn reset(&mut self, cycles: u64) {\n        self.set_rst_n(0);",
        "impl crate::rtl::Clocked for Top {",
        "crate::rtl::Port { name: \"odd\", dir: crate::rtl::PortDir::Out, msb: 8, lsb: 1, width: 8 },",
    ] {
        assert!(rust.contains(expected), "missing {expected:?}");
    }
    assert!(!rust.contains("set_odd"), "outputs have no setter");
    let unsafe_blocks = rust.matches("unsafe {").count();
    let safety_notes = rust.matches("// SAFETY:").count();
    assert_eq!(
        unsafe_blocks, safety_notes,
        "every unsafe block has a SAFETY note"
    );
}
