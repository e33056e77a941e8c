//! `hookrig plugins list|register|enable|disable|delete`: the plugin package registry,
//! as OpenHermit's `hermit plugins` has it.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::{ArgGroup, Args, Subcommand};
use hookrig_config::Environment;
use hookrig_core::Severity;
use hookrig_dialects::{PackageRef, check_package, valid_package_id};
use hookrig_store::{ALL_AGENTS, PluginEntry, PluginRow, StoreError};

use crate::cli::GlobalArgs;
use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::ledger;
use crate::output::print;

#[derive(Debug, Args)]
pub(crate) struct PluginsArgs {
    #[command(subcommand)]
    pub(crate) command: PluginsCommand,
}

#[derive(Debug, Subcommand)]
pub(crate) enum PluginsCommand {
    /// List the registered plugin packages and for which agents each is enabled.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
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

pub(crate) fn run(global: &GlobalArgs, args: &PluginsArgs) -> Result<u8, ExpectedError> {
    let store = ledger::open(global)?;
    match &args.command {
        PluginsCommand::List { json } => {
            let plugins = store.plugins().list()?;
            if *json {
                let mut text =
                    serde_json::to_string_pretty(&plugins).expect("plugin rows always serialize");
                text.push('\n');
                print(&text)?;
            } else {
                print(&table(&plugins))?;
            }
        }
        PluginsCommand::Register {
            id,
            name,
            description,
            path,
        } => {
            let row = register_row(id, name.as_deref(), description.as_deref(), path)?;
            store.plugins().register(&row).map_err(|err| match err {
                StoreError::DuplicatePlugin { id } => ExpectedError::DuplicatePlugin {
                    path: store
                        .plugins()
                        .get(&id)
                        .ok()
                        .flatten()
                        .map(|p| p.path)
                        .unwrap_or_default(),
                    id,
                },
                other => other.into(),
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

/// Checks the package in `path` as an emit would load it, and builds its row. Warnings
/// are printed; any error refuses the registration, listing every one.
fn register_row(
    id: &str,
    name: Option<&str>,
    description: Option<&str>,
    path: &std::path::Path,
) -> Result<PluginRow, ExpectedError> {
    if !valid_package_id(id) {
        return Err(ExpectedError::BadPluginId(id.to_owned()));
    }
    let dir = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    // Canonical, so the stored path keeps naming the same directory whatever the
    // working directory of a later emit, and symlinks cannot make two ids of one dir.
    let dir = dir.canonicalize().unwrap_or(dir);
    let env = Environment::from_process(dir.clone())?;
    let check = check_package(
        &env,
        &PackageRef {
            id: id.to_owned(),
            path: dir.clone(),
        },
    );
    let (errors, warnings): (Vec<_>, Vec<_>) = check
        .diagnostics
        .into_iter()
        .partition(|d| d.severity == Severity::Error);
    for warning in &warnings {
        eprintln!("hookrig: warning: {warning}");
    }
    let package = match check.package {
        Some(package) if errors.is_empty() => package,
        _ => {
            return Err(ExpectedError::InvalidPackage {
                dir,
                problems: errors.iter().map(|e| problem(&e.to_string(), id)).collect(),
            });
        }
    };
    Ok(PluginRow {
        id: id.to_owned(),
        name: name.map_or_else(|| package.name.clone(), str::to_owned),
        description: description
            .map(str::to_owned)
            .or(package.description)
            .unwrap_or_default(),
        path: dir.display().to_string(),
        version: package.version,
        registered_at_ms: 0,
    })
}

/// A load diagnostic without its "what the load did about it" tail, which reads wrong
/// when nothing was being loaded.
fn problem(text: &str, id: &str) -> String {
    let package_tail = format!("; package {id} is not loaded");
    [
        package_tail.as_str(),
        "; the plugin's hooks are not loaded",
        "; the plugin is not loaded",
        "; skipped",
    ]
    .iter()
    .find_map(|tail| text.strip_suffix(tail))
    .unwrap_or(text)
    .to_owned()
}

/// `ID  VERSION  ENABLED FOR  PATH`, one package a line, in registration order.
fn table(plugins: &[PluginEntry]) -> String {
    if plugins.is_empty() {
        return "no plugins registered; `hookrig plugins register ID --path DIR` adds one\n"
            .to_owned();
    }
    let rows: Vec<[String; 4]> = plugins
        .iter()
        .map(|entry| {
            [
                entry.plugin.id.clone(),
                entry
                    .plugin
                    .version
                    .clone()
                    .unwrap_or_else(|| "-".to_owned()),
                enabled_for(entry),
                entry.plugin.path.clone(),
            ]
        })
        .collect();
    let header = ["ID", "VERSION", "ENABLED FOR", "PATH"];
    let mut widths = header.map(str::len);
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut text = String::new();
    for row in std::iter::once(header.map(str::to_owned)).chain(rows) {
        let line = row
            .iter()
            .zip(widths)
            .map(|(cell, width)| format!("{cell:width$}"))
            .collect::<Vec<_>>()
            .join("  ");
        let _ = writeln!(text, "{}", line.trim_end());
    }
    text
}

/// In words: `every agent`, `every agent except a, b`, `a, b`, `nobody`.
fn enabled_for(entry: &PluginEntry) -> String {
    let all = entry
        .agents
        .iter()
        .any(|a| a.agent == ALL_AGENTS && a.enabled);
    let listed = |enabled: bool| {
        entry
            .agents
            .iter()
            .filter(|a| a.agent != ALL_AGENTS && a.enabled == enabled)
            .map(|a| a.agent.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match (all, listed(!all)) {
        (true, except) if except.is_empty() => "every agent".to_owned(),
        (true, except) => format!("every agent except {except}"),
        (false, only) if only.is_empty() => "nobody".to_owned(),
        (false, only) => only,
    }
}
