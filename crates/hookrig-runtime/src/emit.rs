//! One emit end to end: load the config for where the event happened, record that the
//! emit started, run the hooks, hand the caller the decision to answer with, then record
//! the emit, tell a running `hookrig serve`, and wait (boundedly) for async hooks.
//!
//! The steps are three calls, so that the host has its answer before anything it does
//! not need is done: [`Emit::prepare`], [`Prepared::dispatch`], [`Decided::finish`].

use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hookrig_core::{
    Bus, Dialect, Dispatched, Event, EventContext, EventName, HookResult, Mode, Outcome, Payload,
    Registry, SkipReason, dispatch,
};
use hookrig_dialects::{LoadOptions, LoadedConfig};
use hookrig_exec::{AsyncPool, ProcessGroups};
use hookrig_store::{EmitDecision, EmitRecord};

use crate::ledger::Sink;
use crate::services::{EmitServices, MemoryAt};

use crate::errors::RuntimeError;
use crate::interrupt::{self, Interrupt, StopSignal};
use crate::keeper::{Dirs, KeeperJob, KeptHook};
use crate::scope::{Scope, working_dir};
use crate::{ingress, ledger, registry};

/// One event to emit.
#[derive(Debug, Clone)]
pub struct EmitRequest {
    /// The event.
    pub name: EventName,
    /// Its payload.
    pub payload: Payload,
    /// The session id (may be empty).
    pub session_id: String,
    /// The host's dialect, recorded in the ledger.
    pub host: Dialect,
    /// The agent emitting: selects the plugin packages enabled for it.
    pub agent: Option<String>,
    /// Extra x-code plugin directories.
    pub plugin_dirs: Vec<PathBuf>,
    /// What is switched off for this emit.
    pub suppress: Suppress,
    /// In-process plugins whose subscriptions join the chain (an embedder's bus).
    pub bus: Option<Bus>,
}

impl EmitRequest {
    /// A request for `name` with `payload` from a native host, with nothing else set.
    pub fn new(name: EventName, payload: Payload) -> Self {
        Self {
            name,
            payload,
            session_id: String::new(),
            host: Dialect::Native,
            agent: None,
            plugin_dirs: Vec::new(),
            suppress: Suppress::default(),
            bus: None,
        }
    }
}

/// x-code's switches to find out whether a hook or a plugin is what makes an agent hang:
/// `--no-hooks` (everything loads, no hook runs) and `--no-plugins` (nothing from
/// plugins loads, the other hooks run).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Suppress {
    /// Run no hook.
    pub hooks: bool,
    /// Load nothing from plugins.
    pub plugins: bool,
    /// Run only the hooks that declared they have no side effects (`hookrig replay`).
    #[serde(default)]
    pub side_effects: bool,
}

impl Suppress {
    /// Holds back every hook of `registry` with `--no-hooks`, and says that plugins were
    /// not loaded with `--no-plugins`.
    fn apply(self, registry: &mut Registry, warnings: &mut Vec<String>) {
        if self.plugins {
            warnings.push("plugins not loaded (--no-plugins)".to_owned());
        }
        if self.hooks {
            registry.suppress_hooks();
        }
        if self.side_effects {
            registry.hold_side_effects();
        }
    }

    /// Says, with `--no-hooks`, how many hooks of the event were held back.
    fn report(self, dispatched: &Dispatched, warnings: &mut Vec<String>) {
        if !self.hooks {
            return;
        }
        let held = dispatched
            .records
            .iter()
            .filter(|r| r.skip == Some(SkipReason::Suppressed))
            .count();
        warnings.push(format!(
            "hooks suppressed (--no-hooks or HOOKRIG_NO_HOOKS): {held} hook{} of {} not run",
            if held == 1 { "" } else { "s" },
            dispatched.event
        ));
    }
}

/// The directory an event happened in: `flag` (`--cwd`, which must exist), else the
/// payload's `session.cwd` (or flat `cwd`) when it is an existing absolute directory,
/// else the current directory.
pub fn event_dir(flag: Option<&Path>, payload: &Payload) -> Result<PathBuf, RuntimeError> {
    let here = working_dir(None)?;
    event_dir_from(flag, payload, &here)
}

