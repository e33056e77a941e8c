//! A child that hookrig starts and leaves running: it must outlive the hookrig that
//! started it (an agent's host, and the provider the host starts).
//!
//! Unlike a captured child it is not killed when hookrig dies (no parent-death signal,
//! no kill on drop) and carries no tag of its own for the sweep of a hook's leftovers;
//! its output goes to files or a pipe rather than to memory. Whoever stops it later does so through a
//! [`Job`] made from its recorded process group.

use std::fs::File;
use std::io;
use std::os::unix::process::CommandExt as _;
use std::process::{Child, ChildStdout, Stdio};

use crate::child::{Command, Exit};
use crate::job::Job;
use crate::process::{SpawnError, apply_env, resolve_program, spawn_error};

/// Where one of a detached child's standard streams goes.
#[derive(Debug)]
pub enum Stream {
    /// `/dev/null`.
    Null,
    /// A pipe to hookrig: see [`DetachedChild::take_stdout`].
    Pipe,
    /// This file (for output, opened for appending by the caller).
    File(File),
}

impl Stream {
    fn stdio(self) -> Stdio {
        match self {
            Stream::Null => Stdio::null(),
            Stream::Pipe => Stdio::piped(),
            Stream::File(file) => Stdio::from(file),
        }
    }
}

/// How a detached child is started.
#[derive(Debug)]
pub struct Detached {
    /// Its stdout.
    pub stdout: Stream,
    /// Its stderr.
    pub stderr: Stream,
    /// How it is grouped. Its stdin is always `/dev/null`: nobody is there to type.
    pub grouping: Grouping,
}

/// Which process group and session a detached child gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grouping {
    /// A new session (`setsid`): no controlling terminal, so closing the terminal hookrig
    /// ran in does not hang it up, and it is nobody's foreground job. It leads a new
    /// process group too.
    Session,
    /// A process group of its own, in hookrig's session: a [`Job`] reaches it and
    /// everything it starts.
    Group,
}

/// A child started by [`Command::spawn_detached`].
#[derive(Debug)]
pub struct DetachedChild {
    child: Child,
}

impl Command {
    /// Starts the child detached and returns at once.
    pub fn spawn_detached(self, detached: Detached) -> Result<DetachedChild, SpawnError> {
        let (program, argv0, args) = self.program.argv();
        let resolved = resolve_program(&program, &self.cwd, &self.env)?;
        let mut command = std::process::Command::new(&resolved);
        command
            .arg0(argv0)
            .args(args)
            .current_dir(&self.cwd)
            .stdin(Stdio::null())
            .stdout(detached.stdout.stdio())
            .stderr(detached.stderr.stdio());
        apply_env(&mut command, &self.env);
        match detached.grouping {
            Grouping::Session => crate::unix::new_session(&mut command),
            Grouping::Group => {
                command.process_group(0);
            }
        }
        let child = command
            .spawn()
            .map_err(|error| spawn_error(resolved, &error))?;
        Ok(DetachedChild { child })
    }
}

impl DetachedChild {
    /// Its pid, which is also its process group id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The handle that stops its process group.
    pub fn job(&self) -> Option<Job> {
        Job::from_pgid(i64::from(self.child.id()))
    }

    /// The read end of its stdout, when it is [`Stream::Pipe`] (once).
    pub fn take_stdout(&mut self) -> Option<ChildStdout> {
        self.child.stdout.take()
    }

    /// Waits for it to end. Only the process that started it can; dropping a
    /// `DetachedChild` instead leaves it running.
    pub fn wait(&mut self) -> io::Result<Exit> {
        self.child.wait().map(Exit::of)
    }
}
