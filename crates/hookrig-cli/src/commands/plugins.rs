//! `hookrig plugins list|register|enable|disable|delete`: the plugin package registry,
//! as OpenHermit's `hermit plugins` has it.

use std::path::PathBuf;

use clap::{ArgGroup, Args, Subcommand};
use hookrig_runtime::{Registration, Scope, plugins_table, register_package};
use hookrig_store::{ALL_AGENTS, StoreError};

use crate::cli::JsonArg;
use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::{self, print};

#[derive(Debug, Args)]
pub(crate) struct PluginsArgs {
    #[command(subcommand)]
    pub(crate) command: PluginsCommand,
}

#[derive(Debug, Subcommand)]
pub(crate) enum PluginsCommand {
    /// List the registered plugin packages and for which agents each is enabled.
    List {
        #[command(flatten)]
        json: JsonArg,
    },
    /// Register the plugin package in DIR (a directory with a plugin.json manifest).
    ///
    /// A new package is enabled for nobody: `hookrig plugins enable ID --agent A | --all`.
    Register {
        /// The id to register it under (`^[a-z0-9][a-z0-9-]*$`).
        id: String,
        /// Display name (default: the manifest's `name`).
        #[arg(long)]
        name: Option<String>,
        /// What it does (default: the manifest's `description`).
        #[arg(long)]
        description: Option<String>,
        /// The package directory.
        #[arg(long, value_name = "DIR")]
        path: PathBuf,
    },
    /// Enable a package for one agent, or for every agent.
    Enable(Target),
    /// Disable a package for one agent, or for every agent.
    Disable(Target),
    /// Show a package: its hooks, for whom it is enabled, the problems of its manifest;
    /// for a JavaScript plugin its subscriptions and tools, or why it fails to load.
    Show {
        /// The plugin id.
        id: String,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Call a tool a JavaScript plugin added with `ctx.tools.add`; prints its result as
    /// JSON.
    Call {
        /// The plugin id.
        id: String,
        /// The tool's name (`hookrig plugins show ID` lists them).
        tool: String,
        /// The tool's arguments, a JSON object.
        #[arg(long, value_name = "JSON", default_value = "{}")]
        args: String,
    },
    /// Forget a package (and for whom it was enabled). Its files are left alone.
    Delete {
        /// The plugin id.
        id: String,
    },
}

/// Which package, for whom.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("who").required(true).args(["agent", "all"])))]
pub(crate) struct Target {
    /// The plugin id.
    id: String,
    /// The agent (`*` is the same as --all).
    #[arg(long, value_name = "NAME")]
    agent: Option<String>,
    /// Every agent; replaces any per-agent setting.
    #[arg(long)]
    all: bool,
}

pub(crate) fn run(scope: &Scope, args: &PluginsArgs) -> Result<u8, ExpectedError> {
    let store = super::runs::ledger(scope)?;
    match &args.command {
        PluginsCommand::List { json } => {
            let plugins = store.plugins().list()?;
            output::json_or_text(json.json, &plugins[..], plugins_table)?;
        }
        PluginsCommand::Register {
            id,
            name,
            description,
            path,
        } => {
            let registration = Registration {
                id,
                name: name.as_deref(),
                description: description.as_deref(),
                path,
            };
            let row = register_package(scope, &store, registration, &mut |warning| {
                output::warn(warning);
            })?;
            print(&format!(
                "registered plugin `{id}` ({}) from {}; enable it with `hookrig plugins enable {id} --agent NAME` or `--all`\n",
                row.name, row.path
            ))?;
        }
        PluginsCommand::Enable(target) | PluginsCommand::Disable(target) => {
            let enable = matches!(args.command, PluginsCommand::Enable(_));
            let agent = match (&target.agent, target.all) {
                (Some(agent), false) if agent.trim().is_empty() => {
                    return Err(ExpectedError::EmptyAgent);
                }
                (Some(agent), false) => agent.as_str(),
                _ => ALL_AGENTS,
            };
            store
                .plugins()
                .set_enabled(&target.id, agent, enable)
                .map_err(unknown_plugin)?;
            print(&format!(
                "{} plugin `{}` for {}\n",
                if enable { "enabled" } else { "disabled" },
                target.id,
                if agent == ALL_AGENTS {
                    "every agent".to_owned()
                } else {
                    format!("agent {agent}")
                }
            ))?;
        }
        PluginsCommand::Show { id, json } => {
            let detail = hookrig_runtime::show_plugin(scope, &store, id).map_err(unknown)?;
            output::json_or_text(json.json, &detail, ToString::to_string)?;
        }
        PluginsCommand::Call { id, tool, args } => {
            let args: serde_json::Value =
                serde_json::from_str(args).map_err(|err| ExpectedError::ToolArgs {
                    args: args.clone(),
                    source: err,
                })?;
            if !args.is_object() {
                return Err(ExpectedError::ToolArgsNotObject(args.to_string()));
            }
            let result = hookrig_runtime::call_plugin_tool(scope, &store, id, tool, &args)
                .map_err(unknown)?;
            print(&format!(
                "{}\n",
                serde_json::to_string_pretty(&result).unwrap_or_else(|_| result.to_string())
            ))?;
        }
        PluginsCommand::Delete { id } => {
            store.plugins().delete(id).map_err(unknown_plugin)?;
            print(&format!("deleted plugin `{id}`\n"))?;
        }
    }
    Ok(exit_codes::PROCEED)
}

fn unknown_plugin(err: StoreError) -> ExpectedError {
    match err {
        StoreError::UnknownPlugin { id } => ExpectedError::UnknownPlugin(id),
        other => other.into(),
    }
}

fn unknown(err: hookrig_runtime::RuntimeError) -> ExpectedError {
    match err {
        hookrig_runtime::RuntimeError::UnknownPlugin(id) => ExpectedError::UnknownPlugin(id),
        other => other.into(),
    }
}
