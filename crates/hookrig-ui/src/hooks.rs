//! The Hooks page: every hook of every dialect and source (`hookrig list`), its trust
//! (for a hook not trusted, what changed since it was: a diff of its definition and
//! script as trusted and as they are now), and `hookrig explain` for an event and tool
//! typed into a form; and the trust action (`hookrig trust`), a POST.

use axum::Form;
use axum::extract::{Query, State};
use axum::response::Redirect;
use hookrig_config::{Distrust, ScriptText};
use hookrig_runtime::trust::Review;
use hookrig_runtime::{Explanation, ListedHook, Select};
use maud::{Markup, html};
use serde::Deserialize;

use crate::auth::check_csrf;
use crate::dashboard::{Dashboard, blocking};
use crate::diff;
use crate::errors::UiError;
use crate::layout::{self, badge, csrf_field};

/// The explain form.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct ExplainForm {
    event: String,
    tool: String,
}

/// The trust form.
#[derive(Debug, Deserialize)]
pub(crate) struct TrustForm {
    csrf: String,
}

/// One hook as the page shows it: what `hookrig list --json` gives, owned.
struct Shown {
    name: String,
    source: String,
    dialect: &'static str,
    events: String,
    matcher: String,
    timeout: String,
    on_error: &'static str,
    mode: &'static str,
    trust: &'static str,
    untrusted_because: Option<String>,
    command: String,
    description: Option<String>,
}

impl From<ListedHook<'_>> for Shown {
    fn from(hook: ListedHook<'_>) -> Self {
        Shown {
            name: hook.name.to_owned(),
            source: hook.source,
            dialect: hook.dialect,
            events: hook.events.join(", "),
            matcher: hook.matcher,
            timeout: hook.timeout.unwrap_or_else(|| "none".to_owned()),
            on_error: hook.on_error,
            mode: hook.mode,
            trust: hook.trust,
            untrusted_because: hook.untrusted_because.map(str::to_owned),
            command: hook.command,
            description: hook.description.map(str::to_owned),
        }
    }
}

pub(crate) async fn page(
    State(dashboard): State<Dashboard>,
    Query(form): Query<ExplainForm>,
) -> Result<Markup, UiError> {
    let scope = dashboard.scope().clone();
    let event = Some(form.event.trim().to_owned()).filter(|e| !e.is_empty());
    let tool = Some(form.tool.trim().to_owned()).filter(|t| !t.is_empty());
    let (hooks, reviews, skipped, explanation) = blocking(move || {
        let options = scope.load_options(&[])?;
        let listing = hookrig_runtime::list(&scope, Select::All, &options)?;
        let untrusted = listing
            .hooks
            .iter()
            .filter(|def| def.spec.untrusted.is_some());
        let reviews = hookrig_runtime::trust::review(&scope, untrusted)?;
        let hooks: Vec<Shown> = listing
            .hooks
            .iter()
            .map(|def| ListedHook::new(def).into())
            .collect();
        let skipped: Vec<String> = listing.skipped.iter().map(ToString::to_string).collect();
        let explanation = match &event {
            Some(event) => Some(hookrig_runtime::explain(
                &scope,
                event,
                tool.as_deref(),
                &options,
            )?),
            None => None,
        };
        Ok((hooks, reviews, skipped, explanation))
    })
    .await?;
    let untrusted = hooks.iter().filter(|h| h.trust == "untrusted").count();
    let body = html! {
        h1 { "Hooks" }
        @for error in &skipped { p.error { (error) } }
        @if untrusted > 0 {
            section.trust #untrusted {
                h2 { (untrusted) " project hook(s) not trusted" }
                p { "They are listed and reported, never run. Below is what changed in each since it was trusted (−: as trusted, +: now); trusting records the project as it is, as " code { "hookrig trust" } " does." }
                @for hook in hooks.iter().filter(|h| h.trust == "untrusted") {
                    div.untrusted data-hook=(hook.name) {
                        b { (hook.name) } " " span.mono { (hook.source) }
                        @if let Some(why) = &hook.untrusted_because { p { (why) } }
                        pre.command { (hook.command) }
                        @if let Some(review) = reviews.iter().find(|r| r.name == hook.name && r.source.display().to_string() == hook.source) {
                            (reviewed(review))
                        }
                    }
                }
                form method="post" action="/hooks/trust" {
                    (csrf_field(dashboard.csrf()))
                    button #trust type="submit" { "Trust these hooks" }
                }
            }
        }
        @if hooks.is_empty() {
            p.empty { "No hooks are configured." }
        } @else {
            table #hooklist {
                thead { tr { th { "hook" } th { "dialect" } th { "source" } th { "events" } th { "matcher" } th { "mode" } th { "timeout" } th { "on error" } th { "trust" } } }
                tbody {
                    @for hook in &hooks {
                        tr data-hook=(hook.name) {
                            td { b { (hook.name) } @if let Some(d) = &hook.description { br; small { (d) } } }
                            td { (hook.dialect) }
                            td.mono.path { (hook.source) }
                            td { (hook.events) }
                            td.mono { (hook.matcher) }
                            td { (hook.mode) }
                            td { (hook.timeout) }
                            td { (hook.on_error) }
                            td.trust { (badge(hook.trust)) }
                        }
                    }
                }
            }
        }
        h2 { "Explain" }
        form.filters #explain method="get" action="/hooks" {
            label { "event " input name="event" value=(form.event) placeholder="tool.before"; }
            label { "tool " input name="tool" value=(form.tool) placeholder="Bash"; }
            button type="submit" { "Explain" }
        }
        @if let Some(explanation) = &explanation { (explained(explanation)) }
    };
    Ok(layout::page("Hooks", "/hooks", &body))
}

