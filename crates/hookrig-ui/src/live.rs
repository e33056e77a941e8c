//! The Live page: new runs appear as they are recorded (server-sent events), with a
//! per-minute chart of emits, denies, errors and the p50/p95 time of the hooks.
//!
//! One thread per dashboard (the [`Feed`]) reads the ledger's new rows four times a
//! second, whichever process wrote them (a one-shot `hookrig emit` writes its own), and
//! broadcasts them in one batch per read to every open page; a page that falls behind
//! misses batches rather than slowing the others. Rows first seen `running` are read
//! again until they end, so a page shows how each emit ended.
//!
//! [`changes`] is the same idea for the other live pages: it tells a page when what it
//! shows changed, and the page fetches itself again.

use std::collections::{BTreeSet, VecDeque};
use std::convert::Infallible;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::stream::{self, Stream, StreamExt as _};
use hookrig_store::{EmitDecision, EmitFilter, EmitRow, Ledger, LedgerAt};
use maud::{Markup, html};
use serde::Serialize;
use tokio::sync::broadcast;
use tokio_stream::wrappers::BroadcastStream;

use crate::dashboard::{Dashboard, blocking};
use crate::errors::UiError;
use crate::{layout, runs};

/// How often the feed reads the ledger.
const POLL: Duration = Duration::from_millis(250);
/// The most rows one read takes; the next read takes the rest.
const BATCH: usize = 5_000;
/// The most rows still `running` the feed keeps reading again.
const PENDING: usize = 1_000;
/// Rows the Live page starts with.
const INITIAL: usize = 100;

/// The ledger's new rows, read by one thread and broadcast to the open Live pages.
#[derive(Debug)]
pub(crate) struct Feed {
    ledger: Option<LedgerAt>,
    channel: OnceLock<Channel>,
}

/// The feed's broadcast, and its last batches for pages that subscribe later.
#[derive(Debug)]
struct Channel {
    sender: broadcast::Sender<Arc<str>>,
    recent: Arc<Mutex<VecDeque<Arc<str>>>>,
}

/// How many of the last batches a new subscriber is sent first: a page rendered a moment
/// ago must not miss the runs recorded before its stream opened (the page replaces a
/// row it already shows).
const REPLAY: usize = 16;

/// One run as the Live page receives it.
#[derive(Debug, Serialize)]
struct LiveRun {
    run_id: String,
    started_at_ms: i64,
    decision: EmitDecision,
    duration_ms: f64,
    /// The row of the runs table, rendered.
    html: String,
}

impl Feed {
    pub(crate) fn new(ledger: Option<LedgerAt>) -> Feed {
        Feed {
            ledger,
            channel: OnceLock::new(),
        }
    }

    /// Starts the reading thread, once: from the rows written from now on.
    fn start(&self) -> Option<&Channel> {
        let at = self.ledger.clone()?;
        Some(self.channel.get_or_init(|| {
            let (sender, _) = broadcast::channel(64);
            let recent = Arc::new(Mutex::new(VecDeque::new()));
            let (feed, kept) = (sender.clone(), Arc::clone(&recent));
            let started = std::thread::Builder::new()
                .name("hookrig-ui-feed".to_owned())
                .spawn(move || read_forever(&at, &feed, &kept));
            if let Err(err) = started {
                tracing::warn!("dashboard: the live feed did not start: {err}");
            }
            Channel { sender, recent }
        }))
    }

    /// The last batches and a receiver of the next ones (JSON arrays of runs); `None`
    /// without a ledger.
    fn subscribe(&self) -> Option<Subscription> {
        let channel = self.start()?;
        // Subscribed before the replay is taken: a batch may come twice, never not at all.
        let receiver = channel.sender.subscribe();
        let replay = channel
            .recent
            .lock()
            .map(|recent| recent.iter().cloned().collect())
            .unwrap_or_default();
        Some((replay, receiver))
    }
}

/// The last batches, then a receiver of the next ones.
type Subscription = (Vec<Arc<str>>, broadcast::Receiver<Arc<str>>);

