//! The ledger's emits a page at a time, for the dashboard: [`Emits::page`] filters by
//! every column a reader narrows a ledger down with and pages by a cursor, so that the
//! thousandth page costs what the first does; [`Emits::since`] is what the live view
//! polls for.

use std::fmt::Write as _;
use std::str::FromStr;

use rusqlite::types::Value;
use rusqlite::{OptionalExtension as _, Row, params, params_from_iter};
use serde::{Deserialize, Serialize};

use crate::emits::{
    EmitDecision, EmitSummary, Emits, RECENT_EMITS_SELECT, SHADOW_DISAGREES, summary_from_row_at,
};
use crate::errors::StoreError;

/// The condition of the ledger's index of rare decisions (`emits_by_rare_decision_time`,
/// version 14), word for word.
const RARE_DECISION: &str = "e.decision NOT IN ('allow', 'running')";

/// Below this many matches, [`Emits::page`] looks a hook's emits up in its index rather
/// than scanning the ledger by time for them. Tests take both ways on a small ledger.
const RARE_HOOK: usize = if cfg!(test) { 5 } else { 5_000 };

/// When two or more of the event, agent and dialect filters are set, [`Emits::page`]
/// counts each one's emits up to this many and walks the index of the one with fewest,
/// checking the others in that index's own columns (ledger version 15).
const FEW_EMITS: i64 = if cfg!(test) { 3 } else { 20_000 };

/// How many emits a window of [`Emits::page`] reads when a common hook is filtered
/// together with another column, and how many windows a page reads at most.
const WINDOW_EMITS: i64 = if cfg!(test) { 4 } else { 50_000 };
const WINDOWS: usize = 3;

/// Which emits [`Emits::page`] returns: those that pass every filter that is set.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmitQuery {
    /// Only emits of this event (exact canonical name).
    pub event: Option<String>,
    /// Only emits with this decision.
    pub decision: Option<EmitDecision>,
    /// Only emits of this agent (exact name).
    pub agent: Option<String>,
    /// Only emits read in this host dialect (`native`, `claude`, ...).
    pub dialect: Option<String>,
    /// Only emits where a hook of this name matched (ran, or would have but was skipped).
    pub hook: Option<String>,
    /// Only emits that started at or after this time (ms since the Unix epoch).
    pub since_ms: Option<i64>,
    /// Only emits that started before this time (ms since the Unix epoch).
    pub until_ms: Option<i64>,
    /// Only emits older than this cursor: the page after the one that ended there.
    pub before: Option<EmitCursor>,
    /// How many emits a page holds.
    pub limit: usize,
}

/// A place in the ledger's order (newest first): an emit's start time and its row.
/// Two emits of the same millisecond are told apart by the row, so that paging neither
/// repeats nor skips one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmitCursor {
    /// The emit's `started_at_ms`.
    pub started_at_ms: i64,
    /// The emit's row id.
    pub row: i64,
}

impl std::fmt::Display for EmitCursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.started_at_ms, self.row)
    }
}

impl FromStr for EmitCursor {
    type Err = StoreError;

    /// Reads the text [`Display`](std::fmt::Display) writes: `MS.ROW`.
    fn from_str(text: &str) -> Result<Self, StoreError> {
        let bad = || StoreError::BadCursor {
            cursor: text.to_owned(),
        };
        let (time, row) = text.split_once('.').ok_or_else(bad)?;
        Ok(EmitCursor {
            started_at_ms: time.parse().map_err(|_| bad())?,
            row: row.parse().map_err(|_| bad())?,
        })
    }
}

/// One page of [`Emits::page`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmitPage {
    /// The emits, newest first.
    pub runs: Vec<EmitSummary>,
    /// Where the next (older) page starts, when there is one.
    pub next: Option<EmitCursor>,
    /// Set when the page stopped looking before it was full: fewer emits than a page
    /// matched among those it read, which go back to this time (ms since the Unix
    /// epoch); `next` goes on from there. See [`Emits::page`].
    pub searched_to_ms: Option<i64>,
}

