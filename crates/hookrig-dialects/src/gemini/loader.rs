//! Loader for the `hooks` of Gemini CLI's `settings.json` files.
//!
//! Layers: the system defaults (`$GEMINI_CLI_SYSTEM_DEFAULTS_PATH`, else
//! `/etc/gemini-cli/system-defaults.json`), the user's `~/.gemini/settings.json`, the
//! system file (`$GEMINI_CLI_SYSTEM_SETTINGS_PATH`, else `/etc/gemini-cli/settings.json`)
//! and the installed extensions' hooks (`extensions.rs`) at the global level, the working directory's `.gemini/settings.json` at the project level
//! (Gemini CLI reads its workspace settings there, and not when that directory is the
//! home directory); beside the user's and the project's file, the `settings.hookrig.json`
//! that `hookrig install` moved their hooks into, read as part of that file. Comments
//! are allowed, as Gemini CLI strips them. Every layer's hooks
//! run; a hook with the same event, `name`, `command` and matcher as one loaded before
//! runs once. A file that is not JSON is skipped with an error at its position; a bad
//! definition or handler in a good file is skipped alone, with an error at its place.
//!
//! `sequential: true` on any definition of an event makes every Gemini hook of that
//! event run one after another, each seeing the event as the ones before it left it;
//! otherwise the Gemini hooks of one file and event run at once (one parallel group).
//! `hooks.disabled` (or `hooksConfig.disabled`) lists hooks by `name`, else `command`,
//! that are listed but never run; a project file's list applies to the project's own
//! hooks only. `false` in `tools.enableHooks`, `hooks.enabled` or `hooksConfig.enabled`
//! of the user's or the system's file turns every Gemini hook off.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hookrig_config::{Lowering, did_you_mean};
use hookrig_core::{
    Diagnostic, Dialect, HookSpec, Level, Matcher, Mode, OnError, Severity, Source,
};
use hookrig_exec::CommandDef;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::events;
use super::protocol::GeminiProtocol;
use crate::definition::{HookDef, Shadowed};
use crate::loader::LoadContext;
use crate::wire::Ordered;

/// The dialect name of Gemini CLI settings files.
pub(crate) const DIALECT: Dialect = Dialect::Gemini;

/// Gemini CLI's variable that moves its system settings file.
pub const SYSTEM_SETTINGS_ENV: &str = "GEMINI_CLI_SYSTEM_SETTINGS_PATH";

/// Where Gemini CLI keeps its system settings on Linux.
pub const DEFAULT_SYSTEM_SETTINGS: &str = "/etc/gemini-cli/settings.json";

/// Gemini CLI's variable that moves its system defaults file.
pub(crate) const SYSTEM_DEFAULTS_ENV: &str = "GEMINI_CLI_SYSTEM_DEFAULTS_PATH";

/// Where Gemini CLI keeps its system defaults on Linux: the lowest of its settings
/// layers.
pub(crate) const DEFAULT_SYSTEM_DEFAULTS: &str = "/etc/gemini-cli/system-defaults.json";

/// Gemini CLI's default timeout of a hook (60000 ms).
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_mins(1);

/// The parallel group of Gemini hooks that run at once.
pub(crate) const GROUP: &str = "gemini";

/// What a Gemini CLI hook needs at run time beyond its command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeminiHook {
    /// The Gemini CLI event name the hook was declared under (`BeforeTool`, ...): its
    /// `hook_event_name`.
    pub event: String,
    /// Whether the hooks of its event run one after another (a definition of the event
    /// says `sequential: true`), each fed what the ones before it answered.
    pub sequential: bool,
}

/// The system settings file: `$GEMINI_CLI_SYSTEM_SETTINGS_PATH` when it is an absolute path
/// (a relative one could name a file of the project), else Gemini CLI's path.
pub fn system_settings_path() -> PathBuf {
    hookrig_config::absolute_var(std::env::var_os(SYSTEM_SETTINGS_ENV))
        .unwrap_or_else(|| PathBuf::from(DEFAULT_SYSTEM_SETTINGS))
}

