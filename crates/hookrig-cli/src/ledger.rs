//! Where the ledger lives for this command line.

use std::path::{Path, PathBuf};

use hookrig_dialects::PackageRef;
use hookrig_store::Store;

use crate::cli::GlobalArgs;
use crate::errors::ExpectedError;

/// The store file whatever `--no-ledger` says: the plugin registry lives in it, and
/// `--no-ledger` only stops recording.
pub(crate) fn store_path(global: &GlobalArgs) -> Result<PathBuf, ExpectedError> {
    Ok(crate::scope::resolve(global, None, None, None)?.store)
}

/// The plugin packages enabled for `agent` (or for `*` only, with no agent).
pub(crate) fn enabled_packages(
    global: &GlobalArgs,
    agent: Option<&str>,
) -> Result<(Vec<PackageRef>, Option<Store>), ExpectedError> {
    enabled_packages_at(&store_path(global)?, agent)
}

/// [`enabled_packages`] of the store at `path`.
pub(crate) fn enabled_packages_at(
    path: &Path,
    agent: Option<&str>,
) -> Result<(Vec<PackageRef>, Option<Store>), ExpectedError> {
    Ok(hookrig_runtime::ledger::enabled_packages(path, agent)?)
}

/// Opens the ledger for reading (`runs`, `why`).
pub(crate) fn open(global: &GlobalArgs) -> Result<Store, ExpectedError> {
    let scope = crate::scope::resolve(global, None, None, None)?;
    let path = scope.ledger().ok_or(ExpectedError::LedgerDisabled)?;
    Ok(hookrig_runtime::ledger::open_for_reading(path)?)
}
