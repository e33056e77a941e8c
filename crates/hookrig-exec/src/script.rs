//! Checks on a hook's script file before it is started.

use std::io::ErrorKind;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Whether a file can be executed by hookrig.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    /// A file with an execute bit that hookrig may execute.
    Executable,
    /// A file, but not one hookrig may execute.
    NotExecutable,
    /// No file there (or a directory).
    Missing,
}

/// Whether `path` is a file hookrig can execute: an execute bit set and `access(X_OK)`
/// granted. Lookups of programs by name (external commands, board formatters, provider
/// CLIs) pass over a file that cannot be run, as `execvp` does, but name it when nothing
/// can.
pub fn probe(path: &Path) -> Probe {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => {
            if meta.permissions().mode() & 0o111 != 0
                && nix::unistd::access(path, nix::unistd::AccessFlags::X_OK).is_ok()
            {
                Probe::Executable
            } else {
                Probe::NotExecutable
            }
        }
        _ => Probe::Missing,
    }
}

/// Why `path` cannot be run, or `None` when it looks runnable.
///
/// The shell would report these as exit 127 or 126 with a terse message; checking first
/// lets the failure say which file and what to do about it.
pub fn executable_problem(path: &Path) -> Option<String> {
    let shown = path.display();
    match std::fs::metadata(path) {
        Err(err) if err.kind() == ErrorKind::NotFound => {
            Some(format!("cannot run {shown}: no such file or directory"))
        }
        Err(err) => Some(format!("cannot run {shown}: {err}")),
        Ok(meta) if meta.is_dir() => Some(format!("cannot run {shown}: it is a directory")),
        Ok(meta) if meta.permissions().mode() & 0o111 == 0 => Some(format!(
            "cannot run {shown}: permission denied (try `chmod +x {shown}`)"
        )),
        Ok(_) => None,
    }
}
