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
use super::wire::{HookInput, HookOutput, HookSpecificOutput};
use crate::errors::HostError;
use crate::host::{Host, HostAnswer, HostInput, no_failure_answer, parse_object};
use crate::wire::Shaped;

/// Claude Code's host mode (also Codex, Cursor, Gemini and other agents that read that
/// format).
pub(crate) const HOST: Host = Host::new(Dialect::Claude, read, answer, no_failure_answer, false);

fn read(event: Option<&str>, stdin: &[u8]) -> Result<HostInput, HostError> {
    let input = parse_object(stdin)?.into_map();
    let input: HookInput =
        serde_json::from_value(Value::Object(input)).map_err(HostError::PayloadNotJson)?;
    let event = match (event, input.hook_event_name.as_deref()) {
        (Some(event), _) | (None, Some(event)) => event.to_owned(),
        (None, None) => return Err(HostError::NoEvent),
    };
    Ok(HostInput {
        event,
        payload: canonical(input),
    })
}

/// Claude Code's hook input in canonical shape: `session` and `tool` sections first, then
/// every other field under its own name.
fn canonical(input: HookInput) -> Payload {
    let session = section([("id", input.session_id), ("cwd", input.cwd)]);
    let tool = section([
        ("name", input.tool_name),
        ("input", input.tool_input),
        ("call_id", input.tool_use_id),
        ("output", input.tool_response),
    ]);
    let mut map = Map::new();
    let fields = [
        ("session", session),
        ("tool", tool),
        ("transcript_path", input.transcript_path),
        ("permission_mode", input.permission_mode),
        ("prompt", input.prompt),
    ];
    for (key, value) in fields {
        if let Some(value) = value {
            map.insert(key.to_owned(), value);
        }
    }
    map.extend(input.rest);
    Payload::from_map(map)
}

/// An object of the fields that are there, `None` when none is.
fn section<const N: usize>(fields: [(&str, Option<Value>); N]) -> Option<Value> {
    let section: Map<String, Value> = fields
        .into_iter()
        .filter_map(|(key, value)| Some((key.to_owned(), value?)))
        .collect();
    (!section.is_empty()).then_some(Value::Object(section))
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
    let mut out = HookOutput::default();
    let mut specific = HookSpecificOutput::default();
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
                specific.permission_decision = Some("deny".to_owned());
                specific.permission_decision_reason = Some(reason());
            }
            Decision::Ask => {
                specific.permission_decision = Some("ask".to_owned());
                specific
                    .permission_decision_reason
                    .clone_from(&dispatched.reason);
            }
            // A plain allow says nothing: Claude Code reads `allow` as "skip the
            // permission prompt", which no hook asked for. A modified input needs a
            // decision to be applied, and the hooks that changed it let the call go on.
            Decision::Allow if modified => {
                specific.permission_decision = Some("allow".to_owned());
            }
            Decision::Allow => {}
        }
        if modified && dispatched.decision != Decision::Deny {
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
    } else if dispatched.decision == Decision::Deny {
        out.decision = Some("block".to_owned());
        out.reason = Some(reason());
    } else if let Some(blocker) = blocking_notify(dispatched) {
        // Stop, SubagentStop and PreCompact are notify events in hookrig (nothing waits
        // on them), but Claude Code lets a hook block them ("keep working"): a hook that
        // denied is answered as Claude's block.
        out.decision = Some("block".to_owned());
        out.reason = Some(
            blocker
                .reason
                .clone()
                .unwrap_or_else(|| format!("blocked by hook {}", blocker.name)),
        );
    }

    let context: Vec<&str> = dispatched
        .context
        .iter()
        .chain(&dispatched.system_prompt_append)
        .map(String::as_str)
        .collect();
    if !context.is_empty() && events::by_name(&event).is_some_and(|e| e.reads_context) {
        specific.additional_context = Some(context.join("\n\n"));
    }
    if specific != HookSpecificOutput::default() {
        specific.hook_event_name = Some(event);
        out.hook_specific_output = Some(Shaped::Typed(specific));
    }
    if !outcome.warnings.is_empty() {
        out.system_message = Some(outcome.warnings.join("\n"));
    }
    let mut stdout = serde_json::to_string(&out).expect("the hook output always serializes");
    stdout.push('\n');
    HostAnswer {
        stdout,
        stderr: None,
        exit_code: HostAnswer::PROCEED,
    }
}
