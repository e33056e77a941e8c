//! The ledger of emits: one row per `hookrig emit` in `emits`, one row per hook
//! considered for it in `hook_runs`, written through [`Emits`].
//!
//! An emit writes its row when it starts ([`Emits::begin`]) and completes it when it
//! ends ([`Emits::finish`]), so that one killed in between leaves a row that a later
//! reader marks `interrupted` ([`Emits::interrupt_abandoned`]). Async hooks that finish
//! later complete their rows with [`Emits::complete_hook_runs`].

use std::fmt;
use std::fmt::Write as _;

use hookrig_core::{Decision, Dialect, HookResult};
use rusqlite::types::{FromSql, FromSqlResult, ToSql, ToSqlOutput, Type, ValueRef};
use rusqlite::{Connection, OptionalExtension, Row, Transaction, params, params_from_iter};
use serde::{Deserialize, Serialize};

use crate::column::{self, Named, Text};
use crate::errors::StoreError;
use crate::store::{Store, immediate, is_primary_key_violation};

/// What an emit's row says was decided: the dispatcher's [`Decision`], or where the
/// emit stands without one. The names are those of the `decision` column and of
/// `--json` output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EmitDecision {
    /// The hooks let the event proceed (maybe modified).
    Allow,
    /// A hook denied the event.
    Deny,
    /// A hook asked for the user's confirmation.
    Ask,
    /// A hook stopped the agent (`reason` and `decided_by` are the stop's); a stop wins
    /// over every decision.
    Stop,
    /// The event was not dispatched: its configuration could not be loaded.
    Error,
    /// The emit started and has not finished (or its process died, which a reader
    /// turns into [`EmitDecision::Interrupted`]).
    Running,
    /// The process of the emit died before it finished; its hooks were not recorded.
    Interrupted,
}

impl EmitDecision {
    /// Every decision an emit's row can hold.
    pub const ALL: [EmitDecision; 7] = [
        EmitDecision::Allow,
        EmitDecision::Deny,
        EmitDecision::Ask,
        EmitDecision::Stop,
        EmitDecision::Error,
        EmitDecision::Running,
        EmitDecision::Interrupted,
    ];

    /// The lowercase name the column and `--json` hold.
    pub const fn as_str(self) -> &'static str {
        match self {
            EmitDecision::Allow => "allow",
            EmitDecision::Deny => "deny",
            EmitDecision::Ask => "ask",
            EmitDecision::Stop => "stop",
            EmitDecision::Error => "error",
            EmitDecision::Running => "running",
            EmitDecision::Interrupted => "interrupted",
        }
    }
}

impl From<Decision> for EmitDecision {
    fn from(decision: Decision) -> Self {
        match decision {
            Decision::Allow => EmitDecision::Allow,
            Decision::Deny => EmitDecision::Deny,
            Decision::Ask => EmitDecision::Ask,
        }
    }
}

impl fmt::Display for EmitDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `pad`, so that table columns (`{:8}`) line up.
        f.pad(self.as_str())
    }
}

impl Named for EmitDecision {
    const KIND: &'static str = "decision";
    const ALL: &'static [Self] = &EmitDecision::ALL;

    fn name(self) -> &'static str {
        self.as_str()
    }
}

impl ToSql for EmitDecision {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(column::to_sql(*self))
    }
}

impl FromSql for EmitDecision {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        column::from_sql(value)
    }
}

/// One `hookrig emit`: the event that came in, what was decided, and every
/// hook that was considered for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmitRecord {
    /// Unique id of this emit (a UUID v7 in practice, but any unique string works).
    pub run_id: String,
    /// When the emit started, in milliseconds since the Unix epoch.
    pub started_at_ms: i64,
    /// Canonical name of the event (for example `PreToolUse`).
    pub event: String,
    /// Dialect of the agent that emitted the event (for example `claude`).
    pub dialect: Dialect,
    /// Working directory of the emit.
    pub cwd: String,
    /// Session id reported by the agent.
    pub session_id: String,
    /// The agent that emitted (`hookrig emit --agent`, `HOOKRIG_AGENT` or the
    /// payload's `session.agent`), when one was named.
    #[serde(default)]
    pub agent: Option<String>,
    /// Final decision, or where the emit stands without one.
    pub decision: EmitDecision,
    /// Why the decision was taken, when a hook or policy said so.
    pub reason: Option<String>,
    /// Name of the hook whose answer decided, if one did.
    pub decided_by: Option<String>,
    /// Wall-clock duration of the whole emit, in milliseconds.
    pub duration_ms: f64,
    /// Payload received from the agent, as JSON text.
    pub payload_in: String,
    /// Payload answered to the agent, as JSON text.
    pub payload_out: String,
    /// Warnings raised while handling the emit (config warnings, bad hook output, ...).
    pub warnings: Vec<String>,
    /// Every hook considered for this emit, in the order it was considered.
    pub hooks: Vec<HookRun>,
    /// Whether a resident engine answered it (for the `hookrig emit` the host started)
    /// rather than that `hookrig emit` itself.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_engine: bool,
}

/// One hook considered for an emit: run, skipped, or failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "each is a 0/1 column of hook_runs, read and written as it is"
)]
pub struct HookRun {
    /// Name of the hook.
    pub name: String,
    /// Path of the file that declared the hook.
    pub source: String,
    /// Dialect the hook speaks.
    pub dialect: Dialect,
    /// Whether the hook matched the event.
    pub matched: bool,
    /// Why the hook was not run, for example `other event`,
    /// `matcher did not match "tool"`, `disabled` or `chain stopped by guard`.
    pub skip_reason: Option<String>,
    /// What came of it (`dispatched` for an async hook whose result comes later).
    pub result: HookResult,
    /// Exit code of the hook process, if it ran and exited normally.
    pub exit_code: Option<i32>,
    /// How long the hook ran, in milliseconds, if it ran.
    pub duration_ms: Option<f64>,
    /// Reason the hook gave for its answer.
    pub reason: Option<String>,
    /// Excerpt of the hook's standard error.
    pub stderr: Option<String>,
    /// Excerpt of the hook's standard output.
    pub stdout: Option<String>,
    /// Whether `stdout` or `stderr` was cut to fit the excerpt size.
    pub truncated: bool,
    /// Whether the hook ran asynchronously (its row may be appended after the emit).
    pub is_async: bool,
    /// Whether it was a shadow hook: `result` and `reason` are what it would have
    /// decided, and nothing of it reached the event.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shadow: bool,
}

impl EmitRecord {
    /// An emit of `event` that started at `started_at_ms` and is `running`: no
    /// directory, session, agent or hooks, an empty object for its payload. The record
    /// an embedder or a bench starts from, setting what it knows with
    /// `EmitRecord { cwd, ..EmitRecord::running(...) }`.
    pub fn running(
        run_id: impl Into<String>,
        started_at_ms: i64,
        event: impl Into<String>,
        dialect: Dialect,
    ) -> EmitRecord {
        EmitRecord {
            run_id: run_id.into(),
            started_at_ms,
            event: event.into(),
            dialect,
            cwd: String::new(),
            session_id: String::new(),
            agent: None,
            decision: EmitDecision::Running,
            reason: None,
            decided_by: None,
            duration_ms: 0.0,
            payload_in: "{}".to_owned(),
            payload_out: String::new(),
            warnings: Vec::new(),
            hooks: Vec::new(),
            by_engine: false,
        }
    }
}

