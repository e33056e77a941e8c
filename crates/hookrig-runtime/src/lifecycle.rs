//! A plan action and the lifecycle events it produces, delivered to hooks: what
//! `hookrig task ...` and `hookrig agent spawn` do, so that a claim is one code path
//! whoever makes it.

use std::path::{Path, PathBuf};

use hookrig_core::{EventName, Payload};
use hookrig_plan::LifecycleError;
use hookrig_plan::lifecycle::{self, Outcome, Request};
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
    /// The signal that interrupted a hook, if one did.
    pub interrupted: Option<StopSignal>,
    /// What the hooks reported (every emit's warnings) and events that could not be
    /// delivered, for stderr: hooks are notifications after the fact, so none of this
    /// changes what the action did.
    pub warnings: Vec<String>,
}

/// Performs `action` on the plan at `plan` as `agent` through the plan lifecycle, then
/// emits the lifecycle events it produced in the plan's directory, so that Hence hook
/// scripts, native hooks, plugins and automations react.
pub fn perform(
    scope: &Scope,
    plan: &Path,
    action: &Action,
    agent: &str,
) -> Result<Performed, LifecycleError> {
    // Normalised, so that `-f ../plan.spl` finds the project (and its trust) that the
    // plan path without `..` finds, and hooks see that path in `HENCE_PLAN`.
    let absolute = hookrig_config::normal_path(plan);
    let outcome = lifecycle::apply(&Request {
        plan,
        plan_in_events: &absolute,
        action,
        agent,
    })?;
    // The lock is released: hooks may read the plan, or even run `hookrig task`.
    let cwd = absolute
        .parent()
        .map_or_else(|| PathBuf::from("/"), Path::to_owned);
    let scope = scope.at(&cwd);
    let mut interrupted = None;
    let mut warnings = Vec::new();
    for event in &outcome.events {
        let name = event.kind.name();
        let mut request = EmitRequest::new(
            EventName::resolve(name),
            Payload::from_map(event.payload.to_map()),
        );
        request.agent = Some(agent.to_owned());
        let emitted = Emit::prepare(&scope, request).and_then(crate::Prepared::dispatch);
        match emitted {
            Ok(decided) => {
                warnings.extend(decided.warnings.iter().cloned());
                let finished = decided.finish();
                warnings.extend(finished.late_warnings);
                interrupted = interrupted.or(finished.interrupted);
            }
            Err(err) => warnings.push(format!(
                "{name} was not delivered to hooks: {}",
                chain(&err)
            )),
        }
    }
    Ok(Performed {
        outcome,
        interrupted,
        warnings,
    })
}
