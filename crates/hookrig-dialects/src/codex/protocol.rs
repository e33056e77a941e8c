//! Codex CLI's hook protocol. The source of each rule is in docs/dialects/codex.md.
//!
//! Stdin: `session_id`, `transcript_path` (may be `null`), `cwd`, `hook_event_name`,
//! `model`, and the fields of the event (`turn_id`, `permission_mode`, `tool_name`,
//! `tool_input`, `tool_use_id`, `tool_response`, `prompt`, `source`, `trigger`,
//! `stop_hook_active`, `last_assistant_message`, `agent_id`, `agent_type`); every other
//! payload field follows as it is. The command line runs as `$SHELL -lc LINE` (`/bin/sh`
//! when `SHELL` is unset), in the event's directory, with the environment inherited.
//!
//! Reply: exit 0 → empty stdout is nothing; stdout that parses as the event's JSON
//! output is read, strictly (a field the event does not accept, a reserved or
//! unsupported value is a failed hook, which never blocks); stdout that looks like JSON
//! (`{` or `[`) but does not parse is a failed hook; other text is context on
//! `UserPromptSubmit`, `SessionStart` and `SubagentStart`, a failure on `Stop` and
//! `SubagentStop`, and ignored elsewhere. Exit 2 with a reason on stderr blocks on the
//! events that can block (feedback to the model on `PostToolUse`); exit 2 without one,
//! and every other exit, timeout or crash, is a failed hook.

use std::borrow::Cow;

use hookrig_core::{Action, Dialect, Failure, FailureKind, Invocation, Reply, Stop, Verdict};
use hookrig_exec::process::{EnvPolicy, ProcessOutput};
use hookrig_exec::{Limits, Protocol};
use serde_json::{Map, Value, json};

use super::events::{self, Answer};
use super::loader::CodexHook;
use super::wire::{HookInput, HookOutput, HookSpecificOutput};
use crate::native::cut;
use crate::protocol::DialectProtocol;

/// Codex's protocol for one hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodexProtocol(pub CodexHook);

impl Protocol for CodexProtocol {
    fn stdin(&self, _hook: &str, invocation: &Invocation) -> Vec<u8> {
        serde_json::to_vec(&input(&self.0, invocation)).expect("the hook input always serializes")
    }

    /// Codex runs a hook's command with the user's shell as a login shell
    /// (`$SHELL -lc LINE`): the line is handed to that shell unchanged, quoted for the
    /// `sh -c` hookrig starts it from.
    fn command_line<'a>(
        &self,
        line: &'a str,
        _invocation: &Invocation,
    ) -> (Cow<'a, str>, Vec<(String, String)>) {
        (Cow::Owned(login_shell_line(line)), Vec::new())
    }

    fn env(
        &self,
        _hook: &str,
        _invocation: &Invocation,
        configured: &[(String, String)],
    ) -> EnvPolicy {
        // Codex adds no variable of its own to a configured hook's environment.
        EnvPolicy::Inherit {
            set: configured.to_vec(),
        }
    }

    fn reply(
        &self,
        hook: &str,
        limits: &Limits,
        _invocation: &Invocation,
        output: &ProcessOutput,
    ) -> Reply {
        reply(&self.0, hook, limits, output)
    }
}

impl DialectProtocol for CodexProtocol {
    fn dialect(&self) -> Dialect {
        Dialect::Codex
    }

    fn definition(&self) -> String {
        format!("Codex({:?})", self.0)
    }
}

/// `exec "${SHELL:-/bin/sh}" -lc 'LINE'`, with `LINE` quoted for `sh`.
pub(crate) fn login_shell_line(line: &str) -> String {
    format!(
        "exec \"${{SHELL:-/bin/sh}}\" -lc '{}'",
        line.replace('\'', r"'\''")
    )
}

/// Longest reason taken from stderr.
const REASON_CAP: usize = 1024;

/// Canonical payload fields that are presented under Codex's own names.
const PRESENTED: &[&str] = &[
    "event",
    "session",
    "tool",
    "session_id",
    "turn_id",
    "agent_id",
    "agent_type",
    "transcript_path",
    "agent_transcript_path",
    "cwd",
    "hook_event_name",
    "model",
    "permission_mode",
    "tool_name",
    "tool_input",
    "tool_response",
    "tool_use_id",
    "prompt",
    "source",
    "trigger",
    "stop_hook_active",
    "last_assistant_message",
];

