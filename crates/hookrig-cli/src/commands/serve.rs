//! `hookrig serve`: the automation engine as a long-running process. The tick loop
//! (periodic and cron triggers, and re-reading the automations), the file watcher, and
//! the local ingress through which `hookrig emit` delivers events and `hookrig fire`
//! asks for runs.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hookrig_automation::engine::{RunObserver, RunPhase, system_clock};
use hookrig_automation::ingress::{self, Ingress, Request};
use hookrig_automation::notifier::Notifiers;
use hookrig_automation::watch::{WatchOptions, WatchRule, Watcher};
use hookrig_automation::{Automation, Engine, FireError, wiring};
use hookrig_config::{ConfigToml, Environment};
use hookrig_core::EventName;
use hookrig_exec::ProcessGroups;
use hookrig_store::Ledger;
use serde_json::Value;
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::mpsc;
use tokio::time::MissedTickBehavior;

use crate::cli::GlobalArgs;
use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::ledger;

/// How long shutdown waits for notifications still being posted.
const DRAIN: Duration = Duration::from_secs(2);

pub(crate) fn run(global: &GlobalArgs) -> Result<u8, ExpectedError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ExpectedError::Runtime)?;
    runtime.block_on(serve(global))
}

/// Says on stderr how runs go: one line when a run starts and one when it ends.
struct Progress;

impl RunObserver for Progress {
    fn phase(&self, automation: &Automation, phase: RunPhase<'_>) {
        let id = &automation.id;
        match phase {
            RunPhase::Started { trigger_reason } => {
                eprintln!("hookrig serve: run of `{id}` started ({trigger_reason})");
            }
            RunPhase::Completed { .. } => eprintln!("hookrig serve: run of `{id}` completed"),
            RunPhase::Skipped { reason } => {
                eprintln!("hookrig serve: run of `{id}` skipped: {reason}");
            }
            RunPhase::Failed { error } => {
                eprintln!("hookrig serve: run of `{id}` failed: {error}");
            }
        }
    }
}

