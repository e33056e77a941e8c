//! The cursor host format: Cursor's hook input in, Cursor's hook output out.
//!
//! Input: the event is `hook_event_name` (an EVENT argument, when given, wins). The
//! canonical payload keeps every field Cursor sent under its own name, moves the tool
//! fields into the `tool` section (`tool_name`, `tool_input`, `tool_use_id`,
//! `tool_output` become `tool.name`, `tool.input`, `tool.call_id`, `tool.output`), and
//! adds the `session` section: `session.id` is `conversation_id`, `session.cwd` is `cwd`,
//! else the first workspace root, so that hookrig finds the project Cursor works in
//! (Cursor runs a user hook from `~/.cursor/`).
//!
//! Output: exit 0 with the JSON answer of the event, which Cursor reads on exit 0. Cursor
//! runs every hook of an event and merges their answers, deny over ask over allow;
//! hookrig does the same over the hooks it ran. A permission event is answered with
//! `permission` (and `user_message`, `agent_message` when denied or asked, and
//! `updated_input` on `preToolUse` when a hook changed the tool input);
//! `beforeSubmitPrompt` with `continue`; `stop` and `subagentStop` with
//! `followup_message` when a hook kept the agent working; `sessionStart` and
//! `postToolUse` with `additional_context`; `preCompact` with `user_message`. The
//! warnings go on stderr, which Cursor shows in its Hooks output channel.

use hookrig_core::{Decision, Dialect, Dispatched, HookResult, Outcome, Payload, Stopped};
use serde_json::{Map, Value};

use super::events::{self, Answer, AskMode, CursorEvent};
use super::wire::HookInput;
use crate::host::{
    Host, HostAnswer, WireInput, canonical_payload, no_failure_answer, read_wire, stop_reason,
};

/// Cursor's host mode.
pub(crate) const HOST: Host = Host::new(
    Dialect::Cursor,
    read_wire::<HookInput>,
    answer,
    no_failure_answer,
    false,
);

impl WireInput for HookInput {
    fn event_name(&self) -> Option<&str> {
        self.hook_event_name.as_deref()
    }

    /// Cursor's hook input in canonical shape: the `session` and `tool` sections
    /// first, then every other field under its own name.
    fn canonical(self) -> Payload {
        let cwd = self.rest.get("cwd").cloned().or_else(|| {
            self.workspace_roots
                .as_ref()
                .and_then(|roots| roots.get(0))
                .cloned()
        });
        canonical_payload(
            [("id", self.conversation_id.clone()), ("cwd", cwd)],
            [
                ("name", self.tool_name),
                ("input", self.tool_input),
                ("call_id", self.tool_use_id),
                ("output", self.tool_output),
            ],
            [
                ("conversation_id", self.conversation_id),
                ("generation_id", self.generation_id),
                ("model", self.model),
                ("model_id", self.model_id),
                ("model_params", self.model_params),
                ("cursor_version", self.cursor_version),
                ("workspace_roots", self.workspace_roots),
                ("user_email", self.user_email),
                ("transcript_path", self.transcript_path),
            ],
            self.rest,
        )
    }
}

/// The merged decision of the hooks, as Cursor merges answers: a deny wins over an ask,
/// an ask over an allow. Events hookrig dispatches as notify events (the shell, MCP and
/// file events, which Cursor accepts under their own names) do not combine their hooks'
/// answers, so the answer reads each hook's record; the reasons of every hook that
/// denied (or asked) are joined, as Cursor joins their messages.
fn merged(dispatched: &Dispatched) -> (Decision, Option<String>) {
    let reasons = |result: HookResult| -> Vec<String> {
        dispatched
            .records
            .iter()
            .filter(|r| r.result == result)
            .map(|r| {
                r.reason
                    .clone()
                    .unwrap_or_else(|| format!("{} by hook {}", result.as_str(), r.name))
            })
            .collect()
    };
    let joined = |mut reasons: Vec<String>, decided: Option<&String>| {
        if let Some(reason) = decided
            && !reasons.contains(reason)
        {
            reasons.insert(0, reason.clone());
        }
        (!reasons.is_empty()).then(|| reasons.join("\n"))
    };
    let denied = reasons(HookResult::Deny);
    if dispatched.decision == Decision::Deny || !denied.is_empty() {
        let decided = (dispatched.decision == Decision::Deny)
            .then_some(dispatched.reason.as_ref())
            .flatten();
        return (Decision::Deny, joined(denied, decided));
    }
    let asked = reasons(HookResult::Ask);
    if dispatched.decision == Decision::Ask || !asked.is_empty() {
        let decided = dispatched.reason.as_ref();
        return (Decision::Ask, joined(asked, decided));
    }
    (Decision::Allow, None)
}

