//! Loader for Codex CLI's hooks. The source of each rule is in docs/dialects/codex.md.
//!
//! Layers: the system's `/etc/codex` (moved by `HOOKRIG_CODEX_SYSTEM_DIR`), the user's
//! `$CODEX_HOME` (default `~/.codex`), then the project's `.codex/`
//! folders from the project root down to the working directory (the working directory
//! alone outside a repository). In each, `hooks.json` and the `[hooks]` tables of
//! `config.toml` both load, in that order, with a warning when both hold hooks; each is
//! followed by its sidecar (`hooks.hookrig.json`, `config.hookrig.toml`), which holds the
//! hooks `hookrig install` moved out of it. A file
//! Codex cannot parse is skipped whole, with the error placed; a matcher that is not a
//! valid regex skips its group; empty commands and `prompt` / `agent` handlers are
//! skipped alone. `[features] hooks = false` (or the older `codex_hooks = false`) in the
//! user's `config.toml` turns every Codex hook off.
//!
//! The administrator's `requirements.toml` in the system folder adds managed hooks (its
//! `[hooks]` tables), loaded first; with `allow_managed_hooks_only = true` there, only
//! managed hooks load: those and the system layer's, never the user's or a project's.
//! Managed hooks ignore `[hooks.state]`: the user cannot turn them off.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hookrig_config::{JsonKey, Lowering, consulted, did_you_mean};
use hookrig_core::{
    Diagnostic, Dialect, HookSpec, Level, Matcher, Mode, OnError, Severity, Source,
};
use hookrig_exec::CommandDef;
use serde::Deserialize;
use serde_json::value::RawValue;
use toml::Spanned;

use super::events::{self, CodexEvent};
use super::protocol::CodexProtocol;
use crate::definition::HookDef;
use crate::loader::LoadContext;

/// The dialect name of Codex's hook files.
pub(crate) const DIALECT: Dialect = Dialect::Codex;

/// The variable that moves Codex's home directory.
pub const CODEX_HOME_ENV: &str = "CODEX_HOME";

/// The variable that moves Codex's system layer, `/etc/codex` (tests, systems that keep
/// it elsewhere).
pub(crate) const SYSTEM_DIR_ENV: &str = "HOOKRIG_CODEX_SYSTEM_DIR";

/// Codex's system layer on Unix: its `config.toml` and `hooks.json`.
const DEFAULT_SYSTEM_DIR: &str = "/etc/codex";

/// The administrator's requirements in the system folder: managed hooks and
/// `allow_managed_hooks_only`.
const REQUIREMENTS: &str = "requirements.toml";

/// Codex's default timeout of a hook, in seconds.
pub(crate) const DEFAULT_TIMEOUT_SECS: u64 = 600;

/// The parallel group of Codex hooks: Codex starts every matching hook of an event at
/// once, so one hook cannot keep another from running.
pub(crate) const GROUP: &str = "codex";

/// What a Codex hook needs at run time beyond its command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodexHook {
    /// The Codex event name the hook was declared under (`PreToolUse`, ...): its
    /// `hook_event_name`.
    pub event: String,
}

/// Codex's home: `$CODEX_HOME` when it is an absolute path, else `~/.codex`
/// ([`hookrig_config::absolute_var`] says why a relative one is not used).
pub fn codex_home(home: &Path) -> PathBuf {
    hookrig_config::absolute_var(std::env::var_os(CODEX_HOME_ENV))
        .unwrap_or_else(|| home.join(".codex"))
}

/// Codex's system layer: `$HOOKRIG_CODEX_SYSTEM_DIR`, else `/etc/codex`.
pub(crate) fn system_dir() -> PathBuf {
    hookrig_config::absolute_var(std::env::var_os(SYSTEM_DIR_ENV))
        .unwrap_or_else(|| PathBuf::from(DEFAULT_SYSTEM_DIR))
}

/// One config layer of Codex: its level in hookrig and the labels of its two files in
/// hook names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Layer {
    level: Level,
    json: &'static str,
    toml: &'static str,
}

impl Layer {
    const SYSTEM: Layer = Layer {
        level: Level::Global,
        json: "system",
        toml: "system-toml",
    };
    /// The managed hooks of `requirements.toml`.
    const MANAGED: Layer = Layer {
        level: Level::Global,
        json: "managed",
        toml: "managed",
    };
    const USER: Layer = Layer {
        level: Level::Global,
        json: "user",
        toml: "user-toml",
    };
    const PROJECT: Layer = Layer {
        level: Level::Project,
        json: "project",
        toml: "project-toml",
    };
    /// The hooks file of an installed plugin; its hooks are renamed and their level
    /// set by the plugin loader.
    pub(super) const PLUGIN: Layer = Layer {
        level: Level::Global,
        json: "plugin",
        toml: "plugin",
    };
}

/// One file of hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    /// `hooks.json`.
    Json,
    /// The `[hooks]` tables of `config.toml`.
    Toml,
    /// The `[hooks]` tables of `requirements.toml`, beside its `managed_dir`.
    Requirements,
}