/// The system defaults file: `$GEMINI_CLI_SYSTEM_DEFAULTS_PATH` when it is an absolute path
/// (a relative one could name a file of the project), else Gemini CLI's path.
pub(crate) fn system_defaults_path() -> PathBuf {
    hookrig_config::absolute_var(std::env::var_os(SYSTEM_DEFAULTS_ENV))
        .unwrap_or_else(|| PathBuf::from(DEFAULT_SYSTEM_DEFAULTS))
}

/// What the Gemini layers said so far in one load: the switches and lists that apply to
/// every layer are settled once every layer was read.
#[derive(Debug, Default)]
pub(crate) struct State {
    /// The file of the user or the system that turned Gemini hooks off.
    turned_off: Option<PathBuf>,
    /// Names disabled by the user's and the system's files: they apply to every hook.
    disabled: HashSet<String>,
    /// Names disabled by the project's file: they apply to the project's hooks.
    project_disabled: HashSet<String>,
    /// Each Gemini hook loaded, by its hookrig name: its Gemini name (`name`, else
    /// `command`) and its level.
    names: HashMap<String, (String, Level)>,
    /// Every Gemini hook loaded, by what makes two identical, with its hookrig name.
    loaded: HashMap<(String, String, String), String>,
}

/// One Gemini CLI settings file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layer {
    /// `system-defaults.json`, the lowest of Gemini CLI's settings layers.
    SystemDefaults,
    User,
    System,
    Project,
    /// The `hooks/hooks.json` of an installed extension (`extensions.rs`).
    Extension,
}

impl Layer {
    fn as_str(self) -> &'static str {
        match self {
            Layer::SystemDefaults => "system-defaults",
            Layer::User => "user",
            Layer::System => "system",
            Layer::Project => "project",
            Layer::Extension => "extension",
        }
    }

    /// The start of the names of this layer's hooks.
    pub(crate) fn prefix(self) -> &'static str {
        match self {
            Layer::SystemDefaults => "gemini:system-defaults:",
            Layer::User => "gemini:user:",
            Layer::System => "gemini:system:",
            Layer::Project => "gemini:project:",
            Layer::Extension => "gemini:extension:",
        }
    }

    fn level(self) -> Level {
        match self {
            Layer::SystemDefaults | Layer::User | Layer::System | Layer::Extension => Level::Global,
            Layer::Project => Level::Project,
        }
    }
}

impl State {
    /// Follows a hook renamed after it was loaded (an extension's, named after it).
    pub(crate) fn rename(&mut self, from: &str, to: &str) {
        if let Some(entry) = self.names.remove(from) {
            self.names.insert(to.to_owned(), entry);
        }
        for name in self.loaded.values_mut() {
            if name == from {
                to.clone_into(name);
            }
        }
    }
}

/// Loads this dialect's sources of one level into `ctx`.
pub(crate) fn load(ctx: &mut LoadContext<'_>, level: Level) {
    match level {
        Level::Global => {
            let user = ctx.env.home.join(".gemini").join("settings.json");
            load_file(ctx, &system_defaults_path(), Layer::SystemDefaults);
            load_file(ctx, &user, Layer::User);
            // The hooks `hookrig install` moved out of a settings.json sit beside it in
            // settings.hookrig.json, read as part of it.
            load_file(ctx, &crate::install::sidecar_of(&user), Layer::User);
            load_file(ctx, &system_settings_path(), Layer::System);
            // Gemini CLI runs its extensions' hooks itself beside hookrig's entry.
            if !ctx.options.answering(hookrig_core::Dialect::Gemini) {
                super::extensions::load_extensions(ctx);
            }
        }
        Level::Project => {
            if ctx.env.cwd != ctx.env.home {
                let project = ctx.env.cwd.join(".gemini").join("settings.json");
                load_file(ctx, &project, Layer::Project);
                load_file(ctx, &crate::install::sidecar_of(&project), Layer::Project);
            }
            settle(ctx);
        }
    }
}

/// Reads one settings file and adds its hooks.
pub(crate) fn load_file(ctx: &mut LoadContext<'_>, path: &Path, layer: Layer) {
    load_file_with(ctx, path, layer, &|text: &str| text.to_owned());
}

