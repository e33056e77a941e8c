//! `hookrig auto add|list|show|enable|disable|rm|runs` and `hookrig fire`: the
//! automations of the store and their runs.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};
use hookrig_automation::engine::system_clock;
use hookrig_automation::notifier::Notifiers;
use hookrig_automation::{Automation, Engine, FireError, wiring};
use hookrig_config::ConfigToml;
use hookrig_exec::ProcessGroups;
use hookrig_runtime::ingress::{self, IngressError};
use hookrig_store::{AutomationRun, RunStatus, Store, StoreError};
use serde_json::Value;
use tokio::signal::unix::{SignalKind, signal};

use crate::cli::GlobalArgs;
use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::ledger;
use crate::output::print;

#[derive(Debug, Args)]
pub(crate) struct AutoArgs {
    #[command(subcommand)]
    pub(crate) command: AutoCommand,
}

#[derive(Debug, Subcommand)]
pub(crate) enum AutoCommand {
    /// Add (or update) the automation defined in FILE (TOML, or JSON when it ends in .json).
    Add {
        /// The definition file.
        file: PathBuf,
    },
    /// List the automations.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show one automation.
    Show {
        /// The automation id.
        id: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Let the engine run an automation again.
    Enable {
        /// The automation id.
        id: String,
    },
    /// Stop the engine from running an automation (`hookrig fire` still can).
    Disable {
        /// The automation id.
        id: String,
    },
    /// Remove an automation and its runs.
    Rm {
        /// The automation id.
        id: String,
    },
    /// Trust the project's `.hookrig/automations/*.toml` files as they are now.
    Trust {
        /// A directory of the project (default: the current one).
        dir: Option<PathBuf>,
    },
    /// List runs, newest first.
    Runs {
        /// Only the runs of this automation.
        id: Option<String>,
        /// At most this many runs.
        #[arg(long, default_value_t = 20)]
        limit: usize,
        /// Print JSON (with --follow, one record per line).
        #[arg(long)]
        json: bool,
        /// Keep running, printing runs as they start and change status, until
        /// interrupted.
        #[arg(long, conflicts_with = "limit")]
        follow: bool,
    },
}

pub(crate) fn run(global: &GlobalArgs, args: &AutoArgs) -> Result<u8, ExpectedError> {
    let store = Store::open(&ledger::store_path(global)?)?;
    let now = (system_clock())();
    match &args.command {
        AutoCommand::Add { file } => {
            let mut automation = hookrig_automation::definition::load_automation(file, now)
                .map_err(|d| ExpectedError::InvalidAutomation(d.to_string()))?;
            // Absolute, so that the automation's workspace (its file's project) is known
            // whatever directory serve or fire later run in; errors above keep the path
            // as the user wrote it.
            if let Ok(absolute) = std::path::absolute(file) {
                automation.source = Some(absolute.display().to_string());
            }
            let stored = store.automations().upsert(&automation.to_row())?;
            print(&format!("{}\n", stored.id))?;
        }
        AutoCommand::List { json } => {
            let automations = all(&store)?;
            if *json {
                print_json(&serde_json::to_value(&automations).expect("automations serialize"))?;
            } else {
                print(&table(&automations))?;
            }
        }
        AutoCommand::Show { id, json } => {
            let automation = one(&store, id)?;
            if *json {
                print_json(&serde_json::to_value(&automation).expect("an automation serializes"))?;
            } else {
                print(&details(&automation))?;
            }
        }
        AutoCommand::Enable { id } | AutoCommand::Disable { id } => {
            let enable = matches!(args.command, AutoCommand::Enable { .. });
            store
                .automations()
                .set_enabled(id, enable, now)
                .map_err(not_found)?;
            print(&format!(
                "{} automation `{id}`\n",
                if enable { "enabled" } else { "disabled" }
            ))?;
        }
        AutoCommand::Rm { id } => {
            store.automations().delete(id).map_err(not_found)?;
            print(&format!("removed automation `{id}` and its runs\n"))?;
        }
        AutoCommand::Trust { dir } => return trust(dir.as_deref()),
        AutoCommand::Runs {
            id,
            limit,
            json,
            follow: watch,
        } => {
            if let Some(id) = id {
                one(&store, id)?;
            }
            if *watch {
                return follow(&store, id.as_deref(), *json);
            }
            let runs = store.automation_runs().list(id.as_deref(), *limit)?;
            if *json {
                print_json(&serde_json::to_value(&runs).expect("runs serialize"))?;
            } else {
                print(&runs_table(&runs))?;
            }
        }
    }
    Ok(exit_codes::PROCEED)
}

/// `hookrig auto trust [DIR]`: records the project's automation files as trusted.
fn trust(dir: Option<&std::path::Path>) -> Result<u8, ExpectedError> {
    let env = hookrig_config::Environment::from_process(crate::engine::working_dir(dir)?)?;
    let project = hookrig_config::find_project(&env);
    let root = project.root.unwrap_or_else(|| env.cwd.clone());
    let path = hookrig_config::trust_store_path(&env);
    #[expect(clippy::cast_possible_truncation, reason = "milliseconds fit in i64")]
    let now_ms = ((system_clock())() * 1000.0) as i64;
    let ids = hookrig_config::TrustStore::update(&path, |store| {
        Ok::<_, ExpectedError>(hookrig_automation::definition::trust_project_automations(
            store, &root, now_ms,
        ))
    })?;
    print(&if ids.is_empty() {
        format!(
            "no automation files under {}\n",
            hookrig_automation::definition::project_automations_dir(&root).display()
        )
    } else {
        format!("trusted {} automation(s): {}\n", ids.len(), ids.join(", "))
    })?;
    Ok(exit_codes::PROCEED)
}

/// How long `fire` waits for a serve to answer its ping before running in-process.
const PING_LIMIT: Duration = Duration::from_millis(500);
/// How much longer than `[automation] run_timeout` a fire through serve waits for the
/// record: the run's own timeout ends it first; this covers a serve that is stuck.
const FIRE_SLACK: Duration = Duration::from_mins(1);
/// How often `auto runs --follow` looks at the store.
const FOLLOW_POLL: Duration = Duration::from_millis(500);
/// How many of the newest runs `auto runs --follow` compares on each look.
const FOLLOW_WINDOW: usize = 200;

/// `hookrig fire ID [--json]`: runs the automation through the running serve when its
/// socket answers a ping, else in this process; waits for it and prints the run record.
pub(crate) fn fire(global: &GlobalArgs, id: &str, json: bool) -> Result<u8, ExpectedError> {
    let config = crate::commands::config::load(None)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ExpectedError::Runtime)?;
    let fired = runtime.block_on(async {
        if let Some(socket) = ingress::socket_path_from_env()
            && ingress::ping(&socket, PING_LIMIT).await.is_ok()
        {
            tracing::debug!("firing `{id}` through hookrig serve ({})", socket.display());
            return fire_through_serve(&socket, id, &config).await.map(Some);
        }
        fire_in_process(global, &config, id).await
    });
    let Some(record) = fired? else {
        return Ok(exit_codes::INTERRUPTED);
    };
    if json {
        print_json(&serde_json::to_value(&record).expect("a run record serializes"))?;
    } else {
        print(&run_details(&record))?;
    }
    Ok(if record.status == RunStatus::Failed {
        exit_codes::FAILURE
    } else {
        exit_codes::PROCEED
    })
}