/// Loads this dialect's sources of one level into `ctx`.
pub(crate) fn load(ctx: &mut LoadContext<'_>, level: Level) {
    let home = codex_home(&ctx.env.home);
    match level {
        Level::Global => {
            if hooks_disabled(&home) {
                // Still read, so that a broken file is reported and its change seen.
                let _ = ctx.read(&home.join("config.toml"));
                return;
            }
            let disabled = disabled_hooks(&home);
            load_managed(ctx);
            load_system_layer(ctx);
            if !managed_hooks_only() {
                load_layer(ctx, &home, Layer::USER, &disabled);
            }
        }
        Level::Project => {
            if hooks_disabled(&home) || managed_hooks_only() {
                return;
            }
            let disabled = disabled_hooks(&home);
            for dir in project_layers(ctx.project, &ctx.env.cwd) {
                let folder = dir.join(".codex");
                if folder == home || !consulted::is_dir(&folder) {
                    continue;
                }
                load_layer(ctx, &folder, Layer::PROJECT, &disabled);
            }
            // Codex adds plugins' hooks after every config layer's.
            if !plugins_disabled(&home) && !ctx.options.answering(hookrig_core::Dialect::Codex) {
                let folders: Vec<PathBuf> = project_layers(ctx.project, &ctx.env.cwd)
                    .into_iter()
                    .map(|dir| dir.join(".codex"))
                    .filter(|folder| *folder != home)
                    .collect();
                super::plugins::load(ctx, &home, &folders, &disabled);
            }
        }
    }
}

/// Whether the user's `config.toml` turns plugins off (`[features] plugins = false`).
fn plugins_disabled(home: &Path) -> bool {
    let Ok(text) = hookrig_config::read_source(&home.join("config.toml")) else {
        return false;
    };
    toml::from_str::<RawFeaturesOnly>(&text)
        .is_ok_and(|raw| raw.features.is_some_and(|f| f.plugins == Some(false)))
}

/// The directories whose `.codex/` is a project layer, the lowest precedence first: from
/// the project root down to the working directory, or the working directory alone
/// outside a repository.
fn project_layers(project: &hookrig_config::Project, cwd: &Path) -> Vec<PathBuf> {
    if project.root.is_none() {
        return vec![cwd.to_owned()];
    }
    project.walk.iter().rev().cloned().collect()
}

/// Whether the user's `config.toml` turns hooks off (`[features] hooks = false`, or the
/// older `codex_hooks = false`). A file that cannot be read or parsed turns nothing off;
/// its error is reported where its hooks are read.
fn hooks_disabled(home: &Path) -> bool {
    let Ok(text) = hookrig_config::read_source(&home.join("config.toml")) else {
        return false;
    };
    toml::from_str::<RawFeaturesOnly>(&text).is_ok_and(|raw| {
        raw.features
            .is_some_and(|f| f.hooks.or(f.codex_hooks) == Some(false))
    })
}

/// The hooks the user turned off in Codex (`/hooks`): the keys of `[hooks.state]` in the
/// user's `config.toml` whose `enabled` is `false`. A key is `PATH:EVENT:GROUP:HANDLER`
/// (the file, the event's `snake_case` name, and the 0-based indexes of the group and of
/// the handler in it). Only the user's file counts, as in Codex: a project cannot turn
/// the user's hooks on or off. Entries Codex cannot read are skipped, as Codex skips them.
pub(crate) fn disabled_hooks(home: &Path) -> HashSet<String> {
    let Ok(text) = hookrig_config::read_source(&home.join("config.toml")) else {
        return HashSet::new();
    };
    let Ok(RawStateOnly {
        hooks: Some(RawStateHooks { state }),
    }) = toml::from_str(&text)
    else {
        return HashSet::new();
    };
    state
        .into_iter()
        .filter(|(_, value)| value.get("enabled").and_then(toml::Value::as_bool) == Some(false))
        .map(|(key, _)| key.trim().to_owned())
        .filter(|key| !key.is_empty())
        .collect()
}

/// Whether the administrator's `requirements.toml` sets `allow_managed_hooks_only`. A
/// file that cannot be read or parsed sets nothing; its error is reported where its
/// hooks are read.
fn managed_hooks_only() -> bool {
    let Ok(text) = hookrig_config::read_source(&system_dir().join(REQUIREMENTS)) else {
        return false;
    };
    toml::from_str::<RawRequirementsOnly>(&text)
        .is_ok_and(|raw| raw.allow_managed_hooks_only == Some(true))
}

/// The managed hooks of the administrator's `requirements.toml`, before every layer's
/// (Codex adds them first). They are the administrator's: global, and never turned off
/// by the user's `[hooks.state]`.
fn load_managed(ctx: &mut LoadContext<'_>) {
    let path = system_dir().join(REQUIREMENTS);
    let Some(text) = ctx.read(&path) else {
        return;
    };
    let none = HashSet::new();
    match parse(
        &path,
        &text,
        Format::Requirements,
        Layer::MANAGED,
        &none,
        &mut ctx.diagnostics,
    ) {
        Ok(hooks) => ctx.hooks.extend(hooks),
        Err(diagnostic) => ctx.diagnostics.push(diagnostic),
    }
}

