//! Plugin packages: directories registered with `hookrig plugins register`, enabled per
//! agent, whose manifest is x-code's `plugin.json` plus hookrig's fields.
//!
//! The manifest is found and its hooks are read exactly as an x-code plugin's (see
//! `xcode.rs`, which this module extends rather than copies): `name`, `version`,
//! `description`, `hooks`. On top of that a package may declare
//!
//! - `id` (OpenHermit): when present it must equal the id the package was registered
//!   under, so a manifest cannot be registered under a name it does not claim;
//! - `commands`: external commands it ships, `{"NAME": "relative/path"}`;
//! - `validators` and `formatters`: plan validators and board formatters, same shape;
//! - `webhooks` (OpenHermit): `[{"event": E, "url": U, ...}]`, kept with their other
//!   fields for the webhook handlers.
//!
//! Paths must be relative and stay inside the package; they are resolved against the
//! package directory. Whether the files exist is checked when they are run, not here.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hookrig_core::{HookSpec, Level, Matcher, Mode, OnError, Source};
use serde_json::{Map, Value};

use hookrig_exec::CommandDef;

use super::loader::{self as xcode, JsonFile};
use super::webhook;
use crate::definition::{HookDef, Settings};
use crate::errors::PackageError;
use crate::loader::{LoadContext, LoadOptions};
use crate::native::NativeProtocol;
use hookrig_config::JsonKey;
use hookrig_config::{Environment, Project};
use hookrig_core::{Diagnostic, Severity};

/// A registered package to load: its id and directory (from the store).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageRef {
    /// The id it was registered under.
    pub id: String,
    /// Its directory.
    pub path: PathBuf,
}

/// A named file a package ships (a command, validator or formatter).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageFile {
    /// The name it is called by (`hookrig NAME`, `--format NAME`, `[NAME]` in
    /// validator output).
    pub name: String,
    /// The file, absolute (the package directory joined with the manifest's path).
    pub path: PathBuf,
}

/// One `webhooks` entry of a package manifest.
#[derive(Debug, Clone, PartialEq)]
pub struct PackageWebhook {
    /// The event it subscribes to, as written.
    pub event: String,
    /// Where the event is sent (an HTTP `POST`).
    pub url: String,
    /// `secret_env`: the variable holding the key that signs the body.
    pub secret_env: Option<String>,
    /// `headers`: extra request headers, in manifest order.
    pub headers: Vec<(String, String)>,
    /// `timeout`, in milliseconds.
    pub timeout: Option<Duration>,
    /// `description`.
    pub description: Option<String>,
    /// The entry's other fields, as written (ignored, with a warning).
    pub fields: Map<String, Value>,
}

/// The fields of a `webhooks` entry hookrig reads.
const WEBHOOK_FIELDS: &[&str] = &[
    "event",
    "url",
    "secret_env",
    "headers",
    "timeout",
    "description",
];

/// A loaded plugin package: what its manifest declares besides hooks.
#[derive(Debug, Clone, PartialEq)]
pub struct Package {
    /// The id it was registered under.
    pub id: String,
    /// The manifest's `name`.
    pub name: String,
    /// The manifest's `version`.
    pub version: Option<String>,
    /// The manifest's `description`.
    pub description: Option<String>,
    /// The package directory.
    pub dir: PathBuf,
    /// The manifest file.
    pub manifest: PathBuf,
    /// External commands, in manifest order.
    pub commands: Vec<PackageFile>,
    /// Plan validators, in manifest order.
    pub validators: Vec<PackageFile>,
    /// Board formatters, in manifest order.
    pub formatters: Vec<PackageFile>,
    /// Webhook subscriptions, in manifest order.
    pub webhooks: Vec<PackageWebhook>,
    /// How to run its plugin host, when it is an OpenHermit JavaScript plugin
    /// (`manifest.json`) rather than a package of hooks.
    pub host: Option<crate::PluginHost>,
}

/// Whether `id` can name a package: x-code's plugin name rule, `^[a-z0-9][a-z0-9-]*$`,
/// since the id names the package's data directory and prefixes its hooks' names.
pub fn valid_package_id(id: &str) -> bool {
    xcode::valid_name(id)
}

