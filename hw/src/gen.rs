//! Verilog generation: renders the blocks with rust-hdl and names their modules.
//!
//! rust-hdl names the top module `top` and every submodule `top$path$to$it`; here the
//! prefix becomes the block's name (`homa_rx_parser_w64`, `homa_rx_parser_w64$hb$0`, ...), so
//! several generated blocks can share one Verilator or synthesis run. The top-level ports stay
//! flat (`s_axis_tdata`, `m_hdr_sport`, ...), as the co-simulation binds to them.
//!
//! The generated files live in `hw/rtl/` (committed). The tests below fail when they differ
//! from what the generator produces (`UPDATE_RTL=1 cargo test -p homa-hw` rewrites them), and
//! lint them with `verilator --lint-only -Wall` plus the waivers of `hw/rtl/verilator.vlt`.

use crate::bucket_queue::BucketQueue1024;
use crate::cq_writer::CqWriter;
use crate::data_framer::DataFramer;
use crate::grant::GrantScheduler16;
use crate::grant_framer::GrantFramer;
use crate::grant_queue::GrantQueue1024;
use crate::hdl::*;
use crate::host_rx::HostRx512;
use crate::msg_table::MsgTable1024;
use crate::nic_core::HomaNicCore;
use crate::parser::HomaParser;
use crate::rx_dma::RxDma;
use crate::rx_ring::RxRing512;
use crate::srpt::SrptScheduler16;
use crate::tx_engine::TxEngine512;
use crate::tx_push::TxPush;
use crate::tx_ring::TxRing512;
use crate::tx_sched::TxSched16;

/// Verilator lint waivers for the generated files (`hw/rtl/verilator.vlt`), each justified
/// in the file; `homa-nic gen` writes it beside the Verilog.
pub const LINT_WAIVERS: &str = include_str!("../rtl/verilator.vlt");

/// One generated module: its name (also its file's, `<name>.v`), its role in the NIC, the
/// messages or entries it holds and the width of its data path, where it has them, and its
/// generator.
#[derive(Debug, Clone, Copy)]
pub struct Module {
    /// The top module's name.
    pub name: &'static str,
    /// What it does: `parser`, `msg_table`, `grant`, `grant_framer`, `tx_sched`, `tx_srpt`,
    /// `data_framer`, `tx_engine`, `host_*`, `queue` or `core`.
    pub role: &'static str,
    /// Messages (or entries) it holds.
    pub capacity: Option<u32>,
    /// Bits of its data path.
    pub width: Option<u32>,
    /// Renders its Verilog.
    pub verilog: fn() -> String,
}

