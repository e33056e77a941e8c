//! The plan lifecycle: performs an [`Action`] on a plan file and says which lifecycle
//! events it produced.
//!
//! One action takes the file's exclusive lock (waiting up to [`LOCK_WAIT`]), reads
//! and reasons about the plan as it is under the lock, decides with
//! [`Plan::prepare`] (refusal, no-op or the statement to append), appends that
//! statement and waits until it is on disk, then releases the lock. The caller gets an
//! [`Outcome`]: the task's state before and after, what was appended, and the
//! [`Event`]s to deliver to hooks, in order. Delivering them is the caller's business
//! (this crate runs no hooks), and happens after the lock is released, so that hooks
//! may read the plan or act on it themselves.

use std::fs::File;
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::errors::LifecycleError;
use crate::plan::{Action, Plan, Prepared, TaskState};
use crate::spl::{self, Statement};

/// How long an action waits for another process's lock on the plan file. Actions hold
/// the lock for milliseconds; a lock held this long belongs to a stuck process, and
/// waiting for ever would hang the agent that asked.
pub const LOCK_WAIT: Duration = Duration::from_secs(30);

/// A plan file read and parsed.
#[derive(Debug)]
pub struct Loaded {
    /// Its text.
    pub text: String,
    /// Its statements.
    pub statements: Vec<Statement>,
    /// The plan they make.
    pub plan: Plan,
}

/// Reads and parses the plan at `path` without the lock: for commands that only read
/// it. An append is atomic enough for them, since the appender writes whole statements
/// with one `write` under its lock.
///
/// # Errors
///
/// The file cannot be read, or is not valid SPL.
pub fn read(path: &Path) -> Result<Loaded, LifecycleError> {
    let text = std::fs::read_to_string(path).map_err(|source| LifecycleError::Io {
        action: "read",
        path: path.to_owned(),
        source,
    })?;
    parse(path, text)
}

fn parse(path: &Path, text: String) -> Result<Loaded, LifecycleError> {
    let statements = spl::parse(path, &text)?;
    let plan = Plan::new(&statements);
    Ok(Loaded {
        text,
        statements,
        plan,
    })
}

/// The plan file opened for appending, under an exclusive `flock`, released when
/// dropped (and by the kernel if the process dies).
///
/// The lock is on the plan file itself rather than a lock file beside it: nothing is
/// left behind, and Hence or any tool that flocks the plan agrees on it. A program
/// that replaces the file (write to a temporary file, rename) escapes the lock; the
/// lifecycle only ever appends.
#[derive(Debug)]
pub struct PlanLock {
    file: Flock<File>,
    path: PathBuf,
}

impl PlanLock {
    /// Opens `path` and waits (up to [`LOCK_WAIT`]) for its exclusive lock.
    ///
    /// # Errors
    ///
    /// The file cannot be opened or locked, or another process held the lock for the
    /// whole wait.
    pub fn open(path: &Path) -> Result<Self, LifecycleError> {
        Self::open_waiting(path, LOCK_WAIT)
    }

    /// Opens `path` and waits up to `wait` for its exclusive lock.
    pub(crate) fn open_waiting(path: &Path, wait: Duration) -> Result<Self, LifecycleError> {
        let io = |action, source| LifecycleError::Io {
            action,
            path: path.to_owned(),
            source,
        };
        // Append mode: every write lands at the end whatever the offset, and reads
        // start at the beginning.
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .append(true)
            .open(path)
            .map_err(|e| io("open", e))?;
        let deadline = Instant::now() + wait;
        let mut pause = Duration::from_millis(1);
        let file = loop {
            match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
                Ok(locked) => break locked,
                Err((back, Errno::EWOULDBLOCK | Errno::EINTR)) => {
                    if Instant::now() >= deadline {
                        return Err(LifecycleError::Locked {
                            path: path.to_owned(),
                            waited: wait,
                        });
                    }
                    file = back;
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(50));
                }
                Err((_, errno)) => return Err(io("lock", errno.into())),
            }
        };
        Ok(Self {
            file,
            path: path.to_owned(),
        })
    }

    /// Reads and parses the file as it is now, under the lock.
    ///
    /// # Errors
    ///
    /// The file cannot be read, or is not valid SPL.
    pub fn read(&mut self) -> Result<Loaded, LifecycleError> {
        let mut text = String::new();
        self.file
            .read_to_string(&mut text)
            .map_err(|source| LifecycleError::Io {
                action: "read",
                path: self.path.clone(),
                source,
            })?;
        parse(&self.path, text)
    }

    /// Appends `text` and waits until it is on disk, so that the next process to take
    /// the lock reads it, and a crash right after the action reported success does not
    /// lose it.
    ///
    /// # Errors
    ///
    /// The file cannot be written or synced.
    pub fn append(&mut self, text: &str) -> Result<(), LifecycleError> {
        self.file
            .write_all(text.as_bytes())
            .and_then(|()| self.file.sync_all())
            .map_err(|source| LifecycleError::Io {
                action: "write",
                path: self.path.clone(),
                source,
            })
    }
}

