//! [`TaskStore`] on PostgreSQL: `tasks` of the shared database, the same columns as the
//! SQLite work file's (JSON as text, times in Unix seconds).

use crate::clock::unix_now;
use crate::errors::StoreError;
use crate::pg::PgStore;
use crate::tasks::{NewTask, TaskRow, TaskStore, context_entries, new_task_id};

/// The `tasks` table of a [`PgStore`] ([`PgStore::tasks`]).
#[derive(Debug, Clone, Copy)]
pub struct PgTasks<'s> {
    store: &'s PgStore,
}

impl PgStore {
    /// The tasks automations created, in the database.
    pub fn tasks(&self) -> PgTasks<'_> {
        PgTasks { store: self }
    }
}

impl TaskStore for PgTasks<'_> {
    fn create(&self, task: &NewTask) -> Result<String, StoreError> {
        let id = new_task_id();
        let now = unix_now();
        let entries = task.context_entries.to_string();
        self.store.client().with("create a task", |conn| {
            conn.execute(
                "INSERT INTO tasks (
                     id, project_id, title, description, parent_task_id, profile_id,
                     preferred_workspace_id, branch_name, priority, context_entries, status,
                     created_by, created_at, updated_at
                 ) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'pending', $11, $12, $12)",
                &[
                    &id,
                    &task.project_id,
                    &task.title,
                    &task.description,
                    &task.parent_task_id,
                    &task.profile_id,
                    &task.preferred_workspace_id,
                    &task.branch_name,
                    &task.priority,
                    &entries,
                    &task.created_by,
                    &now,
                ],
            )
        })?;
        Ok(id)
    }

    fn get(&self, id: &str) -> Result<Option<TaskRow>, StoreError> {
        let row = self.store.client().with("read a task", |conn| {
            conn.query_opt(
                "SELECT id, project_id, title, description, parent_task_id, profile_id,
                        preferred_workspace_id, branch_name, priority, context_entries, status,
                        result, error, created_by, created_at, updated_at
                 FROM tasks WHERE id = $1",
                &[&id],
            )
        })?;
        row.map(|row| {
            let id: String = row.get(0);
            let entries: String = row.get(9);
            Ok(TaskRow {
                context_entries: context_entries(&id, &entries)?,
                id,
                project_id: row.get(1),
                title: row.get(2),
                description: row.get(3),
                parent_task_id: row.get(4),
                profile_id: row.get(5),
                preferred_workspace_id: row.get(6),
                branch_name: row.get(7),
                priority: row.get(8),
                status: row.get(10),
                result: row.get(11),
                error: row.get(12),
                created_by: row.get(13),
                created_at: row.get(14),
                updated_at: row.get(15),
            })
        })
        .transpose()
    }
}
