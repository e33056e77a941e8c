//! `create_task`: inserts a task into the store's `tasks` table.
//!
//! Inputs (placeholders are filled in every string, `context_entries` included):
//! `title_template` (default `"Hook-created task"`), `description_template`
//! (default `""`), `project_id` (default: the automation's project),
//! `parent_task_id`, `profile_id`, `preferred_workspace_id`, `branch_name`
//! (each optional), `priority` (default 100), `context_entries` (a list of
//! `{type, label, content}` objects, default `[]`). Output: `task_id`,
//! `created: true`. On a `hookrig serve` node with a shared store the task goes to
//! that store's `tasks`, where every node (and whatever reads the database) sees it.

use hookrig_store::TaskStore as _;
use serde_json::{Map, Value, json};

use super::db_query::error_chain;
use super::{StepEnv, int_field, object, opt_str_field, render, str_field};

/// The title when `title_template` is not given.
pub const DEFAULT_TITLE: &str = "Hook-created task";
/// The priority when `priority` is not given.
pub const DEFAULT_PRIORITY: i64 = 100;

pub(crate) async fn run(
    step: &Value,
    earlier: &[Value],
    env: &StepEnv,
) -> Result<Map<String, Value>, String> {
    let fill = |text: String| render(&text, earlier, env);
    let optional =
        |key: &str| -> Result<Option<String>, String> { Ok(opt_str_field(step, key)?.map(fill)) };
    let project_id = fill(str_field(step, "project_id", "")?);
    let context_entries = match step.get("context_entries") {
        None | Some(Value::Null) => Value::Array(Vec::new()),
        Some(Value::Array(entries)) => {
            if entries.iter().any(|entry| !entry.is_object()) {
                return Err("`context_entries` must be a list of objects".to_owned());
            }
            fill_value(&Value::Array(entries.clone()), &fill)
        }
        Some(_) => return Err("`context_entries` must be a list of objects".to_owned()),
    };
    let task = hookrig_store::NewTask {
        // Without a `project_id` a task would belong to no project and never be
        // picked up, so it goes to the automation's project.
        project_id: if project_id.is_empty() {
            env.project_id.clone()
        } else {
            project_id
        },
        title: fill(str_field(step, "title_template", DEFAULT_TITLE)?),
        description: fill(str_field(step, "description_template", "")?),
        parent_task_id: optional("parent_task_id")?,
        profile_id: optional("profile_id")?,
        preferred_workspace_id: optional("preferred_workspace_id")?,
        branch_name: optional("branch_name")?,
        priority: int_field(step, "priority", DEFAULT_PRIORITY)?,
        context_entries,
        created_by: Some("automation".to_owned()),
    };
    let (store, shared) = (env.store_path.clone(), env.shared.clone());
    let task_id = tokio::task::spawn_blocking(move || match shared {
        Some(shared) => shared.tasks().create(&task),
        None => hookrig_store::Store::open(&store)?.tasks().create(&task),
    })
    .await
    .map_err(|error| format!("create_task stopped: {error}"))?
    .map_err(|error| error_chain(&error))?;
    Ok(object(json!({"task_id": task_id, "created": true})))
}

/// `value` with placeholders filled in each string it holds, at any depth.
fn fill_value(value: &Value, fill: &impl Fn(String) -> String) -> Value {
    match value {
        Value::String(text) => Value::String(fill(text.clone())),
        Value::Array(items) => {
            Value::Array(items.iter().map(|item| fill_value(item, fill)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, item)| (key.clone(), fill_value(item, fill)))
                .collect(),
        ),
        other => other.clone(),
    }
}
