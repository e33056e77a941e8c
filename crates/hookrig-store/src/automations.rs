//! The automation engine's definitions (`hookrig auto`, `hookrig serve`): the table
//! `automations`, read and written through [`AutomationStore`], the interface of both
//! engines: [`Automations`] here, and `PgAutomations` (`pg/automations.rs`) on the
//! PostgreSQL store several nodes share.
//!
//! Rows are plain data with the field names of automation files: `trigger`,
//! `context_steps` and `llm_config` are JSON text, times are Unix seconds. What they
//! mean is `hookrig-automation`'s business, not the store's.

use rusqlite::{OptionalExtension, Row, params};
use serde::{Deserialize, Serialize};

use crate::errors::StoreError;
use crate::store::Store;

/// One automation, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AutomationRow {
    /// Unique id.
    pub id: String,
    /// The owning project.
    pub project_id: String,
    /// Human-readable label.
    pub name: String,
    /// Whether the engine considers it.
    pub enabled: bool,
    /// The trigger, a JSON object with a `type` key.
    pub trigger: String,
    /// The context steps, a JSON array.
    pub context_steps: String,
    /// The prompt template.
    pub prompt_template: String,
    /// A JSON object overriding the global LLM settings.
    pub llm_config: Option<String>,
    /// Minimum seconds between two runs.
    pub cooldown_seconds: i64,
    /// The largest estimated token count a run may send.
    pub max_tokens_per_run: Option<i64>,
    /// The file it was loaded from, when it came from one.
    pub source: Option<String>,
    /// When it was first stored (Unix seconds).
    pub created_at: f64,
    /// When it was last changed (Unix seconds).
    pub updated_at: f64,
    /// Why the engine does not run it for now (its project file changed since it was
    /// trusted); `None` when it may run. Storing the automation again clears it.
    pub held: Option<String>,
    /// The tools granted beyond the read-only ones, a JSON object; `None` for the
    /// defaults.
    pub tools: Option<String>,
}

/// The automations' definitions, on either engine.
pub trait AutomationStore {
    /// Stores `row`, replacing the automation with the same id but keeping its
    /// `created_at` (and its place in the examination order); returns the row as stored.
    fn upsert(&self, row: &AutomationRow) -> Result<AutomationRow, StoreError>;

    /// One automation, or `None`.
    fn get(&self, id: &str) -> Result<Option<AutomationRow>, StoreError>;

    /// Every automation (only those the engine may run, enabled and not held, with
    /// `enabled_only`), in the order they were first stored.
    fn list(&self, enabled_only: bool) -> Result<Vec<AutomationRow>, StoreError>;

    /// Enables or disables the automation `id`. An unknown id is
    /// [`StoreError::UnknownAutomation`].
    fn set_enabled(&self, id: &str, enabled: bool, now: f64) -> Result<(), StoreError>;

    /// Holds every automation stored from the file `source` (`reason` says why): the
    /// engine does not run them until they are stored again. Returns their ids.
    fn hold(&self, source: &str, reason: &str, now: f64) -> Result<Vec<String>, StoreError>;

    /// Deletes the automation `id` and its runs. An unknown id is
    /// [`StoreError::UnknownAutomation`].
    fn delete(&self, id: &str) -> Result<(), StoreError>;
}

impl AutomationStore for Automations<'_> {
    // The handle's own methods, which its callers on SQLite use without the trait.
    fn upsert(&self, row: &AutomationRow) -> Result<AutomationRow, StoreError> {
        Automations::upsert(self, row)
    }

    fn get(&self, id: &str) -> Result<Option<AutomationRow>, StoreError> {
        Automations::get(self, id)
    }

    fn list(&self, enabled_only: bool) -> Result<Vec<AutomationRow>, StoreError> {
        Automations::list(self, enabled_only)
    }

    fn set_enabled(&self, id: &str, enabled: bool, now: f64) -> Result<(), StoreError> {
        Automations::set_enabled(self, id, enabled, now)
    }

    fn hold(&self, source: &str, reason: &str, now: f64) -> Result<Vec<String>, StoreError> {
        Automations::hold(self, source, reason, now)
    }

    fn delete(&self, id: &str) -> Result<(), StoreError> {
        Automations::delete(self, id)
    }
}

const SELECT_AUTOMATION: &str = "
    SELECT id, project_id, name, enabled, trigger, context_steps, prompt_template, llm_config,
           cooldown_seconds, max_tokens_per_run, source, created_at, updated_at, held, tools
    FROM automations";

/// The `automations` table of a [`Store`].
#[derive(Debug, Clone, Copy)]
pub struct Automations<'s> {
    store: &'s Store,
}

