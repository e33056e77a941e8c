//! `hookrig store migrate --to postgres://...`: the SQLite store's tables that the
//! PostgreSQL store holds too (docs/postgres.md) copied into a database, and counted
//! there afterwards: among them the ledger (`emits` and `hook_runs`).
//!
//! The copy is idempotent rather than refusing a database that holds rows already: a row
//! whose key is there is left as it is, so that a migration cut short (the network, a
//! signal) is finished by running it again, and a node that started on the database
//! before the copy keeps its runs. Each table is copied by one statement (its columns
//! sent as arrays), all in one transaction: the database sees the whole copy or nothing.

use std::fmt;

use serde::Serialize;

use crate::automations::AutomationRow;
use crate::errors::StoreError;
use crate::pg::PgStore;
use crate::signing::RegistryKey;
use crate::store::Store;

/// What a migration did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Migration {
    /// The SQLite ledger the rows came from.
    pub from: String,
    /// The database, as its URL without the password.
    pub to: String,
    /// Each table copied, in the order it was.
    pub tables: Vec<TableCopy>,
}

/// One table of a [`Migration`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TableCopy {
    /// The table.
    pub table: &'static str,
    /// Its rows in the SQLite store.
    pub rows: i64,
    /// How many of them were new to the database and copied.
    pub copied: u64,
    /// How many the database held already (same key), left as they were.
    pub already_there: u64,
}

/// The automations' definitions of the SQLite store, column by column, in the order
/// they were first stored (the order the engine examines them in).
#[derive(Default)]
struct AutomationColumns {
    id: Vec<String>,
    project_id: Vec<String>,
    name: Vec<String>,
    enabled: Vec<bool>,
    trigger: Vec<String>,
    context_steps: Vec<String>,
    prompt_template: Vec<String>,
    llm_config: Vec<Option<String>>,
    cooldown_seconds: Vec<i64>,
    max_tokens_per_run: Vec<Option<i64>>,
    source: Vec<Option<String>>,
    created_at: Vec<f64>,
    updated_at: Vec<f64>,
    held: Vec<Option<String>>,
    tools: Vec<Option<String>>,
    /// The operator's signature of each, when the migration has the key; else empty,
    /// and no node runs them until the operator adds them again.
    signature: Vec<String>,
}

impl AutomationColumns {
    /// Signs every row with `key`.
    fn sign(&mut self, key: &RegistryKey) {
        self.signature = (0..self.id.len())
            .map(|i| {
                key.sign_automation(&AutomationRow {
                    id: self.id[i].clone(),
                    project_id: self.project_id[i].clone(),
                    name: self.name[i].clone(),
                    enabled: self.enabled[i],
                    trigger: self.trigger[i].clone(),
                    context_steps: self.context_steps[i].clone(),
                    prompt_template: self.prompt_template[i].clone(),
                    llm_config: self.llm_config[i].clone(),
                    cooldown_seconds: self.cooldown_seconds[i],
                    max_tokens_per_run: self.max_tokens_per_run[i],
                    source: self.source[i].clone(),
                    created_at: self.created_at[i],
                    updated_at: self.updated_at[i],
                    held: self.held[i].clone(),
                    tools: self.tools[i].clone(),
                })
            })
            .collect();
    }
}

/// The automation runs of the SQLite store, column by column, as the copy sends them.
#[derive(Default)]
struct RunColumns {
    id: Vec<String>,
    automation_id: Vec<String>,
    project_id: Vec<String>,
    trigger_reason: Vec<String>,
    status: Vec<String>,
    event_data: Vec<Option<String>>,
    context_results: Vec<Option<String>>,
    prompt_sent: Vec<Option<String>>,
    llm_response: Vec<Option<String>>,
    actions_taken: Vec<Option<String>>,
    skipped_reason: Vec<Option<String>>,
    tokens_used: Vec<i64>,
    started_at: Vec<f64>,
    completed_at: Vec<Option<f64>>,
    owner: Vec<Option<String>>,
}

/// The fired periods of the SQLite store, column by column.
#[derive(Default)]
struct PeriodColumns {
    automation_id: Vec<String>,
    period: Vec<i64>,
    run_id: Vec<String>,
}

/// The nodes of the SQLite store, column by column.
#[derive(Default)]
struct NodeColumns {
    id: Vec<String>,
    host: Vec<String>,
    pid: Vec<i64>,
    started_at: Vec<f64>,
    heartbeat_at: Vec<f64>,
}

/// The memory index of the SQLite store, column by column, in the order it was
/// written (so that `get` reads the same last entry).
#[derive(Default)]
struct MemoryColumns {
    project_id: Vec<String>,
    kind: Vec<String>,
    source: Vec<String>,
    heading: Vec<String>,
    content: Vec<String>,
}

/// The notes the memory index was built from, column by column.
#[derive(Default)]
struct NoteColumns {
    project_id: Vec<String>,
    path: Vec<String>,
    mtime_ns: Vec<i64>,
}

/// The tasks of the SQLite store, column by column.
#[derive(Default)]
struct TaskColumns {
    id: Vec<String>,
    project_id: Vec<String>,
    title: Vec<String>,
    description: Vec<String>,
    parent_task_id: Vec<Option<String>>,
    profile_id: Vec<Option<String>>,
    preferred_workspace_id: Vec<Option<String>>,
    branch_name: Vec<Option<String>>,
    priority: Vec<i64>,
    context_entries: Vec<String>,
    status: Vec<String>,
    result: Vec<Option<String>>,
    error: Vec<Option<String>>,
    created_by: Vec<Option<String>>,
    created_at: Vec<f64>,
    updated_at: Vec<f64>,
}

