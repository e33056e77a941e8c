//! What `hookrig install cursor` edits: `~/.cursor/hooks.json` (`--user`) or the
//! project's `.cursor/hooks.json` (`--project`), whose `hooks` get hookrig's one entry
//! per Cursor event; the hooks it had move to `hooks.hookrig.json` beside it, which the
//! loader reads with the file. docs/dialects/cursor.md and docs/install.md give the rules
//! and their sources.

use std::path::Path;

use hookrig_config::Environment;
use hookrig_core::Dialect;
use serde_json::{Value, json};

use super::events;
use crate::install::{Entry, HostInstall, InstallLevel, JsonHooks, Target};

/// Cursor's hooks file: events hold their handlers directly, strict JSON, `version: 1`.
static HOOKS: JsonHooks = JsonHooks {
    grouped: false,
    comments: false,
    setting_keys: &[],
    events: || events::EVENTS.iter().map(|e| e.name).collect(),
    preamble: &[("version", 1)],
    entry,
    default_timeout: |_| DEFAULT_TIMEOUT_SECS,
    timeout_margin: 5.0,
    carries_state: false,
    role: crate::install::Role::Entries,
    only_with_hooks: &[],
};

/// The timeout hookrig gives a Cursor hook that sets none, in seconds: Cursor's own
/// documentation names no number (docs/dialects/cursor.md), so hookrig's entry is
/// measured against hookrig's default.
const DEFAULT_TIMEOUT_SECS: f64 = 30.0;

/// hookrig's handler of every event: a command running `hookrig emit`. On `stop` and
/// `subagentStop` it sets `loop_limit: null`: the hooks hookrig runs keep their own
/// limits, and Cursor's default of 5 on hookrig's entry would cap them all together.
fn entry(entry: &Entry, event: &str) -> Value {
    let command = format!("{} emit --dialect cursor", entry.program);
    if matches!(event, "stop" | "subagentStop") {
        json!({ "command": command, "loop_limit": null })
    } else {
        json!({ "command": command })
    }
}

/// The hooks file of a level.
fn targets(env: &Environment, level: InstallLevel, project: &Path) -> Vec<Target> {
    let dir = match level {
        InstallLevel::User => env.home.join(".cursor"),
        // The `.cursor/` the loader reads (the nearest along the project walk holding
        // `hooks.json` or its sidecar), so that hookrig's entries land in the file whose
        // hooks hookrig runs; the repository root's when there is none yet.
        InstallLevel::Project => {
            let found = hookrig_config::find_project(env);
            found
                .nearest_file(".cursor/hooks.json")
                .or_else(|| found.nearest_file(".cursor/hooks.hookrig.json"))
                .and_then(|file| file.parent().map(Path::to_owned))
                .unwrap_or_else(|| project.join(".cursor"))
        }
    };
    vec![Target::new(dir.join("hooks.json"), &HOOKS)]
}

/// Files of Cursor: in a `.cursor` directory, or the enterprise file.
fn owns(_env: &Environment, path: &Path) -> bool {
    path.parent()
        .and_then(Path::file_name)
        .is_some_and(|name| name == ".cursor")
        || path == super::loader::enterprise_hooks_path()
}

/// Cursor for install and doctor.
pub(crate) static INSTALL: HostInstall = HostInstall {
    dialect: Dialect::Cursor,
    title: "Cursor",
    programs: &["cursor-agent", "cursor"],
    config_dir: |env| env.home.join(".cursor"),
    targets,
    http: false,
    owns,
    turned_off: crate::install::none_turned_off,
};
