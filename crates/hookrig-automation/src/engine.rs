//! The automation engine: the gates a trigger passes (in-flight, trigger type, event type,
//! project, cooldown, the global cap), the last-run times, and the life of a run from
//! `running` to `completed`, `skipped`, `failed` or `interrupted`.
//!
//! What a run calls out to is behind three traits, so that the engine can be tested
//! with canned results and wired to the real thing by `hookrig serve`:
//! [`StepRunner`] (the context steps), [`LlmBackend`] (the providers) and
//! [`RunObserver`] (the notifiers).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hookrig_store::{
    AutomationLock, AutomationRun, Gate, NodeInfo, RunStatus, RunStore, Start, Store, StoreError,
};
use serde_json::{Map, Value, json};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::definition::{Automation, Trigger, parse_cron};
use crate::errors::AutomationError;
use crate::llm::estimate_tokens;
use crate::repository::Workspace;
use crate::shared_definitions::SharedDefinitions;
use crate::tools::{Action, ActionLog};
use crate::{skip, template};

/// A boxed future, for the dyn-compatible traits the engine calls out through.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Runs an automation's context steps.
///
/// Each result is a JSON object carrying `_step_index`. Dropping the future must stop
/// whatever the steps started (a run that times out or is interrupted drops it).
pub trait StepRunner: Send + Sync {
    /// The results of `automation.context_steps`, one per step, in order.
    fn run_steps<'a>(
        &'a self,
        automation: &'a Automation,
        event: Option<&'a Value>,
    ) -> BoxFuture<'a, Vec<Value>>;

    /// Where `automation` works (the directory its steps run in), described for the
    /// preamble; `None`, the default, leaves the workspace out of it.
    fn workspace<'a>(&'a self, automation: &'a Automation) -> BoxFuture<'a, Option<Workspace>> {
        let _ = automation;
        Box::pin(std::future::ready(None))
    }
}

/// Asks an LLM. Dropping the future must stop the request (or the CLI provider).
pub trait LlmBackend: Send + Sync {
    /// The reply to `prompt` with `automation.llm_config` applied, or why there is none.
    /// The tools the model calls on the way (those `automation.tools` grants) are
    /// called through `actions`, which records them.
    fn complete<'a>(
        &'a self,
        automation: &'a Automation,
        prompt: &'a str,
        actions: &'a ActionLog,
    ) -> BoxFuture<'a, Result<Answered, String>>;
}

/// What the LLM answered at the end of a run's loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answered {
    /// The final reply.
    pub text: String,
    /// The estimated tokens of the whole loop (what `tokens_used` records).
    pub tokens: u64,
}

/// A phase of a run, as notifiers report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunPhase<'a> {
    /// The run started.
    Started {
        /// `periodic`, `cron`, `event:<type>` or `manual`.
        trigger_reason: &'a str,
    },
    /// The run completed; `None` with `skip_llm`.
    Completed {
        /// The LLM's reply.
        response: Option<&'a str>,
    },
    /// A step's skip flag matched.
    Skipped {
        /// Which step's flag matched and why, e.g.
        /// `step_0: exit code 0 (skip_llm_if_exit_zero)`.
        reason: &'a str,
    },
    /// The run failed.
    Failed {
        /// Why.
        error: &'a str,
    },
    /// The model called a tool: the tools called so far, in order.
    Tools {
        /// Their names.
        chain: &'a [String],
    },
}

/// Told about every phase of every run; must not block (send in the background).
pub trait RunObserver: Send + Sync {
    /// `automation` reached `phase`.
    fn phase(&self, automation: &Automation, phase: RunPhase<'_>);
}

/// The engine's settings (`[automation]` of config.toml).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineSettings {
    /// The master switch (`[automation] enabled`): when false no trigger fires (events
    /// and ticks launch nothing); [`Engine::fire`] still runs an automation.
    pub enabled: bool,
    /// At most this many runs at once (`[automation] max_concurrent`).
    pub max_concurrent: usize,
    /// A run that takes longer fails.
    pub run_timeout: Duration,
}

impl Default for EngineSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            max_concurrent: 2,
            run_timeout: Duration::from_mins(5),
        }
    }
}

/// The current time in Unix seconds; injectable so that tests control the cooldown.
pub type Clock = Arc<dyn Fn() -> f64 + Send + Sync>;

/// The system clock.
pub fn system_clock() -> Clock {
    Arc::new(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64())
    })
}

/// What the engine calls out to.
#[derive(Clone)]
pub struct Wiring {
    /// The context steps.
    pub steps: Arc<dyn StepRunner>,
    /// The LLM.
    pub llm: Arc<dyn LlmBackend>,
    /// The notifiers, if any.
    pub observer: Option<Arc<dyn RunObserver>>,
    /// The clock.
    pub clock: Clock,
}

