//! Checks on a hook's script file before it is started.

use std::io::ErrorKind;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

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
