//! `hookrig trust`: approving everything a project brings as it is now (its hooks, its
//! automation files, its `config.toml` files, the Claude Code settings that switch hooks
//! off, and its plan validators), revoking that, and listing what is trusted.
//!
//! Project files come from the repository, so none of them runs until the user trusts
//! its content; one `hookrig trust` approves all of them, so that nothing of the project
//! is left waiting for a second command.

use std::fmt::{self, Write as _};
use std::path::{Path, PathBuf};

use hookrig_config::{
    Distrust, Environment, Project, TrustStore, TrustedText, TrustedTexts, find_project,
    trust_store_path,
};
use hookrig_core::{Diagnostic, Dialect, Level, Severity};
use hookrig_dialects::{HookDef, HookTrust as _, LoadOptions, LoadedConfig, hook_key};

use crate::errors::RuntimeError;
use crate::scope::Scope;

/// One thing `trust` recorded as trusted, in the order it was trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approved {
    /// A project hook.
    Hook {
        /// Its name.
        name: String,
        /// Its dialect.
        dialect: Dialect,
        /// The file that declares it.
        source: PathBuf,
        /// False when it already was trusted as it is.
        changed: bool,
    },
    /// A project automation file (`hookrig serve`), by automation id.
    Automation(String),
    /// A project `config.toml`.
    Config {
        /// The file.
        file: PathBuf,
        /// False when it already was trusted as it is.
        changed: bool,
    },
    /// A project Claude Code settings file that switches hooks off.
    ClaudeSettings {
        /// The file.
        file: PathBuf,
        /// False when it already was trusted as it is.
        changed: bool,
    },
    /// A project plan validator.
    Validator {
        /// Its name.
        name: String,
        /// Its file.
        file: PathBuf,
        /// False when it already was trusted as it is.
        changed: bool,
    },
}

/// What `trust` did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trusted {
    /// Everything recorded as trusted, in order.
    pub approved: Vec<Approved>,
    /// The errors of sources (or entries) skipped while loading: what they declare is
    /// not trusted, so that it is fixed and trusted again.
    pub skipped: Vec<Diagnostic>,
}

/// The project's automation files trusted into a trust store (`store`, the project root,
/// now in ms): the automation engine knows them, and this crate does not depend on it.
pub type TrustAutomations<'a> = &'a dyn Fn(&mut TrustStore, &Path, i64) -> Vec<String>;

/// Records everything the project of the scope's working directory brings as trusted as
/// it is now; `automations` trusts the project's automation files.
pub fn trust(scope: &Scope, automations: TrustAutomations<'_>) -> Result<Trusted, RuntimeError> {
    let path = trust_store_path(&scope.env);
    let project = find_project(&scope.env);
    // Loaded as if everything were trusted, so that every project hook is seen (an
    // untrusted project config.toml would otherwise hide some of them).
    let env = Environment {
        trust_all: true,
        ..scope.env.clone()
    };
    let config = hookrig_dialects::load(&env, &LoadOptions::default())?;
    let skipped = config
        .warnings
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .cloned()
        .collect();
    let now = hookrig_store::now_ms();
    // The whole read-modify-write holds the store's lock, so that a concurrent trust or
    // revoke is neither lost nor undone.
    let texts = TrustedTexts::beside(&path);
    let approved = TrustStore::update(&path, |store| {
        let approved = approve(store, &env, &project, &config, automations, now);
        record_texts(&texts, &project, &config)?;
        Ok::<_, RuntimeError>(approved)
    })?;
    Ok(Trusted { approved, skipped })
}

/// Records every item of the project as trusted as it is now.
fn approve(
    store: &mut TrustStore,
    env: &Environment,
    project: &Project,
    config: &LoadedConfig,
    automations: TrustAutomations<'_>,
    now: i64,
) -> Vec<Approved> {
    let mut approved = Vec::new();
    for def in project_hooks(config) {
        let changed = store.check_recorded(def, project).is_some();
        store.trust(def, project, now);
        approved.push(Approved::Hook {
            name: def.spec.name.clone(),
            dialect: def.dialect(),
            source: def.spec.source.path.clone(),
            changed,
        });
    }
    let root = project.root.clone().unwrap_or_else(|| env.cwd.clone());
    approved.extend(
        automations(store, &root, now)
            .into_iter()
            .map(Approved::Automation),
    );
    // Its config.toml files (providers, notifiers, plugin_path...) and plan validators
    // are trusted by their content; an unreadable one is left for the next trust.
    for (file, level, _) in hookrig_config::config_toml_paths(env) {
        if level != Level::Project {
            continue;
        }
        if let Ok(bytes) = std::fs::read(&file) {
            let changed = store.trust_file("config", &file, &bytes, now);
            approved.push(Approved::Config { file, changed });
        }
    }
    // Claude Code settings that set `disableAllHooks` count only once trusted (they
    // would turn off the user's own hooks).
    for file in hookrig_dialects::claude_settings_to_trust(env) {
        if let Ok(bytes) = std::fs::read(&file) {
            let changed = store.trust_file("claude", &file, &bytes, now);
            approved.push(Approved::ClaudeSettings { file, changed });
        }
    }
    for (name, file) in hookrig_config::project_validators(project) {
        if let Ok(bytes) = std::fs::read(&file) {
            let changed = store.trust_file("validator", &file, &bytes, now);
            approved.push(Approved::Validator {
                name,
                file,
                changed,
            });
        }
    }
    approved
}

