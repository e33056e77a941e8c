//! Claude Code's hook protocol.
//!
//! Stdin: `session_id`, `transcript_path`, `cwd`, `hook_event_name` and, when the event
//! has them, `permission_mode` and every other field; tool events add `tool_name`,
//! `tool_input`, `tool_use_id` (when there is one) and `PostToolUse` `tool_response`.
//! Nothing is added that Claude Code would not send. Environment: the host's, plus
//! `CLAUDE_PROJECT_DIR`. Shell lines run with bash, as Claude Code runs them.
//!
//! Reply: exit 0 → stdout is Claude's JSON output when it is a JSON object, else plain
//! text (context on the events that take it); exit 2 → what the event's row in
//! `events.rs` says (a block with stderr as the reason, feedback to Claude, or a message
//! to the user); any other exit, a timeout or a crash → a non-blocking error.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use hookrig_core::{
    Action, Dialect, EventContext, Failure, FailureKind, Invocation, Reply, Stop, Verdict,
};
use hookrig_exec::process::{EnvPolicy, ProcessOutput};
use hookrig_exec::{Limits, Protocol};
use serde_json::{Map, Value, json};

use super::events::{self, Exit2};
use super::fields;
use super::loader::ClaudeHook;
use super::rule::{Call, Rule};
use super::wire::{HookInput, HookOutput, HookSpecificOutput};
use crate::native::cut;
use crate::protocol::DialectProtocol;
use crate::wire::Shaped;

/// Claude Code's protocol for one hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaudeProtocol(pub ClaudeHook);

impl Protocol for ClaudeProtocol {
    fn stdin(&self, hook: &str, invocation: &Invocation) -> Vec<u8> {
        stdin(&self.0, hook, invocation)
    }

    fn env(
        &self,
        hook: &str,
        invocation: &Invocation,
        configured: &[(String, String)],
    ) -> EnvPolicy {
        env(&self.0, hook, invocation, configured)
    }

    fn reply(
        &self,
        hook: &str,
        limits: &Limits,
        invocation: &Invocation,
        output: &ProcessOutput,
    ) -> Reply {
        reply(&self.0, hook, limits, invocation, output)
    }

    /// Claude Code reads an HTTP hook's 2xx body as JSON output when it is JSON, and as
    /// success when it is empty; a plain-text body is a non-blocking error (never
    /// context, as a command's plain stdout can be).
    fn http_reply(
        &self,
        hook: &str,
        _limits: &Limits,
        _invocation: &Invocation,
        output: &ProcessOutput,
    ) -> Option<Reply> {
        if output.stdout_truncated {
            return None;
        }
        match classify(&output.stdout) {
            Stdout::Text(_) => Some(Reply::Failure(Failure {
                kind: FailureKind::Malformed,
                message: format!(
                    "hook {hook}: the response body is plain text, not JSON output (a non-blocking error, as in Claude Code)"
                ),
            })),
            Stdout::Empty | Stdout::Json(_) | Stdout::Invalid(_) => None,
        }
    }

    /// Claude Code blocks a model switch whose hook it cancelled at its timeout, HTTP
    /// hooks included.
    fn http_failure(&self, _invocation: &Invocation, failure: Failure) -> Reply {
        timed_out_switch(&self.0, failure)
    }

    fn header_value(&self, value: &str, context: &EventContext) -> String {
        interpolate(value, &self.0.allowed_env_vars, |name| context.var(name))
    }

    /// Claude Code runs a hook's shell line with bash; hookrig does too, and falls back
    /// to `/bin/sh` only on a system without bash.
    fn shell(&self) -> OsString {
        bash().map_or_else(|| OsString::from("/bin/sh"), OsString::from)
    }

    /// Claude Code creates a plugin's data directory on its first reference.
    fn prepare(&self, _command: &hookrig_exec::CommandDef) -> Result<(), String> {
        let Some(plugin) = self.0.plugin.as_ref().filter(|p| p.uses_data) else {
            return Ok(());
        };
        std::fs::create_dir_all(&plugin.data).map_err(|err| {
            format!(
                "cannot create the plugin data directory {}: {err}",
                plugin.data.display()
            )
        })
    }

    fn runs_for(&self, invocation: &Invocation) -> bool {
        let Some(text) = &self.0.condition else {
            return true;
        };
        // A rule that does not parse was reported when the file was loaded; the hook
        // runs rather than being skipped without a word.
        let Ok(rule) = Rule::parse(text) else {
            return true;
        };
        let context = &invocation.context;
        let tool = invocation.payload.tool_name().unwrap_or("");
        let input = invocation
            .payload
            .as_map()
            .get("tool")
            .and_then(|t| t.get("input"));
        rule.matches(&Call {
            tool,
            input,
            cwd: &context.cwd,
            project_dir: self.0.project_dir.as_deref(),
            home: context.var("HOME").map(PathBuf::from),
        })
    }
}

