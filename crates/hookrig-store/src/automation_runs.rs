//! The runs of automations (`hookrig fire`, `hookrig auto runs`, `hookrig serve`): the
//! table `automation_runs`, read and written through [`AutomationRuns`].
//!
//! A run is `running` from the moment it starts, owned by the process running it, until
//! it reaches `completed`, `skipped`, `failed` or `interrupted`. `event_data` and
//! `context_results` are stored as JSON text and read back as JSON values; times are
//! Unix seconds.

use std::collections::HashMap;
use std::fmt;

use rusqlite::types::{FromSql, FromSqlResult, ToSqlOutput, ValueRef};
use rusqlite::{OptionalExtension, Row, ToSql, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::column::{self, Named};
use crate::errors::StoreError;
use crate::store::Store;

/// Where a run of an automation stands. The names are those of the `status` column
/// (whose CHECK constraint lists them) and of `--json` output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// It runs now (or its process died, which a reader turns into
    /// [`RunStatus::Interrupted`]).
    Running,
    /// It ran to the end: the LLM answered, or was not to be asked.
    Completed,
    /// A step's skip flag matched, or an event was not run (see `skipped_reason`).
    Skipped,
    /// A step, the LLM or the time limit failed it (the error is in `llm_response`).
    Failed,
    /// Shutdown cancelled it, or its process died before it finished.
    Interrupted,
}

impl RunStatus {
    /// Every status, in the order a run can reach them.
    pub const ALL: [RunStatus; 5] = [
        RunStatus::Running,
        RunStatus::Completed,
        RunStatus::Skipped,
        RunStatus::Failed,
        RunStatus::Interrupted,
    ];

    /// The lowercase name the column and `--json` hold.
    pub const fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Completed => "completed",
            RunStatus::Skipped => "skipped",
            RunStatus::Failed => "failed",
            RunStatus::Interrupted => "interrupted",
        }
    }
}

impl fmt::Display for RunStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `pad`, so that table columns line up.
        f.pad(self.as_str())
    }
}

impl Named for RunStatus {
    const KIND: &'static str = "run status";
    const ALL: &'static [Self] = &RunStatus::ALL;

    fn name(self) -> &'static str {
        self.as_str()
    }
}

impl ToSql for RunStatus {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(column::to_sql(*self))
    }
}

impl FromSql for RunStatus {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        column::from_sql(value)
    }
}

/// One run of an automation: what the engine writes, what the store reads back, and what
/// `hookrig fire` and `hookrig auto runs` print (`--json` serializes it as it is).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AutomationRun {
    /// Run id.
    pub id: String,
    /// The automation that ran.
    pub automation_id: String,
    /// Copied from the automation at run time.
    pub project_id: String,
    /// `periodic`, `cron`, `event:<type>` or `manual`.
    pub trigger_reason: String,
    /// Where it stands.
    pub status: RunStatus,
    /// The event that triggered the run, or the timing data of a periodic or cron run.
    pub event_data: Option<Value>,
    /// The step results, a JSON array.
    pub context_results: Option<Value>,
    /// The prompt sent to the LLM, with its preamble.
    pub prompt_sent: Option<String>,
    /// The LLM's reply, or the error of a failed run.
    pub llm_response: Option<String>,
    /// The tool calls of the run's LLM, a JSON array of `{name, arguments, result or
    /// error, duration_ms}`, oldest first; `None` when it called none.
    pub actions_taken: Option<Value>,
    /// Why the LLM was skipped.
    pub skipped_reason: Option<String>,
    /// Estimated tokens.
    pub tokens_used: i64,
    /// When the run started (Unix seconds).
    pub started_at: f64,
    /// When it reached a terminal status (Unix seconds).
    pub completed_at: Option<f64>,
}

const SELECT_RUN: &str = "
    SELECT id, automation_id, project_id, trigger_reason, status, event_data, context_results,
           prompt_sent, llm_response, actions_taken, skipped_reason, tokens_used, started_at,
           completed_at
    FROM automation_runs";

/// The `automation_runs` table of a [`Store`].
#[derive(Debug, Clone, Copy)]
pub struct AutomationRuns<'s> {
    store: &'s Store,
}

