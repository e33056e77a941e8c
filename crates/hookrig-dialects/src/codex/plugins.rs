//! The hooks of installed, enabled Codex plugins. The source of each rule is in
//! docs/dialects/codex.md ("Plugin hooks").
//!
//! A plugin is enabled by `[plugins."NAME@MARKETPLACE"] enabled = true` in a
//! `config.toml` (the system's, the user's, a project's; a later layer wins, except that
//! a project cannot turn off a plugin the user turned on). It is installed in
//! `$CODEX_HOME/plugins/cache/MARKETPLACE/NAME/VERSION/` with a `.codex-plugin/plugin.json`
//! (or `.claude-plugin/plugin.json`); its hooks are the files its manifest's `hooks`
//! names, else `hooks/hooks.json`. They
//! load after every config layer's hooks, plugins in the order of their ids, with
//! `PLUGIN_ROOT`, `PLUGIN_DATA` and their `CLAUDE_` names set and put in place of
//! `${NAME}` in the command. A plugin the user enabled is the user's; one only a project
//! enabled is a project hook, untrusted until `hookrig trust`.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashSet};
use std::path::{Component, Path, PathBuf};

use hookrig_config::consulted;
use hookrig_core::{Diagnostic, Level, Severity};
use hookrig_exec::CommandDef;
use serde::Deserialize;

use super::loader::{Format, Layer, parse_keyed, system_dir};
use crate::definition::HookDef;
use crate::loader::LoadContext;

/// The version folder Codex prefers to every other: a plugin installed from a local
/// marketplace.
const LOCAL_VERSION: &str = "local";

/// Where a plugin's manifest is, relative to its root, in the order Codex looks.
const MANIFESTS: [&str; 2] = [".codex-plugin/plugin.json", ".claude-plugin/plugin.json"];

/// The hooks file of a plugin whose manifest names none.
const DEFAULT_HOOKS: &str = "hooks/hooks.json";

/// A plugin some `config.toml` turns on.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Enabled {
    /// `NAME@MARKETPLACE`, as written.
    id: String,
    name: String,
    marketplace: String,
    /// `Global` when the system's or the user's file turned it on, `Project` when only
    /// a project's did.
    level: Level,
    /// The file that turned it on.
    by: PathBuf,
}

#[derive(Debug, Deserialize)]
struct RawPluginsOnly {
    #[serde(default)]
    plugins: BTreeMap<String, toml::Value>,
}

#[derive(Debug, Deserialize)]
struct RawManifest {
    #[serde(default)]
    hooks: Option<serde_json::Value>,
}

/// Loads the hooks of every enabled, installed plugin into `ctx`, after every other
/// Codex hook. `projects` are the project's `.codex/` folders, the root first.
pub(super) fn load(
    ctx: &mut LoadContext<'_>,
    home: &Path,
    projects: &[PathBuf],
    disabled: &HashSet<String>,
) {
    let mut layers = vec![
        (system_dir().join("config.toml"), Level::Global),
        (home.join("config.toml"), Level::Global),
    ];
    layers.extend(
        projects
            .iter()
            .map(|folder| (folder.join("config.toml"), Level::Project)),
    );
    for plugin in enabled(&layers, &mut ctx.diagnostics) {
        load_plugin(ctx, home, &plugin, disabled);
    }
}