/// A store of runs shared with other nodes (docs/postgres.md): every start is decided
/// there ([`RunStore::start`]), so that several `hookrig serve` nodes on one database
/// fire each automation once.
#[derive(Clone)]
pub struct SharedRuns {
    /// The shared store.
    pub store: Arc<dyn RunStore + Send + Sync>,
    /// The automations' definitions the nodes share, run beside the node's own store's
    /// (see [`SharedDefinitions`]); `None`: the node's own store's alone.
    pub definitions: Option<Arc<SharedDefinitions>>,
    /// This node, as it tells the store on every tick.
    pub node: NodeInfo,
    /// How long a run's lease lasts without a renewal: a node that died is taken for
    /// dead, and its runs marked `interrupted`, this long after its last tick.
    pub lease: Duration,
}

/// Why a run was not launched.
enum Busy {
    /// Another process on this machine holds the automation's lock.
    Locked(AutomationLock),
    /// The shared store refused the start.
    Refused(Start),
    /// The shared store could not be asked: not starting is the safe side, as another
    /// node may have started the run.
    Unasked,
}

impl Busy {
    /// Why, for the row of an event that was not run.
    fn why(&self) -> String {
        match self {
            Busy::Locked(held) => format!(
                "a run of it ({}) was in flight in process {}",
                held.run_id, held.pid
            ),
            Busy::Refused(Start::InFlight { run_id, node }) => {
                format!("a run of it ({run_id}) was in flight on node {node}")
            }
            Busy::Refused(Start::Capped { in_flight }) => {
                format!("{in_flight} runs were in flight on the nodes of the store")
            }
            Busy::Refused(Start::Cooldown { last_start }) => {
                format!("the cooldown has not passed since its run at {last_start}")
            }
            Busy::Refused(Start::PeriodFired { run_id }) => {
                format!("the period was fired by run {run_id}")
            }
            Busy::Refused(Start::EventTaken { run_id }) => {
                format!("the event was taken by run {run_id}")
            }
            Busy::Refused(Start::Started) => "it was started".to_owned(),
            Busy::Unasked => "the shared store could not be reached".to_owned(),
        }
    }
}

/// What a run fires once for, on all the nodes of a shared store together.
#[derive(Debug, Clone, Copy)]
enum Once<'a> {
    /// Nothing: a manual run.
    Nothing,
    /// A period of a periodic or cron trigger (its start, in Unix seconds).
    Period(i64),
    /// An event, by the id it carries on every node.
    Event(&'a str),
}

