//! hookrig's native `hooks.toml`: raw layer, then lowering into [`HookDef`]s.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hookrig_core::{Dialect, EventName, HookSpec, Level, Matcher, Mode, OnError, Source};
use serde::Deserialize;
use toml::Spanned;

use hookrig_config::{Lowering, did_you_mean, lexical_path};
use hookrig_exec::CommandDef;

use crate::definition::{HookDef, Settings};
use crate::loader::LoadContext;
use crate::native::NativeProtocol;
use hookrig_core::{Diagnostic, Severity};

/// The dialect name of native files.
pub(crate) const DIALECT: Dialect = Dialect::Native;

// Raw layer: exactly what the file says, with positions. Nothing downstream sees these.

#[derive(Debug, Deserialize)]
struct RawFile {
    settings: Option<RawSettings>,
    hooks: Option<Vec<Spanned<RawHook>>>,
}

#[derive(Debug, Deserialize)]
struct RawSettings {
    timeout: Option<Spanned<String>>,
    kill_grace: Option<Spanned<String>>,
    engine: Option<Spanned<String>>,
    engine_idle: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
struct RawHook {
    name: Option<Spanned<String>>,
    events: Option<Spanned<Vec<Spanned<String>>>>,
    matcher: Option<Spanned<String>>,
    command: Option<Spanned<String>>,
    exec: Option<Spanned<Vec<String>>>,
    url: Option<Spanned<String>>,
    secret_env: Option<Spanned<String>>,
    headers: Option<Spanned<BTreeMap<String, String>>>,
    timeout: Option<Spanned<String>>,
    on_error: Option<Spanned<String>>,
    mode: Option<Spanned<String>>,
    priority: Option<Spanned<i64>>,
    enabled: Option<bool>,
    shadow: Option<bool>,
    side_effects: Option<bool>,
    env: Option<Spanned<BTreeMap<String, String>>>,
    description: Option<String>,
    worker: Option<Spanned<bool>>,
    workers: Option<Spanned<i64>>,
}

/// Settings a file sets; unset keys leave the lower layer's value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct SettingsLayer {
    /// `Some(None)` is an explicit "no timeout" (`"0s"`), unlike an unset key.
    #[expect(clippy::option_option, reason = "unset differs from set to no timeout")]
    pub(crate) timeout: Option<Option<Duration>>,
    pub(crate) kill_grace: Option<Duration>,
}

impl SettingsLayer {
    pub(crate) fn apply(self, settings: &mut Settings) {
        if let Some(timeout) = self.timeout {
            settings.timeout = timeout;
        }
        if let Some(grace) = self.kill_grace {
            settings.kill_grace = grace;
        }
    }
}

/// A parsed native file: hooks whose `timeout` is `None` take the merged default later.
#[derive(Debug, Clone)]
pub(crate) struct NativeFile {
    pub(crate) hooks: Vec<(HookDef, bool)>,
    pub(crate) settings: SettingsLayer,
}

/// Parses one native `hooks.toml`.
///
/// Returns the hooks (each with whether it set its own timeout) and the file's settings,
/// or every error found. Warnings go to `warnings` either way.
pub fn parse_native(
    path: &Path,
    text: &str,
    level: Level,
    warnings: &mut Vec<Diagnostic>,
) -> Result<(Vec<HookDef>, Settings), Vec<Diagnostic>> {
    let file = parse_file(path, text, level, warnings)?;
    let mut settings = Settings::default();
    file.settings.apply(&mut settings);
    let hooks = file
        .hooks
        .into_iter()
        .map(|(mut def, own_timeout)| {
            if !own_timeout {
                def.spec.timeout = settings.timeout;
            }
            def
        })
        .collect();
    Ok((hooks, settings))
}

