//! The Automations page: each automation's trigger, last and next run, enable and
//! disable (`hookrig auto enable|disable`), fire now (`hookrig fire`, through the serve
//! this dashboard runs in), and an automation's runs with their context steps, prompt,
//! answer and token estimate. Every action is a POST with the CSRF token.
//!
//! With a shared store, the page shows what the serve node runs (docs/postgres.md, "What
//! a node runs"): the database's automations as this machine's key verifies them, then
//! the node's own for the ids the database does not define, with every node's runs; a
//! shared automation is enabled and disabled in the database, signed with the
//! operator's key as `hookrig auto enable|disable --store` sign it.

use std::collections::HashMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Form;
use axum::extract::{Path, Query, State};
use axum::response::Redirect;
use std::sync::Arc;

use hookrig_automation::{Automation, SharedDefinitions, Trigger, schedule::CronSchedule};
use hookrig_store::{AutomationRun, AutomationStore, RegistryKey, RunStore, Store};
use maud::{Markup, html};
use serde::Deserialize;

use crate::auth::check_csrf;
use crate::dashboard::Dashboard;
use crate::errors::UiError;
use crate::layout::{self, badge, csrf_field};
use crate::live::{self, Since};

/// Runs an automation's page lists.
const RUNS: usize = 50;
/// How long a fire through serve may take before the dashboard stops waiting for its
/// answer (the run goes on, and its record appears as it ends).
const FIRE_LIMIT: Duration = Duration::from_hours(1);

/// Any action's form.
#[derive(Debug, Deserialize)]
pub(crate) struct ActionForm {
    csrf: String,
}

/// What the list shows of one automation.
struct Listed {
    automation: Automation,
    last: Option<f64>,
}

/// Where the automations this dashboard's serve runs are defined, and their runs
/// recorded: this machine's store, or with a shared store the database beside it.
struct Defined {
    store: Store,
    shared: Option<Shared>,
}

/// The shared store, and its automations as a node of this machine sees them.
struct Shared {
    definitions: Arc<SharedDefinitions>,
    key_path: std::path::PathBuf,
}

impl Defined {
    /// Opens what the dashboard of `dashboard` reads (on a thread of the blocking pool).
    /// The shared definitions are those the dashboard keeps, read again when the table
    /// or the key changed: a key copied to this machine while the page is open verifies
    /// the rows on its next look.
    fn open(dashboard: &Dashboard) -> Result<Defined, UiError> {
        let scope = dashboard.scope();
        let shared = dashboard.shared_definitions()?.map(|definitions| Shared {
            definitions,
            key_path: RegistryKey::path(&scope.env.config_home),
        });
        Ok(Defined {
            store: Store::open(&scope.store)?,
            shared,
        })
    }

    /// Every automation, as the serve node sees them.
    fn all(&self) -> Result<Vec<Automation>, UiError> {
        let rows = match &self.shared {
            Some(shared) => shared
                .definitions
                .with_local(self.store.automations().list(false)?)?,
            None => self.store.automations().list(false)?,
        };
        rows.into_iter()
            .map(|row| Automation::from_row(row).map_err(|err| action_error(&err)))
            .collect()
    }

    /// The automation `id`, as the serve node sees it.
    fn get(&self, id: &str) -> Result<Automation, UiError> {
        let shared = match &self.shared {
            Some(shared) => shared.definitions.get(id)?,
            None => None,
        };
        match shared {
            Some(row) => Automation::from_row(row).map_err(|err| action_error(&err)),
            None => hookrig_automation::get(&self.store.automations(), id)
                .map_err(|err| UiError::NotFound(hookrig_core::error_chain(&err))),
        }
    }

    /// Where the runs are: every node's in the shared store, else this machine's.
    fn runs(&self) -> &dyn RunStore {
        match &self.shared {
            Some(shared) => shared.definitions.store().as_ref(),
            None => &self.store,
        }
    }

    /// Enables or disables `id` where it is defined: a shared automation in the
    /// database, signed with the operator's key (which refuses a row that does not
    /// verify as it is), else this machine's.
    fn set_enabled(&self, id: &str, enabled: bool) -> Result<(), UiError> {
        if let Some(shared) = &self.shared
            && shared.definitions.store().automations().get(id)?.is_some()
        {
            let key = RegistryKey::load_or_create(&shared.key_path)?;
            return hookrig_automation::set_enabled(
                &shared.definitions.store().signed_automations(&key),
                id,
                enabled,
            )
            .map_err(|err| action_error(&err));
        }
        hookrig_automation::set_enabled(&self.store.automations(), id, enabled)
            .map_err(|err| action_error(&err))
    }
}

