//! The Plans page: the plan of the serve (`--plan`, `HOOKRIG_PLAN`) as kanban columns,
//! live as its file changes (a `hookrig task complete` in a terminal moves a card), and
//! the DAG of its dependencies as a picture (SVG, drawn here: no library to download).

use std::path::PathBuf;

use axum::extract::{Query, State};
use axum::http::header;
use axum::response::IntoResponse;
use hookrig_plan::lifecycle;
use hookrig_plan::plan::{Plan, TaskState};
use maud::{Markup, html};

use crate::dashboard::{Dashboard, blocking};
use crate::errors::UiError;
use crate::layout;
use crate::live::{self, Since};

/// The board's columns, in the order work flows.
const COLUMNS: [(TaskState, &str); 6] = [
    (TaskState::Backlog, "Backlog"),
    (TaskState::Ready, "Ready"),
    (TaskState::InProgress, "In progress"),
    (TaskState::Blocked, "Blocked"),
    (TaskState::Decomposed, "Decomposed"),
    (TaskState::Done, "Done"),
];

/// How many task events the history shows.
const HISTORY: usize = 200;

/// The `?task=` of the page: one task's history.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
pub(crate) struct TaskFilter {
    task: String,
}

fn plan_file(dashboard: &Dashboard) -> Result<hookrig_runtime::PlanFile, UiError> {
    dashboard
        .scope()
        .plan
        .clone()
        .ok_or_else(|| {
            UiError::NotFound(
                "this serve has no plan: start it with `hookrig --plan FILE serve --ui ADDR` (or HOOKRIG_PLAN)"
                    .to_owned(),
            )
        })
}

/// The plan file's text and the plan read from it.
fn plan_path(dashboard: &Dashboard) -> Result<PathBuf, UiError> {
    Ok(plan_file(dashboard)?.named)
}

async fn read(dashboard: &Dashboard) -> Result<(PathBuf, String, Plan), UiError> {
    let path = plan_path(dashboard)?;
    blocking(move || {
        let loaded = lifecycle::read(&path)
            .map_err(|err| UiError::Action(hookrig_core::error_chain(&err)))?;
        Ok((path, loaded.text, loaded.plan))
    })
    .await
}

pub(crate) async fn page(
    State(dashboard): State<Dashboard>,
    Query(filter): Query<TaskFilter>,
) -> Result<Markup, UiError> {
    let (path, text, plan) = read(&dashboard).await?;
    // The lifecycle records the plan by its absolute path.
    let absolute = plan_file(&dashboard)?.path.display().to_string();
    let latest = {
        let (absolute, reader) = (absolute.clone(), dashboard.clone());
        blocking(move || Ok(latest_event(&reader, &absolute))).await?
    };
    let since = live::fingerprint(&(&text, latest));
    let task = Some(filter.task.clone()).filter(|t| !t.is_empty());
    let wanted = task.clone();
    let history = dashboard
        .with_ledger(move |ledger| {
            Ok(ledger.task_history(&absolute, wanted.as_deref(), HISTORY)?)
        })
        .await
        .unwrap_or_default();
    let body = html! {
        h1 { "Plan " span.mono { (path.display()) } }
        (live::section("/plans/stream", since, &html! {
            div.kanban #board {
                @for (state, title) in COLUMNS {
                    div.column data-state=(state.as_str()) {
                        h2 { (title) " " small { (plan.tasks.iter().filter(|t| t.state == state).count()) } }
                        @for task in plan.tasks.iter().filter(|t| t.state == state) {
                            div.card data-task=(task.name) {
                                a href={ "/plans?task=" (crate::runs::encode(&task.name)) "#history" } { b { (task.name) } }
                                @if let Some(description) = task.meta.get("description").and_then(|d| d.as_str()) {
                                    p { (description) }
                                }
                                @if let Some(by) = &task.claimed_by { p.who { "claimed by " (by) } }
                                @else if !task.assigned_to.is_empty() { p.who { "for " (task.assigned_to.join(", ")) } }
                                @if let Some(reason) = &task.block_reason { p.warning { (reason) } }
                            }
                        }
                    }
                }
            }
            h2 { "Dependencies" }
            img.dag src={ "/plans/dag.svg?since=" (since) } alt="the tasks' dependencies";
            h2 #history {
                @if let Some(task) = &task { "History of " (task) " " small { a href="/plans#history" { "all tasks" } } }
                @else { "History" }
            }
            @if history.is_empty() {
                p.empty { "No task events recorded in the ledger yet." }
            } @else {
                table #task-history {
                    thead { tr { th { "time (UTC)" } th { "task" } th { "event" } th { "agent" } th { "run" } } }
                    tbody {
                        @for event in &history {
                            tr data-task=(event.task) {
                                td { (layout::time(event.at_ms)) }
                                td { (event.task) }
                                td { (event.event) }
                                td { (event.agent.as_deref().unwrap_or("-")) }
                                td.mono { a href={ "/runs/" (event.run_id) } { (event.run_id.get(..13).unwrap_or(&event.run_id)) } }
                            }
                        }
                    }
                }
            }
        }))
    };
    Ok(layout::page("Plans", "/plans", &body))
}

pub(crate) async fn stream(
    State(dashboard): State<Dashboard>,
    Query(since): Query<Since>,
) -> Result<impl IntoResponse, UiError> {
    let path = plan_path(&dashboard)?;
    let absolute = plan_file(&dashboard)?.path.display().to_string();
    let reader = dashboard.clone();
    // The file, and the newest task event: the ledger's row of a `hookrig task` may be
    // written after the file, and the history must show it.
    Ok(live::changes(since.since, move || {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        live::fingerprint(&(&text, latest_event(&reader, &absolute)))
    }))
}

