//! `hookrig fire ID`: one automation run now, through the running `hookrig serve` when
//! its socket answers, else in this process (a node of the shared store, when there is
//! one); and `hookrig auto runs --follow`, runs reported as they start and change status.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::Path;
use std::time::Duration;

use hookrig_config::{ConfigToml, find_project};
use hookrig_exec::ProcessGroups;
use hookrig_runtime::Scope;
use hookrig_runtime::ingress::{self, IngressError};
use hookrig_store::{AutomationRun, RunStatus, RunStore, Store};
use tokio::signal::unix::{SignalKind, signal};
use tokio::time::MissedTickBehavior;

use crate::engine::{Engine, system_clock};
use crate::errors::AutomationError;
use crate::notifier::Notifiers;
use crate::{definition, server, wiring};

/// How long `fire` waits for a serve that listens on its socket to answer its ping. A
/// serve that listens runs the automations: `fire` goes through it however loaded the
/// machine is, and says so when it does not answer, rather than run the automation
/// beside it with another view of what is trusted. Only where none listens does `fire`
/// run it in this process.
const PING_LIMIT: Duration = Duration::from_secs(10);
/// How much longer than `[automation] run_timeout` a fire through serve waits for the
/// record: the run's own timeout ends it first; this covers a serve that is stuck.
const FIRE_SLACK: Duration = Duration::from_mins(1);
/// How often `auto runs --follow` looks at the store.
const FOLLOW_POLL: Duration = Duration::from_millis(500);
/// How many of the newest runs `auto runs --follow` compares on each look.
const FOLLOW_WINDOW: usize = 200;

/// Runs the automation `id` of the scope's store with `config` and waits for its record:
/// through the running serve when its socket answers a ping, else in this process.
/// `None` when SIGINT, SIGTERM or SIGHUP stopped it here (the run is then marked
/// `interrupted` and its processes killed).
pub fn fire(
    scope: &Scope,
    config: &ConfigToml,
    id: &str,
) -> Result<Option<AutomationRun>, AutomationError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(AutomationError::AsyncRuntime)?;
    runtime.block_on(async {
        if let Some(socket) = ingress::socket_path_from_env() {
            match ingress::ping(&socket, PING_LIMIT).await {
                Ok(()) => {
                    tracing::debug!("firing `{id}` through hookrig serve ({})", socket.display());
                    return through_serve(&socket, id, config).await.map(Some);
                }
                Err(err @ IngressError::Timeout { .. }) => {
                    return Err(AutomationError::Ingress(err));
                }
                // No serve there (no socket, a stale one), or one that went away.
                Err(_) => {}
            }
        }
        in_process(scope, config, id).await
    })
}

/// Asks the serve on `socket` to run `id` and reads back its record.
async fn through_serve(
    socket: &Path,
    id: &str,
    config: &ConfigToml,
) -> Result<AutomationRun, AutomationError> {
    let limit = config.automation.run_timeout() + FIRE_SLACK;
    let answer = ingress::fire(socket, id, limit).await?;
    serde_json::from_value(answer).map_err(|err| {
        AutomationError::Ingress(IngressError::Protocol {
            path: socket.to_owned(),
            message: format!("not a run record: {err}"),
        })
    })
}

/// Runs the automation here. On the shared store of the scope (`--store`,
/// `HOOKRIG_STORE_URL`, else the user's `[store] url`, as for `hookrig serve`), this
/// process is a node while it fires: the definition is the database's (signed), the
/// start is refused while a run of it is in flight on any node, the run is recorded
/// there, and its lease is renewed every tick until it ends.
async fn in_process(
    scope: &Scope,
    config: &ConfigToml,
    id: &str,
) -> Result<Option<AutomationRun>, AutomationError> {
    let store = Store::open(&scope.store)?;
    let root = find_project(&scope.env)
        .root
        .unwrap_or_else(|| scope.env.cwd.clone());
    let now = (system_clock())();
    // As serve does on a tick: the project's automation files as they are now, so that
    // a file edited since it was trusted does not run its old version here either, and
    // a newly trusted one runs as it is. What serve would print is its business; a fire
    // refused because of it says why.
    definition::sync_project_automations(&scope.env, &root, &store, now)?;
    let tick = config.automation.tick();
    let (shared, shared_store) = scope
        .shared_store(config)
        .map(|url| {
            // A key that cannot be read holds every shared row: the fire then says why.
            let key = server::registry_key(&scope.env, &|notice| tracing::warn!("{notice}"));
            server::shared_runs(&url, tick, now, key)
        })
        .transpose()?
        .unzip();
    let groups = ProcessGroups::new();
    let notifiers = Notifiers::from_config(config);
    let wiring = wiring::wiring(
        config,
        &root,
        &scope.store,
        shared_store,
        &groups,
        notifiers.clone(),
        None,
    );
    let engine = Engine::with_shared(store, shared, wiring, wiring::engine_settings(config))?;
    let mut interrupt = signal(SignalKind::interrupt()).map_err(AutomationError::AsyncRuntime)?;
    let mut terminate = signal(SignalKind::terminate()).map_err(AutomationError::AsyncRuntime)?;
    // A hang-up stops the run as SIGTERM does: recorded `interrupted`, its processes killed.
    let mut hangup = signal(SignalKind::hangup()).map_err(AutomationError::AsyncRuntime)?;
    let mut renewal = tokio::time::interval(tick);
    renewal.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let fire = engine.fire(id);
    tokio::pin!(fire);
    let fired = loop {
        tokio::select! {
            fired = &mut fire => break Some(fired),
            _ = renewal.tick() => engine.renew_leases(),
            _ = interrupt.recv() => break None,
            _ = terminate.recv() => break None,
            _ = hangup.recv() => break None,
        }
    };
    let Some(fired) = fired else {
        engine.shutdown().await;
        groups.kill_all();
        notifiers.drain(Duration::from_secs(2)).await;
        return Ok(None);
    };
    // The notifications of this run are posted before the process ends.
    notifiers.drain(Duration::from_secs(10)).await;
    Ok(Some(fired?))
}

