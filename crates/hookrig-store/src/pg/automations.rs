//! [`AutomationStore`] on PostgreSQL: `automations` of the shared database, the
//! definitions every `hookrig serve` node on it runs (docs/postgres.md, "The
//! automations"), with the columns of the SQLite work file's table and the operator's
//! signature of each row. Its revision ([`PgAutomations::revision`]) tells a node when
//! to read them again.

use crate::automations::{AutomationRow, AutomationStore};
use crate::errors::StoreError;
use crate::pg::PgStore;
use crate::signing::RegistryKey;

/// The `automations` table of a [`PgStore`] ([`PgStore::automations`]), writing rows
/// signed with the operator's key when it has it ([`PgStore::signed_automations`]).
#[derive(Debug, Clone, Copy)]
pub struct PgAutomations<'s> {
    store: &'s PgStore,
    key: Option<&'s RegistryKey>,
}

impl PgStore {
    /// The automations' definitions, in the database. What it writes is unsigned: no
    /// node runs it until the operator writes it again
    /// ([`PgStore::signed_automations`]).
    pub fn automations(&self) -> PgAutomations<'_> {
        PgAutomations {
            store: self,
            key: None,
        }
    }

    /// The automations' definitions, every row written signed with `key`, the
    /// operator's: the nodes holding the same key run them.
    pub fn signed_automations<'s>(&'s self, key: &'s RegistryKey) -> PgAutomations<'s> {
        PgAutomations {
            store: self,
            key: Some(key),
        }
    }
}

const COLUMNS: &str = "id, project_id, name, enabled, trigger, context_steps, prompt_template,
    llm_config, cooldown_seconds, max_tokens_per_run, source, created_at, updated_at, held, tools";

impl PgAutomations<'_> {
    /// Every automation with its signature (empty when its row was not signed), in the
    /// order they were first stored.
    pub fn list_signed(&self) -> Result<Vec<(AutomationRow, String)>, StoreError> {
        let rows = self.store.client().with("list automations", |conn| {
            conn.query(
                &format!("SELECT {COLUMNS}, signature FROM automations ORDER BY seq"),
                &[],
            )
        })?;
        Ok(rows
            .iter()
            .map(|row| (from_row(row), row.get(15)))
            .collect())
    }

    /// The signature of `row` as this handle writes it.
    fn signature(&self, row: &AutomationRow) -> String {
        self.key
            .map(|key| key.sign_automation(row))
            .unwrap_or_default()
    }

    /// How many times the table changed: it moves with every statement that writes it,
    /// in the writing transaction, so a reader that reads it before the rows never keeps
    /// rows older than the revision it keeps with them.
    pub fn revision(&self) -> Result<i64, StoreError> {
        self.store
            .client()
            .with("read the automations' revision", |conn| {
                Ok(conn
                    .query_one("SELECT revision FROM automations_revision", &[])?
                    .get(0))
            })
    }
}

