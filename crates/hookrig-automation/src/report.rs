//! Automations and their runs as the text `hookrig auto list|show|runs` and `hookrig
//! fire` print, so that every caller shows them as the command line does.

use std::fmt::Write as _;

use hookrig_store::AutomationRun;

use crate::definition::Automation;

/// The lines of `hookrig auto list`: id, state, project, trigger and name, tab-separated.
pub fn automations_table(automations: &[Automation]) -> String {
    if automations.is_empty() {
        return "no automations; add one with `hookrig auto add FILE`\n".to_owned();
    }
    let mut text = String::new();
    for a in automations {
        let _ = writeln!(
            text,
            "{}\t{}\t{}\t{}\t{}",
            a.id,
            match (&a.held, a.enabled) {
                (Some(_), _) => "held",
                (None, true) => "enabled",
                (None, false) => "disabled",
            },
            a.project_id,
            a.trigger.summary(),
            a.name
        );
    }
    text
}

/// What `hookrig auto show ID` prints: the automation's settings, then its prompt
/// template.
pub fn automation_details(a: &Automation) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "id: {}", a.id);
    let _ = writeln!(text, "name: {}", a.name);
    let _ = writeln!(text, "project: {}", a.project_id);
    let _ = writeln!(text, "enabled: {}", a.enabled);
    if let Some(reason) = &a.held {
        let _ = writeln!(text, "held: {reason}");
    }
    let _ = writeln!(text, "trigger: {}", a.trigger.summary());
    if a.trigger.skip_llm() {
        let _ = writeln!(text, "skip_llm: true");
    }
    let _ = writeln!(text, "cooldown: {}s", a.cooldown_seconds);
    if let Some(max) = a.max_tokens_per_run {
        let _ = writeln!(text, "max tokens per run: {max}");
    }
    let _ = writeln!(text, "context steps: {}", a.context_steps.len());
    let _ = writeln!(
        text,
        "tools: {} (at most {} rounds)",
        a.tools.offered().join(", "),
        a.tools.max_tool_rounds
    );
    if !a.tools.shell_allow.is_empty() {
        let _ = writeln!(text, "shell may run: {}", a.tools.shell_allow.join(", "));
    }
    if let Some(source) = &a.source {
        let _ = writeln!(text, "source: {source}");
    }
    let _ = writeln!(text, "prompt template:\n{}", a.prompt_template);
    text
}

/// The lines of `hookrig auto runs`: one per run, tab-separated, with its tool calls
/// counted and why it was skipped.
pub fn runs_table(runs: &[AutomationRun]) -> String {
    if runs.is_empty() {
        return "no runs\n".to_owned();
    }
    let mut text = String::new();
    for r in runs {
        let _ = write!(
            text,
            "{}\t{}\t{}\t{}\t{} tokens",
            r.id, r.automation_id, r.status, r.trigger_reason, r.tokens_used
        );
        let calls = calls_of(r).len();
        if calls > 0 {
            let _ = write!(
                text,
                "\t{calls} tool call{}",
                if calls == 1 { "" } else { "s" }
            );
        }
        // Why a run (or an event not run) was skipped, on its line.
        match &r.skipped_reason {
            Some(reason) => {
                let _ = writeln!(text, "\t{reason}");
            }
            None => text.push('\n'),
        }
    }
    text
}

/// What `hookrig fire ID` prints of the run: its status, its tool calls and the
/// model's answer.
pub fn run_details(r: &AutomationRun) -> String {
    let mut text = format!(
        "run {} of {}: {} ({})\n",
        r.id, r.automation_id, r.status, r.trigger_reason
    );
    if let Some(reason) = &r.skipped_reason {
        let _ = writeln!(text, "skipped: {reason}");
    }
    text.push_str(&tool_calls(r, 0));
    if let Some(response) = &r.llm_response {
        let _ = writeln!(text, "{response}");
    }
    text
}

/// The tool calls of a run (`actions_taken`), empty when it made none.
fn calls_of(r: &AutomationRun) -> &[serde_json::Value] {
    r.actions_taken
        .as_ref()
        .and_then(serde_json::Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// One line per tool call of `r` from the `from`-th on: its number, the tool, its
/// arguments, how it ended and how long it took.
pub fn tool_calls(r: &AutomationRun, from: usize) -> String {
    let mut text = String::new();
    for (n, call) in calls_of(r).iter().enumerate().skip(from) {
        let field = |key: &str| call.get(key).cloned().unwrap_or_default();
        let ended = match call.get("error").and_then(serde_json::Value::as_str) {
            Some(error) => format!("error: {error}"),
            None => "ok".to_owned(),
        };
        let _ = writeln!(
            text,
            "  🔧 {} {}. {} {} → {ended} ({} ms)",
            r.id,
            n + 1,
            field("name").as_str().unwrap_or("?"),
            field("arguments"),
            field("duration_ms"),
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use hookrig_store::RunStatus;
    use serde_json::json;

    use super::*;

    fn run(actions: Option<serde_json::Value>) -> AutomationRun {
        AutomationRun {
            id: "r1".to_owned(),
            automation_id: "triage".to_owned(),
            project_id: "p".to_owned(),
            trigger_reason: "event tool.after".to_owned(),
            status: RunStatus::Completed,
            event_data: None,
            context_results: None,
            prompt_sent: None,
            llm_response: Some("done".to_owned()),
            actions_taken: actions,
            skipped_reason: None,
            tokens_used: 12,
            started_at: 0.0,
            completed_at: None,
        }
    }

    #[test]
    fn a_run_lists_its_tool_calls_from_the_one_asked_for() {
        let run = run(Some(json!([
            {"name": "read_file", "arguments": {"path": "a"}, "duration_ms": 3},
            {"name": "shell", "arguments": {"cmd": "ls"}, "error": "denied", "duration_ms": 1},
        ])));
        assert_eq!(
            runs_table(std::slice::from_ref(&run)),
            "r1\ttriage\tcompleted\tevent tool.after\t12 tokens\t2 tool calls\n"
        );
        assert_eq!(
            tool_calls(&run, 1),
            "  🔧 r1 2. shell {\"cmd\":\"ls\"} → error: denied (1 ms)\n"
        );
        assert_eq!(
            run_details(&run),
            "run r1 of triage: completed (event tool.after)\n  \
             🔧 r1 1. read_file {\"path\":\"a\"} → ok (3 ms)\n  \
             🔧 r1 2. shell {\"cmd\":\"ls\"} → error: denied (1 ms)\n\
             done\n"
        );
    }

    #[test]
    fn no_runs_and_no_automations_say_so() {
        assert_eq!(runs_table(&[]), "no runs\n");
        assert_eq!(
            automations_table(&[]),
            "no automations; add one with `hookrig auto add FILE`\n"
        );
    }
}