/// The enabled plugins, sorted by id as Codex sorts them. Each layer's
/// `[plugins."ID"] enabled` overrides the layers before it, except that a project's
/// `enabled = false` does not turn off a plugin the system or the user turned on: a
/// repository must not be able to switch off the user's own guards. A file that cannot
/// be read or parsed turns nothing on (its error is reported where its hooks are read).
fn enabled(layers: &[(PathBuf, Level)], diagnostics: &mut Vec<Diagnostic>) -> Vec<Enabled> {
    let mut state: BTreeMap<String, (bool, Level, PathBuf)> = BTreeMap::new();
    for (path, level) in layers {
        let Ok(text) = hookrig_config::read_source(path) else {
            continue;
        };
        let Ok(raw) = toml::from_str::<RawPluginsOnly>(&text) else {
            continue;
        };
        for (id, value) in raw.plugins {
            let Some(on) = value.get("enabled").and_then(toml::Value::as_bool) else {
                continue;
            };
            let users = matches!(state.get(&id), Some((true, Level::Global, _)));
            if !(users && *level == Level::Project) {
                state.insert(id, (on, *level, path.clone()));
            }
        }
    }
    let mut plugins = Vec::new();
    for (id, (on, level, by)) in state {
        if !on {
            continue;
        }
        match split_id(&id) {
            Some((name, marketplace)) => plugins.push(Enabled {
                name: name.to_owned(),
                marketplace: marketplace.to_owned(),
                id,
                level,
                by,
            }),
            None => diagnostics.push(Diagnostic::file(
                &by,
                Severity::Warning,
                format!(
                    "plugin `{id}` is not a Codex plugin id (NAME@MARKETPLACE); its hooks are not loaded"
                ),
            )),
        }
    }
    plugins
}

/// `NAME@MARKETPLACE`, each part a single path segment.
fn split_id(id: &str) -> Option<(&str, &str)> {
    let (name, marketplace) = id.split_once('@')?;
    let segment = |s: &str| {
        !s.is_empty()
            && s != "."
            && s != ".."
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    (segment(name) && segment(marketplace)).then_some((name, marketplace))
}

/// The version folder Codex runs: `local` when there is one, else the highest version.
fn active_version(base: &Path) -> Option<String> {
    let entries = consulted::read_dir(base).ok()?;
    let mut versions: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|version| {
            !version.is_empty()
                && version != "."
                && version != ".."
                && version
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+'))
        })
        .collect();
    if versions.iter().any(|v| v == LOCAL_VERSION) {
        return Some(LOCAL_VERSION.to_owned());
    }
    versions.sort_by(|a, b| compare_versions(a, b));
    versions.pop()
}

/// Orders two version folders: as `MAJOR.MINOR.PATCH` numbers when both are, else as
/// text.
fn compare_versions(a: &str, b: &str) -> Ordering {
    fn numbers(v: &str) -> Option<Vec<u64>> {
        let parts: Option<Vec<u64>> = v.split('.').map(|p| p.parse().ok()).collect();
        parts.filter(|p| p.len() == 3)
    }
    match (numbers(a), numbers(b)) {
        (Some(a), Some(b)) => a.cmp(&b),
        _ => a.cmp(b),
    }
}

fn load_plugin(
    ctx: &mut LoadContext<'_>,
    home: &Path,
    plugin: &Enabled,
    disabled: &HashSet<String>,
) {
    let base = home
        .join("plugins")
        .join("cache")
        .join(&plugin.marketplace)
        .join(&plugin.name);
    let Some(version) = active_version(&base) else {
        ctx.diagnostics.push(Diagnostic::file(
            &plugin.by,
            Severity::Warning,
            format!(
                "plugin `{}` is enabled here, but not installed in {}; its hooks are not loaded",
                plugin.id,
                base.display()
            ),
        ));
        return;
    };
    let root = base.join(version);
    let Some(files) = hook_files_of(ctx, plugin, &root) else {
        return;
    };
    let data = home
        .join("plugins")
        .join("data")
        .join(format!("{}-{}", plugin.name, plugin.marketplace));
    for relative in files {
        let path = root.join(&relative);
        let Some(text) = ctx.read(&path) else {
            continue;
        };
        let key_source = format!("{}:{relative}", plugin.id);
        match parse_keyed(
            &path,
            Some(&key_source),
            &text,
            Format::Json,
            Layer::PLUGIN,
            disabled,
            &mut ctx.diagnostics,
        ) {
            Ok(hooks) => {
                // A plugin may have several hooks files: the name says which, but for
                // the default one.
                let label = if relative == DEFAULT_HOOKS {
                    plugin.id.clone()
                } else {
                    format!("{}:{relative}", plugin.id)
                };
                for mut def in hooks {
                    adopt(&mut def, &label, plugin.level, &root, &data);
                    ctx.hooks.push(def);
                }
            }
            Err(diagnostic) => ctx.diagnostics.push(diagnostic),
        }
    }
}

