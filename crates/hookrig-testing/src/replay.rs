//! `hookrig replay`: the emits the ledger recorded, emitted again against today's config
//! in a [`Sandbox`], and the decisions that would change, with the hook that changed
//! each.
//!
//! An emit is replayed from what the ledger keeps of it: its event, the canonical
//! payload it came with (so it is replayed as a `native` emit), its directory and its
//! agent. Emits that did not end in a decision (an error, a stop, one still running)
//! are left out. Hooks cannot yet declare that they have no side effects, and a replay
//! runs every hook of today's config: it is refused unless the caller allows side
//! effects.

use std::path::PathBuf;

use hookrig_core::Dialect;
use hookrig_store::{EmitDecision, EmitRecord, Store};
use serde::Serialize;

use crate::case::{Case, Expect};
use crate::errors::TestingError;
use crate::sandbox::Sandbox;

/// Which recorded emits to replay.
#[derive(Debug, Clone, Default)]
pub struct ReplayOptions {
    /// Only emits that started at or after this time (milliseconds since the epoch).
    pub since_ms: i64,
    /// Only emits of this event (any spelling).
    pub event: Option<String>,
    /// Only emits this hook took part in, then or today.
    pub hook: Option<String>,
    /// At most this many emits, newest first.
    pub limit: usize,
    /// Run every hook, whatever it does besides answering.
    pub allow_side_effects: bool,
}

/// A decision: recorded, or today's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decision {
    /// `allow`, `deny` or `ask`.
    pub decision: String,
    /// The hook that denied or asked.
    pub decided_by: Option<String>,
    /// Its reason.
    pub reason: Option<String>,
}

/// One recorded emit, replayed.
#[derive(Debug, Clone, Serialize)]
pub struct Replayed {
    /// Its run id in the ledger.
    pub run_id: String,
    /// The event.
    pub event: String,
    /// What was decided then.
    pub recorded: Decision,
    /// What today's config decides; `None` when the replay failed.
    pub today: Option<Decision>,
    /// Whether the decision (or the hook that made it) changed.
    pub changed: bool,
    /// The hook the change comes from: the one that decides today, else the one that
    /// decided then and no longer does.
    pub changed_by: Option<String>,
    /// Why it could not be replayed.
    pub error: Option<String>,
}

/// What a replay found.
#[derive(Debug, Clone, Serialize)]
pub struct Replay {
    /// Emits replayed.
    pub replayed: usize,
    /// Of those, the ones whose decision would change.
    pub changed: usize,
    /// Each emit replayed, newest first.
    pub runs: Vec<Replayed>,
}

/// Replays the emits of `ledger` that `options` selects in `sandbox`.
pub fn replay(
    ledger: &Store,
    sandbox: &Sandbox,
    options: &ReplayOptions,
) -> Result<Replay, TestingError> {
    if !options.allow_side_effects {
        return Err(TestingError::SideEffects);
    }
    let summaries = hookrig_runtime::ledger::recent(
        ledger,
        options.limit,
        options.event.as_deref(),
        None,
        false,
    )?;
    let mut runs = Vec::new();
    for summary in summaries {
        if summary.started_at_ms < options.since_ms
            || !matches!(
                summary.decision,
                EmitDecision::Allow | EmitDecision::Deny | EmitDecision::Ask
            )
        {
            continue;
        }
        let Some(detail) = ledger.emits().detail(&summary.run_id)? else {
            continue;
        };
        let replayed = replay_one(&detail.emit, sandbox);
        let took_part = |hook: &str| {
            detail.emit.hooks.iter().any(|run| run.name == hook)
                || replayed.changed_by.as_deref() == Some(hook)
        };
        if options.hook.as_deref().is_none_or(took_part) {
            runs.push(replayed);
        }
    }
    Ok(Replay {
        replayed: runs.len(),
        changed: runs.iter().filter(|run| run.changed).count(),
        runs,
    })
}

fn replay_one(emit: &EmitRecord, sandbox: &Sandbox) -> Replayed {
    let recorded = Decision {
        decision: emit.decision.as_str().to_owned(),
        decided_by: emit.decided_by.clone(),
        reason: emit.reason.clone(),
    };
    let mut replayed = Replayed {
        run_id: emit.run_id.clone(),
        event: emit.event.clone(),
        recorded,
        today: None,
        changed: false,
        changed_by: None,
        error: None,
    };
    let payload = match serde_json::from_str(&emit.payload_in) {
        Ok(payload) => payload,
        Err(err) => {
            replayed.error = Some(format!("its recorded payload is not JSON: {err}"));
            return replayed;
        }
    };
    let cwd = PathBuf::from(&emit.cwd);
    if !cwd.is_dir() {
        replayed.error = Some(format!("its directory {} is gone", emit.cwd));
        return replayed;
    }
    let case = Case {
        id: emit.run_id.clone(),
        file: PathBuf::new(),
        line: 0,
        col: 0,
        event: emit.event.clone(),
        dialect: Dialect::Native,
        payload,
        cwd,
        env: Vec::new(),
        agent: emit.agent.clone(),
        expect: Expect::default(),
    };
    match sandbox.emit(&case) {
        Ok(actual) => {
            let today = Decision {
                decision: actual.decision,
                decided_by: actual.decided_by,
                reason: actual.reason,
            };
            replayed.changed = today.decision != replayed.recorded.decision
                || today.decided_by != replayed.recorded.decided_by;
            if replayed.changed {
                replayed.changed_by = today
                    .decided_by
                    .clone()
                    .or_else(|| replayed.recorded.decided_by.clone());
            }
            replayed.today = Some(today);
        }
        Err(error) => replayed.error = Some(error),
    }
    replayed
}

impl Replay {
    /// The text `hookrig replay` prints: each decision that would change, then a count.
    pub fn text(&self) -> String {
        use std::fmt::Write;
        let mut text = String::new();
        for run in &self.runs {
            if let Some(error) = &run.error {
                let _ = writeln!(
                    text,
                    "{}  {:18}  not replayed: {error}",
                    run.run_id, run.event
                );
            }
            let Some(today) = run.today.as_ref().filter(|_| run.changed) else {
                continue;
            };
            let _ = writeln!(
                text,
                "{}  {:18}  {} -> {}  by {}",
                run.run_id,
                run.event,
                run.recorded.decision,
                today.decision,
                run.changed_by.as_deref().unwrap_or("-")
            );
        }
        let _ = writeln!(
            text,
            "{} emit{} replayed, {} decision{} would change",
            self.replayed,
            if self.replayed == 1 { "" } else { "s" },
            self.changed,
            if self.changed == 1 { "" } else { "s" }
        );
        text
    }
}
