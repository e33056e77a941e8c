//! Gemini CLI's hook protocol (docs/dialects/gemini.md gives the source of each rule).
//!
//! Stdin: `session_id`, `transcript_path`, `cwd`, `hook_event_name`, `timestamp`; tool
//! events add `tool_name`, `tool_input` and `AfterTool` `tool_response`; every other
//! payload field (`prompt`, `llm_request`, `source`, ...) follows as it is.
//! Environment: inherited, plus `GEMINI_PROJECT_DIR`, `GEMINI_SESSION_ID` and
//! `CLAUDE_PROJECT_DIR`, then the hook's own `env`. The line runs under bash, with
//! `$GEMINI_PROJECT_DIR` and `$CLAUDE_PROJECT_DIR` replaced by the quoted working
//! directory first.
//!
//! Reply: exit 0 → stdout is Gemini's JSON output (a JSON string holding JSON is read
//! inside), plain text is a message for the user; exit 2 with stderr → a block with
//! stderr as the reason, where the event can be blocked; any other exit, exit 2 without
//! stderr, a timeout or a crash → a non-blocking error.

use std::borrow::Cow;
use std::path::Path;

use hookrig_core::{Action, Dialect, Failure, FailureKind, Invocation, Reply, Stop, Verdict};
use hookrig_exec::process::{EnvPolicy, ProcessOutput};
use hookrig_exec::{Limits, Protocol};
use serde_json::{Map, Value, json};

use super::events::{self, Flow};
use super::loader::GeminiHook;
use super::wire::{HookInput, HookOutput, HookSpecificOutput};
use crate::native::cut;
use crate::protocol::DialectProtocol;
use crate::wire::Shaped;

/// Gemini CLI's protocol for one hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeminiProtocol(pub GeminiHook);

impl Protocol for GeminiProtocol {
    fn stdin(&self, _hook: &str, invocation: &Invocation) -> Vec<u8> {
        serde_json::to_vec(&input(&self.0, invocation, &now()))
            .expect("the hook input always serializes")
    }

    fn command_line<'a>(
        &self,
        line: &'a str,
        invocation: &Invocation,
    ) -> (Cow<'a, str>, Vec<(String, String)>) {
        let cwd = invocation.context.cwd.to_string_lossy();
        (Cow::Owned(under_bash(&expand(line, &cwd))), Vec::new())
    }

    fn env(
        &self,
        _hook: &str,
        invocation: &Invocation,
        configured: &[(String, String)],
    ) -> EnvPolicy {
        let cwd = invocation.context.cwd.to_string_lossy().into_owned();
        let mut set = vec![
            ("GEMINI_PROJECT_DIR".to_owned(), cwd.clone()),
            (
                "GEMINI_SESSION_ID".to_owned(),
                invocation.context.session_id.clone(),
            ),
            ("CLAUDE_PROJECT_DIR".to_owned(), cwd),
        ];
        // Gemini CLI spreads the hook's own `env` last, so it wins.
        set.extend_from_slice(configured);
        EnvPolicy::Inherit { set }
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
}

impl DialectProtocol for GeminiProtocol {
    fn dialect(&self) -> Dialect {
        Dialect::Gemini
    }

    /// The event only: whether the hooks of the event run one after another depends
    /// on every settings file, and changing another file must not untrust a hook.
    fn definition(&self) -> String {
        format!("Gemini {{ event: {:?} }}", self.0.event)
    }

    /// `$GEMINI_PROJECT_DIR` and `$CLAUDE_PROJECT_DIR`, which Gemini CLI sets to the
    /// working directory, when it is known.
    fn line_variables(&self, cwd: Option<&Path>) -> Option<Vec<(&'static str, String)>> {
        Some(cwd.map_or_else(Vec::new, |dir| {
            let dir = dir.to_string_lossy().into_owned();
            vec![
                ("${GEMINI_PROJECT_DIR}", dir.clone()),
                ("$GEMINI_PROJECT_DIR", dir.clone()),
                ("${CLAUDE_PROJECT_DIR}", dir.clone()),
                ("$CLAUDE_PROJECT_DIR", dir),
            ]
        }))
    }
}

