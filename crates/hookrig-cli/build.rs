//! Links the `hookrig` binary with packed relative relocations (`DT_RELR`) where the
//! toolchain and the C library support them.
//!
//! `hookrig emit` is a process a host starts for every hook event, so its start-up is
//! the product's speed. A position-independent executable has its relative relocations
//! applied by the dynamic loader at every start: about 21,000 of them here, 24 bytes
//! each in `.rela.dyn`, so that every start reads some 125 pages of relocation entries.
//! Packed (`-z pack-relative-relocs`, binutils 2.38 and glibc 2.36 or later) the same
//! relocations take a few kilobytes (docs/PERFORMANCE.md, "Packed relocations").
//!
//! The flag is probed, not assumed: an older linker rejects it, and a linker newer than
//! the C library links a binary that the library's loader refuses to start. So the probe
//! links a small C program with the flag and runs it; when either step fails the binary
//! is linked as before. Only the binary's own link changes (`rustc-link-arg-bins`):
//! no dependency is rebuilt, and the tests' binaries are unaffected.

use std::env;
use std::path::PathBuf;
use std::process::{Command, Stdio};

const FLAG: &str = "-Wl,-z,pack-relative-relocs";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CC");
    println!("cargo:rerun-if-env-changed=HOOKRIG_NO_PACKED_RELOCS");
    let target = env::var("TARGET").unwrap_or_default();
    let host = env::var("HOST").unwrap_or_default();
    // The probe runs what it links, which only works for this machine's own target.
    if !target.ends_with("-linux-gnu")
        || target != host
        || env::var_os("HOOKRIG_NO_PACKED_RELOCS").is_some()
    {
        return;
    }
    if packed_relocations_work() {
        println!("cargo:rustc-link-arg-bins={FLAG}");
    }
}

/// Whether a C program linked with [`FLAG`] as a position-independent executable links
/// and runs here.
fn packed_relocations_work() -> bool {
    let Some(out) = env::var_os("OUT_DIR").map(PathBuf::from) else {
        return false;
    };
    let source = out.join("relr_probe.c");
    let program = out.join("relr_probe");
    // A pointer in initialised data gives the program a relative relocation to pack.
    let text = "static const char *greeting = \"ok\";\nint main(void) { return greeting[0] == 'o' ? 0 : 1; }\n";
    if std::fs::write(&source, text).is_err() {
        return false;
    }
    let cc = env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let linked = Command::new(cc)
        .args(["-fPIE", "-pie", FLAG, "-o"])
        .arg(&program)
        .arg(&source)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    linked
        && Command::new(&program)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
}
