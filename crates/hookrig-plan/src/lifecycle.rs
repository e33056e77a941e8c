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

use std::fmt;
use std::fs::File;
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::errors::LifecycleError;
use crate::plan::{Action, Plan, Prepared, Task, TaskState};
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
    /// `task.failed`: never produced by an action (the plan has no failed state); a
    /// caller that notices a failure delivers it with [`failed_payload`].
    TaskFailed,
    /// `plan.asserted`, after [`Action::Assert`].
    PlanAsserted,
    /// `plan.completed`, after the action that made every task done.
    PlanCompleted,
}

impl LifecycleEvent {
    /// Every lifecycle event.
    pub const ALL: [LifecycleEvent; 7] = [
        LifecycleEvent::TaskClaimed,
        LifecycleEvent::TaskCompleted,
        LifecycleEvent::TaskBlocked,
        LifecycleEvent::TaskUnblocked,
        LifecycleEvent::TaskFailed,
        LifecycleEvent::PlanAsserted,
        LifecycleEvent::PlanCompleted,
    ];

    /// The canonical event name, e.g. `task.claimed`.
    pub fn name(self) -> &'static str {
        match self {
            LifecycleEvent::TaskClaimed => "task.claimed",
            LifecycleEvent::TaskCompleted => "task.completed",
            LifecycleEvent::TaskBlocked => "task.blocked",
            LifecycleEvent::TaskUnblocked => "task.unblocked",
            LifecycleEvent::TaskFailed => "task.failed",
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

/// What a lifecycle event carries to hooks, in this order: hookrig's own fields, then
/// the orchestrator's (`task_id`, `project_id`, `title`, `status`, `error`), so that
/// automations written for the orchestrator (`{{event.task_id}}`) read hookrig's task
/// events unchanged.
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
    /// The orchestrator's name for the task: its declared name, as `task`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// The project the plan belongs to (see [`Request::project_id`]).
    pub project_id: String,
    /// The task's `title` meta, else its `description`, else its name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The task's state after the action (`done`, `in_progress`, `blocked`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// What went wrong, for `task.failed` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
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

/// What `hookrig task ...` prints: one line saying what the action did (or that the
/// task already was there), and a second when it completed the plan.
impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = |s: Option<TaskState>| s.map_or("?", TaskState::as_str);
        let action = &self.action;
        match (&self.task, action) {
            (Some(task), _) if self.is_noop() => writeln!(
                f,
                "{task} is already {}: nothing to {}",
                state(self.state_before),
                action.verb()
            )?,
            (Some(task), _) => writeln!(
                f,
                "{} {task}: {} → {}",
                action.past(),
                state(self.state_before),
                state(self.state_after)
            )?,
            (None, Action::Assert { spl }) => writeln!(f, "asserted {}", spl.trim())?,
            (None, _) => {}
        }
        if self
            .events
            .iter()
            .any(|e| e.kind == LifecycleEvent::PlanCompleted)
        {
            f.write_str("every task of the plan is done\n")?;
        }
        Ok(())
    }
}

/// What `hookrig task ... --json` prints: the action by its verb, the task, the asserted
/// SPL (for `assert` only), the agent, the states, whether it was a no-op, the text
/// appended and the names of the events emitted.
impl Serialize for Outcome {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Report<'a> {
            action: &'static str,
            task: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            expression: Option<&'a str>,
            agent: &'a str,
            state_before: Option<TaskState>,
            state_after: Option<TaskState>,
            noop: bool,
            appended: Option<&'a str>,
            events: Vec<&'static str>,
        }
        Report {
            action: self.action.verb(),
            task: self.task.as_deref(),
            expression: match &self.action {
                Action::Assert { spl } => Some(spl),
                _ => None,
            },
            agent: &self.agent,
            state_before: self.state_before,
            state_after: self.state_after,
            noop: self.is_noop(),
            appended: self.appended.as_deref(),
            events: self.events.iter().map(|e| e.kind.name()).collect(),
        }
        .serialize(serializer)
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
    /// The project the plan belongs to, as the events name it (`project_id`): callers
    /// pass `hookrig_config::project_id` of the plan's directory, the id automations of
    /// that project get, so that the orchestrator's project scoping matches them.
    pub project_id: &'a str,
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
        project_id,
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
        outcome.task.as_deref().and_then(|t| after.task(t)),
        &Origin {
            plan: plan_in_events,
            agent,
            project_id,
        },
        !was_complete && after.is_complete(),
    );
    Ok(outcome)
}