/// [`load_file`], with every string of each hook (its `name`, `command`, `description`
/// and `env` values) passed through `hydrate` before hooks are compared: Gemini CLI
/// replaces an extension's variables when it loads the extension, so two hooks are the
/// same when they are the same after the replacement.
pub(crate) fn load_file_with(
    ctx: &mut LoadContext<'_>,
    path: &Path,
    layer: Layer,
    hydrate: &dyn Fn(&str) -> String,
) {
    let Some(text) = ctx.read(path) else {
        return;
    };
    let parsed = match parse(path, &text, layer, &mut ctx.diagnostics) {
        Ok(parsed) => parsed,
        Err(diagnostic) => {
            ctx.diagnostics.push(diagnostic);
            return;
        }
    };
    match layer {
        Layer::Project => ctx.gemini.project_disabled.extend(parsed.disabled),
        // An extension's hooks file holds hooks only: it neither lists hooks to turn off
        // nor switches the hook system off.
        Layer::Extension => {}
        Layer::SystemDefaults | Layer::User | Layer::System => {
            ctx.gemini.disabled.extend(parsed.disabled);
            if parsed.turned_off {
                ctx.gemini.turned_off = Some(path.to_owned());
            }
        }
    }
    for (mut def, mut gemini_name) in parsed.hooks {
        if let CommandDef::Shell { line, .. } = &mut def.command {
            *line = hydrate(line);
        }
        for (_, value) in &mut def.env {
            *value = hydrate(value);
        }
        if let Some(description) = &mut def.spec.description {
            *description = hydrate(description);
        }
        gemini_name.name = hydrate(&gemini_name.name);
        gemini_name.key = hydrate(&gemini_name.key);
        let Some(GeminiProtocol(hook)) = def.protocol_as::<GeminiProtocol>() else {
            continue;
        };
        let key = (
            hook.event.clone(),
            gemini_name.key.clone(),
            def.spec.matcher.pattern(),
        );
        if let Some(by) = ctx.gemini.loaded.get(&key) {
            let by = by.clone();
            ctx.shadowed.push(Shadowed { hook: def, by });
            continue;
        }
        ctx.gemini.loaded.insert(key, def.spec.name.clone());
        ctx.gemini
            .names
            .insert(def.spec.name.clone(), (gemini_name.name, layer.level()));
        ctx.hooks.push(def);
    }
}

/// Applies what only every layer together decides: which events run their Gemini hooks
/// one after another, and which hooks are turned off.
fn settle(ctx: &mut LoadContext<'_>) {
    let sequential: HashSet<String> = ctx
        .hooks
        .iter()
        .filter_map(|def| def.protocol_as::<GeminiProtocol>())
        .filter(|protocol| protocol.0.sequential)
        .map(|protocol| protocol.0.event.clone())
        .collect();
    let state = &ctx.gemini;
    for def in &mut ctx.hooks {
        let Some(GeminiProtocol(hook)) = def.protocol_as::<GeminiProtocol>() else {
            continue;
        };
        let hook = hook.clone();
        if sequential.contains(&hook.event) {
            // One after another: no parallel group, and each hook is fed the event as
            // the hooks before it left it.
            def.spec.group = None;
            if !hook.sequential {
                def.protocol = Arc::new(GeminiProtocol(GeminiHook {
                    sequential: true,
                    ..hook
                }));
            }
        }
        let disabled = state
            .names
            .get(&def.spec.name)
            .is_some_and(|(name, level)| {
                state.disabled.contains(name)
                    || (*level == Level::Project && state.project_disabled.contains(name))
            });
        if disabled || state.turned_off.is_some() {
            def.spec.enabled = false;
        }
    }
}

/// How Gemini CLI names a hook: `name`, else its `command`; and the identity it
/// deduplicates hooks by, `name:command`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct GeminiName {
    name: String,
    key: String,
}

/// A parsed settings file.
#[derive(Debug)]
struct ParsedFile {
    /// An enable switch of the file is `false`.
    turned_off: bool,
    /// `hooks.disabled` and `hooksConfig.disabled`.
    disabled: Vec<String>,
    hooks: Vec<(HookDef, GeminiName)>,
}

/// What a settings file that cannot be read as one is reported with.
const INVALID: &str = "invalid Gemini CLI settings, file skipped: ";

/// The keys of `hooks` that are settings, not events.
pub(crate) const SETTING_KEYS: &[&str] = &["enabled", "disabled", "notifications"];

