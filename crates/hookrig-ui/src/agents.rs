//! The Agents page: the agents the store records (`hookrig agent list`): what runs, on
//! which task, in which worktree; a log's tail, live; and stop (`hookrig agent stop`),
//! a POST with the CSRF token.

use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::{Path as FsPath, PathBuf};
use std::time::Duration;

use axum::Form;
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Redirect};
use hookrig_agents::{AgentStatus, State as AgentState};
use hookrig_store::AgentsAt;
use maud::{Markup, html};
use serde::Deserialize;

use crate::auth::check_csrf;
use crate::dashboard::{Dashboard, blocking};
use crate::errors::UiError;
use crate::layout::{self, badge, csrf_field};
use crate::live::{self, Since};

/// How much of a log's end the page shows.
const TAIL: u64 = 64 * 1024;
/// SIGTERM, then SIGKILL after this, as `hookrig agent stop` does by default.
const GRACE: Duration = Duration::from_secs(5);

/// The stop form.
#[derive(Debug, Deserialize)]
pub(crate) struct StopForm {
    csrf: String,
}

fn agents_error(err: &hookrig_agents::AgentError) -> UiError {
    UiError::Action(hookrig_core::error_chain(err))
}

fn list(at: &AgentsAt) -> Result<Vec<AgentStatus>, UiError> {
    hookrig_agents::list(at).map_err(|err| agents_error(&err))
}

fn list_fingerprint(agents: &[AgentStatus]) -> u64 {
    let key: Vec<(&str, String)> = agents
        .iter()
        .map(|a| (a.row.worktree.as_str(), a.state.text()))
        .collect();
    live::fingerprint(&key)
}

pub(crate) async fn page(State(dashboard): State<Dashboard>) -> Result<Markup, UiError> {
    let at = dashboard.agents_at();
    let machines = at.is_shared();
    let agents = blocking(move || list(&at)).await?;
    let csrf = dashboard.csrf();
    let body = html! {
        h1 { "Agents" }
        (live::section("/agents/stream", list_fingerprint(&agents), &html! {
            @if agents.is_empty() {
                p.empty { "No agents recorded. " code { "hookrig agent spawn TASK" } " starts one." }
            } @else {
                table #agents {
                    thead { tr { @if machines { th { "machine" } } th { "task" } th { "agent" } th { "provider" } th { "worktree" } th { "branch" } th { "state" } th { "started" } th { "" } } }
                    tbody {
                        @for status in &agents {
                            @let row = &status.row;
                            tr data-task=(row.task) {
                                @if machines { td.mono { (row.host) } }
                                td { a href={ "/agents/" (crate::runs::encode(&row.task)) "/log" } { b { (row.task) } } }
                                td { (row.agent) }
                                td { (row.provider) }
                                td.mono.path { (row.worktree) }
                                td.mono { (row.branch) }
                                td { (badge(if status.state == AgentState::Running { "running" } else { "ended" })) " " (status.state.text()) }
                                td { (layout::time(row.started_at_ms)) }
                                td.actions {
                                    @if status.state == AgentState::Running {
                                        form method="post" action={ "/agents/" (crate::runs::encode(&row.task)) "/stop" } {
                                            (csrf_field(csrf)) button.stop type="submit" { "Stop" }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }))
    };
    Ok(layout::page("Agents", "/agents", &body))
}

pub(crate) async fn stream(
    State(dashboard): State<Dashboard>,
    Query(since): Query<Since>,
) -> impl IntoResponse {
    let at = dashboard.agents_at();
    live::changes(since.since, move || {
        list(&at)
            .map(|agents| list_fingerprint(&agents))
            .unwrap_or_default()
    })
}

/// The log file of this machine's agent of `task` (another machine's log is on its
/// machine).
fn log_of(at: &AgentsAt, task: &str) -> Result<PathBuf, UiError> {
    let this = hookrig_store::host_name();
    list(at)?
        .into_iter()
        .find(|status| status.row.task == task && status.row.host == this)
        .map(|status| PathBuf::from(status.row.log))
        .ok_or_else(|| UiError::NotFound(format!("no agent is recorded for task '{task}'")))
}

/// The last [`TAIL`] bytes of `path` (from a line start), and the file's length.
fn tail(path: &FsPath) -> (String, u64) {
    let Ok(mut file) = std::fs::File::open(path) else {
        return (String::new(), 0);
    };
    let length = file.metadata().map_or(0, |m| m.len());
    let start = length.saturating_sub(TAIL);
    let mut bytes = Vec::new();
    if file.seek(SeekFrom::Start(start)).is_err() || file.read_to_end(&mut bytes).is_err() {
        return (String::new(), length);
    }
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let text = if start > 0 {
        text.split_once('\n')
            .map_or(text.clone(), |(_, rest)| rest.to_owned())
    } else {
        text
    };
    (text, length)
}

pub(crate) async fn log(
    State(dashboard): State<Dashboard>,
    Path(task): Path<String>,
) -> Result<Markup, UiError> {
    let at = dashboard.agents_at();
    let wanted = task.clone();
    let (path, text, length) = blocking(move || {
        let path = log_of(&at, &wanted)?;
        let (text, length) = tail(&path);
        Ok((path, text, length))
    })
    .await?;
    let stream = format!("/agents/{}/log/stream", crate::runs::encode(&task));
    let body = html! {
        h1 { "Agent of " (task) }
        p.mono { (path.display()) }
        (live::section(&stream, length, &html! {
            pre.log #log { (text) }
        }))
    };
    Ok(layout::page("Agent log", "/agents", &body))
}

pub(crate) async fn log_stream(
    State(dashboard): State<Dashboard>,
    Path(task): Path<String>,
    Query(since): Query<Since>,
) -> Result<impl IntoResponse, UiError> {
    let at = dashboard.agents_at();
    let path = blocking(move || log_of(&at, &task)).await?;
    // The log's length is its fingerprint: it only grows.
    Ok(live::changes(since.since, move || {
        std::fs::metadata(&path).map_or(0, |m| m.len())
    }))
}

pub(crate) async fn stop(
    State(dashboard): State<Dashboard>,
    Path(task): Path<String>,
    Form(form): Form<StopForm>,
) -> Result<Redirect, UiError> {
    check_csrf(&dashboard, &form.csrf)?;
    let (scope, at) = (dashboard.scope().clone(), dashboard.agents_at());
    blocking(move || {
        hookrig_agents::stop(&at, &task, GRACE, Some(scope.cwd())).map_err(|err| agents_error(&err))
    })
    .await?;
    Ok(Redirect::to("/agents"))
}