/// Why `fire` did not produce a record.
#[derive(Debug, thiserror::Error)]
pub enum FireError {
    /// No automation has this id.
    #[error("Hook '{0}' not found")]
    NotFound(String),
    /// It is in flight: one run per automation at a time.
    #[error("Hook '{0}' is already running")]
    AlreadyRunning(String),
    /// Its project file changed since it was trusted: the stored version is stopped.
    #[error("Hook '{id}' is held: {reason}")]
    Held {
        /// The automation.
        id: String,
        /// Why, and what to do.
        reason: String,
    },
    /// The run was cancelled by shutdown before it finished.
    #[error("run {0} was interrupted before it finished")]
    Interrupted(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The stored automation cannot be read.
    #[error(transparent)]
    Automation(#[from] AutomationError),
}

/// The automation engine. Cheap to clone; clones share one state.
#[derive(Clone)]
pub struct Engine {
    inner: Arc<Inner>,
}

struct Inner {
    store: Mutex<Store>,
    /// Where runs are recorded and started when several nodes share them; `None`: in
    /// `store`.
    shared: Option<SharedRuns>,
    wiring: Wiring,
    settings: EngineSettings,
    state: Mutex<State>,
}

struct State {
    /// Automation id → its run in flight. A finished run stays here until the next
    /// `tick` cleans it up, and counts toward the cap until then.
    running: HashMap<String, InFlight>,
    /// Automation id → Unix seconds of its last launch.
    last_run: HashMap<String, f64>,
    /// When `tick` last looked at the cron triggers.
    last_check: f64,
}

struct InFlight {
    run_id: String,
    handle: JoinHandle<()>,
}

impl Engine {
    /// An engine on `store`. Each automation's last-run time is read from its newest
    /// run, so that a restart does not re-fire what just ran.
    ///
    /// Runs still `running` in the store are left alone: they may belong to another
    /// live process (a `serve`, or another `hookrig fire`). Taking them for a crash's
    /// leftovers is the job of the one process that owns the store's automations,
    /// `hookrig serve`, which does it once it holds the serve socket.
    pub fn new(
        store: Store,
        wiring: Wiring,
        settings: EngineSettings,
    ) -> Result<Engine, StoreError> {
        Engine::with_shared(store, None, wiring, settings)
    }

    /// An engine whose automations are read from `store` and whose runs are recorded and
    /// started in `shared` (a store other nodes share), or in `store` when it is `None`.
    pub fn with_shared(
        store: Store,
        shared: Option<SharedRuns>,
        wiring: Wiring,
        settings: EngineSettings,
    ) -> Result<Engine, StoreError> {
        let now = (wiring.clock)();
        // The shared definitions are read before the first event can come.
        if let Some(definitions) = shared.as_ref().and_then(|s| s.definitions.as_deref()) {
            definitions.refresh()?;
        }
        let last_run = match &shared {
            Some(shared) => shared.store.last_starts()?,
            None => store.automation_runs().last_starts()?,
        };
        Ok(Engine {
            inner: Arc::new(Inner {
                store: Mutex::new(store),
                shared,
                wiring,
                settings,
                state: Mutex::new(State {
                    running: HashMap::new(),
                    last_run,
                    last_check: now,
                }),
            }),
        })
    }

    /// Delivers an event to the event triggers. `payload` gets `_event_type`.
    ///
    /// Any accepted spelling of a catalog event names the same event (`PostToolUse` is
    /// `tool.after`): triggers hold canonical names, and so does `_event_type`.
    ///
    /// Must be called inside a tokio runtime: matching automations are spawned.
    ///
    /// On a shared store the event gets an id of its own, so that it starts at most one
    /// run of each automation (see [`Engine::on_shared_event`]).
    pub fn on_event(&self, event_type: &str, payload: Value) {
        let id = self.inner.shared.as_ref().map(|_| new_event_id());
        self.deliver(id.as_deref(), event_type, payload);
    }

    /// Delivers an event that carries the id `event_id`, the same on every node it
    /// reaches (sent by another node, or delivered to several): on a shared store, it
    /// starts at most one run of each automation that wants it, however many nodes it
    /// is delivered to and however many times, and is recorded as not run at most once
    /// ([`Gate::event`]). `payload` gets `_event_type` and `_event_id`.
    ///
    /// Must be called inside a tokio runtime: matching automations are spawned.
    pub fn on_shared_event(&self, event_id: &str, event_type: &str, payload: Value) {
        self.deliver(Some(event_id), event_type, payload);
    }

    fn deliver(&self, event_id: Option<&str>, event_type: &str, payload: Value) {
        if !self.inner.settings.enabled {
            return;
        }
        let event = hookrig_dialects::events::resolve(event_type);
        let event_type = event.as_str();
        let mut payload = match payload {
            Value::Object(map) => map,
            // A payload that is not an object has no fields to offer; it is kept.
            Value::Null => Map::new(),
            other => Map::from_iter([("payload".to_owned(), other)]),
        };
        payload.insert("_event_type".to_owned(), Value::from(event_type));
        if let Some(id) = event_id {
            payload.insert("_event_id".to_owned(), Value::from(id));
        }
        let event_project = payload
            .get("project_id")
            .and_then(Value::as_str)
            .filter(|p| !p.is_empty())
            .map(str::to_owned);
        let watch_id = payload
            .get("watch_id")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let Some(automations) = self.enabled_automations() else {
            return;
        };
        let now = self.now();
        let mut state = self.state();
        let mut capped = false;
        for automation in automations {
            let Trigger::Event {
                event_type: wanted,
                watch,
                ..
            } = &automation.trigger
            else {
                continue;
            };
            if wanted != event_type {
                continue;
            }
            // An automation with its own watch block takes only the events of that
            // watch, so one watching `docs/` does not run for another's `src/` changes;
            // one without (a plain `file.changed` trigger) sees every change of its
            // project.
            if watch.is_some() && watch_id.as_deref().is_some_and(|id| id != automation.id) {
                continue;
            }
            if event_project
                .as_deref()
                .is_some_and(|p| p != automation.scope_project())
            {
                continue;
            }
            // The in-flight gate comes after the automation is known to want the event,
            // so that an event it drops is recorded (below) rather than lost silently.
            let reason = format!("event:{event_type}");
            if let Some(run) = state.running.get(&automation.id) {
                let why = format!("a run of it ({}) was in flight", run.run_id);
                self.drop_event(&automation, &reason, &payload, &why, event_id);
                continue;
            }
            if !cooldown_passed(&state, &automation, now) {
                // The cooldown is the automation's own throttle, not a loss: only logged,
                // as one row per throttled event would bury its runs.
                tracing::debug!(automation = %automation.id, event = %event_type, "event not run: the cooldown has not passed");
                continue;
            }
            if capped || state.running.len() >= self.inner.settings.max_concurrent {
                // No further automation starts for this event; the ones after this one
                // that wanted it are still told that it was dropped.
                capped = true;
                let why = format!(
                    "max_concurrent ({}) runs were in flight",
                    self.inner.settings.max_concurrent
                );
                self.drop_event(&automation, &reason, &payload, &why, event_id);
                continue;
            }
            let once = event_id.map_or(Once::Nothing, Once::Event);
            if let Err(busy) = self.launch(
                &mut state,
                automation.clone(),
                reason.clone(),
                Some(Value::Object(payload.clone())),
                None,
                once,
            ) {
                // A cooldown another node's run started is the automation's own
                // throttle, as above, and an event another node (or this one) took
                // already is no loss at all: only logged.
                if matches!(
                    busy,
                    Busy::Refused(Start::Cooldown { .. } | Start::EventTaken { .. })
                ) {
                    tracing::debug!(automation = %automation.id, event = %event_type, "event not run: {}", busy.why());
                    continue;
                }
                self.drop_event(&automation, &reason, &payload, &busy.why(), event_id);
            }
        }
    }

    /// Records that `automation` did not run for an event it wanted, and why: a row with
    /// status `skipped`, `skipped_reason` `event not run: <why>`, the event, and no
    /// context results (nothing ran), shown by `hookrig auto runs`.
    ///
    /// An event with an id is recorded once, by the first node that does not run it,
    /// and not at all when a node ran it.
    fn drop_event(
        &self,
        automation: &Automation,
        trigger_reason: &str,
        payload: &Map<String, Value>,
        why: &str,
        event_id: Option<&str>,
    ) {
        tracing::debug!(automation = %automation.id, trigger = %trigger_reason, "event not run: {why}");
        let now = self.now();
        let row = AutomationRun {
            id: new_run_id(),
            automation_id: automation.id.clone(),
            project_id: automation.project_id.clone(),
            trigger_reason: trigger_reason.to_owned(),
            status: RunStatus::Skipped,
            event_data: Some(Value::Object(payload.clone())),
            context_results: None,
            prompt_sent: None,
            llm_response: None,
            actions_taken: None,
            skipped_reason: Some(format!("event not run: {why}")),
            tokens_used: 0,
            started_at: now,
            completed_at: Some(now),
        };
        let recorded = match (event_id, &self.inner.shared) {
            (Some(event), Some(shared)) => shared.store.record_dropped(&row, event).map(drop),
            _ => self.inner.record(&row),
        };
        if let Err(err) = recorded {
            tracing::error!(automation = %automation.id, error = %err, "cannot record a dropped event");
        }
    }

    /// One cycle: cleans up finished runs (logging failures), then examines the periodic
    /// and cron triggers.
    ///
    /// A cron trigger is due when its schedule has an occurrence after the previous
    /// tick (or the engine's start) and at or before now; occurrences missed while no
    /// engine ran are not caught up.
    pub async fn tick(&self) {
        self.clean_up().await;
        if !self.inner.settings.enabled {
            return;
        }
        if let Some(definitions) = self.shared_definitions() {
            match definitions.refresh() {
                Ok(refused) => {
                    for why in refused.unwrap_or_default() {
                        tracing::warn!("{why}");
                    }
                }
                Err(err) => {
                    tracing::error!(error = %err, "cannot read the shared automations; those read last stand");
                }
            }
        }
        let Some(automations) = self.enabled_automations() else {
            return;
        };
        let now = self.now();
        if let Some(shared) = &self.inner.shared {
            renew(shared, now);
        }
        let mut state = self.state();
        let since = std::mem::replace(&mut state.last_check, now);
        for automation in automations {
            if state.running.len() >= self.inner.settings.max_concurrent {
                break;
            }
            if state.running.contains_key(&automation.id) {
                continue;
            }
            let last = state.last_run.get(&automation.id).copied();
            // The period a run fires for: each fires once on all the nodes together.
            let (reason, period) = match &automation.trigger {
                Trigger::Periodic {
                    interval_seconds, ..
                } => {
                    #[expect(
                        clippy::cast_precision_loss,
                        reason = "intervals are far below 2^52 s"
                    )]
                    let interval = *interval_seconds as f64;
                    if now - last.unwrap_or(0.0) < interval {
                        continue;
                    }
                    ("periodic", period_of(now, *interval_seconds))
                }
                Trigger::Cron { expression, .. } => {
                    let Some(occurrence) = cron_due(expression, since, now) else {
                        continue;
                    };
                    ("cron", occurrence)
                }
                Trigger::Event { .. } => continue,
            };
            if !cooldown_passed(&state, &automation, now) {
                continue;
            }
            let timing = timing(now, last);
            // Run by another process now (a `hookrig fire` elsewhere): passed over as when
            // a run of it is in flight here (a periodic one is due again next tick).
            let _ = self.launch(
                &mut state,
                automation,
                reason.to_owned(),
                Some(timing),
                None,
                Once::Period(period),
            );
        }
    }

