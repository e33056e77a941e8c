//! `agent spawn`: a provider CLI started on a task of a plan, in the task's worktree.
//!
//! The steps, each stopping the spawn on failure: the task is read from the plan, the
//! provider selected ([`provider`](mod@crate::provider)), the provisioned files checked and
//! the worktree prepared ([`worktree`](mod@crate::worktree)), the task claimed through the
//! plan lifecycle in this process, the files provisioned, the prompt built, and the
//! provider started under the detached host ([`host`](crate::host)).

use std::ffi::OsString;
use std::fmt;
use std::io::{BufRead as _, BufReader};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use hookrig_exec::{Command, Detached, EnvPolicy, Grouping, Program, Stream};
use hookrig_plan::lifecycle::{self, Outcome, Request};
use hookrig_plan::plan::{Action, Plan};
use hookrig_store::AgentRow;
use serde_json::Value;

use crate::errors::AgentError;
use crate::host::{Keystrokes, Spec};
use crate::process::State;
use crate::provider::Reason;
use crate::worktree::{Missing, Prepared};
use crate::{process, prompt, provider, worktree};

/// How long `spawn` waits for the host to say the provider started.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// What to spawn, resolved by the caller from its flags and environment.
#[derive(Debug, Clone)]
pub struct SpawnRequest {
    /// The task (`api` or `task-api`).
    pub task: String,
    /// The plan file.
    pub plan: PathBuf,
    /// The agent that claims the task.
    pub agent: String,
    /// The provider asked for, over the task's meta, the agent's config and
    /// auto-detection.
    pub provider: Option<String>,
    /// Continue an interrupted session: pass the provider's `resume_flag` and accept a
    /// worktree with uncommitted changes.
    pub resume: bool,
    /// Claim the task even when it is not ready.
    pub force: bool,
    /// The store file of the ledger: it records the agents when the user's own
    /// `config.toml` names no shared store ([`agents_at`](crate::agents_at)).
    pub store: PathBuf,
    /// The user's config directory, whose `config.toml` may name the shared store that
    /// records the agents instead.
    pub config_home: PathBuf,
    /// How to start the host: a program that runs [`run_host`](crate::run_host) with
    /// the spec appended to `args` as one more argument.
    pub host: HostProgram,
}

/// The program that runs the host.
#[derive(Debug, Clone)]
pub struct HostProgram {
    /// The executable (the `hookrig` binary).
    pub program: PathBuf,
    /// The arguments before the spec (`agent __host`).
    pub args: Vec<OsString>,
}

/// What a spawn tells its caller while it runs; the caller renders it.
pub trait SpawnObserver {
    /// Why [`claimed`](Self::claimed) stopped the spawn.
    type Stop;

    /// A warning: a config.toml diagnostic, a provisioned file that is not there.
    fn warning(&mut self, warning: String);

    /// The task was claimed (or already held by the agent: a no-op); `plan` is the plan
    /// file as the lifecycle events name it. The caller delivers the lifecycle events
    /// to hooks here; `Break` stops the spawn (a signal interrupted a hook): the claim
    /// stays, and no agent is started.
    fn claimed(&mut self, outcome: &Outcome, plan: &Path, agent: &str) -> ControlFlow<Self::Stop>;
}

/// What a spawn did.
#[derive(Debug)]
pub enum Spawn<S> {
    /// The provider runs.
    Started(Spawned),
    /// [`SpawnObserver::claimed`] stopped the spawn after the claim.
    Stopped(S),
}

/// A provider started on a task.
#[derive(Debug, Clone)]
pub struct Spawned {
    /// The task's name.
    pub task: String,
    /// The agent.
    pub agent: String,
    /// The provider's id.
    pub provider: String,
    /// Why it was chosen.
    pub reason: Reason,
    /// The provider's pid, which is its process group id.
    pub pid: i64,
    /// The worktree.
    pub worktree: PathBuf,
    /// Whether the worktree was created or reused.
    pub prepared: Prepared,
    /// Its branch.
    pub branch: String,
    /// The log of the provider's output.
    pub log: PathBuf,
}

