//! Loader for Claude Code `settings.json` hooks.
//!
//! Layers: user `~/.claude/settings.json` and managed
//! `/etc/claude-code/managed-settings.json` (global; the managed path can be moved with
//! `HOOKRIG_CLAUDE_MANAGED_SETTINGS`), project `.claude/settings.json` and
//! `.claude/settings.local.json` (project level, both from the nearest directory along the
//! project walk that holds either); beside the user's and the project's `settings.json`,
//! the `settings.hookrig.json` that `hookrig install` moved their hooks into, read as
//! part of that file. Every layer's hooks run; an identical handler (same
//! event, matcher and command or URL) runs once. A file that is not valid JSON, or whose
//! hooks do not have Claude Code's shape, is skipped with an error naming its position;
//! a bad entry in a good file is skipped alone.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hookrig_core::{Dialect, HookSpec, Level, Matcher, Mode, OnError, Source};
use serde::Deserialize;
use serde_json::value::RawValue;

use hookrig_exec::CommandDef;

use super::events;
use super::rule::Rule;
use crate::claude::ClaudeProtocol;
use crate::definition::{HookDef, Shadowed};
use crate::loader::{LoadContext, MAX_DIAGNOSTICS, limit_diagnostics};
use crate::wire::Ordered;
use hookrig_config::{Lowering, consulted, did_you_mean};
use hookrig_core::{Diagnostic, Severity};

/// The dialect name of Claude Code settings files.
pub(crate) const DIALECT: Dialect = Dialect::Claude;

/// The environment variable that moves the managed settings file (tests, and systems that
/// keep it elsewhere).
pub const MANAGED_SETTINGS_ENV: &str = "HOOKRIG_CLAUDE_MANAGED_SETTINGS";

/// Where Claude Code keeps managed (administrator) settings on Linux.
pub const DEFAULT_MANAGED_SETTINGS: &str = "/etc/claude-code/managed-settings.json";

/// Claude Code's default timeout of a hook.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_mins(10);

/// The parallel group of Claude hooks: Claude Code runs every matching hook of an event
/// at once, and the most restrictive answer wins.
pub(crate) const GROUP: &str = "claude";

/// What a Claude Code hook needs at run time beyond its command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClaudeHook {
    /// The Claude Code event name the hook was declared under (`PreToolUse`, ...): its
    /// `hook_event_name`.
    pub event: String,
    /// `CLAUDE_PROJECT_DIR`: the directory holding the project's `.claude/` settings, else
    /// the project root; `None` outside a project (the event's cwd is used then).
    pub project_dir: Option<PathBuf>,
    /// For HTTP hooks: the variables that `$NAME` / `${NAME}` in header values may read.
    pub allowed_env_vars: Vec<String>,
    /// Whether the hook came from the managed settings file.
    pub managed: bool,
    /// The hook's `if` permission rule (`Bash(git push *)`): on a tool event, the hook
    /// runs only for a call the rule matches.
    pub condition: Option<String>,
    /// For a hook of an installed Claude Code plugin: the plugin.
    pub plugin: Option<ClaudePlugin>,
}

/// The installed Claude Code plugin a hook comes from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClaudePlugin {
    /// Its id as `enabledPlugins` names it (`formatter@my-marketplace`).
    pub id: String,
    /// `CLAUDE_PLUGIN_ROOT`: the directory Claude Code installed it in.
    pub root: PathBuf,
    /// `CLAUDE_PLUGIN_DATA`: its persistent data directory.
    pub data: PathBuf,
    /// Whether the hook's command names `CLAUDE_PLUGIN_DATA`: Claude Code creates the
    /// directory on its first reference, so hookrig creates it before such a hook runs.
    pub uses_data: bool,
    /// The plugin's `userConfig` values hookrig can read, as the hook's environment
    /// gets them: `CLAUDE_PLUGIN_OPTION_<KEY>` and the value.
    pub options: Vec<(String, String)>,
}

/// What the Claude layers said so far in one load: `disableAllHooks` is settled only once
/// every layer was read.
#[derive(Debug, Default)]
pub(crate) struct State {
    /// `disableAllHooks` of the user file.
    user_disable: Option<bool>,
    /// The managed file disabled every Claude hook, its own included.
    managed_disable: bool,
    /// The managed file allows its own hooks only (`allowManagedHooksOnly`).
    managed_only: bool,
    /// Every Claude hook loaded, by what makes two identical, with its name.
    loaded: std::collections::HashMap<HandlerKey, String>,
    /// What the files said beyond their hooks: enabled plugins, HTTP allowlists.
    pub(crate) layers: super::policy::Layers,
}

/// One Claude Code settings file, or the hooks file of an installed plugin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layer {
    User,
    Managed,
    Project,
    Local,
    /// A plugin's hooks file: its hooks take the level of the settings file that turns
    /// the plugin on (see `plugins.rs`).
    Plugin,
}

impl Layer {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Layer::User => "user",
            Layer::Managed => "managed",
            Layer::Project => "project",
            Layer::Local => "local",
            Layer::Plugin => "plugin",
        }
    }

    pub(crate) fn level(self) -> Level {
        match self {
            Layer::User | Layer::Managed | Layer::Plugin => Level::Global,
            Layer::Project | Layer::Local => Level::Project,
        }
    }
}

