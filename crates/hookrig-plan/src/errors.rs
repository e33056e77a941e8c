//! Errors of hookrig-plan.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hookrig_core::line_col;
use thiserror::Error;

/// A place in an SPL file that cannot be read: `path:line:col: message`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub struct SplError {
    /// The file.
    pub path: PathBuf,
    /// Byte offset of the problem in the text, for callers that build their own
    /// diagnostics (`hookrig_core::Diagnostic::at` takes byte offsets).
    pub offset: usize,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub col: usize,
    /// What is wrong, lowercase, no trailing period.
    pub message: String,
}

impl SplError {
    pub(crate) fn new(path: &Path, text: &str, offset: usize, message: String) -> Self {
        let (line, col) = line_col(text, offset);
        Self {
            path: path.to_owned(),
            offset,
            line,
            col,
            message,
        }
    }
}

impl fmt::Display for SplError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.path.display(),
            self.line,
            self.col,
            self.message
        )
    }
}

/// Why a task action cannot be prepared.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ActionError {
    /// The task is not declared with `(given task-NAME)`.
    #[error("unknown task '{task}'; declared tasks: {}", list(declared))]
    UnknownTask {
        /// The name asked for.
        task: String,
        /// Every declared task, in file order.
        declared: Vec<String>,
    },
    /// The action is not allowed in the task's current state.
    #[error("cannot {action} task '{task}': {reason}")]
    Refused {
        /// `claim`, `unclaim`, ….
        action: &'static str,
        /// The task.
        task: String,
        /// Why, lowercase.
        reason: String,
    },
    /// The action is allowed only with `--force`.
    #[error("cannot {action} task '{task}': {reason} (use --force to {action} it anyway)")]
    NeedsForce {
        /// `claim`, ….
        action: &'static str,
        /// The task.
        task: String,
        /// Why, lowercase.
        reason: String,
    },
    /// Claiming a task another agent holds (it is in progress under their claim).
    #[error("cannot claim task '{task}': {}; `hookrig task unclaim {task}` releases it", held(holder.as_deref()))]
    Held {
        /// The task.
        task: String,
        /// The agent of the latest claim, `None` when the task was claimed outside a
        /// `claims` block.
        holder: Option<String>,
    },
    /// The agent name cannot be written in a `claims` block.
    #[error("invalid agent name '{0}': use letters, digits, '-', '_', '.' or ':'")]
    InvalidAgent(String),
    /// The SPL given to `task assert` cannot be read.
    #[error(transparent)]
    Spl(#[from] SplError),
}

/// Why [`crate::lifecycle`] cannot read or change a plan file.
#[derive(Debug, Error)]
pub enum LifecycleError {
    /// The plan file cannot be opened, read, locked or written.
    #[error("cannot {action} {}", path.display())]
    Io {
        /// `open`, `read`, `lock` or `write`.
        action: &'static str,
        /// The plan file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Another process held the plan file's lock for the whole wait.
    #[error(
        "{} is locked by another process (waited {}s); try again once it has finished",
        path.display(),
        waited.as_secs()
    )]
    Locked {
        /// The plan file.
        path: PathBuf,
        /// How long the action waited.
        waited: Duration,
    },
    /// The plan (or the SPL of an assert) cannot be read.
    #[error(transparent)]
    Spl(#[from] SplError),
    /// The action is refused, or the task unknown.
    #[error("{0}")]
    Action(ActionError),
}

impl From<ActionError> for LifecycleError {
    fn from(err: ActionError) -> Self {
        match err {
            ActionError::Spl(err) => LifecycleError::Spl(err),
            other => LifecycleError::Action(other),
        }
    }
}

fn held(holder: Option<&str>) -> String {
    match holder {
        Some(agent) => format!("agent '{agent}' holds it (it is in progress)"),
        None => "it is in progress, claimed without a recorded agent".to_owned(),
    }
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "(none)".to_owned()
    } else {
        names.join(", ")
    }
}
