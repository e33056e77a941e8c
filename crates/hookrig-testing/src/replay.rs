//! `hookrig replay`: the emits the ledger recorded, emitted again against today's config
//! in a [`Sandbox`], and the decisions that would change, with the hook that changed
//! each.
//!
//! An emit is replayed from what the ledger keeps of it: its event, the canonical
//! payload it came with (so it is replayed as a `native` emit), its directory and its
//! agent. Emits that did not end in a decision (an error, a stop, one still running)
//! are left out. Only the hooks that declared they have no side effects
//! (`side_effects = false`) run, unless the caller allows side effects: the others are
//! reported as not replayed, and an emit that one of them decided cannot be compared.

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
    /// Run every hook, whatever it does besides answering; otherwise only those that
    /// declared they have no side effects.
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
    /// The hooks of today's config not run because they may have side effects.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_replayed: Vec<String>,
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
    /// Every hook some emit did not run because it may have side effects, by name.
    pub not_replayed: Vec<String>,
}

/// Replays the emits of `ledger` that `options` selects in `sandbox`.
pub fn replay(
    ledger: &Store,
    sandbox: &Sandbox,
    options: &ReplayOptions,
) -> Result<Replay, TestingError> {
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
        let replayed = replay_one(&detail.emit, sandbox, options.allow_side_effects);
        let took_part = |hook: &str| {
            detail.emit.hooks.iter().any(|run| run.name == hook)
                || replayed.changed_by.as_deref() == Some(hook)
        };
        if options.hook.as_deref().is_none_or(took_part) {
            runs.push(replayed);
        }
    }
    let mut not_replayed: Vec<String> = runs
        .iter()
        .flat_map(|run| run.not_replayed.iter().cloned())
        .collect();
    not_replayed.sort();
    not_replayed.dedup();
    Ok(Replay {
        replayed: runs.len(),
        changed: runs.iter().filter(|run| run.changed).count(),
        runs,
        not_replayed,
    })
}

fn replay_one(emit: &EmitRecord, sandbox: &Sandbox, side_effects: bool) -> Replayed {
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
        not_replayed: Vec::new(),
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
    match sandbox.replay(&case, side_effects) {
        Ok(actual) => {
            replayed.not_replayed = actual.held;
            let today = Decision {
                decision: actual.decision,
                decided_by: actual.decided_by,
                reason: actual.reason,
            };
            replayed.changed = today.decision != replayed.recorded.decision
                || today.decided_by != replayed.recorded.decided_by;
            // The hook that decided then was not run: whatever today says, it is not
            // what that hook would say today.
            if let Some(by) = replayed
                .recorded
                .decided_by
                .as_ref()
                .filter(|by| replayed.not_replayed.contains(by))
            {
                replayed.error = Some(format!(
                    "it was decided by {by}, which may have side effects (--allow-side-effects runs it)"
                ));
                replayed.changed = false;
            }
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
        if !self.not_replayed.is_empty() {
            let _ = writeln!(
                text,
                "not replayed, as they may have side effects (declare `side_effects = false`, or pass --allow-side-effects): {}",
                self.not_replayed.join(", ")
            );
        }
        text
    }
}
