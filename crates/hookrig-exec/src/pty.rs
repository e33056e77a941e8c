//! A child on a pseudo-terminal: it gets a session of its own with the terminal as its
//! controlling terminal, and hookrig holds the other side, reading what it writes and
//! typing into it (a provider CLI whose prompt is typed rather than passed).
//!
//! Like a detached child it is not killed when hookrig dies; it leads its own session and
//! process group, so a [`Job`](crate::Job) made from its pid stops it and what it
//! started.

use std::io::{self, Read, Write};
use std::mem::ManuallyDrop;

use portable_pty::{CommandBuilder, MasterPty, PtySize, native_pty_system};

use crate::child::{Command, Exit};
use crate::process::{EnvPolicy, SpawnError, SpawnErrorKind, resolve_program};

/// The size of a pseudo-terminal, in characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TerminalSize {
    /// Lines.
    pub rows: u16,
    /// Columns.
    pub cols: u16,
}

/// A child started by [`Command::spawn_in_pty`], and the master side of its terminal.
pub struct PtyChild {
    master: Box<dyn MasterPty + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
}

impl std::fmt::Debug for PtyChild {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PtyChild")
            .field("pid", &self.child.process_id())
            .finish_non_exhaustive()
    }
}

impl Command {
    /// Starts the child on a new pseudo-terminal of `size` and returns at once.
    pub fn spawn_in_pty(self, size: TerminalSize) -> Result<PtyChild, SpawnError> {
        let (program, _, args) = self.program.argv();
        let resolved = resolve_program(&program, &self.cwd, &self.env)?;
        let failed = |what: &str, error: &dyn std::fmt::Display| {
            SpawnError::new(
                resolved.clone(),
                SpawnErrorKind::Other,
                format!("{what}: {error}"),
            )
        };
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: size.rows,
                cols: size.cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .map_err(|error| failed("cannot open a pseudo-terminal", &error))?;
        let mut command = CommandBuilder::from_argv(
            std::iter::once(resolved.clone().into_os_string())
                .chain(args)
                .collect(),
        );
        command.cwd(&self.cwd);
        match &self.env {
            EnvPolicy::Inherit { set } => {
                for (name, value) in set {
                    command.env(name, value);
                }
            }
            EnvPolicy::Only { keep, set } => {
                command.env_clear();
                for name in keep {
                    if let Some(value) = std::env::var_os(name) {
                        command.env(name, value);
                    }
                }
                for (name, value) in set {
                    command.env(name, value);
                }
            }
        }
        let child = pair
            .slave
            .spawn_command(command)
            .map_err(|error| failed("cannot start it", &error))?;
        // The child holds the slave now; ours would keep the terminal open after it
        // exits, and a reader of the master would never see the end.
        drop(pair.slave);
        Ok(PtyChild {
            master: pair.master,
            child,
        })
    }
}

impl PtyChild {
    /// Its pid, which is also its session and process group id.
    pub fn pid(&self) -> Option<u32> {
        self.child.process_id()
    }

    /// A reader of everything the child writes to its terminal. It ends (an error, EIO on
    /// Linux) when every process holding the terminal has closed it.
    pub fn reader(&self) -> io::Result<Box<dyn Read + Send>> {
        self.master.try_clone_reader().map_err(io::Error::other)
    }

    /// The writer that types into the child's terminal (once).
    pub fn writer(&self) -> io::Result<PtyWriter> {
        self.master
            .take_writer()
            .map(|inner| PtyWriter {
                inner: ManuallyDrop::new(inner),
            })
            .map_err(io::Error::other)
    }

    /// Waits for the child to end.
    pub fn wait(&mut self) -> io::Result<Exit> {
        let status = self.child.wait()?;
        Ok(match status.signal() {
            Some(name) => Exit {
                code: None,
                signal: Some(signal_number(name)),
            },
            None => Exit {
                code: i32::try_from(status.exit_code()).ok(),
                signal: None,
            },
        })
    }
}

/// Types into a child's terminal.
///
/// Dropping portable-pty's writer types newline and Ctrl-D (end of input), which would
/// end an interactive child's session; this one leaves the terminal as it is when
/// dropped, and the terminal closes when hookrig lets go of it.
pub struct PtyWriter {
    inner: ManuallyDrop<Box<dyn Write + Send>>,
}

impl std::fmt::Debug for PtyWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PtyWriter").finish_non_exhaustive()
    }
}

impl Write for PtyWriter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.inner.write(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// The number of a signal from the name `strsignal` gave it (portable-pty keeps only the
/// name); 0 for a name it does not know.
fn signal_number(name: &str) -> i32 {
    use nix::sys::signal::Signal;
    if let Some(n) = name.strip_prefix("Signal ").and_then(|n| n.parse().ok()) {
        return n;
    }
    let known = [
        ("Hangup", Signal::SIGHUP),
        ("Interrupt", Signal::SIGINT),
        ("Quit", Signal::SIGQUIT),
        ("Aborted", Signal::SIGABRT),
        ("Killed", Signal::SIGKILL),
        ("Segmentation fault", Signal::SIGSEGV),
        ("Broken pipe", Signal::SIGPIPE),
        ("Terminated", Signal::SIGTERM),
    ];
    known
        .iter()
        .find(|(n, _)| name.starts_with(n))
        .map_or(0, |(_, s)| *s as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signal_names_become_numbers() {
        assert_eq!(signal_number("Terminated"), 15);
        assert_eq!(signal_number("Killed"), 9);
        assert_eq!(signal_number("Signal 42"), 42);
        assert_eq!(signal_number("Something else"), 0);
    }
}
