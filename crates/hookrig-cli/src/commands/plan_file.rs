//! The plan file of `hookrig task ...` and `hookrig plan ...`: which file and agent a
//! command works on, and why a plan command fails. Reading, locking and appending to
//! the file is `hookrig_plan::lifecycle`'s.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use hookrig_plan::{ActionError, LifecycleError};
use thiserror::Error;

use crate::exit_codes;

/// Why a plan or task command cannot do what it was asked.
#[derive(Debug, Error)]
pub(crate) enum PlanError {
    /// No `--plan` and no environment variable naming one.
    #[error("no plan file: give --plan FILE (or -f FILE), or set HOOKRIG_PLAN (or HENCE_PLAN)")]
    NoPlan,
    /// No `--agent` and no environment variable naming one.
    #[error("no agent: give --agent NAME, or set HOOKRIG_AGENT (or HENCE_AGENT)")]
    NoAgent,
    /// The plan file cannot be read, locked or written, is not valid SPL, or the action
    /// is refused.
    #[error(transparent)]
    Lifecycle(#[from] LifecycleError),
    /// `plan board --format NAME` with no such formatter.
    #[error(
        "unknown board format '{name}': built-in formats are kanban, tree, dag and json; {}",
        if found.is_empty() {
            "no formatters found (hookrig-board-NAME or hence-board-NAME in PATH or plugin_path, or a plugin package's formatters)".to_owned()
        } else {
            format!("formatters found: {}", found.join(", "))
        }
    )]
    UnknownFormat {
        /// The format asked for.
        name: String,
        /// Every formatter found, by name.
        found: Vec<String>,
    },
    /// A formatter exists but cannot be run.
    #[error(
        "formatter '{name}' at {} is not executable; make it executable with `chmod +x {}`",
        path.display(),
        crate::external::shell_word(path)
    )]
    FormatterNotExecutable {
        /// The format.
        name: String,
        /// Its file.
        path: PathBuf,
    },
    /// A formatter could not be started.
    #[error("cannot run formatter '{name}' ({})", path.display())]
    FormatterSpawn {
        /// The format.
        name: String,
        /// Its file.
        path: PathBuf,
        /// Why.
        #[source]
        source: hookrig_exec::SpawnError,
    },
    /// A formatter ran past its timeout and was stopped with its process group.
    #[error(
        "formatter '{name}' ({}) did not finish within {} and was stopped",
        path.display(),
        humantime::format_duration(*after)
    )]
    FormatterTimedOut {
        /// The format.
        name: String,
        /// Its file.
        path: PathBuf,
        /// The timeout.
        after: std::time::Duration,
    },
    /// A formatter printed more than hookrig keeps.
    #[error("formatter '{name}' printed more than {} MiB", cap >> 20)]
    FormatterOutputTooLarge {
        /// The format.
        name: String,
        /// The cap, in bytes.
        cap: usize,
    },
    /// A formatter exited non-zero or was killed.
    #[error("formatter '{name}' failed ({how})")]
    FormatterFailed {
        /// The format.
        name: String,
        /// `exit N` or `killed by signal N`.
        how: String,
    },
    /// Where the action acts cannot be worked out (no home directory).
    #[error(transparent)]
    Scope(#[from] hookrig_runtime::RuntimeError),
    /// `--dot` with a format other than dag.
    #[error("--dot draws the dag format; use it alone or with --format dag")]
    DotWithoutDag,
}

impl PlanError {
    /// An unknown task exits 8, as Hence does; every other failure 1.
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            PlanError::Lifecycle(LifecycleError::Action(ActionError::UnknownTask { .. })) => {
                exit_codes::UNKNOWN_TASK
            }
            _ => exit_codes::FAILURE,
        }
    }
}

/// The plan file: `flag`, else `top` (`hookrig --plan`), else `HOOKRIG_PLAN`, else
/// `HENCE_PLAN`; empty values count as not given.
pub(crate) fn plan_path(flag: Option<&Path>, top: Option<&Path>) -> Result<PathBuf, PlanError> {
    flag.or(top)
        .filter(|p| !p.as_os_str().is_empty())
        .map(Path::to_owned)
        .or_else(|| from_env(["HOOKRIG_PLAN", "HENCE_PLAN"]).map(PathBuf::from))
        .ok_or(PlanError::NoPlan)
}

/// The agent: `flag`, else `top` (`hookrig --agent`), else `HOOKRIG_AGENT`, else
/// `HENCE_AGENT`; empty values count as not given.
pub(crate) fn agent(flag: Option<&str>, top: Option<&OsStr>) -> Result<String, PlanError> {
    flag.map(str::to_owned)
        .or_else(|| top.map(|a| a.to_string_lossy().into_owned()))
        .filter(|a| !a.is_empty())
        .or_else(|| {
            from_env(["HOOKRIG_AGENT", "HENCE_AGENT"]).map(|a| a.to_string_lossy().into_owned())
        })
        .ok_or(PlanError::NoAgent)
}

fn from_env(names: [&str; 2]) -> Option<std::ffi::OsString> {
    names
        .into_iter()
        .find_map(|name| std::env::var_os(name).filter(|v| !v.is_empty()))
}
