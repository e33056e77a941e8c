//! The automation engine as a long-running process (`hookrig serve`): the tick loop
//! (periodic and cron triggers, and re-reading the automations), the file watcher, the
//! local ingress through which `hookrig emit` delivers events and `hookrig fire` asks
//! for runs, the recovery of runs a crashed process left `running`, and a graceful stop
//! on SIGINT, SIGTERM or SIGHUP.
//!
//! A [`Server`] does not print: it reports what happens as [`Notice`]s to the sink it
//! is given, and the caller decides where they go.
//!
//! ```no_run
//! # async fn serve(options: hookrig_automation::ServerOptions) -> Result<(), hookrig_automation::AutomationError> {
//! use std::sync::Arc;
//! use hookrig_automation::Server;
//!
//! let server = Server::new(options, Arc::new(|notice| eprintln!("serve: {notice}")));
//! server.run().await // until SIGINT, SIGTERM or SIGHUP
//! # }
//! ```

use std::fmt;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use hookrig_config::{ConfigToml, Environment};

use hookrig_core::{Diagnostic, error_chain as chain};
use hookrig_exec::ProcessGroups;
use hookrig_store::{
    EventListener, Heard, MemoryIndex as _, PgStore, RegistryKey, SharedEvent, Store,
};
use serde_json::Value;
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::mpsc;
use tokio::time::MissedTickBehavior;

use crate::definition::{self, Automation};
use crate::engine::{Engine, FireError, RunObserver, RunPhase, system_clock};
use crate::errors::AutomationError;
use crate::notifier::Notifiers;
use crate::watch::{WatchEvent, WatchOptions, WatchRule, Watcher};
use crate::wiring;
use hookrig_runtime::ingress::{Ingress, Request};

/// How long shutdown waits for notifications still being posted.
const DRAIN: Duration = Duration::from_secs(2);

/// Everything a [`Server`] needs, resolved by the caller: nothing downstream reads the
/// process environment or flags.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// The user's directories and the trust setting (for the project's automation
    /// files and the trust store).
    pub env: Environment,
    /// The project root: where `.hookrig/automations/` is, and the default workspace of
    /// the automations.
    pub root: PathBuf,
    /// The merged `config.toml`.
    pub config: ConfigToml,
    /// The store (SQLite file) automations and their runs are kept in.
    pub store_path: PathBuf,
    /// The Unix socket to listen on.
    pub socket: PathBuf,
    /// An HTTP front for emits (`hookrig serve --http`), off when `None`.
    pub http: Option<Arc<hookrig_runtime::http::HttpFront>>,
    /// The URL of a PostgreSQL database whose runs this server shares with the other
    /// nodes serving on it (docs/postgres.md); `None` keeps the runs in `store_path`.
    pub shared_store: Option<String>,
}

impl ServerOptions {
    /// The options of a server for the project of the scope's working directory (the
    /// directory itself outside a repository), its store, `config` and `socket`. The runs
    /// are shared on the PostgreSQL store the operator named (`--store`,
    /// `HOOKRIG_STORE_URL`), else the one of the user's `[store] url`.
    pub fn for_scope(scope: &hookrig_runtime::Scope, config: ConfigToml, socket: PathBuf) -> Self {
        let shared_store = scope.shared_store(&config);
        let root = hookrig_config::find_project(&scope.env)
            .root
            .unwrap_or_else(|| scope.env.cwd.clone());
        ServerOptions {
            env: scope.env.clone(),
            root,
            config,
            store_path: scope.store.clone(),
            socket,
            http: None,
            shared_store,
        }
    }
}

/// The shortest lease of a run on a shared store: a node that misses a few ticks (a
/// busy machine, a slow database) must not have its runs taken for a dead node's.
const MIN_LEASE: Duration = Duration::from_secs(30);

