//! The ledger's emits as the text `hookrig runs` and `hookrig why` print, so that
//! every caller shows a run as the command line does.

use std::fmt::Write as _;

use hookrig_store::{EmitRecord, EmitSummary, utc_text};

/// The table of `hookrig runs`. The AGENT column appears only when a listed emit
/// names an agent, as wide as the longest name: ledgers of hosts that never name one
/// keep the table they always had. Likewise SHADOW, the shadow hooks that disagreed,
/// appears only when one did.
pub fn runs_table(emits: &[EmitSummary]) -> String {
    let shadows = emits.iter().any(|emit| !emit.shadow_disagreed.is_empty());
    let agent_width = emits
        .iter()
        .filter_map(|emit| emit.agent.as_deref())
        .map(|agent| agent.chars().count().max("AGENT".len()))
        .max();
    let agent_cell = |agent: &str| match agent_width {
        Some(width) => format!("{agent:width$}  "),
        None => String::new(),
    };
    let decided_by_width = emits
        .iter()
        .filter_map(|emit| emit.decided_by.as_deref())
        .map(|by| by.chars().count())
        .fold("DECIDED BY".len(), usize::max);
    let last = |decided_by: &str, shadow: &str| {
        if shadows {
            format!("{decided_by:decided_by_width$}  {shadow}")
        } else {
            decided_by.to_owned()
        }
    };
    let mut text = format!(
        "{:36}  {:20}  {:18}  {}{:8}  {:>5}  {:>9}  {}\n",
        "RUN",
        "TIME (UTC)",
        "EVENT",
        agent_cell("AGENT"),
        "DECISION",
        "HOOKS",
        "MS",
        last("DECIDED BY", "SHADOW DISAGREED"),
    );
    for emit in emits {
        let line = format!(
            "{:36}  {:20}  {:18}  {}{:8}  {:>5}  {:>9.1}  {}",
            emit.run_id,
            utc_text(emit.started_at_ms),
            emit.event,
            agent_cell(emit.agent.as_deref().unwrap_or("-")),
            emit.decision,
            emit.hooks_run,
            emit.duration_ms,
            last(
                emit.decided_by.as_deref().unwrap_or("-"),
                &emit.shadow_disagreed.join(", ")
            ),
        );
        let _ = writeln!(text, "{}", line.trim_end());
    }
    text
}

/// The text of `hookrig why RUN`: the emit, then each hook it considered, what it did
/// and the start of what it printed.
pub fn why_text(emit: &EmitRecord) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "run       {}", emit.run_id);
    let _ = writeln!(text, "time      {} UTC", utc_text(emit.started_at_ms));
    let _ = writeln!(text, "event     {}", emit.event);
    let _ = writeln!(text, "cwd       {}", emit.cwd);
    if !emit.session_id.is_empty() {
        let _ = writeln!(text, "session   {}", emit.session_id);
    }
    if let Some(agent) = &emit.agent {
        let _ = writeln!(text, "agent     {agent}");
    }
    let _ = write!(text, "decision  {}", emit.decision);
    if let Some(by) = &emit.decided_by {
        let _ = write!(text, " by {by}");
    }
    if let Some(reason) = &emit.reason {
        let _ = write!(text, ": {reason}");
    }
    let _ = writeln!(text, " ({:.1} ms)", emit.duration_ms);
    if emit.by_engine {
        let _ = writeln!(text, "answered  by the engine (hookrig serve)");
    }
    for warning in &emit.warnings {
        let _ = writeln!(text, "warning   {warning}");
    }
    if emit.hooks.is_empty() {
        text.push_str("\nno hooks are configured\n");
    }
    for hook in &emit.hooks {
        let _ = write!(text, "\n{} ({}, {})", hook.name, hook.dialect, hook.source);
        text.push_str(if hook.shadow { " shadow\n" } else { "\n" });
        if let (true, Some(skip)) = (hook.matched, &hook.skip_reason) {
            let _ = writeln!(text, "  not run   {skip}");
        } else if hook.matched {
            let _ = write!(text, "  ran       {}", hook.result.as_str());
            if hook.is_async {
                text.push_str(" (async)");
            }
            if let Some(code) = hook.exit_code {
                let _ = write!(text, ", exit {code}");
            }
            if let Some(ms) = hook.duration_ms {
                let _ = write!(text, ", {ms:.1} ms");
            }
            if hook.truncated {
                text.push_str(", output truncated");
            }
            text.push('\n');
        } else {
            let _ = writeln!(
                text,
                "  skipped   {}",
                hook.skip_reason.as_deref().unwrap_or("did not match")
            );
        }
        if let Some(reason) = &hook.reason {
            let _ = writeln!(text, "  reason    {reason}");
        }
        if let (true, Some(would)) = (hook.shadow, hook.would_decide()) {
            let verdict = if hook.shadow_disagrees(emit.decision) {
                "disagrees"
            } else {
                "agrees"
            };
            let _ = writeln!(
                text,
                "  shadow    would have decided {would}; the emit decided {}: {verdict}",
                emit.decision
            );
        }
        // What the hook printed: a Hence hook's only output is its lines, and a
        // failing hook's stderr says why.
        if let Some(stdout) = hook.stdout.as_deref().filter(|s| !s.trim().is_empty()) {
            let _ = writeln!(text, "  stdout    {}", excerpt(stdout));
        }
        if let Some(stderr) = hook.stderr.as_deref().filter(|s| !s.trim().is_empty()) {
            let _ = writeln!(text, "  stderr    {}", excerpt(stderr));
        }
    }
    text
}

/// How many lines of a hook's stdout or stderr the text of `why` shows.
const EXCERPT_LINES: usize = 10;

/// The first lines of a hook's output, indented under its record, and how many more
/// `--json` has.
fn excerpt(text: &str) -> String {
    let all: Vec<&str> = text.trim_end().lines().collect();
    let mut shown = all[..all.len().min(EXCERPT_LINES)].join("\n            ");
    if all.len() > EXCERPT_LINES {
        let _ = write!(
            shown,
            "\n            ... {} more lines (--json shows all that was kept)",
            all.len() - EXCERPT_LINES
        );
    }
    shown
}