/// [`event_dir`] for a process whose current directory is `here`.
pub(crate) fn event_dir_from(
    flag: Option<&Path>,
    payload: &Payload,
    here: &Path,
) -> Result<PathBuf, RuntimeError> {
    if flag.is_some() {
        return working_dir(flag);
    }
    if let Some(dir) = payload.session_cwd().map(PathBuf::from)
        && dir.is_absolute()
        && dir.is_dir()
    {
        return Ok(hookrig_config::normal_path(&dir));
    }
    Ok(here.to_owned())
}

/// The agent a payload names (`session.agent`), for an emit whose scope names none.
pub fn payload_agent(payload: &Payload) -> Option<String> {
    payload
        .as_map()
        .get("session")
        .and_then(|s| s.get("agent"))
        .and_then(serde_json::Value::as_str)
        .map(str::to_owned)
}

/// The async runtime of this thread, built on its first emit and kept for the next:
/// building one (an epoll instance, timers) costs more than a short emit, and a resident
/// engine's threads make many emits each.
fn thread_runtime() -> Result<Rc<tokio::runtime::Runtime>, RuntimeError> {
    thread_local! {
        static RUNTIME: std::cell::OnceCell<Rc<tokio::runtime::Runtime>> =
            const { std::cell::OnceCell::new() };
    }
    RUNTIME.with(|cell| {
        if let Some(runtime) = cell.get() {
            return Ok(Rc::clone(runtime));
        }
        let runtime = Rc::new(
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(RuntimeError::AsyncRuntime)?,
        );
        Ok(Rc::clone(cell.get_or_init(|| runtime)))
    })
}

/// Whether an emit watches for SIGINT, SIGTERM and SIGHUP while its hooks run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signals {
    /// It does: a signal kills every hook's group, and the emit still answers.
    Watch,
    /// The caller handles signals (a resident engine stops all its emits at once).
    Ignore,
}

/// Starts emits.
#[derive(Debug)]
pub struct Emit;