/// The runs shared with the other nodes on the PostgreSQL database at `url`: this node
/// is named by its host, pid and start time, and the leases of its runs last three ticks
/// (at least [`MIN_LEASE`]), as every tick renews them; the automations it runs are the
/// database's that verify with `key` beside its own store's. Also the store itself,
/// through which this node sends its events to the others.
pub(crate) fn shared_runs(
    url: &str,
    tick: Duration,
    now: f64,
    key: Option<RegistryKey>,
) -> Result<(crate::engine::SharedRuns, Arc<PgStore>), AutomationError> {
    let store = Arc::new(PgStore::open(url)?);
    let host = host_name();
    let pid = i64::from(std::process::id());
    let runs = crate::engine::SharedRuns {
        store: Arc::clone(&store) as Arc<dyn hookrig_store::RunStore + Send + Sync>,
        definitions: Some(Arc::new(crate::SharedDefinitions::new(
            Arc::clone(&store),
            key,
        ))),
        node: hookrig_store::NodeInfo {
            id: format!("{host}:{pid}:{now:.3}"),
            host,
            pid,
            started_at: now,
            heartbeat_at: now,
        },
        lease: (tick * 3).max(MIN_LEASE),
    };
    Ok((runs, store))
}

/// The name of this machine, as the nodes of a shared store are told apart by.
pub(crate) fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|name| name.trim().to_owned())
        .ok()
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "localhost".to_owned())
}

/// Where this node's events go to the other nodes of a shared store, and where theirs
/// come from (docs/postgres.md, "Events across nodes").
struct SharedEvents {
    store: Arc<PgStore>,
    node: String,
    /// Keeps the listener listening.
    _listener: EventListener,
}

impl SharedEvents {
    /// This node's runs on the shared store at `url` ([`shared_runs`]), and its events:
    /// it listens for the other nodes', handing what it hears to `heard`.
    fn start(
        url: &str,
        tick: Duration,
        now: f64,
        key: Option<RegistryKey>,
        heard: &mpsc::Sender<Heard>,
    ) -> Result<(crate::engine::SharedRuns, SharedEvents), AutomationError> {
        let (runs, store) = shared_runs(url, tick, now, key)?;
        let heard = heard.clone();
        // The listener's own thread waits here when the loop is busy: the notifications
        // queue up in its connection meanwhile, none is lost.
        let listener =
            EventListener::start(url, &runs.node.id, move |h| heard.blocking_send(h).is_ok())?;
        let events = SharedEvents {
            store,
            node: runs.node.id.clone(),
            _listener: listener,
        };
        Ok((runs, events))
    }

    /// Sends an event this node received to the others, with its id (the one its
    /// client gave, or a new one), and returns the id. A failure is reported and the
    /// event is still this node's: its own automations see it.
    fn send(
        &self,
        id: Option<String>,
        event_type: &str,
        payload: &Value,
        say: &(dyn Fn(Notice) + Send + Sync),
    ) -> String {
        let event = SharedEvent {
            id: id.unwrap_or_else(crate::engine::new_event_id),
            event_type: event_type.to_owned(),
            payload: payload.clone(),
            node: self.node.clone(),
            sent_at: (system_clock())(),
        };
        if let Err(err) = self.store.publish(&event) {
            say(Notice::Error(format!(
                "the event {} reaches this node's automations only: {}",
                event.id,
                chain(&err)
            )));
        }
        event.id
    }
}

