//! x-code's events: the ten names its plugins' hooks use and the canonical events they
//! are. The loader checks hook files against it, and it is x-code's part of the one
//! resolver (`crate::events`). x-code shares most names with Claude Code; its
//! `TurnComplete` is Claude Code's `Stop`.

/// x-code's events, in the order of its documentation, with the canonical event each is.
pub(crate) static EVENTS: &[(&str, &str)] = &[
    ("SessionStart", "session.start"),
    ("UserPromptSubmit", "prompt.submit"),
    ("PreToolUse", "tool.before"),
    ("PostToolUse", "tool.after"),
    ("PreCompact", "compact.before"),
    ("PostCompact", "compact.after"),
    ("SubagentStart", "subagent.start"),
    ("SubagentStop", "subagent.stop"),
    ("TurnComplete", "turn.complete"),
    ("SessionEnd", "session.end"),
];

/// Whether `name` is one of x-code's events.
pub(crate) fn is_event(name: &str) -> bool {
    EVENTS.iter().any(|(event, _)| *event == name)
}

/// x-code's event names, in the order of its documentation.
pub(crate) fn names() -> impl Iterator<Item = &'static str> {
    EVENTS.iter().map(|(name, _)| *name)
}

/// x-code's names as aliases of canonical events, for the resolver.
pub(crate) fn aliases() -> impl Iterator<Item = (&'static str, &'static str)> {
    EVENTS.iter().copied()
}