/// The managed settings file: `$HOOKRIG_CLAUDE_MANAGED_SETTINGS` when it is an absolute
/// path (a relative one could name a file of the project), else Claude Code's path.
pub fn managed_settings_path() -> PathBuf {
    hookrig_config::absolute_var(std::env::var_os(MANAGED_SETTINGS_ENV))
        .unwrap_or_else(|| PathBuf::from(DEFAULT_MANAGED_SETTINGS))
}

/// The directory whose `.claude/` holds the project's settings: the nearest along the walk
/// that has `settings.json` or `settings.local.json` there.
pub(crate) fn settings_dir(project: &hookrig_config::Project) -> Option<PathBuf> {
    project
        .walk
        .iter()
        .find(|dir| {
            let claude = dir.join(".claude");
            consulted::is_file(&claude.join("settings.json"))
                || consulted::is_file(&claude.join("settings.local.json"))
                || consulted::is_file(&claude.join("settings.hookrig.json"))
                || consulted::is_file(&claude.join("settings.local.hookrig.json"))
        })
        .cloned()
}

/// Loads the hooks of this dialect's settings files of one level into `ctx` (the
/// plugins' hooks and the allowlists follow, in `discovery.rs`).
pub(crate) fn load_settings(ctx: &mut LoadContext<'_>, level: Level) {
    let dir = settings_dir(ctx.project);
    let project_dir = dir.clone().or_else(|| ctx.project.root.clone());
    match level {
        Level::Global => {
            let user = ctx.env.home.join(".claude").join("settings.json");
            if let Some(file) = read(ctx, &user, Layer::User) {
                ctx.claude.user_disable = file.disable_all;
                add(ctx, file, project_dir.as_ref());
            }
            // The hooks `hookrig install` moved out of the user's file: part of it.
            if let Some(file) = read(ctx, &crate::install::sidecar_of(&user), Layer::User) {
                add(ctx, file, project_dir.as_ref());
            }
            if let Some(file) = read(ctx, &managed_settings_path(), Layer::Managed) {
                if file.managed_only == Some(true) {
                    // The administrator allows managed hooks only: the user's are
                    // not run, and each file whose hooks are left out says so.
                    ctx.claude.managed_only = true;
                    let user_hooks = ctx
                        .hooks
                        .iter()
                        .filter(|def| {
                            def.protocol_as::<ClaudeProtocol>()
                                .is_some_and(|claude| !claude.0.managed)
                        })
                        .count();
                    if user_hooks > 0 {
                        ctx.diagnostics.push(managed_only_warning(&user));
                    }
                    ctx.hooks.retain(|def| {
                        def.protocol_as::<ClaudeProtocol>()
                            .is_none_or(|claude| claude.0.managed)
                    });
                }
                if file.disable_all == Some(true) {
                    // Managed settings are the administrator's: their `disableAllHooks`
                    // turns off every Claude hook, the managed ones too.
                    ctx.claude.managed_disable = true;
                } else {
                    add(ctx, file, project_dir.as_ref());
                }
            }
        }
        Level::Project => {
            let mut project_disable = None;
            let mut files = Vec::new();
            if let Some(dir) = &dir {
                for (name, layer) in [
                    ("settings.json", Layer::Project),
                    // The hooks `hookrig install --project` moved out of settings.json.
                    ("settings.hookrig.json", Layer::Project),
                    ("settings.local.json", Layer::Local),
                    // And those it moved out of settings.local.json.
                    ("settings.local.hookrig.json", Layer::Local),
                ] {
                    let path = dir.join(".claude").join(name);
                    if let Some(file) = read(ctx, &path, layer) {
                        project_disable = file.disable_all.or(project_disable);
                        files.push(file);
                    }
                }
            }
            // Like any setting, `disableAllHooks` of a later layer wins (local over
            // project over user); it cannot turn off managed hooks.
            let disable = project_disable.or(ctx.claude.user_disable) == Some(true);
            if ctx.claude.managed_disable {
                ctx.claude.layers.off = super::policy::Off::All;
                ctx.hooks
                    .retain(|def| def.protocol_as::<ClaudeProtocol>().is_none());
                return;
            }
            if disable || ctx.claude.managed_only {
                ctx.claude.layers.off = super::policy::Off::AllButManaged;
            }
            if disable {
                ctx.hooks.retain(|def| {
                    def.protocol_as::<ClaudeProtocol>()
                        .is_none_or(|claude| claude.0.managed)
                });
                return;
            }
            for file in files {
                if ctx.claude.managed_only {
                    if !file.hooks.is_empty() {
                        ctx.diagnostics.push(managed_only_warning(&file.path));
                    }
                    continue;
                }
                add(ctx, file, project_dir.as_ref());
            }
        }
    }
}

/// Why the Claude hooks of the file at `path` do not run under `allowManagedHooksOnly`.
fn managed_only_warning(path: &Path) -> Diagnostic {
    Diagnostic::file(
        path,
        Severity::Warning,
        format!(
            "the hooks of this file are not run: the managed settings ({}) set `allowManagedHooksOnly`",
            managed_settings_path().display()
        ),
    )
}

