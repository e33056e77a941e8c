//! The [`Store`]: one connection to the SQLite file, and the handles through which each
//! table is read and written.

use std::collections::hash_map::RandomState;
use std::ffi::OsStr;
use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::config::DbConfig;
use rusqlite::{Connection, ErrorCode, OpenFlags, Transaction, TransactionBehavior};

use crate::agents::Agents;
use crate::automation_locks::AutomationLocks;
use crate::automation_runs::AutomationRuns;
use crate::automations::Automations;
use crate::emits::Emits;
use crate::errors::StoreError;
use crate::memory::Memory;
use crate::plugins::Plugins;
use crate::queries::Queries;
use crate::schema;
use crate::tasks::Tasks;

/// WAL size past which writing an emit checkpoints (see [`Store::fold_wal`]).
const WAL_CHECKPOINT_BYTES: u64 = 512 * 1024;

/// Where the store lives under the XDG state directory `state_home`:
/// `state_home/hookrig/ledger.db`.
pub fn default_ledger_path(state_home: &Path) -> PathBuf {
    state_home.join("hookrig").join("ledger.db")
}

/// The work file of the ledger at `ledger`: beside it, `.work` before its extension
/// (`ledger.db` → `ledger.work.db`).
pub fn work_path(ledger: &Path) -> PathBuf {
    let mut name = ledger.file_stem().map(OsStr::to_owned).unwrap_or_default();
    name.push(".work");
    if let Some(extension) = ledger.extension() {
        name.push(".");
        name.push(extension);
    }
    ledger.with_file_name(name)
}

/// The store: a SQLite file holding the ledger of emits and every other table of
/// hookrig, opened once and read or written through one handle per table
/// ([`Store::emits`], [`Store::plugins`], ...).
///
/// Several processes may hold a `Store` on the same file at once (each
/// `hookrig emit` is its own process): the file is in WAL mode, so readers
/// never wait, and writers wait for each other up to a 5 s busy timeout.
///
/// The handles borrow the store shared. A `Store` cannot be shared between threads
/// (its connection is not `Sync`), and every write that spans several statements runs
/// in a transaction that the handle method opens and closes itself, so two
/// transactions never overlap on one connection.
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// How long a statement waits for another process's write lock before giving
    /// up. Emits write a few rows each, so 5 s is only reached when something
    /// holds the file far longer than hookrig ever does.
    pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

    /// Opens (creating parent directories and the files if needed) the store at
    /// `path`, the ledger, with its work file (see [`work_path`]), and brings both
    /// schemas up to date.
    ///
    /// The connection uses the WAL journal, `synchronous=NORMAL` (no fsync per
    /// emit: speed matters, and a crash loses at most the last few records,
    /// never corrupts the file), a 5 s busy timeout and foreign keys. The
    /// schema version is read from `PRAGMA user_version` first, so DDL only
    /// runs when the file is behind. The work file is attached as `work`: every
    /// table is reached by its name alone.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let store = Store::open_ledger(path)?;
        let work = work_path(path);
        let mut conn = connect(&work)?;
        schema::migrate_work(&mut conn, &work)?;
        drop(conn);
        let attach_error = |source| StoreError::Open {
            path: work.clone(),
            source,
        };
        store
            .conn
            .execute("ATTACH DATABASE ?1 AS work", [work.to_string_lossy()])
            .map_err(attach_error)?;
        // Per file, unlike the connection's other settings.
        store
            .conn
            .pragma_update(Some("work"), "synchronous", "NORMAL")
            .map_err(attach_error)?;
        Ok(store)
    }

    /// Opens the ledger at `path` without its work file: what an emit writes and reads
    /// ([`Store::emits`], [`Store::plugins`]), for the processes that use nothing else.
    /// SQLite parses a file's whole schema on its first statement, so leaving the work
    /// tables out makes every `hookrig emit` cheaper. The other handles fail on such a
    /// store (no such table).
    pub fn open_ledger(path: &Path) -> Result<Store, StoreError> {
        let mut conn = connect(path)?;
        schema::migrate(&mut conn, path)?;
        Ok(Store {
            conn,
            path: path.to_owned(),
        })
    }

    /// Opens the store at `path` for reading only, with its work file when there is
    /// one: nothing is created, migrated or written, and a missing ledger is
    /// [`StoreError::Open`]. Every write through its handles fails. The `db_query`
    /// context step reads through such a store, so that even a query that tried to
    /// write could not.
    pub fn open_read_only(path: &Path) -> Result<Store, StoreError> {
        let open_error = |source| StoreError::Open {
            path: path.to_owned(),
            source,
        };
        // Without SQLITE_OPEN_CREATE a missing file is an error, not a new empty store.
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(open_error)?;
        conn.busy_timeout(Self::BUSY_TIMEOUT).map_err(open_error)?;
        // An attached file is opened with the connection's flags: read-only too.
        let work = work_path(path);
        if work.exists() {
            conn.execute("ATTACH DATABASE ?1 AS work", [work.to_string_lossy()])
                .map_err(open_error)?;
        }
        Ok(Store {
            conn,
            path: path.to_owned(),
        })
    }

    /// The path the store was opened at.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Sets how long statements wait for another process's write lock; zero fails
    /// at once with "database is locked". For a caller that must not wait on the store.
    pub fn set_busy_timeout(&self, timeout: Duration) -> Result<(), StoreError> {
        self.conn
            .busy_timeout(timeout)
            .map_err(self.fail("set the busy timeout"))
    }

    /// The ledger of emits and the hooks considered for each (`emits`, `hook_runs`).
    pub fn emits(&self) -> Emits<'_> {
        Emits::new(self)
    }

    /// The plugin package registry (`plugins`, `agent_plugins`).
    pub fn plugins(&self) -> Plugins<'_> {
        Plugins::new(self)
    }

    /// The automation definitions (`automations`).
    pub fn automations(&self) -> Automations<'_> {
        Automations::new(self)
    }

    /// Which process runs which automation now (`automation_locks`).
    pub fn automation_locks(&self) -> AutomationLocks<'_> {
        AutomationLocks::new(self)
    }

    /// The runs of automations (`automation_runs`).
    pub fn automation_runs(&self) -> AutomationRuns<'_> {
        AutomationRuns::new(self)
    }

    /// The tasks automations create (`tasks`).
    pub fn tasks(&self) -> Tasks<'_> {
        Tasks::new(self)
    }

    /// The memory index that `memory_search` searches (`memory`, `memory_notes`).
    pub fn memory(&self) -> Memory<'_> {
        Memory::new(self)
    }

    /// The agents `hookrig agent spawn` started (`agents`).
    pub fn agents(&self) -> Agents<'_> {
        Agents::new(self)
    }

    /// The named read-only queries of the `db_query` context step.
    pub fn queries(&self) -> Queries<'_> {
        Queries::new(self)
    }

    /// The connection, for the handles.
    pub(crate) fn conn(&self) -> &Connection {
        &self.conn
    }

    /// Turns an SQLite error met while doing `action` into [`StoreError`], naming this
    /// store's file.
    pub(crate) fn fail(
        &self,
        action: &'static str,
    ) -> impl Fn(rusqlite::Error) -> StoreError + Copy {
        StoreError::sqlite(&self.path, action)
    }

    /// Folds the WAL back into the database once it has grown past
    /// [`WAL_CHECKPOINT_BYTES`], so that opening the store (which reads the whole WAL
    /// when no other connection is open) stays cheap. The fsyncs of a checkpoint are
    /// then paid once every few hundred emits rather than on every one.
    pub(crate) fn fold_wal(&self) {
        let mut wal = self.path.clone().into_os_string();
        wal.push("-wal");
        let grown = std::fs::metadata(&wal).is_ok_and(|m| m.len() > WAL_CHECKPOINT_BYTES);
        if grown {
            // A busy checkpoint is not an error: the next emit tries again.
            let _ = self
                .conn
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        }
    }
}