/// Loads the native `hooks.toml` of one level into `ctx`.
///
/// A file's `[settings]` apply to that file's hooks only: a project file starts from
/// the user's settings and changes nothing of the user's hooks, which have run with the
/// global file's settings whatever repository the agent is in.
pub(crate) fn load(ctx: &mut LoadContext<'_>, level: Level) {
    let path = match level {
        Level::Global => Some(ctx.env.global_native()),
        Level::Project => ctx.project.nearest_file(".hookrig/hooks.toml"),
    };
    let Some(path) = path else {
        return;
    };
    let Some(text) = ctx.read(&path) else {
        return;
    };
    match parse_file(&path, &text, level, &mut ctx.diagnostics) {
        Ok(file) => {
            let mut own = ctx.settings;
            file.settings.apply(&mut own);
            if level == Level::Global {
                ctx.settings = own;
            }
            for (mut def, own_timeout) in file.hooks {
                if !own_timeout {
                    def.spec.timeout = own.timeout;
                }
                ctx.hooks.push(def);
            }
            ctx.native_settings.push((path, own));
        }
        Err(errors) => ctx.diagnostics.extend(errors),
    }
}

pub(crate) fn parse_file(
    path: &Path,
    text: &str,
    level: Level,
    warnings: &mut Vec<Diagnostic>,
) -> Result<NativeFile, Vec<Diagnostic>> {
    let mut lowering = Lowering::new(path, text, warnings);
    let raw: RawFile = lowering
        .toml(KNOWN_KEYS)
        .map_err(|err| vec![lowering.toml_error(&err, Severity::Error, "")])?;
    let mut lower = Lower {
        lowering,
        level,
        dir: path.parent().unwrap_or(Path::new("/")),
    };
    let settings = lower.settings(raw.settings);
    let mut hooks = Vec::new();
    let mut names: HashMap<String, usize> = HashMap::new();
    for raw_hook in raw.hooks.unwrap_or_default() {
        let span = raw_hook.span();
        if let Some(def) = lower.hook(raw_hook.into_inner(), span.clone()) {
            // Offsets, not lines: counting lines for every hook would scan the file once
            // per hook. The line is only worked out for the error message.
            if let Some(first) = names.insert(def.0.spec.name.clone(), span.start) {
                let first = hookrig_core::line_col(text, first).0;
                lower.lowering.error(
                    span,
                    format!(
                        "duplicate hook name `{}` (first declared on line {first}); names must be unique in a file",
                        def.0.spec.name
                    ),
                );
                continue;
            }
            hooks.push(def);
        }
    }
    // Errors are found hook by hook, field by field; `finish` puts them in file order.
    lower
        .lowering
        .finish()
        .map(|()| NativeFile { hooks, settings })
}

/// The most workers one hook may keep.
const MAX_WORKERS: usize = 64;

pub(crate) const KNOWN_KEYS: &[&str] = &[
    "settings",
    "hooks",
    "timeout",
    "kill_grace",
    "engine",
    "engine_idle",
    "name",
    "events",
    "matcher",
    "command",
    "exec",
    "url",
    "secret_env",
    "headers",
    "on_error",
    "mode",
    "priority",
    "enabled",
    "shadow",
    "side_effects",
    "env",
    "description",
    "worker",
    "workers",
];

/// Lowers raw hooks of one file, collecting every error.
struct Lower<'a> {
    lowering: Lowering<'a>,
    level: Level,
    dir: &'a Path,
}

