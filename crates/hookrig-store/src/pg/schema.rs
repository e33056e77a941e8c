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
    // Version 2: events across nodes (docs/postgres.md, "Events across nodes"). `events`
    // holds each event a node sent to the others (its id, the same on every node), so
    // that one too large for a notification, or sent while a node's listening connection
    // was down, can be read; `automation_events` each event an automation took: the run
    // it started, or the record of it not run, so that one event starts one run.
    "
    CREATE TABLE events (
        seq        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id         text NOT NULL UNIQUE,
        event_type text NOT NULL,
        payload    text NOT NULL,
        node       text NOT NULL,
        sent_at    double precision NOT NULL
    );
    CREATE INDEX events_by_time ON events (sent_at);

    CREATE TABLE automation_events (
        automation_id text NOT NULL,
        event_id      text NOT NULL,
        run_id        text NOT NULL,
        claimed_at    double precision NOT NULL,
        PRIMARY KEY (automation_id, event_id)
    );
    CREATE INDEX automation_events_by_time ON automation_events (claimed_at);
    ",
    // Version 3: the memory index (docs/postgres.md, "Memory"), searched with full-text
    // search where SQLite has FTS5. `hookrig_english` stems English words as SQLite's
    // porter tokenizer does (Snowball's English stemmer) and, like it, keeps every word:
    // PostgreSQL's `english` would drop its stop words (`the`, `not`, `over`...), which
    // SQLite finds. Headings weigh `A`, text `B`. `seq` orders entries as SQLite's rowid.
    "
    CREATE TEXT SEARCH DICTIONARY hookrig_english_stem (TEMPLATE = snowball, LANGUAGE = english);
    CREATE TEXT SEARCH CONFIGURATION hookrig_english (COPY = english);
    ALTER TEXT SEARCH CONFIGURATION hookrig_english
        ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part
        WITH hookrig_english_stem;

    CREATE TABLE memory (
        seq        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        project_id text NOT NULL,
        kind       text NOT NULL CHECK (kind IN ('note', 'upsert')),
        source     text NOT NULL,
        heading    text NOT NULL,
        content    text NOT NULL,
        words      tsvector GENERATED ALWAYS AS (
            setweight(to_tsvector('hookrig_english', heading), 'A')
            || setweight(to_tsvector('hookrig_english', content), 'B')
        ) STORED
    );
    CREATE INDEX memory_words ON memory USING gin (words);
    CREATE INDEX memory_by_place ON memory (project_id, source, heading);

    CREATE TABLE memory_notes (
        project_id text NOT NULL,
        path       text NOT NULL,
        mtime_ns   bigint NOT NULL,
        PRIMARY KEY (project_id, path)
    );
    ",
    // Version 4: the tasks automations create (`create_task`), as the SQLite work file's.
    "
    CREATE TABLE tasks (
        id                     text PRIMARY KEY,
        project_id             text NOT NULL,
        title                  text NOT NULL,
        description            text NOT NULL,
        parent_task_id         text,
        profile_id             text,
        preferred_workspace_id text,
        branch_name            text,
        priority               bigint NOT NULL DEFAULT 100,
        context_entries        text NOT NULL DEFAULT '[]',
        status                 text NOT NULL DEFAULT 'pending',
        result                 text,
        error                  text,
        created_by             text,
        created_at             double precision NOT NULL,
        updated_at             double precision NOT NULL
    );
    CREATE INDEX tasks_by_project_status ON tasks (project_id, status, priority);
    ",
    // Version 5: the plugin package registry and each package's enablement per agent,
    // as the SQLite ledger's. `seq` is the registration order (SQLite's rowid), in which
    // the packages' decision hooks run.
    "
    CREATE TABLE plugins (
        seq           bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        id            text PRIMARY KEY,
        name          text NOT NULL,
        description   text NOT NULL,
        path          text NOT NULL,
        version       text,
        registered_at bigint NOT NULL
    );

    CREATE TABLE agent_plugins (
        plugin_id text NOT NULL REFERENCES plugins (id) ON DELETE CASCADE,
        agent     text NOT NULL,
        enabled   boolean NOT NULL,
        PRIMARY KEY (plugin_id, agent)
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