/// Whether `error` is the violation of a table's primary key (a row with that key
/// exists already).
pub(crate) fn is_primary_key_violation(error: &rusqlite::Error) -> bool {
    error.sqlite_error().is_some_and(|error| {
        error.code == ErrorCode::ConstraintViolation
            && error.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY
    })
}

/// Starts an IMMEDIATE transaction on `conn`: the write lock is taken up front (waiting
/// up to the busy timeout), so that what the transaction reads stays true until it
/// writes, and a deferred transaction's upgrade to a write lock cannot fail at once
/// with `SQLITE_BUSY` instead of waiting.
pub(crate) fn immediate(conn: &Connection) -> rusqlite::Result<Transaction<'_>> {
    Transaction::new_unchecked(conn, TransactionBehavior::Immediate)
}

/// A read-write connection to the SQLite file at `path` (created, with its parent
/// directories, when missing), set up as [`Store::open`] says.
pub(crate) fn connect(path: &Path) -> Result<Connection, StoreError> {
    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir {
            dir: dir.to_owned(),
            path: path.to_owned(),
            source,
        })?;
    }
    let open_error = |source| StoreError::Open {
        path: path.to_owned(),
        source,
    };
    // The default flags also set SQLITE_OPEN_URI, which would read a path
    // starting with `file:` as a URI with options; a path is a path.
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).map_err(open_error)?;
    // First, so that every following statement waits for a concurrent
    // writer (another emit, or another process migrating) instead of failing.
    conn.busy_timeout(Store::BUSY_TIMEOUT).map_err(open_error)?;
    let mode = enable_wal(&conn).map_err(open_error)?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::JournalMode {
            path: path.to_owned(),
            mode,
        });
    }
    conn.pragma_update(None, "synchronous", "NORMAL")
        .map_err(open_error)?;
    conn.pragma_update(None, "foreign_keys", true)
        .map_err(open_error)?;
    // Every `hookrig emit` is a process of its own and so the last connection to
    // close: by default SQLite would checkpoint the WAL into the database and delete
    // it on each close, four fsyncs per emit. The WAL is kept instead and folded back
    // in by the emit's write once it has grown (see WAL_CHECKPOINT_BYTES).
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
        .map_err(open_error)?;
    Ok(conn)
}

