//! The plain data the ledger stores and returns.
//!
//! These types deliberately hold `String`s rather than the typed values of
//! `hookrig-core`: the store must not depend on other hookrig crates, and a
//! ledger written by one version of hookrig has to stay readable by the next
//! even when an event or verdict gains a new spelling.

use serde::{Deserialize, Serialize};

/// One `hookrig emit`: the event that came in, what was decided, and every
/// hook that was considered for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmitRecord {
    /// Unique id of this emit (a UUID v7 in practice, but any unique string works).
    pub run_id: String,
    /// When the emit started, in milliseconds since the Unix epoch.
    pub started_at_ms: i64,
    /// Canonical name of the event (for example `PreToolUse`).
    pub event: String,
    /// Dialect of the agent that emitted the event (for example `claude`).
    pub dialect: String,
    /// Working directory of the emit.
    pub cwd: String,
    /// Session id reported by the agent.
    pub session_id: String,
    /// The agent that emitted (`hookrig emit --agent`, `HOOKRIG_AGENT` or the
    /// payload's `session.agent`), when one was named.
    #[serde(default)]
    pub agent: Option<String>,
    /// Final decision (`allow`, `deny`, `ask`, ...).
    pub decision: String,
    /// Why the decision was taken, when a hook or policy said so.
    pub reason: Option<String>,
    /// Name of the hook whose answer decided, if one did.
    pub decided_by: Option<String>,
    /// Wall-clock duration of the whole emit, in milliseconds.
    pub duration_ms: f64,
    /// Payload received from the agent, as JSON text.
    pub payload_in: String,
    /// Payload answered to the agent, as JSON text.
    pub payload_out: String,
    /// Warnings raised while handling the emit (config warnings, bad hook output, ...).
    pub warnings: Vec<String>,
    /// Every hook considered for this emit, in the order it was considered.
    pub hooks: Vec<HookRun>,
}

/// One hook considered for an emit: run, skipped, or failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookRun {
    /// Name of the hook.
    pub name: String,
    /// Path of the file that declared the hook.
    pub source: String,
    /// Dialect the hook speaks.
    pub dialect: String,
    /// Whether the hook matched the event.
    pub matched: bool,
    /// Why the hook was not run, for example `other event`,
    /// `matcher did not match "tool"`, `disabled` or `chain stopped by guard`.
    pub skip_reason: Option<String>,
    /// Outcome: `allow`, `deny`, `ask`, `modify`, `error`, `timeout`,
    /// `skipped` or `untrusted`.
    pub result: String,
    /// Exit code of the hook process, if it ran and exited normally.
    pub exit_code: Option<i32>,
    /// How long the hook ran, in milliseconds, if it ran.
    pub duration_ms: Option<f64>,
    /// Reason the hook gave for its answer.
    pub reason: Option<String>,
    /// Excerpt of the hook's standard error.
    pub stderr: Option<String>,
    /// Excerpt of the hook's standard output.
    pub stdout: Option<String>,
    /// Whether `stdout` or `stderr` was cut to fit the excerpt size.
    pub truncated: bool,
    /// Whether the hook ran asynchronously (its row may be appended after the emit).
    pub is_async: bool,
}

/// Which emits [`Ledger::recent_emits`](crate::Ledger::recent_emits) returns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmitFilter {
    /// Maximum number of emits returned. `0` returns none; pass `usize::MAX`
    /// for all of them.
    pub limit: usize,
    /// Only emits of this event (exact canonical name), or all events when `None`.
    pub event: Option<String>,
    /// Only emits of this agent (exact name), or those of any agent or none when `None`.
    #[serde(default)]
    pub agent: Option<String>,
}

impl EmitFilter {
    /// The limit of [`EmitFilter::default`]: what fits on a screen.
    pub const DEFAULT_LIMIT: usize = 20;
}

impl Default for EmitFilter {
    fn default() -> Self {
        Self {
            limit: Self::DEFAULT_LIMIT,
            event: None,
            agent: None,
        }
    }
}

/// One line of `hookrig runs`: an emit without its payloads and hook rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmitSummary {
    /// Unique id of the emit.
    pub run_id: String,
    /// When the emit started, in milliseconds since the Unix epoch.
    pub started_at_ms: i64,
    /// Canonical name of the event.
    pub event: String,
    /// The agent that emitted, when one was named.
    #[serde(default)]
    pub agent: Option<String>,
    /// Final decision.
    pub decision: String,
    /// Name of the hook whose answer decided, if one did.
    pub decided_by: Option<String>,
    /// Why the decision was taken, if known.
    pub reason: Option<String>,
    /// Wall-clock duration of the whole emit, in milliseconds.
    pub duration_ms: f64,
    /// Number of hooks that matched the event (hook rows with `matched = true`),
    /// including asynchronous hooks appended later.
    pub hooks_run: u32,
    /// Working directory of the emit.
    pub cwd: String,
}

/// What `hookrig why RUN_ID` shows: a whole emit.
///
/// A wrapper rather than a bare [`EmitRecord`] so that facts only known when
/// reading back (none yet) can be added without changing
/// [`EmitRecord`], which is also the type written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmitDetail {
    /// The emit, with [`EmitRecord::hooks`] holding every hook row in `seq`
    /// order: first those recorded with the emit, then appended ones.
    pub emit: EmitRecord,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_filter_shows_twenty_of_every_event() {
        assert_eq!(
            EmitFilter::default(),
            EmitFilter {
                limit: 20,
                event: None,
                agent: None
            }
        );
    }

    #[test]
    fn hook_run_round_trips_through_json() {
        let run = HookRun {
            name: "fmt".to_owned(),
            source: "/repo/.hookrig.toml".to_owned(),
            dialect: "claude".to_owned(),
            matched: true,
            skip_reason: None,
            result: "allow".to_owned(),
            exit_code: Some(0),
            duration_ms: Some(1.5),
            reason: None,
            stderr: Some(String::new()),
            stdout: None,
            truncated: false,
            is_async: false,
        };
        let json = serde_json::to_string(&run).expect("a HookRun always serializes");
        let back: HookRun = serde_json::from_str(&json).expect("just serialized");
        assert_eq!(back, run);
    }
}
