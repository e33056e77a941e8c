//! `hookrig engine run|start|status|stop`: the resident engine that answers emits.

use std::time::Duration;

use clap::{Args, Subcommand};
use hookrig_runtime::engine::{self, Unavailable};
use hookrig_runtime::ingress;

use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::{print, print_json};

/// `hookrig engine ...`.
#[derive(Debug, Args)]
pub(crate) struct EngineArgs {
    #[command(subcommand)]
    command: EngineCommand,
}

#[derive(Debug, Subcommand)]
enum EngineCommand {
    /// Run an engine in the foreground (emits only, no automations) until it is
    /// stopped, gets SIGINT/SIGTERM/SIGHUP, or has been idle for --idle.
    Run {
        /// How long without an emit before it exits (`10m`, `1h`, `0s` for never).
        #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = parse_idle)]
        idle: Duration,
        /// Also answer emits over HTTP on this address (see `hookrig serve --http`).
        #[arg(long, value_name = "ADDR:PORT")]
        http: Option<std::net::SocketAddr>,
    },
    /// Start an engine in the background and wait until it answers.
    Start {
        /// How long without an emit before it exits (`10m`, `1h`, `0s` for never).
        #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = parse_idle)]
        idle: Duration,
    },
    /// Show the running engine: pid, uptime, build, emits answered and under way.
    ///
    /// Exit 3 when none runs.
    Status {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Stop the running engine (emits under way get their answers first).
    Stop,
}

/// An idle time; zero means never.
fn parse_idle(text: &str) -> Result<Duration, String> {
    let idle = humantime::parse_duration(text).map_err(|err| err.to_string())?;
    Ok(if idle.is_zero() { Duration::MAX } else { idle })
}

pub(crate) fn run(args: &EngineArgs) -> Result<u8, ExpectedError> {
    let socket = ingress::socket_path_from_env().ok_or(ExpectedError::NoSocketPath)?;
    match &args.command {
        EngineCommand::Run { idle, http } => {
            let state_home =
                hookrig_config::Environment::from_process(std::path::PathBuf::from("/"))?
                    .state_home;
            let http = crate::commands::serve::http_front(*http, &state_home)?;
            let stopped = engine::run_resident_blocking(&socket, *idle, http)?;
            eprintln!("hookrig engine: stopped ({})", stopped.as_str());
            Ok(exit_codes::PROCEED)
        }
        EngineCommand::Start { idle } => {
            if let Ok(status) = engine::status(&socket) {
                print(&format!("an engine already runs (pid {})\n", status.pid))?;
                return Ok(exit_codes::PROCEED);
            }
            engine::start_in_background(&socket, *idle).map_err(ExpectedError::EngineStart)?;
            let status = engine::wait_until_ready(&socket, START_LIMIT)
                .map_err(|err| ExpectedError::EngineStart(err.to_string()))?;
            print(&format!("engine started (pid {})\n", status.pid))?;
            Ok(exit_codes::PROCEED)
        }
        EngineCommand::Status { json } => match engine::status(&socket) {
            Ok(status) => {
                if *json {
                    print_json(&status)?;
                } else {
                    print(&status.text(&socket))?;
                }
                Ok(exit_codes::PROCEED)
            }
            Err(Unavailable::NotRunning(_)) => {
                print(&format!("no engine runs (socket {})\n", socket.display()))?;
                Ok(exit_codes::NOT_RUNNING)
            }
            Err(err) => Err(ExpectedError::EngineStart(err.to_string())),
        },
        EngineCommand::Stop => match engine::stop(&socket, STOP_LIMIT) {
            Ok(()) => {
                print("engine stopped\n")?;
                Ok(exit_codes::PROCEED)
            }
            Err(Unavailable::NotRunning(_)) => {
                print(&format!("no engine runs (socket {})\n", socket.display()))?;
                Ok(exit_codes::PROCEED)
            }
            Err(err) => Err(ExpectedError::EngineStart(err.to_string())),
        },
    }
}

/// How long `engine start` waits for the new engine to answer.
const START_LIMIT: Duration = Duration::from_secs(5);
/// How long `engine stop` waits for the engine to be gone.
const STOP_LIMIT: Duration = Duration::from_secs(10);
