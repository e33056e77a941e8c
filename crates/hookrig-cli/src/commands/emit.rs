//! `hookrig emit EVENT`: dispatch one event and answer with an Outcome.

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use clap::ValueEnum;
use hookrig_automation::ingress;
use hookrig_config::Environment;
use hookrig_core::{
    Dispatched, Event, EventContext, EventName, Outcome, Payload, Registry, SkipReason, dispatch,
    duration_ms,
};
use hookrig_dialects::LoadOptions;
use hookrig_exec::{AsyncPool, ProcessGroups};
use hookrig_store::{EmitRecord, Ledger, StoreError};

use crate::cli::{EmitArgs, GlobalArgs};
use crate::errors::ExpectedError;
use crate::{engine, ledger, logging, output, signals};

pub(crate) fn run(global: &GlobalArgs, args: &EmitArgs) -> Result<u8, ExpectedError> {
    match run_event(global, args) {
        Err(err) if !matches!(err, ExpectedError::Stdout(_)) => {
            match args.dialect.failure(&output::chain(&err)) {
                Some(answer) => {
                    if let Some(text) = &answer.stderr {
                        eprint!("{text}");
                    }
                    output::print(&answer.stdout)?;
                    Ok(answer.exit_code)
                }
                None => Err(err),
            }
        }
        result => result,
    }
}

fn run_event(global: &GlobalArgs, args: &EmitArgs) -> Result<u8, ExpectedError> {
    let input = args
        .dialect
        .read(args.event.as_deref(), &read_stdin(args.max_payload)?)?;
    let mut payload = input.payload;
    if let Some(tool) = &args.tool {
        payload.set_tool_name_if_missing(tool);
    }
    let cwd = event_cwd(args.cwd.as_deref(), &payload)?;
    let session_id = args
        .session
        .clone()
        .or_else(|| payload.session_id().map(str::to_owned))
        .unwrap_or_default();
    let agent = event_agent(args.agent.as_deref(), &payload);
    let emission = Emission {
        name: EventName::parse(&input.event)?,
        payload,
        cwd,
        session_id,
        dialect: args
            .dialect
            .to_possible_value()
            .map_or_else(|| "native".to_owned(), |v| v.get_name().to_owned()),
        agent,
        plugin_dirs: args.plugin_dir.clone(),
        suppress: Suppress {
            hooks: args.no_hooks,
            plugins: args.no_plugins,
        },
    };
    let (code, interrupted) = dispatch_event(global, emission, true, |outcome, dispatched| {
        let answer = args.dialect.answer(outcome, dispatched);
        if let Some(text) = &answer.stderr {
            eprint!("{text}");
        }
        output::print(&answer.stdout)?;
        Ok(answer.exit_code)
    })?;
    Ok(interrupted.unwrap_or(code))
}

/// One event to dispatch in-process, as `hookrig emit` does: `hookrig task ...` emits
/// its lifecycle events through the same path, so they load the same hooks and are
/// recorded in the ledger the same way.
pub(crate) struct Emission {
    /// The event.
    pub(crate) name: EventName,
    /// Its payload.
    pub(crate) payload: Payload,
    /// The directory it happened in: whose project's hooks run.
    pub(crate) cwd: PathBuf,
    /// The session id (may be empty).
    pub(crate) session_id: String,
    /// The host dialect recorded in the ledger.
    pub(crate) dialect: String,
    /// The agent emitting: selects the plugin packages enabled for it.
    pub(crate) agent: Option<String>,
    /// Extra x-code plugin directories.
    pub(crate) plugin_dirs: Vec<PathBuf>,
    /// What is switched off for this emit.
    pub(crate) suppress: Suppress,
}

/// x-code's switches to find out whether a hook or a plugin is what makes an agent hang:
/// `--no-hooks` (everything loads, no hook runs) and `--no-plugins` (nothing from
/// plugins loads, the other hooks run).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Suppress {
    /// Run no hook.
    pub(crate) hooks: bool,
    /// Load nothing from plugins.
    pub(crate) plugins: bool,
}

