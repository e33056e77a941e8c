//! The named read-only queries of the `db_query` context step: seven, over hookrig's
//! tables, and nothing else (raw SQL is never accepted).

use rusqlite::types::ValueRef;
use serde_json::{Map, Number, Value};

use crate::errors::StoreError;
use crate::store::Store;

/// The name of each query and its SQL. `:name` parameters are bound from the
/// step's `params`; a parameter the step does not give is NULL (and matches
/// nothing).
const QUERIES: &[(&str, &str)] = &[
    (
        "recent_task_results",
        "SELECT id AS task_id, project_id, title, status, result, error, updated_at
         FROM tasks
         WHERE result IS NOT NULL
         ORDER BY updated_at DESC, rowid DESC
         LIMIT 20",
    ),
    (
        "task_detail",
        "SELECT id AS task_id, project_id, title, description, parent_task_id, profile_id,
                preferred_workspace_id, branch_name, priority, context_entries, status,
                result, error, created_by, created_at, updated_at
         FROM tasks
         WHERE id = :task_id",
    ),
    // Events are the ledger's `emits`: one row per event emitted.
    (
        "recent_events",
        "SELECT run_id, event AS event_type, started_at_ms, dialect, cwd, session_id,
                decision, reason, decided_by, duration_ms, payload_in AS payload
         FROM emits
         ORDER BY started_at_ms DESC, rowid DESC
         LIMIT 50",
    ),
    (
        "hook_runs",
        "SELECT id, automation_id AS hook_id, project_id, trigger_reason, status,
                skipped_reason, llm_response, tokens_used, started_at, completed_at
         FROM automation_runs
         WHERE automation_id = :hook_id
         ORDER BY started_at DESC, rowid DESC
         LIMIT 10",
    ),
    (
        "failed_tasks",
        "SELECT id AS task_id, project_id, title, error, updated_at
         FROM tasks
         WHERE status = 'failed'
         ORDER BY updated_at DESC, rowid DESC
         LIMIT 20",
    ),
    (
        "project_tasks_by_status",
        "SELECT id AS task_id, project_id, title, status, priority, created_at
         FROM tasks
         WHERE project_id = :project_id AND status = :status
         ORDER BY priority, created_at, rowid",
    ),
    (
        "recent_hook_activity",
        "SELECT r.id, r.automation_id AS hook_id, a.name AS hook_name, r.trigger_reason,
                r.status, r.skipped_reason, r.tokens_used, r.started_at, r.completed_at,
                r.completed_at - r.started_at AS duration_seconds
         FROM automation_runs r
         LEFT JOIN automations a ON a.id = r.automation_id
         ORDER BY r.started_at DESC, r.rowid DESC
         LIMIT 20",
    ),
];

/// The named queries of a [`Store`]: the only SQL the `db_query` context step runs.
#[derive(Debug, Clone, Copy)]
pub struct Queries<'s> {
    store: &'s Store,
}

impl<'s> Queries<'s> {
    pub(crate) fn new(store: &'s Store) -> Self {
        Self { store }
    }