/// The hooks files of the plugin installed in `root`, relative to it, from its manifest;
/// `None` (reported) when it has no manifest Codex reads, or one hookrig cannot follow.
fn hook_files_of(ctx: &mut LoadContext<'_>, plugin: &Enabled, root: &Path) -> Option<Vec<String>> {
    let Some(manifest_path) = MANIFESTS
        .iter()
        .map(|relative| root.join(relative))
        .find(|path| consulted::is_file(path))
    else {
        ctx.diagnostics.push(Diagnostic::file(
            &plugin.by,
            Severity::Warning,
            format!(
                "plugin `{}` has no plugin.json in {}; its hooks are not loaded",
                plugin.id,
                root.display()
            ),
        ));
        return None;
    };
    // A manifest that cannot be read is reported by `read`.
    let text = ctx.read(&manifest_path)?;
    let manifest: RawManifest = match serde_json::from_str(&text) {
        Ok(manifest) => manifest,
        Err(err) => {
            ctx.diagnostics.push(Diagnostic::file(
                &manifest_path,
                Severity::Error,
                format!("invalid plugin manifest, its hooks are not loaded: {err}"),
            ));
            return None;
        }
    };
    let files = match hook_files(&manifest, root) {
        Ok((files, warnings)) => {
            for message in warnings {
                ctx.diagnostics
                    .push(Diagnostic::file(&manifest_path, Severity::Warning, message));
            }
            files
        }
        Err(message) => {
            ctx.diagnostics
                .push(Diagnostic::file(&manifest_path, Severity::Warning, message));
            return None;
        }
    };
    Some(files)
}

/// The hooks files of a plugin, relative to its root, and warnings about the paths left
/// out. The manifest's `hooks` names a file (`"./hooks/one.json"`) or a list of them;
/// each must start with `./` and stay inside the plugin, else it is left out with a
/// warning. When it names no usable file, or is not a path, a list of paths or inline
/// hooks, the plugin's `hooks/hooks.json` is read when there is one. Hooks written inline
/// in the manifest are not read yet: `Err` says so, and none of the plugin's hooks load.
fn hook_files(manifest: &RawManifest, root: &Path) -> Result<(Vec<String>, Vec<String>), String> {
    let mut warnings = Vec::new();
    let named: Vec<&str> = match &manifest.hooks {
        None | Some(serde_json::Value::Null) => Vec::new(),
        Some(serde_json::Value::String(path)) => vec![path.as_str()],
        Some(serde_json::Value::Array(items)) if items.iter().all(serde_json::Value::is_string) => {
            items.iter().filter_map(serde_json::Value::as_str).collect()
        }
        Some(serde_json::Value::Object(_) | serde_json::Value::Array(_)) => {
            return Err(
                "hooks written inline in a plugin manifest are not read by hookrig yet; the plugin's hooks are not loaded"
                    .to_owned(),
            );
        }
        Some(other) => {
            warnings.push(format!(
                "`hooks` is ignored, as Codex ignores it: expected a path, a list of paths or hooks, found {other}"
            ));
            Vec::new()
        }
    };
    let mut files = Vec::new();
    for path in named {
        match manifest_path(path) {
            Ok(relative) => files.push(relative),
            Err(message) => warnings.push(format!(
                "hooks file `{path}` is ignored, as Codex ignores it: {message}"
            )),
        }
    }
    if files.is_empty() && consulted::is_file(&root.join(DEFAULT_HOOKS)) {
        files.push(DEFAULT_HOOKS.to_owned());
    }
    Ok((files, warnings))
}

