//! Errors of the ledger.

use std::path::{Path, PathBuf};

use crate::column::UnknownName;

/// Everything that can go wrong while opening, writing or reading the ledger.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The directory meant to hold the ledger could not be created, typically
    /// because a part of it is a file or is not writable.
    #[error("could not create directory {} for the ledger {}", dir.display(), path.display())]
    CreateDir {
        /// The directory that could not be created.
        dir: PathBuf,
        /// The ledger file that was being opened.
        path: PathBuf,
        /// Why the directory could not be created.
        #[source]
        source: std::io::Error,
    },

    /// SQLite could not open or configure the ledger file (unreadable, not a
    /// database, locked for longer than the busy timeout, ...).
    #[error("could not open the ledger {}", path.display())]
    Open {
        /// The ledger file.
        path: PathBuf,
        /// What SQLite answered.
        #[source]
        source: rusqlite::Error,
    },

    /// SQLite refused the write-ahead log, which the ledger needs so that
    /// readers never block concurrent emits (some network file systems lack the
    /// shared memory it requires).
    #[error("could not enable the write-ahead log on the ledger {}: sqlite kept journal mode {mode:?}", path.display())]
    JournalMode {
        /// The ledger file.
        path: PathBuf,
        /// The journal mode SQLite reported instead of `wal`.
        mode: String,
    },

    /// The ledger has a schema version this hookrig does not know: written by
    /// a newer hookrig, or not a hookrig ledger at all.
    #[error(
        "the ledger {} has schema version {found}, this hookrig knows versions 0 to {supported}",
        path.display()
    )]
    UnsupportedSchema {
        /// The ledger file.
        path: PathBuf,
        /// The schema version found in the file.
        found: i64,
        /// The newest schema version this build knows.
        supported: i64,
    },

    /// Bringing the schema up to date failed; the migration was rolled back.
    #[error("could not migrate the ledger {} from schema version {from} to {to}", path.display())]
    Migrate {
        /// The ledger file.
        path: PathBuf,
        /// The schema version found in the file.
        from: i64,
        /// The schema version being migrated to.
        to: i64,
        /// What SQLite answered.
        #[source]
        source: rusqlite::Error,
    },

    /// [`Emits::record`](crate::Emits::record) got a run id that is already recorded.
    #[error("run {run_id} is already in the ledger")]
    DuplicateRunId {
        /// The run id.
        run_id: String,
    },

    /// [`Emits::append_hook_runs`](crate::Emits::append_hook_runs) got a run id that was never recorded.
    #[error("no run {run_id} in the ledger")]
    UnknownRunId {
        /// The run id.
        run_id: String,
    },

    /// [`Plugins::register`](crate::Plugins::register) got an id that is
    /// already registered.
    #[error("plugin `{id}` is already registered")]
    DuplicatePlugin {
        /// The plugin id.
        id: String,
    },

    /// A plugin id that is not registered.
    #[error("no plugin `{id}` is registered")]
    UnknownPlugin {
        /// The plugin id.
        id: String,
    },

    /// The operator's key to the shared plugin registry could not be read or made
    /// (docs/postgres.md, "Plugins").
    #[error("could not read or create the plugin registry key {}", path.display())]
    RegistryKey {
        /// The key file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },

    /// An automation id that is not in the store.
    #[error("no automation `{id}` in the store")]
    UnknownAutomation {
        /// The automation id.
        id: String,
    },

    /// An automation of the shared store whose row the operator's key did not sign as it
    /// is: enabling or disabling it would sign what someone else wrote.
    #[error(
        "the automation `{id}` in the PostgreSQL store {database} is not signed with your key \
         as it is (written by hand, with another key, or changed since); add it again from \
         its file with `hookrig auto add FILE --store URL`"
    )]
    UnsignedAutomation {
        /// The database, as its URL without the password.
        database: String,
        /// The automation id.
        id: String,
    },

    /// A run id prefix matches more than one run.
    #[error("run id prefix {prefix:?} matches {count} runs, give more characters")]
    AmbiguousRunId {
        /// The prefix that was looked up.
        prefix: String,
        /// How many runs it matches.
        count: u64,
    },

    /// A run id prefix is too short to be looked up (and matches no run exactly).
    #[error("run id prefix {prefix:?} is too short, give at least {min} characters")]
    RunIdTooShort {
        /// The prefix that was looked up.
        prefix: String,
        /// The minimum prefix length, in characters.
        min: usize,
    },

    /// A page cursor of the ledger's emits is not `MS.ROW` (a link edited by hand).
    #[error("page cursor {cursor:?} is not MS.ROW; start again from the first page")]
    BadCursor {
        /// The text given.
        cursor: String,
    },

    /// A column holding JSON could not be read back, which means the file was
    /// edited by something other than hookrig.
    #[error("the {column} of run {run_id} in the ledger is not valid json")]
    CorruptColumn {
        /// The run whose row is damaged.
        run_id: String,
        /// The column that could not be decoded.
        column: &'static str,
        /// Why it could not be decoded.
        #[source]
        source: serde_json::Error,
    },

    /// A column holding one of a fixed set of names (a run status, a decision, a hook
    /// result, a dialect) holds another: the file was written by a newer hookrig, or
    /// edited by something else.
    #[error(
        "the ledger {} holds an unknown {kind} `{value}` in column `{column}`",
        path.display()
    )]
    UnknownValue {
        /// The ledger file.
        path: PathBuf,
        /// The column.
        column: String,
        /// What the column holds (`run status`, `decision`, ...).
        kind: &'static str,
        /// The text found.
        value: String,
    },

    /// A `db_query` step named a query that is not one of the named queries.
    #[error("unknown query `{name}`")]
    UnknownQuery {
        /// The name asked for.
        name: String,
    },

    /// PostgreSQL could not be reached, or refused a statement.
    #[error("could not {action} in the PostgreSQL store {database}")]
    Postgres {
        /// The database, as its URL without the password.
        database: String,
        /// What was being done, as a verb phrase (`connect`, `record an automation run`, ...).
        action: &'static str,
        /// What PostgreSQL (or the connection) answered.
        #[source]
        source: postgres::Error,
    },

    /// The PostgreSQL store has a schema version this hookrig does not know: a newer
    /// hookrig migrated it. Upgrade this node to the version the others run.
    #[error(
        "the PostgreSQL store {database} has schema version {found}, this hookrig knows versions 0 to {supported}: upgrade this node"
    )]
    PostgresSchema {
        /// The database, as its URL without the password.
        database: String,
        /// The schema version found.
        found: i64,
        /// The newest schema version this build knows.
        supported: i64,
    },

    /// The connection that listens for the other nodes' events was closed by the server
    /// (or the network); the listener connects again.
    #[error("the connection listening for events in the PostgreSQL store {database} was closed")]
    PostgresClosed {
        /// The database, as its URL without the password.
        database: String,
    },

    /// A thread of the store could not be started (the system is out of threads).
    #[error("could not start a thread")]
    Thread(#[source] std::io::Error),

    /// `hookrig store status` or `migrate` found no SQLite store at its path.
    #[error(
        "no store at {} yet: hookrig creates it with the first emit or automation run it records",
        .0.display()
    )]
    NoStore(std::path::PathBuf),

    /// `hookrig store migrate` met runs still `running` in the SQLite store: copied,
    /// they would look in flight to every node, with no lease that could expire.
    #[error(
        "{running} automation runs are still running in the store {}; stop `hookrig serve` \
         (its runs end, or a crash's are marked interrupted at its next start), then migrate again",
        path.display()
    )]
    RunsInFlight {
        /// The SQLite ledger.
        path: std::path::PathBuf,
        /// How many runs are `running`.
        running: i64,
    },

    /// After `hookrig store migrate` copied a table, the database did not hold every
    /// row of it.
    #[error(
        "after the copy the PostgreSQL store {database} holds {found} of the {rows} rows of \
         `{table}`; nothing was committed: run the migration again"
    )]
    MigrationCount {
        /// The database, as its URL without the password.
        database: String,
        /// The table.
        table: &'static str,
        /// Its rows in the SQLite store.
        rows: i64,
        /// How many of them the database holds.
        found: i64,
    },

    /// A statement failed while using an open ledger.
    #[error("could not {action} in the ledger {}", path.display())]
    Sqlite {
        /// The ledger file.
        path: PathBuf,
        /// What was being done, as a verb phrase (`record an emit`, ...).
        action: &'static str,
        /// What SQLite answered.
        #[source]
        source: rusqlite::Error,
    },
}

