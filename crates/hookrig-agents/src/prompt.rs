//! The task prompt a provider starts with.
//!
//! The template (docs/agents.md) is fixed: a line naming the task and the plan, the
//! task's title, description and acceptance when its meta has them, and how to finish.
//! Only the lines whose meta exists are written, so a provider never reads an empty
//! "Description:".

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Map, Value};

/// The prompt for `task` of the plan at `plan` (absolute), from the task's meta.
pub(crate) fn task_prompt(task: &str, meta: &Map<String, Value>, plan: &Path) -> String {
    let text = |key: &str| {
        meta.get(key).and_then(|v| match v {
            Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
            Value::Null | Value::String(_) => None,
            other => Some(other.to_string()),
        })
    };
    let mut out = format!(
        "You are working on task `{task}` of the plan {}.\n",
        plan.display()
    );
    let title = text("title").unwrap_or_else(|| task.to_owned());
    let _ = write!(out, "\nTitle: {title}\n");
    if let Some(description) = text("description") {
        let _ = writeln!(out, "Description: {description}");
    }
    if let Some(acceptance) = text("acceptance") {
        let _ = writeln!(out, "Acceptance: {acceptance}");
    }
    let _ = write!(
        out,
        "\nWork in this directory: it is a git worktree on its own branch. Commit your work \
         there. When the acceptance criteria are met, run `hookrig task complete {task}`."
    );
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_prompt_names_the_task_and_the_plan() {
        let meta = json!({"description": "Add the login endpoint", "acceptance": "tests pass"});
        let Value::Object(meta) = meta else {
            unreachable!("an object literal")
        };
        insta::assert_snapshot!(task_prompt("api", &meta, Path::new("/repo/plan.spl")));
    }

    #[test]
    fn lines_without_meta_are_left_out() {
        let prompt = task_prompt("api", &Map::new(), Path::new("/p.spl"));
        assert!(prompt.contains("Title: api\n"));
        assert!(!prompt.contains("Description"));
        assert!(!prompt.contains("Acceptance"));
    }
}
