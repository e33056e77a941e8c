//! Host modes: how a host that calls hookrig (`hookrig emit --dialect D`) sends an event
//! and reads the answer. Hooks are presented in their own dialects by each dialect's
//! protocol; this is the other edge, facing the agent that called hookrig.
//!
//! Each dialect that can be a host declares one [`Host`] in its folder; [`HOSTS`] lists
//! them.

use hookrig_core::{Decision, Dialect, Dispatched, Outcome, Payload, Stopped};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::errors::HostError;
use crate::{claude, codex, cursor, gemini, hygge, native, xcode};

/// Every host mode, one line per dialect that a host can speak.
pub static HOSTS: &[Host] = &[
    native::HOST,
    claude::HOST,
    hygge::HOST,
    xcode::HOST,
    gemini::HOST,
    codex::HOST,
    cursor::HOST,
];

/// The event a host sent, in canonical form.
#[derive(Debug)]
pub struct HostInput {
    /// The event name (any accepted spelling).
    pub event: String,
    /// The canonical payload.
    pub payload: Payload,
}

/// What hookrig prints and exits with, in the host's format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostAnswer {
    /// Printed on stdout (with its trailing newline, if any).
    pub stdout: String,
    /// Printed on stderr, when the host reads a reason there.
    pub stderr: Option<String>,
    /// The exit code: [`HostAnswer::PROCEED`] or [`HostAnswer::DENIED`].
    pub exit_code: u8,
}

impl HostAnswer {
    /// The event may proceed (allowed, maybe modified, or ask).
    pub const PROCEED: u8 = 0;
    /// The event was denied.
    pub const DENIED: u8 = 2;
}

/// Reads what the host wrote on stdin. `event` is the EVENT argument, which a dialect
/// whose input names the event may do without.
pub(crate) type ReadFn = fn(event: Option<&str>, stdin: &[u8]) -> Result<HostInput, HostError>;
/// The answer to the host once the hooks decided.
pub(crate) type AnswerFn = fn(outcome: &Outcome<'_>, dispatched: &Dispatched) -> HostAnswer;
/// The answer when the emit failed before any hook could decide.
pub(crate) type FailureFn = fn(error: &str) -> Option<HostAnswer>;

/// One host mode: the dialect, how its input is read, and how it is answered.
#[derive(Clone, Copy)]
pub struct Host {
    dialect: Dialect,
    read: ReadFn,
    answer: AnswerFn,
    failure: FailureFn,
    /// Whether the Outcome's warnings go on stderr, for a host whose answer has no
    /// place for them.
    warnings_on_stderr: bool,
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host")
            .field("dialect", &self.dialect)
            .finish_non_exhaustive()
    }
}

impl Host {
    /// A host mode; each dialect folder declares its own.
    pub(crate) const fn new(
        dialect: Dialect,
        read: ReadFn,
        answer: AnswerFn,
        failure: FailureFn,
        warnings_on_stderr: bool,
    ) -> Self {
        Self {
            dialect,
            read,
            answer,
            failure,
            warnings_on_stderr,
        }
    }

    /// The host mode of `dialect`, `None` when no host speaks it.
    pub fn of(dialect: Dialect) -> Option<Host> {
        HOSTS.iter().copied().find(|host| host.dialect == dialect)
    }

    /// The dialect this host speaks.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Reads the host's stdin. `event` is the EVENT argument, which a dialect whose input
    /// names the event may do without.
    pub fn read(&self, event: Option<&str>, stdin: &[u8]) -> Result<HostInput, HostError> {
        (self.read)(event, stdin)
    }

    /// The answer for this host.
    ///
    /// The Outcome's warnings (a config source that was skipped, a hook that failed)
    /// reach the host's user where its format has a place for them: the Outcome itself,
    /// Claude Code's `systemMessage`. x-code's and hygge's replies have none, so there
    /// they are written on stderr, which those hosts log, unless stderr already carries
    /// the reason of a deny.
    ///
    /// Shadow hooks ([`hookrig_core::HookSpec::shadow`]) decided nothing, so a host mode
    /// never sees their records: it folds the others' answers as if they had not run.
    pub fn answer(&self, outcome: &Outcome<'_>, dispatched: &Dispatched) -> HostAnswer {
        let without_shadows;
        let dispatched = if dispatched.records.iter().any(|r| r.shadow) {
            without_shadows = Dispatched {
                records: dispatched
                    .records
                    .iter()
                    .filter(|r| !r.shadow)
                    .cloned()
                    .collect(),
                ..dispatched.clone()
            };
            &without_shadows
        } else {
            dispatched
        };
        let mut answer = (self.answer)(outcome, dispatched);
        if self.warnings_on_stderr && answer.stderr.is_none() && !outcome.warnings.is_empty() {
            let mut text = String::new();
            for warning in outcome.warnings {
                text.push_str("hookrig: warning: ");
                text.push_str(warning);
                text.push('\n');
            }
            answer.stderr = Some(text);
        }
        answer
    }

