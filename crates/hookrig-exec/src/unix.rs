//! Unix-specific process primitives: process groups, signals, exit statuses and file modes.
//!
//! Everything the process runner needs from the operating system beyond portable tokio
//! lives behind these small functions, so that a Windows counterpart (job objects) can
//! provide the same interface later.

use std::ffi::OsStr;
use std::fmt;
use std::fs::Metadata;
use std::os::unix::fs::PermissionsExt as _;
use std::os::unix::process::ExitStatusExt as _;
use std::process::ExitStatus;

use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// The process group led by a hook's main process.
///
/// It can only be built from a pid greater than 1: `killpg(0, …)` would signal hookrig's
/// own group and `killpg(1, …)` makes no sense, so neither can be expressed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct ProcessGroup(Pid);

impl ProcessGroup {
    /// The group of a child spawned with `process_group(0)`: its id is the child's pid.
    pub(crate) fn led_by(pid: u32) -> Option<Self> {
        i32::try_from(pid)
            .ok()
            .filter(|&raw| raw > 1)
            .map(|raw| Self(Pid::from_raw(raw)))
    }

    /// Asks every process of the group to terminate (SIGTERM).
    pub(crate) fn terminate(self) {
        self.signal(Signal::SIGTERM);
    }

    /// Whether any process of the group is left.
    pub(crate) fn is_alive(self) -> bool {
        // Signal 0 checks for existence without sending anything; EPERM means a member
        // exists that we may not signal.
        !matches!(killpg(self.0, None), Err(Errno::ESRCH))
    }

    /// Kills every process of the group (SIGKILL).
    pub(crate) fn kill(self) {
        self.signal(Signal::SIGKILL);
    }

    fn signal(self, signal: Signal) {
        match killpg(self.0, signal) {
            Ok(()) => tracing::debug!(pgid = %self.0, ?signal, "signalled process group"),
            // The group has no member left: what we wanted is already true.
            Err(Errno::ESRCH) => {
                tracing::debug!(pgid = %self.0, ?signal, "process group already gone");
            }
            Err(error) => {
                tracing::warn!(pgid = %self.0, ?signal, %error, "cannot signal process group");
            }
        }
    }
}

impl fmt::Debug for ProcessGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ProcessGroup({})", self.0)
    }
}

/// Makes the child lead a new process group, so that it and everything it starts can be
/// signalled at once, and gives it `arg0` as `argv[0]` (the name the user wrote, not the
/// path we resolved it to).
pub(crate) fn configure_command(command: &mut tokio::process::Command, arg0: &OsStr) {
    command.process_group(0).arg0(arg0);
}

/// The signal that ended a process, if a signal ended it.
pub(crate) fn terminating_signal(status: ExitStatus) -> Option<i32> {
    status.signal()
}

/// Whether any execute bit is set; `execve` refuses a file without one, even to root.
pub(crate) fn is_executable(metadata: &Metadata) -> bool {
    metadata.permissions().mode() & 0o111 != 0
}
