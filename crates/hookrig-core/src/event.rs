//! The canonical event catalog: names, aliases and kinds.

use std::fmt;

use serde::Serialize;

/// How an event's handlers are dispatched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EventKind {
    /// Handlers run one after another; the first deny stops the chain; modifies accumulate.
    Decision,
    /// Like decision, but handlers only rewrite the payload.
    Transform,
    /// Handlers run concurrently; nothing they answer changes the event.
    Notify,
}

impl EventKind {
    /// The lowercase name used in config files and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Decision => "decision",
            EventKind::Transform => "transform",
            EventKind::Notify => "notify",
        }
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One row of the catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct CatalogEntry {
    /// The canonical, dotted, lowercase name.
    pub name: &'static str,
    /// How handlers of this event are dispatched.
    pub kind: EventKind,
    /// Every other name this event is known by (Claude Code, x-code, hygge, OpenHermit, Hence).
    pub aliases: &'static [&'static str],
    /// Whether `mode = "async"` hooks may subscribe. Async handlers cannot influence the
    /// outcome, so they are allowed only where nothing waits for an answer: notify events
    /// and the two post events whose result the host does not need before going on.
    #[serde(skip)]
    pub async_allowed: bool,
}

macro_rules! entry {
    ($name:literal, $kind:ident, [$($alias:literal),* $(,)?]) => {
        CatalogEntry {
            name: $name,
            kind: EventKind::$kind,
            aliases: &[$($alias),*],
            async_allowed: matches!(EventKind::$kind, EventKind::Notify),
        }
    };
    ($name:literal, $kind:ident, [$($alias:literal),* $(,)?], async) => {
        CatalogEntry { name: $name, kind: EventKind::$kind, aliases: &[$($alias),*], async_allowed: true }
    };
}

/// The canonical catalog, in the order of DESIGN.md.
pub static CATALOG: &[CatalogEntry] = &[
    entry!("session.start", Notify, ["SessionStart", "session.opened"]),
    entry!("session.end", Notify, ["SessionEnd", "session.closed"]),
    entry!("agent.start", Notify, ["agent.started"]),
    entry!("agent.stop", Notify, ["agent.stopped"]),
    entry!(
        "prompt.submit",
        Decision,
        [
            "UserPromptSubmit",
            "pre_message",
            "session.message.received"
        ]
    ),
    entry!("prompt.assemble", Transform, []),
    entry!("model.before", Transform, []),
    entry!("model.after", Notify, []),
    entry!("tool.before", Decision, ["PreToolUse", "pre_tool"]),
    entry!("tool.after", Decision, ["PostToolUse", "post_tool"], async),
    entry!("message.after", Notify, ["post_message"]),
    entry!("turn.complete", Notify, ["TurnComplete", "Stop"]),
    entry!("compact.before", Notify, ["PreCompact"]),
    entry!("compact.after", Notify, ["PostCompact"]),
    entry!("subagent.start", Notify, ["SubagentStart"]),
    entry!("subagent.stop", Notify, ["SubagentStop"]),
    entry!("channel.message.in", Transform, []),
    entry!("channel.message.out", Transform, []),
    entry!("schedule.fired", Transform, []),
    entry!("memory.upsert", Notify, []),
    entry!("plugin.error", Notify, []),
    entry!("task.claimed", Notify, ["post-claim"]),
    entry!("task.completed", Notify, ["post-complete"]),
    entry!("task.blocked", Notify, ["post-block"]),
    entry!("task.unblocked", Notify, ["post-unblock"]),
    entry!("task.failed", Notify, []),
    entry!("plan.asserted", Notify, ["post-assert"]),
    entry!("plan.completed", Notify, ["post-plan-complete"]),
    entry!("note.created", Notify, []),
    entry!("note.updated", Notify, []),
    entry!("note.deleted", Notify, []),
    entry!("file.changed", Notify, []),
    entry!("folder.changed", Notify, []),
];

/// The catalog version that plain names and `@v1` both denote.
const CATALOG_VERSION: &str = "v1";

