//! [`Ledger`] on PostgreSQL: `emits` and `hook_runs` of the shared database.
//!
//! Every write goes through the database's `hookrig_ledger_apply` (pg/schema.rs,
//! version 6), one statement for a whole batch: an emit's start, its end with its hook
//! rows, the async hooks' results. The reads are the SQLite ledger's queries in
//! PostgreSQL's words; the emit's `seq` stands for SQLite's rowid.

use std::fmt::Write as _;
use std::path::PathBuf;

use postgres::Row;
use postgres::types::ToSql;
use serde_json::{Value, json};

use crate::column::Named;
use crate::emit_pages::{EmitPage, EmitQuery, EmitRow, TaskEvent};
use crate::emits::{
    EmitDecision, EmitDetail, EmitFilter, EmitRecord, EmitSummary, EmitWrite, HookRun,
};
use crate::errors::StoreError;
use crate::ledger::Ledger;
use crate::owner::{current_owner_on_host, host_name, owner_is_alive};
use crate::pg::PgStore;
use crate::run_store::Engine;

/// The shortest run id prefix [`Ledger::detail`] looks up, as on SQLite.
const MIN_PREFIX_LEN: usize = 4;

/// [`HookRun::shadow_disagrees`] for the hook row `h` of the emit `e`.
const SHADOW_DISAGREES: &str = "
    h.shadow
    AND h.result IN ('allow', 'modify', 'deny', 'ask', 'stop')
    AND e.decision IN ('allow', 'deny', 'ask', 'stop')
    AND (CASE h.result WHEN 'modify' THEN 'allow' ELSE h.result END) <> e.decision";

/// An emit's summary, its row first.
fn summary_select() -> String {
    format!(
        "SELECT e.seq, e.run_id, e.started_at_ms, e.event, e.decision, e.decided_by, e.reason,
                e.duration_ms, e.cwd,
                (SELECT count(*) FROM hook_runs h WHERE h.run_id = e.run_id AND h.matched),
                e.agent,
                (SELECT coalesce(json_agg(h.name ORDER BY h.seq), '[]')::text FROM hook_runs h
                 WHERE h.run_id = e.run_id AND {SHADOW_DISAGREES})
         FROM emits e"
    )
}

const SELECT_EMIT: &str = "
    SELECT run_id, started_at_ms, event, dialect, cwd, session_id, decision, reason,
           decided_by, duration_ms, payload_in, payload_out, warnings, agent, by_engine
    FROM emits
    WHERE run_id = $1";

const SELECT_HOOK_RUNS: &str = "
    SELECT name, source, dialect, matched, skip_reason, result, exit_code,
           duration_ms, reason, stderr, stdout, truncated, is_async, shadow
    FROM hook_runs
    WHERE run_id = $1
    ORDER BY seq";

/// A query's parameters, owned while the query is built.
type Params = Vec<Box<dyn ToSql + Sync>>;

impl Ledger for PgStore {
    fn engine(&self) -> Engine {
        Engine::Postgres
    }

    fn location(&self) -> String {
        self.database().to_owned()
    }

    fn begin(&self, emit: &EmitRecord) -> Result<(), StoreError> {
        self.apply_one(
            &EmitWrite::Begin(emit.clone()),
            "record the start of an emit",
        )
    }

    fn finish(&self, emit: &EmitRecord) -> Result<(), StoreError> {
        self.apply_one(&EmitWrite::Finish(emit.clone()), "record an emit")
    }

    fn record(&self, emit: &EmitRecord) -> Result<(), StoreError> {
        self.apply_one(&EmitWrite::Record(emit.clone()), "record an emit")
    }

    fn apply(&self, writes: &[&EmitWrite]) -> Result<Vec<Result<(), StoreError>>, StoreError> {
        self.apply_writes(writes, "record a batch of ledger writes")
    }

    fn append_hook_runs(&self, run_id: &str, runs: &[HookRun]) -> Result<(), StoreError> {
        let write = json!([{"op": "append", "run_id": run_id, "runs": runs}]);
        let results = self.call_apply(&write, "append hook runs")?;
        answer(results.first().and_then(Option::as_deref), run_id)
    }