/// The run id of the plan's newest task event in the ledger, if any.
fn latest_event(dashboard: &Dashboard, plan: &str) -> Option<String> {
    let latest = dashboard
        .read_ledger(|ledger| Ok(ledger.task_history(plan, None, 1)?))
        .ok()?;
    latest.into_iter().next().map(|event| event.run_id)
}

pub(crate) async fn dag(State(dashboard): State<Dashboard>) -> Result<impl IntoResponse, UiError> {
    let (_, _, plan) = read(&dashboard).await?;
    Ok((
        [(header::CONTENT_TYPE, "image/svg+xml")],
        svg(&plan).into_string(),
    ))
}

/// Box sizes and gaps of the picture, in pixels.
const BOX_W: usize = 150;
const BOX_H: usize = 34;
const GAP_X: usize = 50;
const GAP_Y: usize = 16;

/// The DAG as columns by depth (a task stands right of everything it depends on), each
/// box coloured by its state, an arrow from each dependency.
fn svg(plan: &Plan) -> Markup {
    let depths = depths(&plan.dependencies());
    let mut rows_in = vec![0usize; depths.iter().max().map_or(0, |d| d + 1)];
    let places: Vec<(usize, usize)> = depths
        .iter()
        .map(|&depth| {
            let row = rows_in[depth];
            rows_in[depth] += 1;
            (depth * (BOX_W + GAP_X) + 10, row * (BOX_H + GAP_Y) + 10)
        })
        .collect();
    let width = rows_in.len() * (BOX_W + GAP_X) + 20;
    let height = rows_in.iter().max().copied().unwrap_or(0) * (BOX_H + GAP_Y) + 20;
    let dependencies = plan.dependencies();
    html! {
        svg xmlns="http://www.w3.org/2000/svg" width=(width) height=(height) viewBox={ "0 0 " (width) " " (height) } font-family="sans-serif" font-size="12" {
            defs { marker #arrow viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto" { path d="M0,0 L10,5 L0,10 z" fill="#888" {} } }
            @for (task, on) in dependencies.iter().enumerate() {
                @for &dep in on {
                    @let (from, to) = (places[dep], places[task]);
                    line x1=(from.0 + BOX_W) y1=(from.1 + BOX_H / 2) x2=(to.0) y2=(to.1 + BOX_H / 2) stroke="#888" marker-end="url(#arrow)" {}
                }
            }
            @for (task, place) in plan.tasks.iter().zip(&places) {
                g class={ "task " (task.state.as_str()) } data-task=(task.name) {
                    rect x=(place.0) y=(place.1) width=(BOX_W) height=(BOX_H) rx="5" fill=(colour(task.state)) stroke="#555" {}
                    text x=(place.0 + 8) y=(place.1 + 21) { (short(&task.name)) }
                }
            }
        }
    }
}

fn short(name: &str) -> String {
    if name.chars().count() > 20 {
        format!("{}…", name.chars().take(19).collect::<String>())
    } else {
        name.to_owned()
    }
}

fn colour(state: TaskState) -> &'static str {
    match state {
        TaskState::Backlog => "#eeeeee",
        TaskState::Ready => "#d8ecff",
        TaskState::InProgress => "#fff1c4",
        TaskState::Blocked => "#ffd6d6",
        TaskState::Decomposed => "#e8dcff",
        TaskState::Done => "#d6f5d6",
    }
}

/// Each task's column: 0 without dependencies, else one more than its deepest
/// dependency. A cycle (which `plan validate` reports) is cut where it closes, so the
/// picture is still drawn.
fn depths(dependencies: &[Vec<usize>]) -> Vec<usize> {
    let mut depth: Vec<Option<usize>> = vec![None; dependencies.len()];
    let mut on_path = vec![false; dependencies.len()];
    for start in 0..dependencies.len() {
        // An explicit stack rather than recursion: a long chain must not overflow.
        let mut stack = vec![(start, 0usize)];
        while let Some((task, next)) = stack.pop() {
            if depth[task].is_some() {
                continue;
            }
            on_path[task] = true;
            if let Some(&dep) = dependencies[task].get(next) {
                stack.push((task, next + 1));
                if depth[dep].is_none() && !on_path[dep] {
                    stack.push((dep, 0));
                }
                continue;
            }
            on_path[task] = false;
            depth[task] = Some(
                dependencies[task]
                    .iter()
                    .filter_map(|&dep| depth[dep])
                    .map(|d| d + 1)
                    .max()
                    .unwrap_or(0),
            );
        }
    }
    depth.into_iter().map(Option::unwrap_or_default).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_stands_right_of_what_it_depends_on() {
        // c depends on b, b on a; d on nothing.
        assert_eq!(depths(&[vec![], vec![0], vec![1], vec![]]), [0, 1, 2, 0]);
        assert_eq!(depths(&[vec![1, 2], vec![2], vec![]]), [2, 1, 0]);
    }

    // guards: a dependency cycle hanging the picture.
    #[test]
    fn a_cycle_is_cut_and_drawn() {
        let depths = depths(&[vec![1], vec![0], vec![1]]);
        assert_eq!(depths.len(), 3);
        assert!(depths[2] > depths[1]);
    }
}