impl Emit {
    /// Loads the config for the scope's working directory and opens the ledger (the
    /// emit's start is recorded once it has hooks to run). A ledger that cannot be read or written never stops the hooks from
    /// deciding: the emit then goes unrecorded, and the warnings say why. A config that
    /// cannot be loaded at all (no home directory) is recorded as an emit that failed.
    pub fn prepare(scope: &Scope, request: EmitRequest) -> Result<Prepared, RuntimeError> {
        let started = Instant::now();
        let EmitRequest {
            name,
            payload,
            session_id,
            host,
            agent,
            plugin_dirs,
            suppress,
            bus,
        } = request;
        let mut entry = EmitRecord {
            run_id: uuid::Uuid::now_v7().to_string(),
            started_at_ms: hookrig_store::now_ms(),
            event: name.as_str().to_owned(),
            dialect: host,
            cwd: scope.cwd().display().to_string(),
            session_id: session_id.clone(),
            // An empty name (`HOOKRIG_AGENT=`) names no agent.
            agent: agent.clone().filter(|agent| !agent.is_empty()),
            decision: EmitDecision::Running,
            reason: None,
            decided_by: None,
            duration_ms: 0.0,
            payload_in: ledger::json_text(&payload),
            payload_out: String::new(),
            warnings: Vec::new(),
            hooks: Vec::new(),
            by_engine: scope.host_env.is_some(),
        };
        let mut warnings = Vec::new();
        let mut ledger_path = scope.ledger().map(ToOwned::to_owned);
        // The plugin registry lives in the store file; `--no-ledger` only stops recording.
        let (packages, store) =
            match ledger::enabled_packages(scope, agent.as_deref(), &mut warnings) {
                Ok(found) => found,
                Err(err) => {
                    warnings.push(format!(
                        "ledger: {}; plugin packages were not loaded and this emit is not recorded",
                        ledger::chain(&err)
                    ));
                    ledger_path = None;
                    (Vec::new(), None)
                }
            };
        let keeper =
            KeeperSeed::for_emit(scope, bus.as_ref(), &plugin_dirs, &packages, suppress, host);
        let options = LoadOptions {
            plugin_dirs,
            trust_only_for: Some((name.clone(), payload.clone())),
            packages,
            no_plugins: suppress.plugins,
            host: Some(host),
        };
        let config = match registry::load(scope, &options) {
            Ok(config) => config,
            Err(err) => {
                // A broken config is the first thing to check when a hook "did not
                // fire": keep a record of the emit it stopped.
                entry.decision = EmitDecision::Error;
                entry.reason = Some(err.to_string());
                entry.duration_ms = hookrig_core::duration_ms(started.elapsed());
                if let Some(path) = &ledger_path {
                    ledger::record_failed(store, path, &entry, scope.ledger_writers.as_ref());
                }
                return Err(err);
            }
        };
        // A source with an error was left out, and its errors are among these: the
        // other sources' hooks still decide, and the host's user is told.
        let mut config_warnings: Vec<String> =
            config.warnings.iter().map(ToString::to_string).collect();
        let store = ledger_path.as_deref().and_then(|path| {
            ledger::sink(store, path, scope.ledger_writers.as_ref(), &mut warnings)
        });
        // Said once, in the Outcome: the end does not try the same file again.
        if store.is_none() {
            ledger_path = None;
        }
        config_warnings.append(&mut warnings);
        Ok(Prepared {
            started,
            entry,
            ledger_path,
            store,
            config,
            warnings: config_warnings,
            event: Event {
                context: Arc::new(EventContext {
                    name,
                    session_id,
                    cwd: scope.cwd().to_owned(),
                    env: scope.host_env.clone(),
                }),
                payload,
            },
            suppress,
            bus,
            keeper,
            running_row_after: RUNNING_ROW_AFTER,
        })
    }
}

/// What a keeper needs to load the configuration an emit loaded.
#[derive(Debug, Clone)]
struct KeeperSeed {
    env: hookrig_config::Environment,
    plugin_dirs: Vec<PathBuf>,
    packages: Vec<(String, PathBuf)>,
    no_plugins: bool,
    host: Dialect,
}

impl KeeperSeed {
    /// A one-shot emit of this process's own (no engine acting for a host, no
    /// embedder's in-process subscribers) can hand its async hooks to a keeper, which
    /// loads the same configuration: what it needs for that is kept.
    fn for_emit(
        scope: &Scope,
        bus: Option<&Bus>,
        plugin_dirs: &[PathBuf],
        packages: &[hookrig_dialects::PackageRef],
        suppress: Suppress,
        host: Dialect,
    ) -> Option<KeeperSeed> {
        (hookrig_exec::keeper::armed() && scope.host_env.is_none() && bus.is_none()).then(|| {
            KeeperSeed {
                env: scope.env.clone(),
                plugin_dirs: plugin_dirs.to_vec(),
                packages: packages
                    .iter()
                    .map(|package| (package.id.clone(), package.path.clone()))
                    .collect(),
                no_plugins: suppress.plugins,
                host,
            }
        })
    }
}

/// An emit whose config is loaded and whose start is recorded.
#[derive(Debug)]
pub struct Prepared {
    started: Instant,
    entry: EmitRecord,
    ledger_path: Option<PathBuf>,
    /// Where the emit's rows go: its own connection, or the engine's writer.
    store: Option<Sink>,
    config: LoadedConfig,
    warnings: Vec<String>,
    event: Event,
    suppress: Suppress,
    bus: Option<Bus>,
    /// Set when the async hooks may go to a keeper.
    keeper: Option<KeeperSeed>,
    /// How long hooks run before the emit's `running` row is written to its own
    /// connection ([`RUNNING_ROW_AFTER`]).
    running_row_after: Duration,
}