/// Reads and parses one settings file; `None` when it is missing or broken (reported).
///
/// A project file's `disableAllHooks` would turn off the user's own hooks: it counts
/// only once the file is trusted as it is now (`hookrig trust` records it by content),
/// and is otherwise ignored with a warning.
fn read(ctx: &mut LoadContext<'_>, path: &Path, layer: Layer) -> Option<ParsedFile> {
    let text = ctx.read(path)?;
    match parse(path, &text, layer, &mut ctx.diagnostics) {
        Ok(mut file) => {
            if layer.level() == Level::Project
                && (file.disable_all.is_some() || file.settings.is_set())
                && !ctx.env.trust_all
            {
                let (store, problem) =
                    hookrig_config::load_or_warn(ctx.env, "project Claude Code settings file");
                ctx.diagnostics.extend(problem);
                let key = hookrig_config::file_trust_key(DIALECT.as_str(), path);
                if let Some(distrust) = store.check_file(&key, text.as_bytes()) {
                    let reason = match distrust {
                        hookrig_config::Distrust::New => {
                            "the file comes with the project and is not trusted yet"
                        }
                        _ => "the file changed since it was trusted",
                    };
                    let dir = hookrig_config::project_dir(path, ctx.project)
                        .unwrap_or_else(|| ctx.env.cwd.clone());
                    if file.disable_all == Some(true) {
                        ctx.diagnostics.push(Diagnostic::file(
                            path,
                            Severity::Warning,
                            format!(
                                "`disableAllHooks` is ignored: {reason}; review it, then run `hookrig trust {}`",
                                dir.display()
                            ),
                        ));
                    }
                    file.disable_all = None;
                    let hint = format!(
                        "{reason}; review it, then run `hookrig trust {}`",
                        dir.display()
                    );
                    file.settings.distrust(path, hint, &mut ctx.diagnostics);
                }
            }
            ctx.claude.layers.files.push(super::policy::SettingsLayer {
                layer,
                path: path.to_owned(),
                settings: std::mem::take(&mut file.settings),
            });
            Some(file)
        }
        Err(diagnostic) => {
            ctx.diagnostics.push(diagnostic);
            None
        }
    }
}

/// The project's Claude Code settings files that set `disableAllHooks`,
/// `enabledPlugins`, `allowedHttpHookUrls` or `httpHookAllowedEnvVars`, which `hookrig
/// trust` records by content: until then these settings are ignored (and the plugins
/// such a file turns on do not run).
pub fn claude_settings_to_trust(env: &hookrig_config::Environment) -> Vec<PathBuf> {
    let Some(dir) = settings_dir(&hookrig_config::find_project(env)) else {
        return Vec::new();
    };
    ["settings.json", "settings.local.json"]
        .iter()
        .map(|name| dir.join(".claude").join(name))
        .filter(|path| {
            hookrig_config::read_source(path).is_ok_and(|text| {
                serde_json::from_str::<RawSettings<'_>>(&text).is_ok_and(|raw| {
                    raw.disable_all_hooks.is_some()
                        || raw.enabled_plugins.is_some()
                        || raw.allowed_http_hook_urls.is_some()
                        || raw.http_hook_allowed_env_vars.is_some()
                })
            })
        })
        .collect()
}

/// Adds a file's hooks, leaving out those identical to one already loaded.
///
/// Every Claude hook loaded so far is in `ctx.claude.loaded`, by [`handler_key`], so
/// that a file of many thousand handlers costs one lookup per handler, not a scan of
/// every hook before it.
fn add(ctx: &mut LoadContext<'_>, file: ParsedFile, project_dir: Option<&PathBuf>) {
    for mut def in file.hooks {
        let key = handler_key(&def);
        if let Some(by) = key.as_ref().and_then(|key| ctx.claude.loaded.get(key)) {
            let by = by.clone();
            ctx.shadowed.push(Shadowed { hook: def, by });
            continue;
        }
        if let Some(claude) = def.protocol_as::<ClaudeProtocol>() {
            let mut hook = claude.0.clone();
            hook.project_dir = project_dir.cloned();
            def.protocol = Arc::new(ClaudeProtocol(hook));
        }
        super::plugins::substitute_project_dir(&mut def, project_dir.unwrap_or(&ctx.env.cwd));
        if let Some(key) = key {
            ctx.claude.loaded.insert(key, def.spec.name.clone());
        }
        ctx.hooks.push(def);
    }
}

/// What makes two Claude handlers identical, which Claude Code runs once: the same
/// event, the same command line or URL, and (for hookrig, which keeps one matcher per
/// hook) the same matcher. `None` for a hook of another dialect.
fn handler_key(def: &HookDef) -> Option<HandlerKey> {
    let ClaudeProtocol(claude) = def.protocol_as::<ClaudeProtocol>()?;
    let (kind, target) = match &def.command {
        CommandDef::Shell { line, .. } => ('c', line.clone()),
        CommandDef::Http { url, .. } => ('h', url.clone()),
        CommandDef::Exec { .. } => return None,
    };
    Some((
        claude.event.clone(),
        kind,
        target,
        def.spec.matcher.pattern(),
    ))
}

/// See [`handler_key`]: event, `c`ommand or `h`ttp, the command line or URL, matcher.
pub(crate) type HandlerKey = (String, char, String, String);

