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
//! It is started as hookrig itself with [`GUARDIAN_ARG`] (`posix_spawn`, so the parent
//! copies nothing), whose `main` hands over to [`run_if_asked`] before anything else.
//! hookrig's death is told to the guardian by the end of a pipe: its stdin is the read
//! end, and hookrig holds the only write end (closed on exec, so no hook inherits it),
//! which the kernel closes when hookrig dies, however it dies, and whichever of its
//! threads started the guardian.
//!
//! When it starts is the [`Start`] given to [`arm`]. A resident process (the engine,
//! `serve`) starts it with its first child. A one-shot `hookrig emit` starts it only once
//! a child has lived [`GRACE`]: most hooks have exited by then, and an emit whose hooks
//! all did starts no process besides them (the guardian's start was the largest cost of
//! an emit with one quick hook, docs/PERFORMANCE.md). Each child's own age counts, not
//! the time since the first spawn: ten quick hooks in a row outlast [`GRACE`] together,
//! none of them alone. The price is a window: a hookrig killed with SIGKILL within
//! [`GRACE`] of a hook's start leaves what that hook started.

use std::ffi::OsStr;
use std::fs;
use std::io::Read as _;
use std::os::fd::OwnedFd;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::sys::wait::waitpid;
use nix::unistd::Pid;

use crate::reaper::{ROUND_PAUSE, ROUNDS, TAG_VARIABLE, scan};

/// The first argument that runs the program given to [`arm`] as a guardian.
pub const GUARDIAN_ARG: &str = "--hookrig-guardian";

/// How long a child of a [`Start::Lazily`] process runs before the guardian is started.
pub const GRACE: Duration = Duration::from_millis(20);

/// When an armed guardian is started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// Right before the first child is spawned: for processes that run many hooks for a
    /// long time, where one start is nothing and no window is wanted.
    WithFirstChild,
    /// Once a child has run for [`GRACE`] (a one-shot emit, whose hooks mostly end
    /// sooner).
    Lazily,
}

/// Where the guardian of this process stands.
enum State {
    /// No guardian was asked for: hooks get the parent-death signal only.
    Unarmed,
    /// One is to be started (see [`Start`]) by running `program`; `watching` once the
    /// thread that starts a lazy one runs.
    Armed {
        program: PathBuf,
        start: Start,
        watching: bool,
    },
    /// It runs; `pipe` is the write end of its stdin, held until hookrig ends.
    Running { pid: Pid, pipe: OwnedFd },
    /// It could not be started, or was dismissed: hooks get the parent-death signal.
    Off,
}

static STATE: Mutex<State> = Mutex::new(State::Unarmed);

/// Children spawned so far, counted for the watcher of a lazy guardian, which waits on
/// [`SPAWNED_CHANGED`] for the next one when none was running at its last look.
static SPAWNED: Mutex<u64> = Mutex::new(0);
static SPAWNED_CHANGED: Condvar = Condvar::new();
/// The same news for a watcher that is a task of the runtime spawning the hooks.
static SPAWNED_ON_RUNTIME: tokio::sync::Notify = tokio::sync::Notify::const_new();
/// The children spawned while a lazy guardian is not started yet, by pid, with when: the
/// watcher starts it for a child that has lived [`GRACE`]. Kept to the live children at
/// each look.
static BORN: Mutex<Vec<(i32, Instant)>> = Mutex::new(Vec::new());