/// The plugin packages of the SQLite store, column by column, in registration order.
#[derive(Default)]
struct PluginColumns {
    id: Vec<String>,
    name: Vec<String>,
    description: Vec<String>,
    path: Vec<String>,
    version: Vec<Option<String>>,
    registered_at: Vec<i64>,
}

/// The packages' enablement per agent, column by column.
#[derive(Default)]
struct EnablementColumns {
    plugin_id: Vec<String>,
    agent: Vec<String>,
    enabled: Vec<bool>,
}

/// The emits of the SQLite ledger, column by column.
#[derive(Default)]
struct EmitColumns {
    run_id: Vec<String>,
    started_at_ms: Vec<i64>,
    event: Vec<String>,
    dialect: Vec<String>,
    cwd: Vec<String>,
    session_id: Vec<String>,
    decision: Vec<String>,
    reason: Vec<Option<String>>,
    decided_by: Vec<Option<String>>,
    duration_ms: Vec<f64>,
    payload_in: Vec<String>,
    payload_out: Vec<String>,
    warnings: Vec<String>,
    agent: Vec<Option<String>>,
    owner: Vec<Option<String>>,
    by_engine: Vec<bool>,
}

/// The hook rows of the SQLite ledger, column by column.
#[derive(Default)]
struct HookRunColumns {
    run_id: Vec<String>,
    seq: Vec<i64>,
    name: Vec<String>,
    source: Vec<String>,
    dialect: Vec<String>,
    matched: Vec<bool>,
    skip_reason: Vec<Option<String>>,
    result: Vec<String>,
    exit_code: Vec<Option<i32>>,
    duration_ms: Vec<Option<f64>>,
    reason: Vec<Option<String>>,
    stderr: Vec<Option<String>>,
    stdout: Vec<Option<String>>,
    truncated: Vec<bool>,
    is_async: Vec<bool>,
    shadow: Vec<bool>,
}

/// The agents of the SQLite store, column by column, named by this machine.
#[derive(Default)]
struct AgentColumns {
    host: Vec<String>,
    worktree: Vec<String>,
    repo: Vec<String>,
    task: Vec<String>,
    plan: Vec<String>,
    agent: Vec<String>,
    provider: Vec<String>,
    branch: Vec<String>,
    log: Vec<String>,
    pid: Vec<Option<i64>>,
    proc_start: Vec<Option<i64>>,
    started_at: Vec<i64>,
    exit_code: Vec<Option<i64>>,
    exit_signal: Vec<Option<i64>>,
    ended_at: Vec<Option<i64>>,
    stopped_at: Vec<Option<i64>>,
}

/// Every row a migration copies.
#[derive(Default)]
struct Source {
    automations: AutomationColumns,
    runs: RunColumns,
    periods: PeriodColumns,
    nodes: NodeColumns,
    memory: MemoryColumns,
    notes: NoteColumns,
    tasks: TaskColumns,
    plugins: PluginColumns,
    enablement: EnablementColumns,
    emits: EmitColumns,
    hook_runs: HookRunColumns,
    agents: AgentColumns,
}

/// Copies the SQLite store at `ledger` (opened read-only) into the PostgreSQL store at
/// `url` (migrated first), the automations signed with `key`: see [`Store::migrate_to`].
pub fn migrate(
    ledger: &std::path::Path,
    url: &str,
    key: Option<&RegistryKey>,
) -> Result<Migration, StoreError> {
    if !ledger.exists() {
        return Err(StoreError::NoStore(ledger.to_owned()));
    }
    let source = Store::open_read_only(ledger)?;
    let target = PgStore::open(url)?;
    source.migrate_to(&target, key)
}

impl Store {
    /// Copies this store's automations (those the operator added, not a project's
    /// files'), automation runs, fired periods, nodes, memory index, tasks,
    /// plugin registry and ledger (emits and their hook rows) into `target`, then checks
    /// that every row is there. Refused while a run is `running` here: its node
    /// holds no lease on `target`, so no node there could tell it from a run in flight.
    /// The automations are signed with `key`, the operator's, whose own store this is;
    /// without it no node runs them until the operator adds them again.
    pub fn migrate_to(
        &self,
        target: &PgStore,
        key: Option<&RegistryKey>,
    ) -> Result<Migration, StoreError> {
        let running: i64 = self
            .conn()
            .query_row(
                "SELECT count(*) FROM automation_runs WHERE status = 'running'",
                [],
                |row| row.get(0),
            )
            .map_err(self.fail("read the store to migrate"))?;
        if running > 0 {
            return Err(StoreError::RunsInFlight {
                path: self.path().to_owned(),
                running,
            });
        }
        let mut source = self
            .read_source()
            .map_err(self.fail("read the store to migrate"))?;
        if let Some(key) = key {
            source.automations.sign(key);
        } else {
            source.automations.signature = vec![String::new(); source.automations.id.len()];
        }
        let (copied, found) = target
            .client()
            .with("copy the SQLite store", |conn| copy(conn, &source))?;
        let sources = [
            ("automations", source.automations.id.len()),
            ("automation_runs", source.runs.id.len()),
            ("automation_periods", source.periods.run_id.len()),
            ("nodes", source.nodes.id.len()),
            ("memory_notes", source.notes.path.len()),
            ("memory", source.memory.source.len()),
            ("tasks", source.tasks.id.len()),
            ("plugins", source.plugins.id.len()),
            ("agent_plugins", source.enablement.agent.len()),
            ("emits", source.emits.run_id.len()),
            ("hook_runs", source.hook_runs.run_id.len()),
            ("agents", source.agents.worktree.len()),
        ];
        let mut tables = Vec::with_capacity(sources.len());
        for (((table, rows), copied), found) in sources.into_iter().zip(copied).zip(found) {
            let rows = i64::try_from(rows).unwrap_or(i64::MAX);
            if found != rows {
                return Err(StoreError::MigrationCount {
                    database: target.database().to_owned(),
                    table,
                    rows,
                    found,
                });
            }
            tables.push(TableCopy {
                table,
                rows,
                copied,
                already_there: u64::try_from(rows).unwrap_or(0).saturating_sub(copied),
            });
        }
        Ok(Migration {
            from: self.path().display().to_string(),
            to: target.database().to_owned(),
            tables,
        })
    }

