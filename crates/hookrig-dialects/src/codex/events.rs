//! Codex CLI's events: the one table of its names, what each is in the canonical
//! catalog, and how Codex treats it (the field its matcher tests, the fields of its
//! input, what its hooks may answer). The loader, the protocol and the host mode read
//! it, and it is Codex's part of the one resolver (`crate::events`). The sources of
//! each rule are in docs/dialects/codex.md.

/// One Codex event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CodexEvent {
    /// Codex's name.
    pub(crate) name: &'static str,
    /// The name of its key in `[hooks.state]` (`pre_tool_use`).
    pub(crate) key: &'static str,
    /// The canonical event it is, `None` for one accepted under its own name only.
    pub(crate) canonical: Option<&'static str>,
    /// The input field its matcher tests; `None` where Codex ignores matchers.
    pub(crate) matched_field: Option<&'static str>,
    /// The fields of its input beyond those every event has (`session_id`,
    /// `transcript_path`, `cwd`, `hook_event_name`, `model`), in Codex's order.
    pub(crate) fields: &'static [&'static str],
    /// What its hooks may answer, and how their answer is read.
    pub(crate) answer: Answer,
}

/// How Codex reads a hook's answer to one event: which output fields it accepts, and
/// what exit code 2 and plain text mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answer {
    /// `PreToolUse`: `permissionDecision` deny (with a reason) or allow (with
    /// `updatedInput`), legacy `decision: block`, `additionalContext`; no `continue`.
    PreTool,
    /// `PermissionRequest`: `decision.behavior` allow or deny; no `continue`.
    Permission,
    /// `PostToolUse`: `decision: block` gives feedback, `additionalContext`.
    PostTool,
    /// `UserPromptSubmit`: `decision: block`, `additionalContext`, plain text as context.
    Prompt,
    /// `SessionStart` and `SubagentStart`: `additionalContext`, plain text as context.
    Start {
        /// Whether `continue: false` stops Codex (`SessionStart` only).
        stops: bool,
    },
    /// `Stop` and `SubagentStop`: `decision: block` keeps the agent working.
    Stop,
    /// `PreCompact` and `PostCompact`: only the universal fields.
    Compact,
}

impl Answer {
    /// Whether exit code 2 with a reason on stderr blocks (or, after a tool ran, gives
    /// the model feedback); on the other events every non-zero exit is a failed hook.
    pub(crate) fn exit_2_blocks(self) -> bool {
        matches!(
            self,
            Answer::PreTool | Answer::Permission | Answer::PostTool | Answer::Prompt | Answer::Stop
        )
    }

    /// Whether `continue: false` stops Codex: on every event but `PreToolUse` and
    /// `PermissionRequest` (which refuse it) and `SubagentStart` (which ignores it).
    pub(crate) fn stops(self) -> bool {
        match self {
            Answer::PreTool | Answer::Permission => false,
            Answer::Start { stops } => stops,
            Answer::PostTool | Answer::Prompt | Answer::Stop | Answer::Compact => true,
        }
    }

    /// Whether plain (non-JSON) stdout on exit 0 is model context.
    pub(crate) fn text_is_context(self) -> bool {
        matches!(self, Answer::Prompt | Answer::Start { .. })
    }

    /// Whether `hookSpecificOutput.additionalContext` is read.
    pub(crate) fn reads_context(self) -> bool {
        matches!(
            self,
            Answer::PreTool | Answer::PostTool | Answer::Prompt | Answer::Start { .. }
        )
    }

    /// Whether top-level `decision` and `reason` are accepted.
    pub(crate) fn has_decision(self) -> bool {
        matches!(
            self,
            Answer::PreTool | Answer::PostTool | Answer::Prompt | Answer::Stop
        )
    }

    /// Whether `hookSpecificOutput` is accepted.
    pub(crate) fn has_specific(self) -> bool {
        !matches!(self, Answer::Stop | Answer::Compact)
    }
}

const TOOL: &[&str] = &[
    "turn_id",
    "agent_id",
    "agent_type",
    "permission_mode",
    "tool_name",
    "tool_input",
    "tool_use_id",
];

