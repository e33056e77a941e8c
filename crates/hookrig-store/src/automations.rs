//! The automation engine's definitions and runs (`hookrig auto`, `hookrig fire`,
//! `hookrig serve`): the tables `automations` and `automation_runs`, written through
//! methods on [`Ledger`].
//!
//! Rows are plain data with the field names of automation files: `trigger`, `context_steps`,
//! `llm_config`, `event_data` and `context_results` are JSON text, times are Unix
//! seconds. What they mean is `hookrig-automation`'s business, not the store's.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, Row, params};
use serde::{Deserialize, Serialize};

use crate::errors::StoreError;
use crate::ledger::Ledger;
use crate::owner::Owner;

/// Who runs an automation now: the holder of its lock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AutomationLock {
    /// The automation.
    pub automation_id: String,
    /// The run in flight.
    pub run_id: String,
    /// The process running it.
    pub pid: i64,
    /// The kernel's start time of that pid, where known.
    pub proc_start: Option<i64>,
    /// When the lock was taken (Unix seconds).
    pub acquired_at: f64,
}

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
}

/// One run of an automation, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AutomationRunRow {
    /// Run id.
    pub id: String,
    /// The automation that ran.
    pub automation_id: String,
    /// Copied from the automation at run time.
    pub project_id: String,
    /// `periodic`, `cron`, `event:<type>` or `manual`.
    pub trigger_reason: String,
    /// `running`, `completed`, `skipped`, `failed` or `interrupted`.
    pub status: String,
    /// The event data, JSON.
    pub event_data: Option<String>,
    /// The step results, a JSON array.
    pub context_results: Option<String>,
    /// The prompt sent to the LLM.
    pub prompt_sent: Option<String>,
    /// The LLM's reply, or the error of a failed run.
    pub llm_response: Option<String>,
    /// Reserved for a record of what a run did; not written.
    pub actions_taken: Option<String>,
    /// Why the LLM was skipped.
    pub skipped_reason: Option<String>,
    /// Estimated tokens.
    pub tokens_used: i64,
    /// When the run started (Unix seconds).
    pub started_at: f64,
    /// When it reached a terminal status (Unix seconds).
    pub completed_at: Option<f64>,
}

const SELECT_AUTOMATION: &str = "
    SELECT id, project_id, name, enabled, trigger, context_steps, prompt_template, llm_config,
           cooldown_seconds, max_tokens_per_run, source, created_at, updated_at, held
    FROM automations";

const SELECT_RUN: &str = "
    SELECT id, automation_id, project_id, trigger_reason, status, event_data, context_results,
           prompt_sent, llm_response, actions_taken, skipped_reason, tokens_used, started_at,
           completed_at
    FROM automation_runs";