/// A parsed settings file.
#[derive(Debug)]
pub(crate) struct ParsedFile {
    path: PathBuf,
    disable_all: Option<bool>,
    /// `allowManagedHooksOnly`, read from the managed file only.
    managed_only: Option<bool>,
    pub(crate) hooks: Vec<HookDef>,
    /// `enabledPlugins` and the HTTP hook allowlists.
    settings: super::policy::FileSettings,
}

// Raw layer. Values are kept as borrowed `RawValue`s so that every error can name the
// position of the entry it is about: serde_json's values carry no positions.

#[derive(Debug, Deserialize)]
struct RawSettings<'a> {
    #[serde(borrow)]
    hooks: Option<&'a RawValue>,
    #[serde(rename = "disableAllHooks")]
    disable_all_hooks: Option<bool>,
    #[serde(rename = "allowManagedHooksOnly")]
    allow_managed_hooks_only: Option<bool>,
    #[serde(borrow, rename = "enabledPlugins")]
    enabled_plugins: Option<&'a RawValue>,
    #[serde(borrow, rename = "allowedHttpHookUrls")]
    allowed_http_hook_urls: Option<&'a RawValue>,
    #[serde(borrow, rename = "httpHookAllowedEnvVars")]
    http_hook_allowed_env_vars: Option<&'a RawValue>,
}

#[derive(Debug, Deserialize)]
struct RawGroup<'a> {
    matcher: Option<String>,
    #[serde(borrow)]
    hooks: Option<Vec<&'a RawValue>>,
}

#[derive(Debug, Deserialize)]
struct RawHandler {
    #[serde(rename = "type")]
    kind: Option<String>,
    command: Option<String>,
    url: Option<String>,
    headers: Option<Ordered<String>>,
    #[serde(rename = "allowedEnvVars")]
    allowed_env_vars: Option<Vec<String>>,
    timeout: Option<f64>,
    #[serde(rename = "async")]
    is_async: Option<bool>,
    #[serde(rename = "asyncRewake")]
    async_rewake: Option<bool>,
    /// Exec form: `command` is the program, these its arguments, no shell.
    args: Option<Vec<String>>,
    /// `bash` (the default) or `powershell`.
    shell: Option<String>,
    /// A permission rule the tool call must match for the hook to run.
    #[serde(rename = "if")]
    condition: Option<String>,
    /// Run once per session.
    once: Option<bool>,
}

