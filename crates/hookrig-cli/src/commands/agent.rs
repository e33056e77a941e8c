//! `hookrig agent spawn|list|watch|log|stop|clean`: a provider CLI started on a task in
//! its own git worktree, kept working on a plan, followed, stopped and cleaned up.
//! docs/agents.md is the user's page.

use std::ops::ControlFlow;
use std::path::Path;
use std::time::Duration;

use clap::{Args, Subcommand};
use hookrig_agents::{
    AgentError, AgentStatus, HostProgram, Spawn, SpawnObserver, SpawnRequest, Watch,
};
use hookrig_plan::lifecycle::Outcome;
use hookrig_runtime::Scope;

use crate::cli::{AgentArg, JsonArg, PlanArg};
use crate::commands::agent_watch;
use crate::commands::task as task_command;
use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::{print, print_json, warn};
use crate::scope::{Flags, Top};

/// `hookrig agent ...`.
#[derive(Debug, Args)]
pub(crate) struct AgentArgs {
    #[command(subcommand)]
    command: AgentCommand,
}

#[derive(Debug, Subcommand)]
enum AgentCommand {
    /// Claim TASK and start a provider CLI on it in the worktree `.hookrig/worktrees/TASK`.
    Spawn(SpawnArgs),
    /// List the agents started by hookrig and whether they still run.
    List {
        #[command(flatten)]
        json: JsonArg,
    },
    /// Keep agents working on a plan: start an agent on each ready task (up to --max at
    /// once) until the plan is complete or Ctrl-C.
    Watch(WatchArgs),
    /// Follow an agent's log (every running agent of this repository without TASK) until
    /// it exits, then print how it exited.
    Log {
        /// The task whose agent to follow.
        task: Option<String>,
    },
    /// End an agent: SIGTERM to its process group, SIGKILL after the grace period.
    Stop {
        /// The task whose agent to stop.
        task: String,
        /// Seconds between SIGTERM and SIGKILL.
        #[arg(long, default_value_t = 5, value_name = "SECS")]
        grace: u64,
    },
    /// Remove a task's worktree, and its branch when merged into the current branch.
    Clean {
        /// The task.
        task: String,
        /// Remove the worktree even with uncommitted changes (they are lost).
        #[arg(long)]
        force: bool,
    },
    /// Internal: the detached process that runs and waits for a provider.
    #[command(name = "__host", hide = true)]
    Host {
        /// The JSON spec.
        spec: String,
    },
}

#[derive(Debug, Args)]
struct SpawnArgs {
    /// The task (`api` or `task-api`).
    task: String,
    #[command(flatten)]
    plan: PlanArg,
    #[command(flatten)]
    agent: AgentArg,
    /// The provider, over the task's meta, the agent's config and auto-detection.
    #[arg(long, value_name = "ID")]
    provider: Option<String>,
    /// Continue an interrupted session: passes the provider's `resume_flag` and accepts
    /// a worktree with uncommitted changes.
    #[arg(long)]
    resume: bool,
    /// Claim the task even when it is not ready (as `hookrig task claim --force`).
    #[arg(long)]
    force: bool,
}

#[derive(Debug, Args)]
struct WatchArgs {
    /// Follow the log of TASK's agent instead, as `hookrig agent log TASK` does (what
    /// `agent watch TASK` always did).
    #[arg(hide = true)]
    task: Option<String>,
    #[command(flatten)]
    plan: PlanArg,
    /// The agents to act for (comma-separated): tasks assigned to them, and unassigned
    /// tasks for the least busy of them. Default: every assigned agent, and unassigned
    /// tasks are left alone.
    #[arg(long, value_delimiter = ',', value_name = "A,B")]
    agents: Vec<String>,
    /// At most this many agents of the plan at once.
    #[arg(long, default_value_t = 2, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    max: u16,
    /// The provider for every agent, over the task's meta, the agent's config and
    /// auto-detection.
    #[arg(long, value_name = "ID")]
    provider: Option<String>,
    /// On Ctrl-C (SIGINT, SIGTERM, SIGHUP), stop the agents this watch started instead
    /// of leaving them running.
    #[arg(long)]
    stop_on_exit: bool,
    /// Seconds between SIGTERM and SIGKILL when stopping an agent.
    #[arg(long, default_value_t = 5, value_name = "SECS")]
    grace: u64,
}

/// Runs `hookrig agent ...`.
pub(crate) fn run(top: &Top, args: &AgentArgs) -> Result<u8, ExpectedError> {
    let scope = || top.scope(Flags::default());
    match &args.command {
        AgentCommand::Spawn(spawn_args) => {
            let flags = Flags::default()
                .plan(None, &spawn_args.plan)
                .agent(&spawn_args.agent);
            spawn(&top.scope(flags)?, spawn_args)
        }
        AgentCommand::List { json } => list(&scope()?, json.json),
        AgentCommand::Watch(watch_args) => match &watch_args.task {
            Some(task) => log(&scope()?, Some(task)),
            None => watch(
                &top.scope(Flags::default().plan(None, &watch_args.plan))?,
                watch_args,
            ),
        },
        AgentCommand::Log { task } => log(&scope()?, task.as_deref()),
        AgentCommand::Stop { task, grace } => stop(&scope()?, task, Duration::from_secs(*grace)),
        AgentCommand::Clean { task, force } => clean(&scope()?, task, *force),
        // The host acts for the agent its spec names, and for nobody else.
        AgentCommand::Host { spec } => Ok(hookrig_agents::run_host(spec)),
    }
}

