//! Which process owns a row that is still being written (an emit or an automation run
//! marked `running`), so that a later reader can tell a run in progress from one whose
//! process died (SIGKILL, a crash) and mark only the latter `interrupted`.
//!
//! An owner is `PID:START`, where START is the process's start time in clock ticks since
//! boot (`/proc/PID/stat`, field 22): a pid reused by another process has another start
//! time, so it is not mistaken for the owner.

use std::fs;

/// This process as the owner of the rows it writes.
pub fn current_owner() -> String {
    let pid = std::process::id();
    match start_time(pid) {
        Some(start) => format!("{pid}:{start}"),
        None => pid.to_string(),
    }
}

/// Whether the process `owner` names still runs. A zombie (killed, not yet reaped) does
/// not. An owner that cannot be read (`NULL` in rows written before owners were
/// recorded) is dead: only a live process can keep a row `running`.
pub fn owner_is_alive(owner: Option<&str>) -> bool {
    let Some(owner) = owner else {
        return false;
    };
    let (pid, start) = match owner.split_once(':') {
        Some((pid, start)) => (pid, Some(start)),
        None => (owner, None),
    };
    let Ok(pid) = pid.parse::<u32>() else {
        return false;
    };
    let Some(fields) = stat_fields(pid) else {
        return false;
    };
    let zombie = matches!(fields.first().map(String::as_str), Some("Z" | "X"));
    let same = match start {
        Some(start) => fields.get(19).is_some_and(|s| s == start),
        None => true,
    };
    same && !zombie
}

/// The start time of `pid` in clock ticks since boot.
fn start_time(pid: u32) -> Option<String> {
    stat_fields(pid)?.get(19).cloned()
}

/// The fields of `/proc/PID/stat` after the command name: state, ppid, ...
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = fs::read(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: count from its last `)`.
    let close = stat.iter().rposition(|&b| b == b')')?;
    let rest = String::from_utf8_lossy(&stat[close + 1..]).into_owned();
    Some(rest.split_ascii_whitespace().map(str::to_owned).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_a_missing_or_reused_pid_is_not() {
        let me = current_owner();
        assert!(owner_is_alive(Some(&me)));
        assert!(!owner_is_alive(None));
        assert!(!owner_is_alive(Some("not-a-pid")));
        // The same pid with another start time is another process.
        let pid = std::process::id();
        assert!(!owner_is_alive(Some(&format!("{pid}:1"))));
        // Above the largest pid Linux allows.
        assert!(!owner_is_alive(Some("4194305:1")));
    }
}