/// Parses one settings file. `Err` is the error that makes the whole file unusable;
/// entries that are wrong alone are reported in `diagnostics` and left out.
pub(crate) fn parse(
    path: &Path,
    text: &str,
    layer: Layer,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<ParsedFile, Diagnostic> {
    let first = diagnostics.len();
    let mut file = Lowering::new(path, text, diagnostics).with_place_limit(MAX_DIAGNOSTICS);
    let raw: RawSettings<'_> = file.json(text, INVALID)?;
    let mut parsed = ParsedFile {
        path: path.to_owned(),
        disable_all: raw.disable_all_hooks,
        // Only the administrator's file can restrict the others.
        managed_only: raw
            .allow_managed_hooks_only
            .filter(|_| layer == Layer::Managed),
        hooks: Vec::new(),
        settings: super::policy::FileSettings::lower(
            &mut file,
            raw.enabled_plugins,
            raw.allowed_http_hook_urls,
            raw.http_hook_allowed_env_vars,
        ),
    };
    let Some(hooks) = raw.hooks else {
        return Ok(parsed);
    };
    let events: Ordered<&RawValue> = file.json(hooks.get(), INVALID)?;
    for (event, groups_raw) in events.0 {
        let groups: Vec<&RawValue> = file.json(groups_raw.get(), INVALID)?;
        let event_pos = key_offset(&file, &event, file.offset_of(groups_raw.get()));
        warn_unknown_event(&mut file, &event, event_pos);
        let mut counter = 0;
        for group_raw in groups {
            let group: RawGroup<'_> = file.json(group_raw.get(), INVALID)?;
            let group_pos = file.offset_of(group_raw.get());
            let Some(matcher) = matcher(&mut file, &event, group.matcher.as_deref(), group_pos)
            else {
                continue;
            };
            for handler_raw in group.hooks.unwrap_or_default() {
                let handler: RawHandler = file.json(handler_raw.get(), INVALID)?;
                counter += 1;
                let pos = file.offset_of(handler_raw.get());
                let name = format!("claude:{}:{event}:{counter}", layer.as_str());
                if let Some(def) = lower_handler(
                    &mut file,
                    handler,
                    &name,
                    &event,
                    layer,
                    matcher.clone(),
                    pos,
                ) {
                    parsed.hooks.push(def);
                }
            }
        }
    }
    limit_diagnostics(path, diagnostics, first);
    Ok(parsed)
}

/// What a settings file that cannot be read as one is reported with.
const INVALID: &str = "invalid Claude Code settings, file skipped: ";

/// The offset of the key `"event"` whose value starts at `value_pos`: it is the last
/// string before the value, so only a short stretch before it is searched (a search
/// from the start of the file for every key would make loading quadratic). The value's
/// own offset when the key is not found there (an escaped name, a long gap).
fn key_offset(file: &Lowering<'_>, event: &str, value_pos: usize) -> usize {
    let quoted = format!("\"{event}\"");
    let mut start = value_pos.saturating_sub(quoted.len() + 256);
    while !file.text().is_char_boundary(start) {
        start -= 1;
    }
    file.text()
        .get(start..value_pos)
        .and_then(|window| window.rfind(&quoted))
        .map_or(value_pos, |found| start + found)
}

fn warn_unknown_event(file: &mut Lowering<'_>, event: &str, pos: usize) {
    if events::by_name(event).is_some() || crate::events::resolve(event).is_known() {
        return;
    }
    if let Some(known) = did_you_mean(event, events::EVENTS.iter().map(|e| e.name)) {
        file.report(
            Some(pos),
            Severity::Warning,
            format!(
                "unknown Claude Code event `{event}` is treated as a custom event; did you mean `{known}`?"
            ),
        );
    }
}

/// The matcher of a group; `None` when it is invalid (reported).
///
/// A matcher on an event that has none (Stop, `UserPromptSubmit`, ...) is ignored without
/// a word, as Claude Code ignores it: the hook runs on every such event.
fn matcher(file: &mut Lowering<'_>, event: &str, raw: Option<&str>, pos: usize) -> Option<Matcher> {
    let pattern = raw.unwrap_or("");
    if events::by_name(event).is_none_or(|e| !e.has_matcher()) {
        return Some(Matcher::Any);
    }
    // On these two the matcher is a list of exact values split on `|`, never a regex
    // (`.envrc|.env` names two files): docs/dialects/claude.md, "Matchers".
    if matches!(event, "FileChanged" | "StopFailure") && !matches!(pattern, "" | "*") {
        return Some(Matcher::Exact(
            pattern
                .split('|')
                .map(str::trim)
                .filter(|name| !name.is_empty())
                .map(str::to_owned)
                .collect(),
        ));
    }
    match claude_matcher(pattern) {
        Ok(matcher) => Some(matcher),
        Err(message) => {
            file.report(Some(pos), Severity::Error, message);
            None
        }
    }
}

/// Lowers one handler; `None` when it cannot run (reported).
#[expect(
    clippy::too_many_lines,
    reason = "one check per documented handler field, in the order Claude Code's reference lists them"
)]
fn lower_handler(
    file: &mut Lowering<'_>,
    raw: RawHandler,
    name: &str,
    event: &str,
    layer: Layer,
    matcher: Matcher,
    pos: usize,
) -> Option<HookDef> {
    let mut error = |severity, message: String| {
        file.report(Some(pos), severity, format!("hook {name}: {message}"));
    };
    let claude_event = events::by_name(event);
    if let Some(shell) = raw.shell.as_deref().filter(|shell| *shell != "bash") {
        error(
            Severity::Error,
            format!(
                "`shell: \"{shell}\"` cannot run here: hookrig runs Claude Code hooks with bash, as Claude Code does on Linux and macOS; the handler is skipped"
            ),
        );
        return None;
    }
    let command = lower_command(
        raw.kind.as_deref(),
        raw.command,
        raw.args,
        raw.url,
        raw.headers,
        &mut error,
    )
    .filter(|command| runs_on_event(command, event, &mut error))?;
    let condition = lower_condition(raw.condition, event, &mut error).ok()?;
    let timeout = match raw.timeout {
        None => claude_event
            .and_then(|e| e.timeout)
            .unwrap_or(DEFAULT_TIMEOUT),
        Some(secs) => match Duration::try_from_secs_f64(secs) {
            Ok(timeout) if !timeout.is_zero() => timeout,
            _ => {
                error(
                    Severity::Error,
                    format!(
                        "`timeout` {secs} is not a positive number of seconds; the handler is skipped"
                    ),
                );
                return None;
            }
        },
    };
    let events = vec![crate::events::resolve(event)];
    if raw.once == Some(true) {
        error(
            Severity::Warning,
            "`once: true` is ignored in settings files, as Claude Code ignores it there (it honours `once` only in skill frontmatter); the hook runs on every matching event".to_owned(),
        );
    }
    if raw.async_rewake == Some(true) {
        error(
            Severity::Warning,
            "`asyncRewake` runs the hook in the background, but its exit code 2 cannot wake Claude through hookrig (the answer has been given by then); it is recorded only".to_owned(),
        );
    }
    let mode = if raw.is_async == Some(true) || raw.async_rewake == Some(true) {
        if events[0].async_allowed() {
            Mode::Async
        } else {
            error(
                Severity::Warning,
                format!(
                    "`async: true` is not allowed on {event}: its answer decides the event; the hook runs synchronously"
                ),
            );
            Mode::Sync
        }
    } else {
        Mode::Sync
    };
    Some(HookDef {
        spec: HookSpec {
            name: name.to_owned(),
            events,
            matcher,
            priority: HookSpec::DEFAULT_PRIORITY,
            mode,
            enabled: true,
            // Claude Code: a failing hook is a non-blocking error.
            on_error: OnError::Allow,
            source: Source {
                path: file.path().to_owned(),
                dialect: DIALECT,
                level: layer.level(),
            },
            description: None,
            timeout: Some(timeout),
            group: Some(GROUP.to_owned()),
            matcher_field: events::by_name(event).and_then(|e| e.matched_field),
            untrusted: None,
            shadow: false,
            side_effects: true,
        },
        command,
        env: Vec::new(),
        protocol: Arc::new(ClaudeProtocol(ClaudeHook {
            event: event.to_owned(),
            project_dir: None,
            allowed_env_vars: raw.allowed_env_vars.unwrap_or_default(),
            managed: layer == Layer::Managed,
            condition,
            plugin: None,
        })),
        // The handler's object in the `hooks` array of its matcher group.
        declared_at: Some(pos),
        workers: None,
    })
}