/// Where bash is, looked for once on `PATH` (and in `/bin` and `/usr/bin`).
fn bash() -> Option<&'static Path> {
    static BASH: OnceLock<Option<PathBuf>> = OnceLock::new();
    BASH.get_or_init(|| {
        let path = std::env::var_os("PATH").unwrap_or_default();
        std::env::split_paths(&path)
            .chain([PathBuf::from("/bin"), PathBuf::from("/usr/bin")])
            .map(|dir| dir.join("bash"))
            .find(|candidate| {
                std::fs::metadata(candidate)
                    .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            })
    })
    .as_deref()
}

impl DialectProtocol for ClaudeProtocol {
    fn dialect(&self) -> Dialect {
        Dialect::Claude
    }

    /// The text hooks were first trusted with (the hook's fields as `Debug` writes
    /// them), and the `if` rule after it when there is one, since it decides when the
    /// hook runs.
    fn definition(&self) -> String {
        let ClaudeHook {
            event,
            project_dir,
            allowed_env_vars,
            managed,
            condition,
            plugin,
        } = &self.0;
        let mut text = format!(
            "Claude(ClaudeHook {{ event: {event:?}, project_dir: {project_dir:?}, allowed_env_vars: {allowed_env_vars:?}, managed: {managed:?} }})"
        );
        if let Some(rule) = condition {
            let _ = write!(text, " if {rule:?}");
        }
        // A plugin hook's definition names the plugin and the directory it runs from,
        // so that an update of the plugin (a new directory) asks for trust again where
        // trust is needed.
        if let Some(plugin) = plugin {
            let _ = write!(
                text,
                " plugin {:?} at {:?}",
                plugin.id,
                plugin.root.display().to_string()
            );
        }
        text
    }

    /// `$CLAUDE_PROJECT_DIR`, when the hook's project directory or `cwd` is known.
    fn line_variables(&self, cwd: Option<&Path>) -> Option<Vec<(&'static str, String)>> {
        let dir = self.0.project_dir.as_deref().or(cwd);
        Some(dir.map_or_else(Vec::new, |dir| {
            let dir = dir.to_string_lossy().into_owned();
            vec![
                ("${CLAUDE_PROJECT_DIR}", dir.clone()),
                ("$CLAUDE_PROJECT_DIR", dir),
            ]
        }))
    }
}

