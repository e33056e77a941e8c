//! `agent watch --plan P`: keeps agents working on a plan.
//!
//! Each round (every [`ROUND`]) reads the plan and the agents the store records for
//! it, then:
//!
//! 1. reports the agents this watch started that have ended, and the tasks of the plan
//!    that became blocked since the last round;
//! 2. ends the watch when the plan is complete, none of its agents runs and the end of
//!    each it started has been reported;
//! 3. spawns agents on ready tasks, in plan order, through [`spawn`](crate::spawn) (the
//!    path of `agent spawn`, provider selection and auto-detection included) while
//!    fewer than [`PlanWatch::max`] agents of the plan run. A task assigned to an agent
//!    (`assign-TASK-AGENT`) is spawned for that agent; an unassigned one only when
//!    [`PlanWatch::agents`] names agents, for the one of them running the fewest
//!    agents. With [`PlanWatch::agents`] given, only tasks for those agents are taken.
//!
//! A task whose spawn failed is not tried again by the same watch (the error is
//! reported once, not every round). A stop request ([`StopRequest`], set by SIGINT,
//! SIGTERM or SIGHUP through [`StopRequest::on_signals`]) ends the watch after the
//! round: the agents it started are left running, or with [`PlanWatch::stop_on_exit`]
//! stopped through their process groups.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use hookrig_exec::Stopped;
use hookrig_plan::lifecycle::{self, EventPayload};
use hookrig_plan::plan::{Plan, Task, TaskState};
use hookrig_store::{AgentRecords, AgentRow};

use crate::errors::AgentError;
use crate::process::{self, State};
use crate::spawn::{HostProgram, Spawn, SpawnObserver, SpawnRequest, Spawned, spawn};

/// How long a round waits before the next one.
pub(crate) const ROUND: Duration = Duration::from_millis(250);

/// What to watch, resolved by the caller from its flags and environment.
#[derive(Debug, Clone)]
pub struct PlanWatch {
    /// The plan file.
    pub plan: PathBuf,
    /// The agents this watch acts for; empty: every agent a task is assigned to, and
    /// unassigned tasks are left alone.
    pub agents: Vec<String>,
    /// At most this many agents of the plan run at once (at least 1).
    pub max: usize,
    /// The provider for every spawn, over the task's meta, the agent's config and
    /// auto-detection (as `agent spawn --provider`).
    pub provider: Option<String>,
    /// Stop the agents this watch started when it ends on a stop request.
    pub stop_on_exit: bool,
    /// Between SIGTERM and SIGKILL when stopping an agent.
    pub grace: Duration,
    /// The store file of the ledger, which records the agents unless the user's own
    /// `config.toml` names a shared store ([`agents_at`](crate::agents_at)).
    pub store: PathBuf,
    /// The user's config directory.
    pub config_home: PathBuf,
    /// How to start each agent's host.
    pub host: HostProgram,
}

/// What a watch noticed, in the order it happened.
#[derive(Debug)]
pub enum Noticed {
    /// An agent was started on a ready task.
    Started(Spawned),
    /// A ready task's agent could not be started; the watch does not try it again.
    NotStarted {
        /// The task.
        task: String,
        /// The agent it was for.
        agent: String,
        /// Why.
        error: AgentError,
    },
    /// An agent this watch started has ended.
    Ended {
        /// The task.
        task: String,
        /// The agent.
        agent: String,
        /// How its provider ended.
        state: State,
        /// The task's state in the plan now (`None`: the task left the plan).
        task_state: Option<TaskState>,
        /// The payload of `task.failed` for the caller to deliver, when the provider
        /// failed (a non-zero exit, a signal) and left its task neither done nor blocked.
        failed: Option<EventPayload>,
    },
    /// A task of the plan became blocked.
    Blocked {
        /// The task.
        task: String,
        /// The reason given with the block, if any.
        reason: Option<String>,
    },
    /// The plan cannot be read this round (it is kept being read).
    Unreadable(AgentError),
    /// The watch ends on a stop request and leaves this agent running.
    LeftRunning {
        /// The task.
        task: String,
        /// Its process group.
        pid: i64,
    },
    /// The watch ends on a stop request and stopped this agent.
    StoppedAgent {
        /// The task.
        task: String,
        /// How it ended.
        how: Stopped,
    },
}

/// How a caller shows one thing a watch noticed: a line of progress (stdout), or a
/// warning (stderr).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Progress {
    /// A line, its newline included.
    Line(String),
    /// A warning, without the `warning: ` its printer adds.
    Warning(String),
}

