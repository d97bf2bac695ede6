//! `homa-nic decode` end to end: the committed example capture, hex input, errors and exit
//! codes, and (where installed) tshark's reading of the same capture.
#![allow(non_snake_case)]

use homa_nic::samples::write_all_types_pcap;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn homa_nic(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_homa-nic"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run homa-nic");
    {
        let mut input = child.stdin.take().unwrap();
        if let Some(text) = stdin {
            input.write_all(text.as_bytes()).unwrap();
        }
    }
    child.wait_with_output().unwrap()
}

fn json_lines(out: &Output) -> Vec<Value> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect()
}

/// Compares `actual` with the committed file, or rewrites it under UPDATE_EXPECT=1.
fn expect_file(path: &Path, actual: &[u8]) {
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(path, actual).unwrap();
        return;
    }
    let expected = std::fs::read(path).unwrap_or_default();
    assert!(
        expected == actual,
        "{} differs from what the code produces now; if the change is intended, run \
         UPDATE_EXPECT=1 cargo test --test decode and review the diff",
        path.display()
    );
}

#[test]
fn all_types_pcap__matches_generator() {
    let bytes = write_all_types_pcap(Vec::new()).unwrap();
    expect_file(&data("all-types.pcap"), &bytes);
}

#[test]
fn decode__text_output_of_example_capture() {
    let out = homa_nic(&["decode", data("all-types.pcap").to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    expect_file(&data("all-types.txt"), &out.stdout);
}

#[test]
fn decode__json_holds_every_field() {
    let out = homa_nic(
        &["decode", "--json", data("all-types.pcap").to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let lines = json_lines(&out);
    let types: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    let nine = [
        "DATA",
        "GRANT",
        "RESEND",
        "RPC_UNKNOWN",
        "BUSY",
        "CUTOFFS",
        "FREEZE",
        "NEED_ACK",
        "ACK",
    ];
    assert_eq!(types, [nine, nine].concat());

    let data = &lines[0];
    assert_eq!(data["ip_version"], 4);
    assert_eq!(data["src"], "10.0.0.1");
    assert_eq!(data["dst"], "10.0.0.2");
    assert_eq!(data["sport"], 4000);
    assert_eq!(data["dport"], 500);
    assert_eq!(data["sender_id"], 100);
    assert_eq!(data["sender_role"], "client");
    assert_eq!(data["ip_priority"], 6);
    assert_eq!(data["message_length"], 10000);
    assert_eq!(data["incoming"], 6000);
    assert_eq!(data["ack"]["client_id"], 98);
    assert_eq!(data["ack"]["server_port"], 500);
    assert_eq!(data["cutoff_version"], 1);
    assert_eq!(data["retransmit"], 0);
    assert_eq!(data["seg_offset"], 0xffff_ffffu32);
    assert_eq!(data["offset"], 0);
    assert_eq!(data["payload_length"], 64);
    assert_eq!(data["flags"], 6);
    assert_eq!(data["urgent"], 0xb97d);

    let grant = &lines[1];
    assert_eq!(grant["sender_id"], 101);
    assert_eq!(grant["sender_role"], "server");
    assert_eq!(grant["receiver_id"], 100);
    assert_eq!(grant["offset"], 7400);
    assert_eq!(grant["priority"], 3);
    assert_eq!(grant["ip_priority"], 7);

    assert_eq!(lines[2]["length"], 1400);
    assert_eq!(lines[5]["unsched_cutoffs"][2], 6000);
    assert_eq!(lines[8]["num_acks"], 2);
    assert_eq!(lines[8]["acks"][1]["client_id"], 98);
    assert_eq!(lines[9]["ip_version"], 6);
    assert_eq!(lines[9]["src"], "fd00::1");
    for (i, l) in lines.iter().enumerate() {
        assert_eq!(l["frame"], i);
        assert_eq!(l["time_ns"], (i as u64 + 1) * 1000);
    }
}

#[test]
fn decode__hex_input_goes_on_after_malformed_frames() {
    let frames = homa_nic::samples::all_types();
    let good = hex::encode(&frames[1]);
    let mut bad_sum = frames[1].clone();
    bad_sum[24] ^= 0xff;
    let arp = format!("ffffffffffff020000000001 0806 {}", "00".repeat(28));
    let input = format!(
        "# GRANT, a bad checksum, a runt, junk, ARP, GRANT again\n{good}\n{}\n{}\nnot-hex\n{arp}\n{good}\n",
        hex::encode(&bad_sum),
        &good[..60],
    );
    let out = homa_nic(&["decode", "--json", "--hex", "-"], Some(&input));
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 6);
    assert_eq!(lines[0]["type"], "GRANT");
    assert_eq!(lines[1]["error"], "IPv4: bad header checksum");
    assert_eq!(lines[1]["frame"], 1);
    assert_eq!(lines[2]["error"], "IPv4: truncated");
    assert!(lines[3]["error"].as_str().unwrap().contains("invalid hex"));
    assert_eq!(lines[4]["skipped"], "Ethernet: not Homa");
    assert_eq!(lines[5]["type"], "GRANT");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("6 frames: 2 Homa, 3 malformed, 1 not Homa"),
        "{stderr}"
    );
}

#[test]
fn decode__hex_frames_starting_at_ip() {
    let frames = homa_nic::samples::all_types();
    let input = format!(
        "{}\n{}\n",
        hex::encode(&frames[0][14..]),
        hex::encode(&frames[9][14..])
    );
    let out = homa_nic(&["decode", "--hex", "-", "--link", "ip"], Some(&input));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text,
        "0 10.0.0.1:4000 > 10.0.0.2:500 prio=6 DATA id=100 offset=0 length=64 \
         message_length=10000 incoming=6000 cutoff_version=1 ack=98@500\n\
         1 [fd00::1]:4000 > [fd00::2]:500 prio=6 DATA id=100 offset=0 length=64 \
         message_length=10000 incoming=6000 cutoff_version=1 ack=98@500\n"
    );
}

#[test]
fn decode__usage_and_io_errors_exit_2() {
    let missing = homa_nic(&["decode", "/nonexistent/x.pcap"], None);
    assert_eq!(missing.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(
        stderr.contains("failed to read /nonexistent/x.pcap"),
        "{stderr}"
    );

    let not_pcap = homa_nic(&["decode", data("all-types.txt").to_str().unwrap()], None);
    assert_eq!(not_pcap.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&not_pcap.stderr).contains("not a pcap or pcapng file"));

    assert_eq!(homa_nic(&["decode"], None).status.code(), Some(2));
    assert_eq!(
        homa_nic(&["decode", "--bogus"], None).status.code(),
        Some(2)
    );
    let link_without_hex = homa_nic(&["decode", "x.pcap", "--link", "ip"], None);
    assert_eq!(link_without_hex.status.code(), Some(2));
}

/// tshark (Debian's, installed by scripts/setup.sh) must read the example capture as IP
/// protocol 146 frames with valid IPv4 header checksums.
#[test]
fn tshark__reads_example_capture_as_protocol_146() {
    if Command::new("tshark").arg("--version").output().is_err() {
        eprintln!(
            "SKIP tshark__reads_example_capture_as_protocol_146: tshark is not installed (scripts/setup.sh installs it)"
        );
        return;
    }
    let out = Command::new("tshark")
        .args(["-n", "-o", "ip.check_checksum:TRUE", "-r"])
        .arg(data("all-types.pcap"))
        .args(["-T", "fields", "-E", "separator=,"])
        .args([
            "-e",
            "ip.proto",
            "-e",
            "ipv6.nxt",
            "-e",
            "ip.checksum.status",
        ])
        .output()
        .expect("run tshark");
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows.len(), 18, "{text}");
    // tshark's checksum status: 0 bad, 1 good, 2 unverified.
    for row in &rows[..9] {
        assert_eq!(*row, "146,,1", "IPv4 row: {text}");
    }
    for row in &rows[9..] {
        assert_eq!(*row, ",146,", "IPv6 row: {text}");
    }
}

#[test]
fn decode__a_capture_cut_short_prints_its_whole_frames_and_exits_1() {
    let whole = std::fs::read(data("all-types.pcap")).unwrap();
    let path = std::env::temp_dir().join(format!("homa-nic-cut-{}.pcap", std::process::id()));
    std::fs::write(&path, &whole[..whole.len() - 5]).unwrap();
    let out = homa_nic(&["decode", path.to_str().unwrap()], None);
    let _ = std::fs::remove_file(&path);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let full = homa_nic(&["decode", data("all-types.pcap").to_str().unwrap()], None);
    let lines = |o: &Output| String::from_utf8_lossy(&o.stdout).lines().count();
    assert_eq!(
        lines(&out),
        lines(&full) - 1,
        "every whole frame is printed"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cut short"), "{stderr}");
}
