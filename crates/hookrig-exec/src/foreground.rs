//! A child on the terminal: hookrig's stdin, stdout and stderr, in hookrig's own process
//! group, its exit status handed back (external commands, `hookrig foo` running
//! `hookrig-foo`).
//!
//! The child stays in hookrig's process group, the terminal's foreground group, because
//! it is interactive: a process of a background group that reads the terminal is stopped
//! (SIGTTIN), and Ctrl-C must reach it as it reaches any program run from a shell. So it
//! gets SIGINT and SIGQUIT from the terminal itself, and decides whether they end it (as
//! `system()` leaves them to the child); hookrig ignores them while it waits. SIGTERM and
//! SIGHUP, usually sent to hookrig alone, are passed on to the child.

use nix::sys::signal::Signal;
use nix::unistd::Pid;
use tokio::signal::unix::{SignalKind, signal};

use crate::child::{Command, Exit};
use crate::process::{SpawnError, SpawnErrorKind, apply_env, resolve_program, spawn_error};

impl Command {
    /// Runs the child on hookrig's stdin, stdout and stderr and waits for it; see the
    /// module documentation of `foreground` for its signals.
    ///
    /// # Panics
    ///
    /// When called from within a tokio runtime, as every blocking wait there does.
    pub fn run_inherited(self) -> Result<Exit, SpawnError> {
        let (program, argv0, args) = self.program.argv();
        let resolved = resolve_program(&program, &self.cwd, &self.env)?;
        let runtime = crate::unix::runtime().map_err(|error| other(&program, &error))?;
        let mut command = std::process::Command::new(&resolved);
        std::os::unix::process::CommandExt::arg0(&mut command, argv0);
        command.args(args).current_dir(&self.cwd);
        apply_env(&mut command, &self.env);
        runtime.block_on(supervise(command.into(), &resolved))
    }
}

fn other(program: &std::ffi::OsStr, error: &std::io::Error) -> SpawnError {
    SpawnError::new(program, SpawnErrorKind::Other, error.to_string())
}

/// Waits for the child, passing SIGTERM and SIGHUP on to it.
async fn supervise(
    mut command: tokio::process::Command,
    program: &std::path::Path,
) -> Result<Exit, SpawnError> {
    // Installed before the spawn, so that no signal sent meanwhile ends hookrig instead.
    let handler = |kind| signal(kind).map_err(|error| other(program.as_os_str(), &error));
    let (mut int, mut quit, mut term, mut hup) = (
        handler(SignalKind::interrupt())?,
        handler(SignalKind::quit())?,
        handler(SignalKind::terminate())?,
        handler(SignalKind::hangup())?,
    );
    let mut child = command
        .spawn()
        .map_err(|error| spawn_error(program.to_owned(), &error))?;
    let pid = child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .map(Pid::from_raw);
    let forward = |signal: Signal| {
        if let Some(pid) = pid {
            let _ = nix::sys::signal::kill(pid, signal);
        }
    };
    let status = loop {
        tokio::select! {
            status = child.wait() => break status.map_err(|error| other(program.as_os_str(), &error))?,
            _ = int.recv() => {}
            _ = quit.recv() => {}
            _ = term.recv() => forward(Signal::SIGTERM),
            _ = hup.recv() => forward(Signal::SIGHUP),
        }
    };
    Ok(Exit::of(status))
}