/// A run that started, changed status or made tool calls since the last look.
#[derive(Debug, Clone, PartialEq)]
pub struct Followed {
    /// The run as it is now.
    pub run: AutomationRun,
    /// Whether it is new or its status changed (else only tool calls were added).
    pub status_changed: bool,
    /// How many of its tool calls (`actions_taken`) were shown before: the ones after
    /// are new.
    pub calls_shown: usize,
}

/// Hands `show` the runs of the store (of the automation `id`, or all) as they start, as
/// their status changes and as their LLM calls tools, oldest first, until SIGINT or
/// SIGTERM, or until `show` breaks. Runs that ended before it started are not shown;
/// every run that starts after is, even one that ended between two looks, and so is
/// every tool call, however many came between two looks.
pub fn follow_runs(
    store: &dyn RunStore,
    id: Option<&str>,
    show: &mut dyn FnMut(&[Followed]) -> ControlFlow<()>,
) -> Result<(), AutomationError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(AutomationError::AsyncRuntime)?;
    runtime.block_on(async {
        let mut interrupt =
            signal(SignalKind::interrupt()).map_err(AutomationError::AsyncRuntime)?;
        let mut terminate =
            signal(SignalKind::terminate()).map_err(AutomationError::AsyncRuntime)?;
        let mut poll = tokio::time::interval(FOLLOW_POLL);
        let mut changes = Changes::default();
        loop {
            tokio::select! {
                _ = poll.tick() => {}
                _ = interrupt.recv() => break,
                _ = terminate.recv() => break,
            }
            let runs = store.runs(id, FOLLOW_WINDOW)?;
            let news = changes.of(runs);
            if !news.is_empty() && show(&news).is_break() {
                break;
            }
        }
        Ok(())
    })
}

/// The runs seen on the previous look (status and tool calls), to tell which are new
/// or changed.
#[derive(Debug, Default)]
struct Changes {
    seen: HashMap<String, (RunStatus, usize)>,
    /// Whether a look happened: on the first, only running runs are news.
    looked: bool,
}

impl Changes {
    /// The runs of `newest_first` that started, changed status or called tools since the
    /// last look, oldest first.
    fn of(&mut self, newest_first: Vec<AutomationRun>) -> Vec<Followed> {
        let mut now_seen = HashMap::with_capacity(newest_first.len());
        let mut changed = Vec::new();
        for run in newest_first.into_iter().rev() {
            let calls = run
                .actions_taken
                .as_ref()
                .and_then(serde_json::Value::as_array)
                .map_or(0, Vec::len);
            let before = self.seen.get(&run.id).copied();
            let shown = match before {
                Some((status, calls_before)) => (status != run.status || calls_before < calls)
                    .then_some((status != run.status, calls_before)),
                None => (self.looked || run.status == RunStatus::Running).then_some((true, 0)),
            };
            now_seen.insert(run.id.clone(), (run.status, calls));
            if let Some((status_changed, calls_shown)) = shown {
                changed.push(Followed {
                    run,
                    status_changed,
                    calls_shown,
                });
            }
        }
        self.seen = now_seen;
        self.looked = true;
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: &str, status: RunStatus) -> AutomationRun {
        AutomationRun {
            id: id.to_owned(),
            automation_id: "a".to_owned(),
            project_id: "p".to_owned(),
            trigger_reason: "manual".to_owned(),
            status,
            event_data: None,
            context_results: None,
            prompt_sent: None,
            llm_response: None,
            actions_taken: None,
            skipped_reason: None,
            tokens_used: 0,
            started_at: 0.0,
            completed_at: None,
        }
    }

    fn ids(followed: &[Followed]) -> Vec<&str> {
        followed.iter().map(|f| f.run.id.as_str()).collect()
    }

    #[test]
    fn follow_shows_running_runs_first_then_every_new_run_and_status_change() {
        let mut changes = Changes::default();
        let first = changes.of(vec![
            run("b", RunStatus::Running),
            run("a", RunStatus::Completed),
        ]);
        assert_eq!(ids(&first), ["b"]);
        let next = changes.of(vec![
            run("c", RunStatus::Completed),
            run("b", RunStatus::Completed),
            run("a", RunStatus::Completed),
        ]);
        // guards: a run that started and ended between two looks is still shown.
        assert_eq!(ids(&next), ["b", "c"]);
        assert!(changes.of(vec![run("c", RunStatus::Completed)]).is_empty());
    }

    #[test]
    fn follow_shows_every_tool_call_added_between_two_looks() {
        let mut changes = Changes::default();
        let calls = |n: usize| {
            let mut r = run("r", RunStatus::Running);
            r.actions_taken = Some(serde_json::Value::Array(
                (0..n)
                    .map(|i| serde_json::json!({"name": format!("t{i}")}))
                    .collect(),
            ));
            r
        };
        let first = changes.of(vec![calls(1)]);
        assert_eq!((first[0].status_changed, first[0].calls_shown), (true, 0));
        let next = changes.of(vec![calls(3)]);
        assert_eq!((next[0].status_changed, next[0].calls_shown), (false, 1));
        assert!(changes.of(vec![calls(3)]).is_empty());
    }
}
