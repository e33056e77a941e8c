//! `hookrig auto add|list|show|enable|disable|rm|trust|runs` and `hookrig fire`: the
//! automations of the store and their runs, through hookrig-automation. With `--store
//! URL` (or `HOOKRIG_STORE_URL`) the definitions and the runs are those of the
//! PostgreSQL store the serve nodes share (docs/postgres.md, "The automations").

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, Subcommand};
use hookrig_automation::{
    Automation, SharedDefinitions, automation_details, automations_table, run_details, runs_table,
    tool_calls,
};
use hookrig_runtime::Scope;
use hookrig_store::{AutomationStore, PgStore, RegistryKey, RunStatus, RunStore, Store};

use crate::cli::{JsonArg, StoreArg};
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
        #[command(flatten)]
        store: StoreArg,
    },
    /// List the automations.
    List {
        #[command(flatten)]
        json: JsonArg,
        #[command(flatten)]
        store: StoreArg,
    },
    /// Show one automation.
    Show {
        /// The automation id.
        id: String,
        #[command(flatten)]
        json: JsonArg,
        #[command(flatten)]
        store: StoreArg,
    },
    /// Let the engine run an automation again.
    Enable {
        /// The automation id.
        id: String,
        #[command(flatten)]
        store: StoreArg,
    },
    /// Stop the engine from running an automation (`hookrig fire` still can).
    Disable {
        /// The automation id.
        id: String,
        #[command(flatten)]
        store: StoreArg,
    },
    /// Remove an automation and its runs.
    Rm {
        /// The automation id.
        id: String,
        #[command(flatten)]
        store: StoreArg,
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
        #[command(flatten)]
        store: StoreArg,
    },
}

pub(crate) fn run(top: &Top, args: &AutoArgs) -> Result<u8, ExpectedError> {
    if let AutoCommand::Trust { dir } = &args.command {
        return trust(&top.scope(Flags::default().dir(dir.as_deref()))?);
    }
    let operator = match &args.command {
        AutoCommand::Add { store, .. }
        | AutoCommand::List { store, .. }
        | AutoCommand::Show { store, .. }
        | AutoCommand::Enable { store, .. }
        | AutoCommand::Disable { store, .. }
        | AutoCommand::Rm { store, .. }
        | AutoCommand::Runs { store, .. } => Some(store),
        AutoCommand::Trust { .. } => None,
    };
    let scope = match operator {
        Some(store) => top.scope(Flags::default().operator(store))?,
        None => top.scope(Flags::default())?,
    };
    // The operator's `--store` or `HOOKRIG_STORE_URL`, and only those, as for `hookrig
    // plugins`: the user's own `[store] url` leaves these commands on the store file.
    let shared = scope
        .store_url
        .as_deref()
        .map(PgStore::open)
        .transpose()?
        .map(Arc::new);
    // What is written there is signed with the operator's key (made by the first
    // write), which the nodes verify each row with before they run it.
    let writes = matches!(
        args.command,
        AutoCommand::Add { .. } | AutoCommand::Enable { .. } | AutoCommand::Disable { .. }
    );
    let key = if shared.is_some() && writes {
        Some(RegistryKey::load_or_create(&RegistryKey::path(
            &scope.env.config_home,
        ))?)
    } else {
        None
    };
    let store = Store::open(&scope.store)?;
    let definitions: &dyn AutomationStore = match (&shared, &key) {
        (Some(shared), Some(key)) => &shared.signed_automations(key),
        (Some(shared), None) => &shared.automations(),
        (None, _) => &store.automations(),
    };
    match &args.command {
        AutoCommand::Add { file, .. } => {
            let id = hookrig_automation::add(definitions, file)?;
            print(&format!("{id}\n"))?;
        }
        AutoCommand::List { json, .. } => {
            let automations = match &shared {
                Some(shared) => shared_automations(shared, &scope)?,
                None => hookrig_automation::all(definitions)?,
            };
            json_or_text(json.json, &automations[..], automations_table)?;
        }
        AutoCommand::Show { id, json, .. } => {
            let shown = match &shared {
                Some(shared) => as_nodes_see(shared, &scope)?.get(id)?,
                None => None,
            };
            let automation = match shown {
                Some(row) => Automation::from_row(row)?,
                None => hookrig_automation::get(definitions, id)?,
            };
            json_or_text(json.json, &automation, automation_details)?;
        }
        AutoCommand::Enable { id, .. } | AutoCommand::Disable { id, .. } => {
            let enable = matches!(args.command, AutoCommand::Enable { .. });
            hookrig_automation::set_enabled(definitions, id, enable)?;
            print(&format!(
                "{} automation `{id}`\n",
                if enable { "enabled" } else { "disabled" }
            ))?;
        }
        AutoCommand::Rm { id, .. } => {
            hookrig_automation::remove(definitions, id)?;
            print(&format!("removed automation `{id}` and its runs\n"))?;
        }
        AutoCommand::Trust { .. } => {}
        AutoCommand::Runs {
            id,
            limit,
            json,
            follow,
            ..
        } => {
            let runs_in: &dyn RunStore = match &shared {
                Some(shared) => &**shared,
                None => &store,
            };
            return runs(
                definitions,
                runs_in,
                id.as_deref(),
                *limit,
                json.json,
                *follow,
            );
        }
    }
    Ok(exit_codes::PROCEED)
}

/// `hookrig auto runs [ID]`, of `runs_in`, or `--follow`.
fn runs(
    definitions: &dyn AutomationStore,
    runs_in: &dyn RunStore,
    id: Option<&str>,
    limit: usize,
    json: bool,
    follow: bool,
) -> Result<u8, ExpectedError> {
    // The shared store's runs are every node's, of the shared automations and of each
    // node's own (a project's files): an id counts when it is defined or has runs.
    if let Some(id) = id
        && let Err(unknown) = hookrig_automation::get(definitions, id)
        && runs_in.runs(Some(id), 1)?.is_empty()
    {
        return Err(unknown.into());
    }
    if follow {
        return self::follow(runs_in, id, json);
    }
    let runs = runs_in.runs(id, limit)?;
    json_or_text(json, &runs[..], runs_table)?;
    Ok(exit_codes::PROCEED)
}

/// Every shared automation, as a node of this machine sees it ([`as_nodes_see`]).
fn shared_automations(
    shared: &Arc<PgStore>,
    scope: &Scope,
) -> Result<Vec<Automation>, ExpectedError> {
    let rows = as_nodes_see(shared, scope)?.all()?;
    Ok(rows
        .into_iter()
        .map(Automation::from_row)
        .collect::<Result<Vec<_>, _>>()?)
}

/// The shared automations as a node of this machine sees them: a row that does not
/// verify with this machine's operator key (or with none, when it has no key) is held,
/// with why, as the nodes hold it.
fn as_nodes_see(shared: &Arc<PgStore>, scope: &Scope) -> Result<SharedDefinitions, ExpectedError> {
    let key = RegistryKey::load(&RegistryKey::path(&scope.env.config_home))?;
    Ok(SharedDefinitions::new(Arc::clone(shared), key))
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
fn follow(store: &dyn RunStore, id: Option<&str>, json: bool) -> Result<u8, ExpectedError> {
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