/// Prints what the spawn says as it goes, and delivers the claim's lifecycle events.
struct Reporter<'a> {
    scope: &'a Scope,
}

impl SpawnObserver for Reporter<'_> {
    /// The exit code of the signal that interrupted a post-claim hook.
    type Stop = Result<u8, ExpectedError>;

    fn warning(&mut self, warning: String) {
        warn(warning);
    }

    fn claimed(&mut self, outcome: &Outcome, plan: &Path, agent: &str) -> ControlFlow<Self::Stop> {
        // The claim's own report comes first, as `hookrig task claim` prints it.
        if let Err(err) = print(&outcome.to_string()) {
            return ControlFlow::Break(Err(err));
        }
        match task_command::deliver(self.scope, outcome, plan, agent) {
            // A signal interrupted a post-claim hook: the user asked to stop. The claim
            // stays in the plan; no agent is started.
            Some(code) => ControlFlow::Break(Ok(code)),
            None => ControlFlow::Continue(()),
        }
    }
}

/// The program that runs an agent's host: this binary, as `agent __host SPEC`.
fn host_program() -> Result<HostProgram, AgentError> {
    let program = std::env::current_exe().map_err(|e| AgentError::Start(e.to_string()))?;
    Ok(HostProgram {
        program,
        args: vec!["agent".into(), "__host".into()],
    })
}

fn spawn(scope: &Scope, args: &SpawnArgs) -> Result<u8, ExpectedError> {
    let plan = scope.plan.as_ref().ok_or(AgentError::NoPlan)?.named.clone();
    let agent = scope.agent.clone().ok_or(AgentError::NoAgent)?;
    let request = SpawnRequest {
        task: args.task.clone(),
        plan,
        agent,
        provider: args.provider.clone(),
        resume: args.resume,
        force: args.force,
        store: scope.store.clone(),
        config_home: scope.env.config_home.clone(),
        host: host_program()?,
    };
    let spawned = match hookrig_agents::spawn(&request, &mut Reporter { scope })? {
        Spawn::Started(spawned) => spawned,
        Spawn::Stopped(stopped) => return stopped,
    };
    print(&spawned.to_string())?;
    Ok(exit_codes::PROCEED)
}

/// Where the scope's agents are recorded: the shared store the user's own `config.toml`
/// names (every machine's agents), else the scope's store file.
fn agents_at(scope: &Scope) -> hookrig_store::AgentsAt {
    hookrig_agents::agents_at(&scope.store, &scope.env.config_home)
}

fn list(scope: &Scope, json: bool) -> Result<u8, ExpectedError> {
    let at = agents_at(scope);
    let agents = hookrig_agents::list(&at)?;
    if json {
        print_json(&agents)?;
        return Ok(exit_codes::PROCEED);
    }
    if agents.is_empty() {
        print("no agents; `hookrig agent spawn TASK` starts one\n")?;
        return Ok(exit_codes::PROCEED);
    }
    print(&AgentStatus::table(&agents, at.is_shared()))?;
    Ok(exit_codes::PROCEED)
}

fn stop(scope: &Scope, task: &str, grace: Duration) -> Result<u8, ExpectedError> {
    let report = hookrig_agents::stop(&agents_at(scope), task, grace, Some(scope.cwd()))?;
    print(&format!("{}\n", report.render_text(grace)))?;
    Ok(exit_codes::PROCEED)
}

fn watch(scope: &Scope, args: &WatchArgs) -> Result<u8, ExpectedError> {
    let options = agent_watch::Options {
        agents: args.agents.clone(),
        max: usize::from(args.max),
        provider: args.provider.clone(),
        stop_on_exit: args.stop_on_exit,
        grace: Duration::from_secs(args.grace),
    };
    agent_watch::run(scope, options, host_program()?)
}

fn log(scope: &Scope, task: Option<&str>) -> Result<u8, ExpectedError> {
    let mut watch = Watch::new(&agents_at(scope), task, Some(scope.cwd()))?;
    if watch.is_empty() {
        print("no running agents to watch\n")?;
        return Ok(exit_codes::PROCEED);
    }
    let prefix = watch.len() > 1;
    loop {
        for seen in watch.poll()? {
            print(&seen.text(prefix))?;
        }
        if watch.finished() {
            return Ok(exit_codes::PROCEED);
        }
        std::thread::sleep(Watch::INTERVAL);
    }
}

fn clean(scope: &Scope, task: &str, force: bool) -> Result<u8, ExpectedError> {
    let cleaned = hookrig_agents::clean(&agents_at(scope), task, force, scope.cwd(), &mut warn)?;
    print(&cleaned.to_string())?;
    Ok(exit_codes::PROCEED)
}