/// A manifest path as Codex reads it: `./` and then a path inside the plugin.
fn manifest_path(path: &str) -> Result<String, &'static str> {
    let Some(relative) = path.strip_prefix("./") else {
        return Err("the path must start with `./`");
    };
    if relative.is_empty() {
        return Err("the path must not be `./`");
    }
    let mut parts = Vec::new();
    for component in Path::new(relative).components() {
        match component {
            Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
            Component::ParentDir => return Err("the path must not contain `..`"),
            _ => return Err("the path must stay inside the plugin"),
        }
    }
    Ok(parts.join("/"))
}

/// Makes a hook parsed from a plugin's file the plugin's: its name, its level, and the
/// plugin's directories in its environment and, as Codex writes them, in its command.
fn adopt(def: &mut HookDef, label: &str, level: Level, root: &Path, data: &Path) {
    if let Some(rest) = def.spec.name.strip_prefix("codex:plugin:") {
        def.spec.name = format!("codex:plugin:{label}:{rest}");
    }
    def.spec.source.level = level;
    let root = root.to_string_lossy().into_owned();
    let data = data.to_string_lossy().into_owned();
    let env = [
        ("PLUGIN_ROOT", root.clone()),
        ("CLAUDE_PLUGIN_ROOT", root),
        ("PLUGIN_DATA", data.clone()),
        ("CLAUDE_PLUGIN_DATA", data),
    ];
    if let CommandDef::Shell { line, .. } = &mut def.command {
        for (name, value) in &env {
            *line = line.replace(&format!("${{{name}}}"), value);
        }
    }
    def.env.extend(
        env.into_iter()
            .map(|(name, value)| (name.to_owned(), value)),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use test_case::test_case;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    #[test_case(&[("user", "[plugins.\"a@m\"]\nenabled = true\n")], &["a@m Global"] ; "the user enables")]
    #[test_case(&[("user", "[plugins.\"a@m\"]\nenabled = false\n")], &[] ; "the user disables")]
    #[test_case(&[("user", "[plugins.\"a@m\"]\n")], &[] ; "no enabled key enables nothing")]
    #[test_case(&[("system", "[plugins.\"a@m\"]\nenabled = true\n"), ("user", "[plugins.\"a@m\"]\nenabled = false\n")], &[] ; "the user turns off the systems")]
    #[test_case(&[("project", "[plugins.\"a@m\"]\nenabled = true\n")], &["a@m Project"] ; "a project enables untrusted")]
    #[test_case(&[("user", "[plugins.\"a@m\"]\nenabled = true\n"), ("project", "[plugins.\"a@m\"]\nenabled = false\n")], &["a@m Global"] ; "a project cannot turn off the users")]
    #[test_case(&[("user", "[plugins.\"a@m\"]\nenabled = true\n"), ("project", "[plugins.\"a@m\"]\nenabled = true\n")], &["a@m Global"] ; "a project enabling the users plugin keeps it the users")]
    #[test_case(&[("user", "[plugins.\"a@m\"]\nenabled = false\n"), ("project", "[plugins.\"a@m\"]\nenabled = true\n")], &["a@m Project"] ; "a project turns on what the user turned off untrusted")]
    #[test_case(&[("user", "[plugins.\"b@m\"]\nenabled = true\n[plugins.\"a@m\"]\nenabled = true\n[plugins.bad]\nenabled = true\n")], &["a@m Global", "b@m Global"] ; "sorted by id and a bad id skipped")]
    #[test_case(&[("user", "[plugins\nbroken")], &[] ; "a broken file enables nothing")]
    fn enablement(files: &[(&str, &str)], expected: &[&str]) {
        let dir = tempfile::tempdir().expect("tempdir");
        let layers: Vec<(PathBuf, Level)> = files
            .iter()
            .map(|(name, text)| {
                let path = dir.path().join(name).join("config.toml");
                write(&path, text);
                let level = if *name == "project" {
                    Level::Project
                } else {
                    Level::Global
                };
                (path, level)
            })
            .collect();
        let mut diagnostics = Vec::new();
        let got: Vec<String> = enabled(&layers, &mut diagnostics)
            .into_iter()
            .map(|p| format!("{} {:?}", p.id, p.level))
            .collect();
        assert_eq!(got, expected);
    }

    #[test_case(&["1.0.0", "local", "2.0.0"], Some("local") ; "local wins")]
    #[test_case(&["1.10.0", "1.9.0"], Some("1.10.0") ; "numbers compare as numbers")]
    #[test_case(&["abc", "abd"], Some("abd") ; "other names compare as text")]
    #[test_case(&[], None ; "no version is not installed")]
    fn versions(folders: &[&str], expected: Option<&str>) {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path()).expect("mkdir");
        for folder in folders {
            std::fs::create_dir_all(dir.path().join(folder)).expect("mkdir");
        }
        std::fs::write(dir.path().join("9.9.9"), "a file is no version").expect("write");
        assert_eq!(active_version(dir.path()).as_deref(), expected);
    }

    #[test_case(r#"{"name": "p"}"#, true, Ok((vec!["hooks/hooks.json"], 0)) ; "the default file")]
    #[test_case(r#"{"name": "p"}"#, false, Ok((vec![], 0)) ; "no default file")]
    #[test_case(r#"{"hooks": "./hooks/one.json"}"#, true, Ok((vec!["hooks/one.json"], 0)) ; "one path replaces the default")]
    #[test_case(r#"{"hooks": ["./a.json", "./b/c.json"]}"#, true, Ok((vec!["a.json", "b/c.json"], 0)) ; "a list of paths")]
    #[test_case(r#"{"hooks": ["./a.json", "b.json"]}"#, true, Ok((vec!["a.json"], 1)) ; "a path without its dot slash is left out")]
    #[test_case(r#"{"hooks": "./../outside.json"}"#, true, Ok((vec!["hooks/hooks.json"], 1)) ; "a path outside the plugin falls back to the default")]
    #[test_case(r#"{"hooks": "./"}"#, false, Ok((vec![], 1)) ; "the root alone")]
    #[test_case(r#"{"hooks": 7}"#, true, Ok((vec!["hooks/hooks.json"], 1)) ; "a number is ignored")]
    #[test_case(r#"{"hooks": {"hooks": {}}}"#, true, Err("inline") ; "inline hooks")]
    #[test_case(r#"{"hooks": [{"hooks": {}}]}"#, true, Err("inline") ; "a list of inline hooks")]
    fn manifest_hooks(manifest: &str, default: bool, expected: Result<(Vec<&str>, usize), &str>) {
        let dir = tempfile::tempdir().expect("tempdir");
        if default {
            write(&dir.path().join(DEFAULT_HOOKS), "{}");
        }
        let manifest: RawManifest = serde_json::from_str(manifest).expect("manifest");
        match (hook_files(&manifest, dir.path()), expected) {
            (Ok((got, warnings)), Ok((expected, count))) => {
                assert_eq!(got, expected);
                assert_eq!(warnings.len(), count, "{warnings:?}");
            }
            (Err(got), Err(expected)) => assert!(got.contains(expected), "{got}"),
            (got, expected) => panic!("got {got:?}, expected {expected:?}"),
        }
    }

    #[test_case("p@m", Some(("p", "m")) ; "an id")]
    #[test_case("p", None ; "no marketplace")]
    #[test_case("../p@m", None ; "a path")]
    #[test_case("p@", None ; "an empty marketplace")]
    fn ids(id: &str, expected: Option<(&str, &str)>) {
        assert_eq!(split_id(id), expected);
    }
}