    /// Runs the automation `id` now, bypassing the cooldown but setting its last-run
    /// time, waits for the run and returns its record.
    pub async fn fire(&self, id: &str) -> Result<AutomationRun, FireError> {
        // A run that has ended is no longer in flight for a manual fire: without this,
        // firing again within one tick of the last run would be refused as running.
        self.clean_up().await;
        let shared = match self.shared_definitions() {
            Some(definitions) => definitions.get(id)?,
            None => None,
        };
        let row = match shared {
            Some(row) => Some(row),
            None => self.store().automations().get(id)?,
        }
        .ok_or_else(|| FireError::NotFound(id.to_owned()))?;
        let automation = Automation::from_row(row)?;
        if let Some(reason) = &automation.held {
            return Err(FireError::Held {
                id: id.to_owned(),
                reason: reason.clone(),
            });
        }
        let (done, wait) = oneshot::channel();
        let run_id = {
            let mut state = self.state();
            if state.running.contains_key(id) {
                return Err(FireError::AlreadyRunning(id.to_owned()));
            }
            self.launch(
                &mut state,
                automation,
                "manual".to_owned(),
                None,
                Some(done),
                Once::Nothing,
            )
            .map_err(|_| FireError::AlreadyRunning(id.to_owned()))?
        };
        wait.await.map_err(|_| FireError::Interrupted(run_id))
    }