/// The hook input, as Codex sends it for the hook's event: the fields every event has,
/// the event's own fields (from the payload, else the value Codex would send when it has
/// none), then every other payload field.
pub(crate) fn input(def: &CodexHook, invocation: &Invocation) -> HookInput {
    let context = &invocation.context;
    let payload = invocation.payload.as_map();
    let field = |key: &str| payload.get(key).cloned();
    let tool = payload.get("tool").and_then(Value::as_object);
    let tool_field = |key: &str| tool.and_then(|t| t.get(key)).cloned();
    let text = |value: Option<Value>, default: &str| Some(value.unwrap_or_else(|| json!(default)));

    let mut input = HookInput {
        session_id: Some(Value::String(context.session_id.clone())),
        transcript_path: Some(field("transcript_path").unwrap_or(Value::Null)),
        cwd: Some(Value::String(context.cwd.to_string_lossy().into_owned())),
        hook_event_name: Some(def.event.clone()),
        model: text(field("model"), ""),
        ..HookInput::default()
    };
    let fields = events::by_name(&def.event).map_or(&[][..], |event| event.fields);
    // Subagent fields are optional on the events that only carry them inside a
    // subagent, and always there on `SubagentStart` and `SubagentStop`.
    let subagent_event = matches!(def.event.as_str(), "SubagentStart" | "SubagentStop");
    for name in fields {
        match *name {
            "turn_id" => input.turn_id = text(field("turn_id"), ""),
            "agent_id" if subagent_event => input.agent_id = text(field("agent_id"), ""),
            "agent_id" => input.agent_id = field("agent_id"),
            "agent_type" if subagent_event => input.agent_type = text(field("agent_type"), ""),
            "agent_type" => input.agent_type = field("agent_type"),
            "agent_transcript_path" => {
                input.agent_transcript_path =
                    Some(field("agent_transcript_path").unwrap_or(Value::Null));
            }
            "permission_mode" => input.permission_mode = text(field("permission_mode"), "default"),
            "tool_name" => {
                let name = invocation.payload.tool_name().unwrap_or("").to_owned();
                input.tool_name = Some(Value::String(name));
            }
            "tool_input" => input.tool_input = Some(tool_field("input").unwrap_or(json!({}))),
            "tool_response" => {
                input.tool_response = Some(tool_field("output").unwrap_or(Value::Null));
            }
            "tool_use_id" => input.tool_use_id = text(tool_field("call_id"), ""),
            "prompt" => input.prompt = text(field("prompt"), ""),
            "source" => input.source = text(field("source"), "startup"),
            "trigger" => input.trigger = text(field("trigger"), ""),
            "stop_hook_active" => {
                input.stop_hook_active = Some(field("stop_hook_active").unwrap_or(json!(false)));
            }
            "last_assistant_message" => {
                input.last_assistant_message =
                    Some(field("last_assistant_message").unwrap_or(Value::Null));
            }
            _ => {}
        }
    }
    for (key, value) in payload {
        if !PRESENTED.contains(&key.as_str()) {
            input.rest.insert(key.clone(), value.clone());
        }
    }
    input
}

fn failure(kind: FailureKind, message: String) -> Reply {
    Reply::Failure(Failure { kind, message })
}

fn reply(def: &CodexHook, hook: &str, limits: &Limits, output: &ProcessOutput) -> Reply {
    let answer = events::by_name(&def.event).map_or(Answer::Compact, |event| event.answer);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stderr = cut(stderr.trim(), REASON_CAP);
    match crate::native::exit_code(hook, limits, &output.termination) {
        Err(failure) => Reply::Failure(failure),
        Ok(0) => read_output(def, hook, answer, &output.stdout),
        Ok(2) if answer.exit_2_blocks() => {
            if stderr.is_empty() {
                failure(
                    FailureKind::Exit,
                    format!(
                        "hook {hook}: {} hook exited with code 2 but did not write a reason to stderr",
                        def.event
                    ),
                )
            } else {
                Reply::Verdict(Verdict::deny(stderr))
            }
        }
        Ok(code) if stderr.is_empty() => failure(
            FailureKind::Exit,
            format!("hook {hook} exited with code {code}"),
        ),
        Ok(code) => failure(
            FailureKind::Exit,
            format!("hook {hook} exited with code {code}: {stderr}"),
        ),
    }
}