    /// The answer when the emit failed before any hook could decide (the payload cannot
    /// be read, the working directory is gone), for a host that would otherwise read
    /// hookrig's exit code 1 as a decision; `None` for the others, which read a non-zero
    /// exit other than 2 as a failed hook and are told the error on stderr.
    pub fn failure(&self, error: &str) -> Option<HostAnswer> {
        (self.failure)(error)
    }
}

/// The failure answer of a host that reads exit code 1 as a failed hook: none.
pub(crate) fn no_failure_answer(_error: &str) -> Option<HostAnswer> {
    None
}

/// Parses stdin as one JSON object; nothing at all is `{}`.
pub(crate) fn parse_object(stdin: &[u8]) -> Result<Payload, HostError> {
    if stdin.trim_ascii().is_empty() {
        return Ok(Payload::new());
    }
    match serde_json::from_slice(stdin).map_err(HostError::PayloadNotJson)? {
        Value::Object(map) => Ok(Payload::from_map(map)),
        Value::Array(_) => Err(HostError::PayloadNotObject("an array")),
        Value::String(_) => Err(HostError::PayloadNotObject("a string")),
        Value::Number(_) => Err(HostError::PayloadNotObject("a number")),
        Value::Bool(_) => Err(HostError::PayloadNotObject("a boolean")),
        Value::Null => Err(HostError::PayloadNotObject("null")),
    }
}

/// The hook input of a host that names its event in the input (`hook_event_name`), as
/// its wire module reads it.
pub(crate) trait WireInput: DeserializeOwned {
    /// The event the input names, when it names one as a string.
    fn event_name(&self) -> Option<&str>;
    /// The input in canonical shape (see [`canonical_payload`]).
    fn canonical(self) -> Payload;
}

/// Reads a host's stdin as its wire input `T`: the event is `event` when hookrig was told
/// one (`hookrig emit EVENT`), else the one the input names.
pub(crate) fn read_wire<T: WireInput>(
    event: Option<&str>,
    stdin: &[u8],
) -> Result<HostInput, HostError> {
    let input = parse_object(stdin)?.into_map();
    let input: T =
        serde_json::from_value(Value::Object(input)).map_err(HostError::PayloadNotJson)?;
    let event = match (event, input.event_name()) {
        (Some(event), _) | (None, Some(event)) => event.to_owned(),
        (None, None) => return Err(HostError::NoEvent),
    };
    Ok(HostInput {
        event,
        payload: input.canonical(),
    })
}

/// A host's input in canonical shape: the `session` and `tool` sections first (each left
/// out when none of its fields is there), then the `fields` that are there, then every
/// other field of the input under its own name, in the order written.
pub(crate) fn canonical_payload<const S: usize, const T: usize, const F: usize>(
    session: [(&str, Option<Value>); S],
    tool: [(&str, Option<Value>); T],
    fields: [(&str, Option<Value>); F],
    rest: Map<String, Value>,
) -> Payload {
    let mut map = Map::new();
    let sections = [("session", section(session)), ("tool", section(tool))];
    for (key, value) in sections.into_iter().chain(fields) {
        if let Some(value) = value {
            map.insert(key.to_owned(), value);
        }
    }
    map.extend(rest);
    Payload::from_map(map)
}

/// An object of the fields that are there, `None` when none is.
fn section<const N: usize>(fields: [(&str, Option<Value>); N]) -> Option<Value> {
    let section: Map<String, Value> = fields
        .into_iter()
        .filter_map(|(key, value)| Some((key.to_owned(), value?)))
        .collect();
    (!section.is_empty()).then_some(Value::Object(section))
}

/// The reason of a stop: the hook's, else one naming the hook.
pub(crate) fn stop_reason(stop: &Stopped) -> String {
    stop.reason
        .clone()
        .unwrap_or_else(|| format!("stopped by hook {}", stop.by))
}

/// Why a host without an "ask" of its own (hygge, x-code) must be told no: the deny's
/// reason, or for an ask a reason saying that a hook wanted a confirmation nobody is
/// there to give; `None` when the event goes on. A hook that stopped the agent, which
/// such a host has no word for, is answered as a deny whose reason says so.
pub(crate) fn refusal(dispatched: &Dispatched, host: &str) -> Option<String> {
    if let Some(stop) = &dispatched.stop {
        return Some(format!(
            "{} (a hook stopped the agent, which {host} cannot be told: the event is denied instead)",
            stop_reason(stop)
        ));
    }
    match dispatched.decision {
        Decision::Deny => Some(
            dispatched
                .reason
                .clone()
                .unwrap_or_else(|| "denied by hookrig".to_owned()),
        ),
        Decision::Ask => Some(format!(
            "{} (a hook asked for confirmation, which {host} cannot ask for)",
            dispatched
                .reason
                .as_deref()
                .unwrap_or("confirmation needed")
        )),
        Decision::Allow => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_host_is_found_by_its_dialect() {
        for host in HOSTS {
            assert_eq!(
                Host::of(host.dialect()).map(|h| h.dialect()),
                Some(host.dialect())
            );
        }
        assert!(Host::of(Dialect::Hence).is_none());
    }
}
