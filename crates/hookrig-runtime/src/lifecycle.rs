//! A plan action and the lifecycle events it produces, delivered to hooks: what
//! `hookrig task ...` and `hookrig agent spawn` do, so that a claim is one code path
//! whoever makes it.

use std::path::{Path, PathBuf};

use hookrig_core::Payload;
use hookrig_plan::LifecycleError;
use hookrig_plan::lifecycle::{self, Event, Outcome, Request};
use hookrig_plan::plan::Action;

use crate::emit::{Emit, EmitRequest};
use crate::interrupt::StopSignal;
use crate::ledger::chain;
use crate::scope::Scope;

/// What a performed action did, and what became of its events.
#[derive(Debug)]
pub struct Performed {
    /// What the action did to the plan.
    pub outcome: Outcome,
    /// What became of its events.
    pub delivered: Delivered,
}

/// What became of an action's lifecycle events.
#[derive(Debug, Default)]
pub struct Delivered {
    /// The signal that interrupted a hook, if one did.
    pub interrupted: Option<StopSignal>,
    /// What the hooks reported (every emit's warnings) and events that could not be
    /// delivered, for stderr: hooks are notifications after the fact, so none of this
    /// changes what the action did.
    pub warnings: Vec<String>,
}

/// Performs `action` on the plan at `plan` as `agent` through the plan lifecycle, then
/// [`deliver`]s the lifecycle events it produced.
pub fn perform(
    scope: &Scope,
    plan: &Path,
    action: &Action,
    agent: &str,
) -> Result<Performed, LifecycleError> {
    // Normalised, so that `-f ../plan.spl` finds the project (and its trust) that the
    // plan path without `..` finds, and hooks see that path in `HENCE_PLAN`.
    let absolute = hookrig_config::normal_path(plan);
    let project_id = project_of(&absolute);
    let outcome = lifecycle::apply(&Request {
        plan,
        plan_in_events: &absolute,
        action,
        agent,
        project_id: &project_id,
    })?;
    // The lock is released: hooks may read the plan, or even run `hookrig task`.
    let delivered = deliver(scope, &outcome, &absolute, agent);
    Ok(Performed { outcome, delivered })
}

/// The project id of the plan at `plan` (absolute): [`hookrig_config::project_id`] of
/// its directory, the id the automations of that project get.
pub fn project_of(plan: &Path) -> String {
    hookrig_config::project_id(plan.parent().unwrap_or(Path::new("/")))
}

/// Emits the lifecycle events of `outcome` (an action of `agent` on the plan at
/// `plan`, without `..`) in the plan's directory, so that Hence hook scripts, native
/// hooks, plugins and automations react.
pub fn deliver(scope: &Scope, outcome: &Outcome, plan: &Path, agent: &str) -> Delivered {
    deliver_events(scope, &outcome.events, plan, agent)
}

/// Emits `events` of the plan at `plan` (without `..`), acted on by `agent`, in the
/// plan's directory: [`deliver`] for the events of an action, and for those a caller
/// noticed itself (`task.failed` when an agent's provider failed).
pub fn deliver_events(scope: &Scope, events: &[Event], plan: &Path, agent: &str) -> Delivered {
    let cwd = plan
        .parent()
        .map_or_else(|| PathBuf::from("/"), Path::to_owned);
    let scope = scope.at(&cwd);
    let mut delivered = Delivered::default();
    for event in events {
        let name = event.kind.name();
        let mut request = EmitRequest::new(
            hookrig_dialects::events::resolve(name),
            Payload::from_map(event.payload.to_map()),
        );
        request.agent = Some(agent.to_owned());
        match Emit::prepare(&scope, request).and_then(crate::Prepared::dispatch) {
            Ok(decided) => {
                delivered.warnings.extend(decided.warnings.iter().cloned());
                let finished = decided.finish();
                delivered.warnings.extend(finished.late_warnings);
                delivered.interrupted = delivered.interrupted.or(finished.interrupted);
            }
            Err(err) => delivered.warnings.push(format!(
                "{name} was not delivered to hooks: {}",
                chain(&err)
            )),
        }
    }
    delivered
}

#[cfg(test)]
mod tests {
    use hookrig_core::EventKind;
    use hookrig_plan::lifecycle::LifecycleEvent;

    #[test]
    fn every_lifecycle_event_is_a_notify_event_of_the_catalog() {
        // guards: a lifecycle event named outside the catalog would reach no hook
        // registered under its alias (`post-claim`) and be recorded as a custom event
        for event in LifecycleEvent::ALL {
            let name = hookrig_dialects::events::resolve(event.name());
            assert!(name.is_known(), "{}", event.name());
            assert_eq!(name.as_str(), event.name(), "canonical");
            assert_eq!(name.kind(), EventKind::Notify, "{}", event.name());
        }
    }
}
