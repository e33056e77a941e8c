//! How an emit becomes ledger rows: a row when it starts, completed when the host has
//! its answer, and the rows of async hooks filled in when they end. Nothing here may
//! keep the hooks from deciding or the host from its answer: a ledger that cannot be
//! opened or written is a warning.
//!
//! A one-shot `hookrig emit` writes its rows itself, on a connection of its own. A
//! resident engine's emits go through its [`Writers`] instead (the scope carries them):
//! one thread per store file writes the rows of every emit under way in batches, one
//! transaction each, and an emit's finished row is committed before the emit goes on.

mod report;
mod writer;

use std::path::{Path, PathBuf};
use std::time::Duration;

use hookrig_core::{AsyncCompletion, Dispatched, HookRecord, SkipReason, duration_ms};
use hookrig_dialects::PackageRef;
use hookrig_store::{
    EmitDecision, EmitFilter, EmitRecord, EmitSummary, EmitWrite, HookRun, Ledger, LedgerAt,
    LedgerView, RecentEmits, Store, StoreError,
};

use crate::pool;
pub use crate::pool::Connection;
pub use report::{runs_table, why_text};
pub use writer::Writers;
use writer::{WriteError, Writer};

/// The plugin packages enabled for `agent` (or for `*` only, with no agent) for an emit
/// of `scope`, with its store file opened, for the emit to record into: the store file's,
/// then, with a shared registry (a serve node's), its packages that verify, the rows it
/// left out pushed on `skipped`. No store file yet means no package registered there:
/// nothing is created for the question.
pub fn enabled_packages(
    scope: &crate::Scope,
    agent: Option<&str>,
    skipped: &mut Vec<String>,
) -> Result<(Vec<PackageRef>, Option<Connection>), StoreError> {
    let path = &scope.store;
    let store = if path.exists() {
        Some(pool::open(path)?)
    } else {
        None
    };
    // The node's own registry first: it is the user's, as trusted as before there was a
    // shared one.
    let mut packages: Vec<PackageRef> = match &store {
        Some(store) => store
            .plugins()
            .enabled_for(agent)?
            .into_iter()
            .map(|row| PackageRef {
                id: row.id,
                path: PathBuf::from(row.path),
            })
            .collect(),
        None => Vec::new(),
    };
    // Then the shared registry's packages that verify: a serve node's automations name
    // it; an engine's emits use the one of the database they record into, which only
    // the operator names (a serve node's store, or the user's own `[store] url`), on
    // the connection it keeps open.
    let database = scope.ledger_writers.as_ref().and_then(Writers::database);
    let shared = match (&scope.shared_registry, database) {
        (Some(shared), _) => Ok(shared.clone()),
        (None, Some(url)) => crate::services::database(url)
            .map(|db| crate::SharedRegistry::cached(db, &scope.env.config_home)),
        (None, None) => return Ok((packages, store)),
    };
    match shared {
        Ok(shared) => {
            let (found, left_out) = shared.enabled(agent);
            skipped.extend(left_out);
            for package in found {
                if packages.iter().any(|own| own.id == package.id) {
                    skipped.push(format!(
                        "shared plugin `{}` is not run: this node's own registry has a \
                         package of that id, which runs instead",
                        package.id
                    ));
                } else {
                    packages.push(package);
                }
            }
        }
        Err(err) => skipped.push(format!(
            "the shared plugin registry was not read, no shared package runs: {}",
            chain(&err)
        )),
    }
    Ok((packages, store))
}

/// The emits `hookrig runs` lists, newest first: at most `limit`, and only those of
/// `event` (any accepted spelling: the ledger records canonical names) and of `agent`
/// when they are given, and with `shadow` only those where a shadow hook's answer
/// disagreed with the decision.
pub fn recent(
    ledger: &Store,
    limit: usize,
    event: Option<&str>,
    agent: Option<&str>,
    shadow: bool,
) -> Result<Vec<EmitSummary>, StoreError> {
    ledger.emits().recent(&filter(limit, event, agent, shadow))
}

