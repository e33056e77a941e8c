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
mod signals;

use std::process::ExitCode;

use crate::cli::Command;

fn main() -> ExitCode {
    let cli = external::parse();
    logging::init(cli.global.debug);
    let result = match cli.command {
        Command::Emit(args) => commands::emit::run(&cli.global, &args),
        Command::Events { json } => commands::events::run(json),
        Command::Runs(args) => commands::runs::list(&cli.global, &args),
        Command::Why { run_id, json } => commands::runs::why(&cli.global, &run_id, json),
        Command::List { event, cwd, json } => {
            commands::list::list(cwd.as_deref(), event.as_deref(), json)
        }
        Command::Show { name, cwd } => commands::list::show(cwd.as_deref(), &name),
        Command::Explain {
            event,
            tool,
            cwd,
            plugin_dir,
        } => commands::explain::run(cwd.as_deref(), &event, tool.as_deref(), plugin_dir),
        Command::Validate { strict, cwd } => commands::validate::run(cwd.as_deref(), strict),
        Command::Schema => commands::schema::run(),
        Command::Trust { dir, list, revoke } => commands::trust::run(dir.as_deref(), list, revoke),
        Command::External(args) => external::run(
            &external::Context::new(
                cli.agent.as_deref(),
                cli.plan.as_deref(),
                cli.global.ledger.as_deref(),
            ),
            &args,
        ),
        Command::Plugins(args) => commands::plugins::run(&cli.global, &args),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            eprintln!("hookrig: error: {}", output::chain(&err));
            ExitCode::from(err.exit_code())
        }
    }
}