/// Reads the ledger's new rows and broadcasts them, for as long as the process runs.
fn read_forever(
    at: &LedgerAt,
    sender: &broadcast::Sender<Arc<str>>,
    recent: &Mutex<VecDeque<Arc<str>>>,
) {
    let mut ledger = None;
    let mut last = None;
    let mut pending = BTreeSet::new();
    loop {
        if let Some(batch) = read_once(at, &mut ledger, &mut last, &mut pending) {
            let batch: Arc<str> = batch.into();
            if let Ok(mut recent) = recent.lock() {
                if recent.len() == REPLAY {
                    recent.pop_front();
                }
                recent.push_back(Arc::clone(&batch));
            }
            let _ = sender.send(batch);
        }
        std::thread::sleep(POLL);
    }
}

/// One read: the batch of rows written since `last` and of the `pending` ones that
/// were running, as JSON; `None` when there is nothing new.
fn read_once(
    at: &LedgerAt,
    ledger: &mut Option<Box<dyn Ledger + Send>>,
    last: &mut Option<i64>,
    pending: &mut BTreeSet<i64>,
) -> Option<String> {
    if ledger.is_none() {
        // The ledger file may not exist until the first emit; a database that cannot be
        // reached is tried again at the next read. The feed keeps a connection of its
        // own: it reads four times a second and must not wait for the pages' one.
        *ledger = match at {
            LedgerAt::Sqlite(path) => hookrig_runtime::ledger::open_for_reading(path)
                .ok()
                .map(|store| Box::new(store) as Box<dyn Ledger + Send>),
            LedgerAt::Postgres(_) => at
                .open()
                .map_err(|err| tracing::debug!("dashboard: live feed: {err}"))
                .ok(),
        };
    }
    let store = ledger.as_ref()?;
    let Some(after) = *last else {
        *last = store
            .last_row()
            .map_err(|err| tracing::debug!("dashboard: live feed: {err}"))
            .ok();
        return None;
    };
    let rows: Vec<i64> = pending.iter().copied().collect();
    let read = store
        .since(after, &rows, BATCH)
        .map_err(|err| tracing::debug!("dashboard: live feed: {err}"))
        .ok()?;
    if read.is_empty() {
        return None;
    }
    let mut batch = Vec::with_capacity(read.len());
    for EmitRow { row, summary } in read {
        *last = Some(last.map_or(row, |l| l.max(row)));
        let running = summary.decision == EmitDecision::Running;
        if running && pending.len() < PENDING {
            pending.insert(row);
        } else if !running {
            pending.remove(&row);
        }
        batch.push(LiveRun {
            html: runs::row(&summary).into_string(),
            run_id: summary.run_id,
            started_at_ms: summary.started_at_ms,
            decision: summary.decision,
            duration_ms: summary.duration_ms,
        });
    }
    serde_json::to_string(&batch).ok()
}

pub(crate) async fn page(State(dashboard): State<Dashboard>) -> Result<Markup, UiError> {
    // Reading from before the page's rows were read, so that none falls in between.
    let feed = dashboard.clone();
    blocking(move || {
        feed.feed().start();
        Ok(())
    })
    .await?;
    let recent = dashboard
        .with_ledger(|ledger| {
            Ok(ledger.recent(&EmitFilter {
                limit: INITIAL,
                ..EmitFilter::default()
            })?)
        })
        .await?;
    let body = html! {
        h1 { "Live" }
        p #live-status { "Connecting…" }
        figure {
            svg #chart viewBox="0 0 720 200" role="img" aria-label="emits, denies and errors per minute, with p50 and p95 hook time" {}
            figcaption {
                span.key.emits { "emits" } span.key.denies { "denies" } span.key.errors { "errors" }
                span.key.p50 { "p50 ms" } span.key.p95 { "p95 ms" }
                " per minute, last 30 minutes seen"
            }
        }
        div #live data-stream="/live/stream" {
            table #runs {
                thead { tr { th { "time (UTC)" } th { "run" } th { "event" } th { "agent" } th { "decision" } th.num { "hooks" } th.num { "ms" } th { "decided by" } } }
                tbody {
                    @for run in &recent {
                        (runs::row(run))
                    }
                }
            }
        }
        script type="application/json" #seed {
            (maud::PreEscaped(seed(&recent)))
        }
    };
    Ok(layout::page("Live", "/live", &body))
}

