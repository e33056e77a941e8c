//! Errors of hookrig-plan.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use thiserror::Error;

/// A place in an SPL file that cannot be read: `path:line:col: message`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub struct SplError {
    /// The file.
    pub path: PathBuf,
    /// Byte offset of the problem in the text, for callers that build their own
    /// diagnostics (hookrig-config's `Diagnostic::at` takes byte offsets).
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

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.bytes().filter(|b| *b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() + 1;
    (line, col)
}

/// Line and column of many offsets in one text, each in time independent of the text's
/// size: [`line_col`] scans from the start, which made a report of thousands of
/// findings quadratic.
pub(crate) struct LineIndex<'a> {
    text: &'a str,
    /// Byte offset, 1-based line and column of each line start, and of a point every
    /// [`LineIndex::STRIDE`] bytes within long lines.
    marks: Vec<(usize, usize, usize)>,
}

impl<'a> LineIndex<'a> {
    const STRIDE: usize = 4096;

    pub(crate) fn new(text: &'a str) -> Self {
        let mut marks = vec![(0, 1, 1)];
        let (mut line, mut col, mut last) = (1, 1, 0);
        for (i, c) in text.char_indices() {
            if i - last >= Self::STRIDE {
                marks.push((i, line, col));
                last = i;
            }
            if c == '\n' {
                line += 1;
                col = 1;
                last = i + 1;
                marks.push((last, line, col));
            } else {
                col += 1;
            }
        }
        Self { text, marks }
    }

    /// 1-based line and column (in characters) of byte `offset`, as [`line_col`].
    pub(crate) fn line_col(&self, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let at = self.marks.partition_point(|m| m.0 <= offset) - 1;
        let (start, line, col) = self.marks[at];
        (line, col + self.text[start..offset].chars().count())
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
    #[error("{0}")]
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
    #[error("{0}")]
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_index_agrees_with_line_col() {
        let long = "é".repeat(5000);
        let text = format!("ab\n\ncé d\n{long}x\n{long}");
        let index = LineIndex::new(&text);
        // Every 7th offset: both sides of each two-byte character, and every stride.
        for offset in (0..=text.len() + 2).step_by(7) {
            assert_eq!(index.line_col(offset), line_col(&text, offset), "{offset}");
        }
    }
}
