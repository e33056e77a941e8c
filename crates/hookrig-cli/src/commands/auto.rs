//! `hookrig auto add|list|show|enable|disable|rm|runs` and `hookrig fire`: the
//! automations of the store and their runs.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, Subcommand};
use hookrig_automation::engine::{BoxFuture, system_clock};
use hookrig_automation::{
    Automation, Engine, EngineSettings, FireError, LlmBackend, RunRecord, StepRunner, Wiring,
};
use hookrig_store::{Ledger, StoreError};
use serde_json::{Value, json};

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
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

pub(crate) fn run(global: &GlobalArgs, args: &AutoArgs) -> Result<u8, ExpectedError> {
    let mut store = Ledger::open(&ledger::store_path(global)?)?;
    let now = (system_clock())();
    match &args.command {
        AutoCommand::Add { file } => {
            let automation = hookrig_automation::definition::load_automation(file, now)
                .map_err(|d| ExpectedError::InvalidAutomation(d.to_string()))?;
            let stored = store.upsert_automation(&automation.to_row())?;
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
                .set_automation_enabled(id, enable, now)
                .map_err(not_found)?;
            print(&format!(
                "{} automation `{id}`\n",
                if enable { "enabled" } else { "disabled" }
            ))?;
        }
        AutoCommand::Rm { id } => {
            store.delete_automation(id).map_err(not_found)?;
            print(&format!("removed automation `{id}` and its runs\n"))?;
        }
        AutoCommand::Trust { dir } => return trust(dir.as_deref()),
        AutoCommand::Runs { id, limit, json } => {
            if let Some(id) = id {
                one(&store, id)?;
            }
            let runs: Vec<RunRecord> = store
                .automation_runs(id.as_deref(), *limit)?
                .into_iter()
                .map(RunRecord::from)
                .collect();
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
    let mut store = hookrig_config::TrustStore::load(&path)?;
    #[expect(clippy::cast_possible_truncation, reason = "milliseconds fit in i64")]
    let now_ms = ((system_clock())() * 1000.0) as i64;
    let ids = hookrig_automation::definition::trust_project_automations(&mut store, &root, now_ms);
    store.save(&path)?;
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

/// `hookrig fire ID [--json]`: runs the automation in this process, waits for it and
/// prints the run record.
pub(crate) fn fire(global: &GlobalArgs, id: &str, json: bool) -> Result<u8, ExpectedError> {
    let store = Ledger::open(&ledger::store_path(global)?)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ExpectedError::Runtime)?;
    let record = runtime.block_on(async {
        let engine = Engine::new(store, wiring(), EngineSettings::default())?;
        engine.fire(id).await
    });
    let record = record.map_err(|err| match err {
        FireError::Store(err) => ExpectedError::Store(err),
        other => ExpectedError::Fire(other.to_string()),
    })?;
    if json {
        print_json(&serde_json::to_value(&record).expect("a run record serializes"))?;
    } else {
        print(&run_details(&record))?;
    }
    Ok(if record.status == "failed" {
        exit_codes::FAILURE
    } else {
        exit_codes::PROCEED
    })
}

/// What an in-process `fire` runs with. The context steps (`steps::run_steps`) and the
/// providers (`llm::Llm`) are built beside this engine and wired in here when they land;
/// until then each step answers an error saying so, and a run that needs the LLM fails
/// with a reason saying so, instead of pretending to have run anything.
fn wiring() -> Wiring {
    Wiring {
        steps: Arc::new(StepsNotWired),
        llm: Arc::new(LlmNotWired),
        observer: None,
        clock: system_clock(),
    }
}

struct StepsNotWired;

impl StepRunner for StepsNotWired {
    fn run_steps<'a>(
        &'a self,
        automation: &'a Automation,
        _event: Option<&'a Value>,
    ) -> BoxFuture<'a, Vec<Value>> {
        let results = (0..automation.context_steps.len())
            .map(|index| {
                json!({
                    "error": "context steps are not available in this build of hookrig",
                    "_step_index": index
                })
            })
            .collect();
        Box::pin(async move { results })
    }
}

struct LlmNotWired;

impl LlmBackend for LlmNotWired {
    fn complete<'a>(
        &'a self,
        _automation: &'a Automation,
        _prompt: &'a str,
    ) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async { Err("no llm provider is available in this build of hookrig".to_owned()) })
    }
}

fn all(store: &Ledger) -> Result<Vec<Automation>, ExpectedError> {
    store
        .automations(false)?
        .into_iter()
        .map(|row| Automation::from_row(row).map_err(|e| ExpectedError::Fire(e.to_string())))
        .collect()
}

fn one(store: &Ledger, id: &str) -> Result<Automation, ExpectedError> {
    let row = store
        .automation(id)?
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
            if a.enabled { "enabled" } else { "disabled" },
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

fn runs_table(runs: &[RunRecord]) -> String {
    if runs.is_empty() {
        return "no runs\n".to_owned();
    }
    let mut text = String::new();
    for r in runs {
        let _ = writeln!(
            text,
            "{}\t{}\t{}\t{}\t{} tokens",
            r.id, r.automation_id, r.status, r.trigger_reason, r.tokens_used
        );
    }
    text
}

fn run_details(r: &RunRecord) -> String {
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