/// Loads one config folder: `hooks.json`, then `config.toml`'s `[hooks]`.
/// The system layer (`/etc/codex`), the lowest precedence of Codex's config layers, so
/// loaded before the user's: its `hooks.json` and `config.toml` as in any layer. It is
/// the machine administrator's, a global source, and managed: the user's `[hooks.state]`
/// does not turn its hooks off. A folder that is not there adds nothing.
fn load_system_layer(ctx: &mut LoadContext<'_>) {
    let folder = system_dir();
    if consulted::is_dir(&folder) {
        load_layer(ctx, &folder, Layer::SYSTEM, &HashSet::new());
    }
}

fn load_layer(ctx: &mut LoadContext<'_>, folder: &Path, layer: Layer, disabled: &HashSet<String>) {
    let mut loaded: Vec<(PathBuf, Vec<HookDef>)> = Vec::new();
    // The sidecars hold the hooks `hookrig install` moved out of the file before them,
    // read as part of that file.
    for (name, format) in [
        ("hooks.json", Format::Json),
        ("hooks.hookrig.json", Format::Json),
        ("config.toml", Format::Toml),
        ("config.hookrig.toml", Format::Toml),
    ] {
        let path = folder.join(name);
        let Some(text) = ctx.read(&path) else {
            continue;
        };
        match parse(&path, &text, format, layer, disabled, &mut ctx.diagnostics) {
            Ok(hooks) if !hooks.is_empty() => loaded.push((path, hooks)),
            Ok(_) => {}
            Err(diagnostic) => ctx.diagnostics.push(diagnostic),
        }
    }
    if let [(json, _), (toml, _)] = loaded.as_slice() {
        ctx.diagnostics.push(Diagnostic::file(
            toml,
            Severity::Warning,
            format!(
                "loading hooks from both {} and {}; prefer a single representation for this layer",
                json.display(),
                toml.display()
            ),
        ));
    }
    for (_, hooks) in loaded {
        ctx.hooks.extend(hooks);
    }
}

// Raw layer. The hooks of both formats have one shape; a TOML handler keeps its span,
// a JSON handler's place is found from its key path.

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHooksFile<'a> {
    #[serde(borrow, default)]
    hooks: Option<&'a RawValue>,
}

#[derive(Debug, Deserialize)]
struct RawConfigToml {
    #[serde(default)]
    hooks: Option<RawEventsToml>,
}

/// The `[hooks]` table of `config.toml`: one array of groups per event (its `state`
/// table and anything else Codex does not read are left alone).
#[derive(Debug, Default, Deserialize)]
struct RawEventsToml {
    #[serde(rename = "PreToolUse", default)]
    pre_tool_use: Vec<RawGroup<Spanned<RawHandler>>>,
    #[serde(rename = "PermissionRequest", default)]
    permission_request: Vec<RawGroup<Spanned<RawHandler>>>,
    #[serde(rename = "PostToolUse", default)]
    post_tool_use: Vec<RawGroup<Spanned<RawHandler>>>,
    #[serde(rename = "PreCompact", default)]
    pre_compact: Vec<RawGroup<Spanned<RawHandler>>>,
    #[serde(rename = "PostCompact", default)]
    post_compact: Vec<RawGroup<Spanned<RawHandler>>>,
    #[serde(rename = "SessionStart", default)]
    session_start: Vec<RawGroup<Spanned<RawHandler>>>,
    #[serde(rename = "UserPromptSubmit", default)]
    user_prompt_submit: Vec<RawGroup<Spanned<RawHandler>>>,
    #[serde(rename = "SubagentStart", default)]
    subagent_start: Vec<RawGroup<Spanned<RawHandler>>>,
    #[serde(rename = "SubagentStop", default)]
    subagent_stop: Vec<RawGroup<Spanned<RawHandler>>>,
    #[serde(rename = "Stop", default)]
    stop: Vec<RawGroup<Spanned<RawHandler>>>,
}

impl RawEventsToml {
    /// The groups of each event, by Codex's name.
    fn into_groups(self) -> [(&'static str, Vec<RawGroup<Spanned<RawHandler>>>); 10] {
        [
            ("PreToolUse", self.pre_tool_use),
            ("PermissionRequest", self.permission_request),
            ("PostToolUse", self.post_tool_use),
            ("PreCompact", self.pre_compact),
            ("PostCompact", self.post_compact),
            ("SessionStart", self.session_start),
            ("UserPromptSubmit", self.user_prompt_submit),
            ("SubagentStart", self.subagent_start),
            ("SubagentStop", self.subagent_stop),
            ("Stop", self.stop),
        ]
    }
}

/// The names in `config.toml`'s `[hooks]` table, to warn about those Codex ignores.
#[derive(Debug, Deserialize)]
struct RawHookNames {
    #[serde(default)]
    #[expect(
        clippy::zero_sized_map_values,
        reason = "only the names are read; serde needs a map to read a table's keys"
    )]
    hooks: Option<BTreeMap<Spanned<String>, serde::de::IgnoredAny>>,
}

#[derive(Debug, Deserialize)]
struct RawStateOnly {
    #[serde(default)]
    hooks: Option<RawStateHooks>,
}