/// Switches the file to the write-ahead log and returns the journal mode
/// SQLite reports afterwards (`wal` unless the file system cannot do it).
///
/// The switch needs an exclusive lock, and SQLite answers `SQLITE_BUSY` at once,
/// without calling the busy handler, when another connection holds the file:
/// waiting there could deadlock two connections that both switch. That only
/// happens while a new store is created (the mode is stored in the file, so
/// later opens find it set), for example by parallel hooks on the first emit;
/// retrying until the busy timeout gives the same patience as other statements.
fn enable_wal(conn: &Connection) -> rusqlite::Result<String> {
    let deadline = Instant::now() + Store::BUSY_TIMEOUT;
    let mut backoff = Duration::from_millis(1);
    loop {
        match conn.pragma_update_and_check(None, "journal_mode", "wal", |row| row.get(0)) {
            Err(error)
                if error.sqlite_error_code() == Some(ErrorCode::DatabaseBusy)
                    && Instant::now() < deadline =>
            {
                // Jitter, so that two openers that failed together do not
                // retry together forever.
                let jitter = RandomState::new().build_hasher().finish() % 1000;
                std::thread::sleep(backoff + Duration::from_micros(jitter));
                backoff = (backoff * 2).min(Duration::from_millis(50));
            }
            result => return result,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open_temp() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(&dir.path().join("ledger.db")).expect("open store");
        (dir, store)
    }

    #[test]
    fn default_path_is_under_hookrig_in_the_state_dir() {
        assert_eq!(
            default_ledger_path(Path::new("/home/u/.local/state")),
            PathBuf::from("/home/u/.local/state/hookrig/ledger.db")
        );
    }

    #[test]
    fn foreign_keys_are_enforced() {
        let (_dir, store) = open_temp();
        let enabled: bool = store
            .conn
            .pragma_query_value(None, "foreign_keys", |row| row.get(0))
            .expect("pragma");
        assert!(enabled);
    }

    // guards: the ledger's durability promise (docs/engine.md) rests on the WAL with
    // synchronous=NORMAL; the mode is kept in the file, so a later connection has it too
    #[test]
    fn the_journal_is_the_write_ahead_log() {
        let (_dir, store) = open_temp();
        let reader = Store::open_read_only(store.path()).expect("open read-only");
        for conn in [&store.conn, &reader.conn] {
            let mode: String = conn
                .pragma_query_value(None, "journal_mode", |row| row.get(0))
                .expect("pragma");
            assert_eq!(mode, "wal");
        }
    }

    #[test]
    fn synchronous_is_normal() {
        let (_dir, store) = open_temp();
        // NORMAL is 1 in SQLite's numbering (OFF 0, NORMAL 1, FULL 2, EXTRA 3).
        let level: i64 = store
            .conn
            .pragma_query_value(None, "synchronous", |row| row.get(0))
            .expect("pragma");
        assert_eq!(level, 1);
    }

    #[test]
    fn a_read_only_store_creates_nothing_and_writes_nothing() {
        let (dir, store) = open_temp();
        let path = store.path().to_owned();
        drop(store);
        let missing = dir.path().join("missing.db");
        assert!(matches!(
            Store::open_read_only(&missing),
            Err(StoreError::Open { .. })
        ));
        assert!(!missing.exists(), "a read-only open creates nothing");
        let reader = Store::open_read_only(&path).expect("open read-only");
        for table in ["emits", "tasks", "automation_runs"] {
            let write = reader
                .conn()
                .execute(&format!("DELETE FROM {table}"), [])
                .expect_err("read-only");
            assert_eq!(
                write.sqlite_error_code(),
                Some(ErrorCode::ReadOnly),
                "{table}"
            );
        }
    }

    // guards: what an emit opens holds only the ledger's tables, and the work file's
    // tables stay reachable by name through a full open
    #[test]
    fn the_ledger_alone_leaves_the_work_tables_out() {
        let (_dir, store) = open_temp();
        let path = store.path().to_owned();
        store
            .conn()
            .execute_batch("INSERT INTO memory_notes VALUES ('p', '/n.md', 1)")
            .expect("a work row");
        drop(store);
        let ledger = Store::open_ledger(&path).expect("the ledger");
        let tables: String = ledger
            .conn()
            .query_row(
                "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name)",
                [],
                |row| row.get(0),
            )
            .expect("schema");
        assert_eq!(tables, "agent_plugins emits hook_runs plugins");
        assert!(ledger.conn().prepare("SELECT 1 FROM memory_notes").is_err());
        let notes: i64 = Store::open(&path)
            .expect("full")
            .conn()
            .query_row("SELECT count(*) FROM memory_notes", [], |row| row.get(0))
            .expect("reachable by name");
        assert_eq!(notes, 1);
    }

    #[test]
    fn the_work_file_sits_beside_the_ledger() {
        assert_eq!(
            work_path(Path::new("/s/hookrig/ledger.db")),
            PathBuf::from("/s/hookrig/ledger.work.db")
        );
        assert_eq!(
            work_path(Path::new("/tmp/runs")),
            PathBuf::from("/tmp/runs.work")
        );
    }
}