/// Every generated module, in the order of `hw/rtl/models.txt`: the one table that drives
/// the generator, the golden files, the lint, the Verilator manifest and `homa-nic synth`.
pub const MODULES: &[Module] = &[
    Module {
        name: "homa_rx_parser_w64",
        role: "parser",
        capacity: None,
        width: Some(64),
        verilog: parser_w64_verilog,
    },
    Module {
        name: "homa_rx_parser_w512",
        role: "parser",
        capacity: None,
        width: Some(512),
        verilog: parser_w512_verilog,
    },
    Module {
        name: SRPT_MODULE,
        role: "tx_srpt",
        capacity: Some(16),
        width: None,
        verilog: srpt_verilog,
    },
    Module {
        name: GRANT_MODULE,
        role: "grant",
        capacity: Some(16),
        width: None,
        verilog: grant_verilog,
    },
    Module {
        name: "homa_rx_grant_framer_w64",
        role: "grant_framer",
        capacity: None,
        width: Some(64),
        verilog: framer_verilog::<8, 64>,
    },
    Module {
        name: FRAMER_MODULE,
        role: "grant_framer",
        capacity: None,
        width: Some(512),
        verilog: framer_verilog::<64, 512>,
    },
    Module {
        name: TABLE_MODULE,
        role: "msg_table",
        capacity: Some(1024),
        width: None,
        verilog: table_verilog,
    },
    Module {
        name: NIC_CORE_MODULE,
        role: "core",
        capacity: Some(1024),
        width: Some(512),
        verilog: nic_core_verilog::<64, 512>,
    },
    Module {
        name: "homa_nic_core_w64",
        role: "core",
        capacity: Some(1024),
        width: Some(64),
        verilog: nic_core_verilog::<8, 64>,
    },
    Module {
        name: "homa_rx_dma_w64",
        role: "host_rx_dma",
        capacity: None,
        width: Some(64),
        verilog: dma_verilog::<8, 64>,
    },
    Module {
        name: DMA_MODULE,
        role: "host_rx_dma",
        capacity: None,
        width: Some(512),
        verilog: dma_verilog::<64, 512>,
    },
    Module {
        name: "homa_host_cq_w64",
        role: "host_cq",
        capacity: None,
        width: Some(64),
        verilog: cq_verilog::<8, 64>,
    },
    Module {
        name: CQ_MODULE,
        role: "host_cq",
        capacity: None,
        width: Some(512),
        verilog: cq_verilog::<64, 512>,
    },
    Module {
        name: RXQ_MODULE,
        role: "host_rxq",
        capacity: None,
        width: Some(512),
        verilog: rxq_verilog,
    },
    Module {
        name: TXQ_MODULE,
        role: "host_txq",
        capacity: None,
        width: Some(512),
        verilog: txq_verilog,
    },
    Module {
        name: HOST_RX_MODULE,
        role: "host_rx",
        capacity: None,
        width: Some(512),
        verilog: host_rx_verilog,
    },
    Module {
        name: TX_SCHED_MODULE,
        role: "tx_sched",
        capacity: Some(16),
        width: None,
        verilog: tx_sched_verilog,
    },
    Module {
        name: "homa_tx_data_framer_w64",
        role: "data_framer",
        capacity: None,
        width: Some(64),
        verilog: data_framer_verilog::<8, 64>,
    },
    Module {
        name: DATA_FRAMER_MODULE,
        role: "data_framer",
        capacity: None,
        width: Some(512),
        verilog: data_framer_verilog::<64, 512>,
    },
    Module {
        name: TX_ENGINE_MODULE,
        role: "tx_engine",
        capacity: Some(16),
        width: Some(512),
        verilog: tx_engine_verilog,
    },
    Module {
        name: "homa_tx_push_w64",
        role: "host_tx_push",
        capacity: None,
        width: Some(64),
        verilog: tx_push_verilog::<8, 64>,
    },
    Module {
        name: TX_PUSH_MODULE,
        role: "host_tx_push",
        capacity: None,
        width: Some(512),
        verilog: tx_push_verilog::<64, 512>,
    },
    Module {
        name: BUCKET_QUEUE_MODULE,
        role: "queue",
        capacity: Some(1024),
        width: None,
        verilog: bucket_queue_verilog,
    },
    Module {
        name: GRANT_QUEUE_MODULE,
        role: "grant",
        capacity: Some(1024),
        width: None,
        verilog: grant_queue_verilog,
    },
];

/// `hw/rtl/models.txt`, the Verilator manifest of `homa-sim`: every module of [`MODULES`].
pub fn models_manifest() -> String {
    let mut text = String::from(
        "# Hardware models that homa-sim verilates (sim/build.rs) into homa_sim::rtl::models.\n\
         #   <top module> [file.v ...] [clock=<port>|clock=none] [reset=<port>|reset_n=<port>|reset=none]\n\
         # verilator.vlt holds the lint waivers (Verilator's WIDTH warnings are fatal without it).\n\
         # Generated from homa_hw::verilog::MODULES: `UPDATE_RTL=1 cargo test -p homa-hw` rewrites it.\n",
    );
    for m in MODULES {
        text.push_str(&format!("{0} {0}.v verilator.vlt\n", m.name));
    }
    text
}

/// Every generated file: (file name, contents), for `homa-nic gen` and the golden test.
pub fn all_files() -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = all_modules()
        .into_iter()
        .map(|(name, v)| (format!("{name}.v"), v))
        .collect();
    files.push(("models.txt".into(), models_manifest()));
    files.push(("verilator.vlt".into(), LINT_WAIVERS.into()));
    files
}

/// Every generated module: (top module name, Verilog), for the golden and lint tests.
pub fn all_modules() -> Vec<(String, String)> {
    MODULES
        .iter()
        .map(|m| (m.name.to_string(), (m.verilog)()))
        .collect()
}

