//! `hookrig agent spawn|list|watch|stop|clean`: a provider CLI started on a task in its
//! own git worktree, followed, stopped and cleaned up. docs/agents.md is the user's page.

use std::ffi::OsStr;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use hookrig_plan::plan::{Action, Plan};
use hookrig_store::{AgentRow, Store};
use serde_json::{Value, json};

use crate::agents::host::{self, Keystrokes, Spec};
use crate::agents::process::{self, State, Stopped};
use crate::agents::{AgentError, prompt, provider, worktree};
use crate::cli::GlobalArgs;
use crate::commands::task as task_command;
use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::print;

/// How long `spawn` waits for the host to say the provider started.
const START_TIMEOUT: Duration = Duration::from_secs(10);

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
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Follow an agent's log (every running agent of this repository without TASK) until
    /// it exits, then print how it exited.
    Watch {
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
    /// The plan file (default `$HOOKRIG_PLAN`, else `$HENCE_PLAN`).
    #[arg(long, short = 'f', value_name = "FILE")]
    plan: Option<PathBuf>,
    /// The agent that claims the task (default `$HOOKRIG_AGENT`, else `$HENCE_AGENT`).
    #[arg(long, value_name = "NAME")]
    agent: Option<String>,
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

/// Runs `hookrig agent ...`; `top_agent`/`top_plan` are `hookrig --agent/--plan`.
pub(crate) fn run(
    global: &GlobalArgs,
    args: AgentArgs,
    top_agent: Option<&OsStr>,
    top_plan: Option<&Path>,
) -> Result<u8, ExpectedError> {
    match args.command {
        AgentCommand::Spawn(spawn_args) => spawn(global, &spawn_args, top_agent, top_plan),
        AgentCommand::List { json } => list(global, json),
        AgentCommand::Watch { task } => watch(global, task.as_deref()),
        AgentCommand::Stop { task, grace } => stop(global, &task, Duration::from_secs(grace)),
        AgentCommand::Clean { task, force } => clean(global, &task, force),
        AgentCommand::Host { spec } => Ok(host::run(&spec)),
    }
}

fn from_env(names: &[&str]) -> Option<String> {
    names
        .iter()
        .find_map(|n| std::env::var(n).ok())
        .filter(|v| !v.is_empty())
}

fn open_store(global: &GlobalArgs) -> Result<Store, ExpectedError> {
    Ok(Store::open(&crate::ledger::store_path(global)?)?)
}

#[expect(
    clippy::too_many_lines,
    reason = "the steps of a spawn, in the order they happen"
)]
fn spawn(
    global: &GlobalArgs,
    args: &SpawnArgs,
    top_agent: Option<&OsStr>,
    top_plan: Option<&Path>,
) -> Result<u8, ExpectedError> {
    let plan_path = args
        .plan
        .clone()
        .or_else(|| top_plan.map(Path::to_owned))
        .or_else(|| from_env(&["HOOKRIG_PLAN", "HENCE_PLAN"]).map(PathBuf::from))
        .ok_or(AgentError::NoPlan)?;
    let agent = args
        .agent
        .clone()
        .or_else(|| top_agent.map(|a| a.to_string_lossy().into_owned()))
        .or_else(|| from_env(&["HOOKRIG_AGENT", "HENCE_AGENT"]))
        .filter(|a| !a.is_empty())
        .ok_or(AgentError::NoAgent)?;
    let plan_path = hookrig_config::normal_path(&plan_path);
    let text = std::fs::read_to_string(&plan_path).map_err(|source| AgentError::ReadPlan {
        path: plan_path.clone(),
        source,
    })?;
    let statements = hookrig_plan::spl::parse(&plan_path, &text).map_err(AgentError::from)?;
    let plan = Plan::new(&statements);
    let task = plan
        .task(&args.task)
        .ok_or_else(|| AgentError::UnknownTask {
            plan: plan_path.clone(),
            task: args.task.clone(),
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
    if let Some(held) = task.held_by_another(&agent) {
        return Err(AgentError::Held(held).into());
    }
    let plan_dir = plan_path
        .parent()
        .map_or_else(|| PathBuf::from("/"), Path::to_owned);
    let repo = worktree::repo_root(&plan_dir)?;
    let config = crate::commands::config::load(Some(&plan_dir))?;

    let meta_provider = task.meta.get("provider").and_then(Value::as_str);
    let selected = provider::select(
        &config,
        args.provider.as_deref(),
        meta_provider,
        &task.name,
        &agent,
        &plan_dir,
    )?;

    let path = worktree::worktree_path(&repo, &task.name);
    let key = path.to_string_lossy().into_owned();
    let store = open_store(global)?;
    if let Some(row) = store.agents().get(&key)?
        && matches!(process::state(&row), State::Running | State::Starting)
        && row.pid.is_some()
    {
        return Err(AgentError::AlreadyRunning {
            task: task.name.clone(),
            pid: row.pid.unwrap_or_default(),
        }
        .into());
    }

    let provisioned: Vec<String> = config
        .provision
        .iter()
        .map(|f| f.value.to.clone())
        .collect();
    let sources = worktree::check_provision(&repo, &config.provision)?;
    let prepared = worktree::prepare(&repo, &task.name, &provisioned, args.resume)?;
    // The claim goes through the plan lifecycle, as `hookrig task claim` does: the plan
    // file is locked and appended to, and `task.claimed` reaches the post-claim hooks.
    let claim = Action::Claim {
        task: task.name.clone(),
        force: args.force,
    };
    let (claimed, interrupted) = task_command::perform(global, &plan_path, &claim, &agent)?;
    print(&task_command::summary(&claimed))?;
    if let Some(code) = interrupted {
        // A signal interrupted a post-claim hook: the user asked to stop. The claim
        // stays in the plan; no agent is started.
        return Ok(code);
    }
    for missing in worktree::provision(&path, &config.provision, sources)? {
        eprintln!(
            "hookrig: warning: {}:{}: worktree provision file {} not found, skipped",
            missing.source.display(),
            missing.line,
            missing.from.display()
        );
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
        args: provider::arguments(p, args.resume, &prompt),
        cwd: path.clone(),
        env,
        log: log.clone(),
        ledger: crate::ledger::store_path(global)?,
        keystrokes: p.use_keystroke_injection.then(|| Keystrokes {
            text: prompt.clone(),
            delay_ms: p.keystroke_delay_ms,
        }),
    };
    store.agents().record(&AgentRow {
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
    let pid = match start_host(&spec) {
        Ok(pid) => pid,
        Err(err) => {
            let _ = store.agents().delete(&key);
            return Err(err.into());
        }
    };

    let mut out = String::new();
    let _ = writeln!(
        out,
        "spawned {} ({}) for agent '{agent}' on task '{}', pid {pid}",
        p.id,
        selected.reason.as_str(),
        task.name
    );
    let what = match prepared {
        worktree::Prepared::Created {
            branch_created: true,
        } => "created, new branch",
        worktree::Prepared::Created {
            branch_created: false,
        } => "created",
        worktree::Prepared::Reused => "reused",
    };
    let _ = writeln!(
        out,
        "  worktree: {} ({what} {})",
        path.display(),
        worktree::branch(&task.name)
    );
    let _ = writeln!(out, "  log: {}", log.display());
    print(&out)?;
    Ok(exit_codes::PROCEED)
}

/// Starts the host detached and waits for its first line: the provider's pid.
fn start_host(spec: &Spec) -> Result<i64, AgentError> {
    let exe = std::env::current_exe().map_err(|e| AgentError::Start(e.to_string()))?;
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
    let mut child = Command::new(exe)
        .args(["agent", "__host"])
        .arg(json)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .map_err(|e| AgentError::Start(e.to_string()))?;
    let stdout = child
        .stdout
        .take()
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

fn row_json(row: &AgentRow) -> Value {
    let state = process::state(row);
    json!({
        "task": row.task,
        "agent": row.agent,
        "provider": row.provider,
        "plan": row.plan,
        "worktree": row.worktree,
        "branch": row.branch,
        "log": row.log,
        "pid": row.pid,
        "state": state.text(),
        "running": state == State::Running,
        "exit_code": row.exit_code,
        "exit_signal": row.exit_signal,
        "started_at_ms": row.started_at_ms,
        "ended_at_ms": row.ended_at_ms,
        "stopped_at_ms": row.stopped_at_ms,
    })
}

fn list(global: &GlobalArgs, json: bool) -> Result<u8, ExpectedError> {
    let rows = open_store(global)?.agents().list()?;
    if json {
        let list: Vec<Value> = rows.iter().map(row_json).collect();
        let mut text = serde_json::to_string_pretty(&list).unwrap_or_default();
        text.push('\n');
        print(&text)?;
        return Ok(exit_codes::PROCEED);
    }
    if rows.is_empty() {
        print("no agents; `hookrig agent spawn TASK` starts one\n")?;
        return Ok(exit_codes::PROCEED);
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<16} {:<12} {:<10} {:<8} {:<18} WORKTREE",
        "TASK", "AGENT", "PROVIDER", "PID", "STATE"
    );
    for row in &rows {
        let pid = row.pid.map_or_else(|| "-".to_owned(), |p| p.to_string());
        let _ = writeln!(
            out,
            "{:<16} {:<12} {:<10} {:<8} {:<18} {}",
            row.task,
            row.agent,
            row.provider,
            pid,
            process::state(row).text(),
            row.worktree
        );
    }
    print(&out)?;
    Ok(exit_codes::PROCEED)
}

/// The agent of `task`: the one in the current directory's repository when there is
/// one, else the only one with that task name.
fn find_agent(store: &Store, task: &str) -> Result<Option<AgentRow>, ExpectedError> {
    let task = task.strip_prefix("task-").unwrap_or(task);
    let rows: Vec<AgentRow> = store
        .agents()
        .list()?
        .into_iter()
        .filter(|r| r.task == task)
        .collect();
    let here = std::env::current_dir()
        .ok()
        .and_then(|d| worktree::repo_root(&d).ok())
        .map(|p| main_repo(&p));
    if let Some(here) = &here
        && let Some(row) = rows.iter().find(|r| Path::new(&r.repo) == here)
    {
        return Ok(Some(row.clone()));
    }
    match rows.len() {
        0 => Ok(None),
        1 => Ok(rows.into_iter().next()),
        _ => Err(AgentError::Ambiguous {
            task: task.to_owned(),
            repos: rows.into_iter().map(|r| r.repo).collect(),
        }
        .into()),
    }
}

/// Inside an agent's worktree, the repository is the one the worktree belongs to.
fn main_repo(top: &Path) -> PathBuf {
    worktree::git(
        top,
        &["rev-parse", "--path-format=absolute", "--git-common-dir"],
    )
    .ok()
    .map(PathBuf::from)
    .and_then(|common| common.parent().map(Path::to_owned))
    .unwrap_or_else(|| top.to_owned())
}

fn stop(global: &GlobalArgs, task: &str, grace: Duration) -> Result<u8, ExpectedError> {
    let store = open_store(global)?;
    let row = find_agent(&store, task)?.ok_or_else(|| AgentError::NoSuchAgent(task.to_owned()))?;
    let state = process::state(&row);
    // A provider that exited may have left processes of its group behind: they are
    // the agent's too.
    let Some(pid) = row
        .pid
        .filter(|pid| state == State::Running || process::leftovers(*pid))
    else {
        print(&format!(
            "the agent of task '{}' is not running ({})\n",
            row.task,
            state.text()
        ))?;
        return Ok(exit_codes::PROCEED);
    };
    let how = process::stop(pid, grace);
    store.agents().set_stopped(&row.worktree)?;
    let text = match how {
        Stopped::NotRunning => format!("the agent of task '{}' had exited", row.task),
        Stopped::Terminated => format!(
            "stopped the agent of task '{}' (process group {pid}, SIGTERM)",
            row.task
        ),
        Stopped::Killed => format!(
            "killed the agent of task '{}' (process group {pid}: SIGKILL after {}s)",
            row.task,
            grace.as_secs()
        ),
    };
    print(&format!("{text}\n"))?;
    Ok(exit_codes::PROCEED)
}

/// One followed log.
struct Followed {
    row: AgentRow,
    offset: u64,
    done: bool,
}

fn watch(global: &GlobalArgs, task: Option<&str>) -> Result<u8, ExpectedError> {
    let store = open_store(global)?;
    #[expect(clippy::single_match_else, reason = "two ways to choose, side by side")]
    let rows = match task {
        Some(task) => {
            vec![
                find_agent(&store, task)?
                    .ok_or_else(|| AgentError::NoSuchAgent(task.to_owned()))?,
            ]
        }
        None => {
            let here = std::env::current_dir()
                .ok()
                .and_then(|d| worktree::repo_root(&d).ok())
                .map(|p| main_repo(&p));
            store
                .agents()
                .list()?
                .into_iter()
                .filter(|r| here.as_deref().is_none_or(|h| Path::new(&r.repo) == h))
                .filter(|r| matches!(process::state(r), State::Running | State::Starting))
                .collect()
        }
    };
    if rows.is_empty() {
        print("no running agents to watch\n")?;
        return Ok(exit_codes::PROCEED);
    }
    let prefix = rows.len() > 1;
    let mut followed: Vec<Followed> = rows
        .into_iter()
        .map(|row| Followed {
            row,
            offset: 0,
            done: false,
        })
        .collect();
    while followed.iter().any(|f| !f.done) {
        for f in followed.iter_mut().filter(|f| !f.done) {
            let fresh = store
                .agents()
                .get(&f.row.worktree)?
                .unwrap_or_else(|| f.row.clone());
            let state = process::state(&fresh);
            let finished = !matches!(state, State::Running | State::Starting);
            // Read after looking at the state, so that the last output is printed
            // before the exit is.
            let text = read_from(Path::new(&f.row.log), &mut f.offset);
            if !text.is_empty() {
                print(&if prefix {
                    prefixed(&f.row.task, &text)
                } else {
                    text
                })?;
            }
            if finished {
                let state = settle(&store, &f.row.worktree, state);
                print(&format!(
                    "hookrig: the agent of task '{}' {}\n",
                    f.row.task,
                    state.text()
                ))?;
                f.done = true;
            }
        }
        if followed.iter().any(|f| !f.done) {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    Ok(exit_codes::PROCEED)
}

/// A provider that just died may not have its exit recorded yet: the host records it
/// right after reaping. Wait a moment for it.
fn settle(store: &Store, worktree: &str, state: State) -> State {
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut state = state;
    while matches!(
        state,
        State::Exited {
            code: None,
            signal: None
        }
    ) && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(50));
        if let Ok(Some(row)) = store.agents().get(worktree) {
            state = process::state(&row);
        }
    }
    state
}

fn read_from(path: &Path, offset: &mut u64) -> String {
    let Ok(mut file) = std::fs::File::open(path) else {
        return String::new();
    };
    if file.seek(SeekFrom::Start(*offset)).is_err() {
        return String::new();
    }
    let mut bytes = Vec::new();
    if let Ok(n) = file.read_to_end(&mut bytes) {
        *offset += n as u64;
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn prefixed(task: &str, text: &str) -> String {
    text.split_inclusive('\n')
        .fold(String::new(), |mut out, line| {
            let _ = write!(out, "[{task}] {line}");
            out
        })
}

fn clean(global: &GlobalArgs, task: &str, force: bool) -> Result<u8, ExpectedError> {
    let store = open_store(global)?;
    let row = find_agent(&store, task)?;
    let task = task.strip_prefix("task-").unwrap_or(task);
    worktree::check_task_name(task)?;
    if let Some(row) = &row
        && process::state(row) == State::Running
    {
        return Err(AgentError::StillRunning {
            task: task.to_owned(),
            pid: row.pid.unwrap_or_default(),
        }
        .into());
    }
    let repo = match &row {
        Some(row) => PathBuf::from(&row.repo),
        None => main_repo(&worktree::repo_root(
            &std::env::current_dir().map_err(ExpectedError::Cwd)?,
        )?),
    };
    let config = crate::commands::config::load(Some(&repo))?;
    let provisioned: Vec<String> = config
        .provision
        .iter()
        .map(|f| f.value.to.clone())
        .collect();
    let path = worktree::worktree_path(&repo, task);
    let removed = worktree::remove(&repo, task, &provisioned, force)?;
    let mut out = format!("removed worktree {}\n", path.display());
    let branch = worktree::branch(task);
    match removed.branch {
        Ok(()) => {
            let _ = writeln!(out, "deleted branch {branch} (merged)");
        }
        Err(message) => {
            let current = worktree::git(&repo, &["symbolic-ref", "--short", "HEAD"])
                .unwrap_or_else(|_| "HEAD".to_owned());
            let why = if message.contains("not fully merged") {
                format!("not merged into {current}")
            } else {
                message
            };
            let _ = writeln!(out, "kept branch {branch}: {why}");
        }
    }
    let log = worktree::log_path(&repo, task);
    if std::fs::remove_file(&log).is_ok() {
        let _ = writeln!(out, "removed log {}", log.display());
    }
    store.agents().delete(&path.to_string_lossy())?;
    print(&out)?;
    Ok(exit_codes::PROCEED)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn followed_logs_are_prefixed_line_by_line() {
        assert_eq!(
            prefixed("api", "a\nb\npartial"),
            "[api] a\n[api] b\n[api] partial"
        );
        assert_eq!(prefixed("api", ""), "");
    }
}