/// A lifecycle event, by its canonical name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LifecycleEvent {
    /// `task.claimed`, after [`Action::Claim`].
    TaskClaimed,
    /// `task.completed`, after [`Action::Complete`].
    TaskCompleted,
    /// `task.blocked`, after [`Action::Block`].
    TaskBlocked,
    /// `task.unblocked`, after [`Action::Unblock`].
    TaskUnblocked,
    /// `plan.asserted`, after [`Action::Assert`].
    PlanAsserted,
    /// `plan.completed`, after the action that made every task done.
    PlanCompleted,
}

impl LifecycleEvent {
    /// The canonical event name, e.g. `task.claimed`.
    pub fn name(self) -> &'static str {
        match self {
            LifecycleEvent::TaskClaimed => "task.claimed",
            LifecycleEvent::TaskCompleted => "task.completed",
            LifecycleEvent::TaskBlocked => "task.blocked",
            LifecycleEvent::TaskUnblocked => "task.unblocked",
            LifecycleEvent::PlanAsserted => "plan.asserted",
            LifecycleEvent::PlanCompleted => "plan.completed",
        }
    }

    /// The event an action that changed the plan produces first; `None` for
    /// [`Action::Unclaim`], for which neither Hence nor the catalog has a hook point.
    pub fn of(action: &Action) -> Option<Self> {
        match action {
            Action::Claim { .. } => Some(LifecycleEvent::TaskClaimed),
            Action::Complete { .. } => Some(LifecycleEvent::TaskCompleted),
            Action::Block { .. } => Some(LifecycleEvent::TaskBlocked),
            Action::Unblock { .. } => Some(LifecycleEvent::TaskUnblocked),
            Action::Unclaim { .. } => None,
            Action::Assert { .. } => Some(LifecycleEvent::PlanAsserted),
        }
    }
}

/// What a lifecycle event carries to hooks, in this order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EventPayload {
    /// The plan file, as the caller named it.
    pub plan: String,
    /// The task's declared name (without `task-`); absent for `plan.asserted`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// The asserted SPL, for `plan.asserted` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expression: Option<String>,
    /// The reason given to `task block`, when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The agent acting, as given.
    pub agent: String,
}

impl EventPayload {
    /// The payload as a JSON object, fields in order.
    pub fn to_map(&self) -> Map<String, Value> {
        match serde_json::to_value(self) {
            Ok(Value::Object(map)) => map,
            _ => unreachable!("a struct of strings serializes to an object"),
        }
    }
}

/// One lifecycle event to deliver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// Which.
    pub kind: LifecycleEvent,
    /// What it carries.
    pub payload: EventPayload,
}

/// What an action did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The action performed.
    pub action: Action,
    /// The task's declared name (without `task-`); `None` for [`Action::Assert`].
    pub task: Option<String>,
    /// The agent acting, without `agent:`.
    pub agent: String,
    /// The task's state before the action; `None` for [`Action::Assert`].
    pub state_before: Option<TaskState>,
    /// The task's state after the action; `None` for [`Action::Assert`].
    pub state_after: Option<TaskState>,
    /// The text appended to the plan file; `None` for a no-op.
    pub appended: Option<String>,
    /// The lifecycle events the action produced, in the order to deliver them: the
    /// action's own, then [`LifecycleEvent::PlanCompleted`] when it completed the
    /// plan's last task. Empty for a no-op.
    pub events: Vec<Event>,
}