impl Lower<'_> {
    fn error(&mut self, span: Range<usize>, message: String) {
        self.lowering.error(span, message);
    }

    fn duration(&mut self, raw: &Spanned<String>, prefix: &str, what: &str) -> Option<Duration> {
        self.lowering.duration(raw, |_| {
            format!(
                "{prefix}invalid {what} `{}`; write a duration such as \"5s\", \"500ms\" or \"1m30s\"",
                raw.get_ref()
            )
        })
    }

    fn settings(&mut self, raw: Option<RawSettings>) -> SettingsLayer {
        let Some(raw) = raw else {
            return SettingsLayer::default();
        };
        // Read by `hookrig emit` itself (in the user's file only: which engine answers
        // is the user's choice); checked here so that a mistake is reported.
        if let Some(engine) = &raw.engine {
            let _ = self.lowering.choice(
                Some(engine),
                "auto",
                &[("auto", "auto"), ("on", "on"), ("off", "off")],
                Severity::Error,
                |other, _| format!("unknown engine `{other}`; use \"auto\", \"on\" or \"off\""),
            );
        }
        if let Some(idle) = &raw.engine_idle {
            let _ = self.duration(idle, "", "engine_idle");
        }
        SettingsLayer {
            timeout: raw
                .timeout
                .and_then(|t| self.duration(&t, "", "timeout"))
                .map(|t| (!t.is_zero()).then_some(t)),
            kill_grace: raw
                .kill_grace
                .and_then(|g| self.duration(&g, "", "kill_grace")),
        }
    }

    /// Lowers one hook; `None` when it has errors (already recorded). The flag says
    /// whether the hook set its own timeout.
    fn hook(&mut self, mut raw: RawHook, span: Range<usize>) -> Option<(HookDef, bool)> {
        let before = self.lowering.error_count();
        let name = match raw.name.take() {
            Some(name) if !name.get_ref().trim().is_empty() => name.into_inner(),
            Some(name) => {
                self.error(name.span(), "hook name is empty".to_owned());
                String::new()
            }
            None => {
                self.error(
                    span.clone(),
                    "hook has no `name`; add name = \"...\"".to_owned(),
                );
                String::new()
            }
        };
        let shown = if name.is_empty() {
            "(unnamed)"
        } else {
            name.as_str()
        };

        let command = self.command(&mut raw, &span, shown);
        let events = self.events(raw.events, &span, shown);
        let mode = self.mode(raw.mode.as_ref(), &events, &span, shown);
        let matcher = match raw.matcher {
            None => Matcher::Any,
            Some(m) => self
                .lowering
                .regex(&m, &format!("hook `{shown}`: "))
                .unwrap_or(Matcher::Any),
        };
        let on_error = self.on_error(raw.on_error.as_ref(), shown);
        let priority = match raw.priority {
            None => HookSpec::DEFAULT_PRIORITY,
            Some(p) => i32::try_from(*p.get_ref()).unwrap_or_else(|_| {
                self.error(
                    p.span(),
                    format!("hook `{shown}`: priority {} is out of range", p.get_ref()),
                );
                HookSpec::DEFAULT_PRIORITY
            }),
        };
        let workers = self.workers(
            raw.worker.as_ref(),
            raw.workers.as_ref(),
            command.as_ref(),
            shown,
        );
        let own_timeout = raw.timeout.is_some();
        let timeout = raw
            .timeout
            .and_then(|t| self.duration(&t, &format!("hook `{shown}`: "), "timeout"))
            .and_then(|t| (!t.is_zero()).then_some(t));

        if self.lowering.error_count() > before {
            return None;
        }
        let command = command?;
        Some((
            HookDef {
                spec: HookSpec {
                    name,
                    events,
                    matcher,
                    priority,
                    mode,
                    enabled: raw.enabled.unwrap_or(true),
                    on_error,
                    source: Source {
                        path: self.lowering.path().to_owned(),
                        dialect: DIALECT,
                        level: self.level,
                    },
                    description: raw.description,
                    timeout,
                    group: None,
                    matcher_field: None,
                    untrusted: None,
                    shadow: raw.shadow.unwrap_or(false),
                    side_effects: raw.side_effects.unwrap_or(true),
                },
                command,
                env: raw
                    .env
                    .map(Spanned::into_inner)
                    .unwrap_or_default()
                    .into_iter()
                    .collect(),
                protocol: Arc::new(NativeProtocol),
                declared_at: Some(span.start),
                workers,
            },
            own_timeout,
        ))
    }

    /// `worker = true` (and `workers = N`, 1 to 64): a command hook whose process is
    /// kept and answers one event per line. A webhook cannot be one.
    fn workers(
        &mut self,
        worker: Option<&Spanned<bool>>,
        workers: Option<&Spanned<i64>>,
        command: Option<&CommandDef>,
        shown: &str,
    ) -> Option<usize> {
        let on = worker.is_some_and(|w| *w.get_ref());
        if let Some(count) = workers
            && !on
        {
            self.error(
                count.span(),
                format!("hook `{shown}`: `workers` needs worker = true"),
            );
            return None;
        }
        if !on {
            return None;
        }
        if let (Some(CommandDef::Http { .. }), Some(worker)) = (command, worker) {
            self.error(
                worker.span(),
                format!("hook `{shown}`: a `url` hook cannot be a worker; use `command` or `exec`"),
            );
            return None;
        }
        let count = workers.map_or(Some(1), |count| {
            usize::try_from(*count.get_ref())
                .ok()
                .filter(|n| (1..=MAX_WORKERS).contains(n))
                .or_else(|| {
                    self.error(
                        count.span(),
                        format!(
                            "hook `{shown}`: workers = {} is out of range; use 1 to {MAX_WORKERS}",
                            count.get_ref()
                        ),
                    );
                    None
                })
        })?;
        Some(count)
    }

    fn on_error(&mut self, raw: Option<&Spanned<String>>, shown: &str) -> OnError {
        self.lowering
            .choice(
                raw,
                OnError::Allow,
                &[("allow", OnError::Allow), ("deny", OnError::Deny)],
                Severity::Error,
                |other, _| {
                    format!("hook `{shown}`: unknown on_error `{other}`; use \"allow\" or \"deny\"")
                },
            )
            .unwrap_or(OnError::Allow)
    }

    fn mode(
        &mut self,
        raw: Option<&Spanned<String>>,
        events: &[EventName],
        span: &Range<usize>,
        shown: &str,
    ) -> Mode {
        let mode = self
            .lowering
            .choice(
                raw,
                Mode::Sync,
                &[("sync", Mode::Sync), ("async", Mode::Async)],
                Severity::Error,
                |other, _| {
                    format!("hook `{shown}`: unknown mode `{other}`; use \"sync\" or \"async\"")
                },
            )
            .unwrap_or(Mode::Sync);
        if mode == Mode::Async {
            let mode_span = raw.map_or(span.clone(), Spanned::span);
            for event in events.iter().filter(|e| !e.async_allowed()) {
                self.error(
                    mode_span.clone(),
                    format!(
                        "hook `{shown}`: mode = \"async\" is not allowed on {} event {event}: nothing would wait for its answer; async hooks may listen only to notify events, tool.after and message.after",
                        event.kind()
                    ),
                );
            }
        }
        mode
    }

    fn events(
        &mut self,
        raw: Option<Spanned<Vec<Spanned<String>>>>,
        span: &Range<usize>,
        shown: &str,
    ) -> Vec<EventName> {
        let Some(raw) = raw else {
            self.error(
                span.clone(),
                format!("hook `{shown}` has no `events`; add events = [\"tool.before\"] (see `hookrig events`)"),
            );
            return Vec::new();
        };
        if raw.get_ref().is_empty() {
            self.error(raw.span(), format!("hook `{shown}`: `events` is empty"));
        }
        let mut events = Vec::new();
        for event in raw.into_inner() {
            let name = match crate::events::parse(event.get_ref()) {
                Ok(name) => name,
                Err(err) => {
                    // Not a custom event: the hook would never run on the event it names.
                    self.error(event.span(), format!("hook `{shown}`: {err}"));
                    continue;
                }
            };
            if let Some(known) = (!name.is_known())
                .then(|| did_you_mean(event.get_ref(), crate::events::all_names()))
                .flatten()
            {
                self.lowering.warning(
                    event.span(),
                    format!(
                        "hook `{shown}`: unknown event `{}` is treated as a custom notify event; did you mean `{known}`?",
                        event.get_ref()
                    ),
                );
            }
            events.push(name);
        }
        events
    }

    /// What the hook runs: `command`, `exec` or `url` (with the keys only a `url` hook
    /// may have), taken out of `raw`.
    fn command(
        &mut self,
        raw: &mut RawHook,
        span: &Range<usize>,
        shown: &str,
    ) -> Option<CommandDef> {
        let (command, exec, url) = (raw.command.take(), raw.exec.take(), raw.url.take());
        let (secret_env, headers) = (raw.secret_env.take(), raw.headers.take());
        // Exactly one of the three; the error points at the second one the file sets.
        let mut set: Vec<(&str, Range<usize>)> = [
            command.as_ref().map(|c| ("command", c.span())),
            exec.as_ref().map(|e| ("exec", e.span())),
            url.as_ref().map(|u| ("url", u.span())),
        ]
        .into_iter()
        .flatten()
        .collect();
        set.sort_by_key(|(_, span)| span.start);
        if let [(first, _), (second, second_span), ..] = set.as_slice() {
            self.error(
                second_span.clone(),
                format!("hook `{shown}` sets both `{first}` and `{second}`; keep one"),
            );
            return None;
        }
        if let Some(url) = url {
            if let Some(env) = &raw.env {
                self.error(
                    env.span(),
                    format!("hook `{shown}`: `env` applies only to `command` and `exec` hooks; a `url` hook runs no process"),
                );
                return None;
            }
            return self.webhook(&url, secret_env, headers, shown);
        }
        for (key, key_span) in [
            ("secret_env", secret_env.as_ref().map(Spanned::span)),
            ("headers", headers.as_ref().map(Spanned::span)),
        ] {
            if let Some(key_span) = key_span {
                self.error(
                    key_span,
                    format!("hook `{shown}`: `{key}` applies only to `url` hooks"),
                );
            }
        }
        match (command, exec) {
            (None, None) => {
                self.error(
                    span.clone(),
                    format!("hook `{shown}` has no `command`, `exec` or `url`; add command = \"./script.sh\", exec = [\"prog\", \"arg\"] or url = \"http://host/path\""),
                );
                None
            }
            // Both set was reported above.
            (Some(line), _) if line.get_ref().trim().is_empty() => {
                self.error(line.span(), format!("hook `{shown}`: `command` is empty"));
                None
            }
            (Some(line), _) => Some(resolve_shell(line.get_ref(), self.dir)),
            (None, Some(exec)) if exec.get_ref().first().is_none_or(String::is_empty) => {
                self.error(
                    exec.span(),
                    format!("hook `{shown}`: `exec` needs at least a program"),
                );
                None
            }
            (None, Some(exec)) => {
                let mut argv = exec.into_inner();
                if is_relative_path(&argv[0]) {
                    argv[0] = lexical_path(&self.dir.join(&argv[0]))
                        .to_string_lossy()
                        .into_owned();
                }
                Some(CommandDef::Exec { argv })
            }
        }
    }

    /// A `url` hook: the URL must be absolute http(s) with a host; headers must be valid
    /// HTTP and leave hookrig's own headers alone; `secret_env` must be a variable name.
    fn webhook(
        &mut self,
        url: &Spanned<String>,
        secret_env: Option<Spanned<String>>,
        headers: Option<Spanned<BTreeMap<String, String>>>,
        shown: &str,
    ) -> Option<CommandDef> {
        let before = self.lowering.error_count();
        if let Err(problem) = hookrig_config::check_url(url.get_ref()) {
            self.error(
                url.span(),
                format!("hook `{shown}`: invalid url `{}`: {problem}", url.get_ref()),
            );
        }
        let secret_env = secret_env.map(|name| {
            if let Err(problem) = hookrig_config::check_env_name(name.get_ref()) {
                self.error(
                    name.span(),
                    format!(
                        "hook `{shown}`: invalid secret_env `{}`: {problem}",
                        name.get_ref()
                    ),
                );
            }
            name.into_inner()
        });
        let headers = headers.map_or_else(Vec::new, |headers| {
            let span = headers.span();
            let headers: Vec<(String, String)> = headers.into_inner().into_iter().collect();
            for (name, value) in &headers {
                if let Err(problem) = hookrig_config::check_header(name, value) {
                    self.error(
                        span.clone(),
                        format!("hook `{shown}`: header `{name}`: {problem}"),
                    );
                }
            }
            headers
        });
        (self.lowering.error_count() == before).then(|| CommandDef::Http {
            url: url.get_ref().clone(),
            headers,
            secret_env,
        })
    }
}