impl StoreError {
    /// Turns an SQLite error met while doing `action` on the ledger at `path` into
    /// [`StoreError::Sqlite`], or into [`StoreError::UnknownValue`] when a named column
    /// held a name it does not know. The closure is `Copy`, so one serves every `?` of a
    /// method.
    pub(crate) fn sqlite(
        path: &Path,
        action: &'static str,
    ) -> impl Fn(rusqlite::Error) -> StoreError + Copy {
        move |source| match UnknownName::of(&source) {
            Some(unknown) => StoreError::UnknownValue {
                path: path.to_owned(),
                column: unknown
                    .column
                    .clone()
                    .unwrap_or_else(|| "(unnamed)".to_owned()),
                kind: unknown.kind,
                value: unknown.value.clone(),
            },
            None => StoreError::Sqlite {
                path: path.to_owned(),
                action,
                source,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use test_case::test_case;

    use super::StoreError;

    fn sqlite_error() -> rusqlite::Error {
        rusqlite::Error::QueryReturnedNoRows
    }

    #[test_case(
        &StoreError::CreateDir {
            dir: PathBuf::from("/state/hookrig"),
            path: PathBuf::from("/state/hookrig/ledger.db"),
            source: std::io::Error::from(std::io::ErrorKind::NotADirectory),
        },
        "could not create directory /state/hookrig for the ledger /state/hookrig/ledger.db";
        "create dir names both paths"
    )]
    #[test_case(
        &StoreError::Open { path: PathBuf::from("/l.db"), source: sqlite_error() },
        "could not open the ledger /l.db";
        "open names the path"
    )]
    #[test_case(
        &StoreError::JournalMode { path: PathBuf::from("/l.db"), mode: "delete".to_owned() },
        "could not enable the write-ahead log on the ledger /l.db: sqlite kept journal mode \"delete\"";
        "journal mode"
    )]
    #[test_case(
        &StoreError::UnsupportedSchema { path: PathBuf::from("/l.db"), found: 9, supported: 1 },
        "the ledger /l.db has schema version 9, this hookrig knows versions 0 to 1";
        "unsupported schema"
    )]
    #[test_case(
        &StoreError::Migrate { path: PathBuf::from("/l.db"), from: 0, to: 1, source: sqlite_error() },
        "could not migrate the ledger /l.db from schema version 0 to 1";
        "migrate"
    )]
    #[test_case(
        &StoreError::AmbiguousRunId { prefix: "0196".to_owned(), count: 3 },
        "run id prefix \"0196\" matches 3 runs, give more characters";
        "ambiguous prefix"
    )]
    #[test_case(
        &StoreError::RunIdTooShort { prefix: "01".to_owned(), min: 4 },
        "run id prefix \"01\" is too short, give at least 4 characters";
        "short prefix"
    )]
    #[test_case(
        &StoreError::UnknownRunId { run_id: "r1".to_owned() },
        "no run r1 in the ledger";
        "unknown run"
    )]
    #[test_case(
        &StoreError::Sqlite { path: PathBuf::from("/l.db"), action: "record an emit", source: sqlite_error() },
        "could not record an emit in the ledger /l.db";
        "sqlite names the action"
    )]
    #[test_case(
        &StoreError::UnknownValue {
            path: PathBuf::from("/l.db"),
            column: "status".to_owned(),
            kind: "run status",
            value: "done".to_owned(),
        },
        "the ledger /l.db holds an unknown run status `done` in column `status`";
        "unknown value names the column and the value"
    )]
    #[test_case(
        &StoreError::DuplicatePlugin { id: "p".to_owned() },
        "plugin `p` is already registered";
        "duplicate plugin"
    )]
    #[test_case(
        &StoreError::UnknownPlugin { id: "p".to_owned() },
        "no plugin `p` is registered";
        "unknown plugin"
    )]
    fn message_is_lowercase_and_leaves_the_cause_to_source(error: &StoreError, expected: &str) {
        assert_eq!(error.to_string(), expected);
    }

    #[test]
    fn the_sqlite_constructor_keeps_path_action_and_cause() {
        let fail = StoreError::sqlite(std::path::Path::new("/l.db"), "read a task");
        // One closure serves every failure of a method.
        let (first, second) = (fail(sqlite_error()), fail(sqlite_error()));
        for error in [first, second] {
            assert_eq!(
                error.to_string(),
                "could not read a task in the ledger /l.db"
            );
            assert!(matches!(
                error,
                StoreError::Sqlite {
                    source: rusqlite::Error::QueryReturnedNoRows,
                    ..
                }
            ));
        }
    }

    #[test]
    fn causes_are_chained_not_repeated() {
        let error = StoreError::Open {
            path: PathBuf::from("/l.db"),
            source: sqlite_error(),
        };
        let source = std::error::Error::source(&error).expect("open errors carry their cause");
        assert!(!error.to_string().contains(&source.to_string()));
    }
}