impl Noticed {
    /// How `agent watch` shows it; `grace` is the watch's, said when an agent needed
    /// SIGKILL after it.
    pub fn progress(&self, grace: Duration) -> Progress {
        use hookrig_core::error_chain as chain;
        match self {
            Noticed::Started(spawned) => Progress::Line(format!(
                "started {} ({}) for agent '{}' on task '{}', pid {}\n",
                spawned.provider,
                spawned.reason.as_str(),
                spawned.agent,
                spawned.task,
                spawned.pid
            )),
            Noticed::NotStarted { task, agent, error } => Progress::Warning(format!(
                "no agent started on task '{task}' for '{agent}' (not tried again): {}",
                chain(error)
            )),
            Noticed::Ended {
                task,
                state,
                task_state,
                ..
            } => {
                let now = task_state.map_or("gone from the plan", TaskState::as_str);
                Progress::Line(format!(
                    "the agent of task '{task}' {}; the task is {now}\n",
                    state.text()
                ))
            }
            Noticed::Blocked { task, reason } => Progress::Line(match reason {
                Some(reason) => format!("task '{task}' is blocked: {reason}\n"),
                None => format!("task '{task}' is blocked\n"),
            }),
            Noticed::Unreadable(error) => Progress::Warning(format!(
                "{} (watching on; read again every round)",
                chain(error)
            )),
            Noticed::LeftRunning { task, pid } => Progress::Line(format!(
                "left the agent of task '{task}' running (process group {pid})\n"
            )),
            Noticed::StoppedAgent { task, how } => {
                let how = match how {
                    Stopped::NotRunning => "it had exited".to_owned(),
                    Stopped::Terminated => "SIGTERM".to_owned(),
                    Stopped::Killed => format!("SIGKILL after {}s", grace.as_secs()),
                };
                Progress::Line(format!("stopped the agent of task '{task}' ({how})\n"))
            }
        }
    }
}

impl PlanWatch {
    /// The line a watch starts with: what it watches and what Ctrl-C does.
    pub fn banner(&self) -> String {
        format!(
            "watching {}: up to {} agent(s) at once; Ctrl-C stops watching{}\n",
            self.plan.display(),
            self.max,
            if self.stop_on_exit {
                " and the agents it started"
            } else {
                " (the agents keep running)"
            }
        )
    }
}

/// What a watch reports while it runs; the caller renders it.
pub trait WatchObserver: SpawnObserver {
    /// Something happened.
    fn noticed(&mut self, noticed: Noticed);
}

/// Why a watch ended.
#[derive(Debug)]
pub enum WatchEnd<S> {
    /// Every task of the plan is done and none of its agents runs.
    Completed,
    /// A stop request ended it.
    Requested,
    /// [`SpawnObserver::claimed`] stopped a spawn (a signal interrupted a hook).
    Interrupted(S),
}

impl<S> WatchEnd<S> {
    /// The last line of a watch that ended by itself or on request; `None` when a spawn
    /// stopped it (the caller answers with what stopped it).
    pub fn text(&self) -> Option<&'static str> {
        match self {
            WatchEnd::Completed => Some("the plan is complete\n"),
            WatchEnd::Requested => Some("stopped watching\n"),
            WatchEnd::Interrupted(_) => None,
        }
    }
}

/// A request to end a watch, shared with whoever sets it.
#[derive(Debug, Clone, Default)]
pub struct StopRequest(Arc<AtomicBool>);

impl StopRequest {
    /// Asks the watch to end after its round.
    pub fn set(&self) {
        self.0.store(true, Ordering::Release);
    }

    /// Whether the watch was asked to end.
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }

    /// A request set by SIGINT, SIGTERM or SIGHUP, listened for on a thread of its own
    /// from before this returns: Ctrl-C ends a watch after its round rather than
    /// killing it in the middle of a spawn.
    ///
    /// # Errors
    ///
    /// The signal handlers cannot be installed.
    pub fn on_signals() -> std::io::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};

        let request = StopRequest::default();
        let set = request.clone();
        let (ready, installed) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("watch-signals".to_owned())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_current_thread()
                    .enable_io()
                    .build()
                {
                    Ok(runtime) => runtime,
                    Err(err) => {
                        let _ = ready.send(Err(err));
                        return;
                    }
                };
                runtime.block_on(async move {
                    let handlers = (
                        signal(SignalKind::interrupt()),
                        signal(SignalKind::terminate()),
                        signal(SignalKind::hangup()),
                    );
                    let (mut int, mut term, mut hup) = match handlers {
                        (Ok(int), Ok(term), Ok(hup)) => (int, term, hup),
                        (Err(err), _, _) | (_, Err(err), _) | (_, _, Err(err)) => {
                            let _ = ready.send(Err(err));
                            return;
                        }
                    };
                    let _ = ready.send(Ok(()));
                    tokio::select! {
                        _ = int.recv() => {}
                        _ = term.recv() => {}
                        _ = hup.recv() => {}
                    }
                    set.set();
                });
            })?;
        installed
            .recv()
            .map_err(|_| std::io::Error::other("the signal thread ended"))??;
        Ok(request)
    }
}

