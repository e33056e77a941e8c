//! The hooks of the Claude Code plugins that are installed and enabled.
//!
//! Which plugins: those `enabledPlugins` turns on, with Claude Code's precedence (user,
//! then project, then local, then managed settings: the last file that names a plugin
//! decides). Where: the directory Claude Code's install record
//! (`~/.claude/plugins/installed_plugins.json`) gives for it, which must lie in
//! Claude Code's plugin directory (`~/.claude/plugins/`), so that a repository can name
//! a plugin but never ship the directory hookrig runs. What: `hooks/hooks.json` and the
//! `hooks` of `.claude-plugin/plugin.json` (paths or an inline object), run with
//! `CLAUDE_PLUGIN_ROOT` and `CLAUDE_PLUGIN_DATA`.
//!
//! Trust: a plugin that the user's own settings (or the managed file) turn on is the
//! user's, and its hooks are global. A plugin only a project file turns on is the
//! project's: its hooks are project hooks, which run once `hookrig trust` has recorded
//! them and that file. docs/dialects/claude.md gives the sources of each rule.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use hookrig_config::consulted;
use hookrig_core::{Diagnostic, Level, Severity};
use hookrig_exec::CommandDef;
use serde_json::Value;

use super::loader::{ClaudePlugin, Layer, parse};
use super::policy::{Layers, Off, SettingsLayer};
use crate::claude::ClaudeProtocol;
use crate::definition::HookDef;
use crate::loader::LoadContext;

/// A plugin turned on, and by whom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Enabled {
    /// `name@marketplace`.
    pub(super) id: String,
    /// Whether the user's own settings or the managed file turn it on (its hooks are
    /// then the user's), rather than only a project file.
    pub(super) users: bool,
    /// Whether the managed file turns it on (its hooks then run under
    /// `allowManagedHooksOnly`).
    pub(super) managed: bool,
    /// For a plugin only a project file turns on, when that file is not trusted as it
    /// is now: why, and what to run.
    pub(super) untrusted: Option<String>,
    /// The settings file whose entry decided (for a plugin no settings file names, its
    /// manifest).
    pub(super) by: PathBuf,
}

/// The settings files in Claude Code's precedence for `enabledPlugins`, lowest first:
/// user, project, local, managed.
fn by_precedence(layers: &Layers) -> Vec<&SettingsLayer> {
    let rank = |layer: Layer| match layer {
        Layer::User | Layer::Plugin => 0,
        Layer::Project => 1,
        Layer::Local => 2,
        Layer::Managed => 3,
    };
    let mut files: Vec<_> = layers.files.iter().collect();
    files.sort_by_key(|file| rank(file.layer));
    files
}

/// The plugins the settings files turn on, by id.
fn enabled(layers: &Layers) -> Vec<Enabled> {
    let files = by_precedence(layers);
    // The last file (in precedence order) that names a plugin decides; a project file
    // that is not trusted cannot turn off what the user's own settings turn on.
    let mut decided: BTreeMap<&str, (bool, &SettingsLayer)> = BTreeMap::new();
    for file in &files {
        for (id, on) in &file.settings.enabled_plugins {
            if !on && file.settings.untrusted.is_some() {
                continue;
            }
            decided.insert(id, (*on, file));
        }
    }
    let turned_on_by = |id: &str, layers: &[Layer]| {
        files.iter().any(|file| {
            layers.contains(&file.layer) && file.settings.enabled_plugins.get(id) == Some(&true)
        })
    };
    decided
        .into_iter()
        .filter(|(_, (on, _))| *on)
        .map(|(id, (_, file))| {
            let users = turned_on_by(id, &[Layer::User, Layer::Managed]);
            Enabled {
                id: id.to_owned(),
                users,
                managed: turned_on_by(id, &[Layer::Managed]),
                untrusted: if users {
                    None
                } else {
                    file.settings.untrusted.clone()
                },
                by: file.path.clone(),
            }
        })
        .collect()
}

