//! The board JSON: Hence's stable contract `{plan, tasks, conclusions, meta}` plus the
//! bucket keys `backlog ready in_progress decomposed blocked done` (task names), so
//! that formatters written for either shape (`.tasks[]`, `.backlog[]`) work.

use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::plan::{BlockType, Plan, TaskState};

/// The board of a plan, as `plan board --json` prints it and formatters read it.
#[derive(Debug, Clone, Serialize)]
pub struct Board {
    /// The plan file, as the user named it.
    pub plan: String,
    /// Every declared task, in file order.
    pub tasks: Vec<BoardTask>,
    /// Every +∂ conclusion, printed as SPL.
    pub conclusions: Vec<String>,
    /// `(meta plan …)`.
    pub meta: Map<String, Value>,
    /// Names of the tasks in each state.
    pub backlog: Vec<String>,
    /// Ready tasks.
    pub ready: Vec<String>,
    /// Claimed tasks.
    pub in_progress: Vec<String>,
    /// Decomposed tasks.
    pub decomposed: Vec<String>,
    /// Blocked tasks (by hand or upstream).
    pub blocked: Vec<String>,
    /// Completed tasks.
    pub done: Vec<String>,
}

/// One task on the board.
#[derive(Debug, Clone, Serialize)]
pub struct BoardTask {
    /// The name without `task-`.
    pub name: String,
    /// `backlog`, `ready`, `in_progress`, `decomposed`, `blocked` or `done`.
    pub state: TaskState,
    /// The agents it is assigned to.
    pub assigned_to: Vec<String>,
    /// Its `meta` properties.
    pub meta: Map<String, Value>,
    /// `blocked` or `upstream_blocked` when blocked, else null.
    pub block_type: Option<BlockType>,
}

impl Board {
    /// The board of `plan`, read from the file `path`.
    pub fn new(path: &str, plan: &Plan) -> Self {
        let mut board = Board {
            plan: path.to_owned(),
            tasks: Vec::with_capacity(plan.tasks.len()),
            conclusions: plan.conclusions.clone(),
            meta: plan.meta.clone(),
            backlog: Vec::new(),
            ready: Vec::new(),
            in_progress: Vec::new(),
            decomposed: Vec::new(),
            blocked: Vec::new(),
            done: Vec::new(),
        };
        for task in &plan.tasks {
            let bucket = match task.state {
                TaskState::Backlog => &mut board.backlog,
                TaskState::Ready => &mut board.ready,
                TaskState::InProgress => &mut board.in_progress,
                TaskState::Decomposed => &mut board.decomposed,
                TaskState::Blocked => &mut board.blocked,
                TaskState::Done => &mut board.done,
            };
            bucket.push(task.name.clone());
            board.tasks.push(BoardTask {
                name: task.name.clone(),
                state: task.state,
                assigned_to: task.assigned_to.clone(),
                meta: task.meta.clone(),
                block_type: task.block_type,
            });
        }
        board
    }

    /// What `agent` (`NAME` or `agent:NAME`) should take next: its assignments among
    /// ready tasks, or all its assignments when none is ready.
    pub fn next_for(self, agent: &str) -> Next {
        let agent = agent.strip_prefix("agent:").unwrap_or(agent);
        let assigned: Vec<BoardTask> = self
            .tasks
            .into_iter()
            .filter(|t| t.assigned_to.iter().any(|a| a == agent))
            .collect();
        let ready = assigned.iter().any(|t| t.state == TaskState::Ready);
        let tasks = if ready {
            assigned
                .into_iter()
                .filter(|t| t.state == TaskState::Ready)
                .collect()
        } else {
            assigned
        };
        Next {
            agent: agent.to_owned(),
            ready,
            tasks,
        }
    }
}

/// What an agent should take next, as `plan next --json` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct Next {
    /// The agent, without `agent:`.
    pub agent: String,
    /// True when `tasks` are the agent's ready assignments; false when none is ready and
    /// `tasks` are all its assignments.
    pub ready: bool,
    /// The tasks, in file order.
    pub tasks: Vec<BoardTask>,
}

