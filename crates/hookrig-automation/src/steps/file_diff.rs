//! `file_diff`: how one file differs from its last committed version.
//!
//! Inputs: `path` (default `""`) and `workspace` (default `"."`, the git
//! root), both taking placeholders (`{{event.path}}`). A relative `path`
//! resolves against the workspace, a relative workspace against the project
//! root. Runs `git diff HEAD -- <path>`, and `git diff --cached -- <path>` when
//! that shows nothing (a repository without commits yet). Output: `diff` (at most
//! 50,000 characters), `path` (resolved), `exit_code`; `error` when git failed.
//! Timeout 30 seconds per git command.

use serde_json::{Map, Value, json};

use super::git_diff::git;
use super::{StepEnv, object, render, resolve_path, str_field};

pub(crate) async fn run(
    step: &Value,
    earlier: &[Value],
    env: &StepEnv,
) -> Result<Map<String, Value>, String> {
    let path = render(&str_field(step, "path", "")?, earlier, env);
    let workspace = render(&str_field(step, "workspace", ".")?, earlier, env);
    if path.is_empty() {
        return Err("`path` is empty".to_owned());
    }
    let workspace = resolve_path(&env.workspace, &workspace);
    let resolved = resolve_path(&workspace, &path);
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