/// Whether the settings turn plugin `id` off: the last file (in Claude Code's
/// precedence) that names it says `false`; a project file that is not trusted cannot.
pub(super) fn turned_off(layers: &Layers, id: &str) -> bool {
    let files = by_precedence(layers);
    files
        .iter()
        .filter_map(|file| {
            let on = *file.settings.enabled_plugins.get(id)?;
            (on || file.settings.untrusted.is_none()).then_some(on)
        })
        .next_back()
        == Some(false)
}

/// One record of Claude Code's install record: where one installation of a plugin is.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Installed {
    /// `user`, `project`, `local` or `managed`.
    scope: String,
    /// The directory Claude Code runs the plugin from.
    install_path: PathBuf,
    /// For a project or local installation: the directory it was installed for.
    project_path: Option<PathBuf>,
}

/// Reads Claude Code's install record; `None` when there is none. A record that is not
/// the shape Claude Code writes is reported and read as empty.
fn installed(ctx: &mut LoadContext<'_>, path: &Path) -> Option<BTreeMap<String, Vec<Installed>>> {
    let text = ctx.read(path)?;
    let mut found = BTreeMap::new();
    let value: Value = match serde_json::from_str(&text) {
        Ok(value) => value,
        Err(err) => {
            ctx.diagnostics.push(Diagnostic::file(
                path,
                Severity::Warning,
                format!("Claude Code's install record cannot be read ({err}); no plugin's hooks are loaded"),
            ));
            return Some(found);
        }
    };
    let Some(plugins) = value.get("plugins").and_then(Value::as_object) else {
        ctx.diagnostics.push(Diagnostic::file(
            path,
            Severity::Warning,
            "Claude Code's install record has no `plugins` object; no plugin's hooks are loaded"
                .to_owned(),
        ));
        return Some(found);
    };
    for (id, entries) in plugins {
        // Claude Code's record holds a list of installations per plugin; an older one
        // held a single object.
        let entries = match entries {
            Value::Array(list) => list.iter().collect(),
            other => vec![other],
        };
        let records = entries
            .into_iter()
            .filter_map(|entry| {
                let text = |key: &str| entry.get(key).and_then(Value::as_str);
                Some(Installed {
                    scope: text("scope").unwrap_or("user").to_owned(),
                    install_path: PathBuf::from(text("installPath")?),
                    project_path: text("projectPath").map(PathBuf::from),
                })
            })
            .collect();
        found.insert(id.clone(), records);
    }
    Some(found)
}

/// The installation of a plugin that runs here: one installed for this project (a
/// directory of the walk from the working directory to the repository root), else the
/// user's, else the managed one.
fn installation<'a>(records: &'a [Installed], walk: &[PathBuf]) -> Option<&'a Installed> {
    records
        .iter()
        .find(|r| {
            matches!(r.scope.as_str(), "project" | "local")
                && r.project_path.as_ref().is_some_and(|p| walk.contains(p))
        })
        .or_else(|| records.iter().find(|r| r.scope == "user"))
        .or_else(|| records.iter().find(|r| r.scope == "managed"))
}

/// Whether `path` lies inside `dir` without climbing out of it (`..`).
fn inside(path: &Path, dir: &Path) -> bool {
    path.is_absolute()
        && path.starts_with(dir)
        && !path.components().any(|c| matches!(c, Component::ParentDir))
}

/// Claude Code's data directory of a plugin: `~/.claude/plugins/data/{id}` with every
/// character other than ASCII letters, digits, `_` and `-` replaced by `-`.
fn data_dir(plugins: &Path, id: &str) -> PathBuf {
    let name: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    plugins.join("data").join(name)
}

