//! Host dialects: how `hookrig emit --dialect D` reads the host's input and answers in
//! the form that host expects. Hooks are presented in their own dialects by
//! hookrig-exec; this is the other edge, facing the agent that called hookrig.

mod claude;
mod hygge;
mod native;
mod xcode;

use clap::ValueEnum;
use hookrig_core::{Decision, Dispatched, Outcome, Payload};

use crate::errors::ExpectedError;

/// The input and output format of the host calling `hookrig emit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub(crate) enum HostDialect {
    /// hookrig's own: a payload object in, an Outcome object out.
    #[default]
    Native,
    /// Claude Code's hook input in, Claude Code's hook output and exit codes out (also
    /// Codex, Cursor, Gemini and other agents that read that format).
    Claude,
    /// hygge's `Input` in, hygge's `Action` out.
    Hygge,
    /// x-code's plugin payload in, x-code's hook reply out.
    Xcode,
}

/// The event a host sent, in canonical form.
#[derive(Debug)]
pub(crate) struct HostInput {
    /// The event name (any accepted spelling).
    pub(crate) event: String,
    /// The canonical payload.
    pub(crate) payload: Payload,
}

/// What hookrig prints and exits with.
#[derive(Debug)]
pub(crate) struct HostAnswer {
    /// Printed on stdout (with its trailing newline, if any).
    pub(crate) stdout: String,
    /// Printed on stderr, when the host reads a reason there.
    pub(crate) stderr: Option<String>,
    /// The exit code.
    pub(crate) exit_code: u8,
}

impl HostDialect {
    /// The dialect this host speaks, as the ledger records it.
    pub(crate) fn dialect(self) -> hookrig_core::Dialect {
        match self {
            HostDialect::Native => hookrig_core::Dialect::Native,
            HostDialect::Claude => hookrig_core::Dialect::Claude,
            HostDialect::Hygge => hookrig_core::Dialect::Hygge,
            HostDialect::Xcode => hookrig_core::Dialect::Xcode,
        }
    }

    /// Reads the host's stdin. `event` is the EVENT argument, which a dialect whose input
    /// names the event may do without.
    pub(crate) fn read(
        self,
        event: Option<&str>,
        stdin: &[u8],
    ) -> Result<HostInput, ExpectedError> {
        match self {
            HostDialect::Native => native::read(event, stdin),
            HostDialect::Claude => claude::read(event, stdin),
            HostDialect::Hygge => hygge::read(event, stdin),
            HostDialect::Xcode => xcode::read(event, stdin),
        }
    }

    /// The answer for this host.
    ///
    /// The Outcome's warnings (a config source that was skipped, a hook that failed)
    /// reach the host's user where its format has a place for them: the Outcome itself,
    /// Claude Code's `systemMessage`. x-code's and hygge's replies have none, so there
    /// they are written on stderr, which those hosts log, unless stderr already carries
    /// the reason of a deny.
    pub(crate) fn answer(self, outcome: &Outcome<'_>, dispatched: &Dispatched) -> HostAnswer {
        let mut answer = match self {
            HostDialect::Native => native::answer(outcome, dispatched),
            HostDialect::Xcode => xcode::answer(outcome, dispatched),
            HostDialect::Hygge => hygge::answer(outcome, dispatched),
            HostDialect::Claude => claude::answer(outcome, dispatched),
        };
        if matches!(self, HostDialect::Xcode | HostDialect::Hygge)
            && answer.stderr.is_none()
            && !outcome.warnings.is_empty()
        {
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
    ///
    /// hygge reads every non-zero exit as a deny. Its form of a hook that failed without
    /// deciding is a reply that is not a JSON object, which it logs as a warning: the
    /// error line is that reply (and is on stderr too), with exit 0.
    pub(crate) fn failure(self, error: &str) -> Option<HostAnswer> {
        (self == HostDialect::Hygge).then(|| HostAnswer {
            stdout: format!("hookrig: error: {error}\n"),
            stderr: Some(format!("hookrig: error: {error}\n")),
            exit_code: crate::exit_codes::PROCEED,
        })
    }
}

/// Why a host without an "ask" of its own (hygge, x-code) must be told no: the deny's
/// reason, or for an ask a reason saying that a hook wanted a confirmation nobody is
/// there to give; `None` when the event goes on.
fn refusal(dispatched: &Dispatched, host: &str) -> Option<String> {
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
