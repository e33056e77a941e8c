//! What `hookrig store status` shows of a store, on either engine: where it is, the
//! version of its schema, how many rows each table holds, and the nodes that ran
//! automations on it with their last heartbeat. [`StoreStatus`] serializes as the
//! command's `--json` and renders as its text (`Display`).

use std::fmt;
use std::path::Path;

use serde::Serialize;

use crate::clock::utc_text;
use crate::errors::StoreError;
use crate::pg::PgStore;
use crate::run_store::{Engine, NodeInfo, RunStore};
use crate::schema;
use crate::store::Store;

/// A store as `hookrig store status` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoreStatus {
    /// The engine.
    pub engine: Engine,
    /// The SQLite ledger's path, or the PostgreSQL database's URL without its password.
    pub location: String,
    /// The schema version of each part: the ledger and its work file on SQLite, the
    /// database on PostgreSQL.
    pub schema: Vec<SchemaVersion>,
    /// Every table, by name, with its row count.
    pub tables: Vec<TableRows>,
    /// The nodes that ran automations on the store, the last heard of first.
    pub nodes: Vec<NodeInfo>,
}

/// The schema version of one part of a store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SchemaVersion {
    /// `ledger`, `work` (SQLite) or `database` (PostgreSQL).
    pub part: &'static str,
    /// The version the store is at.
    pub version: i64,
    /// The version this build writes and reads.
    pub supported: i64,
}

/// One table and how many rows it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TableRows {
    /// The table's name.
    pub table: String,
    /// Its rows.
    pub rows: i64,
}

/// The status of the PostgreSQL store at `url`, else of the SQLite store at `ledger`
/// (opened read-only: a status creates no file; a missing one is an error).
pub fn status(url: Option<&str>, ledger: &Path) -> Result<StoreStatus, StoreError> {
    match url {
        Some(url) => PgStore::open(url)?.status(),
        None if !ledger.exists() => Err(StoreError::NoStore(ledger.to_owned())),
        None => Store::open_read_only(ledger)?.status(),
    }
}

impl Store {
    /// The status of this store: its files' schema versions, the rows of every table of
    /// the ledger and of its work file (when it is attached), and the nodes.
    pub(crate) fn sqlite_status(&self) -> Result<StoreStatus, StoreError> {
        let fail = self.fail("read the store's status");
        let conn = self.conn();
        let version = |part: &str| {
            conn.query_row(&format!("PRAGMA {part}.user_version"), [], |row| {
                row.get::<_, i64>(0)
            })
        };
        let mut versions = vec![SchemaVersion {
            part: "ledger",
            version: version("main").map_err(fail)?,
            supported: schema::CURRENT_VERSION,
        }];
        let work_attached = conn
            .query_row(
                "SELECT count(*) FROM pragma_database_list WHERE name = 'work'",
                [],
                |row| row.get::<_, i64>(0),
            )
            .map_err(fail)?
            > 0;
        if work_attached {
            versions.push(SchemaVersion {
                part: "work",
                version: version("work").map_err(fail)?,
                supported: schema::WORK_VERSION,
            });
        }
        // Virtual tables (the memory index) count; their shadow tables, SQLite's own
        // bookkeeping, do not.
        let names: Vec<(String, String)> = conn
            .prepare(
                "SELECT schema, name FROM pragma_table_list
                 WHERE schema IN ('main', 'work') AND type IN ('table', 'virtual')
                   AND name NOT LIKE 'sqlite_%'
                 ORDER BY name",
            )
            .and_then(|mut select| {
                select
                    .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
                    .collect()
            })
            .map_err(fail)?;
        let mut tables = Vec::with_capacity(names.len());
        for (part, name) in names {
            let rows = conn
                .query_row(
                    &format!("SELECT count(*) FROM {part}.{}", quoted(&name)),
                    [],
                    |row| row.get(0),
                )
                .map_err(fail)?;
            tables.push(TableRows { table: name, rows });
        }
        let nodes = if tables.iter().any(|t| t.table == "nodes") {
            self.nodes()?
        } else {
            Vec::new()
        };
        Ok(StoreStatus {
            engine: Engine::Sqlite,
            location: self.path().display().to_string(),
            schema: versions,
            tables,
            nodes,
        })
    }
}

impl PgStore {
    /// The status of this database: its schema version, the rows of every table
    /// hookrig keeps in it, and the nodes.
    pub(crate) fn postgres_status(&self) -> Result<StoreStatus, StoreError> {
        let tables = self.client().with("read the store's status", |conn| {
            // The schema's version and the automations' revision are bookkeeping of
            // one row each, not tables of the store.
            let names: Vec<String> = conn
                .query(
                    "SELECT table_name::text FROM information_schema.tables
                     WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
                       AND table_name NOT IN ('hookrig_schema', 'automations_revision')
                     ORDER BY table_name",
                    &[],
                )?
                .iter()
                .map(|row| row.get(0))
                .collect();
            let mut tables = Vec::with_capacity(names.len());
            for name in names {
                let rows: i64 = conn
                    .query_one(&format!("SELECT count(*) FROM {}", quoted(&name)), &[])?
                    .get(0);
                tables.push(TableRows { table: name, rows });
            }
            Ok(tables)
        })?;
        Ok(StoreStatus {
            engine: Engine::Postgres,
            location: self.database().to_owned(),
            schema: vec![SchemaVersion {
                part: "database",
                version: self.schema_version()?,
                supported: PgStore::SCHEMA_VERSION,
            }],
            tables,
            nodes: self.nodes()?,
        })
    }
}

/// `name` as an SQL identifier, quoted (both engines quote with `"`).
fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// What `hookrig store status` prints.
impl fmt::Display for StoreStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "engine: {}", self.engine)?;
        writeln!(f, "store: {}", self.location)?;
        for part in &self.schema {
            write!(f, "{} schema: version {}", part.part, part.version)?;
            if part.version == part.supported {
                writeln!(f)?;
            } else {
                writeln!(f, " (this hookrig knows {})", part.supported)?;
            }
        }
        writeln!(f)?;
        let rows: Vec<[String; 2]> = self
            .tables
            .iter()
            .map(|t| [t.table.clone(), t.rows.to_string()])
            .collect();
        f.write_str(&hookrig_core::text::table(&["TABLE", "ROWS"], &rows))?;
        writeln!(f)?;
        if self.nodes.is_empty() {
            return writeln!(f, "no node has run automations on this store");
        }
        let rows: Vec<[String; 4]> = self
            .nodes
            .iter()
            .map(|node| {
                [
                    node.id.clone(),
                    node.host.clone(),
                    node.pid.to_string(),
                    utc_text(seconds_to_ms(node.heartbeat_at)),
                ]
            })
            .collect();
        f.write_str(&hookrig_core::text::table(
            &["NODE", "HOST", "PID", "LAST HEARTBEAT (UTC)"],
            &rows,
        ))
    }
}

/// Unix seconds as Unix milliseconds, as the ledger's times are shown.
#[expect(
    clippy::cast_possible_truncation,
    reason = "a heartbeat is a time of this era, far inside i64 milliseconds"
)]
fn seconds_to_ms(seconds: f64) -> i64 {
    (seconds * 1000.0).round() as i64
}