/// Whether Claude Code runs a handler of this type on `event`: it runs only command
/// (and `mcp_tool`) hooks on `SessionStart`, and only command hooks on `Setup`, so an
/// HTTP hook there never runs (reported through `error`, as the handlers hookrig cannot
/// run are).
fn runs_on_event(
    command: &CommandDef,
    event: &str,
    error: &mut impl FnMut(Severity, String),
) -> bool {
    if matches!(command, CommandDef::Http { .. }) && matches!(event, "SessionStart" | "Setup") {
        error(
            Severity::Error,
            format!(
                "`type: \"http\"` hooks do not run on {event}: Claude Code runs only command hooks there; the handler is skipped"
            ),
        );
        return false;
    }
    true
}

/// The `if` rule of a handler: `Ok(None)` when there is none, `Err` when the handler
/// does not run: its rule does not parse, or it is on an event without a tool, where
/// Claude Code never runs a hook with `if` (reported through `error`).
fn lower_condition(
    raw: Option<String>,
    event: &str,
    error: &mut impl FnMut(Severity, String),
) -> Result<Option<String>, ()> {
    let Some(text) = raw else {
        return Ok(None);
    };
    if events::by_name(event).is_none_or(|e| !e.tool) {
        error(
            Severity::Warning,
            format!(
                "`if` is read on tool events only, as Claude Code reads it; on {event} a hook with `if` never runs, so it is skipped"
            ),
        );
        return Err(());
    }
    match Rule::parse(&text) {
        Ok(rule) => {
            if !rule.is_read() {
                error(
                    Severity::Warning,
                    format!(
                        "the argument of `if` rule `{text}` is not one hookrig reads; the hook runs on every call of that tool"
                    ),
                );
            }
            Ok(Some(text))
        }
        Err(message) => {
            error(
                Severity::Error,
                format!("`if`: {message}; the handler is skipped"),
            );
            Err(())
        }
    }
}

/// What a handler runs; `None` when it cannot run (reported through `error`).
fn lower_command(
    kind: Option<&str>,
    command: Option<String>,
    args: Option<Vec<String>>,
    url: Option<String>,
    headers: Option<Ordered<String>>,
    error: &mut impl FnMut(Severity, String),
) -> Option<CommandDef> {
    Some(match kind {
        // The entry that makes hookrig Claude Code's one hook is hookrig itself: running
        // it from here would call hookrig again, without end.
        Some("command") if command.as_deref().is_some_and(calls_hookrig_emit) => return None,
        Some("command") if args.is_some() => match command {
            Some(program) if !program.trim().is_empty() => {
                let mut words = vec![program];
                words.extend(args.unwrap_or_default());
                CommandDef::Exec { argv: words }
            }
            _ => {
                error(
                    Severity::Error,
                    "`command` is missing or empty; the handler is skipped".to_owned(),
                );
                return None;
            }
        },
        Some("command") => match command {
            Some(line) if !line.trim().is_empty() => CommandDef::Shell { line, script: None },
            _ => {
                error(
                    Severity::Error,
                    "`command` is missing or empty; the handler is skipped".to_owned(),
                );
                return None;
            }
        },
        Some("http") => match url {
            Some(url) if url.starts_with("http://") || url.starts_with("https://") => {
                CommandDef::Http {
                    url,
                    headers: headers.map(|h| h.0).unwrap_or_default(),
                    secret_env: None,
                }
            }
            Some(url) => {
                error(
                    Severity::Error,
                    format!(
                        "`url` `{url}` is not an http:// or https:// URL; the handler is skipped"
                    ),
                );
                return None;
            }
            None => {
                error(
                    Severity::Error,
                    "`url` is missing; the handler is skipped".to_owned(),
                );
                return None;
            }
        },
        // An error, not a warning: hookrig cannot honour the handler, so `list` and
        // `validate` report it with the other handlers that cannot run.
        Some(kind @ ("prompt" | "agent" | "mcp_tool")) => {
            error(
                Severity::Error,
                format!(
                    "`type: \"{kind}\"` hooks are not supported by hookrig: {}; the handler is skipped",
                    unsupported_reason(kind)
                ),
            );
            return None;
        }
        Some(other) => {
            error(
                Severity::Error,
                format!(
                    "unknown `type` `{other}`; use \"command\" or \"http\"; the handler is skipped"
                ),
            );
            return None;
        }
        None => {
            error(
                Severity::Error,
                "`type` is missing; use \"command\" or \"http\"; the handler is skipped".to_owned(),
            );
            return None;
        }
    })
}

/// Why hookrig does not run a handler of `kind`.
fn unsupported_reason(kind: &str) -> &'static str {
    match kind {
        "prompt" => "it asks Claude Code's own model, which hookrig cannot reach",
        "agent" => "it starts a Claude Code subagent with tools, which only Claude Code can",
        _ => "it calls a tool of an MCP server connected to Claude Code, which hookrig is not",
    }
}

/// Whether a command line runs `hookrig emit` (any path to a program named `hookrig`).
fn calls_hookrig_emit(line: &str) -> bool {
    CommandDef::Shell {
        line: line.to_owned(),
        script: None,
    }
    .calls_hookrig_emit()
}

