//! Gemini CLI's events: the one table of its names, what each is in the canonical
//! catalog, and how Gemini CLI treats it (a tool call, the field its matcher tests, what
//! of a hook's answer it reads). The loader, the protocol and the host mode read it, and
//! it is Gemini CLI's part of the one resolver (`crate::events`). docs/dialects/gemini.md
//! gives the source of each row.

/// What Gemini CLI does with the flow-control fields of a hook's answer on an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    /// `decision: "deny"` (or `"block"`), `continue: false` and exit code 2 stop what the
    /// event is about (a tool call, a turn, a model response).
    Blocks,
    /// The event is advisory: Gemini CLI ignores `decision` and `continue`.
    Advisory,
}

/// One Gemini CLI event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct GeminiEvent {
    /// Gemini CLI's name.
    pub(crate) name: &'static str,
    /// The canonical event it is, `None` for one accepted under its own name only.
    pub(crate) canonical: Option<&'static str>,
    /// Whether it carries a tool call (its matcher is a regular expression tested
    /// against the tool name).
    pub(crate) tool: bool,
    /// The input field its matcher tests for equality, for a lifecycle event.
    pub(crate) matched_field: Option<&'static str>,
    /// What Gemini CLI does with `decision` and `continue`.
    pub(crate) flow: Flow,
    /// Whether Gemini CLI reads `hookSpecificOutput.additionalContext` of the answer.
    pub(crate) reads_context: bool,
}

const fn event(name: &'static str, canonical: Option<&'static str>, flow: Flow) -> GeminiEvent {
    GeminiEvent {
        name,
        canonical,
        tool: false,
        matched_field: None,
        flow,
        reads_context: false,
    }
}

const fn tool(mut event: GeminiEvent) -> GeminiEvent {
    event.tool = true;
    event
}

const fn matching(mut event: GeminiEvent, field: &'static str) -> GeminiEvent {
    event.matched_field = Some(field);
    event
}

const fn with_context(mut event: GeminiEvent) -> GeminiEvent {
    event.reads_context = true;
    event
}

/// Every Gemini CLI hook event, in the order of Gemini CLI's own list.
pub(crate) static EVENTS: &[GeminiEvent] = &[
    tool(event("BeforeTool", Some("tool.before"), Flow::Blocks)),
    with_context(tool(event("AfterTool", Some("tool.after"), Flow::Blocks))),
    with_context(event("BeforeAgent", Some("prompt.submit"), Flow::Blocks)),
    event("Notification", None, Flow::Advisory),
    event("AfterAgent", Some("turn.complete"), Flow::Blocks),
    with_context(matching(
        event("SessionStart", Some("session.start"), Flow::Advisory),
        "source",
    )),
    matching(
        event("SessionEnd", Some("session.end"), Flow::Advisory),
        "reason",
    ),
    matching(
        event("PreCompress", Some("compact.before"), Flow::Advisory),
        "trigger",
    ),
    event("BeforeModel", Some("model.before"), Flow::Blocks),
    event("AfterModel", Some("model.after"), Flow::Blocks),
    event("BeforeToolSelection", None, Flow::Advisory),
];

/// The Gemini CLI event named `name`.
pub(crate) fn by_name(name: &str) -> Option<&'static GeminiEvent> {
    EVENTS.iter().find(|event| event.name == name)
}

/// Gemini CLI's name of the canonical event `canonical` (or of an event accepted under
/// its own name), when it has one.
pub(crate) fn name_of(canonical: &str) -> Option<&'static str> {
    EVENTS
        .iter()
        .find(|event| event.canonical.unwrap_or(event.name) == canonical)
        .map(|event| event.name)
}

/// Gemini CLI's names of canonical events, as aliases for the resolver. The events it
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
            assert_eq!(
                name_of(resolved.as_str()),
                Some(event.name),
                "{}",
                event.name
            );
        }
    }
}
