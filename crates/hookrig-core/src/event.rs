//! The canonical event catalog: canonical names, kinds, versions and whether async hooks
//! may listen. The dialects' own names of these events, and OpenHermit's bus shapes, are
//! not here: hookrig-dialects keeps one table per dialect and hands their union to
//! whatever resolves names above core as an [`EventNames`]. Core itself resolves only
//! canonical names and `name@vN`.

use std::collections::HashMap;
use std::fmt;

use serde::Serialize;

use crate::errors::{NameConflict, UnknownVersionError};

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
/// shapes). Each event has exactly one: the shape of its kind, unless the bus's
/// [`EventNames`] give it another; calling the bus method of another shape is an error.
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
    /// The shape an event of `kind` has when the names table does not say otherwise.
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
    /// Whether `mode = "async"` hooks may subscribe. Async handlers cannot influence the
    /// outcome, so they are allowed only where nothing waits for an answer: notify events
    /// and the two post events whose result the host does not need before going on.
    #[serde(skip)]
    pub async_allowed: bool,
    /// The payload versions dispatched today (`name@v1`, ...). One version is the
    /// normal case; two or more are a deprecation window: a bus handler subscribed to
    /// any of them receives every emit of the event, whichever version the emitter
    /// names. A version not listed is not this event.
    pub versions: &'static [&'static str],
}

macro_rules! entry {
    ($name:literal, $kind:ident) => {
        CatalogEntry {
            name: $name,
            kind: EventKind::$kind,
            async_allowed: matches!(EventKind::$kind, EventKind::Notify),
            versions: V1,
        }
    };
    ($name:literal, $kind:ident, async) => {
        CatalogEntry {
            async_allowed: true,
            ..entry!($name, $kind)
        }
    };
}

/// The canonical catalog, grouped by what the events are about (session, agent,
/// prompt, model, tool, ...).
pub static CATALOG: &[CatalogEntry] = &[
    entry!("session.start", Notify),
    entry!("session.end", Notify),
    entry!("agent.start", Notify),
    entry!("agent.stop", Notify),
    entry!("prompt.submit", Decision),
    entry!("prompt.assemble", Transform),
    entry!("model.before", Transform),
    entry!("model.after", Notify),
    entry!("tool.before", Decision),
    entry!("tool.after", Decision, async),
    entry!("message.after", Notify),
    entry!("turn.complete", Notify),
    entry!("compact.before", Notify),
    entry!("compact.after", Notify),
    entry!("subagent.start", Notify),
    entry!("subagent.stop", Notify),
    entry!("channel.message.in", Transform),
    entry!("channel.message.out", Transform),
    entry!("schedule.fired", Transform),
    entry!("memory.upsert", Notify),
    entry!("plugin.error", Notify),
    entry!("task.claimed", Notify),
    entry!("task.completed", Notify),
    entry!("task.blocked", Notify),
    entry!("task.unblocked", Notify),
    entry!("task.failed", Notify),
    entry!("plan.asserted", Notify),
    entry!("plan.completed", Notify),
    entry!("note.created", Notify),
    entry!("note.updated", Notify),
    entry!("note.deleted", Notify),
    entry!("file.changed", Notify),
    entry!("folder.changed", Notify),
];

/// An event name resolved against the catalog.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EventName {
    name: String,
    kind: EventKind,
    entry: Option<&'static CatalogEntry>,
}

impl EventName {
    /// Resolves a canonical name, with or without one of the versions the catalog
    /// declares for it (`@v1`).
    ///
    /// Any other name is a valid custom event of kind notify: a dialect's name of a
    /// catalog event (`PreToolUse`) is one here, since core knows no dialect. Names from
    /// hosts, users and config files are resolved above core, through the dialects'
    /// table ([`EventNames::resolve`]). A version the catalog does not declare
    /// (`tool.before@v2`) is a custom event under its full name here; [`EventName::parse`]
    /// refuses it instead.
    pub fn resolve(raw: &str) -> EventName {
        resolve_with(raw, lookup)
    }

