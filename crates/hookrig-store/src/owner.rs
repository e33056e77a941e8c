//! The process that holds a row of the store (an automation lock): its pid and the
//! kernel's start time of that pid, and whether that process still runs.

use nix::errno::Errno;
use nix::sys::signal::kill;
use nix::unistd::Pid;

/// A process, named so that a pid reused by another process is not taken for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owner {
    /// Its pid.
    pub pid: i64,
    /// The kernel's start time of the pid in clock ticks since boot (field 22 of
    /// `/proc/PID/stat`); `None` where there is no `/proc`.
    pub proc_start: Option<i64>,
}

impl Owner {
    /// This process.
    pub fn current() -> Owner {
        let pid = i64::from(std::process::id());
        Owner {
            pid,
            proc_start: start_time(pid),
        }
    }

    /// Whether the process still runs: it exists, is not a zombie, and (where `/proc`
    /// tells) started when it did, so that a reused pid does not count.
    pub fn is_alive(self) -> bool {
        if self.pid == i64::from(std::process::id()) {
            return true;
        }
        let Some(pid) = i32::try_from(self.pid).ok().filter(|p| *p > 0) else {
            return false;
        };
        if let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            let Some(rest) = stat.rfind(')').map(|at| &stat[at + 1..]) else {
                return true;
            };
            let mut fields = rest.split_whitespace();
            if fields
                .next()
                .is_some_and(|state| state == "Z" || state == "X")
            {
                return false;
            }
            // Fields 3 onwards: the start time is field 22, the 19th after the state.
            let started = fields.nth(18).and_then(|f| f.parse::<i64>().ok());
            return match (self.proc_start, started) {
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

/// The kernel's start time of `pid` (field 22 of `/proc/PID/stat`), or `None`.
fn start_time(pid: i64) -> Option<i64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces and `)`.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_a_dead_child_is_not() {
        assert!(Owner::current().is_alive());
        let mut child = std::process::Command::new("true").spawn().expect("spawn");
        let pid = i64::from(child.id());
        let recorded = Owner {
            pid,
            proc_start: start_time(pid),
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
            proc_start: start_time(parent).map(|t| t + 1),
        };
        assert!(!other.is_alive());
        assert!(
            Owner {
                pid: parent,
                proc_start: start_time(parent)
            }
            .is_alive()
        );
    }
}
