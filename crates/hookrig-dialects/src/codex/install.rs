//! What `hookrig install codex` edits: `hooks.json` of `$CODEX_HOME` (default
//! `~/.codex`, `--user`) or of the project's `.codex/` (`--project`), whose `hooks` get
//! hookrig's one entry per Codex event; the hooks it had move to `hooks.hookrig.json`,
//! and the `[hooks]` event arrays of the `config.toml` beside it move to
//! `config.hookrig.toml` (its other tables, `[hooks.state]` among them, stay). The
//! loader reads both sidecars with the files. docs/dialects/codex.md and docs/install.md
//! give the rules and their sources.

use std::path::Path;

use hookrig_config::Environment;
use hookrig_core::Dialect;
use serde_json::{Value, json};

use super::events;
use crate::install::{Entry, HostInstall, InstallLevel, JsonHooks, Target, TurnedOff};

/// Every Codex event, from its events table.
fn event_names() -> Vec<&'static str> {
    events::EVENTS.iter().map(|e| e.name).collect()
}

/// Codex's `hooks.json`: matcher groups of handlers, strict JSON, `hooks` its only key.
static HOOKS: JsonHooks = JsonHooks {
    grouped: true,
    comments: false,
    setting_keys: &[],
    events: event_names,
    preamble: &[],
    entry,
    default_timeout: |_| {
        std::time::Duration::from_secs(super::loader::DEFAULT_TIMEOUT_SECS).as_secs_f64()
    },
    timeout_margin: 5.0,
    carries_state: true,
    role: crate::install::Role::Entries,
};

/// hookrig's handler of every event: a command hook running `hookrig emit`.
fn entry(entry: &Entry, _event: &str) -> Value {
    json!({
        "type": "command",
        "command": format!("{} emit --dialect codex", entry.program),
    })
}

/// The files of a level: `hooks.json` (hookrig's entries go there) and `config.toml`.
fn targets(env: &Environment, level: InstallLevel, project: &Path) -> Vec<Target> {
    let dir = match level {
        InstallLevel::User => super::codex_home(&env.home),
        InstallLevel::Project => project.join(".codex"),
    };
    vec![
        Target::new(dir.join("hooks.json"), &HOOKS),
        Target::toml(dir.join("config.toml"), event_names),
    ]
}

/// Files of Codex: in its home or a `.codex` directory.
fn owns(env: &Environment, path: &Path) -> bool {
    path.parent().is_some_and(|dir| {
        dir == super::codex_home(&env.home) || dir.file_name().is_some_and(|n| n == ".codex")
    })
}

/// Codex CLI for install and doctor.
pub(crate) static INSTALL: HostInstall = HostInstall {
    dialect: Dialect::Codex,
    title: "Codex CLI",
    programs: &["codex"],
    config_dir: |env| super::codex_home(&env.home),
    targets,
    http: false,
    owns,
    turned_off,
};

/// The hooks the user turned off in Codex: the keys `PATH:EVENT:GROUP:HANDLER` of
/// `[hooks.state]` in the user's `config.toml` whose `enabled` is `false`, as the loader
/// reads them (docs/dialects/codex.md).
fn turned_off(env: &Environment) -> Box<TurnedOff> {
    let keys = super::loader::disabled_hooks(&super::codex_home(&env.home));
    Box::new(move |path, event, group, handler| {
        events::by_name(event).is_some_and(|e| {
            keys.contains(&format!("{}:{}:{group}:{handler}", path.display(), e.key))
        })
    })
}