    /// Cancels every run in flight, marks each `interrupted` (never left `running`) and
    /// waits for them.
    pub async fn shutdown(&self) {
        let running: Vec<(String, InFlight)> = self.state().running.drain().collect();
        let mut ids = Vec::with_capacity(running.len());
        for (id, flight) in running {
            flight.handle.abort();
            let _ = flight.handle.await;
            ids.push((id, flight.run_id));
        }
        let now = self.now();
        let run_ids: Vec<String> = ids.iter().map(|(_, run)| run.clone()).collect();
        if let Some(shared) = &self.inner.shared {
            if let Err(err) = shared.store.interrupt(&run_ids, now) {
                tracing::error!(error = %err, "cannot mark the cancelled runs interrupted");
            }
            return;
        }
        let store = self.store();
        if let Err(err) = store.automation_runs().interrupt(&run_ids, now) {
            tracing::error!(error = %err, "cannot mark the cancelled runs interrupted");
        }
        for (id, run) in &ids {
            unlock(&store, id, run);
        }
    }

    /// On a shared store: says this node is alive and extends the leases of its runs, as
    /// every tick does. For a process that runs automations without ticking (an
    /// in-process `hookrig fire`), whose run must not be taken for a dead node's while it
    /// lasts. Nothing without a shared store.
    pub fn renew_leases(&self) {
        if let Some(shared) = &self.inner.shared {
            renew(shared, self.now());
        }
    }

    /// The ids of the automations in flight (finished ones included until the next tick).
    pub fn in_flight(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.state().running.keys().cloned().collect();
        ids.sort();
        ids
    }

    /// The last-run time of `id`, in Unix seconds.
    pub fn last_run(&self, id: &str) -> Option<f64> {
        self.state().last_run.get(id).copied()
    }

    /// Launches a run of `automation`, once for `once` (a period, an event, or nothing);
    /// returns its run id, or why it was not launched: another process runs the
    /// automation now, or the shared store refused the start.
    ///
    /// A failure to take the local lock (the store is unwritable) does not stop the run:
    /// the run cannot be recorded either, and refusing it would hide why. A shared store
    /// that cannot be asked does: another node may be running it.
    fn launch(
        &self,
        state: &mut State,
        automation: Automation,
        trigger_reason: String,
        event: Option<Value>,
        done: Option<oneshot::Sender<AutomationRun>>,
        once: Once<'_>,
    ) -> Result<String, Busy> {
        let run_id = new_run_id();
        let now = self.now();
        let row = new_row(&automation, run_id.clone(), trigger_reason, event, now);
        if let Some(shared) = &self.inner.shared {
            #[expect(clippy::cast_precision_loss, reason = "cooldowns are far below 2^52 s")]
            let cooldown_seconds = if row.trigger_reason == "manual" {
                0.0
            } else {
                automation.cooldown_seconds as f64
            };
            let gate = Gate {
                node: &shared.node.id,
                cooldown_seconds,
                max_concurrent: self.inner.settings.max_concurrent,
                period: match once {
                    Once::Period(period) => Some(period),
                    _ => None,
                },
                event: match once {
                    Once::Event(event) => Some(event),
                    _ => None,
                },
                lease_seconds: shared.lease.as_secs_f64(),
                now,
            };
            match shared.store.start(&row, &gate) {
                Ok(Start::Started) => {}
                Ok(refused) => return Err(Busy::Refused(refused)),
                Err(err) => {
                    tracing::error!(automation = %automation.id, error = %err, "cannot start the run in the shared store");
                    return Err(Busy::Unasked);
                }
            }
        } else {
            match self
                .store()
                .automation_locks()
                .acquire(&automation.id, &run_id, now)
            {
                Ok(None) => {}
                Ok(Some(held)) => return Err(Busy::Locked(held)),
                Err(err) => {
                    tracing::error!(automation = %automation.id, error = %err, "cannot lock the automation");
                }
            }
        }
        // Set before the task starts, so that a rapid second trigger cannot race past
        // the cooldown.
        state.last_run.insert(automation.id.clone(), self.now());
        let id = automation.id.clone();
        let inner = Arc::clone(&self.inner);
        let handle = tokio::spawn(async move {
            let record = execute(&inner, &automation, row).await;
            if inner.shared.is_none() {
                unlock(&inner.lock_store(), &record.automation_id, &record.id);
            }
            if let Some(done) = done {
                let _ = done.send(record);
            }
        });
        state.running.insert(
            id,
            InFlight {
                run_id: run_id.clone(),
                handle,
            },
        );
        Ok(run_id)
    }

    async fn clean_up(&self) {
        let finished: Vec<(String, InFlight)> = {
            let mut state = self.state();
            let ids: Vec<String> = state
                .running
                .iter()
                .filter(|(_, f)| f.handle.is_finished())
                .map(|(id, _)| id.clone())
                .collect();
            ids.into_iter()
                .filter_map(|id| state.running.remove(&id).map(|f| (id, f)))
                .collect()
        };
        for (id, flight) in finished {
            if let Err(err) = flight.handle.await {
                // The task ended before it could release the lock.
                if self.inner.shared.is_none() {
                    unlock(&self.store(), &id, &flight.run_id);
                }
                tracing::error!(automation = %id, run = %flight.run_id, error = %err, "an automation run crashed");
                let now = self.now();
                if let Ok(Some(mut row)) = self.inner.run(&flight.run_id)
                    && row.status == RunStatus::Running
                {
                    row.status = RunStatus::Failed;
                    row.llm_response = Some(format!("the run crashed: {err}"));
                    row.completed_at = Some(now);
                    if let Err(err) = self.inner.record_end(&row) {
                        tracing::error!(error = %err, "cannot record the crashed run");
                    }
                }
            }
        }
    }

