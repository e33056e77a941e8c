//! Cursor's hook protocol.
//!
//! Stdin: the fields Cursor sends every hook (`conversation_id`, `generation_id`,
//! `model`, `hook_event_name`, `cursor_version`, `workspace_roots`, `user_email`,
//! `transcript_path`, ...), the tool fields of tool events, then every other payload
//! field as it is. Environment: inherited, plus `CURSOR_PROJECT_DIR` (and its alias
//! `CLAUDE_PROJECT_DIR`), `CURSOR_VERSION`, `CURSOR_USER_EMAIL` and
//! `CURSOR_TRANSCRIPT_PATH` where the event gives them. The command runs from the
//! directory Cursor runs it from: the project root for project hooks, the file's own
//! directory for user and enterprise hooks.
//!
//! Reply: exit 0 → stdout is the JSON answer of the event (`events.rs` says which fields
//! an event reads); exit 2 → a deny where the event can be denied; any other exit, a
//! timeout or a crash → the hook failed and the action proceeds, unless the hook is
//! `failClosed`. A permission hook whose reply is not valid JSON or does not match the
//! event's schema blocks the action, `failClosed` or not.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use hookrig_core::{Action, Dialect, EventKind, Failure, FailureKind, Invocation, Reply, Verdict};
use hookrig_exec::process::{EnvPolicy, ProcessOutput};
use hookrig_exec::{Limits, Protocol};
use serde_json::{Map, Value, json};

use super::events::{self, Answer, AskMode, CursorEvent, ToolFields};
use super::wire::{HookInput, HookOutput};
use crate::native::cut;
use crate::protocol::DialectProtocol;

/// What a Cursor hook needs at run time beyond its command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CursorHook {
    /// The Cursor event name the hook was declared under: its `hook_event_name`.
    pub(crate) event: String,
    /// The directory its command runs from.
    pub(crate) dir: PathBuf,
    /// `failClosed`: a failure blocks the action instead of letting it through.
    pub(crate) fail_closed: bool,
    /// `loop_limit` of a `stop` or `subagentStop` hook; `None` is no limit.
    pub(crate) loop_limit: Option<u64>,
}

/// Cursor's protocol for one hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CursorProtocol(pub(crate) CursorHook);

impl Protocol for CursorProtocol {
    fn stdin(&self, _hook: &str, invocation: &Invocation) -> Vec<u8> {
        serde_json::to_vec(&input(&self.0, invocation)).expect("the hook input always serializes")
    }