impl HookRun {
    /// A hook declared in `source` that matched, ran, exited 0 and allowed, with
    /// nothing on its output: the commonest row. Set the rest with
    /// `HookRun { duration_ms, ..HookRun::allowing(...) }`.
    pub fn allowing(
        name: impl Into<String>,
        source: impl Into<String>,
        dialect: Dialect,
    ) -> HookRun {
        HookRun {
            name: name.into(),
            source: source.into(),
            dialect,
            matched: true,
            skip_reason: None,
            result: HookResult::Allow,
            exit_code: Some(0),
            duration_ms: None,
            reason: None,
            stderr: None,
            stdout: None,
            truncated: false,
            is_async: false,
            shadow: false,
        }
    }

    /// What this hook's answer, on its own, would have made of the emit: `deny`, `ask`,
    /// `stop`, or `allow` for an allow or a modify; `None` when it gave no answer (it
    /// failed, timed out, or did not run). `hookrig runs --shadow` asks the same in SQL.
    pub fn would_decide(&self) -> Option<EmitDecision> {
        match self.result {
            HookResult::Allow | HookResult::Modify => Some(EmitDecision::Allow),
            HookResult::Deny => Some(EmitDecision::Deny),
            HookResult::Ask => Some(EmitDecision::Ask),
            HookResult::Stop => Some(EmitDecision::Stop),
            HookResult::Error
            | HookResult::Timeout
            | HookResult::Skipped
            | HookResult::Untrusted
            | HookResult::Dispatched => None,
        }
    }

    /// Whether this is a shadow hook whose answer disagreed with `decision`, the emit's:
    /// it answered, the emit was decided, and the two differ. A shadow allow of an emit
    /// another hook denied disagrees as much as a shadow deny of an allowed one.
    pub fn shadow_disagrees(&self, decision: EmitDecision) -> bool {
        let decided = matches!(
            decision,
            EmitDecision::Allow | EmitDecision::Deny | EmitDecision::Ask | EmitDecision::Stop
        );
        self.shadow && decided && self.would_decide().is_some_and(|would| would != decision)
    }
}

/// [`HookRun::shadow_disagrees`] in SQL, for the hook row `h` of the emit `e`.
pub(crate) const SHADOW_DISAGREES: &str = "
    h.shadow = 1
    AND h.result IN ('allow', 'modify', 'deny', 'ask', 'stop')
    AND e.decision IN ('allow', 'deny', 'ask', 'stop')
    AND (CASE h.result WHEN 'modify' THEN 'allow' ELSE h.result END) <> e.decision";

/// Which emits [`Emits::recent`] returns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmitFilter {
    /// Maximum number of emits returned. `0` returns none; pass `usize::MAX`
    /// for all of them.
    pub limit: usize,
    /// Only emits of this event (exact canonical name), or all events when `None`.
    pub event: Option<String>,
    /// Only emits of this agent (exact name), or those of any agent or none when `None`.
    #[serde(default)]
    pub agent: Option<String>,
    /// Only emits where a shadow hook's answer disagreed with the emit's decision
    /// ([`HookRun::shadow_disagrees`]).
    #[serde(default)]
    pub shadow: bool,
}

impl EmitFilter {
    /// The limit of [`EmitFilter::default`]: what fits on a screen.
    pub const DEFAULT_LIMIT: usize = 20;
}

impl Default for EmitFilter {
    fn default() -> Self {
        Self {
            limit: Self::DEFAULT_LIMIT,
            event: None,
            agent: None,
            shadow: false,
        }
    }
}

/// One line of `hookrig runs`: an emit without its payloads and hook rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmitSummary {
    /// Unique id of the emit.
    pub run_id: String,
    /// When the emit started, in milliseconds since the Unix epoch.
    pub started_at_ms: i64,
    /// Canonical name of the event.
    pub event: String,
    /// The agent that emitted, when one was named.
    #[serde(default)]
    pub agent: Option<String>,
    /// Final decision, or where the emit stands without one.
    pub decision: EmitDecision,
    /// Name of the hook whose answer decided, if one did.
    pub decided_by: Option<String>,
    /// Why the decision was taken, if known.
    pub reason: Option<String>,
    /// Wall-clock duration of the whole emit, in milliseconds.
    pub duration_ms: f64,
    /// Number of hooks that matched the event (hook rows with `matched = true`),
    /// including asynchronous hooks appended later.
    pub hooks_run: u32,
    /// Working directory of the emit.
    pub cwd: String,
    /// The shadow hooks whose answer disagreed with the decision, in the order they ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shadow_disagreed: Vec<String>,
}

/// What `hookrig why RUN_ID` shows: a whole emit.
///
/// A wrapper rather than a bare [`EmitRecord`] so that facts only known when
/// reading back (none yet) can be added without changing
/// [`EmitRecord`], which is also the type written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmitDetail {
    /// The emit, with [`EmitRecord::hooks`] holding every hook row in `seq`
    /// order: first those recorded with the emit, then appended ones.
    pub emit: EmitRecord,
}

/// The shortest run id prefix [`Emits::detail`] looks up: shorter ones
/// would match most of a busy ledger.
const MIN_PREFIX_LEN: usize = 4;

const INSERT_EMIT: &str = "
    INSERT INTO emits (
        run_id, started_at_ms, event, dialect, cwd, session_id, decision, reason,
        decided_by, duration_ms, payload_in, payload_out, warnings, agent, by_engine
    ) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)";

const INSERT_HOOK_RUN: &str = "
    INSERT INTO hook_runs (
        run_id, seq, name, source, dialect, matched, skip_reason, result,
        exit_code, duration_ms, reason, stderr, stdout, truncated, is_async, shadow
    ) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)";

/// Fills in the row of an async hook that was recorded as `dispatched` (`?16`) when its
/// emit was; the first such row of that hook, so two hooks of one name each get their
/// own.
const COMPLETE_HOOK_RUN: &str = "
    UPDATE hook_runs SET
        dialect = ?4, matched = ?5, skip_reason = ?6, result = ?7, exit_code = ?8,
        duration_ms = ?9, reason = ?10, stderr = ?11, stdout = ?12, truncated = ?13,
        is_async = ?14, shadow = ?15
    WHERE run_id = ?1 AND seq = (
        SELECT min(seq) FROM hook_runs
        WHERE run_id = ?1 AND name = ?2 AND source = ?3 AND result = ?16
    )";

/// The row of an emit that started: `running` (`?10`), owned by this process, no result
/// yet.
const BEGIN_EMIT: &str = "
    INSERT INTO emits (
        run_id, started_at_ms, event, dialect, cwd, session_id, decision, duration_ms,
        payload_in, payload_out, agent, owner, by_engine
    ) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?10, 0, ?7, '', ?8, ?9, ?11)";