fn parser_w64_verilog() -> String {
    parser_verilog(64)
}

fn parser_w512_verilog() -> String {
    parser_verilog(512)
}

/// The module name of the 1024-entry bucketed queue.
pub const BUCKET_QUEUE_MODULE: &str = "homa_common_bucket_queue_n1024";

/// The Verilog of the 1024-entry bucketed queue ([`BucketQueue1024`]), top module
/// [`BUCKET_QUEUE_MODULE`].
pub fn bucket_queue_verilog() -> String {
    let uut = BucketQueue1024::top_level();
    let body = rename_top(&generate_verilog(&uut), BUCKET_QUEUE_MODULE);
    format!(
        "// {BUCKET_QUEUE_MODULE}: the bucketed SRPT queue (homa_hw::bucket_queue::BucketQueue<10>),\n\
         // generated by homa-hw from Rust-HDL. Do not edit: `UPDATE_RTL=1 cargo test -p homa-hw`\n\
         // rewrites it. Lint waivers: verilator.vlt.\n{body}"
    )
}

/// The module name of the grant generator over 1024 message-table entries.
pub const GRANT_QUEUE_MODULE: &str = "homa_rx_grant_n1024";

/// The Verilog of the grant generator over 1024 entries ([`GrantQueue1024`]), top module
/// [`GRANT_QUEUE_MODULE`].
pub fn grant_queue_verilog() -> String {
    let uut = GrantQueue1024::top_level();
    let body = rename_top(&generate_verilog(&uut), GRANT_QUEUE_MODULE);
    format!(
        "// {GRANT_QUEUE_MODULE}: the grant generator over every message-table entry\n\
         // (homa_hw::grant_queue::GrantQueue<10>), generated by homa-hw from Rust-HDL. Do not\n\
         // edit: `UPDATE_RTL=1 cargo test -p homa-hw` rewrites it. Lint waivers: verilator.vlt.\n{body}"
    )
}

/// Stack for rendering the NIC core (see [`nic_core_verilog`]).
const GEN_STACK: usize = 256 << 20;

/// The module name of the composed NIC core at 512 bits.
pub const NIC_CORE_MODULE: &str = "homa_nic_core_w512";

/// The Verilog of the NIC core at `W` bytes a beat ([`HomaNicCore`]: parser, message table,
/// grant generator, GRANT framer, host queues, transmit engine, register file), top module
/// `homa_nic_core_w<B>` ([`NIC_CORE_MODULE`] at 512 bits).
pub fn nic_core_verilog<const W: usize, const B: usize>() -> String {
    let name = format!("homa_nic_core_w{B}");
    let top = name.clone();
    // rust-hdl elaborates and renders recursively, a level per nested block and statement:
    // the core takes more stack than a test thread's 2 MiB, so it runs on its own thread.
    let body = std::thread::Builder::new()
        .name("nic-core-gen".into())
        .stack_size(GEN_STACK)
        .spawn(move || {
            let uut = HomaNicCore::<W, B>::top_level();
            rename_top(&generate_verilog(&uut), &top)
        })
        .expect("spawn the generator thread")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e));
    format!(
        "// {name}: the Homa NIC's core (homa_hw::nic_core::HomaNicCore<{W}, {B}>),\n\
         // generated by homa-hw from Rust-HDL. Do not edit: `UPDATE_RTL=1 cargo test -p homa-hw`\n\
         // rewrites it. Lint waivers: verilator.vlt.\n{body}"
    )
}

/// The module name of the 1024-entry inbound message table.
pub const TABLE_MODULE: &str = "homa_rx_msg_table_a10";

/// The Verilog of the 1024-entry inbound message table ([`MsgTable1024`]), top module
/// [`TABLE_MODULE`].
pub fn table_verilog() -> String {
    let uut = MsgTable1024::top_level();
    let body = rename_top(&generate_verilog(&uut), TABLE_MODULE);
    format!(
        "// {TABLE_MODULE}: the Homa inbound message table (homa_hw::msg_table::MsgTable<10, 9>),\n\
         // generated by homa-hw from Rust-HDL. Do not edit: `UPDATE_RTL=1 cargo test -p homa-hw`\n\
         // rewrites it. Lint waivers: verilator.vlt.\n{body}"
    )
}

