//! The automations of the store as `hookrig auto` manages them: added from a file,
//! listed, read back, enabled or disabled, removed (in a node's own store or in the
//! database several nodes share: any [`AutomationStore`]), and a project's automation
//! files trusted.

use std::path::Path;

use hookrig_config::{Environment, TrustStore, find_project, trust_store_path};
use hookrig_store::{AutomationStore, StoreError};

use crate::definition::{self, Automation};
use crate::engine::{FireError, system_clock};
use crate::errors::AutomationError;

/// Adds (or updates) the automation defined in `file`; returns its id.
pub fn add(store: &dyn AutomationStore, file: &Path) -> Result<String, AutomationError> {
    add_at(store, file, (system_clock())())
}

/// [`add`] at the time `now` (Unix seconds).
fn add_at(store: &dyn AutomationStore, file: &Path, now: f64) -> Result<String, AutomationError> {
    let mut automation = definition::load_automation(file, now)?;
    // Absolute, so that the automation's workspace (its file's project) is known
    // whatever directory serve or fire later run in; errors above keep the path as the
    // user wrote it.
    if let Ok(absolute) = std::path::absolute(file) {
        automation.source = Some(absolute.display().to_string());
    }
    Ok(store.upsert(&automation.to_row())?.id)
}

/// Every automation of the store.
pub fn all(store: &dyn AutomationStore) -> Result<Vec<Automation>, AutomationError> {
    store
        .list(false)?
        .into_iter()
        .map(Automation::from_row)
        .collect()
}

/// The automation `id`; [`FireError::NotFound`] (Hence's wording) when there is none.
pub fn get(store: &dyn AutomationStore, id: &str) -> Result<Automation, AutomationError> {
    let row = store
        .get(id)?
        .ok_or_else(|| FireError::NotFound(id.to_owned()))?;
    Automation::from_row(row)
}

/// Lets the engine run the automation `id` again, or stops it from doing so.
pub fn set_enabled(
    store: &dyn AutomationStore,
    id: &str,
    enabled: bool,
) -> Result<(), AutomationError> {
    store
        .set_enabled(id, enabled, (system_clock())())
        .map_err(not_found)
}

/// Removes the automation `id` and its runs.
pub fn remove(store: &dyn AutomationStore, id: &str) -> Result<(), AutomationError> {
    store.delete(id).map_err(not_found)
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
pub fn trust_files(env: &Environment) -> Result<TrustedFiles, AutomationError> {
    let root = find_project(env).root.unwrap_or_else(|| env.cwd.clone());
    let now_ms = hookrig_store::now_ms();
    let ids = TrustStore::update(&trust_store_path(env), |store| {
        Ok::<_, AutomationError>(definition::trust_project_automations(store, &root, now_ms))
    })?;
    Ok(TrustedFiles {
        ids,
        dir: definition::project_automations_dir(&root),
    })
}

#[cfg(test)]
mod tests {
    use hookrig_store::Store;

    use super::*;

    #[test]
    fn an_added_file_is_stored_with_its_absolute_source_and_unknown_ids_read_as_hence_says() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("ledger.db")).expect("store");
        let store = store.automations();
        let file = dir.path().join("nightly.toml");
        std::fs::write(
            &file,
            "name = \"Nightly Review\"\nprompt_template = \"review\"\n[trigger]\ntype = \"periodic\"\n",
        )
        .expect("write");

        let id = add_at(&store, &file, 10.0).expect("adds");
        assert_eq!(id, "nightly-review");
        let stored = get(&store, &id).expect("stored");
        assert_eq!(
            stored.source.as_deref(),
            Some(file.to_str().expect("UTF-8"))
        );
        assert_eq!(all(&store).expect("lists").len(), 1);
        set_enabled(&store, &id, false).expect("disables");
        assert!(!get(&store, &id).expect("stored").enabled);

        for err in [
            get(&store, "nope").expect_err("unknown"),
            set_enabled(&store, "nope", true).expect_err("unknown"),
            remove(&store, "nope").expect_err("unknown"),
        ] {
            assert_eq!(err.to_string(), "Hook 'nope' not found");
        }
        remove(&store, &id).expect("removes");
        assert!(all(&store).expect("lists").is_empty());
    }

    #[test]
    fn a_file_that_is_not_an_automation_is_refused_at_its_place() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("ledger.db")).expect("store");
        let store = store.automations();
        let file = dir.path().join("broken.toml");
        std::fs::write(&file, "name = \n").expect("write");
        let err = add(&store, &file).expect_err("invalid");
        assert!(matches!(err, AutomationError::Invalid(_)), "{err:?}");
        assert!(
            err.to_string()
                .starts_with(&format!("{}:1:", file.display())),
            "{err}"
        );
    }
}
