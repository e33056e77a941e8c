//! The ledger's emits a page at a time, for the dashboard: [`Emits::page`] filters by
//! every column a reader narrows a ledger down with and pages by a cursor, so that the
//! thousandth page costs what the first does; [`Emits::since`] is what the live view
//! polls for.

use std::fmt::Write as _;
use std::str::FromStr;

use rusqlite::types::Value;
use rusqlite::{Row, params, params_from_iter};
use serde::{Deserialize, Serialize};

use crate::emits::{
    EmitDecision, EmitSummary, Emits, RECENT_EMITS_SELECT, SHADOW_DISAGREES, summary_from_row_at,
};
use crate::errors::StoreError;

/// Below this many matches, [`Emits::page`] looks a hook's emits up in its index rather
/// than scanning the ledger by time for them.
const RARE_HOOK: usize = 5_000;

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
    pub fn page(&self, query: &EmitQuery) -> Result<EmitPage, StoreError> {
        let fail = self.store.fail("list a page of emits");
        let mut values: Vec<Value> = Vec::new();
        let mut clauses: Vec<String> = Vec::new();
        let mut bind = |clause: &str, value: Value, values: &mut Vec<Value>| {
            values.push(value);
            clauses.push(clause.replace('?', &format!("?{}", values.len())));
        };
        for (column, value) in [
            ("e.event", query.event.as_deref()),
            ("e.decision", query.decision.map(EmitDecision::as_str)),
            ("e.agent", query.agent.as_deref()),
            ("e.dialect", query.dialect.as_deref()),
        ] {
            if let Some(value) = value {
                bind(&format!("{column} = ?"), text(value), &mut values);
            }
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
            let clause = if self.matched_rarely(hook)? {
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
        let mut rows = self
            .store
            .conn()
            .prepare_cached(&sql)
            .and_then(|mut stmt| {
                stmt.query_map(params_from_iter(&values), row_from_row)?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(fail)?;
        let next = if rows.len() > query.limit {
            rows.truncate(query.limit);
            rows.last().map(|last| EmitCursor {
                started_at_ms: last.summary.started_at_ms,
                row: last.row,
            })
        } else {
            None
        };
        Ok(EmitPage {
            runs: rows.into_iter().map(|row| row.summary).collect(),
            next,
        })
    }

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
