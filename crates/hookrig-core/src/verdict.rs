//! What one handler answered, and how failures become answers.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::payload::Payload;

/// A handler's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Let the event proceed.
    Allow,
    /// Stop the event.
    Deny,
    /// Ask the user; kept unless a later handler denies.
    Ask,
    /// Proceed with a changed payload.
    Modify,
}

impl Action {
    /// The lowercase wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Allow => "allow",
            Action::Deny => "deny",
            Action::Ask => "ask",
            Action::Modify => "modify",
        }
    }
}

/// A successful reply from a handler, already read by its dialect's rules.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// What the handler decided.
    pub action: Action,
    /// Why (shown to the agent on deny and ask).
    pub reason: Option<String>,
    /// For `modify`: the fields to merge over the payload (see [`crate::Payload::apply_patch`]).
    pub patch: Option<Map<String, Value>>,
    /// For `modify`: a whole new payload, applied before `patch`. The patch is a
    /// two-level merge that cannot remove a key; an in-process transform or veto that
    /// returns a payload means exactly that payload, so it replaces. Boxed: a payload
    /// is large and most replies have none.
    pub replace: Option<Box<Payload>>,
    /// Context text for the agent.
    pub context: Option<String>,
    /// One-turn text for the system prompt.
    pub system_prompt_append: Option<String>,
    /// Non-fatal remarks about the reply (an ignored field, say).
    pub warnings: Vec<String>,
    /// What the hook answered in its own dialect's terms that the fields above have no
    /// place for (Claude Code's explicit allow, its `continue: false`, a permission
    /// request's decision). Nothing in the dispatcher reads it: it is kept on the hook's
    /// record for the host mode of the same dialect, which answers its host with it.
    /// Boxed: most replies have none.
    pub answer: Option<Box<Value>>,
    /// "Stop the agent now": neither an allow nor a deny of the event, but the end of
    /// the agent's work (Claude Code's, Codex's and Gemini CLI's `continue: false`, a
    /// native hook's `stop`). It wins over every decision of every hook; each host mode
    /// answers it as its host's own stop.
    pub stop: Option<Stop>,
}

/// A hook's request to stop the agent, with the reason shown to the user.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Stop {
    /// Why, when the hook said (Claude Code's `stopReason`).
    pub reason: Option<String>,
}

impl Verdict {
    /// A plain allow.
    pub fn allow() -> Self {
        Self::with_action(Action::Allow)
    }

    /// A deny with a reason.
    pub fn deny(reason: impl Into<String>) -> Self {
        Self {
            reason: Some(reason.into()),
            ..Self::with_action(Action::Deny)
        }
    }

    /// A verdict with only its action set.
    pub fn with_action(action: Action) -> Self {
        Self {
            action,
            reason: None,
            patch: None,
            replace: None,
            context: None,
            system_prompt_append: None,
            warnings: Vec::new(),
            answer: None,
            stop: None,
        }
    }
}

/// Why a handler produced no verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// It ran past its timeout and was killed.
    Timeout,
    /// It exited with a code its dialect treats as an error.
    Exit,
    /// It was killed by a signal it was not sent.
    Crash,
    /// Its reply could not be read.
    Malformed,
    /// It could not be started.
    Spawn,
    /// hookrig was interrupted while it ran.
    Interrupted,
    /// An in-process plugin handler returned an error or panicked.
    Plugin,
}

/// A handler failure: a value, never a Rust error, turned into allow or deny by policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The class of failure.
    pub kind: FailureKind,
    /// The full message naming the hook and the cause, e.g. `hook guard timed out after 5s`.
    pub message: String,
}

/// What the dispatcher does with a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OnError {
    /// Fail open: the event proceeds (the default; a broken hook should not brick the agent).
    #[default]
    Allow,
    /// Fail closed: the failure denies the event.
    Deny,
}

/// A handler's reply: a verdict or a failure.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// The handler answered.
    Verdict(Verdict),
    /// The handler failed.
    Failure(Failure),
}
