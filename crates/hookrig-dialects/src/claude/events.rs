//! Claude Code's events: the one table of its names, what each is in the canonical
//! catalog, and how Claude Code treats it (a tool call, the field its matcher tests,
//! where it reads context, what an exit code 2 does, its default timeout). The loader,
//! the protocol and the host mode read it, and it is Claude Code's part of the one
//! resolver (`crate::events`). docs/dialects/claude.md gives the source of each column.

use std::time::Duration;

/// What Claude Code does with a hook that exits 2 (or answers `decision: "block"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exit2 {
    /// The event is blocked (the tool call, the prompt, the stop, the compaction), and
    /// stderr is the reason Claude is given.
    Blocks,
    /// Nothing is blocked (the tool already ran); stderr is fed back to Claude.
    ToClaude,
    /// Nothing is blocked; stderr is shown to the user only.
    ToUser,
    /// The exit code and stderr are ignored: the hook's JSON, if any, is read as on exit 0.
    Ignored,
}

impl Exit2 {
    /// Whether a block (exit 2, `decision: "block"`) means anything on the event: it
    /// blocks it, or is fed back to Claude.
    pub(crate) fn answers_block(self) -> bool {
        matches!(self, Exit2::Blocks | Exit2::ToClaude)
    }
}

/// One Claude Code event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ClaudeEvent {
    /// Claude Code's name.
    pub(crate) name: &'static str,
    /// The canonical event it is, `None` for one accepted under its own name only.
    pub(crate) canonical: Option<&'static str>,
    /// Whether it carries a tool call (its matcher tests the tool name).
    pub(crate) tool: bool,
    /// The input field its matcher tests, for an event without a tool.
    pub(crate) matched_field: Option<&'static str>,
    /// Whether Claude Code reads `hookSpecificOutput.additionalContext` of its answer.
    pub(crate) reads_context: bool,
    /// Whether Claude Code adds a hook's plain-text stdout as context.
    pub(crate) text_context: bool,
    /// What an exit code 2 does.
    pub(crate) exit2: Exit2,
    /// Claude Code's default timeout of a hook on this event, when it is not the
    /// general one.
    pub(crate) timeout: Option<Duration>,
}

impl ClaudeEvent {
    /// Whether a matcher means anything on this event.
    pub(crate) fn has_matcher(&self) -> bool {
        self.tool || self.matched_field.is_some()
    }
}

const fn event(name: &'static str, canonical: Option<&'static str>) -> ClaudeEvent {
    ClaudeEvent {
        name,
        canonical,
        tool: false,
        matched_field: None,
        reads_context: false,
        text_context: false,
        exit2: Exit2::ToUser,
        timeout: None,
    }
}

const fn tool(name: &'static str, canonical: Option<&'static str>) -> ClaudeEvent {
    ClaudeEvent {
        tool: true,
        ..event(name, canonical)
    }
}

const fn matching(mut event: ClaudeEvent, field: &'static str) -> ClaudeEvent {
    event.matched_field = Some(field);
    event
}

const fn with_context(mut event: ClaudeEvent, text: bool) -> ClaudeEvent {
    event.reads_context = true;
    event.text_context = text;
    event
}

const fn exit2(mut event: ClaudeEvent, exit2: Exit2) -> ClaudeEvent {
    event.exit2 = exit2;
    event
}

const fn timeout(mut event: ClaudeEvent, millis: u64) -> ClaudeEvent {
    event.timeout = Some(Duration::from_millis(millis));
    event
}

use Exit2::{Blocks, Ignored, ToClaude};

