//! Loader for x-code plugin directories (`plugin.json` manifests with hooks).
//!
//! Where plugins are found, in load order:
//!
//! - global: `$XDG_DATA_HOME/hookrig/plugins/*/`, then the plugins x-code has installed:
//!   each record of `$X_CODE_HOME/plugins/installed_plugins.json`, from
//!   `cache/<marketplace>/<name>/<version>/` (the version x-code recorded), then every
//!   `--plugin-dir DIR` in the order given (the user named them, so they are global),
//!   then the registered packages;
//! - project: `.hookrig/plugins/*/`, then x-code's `.x-code/plugins/*/` (as `name@local`),
//!   each in the nearest directory of the project walk.
//!
//! x-code's plugins (installed or in `.x-code/plugins/`) that x-code's `enabledPlugins`
//! switches off are loaded disabled, as x-code loads them.
//!
//! Directory entries are read sorted by name, so the order (and with it the order of
//! decision hooks) is the same on every machine. One invalid hook entry rejects the
//! whole plugin's hooks with one error listing every bad path, as x-code does; other
//! plugins still load.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hookrig_core::{Dialect, HookSpec, Level, Matcher, Mode, OnError, Source};
use serde_json::Value;

use hookrig_config::{JsonKey, Lowering, consulted, json_key_offset};
use hookrig_exec::CommandDef;

use super::package::{self, PackageRef};
use super::state::{self as xcode_state, Enabled};
use crate::definition::HookDef;
use crate::loader::LoadContext;
use crate::xcode::XcodeProtocol;
use hookrig_core::{Diagnostic, Severity};

/// What an x-code hook needs at run time beyond its command.
///
/// The command is kept as its template: `${cwd}` is the event's working directory, known
/// only when the hook runs, so every variable is expanded (passed to the shell through
/// the environment) then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XcodeHook {
    /// `name@marketplace`, or `name@local`.
    pub plugin_id: String,
    /// The x-code event name the hook was declared under (`PreToolUse`, ...).
    pub event: String,
    /// `${pluginDir}`: the plugin's root directory.
    pub plugin_dir: PathBuf,
    /// `${pluginDataDir}`: the plugin's persistent data directory, created on first use.
    pub data_dir: PathBuf,
    /// `${homedir}`.
    pub home: PathBuf,
    /// The entry's matcher when it is not a valid regex (the hook then matches every
    /// tool, and each run logs `hooks.matcher-invalid`).
    pub invalid_matcher: Option<String>,
}

