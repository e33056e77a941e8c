//! The codex host format: Codex's hook input in, Codex's hook output out. The source of
//! each rule is in docs/dialects/codex.md.
//!
//! Input: the event is `hook_event_name` (an EVENT argument, when given, wins); the
//! canonical payload gets `session.id` from `session_id`, `session.cwd` from `cwd`,
//! `tool.name` / `tool.input` / `tool.call_id` / `tool.output` from `tool_name` /
//! `tool_input` / `tool_use_id` / `tool_response`, and keeps every other field as it is.
//!
//! Output: exit 0 with one JSON object that Codex's strict reading accepts for the
//! event: only the fields the event takes, a non-empty reason with every block or deny,
//! never an `ask` (which Codex refuses; hookrig denies instead, saying why).

use hookrig_core::{Decision, Dialect, Dispatched, HookResult, Outcome, Payload};
use serde_json::json;

use super::events::{self, Answer};
use super::wire::{HookInput, HookOutput, HookSpecificOutput, PermissionDecision};
use crate::host::{
    Host, HostAnswer, WireInput, canonical_payload, no_failure_answer, read_wire, refusal,
    stop_reason,
};

/// Codex's host mode.
pub(crate) const HOST: Host = Host::new(
    Dialect::Codex,
    read_wire::<HookInput>,
    answer,
    no_failure_answer,
    false,
);

impl WireInput for HookInput {
    fn event_name(&self) -> Option<&str> {
        self.hook_event_name.as_deref()
    }

    /// Codex's hook input in canonical shape: the `session` and `tool` sections
    /// first, then every other field under its own name.
    fn canonical(self) -> Payload {
        canonical_payload(
            [("id", self.session_id), ("cwd", self.cwd)],
            [
                ("name", self.tool_name),
                ("input", self.tool_input),
                ("call_id", self.tool_use_id),
                ("output", self.tool_response),
            ],
            [
                ("turn_id", self.turn_id),
                ("agent_id", self.agent_id),
                ("agent_type", self.agent_type),
                ("transcript_path", self.transcript_path),
                ("agent_transcript_path", self.agent_transcript_path),
                ("model", self.model),
                ("permission_mode", self.permission_mode),
                ("prompt", self.prompt),
                ("source", self.source),
                ("trigger", self.trigger),
                ("stop_hook_active", self.stop_hook_active),
                ("last_assistant_message", self.last_assistant_message),
            ],
            self.rest,
        )
    }
}

/// A reason Codex accepts: not empty once trimmed.
fn non_empty(reason: Option<&str>, fallback: impl FnOnce() -> String) -> String {
    reason
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map_or_else(fallback, str::to_owned)
}

/// Writes the refusal or the decision the event's answer takes into `out` and
/// `specific`.
fn decide(
    answer_kind: Option<Answer>,
    blocked: Option<&str>,
    dispatched: &Dispatched,
    out: &mut HookOutput,
    specific: &mut HookSpecificOutput,
) {
    match answer_kind {
        Some(Answer::PreTool) => {
            if let Some(reason) = blocked {
                specific.permission_decision = Some("deny".to_owned());
                specific.permission_decision_reason = Some(reason.to_owned());
            } else if dispatched
                .records
                .iter()
                .any(|r| r.result == HookResult::Modify)
            {
                // Codex applies a new tool input only with an explicit allow.
                specific.permission_decision = Some("allow".to_owned());
                specific.updated_input = Some(
                    dispatched
                        .payload
                        .as_map()
                        .get("tool")
                        .and_then(|t| t.get("input"))
                        .cloned()
                        .unwrap_or(json!({})),
                );
            }
        }
        Some(Answer::Permission) => {
            if let Some(reason) = blocked {
                specific.decision = Some(PermissionDecision {
                    behavior: "deny".to_owned(),
                    message: Some(reason.to_owned()),
                    ..PermissionDecision::default()
                });
            } else if dispatched
                .records
                .iter()
                .any(|r| r.result == HookResult::Allow && r.reason.is_some())
            {
                specific.decision = Some(PermissionDecision {
                    behavior: "allow".to_owned(),
                    ..PermissionDecision::default()
                });
            }
        }
        Some(Answer::PostTool | Answer::Prompt | Answer::Stop) => {
            if let Some(reason) = blocked {
                out.decision = Some("block".to_owned());
                out.reason = Some(reason.to_owned());
            }
        }
        Some(Answer::Start { stops: true } | Answer::Compact) => {
            if let Some(reason) = blocked {
                out.proceed = Some(false);
                out.stop_reason = Some(reason.to_owned());
            }
        }
        Some(Answer::Start { stops: false }) | None => {}
    }
}