impl Ledger {
    /// Stores `row`, replacing the automation with the same id but keeping its
    /// `created_at`; returns the row as stored.
    pub fn upsert_automation(&mut self, row: &AutomationRow) -> Result<AutomationRow, StoreError> {
        self.conn()
            .execute(
                "INSERT INTO automations (id, project_id, name, enabled, trigger, context_steps,
                     prompt_template, llm_config, cooldown_seconds, max_tokens_per_run, source,
                     created_at, updated_at, held)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
                 ON CONFLICT (id) DO UPDATE SET
                     project_id = excluded.project_id, name = excluded.name,
                     enabled = excluded.enabled, trigger = excluded.trigger,
                     context_steps = excluded.context_steps,
                     prompt_template = excluded.prompt_template,
                     llm_config = excluded.llm_config,
                     cooldown_seconds = excluded.cooldown_seconds,
                     max_tokens_per_run = excluded.max_tokens_per_run,
                     source = excluded.source, updated_at = excluded.updated_at,
                     held = excluded.held",
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
                    row.held
                ],
            )
            .map_err(StoreError::sqlite(self.path(), "store an automation"))?;
        self.automation(&row.id)?
            .ok_or_else(|| StoreError::UnknownAutomation { id: row.id.clone() })
    }

    /// One automation, or `None`.
    pub fn automation(&self, id: &str) -> Result<Option<AutomationRow>, StoreError> {
        self.conn()
            .query_row(
                &format!("{SELECT_AUTOMATION} WHERE id = ?1"),
                [id],
                automation_from_row,
            )
            .optional()
            .map_err(StoreError::sqlite(self.path(), "read an automation"))
    }

    /// Every automation (only those the engine may run, enabled and not held, with
    /// `enabled_only`), in the order they were first stored: the engine examines them
    /// in this order, and the cap stops it part-way, so the order must not change when
    /// one is edited.
    pub fn automations(&self, enabled_only: bool) -> Result<Vec<AutomationRow>, StoreError> {
        let filter = if enabled_only {
            " WHERE enabled = 1 AND held IS NULL"
        } else {
            ""
        };
        self.conn()
            .prepare_cached(&format!("{SELECT_AUTOMATION}{filter} ORDER BY rowid"))
            .and_then(|mut stmt| stmt.query_map([], automation_from_row)?.collect())
            .map_err(StoreError::sqlite(self.path(), "list automations"))
    }

    /// Enables or disables the automation `id`. An unknown id is
    /// [`StoreError::UnknownAutomation`].
    pub fn set_automation_enabled(
        &mut self,
        id: &str,
        enabled: bool,
        now: f64,
    ) -> Result<(), StoreError> {
        let changed = self
            .conn()
            .execute(
                "UPDATE automations SET enabled = ?2, updated_at = ?3 WHERE id = ?1",
                params![id, enabled, now],
            )
            .map_err(StoreError::sqlite(self.path(), "change an automation"))?;
        if changed == 0 {
            return Err(StoreError::UnknownAutomation { id: id.to_owned() });
        }
        Ok(())
    }

    /// Holds every automation stored from the file `source` (`reason` says why): the
    /// engine does not run them until they are stored again. Returns their ids.
    pub fn hold_automations(
        &mut self,
        source: &str,
        reason: &str,
        now: f64,
    ) -> Result<Vec<String>, StoreError> {
        self.conn()
            .prepare_cached(
                "UPDATE automations SET held = ?2, updated_at = ?3 WHERE source = ?1 RETURNING id",
            )
            .and_then(|mut stmt| {
                stmt.query_map(params![source, reason, now], |row| row.get(0))?
                    .collect()
            })
            .map_err(StoreError::sqlite(self.path(), "hold automations"))
    }

    /// Deletes the automation `id` and its runs. An unknown id is
    /// [`StoreError::UnknownAutomation`].
    pub fn delete_automation(&mut self, id: &str) -> Result<(), StoreError> {
        // The runs go by the foreign key's ON DELETE CASCADE.
        let deleted = self
            .conn()
            .execute("DELETE FROM automations WHERE id = ?1", [id])
            .map_err(StoreError::sqlite(self.path(), "delete an automation"))?;
        if deleted == 0 {
            return Err(StoreError::UnknownAutomation { id: id.to_owned() });
        }
        Ok(())
    }

    /// Records a new run.
    pub fn insert_automation_run(&mut self, run: &AutomationRunRow) -> Result<(), StoreError> {
        self.conn()
            .prepare_cached(
                "INSERT INTO automation_runs (id, automation_id, project_id, trigger_reason,
                     status, event_data, context_results, prompt_sent, llm_response,
                     actions_taken, skipped_reason, tokens_used, started_at, completed_at,
                     owner)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
            )
            .and_then(|mut stmt| {
                // The process running it owns it while it is `running` (see owner.rs).
                let owner = crate::owner::current_owner();
                let params = run_params(run);
                let all: Vec<&dyn rusqlite::ToSql> = params
                    .into_iter()
                    .chain([&owner as &dyn rusqlite::ToSql])
                    .collect();
                stmt.execute(all.as_slice())
            })
            .map(drop)
            .map_err(StoreError::sqlite(self.path(), "record an automation run"))
    }

    /// Rewrites the run `run.id` with every field of `run`. An unknown id is
    /// [`StoreError::UnknownRunId`].
    pub fn update_automation_run(&mut self, run: &AutomationRunRow) -> Result<(), StoreError> {
        let changed = self
            .conn()
            .prepare_cached(
                "UPDATE automation_runs SET automation_id = ?2, project_id = ?3,
                     trigger_reason = ?4, status = ?5, event_data = ?6, context_results = ?7,
                     prompt_sent = ?8, llm_response = ?9, actions_taken = ?10,
                     skipped_reason = ?11, tokens_used = ?12, started_at = ?13,
                     completed_at = ?14
                 WHERE id = ?1",
            )
            .and_then(|mut stmt| stmt.execute(run_params(run)))
            .map_err(StoreError::sqlite(self.path(), "update an automation run"))?;
        if changed == 0 {
            return Err(StoreError::UnknownRunId {
                run_id: run.id.clone(),
            });
        }
        Ok(())
    }

    /// One run, or `None`.
    pub fn automation_run(&self, id: &str) -> Result<Option<AutomationRunRow>, StoreError> {
        self.conn()
            .query_row(&format!("{SELECT_RUN} WHERE id = ?1"), [id], run_from_row)
            .optional()
            .map_err(StoreError::sqlite(self.path(), "read an automation run"))
    }

    /// The newest `limit` runs, of one automation or of all, newest first.
    pub fn automation_runs(
        &self,
        automation_id: Option<&str>,
        limit: usize,
    ) -> Result<Vec<AutomationRunRow>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        // rowid breaks ties between runs started in the same instant, so that "newest
        // first" is the insertion order reversed.
        let (sql, id) = match automation_id {
            Some(id) => (
                format!(
                    "{SELECT_RUN} WHERE automation_id = ?1 ORDER BY started_at DESC, rowid DESC LIMIT ?2"
                ),
                id,
            ),
            None => (
                format!("{SELECT_RUN} WHERE ?1 = '' ORDER BY started_at DESC, rowid DESC LIMIT ?2"),
                "",
            ),
        };
        self.conn()
            .prepare_cached(&sql)
            .and_then(|mut stmt| stmt.query_map(params![id, limit], run_from_row)?.collect())
            .map_err(StoreError::sqlite(self.path(), "list automation runs"))
    }

    /// The start time of each automation's newest run, by automation id: the engine's
    /// last-run times at start-up, so that a restart does not re-fire what just ran.
    pub fn last_automation_run_starts(&self) -> Result<HashMap<String, f64>, StoreError> {
        self.conn()
            .prepare_cached(
                // An event that was not run (a `skipped` row without context results)
                // is no run: it must not restart the interval or the cooldown.
                "SELECT automation_id, max(started_at) FROM automation_runs
                 WHERE status <> 'skipped' OR context_results IS NOT NULL
                 GROUP BY automation_id",
            )
            .and_then(|mut stmt| {
                stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
                    .collect()
            })
            .map_err(StoreError::sqlite(
                self.path(),
                "read the last automation runs",
            ))
    }

    /// Takes the lock of the automation `automation_id` for the run `run_id` of this
    /// process: `Ok(None)` when taken, `Ok(Some(holder))` when another run holds it (of
    /// a process that still runs; a lock left by a process that died is taken over).
    ///
    /// Every process that runs automations on this ledger (`hookrig serve`, an
    /// in-process `hookrig fire`) takes the lock before a run starts and releases it
    /// when the run ends, so one automation never runs twice at once.
    pub fn lock_automation(
        &mut self,
        automation_id: &str,
        run_id: &str,
        now: f64,
    ) -> Result<Option<AutomationLock>, StoreError> {
        let path = self.path().to_owned();
        let fail = StoreError::sqlite(&path, "lock an automation");
        let me = Owner::current();
        // IMMEDIATE: the look and the write are one step for every other process.
        let tx = self
            .conn_mut()
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(fail)?;
        let held = tx
            .query_row(
                "SELECT automation_id, run_id, pid, proc_start, acquired_at
                 FROM automation_locks WHERE automation_id = ?1",
                [automation_id],
                |row| {
                    Ok(AutomationLock {
                        automation_id: row.get(0)?,
                        run_id: row.get(1)?,
                        pid: row.get(2)?,
                        proc_start: row.get(3)?,
                        acquired_at: row.get(4)?,
                    })
                },
            )
            .optional()
            .map_err(fail)?;
        if let Some(held) = held {
            let owner = Owner {
                pid: held.pid,
                proc_start: held.proc_start,
            };
            if owner.is_alive() {
                return Ok(Some(held));
            }
        }
        tx.execute(
            "INSERT INTO automation_locks (automation_id, run_id, pid, proc_start, acquired_at)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (automation_id) DO UPDATE SET run_id = excluded.run_id,
                 pid = excluded.pid, proc_start = excluded.proc_start,
                 acquired_at = excluded.acquired_at",
            params![automation_id, run_id, me.pid, me.proc_start, now],
        )
        .map_err(fail)?;
        tx.commit().map_err(fail)?;
        Ok(None)
    }

    /// Releases the lock of `automation_id` if the run `run_id` holds it.
    pub fn unlock_automation(
        &mut self,
        automation_id: &str,
        run_id: &str,
    ) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "DELETE FROM automation_locks WHERE automation_id = ?1 AND run_id = ?2",
                [automation_id, run_id],
            )
            .map(drop)
            .map_err(StoreError::sqlite(self.path(), "unlock an automation"))
    }

    /// Marks every run still `running` whose process died without finishing it as
    /// `interrupted`, completed at `now`; returns how many. Called at start-up. A run
    /// whose owner still runs (a `hookrig fire` in another process) is left alone.
    pub fn interrupt_running_runs(&mut self, now: f64) -> Result<usize, StoreError> {
        let fail = StoreError::sqlite(self.path(), "mark interrupted runs");
        let running: Vec<(String, Option<String>)> = self
            .conn()
            .prepare("SELECT id, owner FROM automation_runs WHERE status = 'running'")
            .and_then(|mut select| {
                select
                    .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
                    .collect()
            })
            .map_err(fail)?;
        let abandoned: Vec<String> = running
            .into_iter()
            .filter(|(_, owner)| !crate::owner::owner_is_alive(owner.as_deref()))
            .map(|(id, _)| id)
            .collect();
        self.interrupt_runs(&abandoned, now)
    }

    /// Marks the runs `ids` that are still `running` as `interrupted`, completed at
    /// `now`; returns how many. Called at shutdown for the runs it cancelled.
    pub fn interrupt_runs(&mut self, ids: &[String], now: f64) -> Result<usize, StoreError> {
        let mut count = 0;
        for id in ids {
            count += self
                .conn()
                .execute(
                    "UPDATE automation_runs SET status = 'interrupted', completed_at = ?2
                     WHERE id = ?1 AND status = 'running'",
                    params![id, now],
                )
                .map_err(StoreError::sqlite(self.path(), "mark interrupted runs"))?;
        }
        Ok(count)
    }
}