/// Where the hooks object of a manifest with inline hooks is.
const INLINE_HOOKS: &[JsonKey<'static>] = &[JsonKey::Key("hooks")];

/// Manifest locations inside a plugin, in lookup order.
const MANIFESTS: [&str; 3] = [
    ".x-code-plugin/plugin.json",
    ".claude-plugin/plugin.json",
    "plugin.json",
];

/// Default and largest timeout, in milliseconds.
const DEFAULT_TIMEOUT_MS: u64 = 5000;
const MAX_TIMEOUT_MS: u64 = 30_000;

/// The field that replaces `command` on this platform.
const OS_COMMAND: Option<&str> = if cfg!(target_os = "linux") {
    Some("commandLinux")
} else if cfg!(target_os = "macos") {
    Some("commandDarwin")
} else if cfg!(windows) {
    Some("commandWindows")
} else {
    None
};

const ENTRY_FIELDS: [&str; 8] = [
    "command",
    "commandWindows",
    "commandDarwin",
    "commandLinux",
    "matcher",
    "timeout",
    "description",
    "failurePolicy",
];

/// Where a plugin was found: decides its id's marketplace and where its data lives.
#[derive(Debug, Clone, Copy)]
enum Origin<'a> {
    /// hookrig's own plugin directories and `--plugin-dir`: `name@local`, data under
    /// `$XDG_DATA_HOME/hookrig/plugin-data/`.
    Hookrig,
    /// A project's `.x-code/plugins/`: `name@local`, data where x-code keeps it.
    XcodeProject,
    /// x-code's `cache/<marketplace>/`: `name@<marketplace>`, data where x-code keeps it.
    XcodeCache(&'a str),
    /// A registered plugin package (`hookrig plugins register ID`): its id is the
    /// registered id, its data lives with hookrig's own plugins' data.
    Package(&'a str),
}

/// Loads this dialect's sources of one level into `ctx`.
pub(crate) fn load(ctx: &mut LoadContext<'_>, level: Level) {
    if ctx.options.no_plugins {
        return;
    }
    let env = ctx.env;
    match level {
        Level::Global => {
            for dir in subdirs(&env.data_home.join("hookrig").join("plugins")) {
                load_plugin(ctx, &dir, level, Origin::Hookrig, false);
            }
            let enabled = Enabled::read(ctx, &env.xcode_home, None, true);
            load_installed(ctx, &env.xcode_home.join("plugins"), &enabled);
            for dir in &ctx.options.plugin_dirs {
                let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.clone());
                load_plugin(ctx, &dir, level, Origin::Hookrig, true);
            }
            for package in &ctx.options.packages {
                load_package(ctx, package);
            }
        }
        Level::Project => {
            if let Some(root) = ctx.project.nearest_dir(".hookrig/plugins") {
                for dir in subdirs(&root) {
                    // OpenHermit's `manifest.json` without an x-code manifest: a
                    // JavaScript plugin, trusted by a digest of its whole directory.
                    if !MANIFESTS.iter().any(|m| consulted::is_file(&dir.join(m)))
                        && consulted::is_file(&dir.join(crate::hermit::plugin::MANIFEST))
                    {
                        crate::hermit::plugin::load_project(ctx, &dir);
                        continue;
                    }
                    load_plugin(ctx, &dir, level, Origin::Hookrig, false);
                }
            }
            let settings = ctx.project.nearest_file(".x-code/settings.local.json");
            let root = ctx.project.nearest_dir(".x-code/plugins");
            if settings.is_none() && root.is_none() {
                return;
            }
            // The user's settings were reported by the global pass already.
            let enabled = Enabled::read(ctx, &env.xcode_home, settings, false);
            let global_ids: Vec<String> = ctx
                .hooks
                .iter()
                .filter(|def| def.spec.source.level == Level::Global)
                .filter_map(|def| def.protocol_as::<XcodeProtocol>())
                .map(|XcodeProtocol(x)| x.plugin_id.clone())
                .collect();
            enabled.report_ignored(ctx, &global_ids);
            for dir in root.as_deref().map(subdirs).unwrap_or_default() {
                let from = ctx.hooks.len();
                load_plugin(ctx, &dir, level, Origin::XcodeProject, false);
                disable_unless(ctx, from, |id| enabled.project(id));
            }
        }
    }
}

/// Loads the plugins x-code has installed, in the order of its record, each from the
/// version directory the record names (x-code runs that one; other versions left in
/// the cache are not run). Without a record x-code runs nothing from its cache.
fn load_installed(ctx: &mut LoadContext<'_>, plugins: &Path, enabled: &Enabled) {
    let cache = plugins.join("cache");
    let local = plugins.join("local");
    if !subdirs(&local).is_empty() {
        ctx.diagnostics.push(Diagnostic::file(
            &local,
            Severity::Warning,
            "x-code does not read this directory, so its plugins are not loaded; install them with x-code, or move them to hookrig's own plugins directory ($XDG_DATA_HOME/hookrig/plugins/)".to_owned(),
        ));
    }
    let Some(records) = xcode_state::installed(ctx, plugins) else {
        let cached: usize = subdirs(&cache).iter().map(|m| subdirs(m).len()).sum();
        if cached > 0 {
            ctx.diagnostics.push(Diagnostic::file(
                &cache,
                Severity::Warning,
                format!(
                    "no installed_plugins.json beside it: x-code runs none of the {cached} cached plugins, and neither does hookrig"
                ),
            ));
        }
        return;
    };
    let record_path = plugins.join("installed_plugins.json");
    for record in records {
        let dir = cache
            .join(&record.marketplace)
            .join(&record.name)
            .join(&record.version);
        if !consulted::is_dir(&dir) {
            ctx.diagnostics.push(Diagnostic::file(
                &record_path,
                Severity::Warning,
                format!(
                    "{}@{} {} is recorded as installed, but {} does not exist; it is not loaded",
                    record.name,
                    record.marketplace,
                    record.version,
                    dir.display()
                ),
            ));
            continue;
        }
        let from = ctx.hooks.len();
        load_plugin(
            ctx,
            &dir,
            Level::Global,
            Origin::XcodeCache(&record.marketplace),
            false,
        );
        disable_unless(ctx, from, |id| enabled.global(id));
    }
}

/// Disables the x-code hooks loaded since `from` whose plugin is not `enabled`: they
/// stay listed (`hookrig explain` shows them as disabled) but never run.
fn disable_unless(ctx: &mut LoadContext<'_>, from: usize, enabled: impl Fn(&str) -> bool) {
    for def in &mut ctx.hooks[from..] {
        if let Some(XcodeProtocol(x)) = def.protocol_as::<XcodeProtocol>()
            && !enabled(&x.plugin_id)
        {
            def.spec.enabled = false;
        }
    }
}

/// Whether the package `id` at `dir` is a plugin directory already loaded (reported).
///
/// A package that is also in a plugins directory would run every hook twice; the
/// always-loaded copy is already there, so the package copy is the one left out.
fn package_already_loaded(ctx: &mut LoadContext<'_>, id: &str, dir: &Path) -> bool {
    let Some(first) = ctx
        .hooks
        .iter()
        .find_map(|h| match h.protocol_as::<XcodeProtocol>() {
            Some(XcodeProtocol(x)) if same_dir(&x.plugin_dir, dir) => Some(x.plugin_id.clone()),
            _ => None,
        })
    else {
        return false;
    };
    ctx.diagnostics.push(Diagnostic::file(
        dir,
        Severity::Warning,
        format!(
            "package {id} is the plugin {first}, already loaded from a plugins directory; the package copy is skipped"
        ),
    ));
    true
}

/// Whether two paths name the same directory (after resolving symlinks, when both exist).
fn same_dir(a: &Path, b: &Path) -> bool {
    a == b
        || matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(a), Ok(b)) if a == b
        )
}