impl<'s> AutomationRuns<'s> {
    pub(crate) fn new(store: &'s Store) -> Self {
        Self { store }
    }

    /// Records a new run.
    pub fn insert(&self, run: &AutomationRun) -> Result<(), StoreError> {
        self.store
            .conn()
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
                let json = json_columns(run);
                let all: Vec<&dyn ToSql> = run_params(run, &json)
                    .into_iter()
                    .chain([&owner as &dyn ToSql])
                    .collect();
                stmt.execute(all.as_slice())
            })
            .map(drop)
            .map_err(self.store.fail("record an automation run"))
    }

    /// Writes the tool calls of the run `id` so far (a JSON array), while it runs, so
    /// that `hookrig auto runs --follow` shows each call as it ends. An unknown id is
    /// [`StoreError::UnknownRunId`].
    pub fn set_actions(&self, id: &str, actions: &Value) -> Result<(), StoreError> {
        let changed = self
            .store
            .conn()
            .prepare_cached("UPDATE automation_runs SET actions_taken = ?2 WHERE id = ?1")
            .and_then(|mut stmt| stmt.execute(params![id, actions.to_string()]))
            .map_err(
                self.store
                    .fail("record the tool calls of an automation run"),
            )?;
        if changed == 0 {
            return Err(StoreError::UnknownRunId {
                run_id: id.to_owned(),
            });
        }
        Ok(())
    }

    /// Rewrites the run `run.id` with every field of `run`. An unknown id is
    /// [`StoreError::UnknownRunId`].
    pub fn update(&self, run: &AutomationRun) -> Result<(), StoreError> {
        let changed = self
            .store
            .conn()
            .prepare_cached(
                "UPDATE automation_runs SET automation_id = ?2, project_id = ?3,
                     trigger_reason = ?4, status = ?5, event_data = ?6, context_results = ?7,
                     prompt_sent = ?8, llm_response = ?9, actions_taken = ?10,
                     skipped_reason = ?11, tokens_used = ?12, started_at = ?13,
                     completed_at = ?14
                 WHERE id = ?1",
            )
            .and_then(|mut stmt| stmt.execute(run_params(run, &json_columns(run))))
            .map_err(self.store.fail("update an automation run"))?;
        if changed == 0 {
            return Err(StoreError::UnknownRunId {
                run_id: run.id.clone(),
            });
        }
        Ok(())
    }

    /// One run, or `None`.
    pub fn get(&self, id: &str) -> Result<Option<AutomationRun>, StoreError> {
        self.store
            .conn()
            .query_row(&format!("{SELECT_RUN} WHERE id = ?1"), [id], run_from_row)
            .optional()
            .map_err(self.store.fail("read an automation run"))
    }

    /// The newest `limit` runs, of one automation or of all, newest first.
    pub fn list(
        &self,
        automation_id: Option<&str>,
        limit: usize,
    ) -> Result<Vec<AutomationRun>, StoreError> {
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
        self.store
            .conn()
            .prepare_cached(&sql)
            .and_then(|mut stmt| stmt.query_map(params![id, limit], run_from_row)?.collect())
            .map_err(self.store.fail("list automation runs"))
    }

    /// The start time of each automation's newest run, by automation id: the engine's
    /// last-run times at start-up, so that a restart does not re-fire what just ran.
    pub fn last_starts(&self) -> Result<HashMap<String, f64>, StoreError> {
        self.store
            .conn()
            .prepare_cached(
                // An event that was not run (a `skipped` row without context results)
                // is no run: it must not restart the interval or the cooldown.
                "SELECT automation_id, max(started_at) FROM automation_runs
                 WHERE status <> ?1 OR context_results IS NOT NULL
                 GROUP BY automation_id",
            )
            .and_then(|mut stmt| {
                stmt.query_map([RunStatus::Skipped], |row| Ok((row.get(0)?, row.get(1)?)))?
                    .collect()
            })
            .map_err(StoreError::sqlite(
                self.store.path(),
                "read the last automation runs",
            ))
    }

    /// Marks every run still `running` whose process died without finishing it as
    /// `interrupted`, completed at `now`; returns how many. Called at start-up. A run
    /// whose owner still runs (a `hookrig fire` in another process) is left alone.
    pub fn interrupt_abandoned(&self, now: f64) -> Result<usize, StoreError> {
        let fail = self.store.fail("mark interrupted runs");
        let running: Vec<(String, Option<String>)> = self
            .store
            .conn()
            .prepare("SELECT id, owner FROM automation_runs WHERE status = ?1")
            .and_then(|mut select| {
                select
                    .query_map([RunStatus::Running], |row| Ok((row.get(0)?, row.get(1)?)))?
                    .collect()
            })
            .map_err(fail)?;
        let abandoned: Vec<String> = running
            .into_iter()
            .filter(|(_, owner)| !crate::owner::owner_is_alive(owner.as_deref()))
            .map(|(id, _)| id)
            .collect();
        self.interrupt(&abandoned, now)
    }

    /// Marks the runs `ids` that are still `running` as `interrupted`, completed at
    /// `now`; returns how many. Called at shutdown for the runs it cancelled.
    pub fn interrupt(&self, ids: &[String], now: f64) -> Result<usize, StoreError> {
        let mut count = 0;
        for id in ids {
            count += self
                .store
                .conn()
                .execute(
                    "UPDATE automation_runs SET status = ?3, completed_at = ?2
                     WHERE id = ?1 AND status = ?4",
                    params![id, now, RunStatus::Interrupted, RunStatus::Running],
                )
                .map_err(self.store.fail("mark interrupted runs"))?;
        }
        Ok(count)
    }
}