#[derive(Debug, Deserialize)]
struct RawStateHooks {
    #[serde(default)]
    state: BTreeMap<String, toml::Value>,
}

#[derive(Debug, Deserialize)]
struct RawRequirementsOnly {
    #[serde(default)]
    allow_managed_hooks_only: Option<bool>,
}

#[derive(Debug, Deserialize)]
struct RawFeaturesOnly {
    #[serde(default)]
    features: Option<RawFeatures>,
}

#[derive(Debug, Deserialize)]
struct RawFeatures {
    hooks: Option<bool>,
    codex_hooks: Option<bool>,
    plugins: Option<bool>,
}

#[derive(Debug, Deserialize)]
struct RawGroup<H> {
    #[serde(default)]
    matcher: Option<String>,
    #[serde(default = "Vec::new")]
    hooks: Vec<H>,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
enum RawHandler {
    #[serde(rename = "command")]
    Command {
        command: String,
        #[serde(default, rename = "commandWindows", alias = "command_windows")]
        _command_windows: Option<String>,
        #[serde(default)]
        timeout: Option<u64>,
        #[serde(default, rename = "async")]
        is_async: bool,
        #[serde(default, rename = "statusMessage")]
        status_message: Option<String>,
        /// `false` on a hook `hookrig install` moved into a sidecar after the user had
        /// turned it off in Codex: Codex's `[hooks.state]` names it by its old place,
        /// so the sidecar carries the state itself. Read in sidecars only.
        #[serde(default)]
        enabled: Option<bool>,
    },
    #[serde(rename = "prompt")]
    Prompt {},
    #[serde(rename = "agent")]
    Agent {},
}

/// A group with the place of each of its handlers.
type PlacedGroup = (RawGroup<RawHandler>, Vec<Option<usize>>);

/// The prefix of an error that leaves a file out.
const INVALID: &str = "invalid Codex hooks, file skipped: ";

/// Parses one file's hooks. `Err` is the error that leaves the whole file out, as Codex
/// leaves it out; problems of one group or handler are reported in `diagnostics`.
pub(super) fn parse(
    path: &Path,
    text: &str,
    format: Format,
    layer: Layer,
    disabled: &HashSet<String>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<Vec<HookDef>, Diagnostic> {
    parse_keyed(path, None, text, format, layer, disabled, diagnostics)
}

/// [`parse`], with the first part of each hook's `[hooks.state]` key: the file's path
/// when `None`, a plugin's `ID:RELATIVE_PATH` otherwise.
pub(super) fn parse_keyed(
    path: &Path,
    key_source: Option<&str>,
    text: &str,
    format: Format,
    layer: Layer,
    disabled: &HashSet<String>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<Vec<HookDef>, Diagnostic> {
    let mut file = Lowering::new(path, text, diagnostics);
    let (level, layer) = match format {
        Format::Json => (layer.level, layer.json),
        Format::Toml | Format::Requirements => (layer.level, layer.toml),
    };
    // The keys of `[hooks]` that are not events and that Codex reads without a warning.
    let settings: &[&str] = match format {
        Format::Requirements => &["managed_dir", "windows_managed_dir"],
        Format::Json | Format::Toml => &["state"],
    };
    let mut groups: Vec<(&'static CodexEvent, Vec<PlacedGroup>)> = Vec::new();
    match format {
        Format::Json => {
            let raw: RawHooksFile<'_> = file.json(text, INVALID)?;
            let Some(hooks) = raw.hooks else {
                return Ok(Vec::new());
            };
            let by_event: BTreeMap<String, &RawValue> = file.json(hooks.get(), INVALID)?;
            for name in by_event.keys() {
                if events::by_name(name).is_none() {
                    let at = file.json_key(&[JsonKey::Key("hooks"), JsonKey::Key(name)]);
                    unknown_event(&mut file, name, at);
                }
            }
            for event in events::EVENTS {
                let Some(value) = by_event.get(event.name) else {
                    continue;
                };
                let raw: Vec<RawGroup<RawHandler>> = file.json(value.get(), INVALID)?;
                let placed = raw
                    .into_iter()
                    .enumerate()
                    .map(|(g, group)| {
                        let places = (0..group.hooks.len())
                            .map(|h| {
                                file.json_key(&[
                                    JsonKey::Key("hooks"),
                                    JsonKey::Key(event.name),
                                    JsonKey::Index(g),
                                    JsonKey::Key("hooks"),
                                    JsonKey::Index(h),
                                ])
                            })
                            .collect();
                        (group, places)
                    })
                    .collect();
                groups.push((event, placed));
            }
        }
        Format::Toml | Format::Requirements => {
            let raw: RawConfigToml = toml::from_str(text)
                .map_err(|err| file.toml_error(&err, Severity::Error, INVALID))?;
            let Some(hooks) = raw.hooks else {
                return Ok(Vec::new());
            };
            if let Ok(RawHookNames { hooks: Some(names) }) = toml::from_str(text) {
                for name in names.keys() {
                    let known = events::by_name(name.get_ref()).is_some()
                        || settings.contains(&name.get_ref().as_str());
                    if !known {
                        unknown_event(&mut file, name.get_ref(), Some(name.span().start));
                    }
                }
            }
            for (name, raw) in hooks.into_groups() {
                let Some(event) = events::by_name(name) else {
                    continue;
                };
                let placed = raw
                    .into_iter()
                    .map(|group| {
                        let places = group.hooks.iter().map(|h| Some(h.span().start)).collect();
                        let group = RawGroup {
                            matcher: group.matcher,
                            hooks: group.hooks.into_iter().map(Spanned::into_inner).collect(),
                        };
                        (group, places)
                    })
                    .collect();
                groups.push((event, placed));
            }
        }
    }
    let mut hooks = lower_groups(&mut file, groups, layer, level, key_source);
    for (def, key) in &mut hooks {
        if disabled.contains(key.as_str()) {
            def.spec.enabled = false;
        }
    }
    let hooks = hooks.into_iter().map(|(def, _)| def).collect();
    match file.finish() {
        Ok(()) => Ok(hooks),
        Err(mut errors) => Err(errors.remove(0)),
    }
}

/// Lowers every group of a file, naming each handler `codex:LAYER:EVENT:N`; each with
/// its key in Codex's `[hooks.state]` (see [`disabled_hooks`]).
fn lower_groups(
    file: &mut Lowering<'_>,
    groups: Vec<(&'static CodexEvent, Vec<PlacedGroup>)>,
    layer: &str,
    level: Level,
    key_source: Option<&str>,
) -> Vec<(HookDef, String)> {
    let source = key_source.map_or_else(|| file.path().display().to_string(), str::to_owned);
    let mut hooks = Vec::new();
    for (event, event_groups) in groups {
        let mut counter = 0;
        for (group_index, (group, places)) in event_groups.into_iter().enumerate() {
            let first = places.first().copied().flatten();
            let Some(matcher) = matcher(file, event, group.matcher.as_deref(), first) else {
                continue;
            };
            for (handler_index, (handler, pos)) in group.hooks.into_iter().zip(places).enumerate() {
                counter += 1;
                let name = format!("codex:{layer}:{}:{counter}", event.name);
                if let Some(def) = lower(file, handler, &name, event, level, &matcher, pos) {
                    let key = format!("{source}:{}:{group_index}:{handler_index}", event.key);
                    hooks.push((def, key));
                }
            }
        }
    }
    hooks
}

fn unknown_event(file: &mut Lowering<'_>, name: &str, at: Option<usize>) {
    let mut message = format!("unknown Codex event `{name}` is ignored, as Codex ignores it");
    if let Some(known) = did_you_mean(name, events::EVENTS.iter().map(|e| e.name)) {
        let _ = write!(message, "; did you mean `{known}`?");
    }
    file.report(at, Severity::Warning, message);
}

/// The matcher of a group, by Codex's rules: ignored on events without one; missing,
/// `""` or `"*"` match everything; only letters, digits, `_` and `|` is a list of exact
/// names; anything else an unanchored regex. `None` when the regex is invalid
/// (reported; the group is skipped, as Codex skips it).
fn matcher(
    file: &mut Lowering<'_>,
    event: &CodexEvent,
    raw: Option<&str>,
    pos: Option<usize>,
) -> Option<Matcher> {
    if event.matched_field.is_none() {
        return Some(Matcher::Any);
    }
    match codex_matcher(raw.unwrap_or("")) {
        Ok(matcher) => Some(matcher),
        Err(message) => {
            file.report(pos, Severity::Error, message);
            None
        }
    }
}

/// Codex's matcher rules (see `matcher`).
pub fn codex_matcher(pattern: &str) -> Result<Matcher, String> {
    if pattern.is_empty() || pattern == "*" {
        return Ok(Matcher::Any);
    }
    if pattern
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '|'))
    {
        return Ok(Matcher::Exact(
            pattern.split('|').map(str::to_owned).collect(),
        ));
    }
    Matcher::regex(pattern).map_err(|err| {
        let detail = std::error::Error::source(&err)
            .map(ToString::to_string)
            .unwrap_or_default();
        let detail = detail.lines().last().unwrap_or_default().trim();
        let detail = detail.strip_prefix("error: ").unwrap_or(detail);
        format!("invalid matcher {pattern:?}: {detail}; the matcher group is skipped")
    })
}

/// Lowers one handler; `None` when Codex would not run it (reported).
fn lower(
    file: &mut Lowering<'_>,
    raw: RawHandler,
    name: &str,
    event: &CodexEvent,
    level: Level,
    matcher: &Matcher,
    pos: Option<usize>,
) -> Option<HookDef> {
    let (command, timeout, is_async, status_message, enabled) = match raw {
        RawHandler::Command {
            command,
            timeout,
            is_async,
            status_message,
            enabled,
            ..
        } => (command, timeout, is_async, status_message, enabled),
        RawHandler::Prompt {} | RawHandler::Agent {} => {
            let kind = if matches!(raw, RawHandler::Prompt {}) {
                "prompt"
            } else {
                "agent"
            };
            file.report(
                pos,
                Severity::Warning,
                format!(
                    "hook {name}: skipping {kind} hook: {kind} hooks are not supported by Codex yet"
                ),
            );
            return None;
        }
    };
    if command.trim().is_empty() {
        file.report(
            pos,
            Severity::Warning,
            format!("hook {name}: skipping empty hook command, as Codex does"),
        );
        return None;
    }
    let command = CommandDef::Shell {
        line: command,
        script: None,
    };
    // The entry that makes hookrig Codex's one hook is hookrig itself: running it from
    // here would call hookrig again, without end.
    if command.calls_hookrig_emit() {
        return None;
    }
    let canonical = crate::events::resolve(event.name);
    let mode = if is_async && canonical.async_allowed() {
        Mode::Async
    } else {
        if is_async {
            file.report(
                pos,
                Severity::Warning,
                format!(
                    "hook {name}: `async: true` is not allowed on {}: its answer decides the event; the hook runs synchronously",
                    event.name
                ),
            );
        }
        Mode::Sync
    };
    let secs = timeout.unwrap_or(DEFAULT_TIMEOUT_SECS).max(1);
    // Codex's own files have no such field: only the state install carried into a
    // sidecar counts.
    let is_sidecar = file
        .path()
        .file_name()
        .is_some_and(|n| n == "hooks.hookrig.json" || n == "config.hookrig.toml");
    let enabled = !(is_sidecar && enabled == Some(false));
    Some(HookDef {
        spec: HookSpec {
            name: name.to_owned(),
            events: vec![canonical],
            matcher: matcher.clone(),
            priority: HookSpec::DEFAULT_PRIORITY,
            mode,
            enabled,
            // Codex: a failed hook never blocks.
            on_error: OnError::Allow,
            source: Source {
                path: file.path().to_owned(),
                dialect: DIALECT,
                level,
            },
            description: status_message,
            timeout: Some(Duration::from_secs(secs)),
            group: Some(GROUP.to_owned()),
            matcher_field: event.matched_field.filter(|field| *field != "tool_name"),
            untrusted: None,
            shadow: false,
            side_effects: true,
        },
        command,
        env: Vec::new(),
        protocol: Arc::new(CodexProtocol(CodexHook {
            event: event.name.to_owned(),
        })),
        declared_at: pos,
        workers: None,
    })
}

#[cfg(test)]
mod tests {
    use hookrig_config::Environment;
    use indoc::indoc;

    use super::*;
    use crate::loader::{LoadOptions, read_sources};

    fn parse_in(name: &str, text: &str) -> (Result<Vec<HookDef>, String>, Vec<String>) {
        let format = if Path::new(name).extension().is_some_and(|e| e == "json") {
            Format::Json
        } else {
            Format::Toml
        };
        let mut diagnostics = Vec::new();
        let parsed = parse(
            Path::new(name),
            text,
            format,
            Layer::PROJECT,
            &HashSet::new(),
            &mut diagnostics,
        )
        .map_err(|d| d.to_string());
        (
            parsed,
            diagnostics.iter().map(ToString::to_string).collect(),
        )
    }

    fn names(hooks: &[HookDef]) -> Vec<&str> {
        hooks.iter().map(|h| h.spec.name.as_str()).collect()
    }

    #[test]
    fn a_hooks_json_is_lowered_with_codex_defaults() {
        let text = indoc! {r#"
                {"hooks": {
                  "Stop": [{"matcher": "ignored", "hooks": [{"type": "command", "command": "s.sh", "timeout": 0}]}],
                  "PreToolUse": [{"matcher": "Bash|apply_patch", "hooks": [
                    {"type": "command", "command": "guard.sh", "statusMessage": "checking", "commandWindows": "guard.cmd"},
                    {"type": "command", "command": "log.sh", "timeout": 5}
                  ]}],
                  "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "ctx.sh"}]}]
                }}
            "#};
        let (hooks, diagnostics) = parse_in("/p/.codex/hooks.json", text);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let hooks = hooks.expect("valid");
        // Codex's event order, not the file's.
        assert_eq!(
            names(&hooks),
            [
                "codex:project:PreToolUse:1",
                "codex:project:PreToolUse:2",
                "codex:project:SessionStart:1",
                "codex:project:Stop:1"
            ]
        );
        assert_eq!(hooks[0].spec.timeout, Some(Duration::from_mins(10)));
        assert_eq!(hooks[1].spec.timeout, Some(Duration::from_secs(5)));
        assert_eq!(hooks[3].spec.timeout, Some(Duration::from_secs(1)));
        assert_eq!(hooks[0].spec.matcher.pattern(), "Bash|apply_patch");
        assert!(!hooks[0].spec.matcher.matches(Some("Bashful")));
        assert_eq!(hooks[0].spec.description.as_deref(), Some("checking"));
        assert_eq!(hooks[0].spec.group.as_deref(), Some(GROUP));
        assert_eq!(hooks[0].spec.on_error, OnError::Allow);
        assert_eq!(hooks[0].spec.events[0].as_str(), "tool.before");
        assert_eq!(hooks[2].spec.matcher_field, Some("source"));
        assert!(matches!(hooks[3].spec.matcher, Matcher::Any));
        assert_eq!(hooks[0].declared_line_col(), None, "no such file on disk");
        let at = hooks[0].declared_at.expect("placed");
        assert!(text[at..].starts_with(r#"{"type": "command", "command": "guard.sh""#));
    }

    #[test]
    fn config_toml_hooks_are_lowered_and_the_rest_of_the_file_left_alone() {
        let text = indoc! {r#"
                model = "gpt-5"

                [[hooks.PreToolUse]]
                matcher = "^Bash$"

                [[hooks.PreToolUse.hooks]]
                type = "command"
                command = "guard.sh"
                timeout = 30

                [hooks.state."/p/.codex/config.toml:pre_tool_use:0:0"]
                enabled = true

                [[hooks.UserPromptSubmit]]
                [[hooks.UserPromptSubmit.hooks]]
                type = "command"
                command = "ctx.sh"
            "#};
        let (hooks, diagnostics) = parse_in("/p/.codex/config.toml", text);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let hooks = hooks.expect("valid");
        assert_eq!(
            names(&hooks),
            [
                "codex:project-toml:PreToolUse:1",
                "codex:project-toml:UserPromptSubmit:1"
            ]
        );
        assert_eq!(hooks[0].spec.timeout, Some(Duration::from_secs(30)));
        assert!(hooks[0].spec.matcher.matches(Some("Bash")));
        assert!(!hooks[0].spec.matcher.matches(Some("Bashful")));
        let at = hooks[0].declared_at.expect("placed");
        assert!(
            text[at..].starts_with("[[hooks.PreToolUse.hooks]]"),
            "{:?}",
            &text[at..]
        );
    }

    #[test]
    fn errors_that_leave_a_file_out_are_placed() {
        let cases = [
            (
                "/p/hooks.json",
                "{\n  \"hooks\": {\"PreToolUse\": [,]}\n}\n",
            ),
            ("/p/hooks.json", "{\"hooks\": {}, \"version\": 1}\n"),
            (
                "/p/hooks.json",
                "{\"hooks\": {\"PreToolUse\": [\n  {\"hooks\": [{\"type\": \"command\", \"command\": \"x\", \"timeout\": \"ten\"}]}\n]}}\n",
            ),
            (
                "/p/hooks.json",
                "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"shell\", \"command\": \"x\"}]}]}}\n",
            ),
            (
                "/p/hooks.json",
                "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"command\": \"x\"}]}]}}\n",
            ),
            (
                "/p/config.toml",
                "[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"x\"\ntimeout = -1\n",
            ),
            ("/p/config.toml", "[hooks\n"),
        ];
        let rendered: Vec<String> = cases
            .iter()
            .map(|(name, text)| parse_in(name, text).0.expect_err("broken"))
            .collect();
        insta::assert_snapshot!(rendered.join("\n"));
    }

    #[test]
    fn bad_groups_and_handlers_are_skipped_alone_with_their_place() {
        let (hooks, diagnostics) = parse_in(
            "/p/hooks.json",
            indoc! {r#"
                {"hooks": {
                  "PreToolUse": [
                    {"matcher": "(", "hooks": [{"type": "command", "command": "a"}]},
                    {"hooks": [{"type": "prompt", "prompt": "p"}, {"type": "command", "command": "  "}]},
                    {"hooks": [{"type": "command", "command": "ok", "async": true}]}
                  ],
                  "PreToolUze": [],
                  "UserPromptSubmit": [{"matcher": "(", "hooks": [{"type": "command", "command": "u"}]}]
                }}
            "#},
        );
        let hooks = hooks.expect("the file is kept");
        assert_eq!(
            names(&hooks),
            [
                "codex:project:PreToolUse:3",
                "codex:project:UserPromptSubmit:1"
            ]
        );
        assert_eq!(hooks[0].spec.mode, Mode::Sync);
        insta::assert_snapshot!(diagnostics.join("\n"));
    }

    #[test_case::test_case("", true, true ; "empty matches all")]
    #[test_case::test_case("*", true, true ; "star matches all")]
    #[test_case::test_case("Bash", true, false ; "a name is exact")]
    #[test_case::test_case("Edit|Bash", true, false ; "a list is exact")]
    #[test_case::test_case("^Ba", true, true ; "anything else is a regex")]
    #[test_case::test_case("mcp__.*", false, false ; "unanchored regex")]
    fn matchers(pattern: &str, bash: bool, bashful: bool) {
        let matcher = codex_matcher(pattern).expect("valid");
        assert_eq!(matcher.matches(Some("Bash")), bash);
        assert_eq!(matcher.matches(Some("Bashful")), bashful);
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    const GUARD: &str =
        r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "g.sh"}]}]}}"#;
    const GUARD_TOML: &str = "[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"t.sh\"\n";

    /// A home and a repository with a subdirectory, each file written as given.
    fn load_with(files: &[(&str, &str)]) -> (Vec<String>, Vec<String>) {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().canonicalize().expect("canonical");
        let home = root.join("home");
        std::fs::create_dir_all(root.join("repo/.git")).expect("mkdir");
        std::fs::create_dir_all(root.join("repo/sub")).expect("mkdir");
        for (path, text) in files {
            write(&root.join(path), text);
        }
        let vars = |name: &str| (name == "HOME").then(|| home.clone().into_os_string());
        let env = Environment::from_vars(root.join("repo/sub"), vars).expect("env");
        let sources = read_sources(&env, &LoadOptions::default());
        let config = sources.trusted(&env, None);
        let marker = root.to_string_lossy().into_owned();
        let hooks = config
            .hooks
            .iter()
            .map(|h| {
                format!(
                    "{} {}",
                    h.spec.name,
                    h.spec
                        .source
                        .path
                        .display()
                        .to_string()
                        .replace(&marker, "")
                )
            })
            .collect();
        let warnings = config
            .warnings
            .iter()
            .map(|d| d.to_string().replace(&marker, ""))
            .collect();
        (hooks, warnings)
    }

    #[test]
    fn every_layer_loads_and_a_broken_file_leaves_the_others_running() {
        let (hooks, warnings) = load_with(&[
            ("home/.codex/hooks.json", "{broken"),
            ("home/.codex/config.toml", GUARD_TOML),
            ("repo/.codex/hooks.json", GUARD),
            ("repo/sub/.codex/config.toml", GUARD_TOML),
        ]);
        assert_eq!(
            hooks,
            [
                "codex:user-toml:PreToolUse:1 /home/.codex/config.toml",
                "codex:project:PreToolUse:1 /repo/.codex/hooks.json",
                "codex:project-toml:PreToolUse:1 /repo/sub/.codex/config.toml"
            ]
        );
        assert_eq!(
            warnings,
            [
                "/home/.codex/hooks.json:1:2: invalid Codex hooks, file skipped: key must be a string"
            ]
        );
    }

    #[test]
    fn both_forms_in_one_layer_load_with_a_warning() {
        let (hooks, warnings) = load_with(&[
            ("home/.codex/hooks.json", GUARD),
            ("home/.codex/config.toml", GUARD_TOML),
        ]);
        assert_eq!(hooks.len(), 2, "{hooks:?}");
        assert_eq!(
            warnings,
            [
                "/home/.codex/config.toml: loading hooks from both /home/.codex/hooks.json and /home/.codex/config.toml; prefer a single representation for this layer"
            ]
        );
    }

    #[test]
    fn the_hooks_feature_turned_off_loads_no_codex_hook() {
        for features in [
            "[features]\nhooks = false\n",
            "[features]\ncodex_hooks = false\n",
        ] {
            let (hooks, warnings) = load_with(&[
                (
                    "home/.codex/config.toml",
                    &format!("{features}{GUARD_TOML}"),
                ),
                ("home/.codex/hooks.json", GUARD),
                ("repo/.codex/hooks.json", GUARD),
            ]);
            assert!(hooks.is_empty(), "{hooks:?}");
            assert!(warnings.is_empty(), "{warnings:?}");
        }
    }

    #[test]
    fn hooks_the_user_turned_off_in_codex_are_disabled() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let home = tmp.path().join("codex");
        let hooks_json = home.join("hooks.json");
        let state = format!(
            "[hooks.state.\"{0}:pre_tool_use:0:1\"]\nenabled = false\n[hooks.state.\"{0}:pre_tool_use:0:0\"]\nenabled = true\n[hooks.state.odd]\nenabled = \"no\"\n",
            hooks_json.display()
        );
        write(&home.join("config.toml"), &state);
        let disabled = disabled_hooks(&home);
        assert_eq!(
            disabled,
            HashSet::from([format!("{}:pre_tool_use:0:1", hooks_json.display())])
        );
        let text = r#"{"hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": "a.sh"}, {"type": "command", "command": "b.sh"}]}]}}"#;
        let hooks = parse(
            &hooks_json,
            text,
            Format::Json,
            Layer::USER,
            &disabled,
            &mut Vec::new(),
        )
        .expect("valid");
        let enabled: Vec<bool> = hooks.iter().map(|h| h.spec.enabled).collect();
        assert_eq!(enabled, [true, false]);
    }

    #[test]
    fn a_sidecar_carries_the_state_install_moved_with_a_hook() {
        let text = r#"{"hooks": {"Stop": [{"hooks": [
            {"type": "command", "command": "a.sh", "enabled": false},
            {"type": "command", "command": "b.sh", "enabled": true},
            {"type": "command", "command": "c.sh"}]}]}}"#;
        let toml = "[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"a.sh\"\nenabled = false\n";
        let cases = [
            (
                "hooks.hookrig.json",
                Format::Json,
                text,
                vec![false, true, true],
            ),
            // Codex's own files have no such field: hookrig reads it in sidecars only.
            ("hooks.json", Format::Json, text, vec![true, true, true]),
            ("config.hookrig.toml", Format::Toml, toml, vec![false]),
            ("config.toml", Format::Toml, toml, vec![true]),
        ];
        for (name, format, text, expected) in cases {
            let path = Path::new("/h/.codex").join(name);
            let hooks = parse(
                &path,
                text,
                format,
                Layer::USER,
                &HashSet::new(),
                &mut Vec::new(),
            )
            .expect("valid");
            let enabled: Vec<bool> = hooks.iter().map(|h| h.spec.enabled).collect();
            assert_eq!(enabled, expected, "{name}");
        }
    }
}
