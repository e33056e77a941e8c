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
//!
//! A release build also lays out the functions one emit runs next to each other
//! (`--symbol-ordering-file`, with the list in `emit-symbols.txt` that
//! `scripts/emit-symbol-order.sh` makes from callgrind). An emit then faults in fewer
//! pages of a text section that holds every command's code (docs/PERFORMANCE.md, "The
//! emit's functions together"). A name the list holds that the binary lacks (the code
//! moved on since the list was made) is skipped. Only lld and gold's successors take the
//! flag, and rustc may link with another linker than `cc`'s, so this probe asks rustc.

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
    order_symbols(&target);
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

/// Links a release build's functions in the order of [`ORDER_FILE`] where rustc's linker
/// takes it (`HOOKRIG_NO_SYMBOL_ORDER` set: never).
fn order_symbols(target: &str) {
    println!("cargo:rerun-if-changed={ORDER_FILE}");
    println!("cargo:rerun-if-env-changed=HOOKRIG_NO_SYMBOL_ORDER");
    let release = env::var("PROFILE").is_ok_and(|profile| profile == "release");
    let order =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default()).join(ORDER_FILE);
    // A comma would split the path in `-Wl,`.
    if release
        && target.contains("-linux-")
        && env::var_os("HOOKRIG_NO_SYMBOL_ORDER").is_none()
        && order.is_file()
        && !order.to_string_lossy().contains(',')
        && symbol_ordering_works(target)
    {
        println!(
            "cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={}",
            order.display()
        );
        println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
    }
}

/// The functions one emit runs, in the order first run, one mangled name per line.
const ORDER_FILE: &str = "emit-symbols.txt";

/// Whether rustc, as this build calls it (its linker and flags), links a program with
/// `--symbol-ordering-file`.
fn symbol_ordering_works(target: &str) -> bool {
    let Some(out) = env::var_os("OUT_DIR").map(PathBuf::from) else {
        return false;
    };
    let source = out.join("order_probe.rs");
    let list = out.join("order_probe.txt");
    if std::fs::write(&source, "fn main() {}\n").is_err()
        || std::fs::write(&list, "main\n").is_err()
    {
        return false;
    }
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let mut command = Command::new(rustc);
    command
        .args(["--crate-type", "bin", "--target", target, "-o"])
        .arg(out.join("order_probe"))
        .arg(format!(
            "-Clink-arg=-Wl,--symbol-ordering-file={}",
            list.display()
        ))
        .arg(&source);
    if let Ok(linker) = env::var("RUSTC_LINKER") {
        command.arg(format!("-Clinker={linker}"));
    }
    if let Ok(flags) = env::var("CARGO_ENCODED_RUSTFLAGS") {
        command.args(flags.split('\u{1f}').filter(|flag| !flag.is_empty()));
    }
    command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
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
