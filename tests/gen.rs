//! `homa-nic gen` writes exactly the committed `hw/rtl/` files.
#![allow(non_snake_case)]

use std::path::Path;
use std::process::Command;

#[test]
fn gen__writes_the_committed_rtl() {
    let out = std::env::temp_dir().join(format!("homa-nic-gen-{}", std::process::id()));
    let status = Command::new(env!("CARGO_BIN_EXE_homa-nic"))
        .args(["gen", "--out"])
        .arg(&out)
        .status()
        .expect("run homa-nic gen");
    assert!(status.success());
    let rtl = Path::new(env!("CARGO_MANIFEST_DIR")).join("hw/rtl");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&out).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_owned();
        let committed = std::fs::read_to_string(rtl.join(&name)).unwrap_or_default();
        assert!(
            std::fs::read_to_string(&path).unwrap() == committed,
            "{name:?} differs from hw/rtl: run UPDATE_RTL=1 cargo test -p homa-hw"
        );
        names.push(name);
    }
    assert!(names.len() >= 3, "{names:?}");
    let _ = std::fs::remove_dir_all(out);
}