    /// The rows to copy, column by column.
    fn read_source(&self) -> rusqlite::Result<Source> {
        let conn = self.conn();
        let mut source = Source::default();
        read_automations(conn, &mut source.automations)?;
        let runs = &mut source.runs;
        let mut select = conn.prepare(
            "SELECT id, automation_id, project_id, trigger_reason, status, event_data,
                    context_results, prompt_sent, llm_response, actions_taken, skipped_reason,
                    tokens_used, started_at, completed_at, owner
             FROM automation_runs ORDER BY rowid",
        )?;
        let mut rows = select.query([])?;
        while let Some(row) = rows.next()? {
            runs.id.push(row.get(0)?);
            runs.automation_id.push(row.get(1)?);
            runs.project_id.push(row.get(2)?);
            runs.trigger_reason.push(row.get(3)?);
            runs.status.push(row.get(4)?);
            runs.event_data.push(row.get(5)?);
            runs.context_results.push(row.get(6)?);
            runs.prompt_sent.push(row.get(7)?);
            runs.llm_response.push(row.get(8)?);
            runs.actions_taken.push(row.get(9)?);
            runs.skipped_reason.push(row.get(10)?);
            runs.tokens_used.push(row.get(11)?);
            runs.started_at.push(row.get(12)?);
            runs.completed_at.push(row.get(13)?);
            runs.owner.push(row.get(14)?);
        }
        let periods = &mut source.periods;
        let mut select =
            conn.prepare("SELECT automation_id, period, run_id FROM automation_periods")?;
        let mut rows = select.query([])?;
        while let Some(row) = rows.next()? {
            periods.automation_id.push(row.get(0)?);
            periods.period.push(row.get(1)?);
            periods.run_id.push(row.get(2)?);
        }
        let nodes = &mut source.nodes;
        let mut select =
            conn.prepare("SELECT id, host, pid, started_at, heartbeat_at FROM nodes")?;
        let mut rows = select.query([])?;
        while let Some(row) = rows.next()? {
            nodes.id.push(row.get(0)?);
            nodes.host.push(row.get(1)?);
            nodes.pid.push(row.get(2)?);
            nodes.started_at.push(row.get(3)?);
            nodes.heartbeat_at.push(row.get(4)?);
        }
        read_memory(conn, &mut source.memory, &mut source.notes)?;
        read_tasks(conn, &mut source.tasks)?;
        read_plugins(conn, &mut source.plugins, &mut source.enablement)?;
        self.read_ledger(&mut source)?;
        read_agents(conn, &mut source.agents)?;
        Ok(source)
    }

    /// The ledger's emits (in the order they were written, so that the database's `seq`
    /// keeps it) and hook rows. An emit still `running` names its process as the
    /// PostgreSQL ledger does, with this machine's host, so that this machine marks it
    /// `interrupted` there once its process is gone.
    fn read_ledger(&self, source: &mut Source) -> rusqlite::Result<()> {
        let conn = self.conn();
        let host = format!("@{}", crate::owner::host_name());
        let emits = &mut source.emits;
        let mut select = conn.prepare(
            "SELECT run_id, started_at_ms, event, dialect, cwd, session_id, decision, reason,
                    decided_by, duration_ms, payload_in, payload_out, warnings, agent, owner,
                    by_engine
             FROM emits ORDER BY rowid",
        )?;
        let mut rows = select.query([])?;
        while let Some(row) = rows.next()? {
            emits.run_id.push(row.get(0)?);
            emits.started_at_ms.push(row.get(1)?);
            emits.event.push(row.get(2)?);
            emits.dialect.push(row.get(3)?);
            emits.cwd.push(row.get(4)?);
            emits.session_id.push(row.get(5)?);
            emits.decision.push(row.get(6)?);
            emits.reason.push(row.get(7)?);
            emits.decided_by.push(row.get(8)?);
            emits.duration_ms.push(row.get(9)?);
            emits.payload_in.push(row.get(10)?);
            emits.payload_out.push(row.get(11)?);
            emits.warnings.push(row.get(12)?);
            emits.agent.push(row.get(13)?);
            let owner: Option<String> = row.get(14)?;
            emits.owner.push(owner.map(|owner| owner + &host));
            emits.by_engine.push(row.get(15)?);
        }
        let hooks = &mut source.hook_runs;
        let mut select = conn.prepare(
            "SELECT run_id, seq, name, source, dialect, matched, skip_reason, result, exit_code,
                    duration_ms, reason, stderr, stdout, truncated, is_async, shadow
             FROM hook_runs",
        )?;
        let mut rows = select.query([])?;
        while let Some(row) = rows.next()? {
            hooks.run_id.push(row.get(0)?);
            hooks.seq.push(row.get(1)?);
            hooks.name.push(row.get(2)?);
            hooks.source.push(row.get(3)?);
            hooks.dialect.push(row.get(4)?);
            hooks.matched.push(row.get(5)?);
            hooks.skip_reason.push(row.get(6)?);
            hooks.result.push(row.get(7)?);
            hooks.exit_code.push(row.get(8)?);
            hooks.duration_ms.push(row.get(9)?);
            hooks.reason.push(row.get(10)?);
            hooks.stderr.push(row.get(11)?);
            hooks.stdout.push(row.get(12)?);
            hooks.truncated.push(row.get(13)?);
            hooks.is_async.push(row.get(14)?);
            hooks.shadow.push(row.get(15)?);
        }
        Ok(())
    }
}

