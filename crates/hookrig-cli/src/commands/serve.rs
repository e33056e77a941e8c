//! `hookrig serve`: resolves where the project, the store and the socket are, runs
//! hookrig-automation's [`Server`] until SIGINT, SIGTERM or SIGHUP, and prints what it
//! reports on stderr.

use std::sync::Arc;

use hookrig_automation::{AutomationError, Server, ServerOptions};
use hookrig_config::Environment;
use hookrig_runtime::ingress;

use crate::cli::GlobalArgs;
use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::ledger;

pub(crate) fn run(global: &GlobalArgs) -> Result<u8, ExpectedError> {
    let env = Environment::from_process(crate::engine::working_dir(None)?)?;
    let root = hookrig_config::find_project(&env)
        .root
        .unwrap_or_else(|| env.cwd.clone());
    let config = crate::commands::config::load(None)?;
    let socket = ingress::socket_path_from_env().ok_or(ExpectedError::NoSocketPath)?;
    let store_path = ledger::store_path(global)?;
    let options = ServerOptions {
        env,
        root,
        config,
        store_path,
        socket,
    };
    let server = Server::new(
        options,
        Arc::new(|notice| eprintln!("hookrig serve: {notice}")),
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ExpectedError::Runtime)?;
    runtime.block_on(server.run()).map_err(|err| match err {
        AutomationError::Ingress(err) => ExpectedError::Ingress(err),
        AutomationError::Store(err) => ExpectedError::Store(err),
        AutomationError::Signals(err) => ExpectedError::Runtime(err),
        err => ExpectedError::InvalidAutomation(err.to_string()),
    })?;
    Ok(exit_codes::PROCEED)
}