/// Loads the hooks of every enabled, installed plugin into `ctx`, once every settings
/// file has been read: the user's plugins' hooks after the other global hooks, the
/// project's after everything.
pub(crate) fn load(ctx: &mut LoadContext<'_>) {
    let off = ctx.claude.layers.off;
    // Skills-directory plugins have no install record: `skills_dir` finds them.
    let wanted: Vec<Enabled> = enabled(&ctx.claude.layers)
        .into_iter()
        .filter(|plugin| !plugin.id.ends_with(super::skills_dir::SUFFIX))
        .filter(|plugin| match off {
            Off::None => true,
            Off::AllButManaged => plugin.managed,
            Off::All => false,
        })
        .collect();
    let plugins_dir = ctx.env.home.join(".claude").join("plugins");
    let mut found = if wanted.is_empty() {
        Vec::new()
    } else {
        installations(ctx, wanted, &plugins_dir)
    };
    found.extend(super::skills_dir::plugins(ctx));
    if found.is_empty() {
        return;
    }
    let project_dir = super::loader::settings_dir(ctx.project).or_else(|| ctx.project.root.clone());
    let mut global = Vec::new();
    let mut project = Vec::new();
    for (plugin, root) in found {
        let mut info = ClaudePlugin {
            id: plugin.id.clone(),
            root,
            data: data_dir(&plugins_dir, &plugin.id),
            uses_data: false,
            options: Vec::new(),
        };
        let values = super::options::values(ctx, &info);
        info.options = super::options::environment(&values);
        for mut def in plugin_hooks(ctx, &info) {
            adopt(&mut def, &plugin, &info, project_dir.as_ref());
            super::options::substitute(ctx, &mut def, &info, &values);
            substitute_project_dir(&mut def, project_dir.as_ref().unwrap_or(&ctx.env.cwd));
            if plugin.users {
                global.push(def);
            } else {
                project.push(def);
            }
        }
    }
    let after_global = ctx
        .hooks
        .iter()
        .rposition(|def| def.spec.source.level == Level::Global)
        .map_or(0, |i| i + 1);
    ctx.hooks.splice(after_global..after_global, global);
    ctx.hooks.extend(project);
}

/// Where Claude Code's install record puts each wanted plugin: the installation for
/// this project, else the user's, else the managed one, inside Claude Code's plugin
/// directory. A plugin without one, or with one elsewhere, is reported and left out.
fn installations(
    ctx: &mut LoadContext<'_>,
    wanted: Vec<Enabled>,
    plugins_dir: &Path,
) -> Vec<(Enabled, PathBuf)> {
    let record = plugins_dir.join("installed_plugins.json");
    let records = installed(ctx, &record).unwrap_or_default();
    let mut found = Vec::new();
    for plugin in wanted {
        let Some(installation) = records
            .get(&plugin.id)
            .and_then(|r| installation(r, &ctx.project.walk))
        else {
            ctx.diagnostics.push(Diagnostic::file(
                &plugin.by,
                Severity::Warning,
                format!(
                    "plugin `{}` is enabled here, but Claude Code's install record ({}) has no installation of it for this directory; its hooks are not loaded",
                    plugin.id,
                    record.display()
                ),
            ));
            continue;
        };
        if !inside(&installation.install_path, plugins_dir) {
            ctx.diagnostics.push(Diagnostic::file(
                &record,
                Severity::Warning,
                format!(
                    "plugin `{}` is installed at {}, outside {}, where Claude Code keeps the plugins it installs; its hooks are not loaded",
                    plugin.id,
                    installation.install_path.display(),
                    plugins_dir.display()
                ),
            ));
            continue;
        }
        let root = installation.install_path.clone();
        found.push((plugin, root));
    }
    found
}

/// Makes a hook parsed from a plugin's file the plugin's: its name, level and trust,
/// the plugin's directories in its command and environment.
fn adopt(def: &mut HookDef, plugin: &Enabled, info: &ClaudePlugin, project_dir: Option<&PathBuf>) {
    if let Some(rest) = def.spec.name.strip_prefix("claude:plugin:") {
        def.spec.name = format!("claude:plugin:{}:{rest}", plugin.id);
    }
    def.spec.description = Some(format!("hook of the Claude Code plugin {}", plugin.id));
    if plugin.users {
        def.spec.source.level = Level::Global;
    } else {
        def.spec.source.level = Level::Project;
        def.spec.untrusted.clone_from(&plugin.untrusted);
    }
    let root = info.root.to_string_lossy().into_owned();
    let data = info.data.to_string_lossy().into_owned();
    // Claude Code puts the paths in the command as written, wherever the placeholders
    // appear (the exec form has no shell to read them from the environment).
    let substitute = |text: &str| {
        text.replace("${CLAUDE_PLUGIN_ROOT}", &root)
            .replace("${CLAUDE_PLUGIN_DATA}", &data)
    };
    let uses_data = match &mut def.command {
        CommandDef::Shell { line, .. } => {
            let uses = line.contains("CLAUDE_PLUGIN_DATA");
            *line = substitute(line);
            uses
        }
        CommandDef::Exec { argv } => {
            let uses = argv.iter().any(|a| a.contains("CLAUDE_PLUGIN_DATA"));
            for arg in argv.iter_mut() {
                *arg = substitute(arg);
            }
            uses
        }
        CommandDef::Http { .. } => false,
    };
    if let Some(ClaudeProtocol(hook)) = def.protocol_as::<ClaudeProtocol>() {
        let mut hook = hook.clone();
        hook.project_dir = project_dir.cloned();
        hook.managed = plugin.managed;
        hook.plugin = Some(ClaudePlugin {
            uses_data,
            ..info.clone()
        });
        def.protocol = Arc::new(ClaudeProtocol(hook));
    }
}