    fn complete_hook_runs(&self, run_id: &str, runs: &[HookRun]) -> Result<(), StoreError> {
        self.apply_one(
            &EmitWrite::CompleteHookRuns {
                run_id: run_id.to_owned(),
                runs: runs.to_vec(),
            },
            "complete async hook runs",
        )
    }

    fn interrupt_abandoned(&self) -> Result<usize, StoreError> {
        let suffix = format!("@{}", host_name());
        let running: Vec<(String, String)> =
            self.client().with("mark interrupted emits", |conn| {
                Ok(conn
                    .query(
                        "SELECT run_id, owner FROM emits
                         WHERE decision = 'running' AND right(owner, $2) = $1",
                        &[&suffix, &i32::try_from(suffix.len()).unwrap_or(i32::MAX)],
                    )?
                    .iter()
                    .map(|row| (row.get(0), row.get(1)))
                    .collect())
            })?;
        let dead: Vec<String> = running
            .into_iter()
            .filter(|(_, owner)| !owner_is_alive(owner.strip_suffix(&suffix)))
            .map(|(run_id, _)| run_id)
            .collect();
        if dead.is_empty() {
            return Ok(0);
        }
        let marked = self.client().with("mark interrupted emits", |conn| {
            conn.execute(
                "UPDATE emits SET decision = 'interrupted', owner = NULL,
                     reason = 'hookrig stopped before the emit finished (killed, or the machine went down); its hooks were not recorded'
                 WHERE run_id = ANY($1) AND decision = 'running'",
                &[&dead],
            )
        })?;
        Ok(usize::try_from(marked).unwrap_or(usize::MAX))
    }

    fn recent(&self, filter: &EmitFilter) -> Result<Vec<EmitSummary>, StoreError> {
        let mut sql = summary_select();
        let mut params: Params = Vec::new();
        let mut clauses = Vec::new();
        for (column, value) in [("e.event", &filter.event), ("e.agent", &filter.agent)] {
            if let Some(value) = value {
                params.push(Box::new(value.clone()));
                clauses.push(format!("{column} = ${}", params.len()));
            }
        }
        if filter.shadow {
            clauses.push(format!(
                "EXISTS (SELECT 1 FROM hook_runs h WHERE h.run_id = e.run_id AND {SHADOW_DISAGREES})"
            ));
        }
        push_where(&mut sql, &clauses);
        params.push(Box::new(i64::try_from(filter.limit).unwrap_or(i64::MAX)));
        let _ = write!(
            sql,
            "\n ORDER BY e.started_at_ms DESC, e.seq DESC LIMIT ${}",
            params.len()
        );
        let rows = self.query(&sql, &params, "list recent emits")?;
        rows.iter()
            .map(|row| self.summary(row).map(|row| row.summary))
            .collect()
    }

    fn detail(&self, run_id: &str) -> Result<Option<EmitDetail>, StoreError> {
        if run_id.chars().count() < MIN_PREFIX_LEN {
            // A short text is looked up as a whole id only.
            let exact = self.client().with("look up a run", |conn| {
                conn.query_opt("SELECT 1 FROM emits WHERE run_id = $1", &[&run_id])
            })?;
            if exact.is_none() {
                return Err(StoreError::RunIdTooShort {
                    prefix: run_id.to_owned(),
                    min: MIN_PREFIX_LEN,
                });
            }
        }
        // One snapshot, so that the emit and its hook rows agree even while an async
        // hook's result is written.
        let found = self.client().with("look up a run", |conn| {
            let mut tx = conn
                .build_transaction()
                .isolation_level(postgres::IsolationLevel::RepeatableRead)
                .read_only(true)
                .start()?;
            let ids = tx.query_one(
                "SELECT (SELECT run_id FROM emits WHERE run_id = $1),
                        count(*), min(run_id)
                 FROM emits WHERE starts_with(run_id, $1)",
                &[&run_id],
            )?;
            let exact: Option<String> = ids.get(0);
            let count: i64 = ids.get(1);
            let first: Option<String> = ids.get(2);
            let full = match (exact, count) {
                (Some(exact), _) => exact,
                (None, 0) => return Ok(Lookup::None),
                (None, 1) => first.unwrap_or_default(),
                (None, count) => return Ok(Lookup::Ambiguous(count)),
            };
            let emit = tx.query_one(SELECT_EMIT, &[&full])?;
            let hooks = tx.query(SELECT_HOOK_RUNS, &[&full])?;
            tx.commit()?;
            Ok(Lookup::Found(emit, hooks))
        })?;
        let (emit, hooks) = match found {
            Lookup::None => return Ok(None),
            Lookup::Ambiguous(count) => {
                return Err(StoreError::AmbiguousRunId {
                    prefix: run_id.to_owned(),
                    count: u64::try_from(count).unwrap_or(0),
                });
            }
            Lookup::Found(emit, hooks) => (emit, hooks),
        };
        let mut record = self.emit_from_row(&emit)?;
        record.hooks = hooks
            .iter()
            .map(|row| self.hook_run_from_row(row))
            .collect::<Result<_, _>>()?;
        Ok(Some(EmitDetail { emit: record }))
    }

