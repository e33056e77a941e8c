//! The agent orchestrator's event names, each the canonical event of the same name (its
//! periodic trigger is hookrig's `schedule.fired`).

/// The orchestrator's names and the canonical events they are.
pub(crate) static EVENTS: &[(&str, &str)] = &[
    ("task.completed", "task.completed"),
    ("task.failed", "task.failed"),
    ("note.created", "note.created"),
    ("note.updated", "note.updated"),
    ("note.deleted", "note.deleted"),
    ("file.changed", "file.changed"),
    ("folder.changed", "folder.changed"),
];

/// The orchestrator's names as aliases of canonical events, for the resolver (none
/// differs from its canonical name today).
pub(crate) fn aliases() -> impl Iterator<Item = (&'static str, &'static str)> {
    EVENTS.iter().copied()
}
