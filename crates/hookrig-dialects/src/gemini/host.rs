//! The gemini host format: Gemini CLI's hook input in, Gemini CLI's hook output out
//! (docs/dialects/gemini.md gives the source of each rule).
//!
//! Input: the event is `hook_event_name` (an EVENT argument, when given, wins); the
//! canonical payload gets `session.id` from `session_id`, `session.cwd` from `cwd`,
//! `tool.name` / `tool.input` / `tool.output` from `tool_name` / `tool_input` /
//! `tool_response`, and keeps `transcript_path`, `timestamp` and every other field
//! (`prompt`, `llm_request`, `source`, ...) as they are.
//!
//! Output: exit 0 with one JSON object, the form Gemini CLI prefers. A deny is
//! `decision: "deny"` with its `reason` on the events Gemini CLI lets hooks block
//! (`BeforeTool`, `AfterTool`, `BeforeAgent`, `AfterAgent`, `AfterModel`); Gemini CLI has
//! no "ask", so a hook that asked for confirmation is answered as a deny that says so. A
//! changed tool input is `hookSpecificOutput.tool_input`, a changed tool result
//! `tool_output`, a changed model request `llm_request` and a response supplied by a
//! hook `llm_response`; collected context is `additionalContext` where Gemini CLI reads
//! it; warnings are the `systemMessage`.

use hookrig_core::{Decision, Dialect, Dispatched, EventName, HookResult, Outcome, Payload};
use serde_json::Value;

use super::events::{self, Flow};
use super::wire::{HookInput, HookOutput, HookSpecificOutput};
use crate::host::{
    Host, HostAnswer, WireInput, canonical_payload, no_failure_answer, read_wire, refusal,
    stop_reason,
};
use crate::wire::Shaped;

/// Gemini CLI's host mode. A failure of hookrig itself exits 1, which Gemini CLI reads
/// as a failed hook: a warning, and the action proceeds.
pub(crate) const HOST: Host = Host::new(
    Dialect::Gemini,
    read_wire::<HookInput>,
    answer,
    no_failure_answer,
    false,
);

impl WireInput for HookInput {
    fn event_name(&self) -> Option<&str> {
        self.hook_event_name.as_deref()
    }

    /// Gemini CLI's hook input in canonical shape: the `session` and `tool` sections
    /// first, then every other field under its own name.
    fn canonical(self) -> Payload {
        canonical_payload(
            [("id", self.session_id), ("cwd", self.cwd)],
            [
                ("name", self.tool_name),
                ("input", self.tool_input),
                ("output", self.tool_response),
            ],
            [
                ("transcript_path", self.transcript_path),
                ("timestamp", self.timestamp),
            ],
            self.rest,
        )
    }
}

/// The Gemini CLI name of an event.
fn gemini_name(event: &EventName) -> String {
    events::name_of(event.as_str()).map_or_else(|| event.as_str().to_owned(), str::to_owned)
}

/// The message the dispatcher adds when a hook denied a notify event. On `AfterAgent`
/// and `AfterModel`, which Gemini CLI lets hooks block while hookrig dispatches them as
/// notify events, the deny is answered, so the message would mislead.
fn ignored_deny(name: &str, event: &EventName) -> String {
    format!(
        "hook {name}: `deny` ignored on notify event {event}: notify hooks cannot change the event",
        event = event.as_str()
    )
}

/// The reasons of every hook that denied, one per line in the order the hooks are
/// listed, on the events whose answers Gemini CLI joins (its aggregator's OR of blocking
/// decisions: `BeforeTool`, `AfterTool`, `BeforeAgent`, `AfterAgent`, `SessionStart`);
/// `None` elsewhere (`AfterModel` keeps one answer's fields) and when no hook that
/// denied gave a reason.
fn joined_reasons(dispatched: &Dispatched, event: &str) -> Option<String> {
    const JOINED: [&str; 5] = [
        "BeforeTool",
        "AfterTool",
        "BeforeAgent",
        "AfterAgent",
        "SessionStart",
    ];
    if dispatched.decision == Decision::Ask || !JOINED.contains(&event) {
        return None;
    }
    let reasons: Vec<&str> = dispatched
        .records
        .iter()
        .filter(|r| r.result == HookResult::Deny)
        .filter_map(|r| r.reason.as_deref())
        .filter(|reason| !reason.is_empty())
        .collect();
    (!reasons.is_empty()).then(|| reasons.join("\n"))
}