/// The module name of the 512-bit RX DMA engine.
pub const DMA_MODULE: &str = "homa_rx_dma_w512";

/// The Verilog of the RX DMA engine at `W` bytes a beat ([`RxDma`]), top module
/// `homa_rx_dma_w<B>` ([`DMA_MODULE`] at 512 bits).
pub fn dma_verilog<const W: usize, const B: usize>() -> String {
    let uut = RxDma::<W, B>::top_level();
    let name = format!("homa_rx_dma_w{B}");
    let body = rename_top(&generate_verilog(&uut), &name);
    format!(
        "// {name}: the Homa NIC's receive DMA engine (homa_hw::rx_dma::RxDma<{W}, {B}>),\n\
         // generated by homa-hw from Rust-HDL. Do not edit: `UPDATE_RTL=1 cargo test -p homa-hw`\n\
         // rewrites it. Lint waivers: verilator.vlt.\n{body}"
    )
}

/// The module name of the completion ring writer.
pub const CQ_MODULE: &str = "homa_host_cq_w512";

/// The Verilog of the completion ring writer at `W` bytes a beat ([`CqWriter`]), top module
/// `homa_host_cq_w<B>` ([`CQ_MODULE`] at 512 bits).
pub fn cq_verilog<const W: usize, const B: usize>() -> String {
    let uut = CqWriter::<W, B>::top_level();
    let name = format!("homa_host_cq_w{B}");
    let body = rename_top(&generate_verilog(&uut), &name);
    format!(
        "// {name}: the Homa NIC's completion ring writer (homa_hw::cq_writer::CqWriter<{W}, {B}>),\n\
         // generated by homa-hw from Rust-HDL. Do not edit: `UPDATE_RTL=1 cargo test -p homa-hw`\n\
         // rewrites it. Lint waivers: verilator.vlt.\n{body}"
    )
}

/// The module name of the RX buffer ring fetcher.
pub const RXQ_MODULE: &str = "homa_host_rxq_w512";

/// The Verilog of the RX buffer ring fetcher ([`RxRing512`]), top module [`RXQ_MODULE`].
pub fn rxq_verilog() -> String {
    let uut = RxRing512::top_level();
    let body = rename_top(&generate_verilog(&uut), RXQ_MODULE);
    format!(
        "// {RXQ_MODULE}: the Homa NIC's RX buffer ring fetcher (homa_hw::rx_ring::RxRing512),\n\
         // generated by homa-hw from Rust-HDL. Do not edit: `UPDATE_RTL=1 cargo test -p homa-hw`\n\
         // rewrites it. Lint waivers: verilator.vlt.\n{body}"
    )
}

/// The module name of the TX descriptor ring fetcher.
pub const TXQ_MODULE: &str = "homa_host_txq_w512";

/// The Verilog of the TX descriptor ring fetcher ([`TxRing512`]), top module [`TXQ_MODULE`].
pub fn txq_verilog() -> String {
    let uut = TxRing512::top_level();
    let body = rename_top(&generate_verilog(&uut), TXQ_MODULE);
    format!(
        "// {TXQ_MODULE}: the Homa NIC's TX descriptor ring fetcher (homa_hw::tx_ring::TxRing512),\n\
         // generated by homa-hw from Rust-HDL. Do not edit: `UPDATE_RTL=1 cargo test -p homa-hw`\n\
         // rewrites it. Lint waivers: verilator.vlt.\n{body}"
    )
}

/// The module name of the on-chip TX memory.
pub const TX_PUSH_MODULE: &str = "homa_tx_push_w512";

/// The Verilog of the on-chip TX memory at `W` bytes a beat ([`TxPush`]), top module
/// `homa_tx_push_w<B>` ([`TX_PUSH_MODULE`] at 512 bits).
pub fn tx_push_verilog<const W: usize, const B: usize>() -> String {
    let uut = TxPush::<W, B>::top_level();
    let name = format!("homa_tx_push_w{B}");
    let body = rename_top(&generate_verilog(&uut), &name);
    format!(
        "// {name}: the Homa NIC's on-chip TX memory (homa_hw::tx_push::TxPush<{W}, {B}>),\n\
         // generated by homa-hw from Rust-HDL. Do not edit: `UPDATE_RTL=1 cargo test -p homa-hw`\n\
         // rewrites it. Lint waivers: verilator.vlt.\n{body}"
    )
}

