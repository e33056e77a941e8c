//! The claude host format: Claude Code's hook input in, Claude Code's hook output out.
//!
//! Input: the event is `hook_event_name` (an EVENT argument, when given, wins); the
//! canonical payload gets `session.id` from `session_id`, `session.cwd` from `cwd`,
//! `tool.name` / `tool.input` / `tool.call_id` / `tool.output` from `tool_name` /
//! `tool_input` / `tool_use_id` / `tool_response`, and keeps `prompt`,
//! `transcript_path`, `permission_mode` and every other field as they are.
//!
//! Output: exit 0 with one JSON object, which Claude Code reads on exit 0 for every event.
//! `PreToolUse` answers through `hookSpecificOutput.permissionDecision`; the other decision
//! events through `decision: "block"`; collected context is `additionalContext` where
//! Claude Code reads it; warnings are the `systemMessage`.

use hookrig_core::{Decision, Dialect, Dispatched, EventName, HookResult, Outcome, Payload};
use serde_json::{Map, Value, json};

use super::events;
use crate::errors::HostError;
use crate::host::{Host, HostAnswer, HostInput, no_failure_answer, parse_object};

/// Claude Code's host mode (also Codex, Cursor, Gemini and other agents that read that
/// format).
pub(crate) const HOST: Host = Host::new(Dialect::Claude, read, answer, no_failure_answer, false);

fn read(event: Option<&str>, stdin: &[u8]) -> Result<HostInput, HostError> {
    let input = parse_object(stdin)?.into_map();
    let event = match (event, input.get("hook_event_name").and_then(Value::as_str)) {
        (Some(event), _) | (None, Some(event)) => event.to_owned(),
        (None, None) => return Err(HostError::NoEvent),
    };
    Ok(HostInput {
        event,
        payload: canonical(input),
    })
}

/// Claude Code's hook input in canonical shape.
fn canonical(input: Map<String, Value>) -> Payload {
    let mut session = Map::new();
    let mut tool = Map::new();
    let mut rest = Map::new();
    for (key, value) in input {
        match key.as_str() {
            "hook_event_name" => {}
            "session_id" => {
                session.insert("id".to_owned(), value);
            }
            "cwd" => {
                session.insert("cwd".to_owned(), value);
            }
            "tool_name" => {
                tool.insert("name".to_owned(), value);
            }
            "tool_input" => {
                tool.insert("input".to_owned(), value);
            }
            "tool_use_id" => {
                tool.insert("call_id".to_owned(), value);
            }
            "tool_response" => {
                tool.insert("output".to_owned(), value);
            }
            _ => {
                rest.insert(key, value);
            }
        }
    }
    let mut map = Map::new();
    if !session.is_empty() {
        map.insert("session".to_owned(), Value::Object(session));
    }
    if !tool.is_empty() {
        map.insert("tool".to_owned(), Value::Object(tool));
    }
    map.extend(rest);
    Payload::from_map(map)
}

/// The Claude Code name of an event.
fn claude_name(event: &EventName) -> String {
    events::name_of(event.as_str()).map_or_else(|| event.as_str().to_owned(), str::to_owned)
}

/// The first hook that denied one of the notify events Claude Code lets hooks block.
fn blocking_notify(dispatched: &Dispatched) -> Option<&hookrig_core::HookRecord> {
    let blockable = matches!(
        dispatched.event.as_str(),
        "turn.complete" | "subagent.stop" | "compact.before"
    );
    blockable
        .then(|| {
            dispatched
                .records
                .iter()
                .find(|r| r.result == HookResult::Deny)
        })
        .flatten()
}

fn answer(outcome: &Outcome<'_>, dispatched: &Dispatched) -> HostAnswer {
    let event = claude_name(&dispatched.event);
    let mut out = Map::new();
    let mut specific = Map::new();
    let reason = || {
        dispatched
            .reason
            .clone()
            .or_else(|| {
                dispatched
                    .decided_by
                    .as_ref()
                    .map(|by| format!("denied by hook {by}"))
            })
            .unwrap_or_else(|| "denied by a hook".to_owned())
    };

    if event == "PreToolUse" {
        // The dispatcher keeps only the final payload: a hook that answered modify is
        // what changed the tool input.
        let modified = dispatched
            .records
            .iter()
            .any(|r| r.result == HookResult::Modify);
        match dispatched.decision {
            Decision::Deny => {
                specific.insert("permissionDecision".into(), json!("deny"));
                specific.insert("permissionDecisionReason".into(), json!(reason()));
            }
            Decision::Ask => {
                specific.insert("permissionDecision".into(), json!("ask"));
                if let Some(reason) = &dispatched.reason {
                    specific.insert("permissionDecisionReason".into(), json!(reason));
                }
            }
            // A plain allow says nothing: Claude Code reads `allow` as "skip the
            // permission prompt", which no hook asked for. A modified input needs a
            // decision to be applied, and the hooks that changed it let the call go on.
            Decision::Allow if modified => {
                specific.insert("permissionDecision".into(), json!("allow"));
            }
            Decision::Allow => {}
        }
        if modified && dispatched.decision != Decision::Deny {
            specific.insert(
                "updatedInput".into(),
                dispatched
                    .payload
                    .as_map()
                    .get("tool")
                    .and_then(|t| t.get("input"))
                    .cloned()
                    .unwrap_or(json!({})),
            );
        }
    } else if dispatched.decision == Decision::Deny {
        out.insert("decision".into(), json!("block"));
        out.insert("reason".into(), json!(reason()));
    } else if let Some(blocker) = blocking_notify(dispatched) {
        // Stop, SubagentStop and PreCompact are notify events in hookrig (nothing waits
        // on them), but Claude Code lets a hook block them ("keep working"): a hook that
        // denied is answered as Claude's block.
        out.insert("decision".into(), json!("block"));
        out.insert(
            "reason".into(),
            json!(
                blocker
                    .reason
                    .clone()
                    .unwrap_or_else(|| format!("blocked by hook {}", blocker.name))
            ),
        );
    }

    let context: Vec<&str> = dispatched
        .context
        .iter()
        .chain(&dispatched.system_prompt_append)
        .map(String::as_str)
        .collect();
    if !context.is_empty() && events::by_name(&event).is_some_and(|e| e.reads_context) {
        specific.insert("additionalContext".into(), json!(context.join("\n\n")));
    }
    if !specific.is_empty() {
        let mut with_name = Map::new();
        with_name.insert("hookEventName".into(), json!(event));
        with_name.extend(specific);
        out.insert("hookSpecificOutput".into(), Value::Object(with_name));
    }
    if !outcome.warnings.is_empty() {
        out.insert("systemMessage".into(), json!(outcome.warnings.join("\n")));
    }
    let mut stdout = serde_json::to_string(&Value::Object(out)).expect("JSON always serializes");
    stdout.push('\n');
    HostAnswer {
        stdout,
        stderr: None,
        exit_code: HostAnswer::PROCEED,
    }
}