async fn fire_through_serve(
    socket: &std::path::Path,
    id: &str,
    config: &ConfigToml,
) -> Result<AutomationRun, ExpectedError> {
    let limit = config.automation.run_timeout() + FIRE_SLACK;
    let answer = ingress::fire(socket, id, limit)
        .await
        .map_err(|err| match err {
            IngressError::Remote(message) => ExpectedError::Fire(message),
            other => other.into(),
        })?;
    serde_json::from_value(answer).map_err(|err| {
        ExpectedError::Ingress(IngressError::Protocol {
            path: socket.to_owned(),
            message: format!("not a run record: {err}"),
        })
    })
}

/// Runs the automation here; `None` when SIGINT or SIGTERM stopped it (the run is then
/// marked `interrupted` and its processes killed).
async fn fire_in_process(
    global: &GlobalArgs,
    config: &ConfigToml,
    id: &str,
) -> Result<Option<AutomationRun>, ExpectedError> {
    let store_path = ledger::store_path(global)?;
    let store = Store::open(&store_path)?;
    let env = hookrig_config::Environment::from_process(crate::engine::working_dir(None)?)?;
    let root = hookrig_config::find_project(&env)
        .root
        .unwrap_or_else(|| env.cwd.clone());
    // As serve does on a tick: the project's automation files as they are now, so that
    // a file edited since it was trusted does not run its old version here either, and
    // a newly trusted one runs as it is. What serve would print is its business; a fire
    // refused because of it says why.
    hookrig_automation::definition::sync_project_automations(
        &env,
        &root,
        &store,
        (system_clock())(),
    )?;
    let groups = ProcessGroups::new();
    let notifiers = Notifiers::from_config(config);
    let wiring = wiring::wiring(config, &root, &store_path, &groups, notifiers.clone(), None);
    let engine = Engine::new(store, wiring, wiring::engine_settings(config))?;
    let mut interrupt = signal(SignalKind::interrupt()).map_err(ExpectedError::Runtime)?;
    let mut terminate = signal(SignalKind::terminate()).map_err(ExpectedError::Runtime)?;
    // A hang-up stops the run as SIGTERM does: recorded `interrupted`, its processes killed.
    let mut hangup = signal(SignalKind::hangup()).map_err(ExpectedError::Runtime)?;
    let fired = tokio::select! {
        fired = engine.fire(id) => Some(fired),
        _ = interrupt.recv() => None,
        _ = terminate.recv() => None,
        _ = hangup.recv() => None,
    };
    let Some(fired) = fired else {
        engine.shutdown().await;
        groups.kill_all();
        notifiers.drain(Duration::from_secs(2)).await;
        return Ok(None);
    };
    // The notifications of this run are posted before the process ends.
    notifiers.drain(Duration::from_secs(10)).await;
    fired.map(Some).map_err(|err| match err {
        FireError::Store(err) => ExpectedError::Store(err),
        other => ExpectedError::Fire(other.to_string()),
    })
}

