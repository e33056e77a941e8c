//! `hookrig plugins list|register|enable|disable|delete`: the plugin package registry,
//! as OpenHermit's `hermit plugins` has it.

use std::path::PathBuf;
use std::sync::Arc;

use clap::{ArgGroup, Args, Subcommand};
use hookrig_runtime::{Registration, Scope, SharedRegistry, plugins_table, register_package};
use hookrig_store::{ALL_AGENTS, PgStore, StoreError};

use crate::cli::{JsonArg, StoreArg};
use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::{self, print};
use crate::scope::{Flags, Top};

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
        store: StoreArg,
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
        #[command(flatten)]
        store: StoreArg,
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
        store: StoreArg,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Call a tool a JavaScript plugin added with `ctx.tools.add`; prints its result as
    /// JSON.
    ///
    /// With `--store`, a package of the shared registry that this node runs for the agent
    /// (`--agent`): its rows signed with this node's registry key, its copy the one signed.
    Call {
        /// The plugin id.
        id: String,
        /// The tool's name (`hookrig plugins show ID` lists them).
        tool: String,
        /// The tool's arguments, a JSON object.
        #[arg(long, value_name = "JSON", default_value = "{}")]
        args: String,
        #[command(flatten)]
        store: StoreArg,
    },
    /// Forget a package (and for whom it was enabled). Its files are left alone.
    Delete {
        /// The plugin id.
        id: String,
        #[command(flatten)]
        store: StoreArg,
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
    #[command(flatten)]
    store: StoreArg,
}

pub(crate) fn run(top: &Top, args: &PluginsArgs) -> Result<u8, ExpectedError> {
    let operator = match &args.command {
        PluginsCommand::List { store, .. }
        | PluginsCommand::Register { store, .. }
        | PluginsCommand::Delete { store, .. }
        | PluginsCommand::Enable(Target { store, .. })
        | PluginsCommand::Disable(Target { store, .. })
        | PluginsCommand::Show { store, .. }
        | PluginsCommand::Call { store, .. } => store,
    };
    let scope = top.scope(Flags::default().operator(operator))?;
    // The operator's `--store` or `HOOKRIG_STORE_URL`, and only those: the user's own
    // `[store] url` leaves these commands on the store file, as before there was a
    // shared registry (docs/postgres.md, "Plugins").
    if let Some(url) = &scope.store_url {
        let shared = SharedRegistry::new(Arc::new(PgStore::open(url)?), &scope.env.config_home);
        return shared_registry(&scope, &shared, &args.command);
    }
    let scope = &scope;
    let store = super::runs::ledger(scope)?;
    match &args.command {
        PluginsCommand::List { json, .. } => {
            let plugins = store.plugins().list()?;
            output::json_or_text(json.json, &plugins[..], plugins_table)?;
        }
        PluginsCommand::Register {
            id,
            name,
            description,
            path,
            ..
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
            let agent = target.agent()?;
            store
                .plugins()
                .set_enabled(&target.id, agent, enable)
                .map_err(unknown_plugin)?;
            print(&target.changed(enable))?;
        }
        PluginsCommand::Show { id, json, .. } => {
            let detail = hookrig_runtime::show_plugin(scope, &store, id).map_err(unknown)?;
            output::json_or_text(json.json, &detail, ToString::to_string)?;
        }
        PluginsCommand::Call { id, tool, args, .. } => {
            let args = tool_args(args)?;
            let result = hookrig_runtime::call_plugin_tool(scope, &store, id, tool, &args)
                .map_err(unknown)?;
            print_result(&result)?;
        }
        PluginsCommand::Delete { id, .. } => {
            store.plugins().delete(id).map_err(unknown_plugin)?;
            print(&format!("deleted plugin `{id}`\n"))?;
        }
    }
    Ok(exit_codes::PROCEED)
}

impl Target {
    /// The agent named, or `*` for `--all`.
    fn agent(&self) -> Result<&str, ExpectedError> {
        match (&self.agent, self.all) {
            (Some(agent), false) if agent.trim().is_empty() => Err(ExpectedError::EmptyAgent),
            (Some(agent), false) => Ok(agent.as_str()),
            _ => Ok(ALL_AGENTS),
        }
    }

