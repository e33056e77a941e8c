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
use serde_json::value::RawValue;

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

/// The part of a plugin's manifest hookrig reads: its `hooks`, kept as written so that
/// hooks written inline are placed in the manifest.
#[derive(Debug, Deserialize)]
struct RawManifest<'a> {
    #[serde(borrow, default)]
    hooks: Option<&'a RawValue>,
}

/// One source of a plugin's hooks.
#[derive(Debug, Clone, PartialEq, Eq)]
enum HookSource {
    /// A hooks file, relative to the plugin's root.
    File(String),
    /// The `index`th hooks object written in the manifest, at `start..end` of its text.
    Inline {
        index: usize,
        start: usize,
        end: usize,
    },
}

impl HookSource {
    /// What names the source after the plugin's id in `[hooks.state]` keys, as Codex
    /// names it: the file's relative path, or `plugin.json#hooks[INDEX]`.
    fn relative(&self) -> String {
        match self {
            HookSource::File(path) => path.clone(),
            HookSource::Inline { index, .. } => format!("plugin.json#hooks[{index}]"),
        }
    }
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
    let Some((manifest_path, manifest_text, sources)) = hook_sources_of(ctx, plugin, &root) else {
        return;
    };
    let data = home
        .join("plugins")
        .join("data")
        .join(format!("{}-{}", plugin.name, plugin.marketplace));
    let mut parsed = Vec::new();
    for source in sources {
        let (path, text) = match &source {
            HookSource::File(relative) => {
                let path = root.join(relative);
                let Some(text) = ctx.read(&path) else {
                    continue;
                };
                (path, text)
            }
            // Parsed in place: the manifest with everything but the hooks object blanked
            // out, so that each problem is placed in the manifest.
            HookSource::Inline { start, end, .. } => {
                (manifest_path.clone(), blanked(&manifest_text, *start, *end))
            }
        };
        let key_source = format!("{}:{}", plugin.id, source.relative());
        let result = parse_keyed(
            &path,
            Some(&key_source),
            &text,
            Format::Json,
            Layer::PLUGIN,
            disabled,
            &mut ctx.diagnostics,
        );
        parsed.push((source, result));
    }
    // Codex reads inline hooks only when every object of them is a hooks file; else it
    // ignores the manifest's `hooks` and reads `hooks/hooks.json`.
    let inline_failed = parsed
        .iter()
        .any(|(source, result)| matches!(source, HookSource::Inline { .. }) && result.is_err());
    if inline_failed {
        for (_, result) in parsed {
            if let Err(mut diagnostic) = result {
                diagnostic.severity = Severity::Warning;
                diagnostic.message = format!(
                    "{}; Codex ignores the manifest's `hooks` and reads {DEFAULT_HOOKS}",
                    diagnostic.message
                );
                ctx.diagnostics.push(diagnostic);
            }
        }
        parsed = Vec::new();
        let default = root.join(DEFAULT_HOOKS);
        if let Some(text) = ctx.read(&default) {
            let key_source = format!("{}:{DEFAULT_HOOKS}", plugin.id);
            let result = parse_keyed(
                &default,
                Some(&key_source),
                &text,
                Format::Json,
                Layer::PLUGIN,
                disabled,
                &mut ctx.diagnostics,
            );
            parsed.push((HookSource::File(DEFAULT_HOOKS.to_owned()), result));
        }
    }
    for (source, result) in parsed {
        match result {
            Ok(hooks) => {
                // A plugin may have several sources of hooks: the name says which, but
                // for the default file.
                let label = match &source {
                    HookSource::File(relative) if relative == DEFAULT_HOOKS => plugin.id.clone(),
                    other => format!("{}:{}", plugin.id, other.relative()),
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

/// `text` with every character outside the bytes `start..end` but line breaks made one
/// space: the JSON value there, at the line and column (in characters) it has in
/// `text`.
fn blanked(text: &str, start: usize, end: usize) -> String {
    text.char_indices()
        .map(|(at, c)| {
            if (start..end).contains(&at) || c == '\n' {
                c.to_string()
            } else {
                " ".to_owned()
            }
        })
        .collect()
}

/// The manifest of the plugin installed in `root` (its path and text) and the sources of
/// its hooks; `None` when it has no manifest Codex reads (reported).
fn hook_sources_of(
    ctx: &mut LoadContext<'_>,
    plugin: &Enabled,
    root: &Path,
) -> Option<(PathBuf, String, Vec<HookSource>)> {
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
    match hook_sources(&text, root) {
        Ok((sources, warnings)) => {
            for message in warnings {
                ctx.diagnostics
                    .push(Diagnostic::file(&manifest_path, Severity::Warning, message));
            }
            Some((manifest_path, text, sources))
        }
        Err(message) => {
            ctx.diagnostics
                .push(Diagnostic::file(&manifest_path, Severity::Error, message));
            None
        }
    }
}

/// The sources of a plugin's hooks, and warnings about what is left out, from its
/// manifest's text. Its `hooks` names a file (`"./hooks/one.json"`) or a list of them,
/// each starting with `./` and staying inside the plugin (else left out with a warning),
/// or holds hooks written inline: one hooks object (`{"hooks": {...}}`) or a list of
/// them. When it names no usable file, or is none of those, the plugin's
/// `hooks/hooks.json` is read when there is one. `Err` is a manifest that is not JSON.
fn hook_sources(text: &str, root: &Path) -> Result<(Vec<HookSource>, Vec<String>), String> {
    let manifest: RawManifest<'_> = serde_json::from_str(text)
        .map_err(|err| format!("invalid plugin manifest, its hooks are not loaded: {err}"))?;
    let mut warnings = Vec::new();
    let mut sources = Vec::new();
    let raw = manifest.hooks.filter(|raw| raw.get() != "null");
    let value: Option<serde_json::Value> = raw.and_then(|raw| serde_json::from_str(raw.get()).ok());
    let place = |raw: &RawValue| {
        let start = raw
            .get()
            .as_ptr()
            .addr()
            .checked_sub(text.as_ptr().addr())?;
        Some((start, start + raw.get().len()))
    };
    let mut named: Vec<&str> = Vec::new();
    match (&value, raw) {
        (None, _) => {}
        (Some(serde_json::Value::String(path)), _) => named.push(path),
        (Some(serde_json::Value::Array(items)), _) if items.iter().all(serde_json::Value::is_string) => {
            named.extend(items.iter().filter_map(serde_json::Value::as_str));
        }
        (Some(serde_json::Value::Object(_)), Some(raw)) => {
            if let Some((start, end)) = place(raw) {
                sources.push(HookSource::Inline { index: 0, start, end });
            }
        }
        (Some(serde_json::Value::Array(items)), Some(raw)) if items.iter().all(serde_json::Value::is_object) => {
            let objects: Vec<&RawValue> = serde_json::from_str(raw.get()).unwrap_or_default();
            for (index, object) in objects.into_iter().enumerate() {
                if let Some((start, end)) = place(object) {
                    sources.push(HookSource::Inline { index, start, end });
                }
            }
        }
        (Some(other), _) => warnings.push(format!(
            "`hooks` is ignored, as Codex ignores it: expected a path, a list of paths, hooks or a list of hooks, found {other}"
        )),
    }
    for path in named {
        match manifest_path(path) {
            Ok(relative) => sources.push(HookSource::File(relative)),
            Err(message) => warnings.push(format!(
                "hooks file `{path}` is ignored, as Codex ignores it: {message}"
            )),
        }
    }
    if sources.is_empty() && consulted::is_file(&root.join(DEFAULT_HOOKS)) {
        sources.push(HookSource::File(DEFAULT_HOOKS.to_owned()));
    }
    Ok((sources, warnings))
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

    #[test_case(r#"{"name": "p"}"#, true, &["hooks/hooks.json"], 0 ; "the default file")]
    #[test_case(r#"{"name": "p"}"#, false, &[], 0 ; "no default file")]
    #[test_case(r#"{"hooks": null}"#, true, &["hooks/hooks.json"], 0 ; "null is no hooks")]
    #[test_case(r#"{"hooks": "./hooks/one.json"}"#, true, &["hooks/one.json"], 0 ; "one path replaces the default")]
    #[test_case(r#"{"hooks": ["./a.json", "./b/c.json"]}"#, true, &["a.json", "b/c.json"], 0 ; "a list of paths")]
    #[test_case(r#"{"hooks": []}"#, true, &["hooks/hooks.json"], 0 ; "an empty list")]
    #[test_case(r#"{"hooks": ["./a.json", "b.json"]}"#, true, &["a.json"], 1 ; "a path without its dot slash is left out")]
    #[test_case(r#"{"hooks": "./../outside.json"}"#, true, &["hooks/hooks.json"], 1 ; "a path outside the plugin falls back to the default")]
    #[test_case(r#"{"hooks": "./"}"#, false, &[], 1 ; "the root alone")]
    #[test_case(r#"{"hooks": 7}"#, true, &["hooks/hooks.json"], 1 ; "a number is ignored")]
    #[test_case(r#"{"hooks": ["./a.json", {"hooks": {}}]}"#, true, &["hooks/hooks.json"], 1 ; "a mixed list is ignored")]
    #[test_case(r#"{"hooks": {"hooks": {}}}"#, true, &["plugin.json#hooks[0] {\"hooks\": {}}"], 0 ; "inline hooks")]
    #[test_case(r#"{"hooks": [{"hooks": {}}, {"hooks": {"Stop": []}}]}"#, true, &["plugin.json#hooks[0] {\"hooks\": {}}", "plugin.json#hooks[1] {\"hooks\": {\"Stop\": []}}"], 0 ; "a list of inline hooks")]
    fn manifest_hooks(manifest: &str, default: bool, expected: &[&str], warnings: usize) {
        let dir = tempfile::tempdir().expect("tempdir");
        if default {
            write(&dir.path().join(DEFAULT_HOOKS), "{}");
        }
        let (sources, got_warnings) = hook_sources(manifest, dir.path()).expect("a manifest");
        let got: Vec<String> = sources
            .iter()
            .map(|source| match source {
                HookSource::File(path) => path.clone(),
                HookSource::Inline { start, end, .. } => {
                    format!("{} {}", source.relative(), &manifest[*start..*end])
                }
            })
            .collect();
        assert_eq!(got, expected);
        assert_eq!(got_warnings.len(), warnings, "{got_warnings:?}");
    }

    #[test]
    fn a_manifest_that_is_not_json_is_an_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let err = hook_sources("{nope", dir.path()).expect_err("not JSON");
        assert!(err.contains("invalid plugin manifest"), "{err}");
    }

    #[test]
    fn blanking_keeps_every_place() {
        let text = "{\n  \"hooks\": {\"a\": 1},\n  \"é\": 2\n}";
        let start = text.find("{\"a\"").expect("start");
        let end = start + "{\"a\": 1}".len();
        let blanked = blanked(text, start, end);
        assert_eq!(blanked.chars().count(), text.chars().count());
        assert_eq!(&blanked[start..end], "{\"a\": 1}");
        assert_eq!(blanked.lines().count(), text.lines().count());
        assert!(serde_json::from_str::<serde_json::Value>(&blanked).is_ok());
    }

    #[test_case("p@m", Some(("p", "m")) ; "an id")]
    #[test_case("p", None ; "no marketplace")]
    #[test_case("../p@m", None ; "a path")]
    #[test_case("p@", None ; "an empty marketplace")]
    fn ids(id: &str, expected: Option<(&str, &str)>) {
        assert_eq!(split_id(id), expected);
    }
}