/// Every Codex event, in the order Codex reads them from a hooks file.
pub(crate) static EVENTS: &[CodexEvent] = &[
    CodexEvent {
        name: "PreToolUse",
        key: "pre_tool_use",
        canonical: Some("tool.before"),
        matched_field: Some("tool_name"),
        fields: TOOL,
        answer: Answer::PreTool,
    },
    CodexEvent {
        name: "PermissionRequest",
        key: "permission_request",
        canonical: None,
        matched_field: Some("tool_name"),
        fields: &[
            "turn_id",
            "agent_id",
            "agent_type",
            "permission_mode",
            "tool_name",
            "tool_input",
        ],
        answer: Answer::Permission,
    },
    CodexEvent {
        name: "PostToolUse",
        key: "post_tool_use",
        canonical: Some("tool.after"),
        matched_field: Some("tool_name"),
        fields: &[
            "turn_id",
            "agent_id",
            "agent_type",
            "permission_mode",
            "tool_name",
            "tool_input",
            "tool_response",
            "tool_use_id",
        ],
        answer: Answer::PostTool,
    },
    CodexEvent {
        name: "PreCompact",
        key: "pre_compact",
        canonical: Some("compact.before"),
        matched_field: Some("trigger"),
        fields: &["turn_id", "agent_id", "agent_type", "trigger"],
        answer: Answer::Compact,
    },
    CodexEvent {
        name: "PostCompact",
        key: "post_compact",
        canonical: Some("compact.after"),
        matched_field: Some("trigger"),
        fields: &["turn_id", "agent_id", "agent_type", "trigger"],
        answer: Answer::Compact,
    },
    CodexEvent {
        name: "SessionStart",
        key: "session_start",
        canonical: Some("session.start"),
        matched_field: Some("source"),
        fields: &["permission_mode", "source"],
        answer: Answer::Start { stops: true },
    },
    CodexEvent {
        name: "UserPromptSubmit",
        key: "user_prompt_submit",
        canonical: Some("prompt.submit"),
        matched_field: None,
        fields: &[
            "turn_id",
            "agent_id",
            "agent_type",
            "permission_mode",
            "prompt",
        ],
        answer: Answer::Prompt,
    },
    CodexEvent {
        name: "SubagentStart",
        key: "subagent_start",
        canonical: Some("subagent.start"),
        matched_field: Some("agent_type"),
        fields: &["turn_id", "permission_mode", "agent_id", "agent_type"],
        answer: Answer::Start { stops: false },
    },
    CodexEvent {
        name: "SubagentStop",
        key: "subagent_stop",
        canonical: Some("subagent.stop"),
        matched_field: Some("agent_type"),
        fields: &[
            "turn_id",
            "agent_transcript_path",
            "permission_mode",
            "stop_hook_active",
            "agent_id",
            "agent_type",
            "last_assistant_message",
        ],
        answer: Answer::Stop,
    },
    CodexEvent {
        name: "Stop",
        key: "stop",
        canonical: Some("turn.complete"),
        matched_field: None,
        fields: &[
            "turn_id",
            "permission_mode",
            "stop_hook_active",
            "last_assistant_message",
        ],
        answer: Answer::Stop,
    },
];

/// The Codex event named `name`.
pub(crate) fn by_name(name: &str) -> Option<&'static CodexEvent> {
    EVENTS.iter().find(|event| event.name == name)
}

/// The Codex event of the canonical event `canonical`, when it has one.
pub(crate) fn of_canonical(canonical: &str) -> Option<&'static CodexEvent> {
    EVENTS
        .iter()
        .find(|event| event.canonical == Some(canonical) || event.name == canonical)
}

/// Codex's names of canonical events, as aliases for the resolver. They are Claude
/// Code's names of the same events; the event Codex accepts under its own name only
/// (`PermissionRequest`) is not an alias.
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
            assert_eq!(of_canonical(resolved.as_str()), Some(event));
        }
    }
}