/// Claude Code's matcher rules: missing, `""` or `"*"` match everything; a pattern of only
/// letters, digits, `_`, `-`, spaces, `,` and `|` is a list of exact names separated by
/// `|` or `,` (with optional whitespace around each), so `Edit, Write` matches either
/// tool and `code-reviewer` that agent type only; anything else is an unanchored regex
/// (`mcp__.*` matches every MCP tool). Names are compared case-sensitively.
pub fn claude_matcher(pattern: &str) -> Result<Matcher, String> {
    if matches!(pattern, "" | "*") {
        return Ok(Matcher::Any);
    }
    let plain = pattern
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '|' | '-' | ' ' | ','));
    if plain {
        let names: Vec<String> = pattern
            .split(['|', ','])
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .collect();
        return Ok(if names.is_empty() {
            Matcher::Any
        } else {
            Matcher::Exact(names)
        });
    }
    Matcher::regex(pattern).map_err(|err| {
        let detail = std::error::Error::source(&err)
            .map(ToString::to_string)
            .unwrap_or_default();
        let detail = detail.lines().last().unwrap_or_default().trim();
        let detail = detail.strip_prefix("error: ").unwrap_or(detail);
        format!("{err}: {detail}; the matcher group is skipped")
    })
}

#[cfg(test)]
mod tests {
    use indoc::indoc;
    use test_case::test_case;

    use super::*;

    fn parse_ok(text: &str) -> (ParsedFile, Vec<String>) {
        let mut diagnostics = Vec::new();
        let file = parse(
            Path::new("/p/settings.json"),
            text,
            Layer::Project,
            &mut diagnostics,
        )
        .unwrap_or_else(|d| panic!("{d}"));
        (file, diagnostics.iter().map(ToString::to_string).collect())
    }

    fn parse_err(text: &str) -> String {
        parse(
            Path::new("/p/settings.json"),
            text,
            Layer::Project,
            &mut Vec::new(),
        )
        .expect_err("broken")
        .to_string()
    }

    #[test_case("", "" ; "empty")]
    #[test_case("*", "" ; "star")]
    #[test_case("Edit|Write", "Edit|Write" ; "bar list")]
    #[test_case("Edit, Write", "Edit|Write" ; "comma and space separate exact names")]
    #[test_case("code-reviewer", "code-reviewer" ; "a hyphen is part of an exact name")]
    #[test_case("mcp__.*", "mcp__.*" ; "regex")]
    fn matchers(pattern: &str, shown: &str) {
        assert_eq!(claude_matcher(pattern).expect("valid").pattern(), shown);
    }

    #[test]
    fn exact_list_is_not_a_substring_match() {
        let m = claude_matcher("Edit|Write").expect("valid");
        assert!(m.matches(Some("Edit")));
        assert!(!m.matches(Some("MultiEdit")));
        let m = claude_matcher("Notebook.*").expect("valid");
        assert!(m.matches(Some("NotebookEdit")));
        let m = claude_matcher("Edit").expect("valid");
        assert!(matches!(m, Matcher::Exact(_)));
    }