/// An agent this watch started.
#[derive(Debug)]
struct Started {
    task: String,
    agent: String,
    worktree: String,
    pid: i64,
    /// Rounds seen dead without the exit the host records right after reaping it.
    unsettled: u32,
}

/// Rounds an ended agent's report waits for the host to record its exit (about ten
/// seconds: the host records it right after reaping, but on a busy machine its write
/// may wait for the store), so that a failure is told from a success.
const SETTLE_ROUNDS: u32 = 40;

/// Keeps agents working on the plan of `request` until the plan is complete, `stop` is
/// set, or a spawn's hooks were interrupted; see the module documentation.
///
/// # Errors
///
/// The plan cannot be read at the start, or the store cannot be opened or read.
pub fn watch_plan<O: WatchObserver>(
    request: &PlanWatch,
    stop: &StopRequest,
    observer: &mut O,
) -> Result<WatchEnd<O::Stop>, AgentError> {
    let plan_path = hookrig_config::normal_path(&request.plan);
    let plan_key = plan_path.to_string_lossy().into_owned();
    let store = crate::agents_at(&request.store, &request.config_home).open()?;
    // Read once before the loop, so that a plan that cannot be read at all is an error
    // rather than a report every round, and tasks blocked before the watch are not
    // reported as news.
    let mut states = task_states(&read_plan(&plan_path)?);
    let mut started: Vec<Started> = Vec::new();
    let mut given_up: HashSet<String> = HashSet::new();
    let mut unreadable = false;
    loop {
        if stop.is_set() {
            finish(request, &store, &started, observer);
            return Ok(WatchEnd::Requested);
        }
        let plan = match read_plan(&plan_path) {
            Ok(plan) => {
                unreadable = false;
                plan
            }
            Err(err) => {
                // Reported once until it reads again: the plan may be mid-edit.
                if !unreadable {
                    observer.noticed(Noticed::Unreadable(err));
                }
                unreadable = true;
                pause(stop);
                continue;
            }
        };
        let rows: Vec<AgentRow> = store
            .agents()
            .list()?
            .into_iter()
            .filter(|row| row.plan == plan_key)
            .collect();
        report_ended(&plan, &rows, &plan_key, &mut started, observer);
        report_blocked(&plan, &mut states, observer);
        let running: Vec<&AgentRow> = rows
            .iter()
            .filter(|row| matches!(process::state(row), State::Running | State::Starting))
            .collect();
        // Not before every agent it started has been reported as ended.
        if plan.is_complete() && running.is_empty() && started.is_empty() {
            return Ok(WatchEnd::Completed);
        }
        let mut busy: HashMap<String, usize> = HashMap::new();
        for row in &running {
            *busy.entry(row.agent.clone()).or_default() += 1;
        }
        let mut slots = request.max.max(1).saturating_sub(running.len());
        for task in plan.tasks.iter().filter(|t| t.state == TaskState::Ready) {
            if slots == 0 {
                break;
            }
            if given_up.contains(&task.name) || running.iter().any(|r| r.task == task.name) {
                continue;
            }
            let Some(agent) = agent_for(task, &request.agents, &busy) else {
                continue;
            };
            match spawn(&spawn_request(request, &task.name, &agent), observer) {
                Ok(Spawn::Started(spawned)) => {
                    slots -= 1;
                    *busy.entry(agent.clone()).or_default() += 1;
                    started.push(Started {
                        task: spawned.task.clone(),
                        agent,
                        worktree: spawned.worktree.to_string_lossy().into_owned(),
                        pid: spawned.pid,
                        unsettled: 0,
                    });
                    observer.noticed(Noticed::Started(spawned));
                }
                Ok(Spawn::Stopped(stopped)) => {
                    // A signal that reached a claim's hooks is a stop request too.
                    finish(request, &store, &started, observer);
                    return Ok(WatchEnd::Interrupted(stopped));
                }
                Err(error) => {
                    given_up.insert(task.name.clone());
                    observer.noticed(Noticed::NotStarted {
                        task: task.name.clone(),
                        agent,
                        error,
                    });
                }
            }
        }
        pause(stop);
    }
}