impl<'s> Automations<'s> {
    pub(crate) fn new(store: &'s Store) -> Self {
        Self { store }
    }

    /// Stores `row`, replacing the automation with the same id but keeping its
    /// `created_at`; returns the row as stored.
    pub fn upsert(&self, row: &AutomationRow) -> Result<AutomationRow, StoreError> {
        self.store
            .conn()
            .execute(
                "INSERT INTO automations (id, project_id, name, enabled, trigger, context_steps,
                     prompt_template, llm_config, cooldown_seconds, max_tokens_per_run, source,
                     created_at, updated_at, held, tools)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
                 ON CONFLICT (id) DO UPDATE SET
                     project_id = excluded.project_id, name = excluded.name,
                     enabled = excluded.enabled, trigger = excluded.trigger,
                     context_steps = excluded.context_steps,
                     prompt_template = excluded.prompt_template,
                     llm_config = excluded.llm_config,
                     cooldown_seconds = excluded.cooldown_seconds,
                     max_tokens_per_run = excluded.max_tokens_per_run,
                     source = excluded.source, updated_at = excluded.updated_at,
                     held = excluded.held, tools = excluded.tools",
                params![
                    row.id,
                    row.project_id,
                    row.name,
                    row.enabled,
                    row.trigger,
                    row.context_steps,
                    row.prompt_template,
                    row.llm_config,
                    row.cooldown_seconds,
                    row.max_tokens_per_run,
                    row.source,
                    row.created_at,
                    row.updated_at,
                    row.held,
                    row.tools
                ],
            )
            .map_err(self.store.fail("store an automation"))?;
        self.get(&row.id)?
            .ok_or_else(|| StoreError::UnknownAutomation { id: row.id.clone() })
    }

    /// One automation, or `None`.
    pub fn get(&self, id: &str) -> Result<Option<AutomationRow>, StoreError> {
        self.store
            .conn()
            .query_row(
                &format!("{SELECT_AUTOMATION} WHERE id = ?1"),
                [id],
                automation_from_row,
            )
            .optional()
            .map_err(self.store.fail("read an automation"))
    }

    /// Every automation (only those the engine may run, enabled and not held, with
    /// `enabled_only`), in the order they were first stored: the engine examines them
    /// in this order, and the cap stops it part-way, so the order must not change when
    /// one is edited.
    pub fn list(&self, enabled_only: bool) -> Result<Vec<AutomationRow>, StoreError> {
        let filter = if enabled_only {
            " WHERE enabled = 1 AND held IS NULL"
        } else {
            ""
        };
        self.store
            .conn()
            .prepare_cached(&format!("{SELECT_AUTOMATION}{filter} ORDER BY rowid"))
            .and_then(|mut stmt| stmt.query_map([], automation_from_row)?.collect())
            .map_err(self.store.fail("list automations"))
    }

    /// Enables or disables the automation `id`. An unknown id is
    /// [`StoreError::UnknownAutomation`].
    pub fn set_enabled(&self, id: &str, enabled: bool, now: f64) -> Result<(), StoreError> {
        let changed = self
            .store
            .conn()
            .execute(
                "UPDATE automations SET enabled = ?2, updated_at = ?3 WHERE id = ?1",
                params![id, enabled, now],
            )
            .map_err(self.store.fail("change an automation"))?;
        if changed == 0 {
            return Err(StoreError::UnknownAutomation { id: id.to_owned() });
        }
        Ok(())
    }

    /// Holds every automation stored from the file `source` (`reason` says why): the
    /// engine does not run them until they are stored again. Returns their ids.
    pub fn hold(&self, source: &str, reason: &str, now: f64) -> Result<Vec<String>, StoreError> {
        self.store
            .conn()
            .prepare_cached(
                "UPDATE automations SET held = ?2, updated_at = ?3 WHERE source = ?1 RETURNING id",
            )
            .and_then(|mut stmt| {
                stmt.query_map(params![source, reason, now], |row| row.get(0))?
                    .collect()
            })
            .map_err(self.store.fail("hold automations"))
    }

    /// Deletes the automation `id` and its runs. An unknown id is
    /// [`StoreError::UnknownAutomation`].
    pub fn delete(&self, id: &str) -> Result<(), StoreError> {
        // The runs go by the foreign key's ON DELETE CASCADE.
        let deleted = self
            .store
            .conn()
            .execute("DELETE FROM automations WHERE id = ?1", [id])
            .map_err(self.store.fail("delete an automation"))?;
        if deleted == 0 {
            return Err(StoreError::UnknownAutomation { id: id.to_owned() });
        }
        Ok(())
    }
}

