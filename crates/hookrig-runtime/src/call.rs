//! What `hookrig emit` does for a host, from its parsed flags and stdin to the bytes the
//! host reads back: the host's input read in its dialect, the event emitted, the answer
//! written in the host's format. The binary calls it for an emit it answers itself, and a
//! resident engine calls it for the `hookrig emit` that handed its call over, so that
//! both answer byte for byte the same.

use std::path::PathBuf;

use hookrig_core::{Dialect, HostEnv, Payload};
use hookrig_dialects::{Host, HostError};
use serde::{Deserialize, Serialize};

use hookrig_exec::ProcessGroups;

use crate::emit::{
    Decided, Emit, EmitRequest, Prepared, Signals, Suppress, event_dir, event_dir_from,
    payload_agent,
};
use crate::errors::RuntimeError;
use crate::ledger::chain;
use crate::scope::{Scope, ScopeArgs};

/// The flags of one `hookrig emit`, as parsed from its command line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmitCall {
    /// The EVENT argument (any accepted spelling); a host whose input names the event
    /// may leave it out.
    pub event: Option<String>,
    /// `--dialect`: the host's input and output format.
    pub host: Dialect,
    /// `--cwd`.
    pub cwd: Option<PathBuf>,
    /// `--session`.
    pub session: Option<String>,
    /// `--agent`.
    pub agent: Option<String>,
    /// `--tool`: the tool name, when the payload names none.
    pub tool: Option<String>,
    /// `--plugin-dir` (repeatable).
    pub plugin_dirs: Vec<PathBuf>,
    /// `--no-hooks` (or `HOOKRIG_NO_HOOKS`) and `--no-plugins`.
    pub suppress: Suppress,
    /// `--ledger` (without it, the scope reads `HOOKRIG_LEDGER`).
    pub store: Option<PathBuf>,
    /// `--no-ledger`.
    pub no_ledger: bool,
    /// `--debug` or `--debug-hooks` (or `HOOKRIG_LOG`): which debug lines the client
    /// prints; with every line, the config's warnings are written as the emit starts.
    pub verbosity: crate::log::Verbosity,
}

/// What the host reads back.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostReply {
    /// Written on stdout.
    pub stdout: String,
    /// Written on stderr.
    pub stderr: String,
    /// The exit code.
    pub exit_code: u8,
}

/// Why an emit could not be answered with a decision: the host's input cannot be read
/// as an event, or hookrig itself failed. Its text is the line `hookrig emit` prints.
#[derive(Debug, thiserror::Error)]
enum CallError {
    #[error("stdin is not valid JSON: {0}; send one JSON object (or nothing for {{}})")]
    PayloadNotJson(#[source] serde_json::Error),
    #[error("the payload must be a JSON object, got {0}")]
    PayloadNotObject(&'static str),
    #[error(
        "no event: give EVENT (e.g. `hookrig emit tool.before`), or a --dialect whose input names it"
    )]
    NoEvent,
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
}

impl From<HostError> for CallError {
    fn from(err: HostError) -> Self {
        match err {
            HostError::PayloadNotJson(err) => CallError::PayloadNotJson(err),
            HostError::PayloadNotObject(what) => CallError::PayloadNotObject(what),
            HostError::NoEvent => CallError::NoEvent,
        }
    }
}

/// Where a call was made: the process's own directory and environment, or those a
/// `hookrig emit` handed to a resident engine with its call.
#[derive(Debug, Clone)]
pub enum CallSite {
    /// This process: its current directory and environment.
    Here,
    /// A host's `hookrig emit`: its current directory and its whole environment.
    Host {
        /// The directory it ran in.
        dir: PathBuf,
        /// Its environment.
        env: HostEnv,
        /// Where the hooks' process groups go: the engine kills them when it stops
        /// (it handles signals itself).
        groups: ProcessGroups,
        /// The engine's ledger writers, which record its emits in batches.
        ledger: crate::ledger::Writers,
        /// Run the project's hooks without asking the trust store: a `hookrig test`
        /// sandbox, where the user running the tests is the approval. An engine answering
        /// a host passes `false`; no variable can set it.
        trust_all: bool,
    },
}

/// Answers `call` with `stdin` as the host's input, made at `site`. `notes` gets lines
/// for stderr that must come out as the emit runs (the config's warnings, with `debug`).
///
/// Returns what the host reads and, when hooks ran, the emit to [`Decided::finish`] once
/// the host has it.
pub fn answer(
    call: &EmitCall,
    stdin: &[u8],
    where_: CallSite,
    notes: &mut dyn FnMut(&str),
) -> (HostReply, Option<Decided>) {
    let host = host_mode(call.host);
    match decide(call, host, stdin, where_, notes) {
        Ok(decided) => {
            let answer = host.answer(&decided.outcome(), &decided.dispatched);
            let reply = HostReply {
                stdout: answer.stdout,
                stderr: answer.stderr.unwrap_or_default(),
                exit_code: answer.exit_code,
            };
            (reply, Some(decided))
        }
        Err(err) => (failure(host, &chain(&err)), None),
    }
}

