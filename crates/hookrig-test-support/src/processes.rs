//! Finding processes by a marker in their command line.
//!
//! Tests that start hooks give each of them a unique marker (a temporary path) in its
//! command line; scanning `/proc` for the marker afterwards proves that no process of a
//! hook's group was left running.

use std::fs;
use std::thread;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

/// Live processes whose command line contains `marker`, as `(pid, command line)` with
/// the arguments joined by spaces.
///
/// Zombies are not listed: their command line is empty, and a zombie is a process that
/// has already ended (only its exit status waits to be collected).
pub fn processes_with(marker: &str) -> Vec<(i32, String)> {
    let own = i32::try_from(std::process::id()).unwrap_or(i32::MAX);
    let mut found = Vec::new();
    let Ok(entries) = fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<i32>().ok())
        else {
            continue;
        };
        if pid == own {
            continue;
        }
        // A process that exited meanwhile has no cmdline file any more.
        let Ok(cmdline) = fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cmdline.contains(marker) {
            found.push((pid, cmdline.trim_end().to_owned()));
        }
    }
    found
}

/// Waits up to `within` for every process marked with `marker` to be gone, and returns
/// the pids of those still alive then (empty when none is left).
///
/// Waiting is needed because signals are delivered asynchronously: a process that was
/// sent SIGKILL a moment ago may still be listed. One that is still there after a
/// generous `within` was not killed.
pub fn no_leftover(marker: &str, within: Duration) -> Vec<i32> {
    let deadline = Instant::now() + within;
    loop {
        let left: Vec<i32> = processes_with(marker)
            .into_iter()
            .map(|(pid, _)| pid)
            .collect();
        if left.is_empty() || Instant::now() >= deadline {
            return left;
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// Sends SIGKILL to every process marked with `marker`, so that a failing test does not
/// leave its processes behind.
pub fn kill_all_with(marker: &str) {
    for (pid, _) in processes_with(marker) {
        // The process may have ended since the scan; nothing to do then.
        let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
    }
}

/// Whether the process `pid` is alive: it exists and is not a zombie (a process that
/// ended and only waits for its parent to collect its exit status).
#[must_use]
pub fn is_alive(pid: i32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => false,
        // The state is the field after the parenthesised command name, which may itself
        // hold spaces and parentheses.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X'])),
    }
}