    #[test]
    fn handler_fields_claude_code_documents() {
        let (file, diagnostics) = parse_ok(indoc! {r#"
            {"hooks": {
              "PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": "/bin/guard", "args": ["--strict", "a b"]},
                {"type": "command", "command": "g.sh", "if": "Bash(git push *)", "shell": "bash", "statusMessage": "checking"},
                {"type": "command", "command": "p.ps1", "shell": "powershell"},
                {"type": "command", "command": "x.sh", "if": "Bash(ls"}
              ]}],
              "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "u.sh", "once": true},
                {"type": "command", "command": "u2.sh", "if": "Bash"}]}],
              "SessionEnd": [{"hooks": [{"type": "command", "command": "e.sh"}]}],
              "Stop": [{"matcher": "anything", "hooks": [{"type": "command", "command": "s.sh"}]}]
            }}
        "#});
        let names: Vec<_> = file.hooks.iter().map(|h| h.spec.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "claude:project:PreToolUse:1",
                "claude:project:PreToolUse:2",
                "claude:project:UserPromptSubmit:1",
                "claude:project:SessionEnd:1",
                "claude:project:Stop:1"
            ]
        );
        assert_eq!(
            file.hooks[0].command,
            CommandDef::Exec {
                argv: vec!["/bin/guard".into(), "--strict".into(), "a b".into()]
            }
        );
        let condition = |i: usize| {
            file.hooks[i]
                .protocol_as::<ClaudeProtocol>()
                .and_then(|p| p.0.condition.clone())
        };
        assert_eq!(condition(1).as_deref(), Some("Bash(git push *)"));
        assert_eq!(condition(2), None);
        // Claude Code's default timeouts: 30 s on UserPromptSubmit, 1.5 s on SessionEnd.
        assert_eq!(file.hooks[2].spec.timeout, Some(Duration::from_secs(30)));
        assert_eq!(
            file.hooks[3].spec.timeout,
            Some(Duration::from_millis(1500))
        );
        assert!(matches!(file.hooks[4].spec.matcher, Matcher::Any));
        let diagnostics = diagnostics.join("\n");
        for expected in [
            "`shell: \"powershell\"` cannot run here",
            "`if`: permission rule `Bash(ls` has no closing `)` at its end",
            "`if` is read on tool events only",
            "`once: true` is ignored in settings files, as Claude Code ignores it there",
        ] {
            assert!(diagnostics.contains(expected), "{expected}: {diagnostics}");
        }
        assert!(!diagnostics.contains("Stop"), "{diagnostics}");
    }

    // guards: an HTTP hook on SessionStart run, where Claude Code runs command hooks only
    #[test]
    fn http_hooks_do_not_run_where_claude_code_runs_command_hooks_only() {
        let (file, diagnostics) = parse_ok(indoc! {r#"
            {"hooks": {
              "SessionStart": [{"hooks": [{"type": "http", "url": "http://127.0.0.1:1/h"},
                {"type": "command", "command": "s.sh"}]}],
              "Setup": [{"hooks": [{"type": "http", "url": "http://127.0.0.1:1/h"}]}],
              "SessionEnd": [{"hooks": [{"type": "http", "url": "http://127.0.0.1:1/h"}]}]
            }}
        "#});
        let names: Vec<_> = file.hooks.iter().map(|h| h.spec.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "claude:project:SessionStart:2",
                "claude:project:SessionEnd:1"
            ]
        );
        assert_eq!(diagnostics.len(), 2, "{diagnostics:?}");
        assert!(
            diagnostics[0].ends_with(
                "`type: \"http\"` hooks do not run on SessionStart: Claude Code runs only command hooks there; the handler is skipped"
            ),
            "{diagnostics:?}"
        );
    }

    #[test]
    fn the_entry_that_calls_hookrig_is_not_loaded() {
        let (file, diagnostics) = parse_ok(indoc! {r#"
            {"hooks": {"PreToolUse": [{"hooks": [
              {"type": "command", "command": "hookrig emit --dialect claude"},
              {"type": "command", "command": "/usr/local/bin/hookrig emit --dialect claude"},
              {"type": "command", "command": "./hookrig-check.sh emit"}
            ]}]}}
        "#});
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let names: Vec<_> = file.hooks.iter().map(|h| h.spec.name.as_str()).collect();
        assert_eq!(names, ["claude:project:PreToolUse:3"]);
    }

    #[test]
    fn syntax_error_names_line_and_column() {
        let text = "{\n  \"hooks\": {\n    \"PreToolUse\": [,]\n  }\n}\n";
        assert_eq!(
            parse_err(text),
            "/p/settings.json:3:20: invalid Claude Code settings, file skipped: expected value"
        );
    }

    #[test]
    fn type_error_inside_a_handler_is_placed_in_the_file() {
        let text = indoc! {r#"
            {
              "hooks": {
                "PreToolUse": [
                  {"matcher": "Bash", "hooks": [{"type": "command", "command": "x", "timeout": "ten"}]}
                ]
              }
            }
        "#};
        let err = parse_err(text);
        assert!(
            err.starts_with("/p/settings.json:4:") && err.contains("invalid type: string \"ten\""),
            "{err}"
        );
    }

    #[test]
    fn handlers_are_named_and_lowered() {
        let (file, diagnostics) = parse_ok(indoc! {r#"
            {
              "permissions": {"allow": []},
              "hooks": {
                "PreToolUse": [
                  {"matcher": "Bash", "hooks": [
                    {"type": "command", "command": "a.sh", "timeout": 5},
                    {"type": "http", "url": "http://127.0.0.1:1/h", "headers": {"X-A": "1"}}
                  ]}
                ],
                "Notification": [{"hooks": [{"type": "command", "command": "n.sh"}]}]
              }
            }
        "#});
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let names: Vec<_> = file.hooks.iter().map(|h| h.spec.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "claude:project:PreToolUse:1",
                "claude:project:PreToolUse:2",
                "claude:project:Notification:1"
            ]
        );
        assert_eq!(file.hooks[0].spec.timeout, Some(Duration::from_secs(5)));
        assert_eq!(file.hooks[1].spec.timeout, Some(DEFAULT_TIMEOUT));
        assert_eq!(file.hooks[0].spec.group.as_deref(), Some(GROUP));
        assert_eq!(file.hooks[0].spec.events[0].as_str(), "tool.before");
        assert_eq!(file.hooks[2].spec.events[0].as_str(), "Notification");
        assert_eq!(
            file.hooks[1].command,
            CommandDef::Http {
                url: "http://127.0.0.1:1/h".to_owned(),
                headers: vec![("X-A".to_owned(), "1".to_owned())],
                secret_env: None,
            }
        );
    }

    #[test]
    fn bad_entries_are_skipped_alone_with_positions() {
        let (file, diagnostics) = parse_ok(indoc! {r#"
            {
              "hooks": {
                "PreToolUse": [
                  {"matcher": "(", "hooks": [{"type": "command", "command": "a"}]},
                  {"hooks": [{"type": "prompt", "prompt": "p"}, {"type": "command"}]},
                  {"hooks": [{"type": "command", "command": "ok", "timeout": 0}]}
                ],
                "Stop": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "s"}]}],
                "PreToolUze": []
              }
            }
        "#});
        assert!(file.hooks.len() == 1, "{:?}", file.hooks);
        insta::assert_snapshot!(diagnostics.join("\n"));
    }
}
