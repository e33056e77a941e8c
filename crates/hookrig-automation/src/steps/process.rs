//! Running the commands of `shell`, `run_tests`, `git_diff` and `file_diff`: each
//! in a process group of its own, output captured up to a cap and drained past it,
//! the whole group killed on timeout or when the step's future is dropped.

use std::io;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;
use tokio::task::JoinHandle;

/// How long output pipes may stay open after the main process ended: a background
/// grandchild holding them would otherwise keep the step waiting forever.
const LEAK_TIMEOUT: Duration = Duration::from_millis(100);

/// What a finished command left.
#[derive(Debug)]
pub(crate) struct Finished {
    /// Its stdout, decoded as UTF-8 (invalid bytes replaced), at most the cap.
    pub(crate) stdout: String,
    /// Its stderr, likewise.
    pub(crate) stderr: String,
    /// Its exit code, minus the signal number when a signal ended it (Python's
    /// `returncode`); `None` when it ran past its timeout and was killed.
    pub(crate) exit_code: Option<i32>,
}

/// Kills the group when dropped before the command settled: dropping the step's
/// future must not leave its processes running.
struct GroupGuard {
    group: Option<Pid>,
    settled: bool,
}

impl GroupGuard {
    fn kill(&self) {
        if let Some(group) = self.group {
            // ESRCH (the group is gone) is what we wanted; EPERM cannot happen for a
            // group we started. Either way there is nothing left to do.
            let _: Result<(), Errno> = killpg(group, Signal::SIGKILL);
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if !self.settled {
            self.kill();
        }
    }
}

/// Runs `program args…` in `cwd` with stdin closed, waits at most `timeout`, and
/// keeps up to `stdout_chars` / `stderr_chars` characters of output. A spawn
/// failure (missing program or directory) is the error.
pub(crate) async fn run(
    program: &str,
    args: &[&str],
    cwd: &Path,
    timeout: Duration,
    (stdout_chars, stderr_chars): (usize, usize),
) -> io::Result<Finished> {
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own group, so that a timeout reaches everything it started.
        .process_group(0)
        // A backstop for the main process; the guard below covers the group.
        .kill_on_drop(true);
    let mut child = command.spawn()?;
    let mut guard = GroupGuard {
        group: child
            .id()
            .and_then(|pid| i32::try_from(pid).ok())
            .filter(|&pid| pid > 1)
            .map(Pid::from_raw),
        settled: false,
    };
    // A UTF-8 character takes at most 4 bytes: this many bytes always hold the cap.
    let stdout = tokio::spawn(read_capped(child.stdout.take(), stdout_chars * 4));
    let stderr = tokio::spawn(read_capped(child.stderr.take(), stderr_chars * 4));
    let exit_code = match tokio::time::timeout(timeout, child.wait()).await {
        Ok(status) => Some(exit_code(status?)),
        Err(_elapsed) => {
            guard.kill();
            child.wait().await?;
            None
        }
    };
    let stdout = collect(stdout, &guard).await;
    let stderr = collect(stderr, &guard).await;
    guard.settled = true;
    Ok(Finished {
        stdout: truncate_chars(String::from_utf8_lossy(&stdout).into_owned(), stdout_chars),
        stderr: truncate_chars(String::from_utf8_lossy(&stderr).into_owned(), stderr_chars),
        exit_code,
    })
}

/// The output a reader task gathered; past [`LEAK_TIMEOUT`] the group is killed
/// (closing the pipes its members hold) and the reader stopped.
async fn collect(mut reader: JoinHandle<Vec<u8>>, guard: &GroupGuard) -> Vec<u8> {
    if let Ok(joined) = tokio::time::timeout(LEAK_TIMEOUT, &mut reader).await {
        return joined.unwrap_or_default();
    }
    guard.kill();
    match tokio::time::timeout(LEAK_TIMEOUT, &mut reader).await {
        Ok(joined) => joined.unwrap_or_default(),
        // A process that left the group (setsid) still holds the pipe: stop reading.
        Err(_elapsed) => {
            reader.abort();
            Vec::new()
        }
    }
}

/// Reads `pipe` to its end, keeping the first `cap` bytes and discarding the rest,
/// so that a command writing without end neither blocks nor fills memory.
async fn read_capped(pipe: Option<impl AsyncRead + Unpin>, cap: usize) -> Vec<u8> {
    let Some(mut pipe) = pipe else {
        return Vec::new();
    };
    let mut kept = Vec::new();
    let mut buffer = vec![0; 64 * 1024];
    loop {
        match pipe.read(&mut buffer).await {
            Ok(0) | Err(_) => return kept,
            Ok(n) => {
                let room = cap.saturating_sub(kept.len());
                kept.extend_from_slice(&buffer[..n.min(room)]);
            }
        }
    }
}

fn exit_code(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt as _;
    status
        .code()
        .or_else(|| status.signal().map(|signal| -signal))
        .unwrap_or(-1)
}

/// The first `max` characters of `text`, cut on a character boundary.
pub(crate) fn truncate_chars(mut text: String, max: usize) -> String {
    if let Some((cut, _)) = text.char_indices().nth(max) {
        text.truncate(cut);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_counts_characters_not_bytes() {
        assert_eq!(truncate_chars("héllo".to_owned(), 2), "hé");
        assert_eq!(truncate_chars("✕✕✕".to_owned(), 2), "✕✕");
        assert_eq!(truncate_chars("ab".to_owned(), 5), "ab");
        assert_eq!(truncate_chars("ab".to_owned(), 0), "");
    }
}