/// Where the events of an action come from: the plan as they name it, the agent, the
/// project.
struct Origin<'a> {
    plan: &'a Path,
    agent: &'a str,
    project_id: &'a str,
}

impl Origin<'_> {
    /// A payload of this origin about `task` (as it is after the action), fields of
    /// one event kind left empty.
    fn payload(&self, task: Option<&Task>) -> EventPayload {
        EventPayload {
            plan: self.plan.display().to_string(),
            task: task.map(|t| t.name.clone()),
            expression: None,
            reason: None,
            agent: self.agent.to_owned(),
            task_id: task.map(|t| t.name.clone()),
            project_id: self.project_id.to_owned(),
            title: task.map(title),
            status: task.map(|t| t.state.as_str().to_owned()),
            error: None,
        }
    }
}

/// A task's title for the orchestrator's `title`: its `title` meta, else its
/// `description`, else its name.
fn title(task: &Task) -> String {
    ["title", "description"]
        .iter()
        .find_map(|key| task.meta.get(*key).and_then(Value::as_str))
        .map_or_else(|| task.name.clone(), str::to_owned)
}

/// The events an action that changed the plan produces: its own (`task.claimed`, …,
/// `plan.asserted`), then `plan.completed` when it completed the plan's last task.
fn events(
    action: &Action,
    task: Option<&Task>,
    origin: &Origin<'_>,
    completed_now: bool,
) -> Vec<Event> {
    let mut events = Vec::new();
    if let Some(kind) = LifecycleEvent::of(action) {
        let mut payload = origin.payload(task);
        match action {
            Action::Assert { spl } => payload.expression = Some(spl.clone()),
            Action::Block { reason, .. } => payload.reason.clone_from(reason),
            _ => {}
        }
        events.push(Event { kind, payload });
    }
    if completed_now {
        events.push(Event {
            kind: LifecycleEvent::PlanCompleted,
            payload: origin.payload(task),
        });
    }
    events
}

