//! The claude host format: Claude Code's hook input in, Claude Code's hook output out.
//!
//! Input: the event is `hook_event_name` (an EVENT argument, when given, wins); the
//! canonical payload gets `session.id` from `session_id`, `session.cwd` from `cwd`,
//! `tool.name` / `tool.input` / `tool.call_id` / `tool.output` from `tool_name` /
//! `tool_input` / `tool_use_id` / `tool_response`, and keeps `prompt`,
//! `transcript_path`, `permission_mode` and every other field as they are.
//!
//! Output: exit 0 with one JSON object, which Claude Code reads on exit 0 for every event,
//! folded from every hook's answer as Claude Code folds them (docs/dialects/claude.md):
//! `PreToolUse` through `hookSpecificOutput.permissionDecision` (deny over defer over ask
//! over allow, an explicit allow kept), `PermissionRequest` through its `decision`, the
//! events that can be blocked through `decision: "block"`, `continue: false` and
//! `stopReason` as they are, collected context as `additionalContext` where Claude Code
//! reads it, warnings as the `systemMessage`. What only Claude Code has words for comes
//! from each Claude hook's own answer, kept on its record (`HookRecord::answer`).

use hookrig_core::{
    Decision, Dialect, Dispatched, EventName, HookRecord, HookResult, Outcome, Payload,
};
use serde_json::{Value, json};

use super::events;
use super::fields;
use super::wire::{HookInput, HookOutput, HookSpecificOutput, PermissionDecision};
use crate::host::{Host, HostAnswer, WireInput, canonical_payload, no_failure_answer, read_wire};
use crate::wire::Shaped;

/// Claude Code's host mode (also Codex, Cursor, Gemini and other agents that read that
/// format).
pub(crate) const HOST: Host = Host::new(
    Dialect::Claude,
    read_wire::<HookInput>,
    answer,
    no_failure_answer,
    false,
);

impl WireInput for HookInput {
    fn event_name(&self) -> Option<&str> {
        self.hook_event_name.as_deref()
    }

    /// Claude Code's hook input in canonical shape: the `session` and `tool` sections
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
                ("transcript_path", self.transcript_path),
                ("permission_mode", self.permission_mode),
                ("prompt", self.prompt),
            ],
            self.rest,
        )
    }
}

/// The Claude Code name of an event.
fn claude_name(event: &EventName) -> String {
    events::name_of(event.as_str()).map_or_else(|| event.as_str().to_owned(), str::to_owned)
}

/// One hook's part in the answer: its record and, for a Claude Code hook that answered
/// in JSON, what it answered.
struct Part<'d> {
    record: &'d HookRecord,
    output: Option<HookOutput>,
}

impl Part<'_> {
    fn specific(&self) -> Option<&HookSpecificOutput> {
        match self.output.as_ref()?.hook_specific_output.as_ref()? {
            Shaped::Typed(specific) => Some(specific),
            Shaped::Other(_) => None,
        }
    }

    /// `permissionDecision`, or the old top-level `decision` that means the same on
    /// `PreToolUse` (`approve` is allow, `block` is deny).
    fn permission_decision(&self) -> Option<&str> {
        self.specific()
            .and_then(|s| s.permission_decision.as_deref())
            .or_else(|| match self.output.as_ref()?.decision.as_deref()? {
                "approve" => Some("allow"),
                "block" => Some("deny"),
                _ => None,
            })
    }

    fn permission_request(&self) -> Option<&PermissionDecision> {
        match self.specific()?.decision.as_ref()? {
            Shaped::Typed(decision) => Some(decision),
            Shaped::Other(_) => None,
        }
    }
}

/// The hooks that ran, in dispatch order, each with its Claude Code answer.
fn parts(dispatched: &Dispatched) -> Vec<Part<'_>> {
    dispatched
        .records
        .iter()
        .filter(|record| record.skip.is_none())
        .map(|record| Part {
            record,
            output: record
                .answer
                .clone()
                .and_then(|answer| serde_json::from_value(answer).ok()),
        })
        .collect()
}