/// The time of the run as Gemini CLI writes it (`toISOString`: milliseconds, UTC).
fn now() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}

/// A word quoted for bash: in single quotes, a single quote written as `'\''`.
fn quoted(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// Gemini CLI replaces `$GEMINI_PROJECT_DIR` and `$CLAUDE_PROJECT_DIR` in the command
/// with the quoted working directory before the shell reads it, so that a directory with
/// spaces stays one word; `${...}` is left to the shell, which has the variables too.
fn expand(line: &str, cwd: &str) -> String {
    let cwd = quoted(cwd);
    line.replace("$GEMINI_PROJECT_DIR", &cwd)
        .replace("$CLAUDE_PROJECT_DIR", &cwd)
}

/// Gemini CLI runs a hook's command with `bash -c`; hookrig's command handler starts
/// `/bin/sh -c`, which `exec`s bash with the line, so that a line written for bash
/// (`[[ ... ]]`, arrays) means what it means under Gemini CLI. The process stays the one
/// hookrig started (exec), in its process group.
fn under_bash(line: &str) -> String {
    format!("exec bash -c {}", quoted(line))
}

/// Longest reason or message taken from stderr.
const REASON_CAP: usize = 1024;

/// Canonical payload fields that are presented under Gemini's own names.
const PRESENTED: &[&str] = &[
    "event",
    "session",
    "tool",
    "session_id",
    "transcript_path",
    "cwd",
    "hook_event_name",
    "timestamp",
    "tool_name",
    "tool_input",
    "tool_response",
];

/// The hook input, as Gemini CLI sends it; `timestamp` is used when the payload has
/// none (a Gemini CLI host sends its own, which is kept).
pub(crate) fn input(def: &GeminiHook, invocation: &Invocation, timestamp: &str) -> HookInput {
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
                .unwrap_or_else(|| json!("")),
        ),
        cwd: Some(Value::String(context.cwd.to_string_lossy().into_owned())),
        hook_event_name: Some(def.event.clone()),
        timestamp: Some(
            payload
                .get("timestamp")
                .cloned()
                .unwrap_or_else(|| json!(timestamp)),
        ),
        ..HookInput::default()
    };
    if events::by_name(&def.event).is_some_and(|e| e.tool) || tool.is_some() {
        let name = invocation.payload.tool_name().unwrap_or("").to_owned();
        input.tool_name = Some(Value::String(name));
        input.tool_input = Some(tool_field("input").unwrap_or_else(|| json!({})));
        if def.event == "AfterTool" || tool_field("output").is_some() {
            input.tool_response = Some(tool_field("output").unwrap_or_else(|| json!({})));
        }
    }
    for (key, value) in payload {
        if !PRESENTED.contains(&key.as_str()) {
            input.rest.insert(key.clone(), value.clone());
        }
    }
    input
}

fn reply(
    def: &GeminiHook,
    hook: &str,
    limits: &Limits,
    invocation: &Invocation,
    output: &ProcessOutput,
) -> Reply {
    match read_reply(def, hook, limits, invocation, output) {
        Reply::Verdict(mut verdict) => {
            carry_model_deny(def, &mut verdict);
            Reply::Verdict(verdict)
        }
        failure @ Reply::Failure(_) => failure,
    }
}

/// A deny of `BeforeModel`, which hookrig dispatches as a transform event (its hooks
/// only rewrite the request, for every dialect), is also kept as the hook's answer in
/// Gemini CLI's terms, from which the gemini host mode answers Gemini CLI with the deny
/// (docs/dialects/gemini.md). Other hosts see the dispatcher's warning that it was
/// ignored.
fn carry_model_deny(def: &GeminiHook, verdict: &mut Verdict) {
    if def.event == "BeforeModel" && verdict.action == Action::Deny {
        verdict.answer = Some(Box::new(json!({
            "decision": "deny",
            "reason": verdict.reason,
        })));
    }
}

