//! hygge's events: its four names and the canonical events they are. The loader, the
//! protocol and the host mode read this table, and it is hygge's part of the one
//! resolver (`crate::events`).

/// hygge's events, in the order of its documentation, with the canonical event each is.
pub(crate) static EVENTS: &[(&str, &str)] = &[
    ("pre_tool", "tool.before"),
    ("post_tool", "tool.after"),
    ("pre_message", "prompt.submit"),
    ("post_message", "message.after"),
];

/// hygge's name of the canonical event `canonical`, when it has one.
pub(crate) fn name_of(canonical: &str) -> Option<&'static str> {
    EVENTS
        .iter()
        .find(|(_, of)| *of == canonical)
        .map(|(name, _)| *name)
}

/// hygge's names as aliases of canonical events, for the resolver.
pub(crate) fn aliases() -> impl Iterator<Item = (&'static str, &'static str)> {
    EVENTS.iter().copied()
}
