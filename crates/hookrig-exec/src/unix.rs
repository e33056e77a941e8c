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

    /// Whether any process of the group is left; zombies do not count.
    pub(crate) fn is_alive(self) -> bool {
        // A zombie member still makes `killpg(0)` succeed, yet it is gone: `/proc` tells
        // them apart (and the zombies hookrig inherited as subreaper are reaped there).
        if let Some(alive) = crate::reaper::group_has_live_members(self.0.as_raw()) {
            return alive;
        }
        // Signal 0 checks for existence without sending anything; EPERM means a member
        // exists that we may not signal.
        !matches!(killpg(self.0, None), Err(Errno::ESRCH))
    }

    /// Whether the process whose pid is the group id exists (a zombie does).
    pub(crate) fn leader_exists(self) -> bool {
        matches!(
            nix::sys::signal::kill(self.0, None),
            Ok(()) | Err(Errno::EPERM)
        )
    }

    /// The process group id.
    pub(crate) fn id(self) -> i32 {
        self.0.as_raw()
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
/// signalled at once, gives it `arg0` as `argv[0]` (the name the user wrote, not the
/// path we resolved it to), and has the kernel kill it if hookrig dies first.
///
/// Where a [guardian](crate::guardian) is armed (it runs, or will be started as armed)
/// the hook relies on it: it kills every process a hook was started with the
/// tag of, the hook's own included, should hookrig be killed. The parent-death signal
/// then is not set, because setting it takes a step in the child between fork and exec,
/// which makes every hook a full fork of hookrig (its page tables copied, then a
/// copy-on-write fault for each page hookrig writes until the hook execs); without it
/// the system spawns the hook without copying.
pub(crate) fn configure_command(command: &mut tokio::process::Command, arg0: &OsStr) {
    command.process_group(0).arg0(arg0);
    if crate::guardian::covers_next_child() {
        return;
    }
    let parent = nix::unistd::getpid();
    // SAFETY: the closure runs in the forked child before `execve` and only makes
    // async-signal-safe system calls (prctl, getppid); it allocates nothing.
    #[expect(
        unsafe_code,
        reason = "PR_SET_PDEATHSIG can only be set by the child itself, between fork and exec"
    )]
    unsafe {
        command.pre_exec(move || die_with_parent(parent));
    }
}

/// Runs in the child: SIGKILL when hookrig dies (a SIGKILL hookrig cannot handle would
/// otherwise leave its hooks running past their timeout). The signal follows the
/// thread that spawned the child, which for hookrig is a runtime thread that lives as
/// long as the runtime.
#[cfg(target_os = "linux")]
fn die_with_parent(parent: nix::unistd::Pid) -> std::io::Result<()> {
    nix::sys::prctl::set_pdeathsig(Signal::SIGKILL)?;
    // hookrig may have died between the fork and the prctl: no signal would come then.
    if nix::unistd::getppid() != parent {
        return Err(std::io::Error::other(
            "hookrig exited while starting the hook",
        ));
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn die_with_parent(_parent: nix::unistd::Pid) -> std::io::Result<()> {
    Ok(())
}

/// The signal that ended a process, if a signal ended it.
pub(crate) fn terminating_signal(status: ExitStatus) -> Option<i32> {
    status.signal()
}

/// Whether any execute bit is set; `execve` refuses a file without one, even to root.
pub(crate) fn is_executable(metadata: &Metadata) -> bool {
    metadata.permissions().mode() & 0o111 != 0
}

/// A current-thread runtime with I/O and time, for the blocking forms of the spawn API.
pub(crate) fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
}

/// Makes the child call `setsid` before it runs: a new session and process group, with
/// no controlling terminal.
pub(crate) fn new_session(command: &mut std::process::Command) {
    use std::os::unix::process::CommandExt as _;
    // SAFETY: the closure runs in the forked child before `execve` and only makes an
    // async-signal-safe system call (setsid); it allocates nothing.
    #[expect(
        unsafe_code,
        reason = "a new session can only be made by the child itself, between fork and exec"
    )]
    unsafe {
        command.pre_exec(|| {
            nix::unistd::setsid()
                .map(drop)
                .map_err(std::io::Error::from)
        });
    }
}