async fn serve(global: &GlobalArgs) -> Result<u8, ExpectedError> {
    let env = Environment::from_process(crate::engine::working_dir(None)?)?;
    let root = hookrig_config::find_project(&env)
        .root
        .unwrap_or_else(|| env.cwd.clone());
    let config = crate::commands::config::load(None)?;

    // The socket first: a second serve must be refused before it touches the runs of
    // the one already running (below, `running` rows are taken for a crash's leftovers).
    let socket = ingress::socket_path_from_env().ok_or(ExpectedError::NoSocketPath)?;
    let (listener, mut requests) = Ingress::bind(&socket).await?;
    eprintln!("hookrig serve: listening on {}", socket.display());

    let store_path = ledger::store_path(global)?;
    let mut store = Ledger::open(&store_path)?;
    let now = (system_clock())();
    let interrupted = store.interrupt_running_runs(now)?;
    if interrupted > 0 {
        eprintln!(
            "hookrig serve: {interrupted} run(s) left running by an earlier process marked interrupted"
        );
    }
    let mut project_files = ProjectFiles::of(&env, &root);
    load_project_automations(&env, &root, &mut store, now)?;

    let groups = ProcessGroups::new();
    let notifiers = Notifiers::from_config(&config);
    let wiring = wiring::wiring(
        &config,
        &root,
        &store_path,
        &groups,
        notifiers.clone(),
        Some(Arc::new(Progress)),
    );
    let engine = Engine::new(
        Ledger::open(&store_path)?,
        wiring,
        wiring::engine_settings(&config),
    )?;

    // The watcher's sender is kept here too, so that the receiver never reports a
    // closed channel (which would make the loop below spin) when watching is off.
    let (watch_tx, mut watch_rx) = mpsc::channel(256);
    let watcher = start_watcher(&config, &watch_tx);
    let mut rules_set: Option<Vec<WatchRule>> = None;

    let mut tick = tokio::time::interval(config.automation.tick());
    tick.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let mut interrupt = signal(SignalKind::interrupt()).map_err(ExpectedError::Runtime)?;
    let mut terminate = signal(SignalKind::terminate()).map_err(ExpectedError::Runtime)?;
    // A closed terminal (or a supervisor's reload signal) stops serve cleanly too: by
    // default SIGHUP would kill it like SIGKILL, leaving runs `running` and the socket.
    let mut hangup = signal(SignalKind::hangup()).map_err(ExpectedError::Runtime)?;
    eprintln!(
        "hookrig serve: ready (tick every {})",
        humantime(config.automation.tick())
    );
    loop {
        tokio::select! {
            _ = tick.tick() => {
                // The engine reads the enabled automations from the store on every
                // tick, so `auto add/enable/disable/rm` by other processes take effect
                // here; the watches follow them. The project's automation files are
                // stored again when one of them, or the trust store, changed.
                let files = ProjectFiles::of(&env, &root);
                if files != project_files {
                    project_files = files;
                    let now = (system_clock())();
                    if let Err(err) = load_project_automations(&env, &root, &mut store, now) {
                        eprintln!("hookrig serve: error: {}", crate::output::chain(&err));
                    }
                }
                engine.tick().await;
                if let Some(watcher) = &watcher {
                    refresh_watches(watcher, &store, &root, &mut rules_set);
                }
            }
            Some(request) = requests.recv() => handle(&engine, &mut store, &root, request),
            Some((event_type, payload)) = watch_rx.recv() => {
                engine.on_event(&event_type, payload);
            }
            _ = interrupt.recv() => break,
            _ = terminate.recv() => break,
            _ = hangup.recv() => break,
        }
    }

    eprintln!("hookrig serve: stopping");
    // Stop accepting first (this removes the socket), so that nothing new starts while
    // the runs in flight are cancelled.
    drop(listener);
    drop(watcher);
    engine.shutdown().await;
    // Dropping a run kills its CLI provider's group; this catches any group whose
    // supervisor had not noticed yet.
    groups.kill_all();
    notifiers.drain(DRAIN).await;
    drop(watch_tx);
    eprintln!("hookrig serve: stopped");
    Ok(exit_codes::PROCEED)
}

/// What decides which project automation files serve loads: each file's name, size and
/// modification time, and the trust store's. Compared on every tick (one directory
/// read and a few `stat`s), so that a new, edited or newly trusted file is picked up
/// without a restart.
#[derive(Debug, PartialEq, Eq)]
struct ProjectFiles(Vec<(PathBuf, u64, Option<std::time::SystemTime>)>);