/// An event name resolved against the catalog.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EventName {
    name: String,
    kind: EventKind,
    entry: Option<&'static CatalogEntry>,
}

impl EventName {
    /// Resolves any accepted spelling: a canonical name, an alias, either with `@v1`.
    ///
    /// Any other name is a valid custom event of kind notify. A version other than the
    /// catalog's (`tool.before@v2`) is a different payload shape, so until the catalog
    /// declares it, it is a custom event under its full name rather than an alias.
    pub fn resolve(raw: &str) -> EventName {
        let base = match raw.rsplit_once('@') {
            Some((base, CATALOG_VERSION)) => base,
            _ => raw,
        };
        match lookup(base) {
            Some(entry) => EventName {
                name: entry.name.to_owned(),
                kind: entry.kind,
                entry: Some(entry),
            },
            None => EventName {
                name: raw.to_owned(),
                kind: EventKind::Notify,
                entry: None,
            },
        }
    }

    /// The canonical name (or the custom name as given).
    pub fn as_str(&self) -> &str {
        &self.name
    }

    /// The dispatch kind.
    pub fn kind(&self) -> EventKind {
        self.kind
    }

    /// The catalog row, `None` for a custom event.
    pub fn entry(&self) -> Option<&'static CatalogEntry> {
        self.entry
    }

    /// Whether this is a catalog event.
    pub fn is_known(&self) -> bool {
        self.entry.is_some()
    }

    /// Whether `mode = "async"` hooks may subscribe to this event.
    pub fn async_allowed(&self) -> bool {
        self.entry.is_none_or(|e| e.async_allowed)
    }
}

impl fmt::Display for EventName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

fn lookup(name: &str) -> Option<&'static CatalogEntry> {
    CATALOG
        .iter()
        .find(|e| e.name == name || e.aliases.contains(&name))
}

/// Every canonical name and alias, for did-you-mean suggestions.
pub fn all_names() -> impl Iterator<Item = &'static str> {
    CATALOG
        .iter()
        .flat_map(|e| std::iter::once(e.name).chain(e.aliases.iter().copied()))
}

#[cfg(test)]
mod tests {
    use test_case::test_case;

    use super::*;

    #[test_case("tool.before", "tool.before", EventKind::Decision; "canonical")]
    #[test_case("PreToolUse", "tool.before", EventKind::Decision; "claude alias")]
    #[test_case("pre_tool", "tool.before", EventKind::Decision; "hygge alias")]
    #[test_case("tool.before@v1", "tool.before", EventKind::Decision; "versioned")]
    #[test_case("session.opened@v1", "session.start", EventKind::Notify; "versioned alias")]
    #[test_case("post_message", "message.after", EventKind::Notify; "post message")]
    #[test_case("Stop", "turn.complete", EventKind::Notify; "claude stop")]
    #[test_case("post-plan-complete", "plan.completed", EventKind::Notify; "hence")]
    #[test_case("prompt.assemble", "prompt.assemble", EventKind::Transform; "transform")]
    #[test_case("deploy.done", "deploy.done", EventKind::Notify; "custom")]
    #[test_case("tool.before@v2", "tool.before@v2", EventKind::Notify; "unknown version is custom")]
    fn resolves(raw: &str, canonical: &str, kind: EventKind) {
        let name = EventName::resolve(raw);
        assert_eq!(name.as_str(), canonical);
        assert_eq!(name.kind(), kind);
    }

    #[test]
    fn aliases_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for name in all_names() {
            assert!(seen.insert(name), "{name} appears twice in the catalog");
        }
    }

    #[test]
    fn async_allowed_only_on_notify_and_post_events() {
        assert!(!EventName::resolve("tool.before").async_allowed());
        assert!(!EventName::resolve("prompt.submit").async_allowed());
        assert!(!EventName::resolve("model.before").async_allowed());
        assert!(EventName::resolve("tool.after").async_allowed());
        assert!(EventName::resolve("message.after").async_allowed());
        assert!(EventName::resolve("session.start").async_allowed());
        assert!(EventName::resolve("custom.thing").async_allowed());
    }
}
