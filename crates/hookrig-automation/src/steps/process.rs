//! Running the commands of `shell`, `run_tests`, `git_diff` and `file_diff` through
//! [`hookrig_exec::run_process`]: each in a process group of its own, output captured
//! up to a cap and drained past it, the whole group killed on timeout or when the
//! step's future is dropped.

use std::path::Path;
use std::time::Duration;

use hookrig_exec::process::SpawnError;
use hookrig_exec::{EnvPolicy, ProcessGroups, ProcessSpec, Termination, run_process};

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

/// Runs `program args…` in `cwd` with stdin closed, waits at most `timeout`, and
/// keeps up to `stdout_chars` / `stderr_chars` characters of output. A spawn
/// failure (missing program or directory) is the error.
pub(crate) async fn run(
    program: &str,
    args: &[&str],
    cwd: &Path,
    timeout: Duration,
    (stdout_chars, stderr_chars): (usize, usize),
) -> Result<Finished, SpawnError> {
    let spec = ProcessSpec {
        program: program.into(),
        args: args.iter().map(Into::into).collect(),
        cwd: cwd.to_owned(),
        env: EnvPolicy::Inherit { set: Vec::new() },
        // Empty: the pipe is closed at once, so a command reading stdin sees its end.
        stdin: Vec::new(),
        timeout: Some(timeout),
        // A step's command is killed outright on timeout, never asked to stop.
        kill_grace: Duration::ZERO,
        // A UTF-8 character takes at most 4 bytes: this many bytes always hold the cap.
        stdout_cap: stdout_chars * 4,
        stderr_cap: stderr_chars * 4,
    };
    // Steps are not registered with hookrig's shutdown: their groups die with the
    // run's future, which shutdown drops.
    let output = run_process(spec, &ProcessGroups::new()).await;
    let exit_code = match output.termination {
        Termination::Exited(code) => Some(code),
        Termination::Signaled(signal) => Some(-signal),
        // A private registry is never interrupted; were it, the command did not finish.
        Termination::TimedOut { .. } | Termination::Interrupted => None,
        Termination::SpawnFailed(error) => return Err(error),
    };
    Ok(Finished {
        stdout: decode(&output.stdout, stdout_chars),
        stderr: decode(&output.stderr, stderr_chars),
        exit_code,
    })
}

/// `bytes` as UTF-8 (invalid sequences replaced), at most `max` characters.
fn decode(bytes: &[u8], max: usize) -> String {
    truncate_chars(String::from_utf8_lossy(bytes).into_owned(), max)
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