    /// What `enable` or `disable` says it did.
    fn changed(&self, enable: bool) -> String {
        format!(
            "{} plugin `{}` for {}\n",
            if enable { "enabled" } else { "disabled" },
            self.id,
            match self.agent() {
                Ok(ALL_AGENTS) | Err(_) => "every agent".to_owned(),
                Ok(agent) => format!("agent {agent}"),
            }
        )
    }
}

/// `list`, `show`, `register`, `enable`, `disable` and `delete` on the shared registry
/// of the database the operator named: every row written is signed with the operator's
/// key, `list` and `show` see only the rows that verify, saying which they left out
/// and why, and `call` calls a tool of a package whose rows verify and whose copy here is
/// the one signed, enabled for the scope's agent, as an emit of that agent would run it.
fn shared_registry(
    scope: &Scope,
    shared: &SharedRegistry,
    command: &PluginsCommand,
) -> Result<u8, ExpectedError> {
    match command {
        PluginsCommand::List { json, .. } => {
            let (plugins, skipped) = shared.entries()?;
            for line in skipped {
                output::warn(&line);
            }
            output::json_or_text(json.json, &plugins[..], plugins_table)?;
        }
        PluginsCommand::Register {
            id,
            name,
            description,
            path,
            ..
        } => {
            let registration = Registration {
                id,
                name: name.as_deref(),
                description: description.as_deref(),
                path,
            };
            let row = shared.register(scope, registration, &mut |warning| {
                output::warn(warning);
            })?;
            print(&format!(
                "registered plugin `{id}` ({}) from {} in the shared registry, signed with {}; \
                 every node runs it with a copy of that key and of the package at that path; \
                 enable it with `hookrig plugins enable {id} --store URL --agent NAME` or `--all`\n",
                row.name,
                row.path,
                shared.key_path().display()
            ))?;
        }
        PluginsCommand::Enable(target) | PluginsCommand::Disable(target) => {
            let enable = matches!(command, PluginsCommand::Enable(_));
            shared
                .set_enabled(&target.id, target.agent()?, enable)
                .map_err(unknown_plugin)?;
            print(&target.changed(enable))?;
        }
        PluginsCommand::Delete { id, .. } => {
            shared.delete(id).map_err(unknown_plugin)?;
            print(&format!("deleted plugin `{id}` from the shared registry\n"))?;
        }
        PluginsCommand::Show { id, json, .. } => {
            let (plugins, skipped) = shared.entries()?;
            for line in skipped {
                output::warn(&line);
            }
            let entry = plugins
                .into_iter()
                .find(|entry| entry.plugin.id == *id)
                .ok_or_else(|| ExpectedError::UnknownPlugin(id.clone()))?;
            let detail = hookrig_runtime::show_entry(scope, entry).map_err(unknown)?;
            output::json_or_text(json.json, &detail, ToString::to_string)?;
        }
        // A package this node runs for the scope's agent, as its emits would.
        PluginsCommand::Call { id, tool, args, .. } => {
            let args = tool_args(args)?;
            let package = shared
                .package(id, scope.agent.as_deref())
                .map_err(unknown)?;
            let result = hookrig_runtime::call_package_tool(scope, &package, tool, &args)
                .map_err(unknown)?;
            print_result(&result)?;
        }
    }
    Ok(exit_codes::PROCEED)
}

/// The arguments of `plugins call`: `--args`, which must be a JSON object.
fn tool_args(args: &str) -> Result<serde_json::Value, ExpectedError> {
    let value: serde_json::Value =
        serde_json::from_str(args).map_err(|err| ExpectedError::ToolArgs {
            args: args.to_owned(),
            source: err,
        })?;
    if !value.is_object() {
        return Err(ExpectedError::ToolArgsNotObject(value.to_string()));
    }
    Ok(value)
}

/// A tool's result, as pretty JSON.
fn print_result(result: &serde_json::Value) -> Result<(), ExpectedError> {
    print(&format!(
        "{}\n",
        serde_json::to_string_pretty(result).unwrap_or_else(|_| result.to_string())
    ))?;
    Ok(())
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