/// How long an emit's hooks run before its `running` row is written, when the emit
/// writes to a ledger connection of its own (a one-shot `hookrig emit`).
///
/// The row is what an emit killed while its hooks run leaves behind (marked
/// `interrupted` later). Written before the hooks start, it is a transaction of its
/// own on every emit: a third of the ledger's cost of an emit whose hook ends in a
/// millisecond. Most hooks end well within this (a shell guard in a few milliseconds, a
/// Python hook's interpreter starts in about 30), and then the emit writes its one row
/// at the end. What is given up is the row of an emit killed with SIGKILL in its
/// first 50 ms, the trade the guardian of hook processes makes for its own start
/// (`hookrig_exec::guardian::GRACE`): a host's timeout, or a person's Ctrl-C, comes
/// later, and SIGINT, SIGTERM and SIGHUP are recorded as they are anyway. An engine's
/// emits queue their start to its writer at once, which costs them nothing.
pub const RUNNING_ROW_AFTER: Duration = Duration::from_millis(50);

impl Prepared {
    /// Writes the `running` row after `after` instead of [`RUNNING_ROW_AFTER`]: zero
    /// writes it before the hooks start.
    #[must_use]
    pub fn with_running_row_after(mut self, after: Duration) -> Prepared {
        self.running_row_after = after;
        self
    }

    /// What was found wrong so far: broken sources left out, a ledger that cannot be
    /// used. The Outcome carries them.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The loaded config.
    pub fn config(&self) -> &LoadedConfig {
        &self.config
    }

    /// Runs the hooks. SIGINT, SIGTERM and SIGHUP meanwhile kill every hook's process
    /// group; the hooks are then recorded as interrupted and the emit still answers.
    pub fn dispatch(self) -> Result<Decided, RuntimeError> {
        self.dispatch_with(ProcessGroups::new(), Signals::Watch)
    }

    /// [`Prepared::dispatch`] with the hooks' process groups in `groups` (a resident
    /// engine kills them when it stops), watching for signals or leaving them to the
    /// caller.
    pub fn dispatch_with(
        self,
        groups: ProcessGroups,
        signals: Signals,
    ) -> Result<Decided, RuntimeError> {
        let Prepared {
            started,
            entry,
            ledger_path,
            store,
            config,
            mut warnings,
            event,
            suppress,
            bus,
            keeper,
            running_row_after,
        } = self;
        // A worker's questions (a plugin's `ctx.memory`) are answered from this emit's
        // store, for the project the event happened in: the PostgreSQL store when the
        // emit records into one (an engine whose store the operator named), so that the
        // plugin reads the memory the nodes share.
        let memory = match store.as_ref().and_then(Sink::database) {
            Some(url) => MemoryAt::Database(url.to_owned()),
            None => MemoryAt::Ledger(ledger_path.clone()),
        };
        let services = Arc::new(EmitServices::new(
            memory,
            hookrig_config::project_id(&event.context.cwd),
        ));
        let asked: Arc<dyn hookrig_exec::Services> = services.clone();
        // Held, not started, when a keeper may run them: where they run is decided once
        // the host has its answer.
        let keeper = keeper.map(|seed| Handover {
            seed,
            session_id: event.context.session_id.clone(),
            payload_in: entry.payload_in.clone(),
            hooks: config
                .hooks
                .iter()
                .filter(|def| {
                    def.spec.mode == Mode::Async && def.spec.listens_to(&event.context.name)
                })
                .cloned()
                .collect(),
        });
        // The `running` row is what an emit killed while its hooks run leaves behind.
        // An emit with nothing to run is never in that state: it writes its one row at
        // the end, a transaction less for every event no hook runs for. A hook runs
        // only when it matches the payload as the hooks before it left it, and only a
        // hook that runs changes the payload: so when no hook matches the payload as
        // the host sent it, none runs.
        let may_run = bus.is_some()
            || config.hooks.iter().any(|def| {
                def.spec.untrusted.is_none()
                    && def.spec.would_run(&event.context.name, &event.payload)
            });
        // On a connection of its own, once the hooks have run for a while (see
        // RUNNING_ROW_AFTER); queued to an engine's writer, at once.
        let starting = store.as_ref().filter(|_| may_run);
        let begin_later =
            starting.filter(|sink| matches!(sink, Sink::Direct(_)) && !running_row_after.is_zero());
        let begun_at_once = starting.is_some() && begin_later.is_none();
        // What was read of the config above is all an emit needs of it but its hooks.
        let mut registry =
            registry::registry_of(config, &groups, entry.agent.as_deref(), Some(&asked));
        if let Some(bus) = &bus {
            registry.attach_bus(bus);
        }
        if let Some(sink) = starting.filter(|_| begun_at_once) {
            sink.begin(&entry);
        }
        suppress.apply(&mut registry, &mut warnings);
        let runtime = thread_runtime()?;
        let pool = if keeper.is_some() {
            AsyncPool::holding(AsyncPool::DEFAULT_CAP)
        } else {
            AsyncPool::default()
        };
        let (dispatched, interrupt, begun_while_running) = runtime.block_on(async {
            let interrupt = match signals {
                Signals::Watch => interrupt::watch(groups.clone()),
                Signals::Ignore => Interrupt::default(),
            };
            let context = Arc::clone(&event.context);
            let work = async {
                let mut dispatched = dispatch(&registry, event, &pool).await;
                deliver_plugin_errors(&registry, &services, &context, &pool, &mut dispatched).await;
                dispatched
            };
            let (dispatched, begun) =
                begin_while(work, begin_later, &entry, running_row_after).await;
            (dispatched, interrupt, begun)
        });
        warnings.extend(dispatched.warnings.iter().cloned());
        suppress.report(&dispatched, &mut warnings);
        Ok(Decided {
            dispatched,
            warnings,
            started,
            entry,
            ledger_path,
            store,
            begun: begun_at_once || begun_while_running,
            runtime,
            pool,
            groups,
            interrupt,
            keeper,
        })
    }
}

