//! Running one hook as a child process, so that nothing the hook does can hang or crash
//! hookrig.
//!
//! The hook leads a new process group. Its stdin is written in a task of its own and then
//! closed; its stdout and stderr are read concurrently, kept up to a cap and drained beyond
//! it, so the hook never blocks on a full pipe. On timeout the group gets SIGTERM, then
//! SIGKILL after a grace period. Processes of the group that keep the output pipes open
//! after the hook's main process ended are killed after a short leak timeout. When the
//! hook ends, everything it left running is killed, even processes that left its group
//! (see the `reaper` module). Every outcome, including a failure to start, is a
//! [`ProcessOutput`] value, never an error.
//!
//! The caller's tokio runtime must have its I/O and time drivers enabled
//! (`Builder::enable_all`); current-thread and multi-thread runtimes both work.

use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};
use std::{env, fmt, fs};

use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWriteExt as _};
use tokio::process::{Child, ChildStdin};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::child::{Capture, Command, Program, Stderr};
use crate::groups::ProcessGroups;
use crate::job;
use crate::reaper::{self, Leftovers};
use crate::unix::{self, ProcessGroup};

/// How long the output pipes may stay open after the hook's main process was reaped.
///
/// A well-behaved hook's output is already in the pipe when it exits, so reading it to the
/// end takes microseconds; a background process that inherited the pipes (`sleep 30 &`)
/// would keep them open for as long as it lives. 100 ms is the value nextest uses for the
/// same problem: long enough not to cut a hook's last write on a busy machine, short enough
/// to be invisible to a user waiting for the hook.
const LEAK_TIMEOUT: Duration = Duration::from_millis(100);

/// How long the capture task gets to hand back its buffers once told to stop.
///
/// It returns on its next poll, so this is only reached if the runtime is starved; the
/// output is then given up rather than waited for.
const STOP_TIMEOUT: Duration = Duration::from_secs(1);

/// Size of each read from an output pipe: the default pipe capacity on Linux, so that a
/// full pipe is emptied in one read.
const READ_CHUNK: usize = 64 * 1024;

/// The search path used for a bare program name when hookrig itself has no `PATH`: the
/// default of `execvp`.
const DEFAULT_SEARCH_PATH: &str = "/usr/bin:/bin";

/// What to run and under which limits.
#[derive(Debug, Clone)]
pub struct ProcessSpec {
    /// The program: a path (relative ones are relative to [`cwd`](Self::cwd)) or a bare
    /// name looked up in `PATH`.
    ///
    /// A bare name is looked up in the `PATH` the child will get if its [`env`](Self::env)
    /// sets or keeps one, otherwise in hookrig's own `PATH`. The child's `argv[0]` is this
    /// value as written.
    pub program: OsString,
    /// The arguments, without `argv[0]`.
    pub args: Vec<OsString>,
    /// The working directory of the child.
    pub cwd: PathBuf,
    /// The environment of the child.
    pub env: EnvPolicy,
    /// Written whole to the child's stdin, which is then closed. A child that exits
    /// without reading all of it is not an error.
    pub stdin: Vec<u8>,
    /// How long the hook may run before its group is terminated; `None` for no limit.
    pub timeout: Option<Duration>,
    /// Time between SIGTERM and SIGKILL when the timeout expires; zero sends SIGKILL
    /// alone.
    pub kill_grace: Duration,
    /// How many bytes of stdout are kept; the rest is read and dropped.
    pub stdout_cap: usize,
    /// How many bytes of stderr are kept; the rest is read and dropped.
    pub stderr_cap: usize,
}

/// Which environment variables the child gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvPolicy {
    /// Inherit the parent's environment, then set these (later wins).
    Inherit {
        /// Variables to set, in order; a later one replaces an earlier one of the same name.
        set: Vec<(String, String)>,
    },
    /// Start empty, copy only these names from the parent if set, then set these (a
    /// dialect that must not leak secrets uses this).
    Only {
        /// Names of the parent's variables to copy when they are set.
        keep: Vec<String>,
        /// Variables to set after copying, in order; a later one replaces an earlier one.
        set: Vec<(String, String)>,
    },
}