/// What `hookrig agent spawn` prints once the provider runs: who runs on what, where,
/// and where its output goes.
impl fmt::Display for Spawned {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "spawned {} ({}) for agent '{}' on task '{}', pid {}",
            self.provider,
            self.reason.as_str(),
            self.agent,
            self.task,
            self.pid
        )?;
        let what = match self.prepared {
            Prepared::Created {
                branch_created: true,
            } => "created, new branch",
            Prepared::Created {
                branch_created: false,
            } => "created",
            Prepared::Reused => "reused",
        };
        writeln!(
            f,
            "  worktree: {} ({what} {})",
            self.worktree.display(),
            self.branch
        )?;
        writeln!(f, "  log: {}", self.log.display())
    }
}

/// Spawns an agent: see the module documentation for the steps.
#[expect(
    clippy::too_many_lines,
    reason = "the steps of a spawn, in the order they happen"
)]
pub fn spawn<O: SpawnObserver>(
    request: &SpawnRequest,
    observer: &mut O,
) -> Result<Spawn<O::Stop>, AgentError> {
    let plan_path = hookrig_config::normal_path(&request.plan);
    let agent = &request.agent;
    let text = std::fs::read_to_string(&plan_path).map_err(|source| AgentError::ReadPlan {
        path: plan_path.clone(),
        source,
    })?;
    let statements = hookrig_plan::spl::parse(&plan_path, &text)?;
    let plan = Plan::new(&statements);
    let task = plan
        .task(&request.task)
        .ok_or_else(|| AgentError::UnknownTask {
            plan: plan_path.clone(),
            task: request.task.clone(),
            known: plan
                .tasks
                .iter()
                .map(|t| t.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })?
        .clone();
    worktree::check_task_name(&task.name)?;
    // Before anything is created: a task another agent holds gets no second agent.
    // The claim below checks again under the plan's lock.
    if let Some(held) = task.held_by_another(agent) {
        return Err(AgentError::Held(held));
    }
    let plan_dir = plan_path
        .parent()
        .map_or_else(|| PathBuf::from("/"), Path::to_owned);
    let repo = worktree::repo_root(&plan_dir)?;
    let config = crate::config::load(&plan_dir, &mut |w| observer.warning(w))?;

    let meta_provider = task.meta.get("provider").and_then(Value::as_str);
    let selected = provider::select(
        &config,
        request.provider.as_deref(),
        meta_provider,
        &task.name,
        agent,
        &plan_dir,
    )?;

    let path = worktree::worktree_path(&repo, &task.name);
    let key = path.to_string_lossy().into_owned();
    let store = crate::agents_at(&request.store, &request.config_home).open()?;
    if let Some(row) = store.agents().get(&key)?
        && matches!(process::state(&row), State::Running | State::Starting)
        && let Some(pid) = row.pid
    {
        return Err(AgentError::AlreadyRunning {
            task: task.name.clone(),
            pid,
        });
    }

    let provisioned: Vec<String> = config
        .provision
        .iter()
        .map(|f| f.value.to.clone())
        .collect();
    let sources = worktree::check_provision(&repo, &config.provision)?;
    let prepared = worktree::prepare(&repo, &task.name, &provisioned, request.resume)?;
    // The claim goes through the plan lifecycle, as `hookrig task claim` does: the plan
    // file is locked and appended to; the caller delivers `task.claimed` to hooks.
    let claim = Action::Claim {
        task: task.name.clone(),
        force: request.force,
    };
    let claimed = lifecycle::apply(&Request {
        plan: &plan_path,
        plan_in_events: &plan_path,
        action: &claim,
        agent,
        project_id: &hookrig_config::project_id(&plan_dir),
    })?;
    if let ControlFlow::Break(stop) = observer.claimed(&claimed, &plan_path, agent) {
        return Ok(Spawn::Stopped(stop));
    }
    for Missing { from, source, line } in worktree::provision(&path, &config.provision, sources)? {
        observer.warning(format!(
            "{}:{line}: worktree provision file {} not found, skipped",
            source.display(),
            from.display()
        ));
    }

    let prompt = prompt::task_prompt(&task.name, &task.meta, &plan_path);
    let p = &selected.provider;
    let plan_text = plan_path.to_string_lossy().into_owned();
    let env = vec![
        ("HOOKRIG_AGENT".to_owned(), agent.clone()),
        ("HOOKRIG_PLAN".to_owned(), plan_text.clone()),
        ("HOOKRIG_TASK".to_owned(), task.name.clone()),
        ("HENCE_AGENT".to_owned(), agent.clone()),
        ("HENCE_PLAN".to_owned(), plan_text.clone()),
        ("HENCE_TASK".to_owned(), task.name.clone()),
    ];
    let log = worktree::log_path(&repo, &task.name);
    let spec = Spec {
        program: selected.program.clone(),
        args: provider::arguments(p, request.resume, &prompt),
        cwd: path.clone(),
        env,
        log: log.clone(),
        ledger: request.store.clone(),
        config_home: request.config_home.clone(),
        keystrokes: p.use_keystroke_injection.then(|| Keystrokes {
            text: prompt.clone(),
            delay_ms: p.keystroke_delay_ms,
        }),
    };
    store.agents().record(&AgentRow {
        host: hookrig_store::host_name(),
        worktree: key.clone(),
        repo: repo.to_string_lossy().into_owned(),
        task: task.name.clone(),
        plan: plan_text,
        agent: agent.clone(),
        provider: p.id.clone(),
        branch: worktree::branch(&task.name),
        log: log.to_string_lossy().into_owned(),
        pid: None,
        proc_start: None,
        started_at_ms: hookrig_store::now_ms(),
        exit_code: None,
        exit_signal: None,
        ended_at_ms: None,
        stopped_at_ms: None,
    })?;
    let pid = match start_host(&request.host, &spec) {
        Ok(pid) => pid,
        Err(err) => {
            let _ = store.agents().delete(&key);
            return Err(err);
        }
    };
    Ok(Spawn::Started(Spawned {
        task: task.name.clone(),
        agent: agent.clone(),
        provider: p.id.clone(),
        reason: selected.reason,
        pid,
        worktree: path,
        prepared,
        branch: worktree::branch(&task.name),
        log,
    }))
}

/// Starts the host detached and waits for its first line: the provider's pid.
fn start_host(host: &HostProgram, spec: &Spec) -> Result<i64, AgentError> {
    let json = serde_json::to_string(spec).map_err(|e| AgentError::Start(e.to_string()))?;
    let io = |source| AgentError::Io {
        what: "cannot open the log",
        path: spec.log.clone(),
        source,
    };
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&spec.log)
        .map_err(io)?;
    let mut args = host.args.clone();
    args.push(json.into());
    let command = Command {
        program: Program::Exec {
            program: host.program.clone().into_os_string(),
            args,
        },
        cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
        env: EnvPolicy::Inherit { set: Vec::new() },
    };
    // A new session: no controlling terminal, so closing the terminal `spawn` ran in
    // does not hang the agent up, and the host is nobody's foreground job.
    let mut child = command
        .spawn_detached(Detached {
            stdout: Stream::Pipe,
            stderr: Stream::File(log),
            grouping: Grouping::Session,
        })
        .map_err(|e| AgentError::Start(e.to_string()))?;
    let stdout = child
        .take_stdout()
        .ok_or_else(|| AgentError::Start("no pipe to the host".to_owned()))?;
    // Read on a thread: a host that hangs before answering must not hang `spawn`.
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = send.send(line);
    });
    let line = receive
        .recv_timeout(START_TIMEOUT)
        .map_err(|_| AgentError::Start("the host did not answer within 10s".to_owned()))?;
    let line = line.trim_end();
    if let Some(pid) = line.strip_prefix("pid ").and_then(|p| p.parse().ok()) {
        Ok(pid)
    } else if let Some(message) = line.strip_prefix("error ") {
        Err(AgentError::Start(message.to_owned()))
    } else {
        Err(AgentError::Start(format!(
            "the host ended without starting it (see {})",
            spec.log.display()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spawn_report_names_the_provider_the_worktree_and_the_log() {
        let spawned = Spawned {
            task: "api".to_owned(),
            agent: "alice".to_owned(),
            provider: "claude".to_owned(),
            reason: Reason::TaskMeta,
            pid: 4242,
            worktree: PathBuf::from("/repo/.hookrig/worktrees/api"),
            prepared: Prepared::Created {
                branch_created: true,
            },
            branch: "task/api".to_owned(),
            log: PathBuf::from("/repo/.hookrig/logs/api.log"),
        };
        assert_eq!(
            spawned.to_string(),
            "spawned claude (task meta) for agent 'alice' on task 'api', pid 4242\n  \
             worktree: /repo/.hookrig/worktrees/api (created, new branch task/api)\n  \
             log: /repo/.hookrig/logs/api.log\n"
        );
    }
}
