//! What `hookrig install cursor` edits: `~/.cursor/hooks.json` (`--user`) or the
//! project's `.cursor/hooks.json` (`--project`), whose `hooks` get hookrig's one entry
//! per Cursor event; the hooks it had move to `hooks.hookrig.json` beside it, which the
//! loader reads with the file. docs/dialects/cursor.md and docs/install.md give the rules
//! and their sources.

use std::path::{Path, PathBuf};

use hookrig_config::Environment;
use hookrig_core::Dialect;
use serde_json::{Value, json};

use super::events;
use crate::install::{
    Entry, HostInstall, InstallLevel, InstallState, Installed, JsonHooks, Target,
};

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

/// Claude Code's settings files that Cursor can load as third-party hooks: the
/// project's `.claude/settings.local.json` and `.claude/settings.json`, and the user's
/// `~/.claude/settings.json` (docs/dialects/cursor.md, "Claude Code's hooks in Cursor").
/// Managed settings and hookrig's sidecars are not among them.
fn cursor_loads_from_claude(path: &Path) -> bool {
    path.parent()
        .and_then(Path::file_name)
        .is_some_and(|dir| dir == ".claude")
        && path
            .file_name()
            .is_some_and(|name| name == "settings.json" || name == "settings.local.json")
}

/// What `hookrig doctor` says when hookrig is Cursor's hook and Cursor could also run
/// Claude Code's settings hooks: Cursor's third-party loading is a setting of Cursor's
/// own that hookrig cannot read, so a hook would run twice only when it is on, and
/// doctor names each file for which that is so. `cursor` is hookrig's state in Cursor's
/// files, `claude` in Claude Code's, and `claude_sources` the files of the Claude Code
/// hooks hookrig loads.
pub(crate) fn third_party_twice(
    cursor: &[Installed],
    claude: &[Installed],
    claude_sources: &[PathBuf],
) -> Vec<String> {
    let is_installed = |i: &Installed| matches!(i.state, InstallState::Installed { .. });
    if !cursor.iter().any(is_installed) {
        return Vec::new();
    }
    let mut warnings = Vec::new();
    let mut named: Vec<&Path> = Vec::new();
    for entry in claude
        .iter()
        .filter(|i| is_installed(i) && cursor_loads_from_claude(&i.file))
    {
        let flag = match entry.level {
            InstallLevel::User => "",
            InstallLevel::Project => " --project",
        };
        warnings.push(format!(
            "{}: hookrig is Claude Code's hook here too, and with {THIRD_PARTY} Cursor calls \
             this entry beside hookrig's Cursor entry, so that every hook would run twice; \
             turn that setting off, or run `hookrig uninstall claude{flag}` if you do not use \
             Claude Code",
            entry.file.display()
        ));
        named.push(&entry.file);
    }
    for source in claude_sources {
        if cursor_loads_from_claude(source) && !named.contains(&source.as_path()) {
            warnings.push(format!(
                "{}: with {THIRD_PARTY} Cursor runs these Claude Code hooks itself, and \
                 hookrig runs them too; turn that setting off, or move them into a file only \
                 hookrig reads (such as hookrig's own hooks.toml), so that they run once",
                source.display()
            ));
            named.push(source);
        }
    }
    warnings
}

/// Where Cursor's third-party loading is turned on, in the words of its settings.
const THIRD_PARTY: &str = "Cursor's third-party hooks turned on (Cursor Settings → Rules, \
                           Skills, Subagents → Include third-party Plugins, Skills, and other \
                           configs)";

#[cfg(test)]
mod tests {
    use super::*;
    use test_case::test_case;

    fn at(level: InstallLevel, file: &str, installed: bool) -> Installed {
        Installed {
            level,
            file: PathBuf::from(file),
            state: if installed {
                InstallState::Installed {
                    entry: "hookrig emit".to_owned(),
                    program_exists: true,
                }
            } else {
                InstallState::NotInstalled
            },
        }
    }

    #[test_case("/h/.claude/settings.json", true ; "the user's settings")]
    #[test_case("/p/.claude/settings.json", true ; "the project's settings")]
    #[test_case("/p/.claude/settings.local.json", true ; "the project's local settings")]
    #[test_case("/h/.claude/settings.hookrig.json", false ; "hookrig's sidecar")]
    #[test_case("/p/.claude/settings.local.hookrig.json", false ; "hookrig's local sidecar")]
    #[test_case("/etc/claude-code/managed-settings.json", false ; "managed settings")]
    #[test_case("/p/other/settings.json", false ; "a settings file elsewhere")]
    fn cursor_loads_these_claude_files(path: &str, loads: bool) {
        assert_eq!(cursor_loads_from_claude(Path::new(path)), loads);
    }

    #[test]
    fn nothing_is_said_while_hookrig_is_not_cursors_hook() {
        let claude = [at(InstallLevel::User, "/h/.claude/settings.json", true)];
        let sources = [PathBuf::from("/p/.claude/settings.json")];
        let cursor = [at(InstallLevel::User, "/h/.cursor/hooks.json", false)];
        assert!(third_party_twice(&cursor, &claude, &sources).is_empty());
    }

    #[test]
    fn each_claude_file_cursor_loads_is_named_once() {
        let cursor = [at(InstallLevel::Project, "/p/.cursor/hooks.json", true)];
        let claude = [
            at(InstallLevel::User, "/h/.claude/settings.json", false),
            at(InstallLevel::Project, "/p/.claude/settings.json", true),
        ];
        let sources = [
            PathBuf::from("/p/.claude/settings.json"),
            PathBuf::from("/p/.claude/settings.local.json"),
            PathBuf::from("/p/.claude/settings.local.json"),
            PathBuf::from("/h/.claude/settings.hookrig.json"),
        ];
        let said = third_party_twice(&cursor, &claude, &sources);
        assert_eq!(said.len(), 2, "{said:#?}");
        assert!(
            said[0].starts_with("/p/.claude/settings.json: hookrig is Claude Code's hook here too")
                && said[0].ends_with(
                    "`hookrig uninstall claude --project` if you do not use Claude Code"
                ),
            "{}",
            said[0]
        );
        assert!(
            said[1].starts_with("/p/.claude/settings.local.json: with Cursor's third-party hooks"),
            "{}",
            said[1]
        );
    }
}