/// The chart's starting points: time, decision and duration of the runs shown.
fn seed(recent: &[hookrig_store::EmitSummary]) -> String {
    let points: Vec<(i64, &str, f64)> = recent
        .iter()
        .map(|r| (r.started_at_ms, r.decision.as_str(), r.duration_ms))
        .collect();
    // `</` cannot occur in numbers and fixed decision names, so the script element
    // cannot be closed early.
    serde_json::to_string(&points).unwrap_or_else(|_| "[]".to_owned())
}

pub(crate) async fn stream(
    State(dashboard): State<Dashboard>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, UiError> {
    let (replay, receiver) = dashboard
        .feed()
        .subscribe()
        .ok_or_else(|| UiError::NotFound("this serve records no ledger".to_owned()))?;
    let batches = stream::iter(replay.into_iter().map(Ok)).chain(
        // A page that fell behind skips what it missed.
        BroadcastStream::new(receiver).filter_map(|batch| async move { batch.ok().map(Ok) }),
    );
    let events = batches.map(|batch: Result<Arc<str>, Infallible>| {
        batch.map(|json| Event::default().event("runs").data(&*json))
    });
    Ok(Sse::new(events).keep_alive(KeepAlive::default()))
}

/// An event stream that says `changed` once `fingerprint` (read on the blocking pool
/// twice a second) differs from `since`, what the page was rendered from; the page then
/// fetches itself again and follows a new stream.
pub(crate) fn changes<F>(
    since: u64,
    fingerprint: F,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>>
where
    F: Fn() -> u64 + Send + Sync + 'static,
{
    let fingerprint = Arc::new(fingerprint);
    let changed = stream::once(async move {
        loop {
            let read = Arc::clone(&fingerprint);
            if let Ok(now) = blocking(move || Ok(read())).await
                && now != since
            {
                return Ok(Event::default().event("changed").data(now.to_string()));
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    });
    Sse::new(changed).keep_alive(KeepAlive::default())
}

/// A fingerprint of `value`: equal values, equal fingerprints.
pub(crate) fn fingerprint(value: &impl std::hash::Hash) -> u64 {
    use std::hash::{BuildHasher as _, BuildHasherDefault, DefaultHasher};
    BuildHasherDefault::<DefaultHasher>::default().hash_one(value)
}

/// The section of a page that follows `stream` (`/plans/stream` and the like): the
/// script fetches the page again when it says `changed`, and swaps this section.
pub(crate) fn section(stream: &str, since: u64, body: &Markup) -> Markup {
    html! {
        section #live data-watch={ (stream) "?since=" (since) } { (body) }
    }
}

/// The `?since=` of a watch stream.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
pub(crate) struct Since {
    pub(crate) since: u64,
}

#[cfg(test)]
mod tests {
    use hookrig_store::EmitSummary;

    use super::*;

    // The batch the Live page's script reads: its field names are the page's contract.
    #[test]
    fn a_live_batch_is_the_rows_and_what_the_chart_counts() {
        let summary = EmitSummary {
            run_id: "01a2235a-bcb5-72fc-beb5-b51fedac5b79".to_owned(),
            started_at_ms: 1_764_000_000_000,
            event: "tool.before".to_owned(),
            agent: Some("carol".to_owned()),
            decision: EmitDecision::Deny,
            decided_by: Some("guard".to_owned()),
            reason: Some("rm -rf <is> not allowed".to_owned()),
            duration_ms: 7.25,
            hooks_run: 1,
            cwd: "/repo".to_owned(),
            shadow_disagreed: Vec::new(),
        };
        let batch = vec![LiveRun {
            html: runs::row(&summary).into_string(),
            run_id: summary.run_id.clone(),
            started_at_ms: summary.started_at_ms,
            decision: summary.decision,
            duration_ms: summary.duration_ms,
        }];
        insta::assert_snapshot!(serde_json::to_string_pretty(&batch).expect("serializes"));
    }

    #[test]
    fn equal_values_have_equal_fingerprints() {
        assert_eq!(fingerprint(&"plan"), fingerprint(&"plan"));
        assert_ne!(fingerprint(&"plan"), fingerprint(&"plan "));
    }
}
