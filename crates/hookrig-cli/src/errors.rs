//! Errors the binary expects and reports in one line, each with its exit code.

use thiserror::Error;

use crate::exit_codes;

/// A failure of hookrig itself (not of a hook).
#[derive(Debug, Error)]
pub(crate) enum ExpectedError {
    /// The payload on stdin is larger than `--max-payload`.
    #[error(
        "the payload is larger than {} bytes{}; raise the limit with --max-payload or HOOKRIG_MAX_PAYLOAD",
        .0,
        crate::cli::size_in_units(*.0)
    )]
    PayloadTooLarge(u64),
    /// Reading stdin failed.
    #[error("cannot read the payload from stdin")]
    ReadStdin(#[source] std::io::Error),
    /// A versioned event name whose version the catalog does not declare.
    #[error("{0}; `hookrig events` lists the catalog")]
    UnknownVersion(#[from] hookrig_core::UnknownVersionError),
    /// The configuration is broken.
    #[error("{0}")]
    Config(#[from] hookrig_config::ConfigError),
    /// The ledger could not be read (for `runs` and `why`).
    #[error(transparent)]
    Store(#[from] hookrig_store::StoreError),
    /// `why` was given an id that is not in the ledger.
    #[error("no run `{0}` in the ledger; `hookrig runs` lists recent runs")]
    UnknownRun(String),
    /// `runs`/`why` with `--no-ledger`.
    #[error("the ledger is disabled (--no-ledger)")]
    LedgerDisabled,
    /// `show` was given a name no hook has.
    #[error("no hook named `{name}`{}; `hookrig list` shows the configured hooks", suggestion.as_ref().map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default())]
    NoSuchHook {
        /// The name asked for.
        name: String,
        /// The closest configured name.
        suggestion: Option<String>,
    },
    /// The trust store cannot be used.
    #[error(transparent)]
    Trust(#[from] hookrig_config::TrustError),
    /// `plugins register` with an id that is taken.
    #[error(
        "plugin `{id}` is already registered (from {path}); `hookrig plugins delete {id}` first to register it again"
    )]
    DuplicatePlugin {
        /// The id.
        id: String,
        /// Where the registered one is.
        path: String,
    },
    /// `plugins enable|disable|delete` with an id nobody registered.
    #[error("no plugin `{0}` is registered; `hookrig plugins list` shows the registered plugins")]
    UnknownPlugin(String),
    /// `plugins register` with an id that cannot name a package.
    #[error("invalid plugin id `{0}`: it must match ^[a-z0-9][a-z0-9-]*$")]
    BadPluginId(String),
    /// `--agent ""`.
    #[error("--agent needs a name (or use --all)")]
    EmptyAgent,
    /// `plugins register` with a directory that is not a valid package.
    #[error("cannot register {}: not a valid plugin package:\n{}", dir.display(), problems.join("\n"))]
    InvalidPackage {
        /// The directory.
        dir: std::path::PathBuf,
        /// Every error, `path:line:col: message`.
        problems: Vec<String>,
    },
    /// `auto add` with a file that is not a valid automation (`path:line:col: message`).
    #[error("{0}")]
    InvalidAutomation(String),
    /// `fire` or an `auto` subcommand failed with one of the engine's messages
    /// (`Hook 'ID' not found`, `Hook 'ID' is already running`).
    #[error("{0}")]
    Fire(String),
    /// An emit, an explanation or a listing failed.
    #[error(transparent)]
    Run(#[from] hookrig_runtime::RuntimeError),
    /// The async runtime could not start.
    #[error("cannot start the async runtime")]
    Runtime(#[source] std::io::Error),
    /// `hookrig NAME` where NAME is neither built in nor an external command.
    #[error("unknown command: {name}. {}", if suggestions.is_empty() {
        "Run `hookrig help` for the list of commands".to_owned()
    } else {
        format!("Did you mean {}?", crate::external::or_list(suggestions))
    })]
    UnknownCommand {
        /// The name given.
        name: String,
        /// Built-in and external names close to it, closest first.
        suggestions: Vec<String>,
    },
    /// `hookrig NAME` where only Hence's `hence-NAME` exists.
    #[error(
        "unknown command: {name}. {} is a Hence command, which hookrig runs only when started as `hence`: symlink it as hookrig-{name} (`ln -s {} DIR/hookrig-{name}`), rename it, or run `hence {name}` through a link named hence to hookrig",
        path.display(),
        crate::external::shell_word(path)
    )]
    HenceCommand {
        /// The name given.
        name: String,
        /// The `hence-NAME` found.
        path: std::path::PathBuf,
    },
    /// An external command was found but cannot be run.
    #[error(
        "permission denied: {} is not executable; make it executable with `chmod +x {}`",
        .0.display(),
        crate::external::shell_word(.0)
    )]
    NotExecutable(std::path::PathBuf),
    /// An external command could not be started or waited for (the message names its
    /// file).
    #[error(transparent)]
    SpawnExternal(#[from] hookrig_exec::SpawnError),
    /// The current directory is gone or unreadable.
    #[error("cannot read the current directory")]
    Cwd(#[source] std::io::Error),
    /// An `hookrig agent` command failed.
    #[error(transparent)]
    Agent(#[from] hookrig_agents::AgentError),
    /// A plan or task command failed (its own exit codes).
    #[error(transparent)]
    Plan(#[from] crate::commands::plan_file::PlanError),
    /// Writing the answer failed.
    #[error("cannot write to stdout")]
    Stdout(#[source] std::io::Error),
    /// The plan file cannot be read.
    #[error("cannot read the plan {}", path.display())]
    ReadPlan {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// `hookrig serve` cannot listen (another serve runs, the socket path is taken), or
    /// `hookrig fire` lost the running serve.
    #[error(transparent)]
    Ingress(#[from] hookrig_runtime::ingress::IngressError),
    /// An engine could not be started, asked or stopped.
    #[error("engine: {0}")]
    EngineStart(String),
    /// Neither `XDG_RUNTIME_DIR`, `XDG_STATE_HOME` nor `HOME` says where the socket goes.
    #[error("cannot tell where the serve socket goes: set XDG_RUNTIME_DIR or HOME")]
    NoSocketPath,
}

impl ExpectedError {
    /// The process exit code for this error: 1 for every failure of hookrig itself,
    /// except where a command's contract says otherwise (an unknown task exits 8).
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            ExpectedError::Plan(err) => err.exit_code(),
            // `agent spawn` claims as `task claim` does, with its exit codes.
            ExpectedError::Agent(hookrig_agents::AgentError::Claim(
                hookrig_plan::LifecycleError::Action(hookrig_plan::ActionError::UnknownTask {
                    ..
                }),
            )) => exit_codes::UNKNOWN_TASK,
            _ => exit_codes::FAILURE,
        }
    }
}
