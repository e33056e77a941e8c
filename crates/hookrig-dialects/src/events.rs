//! The one event-name resolver: every dialect's names of the canonical events, built
//! from the table in each dialect's folder (`NAME/events.rs`), and OpenHermit's bus
//! shapes. Core's catalog knows canonical names only; everything above core that reads
//! an event name from a host, a user or a file resolves it here, so every alias is
//! accepted wherever an event name is: config files of every dialect, `hookrig emit`,
//! `explain` and `list --event`, automation triggers, the task lifecycle's events, and
//! an agent's in-process bus ([`bus`]).
//!
//! Adding a dialect's names is one table in its folder and one line in `tables`.

use std::sync::LazyLock;

use hookrig_core::{Bus, BusShape, CATALOG, EventKind, EventName, EventNames, UnknownVersionError};
use serde::Serialize;

use crate::{claude, codex, cursor, gemini, hence, hermit, hygge, orchestrator, xcode};

/// Every dialect's names, as `(name, canonical name)`, in the order an event's aliases
/// are listed (`hookrig events`): Claude Code's and x-code's names first (x-code's
/// `TurnComplete` before Claude Code's `Stop`), then hygge's, OpenHermit's, Hence's and
/// the agent orchestrator's. A name that is already the canonical one adds nothing.
fn tables() -> impl Iterator<Item = (&'static str, &'static str)> {
    xcode::events::aliases()
        .chain(claude::events::aliases())
        .chain(codex::events::aliases())
        .chain(hygge::events::aliases())
        .chain(hermit::events::aliases())
        .chain(hence::events::aliases())
        .chain(orchestrator::events::aliases())
        .chain(gemini::events::aliases())
        .chain(cursor::events::aliases())
}

static NAMES: LazyLock<EventNames> = LazyLock::new(|| {
    let mut names = EventNames::new();
    for (alias, canonical) in tables() {
        names
            .add_alias(alias, canonical)
            .expect("the dialects' tables never give one name to two events (tested)");
    }
    for (canonical, shape) in hermit::events::shapes() {
        names.set_shape(canonical, shape);
    }
    names
});

/// The table of every dialect's names and OpenHermit's bus shapes.
pub fn names() -> &'static EventNames {
    &NAMES
}

/// Resolves any accepted spelling: a canonical name or any dialect's name of it, either
/// with one of the versions the catalog declares for it (`@v1`). Any other name is a
/// custom event of kind notify; so is a version the catalog does not declare, which
/// [`parse`] refuses instead.
pub fn resolve(raw: &str) -> EventName {
    NAMES.resolve(raw)
}

/// Resolves a name as [`resolve`] does, but refuses a version the catalog does not
/// declare for the event it names (`PreToolUse@v2`): the hooks of that event would not
/// run, so a guard would be skipped without a word. Names given by a host or a user
/// (`hookrig emit`, `events = [...]`) are read with this.
pub fn parse(raw: &str) -> Result<EventName, UnknownVersionError> {
    NAMES.parse(raw)
}

/// Every other name of the canonical event `canonical`, in the order the dialects'
/// tables are read (Claude Code's and x-code's names first).
pub fn aliases(canonical: &str) -> Vec<&'static str> {
    NAMES.aliases_of(canonical).collect()
}

/// Every canonical name, each followed by its aliases, for did-you-mean suggestions.
pub fn all_names() -> impl Iterator<Item = &'static str> {
    CATALOG
        .iter()
        .flat_map(|entry| std::iter::once(entry.name).chain(NAMES.aliases_of(entry.name)))
}

/// A bus that knows every dialect's names and gives events OpenHermit's shapes: the bus
/// an agent builds for its plugins.
pub fn bus() -> Bus {
    Bus::with_names(&NAMES)
}

/// One row of the catalog as `hookrig events` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CatalogRow {
    /// The canonical, dotted, lowercase name.
    pub name: &'static str,
    /// How handlers of the event are dispatched.
    pub kind: EventKind,
    /// Every other name the event is known by, Claude Code's and x-code's first.
    pub aliases: Vec<&'static str>,
    /// The shape of its handlers on an agent's bus.
    pub bus: BusShape,
    /// The payload versions dispatched today.
    pub versions: &'static [&'static str],
}

/// The catalog with every dialect's names and the bus shapes, in catalog order.
pub fn catalog() -> Vec<CatalogRow> {
    CATALOG
        .iter()
        .map(|entry| CatalogRow {
            name: entry.name,
            kind: entry.kind,
            aliases: aliases(entry.name),
            bus: NAMES.shape(entry.name, entry.kind),
            versions: entry.versions,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use test_case::test_case;

    use super::*;

    #[test_case("tool.before", "tool.before", EventKind::Decision; "canonical")]
    #[test_case("PreToolUse", "tool.before", EventKind::Decision; "claude alias")]
    #[test_case("pre_tool", "tool.before", EventKind::Decision; "hygge alias")]
    #[test_case("tool.before@v1", "tool.before", EventKind::Decision; "versioned")]
    #[test_case("session.opened@v1", "session.start", EventKind::Notify; "versioned alias")]
    #[test_case("post_message", "message.after", EventKind::Notify; "post message")]
    #[test_case("Stop", "turn.complete", EventKind::Notify; "claude stop")]
    #[test_case("TurnComplete", "turn.complete", EventKind::Notify; "x-code turn complete")]
    #[test_case("post-plan-complete", "plan.completed", EventKind::Notify; "hence")]
    #[test_case("prompt.assemble", "prompt.assemble", EventKind::Transform; "transform")]
    #[test_case("deploy.done", "deploy.done", EventKind::Notify; "custom")]
    #[test_case("tool.before@v2", "tool.before@v2", EventKind::Notify; "unknown version is custom")]
    fn resolves(raw: &str, canonical: &str, kind: EventKind) {
        let name = resolve(raw);
        assert_eq!(name.as_str(), canonical);
        assert_eq!(name.kind(), kind);
    }

    // guards: `emit PreToolUse@v7` must not become a custom event that skips the
    // tool.before guards
    #[test]
    fn parse_refuses_an_undeclared_version_of_an_alias() {
        let err = parse("PreToolUse@v7").expect_err("an alias too");
        assert_eq!(err.event, "tool.before");
        assert_eq!(
            err.to_string(),
            "tool.before has no version v7 (dispatched versions: v1)"
        );
        assert_eq!(
            parse("deploy.done@v3").map(|n| n.as_str().to_owned()),
            Ok("deploy.done@v3".to_owned())
        );
    }

    #[test]
    fn no_name_stands_for_two_events() {
        let mut seen: HashMap<&str, &str> = HashMap::new();
        for (alias, canonical) in tables() {
            if let Some(other) = seen.insert(alias, canonical) {
                assert_eq!(other, canonical, "{alias} names two events");
            }
        }
        // Building the table checks the same, and that every event is in the catalog.
        assert!(!names().aliases().collect::<Vec<_>>().is_empty());
        let mut all = std::collections::HashSet::new();
        for name in all_names() {
            assert!(all.insert(name), "{name} appears twice");
        }
    }

    #[test]
    fn an_agents_bus_takes_every_dialects_names() {
        let bus = bus();
        bus.on(
            "session.message.received@v1",
            "p",
            hookrig_core::BusHandler::transform(|_| Ok(None)),
            1,
        )
        .expect("OpenHermit's name and shape");
        assert_eq!(bus.list_subscriptions("UserPromptSubmit").len(), 1);
        assert_eq!(bus.list_subscriptions("pre_message").len(), 1);
    }
}