fn answer(outcome: &Outcome<'_>, dispatched: &Dispatched) -> HostAnswer {
    let event = events::of_canonical(dispatched.event.as_str());
    let mut out = HookOutput::default();
    let mut specific = HookSpecificOutput::default();
    // Why the event is refused: the dispatcher's deny (or an ask, which Codex cannot
    // ask for), or on an event whose hooks run as notify hooks in hookrig (`Stop`,
    // `SessionStart`, `PermissionRequest`, ...), the first hook that denied it.
    let denier = dispatched
        .records
        .iter()
        .find(|record| record.result == HookResult::Deny);
    let answer_kind = event.map(|e| e.answer);
    // A stop wins over every decision. Codex reads `continue: false` on most events; on
    // `PreToolUse` and `PermissionRequest`, which refuse it, the closest answer is a
    // deny of the call; on `SubagentStart`, which ignores it, nothing can be said.
    let stop = dispatched.stop.as_ref();
    let stops_here = answer_kind.is_some_and(Answer::stops);
    let mut notes = Vec::new();
    if let Some(stop) = stop
        && !stops_here
    {
        notes.push(format!(
            "a hook stopped the agent ({}), which Codex cannot be told on {}{}",
            stop_reason(stop),
            event.map_or(dispatched.event.as_str(), |e| e.name),
            if matches!(answer_kind, Some(Answer::PreTool | Answer::Permission)) {
                ": the call is denied instead"
            } else {
                ""
            }
        ));
    }
    let blocked = match dispatched.decision {
        _ if stop.is_some() && stops_here => None,
        _ if stop.is_some()
            && matches!(answer_kind, Some(Answer::PreTool | Answer::Permission)) =>
        {
            stop.map(|stop| non_empty(Some(&stop_reason(stop)), || "stopped by a hook".to_owned()))
        }
        Decision::Deny | Decision::Ask => refusal(dispatched, "Codex").map(|reason| {
            non_empty(Some(&reason), || {
                format!(
                    "denied by hook {}",
                    dispatched.decided_by.as_deref().unwrap_or("hookrig")
                )
            })
        }),
        Decision::Allow => denier.map(|record| {
            non_empty(record.reason.as_deref(), || {
                format!("blocked by hook {}", record.name)
            })
        }),
    };
    let context: Vec<&str> = dispatched
        .context
        .iter()
        .chain(&dispatched.system_prompt_append)
        .map(String::as_str)
        .collect();
    let context = (!context.is_empty()).then(|| context.join("\n\n"));
    if let Some(stop) = stop
        && stops_here
    {
        out.proceed = Some(false);
        out.stop_reason = Some(non_empty(stop.reason.as_deref(), || stop_reason(stop)));
    }
    decide(
        answer_kind,
        blocked.as_deref(),
        dispatched,
        &mut out,
        &mut specific,
    );
    if blocked.is_none() && stop.is_none() && answer_kind.is_some_and(Answer::reads_context) {
        specific.additional_context = context;
    }
    if let Some(event) = event
        && specific != HookSpecificOutput::default()
    {
        event.name.clone_into(&mut specific.hook_event_name);
        out.hook_specific_output = Some(specific);
    }
    // The dispatcher's note that a deny of a notify event changed nothing is wrong here:
    // the answer above carries it to Codex.
    let honoured = |warning: &&String| {
        !(blocked.is_some()
            && denier.is_some_and(|d| {
                warning.starts_with(&format!("hook {}: `deny` ignored on notify event", d.name))
            }))
    };
    let warnings: Vec<&str> = outcome
        .warnings
        .iter()
        .filter(honoured)
        .map(String::as_str)
        .chain(notes.iter().map(String::as_str))
        .collect();
    if !warnings.is_empty() {
        out.system_message = Some(warnings.join("\n"));
    }
    let mut stdout = serde_json::to_string(&out).expect("the hook output always serializes");
    stdout.push('\n');
    HostAnswer {
        stdout,
        stderr: None,
        exit_code: HostAnswer::PROCEED,
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;

    use hookrig_core::{EventContext, Invocation};
    use test_case::test_case;

    use super::*;
    use crate::codex::CodexHook;
    use crate::codex::protocol::input;
    use serde_json::Value;

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
    fn pre_tool_use_input_in_canonical_shape() {
        let (event, payload) = read_json(
            None,
            &json!({"session_id": "s", "turn_id": "t", "transcript_path": null, "cwd": "/w",
                    "hook_event_name": "PreToolUse", "model": "gpt-5",
                    "permission_mode": "default", "tool_name": "Bash",
                    "tool_input": {"command": "ls"}, "tool_use_id": "c1", "extra": 2}),
        );
        assert_eq!(event, "PreToolUse");
        assert_eq!(
            payload,
            json!({"session": {"id": "s", "cwd": "/w"},
                   "tool": {"name": "Bash", "input": {"command": "ls"}, "call_id": "c1"},
                   "turn_id": "t", "transcript_path": null, "model": "gpt-5",
                   "permission_mode": "default", "extra": 2})
        );
        let (event, _) = read_json(Some("tool.before"), &json!({"hook_event_name": "Stop"}));
        assert_eq!(event, "tool.before");
        assert!(matches!(
            read(None, br#"{"session_id": "s"}"#),
            Err(HostError::NoEvent)
        ));
    }

    // guards: a Codex hook run by hookrig receives exactly what Codex sent hookrig.
    #[test_case(r#"{"session_id":"s","turn_id":"t","transcript_path":null,"cwd":"/w","hook_event_name":"PreToolUse","model":"m","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"c"}"# ; "pre tool use")]
    #[test_case(r#"{"session_id":"s","turn_id":"t","agent_id":"a","agent_type":"w","transcript_path":"/t","cwd":"/w","hook_event_name":"PermissionRequest","model":"m","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"rm -rf /","description":"clean"}}"# ; "permission request")]
    #[test_case(r#"{"session_id":"s","turn_id":"t","transcript_path":null,"cwd":"/w","hook_event_name":"PostToolUse","model":"m","permission_mode":"default","tool_name":"apply_patch","tool_input":{"command":"x"},"tool_response":{"ok":true},"tool_use_id":"c"}"# ; "post tool use")]
    #[test_case(r#"{"session_id":"s","turn_id":"t","transcript_path":null,"cwd":"/w","hook_event_name":"PreCompact","model":"m","trigger":"auto"}"# ; "pre compact")]
    #[test_case(r#"{"session_id":"s","turn_id":"t","transcript_path":null,"cwd":"/w","hook_event_name":"PostCompact","model":"m","trigger":"manual"}"# ; "post compact")]
    #[test_case(r#"{"session_id":"s","transcript_path":null,"cwd":"/w","hook_event_name":"SessionStart","model":"m","permission_mode":"default","source":"resume"}"# ; "session start")]
    #[test_case(r#"{"session_id":"s","turn_id":"t","transcript_path":null,"cwd":"/w","hook_event_name":"UserPromptSubmit","model":"m","permission_mode":"default","prompt":"hi"}"# ; "user prompt submit")]
    #[test_case(r#"{"session_id":"s","turn_id":"t","agent_id":"a","agent_type":"w","transcript_path":null,"cwd":"/w","hook_event_name":"SubagentStart","model":"m","permission_mode":"default"}"# ; "subagent start")]
    #[test_case(r#"{"session_id":"s","turn_id":"t","agent_id":"a","agent_type":"w","transcript_path":null,"agent_transcript_path":"/a","cwd":"/w","hook_event_name":"SubagentStop","model":"m","permission_mode":"default","stop_hook_active":true,"last_assistant_message":"done"}"# ; "subagent stop")]
    #[test_case(r#"{"session_id":"s","turn_id":"t","transcript_path":null,"cwd":"/w","hook_event_name":"Stop","model":"m","permission_mode":"default","stop_hook_active":false,"last_assistant_message":null}"# ; "stop")]
    fn a_codex_input_reaches_codex_hooks_as_sent(sent: &str) {
        let read = read(None, sent.as_bytes()).expect("valid input");
        let invocation = Invocation {
            context: Arc::new(EventContext {
                name: crate::events::resolve(&read.event),
                session_id: "s".to_owned(),
                cwd: PathBuf::from("/w"),
                env: None,
            }),
            payload: read.payload,
        };
        let hook = CodexHook { event: read.event };
        let presented = serde_json::to_string(&input(&hook, &invocation)).expect("serializes");
        assert_eq!(presented, sent);
    }
}