impl Suppress {
    /// Holds back every hook of `registry` with `--no-hooks`, and says that plugins were
    /// not loaded with `--no-plugins`.
    fn apply(self, mut registry: Registry, warnings: &mut Vec<String>) -> Registry {
        if self.plugins {
            warnings.push("plugins not loaded (--no-plugins)".to_owned());
        }
        if self.hooks {
            registry.suppress_hooks();
        }
        registry
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

/// Loads the config for `emission`, dispatches it, records it in the ledger and hands
/// the Outcome to `answer`; then waits (boundedly) for async hooks. With
/// `release_stdout`, stdout is pointed at `/dev/null` before that wait, so a host
/// reading the answer to end of file is not held up; a caller that prints after the
/// dispatch passes `false`. Returns what `answer` returned and the exit code of the
/// signal that interrupted the hooks, if one did.
#[expect(
    clippy::too_many_lines,
    reason = "the steps of one emit in the order they happen; each is a helper already"
)]
pub(crate) fn dispatch_event<T>(
    global: &GlobalArgs,
    emission: Emission,
    release_stdout: bool,
    answer: impl FnOnce(&Outcome<'_>, &Dispatched) -> Result<T, ExpectedError>,
) -> Result<(T, Option<u8>), ExpectedError> {
    let started = Instant::now();
    let started_at_ms = hookrig_store::now_ms();
    let Emission {
        name,
        payload,
        cwd,
        session_id,
        dialect,
        agent,
        plugin_dirs,
        suppress,
    } = emission;
    let mut entry = EmitRecord {
        run_id: uuid::Uuid::now_v7().to_string(),
        started_at_ms,
        event: name.as_str().to_owned(),
        dialect,
        cwd: cwd.display().to_string(),
        session_id: session_id.clone(),
        // An empty name (`HOOKRIG_AGENT=`) names no agent.
        agent: agent.clone().filter(|agent| !agent.is_empty()),
        decision: String::new(),
        reason: None,
        decided_by: None,
        duration_ms: 0.0,
        payload_in: serde_json::to_string(payload.as_map()).expect("JSON always serializes"),
        payload_out: String::new(),
        warnings: Vec::new(),
        hooks: Vec::new(),
    };
    let mut ledger_path = ledger::path(global)?;
    let mut ledger_warnings = Vec::new();
    let (packages, mut store) = enabled_packages(
        global,
        agent.as_deref(),
        &mut ledger_path,
        &mut ledger_warnings,
    );

    let env = Environment::from_process(cwd.clone())?;
    let options = LoadOptions {
        plugin_dirs,
        trust_only_for: Some((name.clone(), payload.clone())),
        packages,
        no_plugins: suppress.plugins,
    };
    let config = match hookrig_dialects::load(&env, &options) {
        Ok(config) => config,
        Err(err) => {
            // A broken config is the first thing to check when a hook "did not fire":
            // keep a record of the emit it stopped.
            "error".clone_into(&mut entry.decision);
            entry.reason = Some(err.to_string());
            entry.duration_ms = duration_ms(started.elapsed());
            if let Some(path) = &ledger_path {
                let _ = ledger_at(store, path).and_then(|mut l| l.record_emit(&entry));
            }
            return Err(err.into());
        }
    };
    // A source with an error was left out, and its errors are among these: the other
    // sources' hooks still decide, and the host's user is told.
    let mut warnings: Vec<String> = config.warnings.iter().map(ToString::to_string).collect();
    if let Some(path) = &ledger_path {
        store = begin(store, path, &entry, &mut ledger_warnings);
        // Said once, in the Outcome: the end does not try the same file again.
        if store.is_none() {
            ledger_path = None;
        }
    }
    warnings.append(&mut ledger_warnings);
    if logging::enabled() {
        for warning in &warnings {
            eprintln!("hookrig: warning: {warning}");
        }
    }

    let groups = ProcessGroups::new();
    let registry = suppress.apply(engine::registry(&config, &groups), &mut warnings);
    let event = Event {
        context: Arc::new(EventContext {
            name,
            session_id,
            cwd,
        }),
        payload,
    };

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ExpectedError::Runtime)?;
    let pool = AsyncPool::default();
    let (dispatched, interrupt) = runtime.block_on(async {
        let interrupt = signals::watch(groups.clone());
        (dispatch(&registry, event, &pool).await, interrupt)
    });
    warnings.extend(dispatched.warnings.iter().cloned());
    suppress.report(&dispatched, &mut warnings);

    // The answer first: the host must never wait on the ledger (another process may
    // hold its write lock for seconds). A failure to record is then only a warning on
    // stderr, since the Outcome is out.
    let outcome = Outcome::new(&dispatched, &warnings, &entry.run_id);
    let answered = answer(&outcome, &dispatched)?;
    if release_stdout {
        output::release_stdout();
    }
    let mut ledger = ledger_path.and_then(|path| {
        record(
            &path,
            store,
            &mut entry,
            &dispatched,
            started,
            &mut warnings,
        )
    });
    deliver_to_serve(&runtime, &entry.event, &entry.payload_in);

    if pool.in_flight() > 0 {
        runtime.block_on(finish_async(
            &pool,
            &groups,
            ledger.as_mut(),
            &entry.run_id,
            release_stdout,
        ));
    }

    Ok((answered, interrupt.exit_code()))
}