/// What `hookrig plan next` prints: the agent's ready tasks (else all its assignments),
/// one a line with its state and description.
impl fmt::Display for Next {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let agent = &self.agent;
        if self.tasks.is_empty() {
            return writeln!(f, "no tasks are assigned to {agent}");
        }
        if self.ready {
            writeln!(f, "ready for {agent}:")?;
        } else {
            writeln!(
                f,
                "nothing assigned to {agent} is ready; all its assignments:"
            )?;
        }
        let width = self
            .tasks
            .iter()
            .map(|t| t.name.chars().count())
            .max()
            .unwrap_or(0);
        for task in &self.tasks {
            let description = task
                .meta
                .get("description")
                .and_then(|d| d.as_str())
                .unwrap_or_default();
            let line = format!(
                "  {:<width$}  {:<11}  {description}",
                task.name,
                task.state.as_str()
            );
            writeln!(f, "{}", line.trim_end())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use indoc::indoc;

    use super::*;
    use crate::spl;

    #[test]
    fn next_is_the_ready_assignments_else_every_assignment() {
        let text = indoc! {"
            (given task-a)
            (given task-b)
            (given task-c)
            (given (assign a coder))
            (given (assign b coder))
            (given (assign c writer))
            (normally r-ready-a task-a ready-a)
        "};
        let statements = spl::parse(Path::new("plan.spl"), text).expect("valid SPL");
        let board = || Board::new("plan.spl", &Plan::new(&statements));
        let next = board().next_for("agent:coder");
        assert_eq!(next.agent, "coder");
        assert!(next.ready);
        assert_eq!(
            next.tasks
                .iter()
                .map(|t| t.name.as_str())
                .collect::<Vec<_>>(),
            ["a"]
        );
        let next = board().next_for("writer");
        assert!(!next.ready);
        assert_eq!(
            next.tasks
                .iter()
                .map(|t| t.name.as_str())
                .collect::<Vec<_>>(),
            ["c"]
        );
        assert!(board().next_for("nobody").tasks.is_empty());
    }

    #[test]
    fn next_as_text_aligns_names_and_says_when_nothing_is_ready() {
        let text = indoc! {r#"
            (given task-api)
            (given task-documentation)
            (meta task-api (description "Build the API"))
            (given (assign api coder))
            (given (assign documentation coder))
            (normally r-ready-api task-api ready-api)
        "#};
        let statements = spl::parse(Path::new("plan.spl"), text).expect("valid SPL");
        let board = || Board::new("plan.spl", &Plan::new(&statements));
        assert_eq!(
            board().next_for("coder").to_string(),
            "ready for coder:\n  api  ready        Build the API\n"
        );
        assert_eq!(
            board().next_for("nobody").to_string(),
            "no tasks are assigned to nobody\n"
        );
    }

    #[test]
    fn board_json_snapshot() {
        let text = indoc! {r#"
            (meta plan (title "Shop") (status "active"))
            (given agent-coder-available)
            (given agent-writer-available)
            (given task-design)
            (meta task-design (description "Design the API") (acceptance "Reviewed"))
            (given task-api)
            (meta task-api (description "Build the API") (provider "claude") (estimate 3))
            (given task-ui)
            (given task-docs)
            (given task-legal)
            (given assign-api-coder)
            (given (assign docs writer))
            (normally r-ready-design task-design ready-design)
            (normally r-ready-api (and task-api completed-design) ready-api)
            (normally r-ready-ui (and task-ui completed-api) ready-ui)
            (normally r-ready-docs task-docs ready-docs)
            (given completed-design)
            (given failed-api)
            (claims agent:writer :at "2025-01-02T03:04:05Z"
              (given claim-v1-docs)
              (normally r-claim-v1-docs claim-v1-docs claimed-docs))
            (claims agent:coder :at "2025-01-02T03:04:05Z"
              (given block-v1-legal)
              (normally r-block-v1-legal block-v1-legal blocked-legal)
              (given (blocked-by legal "waiting for counsel")))
        "#};
        let statements = spl::parse(Path::new("plan.spl"), text).expect("valid SPL");
        let board = Board::new("plan.spl", &Plan::new(&statements));
        insta::assert_json_snapshot!(board);
    }
}