fn action_error(err: &(dyn std::error::Error + 'static)) -> UiError {
    UiError::Action(hookrig_core::error_chain(err))
}

/// Runs `work` on what the dashboard's serve runs, on a thread of the blocking pool.
async fn with_defined<T: Send + 'static>(
    dashboard: &Dashboard,
    work: impl FnOnce(&Defined) -> Result<T, UiError> + Send + 'static,
) -> Result<T, UiError> {
    let dashboard = dashboard.clone();
    crate::dashboard::blocking(move || work(&Defined::open(&dashboard)?)).await
}

pub(crate) async fn page(State(dashboard): State<Dashboard>) -> Result<Markup, UiError> {
    let (listed, since) = with_defined(&dashboard, |defined| {
        let last = defined.runs().last_starts()?;
        let all = defined.all()?;
        let since = list_fingerprint(&all, &last);
        let listed = all
            .into_iter()
            .map(|automation| Listed {
                last: last.get(&automation.id).copied(),
                automation,
            })
            .collect::<Vec<_>>();
        Ok((listed, since))
    })
    .await?;
    let csrf = dashboard.csrf().to_owned();
    let body = html! {
        h1 { "Automations" }
        (live::section("/automations/stream", since, &html! {
            @if listed.is_empty() {
                p.empty { "No automations. Add one with " code { "hookrig auto add FILE" } " or a file in .hookrig/automations/." }
            } @else {
                table #automations {
                    thead { tr { th { "automation" } th { "trigger" } th { "state" } th { "last run" } th { "next run" } th { "" } } }
                    tbody { @for item in &listed { (row(item, &csrf)) } }
                }
            }
        }))
    };
    Ok(layout::page("Automations", "/automations", &body))
}

fn row(item: &Listed, csrf: &str) -> Markup {
    let automation = &item.automation;
    let id = &automation.id;
    let state = if automation.held.is_some() {
        "held"
    } else if automation.enabled {
        "enabled"
    } else {
        "disabled"
    };
    html! {
        tr data-automation=(id) {
            td { a href={ "/automations/" (id) } { b { (automation.name) } } br; small.mono { (id) } }
            td { (automation.trigger.summary()) }
            td { (badge(state)) }
            td { (item.last.map_or_else(|| "never".to_owned(), seconds_text)) }
            td { (next_run(&automation.trigger, item.last, automation.enabled).unwrap_or_else(|| "-".to_owned())) }
            td.actions {
                form method="post" action={ "/automations/" (id) "/fire" } {
                    (csrf_field(csrf)) button.fire type="submit" { "Fire now" }
                }
                @if automation.enabled {
                    form method="post" action={ "/automations/" (id) "/disable" } {
                        (csrf_field(csrf)) button type="submit" { "Disable" }
                    }
                } @else {
                    form method="post" action={ "/automations/" (id) "/enable" } {
                        (csrf_field(csrf)) button type="submit" { "Enable" }
                    }
                }
            }
        }
    }
}

/// When a periodic or cron trigger is next due, as the engine's tick would find it.
fn next_run(trigger: &Trigger, last: Option<f64>, enabled: bool) -> Option<String> {
    if !enabled {
        return None;
    }
    match trigger {
        Trigger::Event { .. } => None,
        Trigger::Periodic {
            interval_seconds, ..
        } => Some(match last {
            #[expect(clippy::cast_precision_loss, reason = "intervals are far below 2^52 s")]
            Some(last) => seconds_text(last + *interval_seconds as f64),
            None => "on the next tick".to_owned(),
        }),
        Trigger::Cron { expression, .. } => {
            let next = CronSchedule::parse(expression)
                .ok()?
                .next_after(SystemTime::now())?;
            let ms = next.duration_since(UNIX_EPOCH).ok()?.as_millis();
            Some(layout::time(i64::try_from(ms).ok()?))
        }
    }
}

/// Unix seconds (the automation tables' times) as the UTC text the ledger uses.
#[expect(
    clippy::cast_possible_truncation,
    reason = "milliseconds of a date fit in i64"
)]
fn seconds_text(seconds: f64) -> String {
    layout::time((seconds * 1000.0) as i64)
}

fn list_fingerprint(all: &[Automation], last: &HashMap<String, f64>) -> u64 {
    let mut key: Vec<(String, bool, bool, String)> = all
        .iter()
        .map(|a| {
            (
                a.id.clone(),
                a.enabled,
                a.held.is_some(),
                last.get(&a.id).map(f64::to_string).unwrap_or_default(),
            )
        })
        .collect();
    key.sort();
    live::fingerprint(&key)
}

fn runs_fingerprint(runs: &[AutomationRun]) -> u64 {
    let key: Vec<(&str, &str)> = runs
        .iter()
        .map(|r| (r.id.as_str(), r.status.as_str()))
        .collect();
    live::fingerprint(&key)
}