/// The plugin packages enabled for `agent`, and the store they were read from. A
/// ledger that cannot be read (corrupt, unreadable, a newer schema) never stops the
/// hooks from deciding: the hooks of every other source run, the emit is not recorded
/// (`ledger_path` is cleared), and the Outcome says why. The plugin packages it
/// registers cannot load.
fn enabled_packages(
    global: &GlobalArgs,
    agent: Option<&str>,
    ledger_path: &mut Option<PathBuf>,
    warnings: &mut Vec<String>,
) -> (Vec<hookrig_dialects::PackageRef>, Option<Ledger>) {
    match ledger::enabled_packages(global, agent) {
        Ok(found) => found,
        Err(err) => {
            warnings.push(format!(
                "ledger: {}; plugin packages were not loaded and this emit is not recorded",
                output::chain(&err)
            ));
            *ledger_path = None;
            (Vec::new(), None)
        }
    }
}

/// The ledger at `path`: the store opened for the package registry when it is that
/// file (one connection per emit instead of two), else opened now.
fn ledger_at(store: Option<Ledger>, path: &Path) -> Result<Ledger, StoreError> {
    match store.filter(|store| store.path() == path) {
        Some(store) => Ok(store),
        None => Ledger::open(path),
    }
}

/// Records that the emit started (into `opened` when it is the ledger at `path`), so
/// that an emit killed before it ends leaves a row, marked `interrupted` later. Never
/// waits for the ledger: when another process holds its write lock, the start is not
/// recorded and the whole row is written at the end. A ledger that cannot be opened is
/// a warning for the Outcome.
fn begin(
    opened: Option<Ledger>,
    path: &Path,
    entry: &EmitRecord,
    warnings: &mut Vec<String>,
) -> Option<Ledger> {
    let mut ledger = match ledger_at(opened, path) {
        Ok(ledger) => ledger,
        Err(err) => {
            warnings.push(format!(
                "{}; this emit is not recorded",
                ledger::warning(&err)
            ));
            return None;
        }
    };
    let started = ledger
        .set_busy_timeout(std::time::Duration::ZERO)
        .and_then(|()| ledger.begin_emit(entry));
    if let Err(err) = started {
        tracing::debug!("start of the emit not recorded: {}", ledger::warning(&err));
    }
    if let Err(err) = ledger.set_busy_timeout(hookrig_store::Ledger::BUSY_TIMEOUT) {
        tracing::debug!("{}", ledger::warning(&err));
    }
    Some(ledger)
}

/// Records the emit (into `opened` when it is the ledger at `path`), completing the
/// row [`begin`] wrote; called once the host has its answer, so a ledger that cannot
/// be opened or written is a warning on stderr.
fn record(
    path: &Path,
    opened: Option<Ledger>,
    entry: &mut EmitRecord,
    dispatched: &Dispatched,
    started: Instant,
    warnings: &mut Vec<String>,
) -> Option<Ledger> {
    dispatched.decision.as_str().clone_into(&mut entry.decision);
    entry.reason.clone_from(&dispatched.reason);
    entry.decided_by.clone_from(&dispatched.decided_by);
    entry.duration_ms = duration_ms(started.elapsed());
    entry.payload_out =
        serde_json::to_string(dispatched.payload.as_map()).expect("JSON always serializes");
    entry.warnings.clone_from(warnings);
    entry.hooks = dispatched.records.iter().map(ledger::hook_run).collect();
    match ledger_at(opened, path).and_then(|mut l| l.finish_emit(entry).map(|()| l)) {
        Ok(opened) => Some(opened),
        Err(err) => {
            eprintln!("hookrig: warning: {}", ledger::warning(&err));
            None
        }
    }
}