/// Every Claude Code event (its hooks reference lists 33), in the reference's order.
pub(crate) static EVENTS: &[ClaudeEvent] = &[
    with_context(
        matching(event("SessionStart", Some("session.start")), "source"),
        true,
    ),
    exit2(
        with_context(matching(event("Setup", None), "trigger"), false),
        Ignored,
    ),
    timeout(
        exit2(
            with_context(event("UserPromptSubmit", Some("prompt.submit")), true),
            Blocks,
        ),
        30_000,
    ),
    exit2(
        with_context(
            matching(event("UserPromptExpansion", None), "command_name"),
            true,
        ),
        Blocks,
    ),
    exit2(
        with_context(tool("PreToolUse", Some("tool.before")), false),
        Blocks,
    ),
    exit2(tool("PermissionRequest", None), Ignored),
    exit2(tool("PermissionDenied", None), Ignored),
    exit2(
        with_context(tool("PostToolUse", Some("tool.after")), false),
        ToClaude,
    ),
    exit2(
        with_context(tool("PostToolUseFailure", None), false),
        ToClaude,
    ),
    exit2(with_context(event("PostToolBatch", None), false), Blocks),
    exit2(
        with_context(
            matching(event("Notification", None), "notification_type"),
            false,
        ),
        Ignored,
    ),
    timeout(exit2(event("MessageDisplay", None), Ignored), 10_000),
    with_context(
        matching(event("SubagentStart", Some("subagent.start")), "agent_type"),
        false,
    ),
    exit2(
        with_context(
            matching(event("SubagentStop", Some("subagent.stop")), "agent_type"),
            false,
        ),
        Blocks,
    ),
    exit2(event("TaskCreated", None), Blocks),
    exit2(event("TaskCompleted", None), Blocks),
    exit2(
        with_context(event("Stop", Some("turn.complete")), false),
        Blocks,
    ),
    exit2(matching(event("StopFailure", None), "error"), Ignored),
    exit2(event("TeammateIdle", None), Blocks),
    exit2(
        matching(event("InstructionsLoaded", None), "load_reason"),
        Ignored,
    ),
    exit2(matching(event("ConfigChange", None), "source"), Blocks),
    event("CwdChanged", None),
    exit2(matching(event("DirectoryAdded", None), "source"), Ignored),
    // The changed file's name: `hookrig_core::FILE_NAME_OF`.
    matching(event("FileChanged", None), "file_path#name"),
    exit2(event("WorktreeCreate", None), Blocks),
    event("WorktreeRemove", None),
    exit2(
        matching(event("PreCompact", Some("compact.before")), "trigger"),
        Blocks,
    ),
    matching(event("PostCompact", Some("compact.after")), "trigger"),
    timeout(
        exit2(matching(event("PreModelSwitch", None), "to_model"), Blocks),
        30_000,
    ),
    timeout(
        with_context(matching(event("PostModelSwitch", None), "to_model"), true),
        30_000,
    ),
    exit2(
        matching(event("Elicitation", None), "mcp_server_name"),
        Blocks,
    ),
    exit2(
        matching(event("ElicitationResult", None), "mcp_server_name"),
        Blocks,
    ),
    timeout(
        matching(event("SessionEnd", Some("session.end")), "reason"),
        1_500,
    ),
];

/// The Claude Code event named `name`.
pub(crate) fn by_name(name: &str) -> Option<&'static ClaudeEvent> {
    EVENTS.iter().find(|event| event.name == name)
}

/// Claude Code's name of the canonical event `canonical`, when it has one.
pub(crate) fn name_of(canonical: &str) -> Option<&'static str> {
    EVENTS
        .iter()
        .find(|event| event.canonical == Some(canonical))
        .map(|event| event.name)
}

/// Claude Code's names of canonical events, as aliases for the resolver. The events it
/// accepts under their own names only are not aliases.
pub(crate) fn aliases() -> impl Iterator<Item = (&'static str, &'static str)> {
    EVENTS
        .iter()
        .filter_map(|event| Some((event.name, event.canonical?)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_resolves_to_its_canonical_event_or_to_none() {
        for event in EVENTS {
            let resolved = crate::events::resolve(event.name);
            match event.canonical {
                Some(canonical) => assert_eq!(resolved.as_str(), canonical, "{}", event.name),
                None => assert!(!resolved.is_known(), "{}", event.name),
            }
        }
    }

    #[test]
    fn the_table_has_claude_codes_33_events_once_each() {
        let mut names: Vec<&str> = EVENTS.iter().map(|e| e.name).collect();
        assert_eq!(names.len(), 33);
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), 33);
    }
}
