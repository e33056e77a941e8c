//! The plan tools: `plan_board` reads the plan the automation names (`plan` in its
//! definition), `task_claim`, `task_complete`, `task_block` and `plan_assert` act on it
//! through the plan lifecycle, as `hookrig task ...` does: under the plan file's lock,
//! appended as SPL, their lifecycle events delivered to hooks. The automation acts as
//! the agent named by its id.

use std::path::PathBuf;

use hookrig_plan::board::Board;
use hookrig_plan::plan::{Action, TaskState};
use hookrig_runtime::{Scope, ScopeArgs};
use serde_json::{Map, Value, json};

use super::{ToolSpec, off_the_runtime};
use crate::steps::{self, StepEnv};

/// The plan named by the automation, resolved against its workspace.
pub(crate) fn plan_path(env: &StepEnv, plan: Option<&str>) -> Result<PathBuf, String> {
    let plan = plan.ok_or(
        "this automation names no plan: set `plan` in its definition (a plan file of its workspace)",
    )?;
    Ok(steps::resolve_path(&env.workspace, plan))
}

/// `plan_board`: the board of the plan, as `hookrig plan board --json` prints it.
pub(crate) async fn board(plan: PathBuf) -> Result<Map<String, Value>, String> {
    off_the_runtime(move || {
        let loaded = hookrig_plan::lifecycle::read(&plan).map_err(|e| error_chain(&e))?;
        let board = Board::new(&plan.display().to_string(), &loaded.plan);
        Ok(steps::object(json!({"board": board})))
    })
    .await
}

/// The action a plan tool asks for, from the model's arguments.
pub(crate) fn action(tool: &str, arguments: &Value) -> Result<Action, String> {
    let text = |key: &str| {
        arguments
            .get(key)
            .and_then(Value::as_str)
            .filter(|t| !t.trim().is_empty())
            .map(str::to_owned)
            .ok_or_else(|| format!("`{key}` must be a non-empty string"))
    };
    Ok(match tool {
        "task_claim" => Action::Claim {
            task: text("task")?,
            force: false,
        },
        "task_complete" => Action::Complete {
            task: text("task")?,
        },
        "task_block" => Action::Block {
            task: text("task")?,
            reason: arguments
                .get("reason")
                .and_then(Value::as_str)
                .map(str::to_owned),
        },
        "plan_assert" => Action::Assert { spl: text("spl")? },
        other => return Err(format!("no plan tool `{other}`")),
    })
}

/// Performs `action` on `plan` as `agent` and delivers its lifecycle events.
pub(crate) async fn perform(
    env: &StepEnv,
    plan: PathBuf,
    action: Action,
    agent: String,
) -> Result<Map<String, Value>, String> {
    let workspace = env.workspace.clone();
    let store = env.store_path.clone();
    off_the_runtime(move || {
        let scope = Scope::resolve(ScopeArgs {
            cwd: Some(workspace),
            agent: Some(agent.clone()),
            plan: Some(plan.clone()),
            store: Some(store),
            no_ledger: false,
            ..ScopeArgs::default()
        })
        .map_err(|e| error_chain(&e))?;
        let performed = hookrig_runtime::lifecycle::perform(&scope, &plan, &action, &agent)
            .map_err(|e| error_chain(&e))?;
        let outcome = &performed.outcome;
        Ok(steps::object(json!({
            "action": action.verb(),
            "task": outcome.task,
            "state_before": outcome.state_before.map(TaskState::as_str),
            "state_after": outcome.state_after.map(TaskState::as_str),
            "changed": !outcome.is_noop(),
            "events": outcome.events.iter().map(|e| e.kind.name()).collect::<Vec<_>>(),
            "warnings": performed.delivered.warnings,
        })))
    })
    .await
}

pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    steps::db_query::error_chain(error)
}

/// The spec of the plan tool `name`.
pub(crate) fn spec(name: &'static str) -> Option<ToolSpec> {
    let (description, schema) = match name {
        "plan_board" => (
            "The board of the automation's plan: each task, its state, who holds it.",
            json!({"type": "object", "properties": {}}),
        ),
        "task_claim" => (
            "Claim a ready task of the automation's plan.",
            json!({"type": "object", "properties": {"task": {"type": "string"}}, "required": ["task"]}),
        ),
        "task_complete" => (
            "Complete a task of the automation's plan.",
            json!({"type": "object", "properties": {"task": {"type": "string"}}, "required": ["task"]}),
        ),
        "task_block" => (
            "Block a task of the automation's plan, with a reason.",
            json!({"type": "object", "properties": {
                "task": {"type": "string"},
                "reason": {"type": "string"}
            }, "required": ["task"]}),
        ),
        "plan_assert" => (
            "Append SPL statements to the automation's plan.",
            json!({"type": "object", "properties": {"spl": {"type": "string"}}, "required": ["spl"]}),
        ),
        _ => return None,
    };
    Some(ToolSpec {
        name: name.into(),
        description: description.into(),
        schema,
    })
}