impl EmitPage {
    /// The page of `limit` emits in `rows`, which a query read one more of than the page
    /// holds, newest first: a row beyond the page means another page follows, from the
    /// page's last emit.
    pub(crate) fn of_rows(mut rows: Vec<EmitRow>, limit: usize) -> Self {
        let next = if rows.len() > limit {
            rows.truncate(limit);
            rows.last().map(|last| EmitCursor {
                started_at_ms: last.summary.started_at_ms,
                row: last.row,
            })
        } else {
            None
        };
        EmitPage {
            runs: rows.into_iter().map(|row| row.summary).collect(),
            next,
            searched_to_ms: None,
        }
    }
}

/// One lifecycle event of a plan's task, as [`Emits::task_history`] reads it from the
/// emits that `hookrig task ...` recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskEvent {
    /// When it happened (ms since the Unix epoch).
    pub at_ms: i64,
    /// `task.claimed`, `task.completed`, `task.blocked`...
    pub event: String,
    /// The task.
    pub task: String,
    /// The agent that acted, when one was named.
    pub agent: Option<String>,
    /// The emit that recorded it.
    pub run_id: String,
}

/// An emit as the live view sees it: its row (the order rows were written in) and its
/// summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmitRow {
    /// The emit's row id: rows written later have larger ones.
    pub row: i64,
    /// The emit.
    pub summary: EmitSummary,
}

