//! What can go wrong when starting, watching, stopping or cleaning up an agent.

use std::path::PathBuf;

use thiserror::Error;

/// Why an agent could not be spawned, listed, watched, stopped or cleaned up, or the
/// providers not listed.
#[derive(Debug, Error)]
pub enum AgentError {
    /// Hence's wording, exit 1.
    #[error("provider '{id}' CLI '{cli}' not found")]
    CliNotFound {
        /// The provider's id.
        id: String,
        /// Its `cli`.
        cli: String,
    },
    /// A provider id that neither config.toml nor the built-ins know.
    #[error("unknown provider '{id}' (from {origin}); known providers: {known}")]
    UnknownProvider {
        /// The id.
        id: String,
        /// Where it was asked for.
        origin: String,
        /// Every known id, comma-separated.
        known: String,
    },
    /// Nothing selected a provider and none of the known CLIs is on `PATH`.
    #[error(
        "no provider for task '{task}': the task has no (provider \"...\") meta, agent '{agent}' has no [[agents]] entry in config.toml, and none of claude, codex, gemini, aider is on PATH"
    )]
    NoProvider {
        /// The task.
        task: String,
        /// The agent.
        agent: String,
    },
    /// No `--plan` and no `HOOKRIG_PLAN`/`HENCE_PLAN`.
    #[error("no plan: give --plan FILE or set HOOKRIG_PLAN")]
    NoPlan,
    /// No `--agent` and no `HOOKRIG_AGENT`/`HENCE_AGENT`.
    #[error("no agent: give --agent NAME or set HOOKRIG_AGENT")]
    NoAgent,
    /// The plan file cannot be read.
    #[error("cannot read the plan {}", path.display())]
    ReadPlan {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The plan does not parse (`path:line:col: message`).
    #[error(transparent)]
    Plan(#[from] hookrig_plan::SplError),
    /// The plan declares no such task.
    #[error("plan {} has no task '{task}'; its tasks: {known}", plan.display())]
    UnknownTask {
        /// The plan.
        plan: PathBuf,
        /// The task asked for.
        task: String,
        /// The declared tasks, comma-separated.
        known: String,
    },
    /// A task name that cannot name a directory and a branch.
    #[error("task name '{0}' cannot name a worktree: use letters, digits, '.', '_' and '-'")]
    BadTaskName(String),
    /// A git command failed.
    #[error("git {args} failed in {}: {message}", dir.display())]
    Git {
        /// The arguments.
        args: String,
        /// Where.
        dir: PathBuf,
        /// What git said.
        message: String,
    },
    /// The worktree directory is there, but git does not know it as a worktree.
    #[error(
        "{} exists but is not a git worktree of {}; move it away or remove it",
        path.display(),
        repo.display()
    )]
    NotAWorktree {
        /// The directory.
        path: PathBuf,
        /// The repository.
        repo: PathBuf,
    },
    /// The worktree has uncommitted changes.
    #[error("worktree {} has uncommitted changes: {}; {hint}", path.display(), files.join(", "))]
    Dirty {
        /// The worktree.
        path: PathBuf,
        /// The changed files, as `git status --porcelain` names them.
        files: Vec<String>,
        /// What to do about it.
        hint: &'static str,
    },
    /// A provisioned file's `to` leaves the worktree.
    #[error("{source_file}:{line}: worktree provision file `{to}` is outside the worktree")]
    ProvisionEscapes {
        /// The `to`.
        to: String,
        /// The config file.
        source_file: String,
        /// Its line.
        line: usize,
    },
    /// A provisioned file's `from` is, once its symlinks are followed, outside the
    /// repository.
    #[error("{source_file}:{line}: worktree provision file `{from}` resolves to {}, outside the repository {}; only files of the repository are provisioned", real.display(), repo.display())]
    ProvisionOutsideRepo {
        /// The `from`.
        from: String,
        /// Where it leads.
        real: PathBuf,
        /// The repository root.
        repo: PathBuf,
        /// The config file.
        source_file: String,
        /// Its line.
        line: usize,
    },
    /// Provisioning a file failed.
    #[error("cannot provision {} into {}", from.display(), to.display())]
    Provision {
        /// The source.
        from: PathBuf,
        /// The destination.
        to: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The task is in progress under another agent's claim.
    #[error("{0}")]
    Held(hookrig_plan::ActionError),
    /// An agent already runs in the worktree.
    #[error("an agent already runs task '{task}' (pid {pid}); `hookrig agent stop {task}` first")]
    AlreadyRunning {
        /// The task.
        task: String,
        /// Its pid.
        pid: i64,
    },
    /// `stop`/`clean`/`watch` named a task no agent was spawned for.
    #[error("no agent was spawned for task '{0}'; `hookrig agent list` shows the agents")]
    NoSuchAgent(String),
    /// The task name matches agents of several repositories.
    #[error("task '{task}' has agents in several repositories ({}); run the command inside the one you mean", repos.join(", "))]
    Ambiguous {
        /// The task.
        task: String,
        /// Their repositories.
        repos: Vec<String>,
    },
    /// `stop`, `watch` or `clean` of a task whose agent runs on another machine (a shared
    /// store lists every machine's agents).
    #[error(
        "the agent of task '{task}' runs on the machine {host}, not this one; run the command there"
    )]
    OtherMachine {
        /// The task.
        task: String,
        /// The agent's machine.
        host: String,
    },
    /// `clean` on a running agent.
    #[error("the agent of task '{task}' still runs (pid {pid}); `hookrig agent stop {task}` first")]
    StillRunning {
        /// The task.
        task: String,
        /// Its pid.
        pid: i64,
    },
    /// The host process could not start the provider.
    #[error("cannot start the provider: {0}")]
    Start(String),
    /// The task could not be claimed through the plan lifecycle (the message is the
    /// lifecycle's own, as `hookrig task claim` prints it).
    #[error(transparent)]
    Claim(#[from] hookrig_plan::LifecycleError),
    /// config.toml cannot be loaded.
    #[error(transparent)]
    Config(#[from] hookrig_config::ConfigError),
    /// The directory whose config.toml applies is gone.
    #[error("{}: no such directory", .0.display())]
    NoSuchDir(PathBuf),
    /// The store that records agents cannot be used.
    #[error(transparent)]
    Store(#[from] hookrig_store::StoreError),
    /// The async runtime that supervises child processes could not start.
    #[error("cannot start the async runtime")]
    Runtime(#[source] std::io::Error),
    /// An I/O failure on a named file.
    #[error("{what} {}", path.display())]
    Io {
        /// What was being done (`cannot open the log`).
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}
