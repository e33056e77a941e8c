//! The Runs page: the ledger's emits, newest first, filtered and paged
//! ([`hookrig_store::Emits::page`]).

use std::time::Duration;

use axum::extract::{Query, State};
use hookrig_store::{EmitCursor, EmitDecision, EmitPage, EmitQuery, EmitSummary};
use maud::{Markup, html};
use serde::{Deserialize, Serialize};

use crate::dashboard::Dashboard;
use crate::errors::UiError;
use crate::layout::{self, badge};

/// Rows on a page.
const PAGE: usize = 50;

/// The filters of the page, as the form sends them (an empty field is no filter).
#[derive(Debug, Default, Clone, Deserialize, Serialize)]
#[serde(default)]
pub(crate) struct Filters {
    event: String,
    decision: String,
    agent: String,
    dialect: String,
    hook: String,
    /// How far back: `15m`, `1h`, `7d`...
    within: String,
    /// The page after the one that ended there (`MS.ROW`).
    before: String,
}

impl Filters {
    /// The store's query for these filters at `now_ms`; an unreadable field is an error
    /// that names it.
    fn query(&self, now_ms: i64) -> Result<EmitQuery, UiError> {
        let set = |text: &str| Some(text.trim().to_owned()).filter(|t| !t.is_empty());
        let decision = match set(&self.decision) {
            None => None,
            Some(name) => Some(
                EmitDecision::ALL
                    .into_iter()
                    .find(|d| d.as_str() == name)
                    .ok_or_else(|| {
                        UiError::BadRequest(format!(
                            "decision {name:?} is none of allow, deny, ask, stop, error, running, interrupted"
                        ))
                    })?,
            ),
        };
        let since_ms = match set(&self.within) {
            None => None,
            Some(text) => {
                let within: Duration = humantime::parse_duration(&text).map_err(|err| {
                    UiError::BadRequest(format!(
                        "within {text:?}: {err}; write a duration such as 15m, 1h or 7d"
                    ))
                })?;
                let ms = i64::try_from(within.as_millis()).unwrap_or(i64::MAX);
                Some(now_ms.saturating_sub(ms))
            }
        };
        let before = match set(&self.before) {
            None => None,
            Some(text) => Some(text.parse::<EmitCursor>()?),
        };
        Ok(EmitQuery {
            event: set(&self.event).map(|event| {
                hookrig_dialects::events::resolve(&event)
                    .as_str()
                    .to_owned()
            }),
            decision,
            agent: set(&self.agent),
            dialect: set(&self.dialect),
            hook: set(&self.hook),
            since_ms,
            until_ms: None,
            before,
            limit: PAGE,
        })
    }

    /// The query string of these filters with the page starting at `before`.
    fn with_before(&self, before: EmitCursor) -> String {
        let next = Filters {
            before: before.to_string(),
            ..self.clone()
        };
        serde_urlencoded_pairs(&next)
    }
}

/// `key=value&...` of the non-empty filters, percent-encoded.
fn serde_urlencoded_pairs(filters: &Filters) -> String {
    let pairs = [
        ("event", &filters.event),
        ("decision", &filters.decision),
        ("agent", &filters.agent),
        ("dialect", &filters.dialect),
        ("hook", &filters.hook),
        ("within", &filters.within),
        ("before", &filters.before),
    ];
    pairs
        .iter()
        .filter(|(_, value)| !value.is_empty())
        .map(|(key, value)| format!("{key}={}", encode(value)))
        .collect::<Vec<_>>()
        .join("&")
}

/// Percent-encodes everything but unreserved characters.
pub(crate) fn encode(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(byte).to_string()
            }
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

pub(crate) async fn page(
    State(dashboard): State<Dashboard>,
    Query(filters): Query<Filters>,
) -> Result<Markup, UiError> {
    let query = filters.query(hookrig_store::now_ms())?;
    let page = dashboard
        .with_ledger(move |ledger| Ok(ledger.page(&query)?))
        .await?;
    let body = html! {
        h1 { "Runs" }
        (form(&filters))
        (results(&page, &filters))
    };
    Ok(layout::page("Runs", "/runs", &body))
}

/// The rows of a page, what it says when it has none or stopped looking early, and the
/// link to the next.
fn results(page: &EmitPage, filters: &Filters) -> Markup {
    html! {
        @if page.runs.is_empty() && page.searched_to_ms.is_none() {
            p.empty { "No runs match." }
        } @else if !page.runs.is_empty() {
            (table(&page.runs))
        }
        @if let Some(to) = page.searched_to_ms {
            // The ledger was read in windows and the page stopped before it was full
            // (a common hook with another filter: `Emits::page`).
            p #searched {
                "Fewer runs than a page match among the runs read, back to "
                (layout::time(to)) ". Older runs may match too."
            }
        }
        @if let Some(next) = page.next {
            p { a #older href={ "/runs?" (filters.with_before(next)) } { "Older runs →" } }
        }
    }
}

