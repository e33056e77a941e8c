//! The async keeper: a detached hookrig that runs the async hooks of a one-shot emit to
//! their end, so that the emit itself can exit as soon as the host has its answer.
//!
//! A process that may hand its async hooks over [`arm`]s the keeper with the program to
//! run (hookrig itself). [`start`] runs that program with [`KEEPER_ARG`] and writes the
//! job (bytes this module does not read) to its stdin, then closes it; the keeper's
//! `main` hands over to [`run_if_asked`] before anything else, which reads the job and
//! gives it to the caller's function.
//!
//! The keeper must not hold anything of the host's: its stdout and stderr are
//! `/dev/null` (a host reading the emit's output to its end sees it end when the emit
//! exits), every other file it inherited is closed first thing, and it leaves the emit's
//! session (`setsid`), so that a hang-up or a Ctrl-C meant for the host's terminal does
//! not reach it. It is not one of the emit's hooks: the emit's guardian and reaper
//! leave it alone. Its own hooks are tagged and guarded as any hookrig's are.

use std::ffi::OsStr;
use std::io::{Read as _, Write as _};
use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Mutex;

/// The first argument that runs hookrig as an async keeper.
pub const KEEPER_ARG: &str = "--hookrig-async-keeper";

/// The program [`start`] runs, once [`arm`]ed.
static PROGRAM: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Allows [`start`] to run `program` (hookrig itself, whose `main` calls
/// [`run_if_asked`] first) as a keeper. Nothing starts now.
pub fn arm(program: PathBuf) {
    *PROGRAM
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(program);
}

/// Whether [`arm`] was called: only then can an emit hand its async hooks over.
pub fn armed() -> bool {
    PROGRAM
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .is_some()
}

/// Starts a keeper and hands it `job`; returns its pid once the whole job is written.
/// The keeper is not waited for: it outlives this process.
///
/// An error when no keeper is armed, the program cannot be started, or it ended before
/// it read its job: the caller then runs the hooks itself.
pub fn start(job: &[u8]) -> std::io::Result<u32> {
    let program = PROGRAM
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone()
        .ok_or_else(|| std::io::Error::other("no async keeper is armed"))?;
    // Named `hookrig` in process listings, whatever path `program` is.
    let mut child = std::process::Command::new(program)
        .arg0("hookrig")
        .arg(KEEPER_ARG)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    let pid = child.id();
    let written = child
        .stdin
        .take()
        .ok_or_else(|| std::io::Error::other("the keeper's stdin is not a pipe"))
        .and_then(|mut pipe| pipe.write_all(job));
    if let Err(error) = written {
        // It did not get its job: it must not be left running without one.
        let _ = child.kill();
        let _ = child.wait();
        return Err(error);
    }
    tracing::debug!(pid, "handed the async hooks to a keeper");
    // The handle is dropped without waiting: once this process exits, the keeper is
    // reaped by whoever inherits it.
    drop(child);
    Ok(pid)
}

/// Runs as a keeper and never returns when this process was started as one (its first
/// argument is [`KEEPER_ARG`]): leaves the emit's session, closes what it inherited,
/// reads its job from stdin, and exits with what `keep` returns. Else returns at once.
pub fn run_if_asked(keep: impl FnOnce(Vec<u8>) -> i32) {
    if std::env::args_os().nth(1).as_deref() != Some(OsStr::new(KEEPER_ARG)) {
        return;
    }
    // Started outside any process group of its own, so this cannot fail.
    let _ = nix::unistd::setsid();
    crate::guardian::close_other_files();
    let mut job = Vec::new();
    if std::io::stdin().lock().read_to_end(&mut job).is_err() {
        std::process::exit(2);
    }
    std::process::exit(keep(job))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_keeper_starts_unless_armed() {
        // Each test runs in a process of its own under nextest: nothing armed one here.
        assert!(!armed());
        let error = start(b"{}").expect_err("nothing is armed");
        assert_eq!(error.to_string(), "no async keeper is armed");
    }
}