/// What a running [`Server`] reports. Its `Display` is the line a user reads, without a
/// prefix.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Notice {
    /// The socket is bound.
    Listening(PathBuf),
    /// The HTTP front for emits listens on this address.
    Http(std::net::SocketAddr),
    /// Runs left `running` by an earlier process (a crash) were marked interrupted.
    Recovered(usize),
    /// A project automation file does not load (`path:line:col: message`).
    Invalid(Diagnostic),
    /// A project automation file is not trusted, so not loaded.
    NotLoaded {
        /// The file.
        file: PathBuf,
        /// Why, and what to do.
        why: String,
    },
    /// What was stored from a file no longer trusted as it is will not run.
    Held {
        /// The automation.
        id: String,
        /// Its file.
        file: PathBuf,
    },
    /// A project automation was stored.
    Loaded {
        /// The automation.
        id: String,
        /// Where it came from.
        source: String,
    },
    /// `[automation] enabled = false`.
    AutomationsOff,
    /// `[automation] file_watcher = false`.
    WatchingOff,
    /// The file watcher could not start.
    WatcherFailed(String),
    /// The watcher's paths changed.
    Watching {
        /// How many paths are watched.
        paths: usize,
        /// For how many automations.
        automations: usize,
    },
    /// The loop runs.
    Ready {
        /// Its period.
        tick: Duration,
    },
    /// A run started.
    RunStarted {
        /// The automation.
        id: String,
        /// `event:task.completed`, `periodic`, ...
        reason: String,
    },
    /// A run completed.
    RunCompleted {
        /// The automation.
        id: String,
    },
    /// A run was skipped.
    RunSkipped {
        /// The automation.
        id: String,
        /// Why.
        reason: String,
    },
    /// A run failed.
    RunFailed {
        /// The automation.
        id: String,
        /// Why.
        error: String,
    },
    /// A run's LLM called a tool (one notice per call, as it ends).
    RunTool {
        /// The automation.
        id: String,
        /// The tools called so far, the last one just now.
        chain: Vec<String>,
    },
    /// A `memory.upsert` event without content.
    MemoryWithoutContent,
    /// The connection on which the other nodes' events arrive was lost; it is being
    /// opened again.
    EventsLost(String),
    /// The connection for the other nodes' events is back, and the events sent while it
    /// was down were read.
    EventsResumed {
        /// How many were read.
        caught_up: usize,
    },
    /// Something went wrong; the server goes on.
    Error(String),
    /// A stop was asked for.
    Stopping,
    /// Everything is stopped; [`Server::run`] returns.
    Stopped,
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::Listening(socket) => write!(f, "listening on {}", socket.display()),
            Notice::Http(address) => write!(f, "answering emits on http://{address}/emit/EVENT"),
            Notice::Recovered(runs) => write!(
                f,
                "{runs} run(s) left running by an earlier process marked interrupted"
            ),
            Notice::Invalid(diagnostic) => write!(f, "error: {diagnostic}"),
            Notice::NotLoaded { file, why } => {
                write!(f, "not loaded: {}: {why}", file.display())
            }
            Notice::Held { id, file } => write!(
                f,
                "stopped `{id}`: the version loaded before is not run until {} is trusted as it is now",
                file.display()
            ),
            Notice::Loaded { id, source } => write!(f, "loaded `{id}` from {source}"),
            Notice::AutomationsOff => f.write_str(
                "automations are switched off ([automation] enabled = false): no trigger fires; `hookrig fire ID` still runs one",
            ),
            Notice::WatchingOff => {
                f.write_str("file watching is off ([automation] file_watcher = false)")
            }
            Notice::WatcherFailed(error) => {
                write!(f, "error: {error}; file and folder triggers will not fire")
            }
            Notice::Watching { paths, automations } => write!(
                f,
                "watching {paths} path(s) for {automations} automation(s)"
            ),
            Notice::Ready { tick } => write!(f, "ready (tick every {})", humantime(*tick)),
            Notice::RunStarted { id, reason } => write!(f, "run of `{id}` started ({reason})"),
            Notice::RunCompleted { id } => write!(f, "run of `{id}` completed"),
            Notice::RunSkipped { id, reason } => write!(f, "run of `{id}` skipped: {reason}"),
            Notice::RunFailed { id, error } => write!(f, "run of `{id}` failed: {error}"),
            Notice::RunTool { id, chain } => write!(
                f,
                "run of `{id}` called {}",
                crate::notifier::tool_chain(chain)
            ),
            Notice::MemoryWithoutContent => {
                f.write_str("memory.upsert without a `content` string: nothing stored")
            }
            Notice::EventsLost(error) => write!(
                f,
                "error: {error}; the other nodes' events wait until it is back"
            ),
            Notice::EventsResumed { caught_up } => write!(
                f,
                "listening to the other nodes' events again ({caught_up} sent meanwhile read)"
            ),
            Notice::Error(error) => write!(f, "error: {error}"),
            Notice::Stopping => f.write_str("stopping"),
            Notice::Stopped => f.write_str("stopped"),
        }
    }
}

/// Where a [`Server`] sends its [`Notice`]s.
pub type NoticeSink = Arc<dyn Fn(Notice) + Send + Sync>;

/// The automation engine serving a project: see the [module docs](self).
pub struct Server {
    options: ServerOptions,
    notices: NoticeSink,
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// A server that reports to `notices`.
    pub fn new(options: ServerOptions, notices: NoticeSink) -> Server {
        Server { options, notices }
    }