impl EnvPolicy {
    /// This policy applied to a host's environment instead of hookrig's: what a hook
    /// run by a resident engine on behalf of a `hookrig emit` gets, exactly as if that
    /// `hookrig emit` had started it. Every value is given explicitly, so the engine's
    /// own environment reaches no hook.
    ///
    /// Values that are not UTF-8 are passed with the replacement character; the client
    /// sends its emit to the engine only when its environment is UTF-8.
    #[must_use]
    pub fn for_host(self, host: &hookrig_core::HostEnv) -> EnvPolicy {
        let text = |value: &std::ffi::OsStr| value.to_string_lossy().into_owned();
        let (mut from_host, set): (Vec<(String, String)>, _) = match self {
            EnvPolicy::Inherit { set } => (
                host.iter()
                    .map(|(name, value)| (text(name), text(value)))
                    .collect(),
                set,
            ),
            EnvPolicy::Only { keep, set } => (
                keep.iter()
                    .filter_map(|name| host.get(name).map(|value| (name.clone(), text(value))))
                    .collect(),
                set,
            ),
        };
        from_host.extend(set);
        EnvPolicy::Only {
            keep: Vec::new(),
            set: from_host,
        }
    }
}

/// What became of a hook's process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessOutput {
    /// How the main process ended, or why it did not start.
    pub termination: Termination,
    /// The first [`ProcessSpec::stdout_cap`] bytes written to stdout.
    pub stdout: Vec<u8>,
    /// The first [`ProcessSpec::stderr_cap`] bytes written to stderr.
    pub stderr: Vec<u8>,
    /// Whether stdout had more bytes than the cap.
    pub stdout_truncated: bool,
    /// Whether stderr had more bytes than the cap.
    pub stderr_truncated: bool,
    /// Some process of the hook's group still held stdout/stderr open after the hook's main
    /// process ended; reading stopped and they were killed (see
    /// [`leftovers`](Self::leftovers) for whether that worked).
    pub leaked: bool,
    /// The hook's descendants still running once its main process ended, in its group
    /// or escaped from it (`setsid`): all are killed, and this says how many were and
    /// how many survived.
    pub leftovers: Leftovers,
    /// From spawn to reaped; zero when the process did not start.
    pub duration: Duration,
}

/// How a hook's main process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Termination {
    /// It exited with this code.
    ///
    /// `-1`, which no process can exit with, means its status could not be collected
    /// (`waitpid` failed, which only happens if something else reaped it).
    Exited(i32),
    /// It was killed by a signal hookrig did not send (a crash, or a `kill` by someone
    /// else): the signal number.
    Signaled(i32),
    /// It ran past its timeout and its process group was terminated.
    TimedOut {
        /// The timeout that expired.
        after: Duration,
        /// Whether SIGKILL was needed after the grace period because SIGTERM did not end
        /// the main process.
        killed: bool,
    },
    /// [`ProcessGroups::kill_all`] was called while it ran (hookrig got SIGINT/SIGTERM),
    /// or before it started, in which case it was not started.
    Interrupted,
    /// It could not be started.
    SpawnFailed(SpawnError),
}

/// Why a hook's program could not be started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpawnError {
    /// The resolved path when known, otherwise the program as written (a bare name that was
    /// not found in `PATH`).
    pub program: OsString,
    /// The kind of failure.
    pub kind: SpawnErrorKind,
    /// A lowercase description of the failure; it is the whole explanation for
    /// [`SpawnErrorKind::Other`].
    pub message: String,
}

/// The kinds of [`SpawnError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpawnErrorKind {
    /// The program does not exist (or a bare name is not in `PATH`).
    NotFound,
    /// The program exists but is not executable.
    PermissionDenied,
    /// Anything else: a missing working directory, a missing `#!` interpreter, an invalid
    /// executable, resource exhaustion…
    Other,
}

// Written by hand because the message depends on the kind and on the program, which
// thiserror cannot express for a struct.
impl fmt::Display for SpawnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        render_spawn_error(self, f)
    }
}

