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
    // Version 6: the ledger (docs/postgres.md, "The ledger"): one row per emit in
    // `emits`, one per hook considered in `hook_runs`, as in the SQLite ledger, with
    // booleans for its 0/1 columns. `seq` is the emit's row (SQLite's rowid): the order
    // rows were written in, for the dashboard's cursor and live view. Run ids and event
    // names compare bytewise (`COLLATE "C"`), as SQLite's text does, so that a run id
    // prefix and the event range `task.` to `task/` mean what they mean there.
    //
    // `hookrig_ledger_apply` applies a batch of ledger writes (a JSON array, one object
    // per write) in order, in the one statement that calls it: the engine's ledger
    // writer pays one round trip per batch however many emits it holds. A write that
    // cannot be applied (a run id recorded twice, an unknown one) is skipped and named in
    // its place of the returned array, and the others are kept, as the SQLite writer's
    // savepoints do. `hookrig_jsonb` reads a payload as JSON, or NULL when it is not.
    r#"
    CREATE TABLE emits (
        run_id        text COLLATE "C" PRIMARY KEY,
        started_at_ms bigint NOT NULL,
        event         text COLLATE "C" NOT NULL,
        dialect       text NOT NULL,
        cwd           text NOT NULL,
        session_id    text NOT NULL,
        decision      text NOT NULL,
        reason        text,
        decided_by    text,
        duration_ms   double precision NOT NULL,
        payload_in    text NOT NULL,
        payload_out   text NOT NULL,
        warnings      text NOT NULL DEFAULT '[]',
        agent         text,
        owner         text,
        by_engine     boolean NOT NULL DEFAULT false,
        seq           bigint GENERATED ALWAYS AS IDENTITY UNIQUE
    );
    CREATE INDEX emits_by_time ON emits (started_at_ms, seq);
    CREATE INDEX emits_by_event_time ON emits (event, started_at_ms, seq);
    CREATE INDEX emits_by_agent_time ON emits (agent, started_at_ms, seq);
    CREATE INDEX emits_by_event_agent_time ON emits (event, agent, started_at_ms, seq);
    CREATE INDEX emits_by_dialect_time ON emits (dialect, started_at_ms, seq);
    CREATE INDEX emits_by_rare_decision_time ON emits (decision, started_at_ms, seq)
        WHERE decision NOT IN ('allow', 'running');
    CREATE INDEX emits_running ON emits (run_id) WHERE decision = 'running';

    CREATE TABLE hook_runs (
        run_id      text COLLATE "C" NOT NULL REFERENCES emits (run_id) ON DELETE CASCADE,
        seq         bigint NOT NULL,
        name        text NOT NULL,
        source      text NOT NULL,
        dialect     text NOT NULL,
        matched     boolean NOT NULL,
        skip_reason text,
        result      text NOT NULL,
        exit_code   integer,
        duration_ms double precision,
        reason      text,
        stderr      text,
        stdout      text,
        truncated   boolean NOT NULL,
        is_async    boolean NOT NULL,
        shadow      boolean NOT NULL DEFAULT false,
        PRIMARY KEY (run_id, seq)
    );
    CREATE INDEX hook_runs_matched_by_name ON hook_runs (name, run_id) WHERE matched;

    CREATE FUNCTION hookrig_jsonb(payload text) RETURNS jsonb
    LANGUAGE plpgsql IMMUTABLE AS $$
    BEGIN
        RETURN payload::jsonb;
    EXCEPTION WHEN others THEN
        RETURN NULL;
    END
    $$;

    -- One hook row of `run` for the emit `id` at `at`.
    CREATE FUNCTION hookrig_hook_row(id text, at bigint, run jsonb) RETURNS hook_runs
    LANGUAGE sql IMMUTABLE AS $$
        SELECT id, at, run->>'name', run->>'source', run->>'dialect',
               (run->>'matched')::boolean, run->>'skip_reason', run->>'result',
               (run->>'exit_code')::integer, (run->>'duration_ms')::double precision,
               run->>'reason', run->>'stderr', run->>'stdout', (run->>'truncated')::boolean,
               (run->>'is_async')::boolean, coalesce((run->>'shadow')::boolean, false)
    $$;

    -- Each write is {"op": "begin" | "finish" | "record", "emit": EMIT, "owner": TEXT}
    -- or {"op": "complete" | "append", "run_id": TEXT, "runs": [HOOK...]}, EMIT and
    -- HOOK as hookrig serializes its EmitRecord and HookRun. The answer has one element
    -- per write: NULL when applied, `duplicate` or `unknown` when not.
    CREATE FUNCTION hookrig_ledger_apply(writes text) RETURNS text[]
    LANGUAGE plpgsql AS $$
    DECLARE
        w        jsonb;
        e        jsonb;
        run      jsonb;
        id       text;
        done     boolean;
        next_seq bigint;
        results  text[] := '{}';
    BEGIN
        FOR w IN SELECT value FROM jsonb_array_elements(writes::jsonb) LOOP
            e := w->'emit';
            IF w->>'op' = 'begin' THEN
                INSERT INTO emits (run_id, started_at_ms, event, dialect, cwd, session_id,
                    decision, duration_ms, payload_in, payload_out, agent, owner, by_engine)
                VALUES (e->>'run_id', (e->>'started_at_ms')::bigint, e->>'event',
                    e->>'dialect', e->>'cwd', e->>'session_id', 'running', 0,
                    e->>'payload_in', '', e->>'agent', w->>'owner',
                    coalesce((e->>'by_engine')::boolean, false))
                ON CONFLICT (run_id) DO NOTHING;
                results := array_append(results, CASE WHEN FOUND THEN NULL ELSE 'duplicate' END);
            ELSIF w->>'op' IN ('finish', 'record') THEN
                done := false;
                IF w->>'op' = 'finish' THEN
                    -- Completes the row `begin` wrote, unless it was never written.
                    UPDATE emits SET started_at_ms = (e->>'started_at_ms')::bigint,
                        event = e->>'event', dialect = e->>'dialect', cwd = e->>'cwd',
                        session_id = e->>'session_id', decision = e->>'decision',
                        reason = e->>'reason', decided_by = e->>'decided_by',
                        duration_ms = (e->>'duration_ms')::double precision,
                        payload_in = e->>'payload_in', payload_out = e->>'payload_out',
                        warnings = coalesce(e->'warnings', '[]')::text, agent = e->>'agent',
                        owner = NULL, by_engine = coalesce((e->>'by_engine')::boolean, false)
                    WHERE run_id = e->>'run_id' AND decision IN ('running', 'interrupted');
                    done := FOUND;
                END IF;
                IF NOT done THEN
                    INSERT INTO emits (run_id, started_at_ms, event, dialect, cwd, session_id,
                        decision, reason, decided_by, duration_ms, payload_in, payload_out,
                        warnings, agent, by_engine)
                    VALUES (e->>'run_id', (e->>'started_at_ms')::bigint, e->>'event',
                        e->>'dialect', e->>'cwd', e->>'session_id', e->>'decision',
                        e->>'reason', e->>'decided_by', (e->>'duration_ms')::double precision,
                        e->>'payload_in', e->>'payload_out',
                        coalesce(e->'warnings', '[]')::text, e->>'agent',
                        coalesce((e->>'by_engine')::boolean, false))
                    ON CONFLICT (run_id) DO NOTHING;
                    done := FOUND;
                END IF;
                IF done THEN
                    -- In FROM, so that the row is built once (`(f()).*` calls f per column).
                    INSERT INTO hook_runs
                    SELECT r.*
                    FROM jsonb_array_elements(coalesce(e->'hooks', '[]')) WITH ORDINALITY AS h (run, at),
                         LATERAL hookrig_hook_row(e->>'run_id', h.at - 1, h.run) AS r;
                    results := array_append(results, NULL);
                ELSE
                    results := array_append(results, 'duplicate');
                END IF;
            ELSE
                id := w->>'run_id';
                IF NOT EXISTS (SELECT 1 FROM emits WHERE run_id = id) THEN
                    results := array_append(results, 'unknown');
                    CONTINUE;
                END IF;
                SELECT coalesce(max(seq) + 1, 0) INTO next_seq FROM hook_runs WHERE run_id = id;
                FOR run IN SELECT value FROM jsonb_array_elements(coalesce(w->'runs', '[]')) LOOP
                    done := false;
                    IF w->>'op' = 'complete' THEN
                        -- The hook's first `dispatched` row, so that two hooks of one
                        -- name each get their own.
                        UPDATE hook_runs SET (dialect, matched, skip_reason, result, exit_code,
                                duration_ms, reason, stderr, stdout, truncated, is_async, shadow)
                            = (SELECT r.dialect, r.matched, r.skip_reason, r.result, r.exit_code,
                                   r.duration_ms, r.reason, r.stderr, r.stdout, r.truncated,
                                   r.is_async, r.shadow
                               FROM hookrig_hook_row(id, 0, run) AS r)
                        WHERE run_id = id AND seq = (
                            SELECT min(seq) FROM hook_runs
                            WHERE run_id = id AND name = run->>'name'
                              AND source = run->>'source' AND result = 'dispatched');
                        done := FOUND;
                    END IF;
                    IF NOT done THEN
                        INSERT INTO hook_runs SELECT r.* FROM hookrig_hook_row(id, next_seq, run) AS r;
                        next_seq := next_seq + 1;
                    END IF;
                END LOOP;
                results := array_append(results, NULL);
            END IF;
        END LOOP;
        RETURN results;
    END
    $$;
    "#,
    // Version 7: one shared index of each project's notes while every node indexes its
    // own checkout (docs/postgres.md, "Memory"). A note is keyed by its path under the
    // notes directory; `digest` is the SHA-256 of the file it was indexed from, `mtime_ns`
    // that file's modification time and `writer` the node (host and notes directory) that
    // wrote it last. Rows written before (or copied by `store migrate`) have neither.
    "
    ALTER TABLE memory_notes
        ADD COLUMN digest text NOT NULL DEFAULT '',
        ADD COLUMN writer text NOT NULL DEFAULT '';
    ",
    // Version 8: the agents `hookrig agent spawn` started on every machine, as the SQLite
    // file's `agents`, keyed by the machine's host name and the worktree's path (unique
    // on one machine only). Times in milliseconds since the Unix epoch.
    "
    CREATE TABLE agents (
        host        text COLLATE \"C\" NOT NULL,
        worktree    text COLLATE \"C\" NOT NULL,
        repo        text NOT NULL,
        task        text NOT NULL,
        plan        text NOT NULL,
        agent       text NOT NULL,
        provider    text NOT NULL,
        branch      text NOT NULL,
        log         text NOT NULL,
        pid         bigint,
        proc_start  bigint,
        started_at  bigint NOT NULL,
        exit_code   bigint,
        exit_signal bigint,
        ended_at    bigint,
        stopped_at  bigint,
        PRIMARY KEY (host, worktree)
    );
    CREATE INDEX agents_by_task ON agents (task);
    ",
    // Version 9: the operator's signature of each registry row (docs/postgres.md,
    // "Plugins"): a package's content `digest` as it was when the operator registered
    // it, and an HMAC-SHA256 over the row (`crate::signing`). A row without one (written
    // straight into the database, or by an older build) is never run.
    "
    ALTER TABLE plugins
        ADD COLUMN digest text NOT NULL DEFAULT '',
        ADD COLUMN signature text NOT NULL DEFAULT '';
    ALTER TABLE agent_plugins
        ADD COLUMN signature text NOT NULL DEFAULT '';
    ",
    // Version 10: the automations' definitions every node runs (docs/postgres.md, "The
    // automations"), as the SQLite work file's `automations`; `seq` is the order they
    // were first stored in, the order the engine examines them in, and `signature` the
    // operator's over the row (`crate::signed_automations`): a row without one runs on
    // no node. `automations_revision`
    // counts the changes of the table, bumped in the writing transaction by a statement
    // trigger (whoever writes it, by whatever statement), so that a node reads the whole
    // table again only when the one number it reads on each tick has moved.
    "
    CREATE TABLE automations (
        seq                bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        id                 text PRIMARY KEY,
        project_id         text NOT NULL,
        name               text NOT NULL,
        enabled            boolean NOT NULL,
        trigger            text NOT NULL,
        context_steps      text NOT NULL,
        prompt_template    text NOT NULL,
        llm_config         text,
        cooldown_seconds   bigint NOT NULL,
        max_tokens_per_run bigint,
        source             text,
        created_at         double precision NOT NULL,
        updated_at         double precision NOT NULL,
        held               text,
        tools              text,
        signature          text NOT NULL DEFAULT ''
    );
    CREATE INDEX automations_by_source ON automations (source);

    CREATE TABLE automations_revision (revision bigint NOT NULL);
    INSERT INTO automations_revision (revision) VALUES (0);

    CREATE FUNCTION hookrig_automations_changed() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE automations_revision SET revision = revision + 1;
        RETURN NULL;
    END
    $$;
    CREATE TRIGGER automations_changed
        AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON automations
        FOR EACH STATEMENT EXECUTE FUNCTION hookrig_automations_changed();
    ",
    // Version 11: a change of the plugin registry empties the nodes' caches of it
    // (docs/postgres.md, "Plugins"): every statement that writes `plugins` or
    // `agent_plugins`, whoever runs it, notifies `hookrig_plugins` in its own
    // transaction, which PostgreSQL delivers when that commits
    // (`crate::pg::registry_changes`).
    "
    CREATE FUNCTION hookrig_plugins_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        PERFORM pg_notify('hookrig_plugins', '');
        RETURN NULL;
    END
    $$;
    CREATE TRIGGER plugins_changed
        AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON plugins
        FOR EACH STATEMENT EXECUTE FUNCTION hookrig_plugins_changed();
    CREATE TRIGGER agent_plugins_changed
        AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON agent_plugins
        FOR EACH STATEMENT EXECUTE FUNCTION hookrig_plugins_changed();
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