/// The subdirectories of `dir`, sorted by name; hidden ones (`.DS_Store`, `.git`) are
/// not plugins. A missing or unreadable directory has none.
fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = consulted::read_dir(dir) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .filter(|p| consulted::is_dir(p))
        .collect();
    dirs.sort();
    dirs
}

/// A JSON file read and parsed, kept with its text for positions.
pub(crate) struct JsonFile {
    pub(crate) path: PathBuf,
    pub(crate) text: String,
    pub(crate) value: Value,
}

impl JsonFile {
    /// The file's lowering, reporting to `sink`.
    pub(crate) fn lowering<'a>(&'a self, sink: &'a mut Vec<Diagnostic>) -> Lowering<'a> {
        Lowering::new(&self.path, &self.text, sink)
    }

    /// The byte offset of the value at `path` in the file.
    pub(crate) fn key_offset(&self, path: &[JsonKey<'_>]) -> Option<usize> {
        json_key_offset(&self.text, path)
    }
}

/// Reads and parses a JSON file; a parse error is reported at its line and column.
pub(crate) fn read_json(ctx: &mut LoadContext<'_>, path: &Path) -> Option<JsonFile> {
    let text = ctx.read(path)?;
    match serde_json::from_str(&text) {
        Ok(value) => Some(JsonFile {
            path: path.to_owned(),
            text,
            value,
        }),
        Err(err) => {
            let offset = hookrig_core::json_offset(&text, err.line(), err.column());
            Lowering::new(path, &text, &mut ctx.diagnostics).report(
                offset,
                Severity::Error,
                format!("invalid JSON: {err}; the plugin is not loaded"),
            );
            None
        }
    }
}

/// Loads a registered plugin package: global (the user registered it), its hooks in
/// x-code's protocol (its manifest is an x-code manifest), its other fields into
/// `ctx.packages`. A package with any invalid part is not loaded at all, and reported as
/// an error: the user named it, as with `--plugin-dir`.
pub(crate) fn load_package(ctx: &mut LoadContext<'_>, package: &PackageRef) {
    let dir = std::path::absolute(&package.path).unwrap_or_else(|_| package.path.clone());
    // A directory with OpenHermit's `manifest.json` and no x-code manifest is a
    // JavaScript plugin.
    if !MANIFESTS.iter().any(|m| consulted::is_file(&dir.join(m)))
        && consulted::is_file(&dir.join(crate::hermit::plugin::MANIFEST))
    {
        crate::hermit::plugin::load(ctx, &package.id, &dir);
        return;
    }
    load_plugin(ctx, &dir, Level::Global, Origin::Package(&package.id), true);
}

fn load_plugin(
    ctx: &mut LoadContext<'_>,
    dir: &Path,
    level: Level,
    origin: Origin<'_>,
    named_by_user: bool,
) {
    let Some((manifest, name)) = read_manifest(ctx, dir, named_by_user) else {
        return;
    };
    let plugin_id = match origin {
        Origin::XcodeCache(market) => format!("{name}@{market}"),
        Origin::Hookrig | Origin::XcodeProject => format!("{name}@local"),
        Origin::Package(id) => id.to_owned(),
    };
    if let Origin::Package(id) = origin
        && package_already_loaded(ctx, id, dir)
    {
        return;
    }
    let package = match origin {
        Origin::Package(id) => match package::read(ctx, &manifest, id, &name, dir) {
            Some(package) => Some(package),
            None => return,
        },
        _ => None,
    };
    if let Some(first) = ctx
        .hooks
        .iter()
        .find_map(|h| match h.protocol_as::<XcodeProtocol>() {
            Some(XcodeProtocol(x)) if x.plugin_id == plugin_id => Some(x.plugin_dir.clone()),
            _ => None,
        })
    {
        ctx.diagnostics.push(Diagnostic::file(
            dir,
            Severity::Warning,
            format!(
                "plugin {plugin_id} is already loaded from {}; this copy is skipped",
                first.display()
            ),
        ));
        return;
    }
    let manifest_path = manifest.path.clone();
    let reported = ctx.diagnostics.len();
    let Some(hooks_file) = read_hooks_file(ctx, dir, manifest) else {
        // No hooks at all is fine for a package (it may ship commands only); broken
        // hooks were reported and keep the package out.
        let broken = ctx.diagnostics[reported..]
            .iter()
            .any(|d| d.severity == Severity::Error);
        if !broken && let Some(package) = package {
            package::push(ctx, package);
        }
        return;
    };
    let inline = hooks_file.path == manifest_path;
    let prefix = if inline { INLINE_HOOKS } else { &[] };
    let hooks_value = if inline {
        hooks_file.value.get("hooks").unwrap_or(&Value::Null)
    } else {
        &hooks_file.value
    };

    let data_dir = match origin {
        Origin::Hookrig | Origin::Package(_) => {
            ctx.env.data_home.join("hookrig").join("plugin-data")
        }
        Origin::XcodeProject | Origin::XcodeCache(_) => {
            ctx.env.xcode_home.join("plugins").join("data")
        }
    }
    .join(&plugin_id);
    let plugin = Plugin {
        id: &plugin_id,
        dir,
        data_dir: &data_dir,
        level,
        file: &hooks_file,
        prefix,
    };
    match plugin.hooks(hooks_value, ctx) {
        Ok(defs) => {
            ctx.hooks.extend(defs);
            if let Some(package) = package {
                package::push(ctx, package);
            }
        }
        Err(problems) => {
            let first = problems.first().and_then(|p| p.offset);
            let list = problems
                .iter()
                .map(|p| format!("{}: {}", p.path, p.message))
                .collect::<Vec<_>>()
                .join("; ");
            hooks_file.lowering(&mut ctx.diagnostics).report(
                first,
                Severity::Error,
                format!(
                    "invalid hook config of plugin {plugin_id}, its hooks are not loaded: {list}"
                ),
            );
        }
    }
}

/// The plugin's manifest and its valid name, or `None` (reported) when there is none.
fn read_manifest(
    ctx: &mut LoadContext<'_>,
    dir: &Path,
    named_by_user: bool,
) -> Option<(JsonFile, String)> {
    let Some(manifest_path) = MANIFESTS
        .iter()
        .map(|m| dir.join(m))
        .find(|p| consulted::is_file(p))
    else {
        // A directory the user named on the command line must be a plugin; anything
        // else in a plugins directory without a manifest is someone else's business.
        let severity = if named_by_user {
            Severity::Error
        } else {
            Severity::Warning
        };
        let what = if consulted::is_dir(dir) {
            "no plugin manifest (.x-code-plugin/plugin.json, .claude-plugin/plugin.json or plugin.json)"
        } else {
            "no such plugin directory"
        };
        ctx.diagnostics
            .push(Diagnostic::file(dir, severity, format!("{what}; skipped")));
        return None;
    };
    let manifest = read_json(ctx, &manifest_path)?;
    let Some(object) = manifest.value.as_object() else {
        manifest.lowering(&mut ctx.diagnostics).report(
            Some(0),
            Severity::Error,
            "the manifest must be a JSON object; the plugin is not loaded".to_owned(),
        );
        return None;
    };
    let name = match object.get("name") {
        Some(Value::String(name)) if valid_name(name) => name.clone(),
        other => {
            let shown = other.map_or_else(|| "missing".to_owned(), ToString::to_string);
            manifest.lowering(&mut ctx.diagnostics).report(
                manifest.key_offset(&[JsonKey::Key("name")]).or(Some(0)),
                Severity::Error,
                format!(
                    "plugin name {shown} must match ^[a-z0-9][a-z0-9-]*$; the plugin is not loaded"
                ),
            );
            return None;
        }
    };
    Some((manifest, name))
}

/// The file holding the plugin's hooks: the manifest itself (inline `hooks`), the file
/// `hooks` names, or `hooks/hooks.json`; `None` when there is none or it is broken.
fn read_hooks_file(ctx: &mut LoadContext<'_>, dir: &Path, manifest: JsonFile) -> Option<JsonFile> {
    let object = manifest.value.as_object()?;
    // The hooks: inline, a file named by `hooks`, or `hooks/hooks.json`.
    let hooks_at = match object.get("hooks") {
        Some(Value::Object(_)) => HooksAt::Inline,
        Some(Value::String(relative)) => HooksAt::File(
            // `./hooks/hooks.json` as x-code manifests write it: keep paths free of `.` parts.
            Path::new(relative)
                .components()
                .filter(|c| *c != std::path::Component::CurDir)
                .fold(dir.to_owned(), |path, c| path.join(c)),
        ),
        Some(_) => HooksAt::Invalid,
        None => HooksAt::Default,
    };
    let hooks_file = match hooks_at {
        HooksAt::Inline => manifest,
        HooksAt::File(path) => {
            if !consulted::is_file(&path) {
                manifest.lowering(&mut ctx.diagnostics).report(
                    manifest.key_offset(&[JsonKey::Key("hooks")]),
                    Severity::Error,
                    format!(
                        "hooks file {} not found; the plugin's hooks are not loaded",
                        path.display()
                    ),
                );
                return None;
            }
            read_json(ctx, &path)?
        }
        HooksAt::Invalid => {
            manifest
            .lowering(&mut ctx.diagnostics)
            .report(
                manifest.key_offset(&[JsonKey::Key("hooks")]),
                Severity::Error,
                "hooks must be an object or the path of a hooks file; the plugin's hooks are not loaded"
                    .to_owned(),
            );
            return None;
        }
        HooksAt::Default => {
            let path = dir.join("hooks").join("hooks.json");
            if !consulted::is_file(&path) {
                return None;
            }
            read_json(ctx, &path)?
        }
    };
    Some(hooks_file)
}

/// Where a plugin's hook config is.
enum HooksAt {
    Inline,
    File(PathBuf),
    Invalid,
    Default,
}

/// x-code's plugin name rule: `^[a-z0-9][a-z0-9-]*$`.
pub(crate) fn valid_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// One hook entry's checked fields, its command already chosen for this platform.
struct Entry {
    line: String,
    matcher: Option<String>,
    description: Option<String>,
    timeout_ms: u64,
    on_error: OnError,
}

/// One bad value of a hook config.
struct Problem {
    /// `hooks.PreToolUse[0].timeout`.
    path: String,
    message: String,
    offset: Option<usize>,
}

/// A plugin whose hook config is being lowered.
struct Plugin<'a> {
    id: &'a str,
    dir: &'a Path,
    data_dir: &'a Path,
    level: Level,
    file: &'a JsonFile,
    /// Where the hooks object sits in `file`: under `hooks` in a manifest, at the top of a
    /// hooks file. Error paths always start with `hooks`, as x-code names them.
    prefix: &'a [JsonKey<'a>],
}