fn run_params(run: &AutomationRunRow) -> [&dyn rusqlite::ToSql; 14] {
    [
        &run.id,
        &run.automation_id,
        &run.project_id,
        &run.trigger_reason,
        &run.status,
        &run.event_data,
        &run.context_results,
        &run.prompt_sent,
        &run.llm_response,
        &run.actions_taken,
        &run.skipped_reason,
        &run.tokens_used,
        &run.started_at,
        &run.completed_at,
    ]
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
    })
}

fn run_from_row(row: &Row<'_>) -> rusqlite::Result<AutomationRunRow> {
    Ok(AutomationRunRow {
        id: row.get(0)?,
        automation_id: row.get(1)?,
        project_id: row.get(2)?,
        trigger_reason: row.get(3)?,
        status: row.get(4)?,
        event_data: row.get(5)?,
        context_results: row.get(6)?,
        prompt_sent: row.get(7)?,
        llm_response: row.get(8)?,
        actions_taken: row.get(9)?,
        skipped_reason: row.get(10)?,
        tokens_used: row.get(11)?,
        started_at: row.get(12)?,
        completed_at: row.get(13)?,
    })
}

#[cfg(test)]
#[expect(
    clippy::float_cmp,
    reason = "times are stored and read back exactly, never computed"
)]
mod tests {
    use super::*;