/// Records the text of each project hook as it is now beside the store, so that a later
/// change can be shown as a diff before it is trusted again ([`review`]). Only here:
/// the check of an emit reads the store's hashes and nothing of this.
fn record_texts(
    texts: &TrustedTexts,
    project: &Project,
    config: &LoadedConfig,
) -> Result<(), RuntimeError> {
    for def in project_hooks(config) {
        texts.record(
            &hook_key(def),
            &hookrig_dialects::trusted_text(def, project),
        )?;
    }
    Ok(())
}

fn project_hooks(config: &LoadedConfig) -> impl Iterator<Item = &HookDef> {
    config
        .hooks
        .iter()
        .filter(|d| d.spec.source.level == Level::Project)
}

/// A project hook that is not trusted as it is now, with what was trusted before: what
/// a user reviews before trusting it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Review {
    /// Its name.
    pub name: String,
    /// Its dialect.
    pub dialect: Dialect,
    /// The file that declares it.
    pub source: PathBuf,
    /// Why it is not trusted.
    pub distrust: Distrust,
    /// What `hookrig trust` recorded of it when it was last trusted; `None` when it never
    /// was, or was trusted before the text was kept.
    pub recorded: Option<TrustedText>,
    /// What it is now.
    pub current: TrustedText,
}

/// What changed in each of `hooks` that the trust store does not trust as it is now
/// (the machine-wide switch aside: a review is of the records), in order.
///
/// The recorded texts are only shown: whether a hook is trusted is the store's hashes'
/// answer alone.
pub fn review<'h>(
    scope: &Scope,
    hooks: impl IntoIterator<Item = &'h HookDef>,
) -> Result<Vec<Review>, RuntimeError> {
    let path = trust_store_path(&scope.env);
    let store = TrustStore::load(&path)?;
    let texts = TrustedTexts::beside(&path);
    let project = find_project(&scope.env);
    let reviews = hooks
        .into_iter()
        .filter(|def| def.spec.source.level == Level::Project)
        .filter_map(|def| {
            let distrust = store.check_recorded(def, &project)?;
            let recorded = (distrust != Distrust::New)
                .then(|| texts.get(&hook_key(def)))
                .flatten();
            Some(Review {
                name: def.spec.name.clone(),
                dialect: def.dialect(),
                source: def.spec.source.path.clone(),
                distrust,
                recorded,
                current: hookrig_dialects::trusted_text(def, &project),
            })
        })
        .collect();
    Ok(reviews)
}

/// What `revoke` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revoked {
    /// How many trusted items it forgot.
    pub count: usize,
    /// The directory under which it forgot them.
    pub under: PathBuf,
}

/// Forgets the trust given to everything under the project of the scope's working
/// directory: the repository root, or the directory itself outside a repository (the top
/// of a walk without `.git` is `/`, and revoking under it would revoke every project's
/// trust).
pub fn revoke(scope: &Scope) -> Result<Revoked, RuntimeError> {
    let project = find_project(&scope.env);
    let under = project.root.unwrap_or_else(|| scope.env.cwd.clone());
    let path = trust_store_path(&scope.env);
    let texts = TrustedTexts::beside(&path);
    let count = TrustStore::update(&path, |store| {
        for (key, _) in store
            .hooks
            .iter()
            .filter(|(_, h)| h.source.starts_with(&under))
        {
            texts.forget(key)?;
        }
        Ok::<_, RuntimeError>(store.revoke_under(&under))
    })?;
    Ok(Revoked { count, under })
}