fn answer(outcome: &Outcome<'_>, dispatched: &Dispatched) -> HostAnswer {
    let event = events::of_dispatched(dispatched.event.as_str());
    let answer = event.map_or(Answer::Nothing, |e| e.answer);
    let mut out = Map::new();
    let mut warnings_shown = false;
    if let Some(stop) = &dispatched.stop {
        return stopped(outcome, stop, event, answer);
    }
    match answer {
        Answer::Permission(mode) => permission(dispatched, event, mode, &mut out),
        Answer::Continue => proceed(dispatched, &mut out),
        Answer::Followup => {
            // Cursor keeps the last follow-up when several hooks give one.
            if let Some(message) = dispatched
                .records
                .iter()
                .filter(|r| r.result == HookResult::Deny)
                .filter_map(|r| r.reason.clone())
                .next_back()
            {
                text(&mut out, "followup_message", message);
            }
        }
        Answer::Session | Answer::PostTool => {
            if answer == Answer::Session
                && let Some(env) = session_env(dispatched)
            {
                out.insert("env".to_owned(), Value::Object(env));
            }
            let context: Vec<&str> = dispatched
                .context
                .iter()
                .chain(&dispatched.system_prompt_append)
                .map(String::as_str)
                .collect();
            if !context.is_empty() {
                text(&mut out, "additional_context", context.join("\n\n"));
            }
            let modified = dispatched
                .records
                .iter()
                .any(|r| r.result == HookResult::Modify);
            if answer == Answer::PostTool
                && modified
                && let Some(output) = tool_field(dispatched, "output")
            {
                out.insert("updated_mcp_tool_output".to_owned(), output);
            }
        }
        Answer::Compact => {
            if !outcome.warnings.is_empty() {
                text(&mut out, "user_message", outcome.warnings.join("\n"));
                warnings_shown = true;
            }
        }
        Answer::Nothing => {}
    }
    let mut stdout =
        serde_json::to_string(&Value::Object(out)).expect("the hook output always serializes");
    stdout.push('\n');
    // The `env` of the Cursor hooks was passed on above: the warning that only Cursor
    // passes it on is true, but not news here.
    let passed_on: Vec<String> = dispatched
        .records
        .iter()
        .filter(|r| {
            answer == Answer::Session && r.answer.as_ref().is_some_and(|a| a.get("env").is_some())
        })
        .map(|r| super::protocol::env_warning(&r.name))
        .collect();
    let warnings: Vec<String> = outcome
        .warnings
        .iter()
        .filter(|w| !passed_on.contains(w))
        .cloned()
        .collect();
    HostAnswer {
        stdout,
        stderr: (!warnings_shown)
            .then(|| stderr_warnings(&warnings))
            .flatten(),
        exit_code: HostAnswer::PROCEED,
    }
}

