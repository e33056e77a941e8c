//! `hookrig task claim|unclaim|complete|block|unblock TASK` and `hookrig task assert
//! 'SPL'`: the action performed by the plan lifecycle (`hookrig_plan::lifecycle`),
//! then the lifecycle events it returned emitted so that Hence hook scripts, native
//! hooks, plugins and automations react.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use hookrig_plan::lifecycle::{LifecycleEvent, Outcome};
use hookrig_plan::plan::{Action, TaskState};
use hookrig_runtime::lifecycle;
use serde::Serialize;

use crate::cli::GlobalArgs;
use crate::commands::plan_file::{self, PlanError};
use crate::errors::ExpectedError;
use crate::{exit_codes, output, scope};

/// `hookrig task ...`.
#[derive(Debug, Args)]
pub(crate) struct TaskArgs {
    #[command(subcommand)]
    command: TaskCommand,
}

#[derive(Debug, Subcommand)]
enum TaskCommand {
    /// Claim a ready task (any task but a done one with --force).
    Claim {
        /// The task (`api` or `task-api`).
        task: String,
        /// Claim a task that is not ready.
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        common: Common,
    },
    /// Give a claimed task back.
    Unclaim {
        /// The task.
        task: String,
        #[command(flatten)]
        common: Common,
    },
    /// Mark a task done.
    Complete {
        /// The task.
        task: String,
        #[command(flatten)]
        common: Common,
    },
    /// Block a task by hand (its dependents are not blocked by it).
    Block {
        /// The task.
        task: String,
        /// Why; kept in the plan as `(given (blocked-by TASK "REASON"))`.
        #[arg(long)]
        reason: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// Lift a manual block.
    Unblock {
        /// The task.
        task: String,
        #[command(flatten)]
        common: Common,
    },
    /// Append SPL statements to the plan, e.g. `hookrig task assert '(given failed-api)'`.
    Assert {
        /// One or more SPL statements.
        #[arg(value_name = "SPL")]
        spl: String,
        #[command(flatten)]
        common: Common,
    },
}

#[derive(Debug, Args)]
struct Common {
    /// The plan file (default `$HOOKRIG_PLAN`, else `$HENCE_PLAN`).
    #[arg(long, short = 'f', value_name = "FILE")]
    plan: Option<PathBuf>,
    /// The agent acting (default `$HOOKRIG_AGENT`, else `$HENCE_AGENT`).
    #[arg(long, value_name = "NAME")]
    agent: Option<String>,
    /// Print what happened as JSON.
    #[arg(long)]
    json: bool,
}

/// What `--json` prints.
#[derive(Debug, Serialize)]
struct Report {
    /// `claim`, `unclaim`, `complete`, `block`, `unblock` or `assert`.
    action: &'static str,
    /// The task's name (without `task-`); null for `assert`.
    task: Option<String>,
    /// The asserted SPL, for `assert` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    expression: Option<String>,
    agent: String,
    /// The task's state before and after; null for `assert`.
    state_before: Option<TaskState>,
    state_after: Option<TaskState>,
    /// True when the task already was where the action would take it.
    noop: bool,
    /// The text appended to the plan file; null for a no-op.
    appended: Option<String>,
    /// The lifecycle events emitted, in order.
    events: Vec<&'static str>,
}

impl Report {
    fn new(outcome: &Outcome) -> Self {
        Self {
            action: outcome.action.verb(),
            task: outcome.task.clone(),
            expression: match &outcome.action {
                Action::Assert { spl } => Some(spl.clone()),
                _ => None,
            },
            agent: outcome.agent.clone(),
            state_before: outcome.state_before,
            state_after: outcome.state_after,
            noop: outcome.is_noop(),
            appended: outcome.appended.clone(),
            events: outcome.events.iter().map(|e| e.kind.name()).collect(),
        }
    }
}

/// Runs `hookrig task ...`. `top_agent` and `top_plan` are `hookrig --agent/--plan`,
/// used when the subcommand has none.
pub(crate) fn run(
    global: &GlobalArgs,
    args: &TaskArgs,
    top_agent: Option<&OsStr>,
    top_plan: Option<&Path>,
) -> Result<u8, ExpectedError> {
    let (action, common) = match &args.command {
        TaskCommand::Claim {
            task,
            force,
            common,
        } => (
            Action::Claim {
                task: task.clone(),
                force: *force,
            },
            common,
        ),
        TaskCommand::Unclaim { task, common } => (Action::Unclaim { task: task.clone() }, common),
        TaskCommand::Complete { task, common } => (Action::Complete { task: task.clone() }, common),
        TaskCommand::Block {
            task,
            reason,
            common,
        } => (
            Action::Block {
                task: task.clone(),
                reason: reason.clone(),
            },
            common,
        ),
        TaskCommand::Unblock { task, common } => (Action::Unblock { task: task.clone() }, common),
        TaskCommand::Assert { spl, common } => (Action::Assert { spl: spl.clone() }, common),
    };
    let path = plan_file::plan_path(common.plan.as_deref(), top_plan)?;
    let agent = plan_file::agent(common.agent.as_deref(), top_agent)?;
    let (outcome, interrupted) = perform(global, &path, &action, &agent)?;
    let report = Report::new(&outcome);
    if common.json {
        let mut text = serde_json::to_string_pretty(&report).expect("JSON always serializes");
        text.push('\n');
        output::print(&text)?;
    } else {
        output::print(&summary(&outcome))?;
    }
    Ok(interrupted.unwrap_or(exit_codes::PROCEED))
}

/// Performs `action` on the plan at `path` as `agent` through the runtime (the plan
/// lifecycle, then its events delivered to hooks), and says on stderr what the hooks
/// reported. Returns what the action did and the exit code of a signal that
/// interrupted a hook, if one did.
pub(crate) fn perform(
    global: &GlobalArgs,
    path: &Path,
    action: &Action,
    agent: &str,
) -> Result<(Outcome, Option<u8>), PlanError> {
    // The events happen in the plan's directory; the scope only carries the store.
    let scope = scope::resolve(global, None, None, None)?;
    let performed = lifecycle::perform(&scope, path, action, agent)?;
    Ok((performed.outcome, report(&performed.delivered)))
}

/// Delivers the lifecycle events of `outcome`, an action of `agent` on the plan at
/// `absolute`, to hooks; returns the exit code of a signal that interrupted a hook, if
/// one did. `agent spawn` delivers its claim's events through here too, so that a claim
/// reaches hooks the same way whoever makes it.
pub(crate) fn deliver(
    global: &GlobalArgs,
    outcome: &Outcome,
    absolute: &Path,
    agent: &str,
) -> Option<u8> {
    match scope::resolve(global, None, None, None) {
        Ok(scope) => report(&lifecycle::deliver(&scope, outcome, absolute, agent)),
        Err(err) => {
            eprintln!(
                "hookrig: warning: the task's events were not delivered to hooks: {}",
                output::chain(&err)
            );
            None
        }
    }
}

/// Says on stderr what the hooks reported. Hooks are notifications after the fact: the
/// plan has changed whatever they do, so neither a failing hook nor a config that does
/// not load changes the exit code.
fn report(delivered: &lifecycle::Delivered) -> Option<u8> {
    for warning in &delivered.warnings {
        eprintln!("hookrig: warning: {warning}");
    }
    delivered.interrupted.map(exit_codes::stopped_by)
}

/// One line saying what happened.
pub(crate) fn summary(outcome: &Outcome) -> String {
    let state = |s: Option<TaskState>| s.map_or("?", TaskState::as_str);
    let action = &outcome.action;
    let mut text = match (&outcome.task, action) {
        (Some(task), _) if outcome.is_noop() => format!(
            "{task} is already {}: nothing to {}\n",
            state(outcome.state_before),
            action.verb()
        ),
        (Some(task), _) => format!(
            "{} {task}: {} → {}\n",
            action.past(),
            state(outcome.state_before),
            state(outcome.state_after)
        ),
        (None, Action::Assert { spl }) => format!("asserted {}\n", spl.trim()),
        (None, _) => String::new(),
    };
    if outcome
        .events
        .iter()
        .any(|e| e.kind == LifecycleEvent::PlanCompleted)
    {
        text.push_str("every task of the plan is done\n");
    }
    text
}

#[cfg(test)]
mod tests {
    use hookrig_core::EventKind;

    use super::*;

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