/// Completes the row `begin` wrote, unless a reader already marked it interrupted (its
/// owner looked dead): its outcome, then `running` and `interrupted`. What `begin` wrote
/// of the emit (its time, event, dialect, agent, directory, session, payload) stays: it
/// is the same record, and leaving those columns out of the SET leaves the indexes on
/// them alone, which are then written once per emit instead of twice.
const FINISH_EMIT: &str = "
    UPDATE emits SET
        decision = ?2, reason = ?3, decided_by = ?4, duration_ms = ?5, payload_out = ?6,
        warnings = ?7, owner = NULL, by_engine = ?10
    WHERE run_id = ?1 AND decision IN (?8, ?9)";

/// Emits still `running`, with their owners. The name is written out rather than bound:
/// SQLite uses the partial index `emits_running` only for a query whose WHERE clause
/// holds its condition as written (a test checks that it names
/// [`EmitDecision::Running`]).
const RUNNING_EMITS: &str = "SELECT run_id, owner FROM emits WHERE decision = 'running'";

/// What an emit whose process died before it finished says: `?2` is `interrupted`, `?3`
/// is `running`.
const INTERRUPTED_EMIT: &str = "
    UPDATE emits SET decision = ?2, owner = NULL,
        reason = 'hookrig stopped before the emit finished (killed, or the machine went down); its hooks were not recorded'
    WHERE run_id = ?1 AND decision = ?3";

/// No row when the emit is unknown; otherwise the `seq` its next hook row gets.
const NEXT_SEQ: &str = "
    SELECT coalesce((SELECT max(seq) + 1 FROM hook_runs h WHERE h.run_id = e.run_id), 0)
    FROM emits e
    WHERE e.run_id = ?1";

// The WHERE clause is built from the filters that are set rather than written once as
// `(?2 IS NULL OR event = ?2)`: the OR keeps SQLite from using the (event,
// started_at_ms) and (agent, started_at_ms) indexes for the filtered cases. Eight texts
// at most (with and without `--shadow`), each prepared once and cached by the connection.
pub(crate) const RECENT_EMITS_SELECT: &str = "
    SELECT e.run_id, e.started_at_ms, e.event, e.decision, e.decided_by, e.reason,
           e.duration_ms, e.cwd,
           (SELECT count(*) FROM hook_runs h WHERE h.run_id = e.run_id AND h.matched = 1),
           e.agent,
           (SELECT json_group_array(h.name) FROM hook_runs h
            WHERE h.run_id = e.run_id AND {SHADOW_DISAGREES})
    FROM emits e";

const RECENT_EMITS_ORDER: &str = "
    ORDER BY e.started_at_ms DESC, e.rowid DESC
    LIMIT ?1";

const EXACT_RUN_ID: &str = "SELECT run_id FROM emits WHERE run_id = ?1";

// A range on the primary key rather than LIKE or GLOB: those treat `%`, `_`,
// `*` or `?` in the prefix as wildcards, and LIKE ignores case. Text compares
// bytewise here and no UTF-8 text contains the byte 0xFF, so every id that
// starts with the prefix sorts before `prefix || x'ff'`, and nothing else does.
const RUN_IDS_WITH_PREFIX: &str = "
    SELECT count(*), min(run_id)
    FROM emits
    WHERE run_id >= ?1 AND run_id < ?1 || x'ff'";

const SELECT_EMIT: &str = "
    SELECT run_id, started_at_ms, event, dialect, cwd, session_id, decision, reason,
           decided_by, duration_ms, payload_in, payload_out, warnings, agent, by_engine
    FROM emits
    WHERE run_id = ?1";

const SELECT_HOOK_RUNS: &str = "
    SELECT name, source, dialect, matched, skip_reason, result, exit_code,
           duration_ms, reason, stderr, stdout, truncated, is_async, shadow
    FROM hook_runs
    WHERE run_id = ?1
    ORDER BY seq";

/// The `emits` and `hook_runs` tables of a [`Store`].
#[derive(Debug, Clone, Copy)]
pub struct Emits<'s> {
    pub(crate) store: &'s Store,
}

impl<'s> Emits<'s> {
    pub(crate) fn new(store: &'s Store) -> Self {
        Self { store }
    }

    /// Records that `emit` started: its row with decision `running`, owned by this
    /// process, and no hook rows. [`finish`](Self::finish) completes it; if
    /// this process dies first, [`interrupt_abandoned`](Self::interrupt_abandoned)
    /// marks it `interrupted`.
    pub fn begin(&self, emit: &EmitRecord) -> Result<(), StoreError> {
        // One statement: SQLite's own implicit transaction is enough.
        begin_in(
            self.store.conn(),
            emit,
            self.store.fail("record the start of an emit"),
        )
    }

    /// Records `emit` and its hook rows, completing the row [`begin`](Self::begin)
    /// wrote, or writing it whole when there is none (the start could not be recorded).
    /// Completing takes the outcome (decision, reason, payload out, warnings, duration)
    /// from `emit`: the rest is the row as begun, from the same record.
    pub fn finish(&self, emit: &EmitRecord) -> Result<(), StoreError> {
        let fail = self.store.fail("record an emit");
        let tx = immediate(self.store.conn()).map_err(fail)?;
        finish_in(&tx, emit, fail)?;
        tx.commit().map_err(fail)?;
        self.store.fold_wal();
        Ok(())
    }