/// The payload of `task.failed` for `task` of the plan at `plan` (named as events name
/// it), which `agent` was working on when `error` happened: the orchestrator's fields
/// with hookrig's. The lifecycle itself never fails a task: this is for the callers
/// that notice a failure (an agent's provider that ended without completing its task).
pub fn failed_payload(
    task: &Task,
    plan: &Path,
    agent: &str,
    project_id: &str,
    error: &str,
) -> EventPayload {
    let mut payload = Origin {
        plan,
        agent,
        project_id,
    }
    .payload(Some(task));
    payload.error = Some(error.to_owned());
    payload
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Barrier};

    use indoc::indoc;
    use tempfile::TempDir;

    use super::*;
    use crate::ActionError;

    /// design (ready), api after design (backlog), legal (ready).
    const PLAN: &str = indoc! {"
        (given task-design)
        (given task-api)
        (given task-legal)
        (normally r-ready-design task-design ready-design)
        (normally r-ready-api (and task-api completed-design) ready-api)
        (normally r-ready-legal task-legal ready-legal)
    "};

    const AT: &str = "2026-01-02T03:04:05Z";

    /// A plan file with `text` in a fresh directory.
    fn plan_file(text: &str) -> (TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("plan.spl");
        std::fs::write(&path, text).expect("write plan");
        (dir, path)
    }

    fn act(path: &Path, action: &Action, agent: &str) -> Result<Outcome, LifecycleError> {
        apply_at(
            &Request {
                plan: path,
                plan_in_events: Path::new("/abs/plan.spl"),
                action,
                agent,
                project_id: "shop",
            },
            AT,
            LOCK_WAIT,
        )
    }

    fn claim(task: &str) -> Action {
        Action::Claim {
            task: task.to_owned(),
            force: false,
        }
    }

    fn text(path: &Path) -> String {
        std::fs::read_to_string(path).expect("read plan")
    }

    fn kinds(outcome: &Outcome) -> Vec<&'static str> {
        outcome.events.iter().map(|e| e.kind.name()).collect()
    }

    #[test]
    fn a_claim_appends_its_statement_and_produces_task_claimed() {
        let (_dir, path) = plan_file(PLAN);
        let outcome = act(&path, &claim("task-design"), "agent:coder").expect("claim");
        assert_eq!(outcome.task.as_deref(), Some("design"));
        assert_eq!(outcome.agent, "coder");
        assert_eq!(
            (outcome.state_before, outcome.state_after),
            (Some(TaskState::Ready), Some(TaskState::InProgress))
        );
        let appended = outcome.appended.as_deref().expect("appended");
        assert_eq!(text(&path), format!("{PLAN}{appended}"));
        assert!(appended.contains("claimed-design"), "{appended}");
        assert!(appended.contains(AT), "{appended}");
        // What was appended is what the next reader sees.
        let again = read(&path).expect("read");
        assert_eq!(
            again.plan.task("design").map(|t| t.state),
            Some(TaskState::InProgress)
        );
        assert_eq!(kinds(&outcome), ["task.claimed"]);
        assert_eq!(
            serde_json::to_string(&outcome.events[0].payload.to_map()).expect("json"),
            r#"{"plan":"/abs/plan.spl","task":"design","agent":"agent:coder","task_id":"design","project_id":"shop","title":"design","status":"in_progress"}"#
        );
    }

    #[test]
    fn a_repeated_action_is_a_noop_that_appends_nothing_and_produces_no_event() {
        let (_dir, path) = plan_file(PLAN);
        act(&path, &claim("design"), "coder").expect("claim");
        let before = text(&path);
        let outcome = act(&path, &claim("design"), "coder").expect("claim again");
        assert!(outcome.is_noop());
        assert_eq!(outcome.state_after, Some(TaskState::InProgress));
        assert!(outcome.events.is_empty());
        let unblock = Action::Unblock {
            task: "legal".to_owned(),
        };
        assert!(act(&path, &unblock, "coder").expect("unblock").is_noop());
        assert_eq!(text(&path), before);
    }

    #[test]
    fn refused_actions_append_nothing() {
        let (_dir, path) = plan_file(PLAN);
        act(&path, &claim("design"), "coder").expect("claim");
        let before = text(&path);
        let refused = |action: &Action, agent: &str| match act(&path, action, agent) {
            Err(LifecycleError::Action(err)) => err,
            other => panic!("{action:?} was not refused: {other:?}"),
        };
        // Another agent's claim on a held task.
        assert!(matches!(
            refused(&claim("design"), "writer"),
            ActionError::Held { holder: Some(ref h), .. } if h == "coder"
        ));
        // A task that is not ready, without force.
        assert!(matches!(
            refused(&claim("api"), "coder"),
            ActionError::NeedsForce { .. }
        ));
        assert!(matches!(
            refused(&claim("nope"), "coder"),
            ActionError::UnknownTask { .. }
        ));
        assert!(matches!(
            refused(&claim("legal"), "not a name"),
            ActionError::InvalidAgent(_)
        ));
        let complete = Action::Complete {
            task: "legal".to_owned(),
        };
        act(&path, &complete, "coder").expect("complete");
        let before_done = text(&path);
        assert_ne!(before, before_done);
        let err = refused(&claim("legal"), "coder");
        assert_eq!(err.to_string(), "cannot claim task 'legal': it is done");
        assert_eq!(text(&path), before_done);
    }

    #[test]
    fn force_claims_a_task_that_is_not_ready() {
        let (_dir, path) = plan_file(PLAN);
        let action = Action::Claim {
            task: "api".to_owned(),
            force: true,
        };
        let outcome = act(&path, &action, "coder").expect("forced claim");
        assert_eq!(
            (outcome.state_before, outcome.state_after),
            (Some(TaskState::Backlog), Some(TaskState::InProgress))
        );
    }

    #[test]
    fn completing_the_last_task_also_produces_plan_completed() {
        let (_dir, path) = plan_file("(given task-only)\n");
        let complete = Action::Complete {
            task: "only".to_owned(),
        };
        let outcome = act(&path, &complete, "coder").expect("complete");
        assert_eq!(kinds(&outcome), ["task.completed", "plan.completed"]);
        assert_eq!(outcome.events[1].payload.task.as_deref(), Some("only"));
    }

    #[test]
    fn task_events_carry_the_hook_engines_fields_beside_hookrigs() {
        // guards: `{{event.task_id}}`, `{{event.title}}` of the orchestrator's automations
        let (_dir, path) = plan_file(indoc! {r#"
            (given task-api)
            (meta task-api (title "Login endpoint") (description "Add it"))
            (given task-docs)
            (meta task-docs (description "Write the docs"))
        "#});
        let complete = Action::Complete {
            task: "api".to_owned(),
        };
        let outcome = act(&path, &complete, "coder").expect("complete");
        assert_eq!(kinds(&outcome), ["task.completed"]);
        insta::assert_json_snapshot!(outcome.events[0].payload, @r#"
        {
          "plan": "/abs/plan.spl",
          "task": "api",
          "agent": "coder",
          "task_id": "api",
          "project_id": "shop",
          "title": "Login endpoint",
          "status": "done"
        }
        "#);
        // Without a title, the description; the failure of a task carries its error.
        let loaded = read(&path).expect("read");
        let docs = loaded.plan.task("docs").expect("docs");
        let failed = failed_payload(docs, Path::new("/abs/plan.spl"), "coder", "shop", "exit 2");
        insta::assert_json_snapshot!(failed, @r#"
        {
          "plan": "/abs/plan.spl",
          "task": "docs",
          "agent": "coder",
          "task_id": "docs",
          "project_id": "shop",
          "title": "Write the docs",
          "status": "backlog",
          "error": "exit 2"
        }
        "#);
    }

    #[test]
    fn block_carries_its_reason_and_assert_its_expression() {
        let (_dir, path) = plan_file(PLAN);
        let block = Action::Block {
            task: "legal".to_owned(),
            reason: Some("waiting for counsel".to_owned()),
        };
        let outcome = act(&path, &block, "coder").expect("block");
        assert_eq!(outcome.state_after, Some(TaskState::Blocked));
        assert_eq!(
            serde_json::to_string(&outcome.events[0].payload.to_map()).expect("json"),
            r#"{"plan":"/abs/plan.spl","task":"legal","reason":"waiting for counsel","agent":"coder","task_id":"legal","project_id":"shop","title":"legal","status":"blocked"}"#
        );
        let assert = Action::Assert {
            spl: "(given failed-api)".to_owned(),
        };
        let outcome = act(&path, &assert, "coder").expect("assert");
        assert_eq!(
            (outcome.task.as_deref(), outcome.state_before),
            (None, None)
        );
        assert!(text(&path).contains("failed-api"));
        assert_eq!(kinds(&outcome), ["plan.asserted"]);
        assert_eq!(
            serde_json::to_string(&outcome.events[0].payload.to_map()).expect("json"),
            r#"{"plan":"/abs/plan.spl","expression":"(given failed-api)","agent":"coder","project_id":"shop"}"#
        );
    }

    #[test]
    fn bad_spl_is_an_error_at_its_place_and_appends_nothing() {
        let (_dir, path) = plan_file(PLAN);
        let assert = Action::Assert {
            spl: "(given".to_owned(),
        };
        let err = act(&path, &assert, "coder").expect_err("bad SPL");
        assert!(matches!(err, LifecycleError::Spl(_)), "{err:?}");
        assert!(err.to_string().starts_with("<assert>:1:"), "{err}");
        assert_eq!(text(&path), PLAN);

        let (_dir, broken) = plan_file("(given task-a)\n(given\n");
        let err = act(&broken, &claim("a"), "coder").expect_err("broken plan");
        assert!(
            err.to_string()
                .starts_with(&format!("{}:2:", broken.display())),
            "{err}"
        );
    }

    #[test]
    fn a_missing_plan_file_is_an_io_error_naming_it() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("missing.spl");
        let err = act(&path, &claim("a"), "coder").expect_err("missing");
        assert_eq!(err.to_string(), format!("cannot open {}", path.display()));
    }

    #[test]
    fn a_lock_held_for_the_whole_wait_is_a_clear_error_not_a_hang() {
        // guards: an action waits a bounded time for a stuck lock holder, then says so
        let (_dir, path) = plan_file(PLAN);
        let _held = PlanLock::open(&path).expect("lock");
        let request = Request {
            plan: &path,
            plan_in_events: &path,
            action: &claim("design"),
            agent: "coder",
            project_id: "shop",
        };
        let err = apply_at(&request, AT, Duration::from_millis(200)).expect_err("locked");
        assert!(matches!(err, LifecycleError::Locked { .. }), "{err:?}");
        assert!(
            err.to_string().contains("is locked by another process"),
            "{err}"
        );
        assert_eq!(text(&path), PLAN);
    }

    #[test]
    fn an_action_waits_for_the_lock_and_rereads_what_the_holder_appended() {
        // guards: the plan is read under the lock, so a waiter decides on the holder's
        // append rather than on what it saw before waiting
        let (_dir, path) = plan_file(PLAN);
        let mut held = PlanLock::open(&path).expect("lock");
        let waiter = {
            let path = path.clone();
            std::thread::spawn(move || act(&path, &claim("design"), "writer"))
        };
        // The holder claims by hand while the waiter waits.
        let loaded = held.read().expect("read");
        let Prepared::Append(statement) = loaded
            .plan
            .prepare(&claim("design"), "coder", AT)
            .expect("prepare")
        else {
            panic!("a ready task's claim appends");
        };
        held.append(&spl::append(&loaded.text, &[statement]))
            .expect("append");
        drop(held);
        let err = waiter.join().expect("waiter").expect_err("held by coder");
        assert!(
            matches!(err, LifecycleError::Action(ActionError::Held { .. })),
            "{err:?}"
        );
    }

    #[test]
    fn concurrent_claims_of_one_task_by_many_agents_let_exactly_one_win() {
        // guards: two agents must never both claim one task
        let (_dir, path) = plan_file(PLAN);
        let agents = 8;
        let start = Arc::new(Barrier::new(agents));
        let handles: Vec<_> = (0..agents)
            .map(|i| {
                let path = path.clone();
                let start = Arc::clone(&start);
                std::thread::spawn(move || {
                    start.wait();
                    act(&path, &claim("design"), &format!("agent-{i}"))
                })
            })
            .collect();
        let results: Vec<_> = handles
            .into_iter()
            .map(|h| h.join().expect("thread"))
            .collect();
        let won = results.iter().filter(|r| r.is_ok()).count();
        assert_eq!(won, 1, "{results:?}");
        assert!(results.iter().all(|r| matches!(
            r,
            Ok(_) | Err(LifecycleError::Action(ActionError::Held { .. }))
        )));
        assert_eq!(text(&path).matches("(given claim-v").count(), 1);
    }
}
