//! `hookrig task claim|unclaim|complete|block|unblock TASK` and `hookrig task assert
//! 'SPL'`: append a task action to the plan under its lock, then emit the lifecycle
//! event so that Hence hook scripts, native hooks, plugins and automations react.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use clap::{Args, Subcommand};
use hookrig_core::{EventName, Payload};
use hookrig_plan::ActionError;
use hookrig_plan::plan::{Action, Plan, Prepared, TaskState};
use hookrig_plan::spl;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::cli::GlobalArgs;
use crate::commands::emit::{Emission, Suppress, dispatch_event};
use crate::commands::plan_file::{self, Locked, PlanError};
use crate::errors::ExpectedError;
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
    events: Vec<String>,
}

/// Runs `hookrig task ...`. `top_agent` and `top_plan` are `hookrig --agent/--plan`,
/// used when the subcommand has none.
pub(crate) fn run(
    global: &GlobalArgs,
    args: &TaskArgs,
    top_agent: Option<&OsStr>,
    top_plan: Option<&Path>,
) -> Result<u8, ExpectedError> {
    let (what, common) = match &args.command {
        TaskCommand::Claim {
            task,
            force,
            common,
        } => (What::Task(Action::Claim, task, *force), common),
        TaskCommand::Unclaim { task, common } => (What::Task(Action::Unclaim, task, false), common),
        TaskCommand::Complete { task, common } => {
            (What::Task(Action::Complete, task, false), common)
        }
        TaskCommand::Block {
            task,
            reason,
            common,
        } => (
            What::Task(
                Action::Block {
                    reason: reason.clone(),
                },
                task,
                false,
            ),
            common,
        ),
        TaskCommand::Unblock { task, common } => (What::Task(Action::Unblock, task, false), common),
        TaskCommand::Assert { spl, common } => (What::Assert(spl), common),
    };
    let path = plan_file::plan_path(common.plan.as_deref(), top_plan)?;
    let agent = plan_file::agent(common.agent.as_deref(), top_agent)?;
    let at = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();

    let (mut report, complete_now) = apply(&path, &what, &agent, &at)?;
    let name_of = report.task.clone();

    // The lock is released: hooks may read the plan, or even run `hookrig task`.
    // Normalised, so that `-f ../plan.spl` finds the project (and its trust) that the
    // plan path without `..` finds, and hooks see that path in `HENCE_PLAN`.
    let absolute = hookrig_config::normal_path(&path);
    let cwd = absolute
        .parent()
        .map_or_else(|| PathBuf::from("/"), Path::to_owned);
    let events = if report.noop {
        Vec::new()
    } else {
        lifecycle(&what, name_of.as_deref(), &absolute, &agent, complete_now)
    };
    let mut interrupted = None;
    for (event, payload) in events {
        report.events.push(event.to_owned());
        let emission = Emission {
            name: EventName::resolve(event),
            payload: Payload::from_map(payload),
            cwd: cwd.clone(),
            session_id: String::new(),
            dialect: "native".to_owned(),
            agent: Some(agent.clone()),
            plugin_dirs: Vec::new(),
            suppress: Suppress::default(),
        };
        // Hooks are notifications after the fact: the plan has changed whatever they
        // do, so neither a failing hook nor a config that does not load changes the
        // exit code. Both are reported on stderr.
        match dispatch_event(global, emission, false, |outcome, _| {
            for warning in outcome.warnings {
                eprintln!("hookrig: warning: {warning}");
            }
            Ok(())
        }) {
            Ok(((), signal)) => interrupted = interrupted.or(signal),
            Err(err) => eprintln!(
                "hookrig: warning: {event} was not delivered to hooks: {}",
                output::chain(&err)
            ),
        }
    }

    if common.json {
        let mut text = serde_json::to_string_pretty(&report).expect("JSON always serializes");
        text.push('\n');
        output::print(&text)?;
    } else {
        output::print(&summary(&report))?;
    }
    Ok(interrupted.unwrap_or(exit_codes::PROCEED))
}

