//! The process that owns a row of the store: an automation lock, or a row still being
//! written (an emit or an automation run marked `running`). A later reader can then tell
//! a run in progress from one whose process died (SIGKILL, a crash), take over a lock
//! such a process left, and mark only the abandoned rows `interrupted`.
//!
//! A process is named by its pid and the kernel's start time of that pid (clock ticks
//! since boot, field 22 of `/proc/PID/stat`): a pid reused by another process has
//! another start time, so it is not mistaken for the owner. In a text column an owner
//! is `PID:START` (`PID` alone where there is no `/proc`).

use nix::errno::Errno;
use nix::sys::signal::kill;
use nix::unistd::Pid;

/// A process, named so that a pid reused by another process is not taken for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Owner {
    /// Its pid.
    pub(crate) pid: i64,
    /// The kernel's start time of the pid in clock ticks since boot; `None` where there
    /// is no `/proc`.
    pub(crate) proc_start: Option<i64>,
}

impl Owner {
    /// This process.
    pub(crate) fn current() -> Owner {
        let pid = i64::from(std::process::id());
        Owner {
            pid,
            proc_start: stat_fields(pid).and_then(|fields| start_time(&fields)),
        }
    }

    /// The owner's text form, `PID:START` (or `PID`), as owner columns hold it.
    pub(crate) fn to_text(self) -> String {
        match self.proc_start {
            Some(start) => format!("{}:{start}", self.pid),
            None => self.pid.to_string(),
        }
    }

    /// Reads the text form; `None` for anything else.
    pub(crate) fn from_text(text: &str) -> Option<Owner> {
        let (pid, start) = match text.split_once(':') {
            Some((pid, start)) => (pid, Some(start.parse().ok()?)),
            None => (text, None),
        };
        Some(Owner {
            pid: pid.parse().ok()?,
            proc_start: start,
        })
    }

    /// Whether the process still runs: it exists, is not a zombie, and (where `/proc`
    /// tells) started when it did, so that a reused pid does not count.
    pub(crate) fn is_alive(self) -> bool {
        let Some(pid) = i32::try_from(self.pid).ok().filter(|p| *p > 0) else {
            return false;
        };
        if let Some(fields) = stat_fields(i64::from(pid)) {
            if matches!(fields.first().map(String::as_str), Some("Z" | "X")) {
                return false;
            }
            return match (self.proc_start, start_time(&fields)) {
                (Some(recorded), Some(now)) => recorded == now,
                _ => true,
            };
        }
        if std::path::Path::new("/proc/self/stat").exists() {
            // `/proc` works, and has no entry for the pid: it is gone.
            return false;
        }
        // No `/proc`: signal 0 checks for existence; EPERM means it exists.
        !matches!(kill(Pid::from_raw(pid), None), Err(Errno::ESRCH))
    }
}

/// This process as the owner of the rows it writes, in text form.
pub(crate) fn current_owner() -> String {
    Owner::current().to_text()
}

/// This machine's host name, as the rows several machines share name it (`localhost`
/// when the kernel gives none).
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|name| name.trim().to_owned())
        .ok()
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "localhost".to_owned())
}

/// This process as a store several machines share names it: `PID:START@HOST`, so that
/// each machine judges only its own processes' rows.
pub(crate) fn current_owner_on_host() -> String {
    format!("{}@{}", current_owner(), host_name())
}

/// Whether the process an owner column names still runs. An owner that cannot be read
/// (`NULL` in rows written before owners were recorded) is dead: only a live process can
/// keep a row `running`.
pub(crate) fn owner_is_alive(owner: Option<&str>) -> bool {
    owner
        .and_then(Owner::from_text)
        .is_some_and(Owner::is_alive)
}

/// The start time among the fields of `/proc/PID/stat` after the command name (field 22
/// of the file, the 20th after the name).
fn start_time(fields: &[String]) -> Option<i64> {
    fields.get(19)?.parse().ok()
}

/// The fields of `/proc/PID/stat` after the command name: state, ppid, ...
fn stat_fields(pid: i64) -> Option<Vec<String>> {
    let stat = std::fs::read(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: count from its last `)`.
    let close = stat.iter().rposition(|&b| b == b')')?;
    let rest = String::from_utf8_lossy(&stat[close + 1..]).into_owned();
    Some(rest.split_ascii_whitespace().map(str::to_owned).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start_of(pid: i64) -> Option<i64> {
        stat_fields(pid).and_then(|fields| start_time(&fields))
    }

    #[test]
    fn this_process_is_alive_and_a_dead_child_is_not() {
        assert!(Owner::current().is_alive());
        let mut child = std::process::Command::new("true").spawn().expect("spawn");
        let pid = i64::from(child.id());
        let recorded = Owner {
            pid,
            proc_start: start_of(pid),
        };
        child.wait().expect("reaped");
        assert!(!recorded.is_alive(), "a reaped child is gone");
    }

    #[test]
    fn a_reused_pid_is_not_the_owner() {
        let me = Owner::current();
        if me.proc_start.is_none() {
            return; // no /proc: nothing to compare
        }
        // The parent runs, but a different start time means another process.
        let parent = i64::from(std::os::unix::process::parent_id());
        let other = Owner {
            pid: parent,
            proc_start: start_of(parent).map(|t| t + 1),
        };
        assert!(!other.is_alive());
        assert!(
            Owner {
                pid: parent,
                proc_start: start_of(parent)
            }
            .is_alive()
        );
    }

    #[test]
    fn owner_columns_name_this_process_and_a_missing_or_reused_pid_is_not_alive() {
        let me = current_owner();
        assert!(owner_is_alive(Some(&me)));
        assert_eq!(Owner::from_text(&me), Some(Owner::current()));
        assert!(!owner_is_alive(None));
        assert!(!owner_is_alive(Some("not-a-pid")));
        // The same pid with another start time is another process.
        let pid = std::process::id();
        assert!(!owner_is_alive(Some(&format!("{pid}:1"))));
        // Above the largest pid Linux allows.
        assert!(!owner_is_alive(Some("4194305:1")));
    }
}