/// Hands the event to a running `hookrig serve` through its socket, so its event
/// automations fire. Emit neither waits on the automations nor fails because of the
/// ingress: with no serve running this is one failed `connect`, and any other problem is
/// a debug line. Called once the answer is printed, so the host is never held up by it.
fn deliver_to_serve(runtime: &tokio::runtime::Runtime, event: &str, payload_json: &str) {
    let Some(path) = ingress::socket_path_from_env() else {
        return;
    };
    let Ok(payload) = serde_json::from_str::<&serde_json::value::RawValue>(payload_json) else {
        return;
    };
    match runtime.block_on(ingress::deliver_event(&path, event, payload)) {
        Ok(()) => tracing::debug!("delivered {event} to hookrig serve ({})", path.display()),
        Err(ingress::IngressError::NotRunning { .. }) => {}
        Err(err) => tracing::debug!("not delivered to hookrig serve: {err}"),
    }
}

/// Waits (boundedly) for async hooks and records them.
///
/// stdout is released first (with `release_stdout`), so a host that reads the Outcome to
/// end of file is not held up by hooks it does not wait for.
async fn finish_async(
    pool: &AsyncPool,
    groups: &ProcessGroups,
    ledger: Option<&mut Ledger>,
    run_id: &str,
    release_stdout: bool,
) {
    if release_stdout {
        output::release_stdout();
    }
    let mut drained = pool.drain(AsyncPool::DRAIN_TIMEOUT).await;
    if drained.still_running > 0 {
        tracing::debug!(
            "{} async hooks still running after {:?}; killing them",
            drained.still_running,
            AsyncPool::DRAIN_TIMEOUT
        );
        groups.kill_all();
        // Killed hooks report back at once; give them a moment so they are recorded.
        let late = pool.drain(std::time::Duration::from_millis(500)).await;
        drained.completions.extend(late.completions);
    }
    let runs: Vec<_> = drained
        .completions
        .into_iter()
        .map(|completion| {
            for warning in &completion.warnings {
                tracing::debug!("{warning}");
            }
            let mut run = ledger::hook_run(&completion.record);
            // A failure's message is both the record's reason and a warning: keep it once.
            let mut reason: Vec<String> = run.reason.take().into_iter().collect();
            for warning in completion.warnings {
                if !reason.contains(&warning) {
                    reason.push(warning);
                }
            }
            run.reason = (!reason.is_empty()).then(|| reason.join("; "));
            run
        })
        .collect();
    if let Some(ledger) = ledger
        && let Err(err) = ledger.complete_hook_runs(run_id, &runs)
    {
        tracing::debug!("{}", ledger::warning(&err));
    }
}

/// The agent emitting: `--agent` (or `HOOKRIG_AGENT`), else the payload's
/// `session.agent`.
fn event_agent(flag: Option<&str>, payload: &Payload) -> Option<String> {
    flag.or_else(|| {
        payload
            .as_map()
            .get("session")
            .and_then(|s| s.get("agent"))
            .and_then(serde_json::Value::as_str)
    })
    .map(str::to_owned)
}

/// Everything on stdin, up to `limit` bytes (more is an error: it is read no further,
/// so that a huge payload costs neither the memory nor the time to parse it); nothing
/// when stdin is a terminal (no payload was piped in).
fn read_stdin(limit: u64) -> Result<Vec<u8>, ExpectedError> {
    let stdin = std::io::stdin().lock();
    let mut bytes = Vec::new();
    if !stdin.is_terminal() {
        stdin
            .take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(ExpectedError::ReadStdin)?;
        if bytes.len() as u64 > limit {
            return Err(ExpectedError::PayloadTooLarge(limit));
        }
    }
    Ok(bytes)
}

/// The directory the event happened in: `--cwd`, else the payload's `session.cwd` (or
/// flat `cwd`) when it exists, else the current directory.
fn event_cwd(flag: Option<&Path>, payload: &Payload) -> Result<PathBuf, ExpectedError> {
    if let Some(dir) = flag {
        let dir = hookrig_config::normal_path(dir);
        if !dir.is_dir() {
            return Err(ExpectedError::NoSuchCwd(dir.display().to_string()));
        }
        return Ok(dir);
    }
    if let Some(dir) = payload.session_cwd().map(PathBuf::from)
        && dir.is_absolute()
        && dir.is_dir()
    {
        return Ok(hookrig_config::normal_path(&dir));
    }
    Ok(std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")))
}
