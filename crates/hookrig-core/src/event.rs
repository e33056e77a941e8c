//! The canonical event catalog: names, aliases and kinds.

use std::fmt;

use serde::Serialize;

use crate::errors::UnknownVersionError;

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

/// How handlers of an event behave on the in-process bus (OpenHermit's three hook
/// shapes). Each event has exactly one; calling the bus method of another shape is an
/// error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BusShape {
    /// Every handler runs; what they return is ignored (`Bus::emit`).
    Listener,
    /// Each handler may return a new payload for the next one (`Bus::transform`).
    Transform,
    /// The first handler that disallows ends the chain (`Bus::veto`).
    Veto,
}

impl BusShape {
    /// The shape an event of `kind` has when OpenHermit does not say otherwise.
    pub const fn of_kind(kind: EventKind) -> BusShape {
        match kind {
            EventKind::Decision => BusShape::Veto,
            EventKind::Transform => BusShape::Transform,
            EventKind::Notify => BusShape::Listener,
        }
    }

    /// The lowercase name, as OpenHermit writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            BusShape::Listener => "listener",
            BusShape::Transform => "transform",
            BusShape::Veto => "veto",
        }
    }

    /// The bus method that dispatches events of this shape.
    pub fn method(self) -> &'static str {
        match self {
            BusShape::Listener => "emit",
            BusShape::Transform => "transform",
            BusShape::Veto => "veto",
        }
    }
}

impl fmt::Display for BusShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The payload versions every catalog event has today.
const V1: &[&str] = &["v1"];

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
    /// The shape of its handlers on the in-process bus: derived from `kind`, except
    /// where OpenHermit's catalog gives the event another shape (its
    /// `session.message.received` is a transform, its `tool.after` a listener), so
    /// that OpenHermit plugins keep their semantics.
    pub bus: BusShape,
    /// The payload versions dispatched today (`name@v1`, ...). One version is the
    /// normal case; two or more are a deprecation window: a bus handler subscribed to
    /// any of them receives every emit of the event, whichever version the emitter
    /// names. A version not listed is not this event.
    pub versions: &'static [&'static str],
}

macro_rules! entry {
    ($name:literal, $kind:ident, [$($alias:literal),* $(,)?]) => {
        CatalogEntry {
            name: $name,
            kind: EventKind::$kind,
            aliases: &[$($alias),*],
            async_allowed: matches!(EventKind::$kind, EventKind::Notify),
            bus: BusShape::of_kind(EventKind::$kind),
            versions: V1,
        }
    };
    ($name:literal, $kind:ident, [$($alias:literal),* $(,)?], bus = $bus:ident) => {
        CatalogEntry {
            bus: BusShape::$bus,
            ..entry!($name, $kind, [$($alias),*])
        }
    };
    ($name:literal, $kind:ident, [$($alias:literal),* $(,)?], async, bus = $bus:ident) => {
        CatalogEntry {
            async_allowed: true,
            bus: BusShape::$bus,
            ..entry!($name, $kind, [$($alias),*])
        }
    };
}

/// The canonical catalog, grouped by what the events are about (session, agent,
/// prompt, model, tool, ...).
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
        ],
        bus = Transform
    ),
    entry!("prompt.assemble", Transform, []),
    entry!("model.before", Transform, []),
    entry!("model.after", Notify, []),
    entry!("tool.before", Decision, ["PreToolUse", "pre_tool"]),
    entry!(
        "tool.after",
        Decision,
        ["PostToolUse", "post_tool"],
        async,
        bus = Listener
    ),
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

/// An event name resolved against the catalog.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EventName {
    name: String,
    kind: EventKind,
    entry: Option<&'static CatalogEntry>,
}