fn read_plan(path: &std::path::Path) -> Result<Plan, AgentError> {
    Ok(lifecycle::read(path).map_err(AgentError::Claim)?.plan)
}

fn task_states(plan: &Plan) -> HashMap<String, TaskState> {
    plan.tasks
        .iter()
        .map(|t| (t.name.clone(), t.state))
        .collect()
}

/// Waits for the next round, or less when a stop is requested meanwhile.
fn pause(stop: &StopRequest) {
    let until = Instant::now() + ROUND;
    while !stop.is_set() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// The agent a ready `task` is spawned for, if this watch acts for one: its first
/// assigned agent among `agents` (any, when `agents` is empty); for an unassigned task,
/// the one of `agents` running the fewest agents.
fn agent_for(task: &Task, agents: &[String], busy: &HashMap<String, usize>) -> Option<String> {
    if !task.assigned_to.is_empty() {
        return task
            .assigned_to
            .iter()
            .find(|a| agents.is_empty() || agents.contains(a))
            .cloned();
    }
    agents
        .iter()
        .min_by_key(|a| busy.get(*a).copied().unwrap_or_default())
        .cloned()
}

fn spawn_request(request: &PlanWatch, task: &str, agent: &str) -> SpawnRequest {
    SpawnRequest {
        task: task.to_owned(),
        plan: request.plan.clone(),
        agent: agent.to_owned(),
        provider: request.provider.clone(),
        resume: false,
        force: false,
        store: request.store.clone(),
        config_home: request.config_home.clone(),
        host: request.host.clone(),
    }
}

/// Reports (and forgets) the agents of `started` that no longer run.
fn report_ended<O: WatchObserver>(
    plan: &Plan,
    rows: &[AgentRow],
    plan_key: &str,
    started: &mut Vec<Started>,
    observer: &mut O,
) {
    started.retain_mut(|agent| {
        let state = rows
            .iter()
            .find(|row| row.worktree == agent.worktree)
            .map_or(
                // Forgotten by `agent clean`: it ended.
                State::Exited {
                    code: None,
                    signal: None,
                },
                process::state,
            );
        if matches!(state, State::Running | State::Starting) {
            return true;
        }
        let unrecorded = matches!(
            state,
            State::Exited {
                code: None,
                signal: None
            }
        );
        if unrecorded && agent.unsettled < SETTLE_ROUNDS {
            agent.unsettled += 1;
            return true;
        }
        let task = plan.task(&agent.task);
        let failed = task
            .filter(|t| !matches!(t.state, TaskState::Done | TaskState::Blocked))
            .and_then(|t| failure(&state).map(|error| (t, error)))
            .map(|(t, error)| {
                let plan_path = std::path::Path::new(plan_key);
                let project = hookrig_config::project_id(
                    plan_path.parent().unwrap_or(std::path::Path::new("/")),
                );
                lifecycle::failed_payload(t, plan_path, &agent.agent, &project, &error)
            });
        observer.noticed(Noticed::Ended {
            task: agent.task.clone(),
            agent: agent.agent.clone(),
            state,
            task_state: task.map(|t| t.state),
            failed,
        });
        false
    });
}

/// Why a provider that ended in `state` failed, if it did: a non-zero exit or a signal.
/// An exit the host did not record is not taken for a failure.
fn failure(state: &State) -> Option<String> {
    match state {
        State::Exited {
            code: Some(code), ..
        } if *code != 0 => Some(format!("the agent's provider exited with code {code}")),
        State::Exited {
            signal: Some(signal),
            ..
        } => Some(format!(
            "the agent's provider was killed by signal {signal}"
        )),
        _ => None,
    }
}

/// Reports the tasks that became blocked since the last round.
fn report_blocked<O: WatchObserver>(
    plan: &Plan,
    states: &mut HashMap<String, TaskState>,
    observer: &mut O,
) {
    for task in &plan.tasks {
        let before = states.insert(task.name.clone(), task.state);
        if task.state == TaskState::Blocked && before != Some(TaskState::Blocked) {
            observer.noticed(Noticed::Blocked {
                task: task.name.clone(),
                reason: task.block_reason.clone(),
            });
        }
    }
}

/// On a stop request (or a signal that interrupted a claim's hooks): the agents this
/// watch started that still run are stopped (`stop_on_exit`) or left running, and
/// reported either way.
fn finish<O: WatchObserver>(
    request: &PlanWatch,
    store: &AgentRecords,
    started: &[Started],
    observer: &mut O,
) {
    for agent in started {
        let row = store.agents().get(&agent.worktree).ok().flatten();
        if !row
            .as_ref()
            .is_some_and(|row| matches!(process::state(row), State::Running | State::Starting))
        {
            continue;
        }
        if !request.stop_on_exit {
            observer.noticed(Noticed::LeftRunning {
                task: agent.task.clone(),
                pid: agent.pid,
            });
            continue;
        }
        match process::stop(agent.pid, request.grace) {
            Ok(how) => {
                let _ = store.agents().set_stopped(&agent.worktree);
                observer.noticed(Noticed::StoppedAgent {
                    task: agent.task.clone(),
                    how,
                });
            }
            Err(err) => observer.warning(format!(
                "cannot stop the agent of task '{}' (process group {}): {err}",
                agent.task, agent.pid
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Map;

    use super::*;

    fn task(assigned: &[&str]) -> Task {
        Task {
            name: "api".to_owned(),
            meta: Map::new(),
            state: TaskState::Ready,
            block_type: None,
            assigned_to: assigned.iter().map(|a| (*a).to_owned()).collect(),
            depends_on: Vec::new(),
            claimed_by: None,
            block_reason: None,
        }
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|a| (*a).to_owned()).collect()
    }

    #[test]
    fn an_assigned_task_goes_to_its_agent_an_unassigned_one_to_the_least_busy() {
        let busy = HashMap::from([("a".to_owned(), 2), ("b".to_owned(), 1)]);
        // Assigned: its agent, with or without --agents naming it.
        assert_eq!(agent_for(&task(&["x"]), &[], &busy).as_deref(), Some("x"));
        assert_eq!(
            agent_for(&task(&["x", "b"]), &names(&["a", "b"]), &busy).as_deref(),
            Some("b")
        );
        assert_eq!(agent_for(&task(&["x"]), &names(&["a"]), &busy), None);
        // Unassigned: only with --agents, to the one running the fewest.
        assert_eq!(agent_for(&task(&[]), &[], &busy), None);
        assert_eq!(
            agent_for(&task(&[]), &names(&["a", "b", "c"]), &busy).as_deref(),
            Some("c")
        );
        assert_eq!(
            agent_for(&task(&[]), &names(&["a", "b"]), &busy).as_deref(),
            Some("b")
        );
    }

    /// Records what the watch notices.
    #[derive(Default)]
    struct Seen(Vec<String>);

    impl SpawnObserver for Seen {
        type Stop = ();
        fn warning(&mut self, warning: String) {
            self.0.push(warning);
        }
        fn claimed(
            &mut self,
            _: &hookrig_plan::lifecycle::Outcome,
            _: &std::path::Path,
            _: &str,
        ) -> std::ops::ControlFlow<()> {
            std::ops::ControlFlow::Continue(())
        }
    }

    impl WatchObserver for Seen {
        fn noticed(&mut self, noticed: Noticed) {
            if let Noticed::Blocked { task, reason } = noticed {
                self.0.push(format!("{task}: {reason:?}"));
            }
        }
    }

    fn plan(text: &str) -> Plan {
        let statements =
            hookrig_plan::spl::parse(std::path::Path::new("plan.spl"), text).expect("SPL");
        Plan::new(&statements)
    }

    #[test]
    fn a_task_is_reported_when_it_becomes_blocked_not_when_it_was_already() {
        let before = "(given task-a)\n(given ready-a)\n(given task-b)\n(given blocked-b)\n";
        let mut states = task_states(&plan(before));
        let mut seen = Seen::default();
        report_blocked(&plan(before), &mut states, &mut seen);
        assert!(seen.0.is_empty(), "{:?}", seen.0);
        let after = format!("{before}(given blocked-a)\n");
        report_blocked(&plan(&after), &mut states, &mut seen);
        report_blocked(&plan(&after), &mut states, &mut seen);
        assert_eq!(seen.0, ["a: None"]);
    }

    #[test]
    fn only_a_nonzero_exit_or_a_signal_fails_a_task() {
        let exited = |code, signal| State::Exited { code, signal };
        assert_eq!(failure(&exited(Some(0), None)), None);
        assert_eq!(failure(&exited(None, None)), None);
        assert_eq!(
            failure(&exited(Some(3), None)).as_deref(),
            Some("the agent's provider exited with code 3")
        );
        assert_eq!(
            failure(&exited(None, Some(9))).as_deref(),
            Some("the agent's provider was killed by signal 9")
        );
    }
}
