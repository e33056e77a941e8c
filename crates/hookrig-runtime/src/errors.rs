//! What can stop the runtime from answering an event, a question about the config, a
//! trust change, a plan check, a board formatter or a package registration. A hook that fails is not among
//! these: it is a value, recorded and turned into a verdict by its failure policy.

use std::path::PathBuf;
use std::time::Duration;

use thiserror::Error;

use crate::programs::shell_word;

/// A failure of hookrig itself while emitting, explaining, listing, trusting, checking
/// a plan or running a board formatter.
#[derive(Debug, Error)]
pub enum RuntimeError {
    /// The working directory named on the command line does not exist.
    #[error("--cwd {}: no such directory", .0.display())]
    NoSuchCwd(PathBuf),
    /// A versioned event name whose version the catalog does not declare (the message
    /// holds the catalog's, so it is not a cause of its own).
    #[error("{0}; `hookrig events` lists the catalog")]
    UnknownVersion(hookrig_core::UnknownVersionError),
    /// The configuration cannot be loaded at all (no home directory).
    #[error(transparent)]
    Config(#[from] hookrig_config::ConfigError),
    /// The trust store cannot be read or written.
    #[error(transparent)]
    Trust(#[from] hookrig_config::TrustError),
    /// The store cannot be read.
    #[error(transparent)]
    Store(#[from] hookrig_store::StoreError),
    /// The async runtime could not start.
    #[error("cannot start the async runtime")]
    AsyncRuntime(#[source] std::io::Error),
    /// A plugin package cannot be registered: its id or its directory is not valid.
    #[error(transparent)]
    Package(#[from] hookrig_dialects::PackageError),
    /// A plugin package is registered under an id that is taken.
    #[error(
        "plugin `{id}` is already registered (from {path}); `hookrig plugins delete {id}` first to register it again"
    )]
    DuplicatePlugin {
        /// The id.
        id: String,
        /// Where the registered one is.
        path: String,
    },
    /// A package to register in the shared registry whose files cannot be digested
    /// (more than 20,000 of them): a node could never check its copy.
    #[error(
        "the plugin package {} has more than 20,000 files; a shared registry signs a package whose every file a node can check",
        path.display()
    )]
    UnreadablePackage {
        /// The package directory.
        path: PathBuf,
    },
    /// No plugin package is registered under this id.
    #[error("no plugin `{0}` is registered; `hookrig plugins list` lists them")]
    UnknownPlugin(String),
    /// A package of the shared registry this node does not run: a row of it does not
    /// verify with this node's key, or its copy here differs from what was signed.
    #[error("{}", reasons.join("; "))]
    SharedPluginNotRun {
        /// The package.
        id: String,
        /// Each row left out and why, as the emits warn.
        reasons: Vec<String>,
    },
    /// A JavaScript plugin's host could not answer `plugins show` or `plugins call`.
    #[error("plugin `{id}`: {message}")]
    PluginHost {
        /// The plugin.
        id: String,
        /// What went wrong, and what to do about it.
        message: String,
    },
    /// A plugin's tool failed (it threw, or its arguments did not fit its schema).
    #[error("plugin `{id}`, tool `{tool}`: {error}{}", if stack.is_empty() { String::new() } else { format!("\n{stack}") })]
    PluginTool {
        /// The plugin.
        id: String,
        /// The tool.
        tool: String,
        /// What it threw.
        error: String,
        /// Where, as Node.js printed the stack (empty for a call the host refused).
        stack: String,
    },
    /// The plan file cannot be read.
    #[error("cannot read the plan {}", path.display())]
    ReadPlan {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// No board formatter has this name.
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
        shell_word(path)
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
        after: Duration,
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
}

impl From<hookrig_core::UnknownVersionError> for RuntimeError {
    fn from(err: hookrig_core::UnknownVersionError) -> Self {
        RuntimeError::UnknownVersion(err)
    }
}
