//! Errors the binary expects and reports in one line, each with its exit code.
//!
//! Library errors are wrapped as they are (`#[from]`, their message and causes
//! unchanged); the variants of this crate's own are about the command line and the
//! binary's I/O. Each variant's exit code is in [`ExpectedError::exit_code`].

use std::path::PathBuf;

use hookrig_plan::{ActionError, LifecycleError};
use hookrig_runtime::programs::shell_word;
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
    /// A versioned event name whose version the catalog does not declare (the message
    /// holds the catalog's, so it is not a cause of its own).
    #[error("{0}; `hookrig events` lists the catalog")]
    UnknownVersion(hookrig_core::UnknownVersionError),
    /// No `--plan` and no environment variable naming one (plan and task commands).
    #[error("no plan file: give --plan FILE (or -f FILE), or set HOOKRIG_PLAN (or HENCE_PLAN)")]
    NoPlan,
    /// No `--agent` and no environment variable naming one (plan and task commands).
    #[error("no agent: give --agent NAME, or set HOOKRIG_AGENT (or HENCE_AGENT)")]
    NoAgent,
    /// `plan board --dot` with a format other than dag.
    #[error("--dot draws the dag format; use it alone or with --format dag")]
    DotWithoutDag,
    /// `runs`/`why` with `--no-ledger`.
    #[error("the ledger is disabled (--no-ledger)")]
    LedgerDisabled,
    /// `runs`, `why` or the dashboard could not open the shared ledger that the user's
    /// own `[store] url` names.
    #[error(
        "cannot read the shared ledger that [store] url in {} names: {error}; check that the database is running and reachable from this machine, or correct the URL (remove it to read this machine's ledger only)",
        config.display()
    )]
    SharedLedger {
        /// The user's `config.toml`.
        config: std::path::PathBuf,
        /// What went wrong, the URL without its password.
        error: String,
    },
    /// `why` was given an id that is not in the ledger.
    #[error("no run `{0}` in the ledger; `hookrig runs` lists recent runs")]
    UnknownRun(String),
    /// `show` was given a name no hook has.
    #[error("no hook named `{name}`{}; `hookrig list` shows the configured hooks", suggestion.as_ref().map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default())]
    NoSuchHook {
        /// The name asked for.
        name: String,
        /// The closest configured name.
        suggestion: Option<String>,
    },
    /// `plugins enable|disable|delete` with an id nobody registered.
    #[error("no plugin `{0}` is registered; `hookrig plugins list` shows the registered plugins")]
    UnknownPlugin(String),
    /// `plugins call --args` that is not JSON.
    #[error(
        "--args {args:?} is not JSON; give the tool's arguments as a JSON object, such as --args '{{\"path\": \"README.md\"}}'"
    )]
    ToolArgs {
        /// What was given.
        args: String,
        /// Where the JSON breaks.
        #[source]
        source: serde_json::Error,
    },
    /// `plugins call --args` that is JSON but not an object.
    #[error(
        "--args {0} is not a JSON object; a tool's arguments are an object, such as --args '{{}}'"
    )]
    ToolArgsNotObject(String),
    /// `plugins enable|disable --agent ""`.
    #[error("--agent needs a name (or use --all)")]
    EmptyAgent,
    /// `hookrig NAME` where NAME is neither built in nor an external command.
    #[error("unknown command: {name}. {}", if suggestions.is_empty() {
        "Run `hookrig help` for the list of commands".to_owned()
    } else {
        format!("Did you mean {}?", hookrig_core::text::or_list(suggestions))
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
        shell_word(path)
    )]
    HenceCommand {
        /// The name given.
        name: String,
        /// The `hence-NAME` found.
        path: PathBuf,
    },
    /// An external command was found but cannot be run.
    #[error(
        "permission denied: {} is not executable; make it executable with `chmod +x {}`",
        .0.display(),
        shell_word(.0)
    )]
    NotExecutable(PathBuf),
    /// An external command could not be started or waited for (the message names its
    /// file).
    #[error(transparent)]
    SpawnExternal(#[from] hookrig_exec::SpawnError),
    /// Writing the answer failed.
    #[error("cannot write to stdout")]
    Stdout(#[source] std::io::Error),
    /// An engine could not be started, asked or stopped.
    #[error("engine: {0}")]
    EngineStart(String),
    /// `--http ADDR` cannot be bound.
    #[error("cannot listen on {address}")]
    HttpBind {
        /// The address.
        address: std::net::SocketAddr,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The dashboard could not start, or `hookrig ui` found none to open.
    #[error("cannot start the dashboard: {0}")]
    UiStart(String),
    /// The HTTP token cannot be read or created.
    #[error("cannot read or create the HTTP token")]
    Token(#[source] std::io::Error),
    /// A resident engine could not listen or stopped on an error.
    #[error(transparent)]
    Engine(#[from] hookrig_runtime::ingress::IngressError),
    /// Neither `XDG_RUNTIME_DIR`, `XDG_STATE_HOME` nor `HOME` says where the socket goes.
    #[error("cannot tell where the serve socket goes: set XDG_RUNTIME_DIR or HOME")]
    NoSocketPath,
    /// The configuration is broken.
    #[error(transparent)]
    Config(#[from] hookrig_config::ConfigError),
    /// The trust store cannot be used.
    #[error(transparent)]
    Trust(#[from] hookrig_config::TrustError),
    /// The store cannot be opened, read or written.
    #[error(transparent)]
    Store(#[from] hookrig_store::StoreError),
    /// The runtime failed: an emit, an explanation, a listing, trust, a plan check or a
    /// board formatter.
    #[error(transparent)]
    Run(#[from] hookrig_runtime::RuntimeError),
    /// A task action failed: the plan cannot be read, locked or written, is not valid
    /// SPL, or the action is refused.
    #[error(transparent)]
    Lifecycle(#[from] LifecycleError),
    /// An `hookrig agent` or `hookrig providers` command failed.
    #[error(transparent)]
    Agent(#[from] hookrig_agents::AgentError),
    /// An `hookrig auto`, `hookrig fire` or `hookrig serve` command failed.
    #[error(transparent)]
    Automation(#[from] hookrig_automation::AutomationError),
    /// The running executable's path is unknown (`hookrig install` writes it).
    #[error("cannot find hookrig's own executable")]
    CurrentExe(#[source] std::io::Error),
    /// `hookrig install` or `uninstall` changed nothing.
    #[error(transparent)]
    Install(#[from] hookrig_dialects::InstallError),
    /// `hookrig test` could not run, or could not write a case.
    #[error(transparent)]
    Testing(#[from] hookrig_testing::TestingError),
}

impl From<hookrig_core::UnknownVersionError> for ExpectedError {
    fn from(err: hookrig_core::UnknownVersionError) -> Self {
        ExpectedError::UnknownVersion(err)
    }
}

impl ExpectedError {
    /// The process exit code for this error: 1 for every failure of hookrig itself,
    /// except where a command's contract says otherwise.
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            // An unknown task exits 8, as Hence does; `agent spawn` claims as
            // `task claim` does, with its exit codes.
            ExpectedError::Lifecycle(LifecycleError::Action(ActionError::UnknownTask {
                ..
            }))
            | ExpectedError::Agent(hookrig_agents::AgentError::Claim(LifecycleError::Action(
                ActionError::UnknownTask { .. },
            ))) => exit_codes::UNKNOWN_TASK,
            ExpectedError::PayloadTooLarge(_)
            | ExpectedError::ReadStdin(_)
            | ExpectedError::UnknownVersion(_)
            | ExpectedError::NoPlan
            | ExpectedError::NoAgent
            | ExpectedError::DotWithoutDag
            | ExpectedError::LedgerDisabled
            | ExpectedError::SharedLedger { .. }
            | ExpectedError::UnknownRun(_)
            | ExpectedError::NoSuchHook { .. }
            | ExpectedError::UnknownPlugin(_)
            | ExpectedError::ToolArgs { .. }
            | ExpectedError::ToolArgsNotObject(_)
            | ExpectedError::EmptyAgent
            | ExpectedError::UnknownCommand { .. }
            | ExpectedError::HenceCommand { .. }
            | ExpectedError::NotExecutable(_)
            | ExpectedError::SpawnExternal(_)
            | ExpectedError::Stdout(_)
            | ExpectedError::NoSocketPath
            | ExpectedError::Config(_)
            | ExpectedError::Trust(_)
            | ExpectedError::Store(_)
            | ExpectedError::Run(_)
            | ExpectedError::Lifecycle(_)
            | ExpectedError::Agent(_)
            | ExpectedError::Automation(_)
            | ExpectedError::Install(_)
            | ExpectedError::Testing(_)
            | ExpectedError::CurrentExe(_)
            | ExpectedError::Engine(_)
            | ExpectedError::EngineStart(_)
            | ExpectedError::HttpBind { .. }
            | ExpectedError::Token(_)
            | ExpectedError::UiStart(_) => exit_codes::FAILURE,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_task_exits_8_whoever_claims_it() {
        let unknown = || {
            LifecycleError::Action(ActionError::UnknownTask {
                task: "x".to_owned(),
                declared: Vec::new(),
            })
        };
        assert_eq!(
            ExpectedError::from(unknown()).exit_code(),
            exit_codes::UNKNOWN_TASK
        );
        assert_eq!(
            ExpectedError::from(hookrig_agents::AgentError::Claim(unknown())).exit_code(),
            exit_codes::UNKNOWN_TASK
        );
        assert_eq!(ExpectedError::NoPlan.exit_code(), exit_codes::FAILURE);
    }

    #[test]
    fn messages_that_hold_their_cause_do_not_chain_it_again() {
        // guards: causes were de-duplicated when printed; now each error says only what
        // it adds, and the printed line is the error and its sources
        let spl = hookrig_plan::SplError {
            path: PathBuf::from("plan.spl"),
            offset: 0,
            line: 1,
            col: 2,
            message: "expected `)`".to_owned(),
        };
        let err = ExpectedError::from(LifecycleError::Spl(spl.clone()));
        assert_eq!(crate::output::chain(&err), spl.to_string());
        let json = serde_json::from_str::<serde_json::Value>("{").expect_err("not JSON");
        let reason = json.to_string();
        let err = ExpectedError::from(hookrig_config::TrustError::Corrupt {
            path: PathBuf::from("trust.json"),
            reason: json,
        });
        assert_eq!(crate::output::chain(&err).matches(&reason).count(), 1);
    }

    #[test]
    fn a_wrapped_error_prints_its_own_message_and_causes_once() {
        let err = ExpectedError::from(hookrig_runtime::RuntimeError::ReadPlan {
            path: PathBuf::from("plan.spl"),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        });
        assert_eq!(
            crate::output::chain(&err),
            "cannot read the plan plan.spl: entity not found"
        );
    }
}