/// Trusts every project on this machine (`on`), or stops doing so: `hookrig trust
/// --any-project [--revoke]`. Returns whether that changed the store.
///
/// For a container or CI machine whose every checkout is the thing being tested; the
/// switch lives in the user's trust store, which nothing a repository brings can write.
pub fn trust_any_project(scope: &Scope, on: bool) -> Result<bool, RuntimeError> {
    TrustStore::update(&trust_store_path(&scope.env), |store| {
        let changed = store.any_project != on;
        store.any_project = on;
        Ok::<_, RuntimeError>(changed)
    })
}

/// The trust store of the scope's user, as it is now.
pub fn trusted(scope: &Scope) -> Result<TrustStore, RuntimeError> {
    Ok(TrustStore::load(&trust_store_path(&scope.env))?)
}

// The text `hookrig trust` prints of each result, beside the results, so that every
// caller says the same.

impl fmt::Display for Approved {
    /// `trusted NAME (DIALECT, FILE)`, or `already trusted ...` when nothing changed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let changed = match self {
            Approved::Automation(_) => true,
            Approved::Hook { changed, .. }
            | Approved::Config { changed, .. }
            | Approved::ClaudeSettings { changed, .. }
            | Approved::Validator { changed, .. } => *changed,
        };
        f.write_str(if changed {
            "trusted "
        } else {
            "already trusted "
        })?;
        match self {
            Approved::Hook {
                name,
                dialect,
                source,
                ..
            } => write!(f, "{name} ({dialect}, {})", source.display()),
            Approved::Automation(id) => write!(f, "automation {id}"),
            Approved::Config { file, .. } => write!(f, "config {}", file.display()),
            Approved::ClaudeSettings { file, .. } => {
                write!(f, "Claude Code settings {}", file.display())
            }
            Approved::Validator { name, file, .. } => {
                write!(f, "validator {name} ({})", file.display())
            }
        }
    }
}

impl Trusted {
    /// One line per item trusted; a line saying so when there was none.
    pub fn text(&self) -> String {
        if self.approved.is_empty() {
            return "no project hooks to trust\n".to_owned();
        }
        self.approved.iter().fold(String::new(), |mut text, item| {
            let _ = writeln!(text, "{item}");
            text
        })
    }
}

impl fmt::Display for Revoked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "revoked trust in {} under {}",
            hookrig_core::text::count(self.count, "hook"),
            self.under.display()
        )
    }
}

/// What `hookrig trust --any-project [--revoke]` says: the switch asked for (`on`) and
/// whether it `changed`.
pub fn any_project_text(on: bool, changed: bool) -> &'static str {
    match (on, changed) {
        (true, true) => {
            "every project's hooks are now trusted on this machine, whatever they are; `hookrig trust --any-project --revoke` undoes it\n"
        }
        (true, false) => "every project's hooks were already trusted on this machine\n",
        (false, true) => {
            "projects are trusted one by one again, as `hookrig trust DIR` recorded them\n"
        }
        (false, false) => "projects were already trusted one by one\n",
    }
}

/// `hookrig trust --list`: the trusted hooks, and the machine-wide switch when it is on.
pub fn list_text(store: &TrustStore) -> String {
    let mut text = String::new();
    if store.any_project {
        text.push_str("every project is trusted on this machine (hookrig trust --any-project)\n");
    }
    if store.hooks.is_empty() {
        text.push_str("(no trusted project hooks)\n");
        return text;
    }
    let rows: Vec<[String; 3]> = store
        .hooks
        .values()
        .map(|h| {
            [
                h.name.clone(),
                h.dialect.clone(),
                h.source.display().to_string(),
            ]
        })
        .collect();
    text.push_str(&hookrig_core::text::table(
        &["NAME", "DIALECT", "SOURCE"],
        &rows,
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_approved_item_says_whether_it_changed() {
        let trusted = Trusted {
            approved: vec![
                Approved::Hook {
                    name: "fmt".to_owned(),
                    dialect: Dialect::Claude,
                    source: PathBuf::from("/p/.claude/settings.json"),
                    changed: true,
                },
                Approved::Config {
                    file: PathBuf::from("/p/.hookrig/config.toml"),
                    changed: false,
                },
                Approved::Automation("nightly".to_owned()),
            ],
            skipped: Vec::new(),
        };
        assert_eq!(
            trusted.text(),
            "trusted fmt (claude, /p/.claude/settings.json)\n\
             already trusted config /p/.hookrig/config.toml\n\
             trusted automation nightly\n"
        );
        assert_eq!(Trusted::default().text(), "no project hooks to trust\n");
    }

    #[test]
    fn a_revoke_counts_what_it_forgot() {
        let revoked = Revoked {
            count: 1,
            under: PathBuf::from("/p"),
        };
        assert_eq!(revoked.to_string(), "revoked trust in 1 hook under /p\n");
    }
}