/// The events an action that changed the plan emits, with their payloads: the action's
/// own (`task.claimed`, …, `plan.asserted`), then `plan.completed` when it completed
/// the plan's last task.
fn lifecycle(
    what: &What<'_>,
    task: Option<&str>,
    plan: &Path,
    agent: &str,
    complete_now: bool,
) -> Vec<(&'static str, Map<String, Value>)> {
    let mut events = Vec::new();
    if let Some(event) = lifecycle_event(what) {
        let mut payload = Map::new();
        payload.insert("plan".into(), plan.display().to_string().into());
        match what {
            What::Assert(text) => {
                payload.insert("expression".into(), Value::from(*text));
            }
            What::Task(action, _, _) => {
                payload.insert("task".into(), Value::from(task));
                if let Action::Block {
                    reason: Some(reason),
                } = action
                {
                    payload.insert("reason".into(), reason.as_str().into());
                }
            }
        }
        payload.insert("agent".into(), agent.into());
        events.push((event, payload));
    }
    if complete_now {
        let mut payload = Map::new();
        payload.insert("plan".into(), plan.display().to_string().into());
        if let Some(task) = task {
            payload.insert("task".into(), task.into());
        }
        payload.insert("agent".into(), agent.into());
        events.push(("plan.completed", payload));
    }
    events
}

enum What<'a> {
    Task(Action, &'a str, bool),
    Assert(&'a str),
}

fn lifecycle_event(what: &What<'_>) -> Option<&'static str> {
    match what {
        What::Task(Action::Claim, ..) => Some("task.claimed"),
        What::Task(Action::Complete, ..) => Some("task.completed"),
        What::Task(Action::Block { .. }, ..) => Some("task.blocked"),
        What::Task(Action::Unblock, ..) => Some("task.unblocked"),
        // Neither Hence nor the catalog has an unclaim hook point.
        What::Task(Action::Unclaim, ..) => None,
        What::Assert(_) => Some("plan.asserted"),
    }
}

/// Under the plan's lock: read it, decide, append. Returns the report (events still
/// empty) and whether this action completed the plan's last task.
fn apply(path: &Path, what: &What<'_>, agent: &str, at: &str) -> Result<(Report, bool), PlanError> {
    let mut locked = Locked::open(path)?;
    let loaded = locked.read()?;
    let was_complete = loaded.plan.is_complete();
    let (prepared, task, state_before, action, expression) = match what {
        What::Task(action, task, force) => {
            let prepared = loaded
                .plan
                .prepare(action, task, agent, at, *force)
                .map_err(action_error)?;
            let found = loaded
                .plan
                .task(task)
                .expect("prepare checked that it exists");
            (
                prepared,
                Some(found.name.clone()),
                Some(found.state),
                action.verb(),
                None,
            )
        }
        What::Assert(text) => {
            let statement = loaded
                .plan
                .prepare_assert(text, agent, at)
                .map_err(action_error)?;
            (
                Prepared::Append(statement),
                None,
                None,
                "assert",
                Some((*text).to_owned()),
            )
        }
    };
    let mut report = Report {
        action,
        task,
        expression,
        agent: agent.strip_prefix("agent:").unwrap_or(agent).to_owned(),
        state_before,
        state_after: state_before,
        noop: true,
        appended: None,
        events: Vec::new(),
    };
    let Prepared::Append(statement) = prepared else {
        return Ok((report, false));
    };
    let text = spl::append(&loaded.text, std::slice::from_ref(&statement));
    locked.append(&text)?;
    drop(locked);
    let mut statements = loaded.statements;
    statements.push(statement);
    let after = Plan::new(&statements);
    report.noop = false;
    report.appended = Some(text);
    report.state_after = report
        .task
        .as_deref()
        .and_then(|t| after.task(t))
        .map(|t| t.state);
    Ok((report, !was_complete && after.is_complete()))
}

fn action_error(err: ActionError) -> PlanError {
    match err {
        ActionError::Spl(err) => PlanError::Spl(err),
        other => PlanError::Action(other),
    }
}

/// One line saying what happened.
fn summary(report: &Report) -> String {
    let state = |s: Option<TaskState>| s.map_or("?", TaskState::as_str);
    let mut text = match (&report.task, report.noop) {
        (Some(task), true) => format!(
            "{task} is already {}: nothing to {}\n",
            state(report.state_before),
            report.action
        ),
        (Some(task), false) => format!(
            "{} {task}: {} → {}\n",
            past(report.action),
            state(report.state_before),
            state(report.state_after)
        ),
        (None, _) => format!(
            "asserted {}\n",
            report.expression.as_deref().unwrap_or_default().trim()
        ),
    };
    if report.events.iter().any(|e| e == "plan.completed") {
        text.push_str("every task of the plan is done\n");
    }
    text
}

fn past(verb: &str) -> &'static str {
    match verb {
        "claim" => "claimed",
        "unclaim" => "unclaimed",
        "complete" => "completed",
        "block" => "blocked",
        "unblock" => "unblocked",
        _ => "did",
    }
}