fn lock() -> std::sync::MutexGuard<'static, State> {
    STATE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Asks for a guardian, started as `start` says, by running `program` (hookrig itself,
/// whose `main` calls [`run_if_asked`] first) with [`GUARDIAN_ARG`]. Where it cannot
/// work (not Linux, no `/proc`) nothing is armed.
pub fn arm(program: PathBuf, start: Start) {
    if !cfg!(target_os = "linux") || !std::path::Path::new("/proc/self/environ").exists() {
        return;
    }
    let mut state = lock();
    if matches!(*state, State::Unarmed) {
        *state = State::Armed {
            program,
            start,
            watching: false,
        };
    }
}

/// Called right before a child is spawned; whether the child may rely on the guardian
/// instead of the parent-death signal: it runs, or it is armed and will be started
/// (lazily, by a watcher started here with the first child: a timer on the runtime
/// spawning it, else a thread).
pub(crate) fn covers_next_child() -> bool {
    let mut state = lock();
    match &mut *state {
        State::Armed {
            start: Start::WithFirstChild,
            ..
        } => {
            start_now(&mut state);
            matches!(*state, State::Running { .. })
        }
        State::Armed {
            start: Start::Lazily,
            watching,
            ..
        } => {
            if !*watching {
                // On the runtime spawning the hook, the watcher is a timer: no thread
                // to create and tear down (most of an emit's kernel time besides its
                // hook, docs/PERFORMANCE.md). A runtime dropped before the timer fires
                // drops it with the emit, whose hooks have ended by then.
                if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                    runtime.spawn(watch_on_runtime());
                } else {
                    let spawned = std::thread::Builder::new()
                        .name("hookrig-guardian-watch".to_owned())
                        .spawn(watch);
                    if let Err(error) = spawned {
                        // No watcher: start the guardian now rather than leave hooks bare.
                        tracing::debug!(%error, "cannot start the guardian's watcher");
                        start_now(&mut state);
                        return matches!(*state, State::Running { .. });
                    }
                }
                *watching = true;
            }
            drop(state);
            let mut spawned = SPAWNED
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            *spawned += 1;
            SPAWNED_CHANGED.notify_all();
            // A permit is kept when the timer is not waiting yet, so no spawn is missed.
            SPAWNED_ON_RUNTIME.notify_one();
            true
        }
        State::Running { .. } => true,
        State::Unarmed | State::Off => false,
    }
}

/// Called right after a child [`covers_next_child`] said was covered is spawned: a lazy
/// guardian counts the child's age from now.
pub(crate) fn child_started(pid: u32) {
    if !matches!(
        *lock(),
        State::Armed {
            start: Start::Lazily,
            ..
        }
    ) {
        return;
    }
    let Ok(pid) = i32::try_from(pid) else {
        return;
    };
    let mut born = born();
    // A pid the kernel gave again is a new child.
    born.retain(|&(known, _)| known != pid);
    born.push((pid, Instant::now()));
}

fn born() -> std::sync::MutexGuard<'static, Vec<(i32, Instant)>> {
    BORN.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Starts an armed guardian now; the state says whether it runs.
fn start_now(state: &mut State) {
    if let State::Armed { program, .. } = &*state {
        *state = match start(program) {
            Ok((pid, pipe)) => State::Running { pid, pipe },
            Err(error) => {
                tracing::debug!(%error, "cannot start the guardian of hook processes");
                State::Off
            }
        };
    }
}

/// What a watcher does after one [`look`].
enum Next {
    /// The guardian runs, or is not wanted any more: the watcher ends.
    Done,
    /// A child runs that is younger than [`GRACE`]: look again once it is that old.
    LookIn(Duration),
    /// No child runs: wait for the next spawn.
    WaitForSpawn,
}

/// [`watch`] as a task of the runtime that spawns the hooks.
async fn watch_on_runtime() {
    let mut seen = 0;
    let mut pause = GRACE;
    loop {
        tokio::time::sleep(pause).await;
        pause = match look() {
            Next::Done => return,
            Next::LookIn(pause) => pause,
            Next::WaitForSpawn => {
                let spawned = *SPAWNED
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                if spawned == seen {
                    SPAWNED_ON_RUNTIME.notified().await;
                }
                seen = *SPAWNED
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                GRACE
            }
        };
    }
}