/// What [`check_package`] found.
#[derive(Debug, Clone)]
pub struct PackageCheck {
    /// The package, when its manifest is valid.
    pub package: Option<Package>,
    /// Its hooks.
    pub hooks: Vec<HookDef>,
    /// Every problem found; a package with an error is not loaded by emit.
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads the package at `package.path` exactly as `load` would for an emit, without
/// loading anything else: for `hookrig plugins register`, which refuses a package that
/// would not load.
pub fn check_package(env: &Environment, package: &PackageRef) -> PackageCheck {
    let project = Project::default();
    let options = LoadOptions::default();
    let mut ctx = LoadContext::new(env, &project, &options);
    xcode::load_package(&mut ctx, package);
    PackageCheck {
        package: ctx.packages.pop(),
        hooks: ctx.hooks,
        diagnostics: ctx.diagnostics,
    }
}

/// A package directory that can be registered: what `hookrig plugins register` records.
#[derive(Debug, Clone, PartialEq)]
pub struct Registrable {
    /// The package as an emit would load it.
    pub package: Package,
    /// Its directory, absolute and canonical, so that the registry keeps naming the same
    /// directory whatever the working directory of a later emit, and symlinks cannot
    /// register one directory under two ids.
    pub dir: PathBuf,
}

/// Checks the package in `path` for registration under `id`, as an emit would load it
/// (`env` gives the user's directories): an invalid id or any error refuses it, listing
/// every problem. Warnings do not refuse it; each is handed to `warn`.
pub fn registrable(
    env: &Environment,
    id: &str,
    path: &Path,
    warn: &mut dyn FnMut(&Diagnostic),
) -> Result<Registrable, PackageError> {
    if !valid_package_id(id) {
        return Err(PackageError::BadId(id.to_owned()));
    }
    let dir = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let dir = dir.canonicalize().unwrap_or(dir);
    let env = Environment {
        cwd: dir.clone(),
        ..env.clone()
    };
    let check = check_package(
        &env,
        &PackageRef {
            id: id.to_owned(),
            path: dir.clone(),
        },
    );
    let (errors, warnings): (Vec<_>, Vec<_>) = check
        .diagnostics
        .into_iter()
        .partition(|d| d.severity == Severity::Error);
    for warning in &warnings {
        warn(warning);
    }
    match check.package {
        Some(package) if errors.is_empty() => Ok(Registrable { package, dir }),
        _ => Err(PackageError::Invalid {
            dir,
            problems: errors
                .iter()
                .map(|e| without_load_tail(&e.to_string(), id))
                .collect(),
        }),
    }
}

/// A load diagnostic without its "what the load did about it" tail, which reads wrong
/// when nothing was being loaded.
fn without_load_tail(text: &str, id: &str) -> String {
    let package_tail = format!("; package {id} is not loaded");
    [
        package_tail.as_str(),
        "; the plugin's hooks are not loaded",
        "; the plugin is not loaded",
        "; skipped",
    ]
    .iter()
    .find_map(|tail| text.strip_suffix(tail))
    .unwrap_or(text)
    .to_owned()
}

/// The package fields of `manifest`, or `None` when one is invalid (each problem is
/// reported as an error at its position).
pub(crate) fn read<'m>(
    ctx: &mut LoadContext<'_>,
    manifest: &'m JsonFile,
    id: &str,
    name: &str,
    dir: &Path,
) -> Option<Package> {
    let object = manifest.value.as_object()?;
    let mut problems: Vec<(Vec<JsonKey<'m>>, String)> = Vec::new();
    match object.get("id") {
        None => {}
        Some(Value::String(own)) if own == id => {}
        Some(other) => problems.push((
            vec![JsonKey::Key("id")],
            format!("id {other} differs from the id the package is registered under, {id:?}"),
        )),
    }
    let version = text(object, "version", &mut problems);
    let description = text(object, "description", &mut problems);
    let commands = named_files(object, "commands", dir, &mut problems);
    let validators = named_files(object, "validators", dir, &mut problems);
    let formatters = named_files(object, "formatters", dir, &mut problems);
    let mut unknown = Vec::new();
    let webhooks = webhooks(object, &mut problems, &mut unknown);
    for (segs, message) in unknown {
        manifest.lowering(&mut ctx.diagnostics).report(
            manifest.key_offset(&segs).or(Some(0)),
            Severity::Warning,
            message,
        );
    }

    if !problems.is_empty() {
        for (segs, message) in problems {
            manifest.lowering(&mut ctx.diagnostics).report(
                manifest.key_offset(&segs).or(Some(0)),
                Severity::Error,
                format!("{message}; package {id} is not loaded"),
            );
        }
        return None;
    }
    Some(Package {
        id: id.to_owned(),
        name: name.to_owned(),
        version,
        description,
        dir: dir.to_owned(),
        manifest: manifest.path.clone(),
        commands,
        validators,
        formatters,
        webhooks,
        host: None,
    })
}

/// The string under `key`, if any.
fn text(
    object: &Map<String, Value>,
    key: &'static str,
    problems: &mut Vec<(Vec<JsonKey<'_>>, String)>,
) -> Option<String> {
    match object.get(key) {
        None => None,
        Some(Value::String(value)) => Some(value.clone()),
        Some(_) => {
            problems.push((vec![JsonKey::Key(key)], format!("{key} must be a string")));
            None
        }
    }
}

/// `{"NAME": "relative/path", ...}` under `key`.
fn named_files<'a>(
    object: &'a Map<String, Value>,
    key: &'static str,
    dir: &Path,
    problems: &mut Vec<(Vec<JsonKey<'a>>, String)>,
) -> Vec<PackageFile> {
    let Some(value) = object.get(key) else {
        return Vec::new();
    };
    let Some(entries) = value.as_object() else {
        problems.push((
            vec![JsonKey::Key(key)],
            format!("{key} must be an object mapping names to paths inside the package"),
        ));
        return Vec::new();
    };
    let mut files = Vec::new();
    for (name, path) in entries {
        let at = vec![JsonKey::Key(key), JsonKey::Key(name)];
        if !valid_file_name(name) {
            problems.push((
                at,
                format!("{key}.{name}: the name must be letters, digits, `.`, `_` or `-`, not starting with `-` or `.`"),
            ));
            continue;
        }
        match path.as_str().map(Path::new) {
            Some(relative) if inside(relative) => files.push(PackageFile {
                name: name.clone(),
                path: relative
                    .components()
                    .filter(|c| *c != Component::CurDir)
                    .fold(dir.to_owned(), |path, c| path.join(c)),
            }),
            _ => problems.push((
                at,
                format!("{key}.{name}: must be a relative path inside the package (no `..`)"),
            )),
        }
    }
    files
}

/// A name a command, validator or formatter can have: one path component, no option.
fn valid_file_name(name: &str) -> bool {
    !name.starts_with(['-', '.'])
        && !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// Whether `path` is relative, non-empty and never climbs out of its base.
fn inside(path: &Path) -> bool {
    path.components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
        && path.components().any(|c| matches!(c, Component::Normal(_)))
}

/// The `webhooks` array: each entry checked as a native `url` hook is (URL, header,
/// variable name), and its event against [`webhook::webhook_event_allowed`]. Unknown
/// fields go to `unknown` as warnings: a misspelt `secret_env` would otherwise send
/// unsigned requests without a word.
fn webhooks<'a>(
    object: &'a Map<String, Value>,
    problems: &mut Vec<(Vec<JsonKey<'a>>, String)>,
    unknown: &mut Vec<(Vec<JsonKey<'a>>, String)>,
) -> Vec<PackageWebhook> {
    let Some(value) = object.get("webhooks") else {
        return Vec::new();
    };
    let Some(entries) = value.as_array() else {
        problems.push((
            vec![JsonKey::Key("webhooks")],
            "webhooks must be an array of {\"event\", \"url\"} objects".to_owned(),
        ));
        return Vec::new();
    };
    entries
        .iter()
        .enumerate()
        .filter_map(|(index, entry)| webhook_entry(entry, index, problems, unknown))
        .collect()
}

/// One `webhooks` entry, or `None` when it has a problem (pushed).
fn webhook_entry<'a>(
    entry: &'a Value,
    index: usize,
    problems: &mut Vec<(Vec<JsonKey<'a>>, String)>,
    unknown: &mut Vec<(Vec<JsonKey<'a>>, String)>,
) -> Option<PackageWebhook> {
    let at = |key: Option<&'a str>| {
        let mut segs = vec![JsonKey::Key("webhooks"), JsonKey::Index(index)];
        segs.extend(key.map(JsonKey::Key));
        segs
    };
    let Some(fields) = entry.as_object() else {
        problems.push((at(None), format!("webhooks[{index}] must be an object")));
        return None;
    };
    let before = problems.len();
    let string =
        |key: &'a str, problems: &mut Vec<(Vec<JsonKey<'a>>, String)>| match fields.get(key) {
            None => None,
            Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
            Some(_) => {
                problems.push((
                    at(Some(key)),
                    format!("webhooks[{index}].{key} must be a non-empty string"),
                ));
                None
            }
        };
    let event = string("event", problems);
    let url = string("url", problems);
    let secret_env = string("secret_env", problems);
    let description = string("description", problems);
    for key in ["event", "url"] {
        if !fields.contains_key(key) {
            problems.push((
                at(None),
                format!("webhooks[{index}].{key} must be a non-empty string"),
            ));
        }
    }
    if let Some(event) = &event
        && let Err(why) = webhook::webhook_event_allowed(event)
    {
        problems.push((at(Some("event")), format!("webhooks[{index}].event: {why}")));
    }
    if let Some(url) = &url
        && let Err(why) = hookrig_config::check_url(url)
    {
        problems.push((
            at(Some("url")),
            format!("webhooks[{index}].url: invalid url `{url}`: {why}"),
        ));
    }
    if let Some(name) = &secret_env
        && let Err(why) = hookrig_config::check_env_name(name)
    {
        problems.push((
            at(Some("secret_env")),
            format!("webhooks[{index}].secret_env: invalid variable name `{name}`: {why}"),
        ));
    }
    let headers = webhook_headers(fields, index, &at, problems);
    let timeout = fields.get("timeout").and_then(|value| {
        let ms = value.as_u64().filter(|ms| *ms > 0);
        if ms.is_none() {
            problems.push((
                at(Some("timeout")),
                format!("webhooks[{index}].timeout must be a positive integer of milliseconds"),
            ));
        }
        ms.map(Duration::from_millis)
    });
    for key in fields.keys() {
        if !WEBHOOK_FIELDS.contains(&key.as_str()) {
            unknown.push((
                at(Some(key.as_str())),
                format!(
                    "webhooks[{index}].{key}: unknown field, ignored (known: {})",
                    WEBHOOK_FIELDS.join(", ")
                ),
            ));
        }
    }
    if problems.len() > before {
        return None;
    }
    Some(PackageWebhook {
        event: event?,
        url: url?,
        secret_env,
        headers,
        timeout,
        description,
        fields: fields
            .iter()
            .filter(|(key, _)| !WEBHOOK_FIELDS.contains(&key.as_str()))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect(),
    })
}

/// `headers` of a `webhooks` entry: an object of strings, each checked as a native
/// hook's headers are.
fn webhook_headers<'a>(
    fields: &'a Map<String, Value>,
    index: usize,
    at: &impl Fn(Option<&'a str>) -> Vec<JsonKey<'a>>,
    problems: &mut Vec<(Vec<JsonKey<'a>>, String)>,
) -> Vec<(String, String)> {
    let Some(value) = fields.get("headers") else {
        return Vec::new();
    };
    let Some(object) = value.as_object() else {
        problems.push((
            at(Some("headers")),
            format!("webhooks[{index}].headers must be an object of strings"),
        ));
        return Vec::new();
    };
    let mut headers = Vec::new();
    for (name, value) in object {
        let mut segs = at(Some("headers"));
        segs.push(JsonKey::Key(name));
        let Some(value) = value.as_str() else {
            problems.push((
                segs,
                format!("webhooks[{index}].headers.{name} must be a string"),
            ));
            continue;
        };
        match hookrig_config::check_header(name, value) {
            Ok(()) => headers.push((name.clone(), value.to_owned())),
            Err(why) => problems.push((segs, format!("webhooks[{index}].headers.{name}: {why}"))),
        }
    }
    headers
}

/// Records a loaded package and adds its webhooks as hooks, after its own hooks: each
/// one a native-protocol `url` hook named `<id>:webhook:<n>` (`n` its index in
/// `webhooks`), global like the package's other hooks.
pub(crate) fn push(ctx: &mut LoadContext<'_>, package: Package) {
    for (index, hook) in package.webhooks.iter().enumerate() {
        ctx.hooks.push(HookDef {
            spec: HookSpec {
                name: format!("{}:webhook:{index}", package.id),
                events: vec![crate::events::resolve(&hook.event)],
                matcher: Matcher::Any,
                priority: HookSpec::DEFAULT_PRIORITY,
                mode: Mode::Sync,
                enabled: true,
                on_error: OnError::Allow,
                source: Source {
                    path: package.manifest.clone(),
                    dialect: hookrig_core::Dialect::Native,
                    level: Level::Global,
                },
                description: hook.description.clone(),
                // A package is not a hooks.toml: its webhooks do not take that file's
                // `settings.timeout`, but the same default, so a package behaves the
                // same whatever the user's settings are.
                timeout: hook.timeout.or(Settings::default().timeout),
                group: None,
                matcher_field: None,
                untrusted: None,
                shadow: false,
                side_effects: true,
            },
            command: CommandDef::Http {
                url: hook.url.clone(),
                headers: hook.headers.clone(),
                secret_env: hook.secret_env.clone(),
            },
            env: Vec::new(),
            protocol: Arc::new(NativeProtocol),
            // A webhook runs no script, so nothing reports a problem at its entry.
            declared_at: None,
            workers: None,
        });
    }
    ctx.packages.push(package);
}

#[cfg(test)]
mod tests {
    use indoc::indoc;
    use test_case::test_case;

    use super::*;

    struct World {
        _tmp: tempfile::TempDir,
        root: PathBuf,
        env: Environment,
    }

    fn world() -> World {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().canonicalize().expect("canonical");
        let home = root.join("home");
        let project = root.join("project");
        std::fs::create_dir_all(project.join(".git")).expect("mkdir");
        let env = Environment {
            config_home: home.join(".config"),
            state_home: home.join(".local/state"),
            data_home: home.join(".local/share"),
            xcode_home: home.join(".x-code"),
            home,
            cwd: project,
            trust_all: false,
        };
        World {
            _tmp: tmp,
            root,
            env,
        }
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    fn package_ref(id: &str, path: &Path) -> PackageRef {
        PackageRef {
            id: id.to_owned(),
            path: path.to_owned(),
        }
    }

    fn rendered(check: &PackageCheck, root: &Path) -> String {
        check
            .diagnostics
            .iter()
            .map(|d| {
                d.render_with_severity()
                    .replace(&root.display().to_string(), "[ROOT]")
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn registration_refuses_a_bad_id_and_an_invalid_package_without_the_load_tail() {
        let w = world();
        let mut warned = Vec::new();
        let err = registrable(&w.env, "Bad_Id", &w.root, &mut |d| warned.push(d.clone()))
            .expect_err("bad id");
        assert!(matches!(err, PackageError::BadId(_)), "{err:?}");

        let dir = w.root.join("pkgs/guard");
        write(
            &dir.join("plugin.json"),
            r#"{"id": "other", "name": "guard"}"#,
        );
        let err = registrable(&w.env, "guard", &dir, &mut |d| warned.push(d.clone()))
            .expect_err("invalid");
        let PackageError::Invalid {
            dir: refused,
            problems,
        } = &err
        else {
            panic!("{err:?}");
        };
        assert_eq!(refused, &dir);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("differs from the id"), "{problems:?}");
        assert!(!problems[0].ends_with("is not loaded"), "{problems:?}");

        write(
            &dir.join("plugin.json"),
            r#"{"name": "guard", "version": "1.0.0"}"#,
        );
        let found = registrable(&w.env, "guard", &dir.join("../guard"), &mut |d| {
            warned.push(d.clone());
        })
        .expect("registrable");
        assert_eq!(found.dir, dir, "canonical");
        assert_eq!(found.package.version.as_deref(), Some("1.0.0"));
        assert!(warned.is_empty(), "{warned:?}");
    }

    #[test]
    fn full_manifest_is_read_with_every_field() {
        let w = world();
        let dir = w.root.join("pkgs/guard");
        write(
            &dir.join("plugin.json"),
            indoc! {r#"
                {
                  "id": "guard",
                  "name": "rm-guard",
                  "version": "1.2.0",
                  "description": "blocks rm -rf",
                  "hooks": {"PreToolUse": [{"command": "echo hi", "matcher": "Bash"}]},
                  "commands": {"audit": "./bin/audit", "report": "bin/report.sh"},
                  "validators": {"require-descriptions": "validators/desc"},
                  "formatters": {"html": "fmt/html"},
                  "webhooks": [{"event": "tool.after", "url": "http://127.0.0.1:9/h", "secret_env": "S"}]
                }
            "#},
        );
        let check = check_package(&w.env, &package_ref("guard", &dir));
        assert!(check.diagnostics.is_empty(), "{:?}", check.diagnostics);
        let package = check.package.expect("loaded");
        assert_eq!(package.id, "guard");
        assert_eq!(package.name, "rm-guard");
        assert_eq!(package.version.as_deref(), Some("1.2.0"));
        assert_eq!(package.description.as_deref(), Some("blocks rm -rf"));
        assert_eq!(package.manifest, dir.join("plugin.json"));
        let files = |files: &[PackageFile]| {
            files
                .iter()
                .map(|f| (f.name.clone(), f.path.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            files(&package.commands),
            [
                ("audit".to_owned(), dir.join("bin/audit")),
                ("report".to_owned(), dir.join("bin/report.sh"))
            ]
        );
        assert_eq!(
            files(&package.validators),
            [(
                "require-descriptions".to_owned(),
                dir.join("validators/desc")
            )]
        );
        assert_eq!(
            files(&package.formatters),
            [("html".to_owned(), dir.join("fmt/html"))]
        );
        assert_eq!(package.webhooks.len(), 1);
        assert_eq!(package.webhooks[0].event, "tool.after");
        assert_eq!(package.webhooks[0].url, "http://127.0.0.1:9/h");
        assert_eq!(package.webhooks[0].secret_env.as_deref(), Some("S"));

        let [hook, webhook] = check.hooks.as_slice() else {
            panic!("a hook and a webhook: {:?}", check.hooks);
        };
        assert_eq!(webhook.spec.name, "guard:webhook:0");
        assert_eq!(
            webhook.spec.events,
            [hookrig_core::EventName::resolve("tool.after")]
        );
        assert_eq!(webhook.spec.source.level, Level::Global);
        assert_eq!(webhook.spec.source.dialect, hookrig_core::Dialect::Native);
        assert_eq!(webhook.spec.source.path, dir.join("plugin.json"));
        assert_eq!(webhook.spec.untrusted, None);
        assert_eq!(webhook.spec.timeout, Some(Duration::from_secs(30)));
        assert_eq!(webhook.dialect(), hookrig_core::Dialect::Native);
        assert_eq!(
            webhook.command,
            CommandDef::Http {
                url: "http://127.0.0.1:9/h".to_owned(),
                headers: Vec::new(),
                secret_env: Some("S".to_owned()),
            }
        );
        assert_eq!(hook.spec.name, "guard:PreToolUse:0");
        assert_eq!(hook.spec.source.level, Level::Global);
        assert_eq!(hook.spec.source.dialect, hookrig_core::Dialect::Xcode);
        let Some(crate::XcodeProtocol(x)) = hook.protocol_as::<crate::XcodeProtocol>() else {
            panic!("x-code protocol");
        };
        assert_eq!(x.plugin_id, "guard");
        assert_eq!(x.plugin_dir, dir);
        assert_eq!(
            x.data_dir,
            w.env.data_home.join("hookrig/plugin-data/guard")
        );
    }

    #[test]
    fn commands_only_package_loads_without_hooks() {
        let w = world();
        let dir = w.root.join("tools");
        write(
            &dir.join(".x-code-plugin/plugin.json"),
            r#"{"name": "tools", "commands": {"todo": "todo.sh"}}"#,
        );
        let check = check_package(&w.env, &package_ref("tools", &dir));
        assert!(check.diagnostics.is_empty(), "{:?}", check.diagnostics);
        assert!(check.hooks.is_empty());
        let package = check.package.expect("loaded");
        assert_eq!(package.commands[0].path, dir.join("todo.sh"));
        assert_eq!(package.version, None);
    }

    #[test]
    fn every_invalid_field_is_an_error_at_its_position() {
        let w = world();
        let dir = w.root.join("bad");
        write(
            &dir.join("plugin.json"),
            indoc! {r#"
                {
                  "id": "other",
                  "name": "bad",
                  "version": 2,
                  "commands": {"up": "../escape", "-x": "x"},
                  "validators": ["v"],
                  "webhooks": [{"event": "tool.after"}, 3]
                }
            "#},
        );
        let check = check_package(&w.env, &package_ref("bad", &dir));
        assert!(check.package.is_none());
        assert!(check.hooks.is_empty());
        insta::assert_snapshot!(rendered(&check, &w.root));
    }

    #[test]
    fn missing_manifest_and_missing_directory_are_errors_naming_the_path() {
        let w = world();
        let empty = w.root.join("empty");
        std::fs::create_dir_all(&empty).expect("mkdir");
        let check = check_package(&w.env, &package_ref("p", &empty));
        assert!(check.package.is_none());
        let gone = check_package(&w.env, &package_ref("p", &w.root.join("gone")));
        insta::assert_snapshot!(format!(
            "{}\n{}",
            rendered(&check, &w.root),
            rendered(&gone, &w.root)
        ));
    }

    #[test]
    fn invalid_hooks_keep_the_whole_package_out() {
        let w = world();
        let dir = w.root.join("p");
        write(
            &dir.join("plugin.json"),
            r#"{"name": "p", "commands": {"a": "a"}, "hooks": {"PreToolUse": [{"timeout": 1}]}}"#,
        );
        let check = check_package(&w.env, &package_ref("p", &dir));
        assert!(check.package.is_none());
        assert!(check.hooks.is_empty());
        assert!(rendered(&check, &w.root).contains("hooks.PreToolUse[0].command: is required"));
    }

    #[test]
    fn packages_load_last_among_global_plugins_and_are_never_untrusted() {
        let w = world();
        // The package sits inside the project, yet the user registered it: global.
        let in_project = w.env.cwd.join("vendor/pkg");
        write(
            &in_project.join("plugin.json"),
            r#"{"name": "pkg", "hooks": {"PreToolUse": [{"command": "true"}]}}"#,
        );
        let global = w.env.data_home.join("hookrig/plugins/g");
        write(
            &global.join("plugin.json"),
            r#"{"name": "g", "hooks": {"PreToolUse": [{"command": "true"}]}}"#,
        );
        let options = LoadOptions {
            packages: vec![
                package_ref("pkg", &in_project),
                package_ref("again", &global),
            ],
            ..LoadOptions::default()
        };
        let config = crate::load(&w.env, &options).expect("loads");
        let names: Vec<_> = config
            .hooks
            .iter()
            .map(|h| {
                (
                    h.spec.name.as_str(),
                    h.spec.source.level,
                    h.spec.untrusted.is_some(),
                )
            })
            .collect();
        assert_eq!(
            names,
            [
                ("g@local:PreToolUse:0", Level::Global, false),
                ("pkg:PreToolUse:0", Level::Global, false),
            ]
        );
        assert_eq!(
            config
                .packages
                .iter()
                .map(|p| p.id.as_str())
                .collect::<Vec<_>>(),
            ["pkg"]
        );
        let warnings: Vec<_> = config.warnings.iter().map(ToString::to_string).collect();
        assert!(
            warnings.iter().any(|w| w.contains(
                "package again is the plugin g@local, already loaded from a plugins directory"
            )),
            "{warnings:?}"
        );
    }

    #[test]
    fn webhook_fields_become_the_hook() {
        let w = world();
        let dir = w.root.join("hooks-only");
        write(
            &dir.join("plugin.json"),
            indoc! {r#"
                {
                  "name": "notify",
                  "webhooks": [
                    {"event": "session.closed", "url": "https://example.com/a", "timeout": 1500,
                     "headers": {"Authorization": "Bearer x", "X-A": "1"}, "description": "audit"},
                    {"event": "task.completed", "url": "http://127.0.0.1:1/b", "secretEnv": "S"}
                  ]
                }
            "#},
        );
        let check = check_package(&w.env, &package_ref("notify", &dir));
        let hooks: Vec<_> = check
            .hooks
            .iter()
            .map(|h| {
                (
                    h.spec.name.as_str(),
                    h.spec.events[0].as_str(),
                    h.spec.timeout,
                    h.spec.description.as_deref(),
                    &h.command,
                )
            })
            .collect();
        assert_eq!(
            hooks,
            [
                (
                    "notify:webhook:0",
                    "session.end",
                    Some(Duration::from_millis(1500)),
                    Some("audit"),
                    &CommandDef::Http {
                        url: "https://example.com/a".to_owned(),
                        headers: vec![
                            ("Authorization".to_owned(), "Bearer x".to_owned()),
                            ("X-A".to_owned(), "1".to_owned())
                        ],
                        secret_env: None,
                    }
                ),
                (
                    "notify:webhook:1",
                    "task.completed",
                    Some(Duration::from_secs(30)),
                    None,
                    &CommandDef::Http {
                        url: "http://127.0.0.1:1/b".to_owned(),
                        headers: Vec::new(),
                        secret_env: None,
                    }
                ),
            ]
        );
        // A misspelt field is loaded without, but said.
        insta::assert_snapshot!(rendered(&check, &w.root), @"[ROOT]/hooks-only/plugin.json:6:77: warning: webhooks[1].secretEnv: unknown field, ignored (known: event, url, secret_env, headers, timeout, description)");
        assert!(check.package.is_some());
    }

    #[test]
    fn invalid_webhooks_keep_the_whole_package_out_with_positions() {
        let w = world();
        let dir = w.root.join("bad-hooks");
        write(
            &dir.join("plugin.json"),
            indoc! {r#"
                {
                  "name": "bad-hooks",
                  "hooks": {"PostToolUse": [{"command": "true"}]},
                  "commands": {"ok": "bin/ok"},
                  "webhooks": [
                    {"event": "tool.after", "url": "http://127.0.0.1:1/fine"},
                    {"event": "tool.before", "url": "http://127.0.0.1:1/hot"},
                    {"event": "PreToolUse", "url": "localhost:8080/x"},
                    {"event": "tool.after", "url": "http://h/", "secret_env": "A=B", "timeout": 0,
                     "headers": {"Content-Type": "text/plain", "bad name": "x", "X": 1}},
                    {"event": 3, "url": ""}
                  ]
                }
            "#},
        );
        let check = check_package(&w.env, &package_ref("bad-hooks", &dir));
        assert!(check.package.is_none());
        assert!(check.hooks.is_empty(), "{:?}", check.hooks);
        insta::assert_snapshot!(rendered(&check, &w.root));
    }

    #[test_case("bin/tool", true)]
    #[test_case("./bin/tool", true)]
    #[test_case("tool", true)]
    #[test_case("../tool", false)]
    #[test_case("bin/../../tool", false)]
    #[test_case("/usr/bin/tool", false)]
    #[test_case("", false)]
    #[test_case(".", false)]
    fn paths_inside_the_package(path: &str, ok: bool) {
        assert_eq!(inside(Path::new(path)), ok);
    }

    #[test_case("todo", true)]
    #[test_case("board-html", true)]
    #[test_case("v1.2_x", true)]
    #[test_case("-x", false)]
    #[test_case(".hidden", false)]
    #[test_case("a/b", false)]
    #[test_case("a b", false)]
    #[test_case("", false)]
    fn file_names(name: &str, ok: bool) {
        assert_eq!(valid_file_name(name), ok);
    }
}