    /// Runs [`Server::run`] on a runtime of its own, for a caller that has none.
    pub fn run_blocking(self) -> Result<(), AutomationError> {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(AutomationError::AsyncRuntime)?
            .block_on(self.run())
    }

    /// Serves until SIGINT, SIGTERM or SIGHUP, then stops gracefully: a closed terminal
    /// (or a supervisor's reload signal) stops it cleanly too, where by default SIGHUP
    /// would kill it like SIGKILL, leaving runs `running` and the socket behind.
    ///
    /// Must be called inside a tokio runtime with I/O, time and signals enabled.
    pub async fn run(self) -> Result<(), AutomationError> {
        let mut interrupt =
            signal(SignalKind::interrupt()).map_err(AutomationError::AsyncRuntime)?;
        let mut terminate =
            signal(SignalKind::terminate()).map_err(AutomationError::AsyncRuntime)?;
        let mut hangup = signal(SignalKind::hangup()).map_err(AutomationError::AsyncRuntime)?;
        self.run_until(async move {
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
                _ = hangup.recv() => {}
            }
        })
        .await
    }

    /// Serves until `stop` completes, then stops gracefully: the socket is removed, runs
    /// in flight are cancelled (and recorded so), their process groups killed, and
    /// notifications still being posted get a moment to finish.
    ///
    /// Refuses to start, before touching the store, when another server answers on the
    /// socket.
    pub async fn run_until(self, stop: impl Future<Output = ()>) -> Result<(), AutomationError> {
        let Server { options, notices } = self;
        let ServerOptions {
            env,
            root,
            config,
            store_path,
            socket,
            http,
            shared_store,
        } = options;
        let say = |notice| notices(notice);

        // The socket first: a second serve must be refused before it touches the runs of
        // the one already running (below, `running` rows are taken for a crash's leftovers).
        // With a shared store, the emits this node answers are recorded there too.
        let emits = hookrig_runtime::engine::Engine::recording_into(shared_store.as_deref());
        let (listener, mut requests) =
            Ingress::bind_engine(&socket, Some(Arc::clone(&emits))).await?;
        if let Some(http) = http {
            start_http(&http, &emits, &*notices)?;
        }
        say(Notice::Listening(socket.clone()));

        let store = Store::open(&store_path)?;
        let now = (system_clock())();
        recover(&store, now, &*notices)?;
        let mut project_files = ProjectFiles::of(&env, &root);
        load_project_automations(&env, &root, &store, now, &*notices)?;

        // The other nodes' events; the sender is kept so that the channel never closes.
        let (heard_tx, mut heard_rx) = mpsc::channel(1024);
        let (shared, events) = shared_store
            .as_deref()
            .map(|url| join(url, &env, &config, now, &heard_tx, &*notices))
            .transpose()?
            .unzip();
        let definitions = shared.as_ref().and_then(|s| s.definitions.clone());
        let groups = ProcessGroups::new();
        let notifiers = Notifiers::from_config(&config);
        // With a shared store, the steps keep their tasks and memory there too.
        let wiring = wiring::wiring(
            &config,
            &root,
            &store_path,
            events.as_ref().map(|events| Arc::clone(&events.store)),
            &groups,
            notifiers.clone(),
            Some(Arc::new(Progress(Arc::clone(&notices)))),
        );
        let engine = Engine::with_shared(
            Store::open(&store_path)?,
            shared,
            wiring,
            wiring::engine_settings(&config),
        )?;

        // The watcher's sender is kept here too, so that the receiver never reports a
        // closed channel (which would make the loop below spin) when watching is off.
        let (watch_tx, mut watch_rx) = mpsc::channel(256);
        let watcher = start_watcher(&config, &watch_tx, &*notices);
        let mut rules_set: Option<Vec<WatchRule>> = None;

        let mut tick = tokio::time::interval(config.automation.tick());
        tick.set_missed_tick_behavior(MissedTickBehavior::Delay);
        say(Notice::Ready {
            tick: config.automation.tick(),
        });
        tokio::pin!(stop);
        loop {
            tokio::select! {
                _ = tick.tick() => {
                    // The engine reads the enabled automations from the store on every
                    // tick (and a shared store's again when they changed), so `auto
                    // add/enable/disable/rm` by other processes, or on other nodes, take
                    // effect here; the watches follow them. The project's automation files are
                    // stored again when one of them, or the trust store, changed.
                    let files = ProjectFiles::of(&env, &root);
                    if files != project_files {
                        project_files = files;
                        let now = (system_clock())();
                        if let Err(err) =
                            load_project_automations(&env, &root, &store, now, &*notices)
                        {
                            say(Notice::Error(chain(&err)));
                        }
                    }
                    refresh_definitions(definitions.as_deref(), &*notices);
                    engine.tick().await;
                    if let Some(watcher) = &watcher {
                        refresh_watches(watcher, &engine, &root, &mut rules_set, &*notices);
                    }
                }
                Some(request) = requests.recv() => {
                    if matches!(request, Request::Stop) {
                        break;
                    }
                    handle(&engine, &store, &root, events.as_ref(), request, &*notices);
                }
                Some(heard) = heard_rx.recv() => hear(&engine, heard, &*notices),
                Some(change) = watch_rx.recv() => on_change(&engine, events.is_some(), change),
                () = &mut stop => break,
            }
        }

        say(Notice::Stopping);
        // Stop accepting first (this removes the socket), so that nothing new starts while
        // the runs in flight are cancelled.
        drop(listener);
        drop(watcher);
        emits.kill_all();
        hookrig_exec::worker::stop_all();
        engine.shutdown().await;
        // The emits' records still queued are committed before the server goes.
        emits.close_ledger();
        // Dropping a run kills its CLI provider's group; this catches any group whose
        // supervisor had not noticed yet.
        groups.kill_all();
        notifiers.drain(DRAIN).await;
        drop(watch_tx);
        say(Notice::Stopped);
        Ok(())
    }
}