/// The memory index and its notes, in the order they were written.
fn read_memory(
    conn: &rusqlite::Connection,
    memory: &mut MemoryColumns,
    indexed: &mut NoteColumns,
) -> rusqlite::Result<()> {
    let mut select = conn
        .prepare("SELECT project_id, kind, source, heading, content FROM memory ORDER BY rowid")?;
    let mut rows = select.query([])?;
    while let Some(row) = rows.next()? {
        memory.project_id.push(row.get(0)?);
        memory.kind.push(row.get(1)?);
        memory.source.push(row.get(2)?);
        memory.heading.push(row.get(3)?);
        memory.content.push(row.get(4)?);
    }
    let mut select = conn.prepare("SELECT project_id, path, mtime_ns FROM memory_notes")?;
    let mut rows = select.query([])?;
    while let Some(row) = rows.next()? {
        indexed.project_id.push(row.get(0)?);
        indexed.path.push(row.get(1)?);
        indexed.mtime_ns.push(row.get(2)?);
    }
    Ok(())
}

/// The tasks.
/// The agents `hookrig agent spawn` started on this machine: the SQLite file is one
/// machine's, so each row is named by this machine's host in the database.
fn read_agents(conn: &rusqlite::Connection, agents: &mut AgentColumns) -> rusqlite::Result<()> {
    let mut select = conn.prepare(
        "SELECT worktree, repo, task, plan, agent, provider, branch, log, pid, proc_start,
                started_at, exit_code, exit_signal, ended_at, stopped_at
         FROM agents ORDER BY started_at, worktree",
    )?;
    let host = crate::owner::host_name();
    let mut rows = select.query([])?;
    while let Some(row) = rows.next()? {
        agents.host.push(host.clone());
        agents.worktree.push(row.get(0)?);
        agents.repo.push(row.get(1)?);
        agents.task.push(row.get(2)?);
        agents.plan.push(row.get(3)?);
        agents.agent.push(row.get(4)?);
        agents.provider.push(row.get(5)?);
        agents.branch.push(row.get(6)?);
        agents.log.push(row.get(7)?);
        agents.pid.push(row.get(8)?);
        agents.proc_start.push(row.get(9)?);
        agents.started_at.push(row.get(10)?);
        agents.exit_code.push(row.get(11)?);
        agents.exit_signal.push(row.get(12)?);
        agents.ended_at.push(row.get(13)?);
        agents.stopped_at.push(row.get(14)?);
    }
    Ok(())
}

/// The automations' definitions the operator stored (`hookrig auto add`), in the order
/// they were first stored. Those of a project's `.hookrig/automations/` are left out:
/// each node loads them from its own checkout, under its own machine's trust
/// (docs/postgres.md, "The automations"), and a copy in the database would run on
/// every node, trusted there or not.
fn read_automations(
    conn: &rusqlite::Connection,
    automations: &mut AutomationColumns,
) -> rusqlite::Result<()> {
    let mut select = conn.prepare(
        "SELECT id, project_id, name, enabled, trigger, context_steps, prompt_template,
                llm_config, cooldown_seconds, max_tokens_per_run, source, created_at,
                updated_at, held, tools
         FROM automations
         WHERE source IS NULL OR source NOT LIKE '%/.hookrig/automations/%'
         ORDER BY rowid",
    )?;
    let mut rows = select.query([])?;
    while let Some(row) = rows.next()? {
        automations.id.push(row.get(0)?);
        automations.project_id.push(row.get(1)?);
        automations.name.push(row.get(2)?);
        automations.enabled.push(row.get(3)?);
        automations.trigger.push(row.get(4)?);
        automations.context_steps.push(row.get(5)?);
        automations.prompt_template.push(row.get(6)?);
        automations.llm_config.push(row.get(7)?);
        automations.cooldown_seconds.push(row.get(8)?);
        automations.max_tokens_per_run.push(row.get(9)?);
        automations.source.push(row.get(10)?);
        automations.created_at.push(row.get(11)?);
        automations.updated_at.push(row.get(12)?);
        automations.held.push(row.get(13)?);
        automations.tools.push(row.get(14)?);
    }
    Ok(())
}