/// `hookrig auto runs --follow`: prints runs as they start and as their status changes,
/// until SIGINT or SIGTERM. Runs that ended before it started are not shown.
fn follow(store: &Store, id: Option<&str>, json: bool) -> Result<u8, ExpectedError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ExpectedError::Runtime)?;
    runtime.block_on(async {
        let mut interrupt = signal(SignalKind::interrupt()).map_err(ExpectedError::Runtime)?;
        let mut terminate = signal(SignalKind::terminate()).map_err(ExpectedError::Runtime)?;
        let mut poll = tokio::time::interval(FOLLOW_POLL);
        let mut seen: HashMap<String, RunStatus> = HashMap::new();
        let mut first = true;
        loop {
            tokio::select! {
                _ = poll.tick() => {}
                _ = interrupt.recv() => break,
                _ = terminate.recv() => break,
            }
            let runs = store.automation_runs().list(id, FOLLOW_WINDOW)?;
            let mut now_seen = HashMap::with_capacity(runs.len());
            let mut text = String::new();
            for run in runs.into_iter().rev() {
                let show = match seen.get(&run.id) {
                    Some(status) => *status != run.status,
                    None => !first || run.status == RunStatus::Running,
                };
                if show {
                    if json {
                        text.push_str(
                            &serde_json::to_string(&run).expect("a run record serializes"),
                        );
                        text.push('\n');
                    } else {
                        text.push_str(&runs_table(std::slice::from_ref(&run)));
                    }
                }
                now_seen.insert(run.id, run.status);
            }
            seen = now_seen;
            first = false;
            if !text.is_empty() && !write_out(&text)? {
                break;
            }
        }
        Ok(exit_codes::PROCEED)
    })
}