/// A word that names a file relative to somewhere (`./x`, `scripts/x`), not a bare
/// command looked up in `PATH`.
fn is_relative_path(word: &str) -> bool {
    word.contains('/') && !word.starts_with('/') && !word.starts_with('~') && !word.starts_with('$')
}

/// Characters after which a first word is no longer a plain path the shell would run
/// as is (quotes, expansions, operators): such lines are left to the shell untouched.
const SHELL_SPECIAL: &[char] = &[
    '\'', '"', '\\', '$', '`', ';', '&', '|', '<', '>', '(', ')', '{', '}', '*', '?', '[', '#', '=',
];

/// Resolves the script a shell line starts with against `dir`.
fn resolve_shell(line: &str, dir: &Path) -> CommandDef {
    let trimmed = line.trim_start();
    let word_end = trimmed.find(char::is_whitespace).unwrap_or(trimmed.len());
    let (word, rest) = trimmed.split_at(word_end);
    if word.contains(SHELL_SPECIAL) || !word.contains('/') {
        return CommandDef::Shell {
            line: line.to_owned(),
            script: None,
        };
    }
    if word.starts_with('/') {
        return CommandDef::Shell {
            line: line.to_owned(),
            script: Some(PathBuf::from(word)),
        };
    }
    if !is_relative_path(word) {
        return CommandDef::Shell {
            line: line.to_owned(),
            script: None,
        };
    }
    let script = lexical_path(&dir.join(word));
    CommandDef::Shell {
        line: format!("{}{rest}", shell_quote(&script.to_string_lossy())),
        script: Some(script),
    }
}

