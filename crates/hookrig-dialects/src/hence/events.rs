//! Hence's events: its lifecycle hook points (`post-claim`, ...), each fired after one
//! task or plan state change, and the canonical events they are. The loader, the
//! protocol and the resolver (`crate::events`) read this table; the hook points
//! themselves (the `[hooks]` keys of `config.toml`, the script names) are
//! `hookrig_config::HookPoint`.

use hookrig_config::HookPoint;

/// Each hook point, in Hence's order (the order of [`HookPoint::ALL`]), with the
/// canonical event it listens to.
pub(crate) static EVENTS: &[(HookPoint, &str)] = &[
    (HookPoint::PostClaim, "task.claimed"),
    (HookPoint::PostComplete, "task.completed"),
    (HookPoint::PostBlock, "task.blocked"),
    (HookPoint::PostUnblock, "task.unblocked"),
    (HookPoint::PostAssert, "plan.asserted"),
    (HookPoint::PostPlanComplete, "plan.completed"),
];

/// The canonical event the hook point `point` listens to.
pub(crate) fn event_of(point: HookPoint) -> &'static str {
    EVENTS
        .iter()
        .find(|(of, _)| *of == point)
        .map_or("", |(_, event)| event)
}

/// Hence's names (the hook point names) as aliases of canonical events, for the
/// resolver.
pub(crate) fn aliases() -> impl Iterator<Item = (&'static str, &'static str)> {
    EVENTS.iter().map(|(point, event)| (point.name(), *event))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_hook_point_has_its_event() {
        for point in HookPoint::ALL {
            assert!(!event_of(point).is_empty(), "{}", point.name());
        }
    }
}