fn read_tasks(conn: &rusqlite::Connection, tasks: &mut TaskColumns) -> rusqlite::Result<()> {
    let mut select = conn.prepare(
        "SELECT id, project_id, title, description, parent_task_id, profile_id,
                preferred_workspace_id, branch_name, priority, context_entries, status,
                result, error, created_by, created_at, updated_at
         FROM tasks",
    )?;
    let mut rows = select.query([])?;
    while let Some(row) = rows.next()? {
        tasks.id.push(row.get(0)?);
        tasks.project_id.push(row.get(1)?);
        tasks.title.push(row.get(2)?);
        tasks.description.push(row.get(3)?);
        tasks.parent_task_id.push(row.get(4)?);
        tasks.profile_id.push(row.get(5)?);
        tasks.preferred_workspace_id.push(row.get(6)?);
        tasks.branch_name.push(row.get(7)?);
        tasks.priority.push(row.get(8)?);
        tasks.context_entries.push(row.get(9)?);
        tasks.status.push(row.get(10)?);
        tasks.result.push(row.get(11)?);
        tasks.error.push(row.get(12)?);
        tasks.created_by.push(row.get(13)?);
        tasks.created_at.push(row.get(14)?);
        tasks.updated_at.push(row.get(15)?);
    }
    Ok(())
}

/// The plugin packages, in registration order, and their enablement.
fn read_plugins(
    conn: &rusqlite::Connection,
    plugins: &mut PluginColumns,
    enablement: &mut EnablementColumns,
) -> rusqlite::Result<()> {
    let mut select = conn.prepare(
        "SELECT id, name, description, path, version, registered_at FROM plugins
         ORDER BY rowid",
    )?;
    let mut rows = select.query([])?;
    while let Some(row) = rows.next()? {
        plugins.id.push(row.get(0)?);
        plugins.name.push(row.get(1)?);
        plugins.description.push(row.get(2)?);
        plugins.path.push(row.get(3)?);
        plugins.version.push(row.get(4)?);
        plugins.registered_at.push(row.get(5)?);
    }
    let mut select = conn.prepare("SELECT plugin_id, agent, enabled FROM agent_plugins")?;
    let mut rows = select.query([])?;
    while let Some(row) = rows.next()? {
        enablement.plugin_id.push(row.get(0)?);
        enablement.agent.push(row.get(1)?);
        enablement.enabled.push(row.get(2)?);
    }
    Ok(())
}

/// Writes `source` into the database in one transaction, then counts, by key, how many
/// of its rows the database holds: the rows each table gained, and the rows found.
fn copy(
    conn: &mut postgres::Client,
    source: &Source,
) -> Result<([u64; 12], [i64; 12]), postgres::Error> {
    let mut tx = conn.transaction()?;
    let (automations_copied, automations_found) = copy_automations(&mut tx, &source.automations)?;
    let ([runs, periods, nodes], [runs_found, periods_found, nodes_found]) =
        copy_runs(&mut tx, source)?;
    let (memory_copied, memory_found) = copy_memory(&mut tx, &source.memory, &source.notes)?;
    let (tasks_copied, tasks_found) = copy_tasks(&mut tx, &source.tasks)?;
    let (plugins_copied, plugins_found) =
        copy_plugins(&mut tx, &source.plugins, &source.enablement)?;
    let ledger_copied = copy_ledger(&mut tx, &source.emits, &source.hook_runs)?;
    let ledger_found = [
        tx.query_one(
            "SELECT count(*) FROM emits WHERE run_id = ANY($1)",
            &[&source.emits.run_id],
        )?
        .get::<_, i64>(0),
        tx.query_one(
            "SELECT count(*) FROM hook_runs
             WHERE (run_id, seq) IN (SELECT * FROM unnest($1::text[], $2::bigint[]))",
            &[&source.hook_runs.run_id, &source.hook_runs.seq],
        )?
        .get::<_, i64>(0),
    ];
    let (agents_copied, agents_found) = copy_agents(&mut tx, &source.agents)?;
    tx.commit()?;
    Ok((
        [
            automations_copied,
            runs,
            periods,
            nodes,
            memory_copied[0],
            memory_copied[1],
            tasks_copied,
            plugins_copied[0],
            plugins_copied[1],
            ledger_copied[0],
            ledger_copied[1],
            agents_copied,
        ],
        [
            automations_found,
            runs_found,
            periods_found,
            nodes_found,
            memory_found[0],
            memory_found[1],
            tasks_found,
            plugins_found[0],
            plugins_found[1],
            ledger_found[0],
            ledger_found[1],
            agents_found,
        ],
    ))
}

