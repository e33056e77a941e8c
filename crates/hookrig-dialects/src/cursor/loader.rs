//! Loader for Cursor's `hooks.json` files.
//!
//! Sources: the enterprise file (`/etc/cursor/hooks.json` on Linux; the path can be
//! moved with `HOOKRIG_CURSOR_ENTERPRISE_HOOKS`) and the user's `~/.cursor/hooks.json`
//! (global), and the project's `.cursor/hooks.json`, from the nearest directory along the
//! project walk that holds one (project level, untrusted until `hookrig trust`); beside
//! the user's and the project's file, the `hooks.hookrig.json` that `hookrig install`
//! moved their hooks into, read as part of that file. Every
//! source's hooks run, as in Cursor. A file that is not valid JSON, or whose `hooks` do
//! not have Cursor's shape, is skipped with an error naming its position; a bad entry in
//! a good file is skipped alone.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hookrig_config::{Lowering, did_you_mean};
use hookrig_core::{
    Diagnostic, Dialect, HookSpec, Level, Matcher, Mode, OnError, Severity, Source,
};
use hookrig_exec::CommandDef;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::events::{self, Subject};
use super::protocol::{CursorHook, CursorProtocol};
use crate::definition::HookDef;
use crate::loader::{LoadContext, MAX_DIAGNOSTICS, limit_diagnostics};
use crate::wire::Ordered;

/// The environment variable that moves the enterprise file (tests, and systems that keep
/// it elsewhere).
pub(crate) const ENTERPRISE_HOOKS_ENV: &str = "HOOKRIG_CURSOR_ENTERPRISE_HOOKS";

/// Where Cursor keeps the enterprise (MDM-managed) hooks on Linux.
pub(crate) const DEFAULT_ENTERPRISE_HOOKS: &str = "/etc/cursor/hooks.json";

/// Cursor's default `loop_limit` of a `stop` or `subagentStop` hook.
pub(crate) const DEFAULT_LOOP_LIMIT: u64 = 5;

/// The parallel group of Cursor hooks: Cursor runs every matching hook of an event and
/// merges their answers (deny over ask over allow).
pub(crate) const GROUP: &str = "cursor";

/// The keys of one hook entry Cursor documents.
const KEYS: &[&str] = &[
    "command",
    "type",
    "timeout",
    "matcher",
    "failClosed",
    "loop_limit",
    "prompt",
    "model",
];

/// What a file that cannot be read as Cursor's hooks is reported with.
const INVALID: &str = "invalid Cursor hooks file, file skipped: ";

/// One Cursor hooks file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layer {
    Enterprise,
    User,
    Project,
}

impl Layer {
    fn as_str(self) -> &'static str {
        match self {
            Layer::Enterprise => "enterprise",
            Layer::User => "user",
            Layer::Project => "project",
        }
    }

    fn level(self) -> Level {
        match self {
            Layer::Enterprise | Layer::User => Level::Global,
            Layer::Project => Level::Project,
        }
    }
}

/// The enterprise file: `$HOOKRIG_CURSOR_ENTERPRISE_HOOKS` when it is an absolute path (a
/// relative one could name a file of the project), else Cursor's Linux path.
pub(crate) fn enterprise_hooks_path() -> PathBuf {
    hookrig_config::absolute_var(std::env::var_os(ENTERPRISE_HOOKS_ENV))
        .unwrap_or_else(|| PathBuf::from(DEFAULT_ENTERPRISE_HOOKS))
}

/// Loads this dialect's sources of one level into `ctx`: enterprise before user (the
/// order of Cursor's priorities), then the project's file.
pub(crate) fn load(ctx: &mut LoadContext<'_>, level: Level) {
    let user = ctx.env.home.join(".cursor").join("hooks.json");
    let files = match level {
        Level::Global => vec![
            (enterprise_hooks_path(), Layer::Enterprise),
            (user.clone(), Layer::User),
            (crate::install::sidecar_of(&user), Layer::User),
        ],
        // The hooks `hookrig install` moved out of a hooks.json sit beside it in
        // hooks.hookrig.json, read as part of it.
        Level::Project => ctx
            .project
            .nearest_file(".cursor/hooks.json")
            .or_else(|| ctx.project.nearest_file(".cursor/hooks.hookrig.json"))
            .map(|path| {
                let hooks = path.with_file_name("hooks.json");
                vec![
                    (hooks.clone(), Layer::Project),
                    (crate::install::sidecar_of(&hooks), Layer::Project),
                ]
            })
            .unwrap_or_default(),
    };
    for (path, layer) in files {
        let Some(text) = ctx.read(&path) else {
            continue;
        };
        let first = ctx.diagnostics.len();
        match parse(&path, &text, layer, &mut ctx.diagnostics) {
            Ok(hooks) => ctx.hooks.extend(hooks),
            Err(diagnostic) => ctx.diagnostics.push(diagnostic),
        }
        limit_diagnostics(&path, &mut ctx.diagnostics, first);
    }
}