/// The filter of `hookrig runs`: `event` in any accepted spelling, as the ledger records
/// canonical names.
fn filter(limit: usize, event: Option<&str>, agent: Option<&str>, shadow: bool) -> EmitFilter {
    EmitFilter {
        limit,
        event: event.map(|event| hookrig_dialects::events::resolve(event).as_str().to_owned()),
        agent: agent.map(str::to_owned),
        shadow,
    }
}

/// Opens the ledger for reading (`runs`, `why`), without its work file: they read emits
/// only. Emits left `running` by a process that died (SIGKILL) are marked `interrupted`
/// first, so they read as what they are.
pub fn open_for_reading(path: &Path) -> Result<Store, StoreError> {
    let ledger = Store::open_ledger(path)?;
    if let Err(err) = ledger.emits().interrupt_abandoned() {
        tracing::debug!("{}", warning(&err));
    }
    Ok(ledger)
}

/// The ledger `hookrig runs`, `hookrig why` and the dashboard read: the PostgreSQL ledger
/// at `database` when the user's store is shared ([`user_database`]), with the SQLite file
/// at `path` beside it for the emits answered with no engine; else the file alone. Emits
/// left `running` by this machine's processes that died are marked `interrupted` first.
/// The file is not created when the store is shared and it does not exist yet.
pub fn open_view(path: &Path, database: Option<&str>) -> Result<LedgerView, StoreError> {
    let Some(url) = database else {
        return Ok(LedgerView::single(Box::new(open_for_reading(path)?)));
    };
    let shared = LedgerAt::Postgres(url.to_owned()).open()?;
    let local: Option<Box<dyn Ledger + Send>> = if path.exists() {
        match Store::open_ledger(path) {
            Ok(store) => Some(Box::new(store)),
            // The shared ledger is still worth reading without this machine's leftovers.
            Err(err) => {
                tracing::warn!("{}", warning(&err));
                None
            }
        }
    } else {
        None
    };
    let view = LedgerView::shared(shared, local);
    if let Err(err) = view.interrupt_abandoned() {
        tracing::debug!("{}", warning(&err));
    }
    Ok(view)
}

/// The PostgreSQL store the `[store] url` of the user's own `config.toml` names (under
/// `config_home`), as the engine started for their emits records into: `None` keeps the
/// SQLite files. Neither a project's `config.toml` nor a variable can name it
/// (docs/security.md, "Where the store is").
pub fn user_database(config_home: &Path) -> Option<String> {
    hookrig_config::user_store_url(config_home)
}

/// The newest emits of `view` for `hookrig runs`, as [`recent`] filters them.
pub fn recent_in(
    view: &LedgerView,
    limit: usize,
    event: Option<&str>,
    agent: Option<&str>,
    shadow: bool,
) -> Result<RecentEmits, StoreError> {
    view.recent(&filter(limit, event, agent, shadow))
}

/// A dispatcher record as a ledger row.
pub fn hook_run(record: &HookRecord) -> HookRun {
    HookRun {
        name: record.name.clone(),
        source: record.source.display().to_string(),
        dialect: record.dialect,
        matched: record.skip.is_none()
            || matches!(
                record.skip,
                Some(SkipReason::ChainStopped { .. } | SkipReason::AsyncCapReached)
            ),
        skip_reason: record.skip.as_ref().map(ToString::to_string),
        result: record.result,
        exit_code: record.exit_code,
        duration_ms: record.duration.map(duration_ms),
        reason: record.reason.clone(),
        stderr: record.stderr.clone(),
        stdout: record.stdout.clone(),
        truncated: record.truncated,
        is_async: record.is_async,
        shadow: record.shadow,
    }
}

/// A payload as the ledger keeps it.
pub(crate) fn json_text(payload: &hookrig_core::Payload) -> String {
    serde_json::to_string(payload.as_map()).expect("a JSON map always serializes")
}

/// A ledger problem during an emit, as a warning.
pub(crate) fn warning(err: &StoreError) -> String {
    format!("ledger: {}", chain(err))
}

pub(crate) use hookrig_core::error_chain as chain;

/// Where an emit writes its rows once its start is recorded.
#[derive(Debug)]
pub(crate) enum Sink {
    /// A connection of its own (a one-shot emit): each write is its own transaction.
    Direct(Connection),
    /// The writer of the file in a resident engine: writes are queued, and batched with
    /// those of the other emits under way.
    Queued(Writer),
}