/// Writes the ledger's rows inside the copy's transaction `tx`; returns how many rows
/// `emits` and `hook_runs` gained. A row whose key the database holds is left as it is,
/// as in the other tables.
fn copy_ledger(
    tx: &mut postgres::Transaction<'_>,
    emits: &EmitColumns,
    hooks: &HookRunColumns,
) -> Result<[u64; 2], postgres::Error> {
    let emits_copied = tx.execute(
        "INSERT INTO emits (run_id, started_at_ms, event, dialect, cwd, session_id, decision,
             reason, decided_by, duration_ms, payload_in, payload_out, warnings, agent, owner,
             by_engine)
         SELECT run_id, started_at_ms, event, dialect, cwd, session_id, decision, reason,
             decided_by, duration_ms, payload_in, payload_out, warnings, agent, owner, by_engine
         FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[],
             $7::text[], $8::text[], $9::text[], $10::float8[], $11::text[], $12::text[],
             $13::text[], $14::text[], $15::text[], $16::bool[])
             WITH ORDINALITY AS source (run_id, started_at_ms, event, dialect, cwd, session_id,
                 decision, reason, decided_by, duration_ms, payload_in, payload_out, warnings,
                 agent, owner, by_engine, position)
         -- In the SQLite ledger's order, so that `seq` orders emits as its rowid does.
         ORDER BY position
         ON CONFLICT (run_id) DO NOTHING",
        &[
            &emits.run_id,
            &emits.started_at_ms,
            &emits.event,
            &emits.dialect,
            &emits.cwd,
            &emits.session_id,
            &emits.decision,
            &emits.reason,
            &emits.decided_by,
            &emits.duration_ms,
            &emits.payload_in,
            &emits.payload_out,
            &emits.warnings,
            &emits.agent,
            &emits.owner,
            &emits.by_engine,
        ],
    )?;
    let hook_runs_copied = tx.execute(
        "INSERT INTO hook_runs (run_id, seq, name, source, dialect, matched, skip_reason,
             result, exit_code, duration_ms, reason, stderr, stdout, truncated, is_async, shadow)
         SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[],
             $6::bool[], $7::text[], $8::text[], $9::int4[], $10::float8[], $11::text[],
             $12::text[], $13::text[], $14::bool[], $15::bool[], $16::bool[])
         ON CONFLICT (run_id, seq) DO NOTHING",
        &[
            &hooks.run_id,
            &hooks.seq,
            &hooks.name,
            &hooks.source,
            &hooks.dialect,
            &hooks.matched,
            &hooks.skip_reason,
            &hooks.result,
            &hooks.exit_code,
            &hooks.duration_ms,
            &hooks.reason,
            &hooks.stderr,
            &hooks.stdout,
            &hooks.truncated,
            &hooks.is_async,
            &hooks.shadow,
        ],
    )?;
    Ok([emits_copied, hook_runs_copied])
}

/// Copies the plugin registry: the packages by id, in registration order (the order
/// their decision hooks run in), and the enablement rows of the packages that were new
/// to the database. A package the database holds already keeps its own enablement
/// there: adding another's rows to it would change which agents run it. Returns what
/// `plugins` and `agent_plugins` gained, and how many of their rows the database holds
/// by key (an enablement row by its package).
fn copy_plugins(
    tx: &mut postgres::Transaction<'_>,
    plugins: &PluginColumns,
    enablement: &EnablementColumns,
) -> Result<([u64; 2], [i64; 2]), postgres::Error> {
    let new: Vec<String> = tx
        .query(
            "INSERT INTO plugins (id, name, description, path, version, registered_at)
             SELECT id, name, description, path, version, registered_at
             FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[],
                 $6::bigint[])
                 WITH ORDINALITY AS s (id, name, description, path, version, registered_at,
                     position)
             ORDER BY position
             ON CONFLICT (id) DO NOTHING
             RETURNING id",
            &[
                &plugins.id,
                &plugins.name,
                &plugins.description,
                &plugins.path,
                &plugins.version,
                &plugins.registered_at,
            ],
        )?
        .iter()
        .map(|row| row.get(0))
        .collect();
    let rows = tx.execute(
        "INSERT INTO agent_plugins (plugin_id, agent, enabled)
         SELECT * FROM unnest($1::text[], $2::text[], $3::boolean[]) AS s (plugin_id, agent, enabled)
         WHERE s.plugin_id = ANY($4)",
        &[
            &enablement.plugin_id,
            &enablement.agent,
            &enablement.enabled,
            &new,
        ],
    )?;
    let plugins_found: i64 = tx
        .query_one(
            "SELECT count(*) FROM plugins WHERE id = ANY($1)",
            &[&plugins.id],
        )?
        .get(0);
    let rows_found: i64 = tx
        .query_one(
            "SELECT count(*) FROM unnest($1::text[]) AS s (plugin_id)
             WHERE EXISTS (SELECT 1 FROM plugins p WHERE p.id = s.plugin_id)",
            &[&enablement.plugin_id],
        )?
        .get(0);
    Ok((
        [u64::try_from(new.len()).unwrap_or(u64::MAX), rows],
        [plugins_found, rows_found],
    ))
}

/// Copies the automations' definitions by id, in the order they were first stored; one
/// the database defines already keeps its row (the operator may have changed it
/// there). Returns how many were new to the database, and how many it holds by id.
fn copy_automations(
    tx: &mut postgres::Transaction<'_>,
    automations: &AutomationColumns,
) -> Result<(u64, i64), postgres::Error> {
    let copied = tx.execute(
        "INSERT INTO automations (id, project_id, name, enabled, trigger, context_steps,
             prompt_template, llm_config, cooldown_seconds, max_tokens_per_run, source,
             created_at, updated_at, held, tools, signature)
         SELECT id, project_id, name, enabled, trigger, context_steps, prompt_template,
             llm_config, cooldown_seconds, max_tokens_per_run, source, created_at,
             updated_at, held, tools, signature
         FROM unnest($1::text[], $2::text[], $3::text[], $4::boolean[], $5::text[],
             $6::text[], $7::text[], $8::text[], $9::bigint[], $10::bigint[], $11::text[],
             $12::float8[], $13::float8[], $14::text[], $15::text[], $16::text[])
             WITH ORDINALITY AS source (id, project_id, name, enabled, trigger,
                 context_steps, prompt_template, llm_config, cooldown_seconds,
                 max_tokens_per_run, source, created_at, updated_at, held, tools,
                 signature, position)
         ORDER BY position
         ON CONFLICT (id) DO NOTHING",
        &[
            &automations.id,
            &automations.project_id,
            &automations.name,
            &automations.enabled,
            &automations.trigger,
            &automations.context_steps,
            &automations.prompt_template,
            &automations.llm_config,
            &automations.cooldown_seconds,
            &automations.max_tokens_per_run,
            &automations.source,
            &automations.created_at,
            &automations.updated_at,
            &automations.held,
            &automations.tools,
            &automations.signature,
        ],
    )?;
    let found = tx
        .query_one(
            "SELECT count(*) FROM automations WHERE id = ANY($1)",
            &[&automations.id],
        )?
        .get(0);
    Ok((copied, found))
}

