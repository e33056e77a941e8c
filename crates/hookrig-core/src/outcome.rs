//! The Outcome: what `hookrig emit` prints for the host. Its field names are a contract.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::dispatcher::Dispatched;
use crate::record::HookRecord;

/// The Outcome JSON object (wire type, kept apart from [`Dispatched`]).
#[derive(Debug, Clone, Serialize)]
pub struct Outcome<'a> {
    /// Canonical event name.
    pub event: &'a str,
    /// `allow`, `deny` or `ask`.
    pub decision: &'static str,
    /// Reason of the deny or ask.
    pub reason: Option<&'a str>,
    /// The hook that denied or asked.
    pub decided_by: Option<&'a str>,
    /// Whether a hook stopped the agent (`null` when none did): a stop wins over the
    /// decision, which is kept for the record.
    pub stop: Option<OutcomeStop<'a>>,
    /// The final payload.
    pub payload: &'a Map<String, Value>,
    /// Collected context.
    pub context: &'a [String],
    /// Collected system-prompt additions.
    pub system_prompt_append: &'a [String],
    /// One record per hook considered for this event.
    pub hooks: Vec<OutcomeHook<'a>>,
    /// Warnings.
    pub warnings: &'a [String],
    /// The ledger id of this emit.
    pub run_id: &'a str,
}

/// A stop in the Outcome: `{"reason": "...", "by": "hook"}`.
#[derive(Debug, Clone, Serialize)]
pub struct OutcomeStop<'a> {
    /// The stopping hook's reason, `null` when it gave none.
    pub reason: Option<&'a str>,
    /// The first hook that stopped the agent.
    pub by: &'a str,
}

/// One hook in the Outcome.
#[derive(Debug, Clone, Serialize)]
pub struct OutcomeHook<'a> {
    /// Hook name.
    pub name: &'a str,
    /// Absolute path of the file that declared it.
    pub source: String,
    /// Dialect of that file.
    pub dialect: &'a str,
    /// What came of it.
    pub result: &'static str,
    /// Exit code, when its process exited.
    pub exit_code: Option<i32>,
    /// Duration in milliseconds, when it ran.
    pub duration_ms: Option<f64>,
    /// A shadow hook: `result` is what it would have decided, and it decided nothing.
    /// Left out for the other hooks.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub shadow: bool,
}

impl<'a> Outcome<'a> {
    /// Builds the wire view of a dispatch. Hooks that listen to other events are left
    /// out (the ledger keeps them).
    pub fn new(dispatched: &'a Dispatched, warnings: &'a [String], run_id: &'a str) -> Self {
        Outcome {
            event: dispatched.event.as_str(),
            decision: dispatched.decision.as_str(),
            reason: dispatched.reason.as_deref(),
            decided_by: dispatched.decided_by.as_deref(),
            stop: dispatched.stop.as_ref().map(|stop| OutcomeStop {
                reason: stop.reason.as_deref(),
                by: &stop.by,
            }),
            payload: dispatched.payload.as_map(),
            context: &dispatched.context,
            system_prompt_append: &dispatched.system_prompt_append,
            hooks: dispatched
                .records
                .iter()
                .filter(|r| {
                    r.skip
                        .as_ref()
                        .is_none_or(super::record::SkipReason::considered)
                })
                .map(OutcomeHook::from_record)
                .collect(),
            warnings,
            run_id,
        }
    }
}

impl<'a> OutcomeHook<'a> {
    fn from_record(record: &'a HookRecord) -> Self {
        OutcomeHook {
            name: &record.name,
            source: record.source.display().to_string(),
            dialect: record.dialect.as_str(),
            result: record.result.as_str(),
            exit_code: record.exit_code,
            duration_ms: record.duration.map(duration_ms),
            shadow: record.shadow,
        }
    }
}

/// Milliseconds with microsecond precision, as the Outcome and the ledger print them.
pub fn duration_ms(duration: std::time::Duration) -> f64 {
    (duration.as_secs_f64() * 1_000_000.0).round() / 1000.0
}