/// Puts the project directory in place of `${CLAUDE_PROJECT_DIR}` in an exec-form
/// hook's program and arguments, as Claude Code does: with no shell, nothing else would
/// read the placeholder (a shell line reads it from the hook's environment).
pub(crate) fn substitute_project_dir(def: &mut HookDef, project_dir: &Path) {
    if let CommandDef::Exec { argv } = &mut def.command {
        let dir = project_dir.to_string_lossy();
        for arg in argv
            .iter_mut()
            .filter(|a| a.contains("${CLAUDE_PROJECT_DIR}"))
        {
            *arg = arg.replace("${CLAUDE_PROJECT_DIR}", &dir);
        }
    }
}

/// The hooks a plugin declares: `hooks/hooks.json`, then what `hooks` of its manifest
/// names (more files, each a path from the plugin's root starting with `./`, or an
/// inline object). A broken file is reported and left out alone.
fn plugin_hooks(ctx: &mut LoadContext<'_>, plugin: &ClaudePlugin) -> Vec<HookDef> {
    let default = plugin.root.join("hooks").join("hooks.json");
    let mut files = Vec::new();
    if consulted::is_file(&default) {
        files.push(default.clone());
    }
    let mut hooks = Vec::new();
    let manifest = plugin.root.join(".claude-plugin").join("plugin.json");
    if let Some(text) = ctx.read(&manifest) {
        match serde_json::from_str::<Value>(&text) {
            Ok(value) => match value.get("hooks") {
                None => {}
                Some(Value::Object(_)) => hooks.extend(parse_file(ctx, &manifest, &text)),
                Some(Value::String(path)) => files.extend(extra_file(ctx, &manifest, plugin, path)),
                Some(Value::Array(paths)) => {
                    for path in paths {
                        match path.as_str() {
                            Some(path) => files.extend(extra_file(ctx, &manifest, plugin, path)),
                            None => warn(
                                ctx,
                                &manifest,
                                "an entry of `hooks` is not a path; it is ignored".to_owned(),
                            ),
                        }
                    }
                }
                Some(_) => warn(
                    ctx,
                    &manifest,
                    "`hooks` is neither a path, a list of paths nor an object; it is ignored"
                        .to_owned(),
                ),
            },
            Err(err) => warn(
                ctx,
                &manifest,
                format!(
                    "the plugin's manifest is not valid JSON ({err}); only hooks/hooks.json is read"
                ),
            ),
        }
    }
    // A file named twice (the manifest naming `./hooks/hooks.json` again) is read once.
    let mut seen: Vec<PathBuf> = Vec::new();
    files.retain(|file| {
        let new = !seen.contains(file);
        seen.push(file.clone());
        new
    });
    let mut from_files = Vec::new();
    for file in files {
        match ctx.read(&file) {
            Some(text) => from_files.extend(parse_file(ctx, &file, &text)),
            None if file != default => warn(
                ctx,
                &manifest,
                format!(
                    "the hooks file {} that `hooks` names does not exist; it is ignored",
                    file.display()
                ),
            ),
            None => {}
        }
    }
    from_files.extend(hooks);
    from_files
}