pub(crate) async fn detail(
    State(dashboard): State<Dashboard>,
    Path(id): Path<String>,
) -> Result<Markup, UiError> {
    let wanted = id.clone();
    let (automation, runs) = with_defined(&dashboard, move |defined| {
        let automation = defined.get(&wanted)?;
        let runs = defined.runs().runs(Some(&wanted), RUNS)?;
        Ok((automation, runs))
    })
    .await?;
    let since = runs_fingerprint(&runs);
    let stream = format!("/automations/{}/stream", crate::runs::encode(&id));
    let body = html! {
        h1 { "Automation " (automation.name) }
        dl.facts {
            dt { "id" } dd.mono { (automation.id) }
            dt { "trigger" } dd { (automation.trigger.summary()) }
            @if let Some(source) = &automation.source { dt { "file" } dd.mono { (source) } }
            @if let Some(held) = &automation.held { dt { "held" } dd.warning { (held) } }
            dt { "prompt template" } dd { pre { (automation.prompt_template) } }
        }
        form method="post" action={ "/automations/" (automation.id) "/fire" } {
            (csrf_field(dashboard.csrf())) button.fire #fire type="submit" { "Fire now" }
        }
        h2 { "Runs" }
        (live::section(&stream, since, &html! {
            @if runs.is_empty() {
                p.empty { "No runs yet." }
            } @else {
                @for run in &runs { (run_view(run)) }
            }
        }))
    };
    Ok(layout::page("Automation", "/automations", &body))
}

fn run_view(run: &AutomationRun) -> Markup {
    let json = |value: &serde_json::Value| serde_json::to_string_pretty(value).unwrap_or_default();
    html! {
        details.run data-run=(run.id) data-status=(run.status.as_str()) open[run.status.as_str() == "running"] {
            summary {
                (seconds_text(run.started_at)) " " (badge(run.status.as_str())) " " (run.trigger_reason)
                " · ~" (run.tokens_used) " tokens"
            }
            @if let Some(reason) = &run.skipped_reason { p { "LLM skipped: " (reason) } }
            @if let Some(steps) = &run.context_results { h3 { "Context steps" } pre.json { (json(steps)) } }
            @if let Some(prompt) = &run.prompt_sent { h3 { "Prompt" } pre { (prompt) } }
            @if let Some(answer) = &run.llm_response { h3 { "Answer" } pre { (answer) } }
            @if let Some(actions) = &run.actions_taken { h3 { "Tool calls" } pre.json { (json(actions)) } }
        }
    }
}

pub(crate) async fn stream(
    State(dashboard): State<Dashboard>,
    Query(since): Query<Since>,
) -> impl axum::response::IntoResponse {
    live::changes(since.since, move || {
        let read = || -> Result<u64, UiError> {
            let defined = Defined::open(&dashboard)?;
            let last = defined.runs().last_starts()?;
            Ok(list_fingerprint(&defined.all()?, &last))
        };
        read().unwrap_or_default()
    })
}

pub(crate) async fn runs_stream(
    State(dashboard): State<Dashboard>,
    Path(id): Path<String>,
    Query(since): Query<Since>,
) -> impl axum::response::IntoResponse {
    live::changes(since.since, move || {
        let read = || -> Result<u64, UiError> {
            let runs = Defined::open(&dashboard)?.runs().runs(Some(&id), RUNS)?;
            Ok(runs_fingerprint(&runs))
        };
        read().unwrap_or_default()
    })
}

pub(crate) async fn fire(
    State(dashboard): State<Dashboard>,
    Path(id): Path<String>,
    Form(form): Form<ActionForm>,
) -> Result<Redirect, UiError> {
    check_csrf(&dashboard, &form.csrf)?;
    let socket = dashboard.socket().cloned().ok_or_else(|| {
        UiError::Action(format!(
            "this dashboard runs outside hookrig serve; fire it with `hookrig fire {id}`"
        ))
    })?;
    // As `hookrig fire` does through serve; the run's record appears on the page as it
    // starts and ends, so the page does not wait for it.
    let fired = id.clone();
    tokio::spawn(async move {
        if let Err(err) = hookrig_runtime::ingress::fire(&socket, &fired, FIRE_LIMIT).await {
            tracing::warn!("dashboard: fire {fired}: {err}");
        }
    });
    Ok(Redirect::to(&format!(
        "/automations/{}",
        crate::runs::encode(&id)
    )))
}

pub(crate) async fn enable(
    state: State<Dashboard>,
    id: Path<String>,
    form: Form<ActionForm>,
) -> Result<Redirect, UiError> {
    set_enabled(state, id, form, true).await
}

pub(crate) async fn disable(
    state: State<Dashboard>,
    id: Path<String>,
    form: Form<ActionForm>,
) -> Result<Redirect, UiError> {
    set_enabled(state, id, form, false).await
}

async fn set_enabled(
    State(dashboard): State<Dashboard>,
    Path(id): Path<String>,
    Form(form): Form<ActionForm>,
    enabled: bool,
) -> Result<Redirect, UiError> {
    check_csrf(&dashboard, &form.csrf)?;
    with_defined(&dashboard, move |defined| defined.set_enabled(&id, enabled)).await?;
    Ok(Redirect::to("/automations"))
}