/// The directory a hook of `layer` declared in `path` runs in: the project root (the
/// directory holding `.cursor/`) for project hooks, the file's own directory for the
/// others (`~/.cursor/`, the enterprise config directory).
fn run_dir(path: &Path, layer: Layer) -> PathBuf {
    let dir = path.parent().unwrap_or(Path::new("/"));
    match layer {
        Layer::Project => dir.parent().unwrap_or(dir).to_owned(),
        Layer::Enterprise | Layer::User => dir.to_owned(),
    }
}

#[derive(Debug, Deserialize)]
struct RawFile<'a> {
    version: Option<&'a RawValue>,
    #[serde(borrow)]
    hooks: Option<&'a RawValue>,
}

/// Parses one hooks file. `Err` is the error that makes the whole file unusable; entries
/// that are wrong alone are reported in `diagnostics` and left out.
pub(crate) fn parse(
    path: &Path,
    text: &str,
    layer: Layer,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<Vec<HookDef>, Diagnostic> {
    let mut file = Lowering::new(path, text, diagnostics).with_place_limit(MAX_DIAGNOSTICS);
    let raw: RawFile<'_> = file.json(text, INVALID)?;
    match raw.version {
        None => file.report(
            Some(0),
            Severity::Warning,
            "`version` is missing; Cursor's hooks files declare `\"version\": 1`, and this one is read as such",
        ),
        Some(version) if version.get().trim() == "1" => {}
        Some(version) => {
            let at = file.offset_of(version.get());
            return Err(Diagnostic::at(
                path,
                text,
                Some(at),
                Severity::Error,
                format!(
                    "{INVALID}`version` is {}, and hookrig reads version 1 only",
                    version.get().trim()
                ),
            ));
        }
    }
    let mut hooks = Vec::new();
    let Some(raw_hooks) = raw.hooks else {
        return Ok(hooks);
    };
    let events: Ordered<&RawValue> = file.json(raw_hooks.get(), INVALID)?;
    for (event, entries_raw) in events.0 {
        let entries: Vec<&RawValue> = file.json(entries_raw.get(), INVALID)?;
        let at = file.offset_of(entries_raw.get());
        warn_unknown_event(&mut file, &event, at);
        for (index, entry_raw) in entries.into_iter().enumerate() {
            let pos = file.offset_of(entry_raw.get());
            let name = format!("cursor:{}:{event}:{}", layer.as_str(), index + 1);
            let entry: Ordered<&RawValue> = file.json(entry_raw.get(), INVALID)?;
            if let Some(def) = lower_entry(&mut file, &entry, &name, &event, layer, pos) {
                hooks.push(def);
            }
        }
    }
    Ok(hooks)
}

fn warn_unknown_event(file: &mut Lowering<'_>, event: &str, pos: usize) {
    if events::by_name(event).is_some() || crate::events::resolve(event).is_known() {
        return;
    }
    let hint = did_you_mean(event, events::EVENTS.iter().map(|e| e.name))
        .map(|known| format!("; did you mean `{known}`?"))
        .unwrap_or_default();
    file.report(
        Some(pos),
        Severity::Warning,
        format!("unknown Cursor event `{event}` is treated as a custom event{hint}"),
    );
}

/// One entry of a hooks file, with what its problems are reported with.
struct Entry<'e, 'a> {
    fields: &'e Ordered<&'a RawValue>,
    name: &'e str,
    event: &'e str,
    /// Where the entry starts: the place of a problem with a value it lacks.
    pos: usize,
}

impl Entry<'_, '_> {
    /// The raw value of `key`, `None` when the entry has no such key.
    fn raw(&self, key: &str) -> Option<&RawValue> {
        self.fields
            .0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| *v)
    }

    /// The value of `key` (its raw text and the value); `None` when absent.
    fn value(&self, key: &str) -> (Option<&RawValue>, Option<Value>) {
        let raw = self.raw(key);
        (
            raw,
            raw.and_then(|raw| serde_json::from_str(raw.get()).ok()),
        )
    }

    /// Reports an error at `raw` (the entry when `None`); the entry is skipped.
    fn error(&self, file: &mut Lowering<'_>, raw: Option<&RawValue>, message: &str) {
        let at = raw.map_or(self.pos, |raw| file.offset_of(raw.get()));
        file.report(
            Some(at),
            Severity::Error,
            format!("hook {}: {message}; the hook is skipped", self.name),
        );
    }

    /// Reports a warning at `raw` (the entry when `None`).
    fn warning(&self, file: &mut Lowering<'_>, raw: Option<&RawValue>, message: &str) {
        let at = raw.map_or(self.pos, |raw| file.offset_of(raw.get()));
        file.report(
            Some(at),
            Severity::Warning,
            format!("hook {}: {message}", self.name),
        );
    }
}