/// The module name of the RX host queues (ring fetcher, DMA engine, completion writer).
pub const HOST_RX_MODULE: &str = "homa_host_rx_w512";

/// The Verilog of the RX host queues ([`HostRx512`]), top module [`HOST_RX_MODULE`].
pub fn host_rx_verilog() -> String {
    let uut = HostRx512::top_level();
    let body = rename_top(&generate_verilog(&uut), HOST_RX_MODULE);
    format!(
        "// {HOST_RX_MODULE}: the Homa NIC's RX host queues (homa_hw::host_rx::HostRx512),\n\
         // generated by homa-hw from Rust-HDL. Do not edit: `UPDATE_RTL=1 cargo test -p homa-hw`\n\
         // rewrites it. Lint waivers: verilator.vlt.\n{body}"
    )
}

/// The module name of the 512-bit GRANT framer.
pub const FRAMER_MODULE: &str = "homa_rx_grant_framer_w512";

/// The Verilog of the GRANT framer at `W` bytes a beat ([`GrantFramer`]), top module
/// `homa_rx_grant_framer_w<B>` ([`FRAMER_MODULE`] at 512 bits).
pub fn framer_verilog<const W: usize, const B: usize>() -> String {
    let uut = GrantFramer::<W, B>::top_level();
    let name = format!("homa_rx_grant_framer_w{B}");
    let body = rename_top(&generate_verilog(&uut), &name);
    format!(
        "// {name}: the Homa GRANT framer (homa_hw::grant_framer::GrantFramer<{W}, {B}>),\n\
         // generated by homa-hw from Rust-HDL. Do not edit: `UPDATE_RTL=1 cargo test -p homa-hw`\n\
         // rewrites it. Lint waivers: verilator.vlt.\n{body}"
    )
}

/// The module name of the 16-slot grant generator.
pub const GRANT_MODULE: &str = "homa_rx_grant_n16";

/// The Verilog of the 16-slot grant generator ([`GrantScheduler16`]), top module
/// [`GRANT_MODULE`].
pub fn grant_verilog() -> String {
    let uut = GrantScheduler16::top_level();
    let body = rename_top(&generate_verilog(&uut), GRANT_MODULE);
    format!(
        "// {GRANT_MODULE}: the Homa grant generator (homa_hw::grant::GrantScheduler<16, 4, 256, 496, 31>),\n\
         // generated by homa-hw from Rust-HDL. Do not edit: `UPDATE_RTL=1 cargo test -p homa-hw`\n\
         // rewrites it. Lint waivers: verilator.vlt.\n{body}"
    )
}

/// The module name of the 16-slot TX SRPT scheduler.
pub const SRPT_MODULE: &str = "homa_tx_srpt_n16";

/// The Verilog of the 16-slot TX SRPT scheduler ([`SrptScheduler16`]), top module
/// [`SRPT_MODULE`].
pub fn srpt_verilog() -> String {
    let mut uut = SrptScheduler16::new();
    uut.clock.connect();
    uut.reset.connect();
    uut.s_ins_valid.connect();
    uut.s_ins_id.connect();
    uut.s_ins_remaining.connect();
    uut.s_upd_valid.connect();
    uut.s_upd_slot.connect();
    uut.s_upd_remaining.connect();
    uut.s_upd_free.connect();
    uut.s_mask.connect();
    uut.connect_all();
    let body = rename_top(&generate_verilog(&uut), SRPT_MODULE);
    format!(
        "// {SRPT_MODULE}: the Homa TX SRPT scheduler (homa_hw::srpt::SrptScheduler<16, 31, 256, 4>),\n\
         // generated by homa-hw from Rust-HDL. Do not edit: `UPDATE_RTL=1 cargo test -p homa-hw`\n\
         // rewrites it. Lint waivers: verilator.vlt.\n{body}"
    )
}

/// The module name of the 16-slot transmit scheduler.
pub const TX_SCHED_MODULE: &str = "homa_tx_sched_n16";