/// The answer when a hook stopped the agent. Cursor's hooks have no way to stop the
/// agent; its closest answers are used: a permission event is denied, a prompt is not
/// submitted (`continue: false`), a `stop` gets no follow-up (the agent stops as it
/// meant to); elsewhere nothing can be said. A warning on stderr says which.
fn stopped(
    outcome: &Outcome<'_>,
    stop: &Stopped,
    event: Option<&CursorEvent>,
    answer: Answer,
) -> HostAnswer {
    let reason = stop_reason(stop);
    let mut out = Map::new();
    let instead = match answer {
        Answer::Permission(_) => {
            text(&mut out, "permission", "deny".to_owned());
            text(&mut out, "user_message", reason.clone());
            text(&mut out, "agent_message", reason.clone());
            "the action is denied instead"
        }
        Answer::Continue => {
            out.insert("continue".to_owned(), Value::Bool(false));
            text(&mut out, "user_message", reason.clone());
            "the prompt is not submitted instead"
        }
        Answer::Followup => "no follow-up is sent, so the agent stops",
        Answer::Session | Answer::PostTool | Answer::Compact | Answer::Nothing => {
            "nothing can be said on this event"
        }
    };
    let mut warnings = outcome.warnings.to_vec();
    warnings.push(format!(
        "a hook stopped the agent ({reason}), which Cursor cannot be told on {}: {instead}",
        event.map_or("this event", |e| e.name)
    ));
    let mut stdout =
        serde_json::to_string(&Value::Object(out)).expect("the hook output always serializes");
    stdout.push('\n');
    HostAnswer {
        stdout,
        stderr: stderr_warnings(&warnings),
        exit_code: HostAnswer::PROCEED,
    }
}

/// The answer of a permission event: `permission`, its messages, and on `preToolUse`
/// the tool input the hooks changed.
fn permission(
    dispatched: &Dispatched,
    event: Option<&CursorEvent>,
    mode: AskMode,
    out: &mut Map<String, Value>,
) {
    let (decision, reason) = merged(dispatched);
    let cannot_ask = matches!(mode, AskMode::Denies | AskMode::Invalid);
    let (decision, reason) = match (decision, reason, cannot_ask) {
        // Where Cursor's schema has no ask, a hook that asked is refused, as hygge's and
        // x-code's hosts refuse it: nobody is there to confirm.
        (Decision::Ask, reason, true) => (
            Decision::Deny,
            Some(format!(
                "{} (a hook asked for confirmation, which Cursor cannot ask for here)",
                reason.as_deref().unwrap_or("confirmation needed")
            )),
        ),
        (decision, reason, _) => (decision, reason),
    };
    match decision {
        Decision::Allow => text(out, "permission", "allow".to_owned()),
        Decision::Deny => {
            let reason = reason.unwrap_or_else(|| "denied by hookrig".to_owned());
            text(out, "permission", "deny".to_owned());
            text(out, "user_message", reason.clone());
            text(out, "agent_message", reason);
        }
        Decision::Ask => {
            text(out, "permission", "ask".to_owned());
            if let Some(reason) = reason {
                text(out, "user_message", reason.clone());
                text(out, "agent_message", reason);
            }
        }
    }
    let modified = dispatched
        .records
        .iter()
        .any(|r| r.result == HookResult::Modify);
    if modified
        && decision != Decision::Deny
        && event.is_some_and(|e| e.name == "preToolUse")
        && let Some(input) = tool_field(dispatched, "input")
    {
        out.insert("updated_input".to_owned(), input);
    }
}

/// `beforeSubmitPrompt`'s answer: `continue`, and why not.
fn proceed(dispatched: &Dispatched, out: &mut Map<String, Value>) {
    match merged(dispatched) {
        (Decision::Allow, _) => {
            out.insert("continue".to_owned(), Value::Bool(true));
        }
        (Decision::Deny, reason) => {
            out.insert("continue".to_owned(), Value::Bool(false));
            let reason = reason.unwrap_or_else(|| "blocked by hookrig".to_owned());
            text(out, "user_message", reason);
        }
        // `beforeSubmitPrompt` has no ask: a hook that asked is refused, since nobody is
        // there to confirm.
        (Decision::Ask, reason) => {
            out.insert("continue".to_owned(), Value::Bool(false));
            let reason = format!(
                "{} (a hook asked for confirmation, which Cursor cannot ask for here)",
                reason.as_deref().unwrap_or("confirmation needed")
            );
            text(out, "user_message", reason);
        }
    }
}