fn form(filters: &Filters) -> Markup {
    html! {
        form.filters method="get" action="/runs" {
            label { "event " input name="event" value=(filters.event) placeholder="tool.before"; }
            label { "decision "
                select name="decision" {
                    option value="" { "any" }
                    @for decision in EmitDecision::ALL {
                        option value=(decision.as_str()) selected[filters.decision == decision.as_str()] { (decision.as_str()) }
                    }
                }
            }
            label { "hook " input name="hook" value=(filters.hook); }
            label { "agent " input name="agent" value=(filters.agent); }
            label { "dialect " input name="dialect" value=(filters.dialect) placeholder="claude"; }
            label { "within " input name="within" value=(filters.within) placeholder="1h"; }
            button type="submit" { "Filter" }
            " " a href="/runs" { "clear" }
        }
    }
}

/// The table of runs; the Live page adds rows of the same shape.
pub(crate) fn table(runs: &[EmitSummary]) -> Markup {
    html! {
        table #runs {
            thead { tr { th { "time (UTC)" } th { "run" } th { "event" } th { "agent" } th { "decision" } th.num { "hooks" } th.num { "ms" } th { "decided by" } } }
            tbody { @for run in runs { (row(run)) } }
        }
    }
}

/// One run's row.
pub(crate) fn row(run: &EmitSummary) -> Markup {
    html! {
        tr data-run=(run.run_id) {
            td { (layout::time(run.started_at_ms)) }
            td.mono { a href={ "/runs/" (run.run_id) } { (run.run_id.get(..13).unwrap_or(&run.run_id)) } }
            td.event { (run.event) }
            td { (run.agent.as_deref().unwrap_or("-")) }
            td.decision { (badge(run.decision.as_str())) }
            td.num { (run.hooks_run) }
            td.num { (format!("{:.1}", run.duration_ms)) }
            td { (run.decided_by.as_deref().unwrap_or("-")) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_become_the_store_query() {
        let filters = Filters {
            event: "PreToolUse".to_owned(),
            decision: "deny".to_owned(),
            within: "1h".to_owned(),
            before: "1000.7".to_owned(),
            ..Filters::default()
        };
        let query = filters.query(10_000_000).expect("valid filters");
        assert_eq!(query.event.as_deref(), Some("tool.before"));
        assert_eq!(query.decision, Some(EmitDecision::Deny));
        assert_eq!(query.since_ms, Some(10_000_000 - 3_600_000));
        assert_eq!(
            query.before,
            Some(EmitCursor {
                started_at_ms: 1000,
                row: 7
            })
        );
    }

    #[test]
    fn an_unreadable_filter_says_which_and_what_to_write() {
        let bad = |filters: Filters| filters.query(0).expect_err("refused").to_string();
        let decision = bad(Filters {
            decision: "maybe".to_owned(),
            ..Filters::default()
        });
        assert!(
            decision.contains("\"maybe\" is none of allow"),
            "{decision}"
        );
        let within = bad(Filters {
            within: "soon".to_owned(),
            ..Filters::default()
        });
        assert!(within.contains("such as 15m"), "{within}");
        let before = bad(Filters {
            before: "x".to_owned(),
            ..Filters::default()
        });
        assert!(before.contains("MS.ROW"), "{before}");
    }

    #[test]
    fn a_page_that_stopped_looking_says_how_far_back_it_read() {
        let next = EmitCursor {
            started_at_ms: 28_000,
            row: i64::MIN,
        };
        let windowed = results(
            &EmitPage {
                runs: Vec::new(),
                next: Some(next),
                searched_to_ms: Some(28_000),
            },
            &Filters::default(),
        )
        .into_string();
        assert!(windowed.contains("id=\"searched\""), "{windowed}");
        assert!(windowed.contains(&layout::time(28_000)), "{windowed}");
        assert!(!windowed.contains("No runs match."), "{windowed}");
        assert!(
            windowed.contains("before=28000.-9223372036854775808"),
            "{windowed}"
        );
        let empty = results(
            &EmitPage {
                runs: Vec::new(),
                next: None,
                searched_to_ms: None,
            },
            &Filters::default(),
        )
        .into_string();
        assert!(empty.contains("No runs match."), "{empty}");
        assert!(!empty.contains("searched"), "{empty}");
    }

    #[test]
    fn the_next_page_link_keeps_the_filters() {
        let filters = Filters {
            event: "tool.before".to_owned(),
            hook: "a b&c".to_owned(),
            ..Filters::default()
        };
        let link = filters.with_before(EmitCursor {
            started_at_ms: 5,
            row: 2,
        });
        assert_eq!(link, "event=tool.before&hook=a%20b%26c&before=5.2");
    }
}
