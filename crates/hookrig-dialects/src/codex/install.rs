//! What `hookrig install codex` edits: `hooks.json` of `$CODEX_HOME` (default
//! `~/.codex`, `--user`) or of the project's `.codex/` (`--project`), whose `hooks` get
//! hookrig's one entry per Codex event; the hooks it had move to `hooks.hookrig.json`,
//! and the `[hooks]` event arrays of the `config.toml` beside it move to
//! `config.hookrig.toml` (its other tables stay). The keys of `[hooks.state]` in the
//! user's `config.toml` that name the places hookrig's entries take over move into the
//! user's `config.hookrig.toml`, at either level, and come back on uninstall. The loader
//! reads both sidecars with the files. docs/dialects/codex.md and docs/install.md give
//! the rules and their sources.

use std::path::Path;

use hookrig_config::Environment;
use hookrig_core::Dialect;
use serde_json::{Value, json};

use super::events;
use crate::install::{Entry, HostInstall, InstallLevel, JsonHooks, StateOf, Target, TurnedOff};

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
    only_with_hooks: &[],
};

/// hookrig's handler of every event: a command hook running `hookrig emit`.
fn entry(entry: &Entry, _event: &str) -> Value {
    json!({
        "type": "command",
        "command": format!("{} emit --dialect codex", entry.program),
    })
}

/// The files of a level: `hooks.json` (hookrig's entries go there) and `config.toml`;
/// and the user's `config.toml`, whose `[hooks.state]` keys Codex applies to the hooks
/// of every level by file and place (only the user's file counts, docs/dialects/codex.md).
/// A project install takes out of it only the keys naming the places of the project's
/// `hooks.json` that hookrig's entries take over; they are kept in the user's
/// `config.hookrig.toml`, never in the project, whose files come with the repository.
fn targets(env: &Environment, level: InstallLevel, project: &Path) -> Vec<Target> {
    let home = super::codex_home(&env.home);
    let dir = match level {
        InstallLevel::User => home.clone(),
        InstallLevel::Project => project.join(".codex"),
    };
    let state_of = StateOf {
        entries: dir.join("hooks.json"),
        hooks: &HOOKS,
        key: state_key,
        names: names_a_place,
    };
    let own = Target::toml(dir.join("config.toml"), event_names);
    match level {
        InstallLevel::User => vec![
            Target::new(dir.join("hooks.json"), &HOOKS),
            own.keeping_state_of(state_of),
        ],
        InstallLevel::Project => vec![
            Target::new(dir.join("hooks.json"), &HOOKS),
            own,
            Target::toml(home.join("config.toml"), Vec::new).keeping_state_of(state_of),
        ],
    }
}

/// Codex's key of the hook of `file` at a place: `PATH:EVENT:GROUP:HANDLER`, the event
/// by its `snake_case` key.
fn state_key(file: &Path, event: &str, group: usize, handler: usize) -> Option<String> {
    events::by_name(event).map(|e| format!("{}:{}:{group}:{handler}", file.display(), e.key))
}

/// Whether a state key names a place of `file`: `PATH:EVENT:GROUP:HANDLER` with this
/// path, a Codex event's key and two indexes.
fn names_a_place(file: &Path, key: &str) -> bool {
    let Some(place) = key.strip_prefix(&format!("{}:", file.display())) else {
        return false;
    };
    let parts: Vec<&str> = place.split(':').collect();
    matches!(parts.as_slice(), [event, group, handler]
        if events::EVENTS.iter().any(|e| e.key == *event)
            && group.parse::<usize>().is_ok()
            && handler.parse::<usize>().is_ok())
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