/// Runs `work`, writing the `running` row of `entry` through `sink` if it has not ended
/// `after` in; with whether it was written. The hooks' processes run on meanwhile, and
/// their output waits in its pipes.
async fn begin_while<T>(
    work: impl Future<Output = T>,
    sink: Option<&Sink>,
    entry: &EmitRecord,
    after: Duration,
) -> (T, bool) {
    let Some(sink) = sink else {
        return (work.await, false);
    };
    tokio::pin!(work);
    tokio::select! {
        done = &mut work => (done, false),
        () = tokio::time::sleep(after) => {
            sink.begin(entry);
            (work.await, true)
        }
    }
}

/// Delivers the failures plugins reported while the event's chain ran as
/// `plugin.error@v1` events, one after another, to every hook and bus subscriber that
/// listens (other plugins, native hooks, Rust plugins). They run after the chain, so a
/// failure never reorders it, and the records of the hooks they ran join the emit's. A
/// failure while they are delivered is not delivered again.
async fn deliver_plugin_errors(
    registry: &Registry,
    services: &EmitServices,
    context: &Arc<EventContext>,
    pool: &AsyncPool,
    dispatched: &mut Dispatched,
) {
    let errors = services.take_errors();
    if errors.is_empty() {
        return;
    }
    let name = hookrig_dialects::events::resolve("plugin.error");
    for error in errors {
        let event = Event {
            context: Arc::new(EventContext {
                name: name.clone(),
                ..(**context).clone()
            }),
            payload: Payload::from_map(error.as_object().cloned().unwrap_or_default()),
        };
        let delivered = dispatch(registry, event, pool).await;
        dispatched
            .records
            .extend(delivered.records.into_iter().filter(|r| r.skip.is_none()));
        dispatched.warnings.extend(delivered.warnings);
    }
}

/// What an emit whose async hooks are held keeps for a keeper: where its config was
/// loaded, and each async hook of that config on the event (their digests are taken
/// once the host has its answer).
#[derive(Debug)]
struct Handover {
    seed: KeeperSeed,
    session_id: String,
    payload_in: String,
    hooks: Vec<hookrig_dialects::HookDef>,
}

