//! Skills-directory plugins: Claude Code loads every directory of a skills directory
//! that holds `.claude-plugin/plugin.json` as the plugin `<name>@skills-dir`, in place,
//! with no install record: the user's (`~/.claude/skills/<name>/`) everywhere, the
//! project's (`.claude/skills/<name>/` of the directory Claude Code was started in, not
//! of the directories above it) once the workspace is trusted. hookrig loads them as
//! Claude Code does: the user's as the user's own hooks, the project's as project hooks,
//! which run once `hookrig trust` has recorded them. A settings file's `enabledPlugins`
//! entry `"<name>@skills-dir": false` turns one off, with the precedence of every plugin;
//! `disableAllHooks` and `allowManagedHooksOnly` turn them all off.
//! docs/dialects/claude.md gives the sources.

use std::path::{Path, PathBuf};

use hookrig_config::consulted;

use super::plugins::{Enabled, turned_off};
use super::policy::Off;
use crate::loader::LoadContext;

/// The marketplace part of a skills-directory plugin's id.
pub(super) const SUFFIX: &str = "@skills-dir";

/// The skills-directory plugins that are on, each with its directory: the user's, then
/// the project's, each in the order of their names.
pub(super) fn plugins(ctx: &LoadContext<'_>) -> Vec<(Enabled, PathBuf)> {
    if ctx.claude.layers.off != Off::None {
        return Vec::new();
    }
    let user = ctx.env.home.join(".claude").join("skills");
    let project_dir = super::loader::settings_dir(ctx.project)
        .or_else(|| ctx.project.root.clone())
        .unwrap_or_else(|| ctx.env.cwd.clone());
    let project = project_dir.join(".claude").join("skills");
    let mut found = in_dir(ctx, &user, true);
    // The user's home directory as the project would read the same plugins twice.
    if project != user {
        found.extend(in_dir(ctx, &project, false));
    }
    found
}

/// The plugins of one skills directory that the settings do not turn off.
fn in_dir(ctx: &LoadContext<'_>, dir: &Path, users: bool) -> Vec<(Enabled, PathBuf)> {
    let Ok(entries) = consulted::read_dir(dir) else {
        return Vec::new();
    };
    let mut roots: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|root| consulted::is_file(&root.join(".claude-plugin").join("plugin.json")))
        .collect();
    roots.sort();
    roots
        .into_iter()
        .filter_map(|root| {
            let name = root.file_name()?.to_str()?.to_owned();
            let id = format!("{name}{SUFFIX}");
            if turned_off(&ctx.claude.layers, &id) {
                return None;
            }
            let manifest = root.join(".claude-plugin").join("plugin.json");
            let plugin = Enabled {
                id,
                users,
                managed: false,
                untrusted: None,
                by: manifest,
            };
            Some((plugin, root))
        })
        .collect()
}
