//! One description for every child process hookrig starts, whatever becomes of it.
//!
//! A [`Command`] says what runs ([`Program`]), where and with which environment. How it
//! runs is the method called on it:
//!
//! - [`Command::capture`]: stdin written, stdout (and stderr, unless inherited) read up
//!   to a cap, in a process group of its own that is stopped on timeout (hooks,
//!   validators, automation steps, CLI providers, board formatters, git);
//! - [`Command::run_inherited`]: the terminal's stdin, stdout and stderr, in hookrig's
//!   own process group, its exit status handed back (external commands);
//! - [`Command::spawn_detached`]: started and left running, its output sent to files or
//!   a pipe (an agent's host and its provider);
//! - `Command::spawn_in_pty` (feature `pty`): started on a pseudo-terminal (a provider
//!   that is typed to).
//!
//! Every process group hookrig stops, whether it started it a moment ago or finds it
//! recorded by an earlier hookrig, is stopped through a [`Job`](crate::Job).

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use crate::process::{EnvPolicy, ProcessOutput};

/// The shell that runs [`Program::Shell`] lines.
pub(crate) const SHELL: &str = "/bin/sh";

/// What a child process runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Program {
    /// A program and its arguments, run directly.
    Exec {
        /// A path (relative ones are relative to the command's working directory) or a
        /// bare name looked up in `PATH`: the `PATH` the child gets when its environment
        /// sets one, otherwise hookrig's own. The child's `argv[0]` is this value as
        /// written.
        program: OsString,
        /// The arguments, without `argv[0]`.
        args: Vec<OsString>,
    },
    /// A command line run by `/bin/sh -c`.
    Shell {
        /// The line.
        line: String,
    },
}

impl Program {
    /// The program as it is named in messages: the program, or the shell.
    pub(crate) fn name(&self) -> OsString {
        match self {
            Program::Exec { program, .. } => program.clone(),
            Program::Shell { .. } => SHELL.into(),
        }
    }

    /// The program to execute, its `argv[0]` and its arguments.
    pub(crate) fn argv(&self) -> (OsString, OsString, Vec<OsString>) {
        match self {
            Program::Exec { program, args } => (program.clone(), program.clone(), args.clone()),
            Program::Shell { line } => (
                SHELL.into(),
                "sh".into(),
                vec!["-c".into(), line.clone().into()],
            ),
        }
    }
}

/// One child process: what runs, in which directory, with which environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// What runs.
    pub program: Program,
    /// The working directory of the child.
    pub cwd: PathBuf,
    /// The environment of the child.
    pub env: EnvPolicy,
}

impl Command {
    /// `program ARGS` in `cwd`, with hookrig's environment.
    pub fn exec(
        program: impl Into<OsString>,
        args: impl IntoIterator<Item = impl Into<OsString>>,
        cwd: impl Into<PathBuf>,
    ) -> Self {
        Self {
            program: Program::Exec {
                program: program.into(),
                args: args.into_iter().map(Into::into).collect(),
            },
            cwd: cwd.into(),
            env: EnvPolicy::Inherit { set: Vec::new() },
        }
    }

    /// Sets `name` to `value` in the child's environment, after everything set so far.
    #[must_use]
    pub fn env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        let (EnvPolicy::Inherit { set } | EnvPolicy::Only { set, .. }) = &mut self.env;
        set.push((name.into(), value.into()));
        self
    }

    /// Runs the child to completion under the limits of `capture`; see
    /// [`run_process`](crate::run_process), which this is.
    ///
    /// Dropping the returned future before it completes kills the child's process group.
    pub async fn capture(self, capture: Capture, groups: &crate::ProcessGroups) -> ProcessOutput {
        crate::process::capture(self, capture, groups).await
    }

    /// [`capture`](Self::capture) for a caller without an async runtime: it runs on a
    /// runtime of its own, built for this call.
    ///
    /// # Panics
    ///
    /// When called from within a tokio runtime, as every blocking wait there does.
    pub fn capture_blocking(self, capture: Capture) -> ProcessOutput {
        let program = self.program.name();
        match crate::unix::runtime() {
            Ok(runtime) => runtime.block_on(self.capture(capture, &crate::ProcessGroups::new())),
            Err(error) => ProcessOutput::runtime_failed(program, &error),
        }
    }
}

/// How a captured child is fed, read and limited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capture {
    /// Written whole to the child's stdin, which is then closed. A child that exits
    /// without reading all of it is not an error.
    pub stdin: Vec<u8>,
    /// How many bytes of stdout are kept; the rest is read and dropped.
    pub stdout_cap: usize,
    /// What becomes of stderr.
    pub stderr: Stderr,
    /// How long the child may run before its group is terminated; `None` for no limit.
    pub timeout: Option<Duration>,
    /// Time between SIGTERM and SIGKILL when the timeout expires; zero sends SIGKILL
    /// alone.
    pub kill_grace: Duration,
}

/// Where a captured child's stderr goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stderr {
    /// Read, keeping this many bytes; the rest is read and dropped.
    Capture(usize),
    /// hookrig's own stderr: what the child says there reaches the user as it is said.
    Inherit,
}

/// How a child that hookrig waited for ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exit {
    /// Its exit code, when it exited.
    pub code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
}

impl Exit {
    /// The exit code a shell reports for it: the code itself (0..=255), or 128 + N when
    /// signal N ended it; 1 when neither is known.
    pub fn shell_code(self) -> u8 {
        if let Some(code) = self.code {
            // Exit codes are 0..=255 on Unix; the mask keeps the low byte of any other.
            return u8::try_from(code & 0xff).unwrap_or(1);
        }
        self.signal
            .and_then(|signal| u8::try_from(128 + signal).ok())
            .unwrap_or(1)
    }

    /// From the status `wait` collected.
    pub(crate) fn of(status: std::process::ExitStatus) -> Self {
        Self {
            code: status.code(),
            signal: crate::unix::terminating_signal(status),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shell_reports_signal_deaths_as_128_plus_the_signal() {
        let exit = |code, signal| Exit { code, signal };
        assert_eq!(exit(Some(3), None).shell_code(), 3);
        assert_eq!(exit(Some(256 + 7), None).shell_code(), 7);
        assert_eq!(exit(None, Some(9)).shell_code(), 137);
        assert_eq!(exit(None, None).shell_code(), 1);
    }
}