impl Handover {
    /// The keeper's job for the async hooks of `dispatched`, recorded in `ledger`;
    /// `None` when one of them is not a hook of the config (the keeper could not run it).
    fn job(
        self,
        entry: &EmitRecord,
        dispatched: &Dispatched,
        ledger: Option<PathBuf>,
    ) -> Option<KeeperJob> {
        let Handover {
            seed,
            session_id,
            payload_in,
            hooks: mut defined,
        } = self;
        let mut hooks = Vec::new();
        for record in &dispatched.records {
            if record.result != HookResult::Dispatched {
                continue;
            }
            let at = defined.iter().position(|def| {
                def.spec.name == record.name && def.spec.source.path == record.source
            })?;
            hooks.push(KeptHook::of(&defined.remove(at)));
        }
        Some(KeeperJob {
            dirs: Dirs::of(&seed.env),
            ledger,
            plugin_dirs: seed.plugin_dirs,
            packages: seed.packages,
            no_plugins: seed.no_plugins,
            host: seed.host,
            event: entry.event.clone(),
            session_id,
            payload_in,
            payload: dispatched.payload.as_map().clone(),
            run_id: entry.run_id.clone(),
            hooks,
        })
    }
}

/// An emit whose hooks have decided: the caller answers the host from it, then calls
/// [`Decided::finish`].
#[derive(Debug)]
pub struct Decided {
    /// What the hooks decided, with one record per hook considered.
    pub dispatched: Dispatched,
    /// Every warning of the emit, for the Outcome.
    pub warnings: Vec<String>,
    started: Instant,
    entry: EmitRecord,
    ledger_path: Option<PathBuf>,
    store: Option<Sink>,
    /// Whether the `running` row was written (or queued).
    begun: bool,
    runtime: Rc<tokio::runtime::Runtime>,
    pool: AsyncPool,
    groups: ProcessGroups,
    interrupt: Interrupt,
    keeper: Option<Handover>,
}

/// What happened after the answer.
#[derive(Debug, Default)]
pub struct Finished {
    /// The signal that interrupted the hooks, if one did.
    pub interrupted: Option<StopSignal>,
    /// Problems found after the answer was given (the ledger could not be written),
    /// for stderr.
    pub late_warnings: Vec<String>,
}

impl Decided {
    /// The emit's run id in the ledger.
    pub fn run_id(&self) -> &str {
        &self.entry.run_id
    }

    /// The Outcome to answer with.
    pub fn outcome(&self) -> Outcome<'_> {
        Outcome::new(&self.dispatched, &self.warnings, &self.entry.run_id)
    }

    /// Records the emit, hands the event to a running `hookrig serve`, then waits
    /// (boundedly) for async hooks and records them. Call it once the host has its
    /// answer: the host must never wait on the ledger (another process may hold its
    /// write lock for seconds), so a failure to record is only a late warning.
    ///
    /// When the async hooks were held for a keeper (a one-shot `hookrig emit`, see
    /// `hookrig_exec::keeper`), they are handed to one instead and this returns at once;
    /// a keeper that cannot be started leaves them to the bounded wait, with a warning.
    pub fn finish(self) -> Finished {
        self.record()
            .hand_over()
            .drain_within(AsyncPool::DRAIN_TIMEOUT)
    }

    /// Completes the emit's ledger row and hands the event to a running `hookrig serve`;
    /// async hooks go on running.
    pub fn record(self) -> Recorded {
        self.record_to(|runtime, event, payload| {
            ingress::deliver_quietly(runtime, event, payload);
        })
    }

    /// [`Decided::record`], handing the event to automations through `deliver` (a
    /// resident engine that is `hookrig serve` hands it over in-process). When the
    /// scope carried an engine's ledger writers, the row is queued with the other
    /// emits' and this returns once its batch is committed.
    pub fn record_to(self, deliver: impl FnOnce(&tokio::runtime::Runtime, &str, &str)) -> Recorded {
        let Decided {
            dispatched,
            warnings,
            started,
            mut entry,
            ledger_path,
            store,
            begun,
            runtime,
            pool,
            groups,
            interrupt,
            keeper,
        } = self;
        let mut late_warnings = Vec::new();
        let recorded_in = ledger_path.clone();
        entry.duration_ms = hookrig_core::duration_ms(started.elapsed());
        let ledger = ledger_path.and_then(|path| {
            ledger::finish(
                store,
                begun,
                &path,
                &mut entry,
                &dispatched,
                &warnings,
                &mut late_warnings,
            )
        });
        deliver(&runtime, &entry.event, &entry.payload_in);
        // The keeper completes the rows of the file the emit's row was written to.
        let keeper = keeper.and_then(|handover| {
            handover.job(
                &entry,
                &dispatched,
                recorded_in.filter(|_| ledger.is_some()),
            )
        });
        Recorded {
            run_id: entry.run_id,
            ledger,
            runtime,
            pool,
            groups,
            interrupt,
            late_warnings,
            keeper,
        }
    }
}

