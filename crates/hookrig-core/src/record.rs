//! What the dispatcher records about each hook it considered.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The result of one hook for one event, as the Outcome and the ledger report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HookResult {
    /// It allowed the event.
    Allow,
    /// It denied the event.
    Deny,
    /// It asked for the user's confirmation.
    Ask,
    /// It changed the payload.
    Modify,
    /// It stopped the agent (whatever else it answered): see [`crate::Stop`].
    Stop,
    /// It failed (exit code, crash, malformed reply, could not start).
    Error,
    /// It ran past its timeout.
    Timeout,
    /// It was not run (see the skip reason).
    Skipped,
    /// It comes from a project that was not trusted, so it was not run.
    Untrusted,
    /// An async hook that was started and not awaited; its result reaches the ledger later.
    Dispatched,
}

impl HookResult {
    /// Every result, so that a name read back (from the ledger) finds its result.
    pub const ALL: [HookResult; 10] = [
        HookResult::Allow,
        HookResult::Deny,
        HookResult::Ask,
        HookResult::Modify,
        HookResult::Stop,
        HookResult::Error,
        HookResult::Timeout,
        HookResult::Skipped,
        HookResult::Untrusted,
        HookResult::Dispatched,
    ];

    /// The lowercase wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            HookResult::Allow => "allow",
            HookResult::Deny => "deny",
            HookResult::Ask => "ask",
            HookResult::Modify => "modify",
            HookResult::Stop => "stop",
            HookResult::Error => "error",
            HookResult::Timeout => "timeout",
            HookResult::Skipped => "skipped",
            HookResult::Untrusted => "untrusted",
            HookResult::Dispatched => "dispatched",
        }
    }
}

/// Why a hook did not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipReason {
    /// It listens to other events.
    OtherEvent,
    /// Its matcher rejected the tool name (or the payload field it tests).
    Matcher {
        /// The pattern.
        pattern: String,
        /// What was tested: `tool`, or the payload field's name.
        subject: &'static str,
        /// The value tested (`None` when the event has none).
        tool: Option<String>,
    },
    /// `enabled = false`.
    Disabled,
    /// An earlier hook denied the event or stopped the agent.
    ChainStopped {
        /// The hook that denied or stopped.
        by: String,
    },
    /// Too many async hooks were already running.
    AsyncCapReached,
    /// It comes from a project whose hooks were not trusted (or changed since).
    Untrusted,
    /// Hooks were suppressed for this emit (`--no-hooks`): nothing ran.
    Suppressed,
    /// Only hooks without side effects ran (a replay), and it did not declare it has none.
    SideEffects,
}

impl SkipReason {
    /// Whether the hook was meant for this event at all (only hooks on other events
    /// were never considered).
    pub fn considered(&self) -> bool {
        !matches!(self, SkipReason::OtherEvent)
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::OtherEvent => f.write_str("other event"),
            SkipReason::Matcher {
                pattern,
                subject,
                tool: Some(tool),
            } => write!(f, "matcher `{pattern}` did not match {subject} `{tool}`"),
            SkipReason::Matcher {
                pattern,
                subject,
                tool: None,
            } => {
                write!(
                    f,
                    "matcher `{pattern}` did not match (the event has no {subject})"
                )
            }
            SkipReason::Disabled => f.write_str("disabled"),
            SkipReason::ChainStopped { by } => write!(f, "chain stopped by {by}"),
            SkipReason::AsyncCapReached => f.write_str("too many async hooks in flight"),
            SkipReason::Untrusted => f.write_str("not trusted"),
            SkipReason::Suppressed => f.write_str("hooks suppressed"),
            SkipReason::SideEffects => f.write_str("may have side effects"),
        }
    }
}

/// One hook considered for one event.
#[derive(Debug, Clone, PartialEq)]
pub struct HookRecord {
    /// The hook's name.
    pub name: String,
    /// The file that declared it.
    pub source: PathBuf,
    /// That file's dialect.
    pub dialect: crate::Dialect,
    /// What came of it.
    pub result: HookResult,
    /// Why it did not run, when it did not.
    pub skip: Option<SkipReason>,
    /// Exit code of the process, when it exited.
    pub exit_code: Option<i32>,
    /// How long it ran.
    pub duration: Option<Duration>,
    /// Its reason (deny, ask) or the failure message.
    pub reason: Option<String>,
    /// Start of its stdout.
    pub stdout: Option<String>,
    /// Start of its stderr.
    pub stderr: Option<String>,
    /// Output was cut at its cap.
    pub truncated: bool,
    /// It ran in async mode.
    pub is_async: bool,
    /// Its answer in its dialect's own terms ([`crate::Verdict::answer`]), for the host
    /// mode of that dialect.
    pub answer: Option<serde_json::Value>,
    /// It is a shadow hook ([`crate::HookSpec::shadow`]): `result` and `reason` are what
    /// it would have decided, and nothing of it reached the event.
    pub shadow: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_result_has_one_name_in_rust_and_in_json() {
        let mut names: Vec<&str> = HookResult::ALL.iter().map(|r| r.as_str()).collect();
        for result in HookResult::ALL {
            let json = serde_json::to_value(result).expect("serializes");
            assert_eq!(json, serde_json::Value::from(result.as_str()));
            assert_eq!(
                serde_json::from_value::<HookResult>(json).expect("reads back"),
                result
            );
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), HookResult::ALL.len(), "names are distinct");
    }
}