impl Outcome {
    /// Whether the task already was where the action would take it (nothing appended,
    /// no events).
    pub fn is_noop(&self) -> bool {
        self.appended.is_none()
    }
}

/// One action to perform on a plan file.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The plan file to lock, read and append to, as the user named it: errors name it
    /// so.
    pub plan: &'a Path,
    /// How the events name the plan (their `plan` field); callers pass an absolute,
    /// normalised path, so that hooks find the file whatever their directory.
    pub plan_in_events: &'a Path,
    /// What to do.
    pub action: &'a Action,
    /// The agent acting (`coder` or `agent:coder`).
    pub agent: &'a str,
}

/// Performs `request`, stamped with the current time: under the plan file's lock,
/// reads it, decides, appends.
///
/// # Errors
///
/// The file cannot be opened, locked (within [`LOCK_WAIT`]), read or written; it (or
/// the SPL of an assert) is not valid SPL; the task is unknown; the agent name is
/// invalid; or the action is refused in the task's state. Nothing is appended then.
pub fn apply(request: &Request<'_>) -> Result<Outcome, LifecycleError> {
    let at = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
    apply_at(request, &at, LOCK_WAIT)
}

/// [`apply`], stamped `at` (RFC 3339), waiting up to `wait` for the lock.
pub(crate) fn apply_at(
    request: &Request<'_>,
    at: &str,
    wait: Duration,
) -> Result<Outcome, LifecycleError> {
    let &Request {
        plan,
        plan_in_events,
        action,
        agent,
    } = request;
    let mut locked = PlanLock::open_waiting(plan, wait)?;
    let loaded = locked.read()?;
    let was_complete = loaded.plan.is_complete();
    let prepared = loaded.plan.prepare(action, agent, at)?;
    let found = action.task().map(|task| {
        loaded
            .plan
            .task(task)
            .expect("prepare checked that the task exists")
    });
    let task = found.map(|t| t.name.clone());
    let state_before = found.map(|t| t.state);
    let mut outcome = Outcome {
        action: action.clone(),
        task,
        agent: agent.strip_prefix("agent:").unwrap_or(agent).to_owned(),
        state_before,
        state_after: state_before,
        appended: None,
        events: Vec::new(),
    };
    let Prepared::Append(statement) = prepared else {
        return Ok(outcome);
    };
    let text = spl::append(&loaded.text, std::slice::from_ref(&statement));
    locked.append(&text)?;
    drop(locked);

    let mut statements = loaded.statements;
    statements.push(statement);
    let after = Plan::new(&statements);
    outcome.appended = Some(text);
    outcome.state_after = outcome
        .task
        .as_deref()
        .and_then(|t| after.task(t))
        .map(|t| t.state);
    outcome.events = events(
        action,
        outcome.task.as_deref(),
        plan_in_events,
        agent,
        !was_complete && after.is_complete(),
    );
    Ok(outcome)
}

/// The events an action that changed the plan produces: its own (`task.claimed`, …,
/// `plan.asserted`), then `plan.completed` when it completed the plan's last task.
fn events(
    action: &Action,
    task: Option<&str>,
    plan: &Path,
    agent: &str,
    completed_now: bool,
) -> Vec<Event> {
    let plan = plan.display().to_string();
    let mut events = Vec::new();
    if let Some(kind) = LifecycleEvent::of(action) {
        let (expression, reason) = match action {
            Action::Assert { spl } => (Some(spl.clone()), None),
            Action::Block { reason, .. } => (None, reason.clone()),
            _ => (None, None),
        };
        events.push(Event {
            kind,
            payload: EventPayload {
                plan: plan.clone(),
                task: task.map(str::to_owned),
                expression,
                reason,
                agent: agent.to_owned(),
            },
        });
    }
    if completed_now {
        events.push(Event {
            kind: LifecycleEvent::PlanCompleted,
            payload: EventPayload {
                plan,
                task: task.map(str::to_owned),
                expression: None,
                reason: None,
                agent: agent.to_owned(),
            },
        });
    }
    events
}
