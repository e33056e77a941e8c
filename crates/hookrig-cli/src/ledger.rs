//! Where the ledger lives and how dispatches become ledger rows.

use std::path::{Path, PathBuf};

use hookrig_core::{HookRecord, SkipReason, duration_ms};
use hookrig_dialects::PackageRef;
use hookrig_store::{HookRun, Ledger, StoreError, default_ledger_path};

use crate::cli::GlobalArgs;
use crate::errors::ExpectedError;

/// The ledger path for these arguments, or `None` with `--no-ledger`.
pub(crate) fn path(global: &GlobalArgs) -> Result<Option<PathBuf>, ExpectedError> {
    if global.no_ledger {
        return Ok(None);
    }
    if let Some(path) = &global.ledger {
        return Ok(Some(path.clone()));
    }
    let env = hookrig_config::Environment::from_process(PathBuf::new())?;
    Ok(Some(default_ledger_path(&env.state_home)))
}

/// The store file whatever `--no-ledger` says: the plugin registry lives in it, and
/// `--no-ledger` only stops recording.
pub(crate) fn store_path(global: &GlobalArgs) -> Result<PathBuf, ExpectedError> {
    if let Some(path) = &global.ledger {
        return Ok(path.clone());
    }
    let env = hookrig_config::Environment::from_process(PathBuf::new())?;
    Ok(default_ledger_path(&env.state_home))
}

/// The plugin packages enabled for `agent` (or for `*` only, with no agent), with the
/// store they were read from when it exists, for the emit to record into. No store
/// file yet means no package registered: nothing is created for the question.
pub(crate) fn enabled_packages(
    global: &GlobalArgs,
    agent: Option<&str>,
) -> Result<(Vec<PackageRef>, Option<Ledger>), ExpectedError> {
    enabled_packages_at(&store_path(global)?, agent)
}

/// [`enabled_packages`] of the store at `path`.
pub(crate) fn enabled_packages_at(
    path: &Path,
    agent: Option<&str>,
) -> Result<(Vec<PackageRef>, Option<Ledger>), ExpectedError> {
    if !path.exists() {
        return Ok((Vec::new(), None));
    }
    let store = Ledger::open(path)?;
    let packages = store
        .plugins_enabled_for(agent)?
        .into_iter()
        .map(|row| PackageRef {
            id: row.id,
            path: PathBuf::from(row.path),
        })
        .collect();
    Ok((packages, Some(store)))
}

/// Opens the ledger for reading (`runs`, `why`). Emits left `running` by a process
/// that died (SIGKILL) are marked `interrupted` first, so they read as what they are.
pub(crate) fn open(global: &GlobalArgs) -> Result<Ledger, ExpectedError> {
    let path = path(global)?.ok_or(ExpectedError::LedgerDisabled)?;
    let mut ledger = Ledger::open(&path)?;
    if let Err(err) = ledger.interrupt_abandoned_emits() {
        tracing::debug!("{}", warning(&err));
    }
    Ok(ledger)
}

/// A dispatcher record as a ledger row.
pub(crate) fn hook_run(record: &HookRecord) -> HookRun {
    HookRun {
        name: record.name.clone(),
        source: record.source.display().to_string(),
        dialect: record.dialect.as_str().to_owned(),
        matched: record.skip.is_none()
            || matches!(
                record.skip,
                Some(SkipReason::ChainStopped { .. } | SkipReason::AsyncCapReached)
            ),
        skip_reason: record.skip.as_ref().map(ToString::to_string),
        result: record.result.as_str().to_owned(),
        exit_code: record.exit_code,
        duration_ms: record.duration.map(duration_ms),
        reason: record.reason.clone(),
        stderr: record.stderr.clone(),
        stdout: record.stdout.clone(),
        truncated: record.truncated,
        is_async: record.is_async,
    }
}

/// A ledger problem during emit: a warning, never a failure of the emit.
pub(crate) fn warning(err: &StoreError) -> String {
    format!("ledger: {}", crate::output::chain(err))
}