/// The operator's key, which the shared automations' rows must verify with; `None`,
/// said, when it cannot be read (the node then runs none of them).
pub(crate) fn registry_key(
    env: &Environment,
    say: &(dyn Fn(Notice) + Send + Sync),
) -> Option<RegistryKey> {
    match RegistryKey::load(&RegistryKey::path(&env.config_home)) {
        Ok(key) => key,
        Err(err) => {
            say(Notice::Error(format!(
                "{}; no shared automation runs on this node until it is fixed",
                chain(&err)
            )));
            None
        }
    }
}

/// This node's runs, events and automations on the shared store at `url`, with the
/// operator's key of `env` and the tick of `config`. The automations are read here first, so that those that do
/// not verify are said before the engine starts on the others.
fn join(
    url: &str,
    env: &Environment,
    config: &ConfigToml,
    now: f64,
    heard: &mpsc::Sender<Heard>,
    say: &(dyn Fn(Notice) + Send + Sync),
) -> Result<(crate::engine::SharedRuns, SharedEvents), AutomationError> {
    let key = registry_key(env, say);
    let tick = config.automation.tick();
    let (runs, events) = SharedEvents::start(url, tick, now, key, heard)?;
    refresh_definitions(runs.definitions.as_deref(), say);
    Ok((runs, events))
}

/// Reads the shared automations again when they changed, and says which of them do not
/// run here and why (each time the table changes, so that a fix is seen taking).
fn refresh_definitions(
    definitions: Option<&crate::SharedDefinitions>,
    say: &(dyn Fn(Notice) + Send + Sync),
) {
    let Some(definitions) = definitions else {
        return;
    };
    match definitions.refresh() {
        Ok(refused) => {
            for why in refused.unwrap_or_default() {
                say(Notice::Error(why));
            }
        }
        Err(err) => say(Notice::Error(format!(
            "cannot read the shared automations, those read last stand: {}",
            chain(&err)
        ))),
    }
}

/// Marks the runs a crashed process left `running` in `store` interrupted, and says how
/// many there were.
fn recover(
    store: &Store,
    now: f64,
    say: &(dyn Fn(Notice) + Send + Sync),
) -> Result<(), AutomationError> {
    let interrupted = store.automation_runs().interrupt_abandoned(now)?;
    if interrupted > 0 {
        say(Notice::Recovered(interrupted));
    }
    Ok(())
}