/// Claude Code's header interpolation: `$NAME` and `${NAME}` read the variable when the
/// hook lists it in `allowedEnvVars`, and are empty otherwise.
fn interpolate(
    value: &str,
    allowed: &[String],
    var: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> String {
    let lookup = |name: &str| {
        if allowed.iter().any(|a| a == name) {
            var(name).map_or_else(String::new, |v| v.to_string_lossy().into_owned())
        } else {
            String::new()
        }
    };
    let is_name = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(dollar) = rest.find('$') {
        out.push_str(&rest[..dollar]);
        let after = &rest[dollar + 1..];
        if let Some(braced) = after.strip_prefix('{')
            && let Some(end) = braced.find('}')
            && !braced[..end].is_empty()
            && braced[..end].chars().all(is_name)
        {
            out.push_str(&lookup(&braced[..end]));
            rest = &braced[end + 1..];
            continue;
        }
        let end = after.find(|c: char| !is_name(c)).unwrap_or(after.len());
        if end == 0 {
            out.push('$');
        } else {
            out.push_str(&lookup(&after[..end]));
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// Longest reason or message taken from stderr.
const REASON_CAP: usize = 1024;

/// Canonical payload fields that are presented under Claude's own names.
const PRESENTED: &[&str] = &[
    "event",
    "session",
    "tool",
    "session_id",
    "transcript_path",
    "cwd",
    "permission_mode",
    "hook_event_name",
    "tool_name",
    "tool_input",
    "tool_use_id",
    "tool_response",
    "prompt",
];

/// The hook input, as Claude Code sends it: the fields Claude Code sends with every
/// event (`session_id`, `transcript_path`, `cwd`, `hook_event_name`), the tool call's
/// fields on tool events, and every other field only when the event has it: nothing is
/// added that Claude Code did not send (no `permission_mode` on an event without one, no
/// empty `tool_use_id` on a permission request).
fn input(def: &ClaudeHook, invocation: &Invocation) -> HookInput {
    let context = &invocation.context;
    let payload = invocation.payload.as_map();
    let tool = payload.get("tool").and_then(Value::as_object);
    let tool_field = |key: &str| tool.and_then(|t| t.get(key)).cloned();

    let mut input = HookInput {
        session_id: Some(Value::String(context.session_id.clone())),
        transcript_path: Some(
            payload
                .get("transcript_path")
                .cloned()
                .unwrap_or_else(|| Value::String(String::new())),
        ),
        cwd: Some(Value::String(context.cwd.to_string_lossy().into_owned())),
        permission_mode: payload.get("permission_mode").cloned(),
        hook_event_name: Some(def.event.clone()),
        ..HookInput::default()
    };
    if events::by_name(&def.event).is_some_and(|e| e.tool) || tool.is_some() {
        let name = invocation.payload.tool_name().unwrap_or("").to_owned();
        input.tool_name = Some(Value::String(name));
        input.tool_input = Some(tool_field("input").unwrap_or_else(|| json!({})));
        input.tool_use_id = tool_field("call_id");
        if def.event == "PostToolUse" || tool_field("output").is_some() {
            input.tool_response = Some(tool_field("output").unwrap_or(Value::Null));
        }
    }
    input.prompt = payload.get("prompt").cloned();
    if def.event == "UserPromptSubmit" && input.prompt.is_none() {
        input.prompt = Some(Value::String(String::new()));
    }
    for (key, value) in payload {
        if !PRESENTED.contains(&key.as_str()) {
            input.rest.insert(key.clone(), value.clone());
        }
    }
    input
}

fn stdin(def: &ClaudeHook, _hook: &str, invocation: &Invocation) -> Vec<u8> {
    serde_json::to_vec(&input(def, invocation)).expect("the hook input always serializes")
}

fn env(
    def: &ClaudeHook,
    _hook: &str,
    invocation: &Invocation,
    configured: &[(String, String)],
) -> EnvPolicy {
    let project = def
        .project_dir
        .as_deref()
        .unwrap_or(&invocation.context.cwd);
    let mut set = configured.to_vec();
    set.push((
        "CLAUDE_PROJECT_DIR".to_owned(),
        project.to_string_lossy().into_owned(),
    ));
    if let Some(plugin) = &def.plugin {
        set.push((
            "CLAUDE_PLUGIN_ROOT".to_owned(),
            plugin.root.to_string_lossy().into_owned(),
        ));
        set.push((
            "CLAUDE_PLUGIN_DATA".to_owned(),
            plugin.data.to_string_lossy().into_owned(),
        ));
        set.extend(plugin.options.iter().cloned());
    }
    EnvPolicy::Inherit { set }
}

fn reply(
    def: &ClaudeHook,
    hook: &str,
    limits: &Limits,
    _invocation: &Invocation,
    output: &ProcessOutput,
) -> Reply {
    let failure = |kind, message: String| Reply::Failure(Failure { kind, message });
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stderr = cut(stderr.trim(), REASON_CAP);
    match crate::native::exit_code(hook, limits, &output.termination) {
        Err(failure) => timed_out_switch(def, failure),
        Ok(0) => {
            if output.stdout_truncated {
                return failure(
                    FailureKind::Malformed,
                    format!("hook {hook}: output is larger than the 1 MiB stdout cap"),
                );
            }
            if def.event == "WorktreeCreate"
                && let Stdout::Text(text) = classify(&output.stdout)
            {
                return Reply::Verdict(worktree_created(&text));
            }
            read_output(def, hook, &output.stdout)
        }
        // On the worktree events any other exit code is a failure of the creation or
        // the removal, which Claude Code then does not go on with.
        Ok(code) if matches!(def.event.as_str(), "WorktreeCreate" | "WorktreeRemove") => {
            let mut verdict = Verdict::allow();
            verdict.action = Action::Deny;
            verdict.reason = Some(if stderr.is_empty() {
                format!("hook {hook} exited {code}")
            } else {
                stderr.to_owned()
            });
            Reply::Verdict(verdict)
        }
        // A blocking error. Claude Code still reads valid JSON on stdout, but nothing in
        // it undoes the block: the reason is the JSON's own blocking reason, else
        // stderr. Where the event cannot be blocked, stderr goes to the user, or
        // nowhere.
        Ok(2) => {
            let reason = if stderr.is_empty() {
                format!("blocked by hook {hook}")
            } else {
                stderr.to_owned()
            };
            let event = event_of(def);
            let json = if output.stdout_truncated {
                None
            } else {
                valid_json(def, hook, &output.stdout)
            };
            let mut verdict = json.unwrap_or_else(Verdict::allow);
            match event.exit2 {
                Exit2::Blocks | Exit2::ToClaude => {
                    if verdict.action != Action::Deny {
                        verdict.action = Action::Deny;
                        verdict.reason = Some(reason);
                    }
                    verdict.patch = None;
                    verdict.context = None;
                }
                Exit2::ToUser => verdict.warnings.push(format!("hook {hook}: {reason}")),
                Exit2::Ignored => {}
            }
            Reply::Verdict(verdict)
        }
        // Any other code: JSON that Claude Code reads decides alone, and the hook is not
        // an error; JSON it cannot read is a non-blocking error, and so is plain text
        // or nothing.
        Ok(code) => {
            if !output.stdout_truncated {
                match classify(&output.stdout) {
                    Stdout::Json(map) => {
                        return match serde_json::from_value::<HookOutput>(Value::Object(map)) {
                            Ok(json) => read_json(def, hook, json),
                            Err(err) => failure(
                                FailureKind::Malformed,
                                format!(
                                    "hook {hook} exited {code}: its JSON output is not Claude Code's: {err}"
                                ),
                            ),
                        };
                    }
                    Stdout::Invalid(message) => {
                        return failure(
                            FailureKind::Malformed,
                            format!("hook {hook} exited {code}: {message}"),
                        );
                    }
                    Stdout::Empty | Stdout::Text(_) => {}
                }
            }
            if stderr.is_empty() {
                failure(FailureKind::Exit, format!("hook {hook} exited {code}"))
            } else {
                failure(
                    FailureKind::Exit,
                    format!("hook {hook} exited {code}: {stderr}"),
                )
            }
        }
    }
}

/// A hook's failure: Claude Code blocks a model switch whose hook it cancelled at its
/// timeout; on every other event, and for every other failure, a failed hook decides
/// nothing (a non-blocking error).
fn timed_out_switch(def: &ClaudeHook, failure: Failure) -> Reply {
    if failure.kind == FailureKind::Timeout && def.event == "PreModelSwitch" {
        let mut verdict = Verdict::allow();
        verdict.action = Action::Deny;
        verdict.reason = Some(failure.message);
        return Reply::Verdict(verdict);
    }
    Reply::Failure(failure)
}

/// A `WorktreeCreate` command hook that exited 0 with plain text: the worktree it created
/// is the last non-empty line, answered as an HTTP hook answers it
/// (`hookSpecificOutput.worktreePath`), from which the host mode prints it.
fn worktree_created(text: &str) -> Verdict {
    let mut verdict = Verdict::allow();
    if let Some(path) = text.lines().map(str::trim).rfind(|line| !line.is_empty()) {
        verdict.answer = Some(Box::new(json!({
            "hookSpecificOutput": {"hookEventName": "WorktreeCreate", "worktreePath": path}
        })));
    }
    verdict
}

/// What a hook printed on stdout, as Claude Code tells it apart (ignoring surrounding
/// whitespace): text that starts with `{` and ends with `}` is JSON, or a parse failure;
/// anything else (a JSON array or string included) is plain text.
#[derive(Debug)]
enum Stdout {
    Empty,
    Text(String),
    Json(Map<String, Value>),
    /// Text Claude Code parses as JSON and cannot read: why.
    Invalid(String),
}

/// The fields of Claude Code's JSON output that a line can set.
const OUTPUT_FIELDS: &[&str] = &[
    "continue",
    "stopReason",
    "suppressOutput",
    "systemMessage",
    "terminalSequence",
    "decision",
    "reason",
    "hookSpecificOutput",
];

fn classify(stdout: &[u8]) -> Stdout {
    let text = String::from_utf8_lossy(stdout);
    let text = text.trim();
    if text.is_empty() {
        return Stdout::Empty;
    }
    if !(text.starts_with('{') && text.ends_with('}')) {
        return Stdout::Text(text.to_owned());
    }
    let err = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => return Stdout::Json(map),
        Ok(_) => return Stdout::Text(text.to_owned()),
        Err(err) => err,
    };
    // Two or more lines that each parse as JSON are plain text, unless one of them is
    // an output object that sets a field: then the whole output is a parse failure.
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.len() >= 2
        && let Some(values) = lines
            .iter()
            .map(|line| serde_json::from_str::<Value>(line).ok())
            .collect::<Option<Vec<Value>>>()
        && !values.iter().any(|value| {
            value
                .as_object()
                .is_some_and(|map| OUTPUT_FIELDS.iter().any(|field| map.contains_key(*field)))
        })
    {
        return Stdout::Text(text.to_owned());
    }
    Stdout::Invalid(format!("stdout is not valid JSON: {err}"))
}

/// The verdict of a hook's stdout when it is JSON Claude Code reads (valid, and of its
/// output schema); `None` otherwise. On the elicitation events an exit-2 hook's
/// `hookSpecificOutput` is not read.
fn valid_json(def: &ClaudeHook, hook: &str, stdout: &[u8]) -> Option<Verdict> {
    let Stdout::Json(mut map) = classify(stdout) else {
        return None;
    };
    if matches!(def.event.as_str(), "Elicitation" | "ElicitationResult") {
        map.remove("hookSpecificOutput");
    }
    let json = serde_json::from_value::<HookOutput>(Value::Object(map)).ok()?;
    match read_json(def, hook, json) {
        Reply::Verdict(verdict) => Some(verdict),
        Reply::Failure(_) => None,
    }
}

/// The table row of the hook's event; an event Claude Code does not have (a custom
/// one) is treated as one it cannot block, with no matcher and no context.
pub(crate) fn event_of(def: &ClaudeHook) -> &'static events::ClaudeEvent {
    events::by_name(&def.event).unwrap_or(&CUSTOM)
}

/// What a custom event is to Claude's rules.
static CUSTOM: events::ClaudeEvent = events::ClaudeEvent {
    name: "",
    canonical: None,
    tool: false,
    matched_field: None,
    reads_context: false,
    text_context: false,
    exit2: Exit2::ToUser,
    timeout: None,
};

/// Reads what a hook printed on success (a command's stdout, an HTTP hook's 2xx body).
///
/// Claude Code reads stdout that starts with `{` and ends with `}` as its JSON output;
/// JSON it cannot parse, or that does not fit its output schema, is a non-blocking
/// error (and never context). Other text is plain text: context on the events that take
/// it.
fn read_output(def: &ClaudeHook, hook: &str, stdout: &[u8]) -> Reply {
    let malformed = |message: String| {
        Reply::Failure(Failure {
            kind: FailureKind::Malformed,
            message: format!("hook {hook}: {message}"),
        })
    };
    match classify(stdout) {
        Stdout::Empty => Reply::Verdict(Verdict::allow()),
        Stdout::Json(map) => match serde_json::from_value::<HookOutput>(Value::Object(map)) {
            Ok(output) => read_json(def, hook, output),
            Err(err) => malformed(format!("its JSON output is not Claude Code's: {err}")),
        },
        Stdout::Invalid(message) => malformed(message),
        Stdout::Text(text) => {
            let mut verdict = Verdict::allow();
            if event_of(def).text_context {
                verdict.context = Some(fields::capped(text));
            }
            Reply::Verdict(verdict)
        }
    }
}

/// Claude Code's JSON output, read into a verdict.
///
/// The verdict carries what every dialect's host understands (deny, ask, a changed tool
/// input, context); the output itself goes along as the verdict's `answer`, from which
/// the claude host mode answers what only Claude Code has words for: an explicit allow
/// or defer, `continue: false` with its `stopReason` (which stops Claude, and is not a
/// deny of the event), `suppressOutput`, a permission request's decision.
fn read_json(def: &ClaudeHook, hook: &str, mut output: HookOutput) -> Reply {
    let malformed = |message: String| {
        Reply::Failure(Failure {
            kind: FailureKind::Malformed,
            message: format!("hook {hook}: {message}"),
        })
    };
    let event = event_of(def);
    // What the event does not take is dropped here, as Claude Code drops it; a custom
    // event (one Claude Code does not have) keeps every field.
    if events::by_name(&def.event).is_some() {
        fields::drop_unread(&def.event, &mut output);
    }
    output.system_message = output.system_message.take().map(fields::capped);
    let mut verdict = Verdict::allow();
    if let Some(message) = output.system_message.as_ref().filter(|m| !m.is_empty()) {
        verdict.warnings.push(format!("hook {hook}: {message}"));
    }
    match output.decision.as_deref() {
        // `approve` is the old spelling of PreToolUse's `allow` (the host mode reads it
        // from the answer), and means nothing on the other events; Claude Code reads
        // `block` only where the event can be blocked.
        None | Some("approve") => {}
        Some("block") if !event.exit2.answers_block() => {}
        Some("block") => {
            verdict.action = Action::Deny;
            verdict.reason = Some(
                output
                    .reason
                    .clone()
                    .unwrap_or_else(|| format!("blocked by hook {hook}")),
            );
        }
        Some(other) => verdict.warnings.push(format!(
            "hook {hook}: unknown decision `{other}` ignored (expected \"block\")"
        )),
    }

    if let Some(specific) = output.hook_specific_output.take() {
        let Shaped::Typed(specific) = specific else {
            return malformed("`hookSpecificOutput` must be an object".to_owned());
        };
        match read_specific(def, hook, &specific, &mut verdict) {
            Ok(()) => output.hook_specific_output = Some(Shaped::Typed(specific)),
            Err(message) => return malformed(message),
        }
    }

    if verdict.action == Action::Deny {
        verdict.context = None;
    }
    // `continue: false` stops Claude on every event, whatever else the hook answered.
    if output.proceed == Some(false) {
        verdict.stop = Some(Stop {
            reason: output.stop_reason.clone(),
        });
    }
    verdict.answer = serde_json::to_value(&output).ok().map(Box::new);
    Reply::Verdict(verdict)
}

/// `hookSpecificOutput`, read into `verdict`; the error is why it is malformed.
fn read_specific(
    def: &ClaudeHook,
    hook: &str,
    specific: &HookSpecificOutput,
    verdict: &mut Verdict,
) -> Result<(), String> {
    match specific.hook_event_name.as_deref() {
        Some(name) if name == def.event => {}
        Some(name) => {
            return Err(format!(
                "hookSpecificOutput.hookEventName is `{name}`, expected `{}`",
                def.event
            ));
        }
        None => {
            return Err("hookSpecificOutput needs `hookEventName`".to_owned());
        }
    }
    let reason = specific.permission_decision_reason.clone();
    if verdict.action != Action::Deny {
        match specific.permission_decision.as_deref() {
            // An explicit allow and a defer let the chain go on; the host mode reads
            // them from the answer. A model switch cannot be deferred.
            None | Some("allow") => {}
            Some("defer") if def.event != "PreModelSwitch" => {}
            Some("deny") => {
                verdict.action = Action::Deny;
                verdict.reason = Some(reason.unwrap_or_else(|| format!("denied by hook {hook}")));
            }
            Some("ask") => {
                verdict.action = Action::Ask;
                verdict.reason = reason;
            }
            Some(other) if def.event == "PreModelSwitch" => {
                return Err(format!(
                    "unknown permissionDecision `{other}` (expected allow, deny or ask)"
                ));
            }
            Some(other) => {
                return Err(format!(
                    "unknown permissionDecision `{other}` (expected allow, deny, ask or defer)"
                ));
            }
        }
    }
    if let Some(decision) = &specific.decision {
        let Shaped::Typed(decision) = decision else {
            return Err("`decision` must be an object".to_owned());
        };
        match decision.behavior.as_deref() {
            Some("allow") => {}
            Some("deny") if verdict.action == Action::Deny => {}
            Some("deny") => {
                verdict.action = Action::Deny;
                verdict.reason = Some(
                    decision
                        .message
                        .clone()
                        .unwrap_or_else(|| format!("denied by hook {hook}")),
                );
            }
            _ => return Err("`decision.behavior` must be \"allow\" or \"deny\"".to_owned()),
        }
    }
    if let Some(context) = &specific.additional_context {
        verdict.context = Some(fields::capped(context.clone()));
    }
    let mut patch = Map::new();
    match &specific.updated_input {
        None => {}
        Some(Value::Object(input)) => {
            patch.insert("input".to_owned(), Value::Object(input.clone()));
        }
        Some(_) => return Err("`updatedInput` must be an object".to_owned()),
    }
    if let Some(output) = specific
        .updated_tool_output
        .as_ref()
        .or(specific.updated_mcp_tool_output.as_ref())
    {
        patch.insert("output".to_owned(), output.clone());
    }
    if !patch.is_empty() {
        match verdict.action {
            Action::Allow | Action::Modify => {
                verdict.action = Action::Modify;
                let mut tool = Map::new();
                tool.insert("tool".to_owned(), Value::Object(patch));
                verdict.patch = Some(tool);
            }
            // Claude Code applies `updatedInput` with `ask` too: the user is asked about
            // the changed call. The host mode answers it from the answer.
            Action::Ask => {}
            Action::Deny => verdict.warnings.push(format!(
                "hook {hook}: updated tool input ignored because the decision is `deny`"
            )),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;
    use std::time::Duration;

    use hookrig_core::{EventContext, Payload};

    use super::*;

    fn def(event: &str) -> ClaudeHook {
        ClaudeHook {
            event: event.to_owned(),
            ..ClaudeHook::default()
        }
    }

    fn out(code: i32, stdout: &str, stderr: &str) -> ProcessOutput {
        ProcessOutput {
            termination: hookrig_exec::Termination::Exited(code),
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
            stdout_truncated: false,
            stderr_truncated: false,
            leaked: false,
            leftovers: hookrig_exec::Leftovers::default(),
            duration: Duration::from_millis(1),
        }
    }

    fn invocation(event: &str, payload: Value) -> Invocation {
        let Value::Object(map) = payload else {
            panic!("object")
        };
        Invocation {
            context: Arc::new(EventContext {
                name: crate::events::resolve(event),
                session_id: "s1".into(),
                cwd: PathBuf::from("/w"),
                env: None,
            }),
            payload: Payload::from_map(map),
        }
    }

    fn read(event: &str, code: i32, stdout: &str, stderr: &str) -> Reply {
        reply(
            &def(event),
            "h",
            &Limits::default(),
            &invocation(event, json!({})),
            &out(code, stdout, stderr),
        )
    }

    fn verdict(reply: Reply) -> Verdict {
        match reply {
            Reply::Verdict(v) => v,
            Reply::Failure(f) => panic!("expected a verdict, got {f:?}"),
        }
    }

    #[test]
    fn plain_text_is_context_only_where_claude_adds_it() {
        let v = verdict(read("UserPromptSubmit", 0, "today is monday\n", ""));
        assert_eq!(v.context.as_deref(), Some("today is monday"));
        let v = verdict(read("PreToolUse", 0, "debug noise", ""));
        assert_eq!((v.action, v.context), (Action::Allow, None));
    }

    #[test]
    fn exit_codes() {
        let v = verdict(read("PreToolUse", 2, "", "no\n"));
        assert_eq!((v.action, v.reason.as_deref()), (Action::Deny, Some("no")));
        match read("PreToolUse", 1, "", "oops") {
            Reply::Failure(f) => assert_eq!(f.message, "hook h exited 1: oops"),
            Reply::Verdict(v) => panic!("{v:?}"),
        }
    }

    #[test]
    fn json_fields() {
        let v = verdict(read(
            "PreToolUse",
            0,
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?"},"systemMessage":"hi"}"#,
            "",
        ));
        assert_eq!(
            (v.action, v.reason.as_deref()),
            (Action::Ask, Some("sure?"))
        );
        assert_eq!(v.warnings, ["hook h: hi"]);
        let v = verdict(read(
            "PreToolUse",
            0,
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"ls"}}}"#,
            "",
        ));
        assert_eq!(v.action, Action::Modify);
        assert_eq!(
            Value::Object(v.patch.expect("patch")),
            json!({"tool": {"input": {"command": "ls"}}})
        );
        let v = verdict(read(
            "UserPromptSubmit",
            0,
            r#"{"decision":"block","reason":"secret"}"#,
            "",
        ));
        assert_eq!(
            (v.action, v.reason.as_deref()),
            (Action::Deny, Some("secret"))
        );
        let v = verdict(read(
            "PreToolUse",
            0,
            r#"{"continue":false,"stopReason":"halt","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#,
            "",
        ));
        // `continue: false` stops Claude; it is not a deny of the tool call, and goes to
        // the host mode in the answer.
        assert_eq!((v.action, v.reason.as_deref()), (Action::Allow, None));
        assert_eq!(
            v.answer
                .as_ref()
                .map(|a| (&a["continue"], &a["stopReason"])),
            Some((&json!(false), &json!("halt")))
        );
        match read(
            "PreToolUse",
            0,
            r#"{"hookSpecificOutput":{"hookEventName":"SessionStart"}}"#,
            "",
        ) {
            Reply::Failure(f) => assert_eq!(f.kind, FailureKind::Malformed),
            Reply::Verdict(v) => panic!("{v:?}"),
        }
    }

    fn failure(reply: Reply) -> Failure {
        match reply {
            Reply::Failure(f) => f,
            Reply::Verdict(v) => panic!("expected a failure, got {v:?}"),
        }
    }

    // Claude Code reads stdout as JSON on every exit code: exit 2 blocks whatever the
    // JSON says (its blocking reason first, else stderr); any other code with valid JSON
    // is decided by the JSON alone; JSON it cannot read is a non-blocking error.
    #[test]
    fn json_on_every_exit_code() {
        const DENY: &str = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"json says no"}}"#;
        const ALLOW: &str = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"},"systemMessage":"hi"}"#;
        let v = verdict(read("PreToolUse", 2, DENY, "stderr says no"));
        assert_eq!(
            (v.action, v.reason.as_deref()),
            (Action::Deny, Some("json says no"))
        );
        let v = verdict(read("PreToolUse", 2, ALLOW, "stderr says no"));
        assert_eq!(
            (v.action, v.reason.as_deref()),
            (Action::Deny, Some("stderr says no"))
        );
        assert_eq!(v.warnings, ["hook h: hi"]);
        let v = verdict(read("PreToolUse", 2, r#"{"hookSpecificOutput":5}"#, "no"));
        assert_eq!((v.action, v.reason.as_deref()), (Action::Deny, Some("no")));
        let v = verdict(read("PreToolUse", 1, DENY, "oops"));
        assert_eq!(
            (v.action, v.reason.as_deref()),
            (Action::Deny, Some("json says no"))
        );
        let f = failure(read("PreToolUse", 1, r#"{"decision": }"#, "oops"));
        assert_eq!(f.kind, FailureKind::Malformed);
        assert!(
            f.message
                .starts_with("hook h exited 1: stdout is not valid JSON"),
            "{f:?}"
        );
        let f = failure(read("PreToolUse", 3, "plain", "oops"));
        assert_eq!(
            (f.kind, f.message.as_str()),
            (FailureKind::Exit, "hook h exited 3: oops")
        );
    }

    #[test_case::test_case("{\"a\": }", false ; "braces but invalid")]
    #[test_case::test_case("{\"a\": 1}\n{\"b\": 2}", true ; "lines of json setting nothing")]
    #[test_case::test_case("{\"a\": 1}\n{\"systemMessage\": \"x\"}", false ; "lines one of which sets a field")]
    fn text_that_claude_code_parses_as_json(stdout: &str, plain: bool) {
        match read("UserPromptSubmit", 0, stdout, "") {
            Reply::Verdict(v) if plain => assert_eq!(v.context.as_deref(), Some(stdout)),
            Reply::Failure(f) if !plain => assert_eq!(f.kind, FailureKind::Malformed),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn exit_2_where_claude_code_ignores_it() {
        // A permission request is not denied by exit 2: the permission flow goes on.
        let v = verdict(read("PermissionRequest", 2, "", "no"));
        assert_eq!((v.action, v.warnings.len()), (Action::Allow, 0));
        let v = verdict(read("Notification", 2, "", "no"));
        assert_eq!((v.action, v.warnings.len()), (Action::Allow, 0));
        let v = verdict(read("SessionStart", 2, "", "no"));
        assert_eq!(v.warnings, ["hook h: no"]);
    }

    // An HTTP hook's 2xx body: JSON and an empty body are read as a command's stdout
    // (`None`), plain text is a non-blocking error even where a command's plain stdout
    // is context.
    #[test]
    fn http_bodies_of_plain_text_are_non_blocking_errors() {
        let protocol = ClaudeProtocol(def("UserPromptSubmit"));
        let http = |body: &str| {
            protocol.http_reply(
                "h",
                &Limits::default(),
                &invocation("UserPromptSubmit", json!({})),
                &out(0, body, ""),
            )
        };
        assert!(http("").is_none());
        assert!(http(r#"{"decision":"block","reason":"no"}"#).is_none());
        let f = failure(http("branch: main").expect("a failure"));
        assert_eq!(f.kind, FailureKind::Malformed);
    }

    #[test]
    fn a_model_switch_hook_that_times_out_blocks() {
        let timed_out = ProcessOutput {
            termination: hookrig_exec::Termination::TimedOut {
                after: Duration::from_secs(30),
                killed: true,
            },
            ..out(0, "", "")
        };
        let limits = Limits {
            timeout: Some(Duration::from_secs(30)),
            ..Limits::default()
        };
        let reply_on = |event: &str| {
            reply(
                &def(event),
                "h",
                &limits,
                &invocation(event, json!({})),
                &timed_out,
            )
        };
        let v = verdict(reply_on("PreModelSwitch"));
        assert_eq!(
            (v.action, v.reason.as_deref()),
            (Action::Deny, Some("hook h timed out after 30s"))
        );
        assert_eq!(failure(reply_on("PreToolUse")).kind, FailureKind::Timeout);
    }

    #[test]
    fn worktree_hooks() {
        let v = verdict(read("WorktreeCreate", 0, "made it\n/w/x\n\n", ""));
        assert_eq!(
            v.answer.as_deref(),
            Some(
                &json!({"hookSpecificOutput": {"hookEventName": "WorktreeCreate", "worktreePath": "/w/x"}})
            )
        );
        let v = verdict(read("WorktreeCreate", 1, "/w/x", "no space\n"));
        assert_eq!(
            (v.action, v.reason.as_deref()),
            (Action::Deny, Some("no space"))
        );
        let v = verdict(read("WorktreeRemove", 3, "", ""));
        assert_eq!(
            (v.action, v.reason.as_deref()),
            (Action::Deny, Some("hook h exited 3"))
        );
    }

    #[test]
    fn interpolation_reads_only_allowed_variables() {
        let path = std::env::var("PATH").unwrap_or_default();
        let allowed = vec!["PATH".to_owned()];
        let env = |name: &str| std::env::var_os(name);
        assert_eq!(
            interpolate("a $PATH b", &allowed, env),
            format!("a {path} b")
        );
        assert_eq!(interpolate("x${PATH}y", &allowed, env), format!("x{path}y"));
        assert_eq!(interpolate("Bearer $HOME", &allowed, env), "Bearer ");
        assert_eq!(interpolate("cost $5 and $", &allowed, env), "cost  and $");
        assert_eq!(interpolate("${}", &allowed, env), "${}");
    }

    #[test]
    fn input_shape() {
        let inv = invocation(
            "PostToolUse",
            json!({"tool": {"name": "Bash", "input": {"command": "ls"}, "call_id": "t1", "output": "ok"},
                   "permission_mode": "plan", "extra": 1}),
        );
        assert_eq!(
            serde_json::to_value(input(&def("PostToolUse"), &inv)).expect("serializes"),
            json!({"session_id": "s1", "transcript_path": "", "cwd": "/w", "permission_mode": "plan",
                   "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"},
                   "tool_use_id": "t1", "tool_response": "ok", "extra": 1})
        );
    }
}
