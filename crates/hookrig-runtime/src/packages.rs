//! `hookrig plugins register`: a plugin package checked as an emit would load it, then
//! recorded in the store's registry.

use std::path::Path;

use hookrig_core::Diagnostic;
use hookrig_store::{ALL_AGENTS, PluginEntry, PluginRow, Store, StoreError};

use crate::errors::RuntimeError;
use crate::scope::Scope;

/// What registering a package is asked.
#[derive(Debug, Clone, Copy)]
pub struct Registration<'a> {
    /// The id to register it under.
    pub id: &'a str,
    /// The display name, instead of the manifest's `name`.
    pub name: Option<&'a str>,
    /// What it does, instead of the manifest's `description`.
    pub description: Option<&'a str>,
    /// The package directory.
    pub path: &'a Path,
}

/// Checks the package of `registration` (with the scope's user directories) and records
/// it in `store`, enabled for nobody; returns the row recorded. Warnings of the check do
/// not refuse it; each is handed to `warn`.
pub fn register_package(
    scope: &Scope,
    store: &Store,
    registration: Registration<'_>,
    warn: &mut dyn FnMut(&Diagnostic),
) -> Result<PluginRow, RuntimeError> {
    let row = checked_row(scope, registration, warn)?;
    store.plugins().register(&row).map_err(|err| match err {
        // Where the registered one is, so that the user can tell whether it is the same.
        StoreError::DuplicatePlugin { id } => RuntimeError::DuplicatePlugin {
            path: store
                .plugins()
                .get(&id)
                .ok()
                .flatten()
                .map(|p| p.path)
                .unwrap_or_default(),
            id,
        },
        other => other.into(),
    })?;
    Ok(row)
}

/// The registry row of the package of `registration`, checked as an emit would load it
/// (with the scope's user directories). Warnings of the check do not refuse it; each is
/// handed to `warn`.
pub(crate) fn checked_row(
    scope: &Scope,
    registration: Registration<'_>,
    warn: &mut dyn FnMut(&Diagnostic),
) -> Result<PluginRow, RuntimeError> {
    let Registration {
        id,
        name,
        description,
        path,
    } = registration;
    let found = hookrig_dialects::registrable(&scope.env, id, path, warn)?;
    Ok(PluginRow {
        id: id.to_owned(),
        name: name.map_or(found.package.name, str::to_owned),
        description: description
            .map(str::to_owned)
            .or(found.package.description)
            .unwrap_or_default(),
        path: found.dir.display().to_string(),
        version: found.package.version,
        registered_at_ms: 0,
    })
}

/// `ID  VERSION  ENABLED FOR  PATH`, one package a line, in registration order.
pub fn plugins_table(plugins: &[PluginEntry]) -> String {
    if plugins.is_empty() {
        return "no plugins registered; `hookrig plugins register ID --path DIR` adds one\n"
            .to_owned();
    }
    let rows: Vec<[String; 4]> = plugins
        .iter()
        .map(|entry| {
            [
                entry.plugin.id.clone(),
                entry
                    .plugin
                    .version
                    .clone()
                    .unwrap_or_else(|| "-".to_owned()),
                enabled_for(entry),
                entry.plugin.path.clone(),
            ]
        })
        .collect();
    hookrig_core::text::table(&["ID", "VERSION", "ENABLED FOR", "PATH"], &rows)
}

/// In words: `every agent`, `every agent except a, b`, `a, b`, `nobody`.
pub(crate) fn enabled_for(entry: &PluginEntry) -> String {
    let all = entry
        .agents
        .iter()
        .any(|a| a.agent == ALL_AGENTS && a.enabled);
    let listed = |enabled: bool| {
        entry
            .agents
            .iter()
            .filter(|a| a.agent != ALL_AGENTS && a.enabled == enabled)
            .map(|a| a.agent.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match (all, listed(!all)) {
        (true, except) if except.is_empty() => "every agent".to_owned(),
        (true, except) => format!("every agent except {except}"),
        (false, only) if only.is_empty() => "nobody".to_owned(),
        (false, only) => only,
    }
}