    fn page(&self, query: &EmitQuery) -> Result<EmitPage, StoreError> {
        let mut params: Params = Vec::new();
        let mut clauses: Vec<String> = Vec::new();
        if let Some(decision) = query.decision {
            // A literal of `EmitDecision`'s own words, never the caller's text, so that
            // the planner can match the partial index of rare decisions.
            clauses.push(format!("e.decision = '{}'", decision.as_str()));
        }
        for (column, value) in [
            ("e.event", &query.event),
            ("e.agent", &query.agent),
            ("e.dialect", &query.dialect),
        ] {
            if let Some(value) = value {
                params.push(Box::new(value.clone()));
                clauses.push(format!("{column} = ${}", params.len()));
            }
        }
        if let Some(since) = query.since_ms {
            params.push(Box::new(since));
            clauses.push(format!("e.started_at_ms >= ${}", params.len()));
        }
        if let Some(until) = query.until_ms {
            params.push(Box::new(until));
            clauses.push(format!("e.started_at_ms < ${}", params.len()));
        }
        if let Some(hook) = &query.hook {
            params.push(Box::new(hook.clone()));
            clauses.push(format!(
                "EXISTS (SELECT 1 FROM hook_runs h WHERE h.run_id = e.run_id AND h.name = ${} AND h.matched)",
                params.len()
            ));
        }
        if let Some(cursor) = query.before {
            params.push(Box::new(cursor.started_at_ms));
            params.push(Box::new(cursor.row));
            clauses.push(format!(
                "(e.started_at_ms, e.seq) < (${}, ${})",
                params.len() - 1,
                params.len()
            ));
        }
        let mut sql = summary_select();
        push_where(&mut sql, &clauses);
        // One more than the page, to know whether another page follows.
        params.push(Box::new(
            i64::try_from(query.limit.saturating_add(1)).unwrap_or(i64::MAX),
        ));
        let _ = write!(
            sql,
            "\n ORDER BY e.started_at_ms DESC, e.seq DESC LIMIT ${}",
            params.len()
        );
        let rows = self
            .query(&sql, &params, "list a page of emits")?
            .iter()
            .map(|row| self.summary(row))
            .collect::<Result<Vec<_>, _>>()?;
        // One query, whatever the filters: the windows of the SQLite ledger's page
        // (`Emits::page`) are not built here.
        Ok(EmitPage::of_rows(rows, query.limit))
    }

    fn since(&self, after: i64, rows: &[i64], limit: usize) -> Result<Vec<EmitRow>, StoreError> {
        let sql = format!(
            "{}\n WHERE e.seq > $1 OR e.seq = ANY($2)\n ORDER BY e.seq LIMIT $3",
            summary_select()
        );
        let params: Params = vec![
            Box::new(after),
            Box::new(rows.to_vec()),
            Box::new(i64::try_from(limit).unwrap_or(i64::MAX)),
        ];
        self.query(&sql, &params, "read the emits written since")?
            .iter()
            .map(|row| self.summary(row))
            .collect()
    }