impl AutomationStore for PgAutomations<'_> {
    fn upsert(&self, row: &AutomationRow) -> Result<AutomationRow, StoreError> {
        let signature = self.signature(row);
        let stored = self.store.client().with("store an automation", |conn| {
            conn.query_one(
                &format!(
                    "INSERT INTO automations ({COLUMNS}, signature)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,
                         $16)
                     ON CONFLICT (id) DO UPDATE SET
                         project_id = excluded.project_id, name = excluded.name,
                         enabled = excluded.enabled, trigger = excluded.trigger,
                         context_steps = excluded.context_steps,
                         prompt_template = excluded.prompt_template,
                         llm_config = excluded.llm_config,
                         cooldown_seconds = excluded.cooldown_seconds,
                         max_tokens_per_run = excluded.max_tokens_per_run,
                         source = excluded.source, updated_at = excluded.updated_at,
                         held = excluded.held, tools = excluded.tools,
                         signature = excluded.signature
                     RETURNING {COLUMNS}"
                ),
                &[
                    &row.id,
                    &row.project_id,
                    &row.name,
                    &row.enabled,
                    &row.trigger,
                    &row.context_steps,
                    &row.prompt_template,
                    &row.llm_config,
                    &row.cooldown_seconds,
                    &row.max_tokens_per_run,
                    &row.source,
                    &row.created_at,
                    &row.updated_at,
                    &row.held,
                    &row.tools,
                    &signature,
                ],
            )
        })?;
        Ok(from_row(&stored))
    }

    fn get(&self, id: &str) -> Result<Option<AutomationRow>, StoreError> {
        let row = self.store.client().with("read an automation", |conn| {
            conn.query_opt(
                &format!("SELECT {COLUMNS} FROM automations WHERE id = $1"),
                &[&id],
            )
        })?;
        Ok(row.as_ref().map(from_row))
    }

    fn list(&self, enabled_only: bool) -> Result<Vec<AutomationRow>, StoreError> {
        let filter = if enabled_only {
            " WHERE enabled AND held IS NULL"
        } else {
            ""
        };
        let rows = self.store.client().with("list automations", |conn| {
            conn.query(
                &format!("SELECT {COLUMNS} FROM automations{filter} ORDER BY seq"),
                &[],
            )
        })?;
        Ok(rows.iter().map(from_row).collect())
    }

    fn set_enabled(&self, id: &str, enabled: bool, now: f64) -> Result<(), StoreError> {
        // The signature covers `enabled`: the row is read and signed again as it will
        // be, under a row lock, so that a change made meanwhile is not signed unseen,
        // and only if the key signed it as it is: else enabling it would sign what
        // someone else wrote. Without the key the signature stays, and no longer
        // verifies.
        let changed = self.store.client().with("change an automation", |conn| {
            let mut tx = conn.transaction()?;
            let Some(found) = tx.query_opt(
                &format!("SELECT {COLUMNS}, signature FROM automations WHERE id = $1 FOR UPDATE"),
                &[&id],
            )?
            else {
                return Ok(Changed::Unknown);
            };
            let (row, signature): (AutomationRow, String) = (from_row(&found), found.get(15));
            let changed = match self.key {
                Some(key) if !key.verifies_automation(&row, &signature) => {
                    return Ok(Changed::Unsigned);
                }
                Some(key) => tx.execute(
                    "UPDATE automations SET enabled = $2, updated_at = $3, signature = $4
                     WHERE id = $1",
                    &[
                        &id,
                        &enabled,
                        &now,
                        &key.sign_automation(&AutomationRow { enabled, ..row }),
                    ],
                )?,
                None => tx.execute(
                    "UPDATE automations SET enabled = $2, updated_at = $3 WHERE id = $1",
                    &[&id, &enabled, &now],
                )?,
            };
            tx.commit()?;
            Ok(if changed == 0 {
                Changed::Unknown
            } else {
                Changed::Done
            })
        })?;
        match changed {
            Changed::Done => Ok(()),
            Changed::Unknown => Err(StoreError::UnknownAutomation { id: id.to_owned() }),
            Changed::Unsigned => Err(StoreError::UnsignedAutomation {
                database: self.store.database().to_owned(),
                id: id.to_owned(),
            }),
        }
    }

    fn hold(&self, source: &str, reason: &str, now: f64) -> Result<Vec<String>, StoreError> {
        let rows = self.store.client().with("hold automations", |conn| {
            conn.query(
                "UPDATE automations SET held = $2, updated_at = $3 WHERE source = $1 RETURNING id",
                &[&source, &reason, &now],
            )
        })?;
        Ok(rows.iter().map(|row| row.get(0)).collect())
    }

    fn delete(&self, id: &str) -> Result<(), StoreError> {
        // The runs go with it, as SQLite's foreign keys take them, in one transaction:
        // the database has no foreign key from the runs, whose nodes may record a run of
        // an automation that only their own store defines.
        let deleted = self.store.client().with("delete an automation", |conn| {
            let mut tx = conn.transaction()?;
            let deleted = tx.execute("DELETE FROM automations WHERE id = $1", &[&id])?;
            if deleted > 0 {
                for table in ["automation_runs", "automation_periods", "automation_events"] {
                    tx.execute(
                        &format!("DELETE FROM {table} WHERE automation_id = $1"),
                        &[&id],
                    )?;
                }
            }
            tx.commit()?;
            Ok(deleted)
        })?;
        if deleted == 0 {
            return Err(StoreError::UnknownAutomation { id: id.to_owned() });
        }
        Ok(())
    }
}

/// What [`AutomationStore::set_enabled`] found.
enum Changed {
    Done,
    Unknown,
    /// Its row does not verify with the key the handle signs with.
    Unsigned,
}

fn from_row(row: &postgres::Row) -> AutomationRow {
    AutomationRow {
        id: row.get(0),
        project_id: row.get(1),
        name: row.get(2),
        enabled: row.get(3),
        trigger: row.get(4),
        context_steps: row.get(5),
        prompt_template: row.get(6),
        llm_config: row.get(7),
        cooldown_seconds: row.get(8),
        max_tokens_per_run: row.get(9),
        source: row.get(10),
        created_at: row.get(11),
        updated_at: row.get(12),
        held: row.get(13),
        tools: row.get(14),
    }
}