    /// Applies `writes` in order, in one transaction: a resident engine's ledger writer
    /// takes every write waiting and pays for one commit (and one wait for SQLite's
    /// write lock) instead of one per write.
    ///
    /// Each write runs in a savepoint of its own, so that one that fails (a run id
    /// recorded twice, an unknown run id) is undone alone and reported in its place of
    /// the returned list, while the others are committed. `Err` when the transaction
    /// could not be started or committed: then nothing of the batch was written.
    pub fn apply<'w>(
        &self,
        writes: impl IntoIterator<Item = &'w EmitWrite>,
    ) -> Result<Vec<Result<(), StoreError>>, StoreError> {
        let fail = self.store.fail("record a batch of ledger writes");
        let mut tx = immediate(self.store.conn()).map_err(fail)?;
        let mut results = Vec::new();
        for write in writes {
            let savepoint = tx.savepoint().map_err(fail)?;
            let result = write.apply_in(&savepoint, self.store.path());
            if result.is_ok() {
                savepoint.commit().map_err(fail)?;
            }
            // A failed write's savepoint rolls back when dropped.
            results.push(result);
        }
        tx.commit().map_err(fail)?;
        self.store.fold_wal();
        Ok(results)
    }

    /// Marks `interrupted` every emit left `running` by a process that no longer runs
    /// (SIGKILL, a crash); returns how many. Emits in progress are left alone.
    pub fn interrupt_abandoned(&self) -> Result<usize, StoreError> {
        let fail = self.store.fail("mark interrupted emits");
        let running: Vec<(String, Option<String>)> = self
            .store
            .conn()
            .prepare_cached(RUNNING_EMITS)
            .and_then(|mut select| {
                select
                    .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
                    .collect()
            })
            .map_err(fail)?;
        let mut count = 0;
        for (run_id, owner) in running {
            if !crate::owner::owner_is_alive(owner.as_deref()) {
                count += self
                    .store
                    .conn()
                    .execute(
                        INTERRUPTED_EMIT,
                        params![run_id, EmitDecision::Interrupted, EmitDecision::Running],
                    )
                    .map_err(fail)?;
            }
        }
        Ok(count)
    }

    /// Records `emit` and all its hook rows in one transaction; the hook rows
    /// get `seq` 0, 1, ... in the order of [`EmitRecord::hooks`].
    ///
    /// Statements are prepared once per connection and cached, because an emit
    /// may carry 200 or more hook rows and this runs on every `hookrig emit`.
    /// A run id that is already recorded is [`StoreError::DuplicateRunId`].
    pub fn record(&self, emit: &EmitRecord) -> Result<(), StoreError> {
        let fail = self.store.fail("record an emit");
        let tx = immediate(self.store.conn()).map_err(fail)?;
        record_in(&tx, emit, fail)?;
        tx.commit().map_err(fail)?;
        self.store.fold_wal();
        Ok(())
    }

    /// Appends hook rows to an already recorded emit, for asynchronous hooks
    /// that finish after the emit was recorded. Their `seq` continues after
    /// the emit's existing rows. An unknown `run_id` is
    /// [`StoreError::UnknownRunId`], even when `runs` is empty.
    pub fn append_hook_runs(&self, run_id: &str, runs: &[HookRun]) -> Result<(), StoreError> {
        let fail = self.store.fail("append hook runs");
        let (tx, next_seq) = begin_appending(self.store.conn(), run_id, fail)?;
        insert_hook_runs(&tx, run_id, next_seq, runs).map_err(fail)?;
        tx.commit().map_err(fail)
    }

    /// Records the results of async hooks that finished after their emit was recorded.
    ///
    /// Each run replaces the hook's `dispatched` row (matched by name and source), so an
    /// async hook has one row that ends up telling what it did; a run with no such row
    /// is appended. Error if `run_id` is unknown.
    pub fn complete_hook_runs(&self, run_id: &str, runs: &[HookRun]) -> Result<(), StoreError> {
        let fail = self.store.fail("complete async hook runs");
        let tx = immediate(self.store.conn()).map_err(fail)?;
        complete_in(&tx, run_id, runs, fail)?;
        tx.commit().map_err(fail)
    }

    /// The most recent emits, newest first (by `started_at_ms`, then by
    /// insertion order), at most `filter.limit` of them, only of
    /// `filter.event` and `filter.agent` when they are set, and only those where a
    /// shadow hook disagreed with `filter.shadow`.
    pub fn recent(&self, filter: &EmitFilter) -> Result<Vec<EmitSummary>, StoreError> {
        let fail = self.store.fail("list recent emits");
        // SQLite takes a signed limit; anything beyond i64::MAX means "all" anyway.
        let limit = i64::try_from(filter.limit).unwrap_or(i64::MAX);
        let mut sql = RECENT_EMITS_SELECT.replace("{SHADOW_DISAGREES}", SHADOW_DISAGREES);
        let mut values: Vec<&dyn rusqlite::ToSql> = vec![&limit];
        let mut keyword = "WHERE";
        for (column, value) in [("event", &filter.event), ("agent", &filter.agent)] {
            if let Some(value) = value {
                values.push(value);
                let _ = write!(sql, "\n    {keyword} e.{column} = ?{}", values.len());
                keyword = "AND";
            }
        }
        if filter.shadow {
            let _ = write!(
                sql,
                "\n    {keyword} EXISTS (SELECT 1 FROM hook_runs h WHERE h.run_id = e.run_id AND {SHADOW_DISAGREES})"
            );
        }
        sql.push_str(RECENT_EMITS_ORDER);
        self.store
            .conn()
            .prepare_cached(&sql)
            .and_then(|mut stmt| {
                stmt.query_map(values.as_slice(), summary_from_row)?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(fail)
    }

    /// The emit `run_id` with all its hook rows in `seq` order, or `None` when
    /// no emit matches.
    ///
    /// `run_id` is a full run id or a prefix of one, of at least 4 characters
    /// (shorter is [`StoreError::RunIdTooShort`] unless it is a full id). An
    /// exact match wins over longer ids it is a prefix of; a prefix matching
    /// several runs is [`StoreError::AmbiguousRunId`]. Matching is exact and
    /// case-sensitive: callers accepting typed ids should normalize case first.
    pub fn detail(&self, run_id: &str) -> Result<Option<EmitDetail>, StoreError> {
        let fail = self.store.fail("look up a run");
        // One read transaction, so that the emit row and its hook rows come
        // from the same snapshot even while an async hook appends rows.
        let tx = self.store.conn().unchecked_transaction().map_err(fail)?;
        let Some(full_id) = resolve_run_id(&tx, run_id).map_err(|error| match error {
            Resolve::Sqlite(source) => fail(source),
            Resolve::Store(error) => error,
        })?
        else {
            return Ok(None);
        };
        let (mut emit, warnings) = tx
            .prepare_cached(SELECT_EMIT)
            .and_then(|mut stmt| stmt.query_row([&full_id], emit_from_row))
            .map_err(fail)?;
        emit.warnings =
            serde_json::from_str(&warnings).map_err(|source| StoreError::CorruptColumn {
                run_id: full_id.clone(),
                column: "warnings",
                source,
            })?;
        emit.hooks = tx
            .prepare_cached(SELECT_HOOK_RUNS)
            .and_then(|mut stmt| {
                stmt.query_map([&full_id], hook_run_from_row)?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(fail)?;
        tx.commit().map_err(fail)?;
        Ok(Some(EmitDetail { emit }))
    }
}

/// Why a run id could not be resolved: SQLite failed, or the answer is an error
/// in itself (ambiguous or too short).
enum Resolve {
    Sqlite(rusqlite::Error),
    Store(StoreError),
}

impl From<rusqlite::Error> for Resolve {
    fn from(error: rusqlite::Error) -> Self {
        Resolve::Sqlite(error)
    }
}

/// The full run id `wanted` designates, if any: itself when it is recorded,
/// else the one recorded id it is a prefix of.
fn resolve_run_id(conn: &Connection, wanted: &str) -> Result<Option<String>, Resolve> {
    let exact: Option<String> = conn
        .prepare_cached(EXACT_RUN_ID)?
        .query_row([wanted], |row| row.get(0))
        .optional()?;
    if exact.is_some() {
        return Ok(exact);
    }
    if wanted.chars().count() < MIN_PREFIX_LEN {
        return Err(Resolve::Store(StoreError::RunIdTooShort {
            prefix: wanted.to_owned(),
            min: MIN_PREFIX_LEN,
        }));
    }
    let (count, first): (i64, Option<String>) = conn
        .prepare_cached(RUN_IDS_WITH_PREFIX)?
        .query_row([wanted], |row| Ok((row.get(0)?, row.get(1)?)))?;
    match count {
        0 | 1 => Ok(first),
        count => Err(Resolve::Store(StoreError::AmbiguousRunId {
            prefix: wanted.to_owned(),
            count: u64::try_from(count).expect("count(*) is never negative"),
        })),
    }
}

/// Starts the transaction that adds hook rows to the emit `run_id`, and returns it with
/// the `seq` the next row gets. An unknown `run_id` is [`StoreError::UnknownRunId`].
fn begin_appending<'c>(
    conn: &'c Connection,
    run_id: &str,
    fail: impl Fn(rusqlite::Error) -> StoreError + Copy,
) -> Result<(Transaction<'c>, i64), StoreError> {
    // IMMEDIATE, because this reads the last seq and then writes after it:
    // a deferred transaction would let two appenders read the same seq, and
    // the second one's upgrade to a write lock fails at once with
    // SQLITE_BUSY instead of waiting.
    let tx = immediate(conn).map_err(fail)?;
    let next_seq = next_seq(&tx, run_id, fail)?;
    Ok((tx, next_seq))
}

/// The `seq` the next hook row of the emit `run_id` gets, read inside the caller's write
/// transaction. An unknown `run_id` is [`StoreError::UnknownRunId`].
fn next_seq(
    conn: &Connection,
    run_id: &str,
    fail: impl Fn(rusqlite::Error) -> StoreError + Copy,
) -> Result<i64, StoreError> {
    let next_seq: Option<i64> = conn
        .prepare_cached(NEXT_SEQ)
        .and_then(|mut stmt| stmt.query_row([run_id], |row| row.get(0)).optional())
        .map_err(fail)?;
    next_seq.ok_or_else(|| StoreError::UnknownRunId {
        run_id: run_id.to_owned(),
    })
}

/// One write to the ledger, for [`Emits::apply`]: what [`Emits::begin`],
/// [`Emits::finish`], [`Emits::record`] and [`Emits::complete_hook_runs`] each do in a
/// transaction of their own.
#[derive(Debug, Clone, PartialEq)]
pub enum EmitWrite {
    /// [`Emits::begin`].
    Begin(EmitRecord),
    /// [`Emits::finish`].
    Finish(EmitRecord),
    /// [`Emits::record`].
    Record(EmitRecord),
    /// [`Emits::complete_hook_runs`].
    CompleteHookRuns {
        /// The emit whose async hooks ended.
        run_id: String,
        /// What they did.
        runs: Vec<HookRun>,
    },
}

impl EmitWrite {
    /// The run id of the emit this write is about.
    pub fn run_id(&self) -> &str {
        match self {
            EmitWrite::Begin(emit) | EmitWrite::Finish(emit) | EmitWrite::Record(emit) => {
                &emit.run_id
            }
            EmitWrite::CompleteHookRuns { run_id, .. } => run_id,
        }
    }

    /// Does the write on `conn`, inside a transaction the caller commits.
    fn apply_in(&self, conn: &Connection, path: &std::path::Path) -> Result<(), StoreError> {
        match self {
            EmitWrite::Begin(emit) => begin_in(
                conn,
                emit,
                StoreError::sqlite(path, "record the start of an emit"),
            ),
            EmitWrite::Finish(emit) => {
                finish_in(conn, emit, StoreError::sqlite(path, "record an emit"))
            }
            EmitWrite::Record(emit) => {
                record_in(conn, emit, StoreError::sqlite(path, "record an emit"))
            }
            EmitWrite::CompleteHookRuns { run_id, runs } => complete_in(
                conn,
                run_id,
                runs,
                StoreError::sqlite(path, "complete async hook runs"),
            ),
        }
    }
}

/// [`Emits::begin`] on `conn`.
fn begin_in(
    conn: &Connection,
    emit: &EmitRecord,
    fail: impl Fn(rusqlite::Error) -> StoreError + Copy,
) -> Result<(), StoreError> {
    conn.prepare_cached(BEGIN_EMIT)
        .and_then(|mut insert| {
            insert.execute(params![
                emit.run_id,
                emit.started_at_ms,
                emit.event,
                Text(emit.dialect),
                emit.cwd,
                emit.session_id,
                emit.payload_in,
                emit.agent,
                crate::owner::current_owner(),
                EmitDecision::Running,
                emit.by_engine,
            ])
        })
        .map_err(|source| duplicate_or(source, &emit.run_id, fail))?;
    Ok(())
}

/// [`Emits::finish`] inside a write transaction on `conn`.
fn finish_in(
    conn: &Connection,
    emit: &EmitRecord,
    fail: impl Fn(rusqlite::Error) -> StoreError + Copy,
) -> Result<(), StoreError> {
    let warnings = serde_json::Value::from(emit.warnings.as_slice()).to_string();
    let updated = conn
        .prepare_cached(FINISH_EMIT)
        .and_then(|mut update| {
            update.execute(params![
                emit.run_id,
                emit.decision,
                emit.reason,
                emit.decided_by,
                emit.duration_ms,
                emit.payload_out,
                warnings,
                EmitDecision::Running,
                EmitDecision::Interrupted,
                emit.by_engine,
            ])
        })
        .map_err(fail)?;
    if updated == 0 {
        // The start was not recorded: the whole row is written now.
        return record_in(conn, emit, fail);
    }
    // Hook rows only ever come with the completed emit, so none exist yet.
    insert_hook_runs(conn, &emit.run_id, 0, &emit.hooks).map_err(fail)
}

/// [`Emits::record`] inside a write transaction on `conn`.
fn record_in(
    conn: &Connection,
    emit: &EmitRecord,
    fail: impl Fn(rusqlite::Error) -> StoreError + Copy,
) -> Result<(), StoreError> {
    // Through a Value because its Display cannot fail, unlike to_string.
    let warnings = serde_json::Value::from(emit.warnings.as_slice()).to_string();
    conn.prepare_cached(INSERT_EMIT)
        .and_then(|mut insert| {
            insert.execute(params![
                emit.run_id,
                emit.started_at_ms,
                emit.event,
                Text(emit.dialect),
                emit.cwd,
                emit.session_id,
                emit.decision,
                emit.reason,
                emit.decided_by,
                emit.duration_ms,
                emit.payload_in,
                emit.payload_out,
                warnings,
                emit.agent,
                emit.by_engine,
            ])
        })
        .map_err(|source| duplicate_or(source, &emit.run_id, fail))?;
    insert_hook_runs(conn, &emit.run_id, 0, &emit.hooks).map_err(fail)
}

/// [`Emits::complete_hook_runs`] inside a write transaction on `conn`.
fn complete_in(
    conn: &Connection,
    run_id: &str,
    runs: &[HookRun],
    fail: impl Fn(rusqlite::Error) -> StoreError + Copy,
) -> Result<(), StoreError> {
    let next_seq = next_seq(conn, run_id, fail)?;
    let mut unmatched = Vec::new();
    {
        let mut update = conn.prepare_cached(COMPLETE_HOOK_RUN).map_err(fail)?;
        let dispatched = Text(HookResult::Dispatched);
        for run in runs {
            let typed = typed_fields(run);
            let changed = update
                .execute(params_from_iter(
                    [&run_id as &dyn ToSql]
                        .into_iter()
                        .chain(hook_run_fields(run, &typed))
                        .chain([&dispatched as &dyn ToSql]),
                ))
                .map_err(fail)?;
            if changed == 0 {
                unmatched.push(run.clone());
            }
        }
    }
    insert_hook_runs(conn, run_id, next_seq, &unmatched).map_err(fail)
}

/// A run id recorded twice is [`StoreError::DuplicateRunId`]; any other error is
/// `fail`'s.
fn duplicate_or(
    source: rusqlite::Error,
    run_id: &str,
    fail: impl Fn(rusqlite::Error) -> StoreError,
) -> StoreError {
    if is_primary_key_violation(&source) {
        StoreError::DuplicateRunId {
            run_id: run_id.to_owned(),
        }
    } else {
        fail(source)
    }
}

fn insert_hook_runs(
    conn: &Connection,
    run_id: &str,
    first_seq: i64,
    runs: &[HookRun],
) -> rusqlite::Result<()> {
    let mut insert = conn.prepare_cached(INSERT_HOOK_RUN)?;
    for (seq, run) in (first_seq..).zip(runs) {
        let typed = typed_fields(run);
        insert.execute(params_from_iter(
            [&run_id as &dyn ToSql, &seq]
                .into_iter()
                .chain(hook_run_fields(run, &typed)),
        ))?;
    }
    Ok(())
}

/// The dialect and result of `run` as SQL values, for [`hook_run_fields`].
fn typed_fields(run: &HookRun) -> (Text<Dialect>, Text<HookResult>) {
    (Text(run.dialect), Text(run.result))
}

/// What a hook row says about its run, in the order both `INSERT_HOOK_RUN` (after
/// `run_id` and `seq`) and `COMPLETE_HOOK_RUN` (after `run_id`) number them; `typed` is
/// its [`typed_fields`].
fn hook_run_fields<'a>(
    run: &'a HookRun,
    typed: &'a (Text<Dialect>, Text<HookResult>),
) -> [&'a dyn ToSql; 14] {
    let (dialect, result) = typed;
    [
        &run.name,
        &run.source,
        dialect,
        &run.matched,
        &run.skip_reason,
        result,
        &run.exit_code,
        &run.duration_ms,
        &run.reason,
        &run.stderr,
        &run.stdout,
        &run.truncated,
        &run.is_async,
        &run.shadow,
    ]
}

fn summary_from_row(row: &Row<'_>) -> rusqlite::Result<EmitSummary> {
    summary_from_row_at(row, 0)
}

/// The summary whose columns start at `at` (the dashboard's pages put the row first).
pub(crate) fn summary_from_row_at(row: &Row<'_>, at: usize) -> rusqlite::Result<EmitSummary> {
    Ok(EmitSummary {
        run_id: row.get(at)?,
        started_at_ms: row.get(at + 1)?,
        event: row.get(at + 2)?,
        decision: column::get(row, at + 3)?,
        decided_by: row.get(at + 4)?,
        reason: row.get(at + 5)?,
        duration_ms: row.get(at + 6)?,
        cwd: row.get(at + 7)?,
        hooks_run: row.get(at + 8)?,
        agent: row.get(at + 9)?,
        shadow_disagreed: serde_json::from_str(&row.get::<_, String>(at + 10)?).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(at + 10, Type::Text, e.into())
        })?,
    })
}

