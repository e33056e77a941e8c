//! The PostgreSQL store's schema: its versioned steps, applied at open under an
//! advisory lock so that nodes starting together migrate one after the other.
//!
//! The tables mirror the SQLite files' (`crate::schema`), with PostgreSQL's types:
//! `text`, `bigint`, `double precision` for Unix seconds. JSON columns stay `text`, so
//! that a value reads back byte for byte as it was written, as on SQLite. A step that
//! shipped is never edited: databases in the field already ran it.

use crate::errors::StoreError;
use crate::pg::client::Client;

/// The key of the transaction-scoped advisory lock migrations take ("hookrig" and 1).
const MIGRATE_LOCK: i64 = 0x686f_6f6b_7269_6701;

/// The steps, oldest first; the schema's version is how many ran.
pub(crate) const PG_MIGRATIONS: &[&str] = &[
    // Version 1: what several `hookrig serve` nodes share first (docs/postgres.md): the
    // runs of automations, the leases of runs in flight, the periods fired, the nodes.
    // `seq` orders runs started in the same instant as SQLite's rowid does.
    "
    CREATE TABLE automation_runs (
        id              text PRIMARY KEY,
        automation_id   text NOT NULL,
        project_id      text NOT NULL,
        trigger_reason  text NOT NULL,
        status          text NOT NULL
            CHECK (status IN ('running', 'completed', 'skipped', 'failed', 'interrupted')),
        event_data      text,
        context_results text,
        prompt_sent     text,
        llm_response    text,
        actions_taken   text,
        skipped_reason  text,
        tokens_used     bigint NOT NULL DEFAULT 0,
        started_at      double precision NOT NULL,
        completed_at    double precision,
        owner           text,
        seq             bigint GENERATED ALWAYS AS IDENTITY
    );
    CREATE INDEX automation_runs_by_time ON automation_runs (started_at);
    CREATE INDEX automation_runs_by_automation ON automation_runs (automation_id, started_at);
    CREATE INDEX automation_runs_running ON automation_runs (status) WHERE status = 'running';

    CREATE TABLE automation_leases (
        automation_id text PRIMARY KEY,
        run_id        text NOT NULL,
        node          text NOT NULL,
        acquired_at   double precision NOT NULL,
        expires_at    double precision NOT NULL
    );
    CREATE INDEX automation_leases_by_node ON automation_leases (node);

    CREATE TABLE automation_periods (
        automation_id text NOT NULL,
        period        bigint NOT NULL,
        run_id        text NOT NULL,
        PRIMARY KEY (automation_id, period)
    );

    CREATE TABLE nodes (
        id           text PRIMARY KEY,
        host         text NOT NULL,
        pid          bigint NOT NULL,
        started_at   double precision NOT NULL,
        heartbeat_at double precision NOT NULL
    );
    ",
];

/// The version this build writes and reads.
#[expect(
    clippy::cast_possible_wrap,
    reason = "there are a handful of migrations, far below i64::MAX"
)]
pub(crate) const PG_VERSION: i64 = PG_MIGRATIONS.len() as i64;

/// Brings the database to [`PG_VERSION`] in one transaction, under the advisory lock:
/// a node that starts while another migrates waits, then finds the schema current.
/// Returns the version found before.
pub(crate) fn migrate(client: &Client) -> Result<i64, StoreError> {
    let found = client.with("migrate the schema", |conn| {
        let mut tx = conn.transaction()?;
        // The lock comes first: even creating the version table races without it.
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATE_LOCK])?;
        tx.batch_execute("CREATE TABLE IF NOT EXISTS hookrig_schema (version bigint NOT NULL)")?;
        let found: i64 = tx
            .query_opt("SELECT version FROM hookrig_schema", &[])?
            .map_or(0, |row| row.get(0));
        if found >= PG_VERSION {
            tx.commit()?;
            return Ok(found);
        }
        let done = usize::try_from(found).unwrap_or(0);
        for step in &PG_MIGRATIONS[done..] {
            tx.batch_execute(step)?;
        }
        tx.execute("DELETE FROM hookrig_schema", &[])?;
        tx.execute(
            "INSERT INTO hookrig_schema (version) VALUES ($1)",
            &[&PG_VERSION],
        )?;
        tx.commit()?;
        Ok(found)
    })?;
    if found > PG_VERSION {
        return Err(StoreError::PostgresSchema {
            database: client.database().to_owned(),
            found,
            supported: PG_VERSION,
        });
    }
    Ok(found)
}

/// The schema version of the database.
pub(crate) fn version(client: &Client) -> Result<i64, StoreError> {
    client.with("read the schema version", |conn| {
        Ok(conn
            .query_opt("SELECT version FROM hookrig_schema", &[])?
            .map_or(0, |row| row.get(0)))
    })
}
