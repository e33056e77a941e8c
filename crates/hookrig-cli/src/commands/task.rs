//! `hookrig task claim|unclaim|complete|block|unblock TASK` and `hookrig task assert
//! 'SPL'`: the action performed by the plan lifecycle (`hookrig_plan::lifecycle`),
//! then the lifecycle events it returned emitted so that Hence hook scripts, native
//! hooks, plugins and automations react.

use std::path::Path;

use clap::{Args, Subcommand};
use hookrig_plan::lifecycle::Outcome;
use hookrig_plan::plan::Action;
use hookrig_runtime::{Scope, lifecycle};

use crate::cli::PlanAgentArgs;
use crate::errors::ExpectedError;
use crate::scope::{Flags, Top};
use crate::{exit_codes, output};

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
        common: PlanAgentArgs,
    },
    /// Give a claimed task back.
    Unclaim {
        /// The task.
        task: String,
        #[command(flatten)]
        common: PlanAgentArgs,
    },
    /// Mark a task done.
    Complete {
        /// The task.
        task: String,
        #[command(flatten)]
        common: PlanAgentArgs,
    },
    /// Block a task by hand (its dependents are not blocked by it).
    Block {
        /// The task.
        task: String,
        /// Why; kept in the plan as `(given (blocked-by TASK "REASON"))`.
        #[arg(long)]
        reason: Option<String>,
        #[command(flatten)]
        common: PlanAgentArgs,
    },
    /// Lift a manual block.
    Unblock {
        /// The task.
        task: String,
        #[command(flatten)]
        common: PlanAgentArgs,
    },
    /// Append SPL statements to the plan, e.g. `hookrig task assert '(given failed-api)'`.
    Assert {
        /// One or more SPL statements.
        #[arg(value_name = "SPL")]
        spl: String,
        #[command(flatten)]
        common: PlanAgentArgs,
    },
}

/// Runs `hookrig task ...`.
pub(crate) fn run(top: &Top, args: &TaskArgs) -> Result<u8, ExpectedError> {
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
    let scope = top.scope(
        Flags::default()
            .plan(None, &common.plan)
            .agent(&common.agent),
    )?;
    let plan = scope.plan.as_ref().ok_or(ExpectedError::NoPlan)?;
    let agent = scope.agent.as_deref().ok_or(ExpectedError::NoAgent)?;
    let performed = lifecycle::perform(&scope, &plan.named, &action, agent)?;
    let interrupted = report(&performed.delivered);
    output::json_or_text(common.json.json, &performed.outcome, Outcome::to_string)?;
    Ok(interrupted.unwrap_or(exit_codes::PROCEED))
}

/// Delivers the lifecycle events of `outcome`, an action of `agent` on the plan at
/// `absolute`, to hooks; returns the exit code of a signal that interrupted a hook, if
/// one did. `agent spawn` delivers its claim's events through here too, so that a claim
/// reaches hooks the same way whoever makes it.
pub(crate) fn deliver(
    scope: &Scope,
    outcome: &Outcome,
    absolute: &Path,
    agent: &str,
) -> Option<u8> {
    report(&lifecycle::deliver(scope, outcome, absolute, agent))
}

/// Says on stderr what the hooks reported. Hooks are notifications after the fact: the
/// plan has changed whatever they do, so neither a failing hook nor a config that does
/// not load changes the exit code.
fn report(delivered: &lifecycle::Delivered) -> Option<u8> {
    output::warn_all(&delivered.warnings);
    delivered.interrupted.map(exit_codes::stopped_by)
}
