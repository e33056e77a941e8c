//! `git_diff`: `git diff <base_branch>...HEAD` in a workspace.
//!
//! Inputs: `workspace` (default `"."`, relative to the project root),
//! `base_branch` (default `"main"`). Output: `diff` (at most 50,000 characters),
//! `exit_code`; `error` with git's message when git fails (not a repository, an
//! unknown branch). Timeout 30 seconds.

use std::time::Duration;

use serde_json::{Map, Value, json};

use super::process;
use super::{StepEnv, object, resolve_path, seconds, str_field};

/// Characters of diff kept.
pub const DIFF_CHARS: usize = 50_000;
/// Characters of git's stderr kept for `error`.
const STDERR_CHARS: usize = 10_000;
/// The fixed timeout of git commands.
pub const TIMEOUT: Duration = Duration::from_secs(30);

pub(crate) async fn run(step: &Value, env: &StepEnv) -> Result<Map<String, Value>, String> {
    let workspace = resolve_path(&env.workspace, &str_field(step, "workspace", ".")?);
    let base = str_field(step, "base_branch", "main")?;
    // `--output=FILE...HEAD` would be an option to git, writing a file.
    if base.starts_with('-') {
        return Err(format!("`base_branch` must not start with `-`: {base}"));
    }
    let range = format!("{base}...HEAD");
    let git = git(
        &workspace,
        &["diff", "--no-color", "--no-ext-diff", &range, "--"],
    )
    .await?;
    let mut result = object(json!({"diff": git.stdout, "exit_code": git.exit_code}));
    if let Some(error) = git.error {
        result.insert("error".to_owned(), Value::String(error));
    }
    Ok(result)
}

/// What one git command left.
pub(crate) struct Git {
    pub(crate) stdout: String,
    pub(crate) exit_code: i32,
    /// git's stderr when it failed, or the timeout.
    pub(crate) error: Option<String>,
}

/// Runs git with `args` in `cwd` (its output is a pipe, so git starts no pager).
pub(crate) async fn git(cwd: &std::path::Path, args: &[&str]) -> Result<Git, String> {
    let finished = process::run("git", args, cwd, TIMEOUT, (DIFF_CHARS, STDERR_CHARS))
        .await
        .map_err(|error| format!("could not run git in {}: {error}", cwd.display()))?;
    Ok(match finished.exit_code {
        Some(0) => Git {
            stdout: finished.stdout,
            exit_code: 0,
            error: None,
        },
        Some(code) => Git {
            stdout: finished.stdout,
            exit_code: code,
            error: Some(finished.stderr.trim().to_owned()),
        },
        None => Git {
            stdout: finished.stdout,
            exit_code: -1,
            error: Some(format!(
                "git timed out after {} and was killed",
                seconds(TIMEOUT)
            )),
        },
    })
}
