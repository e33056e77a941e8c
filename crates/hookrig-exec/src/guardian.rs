//! The guardian: a process that outlives a hookrig killed with SIGKILL only to kill what
//! its hooks left running.
//!
//! `PR_SET_PDEATHSIG` reaches a hook's own process, not what it forked (`sh -c
//! ./script.sh` runs the script in a child of `sh`), and a hookrig killed with SIGKILL
//! cannot sweep. The guardian waits for hookrig's death, then kills every process tagged
//! by that hookrig (`HOOKRIG_PROCESS_TAG` starts with its pid). A hookrig that ends
//! normally has swept already and dismisses it.
//!
//! A process that may run hooks [`arm`]s the guardian at start-up; nothing starts then.
//! The guardian is started when the first hook is about to be spawned, so that an emit
//! where no hook matches starts no process at all. While hookrig has a single thread
//! (an in-process emit) it is a fork of hookrig; a process with more threads (the
//! engine, `serve`) cannot fork safely, and runs the program given to [`arm`] (hookrig
//! itself) with [`GUARDIAN_ARG`] instead, whose `main` hands over to [`run_if_asked`]
//! before anything else. hookrig's death is told to the guardian by the end of a pipe:
//! its stdin is the read end, and hookrig holds the only write end (closed on exec, so
//! no hook inherits it), which the kernel closes when hookrig dies, however it dies, and
//! whichever of its threads started the guardian.

use std::ffi::OsStr;
use std::fs;
use std::io::Read as _;
use std::os::fd::OwnedFd;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Mutex;

use nix::sys::signal::{Signal, kill};
use nix::sys::wait::waitpid;
use nix::unistd::Pid;

use crate::reaper::{ROUND_PAUSE, ROUNDS, TAG_VARIABLE, scan};

/// The first argument that runs the program given to [`arm`] as a guardian.
pub const GUARDIAN_ARG: &str = "--hookrig-guardian";

/// Where the guardian of this process stands.
enum State {
    /// No guardian was asked for: hooks get the parent-death signal only.
    Unarmed,
    /// One is to be started with the first hook, by running `program`.
    Armed { program: PathBuf },
    /// It runs; `pipe` is the write end of its stdin, held until hookrig ends.
    Running { pid: Pid, pipe: OwnedFd },
    /// It could not be started, or was dismissed: hooks get the parent-death signal.
    Off,
}

static STATE: Mutex<State> = Mutex::new(State::Unarmed);

/// Asks for a guardian, started with the first hook, by running `program` (hookrig
/// itself, whose `main` calls [`run_if_asked`] first) with [`GUARDIAN_ARG`]. Where it
/// cannot work (not Linux, no `/proc`) nothing is armed.
pub fn arm(program: PathBuf) {
    if !cfg!(target_os = "linux") || !std::path::Path::new("/proc/self/environ").exists() {
        return;
    }
    let mut state = STATE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if matches!(*state, State::Unarmed) {
        *state = State::Armed { program };
    }
}

/// Starts the guardian if it is armed and not started yet; whether one runs, so that a
/// hook about to be spawned may rely on it instead of the parent-death signal.
pub(crate) fn ensure_running() -> bool {
    let mut state = STATE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let State::Armed { program } = &*state {
        *state = match start(program) {
            Ok((pid, pipe)) => State::Running { pid, pipe },
            Err(error) => {
                tracing::debug!(%error, "cannot start the guardian of hook processes");
                State::Off
            }
        };
    }
    matches!(*state, State::Running { .. })
}

/// The guardian's pid, if it runs.
pub(crate) fn pid() -> Option<i32> {
    match &*STATE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
    {
        State::Running { pid, .. } => Some(pid.as_raw()),
        _ => None,
    }
}

/// hookrig is ending normally, its hooks swept: the guardian, if one was started, is not
/// needed.
pub fn dismiss() {
    let mut state = STATE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let State::Running { pid, pipe } = std::mem::replace(&mut *state, State::Off) {
        let _ = kill(pid, Signal::SIGKILL);
        let _ = waitpid(pid, None);
        drop(pipe);
    }
}

/// Starts the guardian, in a process group of its own (a Ctrl-C or hang-up sent to
/// hookrig's group must not stop it), its stdin the read end of a pipe whose write end
/// only this process holds.
///
/// While this process has a single thread (an in-process emit about to run its first
/// hook) the guardian is a fork of it, which costs the parent a copy of its page tables
/// and the copy-on-write faults after it; a new hookrig started for the purpose costs a
/// whole start of the binary (about twice as many page faults, and the CPU of its
/// loading, on a machine that may have two). A process with more threads cannot be
/// forked safely (another thread may hold a lock the child would need), so it spawns
/// `program GUARDIAN_ARG PID` instead.
fn start(program: &PathBuf) -> std::io::Result<(Pid, OwnedFd)> {
    use std::os::unix::process::CommandExt as _;

    let (read, write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)?;
    if single_threaded() {
        return fork(read, write);
    }
    let child = std::process::Command::new(program)
        .arg(GUARDIAN_ARG)
        .arg(std::process::id().to_string())
        .stdin(Stdio::from(read))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()?;
    let pid = i32::try_from(child.id()).map_err(std::io::Error::other)?;
    // The child is waited for by `dismiss`, by pid: the handle is not needed.
    drop(child);
    tracing::debug!(pid, "started the guardian of hook processes");
    Ok((Pid::from_raw(pid), write))
}

