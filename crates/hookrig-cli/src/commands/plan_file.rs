//! The plan file of `hookrig task ...` and `hookrig plan ...`: which file and agent a
//! command works on, reading and parsing it, and the exclusive lock held while a task
//! action reads, decides and appends.

use std::ffi::OsStr;
use std::fs::File;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hookrig_plan::plan::Plan;
use hookrig_plan::spl::{self, Statement};
use hookrig_plan::{ActionError, SplError};
use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};
use thiserror::Error;

use crate::exit_codes;

/// How long an action waits for another process's lock on the plan file. Actions hold
/// the lock for milliseconds; a lock held this long belongs to a stuck process, and
/// waiting for ever would hang the agent that asked.
const LOCK_WAIT: Duration = Duration::from_secs(30);

/// Why a plan or task command cannot do what it was asked.
#[derive(Debug, Error)]
pub(crate) enum PlanError {
    /// No `--plan` and no environment variable naming one.
    #[error("no plan file: give --plan FILE (or -f FILE), or set HOOKRIG_PLAN (or HENCE_PLAN)")]
    NoPlan,
    /// No `--agent` and no environment variable naming one.
    #[error("no agent: give --agent NAME, or set HOOKRIG_AGENT (or HENCE_AGENT)")]
    NoAgent,
    /// The plan file cannot be opened, read or written.
    #[error("cannot {action} {}", path.display())]
    Io {
        /// `read`, `write`, `lock`.
        action: &'static str,
        /// The plan file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Another process has held the plan file's lock for [`LOCK_WAIT`].
    #[error(
        "{} is locked by another process (waited {}s); try again once it has finished",
        .0.display(),
        LOCK_WAIT.as_secs()
    )]
    Locked(PathBuf),
    /// The plan (or the SPL given to `task assert`) cannot be read.
    #[error("{0}")]
    Spl(#[from] SplError),
    /// The action is refused, or the task unknown.
    #[error("{0}")]
    Action(ActionError),
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
    /// A formatter could not be started or waited for.
    #[error("cannot run formatter '{name}' ({})", path.display())]
    FormatterSpawn {
        /// The format.
        name: String,
        /// Its file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A formatter exited non-zero or was killed.
    #[error("formatter '{name}' failed ({how})")]
    FormatterFailed {
        /// The format.
        name: String,
        /// `exit N` or `killed by signal N`.
        how: String,
    },
    /// `--dot` with a format other than dag.
    #[error("--dot draws the dag format; use it alone or with --format dag")]
    DotWithoutDag,
}

impl PlanError {
    /// An unknown task exits 8, as Hence does; every other failure 1.
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            PlanError::Action(ActionError::UnknownTask { .. }) => exit_codes::UNKNOWN_TASK,
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

/// A plan file read and parsed.
pub(crate) struct Loaded {
    /// Its text.
    pub(crate) text: String,
    /// Its statements.
    pub(crate) statements: Vec<Statement>,
    /// The plan they make.
    pub(crate) plan: Plan,
}

/// Reads and parses the plan at `path` (no lock: for commands that only read it; an
/// append is atomic enough for them, since the appender writes whole statements with
/// one `write` under its lock).
pub(crate) fn read(path: &Path) -> Result<Loaded, PlanError> {
    let text = std::fs::read_to_string(path).map_err(|source| PlanError::Io {
        action: "read",
        path: path.to_owned(),
        source,
    })?;
    parse(path, text)
}

fn parse(path: &Path, text: String) -> Result<Loaded, PlanError> {
    let statements = spl::parse(path, &text)?;
    let plan = Plan::new(&statements);
    Ok(Loaded {
        text,
        statements,
        plan,
    })
}

/// The plan file opened for appending, under an exclusive `flock`, released when
/// dropped (and by the kernel if hookrig dies).
///
/// The lock is on the plan file itself rather than a lock file beside it: nothing is
/// left behind, and Hence or any tool that flocks the plan agrees on it. A program
/// that replaces the file (write to a temporary file, rename) escapes the lock; task
/// actions only ever append.
pub(crate) struct Locked {
    file: Flock<File>,
    path: PathBuf,
}

impl Locked {
    /// Opens `path` and waits (up to [`LOCK_WAIT`]) for its exclusive lock.
    pub(crate) fn open(path: &Path) -> Result<Self, PlanError> {
        let io = |action, source| PlanError::Io {
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
        let deadline = Instant::now() + LOCK_WAIT;
        let mut pause = Duration::from_millis(1);
        let file = loop {
            match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
                Ok(locked) => break locked,
                Err((back, Errno::EWOULDBLOCK | Errno::EINTR)) => {
                    if Instant::now() >= deadline {
                        return Err(PlanError::Locked(path.to_owned()));
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
    pub(crate) fn read(&mut self) -> Result<Loaded, PlanError> {
        let mut text = String::new();
        self.file
            .read_to_string(&mut text)
            .map_err(|source| PlanError::Io {
                action: "read",
                path: self.path.clone(),
                source,
            })?;
        parse(&self.path, text)
    }

    /// Appends `text` and waits until it is on disk, so that the next process to take
    /// the lock reads it, and a crash right after the command reported success does not
    /// lose it.
    pub(crate) fn append(&mut self, text: &str) -> Result<(), PlanError> {
        use std::io::Write as _;
        self.file
            .write_all(text.as_bytes())
            .and_then(|()| self.file.sync_all())
            .map_err(|source| PlanError::Io {
                action: "write",
                path: self.path.clone(),
                source,
            })
    }
}