/// Reads what a hook printed on exit 0.
fn read_output(def: &CodexHook, hook: &str, answer: Answer, stdout: &[u8]) -> Reply {
    let text = String::from_utf8_lossy(stdout);
    let text = text.trim();
    if text.is_empty() {
        return Reply::Verdict(Verdict::allow());
    }
    let parsed = match serde_json::from_str::<Value>(text) {
        Ok(value @ Value::Object(_)) => serde_json::from_value::<HookOutput>(value).ok(),
        Ok(_) | Err(_) => None,
    };
    let output = match parsed {
        Some(output) => output,
        // Codex refuses every `Stop` and `SubagentStop` output that is not its JSON.
        None if answer == Answer::Stop || text.starts_with(['{', '[']) => {
            return failure(
                FailureKind::Malformed,
                format!("hook {hook} returned invalid {} JSON output", def.event),
            );
        }
        None => {
            let mut verdict = Verdict::allow();
            if answer.text_is_context() {
                verdict.context = Some(text.to_owned());
            }
            return Reply::Verdict(verdict);
        }
    };
    if let Err(problem) = accepted_fields(answer, &output) {
        return failure(
            FailureKind::Malformed,
            format!(
                "hook {hook} returned invalid {} JSON output: {problem}",
                def.event
            ),
        );
    }
    match read_json(&def.event, hook, answer, &output) {
        Ok(verdict) => Reply::Verdict(verdict),
        Err(problem) => failure(
            FailureKind::Malformed,
            format!("hook {hook}: {} hook returned {problem}", def.event),
        ),
    }
}

/// The event's own output schema: which fields it accepts and which values they may
/// take. What Codex refuses while parsing, before reading any field.
fn accepted_fields(answer: Answer, output: &HookOutput) -> Result<(), String> {
    if !answer.has_decision() {
        for (name, present) in [
            ("decision", output.decision.is_some()),
            ("reason", output.reason.is_some()),
        ] {
            if present {
                return Err(format!("unknown field `{name}`"));
            }
        }
    }
    match output.decision.as_deref() {
        None | Some("block") => {}
        Some("approve") if answer == Answer::PreTool => {}
        Some(other) => return Err(format!("unknown decision `{other}`")),
    }
    let Some(specific) = &output.hook_specific_output else {
        return Ok(());
    };
    if !answer.has_specific() {
        return Err("unknown field `hookSpecificOutput`".to_owned());
    }
    if events::by_name(&specific.hook_event_name).is_none() {
        return Err(format!(
            "unknown hookEventName `{}`",
            specific.hook_event_name
        ));
    }
    let HookSpecificOutput {
        permission_decision,
        permission_decision_reason,
        updated_input,
        additional_context,
        decision,
        updated_mcp_tool_output,
        ..
    } = specific;
    let fields = [
        (
            "permissionDecision",
            permission_decision.is_some(),
            answer == Answer::PreTool,
        ),
        (
            "permissionDecisionReason",
            permission_decision_reason.is_some(),
            answer == Answer::PreTool,
        ),
        (
            "updatedInput",
            updated_input.is_some(),
            answer == Answer::PreTool,
        ),
        (
            "additionalContext",
            additional_context.is_some(),
            answer.reads_context(),
        ),
        ("decision", decision.is_some(), answer == Answer::Permission),
        (
            "updatedMCPToolOutput",
            updated_mcp_tool_output.is_some(),
            answer == Answer::PostTool,
        ),
    ];
    for (name, present, accepted) in fields {
        if present && !accepted {
            return Err(format!("unknown field `hookSpecificOutput.{name}`"));
        }
    }
    match permission_decision.as_deref() {
        None | Some("allow" | "deny" | "ask") => {}
        Some(other) => return Err(format!("unknown permissionDecision `{other}`")),
    }
    match decision.as_ref().map(|d| d.behavior.as_str()) {
        None | Some("allow" | "deny") => Ok(()),
        Some(other) => Err(format!("unknown decision.behavior `{other}`")),
    }
}

/// A reason with its surrounding whitespace trimmed; `None` when nothing is left.
fn trimmed(reason: Option<&str>) -> Option<String> {
    reason
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(str::to_owned)
}