/// What an entry sets besides its command and matcher.
struct Options {
    timeout: Option<Duration>,
    fail_closed: bool,
    loop_limit: Option<u64>,
}

/// Lowers one entry; `None` when it cannot run (reported).
fn lower_entry(
    file: &mut Lowering<'_>,
    fields: &Ordered<&RawValue>,
    name: &str,
    event: &str,
    layer: Layer,
    pos: usize,
) -> Option<HookDef> {
    let entry = Entry {
        fields,
        name,
        event,
        pos,
    };
    for (key, value) in &fields.0 {
        if !KEYS.contains(&key.as_str()) {
            let hint = did_you_mean(key, KEYS.iter().copied())
                .map(|known| format!("; did you mean `{known}`?"))
                .unwrap_or_default();
            entry.warning(
                file,
                Some(value),
                &format!("unknown key `{key}` is ignored{hint}"),
            );
        }
    }
    let command = lower_command(file, &entry)?;
    let options = lower_options(file, &entry)?;
    let (matcher, matcher_field) = lower_matcher(file, &entry)?;
    let path = file.path().to_owned();
    Some(HookDef {
        spec: HookSpec {
            name: name.to_owned(),
            events: vec![crate::events::resolve(event)],
            matcher,
            priority: HookSpec::DEFAULT_PRIORITY,
            mode: Mode::Sync,
            enabled: true,
            // Cursor: a failing hook lets the action through unless `failClosed`.
            on_error: if options.fail_closed {
                OnError::Deny
            } else {
                OnError::Allow
            },
            source: Source {
                path: path.clone(),
                dialect: Dialect::Cursor,
                level: layer.level(),
            },
            description: None,
            timeout: options.timeout,
            group: Some(GROUP.to_owned()),
            matcher_field,
            untrusted: None,
            shadow: false,
            side_effects: true,
        },
        command,
        env: Vec::new(),
        protocol: Arc::new(CursorProtocol(CursorHook {
            event: event.to_owned(),
            dir: run_dir(&path, layer),
            fail_closed: options.fail_closed,
            loop_limit: options.loop_limit,
        })),
        declared_at: Some(pos),
        workers: None,
    })
}

/// The entry's `type` and `command`; `None` when it runs nothing hookrig can run.
fn lower_command(file: &mut Lowering<'_>, entry: &Entry<'_, '_>) -> Option<CommandDef> {
    match entry.value("type") {
        (_, None) => {}
        (_, Some(Value::String(kind))) if kind == "command" => {}
        (raw, Some(Value::String(kind))) if kind == "prompt" => {
            entry.warning(
                file,
                raw,
                "`type: \"prompt\"` hooks ask Cursor's own model, which hookrig cannot; the hook is skipped",
            );
            return None;
        }
        (raw, Some(other)) => {
            entry.error(
                file,
                raw,
                &format!("`type` is {other}; use \"command\" or \"prompt\""),
            );
            return None;
        }
    }
    let line = match entry.value("command") {
        (_, Some(Value::String(line))) if !line.trim().is_empty() => line,
        (raw, Some(Value::String(_)) | None) => {
            entry.error(file, raw, "`command` is missing or empty");
            return None;
        }
        (raw, Some(other)) => {
            entry.error(file, raw, &format!("`command` is {other}, not a string"));
            return None;
        }
    };
    let command = CommandDef::Shell { line, script: None };
    // The entry that makes hookrig Cursor's one hook is hookrig itself: running it from
    // here would call hookrig again, without end.
    (!command.calls_hookrig_emit()).then_some(command)
}