/// Copies the automation runs, the fired periods and the nodes; returns what each
/// table gained, and how many of its rows the database holds by key.
fn copy_runs(
    tx: &mut postgres::Transaction<'_>,
    source: &Source,
) -> Result<([u64; 3], [i64; 3]), postgres::Error> {
    let (runs, periods, nodes) = (&source.runs, &source.periods, &source.nodes);
    let copied = [
        tx.execute(
            "INSERT INTO automation_runs (id, automation_id, project_id, trigger_reason,
                 status, event_data, context_results, prompt_sent, llm_response,
                 actions_taken, skipped_reason, tokens_used, started_at, completed_at,
                 owner)
             SELECT id, automation_id, project_id, trigger_reason, status, event_data,
                 context_results, prompt_sent, llm_response, actions_taken,
                 skipped_reason, tokens_used, started_at, completed_at, owner
             FROM unnest($1::text[], $2::text[], $3::text[], $4::text[],
                 $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[],
                 $11::text[], $12::bigint[], $13::float8[], $14::float8[], $15::text[])
                 WITH ORDINALITY AS source (id, automation_id, project_id,
                     trigger_reason, status, event_data, context_results, prompt_sent,
                     llm_response, actions_taken, skipped_reason, tokens_used,
                     started_at, completed_at, owner, position)
             -- In the SQLite store's order, so that `seq` orders runs of one
             -- instant as there.
             ORDER BY position
             ON CONFLICT (id) DO NOTHING",
            &[
                &runs.id,
                &runs.automation_id,
                &runs.project_id,
                &runs.trigger_reason,
                &runs.status,
                &runs.event_data,
                &runs.context_results,
                &runs.prompt_sent,
                &runs.llm_response,
                &runs.actions_taken,
                &runs.skipped_reason,
                &runs.tokens_used,
                &runs.started_at,
                &runs.completed_at,
                &runs.owner,
            ],
        )?,
        tx.execute(
            "INSERT INTO automation_periods (automation_id, period, run_id)
             SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[])
             ON CONFLICT DO NOTHING",
            &[&periods.automation_id, &periods.period, &periods.run_id],
        )?,
        tx.execute(
            "INSERT INTO nodes (id, host, pid, started_at, heartbeat_at)
             SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::float8[],
                 $5::float8[])
             ON CONFLICT (id) DO NOTHING",
            &[
                &nodes.id,
                &nodes.host,
                &nodes.pid,
                &nodes.started_at,
                &nodes.heartbeat_at,
            ],
        )?,
    ];
    // The check: every row of the SQLite store is in the database now, by key.
    let count = |tx: &mut postgres::Transaction<'_>,
                 sql: &str,
                 params: &[&(dyn postgres::types::ToSql + Sync)]| {
        tx.query_one(sql, params).map(|row| row.get::<_, i64>(0))
    };
    let found = [
        count(
            tx,
            "SELECT count(*) FROM automation_runs WHERE id = ANY($1)",
            &[&runs.id],
        )?,
        count(
            tx,
            "SELECT count(*) FROM automation_periods
             WHERE (automation_id, period) IN (SELECT * FROM unnest($1::text[], $2::bigint[]))",
            &[&periods.automation_id, &periods.period],
        )?,
        count(
            tx,
            "SELECT count(*) FROM nodes WHERE id = ANY($1)",
            &[&nodes.id],
        )?,
    ];
    Ok((copied, found))
}

/// Copies the tasks by id; returns how many were new to the database, and how many of
/// them it holds by id.
/// Copies this machine's agents by key (the machine and the worktree); an agent the
/// database holds already keeps its row. Returns what `agents` gained and how many of
/// the rows the database holds by key.
fn copy_agents(
    tx: &mut postgres::Transaction<'_>,
    agents: &AgentColumns,
) -> Result<(u64, i64), postgres::Error> {
    let copied = tx.execute(
        "INSERT INTO agents (host, worktree, repo, task, plan, agent, provider, branch, log,
             pid, proc_start, started_at, exit_code, exit_signal, ended_at, stopped_at)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[],
             $6::text[], $7::text[], $8::text[], $9::text[], $10::bigint[], $11::bigint[],
             $12::bigint[], $13::bigint[], $14::bigint[], $15::bigint[], $16::bigint[])
         ON CONFLICT (host, worktree) DO NOTHING",
        &[
            &agents.host,
            &agents.worktree,
            &agents.repo,
            &agents.task,
            &agents.plan,
            &agents.agent,
            &agents.provider,
            &agents.branch,
            &agents.log,
            &agents.pid,
            &agents.proc_start,
            &agents.started_at,
            &agents.exit_code,
            &agents.exit_signal,
            &agents.ended_at,
            &agents.stopped_at,
        ],
    )?;
    let found: i64 = tx
        .query_one(
            "SELECT count(*) FROM agents
             WHERE (host, worktree) IN (SELECT * FROM unnest($1::text[], $2::text[]))",
            &[&agents.host, &agents.worktree],
        )?
        .get(0);
    Ok((copied, found))
}

