//! The Hooks page: every hook of every dialect and source (`hookrig list`), its trust,
//! and `hookrig explain` for an event and tool typed into a form; and the trust action
//! (`hookrig trust`), a POST.

use axum::Form;
use axum::extract::{Query, State};
use axum::response::Redirect;
use hookrig_runtime::{Explanation, ListedHook, Select};
use maud::{Markup, html};
use serde::Deserialize;

use crate::auth::check_csrf;
use crate::dashboard::{Dashboard, blocking};
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
    let (hooks, skipped, explanation) = blocking(move || {
        let options = scope.load_options(&[])?;
        let listing = hookrig_runtime::list(&scope, Select::All, &options)?;
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
        Ok((hooks, skipped, explanation))
    })
    .await?;
    let untrusted = hooks.iter().filter(|h| h.trust == "untrusted").count();
    let body = html! {
        h1 { "Hooks" }
        @for error in &skipped { p.error { (error) } }
        @if untrusted > 0 {
            section.trust #untrusted {
                h2 { (untrusted) " project hook(s) not trusted" }
                p { "They are listed and reported, never run. Below is what each would run now; trusting records the project as it is, as " code { "hookrig trust" } " does." }
                @for hook in hooks.iter().filter(|h| h.trust == "untrusted") {
                    div.untrusted {
                        b { (hook.name) } " " span.mono { (hook.source) }
                        @if let Some(why) = &hook.untrusted_because { p { (why) } }
                        pre.command { (hook.command) }
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