/// The entry's `timeout` (seconds), `failClosed` and `loop_limit`.
fn lower_options(file: &mut Lowering<'_>, entry: &Entry<'_, '_>) -> Option<Options> {
    let timeout = match entry.value("timeout") {
        (_, None | Some(Value::Null)) => None,
        (raw, Some(Value::Number(secs))) => match secs.as_f64().map(Duration::try_from_secs_f64) {
            Some(Ok(timeout)) if !timeout.is_zero() => Some(timeout),
            _ => {
                let message = format!("`timeout` {secs} is not a positive number of seconds");
                entry.error(file, raw, &message);
                return None;
            }
        },
        (raw, Some(other)) => {
            let message = format!("`timeout` is {other}, not a number of seconds");
            entry.error(file, raw, &message);
            return None;
        }
    };
    let fail_closed = match entry.value("failClosed") {
        (_, None | Some(Value::Null)) => false,
        (_, Some(Value::Bool(closed))) => closed,
        (raw, Some(other)) => {
            let message = format!("`failClosed` is {other}, not true or false");
            entry.error(file, raw, &message);
            return None;
        }
    };
    let loop_limit = match entry.value("loop_limit") {
        (_, None) => Some(DEFAULT_LOOP_LIMIT),
        (_, Some(Value::Null)) => None,
        (_, Some(Value::Number(n))) if n.as_u64().is_some() => n.as_u64(),
        (raw, Some(other)) => {
            let message = format!("`loop_limit` is {other}, not a whole number or null");
            entry.error(file, raw, &message);
            return None;
        }
    };
    Some(Options {
        timeout,
        fail_closed,
        loop_limit,
    })
}

/// The entry's matcher and the payload field it tests (`None`: the tool name); `None`
/// when the hook cannot or would never run (reported).
fn lower_matcher(
    file: &mut Lowering<'_>,
    entry: &Entry<'_, '_>,
) -> Option<(Matcher, Option<&'static str>)> {
    let (raw, value) = entry.value("matcher");
    let pattern = match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(pattern)) => pattern,
        Some(other) => {
            entry.error(file, raw, &format!("`matcher` is {other}, not a string"));
            return None;
        }
    };
    let event = entry.event;
    let matcher = match cursor_matcher(&pattern) {
        Err(message) => {
            entry.error(file, raw, &message);
            return None;
        }
        Ok(Matcher::Any) => return Some((Matcher::Any, None)),
        Ok(matcher) => matcher,
    };
    match events::by_name(event).map_or(Subject::Unknown, |e| e.subject) {
        Subject::Tool => Some((matcher, None)),
        Subject::Field(field) => Some((matcher, Some(field))),
        Subject::Fixed(value) if matcher.matches(Some(value)) => Some((Matcher::Any, None)),
        Subject::Fixed(value) => {
            let message = format!(
                "matcher `{pattern}` never matches: Cursor tests {event} matchers against `{value}`; the hook never runs"
            );
            entry.warning(file, raw, &message);
            None
        }
        Subject::Unknown => {
            let message = format!(
                "matcher `{pattern}` is ignored: Cursor documents no matcher for {event}, so this hook runs on every {event}"
            );
            entry.warning(file, raw, &message);
            Some((Matcher::Any, None))
        }
    }
}

/// Cursor's matcher rules: missing, `""` or `"*"` match everything; anything else is an
/// unanchored regex.
pub(crate) fn cursor_matcher(pattern: &str) -> Result<Matcher, String> {
    if matches!(pattern.trim(), "" | "*") {
        return Ok(Matcher::Any);
    }
    Matcher::regex(pattern).map_err(|err| {
        let detail = std::error::Error::source(&err)
            .map(ToString::to_string)
            .unwrap_or_default();
        let detail = detail.lines().last().unwrap_or_default().trim();
        let detail = detail.strip_prefix("error: ").unwrap_or(detail);
        format!("{err}: {detail}")
    })
}

