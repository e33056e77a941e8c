//! The configured hooks, for `hookrig list` and `hookrig show`.

use hookrig_core::Level;
use hookrig_core::{Diagnostic, Severity};
use hookrig_dialects::{HookDef, LoadOptions};
use serde::Serialize;

use crate::errors::RuntimeError;
use crate::registry;
use crate::scope::Scope;

/// Hooks found, and the sources (or entries) that were skipped for an error: the rest
/// loaded, and without saying so a listing would look complete.
#[derive(Debug)]
pub struct Listing {
    /// The hooks, sorted by name; hooks that share a name keep load order.
    pub hooks: Vec<HookDef>,
    /// Errors of sources or entries left out.
    pub skipped: Vec<Diagnostic>,
    /// With [`Select::Name`] and no hook of that name: the closest configured name.
    pub closest: Option<String>,
}

/// Whether a hook may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Trust {
    /// The user's own: always trusted.
    User,
    /// From the project, approved by `hookrig trust`.
    Trusted,
    /// From the project, not approved (or changed since).
    Untrusted,
}

impl Trust {
    /// The trust of `def`.
    pub fn of(def: &HookDef) -> Trust {
        match (def.spec.source.level, &def.spec.untrusted) {
            (Level::Global, _) => Trust::User,
            (Level::Project, None) => Trust::Trusted,
            (Level::Project, Some(_)) => Trust::Untrusted,
        }
    }

    /// `user`, `trusted` or `untrusted`.
    pub fn as_str(self) -> &'static str {
        match self {
            Trust::User => "user",
            Trust::Trusted => "trusted",
            Trust::Untrusted => "untrusted",
        }
    }
}

/// Which hooks a listing holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Select<'a> {
    /// Every hook.
    All,
    /// The hooks listening to this event (any accepted spelling).
    Event(&'a str),
    /// The hooks with this name (several sources may declare one name; all run).
    Name(&'a str),
}

/// The configured hooks of the scope that `select` picks, sorted by name (hooks that
/// share a name keep load order).
pub fn list(
    scope: &Scope,
    select: Select<'_>,
    options: &LoadOptions,
) -> Result<Listing, RuntimeError> {
    let config = registry::load(scope, options)?;
    let (mut hooks, others): (Vec<HookDef>, Vec<HookDef>) = match select {
        Select::All => (config.hooks, Vec::new()),
        Select::Event(event) => {
            let event = hookrig_dialects::events::resolve(event);
            config
                .hooks
                .into_iter()
                .partition(|def| def.spec.listens_to(&event))
        }
        Select::Name(name) => config
            .hooks
            .into_iter()
            .partition(|def| def.spec.name == name),
    };
    hooks.sort_by(|a, b| a.spec.name.cmp(&b.spec.name));
    let closest = match select {
        Select::Name(name) if hooks.is_empty() => {
            let names = others.iter().map(|d| d.spec.name.as_str());
            hookrig_config::did_you_mean(name, names).map(str::to_owned)
        }
        _ => None,
    };
    Ok(Listing {
        hooks,
        skipped: errors(config.warnings),
        closest,
    })
}

fn errors(diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    diagnostics
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .collect()
}
