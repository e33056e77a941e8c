//! The `tasks` table: tasks that automations create with the `create_task` context
//! step, with the fields docs/context-steps.md lists. [`TaskStore`] is the interface of
//! both engines: [`Tasks`] here, and `PgTasks` (`pg/tasks.rs`) on PostgreSQL.

use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};

use crate::clock::unix_now;
use crate::errors::StoreError;
use crate::store::Store;

/// A task to insert; the store gives it an id, `pending` status and timestamps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewTask {
    /// The project the task belongs to.
    pub project_id: String,
    /// Title.
    pub title: String,
    /// Description.
    pub description: String,
    /// The task this one is a subtask of.
    pub parent_task_id: Option<String>,
    /// The agent profile to run it with.
    pub profile_id: Option<String>,
    /// The workspace it prefers.
    pub preferred_workspace_id: Option<String>,
    /// The git branch to work on.
    pub branch_name: Option<String>,
    /// Priority; lower runs first, 100 by default.
    pub priority: i64,
    /// Context entries (`{type, label, content}` objects), a JSON array.
    pub context_entries: serde_json::Value,
    /// Who created it (`automation:ID`), if known.
    pub created_by: Option<String>,
}

/// A task as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRow {
    /// Its id.
    pub id: String,
    /// The project it belongs to.
    pub project_id: String,
    /// Title.
    pub title: String,
    /// Description.
    pub description: String,
    /// The task this one is a subtask of.
    pub parent_task_id: Option<String>,
    /// The agent profile to run it with.
    pub profile_id: Option<String>,
    /// The workspace it prefers.
    pub preferred_workspace_id: Option<String>,
    /// The git branch to work on.
    pub branch_name: Option<String>,
    /// Priority; lower runs first.
    pub priority: i64,
    /// Context entries, a JSON array.
    pub context_entries: serde_json::Value,
    /// `pending` when created.
    pub status: String,
    /// What the task produced.
    pub result: Option<String>,
    /// Why it failed.
    pub error: Option<String>,
    /// Who created it.
    pub created_by: Option<String>,
    /// Unix seconds.
    pub created_at: f64,
    /// Unix seconds.
    pub updated_at: f64,
}

/// The tasks automations create, on either engine.
pub trait TaskStore {
    /// Inserts `task` as `pending` and returns its new id (a `UUIDv7` in simple form,
    /// so ids sort by creation time).
    fn create(&self, task: &NewTask) -> Result<String, StoreError>;

    /// The task with id `id`, if there is one.
    fn get(&self, id: &str) -> Result<Option<TaskRow>, StoreError>;
}

/// A new task's id: a `UUIDv7` in simple form, so that ids sort by creation time.
pub(crate) fn new_task_id() -> String {
    uuid::Uuid::now_v7().simple().to_string()
}

/// The context entries of the task `id`, read back from the text they are stored as.
pub(crate) fn context_entries(id: &str, text: &str) -> Result<serde_json::Value, StoreError> {
    serde_json::from_str(text).map_err(|source| StoreError::CorruptColumn {
        run_id: id.to_owned(),
        column: "context_entries",
        source,
    })
}

const INSERT_TASK: &str = "
    INSERT INTO tasks (
        id, project_id, title, description, parent_task_id, profile_id,
        preferred_workspace_id, branch_name, priority, context_entries, status,
        created_by, created_at, updated_at
    ) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 'pending', ?11, ?12, ?12)";

const SELECT_TASK: &str = "
    SELECT id, project_id, title, description, parent_task_id, profile_id,
           preferred_workspace_id, branch_name, priority, context_entries, status,
           result, error, created_by, created_at, updated_at
    FROM tasks WHERE id = ?1";

/// The `tasks` table of a [`Store`].
#[derive(Debug, Clone, Copy)]
pub struct Tasks<'s> {
    store: &'s Store,
}

impl<'s> Tasks<'s> {
    pub(crate) fn new(store: &'s Store) -> Self {
        Self { store }
    }

    /// Inserts `task` as `pending` and returns its new id (a `UUIDv7` in simple form,
    /// so ids sort by creation time).
    pub fn create(&self, task: &NewTask) -> Result<String, StoreError> {
        let id = new_task_id();
        let now = unix_now();
        self.store
            .conn()
            .execute(
                INSERT_TASK,
                params![
                    id,
                    task.project_id,
                    task.title,
                    task.description,
                    task.parent_task_id,
                    task.profile_id,
                    task.preferred_workspace_id,
                    task.branch_name,
                    task.priority,
                    task.context_entries.to_string(),
                    task.created_by,
                    now,
                ],
            )
            .map_err(self.store.fail("create a task"))?;
        Ok(id)
    }

    /// The task with id `id`, if there is one.
    pub fn get(&self, id: &str) -> Result<Option<TaskRow>, StoreError> {
        let fail = self.store.fail("read a task");
        let row = self
            .store
            .conn()
            .query_row(SELECT_TASK, [id], |row| {
                Ok((
                    TaskRow {
                        id: row.get(0)?,
                        project_id: row.get(1)?,
                        title: row.get(2)?,
                        description: row.get(3)?,
                        parent_task_id: row.get(4)?,
                        profile_id: row.get(5)?,
                        preferred_workspace_id: row.get(6)?,
                        branch_name: row.get(7)?,
                        priority: row.get(8)?,
                        context_entries: serde_json::Value::Null,
                        status: row.get(10)?,
                        result: row.get(11)?,
                        error: row.get(12)?,
                        created_by: row.get(13)?,
                        created_at: row.get(14)?,
                        updated_at: row.get(15)?,
                    },
                    row.get::<_, String>(9)?,
                ))
            })
            .optional()
            .map_err(fail)?;
        row.map(|(mut task, entries)| {
            task.context_entries = context_entries(&task.id, &entries)?;
            Ok(task)
        })
        .transpose()
    }
}

impl TaskStore for Tasks<'_> {
    fn create(&self, task: &NewTask) -> Result<String, StoreError> {
        Tasks::create(self, task)
    }

    fn get(&self, id: &str) -> Result<Option<TaskRow>, StoreError> {
        Tasks::get(self, id)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn task() -> NewTask {
        NewTask {
            project_id: "p".to_owned(),
            title: "Fix it".to_owned(),
            description: "the build".to_owned(),
            parent_task_id: Some("t0".to_owned()),
            profile_id: None,
            preferred_workspace_id: None,
            branch_name: Some("fix/it".to_owned()),
            priority: 5,
            context_entries: json!([{"type": "note", "label": "l", "content": "c"}]),
            created_by: Some("automation:a".to_owned()),
        }
    }

    #[test]
    fn created_task_reads_back_pending_with_its_fields() {
        let dir = tempfile::tempdir().expect("temp dir");
        let ledger = Store::open(&dir.path().join("l.db")).expect("open");
        let id = ledger.tasks().create(&task()).expect("insert");
        let other = ledger.tasks().create(&task()).expect("insert");
        assert_ne!(id, other, "each task gets its own id");
        let row = ledger.tasks().get(&id).expect("read").expect("present");
        assert_eq!(row.status, "pending");
        assert_eq!(row.title, "Fix it");
        assert_eq!(row.parent_task_id.as_deref(), Some("t0"));
        assert_eq!(row.priority, 5);
        assert_eq!(row.context_entries, task().context_entries);
        assert!(row.created_at > 0.0 && (row.created_at - row.updated_at).abs() < f64::EPSILON);
        assert_eq!(ledger.tasks().get("nope").expect("read"), None);
    }
}
