//! What `hookrig install gemini` edits: `~/.gemini/settings.json` (`--user`) or the
//! project's `.gemini/settings.json` (`--project`), whose `hooks` get hookrig's one entry
//! per Gemini CLI event; the hooks it had move to `settings.hookrig.json` beside it,
//! which the loader reads with the file. Comments in the file are kept.
//! docs/dialects/gemini.md and docs/install.md give the rules and their sources.

use std::path::Path;

use hookrig_config::Environment;
use hookrig_core::Dialect;
use serde_json::{Value, json};

use super::events;
use crate::install::{Entry, HostInstall, InstallLevel, JsonHooks, Target};

/// Gemini CLI's settings: matcher groups of handlers, with comments, and the keys of
/// `hooks` that are settings.
static HOOKS: JsonHooks = JsonHooks {
    grouped: true,
    comments: true,
    setting_keys: super::loader::SETTING_KEYS,
    events: || events::EVENTS.iter().map(|e| e.name).collect(),
    preamble: &[],
    entry,
    default_timeout: |_| super::loader::DEFAULT_TIMEOUT.as_secs_f64() * 1000.0,
    timeout_margin: 5000.0,
    carries_state: false,
    role: crate::install::Role::Entries,
    only_with_hooks: &[],
};

/// hookrig's handler of every event: a command running `hookrig emit`, named so that
/// Gemini CLI's list of hooks (and `hooks.disabled`) shows it as hookrig.
fn entry(entry: &Entry, _event: &str) -> Value {
    json!({
        "name": "hookrig",
        "type": "command",
        "command": format!("{} emit --dialect gemini", entry.program),
    })
}

/// The settings file of a level. Gemini CLI reads the project's file in the directory it
/// was started in, not in the repository root (docs/dialects/gemini.md), so a project
/// install writes the working directory's; in the home directory that is the user's
/// file, which is what Gemini CLI reads there.
fn targets(env: &Environment, level: InstallLevel, _project: &Path) -> Vec<Target> {
    let dir = match level {
        InstallLevel::User => env.home.join(".gemini"),
        InstallLevel::Project => env.cwd.join(".gemini"),
    };
    vec![Target::new(dir.join("settings.json"), &HOOKS)]
}

/// Files of Gemini CLI: in a `.gemini` directory, or the system settings.
fn owns(_env: &Environment, path: &Path) -> bool {
    path.parent()
        .and_then(Path::file_name)
        .is_some_and(|name| name == ".gemini")
        || path == super::loader::system_settings_path()
}

/// Gemini CLI for install and doctor.
pub(crate) static INSTALL: HostInstall = HostInstall {
    dialect: Dialect::Gemini,
    title: "Gemini CLI",
    programs: &["gemini"],
    config_dir: |env| env.home.join(".gemini"),
    targets,
    http: false,
    owns,
    turned_off: crate::install::none_turned_off,
};
