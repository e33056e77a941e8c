//! `hookrig`: one hook and plugin runtime for AI agents.
//!
//! A host runs `hookrig emit EVENT < payload.json` and gets one Outcome JSON object
//! back; every emit and hook run is recorded in the ledger (`hookrig runs`, `hookrig why`).

mod cli;
mod commands;
mod engine;
mod errors;
mod exit_codes;
mod external;
mod host;
mod ledger;
mod logging;
mod output;
mod scope;

use std::process::ExitCode;

use std::ffi::OsStr;
use std::path::Path;

use hookrig_dialects::{LoadOptions, PackageRef};
use hookrig_runtime::Scope;

use crate::cli::{Command, ConfigCommand, GlobalArgs, ProvidersCommand};
use crate::errors::ExpectedError;

fn main() -> ExitCode {
    let cli = external::parse();
    logging::init(cli.global.debug, cli.global.debug_hooks);
    // The commands that run hooks: should hookrig be killed with SIGKILL, the guardian
    // kills what they left running. Forked now, while hookrig has a single thread.
    let guardian = matches!(
        cli.command,
        Command::Emit(_) | Command::Task(_) | Command::Fire { .. } | Command::Serve
    )
    .then(hookrig_exec::Guardian::start)
    .flatten();
    let result = match cli.command {
        Command::Emit(args) => commands::emit::run(&cli.global, &args),
        Command::Events { json } => commands::events::run(json),
        Command::Runs(args) => commands::runs::list(&cli.global, &args),
        Command::Why { run_id, json } => commands::runs::why(&cli.global, &run_id, json),
        Command::List {
            event,
            cwd,
            json,
            agent,
        } => config_scope(&cli.global, cwd.as_deref(), agent, cli.agent.as_deref()).and_then(
            |(scope, packages)| commands::list::list(&scope, event.as_deref(), json, packages),
        ),
        Command::Show { name, cwd, agent } => {
            config_scope(&cli.global, cwd.as_deref(), agent, cli.agent.as_deref())
                .and_then(|(scope, packages)| commands::list::show(&scope, &name, packages))
        }
        Command::Explain {
            event,
            tool,
            cwd,
            plugin_dir,
            agent,
        } => config_scope(&cli.global, cwd.as_deref(), agent, cli.agent.as_deref()).and_then(
            |(scope, packages)| {
                let options = LoadOptions {
                    plugin_dirs: plugin_dir,
                    packages,
                    ..LoadOptions::default()
                };
                commands::explain::run(&scope, &event, tool.as_deref(), &options)
            },
        ),
        Command::Validate { strict, cwd, agent } => {
            config_scope(&cli.global, cwd.as_deref(), agent, cli.agent.as_deref()).and_then(
                |(scope, packages)| commands::validate::run(Some(scope.cwd()), strict, packages),
            )
        }
        Command::Schema => commands::schema::run(),
        Command::Completions { shell } => commands::completions::run(shell),
        Command::Trust { dir, list, revoke } => commands::trust::run(dir.as_deref(), list, revoke),
        Command::External(args) => external::run(
            &external::Context::new(
                cli.agent.as_deref(),
                cli.plan.as_deref(),
                cli.global.ledger.as_deref(),
            ),
            &args,
        ),
        Command::Config {
            command: ConfigCommand::Show { cwd, json },
        } => commands::config::show(cwd.as_deref(), json),
        Command::Providers {
            command: ProvidersCommand::List { cwd, json },
        } => commands::providers::list(cwd.as_deref(), json),
        Command::Plugins(args) => commands::plugins::run(&cli.global, &args),
        Command::Agent(args) => {
            commands::agent::run(&cli.global, args, cli.agent.as_deref(), cli.plan.as_deref())
        }
        Command::Auto(args) => commands::auto::run(&cli.global, &args),
        Command::Fire { id, json } => commands::auto::fire(&cli.global, &id, json),
        Command::Plan(args) => commands::plan::run(
            &cli.global,
            &args,
            cli.agent.as_deref(),
            cli.plan.as_deref(),
        ),
        Command::Task(args) => commands::task::run(
            &cli.global,
            &args,
            cli.agent.as_deref(),
            cli.plan.as_deref(),
        ),
        Command::Serve => commands::serve::run(&cli.global),
        Command::Engine(args) => commands::engine::run(&args),
    };
    if let Some(guardian) = guardian {
        guardian.dismiss();
    }
    match result {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            eprintln!("hookrig: error: {}", output::chain(&err));
            ExitCode::from(err.exit_code())
        }
    }
}

/// The scope of the config commands (`list`, `show`, `explain`, `validate`) and the
/// plugin packages they load: those enabled for the subcommand's `--agent`, else
/// `hookrig --agent`, else `$HOOKRIG_AGENT` or `$HENCE_AGENT` (only those enabled for
/// every agent without any), as an emit would.
pub(crate) fn config_scope(
    global: &GlobalArgs,
    cwd: Option<&Path>,
    agent: Option<String>,
    top_agent: Option<&OsStr>,
) -> Result<(Scope, Vec<PackageRef>), ExpectedError> {
    let agent = agent.or_else(|| top_agent.map(|a| a.to_string_lossy().into_owned()));
    let scope = scope::resolve(global, cwd, agent, None)?;
    let (packages, _) =
        hookrig_runtime::ledger::enabled_packages(&scope.store, scope.agent.as_deref())?;
    Ok((scope, packages))
}