/// The answer to Claude Code, folded from every hook's as Claude Code folds them: for
/// `PreToolUse`, deny over defer over ask over allow; a block of any hook blocks; every
/// hook's context is kept; `continue: false` of any hook stops Claude, with the first
/// `stopReason`.
fn answer(outcome: &Outcome<'_>, dispatched: &Dispatched) -> HostAnswer {
    let event = claude_name(&dispatched.event);
    let row = events::by_name(&event);
    let parts = parts(dispatched);
    let mut out = HookOutput::default();
    let mut specific = HookSpecificOutput::default();
    let denied_reason = |record: Option<&HookRecord>| {
        record
            .and_then(|r| r.reason.clone())
            .or_else(|| dispatched.reason.clone())
            .or_else(|| {
                dispatched
                    .decided_by
                    .as_ref()
                    .map(|by| format!("denied by hook {by}"))
            })
            .unwrap_or_else(|| "denied by a hook".to_owned())
    };
    // The first hook that denied: on a decision event the dispatcher's decider, on the
    // events hookrig only notifies (Stop, a permission request, ...) the first record.
    let blocker = parts
        .iter()
        .find(|p| p.record.result == HookResult::Deny)
        .map(|p| p.record);
    let denied = dispatched.decision == Decision::Deny || blocker.is_some();

    if matches!(event.as_str(), "WorktreeCreate" | "WorktreeRemove") {
        return worktree(&event, &parts, denied.then(|| denied_reason(blocker)));
    }
    match event.as_str() {
        "PreToolUse" => pre_tool_use(dispatched, &parts, &mut specific, denied_reason),
        "PermissionRequest" => {
            specific.decision = permission_request(&parts, denied.then(|| denied_reason(blocker)));
        }
        "PreModelSwitch" if !denied => model_switch(&parts, &mut specific),
        // A block where Claude Code reads one: any hook's on its events that can be
        // blocked, and the dispatcher's deny of a canonical event it has no row for.
        _ if (denied && row.is_some_and(|row| row.exit2.answers_block()))
            || (dispatched.decision == Decision::Deny && row.is_none()) =>
        {
            out.decision = Some("block".to_owned());
            out.reason = Some(denied_reason(blocker));
        }
        _ => {}
    }
    if event == "PostToolUse" && !denied {
        updated_tool_output(&parts, &mut specific);
    }
    passed_on(&event, &parts, &mut specific);
    let sequences: String = parts
        .iter()
        .filter_map(|p| p.output.as_ref()?.terminal_sequence.as_deref())
        .collect();
    if !sequences.is_empty() {
        out.terminal_sequence = Some(sequences);
    }

    // On the events where Claude Code reads context as feedback that keeps Claude going
    // (`Stop`, `SubagentStop`, `PostToolBatch`), only Claude hooks' own
    // `additionalContext` counts: context of another dialect's hook there never kept
    // Claude working, and still does not.
    let context: Vec<String> =
        if matches!(event.as_str(), "Stop" | "SubagentStop" | "PostToolBatch") {
            parts
                .iter()
                .filter(|p| p.record.result != HookResult::Deny)
                .filter_map(|p| p.specific()?.additional_context.clone())
                .filter(|c| !c.is_empty())
                .map(fields::capped)
                .collect()
        } else {
            dispatched
                .context
                .iter()
                .chain(&dispatched.system_prompt_append)
                .cloned()
                .collect()
        };
    if !context.is_empty() && row.is_some_and(|e| e.reads_context) {
        specific.additional_context = Some(context.join("\n\n"));
    }

    // A stop (a Claude hook's `continue: false`, or a hook of another dialect that
    // stopped the agent) stops Claude whatever else was answered: it is kept as such,
    // never turned into a deny or a block.
    if let Some(stop) = &dispatched.stop {
        out.proceed = Some(false);
        out.stop_reason.clone_from(&stop.reason);
    }
    if parts
        .iter()
        .filter_map(|p| p.output.as_ref())
        .any(|o| o.suppress_output == Some(true))
    {
        out.suppress_output = Some(true);
    }

    if specific != HookSpecificOutput::default() {
        specific.hook_event_name = Some(event.clone());
        out.hook_specific_output = Some(Shaped::Typed(specific));
    }
    let warnings = shown_warnings(outcome.warnings, &parts, row);
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

/// `WorktreeCreate` and `WorktreeRemove`, answered as Claude Code reads a command hook
/// there: the created worktree's path on stdout (the first hook's that gave one), and
/// any failure as a non-zero exit with the reason on stderr, which makes Claude Code
/// give up the creation or the removal. A creation no hook gave a path for fails too:
/// with a `WorktreeCreate` hook Claude Code does not create the worktree itself.
fn worktree(event: &str, parts: &[Part<'_>], failure: Option<String>) -> HostAnswer {
    let failed = |reason: String| HostAnswer {
        stdout: String::new(),
        stderr: Some(format!("{reason}\n")),
        exit_code: HostAnswer::DENIED,
    };
    if let Some(reason) = failure {
        return failed(reason);
    }
    if event == "WorktreeRemove" {
        return HostAnswer {
            stdout: String::new(),
            stderr: None,
            exit_code: HostAnswer::PROCEED,
        };
    }
    let path = parts.iter().find_map(|p| {
        p.specific()?
            .rest
            .get("worktreePath")?
            .as_str()
            .filter(|path| !path.is_empty())
    });
    match path {
        Some(path) => HostAnswer {
            stdout: format!("{path}\n"),
            stderr: None,
            exit_code: HostAnswer::PROCEED,
        },
        None => failed("no WorktreeCreate hook printed the path of a worktree".to_owned()),
    }
}

/// `PreModelSwitch` not blocked: the first hook's ask (which Claude Code honours in an
/// interactive `/model` only), else the first explicit allow, in
/// `permissionDecision` as the hook gave it.
fn model_switch(parts: &[Part<'_>], specific: &mut HookSpecificOutput) {
    let decided = parts
        .iter()
        .find(|p| p.record.result == HookResult::Ask)
        .or_else(|| {
            parts
                .iter()
                .find(|p| p.permission_decision() == Some("allow"))
        });
    if let Some(part) = decided {
        let s = part.specific();
        specific.permission_decision = s
            .and_then(|s| s.permission_decision.clone())
            .or_else(|| Some("allow".to_owned()));
        specific.permission_decision_reason = s.and_then(|s| s.permission_decision_reason.clone());
    }
}

/// The `hookSpecificOutput` fields hookrig does not read but Claude Code does, for the
/// events that take them (the hooks' outputs hold no others: `fields` dropped them):
/// `watchPaths` of every hook together, `retry` when any hook asks for it, any other
/// field as the first hook that set it wrote it.
fn passed_on(event: &str, parts: &[Part<'_>], specific: &mut HookSpecificOutput) {
    for field in fields::passed_on(event) {
        let values = parts.iter().filter_map(|p| p.specific()?.rest.get(*field));
        let value = match *field {
            "watchPaths" => {
                let mut paths: Vec<Value> = Vec::new();
                for path in values.filter_map(Value::as_array).flatten() {
                    if !paths.contains(path) {
                        paths.push(path.clone());
                    }
                }
                (!paths.is_empty()).then_some(Value::Array(paths))
            }
            "retry" => values
                .into_iter()
                .any(|v| v == &Value::Bool(true))
                .then_some(Value::Bool(true)),
            _ => values.into_iter().next().cloned(),
        };
        if let Some(value) = value {
            specific.rest.insert((*field).to_owned(), value);
        }
    }
}

/// A permission request's decision: a deny of any hook (with `denial` its message) over
/// the first allow; `None` when no hook decided, so Claude Code shows its dialog.
fn permission_request(
    parts: &[Part<'_>],
    denial: Option<String>,
) -> Option<Shaped<PermissionDecision>> {
    let decisions = || parts.iter().filter_map(Part::permission_request);
    let decision = if let Some(message) = denial {
        PermissionDecision {
            behavior: Some("deny".to_owned()),
            message: Some(message),
            interrupt: decisions()
                .find(|d| d.behavior.as_deref() == Some("deny"))
                .and_then(|d| d.interrupt),
            ..PermissionDecision::default()
        }
    } else {
        let allow = decisions().find(|d| d.behavior.as_deref() == Some("allow"))?;
        PermissionDecision {
            behavior: Some("allow".to_owned()),
            updated_input: allow.updated_input.clone(),
            updated_permissions: allow.updated_permissions.clone(),
            ..PermissionDecision::default()
        }
    };
    Some(Shaped::Typed(decision))
}

/// `PostToolUse`: the last hook that replaced the tool's output decides it, in the
/// field it used.
fn updated_tool_output(parts: &[Part<'_>], specific: &mut HookSpecificOutput) {
    for s in parts.iter().filter_map(Part::specific) {
        if s.updated_tool_output.is_some() {
            specific
                .updated_tool_output
                .clone_from(&s.updated_tool_output);
            specific.updated_mcp_tool_output = None;
        }
        if s.updated_mcp_tool_output.is_some() {
            specific
                .updated_mcp_tool_output
                .clone_from(&s.updated_mcp_tool_output);
            specific.updated_tool_output = None;
        }
    }
}

/// `PreToolUse`: deny over defer over ask over allow. An explicit allow of a hook
/// reaches Claude as allow (it skips the permission prompt, as the hook asked); so does a
/// changed tool input, which Claude Code applies only with a decision.
fn pre_tool_use(
    dispatched: &Dispatched,
    parts: &[Part<'_>],
    specific: &mut HookSpecificOutput,
    denied_reason: impl Fn(Option<&HookRecord>) -> String,
) {
    let modified = parts.iter().any(|p| p.record.result == HookResult::Modify);
    let first = |decision: &str| {
        parts
            .iter()
            .find(|p| p.permission_decision() == Some(decision))
    };
    let final_input = || {
        dispatched
            .payload
            .as_map()
            .get("tool")
            .and_then(|t| t.get("input"))
            .cloned()
            .unwrap_or(json!({}))
    };
    if dispatched.decision == Decision::Deny {
        specific.permission_decision = Some("deny".to_owned());
        specific.permission_decision_reason = Some(denied_reason(None));
    } else if let Some(defer) = first("defer") {
        specific.permission_decision = Some("defer".to_owned());
        specific.permission_decision_reason = defer
            .specific()
            .and_then(|s| s.permission_decision_reason.clone());
    } else if dispatched.decision == Decision::Ask {
        specific.permission_decision = Some("ask".to_owned());
        specific
            .permission_decision_reason
            .clone_from(&dispatched.reason);
        // `updatedInput` with ask: the user is asked about the changed call.
        let asked = parts
            .iter()
            .find(|p| Some(&p.record.name) == dispatched.decided_by.as_ref())
            .and_then(|p| p.specific())
            .and_then(|s| s.updated_input.clone());
        specific.updated_input = asked.or_else(|| modified.then(final_input));
    } else if let Some(allow) = first("allow") {
        specific.permission_decision = Some("allow".to_owned());
        specific.permission_decision_reason = allow
            .specific()
            .and_then(|s| s.permission_decision_reason.clone());
        if modified {
            specific.updated_input = Some(final_input());
        }
    } else if modified {
        specific.permission_decision = Some("allow".to_owned());
        specific.updated_input = Some(final_input());
    }
}

/// The Outcome's warnings as Claude Code's `systemMessage` lines: a hook's own
/// `systemMessage` as it wrote it, and without those that would mislead on this event (a
/// hook's block of an event Claude Code lets hooks block, Stop or a permission request,
/// is its answer, not a `deny` hookrig ignored).
fn shown_warnings<'w>(
    warnings: &'w [String],
    parts: &'w [Part<'_>],
    row: Option<&events::ClaudeEvent>,
) -> Vec<&'w str> {
    // A permission request is decided by the `decision` object, not by exit 2.
    let blockable =
        row.is_some_and(|row| row.exit2.answers_block() || row.name == "PermissionRequest");
    // A model switch's ask is its answer too.
    let asks = row.is_some_and(|row| row.name == "PreModelSwitch");
    let ignored: Vec<String> = if blockable {
        parts
            .iter()
            .filter_map(|p| match p.record.result {
                HookResult::Deny => Some(format!("hook {}: `deny` ignored", p.record.name)),
                HookResult::Ask if asks => Some(format!("hook {}: `ask` ignored", p.record.name)),
                _ => None,
            })
            .collect()
    } else {
        Vec::new()
    };
    let own: Vec<(String, &str)> = parts
        .iter()
        .filter_map(|p| {
            let message = p.output.as_ref()?.system_message.as_deref()?;
            Some((format!("hook {}: {message}", p.record.name), message))
        })
        .collect();
    warnings
        .iter()
        .filter(|w| !ignored.iter().any(|prefix| w.starts_with(prefix.as_str())))
        .map(|w| {
            own.iter()
                .find(|(prefixed, _)| prefixed == w)
                .map_or(w.as_str(), |(_, message)| message)
        })
        .collect()
}