/// A hooks file the manifest names: inside the plugin, and not the default file again.
fn extra_file(
    ctx: &mut LoadContext<'_>,
    manifest: &Path,
    plugin: &ClaudePlugin,
    path: &str,
) -> Option<PathBuf> {
    let Some(relative) = path.strip_prefix("./") else {
        warn(
            ctx,
            manifest,
            format!(
                "hooks path `{path}` does not start with `./`, as Claude Code requires; it is ignored"
            ),
        );
        return None;
    };
    let file = plugin.root.join(relative);
    if !inside(&file, &plugin.root) {
        warn(
            ctx,
            manifest,
            format!("hooks path `{path}` leaves the plugin's directory; it is ignored"),
        );
        return None;
    }
    Some(file)
}

/// The hooks of one plugin file, in Claude Code's settings shape (`{"hooks": {...}}`).
fn parse_file(ctx: &mut LoadContext<'_>, path: &Path, text: &str) -> Vec<HookDef> {
    match parse(path, text, Layer::Plugin, &mut ctx.diagnostics) {
        Ok(file) => file.hooks,
        Err(diagnostic) => {
            ctx.diagnostics.push(diagnostic);
            Vec::new()
        }
    }
}

fn warn(ctx: &mut LoadContext<'_>, path: &Path, message: String) {
    ctx.diagnostics
        .push(Diagnostic::file(path, Severity::Warning, message));
}

#[cfg(test)]
mod tests {
    use super::super::policy::FileSettings;
    use super::*;

    fn layer(layer: Layer, entries: &[(&str, bool)], untrusted: bool) -> SettingsLayer {
        SettingsLayer {
            layer,
            path: PathBuf::from(format!("/{}.json", layer.as_str())),
            settings: FileSettings {
                enabled_plugins: entries
                    .iter()
                    .map(|(id, on)| ((*id).to_owned(), *on))
                    .collect(),
                untrusted: untrusted.then(|| "not trusted".to_owned()),
                ..FileSettings::default()
            },
        }
    }

    fn ids(layers: Vec<SettingsLayer>) -> Vec<(String, bool, bool)> {
        enabled(&Layers {
            files: layers,
            off: Off::None,
        })
        .into_iter()
        .map(|e| (e.id, e.users, e.untrusted.is_some()))
        .collect()
    }

    #[test]
    fn precedence_and_trust_of_enabled_plugins() {
        // Local over project over user, managed over all.
        assert_eq!(
            ids(vec![
                layer(Layer::User, &[("a@m", true), ("b@m", true)], false),
                layer(Layer::Project, &[("a@m", false), ("c@m", true)], false),
                layer(Layer::Local, &[("c@m", false), ("d@m", true)], false),
                layer(Layer::Managed, &[("b@m", false)], false),
            ]),
            [("d@m".to_owned(), false, false)]
        );
        // An untrusted project file turns on its plugins untrusted, and cannot turn off
        // the user's.
        assert_eq!(
            ids(vec![
                layer(Layer::User, &[("a@m", true)], false),
                layer(Layer::Project, &[("a@m", false), ("p@m", true)], true),
            ]),
            [
                ("a@m".to_owned(), true, false),
                ("p@m".to_owned(), false, true)
            ]
        );
        // What the user turns on stays the user's when the project turns it on too.
        assert_eq!(
            ids(vec![
                layer(Layer::User, &[("a@m", true)], false),
                layer(Layer::Project, &[("a@m", true)], true),
            ]),
            [("a@m".to_owned(), true, false)]
        );
    }

    #[test]
    fn the_data_directory_is_named_as_claude_code_names_it() {
        assert_eq!(
            data_dir(Path::new("/h/.claude/plugins"), "formatter@my-marketplace"),
            Path::new("/h/.claude/plugins/data/formatter-my-marketplace")
        );
    }

    #[test]
    fn a_plugin_directory_outside_claude_code_s_is_not_inside() {
        let plugins = Path::new("/h/.claude/plugins");
        assert!(inside(
            Path::new("/h/.claude/plugins/cache/m/p/1.0"),
            plugins
        ));
        assert!(!inside(Path::new("/repo/.claude/p"), plugins));
        assert!(!inside(Path::new("/h/.claude/plugins/../../repo"), plugins));
        assert!(!inside(Path::new("cache/m/p"), plugins));
    }
}
