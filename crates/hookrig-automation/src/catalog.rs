//! The automations of the store as `hookrig auto` manages them: added from a file,
//! listed, read back, enabled or disabled, removed, and a project's automation files
//! trusted.

use std::path::Path;

use hookrig_config::{Environment, TrustStore, find_project, trust_store_path};
use hookrig_store::{Store, StoreError};

use crate::definition::{self, Automation};
use crate::engine::FireError;
use crate::errors::AutomationError;

/// Adds (or updates) the automation defined in `file`; returns its id.
pub fn add(store: &Store, file: &Path, now: f64) -> Result<String, AutomationError> {
    let mut automation = definition::load_automation(file, now)?;
    // Absolute, so that the automation's workspace (its file's project) is known
    // whatever directory serve or fire later run in; errors above keep the path as the
    // user wrote it.
    if let Ok(absolute) = std::path::absolute(file) {
        automation.source = Some(absolute.display().to_string());
    }
    Ok(store.automations().upsert(&automation.to_row())?.id)
}

/// Every automation of the store.
pub fn all(store: &Store) -> Result<Vec<Automation>, AutomationError> {
    store
        .automations()
        .list(false)?
        .into_iter()
        .map(Automation::from_row)
        .collect()
}

/// The automation `id`; [`FireError::NotFound`] (Hence's wording) when there is none.
pub fn get(store: &Store, id: &str) -> Result<Automation, AutomationError> {
    let row = store
        .automations()
        .get(id)?
        .ok_or_else(|| FireError::NotFound(id.to_owned()))?;
    Automation::from_row(row)
}

/// Lets the engine run the automation `id` again, or stops it from doing so.
pub fn set_enabled(
    store: &Store,
    id: &str,
    enabled: bool,
    now: f64,
) -> Result<(), AutomationError> {
    store
        .automations()
        .set_enabled(id, enabled, now)
        .map_err(not_found)
}

/// Removes the automation `id` and its runs.
pub fn remove(store: &Store, id: &str) -> Result<(), AutomationError> {
    store.automations().delete(id).map_err(not_found)
}

/// An unknown id in Hence's wording, as `fire` says it.
fn not_found(err: StoreError) -> AutomationError {
    match err {
        StoreError::UnknownAutomation { id } => FireError::NotFound(id).into(),
        other => other.into(),
    }
}

/// What trusting a project's automation files did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustedFiles {
    /// The ids of the automations trusted.
    pub ids: Vec<String>,
    /// The directory their files were looked for in.
    pub dir: std::path::PathBuf,
}

/// Records the automation files of the project of `env`'s working directory as trusted
/// as they are now, under the trust store's lock.
pub fn trust_files(env: &Environment, now_ms: i64) -> Result<TrustedFiles, AutomationError> {
    let root = find_project(env).root.unwrap_or_else(|| env.cwd.clone());
    let ids = TrustStore::update(&trust_store_path(env), |store| {
        Ok::<_, AutomationError>(definition::trust_project_automations(store, &root, now_ms))
    })?;
    Ok(TrustedFiles {
        ids,
        dir: definition::project_automations_dir(&root),
    })
}
