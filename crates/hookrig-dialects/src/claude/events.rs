//! Claude Code's events: the one table of its names, what each is in the canonical
//! catalog, and how Claude Code treats it (a tool call, the field its matcher tests,
//! where it reads context). The loader, the protocol and the host mode read it, and it
//! is Claude Code's part of the one resolver (`crate::events`).

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
}

const fn event(name: &'static str, canonical: Option<&'static str>) -> ClaudeEvent {
    ClaudeEvent {
        name,
        canonical,
        tool: false,
        matched_field: None,
        reads_context: false,
        text_context: false,
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

/// Every Claude Code event hookrig knows: tool events, permission requests, prompts,
/// notifications, stops, subagents, compaction and sessions.
pub(crate) static EVENTS: &[ClaudeEvent] = &[
    with_context(tool("PreToolUse", Some("tool.before")), false),
    with_context(tool("PostToolUse", Some("tool.after")), false),
    tool("PostToolUseFailure", None),
    tool("PermissionRequest", None),
    with_context(event("UserPromptSubmit", Some("prompt.submit")), true),
    matching(event("Notification", None), "notification_type"),
    event("Stop", Some("turn.complete")),
    event("SubagentStart", Some("subagent.start")),
    event("SubagentStop", Some("subagent.stop")),
    matching(event("PreCompact", Some("compact.before")), "trigger"),
    matching(event("PostCompact", Some("compact.after")), "trigger"),
    with_context(
        matching(event("SessionStart", Some("session.start")), "source"),
        true,
    ),
    matching(event("SessionEnd", Some("session.end")), "reason"),
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
}