impl Emits<'_> {
    /// The page of emits `query` selects, newest first (by start time, then by row).
    ///
    /// The WHERE clause holds only the filters that are set, so that SQLite can use the
    /// index of a filtered column with its time (`emits_by_event_time` and the like); the
    /// cursor is a range on that same index.
    ///
    /// A hook that matched in many emits, filtered together with another column, is
    /// checked emit by emit in the hook rows' index, and when the two never meet that
    /// check would run over every emit of the other filter (143 ms for 50,000 of them on
    /// 1,000,000). Such a page reads the ledger in windows of 50,000 emits,
    /// newest first, at most three of them: a page that is not full by then ends
    /// with [`EmitPage::searched_to_ms`] and a cursor where the next one goes on.
    pub fn page(&self, query: &EmitQuery) -> Result<EmitPage, StoreError> {
        let other_filter = query.event.is_some()
            || query.agent.is_some()
            || query.dialect.is_some()
            || query.decision.is_some();
        let plan = self.plan(query)?;
        let common_hook = query.hook.is_some() && !plan.rare_hook;
        if !(other_filter && common_hook) {
            return self.page_at_once(query, plan);
        }
        let mut runs = Vec::new();
        let mut window = query.clone();
        for _ in 0..WINDOWS {
            window.limit = query.limit - runs.len();
            let floor = self
                .window_floor(window.before)?
                .filter(|floor| query.since_ms.is_none_or(|since| *floor > since));
            let Some(floor) = floor else {
                // What is left of the ledger fits in one window.
                let page = self.page_at_once(&window, plan)?;
                runs.extend(page.runs);
                return Ok(EmitPage { runs, ..page });
            };
            window.since_ms = Some(floor);
            let page = self.page_at_once(&window, plan)?;
            runs.extend(page.runs);
            if page.next.is_some() {
                return Ok(EmitPage { runs, ..page });
            }
            // Every emit of the window's first millisecond was in it: go on before it.
            window.before = Some(EmitCursor {
                started_at_ms: floor,
                row: i64::MIN,
            });
            if runs.len() >= query.limit {
                break;
            }
        }
        Ok(EmitPage {
            searched_to_ms: window
                .before
                .filter(|_| runs.len() < query.limit)
                .map(|cursor| cursor.started_at_ms),
            runs,
            next: window.before,
        })
    }

    /// The start time of the emit [`WINDOW_EMITS`] back from `before` (from the newest
    /// without it), read in the time index alone; `None` when fewer are left.
    fn window_floor(self, before: Option<EmitCursor>) -> Result<Option<i64>, StoreError> {
        let (time, row) = before.map_or((i64::MAX, i64::MAX), |cursor| {
            (cursor.started_at_ms, cursor.row)
        });
        self.store
            .conn()
            .prepare_cached(
                "SELECT started_at_ms FROM emits WHERE (started_at_ms, rowid) < (?1, ?2)
                 ORDER BY started_at_ms DESC, rowid DESC LIMIT 1 OFFSET ?3",
            )
            .and_then(|mut stmt| {
                stmt.query_row(params![time, row, WINDOW_EMITS - 1], |row| row.get(0))
                    .optional()
            })
            .map_err(self.store.fail("find where a window of emits starts"))
    }

    /// How [`page`](Self::page) reads the ledger for `query`: each choice counts in an
    /// index, so it is made once for every window of the page.
    fn plan(self, query: &EmitQuery) -> Result<Plan, StoreError> {
        let equal = equal_filters(query);
        Ok(Plan {
            walk: if equal.len() > 1 {
                self.fewest(&equal)?
            } else {
                0
            },
            rare_hook: match &query.hook {
                Some(hook) => self.matched_rarely(hook)?,
                None => false,
            },
        })
    }

    /// [`page`](Self::page) in one query.
    fn page_at_once(self, query: &EmitQuery, plan: Plan) -> Result<EmitPage, StoreError> {
        let fail = self.store.fail("list a page of emits");
        let (sql, values) = page_statement(query, plan);
        let rows = self
            .store
            .conn()
            .prepare_cached(&sql)
            .and_then(|mut stmt| {
                stmt.query_map(params_from_iter(&values), row_from_row)?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(fail)?;
        Ok(EmitPage::of_rows(rows, query.limit))
    }
}

/// How [`Emits::page`] reads the ledger for one query.
#[derive(Debug, Clone, Copy)]
struct Plan {
    /// Which of the equality filters ([`equal_filters`]) walks its own index; the
    /// others are checked in that index, which holds their columns too.
    walk: usize,
    /// Whether the hook filtered on matched in few emits (looked up in its index) rather
    /// than many (met scanning the emits by time).
    rare_hook: bool,
}

/// The equality filters of `query` that are set, as (column, value): agents before
/// events before dialects, the order of how many values each usually has, so that the
/// likelier narrower filter walks when the counts tie.
fn equal_filters(query: &EmitQuery) -> Vec<(&'static str, &str)> {
    [
        ("agent", query.agent.as_deref()),
        ("event", query.event.as_deref()),
        ("dialect", query.dialect.as_deref()),
    ]
    .into_iter()
    .filter_map(|(column, value)| value.map(|value| (column, value)))
    .collect()
}

/// The SQL of [`Emits::page`] for `query` read as `plan` says, and its values.
///
/// [`RARE_DECISION`] must stay the condition of `emits_by_rare_decision_time`
/// (ledger version 14), as written there.
fn page_statement(query: &EmitQuery, plan: Plan) -> (String, Vec<Value>) {
    let mut values: Vec<Value> = Vec::new();
    let mut clauses: Vec<String> = Vec::new();
    // The decision as a literal (one of `EmitDecision`'s own words, never the
    // caller's text). A rare one also repeats the condition of the index of rare
    // decisions word for word: SQLite uses a partial index only for a query whose
    // WHERE holds that condition itself (it does not infer it from the equality).
    if let Some(decision) = query.decision {
        clauses.push(format!("e.decision = '{}'", decision.as_str()));
        if !matches!(decision, EmitDecision::Allow | EmitDecision::Running) {
            clauses.push(RARE_DECISION.to_owned());
        }
    }
    let mut bind = |clause: &str, value: Value, values: &mut Vec<Value>| {
        values.push(value);
        clauses.push(clause.replace('?', &format!("?{}", values.len())));
    };
    for (i, (column, value)) in equal_filters(query).into_iter().enumerate() {
        // A unary `+` keeps SQLite off that column's own index: the term is then
        // checked in the walked index, which holds the column too.
        let keep_off = if i == plan.walk { "" } else { "+" };
        bind(
            &format!("{keep_off}e.{column} = ?"),
            text(value),
            &mut values,
        );
    }
    if let Some(since) = query.since_ms {
        bind("e.started_at_ms >= ?", Value::Integer(since), &mut values);
    }
    if let Some(until) = query.until_ms {
        bind("e.started_at_ms < ?", Value::Integer(until), &mut values);
    }
    if let Some(hook) = &query.hook {
        // A hook that matched rarely is looked up in its index and its few emits
        // sorted; a common one is met scanning the emits by time, where the lookup
        // would sort most of the ledger.
        let clause = if plan.rare_hook {
            "e.run_id IN (SELECT h.run_id FROM hook_runs h WHERE h.name = ? AND h.matched = 1)"
        } else {
            "EXISTS (SELECT 1 FROM hook_runs h WHERE h.run_id = e.run_id AND h.name = ? AND h.matched = 1)"
        };
        bind(clause, text(hook), &mut values);
    }
    if let Some(cursor) = query.before {
        values.push(Value::Integer(cursor.started_at_ms));
        values.push(Value::Integer(cursor.row));
        let (time, row) = (values.len() - 1, values.len());
        clauses.push(format!("(e.started_at_ms, e.rowid) < (?{time}, ?{row})"));
    }
    // One more than the page, to know whether another page follows.
    let limit = i64::try_from(query.limit.saturating_add(1)).unwrap_or(i64::MAX);
    values.push(Value::Integer(limit));
    let mut sql = select();
    for (i, clause) in clauses.iter().enumerate() {
        let keyword = if i == 0 { "WHERE" } else { "AND" };
        let _ = write!(sql, "\n    {keyword} {clause}");
    }
    let _ = write!(
        sql,
        "\n    ORDER BY e.started_at_ms DESC, e.rowid DESC\n    LIMIT ?{}",
        values.len()
    );
    (sql, values)
}

impl Emits<'_> {
    /// The emits written after row `after` (oldest first, at most `limit`), and those of
    /// `rows` again: the live view's poll, which also re-reads the emits it saw
    /// `running` to learn how they ended.
    pub fn since(
        &self,
        after: i64,
        rows: &[i64],
        limit: usize,
    ) -> Result<Vec<EmitRow>, StoreError> {
        let fail = self.store.fail("read the emits written since");
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let list: Vec<String> = rows.iter().map(i64::to_string).collect();
        let sql = format!(
            "{}\n    WHERE e.rowid > ?1 OR e.rowid IN ({})\n    ORDER BY e.rowid LIMIT ?2",
            select(),
            list.join(",")
        );
        self.store
            .conn()
            .prepare(&sql)
            .and_then(|mut stmt| {
                stmt.query_map(params![after, limit], row_from_row)?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(fail)
    }

    /// Which of `filters` (columns of `emits` and their values) selects the fewest
    /// emits, counted up to [`FEW_EMITS`] in each column's index; the first on a tie.
    fn fewest(self, filters: &[(&str, &str)]) -> Result<usize, StoreError> {
        let mut fewest = (0, i64::MAX);
        for (i, (column, value)) in filters.iter().enumerate() {
            // `column` is one of this module's own names, never the caller's text.
            let sql =
                format!("SELECT count(*) FROM (SELECT 1 FROM emits WHERE {column} = ?1 LIMIT ?2)");
            let found: i64 = self
                .store
                .conn()
                .prepare_cached(&sql)
                .and_then(|mut stmt| stmt.query_row(params![value, FEW_EMITS], |row| row.get(0)))
                .map_err(self.store.fail("count the emits of a filter"))?;
            if found < fewest.1 {
                fewest = (i, found);
            }
        }
        Ok(fewest.0)
    }

    /// Whether the hook `name` matched in fewer than [`RARE_HOOK`] emits: counted in the
    /// index `hook_runs_matched_by_name`, and no further than that.
    fn matched_rarely(self, name: &str) -> Result<bool, StoreError> {
        let limit = i64::try_from(RARE_HOOK).unwrap_or(i64::MAX);
        let found: i64 = self
            .store
            .conn()
            .prepare_cached(
                "SELECT count(*) FROM (SELECT 1 FROM hook_runs WHERE name = ?1 AND matched = 1 LIMIT ?2)",
            )
            .and_then(|mut stmt| stmt.query_row(params![name, limit], |row| row.get(0)))
            .map_err(self.store.fail("count the emits of a hook"))?;
        Ok(found < limit)
    }

    /// The task events of the plan file `plan` (its absolute path, as the lifecycle
    /// records it), of `task` only when given, newest first, at most `limit`: who
    /// claimed, completed or blocked which task, and when.
    ///
    /// The event range `task.` to `task/` keeps the read on `emits_by_event_time`.
    pub fn task_history(
        self,
        plan: &str,
        task: Option<&str>,
        limit: usize,
    ) -> Result<Vec<TaskEvent>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.store
            .conn()
            .prepare_cached(
                "SELECT started_at_ms, event, json_extract(payload_in, '$.task'), agent, run_id
                 FROM emits
                 WHERE event >= 'task.' AND event < 'task/'
                   AND json_valid(payload_in)
                   AND json_extract(payload_in, '$.plan') = ?1
                   AND (?2 IS NULL OR json_extract(payload_in, '$.task') = ?2)
                 ORDER BY started_at_ms DESC, rowid DESC
                 LIMIT ?3",
            )
            .and_then(|mut stmt| {
                stmt.query_map(params![plan, task, limit], |row| {
                    Ok(TaskEvent {
                        at_ms: row.get(0)?,
                        event: row.get(1)?,
                        task: row.get::<_, Option<String>>(2)?.unwrap_or_default(),
                        agent: row.get(3)?,
                        run_id: row.get(4)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(self.store.fail("read a plan's task history"))
    }

    /// The last row written, 0 in an empty ledger: where the live view starts.
    pub fn last_row(&self) -> Result<i64, StoreError> {
        self.store
            .conn()
            .query_row("SELECT coalesce(max(rowid), 0) FROM emits", [], |row| {
                row.get(0)
            })
            .map_err(self.store.fail("read the last emit"))
    }
}

/// The summary query of `hookrig runs` with each emit's row first.
fn select() -> String {
    RECENT_EMITS_SELECT
        .replace("{SHADOW_DISAGREES}", SHADOW_DISAGREES)
        .replacen("SELECT e.run_id", "SELECT e.rowid, e.run_id", 1)
}

fn text(value: &str) -> Value {
    Value::Text(value.to_owned())
}

fn row_from_row(row: &Row<'_>) -> rusqlite::Result<EmitRow> {
    Ok(EmitRow {
        row: row.get(0)?,
        summary: summary_from_row_at(row, 1)?,
    })
}

#[cfg(test)]
mod tests {
    use hookrig_core::{Dialect, HookResult};

    use super::*;
    use crate::{EmitRecord, HookRun, Store};

    /// A ledger of `count` emits, one ms apart: every third denied, agents `a0`..`a3`,
    /// dialects alternating, hook `guard` matched in every emit and `rare` in every
    /// tenth, two emits in the same ms at the end.
    fn ledger(count: i64) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open_ledger(&dir.path().join("ledger.db")).expect("open");
        for n in 0..count {
            let hook = |name: &str| HookRun {
                name: name.to_owned(),
                source: "/repo/.hookrig/hooks.toml".to_owned(),
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
            };
            let mut hooks = vec![hook("guard")];
            if n % 10 == 0 {
                hooks.push(hook("rare"));
            }
            store
                .emits()
                .record(&EmitRecord {
                    run_id: format!("run-{n:04}"),
                    started_at_ms: n.min(count - 2),
                    event: if n % 2 == 0 {
                        "tool.before"
                    } else {
                        "tool.after"
                    }
                    .to_owned(),
                    dialect: if n % 2 == 0 {
                        Dialect::Claude
                    } else {
                        Dialect::Native
                    },
                    cwd: "/repo".to_owned(),
                    session_id: String::new(),
                    agent: Some(format!("a{}", n % 4)),
                    decision: if n % 3 == 0 {
                        EmitDecision::Deny
                    } else {
                        EmitDecision::Allow
                    },
                    reason: None,
                    decided_by: None,
                    duration_ms: 1.0,
                    payload_in: "{}".to_owned(),
                    payload_out: "{}".to_owned(),
                    warnings: Vec::new(),
                    hooks,
                    by_engine: false,
                })
                .expect("record");
        }
        (dir, store)
    }

    fn ids(page: &EmitPage) -> Vec<String> {
        page.runs.iter().map(|run| run.run_id.clone()).collect()
    }

    /// Every page of `query`, followed by its cursor.
    fn all_pages(store: &Store, mut query: EmitQuery) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            let page = store.emits().page(&query).expect("page");
            seen.extend(ids(&page));
            match page.next {
                Some(next) => query.before = Some(next),
                None => return seen,
            }
        }
    }

    /// The query plan of the runs page for `query`, one line per step.
    fn plan_of(store: &Store, query: &EmitQuery) -> String {
        let plan = store.emits().plan(query).expect("plan");
        let (sql, values) = page_statement(query, plan);
        let plan: Vec<String> = store
            .conn()
            .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
            .and_then(|mut stmt| {
                stmt.query_map(params_from_iter(&values), |row| row.get::<_, String>(3))?
                    .collect()
            })
            .expect("plan");
        plan.join("\n")
    }

    // guards: a rare decision is read from the index of rare decisions (every emit
    // would otherwise move two entries of a decision index), and `allow`, most of the
    // ledger, is met scanning by time
    #[test]
    fn a_rare_decision_is_read_from_its_index_and_allow_by_time() {
        let (_dir, store) = ledger(8);
        let query = |decision| EmitQuery {
            decision: Some(decision),
            limit: 50,
            ..EmitQuery::default()
        };
        let plan = plan_of(&store, &query(EmitDecision::Deny));
        assert!(plan.contains("emits_by_rare_decision_time"), "{plan}");
        assert!(!plan.contains("TEMP B-TREE"), "no sort: {plan}");
        let plan = plan_of(&store, &query(EmitDecision::Allow));
        assert!(plan.contains("emits_by_time"), "{plan}");
        assert!(!plan.contains("TEMP B-TREE"), "no sort: {plan}");
    }

    // guards: two filters that are common alone but rare together walk the index of the
    // one with fewer emits, whichever it is, and check the other in that index (version
    // 15 carries event, agent and dialect in each one's index), never scanning the ledger
    #[test]
    fn two_filters_walk_the_index_of_the_one_with_fewer_emits() {
        let (_dir, store) = ledger(8);
        let pair = |event: Option<&str>, agent: Option<&str>, dialect: Option<&str>| EmitQuery {
            event: event.map(str::to_owned),
            agent: agent.map(str::to_owned),
            dialect: dialect.map(str::to_owned),
            limit: 50,
            ..EmitQuery::default()
        };
        // `a3` has two emits (3 and 7), `tool.before` and `claude` four each.
        let query = pair(Some("tool.before"), Some("a3"), None);
        let plan = plan_of(&store, &query);
        assert!(plan.contains("emits_by_agent_time"), "{plan}");
        assert!(!plan.contains("SCAN"), "{plan}");
        assert!(ids(&store.emits().page(&query).expect("page")).is_empty());
        let query = pair(None, Some("a3"), Some("native"));
        assert!(plan_of(&store, &query).contains("emits_by_agent_time"));
        assert_eq!(
            ids(&store.emits().page(&query).expect("page")),
            ["run-0007", "run-0003"]
        );
        // An event of one emit walks its own index, though agents come first on a tie.
        store
            .emits()
            .record(&EmitRecord {
                cwd: "/repo".to_owned(),
                agent: Some("a3".to_owned()),
                decision: EmitDecision::Allow,
                duration_ms: 1.0,
                payload_out: "{}".to_owned(),
                ..EmitRecord::running("run-late", 100, "session.start", Dialect::Native)
            })
            .expect("record");
        let query = pair(Some("session.start"), Some("a3"), Some("native"));
        let plan = plan_of(&store, &query);
        assert!(plan.contains("emits_by_event_time"), "{plan}");
        assert!(!plan.contains("SCAN"), "{plan}");
        assert_eq!(
            ids(&store.emits().page(&query).expect("page")),
            ["run-late"]
        );
    }

    // guards: a common hook with a filter it never meets is read window by window, a
    // page ending where it stopped looking, and the pages together hold exactly what
    // one query would
    #[test]
    fn a_common_hook_with_another_filter_reads_the_ledger_in_windows() {
        let (_dir, store) = ledger(40);
        let query = |agent: &str| EmitQuery {
            hook: Some("guard".to_owned()),
            agent: Some(agent.to_owned()),
            limit: 50,
            ..EmitQuery::default()
        };
        // Three windows of four emits: the twelve newest (28..=39), of which a3 has three.
        let page = store.emits().page(&query("a3")).expect("page");
        assert_eq!(ids(&page), ["run-0039", "run-0035", "run-0031"]);
        assert_eq!(page.searched_to_ms, Some(28));
        assert_eq!(
            page.next,
            Some(EmitCursor {
                started_at_ms: 28,
                row: i64::MIN
            })
        );
        let every: Vec<String> = (0..40)
            .rev()
            .filter(|n| n % 4 == 3)
            .map(|n| format!("run-{n:04}"))
            .collect();
        assert_eq!(all_pages(&store, query("a3")), every);
        // An agent nobody is: empty pages that say how far they looked, then the end.
        let page = store.emits().page(&query("nobody")).expect("page");
        assert!(page.runs.is_empty());
        assert_eq!(page.searched_to_ms, Some(28));
        assert!(all_pages(&store, query("nobody")).is_empty());
        // A full page within the windows is a page like any other.
        let page = store
            .emits()
            .page(&EmitQuery {
                limit: 2,
                ..query("a3")
            })
            .expect("page");
        assert_eq!(ids(&page), ["run-0039", "run-0035"]);
        assert_eq!(page.searched_to_ms, None);
        assert!(page.next.is_some());
    }

    #[test]
    fn paging_neither_repeats_nor_skips_even_within_one_millisecond() {
        let (_dir, store) = ledger(23);
        let seen = all_pages(
            &store,
            EmitQuery {
                limit: 4,
                ..EmitQuery::default()
            },
        );
        // Newest first; the last two share a millisecond and come in reverse row order.
        let expected: Vec<String> = (0..23).rev().map(|n| format!("run-{n:04}")).collect();
        assert_eq!(seen, expected);
    }

    #[test]
    fn every_filter_narrows_the_pages() {
        let (_dir, store) = ledger(40);
        let query = |f: fn(&mut EmitQuery)| {
            let mut query = EmitQuery {
                limit: 7,
                ..EmitQuery::default()
            };
            f(&mut query);
            query
        };
        let numbers = |seen: Vec<String>| -> Vec<i64> {
            seen.iter()
                .map(|id| id["run-".len()..].parse().expect("a number"))
                .collect()
        };
        let check = |f: fn(&mut EmitQuery), keep: fn(i64) -> bool| {
            let expected: Vec<i64> = (0..40).rev().filter(|n| keep(*n)).collect();
            assert_eq!(numbers(all_pages(&store, query(f))), expected);
        };
        check(|q| q.event = Some("tool.after".to_owned()), |n| n % 2 == 1);
        check(|q| q.decision = Some(EmitDecision::Deny), |n| n % 3 == 0);
        check(|q| q.agent = Some("a2".to_owned()), |n| n % 4 == 2);
        check(|q| q.dialect = Some("claude".to_owned()), |n| n % 2 == 0);
        // Four emits: looked up in the hook's index.
        check(|q| q.hook = Some("rare".to_owned()), |n| n % 10 == 0);
        // Every emit: met scanning by time.
        check(|q| q.hook = Some("guard".to_owned()), |_| true);
        check(|q| q.hook = Some("nobody".to_owned()), |_| false);
        check(|q| q.since_ms = Some(30), |n| n >= 30);
        check(|q| q.until_ms = Some(5), |n| n < 5);
        check(
            |q| {
                q.event = Some("tool.before".to_owned());
                q.decision = Some(EmitDecision::Deny);
                q.hook = Some("guard".to_owned());
            },
            |n| n % 6 == 0,
        );
    }

    #[test]
    fn since_reads_new_rows_and_the_pending_ones_again() {
        let (_dir, store) = ledger(6);
        let last = store.emits().last_row().expect("last row");
        assert_eq!(last, 6);
        let read = store.emits().since(4, &[2], 100).expect("since");
        let rows: Vec<i64> = read.iter().map(|row| row.row).collect();
        assert_eq!(rows, [2, 5, 6]);
        assert_eq!(read[0].summary.run_id, "run-0001");
        assert!(store.emits().since(6, &[], 100).expect("since").is_empty());
    }

    #[test]
    fn the_task_history_is_the_plans_task_events_newest_first() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open_ledger(&dir.path().join("ledger.db")).expect("open");
        let events = [
            (
                "task.claimed",
                r#"{"plan":"/p/plan.spl","task":"design"}"#,
                "coder",
            ),
            (
                "task.completed",
                r#"{"plan":"/p/plan.spl","task":"design"}"#,
                "coder",
            ),
            (
                "task.claimed",
                r#"{"plan":"/other.spl","task":"design"}"#,
                "x",
            ),
            (
                "tool.before",
                r#"{"plan":"/p/plan.spl","task":"design"}"#,
                "y",
            ),
            (
                "task.blocked",
                r#"{"plan":"/p/plan.spl","task":"api"}"#,
                "reviewer",
            ),
            ("task.claimed", "not json", "z"),
        ];
        for (n, (event, payload, agent)) in events.into_iter().enumerate() {
            let n = i64::try_from(n).expect("small");
            store
                .emits()
                .record(&EmitRecord {
                    cwd: "/p".to_owned(),
                    agent: Some(agent.to_owned()),
                    decision: EmitDecision::Allow,
                    duration_ms: 1.0,
                    payload_in: payload.to_owned(),
                    payload_out: payload.to_owned(),
                    ..EmitRecord::running(format!("run-{n}"), n, event, Dialect::Native)
                })
                .expect("record");
        }
        let said = |task: Option<&str>| -> Vec<String> {
            store
                .emits()
                .task_history("/p/plan.spl", task, 10)
                .expect("history")
                .into_iter()
                .map(|e| format!("{} {} {}", e.event, e.task, e.agent.unwrap_or_default()))
                .collect()
        };
        assert_eq!(
            said(None),
            [
                "task.blocked api reviewer",
                "task.completed design coder",
                "task.claimed design coder"
            ]
        );
        assert_eq!(
            said(Some("design")),
            ["task.completed design coder", "task.claimed design coder"]
        );
    }

    #[test]
    fn a_cursor_reads_back_what_it_writes_and_refuses_anything_else() {
        let cursor = EmitCursor {
            started_at_ms: 1_700_000_000_000,
            row: 42,
        };
        assert_eq!(
            cursor.to_string().parse::<EmitCursor>().expect("parses"),
            cursor
        );
        for bad in ["", "12", "a.b", "1.2.3", "1."] {
            assert!(bad.parse::<EmitCursor>().is_err(), "{bad:?}");
        }
    }
}