    /// The names `db_query` accepts, in the order docs/context-steps.md lists them.
    pub fn names() -> impl Iterator<Item = &'static str> {
        QUERIES.iter().map(|(name, _)| *name)
    }

    /// Runs the named query `name`, binding `:key` parameters from `params`; each row
    /// is an object of its columns. Objects and arrays in `params` are bound as their
    /// JSON text. The `db_query` step runs them on a store opened with
    /// [`Store::open_read_only`], so that even a query that tried to write could not.
    pub fn run(
        &self,
        name: &str,
        params: &Map<String, Value>,
    ) -> Result<Vec<Map<String, Value>>, StoreError> {
        let sql = QUERIES
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(_, sql)| *sql)
            .ok_or_else(|| StoreError::UnknownQuery {
                name: name.to_owned(),
            })?;
        let fail = self.store.fail("run a named query");
        let mut stmt = self.store.conn().prepare(sql).map_err(fail)?;
        for index in 1..=stmt.parameter_count() {
            let value = stmt
                .parameter_name(index)
                .and_then(|name| params.get(name.trim_start_matches(':')));
            let bound = match value {
                None | Some(Value::Null) => rusqlite::types::Value::Null,
                Some(Value::Bool(b)) => rusqlite::types::Value::Integer(i64::from(*b)),
                Some(Value::Number(n)) => match n.as_i64() {
                    Some(i) => rusqlite::types::Value::Integer(i),
                    None => rusqlite::types::Value::Real(n.as_f64().unwrap_or_default()),
                },
                Some(Value::String(s)) => rusqlite::types::Value::Text(s.clone()),
                Some(other) => rusqlite::types::Value::Text(other.to_string()),
            };
            stmt.raw_bind_parameter(index, bound).map_err(fail)?;
        }
        let columns: Vec<String> = stmt.column_names().map(str::to_owned).collect();
        let mut rows = stmt.raw_query();
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(fail)? {
            let mut object = Map::new();
            for (i, column) in columns.iter().enumerate() {
                let value = match row.get_ref(i).map_err(fail)? {
                    ValueRef::Null | ValueRef::Blob(_) => Value::Null,
                    ValueRef::Integer(i) => Value::from(i),
                    ValueRef::Real(f) => Number::from_f64(f).map_or(Value::Null, Value::Number),
                    ValueRef::Text(t) => Value::String(String::from_utf8_lossy(t).into_owned()),
                };
                object.insert(column.clone(), value);
            }
            out.push(object);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use std::path::Path;

    use super::*;

    /// A store file with rows in every table the queries read; times are fixed so
    /// that the order is known.
    fn store() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("l.db");
        let store = Store::open(&path).expect("open");
        store
            .conn()
            .execute_batch(
                "INSERT INTO tasks (id, project_id, title, description, priority, status, result,
                    error, created_at, updated_at) VALUES
                    ('t1', 'p', 'Done one', 'd1', 100, 'completed', 'ok 1', NULL, 1.0, 10.0),
                    ('t2', 'p', 'Failed one', 'd2', 50, 'failed', NULL, 'boom', 2.0, 20.0),
                    ('t3', 'p', 'Pending low', 'd3', 200, 'pending', NULL, NULL, 3.0, 3.0),
                    ('t4', 'p', 'Pending high', 'd4', 10, 'pending', NULL, NULL, 4.0, 4.0),
                    ('t5', 'q', 'Other project', 'd5', 1, 'pending', NULL, NULL, 5.0, 5.0),
                    ('t6', 'p', 'Done two', 'd6', 100, 'completed', 'ok 2', NULL, 6.0, 30.0);
                 INSERT INTO automations VALUES
                    ('a1', 'p', 'Nightly docs', 1, '{}', '[]', '', NULL, 3600, NULL, NULL, 1.0, 1.0,
                        NULL, NULL);
                 INSERT INTO automation_runs (id, automation_id, project_id, trigger_reason,
                    status, skipped_reason, tokens_used, started_at, completed_at) VALUES
                    ('r1', 'a1', 'p', 'periodic', 'completed', NULL, 42, 100.0, 101.5),
                    ('r2', 'a1', 'p', 'manual', 'skipped', 'step_0: exit code 0 (skip_llm_if_exit_zero)',
                        0, 200.0, 200.25);
                 INSERT INTO emits VALUES
                    ('e1', 1000, 'tool.before', 'native', '/w', 's', 'allow', NULL, NULL, 1.0,
                        '{\"tool_name\":\"Bash\"}', '{}', '[]', NULL, NULL, 0),
                    ('e2', 2000, 'task.completed', 'native', '/w', 's', 'allow', NULL, NULL, 2.0,
                        '{}', '{}', '[]', 'claude-1', NULL, 0);",
            )
            .expect("rows");
        (dir, path)
    }

    fn run(path: &Path, name: &str, params: &Value) -> Value {
        let params = params.as_object().cloned().unwrap_or_default();
        let store = Store::open_read_only(path).expect("open read-only");
        let rows = store.queries().run(name, &params).expect("query runs");
        Value::Array(rows.into_iter().map(Value::Object).collect())
    }

    #[test]
    fn every_named_query_on_a_store_with_rows() {
        let (_dir, path) = store();
        let ids = |rows: &Value, key: &str| -> Vec<String> {
            rows.as_array()
                .expect("array")
                .iter()
                .map(|row| row[key].as_str().expect("text id").to_owned())
                .collect()
        };
        let results = run(&path, "recent_task_results", &json!({}));
        assert_eq!(
            ids(&results, "task_id"),
            ["t6", "t1"],
            "tasks with results, newest first"
        );
        let detail = run(&path, "task_detail", &json!({"task_id": "t2"}));
        assert_eq!(ids(&detail, "task_id"), ["t2"]);
        assert_eq!(detail[0]["error"], "boom");
        let events = run(&path, "recent_events", &json!({}));
        assert_eq!(ids(&events, "run_id"), ["e2", "e1"]);
        let runs = run(&path, "hook_runs", &json!({"hook_id": "a1"}));
        assert_eq!(ids(&runs, "id"), ["r2", "r1"]);
        assert!(
            run(&path, "hook_runs", &json!({"hook_id": "zz"}))
                .as_array()
                .expect("array")
                .is_empty()
        );
        let failed = run(&path, "failed_tasks", &json!({}));
        assert_eq!(ids(&failed, "task_id"), ["t2"]);
        let pending = run(
            &path,
            "project_tasks_by_status",
            &json!({"project_id": "p", "status": "pending"}),
        );
        assert_eq!(
            ids(&pending, "task_id"),
            ["t4", "t3"],
            "by priority, other projects left out"
        );
        let activity = run(&path, "recent_hook_activity", &json!({}));
        assert_eq!(
            ids(&activity, "hook_name"),
            ["Nightly docs", "Nightly docs"]
        );
        assert_eq!(activity[0]["duration_seconds"], 0.25);
        insta::assert_json_snapshot!(
            "named_queries",
            json!({
                "task_detail": detail,
                "recent_events": events,
                "hook_runs": runs,
                "recent_hook_activity": activity,
            })
        );
    }

    #[test]
    fn a_missing_parameter_is_null_and_matches_nothing() {
        let (_dir, path) = store();
        assert_eq!(run(&path, "task_detail", &json!({})), json!([]));
    }

    #[test]
    fn unknown_names_and_missing_files_are_errors() {
        let (dir, path) = store();
        let store = Store::open_read_only(&path).expect("open read-only");
        let error = store
            .queries()
            .run("DROP TABLE tasks", &Map::new())
            .expect_err("unknown");
        assert_eq!(error.to_string(), "unknown query `DROP TABLE tasks`");
        let missing = dir.path().join("missing.db");
        assert!(Store::open_read_only(&missing).is_err());
        assert!(!missing.exists(), "a read-only open creates nothing");
        assert_eq!(Queries::names().count(), 7);
    }
}