fn read_reply(
    def: &GeminiHook,
    hook: &str,
    limits: &Limits,
    invocation: &Invocation,
    output: &ProcessOutput,
) -> Reply {
    let failure = |kind, message: String| Reply::Failure(Failure { kind, message });
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stderr = cut(stderr.trim(), REASON_CAP);
    let blocks = events::by_name(&def.event).is_some_and(|e| e.flow == Flow::Blocks);
    match crate::native::exit_code(hook, limits, &output.termination) {
        Err(failure) => Reply::Failure(failure),
        Ok(0) => read_output(def, hook, invocation, &output.stdout),
        // A block, where the event can be blocked: stderr is the reason. Gemini CLI
        // reads exit 2 without stderr, and exit 2 on an advisory event, as a failed
        // hook that changes nothing.
        Ok(2) if blocks && !stderr.is_empty() => Reply::Verdict(Verdict::deny(stderr)),
        Ok(code) if stderr.is_empty() => {
            failure(FailureKind::Exit, format!("hook {hook} exited {code}"))
        }
        Ok(code) => failure(
            FailureKind::Exit,
            format!("hook {hook} exited {code}: {stderr}"),
        ),
    }
}

/// Reads what a hook printed on exit 0.
fn read_output(def: &GeminiHook, hook: &str, invocation: &Invocation, stdout: &[u8]) -> Reply {
    let text = String::from_utf8_lossy(stdout);
    let text = text.trim();
    if text.is_empty() {
        return Reply::Verdict(Verdict::allow());
    }
    let value = match serde_json::from_str::<Value>(text) {
        // Gemini CLI reads a JSON string as JSON written twice.
        Ok(Value::String(inner)) => match serde_json::from_str::<Value>(&inner) {
            Ok(value) => value,
            Err(_) => return plain_text(hook, text),
        },
        Ok(value) => value,
        Err(_) => return plain_text(hook, text),
    };
    // `null`, a number, an array: Gemini CLI finds none of its fields in them.
    if !value.is_object() {
        return Reply::Verdict(Verdict::allow());
    }
    match serde_json::from_value::<HookOutput>(value) {
        Ok(output) => read_json(def, hook, invocation, output),
        // Every field of the output is read leniently: an object always reads.
        Err(err) => Reply::Failure(Failure {
            kind: FailureKind::Malformed,
            message: format!("hook {hook}: unreadable output: {err}"),
        }),
    }
}

/// Plain text on exit 0: Gemini CLI allows and shows the text to the user.
fn plain_text(hook: &str, text: &str) -> Reply {
    let mut verdict = Verdict::allow();
    verdict
        .warnings
        .push(format!("hook {hook}: {}", cut(text, REASON_CAP)));
    Reply::Verdict(verdict)
}

/// Gemini CLI's JSON output, read into a verdict.
fn read_json(def: &GeminiHook, hook: &str, invocation: &Invocation, output: HookOutput) -> Reply {
    let event = events::by_name(&def.event);
    let mut verdict = Verdict::allow();
    if output.suppress_output != Some(true)
        && let Some(message) = output.system_message.as_deref().filter(|m| !m.is_empty())
    {
        verdict.warnings.push(format!("hook {hook}: {message}"));
    }
    if event.is_some_and(|e| e.flow == Flow::Blocks) {
        if output.proceed == Some(false) {
            // `continue: false` stops the whole agent loop (on `AfterAgent`, the session
            // without a retry), whatever the decision: a stop, never a deny, which on
            // `AfterAgent` would mean the opposite (retry the turn).
            verdict.stop = Some(Stop {
                reason: output.stop_reason.or(output.reason),
            });
            return Reply::Verdict(verdict);
        }
        if matches!(output.decision.as_deref(), Some("deny" | "block")) {
            verdict.action = Action::Deny;
            verdict.reason = Some(
                output
                    .reason
                    .unwrap_or_else(|| format!("denied by hook {hook}")),
            );
            return Reply::Verdict(verdict);
        }
    }
    match output.hook_specific_output {
        None => {}
        Some(Shaped::Typed(specific)) => {
            read_specific(def, hook, invocation, specific, &mut verdict);
        }
        // Gemini CLI's aggregator looks fields up with `in`, which throws on a string or
        // a number: the hooks of the event then fail.
        Some(Shaped::Other(_)) => {
            return Reply::Failure(Failure {
                kind: FailureKind::Malformed,
                message: format!("hook {hook}: `hookSpecificOutput` must be an object"),
            });
        }
    }
    Reply::Verdict(verdict)
}

