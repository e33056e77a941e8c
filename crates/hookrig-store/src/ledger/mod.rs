//! The one interface of the ledger of emits, on one machine or several: [`Ledger`],
//! implemented by the SQLite [`Store`](crate::Store) (through its [`Emits`](crate::Emits)
//! handle) and by [`PgStore`](crate::PgStore). Every read and write of `emits` and
//! `hook_runs` goes through it: an emit's start and end, a batch of the engine's ledger
//! writer, the async hooks' results, `hookrig runs` and `hookrig why`, the dashboard's
//! pages, its live view and a plan's task history. Which engine holds the ledger is
//! chosen once, where it is opened ([`LedgerAt::open`]).
//!
//! A one-shot `hookrig emit` on the SQLite ledger calls [`Emits`](crate::Emits) itself:
//! the interface adds nothing to that path.

use std::path::PathBuf;

mod postgres;
mod sqlite;
mod view;

pub use view::{LedgerView, RecentEmits};

use crate::emit_pages::{EmitPage, EmitQuery, EmitRow, TaskEvent};
use crate::emits::{EmitDetail, EmitFilter, EmitRecord, EmitSummary, EmitWrite, HookRun};
use crate::errors::StoreError;
use crate::pg::PgStore;
use crate::run_store::Engine;
use crate::store::Store;

/// The ledger of emits (`emits`, `hook_runs`) on SQLite or PostgreSQL. Both engines pass
/// the same conformance suite (`crates/hookrig-store/tests/integration/conformance.rs`);
/// the methods are those of [`Emits`](crate::Emits), which documents each.
pub trait Ledger {
    /// Which engine this is.
    fn engine(&self) -> Engine;

    /// Where the ledger is: the SQLite file, or the database's URL without its password.
    fn location(&self) -> String;

    /// [`Emits::begin`](crate::Emits::begin): the emit's row, `running`.
    fn begin(&self, emit: &EmitRecord) -> Result<(), StoreError>;

    /// [`Emits::finish`](crate::Emits::finish): the row completed, with its hook rows.
    fn finish(&self, emit: &EmitRecord) -> Result<(), StoreError>;

    /// [`Emits::record`](crate::Emits::record): a whole emit at once.
    fn record(&self, emit: &EmitRecord) -> Result<(), StoreError>;

    /// [`Emits::apply`](crate::Emits::apply): `writes` in order, in one transaction, each
    /// write's result in its place. On PostgreSQL the batch is one round trip.
    fn apply(&self, writes: &[&EmitWrite]) -> Result<Vec<Result<(), StoreError>>, StoreError>;

    /// [`Emits::append_hook_runs`](crate::Emits::append_hook_runs).
    fn append_hook_runs(&self, run_id: &str, runs: &[HookRun]) -> Result<(), StoreError>;

    /// [`Emits::complete_hook_runs`](crate::Emits::complete_hook_runs): the async hooks'
    /// results in their `dispatched` rows.
    fn complete_hook_runs(&self, run_id: &str, runs: &[HookRun]) -> Result<(), StoreError>;

    /// [`Emits::interrupt_abandoned`](crate::Emits::interrupt_abandoned). On PostgreSQL,
    /// only the emits of this machine's processes are judged: another machine's
    /// processes cannot be looked up from here.
    fn interrupt_abandoned(&self) -> Result<usize, StoreError>;

    /// [`Emits::recent`](crate::Emits::recent): `hookrig runs`.
    fn recent(&self, filter: &EmitFilter) -> Result<Vec<EmitSummary>, StoreError>;

    /// [`Emits::detail`](crate::Emits::detail): `hookrig why`.
    fn detail(&self, run_id: &str) -> Result<Option<EmitDetail>, StoreError>;

    /// [`Emits::page`](crate::Emits::page): the dashboard's runs page.
    fn page(&self, query: &EmitQuery) -> Result<EmitPage, StoreError>;

    /// [`Emits::since`](crate::Emits::since): the dashboard's live view.
    fn since(&self, after: i64, rows: &[i64], limit: usize) -> Result<Vec<EmitRow>, StoreError>;

    /// [`Emits::task_history`](crate::Emits::task_history).
    fn task_history(
        &self,
        plan: &str,
        task: Option<&str>,
        limit: usize,
    ) -> Result<Vec<TaskEvent>, StoreError>;

    /// [`Emits::last_row`](crate::Emits::last_row).
    fn last_row(&self) -> Result<i64, StoreError>;
}

/// Where a ledger is: the SQLite file of the embedded default, or a PostgreSQL database
/// several nodes share.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum LedgerAt {
    /// The SQLite ledger file (its work file is not opened: the ledger needs none).
    Sqlite(PathBuf),
    /// The URL of a PostgreSQL database.
    Postgres(String),
}

/// The file's path, or the database's URL without its password.
impl std::fmt::Display for LedgerAt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LedgerAt::Sqlite(path) => write!(f, "{}", path.display()),
            LedgerAt::Postgres(url) => f.write_str(&crate::pg::redact(url)),
        }
    }
}

impl LedgerAt {
    /// Opens the ledger (creating or migrating its schema), on its engine.
    pub fn open(&self) -> Result<Box<dyn Ledger + Send>, StoreError> {
        Ok(match self {
            LedgerAt::Sqlite(path) => Box::new(Store::open_ledger(path)?),
            LedgerAt::Postgres(url) => Box::new(PgStore::open(url)?),
        })
    }
}