/// One look of a watcher: starts the guardian if a child of this process has lived
/// [`GRACE`] (a hook still running, or what one left and this subreaper adopted, whose
/// age is not known and so counts as old enough). Else says when to look again.
fn look() -> Next {
    // Asked before taking the lock, which `children_but_guardian` takes itself.
    let children = crate::reaper::children_but_guardian();
    let mut state = lock();
    if !matches!(*state, State::Armed { .. }) {
        return Next::Done;
    }
    let mut born = born();
    let Some(children) = children else {
        // Who runs cannot be told: start it rather than leave hooks bare.
        born.clear();
        start_now(&mut state);
        return Next::Done;
    };
    born.retain(|(pid, _)| children.contains(pid));
    let until_the_oldest_has = children
        .iter()
        .map(|pid| match born.iter().find(|(known, _)| known == pid) {
            Some((_, since)) => GRACE.saturating_sub(since.elapsed()),
            None => Duration::ZERO,
        })
        .min();
    match until_the_oldest_has {
        None => Next::WaitForSpawn,
        Some(Duration::ZERO) => {
            born.clear();
            start_now(&mut state);
            Next::Done
        }
        Some(wait) => Next::LookIn(wait),
    }
}

/// The watcher of a lazy guardian: [`GRACE`] after a child was spawned, starts the
/// guardian if a child has lived that long (see [`look`]); else looks again when the
/// oldest running child will have, or waits for the next spawn when none runs. Ends
/// once the guardian runs or was dismissed.
fn watch() {
    let mut seen = 0;
    let mut pause = GRACE;
    loop {
        std::thread::sleep(pause);
        pause = match look() {
            Next::Done => return,
            Next::LookIn(pause) => pause,
            Next::WaitForSpawn => {
                // Nothing runs: wait for a spawn after the ones already seen.
                let mut spawned = SPAWNED
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                if *spawned == seen {
                    spawned = SPAWNED_CHANGED
                        .wait_while(spawned, |count| *count == seen)
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                }
                seen = *spawned;
                GRACE
            }
        };
    }
}

/// The guardian's pid, if it runs.
pub(crate) fn pid() -> Option<i32> {
    match &*lock() {
        State::Running { pid, .. } => Some(pid.as_raw()),
        _ => None,
    }
}

/// hookrig is ending normally, its hooks swept: the guardian, if one was started, is not
/// needed, and none is started any more.
pub fn dismiss() {
    let mut state = lock();
    if let State::Running { pid, pipe } = std::mem::replace(&mut *state, State::Off) {
        let _ = kill(pid, Signal::SIGKILL);
        let _ = waitpid(pid, None);
        drop(pipe);
    }
}

/// Starts the guardian, in a process group of its own (a Ctrl-C or hang-up sent to
/// hookrig's group must not stop it), its stdin the read end of a pipe whose write end
/// only this process holds, as `program GUARDIAN_ARG PID`.
///
/// It is spawned, never forked: `posix_spawn` copies none of hookrig's page tables, and
/// a lazy guardian is started by a watcher while other threads run, which rules a fork
/// out anyway (another thread may hold a lock the child would need).
fn start(program: &PathBuf) -> std::io::Result<(Pid, OwnedFd)> {
    use std::os::unix::process::CommandExt as _;

    let (read, write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)?;
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

/// Closes every file descriptor above stderr. Whatever hookrig opens is closed on exec,
/// so these are descriptors its own parent let it inherit (a host's extra pipe, say),
/// which a guardian or an async keeper must not keep open for as long as it lives.
/// Called first thing, before the process has opened anything of its own.
pub(crate) fn close_other_files() {
    // SAFETY: `close_range` only closes descriptors; the caller has opened none of its
    // own above stderr yet, so nothing in this process owns the ones it closes. Where the
    // kernel lacks it (before 5.9) they stay open, as harmless as before exec.
    #[expect(
        unsafe_code,
        reason = "descriptors inherited across exec have no owner to close them"
    )]
    let _ = unsafe { libc::syscall(libc::SYS_close_range, 3_u32, u32::MAX, 0_u32) };
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
