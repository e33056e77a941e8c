//! `hookrig`: one hook and plugin runtime for AI agents.
//!
//! A host runs `hookrig emit EVENT < payload.json` and gets one Outcome JSON object
//! back; every emit and hook run is recorded in the ledger (`hookrig runs`, `hookrig why`).
//!
//! This binary owns argv, rendering and exit codes: each command resolves its scope
//! once, makes one call into the libraries, renders what it gets back and maps errors to
//! exit codes; it also runs external commands (`hookrig foo` runs `hookrig-foo`). It
//! must not hold behaviour another caller could need: what hookrig does lives in the
//! libraries.

mod cli;
mod commands;
mod errors;
mod exit_codes;
mod external;
mod host;
mod logging;
mod output;
mod scope;

use std::process::ExitCode;

use crate::cli::{Cli, Command, ConfigCommand, ProvidersCommand};
use crate::scope::Flags;

fn main() -> ExitCode {
    // Started as the guardian of another hookrig's hooks, this process is nothing else.
    hookrig_exec::guardian::run_if_asked();
    keep_if_asked();
    let Cli { top, command } = external::parse();
    logging::init(top.global.debug, top.global.debug_hooks);
    arm_guardian(&command);
    let result = match &command {
        Command::Emit(args) => commands::emit::run(&top, args),
        Command::Events { json } => commands::events::run(json.json),
        Command::Runs(args) => top
            .scope(Flags::default())
            .and_then(|scope| commands::runs::list(&scope, args)),
        Command::Test(args) => top
            .scope(Flags::default().cwd(&args.cwd))
            .and_then(|scope| commands::test::run(&scope, args)),
        Command::Replay(args) => top
            .scope(Flags::default())
            .and_then(|scope| commands::test::replay(&scope, args)),
        Command::Why { run_id, json } => top
            .scope(Flags::default())
            .and_then(|scope| commands::runs::why(&scope, run_id, json.json)),
        Command::List {
            event,
            cwd,
            json,
            agent,
        } => top
            .scope(Flags::default().cwd(cwd).agent(agent))
            .and_then(|scope| commands::list::list(&scope, event.as_deref(), json.json)),
        Command::Show { name, cwd, agent } => top
            .scope(Flags::default().cwd(cwd).agent(agent))
            .and_then(|scope| commands::list::show(&scope, name)),
        Command::Explain {
            event,
            tool,
            cwd,
            plugin_dir,
            agent,
        } => top
            .scope(Flags::default().cwd(cwd).agent(agent))
            .and_then(|scope| commands::explain::run(&scope, event, tool.as_deref(), plugin_dir)),
        Command::Validate { strict, cwd, agent } => top
            .scope(Flags::default().cwd(cwd).agent(agent))
            .and_then(|scope| commands::validate::run(&scope, *strict)),
        Command::Schema => commands::schema::run(),
        Command::Completions { shell } => commands::completions::run(*shell),
        Command::Trust {
            dir,
            list,
            revoke,
            any_project,
        } => top
            .scope(Flags::default().dir(dir.as_deref()))
            .and_then(|scope| {
                let what = commands::trust::What::of_flags(*any_project, *list, *revoke);
                commands::trust::run(&scope, what)
            }),
        Command::External(args) => top
            .scope(Flags::default())
            .and_then(|scope| external::run(&scope, args)),
        Command::Config {
            command: ConfigCommand::Show { cwd, json },
        } => top
            .scope(Flags::default().cwd(cwd))
            .and_then(|scope| commands::config::show(&scope, json.json)),
        Command::Providers {
            command: ProvidersCommand::List { cwd, json },
        } => top
            .scope(Flags::default().cwd(cwd))
            .and_then(|scope| commands::providers::list(&scope, json.json)),
        Command::Install(args) => commands::install::install(&top, args),
        Command::Uninstall(args) => commands::install::uninstall(&top, args),
        Command::Doctor { json } => commands::install::doctor(&top, json.json),
        Command::Plugins(args) => commands::plugins::run(&top, args),
        Command::Agent(args) => commands::agent::run(&top, args),
        Command::Auto(args) => commands::auto::run(&top, args),
        Command::Fire { id, json, store } => top
            .scope(Flags::default().operator(store))
            .and_then(|scope| commands::auto::fire(&scope, id, json.json)),
        Command::Plan(args) => commands::plan::run(&top, args),
        Command::Task(args) => commands::task::run(&top, args),
        Command::Serve(args) => top
            .scope(Flags::default().operator(&args.store))
            .and_then(|scope| commands::serve::run(&scope, args)),
        Command::Store(args) => commands::store::run(&top, args),
        Command::Engine(args) => commands::engine::run(args),
        Command::Ui(args) => top
            .scope(Flags::default())
            .and_then(|scope| commands::ui::run(&scope, args)),
    };
    hookrig_exec::guardian::dismiss();
    match result {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            eprintln!("hookrig: error: {}", output::chain(&err));
            ExitCode::from(err.exit_code())
        }
    }
}

/// The commands that run hooks: should hookrig be killed with SIGKILL, the guardian kills
/// what they left running. It is this same binary, started only when a child is (an
/// emit handed to an engine, or where no hook matches, starts none): by a resident
/// process with its first child, by a one-shot command once a child has outlived the
/// guardian's grace (most hooks end sooner).
fn arm_guardian(command: &Command) {
    use hookrig_exec::guardian::{Start, arm};
    let start = match command {
        Command::Serve(_) | Command::Engine(_) => Start::WithFirstChild,
        Command::Emit(_) | Command::Task(_) | Command::Fire { .. } => Start::Lazily,
        _ => return,
    };
    arm(std::path::PathBuf::from("/proc/self/exe"), start);
}

/// Started as the async keeper of a one-shot emit, this process runs that emit's async
/// hooks to their end (with a guardian of its own for them), and is nothing else.
fn keep_if_asked() {
    hookrig_exec::keeper::run_if_asked(|job| {
        hookrig_exec::guardian::arm(
            std::path::PathBuf::from("/proc/self/exe"),
            hookrig_exec::guardian::Start::WithFirstChild,
        );
        hookrig_runtime::keeper::keep(&job)
    });
}
