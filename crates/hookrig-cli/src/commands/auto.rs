//! `hookrig auto add|list|show|enable|disable|rm|trust|runs` and `hookrig fire`: the
//! automations of the store and their runs, through hookrig-automation.

use std::fmt::Write as _;
use std::ops::ControlFlow;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use hookrig_automation::Automation;
use hookrig_runtime::Scope;
use hookrig_store::{AutomationRun, RunStatus, Store};

use crate::cli::JsonArg;
use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::{json_or_text, print};
use crate::scope::{Flags, Top};

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
        #[command(flatten)]
        json: JsonArg,
    },
    /// Show one automation.
    Show {
        /// The automation id.
        id: String,
        #[command(flatten)]
        json: JsonArg,
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
        #[command(flatten)]
        json: JsonArg,
        /// Keep running, printing runs as they start and change status (with --json, one
        /// record per line), until interrupted.
        #[arg(long, conflicts_with = "limit")]
        follow: bool,
    },
}

pub(crate) fn run(top: &Top, args: &AutoArgs) -> Result<u8, ExpectedError> {
    if let AutoCommand::Trust { dir } = &args.command {
        return trust(&top.scope(Flags::default().dir(dir.as_deref()))?);
    }
    let scope = top.scope(Flags::default())?;
    let store = Store::open(&scope.store)?;
    match &args.command {
        AutoCommand::Add { file } => {
            let id = hookrig_automation::add(&store, file)?;
            print(&format!("{id}\n"))?;
        }
        AutoCommand::List { json } => {
            let automations = hookrig_automation::all(&store)?;
            json_or_text(json.json, &automations[..], table)?;
        }
        AutoCommand::Show { id, json } => {
            let automation = hookrig_automation::get(&store, id)?;
            json_or_text(json.json, &automation, details)?;
        }
        AutoCommand::Enable { id } | AutoCommand::Disable { id } => {
            let enable = matches!(args.command, AutoCommand::Enable { .. });
            hookrig_automation::set_enabled(&store, id, enable)?;
            print(&format!(
                "{} automation `{id}`\n",
                if enable { "enabled" } else { "disabled" }
            ))?;
        }
        AutoCommand::Rm { id } => {
            hookrig_automation::remove(&store, id)?;
            print(&format!("removed automation `{id}` and its runs\n"))?;
        }
        AutoCommand::Trust { .. } => {}
        AutoCommand::Runs {
            id,
            limit,
            json,
            follow,
        } => {
            if let Some(id) = id {
                hookrig_automation::get(&store, id)?;
            }
            if *follow {
                return self::follow(&store, id.as_deref(), json.json);
            }
            let runs = store.automation_runs().list(id.as_deref(), *limit)?;
            json_or_text(json.json, &runs[..], runs_table)?;
        }
    }
    Ok(exit_codes::PROCEED)
}

/// `hookrig auto trust [DIR]`: records the project's automation files as trusted.
fn trust(scope: &Scope) -> Result<u8, ExpectedError> {
    let trusted = hookrig_automation::trust_files(&scope.env)?;
    print(&if trusted.ids.is_empty() {
        format!("no automation files under {}\n", trusted.dir.display())
    } else {
        format!(
            "trusted {} automation(s): {}\n",
            trusted.ids.len(),
            trusted.ids.join(", ")
        )
    })?;
    Ok(exit_codes::PROCEED)
}

/// `hookrig fire ID [--json]`: runs the automation (through the running serve when
/// there is one), waits for it and prints the run record.
pub(crate) fn fire(scope: &Scope, id: &str, json: bool) -> Result<u8, ExpectedError> {
    let config = crate::commands::config::load(scope)?;
    let Some(record) = hookrig_automation::fire(scope, &config, id)? else {
        return Ok(exit_codes::INTERRUPTED);
    };
    json_or_text(json, &record, run_details)?;
    Ok(if record.status == RunStatus::Failed {
        exit_codes::FAILURE
    } else {
        exit_codes::PROCEED
    })
}

/// `hookrig auto runs --follow`: prints runs as they start and as their status changes,
/// until SIGINT or SIGTERM, or until the reader goes away.
fn follow(store: &Store, id: Option<&str>, json: bool) -> Result<u8, ExpectedError> {
    let mut failed = None;
    hookrig_automation::follow_runs(store, id, &mut |changes| {
        let mut text = String::new();
        for change in changes {
            let run = &change.run;
            if json {
                text.push_str(&serde_json::to_string(run).expect("a run record serializes"));
                text.push('\n');
                continue;
            }
            if change.status_changed {
                text.push_str(&runs_table(std::slice::from_ref(run)));
            }
            text.push_str(&tool_calls(run, change.calls_shown));
        }
        match crate::output::write(text.as_bytes()) {
            Ok(true) => ControlFlow::Continue(()),
            Ok(false) => ControlFlow::Break(()),
            Err(err) => {
                failed = Some(err);
                ControlFlow::Break(())
            }
        }
    })?;
    failed.map_or(Ok(exit_codes::PROCEED), Err)
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
    let _ = writeln!(
        text,
        "tools: {} (at most {} rounds)",
        a.tools.offered().join(", "),
        a.tools.max_tool_rounds
    );
    if !a.tools.shell_allow.is_empty() {
        let _ = writeln!(text, "shell may run: {}", a.tools.shell_allow.join(", "));
    }
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
        let calls = calls_of(r).len();
        if calls > 0 {
            let _ = write!(
                text,
                "\t{calls} tool call{}",
                if calls == 1 { "" } else { "s" }
            );
        }
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
    text.push_str(&tool_calls(r, 0));
    if let Some(response) = &r.llm_response {
        let _ = writeln!(text, "{response}");
    }
    text
}

/// The tool calls of a run (`actions_taken`), empty when it made none.
fn calls_of(r: &AutomationRun) -> &[serde_json::Value] {
    r.actions_taken
        .as_ref()
        .and_then(serde_json::Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// One line per tool call of `r` from the `from`-th on: its number, the tool, its
/// arguments, how it ended and how long it took.
fn tool_calls(r: &AutomationRun, from: usize) -> String {
    let mut text = String::new();
    for (n, call) in calls_of(r).iter().enumerate().skip(from) {
        let field = |key: &str| call.get(key).cloned().unwrap_or_default();
        let ended = match call.get("error").and_then(serde_json::Value::as_str) {
            Some(error) => format!("error: {error}"),
            None => "ok".to_owned(),
        };
        let _ = writeln!(
            text,
            "  🔧 {} {}. {} {} → {ended} ({} ms)",
            r.id,
            n + 1,
            field("name").as_str().unwrap_or("?"),
            field("arguments"),
            field("duration_ms"),
        );
    }
    text
}