impl std::error::Error for SpawnError {}

fn render_spawn_error(error: &SpawnError, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let path = Path::new(&error.program).display();
    match error.kind {
        SpawnErrorKind::NotFound if !error.program.as_encoded_bytes().contains(&b'/') => {
            write!(f, "command '{}' not found in PATH", error.program.display())
        }
        SpawnErrorKind::NotFound => write!(f, "cannot run {path}: no such file or directory"),
        SpawnErrorKind::PermissionDenied => {
            write!(
                f,
                "cannot run {path}: permission denied (try `chmod +x {path}`)"
            )
        }
        SpawnErrorKind::Other => write!(f, "cannot run {path}: {}", error.message),
    }
}

impl SpawnError {
    pub(crate) fn new(
        program: impl Into<OsString>,
        kind: SpawnErrorKind,
        message: impl Into<String>,
    ) -> Self {
        Self {
            program: program.into(),
            kind,
            message: message.into(),
        }
    }
}

impl ProcessOutput {
    fn not_started(termination: Termination) -> Self {
        Self {
            termination,
            stdout: Vec::new(),
            stderr: Vec::new(),
            stdout_truncated: false,
            stderr_truncated: false,
            leaked: false,
            leftovers: Leftovers::default(),
            duration: Duration::ZERO,
        }
    }

    /// The output of a child that could not be started because no async runtime could
    /// be built to supervise it.
    pub(crate) fn runtime_failed(program: OsString, error: &io::Error) -> Self {
        let message = format!("cannot start the async runtime that supervises it: {error}");
        Self::not_started(Termination::SpawnFailed(SpawnError::new(
            program,
            SpawnErrorKind::Other,
            message,
        )))
    }

    /// The warning about processes the hook left running, naming it as `who` (`hook x`),
    /// or `None` when it left none. It says they were killed only when they are gone.
    pub fn leftover_warning(&self, who: &str) -> Option<String> {
        let Leftovers { killed, alive } = self.leftovers;
        if alive > 0 {
            let held = if self.leaked {
                " (some holding its output open)"
            } else {
                ""
            };
            return Some(format!(
                "{who} left background processes{held}; {alive} of them could not be killed and still run"
            ));
        }
        if self.leaked {
            return Some(format!(
                "{who} left background processes holding its output open; they were killed"
            ));
        }
        (killed > 0).then(|| {
            let processes = if killed == 1 { "process" } else { "processes" };
            format!("{who} left {killed} background {processes} running after it ended; they were killed")
        })
    }
}

impl ProcessSpec {
    /// The spec as the one [`Command`] description and its [`Capture`] limits.
    pub fn into_parts(self) -> (Command, Capture) {
        let command = Command {
            program: Program::Exec {
                program: self.program,
                args: self.args,
            },
            cwd: self.cwd,
            env: self.env,
        };
        let capture = Capture {
            stdin: self.stdin,
            stdout_cap: self.stdout_cap,
            stderr: Stderr::Capture(self.stderr_cap),
            timeout: self.timeout,
            kill_grace: self.kill_grace,
        };
        (command, capture)
    }
}

/// Runs a hook's process to completion under the limits of `spec`.
///
/// Its process group is registered in `groups` while it runs, so that
/// [`ProcessGroups::kill_all`] can interrupt it. The time this takes is bounded by the
/// timeout plus the kill grace plus a 100 ms leak timeout (plus scheduling), whatever the
/// hook and its descendants do.
///
/// Dropping the returned future before it completes kills the hook's process group.
pub async fn run_process(spec: ProcessSpec, groups: &ProcessGroups) -> ProcessOutput {
    let (command, capture) = spec.into_parts();
    self::capture(command, capture, groups).await
}