    /// The automations the engine may run now (enabled and not held): on a shared
    /// store, the shared definitions as the last tick read them, then this node's own
    /// for the ids those do not define.
    pub fn runnable_automations(&self) -> Vec<Automation> {
        self.enabled_automations().unwrap_or_default()
    }

    fn enabled_automations(&self) -> Option<Vec<Automation>> {
        let rows = match self.store().automations().list(true) {
            Ok(rows) => rows,
            Err(err) => {
                tracing::error!(error = %err, "cannot read the automations");
                return None;
            }
        };
        let rows = match self.shared_definitions() {
            Some(definitions) => definitions.runnable(rows),
            None => rows,
        };
        Some(
            rows.into_iter()
                .filter_map(|row| {
                    Automation::from_row(row)
                        .inspect_err(|err| tracing::error!(error = %err, "automation skipped"))
                        .ok()
                })
                .collect(),
        )
    }

    fn now(&self) -> f64 {
        (self.inner.wiring.clock)()
    }

    fn shared_definitions(&self) -> Option<&SharedDefinitions> {
        self.inner.shared.as_ref()?.definitions.as_deref()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.inner
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn store(&self) -> MutexGuard<'_, Store> {
        self.inner.lock_store()
    }
}

impl Inner {
    // A std mutex: every store call is a short SQLite statement and never awaits.
    fn lock_store(&self) -> MutexGuard<'_, Store> {
        self.store.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records a run that passed no gate (an event not run), where runs are kept.
    fn record(&self, row: &AutomationRun) -> Result<(), StoreError> {
        match &self.shared {
            Some(shared) => shared.store.record(row),
            None => self.lock_store().automation_runs().insert(row),
        }
    }

    /// Records the end of a run, where runs are kept (freeing its lease when shared).
    fn record_end(&self, row: &AutomationRun) -> Result<(), StoreError> {
        match &self.shared {
            Some(shared) => shared.store.finish(row),
            None => self.lock_store().automation_runs().update(row),
        }
    }

    /// One run, where runs are kept.
    fn run(&self, id: &str) -> Result<Option<AutomationRun>, StoreError> {
        match &self.shared {
            Some(shared) => shared.store.run(id),
            None => self.lock_store().automation_runs().get(id),
        }
    }
}

/// Tells the shared store that this node lives (renewing the leases of its runs), marks
/// the runs of nodes whose leases expired `interrupted`, and forgets the events older
/// than [`EVENT_MEMORY`]. Failures are logged: the next tick tries again, and a lease
/// outlives several ticks.
fn renew(shared: &SharedRuns, now: f64) {
    let node = NodeInfo {
        heartbeat_at: now,
        ..shared.node.clone()
    };
    if let Err(err) = shared.store.heartbeat(&node, shared.lease.as_secs_f64()) {
        tracing::error!(error = %err, "cannot renew this node's leases in the shared store");
    }
    match shared.store.interrupt_expired(now) {
        Ok(runs) => {
            for run in runs {
                tracing::warn!(run = %run, "run marked interrupted: its node stopped renewing its lease");
            }
        }
        Err(err) => tracing::error!(error = %err, "cannot sweep the expired leases"),
    }
    if let Err(err) = shared.store.forget_events(now - EVENT_MEMORY.as_secs_f64()) {
        tracing::error!(error = %err, "cannot forget the old events");
    }
}

/// How long a shared store remembers which events started runs (and, on PostgreSQL,
/// the events sent): an event delivered again within it starts no second run; a node
/// whose connection was down for longer misses what was sent before.
const EVENT_MEMORY: Duration = Duration::from_hours(1);

/// The period of a periodic trigger every `interval` seconds that `now` falls in: the
/// start of it, in Unix seconds. Every node computes the same one.
fn period_of(now: f64, interval: u64) -> i64 {
    #[expect(
        clippy::cast_possible_truncation,
        reason = "Unix seconds of real clocks fit in i64"
    )]
    let now = now.floor() as i64;
    let interval = i64::try_from(interval.max(1)).unwrap_or(i64::MAX);
    now - now.rem_euclid(interval)
}

/// A new run of `automation`, `running` from `now`.
fn new_row(
    automation: &Automation,
    id: String,
    trigger_reason: String,
    event: Option<Value>,
    now: f64,
) -> AutomationRun {
    AutomationRun {
        id,
        automation_id: automation.id.clone(),
        project_id: automation.project_id.clone(),
        trigger_reason,
        status: RunStatus::Running,
        event_data: event,
        context_results: None,
        prompt_sent: None,
        llm_response: None,
        actions_taken: None,
        skipped_reason: None,
        tokens_used: 0,
        started_at: now,
        completed_at: None,
    }
}