impl Plugin<'_> {
    /// Every hook of the config, or every problem with it.
    fn hooks(
        &self,
        value: &Value,
        ctx: &mut LoadContext<'_>,
    ) -> Result<Vec<HookDef>, Vec<Problem>> {
        let mut problems = Vec::new();
        let mut defs = Vec::new();
        let Some(events) = value.as_object() else {
            problems.push(self.problem(
                &[],
                "hooks",
                "must be an object mapping event names to arrays of hook entries",
            ));
            return Err(problems);
        };
        for (event, entries) in events {
            let event_path = format!("hooks.{event}");
            if !super::events::is_event(event) {
                self.file.lowering(&mut ctx.diagnostics).report(
                    self.offset(&[JsonKey::Key(event)]),
                    Severity::Warning,
                    format!(
                        "unknown x-code event {event:?} ignored (events: {})",
                        super::events::names().collect::<Vec<_>>().join(", ")
                    ),
                );
                continue;
            }
            let Some(entries) = entries.as_array() else {
                problems.push(self.problem(
                    &[JsonKey::Key(event)],
                    &event_path,
                    "must be an array of hook entries",
                ));
                continue;
            };
            for (index, entry) in entries.iter().enumerate() {
                let segs = [JsonKey::Key(event), JsonKey::Index(index)];
                let entry_path = format!("{event_path}[{index}]");
                match self.entry(event, index, entry, &segs, &entry_path, ctx) {
                    Ok(def) => defs.push(def),
                    Err(mut more) => problems.append(&mut more),
                }
            }
        }
        if problems.is_empty() {
            Ok(defs)
        } else {
            Err(problems)
        }
    }

    /// The fields of one entry, checked.
    fn fields(
        &self,
        entry: &Value,
        segs: &[JsonKey<'_>],
        path: &str,
        ctx: &mut LoadContext<'_>,
    ) -> Result<Entry, Vec<Problem>> {
        let Some(fields) = entry.as_object() else {
            return Err(vec![self.problem(segs, path, "must be an object")]);
        };
        let mut problems = Vec::new();
        let field = |name: &'static str| {
            let mut segs = segs.to_vec();
            segs.push(JsonKey::Key(name));
            (segs, format!("{path}.{name}"))
        };
        let string = |name: &'static str, non_empty: bool, problems: &mut Vec<Problem>| {
            let value = fields.get(name)?;
            match value.as_str() {
                Some(s) if !non_empty || !s.trim().is_empty() => Some(s.to_owned()),
                _ => {
                    let (segs, path) = field(name);
                    let what = if non_empty {
                        "must be a non-empty string"
                    } else {
                        "must be a string"
                    };
                    problems.push(self.problem(&segs, &path, what));
                    None
                }
            }
        };
        let command = string("command", true, &mut problems);
        if !fields.contains_key("command") {
            let (segs, path) = field("command");
            let mut problem = self.problem(&segs, &path, "is required");
            problem.offset = self.offset(segs.get(..segs.len() - 1).unwrap_or(&[]));
            problems.push(problem);
        }
        let mut os_commands = Vec::new();
        for name in ["commandWindows", "commandDarwin", "commandLinux"] {
            os_commands.push((name, string(name, true, &mut problems)));
        }
        let matcher = string("matcher", false, &mut problems);
        let description = string("description", false, &mut problems);
        let timeout_ms = match fields.get("timeout") {
            None => Some(DEFAULT_TIMEOUT_MS),
            Some(value) => match value.as_u64() {
                Some(ms) if (1..=MAX_TIMEOUT_MS).contains(&ms) => Some(ms),
                _ => {
                    let (segs, path) = field("timeout");
                    problems.push(self.problem(
                        &segs,
                        &path,
                        "must be a positive integer of milliseconds, at most 30000",
                    ));
                    None
                }
            },
        };
        let on_error = match fields.get("failurePolicy") {
            None => Some(OnError::Allow),
            Some(value) => match value.as_str() {
                Some("allow") => Some(OnError::Allow),
                Some("block") => Some(OnError::Deny),
                _ => {
                    let (segs, path) = field("failurePolicy");
                    problems.push(self.problem(&segs, &path, "must be \"allow\" or \"block\""));
                    None
                }
            },
        };
        for key in fields.keys() {
            if !ENTRY_FIELDS.contains(&key.as_str()) {
                let mut key_segs = segs.to_vec();
                key_segs.push(JsonKey::Key(key));
                self.file.lowering(&mut ctx.diagnostics).report(
                    self.offset(&key_segs),
                    Severity::Warning,
                    format!("{path}.{key}: unknown field ignored"),
                );
            }
        }
        let (Some(command), Some(timeout_ms), Some(on_error), true) =
            (command, timeout_ms, on_error, problems.is_empty())
        else {
            return Err(problems);
        };
        let line = OS_COMMAND
            .and_then(|key| os_commands.into_iter().find(|(name, _)| *name == key))
            .and_then(|(_, command)| command)
            .unwrap_or(command);
        Ok(Entry {
            line,
            matcher,
            description,
            timeout_ms,
            on_error,
        })
    }

    fn entry(
        &self,
        event: &str,
        index: usize,
        entry: &Value,
        segs: &[JsonKey<'_>],
        path: &str,
        ctx: &mut LoadContext<'_>,
    ) -> Result<HookDef, Vec<Problem>> {
        let Entry {
            line,
            matcher,
            description,
            timeout_ms,
            on_error,
        } = self.fields(entry, segs, path, ctx)?;
        let tool_event = matches!(event, "PreToolUse" | "PostToolUse");
        let mut invalid_matcher = None;
        let matcher = match matcher.as_deref() {
            Some(pattern) if tool_event => Matcher::regex(pattern).unwrap_or_else(|err| {
                // x-code runs a hook whose matcher does not compile for every tool (and
                // logs it): failing open keeps a typo from silently disabling a guard.
                let mut segs = segs.to_vec();
                segs.push(JsonKey::Key("matcher"));
                self.file.lowering(&mut ctx.diagnostics).report(
                    self.offset(&segs),
                    Severity::Warning,
                    format!(
                        "hooks.matcher-invalid: {path}.matcher: {err}; the hook runs for every tool"
                    ),
                );
                invalid_matcher = Some(pattern.to_owned());
                Matcher::Any
            }),
            _ => Matcher::Any,
        };
        // A deny on PostToolUse is ignored by x-code (the tool already ran), and so is the
        // deny a blocking failure policy would turn a failure into.
        let on_error = if event == "PostToolUse" {
            OnError::Allow
        } else {
            on_error
        };
        Ok(HookDef {
            spec: HookSpec {
                name: format!("{}:{event}:{index}", self.id),
                events: vec![crate::events::resolve(event)],
                matcher,
                priority: HookSpec::DEFAULT_PRIORITY,
                mode: Mode::Sync,
                enabled: true,
                on_error,
                source: Source {
                    path: self.file.path.clone(),
                    dialect: Dialect::Xcode,
                    level: self.level,
                },
                description,
                timeout: Some(Duration::from_millis(timeout_ms)),
                group: None,
                matcher_field: None,
                untrusted: None,
                shadow: false,
                side_effects: true,
            },
            command: CommandDef::Shell { line, script: None },
            env: Vec::new(),
            protocol: Arc::new(XcodeProtocol(XcodeHook {
                plugin_id: self.id.to_owned(),
                event: event.to_owned(),
                plugin_dir: self.dir.to_owned(),
                data_dir: self.data_dir.to_owned(),
                home: ctx.env.home.clone(),
                invalid_matcher,
            })),
            // The entry's object in its event's array.
            declared_at: self.offset(segs),
            workers: None,
        })
    }

    fn offset(&self, segs: &[JsonKey<'_>]) -> Option<usize> {
        let mut full = self.prefix.to_vec();
        full.extend_from_slice(segs);
        self.file.key_offset(&full)
    }

    fn problem(&self, segs: &[JsonKey<'_>], path: &str, message: &str) -> Problem {
        Problem {
            path: path.to_owned(),
            message: message.to_owned(),
            offset: self.offset(segs),
        }
    }
}

#[cfg(test)]
mod tests {
    use test_case::test_case;

    use super::*;

    #[test_case("linear", true)]
    #[test_case("ts-lint-gate", true)]
    #[test_case("0day", true)]
    #[test_case("-x", false)]
    #[test_case("Linear", false)]
    #[test_case("a_b", false)]
    #[test_case("", false)]
    fn names(name: &str, valid: bool) {
        assert_eq!(valid_name(name), valid);
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    #[test]
    #[expect(
        clippy::too_many_lines,
        reason = "one fixture with a plugin in every location"
    )]
    fn levels_timeouts_and_policies() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path();
        let home = root.join("home");
        let project = root.join("project");
        std::fs::create_dir_all(project.join(".git")).expect("mkdir");
        let manifest = |name: &str| {
            format!(
                r#"{{"name": "{name}", "hooks": {{"PreToolUse": [{{"command": "a"}}],
                   "PostToolUse": [{{"command": "b", "timeout": 30000, "failurePolicy": "block"}}],
                   "SessionStart": [{{"command": "c", "failurePolicy": "block", "matcher": "x"}}]}}}}"#
            )
        };
        let data_home = home.join(".local/share");
        let xcode_home = home.join(".x-code");
        write(
            &data_home.join("hookrig/plugins/g/plugin.json"),
            &manifest("g"),
        );
        write(
            &xcode_home.join("plugins/cache/market/l/1.0.0/plugin.json"),
            &manifest("l"),
        );
        write(
            &xcode_home.join("plugins/installed_plugins.json"),
            r#"{"schemaVersion": "1", "plugins": [{"id": "l@market", "name": "l", "marketplace": "market", "version": "1.0.0"}]}"#,
        );
        write(&root.join("dev/plugin.json"), &manifest("dev"));
        write(
            &project.join(".hookrig/plugins/p/plugin.json"),
            &manifest("p"),
        );
        let env = hookrig_config::Environment {
            config_home: home.join(".config"),
            state_home: home.join(".local/state"),
            data_home: data_home.clone(),
            xcode_home: xcode_home.clone(),
            home: home.clone(),
            cwd: project.clone(),
            trust_all: true,
        };
        let options = crate::LoadOptions {
            plugin_dirs: vec![root.join("dev")],
            ..crate::LoadOptions::default()
        };
        let config = crate::load(&env, &options).expect("loads");
        assert!(config.warnings.is_empty(), "{:?}", config.warnings);
        let summary: Vec<_> = config
            .hooks
            .iter()
            .map(|h| {
                (
                    h.spec.name.as_str(),
                    h.spec.source.level,
                    h.spec.timeout.map(|t| t.as_millis()),
                    h.spec.on_error,
                    h.spec.events[0].as_str(),
                )
            })
            .collect();
        let mut expected = Vec::new();
        for (id, level) in [
            ("g@local", Level::Global),
            ("l@market", Level::Global),
            ("dev@local", Level::Global),
            ("p@local", Level::Project),
        ] {
            expected.push((
                format!("{id}:PreToolUse:0"),
                level,
                Some(5000),
                OnError::Allow,
                "tool.before",
            ));
            // A deny on PostToolUse is ignored, so `block` cannot deny there either.
            expected.push((
                format!("{id}:PostToolUse:0"),
                level,
                Some(30000),
                OnError::Allow,
                "tool.after",
            ));
            expected.push((
                format!("{id}:SessionStart:0"),
                level,
                Some(5000),
                OnError::Deny,
                "session.start",
            ));
        }
        let expected: Vec<_> = expected
            .iter()
            .map(|(n, l, t, o, e)| (n.as_str(), *l, *t, *o, *e))
            .collect();
        assert_eq!(summary, expected);
        let session_start = &config.hooks[2];
        assert!(
            matches!(session_start.spec.matcher, Matcher::Any),
            "matcher ignored off tool events"
        );
        let Some(XcodeProtocol(def)) = config.hooks[3].protocol_as::<XcodeProtocol>() else {
            panic!("an x-code hook");
        };
        assert_eq!(def.data_dir, xcode_home.join("plugins/data/l@market"));
        assert_eq!(
            def.plugin_dir,
            xcode_home.join("plugins/cache/market/l/1.0.0")
        );
        assert_eq!(def.home, home);
        let Some(XcodeProtocol(def)) = config.hooks[0].protocol_as::<XcodeProtocol>() else {
            panic!("an x-code hook");
        };
        assert_eq!(def.data_dir, data_home.join("hookrig/plugin-data/g@local"));
    }

    #[test]
    fn offsets_from_serde_positions() {
        let text = "{\n  \"a\": nope\n}";
        let err = serde_json::from_str::<Value>(text).expect_err("invalid");
        let offset = hookrig_core::json_offset(text, err.line(), err.column()).expect("placed");
        assert_eq!(
            hookrig_core::line_col(text, offset),
            (err.line(), err.column())
        );
    }
}
