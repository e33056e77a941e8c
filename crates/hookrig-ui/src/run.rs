//! A run's page: what `hookrig why RUN` prints (every hook considered, matched or why
//! not, its answer, stderr and time), with the payload before and after as a diff.

use axum::extract::{Path, State};
use hookrig_store::{EmitRecord, HookRun};
use maud::{Markup, html};

use crate::dashboard::Dashboard;
use crate::diff;
use crate::errors::UiError;
use crate::layout::{self, badge};

pub(crate) async fn page(
    State(dashboard): State<Dashboard>,
    Path(id): Path<String>,
) -> Result<Markup, UiError> {
    let wanted = id.trim().to_ascii_lowercase();
    let reader = dashboard.clone();
    let detail = crate::dashboard::blocking(move || {
        let mut found = reader.read_ledger(|ledger| Ok(ledger.detail(&wanted)?))?;
        // With a shared ledger, an emit answered with no engine is in this machine's file.
        if let (None, Some(path)) = (&found, reader.local_ledger()) {
            found = hookrig_runtime::ledger::open_for_reading(&path)?
                .emits()
                .detail(&wanted)?;
        }
        found.ok_or_else(|| UiError::NotFound(format!("no run {wanted} in the ledger")))
    })
    .await?;
    let emit = &detail.emit;
    let body = html! {
        h1 { "Run " span.mono { (emit.run_id) } }
        (facts(emit))
        h2 { "Hooks considered" }
        @if emit.hooks.is_empty() {
            p.empty { "No hooks are configured for this event." }
        } @else {
            table #hooks {
                thead { tr { th { "hook" } th { "dialect" } th { "source" } th { "ran?" } th { "result" } th.num { "exit" } th.num { "ms" } th { "reason" } th { "stderr" } } }
                tbody { @for hook in &emit.hooks { (hook_row(hook)) } }
            }
        }
        h2 { "Payload" }
        @match diff::diff(&emit.payload_in, &emit.payload_out) {
            None => {
                p { "The hooks did not change the payload." }
                pre.json { (diff::pretty(&emit.payload_in)) }
            }
            Some(lines) => {
                p { "Before (−) and after (+) the hooks:" }
                pre.json.diff #payload-diff { (diff::markup(&lines)) }
            }
        }
    };
    Ok(layout::page("Run", "/runs", &body))
}

fn facts(emit: &EmitRecord) -> Markup {
    html! {
        dl.facts {
            dt { "time" } dd { (layout::time(emit.started_at_ms)) " UTC" }
            dt { "event" } dd { (emit.event) }
            dt { "dialect" } dd { (emit.dialect.as_str()) }
            dt { "cwd" } dd.mono { (emit.cwd) }
            @if !emit.session_id.is_empty() { dt { "session" } dd { (emit.session_id) } }
            @if let Some(agent) = &emit.agent { dt { "agent" } dd { (agent) } }
            dt { "decision" }
            dd #decision {
                (badge(emit.decision.as_str()))
                @if let Some(by) = &emit.decided_by { " by " b { (by) } }
                @if let Some(reason) = &emit.reason { ": " (reason) }
                " (" (format!("{:.1}", emit.duration_ms)) " ms)"
            }
            @if emit.by_engine { dt { "answered" } dd { "by the engine (hookrig serve)" } }
            @for warning in &emit.warnings { dt { "warning" } dd.warning { (warning) } }
        }
    }
}

fn hook_row(hook: &HookRun) -> Markup {
    let ran = if !hook.matched {
        hook.skip_reason
            .clone()
            .unwrap_or_else(|| "did not match".to_owned())
    } else if let Some(skip) = &hook.skip_reason {
        format!("not run: {skip}")
    } else if hook.is_async {
        "ran (async)".to_owned()
    } else {
        "ran".to_owned()
    };
    html! {
        tr data-hook=(hook.name) {
            td { b { (hook.name) } @if hook.shadow { " " span.tag { "shadow" } } }
            td { (hook.dialect.as_str()) }
            td.mono.path { (hook.source) }
            td { (ran) }
            td { (badge(hook.result.as_str())) }
            td.num { @if let Some(code) = hook.exit_code { (code) } }
            td.num { @if let Some(ms) = hook.duration_ms { (format!("{ms:.1}")) } }
            td { (hook.reason.as_deref().unwrap_or("")) }
            td { @if let Some(stderr) = hook.stderr.as_deref().filter(|s| !s.trim().is_empty()) { pre.stderr { (stderr) } } }
        }
    }
}