/// An emit whose row is recorded; its async hooks may still run.
#[derive(Debug)]
pub struct Recorded {
    run_id: String,
    ledger: Option<Sink>,
    runtime: Rc<tokio::runtime::Runtime>,
    pool: AsyncPool,
    groups: ProcessGroups,
    interrupt: Interrupt,
    late_warnings: Vec<String>,
    /// The keeper's job, when the async hooks are held for one.
    keeper: Option<KeeperJob>,
}

impl Recorded {
    /// Problems recording the emit (for stderr).
    pub fn late_warnings(&self) -> &[String] {
        &self.late_warnings
    }

    /// Hands the held async hooks to a keeper, which runs them to their own timeout and
    /// records them: nothing is left for [`Recorded::drain_within`] to wait for. When no
    /// keeper can be started, they are left to it, and a late warning says so.
    #[must_use]
    pub fn hand_over(mut self) -> Recorded {
        let Some(job) = self.keeper.take() else {
            return self;
        };
        // An emit interrupted by a signal starts no more hooks: those held are refused
        // by the drain, as their groups were killed.
        if self.pool.held() == 0 || self.interrupt.signal().is_some() {
            return self;
        }
        let started = serde_json::to_vec(&job)
            .map_err(std::io::Error::other)
            .and_then(|bytes| hookrig_exec::keeper::start(&bytes));
        match started {
            Ok(_) => {
                self.pool.discard();
            }
            Err(error) => self.late_warnings.push(format!(
                "cannot start the async keeper ({error}); async hooks get {} after the answer, as without one",
                hookrig_core::display_duration(AsyncPool::DRAIN_TIMEOUT)
            )),
        }
        self
    }

    /// Waits up to `limit` for async hooks, kills those still running, and records
    /// them: a process that must exit waits [`AsyncPool::DRAIN_TIMEOUT`], a resident
    /// engine until each has run to its own timeout.
    pub fn drain_within(self, limit: Duration) -> Finished {
        let Recorded {
            run_id,
            ledger,
            runtime,
            pool,
            groups,
            interrupt,
            late_warnings,
            keeper: _,
        } = self;
        // Hooks still held (nobody handed them over) run now, within the limit.
        if pool.held() > 0 {
            let _context = runtime.enter();
            pool.release();
        }
        if pool.in_flight() > 0 {
            runtime.block_on(async {
                let mut drained = pool.drain(limit).await;
                if drained.still_running > 0 {
                    tracing::debug!(
                        "{} async hooks still running after {limit:?}; killing them",
                        drained.still_running,
                    );
                    groups.kill_all();
                    // Killed hooks report back at once; give them a moment so they are
                    // recorded.
                    let late = pool.drain(std::time::Duration::from_millis(500)).await;
                    drained.completions.extend(late.completions);
                }
                if let Some(ledger) = &ledger {
                    ledger::complete_async(ledger, &run_id, drained.completions);
                }
            });
        }
        Finished {
            interrupted: interrupt.signal(),
            late_warnings,
        }
    }
}