fn copy_tasks(
    tx: &mut postgres::Transaction<'_>,
    tasks: &TaskColumns,
) -> Result<(u64, i64), postgres::Error> {
    let copied = tx.execute(
        "INSERT INTO tasks (id, project_id, title, description, parent_task_id, profile_id,
             preferred_workspace_id, branch_name, priority, context_entries, status, result,
             error, created_by, created_at, updated_at)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[],
             $6::text[], $7::text[], $8::text[], $9::bigint[], $10::text[], $11::text[],
             $12::text[], $13::text[], $14::text[], $15::float8[], $16::float8[])
         ON CONFLICT (id) DO NOTHING",
        &[
            &tasks.id,
            &tasks.project_id,
            &tasks.title,
            &tasks.description,
            &tasks.parent_task_id,
            &tasks.profile_id,
            &tasks.preferred_workspace_id,
            &tasks.branch_name,
            &tasks.priority,
            &tasks.context_entries,
            &tasks.status,
            &tasks.result,
            &tasks.error,
            &tasks.created_by,
            &tasks.created_at,
            &tasks.updated_at,
        ],
    )?;
    let found: i64 = tx
        .query_one(
            "SELECT count(*) FROM tasks WHERE id = ANY($1)",
            &[&tasks.id],
        )?
        .get(0);
    Ok((copied, found))
}

/// Copies the memory index: `memory_notes` by key (project and path), the sections of
/// the notes that were new to the database with them, and each `memory.upsert` entry
/// whose place (project, source, heading) the database does not hold. A note the
/// database holds already keeps its sections there, as a run does. Returns what
/// `memory_notes` and `memory` gained, and how many of their rows the database holds
/// by key (an entry by its place, a note's section by its note).
fn copy_memory(
    tx: &mut postgres::Transaction<'_>,
    memory: &MemoryColumns,
    notes: &NoteColumns,
) -> Result<([u64; 2], [i64; 2]), postgres::Error> {
    let new_notes = tx.query(
        "INSERT INTO memory_notes (project_id, path, mtime_ns)
         SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])
         ON CONFLICT DO NOTHING
         RETURNING project_id, path",
        &[&notes.project_id, &notes.path, &notes.mtime_ns],
    )?;
    let (new_projects, new_paths): (Vec<String>, Vec<String>) = new_notes
        .iter()
        .map(|row| (row.get::<_, String>(0), row.get::<_, String>(1)))
        .unzip();
    let sections = tx.execute(
        "INSERT INTO memory (project_id, kind, source, heading, content)
         SELECT s.project_id, s.kind, s.source, s.heading, s.content
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])
             WITH ORDINALITY AS s (project_id, kind, source, heading, content, position)
         WHERE (s.kind = 'note'
                AND (s.project_id, s.source) IN (SELECT * FROM unnest($6::text[], $7::text[])))
            OR (s.kind = 'upsert' AND NOT EXISTS (
                SELECT 1 FROM memory m
                WHERE m.kind = 'upsert' AND m.project_id = s.project_id
                  AND m.source = s.source AND m.heading = s.heading))
         -- In the SQLite store's order, so that `seq` orders entries as there.
         ORDER BY s.position",
        &[
            &memory.project_id,
            &memory.kind,
            &memory.source,
            &memory.heading,
            &memory.content,
            &new_projects,
            &new_paths,
        ],
    )?;
    let notes_found: i64 = tx
        .query_one(
            "SELECT count(*) FROM memory_notes
             WHERE (project_id, path) IN (SELECT * FROM unnest($1::text[], $2::text[]))",
            &[&notes.project_id, &notes.path],
        )?
        .get(0);
    let entries_found: i64 = tx
        .query_one(
            "SELECT count(*)
             FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])
                 AS s (project_id, kind, source, heading)
             WHERE (s.kind = 'note' AND EXISTS (
                     SELECT 1 FROM memory_notes n
                     WHERE n.project_id = s.project_id AND n.path = s.source))
                OR (s.kind = 'upsert' AND EXISTS (
                     SELECT 1 FROM memory m
                     WHERE m.kind = 'upsert' AND m.project_id = s.project_id
                       AND m.source = s.source AND m.heading = s.heading))",
            &[
                &memory.project_id,
                &memory.kind,
                &memory.source,
                &memory.heading,
            ],
        )?
        .get(0);
    Ok((
        [u64::try_from(new_notes.len()).unwrap_or(u64::MAX), sections],
        [notes_found, entries_found],
    ))
}

/// What `hookrig store migrate` prints.
impl fmt::Display for Migration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "copied {} into {}", self.from, self.to)?;
        let rows: Vec<[String; 4]> = self
            .tables
            .iter()
            .map(|t| {
                [
                    t.table.to_owned(),
                    t.rows.to_string(),
                    t.copied.to_string(),
                    t.already_there.to_string(),
                ]
            })
            .collect();
        f.write_str(&hookrig_core::text::table(
            &["TABLE", "ROWS", "COPIED", "ALREADY THERE"],
            &rows,
        ))?;
        writeln!(
            f,
            "every row is in the database; the agents stay in the SQLite files \
             (docs/postgres.md)"
        )
    }
}