/// Whether this process has one thread: field 20 of `/proc/self/stat`, counted from
/// the end of the command name; `false` when it cannot be read.
fn single_threaded() -> bool {
    let Ok(stat) = fs::read("/proc/self/stat") else {
        return false;
    };
    let Some(close) = stat.iter().rposition(|&b| b == b')') else {
        return false;
    };
    std::str::from_utf8(&stat[close + 1..])
        .ok()
        .and_then(|rest| rest.split_ascii_whitespace().nth(17))
        == Some("1")
}

/// Forks the guardian; the child never returns into the caller's code.
fn fork(read: OwnedFd, write: OwnedFd) -> std::io::Result<(Pid, OwnedFd)> {
    let hookrig = i32::try_from(std::process::id()).map_err(std::io::Error::other)?;
    // SAFETY: the process has a single thread (checked just before, and only this
    // thread could start another), so the child may run any code; it ends in `guard`,
    // which never returns.
    #[expect(
        unsafe_code,
        reason = "a fork is the cheapest guardian while hookrig has a single thread"
    )]
    match unsafe { nix::unistd::fork() }? {
        nix::unistd::ForkResult::Parent { child } => {
            drop(read);
            tracing::debug!(
                pid = child.as_raw(),
                "started the guardian of hook processes"
            );
            Ok((child, write))
        }
        nix::unistd::ForkResult::Child => {
            let _ = nix::unistd::dup2_stdin(&read);
            if let Ok(null) = fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open("/dev/null")
            {
                let _ = nix::unistd::dup2_stdout(&null);
                let _ = nix::unistd::dup2_stderr(&null);
            }
            let _ = nix::unistd::setpgid(Pid::from_raw(0), Pid::from_raw(0));
            // The write end, the read end's first copy and everything else hookrig had
            // open are closed by `guard`.
            drop(write);
            guard(hookrig)
        }
    }
}

/// Runs as the guardian and never returns when this process was started as one (its
/// first argument is [`GUARDIAN_ARG`]); else returns at once. A binary that [`arm`]s a
/// guardian with its own path calls this first in `main`.
pub fn run_if_asked() {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() != Some(OsStr::new(GUARDIAN_ARG)) {
        return;
    }
    let hookrig = args
        .next()
        .and_then(|pid| pid.to_str()?.parse::<i32>().ok())
        .filter(|&pid| pid > 1);
    match hookrig {
        Some(pid) => guard(pid),
        None => std::process::exit(2),
    }
}

/// The guardian's life: let go of every other file it inherited (a host reading
/// hookrig's stdout to its end must not wait for the guardian), wait for the end of its
/// stdin (hookrig's death), sweep, exit.
fn guard(hookrig: i32) -> ! {
    use nix::sys::signal::{SigSet, SigmaskHow, sigprocmask};

    close_other_files();
    // A signal meant for hookrig's users must not end the guardian before it has done
    // its job: these stay pending, unhandled.
    let mut mask = SigSet::empty();
    for signal in [
        Signal::SIGINT,
        Signal::SIGTERM,
        Signal::SIGHUP,
        Signal::SIGQUIT,
        Signal::SIGPIPE,
    ] {
        mask.add(signal);
    }
    let _ = sigprocmask(SigmaskHow::SIG_BLOCK, Some(&mask), None);
    let mut stdin = std::io::stdin().lock();
    let mut buffer = [0_u8; 64];
    loop {
        match stdin.read(&mut buffer) {
            // The write end is closed: hookrig is gone.
            Ok(0) => break,
            Ok(_) => {}
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    let needle = format!("{TAG_VARIABLE}={hookrig}.").into_bytes();
    for _ in 0..ROUNDS {
        let live: Vec<i32> = scan()
            .into_iter()
            .filter(|(pid, proc)| !proc.zombie && carries_prefix(*pid, &needle))
            .map(|(pid, _)| pid)
            .collect();
        if live.is_empty() {
            break;
        }
        for pid in live {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
        std::thread::sleep(ROUND_PAUSE);
    }
    std::process::exit(0)
}

/// Closes every file descriptor above stderr.
pub(crate) fn close_other_files() {
    use std::os::fd::{FromRawFd as _, OwnedFd};

    let open: Vec<i32> = fs::read_dir("/proc/self/fd")
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
                .filter(|&fd| fd > 2)
                .collect()
        })
        .unwrap_or_default();
    // The descriptor `read_dir` used is in the list and closed already: closing it
    // again through an `OwnedFd` would be an I/O safety violation.
    for fd in open
        .into_iter()
        .filter(|fd| fs::symlink_metadata(format!("/proc/self/fd/{fd}")).is_ok())
    {
        // SAFETY: these descriptors were inherited across exec (the guardian's own
        // code opened none of them but the one filtered out above), so nothing else in
        // this process owns them.
        #[expect(
            unsafe_code,
            reason = "descriptors inherited across exec have no owner to close them"
        )]
        drop(unsafe { OwnedFd::from_raw_fd(fd) });
    }
}

/// Whether the environment `pid` started with holds a variable starting with `needle`.
fn carries_prefix(pid: i32, needle: &[u8]) -> bool {
    let Ok(environ) = fs::read(format!("/proc/{pid}/environ")) else {
        return false;
    };
    environ
        .split(|&b| b == 0)
        .any(|variable| variable.starts_with(needle))
}