/// The output of a hook, read into a verdict as Codex reads it for `answer`; the error
/// is why Codex counts the hook as failed.
fn read_json(
    event: &str,
    hook: &str,
    answer: Answer,
    output: &HookOutput,
) -> Result<Verdict, String> {
    let mut verdict = Verdict::allow();
    if let Some(message) = &output.system_message {
        verdict.warnings.push(format!("hook {hook}: {message}"));
    }
    let stopped = output.proceed == Some(false);
    let specific = output.hook_specific_output.clone().unwrap_or_default();
    if matches!(answer, Answer::PreTool | Answer::Permission) {
        if stopped {
            return Err("unsupported continue:false".to_owned());
        }
        if output.stop_reason.is_some() {
            return Err("unsupported stopReason".to_owned());
        }
    }
    if output.suppress_output == Some(true)
        && matches!(
            answer,
            Answer::PreTool | Answer::Permission | Answer::PostTool
        )
    {
        return Err("unsupported suppressOutput".to_owned());
    }
    let stop_reason = |default: String| trimmed(output.stop_reason.as_deref()).unwrap_or(default);
    let block = output.decision.as_deref() == Some("block");
    let block_reason = trimmed(output.reason.as_deref());
    if answer.reads_context() {
        verdict.context.clone_from(&specific.additional_context);
    }
    // `continue: false` stops Codex on every event that reads it (`SubagentStart` does
    // not), whatever the decision; the reason is the `stopReason`, else Codex's words.
    if stopped && answer.stops() {
        verdict.stop = Some(Stop {
            reason: Some(stop_reason(format!("{event} hook stopped execution"))),
        });
    }
    match answer {
        Answer::PreTool => read_pre_tool(output, specific, &mut verdict)?,
        Answer::Permission => read_permission(hook, specific, &mut verdict)?,
        Answer::PostTool => {
            if block {
                let reason =
                    block_reason.ok_or("decision:block without a non-empty reason".to_owned())?;
                verdict.action = Action::Deny;
                verdict.reason = Some(reason);
            } else if output.reason.is_some() {
                return Err("reason without decision".to_owned());
            }
            if specific.updated_mcp_tool_output.is_some() {
                verdict.warnings.push(format!(
                    "hook {hook}: updatedMCPToolOutput is not applied by hookrig"
                ));
            }
        }
        Answer::Start { .. } | Answer::Compact => {}
        Answer::Prompt | Answer::Stop => {
            if block {
                let reason =
                    block_reason.ok_or("decision:block without a non-empty reason".to_owned())?;
                verdict.action = Action::Deny;
                verdict.reason = Some(reason);
            }
        }
    }
    if verdict.action == Action::Deny {
        verdict.context = None;
    }
    Ok(verdict)
}

/// `PermissionRequest`: `decision.behavior`, with Codex's reserved fields refused.
fn read_permission(
    hook: &str,
    specific: HookSpecificOutput,
    verdict: &mut Verdict,
) -> Result<(), String> {
    let Some(decision) = specific.decision else {
        return Ok(());
    };
    if decision.updated_input.is_some() {
        return Err("unsupported updatedInput".to_owned());
    }
    if decision.updated_permissions.is_some() {
        return Err("unsupported updatedPermissions".to_owned());
    }
    if decision.interrupt == Some(true) {
        return Err("unsupported interrupt:true".to_owned());
    }
    if decision.behavior == "deny" {
        verdict.action = Action::Deny;
        verdict.reason = Some(
            trimmed(decision.message.as_deref())
                .unwrap_or_else(|| "PermissionRequest hook denied approval".to_owned()),
        );
    } else {
        // An explicit allow is told from saying nothing by its reason, which the host
        // answer reads (see host.rs).
        verdict.reason = Some(format!("allowed by hook {hook}"));
    }
    Ok(())
}