fn automation_from_row(row: &Row<'_>) -> rusqlite::Result<AutomationRow> {
    Ok(AutomationRow {
        id: row.get(0)?,
        project_id: row.get(1)?,
        name: row.get(2)?,
        enabled: row.get(3)?,
        trigger: row.get(4)?,
        context_steps: row.get(5)?,
        prompt_template: row.get(6)?,
        llm_config: row.get(7)?,
        cooldown_seconds: row.get(8)?,
        max_tokens_per_run: row.get(9)?,
        source: row.get(10)?,
        created_at: row.get(11)?,
        updated_at: row.get(12)?,
        held: row.get(13)?,
        tools: row.get(14)?,
    })
}

#[cfg(test)]
#[expect(
    clippy::float_cmp,
    reason = "times are stored and read back exactly, never computed"
)]
pub(crate) mod tests {
    use super::*;

    fn open_temp() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(&dir.path().join("ledger.db")).expect("open");
        (dir, store)
    }

    pub(crate) fn automation(id: &str, at: f64) -> AutomationRow {
        AutomationRow {
            id: id.to_owned(),
            project_id: "p".to_owned(),
            name: format!("{id} name"),
            enabled: true,
            trigger: r#"{"type":"periodic"}"#.to_owned(),
            context_steps: "[]".to_owned(),
            prompt_template: "hi".to_owned(),
            llm_config: None,
            cooldown_seconds: 3600,
            max_tokens_per_run: None,
            source: None,
            created_at: at,
            updated_at: at,
            held: None,
            tools: None,
        }
    }

    #[test]
    fn upsert_updates_in_place_and_keeps_created_at() {
        let (_dir, ledger) = open_temp();
        ledger
            .automations()
            .upsert(&automation("a", 1.0))
            .expect("add");
        ledger
            .automations()
            .upsert(&automation("b", 2.0))
            .expect("add");
        let mut changed = automation("a", 5.0);
        changed.name = "renamed".to_owned();
        let stored = ledger.automations().upsert(&changed).expect("update");
        assert_eq!(stored.created_at, 1.0);
        assert_eq!(stored.updated_at, 5.0);
        assert_eq!(stored.name, "renamed");
        let ids: Vec<String> = ledger
            .automations()
            .list(false)
            .expect("list")
            .into_iter()
            .map(|a| a.id)
            .collect();
        assert_eq!(ids, ["a", "b"], "an update keeps the examination order");
    }

    #[test]
    fn enabled_only_lists_enabled_automations() {
        let (_dir, ledger) = open_temp();
        ledger
            .automations()
            .upsert(&automation("a", 1.0))
            .expect("add");
        ledger
            .automations()
            .upsert(&automation("b", 1.0))
            .expect("add");
        ledger
            .automations()
            .set_enabled("a", false, 2.0)
            .expect("disable");
        let enabled: Vec<String> = ledger
            .automations()
            .list(true)
            .expect("list")
            .into_iter()
            .map(|a| a.id)
            .collect();
        assert_eq!(enabled, ["b"]);
        let a = ledger
            .automations()
            .get("a")
            .expect("read")
            .expect("present");
        assert!(!a.enabled);
        assert_eq!(a.updated_at, 2.0);
    }

    // guards: an automation whose project file changed since it was trusted must not
    // keep running its old version; storing it again (trusted) lets it run
    #[test]
    fn held_automations_are_not_run_until_stored_again() {
        let (_dir, ledger) = open_temp();
        let mut a = automation("a", 1.0);
        a.source = Some("/p/.hookrig/automations/a.toml".to_owned());
        ledger.automations().upsert(&a).expect("add");
        ledger
            .automations()
            .upsert(&automation("b", 1.0))
            .expect("add");
        let held = ledger
            .automations()
            .hold("/p/.hookrig/automations/a.toml", "it changed", 2.0)
            .expect("hold");
        assert_eq!(held, ["a"]);
        let runnable: Vec<String> = ledger
            .automations()
            .list(true)
            .expect("list")
            .into_iter()
            .map(|a| a.id)
            .collect();
        assert_eq!(runnable, ["b"]);
        let stored = ledger
            .automations()
            .get("a")
            .expect("read")
            .expect("present");
        assert_eq!(stored.held.as_deref(), Some("it changed"));
        assert!(stored.enabled, "the user's enabled flag is untouched");
        ledger.automations().upsert(&a).expect("stored again");
        assert_eq!(ledger.automations().list(true).expect("list").len(), 2);
    }
}
