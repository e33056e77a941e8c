//! OpenHermit's events: its names, the payload version it subscribes with, and the bus
//! shape it gives each event. Most shapes follow the event's kind; two do not
//! (`session.message.received` is a transform where hookrig's `prompt.submit` is a
//! decision, `tool.after` a listener), and the bus takes OpenHermit's, so that its
//! plugins keep their semantics.

use hookrig_core::BusShape;

/// One OpenHermit event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HermitEvent {
    /// OpenHermit's name, without a version.
    pub(crate) name: &'static str,
    /// The canonical event it is.
    pub(crate) canonical: &'static str,
    /// The payload version OpenHermit's plugins subscribe with (`name@version`).
    pub(crate) version: &'static str,
    /// The shape of its handlers on the bus.
    pub(crate) bus: BusShape,
}

const fn event(name: &'static str, canonical: &'static str, bus: BusShape) -> HermitEvent {
    HermitEvent {
        name,
        canonical,
        version: "v1",
        bus,
    }
}

/// Every event OpenHermit plugins subscribe to, in the order of its catalog.
pub(crate) static EVENTS: &[HermitEvent] = &[
    event("agent.started", "agent.start", BusShape::Listener),
    event("agent.stopped", "agent.stop", BusShape::Listener),
    event("session.opened", "session.start", BusShape::Listener),
    event("session.closed", "session.end", BusShape::Listener),
    event(
        "session.message.received",
        "prompt.submit",
        BusShape::Transform,
    ),
    event("prompt.assemble", "prompt.assemble", BusShape::Transform),
    event("model.before", "model.before", BusShape::Transform),
    event("model.after", "model.after", BusShape::Listener),
    event("tool.before", "tool.before", BusShape::Veto),
    event("tool.after", "tool.after", BusShape::Listener),
    event(
        "channel.message.in",
        "channel.message.in",
        BusShape::Transform,
    ),
    event(
        "channel.message.out",
        "channel.message.out",
        BusShape::Transform,
    ),
    event("schedule.fired", "schedule.fired", BusShape::Transform),
    event("memory.upsert", "memory.upsert", BusShape::Listener),
    event("plugin.error", "plugin.error", BusShape::Listener),
];

/// OpenHermit's names as aliases of canonical events, for the resolver.
pub(crate) fn aliases() -> impl Iterator<Item = (&'static str, &'static str)> {
    EVENTS.iter().map(|event| (event.name, event.canonical))
}

/// The bus shape OpenHermit gives each canonical event it has.
pub(crate) fn shapes() -> impl Iterator<Item = (&'static str, BusShape)> {
    EVENTS.iter().map(|event| (event.canonical, event.bus))
}

#[cfg(test)]
mod tests {
    use hookrig_core::CATALOG;
    use test_case::test_case;

    use super::*;

    // Every event OpenHermit plugins subscribe to, with the shape OpenHermit gives it,
    // as an agent's bus and the resolver see it.
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
        let event = crate::events::resolve(raw);
        let entry = event.entry().expect("a catalog event");
        assert_eq!(crate::events::names().shape(entry.name, entry.kind), shape);
    }

    #[test]
    fn events_outside_openhermit_take_the_shape_of_their_kind() {
        for entry in CATALOG {
            if ["prompt.submit", "tool.after"].contains(&entry.name) {
                continue; // OpenHermit's shape wins, checked above
            }
            assert_eq!(
                crate::events::names().shape(entry.name, entry.kind),
                BusShape::of_kind(entry.kind),
                "{}",
                entry.name
            );
        }
    }

    #[test]
    fn every_versioned_name_resolves_to_its_event() {
        for event in EVENTS {
            let versioned = format!("{}@{}", event.name, event.version);
            assert_eq!(
                crate::events::parse(&versioned).map(|e| e.as_str().to_owned()),
                Ok(event.canonical.to_owned()),
                "{versioned}"
            );
        }
    }
}