/// Writes `text` to stdout; `false` when the reader has gone (a closed pipe).
fn write_out(text: &str) -> Result<bool, ExpectedError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(true),
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
        Err(err) => Err(ExpectedError::Stdout(err)),
    }
}

fn all(store: &Store) -> Result<Vec<Automation>, ExpectedError> {
    store
        .automations()
        .list(false)?
        .into_iter()
        .map(|row| Automation::from_row(row).map_err(|e| ExpectedError::Fire(e.to_string())))
        .collect()
}

fn one(store: &Store, id: &str) -> Result<Automation, ExpectedError> {
    let row = store
        .automations()
        .get(id)?
        .ok_or_else(|| ExpectedError::Fire(FireError::NotFound(id.to_owned()).to_string()))?;
    Automation::from_row(row).map_err(|e| ExpectedError::Fire(e.to_string()))
}

fn not_found(err: StoreError) -> ExpectedError {
    match err {
        StoreError::UnknownAutomation { id } => {
            ExpectedError::Fire(FireError::NotFound(id).to_string())
        }
        other => other.into(),
    }
}

fn print_json(value: &Value) -> Result<(), ExpectedError> {
    let mut text = serde_json::to_string_pretty(value).expect("json values serialize");
    text.push('\n');
    print(&text)
}

fn table(automations: &[Automation]) -> String {
    if automations.is_empty() {
        return "no automations; add one with `hookrig auto add FILE`\n".to_owned();
    }
    let mut text = String::new();
    for a in automations {
        let _ = writeln!(
            text,
            "{}\t{}\t{}\t{}\t{}",
            a.id,
            match (&a.held, a.enabled) {
                (Some(_), _) => "held",
                (None, true) => "enabled",
                (None, false) => "disabled",
            },
            a.project_id,
            a.trigger.summary(),
            a.name
        );
    }
    text
}

fn details(a: &Automation) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "id: {}", a.id);
    let _ = writeln!(text, "name: {}", a.name);
    let _ = writeln!(text, "project: {}", a.project_id);
    let _ = writeln!(text, "enabled: {}", a.enabled);
    if let Some(reason) = &a.held {
        let _ = writeln!(text, "held: {reason}");
    }
    let _ = writeln!(text, "trigger: {}", a.trigger.summary());
    if a.trigger.skip_llm() {
        let _ = writeln!(text, "skip_llm: true");
    }
    let _ = writeln!(text, "cooldown: {}s", a.cooldown_seconds);
    if let Some(max) = a.max_tokens_per_run {
        let _ = writeln!(text, "max tokens per run: {max}");
    }
    let _ = writeln!(text, "context steps: {}", a.context_steps.len());
    if let Some(source) = &a.source {
        let _ = writeln!(text, "source: {source}");
    }
    let _ = writeln!(text, "prompt template:\n{}", a.prompt_template);
    text
}

fn runs_table(runs: &[AutomationRun]) -> String {
    if runs.is_empty() {
        return "no runs\n".to_owned();
    }
    let mut text = String::new();
    for r in runs {
        let _ = write!(
            text,
            "{}\t{}\t{}\t{}\t{} tokens",
            r.id, r.automation_id, r.status, r.trigger_reason, r.tokens_used
        );
        // Why a run (or an event not run) was skipped, on its line.
        match &r.skipped_reason {
            Some(reason) => {
                let _ = writeln!(text, "\t{reason}");
            }
            None => text.push('\n'),
        }
    }
    text
}

fn run_details(r: &AutomationRun) -> String {
    let mut text = format!(
        "run {} of {}: {} ({})\n",
        r.id, r.automation_id, r.status, r.trigger_reason
    );
    if let Some(reason) = &r.skipped_reason {
        let _ = writeln!(text, "skipped: {reason}");
    }
    if let Some(response) = &r.llm_response {
        let _ = writeln!(text, "{response}");
    }
    text
}