/// The Verilog of the transmit scheduler ([`TxSched16`]: TX message table, GRANTs, SRPT pick,
/// packet cut), top module [`TX_SCHED_MODULE`].
pub fn tx_sched_verilog() -> String {
    let uut = TxSched16::top_level();
    let body = rename_top(&generate_verilog(&uut), TX_SCHED_MODULE);
    format!(
        "// {TX_SCHED_MODULE}: the Homa NIC's transmit scheduler (homa_hw::tx_sched::TxSched16),\n\
         // generated by homa-hw from Rust-HDL. Do not edit: `UPDATE_RTL=1 cargo test -p homa-hw`\n\
         // rewrites it. Lint waivers: verilator.vlt.\n{body}"
    )
}

/// The module name of the DATA framer at 512 bits.
pub const DATA_FRAMER_MODULE: &str = "homa_tx_data_framer_w512";

/// The Verilog of the DATA framer at `W` bytes a beat ([`DataFramer`]), top module
/// `homa_tx_data_framer_w<B>` ([`DATA_FRAMER_MODULE`] at 512 bits).
pub fn data_framer_verilog<const W: usize, const B: usize>() -> String {
    let uut = DataFramer::<W, B>::top_level();
    let name = format!("homa_tx_data_framer_w{B}");
    let body = rename_top(&generate_verilog(&uut), &name);
    format!(
        "// {name}: the Homa NIC's DATA framer (homa_hw::data_framer::DataFramer<{W}, {B}>),\n\
         // generated by homa-hw from Rust-HDL. Do not edit: `UPDATE_RTL=1 cargo test -p homa-hw`\n\
         // rewrites it. Lint waivers: verilator.vlt.\n{body}"
    )
}

/// The module name of the transmit engine at 512 bits.
pub const TX_ENGINE_MODULE: &str = "homa_tx_engine_w512";

/// The Verilog of the transmit engine ([`TxEngine512`]: scheduler, job FIFO, DATA framer), top
/// module [`TX_ENGINE_MODULE`].
pub fn tx_engine_verilog() -> String {
    let uut = TxEngine512::top_level();
    let body = rename_top(&generate_verilog(&uut), TX_ENGINE_MODULE);
    format!(
        "// {TX_ENGINE_MODULE}: the Homa NIC's transmit engine (homa_hw::tx_engine::TxEngine512),\n\
         // generated by homa-hw from Rust-HDL. Do not edit: `UPDATE_RTL=1 cargo test -p homa-hw`\n\
         // rewrites it. Lint waivers: verilator.vlt.\n{body}"
    )
}

/// The data widths at which the RX parser is generated into `hw/rtl/`.
pub const PARSER_WIDTHS: [usize; 2] = [64, 512];

/// The module name of the RX parser for a `width`-bit stream: `homa_rx_parser_w64`.
pub fn parser_module_name(width: usize) -> String {
    format!("homa_rx_parser_w{width}")
}

/// The Verilog of the RX parser for a `width`-bit stream (64, 128, 256 or 512), top module
/// [`parser_module_name`]. Panics for any other width: that is a caller bug, not input.
pub fn parser_verilog(width: usize) -> String {
    match width {
        64 => render(HomaParser::<64, 8>::new(), width),
        128 => render(HomaParser::<128, 16>::new(), width),
        256 => render(HomaParser::<256, 32>::new(), width),
        512 => render(HomaParser::<512, 64>::new(), width),
        _ => panic!("no RX parser for a {width}-bit stream (64, 128, 256 or 512)"),
    }
}

fn render<const W: usize, const K: usize>(mut uut: HomaParser<W, K>, width: usize) -> String {
    uut.clock.connect();
    uut.reset.connect();
    uut.s_axis_tdata.connect();
    uut.s_axis_tkeep.connect();
    uut.s_axis_tvalid.connect();
    uut.s_axis_tlast.connect();
    uut.m_hdr_ready.connect();
    uut.m_axis_tready.connect();
    uut.connect_all();
    let name = parser_module_name(width);
    let body = rename_top(&generate_verilog(&uut), &name);
    format!(
        "// {name}: the Homa RX parser (homa_hw::parser::HomaParser<{W}, {K}>), generated by\n\
         // homa-hw from Rust-HDL. Do not edit: `UPDATE_RTL=1 cargo test -p homa-hw` rewrites it.\n\
         // Lint waivers: verilator.vlt.\n{body}"
    )
}