/// The `env` of every Cursor `sessionStart` hook that gave one, merged in run order (a
/// later hook's variable replaces an earlier one's); `None` when none gave one.
fn session_env(dispatched: &Dispatched) -> Option<Map<String, Value>> {
    let mut env = Map::new();
    for record in dispatched.records.iter().filter(|r| r.skip.is_none()) {
        if let Some(Value::Object(vars)) = record.answer.as_ref().and_then(|a| a.get("env")) {
            env.extend(vars.clone());
        }
    }
    (!env.is_empty()).then_some(env)
}

/// Sets a text field of the answer.
fn text(out: &mut Map<String, Value>, key: &str, value: String) {
    out.insert(key.to_owned(), Value::String(value));
}

/// The tool section's `field` of the final payload.
fn tool_field(dispatched: &Dispatched, field: &str) -> Option<Value> {
    dispatched
        .payload
        .as_map()
        .get("tool")
        .and_then(|t| t.get(field))
        .cloned()
}

/// The warnings for stderr, leaving out the dispatcher's remark that a notify event's
/// hooks cannot change it: for the events Cursor lets its hooks decide, the answer
/// above is exactly what those hooks decided.
fn stderr_warnings(warnings: &[String]) -> Option<String> {
    let mut text = String::new();
    for warning in warnings {
        if warning.contains("ignored on notify event") {
            continue;
        }
        text.push_str("hookrig: warning: ");
        text.push_str(warning);
        text.push('\n');
    }
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::errors::HostError;
    use crate::host::HostInput;

    /// The host's reading of its stdin, as `hookrig emit --dialect` does it.
    fn read(event: Option<&str>, stdin: &[u8]) -> Result<HostInput, HostError> {
        HOST.read(event, stdin)
    }

    fn read_json(event: Option<&str>, input: &Value) -> (String, Value) {
        let read = read(event, input.to_string().as_bytes()).expect("valid input");
        (read.event, Value::Object(read.payload.into_map()))
    }

    #[test]
    fn a_shell_event_keeps_every_field_and_names_its_directory() {
        let (event, payload) = read_json(
            None,
            &json!({"conversation_id": "c1", "generation_id": "g1", "model": "m",
                    "hook_event_name": "beforeShellExecution", "cursor_version": "2.1.0",
                    "workspace_roots": ["/repo"], "user_email": null, "transcript_path": null,
                    "command": "rm -rf /", "cwd": "/repo/sub", "sandbox": false}),
        );
        assert_eq!(event, "beforeShellExecution");
        assert_eq!(
            payload,
            json!({"session": {"id": "c1", "cwd": "/repo/sub"},
                   "conversation_id": "c1", "generation_id": "g1", "model": "m",
                   "cursor_version": "2.1.0", "workspace_roots": ["/repo"],
                   "user_email": null, "transcript_path": null,
                   "command": "rm -rf /", "cwd": "/repo/sub", "sandbox": false})
        );
    }

    #[test]
    fn a_tool_event_fills_the_tool_section_and_an_event_without_cwd_uses_the_workspace() {
        let (_, payload) = read_json(
            Some("postToolUse"),
            &json!({"conversation_id": "c1", "workspace_roots": ["/repo"],
                    "tool_name": "MCP:db", "tool_input": {"q": 1}, "tool_use_id": "t1",
                    "tool_output": "rows", "duration": 5}),
        );
        assert_eq!(
            payload,
            json!({"session": {"id": "c1", "cwd": "/repo"},
                   "tool": {"name": "MCP:db", "input": {"q": 1}, "call_id": "t1", "output": "rows"},
                   "conversation_id": "c1", "workspace_roots": ["/repo"], "duration": 5})
        );
    }

    #[test]
    fn no_event_anywhere_is_an_error() {
        assert!(matches!(
            read(None, br#"{"conversation_id": "c"}"#),
            Err(HostError::NoEvent)
        ));
    }
}