    fn command_line<'a>(
        &self,
        line: &'a str,
        _invocation: &Invocation,
    ) -> (Cow<'a, str>, Vec<(String, String)>) {
        // Cursor runs a hook from its source's directory, so that `./hooks/x.sh` and
        // `.cursor/hooks/x.sh` name the scripts they do in Cursor; the line is grouped so
        // that it runs as written (a trailing comment, a here-document).
        let dir = quote(&self.0.dir.to_string_lossy());
        (
            Cow::Owned(format!("cd -- {dir} && {{\n{line}\n}}")),
            Vec::new(),
        )
    }

    fn env(
        &self,
        _hook: &str,
        invocation: &Invocation,
        configured: &[(String, String)],
    ) -> EnvPolicy {
        env(invocation, configured)
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

impl DialectProtocol for CursorProtocol {
    fn dialect(&self) -> Dialect {
        Dialect::Cursor
    }

    fn definition(&self) -> String {
        format!("Cursor({:?})", self.0)
    }

    /// `$CURSOR_PROJECT_DIR` and its alias `$CLAUDE_PROJECT_DIR`: the project directory
    /// when it is known, else the directory the hook runs from.
    fn line_variables(&self, cwd: Option<&Path>) -> Option<Vec<(&'static str, String)>> {
        let dir = cwd.unwrap_or(&self.0.dir).to_string_lossy().into_owned();
        Some(vec![
            ("${CURSOR_PROJECT_DIR}", dir.clone()),
            ("$CURSOR_PROJECT_DIR", dir.clone()),
            ("${CLAUDE_PROJECT_DIR}", dir.clone()),
            ("$CLAUDE_PROJECT_DIR", dir),
        ])
    }
}

/// `word` in single quotes for `sh`.
fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// Longest reason or message taken from stderr.
const REASON_CAP: usize = 1024;

/// Payload fields written in their own place of the input, or not at all.
const PRESENTED: &[&str] = &[
    "session",
    "tool",
    "conversation_id",
    "generation_id",
    "model",
    "model_id",
    "model_params",
    "hook_event_name",
    "cursor_version",
    "workspace_roots",
    "user_email",
    "transcript_path",
    "tool_name",
    "tool_input",
    "tool_use_id",
    "tool_output",
];

/// The hook input, as Cursor sends it: what the host sent comes back as it was, and an
/// event from another host gets the fields every Cursor hook reads.
pub(crate) fn input(def: &CursorHook, invocation: &Invocation) -> HookInput {
    let context = &invocation.context;
    let payload = invocation.payload.as_map();
    let get = |key: &str| payload.get(key).cloned();
    let cwd = || {
        payload
            .get("session")
            .and_then(|s| s.get("cwd"))
            .cloned()
            .unwrap_or_else(|| Value::String(context.cwd.to_string_lossy().into_owned()))
    };
    let mut input = HookInput {
        conversation_id: Some(
            get("conversation_id").unwrap_or_else(|| Value::String(context.session_id.clone())),
        ),
        generation_id: get("generation_id"),
        model: get("model"),
        model_id: get("model_id"),
        model_params: get("model_params"),
        hook_event_name: Some(def.event.clone()),
        cursor_version: get("cursor_version"),
        workspace_roots: Some(
            get("workspace_roots").unwrap_or_else(|| json!([context.cwd.to_string_lossy()])),
        ),
        user_email: Some(get("user_email").unwrap_or(Value::Null)),
        transcript_path: Some(get("transcript_path").unwrap_or(Value::Null)),
        ..HookInput::default()
    };
    let event = events::by_name(&def.event);
    let tool = payload.get("tool").and_then(Value::as_object);
    let tool_field = |key: &str| tool.and_then(|t| t.get(key)).cloned();
    match event.map_or(ToolFields::None, |e| e.tool) {
        ToolFields::Full => {
            let name = invocation.payload.tool_name().unwrap_or("").to_owned();
            input.tool_name = Some(Value::String(name));
            input.tool_input = Some(tool_field("input").unwrap_or_else(|| json!({})));
            input.tool_use_id = Some(tool_field("call_id").unwrap_or_else(|| json!("")));
            input.tool_output = tool_field("output");
            if def.event == "postToolUse" && input.tool_output.is_none() {
                input.tool_output = Some(Value::String(String::new()));
            }
        }
        ToolFields::Mcp => {
            let name = invocation.payload.tool_name().unwrap_or("").to_owned();
            input.tool_name = Some(Value::String(name));
            input.tool_input = Some(tool_field("input").unwrap_or_else(|| json!("{}")));
        }
        ToolFields::None => {
            input.tool_name = tool_field("name");
            input.tool_input = tool_field("input");
            input.tool_use_id = tool_field("call_id");
            input.tool_output = tool_field("output");
        }
    }
    for (key, value) in payload {
        if !PRESENTED.contains(&key.as_str()) {
            input.rest.insert(key.clone(), value.clone());
        }
    }
    if event.is_some_and(|e| e.cwd) && !input.rest.contains_key("cwd") {
        input.rest.insert("cwd".to_owned(), cwd());
    }
    input
}

/// The hook's environment: what Cursor sets, from the event's own fields.
fn env(invocation: &Invocation, configured: &[(String, String)]) -> EnvPolicy {
    let payload = invocation.payload.as_map();
    let text = |key: &str| payload.get(key).and_then(Value::as_str).map(str::to_owned);
    let project = payload
        .get("workspace_roots")
        .and_then(|roots| roots.get(0))
        .and_then(Value::as_str)
        .map_or_else(
            || invocation.context.cwd.to_string_lossy().into_owned(),
            str::to_owned,
        );
    let mut set = configured.to_vec();
    set.push(("CURSOR_PROJECT_DIR".to_owned(), project.clone()));
    set.push(("CLAUDE_PROJECT_DIR".to_owned(), project));
    for (name, key) in [
        ("CURSOR_VERSION", "cursor_version"),
        ("CURSOR_USER_EMAIL", "user_email"),
        ("CURSOR_TRANSCRIPT_PATH", "transcript_path"),
    ] {
        if let Some(value) = text(key) {
            set.push((name.to_owned(), value));
        }
    }
    EnvPolicy::Inherit { set }
}

/// What an unknown event's hooks may answer: nothing Cursor would read.
const UNKNOWN: CursorEvent = CursorEvent {
    name: "",
    canonical: None,
    answer: Answer::Nothing,
    subject: events::Subject::Unknown,
    tool: ToolFields::None,
    cwd: false,
};

/// Whether the event's answer can stop the action: a permission or a `continue`.
fn can_block(event: &CursorEvent) -> bool {
    matches!(event.answer, Answer::Permission(_) | Answer::Continue)
}

fn reply(
    def: &CursorHook,
    hook: &str,
    limits: &Limits,
    invocation: &Invocation,
    output: &ProcessOutput,
) -> Reply {
    let event = events::by_name(&def.event).unwrap_or(&UNKNOWN);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stderr = cut(stderr.trim(), REASON_CAP);
    let failed = |kind, message: String| failure(def, event, invocation, Failure { kind, message });
    match crate::native::exit_code(hook, limits, &output.termination) {
        Err(failure) => failed(failure.kind, failure.message),
        Ok(0) => read_output(def, event, hook, invocation, output),
        Ok(2) => {
            let reason = serde_json::from_slice::<HookOutput>(&output.stdout)
                .ok()
                .and_then(|out| {
                    out.agent_message()
                        .or(out.user_message())
                        .map(str::to_owned)
                })
                .or_else(|| (!stderr.is_empty()).then(|| stderr.to_owned()))
                .unwrap_or_else(|| format!("blocked by hook {hook}"));
            if can_block(event) {
                Reply::Verdict(Verdict::deny(reason))
            } else {
                let mut verdict = Verdict::allow();
                verdict.warnings.push(format!(
                    "hook {hook} exited 2, which blocks nothing on {}: {reason}",
                    def.event
                ));
                Reply::Verdict(verdict)
            }
        }
        Ok(code) if stderr.is_empty() => {
            failed(FailureKind::Exit, format!("hook {hook} exited {code}"))
        }
        Ok(code) => failed(
            FailureKind::Exit,
            format!("hook {hook} exited {code}: {stderr}"),
        ),
    }
}

/// A hook that failed. On an event hookrig dispatches as a decision, the hook's
/// `on_error` (its `failClosed`) decides; on the others nothing waits on a failure, so a
/// `failClosed` hook of an event that can block is answered as a deny here.
fn failure(
    def: &CursorHook,
    event: &CursorEvent,
    invocation: &Invocation,
    failure: Failure,
) -> Reply {
    if def.fail_closed && can_block(event) && invocation.context.name.kind() == EventKind::Notify {
        return Reply::Verdict(Verdict::deny(format!(
            "{} (the hook is failClosed)",
            failure.message
        )));
    }
    Reply::Failure(failure)
}

/// Reads what a hook printed on exit 0.
fn read_output(
    def: &CursorHook,
    event: &CursorEvent,
    hook: &str,
    invocation: &Invocation,
    output: &ProcessOutput,
) -> Reply {
    let text = String::from_utf8_lossy(&output.stdout);
    let text = text.trim();
    let invalid = |message: String| {
        if matches!(event.answer, Answer::Permission(_)) {
            // Cursor: a permission hook whose reply is not valid JSON, or does not
            // match the event's schema, blocks the action even when not failClosed.
            Reply::Verdict(Verdict::deny(format!(
                "hook {hook}: {message}, which blocks {}",
                def.event
            )))
        } else {
            failure(
                def,
                event,
                invocation,
                Failure {
                    kind: FailureKind::Malformed,
                    message: format!("hook {hook}: {message}"),
                },
            )
        }
    };
    if text.is_empty() {
        // Empty output: nothing to read where Cursor reads no answer; where it does, no
        // output is a failure (`failClosed` blocks on it).
        if matches!(event.answer, Answer::Permission(_) | Answer::Continue) {
            return failure(
                def,
                event,
                invocation,
                Failure {
                    kind: FailureKind::Malformed,
                    message: format!("hook {hook}: no output"),
                },
            );
        }
        return Reply::Verdict(Verdict::allow());
    }
    if event.answer == Answer::Nothing {
        return Reply::Verdict(Verdict::allow());
    }
    let output = match serde_json::from_str::<Value>(text) {
        Ok(value @ Value::Object(_)) => serde_json::from_value::<HookOutput>(value),
        Ok(_) | Err(_) => return invalid("reply is not a JSON object".to_owned()),
    };
    let Ok(output) = output else {
        return invalid("reply is not a JSON object".to_owned());
    };
    match event.answer {
        Answer::Permission(mode) => permission(def, hook, mode, output),
        Answer::Continue => proceed(def, event, hook, invocation, output),
        Answer::Followup => followup(def, hook, invocation, output),
        Answer::Session => {
            let mut verdict = Verdict::allow();
            verdict.context = output.additional_context.filter(|c| !c.is_empty());
            match output.env {
                None | Some(Value::Null) => {}
                // Kept as the hook's answer: the cursor host mode answers it to Cursor as
                // its own `env`, which Cursor sets for the session's later hooks, hookrig
                // and the hooks it runs among them. Any other host has no such thing.
                Some(env @ Value::Object(_)) => {
                    verdict.warnings.push(env_warning(hook));
                    verdict.answer = Some(Box::new(json!({ "env": env })));
                }
                Some(_) => verdict.warnings.push(format!(
                    "hook {hook}: `env` must be an object of variables; it is ignored"
                )),
            }
            Reply::Verdict(verdict)
        }
        Answer::PostTool => {
            let mut verdict = Verdict::allow();
            verdict.context = output.additional_context.filter(|c| !c.is_empty());
            if let Some(replaced) = output.updated_mcp_tool_output {
                verdict.action = Action::Modify;
                let mut tool = Map::new();
                tool.insert("tool".to_owned(), json!({"output": replaced}));
                verdict.patch = Some(tool);
            }
            Reply::Verdict(verdict)
        }
        Answer::Compact => {
            let mut verdict = Verdict::allow();
            if let Some(message) = output.user_message() {
                verdict.warnings.push(message.to_owned());
            }
            Reply::Verdict(verdict)
        }
        Answer::Nothing => Reply::Verdict(Verdict::allow()),
    }
}

/// A permission event's answer.
fn permission(def: &CursorHook, hook: &str, mode: AskMode, output: HookOutput) -> Reply {
    let mismatch = |why: String| {
        Reply::Verdict(Verdict::deny(format!(
            "hook {hook}: {why}, which blocks {}",
            def.event
        )))
    };
    let permission = match (&output.permission, &output.decision) {
        (Some(Value::String(permission)), _) => permission.clone(),
        (Some(other), _) => return mismatch(format!("`permission` is {other}, not a string")),
        (None, Some(decision)) => decision.clone(),
        (None, None) => return mismatch("the reply has no `permission`".to_owned()),
    };
    let message = output
        .agent_message()
        .or(output.user_message())
        .map(str::to_owned);
    let denied = || {
        message
            .clone()
            .unwrap_or_else(|| format!("denied by hook {hook}"))
    };
    match (permission.as_str(), mode) {
        ("allow", _) => {
            let mut verdict = Verdict::allow();
            match output.updated_input {
                None => {}
                Some(Value::Object(input)) if def.event == "preToolUse" => {
                    verdict.action = Action::Modify;
                    let mut tool = Map::new();
                    tool.insert("tool".to_owned(), json!({"input": input}));
                    verdict.patch = Some(tool);
                }
                Some(Value::Object(_)) => verdict.warnings.push(format!(
                    "hook {hook}: `updated_input` is ignored on {}",
                    def.event
                )),
                Some(other) => {
                    return mismatch(format!("`updated_input` is {other}, not an object"));
                }
            }
            Reply::Verdict(verdict)
        }
        ("deny", _) => Reply::Verdict(Verdict::deny(denied())),
        ("ask", AskMode::Asks) => {
            let mut verdict = Verdict::with_action(Action::Ask);
            verdict.reason = message;
            Reply::Verdict(verdict)
        }
        ("ask", AskMode::Denies) => Reply::Verdict(Verdict::deny(format!(
            "{} ({} cannot ask; Cursor treats an ask as a deny)",
            denied(),
            def.event
        ))),
        ("ask", AskMode::Invalid) => mismatch(format!(
            "`permission` is \"ask\", which {} has not",
            def.event
        )),
        (other, _) => mismatch(format!(
            "`permission` is \"{other}\" (expected allow, deny or ask)"
        )),
    }
}

/// `beforeSubmitPrompt`'s answer.
fn proceed(
    def: &CursorHook,
    event: &CursorEvent,
    hook: &str,
    invocation: &Invocation,
    output: HookOutput,
) -> Reply {
    match output.proceed {
        None | Some(Value::Bool(true)) => Reply::Verdict(Verdict::allow()),
        Some(Value::Bool(false)) => Reply::Verdict(Verdict::deny(
            output
                .user_message()
                .map_or_else(|| format!("blocked by hook {hook}"), str::to_owned),
        )),
        Some(other) => failure(
            def,
            event,
            invocation,
            Failure {
                kind: FailureKind::Malformed,
                message: format!("hook {hook}: `continue` is {other}, not true or false"),
            },
        ),
    }
}

/// `stop`'s and `subagentStop`'s answer: a follow-up message keeps the agent working,
/// which hookrig's events say as a deny of the stop with the message as its reason
/// (Claude Code's `decision: "block"` of a `Stop`), until the hook's `loop_limit`.
fn followup(def: &CursorHook, hook: &str, invocation: &Invocation, output: HookOutput) -> Reply {
    let Some(message) = output.followup_message.filter(|m| !m.is_empty()) else {
        return Reply::Verdict(Verdict::allow());
    };
    let count = invocation
        .payload
        .as_map()
        .get("loop_count")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    if let Some(limit) = def.loop_limit
        && count >= limit
    {
        let mut verdict = Verdict::allow();
        verdict.warnings.push(format!(
            "hook {hook}: `followup_message` ignored: its loop_limit of {limit} follow-ups is reached"
        ));
        return Reply::Verdict(verdict);
    }
    Reply::Verdict(Verdict::deny(message))
}

/// The warning that a `sessionStart` hook's `env` reaches later hooks only when Cursor is
/// the host; the cursor host mode leaves it out, since it passes the `env` on.
pub(crate) fn env_warning(hook: &str) -> String {
    format!("hook {hook}: `env` reaches the session's later hooks only when Cursor is the host")
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use hookrig_core::{EventContext, Payload};
    use hookrig_exec::{Leftovers, Termination};
    use test_case::test_case;

    use super::*;

    fn def(event: &str) -> CursorHook {
        CursorHook {
            event: event.to_owned(),
            dir: PathBuf::from("/p"),
            fail_closed: false,
            loop_limit: Some(5),
        }
    }

    fn out(termination: Termination, stdout: &str, stderr: &str) -> ProcessOutput {
        ProcessOutput {
            termination,
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
            stdout_truncated: false,
            stderr_truncated: false,
            leaked: false,
            leftovers: Leftovers::default(),
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

    fn read_with(def: &CursorHook, termination: Termination, stdout: &str, stderr: &str) -> Reply {
        reply(
            def,
            "h",
            &Limits::default(),
            &invocation(&def.event, json!({"loop_count": 2})),
            &out(termination, stdout, stderr),
        )
    }

    /// The reply as `action reason` (or `failure: message`), with context, patch and
    /// warnings when there are any.
    fn shown(reply: &Reply) -> String {
        match reply {
            Reply::Failure(f) => format!("failure {:?}: {}", f.kind, f.message),
            Reply::Verdict(v) => {
                use std::fmt::Write as _;

                let mut text = v.action.as_str().to_owned();
                if let Some(reason) = &v.reason {
                    let _ = write!(text, " ({reason})");
                }
                if let Some(context) = &v.context {
                    let _ = write!(text, " context={context}");
                }
                if let Some(patch) = &v.patch {
                    let _ = write!(text, " patch={}", Value::Object(patch.clone()));
                }
                for warning in &v.warnings {
                    let _ = write!(text, " warning={warning}");
                }
                text
            }
        }
    }

    // The conformance table of a hook's reply: the event, the hook's exit code, stdout
    // and stderr, and what hookrig reads from them.
    #[test_case("beforeShellExecution", 0, r#"{"permission":"allow"}"#, "", "allow" ; "shell allow")]
    #[test_case("beforeShellExecution", 0, r#"{"permission":"deny","user_message":"u","agent_message":"a"}"#, "", "deny (a)" ; "shell deny prefers the agent message")]
    #[test_case("beforeShellExecution", 0, r#"{"permission":"deny","user_message":"u"}"#, "", "deny (u)" ; "shell deny with a user message only")]
    #[test_case("beforeShellExecution", 0, r#"{"permission":"deny"}"#, "", "deny (denied by hook h)" ; "shell deny without a message")]
    #[test_case("beforeShellExecution", 0, r#"{"permission":"ask","user_message":"sure?"}"#, "", "ask (sure?)" ; "shell ask")]
    #[test_case("beforeShellExecution", 0, r#"{"continue":true,"permission":"deny","userMessage":"old"}"#, "", "deny (old)" ; "cursor 1.7 spelling")]
    #[test_case("beforeShellExecution", 0, r#"{"permission":"maybe"}"#, "", "deny (hook h: `permission` is \"maybe\" (expected allow, deny or ask), which blocks beforeShellExecution)" ; "unknown permission blocks")]
    #[test_case("beforeShellExecution", 0, r#"{"permission":1}"#, "", "deny (hook h: `permission` is 1, not a string, which blocks beforeShellExecution)" ; "ill typed permission blocks")]
    #[test_case("beforeShellExecution", 0, "{}", "", "deny (hook h: the reply has no `permission`, which blocks beforeShellExecution)" ; "no permission blocks")]
    #[test_case("beforeShellExecution", 0, "not json", "", "deny (hook h: reply is not a JSON object, which blocks beforeShellExecution)" ; "invalid json blocks")]
    #[test_case("beforeShellExecution", 0, "", "", "failure Malformed: hook h: no output" ; "no output is a failure")]
    #[test_case("beforeShellExecution", 2, "", "no rm\n", "deny (no rm)" ; "exit 2 denies with stderr")]
    #[test_case("beforeShellExecution", 2, r#"{"permission":"deny","agent_message":"json"}"#, "e", "deny (json)" ; "exit 2 keeps the json message")]
    #[test_case("beforeShellExecution", 2, "", "", "deny (blocked by hook h)" ; "exit 2 without a word")]
    #[test_case("beforeShellExecution", 1, "", "oops", "failure Exit: hook h exited 1: oops" ; "other exit fails open")]
    #[test_case("beforeMCPExecution", 0, r#"{"permission":"ask"}"#, "", "ask" ; "mcp ask")]
    #[test_case("beforeReadFile", 0, r#"{"permission":"ask"}"#, "", "deny (hook h: `permission` is \"ask\", which beforeReadFile has not, which blocks beforeReadFile)" ; "read file cannot ask")]
    #[test_case("beforeReadFile", 0, r#"{"permission":"deny","user_message":"secret"}"#, "", "deny (secret)" ; "read file deny")]
    #[test_case("subagentStart", 0, r#"{"permission":"ask","agent_message":"no"}"#, "", "deny (no (subagentStart cannot ask; Cursor treats an ask as a deny))" ; "subagent ask is a deny")]
    #[test_case("subagentStart", 0, r#"{"decision":"deny","reason":"legacy"}"#, "", "deny (legacy)" ; "earlier decision field")]
    #[test_case("preToolUse", 0, r#"{"permission":"allow","updated_input":{"command":"npm ci"}}"#, "", r#"modify patch={"tool":{"input":{"command":"npm ci"}}}"# ; "updated input")]
    #[test_case("preToolUse", 0, r#"{"permission":"allow","updated_input":"x"}"#, "", "deny (hook h: `updated_input` is \"x\", not an object, which blocks preToolUse)" ; "updated input not an object")]
    #[test_case("preToolUse", 0, r#"{"permission":"ask"}"#, "", "ask" ; "pre tool ask is kept")]
    #[test_case("beforeSubmitPrompt", 0, r#"{"continue":false,"user_message":"no secrets"}"#, "", "deny (no secrets)" ; "prompt blocked")]
    #[test_case("beforeSubmitPrompt", 0, r#"{"continue":true}"#, "", "allow" ; "prompt allowed")]
    #[test_case("beforeSubmitPrompt", 0, r#"{"continue":"no"}"#, "", "failure Malformed: hook h: `continue` is \"no\", not true or false" ; "prompt continue ill typed")]
    #[test_case("beforeSubmitPrompt", 0, "text", "", "failure Malformed: hook h: reply is not a JSON object" ; "prompt invalid json is a failure")]
    #[test_case("beforeSubmitPrompt", 2, "", "nope", "deny (nope)" ; "prompt exit 2")]
    #[test_case("stop", 0, r#"{"followup_message":"run the tests"}"#, "", "deny (run the tests)" ; "stop follow up")]
    #[test_case("stop", 0, r#"{"followup_message":""}"#, "", "allow" ; "stop empty follow up")]
    #[test_case("stop", 2, "", "x", "allow warning=hook h exited 2, which blocks nothing on stop: x" ; "stop exit 2 blocks nothing")]
    #[test_case("subagentStop", 0, r#"{"followup_message":"again"}"#, "", "deny (again)" ; "subagent stop follow up")]
    #[test_case("sessionStart", 0, r#"{"additional_context":"branch main","env":{"A":"1"}}"#, "", "allow context=branch main warning=hook h: `env` reaches the session's later hooks only when Cursor is the host" ; "session start context")]
    #[test_case("sessionStart", 0, r#"{"env":"A=1"}"#, "", "allow warning=hook h: `env` must be an object of variables; it is ignored" ; "session start env of another type")]
    #[test_case("postToolUse", 0, r#"{"additional_context":"c","updated_mcp_tool_output":{"x":1}}"#, "", r#"modify context=c patch={"tool":{"output":{"x":1}}}"# ; "post tool")]
    #[test_case("preCompact", 0, r#"{"user_message":"compacting"}"#, "", "allow warning=compacting" ; "pre compact message")]
    #[test_case("afterFileEdit", 0, "formatted 3 files", "", "allow" ; "observational output is not read")]
    #[test_case("afterFileEdit", 1, "", "", "failure Exit: hook h exited 1" ; "observational failure")]
    #[test_case("sessionEnd", 0, r#"{"permission":"deny"}"#, "", "allow" ; "fire and forget")]
    fn replies(event: &str, code: i32, stdout: &str, stderr: &str, expected: &str) {
        let reply = read_with(&def(event), Termination::Exited(code), stdout, stderr);
        assert_eq!(shown(&reply), expected);
    }

    #[test]
    fn the_loop_limit_bounds_follow_ups() {
        let mut limited = def("stop");
        limited.loop_limit = Some(2);
        let reply = read_with(
            &limited,
            Termination::Exited(0),
            r#"{"followup_message":"more"}"#,
            "",
        );
        assert_eq!(
            shown(&reply),
            "allow warning=hook h: `followup_message` ignored: its loop_limit of 2 follow-ups is reached"
        );
        limited.loop_limit = None;
        let reply = read_with(
            &limited,
            Termination::Exited(0),
            r#"{"followup_message":"more"}"#,
            "",
        );
        assert_eq!(shown(&reply), "deny (more)");
    }

    #[test]
    fn fail_closed_blocks_a_failure_where_nothing_else_would() {
        let mut closed = def("beforeShellExecution");
        closed.fail_closed = true;
        let timeout = Termination::TimedOut {
            after: Duration::from_secs(1),
            killed: false,
        };
        let reply = read_with(&closed, Termination::Exited(1), "", "boom");
        assert_eq!(
            shown(&reply),
            "deny (hook h exited 1: boom (the hook is failClosed))"
        );
        let reply = read_with(&closed, Termination::Exited(0), "", "");
        assert_eq!(
            shown(&reply),
            "deny (hook h: no output (the hook is failClosed))"
        );
        // On a decision event the hook's on_error does it, and the failure is recorded
        // as what it was.
        let mut closed = def("preToolUse");
        closed.fail_closed = true;
        let reply = read_with(&closed, timeout, "", "");
        assert!(
            matches!(reply, Reply::Failure(ref f) if f.kind == FailureKind::Timeout),
            "{reply:?}"
        );
        // Where nothing can be blocked, failClosed changes nothing.
        let mut closed = def("afterFileEdit");
        closed.fail_closed = true;
        let reply = read_with(&closed, Termination::Exited(1), "", "");
        assert_eq!(shown(&reply), "failure Exit: hook h exited 1");
    }

    #[test]
    fn exact_stdin_of_a_cursor_hook_for_an_event_of_another_host() {
        let inv = invocation(
            "preToolUse",
            json!({"session": {"id": "s1"}, "tool": {"name": "Shell", "input": {"command": "ls"}}, "extra": 1}),
        );
        let stdin =
            String::from_utf8(CursorProtocol(def("preToolUse")).stdin("h", &inv)).expect("utf-8");
        assert_eq!(
            stdin,
            r#"{"conversation_id":"s1","hook_event_name":"preToolUse","workspace_roots":["/w"],"user_email":null,"transcript_path":null,"tool_name":"Shell","tool_input":{"command":"ls"},"tool_use_id":"","extra":1,"cwd":"/w"}"#
        );
    }

    #[test]
    fn environment_from_the_event() {
        let inv = invocation(
            "stop",
            json!({"workspace_roots": ["/repo", "/other"], "cursor_version": "2.1.0", "user_email": "a@b.c", "transcript_path": null}),
        );
        let EnvPolicy::Inherit { set } = CursorProtocol(def("stop")).env("h", &inv, &[]) else {
            panic!("inherits");
        };
        assert_eq!(
            set,
            [
                ("CURSOR_PROJECT_DIR", "/repo"),
                ("CLAUDE_PROJECT_DIR", "/repo"),
                ("CURSOR_VERSION", "2.1.0"),
                ("CURSOR_USER_EMAIL", "a@b.c"),
            ]
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
        );
    }

    #[test]
    fn the_line_runs_from_the_hooks_directory() {
        let protocol = CursorProtocol(CursorHook {
            dir: PathBuf::from("/it's here"),
            ..def("stop")
        });
        let inv = invocation("stop", json!({}));
        let (line, _) = protocol.command_line("./a.sh # done", &inv);
        assert_eq!(line, "cd -- '/it'\\''s here' && {\n./a.sh # done\n}");
    }
}
