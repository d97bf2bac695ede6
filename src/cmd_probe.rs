//! `homa-nic probe --pci <BDF>`: open a homa-nic through VFIO and print its register
//! blocks, ID block, configuration and counters (names from `proto::regs::BLOCKS`). Reads
//! only: it changes nothing on the NIC. `--sim` probes a Verilated NIC the same way;
//! `--etherbone IP[:PORT]` an open-flow board over Etherbone (UDP 1234 by default).
//!
//! Exit status: 0 when the NIC was read, 1 when it could not be opened or read (the message
//! names the device and the fix).

use anyhow::Result;
use homa_driver::{Device, EtherboneDevice, Patience, Probe, VfioDevice, read_registers};
use homa_proto::etherbone::BoardMap;
use std::fmt::Write;
use std::process::ExitCode;

/// Arguments of `homa-nic probe`.
#[derive(Debug, clap::Args)]
pub(crate) struct ProbeArgs {
    /// PCI address of the NIC, as `lspci -D` prints it (e.g. 0000:01:00.0).
    #[arg(
        long,
        value_name = "BDF",
        required_unless_present_any = ["sim", "etherbone"],
        conflicts_with_all = ["sim", "etherbone"]
    )]
    pci: Option<String>,
    /// Probe a homa-nic on an open-flow FPGA board over Etherbone (UDP), at IP or IP:PORT
    /// (port 1234 if none), its bus laid out as `proto::etherbone::BoardMap::DEFAULT`.
    #[arg(long, value_name = "IP[:PORT]", conflicts_with = "sim")]
    etherbone: Option<String>,
    /// Probe a simulated NIC instead: the Verilated NIC core of hw/rtl just out of reset,
    /// through the same driver code (`homa_sim::nic::SimDevice`).
    #[arg(long)]
    sim: bool,
}

pub(crate) fn run(args: ProbeArgs) -> Result<ExitCode> {
    let text = match (&args.pci, &args.etherbone) {
        (Some(pci), _) => VfioDevice::open(pci).and_then(|dev| report(&dev)),
        (None, Some(addr)) => EtherboneDevice::open(addr, BoardMap::DEFAULT, Patience::default())
            .and_then(|dev| report(&dev)),
        (None, None) => match homa_sim::nic::sim_device() {
            Ok(dev) => report(&dev),
            Err(e) => {
                eprintln!("homa-nic: error: {e}");
                return Ok(ExitCode::from(1));
            }
        },
    };
    match text {
        Ok(text) => {
            print!("{text}");
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("homa-nic: error: {e}");
            Ok(ExitCode::from(1))
        }
    }
}

/// The report for any device: block chain, then every register of every known block.
pub(crate) fn report(dev: &impl Device) -> homa_driver::Result<String> {
    let probe = Probe::run(dev)?;
    let regs = read_registers(dev, &probe)?;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "homa-nic at {} (BAR0 {} bytes)",
        dev.name(),
        dev.bar_len()
    );
    let id = probe.id;
    let _ = writeln!(
        s,
        "firmware {}.{}, git {:08x}, built {} (unix time), capabilities {:#x}, datapath {} bits",
        (id.fw_version >> 8) & 0xff,
        id.fw_version & 0xff,
        id.git_hash,
        id.build_date,
        id.capabilities,
        id.data_width
    );
    for b in &probe.blocks {
        let _ = writeln!(
            s,
            "\n{} at 0x{:04x}: type 0x{:08x} version {}.{}",
            b.name(),
            b.offset,
            b.type_id,
            b.version >> 16,
            b.version & 0xffff
        );
        for r in regs.iter().filter(|r| r.block == b.name()) {
            let _ = writeln!(
                s,
                "  {:<22} {:<3} {:>10}  0x{:08x}",
                r.register.name,
                r.register.access.name(),
                r.value,
                r.value
            );
        }
    }
    Ok(s)
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;
    use homa_driver::MemDevice;

    /// Over Etherbone, from a software endpoint holding the register map's reset image.
    #[test]
    fn report__over_etherbone_names_every_block() {
        let bus = homa_driver::MemoryBus::with_register_image(BoardMap::DEFAULT.regs_base);
        let ep = homa_driver::EtherboneEndpoint::spawn(bus, None).unwrap();
        let addr = ep.addr().to_string();
        let local = "127.0.0.1:0".parse().ok();
        let dev = EtherboneDevice::open_from(&addr, local, BoardMap::DEFAULT, Patience::default())
            .unwrap();
        let text = report(&dev).unwrap();
        assert!(
            text.starts_with(&format!(
                "homa-nic at etherbone {addr} (BAR0 65536 bytes)\n"
            )),
            "{text}"
        );
        for b in homa_proto::regs::BLOCKS {
            assert!(text.contains(&format!("\n{} at 0x{:04x}", b.name, b.base)));
        }
    }

    #[test]
    fn report__names_every_block_and_register() {
        let text = report(&MemDevice::new()).unwrap();
        assert!(
            text.starts_with("homa-nic at mem (BAR0 1536 bytes)\n"),
            "{text}"
        );
        for b in homa_proto::regs::BLOCKS {
            assert!(
                text.contains(&format!("\n{} at 0x{:04x}", b.name, b.base)),
                "{}",
                b.name
            );
            for r in b.registers {
                assert!(text.contains(&format!("  {:<22} ", r.name)), "{}", r.name);
            }
        }
        assert!(
            text.contains("  nic_id                 RO  1213156673  0x484f4d41\n"),
            "{text}"
        );
    }
}
