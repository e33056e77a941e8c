//! `db_query`: one of the store's named read-only queries.
//!
//! Inputs: `query` (a name from [`hookrig_store::Queries::names`]), `params` (an
//! object). A param value that is a whole `{{...}}` placeholder is resolved
//! against the event only: step references resolve to `""`.
//! Output: `rows` (objects), `count`. Raw SQL is never run; an unknown name is
//! `{"error": "Unknown query: NAME"}`.

use serde_json::{Map, Value, json};

use super::{StepEnv, object, str_field};
use crate::template;

pub(crate) async fn run(step: &Value, env: &StepEnv) -> Result<Map<String, Value>, String> {
    let name = str_field(step, "query", "")?;
    if !hookrig_store::Queries::names().any(|known| known == name) {
        return Err(format!("Unknown query: {name}"));
    }
    let params = match step.get("params") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(params)) => params
            .iter()
            .map(|(key, value)| (key.clone(), resolve_param(value, env.event.as_ref())))
            .collect(),
        Some(_) => return Err("`params` must be an object".to_owned()),
    };
    let store = env.store_path.clone();
    // Read-only: even a query that tried to write could not.
    let rows = tokio::task::spawn_blocking(move || {
        hookrig_store::Store::open_read_only(&store)?
            .queries()
            .run(&name, &params)
    })
    .await
    .map_err(|error| format!("db_query stopped: {error}"))?
    .map_err(|error| error_chain(&error))?;
    let count = rows.len();
    Ok(object(json!({"rows": rows, "count": count})))
}

/// Only a value that is one placeholder as a whole is resolved,
/// with no step results; one it does not know stays as written.
fn resolve_param(value: &Value, event: Option<&Value>) -> Value {
    let Some(text) = value.as_str() else {
        return value.clone();
    };
    let inner = text
        .strip_prefix("{{")
        .and_then(|rest| rest.strip_suffix("}}"))
        .filter(|inner| !inner.is_empty());
    match inner.and_then(|key| template::resolve(key, &[], event)) {
        Some(resolved) => Value::String(resolved),
        None => value.clone(),
    }
}

/// An error with its causes, for the step's `error` text.
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_placeholders_are_resolved_and_only_from_the_event() {
        let event = json!({"task_id": "t-1", "n": 3});
        let event = Some(&event);
        assert_eq!(
            resolve_param(&json!("{{event.task_id}}"), event),
            json!("t-1")
        );
        assert_eq!(resolve_param(&json!("{{event.n}}"), event), json!("3"));
        assert_eq!(resolve_param(&json!("{{step_0.stdout}}"), event), json!(""));
        assert_eq!(resolve_param(&json!("{{nope}}"), event), json!("{{nope}}"));
        assert_eq!(
            resolve_param(&json!("x {{event.n}}"), event),
            json!("x {{event.n}}")
        );
        assert_eq!(resolve_param(&json!(7), event), json!(7));
        assert_eq!(resolve_param(&json!("{{event.n}}"), None), json!(""));
    }
}