/// Quotes `word` for `sh` when it needs it.
pub(crate) fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use indoc::indoc;

    use hookrig_config::parse_duration;

    use super::*;

    type Parsed = Result<(Vec<HookDef>, Settings), Vec<Diagnostic>>;

    fn parse(text: &str) -> (Parsed, Vec<Diagnostic>) {
        let mut warnings = Vec::new();
        let result = parse_native(
            Path::new("/p/.hookrig/hooks.toml"),
            text,
            Level::Project,
            &mut warnings,
        );
        (result, warnings)
    }

    fn errors(text: &str) -> Vec<String> {
        match parse(text).0 {
            Ok(_) => panic!("expected errors"),
            Err(errors) => errors.iter().map(ToString::to_string).collect(),
        }
    }

    #[test]
    fn worker_hooks_and_their_pool_size() {
        let hook = |extra: &str| {
            format!(
                "[[hooks]]\nname = \"w\"\nevents = [\"tool.before\"]\ncommand = \"./w.py\"\n{extra}"
            )
        };
        let workers = |extra: &str| match parse(&hook(extra)).0 {
            Ok((hooks, _)) => hooks[0].workers,
            Err(errors) => panic!("{errors:?}"),
        };
        assert_eq!(workers(""), None);
        assert_eq!(workers("worker = false\n"), None);
        assert_eq!(workers("worker = true\n"), Some(1));
        assert_eq!(workers("worker = true\nworkers = 4\n"), Some(4));
        assert_eq!(
            errors(&hook("workers = 2\n")),
            ["/p/.hookrig/hooks.toml:5:11: hook `w`: `workers` needs worker = true"]
        );
        assert_eq!(
            errors(&hook("worker = true\nworkers = 0\n")),
            ["/p/.hookrig/hooks.toml:6:11: hook `w`: workers = 0 is out of range; use 1 to 64"]
        );
        assert_eq!(
            errors(
                "[[hooks]]\nname = \"w\"\nevents = [\"tool.after\"]\nurl = \"https://example.invalid/h\"\nworker = true\n"
            ),
            [
                "/p/.hookrig/hooks.toml:5:10: hook `w`: a `url` hook cannot be a worker; use `command` or `exec`"
            ]
        );
    }

    #[test]
    fn full_hook() {
        let (result, warnings) = parse(indoc! {r#"
            [settings]
            timeout = "10s"
            kill_grace = "1s"

            [[hooks]]
            name = "no-env-writes"
            events = ["PreToolUse", "tool.after"]
            matcher = "write_file|edit"
            command = "./guard.sh --strict"
            on_error = "deny"
            priority = 5
            env = { KEY = "value" }
            description = "keeps secrets"

            [[hooks]]
            name = "log"
            events = ["session.start"]
            exec = ["python3", "log.py"]
            mode = "async"
            timeout = "0s"
        "#});
        assert!(warnings.is_empty(), "{warnings:?}");
        let (hooks, settings) = result.expect("valid");
        assert_eq!(settings.kill_grace, Duration::from_secs(1));
        let guard = &hooks[0];
        assert_eq!(guard.spec.events[0].as_str(), "tool.before");
        assert_eq!(guard.spec.on_error, OnError::Deny);
        assert_eq!(guard.spec.priority, 5);
        assert_eq!(guard.spec.timeout, Some(Duration::from_secs(10)));
        assert_eq!(
            guard.command,
            CommandDef::Shell {
                line: "/p/.hookrig/guard.sh --strict".into(),
                script: Some("/p/.hookrig/guard.sh".into()),
            }
        );
        assert_eq!(guard.env, [("KEY".to_owned(), "value".to_owned())]);
        let log = &hooks[1];
        assert_eq!(log.spec.mode, Mode::Async);
        assert_eq!(log.spec.timeout, None);
        assert_eq!(
            log.command,
            CommandDef::Exec {
                argv: vec!["python3".into(), "log.py".into()]
            }
        );
    }

    #[test]
    fn syntax_error_has_position() {
        let errors = errors("[[hooks]]\nname = \"x\nevents = []\n");
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0].starts_with("/p/.hookrig/hooks.toml:2:"),
            "{errors:?}"
        );
    }

    #[test]
    fn unknown_key_is_a_warning_with_position_and_suggestion() {
        let (result, warnings) = parse(indoc! {r#"
            [[hooks]]
            name = "x"
            events = ["tool.before"]
            comand = "true"
            exec = ["true"]
        "#});
        assert!(result.is_ok());
        assert_eq!(
            warnings[0].to_string(),
            "/p/.hookrig/hooks.toml:4:1: unknown key `comand` is ignored; did you mean `command`?"
        );
    }

    #[test]
    fn every_error_is_reported() {
        let errors = errors(indoc! {r#"
            [[hooks]]
            name = "a"
            events = ["tool.before"]
            command = "true"
            mode = "async"

            [[hooks]]
            name = "b"
            events = ["tool.before"]
            matcher = "(unclosed"
            timeout = "soon"
            command = "true"

            [[hooks]]
            name = "c"
            events = ["tool.before"]
        "#});
        assert_eq!(errors.len(), 4, "{errors:#?}");
        assert!(errors[0].starts_with("/p/.hookrig/hooks.toml:5:8: hook `a`: mode = \"async\" is not allowed on decision event tool.before"));
        assert_eq!(
            errors[1],
            "/p/.hookrig/hooks.toml:10:11: hook `b`: invalid matcher regex `(unclosed`: unclosed group"
        );
        assert!(
            errors[2].starts_with("/p/.hookrig/hooks.toml:11:11: hook `b`: invalid timeout `soon`")
        );
        assert!(errors[3].starts_with(
            "/p/.hookrig/hooks.toml:14:1: hook `c` has no `command`, `exec` or `url`"
        ));
    }

    #[test]
    fn url_hook() {
        let (result, warnings) = parse(indoc! {r#"
            [[hooks]]
            name = "audit"
            events = ["tool.before"]
            url = "https://hooks.example.com/audit?team=a"
            secret_env = "AUDIT_SECRET"
            headers = { Authorization = "Bearer x", "X-Team" = "a" }
            timeout = "2s"
            on_error = "deny"
        "#});
        assert!(warnings.is_empty(), "{warnings:?}");
        let (hooks, _) = result.expect("valid");
        assert_eq!(
            hooks[0].command,
            CommandDef::Http {
                url: "https://hooks.example.com/audit?team=a".into(),
                headers: vec![
                    ("Authorization".into(), "Bearer x".into()),
                    ("X-Team".into(), "a".into())
                ],
                secret_env: Some("AUDIT_SECRET".into()),
            }
        );
        assert_eq!(hooks[0].spec.timeout, Some(Duration::from_secs(2)));
        assert_eq!(hooks[0].spec.on_error, OnError::Deny);
        assert!(hooks[0].env.is_empty());
    }

    #[test]
    fn url_hook_errors_have_positions() {
        let errors = errors(indoc! {r#"
            [[hooks]]
            name = "both"
            events = ["tool.after"]
            command = "true"
            url = "http://127.0.0.1:1/h"

            [[hooks]]
            name = "relative"
            events = ["tool.after"]
            url = "example.com/hook"

            [[hooks]]
            name = "ftp"
            events = ["tool.after"]
            url = "ftp://example.com/"

            [[hooks]]
            name = "stray"
            events = ["tool.after"]
            command = "true"
            secret_env = "S"
            headers = { A = "b" }

            [[hooks]]
            name = "env"
            events = ["tool.after"]
            url = "http://127.0.0.1:1/h"
            env = { A = "b" }

            [[hooks]]
            name = "hdr"
            events = ["tool.after"]
            url = "http://127.0.0.1:1/h"
            secret_env = ""
            headers = { "X-Hookrig-Signature" = "forged" }

            [[hooks]]
            name = "three"
            events = ["tool.after"]
            exec = ["true"]
            url = "http://127.0.0.1:1/h"
            command = "true"
        "#});
        insta::assert_snapshot!(errors.join("\n"));
    }

    #[test]
    fn duplicate_names_in_one_file() {
        let errors = errors(indoc! {r#"
            [[hooks]]
            name = "a"
            events = ["x"]
            command = "true"
            [[hooks]]
            name = "a"
            events = ["x"]
            command = "true"
        "#});
        assert!(
            errors[0].contains("duplicate hook name `a` (first declared on line 1)"),
            "{errors:?}"
        );
    }

    #[test]
    fn wrong_type_has_position() {
        let errors = errors("[[hooks]]\nname = 3\n");
        assert!(
            errors[0].starts_with("/p/.hookrig/hooks.toml:2:8: "),
            "{errors:?}"
        );
    }

    // guards: a hook on an undeclared version (`tool.before@v2`) must not load as a
    // custom event that never runs
    #[test]
    fn undeclared_version_of_a_catalog_event_is_an_error() {
        let errors =
            errors("[[hooks]]\nname = \"a\"\nevents = [\"tool.before@v2\"]\ncommand = \"true\"\n");
        assert_eq!(
            errors,
            [
                "/p/.hookrig/hooks.toml:3:11: hook `a`: tool.before has no version v2 (dispatched versions: v1)"
            ]
        );
    }

    #[test]
    fn typo_in_event_warns() {
        let (result, warnings) =
            parse("[[hooks]]\nname = \"a\"\nevents = [\"tool.befor\"]\ncommand = \"true\"\n");
        let (hooks, _) = result.expect("valid");
        assert_eq!(hooks[0].spec.events[0].as_str(), "tool.befor");
        assert!(
            warnings[0].message.contains("did you mean `tool.before`?"),
            "{warnings:?}"
        );
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("100ms"), Ok(Duration::from_millis(100)));
        assert!(parse_duration("5").is_err());
    }

    #[test]
    fn shell_lines_resolve_only_plain_relative_scripts() {
        let dir = Path::new("/cfg dir");
        assert_eq!(
            resolve_shell("./guard.sh a b", dir),
            CommandDef::Shell {
                line: "'/cfg dir/guard.sh' a b".into(),
                script: Some("/cfg dir/guard.sh".into())
            }
        );
        assert_eq!(
            resolve_shell("true", dir),
            CommandDef::Shell {
                line: "true".into(),
                script: None
            }
        );
        assert_eq!(
            resolve_shell("FOO=1 ./x.sh", dir),
            CommandDef::Shell {
                line: "FOO=1 ./x.sh".into(),
                script: None
            }
        );
        assert_eq!(
            resolve_shell("/usr/bin/env x", dir),
            CommandDef::Shell {
                line: "/usr/bin/env x".into(),
                script: Some("/usr/bin/env".into())
            }
        );
    }
}
