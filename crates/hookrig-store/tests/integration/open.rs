//! Opening ledgers: creation, reopening, pragmas, and failures.

use hookrig_store::{EmitFilter, Store, StoreError, default_ledger_path};

use crate::fixtures::{TempStore, bare_emit, full_emit};

fn user_version(conn: &rusqlite::Connection) -> i64 {
    conn.pragma_query_value(None, "user_version", |row| row.get(0))
        .expect("user_version")
}

fn schema(conn: &rusqlite::Connection) -> Vec<String> {
    conn.prepare("SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL ORDER BY name")
        .expect("query")
        .query_map([], |row| row.get(0))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("text")
}

#[test]
fn open_creates_missing_parent_directories() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = default_ledger_path(&dir.path().join("state"));
    assert!(!path.parent().expect("has a parent").exists());
    let ledger = Store::open(&path).expect("open creates dirs");
    assert_eq!(ledger.path(), path);
    assert!(path.is_file());
}

#[test]
fn reopening_keeps_data_and_does_not_migrate_again() {
    let t = TempStore::new();
    t.store.emits().record(&full_emit()).expect("record");
    let path = t.path();
    let conn = rusqlite::Connection::open(&path).expect("second connection");
    let version = user_version(&conn);
    let before = schema(&conn);
    assert!(version >= 1, "a fresh ledger is migrated");
    drop(t.store);

    for _ in 0..2 {
        let again = Store::open(&path).expect("reopen");
        assert_eq!(user_version(&conn), version);
        assert_eq!(schema(&conn), before);
        let detail = again
            .emits()
            .detail(&full_emit().run_id)
            .expect("lookup")
            .expect("data survives reopening");
        assert_eq!(detail.emit, full_emit());
        again
            .emits()
            .record(&bare_emit(
                &format!(
                    "more-{}",
                    again
                        .emits()
                        .recent(&EmitFilter::default())
                        .expect("list")
                        .len()
                ),
                1,
                "Stop",
            ))
            .expect("still writable");
    }
    let again = Store::open(&path).expect("reopen");
    assert_eq!(
        again
            .emits()
            .recent(&EmitFilter::default())
            .expect("list")
            .len(),
        3
    );
}

#[test]
fn journal_mode_is_wal() {
    let t = TempStore::new();
    // Asked through another connection: WAL is a property of the file, so
    // this proves it was set on disk, not only in the ledger's session.
    let conn = rusqlite::Connection::open(t.path()).expect("second connection");
    let mode: String = conn
        .pragma_query_value(None, "journal_mode", |row| row.get(0))
        .expect("journal_mode");
    assert_eq!(mode, "wal");
}

#[test]
fn parent_that_is_a_file_is_a_clear_error_naming_the_path() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, "I am a file").expect("write");
    let path = file.join("hookrig").join("ledger.db");

    let error = Store::open(&path).expect_err("cannot create a directory under a file");
    assert!(
        matches!(&error, StoreError::CreateDir { path: p, .. } if *p == path),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(
        message.contains(&path.display().to_string()),
        "message names the ledger path: {message}"
    );
    assert!(
        std::error::Error::source(&error).is_some(),
        "the io error is chained as the source"
    );
}

#[test]
fn file_that_is_not_a_database_is_an_open_error_naming_the_path() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("ledger.db");
    std::fs::write(
        &path,
        "this is not an sqlite file, but it is long enough to have a header......",
    )
    .expect("write");
    let error = Store::open(&path).expect_err("garbage is not a ledger");
    assert!(
        matches!(&error, StoreError::Open { path: p, .. } if *p == path),
        "{error:?}"
    );
    assert!(error.to_string().contains(&path.display().to_string()));
}

#[test]
fn ledger_from_a_newer_hookrig_is_refused() {
    let t = TempStore::new();
    let path = t.path();
    drop(t.store);
    let conn = rusqlite::Connection::open(&path).expect("second connection");
    conn.pragma_update(None, "user_version", 1000).expect("set");
    drop(conn);
    let error = Store::open(&path).expect_err("schema from the future");
    assert!(
        matches!(&error, StoreError::UnsupportedSchema { found: 1000, .. }),
        "{error:?}"
    );
}