#[cfg(test)]
mod tests {
    use indoc::indoc;
    use test_case::test_case;

    use super::*;

    fn parse_ok(text: &str, layer: Layer) -> (Vec<HookDef>, Vec<String>) {
        let mut diagnostics = Vec::new();
        let path = match layer {
            Layer::Project => "/p/.cursor/hooks.json",
            Layer::User => "/h/.cursor/hooks.json",
            Layer::Enterprise => "/etc/cursor/hooks.json",
        };
        let hooks =
            parse(Path::new(path), text, layer, &mut diagnostics).unwrap_or_else(|d| panic!("{d}"));
        (hooks, diagnostics.iter().map(ToString::to_string).collect())
    }

    fn parse_err(text: &str) -> String {
        parse(
            Path::new("/p/.cursor/hooks.json"),
            text,
            Layer::Project,
            &mut Vec::new(),
        )
        .expect_err("broken")
        .to_string()
    }

    fn protocol(def: &HookDef) -> &CursorHook {
        &def.protocol_as::<CursorProtocol>()
            .expect("a Cursor hook")
            .0
    }

    #[test_case("", "" ; "empty")]
    #[test_case("*", "" ; "star")]
    #[test_case("Shell|Read", "Shell|Read" ; "alternation")]
    #[test_case("curl|wget|nc ", "curl|wget|nc " ; "regex with a space")]
    fn matchers(pattern: &str, shown: &str) {
        assert_eq!(cursor_matcher(pattern).expect("valid").pattern(), shown);
    }

    #[test]
    fn a_matcher_is_an_unanchored_regex() {
        let m = cursor_matcher("curl|wget").expect("valid");
        assert!(m.matches(Some("sudo curl -s x")));
        assert!(!m.matches(Some("ls")));
        let m = cursor_matcher("^rm ").expect("valid");
        assert!(m.matches(Some("rm -rf /")));
        assert!(!m.matches(Some("echo rm ")));
    }

    #[test]
    fn entries_are_named_and_lowered() {
        let (hooks, diagnostics) = parse_ok(
            indoc! {r#"
                {
                  "version": 1,
                  "hooks": {
                    "beforeShellExecution": [
                      {"command": ".cursor/hooks/guard.sh", "matcher": "rm ", "timeout": 5, "failClosed": true},
                      {"command": "./audit.sh"}
                    ],
                    "preToolUse": [{"command": "./tool.sh", "matcher": "Shell"}],
                    "stop": [{"command": "./again.sh", "loop_limit": null}],
                    "subagentStop": [{"command": "./sub.sh", "loop_limit": 2}]
                  }
                }
            "#},
            Layer::Project,
        );
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let names: Vec<_> = hooks.iter().map(|h| h.spec.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "cursor:project:beforeShellExecution:1",
                "cursor:project:beforeShellExecution:2",
                "cursor:project:preToolUse:1",
                "cursor:project:stop:1",
                "cursor:project:subagentStop:1",
            ]
        );
        let guard = &hooks[0];
        assert_eq!(guard.spec.events[0].as_str(), "beforeShellExecution");
        assert_eq!(guard.spec.timeout, Some(Duration::from_secs(5)));
        assert_eq!(guard.spec.on_error, OnError::Deny);
        assert_eq!(guard.spec.matcher_field, Some("command"));
        assert_eq!(guard.spec.source.level, Level::Project);
        assert_eq!(guard.spec.group.as_deref(), Some(GROUP));
        assert_eq!(
            protocol(guard),
            &CursorHook {
                event: "beforeShellExecution".to_owned(),
                dir: PathBuf::from("/p"),
                fail_closed: true,
                loop_limit: Some(DEFAULT_LOOP_LIMIT),
            }
        );
        assert_eq!(hooks[1].spec.timeout, None);
        assert_eq!(hooks[1].spec.on_error, OnError::Allow);
        assert_eq!(hooks[2].spec.events[0].as_str(), "tool.before");
        assert_eq!(hooks[2].spec.matcher_field, None);
        assert_eq!(hooks[3].spec.events[0].as_str(), "turn.complete");
        assert_eq!(protocol(&hooks[3]).loop_limit, None);
        assert_eq!(protocol(&hooks[4]).loop_limit, Some(2));
    }