/// Answers emits over HTTP with the engine `emits`.
fn start_http(
    http: &hookrig_runtime::http::HttpFront,
    emits: &Arc<hookrig_runtime::engine::Engine>,
    say: &(dyn Fn(Notice) + Send + Sync),
) -> Result<(), AutomationError> {
    let address = http.listener.local_addr().ok();
    http.spawn(Arc::clone(emits))
        .map_err(AutomationError::AsyncRuntime)?;
    if let Some(address) = address {
        say(Notice::Http(address));
    }
    Ok(())
}

/// Reports how runs go: one notice when a run starts and one when it ends.
struct Progress(NoticeSink);

impl RunObserver for Progress {
    fn phase(&self, automation: &Automation, phase: RunPhase<'_>) {
        let id = automation.id.clone();
        (self.0)(match phase {
            RunPhase::Started { trigger_reason } => Notice::RunStarted {
                id,
                reason: trigger_reason.to_owned(),
            },
            RunPhase::Completed { .. } => Notice::RunCompleted { id },
            RunPhase::Skipped { reason } => Notice::RunSkipped {
                id,
                reason: reason.to_string(),
            },
            RunPhase::Failed { error } => Notice::RunFailed {
                id,
                error: error.to_string(),
            },
            RunPhase::Tools { chain } => Notice::RunTool {
                id,
                chain: chain.to_vec(),
            },
        });
    }
}

/// What decides which project automation files are loaded: each file's name, size and
/// modification time, and the trust store's. Compared on every tick (one directory
/// read and a few `stat`s), so that a new, edited or newly trusted file is picked up
/// without a restart.
#[derive(Debug, PartialEq, Eq)]
struct ProjectFiles(Vec<(PathBuf, u64, Option<SystemTime>)>);

impl ProjectFiles {
    fn of(env: &Environment, root: &Path) -> ProjectFiles {
        let stamp = |path: PathBuf| {
            let meta = std::fs::metadata(&path).ok();
            let len = meta.as_ref().map_or(0, std::fs::Metadata::len);
            let modified = meta.and_then(|m| m.modified().ok());
            (path, len, modified)
        };
        let dir = definition::project_automations_dir(root);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .map(|entry| stamp(entry.path()))
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        files.push(stamp(hookrig_config::trust_store_path(env)));
        ProjectFiles(files)
    }
}

/// Stores the trusted automations of the project's `.hookrig/automations/*.toml` and
/// reports the others, stopping what was stored from a file no longer trusted as it is
/// (see [`definition::sync_project_automations`]).
fn load_project_automations(
    env: &Environment,
    root: &Path,
    store: &Store,
    now: f64,
    say: &(dyn Fn(Notice) + Send + Sync),
) -> Result<(), AutomationError> {
    let sync = definition::sync_project_automations(env, root, store, now)?;
    for diagnostic in sync.errors {
        say(Notice::Invalid(diagnostic));
    }
    for (file, why) in sync.untrusted {
        say(Notice::NotLoaded { file, why });
    }
    for (id, file) in sync.stopped {
        say(Notice::Held { id, file });
    }
    for (id, source) in sync.loaded {
        say(Notice::Loaded { id, source });
    }
    Ok(())
}

fn start_watcher(
    config: &ConfigToml,
    sender: &mpsc::Sender<WatchEvent>,
    say: &(dyn Fn(Notice) + Send + Sync),
) -> Option<Watcher> {
    if !config.automation.enabled() {
        // The master switch: nothing would receive the watches' events.
        say(Notice::AutomationsOff);
        return None;
    }
    if !config.automation.file_watcher() {
        say(Notice::WatchingOff);
        return None;
    }
    let options = WatchOptions {
        debounce: config.automation.debounce(),
        ..WatchOptions::default()
    };
    match Watcher::new(sender.clone(), options) {
        Ok(watcher) => Some(watcher),
        Err(err) => {
            say(Notice::WatcherFailed(chain(&err)));
            None
        }
    }
}

/// Sets the watcher's rules to those of the automations the engine runs (the shared
/// ones too), when they changed. Paths that cannot be watched are reported each time
/// the rules change (so a missing directory is retried then).
fn refresh_watches(
    watcher: &Watcher,
    engine: &Engine,
    root: &Path,
    rules_set: &mut Option<Vec<WatchRule>>,
    say: &(dyn Fn(Notice) + Send + Sync),
) {
    let automations = engine.runnable_automations();
    let rules = wiring::watch_rules(&automations, root);
    if rules_set.as_ref() == Some(&rules) {
        return;
    }
    for err in watcher.set_rules(rules.clone()) {
        say(Notice::Error(chain(&err)));
    }
    say(Notice::Watching {
        paths: rules.iter().map(|r| r.paths.len()).sum(),
        automations: rules.len(),
    });
    *rules_set = Some(rules);
}