/// Renames rust-hdl's module `top` and its submodules `top$...` to `name` and `name$...`,
/// wherever they appear as a whole identifier.
pub fn rename_top(verilog: &str, name: &str) -> String {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    let mut out = String::with_capacity(verilog.len() + verilog.len() / 20);
    let mut rest = verilog;
    while let Some(start) = rest.find(|c: char| is_ident(c)) {
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        let end = tail.find(|c: char| !is_ident(c)).unwrap_or(tail.len());
        let ident = &tail[..end];
        match ident.strip_prefix("top") {
            Some(suffix) if suffix.is_empty() || suffix.starts_with('$') => {
                out.push_str(name);
                out.push_str(suffix);
            }
            _ => out.push_str(ident),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};
    use std::process::Command;

    /// Every module, generated once per test process (the two tests below share it:
    /// rendering the grant generator takes a while in a debug build).
    fn modules() -> &'static [(String, String)] {
        static MODULES: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();
        MODULES.get_or_init(all_modules)
    }

    fn rtl_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("rtl")
    }

    #[test]
    fn rename_top__whole_identifiers_only() {
        let v = "module top(a);\n top$x$0 x$0(.d(top_d));\nendmodule // top\nstop$ top$";
        assert_eq!(
            rename_top(v, "m"),
            "module m(a);\n m$x$0 x$0(.d(top_d));\nendmodule // m\nstop$ m$"
        );
    }

    #[test]
    fn srpt_verilog__names_and_flat_ports() {
        let v = srpt_verilog();
        assert!(v.contains("module homa_tx_srpt_n16(clock,reset,s_ins_valid,"));
        assert!(!v.contains("module top"));
        assert!(v.contains("input wire  [3:0] s_upd_slot;"));
        assert!(v.contains("output reg  [31:0] m_pick_remaining;"));
    }

    #[test]
    fn parser_verilog__names_and_flat_ports() {
        let v = parser_verilog(64);
        assert!(v.contains("module homa_rx_parser_w64(clock,reset,s_axis_tdata,"));
        assert!(!v.contains("module top"));
        assert!(v.contains("output reg  [15:0] m_hdr_sport;"));
        assert!(v.contains("input wire  [63:0] s_axis_tdata;"));
    }

    /// hw/rtl holds exactly what the generator produces (UPDATE_RTL=1 rewrites it).
    #[test]
    fn rtl__golden_files_match_the_generator() {
        let update = std::env::var_os("UPDATE_RTL").is_some();
        let mut stale = Vec::new();
        let manifest = [("models.txt".to_string(), models_manifest())];
        let files = modules()
            .iter()
            .map(|(name, v)| (format!("{name}.v"), v.clone()))
            .chain(manifest);
        for (name, want) in files {
            let path = rtl_dir().join(name);
            let have = std::fs::read_to_string(&path).unwrap_or_default();
            if have != want {
                if update {
                    std::fs::write(&path, want).expect("write hw/rtl");
                } else {
                    stale.push(path.display().to_string());
                }
            }
        }
        assert!(
            stale.is_empty(),
            "generated Verilog differs from hw/rtl ({stale:?}); run `UPDATE_RTL=1 cargo test -p \
             homa-hw` and commit the diff"
        );
    }

    /// `verilator --lint-only -Wall` is clean, with the waivers of hw/rtl/verilator.vlt only.
    #[test]
    fn rtl__verilator_lint_is_clean() {
        if Command::new("verilator").arg("--version").output().is_err() {
            eprintln!("SKIPPED: verilator not found (scripts/setup.sh installs it; CI has it)");
            return;
        }
        let dir = std::env::temp_dir().join(format!("homa-hw-lint-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        for (name, verilog) in modules() {
            let file = dir.join(format!("{name}.v"));
            std::fs::write(&file, verilog).expect("write temp Verilog");
            let out = Command::new("verilator")
                .args(["--lint-only", "-Wall", "--top-module", name])
                .arg(rtl_dir().join("verilator.vlt"))
                .arg(&file)
                .output()
                .expect("run verilator");
            assert!(
                out.status.success(),
                "verilator --lint-only -Wall {name}:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