/// `event_data`, `context_results` and `actions_taken` as the JSON text their columns
/// hold.
fn json_columns(run: &AutomationRun) -> [Option<String>; 3] {
    [
        run.event_data.as_ref().map(Value::to_string),
        run.context_results.as_ref().map(Value::to_string),
        run.actions_taken.as_ref().map(Value::to_string),
    ]
}

/// The columns of `run` in the order the statements number them, `json` being its
/// [`json_columns`].
fn run_params<'a>(run: &'a AutomationRun, json: &'a [Option<String>; 3]) -> [&'a dyn ToSql; 14] {
    let [event_data, context_results, actions_taken] = json;
    [
        &run.id,
        &run.automation_id,
        &run.project_id,
        &run.trigger_reason,
        &run.status,
        event_data,
        context_results,
        &run.prompt_sent,
        &run.llm_response,
        actions_taken,
        &run.skipped_reason,
        &run.tokens_used,
        &run.started_at,
        &run.completed_at,
    ]
}

fn run_from_row(row: &Row<'_>) -> rusqlite::Result<AutomationRun> {
    Ok(AutomationRun {
        id: row.get(0)?,
        automation_id: row.get(1)?,
        project_id: row.get(2)?,
        trigger_reason: row.get(3)?,
        status: column::get(row, 4)?,
        event_data: json_value(row.get(5)?),
        context_results: json_value(row.get(6)?),
        prompt_sent: row.get(7)?,
        llm_response: row.get(8)?,
        actions_taken: json_value(row.get(9)?),
        skipped_reason: row.get(10)?,
        tokens_used: row.get(11)?,
        started_at: row.get(12)?,
        completed_at: row.get(13)?,
    })
}