/// The ledger at `path`: `opened` when it is that file (one connection per emit
/// instead of two), else opened now.
fn ledger_at(opened: Option<Connection>, path: &Path) -> Result<Connection, StoreError> {
    match opened.filter(|store| store.path() == path) {
        Some(store) => Ok(store),
        None => pool::open(path),
    }
}

/// Records an emit stopped before its hooks could run (its config could not load):
/// through the engine's `writers` when there are any, committed before this returns.
pub(crate) fn record_failed(
    opened: Option<Connection>,
    path: &Path,
    entry: &EmitRecord,
    writers: Option<&Writers>,
) {
    let written = match writers.map(|writers| writers.for_path(path)) {
        Some(Ok(writer)) => match writer.write(EmitWrite::Record(entry.clone())) {
            Ok(()) => return,
            Err(WriteError::Failed(err)) => Err(err),
            // The engine is stopping: written here.
            Err(WriteError::Stopped) => {
                directly(writer.at(), |l| l.record(entry)).map_err(std::sync::Arc::new)
            }
        },
        Some(Err(err)) => Err(std::sync::Arc::new(err)),
        // No engine: written here.
        None => ledger_at(opened, path)
            .and_then(|l| l.emits().record(entry))
            .map_err(std::sync::Arc::new),
    };
    if let Err(err) = written {
        tracing::debug!("{}", warning(&err));
    }
}

/// Where an emit's rows go: the engine's writer for `path` when the scope carries
/// `writers`, else a connection of its own (`opened` when it is that file). A ledger
/// that cannot be opened is a warning for the Outcome, and the emit goes unrecorded.
pub(crate) fn sink(
    opened: Option<Connection>,
    path: &Path,
    writers: Option<&Writers>,
    warnings: &mut Vec<String>,
) -> Option<Sink> {
    let opened = match writers {
        Some(writers) => writers.for_path(path).map(Sink::Queued),
        None => ledger_at(opened, path).map(Sink::Direct),
    };
    opened
        .inspect_err(|err| warnings.push(format!("{}; this emit is not recorded", warning(err))))
        .ok()
}

impl Sink {
    /// The PostgreSQL database the rows go to, when they go to one.
    pub(crate) fn database(&self) -> Option<&str> {
        match self {
            Sink::Queued(writer) => match writer.at() {
                hookrig_store::LedgerAt::Postgres(url) => Some(url),
                hookrig_store::LedgerAt::Sqlite(_) => None,
            },
            Sink::Direct(_) => None,
        }
    }

    /// Records that the emit started, so that an emit killed before it ends leaves a
    /// row, marked `interrupted` later. Never waits for the ledger: when another process
    /// holds its write lock, the start is not recorded and the whole row is written at
    /// the end; through the engine's writer, the start is queued and not waited for (the
    /// queue's order puts it before the end).
    pub(crate) fn begin(&self, entry: &EmitRecord) {
        match self {
            Sink::Queued(writer) => {
                if let Err(err) = writer.queue(EmitWrite::Begin(entry.clone())) {
                    tracing::debug!("start of the emit not queued: {err:?}");
                }
            }
            Sink::Direct(ledger) => {
                let started = ledger
                    .set_busy_timeout(Duration::ZERO)
                    .and_then(|()| ledger.emits().begin(entry));
                if let Err(err) = started {
                    tracing::debug!("start of the emit not recorded: {}", warning(&err));
                }
                if let Err(err) = ledger.set_busy_timeout(Store::BUSY_TIMEOUT) {
                    tracing::debug!("{}", warning(&err));
                }
            }
        }
    }
}