fn handle(
    engine: &Engine,
    store: &Store,
    root: &Path,
    events: Option<&SharedEvents>,
    request: Request,
    say: &(dyn Fn(Notice) + Send + Sync),
) {
    match request {
        // The loop stops before handing it here.
        Request::Stop => {}
        Request::Event {
            event_type,
            id,
            payload,
        } => {
            // Any accepted spelling names the same event (`PreToolUse` is `tool.before`).
            let event = hookrig_dialects::events::resolve(&event_type);
            let name = event.as_str();
            if name == "memory.upsert" {
                let shared = events.map(|events| &*events.store);
                remember(store, shared, root, &payload, say);
            }
            match events {
                // The other nodes' automations see it too, under one id.
                Some(events) => {
                    let id = events.send(id, name, &payload, say);
                    engine.on_shared_event(&id, name, payload);
                }
                None => engine.on_event(name, payload),
            }
        }
        Request::Fire { id, reply } => {
            let engine = engine.clone();
            // A fire waits for its run; other requests must not wait behind it.
            tokio::spawn(async move {
                let answer = match engine.fire(&id).await {
                    Ok(record) => {
                        Ok(serde_json::to_value(&record).expect("a run record serializes"))
                    }
                    Err(FireError::Store(err)) => Err(chain(&err)),
                    Err(err) => Err(err.to_string()),
                };
                let _ = reply.send(answer);
            });
        }
    }
}

/// Stores what a `memory.upsert` event carries (`project_id`, `source`, `heading`,
/// `content`) for `memory_search`: in the `shared` store when the node has one, where
/// every node's searches find it, else in `store`. Without `project_id` the memory
/// belongs to the project served; without `content` there is nothing to store.
fn remember(
    store: &Store,
    shared: Option<&PgStore>,
    root: &Path,
    payload: &Value,
    say: &(dyn Fn(Notice) + Send + Sync),
) {
    let field = |name: &str| payload.get(name).and_then(Value::as_str);
    let Some(content) = field("content") else {
        say(Notice::MemoryWithoutContent);
        return;
    };
    let project =
        field("project_id").map_or_else(|| definition::default_project_id(root), str::to_owned);
    let source = field("source").unwrap_or("memory.upsert");
    let heading = field("heading").unwrap_or_default();
    let stored = match shared {
        Some(shared) => shared.memory().upsert(&project, source, heading, content),
        None => store.memory().upsert(&project, source, heading, content),
    };
    if let Err(err) = stored {
        say(Notice::Error(chain(&err)));
    }
}

/// Hands a change the watcher saw to the engine. It is not sent to the other nodes: each
/// watches its own files. On a `shared` store the change's id, the same on every node
/// that sees it, makes the nodes watching one directory start one run for it.
fn on_change(engine: &Engine, shared: bool, change: WatchEvent) {
    if shared {
        engine.on_shared_event(&change.change_id, &change.event_type, change.payload);
    } else {
        engine.on_event(&change.event_type, change.payload);
    }
}

/// Hands an event another node sent to the engine, or reports what the listener
/// heard of its connection.
fn hear(engine: &Engine, heard: Heard, say: &(dyn Fn(Notice) + Send + Sync)) {
    match heard {
        Heard::Event(event) => {
            engine.on_shared_event(&event.id, &event.event_type, event.payload);
        }
        Heard::Lost(err) => say(Notice::EventsLost(chain(&err))),
        Heard::Resumed { caught_up } => say(Notice::EventsResumed { caught_up }),
        Heard::Unreadable(why) => say(Notice::Error(why)),
        // What a newer store reports and this server does not know of.
        _ => {}
    }
}

/// `5s`, `500ms`.
fn humantime(d: Duration) -> String {
    if d.subsec_nanos() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

#[cfg(test)]
#[path = "server_tests.rs"]
mod tests;