/// Releases the lock of `automation_id` held by `run_id`, logging a failure (a lock
/// left behind is taken over once this process has ended).
fn unlock(store: &Store, automation_id: &str, run_id: &str) {
    if let Err(err) = store.automation_locks().release(automation_id, run_id) {
        tracing::error!(automation = %automation_id, error = %err, "cannot unlock the automation");
    }
}

/// `now - last_run >= cooldown`; an automation that never ran passes.
fn cooldown_passed(state: &State, automation: &Automation, now: f64) -> bool {
    #[expect(clippy::cast_precision_loss, reason = "cooldowns are far below 2^52 s")]
    let cooldown = automation.cooldown_seconds as f64;
    now - state.last_run.get(&automation.id).copied().unwrap_or(0.0) >= cooldown
}

/// The first occurrence of the cron `expression` in `(since, now]`, in Unix seconds, if
/// it has one.
fn cron_due(expression: &str, since: f64, now: f64) -> Option<i64> {
    let cron = parse_cron(expression).ok()?;
    let start = datetime(since)?;
    let next = cron.find_next_occurrence(&start, false).ok()?;
    (next <= datetime(now)?).then(|| next.timestamp())
}

fn datetime(seconds: f64) -> Option<chrono::DateTime<chrono::Utc>> {
    #[expect(
        clippy::cast_possible_truncation,
        reason = "Unix seconds of real clocks fit in i64"
    )]
    let whole = seconds.floor() as i64;
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "the fraction is in [0, 1)"
    )]
    let nanos = ((seconds - seconds.floor()) * 1e9) as u32;
    chrono::DateTime::from_timestamp(whole, nanos.min(999_999_999))
}

/// ISO 8601 UTC, to the second.
fn iso(seconds: f64) -> String {
    datetime(seconds).map_or_else(String::new, |t| {
        t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    })
}

/// The timing fields of a periodic run; the last three only after a first run.
fn timing(now: f64, last: Option<f64>) -> Value {
    let mut timing = json!({"current_time": iso(now), "current_time_epoch": now});
    if let Some(last) = last {
        timing["last_run_time"] = Value::from(iso(last));
        timing["last_run_time_epoch"] = Value::from(last);
        timing["seconds_since_last_run"] = Value::from(now - last);
    }
    timing
}

/// A run id: the first 12 characters of a UUID v4.
fn new_run_id() -> String {
    uuid::Uuid::new_v4().to_string()[..12].to_owned()
}

/// A new event's id, unique among every node's (a UUID v7: time-ordered, so that the
/// events of a store sort by when they happened).
pub(crate) fn new_event_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// The context preamble put before the rendered prompt: the automation, its project,
/// its workspace, why it runs, the workspace's repository and default branch when it
/// has a remote, and for periodic and cron runs the timing (only the current time on
/// the first run).
pub fn preamble(
    automation: &Automation,
    trigger_reason: &str,
    event: Option<&Value>,
    workspace: Option<&Workspace>,
) -> String {
    let mut text = String::from("## Automation context\n\n");
    let _ = writeln!(
        text,
        "- Automation: {} ({})",
        automation.name, automation.id
    );
    let _ = writeln!(text, "- Project: {}", automation.project_id);
    if let Some(workspace) = workspace {
        let _ = writeln!(text, "- Workspace: {}", workspace.path.display());
    }
    let _ = writeln!(text, "- Trigger: {trigger_reason}");
    if let Some(repository) = workspace.and_then(|w| w.repository.as_ref()) {
        let _ = writeln!(text, "- Repository: {}", repository.url);
        if let Some(branch) = &repository.default_branch {
            let _ = writeln!(text, "- Default branch: {branch}");
        }
    }
    if matches!(trigger_reason, "periodic" | "cron")
        && let Some(event) = event
    {
        let field = |name: &str| event.get(name).and_then(Value::as_str).unwrap_or_default();
        let _ = writeln!(text, "- Current time: {}", field("current_time"));
        if let Some(last) = event.get("last_run_time").and_then(Value::as_str) {
            let since = event
                .get("seconds_since_last_run")
                .and_then(Value::as_f64)
                .unwrap_or_default();
            let _ = writeln!(text, "- Last run: {last} ({since:.0} seconds ago)");
        }
    }
    text.push_str("\n## Task\n\n");
    text
}

enum Outcome {
    Skipped(String),
    Completed {
        prompt: Option<String>,
        response: Option<String>,
        tokens: u64,
    },
    Failed {
        prompt: Option<String>,
        error: String,
    },
}