fn answer(outcome: &Outcome<'_>, dispatched: &Dispatched) -> HostAnswer {
    let event = gemini_name(&dispatched.event);
    let known = events::by_name(&event);
    let blocks = known.is_some_and(|e| e.flow == Flow::Blocks);
    let mut out = HookOutput::default();
    let mut specific = HookSpecificOutput::default();
    let mut answered_deny = None;
    let mut notes = Vec::new();

    match (refusal(dispatched, "Gemini CLI"), &dispatched.stop) {
        // A stop wins over every decision: `continue: false` stops Gemini CLI's agent
        // loop on every event that reads flow control; an advisory event cannot carry
        // it, and the user is told.
        (_, Some(stop)) if blocks => {
            out.proceed = Some(false);
            out.stop_reason = Some(stop_reason(stop));
        }
        (_, Some(stop)) => notes.push(format!(
            "a hook stopped the agent ({}), which Gemini CLI does not read on {event}",
            stop_reason(stop)
        )),
        (Some(reason), None) if blocks => {
            out.decision = Some("deny".to_owned());
            out.reason = Some(joined_reasons(dispatched, &event).unwrap_or(reason));
        }
        (None, None) if blocks => {
            // `AfterAgent` and `AfterModel` are notify events in hookrig (nothing waits
            // on them), but Gemini CLI lets a hook reject the response: a hook that
            // denied is answered as Gemini's deny.
            if let Some(denier) = dispatched
                .records
                .iter()
                .find(|r| r.result == HookResult::Deny)
            {
                out.decision = Some("deny".to_owned());
                out.reason = Some(joined_reasons(dispatched, &event).unwrap_or_else(|| {
                    denier
                        .reason
                        .clone()
                        .unwrap_or_else(|| format!("denied by hook {}", denier.name))
                }));
                answered_deny = Some(ignored_deny(&denier.name, &dispatched.event));
            }
        }
        // An advisory event: Gemini CLI ignores flow control there.
        (Some(_) | None, None) => {}
    }

    let modified = dispatched
        .records
        .iter()
        .any(|r| r.result == HookResult::Modify);
    if modified && dispatched.decision != Decision::Deny && out.proceed.is_none() {
        let payload = dispatched.payload.as_map();
        let tool = |field: &str| payload.get("tool").and_then(|t| t.get(field)).cloned();
        match event.as_str() {
            "BeforeTool" => specific.tool_input = tool("input").filter(Value::is_object),
            "AfterTool" => {
                specific.tool_output = tool("output").and_then(|o| o.as_str().map(str::to_owned));
            }
            "BeforeModel" => {
                specific.llm_request = payload
                    .get("llm_request")
                    .filter(|r| r.is_object())
                    .cloned();
                specific.llm_response = payload
                    .get("llm_response")
                    .filter(|r| !r.is_null())
                    .cloned();
            }
            _ => {}
        }
    }

    let mut carried = Vec::new();
    if out.proceed.is_none() && out.decision.is_none() {
        carried = answered_from_records(dispatched, &event, &mut out, &mut specific);
    }

    let context: Vec<&str> = dispatched
        .context
        .iter()
        .chain(&dispatched.system_prompt_append)
        .map(String::as_str)
        .collect();
    if !context.is_empty() && known.is_some_and(|e| e.reads_context) {
        specific.additional_context = Some(context.join("\n"));
    }
    if specific != HookSpecificOutput::default() {
        specific.hook_event_name = Some(event);
        out.hook_specific_output = Some(Shaped::Typed(specific));
    }
    let warnings: Vec<&str> = outcome
        .warnings
        .iter()
        .filter(|w| answered_deny.as_deref() != Some(w.as_str()))
        .filter(|w| !carried.contains(*w))
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

/// What Gemini hooks answered on the events hookrig cannot let them decide or change
/// for every dialect (docs/dialects/gemini.md): a deny of `BeforeModel` (a transform
/// event), a replaced response of `AfterModel` (a notify event), the tool configuration
/// of `BeforeToolSelection` (a custom notify event). Each Gemini hook's answer is kept on
/// its record; they are folded as Gemini CLI's aggregator folds them. Returns the
/// dispatcher's warnings that those answers were ignored, which would mislead here.
fn answered_from_records(
    dispatched: &Dispatched,
    event: &str,
    out: &mut HookOutput,
    specific: &mut HookSpecificOutput,
) -> Vec<String> {
    let answers = dispatched
        .records
        .iter()
        .filter(|r| r.skip.is_none() && r.dialect == Dialect::Gemini)
        .filter_map(|r| Some((r.name.as_str(), r.answer.as_ref()?)));
    let specific_field = |answer: &Value, field: &str| {
        answer
            .get("hookSpecificOutput")
            .and_then(|s| s.get(field))
            .cloned()
    };
    let event_name = dispatched.event.as_str();
    let mut honoured = Vec::new();
    match event {
        "BeforeModel" => {
            if let Some((name, answer)) = answers
                .into_iter()
                .find(|(_, answer)| answer.get("decision").and_then(Value::as_str) == Some("deny"))
            {
                out.decision = Some("deny".to_owned());
                out.reason = Some(
                    answer
                        .get("reason")
                        .and_then(Value::as_str)
                        .map_or_else(|| format!("denied by hook {name}"), str::to_owned),
                );
                honoured.push(format!(
                    "hook {name}: `deny` ignored on transform event {event_name}: transform hooks only rewrite the payload"
                ));
            }
        }
        "AfterModel" => {
            // Later hooks' fields replace earlier ones' (`mergeWithFieldReplacement`).
            for (name, answer) in answers {
                if let Some(response) = specific_field(answer, "llm_response") {
                    specific.llm_response = Some(response);
                    honoured.push(ignored_change(name, event_name));
                }
            }
        }
        "BeforeToolSelection" => {
            let mut names = std::collections::BTreeSet::new();
            let (mut none, mut any, mut some) = (false, false, false);
            for (name, answer) in answers {
                let Some(config) = specific_field(answer, "toolConfig") else {
                    continue;
                };
                some = true;
                honoured.push(ignored_change(name, event_name));
                match config.get("mode").and_then(Value::as_str) {
                    Some("NONE") => none = true,
                    Some("ANY") => any = true,
                    _ => {}
                }
                if let Some(list) = config.get("allowedFunctionNames").and_then(Value::as_array) {
                    names.extend(list.iter().filter_map(Value::as_str).map(str::to_owned));
                }
            }
            // The union of the hooks' tools; NONE wins, then ANY, else AUTO
            // (`mergeToolSelectionOutputs`).
            if some {
                let (mode, names): (&str, Vec<String>) = if none {
                    ("NONE", Vec::new())
                } else if any {
                    ("ANY", names.into_iter().collect())
                } else {
                    ("AUTO", names.into_iter().collect())
                };
                specific.tool_config =
                    Some(serde_json::json!({"mode": mode, "allowedFunctionNames": names}));
            }
        }
        _ => {}
    }
    honoured
}

/// The dispatcher's warning that a hook's change of a notify event was ignored.
fn ignored_change(name: &str, event: &str) -> String {
    format!(
        "hook {name}: `modify` ignored on notify event {event}: notify hooks cannot change the event"
    )
}

#[cfg(test)]
mod tests;