/// The emit without its hooks and warnings, and the warnings still as JSON
/// text: decoding them is not a SQLite error and is reported apart.
fn emit_from_row(row: &Row<'_>) -> rusqlite::Result<(EmitRecord, String)> {
    let emit = EmitRecord {
        run_id: row.get(0)?,
        started_at_ms: row.get(1)?,
        event: row.get(2)?,
        dialect: column::get::<Text<Dialect>>(row, 3)?.0,
        cwd: row.get(4)?,
        session_id: row.get(5)?,
        agent: row.get(13)?,
        decision: column::get(row, 6)?,
        reason: row.get(7)?,
        decided_by: row.get(8)?,
        duration_ms: row.get(9)?,
        payload_in: row.get(10)?,
        payload_out: row.get(11)?,
        warnings: Vec::new(),
        hooks: Vec::new(),
        by_engine: row.get(14)?,
    };
    Ok((emit, row.get(12)?))
}

fn hook_run_from_row(row: &Row<'_>) -> rusqlite::Result<HookRun> {
    Ok(HookRun {
        name: row.get(0)?,
        source: row.get(1)?,
        dialect: column::get::<Text<Dialect>>(row, 2)?.0,
        matched: row.get(3)?,
        skip_reason: row.get(4)?,
        result: column::get::<Text<HookResult>>(row, 5)?.0,
        exit_code: row.get(6)?,
        duration_ms: row.get(7)?,
        reason: row.get(8)?,
        stderr: row.get(9)?,
        stdout: row.get(10)?,
        truncated: row.get(11)?,
        is_async: row.get(12)?,
        shadow: row.get(13)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open_temp() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("temp dir");
        let ledger = Store::open(&dir.path().join("ledger.db")).expect("open ledger");
        (dir, ledger)
    }

    fn emit(run_id: &str, started_at_ms: i64) -> EmitRecord {
        EmitRecord {
            cwd: "/repo".to_owned(),
            session_id: "s1".to_owned(),
            decision: EmitDecision::Allow,
            duration_ms: 1.0,
            payload_out: "{}".to_owned(),
            ..EmitRecord::running(run_id, started_at_ms, "PreToolUse", Dialect::Claude)
        }
    }

    #[test]
    fn recording_a_run_id_twice_is_a_duplicate_and_keeps_the_first() {
        let (_dir, ledger) = open_temp();
        ledger
            .emits()
            .record(&emit("run-1", 1))
            .expect("first insert");
        let mut second = emit("run-1", 2);
        second.decision = EmitDecision::Deny;
        let error = ledger.emits().record(&second).expect_err("same run id");
        assert!(
            matches!(&error, StoreError::DuplicateRunId { run_id } if run_id == "run-1"),
            "{error:?}"
        );
        let kept = ledger
            .emits()
            .detail("run-1")
            .expect("lookup")
            .expect("first emit kept");
        assert_eq!(kept.emit.decision, EmitDecision::Allow);
    }

    // guards: run ids with LIKE/GLOB wildcards or other case matching as prefixes
    #[test]
    fn prefix_matching_is_literal_and_case_sensitive() {
        let (_dir, ledger) = open_temp();
        ledger.emits().record(&emit("abcdef", 1)).expect("insert");
        ledger.emits().record(&emit("ab%_xyz", 2)).expect("insert");
        for lookup in ["ab%_", "ABCD", "abc_", "abc%", "ab*d", "abcdefg"] {
            let found = ledger.emits().detail(lookup).expect("lookup");
            let expected = (lookup == "ab%_").then_some("ab%_xyz");
            assert_eq!(
                found.as_ref().map(|detail| detail.emit.run_id.as_str()),
                expected,
                "lookup {lookup:?}"
            );
        }
    }

    #[test]
    fn prefix_matching_handles_non_ascii_ids() {
        let (_dir, ledger) = open_temp();
        ledger.emits().record(&emit("ééééx", 1)).expect("insert");
        ledger
            .emits()
            .record(&emit("ééééy\u{10FFFF}", 2))
            .expect("insert");
        let error = ledger.emits().detail("éééé").expect_err("two ids share it");
        assert!(matches!(error, StoreError::AmbiguousRunId { count: 2, .. }));
        let found = ledger
            .emits()
            .detail("ééééy")
            .expect("lookup")
            .expect("unique prefix");
        assert_eq!(found.emit.run_id, "ééééy\u{10FFFF}");
    }

    #[test]
    fn exact_id_wins_over_longer_ids_it_prefixes() {
        let (_dir, ledger) = open_temp();
        ledger.emits().record(&emit("abcd", 1)).expect("insert");
        ledger.emits().record(&emit("abcde", 2)).expect("insert");
        let found = ledger
            .emits()
            .detail("abcd")
            .expect("exact match is not ambiguous")
            .expect("found");
        assert_eq!(found.emit.run_id, "abcd");
    }

    #[test]
    fn short_prefix_is_refused_but_short_full_id_is_found() {
        let (_dir, ledger) = open_temp();
        ledger.emits().record(&emit("r1", 1)).expect("insert");
        ledger.emits().record(&emit("r12345", 2)).expect("insert");
        let found = ledger.emits().detail("r1").expect("exact").expect("found");
        assert_eq!(found.emit.run_id, "r1");
        let error = ledger
            .emits()
            .detail("r12")
            .expect_err("too short to be a prefix");
        assert!(
            matches!(&error, StoreError::RunIdTooShort { prefix, min: 4 } if prefix == "r12"),
            "{error:?}"
        );
        assert!(matches!(
            ledger.emits().detail(""),
            Err(StoreError::RunIdTooShort { .. })
        ));
    }

    #[test]
    fn zero_limit_returns_nothing_and_huge_limit_returns_everything() {
        let (_dir, ledger) = open_temp();
        for i in 0..3 {
            ledger
                .emits()
                .record(&emit(&format!("run-{i}"), i))
                .expect("insert");
        }
        let none = EmitFilter {
            limit: 0,
            event: None,
            agent: None,
            shadow: false,
        };
        assert!(ledger.emits().recent(&none).expect("query").is_empty());
        let all = EmitFilter {
            limit: usize::MAX,
            event: None,
            agent: None,
            shadow: false,
        };
        assert_eq!(ledger.emits().recent(&all).expect("query").len(), 3);
    }

    #[test]
    fn corrupt_warnings_are_reported_with_the_run() {
        let (_dir, ledger) = open_temp();
        ledger.emits().record(&emit("run-1", 1)).expect("insert");
        ledger
            .conn()
            .execute("UPDATE emits SET warnings = 'not json'", [])
            .expect("plain update");
        let error = ledger
            .emits()
            .detail("run-1")
            .expect_err("warnings unreadable");
        assert!(
            matches!(
                &error,
                StoreError::CorruptColumn { run_id, column: "warnings", .. } if run_id == "run-1"
            ),
            "{error:?}"
        );
    }

    #[test]
    fn deleting_an_emit_deletes_its_hook_rows() {
        let (_dir, ledger) = open_temp();
        let mut record = emit("run-1", 1);
        record.hooks.push(HookRun {
            name: "h".to_owned(),
            source: "/f".to_owned(),
            dialect: Dialect::Claude,
            matched: true,
            skip_reason: None,
            result: HookResult::Allow,
            exit_code: Some(0),
            duration_ms: Some(1.0),
            reason: None,
            stderr: None,
            stdout: None,
            truncated: false,
            is_async: false,
            shadow: false,
        });
        ledger.emits().record(&record).expect("insert");
        ledger
            .conn()
            .execute("DELETE FROM emits", [])
            .expect("plain delete");
        let left: i64 = ledger
            .conn()
            .query_row("SELECT count(*) FROM hook_runs", [], |row| row.get(0))
            .expect("count");
        assert_eq!(left, 0);
    }

    // guards: a batch of writes commits together in order, and one write that fails
    // is undone alone while the others are committed
    #[test]
    fn a_batch_applies_in_order_and_a_failing_write_is_undone_alone() {
        let (dir, ledger) = open_temp();
        ledger.emits().record(&emit("taken", 1)).expect("record");
        let mut finished = emit("begun", 2);
        finished.decision = EmitDecision::Deny;
        finished.hooks = vec![async_run(HookResult::Dispatched)];
        let writes = [
            EmitWrite::Begin(emit("begun", 2)),
            EmitWrite::Record(emit("taken", 3)),
            EmitWrite::Finish(finished),
            EmitWrite::CompleteHookRuns {
                run_id: "begun".to_owned(),
                runs: vec![async_run(HookResult::Allow)],
            },
            EmitWrite::CompleteHookRuns {
                run_id: "nobody".to_owned(),
                runs: Vec::new(),
            },
            EmitWrite::Finish(emit("unbegun", 4)),
        ];
        let results = ledger.emits().apply(&writes).expect("the batch commits");
        let failed: Vec<bool> = results.iter().map(Result::is_err).collect();
        assert_eq!(failed, [false, true, false, false, true, false]);
        assert!(matches!(results[1], Err(StoreError::DuplicateRunId { .. })));
        assert!(matches!(results[4], Err(StoreError::UnknownRunId { .. })));
        // Read from another connection: what the batch wrote is committed.
        let reader = Store::open(&dir.path().join("ledger.db")).expect("open");
        let begun = reader
            .emits()
            .detail("begun")
            .expect("read")
            .expect("present")
            .emit;
        assert_eq!(begun.decision, EmitDecision::Deny);
        assert_eq!(begun.hooks.len(), 1);
        assert_eq!(begun.hooks[0].result, HookResult::Allow);
        let taken = reader.emits().detail("taken").expect("read").expect("kept");
        assert_eq!(taken.emit.started_at_ms, 1, "the first record is kept");
        assert!(reader.emits().detail("unbegun").expect("read").is_some());
    }

    // guards: a batch that cannot take the write lock writes nothing and says so once
    #[test]
    fn a_batch_that_cannot_start_writes_nothing() {
        let (dir, ledger) = open_temp();
        let holder = Store::open(&dir.path().join("ledger.db")).expect("open");
        holder
            .conn()
            .execute_batch("BEGIN IMMEDIATE")
            .expect("hold the write lock");
        ledger
            .set_busy_timeout(std::time::Duration::ZERO)
            .expect("no wait");
        let writes = [
            EmitWrite::Record(emit("first", 1)),
            EmitWrite::Record(emit("second", 2)),
        ];
        assert!(ledger.emits().apply(&writes).is_err());
        holder.conn().execute_batch("ROLLBACK").expect("release");
        assert!(ledger.emits().detail("first").expect("read").is_none());
    }

    fn async_run(result: HookResult) -> HookRun {
        HookRun {
            name: "later".to_owned(),
            source: "/h.toml".to_owned(),
            dialect: Dialect::Native,
            matched: true,
            skip_reason: None,
            result,
            exit_code: None,
            duration_ms: None,
            reason: None,
            stderr: None,
            stdout: None,
            truncated: false,
            is_async: true,
            shadow: false,
        }
    }

    // guards: `hookrig runs --shadow` (SQL) and `hookrig why` (Rust) call the same shadow
    // answers disagreements, for every result against every decision
    #[test]
    fn runs_shadow_lists_exactly_the_emits_whose_shadow_hook_disagreed() {
        let (_dir, ledger) = open_temp();
        let mut expected = Vec::new();
        let mut at = 0;
        for decision in EmitDecision::ALL {
            for result in HookResult::ALL {
                for shadow in [false, true] {
                    at += 1;
                    let mut record = emit(&format!("run-{at:03}"), at);
                    record.decision = decision;
                    let mut run = async_run(result);
                    run.name = format!("h-{at:03}");
                    run.is_async = false;
                    run.shadow = shadow;
                    if run.shadow_disagrees(decision) {
                        expected.push((record.run_id.clone(), vec![run.name.clone()]));
                    }
                    record.hooks = vec![run];
                    ledger.emits().record(&record).expect("recorded");
                }
            }
        }
        let listed: Vec<(String, Vec<String>)> = ledger
            .emits()
            .recent(&EmitFilter {
                limit: usize::MAX,
                shadow: true,
                ..EmitFilter::default()
            })
            .expect("listed")
            .into_iter()
            .rev()
            .map(|summary| (summary.run_id, summary.shadow_disagreed))
            .collect();
        assert_eq!(listed, expected);
        // A shadow deny of an allowed emit is among them; a hook that is not a shadow,
        // and a shadow that failed, are not.
        let deny = HookRun {
            shadow: true,
            ..async_run(HookResult::Deny)
        };
        assert!(deny.shadow_disagrees(EmitDecision::Allow));
        assert!(!deny.shadow_disagrees(EmitDecision::Deny));
        assert!(!async_run(HookResult::Deny).shadow_disagrees(EmitDecision::Allow));
        let failed = HookRun {
            shadow: true,
            ..async_run(HookResult::Error)
        };
        assert!(!failed.shadow_disagrees(EmitDecision::Allow));
        // Without the filter, every emit is listed, the disagreeing ones with their names.
        let all = ledger
            .emits()
            .recent(&EmitFilter {
                limit: usize::MAX,
                ..EmitFilter::default()
            })
            .expect("listed");
        assert_eq!(all.len(), usize::try_from(at).expect("a few hundred"));
        assert_eq!(
            all.iter()
                .filter(|s| !s.shadow_disagreed.is_empty())
                .count(),
            expected.len()
        );
    }

    // guards: an emit is recorded when it starts, so that one killed before it ends
    // leaves a row; a row whose process died reads `interrupted`, one in progress does
    // not
    #[test]
    fn an_emit_begun_and_finished_is_one_row_and_an_abandoned_one_is_interrupted() {
        let (_dir, ledger) = open_temp();
        let mut done = emit("done", 1);
        ledger.emits().begin(&done).expect("begin");
        let listed = ledger
            .emits()
            .recent(&EmitFilter {
                limit: 10,
                ..EmitFilter::default()
            })
            .expect("list");
        assert_eq!(listed[0].decision, EmitDecision::Running);
        done.hooks = vec![HookRun {
            name: "h".to_owned(),
            source: "/h.toml".to_owned(),
            dialect: Dialect::Native,
            matched: true,
            skip_reason: None,
            result: HookResult::Allow,
            exit_code: Some(0),
            duration_ms: Some(1.0),
            reason: None,
            stderr: None,
            stdout: None,
            truncated: false,
            is_async: false,
            shadow: false,
        }];
        ledger.emits().finish(&done).expect("finish");
        let detail = ledger
            .emits()
            .detail("done")
            .expect("read")
            .expect("present");
        assert_eq!(detail.emit.decision, EmitDecision::Allow);
        assert_eq!(detail.emit.hooks.len(), 1);

        // The start could not be recorded: the end writes the whole row.
        ledger.emits().finish(&emit("unbegun", 2)).expect("finish");
        assert!(ledger.emits().detail("unbegun").expect("read").is_some());

        ledger.emits().begin(&emit("alive", 3)).expect("begin");
        ledger.emits().begin(&emit("killed", 4)).expect("begin");
        ledger
            .conn()
            .execute(
                "UPDATE emits SET owner = '4194305:1' WHERE run_id = 'killed'",
                [],
            )
            .expect("a dead owner");
        assert_eq!(ledger.emits().interrupt_abandoned().expect("interrupt"), 1);
        let decision = |ledger: &Store, id: &str| {
            ledger
                .emits()
                .detail(id)
                .expect("read")
                .expect("present")
                .emit
                .decision
        };
        assert_eq!(decision(&ledger, "killed"), EmitDecision::Interrupted);
        assert_eq!(decision(&ledger, "alive"), EmitDecision::Running);
    }

    #[test]
    fn default_filter_shows_twenty_of_every_event() {
        assert_eq!(
            EmitFilter::default(),
            EmitFilter {
                limit: 20,
                event: None,
                agent: None,
                shadow: false
            }
        );
    }

    #[test]
    fn hook_run_round_trips_through_json() {
        let run = HookRun {
            name: "fmt".to_owned(),
            source: "/repo/.hookrig.toml".to_owned(),
            dialect: Dialect::Claude,
            matched: true,
            skip_reason: None,
            result: HookResult::Allow,
            exit_code: Some(0),
            duration_ms: Some(1.5),
            reason: None,
            stderr: Some(String::new()),
            stdout: None,
            truncated: false,
            is_async: false,
            shadow: false,
        };
        let json = serde_json::to_string(&run).expect("a HookRun always serializes");
        let back: HookRun = serde_json::from_str(&json).expect("just serialized");
        assert_eq!(back, run);
    }

    #[test]
    fn every_decision_has_one_name_in_rust_in_json_and_in_the_running_query() {
        for decision in EmitDecision::ALL {
            assert_eq!(
                serde_json::to_value(decision).expect("serializes"),
                serde_json::Value::from(decision.as_str())
            );
            assert_eq!(
                format!("{decision:>12}"),
                format!("{:>12}", decision.as_str())
            );
        }
        assert!(RUNNING_EMITS.ends_with(&format!("'{}'", EmitDecision::Running)));
    }
}