/// The keys of a hook definition.
const DEFINITION_KEYS: &[&str] = &["matcher", "sequential", "hooks"];

/// The keys of a hook configuration.
const HANDLER_KEYS: &[&str] = &["type", "command", "name", "description", "timeout", "env"];

#[derive(Debug, Deserialize)]
struct RawSettings<'a> {
    #[serde(borrow)]
    hooks: Option<&'a RawValue>,
    #[serde(rename = "hooksConfig", borrow)]
    hooks_config: Option<&'a RawValue>,
    #[serde(borrow)]
    tools: Option<&'a RawValue>,
}

/// `text` with its `//` and `/* */` comments replaced by spaces (newlines kept), so that
/// it reads as JSON with every position where it was: Gemini CLI strips comments from
/// its settings files before parsing them.
pub(crate) fn blank_comments(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        let byte = bytes[i];
        if in_string {
            match byte {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match (byte, bytes.get(i + 1)) {
            (b'"', _) => in_string = true,
            (b'/', Some(b'/')) => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
                continue;
            }
            (b'/', Some(b'*')) => {
                let end = text[i + 2..]
                    .find("*/")
                    .map_or(bytes.len(), |e| i + 2 + e + 2);
                for slot in &mut out[i..end] {
                    if *slot != b'\n' {
                        *slot = b' ';
                    }
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    // Only ASCII bytes outside strings were replaced by spaces, and a multi-byte
    // character is never split: its bytes are either all kept or all inside a comment,
    // where every byte became a space.
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

/// Parses one settings file. `Err` is the error that makes the whole file unusable;
/// entries that are wrong alone are reported in `diagnostics` and left out.
fn parse(
    path: &Path,
    text: &str,
    layer: Layer,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<ParsedFile, Diagnostic> {
    let text = blank_comments(text);
    let mut file = Lowering::new(path, &text, diagnostics);
    let raw: RawSettings<'_> = file.json(&text, INVALID)?;
    let mut parsed = ParsedFile {
        turned_off: false,
        disabled: Vec::new(),
        hooks: Vec::new(),
    };
    let switch = |raw: Option<&RawValue>, key: &str| {
        raw.and_then(|r| serde_json::from_str::<HashMap<String, serde_json::Value>>(r.get()).ok())
            .and_then(|map| map.get(key).cloned())
    };
    for (section, key) in [
        (raw.tools, "enableHooks"),
        (raw.hooks_config, "enabled"),
        (raw.hooks, "enabled"),
    ] {
        if switch(section, key) == Some(serde_json::Value::Bool(false)) {
            parsed.turned_off = true;
        }
    }
    if let Some(serde_json::Value::Array(names)) = switch(raw.hooks_config, "disabled") {
        parsed
            .disabled
            .extend(names.iter().filter_map(|n| n.as_str().map(str::to_owned)));
    }
    let Some(hooks) = raw.hooks else {
        return Ok(parsed);
    };
    let events: Ordered<&RawValue> = file.json(hooks.get(), INVALID)?;
    for (event, definitions) in events.0 {
        let pos = file.offset_of(definitions.get());
        if SETTING_KEYS.contains(&event.as_str()) {
            if event == "disabled" {
                match serde_json::from_str::<Vec<String>>(definitions.get()) {
                    Ok(names) => parsed.disabled.extend(names),
                    Err(_) => file.report(
                        Some(pos),
                        Severity::Error,
                        "`hooks.disabled` must be a list of hook names; it is ignored",
                    ),
                }
            }
            continue;
        }
        let Some(known) = events::by_name(&event) else {
            let mut message = format!(
                "unknown Gemini CLI event `{event}`; its hooks are skipped, as Gemini CLI skips them"
            );
            if let Some(near) = did_you_mean(&event, events::EVENTS.iter().map(|e| e.name)) {
                let _ = write!(message, "; did you mean `{near}`?");
            }
            file.report(Some(pos), Severity::Warning, message);
            continue;
        };
        let Ok(definitions) = serde_json::from_str::<Vec<&RawValue>>(definitions.get()) else {
            file.report(
                Some(pos),
                Severity::Error,
                format!(
                    "the hooks of {event} must be a list of hook definitions; they are skipped"
                ),
            );
            continue;
        };
        let mut counter = 0;
        for definition in definitions {
            lower_definition(
                &mut file,
                known,
                definition,
                layer,
                &mut counter,
                &mut parsed.hooks,
            );
        }
    }
    Ok(parsed)
}

/// Lowers one hook definition (a matcher group) into its hooks.
fn lower_definition(
    file: &mut Lowering<'_>,
    event: &events::GeminiEvent,
    raw: &RawValue,
    layer: Layer,
    counter: &mut usize,
    hooks: &mut Vec<(HookDef, GeminiName)>,
) {
    let pos = file.offset_of(raw.get());
    let name = event.name;
    let Ok(fields) = serde_json::from_str::<Ordered<&RawValue>>(raw.get()) else {
        file.report(
            Some(pos),
            Severity::Error,
            format!("a hook definition of {name} must be an object; it is skipped"),
        );
        return;
    };
    let mut matcher_raw = None;
    let mut sequential = false;
    let mut handlers = None;
    for (key, value) in fields.0 {
        let at = Some(file.offset_of(value.get()));
        match key.as_str() {
            "matcher" => {
                let Ok(pattern) = serde_json::from_str::<Option<String>>(value.get()) else {
                    file.report(
                        at,
                        Severity::Error,
                        format!("`matcher` of a {name} definition must be a string; the definition is skipped"),
                    );
                    return;
                };
                matcher_raw = pattern;
            }
            // Gemini CLI runs a definition sequentially only when it says exactly `true`.
            "sequential" => sequential = value.get() == "true",
            "hooks" => {
                let Ok(list) = serde_json::from_str::<Vec<&RawValue>>(value.get()) else {
                    file.report(
                        at,
                        Severity::Error,
                        format!("`hooks` of a {name} definition must be a list; the definition is skipped"),
                    );
                    return;
                };
                handlers = Some(list);
            }
            other => unknown_key(file, at, other, DEFINITION_KEYS),
        }
    }
    let Some(handlers) = handlers else {
        file.report(
            Some(pos),
            Severity::Error,
            format!("a {name} definition needs `hooks`; it is skipped"),
        );
        return;
    };
    let matcher = lower_matcher(file, event, matcher_raw.as_deref(), pos);
    for handler in handlers {
        *counter += 1;
        let hook_name = format!("gemini:{}:{name}:{counter}", layer.as_str());
        if let Some(lowered) = lower_handler(
            file,
            event,
            handler,
            &hook_name,
            layer,
            matcher.clone(),
            sequential,
        ) {
            hooks.push(lowered);
        }
    }
}

fn unknown_key(file: &mut Lowering<'_>, at: Option<usize>, key: &str, known: &[&str]) {
    let mut message = format!("unknown key `{key}` is ignored");
    if let Some(near) = did_you_mean(key, known.iter().copied()) {
        let _ = write!(message, "; did you mean `{near}`?");
    }
    file.report(at, Severity::Warning, message);
}

/// Gemini CLI's matcher rules: missing, `""` or `"*"` (after trimming) match everything;
/// on a tool event the matcher is a regular expression searched in the tool name, or the
/// exact name when it is not a valid one; on `SessionStart`, `SessionEnd` and
/// `PreCompress` it is the exact `source`, `reason` or `trigger`; other events have no
/// matcher, and one written there is ignored, as Gemini CLI ignores it.
fn lower_matcher(
    file: &mut Lowering<'_>,
    event: &events::GeminiEvent,
    raw: Option<&str>,
    pos: usize,
) -> Matcher {
    let pattern = raw.unwrap_or("").trim();
    if matches!(pattern, "" | "*") || !(event.tool || event.matched_field.is_some()) {
        return Matcher::Any;
    }
    if !event.tool {
        return Matcher::Exact(vec![pattern.to_owned()]);
    }
    if let Ok(matcher) = Matcher::regex(pattern) {
        return matcher;
    }
    file.report(
        Some(pos),
        Severity::Warning,
        format!(
            "matcher `{pattern}` is not a regular expression hookrig can read; it matches the tool named exactly `{pattern}`, as Gemini CLI does with an invalid one"
        ),
    );
    Matcher::Exact(vec![pattern.to_owned()])
}

/// Lowers one hook configuration; `None` when it cannot run (reported).
#[expect(
    clippy::too_many_lines,
    reason = "one arm per field of Gemini CLI's hook configuration, each with its own error"
)]
fn lower_handler(
    file: &mut Lowering<'_>,
    event: &events::GeminiEvent,
    raw: &RawValue,
    hook_name: &str,
    layer: Layer,
    matcher: Matcher,
    sequential: bool,
) -> Option<(HookDef, GeminiName)> {
    let pos = file.offset_of(raw.get());
    let error = |file: &mut Lowering<'_>, at: Option<usize>, message: String| {
        file.report(
            at.or(Some(pos)),
            Severity::Error,
            format!("hook {hook_name}: {message}; the hook is skipped"),
        );
    };
    let Ok(fields) = serde_json::from_str::<Ordered<&RawValue>>(raw.get()) else {
        error(file, None, "a hook must be an object".to_owned());
        return None;
    };
    let mut kind = None;
    let mut command = None;
    let mut name = None;
    let mut description = None;
    let mut timeout = DEFAULT_TIMEOUT;
    let mut env = Vec::new();
    for (key, value) in fields.0 {
        let at = Some(file.offset_of(value.get()));
        let text = || serde_json::from_str::<String>(value.get()).ok();
        match key.as_str() {
            "type" => kind = Some(text().unwrap_or_default()),
            "command" => command = text(),
            "name" => name = text().filter(|n| !n.is_empty()),
            "description" => description = text(),
            "timeout" => match serde_json::from_str::<f64>(value.get()) {
                Ok(ms) if ms > 0.0 => {
                    let Ok(duration) = Duration::try_from_secs_f64(ms / 1000.0) else {
                        error(file, at, format!("`timeout` {ms} is too large"));
                        return None;
                    };
                    timeout = duration;
                }
                _ => {
                    error(
                        file,
                        at,
                        format!(
                            "`timeout` {} is not a positive number of milliseconds",
                            value.get()
                        ),
                    );
                    return None;
                }
            },
            "env" => {
                let Ok(vars) = serde_json::from_str::<Ordered<String>>(value.get()) else {
                    error(file, at, "`env` must be an object of strings".to_owned());
                    return None;
                };
                env = vars.0;
            }
            other => unknown_key(file, at, other, HANDLER_KEYS),
        }
    }
    match kind.as_deref() {
        Some("command") => {}
        Some("plugin") => {
            file.report(
                Some(pos),
                Severity::Warning,
                format!(
                    "hook {hook_name}: `type: \"plugin\"` hooks are not run by Gemini CLI's hook runner, nor by hookrig; the hook is skipped"
                ),
            );
            return None;
        }
        Some(other) => {
            error(
                file,
                None,
                format!("unknown `type` `{other}`; use \"command\""),
            );
            return None;
        }
        None => {
            error(file, None, "`type` is missing; use \"command\"".to_owned());
            return None;
        }
    }
    let Some(line) = command.filter(|c| !c.trim().is_empty()) else {
        error(file, None, "`command` is missing or empty".to_owned());
        return None;
    };
    let gemini_name = GeminiName {
        key: format!("{}:{line}", name.as_deref().unwrap_or("")),
        name: name.unwrap_or_else(|| line.clone()),
    };
    let def = HookDef {
        spec: HookSpec {
            name: hook_name.to_owned(),
            events: vec![crate::events::resolve(event.name)],
            matcher,
            priority: HookSpec::DEFAULT_PRIORITY,
            mode: Mode::Sync,
            enabled: true,
            // Gemini CLI: a failing hook is a warning, and the action proceeds.
            on_error: OnError::Allow,
            source: Source {
                path: file.path().to_owned(),
                dialect: DIALECT,
                level: layer.level(),
            },
            description,
            timeout: Some(timeout),
            group: Some(GROUP.to_owned()),
            matcher_field: event.matched_field,
            untrusted: None,
            shadow: false,
            side_effects: true,
        },
        command: CommandDef::Shell { line, script: None },
        env,
        protocol: Arc::new(GeminiProtocol(GeminiHook {
            event: event.name.to_owned(),
            sequential,
        })),
        declared_at: Some(pos),
        workers: None,
    };
    Some((def, gemini_name))
}

#[cfg(test)]
mod tests;