    #[test]
    fn user_and_enterprise_hooks_run_from_their_files_directory() {
        let text = r#"{"version": 1, "hooks": {"stop": [{"command": "./hooks/a.sh"}]}}"#;
        let (hooks, _) = parse_ok(text, Layer::User);
        assert_eq!(protocol(&hooks[0]).dir, PathBuf::from("/h/.cursor"));
        assert_eq!(hooks[0].spec.source.level, Level::Global);
        assert_eq!(hooks[0].spec.name, "cursor:user:stop:1");
        let (hooks, _) = parse_ok(text, Layer::Enterprise);
        assert_eq!(protocol(&hooks[0]).dir, PathBuf::from("/etc/cursor"));
        assert_eq!(hooks[0].spec.name, "cursor:enterprise:stop:1");
    }

    #[test]
    fn the_entry_that_calls_hookrig_is_not_loaded() {
        let (hooks, diagnostics) = parse_ok(
            r#"{"version": 1, "hooks": {"preToolUse": [
                {"command": "hookrig emit --dialect cursor"},
                {"command": "./check.sh"}
            ]}}"#,
            Layer::User,
        );
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let names: Vec<_> = hooks.iter().map(|h| h.spec.name.as_str()).collect();
        assert_eq!(names, ["cursor:user:preToolUse:2"]);
    }

    #[test]
    fn a_fixed_subject_decides_the_matcher_when_the_file_is_read() {
        let (hooks, diagnostics) = parse_ok(
            r#"{"version": 1, "hooks": {
                "stop": [{"command": "./a.sh", "matcher": "Stop"}, {"command": "./b.sh", "matcher": "Shell"}],
                "afterFileEdit": [{"command": "./c.sh", "matcher": "Write"}]
            }}"#,
            Layer::User,
        );
        let names: Vec<_> = hooks.iter().map(|h| h.spec.name.as_str()).collect();
        assert_eq!(names, ["cursor:user:stop:1", "cursor:user:afterFileEdit:1"]);
        assert!(hooks.iter().all(|h| matches!(h.spec.matcher, Matcher::Any)));
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    }

    #[test]
    fn syntax_error_names_line_and_column() {
        let text = "{\n  \"version\": 1,\n  \"hooks\": {\n    \"stop\": [,]\n  }\n}\n";
        assert_eq!(
            parse_err(text),
            "/p/.cursor/hooks.json:4:14: invalid Cursor hooks file, file skipped: expected value"
        );
    }

    #[test]
    fn another_version_is_refused_at_its_place() {
        let text = "{\n  \"version\": 2,\n  \"hooks\": {}\n}\n";
        assert_eq!(
            parse_err(text),
            "/p/.cursor/hooks.json:2:14: invalid Cursor hooks file, file skipped: `version` is 2, and hookrig reads version 1 only"
        );
    }

    #[test]
    fn hooks_of_the_wrong_shape_are_placed() {
        let text = "{\"version\": 1,\n \"hooks\": {\"stop\": {\"command\": \"x\"}}}\n";
        let err = parse_err(text);
        assert!(
            err.starts_with("/p/.cursor/hooks.json:2:") && err.contains("invalid type: map"),
            "{err}"
        );
    }

    #[test]
    fn bad_entries_are_skipped_alone_with_positions() {
        let (hooks, diagnostics) = parse_ok(
            indoc! {r#"
                {
                  "hooks": {
                    "beforeShellExecution": [
                      {"command": "./a.sh", "matcher": "("},
                      {"type": "prompt", "prompt": "Is this safe?"},
                      {"command": ""},
                      {"command": "./b.sh", "timeout": 0},
                      {"command": "./c.sh", "timeout": "ten"},
                      {"command": "./d.sh", "failClosed": "yes"},
                      {"command": "./e.sh", "loop_limit": -1},
                      {"command": "./f.sh", "type": "http"},
                      {"command": 5},
                      {"command": "./ok.sh", "failclosed": true}
                    ],
                    "beforeReadFile": [{"command": "./g.sh", "matcher": "secret"}],
                    "beforeShellExecute": []
                  }
                }
            "#},
            Layer::Project,
        );
        let names: Vec<_> = hooks.iter().map(|h| h.spec.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "cursor:project:beforeShellExecution:10",
                "cursor:project:beforeReadFile:1"
            ]
        );
        insta::assert_snapshot!(diagnostics.join("\n"));
    }
}
