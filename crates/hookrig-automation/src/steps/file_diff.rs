//! `file_diff`: how one file differs from its last committed version.
//!
//! Inputs: `path` (default `""`) and `workspace` (default `"."`, the git
//! root), both taking placeholders (`{{event.path}}`). A relative `path`
//! resolves against the workspace, a relative workspace against the project
//! root; either, when placeholders made it, must stay inside the project root. Runs `git diff HEAD -- <path>`, and `git diff --cached -- <path>` when
//! that shows nothing (a repository without commits yet). Output: `diff` (at most
//! 50,000 characters), `path` (resolved), `exit_code`; `error` when git failed.
//! Timeout 30 seconds per git command.

use serde_json::{Map, Value, json};

use super::git_diff::git;
use super::{StepEnv, confined_path, object, render, str_field};

pub(crate) async fn run(
    step: &Value,
    earlier: &[Value],
    env: &StepEnv,
) -> Result<Map<String, Value>, String> {
    let written_path = str_field(step, "path", "")?;
    let written_workspace = str_field(step, "workspace", ".")?;
    let path = render(&written_path, earlier, env);
    let workspace = render(&written_workspace, earlier, env);
    if path.is_empty() {
        return Err("`path` is empty".to_owned());
    }
    let workspace = confined_path(
        env,
        &env.workspace,
        "workspace",
        &written_workspace,
        &workspace,
    )?;
    let resolved = confined_path(env, &workspace, "path", &written_path, &path)?;
    let target = resolved.to_string_lossy().into_owned();
    let args = ["diff", "--no-color", "--no-ext-diff"];
    let head = git(&workspace, &[&args[..], &["HEAD", "--", &target]].concat()).await?;
    let outcome = if head.stdout.trim().is_empty() {
        git(
            &workspace,
            &[&args[..], &["--cached", "--", &target]].concat(),
        )
        .await?
    } else {
        head
    };
    let mut result = object(json!({
        "diff": outcome.stdout,
        "path": target,
        "exit_code": outcome.exit_code,
    }));
    if let Some(error) = outcome.error {
        result.insert("error".to_owned(), Value::String(error));
    }
    Ok(result)
}