    fn task_history(
        &self,
        plan: &str,
        task: Option<&str>,
        limit: usize,
    ) -> Result<Vec<TaskEvent>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = self.client().with("read a plan's task history", |conn| {
            conn.query(
                "SELECT started_at_ms, event, payload->>'task', agent, run_id
                 FROM (SELECT *, hookrig_jsonb(payload_in) AS payload FROM emits
                       WHERE event >= 'task.' AND event < 'task/') e
                 WHERE jsonb_typeof(payload) = 'object'
                   AND payload->>'plan' = $1
                   AND ($2::text IS NULL OR payload->>'task' = $2)
                 ORDER BY started_at_ms DESC, seq DESC
                 LIMIT $3",
                &[&plan, &task, &limit],
            )
        })?;
        Ok(rows
            .iter()
            .map(|row| TaskEvent {
                at_ms: row.get(0),
                event: row.get(1),
                task: row.get::<_, Option<String>>(2).unwrap_or_default(),
                agent: row.get(3),
                run_id: row.get(4),
            })
            .collect())
    }

    fn last_row(&self) -> Result<i64, StoreError> {
        self.client().with("read the last emit", |conn| {
            Ok(conn
                .query_one("SELECT coalesce(max(seq), 0) FROM emits", &[])?
                .get(0))
        })
    }
}

/// What a run id designates, read in one snapshot.
enum Lookup {
    None,
    Ambiguous(i64),
    Found(Row, Vec<Row>),
}

/// Appends `clauses` to `sql` as its WHERE clause.
fn push_where(sql: &mut String, clauses: &[String]) {
    for (i, clause) in clauses.iter().enumerate() {
        let keyword = if i == 0 { "WHERE" } else { "AND" };
        let _ = write!(sql, "\n {keyword} {clause}");
    }
}

/// A write's answer from `hookrig_ledger_apply`: applied, or why not.
fn answer(refused: Option<&str>, run_id: &str) -> Result<(), StoreError> {
    match refused {
        None => Ok(()),
        Some("duplicate") => Err(StoreError::DuplicateRunId {
            run_id: run_id.to_owned(),
        }),
        Some(_) => Err(StoreError::UnknownRunId {
            run_id: run_id.to_owned(),
        }),
    }
}

/// `write` as `hookrig_ledger_apply` reads it; `owner` names the process that begins an
/// emit.
fn write_json(write: &EmitWrite, owner: &str) -> Value {
    let mut value = match write {
        EmitWrite::Begin(emit) => json!({"op": "begin", "emit": emit, "owner": owner}),
        EmitWrite::Finish(emit) => json!({"op": "finish", "emit": emit}),
        EmitWrite::Record(emit) => json!({"op": "record", "emit": emit}),
        EmitWrite::CompleteHookRuns { run_id, runs } => {
            json!({"op": "complete", "run_id": run_id, "runs": runs})
        }
    };
    replace_nul(&mut value);
    value
}

/// Replaces every NUL character in the strings of `value` with U+FFFD. PostgreSQL's text
/// (and its JSON) cannot hold NUL, and one hook that printed a NUL byte must not cost its
/// batch, every emit of which would go unrecorded: its excerpt is kept, marked.
fn replace_nul(value: &mut Value) {
    match value {
        Value::String(text) if text.contains('\0') => *text = text.replace('\0', "\u{FFFD}"),
        Value::Array(items) => items.iter_mut().for_each(replace_nul),
        Value::Object(fields) => fields.values_mut().for_each(replace_nul),
        _ => {}
    }
}

impl PgStore {
    /// One write, in a statement of its own.
    fn apply_one(&self, write: &EmitWrite, action: &'static str) -> Result<(), StoreError> {
        let mut results = self.apply_writes(&[write], action)?;
        results.pop().unwrap_or(Ok(()))
    }

    /// `writes` in one call of `hookrig_ledger_apply`: one round trip, one transaction.
    fn apply_writes(
        &self,
        writes: &[&EmitWrite],
        action: &'static str,
    ) -> Result<Vec<Result<(), StoreError>>, StoreError> {
        let owner = current_owner_on_host();
        let batch = Value::Array(
            writes
                .iter()
                .map(|write| write_json(write, &owner))
                .collect(),
        );
        let results = self.call_apply(&batch, action)?;
        Ok(writes
            .iter()
            .zip(results.into_iter().chain(std::iter::repeat(None)))
            .map(|(write, refused)| answer(refused.as_deref(), write.run_id()))
            .collect())
    }