/// The reply to a host for an emit that failed before any hook could decide, with
/// `error` as its message: the host's own failure answer where it has one (a host that
/// would read hookrig's exit code 1 as a decision), else the error on stderr and exit 1.
pub fn failure(host: Host, error: &str) -> HostReply {
    match host.failure(error) {
        Some(answer) => HostReply {
            stdout: answer.stdout,
            stderr: answer.stderr.unwrap_or_default(),
            exit_code: answer.exit_code,
        },
        None => HostReply {
            stdout: String::new(),
            stderr: format!("hookrig: error: {error}\n"),
            exit_code: FAILURE,
        },
    }
}

/// hookrig itself failed.
pub(crate) const FAILURE: u8 = 1;

/// Whether a host can call hookrig in `dialect`.
pub(crate) fn speaks(dialect: Dialect) -> bool {
    Host::of(dialect).is_some()
}

/// The host mode of `dialect`; the native one for a dialect no host speaks.
///
/// # Panics
///
/// Never: the native host mode is always in the table of hosts.
pub fn host_mode(dialect: Dialect) -> Host {
    Host::of(dialect)
        .or_else(|| Host::of(Dialect::Native))
        .expect("the native host mode exists")
}

/// The scope of the call and its emit, prepared (hooks loaded, ledger opened), with the
/// process groups its hooks go to when an engine runs them.
fn prepare(
    call: &EmitCall,
    host: Host,
    site: CallSite,
    event: &str,
    payload: Payload,
) -> Result<(Prepared, Option<ProcessGroups>), CallError> {
    let args = |cwd| ScopeArgs {
        cwd: Some(cwd),
        agent: call.agent.clone(),
        plan: None,
        store: call.store.clone(),
        no_ledger: call.no_ledger,
        ..ScopeArgs::default()
    };
    let (scope, groups) = match site {
        CallSite::Here => (
            Scope::resolve(args(event_dir(call.cwd.as_deref(), &payload)?))?,
            None,
        ),
        CallSite::Host {
            dir,
            env,
            groups,
            ledger,
            trust_all,
        } => {
            // A relative `--cwd` is relative to the host's directory, not the engine's.
            let flag = call.cwd.as_deref().map(|cwd| dir.join(cwd));
            let cwd = event_dir_from(flag.as_deref(), &payload, &dir)?;
            let mut scope = Scope::for_host(args(cwd), env)?;
            scope.ledger_writers = Some(ledger);
            scope.env.trust_all = trust_all;
            (scope, Some(groups))
        }
    };
    let session_id = call
        .session
        .clone()
        .or_else(|| payload.session_id().map(str::to_owned))
        .unwrap_or_default();
    let agent = scope.agent.clone().or_else(|| payload_agent(&payload));
    let request = EmitRequest {
        name: hookrig_dialects::events::parse(event).map_err(RuntimeError::from)?,
        payload,
        session_id,
        host: host.dialect(),
        agent,
        plugin_dirs: call.plugin_dirs.clone(),
        suppress: call.suppress,
        bus: None,
    };
    let prepared = Emit::prepare(&scope, request)?;
    Ok((prepared, groups))
}

fn decide(
    call: &EmitCall,
    host: Host,
    stdin: &[u8],
    site: CallSite,
    notes: &mut dyn FnMut(&str),
) -> Result<Decided, CallError> {
    let input = host.read(call.event.as_deref(), stdin)?;
    let mut payload = input.payload;
    if let Some(tool) = &call.tool {
        payload.set_tool_name_if_missing(tool);
    }
    // One look at each path for the scope and the load together: the event's directory
    // is resolved for the flag's check, for the scope and for the project's walk (each
    // resolution reads every link on the way), and the loaders then look at the same
    // directories again.
    let (prepared, groups) =
        hookrig_config::consulted::looking(|| prepare(call, host, site, &input.event, payload))?;
    if call.verbosity == crate::log::Verbosity::Debug {
        for warning in prepared.warnings() {
            notes(&format!("hookrig: warning: {warning}\n"));
        }
    }
    Ok(match groups {
        None => prepared.dispatch()?,
        Some(groups) => prepared.dispatch_with(groups, Signals::Ignore)?,
    })
}