    fn open_temp() -> (tempfile::TempDir, Ledger) {
        let dir = tempfile::tempdir().expect("temp dir");
        let ledger = Ledger::open(&dir.path().join("ledger.db")).expect("open");
        (dir, ledger)
    }

    fn automation(id: &str, at: f64) -> AutomationRow {
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
        }
    }

    fn run(id: &str, automation_id: &str, started_at: f64) -> AutomationRunRow {
        AutomationRunRow {
            id: id.to_owned(),
            automation_id: automation_id.to_owned(),
            project_id: "p".to_owned(),
            trigger_reason: "manual".to_owned(),
            status: "running".to_owned(),
            event_data: None,
            context_results: None,
            prompt_sent: None,
            llm_response: None,
            actions_taken: None,
            skipped_reason: None,
            tokens_used: 0,
            started_at,
            completed_at: None,
        }
    }

    #[test]
    fn upsert_updates_in_place_and_keeps_created_at() {
        let (_dir, mut ledger) = open_temp();
        ledger
            .upsert_automation(&automation("a", 1.0))
            .expect("add");
        ledger
            .upsert_automation(&automation("b", 2.0))
            .expect("add");
        let mut changed = automation("a", 5.0);
        changed.name = "renamed".to_owned();
        let stored = ledger.upsert_automation(&changed).expect("update");
        assert_eq!(stored.created_at, 1.0);
        assert_eq!(stored.updated_at, 5.0);
        assert_eq!(stored.name, "renamed");
        let ids: Vec<String> = ledger
            .automations(false)
            .expect("list")
            .into_iter()
            .map(|a| a.id)
            .collect();
        assert_eq!(ids, ["a", "b"], "an update keeps the examination order");
    }

    #[test]
    fn enabled_only_lists_enabled_automations() {
        let (_dir, mut ledger) = open_temp();
        ledger
            .upsert_automation(&automation("a", 1.0))
            .expect("add");
        ledger
            .upsert_automation(&automation("b", 1.0))
            .expect("add");
        ledger
            .set_automation_enabled("a", false, 2.0)
            .expect("disable");
        let enabled: Vec<String> = ledger
            .automations(true)
            .expect("list")
            .into_iter()
            .map(|a| a.id)
            .collect();
        assert_eq!(enabled, ["b"]);
        let a = ledger.automation("a").expect("read").expect("present");
        assert!(!a.enabled);
        assert_eq!(a.updated_at, 2.0);
    }

    #[test]
    fn unknown_ids_are_reported() {
        let (_dir, mut ledger) = open_temp();
        let error = ledger
            .set_automation_enabled("nope", true, 1.0)
            .expect_err("unknown");
        assert!(matches!(&error, StoreError::UnknownAutomation { id } if id == "nope"));
        assert!(matches!(
            ledger.delete_automation("nope"),
            Err(StoreError::UnknownAutomation { .. })
        ));
        assert!(matches!(
            ledger.update_automation_run(&run("r", "a", 1.0)),
            Err(StoreError::UnknownRunId { .. })
        ));
    }

    #[test]
    fn delete_removes_the_runs() {
        let (_dir, mut ledger) = open_temp();
        ledger
            .upsert_automation(&automation("a", 1.0))
            .expect("add");
        ledger
            .upsert_automation(&automation("b", 1.0))
            .expect("add");
        ledger
            .insert_automation_run(&run("r1", "a", 1.0))
            .expect("run");
        ledger
            .insert_automation_run(&run("r2", "b", 1.0))
            .expect("run");
        ledger.delete_automation("a").expect("delete");
        assert!(ledger.automation_run("r1").expect("read").is_none());
        assert!(ledger.automation_run("r2").expect("read").is_some());
    }

    #[test]
    fn runs_are_listed_newest_first_with_a_limit() {
        let (_dir, mut ledger) = open_temp();
        ledger
            .upsert_automation(&automation("a", 1.0))
            .expect("add");
        ledger
            .upsert_automation(&automation("b", 1.0))
            .expect("add");
        for (id, owner, at) in [("r1", "a", 1.0), ("r2", "b", 2.0), ("r3", "a", 3.0)] {
            ledger
                .insert_automation_run(&run(id, owner, at))
                .expect("run");
        }
        let ids = |runs: Vec<AutomationRunRow>| runs.into_iter().map(|r| r.id).collect::<Vec<_>>();
        assert_eq!(
            ids(ledger.automation_runs(None, 10).expect("all")),
            ["r3", "r2", "r1"]
        );
        assert_eq!(
            ids(ledger.automation_runs(Some("a"), 10).expect("a")),
            ["r3", "r1"]
        );
        assert_eq!(ids(ledger.automation_runs(None, 1).expect("one")), ["r3"]);
        let last = ledger.last_automation_run_starts().expect("last");
        assert_eq!(last.get("a"), Some(&3.0));
        assert_eq!(last.get("b"), Some(&2.0));
    }

    #[test]
    fn update_rewrites_every_field() {
        let (_dir, mut ledger) = open_temp();
        ledger
            .upsert_automation(&automation("a", 1.0))
            .expect("add");
        ledger
            .insert_automation_run(&run("r", "a", 1.0))
            .expect("run");
        let mut done = run("r", "a", 1.0);
        done.status = "completed".to_owned();
        done.context_results = Some("[]".to_owned());
        done.llm_response = Some("ok".to_owned());
        done.tokens_used = 7;
        done.completed_at = Some(2.0);
        ledger.update_automation_run(&done).expect("update");
        assert_eq!(ledger.automation_run("r").expect("read"), Some(done));
    }

    #[test]
    fn running_rows_become_interrupted() {
        let (_dir, mut ledger) = open_temp();
        ledger
            .upsert_automation(&automation("a", 1.0))
            .expect("add");
        ledger
            .insert_automation_run(&run("r1", "a", 1.0))
            .expect("run");
        ledger
            .insert_automation_run(&run("r2", "a", 1.0))
            .expect("run");
        let mut done = run("r3", "a", 1.0);
        done.status = "completed".to_owned();
        ledger.insert_automation_run(&done).expect("run");
        assert_eq!(
            ledger
                .interrupt_runs(&["r1".to_owned(), "r3".to_owned()], 4.0)
                .expect("interrupt"),
            1,
            "a finished run keeps its status"
        );
        // r2's process died; r4's (this one) still runs it.
        ledger
            .conn()
            .execute(
                "UPDATE automation_runs SET owner = '4194305:1' WHERE id = 'r2'",
                [],
            )
            .expect("a dead owner");
        ledger
            .insert_automation_run(&run("r4", "a", 1.0))
            .expect("run");
        assert_eq!(ledger.interrupt_running_runs(5.0).expect("interrupt"), 1);
        let status = |id: &str| ledger.automation_run(id).expect("read").expect("present");
        assert_eq!(status("r1").status, "interrupted");
        assert_eq!(status("r1").completed_at, Some(4.0));
        assert_eq!(status("r2").status, "interrupted");
        assert_eq!(status("r2").completed_at, Some(5.0));
        assert_eq!(status("r3").status, "completed");
        // guards: serve's start-up recovery must not mark a run of a live process
        // (`hookrig fire` running in-process) interrupted
        assert_eq!(status("r4").status, "running");
    }

    // guards: two processes on one ledger must not run one automation at once, and a
    // lock left by a process that died must not block it forever
    #[test]
    fn the_lock_is_held_by_one_live_run_at_a_time() {
        let (_dir, mut ledger) = open_temp();
        ledger
            .upsert_automation(&automation("a", 1.0))
            .expect("add");
        assert_eq!(ledger.lock_automation("a", "r1", 1.0).expect("lock"), None);
        let held = ledger
            .lock_automation("a", "r2", 2.0)
            .expect("lock")
            .expect("held by r1");
        assert_eq!(held.run_id, "r1");
        assert_eq!(held.pid, i64::from(std::process::id()));
        // Releasing another run's lock does nothing.
        ledger.unlock_automation("a", "r2").expect("unlock");
        assert!(
            ledger
                .lock_automation("a", "r2", 2.0)
                .expect("lock")
                .is_some()
        );
        ledger.unlock_automation("a", "r1").expect("unlock");
        assert_eq!(ledger.lock_automation("a", "r2", 3.0).expect("lock"), None);

        // A lock whose process has exited is taken over.
        let mut child = std::process::Command::new("true").spawn().expect("spawn");
        let dead = i64::from(child.id());
        child.wait().expect("reaped");
        ledger
            .conn()
            .execute(
                "UPDATE automation_locks SET pid = ?1, run_id = 'old' WHERE automation_id = 'a'",
                [dead],
            )
            .expect("forge a dead owner");
        assert_eq!(ledger.lock_automation("a", "r3", 4.0).expect("lock"), None);
        let again = ledger.lock_automation("a", "r4", 5.0).expect("lock");
        assert_eq!(again.map(|l| l.run_id).as_deref(), Some("r3"));
    }

    // guards: an event that was not run must not count as the automation's last run at
    // start-up (it would restart the interval and the cooldown)
    #[test]
    fn dropped_events_are_not_last_runs() {
        let (_dir, mut ledger) = open_temp();
        ledger
            .upsert_automation(&automation("a", 1.0))
            .expect("add");
        let mut ran = run("r1", "a", 1.0);
        ran.status = "skipped".to_owned();
        ran.context_results = Some("[]".to_owned());
        ledger.insert_automation_run(&ran).expect("run");
        let mut dropped = run("r2", "a", 9.0);
        dropped.status = "skipped".to_owned();
        ledger.insert_automation_run(&dropped).expect("dropped");
        let last = ledger.last_automation_run_starts().expect("last");
        assert_eq!(last.get("a"), Some(&1.0));
    }

    // guards: an automation whose project file changed since it was trusted must not
    // keep running its old version; storing it again (trusted) lets it run
    #[test]
    fn held_automations_are_not_run_until_stored_again() {
        let (_dir, mut ledger) = open_temp();
        let mut a = automation("a", 1.0);
        a.source = Some("/p/.hookrig/automations/a.toml".to_owned());
        ledger.upsert_automation(&a).expect("add");
        ledger
            .upsert_automation(&automation("b", 1.0))
            .expect("add");
        let held = ledger
            .hold_automations("/p/.hookrig/automations/a.toml", "it changed", 2.0)
            .expect("hold");
        assert_eq!(held, ["a"]);
        let runnable: Vec<String> = ledger
            .automations(true)
            .expect("list")
            .into_iter()
            .map(|a| a.id)
            .collect();
        assert_eq!(runnable, ["b"]);
        let stored = ledger.automation("a").expect("read").expect("present");
        assert_eq!(stored.held.as_deref(), Some("it changed"));
        assert!(stored.enabled, "the user's enabled flag is untouched");
        ledger.upsert_automation(&a).expect("stored again");
        assert_eq!(ledger.automations(true).expect("list").len(), 2);
    }
}
