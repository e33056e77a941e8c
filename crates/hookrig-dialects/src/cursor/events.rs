//! Cursor's events: the one table of its names, what each is in the canonical catalog,
//! and how Cursor treats it (what its hooks may answer, what its matcher tests, which
//! input fields it carries). The loader, the protocol and the host mode read it, and it
//! is Cursor's part of the one resolver (`crate::events`). docs/dialects/cursor.md gives
//! the source of each row.

/// What a hook of an event may answer, and so what hookrig reads from its stdout and
/// writes back to Cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answer {
    /// `permission` (`allow`, `deny`, `ask`), `user_message`, `agent_message`; an invalid
    /// reply blocks the action.
    Permission(AskMode),
    /// `continue` and `user_message` (`beforeSubmitPrompt`).
    Continue,
    /// `followup_message`, bounded by `loop_limit` (`stop`, `subagentStop`).
    Followup,
    /// `additional_context` (and `env`, which hookrig does not carry on) (`sessionStart`).
    Session,
    /// `additional_context` and `updated_mcp_tool_output` (`postToolUse`).
    PostTool,
    /// `user_message` shown when the context is compacted (`preCompact`).
    Compact,
    /// Nothing: Cursor reads no answer (observational and fire-and-forget events).
    Nothing,
}

/// What a permission event makes of `permission: "ask"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AskMode {
    /// An ask asks the user (`beforeShellExecution`, `beforeMCPExecution`; `preToolUse`,
    /// whose schema accepts it).
    Asks,
    /// Cursor treats an ask as a deny (`subagentStart`).
    Denies,
    /// The event's schema has no ask (`beforeReadFile`, `beforeTabFileRead`): a reply
    /// that asks does not match it, which blocks the action.
    Invalid,
}

/// What an event's matcher is tested against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Subject {
    /// The tool name (`Shell`, `Read`, `Write`, `MCP:<tool>`, ...).
    Tool,
    /// An input field (`command`, `subagent_type`).
    Field(&'static str),
    /// A fixed value (`stop` hooks are matched against `Stop`), so the matcher decides
    /// once, when the file is read.
    Fixed(&'static str),
    /// Cursor documents no matcher for the event.
    Unknown,
}

/// Which tool fields an event's input carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ToolFields {
    /// None.
    None,
    /// `tool_name` and `tool_input` (a JSON text) of an MCP call.
    Mcp,
    /// `tool_name`, `tool_input` and `tool_use_id` (and `tool_output` after the call).
    Full,
}

/// One Cursor event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CursorEvent {
    /// Cursor's name.
    pub(crate) name: &'static str,
    /// The canonical event it is, `None` for one accepted under its own name only.
    pub(crate) canonical: Option<&'static str>,
    /// What its hooks may answer.
    pub(crate) answer: Answer,
    /// What its matcher tests.
    pub(crate) subject: Subject,
    /// Its tool fields.
    pub(crate) tool: ToolFields,
    /// Whether its input carries `cwd`.
    pub(crate) cwd: bool,
}

const fn event(name: &'static str, canonical: Option<&'static str>, answer: Answer) -> CursorEvent {
    CursorEvent {
        name,
        canonical,
        answer,
        subject: Subject::Unknown,
        tool: ToolFields::None,
        cwd: false,
    }
}

const fn matching(mut event: CursorEvent, subject: Subject) -> CursorEvent {
    event.subject = subject;
    event
}

const fn tool(mut event: CursorEvent, tool: ToolFields) -> CursorEvent {
    event.tool = tool;
    event.subject = Subject::Tool;
    event.cwd = matches!(tool, ToolFields::Full);
    event
}

const fn with_cwd(mut event: CursorEvent) -> CursorEvent {
    event.cwd = true;
    event
}

const PERMISSION: Answer = Answer::Permission(AskMode::Asks);

/// Every Cursor event hookrig knows: the agent's hooks, Tab's hooks and the app's
/// lifecycle hook.
///
/// The shell, MCP and file events are accepted under their own names only: Cursor also
/// sends `preToolUse` for the same calls, so making them `tool.before` as well would run
/// every `tool.before` hook twice for one shell command.
pub(crate) static EVENTS: &[CursorEvent] = &[
    event("sessionStart", Some("session.start"), Answer::Session),
    event("sessionEnd", Some("session.end"), Answer::Nothing),
    tool(
        event("preToolUse", Some("tool.before"), PERMISSION),
        ToolFields::Full,
    ),
    tool(
        event("postToolUse", Some("tool.after"), Answer::PostTool),
        ToolFields::Full,
    ),
    tool(
        event("postToolUseFailure", None, Answer::Nothing),
        ToolFields::Full,
    ),
    matching(
        event(
            "subagentStart",
            Some("subagent.start"),
            Answer::Permission(AskMode::Denies),
        ),
        Subject::Field("subagent_type"),
    ),
    matching(
        event("subagentStop", Some("subagent.stop"), Answer::Followup),
        Subject::Field("subagent_type"),
    ),
    with_cwd(matching(
        event("beforeShellExecution", None, PERMISSION),
        Subject::Field("command"),
    )),
    matching(
        event("afterShellExecution", None, Answer::Nothing),
        Subject::Field("command"),
    ),
    tool(
        event("beforeMCPExecution", None, PERMISSION),
        ToolFields::Mcp,
    ),
    tool(
        event("afterMCPExecution", None, Answer::Nothing),
        ToolFields::Mcp,
    ),
    event("beforeReadFile", None, Answer::Permission(AskMode::Invalid)),
    matching(
        event("afterFileEdit", None, Answer::Nothing),
        Subject::Fixed("Write"),
    ),
    matching(
        event(
            "beforeSubmitPrompt",
            Some("prompt.submit"),
            Answer::Continue,
        ),
        Subject::Fixed("UserPromptSubmit"),
    ),
    event("preCompact", Some("compact.before"), Answer::Compact),
    matching(
        event("stop", Some("turn.complete"), Answer::Followup),
        Subject::Fixed("Stop"),
    ),
    event("afterAgentResponse", Some("message.after"), Answer::Nothing),
    event("afterAgentThought", None, Answer::Nothing),
    event(
        "beforeTabFileRead",
        None,
        Answer::Permission(AskMode::Invalid),
    ),
    event("afterTabFileEdit", None, Answer::Nothing),
    event("workspaceOpen", None, Answer::Nothing),
];

/// The Cursor event named `name`.
pub(crate) fn by_name(name: &str) -> Option<&'static CursorEvent> {
    EVENTS.iter().find(|event| event.name == name)
}

/// Cursor's name of the event hookrig dispatched as `dispatched` (a canonical name, or
/// one of Cursor's own names), when it has one.
pub(crate) fn of_dispatched(dispatched: &str) -> Option<&'static CursorEvent> {
    EVENTS
        .iter()
        .find(|event| event.canonical == Some(dispatched))
        .or_else(|| by_name(dispatched))
}

/// Cursor's names of canonical events, as aliases for the resolver. The events it
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
    fn every_name_resolves_to_its_canonical_event_or_to_itself() {
        for event in EVENTS {
            let resolved = crate::events::resolve(event.name);
            match event.canonical {
                Some(canonical) => assert_eq!(resolved.as_str(), canonical, "{}", event.name),
                None => assert_eq!(resolved.as_str(), event.name),
            }
            assert_eq!(
                of_dispatched(resolved.as_str()),
                Some(event),
                "{}",
                event.name
            );
        }
    }
}