/// [`run_process`] for the one [`Command`] description: what
/// [`Command::capture`] runs.
pub(crate) async fn capture(
    command: Command,
    limits: Capture,
    groups: &ProcessGroups,
) -> ProcessOutput {
    let mut interruptions = groups.interruptions();
    let (program, argv0, args) = command.program.argv();
    if *interruptions.borrow() {
        tracing::debug!(?program, "not starting a hook: hookrig is stopping");
        return ProcessOutput::not_started(Termination::Interrupted);
    }
    let resolved = match resolve_program(&program, &command.cwd, &command.env) {
        Ok(resolved) => resolved,
        Err(error) => return ProcessOutput::not_started(Termination::SpawnFailed(error)),
    };
    // Before the spawn, so that what the hook starts and leaves is inherited by hookrig
    // rather than by init.
    reaper::adopt_orphans();
    let tag = reaper::new_tag();
    let started = Instant::now();
    let mut child =
        match build_command(&command, &resolved, &argv0, &args, limits.stderr, &tag).spawn() {
            Ok(child) => child,
            Err(error) => {
                let error = spawn_error(resolved, &error);
                return ProcessOutput::not_started(Termination::SpawnFailed(error));
            }
        };
    if let Some(pid) = child.id() {
        crate::guardian::child_started(pid);
    }
    let group = child.id().and_then(ProcessGroup::led_by);
    tracing::debug!(program = %resolved.display(), ?group, "spawned hook");
    let _registration = group.map(|group| groups.register(group));

    let (stop, stop_receiver) = watch::channel(false);
    let stdin = child.stdin.take().and_then(|pipe| {
        // An empty input needs no task: dropping the pipe closes it.
        (!limits.stdin.is_empty()).then(|| tokio::spawn(write_stdin(pipe, limits.stdin)))
    });
    let stderr_cap = match limits.stderr {
        Stderr::Capture(cap) => cap,
        Stderr::Inherit => 0,
    };
    let capture = tokio::spawn(self::read_output(
        child.stdout.take(),
        child.stderr.take(),
        (limits.stdout_cap, stderr_cap),
        stop_receiver,
    ));
    let mut supervision = Supervision {
        group,
        tag,
        stdin,
        capture,
        stop,
        settled: false,
    };

    let (status, ending) = wait_for_end(
        &mut child,
        group,
        limits.timeout,
        limits.kill_grace,
        &mut interruptions,
    )
    .await;
    let duration = started.elapsed();
    // A kill_all that raced with the end of the process may have made it end.
    let interrupted = matches!(ending, Ending::Interrupted) || *interruptions.borrow();
    let termination = match ending {
        _ if interrupted => Termination::Interrupted,
        Ending::TimedOut { after, killed } => Termination::TimedOut { after, killed },
        Ending::Interrupted | Ending::Natural => termination_of(status, group),
    };

    let (stdout, stderr, leaked) = supervision.collect().await;
    // Whatever the hook started is killed with it, in its group or escaped from it.
    let leftovers = if reaper::may_have_left(group.map(ProcessGroup::id)) {
        reaper::sweep(&supervision.tag, group.map(ProcessGroup::id)).await
    } else {
        Leftovers::default()
    };
    // Where the sweep cannot work (not Linux), the group is what is left to kill. Not
    // otherwise: once the group is empty its id may be reused by an unrelated process.
    if !reaper::adopt_orphans()
        && let Some(group) = group.filter(|group| group.is_alive())
    {
        group.kill();
    }
    supervision.settled = true;
    tracing::debug!(?termination, ?duration, leaked, ?leftovers, "hook ended");
    ProcessOutput {
        termination,
        stdout: stdout.bytes,
        stderr: stderr.bytes,
        stdout_truncated: stdout.truncated,
        stderr_truncated: stderr.truncated,
        leaked,
        leftovers,
        duration,
    }
}

/// How the wait for the main process ended.
enum Ending {
    /// It ended on its own (or by a signal someone else sent).
    Natural,
    /// It ran past its timeout and was terminated.
    TimedOut { after: Duration, killed: bool },
    /// `kill_all` was called.
    Interrupted,
}