impl EventName {
    /// Resolves any accepted spelling: a canonical name, an alias, either with one of
    /// the versions the catalog declares for it (`@v1`).
    ///
    /// Any other name is a valid custom event of kind notify. A version the catalog
    /// does not declare (`tool.before@v2`) is a custom event under its full name here;
    /// [`EventName::parse`] refuses it instead, and is what names from hosts and users
    /// go through.
    pub fn resolve(raw: &str) -> EventName {
        let entry = match raw.rsplit_once('@') {
            Some((base, version)) => lookup(base).filter(|e| e.versions.contains(&version)),
            None => lookup(raw),
        };
        match entry {
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

    /// Resolves a name as [`EventName::resolve`] does, but refuses a version the catalog
    /// does not declare for a catalog event (`tool.before@v2`): the hooks of the event it
    /// names would not run, so a guard would be skipped without a word. Names given by a
    /// host or a user (`hookrig emit`, `events = [...]`) are read with this.
    pub fn parse(raw: &str) -> Result<EventName, UnknownVersionError> {
        if let Some((base, version)) = raw.rsplit_once('@')
            && let Some(entry) = lookup(base)
            && !entry.versions.contains(&version)
        {
            return Err(UnknownVersionError {
                event: entry.name.to_owned(),
                version: version.to_owned(),
                dispatched: entry.versions.join(", "),
            });
        }
        Ok(EventName::resolve(raw))
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
    CATALOG.iter().find(|e| e.answers_to(name))
}

impl CatalogEntry {
    /// Whether `name` (without a version) is this event's canonical name or an alias.
    pub fn answers_to(&self, name: &str) -> bool {
        self.name == name || self.aliases.contains(&name)
    }
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

    // guards: `emit tool.before@v2` must not become a custom event that skips the
    // tool.before guards
    #[test]
    fn parse_refuses_an_undeclared_version_of_a_catalog_event() {
        let err = EventName::parse("tool.before@v2").expect_err("v2 is not declared");
        assert_eq!(
            err.to_string(),
            "tool.before has no version v2 (dispatched versions: v1)"
        );
        let err = EventName::parse("PreToolUse@v7").expect_err("an alias too");
        assert_eq!(err.event, "tool.before");
        assert_eq!(
            EventName::parse("tool.before@v1").map(|n| n.as_str().to_owned()),
            Ok("tool.before".to_owned())
        );
        // A custom event may carry any version: the catalog says nothing about it.
        assert_eq!(
            EventName::parse("deploy.done@v3").map(|n| n.as_str().to_owned()),
            Ok("deploy.done@v3".to_owned())
        );
    }

    // Every event OpenHermit plugins subscribe to, with the shape OpenHermit gives it.
    #[test_case("agent.started@v1", BusShape::Listener)]
    #[test_case("agent.stopped@v1", BusShape::Listener)]
    #[test_case("session.opened@v1", BusShape::Listener)]
    #[test_case("session.closed@v1", BusShape::Listener)]
    #[test_case("session.message.received@v1", BusShape::Transform)]
    #[test_case("prompt.assemble@v1", BusShape::Transform)]
    #[test_case("model.before@v1", BusShape::Transform)]
    #[test_case("model.after@v1", BusShape::Listener)]
    #[test_case("tool.before@v1", BusShape::Veto)]
    #[test_case("tool.after@v1", BusShape::Listener)]
    #[test_case("channel.message.in@v1", BusShape::Transform)]
    #[test_case("channel.message.out@v1", BusShape::Transform)]
    #[test_case("schedule.fired@v1", BusShape::Transform)]
    #[test_case("memory.upsert@v1", BusShape::Listener)]
    #[test_case("plugin.error@v1", BusShape::Listener)]
    fn openhermit_bus_shapes(raw: &str, shape: BusShape) {
        let entry = EventName::resolve(raw).entry().expect("a catalog event");
        assert_eq!(entry.bus, shape);
    }

    #[test]
    fn events_outside_openhermit_take_the_shape_of_their_kind() {
        for entry in CATALOG {
            if ["prompt.submit", "tool.after"].contains(&entry.name) {
                continue; // OpenHermit's shape wins, checked above
            }
            assert_eq!(entry.bus, BusShape::of_kind(entry.kind), "{}", entry.name);
            assert_eq!(entry.versions, ["v1"], "{}", entry.name);
        }
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