/// A JSON column read back; text that is not JSON (the file was edited by something
/// else) is kept as a JSON string rather than lost.
pub(crate) fn json_value(text: Option<String>) -> Option<Value> {
    text.map(|text| serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::automations::tests::automation;

    fn open_temp() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(&dir.path().join("ledger.db")).expect("open");
        (dir, store)
    }

    fn run(id: &str, automation_id: &str, started_at: f64) -> AutomationRun {
        AutomationRun {
            id: id.to_owned(),
            automation_id: automation_id.to_owned(),
            project_id: "p".to_owned(),
            trigger_reason: "manual".to_owned(),
            status: RunStatus::Running,
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
    fn unknown_ids_are_reported() {
        let (_dir, ledger) = open_temp();
        let error = ledger
            .automations()
            .set_enabled("nope", true, 1.0)
            .expect_err("unknown");
        assert!(matches!(&error, StoreError::UnknownAutomation { id } if id == "nope"));
        assert!(matches!(
            ledger.automations().delete("nope"),
            Err(StoreError::UnknownAutomation { .. })
        ));
        assert!(matches!(
            ledger.automation_runs().update(&run("r", "a", 1.0)),
            Err(StoreError::UnknownRunId { .. })
        ));
    }

    #[test]
    fn delete_removes_the_runs() {
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
            .automation_runs()
            .insert(&run("r1", "a", 1.0))
            .expect("run");
        ledger
            .automation_runs()
            .insert(&run("r2", "b", 1.0))
            .expect("run");
        ledger.automations().delete("a").expect("delete");
        assert!(ledger.automation_runs().get("r1").expect("read").is_none());
        assert!(ledger.automation_runs().get("r2").expect("read").is_some());
    }

    #[test]
    fn runs_are_listed_newest_first_with_a_limit() {
        let (_dir, ledger) = open_temp();
        ledger
            .automations()
            .upsert(&automation("a", 1.0))
            .expect("add");
        ledger
            .automations()
            .upsert(&automation("b", 1.0))
            .expect("add");
        for (id, owner, at) in [("r1", "a", 1.0), ("r2", "b", 2.0), ("r3", "a", 3.0)] {
            ledger
                .automation_runs()
                .insert(&run(id, owner, at))
                .expect("run");
        }
        let ids = |runs: Vec<AutomationRun>| runs.into_iter().map(|r| r.id).collect::<Vec<_>>();
        assert_eq!(
            ids(ledger.automation_runs().list(None, 10).expect("all")),
            ["r3", "r2", "r1"]
        );
        assert_eq!(
            ids(ledger.automation_runs().list(Some("a"), 10).expect("a")),
            ["r3", "r1"]
        );
        assert_eq!(
            ids(ledger.automation_runs().list(None, 1).expect("one")),
            ["r3"]
        );
        let last = ledger.automation_runs().last_starts().expect("last");
        assert_eq!(last.get("a"), Some(&3.0));
        assert_eq!(last.get("b"), Some(&2.0));
    }

    #[test]
    fn update_rewrites_every_field() {
        let (_dir, ledger) = open_temp();
        ledger
            .automations()
            .upsert(&automation("a", 1.0))
            .expect("add");
        ledger
            .automation_runs()
            .insert(&run("r", "a", 1.0))
            .expect("run");
        let mut done = run("r", "a", 1.0);
        done.status = RunStatus::Completed;
        done.context_results = Some(json!([]));
        done.llm_response = Some("ok".to_owned());
        done.tokens_used = 7;
        done.completed_at = Some(2.0);
        ledger.automation_runs().update(&done).expect("update");
        assert_eq!(ledger.automation_runs().get("r").expect("read"), Some(done));
    }

    #[test]
    fn running_rows_become_interrupted() {
        let (_dir, ledger) = open_temp();
        ledger
            .automations()
            .upsert(&automation("a", 1.0))
            .expect("add");
        ledger
            .automation_runs()
            .insert(&run("r1", "a", 1.0))
            .expect("run");
        ledger
            .automation_runs()
            .insert(&run("r2", "a", 1.0))
            .expect("run");
        let mut done = run("r3", "a", 1.0);
        done.status = RunStatus::Completed;
        ledger.automation_runs().insert(&done).expect("run");
        assert_eq!(
            ledger
                .automation_runs()
                .interrupt(&["r1".to_owned(), "r3".to_owned()], 4.0)
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
            .automation_runs()
            .insert(&run("r4", "a", 1.0))
            .expect("run");
        assert_eq!(
            ledger
                .automation_runs()
                .interrupt_abandoned(5.0)
                .expect("interrupt"),
            1
        );
        let status = |id: &str| {
            ledger
                .automation_runs()
                .get(id)
                .expect("read")
                .expect("present")
        };
        assert_eq!(status("r1").status, RunStatus::Interrupted);
        assert_eq!(status("r1").completed_at, Some(4.0));
        assert_eq!(status("r2").status, RunStatus::Interrupted);
        assert_eq!(status("r2").completed_at, Some(5.0));
        assert_eq!(status("r3").status, RunStatus::Completed);
        // guards: serve's start-up recovery must not mark a run of a live process
        // (`hookrig fire` running in-process) interrupted
        assert_eq!(status("r4").status, RunStatus::Running);
    }

    // guards: an event that was not run must not count as the automation's last run at
    // start-up (it would restart the interval and the cooldown)
    #[test]
    fn dropped_events_are_not_last_runs() {
        let (_dir, ledger) = open_temp();
        ledger
            .automations()
            .upsert(&automation("a", 1.0))
            .expect("add");
        let mut ran = run("r1", "a", 1.0);
        ran.status = RunStatus::Skipped;
        ran.context_results = Some(json!([]));
        ledger.automation_runs().insert(&ran).expect("run");
        let mut dropped = run("r2", "a", 9.0);
        dropped.status = RunStatus::Skipped;
        ledger.automation_runs().insert(&dropped).expect("dropped");
        let last = ledger.automation_runs().last_starts().expect("last");
        assert_eq!(last.get("a"), Some(&1.0));
    }

    // guards: the JSON columns keep the text earlier versions wrote, and a column that is
    // not JSON (edited by something else) is shown rather than lost
    #[test]
    fn json_columns_are_json_text_on_disk_and_values_in_memory() {
        let (_dir, store) = open_temp();
        store
            .automations()
            .upsert(&automation("a", 1.0))
            .expect("add");
        let mut with_data = run("r1", "a", 1.0);
        with_data.event_data = Some(json!({"task_id": "t1", "_event_type": "task.completed"}));
        with_data.context_results = Some(json!([{"stdout": "ok\n", "_step_index": 0}]));
        store.automation_runs().insert(&with_data).expect("run");
        let on_disk: (String, String) = store
            .conn()
            .query_row(
                "SELECT event_data, context_results FROM automation_runs WHERE id = 'r1'",
                [],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .expect("read the text");
        assert_eq!(
            on_disk,
            (
                r#"{"task_id":"t1","_event_type":"task.completed"}"#.to_owned(),
                r#"[{"stdout":"ok\n","_step_index":0}]"#.to_owned()
            )
        );
        assert_eq!(
            store.automation_runs().get("r1").expect("read"),
            Some(with_data)
        );

        let calls = json!([{"name": "read_file", "arguments": {"path": "a"}, "error": "gone", "duration_ms": 1.5}]);
        store
            .automation_runs()
            .set_actions("r1", &calls)
            .expect("tool calls");
        let stored = store
            .automation_runs()
            .get("r1")
            .expect("read")
            .expect("present");
        assert_eq!(stored.actions_taken, Some(calls));
        assert!(matches!(
            store.automation_runs().set_actions("nope", &json!([])),
            Err(StoreError::UnknownRunId { .. })
        ));

        store
            .automation_runs()
            .insert(&run("r2", "a", 2.0))
            .expect("run");
        store
            .conn()
            .execute(
                "UPDATE automation_runs SET event_data = 'not json' WHERE id = 'r2'",
                [],
            )
            .expect("an edited row");
        let edited = store
            .automation_runs()
            .get("r2")
            .expect("read")
            .expect("present");
        assert_eq!(edited.event_data, Some(json!("not json")));
    }

    #[test]
    fn the_status_check_constraint_lists_every_status() {
        let (_dir, store) = open_temp();
        let sql: String = store
            .conn()
            .query_row(
                "SELECT sql FROM work.sqlite_schema WHERE name = 'automation_runs'",
                [],
                |row| row.get(0),
            )
            .expect("the table");
        let listed = RunStatus::ALL
            .iter()
            .map(|status| format!("'{status}'"))
            .collect::<Vec<_>>()
            .join(", ");
        assert!(sql.contains(&format!("status IN ({listed})")), "{sql}");
        for status in RunStatus::ALL {
            assert_eq!(
                serde_json::to_value(status).expect("serializes"),
                serde_json::Value::from(status.as_str())
            );
        }
    }
}
