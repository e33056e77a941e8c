//! Hooks: what the config declared, and the handler that runs it.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use crate::event::EventName;
use crate::matcher::Matcher;
use crate::payload::Payload;
use crate::verdict::{OnError, Reply};

/// A boxed, sendable future, as handlers return them.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// Whether the dispatcher waits for a hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// The event waits for the hook's answer.
    #[default]
    Sync,
    /// The hook is started and not awaited; its answer cannot change the event.
    Async,
}

impl Mode {
    /// The lowercase config name.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Sync => "sync",
            Mode::Async => "async",
        }
    }
}

/// Where a hook was declared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Absolute path of the file that declared it.
    pub path: PathBuf,
    /// The dialect of that file.
    pub dialect: crate::Dialect,
    /// The layer it came from.
    pub level: Level,
}

/// Configuration layers, in load order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// The user's own configuration.
    Global,
    /// Configuration that came with the project's repository.
    Project,
}

/// Everything the dispatcher needs to know about a hook, apart from how to run it.
#[derive(Debug, Clone)]
pub struct HookSpec {
    /// The configured name.
    pub name: String,
    /// The events it listens to.
    pub events: Vec<EventName>,
    /// Which tool names it applies to.
    pub matcher: Matcher,
    /// Lower runs first; ties keep registration order.
    pub priority: i32,
    /// Sync or async.
    pub mode: Mode,
    /// A disabled hook is listed and recorded, never run.
    pub enabled: bool,
    /// What a failure of this hook means.
    pub on_error: OnError,
    /// Where it was declared.
    pub source: Source,
    /// One-line summary.
    pub description: Option<String>,
    /// Its timeout, for listings (the handler enforces it). `None` = no timeout.
    pub timeout: Option<Duration>,
    /// Hooks of one parallel group that are next to each other in the chain run
    /// concurrently; their answers are then read in chain order, so a deny among them
    /// wins over an ask, and an ask over an allow.
    pub group: Option<String>,
    /// The payload field the matcher tests instead of the tool name (Claude Code matches
    /// `SessionStart` hooks against `source`, `PreCompact` hooks against `trigger`). A
    /// field named with [`FILE_NAME_OF`] after it (`file_path#name`) tests the last
    /// component of that path field (Claude Code matches `FileChanged` hooks against the
    /// changed file's name).
    pub matcher_field: Option<&'static str>,
    /// Why the hook may not run (its project is not trusted), with what to do about it.
    /// An untrusted hook is reported with result `untrusted`, never run.
    pub untrusted: Option<String>,
    /// A shadow hook runs on real events but never decides: its answer (deny, ask,
    /// modify, context, stop) is recorded on its [`crate::HookRecord`] and changes
    /// neither the decision, the payload nor the chain. Promoting it is clearing this.
    pub shadow: bool,
    /// Whether running it may do anything besides answering (write, call, notify): true
    /// unless its config says `side_effects = false`, which makes it safe to run again
    /// on a recorded event (`hookrig replay`).
    pub side_effects: bool,
}

/// The suffix of a [`HookSpec::matcher_field`] that tests the file name of a path field
/// rather than the whole field.
pub const FILE_NAME_OF: &str = "#name";

impl HookSpec {
    /// The default priority.
    pub const DEFAULT_PRIORITY: i32 = 100;

    /// Whether the hook listens to `event`.
    pub fn listens_to(&self, event: &EventName) -> bool {
        self.events.iter().any(|e| e.as_str() == event.as_str())
    }

    /// What the matcher tests in `payload`: its name (`tool` or the field) and value.
    pub fn matcher_subject<'p>(&self, payload: &'p Payload) -> (&'static str, Option<&'p str>) {
        let Some(field) = self.matcher_field else {
            return ("tool", payload.tool_name());
        };
        let (path_field, file_name) = match field.strip_suffix(FILE_NAME_OF) {
            Some(path_field) => (path_field, true),
            None => (field, false),
        };
        let value = payload
            .as_map()
            .get(path_field)
            .and_then(serde_json::Value::as_str);
        let value = if file_name {
            value.map(|path| path.rsplit('/').next().unwrap_or(path))
        } else {
            value
        };
        (field, value)
    }

    /// Whether the hook would be run for `event` with `payload`, trust aside: it listens,
    /// is enabled, and its matcher accepts.
    pub fn would_run(&self, event: &EventName, payload: &Payload) -> bool {
        self.enabled
            && self.listens_to(event)
            && self.matcher.matches(self.matcher_subject(payload).1)
    }
}

/// Runs a hook. Implemented by command hooks (hookrig-exec), HTTP hooks and in-process
/// plugins; the dispatcher only sees this trait.
pub trait Handler: Send + Sync + fmt::Debug {
    /// Runs once for `invocation`. Never fails: a hook that times out, crashes or answers
    /// nonsense is a [`Reply::Failure`], recorded and turned into a verdict by policy.
    fn run(&self, invocation: Invocation) -> BoxFuture<Report>;
}

/// The event a handler runs for.
#[derive(Debug, Clone, PartialEq)]
pub struct EventContext {
    /// The event, resolved.
    pub name: EventName,
    /// The agent session it happened in (may be empty).
    pub session_id: String,
    /// The directory it happened in.
    pub cwd: PathBuf,
    /// The environment hooks start from: the host's, when a resident engine runs the
    /// hooks on behalf of the `hookrig emit` that the host started; `None` for this
    /// process's own.
    pub env: Option<HostEnv>,
}

impl EventContext {
    /// The value of `name` in the environment hooks start from.
    pub fn var(&self, name: &str) -> Option<OsString> {
        match &self.env {
            Some(env) => env.get(name).map(OsStr::to_owned),
            None => std::env::var_os(name),
        }
    }
}

/// A host's environment, as the `hookrig emit` it started had it: the variables in
/// their order, shared by every hook of the event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HostEnv(Arc<[(OsString, OsString)]>);

impl HostEnv {
    /// The environment holding `vars`.
    pub fn new(vars: impl IntoIterator<Item = (OsString, OsString)>) -> Self {
        Self(vars.into_iter().collect())
    }

    /// The value of `name`; the last one wins, as in a process started with these.
    pub fn get(&self, name: &str) -> Option<&OsStr> {
        self.0
            .iter()
            .rev()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_os_str())
    }

    /// Every variable, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&OsStr, &OsStr)> {
        self.0.iter().map(|(k, v)| (k.as_os_str(), v.as_os_str()))
    }
}

/// One call of a handler.
#[derive(Debug, Clone)]
pub struct Invocation {
    /// The event.
    pub context: Arc<EventContext>,
    /// The payload as modified so far.
    pub payload: Payload,
}

/// What running a handler produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The verdict or failure.
    pub reply: Reply,
    /// The process exit code, for command hooks that exited.
    pub exit_code: Option<i32>,
    /// Wall time of the run.
    pub duration: Duration,
    /// The start of what it printed on stdout, for the ledger.
    pub stdout: Option<String>,
    /// The start of what it printed on stderr, for the ledger.
    pub stderr: Option<String>,
    /// Output was cut at its cap.
    pub truncated: bool,
}

impl Report {
    /// A report carrying only a reply.
    pub fn from_reply(reply: Reply, duration: Duration) -> Self {
        Self {
            reply,
            exit_code: None,
            duration,
            stdout: None,
            stderr: None,
            truncated: false,
        }
    }
}

/// A configured hook and its handler.
#[derive(Debug, Clone)]
pub struct Hook {
    /// What the config declared.
    pub spec: HookSpec,
    /// How it runs.
    pub handler: Arc<dyn Handler>,
}