    /// Resolves a name as [`EventName::resolve`] does, but refuses a version the catalog
    /// does not declare for a catalog event (`tool.before@v2`): the hooks of the event it
    /// names would not run, so a guard would be skipped without a word.
    pub fn parse(raw: &str) -> Result<EventName, UnknownVersionError> {
        parse_with(raw, lookup)
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

/// The catalog row whose canonical name is `name`.
fn lookup(name: &str) -> Option<&'static CatalogEntry> {
    CATALOG.iter().find(|e| e.name == name)
}

/// Resolves `raw` with `lookup` finding the row of a name without a version.
fn resolve_with(raw: &str, lookup: impl Fn(&str) -> Option<&'static CatalogEntry>) -> EventName {
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

/// Resolves `raw` as [`resolve_with`] does, refusing an undeclared version of a catalog
/// event.
fn parse_with(
    raw: &str,
    lookup: impl Fn(&str) -> Option<&'static CatalogEntry>,
) -> Result<EventName, UnknownVersionError> {
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
    Ok(resolve_with(raw, lookup))
}

/// Every name a catalog event is known by besides its canonical one, and the bus shapes
/// that differ from the shape of an event's kind.
///
/// Core knows no dialect, so it resolves canonical names only. hookrig-dialects builds
/// one table from every dialect's own (`hookrig_dialects::events`) and hands it to what
/// resolves names above core: config loaders, `hookrig emit`, automation triggers, and
/// the in-process bus ([`crate::Bus::with_names`]).
#[derive(Debug, Clone, Default)]
pub struct EventNames {
    /// Each alias and the canonical name it stands for, in the order added.
    aliases: Vec<(&'static str, &'static str)>,
    /// Alias → its index in `aliases`.
    index: HashMap<&'static str, usize>,
    /// Canonical name → the bus shape of its handlers, where the table gives one.
    shapes: HashMap<&'static str, BusShape>,
}

impl EventNames {
    /// A table that knows canonical names only.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `alias` as another name of the catalog event `canonical`. Adding an alias
    /// again for the same event changes nothing.
    pub fn add_alias(
        &mut self,
        alias: &'static str,
        canonical: &'static str,
    ) -> Result<(), NameConflict> {
        let taken = |other: &str| NameConflict::Taken {
            name: alias.to_owned(),
            event: canonical.to_owned(),
            other: other.to_owned(),
        };
        if lookup(canonical).is_none() {
            return Err(NameConflict::UnknownEvent {
                name: alias.to_owned(),
                event: canonical.to_owned(),
            });
        }
        if alias == canonical {
            return Ok(());
        }
        if let Some(other) = lookup(alias) {
            return Err(taken(other.name));
        }
        match self.index.get(alias) {
            Some(&at) if self.aliases[at].1 == canonical => Ok(()),
            Some(&at) => Err(taken(self.aliases[at].1)),
            None => {
                self.index.insert(alias, self.aliases.len());
                self.aliases.push((alias, canonical));
                Ok(())
            }
        }
    }

    /// Gives the catalog event `canonical` bus handlers of `shape` instead of the shape
    /// of its kind.
    pub fn set_shape(&mut self, canonical: &'static str, shape: BusShape) {
        self.shapes.insert(canonical, shape);
    }

    /// The canonical name `name` (without a version) stands for: itself when canonical,
    /// the event it is an alias of, `None` when neither.
    pub fn canonical(&self, name: &str) -> Option<&'static str> {
        match self.index.get(name) {
            Some(&at) => Some(self.aliases[at].1),
            None => lookup(name).map(|entry| entry.name),
        }
    }

    /// The aliases of the catalog event `canonical`, in the order they were added.
    pub fn aliases_of<'a>(&'a self, canonical: &'a str) -> impl Iterator<Item = &'static str> + 'a {
        self.aliases
            .iter()
            .filter(move |(_, of)| *of == canonical)
            .map(|(alias, _)| *alias)
    }