/// `hookSpecificOutput`, read into `verdict` by what the event reads of it.
fn read_specific(
    def: &GeminiHook,
    hook: &str,
    invocation: &Invocation,
    specific: HookSpecificOutput,
    verdict: &mut Verdict,
) {
    let event = events::by_name(&def.event);
    let payload = invocation.payload.as_map();
    let context = specific
        .additional_context
        .filter(|c| !c.is_empty() && event.is_some_and(|e| e.reads_context));
    let mut patch = Map::new();
    match def.event.as_str() {
        "BeforeTool" => {
            if let Some(Value::Object(fields)) = specific.tool_input {
                // Merged with and over the model's arguments.
                let mut input = payload
                    .get("tool")
                    .and_then(|t| t.get("input"))
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                input.extend(fields);
                patch.insert("tool".to_owned(), json!({"input": input}));
            }
        }
        "AfterTool" => {
            if let Some(text) = specific.tool_output {
                patch.insert("tool".to_owned(), json!({"output": text}));
            }
        }
        "BeforeAgent" => {
            // Hooks run one after another see the prompt with the context of those
            // before them appended, as Gemini CLI feeds a sequential hook's output to
            // the next one.
            if def.sequential
                && let (Some(context), Some(Value::String(prompt))) =
                    (&context, payload.get("prompt"))
            {
                patch.insert("prompt".to_owned(), json!(format!("{prompt}\n\n{context}")));
            }
        }
        "BeforeModel" => {
            if let Some(request @ Value::Object(_)) = specific.llm_request {
                patch.insert("llm_request".to_owned(), request);
            }
            if let Some(response) = specific.llm_response.filter(|r| !r.is_null()) {
                patch.insert("llm_response".to_owned(), response);
            }
        }
        "AfterModel" => {
            let has_parts = specific
                .llm_response
                .as_ref()
                .and_then(|r| r.pointer("/candidates/0/content/parts"))
                .and_then(Value::as_array)
                .is_some_and(|parts| !parts.is_empty());
            if has_parts && let Some(response) = specific.llm_response {
                // `model.after` is a notify event for every dialect: the replaced
                // response is kept as the hook's answer too, which the gemini host mode
                // passes on to Gemini CLI.
                verdict.answer = Some(Box::new(
                    json!({"hookSpecificOutput": {"llm_response": response.clone()}}),
                ));
                patch.insert("llm_response".to_owned(), response);
            }
        }
        "BeforeToolSelection" => {
            if let Some(config) = specific.tool_config.filter(Value::is_object) {
                // Accepted under its own name only, so a notify event: the answer
                // carries the tool configuration to the gemini host mode, which merges
                // every hook's as Gemini CLI does.
                verdict.answer = Some(Box::new(
                    json!({"hookSpecificOutput": {"toolConfig": config.clone()}}),
                ));
                patch.insert("tool_config".to_owned(), config);
            }
        }
        "AfterAgent" if specific.clear_context == Some(true) => {
            verdict.warnings.push(format!(
                "hook {hook}: `clearContext` is not passed on to Gemini CLI by hookrig"
            ));
        }
        _ => {}
    }
    verdict.context = context;
    if !patch.is_empty() {
        verdict.action = Action::Modify;
        verdict.patch = Some(patch);
    }
}

#[cfg(test)]
mod tests;
