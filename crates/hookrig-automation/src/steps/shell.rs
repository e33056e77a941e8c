//! `shell`: runs `command` with `sh -c` in the workspace.
//!
//! Inputs: `command` (default `""`), `timeout` seconds (default 60). Output:
//! `stdout` (at most 50,000 characters), `stderr` (at most 10,000), `exit_code`
//! (-1 on timeout, when the whole process group is killed and `stderr` says so).

use serde_json::{Map, Value, json};

use super::process::{self, truncate_chars};
use super::{StepEnv, object, seconds, str_field, timeout_field};

/// Characters of stdout kept.
pub const STDOUT_CHARS: usize = 50_000;
/// Characters of stderr kept.
pub const STDERR_CHARS: usize = 10_000;
/// Seconds before the command is killed.
pub const DEFAULT_TIMEOUT_SECS: u64 = 60;

pub(crate) async fn run(step: &Value, env: &StepEnv) -> Result<Map<String, Value>, String> {
    let command = str_field(step, "command", "")?;
    let timeout = timeout_field(step, DEFAULT_TIMEOUT_SECS)?;
    run_shell(
        &command,
        &env.workspace,
        timeout,
        (STDOUT_CHARS, STDERR_CHARS),
    )
    .await
}

/// `sh -c command` in `cwd` as a step result with `stdout`, `stderr` and
/// `exit_code`; shared with `run_tests`.
pub(crate) async fn run_shell(
    command: &str,
    cwd: &std::path::Path,
    timeout: std::time::Duration,
    caps: (usize, usize),
) -> Result<Map<String, Value>, String> {
    run_argv("sh", &["-c", command], cwd, timeout, caps).await
}

/// `program args…` in `cwd`, without a shell, as a `shell` step's result: what the
/// `shell` tool runs.
pub(crate) async fn run_program(
    program: &str,
    args: &[&str],
    cwd: &std::path::Path,
    timeout: std::time::Duration,
) -> Result<Map<String, Value>, String> {
    run_argv(program, args, cwd, timeout, (STDOUT_CHARS, STDERR_CHARS)).await
}

async fn run_argv(
    program: &str,
    args: &[&str],
    cwd: &std::path::Path,
    timeout: std::time::Duration,
    caps: (usize, usize),
) -> Result<Map<String, Value>, String> {
    let finished = process::run(program, args, cwd, timeout, caps)
        .await
        .map_err(|error| format!("could not run the command in {}: {error}", cwd.display()))?;
    let (stderr, exit_code) = if let Some(code) = finished.exit_code {
        (finished.stderr, code)
    } else {
        // The note goes last and always fits: the output before it gives way.
        let note = format!(
            "command timed out after {} and was killed",
            seconds(timeout)
        );
        let room = caps.1.saturating_sub(note.chars().count() + 1);
        let before = truncate_chars(finished.stderr, room);
        let stderr = if before.is_empty() {
            note
        } else {
            format!("{before}\n{note}")
        };
        (stderr, -1)
    };
    Ok(object(json!({
        "stdout": finished.stdout,
        "stderr": stderr,
        "exit_code": exit_code,
    })))
}
