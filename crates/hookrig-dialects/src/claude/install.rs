//! What `hookrig install claude` edits: `~/.claude/settings.json` (`--user`) or the
//! project's `.claude/settings.json` (`--project`), whose `hooks` get hookrig's one entry
//! per Claude Code event; the hooks it had move to `settings.hookrig.json` beside it,
//! which the loader reads with the file. docs/dialects/claude.md and docs/install.md give
//! the rules and their sources.

use std::path::Path;

use hookrig_config::Environment;
use hookrig_core::Dialect;
use serde_json::{Value, json};

use super::events;
use crate::install::{Entry, HostInstall, InstallLevel, JsonHooks, Target};

/// Claude Code's settings: matcher groups of handlers, strict JSON.
static HOOKS: JsonHooks = JsonHooks {
    grouped: true,
    comments: false,
    setting_keys: &[],
    events: || events::EVENTS.iter().map(|e| e.name).collect(),
    preamble: &[],
    entry,
    default_timeout,
    timeout_margin: 5.0,
    carries_state: false,
    role: crate::install::Role::Entries,
    // docs/dialects/claude.md, "WorktreeCreate and WorktreeRemove".
    only_with_hooks: &["WorktreeCreate", "WorktreeRemove"],
};

/// The project's `settings.local.json`: Claude Code runs its hooks beside those of
/// `settings.json`, so install moves them out (into `settings.local.hookrig.json`, which
/// the loader reads at the local layer) and writes no entry of hookrig there, which
/// would run hookrig twice.
static LOCAL_HOOKS: JsonHooks = JsonHooks {
    role: crate::install::Role::MovesOnly,
    ..HOOKS
};

/// Claude Code's timeout of a hook of `event` that sets none, in seconds: the event's
/// own (30 s on `UserPromptSubmit`, ...) or the general 600 s.
fn default_timeout(event: &str) -> f64 {
    events::EVENTS
        .iter()
        .find(|e| e.name == event)
        .and_then(|e| e.timeout)
        .unwrap_or(super::loader::DEFAULT_TIMEOUT)
        .as_secs_f64()
}

/// hookrig's handler of `event`: a command hook running `hookrig emit`, or with `--http`
/// an HTTP hook posting to the resident engine, its token read from `HOOKRIG_TOKEN` in
/// Claude Code's environment (never written into the file). The worktree events keep the
/// command even with `--http`: Claude Code reads the created worktree's path from a
/// command's stdout, and a failed creation or removal from its exit code, neither of
/// which an HTTP hook can give (docs/dialects/claude.md).
fn entry(entry: &Entry, event: &str) -> Value {
    let http = entry
        .http
        .as_ref()
        .filter(|_| !matches!(event, "WorktreeCreate" | "WorktreeRemove"));
    match http {
        Some(addr) => json!({
            "type": "http",
            "url": format!("http://{addr}/emit/{event}?dialect=claude"),
            "headers": {"Authorization": "Bearer $HOOKRIG_TOKEN"},
            "allowedEnvVars": ["HOOKRIG_TOKEN"],
        }),
        None => json!({
            "type": "command",
            "command": format!("{} emit --dialect claude", entry.program),
        }),
    }
}

/// The settings file of a level.
fn targets(env: &Environment, level: InstallLevel, project: &Path) -> Vec<Target> {
    let dir = match level {
        InstallLevel::User => env.home.join(".claude"),
        // The directory whose `.claude/` the loader reads (the nearest along the project
        // walk with settings there), so that hookrig's entries land in the file whose
        // hooks hookrig runs; the repository root when there is none yet.
        InstallLevel::Project => super::loader::settings_dir(&hookrig_config::find_project(env))
            .unwrap_or_else(|| project.to_owned())
            .join(".claude"),
    };
    let mut targets = vec![Target::new(dir.join("settings.json"), &HOOKS)];
    if level == InstallLevel::Project {
        targets.push(Target::new(dir.join("settings.local.json"), &LOCAL_HOOKS));
    }
    targets
}

/// Files of Claude Code: in a `.claude` directory, or the managed settings.
fn owns(_env: &Environment, path: &Path) -> bool {
    path.parent()
        .and_then(Path::file_name)
        .is_some_and(|name| name == ".claude")
        || path == super::managed_settings_path()
}

/// Claude Code for install and doctor.
pub(crate) static INSTALL: HostInstall = HostInstall {
    dialect: Dialect::Claude,
    title: "Claude Code",
    programs: &["claude"],
    config_dir: |env| env.home.join(".claude"),
    targets,
    http: true,
    owns,
    turned_off: crate::install::none_turned_off,
};