    /// Every alias with its canonical name, in the order added.
    pub fn aliases(&self) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
        self.aliases.iter().copied()
    }

    /// The shape of bus handlers of the event named `canonical`, of kind `kind`.
    pub fn shape(&self, canonical: &str, kind: EventKind) -> BusShape {
        self.shapes
            .get(canonical)
            .copied()
            .unwrap_or(BusShape::of_kind(kind))
    }

    /// Resolves any name the table knows, with or without a declared version; see
    /// [`EventName::resolve`] for the rest.
    pub fn resolve(&self, raw: &str) -> EventName {
        resolve_with(raw, |name| self.canonical(name).and_then(lookup))
    }

    /// Resolves any name the table knows as [`EventNames::resolve`] does, but refuses a
    /// version the catalog does not declare for the event it names
    /// (`PreToolUse@v2`).
    pub fn parse(&self, raw: &str) -> Result<EventName, UnknownVersionError> {
        parse_with(raw, |name| self.canonical(name).and_then(lookup))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use test_case::test_case;

    use super::*;

    /// A names table standing in for the dialects' (which core cannot depend on), for
    /// the tests of the bus: a few aliases, and OpenHermit's two shapes that differ from
    /// their kind's.
    pub(crate) fn stand_in_names() -> EventNames {
        let mut names = EventNames::new();
        for (alias, canonical) in [
            ("SessionStart", "session.start"),
            ("session.opened", "session.start"),
            ("UserPromptSubmit", "prompt.submit"),
            ("session.message.received", "prompt.submit"),
            ("PreToolUse", "tool.before"),
            ("PostToolUse", "tool.after"),
            ("post_message", "message.after"),
        ] {
            names.add_alias(alias, canonical).expect("no conflict");
        }
        names.set_shape("prompt.submit", BusShape::Transform);
        names.set_shape("tool.after", BusShape::Listener);
        names
    }

    #[test_case("tool.before", "tool.before", EventKind::Decision; "canonical")]
    #[test_case("tool.before@v1", "tool.before", EventKind::Decision; "versioned")]
    #[test_case("prompt.assemble", "prompt.assemble", EventKind::Transform; "transform")]
    #[test_case("deploy.done", "deploy.done", EventKind::Notify; "custom")]
    #[test_case("tool.before@v2", "tool.before@v2", EventKind::Notify; "unknown version is custom")]
    #[test_case("PreToolUse", "PreToolUse", EventKind::Notify; "a dialect's name is custom in core")]
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
        let err = stand_in_names()
            .parse("PreToolUse@v7")
            .expect_err("an alias too");
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

    #[test]
    fn a_table_resolves_its_aliases_with_their_versions() {
        let names = stand_in_names();
        assert_eq!(names.resolve("PreToolUse").as_str(), "tool.before");
        assert_eq!(names.resolve("session.opened@v1").as_str(), "session.start");
        assert_eq!(names.resolve("tool.after").as_str(), "tool.after");
        assert!(!names.resolve("PreToolUse@v2").is_known());
        assert_eq!(
            names.aliases_of("session.start").collect::<Vec<_>>(),
            ["SessionStart", "session.opened"]
        );
        assert_eq!(
            names.shape("tool.after", EventKind::Decision),
            BusShape::Listener
        );
        assert_eq!(
            names.shape("tool.before", EventKind::Decision),
            BusShape::Veto
        );
    }

    #[test]
    fn an_alias_cannot_name_two_events_or_shadow_a_canonical_name() {
        let mut names = stand_in_names();
        assert_eq!(names.add_alias("PreToolUse", "tool.before"), Ok(()));
        assert_eq!(
            names
                .add_alias("PreToolUse", "tool.after")
                .map_err(|e| e.to_string()),
            Err(
                "`PreToolUse` cannot be a name of tool.after: it already names tool.before"
                    .to_owned()
            )
        );
        assert!(names.add_alias("tool.before", "tool.after").is_err());
        assert_eq!(
            names
                .add_alias("Deploy", "deploy.done")
                .map_err(|e| e.to_string()),
            Err(
                "`Deploy` cannot be a name of deploy.done: deploy.done is not in the catalog"
                    .to_owned()
            )
        );
    }

    #[test]
    fn events_take_the_shape_of_their_kind_in_core() {
        for entry in CATALOG {
            assert_eq!(
                EventNames::new().shape(entry.name, entry.kind),
                BusShape::of_kind(entry.kind),
                "{}",
                entry.name
            );
            assert_eq!(entry.versions, ["v1"], "{}", entry.name);
        }
    }

    #[test]
    fn canonical_names_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for entry in CATALOG {
            assert!(
                seen.insert(entry.name),
                "{} appears twice in the catalog",
                entry.name
            );
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