impl ProjectFiles {
    fn of(env: &Environment, root: &Path) -> ProjectFiles {
        let stamp = |path: PathBuf| {
            let meta = std::fs::metadata(&path).ok();
            let len = meta.as_ref().map_or(0, std::fs::Metadata::len);
            let modified = meta.and_then(|m| m.modified().ok());
            (path, len, modified)
        };
        let dir = hookrig_automation::definition::project_automations_dir(root);
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
/// (see [`sync_project_automations`]).
///
/// [`sync_project_automations`]: hookrig_automation::definition::sync_project_automations
fn load_project_automations(
    env: &Environment,
    root: &Path,
    store: &mut Ledger,
    now: f64,
) -> Result<(), ExpectedError> {
    let sync = hookrig_automation::definition::sync_project_automations(env, root, store, now)?;
    for diagnostic in &sync.errors {
        eprintln!("hookrig serve: error: {diagnostic}");
    }
    for (file, why) in &sync.untrusted {
        eprintln!("hookrig serve: not loaded: {}: {why}", file.display());
    }
    for (id, file) in &sync.stopped {
        eprintln!(
            "hookrig serve: stopped `{id}`: the version loaded before is not run until {} is trusted as it is now",
            file.display()
        );
    }
    for (id, source) in &sync.loaded {
        eprintln!("hookrig serve: loaded `{id}` from {source}");
    }
    Ok(())
}

fn start_watcher(config: &ConfigToml, sender: &mpsc::Sender<(String, Value)>) -> Option<Watcher> {
    if !config.automation.enabled() {
        // The master switch: nothing would receive the watches' events.
        eprintln!(
            "hookrig serve: automations are switched off ([automation] enabled = false): no trigger fires; `hookrig fire ID` still runs one"
        );
        return None;
    }
    if !config.automation.file_watcher() {
        eprintln!("hookrig serve: file watching is off ([automation] file_watcher = false)");
        return None;
    }
    let options = WatchOptions {
        debounce: config.automation.debounce(),
        ..WatchOptions::default()
    };
    match Watcher::new(sender.clone(), options) {
        Ok(watcher) => Some(watcher),
        Err(err) => {
            eprintln!(
                "hookrig serve: error: {}; file and folder triggers will not fire",
                crate::output::chain(&err)
            );
            None
        }
    }
}

/// Sets the watcher's rules to those of the enabled automations, when they changed.
/// Paths that cannot be watched are reported each time the rules change (so a missing
/// directory is retried then).
fn refresh_watches(
    watcher: &Watcher,
    store: &Ledger,
    root: &Path,
    rules_set: &mut Option<Vec<WatchRule>>,
) {
    let automations: Vec<Automation> = match store.automations(true) {
        Ok(rows) => rows
            .into_iter()
            .filter_map(|row| Automation::from_row(row).ok())
            .collect(),
        Err(err) => {
            eprintln!("hookrig serve: error: {}", crate::output::chain(&err));
            return;
        }
    };
    let rules = wiring::watch_rules(&automations, root);
    if rules_set.as_ref() == Some(&rules) {
        return;
    }
    for err in watcher.set_rules(rules.clone()) {
        eprintln!("hookrig serve: error: {}", crate::output::chain(&err));
    }
    let paths: Vec<PathBuf> = rules.iter().flat_map(|r| r.paths.clone()).collect();
    eprintln!(
        "hookrig serve: watching {} path(s) for {} automation(s)",
        paths.len(),
        rules.len()
    );
    *rules_set = Some(rules);
}

fn handle(engine: &Engine, store: &mut Ledger, root: &Path, request: Request) {
    match request {
        Request::Event {
            event_type,
            payload,
        } => {
            // Any accepted spelling names the same event (`PreToolUse` is `tool.before`).
            let event = EventName::resolve(&event_type);
            let name = event.as_str();
            if name == "memory.upsert" {
                remember(store, root, &payload);
            }
            engine.on_event(name, payload);
        }
        Request::Fire { id, reply } => {
            let engine = engine.clone();
            // A fire waits for its run; other requests must not wait behind it.
            tokio::spawn(async move {
                let answer = match engine.fire(&id).await {
                    Ok(record) => {
                        Ok(serde_json::to_value(&record).expect("a run record serializes"))
                    }
                    Err(FireError::Store(err)) => Err(crate::output::chain(&err)),
                    Err(err) => Err(err.to_string()),
                };
                let _ = reply.send(answer);
            });
        }
    }
}

/// Stores what a `memory.upsert` event carries (`project_id`, `source`, `heading`,
/// `content`) for `memory_search`. Without `project_id` the memory belongs to the
/// project serve runs in; without `content` there is nothing to store.
fn remember(store: &mut Ledger, root: &Path, payload: &Value) {
    let field = |name: &str| payload.get(name).and_then(Value::as_str);
    let Some(content) = field("content") else {
        eprintln!("hookrig serve: memory.upsert without a `content` string: nothing stored");
        return;
    };
    let project = field("project_id").map_or_else(
        || hookrig_automation::definition::default_project_id(root),
        str::to_owned,
    );
    let source = field("source").unwrap_or("memory.upsert");
    let heading = field("heading").unwrap_or_default();
    if let Err(err) = store.memory_upsert(&project, source, heading, content) {
        eprintln!("hookrig serve: error: {}", crate::output::chain(&err));
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