    fn call_apply(
        &self,
        batch: &Value,
        action: &'static str,
    ) -> Result<Vec<Option<String>>, StoreError> {
        let text = batch.to_string();
        self.client().with(action, |conn| {
            // Typed, so that the statement goes with its parameter in one round trip
            // (an untyped one is prepared first, in a round trip of its own).
            Ok(conn
                .query_typed_one(
                    "SELECT hookrig_ledger_apply($1)",
                    &[(&text, postgres::types::Type::TEXT)],
                )?
                .get(0))
        })
    }

    fn query(
        &self,
        sql: &str,
        params: &Params,
        action: &'static str,
    ) -> Result<Vec<Row>, StoreError> {
        let refs: Vec<&(dyn ToSql + Sync)> = params.iter().map(AsRef::as_ref).collect();
        self.client().with(action, |conn| conn.query(sql, &refs))
    }

    /// The value of the named column `column` at `index` of `row`.
    fn named<T: Named>(&self, row: &Row, index: usize, column: &str) -> Result<T, StoreError> {
        let text: String = row.get(index);
        T::from_name(&text).ok_or_else(|| StoreError::UnknownValue {
            path: PathBuf::from(self.database()),
            column: column.to_owned(),
            kind: T::KIND,
            value: text,
        })
    }

    /// A row of [`summary_select`].
    fn summary(&self, row: &Row) -> Result<EmitRow, StoreError> {
        let run_id: String = row.get(1);
        let disagreed: String = row.get(11);
        let shadow_disagreed =
            serde_json::from_str(&disagreed).map_err(|source| StoreError::CorruptColumn {
                run_id: run_id.clone(),
                column: "hook_runs.name",
                source,
            })?;
        Ok(EmitRow {
            row: row.get(0),
            summary: EmitSummary {
                run_id,
                started_at_ms: row.get(2),
                event: row.get(3),
                decision: self.named::<EmitDecision>(row, 4, "decision")?,
                decided_by: row.get(5),
                reason: row.get(6),
                duration_ms: row.get(7),
                cwd: row.get(8),
                hooks_run: u32::try_from(row.get::<_, i64>(9)).unwrap_or(u32::MAX),
                agent: row.get(10),
                shadow_disagreed,
            },
        })
    }

    /// A row of [`SELECT_EMIT`], its warnings decoded.
    fn emit_from_row(&self, row: &Row) -> Result<EmitRecord, StoreError> {
        let run_id: String = row.get(0);
        let warnings: String = row.get(12);
        let warnings =
            serde_json::from_str(&warnings).map_err(|source| StoreError::CorruptColumn {
                run_id: run_id.clone(),
                column: "warnings",
                source,
            })?;
        Ok(EmitRecord {
            run_id,
            started_at_ms: row.get(1),
            event: row.get(2),
            dialect: self.named(row, 3, "dialect")?,
            cwd: row.get(4),
            session_id: row.get(5),
            agent: row.get(13),
            decision: self.named(row, 6, "decision")?,
            reason: row.get(7),
            decided_by: row.get(8),
            duration_ms: row.get(9),
            payload_in: row.get(10),
            payload_out: row.get(11),
            warnings,
            hooks: Vec::new(),
            by_engine: row.get(14),
        })
    }

    /// A row of [`SELECT_HOOK_RUNS`].
    fn hook_run_from_row(&self, row: &Row) -> Result<HookRun, StoreError> {
        Ok(HookRun {
            name: row.get(0),
            source: row.get(1),
            dialect: self.named(row, 2, "dialect")?,
            matched: row.get(3),
            skip_reason: row.get(4),
            result: self.named(row, 5, "result")?,
            exit_code: row.get(6),
            duration_ms: row.get(7),
            reason: row.get(8),
            stderr: row.get(9),
            stdout: row.get(10),
            truncated: row.get(11),
            is_async: row.get(12),
            shadow: row.get(13),
        })
    }
}