/// What changed in a hook that is not trusted: its definition and its script as they
/// were trusted (`-`) and as they are now (`+`). A new hook is all `+`.
fn reviewed(review: &Review) -> Markup {
    let recorded = review.recorded.as_ref();
    let definition = diff::unified(
        &recorded.map_or_else(String::new, |r| diff::pretty(&r.definition)),
        &diff::pretty(&review.current.definition),
    );
    let before = recorded.and_then(|r| r.script.as_ref());
    let after = review.current.script.as_ref();
    let script_text =
        |script: Option<&ScriptText>| script.and_then(|s| s.text.clone()).unwrap_or_default();
    let script = diff::unified(&script_text(before), &script_text(after));
    html! {
        @if recorded.is_none() && review.distrust != Distrust::New {
            p.note { "No earlier text recorded: it was trusted before hookrig kept what it trusted, so only its hashes say that it changed. Below is what it is now." }
        }
        @if !definition.is_empty() {
            p { "Its definition:" }
            pre.diff.definition { (diff::markup(&definition)) }
        }
        @if let Some(script_file) = after.or(before) {
            p { "Its script " span.mono { (script_file.path.display()) } ":" }
            @for note in [before.and_then(ScriptText::without_text).map(|n| format!("As trusted: {n}.")),
                          after.and_then(ScriptText::without_text).map(|n| format!("Now: {n}."))].into_iter().flatten() {
                p.note { (note) }
            }
            @if script.is_empty() {
                p.note { "The text kept is unchanged." }
            } @else {
                pre.diff.script { (diff::markup(&script)) }
            }
        }
    }
}

fn explained(explanation: &Explanation) -> Markup {
    html! {
        p { "For " b { (explanation.event.as_str()) }
            @if let Some(tool) = &explanation.tool { " and tool " b { (tool) } }
            ", in order:" }
        @if explanation.hooks.is_empty() {
            p.empty #explained { "No hook listens to this event." }
        } @else {
            table #explained {
                thead { tr { th { "hook" } th { "dialect" } th { "source" } th.num { "priority" } th { "would run?" } } }
                tbody {
                    @for hook in &explanation.hooks {
                        tr data-hook=(hook.name) {
                            td { b { (hook.name) } }
                            td { (hook.dialect.as_str()) }
                            td.mono.path { (hook.source.display()) }
                            td.num { (hook.priority) }
                            td {
                                @match (&hook.skip, &hook.untrusted_because) {
                                    (None, _) => { (badge("runs")) }
                                    (Some(_), Some(why)) => { (badge("untrusted")) " " (why) }
                                    (Some(skip), None) => { (badge("skipped")) " " (skip.to_string()) }
                                }
                            }
                        }
                    }
                }
            }
        }
        @for warning in &explanation.warnings { p.warning { (warning) } }
    }
}

pub(crate) async fn trust(
    State(dashboard): State<Dashboard>,
    Form(form): Form<TrustForm>,
) -> Result<Redirect, UiError> {
    check_csrf(&dashboard, &form.csrf)?;
    let scope = dashboard.scope().clone();
    blocking(move || {
        hookrig_runtime::trust::trust(
            &scope,
            &hookrig_automation::definition::trust_project_automations,
        )?;
        Ok(())
    })
    .await?;
    Ok(Redirect::to("/hooks"))
}