/// The log of the tool calls of the run `run_id`: each call, as it ends, is written
/// into the run's row (so that `auto runs --follow` sees it) and told to the observer.
fn action_log(inner: &Arc<Inner>, automation: &Automation, run_id: &str) -> ActionLog {
    let inner = Arc::clone(inner);
    let automation = automation.clone();
    let run_id = run_id.to_owned();
    ActionLog::watched(Arc::new(move |actions: &[Action]| {
        let recorded = serde_json::to_value(actions).expect("actions serialize");
        let recorded_in = match &inner.shared {
            Some(shared) => shared.store.set_actions(&run_id, &recorded),
            None => inner
                .lock_store()
                .automation_runs()
                .set_actions(&run_id, &recorded),
        };
        if let Err(err) = recorded_in {
            tracing::error!(automation = %automation.id, error = %err, "cannot record a tool call");
        }
        if let Some(observer) = &inner.wiring.observer {
            let chain: Vec<String> = actions.iter().map(|a| a.name.clone()).collect();
            observer.phase(&automation, RunPhase::Tools { chain: &chain });
        }
    }))
}

/// One run, from the `running` row to its terminal status; returns the final record.
async fn execute(
    inner: &Arc<Inner>,
    automation: &Automation,
    mut row: AutomationRun,
) -> AutomationRun {
    let clock = &inner.wiring.clock;
    // A shared store recorded the run when it let it start.
    if inner.shared.is_none()
        && let Err(err) = inner.lock_store().automation_runs().insert(&row)
    {
        tracing::error!(automation = %automation.id, error = %err, "cannot record the run");
    }
    let observe = |phase: RunPhase<'_>| {
        if let Some(observer) = &inner.wiring.observer {
            observer.phase(automation, phase);
        }
    };
    observe(RunPhase::Started {
        trigger_reason: &row.trigger_reason,
    });

    // The step results and the tool calls are kept outside the timed part, so that a
    // run that times out while asking the LLM still records what it gathered and did.
    let gathered: Mutex<Option<Vec<Value>>> = Mutex::new(None);
    let actions = action_log(inner, automation, &row.id);
    let timeout = inner.settings.run_timeout;
    let outcome = match tokio::time::timeout(
        timeout,
        pipeline(
            inner,
            automation,
            &row.trigger_reason,
            row.event_data.as_ref(),
            &gathered,
            &actions,
        ),
    )
    .await
    {
        Ok(outcome) => outcome,
        Err(_) => Outcome::Failed {
            prompt: None,
            error: format!("run timed out after {}s", timeout.as_secs_f64()),
        },
    };
    let results = gathered
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
        .unwrap_or_default();
    row.context_results = Some(Value::Array(results));
    let actions = actions.actions();
    if !actions.is_empty() {
        row.actions_taken = Some(serde_json::to_value(actions).expect("actions serialize"));
    }
    match outcome {
        Outcome::Skipped(reason) => {
            row.status = RunStatus::Skipped;
            observe(RunPhase::Skipped { reason: &reason });
            row.skipped_reason = Some(reason);
        }
        Outcome::Completed {
            prompt,
            response,
            tokens,
        } => {
            row.status = RunStatus::Completed;
            observe(RunPhase::Completed {
                response: response.as_deref(),
            });
            row.prompt_sent = prompt;
            row.llm_response = response;
            row.tokens_used = i64::try_from(tokens).unwrap_or(i64::MAX);
        }
        Outcome::Failed { prompt, error } => {
            row.status = RunStatus::Failed;
            observe(RunPhase::Failed { error: &error });
            if prompt.is_some() {
                row.prompt_sent = prompt;
            }
            row.llm_response = Some(error);
        }
    }
    row.completed_at = Some(clock());
    if let Err(err) = inner.record_end(&row) {
        tracing::error!(automation = %automation.id, error = %err, "cannot record the end of the run");
    }
    row
}

async fn pipeline(
    inner: &Inner,
    automation: &Automation,
    trigger_reason: &str,
    event: Option<&Value>,
    gathered: &Mutex<Option<Vec<Value>>>,
    actions: &ActionLog,
) -> Outcome {
    let results = inner.wiring.steps.run_steps(automation, event).await;
    let reason = skip::skip_reason(&automation.context_steps, &results);
    let rendered = (reason.is_none() && !automation.trigger.skip_llm())
        .then(|| template::render(&automation.prompt_template, &results, event));
    *gathered.lock().unwrap_or_else(PoisonError::into_inner) = Some(results);
    if let Some(reason) = reason {
        return Outcome::Skipped(reason);
    }
    let Some(rendered) = rendered else {
        return Outcome::Completed {
            prompt: None,
            response: None,
            tokens: 0,
        };
    };
    let workspace = inner.wiring.steps.workspace(automation).await;
    let prompt = preamble(automation, trigger_reason, event, workspace.as_ref()) + &rendered;
    let estimate = estimate_tokens(&prompt, "");
    if let Some(max) = automation.max_tokens_per_run
        && estimate > max
    {
        return Outcome::Failed {
            error: format!(
                "the prompt's estimated {estimate} tokens exceed max_tokens_per_run ({max}); the llm was not called"
            ),
            prompt: Some(prompt),
        };
    }
    match inner
        .wiring
        .llm
        .complete(automation, &prompt, actions)
        .await
    {
        Ok(answered) => Outcome::Completed {
            tokens: answered.tokens,
            prompt: Some(prompt),
            response: Some(answered.text),
        },
        Err(error) => Outcome::Failed {
            prompt: Some(prompt),
            error,
        },
    }
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "engine_shared_tests.rs"]
mod shared_tests;