/// Completes the row [`Sink::begin`] wrote (`begun`), or writes the whole row when none
/// was, with the outcome of `dispatched` (`entry` has its duration). In a one-shot emit
/// this is called once the host has its answer; in an engine, before (the engine
/// answers once the row is committed). A ledger that cannot be opened or written is a
/// late warning (for stderr).
pub(crate) fn finish(
    sink: Option<Sink>,
    begun: bool,
    path: &Path,
    entry: &mut EmitRecord,
    dispatched: &Dispatched,
    warnings: &[String],
    late_warnings: &mut Vec<String>,
) -> Option<Sink> {
    // A stop wins over the decision: the row says what the host was told.
    if let Some(stop) = &dispatched.stop {
        entry.decision = EmitDecision::Stop;
        entry.reason.clone_from(&stop.reason);
        entry.decided_by = Some(stop.by.clone());
    } else {
        entry.decision = dispatched.decision.into();
        entry.reason.clone_from(&dispatched.reason);
        entry.decided_by.clone_from(&dispatched.decided_by);
    }
    entry.payload_out = json_text(&dispatched.payload);
    entry.warnings = warnings.to_vec();
    entry.hooks = dispatched.records.iter().map(hook_run).collect();
    let opened = match sink {
        Some(Sink::Queued(writer)) => match writer.write(EmitWrite::Finish(entry.clone())) {
            Ok(()) => return Some(Sink::Queued(writer)),
            Err(WriteError::Failed(err)) => {
                late_warnings.push(warning(&err));
                return None;
            }
            // The engine is stopping: the row is written here instead, into the
            // database when that is the engine's ledger (its writer, stopped, then sends
            // the async hooks' results there too).
            Err(WriteError::Stopped) => match writer.at() {
                LedgerAt::Postgres(_) => {
                    return match directly(writer.at(), |l| l.finish(entry)) {
                        Ok(()) => Some(Sink::Queued(writer)),
                        Err(err) => {
                            late_warnings.push(warning(&err));
                            None
                        }
                    };
                }
                LedgerAt::Sqlite(_) => None,
            },
        },
        Some(Sink::Direct(connection)) => Some(connection),
        None => None,
    };
    // Without a start to complete, the row is inserted straight away: no update that
    // finds nothing to compile and run first.
    let written = ledger_at(opened, path).and_then(|l| {
        if begun {
            l.emits().finish(entry)
        } else {
            l.emits().record(entry)
        }
        .map(|()| l)
    });
    match written {
        Ok(ledger) => Some(Sink::Direct(ledger)),
        Err(err) => {
            late_warnings.push(warning(&err));
            None
        }
    }
}

/// Fills in the rows of the async hooks that ended.
pub(crate) fn complete_async(sink: &Sink, run_id: &str, completions: Vec<AsyncCompletion>) {
    let runs: Vec<_> = completions
        .into_iter()
        .map(|completion| {
            for warning in &completion.warnings {
                tracing::debug!("{warning}");
            }
            let mut run = hook_run(&completion.record);
            // A failure's message is both the record's reason and a warning: keep it once.
            let mut reason: Vec<String> = run.reason.take().into_iter().collect();
            for warning in completion.warnings {
                if !reason.contains(&warning) {
                    reason.push(warning);
                }
            }
            run.reason = (!reason.is_empty()).then(|| reason.join("; "));
            run
        })
        .collect();
    let written = match sink {
        // Waited for, so that an engine stopping once its emits are done has these rows
        // committed too.
        Sink::Queued(writer) => match writer.write(EmitWrite::CompleteHookRuns {
            run_id: run_id.to_owned(),
            runs: runs.clone(),
        }) {
            Ok(()) => Ok(()),
            Err(WriteError::Failed(err)) => {
                tracing::debug!("{}", warning(&err));
                Ok(())
            }
            // The engine is stopping: written here instead.
            Err(WriteError::Stopped) => directly(writer.at(), |ledger| {
                ledger.complete_hook_runs(run_id, &runs)
            }),
        },
        Sink::Direct(ledger) => ledger.emits().complete_hook_runs(run_id, &runs),
    };
    if let Err(err) = written {
        tracing::debug!("{}", warning(&err));
    }
}

/// Does `write` on the ledger at `at`, on a connection of this thread: what an emit does
/// when the engine's writer stopped before it took the write.
fn directly(
    at: &LedgerAt,
    write: impl FnOnce(&dyn Ledger) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    match at {
        LedgerAt::Sqlite(path) => write(&*pool::open(path)?),
        LedgerAt::Postgres(_) => write(&*at.open()?),
    }
}
