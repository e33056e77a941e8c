//! The ledger's schema, in one place, and the migrations that build it.
//!
//! The schema version lives in `PRAGMA user_version`, which SQLite keeps in the
//! file header: reading it costs no table lookup, so `hookrig emit` can check it
//! on every start and run DDL only when the file is behind.

use std::path::Path;

use rusqlite::{Connection, TransactionBehavior};

use crate::errors::StoreError;

/// Migration steps, oldest first: step `i` takes the schema from version `i`
/// to version `i + 1`. A step that shipped is never edited, because ledgers in
/// the field already ran it; change the schema by appending a step.
const MIGRATIONS: &[&[&str]] = &[
    // Version 1: the first schema. One row per emit in `emits`, one row per
    // hook considered in `hook_runs`, numbered by `seq` within its emit.
    // Tables are STRICT so that a wrongly typed value is refused at insert
    // time instead of surfacing as a conversion error in `hookrig why`.
    // `warnings` is a JSON array of strings: it is only ever shown, never
    // queried, so a side table would cost a join for nothing.
    &["
    CREATE TABLE emits (
        run_id        TEXT NOT NULL PRIMARY KEY,
        started_at_ms INTEGER NOT NULL,
        event         TEXT NOT NULL,
        dialect       TEXT NOT NULL,
        cwd           TEXT NOT NULL,
        session_id    TEXT NOT NULL,
        decision      TEXT NOT NULL,
        reason        TEXT,
        decided_by    TEXT,
        duration_ms   REAL NOT NULL,
        payload_in    TEXT NOT NULL,
        payload_out   TEXT NOT NULL,
        warnings      TEXT NOT NULL DEFAULT '[]'
    ) STRICT;

    -- `hookrig runs` lists newest first, with or without an event filter.
    CREATE INDEX emits_by_time ON emits (started_at_ms);
    CREATE INDEX emits_by_event_time ON emits (event, started_at_ms);

    CREATE TABLE hook_runs (
        run_id      TEXT NOT NULL REFERENCES emits (run_id) ON DELETE CASCADE,
        seq         INTEGER NOT NULL,
        name        TEXT NOT NULL,
        source      TEXT NOT NULL,
        dialect     TEXT NOT NULL,
        matched     INTEGER NOT NULL CHECK (matched IN (0, 1)),
        skip_reason TEXT,
        result      TEXT NOT NULL,
        exit_code   INTEGER,
        duration_ms REAL,
        reason      TEXT,
        stderr      TEXT,
        stdout      TEXT,
        truncated   INTEGER NOT NULL CHECK (truncated IN (0, 1)),
        is_async    INTEGER NOT NULL CHECK (is_async IN (0, 1)),
        PRIMARY KEY (run_id, seq)
    ) STRICT;
    "],
    // Version 2: the plugin package registry (`hookrig plugins`). `plugins` holds one
    // row per registered package; `agent_plugins` says for which agents it is enabled
    // or disabled, `*` standing for every agent (OpenHermit's agent_skills model).
    // A package without an `agent_plugins` row is enabled for nobody. Deleting a
    // package deletes its enablement rows. `registered_at` is in milliseconds since
    // the Unix epoch, like `emits.started_at_ms`.
    &["
    CREATE TABLE plugins (
        id            TEXT NOT NULL PRIMARY KEY,
        name          TEXT NOT NULL,
        description   TEXT NOT NULL,
        path          TEXT NOT NULL,
        version       TEXT,
        registered_at INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE agent_plugins (
        plugin_id TEXT NOT NULL REFERENCES plugins (id) ON DELETE CASCADE,
        agent     TEXT NOT NULL,
        enabled   INTEGER NOT NULL CHECK (enabled IN (0, 1)),
        PRIMARY KEY (plugin_id, agent)
    ) STRICT;
    "],
    // Version 3: see [`V3_AUTOMATIONS`].
    &[V3_AUTOMATIONS],
    // Version 4: see [`V4_MEMORY`].
    &[V4_MEMORY],
    // Version 5: see [`V5_AGENTS`].
    &[V5_AGENTS],
    // Version 6: the agent an emit came from (`hookrig emit --agent`, `HOOKRIG_AGENT`,
    // the payload's `session.agent`, or the agent of a `hookrig task` lifecycle emit);
    // NULL when none was named, and for every emit recorded before this step. The index
    // serves `hookrig runs --agent`, newest first, as `emits_by_event_time` serves
    // `--event`.
    &["
    ALTER TABLE emits ADD COLUMN agent TEXT;

    CREATE INDEX emits_by_agent_time ON emits (agent, started_at_ms);
    "],
    // Version 7: see [`V7_AUTOMATION_LOCKS`].
    &[V7_AUTOMATION_LOCKS],
    // Version 8: the process that owns a row still being written (`PID:START`, see
    // `owner.rs`): an emit is recorded `running` when it starts and completed when it
    // ends, and an automation run is `running` until it ends. A row left `running` by
    // a process that died is marked `interrupted` by the next reader; one whose owner
    // still runs is left alone. NULL once the row is complete, and for older rows.
    &[
        "
        ALTER TABLE emits ADD COLUMN owner TEXT;

        CREATE INDEX emits_running ON emits (run_id) WHERE decision = 'running';
        ",
        V8_AUTOMATION_RUN_OWNER,
    ],
    // Version 9: whether a resident engine (`hookrig serve`) answered the emit for the
    // `hookrig emit` a host started, or that process itself (0, and for older rows).
    &["
    ALTER TABLE emits ADD COLUMN by_engine INTEGER NOT NULL DEFAULT 0;
    "],
    // Version 10: the tables an emit never reads moved to the ledger's work file
    // ([`WORK_TABLES`]). Not SQL on the ledger alone: [`migrate`] runs [`split`] here.
    &[],
    // Version 11: whether the hook was a shadow hook (`shadow = true`): its `result` and
    // `reason` are what it would have decided, and nothing of it reached the event. 0 for
    // the others, and for every row recorded before this step.
    &["
    ALTER TABLE hook_runs ADD COLUMN shadow INTEGER NOT NULL DEFAULT 0 CHECK (shadow IN (0, 1));
    "],
    // Version 12: the dashboard's filters of the runs page (`Emits::page`), newest first,
    // as `emits_by_event_time` and `emits_by_agent_time` serve `--event` and `--agent`: by
    // decision (a rare one such as `error` would otherwise scan the whole ledger), by
    // dialect, and the emits where a hook of a name matched (a rare hook is looked up
    // here, a common one is met scanning by time).
    &["
    CREATE INDEX emits_by_decision_time ON emits (decision, started_at_ms);
    CREATE INDEX emits_by_dialect_time ON emits (dialect, started_at_ms);
    CREATE INDEX hook_runs_matched_by_name ON hook_runs (name, run_id) WHERE matched = 1;
    "],
    // Version 13: the runs page filtered by event and agent together (what an agent did
    // on one event), newest first. With one index per column SQLite walks one of them
    // and checks the other on each row, which reads a sixth of the ledger when the two
    // are common alone but rare together (an agent that never sends `tool.before`).
    &["
    CREATE INDEX emits_by_event_agent_time ON emits (event, agent, started_at_ms);
    "],
    // Version 14: the decision index holds the rare decisions only. An emit that a hook
    // listens to writes its row `running`, then its decision, and `allow` is most of
    // them: indexing both moved two index entries in every emit, a tenth of a one-hook
    // emit's CPU (docs/PERFORMANCE.md, "The ledger's indexes and the emit"). A filter by
    // `allow` meets its rows scanning by time; `running` ones are in `emits_running`.
    // The runs page names the decision as a literal, so that SQLite can match the
    // index's condition (it cannot with a bound parameter).
    &["
    DROP INDEX emits_by_decision_time;
    CREATE INDEX emits_by_rare_decision_time ON emits (decision, started_at_ms)
        WHERE decision NOT IN ('allow', 'running');
    "],
    // Version 15: the indexes of event, agent and dialect each carry the other two after
    // the time, and the pair index of version 13 is gone. Two of these filters together
    // walk the index of the one with fewer emits (`Emits::page` counts) and check the
    // other in the index itself, never in the table: any pair is then read in about the
    // time the smaller filter's entries take to walk, where a pair without its own index
    // read a table row per entry (1.3 s on 1,000,000 emits). One index fewer is also one
    // entry fewer for every emit to write (docs/PERFORMANCE.md, "Filter pairs").
    &["
    DROP INDEX emits_by_event_agent_time;
    DROP INDEX emits_by_event_time;
    DROP INDEX emits_by_agent_time;
    DROP INDEX emits_by_dialect_time;
    CREATE INDEX emits_by_event_time ON emits (event, started_at_ms, agent, dialect);
    CREATE INDEX emits_by_agent_time ON emits (agent, started_at_ms, event, dialect);
    CREATE INDEX emits_by_dialect_time ON emits (dialect, started_at_ms, event, agent);
    "],
];

/// Version 3: the automation engine (`hookrig serve`, `hookrig auto`). `automations`
/// holds the definitions with the field names of automation files; `trigger`,
/// `context_steps` and `llm_config` are JSON text. One row per run
/// in `automation_runs`, whose `status` moves from `running` to `completed`,
/// `skipped`, `failed` or `interrupted`. Times are Unix seconds as REAL.
/// Deleting an automation deletes its runs. `tasks` receives the
/// `create_task` context step's tasks; `status`, `result`
/// and `error` are what the `db_query` named queries over tasks read.
const V3_AUTOMATIONS: &str = "
    CREATE TABLE automations (
        id                 TEXT NOT NULL PRIMARY KEY,
        project_id         TEXT NOT NULL,
        name               TEXT NOT NULL,
        enabled            INTEGER NOT NULL CHECK (enabled IN (0, 1)),
        trigger            TEXT NOT NULL,
        context_steps      TEXT NOT NULL,
        prompt_template    TEXT NOT NULL,
        llm_config         TEXT,
        cooldown_seconds   INTEGER NOT NULL,
        max_tokens_per_run INTEGER,
        source             TEXT,
        created_at         REAL NOT NULL,
        updated_at         REAL NOT NULL
    ) STRICT;

    CREATE TABLE automation_runs (
        id              TEXT NOT NULL PRIMARY KEY,
        automation_id   TEXT NOT NULL REFERENCES automations (id) ON DELETE CASCADE,
        project_id      TEXT NOT NULL,
        trigger_reason  TEXT NOT NULL,
        status          TEXT NOT NULL
            CHECK (status IN ('running', 'completed', 'skipped', 'failed', 'interrupted')),
        event_data      TEXT,
        context_results TEXT,
        prompt_sent     TEXT,
        llm_response    TEXT,
        actions_taken   TEXT,
        skipped_reason  TEXT,
        tokens_used     INTEGER NOT NULL DEFAULT 0,
        started_at      REAL NOT NULL,
        completed_at    REAL
    ) STRICT;

    -- `hookrig auto runs [ID]` lists newest first; start-up reads each automation's
    -- last run.
    CREATE INDEX automation_runs_by_time ON automation_runs (started_at);
    CREATE INDEX automation_runs_by_automation ON automation_runs (automation_id, started_at);
    CREATE INDEX automation_runs_running ON automation_runs (status) WHERE status = 'running';

    CREATE TABLE tasks (
        id                     TEXT NOT NULL PRIMARY KEY,
        project_id             TEXT NOT NULL,
        title                  TEXT NOT NULL,
        description            TEXT NOT NULL,
        parent_task_id         TEXT,
        profile_id             TEXT,
        preferred_workspace_id TEXT,
        branch_name            TEXT,
        priority               INTEGER NOT NULL DEFAULT 100,
        context_entries        TEXT NOT NULL DEFAULT '[]',
        status                 TEXT NOT NULL DEFAULT 'pending',
        result                 TEXT,
        error                  TEXT,
        created_by             TEXT,
        created_at             REAL NOT NULL,
        updated_at             REAL NOT NULL
    ) STRICT;

    CREATE INDEX tasks_by_project_status ON tasks (project_id, status, priority);
";

/// Version 4: the memory the `memory_search` context step searches. `memory` is an
/// FTS5 index (bm25 ranking) of sections: `kind` is `note` for a section of a
/// markdown note under a project's notes directory, split at its headings, and
/// `upsert` for what a `memory.upsert` event stored; only `heading` and `content`
/// are searched. `memory_notes` remembers the modification time each note file had
/// when it was indexed, so notes are re-indexed only when they changed. The
/// porter tokenizer lets `deploys` find `deploy`.
const V4_MEMORY: &str = "
    CREATE VIRTUAL TABLE memory USING fts5 (
        project_id UNINDEXED,
        kind UNINDEXED,
        source UNINDEXED,
        heading,
        content,
        tokenize = 'porter unicode61'
    );

    CREATE TABLE memory_notes (
        project_id TEXT NOT NULL,
        path       TEXT NOT NULL,
        mtime_ns   INTEGER NOT NULL,
        PRIMARY KEY (project_id, path)
    ) STRICT;
";

/// Version 5: agents started by `hookrig agent spawn`, one row per worktree (a
/// worktree runs one agent at a time; spawning again replaces the row). `pid` is the
/// provider's pid, which is also its process group; `proc_start` is the kernel's start
/// time of that pid (Linux `/proc/PID/stat` field 22) so that a reused pid is not
/// taken for the agent. `exit_code`/`exit_signal` are written by the process that
/// waits for the provider; `stopped_at` by `hookrig agent stop`. Times in
/// milliseconds since the Unix epoch.
const V5_AGENTS: &str = "
    CREATE TABLE agents (
        worktree    TEXT NOT NULL PRIMARY KEY,
        repo        TEXT NOT NULL,
        task        TEXT NOT NULL,
        plan        TEXT NOT NULL,
        agent       TEXT NOT NULL,
        provider    TEXT NOT NULL,
        branch      TEXT NOT NULL,
        log         TEXT NOT NULL,
        pid         INTEGER,
        proc_start  INTEGER,
        started_at  INTEGER NOT NULL,
        exit_code   INTEGER,
        exit_signal INTEGER,
        ended_at    INTEGER,
        stopped_at  INTEGER
    ) STRICT;

    CREATE INDEX agents_by_task ON agents (task);
";

/// Version 7: which process runs an automation now, so that two processes on one
/// ledger (a `hookrig serve` and a `hookrig fire`, or two `fire`s) never run the same
/// automation at once. One row per automation being run: the run, and its owner's
/// pid with the kernel's start time of that pid (as in `agents`), so that a row left
/// by a process that died is taken over instead of blocking the automation forever.
/// `automations.held` says why an automation is not run for now (its project file
/// changed since it was trusted, or no longer parses); NULL for one that may run.
const V7_AUTOMATION_LOCKS: &str = "
    ALTER TABLE automations ADD COLUMN held TEXT;

    CREATE TABLE automation_locks (
        automation_id TEXT NOT NULL PRIMARY KEY REFERENCES automations (id) ON DELETE CASCADE,
        run_id        TEXT NOT NULL,
        pid           INTEGER NOT NULL,
        proc_start    INTEGER,
        acquired_at   REAL NOT NULL
    ) STRICT;
";

/// Version 8, on `automation_runs`: see the comment of version 8 in [`MIGRATIONS`].
const V8_AUTOMATION_RUN_OWNER: &str = "
    ALTER TABLE automation_runs ADD COLUMN owner TEXT;
";

/// The work file's steps (see [`split`]), oldest first, as [`MIGRATIONS`] are the
/// ledger's. Step 1 builds the tables the ledger held at [`SINGLE_FILE_VERSION`],
/// from the same text; change them by appending a step here.
const WORK_MIGRATIONS: &[&[&str]] = &[
    &[
        V3_AUTOMATIONS,
        V4_MEMORY,
        V5_AGENTS,
        V7_AUTOMATION_LOCKS,
        V8_AUTOMATION_RUN_OWNER,
    ],
    // Work version 2: the tools an automation's LLM may call beyond the read-only ones
    // (`tools`, `shell_allow`, `max_tool_rounds`, `plan` of its definition, a JSON
    // object); NULL for the defaults, and for every automation stored before this step.
    // `automation_runs.actions_taken` (there since the first schema, never written
    // before) now holds the run's tool calls, a JSON array.
    &["ALTER TABLE automations ADD COLUMN tools TEXT;"],
    // Work version 3: what `RunStore::start` decides with (docs/postgres.md), the same
    // tables as the PostgreSQL store's. A lock now also names the node that holds it and
    // when its lease expires (NULL for a lock taken the old way, held while its process
    // lives); `automation_periods` holds each period a periodic or cron automation fired
    // for, once; `nodes` the processes that run automations on the store and their last
    // heartbeats.
    &["
    ALTER TABLE automation_locks ADD COLUMN node TEXT;
    ALTER TABLE automation_locks ADD COLUMN expires_at REAL;
    CREATE INDEX automation_locks_by_node ON automation_locks (node);

    CREATE TABLE automation_periods (
        automation_id TEXT NOT NULL REFERENCES automations (id) ON DELETE CASCADE,
        period        INTEGER NOT NULL,
        run_id        TEXT NOT NULL,
        PRIMARY KEY (automation_id, period)
    ) STRICT;

    CREATE TABLE nodes (
        id           TEXT NOT NULL PRIMARY KEY,
        host         TEXT NOT NULL,
        pid          INTEGER NOT NULL,
        started_at   REAL NOT NULL,
        heartbeat_at REAL NOT NULL
    ) STRICT;
    "],
    // Work version 4: each event an automation took (`RunStore::start` with an event,
    // `RunStore::record_dropped`): the run it started, or the record of it not run, so
    // that one event delivered to several nodes starts one run (docs/postgres.md,
    // "Events across nodes"). `claimed_at` lets old claims be forgotten.
    &["
    CREATE TABLE automation_events (
        automation_id TEXT NOT NULL REFERENCES automations (id) ON DELETE CASCADE,
        event_id      TEXT NOT NULL,
        run_id        TEXT NOT NULL,
        claimed_at    REAL NOT NULL,
        PRIMARY KEY (automation_id, event_id)
    ) STRICT;
    CREATE INDEX automation_events_by_time ON automation_events (claimed_at);
    "],
];

/// The version at which the ledger stopped holding every table: [`split`] takes it
/// there.
const SPLIT_VERSION: i64 = 10;

/// The last version at which the ledger held every table.
pub(crate) const SINGLE_FILE_VERSION: i64 = SPLIT_VERSION - 1;

/// The ledger's version this build writes and reads.
#[expect(
    clippy::cast_possible_wrap,
    reason = "there are a handful of migrations, far below i64::MAX"
)]
pub(crate) const CURRENT_VERSION: i64 = MIGRATIONS.len() as i64;

/// The work file's version this build writes and reads.
#[expect(
    clippy::cast_possible_wrap,
    reason = "there are a handful of migrations, far below i64::MAX"
)]
pub(crate) const WORK_VERSION: i64 = WORK_MIGRATIONS.len() as i64;

/// The tables that live in the work file, parents before the tables that refer to
/// them. What an emit reads and writes (`emits`, `hook_runs`, `plugins`,
/// `agent_plugins`) stays in the ledger: SQLite parses the whole schema of a file on
/// its first statement, and every `hookrig emit` opens the ledger, so the tables it
/// never reads are kept out of it.
const WORK_TABLES: [&str; 7] = [
    "automations",
    "automation_runs",
    "automation_locks",
    "tasks",
    "memory",
    "memory_notes",
    "agents",
];

/// Brings the ledger at `path`, open on `conn`, to [`CURRENT_VERSION`]: its steps up to
/// [`SINGLE_FILE_VERSION`], then [`split`], then the steps after it. A no-op costing
/// one header read when it is already there.
pub(crate) fn migrate(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    let found = user_version(conn).map_err(|source| StoreError::Open {
        path: path.to_owned(),
        source,
    })?;
    if found == CURRENT_VERSION {
        return Ok(());
    }
    check_supported(found, CURRENT_VERSION, path)?;
    if found < SPLIT_VERSION {
        migrate_to(conn, path, MIGRATIONS, SINGLE_FILE_VERSION, CURRENT_VERSION)?;
        split(conn, path)?;
    }
    migrate_to(conn, path, MIGRATIONS, CURRENT_VERSION, CURRENT_VERSION)
}

/// Brings the work file on `conn` (at `path`) to [`WORK_VERSION`].
pub(crate) fn migrate_work(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    migrate_to(conn, path, WORK_MIGRATIONS, WORK_VERSION, WORK_VERSION)
}

/// Runs the `steps` that take `conn` from its version to `target`, in one transaction;
/// nothing when it is there or past it. `current` is the last version this build knows.
fn migrate_to(
    conn: &mut Connection,
    path: &Path,
    steps: &[&[&str]],
    target: i64,
    current: i64,
) -> Result<(), StoreError> {
    let found = user_version(conn).map_err(|source| StoreError::Open {
        path: path.to_owned(),
        source,
    })?;
    check_supported(found, current, path)?;
    if found >= target {
        return Ok(());
    }
    let migrate_error = |from: i64| {
        move |source| StoreError::Migrate {
            path: path.to_owned(),
            from,
            to: current,
            source,
        }
    };
    // IMMEDIATE takes the write lock up front (waiting up to the busy timeout),
    // so two processes opening a new file at once migrate one after the other.
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(migrate_error(found))?;
    // Read again under the lock: the other process may have migrated meanwhile.
    let found = user_version(&tx).map_err(migrate_error(found))?;
    check_supported(found, current, path)?;
    if found >= target {
        return Ok(());
    }
    let start = usize::try_from(found).expect("check_supported refused negative versions");
    let end = usize::try_from(target).expect("a handful of steps");
    for part in steps[start..end].iter().copied().flatten() {
        tx.execute_batch(part).map_err(migrate_error(found))?;
    }
    // user_version is part of the database header, so setting it inside the
    // transaction commits or rolls back together with the DDL.
    tx.pragma_update(None, "user_version", target)
        .map_err(migrate_error(found))?;
    tx.commit().map_err(migrate_error(found))
}

/// Moves the work tables of the ledger at `path`, open on `ledger` at
/// [`SINGLE_FILE_VERSION`], into its work file (creating it), and takes the ledger to
/// [`SPLIT_VERSION`].
///
/// Under the ledger's write lock, then the work file's (the order in which a store with
/// both files takes them, so that neither waits for the other): the work tables are
/// emptied and filled from the ledger's, the work file commits, then the ledger drops
/// them and commits. A crash between the two commits leaves the ledger as it was, and
/// the next open copies again; never a ledger without the rows it gave away. A ledger
/// someone else split meanwhile is left alone.
fn split(ledger: &mut Connection, path: &Path) -> Result<(), StoreError> {
    let work_file = crate::store::work_path(path);
    let mut work = crate::store::connect(&work_file)?;
    migrate_work(&mut work, &work_file)?;
    let failed = |source| StoreError::Migrate {
        path: path.to_owned(),
        from: SINGLE_FILE_VERSION,
        to: SPLIT_VERSION,
        source,
    };
    // The rows are copied as they were, in an order of their own: they were consistent
    // in the ledger.
    work.pragma_update(None, "foreign_keys", false)
        .map_err(failed)?;
    let ledger = ledger
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(failed)?;
    if user_version(&ledger).map_err(failed)? != SINGLE_FILE_VERSION {
        return Ok(());
    }
    let work = work
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(failed)?;
    for table in WORK_TABLES {
        copy(&ledger, &work, table).map_err(failed)?;
    }
    work.commit().map_err(failed)?;
    for table in WORK_TABLES.iter().rev() {
        ledger
            .execute_batch(&format!("DROP TABLE {table};"))
            .map_err(failed)?;
    }
    ledger
        .pragma_update(None, "user_version", SPLIT_VERSION)
        .map_err(failed)?;
    ledger.commit().map_err(failed)
}

/// Replaces the rows of `table` in `to` with those of `from`, column by column as `from`
/// has them (the work file may have more, which take their defaults); for the full-text
/// index with its `rowid`, which `*` leaves out.
fn copy(from: &Connection, to: &Connection, table: &str) -> rusqlite::Result<()> {
    let mut names = from
        .prepare(&format!("PRAGMA table_info({table})"))?
        .query_map([], |row| row.get::<_, String>(1))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    if table == "memory" {
        names.insert(0, "rowid".to_owned());
    }
    let columns = names.join(", ");
    let slots = vec!["?"; names.len()].join(", ");
    to.execute(&format!("DELETE FROM {table}"), [])?;
    let mut insert = to.prepare(&format!("INSERT INTO {table} ({columns}) VALUES ({slots})"))?;
    let mut select = from.prepare(&format!("SELECT {columns} FROM {table}"))?;
    let mut rows = select.query([])?;
    while let Some(row) = rows.next()? {
        let values = (0..names.len())
            .map(|at| row.get::<_, rusqlite::types::Value>(at))
            .collect::<rusqlite::Result<Vec<_>>>()?;
        insert.execute(rusqlite::params_from_iter(values))?;
    }
    Ok(())
}

fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "user_version", |row| row.get(0))
}

fn check_supported(found: i64, current: i64, path: &Path) -> Result<(), StoreError> {
    if (0..=current).contains(&found) {
        Ok(())
    } else {
        Err(StoreError::UnsupportedSchema {
            path: path.to_owned(),
            found,
            supported: current,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    /// One row in every table of a ledger at [`SINGLE_FILE_VERSION`].
    const SINGLE_FILE_ROWS: &str = "
        INSERT INTO emits (run_id, started_at_ms, event, dialect, cwd, session_id, decision,
            duration_ms, payload_in, payload_out) VALUES ('r1', 1, 'tool.before', 'native',
            '/', 's', 'allow', 1.0, '{}', '{}');
        INSERT INTO plugins VALUES ('p', 'P', '', '/p', NULL, 1);
        INSERT INTO agent_plugins VALUES ('p', '*', 1);
        INSERT INTO automations VALUES ('a', 'p', 'A', 1, '{}', '[]', '', NULL, 3600, NULL,
            NULL, 1.0, 1.0, 'changed');
        INSERT INTO automation_runs (id, automation_id, project_id, trigger_reason, status,
            started_at, owner) VALUES ('r', 'a', 'p', 'manual', 'running', 1.0, '1:2');
        INSERT INTO automation_locks VALUES ('a', 'r', 1, 2, 1.0);
        INSERT INTO tasks (id, project_id, title, description, created_at, updated_at)
            VALUES ('t', 'p', 'T', '', 1.0, 1.0);
        INSERT INTO memory (rowid, project_id, kind, source, heading, content)
            VALUES (7, 'p', 'note', '/n.md', 'H', 'deploying things');
        INSERT INTO memory_notes VALUES ('p', '/n.md', 1);
        INSERT INTO agents (worktree, repo, task, plan, agent, provider, branch, log, started_at)
            VALUES ('/w', '/r', 't', '/p.spl', 'a', 'fake', 'b', '/l', 1);
    ";

    fn memory() -> Connection {
        Connection::open_in_memory().expect("sqlite can always open an in-memory database")
    }

    fn schema_sql(conn: &Connection) -> String {
        let mut stmt = conn
            .prepare("SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL ORDER BY name")
            .expect("valid query");
        let rows = stmt
            .query_map([], |row| row.get::<_, String>(0))
            .expect("valid query")
            .collect::<rusqlite::Result<Vec<_>>>()
            .expect("schema rows are text");
        rows.join(";\n")
    }

    /// The ledger's own steps alone, as a build before the split ran them.
    fn single_file(conn: &mut Connection) -> i64 {
        migrate_to(
            conn,
            Path::new("mem"),
            MIGRATIONS,
            SINGLE_FILE_VERSION,
            CURRENT_VERSION,
        )
        .expect("the single-file steps run");
        user_version(conn).expect("readable")
    }

    /// A ledger file in a temporary directory, migrated, and its path.
    fn ledger_file() -> (tempfile::TempDir, PathBuf, Connection) {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("ledger.db");
        let mut conn = crate::store::connect(&path).expect("opens");
        migrate(&mut conn, &path).expect("fresh ledger migrates");
        (dir, path, conn)
    }

    fn count(conn: &Connection, table: &str) -> i64 {
        conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |row| {
            row.get(0)
        })
        .expect("count")
    }

    #[test]
    fn migrates_a_fresh_ledger_to_the_current_version_and_its_work_file() {
        let (_dir, path, conn) = ledger_file();
        assert_eq!(user_version(&conn).expect("readable"), CURRENT_VERSION);
        let work = Connection::open(crate::store::work_path(&path)).expect("work file");
        assert_eq!(user_version(&work).expect("readable"), WORK_VERSION);
        for table in WORK_TABLES {
            assert!(
                !schema_sql(&conn).contains(&format!("TABLE {table} ")),
                "{table}"
            );
            assert_eq!(count(&work, table), 0);
        }
    }

    #[test]
    fn migrating_twice_changes_nothing() {
        let (_dir, path, mut conn) = ledger_file();
        let before = schema_sql(&conn);
        migrate(&mut conn, &path).expect("current database is left alone");
        assert_eq!(schema_sql(&conn), before);
    }

    // guards: a ledger written before the split keeps every row, in the file that now
    // holds its table
    #[test]
    fn a_single_file_ledger_is_split_and_keeps_every_row() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("ledger.db");
        let mut conn = crate::store::connect(&path).expect("opens");
        assert_eq!(single_file(&mut conn), SINGLE_FILE_VERSION);
        conn.execute_batch(SINGLE_FILE_ROWS)
            .expect("rows of every table");
        // A crash between the two commits of an earlier split left a copy behind.
        let work_file = crate::store::work_path(&path);
        let mut work = crate::store::connect(&work_file).expect("work file");
        migrate_work(&mut work, &work_file).expect("work tables");
        work.execute_batch("INSERT INTO tasks (id, project_id, title, description, created_at, updated_at) VALUES ('t', 'p', 'T', '', 1.0, 1.0)")
            .expect("a stale copy");

        migrate(&mut conn, &path).expect("splits");
        assert_eq!(user_version(&conn).expect("readable"), CURRENT_VERSION);
        assert_eq!(count(&conn, "emits"), 1);
        assert_eq!(count(&conn, "agent_plugins"), 1);
        for table in WORK_TABLES {
            assert!(
                conn.prepare(&format!("SELECT 1 FROM {table}")).is_err(),
                "{table} left the ledger"
            );
            assert_eq!(count(&work, table), 1, "{table}");
        }
        let (held, owner): (String, String) = work
            .query_row(
                "SELECT held, owner FROM automations JOIN automation_runs ON automation_id = automations.id",
                [],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .expect("columns added by later steps came along");
        assert_eq!((held.as_str(), owner.as_str()), ("changed", "1:2"));
        let found: i64 = work
            .query_row(
                "SELECT rowid FROM memory WHERE memory MATCH 'deploy'",
                [],
                |row| row.get(0),
            )
            .expect("the full-text index came along, searchable");
        assert_eq!(found, 7);
        let orphan = work.execute(
            "INSERT INTO automation_runs (id, automation_id, project_id, trigger_reason, status, started_at) VALUES ('r2', 'nobody', 'p', 'manual', 'running', 1.0)",
            [],
        );
        assert!(orphan.is_err(), "foreign keys hold in the work file");
    }

    #[test]
    fn refuses_a_schema_from_a_newer_hookrig() {
        let mut conn = memory();
        conn.pragma_update(None, "user_version", CURRENT_VERSION + 1)
            .expect("user_version is writable");
        let error = migrate(&mut conn, Path::new("/l.db")).expect_err("newer schema is refused");
        assert!(
            matches!(
                &error,
                StoreError::UnsupportedSchema { path, found, supported }
                    if path == Path::new("/l.db")
                        && *found == CURRENT_VERSION + 1
                        && *supported == CURRENT_VERSION
            ),
            "{error:?}"
        );
    }

    #[test]
    fn refuses_a_negative_schema_version() {
        let mut conn = memory();
        conn.pragma_update(None, "user_version", -1)
            .expect("user_version is writable");
        let error = migrate(&mut conn, Path::new("/l.db")).expect_err("foreign schema is refused");
        assert!(matches!(
            error,
            StoreError::UnsupportedSchema { found: -1, .. }
        ));
    }

    #[test]
    fn failed_migration_rolls_back_and_names_the_versions() {
        let mut conn = memory();
        // A table in the way makes step 1 fail halfway.
        conn.execute_batch("CREATE TABLE hook_runs (x INTEGER)")
            .expect("plain DDL");
        let error = migrate(&mut conn, Path::new("/l.db")).expect_err("step 1 collides");
        assert!(
            matches!(error, StoreError::Migrate { from: 0, to, .. } if to == CURRENT_VERSION),
            "{error:?}"
        );
        assert_eq!(user_version(&conn).expect("readable"), 0);
        assert!(
            !schema_sql(&conn).contains("emits"),
            "the part of step 1 that ran was rolled back"
        );
    }

    // guards: ledgers written before the plugin registry keep their runs
    #[test]
    fn version_1_ledger_gains_the_plugin_tables_and_keeps_its_rows() {
        let mut conn = memory();
        conn.execute_batch(MIGRATIONS[0][0]).expect("step 1");
        conn.pragma_update(None, "user_version", 1)
            .expect("user_version is writable");
        conn.execute_batch(
            "INSERT INTO emits VALUES ('r1', 1, 'tool.before', 'native', '/', 's', 'allow',
             NULL, NULL, 1.0, '{}', '{}', '[]')",
        )
        .expect("a v1 row");
        single_file(&mut conn);
        assert_eq!(user_version(&conn).expect("readable"), SINGLE_FILE_VERSION);
        let runs: i64 = conn
            .query_row("SELECT count(*) FROM emits", [], |row| row.get(0))
            .expect("count");
        assert_eq!(runs, 1);
        conn.execute_batch(
            "INSERT INTO plugins VALUES ('p', 'P', '', '/p', NULL, 1);
             INSERT INTO agent_plugins VALUES ('p', '*', 1);",
        )
        .expect("the plugin tables exist");
    }

    // guards: ledgers written before the automation engine keep their plugins
    #[test]
    fn version_2_ledger_gains_the_automation_tables() {
        let mut conn = memory();
        conn.execute_batch(MIGRATIONS[0][0]).expect("step 1");
        conn.execute_batch(MIGRATIONS[1][0]).expect("step 2");
        conn.pragma_update(None, "user_version", 2)
            .expect("user_version is writable");
        conn.execute_batch("INSERT INTO plugins VALUES ('p', 'P', '', '/p', NULL, 1)")
            .expect("a v2 row");
        single_file(&mut conn);
        let plugins: i64 = conn
            .query_row("SELECT count(*) FROM plugins", [], |row| row.get(0))
            .expect("count");
        assert_eq!(plugins, 1);
        conn.execute_batch(
            "INSERT INTO automations VALUES ('a', 'p', 'A', 1, '{}', '[]', '', NULL, 3600, NULL,
                NULL, 1.0, 1.0, NULL);
             INSERT INTO automation_runs (id, automation_id, project_id, trigger_reason, status,
                started_at) VALUES ('r', 'a', 'p', 'manual', 'running', 1.0);
             INSERT INTO tasks (id, project_id, title, description, created_at, updated_at)
                VALUES ('t', 'p', 'T', '', 1.0, 1.0);",
        )
        .expect("the automation tables exist");
        let bad = conn.execute(
            "UPDATE automation_runs SET status = 'done' WHERE id = 'r'",
            [],
        );
        assert!(bad.is_err(), "status is one of the five");
    }

    // guards: ledgers written before the memory index keep their tasks
    #[test]
    fn version_3_ledger_gains_the_memory_index() {
        let mut conn = memory();
        for part in MIGRATIONS[..3].iter().copied().flatten() {
            conn.execute_batch(part).expect("steps 1 to 3");
        }
        conn.pragma_update(None, "user_version", 3)
            .expect("user_version is writable");
        conn.execute_batch(
            "INSERT INTO tasks (id, project_id, title, description, created_at, updated_at)
                VALUES ('t', 'p', 'T', '', 1.0, 1.0)",
        )
        .expect("a v3 row");
        single_file(&mut conn);
        let tasks: i64 = conn
            .query_row("SELECT count(*) FROM tasks", [], |row| row.get(0))
            .expect("count");
        assert_eq!(tasks, 1);
        conn.execute_batch(
            "INSERT INTO memory (project_id, kind, source, heading, content)
                VALUES ('p', 'note', '/n.md', 'H', 'deploying things');
             INSERT INTO memory_notes VALUES ('p', '/n.md', 1);",
        )
        .expect("the memory tables exist");
        let found: i64 = conn
            .query_row(
                "SELECT count(*) FROM memory WHERE memory MATCH 'deploy'",
                [],
                |row| row.get(0),
            )
            .expect("fts5 with the porter tokenizer is compiled in");
        assert_eq!(found, 1);
    }

    // guards: ledgers written before emits named their agent keep their runs, which
    // read back without an agent
    #[test]
    fn version_5_ledger_gains_the_emit_agent_and_keeps_its_rows() {
        let mut conn = memory();
        for part in MIGRATIONS[..5].iter().copied().flatten() {
            conn.execute_batch(part).expect("steps 1 to 5");
        }
        conn.pragma_update(None, "user_version", 5)
            .expect("user_version is writable");
        conn.execute_batch(
            "INSERT INTO emits VALUES ('r1', 1, 'tool.before', 'native', '/', 's', 'allow',
             NULL, NULL, 1.0, '{}', '{}', '[]');
             INSERT INTO hook_runs VALUES ('r1', 0, 'h', '/h', 'native', 1, NULL, 'allow',
             0, 1.0, NULL, NULL, NULL, 0, 0);",
        )
        .expect("v5 rows");
        single_file(&mut conn);
        assert_eq!(user_version(&conn).expect("readable"), SINGLE_FILE_VERSION);
        let (event, agent): (String, Option<String>) = conn
            .query_row(
                "SELECT event, agent FROM emits WHERE run_id = 'r1'",
                [],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .expect("the v5 row is still there");
        assert_eq!((event.as_str(), agent), ("tool.before", None));
        let hooks: i64 = conn
            .query_row("SELECT count(*) FROM hook_runs", [], |row| row.get(0))
            .expect("count");
        assert_eq!(hooks, 1);
        conn.execute(
            "UPDATE emits SET agent = 'claude-1' WHERE run_id = 'r1'",
            [],
        )
        .expect("the agent column is text");
        let bad = conn.execute("UPDATE emits SET agent = x'00' WHERE run_id = 'r1'", []);
        assert!(bad.is_err(), "the table stays STRICT");
    }

    // guards: the on-disk schema, which ledgers written by released versions rely on
    #[test]
    fn schema_is_stable() {
        let (_dir, path, conn) = ledger_file();
        let work = Connection::open(crate::store::work_path(&path)).expect("work file");
        insta::assert_snapshot!(format!(
            "-- the ledger\n{};\n\n-- its work file\n{}",
            schema_sql(&conn),
            schema_sql(&work)
        ));
    }
}