/// Waits for the main process to end, enforcing the timeout and `kill_all`, and reaps it.
async fn wait_for_end(
    child: &mut Child,
    group: Option<ProcessGroup>,
    timeout: Option<Duration>,
    kill_grace: Duration,
    interruptions: &mut watch::Receiver<bool>,
) -> (io::Result<ExitStatus>, Ending) {
    let deadline = async {
        match timeout {
            Some(timeout) => tokio::time::sleep(timeout).await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        biased;
        status = child.wait() => return (status, Ending::Natural),
        () = interrupted(interruptions) => {
            // kill_all may have signalled the registered groups before this one was
            // registered; killing again is harmless.
            kill(group, child);
            return (child.wait().await, Ending::Interrupted);
        }
        () = deadline => {}
    }

    let after = timeout.unwrap_or_default();
    let Some(group) = group else {
        // Without a group there is nobody to ask politely: the main process is killed.
        tracing::debug!(?after, "hook timed out: killing it");
        kill(None, child);
        let ending = Ending::TimedOut {
            after,
            killed: true,
        };
        return (child.wait().await, ending);
    };
    tracing::debug!(?group, ?after, "hook timed out: stopping its group");
    let stopped = job::stop_group(group, kill_grace, child.wait()).await;
    let status = match stopped.leader {
        Some(status) => status,
        None => child.wait().await,
    };
    let ending = Ending::TimedOut {
        after,
        killed: stopped.killed,
    };
    (status, ending)
}

/// Resolves when `kill_all` is called.
async fn interrupted(interruptions: &mut watch::Receiver<bool>) {
    // The guard that `wait_for` returns is dropped before any other await, which keeps
    // `run_process` Send. The sender lives as long as the `ProcessGroups` the caller
    // borrows to us, so an error cannot happen; waiting forever is the safe reading.
    if interruptions
        .wait_for(|&interrupted| interrupted)
        .await
        .is_err()
    {
        std::future::pending::<()>().await;
    }
}

/// Sends SIGKILL to the hook's group, or to its main process if it has no group.
fn kill(group: Option<ProcessGroup>, child: &mut Child) {
    match group {
        Some(group) => group.kill(),
        None => {
            if let Err(error) = child.start_kill() {
                tracing::debug!(%error, "cannot kill hook");
            }
        }
    }
}

fn termination_of(status: io::Result<ExitStatus>, group: Option<ProcessGroup>) -> Termination {
    match status {
        Ok(status) => match (status.code(), unix::terminating_signal(status)) {
            (Some(code), _) => Termination::Exited(code),
            (None, Some(signal)) => Termination::Signaled(signal),
            (None, None) => Termination::Exited(-1),
        },
        Err(error) => {
            tracing::warn!(?group, %error, "cannot collect the exit status of a hook");
            Termination::Exited(-1)
        }
    }
}

/// The tasks attached to a running hook; dropping it before the run settled (the
/// `run_process` future was dropped) kills the hook's group and the tasks.
struct Supervision {
    group: Option<ProcessGroup>,
    /// The tag in the environment of the hook and of everything it starts.
    tag: String,
    stdin: Option<JoinHandle<()>>,
    capture: JoinHandle<(Captured, Captured)>,
    /// Tells the capture task to stop reading and hand back what it has.
    stop: watch::Sender<bool>,
    settled: bool,
}

impl Supervision {
    /// Collects the output once the main process was reaped: waits for end-of-file on both
    /// pipes for at most [`LEAK_TIMEOUT`], then kills the group and stops reading. Returns
    /// stdout, stderr and whether the pipes leaked.
    async fn collect(&mut self) -> (Captured, Captured, bool) {
        if let Ok(joined) = tokio::time::timeout(LEAK_TIMEOUT, &mut self.capture).await {
            let (stdout, stderr) = joined.unwrap_or_default();
            return (stdout, stderr, false);
        }
        tracing::debug!(group = ?self.group, "hook output still open after it exited: killing its group");
        if let Some(group) = self.group {
            group.kill();
        }
        // A process that escaped the group (setsid) survives the kill: stop reading rather
        // than wait for it.
        self.stop.send_replace(true);
        let (stdout, stderr) = match tokio::time::timeout(STOP_TIMEOUT, &mut self.capture).await {
            Ok(joined) => joined.unwrap_or_default(),
            Err(_elapsed) => {
                self.capture.abort();
                <(Captured, Captured)>::default()
            }
        };
        (stdout, stderr, true)
    }
}

impl Drop for Supervision {
    fn drop(&mut self) {
        if !self.settled {
            if let Some(group) = self.group {
                group.kill();
            }
            reaper::kill_tagged(&self.tag);
        }
        // A stdin writer can still be blocked on a pipe held by a descendant that does not
        // read; it must not outlive the run. Aborting finished tasks does nothing.
        if let Some(stdin) = &self.stdin {
            stdin.abort();
        }
        self.capture.abort();
    }
}

async fn write_stdin(mut pipe: ChildStdin, bytes: Vec<u8>) {
    match pipe.write_all(&bytes).await {
        Ok(()) => {}
        // The hook exited or closed its stdin without reading everything: its choice.
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => {
            tracing::debug!("hook did not read all of its stdin");
        }
        Err(error) => tracing::debug!(%error, "cannot write the stdin of a hook"),
    }
    // Dropping the pipe closes it: the hook sees end-of-file.
    drop(pipe);
}

/// Bytes kept from one output pipe.
#[derive(Debug, Default)]
struct Captured {
    bytes: Vec<u8>,
    truncated: bool,
}

impl Captured {
    fn keep(&mut self, bytes: &[u8], cap: usize) {
        let room = cap.saturating_sub(self.bytes.len());
        let kept = bytes.len().min(room);
        self.bytes.extend_from_slice(&bytes[..kept]);
        if kept < bytes.len() {
            self.truncated = true;
        }
    }
}

async fn read_output(
    stdout: Option<impl AsyncRead + Unpin>,
    stderr: Option<impl AsyncRead + Unpin>,
    (stdout_cap, stderr_cap): (usize, usize),
    stop: watch::Receiver<bool>,
) -> (Captured, Captured) {
    tokio::join!(
        read_capped(stdout, stdout_cap, stop.clone()),
        read_capped(stderr, stderr_cap, stop),
    )
}

/// Reads `pipe` to its end or until told to stop, keeping the first `cap` bytes.
async fn read_capped(
    pipe: Option<impl AsyncRead + Unpin>,
    cap: usize,
    mut stop: watch::Receiver<bool>,
) -> Captured {
    let mut captured = Captured::default();
    let Some(mut pipe) = pipe else {
        return captured;
    };
    let mut chunk = vec![0; READ_CHUNK];
    loop {
        let read = tokio::select! {
            biased;
            // A closed channel also stops reading: the run is being torn down.
            _ = stop.wait_for(|&stop| stop) => break,
            read = pipe.read(&mut chunk) => read,
        };
        match read {
            Ok(0) => break,
            Ok(read) => captured.keep(&chunk[..read], cap),
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => {
                tracing::debug!(%error, "cannot read the output of a hook");
                break;
            }
        }
    }
    captured
}

/// Finds the file to execute, or explains why there is none.
pub(crate) fn resolve_program(
    program: &OsStr,
    cwd: &Path,
    env: &EnvPolicy,
) -> Result<PathBuf, SpawnError> {
    // Checked here because a missing directory fails the spawn with the same error as a
    // missing program, and the message would then blame the program.
    if !cwd.is_dir() {
        let message = format!(
            "working directory {} does not exist or is not a directory",
            cwd.display()
        );
        return Err(SpawnError::new(program, SpawnErrorKind::Other, message));
    }
    if program.as_encoded_bytes().contains(&b'/') {
        // Joining keeps an absolute path as it is and anchors a relative one in the hook's
        // working directory, where `execve` would look for it too. Collecting the
        // components drops the `.` of `./hook.sh`, for readable messages.
        return Ok(cwd.join(program).components().collect());
    }
    let search_path = path_override(env)
        .or_else(|| env::var_os("PATH"))
        .unwrap_or_else(|| DEFAULT_SEARCH_PATH.into());
    search(program, &search_path, cwd)
}

/// The `PATH` that `env` sets explicitly, if any (the last one wins, as in the child).
fn path_override(env: &EnvPolicy) -> Option<OsString> {
    let (EnvPolicy::Inherit { set } | EnvPolicy::Only { set, .. }) = env;
    set.iter()
        .rev()
        .find(|(name, _)| name == "PATH")
        .map(|(_, value)| value.into())
}

/// Looks `name` up in `search_path` like `execvp`: the first executable file wins; a
/// non-executable one is reported only when nothing executable exists.
fn search(name: &OsStr, search_path: &OsStr, cwd: &Path) -> Result<PathBuf, SpawnError> {
    if name.is_empty() {
        return Err(SpawnError::new(
            name,
            SpawnErrorKind::NotFound,
            "empty program name",
        ));
    }
    let mut not_executable = None;
    for dir in env::split_paths(search_path) {
        // An empty entry means the current directory, the hook's.
        let candidate = cwd.join(dir).join(name);
        match fs::metadata(&candidate) {
            Ok(metadata) if metadata.is_file() && unix::is_executable(&metadata) => {
                return Ok(candidate);
            }
            Ok(metadata) if metadata.is_file() => {
                not_executable.get_or_insert(candidate);
            }
            _ => {}
        }
    }
    Err(match not_executable {
        Some(path) => SpawnError::new(path, SpawnErrorKind::PermissionDenied, "permission denied"),
        None => SpawnError::new(name, SpawnErrorKind::NotFound, "not found in PATH"),
    })
}

fn build_command(
    spec: &Command,
    program: &Path,
    argv0: &OsStr,
    args: &[OsString],
    stderr: Stderr,
    tag: &str,
) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(program);
    unix::configure_command(&mut command, argv0);
    command
        .args(args)
        .current_dir(&spec.cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(match stderr {
            Stderr::Capture(_) => Stdio::piped(),
            Stderr::Inherit => Stdio::inherit(),
        })
        // The backstop: if everything else fails, the main process does not outlive us.
        .kill_on_drop(true);
    apply_env(command.as_std_mut(), &spec.env);
    // Last, so that neither the parent's environment nor the hook's settings replace it.
    command.env(reaper::TAG_VARIABLE, tag);
    command
}

/// Gives `command` the environment `env` describes.
pub(crate) fn apply_env(command: &mut std::process::Command, env: &EnvPolicy) {
    let set = match env {
        EnvPolicy::Inherit { set } => set,
        EnvPolicy::Only { keep, set } => {
            command.env_clear();
            // Names that cannot be variables are skipped: asking the OS about them is
            // pointless and `var_os` is documented to possibly panic on them.
            let valid = |name: &&String| !name.is_empty() && !name.contains(['=', '\0']);
            for name in keep.iter().filter(valid) {
                if let Some(value) = env::var_os(name) {
                    command.env(name, value);
                }
            }
            set
        }
    };
    // Later settings of the same name replace earlier ones.
    command.envs(set.iter().map(|(name, value)| (name, value)));
}

/// Turns the error of a spawn into a [`SpawnError`] about the resolved `program`.
pub(crate) fn spawn_error(program: PathBuf, error: &io::Error) -> SpawnError {
    match error.kind() {
        // The file is there, so what is missing is the interpreter of its `#!` line (or
        // the dynamic loader of a binary).
        io::ErrorKind::NotFound if program.exists() => SpawnError::new(
            program,
            SpawnErrorKind::Other,
            "no such file or directory: is the interpreter on its #! line installed?",
        ),
        io::ErrorKind::NotFound => SpawnError::new(
            program,
            SpawnErrorKind::NotFound,
            "no such file or directory",
        ),
        io::ErrorKind::PermissionDenied => SpawnError::new(
            program,
            SpawnErrorKind::PermissionDenied,
            "permission denied",
        ),
        _ => SpawnError::new(program, SpawnErrorKind::Other, error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(program: &str, kind: SpawnErrorKind, message: &str) -> SpawnError {
        SpawnError::new(program, kind, message)
    }

    #[test]
    fn spawn_errors_render_for_people() {
        let cases = [
            (
                error("hook-x", SpawnErrorKind::NotFound, "not found in PATH"),
                "command 'hook-x' not found in PATH",
            ),
            (
                error(
                    "/h/x.sh",
                    SpawnErrorKind::NotFound,
                    "no such file or directory",
                ),
                "cannot run /h/x.sh: no such file or directory",
            ),
            (
                error(
                    "/h/x.sh",
                    SpawnErrorKind::PermissionDenied,
                    "permission denied",
                ),
                "cannot run /h/x.sh: permission denied (try `chmod +x /h/x.sh`)",
            ),
            (
                error("/h/x", SpawnErrorKind::Other, "exec format error"),
                "cannot run /h/x: exec format error",
            ),
        ];
        for (error, expected) in cases {
            assert_eq!(error.to_string(), expected);
        }
    }

    #[test]
    fn captured_keeps_exactly_the_cap() {
        let mut captured = Captured::default();
        captured.keep(b"123", 5);
        assert!(!captured.truncated);
        captured.keep(b"45", 5);
        assert_eq!(captured.bytes, b"12345");
        assert!(!captured.truncated, "exactly the cap is not truncated");
        captured.keep(b"6", 5);
        assert_eq!(captured.bytes, b"12345");
        assert!(captured.truncated);

        let mut nothing = Captured::default();
        nothing.keep(b"x", 0);
        assert!(nothing.bytes.is_empty());
        assert!(nothing.truncated);
    }

    #[test]
    fn path_override_takes_the_last_path_set() {
        let env = EnvPolicy::Only {
            keep: vec![],
            set: vec![
                ("PATH".into(), "/a".into()),
                ("X".into(), "1".into()),
                ("PATH".into(), "/b".into()),
            ],
        };
        assert_eq!(path_override(&env), Some("/b".into()));
        let inherit = EnvPolicy::Inherit { set: vec![] };
        assert_eq!(path_override(&inherit), None);
    }

    #[test]
    fn search_prefers_an_executable_and_reports_a_non_executable() {
        use std::os::unix::fs::PermissionsExt as _;

        let dir = tempfile::tempdir().expect("tempdir");
        let (plain, exec) = (dir.path().join("plain"), dir.path().join("exec"));
        fs::create_dir_all(&plain).expect("mkdir");
        fs::create_dir_all(&exec).expect("mkdir");
        for (dir, mode) in [(&plain, 0o644), (&exec, 0o755)] {
            let file = dir.join("hook");
            fs::write(&file, "#!/bin/sh\n").expect("write");
            fs::set_permissions(&file, fs::Permissions::from_mode(mode)).expect("chmod");
        }
        let both = env::join_paths([&plain, &exec]).expect("join");
        let found = search(OsStr::new("hook"), &both, dir.path()).expect("found");
        assert_eq!(found, exec.join("hook"));

        let error = search(OsStr::new("hook"), plain.as_os_str(), dir.path()).expect_err("644");
        assert_eq!(error.kind, SpawnErrorKind::PermissionDenied);
        assert_eq!(error.program, plain.join("hook").into_os_string());

        let error = search(OsStr::new("nope"), &both, dir.path()).expect_err("missing");
        assert_eq!(error.to_string(), "command 'nope' not found in PATH");

        let error = search(OsStr::new(""), &both, dir.path()).expect_err("empty");
        assert_eq!(error.kind, SpawnErrorKind::NotFound);
    }

    #[test]
    fn run_process_is_send() {
        fn assert_send<T: Send>(_: &T) {}
        let groups = ProcessGroups::new();
        let spec = ProcessSpec {
            program: "true".into(),
            args: vec![],
            cwd: "/".into(),
            env: EnvPolicy::Inherit { set: vec![] },
            stdin: vec![],
            timeout: None,
            kill_grace: Duration::ZERO,
            stdout_cap: 0,
            stderr_cap: 0,
        };
        // A server spawns hooks on a multi-thread runtime, which needs Send futures.
        assert_send(&run_process(spec, &groups));
    }
}