/// `PreToolUse`: `hookSpecificOutput` decides when it says anything about the decision,
/// otherwise the legacy top-level `decision`.
fn read_pre_tool(
    output: &HookOutput,
    specific: HookSpecificOutput,
    verdict: &mut Verdict,
) -> Result<(), String> {
    let decision = specific.permission_decision.as_deref();
    let reason = trimmed(specific.permission_decision_reason.as_deref());
    let specific_decides = decision.is_some()
        || specific.permission_decision_reason.is_some()
        || specific.updated_input.is_some();
    if specific_decides {
        match (decision, specific.updated_input) {
            (Some("allow"), Some(updated)) => {
                verdict.action = Action::Modify;
                let mut patch = Map::new();
                patch.insert("tool".to_owned(), json!({ "input": updated }));
                verdict.patch = Some(patch);
            }
            (_, Some(_)) => {
                return Err("updatedInput without permissionDecision:allow".to_owned());
            }
            (Some("allow"), None) => return Err("unsupported permissionDecision:allow".to_owned()),
            (Some("ask"), None) => return Err("unsupported permissionDecision:ask".to_owned()),
            (Some(_), None) => {
                let reason = reason.ok_or(
                    "permissionDecision:deny without a non-empty permissionDecisionReason"
                        .to_owned(),
                )?;
                verdict.action = Action::Deny;
                verdict.reason = Some(reason);
            }
            (None, None) => {
                return Err("permissionDecisionReason without permissionDecision".to_owned());
            }
        }
        return Ok(());
    }
    match output.decision.as_deref() {
        Some("approve") => Err("unsupported decision:approve".to_owned()),
        Some(_) => {
            let reason = trimmed(output.reason.as_deref())
                .ok_or("decision:block without a non-empty reason".to_owned())?;
            verdict.action = Action::Deny;
            verdict.reason = Some(reason);
            Ok(())
        }
        None if output.reason.is_some() => Err("reason without decision".to_owned()),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;
    use std::path::PathBuf;
    use std::sync::Arc;
    use std::time::Duration;

    use hookrig_core::{EventContext, Payload};
    use test_case::test_case;

    use super::*;

    fn def(event: &str) -> CodexHook {
        CodexHook {
            event: event.to_owned(),
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

    /// The reply in one line: the action and what comes with it, or the failure.
    fn rendered(reply: Reply) -> String {
        match reply {
            Reply::Failure(f) => format!("failure({:?}): {}", f.kind, f.message),
            Reply::Verdict(v) => {
                let mut text = v.action.as_str().to_owned();
                if let Some(reason) = v.reason {
                    let _ = write!(text, " reason={reason}");
                }
                if let Some(context) = v.context {
                    let _ = write!(text, " context={context}");
                }
                if let Some(patch) = v.patch {
                    let _ = write!(text, " patch={}", Value::Object(patch));
                }
                if !v.warnings.is_empty() {
                    let _ = write!(text, " warnings={:?}", v.warnings);
                }
                if let Some(stop) = v.stop {
                    let _ = write!(text, " stop={}", stop.reason.unwrap_or_default());
                }
                text
            }
        }
    }

    const DENY_RM: &str = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":" no rm "}}"#;

    // Every exit-code and output rule, per event: the hook's exit code, stdout and
    // stderr, and what hookrig reads from them.
    #[test_case("PreToolUse", 0, "", "", "allow" ; "pre empty")]
    #[test_case("PreToolUse", 0, "debug noise", "", "allow" ; "pre plain text ignored")]
    #[test_case("PreToolUse", 0, DENY_RM, "", "deny reason=no rm" ; "pre deny")]
    #[test_case("PreToolUse", 0, r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"  "}}"#, "", "failure(Malformed): hook h: PreToolUse hook returned permissionDecision:deny without a non-empty permissionDecisionReason" ; "pre deny empty reason")]
    #[test_case("PreToolUse", 0, r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#, "", "failure(Malformed): hook h: PreToolUse hook returned unsupported permissionDecision:allow" ; "pre allow alone")]
    #[test_case("PreToolUse", 0, r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls"}}}"#, "", r#"modify patch={"tool":{"input":{"command":"ls"}}}"# ; "pre allow with input")]
    #[test_case("PreToolUse", 0, r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?"}}"#, "", "failure(Malformed): hook h: PreToolUse hook returned unsupported permissionDecision:ask" ; "pre ask")]
    #[test_case("PreToolUse", 0, r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{}}}"#, "", "failure(Malformed): hook h: PreToolUse hook returned updatedInput without permissionDecision:allow" ; "pre input without allow")]
    #[test_case("PreToolUse", 0, r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecisionReason":"x"}}"#, "", "failure(Malformed): hook h: PreToolUse hook returned permissionDecisionReason without permissionDecision" ; "pre reason without decision")]
    #[test_case("PreToolUse", 0, r#"{"continue":false,"stopReason":"halt"}"#, "", "failure(Malformed): hook h: PreToolUse hook returned unsupported continue:false" ; "pre continue false")]
    #[test_case("PreToolUse", 0, r#"{"suppressOutput":true}"#, "", "failure(Malformed): hook h: PreToolUse hook returned unsupported suppressOutput" ; "pre suppress output")]
    #[test_case("PreToolUse", 0, r#"{"decision":"block","reason":"legacy"}"#, "", "deny reason=legacy" ; "pre legacy block")]
    #[test_case("PreToolUse", 0, r#"{"decision":"block"}"#, "", "failure(Malformed): hook h: PreToolUse hook returned decision:block without a non-empty reason" ; "pre legacy block without reason")]
    #[test_case("PreToolUse", 0, r#"{"decision":"approve"}"#, "", "failure(Malformed): hook h: PreToolUse hook returned unsupported decision:approve" ; "pre legacy approve")]
    #[test_case("PreToolUse", 0, r#"{"reason":"why"}"#, "", "failure(Malformed): hook h: PreToolUse hook returned reason without decision" ; "pre reason alone")]
    #[test_case("PreToolUse", 0, r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"mind the tests"},"systemMessage":"hi"}"#, "", r#"allow context=mind the tests warnings=["hook h: hi"]"# ; "pre context and message")]
    #[test_case("PreToolUse", 0, r#"{"decison":"block"}"#, "", "failure(Malformed): hook h returned invalid PreToolUse JSON output" ; "pre unknown field")]
    #[test_case("PreToolUse", 0, r#"{"hookSpecificOutput":{"hookEventName":"Nope"}}"#, "", "failure(Malformed): hook h returned invalid PreToolUse JSON output: unknown hookEventName `Nope`" ; "pre unknown event name")]
    #[test_case("PreToolUse", 0, r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","decision":{"behavior":"deny"}}}"#, "", "failure(Malformed): hook h returned invalid PreToolUse JSON output: unknown field `hookSpecificOutput.decision`" ; "pre field of another event")]
    #[test_case("PreToolUse", 0, "{not json", "", "failure(Malformed): hook h returned invalid PreToolUse JSON output" ; "pre broken json")]
    #[test_case("PreToolUse", 2, "", "no rm\n", "deny reason=no rm" ; "pre exit 2")]
    #[test_case("PreToolUse", 2, DENY_RM, "", "failure(Exit): hook h: PreToolUse hook exited with code 2 but did not write a reason to stderr" ; "pre exit 2 without stderr")]
    #[test_case("PreToolUse", 1, "", "oops", "failure(Exit): hook h exited with code 1: oops" ; "pre exit 1")]
    #[test_case("PermissionRequest", 0, r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#, "", "allow reason=allowed by hook h" ; "permission allow")]
    #[test_case("PermissionRequest", 0, r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no"}}}"#, "", "deny reason=no" ; "permission deny")]
    #[test_case("PermissionRequest", 0, r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny"}}}"#, "", "deny reason=PermissionRequest hook denied approval" ; "permission deny without message")]
    #[test_case("PermissionRequest", 0, r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{}}}}"#, "", "failure(Malformed): hook h: PermissionRequest hook returned unsupported updatedInput" ; "permission updated input")]
    #[test_case("PermissionRequest", 0, r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":[]}}}"#, "", "failure(Malformed): hook h: PermissionRequest hook returned unsupported updatedPermissions" ; "permission updated permissions")]
    #[test_case("PermissionRequest", 0, r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","interrupt":true}}}"#, "", "failure(Malformed): hook h: PermissionRequest hook returned unsupported interrupt:true" ; "permission interrupt")]
    #[test_case("PermissionRequest", 0, r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"ask"}}}"#, "", "failure(Malformed): hook h returned invalid PermissionRequest JSON output: unknown decision.behavior `ask`" ; "permission ask")]
    #[test_case("PermissionRequest", 0, r#"{"continue":false}"#, "", "failure(Malformed): hook h: PermissionRequest hook returned unsupported continue:false" ; "permission continue false")]
    #[test_case("PermissionRequest", 2, "", "not now", "deny reason=not now" ; "permission exit 2")]
    #[test_case("PostToolUse", 0, r#"{"decision":"block","reason":"looks wrong"}"#, "", "deny reason=looks wrong" ; "post block")]
    #[test_case("PostToolUse", 0, r#"{"decision":"block","reason":""}"#, "", "failure(Malformed): hook h: PostToolUse hook returned decision:block without a non-empty reason" ; "post block without reason")]
    #[test_case("PostToolUse", 0, r#"{"reason":"x"}"#, "", "failure(Malformed): hook h: PostToolUse hook returned reason without decision" ; "post reason alone")]
    #[test_case("PostToolUse", 0, r#"{"continue":false,"stopReason":"enough"}"#, "", "allow stop=enough" ; "post continue false")]
    #[test_case("PostToolUse", 0, r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"ran ls"}}"#, "", "allow context=ran ls" ; "post context")]
    #[test_case("PostToolUse", 0, r#"{"suppressOutput":true}"#, "", "failure(Malformed): hook h: PostToolUse hook returned unsupported suppressOutput" ; "post suppress output")]
    #[test_case("PostToolUse", 2, "", "check the output", "deny reason=check the output" ; "post exit 2 feedback")]
    #[test_case("UserPromptSubmit", 0, "today is monday\n", "", "allow context=today is monday" ; "prompt plain text context")]
    #[test_case("UserPromptSubmit", 0, r#"{"decision":"block","reason":"secret"}"#, "", "deny reason=secret" ; "prompt block")]
    #[test_case("UserPromptSubmit", 0, r#"{"continue":false,"stopReason":"pause"}"#, "", "allow stop=pause" ; "prompt continue false")]
    #[test_case("UserPromptSubmit", 0, r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"ctx"}}"#, "", "allow context=ctx" ; "prompt context")]
    #[test_case("UserPromptSubmit", 0, "[1, 2]", "", "failure(Malformed): hook h returned invalid UserPromptSubmit JSON output" ; "prompt array")]
    #[test_case("UserPromptSubmit", 2, "", "blocked by policy\n", "deny reason=blocked by policy" ; "prompt exit 2")]
    #[test_case("SessionStart", 0, "hello from hook\n", "", "allow context=hello from hook" ; "session plain text context")]
    #[test_case("SessionStart", 0, r#"{"continue":false,"stopReason":"no session"}"#, "", "allow stop=no session" ; "session continue false")]
    #[test_case("SessionStart", 0, r#"{"decision":"block","reason":"x"}"#, "", "failure(Malformed): hook h returned invalid SessionStart JSON output: unknown field `decision`" ; "session decision refused")]
    #[test_case("SessionStart", 2, "", "no", "failure(Exit): hook h exited with code 2: no" ; "session exit 2 is a failure")]
    #[test_case("SubagentStart", 0, r#"{"continue":false}"#, "", "allow" ; "subagent start continue false ignored")]
    #[test_case("SubagentStart", 0, r#"{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"be brief"}}"#, "", "allow context=be brief" ; "subagent start context")]
    #[test_case("Stop", 0, r#"{"decision":"block","reason":"run the tests"}"#, "", "deny reason=run the tests" ; "stop block")]
    #[test_case("Stop", 0, r#"{"decision":"block"}"#, "", "failure(Malformed): hook h: Stop hook returned decision:block without a non-empty reason" ; "stop block without reason")]
    #[test_case("Stop", 0, "done", "", "failure(Malformed): hook h returned invalid Stop JSON output" ; "stop plain text")]
    #[test_case("Stop", 0, r#"{"continue":false,"stopReason":"enough"}"#, "", "allow stop=enough" ; "stop continue false")]
    #[test_case("Stop", 0, r#"{"continue":false,"decision":"block","reason":"more"}"#, "", "deny reason=more stop=Stop hook stopped execution" ; "stop continue false wins over block")]
    #[test_case("SubagentStop", 0, r#"{"continue":false,"stopReason":"done"}"#, "", "allow stop=done" ; "subagent stop continue false")]
    #[test_case("PostToolUse", 0, r#"{"continue":false,"decision":"block","reason":"bad"}"#, "", "deny reason=bad stop=PostToolUse hook stopped execution" ; "post continue false with block")]
    #[test_case("Stop", 0, r#"{"hookSpecificOutput":{"hookEventName":"Stop"}}"#, "", "failure(Malformed): hook h returned invalid Stop JSON output: unknown field `hookSpecificOutput`" ; "stop specific refused")]
    #[test_case("Stop", 2, "", "keep going", "deny reason=keep going" ; "stop exit 2")]
    #[test_case("SubagentStop", 0, r#"{"decision":"block","reason":"more"}"#, "", "deny reason=more" ; "subagent stop block")]
    #[test_case("PreCompact", 0, r#"{"continue":false}"#, "", "allow stop=PreCompact hook stopped execution" ; "pre compact continue false")]
    #[test_case("PreCompact", 2, "", "nope", "failure(Exit): hook h exited with code 2: nope" ; "pre compact exit 2")]
    #[test_case("PreCompact", 0, r#"{"hookSpecificOutput":{"hookEventName":"PreCompact","additionalContext":"x"}}"#, "", "failure(Malformed): hook h returned invalid PreCompact JSON output: unknown field `hookSpecificOutput`" ; "pre compact specific refused")]
    #[test_case("PostCompact", 0, r#"{"continue":false,"stopReason":"stop"}"#, "", "allow stop=stop" ; "post compact continue false")]
    fn reply_rules(event: &str, code: i32, stdout: &str, stderr: &str, expected: &str) {
        let reply = reply(
            &def(event),
            "h",
            &Limits::default(),
            &out(code, stdout, stderr),
        );
        assert_eq!(rendered(reply), expected);
    }

    #[test]
    fn exact_stdin_of_a_pre_tool_use_hook() {
        let inv = invocation(
            "PreToolUse",
            json!({"tool": {"name": "Bash", "input": {"command": "ls"}, "call_id": "call_1"},
                   "turn_id": "t1", "model": "gpt-5", "extra": 1}),
        );
        let stdin = CodexProtocol(def("PreToolUse")).stdin("h", &inv);
        assert_eq!(
            String::from_utf8(stdin).expect("utf-8"),
            r#"{"session_id":"s1","turn_id":"t1","transcript_path":null,"cwd":"/w","hook_event_name":"PreToolUse","model":"gpt-5","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"call_1","extra":1}"#
        );
    }

    #[test]
    fn stdin_of_events_without_a_tool_has_their_own_fields_only() {
        let inv = invocation("compact.before", json!({"trigger": "auto"}));
        assert_eq!(
            serde_json::to_value(input(&def("PreCompact"), &inv)).expect("serializes"),
            json!({"session_id": "s1", "turn_id": "", "transcript_path": null, "cwd": "/w",
                   "hook_event_name": "PreCompact", "model": "", "trigger": "auto"})
        );
        let inv = invocation("subagent.stop", json!({}));
        assert_eq!(
            serde_json::to_value(input(&def("SubagentStop"), &inv)).expect("serializes"),
            json!({"session_id": "s1", "turn_id": "", "agent_id": "", "agent_type": "",
                   "transcript_path": null, "agent_transcript_path": null, "cwd": "/w",
                   "hook_event_name": "SubagentStop", "model": "", "permission_mode": "default",
                   "stop_hook_active": false, "last_assistant_message": null})
        );
    }

    #[test]
    fn the_environment_is_inherited_with_nothing_added() {
        let inv = invocation("PreToolUse", json!({}));
        let configured = vec![("A".to_owned(), "1".to_owned())];
        let env = CodexProtocol(def("PreToolUse")).env("h", &inv, &configured);
        assert!(matches!(env, EnvPolicy::Inherit { set } if set == configured));
    }

    #[test]
    fn the_line_runs_in_a_login_shell_quoted_as_written() {
        assert_eq!(
            login_shell_line("echo 'a b' \"$HOME\""),
            r#"exec "${SHELL:-/bin/sh}" -lc 'echo '\''a b'\'' "$HOME"'"#
        );
    }

    // guards: changing the definition text untrusts every project hook of the dialect
    // (the shared pin in trust.rs, kept here so that the dialect's folder holds it).
    #[test]
    fn the_definition_keeps_the_text_hooks_were_trusted_with() {
        assert_eq!(
            CodexProtocol(def("PreToolUse")).definition(),
            r#"Codex(CodexHook { event: "PreToolUse" })"#
        );
    }

    // guards: a reply over the stdout cap that starts with whitespace must not read as
    // an empty reply (nothing), as in every dialect that reads stdout.
    #[test]
    fn a_truncated_reply_of_spaces_is_a_failure() {
        let limits = Limits::default();
        let mut output = out(0, "", "");
        output.stdout = vec![b' '; limits.stdout_cap];
        output.stdout_truncated = true;
        let inv = invocation("PreToolUse", json!({}));
        let reply = hookrig_exec::read_reply(
            &CodexProtocol(def("PreToolUse")),
            "big",
            &limits,
            &inv,
            &output,
        );
        assert_eq!(
            rendered(reply),
            "failure(Malformed): hook big: reply is larger than the 1 MiB stdout cap"
        );
    }
}
